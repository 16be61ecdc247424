/* test_filter.c — collision filters as a game uses them: categories, masks
 * and groups in the body def and by setter, the pairs they remove from the
 * broadphase (counted in the stats, not timed), and the state hash that must
 * tell filtered worlds apart. */
#include "test.h"
#include "crumple/crumple.h"

#include <stdlib.h>
#include <string.h>

static cr_world *filter_world(void **block, uint32_t bodies) {
    cr_world_def def = cr_default_world_def();
    def.body_capacity = bodies;
    size_t size = cr_world_memory_size(&def);
    *block = aligned_alloc(CR_BLOCK_ALIGN, (size + 15) / 16 * 16);
    cr_world *w = NULL;
    if (cr_world_create(&def, *block, size, &w) != CR_OK) return NULL;
    return w;
}

CR_TEST(filter_default_set_get_and_hash) {
    void *block;
    cr_world *w = filter_world(&block, 4);
    ENSURE(w != NULL);
    cr_body_def bd = cr_default_body_def();
    ENSURE(bd.filter.category_bits == 1 && bd.filter.mask_bits == ~(uint64_t)0 && bd.filter.group_index == 0);
    cr_body_id a;
    ENSURE(cr_body_create(w, &bd, &a) == CR_OK);
    cr_filter f = cr_body_get_filter(w, a);
    ENSURE(f.category_bits == 1 && f.mask_bits == ~(uint64_t)0 && f.group_index == 0);
    uint64_t h0 = cr_world_state_hash(w);
    f.category_bits = 4;
    f.mask_bits = 2;
    f.group_index = -3;
    ENSURE(cr_body_set_filter(w, a, f) == CR_OK);
    cr_filter g = cr_body_get_filter(w, a);
    ENSURE(g.category_bits == 4 && g.mask_bits == 2 && g.group_index == -3);
    ENSURE(cr_world_state_hash(w) != h0); /* the filter changes what the step sees */
    ENSURE(cr_body_set_filter(w, a, cr_default_filter()) == CR_OK);
    ENSURE(cr_world_state_hash(w) == h0);
    cr_body_id stale = a;
    ENSURE(cr_body_destroy(w, a) == CR_OK);
    ENSURE(cr_body_set_filter(w, stale, f) == CR_ERR_STALE_HANDLE);
    ENSURE(cr_body_get_filter(w, stale).category_bits == 1);
    free(block);
}

/* A pile of spheres thrown together into a clump, without gravity so every
 * pair the stats count is a pair of pile bodies; with `split`, the even
 * bodies are category 2 and the odd ones category 4, each masking out the
 * other. A static ground plane (category 1) far below collides with both
 * and is never reached: it makes the hooks' ids include a non-pile body. */
typedef struct pile_run {
    uint64_t pairs, points;   /* broadphase pairs and narrowphase points over the run */
    uint32_t cross_pairs;     /* impact events between the halves */
    uint32_t cross_overlaps;  /* end-of-run sphere pairs of different halves closer than their radii */
    uint32_t odd_pairs;       /* impact events between two odd slots */
    uint64_t hash;
} pile_run;

#define PILE_N 48
#define PILE_R 0.25

/* The game's hook: drops every pair of two odd slots, and checks it is
 * called in ascending pair order within each step. */
typedef struct hook_log {
    uint64_t last; /* the last pair seen this step (0: none yet) */
    uint32_t calls, dropped, out_of_order;
} hook_log;

static bool drop_odd_pairs(void *user, cr_body_id a, cr_body_id b) {
    hook_log *log = (hook_log *)user;
    uint64_t key = (uint64_t)a.index1 << 32 | b.index1;
    if (a.index1 >= b.index1 || key <= log->last) log->out_of_order++;
    log->last = key;
    log->calls++;
    bool keep = !((a.index1 & 1u) && (b.index1 & 1u));
    if (!keep) log->dropped++;
    return keep;
}

static int pile_half(uint32_t index1) { return (int)((index1 - 2) & 1u); }

static pile_run run_pile(int split, hook_log *log) {
    pile_run r;
    memset(&r, 0, sizeof r);
    cr_world_def def = cr_default_world_def();
    def.body_capacity = PILE_N + 1;
    def.pair_capacity = 4096;
    def.pair_filter = log != NULL ? drop_odd_pairs : NULL;
    def.pair_filter_user = log;
    def.gravity = cr_v3_zero();
    size_t size = cr_world_memory_size(&def);
    void *block = aligned_alloc(CR_BLOCK_ALIGN, (size + 15) / 16 * 16);
    cr_world *w = NULL;
    if (cr_world_create(&def, block, size, &w) != CR_OK) {
        free(block);
        r.hash = 0;
        return r;
    }
    cr_body_def ground = cr_default_body_def();
    ground.type = CR_BODY_STATIC;
    ground.shape.type = CR_SHAPE_PLANE;
    ground.position = cr_v3(0, CR_R(-50), 0);
    cr_body_id gid;
    cr_body_create(w, &ground, &gid);
    cr_body_id ids[PILE_N];
    for (int i = 0; i < PILE_N; ++i) {
        cr_body_def bd = cr_default_body_def();
        bd.shape.radius = CR_R(PILE_R);
        /* a 4 x 4 x 3 lattice, each body thrown at the centre */
        bd.position = cr_v3(CR_R(0.6) * (i % 4) + CR_R(0.01) * (i % 3), CR_R(0.6) * (i / 16), CR_R(0.6) * ((i / 4) % 4));
        bd.linear_velocity = cr_v3_scale(cr_v3_sub(cr_v3(CR_R(0.9), CR_R(0.6), CR_R(0.9)), bd.position), CR_R(2));
        if (split) {
            int half = i & 1;
            bd.filter.category_bits = half ? 4 : 2;
            bd.filter.mask_bits = 1u | (half ? 4u : 2u);
        }
        cr_body_create(w, &bd, &ids[i]);
    }
    cr_impact_event ev[256];
    for (int f = 0; f < 120; ++f) {
        cr_world_step(w, CR_R(1.0 / 60.0));
        if (log != NULL) log->last = 0;
        cr_world_stats st = cr_world_get_stats(w);
        r.pairs += st.stage[CR_STAGE_broadphase].work;
        r.points += st.stage[CR_STAGE_narrowphase].work;
        uint32_t n = cr_world_get_events(w, ev, 256);
        for (uint32_t e = 0; e < n && e < 256; ++e) {
            if (ev[e].body_a.index1 < 2 || ev[e].body_b.index1 < 2) continue; /* the ground */
            if (pile_half(ev[e].body_a.index1) != pile_half(ev[e].body_b.index1)) r.cross_pairs++;
            if ((ev[e].body_a.index1 & 1u) && (ev[e].body_b.index1 & 1u)) r.odd_pairs++;
        }
    }
    for (int i = 0; i < PILE_N; ++i)
        for (int j = i + 1; j < PILE_N; ++j) {
            if ((i & 1) == (j & 1)) continue;
            cr_vec3 d = cr_v3_sub(cr_body_get_transform(w, ids[i]).p, cr_body_get_transform(w, ids[j]).p);
            if (cr_to_double(cr_v3_dot(d, d)) < (2 * PILE_R * 0.9) * (2 * PILE_R * 0.9)) r.cross_overlaps++;
        }
    r.hash = cr_world_state_hash(w);
    free(block);
    return r;
}

CR_TEST(filter_halves_of_a_pile_ignore_each_other_for_half_the_work) {
    pile_run all = run_pile(0, NULL);
    pile_run split = run_pile(1, NULL);
    ENSURE(all.hash != 0 && split.hash != 0);
    cr_test_printf("  pile of %d: pairs %llu -> %llu, narrowphase points %llu -> %llu\n", PILE_N,
                   (unsigned long long)all.pairs, (unsigned long long)split.pairs, (unsigned long long)all.points,
                   (unsigned long long)split.points);
    ENSURE(all.cross_overlaps == 0);       /* one pile: nothing passes through */
    ENSURE(split.cross_pairs == 0);        /* no body of one half hits the other */
    ENSURE(split.cross_overlaps > 0);      /* they pass through each other instead */
    /* the pairs within each half are about a quarter of all pairs each: at
     * most about half the work */
    ENSURE_MSG(split.pairs * 100 <= all.pairs * 55, "pairs %llu of %llu", (unsigned long long)split.pairs,
               (unsigned long long)all.pairs);
    ENSURE_MSG(split.points * 100 <= all.points * 55, "points %llu of %llu", (unsigned long long)split.points,
               (unsigned long long)all.points);
    pile_run again = run_pile(1, NULL);
    ENSURE(again.hash == split.hash);
}

CR_TEST(filter_groups_override_the_bits) {
    cr_filter a = cr_default_filter(), b = cr_default_filter();
    ENSURE(cr_filter_collides(a, b));
    a.mask_bits = 0; /* a ignores everything ... */
    ENSURE(!cr_filter_collides(a, b) && !cr_filter_collides(b, a));
    a.group_index = b.group_index = 7; /* ... but its own positive group */
    ENSURE(cr_filter_collides(a, b));
    a = cr_default_filter();
    b = cr_default_filter();
    a.group_index = b.group_index = -2; /* a ragdoll's limbs */
    ENSURE(!cr_filter_collides(a, b));
    b.group_index = -3; /* different groups: the bits decide */
    ENSURE(cr_filter_collides(a, b));
    b.category_bits = 8;
    a.mask_bits = 1;
    ENSURE(!cr_filter_collides(a, b));
}

CR_TEST(filter_pair_hook_sees_sorted_pairs_and_drops_them) {
    pile_run all = run_pile(0, NULL);
    hook_log log;
    memset(&log, 0, sizeof log);
    pile_run hooked = run_pile(0, &log);
    ENSURE(log.calls > 0 && log.dropped > 0 && log.out_of_order == 0);
    ENSURE(all.odd_pairs > 0 && hooked.odd_pairs == 0);
    ENSURE(hooked.hash != all.hash);
}
