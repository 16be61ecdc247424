/* cook_plane_cut.c — the caps of plane cuts and the triangulation of faces
 * (tools only: doubles, malloc), for the polygon cutter (cook_polygon_cut.c)
 * and the prescoring cooker (cook_fracture.c).
 *
 * A cut (kept side n.x <= d) leaves, for each face that leaves and re-enters
 * the plane, a directed edge on it; reversed, those edges are the cap's
 * boundary: loops counter-clockwise seen from outside (+n) around the cap's
 * regions, clockwise around its holes (a cut through a ring, or a bunny's ear
 * and head at once gives several). Holes are bridged into the loop around
 * them (Eberly's visible vertex), each region is one face. Faces are
 * triangulated by ear clipping in 2-D in their plane; corners on a line are
 * no ears (a triangle of no area would be dropped by the cooker and open the
 * piece). crf_repair flips away what faces of no area are left.
 */
#include "cook_fracture.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- growing arrays ------------------------------------------------------ */

void crf_mesh_free(crf_mesh *m) {
    free(m->pos);
    free(m->tri);
    free(m->tag);
    memset(m, 0, sizeof *m);
}

static void add_vertex(crf_mesh *m, const double p[3]) {
    if (m->nv == m->cap_v) {
        m->cap_v = m->cap_v ? 2 * m->cap_v : 64;
        m->pos = realloc(m->pos, sizeof(double) * 3 * m->cap_v);
    }
    memcpy(m->pos + 3 * (size_t)m->nv++, p, sizeof(double) * 3);
}

static void add_tri(crf_mesh *m, uint32_t a, uint32_t b, uint32_t c, uint32_t tag) {
    if (m->nt == m->cap_t) {
        m->cap_t = m->cap_t ? 2 * m->cap_t : 64;
        m->tri = realloc(m->tri, sizeof(uint32_t) * 3 * m->cap_t);
        m->tag = realloc(m->tag, sizeof(uint32_t) * m->cap_t);
    }
    m->tri[3 * (size_t)m->nt] = a, m->tri[3 * (size_t)m->nt + 1] = b, m->tri[3 * (size_t)m->nt + 2] = c;
    m->tag[m->nt++] = tag;
}

/* ---- cap triangulation --------------------------------------------------- */

typedef struct poly {
    uint32_t *v;   /* output vertex indices */
    double *xy;    /* 2 per entry */
    uint32_t n;
} poly;

static double area2(const poly *p) {
    double a = 0;
    for (uint32_t i = 0; i < p->n; ++i) {
        uint32_t j = (i + 1) % p->n;
        a += p->xy[2 * i] * p->xy[2 * j + 1] - p->xy[2 * j] * p->xy[2 * i + 1];
    }
    return a;
}

static double cross3(const double *a, const double *b, const double *c) {
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
}

static bool point_in_poly(const poly *p, const double *q) {
    bool in = false;
    for (uint32_t i = 0, j = p->n - 1; i < p->n; j = i++) {
        const double *a = p->xy + 2 * i, *b = p->xy + 2 * j;
        if ((a[1] > q[1]) != (b[1] > q[1]) && q[0] < (b[0] - a[0]) * (q[1] - a[1]) / (b[1] - a[1]) + a[0]) in = !in;
    }
    return in;
}

/* Splice hole h into outer o through a bridge from the hole's rightmost
 * vertex to a vertex of o it can see (Eberly's method: the ray to +x, the
 * edge it meets first, then the reflex vertex inside the triangle that makes
 * the smallest angle with the ray, if any). */
static void bridge(poly *o, const poly *h) {
    uint32_t m = 0;
    for (uint32_t i = 1; i < h->n; ++i)
        if (h->xy[2 * i] > h->xy[2 * m] || (h->xy[2 * i] == h->xy[2 * m] && h->xy[2 * i + 1] < h->xy[2 * m + 1])) m = i;
    const double *M = h->xy + 2 * m;
    double best_x = INFINITY;
    uint32_t pick = 0;
    for (uint32_t i = 0; i < o->n; ++i) {
        uint32_t j = (i + 1) % o->n;
        const double *a = o->xy + 2 * i, *b = o->xy + 2 * j;
        if ((a[1] > M[1]) == (b[1] > M[1])) continue;
        double x = a[0] + (M[1] - a[1]) * (b[0] - a[0]) / (b[1] - a[1]);
        if (x < M[0] || x >= best_x) continue;
        best_x = x;
        pick = a[0] > b[0] ? i : j;
    }
    if (best_x == INFINITY) { /* numerically lost: bridge to the nearest vertex */
        double bd = INFINITY;
        for (uint32_t i = 0; i < o->n; ++i) {
            double dx = o->xy[2 * i] - M[0], dy = o->xy[2 * i + 1] - M[1], d = dx * dx + dy * dy;
            if (d < bd) bd = d, pick = i;
        }
    } else {
        /* a reflex vertex inside triangle (M, I, P) would block the bridge */
        const double I[2] = {best_x, M[1]};
        const double *P = o->xy + 2 * pick;
        double best_t = INFINITY;
        uint32_t blocker = UINT32_MAX;
        for (uint32_t i = 0; i < o->n; ++i) {
            if (i == pick) continue;
            const double *q = o->xy + 2 * i;
            const double *qp = o->xy + 2 * ((i + o->n - 1) % o->n), *qn = o->xy + 2 * ((i + 1) % o->n);
            if (cross3(qp, q, qn) > 0) continue; /* convex */
            double s1 = cross3(M, I, q), s2 = cross3(I, P, q), s3 = cross3(P, M, q);
            bool inside = (s1 >= 0 && s2 >= 0 && s3 >= 0) || (s1 <= 0 && s2 <= 0 && s3 <= 0);
            if (!inside) continue;
            double dx = q[0] - M[0], dy = q[1] - M[1];
            double t = fabs(dy) / (sqrt(dx * dx + dy * dy) + 1e-300); /* sine of the angle to the ray */
            if (t < best_t || (t == best_t && dx < o->xy[2 * blocker] - M[0])) best_t = t, blocker = i;
        }
        if (blocker != UINT32_MAX) pick = blocker;
    }
    /* o[0..pick], h[m..], h[..m], o[pick..] */
    uint32_t n = o->n + h->n + 2;
    uint32_t *v = malloc(sizeof(uint32_t) * n);
    double *xy = malloc(sizeof(double) * 2 * n);
    uint32_t k = 0;
    for (uint32_t i = 0; i <= pick; ++i, ++k) v[k] = o->v[i], xy[2 * k] = o->xy[2 * i], xy[2 * k + 1] = o->xy[2 * i + 1];
    for (uint32_t i = 0; i <= h->n; ++i, ++k) {
        uint32_t s = (m + i) % h->n;
        v[k] = h->v[s], xy[2 * k] = h->xy[2 * s], xy[2 * k + 1] = h->xy[2 * s + 1];
    }
    for (uint32_t i = pick; i < o->n; ++i, ++k) v[k] = o->v[i], xy[2 * k] = o->xy[2 * i], xy[2 * k + 1] = o->xy[2 * i + 1];
    free(o->v);
    free(o->xy);
    o->v = v, o->xy = xy, o->n = k;
}

/* Ear clipping of a simple polygon, counter-clockwise. O(n^2) per ear at
 * worst; cross sections of a piece have tens to hundreds of corners. */
static void ear_clip(crf_mesh *out, poly *p, uint32_t tag) {
    uint32_t n = p->n;
    /* corners on a line (where this cut crosses an earlier cap) are no ears:
     * a triangle of no area would be dropped by the cooker's cleaning and
     * leave a hole, so "convex" means above the cleaning's threshold */
    double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
    for (uint32_t i = 0; i < n; ++i)
        for (int k = 0; k < 2; ++k) {
            double x = p->xy[2 * i + k];
            lo[k] = x < lo[k] ? x : lo[k], hi[k] = x > hi[k] ? x : hi[k];
        }
    double flat = 1e-9 * ((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]));
    uint32_t *idx = malloc(sizeof(uint32_t) * n);
    for (uint32_t i = 0; i < n; ++i) idx[i] = i;
    while (n > 3) {
        uint32_t ear = UINT32_MAX;
        double best = -INFINITY;
        uint32_t fallback = 0;
        for (uint32_t i = 0; i < n && ear == UINT32_MAX; ++i) {
            uint32_t a = idx[(i + n - 1) % n], b = idx[i], c = idx[(i + 1) % n];
            const double *A = p->xy + 2 * a, *B = p->xy + 2 * b, *C = p->xy + 2 * c;
            double cr = cross3(A, B, C);
            if (cr > best) best = cr, fallback = i;
            if (cr <= flat) continue;
            bool empty = true;
            for (uint32_t k = 0; k < n && empty; ++k) {
                uint32_t q = idx[k];
                if (q == a || q == b || q == c) continue;
                if (p->v[q] == p->v[a] || p->v[q] == p->v[b] || p->v[q] == p->v[c]) continue; /* bridge copies */
                const double *Q = p->xy + 2 * q;
                /* on the ear's polygon edges a corner cannot be inside it; on the
                 * new diagonal it would be cut off: that blocks the ear */
                if (cross3(A, B, Q) > 0 && cross3(B, C, Q) > 0 && cross3(C, A, Q) >= 0) empty = false;
            }
            if (empty) ear = i;
        }
        if (ear == UINT32_MAX) ear = fallback; /* degenerate corners: clip the most convex one */
        uint32_t a = idx[(ear + n - 1) % n], b = idx[ear], c = idx[(ear + 1) % n];
        if (p->v[a] != p->v[b] && p->v[b] != p->v[c] && p->v[a] != p->v[c]) add_tri(out, p->v[a], p->v[b], p->v[c], tag);
        memmove(idx + ear, idx + ear + 1, sizeof(uint32_t) * (n - ear - 1));
        --n;
    }
    if (n == 3 && p->v[idx[0]] != p->v[idx[1]] && p->v[idx[1]] != p->v[idx[2]] && p->v[idx[0]] != p->v[idx[2]])
        add_tri(out, p->v[idx[0]], p->v[idx[1]], p->v[idx[2]], tag);
    free(idx);
}

/* The cap of a cut from its boundary's directed edges: loops, holes (clockwise)
 * bridged into the region (counter-clockwise about n) around them. Returns 0, or
 * -1 when the edges do not close into loops (the input was not closed). */
static void plane_basis(const double n[3], double u[3], double v[3]) {
    double a[3] = {fabs(n[0]) < 0.6 ? 1.0 : 0.0, fabs(n[0]) < 0.6 ? 0.0 : 1.0, 0.0};
    u[0] = a[1] * n[2] - a[2] * n[1], u[1] = a[2] * n[0] - a[0] * n[2], u[2] = a[0] * n[1] - a[1] * n[0];
    double l = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    for (int k = 0; k < 3; ++k) u[k] /= l;
    v[0] = n[1] * u[2] - n[2] * u[1], v[1] = n[2] * u[0] - n[0] * u[2], v[2] = n[0] * u[1] - n[1] * u[0];
}

static int cap_regions(const double *pos, uint32_t nv, const uint32_t *seg, size_t nseg, const double n[3], poly **regions_out,
                       uint32_t *count_out) {
    uint32_t *next = malloc(sizeof(uint32_t) * (nv ? nv : 1));
    for (uint32_t i = 0; i < nv; ++i) next[i] = UINT32_MAX;
    int rc = 0;
    for (size_t s = 0; s < nseg; ++s) {
        if (next[seg[2 * s]] != UINT32_MAX) rc = -1; /* two edges leave one point: not a closed 2-manifold */
        next[seg[2 * s]] = seg[2 * s + 1];
    }
    double u[3], v[3];
    plane_basis(n, u, v);
    poly *loops = NULL;
    uint32_t nloops = 0;
    uint8_t *seen = calloc(nv ? nv : 1, 1);
    for (size_t s = 0; s < nseg && rc == 0; ++s) {
        uint32_t start = seg[2 * s];
        if (seen[start]) continue;
        poly p = {NULL, NULL, 0};
        uint32_t capn = 0, x = start;
        while (x != UINT32_MAX && !seen[x]) {
            seen[x] = 1;
            if (p.n == capn) capn = capn ? 2 * capn : 16, p.v = realloc(p.v, sizeof(uint32_t) * capn), p.xy = realloc(p.xy, sizeof(double) * 2 * capn);
            const double *q = pos + 3 * (size_t)x;
            p.v[p.n] = x;
            p.xy[2 * p.n] = q[0] * u[0] + q[1] * u[1] + q[2] * u[2];
            p.xy[2 * p.n + 1] = q[0] * v[0] + q[1] * v[1] + q[2] * v[2];
            ++p.n;
            x = next[x];
        }
        if (x != start) rc = -1; /* an open chain: the input was not closed */
        loops = realloc(loops, sizeof(poly) * (nloops + 1));
        loops[nloops++] = p;
    }
    free(seen);
    free(next);
    poly *regions = NULL;
    uint32_t nregions = 0;
    if (rc == 0) {
        /* regions (counter-clockwise) take the holes (clockwise) they contain, smallest region first */
        double *ar = malloc(sizeof(double) * (nloops ? nloops : 1));
        for (uint32_t i = 0; i < nloops; ++i) ar[i] = area2(&loops[i]);
        int8_t *used = calloc(nloops ? nloops : 1, 1);
        for (;;) {
            /* the hole with the rightmost vertex first, so bridges do not cross */
            uint32_t h = UINT32_MAX;
            double hx = -INFINITY;
            for (uint32_t i = 0; i < nloops; ++i) {
                if (used[i] || ar[i] >= 0 || loops[i].n < 3) continue;
                for (uint32_t k = 0; k < loops[i].n; ++k)
                    if (loops[i].xy[2 * k] > hx) hx = loops[i].xy[2 * k], h = i;
            }
            if (h == UINT32_MAX) break;
            used[h] = 1;
            uint32_t o = UINT32_MAX;
            for (uint32_t i = 0; i < nloops; ++i)
                if (ar[i] > 0 && point_in_poly(&loops[i], loops[h].xy) && (o == UINT32_MAX || ar[i] < ar[o])) o = i;
            if (o == UINT32_MAX) continue; /* a sliver of negative area with no region: numerically empty */
            bridge(&loops[o], &loops[h]);
        }
        regions = malloc(sizeof(poly) * (nloops ? nloops : 1));
        for (uint32_t i = 0; i < nloops; ++i) {
            if (ar[i] > 0 && loops[i].n >= 3) {
                regions[nregions++] = loops[i];
                loops[i].v = NULL, loops[i].xy = NULL;
            }
        }
        free(ar);
        free(used);
    }
    for (uint32_t i = 0; i < nloops; ++i) free(loops[i].v), free(loops[i].xy);
    free(loops);
    *regions_out = regions;
    *count_out = nregions;
    return rc;
}

/* ---- the cut --------------------------------------------------------------- */


/* ---- repair: faces of no area ---------------------------------------------
 *
 * Where a cut grazes an earlier cap at a shallow angle, the sliver it takes
 * off can be thinner than rounding, and its cap a row of corners on one line:
 * triangles of no area, which the cooker's cleaning drops, opening a hole. A
 * triangle with no area lies on its longest edge, so flipping that edge with
 * the neighbouring triangle replaces both by two triangles of the neighbour's
 * plane: the same surface, closed, no corner moved. */
typedef struct half {
    uint64_t key; /* from << 32 | to */
    uint32_t tri;
} half;

static int by_key(const void *a, const void *b) {
    uint64_t x = ((const half *)a)->key, y = ((const half *)b)->key;
    return x < y ? -1 : (x > y);
}

static double tri_area2(const crf_mesh *m, uint32_t t) {
    const double *a = m->pos + 3 * (size_t)m->tri[3 * t], *b = m->pos + 3 * (size_t)m->tri[3 * t + 1],
                 *c = m->pos + 3 * (size_t)m->tri[3 * t + 2];
    double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    double x = e1[1] * e2[2] - e1[2] * e2[1], y = e1[2] * e2[0] - e1[0] * e2[2], z = e1[0] * e2[1] - e1[1] * e2[0];
    return x * x + y * y + z * z;
}

static double d2(const crf_mesh *m, uint32_t a, uint32_t b) {
    const double *p = m->pos + 3 * (size_t)a, *q = m->pos + 3 * (size_t)b;
    return (p[0] - q[0]) * (p[0] - q[0]) + (p[1] - q[1]) * (p[1] - q[1]) + (p[2] - q[2]) * (p[2] - q[2]);
}

uint32_t crf_repair(crf_mesh *m, double min_area) {
    uint32_t flips = 0;
    double lim = 4 * min_area * min_area; /* |cross|^2 = (2 area)^2 */
    bool any = false;
    for (uint32_t t = 0; t < m->nt && !any; ++t) any = tri_area2(m, t) < lim;
    if (!any) return 0; /* the common case: nothing to flip, no edge map */
    half *h = malloc(sizeof(half) * 3 * (m->nt ? m->nt : 1));
    for (int round = 0; round < 64; ++round) {
        for (uint32_t t = 0; t < m->nt; ++t)
            for (int k = 0; k < 3; ++k) {
                uint32_t a = m->tri[3 * t + k], b = m->tri[3 * t + (k + 1) % 3];
                h[3 * t + k].key = (uint64_t)a << 32 | b, h[3 * t + k].tri = t;
            }
        qsort(h, 3 * (size_t)m->nt, sizeof *h, by_key);
        uint32_t done = 0;
        uint8_t *touched = calloc(m->nt ? m->nt : 1, 1);
        for (uint32_t t = 0; t < m->nt; ++t) {
            if (touched[t] || tri_area2(m, t) >= lim) continue;
            /* its longest edge a -> b, the third corner c */
            uint32_t *v = m->tri + 3 * (size_t)t, k = 0;
            double best = -1;
            for (int e = 0; e < 3; ++e) {
                double l = d2(m, v[e], v[(e + 1) % 3]);
                if (l > best) best = l, k = (uint32_t)e;
            }
            uint32_t a = v[k], b = v[(k + 1) % 3], c = v[(k + 2) % 3];
            half key = {(uint64_t)b << 32 | a, 0};
            half *o = bsearch(&key, h, 3 * (size_t)m->nt, sizeof *h, by_key);
            if (o == NULL || touched[o->tri] || o->tri == t) continue;
            uint32_t u = o->tri, *w = m->tri + 3 * (size_t)u, x = UINT32_MAX;
            for (int e = 0; e < 3; ++e)
                if (w[e] != a && w[e] != b) x = w[e];
            if (x == UINT32_MAX || x == c) continue;
            /* a flip onto an edge the mesh has already would fold it */
            half e1 = {(uint64_t)c << 32 | x, 0}, e2 = {(uint64_t)x << 32 | c, 0};
            if (bsearch(&e1, h, 3 * (size_t)m->nt, sizeof *h, by_key) || bsearch(&e2, h, 3 * (size_t)m->nt, sizeof *h, by_key)) continue;
            /* quad a, b, c... as a -> x? the pair (a, b, c) + (b, a, x) becomes (c, a, x) + (c, x, b) */
            v[0] = c, v[1] = a, v[2] = x;
            w[0] = c, w[1] = x, w[2] = b;
            m->tag[t] = m->tag[u];
            touched[t] = touched[u] = 1;
            ++done;
        }
        free(touched);
        flips += done;
        if (done == 0) break;
    }
    free(h);
    return flips;
}

/* ---- for the polygon cutter (cook_polygon_cut.c) --------------------------- */

int crf_cap_faces(const double *pos, uint32_t nv, const uint32_t *seg, size_t nseg, const double n[3], crf_faces *out) {
    poly *regions = NULL;
    uint32_t nregions = 0;
    int rc = cap_regions(pos, nv, seg, nseg, n, &regions, &nregions);
    memset(out, 0, sizeof *out);
    out->count = nregions;
    out->start = malloc(sizeof(uint32_t) * (nregions + 1));
    uint32_t total = 0;
    for (uint32_t i = 0; i < nregions; ++i) total += regions[i].n;
    out->idx = malloc(sizeof(uint32_t) * (total ? total : 1));
    out->start[0] = 0;
    for (uint32_t i = 0; i < nregions; ++i) {
        memcpy(out->idx + out->start[i], regions[i].v, sizeof(uint32_t) * regions[i].n);
        out->start[i + 1] = out->start[i] + regions[i].n;
        free(regions[i].v), free(regions[i].xy);
    }
    free(regions);
    return rc;
}

void crf_face_ears(crf_mesh *out, const uint32_t *idx, uint32_t k, uint32_t tag) {
    if (k < 3) return;
    if (k == 3) {
        add_tri(out, idx[0], idx[1], idx[2], tag);
        return;
    }
    /* Newell's normal: the face's plane, whatever its shape */
    double n[3] = {0, 0, 0};
    for (uint32_t i = 0; i < k; ++i) {
        const double *a = out->pos + 3 * (size_t)idx[i], *b = out->pos + 3 * (size_t)idx[(i + 1) % k];
        n[0] += (a[1] - b[1]) * (a[2] + b[2]), n[1] += (a[2] - b[2]) * (a[0] + b[0]), n[2] += (a[0] - b[0]) * (a[1] + b[1]);
    }
    double l = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (!(l > 0)) return;
    for (int c = 0; c < 3; ++c) n[c] /= l;
    double u[3], v[3];
    plane_basis(n, u, v);
    poly p;
    p.n = k;
    p.v = malloc(sizeof(uint32_t) * k);
    p.xy = malloc(sizeof(double) * 2 * k);
    for (uint32_t i = 0; i < k; ++i) {
        const double *q = out->pos + 3 * (size_t)idx[i];
        p.v[i] = idx[i];
        p.xy[2 * i] = q[0] * u[0] + q[1] * u[1] + q[2] * u[2];
        p.xy[2 * i + 1] = q[0] * v[0] + q[1] * v[1] + q[2] * v[2];
    }
    ear_clip(out, &p, tag);
    free(p.v), free(p.xy);
}

void crf_mesh_vertex(crf_mesh *m, const double p[3]) { add_vertex(m, p); }
