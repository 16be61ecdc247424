/* test_snapshot.c — snapshots and rollback: restoring frame k and re-running
 * the same inputs reproduces the original run bit for bit. */
#include "test.h"
#include "crumple/crumple.h"
#include "crumple/snapshot.h"

#include <stdlib.h>
#include <string.h>

typedef struct sim {
    cr_world *w;
    void *block;
    cr_body_id ids[32];
    int count;
} sim;

/* A small pile with a floor: contacts, friction and resting bodies, so that
 * solver state (not just free flight) must survive the round trip. */
static int sim_init(sim *s, uint32_t body_capacity) {
    cr_world_def def = cr_default_world_def();
    def.body_capacity = body_capacity;
    size_t size = cr_world_memory_size(&def);
    s->block = aligned_alloc(CR_BLOCK_ALIGN, (size + 15) / 16 * 16);
    if (cr_world_create(&def, s->block, size, &s->w) != CR_OK) return 0;
    cr_body_def ground = cr_default_body_def();
    ground.type = CR_BODY_STATIC;
    ground.shape.type = CR_SHAPE_PLANE;
    if (cr_body_create(s->w, &ground, &s->ids[0]) != CR_OK) return 0;
    s->count = 1;
    for (int i = 0; i < 12; ++i) {
        cr_body_def bd = cr_default_body_def();
        bd.shape.type = (i % 2) ? CR_SHAPE_BOX : CR_SHAPE_SPHERE;
        bd.position = cr_v3(cr_mul(CR_R(0.3), cr_from_int(i % 3)), cr_from_int(1 + i), cr_mul(CR_R(0.2), cr_from_int(i % 2)));
        bd.angular_velocity = cr_v3(CR_R(0.1), 0, CR_R(0.2));
        if (cr_body_create(s->w, &bd, &s->ids[s->count++]) != CR_OK) return 0;
    }
    return 1;
}

/* The inputs of frame f: a scripted impulse now and then. */
static void sim_input(sim *s, int f) {
    if (f % 37 == 5) {
        cr_body_id id = s->ids[1 + f % 12];
        cr_body_apply_impulse(s->w, id, cr_v3(cr_from_int(20), cr_from_int(40), 0), cr_body_get_transform(s->w, id).p);
    }
}

static void sim_step(sim *s, int f) {
    sim_input(s, f);
    cr_world_step(s->w, CR_R(1.0 / 60.0));
}

CR_TEST(snapshot_rollback_every_frame_matches_straight_run) {
    enum { FRAMES = 600, BACK = 8 };
    sim a, b;
    ENSURE(sim_init(&a, 32) && sim_init(&b, 32));
    static uint64_t straight[FRAMES];
    for (int f = 0; f < FRAMES; ++f) {
        sim_step(&a, f);
        straight[f] = cr_world_state_hash(a.w);
    }
    /* b keeps a ring of the last BACK snapshots; every frame it rewinds BACK
     * frames and re-simulates them, as a rollback netcode does on late input. */
    size_t snap_size = cr_world_snapshot_size(b.w);
    uint8_t *ring = malloc(snap_size * (BACK + 1));
    for (int f = 0; f < FRAMES; ++f) {
        ENSURE(cr_world_snapshot_save(b.w, ring + snap_size * (size_t)(f % (BACK + 1)), snap_size) == CR_OK);
        sim_step(&b, f);
        if (f >= BACK) {
            int from = f - BACK + 1;
            ENSURE(cr_world_snapshot_restore(b.w, ring + snap_size * (size_t)(from % (BACK + 1)), snap_size) == CR_OK);
            for (int g = from; g <= f; ++g) sim_step(&b, g);
        }
        ENSURE_MSG(cr_world_state_hash(b.w) == straight[f], "rollback run differs at frame %d", f);
    }
    free(ring), free(a.block), free(b.block);
}

CR_TEST(snapshot_refuses_damage_and_foreign_layouts) {
    sim a, other;
    ENSURE(sim_init(&a, 32) && sim_init(&other, 40));
    for (int f = 0; f < 30; ++f) sim_step(&a, f);
    size_t n = cr_world_snapshot_size(a.w);
    uint8_t *buf = malloc(n);
    ENSURE(cr_world_snapshot_save(a.w, buf, n - 1) == CR_ERR_BUFFER_TOO_SMALL);
    ENSURE(cr_world_snapshot_save(a.w, buf, n) == CR_OK);
    sim_step(&a, 30);
    uint64_t before = cr_world_state_hash(a.w);
    buf[n / 2] ^= 0x10;
    ENSURE(cr_world_snapshot_restore(a.w, buf, n) == CR_ERR_BAD_SNAPSHOT);
    ENSURE(cr_world_state_hash(a.w) == before); /* untouched on error */
    buf[n / 2] ^= 0x10;
    ENSURE(cr_world_snapshot_restore(a.w, buf, n - 1) == CR_ERR_BAD_SNAPSHOT);
    ENSURE(cr_world_snapshot_restore(other.w, buf, n) == CR_ERR_BAD_SNAPSHOT);
    ENSURE(cr_world_layout_hash(a.w) != cr_world_layout_hash(other.w));
    ENSURE(cr_world_snapshot_restore(a.w, buf, n) == CR_OK);
    sim_step(&a, 30);
    ENSURE(cr_world_state_hash(a.w) == before);
    free(buf), free(a.block), free(other.block);
}
