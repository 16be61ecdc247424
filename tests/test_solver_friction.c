/* test_solver_friction.c — Coulomb friction (static vs kinetic, seed 002's
 * friction cone), rolling friction, and restitution as a user sees them. */
#include "test_solver_util.h"

/* A unit cube on a plane tilted by `degrees`; returns how far it moved along
 * the slope in `seconds`. */
static double ramp_slide(double degrees, double mu, double seconds) {
    cr_world_def def = cr_default_world_def();
    def.sleep = false;
    cr_world *w = ts_world(&def);
    if (w == NULL) return -1;
    cr_material m = ts_material(0.0, mu);
    cr_quat tilt = cr_quat_from_axis_angle(cr_v3(0, 0, CR_R(1)), cr_from_float((float)(degrees * 3.14159265358979 / 180.0)));
    ts_plane(w, cr_v3_zero(), tilt, m);
    cr_vec3 n = cr_quat_rotate(tilt, cr_v3(0, CR_R(1), 0));
    cr_vec3 start = cr_v3_scale(n, CR_R(0.5));
    cr_body_id box = ts_box(w, start, tilt, ts_v(0.5, 0.5, 0.5), m);
    int steps = (int)(seconds * 60.0 + 0.5);
    for (int i = 0; i < steps; ++i) cr_world_step(w, TS_DT);
    double d = ts_dist(ts_pos(w, box), start);
    ts_free(w);
    return d;
}

CR_TEST(solver_friction_ramp_slides_iff_tan_exceeds_mu) {
    const double mu = 0.5; /* critical angle atan(0.5) = 26.57 degrees */
    const double below[] = {10.0, 20.0, 24.0}, above[] = {29.0, 35.0, 45.0};
    for (int i = 0; i < 3; ++i) {
        double d = ramp_slide(below[i], mu, 2.0);
        cr_test_printf("    %4.1f deg (tan %.3f <= mu %.2f): moved %.5f m in 2 s\n", below[i], tan(below[i] * TS_PI / 180), mu, d);
        ENSURE(d >= 0 && d < 0.005);
    }
    for (int i = 0; i < 3; ++i) {
        double th = above[i] * TS_PI / 180.0;
        double a = 9.81 * (sin(th) - mu * cos(th)); /* kinetic friction: constant acceleration */
        double expect = 0.5 * a * 2.0 * 2.0;
        double d = ramp_slide(above[i], mu, 2.0);
        cr_test_printf("    %4.1f deg (tan %.3f >  mu %.2f): moved %.3f m in 2 s, Coulomb says %.3f m\n", above[i], tan(th), mu, d, expect);
        ENSURE_NEAR(d, expect, 0.1 * expect + 0.02);
    }
}

static void roll(double rolling_friction, double seconds, double *speed, double *distance) {
    cr_world_def def = cr_default_world_def();
    def.sleep = false;
    cr_world *w = ts_world(&def);
    cr_material m = ts_material(0.0, 0.8);
    m.rolling_friction = cr_from_float((float)rolling_friction);
    ts_ground(w, m);
    cr_body_id ball = ts_sphere(w, ts_v(0, 0.5, 0), 0.5, m);
    /* rolling without slipping along +x: v = -w x r */
    cr_body_set_velocity(w, ball, ts_v(2.0, 0, 0), ts_v(0, 0, -4.0));
    cr_vec3 start = ts_pos(w, ball);
    int steps = (int)(seconds * 60.0 + 0.5);
    for (int i = 0; i < steps; ++i) cr_world_step(w, TS_DT);
    *speed = ts_d(cr_v3_len(cr_body_get_linear_velocity(w, ball)));
    *distance = ts_dist(ts_pos(w, ball), start);
    ts_free(w);
}

CR_TEST(solver_rolling_friction_stops_a_rolling_ball) {
    double v_free, d_free, v_rf, d_rf;
    roll(0.0, 4.0, &v_free, &d_free);
    roll(0.05, 4.0, &v_rf, &d_rf);
    /* rolling resistance: torque mu_r N about the contact point, inertia 1.4 m R^2
     * there, so the ball slows at mu_r g / (1.4 R) and stops after v^2 / (2 a) */
    double a = 0.05 * 9.81 / (1.4 * 0.5), stop = 2.0 * 2.0 / (2.0 * a);
    cr_test_printf("    ball r=0.5 rolling at 2 m/s, 4 s: without rolling friction %.3f m/s (%.2f m); "
                   "mu_r 0.05 m: %.4f m/s, stopped after %.2f m (model %.2f m)\n",
                   v_free, d_free, v_rf, d_rf, stop);
    ENSURE_NEAR(v_free, 2.0, 0.05);
    ENSURE_NEAR(d_free, 8.0, 0.3);
    ENSURE(v_rf < 0.01);
    ENSURE_NEAR(d_rf, stop, 0.1 * stop);
}

/* Apex height of the first bounce of a ball dropped from h onto the ground. */
static double bounce_apex(double e, double h) {
    cr_world_def def = cr_default_world_def();
    def.sleep = false;
    cr_world *w = ts_world(&def);
    cr_material m = ts_material(e, 0.5);
    ts_ground(w, m);
    cr_body_id ball = ts_sphere(w, ts_v(0, 0.25 + h, 0), 0.25, m);
    double apex = 0;
    int bounced = 0;
    for (int i = 0; i < 240; ++i) {
        cr_world_step(w, TS_DT);
        double y = ts_d(ts_pos(w, ball).y) - 0.25, vy = ts_d(cr_body_get_linear_velocity(w, ball).y);
        if (vy > 0) bounced = 1;
        if (bounced && y > apex) apex = y;
        if (bounced && vy < 0) break;
    }
    ts_free(w);
    return apex;
}

CR_TEST(solver_restitution_bounces_to_e_squared_height) {
    const double es[] = {0.3, 0.5, 0.8};
    for (int i = 0; i < 3; ++i) {
        double apex = bounce_apex(es[i], 2.0);
        cr_test_printf("    e=%.1f dropped 2 m: bounced to %.3f m, e^2 h = %.3f m\n", es[i], apex, es[i] * es[i] * 2.0);
        ENSURE_NEAR(apex, es[i] * es[i] * 2.0, 0.1 * es[i] * es[i] * 2.0 + 0.02);
    }
}

/* Spinning friction: a ball spinning on the spot about the vertical has no
 * slip at its contact point, so only spinning friction can stop it: torque
 * mu_s N about the normal against I = 0.4 m r^2 (about the contact point too,
 * for the vertical axis), i.e. dw/dt = mu_s g / (0.4 r^2). */
CR_TEST(solver_spinning_friction_slows_a_spinning_ball) {
    double spin[2];
    for (int with = 0; with < 2; ++with) {
        cr_world_def def = cr_default_world_def();
        def.sleep = false;
        cr_world *w = ts_world(&def);
        cr_material m = ts_material(0.0, 0.8);
        m.spinning_friction = with ? CR_R(0.01) : 0;
        ts_ground(w, m);
        cr_body_id ball = ts_sphere(w, ts_v(0, 0.5, 0), 0.5, m);
        cr_body_set_velocity(w, ball, cr_v3_zero(), ts_v(0, 10.0, 0));
        for (int s = 0; s < 60; ++s) cr_world_step(w, TS_DT);
        spin[with] = ts_d(cr_body_get_angular_velocity(w, ball).y);
        ts_free(w);
    }
    double expect = 10.0 - 0.01 * 9.81 / (0.4 * 0.25) * 1.0;
    cr_test_printf("    ball spinning at 10 rad/s, 1 s: without spinning friction %.3f rad/s, with 0.01 m: %.3f (model %.3f)\n",
                   spin[0], spin[1], expect);
    ENSURE_NEAR(spin[0], 10.0, 0.01);
    ENSURE_NEAR(spin[1], expect, 0.05 * (10.0 - expect) + 0.01);
}
