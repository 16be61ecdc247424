/* bend_model.c — bending (seed 000 §4, Algorithm 2) on the damage stage's
 * seam.
 *
 * Attach (Algorithm 2, steps 1-2): the rigged body is divided into one
 * sub-body per bone (sub_body.c: triangles and grid nodes to bones, mass
 * properties per bone). Each sub-body is a world body of its own with a
 * surface copy restricted to its bone (its samples, its grid nodes, moved
 * into its frame: the parent's axes at its centre of mass), and each bone is
 * held to its parent bone by a fixed joint at the bone's head, plastic or
 * elastic as the def says (the yield and the spring are the solver's:
 * solver/plastic_joint.c, solver/elastic_joint.c). The body itself becomes a
 * ghost: kinematic, out of collision detection, its mass kept aside; it is
 * still the game's handle and its mesh is the one drawn.
 *
 * Step (Algorithm 2, step 16): every bendable body is put where its root bone
 * says (the root sub-body's pose composed with the root's rest offset) and
 * given the root's velocities; a body whose bones moved relative to one
 * another since its last re-skin has its mesh re-skinned by linear blend
 * skinning of the bones' transforms (parent frame at rest -> parent frame
 * now), its normals and bounds refreshed and its dirty range widened. The
 * re-skin is bounded by vertices_per_step; the first body of a step always
 * runs, and the next step starts at the body that waited (a fixed order).
 *
 * Dynamic articulation (Algorithm 2, steps 6-13): impacts on sub-bodies
 * faster than the def's split_speed are queued (the fastest per body per
 * step), and split_per_step of them split a bone (dynamic_articulation.c).
 * The sub-bodies a body may grow by splits are made at attach, parked as
 * ghosts, so a split inside the step changes bodies instead of making them;
 * the joint a split adds is a deferred command, found by its two bodies in
 * the next step.
 *
 * Condensation (condense.c) and bend + dent (bend_dent.c) run in the same
 * step: clusters hit or about to be hit wake first, then splits, dents, and
 * clusters of quiet joints condense, then the bodies follow their roots and
 * re-skin.
 *
 * Seams (seam.c) close the cut between sub-bodies at every new joint and
 * again as it turns; the cooker's sections (BNDT, BNDN, BNDM) spare attach
 * the segmentation and the mass sums (docs/bending.md, with what is not
 * done).
 */
#include "damage/stage.h"
#include "damage/bend_model.h"
#include "damage/sub_body.h"
#include "base/inertia.h"
#include "geometry/skinning.h"
#include "damage/dent.h"
#include "base/hash.h"
#include "base/check.h"

#include <string.h>

#define CR_BEND_COOKIE 0x62656e64u /* "bend" */

cr_bend_def cr_default_bend_def(void) {
    cr_bend_def d;
    memset(&d, 0, sizeof d);
    d.bend_strength = CR_R(50);
    d.bend_damping = CR_R(4);
    d.bend_damping_constant = CR_R(2);
    d.split_min_length = CR_R(0.25);
    d.dent = cr_default_dent_def();
    d.seam_angle = CR_R(0.05);
    d.cookie = CR_BEND_COOKIE;
    return d;
}

cr_bend_budget cr_default_bend_budget(void) {
    cr_bend_budget b;
    b.body_capacity = 0; /* no memory for bendable bodies unless the host makes room */
    b.max_bones = 8;
    b.max_vertices = 1u << 16;
    b.max_triangles = 1u << 17;
    b.max_grid_nodes = 1u << 18;
    b.vertices_per_step = 1u << 16;
    b.splits_per_step = 4;
    b.queue_capacity = 64;
    b.condensations_per_step = 4;
    b.dents_per_step = 4;
    b.dent_cells = 64;
    b.seams_per_step = 4;
    return b;
}

cr_status cri_bend_model_check_def(const cr_bend_budget *b) {
    if (b->body_capacity > 4096) return CR_ERR_DEF_INVALID;
    if (b->body_capacity == 0) return CR_OK;
    if (b->max_bones < 2 || b->max_bones > CR_ASSET_MAX_BONES || b->max_vertices == 0 ||
        b->max_vertices > CR_ASSET_MAX_VERTICES || b->max_triangles == 0 || b->max_triangles > CR_ASSET_MAX_TRIANGLES ||
        b->max_grid_nodes < 8 || b->max_grid_nodes > CR_ASSET_MAX_SDF_NODES || b->vertices_per_step == 0 ||
        b->splits_per_step == 0 || b->condensations_per_step == 0 || b->dents_per_step == 0 || b->dent_cells < 8 ||
        b->dent_cells > 1024 || b->queue_capacity == 0 || b->queue_capacity > (1u << 20))
        return CR_ERR_DEF_INVALID;
    return CR_OK;
}

static uint64_t al16(uint64_t x) { return (x + 15u) & ~(uint64_t)15u; }
/* The float build re-skins with the grouped layout (geometry/skinning.h: the
 * compiler vectorises it, 2x faster, the same bits); the Q32.32 build's
 * 64-bit products do not vectorise, so it skins vertex by vertex and keeps
 * no layout. */
#define CR_BEND_GROUPED_SKIN (!CR_FIXED)
/* entries of a grouped skinning layout */
static uint64_t layout_entries(const cr_bend_budget *b) {
    return CR_BEND_GROUPED_SKIN ? cri_skin_layout_capacity(b->max_vertices, CR_BEND_SKIN_GROUPS) : 0;
}
/* the grouped skinning layout: entry vertices, rest positions, weights, group ends, bones and unit flags */
static uint64_t layout_bytes(const cr_bend_budget *b) {
    uint64_t n = layout_entries(b);
    if (!CR_BEND_GROUPED_SKIN) return 0;
    return al16(n * sizeof(uint32_t)) + al16(3 * n * sizeof(cr_real)) + al16(4 * n * sizeof(cr_real)) +
           al16(CR_BEND_SKIN_GROUPS * sizeof(uint32_t)) + al16(4 * CR_BEND_SKIN_GROUPS) + al16(CR_BEND_SKIN_GROUPS);
}
/* node owners, the growth queue, triangle owners, vertex marks, spare influences */
static uint64_t scratch_bytes(const cr_bend_budget *b) {
    return al16((uint64_t)b->max_bones * sizeof(cr_transform)) + al16((uint64_t)b->max_bones * sizeof(cr_skin_bone)) +
           al16((uint64_t)b->max_grid_nodes * sizeof(cr_real)) + al16((uint64_t)b->max_bones * sizeof(cr_asset_bone_moments)) +
           al16(b->max_grid_nodes) + al16((uint64_t)b->max_grid_nodes * sizeof(uint32_t)) + al16(b->max_triangles) +
           al16(b->max_vertices) + al16(4ull * b->max_vertices) + al16(4ull * b->max_vertices * sizeof(cr_real)) +
           (CR_BEND_GROUPED_SKIN ? al16(3ull * b->max_vertices * sizeof(uint32_t)) : 0);
}
static uint64_t per_record_bytes(const cr_bend_budget *b) {
    return al16((uint64_t)b->max_bones * sizeof(cr_bend_bone)) + al16(4ull * b->max_vertices) +
           al16((uint64_t)b->max_vertices * sizeof(cr_vec3)) +
           al16(4ull * b->max_vertices * sizeof(cr_real)) + al16(b->max_grid_nodes) + layout_bytes(b);
}

uint32_t cri_bend_model_surfaces(const cr_bend_budget *b) { return b->body_capacity * (1u + b->max_bones); }

uint64_t cri_bend_model_region_bytes(const cr_world_def *def) {
    const cr_bend_budget *b = &def->damage.bend;
    if (b->body_capacity == 0) return 0;
    return al16((uint64_t)b->body_capacity * sizeof(cr_bend_body)) + b->body_capacity * per_record_bytes(b) +
           al16((uint64_t)b->queue_capacity * sizeof(cr_bend_split)) + scratch_bytes(b) +
           al16(cri_dent_scratch_bytes(b->dent_cells)) + 160u;
}

bool cri_bend_model_layout(cr_world *w, uint8_t *block) {
    const cr_bend_budget *b = &w->def.damage.bend;
    cr_bend_region *r = &CR_DAMAGE(w)->bend;
    memset(r, 0, sizeof *r);
    if (b->body_capacity == 0) return true;
    cr_arena *a = &w->persistent;
    uint32_t n = b->body_capacity;
    r->records = cri_arena_push(a, block, n * (uint32_t)sizeof(cr_bend_body), 16);
    r->bones = cri_arena_push(a, block, n * b->max_bones * (uint32_t)sizeof(cr_bend_bone), 16);
    r->skin_bone = cri_arena_push(a, block, n * 4u * b->max_vertices, 16);
    r->skin_weight = cri_arena_push(a, block, n * 4u * b->max_vertices * (uint32_t)sizeof(cr_real), 16);
    r->node_bone = cri_arena_push(a, block, n * b->max_grid_nodes, 16);
    r->rest_pos = cri_arena_push(a, block, n * b->max_vertices * (uint32_t)sizeof(cr_vec3), 16);
    r->skin_layout = CR_BEND_GROUPED_SKIN ? cri_arena_push(a, block, n * (uint32_t)layout_bytes(b), 16) : 0;
    r->dent_scratch = cri_arena_push(a, block, cri_dent_scratch_bytes(b->dent_cells), 16);
    r->queue = cri_arena_push(a, block, b->queue_capacity * (uint32_t)sizeof(cr_bend_split), 16);
    r->scratch = cri_arena_push(a, block, (uint32_t)scratch_bytes(b), 16);
    return r->records != CR_NO_OFFSET && r->bones != CR_NO_OFFSET && r->skin_bone != CR_NO_OFFSET &&
           r->skin_weight != CR_NO_OFFSET && r->node_bone != CR_NO_OFFSET && r->queue != CR_NO_OFFSET &&
           r->scratch != CR_NO_OFFSET && r->rest_pos != CR_NO_OFFSET && r->dent_scratch != CR_NO_OFFSET &&
           (r->skin_layout != CR_NO_OFFSET || !CR_BEND_GROUPED_SKIN);
}

cr_skin_layout cri_bend_skin_layout(const cr_world *w, uint32_t rec) {
    const cr_bend_budget *b = &w->def.damage.bend;
    uint64_t n = layout_entries(b);
    uint8_t *p = CR_AT(w, CR_DAMAGE(w)->bend.skin_layout, uint8_t) + (size_t)rec * layout_bytes(b);
    cr_skin_layout l;
    l.count = 0, l.groups = 0;
    l.order = (uint32_t *)p, p += al16(n * sizeof(uint32_t));
    l.u = (cr_real *)p, p += al16(3 * n * sizeof(cr_real));
    l.w = (cr_real *)p, p += al16(4 * n * sizeof(cr_real));
    l.group_end = (uint32_t *)p, p += al16(CR_BEND_SKIN_GROUPS * sizeof(uint32_t));
    l.group_bone = p, p += al16(4 * CR_BEND_SKIN_GROUPS);
    l.group_unit = p;
    return l;
}

cr_bend_scratch cri_bend_scratch(const cr_world *w) {
    const cr_bend_budget *b = &w->def.damage.bend;
    uint8_t *p = CR_AT(w, CR_DAMAGE(w)->bend.scratch, uint8_t);
    cr_bend_scratch s;
    s.bone_x = (cr_transform *)p, p += al16((uint64_t)b->max_bones * sizeof(cr_transform));
    s.bone_m = p, p += al16((uint64_t)b->max_bones * sizeof(cr_skin_bone));
    s.grid = (cr_real *)p, p += al16((uint64_t)b->max_grid_nodes * sizeof(cr_real));
    s.moments = (cr_asset_bone_moments *)p, p += al16((uint64_t)b->max_bones * sizeof(cr_asset_bone_moments));
    s.node_bone = p, p += al16(b->max_grid_nodes);
    s.queue = (uint32_t *)p, p += al16((uint64_t)b->max_grid_nodes * sizeof(uint32_t));
    s.tri_bone = p, p += al16(b->max_triangles);
    s.mark = p, p += al16(b->max_vertices);
    s.skin_bone = p, p += al16(4ull * b->max_vertices);
    s.skin_weight = (cr_real *)p, p += al16(4ull * b->max_vertices * sizeof(cr_real));
    s.skin_tmp = (uint32_t *)p;
    return s;
}

static cr_bend_body *records(const cr_world *w) { return cri_bend_records(w); }
static cr_bend_bone *bones_of(const cr_world *w, uint32_t rec) { return cri_bend_bones(w, rec); }

/* The record of a body, or capacity if it has none. */
static uint32_t record_index(const cr_world *w, uint32_t body_index1) {
    uint32_t cap = w->def.damage.bend.body_capacity;
    if (body_index1 == 0 || body_index1 > w->body_high || !(cr_world_bodies_c(w)[body_index1 - 1].models & CR_MODEL_BEND))
        return cap;
    for (uint32_t i = 0; i < cap; ++i)
        if (records(w)[i].body_index1 == body_index1) return i;
    return cap;
}

static cr_status check_bend_def(cr_world *w, const cr_bend_def *d) {
    const cr_real v[5] = {d->bend_strength, d->bend_damping, d->bend_damping_constant, d->spring_stiffness,
                          d->spring_damping};
    for (int i = 0; i < 5; ++i) {
        if (!cr_real_is_finite(v[i])) return cri_refuse(w, CR_ERR_NOT_FINITE, CR_FIELD_BEND_DEF);
        if (v[i] < 0) return cri_refuse(w, CR_ERR_DEF_INVALID, CR_FIELD_BEND_DEF);
    }
    if (d->bend_strength > 0 && d->spring_stiffness > 0) return cri_refuse(w, CR_ERR_DEF_INVALID, CR_FIELD_BEND_DEF);
    if (!cr_real_is_finite(d->split_speed) || !cr_real_is_finite(d->split_min_length) ||
        !cr_real_is_finite(d->condense_time) || !cr_real_is_finite(d->wake_speed) || !cr_real_is_finite(d->seam_angle))
        return cri_refuse(w, CR_ERR_NOT_FINITE, CR_FIELD_BEND_DEF);
    if (d->dents) {
        const cr_dent_def *dd = &d->dent;
        if (dd->cookie != cr_default_dent_def().cookie) return cri_refuse(w, CR_ERR_DEF_NOT_DEFAULTED, CR_FIELD_BEND_DEF);
        const cr_real dv[9] = {dd->threshold_speed, dd->speed_scale, dd->fixed_distance, dd->max_distance, dd->blur,
                               dd->steepness, dd->width_t, dd->min_cos, 0};
        for (int i = 0; i < 8; ++i) {
            if (!cr_real_is_finite(dv[i])) return cri_refuse(w, CR_ERR_NOT_FINITE, CR_FIELD_BEND_DEF);
            if (dv[i] < 0) return cri_refuse(w, CR_ERR_DEF_INVALID, CR_FIELD_BEND_DEF);
        }
        if (dd->min_cells < 2 || dd->min_cells > dd->max_cells || dd->steepness <= 0 || dd->min_cos > CR_R(1))
            return cri_refuse(w, CR_ERR_DEF_INVALID, CR_FIELD_BEND_DEF);
    }
    if (d->split_speed < 0 || d->split_min_length < 0 || d->condense_time < 0 || d->wake_speed < 0 || d->seam_angle < 0 ||
        d->max_bones > w->def.damage.bend.max_bones)
        return cri_refuse(w, CR_ERR_DEF_INVALID, CR_FIELD_BEND_DEF);
    return CR_OK;
}

void cri_bend_fit_sub_body(cr_world *w, uint32_t rec, uint32_t bone, const uint8_t *tri_bone, uint8_t *mark) {
    cr_bend_body *r = &records(w)[rec];
    cr_bend_bone *bb = &bones_of(w, rec)[bone];
    const cr_body *p = &cr_world_bodies_c(w)[r->body_index1 - 1];
    const cr_asset *rest = cri_damage_rest_asset(w, p->shape.asset);
    cr_vec3 centre, inertia, products;
    uint32_t n = cri_sub_body_mass(rest, &bb->moments, r->node_mass, &centre, &inertia, &products);
    cr_surface_copy *copy;
    if (cri_damage_surface_attach(w, bb->sub.index1, &copy) != CR_OK) return; /* room was checked at attach */
    uint8_t *block = (uint8_t *)w;
    cr_asset *view = cr_surface_copy_view(copy, block);
    bb->samples = cri_sub_body_restrict(view, cr_surface_copy_positions(copy, block), CR_AT(w, copy->samples, cr_vec3),
                                        CR_AT(w, copy->sdf, cr_real), rest, cri_bend_rest_pos(w, rec), tri_bone,
                                        cri_bend_node_bone(w, rec), mark, bone, centre);
    bb->nodes = n;
    bb->centre = centre;
    /* its grid is as cut at rest again: its seams (its own joint's and its children's) are made again */
    cr_bend_bone *all = bones_of(w, rec);
    for (uint32_t k = 0; k < w->def.damage.bend.max_bones; ++k)
        if (k == bone || all[k].parent == (int32_t)bone) all[k].seam = cri_bend_seam_unmade();
    cr_body *b = &cr_world_bodies(w)[bb->sub.index1 - 1];
    b->mass = cr_mul(r->node_mass, cr_from_int((int32_t)n));
    b->inv_mass = cr_div(CR_R(1), b->mass);
    /* the full tensor in the parent's axes: a limb is seldom along them (the
     * teapot's spout: products up to 0.37 of its smallest moment); with
     * rounding making it not positive definite (a thin bone), its diagonal */
    if (!cri_inertia_set(b, inertia, products)) cri_inertia_set(b, inertia, cr_v3_zero());
    b->bound_radius = view->bound_radius;
}

/* A body for a bone, at the parent's pose, on the parent's cooked asset:
 * dynamic for a live bone, a parked ghost for one a split may add. */
static cr_status make_sub_body(cr_world *w, uint32_t parent_index1, uint32_t rest_slot, cr_vec3 centre, bool parked,
                               cr_body_id *out) {
    const cr_body *p = &cr_world_bodies(w)[parent_index1 - 1];
    cr_vec3 arm = cr_quat_rotate(p->xf.q, centre);
    cr_body_def bd = cr_default_body_def();
    bd.type = parked ? CR_BODY_KINEMATIC : CR_BODY_DYNAMIC;
    bd.position = cr_v3_add(p->xf.p, arm);
    bd.orientation = p->xf.q;
    if (!parked) {
        bd.linear_velocity = cr_v3_add(p->v, cr_v3_cross(p->w, arm));
        bd.angular_velocity = p->w;
    }
    bd.shape.type = CR_SHAPE_MESH;
    bd.shape.asset = rest_slot;
    bd.material = p->material;
    bd.no_sleep = p->no_sleep != 0;
    bd.filter = p->filter; /* a bone collides and moves as its body would */
    bd.gravity_scale = p->gravity_scale;
    bd.linear_damping = p->linear_damping;
    bd.angular_damping = p->angular_damping;
    CR_TRY(cr_body_create(w, &bd, out));
    cr_body *b = &cr_world_bodies(w)[out->index1 - 1];
    b->models |= CR_MODEL_BEND; /* its impacts reach the model */
    b->ghost = parked ? 1 : 0;
    return CR_OK;
}

/* Each bone as a segment in the rest frame: from its head to the mean of its
 * children's heads; a leaf reaches along the direction from its parent's head
 * (a lone root: along the body's longest axis) to its farthest own vertex; a
 * root also reaches back to its nearest own vertex behind its head. */
static void bone_segments(const cr_asset *a, const uint8_t *skin_bone, const cr_real *skin_weight, cr_bend_bone *bones) {
    for (uint32_t k = 0; k < a->bone_count; ++k) {
        cr_vec3 head = a->bones[k].rest.p, tail = cr_v3_zero();
        uint32_t children = 0;
        for (uint32_t c = k + 1; c < a->bone_count; ++c)
            if (a->bones[c].parent == (int32_t)k) tail = cr_v3_add(tail, a->bones[c].rest.p), ++children;
        cr_vec3 d;
        if (children) {
            tail = cr_v3_scale(tail, cr_div(CR_R(1), cr_from_int((int32_t)children)));
            d = cr_v3_normalize(cr_v3_sub(tail, head));
        } else if (a->bones[k].parent >= 0) {
            d = cr_v3_normalize(cr_v3_sub(head, a->bones[a->bones[k].parent].rest.p));
        } else {
            /* the principal axis of least inertia is the longest */
            cr_vec3 i = a->inertia;
            d = (i.x <= i.y && i.x <= i.z) ? cr_v3(CR_R(1), 0, 0) : (i.y <= i.z ? cr_v3(0, CR_R(1), 0) : cr_v3(0, 0, CR_R(1)));
        }
        cr_real lo = 0, hi = 0;
        for (uint32_t v = 0; v < a->vertex_count; ++v) {
            uint32_t best = 0;
            for (uint32_t s = 1; s < CR_ASSET_SKIN_SLOTS; ++s)
                if (skin_weight[4 * v + s] > skin_weight[4 * v + best]) best = s;
            if (skin_bone[4 * v + best] != k) continue;
            cr_real t = cr_v3_dot(cr_v3_sub(a->positions[v], head), d);
            lo = cr_min(lo, t), hi = cr_max(hi, t);
        }
        bones[k].parent = a->bones[k].parent;
        bones[k].seg_a = a->bones[k].parent < 0 ? cr_v3_mad(head, lo, d) : head;
        bones[k].seg_b = children ? tail : cr_v3_mad(head, hi, d);
    }
}

cr_status cri_bend_model_attach(cr_world *w, uint32_t body_index1, const cr_bend_def *def) {
    const cr_bend_budget *bd = &w->def.damage.bend;
    cr_body *b = &cr_world_bodies(w)[body_index1 - 1];
    CR_TRY(check_bend_def(w, def));
    if (b->models & (CR_MODEL_BEND | CR_MODEL_DENT | CR_MODEL_EXAMPLE)) return CR_ERR_DEF_INVALID;
    if (b->type != CR_BODY_DYNAMIC || b->shape.type != CR_SHAPE_MESH || b->ghost) return CR_ERR_DEF_INVALID;
    uint32_t rest_slot = cri_damage_rest_slot(w, b->shape.asset);
    const cr_asset *a = cri_damage_rest_asset(w, b->shape.asset);
    bool splits = def->split_speed > 0;
    if (a == NULL || a->bone_count == 0 || (a->bone_count < 2 && !splits) || a->samples == NULL) return CR_ERR_DEF_INVALID;
    uint32_t nodes = a->sdf_dims[0] * a->sdf_dims[1] * a->sdf_dims[2];
    uint32_t max_bones = splits ? (def->max_bones ? def->max_bones : bd->max_bones) : a->bone_count;
    if (a->bone_count > bd->max_bones || max_bones < a->bone_count || a->vertex_count > bd->max_vertices ||
        a->triangle_count > bd->max_triangles || nodes > bd->max_grid_nodes)
        return CR_ERR_CAPACITY;
    uint32_t pick = bd->body_capacity, roots = 0;
    for (uint32_t i = 0; i < bd->body_capacity && pick == bd->body_capacity; ++i)
        if (records(w)[i].body_index1 == 0) pick = i;
    if (pick == bd->body_capacity) return CR_ERR_CAPACITY;
    for (uint32_t k = 0; k < a->bone_count; ++k) roots += a->bones[k].parent < 0;
    if (w->body_count + max_bones > w->def.body_capacity ||
        w->joint_count + (max_bones - roots) > w->def.joint_capacity)
        return CR_ERR_CAPACITY;

    /* segmentation (sub_body.c): the record's own influences and node owners */
    uint8_t *skin_bone = cri_bend_skin_bone(w, pick), *node_bone = cri_bend_node_bone(w, pick);
    cr_real *skin_weight = cri_bend_skin_weight(w, pick);
    memcpy(skin_bone, a->skin_bone, 4u * a->vertex_count);
    memcpy(skin_weight, a->skin_weight, 4u * a->vertex_count * sizeof(cr_real));
    memcpy(cri_bend_rest_pos(w, pick), a->positions, a->vertex_count * sizeof(cr_vec3));
    cr_bend_scratch sc = cri_bend_scratch(w);
    bool cooked = a->bend_triangle_bone != NULL && a->bend_node_bone != NULL;
    if (cooked) {
        /* cooked (BNDT, BNDN: tools/cook_bend.c, the same segmentation run offline) */
        memcpy(sc.tri_bone, a->bend_triangle_bone, a->triangle_count);
        memcpy(node_bone, a->bend_node_bone, nodes);
    } else {
        cri_sub_body_segment(a, skin_bone, skin_weight, sc.tri_bone, node_bone, sc.queue);
    }
    /* each bone's inside nodes as moments: cooked with the owners (BNDM), or one pass over the grid */
    if (cooked && a->bend_moments != NULL) memcpy(sc.moments, a->bend_moments, a->bone_count * sizeof *sc.moments);
    else cri_sub_body_moments(a, node_bone, a->bone_count, NULL, sc.moments);
    int64_t inside = 0; /* every node has an owner: the bones' inside nodes are all of the grid's */
    for (uint32_t k = 0; k < a->bone_count; ++k) {
        if (sc.moments[k].count == 0) return CR_ERR_DEF_INVALID; /* a bone shorter than the grid can see */
        inside += sc.moments[k].count;
    }

    /* the body's own copy: the skinned mesh the game draws */
    cr_surface_copy *copy;
    CR_TRY(cri_damage_surface_attach(w, body_index1, &copy));
    cr_bend_body *r = &records(w)[pick];
    cr_bend_bone *bones = bones_of(w, pick);
    memset(r, 0, sizeof *r);
    memset(bones, 0, bd->max_bones * sizeof *bones);
    r->body_index1 = body_index1;
    r->body_generation = b->generation;
    r->bone_count = a->bone_count;
    r->def = *def;
    r->def.max_bones = max_bones;
    r->node_mass = cr_div(b->mass, cr_from_int((int32_t)inside));
    b->models |= CR_MODEL_BEND;
    bone_segments(a, skin_bone, skin_weight, bones);
    for (uint32_t k = 0; k < a->bone_count; ++k) bones[k].moments = sc.moments[k];
    cr_status s = CR_OK;
    for (uint32_t k = 0; k < max_bones && s == CR_OK; ++k) {
        cr_vec3 centre, inertia;
        if (k < a->bone_count) cri_sub_body_mass(a, &bones[k].moments, r->node_mass, &centre, &inertia, NULL);
        else centre = cr_v3_zero();
        bones[k].skin = cr_transform_identity();
        bones[k].cluster = -1;
        s = make_sub_body(w, body_index1, rest_slot, centre, k >= a->bone_count, &bones[k].sub);
        if (s == CR_OK && k < a->bone_count) cri_bend_fit_sub_body(w, pick, k, sc.tri_bone, sc.mark);
        if (s == CR_OK && k < a->bone_count && cri_damage_surface_of(w, bones[k].sub.index1) == NULL) s = CR_ERR_CAPACITY;
    }
    for (uint32_t k = 0; k < a->bone_count && s == CR_OK; ++k) {
        if (a->bones[k].parent < 0) continue;
        b = &cr_world_bodies(w)[body_index1 - 1];
        cr_joint_def jd = cr_default_joint_def();
        jd.type = CR_JOINT_FIXED;
        jd.body_a = bones[a->bones[k].parent].sub;
        jd.body_b = bones[k].sub;
        jd.anchor = cr_transform_point(b->xf, a->bones[k].rest.p);
        jd.bend_strength = def->bend_strength;
        jd.bend_damping = def->bend_damping;
        jd.bend_damping_constant = def->bend_damping_constant;
        jd.spring_stiffness = def->spring_stiffness;
        jd.spring_damping = def->spring_damping;
        s = cr_joint_create(w, &jd, &bones[k].joint);
    }
    if (s != CR_OK) {
        cri_bend_model_detach(w, body_index1); /* gives back what was made */
        return s;
    }
    /* the body becomes the ghost its sub-bodies collide for */
    b = &cr_world_bodies(w)[body_index1 - 1];
    r->mass = b->mass, r->inv_mass = b->inv_mass, r->inertia = b->inertia, r->inv_inertia = b->inv_inertia;
    b->ghost = 1;
    b->type = CR_BODY_KINEMATIC;
    b->mass = 0, b->inv_mass = 0;
    b->inertia = cr_v3_zero(), b->inv_inertia = cr_v3_zero(); /* its products were 0: a cooked body is principal */
    return CR_OK;
}

cr_status cr_bend_attach(cr_world *w, cr_body_id id, const cr_bend_def *def) {
    if (w == NULL || def == NULL) return CR_ERR_NULL_ARGUMENT;
    if (def->cookie != CR_BEND_COOKIE) return CR_ERR_DEF_NOT_DEFAULTED;
    if (cri_world_body(w, id) == NULL) return CR_ERR_STALE_HANDLE;
    return cri_bend_model_attach(w, id.index1, def);
}

void cri_bend_model_detach(cr_world *w, uint32_t body_index1) {
    uint32_t i = record_index(w, body_index1);
    if (i == w->def.damage.bend.body_capacity) return;
    cr_bend_body *r = &records(w)[i];
    cr_bend_bone *bones = bones_of(w, i);
    r->body_index1 = 0; /* first: destroying the sub-bodies comes back through detach */
    cr_body *b = &cr_world_bodies(w)[body_index1 - 1];
    b->models &= (uint8_t)~CR_MODEL_BEND;
    for (uint32_t k = 0; k < r->def.max_bones; ++k)
        if (!cr_body_id_is_null(bones[k].sub) && cri_world_body(w, bones[k].sub) != NULL) cr_body_destroy(w, bones[k].sub);
    b = &cr_world_bodies(w)[body_index1 - 1];
    if (b->ghost) {
        b->ghost = 0;
        b->type = CR_BODY_DYNAMIC;
        b->mass = r->mass, b->inv_mass = r->inv_mass, b->inertia = r->inertia, b->inv_inertia = r->inv_inertia;
    }
}

uint32_t cr_bend_get_bone_count(const cr_world *w, cr_body_id id) {
    if (w == NULL || cri_world_body_c(w, id) == NULL) return 0;
    uint32_t i = record_index(w, id.index1);
    return i == w->def.damage.bend.body_capacity ? 0 : records(w)[i].bone_count;
}

cr_body_id cr_bend_get_sub_body(const cr_world *w, cr_body_id id, uint32_t bone) {
    cr_body_id none = {0, 0};
    if (bone >= cr_bend_get_bone_count(w, id)) return none;
    return bones_of(w, record_index(w, id.index1))[bone].sub;
}

bool cr_bend_is_sub_body(const cr_world *w, cr_body_id id) {
    const cr_body *b = w ? cri_world_body_c(w, id) : NULL;
    /* the model's bit without a record: made by the model for a bendable body */
    return b != NULL && (b->models & CR_MODEL_BEND) && record_index(w, id.index1) == w->def.damage.bend.body_capacity;
}

cr_joint_id cr_bend_get_joint(const cr_world *w, cr_body_id id, uint32_t bone) {
    cr_joint_id none = {0, 0};
    if (bone >= cr_bend_get_bone_count(w, id)) return none;
    return bones_of(w, record_index(w, id.index1))[bone].joint;
}

void cri_bend_model_rebind(cr_world *w) {
    const cr_bend_budget *bd = &w->def.damage.bend;
    for (uint32_t i = 0; i < bd->body_capacity; ++i) {
        const cr_bend_body *r = &records(w)[i];
        if (r->body_index1 == 0) continue;
        const cr_bend_bone *bones = bones_of(w, i);
        for (uint32_t k = 0; k < r->bone_count; ++k) {
            cr_surface_copy *c = cri_damage_surface_of(w, bones[k].sub.index1);
            if (c == NULL) continue;
            cr_asset *view = cr_surface_copy_view(c, (uint8_t *)w);
            const cr_asset *rest = cr_world_asset(w, c->rest_slot);
            if (rest == NULL) continue;
            if (bones[k].cluster == (int32_t)k) { /* a condensed cluster's representative (condense.c) */
                view->sample_count = bones[k].cluster_samples;
                view->sdf_origin = bones[k].cluster_origin;
                view->sdf_cell = bones[k].cluster_cell;
                view->sdf_inv_cell = cr_div(CR_R(1), bones[k].cluster_cell);
                continue;
            }
            view->sample_count = bones[k].samples;
            view->sdf_origin = cr_v3_sub(rest->sdf_origin, bones[k].centre);
        }
    }
}

uint64_t cri_bend_model_hash(const cr_world *w, uint64_t h) {
    const cr_bend_budget *bd = &w->def.damage.bend;
    for (uint32_t i = 0; i < bd->body_capacity; ++i) {
        const cr_bend_body *r = &records(w)[i];
        if (r->body_index1 == 0) continue;
        h = cr_hash_u32(h, r->body_index1);
        h = cr_hash_u32(h, r->bone_count);
        h = cr_hash_u32(h, r->skinned);
        h = cr_hash_u32(h, r->splits);
        h = cr_hash_u32(h, r->dirty);
        h = cr_hash_u32(h, r->dent_count);
        if (r->dent_count > 0) {
            const cr_asset *rest = cri_damage_rest_asset(w, cr_world_bodies_c(w)[r->body_index1 - 1].shape.asset);
            const cr_vec3 *rp = cri_bend_rest_pos(w, i);
            for (uint32_t v = 0; rest && v < rest->vertex_count; ++v) h = cr_hash_vec3(h, rp[v]);
        }
        if (r->splits > 0) { /* a split changed the influences and the node owners */
            const cr_asset *rest = cri_damage_rest_asset(w, cr_world_bodies_c(w)[r->body_index1 - 1].shape.asset);
            const cr_real *wt = cri_bend_skin_weight(w, i);
            const uint8_t *sb = cri_bend_skin_bone(w, i), *nb = cri_bend_node_bone(w, i);
            for (uint32_t v = 0; rest && v < 4u * rest->vertex_count; ++v) h = cr_hash_real(h, wt[v]), h = cr_hash_u32(h, sb[v]);
            for (uint32_t n = 0; rest && n < rest->sdf_dims[0] * rest->sdf_dims[1] * rest->sdf_dims[2]; ++n)
                h = cr_hash_u32(h, nb[n]);
        }
        const cr_bend_bone *bones = bones_of(w, i);
        for (uint32_t k = 0; k < r->bone_count; ++k) {
            h = cr_hash_u32(h, bones[k].sub.index1);
            h = cr_hash_u32(h, bones[k].joint.index1);
            h = cr_hash_vec3(h, bones[k].centre);
            h = cr_hash_vec3(h, bones[k].seg_a);
            h = cr_hash_vec3(h, bones[k].seg_b);
            h = cr_hash_u32(h, (uint32_t)bones[k].parent);
            h = cr_hash_u32(h, (uint32_t)bones[k].cluster);
            h = cr_hash_real(h, bones[k].quiet);
            if (bones[k].cluster >= 0) h = cr_hash_vec3(h, bones[k].rel.p), h = cr_hash_quat(h, bones[k].rel.q);
            h = cr_hash_u32(h, bones[k].samples);
            h = cr_hash_u32(h, bones[k].nodes);
            h = cr_hash_quat(h, bones[k].seam);
            h = cr_hash_vec3(h, bones[k].skin.p);
            h = cr_hash_quat(h, bones[k].skin.q);
        }
    }
    const cr_bend_region *br = &CR_DAMAGE(w)->bend;
    if (br->queue_count > 0) {
        h = cr_hash_u32(h, br->queue_count);
        const cr_bend_split *q = CR_AT(w, br->queue, const cr_bend_split);
        for (uint32_t k = 0; k < br->queue_count; ++k) {
            const cr_bend_split *j = &q[(br->queue_head + k) % bd->queue_capacity];
            h = cr_hash_u32(h, j->body_index1);
            h = cr_hash_vec3(h, j->point);
        }
    }
    return h;
}

/* ---- step ---------------------------------------------------------------- */

/* The bone's skinning transform: parent frame at rest -> parent frame now,
 * u -> conj(P.q) (X.q (u - c) + X.p - P.p). */
static cr_transform bone_skin(cr_transform parent, cr_transform sub, cr_vec3 centre) {
    cr_transform m;
    cr_quat pc = cr_quat_conj(parent.q);
    m.q = cr_quat_normalize(cr_quat_mul(pc, sub.q));
    m.p = cr_v3_sub(cr_quat_rotate(pc, cr_v3_sub(sub.p, parent.p)), cr_quat_rotate(m.q, centre));
    return m;
}

/* Bones that moved less than this (m, and quaternion components) since the
 * last re-skin leave the mesh alone: a chain moving as one rigid body still
 * rounds its relative transforms differently every step. */
#define CR_BEND_SKIN_TOLERANCE CR_R(1e-5)

static bool same_transform(cr_transform a, cr_transform b) {
    cr_real d = cr_max(cr_abs(a.p.x - b.p.x), cr_max(cr_abs(a.p.y - b.p.y), cr_abs(a.p.z - b.p.z)));
    d = cr_max(d, cr_max(cr_abs(a.q.x - b.q.x), cr_max(cr_abs(a.q.y - b.q.y), cr_abs(a.q.z - b.q.z))));
    return d <= CR_BEND_SKIN_TOLERANCE && cr_abs(a.q.w - b.q.w) <= CR_BEND_SKIN_TOLERANCE;
}

/* Put the body where its root bone is, with the root's velocities. */
static void follow_root(cr_world *w, cr_bend_body *r, const cr_bend_bone *bones) {
    const cr_body *root = cri_world_body_c(w, bones[0].sub);
    if (root == NULL) return;
    cr_transform x0 = cri_bend_bone_pose(w, bones, 0);
    if (bones[0].cluster >= 0) root = &cr_world_bodies_c(w)[bones[bones[0].cluster].sub.index1 - 1];
    cr_body *b = &cr_world_bodies(w)[r->body_index1 - 1];
    b->xf.q = x0.q;
    b->xf.p = cr_v3_sub(x0.p, cr_quat_rotate(x0.q, bones[0].centre));
    b->finite_p = b->xf.p, b->finite_q = b->xf.q;
    b->v = cr_v3_add(root->v, cr_v3_cross(root->w, cr_v3_sub(b->xf.p, root->xf.p)));
    b->w = root->w;
}

/* Parked members of a condensed cluster ride with it (their handles stay meaningful). */
static void follow_clusters(cr_world *w, const cr_bend_body *r, const cr_bend_bone *bones) {
    for (uint32_t k = 0; k < r->bone_count; ++k) {
        int32_t c = bones[k].cluster;
        if (c < 0 || c == (int32_t)k) continue;
        const cr_body *cb = &cr_world_bodies_c(w)[bones[c].sub.index1 - 1];
        cr_body *b = &cr_world_bodies(w)[bones[k].sub.index1 - 1];
        b->xf = cr_transform_mul(cb->xf, bones[k].rel);
        b->finite_p = b->xf.p, b->finite_q = b->xf.q;
        b->v = cr_v3_zero(), b->w = cr_v3_zero(); /* a ghost: the model places it, the solver must not move it */
    }
}

/* Below this relative angular velocity (rad/s) a joint is quiet. */
#define CR_BEND_QUIET_SPEED CR_R(0.05)

/* Condensation (condense.c): quiet timers of the joints between bones that
 * are simulated on their own, then clusters of bones joined by joints quiet
 * for condense_time, while condensations_per_step lasts. */
static uint32_t condense_quiet(cr_world *w, uint32_t rec, cr_real dt, uint32_t *ops) {
    cr_bend_body *r = &records(w)[rec];
    cr_bend_bone *bones = bones_of(w, rec);
    if (r->def.condense_time <= 0 || r->def.spring_stiffness > 0) return 0;
    const cr_joint *joints = cr_world_joints_c(w);
    uint32_t work = 0;
    uint8_t link[CR_ASSET_MAX_BONES];
    for (uint32_t k = 0; k < r->bone_count; ++k) {
        link[k] = 0;
        int32_t p = bones[k].parent;
        bool inner = p >= 0 && bones[k].cluster >= 0 && bones[k].cluster == bones[p].cluster;
        if (p < 0 || inner || cr_joint_id_is_null(bones[k].joint)) {
            bones[k].quiet = 0;
            continue;
        }
        /* a condensed side moves as its cluster's body */
        uint32_t ia = bones[p].cluster >= 0 ? (uint32_t)bones[p].cluster : (uint32_t)p;
        uint32_t ib = bones[k].cluster >= 0 ? (uint32_t)bones[k].cluster : k;
        const cr_joint *jt = &joints[bones[k].joint.index1 - 1];
        const cr_body *a = &cr_world_bodies_c(w)[bones[ia].sub.index1 - 1], *b = &cr_world_bodies_c(w)[bones[ib].sub.index1 - 1];
        cr_vec3 dw = cr_v3_sub(b->w, a->w);
        bool quiet = jt->alive && !jt->yielded && jt->bend_rate.x == 0 && jt->bend_rate.y == 0 && jt->bend_rate.z == 0 &&
                     cr_v3_dot(dw, dw) < cr_mul(CR_BEND_QUIET_SPEED, CR_BEND_QUIET_SPEED);
        bones[k].quiet = quiet ? bones[k].quiet + dt : 0;
        ++work;
        if (bones[k].quiet < r->def.condense_time) continue;
        if (bones[k].cluster < 0 && bones[p].cluster < 0) {
            link[k] = 1;
        } else if (*ops < w->def.damage.bend.condensations_per_step) {
            /* a quiet joint between a cluster and more bones: the cluster opens, and the whole
             * quiet chain condenses as one after condense_time (clusters never merge in place) */
            work += cri_bend_uncondense(w, rec, (uint32_t)(bones[k].cluster >= 0 ? bones[k].cluster : bones[p].cluster));
            ++*ops;
        }
    }
    /* clusters: follow quiet links to the top; a bone whose top is itself with a quiet child starts one */
    uint32_t top[CR_ASSET_MAX_BONES];
    for (uint32_t k = 0; k < r->bone_count; ++k) { /* a split's new bone may be the parent of lower ones: walk up */
        uint32_t t = k;
        while (link[t]) t = (uint32_t)bones[t].parent;
        top[k] = t;
    }
    for (uint32_t t = 0; t < r->bone_count && *ops < w->def.damage.bend.condensations_per_step; ++t) {
        if (top[t] != t || bones[t].cluster >= 0) continue;
        uint32_t members[CR_ASSET_MAX_BONES], n = 0;
        for (uint32_t k = 0; k < r->bone_count; ++k)
            if (top[k] == t) members[n++] = k;
        if (n < 2) continue;
        work += cri_bend_condense(w, rec, members, n);
        ++*ops;
    }
    return work;
}

/* An impact faster than wake_speed on a cluster gives its bones their own bodies back. */
static uint32_t wake_clusters(cr_world *w, uint32_t rec, const cr_damage_input *in, cr_real dt, uint32_t *ops) {
    cr_bend_body *r = &records(w)[rec];
    cr_bend_bone *bones = bones_of(w, rec);
    uint32_t work = 0;
    for (uint32_t k = 0; k < r->bone_count && r->clusters > 0; ++k) {
        if (bones[k].cluster != (int32_t)k || *ops >= w->def.damage.bend.condensations_per_step) continue;
        uint32_t slot = bones[k].sub.index1 - 1;
        bool hit = false;
        cr_vec3 at = cr_v3_zero(); /* where, in the cluster's frame: the first such impact, or the body closing in */
        for (uint32_t e = slot < in->body_high ? in->impact_start[slot] : 0;
             slot < in->body_high && e < in->impact_start[slot + 1]; ++e)
            if (!hit && in->impacts[e].normal_speed > r->def.wake_speed) hit = true, at = in->impacts[e].point;
        /* the seed's dummy step (Algorithm 2, step 4): a body closing in faster than wake_speed
         * that reaches the cluster's bounding sphere within the next two steps wakes it now, so
         * the hit meets the joints and not the rigid cluster */
        const cr_body *c = &cr_world_bodies_c(w)[slot];
        const cr_body *all = cr_world_bodies_c(w);
        for (uint32_t o = 0; o < w->body_high && !hit; ++o) {
            const cr_body *ob = &all[o];
            if (!ob->alive || ob->ghost || o == slot || (ob->models & CR_MODEL_BEND) || ob->shape.type == CR_SHAPE_PLANE) continue;
            cr_vec3 d = cr_v3_sub(ob->xf.p, c->xf.p), u = cr_v3_sub(ob->v, c->v);
            cr_real dist = cr_v3_len(d);
            if (dist <= 0) continue;
            cr_real closing = -cr_div(cr_v3_dot(d, u), dist);
            cr_real gap = dist - ob->bound_radius - c->bound_radius;
            ++work;
            if (closing <= r->def.wake_speed || gap >= cr_mul(closing, dt + dt)) continue;
            /* within reach of the bounding sphere: against the cluster's own surface (its grid),
             * so a body about to hit a bone that already left the cluster does not wake it too */
            const cr_asset *view = cr_world_asset(w, c->shape.asset);
            cr_vec3 n, pl = cr_transform_inv_point(c->xf, ob->xf.p);
            cr_real phi = view != NULL ? cr_asset_sdf(view, pl, &n) : 0;
            if (view != NULL) closing = -cr_v3_dot(cr_quat_inv_rotate(c->xf.q, u), n);
            hit = closing > r->def.wake_speed && phi - ob->bound_radius < cr_mul(closing, dt + dt);
            if (hit) at = view != NULL ? cr_v3_mad(pl, -phi, n) : pl; /* the surface point it will hit */
        }
        if (!hit) continue;
        /* only the bone hit leaves the cluster; the pieces either side stay condensed (Fig. 15) */
        work += cri_bend_uncondense_around(w, rec, k, cri_bend_cluster_bone_at(w, rec, k, at));
        ++*ops;
    }
    return work;
}

/* Linear blend skinning of every vertex with the bones' transforms and the
 * record's own influences; returns the work. */
static uint32_t reskin(cr_world *w, uint32_t rec, const cr_bend_bone *bones) {
    cr_bend_body *r = &records(w)[rec];
    cr_surface_copy *c = cri_damage_surface_of(w, r->body_index1);
    if (c == NULL) return 0;
    uint8_t *block = (uint8_t *)w;
    const cr_asset *rest = cr_world_asset(w, c->rest_slot);
    cr_skin_bone *m = (cr_skin_bone *)cri_bend_scratch(w).bone_m;
    for (uint32_t k = 0; k < r->bone_count; ++k) m[k].r = cr_mat3_from_quat(bones[k].skin.q), m[k].t = bones[k].skin.p;
    /* the grouped layout (vectorised, the same bits as cri_skin_linear), built again when the
     * influences or the rest surface changed (a split, a dent: dirty) */
    cr_skin_layout l = cri_bend_skin_layout(w, rec);
    uint32_t work = 0;
    if (!CR_BEND_GROUPED_SKIN) r->skin_groups = UINT32_MAX;
    else if (r->dirty != 0 || r->skin_groups == 0) {
        bool fits = cri_skin_layout_build(cri_bend_rest_pos(w, rec), cri_bend_skin_bone(w, rec), cri_bend_skin_weight(w, rec),
                                          rest->vertex_count, (uint32_t)layout_entries(&w->def.damage.bend),
                                          CR_BEND_SKIN_GROUPS, cri_bend_scratch(w).skin_tmp, &l);
        r->skin_groups = fits && l.groups > 0 ? l.groups : UINT32_MAX;
        work += 4 * rest->vertex_count;
    }
    if (r->skin_groups != UINT32_MAX) {
        l.groups = r->skin_groups;
        l.count = l.group_end[l.groups - 1];
        cri_skin_linear_grouped(&l, m, cr_surface_copy_positions(c, block));
    } else {
        cr_asset dented = *rest; /* the rest surface with its dents (bend_dent.c) */
        dented.positions = cri_bend_rest_pos(w, rec);
        cri_skin_linear(&dented, cri_bend_skin_bone(w, rec), cri_bend_skin_weight(w, rec), m, 0, rest->vertex_count,
                        cr_surface_copy_positions(c, block));
    }
    cri_surface_copy_mark(c, 0, rest->vertex_count - 1);
    cr_real radius;
    work += rest->vertex_count + cri_surface_copy_refresh(c, block, &radius);
    c->changes++;
    r->skinned++;
    r->dirty = 0;
    return work;
}

/* A joint a split asked for is made at the end of its step (a deferred
 * command); find it by its two bodies. */
static void resolve_joints(cr_world *w, uint32_t rec) {
    const cr_bend_body *r = &records(w)[rec];
    cr_bend_bone *bones = bones_of(w, rec);
    const cr_joint *joints = cr_world_joints_c(w);
    for (uint32_t k = 0; k < r->bone_count; ++k) {
        if (bones[k].parent < 0 || !cr_joint_id_is_null(bones[k].joint)) continue;
        /* a condensed side's joint is on its cluster's body (condense.c) */
        int32_t p = bones[k].parent;
        uint32_t ia = bones[p].cluster >= 0 ? (uint32_t)bones[p].cluster : (uint32_t)p;
        uint32_t ib = bones[k].cluster >= 0 ? (uint32_t)bones[k].cluster : k;
        if (ia == ib) continue; /* inside one cluster: no joint */
        uint32_t a = bones[ia].sub.index1, b = bones[ib].sub.index1;
        for (uint32_t j = 0; j < w->joint_high; ++j) {
            if (!joints[j].alive || joints[j].a != a || joints[j].b != b) continue;
            bones[k].joint.index1 = j + 1;
            bones[k].joint.generation = joints[j].generation;
            break;
        }
    }
}

/* Dynamic articulation: the fastest impact above split_speed on each body's
 * sub-bodies this step joins the queue (a full queue counts over_capacity). */
static void enqueue_splits(cr_world *w, const cr_damage_input *in, cr_real dt) {
    const cr_bend_budget *bd = &w->def.damage.bend;
    cr_bend_region *br = &CR_DAMAGE(w)->bend;
    cr_bend_split *q = CR_AT(w, br->queue, cr_bend_split);
    for (uint32_t i = 0; i < bd->body_capacity; ++i) {
        cr_bend_body *r = &records(w)[i];
        if (r->body_index1 == 0 || r->def.split_speed <= 0) continue;
        const cr_bend_bone *bones = bones_of(w, i);
        cr_real best = r->def.split_speed;
        cr_vec3 point = cr_v3_zero();
        bool found = false;
        for (uint32_t k = 0; k < r->bone_count; ++k) {
            uint32_t slot = bones[k].sub.index1 - 1;
            if (slot >= in->body_high || bones[k].cluster >= 0) continue; /* a cluster wakes first, splits later */
            for (uint32_t e = in->impact_start[slot]; e < in->impact_start[slot + 1]; ++e) {
                const cr_body_impact *im = &in->impacts[e];
                if (im->normal_speed <= best) continue;
                best = im->normal_speed;
                point = cr_v3_add(im->point, bones[k].centre); /* sub-body frame -> parent's rest frame */
                found = true;
            }
        }
        /* the seed's dummy step (Algorithm 2, steps 4-9): a body moving faster than split_speed
         * that reaches a sub-body's surface within two steps splits it now, at the point it will
         * hit, so its hit meets the new joint instead of the rigid bone */
        if (r->bone_count < r->def.max_bones) {
            const cr_body *all = cr_world_bodies_c(w);
            cr_real fast2 = cr_mul(r->def.split_speed, r->def.split_speed), dt2 = dt + dt;
            for (uint32_t o = 0; o < w->body_high; ++o) {
                const cr_body *ob = &all[o];
                if (!ob->alive || ob->ghost || ob->type == CR_BODY_STATIC || cr_v3_dot(ob->v, ob->v) <= fast2) continue;
                for (uint32_t k = 0; k < r->bone_count; ++k) {
                    if (bones[k].cluster >= 0 || bones[k].sub.index1 == o + 1) continue;
                    const cr_body *sb = &all[bones[k].sub.index1 - 1];
                    cr_vec3 d = cr_v3_sub(ob->xf.p, sb->xf.p), u = cr_v3_sub(ob->v, sb->v);
                    cr_real reach = sb->bound_radius + ob->bound_radius + cr_mul(cr_v3_len(u), dt2);
                    if (cr_v3_dot(d, d) > cr_mul(reach, reach)) continue;
                    const cr_asset *view = cr_world_asset(w, sb->shape.asset);
                    if (view == NULL) continue;
                    cr_vec3 n, pl = cr_transform_inv_point(sb->xf, ob->xf.p);
                    cr_real phi = cr_asset_sdf(view, pl, &n);
                    cr_real closing = -cr_v3_dot(cr_quat_inv_rotate(sb->xf.q, u), n);
                    if (closing <= best || phi - ob->bound_radius > cr_mul(closing, dt2)) continue;
                    best = closing;
                    point = cr_v3_add(cr_v3_mad(pl, -phi, n), bones[k].centre); /* its surface point, rest frame */
                    found = true;
                }
            }
        }
        if (!found) continue;
        if (br->queue_count == bd->queue_capacity) {
            w->stats.bend.over_capacity++;
            continue;
        }
        cr_bend_split *j = &q[(br->queue_head + br->queue_count++) % bd->queue_capacity];
        j->body_index1 = r->body_index1;
        j->body_generation = r->body_generation;
        j->point = point;
    }
}

static void run_splits(cr_world *w) {
    const cr_bend_budget *bd = &w->def.damage.bend;
    cr_bend_region *br = &CR_DAMAGE(w)->bend;
    const cr_bend_split *q = CR_AT(w, br->queue, const cr_bend_split);
    uint32_t done = 0;
    while (br->queue_count > 0 && done < bd->splits_per_step) {
        cr_bend_split j = q[br->queue_head];
        br->queue_head = (br->queue_head + 1) % bd->queue_capacity;
        br->queue_count--;
        uint32_t rec = record_index(w, j.body_index1);
        if (rec == bd->body_capacity || records(w)[rec].body_generation != j.body_generation) continue;
        bool split = false;
        w->stats.bend.work += cri_bend_split(w, rec, j.point, &split);
        ++done; /* a refused split (bone too short, no parked body) still took its turn */
    }
    w->stats.bend.waiting += br->queue_count;
}

void cri_bend_model_step(cr_world *w, const cr_damage_input *in, cr_real dt) {
    const cr_bend_budget *bd = &w->def.damage.bend;
    cr_model_stats *st = &w->stats.bend;
    memset(st, 0, sizeof *st);
    if (bd->body_capacity == 0) return;
    uint32_t ops = 0;
    for (uint32_t i = 0; i < bd->body_capacity; ++i)
        if (records(w)[i].body_index1 != 0) resolve_joints(w, i), st->work += wake_clusters(w, i, in, dt, &ops);
    enqueue_splits(w, in, dt);
    run_splits(w);
    uint32_t dents = 0;
    for (uint32_t i = 0; i < bd->body_capacity; ++i) {
        cr_bend_body *r = &records(w)[i];
        if (r->body_index1 == 0 || !r->def.dents) continue;
        cr_bend_bone *bones = bones_of(w, i);
        for (uint32_t k = 0; k < r->bone_count; ++k) {
            uint32_t slot = bones[k].sub.index1 - 1;
            if (slot >= in->body_high || bones[k].cluster >= 0) continue;
            for (uint32_t e = in->impact_start[slot]; e < in->impact_start[slot + 1]; ++e) {
                if (cri_dent_distance(&r->def.dent, in->impacts[e].normal_speed) <= 0) continue;
                if (dents == bd->dents_per_step) {
                    st->over_capacity++;
                    continue;
                }
                bool dented = false;
                st->work += cri_bend_dent(w, i, k, &in->impacts[e], &dented);
                dents += dented;
            }
        }
    }
    for (uint32_t i = 0; i < bd->body_capacity; ++i)
        if (records(w)[i].body_index1 != 0) st->work += condense_quiet(w, i, dt, &ops);
    st->work += cri_bend_seams(w);
    uint32_t budget = bd->vertices_per_step, spent = 0, start = CR_DAMAGE(w)->bend.next_body % bd->body_capacity;
    bool stopped = false;
    for (uint32_t n = 0; n < bd->body_capacity; ++n) {
        uint32_t i = (start + n) % bd->body_capacity;
        cr_bend_body *r = &records(w)[i];
        if (r->body_index1 == 0) continue;
        cr_bend_bone *bones = bones_of(w, i);
        follow_clusters(w, r, bones);
        follow_root(w, r, bones);
        const cr_body *parent = &cr_world_bodies_c(w)[r->body_index1 - 1];
        cr_transform *skin = cri_bend_scratch(w).bone_x;
        bool moved = r->dirty != 0;
        for (uint32_t k = 0; k < r->bone_count; ++k) {
            const cr_body *sb = cri_world_body_c(w, bones[k].sub);
            skin[k] = sb ? bone_skin(parent->xf, cri_bend_bone_pose(w, bones, k), bones[k].centre) : bones[k].skin;
            moved = moved || !same_transform(skin[k], bones[k].skin);
        }
        if (!moved) continue;
        const cr_surface_copy *c = cri_damage_surface_of(w, r->body_index1);
        uint32_t cost = c ? CR_AT(w, c->view, const cr_asset)->vertex_count : 0;
        if (stopped || (spent > 0 && spent + cost > budget)) {
            if (!stopped) CR_DAMAGE(w)->bend.next_body = i;
            stopped = true;
            st->waiting++;
            continue;
        }
        for (uint32_t k = 0; k < r->bone_count; ++k) bones[k].skin = skin[k];
        st->work += reskin(w, i, bones);
        spent += cost;
        st->done++;
    }
    if (!stopped) CR_DAMAGE(w)->bend.next_body = start;
}
