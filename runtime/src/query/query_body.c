/* query_body.c — which bodies answer a query, the filter they pass, and the
 * world box the body tree holds for each.
 *
 * A bending body's sub-bodies collide for it, but the game draws, and so
 * aims at, the body's skinned mesh: the owner (a ghost with a bending
 * record) answers under the game's handle and the sub-bodies (and the parked
 * ghosts a split or a condensation keeps) do not, so one surface answers
 * once.
 */
#include "query/query_tree.h"
#include "damage/bend_model.h"

static bool is_bend_owner(const cr_world *w, uint32_t slot) {
    const cr_bend_body *r = cri_bend_records(w);
    for (uint32_t i = 0; i < w->def.damage.bend.body_capacity; ++i)
        if (r[i].body_index1 == slot + 1) return true;
    return false;
}

bool cri_query_answers(const cr_world *w, uint32_t slot) {
    const cr_body *b = &cr_world_bodies_c(w)[slot];
    if (!b->alive) return false;
    if (b->models & CR_MODEL_BEND) return is_bend_owner(w, slot);
    return !b->ghost;
}

bool cri_query_passes(const cr_world *w, uint32_t slot, cr_query_filter f) {
    const cr_body *b = &cr_world_bodies_c(w)[slot];
    /* a disabled body is out of the world until enabled again; checked here, not in
     * the tree, since enabling it between steps does not make the tree stale */
    if (b->disabled || (b->sensor && !f.sensors)) return false;
    return (b->filter.category_bits & f.mask_bits) != 0 && (b->filter.mask_bits & f.category_bits) != 0;
}

void cri_query_mesh_local_box(const cr_world *w, const cr_body *b, cr_vec3 *lo, cr_vec3 *hi) {
    const cr_asset *a = cr_world_asset(w, b->shape.asset);
    if ((b->shape.asset & CR_SURFACE_SLOT_FLAG) == 0 && a != NULL) {
        *lo = a->bounds_min, *hi = a->bounds_max;
        return;
    }
    /* a copy's vertices move under the damage models; its bound radius is
     * what the broadphase trusts too, so it is kept covering them */
    cr_real r = b->bound_radius;
    *lo = cr_v3(-r, -r, -r), *hi = cr_v3(r, r, r);
}

cr_vec3 cri_query_rotated_extent(cr_quat q, cr_vec3 e) {
    cr_mat3 m = cr_mat3_from_quat(q);
    cr_vec3 r = cr_v3(cr_mul(cr_abs(m.cx.x), e.x) + cr_mul(cr_abs(m.cy.x), e.y) + cr_mul(cr_abs(m.cz.x), e.z),
                      cr_mul(cr_abs(m.cx.y), e.x) + cr_mul(cr_abs(m.cy.y), e.y) + cr_mul(cr_abs(m.cz.y), e.z),
                      cr_mul(cr_abs(m.cx.z), e.x) + cr_mul(cr_abs(m.cy.z), e.y) + cr_mul(cr_abs(m.cz.z), e.z));
    /* slack for the rounding of the rotation (unit quaternions to a few ulps) */
    cr_real slack = cr_mul(e.x + e.y + e.z, CR_R(1e-5)) + CR_R(1e-5);
    return cr_v3_add(r, cr_v3(slack, slack, slack));
}

/* the world box of a body-frame box: centre moved, half extents through |R| */
static void rotated_box(cr_transform xf, cr_vec3 lo, cr_vec3 hi, cr_vec3 *wlo, cr_vec3 *whi) {
    cr_vec3 c = cr_transform_point(xf, cr_v3_scale(cr_v3_add(lo, hi), CR_R(0.5)));
    cr_vec3 r = cri_query_rotated_extent(xf.q, cr_v3_scale(cr_v3_sub(hi, lo), CR_R(0.5)));
    *wlo = cr_v3_sub(c, r), *whi = cr_v3_add(c, r);
}

void cri_query_body_box(const cr_world *w, const cr_body *b, cr_vec3 *lo, cr_vec3 *hi) {
    cr_vec3 l, h;
    switch (b->shape.type) {
    case CR_SHAPE_SPHERE: {
        cr_real r = b->shape.radius + CR_R(1e-5);
        *lo = cr_v3_sub(b->xf.p, cr_v3(r, r, r)), *hi = cr_v3_add(b->xf.p, cr_v3(r, r, r));
        return;
    }
    case CR_SHAPE_BOX:
        l = cr_v3_neg(b->shape.half_extents), h = b->shape.half_extents;
        break;
    case CR_SHAPE_MESH:
        cri_query_mesh_local_box(w, b, &l, &h);
        break;
    default: /* planes are never boxed */
        *lo = *hi = b->xf.p;
        return;
    }
    rotated_box(b->xf, l, h, lo, hi);
}
