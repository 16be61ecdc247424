/* squash_model.c — squash and bulge of implicit bodies (seed 003) on the
 * damage stage's seam.
 *
 * A squishy body is a mesh body whose cooked surface lies on its skeleton's
 * iso-surface f1 = c. Attaching copies the skeleton into the model's region,
 * builds the vertex -> triangle lists the volume rule needs, takes a surface
 * copy (damage/surfaces.c) for the drawn skin, and gives the body a soft
 * layer: the solver lets other bodies sink soft_depth into the rest surface
 * before its contacts push (solver/interference.c reads cr_body.soft_depth).
 *
 * A step, for each squishy body in record order from where the last step
 * stopped, while vertices_per_step lasts (the first body always runs):
 *   1. the others: every live body whose potential can reach the skeleton
 *      (bounding spheres, then each primitive's own reach), the closest
 *      CRI_SQUASH_MAX_OTHERS kept (ties by slot; more counted over_capacity).
 *      A squishy other lends its skeleton potential; any other body the
 *      potential of its signed distance (geometry/implicit_skeleton.h). The
 *      contact summaries are not used: a body held by the soft force alone
 *      has no solver contact. Before them, the groups of the body's own
 *      skeleton that collide (the blending graph, seed §4.2) are others to
 *      each other's vertices (self_others).
 *   0. before every body: posed bodies' distance grids swept within
 *      pose_grid_nodes (collision follows the pose, below).
 *   2. the skin (squash.c): the last step's zone back at rest, this step's
 *      zone compressed and dilated with the volume rule, written into the
 *      surface copy's positions and normals (dirty range marked). The
 *      collision samples and the distance grid stay the rest surface's: the
 *      deformation is what the player sees (seed §1: "a purely visual
 *      effect"), the motion comes from the forces. (A pose moves the rest
 *      surface: its samples follow at once, its grid by a budgeted sweep.)
 *   3. the soft contact force of seed §2.3 step 3, R1 = -R2 = (f2 - c) N1
 *      per unit skin area x stiffness, plus damping along it, added to both
 *      bodies' force and torque for the next velocity update. A pair of
 *      squishy bodies is pushed once, by the lower slot.
 */
#include "damage/stage.h"
#include "damage/squash_model.h"
#include "damage/squash.h"
#include "geometry/mesh_mass.h"
#include "base/check.h"
#include "base/hash.h"

#include <string.h>

#define CR_SQUASH_COOKIE 0x73717368u /* "sqsh" */

typedef struct cr_squash_body {
    uint32_t body_index1;     ///< 0: free
    uint32_t body_generation;
    uint32_t vertex_count, triangle_count;
    uint32_t zone_count;      ///< vertices of the last step's zone (listed in the record's zone row)
    uint32_t contacts;        ///< others that reached the skin in the last step
    cr_squash_def def;        ///< primitives: NULL (the copy is in the region)
    cr_vec3 bound_centre;     ///< m, body frame: the skeleton's potential is 0 outside this sphere
    cr_real bound_radius;
    cr_real vertex_area;      ///< m^2, surface area / vertex count
    cr_real volume_rest;      ///< m^3
    cr_real volume;           ///< m^3, the deformed skin
    cr_real volume_compressed;
    cr_real bulge_scale;
    cr_real model_bias;       ///< the volume model's shortfall in the last step (cri_squash_result)
    cr_real widen;            ///< the width the next step starts at (cri_squash_result.widen_next)
    uint32_t ring_vertices;   ///< of the zone, the second ring's (cri_squash_result.ring_count)
    cr_vec3 cell_origin;      ///< the rest vertices' cells (cri_squash_cells without its pointers)
    cr_real cell_inv;
    int32_t cell_dims[3];
    uint32_t posed;           ///< 1: the game moved the skeleton or a print moved the rest skin: the rest is the posed one
    int32_t grid_dims[3];     ///< sculpting grid (0 0 0: not sculpting)
    cr_vec3 grid_origin;
    cr_real grid_cell;        ///< m
    cr_real grid_deepest;     ///< m, the farthest a print moved a rest vertex so far
    uint32_t grouped;         ///< 1: some groups of the skeleton collide (the blending graph, seed §4.2): vertex groups in use
    uint32_t blend[CR_SQUASH_MAX_GROUPS]; ///< the groups whose primitives make group g's potential
    uint32_t split_mask;      ///< the groups split between two colliding groups they blend with (cri_squash_params)
    uint8_t split_a[CR_SQUASH_MAX_GROUPS], split_b[CR_SQUASH_MAX_GROUPS];
    cr_real split_lo[CR_SQUASH_MAX_GROUPS], split_hi[CR_SQUASH_MAX_GROUPS];
    cr_vec3 group_motion[CR_SQUASH_MAX_GROUPS]; ///< m, each group's mean move by cr_squash_set_primitives since the last step
    uint32_t sweep;           ///< 1: the distance grid is being rewritten for a new pose (collision follows the pose)
    uint32_t sweep_again;     ///< a pose came during the sweep: sweep the box once more when it ends
    int32_t sweep_lo[3], sweep_hi[3]; ///< the grid nodes the sweep rewrites (inclusive)
    uint32_t sweep_next;      ///< the next node of the box (x fastest)
} cr_squash_body;

static void split_params(const cr_world *w, uint32_t ri, const cr_squash_body *r, const cr_vec3 *cooked, cri_squash_params *prm);
static bool node_box(const cr_asset *view, cr_vec3 centre, cr_real radius, int32_t lo[3], int32_t hi[3]);
static void queue_sweep(cr_squash_body *r, const int32_t lo[3], const int32_t hi[3]);
static cr_vec3 posed_vertex(const cr_squash_body *r, const cr_asset *a, const cr_squash_primitive *cooked,
                            const cr_squash_primitive *prims, uint32_t count, const cri_squash_params *fp, const uint8_t *vg,
                            uint32_t v, cr_vec3 *n);

cr_squash_def cr_default_squash_def(void) {
    cr_squash_def d;
    memset(&d, 0, sizeof d);
    d.newton_steps = 3;
    d.isovalue = CR_R(0.5);
    d.c0 = CR_R(0.2);
    d.peak = CR_R(0.5);
    d.rigid_reach = CR_R(0.3);
    d.volume_loss = 0;
    d.stiffness = CR_R(2000);
    d.damping = CR_R(100);
    d.soft_depth = CR_R(0.1);
    d.sculpt_cell = 0;
    d.sculpt_rate = CR_R(0.5);
    d.cookie = CR_SQUASH_COOKIE;
    return d;
}

cr_squash_budget cr_default_squash_budget(void) {
    cr_squash_budget b;
    b.body_capacity = 0; /* no memory for squishy bodies unless the host makes room */
    b.max_vertices = 16384;
    b.max_primitives = 32;
    b.zone_vertices = 8192;
    b.vertices_per_step = 1u << 16;
    b.posable = 0;
    b.sculpt_nodes = 0;
    b.pose_grid_nodes = 8192;
    return b;
}

static cr_status check_budget(const cr_squash_budget *b) {
    if (b->body_capacity > 1024) return CR_ERR_DEF_INVALID;
    if (b->body_capacity == 0) return CR_OK;
    if (b->max_vertices == 0 || b->max_vertices > CR_ASSET_MAX_VERTICES || b->max_primitives == 0 ||
        b->max_primitives > 4096 || b->zone_vertices == 0 || b->zone_vertices > b->max_vertices ||
        b->vertices_per_step == 0 || b->posable > 1 || (b->sculpt_nodes > 0 && (!b->posable || b->sculpt_nodes > (1u << 24))))
        return CR_ERR_DEF_INVALID;
    /* a record's rows must be addressable by 32-bit offsets */
    if ((uint64_t)b->body_capacity * (b->max_vertices * 7ull + 32) * sizeof(uint32_t) > (1ull << 30)) return CR_ERR_DEF_INVALID;
    return CR_OK;
}

cr_status cri_squash_model_check_def(const cr_damage_def *d, cr_field *field) {
    if (check_budget(&d->squash) == CR_OK) return CR_OK;
    *field = CR_FIELD_WORLD_DAMAGE_SQUASH;
    return CR_ERR_DEF_INVALID;
}

static uint64_t al16(uint64_t x) { return (x + 15u) & ~(uint64_t)15u; }
static uint64_t max_triangles(const cr_squash_budget *b) { return 2ull * b->max_vertices + 8; }
static uint64_t scratch_bytes(const cr_squash_budget *b) {
    return al16(b->max_vertices) + al16((b->max_vertices + max_triangles(b)) * sizeof(uint32_t)) + al16((uint64_t)b->zone_vertices * sizeof(uint32_t)) +
           2 * al16((uint64_t)b->zone_vertices * CRI_SQUASH_MAX_OTHERS * sizeof(cr_real)) + al16((uint64_t)b->zone_vertices * sizeof(cr_vec3));
}

uint64_t cri_squash_model_region_bytes(const cr_world_def *def) {
    const cr_squash_budget *b = &def->damage.squash;
    if (b->body_capacity == 0) return 0;
    uint64_t n = b->body_capacity;
    return al16(n * sizeof(cr_squash_body)) + al16(n * b->max_primitives * sizeof(cr_squash_primitive)) +
           al16(n * b->zone_vertices * sizeof(uint32_t)) + al16(n * (b->max_vertices + 1ull) * sizeof(uint32_t)) +
           al16(n * 3 * max_triangles(b) * sizeof(uint32_t)) + al16(n * (2ull * b->max_vertices + 1) * sizeof(uint32_t)) +
           scratch_bytes(b) + (b->posable ? al16(n * 2ull * b->max_vertices * sizeof(cr_vec3)) + 16u : 0) +
           (b->sculpt_nodes ? al16(n * (uint64_t)b->sculpt_nodes * sizeof(cr_real)) + 16u : 0) + al16(n * (uint64_t)b->max_vertices) +
           al16(n * b->max_primitives * sizeof(cr_squash_primitive)) + 144u;
}

bool cri_squash_model_layout(cr_world *w, uint8_t *block) {
    const cr_squash_budget *b = &w->def.damage.squash;
    cr_squash_region *r = &CR_DAMAGE(w)->squash;
    memset(r, 0, sizeof *r);
    if (b->body_capacity == 0) return true;
    uint32_t n = b->body_capacity;
    r->records = cri_arena_push(&w->persistent, block, n * (uint32_t)sizeof(cr_squash_body), 16);
    r->primitives = cri_arena_push(&w->persistent, block, n * b->max_primitives * (uint32_t)sizeof(cr_squash_primitive), 16);
    r->zones = cri_arena_push(&w->persistent, block, n * b->zone_vertices * (uint32_t)sizeof(uint32_t), 16);
    r->tri_start = cri_arena_push(&w->persistent, block, n * (b->max_vertices + 1) * (uint32_t)sizeof(uint32_t), 16);
    r->tri_list = cri_arena_push(&w->persistent, block, n * 3 * (uint32_t)max_triangles(b) * (uint32_t)sizeof(uint32_t), 16);
    r->cells = cri_arena_push(&w->persistent, block, n * (2 * b->max_vertices + 1) * (uint32_t)sizeof(uint32_t), 16);
    r->scratch = cri_arena_push(&w->persistent, block, (uint32_t)scratch_bytes(b), 16);
    r->vgroups = cri_arena_push(&w->persistent, block, n * b->max_vertices, 16);
    r->cooked = cri_arena_push(&w->persistent, block, n * b->max_primitives * (uint32_t)sizeof(cr_squash_primitive), 16);
    if (b->posable) {
        r->posed = cri_arena_push(&w->persistent, block, n * 2 * b->max_vertices * (uint32_t)sizeof(cr_vec3), 16);
        if (r->posed == CR_NO_OFFSET) return false;
    }
    if (b->sculpt_nodes) {
        r->grids = cri_arena_push(&w->persistent, block, n * b->sculpt_nodes * (uint32_t)sizeof(cr_real), 16);
        if (r->grids == CR_NO_OFFSET) return false;
    }
    bool ok = r->cells != CR_NO_OFFSET && r->records != CR_NO_OFFSET && r->primitives != CR_NO_OFFSET && r->zones != CR_NO_OFFSET &&
              r->tri_start != CR_NO_OFFSET && r->tri_list != CR_NO_OFFSET && r->scratch != CR_NO_OFFSET && r->vgroups != CR_NO_OFFSET &&
              r->cooked != CR_NO_OFFSET;
    if (ok) {
        memset(block + r->records, 0, n * sizeof(cr_squash_body));
        memset(block + r->scratch, 0, b->max_vertices); /* the marks are 0 between steps */
    }
    return ok;
}

static cr_squash_body *records(const cr_world *w) { return CR_AT(w, CR_DAMAGE(w)->squash.records, cr_squash_body); }
static cr_squash_primitive *prims_of(const cr_world *w, uint32_t rec) {
    return CR_AT(w, CR_DAMAGE(w)->squash.primitives, cr_squash_primitive) + (size_t)rec * w->def.damage.squash.max_primitives;
}
static uint32_t *zone_of(const cr_world *w, uint32_t rec) {
    return CR_AT(w, CR_DAMAGE(w)->squash.zones, uint32_t) + (size_t)rec * w->def.damage.squash.zone_vertices;
}
static uint32_t *tri_start_of(const cr_world *w, uint32_t rec) {
    return CR_AT(w, CR_DAMAGE(w)->squash.tri_start, uint32_t) + (size_t)rec * (w->def.damage.squash.max_vertices + 1);
}
static uint32_t *cells_of(const cr_world *w, uint32_t rec) {
    return CR_AT(w, CR_DAMAGE(w)->squash.cells, uint32_t) + (size_t)rec * (2 * w->def.damage.squash.max_vertices + 1);
}
static cr_vec3 *posed_of(const cr_world *w, uint32_t rec) {
    return CR_AT(w, CR_DAMAGE(w)->squash.posed, cr_vec3) + (size_t)rec * 2 * w->def.damage.squash.max_vertices;
}
static cr_real *grid_of(const cr_world *w, uint32_t rec) {
    return CR_AT(w, CR_DAMAGE(w)->squash.grids, cr_real) + (size_t)rec * w->def.damage.squash.sculpt_nodes;
}
static cr_squash_primitive *cooked_of(const cr_world *w, uint32_t rec) {
    return CR_AT(w, CR_DAMAGE(w)->squash.cooked, cr_squash_primitive) + (size_t)rec * w->def.damage.squash.max_primitives;
}
static uint8_t *vgroups_of(const cr_world *w, uint32_t rec) {
    return CR_AT(w, CR_DAMAGE(w)->squash.vgroups, uint8_t) + (size_t)rec * w->def.damage.squash.max_vertices;
}
static uint32_t *tri_list_of(const cr_world *w, uint32_t rec) {
    return CR_AT(w, CR_DAMAGE(w)->squash.tri_list, uint32_t) + (size_t)rec * 3 * max_triangles(&w->def.damage.squash);
}

/* The record of a body, or capacity if it has none. */
static uint32_t record_index(const cr_world *w, uint32_t body_index1) {
    uint32_t cap = w->def.damage.squash.body_capacity;
    if (body_index1 == 0 || body_index1 > w->body_high ||
        !(cr_world_bodies_c(w)[body_index1 - 1].models & CR_MODEL_SQUASH))
        return cap;
    for (uint32_t i = 0; i < cap; ++i)
        if (records(w)[i].body_index1 == body_index1) return i;
    return cap;
}

static bool def_ok(const cr_squash_def *d, const cr_asset *a) {
    const cr_real reals[] = {d->isovalue, d->c0, d->peak, d->rigid_reach, d->volume_loss, d->stiffness, d->damping, d->soft_depth};
    for (size_t i = 0; i < sizeof reals / sizeof reals[0]; ++i)
        if (!cr_real_is_finite(reals[i])) return false;
    bool skeleton = (d->primitives != NULL && d->primitive_count > 0) ||
                    (d->primitive_count == 0 && a != NULL && a->squash_primitive_count > 0);
    return skeleton && d->newton_steps >= 1 && d->newton_steps <= 8 &&
           d->isovalue > 0 && d->c0 > 0 && cr_mul(CR_R(1.5), d->c0) < d->isovalue && d->peak > 0 && d->peak < CR_R(1) &&
           d->rigid_reach > CR_R(1e-3) && d->rigid_reach < CR_R(100) && d->volume_loss >= 0 && d->volume_loss <= CR_R(0.5) &&
           d->stiffness >= 0 && d->stiffness < CR_R(1e9) && d->damping >= 0 && d->damping < CR_R(1e9) && d->soft_depth > 0 &&
           d->soft_depth < CR_R(100) && cr_real_is_finite(d->sculpt_cell) && d->sculpt_cell >= 0 && d->sculpt_cell < CR_R(100) &&
           cr_real_is_finite(d->sculpt_rate) && d->sculpt_rate > 0 && d->sculpt_rate <= CR_R(1);
}

cr_status cri_squash_model_attach(cr_world *w, uint32_t body_index1, const cr_squash_def *def) {
    const cr_squash_budget *bd = &w->def.damage.squash;
    cr_body *b = &cr_world_bodies(w)[body_index1 - 1];
    if (cri_damage_may_share(b->models, CR_MODEL_SQUASH) != CR_OK) return CR_ERR_DEF_INVALID;
    if (b->shape.type != CR_SHAPE_MESH) return CR_ERR_DEF_INVALID;
    const cr_asset *a = cri_damage_rest_asset(w, b->shape.asset);
    if (a == NULL || a->triangle_count == 0) return CR_ERR_DEF_INVALID;
    /* no skeleton in the def: the cooked one (body frame already, with its own isovalue) */
    cr_squash_def own = *def;
    bool cooked = def->primitive_count == 0 && a->squash_primitive_count > 0;
    if (cooked) own.primitives = a->squash_primitives, own.primitive_count = a->squash_primitive_count, own.isovalue = a->squash_isovalue;
    def = &own;
    if (!def_ok(def, a)) return CR_ERR_DEF_INVALID;
    if (cri_skeleton_check(def->primitives, def->primitive_count) != 0) return CR_ERR_DEF_INVALID;
    if (def->primitive_count > bd->max_primitives || a->vertex_count > bd->max_vertices ||
        a->triangle_count > max_triangles(bd))
        return CR_ERR_CAPACITY;
    if (def->sculpt_cell > 0 && (!bd->posable || bd->sculpt_nodes == 0)) return CR_ERR_CAPACITY; /* no room for a grid */
    uint32_t pick = bd->body_capacity;
    for (uint32_t i = 0; i < bd->body_capacity && pick == bd->body_capacity; ++i)
        if (records(w)[i].body_index1 == 0) pick = i;
    if (pick == bd->body_capacity) return CR_ERR_CAPACITY;
    cr_surface_copy *copy;
    cr_status s = cri_damage_surface_attach(w, body_index1, &copy);
    if (s != CR_OK) return s;
    cr_squash_body *r = &records(w)[pick];
    memset(r, 0, sizeof *r);
    r->body_index1 = body_index1;
    r->body_generation = b->generation;
    r->vertex_count = a->vertex_count;
    r->triangle_count = a->triangle_count;
    r->def = *def;
    r->def.primitives = NULL;
    /* the skeleton is given in the cooked mesh's frame (the OBJ's); the cooker moved the mesh into its principal frame */
    cr_squash_primitive *pr = prims_of(w, pick);
    for (uint32_t i = 0; i < def->primitive_count; ++i) {
        pr[i] = def->primitives[i];
        if (cooked) continue;
        pr[i].a = cr_transform_point(a->mesh_to_body, pr[i].a);
        if (pr[i].type == CR_SQUASH_SEGMENT) pr[i].b = cr_transform_point(a->mesh_to_body, pr[i].b);
        else pr[i].b = cr_quat_rotate(a->mesh_to_body.q, pr[i].b), pr[i].e = cr_quat_rotate(a->mesh_to_body.q, pr[i].e);
    }
    memcpy(cooked_of(w, pick), pr, def->primitive_count * sizeof *pr);
    cri_skeleton_bound(pr, def->primitive_count, &r->bound_centre, &r->bound_radius);
    /* the blending graph: each group's field, and each vertex's group (the primitive that weighs most on it) */
    for (uint32_t g = 0; g < CR_SQUASH_MAX_GROUPS; ++g) r->blend[g] = cri_skeleton_blend_mask(pr, def->primitive_count, g);
    for (uint32_t i = 0; i < def->primitive_count; ++i) r->grouped |= pr[i].collide != 0;
    if (r->grouped) {
        uint8_t *vg = vgroups_of(w, pick);
        for (uint32_t v = 0; v < a->vertex_count; ++v) vg[v] = (uint8_t)cri_skeleton_owner_group(pr, def->primitive_count, a->positions[v]);
        /* a group blending with two groups that collide with each other (a shoulder) is split between them */
        cri_squash_params sp;
        memset(&sp, 0, sizeof sp);
        sp.prims = sp.cooked_prims = pr, sp.count = def->primitive_count, sp.vertex_group = vg, sp.cooked = a->positions;
        memcpy(sp.blend, r->blend, sizeof sp.blend);
        r->split_mask = cri_squash_split_build(&sp, a->triangles, a->triangle_count);
        memcpy(r->split_a, sp.split_a, sizeof r->split_a), memcpy(r->split_b, sp.split_b, sizeof r->split_b);
        memcpy(r->split_lo, sp.split_lo, sizeof r->split_lo), memcpy(r->split_hi, sp.split_hi, sizeof r->split_hi);
    }
    r->vertex_area = cr_div(a->surface_area, cr_from_int((int32_t)a->vertex_count));
    r->volume_rest = r->volume = r->volume_compressed = a->volume;
    cri_squash_vertex_triangles(a->triangles, a->triangle_count, a->vertex_count, tri_start_of(w, pick), tri_list_of(w, pick));
    cri_squash_cells g;
    uint32_t *cells = cells_of(w, pick);
    uint32_t nc = cri_squash_cells_build(a->positions, a->vertex_count, a->vertex_count, &g, cells, cells + a->vertex_count + 1);
    (void)nc;
    r->cell_origin = g.origin, r->cell_inv = g.inv_cell;
    memcpy(r->cell_dims, g.dims, sizeof r->cell_dims);
    if (def->sculpt_cell > 0) {
        /* the sculpting grid: over the rest skin and a cell beyond, its spacing doubled until it fits the budget */
        cr_vec3 lo = a->positions[0], hi = a->positions[0];
        for (uint32_t v = 1; v < a->vertex_count; ++v) lo = cr_v3_min(lo, a->positions[v]), hi = cr_v3_max(hi, a->positions[v]);
        cr_real cell = def->sculpt_cell;
        uint64_t nodes;
        for (;;) {
            const cr_real ext[3] = {hi.x - lo.x, hi.y - lo.y, hi.z - lo.z};
            nodes = 1;
            for (int k = 0; k < 3; ++k) r->grid_dims[k] = cr_floor_int(cr_div(ext[k], cell)) + 4, nodes *= (uint64_t)r->grid_dims[k];
            if (nodes <= bd->sculpt_nodes) break;
            cell = 2 * cell;
        }
        r->grid_cell = cell;
        r->grid_origin = cr_v3_sub(lo, cr_v3(cell, cell, cell));
        memset(grid_of(w, pick), 0, nodes * sizeof(cr_real));
        /* the prints move the rest skin: it is the posed one from the start */
        cr_vec3 *rest = posed_of(w, pick);
        memcpy(rest, a->positions, a->vertex_count * sizeof(cr_vec3));
        memcpy(rest + bd->max_vertices, a->normals, a->vertex_count * sizeof(cr_vec3));
        r->posed = 1;
    }
    if (r->split_mask != 0 && bd->posable) {
        /* The cooked mesh is the whole skeleton's skin; a split group's field differs from it where both its
         * sides reach (1.5 mm at the character's shoulder). With room for a posed skin, its vertices go onto
         * their own field now: the skin a pose comes back to is the one drawn from the start, and the
         * deformation starts from a rest on f1 = c. */
        cr_vec3 *rest = posed_of(w, pick), *rest_n = rest + bd->max_vertices;
        if (!r->posed) {
            memcpy(rest, a->positions, a->vertex_count * sizeof(cr_vec3));
            memcpy(rest_n, a->normals, a->vertex_count * sizeof(cr_vec3));
        }
        cri_squash_params fp;
        memset(&fp, 0, sizeof fp);
        fp.prims = pr, fp.count = def->primitive_count;
        split_params(w, pick, r, a->positions, &fp);
        uint8_t *block = (uint8_t *)w;
        cr_vec3 *pos = cr_surface_copy_positions(copy, block), *nor = (cr_vec3 *)(block + copy->normals);
        const uint8_t *vg = vgroups_of(w, pick);
        for (uint32_t v = 0; v < a->vertex_count; ++v) {
            if (!((r->split_mask >> vg[v]) & 1u)) continue;
            cr_vec3 n;
            rest[v] = pos[v] = posed_vertex(r, a, pr, pr, def->primitive_count, &fp, vg, v, &n);
            if (!(n.x == 0 && n.y == 0 && n.z == 0)) rest_n[v] = n;
            nor[v] = rest_n[v];
        }
        cri_squash_cells_build(rest, a->vertex_count, a->vertex_count, &g, cells, cells + a->vertex_count + 1);
        r->cell_origin = g.origin, r->cell_inv = g.inv_cell;
        memcpy(r->cell_dims, g.dims, sizeof r->cell_dims);
        cr_real six = 0;
        for (uint32_t t = 0; t < a->triangle_count; ++t) {
            const uint32_t *k = &a->triangles[3 * t];
            six += cr_v3_dot(rest[k[0]], cr_v3_cross(rest[k[1]], rest[k[2]]));
        }
        r->volume_rest = r->volume = r->volume_compressed = cr_div(six, CR_R(6));
        r->posed = 1;
        cri_surface_copy_mark(copy, 0, r->vertex_count - 1);
    }
    b->soft_depth = def->soft_depth;
    b->models |= CR_MODEL_SQUASH;
    return CR_OK;
}

cr_status cr_squash_attach(cr_world *w, cr_body_id id, const cr_squash_def *def) {
    if (w == NULL || def == NULL) return CR_ERR_NULL_ARGUMENT;
    if (def->cookie != CR_SQUASH_COOKIE) return CR_ERR_DEF_NOT_DEFAULTED;
    if (cri_world_body(w, id) == NULL) return CR_ERR_STALE_HANDLE;
    if (w->def.damage.squash.body_capacity == 0) return CR_ERR_CAPACITY;
    return cri_squash_model_attach(w, id.index1, def);
}

void cri_squash_model_detach(cr_world *w, uint32_t body_index1) {
    uint32_t i = record_index(w, body_index1);
    if (i == w->def.damage.squash.body_capacity) return;
    records(w)[i].body_index1 = 0;
    cr_body *b = &cr_world_bodies(w)[body_index1 - 1];
    b->models &= (uint8_t)~CR_MODEL_SQUASH;
    b->soft_depth = 0;
}

cr_status cr_squash_get(const cr_world *w, cr_body_id id, cr_squash_view *out) {
    if (w == NULL || out == NULL) return CR_ERR_NULL_ARGUMENT;
    memset(out, 0, sizeof *out);
    if (cri_world_body_c(w, id) == NULL) return CR_ERR_STALE_HANDLE;
    uint32_t i = record_index(w, id.index1);
    if (i == w->def.damage.squash.body_capacity) return CR_ERR_DEF_INVALID;
    const cr_squash_body *r = &records(w)[i];
    out->zone_vertices = r->zone_count;
    out->contacts = r->contacts;
    out->volume_rest = r->volume_rest;
    out->volume = r->volume;
    out->volume_compressed = r->volume_compressed;
    out->bulge_scale = r->bulge_scale;
    out->ring_vertices = r->ring_vertices;
    out->sculpt_nodes = (uint32_t)(r->grid_dims[0] * r->grid_dims[1] * r->grid_dims[2]);
    out->sculpt_cell = r->grid_cell;
    out->sculpt_depth = r->grid_deepest;
    if (r->sweep) {
        uint32_t total = 1;
        for (int k = 0; k < 3; ++k) total *= (uint32_t)(r->sweep_hi[k] - r->sweep_lo[k] + 1);
        out->grid_pending = total - r->sweep_next + (r->sweep_again ? total : 0);
    }
    return CR_OK;
}

uint64_t cri_squash_model_hash(const cr_world *w, uint64_t h) {
    const cr_squash_budget *bd = &w->def.damage.squash;
    for (uint32_t i = 0; i < bd->body_capacity; ++i) {
        const cr_squash_body *r = &records(w)[i];
        if (r->body_index1 == 0) continue;
        h = cr_hash_u32(h, r->body_index1);
        h = cr_hash_u32(h, r->zone_count);
        const uint32_t *z = zone_of(w, i);
        for (uint32_t k = 0; k < r->zone_count; ++k) h = cr_hash_u32(h, z[k]);
        h = cr_hash_real(h, r->volume);
        h = cr_hash_real(h, r->bulge_scale);
        /* what the next step starts from: a replay that diverged here must say so in this step's hash */
        h = cr_hash_real(h, r->model_bias);
        h = cr_hash_real(h, r->widen);
        h = cr_hash_u32(h, r->posed);
        if (r->posed) {
            /* the grid the pose rewrote, and where its sweep stands */
            const cr_surface_copy *copy = cri_damage_surface_of((cr_world *)w, r->body_index1);
            if (copy != NULL) h = cr_hash_u64(h, copy->patch_digest);
            h = cr_hash_u32(cr_hash_u32(cr_hash_u32(h, r->sweep), r->sweep_again), r->sweep_next);
            const cr_vec3 *rest = posed_of(w, i), *normals = rest + bd->max_vertices;
            for (uint32_t k = 0; k < r->vertex_count; ++k) h = cr_hash_vec3(cr_hash_vec3(h, rest[k]), normals[k]);
        }
        const uint32_t nodes = (uint32_t)(r->grid_dims[0] * r->grid_dims[1] * r->grid_dims[2]);
        if (nodes) {
            const cr_real *g = grid_of(w, i);
            for (uint32_t k = 0; k < nodes; ++k) h = cr_hash_real(h, g[k]);
            h = cr_hash_real(h, r->grid_deepest);
        }
    }
    return h;
}

/* ---- step ---------------------------------------------------------------- */

/* The other body `o` as body b's skin sees it; false if its potential cannot
 * reach b's skeleton. *gap: how far apart they are (m, <= 0 overlapping). */
static bool other_of(cr_world *w, const cr_squash_body *r, uint32_t ri, const cr_body *b, uint32_t o_slot, cri_squash_other *out,
                     cr_real *gap) {
    const cr_body *o = &cr_world_bodies_c(w)[o_slot];
    memset(out, 0, sizeof *out);
    cr_transform to_other = cr_transform_mul(cr_transform_inverse(o->xf), b->xf);
    uint32_t oi = (o->models & CR_MODEL_SQUASH) ? record_index(w, o_slot + 1) : w->def.damage.squash.body_capacity;
    cr_vec3 centre;
    cr_real radius;
    if (oi < w->def.damage.squash.body_capacity) {
        const cr_squash_body *orec = &records(w)[oi];
        out->kind = CRI_SQUASH_OTHER_SKELETON;
        out->prims = prims_of(w, oi);
        out->count = orec->def.primitive_count;
        /* its surface at our isovalue */
        out->scale = cr_div(r->def.isovalue, orec->def.isovalue);
        centre = cr_transform_inv_point(b->xf, cr_transform_point(o->xf, orec->bound_centre));
        radius = orec->bound_radius;
    } else {
        out->kind = CRI_SQUASH_OTHER_SHAPE;
        out->world = w;
        out->shape = &o->shape;
        out->scale = r->def.isovalue;
        out->reach = r->def.rigid_reach;
        centre = cr_transform_inv_point(b->xf, o->xf.p);
        /* a plane reaches everywhere near it: its bound is the skeleton's own, pushed onto it */
        radius = o->shape.type == CR_SHAPE_PLANE ? r->bound_radius + r->def.rigid_reach + cr_v3_len(cr_v3_sub(centre, r->bound_centre))
                                                 : o->bound_radius + r->def.rigid_reach;
    }
    if (cr_v3_len(cr_v3_sub(centre, r->bound_centre)) >= radius + r->bound_radius) return false;
    /* the bounding spheres meet: now against each primitive's own reach */
    *gap = o->shape.type == CR_SHAPE_PLANE ? cr_transform_point(to_other, r->bound_centre).y - r->bound_radius - r->def.rigid_reach
                                           : cri_skeleton_gap(prims_of(w, ri), r->def.primitive_count, centre, radius);
    if (*gap >= 0) return false;
    out->to_other = to_other;
    out->bound_centre = centre;
    out->bound_radius = radius;
    out->velocity = cr_quat_inv_rotate(b->xf.q, cr_v3_sub(o->v, b->v));
    return true;
}

/* A sphere (body frame) outside which the primitives of the groups in mask add nothing. */
static void group_bound(const cr_squash_primitive *pr, uint32_t count, uint32_t mask, cr_vec3 *centre, cr_real *radius) {
    cr_vec3 lo = cr_v3_zero(), hi = cr_v3_zero();
    bool any = false;
    for (uint32_t i = 0; i < count; ++i) {
        if (!((mask >> pr[i].group) & 1u)) continue;
        cr_vec3 c;
        cr_real rr;
        cri_skeleton_bound(&pr[i], 1, &c, &rr);
        cr_vec3 a = cr_v3_sub(c, cr_v3(rr, rr, rr)), b = cr_v3_add(c, cr_v3(rr, rr, rr));
        lo = any ? cr_v3_min(lo, a) : a, hi = any ? cr_v3_max(hi, b) : b, any = true;
    }
    *centre = cr_v3_scale(cr_v3_add(lo, hi), CR_R(0.5));
    *radius = cr_v3_len(cr_v3_scale(cr_v3_sub(hi, lo), CR_R(0.5)));
}

/* Self-contact (the blending graph, seed §4.2): for each ordered pair of colliding groups (g, h) whose reaches
 * meet, group h's own primitives as another body to group g's skin vertices, exactly as a second squishy body
 * would be (compression, dilation, direction from the groups' moves, the volume rule). h's field is its own
 * primitives' only: the groups h blends with may blend with g too (a shoulder between arm and belly). */
static uint32_t self_others(const cr_squash_body *r, const cr_squash_primitive *pr, cr_real dt, cri_squash_other *out,
                            uint32_t room) {
    uint32_t n = 0, count = r->def.primitive_count;
    for (uint32_t g = 0; g < CR_SQUASH_MAX_GROUPS; ++g)
        for (uint32_t h = 0; h < CR_SQUASH_MAX_GROUPS; ++h) {
            bool collide = false;
            for (uint32_t i = 0; i < count && !collide; ++i) collide = pr[i].group == g && ((pr[i].collide >> h) & 1u);
            if (!collide) continue;
            cr_vec3 centre;
            cr_real radius, gap = CR_REAL_MAX;
            group_bound(pr, count, 1u << h, &centre, &radius);
            for (uint32_t i = 0; i < count; ++i)
                if (pr[i].group == g) gap = cr_min(gap, cri_skeleton_gap(&pr[i], 1, centre, radius));
            if (gap >= 0) continue;
            if (n == room) return n;
            cri_squash_other *o = &out[n++];
            memset(o, 0, sizeof *o);
            o->kind = CRI_SQUASH_OTHER_SKELETON;
            o->to_other = cr_transform_identity();
            o->prims = pr, o->count = count;
            o->scale = CR_R(1);
            o->prim_groups = 1u << h, o->applies = 1u << g;
            o->bound_centre = centre, o->bound_radius = radius;
            o->velocity = dt > 0 ? cr_v3_scale(cr_v3_sub(r->group_motion[h], r->group_motion[g]), cr_div(CR_R(1), dt)) : cr_v3_zero();
        }
    return n;
}

static void push(cr_world *w, uint32_t slot, cr_vec3 f, cr_vec3 at) {
    cr_body *b = &cr_world_bodies(w)[slot];
    if (b->type != CR_BODY_DYNAMIC) return;
    b->force = cr_v3_add(b->force, f);
    b->torque = cr_v3_add(b->torque, cr_v3_cross(cr_v3_sub(at, b->xf.p), f));
    if (b->asleep) cri_world_wake(w, slot);
}

/* The blending graph's part of a body's params: vertex groups, blend masks, the split (cooked: the cooked skin). */
static void split_params(const cr_world *w, uint32_t ri, const cr_squash_body *r, const cr_vec3 *cooked, cri_squash_params *prm) {
    prm->vertex_group = vgroups_of(w, ri);
    memcpy(prm->blend, r->blend, sizeof prm->blend);
    prm->split_mask = r->split_mask;
    memcpy(prm->split_a, r->split_a, sizeof prm->split_a), memcpy(prm->split_b, r->split_b, sizeof prm->split_b);
    memcpy(prm->split_lo, r->split_lo, sizeof prm->split_lo), memcpy(prm->split_hi, r->split_hi, sizeof prm->split_hi);
    prm->cooked = cooked, prm->cooked_prims = cooked_of(w, ri);
}

/* One squishy body's step; returns the work. */
/* Collision follows the prints, as it follows a pose: the samples are the printed rest skin's at once (the
 * bounds stay: a print only lowers the potential, the skin goes in), and the distance grid's nodes near the print
 * (lo..hi: the zone's rest before and after) are queued for the pose's sweep, which uses the whole own potential,
 * sculpting grid and all. The nodes queued: the print's box widened by a sculpting cell (the print's trilinear
 * reach past its vertices) and a quarter of the largest radius (the sweep's Newton step: a node that far above
 * the print finds its floor in one step; a ball that small or smaller resting in it reads the new grid). */
static void print_collision(cr_world *w, cr_squash_body *r, cr_surface_copy *copy, cr_vec3 lo, cr_vec3 hi) {
    uint8_t *block = (uint8_t *)w;
    const cr_asset *view = cr_surface_copy_view(copy, block);
    const cr_vec3 *rest = posed_of(w, (uint32_t)(r - records(w)));
    if (view->samples != NULL) {
        cr_vec3 *sp = (cr_vec3 *)(block + copy->samples);
        for (uint32_t i = 0; i < view->sample_count; ++i) sp[i] = rest[view->sample_vertex[i]];
    }
    if (w->def.damage.squash.pose_grid_nodes == 0 || view->sdf == NULL) return;
    cr_real cap = 0;
    const cr_squash_primitive *pr = prims_of(w, (uint32_t)(r - records(w)));
    for (uint32_t i = 0; i < r->def.primitive_count; ++i) cap = cr_max(cap, pr[i].radius);
    const cr_vec3 half = cr_v3_scale(cr_v3_sub(hi, lo), CR_R(0.5));
    const cr_real reach = cr_max(half.x, cr_max(half.y, half.z)) + r->grid_cell + cr_mul(CR_R(0.25), cap);
    int32_t blo[3], bhi[3];
    if (node_box(view, cr_v3_add(lo, half), reach, blo, bhi)) queue_sweep(r, blo, bhi);
}

static uint32_t squash_body(cr_world *w, uint32_t ri, cr_real dt) {
    const cr_squash_budget *bd = &w->def.damage.squash;
    cr_squash_body *r = &records(w)[ri];
    uint32_t slot = r->body_index1 - 1;
    const cr_body *b = &cr_world_bodies_c(w)[slot];
    cr_surface_copy *copy = cri_damage_surface_of(w, r->body_index1);
    if (copy == NULL) return 0;
    const cr_asset *rest = cr_world_asset(w, copy->rest_slot);
    uint8_t *block = (uint8_t *)w;
    cri_squash_other others[CRI_SQUASH_MAX_OTHERS];
    uint32_t other_slot[CRI_SQUASH_MAX_OTHERS];
    cr_real other_gap[CRI_SQUASH_MAX_OTHERS];
    uint32_t n = 0, work = 0;
    /* the groups of its own skeleton that collide come first: the game drives them into each other on purpose */
    if (r->grouped) {
        n = self_others(r, prims_of(w, ri), dt, others, CRI_SQUASH_MAX_OTHERS);
        for (uint32_t k = 0; k < n; ++k) other_slot[k] = slot, other_gap[k] = -CR_REAL_MAX;
        memset(r->group_motion, 0, sizeof r->group_motion);
    }
    for (uint32_t s = 0; s < w->body_high; ++s) {
        if (s == slot || !cr_world_bodies_c(w)[s].alive) continue;
        ++work;
        cri_squash_other o;
        cr_real gap;
        if (!other_of(w, r, ri, b, s, &o, &gap)) continue;
        /* the closest CRI_SQUASH_MAX_OTHERS, ties by slot; the rest are counted */
        uint32_t at = n;
        while (at > 0 && gap < other_gap[at - 1]) --at;
        if (at == CRI_SQUASH_MAX_OTHERS) {
            w->stats.squash.over_capacity++;
            continue;
        }
        if (n == CRI_SQUASH_MAX_OTHERS) w->stats.squash.over_capacity++;
        else ++n;
        for (uint32_t k = n - 1; k > at; --k) others[k] = others[k - 1], other_slot[k] = other_slot[k - 1], other_gap[k] = other_gap[k - 1];
        others[at] = o, other_slot[at] = s, other_gap[at] = gap;
    }
    if (n == 0 && r->zone_count == 0) {
        r->contacts = 0;
        return work;
    }
    cri_squash_params prm;
    memset(&prm, 0, sizeof prm);
    prm.prims = prims_of(w, ri), prm.count = r->def.primitive_count;
    prm.newton_steps = r->def.newton_steps;
    prm.c = r->def.isovalue, prm.c0 = r->def.c0, prm.peak = r->def.peak;
    prm.volume_loss = r->def.volume_loss;
    prm.fixed_scale = -CR_R(1);
    prm.model_bias = r->model_bias;
    prm.widen_hint = r->widen;
    if (r->grouped) split_params(w, ri, r, rest->positions, &prm);
    if (r->grid_dims[0] > 0) {
        prm.grid = grid_of(w, ri);
        memcpy(prm.grid_dims, r->grid_dims, sizeof prm.grid_dims);
        prm.grid_origin = r->grid_origin, prm.grid_inv = cr_div(CR_R(1), r->grid_cell);
    }
    cri_squash_skin skin;
    memset(&skin, 0, sizeof skin);
    uint32_t sc = CR_DAMAGE(w)->squash.scratch;
    skin.vertex_count = r->vertex_count, skin.triangle_count = r->triangle_count;
    skin.rest = rest->positions, skin.rest_normals = rest->normals, skin.triangles = rest->triangles;
    if (r->posed) skin.rest = posed_of(w, ri), skin.rest_normals = posed_of(w, ri) + bd->max_vertices;
    skin.tri_start = tri_start_of(w, ri), skin.tri_list = tri_list_of(w, ri);
    skin.pos = cr_surface_copy_positions(copy, block);
    skin.normals = (cr_vec3 *)(block + copy->normals);
    skin.mark = block + sc;
    sc += (uint32_t)al16(bd->max_vertices);
    skin.candidates = CR_AT(w, sc, uint32_t);
    sc += (uint32_t)al16((bd->max_vertices + max_triangles(bd)) * sizeof(uint32_t));
    cri_squash_cells cells;
    cells.origin = r->cell_origin, cells.inv_cell = r->cell_inv;
    memcpy(cells.dims, r->cell_dims, sizeof cells.dims);
    cells.start = cells_of(w, ri), cells.vertex = cells.start + r->vertex_count + 1;
    skin.cells = &cells;
    skin.zone = CR_AT(w, sc, uint32_t);
    sc += (uint32_t)al16((uint64_t)bd->zone_vertices * sizeof(uint32_t));
    skin.zone_c1 = CR_AT(w, sc, cr_real);
    sc += (uint32_t)al16((uint64_t)bd->zone_vertices * CRI_SQUASH_MAX_OTHERS * sizeof(cr_real));
    skin.zone_h = CR_AT(w, sc, cr_real);
    sc += (uint32_t)al16((uint64_t)bd->zone_vertices * CRI_SQUASH_MAX_OTHERS * sizeof(cr_real));
    skin.zone_dir = CR_AT(w, sc, cr_vec3);
    skin.zone_capacity = bd->zone_vertices;
    uint32_t *prev = zone_of(w, ri);
    /* the vertices that move: the zone before (going back) and after (deformed) */
    cr_vertex_ranges moved;
    cri_ranges_clear(&moved);
    for (uint32_t k = 0; k < r->zone_count; ++k) cri_ranges_add(&moved, prev[k], prev[k]);
    cri_squash_result res = cri_squash_deform(&prm, &skin, others, n, prev, r->zone_count);
    work += res.work;
    if (res.zone_dropped > 0) w->stats.squash.shrunk++;
    memcpy(prev, skin.zone, res.zone_count * sizeof(uint32_t));
    r->zone_count = res.zone_count;
    for (uint32_t k = 0; k < res.zone_count; ++k) cri_ranges_add(&moved, prev[k], prev[k]);
    cri_surface_copy_mark_ranges(copy, &moved);
    r->volume = r->volume_rest + res.dv;
    r->volume_compressed = r->volume_rest + res.dv_compressed;
    r->bulge_scale = res.ring.on ? res.ring.bulge : res.scale; /* with the ring on, res.scale is the ring's */
    r->ring_vertices = res.ring_count;
    r->model_bias = res.model_bias;
    r->widen = res.widen_next;
    r->contacts = 0;
    /* sculpting (seed §4.3): where another body presses in (f2 > c at the rest skin) it prints a share of that
     * into the grid, lowering the body's own potential there for good; the printed vertices' rest is put back on
     * f1 + grid = c, so the mark stays when the contact ends (the drawn skin returns to that rest) */
    if (prm.grid != NULL) {
        cr_real *grid = grid_of(w, ri);
        cr_vec3 *rest_p = posed_of(w, ri), *rest_n = rest_p + bd->max_vertices;
        bool printed = false;
        /* every vertex in a cell prints into its corners: a cell holding many vertices would take their sum, so each
         * print is weighted by the vertex's share of a cell face (at most 1): the nodes take about the mean */
        const cr_real share = cr_min(CR_R(1), cr_div(r->vertex_area, cr_sq(r->grid_cell)));
        for (uint32_t z = 0; z < res.zone_count; ++z) {
            uint32_t v = prev[z];
            for (uint32_t k = 0; k < n; ++k) {
                if (others[k].depth <= 0) continue;
                cr_real f2 = cri_squash_other_potential(&others[k], rest_p[v]).f;
                if (f2 <= prm.c) continue;
                cri_squash_grid_print(&prm, grid, rest_p[v], -cr_mul(cr_mul(r->def.sculpt_rate, share), f2 - prm.c), -prm.c);
                printed = true;
            }
        }
        work += res.zone_count * n;
        if (printed) {
            cr_vec3 plo = rest_p[prev[0]], phi = plo;
            for (uint32_t z = 0; z < res.zone_count; ++z) {
                uint32_t v = prev[z];
                cr_vec3 y = rest_p[v];
                plo = cr_v3_min(plo, y), phi = cr_v3_max(phi, y);
                cr_potential f = {0, {0, 0, 0}};
                for (uint32_t it = 0; it < r->def.newton_steps; ++it) {
                    f = cri_squash_vertex_potential(&prm, v, y);
                    cr_real g2 = cr_v3_len_sq(f.grad);
                    if (g2 <= CR_REAL_EPS || cr_abs(prm.c - f.f) <= cr_mul(prm.c, CRI_SQUASH_NEWTON_TOL)) break;
                    y = cr_v3_mad(y, cr_div(prm.c - f.f, g2), f.grad);
                }
                f = cri_squash_vertex_potential(&prm, v, y);
                cr_vec3 nn = cr_v3_normalize(cr_v3_neg(f.grad));
                rest_p[v] = y;
                if (!(nn.x == 0 && nn.y == 0 && nn.z == 0)) rest_n[v] = nn;
                r->grid_deepest = cr_max(r->grid_deepest, cr_v3_len(cr_v3_sub(y, rest->positions[v])));
                plo = cr_v3_min(plo, y), phi = cr_v3_max(phi, y);
            }
            work += res.zone_count * (r->def.newton_steps + 1);
            print_collision(w, r, copy, plo, phi);
        }
    }
    /* the soft contact forces */
    for (uint32_t k = 0; k < n; ++k) {
        if (others[k].depth > 0) r->contacts++;
        if (others[k].applies) continue; /* its own groups: the forces inside one body cancel, the game drives the pose */
        if (others[k].kind == CRI_SQUASH_OTHER_SKELETON && other_slot[k] < slot) continue; /* the lower slot pushed both */
        if (others[k].depth <= 0) continue;
        cr_vec3 at;
        cr_vec3 f = cri_squash_contact_force(&prm, &skin, &others[k], res.zone_count, r->def.stiffness, r->vertex_area, &at, &work);
        cr_real fl;
        cr_vec3 dir = cr_v3_normalize_len(f, &fl);
        if (fl <= 0) continue;
        /* damping along the push: an approaching other is pushed back harder, a leaving one less. An
         * explicit damper overshoots once c dt passes the pair's reduced mass (the default c = 100 N s/m
         * threw a 0.1 kg ball 4 m up at 60 Hz), so c is capped at m_red / dt: at most it stops the
         * closing speed in one step */
        cr_real closing = cr_v3_dot(others[k].velocity, dir);
        const cr_body *ob = &cr_world_bodies(w)[other_slot[k]];
        cr_real inv_sum = (b->type == CR_BODY_DYNAMIC ? b->inv_mass : 0) + (ob->type == CR_BODY_DYNAMIC ? ob->inv_mass : 0);
        cr_real c = r->def.damping;
        if (inv_sum > 0) c = cr_min(c, cr_div(CR_R(1), cr_mul(inv_sum, dt)));
        f = cr_v3_mad(f, cr_mul(c, closing), dir);
        if (cr_v3_dot(f, dir) < 0) f = cr_v3_zero(); /* a soft contact pulls nobody */
        cr_vec3 fw = cr_quat_rotate(b->xf.q, f), pw = cr_transform_point(b->xf, at);
        push(w, slot, fw, pw);
        push(w, other_slot[k], cr_v3_neg(fw), pw);
    }
    return work;
}

static uint32_t sweep_grid(cr_world *w, uint32_t ri, uint32_t budget);

void cri_squash_model_step(cr_world *w, const cr_damage_input *in) {
    const cr_real dt = in->dt;
    const cr_squash_budget *bd = &w->def.damage.squash;
    if (bd->body_capacity == 0) return;
    cr_squash_region *reg = &CR_DAMAGE(w)->squash;
    uint32_t scanned = 0, waiting = 0, done = 0, work = 0, next = reg->next_body;
    /* posed bodies' distance grids, in record order, within the world's node budget */
    for (uint32_t i = 0, left = bd->pose_grid_nodes; i < bd->body_capacity && left > 0; ++i) {
        if (records(w)[i].body_index1 == 0 || !records(w)[i].sweep) continue;
        uint32_t nodes = sweep_grid(w, i, left);
        left -= nodes, work += nodes;
    }
    for (uint32_t n = 0; n < bd->body_capacity; ++n) {
        uint32_t i = (reg->next_body + n) % bd->body_capacity;
        cr_squash_body *r = &records(w)[i];
        if (r->body_index1 == 0) continue;
        if (waiting > 0 || (scanned > 0 && scanned + r->vertex_count > bd->vertices_per_step)) {
            if (waiting++ == 0) next = i;
            continue;
        }
        scanned += r->vertex_count;
        work += squash_body(w, i, dt);
        ++done;
    }
    reg->next_body = next;
    w->stats.squash.done = done;
    w->stats.squash.work = cri_damage_charge_count(w, CR_DAMAGE_OP_squash_work, work);
    w->stats.squash.waiting = waiting;
}

/* ---- a kinematic skeleton (seed 003 §4.2) ---------------------------------- */

/* The rotation taking unit u to unit v (the shortest arc; half a turn about
 * any axis perpendicular to u when they are opposite). */
static cr_quat arc(cr_vec3 u, cr_vec3 v) {
    cr_real d = cr_v3_dot(u, v);
    if (d < -CR_R(0.9999)) {
        cr_vec3 axis = cr_v3_cross(u, cr_abs(u.x) < CR_R(0.9) ? cr_v3(CR_R(1), 0, 0) : cr_v3(0, CR_R(1), 0));
        axis = cr_v3_normalize(axis);
        cr_quat q = {axis.x, axis.y, axis.z, 0};
        return q;
    }
    cr_vec3 c = cr_v3_cross(u, v);
    cr_quat q = {c.x, c.y, c.z, CR_R(1) + d};
    return cr_quat_normalize(q);
}

/* Where x, near primitive `from`, goes when it becomes `to`: along the
 * primitive by its parameter, across it turned with it. */
static cr_vec3 carry(const cr_squash_primitive *from, const cr_squash_primitive *to, cr_vec3 x) {
    cr_vec3 d = cr_v3_sub(x, from->a);
    if (from->type == CR_SQUASH_POINT) return cr_v3_add(to->a, d);
    cr_vec3 ab = from->b, ab2 = to->b; /* a rectangle turns with its first half-edge */
    if (from->type == CR_SQUASH_SEGMENT) ab = cr_v3_sub(from->b, from->a), ab2 = cr_v3_sub(to->b, to->a);
    cr_real l, l2;
    cr_vec3 u = cr_v3_normalize_len(ab, &l), u2 = cr_v3_normalize_len(ab2, &l2);
    if (l <= CR_R(1e-6) || l2 <= CR_R(1e-6)) return cr_v3_add(to->a, d);
    cr_quat q = arc(u, u2);
    if (from->type == CR_SQUASH_SEGMENT) {
        cr_real t = cr_div(cr_v3_dot(d, u), l);
        cr_vec3 across = cr_v3_sub(d, cr_v3_scale(u, cr_mul(t, l)));
        return cr_v3_add(cr_v3_mad(to->a, t, ab2), cr_quat_rotate(q, across));
    }
    return cr_v3_add(to->a, cr_quat_rotate(q, d));
}

/* ---- collision follows the pose ----------------------------------------------
 *
 * A posed body's collision samples and bounds are the posed rest skin's at
 * once (a copy per sample). Its distance grid is rewritten by a sweep over the
 * nodes under every primitive that moved (its reach where it was and where it
 * is), at most pose_grid_nodes nodes per step for the whole world; a pose that
 * comes during a sweep widens its box and the box is swept once more, so the
 * grid settles on the last pose. A node's value is its distance to the posed
 * skin along the potential's gradient (Newton onto f = c, at most 6 steps:
 * the distance to the skin's nearest point near it, where contacts are
 * measured), at most the largest radius of influence: a node past every
 * primitive's reach, or one Newton does not bring onto the skin, is "far"
 * (outside or inside by the sign of f - c). Away from the primitives that
 * moved the grid stays the cooked one (exact). */

/* The grid nodes (inclusive box, clamped to the grid) under a sphere; false if it misses the grid. */
static bool node_box(const cr_asset *view, cr_vec3 centre, cr_real radius, int32_t lo[3], int32_t hi[3]) {
    const cr_real c[3] = {centre.x - view->sdf_origin.x, centre.y - view->sdf_origin.y, centre.z - view->sdf_origin.z};
    for (int k = 0; k < 3; ++k) {
        int32_t a = cr_floor_int(cr_mul(c[k] - radius, view->sdf_inv_cell)), b = cr_floor_int(cr_mul(c[k] + radius, view->sdf_inv_cell)) + 1;
        int32_t top = (int32_t)view->sdf_dims[k] - 1;
        if (b < 0 || a > top) return false;
        lo[k] = a < 0 ? 0 : a, hi[k] = b > top ? top : b;
    }
    return true;
}

static void pose_collision(cr_world *w, cr_squash_body *r, cr_surface_copy *copy, const cr_squash_primitive *old,
                           const cr_squash_primitive *prims, uint32_t count, const cr_vec3 *rest) {
    uint8_t *block = (uint8_t *)w;
    cr_asset *view = cr_surface_copy_view(copy, block);
    if (view->samples != NULL) {
        cr_vec3 *sp = (cr_vec3 *)(block + copy->samples);
        for (uint32_t i = 0; i < view->sample_count; ++i) sp[i] = rest[view->sample_vertex[i]];
    }
    cr_vec3 lo = rest[0], hi = rest[0];
    cr_real r2 = 0;
    for (uint32_t v = 0; v < r->vertex_count; ++v) lo = cr_v3_min(lo, rest[v]), hi = cr_v3_max(hi, rest[v]), r2 = cr_max(r2, cr_v3_len_sq(rest[v]));
    view->bounds_min = lo, view->bounds_max = hi, view->bound_radius = cr_sqrt(r2);
    cr_world_bodies(w)[r->body_index1 - 1].bound_radius = view->bound_radius;
    if (w->def.damage.squash.pose_grid_nodes == 0) return;
    bool any = false;
    int32_t blo[3] = {0, 0, 0}, bhi[3] = {0, 0, 0};
    for (uint32_t i = 0; i < count; ++i) {
        if (memcmp(&old[i], &prims[i], sizeof prims[i]) == 0) continue;
        for (int k = 0; k < 2; ++k) {
            cr_vec3 c;
            cr_real rr;
            int32_t l[3], h[3];
            cri_skeleton_bound(k ? &prims[i] : &old[i], 1, &c, &rr);
            if (!node_box(view, c, rr, l, h)) continue;
            for (int j = 0; j < 3; ++j) blo[j] = any && blo[j] < l[j] ? blo[j] : l[j], bhi[j] = any && bhi[j] > h[j] ? bhi[j] : h[j];
            any = true;
        }
    }
    if (any) queue_sweep(r, blo, bhi);
}

/* Queue the grid nodes lo..hi (inclusive) for the sweep: a new sweep, or the running one widened and run once more. */
static void queue_sweep(cr_squash_body *r, const int32_t lo[3], const int32_t hi[3]) {
    if (r->sweep) {
        for (int j = 0; j < 3; ++j) r->sweep_lo[j] = lo[j] < r->sweep_lo[j] ? lo[j] : r->sweep_lo[j], r->sweep_hi[j] = hi[j] > r->sweep_hi[j] ? hi[j] : r->sweep_hi[j];
        /* the nodes already swept may have the last pose's values; and the box may have grown under the cursor */
        r->sweep_again = 1;
        return;
    }
    memcpy(r->sweep_lo, lo, 3 * sizeof *lo), memcpy(r->sweep_hi, hi, 3 * sizeof *hi);
    r->sweep = 1, r->sweep_again = 0, r->sweep_next = 0;
}

/* Rewrite up to `budget` nodes of record ri's sweep; returns the nodes done. */
static uint32_t sweep_grid(cr_world *w, uint32_t ri, uint32_t budget) {
    cr_squash_body *r = &records(w)[ri];
    cr_surface_copy *copy = cri_damage_surface_of(w, r->body_index1);
    if (copy == NULL) {
        r->sweep = 0;
        return 0;
    }
    uint8_t *block = (uint8_t *)w;
    const cr_asset *view = cr_surface_copy_view(copy, block);
    cr_real *sdf = (cr_real *)(block + copy->sdf);
    const cr_squash_primitive *pr = prims_of(w, ri);
    const uint32_t count = r->def.primitive_count;
    const cr_real c = r->def.isovalue;
    cr_real cap = 0;
    for (uint32_t i = 0; i < count; ++i) cap = cr_max(cap, pr[i].radius);
    /* the whole own potential: the skeleton's, plus the sculpting grid's prints when sculpting */
    cri_squash_params prm;
    memset(&prm, 0, sizeof prm);
    prm.prims = pr, prm.count = count;
    if (r->grid_dims[0] > 0) {
        prm.grid = grid_of(w, ri);
        memcpy(prm.grid_dims, r->grid_dims, sizeof prm.grid_dims);
        prm.grid_origin = r->grid_origin, prm.grid_inv = cr_div(CR_R(1), r->grid_cell);
    }
    const uint32_t nx = (uint32_t)(r->sweep_hi[0] - r->sweep_lo[0] + 1), ny = (uint32_t)(r->sweep_hi[1] - r->sweep_lo[1] + 1);
    const uint32_t total = nx * ny * (uint32_t)(r->sweep_hi[2] - r->sweep_lo[2] + 1);
    uint32_t done = 0;
    while (done < budget && r->sweep_next < total) {
        uint32_t k = r->sweep_next++;
        int32_t i = r->sweep_lo[0] + (int32_t)(k % nx), j = r->sweep_lo[1] + (int32_t)(k / nx % ny), l = r->sweep_lo[2] + (int32_t)(k / (nx * ny));
        cr_vec3 x = cr_v3_add(view->sdf_origin, cr_v3_scale(cr_v3(cr_from_int(i), cr_from_int(j), cr_from_int(l)), view->sdf_cell));
        /* the node's distance to the posed skin: Newton along the gradient onto f = c (each step at most a quarter
         * of the largest radius), the length it went, signed; no gradient (past every reach, or at a primitive's
         * core): the cap, outside or inside */
        cr_potential f = cri_squash_own_potential(&prm, x);
        const bool inside = f.f >= c;
        cr_real phi = inside ? -cap : cap;
        cr_vec3 y = x;
        bool converged = false;
        for (int it = 0; it < 6; ++it) {
            cr_real g2 = cr_v3_len_sq(f.grad);
            if (g2 <= CR_R(1e-8)) break;
            cr_vec3 d = cr_v3_scale(f.grad, cr_div(c - f.f, g2));
            cr_real dl = cr_v3_len(d);
            if (dl > cr_mul(CR_R(0.25), cap)) d = cr_v3_scale(d, cr_div(cr_mul(CR_R(0.25), cap), dl));
            y = cr_v3_add(y, d);
            f = cri_squash_own_potential(&prm, y);
            if (cr_abs(c - f.f) <= cr_mul(c, CR_R(1e-4))) {
                cr_real dist = cr_min(cr_v3_len(cr_v3_sub(y, x)), cap);
                phi = inside ? -dist : dist;
                converged = true;
                break;
            }
        }
        /* A print's trilinear gradient jumps at the sculpting grid's cell faces, where Newton can go back and forth
         * without meeting the tolerance: nodes a few cm under a print's floor read the far-inside cap (-0.8 m for
         * -0.08 m). There (sculpting only: a pose's nodes are as before) the length gone plus the first-order rest
         * of the way stands in. */
        if (!converged && prm.grid != NULL) {
            cr_real g = cr_v3_len(f.grad);
            if (g > CR_R(1e-4)) {
                cr_real dist = cr_min(cr_v3_len(cr_v3_sub(y, x)) + cr_div(cr_abs(c - f.f), g), cap);
                phi = inside ? -dist : dist;
            }
        }
        sdf[(uint32_t)i + view->sdf_dims[0] * ((uint32_t)j + view->sdf_dims[1] * (uint32_t)l)] = phi;
        copy->patch_digest = cr_hash_real(copy->patch_digest, phi);
        ++done;
    }
    if (r->sweep_next >= total) {
        if (r->sweep_again) r->sweep_again = 0, r->sweep_next = 0;
        else r->sweep = 0;
        /* the surface under the bodies near it changed: a sleeping one must notice */
        const cr_body *b = &cr_world_bodies_c(w)[r->body_index1 - 1];
        for (uint32_t s2 = 0; s2 < w->body_high; ++s2) {
            const cr_body *o = &cr_world_bodies_c(w)[s2];
            if (!o->alive || !o->asleep || s2 == r->body_index1 - 1) continue;
            if (cr_v3_len(cr_v3_sub(o->xf.p, b->xf.p)) < o->bound_radius + b->bound_radius + CR_R(0.1)) cri_world_wake(w, s2);
        }
    }
    return done;
}

/* Where skin vertex v sits on the skeleton prims: from its cooked place, carried by the cooked primitive of its own
 * group that weighs most on it there (the first of equals: a pose depends on the skeleton alone, not on the poses
 * before it, and a hand pressing the belly never carries the belly's skin away with it), then put on its field
 * (fp) by Newton, each step at most a quarter radius. *n: the outward normal there (0 where the gradient is). */
static cr_vec3 posed_vertex(const cr_squash_body *r, const cr_asset *a, const cr_squash_primitive *cooked,
                            const cr_squash_primitive *prims, uint32_t count, const cri_squash_params *fp, const uint8_t *vg,
                            uint32_t v, cr_vec3 *n) {
    const cr_real c = r->def.isovalue;
    uint32_t owner = 0;
    cr_real best = -CR_R(1);
    for (uint32_t i = 0; i < count; ++i) {
        if (vg && cooked[i].group != vg[v]) continue;
        cr_real f = cri_skeleton_value(&cooked[i], 1, a->positions[v]);
        if (f > best) best = f, owner = i;
    }
    cr_vec3 y = carry(&cooked[owner], &prims[owner], a->positions[v]);
    for (uint32_t it = 0; it < 2 * r->def.newton_steps; ++it) {
        cr_potential f = cri_squash_vertex_potential(fp, v, y);
        cr_real g2 = cr_v3_len_sq(f.grad);
        if (g2 <= CR_REAL_EPS || cr_abs(c - f.f) <= cr_mul(c, CRI_SQUASH_NEWTON_TOL)) break;
        cr_vec3 d = cr_v3_scale(f.grad, cr_div(c - f.f, g2));
        cr_real cap = cr_mul(CR_R(0.25), prims[owner].radius);
        if (cr_v3_len_sq(d) > cr_sq(cap)) d = cr_v3_scale(d, cr_div(cap, cr_v3_len(d)));
        y = cr_v3_add(y, d);
    }
    *n = cr_v3_normalize(cr_v3_neg(cri_squash_vertex_potential(fp, v, y).grad));
    return y;
}

/* Whether p (body frame) is inside the distance grid's box. */
static bool in_grid_box(const cr_asset *view, cr_vec3 p) {
    const cr_real d[3] = {p.x - view->sdf_origin.x, p.y - view->sdf_origin.y, p.z - view->sdf_origin.z};
    for (int k = 0; k < 3; ++k)
        if (d[k] < 0 || d[k] > cr_mul(view->sdf_cell, cr_from_int((int32_t)view->sdf_dims[k] - 1))) return false;
    return true;
}

/* Whether some primitive's reach (where its potential is not 0: the skin is inside) leaves the grid's box. */
static bool reach_leaves(const cr_asset *view, const cr_squash_primitive *prims, uint32_t count) {
    for (uint32_t i = 0; i < count; ++i) {
        cr_vec3 c;
        cr_real rr;
        cri_skeleton_bound(&prims[i], 1, &c, &rr);
        if (!in_grid_box(view, cr_v3_sub(c, cr_v3(rr, rr, rr))) || !in_grid_box(view, cr_v3_add(c, cr_v3(rr, rr, rr)))) return true;
    }
    return false;
}

cr_status cr_squash_set_primitives(cr_world *w, cr_body_id id, const cr_squash_primitive *prims, uint32_t count) {
    if (w == NULL || prims == NULL) return CR_ERR_NULL_ARGUMENT;
    if (cri_world_body(w, id) == NULL) return CR_ERR_STALE_HANDLE;
    uint32_t ri = record_index(w, id.index1);
    const cr_squash_budget *bd = &w->def.damage.squash;
    if (ri == bd->body_capacity) return CR_ERR_DEF_INVALID;
    if (!bd->posable) return CR_ERR_CAPACITY;
    cr_squash_body *r = &records(w)[ri];
    if (count != r->def.primitive_count || cri_skeleton_check(prims, count) != 0) return CR_ERR_DEF_INVALID;
    for (uint32_t i = 0; i < count; ++i)
        if (prims[i].type != prims_of(w, ri)[i].type || prims[i].group != prims_of(w, ri)[i].group ||
            prims[i].collide != prims_of(w, ri)[i].collide)
            return CR_ERR_DEF_INVALID; /* the blending graph is the attached one */
    cr_surface_copy *copy = cri_damage_surface_of(w, r->body_index1);
    if (copy == NULL) return CR_ERR_DEF_INVALID;
    const cr_asset *a = cr_world_asset(w, copy->rest_slot);
    uint8_t *block = (uint8_t *)w;
    const uint8_t *vg = r->grouped ? vgroups_of(w, ri) : NULL;
    /* each vertex's field on the new skeleton: its group's (the split's share for a split group), no prints */
    cri_squash_params fp;
    memset(&fp, 0, sizeof fp);
    fp.prims = prims, fp.count = count;
    if (vg) split_params(w, ri, r, a->positions, &fp);
    /* The distance grid cannot grow past its cooked box: a posed skin outside it would collide as the grid's edge
     * plus the distance beyond, wrongly. Such a pose is refused before anything changes (naming the primitives).
     * Only when some primitive's reach leaves the box need the posed skin be found twice. */
    const cr_asset *view = cr_surface_copy_view(copy, block);
    if (view->sdf != NULL && reach_leaves(view, prims, count))
        for (uint32_t v = 0; v < r->vertex_count; ++v) {
            cr_vec3 n;
            if (!in_grid_box(view, posed_vertex(r, a, cooked_of(w, ri), prims, count, &fp, vg, v, &n)))
                return cri_refuse(w, CR_ERR_ARGUMENT_RANGE, CR_FIELD_SQUASH_PRIMITIVES);
        }
    cr_vec3 *rest = posed_of(w, ri), *rest_n = rest + bd->max_vertices;
    if (!r->posed) {
        memcpy(rest, a->positions, r->vertex_count * sizeof(cr_vec3));
        memcpy(rest_n, a->normals, r->vertex_count * sizeof(cr_vec3));
    }
    cr_squash_primitive *old = prims_of(w, ri);
    cr_vec3 *pos = cr_surface_copy_positions(copy, block), *nor = (cr_vec3 *)(block + copy->normals);
    /* each group's mean move (its primitives' ends): the direction dependence of self-contact */
    for (uint32_t g = 0; g < CR_SQUASH_MAX_GROUPS; ++g) {
        cr_vec3 sum = cr_v3_zero();
        int32_t ends = 0;
        for (uint32_t i = 0; i < count; ++i) {
            if (old[i].group != g) continue;
            sum = cr_v3_add(sum, cr_v3_sub(prims[i].a, old[i].a)), ++ends;
            if (prims[i].type == CR_SQUASH_SEGMENT) sum = cr_v3_add(sum, cr_v3_sub(prims[i].b, old[i].b)), ++ends;
        }
        if (ends > 0) r->group_motion[g] = cr_v3_add(r->group_motion[g], cr_v3_scale(sum, cr_div(CR_R(1), cr_from_int(ends))));
    }
    for (uint32_t v = 0; v < r->vertex_count; ++v) {
        cr_vec3 n;
        cr_vec3 y = posed_vertex(r, a, cooked_of(w, ri), prims, count, &fp, vg, v, &n);
        rest[v] = pos[v] = y;
        if (!(n.x == 0 && n.y == 0 && n.z == 0)) rest_n[v] = n;
        nor[v] = rest_n[v];
    }
    pose_collision(w, r, copy, old, prims, count, rest);
    memcpy(old, prims, count * sizeof *prims);
    cri_skeleton_bound(old, count, &r->bound_centre, &r->bound_radius);
    /* the cells and the rest volume of the posed skin */
    cri_squash_cells g;
    uint32_t *cells = cells_of(w, ri);
    cri_squash_cells_build(rest, r->vertex_count, r->vertex_count, &g, cells, cells + r->vertex_count + 1);
    r->cell_origin = g.origin, r->cell_inv = g.inv_cell;
    memcpy(r->cell_dims, g.dims, sizeof r->cell_dims);
    cr_real six = 0;
    for (uint32_t t = 0; t < r->triangle_count; ++t) {
        const uint32_t *k = &a->triangles[3 * t];
        six += cr_v3_dot(rest[k[0]], cr_v3_cross(rest[k[1]], rest[k[2]]));
    }
    r->volume_rest = r->volume = r->volume_compressed = cr_div(six, CR_R(6));
    r->zone_count = 0; /* every vertex was just written at the posed rest */
    r->posed = 1;
    cri_surface_copy_mark(copy, 0, r->vertex_count - 1);
    return CR_OK;
}

uint64_t cri_squash_model_scratch_bytes(const cr_world_def *def) { (void)def; return 0; } /* its scratch is in its region */
uint32_t cri_squash_model_surfaces(const cr_damage_def *d) { return d->squash.body_capacity; }
void cri_squash_model_after_commands(cr_world *w) { (void)w; }
void cri_squash_model_rebind(cr_world *w) { (void)w; }
