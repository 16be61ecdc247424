/* test_broadphase.c — the broadphase against a brute-force reference, and its
 * work counted (stats.broadphase_tests): it finds exactly the pairs of
 * overlapping swept boxes for any mix of body sizes (a 100 m box, a 40 m rod,
 * centimetre spheres), its work stays linear as the pile doubles, and a world
 * of sleeping bodies costs what its moving part costs (solver/broadphase.c).
 *
 * The reference is written here from the rule the broadphase documents, not
 * from its code: every pair of alive, enabled, non-ghost bodies whose swept
 * boxes (start-of-step bounding sphere over one step's motion, grown by
 * CR_CANDIDATE_SLOP + |g| dt^2) overlap, or a plane and a body whose swept
 * sphere reaches it, with at least one awake dynamic body. The broadphase's
 * pairs are read through the world def's pair_filter hook, which sees them in
 * sorted order. */
#include "test_solver_util.h"
#include "base/block.h"
#include "solver/solver.h"
#include "stb_ds.h"

typedef struct bp_record {
    uint64_t *pairs; /* stb_ds array: (slot a, slot b) keys in the order seen */
} bp_record;

static bool record_pair(void *user, cr_body_id a, cr_body_id b) {
    bp_record *r = user;
    arrput(r->pairs, ((uint64_t)(a.index1 - 1u) << 32) | (b.index1 - 1u));
    return true;
}

static bool in_step(const cr_body *b) { return b->alive && !b->ghost && !b->disabled; }
static bool moves(const cr_body *b) { return b->type == CR_BODY_DYNAMIC && !b->asleep; }

/* The O(n^2) reference for the state the next step starts from. */
static uint64_t *brute_force_pairs(const cr_world *w, cr_real dt) {
    const cr_body *bodies = cr_world_bodies_c(w);
    cr_real grow = CR_CANDIDATE_SLOP + cr_mul(cr_v3_len(w->def.gravity), cr_mul(dt, dt));
    uint64_t *out = NULL;
    for (uint32_t i = 0; i < w->body_high; ++i) {
        const cr_body *a = &bodies[i];
        if (!in_step(a)) continue;
        for (uint32_t j = i + 1; j < w->body_high; ++j) {
            const cr_body *b = &bodies[j];
            if (!in_step(b) || (!moves(a) && !moves(b))) continue;
            bool pa = a->shape.type == CR_SHAPE_PLANE, pb = b->shape.type == CR_SHAPE_PLANE;
            bool hit;
            if (pa && pb) {
                hit = false;
            } else if (pa || pb) {
                const cr_body *plane = pa ? a : b, *o = pa ? b : a;
                cr_vec3 n = cr_quat_rotate(plane->xf.q, cr_v3(0, CR_R(1), 0));
                cr_real d = cr_v3_dot(n, cr_v3_sub(o->xf.p, plane->xf.p));
                cr_real approach = cr_mul(dt, cr_v3_dot(n, o->v));
                if (approach > 0) approach = 0;
                hit = d + approach - o->bound_radius - grow < 0;
            } else {
                cr_vec3 lo[2], hi[2];
                const cr_body *two[2] = {a, b};
                for (int k = 0; k < 2; ++k) {
                    cr_vec3 x0 = two[k]->xf.p, x1 = cr_v3_mad(x0, dt, two[k]->v);
                    cr_real e = two[k]->bound_radius + grow;
                    lo[k] = cr_v3_sub(cr_v3_min(x0, x1), cr_v3(e, e, e));
                    hi[k] = cr_v3_add(cr_v3_max(x0, x1), cr_v3(e, e, e));
                }
                hit = lo[0].x <= hi[1].x && lo[1].x <= hi[0].x && lo[0].y <= hi[1].y && lo[1].y <= hi[0].y &&
                      lo[0].z <= hi[1].z && lo[1].z <= hi[0].z;
            }
            if (hit) arrput(out, ((uint64_t)i << 32) | j);
        }
    }
    return out;
}

static uint32_t rng_next(uint32_t *s) {
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}
static double rng_unit(uint32_t *s) { return (double)(rng_next(s) & 0xffffu) / 65536.0; }

static cr_world_def bp_def(uint32_t bodies, bp_record *rec) {
    cr_world_def def = cr_default_world_def();
    def.body_capacity = bodies;
    def.pair_capacity = 60000;
    def.contact_capacity = 8192;
    def.point_capacity = 65536;
    def.pair_filter = record_pair;
    def.pair_filter_user = rec;
    return def;
}

/* Steps the world, comparing every step's pairs with the reference (steps
 * that woke a body run the broadphase twice and are not compared). Returns
 * the steps compared; *mismatch counts the steps that differed. */
static int compare_steps(cr_world *w, bp_record *rec, int steps, int *mismatch, uint32_t *most_pairs) {
    int compared = 0;
    for (int t = 0; t < steps; ++t) {
        uint64_t *ref = brute_force_pairs(w, TS_DT);
        arrsetlen(rec->pairs, 0);
        if (cr_world_step(w, TS_DT) != CR_OK) {
            ++*mismatch;
            arrfree(ref);
            break;
        }
        cr_world_stats st = cr_world_get_stats(w);
        if (st.woken == 0) {
            ++compared;
            bool same = arrlen(ref) == arrlen(rec->pairs);
            for (ptrdiff_t k = 0; same && k < arrlen(ref); ++k) same = ref[k] == rec->pairs[k];
            if (!same) {
                if (*mismatch == 0)
                    cr_test_printf("    step %d: %d pairs, the reference has %d\n", t, (int)arrlen(rec->pairs),
                                   (int)arrlen(ref));
                ++*mismatch;
            }
            if ((uint32_t)arrlen(ref) > *most_pairs) *most_pairs = (uint32_t)arrlen(ref);
        }
        arrfree(ref);
    }
    return compared;
}

/* A 100 m static box under 500 spheres of 2 cm to 1 m, a 40 m thin rod lying
 * across the pile and a few 3 m boxes, on a plane: every step's pairs are
 * the reference's, in the same order. */
CR_TEST(broadphase_mixed_sizes_match_brute_force) {
    bp_record rec = {NULL};
    cr_world_def def = bp_def(600, &rec);
    cr_world *w = ts_world(&def);
    ENSURE(w != NULL);
    cr_material m = ts_material(0.2, 0.5);
    ts_ground(w, m);
    cr_body_def slab = cr_default_body_def();
    slab.type = CR_BODY_STATIC;
    slab.shape.type = CR_SHAPE_BOX;
    slab.shape.half_extents = ts_v(50, 0.5, 50);
    slab.position = ts_v(0, 0.5, 0);
    slab.material = m;
    cr_body_id id;
    ENSURE(cr_body_create(w, &slab, &id) == CR_OK);
    uint32_t seed = 29;
    for (int i = 0; i < 500; ++i) {
        double r = i % 7 == 0 ? 0.5 + 0.5 * rng_unit(&seed) : 0.02 + 0.15 * rng_unit(&seed);
        ts_sphere(w, ts_v(-10 + 20 * rng_unit(&seed), 1.2 + 6 * rng_unit(&seed), -3 + 6 * rng_unit(&seed)), r, m);
    }
    ts_box(w, ts_v(0, 3, 0), cr_quat_from_axis_angle(ts_v(0, 1, 0), CR_R(0.3)), ts_v(20, 0.05, 0.05), m); /* the rod */
    for (int i = 0; i < 4; ++i) ts_box(w, ts_v(-6 + 4 * i, 9, 0), cr_quat_identity(), ts_v(1.5, 1.5, 1.5), m);
    int mismatch = 0;
    uint32_t most = 0;
    int compared = compare_steps(w, &rec, 90, &mismatch, &most);
    cr_test_printf("    %d steps compared with the O(n^2) reference, up to %u pairs a step: %d differed\n", compared,
                   most, mismatch);
    ENSURE(mismatch == 0);
    ENSURE(compared >= 45); /* steps that woke a body are not compared */
    ENSURE(most > 500); /* the slab and the rod meet many bodies */
    arrfree(rec.pairs);
    ts_free(w);
}

/* One step of a cloud of n bodies (mostly 5 cm spheres, every tenth a 2 m
 * box) at a fixed density, so twice the bodies fill twice the volume: the
 * broadphase's tests per body stay flat while the pairs match the reference. */
CR_TEST(broadphase_work_stays_linear_as_the_pile_doubles) {
    double per_body[4];
    for (int round = 0; round < 4; ++round) {
        uint32_t n = 250u << round;
        bp_record rec = {NULL};
        cr_world_def def = bp_def(n + 1, &rec);
        cr_world *w = ts_world(&def);
        ENSURE(w != NULL);
        cr_material m = ts_material(0, 0.5);
        ts_ground(w, m);
        double side = 12.0 * cbrt((double)n / 250.0);
        uint32_t seed = 7;
        for (uint32_t i = 0; i < n; ++i) {
            cr_vec3 p = ts_v(side * rng_unit(&seed), 1 + side * rng_unit(&seed), side * rng_unit(&seed));
            if (i % 10 == 0) ts_box(w, p, cr_quat_identity(), ts_v(1, 1, 1), m);
            else ts_sphere(w, p, 0.05, m);
        }
        int mismatch = 0;
        uint32_t most = 0;
        ENSURE(compare_steps(w, &rec, 1, &mismatch, &most) == 1);
        ENSURE(mismatch == 0);
        cr_world_stats st = cr_world_get_stats(w);
        per_body[round] = (double)st.broadphase_tests / n;
        cr_test_printf("    %4u bodies: %u pairs, %u broadphase tests (%.1f per body)\n", n, st.pairs,
                       st.broadphase_tests, per_body[round]);
        arrfree(rec.pairs);
        ts_free(w);
    }
    for (int round = 1; round < 4; ++round) ENSURE(per_body[round] < 1.3 * per_body[0]);
}

/* n boxes resting apart on the ground, asleep after sleep_time, then a stack
 * of ten kept awake: the step's broadphase tests, velocity updates and
 * position updates are those of the stack alone. (The stack comes after the
 * sleepers fell asleep: while they settle, the collision passes' early exit,
 * which looks at every pair, runs a different number of passes.) */
static cr_world_stats sleepers_and_stack(uint32_t sleepers) {
    cr_world_def def = cr_default_world_def();
    def.body_capacity = sleepers + 16;
    def.pair_capacity = 4 * sleepers + 256;
    def.contact_capacity = 2 * sleepers + 256;
    def.point_capacity = 16 * sleepers + 1024;
    cr_world *w = ts_world(&def);
    cr_world_stats st;
    memset(&st, 0, sizeof st);
    if (w == NULL) return st;
    cr_material m = ts_material(0, 0.5);
    ts_ground(w, m);
    for (uint32_t i = 0; i < sleepers; ++i)
        ts_box(w, ts_v(10 + 1.5 * (i % 40), 0.5, 1.5 * (double)(i / 40)), cr_quat_identity(), ts_v(0.5, 0.5, 0.5), m);
    for (int t = 0; t < 60; ++t) cr_world_step(w, TS_DT);
    for (int i = 0; i < 10; ++i) {
        cr_body_def bd = cr_default_body_def();
        bd.shape.type = CR_SHAPE_BOX;
        bd.shape.half_extents = ts_v(0.5, 0.5, 0.5);
        bd.position = ts_v(0, 0.5 + i, 0);
        bd.material = m;
        bd.no_sleep = true;
        cr_body_id id;
        if (cr_body_create(w, &bd, &id) != CR_OK) break;
    }
    for (int t = 0; t < 90; ++t) cr_world_step(w, TS_DT);
    st = cr_world_get_stats(w);
    ts_free(w);
    return st;
}

CR_TEST(broadphase_sleeping_bodies_cost_nothing_per_step) {
    cr_world_stats alone = sleepers_and_stack(0), some = sleepers_and_stack(1000), more = sleepers_and_stack(2000);
    const cr_world_stats *all[3] = {&alone, &some, &more};
    for (int k = 0; k < 3; ++k)
        cr_test_printf("    %4d sleepers + a stack of 10: %u asleep, %u pairs, %u broadphase tests, %u velocity and %u "
                       "position updates\n",
                       k == 0 ? 0 : 1000 * k, all[k]->sleeping, all[k]->pairs, all[k]->broadphase_tests,
                       all[k]->stage[CR_STAGE_velocity].work, all[k]->stage[CR_STAGE_position].work);
    ENSURE(alone.broadphase_tests > 0);
    ENSURE(some.sleeping == 1000 && more.sleeping == 2000);
    for (int k = 1; k < 3; ++k) {
        ENSURE(all[k]->pairs == alone.pairs);
        ENSURE(all[k]->broadphase_tests == alone.broadphase_tests);
        ENSURE(all[k]->stage[CR_STAGE_velocity].work == 10);
        ENSURE(all[k]->stage[CR_STAGE_position].work == 10);
    }
}
