/* example_model.c — example-based plasticity (seed 001 §3, equations 3-15)
 * on the damage stage's seam.
 *
 * Per plastic body the model keeps E (example weights, one barycentric row per
 * vertex) and dE (the deformation accumulator) in its region of the block,
 * row_stride bytes each per record. A step:
 *   1. every impact and contact impulse on a plastic body above its yield
 *      threshold beta becomes a wanted displacement (eq. 4), queued in a ring
 *      in arrival order (a full ring counts over_capacity);
 *   2. jobs leave the queue while impulses_per_step and neighbours_per_step
 *      last (the first job of a step always runs, so the queue drains): the
 *      vertex nearest the contact point, its Jacobian (eq. 5, analytic:
 *      geometry/skinning.c), the step along J^T dx of length alpha |dx|
 *      (eq. 8), spread over the vertex and its cooked geodesic neighbours with
 *      phi(d / gamma) (eq. 11-12);
 *   3. every plastic body's restitution follows eq. 15 from |dE|;
 *   4. bodies with pending dE fade it in (eq. 13), while vertices_per_step
 *      lasts (the first body always runs; the next step starts at the body
 *      that waited), and commit it to their surface copy when it matters:
 *      once some vertex may be 1/8 of a grid cell from eq. 3 at its row (a
 *      cooked bound per vertex times its rows' changes) and when the fade
 *      ends, the changed rows are re-skinned (eq. 3), the copy's normals and
 *      samples refreshed, its grid patched where vertices moved, lazily (once
 *      some vertex is half a cell from the surface the grid was last patched
 *      to, and when the fade ends; grid_nodes_per_step), a dynamic body's
 *      frame moved to its shape's centre and its inertia recomputed at
 *      constant mass as often, and a sleeping body woken.
 * Every loop is counted in cr_world_stats.example.work.
 *
 * Decisions the seed leaves open (docs/example-plasticity.md):
 *   - The barycentric clamp is applied to the target E + dE when a change is
 *     added, not to E at every fade step. The fade is then a convex blend of
 *     two points of the simplex, which stays in it without clamping, and the
 *     final E is exactly independent of lambda (eq. 14) — clamping at every
 *     fade step, as the seed does, makes the result depend on lambda.
 *   - A dynamic body's Jacobian is read in its recentred frame: each
 *     example's column less that pose's centre-of-volume shift (computed at
 *     attach), so a pose authored off-centre does not bias the push.
 *   - The Jacobian is taken at the target E + dE, where the vertex is going,
 *     for the same reason: a second hit during the fade sees the same J
 *     whatever lambda is.
 *   - A static or kinematic body has no mass; eq. 4 uses the mass it would
 *     have at its density.
 *   - A row whose pending change is below CR_EXAMPLE_SETTLE in every entry is
 *     applied whole, so the fade ends in finitely many steps.
 */
#include "damage/stage.h"
#include "damage/example_model.h"
#include "geometry/skinning.h"
#include "geometry/mesh_mass.h"
#include "base/hash.h"
#include "base/check.h"

#include <string.h>

#define CR_EXAMPLE_COOKIE 0x6578706cu /* "expl" */
/// A pending weight change below this in every entry of a row is applied at once.
#define CR_EXAMPLE_SETTLE CR_R(1e-3)
/// The default commit tolerance (cr_example_def.draw_lag), in grid cells of
/// the body: the drawn surface is re-skinned once it may be this far from
/// eq. 3 at the current weights.
#define CR_EXAMPLE_COMMIT CR_R(0.125)
/// The default cr_example_def.grid_lag: the grid is patched once some vertex
/// is this many cells from the surface it was last patched to (patch_grid),
/// taking every vertex more than a quarter of that away.
#define CR_EXAMPLE_GRID_DUE CR_R(0.5)
/// m: eq. 8's epsilon on |J^T dx| (the seed's 1e-8 is below the fixed-point step).
#define CR_EXAMPLE_EPSILON CR_R(1e-8)

typedef struct cr_example_body {
    uint32_t body_index1;      ///< 0: free
    uint32_t body_generation;
    uint32_t vertex_count, example_count;
    uint32_t active;           ///< rows of dE not yet faded in
    uint32_t shifted;          ///< the frame followed the centre since the fade began
    cr_example_def def;
    cr_real restitution_rest;  ///< C_r*
    cr_real deformation;       ///< |dE| the last restitution update used
    cr_real lag;               ///< m, bound on how far the surface is from eq. 3 at E (0 after a commit)
    cr_real grid_lag;          ///< m, bound on how far the surface is from the one its grid was patched to
    cr_real mass_lag;          ///< m, bound on how far the surface is from the one the frame and inertia follow
    cr_real pending_sq;        ///< |dE|^2 as the last fade left it (eq. 15 reads it when no impulse came since)
    uint32_t pending_sq_valid; ///< 0 once an impulse changed dE after the fade summed it
    uint32_t pad_;
} cr_example_body;

/// An impulse waiting to become a weight change (body frame).
typedef struct cr_example_job {
    uint32_t body_index1, body_generation;
    cr_vec3 point;             ///< m, where it pushed
    cr_vec3 dx;                ///< m, eq. 4's wanted displacement
} cr_example_job;

cr_example_def cr_default_example_def(void) {
    cr_example_def d;
    memset(&d, 0, sizeof d);
    d.alpha = CR_R(1);
    d.beta = CR_R(50);
    d.gamma = CR_R(0.5);
    d.lambda = CR_R(0.8);
    d.mu = CR_R(0.5);
    d.nu = CR_R(2);
    d.draw_lag = CR_EXAMPLE_COMMIT;
    d.grid_lag = CR_EXAMPLE_GRID_DUE;
    d.cookie = CR_EXAMPLE_COOKIE;
    return d;
}

cr_example_budget cr_default_example_budget(void) {
    cr_example_budget b;
    b.body_capacity = 0; /* no memory for plastic bodies unless the host makes room */
    b.max_vertices = 8192;
    b.max_examples = 8;
    b.queue_capacity = 256;
    b.impulses_per_step = 64;
    b.neighbours_per_step = 1u << 16;
    b.vertices_per_step = 1u << 15;
    b.grid_nodes_per_step = 1u << 16;
    return b;
}

cr_status cri_example_model_check_def(const cr_damage_def *d, cr_field *field) {
    const cr_example_budget *b = &d->example;
    const bool on = b->body_capacity > 0;
    if (b->body_capacity > 4096) *field = CR_FIELD_EXAMPLE_BUDGET_BODY_CAPACITY;
    else if (!on) return CR_OK;
    else if (b->max_vertices == 0 || b->max_vertices > CR_ASSET_MAX_VERTICES) *field = CR_FIELD_EXAMPLE_BUDGET_MAX_VERTICES;
    else if (b->max_examples < 2 || b->max_examples > CR_ASSET_MAX_EXAMPLES) *field = CR_FIELD_EXAMPLE_BUDGET_MAX_EXAMPLES;
    else if (b->queue_capacity == 0 || b->queue_capacity > (1u << 20)) *field = CR_FIELD_EXAMPLE_BUDGET_QUEUE_CAPACITY;
    else if (b->impulses_per_step == 0) *field = CR_FIELD_EXAMPLE_BUDGET_IMPULSES_PER_STEP;
    else if (b->neighbours_per_step == 0) *field = CR_FIELD_EXAMPLE_BUDGET_NEIGHBOURS_PER_STEP;
    else if (b->vertices_per_step == 0) *field = CR_FIELD_EXAMPLE_BUDGET_VERTICES_PER_STEP;
    else if (b->grid_nodes_per_step > (1u << 24)) *field = CR_FIELD_EXAMPLE_BUDGET_GRID_NODES_PER_STEP;
    /* every record's E must be addressable by a 32-bit offset: the rows are what is too large */
    else if ((uint64_t)b->max_vertices * b->max_examples * sizeof(cr_real) * b->body_capacity > (1ull << 30))
        *field = CR_FIELD_EXAMPLE_BUDGET_MAX_VERTICES;
    else return CR_OK;
    return CR_ERR_DEF_INVALID;
}

static uint64_t al16(uint64_t x) { return (x + 15u) & ~(uint64_t)15u; }
static uint64_t row_stride(const cr_example_budget *b) {
    return al16((uint64_t)b->max_vertices * b->max_examples * sizeof(cr_real));
}
/* The grid patch's scratch: the moved-vertex lists and buckets, then per grid node the old value and the splatted field. */
static uint64_t vertex_scratch(const cr_example_budget *b);
static uint64_t scratch_bytes(const cr_example_budget *b) {
    /* the old grid values, then the splatted displacement field (3 per node) */
    return vertex_scratch(b) + 4 * al16((uint64_t)b->grid_nodes_per_step * sizeof(cr_real));
}

/* Per record: the surface the grid was last patched to (max_vertices), then
 * each example pose's centre of volume minus the rest pose's (max_examples),
 * each vertex's reach (cri_skin_example_reach, max_vertices reals), each
 * vertex's lag (how far it may be from eq. 3 at its row, m) and one bit per
 * vertex: its row changed since it was last re-skinned, and another: its row
 * has a change pending (dE not 0), so the fade visits only those. */
static uint64_t reach_offset(const cr_example_budget *b) {
    return al16((uint64_t)b->max_vertices * sizeof(cr_vec3)) + al16((uint64_t)b->max_examples * sizeof(cr_vec3));
}
static uint64_t vlag_offset(const cr_example_budget *b) {
    return reach_offset(b) + al16((uint64_t)b->max_vertices * sizeof(cr_real));
}
static uint64_t dirty_offset(const cr_example_budget *b) {
    return vlag_offset(b) + al16((uint64_t)b->max_vertices * sizeof(cr_real));
}
static uint64_t bits_bytes(const cr_example_budget *b) {
    return al16(((uint64_t)b->max_vertices + 31u) / 32u * sizeof(uint32_t));
}
static uint64_t grid_pos_stride(const cr_example_budget *b) { return dirty_offset(b) + 2 * bits_bytes(b); }

/* Per record: the rest positions and influences four vertices at a time
 * (cr_skin_lanes: the re-skin's vector loops; none in the fixed build). */
static uint64_t lanes_stride(const cr_example_budget *b) {
    return CR_SKIN_VECTOR_LANES ? al16(cri_skin_lanes_bytes(b->max_vertices)) : 0;
}

uint64_t cri_example_model_region_bytes(const cr_world_def *def) {
    const cr_example_budget *b = &def->damage.example;
    if (b->body_capacity == 0) return 0;
    return al16((uint64_t)b->body_capacity * sizeof(cr_example_body)) + 2 * b->body_capacity * row_stride(b) +
           b->body_capacity * grid_pos_stride(b) + b->body_capacity * lanes_stride(b) +
           al16((uint64_t)b->queue_capacity * sizeof(cr_example_job)) + scratch_bytes(b) + 80u;
}

bool cri_example_model_layout(cr_world *w, uint8_t *block) {
    const cr_example_budget *b = &w->def.damage.example;
    cr_example_region *r = &CR_DAMAGE(w)->example;
    memset(r, 0, sizeof *r);
    if (b->body_capacity == 0) return true;
    r->row_stride = (uint32_t)row_stride(b);
    r->records = cri_arena_push(&w->persistent, block, b->body_capacity * (uint32_t)sizeof(cr_example_body), 16);
    r->weights = cri_arena_push(&w->persistent, block, b->body_capacity * r->row_stride, 16);
    r->pending = cri_arena_push(&w->persistent, block, b->body_capacity * r->row_stride, 16);
    r->queue = cri_arena_push(&w->persistent, block, b->queue_capacity * (uint32_t)sizeof(cr_example_job), 16);
    r->scratch = cri_arena_push(&w->persistent, block, (uint32_t)scratch_bytes(b), 16);
    r->grid_pos = cri_arena_push(&w->persistent, block, b->body_capacity * (uint32_t)grid_pos_stride(b), 16);
    r->lanes = cri_arena_push(&w->persistent, block, b->body_capacity * (uint32_t)lanes_stride(b), 16);
    if (r->records != CR_NO_OFFSET) memset(block + r->records, 0, b->body_capacity * sizeof(cr_example_body));
    return r->records != CR_NO_OFFSET && r->weights != CR_NO_OFFSET && r->pending != CR_NO_OFFSET && r->grid_pos != CR_NO_OFFSET &&
           r->queue != CR_NO_OFFSET && r->scratch != CR_NO_OFFSET && r->lanes != CR_NO_OFFSET;
}

static cr_example_body *records(const cr_world *w) { return CR_AT(w, CR_DAMAGE(w)->example.records, cr_example_body); }
static cr_real *weights_of(const cr_world *w, uint32_t rec) {
    return CR_AT(w, CR_DAMAGE(w)->example.weights + rec * CR_DAMAGE(w)->example.row_stride, cr_real);
}
static cr_vec3 *grid_pos_of(const cr_world *w, uint32_t rec) {
    return CR_AT(w, CR_DAMAGE(w)->example.grid_pos + rec * (uint32_t)grid_pos_stride(&w->def.damage.example), cr_vec3);
}
static cr_vec3 *pose_shift_of(const cr_world *w, uint32_t rec) {
    return (cr_vec3 *)((uint8_t *)grid_pos_of(w, rec) + al16((uint64_t)w->def.damage.example.max_vertices * sizeof(cr_vec3)));
}
static cr_real *reach_of(const cr_world *w, uint32_t rec) {
    return (cr_real *)((uint8_t *)grid_pos_of(w, rec) + reach_offset(&w->def.damage.example));
}
static cr_real *vlag_of(const cr_world *w, uint32_t rec) {
    return (cr_real *)((uint8_t *)grid_pos_of(w, rec) + vlag_offset(&w->def.damage.example));
}
static uint32_t *dirty_of(const cr_world *w, uint32_t rec) {
    return (uint32_t *)((uint8_t *)grid_pos_of(w, rec) + dirty_offset(&w->def.damage.example));
}
static uint32_t *pending_bits_of(const cr_world *w, uint32_t rec) {
    return (uint32_t *)((uint8_t *)dirty_of(w, rec) + bits_bytes(&w->def.damage.example));
}
static cr_skin_lanes lanes_of(const cr_world *w, uint32_t rec, uint32_t vertex_count) {
    return cri_skin_lanes_view(CR_AT(w, CR_DAMAGE(w)->example.lanes + rec * (uint32_t)lanes_stride(&w->def.damage.example), uint8_t),
                               vertex_count);
}
static cr_real *pending_of(const cr_world *w, uint32_t rec) {
    return CR_AT(w, CR_DAMAGE(w)->example.pending + rec * CR_DAMAGE(w)->example.row_stride, cr_real);
}

/* The record of a body, or capacity if it has none. */
static uint32_t record_index(const cr_world *w, uint32_t body_index1) {
    uint32_t cap = w->def.damage.example.body_capacity;
    if (body_index1 == 0 || body_index1 > w->body_high ||
        !(cr_world_bodies_c(w)[body_index1 - 1].models & CR_MODEL_EXAMPLE))
        return cap;
    for (uint32_t i = 0; i < cap; ++i)
        if (records(w)[i].body_index1 == body_index1) return i;
    return cap;
}

cr_status cri_example_model_attach(cr_world *w, uint32_t body_index1, const cr_example_def *def) {
    const cr_example_budget *bd = &w->def.damage.example;
    cr_body *b = &cr_world_bodies(w)[body_index1 - 1];
    if (cri_damage_may_share(b->models, CR_MODEL_EXAMPLE) != CR_OK) return CR_ERR_DEF_INVALID;
    if (b->shape.type != CR_SHAPE_MESH) return CR_ERR_DEF_INVALID;
    /* every real: finite first (CR_ERR_NOT_FINITE), then in range (CR_ERR_DEF_INVALID), naming the field.
     * The upper ends keep the products the step forms (nu |dE|, mu dt, alpha |dx|, 1/gamma) inside Q32.32
     * and far from float's overflow; they are orders of magnitude past any material (docs/example-plasticity.md). */
    const struct { cr_real v, lo, hi; bool open_hi; cr_field f; } reals[] = {
        {def->alpha, 0, CR_R(1e6), false, CR_FIELD_EXAMPLE_ALPHA},
        {def->beta, 0, CR_R(1e9), false, CR_FIELD_EXAMPLE_BETA},
        {def->gamma, CR_R(1e-4), CR_R(1048576.0), false, CR_FIELD_EXAMPLE_GAMMA},
        {def->lambda, 0, CR_R(1), true, CR_FIELD_EXAMPLE_LAMBDA},
        {def->mu, 0, CR_R(1e6), false, CR_FIELD_EXAMPLE_MU},
        {def->nu, 0, CR_R(1e6), false, CR_FIELD_EXAMPLE_NU},
        {def->draw_lag, CR_R(0.015625), CR_R(1), false, CR_FIELD_EXAMPLE_DRAW_LAG},
        {def->grid_lag, CR_R(0.0625), CR_R(4), false, CR_FIELD_EXAMPLE_GRID_LAG},
    };
    for (size_t i = 0; i < sizeof reals / sizeof reals[0]; ++i) {
        CR_TRY(cr_check_real(w, reals[i].v, reals[i].f));
        if (reals[i].v < reals[i].lo || reals[i].v > reals[i].hi || (reals[i].open_hi && reals[i].v == reals[i].hi))
            return cri_refuse(w, CR_ERR_DEF_INVALID, reals[i].f);
    }
    const cr_asset *a = cri_damage_rest_asset(w, b->shape.asset);
    /* an asset cooked without geodesic lists (`crumple cook --models` without example) cannot spread an impulse */
    if (a == NULL || a->bone_count == 0 || a->example_count < 2 || a->geodesic_start == NULL) return CR_ERR_DEF_INVALID;
    if (a->vertex_count > bd->max_vertices || a->example_count > bd->max_examples) return CR_ERR_CAPACITY;
    uint32_t pick = bd->body_capacity;
    for (uint32_t i = 0; i < bd->body_capacity && pick == bd->body_capacity; ++i)
        if (records(w)[i].body_index1 == 0) pick = i;
    if (pick == bd->body_capacity) return CR_ERR_CAPACITY;
    cr_surface_copy *copy;
    cr_status s = cri_damage_surface_attach(w, body_index1, &copy);
    if (s != CR_OK) return s;
    cr_example_body *r = &records(w)[pick];
    memset(r, 0, sizeof *r);
    r->body_index1 = body_index1;
    r->body_generation = b->generation;
    r->vertex_count = a->vertex_count;
    r->example_count = a->example_count;
    r->def = *def;
    r->restitution_rest = b->material.restitution;
    /* every vertex starts at the rest pose: E = (1, 0, ...), nothing pending */
    cr_real *e = weights_of(w, pick), *d = pending_of(w, pick);
    uint32_t n = a->vertex_count * a->example_count;
    memset(e, 0, n * sizeof(cr_real));
    memset(d, 0, n * sizeof(cr_real));
    for (uint32_t v = 0; v < a->vertex_count; ++v) e[v * a->example_count] = CR_R(1);
    /* Each example's centre of volume, from the rest pose's: a dynamic body's
     * frame follows its shape's centre (follow_mass), so the Jacobian is read
     * in that frame (apply_job). The grid positions' room holds each pose. */
    cr_vec3 *buf = grid_pos_of(w, pick), *shift = pose_shift_of(w, pick);
    cr_vec3 c0 = cr_v3_zero();
    cr_real row[CR_ASSET_MAX_EXAMPLES];
    for (uint32_t k = 0; k < a->example_count; ++k) {
        for (uint32_t i = 0; i < a->example_count; ++i) row[i] = i == k ? CR_R(1) : 0;
        for (uint32_t v = 0; v < a->vertex_count; ++v) buf[v] = cri_skin_example_point(a, NULL, v, a->positions[v], row);
        cr_mesh_mass mm = cri_mesh_mass_of(buf, a->triangles, a->triangle_count);
        cr_vec3 c = mm.volume > 0 ? mm.centre : cr_v3_zero();
        if (k == 0) c0 = c;
        shift[k] = cr_v3_sub(c, c0);
    }
    /* how far each vertex can move per unit of weight change: the fade
     * re-skins once that adds up to the commit tolerance (fade_and_skin) */
    {
        /* the scratch arena is free between steps */
        uint32_t mark = cr_arena_pos(&w->scratch);
        uint32_t nf = a->bone_count * a->example_count;
        uint32_t foff = cri_arena_push(&w->scratch, (uint8_t *)w, nf * (uint32_t)sizeof(cr_skin_frame), 16);
        uint32_t boff = cri_arena_push(&w->scratch, (uint8_t *)w, 2 * a->bone_count * (uint32_t)sizeof(cr_real), 16);
        cr_real *reach = reach_of(w, pick);
        if (foff == CR_NO_OFFSET || boff == CR_NO_OFFSET) {
            for (uint32_t v = 0; v < a->vertex_count; ++v) reach[v] = -1; /* no bound known: re-skin every step */
        } else {
            cr_skin_frame *frames = CR_AT(w, foff, cr_skin_frame);
            cri_skin_example_frames(a, frames);
            cri_skin_example_reach(a, frames, CR_AT(w, boff, cr_real), reach);
        }
        cri_arena_pop_to(&w->scratch, mark);
        memset(dirty_of(w, pick), 0, (a->vertex_count + 31u) / 32u * sizeof(uint32_t));
        memset(pending_bits_of(w, pick), 0, (a->vertex_count + 31u) / 32u * sizeof(uint32_t));
        memset(vlag_of(w, pick), 0, a->vertex_count * sizeof(cr_real));
    }
    /* the re-skin's rest data four vertices at a time, gathered once */
    cr_skin_lanes lanes = lanes_of(w, pick, a->vertex_count);
    if (CR_SKIN_VECTOR_LANES) cri_skin_lanes_build(a, &lanes);
    /* the grid is the copy's as it is now */
    memcpy(grid_pos_of(w, pick), cr_surface_copy_positions(copy, (uint8_t *)w), a->vertex_count * sizeof(cr_vec3));
    b->models |= CR_MODEL_EXAMPLE;
    return CR_OK;
}

cr_status cr_example_attach(cr_world *w, cr_body_id id, const cr_example_def *def) {
    if (w == NULL || def == NULL) return CR_ERR_NULL_ARGUMENT;
    if (def->cookie != CR_EXAMPLE_COOKIE) return CR_ERR_DEF_NOT_DEFAULTED;
    if (cri_world_body(w, id) == NULL) return CR_ERR_STALE_HANDLE;
    return cri_example_model_attach(w, id.index1, def);
}

void cri_example_model_detach(cr_world *w, uint32_t body_index1) {
    uint32_t i = record_index(w, body_index1);
    if (i == w->def.damage.example.body_capacity) return;
    records(w)[i].body_index1 = 0;
    cr_world_bodies(w)[body_index1 - 1].models &= (uint8_t)~CR_MODEL_EXAMPLE;
}

cr_status cr_example_get(const cr_world *w, cr_body_id id, cr_example_view *out) {
    if (w == NULL || out == NULL) return CR_ERR_NULL_ARGUMENT;
    memset(out, 0, sizeof *out);
    if (cri_world_body_c(w, id) == NULL) return CR_ERR_STALE_HANDLE;
    uint32_t i = record_index(w, id.index1);
    if (i == w->def.damage.example.body_capacity) return CR_ERR_DEF_INVALID;
    const cr_example_body *r = &records(w)[i];
    out->vertex_count = r->vertex_count;
    out->example_count = r->example_count;
    out->weights = weights_of(w, i);
    out->pending = pending_of(w, i);
    out->restitution_rest = r->restitution_rest;
    out->deformation = r->deformation;
    return CR_OK;
}

uint64_t cri_example_model_hash(const cr_world *w, uint64_t h) {
    const cr_example_budget *bd = &w->def.damage.example;
    for (uint32_t i = 0; i < bd->body_capacity; ++i) {
        const cr_example_body *r = &records(w)[i];
        if (r->body_index1 == 0) continue;
        h = cr_hash_u32(h, r->body_index1);
        h = cr_hash_real(h, cr_world_bodies_c(w)[r->body_index1 - 1].material.restitution);
        uint32_t n = r->vertex_count * r->example_count;
        const cr_real *e = weights_of(w, i), *d = pending_of(w, i);
        for (uint32_t k = 0; k < n; ++k) h = cr_hash_real(h, e[k]);
        for (uint32_t k = 0; k < n; ++k) h = cr_hash_real(h, d[k]);
    }
    if (CR_DAMAGE(w)->example.queue_count > 0) h = cr_hash_u32(h, CR_DAMAGE(w)->example.queue_count);
    return h;
}

/* ---- step ---------------------------------------------------------------- */

/* Eq. 4: what an impulse of `impulse` N s along `normal` wants the vertex to
 * move, or false below the yield threshold. */
static bool wanted_move(const cr_body *b, const cr_asset *rest, const cr_example_def *d, cr_vec3 normal,
                        cr_real impulse, cr_real dt, cr_vec3 *dx) {
    cr_real over = impulse - d->beta;
    if (over <= 0) return false;
    cr_real m = b->mass > 0 ? b->mass : cr_mul(b->material.density, rest->volume);
    if (m <= 0) return false;
    *dx = cr_v3_scale(normal, cr_mul(cr_div(dt, m), over));
    return true;
}

static void enqueue(cr_world *w, const cr_damage_input *in, cr_real dt) {
    const cr_example_budget *bd = &w->def.damage.example;
    cr_example_region *reg = &CR_DAMAGE(w)->example;
    cr_example_job *queue = CR_AT(w, reg->queue, cr_example_job);
    const cr_body *bodies = cr_world_bodies_c(w);
    for (uint32_t s = 0; s < in->body_high; ++s) {
        const cr_body *b = &bodies[s];
        if (!b->alive || !(b->models & CR_MODEL_EXAMPLE)) continue;
        uint32_t ri = record_index(w, s + 1);
        if (ri == bd->body_capacity) continue;
        const cr_example_body *r = &records(w)[ri];
        const cr_asset *rest = cri_damage_rest_asset(w, b->shape.asset);
        uint32_t ni = in->impact_start[s + 1] - in->impact_start[s];
        uint32_t nc = in->contact_start[s + 1] - in->contact_start[s];
        for (uint32_t k = 0; k < ni + nc; ++k) {
            const cr_body_impact *imp = k < ni ? &in->impacts[in->impact_start[s] + k] : NULL;
            const cr_body_contact *con = k < ni ? NULL : &in->contacts[in->contact_start[s] + k - ni];
            cr_vec3 dx;
            if (!wanted_move(b, rest, &r->def, imp ? imp->normal : con->normal, imp ? imp->impulse : con->impulse, dt,
                             &dx))
                continue;
            if (reg->queue_count == bd->queue_capacity) {
                w->stats.example.over_capacity++;
                continue;
            }
            cr_example_job *j = &queue[(reg->queue_head + reg->queue_count++) % bd->queue_capacity];
            j->body_index1 = s + 1;
            j->body_generation = b->generation;
            j->point = imp ? imp->point : con->point;
            j->dx = dx;
        }
    }
}

/* Add phi * de to row v's pending change, keeping E + dE on the simplex (the
 * seed's clamp-and-rescale, applied to where the row is going). */
static void add_to_row(cr_real *e, cr_real *d, uint32_t ne, cr_real phi, const cr_real *de) {
    cr_real target[CR_ASSET_MAX_EXAMPLES];
    cr_real sum = 0;
    for (uint32_t k = 0; k < ne; ++k) {
        target[k] = cr_max(e[k] + d[k] + cr_mul(phi, de[k]), 0);
        sum += target[k];
    }
    if (sum <= 0) return;
    cr_real inv = cr_div(CR_R(1), sum);
    for (uint32_t k = 0; k < ne; ++k) d[k] = cr_min(cr_mul(target[k], inv), CR_R(1)) - e[k];
}

/* Eq. 12 */
static cr_real kernel(cr_real x) {
    if (x >= CR_R(1)) return 0;
    return cr_mul(cr_mul(x, x), 2 * x - CR_R(3)) + CR_R(1);
}

/* Eq. 5-8 at the vertex nearest the job's point, then eq. 11 over its
 * geodesic neighbours. Returns the neighbours visited (the vertex scan is
 * added to *scan). */
static uint32_t apply_job(cr_world *w, uint32_t ri, const cr_example_job *j, uint32_t *scan) {
    cr_example_body *r = &records(w)[ri];
    const cr_body *b = &cr_world_bodies_c(w)[r->body_index1 - 1];
    const cr_asset *rest = cri_damage_rest_asset(w, b->shape.asset);
    const cr_asset *now = cr_world_asset(w, b->shape.asset);
    uint32_t ne = r->example_count, nearest = 0;
    cr_real best = -1;
    for (uint32_t v = 0; v < now->vertex_count; ++v) {
        cr_real d2 = cr_v3_len_sq(cr_v3_sub(now->positions[v], j->point));
        if (best < 0 || d2 < best) best = d2, nearest = v;
    }
    *scan += now->vertex_count;
    cr_real *e = weights_of(w, ri), *d = pending_of(w, ri);
    cr_real at[CR_ASSET_MAX_EXAMPLES], de[CR_ASSET_MAX_EXAMPLES];
    cr_vec3 cols[CR_ASSET_MAX_EXAMPLES];
    for (uint32_t k = 0; k < ne; ++k) at[k] = e[nearest * ne + k] + d[nearest * ne + k];
    cri_skin_example_jacobian(rest, nearest, rest->positions[nearest], at, cols);
    /* A dynamic body's frame sits at its deformed shape's centre (follow_mass):
     * what a vertex does toward example k in that frame is its move in the
     * pose's own coordinates less the pose's centre shift. Without this, a
     * pose authored with a global offset (a front crash moving the car's
     * centre 16 cm) reads as a push in that direction everywhere on the body. */
    if (b->type == CR_BODY_DYNAMIC && b->mass > 0) {
        const cr_vec3 *shift = pose_shift_of(w, ri);
        for (uint32_t k = 0; k < ne; ++k) cols[k] = cr_v3_sub(cols[k], shift[k]);
    }
    cr_real g2 = 0;
    for (uint32_t k = 0; k < ne; ++k) {
        de[k] = cr_v3_dot(cols[k], j->dx); /* eq. 6: J^T dx */
        g2 += cr_mul(de[k], de[k]);
    }
    cr_real g = cr_sqrt(g2);
    if (g <= CR_EXAMPLE_EPSILON) return 1;
    cr_real step = cr_div(cr_mul(r->def.alpha, cr_v3_len(j->dx)), g); /* eq. 8 */
    for (uint32_t k = 0; k < ne; ++k) de[k] = cr_mul(de[k], step);
    uint32_t *pend = pending_bits_of(w, ri);
    add_to_row(&e[nearest * ne], &d[nearest * ne], ne, CR_R(1), de);
    pend[nearest >> 5] |= 1u << (nearest & 31u);
    uint32_t visited = 1;
    if (rest->geodesic_start != NULL) {
        /* A compact asset has one list per patch, from its centre: the
         * distance from `nearest` is read as the centre's, off by at most
         * the patch radius (docs/example-plasticity.md). The list holds the
         * centre, which may be `nearest` itself, already given weight 1. */
        uint32_t list = rest->geodesic_patch != NULL ? rest->geodesic_patch[nearest] : nearest;
        cr_real inv_gamma = cr_div(CR_R(1), r->def.gamma);
        for (uint32_t k = rest->geodesic_start[list]; k < rest->geodesic_start[list + 1]; ++k) {
            ++visited;
            cr_real phi = kernel(cr_mul(rest->geodesic_distance[k], inv_gamma));
            if (phi <= 0) break; /* the list is nearest first */
            uint32_t v = rest->geodesic_vertex[k];
            if (v != nearest) add_to_row(&e[v * ne], &d[v * ne], ne, phi, de), pend[v >> 5] |= 1u << (v & 31u);
        }
    }
    r->active = 1;
    r->pending_sq_valid = 0;
    return visited;
}

/* Eq. 15 for one body from its pending change. */
static uint32_t restitution(cr_world *w, uint32_t ri, cr_real dt) {
    cr_example_body *r = &records(w)[ri];
    cr_body *b = &cr_world_bodies(w)[r->body_index1 - 1];
    cr_real s = 0;
    uint32_t n = r->active && !r->pending_sq_valid ? r->vertex_count * r->example_count : 0;
    const cr_real *d = pending_of(w, ri);
    for (uint32_t k = 0; k < n; ++k) s += cr_mul(d[k], d[k]);
    /* the last fade's sum: the same terms in the same order (the rows it skipped add +0) */
    if (r->active && r->pending_sq_valid) s = r->pending_sq;
    r->deformation = cr_sqrt(s);
    /* nothing pending: the impact term is C_r* itself (not exp(0)'s last bit) */
    cr_real impact = r->deformation == 0 ? r->restitution_rest
                                         : cr_mul(cr_exp(-cr_mul(r->def.nu, r->deformation)), r->restitution_rest);
    cr_real c = cr_min(r->restitution_rest, b->material.restitution + cr_mul(r->def.mu, dt));
    b->material.restitution = cr_min(c, impact);
    return n;
}

/* The grid patch's displacement field: the re-skin's vertex moves, blended
 * with the compact weights (1 - d^2/R^2)^2 and divided by at least 1, so it
 * is the local mean near the surface and fades smoothly to 0 where no moved
 * vertex is within R. The moved vertices are bucketed in cells at least R
 * wide, so a grid node reads the 27 cells around it, not every vertex. */
typedef struct skin_move {
    const cr_vec3 *old, *now;
    const uint32_t *sorted;  ///< moved vertices, by cell
    const uint32_t *start;   ///< [cells + 1] each cell's first entry in sorted
    const uint32_t *near;    ///< [cells] moved vertices in the cell and its 26 neighbours: 0 = the node reads nothing
    cr_vec3 lo;              ///< m, corner of cell (0, 0, 0)
    cr_real inv_cell;        ///< 1/m
    int32_t dims[3];
    cr_real inv_r2;          ///< 1/m^2
} skin_move;

static int32_t clampi(int32_t v, int32_t lo, int32_t hi) { return v < lo ? lo : (v > hi ? hi : v); }

static uint32_t cell_of(const skin_move *m, cr_vec3 p, int32_t c[3]) {
    c[0] = clampi(cr_floor_int(cr_mul(p.x - m->lo.x, m->inv_cell)), 0, m->dims[0] - 1);
    c[1] = clampi(cr_floor_int(cr_mul(p.y - m->lo.y, m->inv_cell)), 0, m->dims[1] - 1);
    c[2] = clampi(cr_floor_int(cr_mul(p.z - m->lo.z, m->inv_cell)), 0, m->dims[2] - 1);
    return ((uint32_t)c[2] * (uint32_t)m->dims[1] + (uint32_t)c[1]) * (uint32_t)m->dims[0] + (uint32_t)c[0];
}

static cr_vec3 move_at(const void *ctx, cr_vec3 p) {
    const skin_move *m = (const skin_move *)ctx;
    cr_vec3 sum = cr_v3_zero();
    cr_real wsum = 0;
    int32_t lo[3], hi[3], c[3];
    const cr_real at[3] = {p.x - m->lo.x, p.y - m->lo.y, p.z - m->lo.z};
    for (int k = 0; k < 3; ++k) {
        int32_t ck = cr_floor_int(cr_mul(at[k], m->inv_cell));
        if (ck < -1 || ck > m->dims[k]) return sum; /* more than a cell outside: no moved vertex within R */
        lo[k] = clampi(ck - 1, 0, m->dims[k] - 1), hi[k] = clampi(ck + 1, 0, m->dims[k] - 1);
        c[k] = clampi(ck, 0, m->dims[k] - 1);
    }
    /* most nodes of a patch box are far from every moved vertex: one look-up says so
     * (the cells read below are neighbours of c, so the sum would be exactly zero) */
    if (m->near[((uint32_t)c[2] * (uint32_t)m->dims[1] + (uint32_t)c[1]) * (uint32_t)m->dims[0] + (uint32_t)c[0]] == 0)
        return sum;
    for (c[2] = lo[2]; c[2] <= hi[2]; ++c[2])
        for (c[1] = lo[1]; c[1] <= hi[1]; ++c[1])
            for (c[0] = lo[0]; c[0] <= hi[0]; ++c[0]) {
                uint32_t cell = ((uint32_t)c[2] * (uint32_t)m->dims[1] + (uint32_t)c[1]) * (uint32_t)m->dims[0] + (uint32_t)c[0];
                for (uint32_t k = m->start[cell]; k < m->start[cell + 1]; ++k) {
                    uint32_t v = m->sorted[k];
                    cr_real s = cr_mul(cr_v3_len_sq(cr_v3_sub(p, m->old[v])), m->inv_r2);
                    if (s >= CR_R(1)) continue;
                    cr_real w = cr_sq(CR_R(1) - s);
                    sum = cr_v3_mad(sum, w, cr_v3_sub(m->now[v], m->old[v]));
                    wsum += w;
                }
            }
    return wsum > CR_R(1) ? cr_v3_scale(sum, cr_div(CR_R(1), wsum)) : sum;
}

/* The fast path of the same field: the moves splatted once onto the body's
 * grid nodes around the moved vertices, with the separable kernel
 * (1 - x^2)^2 (1 - y^2)^2 (1 - z^2)^2 (x, y, z the offsets over R), divided by
 * max(sum w, 1) as above, and read back trilinearly. The patch reads the field
 * at each node and at its pre-image a few times (the fixed-point inverse):
 * scanning the moved vertices near each of those points was 80 % of the
 * stage; a splat visits each (vertex, node) pair once, with three products. */
/// nodes along one axis a splat may cover (2 R / cell + 1); more falls back to the scan
#define CR_EXAMPLE_SPLAT_SPAN 48

/* Splat the moves of moved[0..n) (old -> now) onto a box of the view's grid
 * nodes; false (nothing written) if the box is larger than `capacity` nodes
 * or R spans more than CR_EXAMPLE_SPLAT_SPAN nodes. `field` holds 3 capacity
 * reals, `wsum` capacity reals; `span` (NULL, or 2 capacity / 3 int32s)
 * gets each row's reached x range. Adds the pairs visited to *work. The
 * components are stored apart (x, y, z arrays) so the row loop runs in
 * vector lanes; each node sums its vertices in the same order either way. */
static bool splat_field(cr_patch_field *m, cr_real *field, cr_real *wsum, int32_t *span, uint32_t capacity,
                        const cr_asset *view, const cr_vec3 *old, const cr_vec3 *now, const uint32_t *moved, uint32_t n,
                        cr_vec3 lo, cr_vec3 hi, cr_real radius, uint32_t *work) {
    const cr_real rc = cr_mul(radius, view->sdf_inv_cell); /* R in cells */
    if (cr_floor_int(2 * rc) + 2 > CR_EXAMPLE_SPLAT_SPAN) return false;
    const cr_real inv_rc = cr_div(CR_R(1), rc);
    const cr_real l[3] = {lo.x - view->sdf_origin.x, lo.y - view->sdf_origin.y, lo.z - view->sdf_origin.z};
    const cr_real h[3] = {hi.x - view->sdf_origin.x, hi.y - view->sdf_origin.y, hi.z - view->sdf_origin.z};
    int32_t b0[3];
    uint64_t nodes = 1;
    for (int k = 0; k < 3; ++k) {
        /* a zero layer each side, so the trilinear read fades to 0 at the box's edge */
        b0[k] = cr_floor_int(cr_mul(l[k], view->sdf_inv_cell) - rc) - 1;
        int32_t b1 = cr_floor_int(cr_mul(h[k], view->sdf_inv_cell) + rc) + 2;
        m->first[k] = b0[k];
        m->dims[k] = b1 - b0[k] + 1;
        nodes *= (uint64_t)m->dims[k];
    }
    if (nodes > capacity || m->dims[0] < 3) return false;
    m->origin = cr_v3(view->sdf_origin.x + cr_mul(cr_from_int(b0[0]), view->sdf_cell),
                      view->sdf_origin.y + cr_mul(cr_from_int(b0[1]), view->sdf_cell),
                      view->sdf_origin.z + cr_mul(cr_from_int(b0[2]), view->sdf_cell));
    m->inv_cell = view->sdf_inv_cell;
    m->f = field;
    m->nodes = (uint32_t)nodes;
    m->span = span;
    const int32_t sy = m->dims[0], sz = m->dims[0] * m->dims[1], rows = m->dims[1] * m->dims[2];
    cr_real *restrict fx = field, *restrict fy = field + nodes, *restrict fz = field + 2 * nodes;
    /* with spans, a row is cleared when the splat first reaches it (most of
     * the box never is: clearing all of it was a sizeable share of a patch) */
    if (span != NULL) {
        for (int32_t r = 0; r < rows; ++r) span[2 * r] = m->dims[0], span[2 * r + 1] = -1;
    } else {
        memset(field, 0, (size_t)nodes * 3 * sizeof(cr_real));
        memset(wsum, 0, (size_t)nodes * sizeof(cr_real));
    }
    uint32_t pairs = 0;
    for (uint32_t k = 0; k < n; ++k) {
        uint32_t v = moved[k];
        cr_vec3 d = cr_v3_sub(now[v], old[v]);
        const cr_real u[3] = {cr_mul(old[v].x - m->origin.x, m->inv_cell), cr_mul(old[v].y - m->origin.y, m->inv_cell),
                              cr_mul(old[v].z - m->origin.z, m->inv_cell)};
        int32_t a[3], cnt[3];
        cr_real wk[3][CR_EXAMPLE_SPLAT_SPAN];
        for (int ax = 0; ax < 3; ++ax) {
            a[ax] = cr_floor_int(u[ax] - rc) + 1;
            cnt[ax] = 0;
            for (int32_t j = a[ax]; cnt[ax] < CR_EXAMPLE_SPLAT_SPAN; ++j) {
                cr_real x = cr_mul(cr_from_int(j) - u[ax], inv_rc);
                if (x >= CR_R(1)) break;
                wk[ax][cnt[ax]++] = x <= CR_R(-1) ? 0 : cr_sq(CR_R(1) - cr_sq(x));
            }
        }
        for (int32_t z = 0; z < cnt[2]; ++z) {
            if (wk[2][z] == 0) continue;
            for (int32_t y = 0; y < cnt[1]; ++y) {
                cr_real wzy = cr_mul(wk[2][z], wk[1][y]);
                if (wzy == 0) continue;
                int32_t row = (a[0]) + (a[1] + y) * sy + (a[2] + z) * sz;
                if (span != NULL) {
                    int32_t *s = &span[2 * ((a[1] + y) + (a[2] + z) * m->dims[1])];
                    if (s[0] > s[1]) { /* first reached: clear the row */
                        const int32_t r0 = row - a[0];
                        memset(fx + r0, 0, (size_t)sy * sizeof(cr_real)), memset(fy + r0, 0, (size_t)sy * sizeof(cr_real));
                        memset(fz + r0, 0, (size_t)sy * sizeof(cr_real)), memset(wsum + r0, 0, (size_t)sy * sizeof(cr_real));
                    }
                    if (a[0] < s[0]) s[0] = a[0];
                    if (a[0] + cnt[0] - 1 > s[1]) s[1] = a[0] + cnt[0] - 1;
                }
                for (int32_t x = 0; x < cnt[0]; ++x) {
                    cr_real wgt = cr_mul(wzy, wk[0][x]);
                    fx[row + x] += cr_mul(wgt, d.x), fy[row + x] += cr_mul(wgt, d.y), fz[row + x] += cr_mul(wgt, d.z);
                    wsum[row + x] += wgt;
                }
            }
        }
        pairs += (uint32_t)(cnt[0] * cnt[1] * cnt[2]);
    }
    for (int32_t r = 0; r < rows; ++r) {
        const int32_t x0 = span != NULL ? span[2 * r] : 0, x1 = span != NULL ? span[2 * r + 1] : m->dims[0] - 1;
        for (int32_t i = r * sy + x0; i <= r * sy + x1; ++i)
            if (wsum[i] > CR_R(1)) {
                cr_real inv = cr_div(CR_R(1), wsum[i]);
                fx[i] = cr_mul(fx[i], inv), fy[i] = cr_mul(fy[i], inv), fz[i] = cr_mul(fz[i], inv);
            }
    }
    *work += pairs + (uint32_t)nodes;
    return true;
}

/* The patch scratch, after the old positions: moved list, sorted list, cell starts, then the grid values. */
static uint64_t vertex_scratch(const cr_example_budget *b) {
    return 3 * al16(((uint64_t)b->max_vertices + 1) * sizeof(uint32_t));
}

/* Patch the body's distance grid around the vertices that moved from old to
 * now, when it is due; returns the work. *left: after it, how far any vertex
 * may be from the surface the grid was patched to (m). */
static uint32_t patch_grid(cr_world *w, cr_surface_copy *copy, const cr_asset *rest, cr_vec3 *old,
                           const cr_vec3 *now, uint32_t count, bool flush, cr_real due_cells, cr_real *left) {
    const cr_example_budget *bd = &w->def.damage.example;
    *left = 0;
    if (bd->grid_nodes_per_step == 0) return 0;
    uint32_t base = CR_DAMAGE(w)->example.scratch;
    uint32_t list_bytes = (uint32_t)al16(((uint64_t)bd->max_vertices + 1) * sizeof(uint32_t));
    uint32_t *moved = CR_AT(w, base, uint32_t), *sorted = CR_AT(w, base + list_bytes, uint32_t);
    uint32_t *start = CR_AT(w, base + 2 * list_bytes, uint32_t);
    uint32_t n = 0;
    cr_vec3 lo = cr_v3_zero(), hi = cr_v3_zero();
    cr_real move2 = 0;
    /* Lazily: `old` is the surface the grid was last patched to, and the grid
     * is patched only when some vertex is `due_cells` of a cell or more away
     * from it (the def's grid_lag; or the body's fade has just ended: `flush`).
     * A fade moves the whole body a little every step; patching every node
     * around it every step was most of the stage's time. The patch then takes
     * every vertex more than a quarter of that away (1/256 of a cell on a
     * flush, where the frame shift's rounding is what is left), so the grid
     * lags the mesh by less than `due_cells` while a body moves and by
     * nothing that adds up (docs/example-plasticity.md, "Grid patch"). */
    const cr_real skip = cr_mul(rest->sdf_cell, flush ? CR_R(0.00390625) : cr_mul(due_cells, CR_R(0.25)));
    const cr_real due2 = cr_sq(cr_mul(rest->sdf_cell, due_cells)), skip2 = cr_sq(skip);
    for (uint32_t v = 0; v < count; ++v) {
        cr_vec3 d = cr_v3_sub(now[v], old[v]);
        cr_real d2 = cr_v3_len_sq(d);
        if (d2 <= skip2) continue;
        if (n == 0) lo = old[v], hi = old[v];
        moved[n++] = v;
        lo = cr_v3_min(lo, old[v]), hi = cr_v3_max(hi, old[v]);
        move2 = cr_max(move2, d2);
    }
    *left = n == 0 ? skip : cr_sqrt(move2);
    if (n == 0 || (!flush && move2 < due2)) return count;
    *left = skip; /* every vertex further than that is taken */
    /* support: one and a half mean edges (equilateral triangles of the mean area), two cells at least */
    cr_real edge = cr_sqrt(cr_mul(cr_div(rest->surface_area, cr_from_int((int32_t)rest->triangle_count)), CR_R(2.309401)));
    cr_real radius = cr_max(cr_mul(CR_R(1.5), edge), 2 * rest->sdf_cell);
    cr_real half = cr_max(hi.x - lo.x, cr_max(hi.y - lo.y, hi.z - lo.z));
    cr_real reach = cr_half(half) + radius;
    cr_real *saved = CR_AT(w, CR_DAMAGE(w)->example.scratch + (uint32_t)vertex_scratch(bd), cr_real);
    cr_real *field = saved + al16((uint64_t)bd->grid_nodes_per_step * sizeof(cr_real)) / sizeof(cr_real);
    const cr_asset *view = cr_surface_copy_view(copy, (uint8_t *)w);
    cr_patch_field sf;
    uint32_t splat_work = 0;
    /* each row's reached x range, in this step's scratch until the patch is
     * done (without room every row is scanned whole, the same values) */
    const uint32_t mark = cr_arena_pos(&w->scratch);
    uint32_t soff = cri_arena_push_uninit(&w->scratch, (bd->grid_nodes_per_step / 3u + 1u) * 2u * (uint32_t)sizeof(int32_t), 16);
    int32_t *span = soff == CR_NO_OFFSET ? NULL : CR_AT(w, soff, int32_t);
    const bool splatted = splat_field(&sf, field, saved, span, bd->grid_nodes_per_step, view, old, now, moved, n, lo,
                                      hi, radius, &splat_work);
    if (splatted) {
        cr_real max_move = cr_sqrt(move2);
        cr_surface_patch p = cri_surface_copy_patch_field(copy, (uint8_t *)w, &sf, max_move, saved, bd->grid_nodes_per_step);
        if (p.shrunk) /* the box and its margin are more than the budget: the core of the usual patch */
            p = cri_surface_copy_patch(copy, (uint8_t *)w, cr_v3_scale(cr_v3_add(lo, hi), CR_R(0.5)), reach,
                                       max_move + radius, cri_patch_field_at, &sf, bd->grid_nodes_per_step, saved,
                                       bd->grid_nodes_per_step);
        if (p.shrunk) w->stats.example.shrunk++;
        for (uint32_t k = 0; k < n; ++k) old[moved[k]] = now[moved[k]];
        cri_arena_pop_to(&w->scratch, mark);
        return count + 2 * n + splat_work + p.nodes;
    }
    cri_arena_pop_to(&w->scratch, mark);
    /* buckets at least R wide, no more of them than there are vertices */
    skin_move m;
    m.old = old, m.now = now, m.sorted = sorted, m.start = start, m.lo = lo;
    m.inv_r2 = cr_div(CR_R(1), cr_sq(radius));
    cr_real cell = radius;
    const cr_real ext[3] = {hi.x - lo.x, hi.y - lo.y, hi.z - lo.z};
    for (;;) {
        m.inv_cell = cr_div(CR_R(1), cell);
        uint64_t cells = 1;
        for (int k = 0; k < 3; ++k) {
            m.dims[k] = cr_floor_int(cr_mul(ext[k], m.inv_cell)) + 1;
            cells *= (uint64_t)m.dims[k];
        }
        if (cells <= bd->max_vertices) break;
        cell = 2 * cell;
    }
    uint32_t cells = (uint32_t)m.dims[0] * (uint32_t)m.dims[1] * (uint32_t)m.dims[2];
    memset(start, 0, (cells + 1) * sizeof(uint32_t));
    int32_t c[3];
    for (uint32_t k = 0; k < n; ++k) start[cell_of(&m, old[moved[k]], c) + 1]++;
    for (uint32_t k = 0; k < cells; ++k) start[k + 1] += start[k];
    for (uint32_t k = 0; k < n; ++k) sorted[start[cell_of(&m, old[moved[k]], c)]++] = moved[k];
    for (uint32_t k = cells; k > 0; --k) start[k] = start[k - 1]; /* the fill moved each start to the next cell's */
    start[0] = 0;
    /* the moved list is done with: it becomes each cell's count of moved vertices in its 27 cells */
    uint32_t *near = moved;
    for (c[2] = 0; c[2] < m.dims[2]; ++c[2])
        for (c[1] = 0; c[1] < m.dims[1]; ++c[1])
            for (c[0] = 0; c[0] < m.dims[0]; ++c[0]) {
                uint32_t count = 0;
                int32_t q[3];
                for (q[2] = clampi(c[2] - 1, 0, m.dims[2] - 1); q[2] <= clampi(c[2] + 1, 0, m.dims[2] - 1); ++q[2])
                    for (q[1] = clampi(c[1] - 1, 0, m.dims[1] - 1); q[1] <= clampi(c[1] + 1, 0, m.dims[1] - 1); ++q[1])
                        for (q[0] = clampi(c[0] - 1, 0, m.dims[0] - 1); q[0] <= clampi(c[0] + 1, 0, m.dims[0] - 1); ++q[0]) {
                            uint32_t cell = ((uint32_t)q[2] * (uint32_t)m.dims[1] + (uint32_t)q[1]) * (uint32_t)m.dims[0] + (uint32_t)q[0];
                            count += start[cell + 1] - start[cell];
                        }
                near[((uint32_t)c[2] * (uint32_t)m.dims[1] + (uint32_t)c[1]) * (uint32_t)m.dims[0] + (uint32_t)c[0]] = count;
            }
    m.near = near;
    cr_surface_patch p = cri_surface_copy_patch(copy, (uint8_t *)w, cr_v3_scale(cr_v3_add(lo, hi), CR_R(0.5)), reach,
                                               cr_sqrt(move2) + radius, move_at, &m, bd->grid_nodes_per_step, saved,
                                               bd->grid_nodes_per_step);
    if (p.shrunk) w->stats.example.shrunk++;
    for (uint32_t k = 0; k < n; ++k) old[sorted[k]] = now[sorted[k]]; /* sorted holds the moved vertices */
    /* the moved list and its buckets, the nodes read, and the neighbours each node's blend visits (a few per node) */
    return count + 3 * n + 28 * cells + 8 * p.nodes;
}

/* Seed 001 §3.2: "we translate and rotate x so the local center of mass is
 * at the origin ... and update the moment of inertia". The mass stays. The
 * body frame's origin moves to the deformed shape's centre of volume
 * (cri_surface_copy_shift: positions, grid origin, mesh frame), and the body
 * moves the other way in the world, so no vertex jumps: its pose by R c, its
 * velocity to the new centre's (v + w x R c), the anchors of its joints, its
 * waiting impulses and its last finite pose with it. The inertia is the
 * deformed surface's diagonal in the body's axes about that centre; the axes
 * are not turned to the new principal axes (that would resample the grid:
 * docs/example-plasticity.md). Returns the work. */
static uint32_t follow_mass(cr_world *w, cr_body *b, cr_surface_copy *copy, const cr_asset *rest, cr_vec3 *grid_pos,
                            uint32_t *shifted) {
    if (b->type != CR_BODY_DYNAMIC || b->mass <= 0) return 0;
    uint8_t *block = (uint8_t *)w;
    const cr_vec3 *pos = cr_surface_copy_positions(copy, block);
    cr_mesh_mass mm = cri_mesh_mass_of(pos, rest->triangles, rest->triangle_count);
    uint32_t work = rest->triangle_count;
    if (mm.volume <= 0) return work;
    cr_vec3 inertia = cr_v3_scale(mm.inertia, cr_div(b->mass, mm.volume));
    if (inertia.x > 0 && inertia.y > 0 && inertia.z > 0) {
        b->inertia = inertia;
        b->inv_inertia = cr_v3(cr_div(CR_R(1), inertia.x), cr_div(CR_R(1), inertia.y), cr_div(CR_R(1), inertia.z));
    }
    const cr_vec3 c = mm.centre;
    if (c.x == 0 && c.y == 0 && c.z == 0) return work;
    *shifted = 1;
    work += cri_surface_copy_shift(copy, block, rest, c);
    for (uint32_t v = 0; v < rest->vertex_count; ++v) grid_pos[v] = cr_v3_sub(grid_pos[v], c); /* the grid moved with the frame */
    cri_surface_copy_mark(copy, 0, rest->vertex_count - 1); /* every vertex moved in the body frame */
    const uint32_t self = (uint32_t)(b - cr_world_bodies(w)) + 1;
    cr_vec3 rc = cr_quat_rotate(b->xf.q, c);
    b->xf.p = cr_v3_add(b->xf.p, rc);
    b->v = cr_v3_add(b->v, cr_v3_cross(b->w, rc));
    b->finite_p = cr_v3_add(b->finite_p, cr_quat_rotate(b->finite_q, c));
    cr_joint *j = cr_world_joints(w);
    for (uint32_t i = 0; i < w->joint_high; ++i) {
        if (!j[i].alive) continue;
        if (j[i].a == self) j[i].local_anchor_a = cr_v3_sub(j[i].local_anchor_a, c);
        if (j[i].b == self) j[i].local_anchor_b = cr_v3_sub(j[i].local_anchor_b, c);
    }
    const cr_example_budget *bd = &w->def.damage.example;
    cr_example_region *reg = &CR_DAMAGE(w)->example;
    cr_example_job *queue = CR_AT(w, reg->queue, cr_example_job);
    for (uint32_t k = 0; k < reg->queue_count; ++k) {
        cr_example_job *job = &queue[(reg->queue_head + k) % bd->queue_capacity];
        if (job->body_index1 == self) job->point = cr_v3_sub(job->point, c);
    }
    return work + w->joint_high + reg->queue_count;
}

/* Eq. 3 into the surface copy for the rows whose bit is set in `dirty` and
 * whose lag is at least `least` (every row when dirty is NULL), clearing
 * their bits and lags; the copy's range of moved vertices in *first, *last,
 * and each moved vertex's bit set in `moved` (if not NULL). Returns the
 * vertices re-skinned. */
static uint32_t reskin(cr_world *w, uint32_t ri, cr_surface_copy *copy, const cr_asset *rest, uint32_t *dirty,
                       cr_real *vlag, cr_real least, uint32_t *first, uint32_t *last, uint32_t *moved) {
    const cr_example_body *r = &records(w)[ri];
    uint8_t *block = (uint8_t *)w;
    cr_vec3 *pos = cr_surface_copy_positions(copy, block);
    const cr_real *e = weights_of(w, ri);
    /* the bones' example frames once for the body, in this step's scratch;
     * without room each vertex builds the ones it needs (the same numbers) */
    uint32_t nf = rest->bone_count * rest->example_count;
    uint32_t foff = cri_arena_push(&w->scratch, block, nf * (uint32_t)sizeof(cr_skin_frame), 16);
    cr_skin_frame *frames = foff == CR_NO_OFFSET ? NULL : CR_AT(w, foff, cr_skin_frame);
    if (frames != NULL) cri_skin_example_frames(rest, frames);
    /* and each bone's blend once per run of equal weight rows (same bits as without) */
    uint32_t boff = frames == NULL ? CR_NO_OFFSET
                                   : cri_arena_push(&w->scratch, block, rest->bone_count * (uint32_t)sizeof(cr_skin_blend), 16);
    cr_skin_cache cache;
    cr_skin_lanes lanes = lanes_of(w, ri, r->vertex_count);
    if (boff != CR_NO_OFFSET) {
        cri_skin_cache_init(&cache, CR_AT(w, boff, cr_skin_blend), rest);
        cache.lanes = CR_SKIN_VECTOR_LANES ? &lanes : NULL; /* four vertices at a time where their influences agree */
    }
    /* the marked rows in runs of consecutive vertices (cri_skin_example_points:
     * one call per run, the same bits as one per vertex) */
    enum { RUN = 16 }; /* 16 vectors on the stack (384 bytes in fixed point): small targets have small stacks */
    cr_vec3 skinned[RUN];
    uint32_t run = 0, count = 0; /* the run is [v - run, v) */
    for (uint32_t v = 0; v <= r->vertex_count; ++v) {
        bool changed = false;
        if (v < r->vertex_count) {
            changed = dirty == NULL || ((dirty[v >> 5] >> (v & 31u) & 1u) && vlag[v] >= least);
            if (changed && dirty != NULL) dirty[v >> 5] &= ~(1u << (v & 31u)), vlag[v] = 0;
            if (changed && boff == CR_NO_OFFSET) {
                /* no scratch for the blends: one vertex at a time */
                skinned[0] = cri_skin_example_point(rest, frames, v, rest->positions[v], &e[v * r->example_count]);
                run = 1;
            } else if (changed) {
                ++run;
            }
        }
        /* re-skin the run when it ends, fills the buffer, or is the one uncached vertex */
        bool flush = run > 0 && (!changed || run == RUN || v + 1 > r->vertex_count || boff == CR_NO_OFFSET);
        if (!flush) continue;
        uint32_t end = changed ? v + 1 : v, start = end - run;
        if (boff != CR_NO_OFFSET) cri_skin_example_points(rest, frames, &cache, start, end, e, skinned);
        count += run;
        for (uint32_t i = start; i < end; ++i) {
            cr_vec3 x = cr_v3_sub(skinned[i - start], copy->frame_shift);
            if (x.x == pos[i].x && x.y == pos[i].y && x.z == pos[i].z) continue;
            pos[i] = x;
            if (moved != NULL) moved[i >> 5] |= 1u << (i & 31u);
            if (i < *first) *first = i;
            *last = i; /* i only grows */
        }
        run = 0;
    }
    return count;
}

/* The index of x's lowest set bit (x != 0), by de Bruijn multiplication. */
static uint32_t lowest_bit(uint32_t x) {
    static const uint8_t table[32] = {0,  1,  28, 2,  29, 14, 24, 3, 30, 22, 20, 15, 25, 17, 4,  8,
                                      31, 27, 13, 23, 21, 19, 16, 7, 26, 12, 18, 6,  11, 5,  10, 9};
    return table[((x & (0u - x)) * 0x077cb531u) >> 27];
}

/* Eq. 13 for one body, and eq. 3 when it is due; returns the work.
 *
 * Commits: the fade moves E every step, but the surface (re-skin, grid patch,
 * centre of mass, normals) follows only when some vertex may be more than the
 * commit tolerance from eq. 3 at its current row, and when the fade ends. A
 * vertex moves at most reach_v |dE_v|_1 for a change dE_v of its row
 * (cri_skin_example_reach), so each vertex's lag, the sum of those since it
 * was last re-skinned, bounds how far it is drawn from where a re-skin would
 * put it. A commit re-skins the vertices whose lag is a quarter of the
 * tolerance or more (the rest wait, within that quarter); at the fade's end
 * every row changed since it was last re-skinned is, so the final surface is
 * eq. 3's exactly (docs/example-plasticity.md, "Commits"). */
static uint32_t fade_and_skin(cr_world *w, uint32_t ri) {
    cr_example_body *r = &records(w)[ri];
    cr_body *b = &cr_world_bodies(w)[r->body_index1 - 1];
    cr_surface_copy *copy = cri_damage_surface_of(w, r->body_index1);
    if (copy == NULL) return 0;
    uint8_t *block = (uint8_t *)w;
    const cr_asset *rest = cr_world_asset(w, copy->rest_slot);
    uint32_t ne = r->example_count, left = 0;
    cr_real *e = weights_of(w, ri), *d = pending_of(w, ri);
    const cr_real *reach = reach_of(w, ri);
    cr_real *vlag = vlag_of(w, ri);
    uint32_t *dirty = dirty_of(w, ri);
    cr_real keep = r->def.lambda, take = CR_R(1) - r->def.lambda;
    const cr_real tolerance = cr_mul(rest->sdf_cell, r->def.draw_lag);
    uint32_t *pend = pending_bits_of(w, ri);
    cr_real sq = 0; /* |dE|^2 after the fade, for eq. 15 next step */
    for (uint32_t word = 0; word < (r->vertex_count + 31u) / 32u; ++word)
    for (uint32_t bits = pend[word]; bits != 0; bits &= bits - 1u) {
        const uint32_t v = word * 32u + lowest_bit(bits);
        cr_real *ev = &e[v * ne], *dv = &d[v * ne];
        bool any = false, small = true;
        cr_real change = 0; /* |dv|_1, then a bound on the row's change |dE_v|_1 */
        for (uint32_t k = 0; k < ne; ++k) {
            if (dv[k] != 0) any = true;
            if (cr_abs(dv[k]) >= CR_EXAMPLE_SETTLE) small = false;
            change += cr_abs(dv[k]);
        }
        if (!any) {
            pend[word] &= ~(1u << (v & 31u));
            continue;
        }
        if (small) {
            /* the tail of the fade: all of it now, and the row back on the simplex */
            cr_real before[CR_ASSET_MAX_EXAMPLES], sum = 0;
            for (uint32_t k = 0; k < ne; ++k) before[k] = ev[k];
            for (uint32_t k = 0; k < ne; ++k) ev[k] = cr_max(ev[k] + dv[k], 0), dv[k] = 0, sum += ev[k];
            if (sum > 0) {
                cr_real inv = cr_div(CR_R(1), sum);
                for (uint32_t k = 0; k < ne; ++k) ev[k] = cr_mul(ev[k], inv);
            }
            change = 0;
            for (uint32_t k = 0; k < ne; ++k) change += cr_abs(ev[k] - before[k]);
            pend[word] &= ~(1u << (v & 31u));
        } else {
            /* E moves by take dv, or less where the clamp holds it */
            for (uint32_t k = 0; k < ne; ++k) {
                cr_real step = cr_mul(take, dv[k]);
                ev[k] = cr_clamp(ev[k] + step, 0, CR_R(1));
                dv[k] = cr_mul(keep, dv[k]);
            }
            change = cr_mul(take, change);
            for (uint32_t k = 0; k < ne; ++k) sq += cr_mul(dv[k], dv[k]);
            ++left;
        }
        dirty[v >> 5] |= 1u << (v & 31u);
        /* no bound known: more than the tolerance, so the next commit is now and takes it */
        vlag[v] = reach[v] < 0 ? tolerance + rest->sdf_cell : vlag[v] + cr_mul(reach[v], change);
        r->lag = cr_max(r->lag, vlag[v]);
    }
    r->active = left > 0;
    r->pending_sq = sq, r->pending_sq_valid = 1;
    uint32_t work = r->vertex_count;
    /* a sleeping body whose shape is still changing must meet its contacts again
     * (as when it moved every step: a commit may be several steps away) */
    if (b->asleep && r->active) cri_world_wake(w, r->body_index1 - 1);
    if (r->active && r->lag <= tolerance) return work; /* the drawn shape is still within the tolerance */
    /* no vertex moves further than the largest lag; the ones below `least` wait */
    const cr_real lag = r->lag, least = r->active ? cr_mul(tolerance, CR_R(0.25)) : 0;
    r->lag = least;
    cr_vec3 *pos = cr_surface_copy_positions(copy, block);
    uint32_t first = r->vertex_count, last = 0;
    /* the moved vertices' bits, so the normals are refreshed only around them
     * (this step's scratch, given back when the body is done) */
    const uint32_t mark = cr_arena_pos(&w->scratch);
    const uint32_t words = (r->vertex_count + 31u) / 32u;
    uint32_t boff = cri_arena_push(&w->scratch, block, 2 * words * (uint32_t)sizeof(uint32_t), 16);
    uint32_t *moved_bits = boff == CR_NO_OFFSET ? NULL : CR_AT(w, boff, uint32_t);
    work += reskin(w, ri, copy, rest, dirty, vlag, least, &first, &last, moved_bits);
    const bool moved = first <= last;
    if (!moved && r->active) {
        cri_arena_pop_to(&w->scratch, mark);
        return work;
    }
    if (moved && moved_bits != NULL) cri_surface_copy_mark_bits(copy, moved_bits, first, last);
    else if (moved) cri_surface_copy_mark(copy, first, last);
    cr_vec3 *grid_pos = grid_pos_of(w, ri);
    /* the grid's scan of every vertex waits until the commits' lags add up to
     * a patch's threshold; at the fade's end it takes what it still owes */
    r->grid_lag += lag;
    const cr_real grid_due = cr_mul(rest->sdf_cell, r->def.grid_lag);
    if (!r->active || r->grid_lag >= grid_due)
        work += patch_grid(w, copy, rest, grid_pos, pos, r->vertex_count, !r->active, r->def.grid_lag, &r->grid_lag);
    /* the centre and inertia follow the same way: once the commits' lags add
     * up to the grid's threshold, and at the fade's end if anything moved
     * since they last did */
    if (moved) r->mass_lag += lag;
    bool shape = moved;
    if ((!r->active && (moved || r->mass_lag > 0)) || r->mass_lag >= grid_due) {
        uint32_t was = r->shifted;
        const cr_vec3 frame = copy->frame_shift;
        work += follow_mass(w, b, copy, rest, grid_pos, &r->shifted);
        /* a shift moves every vertex, by a subtraction that rounds: the normals are summed again */
        if (frame.x != copy->frame_shift.x || frame.y != copy->frame_shift.y || frame.z != copy->frame_shift.z) {
            moved_bits = NULL, shape = true;
            cri_surface_copy_mark(copy, 0, r->vertex_count - 1);
        }
        shape = shape || r->shifted != was;
        r->mass_lag = 0;
    }
    if (!r->active && r->shifted) {
        /* the shifts moved the copy by subtraction, which rounds unlike
         * skinning at the final frame: the fade ends on eq. 3's bits */
        first = r->vertex_count, last = 0;
        work += reskin(w, ri, copy, rest, NULL, NULL, 0, &first, &last, NULL);
        cri_surface_copy_mark(copy, first, last);
        r->shifted = 0;
        moved_bits = NULL; /* every vertex moved */
        shape = true;
    }
    if (shape) {
        work += moved_bits != NULL ? cri_surface_copy_refresh_moved(copy, block, moved_bits, moved_bits + words, &b->bound_radius)
                                   : cri_surface_copy_refresh(copy, block, &b->bound_radius);
        /* a sleeping body whose shape changed must meet its contacts again */
        if (b->asleep) cri_world_wake(w, r->body_index1 - 1);
    }
    cri_arena_pop_to(&w->scratch, mark);
    return work;
}

void cri_example_model_step(cr_world *w, const cr_damage_input *in) {
    const cr_real dt = in->dt;
    const cr_example_budget *bd = &w->def.damage.example;
    if (bd->body_capacity == 0) return;
    cr_example_region *reg = &CR_DAMAGE(w)->example;
    cr_example_job *queue = CR_AT(w, reg->queue, cr_example_job);
    enqueue(w, in, dt);
    uint32_t done = 0, neighbours = 0, work = 0;
    while (reg->queue_count > 0 && (done == 0 || (done < bd->impulses_per_step && neighbours < bd->neighbours_per_step))) {
        cr_example_job j = queue[reg->queue_head];
        reg->queue_head = (reg->queue_head + 1) % bd->queue_capacity;
        reg->queue_count--;
        cr_body_id id = {j.body_index1, j.body_generation};
        if (cri_world_body(w, id) == NULL) continue; /* destroyed while it waited */
        uint32_t ri = record_index(w, j.body_index1);
        if (ri == bd->body_capacity) continue;
        neighbours += apply_job(w, ri, &j, &work);
        ++done;
    }
    work += neighbours;
    for (uint32_t i = 0; i < bd->body_capacity; ++i)
        if (records(w)[i].body_index1 != 0) work += restitution(w, i, dt);
    uint32_t skinned = 0, waiting = 0, next = reg->next_body;
    for (uint32_t n = 0; n < bd->body_capacity; ++n) {
        uint32_t i = (reg->next_body + n) % bd->body_capacity;
        cr_example_body *r = &records(w)[i];
        if (r->body_index1 == 0 || !r->active) continue;
        if (waiting > 0 || (skinned > 0 && skinned + r->vertex_count > bd->vertices_per_step)) {
            if (waiting++ == 0) next = i;
            continue;
        }
        skinned += r->vertex_count;
        work += fade_and_skin(w, i);
    }
    reg->next_body = next;
    w->stats.example.done = done;
    w->stats.example.work = cri_damage_charge_count(w, CR_DAMAGE_OP_example_work, work);
    w->stats.example.waiting = reg->queue_count + waiting;
}

uint64_t cri_example_model_scratch_bytes(const cr_world_def *def) { (void)def; return 0; } /* its patch scratch is in its region */
uint32_t cri_example_model_surfaces(const cr_damage_def *d) { return d->example.body_capacity; }
void cri_example_model_after_commands(cr_world *w) { (void)w; }
void cri_example_model_rebind(cr_world *w) { (void)w; }
