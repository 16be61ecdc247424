/* test_solver_events.c — impact events and the capacities of the solver: a
 * game reads the events for sound and sparks; a console host relies on
 * every capacity being a hard bound that is counted, never overrun. */
#include "test_solver_util.h"

CR_TEST(solver_impact_event_has_point_normal_and_speed) {
    cr_world_def def = cr_default_world_def();
    cr_world *w = ts_world(&def);
    ENSURE(w != NULL);
    cr_material m = ts_material(0.5, 0.5);
    cr_body_id ground = ts_ground(w, m);
    cr_body_id ball = ts_sphere(w, ts_v(0.3, 2.25, -0.2), 0.25, m);
    int events_seen = 0, impact_step = -1;
    cr_impact_event ev;
    memset(&ev, 0, sizeof ev);
    for (int s = 0; s < 60; ++s) {
        ENSURE(cr_world_step(w, TS_DT) == CR_OK);
        uint32_t n = cr_world_get_events(w, NULL, 0);
        ENSURE(cr_world_get_stats(w).stage[CR_STAGE_events].work == n);
        if (n > 0) {
            ENSURE(n == 1);
            ENSURE(cr_world_get_events(w, &ev, 1) == 1);
            if (impact_step < 0) impact_step = s;
            ++events_seen;
        }
    }
    /* falling 2 m: one impact, approach ~ sqrt(2 g h) */
    ENSURE(events_seen == 1);
    int ball_is_a = ev.body_a.index1 == ball.index1;
    ENSURE(ball_is_a || ev.body_b.index1 == ball.index1);
    ENSURE((ball_is_a ? ev.body_b.index1 : ev.body_a.index1) == ground.index1);
    /* the normal points from b into a; for the ball that is up */
    double ny = ts_d(ev.normal.y) * (ball_is_a ? 1 : -1);
    cr_test_printf("    impact at step %d: normal_speed %.3f m/s, normal (%.2f %.2f %.2f), point (%.3f %.3f %.3f), impulse %.2f N s\n",
                   impact_step, ts_d(ev.normal_speed), ts_d(ev.normal.x), ts_d(ev.normal.y), ts_d(ev.normal.z), ts_d(ev.point.x),
                   ts_d(ev.point.y), ts_d(ev.point.z), ts_d(ev.impulse));
    ENSURE_NEAR(ny, 1.0, 1e-4);
    ENSURE(ts_d(ev.normal_speed) < 0);
    ENSURE_NEAR(ts_d(ev.normal_speed), -sqrt(2 * 9.81 * 2.0), 0.25);
    ENSURE_NEAR(ts_d(cr_v3_dot(ev.relative_velocity, ev.normal)), ts_d(ev.normal_speed), 1e-4);
    /* the contact point, where the ball touches the ground */
    ENSURE_NEAR(ts_d(ev.point.x), 0.3, 1e-3);
    ENSURE_NEAR(ts_d(ev.point.z), -0.2, 1e-3);
    ENSURE(fabs(ts_d(ev.point.y)) < 0.12);
    /* impulse = m (1 + e) v */
    double mass = ts_d(cr_body_get_mass(w, ball));
    ENSURE_NEAR(ts_d(ev.impulse), mass * 1.5 * -ts_d(ev.normal_speed), 0.1 * mass * 1.5 * -ts_d(ev.normal_speed));
    /* resting afterwards makes no more events: contact is not collision */
    for (int s = 0; s < 120; ++s) cr_world_step(w, TS_DT);
    ENSURE(cr_world_get_events(w, NULL, 0) == 0);
    ts_free(w);
}

/* Twenty spheres in a heap with every solver capacity far too small: every
 * step completes, what did not fit is counted, and nothing is written out of
 * bounds (the sanitizer build checks that part). */
CR_TEST(solver_capacity_overflow_is_counted_and_the_step_completes) {
    cr_world_def def = cr_default_world_def();
    def.body_capacity = 32;
    def.pair_capacity = 6;
    def.contact_capacity = 4;
    def.points_per_pair = 2;
    def.point_capacity = 5;
    def.event_capacity = 1;
    cr_world *w = ts_world(&def);
    ENSURE(w != NULL);
    cr_material m = ts_material(0.3, 0.5);
    ts_ground(w, m);
    for (int i = 0; i < 20; ++i) {
        ENSURE(!cr_body_id_is_null(ts_sphere(w, ts_v(0.3 * (i % 3), 0.5 + 0.45 * i, 0.3 * (i % 2)), 0.25, m)));
    }
    /* boxes too, so points per pair overflow (a box has 20 samples) */
    ts_box(w, ts_v(3, 0.5, 0), cr_quat_identity(), ts_v(0.5, 0.5, 0.5), m);
    ts_box(w, ts_v(3, 1.5, 0), cr_quat_identity(), ts_v(0.5, 0.5, 0.5), m);
    uint32_t over_bp = 0, over_np = 0, over_ev = 0, max_pairs = 0, max_mf = 0, max_pts = 0;
    for (int s = 0; s < 240; ++s) {
        ENSURE(cr_world_step(w, TS_DT) == CR_OK);
        cr_world_stats st = cr_world_get_stats(w);
        over_bp += st.stage[CR_STAGE_broadphase].overflow;
        over_np += st.stage[CR_STAGE_narrowphase].overflow;
        over_ev += st.stage[CR_STAGE_events].overflow;
        if (st.pairs > max_pairs) max_pairs = st.pairs;
        if (st.manifolds > max_mf) max_mf = st.manifolds;
        if (st.points > max_pts) max_pts = st.points;
        ENSURE(cr_world_get_events(w, NULL, 0) <= 1);
    }
    cr_memory_stats mem = cr_world_memory_stats(w);
    cr_test_printf("    overflow counted: broadphase %u, narrowphase %u, events %u; most pairs %u/6, manifolds %u/4, points %u/5; "
                   "scratch high water %zu of %zu B\n",
                   over_bp, over_np, over_ev, max_pairs, max_mf, max_pts, mem.scratch_high_water, mem.scratch_capacity);
    ENSURE(over_bp > 0 && over_np > 0 && over_ev > 0);
    ENSURE(max_pairs <= 6 && max_mf <= 4 && max_pts <= 5);
    ENSURE(mem.scratch_high_water <= mem.scratch_capacity && mem.high_water <= mem.capacity);
    ts_free(w);
}

/* The scratch arena is sized from the capacities: a world never runs short,
 * and the report says how much a step took. */
CR_TEST(solver_scratch_is_sized_from_the_def) {
    cr_world_def def = cr_default_world_def();
    def.body_capacity = 1000;
    def.pair_capacity = 8000;
    def.contact_capacity = 6000;
    def.point_capacity = 40000;
    def.scratch_bytes = 1024; /* far too small: the world takes what the capacities need */
    size_t need = cr_world_scratch_size(&def);
    ENSURE(need > 1024);
    cr_world *w = ts_world(&def);
    ENSURE(w != NULL);
    cr_memory_stats m0 = cr_world_memory_stats(w);
    ENSURE(m0.scratch_capacity >= need);
    ts_ground(w, ts_material(0, 0.5));
    for (int i = 0; i < 50; ++i) ts_box(w, ts_v(0, 0.5 + 1.01 * i, 0), cr_quat_identity(), ts_v(0.5, 0.5, 0.5), ts_material(0, 0.5));
    ENSURE(cr_world_step(w, TS_DT) == CR_OK);
    cr_memory_stats m1 = cr_world_memory_stats(w);
    ENSURE(m1.scratch_high_water > 0 && m1.scratch_high_water <= m1.scratch_capacity);
    ENSURE(cr_world_get_stats(w).stage[CR_STAGE_commands].overflow == 0);
    ts_free(w);
}

/* A pile at rest falls asleep and leaves the solver; a ball thrown at it
 * wakes the island it hits; sleeping bodies do not drift; destroying a
 * body under a sleeping one wakes it so it falls. */
CR_TEST(solver_sleeping_islands_rest_and_wake) {
    cr_world_def def = cr_default_world_def();
    cr_world *w = ts_world(&def);
    ENSURE(w != NULL && def.sleep);
    cr_material m = ts_material(0.1, 0.6);
    ts_ground(w, m);
    cr_body_id stack[4], far_box;
    for (int i = 0; i < 4; ++i) stack[i] = ts_box(w, ts_v(0, 0.5 + i, 0), cr_quat_identity(), ts_v(0.5, 0.5, 0.5), m);
    far_box = ts_box(w, ts_v(20, 0.5, 0), cr_quat_identity(), ts_v(0.5, 0.5, 0.5), m);
    for (int s = 0; s < 90; ++s) cr_world_step(w, TS_DT);
    ENSURE(cr_body_is_sleeping(w, stack[3]) && cr_body_is_sleeping(w, far_box));
    cr_world_stats st = cr_world_get_stats(w);
    ENSURE(st.sleeping == 5);
    cr_vec3 before = ts_pos(w, stack[3]);
    for (int s = 0; s < 60; ++s) cr_world_step(w, TS_DT);
    st = cr_world_get_stats(w);
    /* nothing awake: no pairs solved, nothing moves */
    ENSURE(st.manifolds == 0 && st.stage[CR_STAGE_contact].work == 0);
    ENSURE(ts_dist(ts_pos(w, stack[3]), before) == 0);
    /* a ball thrown at the stack wakes it, not the far box */
    cr_body_id ball = ts_sphere(w, ts_v(-3, 3.5, 0), 0.3, m);
    cr_body_set_velocity(w, ball, ts_v(10, 0, 0), cr_v3_zero());
    int woke_at = -1;
    for (int s = 0; s < 30 && woke_at < 0; ++s) {
        cr_world_step(w, TS_DT);
        if (!cr_body_is_sleeping(w, stack[3])) woke_at = s;
    }
    cr_test_printf("    4-box stack asleep after 1.5 s; ball thrown at it woke it at step %d; far box asleep: %d\n", woke_at,
                   cr_body_is_sleeping(w, far_box));
    ENSURE(woke_at >= 0);
    ENSURE(!cr_body_is_sleeping(w, stack[0]));
    ENSURE(cr_body_is_sleeping(w, far_box));
    /* the far box: destroy what it rests on (nothing but the ground) - instead
     * put a box on it, let both sleep, remove the lower one: the upper falls */
    cr_body_id top = ts_box(w, ts_v(20, 1.5, 0), cr_quat_identity(), ts_v(0.5, 0.5, 0.5), m);
    for (int s = 0; s < 120; ++s) cr_world_step(w, TS_DT);
    ENSURE(cr_body_is_sleeping(w, top));
    ENSURE(cr_body_destroy(w, far_box) == CR_OK);
    ENSURE(!cr_body_is_sleeping(w, top));
    for (int s = 0; s < 60; ++s) cr_world_step(w, TS_DT);
    ENSURE_NEAR(ts_d(ts_pos(w, top).y), 0.5, 0.01);
    ts_free(w);
}

/* A kinematic body moves by the velocity the host gives it, whatever it
 * touches, and pushes dynamic bodies out of its way. */
CR_TEST(solver_kinematic_body_moves_by_its_velocity_and_pushes) {
    cr_world_def def = cr_default_world_def();
    cr_world *w = ts_world(&def);
    cr_material m = ts_material(0.0, 0.5);
    ts_ground(w, m);
    cr_body_def kd = cr_default_body_def();
    kd.type = CR_BODY_KINEMATIC;
    kd.shape.type = CR_SHAPE_BOX;
    kd.shape.half_extents = ts_v(0.2, 0.5, 1.0);
    kd.position = ts_v(-2, 0.55, 0);
    kd.linear_velocity = ts_v(1.0, 0, 0);
    kd.material = m;
    cr_body_id pusher;
    ENSURE(cr_body_create(w, &kd, &pusher) == CR_OK);
    cr_body_id box = ts_box(w, ts_v(0, 0.5, 0), cr_quat_identity(), ts_v(0.5, 0.5, 0.5), m);
    for (int s = 0; s < 180; ++s) ENSURE(cr_world_step(w, TS_DT) == CR_OK);
    /* 3 s at 1 m/s: exactly 3 m (the kinematic body ignores the box's weight) */
    ENSURE_NEAR(ts_d(ts_pos(w, pusher).x), 1.0, 1e-3);
    ENSURE_NEAR(ts_d(ts_pos(w, pusher).y), 0.55, 1e-6);
    /* the box was pushed ahead of it and is not inside it */
    double gap = ts_d(ts_pos(w, box).x) - ts_d(ts_pos(w, pusher).x);
    cr_test_printf("    kinematic pusher at x %.3f, box at x %.3f (gap %.3f, touching at 0.7)\n", ts_d(ts_pos(w, pusher).x),
                   ts_d(ts_pos(w, box).x), gap);
    ENSURE(gap > 0.69);
    ENSURE(ts_d(ts_pos(w, box).x) > 1.5);
    ts_free(w);
}

/* A sleeping body on a static platform falls when the platform is removed. */
CR_TEST(solver_sleeping_body_falls_when_its_static_support_goes) {
    cr_world_def def = cr_default_world_def();
    cr_world *w = ts_world(&def);
    cr_material m = ts_material(0.0, 0.6);
    ts_ground(w, m);
    cr_body_def pd = cr_default_body_def();
    pd.type = CR_BODY_STATIC;
    pd.shape.type = CR_SHAPE_BOX;
    pd.shape.half_extents = ts_v(1, 0.1, 1);
    pd.position = ts_v(0, 2, 0);
    pd.material = m;
    cr_body_id platform;
    ENSURE(cr_body_create(w, &pd, &platform) == CR_OK);
    cr_body_id box = ts_box(w, ts_v(0, 2.6, 0), cr_quat_identity(), ts_v(0.5, 0.5, 0.5), m);
    for (int s = 0; s < 90; ++s) cr_world_step(w, TS_DT);
    ENSURE(cr_body_is_sleeping(w, box));
    ENSURE(cr_body_destroy(w, platform) == CR_OK);
    ENSURE(!cr_body_is_sleeping(w, box));
    for (int s = 0; s < 90; ++s) cr_world_step(w, TS_DT);
    ENSURE_NEAR(ts_d(ts_pos(w, box).y), 0.5, 0.01);
    ts_free(w);
}

/* A block resting on the floor, struck from above: the strike and the
 * floor's answer are two impacts, and both reach the event buffer in the
 * same step (a dentable block must get the floor's dent too). Struck by a
 * ball and by a falling box, at 4 and 8 m/s. */
CR_TEST(solver_block_hit_from_above_reports_both_impacts) {
    for (int k = 0; k < 4; ++k) {
        cr_world_def def = cr_default_world_def();
        cr_world *w = ts_world(&def);
        ENSURE(w != NULL);
        cr_material m = ts_material(0.3, 0.5);
        cr_body_id floor = ts_ground(w, m);
        cr_body_id block = ts_box(w, ts_v(0, 0.25, 0), cr_quat_identity(), ts_v(0.5, 0.25, 0.5), m);
        for (int i = 0; i < 20; ++i) ENSURE(cr_world_step(w, TS_DT) == CR_OK);
        cr_body_id striker = k % 2 ? ts_box(w, ts_v(0.1, 0.8, 0), cr_quat_identity(), ts_v(0.15, 0.15, 0.15), m)
                                   : ts_sphere(w, ts_v(0.1, 0.8, 0), 0.2, m);
        double speed = k < 2 ? 4 : 8;
        ENSURE(cr_body_set_velocity(w, striker, ts_v(0, -speed, 0), cr_v3_zero()) == CR_OK);
        bool both = false;
        double strike = 0, answer = 0;
        for (int i = 0; i < 20 && !both; ++i) {
            ENSURE(cr_world_step(w, TS_DT) == CR_OK);
            cr_impact_event ev[16];
            uint32_t n = cr_world_get_events(w, ev, 16);
            bool hit = false, floor_hit = false;
            for (uint32_t e = 0; e < n && e < 16; ++e) {
                bool on_block = ev[e].body_a.index1 == block.index1 || ev[e].body_b.index1 == block.index1;
                bool by_striker = ev[e].body_a.index1 == striker.index1 || ev[e].body_b.index1 == striker.index1;
                bool by_floor = ev[e].body_a.index1 == floor.index1 || ev[e].body_b.index1 == floor.index1;
                if (on_block && by_striker) hit = true, strike = ts_d(ev[e].impulse);
                if (on_block && by_floor) floor_hit = true, answer = ts_d(ev[e].impulse);
            }
            both = hit && floor_hit;
        }
        cr_test_printf("    %s at %.0f m/s onto a block on the floor: both impacts in one step: %s (strike %.1f N s, floor %.1f N s)\n",
                       k % 2 ? "box " : "ball", speed, both ? "yes" : "no", strike, answer);
        ENSURE(both);
        ENSURE(strike > 0 && answer > 0);
        ts_free(w);
    }
}
