/* bend_dent.c — bending coupled with denting (seed 000 §4.4).
 *
 * The seed dents "the surface of the parent body" brought to the current
 * state, then recomputes the sub-bodies. A sub-body is rigid and its frame is
 * the parent's rest frame moved to the bone's centre, so the parent's surface
 * as the hit bone sees it now is the sub-body's own copy: crumple dents that
 * copy with the dent model's own map (damage/dent.c: Z-buffer of the
 * projectile, broadening, smoothing, glancing shear), patches its grid where
 * the surface moved, and writes the moved vertices back into the body's rest
 * surface (rest = sub-body frame + the bone's rest centre). The drawn mesh is
 * skinned from that rest surface, so the dent bends with the body, and a
 * sub-body made later (a split, a woken cluster) takes the dented vertices.
 *
 * What is simplified (docs/bending.md): a dent moves the hit sub-body's copy
 * only (a dent across a seam shows in the drawn mesh, but the neighbour bone
 * collides with its undented side), and a sub-body re-made by a split or a
 * wake rebuilds its grid from the cooked one (its samples and the drawn mesh
 * keep the dent). Sphere, box and mesh projectiles dent; planes do not.
 */
#include "damage/stage.h"
#include "damage/bend_model.h"
#include "damage/sub_body.h"
#include "damage/dent.h"

#include <string.h>

static const uint32_t box_triangles[36] = {0, 1, 5, 0, 5, 4, 2, 6, 7, 2, 7, 3, 0, 4, 6, 0, 6, 2,
                                           1, 3, 7, 1, 7, 5, 0, 2, 3, 0, 3, 1, 4, 5, 7, 4, 7, 6};

static cr_real mean_edge(const cr_asset *a) {
    if (a->triangle_count == 0) return 0;
    cr_real area = cr_div(a->surface_area, cr_from_int((int32_t)a->triangle_count));
    return cr_sqrt(cr_mul(area, CR_R(2.309401076758503)));
}

typedef struct dent_ctx {
    const cr_dent *dent;
    const cr_dent_def *def;
} dent_ctx;

static cr_vec3 dent_move(const void *ctx, cr_vec3 p) {
    const dent_ctx *c = (const dent_ctx *)ctx;
    return cri_dent_displacement(c->dent, c->def, p);
}

static uint32_t dent_bone(cr_world *w, uint32_t rec, uint32_t bone, const cr_body_impact *im, bool forwarded, bool *dented) {
    *dented = false;
    cr_bend_body *r = &cri_bend_records(w)[rec];
    cr_bend_bone *bb = &cri_bend_bones(w, rec)[bone];
    const cr_dent_def *def = &r->def.dent;
    const cr_body *proj = cri_world_body_c(w, im->other);
    cr_surface_copy *copy = cri_damage_surface_of(w, bb->sub.index1);
    if (proj == NULL || copy == NULL || proj->shape.type == CR_SHAPE_PLANE) return 1;
    uint8_t *block = (uint8_t *)w;
    cr_asset *view = cr_surface_copy_view(copy, block);
    const cr_asset *rest = cr_world_asset(w, copy->rest_slot);
    if (rest == NULL) return 1;
    uint8_t owner = cri_sub_body_owner_at(rest, cri_bend_node_bone(w, rec), cr_v3_add(im->point, bb->centre));
    if (owner != bone) {
        /* a hit on the seam band (seam.c: this bone's grid reaching into the next bone's nodes) dents the
         * bone whose nodes those are, where the hit is in its frame: this copy's vertices there are where
         * they would be had the body not bent. Once: the moved point is that bone's to take or leave. */
        const cr_bend_bone *bones = cri_bend_bones(w, rec);
        if (forwarded || owner >= r->bone_count || bones[owner].cluster >= 0) return 1;
        cr_transform rel = cr_transform_mul(cr_transform_inverse(cri_bend_bone_pose(w, bones, owner)),
                                            cri_bend_bone_pose(w, bones, bone));
        cr_body_impact moved = *im;
        moved.point = cr_transform_point(rel, im->point);
        moved.normal = cr_quat_rotate(rel.q, im->normal);
        moved.velocity = cr_quat_rotate(rel.q, im->velocity);
        moved.impulse_vector = cr_quat_rotate(rel.q, im->impulse_vector);
        moved.other_pose = cr_transform_mul(rel, im->other_pose);
        return 1 + dent_bone(w, rec, owner, &moved, true, dented);
    }
    /* the projectile as the Z-buffer sees it */
    cr_dent_projectile pj;
    memset(&pj, 0, sizeof pj);
    pj.to_target = im->other_pose;
    cr_vec3 corners[8];
    if (proj->shape.type == CR_SHAPE_SPHERE) {
        pj.is_sphere = true;
        pj.radius = proj->shape.radius;
    } else if (proj->shape.type == CR_SHAPE_BOX) {
        cr_vec3 h = proj->shape.half_extents;
        for (int i = 0; i < 8; ++i) corners[i] = cr_v3((i & 1) ? h.x : -h.x, (i & 2) ? h.y : -h.y, (i & 4) ? h.z : -h.z);
        pj.vertices = corners;
        pj.triangles = box_triangles;
        pj.triangle_count = 12;
        pj.edge_length = cr_min(h.x, h.z);
    } else {
        const cr_asset *pa = cr_world_asset(w, proj->shape.asset);
        if (pa == NULL) return 1;
        pj.vertices = pa->positions;
        pj.triangles = pa->triangles;
        pj.triangle_count = pa->triangle_count;
        pj.edge_length = mean_edge(pa);
    }
    /* the dent's origin on the sub-body's own surface */
    cr_vec3 grad;
    cr_real phi = cr_asset_sdf(view, im->point, &grad);
    cr_dent_impact imp = {cr_v3_mad(im->point, -phi, grad), im->normal, im->velocity, cri_dent_distance(def, im->normal_speed)};
    if (imp.distance <= 0) return 1;
    cr_real cell;
    uint32_t cells = cri_dent_plan_cells(def, &imp, &pj, mean_edge(rest), &cell);
    uint32_t max_cells = w->def.damage.bend.dent_cells;
    if (cells > max_cells) { /* the same area with fewer, larger cells */
        cell = cr_div(cr_mul(cell, cr_from_int((int32_t)cells - 1)), cr_from_int((int32_t)max_cells - 1));
        cells = max_cells;
    }
    cr_dent dent;
    cri_dent_build(&dent, def, &imp, &pj, cells, cell, CR_AT(w, CR_DAMAGE(w)->bend.dent_scratch, void));
    uint32_t work = cells * cells + 3 * pj.triangle_count;
    cr_vec3 *pos = cr_surface_copy_positions(copy, block);
    cr_bend_scratch sc = cri_bend_scratch(w);
    cr_vec3 *before = (cr_vec3 *)sc.skin_weight; /* 4 reals per vertex of room: 3 are enough */
    memcpy(before, pos, view->vertex_count * sizeof(cr_vec3));
    uint32_t first, last;
    uint32_t moved = cri_dent_apply(&dent, def, pos, view->vertex_count, &first, &last, NULL);
    work += 2 * view->vertex_count;
    if (moved == 0) return work;
    const uint8_t *sbone = cri_bend_skin_bone(w, rec);
    const cr_real *sweight = cri_bend_skin_weight(w, rec);
    memset(sc.mark, 0, rest->vertex_count);
    for (uint32_t t = 0; t < rest->triangle_count; ++t) {
        if (cri_sub_body_triangle_bone(rest, sbone, sweight, t, NULL) != bone) continue;
        for (int k = 0; k < 3; ++k) sc.mark[rest->triangles[3 * t + k]] = 1;
    }
    /* only the bone's own vertices dent: the copy holds the other bones' vertices where they would be had
     * the body not bent, and a dent there (a hit on the seam band, seam.c) would show where they are not */
    moved = 0;
    for (uint32_t v = first; v <= last; ++v) {
        if (!sc.mark[v]) pos[v] = before[v];
        else moved += pos[v].x != before[v].x || pos[v].y != before[v].y || pos[v].z != before[v].z;
    }
    if (moved == 0) return work;
    /* the rest surface (what the drawn mesh is skinned from) moves as this copy's vertices did:
     * the copy may not hold earlier dents of other bones */
    cr_vec3 *rp = cri_bend_rest_pos(w, rec);
    for (uint32_t v = first; v <= last; ++v) rp[v] = cr_v3_add(rp[v], cr_v3_sub(pos[v], before[v]));
    cr_vec3 *samples = CR_AT(w, copy->samples, cr_vec3);
    uint32_t j = 0;
    for (uint32_t i = 0; i < rest->sample_count && j < bb->samples; ++i)
        if (sc.mark[rest->sample_vertex[i]]) samples[j++] = pos[rest->sample_vertex[i]];
    work += rest->triangle_count + rest->sample_count;
    /* its grid where the surface moved */
    dent_ctx ctx = {&dent, def};
    cr_real reach = dent.support + cr_mul(CR_R(8), dent.distance);
    uint32_t nodes = rest->sdf_dims[0] * rest->sdf_dims[1] * rest->sdf_dims[2];
    cr_surface_patch pr = cri_surface_copy_patch(copy, block, dent.point, reach, dent.distance, dent_move, &ctx, nodes,
                                                sc.grid, w->def.damage.bend.max_grid_nodes);
    work += pr.nodes;
    if (pr.shrunk) w->stats.bend.shrunk++;
    copy->changes++;
    r->dent_count++;
    r->dirty = 1;
    *dented = true;
    w->stats.bend.done++;
    return work;
}

uint32_t cri_bend_dent(cr_world *w, uint32_t rec, uint32_t bone, const cr_body_impact *im, bool *dented) {
    return dent_bone(w, rec, bone, im, false, dented);
}
