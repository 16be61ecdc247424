/* world.c — creating a world inside a host block, sizing it, and stepping it.
 *
 * cr_world_memory_size and cr_world_create share one layout function: the
 * size query is a dry run of the very pushes create makes, so a block of the
 * reported size always fits. The step here is the frame's skeleton; each stage
 * of DESIGN.md's frame fills in its own part and reports its work counts.
 */
#include "world_internal.h"
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
    d.contact_capacity = 2048;
    d.event_capacity = 256;
    d.asset_capacity = 16;
    d.scratch_bytes = 1u << 20;
    d.collision_passes = 5;
    d.contact_passes = 10;
    d.shock_propagation = true;
    d.cookie = CR_DEF_COOKIE;
    return d;
}

static cr_status check_def(const cr_world_def *def) {
    if (def == NULL) return CR_ERR_NULL_ARGUMENT;
    if (def->cookie != CR_DEF_COOKIE) return CR_ERR_DEF_NOT_DEFAULTED;
    if (def->body_capacity == 0 || def->body_capacity > (1u << 24)) return CR_ERR_DEF_INVALID;
    if (def->joint_capacity > (1u << 24) || def->pair_capacity > (1u << 24)) return CR_ERR_DEF_INVALID;
    if (def->contact_capacity > (1u << 24) || def->event_capacity > (1u << 24)) return CR_ERR_DEF_INVALID;
    if (def->points_per_pair == 0 || def->points_per_pair > 4096) return CR_ERR_DEF_INVALID;
    if (def->asset_capacity > 4096) return CR_ERR_DEF_INVALID;
    if (def->collision_passes > 64 || def->contact_passes > 256) return CR_ERR_DEF_INVALID;
    return CR_OK;
}

/* Lays the block out. With block == NULL it only measures. Returns the total
 * size, or 0 if the layout does not fit in 32-bit offsets. */
static uint64_t layout(const cr_world_def *def, uint8_t *block, uint64_t block_size) {
    uint64_t header = (sizeof(struct cr_world) + 15u) & ~(uint64_t)15u;
    uint64_t persistent_bytes = 16u + (uint64_t)def->body_capacity * sizeof(cr_body);
    uint64_t total = header + persistent_bytes + def->scratch_bytes + 16u;
    if (total > CR_MAX_BLOCK_BYTES) return 0;
    if (block == NULL) return total;
    if (block_size < total) return 0;

    cr_world *w = (cr_world *)block;
    w->magic = CR_WORLD_MAGIC;
    w->block_size = (uint32_t)block_size;
    w->def = *def;
    cr_arena_init(&w->persistent, (uint32_t)header, (uint32_t)(header + persistent_bytes));
    w->bodies = cr_arena_push(&w->persistent, block, def->body_capacity * (uint32_t)sizeof(cr_body), 16);
    uint32_t scratch_begin = (uint32_t)((w->persistent.end + 15u) & ~15u);
    cr_arena_init(&w->scratch, scratch_begin, scratch_begin + def->scratch_bytes);
    return (w->bodies == CR_NO_OFFSET) ? 0 : total;
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

void cr_world_log(const cr_world *w, cr_log_level level, const char *message) {
    if (w->def.log != NULL) w->def.log(w->def.log_user, level, message);
}

void cr_world_assert_failed(const cr_world *w, const char *expr, const char *file, int line) {
    if (w->def.assert_handler != NULL) w->def.assert_handler(w->def.assert_user, expr, file, line);
}

uint64_t cr_world_now(const cr_world *w) {
    return w->def.clock_ns != NULL ? w->def.clock_ns(w->def.clock_user) : 0;
}

/* Velocity and position update for bodies that no constraint touches this
 * frame. Symplectic Euler: velocity first, then position with the new velocity. */
static void integrate_free_bodies(cr_world *w, cr_real dt) {
    cr_body *bodies = cr_world_bodies(w);
    cr_vec3 dv = cr_v3_scale(w->def.gravity, dt);
    uint32_t work = 0;
    for (uint32_t i = 0; i < w->body_high; ++i) {
        cr_body *b = &bodies[i];
        if (!b->alive || b->type == CR_BODY_STATIC) continue;
        if (b->type == CR_BODY_DYNAMIC) b->v = cr_v3_add(b->v, dv);
        b->xf.p = cr_v3_mad(b->xf.p, dt, b->v);
        b->xf.q = cr_quat_integrate(b->xf.q, b->w, dt);
        ++work;
    }
    w->stats.stage[CR_STAGE_position].work = work;
}

cr_status cr_world_step(cr_world *w, cr_real dt) {
    if (w == NULL) return CR_ERR_NULL_ARGUMENT;
    if (w->magic != CR_WORLD_MAGIC) return CR_ERR_STALE_HANDLE;
    if (dt <= 0) return CR_ERR_DEF_INVALID;
    memset(w->stats.stage, 0, sizeof w->stats.stage);
    cr_arena_clear(&w->scratch);

    uint64_t t0 = cr_world_now(w);
    integrate_free_bodies(w, dt);
    w->stats.stage[CR_STAGE_position].time_ns = cr_world_now(w) - t0;

    w->step_count++;
    w->stats.step_count = w->step_count;
    w->stats.body_count = w->body_count;
    return CR_OK;
}

uint64_t cr_world_state_hash(const cr_world *w) {
    uint64_t h = CR_HASH_SEED;
    if (w == NULL) return h;
    h = cr_hash_u64(h, w->step_count);
    h = cr_hash_u32(h, w->body_count);
    const cr_body *bodies = cr_world_bodies_c(w);
    for (uint32_t i = 0; i < w->body_high; ++i) {
        const cr_body *b = &bodies[i];
        if (!b->alive) continue;
        h = cr_hash_u32(h, i);
        h = cr_hash_u32(h, b->generation);
        h = cr_hash_vec3(h, b->xf.p);
        h = cr_hash_quat(h, b->xf.q);
        h = cr_hash_vec3(h, b->v);
        h = cr_hash_vec3(h, b->w);
    }
    return h;
}
