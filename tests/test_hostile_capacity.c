/* test_hostile_capacity.c — every capacity full during a busy scene: the
 * step completes, the overflow is counted in the stats, every body stays
 * finite, and a snapshot taken while full restores to the same state.
 *
 * The busy scene: 27 spheres and boxes dropped in a 3x3x3 heap onto a plane,
 * touching within a few frames; one capacity at a time is cut far below what
 * the heap needs: bodies, pairs, points, contacts, events, joints, deferred
 * commands (a custom model asking for a piece at every impact) and dents
 * (three dentable cows under the heap, a queue of two impacts).
 */
#include "test_cook_util.h"
#include "crumple/snapshot.h"
#include "base/check.h"

typedef struct heap {
    void *block;
    cr_world *w;
    uint32_t made;      /* bodies created */
    cr_status refused;  /* the status of the first refused create */
} heap;

/* The world and its plane; `heap_drop` adds the heap. */
static bool heap_world(heap *h, cr_world_def def) {
    memset(h, 0, sizeof *h);
    size_t size = cr_world_memory_size(&def);
    if (size == 0) return false;
    h->block = aligned_alloc(CR_BLOCK_ALIGN, (size + 15) / 16 * 16);
    if (h->block == NULL || cr_world_create(&def, h->block, size, &h->w) != CR_OK) return false;
    cr_body_def bd = cr_default_body_def();
    bd.type = CR_BODY_STATIC;
    bd.shape.type = CR_SHAPE_PLANE;
    cr_body_id id;
    return cr_body_create(h->w, &bd, &id) == CR_OK;
}

/* 27 spheres and boxes, the lowest layer `lift` m above 1 m, falling at 3 m/s. */
static void heap_drop(heap *h, cr_real lift) {
    for (int i = 0; i < 27; ++i) {
        cr_body_def bd = cr_default_body_def();
        bd.position = cr_v3(cr_mul(CR_R(0.9), cr_from_int(i % 3 - 1)), cr_from_int(1 + i / 9) + lift, cr_mul(CR_R(0.9), cr_from_int(i / 3 % 3 - 1)));
        if (i & 1) {
            bd.shape.type = CR_SHAPE_BOX;
            bd.shape.half_extents = cr_v3(CR_R(0.4), CR_R(0.4), CR_R(0.4));
        } else {
            bd.shape.radius = CR_R(0.45);
        }
        bd.linear_velocity = cr_v3(0, CR_R(-3), 0);
        cr_body_id id;
        cr_status s = cr_body_create(h->w, &bd, &id);
        if (s == CR_OK) ++h->made;
        else if (h->refused == CR_OK) h->refused = s;
    }
}

static bool heap_init(heap *h, cr_world_def def) {
    if (!heap_world(h, def)) return false;
    heap_drop(h, 0);
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
 * promise broke. A snapshot is saved right after the first step in which
 * `stage` overflowed (while full), or half way; at the end it is restored
 * and the same frames must give the same hash. Each step's stats are
 * added into *sum if it is not null (a damage model's stats are per step). */
static uint32_t heap_run_stats(heap *h, cr_stage stage, cr_world_stats *sum);
static uint32_t heap_run(heap *h, cr_stage stage) { return heap_run_stats(h, stage, NULL); }

static void stats_add(cr_model_stats *a, const cr_model_stats *b) {
    a->done += b->done, a->work += b->work, a->waiting += b->waiting;
    a->over_capacity += b->over_capacity, a->shrunk += b->shrunk;
}

static uint32_t heap_run_stats(heap *h, cr_stage stage, cr_world_stats *sum) {
    uint32_t overflow = 0;
    size_t n = cr_world_snapshot_size(h->w);
    uint8_t *snap = malloc(n);
    int saved_at = -1; /* the snapshot is taken right after the first step that overflowed (else after step 45) */
    if (snap == NULL) return UINT32_MAX;
    for (int f = 0; f < 90; ++f) {
        if (cr_world_step(h->w, CR_R(1.0 / 60.0)) != CR_OK || !heap_finite(h->w)) overflow = UINT32_MAX;
        cr_world_stats st = cr_world_get_stats(h->w);
        if (overflow != UINT32_MAX) overflow += st.stage[stage].overflow;
        if (sum != NULL) {
            stats_add(&sum->dent, &st.dent), stats_add(&sum->custom, &st.custom);
            sum->commands_applied += st.commands_applied, sum->commands_waiting += st.commands_waiting;
            if (st.body_count > sum->body_count) sum->body_count = st.body_count;
        }
        if (st.frozen != 0) overflow = UINT32_MAX;
        if (saved_at < 0 && (st.stage[stage].overflow > 0 || f == 45)) {
            if (cr_world_snapshot_save(h->w, snap, n) != CR_OK) overflow = UINT32_MAX;
            saved_at = f;
        }
    }
    uint64_t end_hash = cr_world_state_hash(h->w);
    if (cr_world_snapshot_restore(h->w, snap, n) != CR_OK) overflow = UINT32_MAX;
    for (int f = saved_at + 1; f < 90; ++f) cr_world_step(h->w, CR_R(1.0 / 60.0));
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

/* Deferred commands: a custom model that, like fracture making pieces, asks
 * for a new body at every impact on a body it is attached to (above the hit,
 * so the heap keeps raining on itself) and a joint between its body and the
 * last piece, with a queue of 3 commands and room for 40 bodies. The queue
 * fills within the first impacts (refusals counted in commands_waiting, the
 * model keeps its wish in its state and asks again), then the world fills and
 * queued creates wait at the front of the queue, never dropped. */
typedef struct piece_state {
    uint32_t wanted;  /* pieces asked for and not yet queued */
    uint32_t queued;
} piece_state;

static uint32_t piece_step(void *user, cr_custom_step *st) {
    (void)user;
    piece_state *ps = (piece_state *)st->state;
    ps->wanted += st->impact_count;
    uint32_t work = 0;
    cr_transform t = cr_body_get_transform(st->world, st->body);
    while (ps->wanted > 0 && work < st->budget) {
        cr_body_def bd = cr_default_body_def();
        bd.shape.radius = CR_R(0.2);
        bd.position = cr_v3_add(t.p, cr_v3(cr_mul(CR_R(0.3), cr_from_int((int32_t)(ps->queued % 3) - 1)), CR_R(3), 0));
        ++work;
        if (cr_damage_defer_body_create(st->world, &bd) != CR_OK) break;
        ps->wanted--, ps->queued++;
        /* every other piece: a joint to the body, or a destroy of a stale handle */
        cr_joint_def jd = cr_default_joint_def();
        jd.body_a = st->body;
        jd.anchor = t.p;
        if (ps->queued & 1) (void)cr_damage_defer_joint_create(st->world, &jd);
        else (void)cr_damage_defer_body_destroy(st->world, (cr_body_id){0, 0});
    }
    st->waiting = ps->wanted;
    return work;
}

CR_TEST(hostile_capacity_deferred_commands_full) {
    cr_world_def def = cr_default_world_def();
    def.body_capacity = 40;
    def.joint_capacity = 4;
    def.damage.command_capacity = 3;
    def.damage.custom.body_capacity = 27;
    def.damage.custom.state_bytes = sizeof(piece_state);
    def.damage.custom.work_per_step = 64;
    def.damage.custom.step = piece_step;
    heap h;
    ENSURE(heap_init(&h, def) && h.made == 27);
    cr_body_id ids[64];
    uint32_t n = cr_world_get_body_ids(h.w, ids, 64);
    for (uint32_t i = 1; i < n; ++i) ENSURE(cr_custom_attach(h.w, ids[i]) == CR_OK);
    cr_world_stats sum;
    memset(&sum, 0, sizeof sum);
    uint32_t o = heap_run_stats(&h, CR_STAGE_damage, &sum);
    cr_test_printf("    commands applied %u, waiting (summed over steps) %u, bodies at most %u of 40, damage overflow %u\n",
                   sum.commands_applied, sum.commands_waiting, sum.body_count, o);
    ENSURE_MSG(o != UINT32_MAX, "a promise broke");
    ENSURE(sum.commands_waiting > 0 && o >= sum.commands_waiting);
    ENSURE(sum.commands_applied > 3);
    ENSURE(sum.body_count == 40);   /* the pieces filled the world; what waits stays queued */
    ENSURE(cr_world_get_stats(h.w).commands_waiting > 0);
    free(h.block);
}

/* Dents: three static dentable cows (the public spot mesh, cooked small) under
 * the heap; a fourth attach is refused (body_capacity 3), and with a queue of
 * 2 impacts and one dent per step the rain of 27 bodies overflows the queue
 * (counted over_capacity) and keeps dents waiting. */
CR_TEST(hostile_capacity_dents_full) {
    cr_cook_options opt = cr_cook_default_options();
    opt.quiet = true;
    opt.sdf_res = 24;
    opt.normalise = 1.4;
    cr_cook_result cooked;
    char err[512];
    ENSURE_MSG(cr_cook_file("data/meshes/spot.obj", NULL, &opt, &cooked, err, sizeof err) == 0, "%s", err);
    cr_asset asset;
    void *asset_block = tc_load(cooked.bytes, cooked.size, &asset);
    ENSURE(asset_block != NULL);
    cr_world_def def = cr_default_world_def();
    def.body_capacity = 40;
    def.damage.dent = cr_default_dent_budget();
    def.damage.dent.body_capacity = 3;
    def.damage.dent.queue_capacity = 2;
    def.damage.dent.dents_per_step = 1;
    heap h;
    ENSURE(heap_world(&h, def));
    uint32_t slot;
    ENSURE(cr_world_add_asset(h.w, &asset, &slot) == CR_OK);
    cr_dent_def dd = cr_default_dent_def();
    int attached = 0;
    cr_status last = CR_OK;
    for (int i = 0; i < 4; ++i) {
        cr_body_def bd = cr_default_body_def();
        bd.type = CR_BODY_STATIC;
        bd.shape.type = CR_SHAPE_MESH;
        bd.shape.asset = slot;
        bd.position = cr_v3(cr_from_int(i - 1), CR_R(0.7), cr_mul(CR_R(0.5), cr_from_int(i & 1)));
        cr_body_id id;
        ENSURE(cr_body_create(h.w, &bd, &id) == CR_OK);
        last = cr_dent_attach(h.w, id, &dd);
        attached += last == CR_OK;
    }
    ENSURE(attached == 3 && last == CR_ERR_CAPACITY);
    heap_drop(&h, CR_R(1.5));
    ENSURE(h.made == 27);
    cr_world_stats sum;
    memset(&sum, 0, sizeof sum);
    uint32_t o = heap_run_stats(&h, CR_STAGE_damage, &sum);
    cr_test_printf("    dents %u, impacts over the queue %u, waiting (summed over steps) %u, damage overflow %u\n",
                   sum.dent.done, sum.dent.over_capacity, sum.dent.waiting, o);
    ENSURE_MSG(o != UINT32_MAX, "a promise broke");
    ENSURE(sum.dent.done > 0 && sum.dent.over_capacity > 0 && sum.dent.waiting > 0);
    ENSURE(o >= sum.dent.waiting);
    free(h.block);
    free(asset_block);
    cr_cook_result_free(&cooked);
}
