/* test_cook_sdf.c — the signed distance grid, checked from the user's side:
 * the runtime's lookup (cr_asset_sdf) against a brute-force reference over
 * every triangle, at thousands of random points.
 *
 * The error bound is not a tuned number. Node values are exact distances,
 * and a signed distance function is 1-Lipschitz, so trilinear interpolation
 * is off by at most the weighted mean distance to the cell corners, whose
 * largest value (at a cell centre) is sqrt(3)/2 of the cell size.
 */
#include "test.h"
#include "test_cook_util.h"

#define LIPSCHITZ_BOUND 0.8660254037844386 /* sqrt(3)/2 */

static const char *cook_torus(cr_cook_result *r, int res) {
    char *s = NULL;
    tc_torus(&s, 1.0, 0.35, 40, 20);
    cr_cook_options opt = cr_cook_default_options();
    opt.quiet = true;
    opt.sdf_res = res;
    int rc = tc_cook_text("torus.obj", s, arrlenu(s), &opt, r);
    arrfree(s);
    return rc == 0 ? "ok" : NULL;
}

CR_TEST(cook_sdf_matches_brute_force_inside_the_grid) {
    cr_cook_result r;
    ENSURE(cook_torus(&r, 32) != NULL);
    cr_asset a;
    void *block = tc_load(r.bytes, r.size, &a);
    ENSURE(block != NULL);
    double *pos = tc_positions(&a);
    double h = cr_to_double(a.sdf_cell);
    double lo[3] = {cr_to_double(a.sdf_origin.x), cr_to_double(a.sdf_origin.y), cr_to_double(a.sdf_origin.z)};
    uint64_t seed = 12345;
    double max_err = 0, sum_err = 0, worst_normal = 1;
    int n = 2000, normals = 0;
    for (int i = 0; i < n; ++i) {
        double q[3];
        for (int k = 0; k < 3; ++k) q[k] = lo[k] + tc_rand(&seed) * h * (double)(a.sdf_dims[k] - 1);
        double ref = tc_brute_sdf(pos, a.triangles, a.triangle_count, q);
        cr_vec3 nrm;
        cr_real d = cr_asset_sdf(&a, cr_v3(cr_from_float((float)q[0]), cr_from_float((float)q[1]), cr_from_float((float)q[2])), &nrm);
        double err = fabs(cr_to_double(d) - ref);
        max_err = fmax(max_err, err);
        sum_err += err;
        ENSURE_MSG(err <= LIPSCHITZ_BOUND * h + 1e-5, "point (%g %g %g): grid %g, exact %g, error %.3g cells", q[0], q[1], q[2],
                   cr_to_double(d), ref, err / h);
        double nl = sqrt(cr_to_double(cr_v3_dot(nrm, nrm)));
        ENSURE_NEAR(nl, 1.0, 1e-3);
        /* the normal must point where the distance grows: compare with a
         * finite difference of the exact distance, where that is smooth on the
         * scale of a cell (more than a cell off the surface, two cells from
         * the medial circle 0.35 inside the tube and the axis 0.65 outside) */
        if (normals < 200 && ((ref > 2 * h && ref < 0.65 - 2 * h) || (ref < -h && ref > -0.35 + 2 * h))) {
            double e = 1e-4, g[3];
            for (int k = 0; k < 3; ++k) {
                double qp[3] = {q[0], q[1], q[2]}, qm[3] = {q[0], q[1], q[2]};
                qp[k] += e;
                qm[k] -= e;
                g[k] = (tc_brute_sdf(pos, a.triangles, a.triangle_count, qp) - tc_brute_sdf(pos, a.triangles, a.triangle_count, qm)) / (2 * e);
            }
            double gl = sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
            double dot = (g[0] * cr_to_double(nrm.x) + g[1] * cr_to_double(nrm.y) + g[2] * cr_to_double(nrm.z)) / gl;
            worst_normal = fmin(worst_normal, dot);
            ++normals;
        }
    }
    cr_test_printf("    torus %u triangles, grid %ux%ux%u, cell %.4g: max error %.4g (%.3f cells), mean %.3g, "
                   "worst normal cos %.4f over %d points\n",
                   a.triangle_count, a.sdf_dims[0], a.sdf_dims[1], a.sdf_dims[2], h, max_err, max_err / h, sum_err / n,
                   worst_normal, normals);
    ENSURE(normals > 50);
    ENSURE_MSG(worst_normal > 0.9, "normal off by acos(%g)", worst_normal);
    free(pos);
    free(block);
    cr_cook_result_free(&r);
}

CR_TEST(cook_sdf_is_conservative_outside_the_grid) {
    cr_cook_result r;
    ENSURE(cook_torus(&r, 20) != NULL);
    cr_asset a;
    void *block = tc_load(r.bytes, r.size, &a);
    ENSURE(block != NULL);
    double *pos = tc_positions(&a);
    double h = cr_to_double(a.sdf_cell);
    uint64_t seed = 99;
    for (int i = 0; i < 300; ++i) {
        /* points on a shell well outside the grid box */
        double q[3], l = 0;
        for (int k = 0; k < 3; ++k) q[k] = tc_rand(&seed) - 0.5, l += q[k] * q[k];
        l = sqrt(l);
        for (int k = 0; k < 3; ++k) q[k] = q[k] / l * (2.0 + 3.0 * tc_rand(&seed));
        double ref = tc_brute_sdf(pos, a.triangles, a.triangle_count, q);
        cr_vec3 n;
        double d = cr_to_double(cr_asset_sdf(&a, cr_v3(cr_from_float((float)q[0]), cr_from_float((float)q[1]), cr_from_float((float)q[2])), &n));
        /* never reports a far point closer than it is (no phantom contacts) */
        ENSURE_MSG(d >= ref - LIPSCHITZ_BOUND * h, "outside point: %g < exact %g", d, ref);
        double dot = (q[0] * cr_to_double(n.x) + q[1] * cr_to_double(n.y) + q[2] * cr_to_double(n.z)) / sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
        ENSURE(dot > 0);
    }
    free(pos);
    free(block);
    cr_cook_result_free(&r);
}

/* The four public meshes (data/meshes/README.md), three of them not watertight. At grid nodes clearly
 * off the surface the sign must agree with the exact winding number summed
 * over every triangle (the cooker uses a tree approximation of it). */
static void check_public_sign(cr_test_ctx *cr_test_ctx_, const char *file, int points) {
    char path[256];
    snprintf(path, sizeof path, "%s%s", CR_SHARED_MESHES, file);
    cr_obj obj;
    char err[512];
    ENSURE_MSG(cr_obj_load(path, &obj, err, sizeof err) == 0, "public mesh missing or unreadable (run from the project root): %s", err);
    cr_cook_options opt = cr_cook_default_options();
    opt.quiet = true;
    opt.sdf_res = 20;
    opt.max_samples = 64;
    opt.geodesic_max = 2;
    cr_cook_result r;
    int rc = cr_cook_obj(path, &obj, &opt, &r, err, sizeof err);
    cr_obj_free(&obj);
    ENSURE_MSG(rc == 0, "%s", err);
    cr_asset a;
    void *block = tc_load(r.bytes, r.size, &a);
    ENSURE(block != NULL);
    double *pos = tc_positions(&a);
    double h = cr_to_double(a.sdf_cell);
    uint32_t nodes = a.sdf_dims[0] * a.sdf_dims[1] * a.sdf_dims[2];
    uint32_t inside = 0;
    for (uint32_t i = 0; i < nodes; ++i) inside += a.sdf[i] < 0;
    uint64_t seed = 7;
    int checked = 0, ambiguous = 0, in_checked = 0, tries = 0;
    while (checked < points && tries < 100 * points) {
        ++tries;
        uint32_t i = (uint32_t)(tc_rand(&seed) * nodes);
        double v = cr_to_double(a.sdf[i]);
        if (fabs(v) < 1.5 * h) continue;
        /* half the checks from the inside, which is where a wrong sign hurts */
        if ((checked & 1) == 0 && v > 0) continue;
        double q[3] = {cr_to_double(a.sdf_origin.x) + h * (i % a.sdf_dims[0]),
                       cr_to_double(a.sdf_origin.y) + h * ((i / a.sdf_dims[0]) % a.sdf_dims[1]),
                       cr_to_double(a.sdf_origin.z) + h * (i / (a.sdf_dims[0] * a.sdf_dims[1]))};
        double w = cr_winding_exact(pos, a.triangles, a.triangle_count, q);
        if (fabs(w - 0.5) < 0.1) {
            ++ambiguous; /* in the mouth of a hole: neither answer is wrong */
            continue;
        }
        ENSURE_MSG((w > 0.5) == (v < 0), "%s: node (%g %g %g): grid says %s (%g), winding number %g", file, q[0], q[1], q[2],
                   v < 0 ? "inside" : "outside", v, w);
        in_checked += v < 0;
        ++checked;
    }
    double grid_volume = inside * h * h * h, volume = cr_to_double(a.volume);
    cr_test_printf("    %-18s %6u tris, %s, grid %ux%ux%u: %d signs right (%d inside), %d ambiguous skipped; "
                   "inside nodes x cell %.4g vs volume %.4g\n",
                   file, a.triangle_count, a.topology.closed ? "closed" : "open  ", a.sdf_dims[0], a.sdf_dims[1], a.sdf_dims[2],
                   checked, in_checked, ambiguous, grid_volume, volume);
    ENSURE(checked == points);
    ENSURE(in_checked >= points / 2);
    /* the inside is one solid lump of the right size: not inverted, not leaked out through a hole */
    ENSURE_MSG(fabs(grid_volume - volume) < 0.3 * volume, "%s: grid inside %g vs volume %g", file, grid_volume, volume);
    free(pos);
    free(block);
    cr_cook_result_free(&r);
}

CR_TEST(cook_sdf_sign_bunny) { check_public_sign(cr_test_ctx_, "stanford-bunny.obj", 40); }
CR_TEST(cook_sdf_sign_spot) { check_public_sign(cr_test_ctx_, "spot.obj", 200); }
CR_TEST(cook_sdf_sign_teapot) { check_public_sign(cr_test_ctx_, "teapot.obj", 200); }
CR_TEST(cook_sdf_sign_suzanne) { check_public_sign(cr_test_ctx_, "suzanne.obj", 200); }

CR_TEST(cook_winding_number_fast_matches_exact) {
    /* the tree approximation against the exact sum, on an open mesh (suzanne
     * has open eyes and neck), at points near and far */
    char path[256];
    snprintf(path, sizeof path, "%s%s", CR_SHARED_MESHES, "suzanne.obj");
    cr_obj obj;
    char err[512];
    ENSURE_MSG(cr_obj_load(path, &obj, err, sizeof err) == 0, "public mesh missing: %s", err);
    cr_cook_options opt = cr_cook_default_options();
    cr_cook_mesh m;
    ENSURE(cr_cook_clean(&obj, &opt, &m, err, sizeof err) == 0);
    cr_bvh *b = cr_bvh_build(m.pos, m.tri, m.triangle_count);
    uint64_t seed = 5;
    double worst = 0;
    for (int i = 0; i < 500; ++i) {
        double q[3] = {-4.5 + 4 * tc_rand(&seed), -0.3 + 3 * tc_rand(&seed), 2.6 + 3 * tc_rand(&seed)};
        double we = cr_winding_exact(m.pos, m.tri, m.triangle_count, q), wf = cr_bvh_winding(b, q);
        worst = fmax(worst, fabs(we - wf));
        uint32_t hint = UINT32_MAX;
        double d = cr_bvh_distance(b, q, &hint), bd = INFINITY;
        for (uint32_t t = 0; t < m.triangle_count; ++t)
            bd = fmin(bd, cr_point_triangle_distance(q, m.pos + 3 * m.tri[3 * t], m.pos + 3 * m.tri[3 * t + 1], m.pos + 3 * m.tri[3 * t + 2]));
        ENSURE_MSG(d == bd, "BVH distance %.17g vs brute force %.17g", d, bd);
        ENSURE(hint < m.triangle_count);
    }
    cr_test_printf("    fast winding number: worst |error| %.3g over 500 points\n", worst);
    ENSURE(worst < 0.05);
    /* and the series atan2 against libm's, over all quadrants */
    for (int i = 0; i < 1000; ++i) {
        double y = tc_rand(&seed) * 4 - 2, x = tc_rand(&seed) * 4 - 2;
        ENSURE_NEAR(cr_cook_atan2(y, x), atan2(y, x), 1e-14);
    }
    ENSURE(cr_cook_atan2(0, 0) == 0);
    ENSURE_NEAR(cr_cook_atan2(0, -1), TC_PI, 1e-15);
    cr_bvh_free(b);
    cr_cook_mesh_free(&m);
    cr_obj_free(&obj);
}

/* The distance routine everything above leans on, against an independent
 * reference: the nearest of a dense barycentric sampling of the triangle,
 * which can only be farther than the truth, by at most the sampling step. */
CR_TEST(cook_point_triangle_distance_against_dense_sampling) {
    uint64_t seed = 77;
    const int n = 120;
    for (int c = 0; c < 300; ++c) {
        double t[3][3], q[3];
        for (int v = 0; v < 3; ++v)
            for (int k = 0; k < 3; ++k) t[v][k] = tc_rand(&seed) * 2 - 1;
        if (c % 10 == 0) /* a few slivers */
            for (int k = 0; k < 3; ++k) t[2][k] = t[0][k] + (t[1][k] - t[0][k]) * 0.3 + 1e-9 * k;
        for (int k = 0; k < 3; ++k) q[k] = tc_rand(&seed) * 4 - 2;
        double d = cr_point_triangle_distance(q, t[0], t[1], t[2]);
        double best = INFINITY, edge = 0;
        for (int v = 0; v < 3; ++v) {
            double e = 0;
            for (int k = 0; k < 3; ++k) e += (t[(v + 1) % 3][k] - t[v][k]) * (t[(v + 1) % 3][k] - t[v][k]);
            edge = fmax(edge, sqrt(e));
        }
        for (int i = 0; i <= n; ++i)
            for (int j = 0; i + j <= n; ++j) {
                double u = (double)i / n, v = (double)j / n, w = 1 - u - v, e2 = 0;
                for (int k = 0; k < 3; ++k) {
                    double x = u * t[0][k] + v * t[1][k] + w * t[2][k] - q[k];
                    e2 += x * x;
                }
                best = fmin(best, sqrt(e2));
            }
        ENSURE_MSG(d <= best + 1e-12, "case %d: %.17g is farther than a sample at %.17g", c, d, best);
        ENSURE_MSG(best - d <= edge / n + 1e-12, "case %d: %.17g is nearer than any sample allows (%.17g)", c, d, best);
    }
}

CR_TEST(cook_sdf_far_points_stay_far) {
    cr_cook_result r;
    ENSURE(cook_torus(&r, 12) != NULL);
    cr_asset a;
    void *block = tc_load(r.bytes, r.size, &a);
    ENSURE(block != NULL);
    /* far enough that |p|^2 would overflow Q32.32 (about 46 km) */
    const double far[] = {10.0, 5000.0, 60000.0, 1.0e6};
    for (size_t i = 0; i < sizeof far / sizeof far[0]; ++i)
        for (int axis = 0; axis < 3; ++axis) {
            cr_real x = cr_from_float((float)far[i]);
            cr_vec3 p = cr_v3(axis == 0 ? x : CR_R(0.5), axis == 1 ? -x : CR_R(0.25), axis == 2 ? x : 0), n;
            double d = cr_to_double(cr_asset_sdf(&a, p, &n));
            ENSURE_MSG(d > far[i] / 1.8 - 2, "point %g m away along axis %d: distance %g", far[i], axis, d);
            double nc = cr_to_double(axis == 0 ? n.x : (axis == 1 ? -n.y : n.z));
            ENSURE(nc > 0.9);
        }
    free(block);
    cr_cook_result_free(&r);
}
