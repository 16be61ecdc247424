/* cook_remesh.c — make a soft body's edge lengths roughly uniform before it is
 * cooked (`crumple cook --soft`, docs/mass-spring.md).
 *
 * Seed 004 gives every vertex an equal mass and every edge the same spring
 * law, and warns that this is only right when "the distances between the
 * vertices are equal". A UV sphere's poles or a CAD mesh's long thin
 * triangles break that: short edges are stiff springs on light particles
 * (the integrator's stable range is set by the worst particle) and long ones
 * let other bodies through. So when the mesh's edge-length spread (longest
 * over shortest edge) is above a ratio (`--soft-spread`, default 2), the
 * cooker remeshes it towards one target length L (the mean edge, or
 * `--soft-edge`):
 *
 *   split     every edge longer than 4/3 L at its midpoint (longest first);
 *   collapse  every edge shorter than 4/5 L to its midpoint (shortest first),
 *             unless that would make an edge longer than 4/3 L, fold a
 *             triangle over (its normal turning by more than ~78 degrees),
 *             break the surface's topology (the link condition: the two ends
 *             share exactly the edge's opposite vertices), or move a
 *             boundary; the mesh keeps at least 4 vertices;
 *
 * in rounds until a round changes nothing (at most 32). These are the two
 * length operations of isotropic remeshing (Botsch and Kobbelt 2004), whose
 * thresholds keep a split's halves (>= 2/3 L) from being collapsed again and
 * a collapse's new edges from being split again, so the rounds end. With
 * both satisfied the spread is at most (4/3) / (4/5) = 5/3. Edges a collapse
 * may not touch (boundary, link condition) can stay short; the report says
 * the spread before and after. Each round also flips edges towards valence
 * 6 and relaxes vertices in their tangent planes, then puts every interior
 * vertex back on its nearest point of the input surface, so the shape is
 * the input polyhedron's (no smoother surface is invented).
 *
 * A result whose spread is worse than the input's (a hostile mesh whose
 * protected edges make splits and collapses undo each other) is dropped and
 * the input kept. Splitting stops at 8 times the input's vertices plus 256
 * (a few huge triangles among small ones would otherwise split into
 * millions).
 *
 * Determinism: every pass sorts its candidates by (length, lower index,
 * higher index), a total order, and works on a triangle at most once per
 * pass (a touched triangle's edges wait for the next pass).
 */
#include "cook_soft.h"
#include "crumple/asset.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct edge {
    uint32_t a, b;    /* a < b */
    uint32_t t0, t1;  /* triangles on each side, UINT32_MAX when none */
    double len;
} edge;

typedef struct mesh_w {
    double *pos;
    uint32_t *tri;
    uint32_t nv, nt, cap_v, cap_t;
} mesh_w;

static double dist(const double *pos, uint32_t a, uint32_t b) {
    const double *p = pos + 3 * (size_t)a, *q = pos + 3 * (size_t)b;
    double d[3] = {p[0] - q[0], p[1] - q[1], p[2] - q[2]};
    return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

static int cmp_edge_key(const void *x, const void *y) {
    const uint64_t *a = x, *b = y;
    if (a[0] != b[0]) return a[0] < b[0] ? -1 : 1;
    return (a[1] > b[1]) - (a[1] < b[1]);
}

/* All edges with their (up to two) triangles: (key, triangle) pairs sorted by key. */
static edge *edges_of(const mesh_w *m, uint32_t *count) {
    uint64_t *k = malloc(sizeof(uint64_t) * 2 * 3 * (size_t)m->nt + 2);
    size_t n = 0;
    for (uint32_t t = 0; t < m->nt; ++t)
        for (int c = 0; c < 3; ++c) {
            uint32_t u = m->tri[3 * (size_t)t + c], v = m->tri[3 * (size_t)t + (c + 1) % 3];
            if (u == UINT32_MAX) break; /* removed triangle */
            uint32_t lo = u < v ? u : v, hi = u < v ? v : u;
            k[2 * n] = ((uint64_t)lo << 32) | hi, k[2 * n + 1] = t, ++n;
        }
    qsort(k, n, 2 * sizeof(uint64_t), cmp_edge_key);
    edge *e = malloc(sizeof(edge) * (n + 1));
    uint32_t ne = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && k[2 * j] == k[2 * i]) ++j;
        edge x = {(uint32_t)(k[2 * i] >> 32), (uint32_t)k[2 * i], (uint32_t)k[2 * i + 1],
                  j - i >= 2 ? (uint32_t)k[2 * i + 3] : UINT32_MAX, 0};
        /* a non-manifold edge (3+ triangles) is never split or collapsed: mark both sides unknown */
        if (j - i > 2) x.t0 = x.t1 = UINT32_MAX;
        x.len = dist(m->pos, x.a, x.b);
        e[ne++] = x;
        i = j;
    }
    free(k);
    *count = ne;
    return e;
}

static int cmp_len_asc(const void *x, const void *y) {
    const edge *a = x, *b = y;
    if (a->len != b->len) return a->len < b->len ? -1 : 1;
    if (a->a != b->a) return a->a < b->a ? -1 : 1;
    return (a->b > b->b) - (a->b < b->b);
}

static int cmp_len_desc(const void *x, const void *y) { return cmp_len_asc(y, x); }

static void grow(mesh_w *m, uint32_t nv, uint32_t nt) {
    if (nv > m->cap_v) {
        m->cap_v = nv * 2;
        m->pos = realloc(m->pos, sizeof(double) * 3 * m->cap_v);
    }
    if (nt > m->cap_t) {
        m->cap_t = nt * 2;
        m->tri = realloc(m->tri, sizeof(uint32_t) * 3 * m->cap_t);
    }
}

static uint32_t opposite_corner(const uint32_t *t, uint32_t a, uint32_t b) {
    for (int c = 0; c < 3; ++c)
        if (t[c] != a && t[c] != b) return t[c];
    return UINT32_MAX;
}

/* Replace triangle t's edge (a, b) by (a, m) keeping its orientation, and add (m, b, o). */
static void split_triangle(mesh_w *m, uint32_t t, uint32_t a, uint32_t b, uint32_t mid) {
    uint32_t *x = m->tri + 3 * (size_t)t;
    int ca = 0;
    while (x[ca] != a) ++ca;
    /* orientation: the corner after a is b or the opposite vertex */
    uint32_t o = opposite_corner(x, a, b);
    uint32_t nt = m->nt++;
    uint32_t *y = m->tri + 3 * (size_t)nt;
    if (x[(ca + 1) % 3] == b) {        /* (a, b, o) -> (a, mid, o) + (mid, b, o) */
        x[0] = a, x[1] = mid, x[2] = o;
        y[0] = mid, y[1] = b, y[2] = o;
    } else {                           /* (a, o, b) -> (a, o, mid) + (mid, o, b) */
        x[0] = a, x[1] = o, x[2] = mid;
        y[0] = mid, y[1] = o, y[2] = b;
    }
}

static uint32_t split_pass(mesh_w *m, double hi, uint32_t cap) {
    uint32_t ne, done = 0;
    edge *e = edges_of(m, &ne);
    qsort(e, ne, sizeof *e, cmp_len_desc);
    uint8_t *touched = calloc(m->nt + 1, 1);
    for (uint32_t i = 0; i < ne && e[i].len > hi && m->nv < cap; ++i) {
        const edge *x = &e[i];
        if (x->t0 == UINT32_MAX || touched[x->t0] || (x->t1 != UINT32_MAX && touched[x->t1])) continue;
        grow(m, m->nv + 1, m->nt + 2);
        uint32_t mid = m->nv++;
        for (int c = 0; c < 3; ++c)
            m->pos[3 * (size_t)mid + c] = 0.5 * (m->pos[3 * (size_t)x->a + c] + m->pos[3 * (size_t)x->b + c]);
        touched[x->t0] = 1;
        split_triangle(m, x->t0, x->a, x->b, mid);
        if (x->t1 != UINT32_MAX) touched[x->t1] = 1, split_triangle(m, x->t1, x->a, x->b, mid);
        ++done;
    }
    free(touched);
    free(e);
    return done;
}

static void tri_normal(const double *pos, const uint32_t *t, const double *override_p, uint32_t override_v, double n[3]) {
    const double *p[3];
    for (int c = 0; c < 3; ++c) p[c] = t[c] == override_v ? override_p : pos + 3 * (size_t)t[c];
    double e1[3] = {p[1][0] - p[0][0], p[1][1] - p[0][1], p[1][2] - p[0][2]};
    double e2[3] = {p[2][0] - p[0][0], p[2][1] - p[0][1], p[2][2] - p[0][2]};
    n[0] = e1[1] * e2[2] - e1[2] * e2[1], n[1] = e1[2] * e2[0] - e1[0] * e2[2], n[2] = e1[0] * e2[1] - e1[1] * e2[0];
}

/* CSR of the triangles around each vertex. */
static void vertex_triangles(const mesh_w *m, uint32_t **start, uint32_t **list) {
    uint32_t *s = calloc(m->nv + 1, sizeof(uint32_t));
    for (uint32_t t = 0; t < m->nt; ++t)
        if (m->tri[3 * (size_t)t] != UINT32_MAX)
            for (int c = 0; c < 3; ++c) s[m->tri[3 * (size_t)t + c] + 1]++;
    for (uint32_t v = 0; v < m->nv; ++v) s[v + 1] += s[v];
    uint32_t *l = malloc(sizeof(uint32_t) * (s[m->nv] + 1)), *fill = malloc(sizeof(uint32_t) * (m->nv + 1));
    memcpy(fill, s, sizeof(uint32_t) * m->nv);
    for (uint32_t t = 0; t < m->nt; ++t)
        if (m->tri[3 * (size_t)t] != UINT32_MAX)
            for (int c = 0; c < 3; ++c) l[fill[m->tri[3 * (size_t)t + c]]++] = t;
    free(fill);
    *start = s, *list = l;
}

static bool has_vertex(const uint32_t *t, uint32_t v) { return t[0] == v || t[1] == v || t[2] == v; }

static uint32_t collapse_pass(mesh_w *m, double lo, double hi, uint32_t *live_vertices) {
    uint32_t ne, done = 0;
    edge *e = edges_of(m, &ne);
    qsort(e, ne, sizeof *e, cmp_len_asc);
    uint32_t *vs, *vl;
    vertex_triangles(m, &vs, &vl);
    /* boundary vertices stay where they are (the outline is the shape) */
    uint8_t *fixed = calloc(m->nv + 1, 1), *touched = calloc(m->nt + 1, 1);
    for (uint32_t i = 0; i < ne; ++i)
        if (e[i].t0 == UINT32_MAX || e[i].t1 == UINT32_MAX) fixed[e[i].a] = fixed[e[i].b] = 1;
    for (uint32_t i = 0; i < ne && e[i].len < lo; ++i) {
        const edge *x = &e[i];
        if (*live_vertices <= 4 || fixed[x->a] || fixed[x->b]) continue;
        uint32_t a = x->a, b = x->b;
        bool ok = true;
        for (uint32_t k = vs[a]; k < vs[a + 1] && ok; ++k) ok = !touched[vl[k]];
        for (uint32_t k = vs[b]; k < vs[b + 1] && ok; ++k) ok = !touched[vl[k]];
        if (!ok) continue;
        /* link condition: common neighbours of a and b are exactly the two opposite vertices */
        uint32_t o0 = opposite_corner(m->tri + 3 * (size_t)x->t0, a, b), o1 = opposite_corner(m->tri + 3 * (size_t)x->t1, a, b);
        uint32_t common = 0;
        for (uint32_t k = vs[a]; k < vs[a + 1]; ++k) {
            const uint32_t *t = m->tri + 3 * (size_t)vl[k];
            for (int c = 0; c < 3; ++c) {
                uint32_t w = t[c];
                if (w == a || w == b) continue;
                bool near_b = false;
                for (uint32_t q = vs[b]; q < vs[b + 1] && !near_b; ++q) near_b = has_vertex(m->tri + 3 * (size_t)vl[q], w);
                if (near_b && w != o0 && w != o1) ok = false;
                if (near_b) ++common;
            }
        }
        (void)common;
        if (!ok || o0 == o1) continue;
        double mid[3];
        for (int c = 0; c < 3; ++c) mid[c] = 0.5 * (m->pos[3 * (size_t)a + c] + m->pos[3 * (size_t)b + c]);
        /* no new edge past hi, no triangle folded over or made degenerate */
        for (int side = 0; side < 2 && ok; ++side) {
            uint32_t v = side ? b : a;
            for (uint32_t k = vs[v]; k < vs[v + 1] && ok; ++k) {
                uint32_t t = vl[k];
                if (t == x->t0 || t == x->t1) continue;
                const uint32_t *tt = m->tri + 3 * (size_t)t;
                for (int c = 0; c < 3 && ok; ++c) {
                    if (tt[c] == v) continue;
                    const double *q = m->pos + 3 * (size_t)tt[c];
                    double d[3] = {q[0] - mid[0], q[1] - mid[1], q[2] - mid[2]};
                    if (sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) > hi) ok = false;
                }
                double n0[3], n1[3];
                tri_normal(m->pos, tt, NULL, UINT32_MAX, n0);
                tri_normal(m->pos, tt, mid, v, n1);
                double dot = n0[0] * n1[0] + n0[1] * n1[1] + n0[2] * n1[2];
                double l0 = sqrt(n0[0] * n0[0] + n0[1] * n0[1] + n0[2] * n0[2]);
                double l1 = sqrt(n1[0] * n1[0] + n1[1] * n1[1] + n1[2] * n1[2]);
                if (!(l1 > 1e-3 * l0) || dot < 0.2 * l0 * l1) ok = false;
            }
        }
        if (!ok) continue;
        /* b goes into a at the midpoint; the edge's two triangles go */
        memcpy(m->pos + 3 * (size_t)a, mid, sizeof mid);
        for (uint32_t k = vs[a]; k < vs[a + 1]; ++k) touched[vl[k]] = 1;
        for (uint32_t k = vs[b]; k < vs[b + 1]; ++k) {
            uint32_t *tt = m->tri + 3 * (size_t)vl[k];
            touched[vl[k]] = 1;
            for (int c = 0; c < 3; ++c)
                if (tt[c] == b) tt[c] = a;
        }
        for (int s = 0; s < 2; ++s) {
            uint32_t *tt = m->tri + 3 * (size_t)(s ? x->t1 : x->t0);
            tt[0] = tt[1] = tt[2] = UINT32_MAX;
        }
        fixed[b] = 1; /* gone: never an end again this pass */
        --*live_vertices;
        ++done;
    }
    free(fixed);
    free(touched);
    free(vs);
    free(vl);
    free(e);
    /* close up the removed triangles, in order */
    uint32_t w = 0;
    for (uint32_t t = 0; t < m->nt; ++t)
        if (m->tri[3 * (size_t)t] != UINT32_MAX) memmove(m->tri + 3 * (size_t)w++, m->tri + 3 * (size_t)t, 3 * sizeof(uint32_t));
    m->nt = w;
    return done;
}

/* Flip interior edges whose flip brings the four vertices' valences nearer 6
 * (a regular triangulation's), unless it folds a triangle or the opposite
 * vertices are joined already. Even lengths need even valences: a vertex of
 * valence 4 or 9 pulls its edges short or long. */
static uint32_t flip_pass(mesh_w *m, double hi) {
    uint32_t ne, done = 0;
    edge *e = edges_of(m, &ne);
    int32_t *val = calloc(m->nv + 1, sizeof(int32_t));
    uint8_t *bnd = calloc(m->nv + 1, 1), *touched = calloc(m->nt + 1, 1);
    for (uint32_t i = 0; i < ne; ++i) {
        val[e[i].a]++, val[e[i].b]++;
        if (e[i].t1 == UINT32_MAX) bnd[e[i].a] = bnd[e[i].b] = 1;
    }
    for (uint32_t i = 0; i < ne; ++i) {
        const edge *x = &e[i];
        if (x->t0 == UINT32_MAX || x->t1 == UINT32_MAX || touched[x->t0] || touched[x->t1]) continue;
        uint32_t a = x->a, b = x->b;
        uint32_t *t0 = m->tri + 3 * (size_t)x->t0, *t1 = m->tri + 3 * (size_t)x->t1;
        uint32_t c = opposite_corner(t0, a, b), d = opposite_corner(t1, a, b);
        if (c == d || bnd[a] || bnd[b] || bnd[c] || bnd[d]) continue;
        uint32_t lo = c < d ? c : d, up = c < d ? d : c;
        uint32_t l = 0, r = ne; /* e is in (a, b) order: binary search for the edge (lo, up) */
        while (l < r) {
            uint32_t mid = l + (r - l) / 2;
            if (e[mid].a < lo || (e[mid].a == lo && e[mid].b < up)) l = mid + 1;
            else r = mid;
        }
        if (l < ne && e[l].a == lo && e[l].b == up) continue;
        int32_t before = abs(val[a] - 6) + abs(val[b] - 6) + abs(val[c] - 6) + abs(val[d] - 6);
        int32_t after = abs(val[a] - 7) + abs(val[b] - 7) + abs(val[c] - 5) + abs(val[d] - 5);
        if (after >= before || val[a] <= 3 || val[b] <= 3 || dist(m->pos, c, d) > hi) continue;
        /* the new triangles keep t0's winding: (a, b, c) becomes (a, d, c) and (d, b, c) */
        int ca = 0;
        while (t0[ca] != a) ++ca;
        bool ab = t0[(ca + 1) % 3] == b; /* t0 is (a, b, c), else (b, a, c) */
        uint32_t n0[3], n1[3];
        if (ab) n0[0] = a, n0[1] = d, n0[2] = c, n1[0] = d, n1[1] = b, n1[2] = c;
        else n0[0] = b, n0[1] = d, n0[2] = c, n1[0] = d, n1[1] = a, n1[2] = c;
        double f0[3], f1[3], g0[3], g1[3];
        tri_normal(m->pos, t0, NULL, UINT32_MAX, f0);
        tri_normal(m->pos, t1, NULL, UINT32_MAX, f1);
        tri_normal(m->pos, n0, NULL, UINT32_MAX, g0);
        tri_normal(m->pos, n1, NULL, UINT32_MAX, g1);
        double s[3] = {f0[0] + f1[0], f0[1] + f1[1], f0[2] + f1[2]};
        double d0 = g0[0] * s[0] + g0[1] * s[1] + g0[2] * s[2], d1 = g1[0] * s[0] + g1[1] * s[1] + g1[2] * s[2];
        double l0 = sqrt(g0[0] * g0[0] + g0[1] * g0[1] + g0[2] * g0[2]), l1 = sqrt(g1[0] * g1[0] + g1[1] * g1[1] + g1[2] * g1[2]);
        double ls = sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
        if (d0 < 0.5 * l0 * ls || d1 < 0.5 * l1 * ls) continue; /* the quad is not flat enough: a flip would fold it */
        memcpy(t0, n0, sizeof n0);
        memcpy(t1, n1, sizeof n1);
        touched[x->t0] = touched[x->t1] = 1;
        val[a]--, val[b]--, val[c]++, val[d]++;
        ++done;
    }
    free(val), free(bnd), free(touched), free(e);
    return done;
}

/* Tangential relaxation: every interior vertex moves half way to its
 * neighbours' centroid within its tangent plane (area-weighted normal), all
 * from the old positions. Evens the lengths without shrinking the shape. */
static void smooth_pass(mesh_w *m) {
    uint32_t ne;
    edge *e = edges_of(m, &ne);
    double *c = calloc(3 * (size_t)m->nv + 3, sizeof(double)), *nrm = calloc(3 * (size_t)m->nv + 3, sizeof(double));
    uint32_t *cnt = calloc(m->nv + 1, sizeof(uint32_t));
    uint8_t *bnd = calloc(m->nv + 1, 1);
    for (uint32_t i = 0; i < ne; ++i) {
        if (e[i].t0 == UINT32_MAX || e[i].t1 == UINT32_MAX) bnd[e[i].a] = bnd[e[i].b] = 1;
        for (int k = 0; k < 3; ++k) {
            c[3 * (size_t)e[i].a + k] += m->pos[3 * (size_t)e[i].b + k];
            c[3 * (size_t)e[i].b + k] += m->pos[3 * (size_t)e[i].a + k];
        }
        cnt[e[i].a]++, cnt[e[i].b]++;
    }
    for (uint32_t t = 0; t < m->nt; ++t) {
        double f[3];
        tri_normal(m->pos, m->tri + 3 * (size_t)t, NULL, UINT32_MAX, f);
        for (int k = 0; k < 3; ++k)
            for (int q = 0; q < 3; ++q) nrm[3 * (size_t)m->tri[3 * (size_t)t + k] + q] += f[q];
    }
    for (uint32_t v = 0; v < m->nv; ++v) {
        if (bnd[v] || cnt[v] == 0) continue;
        double *n = nrm + 3 * (size_t)v, l = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        if (!(l > 0)) continue;
        double d[3];
        for (int k = 0; k < 3; ++k) d[k] = c[3 * (size_t)v + k] / cnt[v] - m->pos[3 * (size_t)v + k];
        double dn = (d[0] * n[0] + d[1] * n[1] + d[2] * n[2]) / (l * l);
        for (int k = 0; k < 3; ++k) c[3 * (size_t)v + k] = m->pos[3 * (size_t)v + k] + 0.5 * (d[k] - dn * n[k]);
    }
    for (uint32_t v = 0; v < m->nv; ++v)
        if (!bnd[v] && cnt[v] != 0 && cnt[v] <= m->nv) {
            double *n = nrm + 3 * (size_t)v;
            if (n[0] * n[0] + n[1] * n[1] + n[2] * n[2] > 0) memcpy(m->pos + 3 * (size_t)v, c + 3 * (size_t)v, 3 * sizeof(double));
        }
    free(c), free(nrm), free(cnt), free(bnd), free(e);
}

/* The point of segment a..b nearest p. */
static void nearest_on_segment(const double p[3], const double *a, const double *b, double out[3]) {
    double ab[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, ap[3] = {p[0] - a[0], p[1] - a[1], p[2] - a[2]};
    double l2 = ab[0] * ab[0] + ab[1] * ab[1] + ab[2] * ab[2];
    double t = l2 > 0 ? (ap[0] * ab[0] + ap[1] * ab[1] + ap[2] * ab[2]) / l2 : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    for (int k = 0; k < 3; ++k) out[k] = a[k] + t * ab[k];
}

static double dist2(const double *x, const double *y) {
    double d[3] = {x[0] - y[0], x[1] - y[1], x[2] - y[2]};
    return d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
}

/* The point of triangle (a, b, c) nearest p: the foot of the perpendicular
 * when its barycentric coordinates are all non-negative, else the nearest
 * point of the three edges. */
static void nearest_on_triangle(const double p[3], const double *a, const double *b, const double *c, double out[3]) {
    double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    double ap[3] = {p[0] - a[0], p[1] - a[1], p[2] - a[2]};
    double d11 = e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2], d22 = e2[0] * e2[0] + e2[1] * e2[1] + e2[2] * e2[2];
    double d12 = e1[0] * e2[0] + e1[1] * e2[1] + e1[2] * e2[2];
    double p1 = ap[0] * e1[0] + ap[1] * e1[1] + ap[2] * e1[2], p2 = ap[0] * e2[0] + ap[1] * e2[1] + ap[2] * e2[2];
    double det = d11 * d22 - d12 * d12;
    if (det > 1e-300) {
        double u = (p1 * d22 - p2 * d12) / det, v = (p2 * d11 - p1 * d12) / det;
        if (u >= 0 && v >= 0 && u + v <= 1) {
            for (int k = 0; k < 3; ++k) out[k] = a[k] + u * e1[k] + v * e2[k];
            return;
        }
    }
    double q[3][3];
    nearest_on_segment(p, a, b, q[0]);
    nearest_on_segment(p, b, c, q[1]);
    nearest_on_segment(p, c, a, q[2]);
    int best = 0;
    for (int k = 1; k < 3; ++k)
        if (dist2(p, q[k]) < dist2(p, q[best])) best = k;
    memcpy(out, q[best], sizeof q[best]);
}

/* Every interior vertex back onto the input surface (its nearest point):
 * splits and smoothing move vertices along chords and tangent planes, inside
 * a curved surface, and a coarse sphere lost 4 % of its volume that way. */
static void project_pass(mesh_w *m, const cr_bvh *bvh, const double *pos0, const uint32_t *tri0) {
    uint32_t ne;
    edge *e = edges_of(m, &ne);
    uint8_t *bnd = calloc(m->nv + 1, 1);
    for (uint32_t i = 0; i < ne; ++i)
        if (e[i].t0 == UINT32_MAX || e[i].t1 == UINT32_MAX) bnd[e[i].a] = bnd[e[i].b] = 1;
    for (uint32_t v = 0; v < m->nv; ++v) {
        if (bnd[v]) continue;
        double *x = m->pos + 3 * (size_t)v, y[3];
        uint32_t t = UINT32_MAX;
        cr_bvh_distance(bvh, x, &t);
        if (t == UINT32_MAX) continue;
        const uint32_t *tr = tri0 + 3 * (size_t)t;
        nearest_on_triangle(x, pos0 + 3 * (size_t)tr[0], pos0 + 3 * (size_t)tr[1], pos0 + 3 * (size_t)tr[2], y);
        memcpy(x, y, sizeof y);
    }
    free(bnd);
    free(e);
}

double cr_cook_edge_spread(const double *pos, const uint32_t *tri, uint32_t triangle_count, double *mean) {
    double lo = INFINITY, hi = 0, sum = 0;
    uint64_t n = 0;
    for (uint32_t t = 0; t < triangle_count; ++t)
        for (int c = 0; c < 3; ++c) {
            double l = dist(pos, tri[3 * (size_t)t + c], tri[3 * (size_t)t + (c + 1) % 3]);
            lo = l < lo ? l : lo, hi = l > hi ? l : hi, sum += l, ++n;
        }
    if (mean) *mean = n ? sum / (double)n : 0;
    return n && lo > 0 ? hi / lo : INFINITY;
}

int cr_cook_remesh(cr_cook_mesh *mesh, double target, cr_cook_remesh_report *rep) {
    memset(rep, 0, sizeof *rep);
    double mean;
    rep->spread_before = cr_cook_edge_spread(mesh->pos, mesh->tri, mesh->triangle_count, &mean);
    rep->target = target > 0 ? target : mean;
    /* the input surface, to project moved vertices back onto */
    double *pos0 = malloc(sizeof(double) * 3 * (size_t)mesh->vertex_count);
    uint32_t *tri0 = malloc(sizeof(uint32_t) * 3 * (size_t)mesh->triangle_count);
    memcpy(pos0, mesh->pos, sizeof(double) * 3 * (size_t)mesh->vertex_count);
    memcpy(tri0, mesh->tri, sizeof(uint32_t) * 3 * (size_t)mesh->triangle_count);
    cr_bvh *bvh = cr_bvh_build(pos0, tri0, mesh->triangle_count);
    mesh_w m = {mesh->pos, mesh->tri, mesh->vertex_count, mesh->triangle_count, mesh->vertex_count, mesh->triangle_count};
    uint32_t live = mesh->vertex_count;
    /* a mesh of a few huge triangles among small ones (the mean edge far
     * below the longest) would split into millions: at most 8 times the
     * vertices plus 256, and the report's spread says how far it got */
    uint32_t cap = mesh->vertex_count > (CR_ASSET_MAX_VERTICES - 256u) / 8u ? CR_ASSET_MAX_VERTICES
                                                                             : 8u * mesh->vertex_count + 256u;
    double lo = 0.8 * rep->target, hi = 4.0 / 3.0 * rep->target;
    for (uint32_t round = 0; round < 32; ++round) {
        uint32_t s = 0, c = 0, k;
        for (int pass = 0; pass < 64 && (k = split_pass(&m, hi, cap)) > 0; ++pass) s += k;
        live += s;
        while ((k = collapse_pass(&m, lo, hi, &live)) > 0) c += k;
        for (int pass = 0; pass < 8 && (k = flip_pass(&m, hi)) > 0; ++pass) rep->flips += k;
        smooth_pass(&m);
        if (bvh) project_pass(&m, bvh, pos0, tri0);
        rep->splits += s, rep->collapses += c;
        rep->rounds = round + 1;
        if (s == 0 && c == 0 && round >= 3) break;
    }
    /* smoothing moved vertices last: one more split and collapse round puts the edges it stretched back in range */
    {
        uint32_t k;
        for (int pass = 0; pass < 64 && (k = split_pass(&m, hi, cap)) > 0; ++pass) rep->splits += k, live += k;
        while ((k = collapse_pass(&m, lo, hi, &live)) > 0) rep->collapses += k;
        if (bvh) project_pass(&m, bvh, pos0, tri0);
    }
    cr_bvh_free(bvh);
    uint32_t nv0 = mesh->vertex_count, nt0 = mesh->triangle_count, open0 = mesh->boundary_edges;
    /* drop the vertices collapses removed, keeping the others' order */
    uint32_t *remap = malloc(sizeof(uint32_t) * (m.nv + 1));
    for (uint32_t v = 0; v < m.nv; ++v) remap[v] = UINT32_MAX;
    for (uint32_t i = 0; i < 3 * m.nt; ++i) remap[m.tri[i]] = 0;
    uint32_t nv = 0;
    for (uint32_t v = 0; v < m.nv; ++v)
        if (remap[v] == 0) {
            memmove(m.pos + 3 * (size_t)nv, m.pos + 3 * (size_t)v, 3 * sizeof(double));
            remap[v] = nv++;
        }
    for (uint32_t i = 0; i < 3 * m.nt; ++i) m.tri[i] = remap[m.tri[i]];
    free(remap);
    mesh->pos = m.pos, mesh->tri = m.tri;
    mesh->vertex_count = nv, mesh->triangle_count = m.nt;
    /* a split boundary edge is two boundary edges: the report counts them again
     * (non-manifold edges are never split or collapsed, their count stands) */
    if (mesh->boundary_edges > 0) {
        uint32_t ne, open = 0;
        m.nv = nv;
        edge *e = edges_of(&m, &ne);
        for (uint32_t i = 0; i < ne; ++i) open += e[i].t0 != UINT32_MAX && e[i].t1 == UINT32_MAX;
        free(e);
        mesh->boundary_edges = open;
    }
    rep->spread_after = cr_cook_edge_spread(mesh->pos, mesh->tri, mesh->triangle_count, NULL);
    if (!(rep->spread_after <= rep->spread_before)) {
        /* a hostile mesh can come out worse (splits and collapses undoing
         * each other around protected edges): then the input stands */
        free(mesh->pos), free(mesh->tri);
        mesh->pos = pos0, mesh->tri = tri0;
        mesh->vertex_count = nv0, mesh->triangle_count = nt0, mesh->boundary_edges = open0;
        rep->spread_after = rep->spread_before;
        rep->kept_input = true;
        pos0 = NULL, tri0 = NULL;
    }
    free(pos0);
    free(tri0);
    rep->vertices_after = mesh->vertex_count;
    return 0;
}
