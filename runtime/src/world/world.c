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
 *   8. the damage stage (damage/): impacts and contacts into each body's
 *      frame, every damage model, the deferred world commands
 *
 * Collisions come before the velocity update and contacts after it, which is
 * what keeps a resting body with restitution 1 from bouncing: at rest its
 * velocity is zero, so the collision passes see nothing, and the velocity that
 * gravity adds is removed by the contact passes (restitution 0 at the end).
 */
#include "base/inertia.h"
#include "solver/solver.h"
#include "damage/stage.h"
#include "soft/mass_spring.h"
#include "solver/touch.h"
#include "query/query_tree.h"
#include "base/hash.h"
#include "base/check.h"

#include <string.h>

cr_world_def cr_default_world_def(void) {
    cr_world_def d;
    memset(&d, 0, sizeof d);
    d.gravity = cr_v3(0, CR_R(-9.81), 0);
    d.body_capacity = 256;
    d.joint_capacity = 64;
    d.pair_capacity = 2048;
    d.points_per_pair = 64;
    d.point_capacity = 4096; /* 16 per body: the pool is most of the scratch (docs/solver.md, "Memory") */
    d.contact_capacity = 2048;
    d.event_capacity = 1024;
    d.sensor_capacity = 64;
    d.sensor_event_capacity = 64;
    d.hit_event_speed = CR_R(1);
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
    d.sleep_linear = CR_R(0.02);
    d.sleep_angular = CR_R(0.05);
    d.damage = cr_default_damage_def();
    d.spring = cr_default_spring_budget();
    d.query.mesh_tree_bytes = 0; /* sized from the game's assets (cr_asset_query_bytes): a default would be guessed */
    d.cookie = CR_DEF_COOKIE;
    /* scratch_bytes stays 0: the world sizes its scratch from the capacities
     * (cri_scratch_plan_make), so a def whose capacities change needs nothing else */
    return d;
}

static cr_status check_def(const cr_world_def *def) {
    if (def == NULL) return CR_ERR_NULL_ARGUMENT;
    if (def->cookie != CR_DEF_COOKIE) return CR_ERR_DEF_NOT_DEFAULTED;
    cr_field f; /* field by field, so a refused def can name its field (validate.c) */
    return cri_world_def_fields(def, &f);
}

static uint64_t align16(uint64_t x) { return (x + 15u) & ~(uint64_t)15u; }

void cri_scratch_plan_make(const cr_world_def *def, cr_scratch_plan *p) {
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
    p->broadphase = cri_broadphase_scratch(def);
    p->graph = cri_contact_graph_scratch(def);
    uint64_t transient = p->broadphase > p->graph ? p->broadphase : p->graph;
    uint64_t sleep = cri_sleep_scratch(def) + 32u;
    if (sleep > transient) transient = sleep;
    p->total = p->sbodies + p->pairs + p->manifolds + p->points + p->tmp_points + p->active + p->order +
               p->level_start + p->no_collide + transient + 64u + cri_damage_scratch_bytes(def) +
               cri_soft_scratch_bytes(def);
    /* between steps, adding an asset sorts its samples into clusters in scratch */
    uint64_t clusters = def->asset_capacity > 0 ? align16(3u * CR_CLUSTER_MAX_SAMPLES * sizeof(uint32_t)) + 16u : 0;
    if (clusters > p->total) p->total = clusters;
}

size_t cr_world_scratch_size(const cr_world_def *def) {
    if (check_def(def) != CR_OK) return 0;
    cr_scratch_plan p;
    cri_scratch_plan_make(def, &p);
    return p.total > CR_MAX_BLOCK_BYTES ? 0 : (size_t)p.total;
}

/* The host's scratch_bytes, or more if the capacities need more: a step
 * never runs short of scratch, and the block size says it all in advance. */
static uint64_t scratch_bytes_of(const cr_world_def *def) {
    cr_scratch_plan p;
    cri_scratch_plan_make(def, &p);
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
    uint64_t warm = align16((uint64_t)def->point_capacity * sizeof(cr_warm_impulse));
    uint64_t persistent_bytes = bodies + joints + events + assets + coarse + warm + cri_damage_region_bytes(def) + 16u +
                              cri_soft_region_bytes(def) + cri_sensor_region_bytes(def) + cri_touch_region_bytes(def) +
                              cri_query_region_bytes(def);
    uint64_t scratch = scratch_bytes_of(def);
    uint64_t total = header + persistent_bytes + scratch + 16u;
    if (block == NULL && block_size == UINT64_MAX) return total; /* cr_world_memory_need: no limit */
    if (total > CR_MAX_BLOCK_BYTES || scratch > 0xffffffffu) return 0;
    if (block == NULL) return total;
    if (block_size < total) return 0;

    cr_world *w = (cr_world *)block;
    w->magic = CR_WORLD_MAGIC;
    w->block_size = (uint32_t)block_size;
    w->def = *def;
    w->def.scratch_bytes = (uint32_t)scratch;
    cri_arena_init(&w->persistent, (uint32_t)header, (uint32_t)(header + persistent_bytes));
    w->bodies = cri_arena_push(&w->persistent, block, (uint32_t)bodies, 16);
    w->joints = cri_arena_push(&w->persistent, block, (uint32_t)joints, 16);
    w->events = cri_arena_push(&w->persistent, block, (uint32_t)events, 16);
    w->assets = cri_arena_push(&w->persistent, block, (uint32_t)assets, 16);
    w->coarse = cri_arena_push(&w->persistent, block, (uint32_t)coarse, 16);
    w->warm = cri_arena_push(&w->persistent, block, (uint32_t)warm, 16);
    uint32_t scratch_begin = (uint32_t)align16(w->persistent.end);
    cri_arena_init(&w->scratch, scratch_begin, scratch_begin + (uint32_t)scratch);
    bool ok = w->bodies != CR_NO_OFFSET && w->joints != CR_NO_OFFSET && w->events != CR_NO_OFFSET &&
              w->assets != CR_NO_OFFSET && w->coarse != CR_NO_OFFSET && w->warm != CR_NO_OFFSET &&
              cri_damage_layout(w, block) && cri_soft_layout(w, block) && cri_sensor_layout(w, block) &&
              cri_touch_layout(w, block) && cri_query_layout(w, block);
    return ok ? total : 0;
}

uint64_t cr_world_memory_need(const cr_world_def *def) {
    if (check_def(def) != CR_OK) return 0;
    return layout(def, NULL, UINT64_MAX);
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
    if (need == 0) return CR_ERR_WORLD_TOO_LARGE;
    if (block_size < need) return CR_ERR_BLOCK_TOO_SMALL;
    /* Everything the world will ever read starts zeroed: no uninitialised byte
     * can leak into a hash or a snapshot. */
    memset(block, 0, (size_t)need);
    if (layout(def, (uint8_t *)block, need) == 0) return CR_ERR_BLOCK_TOO_SMALL;
    *out_world = (cr_world *)block;
    return CR_OK;
}

cr_status cr_world_def_check(const cr_world_def *def, cr_field *field) {
    cr_field f = CR_FIELD_NONE;
    cr_status s = CR_ERR_NULL_ARGUMENT;
    if (def != NULL) s = def->cookie != CR_DEF_COOKIE ? CR_ERR_DEF_NOT_DEFAULTED : cri_world_def_fields(def, &f);
    if (s == CR_OK && (s = check_def(def)) != CR_OK) f = CR_FIELD_WORLD_DEF; /* a check with no field of its own */
    if (s == CR_OK && layout(def, NULL, 0) == 0) s = CR_ERR_WORLD_TOO_LARGE, f = CR_FIELD_WORLD_DEF;
    if (field != NULL) *field = f;
    return s;
}

cr_world_def cr_world_get_def(const cr_world *w) {
    if (w == NULL) return cr_default_world_def();
    return w->def;
}

cr_status cr_world_set_gravity(cr_world *w, cr_vec3 g) {
    if (w == NULL) return CR_ERR_NULL_ARGUMENT;
    CR_TRY(cr_check_vec3(w, g, CR_FIELD_GRAVITY));
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
    uint32_t tmp = cri_arena_push_uninit(&w->scratch, 3u * CR_CLUSTER_MAX_SAMPLES * (uint32_t)sizeof(uint32_t), 16);
    cri_coarse_build(&CR_AT(w, w->coarse, cr_coarse_grid)[w->asset_count], asset,
                    tmp == CR_NO_OFFSET ? NULL : CR_AT(w, tmp, uint32_t));
    cri_arena_pop_to(&w->scratch, mark);
    *slot = w->asset_count++;
    cri_query_add_asset(w, *slot);
    return CR_OK;
}

const cr_asset *cr_world_get_asset(const cr_world *w, uint32_t slot) {
    if (w == NULL || (slot & CR_SURFACE_SLOT_FLAG)) return NULL; /* a body's own copy: cr_body_get_asset */
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

void cri_world_log(const cr_world *w, cr_log_level level, const char *message) {
    if (w->def.log != NULL) w->def.log(w->def.log_user, level, message);
}

void cri_world_assert_failed(const cr_world *w, const char *expr, const char *file, int line) {
    if (w->def.assert_handler != NULL) w->def.assert_handler(w->def.assert_user, expr, file, line);
}

uint64_t cri_world_now(const cr_world *w) {
    return w->def.clock_ns != NULL ? w->def.clock_ns(w->def.clock_user) : 0;
}

/* Pushes one per-step array; a world whose scratch_bytes was set too small by
 * the host gets CR_NO_OFFSET here and the step degrades (counted). */
static void *push(cr_world *w, uint64_t bytes) {
    if (bytes > 0xffffffffu) return NULL;
    /* not zeroed: every per-step array is written before it is read, and
     * zeroing arrays sized by the capacities would cost more than the step */
    uint32_t off = cri_arena_push_uninit(&w->scratch, (uint32_t)bytes, 16);
    return off == CR_NO_OFFSET ? NULL : CR_AT(w, off, void);
}

static bool step_alloc(cr_step *s) {
    cr_world *w = s->w;
    cr_scratch_plan p;
    cri_scratch_plan_make(&w->def, &p);
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
        if (b->type == CR_BODY_DYNAMIC && !b->asleep && !b->disabled) {
            sb->dynamic = 1;
            sb->inv_mass = b->inv_mass;
            sb->inv_i = cri_inertia_inv_world(b, sb->rot); /* R I^-1 R^T */
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
        sb->v = cr_v3_add(sb->v, b->gravity_scale == CR_R(1) ? dv : cr_v3_scale(dv, b->gravity_scale));
        bool has_force = b->force.x != 0 || b->force.y != 0 || b->force.z != 0;
        bool has_torque = b->torque.x != 0 || b->torque.y != 0 || b->torque.z != 0;
        if (has_force) sb->v = cr_v3_mad(sb->v, cr_mul(s->dt, sb->inv_mass), b->force);
        if (has_torque) sb->w = cr_v3_add(sb->w, cr_v3_scale(cr_mat3_mul_v3(sb->inv_i, b->torque), s->dt));
        if (has_force || has_torque) ++commands;
        cri_body_damp(b, s->dt, &sb->v, &sb->w);
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

/* A body whose state is no longer finite (an impulse, a contact or a joint
 * overflowed) stops: zero velocity, no pending force, and its last finite
 * pose, which is where it stands unless that pose itself is gone; then the
 * pose it ended its last finite step with, else the origin. The stats count
 * it, the log says it, and every other body goes on. Finite state is never
 * touched, so valid worlds step exactly as before. */
static void freeze(cr_world *w, cr_body *b) {
    b->v = b->w = b->force = b->torque = cr_v3_zero();
    if (!cr_vec3_is_finite(b->xf.p) || !cr_quat_is_finite(b->xf.q)) {
        bool kept = cr_vec3_is_finite(b->finite_p) && cr_quat_status(b->finite_q) == CR_OK;
        b->xf.p = kept ? b->finite_p : cr_v3_zero();
        b->xf.q = kept ? cr_quat_normalize(b->finite_q) : cr_quat_identity();
    }
    w->stats.frozen++;
    cri_world_log(w, CR_LOG_WARN, "cr_world_step: a body's state became non-finite; it was frozen");
}

/* Before the broadphase and after the joints' position corrections (the last
 * place a pose can change); a finite body's pose is kept for freeze(). */
static void freeze_non_finite(cr_world *w) {
    cr_body *bodies = cr_world_bodies(w);
    for (uint32_t i = 0; i < w->body_high; ++i) {
        cr_body *b = &bodies[i];
        if (!b->alive || b->type == CR_BODY_STATIC) continue;
        if (!cr_vec3_is_finite(b->xf.p) || !cr_quat_is_finite(b->xf.q) || !cr_vec3_is_finite(b->v) ||
            !cr_vec3_is_finite(b->w)) {
            freeze(w, b);
        } else {
            b->finite_p = b->xf.p;
            b->finite_q = b->xf.q;
        }
    }
}

/* Seed 002 equation 2: the rotational state is the angular momentum L, and
 * w = I^-1 L at the current orientation. Keeping w instead while I turns
 * with the body (as crumple first did) keeps neither L nor the energy of a
 * free asymmetric body, and a box spun about its middle axis never flips
 * (the Dzhanibekov effect). L = I(q0) w is carried over the step unchanged,
 * and the orientation turns with the spin at the middle of the step (the
 * implicit midpoint rule, by two fixed-point rounds): turning with the
 * start's w, as the seed's explicit update does, made a tumbling box's
 * energy double in 10 s. Returns the new orientation; *w becomes I(q1)^-1 L.
 * A body with equal principal moments (and no products) has w = I^-1 L
 * whatever it turns: the plain update. */
static cr_quat turn_keeping_momentum(const cr_body *b, cr_real dt, cr_vec3 *w) {
    cr_quat q0 = b->xf.q;
    cr_quat q1 = cr_quat_integrate(q0, *w, dt);
    if (b->type != CR_BODY_DYNAMIC || cri_inertia_round(b) || (w->x == 0 && w->y == 0 && w->z == 0)) return q1;
    cr_vec3 l = cri_inertia_spin_momentum(b, q0, *w);
    for (int round = 0; round < 2; ++round) {
        cr_quat qm = cr_quat_normalize((cr_quat){q0.x + q1.x, q0.y + q1.y, q0.z + q1.z, q0.w + q1.w});
        q1 = cr_quat_integrate(q0, cri_inertia_spin_of(b, qm, l), dt);
    }
    *w = cri_inertia_spin_of(b, q1, l);
    return q1;
}

/* Seed 002 step 4 (equation 1): positions and orientations advance with the
 * velocities the collision, contact and joint stages left. Kinematic bodies
 * move by the velocity the host gave them. */
static void position_update(cr_world *w, cr_real dt, const cr_sbody *sb) {
    cr_body *bodies = cr_world_bodies(w);
    uint32_t work = 0;
    for (uint32_t i = 0; i < w->body_high; ++i) {
        cr_body *b = &bodies[i];
        if (!b->alive || b->type == CR_BODY_STATIC || b->asleep || b->disabled) continue;
        cr_vec3 p = cr_v3_mad(b->xf.p, dt, b->v);
        if (sb != NULL) p = cr_v3_mad(cr_v3_add(p, sb[i].dx), dt, sb[i].push_v); /* impact time, push-out */
        cr_vec3 spin = b->w;
        cr_quat q = turn_keeping_momentum(b, dt, &spin);
        if (sb != NULL && (sb[i].push_w.x != 0 || sb[i].push_w.y != 0 || sb[i].push_w.z != 0)) {
            /* the push's turn keeps the spin's angular momentum, as the spin's own turn does */
            bool keep = b->type == CR_BODY_DYNAMIC && !cri_inertia_round(b);
            cr_vec3 h = keep ? cri_inertia_spin_momentum(b, q, spin) : spin;
            q = cr_quat_integrate(q, sb[i].push_w, dt);
            if (keep) spin = cri_inertia_spin_of(b, q, h);
        }
        if (!cr_vec3_is_finite(p) || !cr_quat_is_finite(q) || !cr_vec3_is_finite(b->v) || !cr_vec3_is_finite(spin)) {
            freeze(w, b);
            continue;
        }
        b->xf.p = p;
        b->xf.q = q;
        b->w = spin;
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
        if (!b->alive || b->type != CR_BODY_DYNAMIC || b->disabled) continue;
        b->v = cr_v3_add(b->v, cr_v3_scale(dv, b->gravity_scale));
        b->force = cr_v3_zero();
        b->torque = cr_v3_zero();
    }
    w->stats.stage[CR_STAGE_commands].overflow = 1;
    position_update(w, dt, NULL);
}

#define CR_TIMED(w, which, call)                                         \
    do {                                                                 \
        uint64_t cr_t0_ = cri_world_now(w);                               \
        call;                                                            \
        (w)->stats.stage[which].time_ns += cri_world_now(w) - cr_t0_;     \
    } while (0)

cr_status cr_world_step(cr_world *w, cr_real dt) {
    if (w == NULL) return CR_ERR_NULL_ARGUMENT;
    if (w->magic != CR_WORLD_MAGIC) return CR_ERR_STALE_HANDLE;
    CR_TRY(cr_check_real(w, dt, CR_FIELD_DT));
    /* dt so small that 1/dt overflows is refused like dt <= 0 */
    if (dt <= 0 || !cr_real_is_finite(cr_div(CR_R(1), dt))) return cri_refuse(w, CR_ERR_ARGUMENT_RANGE, CR_FIELD_DT);
    memset(w->stats.stage, 0, sizeof w->stats.stage);
    w->stats.pairs = w->stats.manifolds = w->stats.points = 0;
    w->stats.contact_levels = w->stats.largest_level = w->stats.collision_passes_run = 0;
    w->stats.woken = 0;
    w->stats.broadphase_tests = 0;
    w->stats.frozen = 0;
    w->stats.sensor_overflow = w->stats.contact_overflow = 0;
    /* state the step did not make (a hostile snapshot with a valid checksum,
     * a host writing into the block) must not reach the broadphase's casts */
    freeze_non_finite(w);
    cr_arena_clear(&w->scratch);
    cri_damage_begin(w);
    w->event_count = w->sensor_event_count = w->contact_event_count = 0;

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
        CR_TIMED(w, CR_STAGE_commands, (init_solver_bodies(&s), cri_joints_collect_no_collide(&s)));
        CR_TIMED(w, CR_STAGE_broadphase, cri_broadphase(&s));
        if (cri_sleep_wake_touched(&s) > 0) {
            /* the woken bodies enter the solver, with their pairs against the ground too */
            init_solver_bodies(&s);
            CR_TIMED(w, CR_STAGE_broadphase, cri_broadphase(&s));
        }
        CR_TIMED(w, CR_STAGE_narrowphase, cri_interference(&s));
        CR_TIMED(w, CR_STAGE_collision, cri_collisions(&s));
        CR_TIMED(w, CR_STAGE_velocity, velocity_update(&s));
        CR_TIMED(w, CR_STAGE_contact, (cri_contact_graph(&s), cri_contacts(&s), cri_push_out(&s)));
        CR_TIMED(w, CR_STAGE_joints, cri_joints_pre_stabilise(&s));
        write_back_velocities(&s);
        CR_TIMED(w, CR_STAGE_position, (position_update(w, dt, s.sb), cri_push_out_give_back(&s)));
        CR_TIMED(w, CR_STAGE_joints, cri_joints_post_stabilise(&s));
        freeze_non_finite(w);
        /* event points are carried by body a to its end-of-step pose */
        CR_TIMED(w, CR_STAGE_events, cri_impact_events(&s));
        cri_soft_step(w, dt); /* soft bodies (seed 004) after the rigid bodies moved: soft/ */
        /* after the soft step: a body carried by soft bodies is at rest with
         * the weight they gave back in its velocity (soft/mass_spring.c,
         * rigid_follow) */
        CR_TIMED(w, CR_STAGE_position, cri_sleep_update(&s));
        CR_TIMED(w, CR_STAGE_events, (cri_contact_events(&s), cri_sensor_events(w))); /* solver/touch.h */
        CR_TIMED(w, CR_STAGE_damage, cri_damage_step(&s));
        w->stats.pairs = s.npairs;
        w->stats.manifolds = s.nm;
        w->stats.points = s.npts;
    }

    w->step_count++;
    cri_query_rebuild(w); /* the queries' body tree, for the calls until the next step */
    w->stats.step_count = w->step_count;
    w->stats.body_count = w->body_count;
    w->stats.joint_count = w->joint_count;
    return CR_OK;
}
