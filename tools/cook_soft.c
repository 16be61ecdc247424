/* cook_soft.c — a soft asset's particles and springs (`crumple cook --soft`;
 * SPRP and SPRS in docs/asset-format.md; the model in docs/mass-spring.md).
 *
 * The particles are the cooked vertices. Each gets a share of the body's
 * mass: equal (seed 004, right once the remesher has evened out the edges)
 * or a third of its triangles' area (`--soft-masses area`).
 *
 * Springs, in the order the runtime's own builder uses (so an asset cooked
 * with no internal springs gives a body bit-identical to one built from the
 * adjacency at create time):
 *   structural  every edge (u < v, u ascending, then v ascending);
 *   bending     across every manifold edge, between its two opposite
 *               vertices, unless those are joined by an edge already;
 *   internal    chords through a closed body's interior. The surface springs
 *               hold a shell; a shell under load folds in (the volume
 *               constraint keeps its volume, not its shape). A chord from
 *               each vertex straight through the body along its inward
 *               normal to the vertex nearest where that ray leaves the body
 *               (the first triangle hit from inside) braces the shell like
 *               the spokes of a wheel; `--soft-internal N` casts N rays per
 *               vertex (the normal, and up to 4 more tilted 35 degrees
 *               around it), each chord kept once, in (a, b) order.
 * A chord is kept only if it joins two vertices not already joined, and the
 * hit triangle faces along the ray (the ray left the body there).
 *
 * Deterministic: + - * / and sqrt only, fixed orders, sorted output.
 */
#include "cook_soft.h"
#include "crumple/asset.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool joined(const cr_cook_surface *s, uint32_t u, uint32_t v) {
    for (uint32_t k = s->adj_start[u]; k < s->adj_start[u + 1]; ++k)
        if (s->adj[k] == v) return true;
    return false;
}

/* the two common neighbours of edge (u, v), or fewer/more (returns the count) */
static uint32_t opposite(const cr_cook_surface *s, uint32_t u, uint32_t v, uint32_t out[2]) {
    uint32_t i = s->adj_start[u], ie = s->adj_start[u + 1], j = s->adj_start[v], je = s->adj_start[v + 1], n = 0;
    while (i < ie && j < je) {
        uint32_t x = s->adj[i], y = s->adj[j];
        if (x == y) {
            if (n < 2) out[n] = x;
            ++n, ++i, ++j;
        } else if (x < y) ++i;
        else ++j;
    }
    return n;
}

static int cmp_pair(const void *x, const void *y) {
    const uint32_t *a = x, *b = y;
    if (a[0] != b[0]) return a[0] < b[0] ? -1 : 1;
    return (a[1] > b[1]) - (a[1] < b[1]);
}

/* Ray o + t d against triangle (a, b, c), t > tmin: t or -1 (Moller-Trumbore). */
static double ray_tri(const double o[3], const double d[3], const double *a, const double *b, const double *c, double tmin) {
    double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    double p[3] = {d[1] * e2[2] - d[2] * e2[1], d[2] * e2[0] - d[0] * e2[2], d[0] * e2[1] - d[1] * e2[0]};
    double det = e1[0] * p[0] + e1[1] * p[1] + e1[2] * p[2];
    if (fabs(det) < 1e-30) return -1;
    double inv = 1.0 / det, s[3] = {o[0] - a[0], o[1] - a[1], o[2] - a[2]};
    double u = (s[0] * p[0] + s[1] * p[1] + s[2] * p[2]) * inv;
    if (u < -1e-9 || u > 1 + 1e-9) return -1;
    double q[3] = {s[1] * e1[2] - s[2] * e1[1], s[2] * e1[0] - s[0] * e1[2], s[0] * e1[1] - s[1] * e1[0]};
    double v = (d[0] * q[0] + d[1] * q[1] + d[2] * q[2]) * inv;
    if (v < -1e-9 || u + v > 1 + 1e-9) return -1;
    double t = (e2[0] * q[0] + e2[1] * q[1] + e2[2] * q[2]) * inv;
    return t > tmin ? t : -1;
}

static double len3(const double v[3]) { return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

/* Up to `rays` chords from vertex i: appended to pairs (2 per chord). */
static void chords_from(const cr_cook_mesh *m, const double *pd, const cr_cook_surface *s, uint32_t i, uint32_t rays,
                        uint32_t **pairs, size_t *n, size_t *cap) {
    /* tilted directions around the inward normal: (cos, sin) of 0, 90, 180, 270 degrees, tan 35 = 0.7 */
    static const double around[4][2] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}};
    double nrm[3] = {-(double)s->normals[3 * (size_t)i], -(double)s->normals[3 * (size_t)i + 1],
                     -(double)s->normals[3 * (size_t)i + 2]};
    /* a tangent frame from the axis least along the normal */
    int ax = fabs(nrm[0]) <= fabs(nrm[1]) && fabs(nrm[0]) <= fabs(nrm[2]) ? 0 : fabs(nrm[1]) <= fabs(nrm[2]) ? 1 : 2;
    double e[3] = {0, 0, 0};
    e[ax] = 1;
    double t1[3] = {nrm[1] * e[2] - nrm[2] * e[1], nrm[2] * e[0] - nrm[0] * e[2], nrm[0] * e[1] - nrm[1] * e[0]};
    double l1 = len3(t1);
    for (int k = 0; k < 3; ++k) t1[k] /= l1;
    double t2[3] = {nrm[1] * t1[2] - nrm[2] * t1[1], nrm[2] * t1[0] - nrm[0] * t1[2], nrm[0] * t1[1] - nrm[1] * t1[0]};
    const double *o = pd + 3 * (size_t)i;
    for (uint32_t r = 0; r < rays && r < 5; ++r) {
        double d[3];
        for (int k = 0; k < 3; ++k)
            d[k] = nrm[k] + (r == 0 ? 0 : 0.7 * (around[r - 1][0] * t1[k] + around[r - 1][1] * t2[k]));
        double best = INFINITY;
        uint32_t hit = UINT32_MAX;
        for (uint32_t t = 0; t < m->triangle_count; ++t) {
            const uint32_t *tr = m->tri + 3 * (size_t)t;
            if (tr[0] == i || tr[1] == i || tr[2] == i) continue;
            double h = ray_tri(o, d, pd + 3 * (size_t)tr[0], pd + 3 * (size_t)tr[1], pd + 3 * (size_t)tr[2], 1e-12);
            if (h > 0 && h < best) best = h, hit = t;
        }
        if (hit == UINT32_MAX) continue;
        const uint32_t *tr = m->tri + 3 * (size_t)hit;
        const double *a = pd + 3 * (size_t)tr[0], *b = pd + 3 * (size_t)tr[1], *c = pd + 3 * (size_t)tr[2];
        double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        double fn[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        if (fn[0] * d[0] + fn[1] * d[1] + fn[2] * d[2] <= 0) continue; /* entered, not left: the ray went outside first */
        double x[3] = {o[0] + best * d[0], o[1] + best * d[1], o[2] + best * d[2]};
        uint32_t j = UINT32_MAX;
        double dj = INFINITY;
        for (int c2 = 0; c2 < 3; ++c2) {
            const double *q = pd + 3 * (size_t)tr[c2];
            double dd[3] = {q[0] - x[0], q[1] - x[1], q[2] - x[2]};
            double l = len3(dd);
            if (l < dj || (l == dj && tr[c2] < j)) dj = l, j = tr[c2];
        }
        if (j == i || joined(s, i, j)) continue;
        if (*n + 2 > *cap) {
            *cap = *cap ? 2 * *cap : 256;
            *pairs = realloc(*pairs, sizeof(uint32_t) * *cap);
        }
        (*pairs)[(*n)++] = i < j ? i : j;
        (*pairs)[(*n)++] = i < j ? j : i;
    }
}

int cr_cook_soft_build(const cr_cook_mesh *m, const float *pos, const cr_cook_surface *s, uint32_t internal,
                       bool area_masses, cr_cook_soft *out, char *err, size_t en) {
    memset(out, 0, sizeof *out);
    uint32_t nv = m->vertex_count;
    out->vertex_count = nv;
    double *pd = malloc(sizeof(double) * 3 * (size_t)nv);
    for (size_t i = 0; i < 3 * (size_t)nv; ++i) pd[i] = (double)pos[i];
    /* mass weights */
    out->weight = malloc(sizeof(float) * nv);
    double *w = calloc(nv, sizeof(double)), total = 0;
    if (area_masses) {
        for (uint32_t t = 0; t < m->triangle_count; ++t) {
            const uint32_t *tr = m->tri + 3 * (size_t)t;
            const double *a = pd + 3 * (size_t)tr[0], *b = pd + 3 * (size_t)tr[1], *c = pd + 3 * (size_t)tr[2];
            double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
            double x[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
            for (int k = 0; k < 3; ++k) w[tr[k]] += len3(x) / 6.0;
        }
        /* a vertex no triangle names (none after cleaning) would get no mass: a hundredth of the equal share */
        for (uint32_t i = 0; i < nv; ++i) total += w[i];
        for (uint32_t i = 0; i < nv; ++i) w[i] = total > 0 ? w[i] / total : 1.0 / nv;
        total = 0;
        for (uint32_t i = 0; i < nv; ++i) w[i] = w[i] < 0.01 / nv ? 0.01 / nv : w[i], total += w[i];
        for (uint32_t i = 0; i < nv; ++i) w[i] /= total;
    } else {
        for (uint32_t i = 0; i < nv; ++i) w[i] = 1.0 / nv;
    }
    for (uint32_t i = 0; i < nv; ++i) out->weight[i] = (float)w[i];
    free(w);

    /* structural, then bending, in the runtime's order */
    size_t cap = 6 * (size_t)nv + 16, n = 0;
    uint32_t *sp = malloc(sizeof(uint32_t) * 3 * cap);
    for (uint32_t u = 0; u < nv; ++u)
        for (uint32_t k = s->adj_start[u]; k < s->adj_start[u + 1]; ++k)
            if (s->adj[k] > u) {
                if (n == cap) sp = realloc(sp, sizeof(uint32_t) * 3 * (cap *= 2));
                sp[3 * n] = u, sp[3 * n + 1] = s->adj[k], sp[3 * n + 2] = CR_ASSET_SPRING_STRUCTURAL, ++n;
            }
    out->structural = (uint32_t)n;
    for (uint32_t u = 0; u < nv; ++u)
        for (uint32_t k = s->adj_start[u]; k < s->adj_start[u + 1]; ++k) {
            uint32_t v = s->adj[k], o[2];
            if (v <= u || opposite(s, u, v, o) != 2 || joined(s, o[0], o[1])) continue;
            if (n == cap) sp = realloc(sp, sizeof(uint32_t) * 3 * (cap *= 2));
            sp[3 * n] = o[0] < o[1] ? o[0] : o[1], sp[3 * n + 1] = o[0] < o[1] ? o[1] : o[0];
            sp[3 * n + 2] = CR_ASSET_SPRING_BENDING, ++n;
        }
    out->bending = (uint32_t)n - out->structural;

    /* internal chords, closed meshes only (an open one has no inside to brace) */
    bool closed = m->boundary_edges == 0 && m->nonmanifold_edges == 0;
    if (internal > 0 && closed) {
        uint32_t *pairs = NULL;
        size_t np = 0, pcap = 0;
        for (uint32_t i = 0; i < nv; ++i) chords_from(m, pd, s, i, internal, &pairs, &np, &pcap);
        size_t chords = np / 2;
        if (chords) qsort(pairs, chords, 2 * sizeof(uint32_t), cmp_pair);
        /* bending springs already joining a pair are not repeated */
        uint32_t *bend = malloc(sizeof(uint32_t) * 2 * (out->bending + 1));
        for (uint32_t b = 0; b < out->bending; ++b)
            bend[2 * b] = sp[3 * (out->structural + b)], bend[2 * b + 1] = sp[3 * (out->structural + b) + 1];
        if (out->bending) qsort(bend, out->bending, 2 * sizeof(uint32_t), cmp_pair);
        for (size_t c = 0; c < chords; ++c) {
            if (c > 0 && cmp_pair(pairs + 2 * c, pairs + 2 * (c - 1)) == 0) continue;
            if (out->bending && bsearch(pairs + 2 * c, bend, out->bending, 2 * sizeof(uint32_t), cmp_pair)) continue;
            if (n == cap) sp = realloc(sp, sizeof(uint32_t) * 3 * (cap *= 2));
            sp[3 * n] = pairs[2 * c], sp[3 * n + 1] = pairs[2 * c + 1], sp[3 * n + 2] = CR_ASSET_SPRING_INTERNAL, ++n;
            out->internal++;
        }
        free(bend);
        free(pairs);
    }
    if (n > (size_t)CR_ASSET_MAX_SOFT_SPRINGS_PER_VERTEX * nv || out->structural == 0) {
        snprintf(err, en, "%zu springs on %u vertices: not a soft body the format can hold (%u per vertex at most, "
                          "at least one edge)",
                 n, nv, CR_ASSET_MAX_SOFT_SPRINGS_PER_VERTEX);
        free(sp), free(pd), cr_cook_soft_free(out);
        return -1;
    }
    out->spring = sp;
    out->spring_count = (uint32_t)n;
    out->rest = malloc(sizeof(double) * (n + 1));
    for (size_t j = 0; j < n; ++j) {
        const double *a = pd + 3 * (size_t)sp[3 * j], *b = pd + 3 * (size_t)sp[3 * j + 1];
        double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        out->rest[j] = len3(d);
    }
    free(pd);
    return 0;
}

void cr_cook_soft_free(cr_cook_soft *s) {
    free(s->weight);
    free(s->spring);
    free(s->rest);
    memset(s, 0, sizeof *s);
}
