/* dent_model.c — the dent model (seed 000 Algorithm 1, lines 9-21) on the
 * damage stage's seam.
 *
 * Every impact on a dented body faster than its threshold becomes a job in a
 * ring queue. A job is one impact: body a (the lower slot of the two dented
 * bodies, or the one dented body) and the other body b, in a's frame, with
 * which sides dent. A job is planned once, when it is queued (the dent's
 * point on the surface, its distance and its map's cells), so a job that
 * waits for budget does not plan again. Jobs are then taken from the front
 * while the step's budget lasts (dents and work units, cr_dent_budget); the
 * first job of a step always runs, shrunk to the budget if need be (counted),
 * so the queue always drains. A job that dents both bodies builds both maps
 * before applying either (Jacobi: symmetric dents for equal bodies).
 *
 * Work units count everything a dent loops over: the map's cells once per
 * pass (Z-buffer, broadening, every smoothing iteration), the projectile's
 * triangles (plan and Z-buffer), the target's vertices (apply),
 * the surface refresh (geometry/surface_copy.c), the mass refresh and the
 * grid nodes patched. The patch is planned with the job too and reserved in
 * the budget, so it is not cut by the map; if it must be cut anyway (a first
 * job larger than the budget), the stats count it as shrunk.
 *
 * A dent is applied to the surface as earlier dents left it, and its map is
 * built from the projectile as it arrived: repeated hits at one place sink one
 * crater deeper (seed Figure 3), each hit adding its own distance.
 */
#include "damage/stage.h"
#include "base/inertia.h"
#include "damage/dent_model.h"
#include "damage/fracture_model.h"
#include "base/check.h"
#include "damage/dent.h"
#include "base/hash.h"
#include "soft/mass_spring.h"

#include <string.h>

#define CR_DENT_COOKIE 0x64656e74u /* "dent" */

/// Dent sites a body remembers for progressive denting (the newest replace the oldest).
#define CR_DENT_SITES 8
/// m: a deepening smaller than this along every axis moves no vertex.
#define CR_DENT_NEGLIGIBLE CR_R(1e-6)
/// A dent that keeps deepening stops at this many times max_distance.
#define CR_DENT_PROGRESSIVE_CAP 4

/// Where a dent was made and how deep it is now (seed 000 Figure 3): a
/// later hit by the same projectile inside `reach` deepens this dent.
typedef struct cr_dent_site {
    cr_vec3 point;           ///< the dent's origin on the surface it was first made in, body frame
    cr_vec3 normal;          ///< into the body, body frame
    cr_vec3 velocity;        ///< the first hit's relative velocity, body frame
    cr_transform proj_to_target; ///< the projectile as it first arrived
    cr_real distance;        ///< m, the dent distance of all its hits together
    cr_real reach;           ///< m, a hit whose point is this close (in the dent's plane) deepens it
    uint32_t proj_index1, proj_generation;
} cr_dent_site;

/// A dented body's model record.
typedef struct cr_dent_body {
    uint32_t body_index1;    ///< 0: free
    uint32_t body_generation;
    uint32_t dent_count;
    uint32_t site_count;     ///< sites in use
    uint32_t site_next;      ///< the site the next new dent takes
    uint32_t pad_;
    cr_dent_def def;
    cr_dent_site sites[CR_DENT_SITES];
} cr_dent_body;

/// One side of a job, planned when queued.
typedef struct cr_dent_plan {
    cr_vec3 point;           ///< the dent's origin on the target's surface, target frame
    cr_vec3 normal;          ///< into the target, target frame
    cr_vec3 velocity;        ///< projectile relative to target, target frame
    cr_transform proj_to_target;
    cr_real distance;        ///< m
    cr_real cell;            ///< m per map cell
    uint32_t cells;          ///< map cells per side
    uint32_t work;           ///< work units the dent will take (map, loops, patch)
    uint32_t patch_nodes;    ///< grid nodes reserved for the patch
    uint32_t passes;         ///< passes over the map's cells (map_passes)
    uint32_t sized;          ///< cells, cell, patch_nodes and work are set (a projectile of many triangles is
                             ///< sized by the job, in slices: its queue entry waits unsized)
    uint32_t shift_known;    ///< `shift` is the touching projectile's, from sizing: the map's build reuses it
    cr_vec3 shift;
} cr_dent_plan;

/// An impact waiting to become dents.
typedef struct cr_dent_job {
    uint32_t a_index1, a_generation, b_index1, b_generation;
    uint8_t dent_a, dent_b;  ///< which sides dent
    uint8_t soft_b;          ///< b is a soft body (b_index1/b_generation its cr_soft_id): a never dents it
    uint8_t pad_;
    uint32_t queued_step;    ///< the world's step count when it was queued (its latency is counted from it)
    cr_dent_plan side[2];    ///< [0]: a dented by b, [1]: b dented by a
} cr_dent_job;

/// Where the job in flight stands (cr_dent_active.phase; step by step below).
enum { DENT_IDLE, DENT_PLAN, DENT_MAPS, DENT_PATCH, DENT_COMMIT };

/* Projectile triangles a slice of a mesh projectile's plan or map visits at most. */
#define DENT_TRIANGLES_PER_SLICE 512u

cr_dent_def cr_default_dent_def(void) {
    cr_dent_def m;
    memset(&m, 0, sizeof m);
    m.threshold_speed = CR_R(1);
    m.speed_scale = CR_R(0.01);
    m.fixed_distance = CR_R(0.02);
    m.max_distance = CR_R(0.1);
    m.blur = CR_R(0.01);
    m.heat_iterations = 4;
    m.modified_iterations = 4;
    m.steepness = CR_R(1);
    m.width_t = 0;
    m.min_cos = CR_R(0.2);
    m.min_cells = 50; /* the seed's range: 50x50 to 200x200 */
    m.max_cells = 200;
    m.cookie = CR_DENT_COOKIE;
    return m;
}

cr_dent_budget cr_default_dent_budget(void) {
    cr_dent_budget d;
    /* no dented bodies unless the host makes room: a world without dents
     * should not pay megabytes for them */
    d.body_capacity = 0;
    d.dents_per_step = 4;
    d.work_per_step = 1u << 20; /* ~ a 200x200 map, its patch and the loops over a 20k-triangle target and projectile */
    d.queue_capacity = 64;
    d.max_cells = 200;
    return d;
}

cr_status cri_dent_model_check_def(const cr_damage_def *damage, cr_field *field) {
    const cr_dent_budget *d = &damage->dent;
    /* the first field out of range is named; the map and queue limits bound the block and the scratch */
    const bool on = d->body_capacity > 0;
    if (d->body_capacity > 4096) *field = CR_FIELD_DENT_BUDGET_BODY_CAPACITY;
    else if (d->queue_capacity > (1u << 20) || (on && d->queue_capacity == 0)) *field = CR_FIELD_DENT_BUDGET_QUEUE_CAPACITY;
    else if (d->max_cells > 1024 || (on && d->max_cells < 5)) *field = CR_FIELD_DENT_BUDGET_MAX_CELLS;
    else if (on && (d->dents_per_step == 0 || d->dents_per_step > (1u << 16))) *field = CR_FIELD_DENT_BUDGET_DENTS_PER_STEP;
    else if (on && d->work_per_step < d->max_cells * d->max_cells) *field = CR_FIELD_DENT_BUDGET_WORK_PER_STEP;
    else return CR_OK;
    return CR_ERR_DEF_INVALID;
}

static uint64_t al16(uint64_t x) { return (x + 15u) & ~(uint64_t)15u; }

/* Grid nodes one patch may read at most: the scratch that holds their old
 * values is sized by it, not by the whole work budget (a patch larger than
 * this is cut to its core and counted as shrunk). */
static uint32_t patch_nodes_max(const cr_dent_budget *d) { return d->work_per_step < 200000u ? d->work_per_step : 200000u; }

/* Build scratch: two dent maps (Jacobi), then the old values of one grid patch. */
static uint64_t map_bytes(const cr_dent_budget *d) { return al16(cri_dent_scratch_bytes(d->max_cells)); }
static uint64_t scratch_bytes(const cr_dent_budget *d) {
    return 2 * map_bytes(d) + al16((uint64_t)patch_nodes_max(d) * sizeof(cr_real));
}

uint64_t cri_dent_model_region_bytes(const cr_world_def *def) {
    const cr_dent_budget *d = &def->damage.dent;
    if (d->body_capacity == 0) return 0;
    return al16((uint64_t)d->body_capacity * sizeof(cr_dent_body)) +
           al16((uint64_t)d->queue_capacity * sizeof(cr_dent_job)) +
           al16(((uint64_t)d->dents_per_step + 1) * sizeof(cr_dent_event)) + scratch_bytes(d) + 64u;
}

bool cri_dent_model_layout(cr_world *w, uint8_t *block) {
    const cr_dent_budget *d = &w->def.damage.dent;
    cr_dent_region *r = &CR_DAMAGE(w)->dent;
    memset(r, 0, sizeof *r);
    if (d->body_capacity == 0) return true;
    r->records = cri_arena_push(&w->persistent, block, d->body_capacity * (uint32_t)sizeof(cr_dent_body), 16);
    r->queue = cri_arena_push(&w->persistent, block, d->queue_capacity * (uint32_t)sizeof(cr_dent_job), 16);
    r->events = cri_arena_push(&w->persistent, block, (d->dents_per_step + 1) * (uint32_t)sizeof(cr_dent_event), 16);
    r->scratch_bytes = (uint32_t)scratch_bytes(d);
    r->scratch = cri_arena_push(&w->persistent, block, r->scratch_bytes, 16);
    return r->records != CR_NO_OFFSET && r->queue != CR_NO_OFFSET && r->events != CR_NO_OFFSET &&
           r->scratch != CR_NO_OFFSET;
}

static cr_dent_body *records(cr_world *w) { return CR_AT(w, CR_DAMAGE(w)->dent.records, cr_dent_body); }
static const cr_dent_body *records_c(const cr_world *w) { return CR_AT(w, CR_DAMAGE(w)->dent.records, const cr_dent_body); }

static cr_dent_body *record_of(cr_world *w, uint32_t body_index1) {
    if (body_index1 == 0 || body_index1 > w->body_high || !(cr_world_bodies(w)[body_index1 - 1].models & CR_MODEL_DENT))
        return NULL;
    for (uint32_t i = 0; i < w->def.damage.dent.body_capacity; ++i)
        if (records(w)[i].body_index1 == body_index1) return &records(w)[i];
    return NULL;
}

uint32_t cri_dent_model_dent_count(const cr_world *w, uint32_t body_index1) {
    if (body_index1 == 0) return 0;
    for (uint32_t i = 0; i < w->def.damage.dent.body_capacity; ++i)
        if (records_c(w)[i].body_index1 == body_index1) return records_c(w)[i].dent_count;
    return 0;
}

cr_status cri_dent_model_attach(cr_world *w, uint32_t body_index1, const cr_dent_def *def) {
    cr_body *b = &cr_world_bodies(w)[body_index1 - 1];
    if (cri_damage_may_share(b->models, CR_MODEL_DENT) != CR_OK) return CR_ERR_DEF_INVALID;
    if (b->shape.type != CR_SHAPE_MESH) return CR_ERR_DEF_INVALID;
    /* every real: finite first (CR_ERR_NOT_FINITE), then in range (CR_ERR_DEF_INVALID), naming the field */
    const struct { cr_real v, lo; bool open; cr_field f; } reals[] = {
        {def->threshold_speed, 0, false, CR_FIELD_DENT_THRESHOLD_SPEED},
        {def->speed_scale, 0, false, CR_FIELD_DENT_SPEED_SCALE},
        {def->fixed_distance, 0, false, CR_FIELD_DENT_FIXED_DISTANCE},
        {def->max_distance, 0, false, CR_FIELD_DENT_MAX_DISTANCE},
        {def->blur, 0, false, CR_FIELD_DENT_BLUR},
        {def->steepness, 0, true, CR_FIELD_DENT_STEEPNESS},
        {def->width_t, -CR_REAL_MAX, false, CR_FIELD_DENT_WIDTH_T},
        {def->min_cos, 0, true, CR_FIELD_DENT_MIN_COS},
    };
    for (size_t i = 0; i < sizeof reals / sizeof reals[0]; ++i) {
        CR_TRY(cr_check_real(w, reals[i].v, reals[i].f));
        if (reals[i].v < reals[i].lo || (reals[i].open && reals[i].v == reals[i].lo))
            return cri_refuse(w, CR_ERR_DEF_INVALID, reals[i].f);
    }
    if (def->min_cos > CR_R(1)) return cri_refuse(w, CR_ERR_DEF_INVALID, CR_FIELD_DENT_MIN_COS);
    if (def->min_cells < 5 || def->max_cells < def->min_cells)
        return cri_refuse(w, CR_ERR_DEF_INVALID, CR_FIELD_DENT_CELLS);
    if (def->heat_iterations > CR_DENT_MAX_ITERATIONS || def->modified_iterations > CR_DENT_MAX_ITERATIONS)
        return cri_refuse(w, CR_ERR_DEF_INVALID, CR_FIELD_DENT_ITERATIONS);
    cr_dent_body *r = NULL;
    for (uint32_t i = 0; i < w->def.damage.dent.body_capacity && r == NULL; ++i)
        if (records(w)[i].body_index1 == 0) r = &records(w)[i];
    if (r == NULL) return CR_ERR_CAPACITY;
    cr_surface_copy *copy;
    cr_status s = cri_damage_surface_attach(w, body_index1, &copy);
    if (s != CR_OK) return s;
    memset(r, 0, sizeof *r);
    r->body_index1 = body_index1;
    r->body_generation = b->generation;
    r->def = *def;
    /* the world's cap on map cells, once, here */
    if (r->def.max_cells > w->def.damage.dent.max_cells) r->def.max_cells = w->def.damage.dent.max_cells;
    if (r->def.min_cells > r->def.max_cells) r->def.min_cells = r->def.max_cells;
    b->models |= CR_MODEL_DENT;
    return CR_OK;
}

cr_status cr_dent_attach(cr_world *w, cr_body_id id, const cr_dent_def *def) {
    if (w == NULL || def == NULL) return CR_ERR_NULL_ARGUMENT;
    if (def->cookie != CR_DENT_COOKIE) return CR_ERR_DEF_NOT_DEFAULTED;
    if (cri_world_body(w, id) == NULL) return CR_ERR_STALE_HANDLE;
    return cri_dent_model_attach(w, id.index1, def);
}

void cri_dent_model_detach(cr_world *w, uint32_t body_index1) {
    cr_dent_body *r = record_of(w, body_index1);
    if (r == NULL) return;
    r->body_index1 = 0;
    cr_world_bodies(w)[body_index1 - 1].models &= (uint8_t)~CR_MODEL_DENT;
}

uint64_t cri_dent_model_hash(const cr_world *w, uint64_t h) {
    for (uint32_t i = 0; i < w->def.damage.dent.body_capacity; ++i) {
        const cr_dent_body *r = &records_c(w)[i];
        if (r->body_index1 == 0) continue;
        h = cr_hash_u32(h, r->body_index1);
        h = cr_hash_u32(h, r->dent_count);
        for (uint32_t k = 0; k < r->site_count; ++k) {
            h = cr_hash_vec3(h, r->sites[k].point);
            h = cr_hash_real(h, r->sites[k].distance);
        }
    }
    /* worlds without waiting dents hash as they did before the queue existed */
    if (CR_DAMAGE(w)->dent.queue_count > 0) h = cr_hash_u32(h, CR_DAMAGE(w)->dent.queue_count);
    /* a job built part way: where it stands and the grid values it computed so far */
    const cr_dent_active *act = &CR_DAMAGE(w)->dent.active;
    if (act->phase != DENT_IDLE) {
        h = cr_hash_u32(cr_hash_u32(h, act->phase), act->side);
        h = cr_hash_u32(cr_hash_u32(h, (uint32_t)act->box.next_y), (uint32_t)act->box.next_z);
        h = cr_hash_u64(h, act->box.digest);
    }
    return h;
}

static cr_real mean_edge(const cr_asset *a) {
    /* equilateral triangles of the mean area: edge^2 = 4 A / (sqrt(3) T) */
    if (a->triangle_count == 0) return 0;
    cr_real area = cr_div(a->surface_area, cr_from_int((int32_t)a->triangle_count));
    return cr_sqrt(cr_mul(area, CR_R(2.309401076758503)));
}

static const uint32_t box_triangles[36] = {0, 1, 5, 0, 5, 4, 2, 6, 7, 2, 7, 3, 0, 4, 6, 0, 6, 2,
                                           1, 3, 7, 1, 7, 5, 0, 2, 3, 0, 3, 1, 4, 5, 7, 4, 7, 6};

/* How `proj` looks to the Z-buffer, hitting at `at` (target frame); box and
 * plane corners go to `corners`. */
static cr_dent_projectile projectile_of(const cr_world *w, const cr_body *proj, const cr_body *target,
                                        cr_transform to_target, cr_vec3 at, cr_vec3 corners[8], cr_real soft_radius) {
    cr_dent_projectile p;
    memset(&p, 0, sizeof p);
    p.to_target = to_target;
    if (proj == NULL) {
        /* a soft body (proj NULL): the sphere its bounds hold, centred at to_target */
        p.is_sphere = true;
        p.radius = soft_radius;
        return p;
    }
    switch ((cr_shape_type)proj->shape.type) {
    case CR_SHAPE_SPHERE:
        p.is_sphere = true;
        p.radius = proj->shape.radius;
        break;
    case CR_SHAPE_BOX:
    case CR_SHAPE_PLANE: {
        /* a plane is seen as a square of the target's size centred under the
         * impact, flat as the ground is, touching at the impact point */
        bool plane = proj->shape.type == CR_SHAPE_PLANE;
        cr_vec3 h = plane ? cr_v3(target->bound_radius, 0, target->bound_radius) : proj->shape.half_extents;
        cr_vec3 c = plane ? cr_transform_inv_point(to_target, at) : cr_v3_zero();
        for (int i = 0; i < 8; ++i)
            corners[i] = cr_v3(((i & 1) ? h.x : -h.x) + (plane ? c.x : 0), plane ? 0 : ((i & 2) ? h.y : -h.y),
                               ((i & 4) ? h.z : -h.z) + (plane ? c.z : 0));
        p.is_plane = plane;
        p.vertices = corners;
        p.triangles = box_triangles;
        p.triangle_count = 12;
        p.edge_length = cr_min(h.x, h.z);
        break;
    }
    case CR_SHAPE_MESH: {
        const cr_asset *a = cr_world_asset(w, proj->shape.asset);
        if (a == NULL) break;
        p.vertices = a->positions;
        p.triangles = a->triangles;
        p.triangle_count = a->triangle_count;
        p.edge_length = mean_edge(a);
        break;
    }
    }
    return p;
}

/* Grid nodes inside centre ± reach plus the margin the backward lookup needs. */
static uint32_t patch_nodes(const cr_asset *a, cr_real reach, cr_real distance) {
    int32_t margin = cr_floor_int(cr_mul(distance, a->sdf_inv_cell)) + 2;
    uint64_t n = 1;
    for (int k = 0; k < 3; ++k) {
        int32_t side = cr_floor_int(cr_mul(2 * reach, a->sdf_inv_cell)) + 3 + 2 * margin;
        if (side > (int32_t)a->sdf_dims[k]) side = (int32_t)a->sdf_dims[k];
        n *= (uint64_t)side;
    }
    return n > 0x7fffffffu ? 0x7fffffffu : (uint32_t)n;
}

/* Passes the map takes over its cells: one Gaussian for a sphere; for a
 * triangle projectile the Z-buffer's clear, the broadening and each of the
 * smoothing's heat and modified iterations (seed 000 §3.2), which a def may
 * set to hundreds, so a map is counted by what it does, not by its size. */
static uint32_t map_passes(const cr_dent_def *d, const cr_dent_projectile *proj) {
    return proj->is_sphere ? 1u : 2u + d->heat_iterations + d->modified_iterations;
}

/* Everything but the map's cells and the patch: the loops over the target and the projectile. */
static uint32_t loop_work(const cr_asset *target, uint32_t proj_triangles, bool mass) {
    uint32_t w = 3 * proj_triangles + target->vertex_count;                                /* z-buffer, apply */
    w += target->triangle_count + 2 * target->vertex_count + target->sample_count;        /* surface refresh */
    if (mass) w += 2 * target->triangle_count;                                             /* volume ratio */
    return w;
}

/* How far the patch must reach around the dent's point: the map's support
 * (cri_dent_build) and room for the moved surface above and below. */
static cr_real patch_reach(cr_real half, cr_real cos_theta, cr_real distance) {
    return cr_div(half, cos_theta) + cr_mul(CR_R(8), distance);
}

static void size_plan(cr_dent_plan *pl, const cr_dent_def *d, const cr_body *t, const cr_asset *ta,
                      const cr_dent_projectile *proj);

/* Plan one side: target t dented by projectile p (once, when queued). */
static bool plan_side(cr_world *w, cr_dent_plan *pl, const cr_dent_body *rec, const cr_body *t, const cr_body *p,
                      cr_vec3 point, cr_vec3 normal, cr_vec3 velocity, cr_transform p_to_t, cr_real speed,
                      uint32_t *work, cr_real soft_radius) {
    const cr_dent_def *d = &rec->def;
    const cr_asset *ta = cr_world_asset(w, t->shape.asset);
    if (ta == NULL) return false;
    /* The impact point is where the deepest sample was, a little inside one
     * body and outside the other: put each dent's origin on its own surface,
     * or the two sides of one impact would not dent alike. */
    cr_vec3 grad;
    cr_real phi = cr_asset_sdf(ta, point, &grad);
    pl->point = cr_v3_mad(point, -phi, grad);
    pl->normal = normal;
    pl->velocity = velocity;
    pl->proj_to_target = p_to_t;
    pl->distance = cri_dent_distance(d, speed);
    cr_vec3 corners[8];
    cr_dent_projectile proj = projectile_of(w, p, t, p_to_t, pl->point, corners, soft_radius);
    pl->passes = map_passes(d, &proj);
    pl->sized = 0;
    if (proj.triangle_count > DENT_TRIANGLES_PER_SLICE) return pl->distance > 0; /* sized by the job, in slices */
    cr_dent_impact imp = {pl->point, normal, velocity, pl->distance};
    pl->cells = cri_dent_plan_cells(d, &imp, &proj, mean_edge(ta), &pl->cell);
    *work += 2 * proj.triangle_count; /* the plan's own loops over the projectile */
    size_plan(pl, d, t, ta, &proj);
    return pl->distance > 0;
}

/* What a plan's cells decide: the patch box's nodes and the old units' work. */
static void size_plan(cr_dent_plan *pl, const cr_dent_def *d, const cr_body *t, const cr_asset *ta,
                      const cr_dent_projectile *proj) {
    cr_real speed_u;
    cr_vec3 velocity = pl->velocity, normal = pl->normal;
    cr_vec3 u = cr_v3_normalize_len(velocity, &speed_u);
    cr_real c = cr_clamp(cr_v3_dot(u, cr_v3_normalize(normal)), d->min_cos, CR_R(1));
    if (speed_u <= CR_R(1e-6) || c <= 0) c = CR_R(1);
    cr_real half = cr_mul(cr_half(cr_from_int((int32_t)pl->cells - 1)), pl->cell);
    pl->patch_nodes = patch_nodes(ta, patch_reach(half, c, pl->distance), pl->distance);
    /* 1024^2 cells times 2002 passes plus a patch of 2^31 nodes pass 2^32: saturate */
    uint64_t total = (uint64_t)pl->cells * pl->cells * pl->passes +
                     loop_work(ta, proj->triangle_count, d->refresh_mass && t->type == CR_BODY_DYNAMIC) + pl->patch_nodes;
    pl->work = total > 0x7fffffffu ? 0x7fffffffu : (uint32_t)total;
    pl->sized = 1;
}

/* A soft body as a projectile: the sphere of half its bounds' longest side
 * (a ball's radius), 0 when the handle is stale. */
static cr_real soft_radius_of(cr_world *w, uint32_t index1, uint32_t generation) {
    cr_soft_id id = {index1, generation};
    const cr_soft_body *sb = cri_soft_body_c(w, id);
    if (sb == NULL) return 0;
    cr_vec3 e = cr_v3_sub(sb->bounds_max, sb->bounds_min);
    return cr_half(cr_max(e.x, cr_max(e.y, e.z)));
}

/* Queue the step's impacts: per dented body in slot order, its impacts in
 * event order. An impact between two dented bodies is queued once, by the
 * lower slot, with both sides. */
static void enqueue(cr_world *w, const cr_damage_input *in, uint32_t *work) {
    cr_dent_region *reg = &CR_DAMAGE(w)->dent;
    const cr_dent_budget *bd = &w->def.damage.dent;
    cr_dent_job *queue = CR_AT(w, reg->queue, cr_dent_job);
    cr_body *bodies = cr_world_bodies(w);
    for (uint32_t i = 0; i < in->body_high; ++i) {
        if (!(bodies[i].models & CR_MODEL_DENT)) continue;
        cr_dent_body *ra = record_of(w, i + 1);
        if (ra == NULL) continue;
        for (uint32_t k = in->impact_start[i]; k < in->impact_start[i + 1]; ++k) {
            const cr_body_impact *imp = &in->impacts[k];
            if (imp->other.index1 == 0 && !cr_soft_id_is_null(imp->soft_other)) {
                /* a soft body's hit: only a dents, by a sphere the soft body's size */
                cr_real r = soft_radius_of(w, imp->soft_other.index1, imp->soft_other.generation);
                if (r <= 0 || imp->normal_speed <= ra->def.threshold_speed) continue;
                if (reg->queue_count >= bd->queue_capacity) {
                    w->stats.dent.over_capacity++;
                    continue;
                }
                cr_dent_job *job = &queue[(reg->queue_head + reg->queue_count) % bd->queue_capacity];
                memset(job, 0, sizeof *job);
                job->queued_step = (uint32_t)w->step_count;
                job->a_index1 = i + 1, job->a_generation = bodies[i].generation;
                job->b_index1 = imp->soft_other.index1, job->b_generation = imp->soft_other.generation;
                job->soft_b = 1;
                cr_transform centre = cr_transform_identity(); /* outside the target, touching at the point */
                centre.p = cr_v3_mad(imp->other_pose.p, -r, imp->normal);
                if (!plan_side(w, &job->side[0], ra, &bodies[i], NULL, imp->point, imp->normal, imp->velocity, centre,
                               imp->normal_speed, work, r))
                    continue;
                job->dent_a = 1;
                reg->queue_count++;
                continue;
            }
            uint32_t j = imp->other.index1 - 1;
            cr_dent_body *rb = record_of(w, imp->other.index1);
            if (rb != NULL && j < i) continue; /* queued with the lower slot */
            bool dent_a = imp->normal_speed > ra->def.threshold_speed;
            bool dent_b = rb != NULL && imp->normal_speed > rb->def.threshold_speed;
            if (!dent_a && !dent_b) continue;
            if (reg->queue_count >= bd->queue_capacity) {
                w->stats.dent.over_capacity++;
                continue;
            }
            cr_dent_job *job = &queue[(reg->queue_head + reg->queue_count) % bd->queue_capacity];
            memset(job, 0, sizeof *job);
            job->queued_step = (uint32_t)w->step_count;
            job->a_index1 = i + 1, job->a_generation = bodies[i].generation;
            job->b_index1 = imp->other.index1, job->b_generation = imp->other.generation;
            const cr_body *a = &bodies[i], *b = &bodies[j];
            if (dent_a)
                dent_a = plan_side(w, &job->side[0], ra, a, b, imp->point, imp->normal, imp->velocity, imp->other_pose,
                                   imp->normal_speed, work, 0);
            if (dent_b) {
                cr_transform a_in_b = cr_transform_inverse(imp->other_pose);
                dent_b = plan_side(w, &job->side[1], rb, b, a, cr_transform_point(a_in_b, imp->point),
                                   cr_quat_rotate(a_in_b.q, cr_v3_neg(imp->normal)),
                                   cr_quat_rotate(a_in_b.q, cr_v3_neg(imp->velocity)), a_in_b, imp->normal_speed, work, 0);
            }
            if (!dent_a && !dent_b) continue;
            job->dent_a = dent_a, job->dent_b = dent_b;
            reg->queue_count++;
        }
    }
}

/* One side being built and applied. */
typedef struct dent_side {
    uint32_t plan_proj_index1; ///< the projectile's slot + 1
    cr_dent_body *rec;
    cr_body *target, *proj;
    cr_dent_plan *plan;
    cr_real soft_radius;       ///< > 0: the projectile is a soft body (proj NULL), this sphere
    cr_soft_id soft;           ///< that soft body
    cr_dent_projectile projectile;
    cr_vec3 corners[8];
    uint32_t cells;
    cr_real cell;
    cr_dent dent;
} dent_side;

typedef struct patch_ctx {
    const cr_dent *dent;
    const cr_dent *old; ///< progressive: the site's dent before this hit, else NULL
    const cr_dent_def *def;
} patch_ctx;

/* What a progressive hit adds at a point that the site's earlier hits had
 * moved to p: the new total dent minus the old one, both at the point's
 * undented place (p less the old dent, to first order). */
static cr_vec3 deepening(const cr_dent *now, const cr_dent *old, const cr_dent_def *def, cr_vec3 rest) {
    return cr_v3_sub(cri_dent_displacement(now, def, rest), cri_dent_displacement(old, def, rest));
}

/* The patch's displacement: the attenuation's far tail (under a micrometre,
 * the far side of a ball) is none, so the grid leaves those nodes alone. */
static cr_vec3 dent_move(const void *ctx, cr_vec3 p) {
    const patch_ctx *c = (const patch_ctx *)ctx;
    cr_vec3 d = c->old == NULL ? cri_dent_displacement(c->dent, c->def, p)
                               : deepening(c->dent, c->old, c->def, cr_v3_sub(p, cri_dent_displacement(c->old, c->def, p)));
    if (cr_abs(d.x) < CR_DENT_NEGLIGIBLE && cr_abs(d.y) < CR_DENT_NEGLIGIBLE && cr_abs(d.z) < CR_DENT_NEGLIGIBLE) return cr_v3_zero();
    return d;
}

/* Progressive apply: every vertex moves by what the deeper dent adds to the
 * old one at its undented place, so k hits make the dent one hit of the
 * summed distance would make, not k dents stacked on each other. */
static uint32_t apply_deepening(const cr_dent *now, const cr_dent *old, const cr_dent_def *def, cr_vec3 *pos,
                                const cr_vec3 *rest, uint32_t count, uint32_t *first, uint32_t *last, cr_vertex_ranges *ranges) {
    uint32_t moved = 0;
    *first = count, *last = 0;
    for (uint32_t i = 0; i < count; ++i) {
        cr_vec3 d = deepening(now, old, def, rest[i]);
        /* the attenuation's far tail adds less than a micrometre deep inside
         * the body: leave those vertices (and the dirty range) alone */
        if (cr_abs(d.x) < CR_DENT_NEGLIGIBLE && cr_abs(d.y) < CR_DENT_NEGLIGIBLE && cr_abs(d.z) < CR_DENT_NEGLIGIBLE) continue;
        cr_vec3 p = cr_v3_add(pos[i], d);
        if (p.x == pos[i].x && p.y == pos[i].y && p.z == pos[i].z) continue;
        pos[i] = p;
        if (i < *first) *first = i;
        *last = i;
        cri_ranges_add(ranges, i, i);
        ++moved;
    }
    return moved;
}

/* The site this side's hit deepens: same projectile, its point within the
 * site's reach in the site's plane, its normal within 30 degrees. */
static cr_dent_site *site_hit(dent_side *s) {
    cr_dent_body *r = s->rec;
    if (s->proj == NULL) return NULL; /* a soft body's hits do not deepen a site */
    uint32_t gen = s->proj->generation;
    for (uint32_t k = 0; k < r->site_count; ++k) {
        cr_dent_site *site = &r->sites[k];
        if (site->proj_generation != gen || site->proj_index1 != s->plan_proj_index1) continue;
        if (cr_v3_dot(site->normal, s->plan->normal) < CR_R(0.8660254)) continue;
        cr_vec3 d = cr_v3_sub(s->plan->point, site->point);
        cr_vec3 in_plane = cr_v3_sub(d, cr_v3_scale(site->normal, cr_v3_dot(d, site->normal)));
        if (cr_v3_len_sq(in_plane) <= cr_mul(site->reach, site->reach)) return site;
    }
    return NULL;
}

static void remember_site(dent_side *s) {
    cr_dent_body *r = s->rec;
    cr_dent_site *site = &r->sites[r->site_next];
    r->site_next = (r->site_next + 1) % CR_DENT_SITES;
    if (r->site_count < CR_DENT_SITES) r->site_count++;
    site->point = s->dent.point;
    site->normal = s->plan->normal;
    site->velocity = s->plan->velocity;
    site->proj_to_target = s->plan->proj_to_target;
    site->distance = s->dent.distance;
    /* the hit lands in the crater it made: a quarter of the map's footprint */
    site->reach = cr_mul(CR_R(0.25), cr_mul(cr_half(cr_from_int((int32_t)s->cells - 1)), s->cell));
    site->proj_index1 = s->proj != NULL ? s->plan_proj_index1 : 0; /* no rigid projectile matches 0 */
    site->proj_generation = s->proj != NULL ? s->proj->generation : 0;
}

/* Build the site's dent as it is (old) and as it will be with this hit's
 * distance added (into s->dent), both from the site's frame and the
 * projectile's first arrival, each on a grid planned for its distance. */
static void deepen_build(cr_world *w, dent_side *s, const cr_dent_site *site, cr_dent *old, void *scratch_now,
                         void *scratch_old, uint32_t *work) {
    const cr_dent_def *d = &s->rec->def;
    cr_real cap = cr_mul(d->max_distance, cr_from_int(CR_DENT_PROGRESSIVE_CAP));
    cr_real total = cr_min(site->distance + s->plan->distance, cap);
    s->projectile = projectile_of(w, s->proj, s->target, site->proj_to_target, site->point, s->corners, s->soft_radius);
    const cr_asset *ta = cr_world_asset(w, s->target->shape.asset);
    cr_real edge = mean_edge(ta);
    cr_dent_impact now = {site->point, site->normal, site->velocity, total};
    cr_dent_impact was = {site->point, site->normal, site->velocity, site->distance};
    cr_real cell_now, cell_old;
    uint32_t n_now = cri_dent_plan_cells(d, &now, &s->projectile, edge, &cell_now);
    uint32_t n_old = cri_dent_plan_cells(d, &was, &s->projectile, edge, &cell_old);
    cri_dent_build(&s->dent, d, &now, &s->projectile, n_now, cell_now, scratch_now);
    cri_dent_build(old, d, &was, &s->projectile, n_old, cell_old, scratch_old);
    s->cells = n_now, s->cell = cell_now;
    *work += (n_now * n_now + n_old * n_old) * map_passes(d, &s->projectile) + 10 * s->projectile.triangle_count;
}

/* The job in flight, step by step. A job is the impact at the queue's head;
 * it is built in slices, each charged to the stage's meter before the next
 * is taken, and resumes where it stopped on the next step:
 *   maps    each side's dent map (or, deepening a site, the dent as it was
 *           and as it will be), one side a slice, all of them before any
 *           side commits, so both maps of a two-body impact see the shapes
 *           as they were before it (Jacobi);
 *   patch   a side's distance-grid patch, a few rows of its box a slice,
 *           into the region's staged values (surface_copy.h): the grid
 *           collisions read keeps its last committed values meanwhile;
 *   commit  that side's vertices, normals and bounds, the staged values into
 *           the grid, the mass, the projectile and the event, in one slice:
 *           the body's drawn and collided shape change together.
 * The slices that cannot be cut are a map (max_cells^2 cells times its
 * passes) and a commit (the target's vertices and triangles and the box's
 * nodes): a step always runs its first slice, so no job waits for ever,
 * and the stats and docs/frame-budget.md give their bounds. */

/* One slice's bookkeeping: the stage's meter and the model's own cap (its
 * old units: map cells, nodes read, vertices and triangles looped over). */
typedef struct dent_slice {
    cr_damage_meter meter;
    uint32_t units, cap;
    uint32_t slices;       ///< slices run this step (the first always runs)
    uint32_t commits;      ///< sides committed this step (at most dents_per_step)
    uint64_t mark_ps;      ///< the meter when the slice began
    uint64_t largest_ps;   ///< the dearest slice so far
} dent_slice;

static bool slice_fits(const dent_slice *sl, uint64_t ps, uint64_t units) {
    return sl->slices == 0 || (cri_damage_fits(&sl->meter, ps) && (uint64_t)sl->units + units <= sl->cap);
}

static void slice_ran(dent_slice *sl, uint64_t units) {
    uint64_t ps = sl->meter.spent_ps - sl->mark_ps;
    if (ps > sl->largest_ps) sl->largest_ps = ps;
    sl->mark_ps = sl->meter.spent_ps;
    sl->slices++;
    sl->units = sl->units + units > 0xffffffffu ? 0xffffffffu : (uint32_t)(sl->units + units);
}

/* The sides of job j whose bodies are still there. */
static uint32_t job_sides(cr_world *w, cr_dent_job *j, dent_side sides[2]) {
    cr_body_id ida = {j->a_index1, j->a_generation}, idb = {j->b_index1, j->b_generation};
    cr_body *a = cri_world_body(w, ida), *b = j->soft_b ? NULL : cri_world_body(w, idb);
    cr_dent_body *ra = a && j->dent_a ? record_of(w, j->a_index1) : NULL;
    cr_dent_body *rb = b && j->dent_b ? record_of(w, j->b_index1) : NULL;
    uint32_t n = 0;
    memset(sides, 0, 2 * sizeof sides[0]);
    if (j->soft_b) {
        /* a soft body's hit: a dented by the sphere of the soft body's size */
        cr_real r = soft_radius_of(w, j->b_index1, j->b_generation);
        if (a && ra && r > 0) {
            sides[n].rec = ra, sides[n].target = a, sides[n].proj = NULL, sides[n].plan = &j->side[0];
            sides[n].soft_radius = r, sides[n].soft.index1 = j->b_index1, sides[n].soft.generation = j->b_generation;
            sides[n++].plan_proj_index1 = 0;
        }
    }
    if (a && b && ra) {
        sides[n].rec = ra, sides[n].target = a, sides[n].proj = b, sides[n].plan = &j->side[0];
        sides[n++].plan_proj_index1 = j->b_index1;
    }
    if (a && b && rb) {
        sides[n].rec = rb, sides[n].target = b, sides[n].proj = a, sides[n].plan = &j->side[1];
        sides[n++].plan_proj_index1 = j->a_index1;
    }
    return n;
}

/* The region's map memory: side k's map at k, the old dent of a deepened site at 1. */
static void *map_memory(cr_world *w, uint32_t k) {
    return CR_AT(w, CR_DAMAGE(w)->dent.scratch + k * (uint32_t)map_bytes(&w->def.damage.dent), void);
}
static cr_real *staged_values(cr_world *w) {
    return CR_AT(w, CR_DAMAGE(w)->dent.scratch + 2 * (uint32_t)map_bytes(&w->def.damage.dent), cr_real);
}

/* The active job's built dents, their maps pointed at the region again (a
 * byte copy of the block may have moved it since they were built). */
static void bind_dents(cr_world *w, cr_dent_active *act, dent_side *sides, uint32_t n) {
    for (uint32_t k = 0; k < n; ++k) {
        act->dent[k].grid.h = (cr_real *)map_memory(w, k);
        sides[k].dent = act->dent[k];
        sides[k].cells = act->dent[k].grid.n, sides[k].cell = act->dent[k].grid.cell;
    }
    if (act->progressive) act->old.grid.h = (cr_real *)map_memory(w, 1);
}

static uint32_t map_units(const dent_side *s, bool progressive) {
    uint32_t cells = s->plan->cells * s->plan->cells * s->plan->passes;
    return (progressive ? 2 : 1) * cells;
}


/* Slices: side k's plan sized, a range of its projectile's triangles at a
 * time (its reach, then its widest corner). Returns whether it is sized. */
static bool size_side(cr_world *w, cr_dent_active *act, dent_side *s, uint32_t k, dent_slice *sl) {
    cr_dent_plan *pl = s->plan;
    if (pl->sized) return true;
    s->projectile = projectile_of(w, s->proj, s->target, pl->proj_to_target, pl->point, s->corners, s->soft_radius);
    cr_dent *d = &act->dent[k];
    if (act->map_stage == 0) {
        cr_dent_impact imp = {pl->point, pl->normal, pl->velocity, pl->distance};
        cri_dent_plan_begin(d, &s->rec->def, &imp, &s->projectile);
        act->map_stage = cri_dent_build_shift_known(d) ? 2 : 1;
        act->tri = 0;
    }
    const uint32_t triangles = s->projectile.triangle_count;
    while (act->map_stage == 1 || act->map_stage == 2) {
        uint32_t n = triangles - act->tri < DENT_TRIANGLES_PER_SLICE ? triangles - act->tri : DENT_TRIANGLES_PER_SLICE;
        if (!slice_fits(sl, cri_damage_cost_ps(w, CR_DAMAGE_OP_dent_plan_triangle, n), n)) return false;
        if (act->map_stage == 1) cri_dent_build_ahead(d, &s->projectile, act->tri, n);
        else cri_dent_plan_reach(d, &s->projectile, act->tri, n);
        cri_damage_charge(&sl->meter, CR_DAMAGE_OP_dent_plan_triangle, n);
        slice_ran(sl, n);
        act->tri += n;
        if (act->tri == triangles) act->map_stage++, act->tri = 0;
    }
    const cr_asset *ta = cr_world_asset(w, s->target->shape.asset);
    pl->cells = cri_dent_plan_finish(d, &s->rec->def, &s->projectile, mean_edge(ta), &pl->cell);
    pl->shift = d->shift, pl->shift_known = 1;
    size_plan(pl, &s->rec->def, s->target, ta, &s->projectile);
    act->map_stage = 0;
    return true;
}

/* Slices: side k's map; a mesh projectile's a range of its triangles at a
 * time (its reach, then its Z-buffer), a sphere's Gaussian and a deepened
 * site's two maps whole. Returns whether the map is built. */
static bool build_map(cr_world *w, cr_dent_active *act, dent_side *s, uint32_t k, dent_slice *sl) {
    s->cells = s->plan->cells, s->cell = s->plan->cell;
    s->projectile = projectile_of(w, s->proj, s->target, s->plan->proj_to_target, s->plan->point, s->corners,
                                  s->soft_radius);
    const uint64_t cells = (uint64_t)s->cells * s->cells;
    if (act->progressive) {
        if (!slice_fits(sl, cri_damage_cost_ps(w, CR_DAMAGE_OP_dent_map_cell, map_units(s, true)), map_units(s, true)))
            return false;
        uint32_t units = 0;
        deepen_build(w, s, &s->rec->sites[act->site], &act->old, map_memory(w, 0), map_memory(w, 1), &units);
        cri_damage_charge(&sl->meter, CR_DAMAGE_OP_dent_map_cell, map_units(s, true));
        cri_damage_charge(&sl->meter, CR_DAMAGE_OP_dent_plan_triangle, 10ull * s->projectile.triangle_count);
        act->dent[k] = s->dent;
        slice_ran(sl, units);
        return true;
    }
    cr_dent *d = &act->dent[k];
    d->grid.h = (cr_real *)map_memory(w, k);
    if (act->map_stage == 0) {
        if (!slice_fits(sl, cri_damage_cost_ps(w, CR_DAMAGE_OP_dent_map_cell, cells), cells)) return false;
        cr_dent_impact imp = {s->plan->point, s->plan->normal, s->plan->velocity, s->plan->distance};
        bool whole = cri_dent_build_begin(d, &s->rec->def, &imp, &s->projectile, s->cells, s->cell, map_memory(w, k));
        cri_damage_charge(&sl->meter, CR_DAMAGE_OP_dent_map_cell, cells);
        slice_ran(sl, cells);
        act->map_stage = whole ? 4 : cri_dent_build_shift_known(d) ? 2 : 1;
        if (act->map_stage == 1 && s->plan->shift_known) d->shift = s->plan->shift, d->ahead = CR_REAL_MAX, act->map_stage = 2;
        act->tri = 0;
    }
    const uint32_t triangles = s->projectile.triangle_count;
    while (act->map_stage == 1 || act->map_stage == 2) {
        uint32_t n = triangles - act->tri < DENT_TRIANGLES_PER_SLICE ? triangles - act->tri : DENT_TRIANGLES_PER_SLICE;
        if (!slice_fits(sl, cri_damage_cost_ps(w, CR_DAMAGE_OP_dent_plan_triangle, n), n)) return false;
        uint32_t writes = d->zbuffer_work;
        if (act->map_stage == 1) cri_dent_build_ahead(d, &s->projectile, act->tri, n);
        else cri_dent_build_triangles(d, &s->projectile, act->tri, n);
        cri_damage_charge(&sl->meter, CR_DAMAGE_OP_dent_plan_triangle, n);
        cri_damage_charge(&sl->meter, CR_DAMAGE_OP_dent_map_cell, d->zbuffer_work - writes);
        slice_ran(sl, n);
        act->tri += n;
        if (act->tri == triangles) act->map_stage++, act->tri = 0;
    }
    /* the broadening and each smoothing iteration: a pass over the cells a slice */
    while (act->map_stage == 3) {
        if (!slice_fits(sl, cri_damage_cost_ps(w, CR_DAMAGE_OP_dent_map_cell, cells), cells)) return false;
        cri_dent_build_finish_pass(d, &s->rec->def, map_memory(w, k), act->tri);
        cri_damage_charge(&sl->meter, CR_DAMAGE_OP_dent_map_cell, cells);
        slice_ran(sl, cells);
        if (++act->tri == cri_dent_build_finish_passes(&s->rec->def)) act->map_stage = 4;
    }
    s->dent = *d;
    return true;
}

static cr_real side_reach(const dent_side *s) {
    return patch_reach(cr_mul(cr_half(cr_from_int((int32_t)s->cells - 1)), s->cell), s->dent.cos_theta, s->dent.distance);
}

/* The side's patch box, planned when its patch starts. */
static void plan_patch(cr_world *w, cr_dent_active *act, dent_side *s) {
    const cr_surface_copy *copy = cri_damage_surface_of(w, s->rec->body_index1);
    uint32_t limit = s->plan->patch_nodes < patch_nodes_max(&w->def.damage.dent) ? s->plan->patch_nodes
                                                                                 : patch_nodes_max(&w->def.damage.dent);
    act->box_ok = copy != NULL && cri_surface_patch_box_plan(&act->box, copy, (const uint8_t *)w, s->dent.point,
                                                             side_reach(s), s->dent.distance, limit);
    if (act->box.shrunk) w->stats.dent.shrunk++;
    act->box.linear = CR_R(0.5); /* as the example model's patch: the error is a few hundredths of a cell there */
}

/* Slices: rows of the side's patch while they fit. */
static void patch_rows(cr_world *w, cr_dent_active *act, dent_side *s, dent_slice *sl) {
    const cr_surface_copy *copy = cri_damage_surface_of(w, s->rec->body_index1);
    cr_surface_patch_box *b = &act->box;
    const uint64_t row = (uint64_t)(b->hi[0] - b->lo[0] + 1);
    /* a row is admitted while its visit fits and charged at what it did: a
     * step passes its allowance by at most one row's moved nodes */
    const uint64_t row_ps = cri_damage_cost_ps(w, CR_DAMAGE_OP_dent_patch_node, row);
    const uint64_t row_units = b->nodes / (uint64_t)((b->hi[1] - b->lo[1] + 1) * (b->hi[2] - b->lo[2] + 1));
    patch_ctx ctx = {&s->dent, act->progressive ? &act->old : NULL, &s->rec->def};
    while (!cri_surface_patch_box_done(b) && slice_fits(sl, row_ps, row_units)) {
        cr_surface_patch_count n = {0, 0, 0};
        cri_surface_patch_box_rows(b, copy, (const uint8_t *)w, dent_move, &ctx, staged_values(w), 1, &n);
        cri_damage_charge(&sl->meter, CR_DAMAGE_OP_dent_patch_node, row);
        cri_damage_charge(&sl->meter, CR_DAMAGE_OP_dent_patch_probe, n.probed);
        cri_damage_charge(&sl->meter, CR_DAMAGE_OP_dent_patch_linear, n.linear);
        cri_damage_charge(&sl->meter, CR_DAMAGE_OP_dent_patch_moved, n.moved);
        slice_ran(sl, row_units);
    }
}

/* What a commit of side s may cost at most (its admission). */
static uint64_t commit_ps(const cr_world *w, const dent_side *s, const cr_asset *view, const cr_dent_active *act) {
    uint64_t ps = cri_damage_cost_ps(w, CR_DAMAGE_OP_dent_vertex, view->vertex_count) +
                  cri_damage_cost_ps(w, CR_DAMAGE_OP_dent_refresh,
                                     (uint64_t)view->triangle_count + 2ull * view->vertex_count + view->sample_count) +
                  cri_damage_cost_ps(w, CR_DAMAGE_OP_dent_commit_node, act->box_ok ? cri_surface_patch_box_nodes(&act->box) : 0);
    if (s->rec->def.refresh_mass && s->target->type == CR_BODY_DYNAMIC)
        ps += cri_damage_cost_ps(w, CR_DAMAGE_OP_dent_volume_triangle, 2ull * view->triangle_count);
    return ps;
}

static bool moves_projectile(const dent_side *s) {
    return s->rec->def.move_projectile && s->proj != NULL && s->proj->type == CR_BODY_DYNAMIC;
}

/* Slice: side s becomes the body's shape (mesh, grid, mass), its projectile
 * is queued to step into the dent, and the dent's event is written. */
static void commit_side(cr_world *w, cr_dent_active *act, dent_side *s, dent_slice *sl) {
    cr_surface_copy *copy = cri_damage_surface_of(w, s->rec->body_index1);
    uint8_t *block = (uint8_t *)w;
    cr_asset *view = cr_surface_copy_view(copy, block);
    const cr_dent *old = act->progressive ? &act->old : NULL;
    uint32_t first, last, moved, units = 0;
    cr_vertex_ranges ranges;
    cri_ranges_clear(&ranges);
    if (old != NULL) {
        const cr_asset *rest = cr_world_asset(w, copy->rest_slot);
        moved = apply_deepening(&s->dent, old, &s->rec->def, cr_surface_copy_positions(copy, block), rest->positions,
                                view->vertex_count, &first, &last, &ranges);
    } else {
        moved = cri_dent_apply(&s->dent, &s->rec->def, cr_surface_copy_positions(copy, block), view->vertex_count, &first,
                              &last, &ranges);
    }
    cri_damage_charge(&sl->meter, CR_DAMAGE_OP_dent_vertex, view->vertex_count);
    cri_damage_charge(&sl->meter, CR_DAMAGE_OP_dent_vertex_moved, moved);
    units += view->vertex_count;
    if (moved > 0) {
        cri_surface_copy_mark_ranges(copy, &ranges);
        uint32_t r = cri_surface_copy_refresh(copy, block, &s->target->bound_radius);
        cri_damage_charge(&sl->meter, CR_DAMAGE_OP_dent_refresh, r);
        units += r;
    }
    if (act->box_ok) {
        uint32_t nodes = cri_surface_patch_box_commit(&act->box, copy, block, staged_values(w));
        cri_damage_charge(&sl->meter, CR_DAMAGE_OP_dent_commit_node, nodes);
    }
    s->rec->dent_count++;
    const cr_dent_def *d = &s->rec->def;
    if (d->refresh_mass && s->target->type == CR_BODY_DYNAMIC) {
        const cr_asset *rest = cr_world_asset(w, copy->rest_slot);
        cr_real ratio = cri_surface_copy_volume_ratio(copy, block, rest);
        cri_damage_charge(&sl->meter, CR_DAMAGE_OP_dent_volume_triangle, (uint64_t)view->triangle_count + rest->triangle_count);
        units += view->triangle_count + rest->triangle_count;
        /* the principal frame is kept (a dent is small next to the body), so inertia scales with the mass */
        cr_real mass = cr_mul(cr_mul(s->target->material.density, rest->volume), ratio);
        cr_vec3 inertia = cr_v3_scale(cr_v3_scale(rest->inertia, s->target->material.density), ratio);
        if (ratio > 0 && mass > 0 && inertia.x > 0 && inertia.y > 0 && inertia.z > 0) {
            cr_body *b = s->target;
            b->mass = mass;
            b->inv_mass = cr_div(CR_R(1), mass);
            cri_inertia_set(b, inertia, cr_v3_zero());
        }
    }
    /* the projectile is another body: it steps into the dent at the step's end, by a command */
    if (moves_projectile(s)) {
        cr_body_id id = {(uint32_t)(s->proj - cr_world_bodies(w)) + 1, s->proj->generation};
        cri_damage_defer_body_move(w, id, cr_v3_scale(cr_quat_rotate(s->target->xf.q, s->plan->normal), s->dent.distance));
    }
    cr_dent_region *reg = &CR_DAMAGE(w)->dent;
    if (reg->event_count <= w->def.damage.dent.dents_per_step) {
        cr_dent_event *e = &CR_AT(w, reg->events, cr_dent_event)[reg->event_count++];
        memset(e, 0, sizeof *e);
        e->body.index1 = s->rec->body_index1, e->body.generation = s->rec->body_generation;
        if (s->proj != NULL)
            e->other.index1 = (uint32_t)(s->proj - cr_world_bodies(w)) + 1, e->other.generation = s->proj->generation;
        else
            e->other_soft = s->soft;
        e->point = s->dent.point;
        e->world_point = cr_transform_point(s->target->xf, s->dent.point);
        e->depth = s->dent.distance;
        e->first_vertex = moved ? first : 1;
        e->last_vertex = moved ? last : 0;
        e->range_count = cri_ranges_export(&ranges, e->ranges);
    }
    if (act->progressive) s->rec->sites[act->site].distance = s->dent.distance;
    else remember_site(s);
    slice_ran(sl, units);
    sl->commits++;
}

static void job_done(cr_world *w, cr_dent_active *act) {
    cr_dent_region *reg = &CR_DAMAGE(w)->dent;
    reg->queue_head = (reg->queue_head + 1) % w->def.damage.dent.queue_capacity;
    reg->queue_count--;
    act->phase = DENT_IDLE;
}

void cri_dent_model_step(cr_world *w, const cr_damage_input *in) {
    cr_dent_region *reg = &CR_DAMAGE(w)->dent;
    reg->event_count = 0;
    if (w->def.damage.dent.body_capacity == 0) return;
    const cr_dent_budget *bd = &w->def.damage.dent;
    cr_dent_job *queue = CR_AT(w, reg->queue, cr_dent_job);
    cr_dent_active *act = &reg->active;
    dent_slice sl = {cri_damage_meter(w, in->allowance), 0, bd->work_per_step, 0, 0, 0, 0};
    uint32_t plan_units = 0;
    enqueue(w, in, &plan_units);
    /* planning this step's impacts (their projectiles' extents) is this step's first slice */
    cri_damage_charge(&sl.meter, CR_DAMAGE_OP_dent_plan_triangle, plan_units);
    if (plan_units > 0) slice_ran(&sl, plan_units), sl.slices = 0; /* the job's first slice still runs */
    cr_model_stats *st = &w->stats.dent;
    uint32_t put_back = 0; /* jobs put back in a row (their target still takes a fracture's dents over) */
    while (reg->queue_count > 0 && sl.commits < bd->dents_per_step) {
        cr_dent_job *j = &queue[reg->queue_head];
        dent_side sides[2];
        uint32_t n = job_sides(w, j, sides);
        if (act->phase == DENT_IDLE) {
            /* a fracture piece still taking its whole's dents over would have
             * this dent overwritten: the job goes to the back of the queue
             * (fracture_carry.c; the carry is done within some steps), and
             * the jobs behind it go on; once every waiting job was put back
             * this step, the rest wait for the next */
            bool carrying = false;
            for (uint32_t k = 0; k < n; ++k) carrying = carrying || cri_fracture_carry_pending(w, sides[k].rec->body_index1);
            if (carrying) {
                if (++put_back >= reg->queue_count) break;
                cr_dent_job later = *j;
                job_done(w, act);
                queue[(reg->queue_head + reg->queue_count) % bd->queue_capacity] = later;
                reg->queue_count++;
                continue;
            }
            put_back = 0;
            memset(act, 0, sizeof *act);
            if (n == 0) { /* its bodies went away while it waited */
                job_done(w, act);
                continue;
            }
            /* a one-sided hit where the same projectile dented before deepens that dent */
            cr_dent_site *site = n == 1 ? site_hit(&sides[0]) : NULL;
            act->progressive = site != NULL;
            act->site = site ? (uint32_t)(site - sides[0].rec->sites) : 0;
            act->sides = n;
            act->phase = DENT_PLAN;
        } else if (n != act->sides) { /* a body of the job went away mid-way: what was built is dropped */
            job_done(w, act);
            continue;
        }
        bind_dents(w, act, sides, act->phase <= DENT_MAPS ? act->side : n);
        dent_side *s = &sides[act->side];
        if (act->phase == DENT_PLAN) {
            if (!size_side(w, act, s, act->side, &sl)) break; /* the budget is spent: sizing goes on next step */
            if (++act->side == n) act->side = 0, act->phase = DENT_MAPS;
            continue;
        }
        if (act->phase == DENT_MAPS) {
            if (!build_map(w, act, s, act->side, &sl)) break; /* the budget is spent: the map goes on next step */
            act->map_stage = 0;
            if (++act->side == n) act->side = 0, act->phase = DENT_PATCH, act->box_ok = 0, act->box_planned = 0;
            continue;
        }
        if (s->dent.distance <= 0) { /* nothing to patch or commit on this side */
            if (++act->side == n) job_done(w, act);
            else act->phase = DENT_PATCH, act->box_planned = 0;
            continue;
        }
        if (act->phase == DENT_PATCH) {
            if (!act->box_planned) plan_patch(w, act, s), act->box_planned = 1;
            if (act->box_ok) patch_rows(w, act, s, &sl);
            if (act->box_ok && !cri_surface_patch_box_done(&act->box)) break; /* the budget is spent: rows wait */
            act->phase = DENT_COMMIT;
        }
        const cr_asset *view = cr_surface_copy_view(cri_damage_surface_of(w, s->rec->body_index1), (uint8_t *)w);
        if (!slice_fits(&sl, commit_ps(w, s, view, act), view->vertex_count + view->triangle_count)) break;
        if (moves_projectile(s) && cri_damage_commands_room(w) == 0) break; /* the move waits with the dent: counted */
        commit_side(w, act, s, &sl);
        uint32_t latency = (uint32_t)(w->step_count - j->queued_step);
        st->committed++;
        st->latency_sum += latency;
        if (latency > st->latency_max) st->latency_max = latency;
        if (++act->side == n) job_done(w, act);
        else act->phase = DENT_PATCH, act->box_planned = 0;
    }
    st->done = sl.commits;
    st->largest_slice = (uint32_t)((sl.largest_ps + 999u) / 1000u);
    st->work = cri_damage_spent_ns(&sl.meter);
    st->waiting = reg->queue_count;
}

uint32_t cr_world_get_dent_events(const cr_world *w, cr_dent_event *out, uint32_t capacity) {
    if (w == NULL || w->def.damage.dent.body_capacity == 0) return 0;
    const cr_dent_event *ev = CR_AT(w, CR_DAMAGE(w)->dent.events, const cr_dent_event);
    uint32_t n = CR_DAMAGE(w)->dent.event_count;
    if (out != NULL)
        for (uint32_t i = 0; i < n && i < capacity; ++i) out[i] = ev[i];
    return n;
}

bool cri_dent_model_def_of(cr_world *w, uint32_t body_index1, cr_dent_def *out) {
    cr_dent_body *r = record_of(w, body_index1);
    if (r == NULL) return false;
    *out = r->def;
    return true;
}

uint64_t cri_dent_model_scratch_bytes(const cr_world_def *def) { (void)def; return 0; } /* its map scratch is in its region */
uint32_t cri_dent_model_surfaces(const cr_damage_def *d) { return d->dent.body_capacity; }
void cri_dent_model_after_commands(cr_world *w) { (void)w; }
void cri_dent_model_rebind(cr_world *w) { (void)w; }
