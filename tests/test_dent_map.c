/* test_dent_map.c — the dent map steps of seed 000 §3, one by one. */
#include "test.h"
#include "damage/dent_map.h"

#include <stdlib.h>
#include <string.h>

static uint32_t lcg(uint32_t *s) { return *s = *s * 1664525u + 1013904223u; }

/* Broadening by the linear-time distance transform must equal the brute-force
 * upper envelope: this is what lets us claim "exact" and not just "close". */
CR_TEST(dent_broaden_equals_brute_force_on_random_grids) {
    uint32_t seed = 12345;
    double worst = 0;
    for (int trial = 0; trial < 12; ++trial) {
        uint32_t n = 8 + lcg(&seed) % 33;
        cr_dent_grid g = {n, CR_R(0.01), calloc(n * n, sizeof(cr_real))};
        cr_real *brute = calloc(n * n, sizeof(cr_real));
        void *scratch = malloc(cri_dent_broaden_scratch_bytes(n));
        /* sparse random heights from 1 mm to 10 cm, some trials dense */
        uint32_t density = 2 + lcg(&seed) % 20;
        for (uint32_t i = 0; i < n * n; ++i)
            if (lcg(&seed) % density == 0) g.h[i] = cr_from_int((int32_t)(1 + (lcg(&seed) >> 8) % 100)) / 1000;
        cr_real sigma = CR_R(0.01) * (int32_t)(1 + lcg(&seed) % 6);
        cri_dent_broaden_brute(&g, sigma, brute);
        cri_dent_broaden(&g, sigma, scratch);
        for (uint32_t i = 0; i < n * n; ++i) {
            double a = cr_to_double(g.h[i]), b = cr_to_double(brute[i]);
            double err = fabs(a - b);
            double tol = 1e-6 * b + (CR_FIXED ? 2e-9 : 1e-30);
            if (b > 1e-6 && err / b > worst) worst = err / b;
            ENSURE_MSG(err <= tol, "trial %d n %u cell %u: ours %.9g brute %.9g", trial, n, i, a, b);
        }
        free(g.h), free(brute), free(scratch);
    }
    cr_test_printf("     broadening vs brute force: worst relative difference %.3g\n", worst);
}

CR_TEST(dent_broaden_keeps_profile_and_widens_it) {
    uint32_t n = 41;
    cr_dent_grid g = {n, CR_R(0.01), calloc(n * n, sizeof(cr_real))};
    void *scratch = malloc(cri_dent_broaden_scratch_bytes(n));
    g.h[20 * n + 20] = CR_R(0.05);
    g.h[20 * n + 24] = CR_R(0.03);
    cri_dent_broaden(&g, CR_R(0.03), scratch);
    /* the envelope never drops below a sample and is positive between them */
    ENSURE(g.h[20 * n + 20] == CR_R(0.05));
    ENSURE(g.h[20 * n + 24] >= CR_R(0.03));
    ENSURE(g.h[20 * n + 30] > 0 && g.h[30 * n + 20] > 0);
    /* symmetric about the single dominant sample along y */
    ENSURE(g.h[10 * n + 20] == g.h[30 * n + 20]);
    free(g.h), free(scratch);
}

CR_TEST(dent_zbuffer_profile_of_a_sphere_cap) {
    /* A UV sphere of radius R touching the collision plane at the origin from
     * the z < 0 side... expressed as heights past the plane moved back by d. */
    const double R = 0.1, d = 0.02;
    enum { RINGS = 48, SEGS = 96 };
    static cr_vec3 pts[(RINGS + 1) * SEGS];
    static uint32_t tris[RINGS * SEGS * 6];
    uint32_t np = 0, nt = 0;
    for (int r = 0; r <= RINGS; ++r) {
        double th = 3.14159265358979 * r / RINGS;
        for (int s = 0; s < SEGS; ++s) {
            double ph = 2 * 3.14159265358979 * s / SEGS;
            double x = R * sin(th) * cos(ph), y = R * sin(th) * sin(ph), z = R * cos(th);
            /* tip (th = 0) at height d past the moved-back plane */
            pts[np++] = cr_v3(cr_from_float((float)x), cr_from_float((float)y), cr_from_float((float)(z - R + d)));
        }
    }
    for (int r = 0; r < RINGS; ++r)
        for (int s = 0; s < SEGS; ++s) {
            uint32_t a = (uint32_t)(r * SEGS + s), b = (uint32_t)(r * SEGS + (s + 1) % SEGS);
            uint32_t c = a + SEGS, e = b + SEGS;
            tris[nt++] = a, tris[nt++] = c, tris[nt++] = b;
            tris[nt++] = b, tris[nt++] = c, tris[nt++] = e;
        }
    uint32_t n = 61;
    cr_dent_grid g = {n, CR_R(0.002), calloc(n * n, sizeof(cr_real))};
    uint32_t writes = cri_dent_zbuffer(&g, pts, tris, nt / 3);
    ENSURE(writes > 0);
    ENSURE_NEAR(cr_to_double(g.h[30 * n + 30]), d, 2e-4);
    /* the cap's footprint radius is sqrt(2Rd - d^2) = 0.06: 30 cells * 2 mm */
    ENSURE(g.h[30 * n + 30 + 25] > 0 && g.h[30 * n + 60] < CR_R(0.0005));
    ENSURE(g.h[0] == 0 && g.h[n * n - 1] == 0);
    /* height at x = 4 cm on the cap: d - (R - sqrt(R^2 - x^2)) */
    ENSURE_NEAR(cr_to_double(g.h[30 * n + 50]), d - (R - sqrt(R * R - 0.04 * 0.04)), 5e-4);
    free(g.h);
}

CR_TEST(dent_smoothing_keeps_dent_distance_and_only_raises) {
    uint32_t n = 33;
    cr_dent_grid g = {n, CR_R(0.01), calloc(n * n, sizeof(cr_real))};
    cr_real *tmp = calloc(n * n, sizeof(cr_real)), *before = calloc(n * n, sizeof(cr_real));
    /* a crisp square plateau, like a Z-buffer of a flat-faced projectile */
    for (uint32_t y = 12; y <= 20; ++y)
        for (uint32_t x = 12; x <= 20; ++x) g.h[y * n + x] = CR_R(0.04);
    cri_dent_smooth(&g, 4, 0, CR_R(0.05), tmp);
    ENSURE_NEAR(cr_to_double(cri_dent_peak(&g)), 0.05, 1e-6);
    memcpy(before, g.h, n * n * sizeof(cr_real));
    cri_dent_smooth(&g, 0, 6, CR_R(0.05), tmp);
    for (uint32_t i = 0; i < n * n; ++i) ENSURE(g.h[i] >= before[i]);
    /* the crisp plateau edge is gone: neighbours across it differ far less than 4 cm */
    ENSURE(g.h[16 * n + 21] - g.h[16 * n + 22] < CR_R(0.015));
    free(g.h), free(tmp), free(before);
}

CR_TEST(dent_gaussian_and_sampling) {
    uint32_t n = 21;
    cr_dent_grid g = {n, CR_R(0.01), calloc(n * n, sizeof(cr_real))};
    cri_dent_gaussian(&g, CR_R(0.03), CR_R(0.02));
    ENSURE_NEAR(cr_to_double(g.h[10 * n + 10]), 0.03, 1e-6);
    ENSURE_NEAR(cr_to_double(cri_dent_sample(&g, 0, 0)), 0.03, 1e-6);
    /* one sigma out: 0.03 e^-0.5 */
    ENSURE_NEAR(cr_to_double(cri_dent_sample(&g, CR_R(0.02), 0)), 0.03 * exp(-0.5), 1e-5);
    ENSURE_NEAR(cr_to_double(cri_dent_sample(&g, CR_R(0.005), 0)), 0.5 * (0.03 + 0.03 * exp(-0.125)), 1e-5);
    ENSURE(cri_dent_sample(&g, CR_R(0.5), 0) == 0);
    free(g.h);
}

CR_TEST(dent_attenuation_never_inverts_thin_walls) {
    cr_real d = CR_R(0.05);
    ENSURE_NEAR(cr_to_double(cri_dent_attenuation(0, d, CR_R(1))), 1.0, 1e-6);
    ENSURE_NEAR(cr_to_double(cri_dent_attenuation(d, d, CR_R(1))), 2.0 / (1.0 + exp(1.0)), 1e-5);
    cr_real prev = CR_R(2);
    for (int i = 0; i <= 40; ++i) {
        cr_real z = cr_mul(d, CR_R(0.05)) * i;
        cr_real a1 = cri_dent_attenuation(z, d, CR_R(1)), a8 = cri_dent_attenuation(z, d, CR_R(8));
        double line = 1.0 - cr_to_double(z) / cr_to_double(d);
        ENSURE(a1 <= prev);
        ENSURE(cr_to_double(a8) >= line - 1e-6); /* a steep falloff is clamped to the line */
        prev = a1;
    }
}

/* Far behind a thin dent (z/d in the hundreds) the falloff is 0, not an
 * overflow: fixed point's e^x saturates long before that. */
CR_TEST(dent_attenuation_far_behind_is_zero) {
    ENSURE(cri_dent_attenuation(CR_R(10), CR_R(0.001), CR_R(1)) == 0);
    ENSURE(cri_dent_attenuation(CR_R(1000), CR_R(0.01), CR_R(8)) == 0);
    ENSURE_NEAR(cr_to_double(cri_dent_logistic2(0)), 1.0, 1e-6);
    ENSURE_NEAR(cr_to_double(cri_dent_logistic2(CR_R(-50))), 2.0, 1e-6);
    ENSURE(cri_dent_logistic2(CR_R(1e6)) == 0);
}
