/* cook_bvh.c — one bounding volume hierarchy for two queries: the exact
 * distance to the nearest triangle, and the generalised winding number.
 *
 * Distance: depth-first, nearer child first, pruned by the box distance
 * against the best so far; a triangle whose plane is already farther than
 * the best is skipped before its edges are looked at. The caller passes the
 * previous grid node's nearest triangle as a hint; neighbouring nodes usually
 * share it, so the first bound is already tight and most of the tree is never
 * opened. The hint changes the work, never the result.
 *
 * Winding number (Jacobson et al. 2013; fast version after Barill et al.
 * 2018, "Fast winding numbers for soups and clouds"): w(q) is the solid
 * angle of the surface seen from q over 4 pi. It is 1 inside and 0 outside a
 * closed surface and degrades gracefully across holes, which is what makes
 * the sign of the scanned bunny (open at the bottom) right. A cluster of
 * triangles seen from farther than BETA times its radius is replaced by its
 * dipole term N . (c - q) / (4 pi |c - q|^3), with N the sum of the area
 * vectors and c the area-weighted centre; nearer clusters are opened down to
 * exact triangle solid angles (Van Oosterom and Strackee). The error of the
 * dipole term falls like (r/d)^2, and the cooker only needs the sign of
 * w - 1/2, which is far from ambiguous off the surface.
 *
 * Notes
 *   - Splits are median splits of centroids on the longest axis, found by a
 *     linear-time selection in the total order (coordinate, triangle index):
 *     the tree is the same on every machine.
 *   - atan2 is the cooker's own series, not libm's, so the winding numbers
 *     (and so the cooked bytes) cannot depend on a libm's last-bit choices.
 */
#include "cook.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LEAF_SIZE 4
#define BETA 2.0
#define PI_D 3.14159265358979323846

typedef struct bvh_node {
    double lo[3], hi[3];
    double n[3];     /* sum of area vectors (1/2 cross product) */
    double c[3];     /* area-weighted centre */
    double r;        /* radius about c enclosing every triangle */
    uint32_t first;  /* leaf: first slot in tv; inner: index of left child (right is +1) */
    uint32_t count;  /* leaf: triangle count; inner: 0 */
} bvh_node;

/* What the distance query needs of a triangle, computed once: the edges,
 * the unnormalised normal, and the reciprocals that make the query free of
 * divisions. */
typedef struct tri_pre {
    double a[3], ab[3], ac[3], bc[3], n[3];
    double inv_n2;                  /* 1/|n|^2 */
    double d00, d01, d11, inv_den;  /* barycentric solve; inv_den 0 for a sliver */
    double inv_ab2, inv_ac2, inv_bc2;
} tri_pre;

struct cr_bvh {
    bvh_node *nodes;
    double *box;       /* 6 per node (lo, hi), apart from the winding data so the distance walk stays in cache */
    uint32_t node_count;
    uint32_t tri_count;
    double *tv;        /* 9 per slot: corners a, b, c */
    tri_pre *pre;      /* per slot */
    uint32_t *order;   /* slot -> original triangle */
    uint32_t *slot_of; /* original triangle -> slot */
};

/* ---- deterministic atan2 ----------------------------------------------------- */

/* atan on [0, 1]: one reduction to |t| <= tan(pi/8), then the Taylor series
 * (t^2 <= 0.172, 24 terms reach below 1e-18). */
static double atan01(double x) {
    double base = 0;
    if (x > 0.41421356237309504880) {
        base = PI_D / 4;
        x = (x - 1.0) / (x + 1.0);
    }
    double t2 = x * x, s = 0;
    for (int k = 24; k >= 0; --k) s = s * t2 + ((k & 1) ? -1.0 : 1.0) / (double)(2 * k + 1);
    return base + x * s;
}

double cr_cook_atan2(double y, double x) {
    double ax = fabs(x), ay = fabs(y);
    if (ax == 0 && ay == 0) return 0;
    double a = ay <= ax ? atan01(ay / ax) : PI_D / 2 - atan01(ax / ay);
    if (x < 0) a = PI_D - a;
    return y < 0 ? -a : a;
}

/* ---- point-triangle distance ------------------------------------------------------ */

static double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static void tri_prepare(tri_pre *t, const double *A, const double *B, const double *C) {
    for (int k = 0; k < 3; ++k) {
        t->a[k] = A[k];
        t->ab[k] = B[k] - A[k];
        t->ac[k] = C[k] - A[k];
        t->bc[k] = C[k] - B[k];
    }
    t->n[0] = t->ab[1] * t->ac[2] - t->ab[2] * t->ac[1];
    t->n[1] = t->ab[2] * t->ac[0] - t->ab[0] * t->ac[2];
    t->n[2] = t->ab[0] * t->ac[1] - t->ab[1] * t->ac[0];
    double n2 = dot3(t->n, t->n);
    t->d00 = dot3(t->ab, t->ab);
    t->d01 = dot3(t->ab, t->ac);
    t->d11 = dot3(t->ac, t->ac);
    double den = t->d00 * t->d11 - t->d01 * t->d01;
    /* a sliver has no usable plane: its distance is that of its edges */
    t->inv_n2 = n2 > 0 ? 1.0 / n2 : 0;
    t->inv_den = den > 0 && n2 > 0 ? 1.0 / den : 0;
    double bc2 = dot3(t->bc, t->bc);
    t->inv_ab2 = t->d00 > 0 ? 1.0 / t->d00 : 0;
    t->inv_ac2 = t->d11 > 0 ? 1.0 / t->d11 : 0;
    t->inv_bc2 = bc2 > 0 ? 1.0 / bc2 : 0;
}

/* squared distance from p to the segment s + t e, t in [0, 1] */
static double seg_dist2(const double *p, const double *s, const double *e, double inv_e2) {
    double sp[3] = {p[0] - s[0], p[1] - s[1], p[2] - s[2]};
    double t = dot3(sp, e) * inv_e2;
    t = t < 0 ? 0 : (t > 1 ? 1 : t);
    double d[3] = {sp[0] - t * e[0], sp[1] - t * e[1], sp[2] - t * e[2]};
    return dot3(d, d);
}

/* Squared distance from p to the triangle, or any value >= `best` when the
 * triangle cannot be nearer than best (its plane is already too far). */
static double tri_dist2(const tri_pre *t, const double *p, double best) {
    double ap[3] = {p[0] - t->a[0], p[1] - t->a[1], p[2] - t->a[2]};
    double pn = dot3(ap, t->n);
    double plane2 = pn * pn * t->inv_n2;
    if (plane2 >= best) return plane2;
    /* in-plane barycentric coordinates of the projection: inside, the plane
     * distance is the distance; outside, the nearest point is on an edge
     * whose outer side the projection is on (for a sliver: any edge) */
    bool out_ab = true, out_ac = true, out_bc = true;
    if (t->inv_den > 0) {
        double d20 = dot3(ap, t->ab), d21 = dot3(ap, t->ac);
        double v = (t->d11 * d20 - t->d01 * d21) * t->inv_den, w = (t->d00 * d21 - t->d01 * d20) * t->inv_den;
        if (v >= 0 && w >= 0 && v + w <= 1) return plane2;
        out_ab = w < 0;
        out_ac = v < 0;
        out_bc = v + w > 1;
    }
    double d = INFINITY;
    if (out_ab) d = seg_dist2(p, t->a, t->ab, t->inv_ab2);
    if (out_ac) {
        double e = seg_dist2(p, t->a, t->ac, t->inv_ac2);
        d = e < d ? e : d;
    }
    if (out_bc) {
        double b[3] = {t->a[0] + t->ab[0], t->a[1] + t->ab[1], t->a[2] + t->ab[2]};
        double e = seg_dist2(p, b, t->bc, t->inv_bc2);
        d = e < d ? e : d;
    }
    return d;
}

double cr_point_triangle_distance(const double q[3], const double a[3], const double b[3], const double c[3]) {
    tri_pre t;
    tri_prepare(&t, a, b, c);
    return sqrt(tri_dist2(&t, q, INFINITY));
}

/* Solid angle of triangle (a, b, c) seen from q, over 4 pi. */
static double tri_winding(const double *q, const double *A, const double *B, const double *C) {
    double a[3] = {A[0] - q[0], A[1] - q[1], A[2] - q[2]};
    double b[3] = {B[0] - q[0], B[1] - q[1], B[2] - q[2]};
    double c[3] = {C[0] - q[0], C[1] - q[1], C[2] - q[2]};
    double la = sqrt(dot3(a, a)), lb = sqrt(dot3(b, b)), lc = sqrt(dot3(c, c));
    double det = a[0] * (b[1] * c[2] - b[2] * c[1]) + a[1] * (b[2] * c[0] - b[0] * c[2]) + a[2] * (b[0] * c[1] - b[1] * c[0]);
    double den = la * lb * lc + dot3(a, b) * lc + dot3(b, c) * la + dot3(c, a) * lb;
    return cr_cook_atan2(det, den) / (2 * PI_D);
}

double cr_winding_exact(const double *pos, const uint32_t *tri, uint32_t triangle_count, const double q[3]) {
    double w = 0;
    for (uint32_t t = 0; t < triangle_count; ++t)
        w += tri_winding(q, pos + 3 * (size_t)tri[3 * t], pos + 3 * (size_t)tri[3 * t + 1], pos + 3 * (size_t)tri[3 * t + 2]);
    return w;
}

/* ---- build -------------------------------------------------------------------- */

typedef struct sort_item {
    double key;
    uint32_t tri;
} sort_item;

static int cmp_item(const void *pa, const void *pb) {
    const sort_item *a = pa, *b = pb;
    if (a->key < b->key) return -1;
    if (a->key > b->key) return 1;
    return (a->tri > b->tri) - (a->tri < b->tri);
}

static void swap_item(sort_item *a, sort_item *b) {
    sort_item t = *a;
    *a = *b;
    *b = t;
}

/* Puts the element of rank `nth` (in the total order of cmp_item) at a[nth],
 * smaller ones before it and larger after: a median split in linear time.
 * The pivot is the median of three fixed positions, so the result does not
 * depend on anything but the input. */
static void select_nth(sort_item *a, size_t lo, size_t hi, size_t nth) {
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2, last = hi - 1;
        if (cmp_item(&a[mid], &a[lo]) < 0) swap_item(&a[mid], &a[lo]);
        if (cmp_item(&a[last], &a[lo]) < 0) swap_item(&a[last], &a[lo]);
        if (cmp_item(&a[mid], &a[last]) < 0) swap_item(&a[mid], &a[last]);
        /* now a[last] is the median of the three: partition around it */
        size_t store = lo;
        for (size_t i = lo; i < last; ++i)
            if (cmp_item(&a[i], &a[last]) < 0) swap_item(&a[i], &a[store++]);
        swap_item(&a[store], &a[last]);
        if (nth == store) return;
        if (nth < store)
            hi = store;
        else
            lo = store + 1;
    }
}

typedef struct build_job {
    uint32_t node, begin, end;
} build_job;

cr_bvh *cr_bvh_build(const double *pos, const uint32_t *tri, uint32_t nt) {
    cr_bvh *b = calloc(1, sizeof *b);
    if (b == NULL || nt == 0) {
        free(b);
        return NULL;
    }
    b->tri_count = nt;
    b->nodes = malloc(sizeof(bvh_node) * 2 * (size_t)nt);
    b->tv = malloc(sizeof(double) * 9 * (size_t)nt);
    b->order = malloc(sizeof(uint32_t) * nt);
    b->slot_of = malloc(sizeof(uint32_t) * nt);
    double *cen = malloc(sizeof(double) * 3 * (size_t)nt);
    sort_item *items = malloc(sizeof(sort_item) * nt);
    build_job *stack = malloc(sizeof(build_job) * 2 * (size_t)nt);
    for (uint32_t t = 0; t < nt; ++t) {
        b->order[t] = t;
        for (int k = 0; k < 3; ++k)
            cen[3 * (size_t)t + k] = (pos[3 * (size_t)tri[3 * t] + k] + pos[3 * (size_t)tri[3 * t + 1] + k] + pos[3 * (size_t)tri[3 * t + 2] + k]) / 3.0;
    }
    b->node_count = 1;
    size_t sp = 0;
    build_job root = {0, 0, nt};
    stack[sp++] = root;
    while (sp > 0) {
        build_job j = stack[--sp];
        bvh_node *nd = &b->nodes[j.node];
        memset(nd, 0, sizeof *nd);
        double clo[3] = {INFINITY, INFINITY, INFINITY}, chi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (int k = 0; k < 3; ++k) nd->lo[k] = INFINITY, nd->hi[k] = -INFINITY;
        for (uint32_t i = j.begin; i < j.end; ++i) {
            uint32_t t = b->order[i];
            for (int v = 0; v < 3; ++v)
                for (int k = 0; k < 3; ++k) {
                    double x = pos[3 * (size_t)tri[3 * t + v] + k];
                    nd->lo[k] = x < nd->lo[k] ? x : nd->lo[k];
                    nd->hi[k] = x > nd->hi[k] ? x : nd->hi[k];
                }
            for (int k = 0; k < 3; ++k) {
                double x = cen[3 * (size_t)t + k];
                clo[k] = x < clo[k] ? x : clo[k];
                chi[k] = x > chi[k] ? x : chi[k];
            }
        }
        uint32_t n = j.end - j.begin;
        int axis = 0;
        for (int k = 1; k < 3; ++k)
            if (chi[k] - clo[k] > chi[axis] - clo[axis]) axis = k;
        if (n <= LEAF_SIZE || !(chi[axis] > clo[axis])) {
            nd->first = j.begin;
            nd->count = n;
            continue;
        }
        for (uint32_t i = j.begin; i < j.end; ++i) {
            items[i].tri = b->order[i];
            items[i].key = cen[3 * (size_t)b->order[i] + axis];
        }
        uint32_t mid = j.begin + n / 2;
        select_nth(items, j.begin, j.end, mid);
        for (uint32_t i = j.begin; i < j.end; ++i) b->order[i] = items[i].tri;
        nd->first = b->node_count;
        nd->count = 0;
        b->node_count += 2;
        build_job right = {nd->first + 1, mid, j.end}, left = {nd->first, j.begin, mid};
        stack[sp++] = right;
        stack[sp++] = left;
    }
    b->pre = malloc(sizeof(tri_pre) * nt);
    b->box = malloc(sizeof(double) * 6 * b->node_count);
    for (uint32_t i = 0; i < nt; ++i) {
        uint32_t t = b->order[i];
        b->slot_of[t] = i;
        for (int v = 0; v < 3; ++v)
            for (int k = 0; k < 3; ++k) b->tv[9 * (size_t)i + 3 * v + k] = pos[3 * (size_t)tri[3 * t + v] + k];
        const double *T = b->tv + 9 * (size_t)i;
        tri_prepare(&b->pre[i], T, T + 3, T + 6);
    }
    for (uint32_t ni = 0; ni < b->node_count; ++ni) {
        memcpy(b->box + 6 * (size_t)ni, b->nodes[ni].lo, sizeof(double) * 3);
        memcpy(b->box + 6 * (size_t)ni + 3, b->nodes[ni].hi, sizeof(double) * 3);
    }
    /* winding data bottom-up: children always have larger indices than parents */
    double *area = malloc(sizeof(double) * b->node_count);
    for (uint32_t ni = b->node_count; ni-- > 0;) {
        bvh_node *nd = &b->nodes[ni];
        double ar = 0, c[3] = {0, 0, 0}, nsum[3] = {0, 0, 0};
        if (nd->count > 0) {
            for (uint32_t i = nd->first; i < nd->first + nd->count; ++i) {
                const double *A = b->tv + 9 * (size_t)i, *B = A + 3, *C = A + 6;
                double e1[3] = {B[0] - A[0], B[1] - A[1], B[2] - A[2]}, e2[3] = {C[0] - A[0], C[1] - A[1], C[2] - A[2]};
                double cr[3] = {0.5 * (e1[1] * e2[2] - e1[2] * e2[1]), 0.5 * (e1[2] * e2[0] - e1[0] * e2[2]),
                                0.5 * (e1[0] * e2[1] - e1[1] * e2[0])};
                double a = sqrt(dot3(cr, cr));
                for (int k = 0; k < 3; ++k) {
                    nsum[k] += cr[k];
                    c[k] += a * (A[k] + B[k] + C[k]) / 3.0;
                }
                ar += a;
            }
        } else {
            const bvh_node *l = &b->nodes[nd->first], *r = &b->nodes[nd->first + 1];
            double al = area[nd->first], arr = area[nd->first + 1];
            for (int k = 0; k < 3; ++k) {
                nsum[k] = l->n[k] + r->n[k];
                c[k] = al * l->c[k] + arr * r->c[k];
            }
            ar = al + arr;
        }
        area[ni] = ar;
        memcpy(nd->n, nsum, sizeof nsum);
        for (int k = 0; k < 3; ++k) nd->c[k] = ar > 0 ? c[k] / ar : 0.5 * (nd->lo[k] + nd->hi[k]);
        /* every triangle is inside the box, so the farthest box corner bounds them */
        double r2 = 0;
        for (int k = 0; k < 3; ++k) {
            double d = fabs(nd->c[k] - nd->lo[k]) > fabs(nd->hi[k] - nd->c[k]) ? fabs(nd->c[k] - nd->lo[k]) : fabs(nd->hi[k] - nd->c[k]);
            r2 += d * d;
        }
        nd->r = sqrt(r2);
    }
    free(area);
    free(cen);
    free(items);
    free(stack);
    return b;
}

void cr_bvh_free(cr_bvh *b) {
    if (b == NULL) return;
    free(b->nodes);
    free(b->tv);
    free(b->pre);
    free(b->box);
    free(b->order);
    free(b->slot_of);
    free(b);
}

/* ---- queries -------------------------------------------------------------------- */

static double box_dist2(const double *box, const double *q) {
    double d2 = 0;
    for (int k = 0; k < 3; ++k) {
        double d = q[k] < box[k] ? box[k] - q[k] : (q[k] > box[3 + k] ? q[k] - box[3 + k] : 0);
        d2 += d * d;
    }
    return d2;
}

/* The nearest triangle nearer than sqrt(best); returns its squared distance
 * (best if none is nearer) and its slot in *slot. */
static double nearest(const cr_bvh *b, const double q[3], double best, uint32_t *slot) {
    /* depth is at most ~2 log2(n) for median splits; 128 covers 2^64 triangles */
    uint32_t stack[128];
    double stack_d[128];
    int sp = 0;
    stack[sp] = 0;
    stack_d[sp++] = box_dist2(b->box, q);
    while (sp > 0) {
        --sp;
        if (stack_d[sp] >= best) continue;
        const bvh_node *nd = &b->nodes[stack[sp]];
        if (nd->count > 0) {
            for (uint32_t i = nd->first; i < nd->first + nd->count; ++i) {
                double d2 = tri_dist2(&b->pre[i], q, best);
                if (d2 < best) {
                    best = d2;
                    *slot = i;
                }
            }
            continue;
        }
        uint32_t l = nd->first, r = nd->first + 1;
        double dl = box_dist2(b->box + 6 * (size_t)l, q), dr = box_dist2(b->box + 6 * (size_t)r, q);
        /* push the farther child first so the nearer one is opened first */
        if (dl <= dr) {
            if (dr < best) stack[sp] = r, stack_d[sp++] = dr;
            if (dl < best) stack[sp] = l, stack_d[sp++] = dl;
        } else {
            if (dl < best) stack[sp] = l, stack_d[sp++] = dl;
            if (dr < best) stack[sp] = r, stack_d[sp++] = dr;
        }
    }
    return best;
}

double cr_bvh_distance(const cr_bvh *b, const double q[3], uint32_t *tri_io) {
    double best = INFINITY;
    uint32_t slot = UINT32_MAX;
    if (tri_io != NULL && *tri_io < b->tri_count) {
        slot = b->slot_of[*tri_io];
        best = tri_dist2(&b->pre[slot], q, INFINITY);
    }
    /* the hint only tightens the first bound: the minimum is the same without it */
    best = nearest(b, q, best, &slot);
    if (tri_io != NULL) *tri_io = slot == UINT32_MAX ? UINT32_MAX : b->order[slot];
    return sqrt(best);
}

double cr_bvh_distance_bounded(const cr_bvh *b, const double q[3], double limit) {
    uint32_t slot = UINT32_MAX;
    double best = nearest(b, q, limit * limit, &slot);
    return slot == UINT32_MAX ? limit : sqrt(best);
}

double cr_bvh_winding(const cr_bvh *b, const double q[3]) {
    uint32_t stack[128];
    int sp = 0;
    stack[sp++] = 0;
    double w = 0;
    while (sp > 0) {
        const bvh_node *nd = &b->nodes[stack[--sp]];
        double d[3] = {nd->c[0] - q[0], nd->c[1] - q[1], nd->c[2] - q[2]};
        double d2 = dot3(d, d);
        if (d2 > (BETA * nd->r) * (BETA * nd->r)) {
            double dist = sqrt(d2);
            w += dot3(d, nd->n) / (4 * PI_D * d2 * dist);
        } else if (nd->count > 0) {
            for (uint32_t i = nd->first; i < nd->first + nd->count; ++i) {
                const double *t = b->tv + 9 * (size_t)i;
                w += tri_winding(q, t, t + 3, t + 6);
            }
        } else {
            stack[sp++] = nd->first + 1;
            stack[sp++] = nd->first;
        }
    }
    return w;
}
