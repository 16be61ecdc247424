/* test_bend_joint.c — plastic and elastic joints (seed 000 §4.1, §4.3):
 * a plastic joint holds below its bending strength, keeps a bend above it,
 * bends more for harder hits; an elastic joint rings at the damped
 * oscillator's period, settles on its rest angle, and never gains energy
 * however stiff it is. */
#include "test_solver_util.h"

#include <math.h>

static cr_world *zero_g_world(void) {
    cr_world_def def = cr_default_world_def();
    def.gravity = cr_v3_zero();
    def.sleep = false;
    return ts_world(&def);
}

/* angle (rad) of a unit quaternion's rotation */
static double quat_angle(cr_quat q) {
    double w = fabs(ts_d(q.w));
    double v = sqrt(ts_d(q.x) * ts_d(q.x) + ts_d(q.y) * ts_d(q.y) + ts_d(q.z) * ts_d(q.z));
    return 2.0 * atan2(v, w);
}

/* A steel bar of two 1 m halves joined in the middle by a plastic joint,
 * floating, struck at one end across its length by `impulse` N s. Returns the
 * bend (rad) after 1 s and, in *late, after 3.5 s; *rest_same says whether the
 * rest orientation stayed bit-identical. */
static double strike_bar(double impulse, double strength, double *late, bool *rest_same, cr_quat *rel_late) {
    cr_world *w = zero_g_world();
    if (w == NULL) return -1;
    cr_material m = ts_material(0.0, 0.5);
    m.density = CR_R(7800);
    cr_body_id a = ts_box(w, ts_v(-0.5, 0, 0), cr_quat_identity(), ts_v(0.5, 0.03, 0.03), m);
    cr_body_id b = ts_box(w, ts_v(0.5, 0, 0), cr_quat_identity(), ts_v(0.5, 0.03, 0.03), m);
    cr_joint_def jd = cr_default_joint_def();
    jd.type = CR_JOINT_FIXED;
    jd.body_a = a;
    jd.body_b = b;
    jd.anchor = cr_v3_zero();
    jd.bend_strength = cr_from_float((float)strength);
    jd.bend_damping = CR_R(4);
    jd.bend_damping_constant = CR_R(2);
    cr_joint_id j;
    if (cr_joint_create(w, &jd, &j) != CR_OK) return -1;
    cr_quat rest0 = cr_joint_get_rest_orientation(w, j);
    cr_body_apply_impulse(w, b, ts_v(0, impulse, 0), ts_v(1.0, 0, 0));
    double early = 0;
    for (int s = 0; s < 210; ++s) {
        cr_world_step(w, TS_DT);
        if (s == 59) early = quat_angle(cr_joint_get_rest_orientation(w, j));
    }
    cr_quat rest = cr_joint_get_rest_orientation(w, j);
    *late = quat_angle(rest);
    *rest_same = memcmp(&rest, &rest0, sizeof rest) == 0;
    *rel_late = cr_quat_mul(cr_quat_conj(cr_joint_get_relative_orientation(w, j)), rest);
    ts_free(w);
    return early;
}

CR_TEST(bend_plastic_joint_holds_below_strength_and_keeps_the_bend_above) {
    const double strength = 2.0; /* N m s */
    double late, early;
    bool same;
    cr_quat off;
    /* a light tap: the joint needs less than its strength, nothing changes */
    early = strike_bar(2.0, strength, &late, &same, &off);
    cr_test_printf("    tap 2 N s: rest bit-identical %d, bend %.2e rad\n", same, late);
    ENSURE(early >= 0);
    ENSURE(same);
    /* harder hits: it bends, more for more, and the bend stays with no load */
    const double hits[4] = {12.0, 20.0, 30.0, 45.0};
    double prev = 0;
    for (int i = 0; i < 4; ++i) {
        early = strike_bar(hits[i], strength, &late, &same, &off);
        double drift = quat_angle(off);
        cr_test_printf("    hit %4.0f N s: bend %.4f rad at 1 s, %.4f rad at 3.5 s, bodies %.2e rad off the rest\n", hits[i],
                       early, late, drift);
        ENSURE(!same);
        ENSURE(late > 0.01);
        ENSURE(late > prev);                       /* monotonic in the excess impulse */
        ENSURE(fabs(late - early) < 1e-3 * late + 1e-5); /* persists: settled within 1 s, unchanged 2.5 s later */
        ENSURE(drift < 2e-3);                       /* the bodies sit at the bent rest */
        prev = late;
    }
}

/* One box on an elastic joint at its centre, pinned to the world, turned
 * about z: the relative angle of a damped oscillator. */
typedef struct spring_run {
    double period;    /* s, mean of the measured periods */
    double final;     /* rad, |angle| at the end */
    double max_energy_ratio; /* max over the run of E / E0 */
} spring_run;

static spring_run run_spring(double kappa, double damping, double w0, int steps, double *inertia_out) {
    spring_run r = {0, 0, 0};
    cr_world *w = zero_g_world();
    if (w == NULL) return r;
    cr_material m = ts_material(0.0, 0.5);
    cr_body_id box = ts_box(w, ts_v(0, 2, 0), cr_quat_identity(), ts_v(0.4, 0.2, 0.1), m);
    double inertia = ts_d(cr_body_get_inertia(w, box).z);
    *inertia_out = inertia;
    cr_joint_def jd = cr_default_joint_def();
    jd.type = CR_JOINT_FIXED;
    jd.body_a = box;
    jd.anchor = ts_v(0, 2, 0);
    jd.spring_stiffness = cr_from_float((float)kappa);
    jd.spring_damping = cr_from_float((float)damping);
    cr_joint_id j;
    if (cr_joint_create(w, &jd, &j) != CR_OK) return r;
    cr_body_set_velocity(w, box, cr_v3_zero(), ts_v(0, 0, w0));
    double e0 = 0.5 * inertia * w0 * w0, prev = 0, first = -1, last = -1;
    int crossings = 0;
    for (int s = 0; s < steps; ++s) {
        cr_world_step(w, TS_DT);
        cr_quat q = cr_body_get_transform(w, box).q;
        double ang = 2.0 * atan2(ts_d(q.z), ts_d(q.w));
        double wz = ts_d(cr_body_get_angular_velocity(w, box).z);
        double e = 0.5 * inertia * wz * wz + 0.5 * kappa * ang * ang;
        if (e / e0 > r.max_energy_ratio) r.max_energy_ratio = e / e0;
        /* upward zero crossings of the angle, interpolated within the step */
        if (s > 0 && prev < 0 && ang >= 0) {
            double t = (s - 1 + prev / (prev - ang)) / 60.0;
            if (first < 0) first = t;
            else ++crossings;
            last = t;
        }
        prev = ang;
        r.final = fabs(ang);
    }
    if (crossings > 0) r.period = (last - first) / crossings;
    ts_free(w);
    return r;
}

CR_TEST(bend_spring_joint_period_rest_and_stability) {
    double inertia;
    /* a soft spring, lightly damped: the period of the damped oscillator */
    double kappa = 40.0, damping = 0.2;
    spring_run r = run_spring(kappa, damping, 0.3, 600, &inertia);
    double gamma = damping / (2 * inertia);
    double expect = 2 * TS_PI / sqrt(kappa / inertia - gamma * gamma);
    cr_test_printf("    I = %.4f kg m^2, kappa %.1f, C %.2f: period %.4f s, expected %.4f s (%.3f %%)\n", inertia, kappa,
                   damping, r.period, expect, 100 * fabs(r.period - expect) / expect);
    ENSURE(r.period > 0);
    ENSURE(fabs(r.period - expect) < 0.01 * expect);
    ENSURE(r.max_energy_ratio < 1.0 + 1e-3);
    /* damped harder (still under-damped): back to the rest angle */
    r = run_spring(kappa, 6.0, 0.3, 600, &inertia);
    cr_test_printf("    C 6: |angle| after 10 s %.2e rad\n", r.final);
    ENSURE(r.final < 1e-3);
    /* over-damped and critically damped: no overshoot past rest, back to rest */
    double crit = 2 * sqrt(kappa * inertia);
    r = run_spring(kappa, 3 * crit, 1.0, 900, &inertia);
    cr_test_printf("    over-damped (3 x critical): |angle| after 15 s %.2e rad, energy ratio max %.3f\n", r.final, r.max_energy_ratio);
    ENSURE(r.final < 2e-2);
    ENSURE(r.period == 0);
    r = run_spring(kappa, crit, 1.0, 600, &inertia);
    cr_test_printf("    critical: |angle| after 10 s %.2e rad\n", r.final);
    ENSURE(r.final < 1e-3);
    ENSURE(r.period == 0);
    /* very stiff, undamped: kappa dt^2 / I = 300, the energy never grows */
    double stiff = 300.0 * inertia * 3600.0;
    r = run_spring(stiff, 0.0, 1.0, 600, &inertia);
    cr_test_printf("    kappa dt^2/I = %.0f: max E/E0 %.6f\n", stiff / 3600.0 / inertia, r.max_energy_ratio);
    ENSURE(r.max_energy_ratio < 1.0 + 1e-3);
    ENSURE(r.max_energy_ratio > 0.5);
}

CR_TEST(bend_joint_defs_are_refused_by_field) {
    cr_world *w = zero_g_world();
    ENSURE(w != NULL);
    cr_body_id box = ts_box(w, ts_v(0, 2, 0), cr_quat_identity(), ts_v(0.4, 0.2, 0.1), ts_material(0, 0.5));
    cr_joint_def jd = cr_default_joint_def();
    jd.body_a = box;
    jd.bend_strength = CR_R(1); /* a point joint cannot be plastic */
    cr_joint_id j;
    ENSURE(cr_joint_create(w, &jd, &j) == CR_ERR_DEF_INVALID && cr_joint_id_is_null(j));
    ENSURE(cr_world_refused_field(w) == CR_FIELD_JOINT_BEND);
    jd.type = CR_JOINT_FIXED;
    jd.spring_stiffness = CR_R(1); /* plastic and elastic at once */
    ENSURE(cr_joint_create(w, &jd, &j) == CR_ERR_DEF_INVALID);
    jd.spring_stiffness = 0;
    jd.bend_damping = CR_R(-1);
    ENSURE(cr_joint_create(w, &jd, &j) == CR_ERR_DEF_INVALID);
    jd.bend_damping = 0;
    ENSURE(cr_joint_create(w, &jd, &j) == CR_OK);
    ts_free(w);
}
