/* world.c — creating a world inside a host block, sizing it, and stepping it.
 *
 * cr_world_memory_size and cr_world_create share one layout function: the
 * size query is a dry run of the very pushes create makes, so a block of the
 * reported size always fits.
 *
 * cr_world_step is seed 002's time sequencing (Guendelman, Bridson, Fedkiw
 * 2003, "Nonconvex rigid bodies with stacking"), docs/solver.md:
 *
 *   0. broadphase + interference at the start-of-step configuration
 *   1. collisions: passes on the predicted positions x + dt v (current v)
 *   2. velocity update: gravity, forces, torques
 *   3. contacts: passes on the predicted positions x + dt v' with the new
 *      velocities, restitution ramped -0.9 ... 0, in contact-graph order;
 *      the last sweep is shock propagation
 *   4. rolling and spinning friction
 *   5. joints: pre-stabilisation
 *   6. position update, then joint post-stabilisation
 *   7. impact events, then islands at rest fall asleep (sleep.c)
 *
 * Collisions come before the velocity update and contacts after it, which is
 * what keeps a resting body with restitution 1 from bouncing: at rest its
 * velocity is zero, so the collision passes see nothing, and the velocity that
 * gravity adds is removed by the contact passes (restitution 0 at the end).
 */
#include "solver.h"
#include "deform.h"
#include "hash.h"

#include <string.h>

cr_world_def cr_default_world_def(void) {
    cr_world_def d;
    memset(&d, 0, sizeof d);
    d.gravity = cr_v3(0, CR_R(-9.81), 0);
    d.body_capacity = 256;
    d.joint_capacity = 64;
    d.pair_capacity = 2048;
    d.points_per_pair = 64;
    d.point_capacity = 16384;
    d.contact_capacity = 2048;
    d.event_capacity = 256;
    d.asset_capacity = 8;
    d.scratch_bytes = 0;
    d.collision_passes = 5;
    d.contact_passes = 10;
    d.level_iterations = 8;
    d.joint_iterations = 8;
    d.shock_propagation = true;
    d.broadphase_cell = 0;
    d.event_min_speed = CR_R(0.1);
    d.sleep = true;
    d.sleep_time = CR_R(0.5);
    d.sleep_linear = CR_R(0.05);
    d.sleep_angular = CR_R(0.05);
    d.deform = cr_default_deform_def();
    d.cookie = CR_DEF_COOKIE;
    /* room for what these capacities need, rounded to 64 KiB */
    cr_scratch_plan p;
    cr_scratch_plan_make(&d, &p);
    d.scratch_bytes = (uint32_t)((p.total + 0xffffu) & ~(uint64_t)0xffffu);
    return d;
}

static cr_status check_def(const cr_world_def *def) {
    if (def == NULL) return CR_ERR_NULL_ARGUMENT;
    if (def->cookie != CR_DEF_COOKIE) return CR_ERR_DEF_NOT_DEFAULTED;
    if (def->body_capacity == 0 || def->body_capacity > (1u << 24)) return CR_ERR_DEF_INVALID;
    if (def->joint_capacity > (1u << 24) || def->pair_capacity > (1u << 24)) return CR_ERR_DEF_INVALID;
    if (def->contact_capacity > (1u << 24) || def->event_capacity > (1u << 24)) return CR_ERR_DEF_INVALID;
    if (def->point_capacity > (1u << 26)) return CR_ERR_DEF_INVALID;
    if (def->points_per_pair == 0 || def->points_per_pair > 4096) return CR_ERR_DEF_INVALID;
    if (def->asset_capacity > 4096) return CR_ERR_DEF_INVALID;
    if (def->collision_passes > 64 || def->contact_passes > 256) return CR_ERR_DEF_INVALID;
    if (def->level_iterations == 0 || def->level_iterations > 64 || def->joint_iterations > 256)
        return CR_ERR_DEF_INVALID;
    if (def->broadphase_cell < 0 || def->event_min_speed < 0) return CR_ERR_DEF_INVALID;
    if (def->sleep_time < 0 || def->sleep_linear < 0 || def->sleep_angular < 0) return CR_ERR_DEF_INVALID;
    const cr_deform_def *dd = &def->deform;
    if (dd->body_capacity > 4096 || dd->queue_capacity > (1u << 20) || dd->max_cells > 1024) return CR_ERR_DEF_INVALID;
    if (dd->body_capacity > 0 && (dd->max_cells < 5 || dd->queue_capacity == 0 || dd->dents_per_step == 0 ||
                                  dd->cells_per_step < dd->max_cells * dd->max_cells))
        return CR_ERR_DEF_INVALID;
    return CR_OK;
}

static uint64_t align16(uint64_t x) { return (x + 15u) & ~(uint64_t)15u; }

void cr_scratch_plan_make(const cr_world_def *def, cr_scratch_plan *p) {
    memset(p, 0, sizeof *p);
    p->sbodies = align16((uint64_t)def->body_capacity * sizeof(cr_sbody));
    p->pairs = align16((uint64_t)def->pair_capacity * sizeof(uint64_t));
    p->manifolds = align16((uint64_t)def->contact_capacity * sizeof(cr_manifold));
    p->points = align16((uint64_t)def->point_capacity * sizeof(cr_cpoint));
    p->tmp_points = align16((uint64_t)def->points_per_pair * sizeof(cr_cpoint));
    p->active = align16((uint64_t)def->points_per_pair * 2u * sizeof(uint32_t));
    p->order = align16((uint64_t)def->contact_capacity * sizeof(uint32_t));
    p->level_start = align16(((uint64_t)def->body_capacity + 2u) * sizeof(uint32_t));
    p->no_collide = align16((uint64_t)def->joint_capacity * sizeof(uint64_t) + 8u);
    p->broadphase = cr_broadphase_scratch(def);
    p->graph = cr_contact_graph_scratch(def);
    uint64_t transient = p->broadphase > p->graph ? p->broadphase : p->graph;
    uint64_t sleep = cr_sleep_scratch(def) + 32u;
    if (sleep > transient) transient = sleep;
    p->total = p->sbodies + p->pairs + p->manifolds + p->points + p->tmp_points + p->active + p->order +
               p->level_start + p->no_collide + transient + 64u;
}

size_t cr_world_scratch_size(const cr_world_def *def) {
    if (check_def(def) != CR_OK) return 0;
    cr_scratch_plan p;
    cr_scratch_plan_make(def, &p);
    return p.total > CR_MAX_BLOCK_BYTES ? 0 : (size_t)p.total;
}

/* The host's scratch_bytes, or more if the capacities need more: a step
 * never runs short of scratch, and the block size says it all in advance. */
static uint64_t scratch_bytes_of(const cr_world_def *def) {
    cr_scratch_plan p;
    cr_scratch_plan_make(def, &p);
    return p.total > def->scratch_bytes ? p.total : def->scratch_bytes;
}

/* Lays the block out. With block == NULL it only measures. Returns the total
 * size, or 0 if the layout does not fit in 32-bit offsets. */
static uint64_t layout(const cr_world_def *def, uint8_t *block, uint64_t block_size) {
    uint64_t header = align16(sizeof(struct cr_world));
    uint64_t bodies = align16((uint64_t)def->body_capacity * sizeof(cr_body));
    uint64_t joints = align16((uint64_t)def->joint_capacity * sizeof(cr_joint));
    uint64_t events = align16((uint64_t)def->event_capacity * sizeof(cr_impact_event));
    uint64_t assets = align16((uint64_t)def->asset_capacity * sizeof(const cr_asset *));
    uint64_t coarse = align16((uint64_t)def->asset_capacity * sizeof(cr_coarse_grid));
    uint64_t persistent_bytes = bodies + joints + events + assets + coarse + cr_deform_region_bytes(def) + 16u;
    uint64_t scratch = scratch_bytes_of(def);
    uint64_t total = header + persistent_bytes + scratch + 16u;
    if (total > CR_MAX_BLOCK_BYTES || scratch > 0xffffffffu) return 0;
    if (block == NULL) return total;
    if (block_size < total) return 0;

    cr_world *w = (cr_world *)block;
    w->magic = CR_WORLD_MAGIC;
    w->block_size = (uint32_t)block_size;
    w->def = *def;
    w->def.scratch_bytes = (uint32_t)scratch;
    cr_arena_init(&w->persistent, (uint32_t)header, (uint32_t)(header + persistent_bytes));
    w->bodies = cr_arena_push(&w->persistent, block, (uint32_t)bodies, 16);
    w->joints = cr_arena_push(&w->persistent, block, (uint32_t)joints, 16);
    w->events = cr_arena_push(&w->persistent, block, (uint32_t)events, 16);
    w->assets = cr_arena_push(&w->persistent, block, (uint32_t)assets, 16);
    w->coarse = cr_arena_push(&w->persistent, block, (uint32_t)coarse, 16);
    uint32_t scratch_begin = (uint32_t)align16(w->persistent.end);
    cr_arena_init(&w->scratch, scratch_begin, scratch_begin + (uint32_t)scratch);
    bool ok = w->bodies != CR_NO_OFFSET && w->joints != CR_NO_OFFSET && w->events != CR_NO_OFFSET &&
              w->assets != CR_NO_OFFSET && w->coarse != CR_NO_OFFSET && cr_deform_layout(w, block);
    return ok ? total : 0;
}

size_t cr_world_memory_size(const cr_world_def *def) {
    if (check_def(def) != CR_OK) return 0;
    return (size_t)layout(def, NULL, 0);
}

cr_status cr_world_create(const cr_world_def *def, void *block, size_t block_size, cr_world **out_world) {
    if (out_world == NULL) return CR_ERR_NULL_ARGUMENT;
    *out_world = NULL;
    cr_status s = check_def(def);
    if (s != CR_OK) return s;
    if (block == NULL) return CR_ERR_NULL_ARGUMENT;
    if (((uintptr_t)block & (CR_BLOCK_ALIGN - 1)) != 0) return CR_ERR_BLOCK_MISALIGNED;
    uint64_t need = layout(def, NULL, 0);
    if (need == 0) return CR_ERR_DEF_INVALID;
    if (block_size < need) return CR_ERR_BLOCK_TOO_SMALL;
    /* Everything the world will ever read starts zeroed: no uninitialised byte
     * can leak into a hash or a snapshot. */
    memset(block, 0, (size_t)need);
    if (layout(def, (uint8_t *)block, need) == 0) return CR_ERR_BLOCK_TOO_SMALL;
    *out_world = (cr_world *)block;
    return CR_OK;
}

cr_world_def cr_world_get_def(const cr_world *w) {
    if (w == NULL) return cr_default_world_def();
    return w->def;
}

cr_status cr_world_set_gravity(cr_world *w, cr_vec3 g) {
    if (w == NULL) return CR_ERR_NULL_ARGUMENT;
    w->def.gravity = g;
    return CR_OK;
}

cr_status cr_world_set_shock_propagation(cr_world *w, bool enabled) {
    if (w == NULL) return CR_ERR_NULL_ARGUMENT;
    w->def.shock_propagation = enabled;
    return CR_OK;
}

cr_status cr_world_add_asset(cr_world *w, const cr_asset *asset, uint32_t *slot) {
    if (w == NULL || asset == NULL || slot == NULL) return CR_ERR_NULL_ARGUMENT;
    *slot = 0;
    if (asset->sdf == NULL || asset->sdf_dims[0] < 2 || asset->sdf_dims[1] < 2 || asset->sdf_dims[2] < 2)
        return CR_ERR_BAD_ASSET;
    if (w->asset_count >= w->def.asset_capacity) return CR_ERR_CAPACITY;
    CR_AT(w, w->assets, const cr_asset *)[w->asset_count] = asset;
    /* the scratch arena is free between steps: it sorts the samples into clusters */
    uint32_t mark = cr_arena_pos(&w->scratch);
    uint32_t tmp = cr_arena_push_uninit(&w->scratch, 3u * CR_CLUSTER_MAX_SAMPLES * (uint32_t)sizeof(uint32_t), 16);
    cr_coarse_build(&CR_AT(w, w->coarse, cr_coarse_grid)[w->asset_count], asset,
                    tmp == CR_NO_OFFSET ? NULL : CR_AT(w, tmp, uint32_t));
    cr_arena_pop_to(&w->scratch, mark);
    *slot = w->asset_count++;
    return CR_OK;
}

const cr_asset *cr_world_get_asset(const cr_world *w, uint32_t slot) {
    if (w == NULL) return NULL;
    return cr_world_asset(w, slot);
}

cr_memory_stats cr_world_memory_stats(const cr_world *w) {
    cr_memory_stats m;
    memset(&m, 0, sizeof m);
    if (w == NULL) return m;
    m.capacity = w->block_size;
    m.used = w->persistent.pos + cr_arena_used(&w->scratch);
    m.high_water = w->persistent.begin + w->persistent.high_water + w->scratch.high_water;
    m.scratch_capacity = cr_arena_capacity(&w->scratch);
    m.scratch_high_water = w->scratch.high_water;
    return m;
}

cr_world_stats cr_world_get_stats(const cr_world *w) {
    cr_world_stats s;
    memset(&s, 0, sizeof s);
    if (w != NULL) s = w->stats;
    return s;
}

uint32_t cr_world_get_events(const cr_world *w, cr_impact_event *out, uint32_t capacity) {
    if (w == NULL) return 0;
    const cr_impact_event *ev = CR_AT(w, w->events, const cr_impact_event);
    if (out != NULL)
        for (uint32_t i = 0; i < w->event_count && i < capacity; ++i) out[i] = ev[i];
    return w->event_count;
}

void cr_world_log(const cr_world *w, cr_log_level level, const char *message) {
    if (w->def.log != NULL) w->def.log(w->def.log_user, level, message);
}

void cr_world_assert_failed(const cr_world *w, const char *expr, const char *file, int line) {
    if (w->def.assert_handler != NULL) w->def.assert_handler(w->def.assert_user, expr, file, line);
}

uint64_t cr_world_now(const cr_world *w) {
    return w->def.clock_ns != NULL ? w->def.clock_ns(w->def.clock_user) : 0;
}

/* Pushes one per-step array; a world whose scratch_bytes was set too small by
 * the host gets CR_NO_OFFSET here and the step degrades (counted). */
static void *push(cr_world *w, uint64_t bytes) {
    if (bytes > 0xffffffffu) return NULL;
    /* not zeroed: every per-step array is written before it is read, and
     * zeroing arrays sized by the capacities would cost more than the step */
    uint32_t off = cr_arena_push_uninit(&w->scratch, (uint32_t)bytes, 16);
    return off == CR_NO_OFFSET ? NULL : CR_AT(w, off, void);
}

static bool step_alloc(cr_step *s) {
    cr_world *w = s->w;
    cr_scratch_plan p;
    cr_scratch_plan_make(&w->def, &p);
    s->sb = push(w, p.sbodies);
    s->pairs = push(w, p.pairs);
    s->m = push(w, p.manifolds);
    s->pts = push(w, p.points);
    s->tmp_pts = push(w, p.tmp_points);
    uint32_t *live = push(w, p.active);
    if (live != NULL) {
        s->live = live;
        s->live_tmp = live + w->def.points_per_pair;
    }
    s->order = push(w, p.order);
    s->level_start = push(w, p.level_start);
    s->no_collide = push(w, p.no_collide);
    return s->sb && s->pairs && s->m && s->pts && s->tmp_pts && live != NULL && s->order && s->level_start &&
           s->no_collide;
}

/* Solver bodies: velocities and the world-frame inverse inertia R D^-1 R^T at
 * the start-of-step orientation, which every K matrix of the step uses. */
static void init_solver_bodies(cr_step *s) {
    for (uint32_t i = 0; i < s->nb; ++i) {
        const cr_body *b = &s->bodies[i];
        cr_sbody *sb = &s->sb[i];
        memset(sb, 0, sizeof *sb);
        sb->level = CR_NO_LEVEL;
        if (!b->alive) continue;
        sb->v = b->v;
        sb->w = b->w;
        sb->rot = cr_mat3_from_quat(b->xf.q);
        if (b->type != CR_BODY_STATIC && b->shape.type != CR_SHAPE_PLANE && (b->w.x != 0 || b->w.y != 0 || b->w.z != 0))
            sb->spin_reach = cr_mul(cr_v3_len(b->w), b->bound_radius);
        if (b->type == CR_BODY_DYNAMIC && !b->asleep) {
            sb->dynamic = 1;
            sb->inv_mass = b->inv_mass;
            /* R D^-1 R^T */
            sb->inv_i = cr_mat3_mul(cr_mat3_mul(sb->rot, cr_mat3_diag(b->inv_inertia)), cr_mat3_transpose(sb->rot));
        }
    }
}

/* Seed 002 step 2: the velocity update with gravity and the accumulated
 * forces and torques (forward Euler, as in the seed). */
static void velocity_update(cr_step *s) {
    cr_vec3 dv = cr_v3_scale(s->w->def.gravity, s->dt);
    uint32_t work = 0, commands = 0;
    for (uint32_t i = 0; i < s->nb; ++i) {
        cr_body *b = &s->bodies[i];
        cr_sbody *sb = &s->sb[i];
        if (!b->alive || !sb->dynamic) continue;
        sb->v = cr_v3_add(sb->v, dv);
        bool has_force = b->force.x != 0 || b->force.y != 0 || b->force.z != 0;
        bool has_torque = b->torque.x != 0 || b->torque.y != 0 || b->torque.z != 0;
        if (has_force) sb->v = cr_v3_mad(sb->v, cr_mul(s->dt, sb->inv_mass), b->force);
        if (has_torque) sb->w = cr_v3_add(sb->w, cr_v3_scale(cr_mat3_mul_v3(sb->inv_i, b->torque), s->dt));
        if (has_force || has_torque) ++commands;
        b->force = cr_v3_zero();
        b->torque = cr_v3_zero();
        ++work;
    }
    s->w->stats.stage[CR_STAGE_velocity].work = work;
    s->w->stats.stage[CR_STAGE_commands].work = commands;
}

static void write_back_velocities(cr_step *s) {
    for (uint32_t i = 0; i < s->nb; ++i) {
        cr_body *b = &s->bodies[i];
        if (!b->alive || b->type != CR_BODY_DYNAMIC) continue;
        b->v = s->sb[i].v;
        b->w = s->sb[i].w;
    }
}

/* Seed 002 step 4 (equation 1): positions and orientations advance with the
 * velocities the collision, contact and joint stages left. Kinematic bodies
 * move by the velocity the host gave them. */
static void position_update(cr_world *w, cr_real dt, const cr_sbody *sb) {
    cr_body *bodies = cr_world_bodies(w);
    uint32_t work = 0;
    for (uint32_t i = 0; i < w->body_high; ++i) {
        cr_body *b = &bodies[i];
        if (!b->alive || b->type == CR_BODY_STATIC || b->asleep) continue;
        b->xf.p = cr_v3_mad(b->xf.p, dt, b->v);
        if (sb != NULL) b->xf.p = cr_v3_add(b->xf.p, sb[i].dx); /* impact-time correction (collision.c) */
        b->xf.q = cr_quat_integrate(b->xf.q, b->w, dt);
        ++work;
    }
    w->stats.stage[CR_STAGE_position].work = work;
}

/* Without scratch the solver cannot run: bodies still fall and move, and the
 * step says so in the stats instead of failing. */
static void degraded_step(cr_world *w, cr_real dt) {
    cr_body *bodies = cr_world_bodies(w);
    cr_vec3 dv = cr_v3_scale(w->def.gravity, dt);
    for (uint32_t i = 0; i < w->body_high; ++i) {
        cr_body *b = &bodies[i];
        if (!b->alive || b->type != CR_BODY_DYNAMIC) continue;
        b->v = cr_v3_add(b->v, dv);
        b->force = cr_v3_zero();
        b->torque = cr_v3_zero();
    }
    w->stats.stage[CR_STAGE_commands].overflow = 1;
    position_update(w, dt, NULL);
}

#define CR_TIMED(w, which, call)                                         \
    do {                                                                 \
        uint64_t cr_t0_ = cr_world_now(w);                               \
        call;                                                            \
        (w)->stats.stage[which].time_ns += cr_world_now(w) - cr_t0_;     \
    } while (0)

cr_status cr_world_step(cr_world *w, cr_real dt) {
    if (w == NULL) return CR_ERR_NULL_ARGUMENT;
    if (w->magic != CR_WORLD_MAGIC) return CR_ERR_STALE_HANDLE;
    if (dt <= 0) return CR_ERR_DEF_INVALID;
    memset(w->stats.stage, 0, sizeof w->stats.stage);
    w->stats.pairs = w->stats.manifolds = w->stats.points = 0;
    w->stats.contact_levels = w->stats.largest_level = w->stats.collision_passes_run = 0;
    w->stats.woken = 0;
    cr_arena_clear(&w->scratch);
    cr_deform_begin(w);
    w->event_count = 0;

    cr_step s;
    memset(&s, 0, sizeof s);
    s.w = w;
    s.bodies = cr_world_bodies(w);
    s.dt = dt;
    s.inv_dt = cr_div(CR_R(1), dt);
    s.nb = w->body_high;

    if (!step_alloc(&s)) {
        degraded_step(w, dt);
    } else {
        CR_TIMED(w, CR_STAGE_commands, (init_solver_bodies(&s), cr_joints_collect_no_collide(&s)));
        CR_TIMED(w, CR_STAGE_broadphase, cr_broadphase(&s));
        if (cr_sleep_wake_touched(&s) > 0) {
            /* the woken bodies enter the solver, with their pairs against the ground too */
            init_solver_bodies(&s);
            CR_TIMED(w, CR_STAGE_broadphase, cr_broadphase(&s));
        }
        CR_TIMED(w, CR_STAGE_narrowphase, cr_interference(&s));
        CR_TIMED(w, CR_STAGE_collision, cr_collisions(&s));
        CR_TIMED(w, CR_STAGE_velocity, velocity_update(&s));
        CR_TIMED(w, CR_STAGE_contact, (cr_contact_graph(&s), cr_contacts(&s), cr_rolling_friction(&s)));
        CR_TIMED(w, CR_STAGE_joints, cr_joints_pre_stabilise(&s));
        write_back_velocities(&s);
        CR_TIMED(w, CR_STAGE_position, position_update(w, dt, s.sb));
        CR_TIMED(w, CR_STAGE_joints, cr_joints_post_stabilise(&s));
        /* event points are carried by body a to its end-of-step pose */
        CR_TIMED(w, CR_STAGE_events, cr_impact_events(&s));
        CR_TIMED(w, CR_STAGE_position, cr_sleep_update(&s));
        /* impacts are turned into dent jobs in the bodies' frames of the same moment */
        CR_TIMED(w, CR_STAGE_deform, cr_deform_enqueue(w));
        CR_TIMED(w, CR_STAGE_deform, cr_deform_step(w));
        w->stats.pairs = s.npairs;
        w->stats.manifolds = s.nm;
        w->stats.points = s.npts;
    }

    w->step_count++;
    w->stats.step_count = w->step_count;
    w->stats.body_count = w->body_count;
    w->stats.joint_count = w->joint_count;
    return CR_OK;
}

uint64_t cr_body_hash_into(uint64_t h, const cr_body *b, uint32_t slot) {
    h = cr_hash_u32(h, slot);
    h = cr_hash_u32(h, b->generation);
    h = cr_hash_u32(h, b->type);
    h = cr_hash_vec3(h, b->xf.p);
    h = cr_hash_quat(h, b->xf.q);
    h = cr_hash_vec3(h, b->v);
    h = cr_hash_vec3(h, b->w);
    h = cr_hash_vec3(h, b->force);
    h = cr_hash_vec3(h, b->torque);
    h = cr_hash_real(h, b->mass);
    h = cr_hash_u32(h, b->asleep);
    h = cr_hash_u32(h, b->asleep ? b->island : 0);
    h = cr_hash_real(h, b->sleep_time);
    h = cr_hash_vec3(h, b->rest_p);
    return cr_hash_quat(h, b->rest_q);
}

uint64_t cr_world_state_hash(const cr_world *w) {
    uint64_t h = CR_HASH_SEED;
    if (w == NULL) return h;
    h = cr_hash_u64(h, w->step_count);
    h = cr_hash_u32(h, w->body_count);
    const cr_body *bodies = cr_world_bodies_c(w);
    for (uint32_t i = 0; i < w->body_high; ++i) {
        const cr_body *b = &bodies[i];
        if (b->alive) h = cr_body_hash_into(h, b, i);
    }
    h = cr_hash_u32(h, w->joint_count);
    const cr_joint *joints = cr_world_joints_c(w);
    for (uint32_t i = 0; i < w->joint_high; ++i) {
        const cr_joint *j = &joints[i];
        if (!j->alive) continue;
        h = cr_hash_u32(h, i);
        h = cr_hash_u32(h, j->generation);
        h = cr_hash_u32(h, j->type);
        h = cr_hash_u32(h, j->a);
        h = cr_hash_u32(h, j->b);
        h = cr_hash_vec3(h, j->local_anchor_a);
        h = cr_hash_vec3(h, j->local_anchor_b);
        h = cr_hash_quat(h, j->rest);
        h = cr_hash_vec3(h, j->linear_impulse);
        h = cr_hash_vec3(h, j->angular_impulse);
    }
    h = cr_deform_hash(w, h);
    h = cr_hash_u32(h, w->event_count);
    const cr_impact_event *ev = CR_AT(w, w->events, const cr_impact_event);
    for (uint32_t i = 0; i < w->event_count; ++i) {
        h = cr_hash_u32(h, ev[i].body_a.index1);
        h = cr_hash_u32(h, ev[i].body_b.index1);
        h = cr_hash_vec3(h, ev[i].point);
        h = cr_hash_vec3(h, ev[i].normal);
        h = cr_hash_vec3(h, ev[i].relative_velocity);
        h = cr_hash_real(h, ev[i].normal_speed);
        h = cr_hash_real(h, ev[i].impulse);
    }
    return h;
}
