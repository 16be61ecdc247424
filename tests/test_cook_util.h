/* test_cook_util.h — shapes and helpers shared by the cooker and asset tests.
 *
 * Shapes are generated as OBJ text, so every test goes through the same
 * reader a user's file does, and have closed-form volume and inertia: a box,
 * a UV sphere and a torus. The sphere and torus use libm's sin/cos, whose last
 * bits may differ between machines, so golden-byte tests use boxes only.
 */
#ifndef CRUMPLE_TEST_COOK_UTIL_H
#define CRUMPLE_TEST_COOK_UTIL_H

#include "cook.h"
#include "crumple/crumple.h"
#include "stb_ds.h"
#include "test.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TC_PI 3.14159265358979323846

/* appends printf output to an stb_ds char array */
static inline void tc_printf(char **s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static inline void tc_printf(char **s, const char *fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    for (int i = 0; i < n && i < (int)sizeof buf - 1; ++i) arrput(*s, buf[i]);
}

/* Axis-aligned box [x0,x1]x[y0,y1]x[z0,z1], 8 shared corners, 12 outward triangles.
 * `first` is the 1-based index of its first vertex in the file being built. */
static inline void tc_box(char **s, double x0, double y0, double z0, double x1, double y1, double z1, int first) {
    double x[2] = {x0, x1}, y[2] = {y0, y1}, z[2] = {z0, z1};
    for (int i = 0; i < 8; ++i) tc_printf(s, "v %.17g %.17g %.17g\n", x[i & 1], y[(i >> 1) & 1], z[(i >> 2) & 1]);
    /* quads as corner bit patterns, counter-clockwise seen from outside */
    static const int q[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
    for (int f = 0; f < 6; ++f) tc_printf(s, "f %d %d %d %d\n", first + q[f][0], first + q[f][1], first + q[f][2], first + q[f][3]);
}

/* UV sphere of radius r: `seg` around, `rings` from pole to pole. */
static inline void tc_sphere(char **s, double r, int seg, int rings) {
    tc_printf(s, "v 0 %.17g 0\n", r);
    for (int i = 1; i < rings; ++i) {
        double th = TC_PI * i / rings;
        for (int j = 0; j < seg; ++j) {
            double ph = 2 * TC_PI * j / seg;
            tc_printf(s, "v %.17g %.17g %.17g\n", r * sin(th) * cos(ph), r * cos(th), -r * sin(th) * sin(ph));
        }
    }
    tc_printf(s, "v 0 %.17g 0\n", -r);
    int south = 2 + (rings - 1) * seg;
    for (int j = 0; j < seg; ++j) tc_printf(s, "f 1 %d %d\n", 2 + j, 2 + (j + 1) % seg);
    for (int i = 0; i < rings - 2; ++i)
        for (int j = 0; j < seg; ++j) {
            int a = 2 + i * seg + j, b = 2 + i * seg + (j + 1) % seg;
            tc_printf(s, "f %d %d %d %d\n", a, a + seg, b + seg, b);
        }
    for (int j = 0; j < seg; ++j) {
        int base = 2 + (rings - 2) * seg;
        tc_printf(s, "f %d %d %d\n", base + j, south, base + (j + 1) % seg);
    }
}

/* Torus about the y axis: major radius R, minor r. */
static inline void tc_torus(char **s, double R, double r, int seg, int sides) {
    for (int i = 0; i < seg; ++i) {
        double u = 2 * TC_PI * i / seg;
        for (int j = 0; j < sides; ++j) {
            double v = 2 * TC_PI * j / sides;
            double rr = R + r * cos(v);
            tc_printf(s, "v %.17g %.17g %.17g\n", rr * cos(u), r * sin(v), -rr * sin(u));
        }
    }
    for (int i = 0; i < seg; ++i)
        for (int j = 0; j < sides; ++j) {
            int a = 1 + i * sides + j, b = 1 + ((i + 1) % seg) * sides + j;
            int c = 1 + ((i + 1) % seg) * sides + (j + 1) % sides, d = 1 + i * sides + (j + 1) % sides;
            tc_printf(s, "f %d %d %d %d\n", a, b, c, d);
        }
}

/* Parse and cook OBJ text; returns 0 and fills *r, or prints the error. */
static inline int tc_cook_text(const char *name, const char *text, size_t len, const cr_cook_options *opt, cr_cook_result *r) {
    cr_obj obj;
    char err[1024];
    if (cr_obj_parse(name, text, len, &obj, err, sizeof err) != 0) {
        cr_test_printf("    parse failed: %s\n", err);
        return -1;
    }
    int rc = cr_cook_obj(name, &obj, opt, r, err, sizeof err);
    if (rc != 0) cr_test_printf("    cook failed: %s\n", err);
    cr_obj_free(&obj);
    return rc;
}

/* Load cooked bytes through the runtime loader; returns the block (free it) or NULL. */
static inline void *tc_load(const uint8_t *bytes, size_t size, cr_asset *a) {
    size_t need = cr_asset_memory_size(bytes, size);
    if (need == 0) return NULL;
    need = (need + CR_BLOCK_ALIGN - 1) / CR_BLOCK_ALIGN * CR_BLOCK_ALIGN;
    void *block = aligned_alloc(CR_BLOCK_ALIGN, need);
    cr_asset_error e;
    if (cr_asset_load(bytes, size, block, need, a, &e) != CR_OK) {
        cr_test_printf("    load failed: %s (section '%s', index %u)\n", cr_asset_check_name(e.check), e.section_tag, e.index);
        free(block);
        return NULL;
    }
    return block;
}

static inline double tc_v(const cr_vec3 *v, uint32_t i, int k) {
    return cr_to_double(k == 0 ? v[i].x : (k == 1 ? v[i].y : v[i].z));
}

/* Brute-force signed distance to the asset's own triangles: exact unsigned
 * distance over every triangle, sign from the exact winding number. */
static inline double tc_brute_sdf(const double *pos, const uint32_t *tri, uint32_t nt, const double q[3]) {
    double best = INFINITY;
    for (uint32_t t = 0; t < nt; ++t) {
        double d = cr_point_triangle_distance(q, pos + 3 * (size_t)tri[3 * t], pos + 3 * (size_t)tri[3 * t + 1],
                                              pos + 3 * (size_t)tri[3 * t + 2]);
        if (d < best) best = d;
    }
    return cr_winding_exact(pos, tri, nt, q) > 0.5 ? -best : best;
}

/* Asset positions as doubles (3 per vertex), malloc'd. */
static inline double *tc_positions(const cr_asset *a) {
    double *p = malloc(sizeof(double) * 3 * a->vertex_count);
    for (uint32_t i = 0; i < a->vertex_count; ++i)
        for (int k = 0; k < 3; ++k) p[3 * i + k] = tc_v(a->positions, i, k);
    return p;
}

/* Deterministic uniform numbers in [0, 1) for test points (xorshift64*). */
static inline double tc_rand(uint64_t *s) {
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return (double)((*s * 0x2545f4914f6cdd1dull) >> 11) * (1.0 / 9007199254740992.0);
}

#endif
