/* dent_map.c — building and sampling dent maps (see dent_map.h for the method). */
#include "damage/dent_map.h"

#include <string.h>

#define CR_DENT_NONE 0xffffffffu
/* Explicit heat step size; 2D five-point stencil is stable up to 1/4. */
#define CR_DENT_HEAT_RATE CR_R(0.2)
/* Barycentric slack of the Z-buffer's inside test. */
#define CR_DENT_EDGE_SLACK CR_R(1e-5)

static cr_real half_span(const cr_dent_grid *g) { return cr_half(cr_from_int((int32_t)g->n - 1)); }

cr_real cri_dent_cell_center(const cr_dent_grid *g, uint32_t i) {
    return cr_mul(cr_from_int((int32_t)i) - half_span(g), g->cell);
}

/* Twice the signed area of (a, b, p) in grid units. */
static cr_real edge(cr_real ax, cr_real ay, cr_real bx, cr_real by, cr_real px, cr_real py) {
    return cr_mul(bx - ax, py - ay) - cr_mul(by - ay, px - ax);
}

uint32_t cri_dent_zbuffer(cr_dent_grid *g, const cr_vec3 *pts, const uint32_t *tris, uint32_t tri_count) {
    uint32_t writes = 0;
    int32_t n = (int32_t)g->n;
    cr_real inv_cell = cr_div(CR_R(1), g->cell), hs = half_span(g);
    for (uint32_t t = 0; t < tri_count; ++t) {
        cr_vec3 a = pts[tris[3 * t]], b = pts[tris[3 * t + 1]], c = pts[tris[3 * t + 2]];
        if (a.z <= 0 && b.z <= 0 && c.z <= 0) continue; /* never reaches past the plane */
        /* to grid units, where cell i has its centre at i */
        cr_real ax = cr_mul(a.x, inv_cell) + hs, ay = cr_mul(a.y, inv_cell) + hs;
        cr_real bx = cr_mul(b.x, inv_cell) + hs, by = cr_mul(b.y, inv_cell) + hs;
        cr_real cx = cr_mul(c.x, inv_cell) + hs, cy = cr_mul(c.y, inv_cell) + hs;
        cr_real area = edge(ax, ay, bx, by, cx, cy);
        if (area == 0) continue; /* seen edge-on: its neighbours cover it */
        int32_t i0 = cr_floor_int(cr_min(ax, cr_min(bx, cx))) + 1, i1 = cr_floor_int(cr_max(ax, cr_max(bx, cx)));
        int32_t j0 = cr_floor_int(cr_min(ay, cr_min(by, cy))) + 1, j1 = cr_floor_int(cr_max(ay, cr_max(by, cy)));
        if (i0 < 0) i0 = 0;
        if (j0 < 0) j0 = 0;
        if (i1 > n - 1) i1 = n - 1;
        if (j1 > n - 1) j1 = n - 1;
        cr_real inv_area = cr_div(CR_R(1), area);
        for (int32_t j = j0; j <= j1; ++j) {
            cr_real py = cr_from_int(j);
            for (int32_t i = i0; i <= i1; ++i) {
                cr_real px = cr_from_int(i);
                cr_real w0 = cr_mul(edge(bx, by, cx, cy, px, py), inv_area);
                cr_real w1 = cr_mul(edge(cx, cy, ax, ay, px, py), inv_area);
                cr_real w2 = CR_R(1) - w0 - w1;
                /* a cell centre on a shared edge must land in one of the two
                 * triangles whatever the rounding: a hole in a max Z-buffer
                 * is a notch in the dent, an overlap is harmless */
                if (w0 < -CR_DENT_EDGE_SLACK || w1 < -CR_DENT_EDGE_SLACK || w2 < -CR_DENT_EDGE_SLACK) continue;
                cr_real z = cr_mul(w0, a.z) + cr_mul(w1, b.z) + cr_mul(w2, c.z);
                cr_real *cell = &g->h[(uint32_t)j * g->n + (uint32_t)i];
                if (z > *cell) *cell = z;
                ++writes;
            }
        }
    }
    return writes;
}

void cri_dent_gaussian(cr_dent_grid *g, cr_real depth, cr_real sigma) {
    cr_real k = cr_div(CR_R(-0.5), cr_mul(sigma, sigma));
    for (uint32_t j = 0; j < g->n; ++j) {
        cr_real y = cri_dent_cell_center(g, j);
        for (uint32_t i = 0; i < g->n; ++i) {
            cr_real x = cri_dent_cell_center(g, i);
            g->h[j * g->n + i] = cr_mul(depth, cr_exp(cr_mul(k, cr_mul(x, x) + cr_mul(y, y))));
        }
    }
}

/* Scratch layout for broadening (all n*n unless noted). */
typedef struct broaden_scratch {
    cr_real *orig;  /* the profile, kept to evaluate winning Gaussians exactly */
    cr_real *f;     /* -log(h) / c: parabola offsets of the samples */
    cr_real *g;     /* row-pass distances */
    uint32_t *ax;   /* row-pass winning column, CR_DENT_NONE if the row is empty */
    cr_real *line_f, *line_d, *z; /* n, n, n+1 */
    uint32_t *line_q, *line_arg, *v; /* n each */
} broaden_scratch;

static uint32_t align8(uint32_t x) { return (x + 7u) & ~7u; }

uint32_t cri_dent_broaden_scratch_bytes(uint32_t n) {
    uint32_t nn = n * n;
    return align8(nn * (uint32_t)sizeof(cr_real)) * 3 + align8(nn * 4u) + align8(n * (uint32_t)sizeof(cr_real)) * 2 +
           align8((n + 1) * (uint32_t)sizeof(cr_real)) + align8(n * 4u) * 3;
}

static broaden_scratch carve(void *mem, uint32_t n) {
    broaden_scratch s;
    uint8_t *p = (uint8_t *)mem;
    uint32_t nn = n * n;
    s.orig = (cr_real *)p, p += align8(nn * (uint32_t)sizeof(cr_real));
    s.f = (cr_real *)p, p += align8(nn * (uint32_t)sizeof(cr_real));
    s.g = (cr_real *)p, p += align8(nn * (uint32_t)sizeof(cr_real));
    s.ax = (uint32_t *)p, p += align8(nn * 4u);
    s.line_f = (cr_real *)p, p += align8(n * (uint32_t)sizeof(cr_real));
    s.line_d = (cr_real *)p, p += align8(n * (uint32_t)sizeof(cr_real));
    s.z = (cr_real *)p, p += align8((n + 1) * (uint32_t)sizeof(cr_real));
    s.line_q = (uint32_t *)p, p += align8(n * 4u);
    s.line_arg = (uint32_t *)p, p += align8(n * 4u);
    s.v = (uint32_t *)p;
    return s;
}

/* Felzenszwalb–Huttenlocher lower envelope of parabolas (p - q)^2 + f[q] over
 * the `m` finite samples q = qs[0..m) (ascending), evaluated at p = 0..n-1.
 * Writes d[p] and arg[p]; with m == 0 every arg is CR_DENT_NONE. */
static void envelope_1d(uint32_t n, uint32_t m, const uint32_t *qs, const cr_real *f, cr_real *d, uint32_t *arg,
                        uint32_t *v, cr_real *z) {
    if (m == 0) {
        for (uint32_t p = 0; p < n; ++p) arg[p] = CR_DENT_NONE, d[p] = CR_REAL_MAX;
        return;
    }
    uint32_t k = 0;
    v[0] = qs[0];
    z[0] = -CR_REAL_MAX;
    z[1] = CR_REAL_MAX;
    for (uint32_t t = 1; t < m; ++t) {
        uint32_t q = qs[t];
        cr_real fq = f[q] + cr_from_int((int32_t)(q * q));
        cr_real s;
        for (;;) {
            uint32_t r = v[k];
            s = cr_div(fq - (f[r] + cr_from_int((int32_t)(r * r))), cr_from_int(2 * ((int32_t)q - (int32_t)r)));
            if (s > z[k] || k == 0) break;
            --k;
        }
        if (s <= z[k]) { /* k == 0 and q dominates everywhere left of it too */
            v[0] = q;
            z[1] = CR_REAL_MAX;
            continue;
        }
        ++k;
        v[k] = q;
        z[k] = s;
        z[k + 1] = CR_REAL_MAX;
    }
    k = 0;
    for (uint32_t p = 0; p < n; ++p) {
        cr_real pr = cr_from_int((int32_t)p);
        while (z[k + 1] < pr) ++k;
        int32_t dq = (int32_t)p - (int32_t)v[k];
        d[p] = cr_from_int(dq * dq) + f[v[k]];
        arg[p] = v[k];
    }
}

void cri_dent_broaden(cr_dent_grid *g, cr_real sigma, void *scratch) {
    uint32_t n = g->n;
    broaden_scratch s = carve(scratch, n);
    /* c in grid units: exp(-c d^2) with d in cells */
    cr_real c = cr_div(cr_mul(g->cell, g->cell), cr_mul(CR_R(2), cr_mul(sigma, sigma)));
    cr_real inv_c = cr_div(CR_R(1), c);
    memcpy(s.orig, g->h, (size_t)n * n * sizeof(cr_real));
    for (uint32_t i = 0; i < n * n; ++i) s.f[i] = s.orig[i] > 0 ? -cr_mul(cr_log(s.orig[i]), inv_c) : 0;

    /* rows: nearest sample along x for every cell */
    for (uint32_t y = 0; y < n; ++y) {
        uint32_t m = 0;
        for (uint32_t x = 0; x < n; ++x)
            if (s.orig[y * n + x] > 0) s.line_q[m++] = x; /* zero heights never win: skipped */
        envelope_1d(n, m, s.line_q, s.f + y * n, s.g + y * n, s.ax + y * n, s.v, s.z);
    }
    /* columns: combine rows; the winner of cell (x, y) is (ax[sy][x], sy) */
    for (uint32_t x = 0; x < n; ++x) {
        uint32_t m = 0;
        for (uint32_t y = 0; y < n; ++y) {
            s.line_f[y] = s.g[y * n + x];
            if (s.ax[y * n + x] != CR_DENT_NONE) s.line_q[m++] = y;
        }
        envelope_1d(n, m, s.line_q, s.line_f, s.line_d, s.line_arg, s.v, s.z);
        for (uint32_t y = 0; y < n; ++y) {
            uint32_t sy = s.line_arg[y];
            if (sy == CR_DENT_NONE) {
                g->h[y * n + x] = 0;
                continue;
            }
            uint32_t sx = s.ax[sy * n + x];
            int32_t dx = (int32_t)x - (int32_t)sx, dy = (int32_t)y - (int32_t)sy;
            cr_real e = cr_exp(-cr_mul(c, cr_from_int(dx * dx + dy * dy)));
            g->h[y * n + x] = cr_mul(s.orig[sy * n + sx], e);
        }
    }
}

void cri_dent_broaden_brute(const cr_dent_grid *in, cr_real sigma, cr_real *out) {
    uint32_t n = in->n;
    cr_real c = cr_div(cr_mul(in->cell, in->cell), cr_mul(CR_R(2), cr_mul(sigma, sigma)));
    for (uint32_t y = 0; y < n; ++y)
        for (uint32_t x = 0; x < n; ++x) {
            cr_real best = 0;
            for (uint32_t sy = 0; sy < n; ++sy)
                for (uint32_t sx = 0; sx < n; ++sx) {
                    cr_real h = in->h[sy * n + sx];
                    if (h <= 0) continue;
                    int32_t dx = (int32_t)x - (int32_t)sx, dy = (int32_t)y - (int32_t)sy;
                    cr_real v = cr_mul(h, cr_exp(-cr_mul(c, cr_from_int(dx * dx + dy * dy))));
                    if (v > best) best = v;
                }
            out[y * n + x] = best;
        }
}

/* One explicit heat step from src into dst, zero outside the grid; with
 * only_raise, a cell keeps its value when the step would lower it. */
static void heat_step(uint32_t n, const cr_real *src, cr_real *dst, bool only_raise) {
    for (uint32_t y = 0; y < n; ++y)
        for (uint32_t x = 0; x < n; ++x) {
            uint32_t i = y * n + x;
            cr_real c = src[i];
            cr_real sum = (x > 0 ? src[i - 1] : 0) + (x + 1 < n ? src[i + 1] : 0) + (y > 0 ? src[i - n] : 0) +
                          (y + 1 < n ? src[i + n] : 0);
            cr_real next = c + cr_mul(CR_DENT_HEAT_RATE, sum - 4 * c);
            dst[i] = (only_raise && next < c) ? c : next;
        }
}

cr_real cri_dent_peak(const cr_dent_grid *g) {
    cr_real peak = 0;
    for (uint32_t i = 0; i < g->n * g->n; ++i)
        if (g->h[i] > peak) peak = g->h[i];
    return peak;
}

void cri_dent_smooth_pass(cr_dent_grid *g, bool modified, cr_real *tmp) {
    heat_step(g->n, g->h, tmp, modified);
    memcpy(g->h, tmp, (size_t)g->n * g->n * sizeof(cr_real));
}

void cri_dent_rescale(cr_dent_grid *g, cr_real dent_distance) {
    cr_real peak = cri_dent_peak(g);
    if (peak <= 0) return;
    cr_real s = cr_div(dent_distance, peak);
    for (uint32_t i = 0; i < g->n * g->n; ++i) g->h[i] = cr_mul(g->h[i], s);
}

void cri_dent_smooth(cr_dent_grid *g, uint32_t heat, uint32_t modified, cr_real dent_distance, cr_real *tmp) {
    for (uint32_t k = 0; k < heat; ++k) cri_dent_smooth_pass(g, false, tmp);
    cri_dent_rescale(g, dent_distance);
    for (uint32_t k = 0; k < modified; ++k) cri_dent_smooth_pass(g, true, tmp);
}

cr_real cri_dent_sample(const cr_dent_grid *g, cr_real x, cr_real y) {
    cr_real hs = half_span(g), inv = cr_div(CR_R(1), g->cell);
    cr_real u = cr_mul(x, inv) + hs, v = cr_mul(y, inv) + hs;
    int32_t i = cr_floor_int(u), j = cr_floor_int(v), n = (int32_t)g->n;
    if (i < -1 || j < -1 || i >= n || j >= n) return 0;
    cr_real fu = u - cr_from_int(i), fv = v - cr_from_int(j);
#define CR_DENT_AT_(ii, jj) (((ii) >= 0 && (jj) >= 0 && (ii) < n && (jj) < n) ? g->h[(jj) * n + (ii)] : 0)
    cr_real h00 = CR_DENT_AT_(i, j), h10 = CR_DENT_AT_(i + 1, j), h01 = CR_DENT_AT_(i, j + 1), h11 = CR_DENT_AT_(i + 1, j + 1);
#undef CR_DENT_AT_
    cr_real a = h00 + cr_mul(fu, h10 - h00), b = h01 + cr_mul(fu, h11 - h01);
    return a + cr_mul(fv, b - a);
}

cr_real cri_dent_logistic2(cr_real x) {
    if (x > CR_R(21)) return 0; /* below 2e-9, and past e^21.4 Q32.32 saturates: 1 + e^x would overflow */
    return cr_div(CR_R(2), CR_R(1) + cr_exp(x));
}

cr_real cri_dent_attenuation(cr_real z, cr_real dent_distance, cr_real steepness) {
    if (z <= 0) return CR_R(1);
    if (dent_distance <= 0) return 0;
    cr_real r = cr_div(z, dent_distance);
    cr_real a = cri_dent_logistic2(cr_mul(steepness, r));
    cr_real floor_line = CR_R(1) - r; /* the steepest falloff that cannot invert a thin wall */
    return a < floor_line ? floor_line : a;
}
