/* test_cook_mass.c — mass properties against closed forms, read back through
 * the runtime loader (so the float32 storage is part of what is tested).
 *
 * Tessellated shapes are slightly smaller than the smooth ones they
 * approximate; the tessellations here are fine enough that the difference is
 * well inside the 0.5% the issue asks for, and the test prints it.
 */
#include "test.h"
#include "test_cook_util.h"

static void *cook_and_load(const char *name, char *text, const cr_cook_options *opt, cr_cook_result *r, cr_asset *a) {
    if (tc_cook_text(name, text, arrlenu(text), opt, r) != 0) return NULL;
    return tc_load(r->bytes, r->size, a);
}

static double rel(double a, double b) { return fabs(a - b) / fabs(b); }

/* the mesh point that mesh_to_body sends to the body origin */
static void com_in_mesh(const cr_asset *a, double out[3]) {
    cr_transform inv = cr_transform_inverse(a->mesh_to_body);
    out[0] = cr_to_double(inv.p.x), out[1] = cr_to_double(inv.p.y), out[2] = cr_to_double(inv.p.z);
}

CR_TEST(cook_mass_cube) {
    char *s = NULL;
    tc_box(&s, 5, -3, 2, 7, -1, 4, 1);
    cr_cook_options opt = cr_cook_default_options();
    opt.quiet = true;
    opt.sdf_res = 12;
    cr_cook_result r;
    cr_asset a;
    void *block = cook_and_load("cube.obj", s, &opt, &r, &a);
    ENSURE(block != NULL);
    ENSURE(a.topology.closed);
    ENSURE(rel(cr_to_double(a.volume), 8.0) < 1e-6);
    for (int k = 0; k < 3; ++k) ENSURE(rel(cr_to_double((&a.inertia.x)[k]), 8.0 * 4.0 / 6.0) < 1e-6);
    double c[3];
    com_in_mesh(&a, c);
    ENSURE_NEAR(c[0], 6, 1e-5);
    ENSURE_NEAR(c[1], -2, 1e-5);
    ENSURE_NEAR(c[2], 3, 1e-5);
    /* equal moments: the body axes are the mesh axes, not a noise-picked rotation */
    ENSURE(cr_to_double(a.mesh_to_body.q.w) > 1 - 1e-6);
    free(block);
    cr_cook_result_free(&r);
    arrfree(s);
}

CR_TEST(cook_mass_sphere) {
    char *s = NULL;
    tc_sphere(&s, 1.0, 128, 64);
    cr_cook_options opt = cr_cook_default_options();
    opt.quiet = true;
    opt.sdf_res = 12;
    opt.geodesic_max = 2;
    cr_cook_result r;
    cr_asset a;
    void *block = cook_and_load("sphere.obj", s, &opt, &r, &a);
    ENSURE(block != NULL);
    double V = 4.0 / 3.0 * TC_PI, I = 0.4 * V;
    double ev = rel(cr_to_double(a.volume), V), ei = 0;
    for (int k = 0; k < 3; ++k) ei = fmax(ei, rel(cr_to_double((&a.inertia.x)[k]), I));
    cr_test_printf("    sphere (%u triangles): volume error %.3f%%, inertia error %.3f%%\n", a.triangle_count, 100 * ev, 100 * ei);
    ENSURE(ev < 0.005 && ei < 0.005);
    double c[3];
    com_in_mesh(&a, c);
    for (int k = 0; k < 3; ++k) ENSURE_NEAR(c[k], 0, 1e-6);
    free(block);
    cr_cook_result_free(&r);
    arrfree(s);
}

CR_TEST(cook_mass_torus) {
    char *s = NULL;
    double R = 1.0, rr = 0.3;
    tc_torus(&s, R, rr, 128, 64);
    cr_cook_options opt = cr_cook_default_options();
    opt.quiet = true;
    opt.sdf_res = 12;
    opt.geodesic_max = 2;
    cr_cook_result r;
    cr_asset a;
    void *block = cook_and_load("torus.obj", s, &opt, &r, &a);
    ENSURE(block != NULL);
    double V = 2 * TC_PI * TC_PI * R * rr * rr;
    double I_diam = V * (R * R / 2 + 5.0 / 8.0 * rr * rr), I_axis = V * (R * R + 0.75 * rr * rr);
    /* principal moments come ascending: the two diameters, then the axis */
    double e[4] = {rel(cr_to_double(a.volume), V), rel(cr_to_double(a.inertia.x), I_diam), rel(cr_to_double(a.inertia.y), I_diam),
                   rel(cr_to_double(a.inertia.z), I_axis)};
    cr_test_printf("    torus (%u triangles): volume %.3f%%, inertia %.3f%% %.3f%% %.3f%%\n", a.triangle_count, 100 * e[0],
                   100 * e[1], 100 * e[2], 100 * e[3]);
    for (int k = 0; k < 4; ++k) ENSURE(e[k] < 0.005);
    /* the symmetry axis (mesh y) is the body z axis */
    cr_vec3 yb = cr_quat_rotate(a.mesh_to_body.q, cr_v3(0, CR_R(1), 0));
    ENSURE_NEAR(fabs(cr_to_double(yb.z)), 1.0, 1e-5);
    free(block);
    cr_cook_result_free(&r);
    arrfree(s);
}

/* A rotated 1 x 2 x 4 box: the principal frame must find its axes. */
CR_TEST(cook_mass_principal_frame_of_a_rotated_box) {
    char *s = NULL;
    /* rotation by 30 degrees about z, then 45 about x, written out */
    double c30 = 0.86602540378443865, s30 = 0.5, c45 = 0.70710678118654752;
    double Rm[3][3] = {{c30, -s30, 0}, {c45 * s30, c45 * c30, -c45}, {c45 * s30, c45 * c30, c45}};
    double half[3] = {0.5, 1.0, 2.0};
    for (int i = 0; i < 8; ++i) {
        double p[3] = {(i & 1) ? half[0] : -half[0], (i & 2) ? half[1] : -half[1], (i & 4) ? half[2] : -half[2]}, q[3];
        for (int r = 0; r < 3; ++r) q[r] = Rm[r][0] * p[0] + Rm[r][1] * p[1] + Rm[r][2] * p[2] + (r == 0 ? 10 : 0);
        tc_printf(&s, "v %.17g %.17g %.17g\n", q[0], q[1], q[2]);
    }
    static const int quad[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
    for (int f = 0; f < 6; ++f) tc_printf(&s, "f %d %d %d %d\n", 1 + quad[f][0], 1 + quad[f][1], 1 + quad[f][2], 1 + quad[f][3]);
    cr_cook_options opt = cr_cook_default_options();
    opt.quiet = true;
    opt.sdf_res = 16;
    cr_cook_result r;
    cr_asset a;
    void *block = cook_and_load("rbox.obj", s, &opt, &r, &a);
    ENSURE(block != NULL);
    ENSURE(rel(cr_to_double(a.volume), 8) < 1e-6);
    ENSURE(rel(cr_to_double(a.inertia.x), 8 * (1 + 4) / 12.0) < 1e-5);
    ENSURE(rel(cr_to_double(a.inertia.y), 8 * (1 + 16) / 12.0) < 1e-5);
    ENSURE(rel(cr_to_double(a.inertia.z), 8 * (4 + 16) / 12.0) < 1e-5);
    /* in the body frame the box is axis-aligned: bounds are the half extents, longest on x */
    ENSURE_NEAR(cr_to_double(a.bounds_max.x), 2.0, 1e-5);
    ENSURE_NEAR(cr_to_double(a.bounds_max.y), 1.0, 1e-5);
    ENSURE_NEAR(cr_to_double(a.bounds_max.z), 0.5, 1e-5);
    ENSURE_NEAR(cr_to_double(a.bounds_min.x), -2.0, 1e-5);
    free(block);
    cr_cook_result_free(&r);
    arrfree(s);
}

/* An open mesh (a sphere with its top cap cut off) has no inside by the
 * surface formulas; the cooker integrates a grid instead. */
CR_TEST(cook_mass_open_mesh_from_the_grid) {
    char *s = NULL;
    tc_sphere(&s, 1.0, 48, 24);
    /* drop the first 48 faces (the triangle fan around the north pole) */
    char *f = strstr(s, "\nf ");
    ENSURE(f != NULL);
    for (int k = 0; k < 48; ++k) {
        f[1] = '#';
        f = strstr(f + 1, "\nf ");
    }
    cr_cook_options opt = cr_cook_default_options();
    opt.quiet = true;
    opt.sdf_res = 32; /* the mass grid is at least 24 cells across */
    opt.geodesic_max = 2;
    cr_cook_result r;
    cr_asset a;
    void *block = cook_and_load("open-sphere.obj", s, &opt, &r, &a);
    ENSURE(block != NULL);
    ENSURE(!a.topology.closed && a.topology.boundary_edges == 48);
    /* the smooth sphere's values; the tessellation costs 1% at 48 x 24 */
    double V = 4.0 / 3.0 * TC_PI, I = 0.4 * V;
    double ev = rel(cr_to_double(a.volume), V), ei = 0;
    for (int k = 0; k < 3; ++k) ei = fmax(ei, rel(cr_to_double((&a.inertia.x)[k]), I));
    cr_test_printf("    open sphere by grid: volume error %.2f%%, inertia error %.2f%%\n", 100 * ev, 100 * ei);
    ENSURE(ev < 0.015 && ei < 0.02);
    free(block);
    cr_cook_result_free(&r);
    arrfree(s);
}
