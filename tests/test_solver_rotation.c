/* test_solver_rotation.c — torque-free rotation keeps its angular momentum
 * (seed 002, equation 2, integrates L and takes w = I^-1 L at the new
 * orientation): |L| stays put for a free asymmetric body, and a box spun
 * about its middle axis flips over and back (the Dzhanibekov effect), which a
 * body that keeps its angular velocity never does. */
#include "test_solver_util.h"
#include "base/inertia.h"

/* World angular momentum (kg m^2/s) of a body, and its angular velocity in
 * the body frame. */
static void momentum(cr_world *w, cr_body_id id, double L[3], double wb[3]) {
    cr_quat q = cr_body_get_transform(w, id).q;
    cr_vec3 wl = cr_quat_inv_rotate(q, cr_body_get_angular_velocity(w, id));
    cr_vec3 in = cr_body_get_inertia(w, id);
    cr_vec3 lb = cr_v3(cr_mul(in.x, wl.x), cr_mul(in.y, wl.y), cr_mul(in.z, wl.z));
    cr_vec3 lw = cr_quat_rotate(q, lb);
    L[0] = ts_d(lw.x), L[1] = ts_d(lw.y), L[2] = ts_d(lw.z);
    wb[0] = ts_d(wl.x), wb[1] = ts_d(wl.y), wb[2] = ts_d(wl.z);
}

static double len3(const double v[3]) { return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

CR_TEST(solver_free_body_keeps_its_angular_momentum) {
    cr_world_def def = cr_default_world_def();
    def.gravity = cr_v3_zero();
    def.sleep = false;
    cr_world *w = ts_world(&def);
    ENSURE(w != NULL);
    cr_material m = cr_default_material();
    /* an asymmetric box tumbling about no principal axis */
    cr_body_id id = ts_box(w, ts_v(0, 5, 0), cr_quat_from_axis_angle(cr_v3(CR_R(0.6), CR_R(0.8), 0), CR_R(0.4)),
                           ts_v(0.4, 0.15, 0.25), m);
    ENSURE(cr_body_set_velocity(w, id, cr_v3_zero(), ts_v(2, -3, 4)) == CR_OK);
    double L0[3], wb[3];
    momentum(w, id, L0, wb);
    cr_vec3 in = cr_body_get_inertia(w, id);
    double e0 = 0.5 * (ts_d(in.x) * wb[0] * wb[0] + ts_d(in.y) * wb[1] * wb[1] + ts_d(in.z) * wb[2] * wb[2]);
    double worst = 0, worst_dir = 0, worst_e = 0;
    for (int i = 0; i < 600; ++i) {
        ENSURE(cr_world_step(w, TS_DT) == CR_OK);
        double L[3];
        momentum(w, id, L, wb);
        double rel = fabs(len3(L) - len3(L0)) / len3(L0);
        double d[3] = {L[0] - L0[0], L[1] - L0[1], L[2] - L0[2]};
        if (rel > worst) worst = rel;
        double e = 0.5 * (ts_d(in.x) * wb[0] * wb[0] + ts_d(in.y) * wb[1] * wb[1] + ts_d(in.z) * wb[2] * wb[2]);
        if (fabs(e - e0) / e0 > worst_e) worst_e = fabs(e - e0) / e0;
        if (len3(d) / len3(L0) > worst_dir) worst_dir = len3(d) / len3(L0);
    }
    cr_test_printf("    free box 0.8 x 0.3 x 0.5 m tumbling, 10 s: |L| off by %.3g %% at worst, L (vector) by %.3g %%, "
                   "energy by %.3g %%\n",
                   100 * worst, 100 * worst_dir, 100 * worst_e);
    ENSURE(worst < 0.01);
    ENSURE(worst_dir < 0.01);
    ENSURE(worst_e < 0.05); /* and no energy made up on the way */
    ts_free(w);
}

CR_TEST(solver_box_spun_about_its_middle_axis_flips) {
    cr_world_def def = cr_default_world_def();
    def.gravity = cr_v3_zero();
    def.sleep = false;
    cr_world *w = ts_world(&def);
    ENSURE(w != NULL);
    cr_material m = cr_default_material();
    /* moments x < y < z: y is the middle axis */
    cr_body_id id = ts_box(w, ts_v(0, 5, 0), cr_quat_identity(), ts_v(0.5, 0.25, 0.1), m);
    ENSURE(cr_body_set_velocity(w, id, cr_v3_zero(), ts_v(0.02, 6, 0.02)) == CR_OK);
    double L[3], wb[3];
    int flips = 0;
    double sign = 1, lowest = 1;
    for (int i = 0; i < 600; ++i) {
        ENSURE(cr_world_step(w, TS_DT) == CR_OK);
        momentum(w, id, L, wb);
        double c = wb[1] / 6.0;
        if (c < lowest) lowest = c;
        if (c * sign < -0.9) {
            ++flips;
            sign = -sign;
        }
    }
    cr_test_printf("    box 1 x 0.5 x 0.2 m spun at 6 rad/s about its middle axis, 10 s: %d flips (body-frame w_y down to "
                   "%.2f of its start)\n",
                   flips, lowest);
    ENSURE(flips >= 2);
    ENSURE(lowest < -0.9);
    ts_free(w);
}

/* The same tumbling box described twice: once in its principal frame, once in
 * a frame turned away from it, where its tensor has products of inertia (a
 * bending body's bone keeps its parent's axes: damage/sub_body.c). Physically
 * one body, so both turn alike; the turned twin with its products dropped (the
 * diagonal alone, as sub-bodies had before) does not. */
static double twin_gap(bool products, double *gap_l) {
    cr_world_def def = cr_default_world_def();
    def.gravity = cr_v3_zero();
    def.sleep = false;
    cr_world *w = ts_world(&def);
    cr_material m = cr_default_material();
    cr_quat qa = cr_quat_from_axis_angle(cr_v3(CR_R(0.6), CR_R(0.8), 0), CR_R(0.4));
    cr_quat turn = cr_quat_from_axis_angle(cr_v3(CR_R(0.57735), CR_R(0.57735), CR_R(0.57735)), CR_R(0.7));
    cr_body_id a = ts_box(w, ts_v(0, 5, 0), qa, ts_v(0.4, 0.15, 0.25), m);
    cr_body_id b = ts_box(w, ts_v(10, 5, 0), cr_quat_mul(qa, turn), ts_v(0.4, 0.15, 0.25), m);
    /* body b's frame is a's turned by `turn` (R_b = R_a Q): its tensor is Q^T D Q */
    cr_mat3 q = cr_mat3_from_quat(turn);
    cr_mat3 ib = cr_mat3_mul(cr_mat3_mul(cr_mat3_transpose(q), cr_mat3_diag(cr_body_get_inertia(w, a))), q);
    cr_body *rb = cri_world_body(w, b);
    bool set = cri_inertia_set(rb, cr_v3(ib.cx.x, ib.cy.y, ib.cz.z), products ? cr_v3(ib.cy.x, ib.cz.x, ib.cz.y) : cr_v3_zero());
    cr_vec3 spin = ts_v(2, -3, 4);
    cr_body_set_velocity(w, a, cr_v3_zero(), spin);
    cr_body_set_velocity(w, b, cr_v3_zero(), spin);
    double worst = 0, worst_l = 0, l0 = 0;
    for (int i = 0; i <= 300 && set; ++i) {
        if (i > 0 && cr_world_step(w, TS_DT) != CR_OK) return 1e9;
        cr_vec3 wa = cr_body_get_angular_velocity(w, a), wb = cr_body_get_angular_velocity(w, b);
        double d = ts_d(cr_v3_len(cr_v3_sub(wa, wb))) / ts_d(cr_v3_len(wa));
        if (d > worst) worst = d;
        /* b's world angular momentum through its full tensor */
        cr_quat qb = cr_body_get_transform(w, b).q;
        cr_vec3 lw = cr_quat_rotate(qb, cri_inertia_mul(rb, cr_quat_inv_rotate(qb, wb)));
        double l = ts_d(cr_v3_len(lw));
        if (i == 0) l0 = l;
        if (fabs(l - l0) / l0 > worst_l) worst_l = fabs(l - l0) / l0;
    }
    ts_free(w);
    *gap_l = worst_l;
    return set ? worst : 1e9;
}

CR_TEST(solver_body_with_products_of_inertia_turns_as_its_principal_twin) {
    double l_full, l_diag;
    double full = twin_gap(true, &l_full), diag = twin_gap(false, &l_diag);
    cr_test_printf("    a box tumbling 5 s, described in a frame 0.7 rad off its principal one: angular velocity off its "
                   "principal twin's by %.2g at worst (|L| kept to %.2g); with the products dropped, by %.2g\n",
                   full, l_full, diag);
    ENSURE(full < 1e-3);
    ENSURE(l_full < 1e-3);
    ENSURE(diag > 0.1);
}
