/* test_hostile_capacity.c — every capacity full during a busy scene: the
 * step completes, the overflow is counted in the stats, every body stays
 * finite, and a snapshot taken while full restores to the same state.
 *
 * The busy scene: 27 spheres and boxes dropped in a 3x3x3 heap onto a plane,
 * touching within a few frames; one capacity at a time is cut far below what
 * the heap needs.
 */
#include "test.h"
#include "crumple/crumple.h"
#include "crumple/snapshot.h"
#include "base/check.h"

#include <stdlib.h>
#include <string.h>

typedef struct heap {
    void *block;
    cr_world *w;
    uint32_t made;      /* bodies created */
    cr_status refused;  /* the status of the first refused create */
} heap;

static bool heap_init(heap *h, cr_world_def def) {
    memset(h, 0, sizeof *h);
    size_t size = cr_world_memory_size(&def);
    if (size == 0) return false;
    h->block = aligned_alloc(CR_BLOCK_ALIGN, (size + 15) / 16 * 16);
    if (h->block == NULL || cr_world_create(&def, h->block, size, &h->w) != CR_OK) return false;
    cr_body_def bd = cr_default_body_def();
    bd.type = CR_BODY_STATIC;
    bd.shape.type = CR_SHAPE_PLANE;
    cr_body_id id;
    if (cr_body_create(h->w, &bd, &id) != CR_OK) return false;
    for (int i = 0; i < 27; ++i) {
        bd = cr_default_body_def();
        bd.position = cr_v3(cr_mul(CR_R(0.9), cr_from_int(i % 3 - 1)), cr_from_int(1 + i / 9), cr_mul(CR_R(0.9), cr_from_int(i / 3 % 3 - 1)));
        if (i & 1) {
            bd.shape.type = CR_SHAPE_BOX;
            bd.shape.half_extents = cr_v3(CR_R(0.4), CR_R(0.4), CR_R(0.4));
        } else {
            bd.shape.radius = CR_R(0.45);
        }
        bd.linear_velocity = cr_v3(0, CR_R(-3), 0);
        cr_status s = cr_body_create(h->w, &bd, &id);
        if (s == CR_OK) ++h->made;
        else if (h->refused == CR_OK) h->refused = s;
    }
    return true;
}

static bool heap_finite(const cr_world *w) {
    cr_body_id ids[64];
    uint32_t n = cr_world_get_body_ids(w, ids, 64);
    for (uint32_t i = 0; i < n; ++i) {
        cr_transform t = cr_body_get_transform(w, ids[i]);
        if (!cr_vec3_is_finite(t.p) || !cr_quat_is_finite(t.q) || !cr_vec3_is_finite(cr_body_get_linear_velocity(w, ids[i])))
            return false;
    }
    return true;
}

/* Steps 90 frames; returns the summed overflow of `stage`, or UINT32_MAX if a
 * promise broke. Half way, a snapshot is saved; at the end it is restored
 * and the same 45 frames must give the same hash. */
static uint32_t heap_run(heap *h, cr_stage stage) {
    uint32_t overflow = 0;
    size_t n = cr_world_snapshot_size(h->w);
    uint8_t *snap = malloc(n);
    uint64_t end_hash = 0;
    if (snap == NULL) return UINT32_MAX;
    for (int f = 0; f < 90; ++f) {
        if (f == 45 && cr_world_snapshot_save(h->w, snap, n) != CR_OK) overflow = UINT32_MAX;
        if (cr_world_step(h->w, CR_R(1.0 / 60.0)) != CR_OK || !heap_finite(h->w)) overflow = UINT32_MAX;
        cr_world_stats st = cr_world_get_stats(h->w);
        if (overflow != UINT32_MAX) overflow += st.stage[stage].overflow;
        if (st.frozen != 0) overflow = UINT32_MAX;
    }
    end_hash = cr_world_state_hash(h->w);
    if (cr_world_snapshot_restore(h->w, snap, n) != CR_OK) overflow = UINT32_MAX;
    for (int f = 45; f < 90; ++f) cr_world_step(h->w, CR_R(1.0 / 60.0));
    if (cr_world_state_hash(h->w) != end_hash) overflow = UINT32_MAX;
    free(snap);
    return overflow;
}

CR_TEST(hostile_capacity_bodies_full) {
    cr_world_def def = cr_default_world_def();
    def.body_capacity = 10;
    heap h;
    ENSURE(heap_init(&h, def));
    ENSURE(h.made == 9 && h.refused == CR_ERR_CAPACITY);
    uint32_t o = heap_run(&h, CR_STAGE_broadphase);
    ENSURE(o != UINT32_MAX);
    free(h.block);
}

CR_TEST(hostile_capacity_pairs_full) {
    cr_world_def def = cr_default_world_def();
    def.pair_capacity = 4;
    heap h;
    ENSURE(heap_init(&h, def) && h.made == 27);
    uint32_t o = heap_run(&h, CR_STAGE_broadphase);
    ENSURE_MSG(o != UINT32_MAX && o > 0, "overflow %u", o);
    free(h.block);
}

CR_TEST(hostile_capacity_points_full) {
    cr_world_def def = cr_default_world_def();
    def.point_capacity = 16;
    heap h;
    ENSURE(heap_init(&h, def) && h.made == 27);
    uint32_t o = heap_run(&h, CR_STAGE_narrowphase);
    ENSURE_MSG(o != UINT32_MAX && o > 0, "overflow %u", o);
    free(h.block);
}

CR_TEST(hostile_capacity_contacts_full) {
    cr_world_def def = cr_default_world_def();
    def.contact_capacity = 3;
    heap h;
    ENSURE(heap_init(&h, def) && h.made == 27);
    uint32_t o = heap_run(&h, CR_STAGE_narrowphase);
    ENSURE_MSG(o != UINT32_MAX && o > 0, "overflow %u", o);
    free(h.block);
}

CR_TEST(hostile_capacity_events_full) {
    cr_world_def def = cr_default_world_def();
    def.event_capacity = 1;
    heap h;
    ENSURE(heap_init(&h, def) && h.made == 27);
    uint32_t o = heap_run(&h, CR_STAGE_events);
    ENSURE_MSG(o != UINT32_MAX && o > 0, "overflow %u", o);
    free(h.block);
}

CR_TEST(hostile_capacity_joints_full) {
    cr_world_def def = cr_default_world_def();
    def.joint_capacity = 2;
    heap h;
    ENSURE(heap_init(&h, def) && h.made == 27);
    cr_body_id ids[32];
    ENSURE(cr_world_get_body_ids(h.w, ids, 32) == 28);
    cr_joint_def jd = cr_default_joint_def();
    cr_joint_id j;
    int made = 0;
    cr_status last = CR_OK;
    for (int i = 1; i < 6; ++i) {
        jd.body_a = ids[i];
        jd.body_b = ids[i + 1];
        jd.anchor = cr_body_get_transform(h.w, ids[i]).p;
        last = cr_joint_create(h.w, &jd, &j);
        made += last == CR_OK;
    }
    ENSURE(made == 2 && last == CR_ERR_CAPACITY);
    ENSURE(heap_run(&h, CR_STAGE_joints) != UINT32_MAX);
    free(h.block);
}
