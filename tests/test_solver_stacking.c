/* test_solver_stacking.c — seed 002's two headline claims about resting
 * contact: a block with restitution 1 on an incline neither bounces nor creeps
 * (the collision / velocity / contact / position sequencing), and a stack of
 * ten cubes stands still (contact graph + shock propagation). Sleeping is off
 * in these tests: they measure the solver, not bodies taken out of it. */
#include "test_solver_util.h"

CR_TEST(solver_incline_restitution_one_does_not_bounce) {
    cr_world_def def = cr_default_world_def();
    def.sleep = false;
    cr_world *w = ts_world(&def);
    ENSURE(w != NULL);
    cr_material m = ts_material(1.0, 1.0);
    cr_quat tilt = cr_quat_from_axis_angle(cr_v3(0, 0, CR_R(1)), CR_R(0.52359877559829887)); /* 30 degrees */
    ENSURE(!cr_body_id_is_null(ts_plane(w, cr_v3_zero(), tilt, m)));
    cr_vec3 n = cr_quat_rotate(tilt, cr_v3(0, CR_R(1), 0));
    cr_vec3 start = cr_v3_scale(n, CR_R(0.5));
    cr_body_id box = ts_box(w, start, tilt, ts_v(0.5, 0.5, 0.5), m);
    ENSURE(!cr_body_id_is_null(box));
    double max_rise = 0, h0 = ts_d(cr_v3_dot(start, n));
    for (int i = 0; i < 600; ++i) {
        ENSURE(cr_world_step(w, TS_DT) == CR_OK);
        double h = ts_d(cr_v3_dot(ts_pos(w, box), n));
        if (h - h0 > max_rise) max_rise = h - h0;
    }
    double creep = ts_dist(ts_pos(w, box), start);
    cr_test_printf("    incline 30 deg, e=1, mu=1, 10 s: max rise %.3g m, creep %.3g m\n", max_rise, creep);
    ENSURE(max_rise < 1e-4);
    ENSURE(creep < 1e-3);
    ts_free(w);
}

/* The standard time stepping (velocities first, then collisions) is what the
 * seed shows bouncing; with restitution 1 and no contact stage the block
 * would hop. Dropping the block 1 cm shows the collision stage is live: it
 * bounces back up, then settles once the contact stage catches it. */
CR_TEST(solver_incline_small_drop_is_caught) {
    cr_world_def def = cr_default_world_def();
    def.sleep = false;
    cr_world *w = ts_world(&def);
    ENSURE(w != NULL);
    cr_material m = ts_material(0.0, 1.0);
    cr_quat tilt = cr_quat_from_axis_angle(cr_v3(0, 0, CR_R(1)), CR_R(0.52359877559829887));
    ts_plane(w, cr_v3_zero(), tilt, m);
    cr_vec3 n = cr_quat_rotate(tilt, cr_v3(0, CR_R(1), 0));
    cr_body_id box = ts_box(w, cr_v3_scale(n, CR_R(0.51)), tilt, ts_v(0.5, 0.5, 0.5), m);
    for (int i = 0; i < 120; ++i) ENSURE(cr_world_step(w, TS_DT) == CR_OK);
    double h = ts_d(cr_v3_dot(ts_pos(w, box), n));
    cr_test_printf("    dropped 1 cm onto the incline: rests at height %.5f m (0.5 touches)\n", h);
    ENSURE_NEAR(h, 0.5, 0.006);
    ENSURE(ts_d(cr_v3_len(cr_body_get_linear_velocity(w, box))) < 1e-3);
    ts_free(w);
}

static void stack_run(cr_world *w, int count, double *top_drift, double *min_height_ratio) {
    cr_material m = ts_material(0.2, 0.5);
    ts_ground(w, m);
    cr_body_id ids[16];
    cr_vec3 start[16];
    for (int i = 0; i < count; ++i) {
        start[i] = ts_v(0, 0.5 + i, 0);
        ids[i] = ts_box(w, start[i], cr_quat_identity(), ts_v(0.5, 0.5, 0.5), m);
    }
    for (int s = 0; s < 600; ++s) cr_world_step(w, TS_DT);
    *top_drift = ts_dist(ts_pos(w, ids[count - 1]), start[count - 1]);
    double ratio = 1e9;
    for (int i = 0; i < count; ++i) {
        double r = ts_d(ts_pos(w, ids[i]).y) / ts_d(start[i].y);
        if (r < ratio) ratio = r;
    }
    *min_height_ratio = ratio;
}

CR_TEST(solver_stack_of_ten_stands_for_ten_seconds) {
    cr_world_def def = cr_default_world_def();
    def.sleep = false;
    cr_world *w = ts_world(&def);
    ENSURE(w != NULL);
    double drift, ratio;
    stack_run(w, 10, &drift, &ratio);
    cr_test_printf("    10 cubes, mu 0.5, 10 s: top cube drift %.3g m, lowest height ratio %.4f\n", drift, ratio);
    ENSURE(drift < 0.01);
    ENSURE(ratio > 0.99);
    ts_free(w);
}

/* Seed 002: without shock propagation a tall stack needs many more contact
 * passes; with it, each finished level is an immovable floor for the next, so
 * the same passes hold the stack up. Same stack, same passes, on and off. */
CR_TEST(solver_shock_propagation_holds_a_tall_stack) {
    double drift[2], ratio[2], jitter[2];
    for (int on = 0; on < 2; ++on) {
        cr_world_def def = cr_default_world_def();
        def.sleep = false;
        def.shock_propagation = on != 0;
        cr_world *w = ts_world(&def);
        ENSURE(w != NULL);
        cr_material m = ts_material(0.2, 0.5);
        ts_ground(w, m);
        cr_body_id ids[12];
        for (int i = 0; i < 12; ++i) ids[i] = ts_box(w, ts_v(0, 0.5 + i, 0), cr_quat_identity(), ts_v(0.5, 0.5, 0.5), m);
        double vsum = 0;
        for (int s = 0; s < 300; ++s) {
            cr_world_step(w, TS_DT);
            if (s >= 240)
                for (int i = 0; i < 12; ++i) vsum += ts_d(cr_v3_len(cr_body_get_linear_velocity(w, ids[i])));
        }
        drift[on] = ts_dist(ts_pos(w, ids[11]), ts_v(0, 11.5, 0));
        ratio[on] = ts_d(ts_pos(w, ids[11]).y) / 11.5;
        jitter[on] = vsum / (60.0 * 12.0);
        ts_free(w);
    }
    cr_test_printf("    12 cubes, 5 s: shock off: top moved %.3f m (height ratio %.3f, mean speed %.4f m/s); "
                   "on: %.4f m (%.4f, %.5f m/s)\n", drift[0], ratio[0], jitter[0], drift[1], ratio[1], jitter[1]);
    ENSURE(drift[1] < 0.01 && ratio[1] > 0.999);
    ENSURE(jitter[1] < 0.02 && jitter[1] < jitter[0] / 5);
    /* off: the same passes cannot carry the weight down; the stack sinks or falls */
    ENSURE(drift[0] > 10 * drift[1] && drift[0] > 0.05);
}
