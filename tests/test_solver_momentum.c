/* test_solver_momentum.c — two dynamic bodies in contact with no gravity
 * keep their total momentum and their angular momentum about a fixed point.
 *
 * The contact push-out (push_out.c) moves overlapping bodies apart at the
 * position update with their velocities unchanged. A move across a body's
 * velocity changes its orbital angular momentum (m dx x v), and the push's
 * turn of a body with unequal moments changes its spin's (I(q) w with w
 * kept); both are given back (the spin's I(q) w kept across the turn, the
 * pair's shift as a rigid turn of the pair: pair_turn.c). Without that, a
 * box driven off-centre into another moved the pair's angular momentum by
 * the amount printed in docs/solver.md "Push-out and angular momentum". */
#include "test_solver_util.h"

/* Total momentum p and angular momentum l about o of the world's two bodies. */
static void pair_momentum(cr_world *w, const cr_body_id ids[2], const double o[3], double p[3], double l[3]) {
    for (int k = 0; k < 3; ++k) p[k] = l[k] = 0;
    for (int i = 0; i < 2; ++i) {
        cr_transform xf = cr_body_get_transform(w, ids[i]);
        cr_vec3 v = cr_body_get_linear_velocity(w, ids[i]);
        cr_vec3 wl = cr_quat_inv_rotate(xf.q, cr_body_get_angular_velocity(w, ids[i]));
        cr_vec3 in = cr_body_get_inertia(w, ids[i]);
        cr_vec3 h = cr_quat_rotate(xf.q, cr_v3(cr_mul(in.x, wl.x), cr_mul(in.y, wl.y), cr_mul(in.z, wl.z)));
        double m = ts_d(cr_body_get_mass(w, ids[i]));
        double x[3] = {ts_d(xf.p.x) - o[0], ts_d(xf.p.y) - o[1], ts_d(xf.p.z) - o[2]};
        double vv[3] = {ts_d(v.x), ts_d(v.y), ts_d(v.z)};
        for (int k = 0; k < 3; ++k) p[k] += m * vv[k];
        l[0] += m * (x[1] * vv[2] - x[2] * vv[1]) + ts_d(h.x);
        l[1] += m * (x[2] * vv[0] - x[0] * vv[2]) + ts_d(h.y);
        l[2] += m * (x[0] * vv[1] - x[1] * vv[0]) + ts_d(h.z);
    }
}

static double dist3(const double a[3], const double b[3]) {
    return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

CR_TEST(solver_push_out_keeps_momentum) {
    cr_world_def def = cr_default_world_def();
    def.gravity = cr_v3_zero();
    def.sleep = false;
    cr_world *w = ts_world(&def);
    ENSURE(w != NULL);
    cr_material m = ts_material(0.0, 0.6);
    /* a flat spinning box (unequal moments) driven at 20 m/s into a cube at rest, 0.3 m off its centre line */
    cr_body_id ids[2] = {ts_box(w, ts_v(-2, 0.3, 0), cr_quat_from_axis_angle(cr_v3(0, 0, CR_R(1)), CR_R(0.3)),
                                ts_v(0.6, 0.15, 0.3), m),
                         ts_box(w, ts_v(0, 0, 0), cr_quat_identity(), ts_v(0.35, 0.35, 0.35), m)};
    ENSURE(cr_body_is_valid(w, ids[0]) && cr_body_is_valid(w, ids[1]));
    ENSURE(cr_body_set_velocity(w, ids[0], ts_v(20, -0.5, 0.2), ts_v(0.5, 1, 3)) == CR_OK);
    const double o[3] = {0.5, -1, 0.25}; /* a fixed point off the line of motion */
    double p0[3], l0[3];
    pair_momentum(w, ids, o, p0, l0);
    double np = dist3(p0, (double[3]){0, 0, 0}), nl = dist3(l0, (double[3]){0, 0, 0});
    double dp = 0, dl = 0, closest = 1e9;
    for (int i = 0; i < 90; ++i) {
        ENSURE(cr_world_step(w, TS_DT) == CR_OK);
        double p[3], l[3];
        pair_momentum(w, ids, o, p, l);
        dp = fmax(dp, dist3(p, p0) / np);
        dl = fmax(dl, dist3(l, l0) / nl);
        closest = fmin(closest, ts_dist(ts_pos(w, ids[0]), ts_pos(w, ids[1])));
    }
    cr_vec3 vb = cr_body_get_linear_velocity(w, ids[1]);
    cr_test_printf("    box into box, 1.5 s: the struck cube leaves at %.2f m/s; momentum drifts %.1e, angular "
                   "momentum %.1e (relative)\n",
                   ts_dist(vb, cr_v3_zero()), dp, dl);
    ENSURE(closest < 0.8);                     /* they met */
    ENSURE(ts_dist(vb, cr_v3_zero()) > 1.0); /* and the cube was hit */
    ENSURE(dp < 1e-5);
    ENSURE(dl < 2e-5);
    ts_free(w);
}
