/* test_joint.c — point, hinge and fixed joints (maximal coordinates with pre-
 * and post-stabilisation): what holds, how much it drifts, and that the
 * handles behave like body handles. */
#include "test_solver_util.h"

static cr_joint_id joint(cr_world *w, cr_joint_type type, cr_body_id a, cr_body_id b, cr_vec3 anchor, cr_vec3 axis) {
    cr_joint_def jd = cr_default_joint_def();
    jd.type = type;
    jd.body_a = a;
    jd.body_b = b;
    jd.anchor = anchor;
    jd.axis = axis;
    cr_joint_id id;
    if (cr_joint_create(w, &jd, &id) != CR_OK) memset(&id, 0, sizeof id);
    return id;
}

/* A chain of 4 spheres hanging from a world pin, released sideways: the
 * links keep their length, and the swing never gains height. */
CR_TEST(joint_point_pendulum_chain_keeps_link_lengths) {
    cr_world_def def = cr_default_world_def();
    cr_world *w = ts_world(&def);
    ENSURE(w != NULL);
    cr_material m = ts_material(0.0, 0.5);
    cr_body_id ball[4];
    cr_joint_id link[4];
    cr_body_id none = {0, 0};
    for (int i = 0; i < 4; ++i) ball[i] = ts_sphere(w, ts_v(1.0 + i, 10.0, 0), 0.2, m);
    link[0] = joint(w, CR_JOINT_POINT, ball[0], none, ts_v(0, 10, 0), cr_v3_zero());
    for (int i = 1; i < 4; ++i) link[i] = joint(w, CR_JOINT_POINT, ball[i], ball[i - 1], ts_v(0.0 + i, 10, 0), cr_v3_zero());
    for (int i = 0; i < 4; ++i) ENSURE(cr_joint_is_valid(w, link[i]));
    ENSURE(cr_world_get_joint_count(w) == 4);
    double worst = 0, top = -1e9;
    for (int s = 0; s < 600; ++s) {
        ENSURE(cr_world_step(w, TS_DT) == CR_OK);
        for (int i = 0; i < 4; ++i) {
            double e = ts_dist(cr_joint_get_anchor_a(w, link[i]), cr_joint_get_anchor_b(w, link[i]));
            if (e > worst) worst = e;
        }
        if (s > 30) {
            double y = ts_d(ts_pos(w, ball[3]).y);
            if (y > top) top = y;
        }
    }
    double len = ts_dist(ts_pos(w, ball[3]), ts_pos(w, ball[2]));
    cr_test_printf("    4-link chain, 10 s: worst anchor gap %.2e m, last link %.5f m (1 m), tip rose to %.3f m (start 10)\n",
                   worst, len, top);
    ENSURE(worst < 1e-3);
    ENSURE_NEAR(len, 1.0, 1e-3);
    ENSURE(top < 10.0 + 1e-3);
    ts_free(w);
}

/* A door on a hinge about y, pinned to the world, pushed with impulses that
 * would also tip it: it turns about its axis and nothing else. */
CR_TEST(joint_hinge_keeps_its_axis) {
    cr_world_def def = cr_default_world_def();
    cr_world *w = ts_world(&def);
    cr_material m = ts_material(0.0, 0.5);
    cr_body_id door = ts_box(w, ts_v(0.5, 1, 0), cr_quat_identity(), ts_v(0.5, 1.0, 0.05), m);
    cr_body_id none = {0, 0};
    cr_joint_id h = joint(w, CR_JOINT_HINGE, door, none, ts_v(0, 1, 0), ts_v(0, 1, 0));
    ENSURE(cr_joint_is_valid(w, h));
    ENSURE(cr_body_apply_impulse(w, door, ts_v(0, 30, 100), ts_v(1, 2, 0)) == CR_OK);
    double worst_axis = 0, worst_gap = 0;
    for (int s = 0; s < 300; ++s) {
        cr_world_step(w, TS_DT);
        cr_vec3 a = cr_joint_get_axis_a(w, h), b = cr_joint_get_axis_b(w, h);
        double dev = ts_d(cr_v3_len(cr_v3_cross(a, b)));
        double gap = ts_dist(cr_joint_get_anchor_a(w, h), cr_joint_get_anchor_b(w, h));
        if (dev > worst_axis) worst_axis = dev;
        if (gap > worst_gap) worst_gap = gap;
    }
    double angle = ts_d(cr_joint_get_hinge_angle(w, h));
    cr_vec3 wv = cr_body_get_angular_velocity(w, door);
    cr_test_printf("    hinge, 5 s: worst axis deviation %.2e rad, worst anchor gap %.2e m, turned to %.3f rad, w = (%.3f %.3f %.3f)\n",
                   worst_axis, worst_gap, angle, ts_d(wv.x), ts_d(wv.y), ts_d(wv.z));
    ENSURE(worst_axis < 2e-3);
    ENSURE(worst_gap < 2e-3);
    /* it does turn: the impulse had a moment about the axis */
    ENSURE(fabs(ts_d(wv.y)) > 0.1);
    ENSURE(fabs(ts_d(wv.x)) < 0.01 && fabs(ts_d(wv.z)) < 0.01);
    ts_free(w);
}

/* Two boxes welded into an L, dropped on the ground: they land, tumble and
 * rest as one body. */
CR_TEST(joint_fixed_keeps_the_relative_pose) {
    cr_world_def def = cr_default_world_def();
    cr_world *w = ts_world(&def);
    cr_material m = ts_material(0.3, 0.6);
    ts_ground(w, m);
    cr_quat tilt = cr_quat_from_axis_angle(cr_v3_normalize(ts_v(1, 0, 1)), CR_R(0.4));
    cr_body_id a = ts_box(w, ts_v(0, 3, 0), tilt, ts_v(0.5, 0.25, 0.25), m);
    cr_vec3 off = cr_quat_rotate(tilt, ts_v(0.75, 0.5, 0));
    cr_body_id b = ts_box(w, cr_v3_add(ts_v(0, 3, 0), off), tilt, ts_v(0.25, 0.5, 0.25), m);
    cr_vec3 anchor = cr_v3_add(ts_v(0, 3, 0), cr_quat_rotate(tilt, ts_v(0.5, 0.25, 0)));
    cr_joint_id f = joint(w, CR_JOINT_FIXED, a, b, anchor, cr_v3_zero());
    ENSURE(cr_joint_is_valid(w, f));
    cr_quat rest = cr_joint_get_rest_orientation(w, f);
    double worst_gap = 0, worst_turn = 0;
    for (int s = 0; s < 300; ++s) {
        cr_world_step(w, TS_DT);
        double gap = ts_dist(cr_joint_get_anchor_a(w, f), cr_joint_get_anchor_b(w, f));
        cr_quat rel = cr_joint_get_relative_orientation(w, f);
        cr_quat d = cr_quat_mul(rel, cr_quat_conj(rest));
        double turn = 2.0 * ts_d(cr_v3_len(cr_v3(d.x, d.y, d.z)));
        if (gap > worst_gap) worst_gap = gap;
        if (turn > worst_turn) worst_turn = turn;
    }
    cr_test_printf("    fixed pair dropped 3 m, 5 s: worst anchor gap %.2e m, worst relative turn %.2e rad, rest y %.3f\n",
                   worst_gap, worst_turn, ts_d(ts_pos(w, a).y));
    ENSURE(worst_gap < 5e-3);
    ENSURE(worst_turn < 5e-3);
    ENSURE(ts_d(ts_pos(w, a).y) > 0.2 && ts_d(ts_pos(w, a).y) < 1.0);
    ts_free(w);
}

CR_TEST(joint_handles_are_checked_and_die_with_their_bodies) {
    cr_world_def def = cr_default_world_def();
    def.joint_capacity = 2;
    cr_world *w = ts_world(&def);
    cr_material m = ts_material(0.0, 0.5);
    cr_body_id a = ts_sphere(w, ts_v(0, 5, 0), 0.3, m), b = ts_sphere(w, ts_v(1, 5, 0), 0.3, m);
    cr_body_id none = {0, 0};
    cr_joint_def jd = cr_default_joint_def();
    jd.body_a = a;
    cr_joint_id j1, j2, j3;
    ENSURE(cr_joint_create(w, &jd, &j1) == CR_OK);
    jd.body_b = a;
    ENSURE(cr_joint_create(w, &jd, &j3) == CR_ERR_DEF_INVALID); /* a body with itself */
    jd.body_b = b;
    ENSURE(cr_joint_create(w, &jd, &j2) == CR_OK);
    ENSURE(cr_joint_create(w, &jd, &j3) == CR_ERR_CAPACITY);
    ENSURE(cr_joint_id_is_null(j3));
    cr_joint_def raw;
    memset(&raw, 0, sizeof raw);
    ENSURE(cr_joint_create(w, &raw, &j3) == CR_ERR_DEF_NOT_DEFAULTED);
    jd.type = CR_JOINT_HINGE;
    jd.axis = cr_v3_zero();
    ENSURE(cr_joint_create(w, &jd, &j3) == CR_ERR_DEF_INVALID);
    /* destroying body b takes its joint with it; the handle goes stale */
    ENSURE(cr_body_destroy(w, b) == CR_OK);
    ENSURE(!cr_joint_is_valid(w, j2));
    ENSURE(cr_joint_is_valid(w, j1));
    ENSURE(cr_joint_destroy(w, j2) == CR_ERR_STALE_HANDLE);
    ENSURE(cr_world_get_joint_count(w) == 1);
    jd = cr_default_joint_def();
    jd.body_a = a;
    jd.body_b = b; /* stale body */
    ENSURE(cr_joint_create(w, &jd, &j3) == CR_ERR_STALE_HANDLE);
    jd.body_b = none;
    ENSURE(cr_joint_create(w, &jd, &j3) == CR_OK);
    ENSURE(j3.index1 == j2.index1 && j3.generation != j2.generation);
    for (int s = 0; s < 10; ++s) ENSURE(cr_world_step(w, TS_DT) == CR_OK);
    ts_free(w);
}

/* Angle (rad) of a pendulum from hanging straight down, in the xy plane. */
static double swing_angle(cr_vec3 pivot, cr_vec3 p) {
    return atan2(ts_d(p.x) - ts_d(pivot.x), ts_d(pivot.y) - ts_d(p.y));
}

/* Swing a frictionless pendulum released at theta0 for 10 s at 60 Hz:
 * the amplitude kept (mean of the last two turning points over theta0) and
 * the period (mean time between upward zero crossings, interpolated). */
static void swing(cr_world *w, cr_body_id bob, cr_vec3 pivot, double theta0, double *kept, double *period) {
    double prev = swing_angle(pivot, ts_pos(w, bob)), t_first = -1, t_last = -1, peaks[64];
    int crossings = 0, npeaks = 0;
    double prev2 = prev;
    for (int s = 1; s <= 600; ++s) {
        cr_world_step(w, TS_DT);
        double a = swing_angle(pivot, ts_pos(w, bob));
        if (prev < 0 && a >= 0) {
            double t = (s - 1 + (-prev) / (a - prev)) / 60.0;
            if (t_first < 0) t_first = t;
            t_last = t;
            ++crossings;
        }
        /* a turning point: the step before was an extreme; fit a parabola through three samples */
        if (s >= 2 && fabs(prev) >= fabs(prev2) && fabs(prev) >= fabs(a) && npeaks < 64) {
            double den = prev2 - 2 * prev + a;
            double peak = den != 0 ? prev - 0.125 * (a - prev2) * (a - prev2) / den : prev;
            peaks[npeaks++] = fabs(peak);
        }
        prev2 = prev;
        prev = a;
    }
    *kept = npeaks >= 2 ? 0.5 * (peaks[npeaks - 1] + peaks[npeaks - 2]) / theta0 : 0;
    *period = crossings >= 2 ? (t_last - t_first) / (crossings - 1) : 0;
}

/* The period of a physical pendulum at amplitude theta0 (the series in
 * theta0 to the 4th power; the next term is below 1e-6 at 20 degrees). */
static double pendulum_period(double i_pivot, double m, double g, double d, double theta0) {
    double t0 = 2 * TS_PI * sqrt(i_pivot / (m * g * d));
    double s = theta0 * theta0;
    return t0 * (1 + s / 16 + 11 * s * s / 3072);
}

CR_TEST(joint_frictionless_pendulum_keeps_amplitude_and_period) {
    const double theta0 = 20 * TS_PI / 180;
    for (int kind = 0; kind < 2; ++kind) {
        cr_world_def def = cr_default_world_def();
        def.sleep = false;
        cr_world *w = ts_world(&def);
        ENSURE(w != NULL);
        double g = ts_d(cr_v3_len(def.gravity));
        cr_material m = ts_material(0, 0);
        cr_vec3 pivot = ts_v(0, 5, 0);
        cr_body_id none = {0, 0}, bob;
        double len, i_pivot, mass;
        if (kind == 0) {
            /* a ball of radius 0.1 m on a 1.3 m point joint */
            len = 1.3;
            bob = ts_sphere(w, ts_v(len * sin(theta0), 5 - len * cos(theta0), 0), 0.1, m);
        } else {
            /* a 0.1 x 0.8 x 0.06 m bar hinged about z at its top end */
            len = 0.4;
            cr_quat q = cr_quat_from_axis_angle(cr_v3(0, 0, CR_R(1)), cr_from_float((float)theta0));
            bob = ts_box(w, ts_v(len * sin(theta0), 5 - len * cos(theta0), 0), q, ts_v(0.05, 0.4, 0.03), m);
        }
        mass = ts_d(cr_body_get_mass(w, bob));
        cr_vec3 in = cr_body_get_inertia(w, bob);
        i_pivot = ts_d(in.z) + mass * len * len;
        cr_joint_id j = joint(w, kind == 0 ? CR_JOINT_POINT : CR_JOINT_HINGE, bob, none, pivot, ts_v(0, 0, 1));
        ENSURE(cr_joint_is_valid(w, j));
        double kept, period, expect = pendulum_period(i_pivot, mass, g, len, theta0);
        swing(w, bob, pivot, theta0, &kept, &period);
        cr_test_printf("    %s, 20 deg, 10 s at 60 Hz: keeps %.2f %% of its amplitude; period %.4f s (pendulum %.4f s, %+.2f %%)\n",
                       kind == 0 ? "ball on a point joint" : "bar on a hinge      ", 100 * kept, period, expect,
                       100 * (period - expect) / expect);
        ENSURE(kept >= 0.97 && kept <= 1.01);
        ENSURE(fabs(period - expect) <= 0.005 * expect);
        ts_free(w);
    }
}
