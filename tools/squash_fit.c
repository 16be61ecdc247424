/* squash_fit.c — a skeleton of point primitives fitted to a mesh (squash_fit.h). */
#include "squash_fit.h"
#include "implicit_skeleton.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    FIT_GRID_RES = 48,      /* cells along the mesh's longest side: the balls' resolution */
    FIT_ROUNDS = 48,        /* radius corrections */
    FIT_VERTICES = 3000,    /* at most this many mesh vertices (every k-th) steer the radii */
};

/* A lone point primitive of weight 1 reaches c = 0.5 at K R from its centre:
 * K = sqrt(1 - 0.5^(1/3)). */
#define FIT_K 0.45406842
#define FIT_C 0.5

static cr_vec3 to_real(const double x[3]) {
    return cr_v3(cr_from_float((float)x[0]), cr_from_float((float)x[1]), cr_from_float((float)x[2]));
}

static double dist3(const double a[3], const double b[3]) {
    double d0 = a[0] - b[0], d1 = a[1] - b[1], d2 = a[2] - b[2];
    return sqrt(d0 * d0 + d1 * d1 + d2 * d2);
}

/* the nearest point to x of a point or segment primitive */
static void nearest_on(const cr_cook_primitive *q, const double x[3], double y[3]) {
    memcpy(y, q->a, 3 * sizeof(double));
    if (q->type != CR_SQUASH_SEGMENT) return;
    double d[3] = {q->b[0] - q->a[0], q->b[1] - q->a[1], q->b[2] - q->a[2]};
    double dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    double t = dd > 0 ? ((x[0] - q->a[0]) * d[0] + (x[1] - q->a[1]) * d[1] + (x[2] - q->a[2]) * d[2]) / dd : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    for (int k = 0; k < 3; ++k) y[k] = q->a[k] + t * d[k];
}

/* the primitive whose own skin is nearest x (the sum's skin there is mostly its) */
static uint32_t nearest_skin(const cr_cook_squash *s, const double x[3], double *gap) {
    uint32_t best = 0;
    double bg = 1e300;
    for (uint32_t i = 0; i < s->count; ++i) {
        double y[3];
        nearest_on(&s->prims[i], x, y);
        double g = dist3(x, y) - FIT_K * s->prims[i].radius;
        if (g < bg) bg = g, best = i;
    }
    *gap = bg;
    return best;
}

/* The signed miss of the skin at x: > 0 where x is inside f >= c (the skin
 * lies beyond it), < 0 outside. Where no primitive reaches x (f = 0, no
 * gradient) the nearest primitive's own skin is the estimate. */
static double miss(const cr_cook_squash *s, const cr_squash_primitive *p, const double x[3]) {
    cr_potential f = cri_skeleton_potential(p, s->count, to_real(x));
    double g = cr_to_double(cr_v3_len(f.grad));
    double gap;
    if (g > 1e-9) return cr_to_double(f.f - cr_from_float((float)FIT_C)) / g;
    nearest_skin(s, x, &gap);
    return -gap;
}

void cr_squash_fit_measure(const cr_cook_squash *s, const double *pos, uint32_t n, cr_squash_fit_report *r) {
    double lo[3] = {1e300, 1e300, 1e300}, hi[3] = {-1e300, -1e300, -1e300};
    for (uint32_t v = 0; v < n; ++v)
        for (int k = 0; k < 3; ++k) lo[k] = fmin(lo[k], pos[3 * v + k]), hi[k] = fmax(hi[k], pos[3 * v + k]);
    r->size = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
    r->primitives = s->count;
    r->segments = 0;
    for (uint32_t i = 0; i < s->count; ++i) r->segments += s->prims[i].type == CR_SQUASH_SEGMENT;
    r->mean = r->max = 0;
    cr_squash_primitive *p = malloc(s->count * sizeof *p);
    if (p == NULL || n == 0 || !(r->size > 0)) {
        free(p);
        r->mean = r->max = 1e300;
        return;
    }
    cr_cook_squash_runtime(s, p);
    cr_real c = cr_from_float((float)FIT_C);
    double sum = 0;
    for (uint32_t v = 0; v < n; ++v) {
        /* a point on the skin found from the vertex (Newton along the gradient) bounds the distance from above */
        const double *x = &pos[3 * v];
        cr_vec3 q = to_real(x);
        cr_real cap = cr_from_float((float)(0.02 * r->size));
        for (int k = 0; k < 40; ++k) { /* steps capped: a full step where the gradient is weak lands anywhere */
            cr_potential f = cri_skeleton_potential(p, s->count, q);
            cr_real g2 = cr_v3_len_sq(f.grad);
            if (g2 <= CR_REAL_EPS) break;
            cr_vec3 step = cr_v3_scale(f.grad, cr_div(c - f.f, g2));
            cr_real len = cr_v3_len(step);
            if (len > cap) step = cr_v3_scale(step, cr_div(cap, len));
            q = cr_v3_add(q, step);
        }
        cr_potential f = cri_skeleton_potential(p, s->count, q);
        double g = cr_to_double(cr_v3_len(f.grad)), d;
        if (g > 1e-9 && fabs(cr_to_double(f.f - c)) / g < 1e-4 * r->size) {
            double y[3] = {cr_to_double(q.x), cr_to_double(q.y), cr_to_double(q.z)};
            d = dist3(x, y);
        } else {
            d = fabs(miss(s, p, x)); /* first order, where Newton found no skin */
        }
        sum += d;
        r->max = fmax(r->max, d);
    }
    r->mean = sum / n / r->size;
    r->max /= r->size;
    free(p);
}

/* Rounds of correction, all primitives at once from the last round's
 * skeleton: each takes the mean miss of the vertices whose nearest skin is
 * its own off its skin radius (half of it a round, kept within 1/4..4 times
 * its ball's), and moves its centre by half the mean of those misses along
 * the skin's normal at each vertex (a skin too far out on one side and too
 * far in on the other is a centre off to one side). */
static int refine(cr_cook_squash *s, const double *r0, const double *pos, uint32_t nv, int rounds) {
    cr_squash_primitive *p = malloc(s->count * sizeof *p);
    double *sum = malloc(4 * s->count * sizeof *sum);
    uint32_t *hits = malloc(s->count * sizeof *hits);
    if (p == NULL || sum == NULL || hits == NULL) {
        free(p), free(sum), free(hits);
        return -1;
    }
    uint32_t stride = nv > FIT_VERTICES ? (nv + FIT_VERTICES - 1) / FIT_VERTICES : 1;
    cr_real c = cr_from_float((float)FIT_C);
    for (int round = 0; round < rounds; ++round) {
        cr_cook_squash_runtime(s, p);
        memset(sum, 0, 4 * s->count * sizeof *sum);
        memset(hits, 0, s->count * sizeof *hits);
        for (uint32_t v = 0; v < nv; v += stride) {
            const double *x = &pos[3 * v];
            double gap, m;
            uint32_t i = nearest_skin(s, x, &gap);
            cr_potential f = cri_skeleton_potential(p, s->count, to_real(x));
            double g = cr_to_double(cr_v3_len(f.grad)), n[3];
            if (g > 1e-9) {
                m = cr_to_double(f.f - c) / g;
                n[0] = -cr_to_double(f.grad.x) / g, n[1] = -cr_to_double(f.grad.y) / g, n[2] = -cr_to_double(f.grad.z) / g;
            } else {
                double a[3];
                nearest_on(&s->prims[i], x, a);
                double d = dist3(x, a);
                m = -gap;
                for (int k = 0; k < 3; ++k) n[k] = d > 0 ? (x[k] - a[k]) / d : 0;
            }
            sum[4 * i] += m, ++hits[i];
            for (int k = 0; k < 3; ++k) sum[4 * i + 1 + k] -= m * n[k];
        }
        for (uint32_t i = 0; i < s->count; ++i) {
            if (hits[i] == 0) continue;
            double r = s->prims[i].radius - 0.5 * sum[4 * i] / hits[i] / FIT_K;
            s->prims[i].radius = fmin(4 * r0[i], fmax(0.25 * r0[i], r));
            double mv[3], ml = 0, cap = 0.05 * FIT_K * s->prims[i].radius;
            for (int k = 0; k < 3; ++k) mv[k] = 0.25 * sum[4 * i + 1 + k] / hits[i], ml += mv[k] * mv[k];
            ml = sqrt(ml);
            for (int k = 0; k < 3; ++k) { /* a segment moves whole */
                double step = ml > cap ? mv[k] * cap / ml : mv[k];
                s->prims[i].a[k] += step;
                if (s->prims[i].type == CR_SQUASH_SEGMENT) s->prims[i].b[k] += step;
            }
        }
    }
    free(p), free(sum), free(hits);
    return 0;
}

/* A point primitive whose own skin is the ball of grid node i (at least a
 * cell wide: a node next to the surface still gets one); the nodes in the
 * ball are no longer candidates for the balls taken by size. */
static void add_ball(cr_cook_squash *out, double *r0, const cr_cook_grid *g, size_t i, uint8_t *covered) {
    size_t nx = g->dims[0], ny = g->dims[1], nz = g->dims[2];
    double rad = fmax(-(double)g->values[i], g->cell);
    size_t bx = i % nx, by = i / nx % ny, bz = i / (nx * ny);
    cr_cook_primitive *q = &out->prims[out->count];
    q->type = CR_SQUASH_POINT;
    q->a[0] = g->origin[0] + (double)bx * g->cell, q->a[1] = g->origin[1] + (double)by * g->cell;
    q->a[2] = g->origin[2] + (double)bz * g->cell;
    q->radius = rad / FIT_K;
    q->weight = 1;
    r0[out->count++] = q->radius;
    int span = (int)(rad / g->cell) + 1;
    for (int dz = -span; dz <= span; ++dz)
        for (int dy = -span; dy <= span; ++dy)
            for (int dx = -span; dx <= span; ++dx) {
                long x = (long)bx + dx, y = (long)by + dy, z = (long)bz + dz;
                if (x < 0 || y < 0 || z < 0 || x >= (long)nx || y >= (long)ny || z >= (long)nz) continue;
                if ((double)(dx * dx + dy * dy + dz * dz) * g->cell * g->cell <= rad * rad)
                    covered[(size_t)x + nx * ((size_t)y + ny * (size_t)z)] = 1;
            }
}

/* One skin: the sum's skin holds every primitive's own ball (f >= f_i), so
 * balls that overlap are one piece. A primitive whose ball reaches no ball
 * of the piece around the largest (a small ball a correction shrank off an
 * ear's tip) becomes a segment from its centre to half way into the nearest
 * ball of the piece, whose capsule bridges the gap; nearest first, lowest
 * index on ties. Last: the corrections know points only. */
/* how far apart two primitives' own skins are (< 0: they overlap); a
 * segment is sampled at 9 points, enough for a bridge a few balls long */
static double prim_gap(const cr_cook_primitive *p, const cr_cook_primitive *q) {
    double best = 1e300;
    int n = p->type == CR_SQUASH_SEGMENT ? 9 : 1;
    for (int k = 0; k < n; ++k) {
        double t = n > 1 ? (double)k / (n - 1) : 0, x[3], y[3];
        for (int c = 0; c < 3; ++c) x[c] = p->a[c] + t * (p->type == CR_SQUASH_SEGMENT ? p->b[c] - p->a[c] : 0);
        nearest_on(q, x, y);
        best = fmin(best, dist3(x, y));
    }
    return best - FIT_K * (p->radius + q->radius);
}

static void connect(cr_cook_squash *s) {
    uint32_t n = s->count, big = 0;
    uint8_t *in = calloc(n, 1);
    if (in == NULL) return;
    for (uint32_t i = 1; i < n; ++i)
        if (s->prims[i].radius > s->prims[big].radius) big = i;
    in[big] = 1;
    for (;;) {
        /* grow the piece by overlaps, to a fixed point */
        for (int grew = 1; grew;) {
            grew = 0;
            for (uint32_t i = 0; i < n; ++i)
                for (uint32_t j = 0; j < n && !in[i]; ++j)
                    if (in[j] && prim_gap(&s->prims[i], &s->prims[j]) < -0.1 * FIT_K * (s->prims[i].radius + s->prims[j].radius))
                        in[i] = 1, grew = 1;
        }
        uint32_t bi = n, bj = n;
        double bg = 1e300;
        for (uint32_t i = 0; i < n; ++i)
            for (uint32_t j = 0; j < n && !in[i]; ++j) {
                if (!in[j]) continue;
                double g = prim_gap(&s->prims[i], &s->prims[j]);
                if (g < bg) bg = g, bi = i, bj = j;
            }
        if (bi == n) break;
        /* the point becomes a segment from where it is to half way into the other's ball: it keeps its
         * place (an ear's tip) and the segment's capsule is the bridge */
        cr_cook_primitive *q = &s->prims[bi];
        double b[3];
        nearest_on(&s->prims[bj], q->a, b);
        double d = dist3(q->a, b), t = d > 0 ? 0.5 * FIT_K * s->prims[bj].radius / d : 0;
        /* a point becomes the segment; a segment (an earlier bridge) gets its far end moved */
        q->type = CR_SQUASH_SEGMENT;
        for (int k = 0; k < 3; ++k) q->b[k] = b[k] + (q->a[k] - b[k]) * t;
        in[bi] = 1;
    }
    free(in);
}

/* The grid's inscribed radius at x (the nearest node's: how far x is inside the mesh; <= 0 outside). */
static double inside_at(const cr_cook_grid *g, const double x[3]) {
    long i[3];
    for (int k = 0; k < 3; ++k) {
        double u = (x[k] - g->origin[k]) / g->cell + 0.5;
        i[k] = u < 0 ? 0 : (long)u;
        if (i[k] > (long)g->dims[k] - 1) i[k] = (long)g->dims[k] - 1;
    }
    return -(double)g->values[(size_t)i[0] + g->dims[0] * ((size_t)i[1] + g->dims[1] * (size_t)i[2])];
}

/* Runs of points along a limb as segments: two point primitives whose skins
 * overlap, of radii within 1.35 of each other, with the mesh's inside at least
 * 0.85 of the smaller skin radius all along the line between them (the
 * capsule stays in the mesh), become one segment between their centres with
 * their mean radius; a segment then takes in a further point beyond either end
 * the same way when it lies within 30 degrees of the segment's line (a limb
 * that runs on). Closest pairs first, lowest indices on ties; each primitive
 * once a pass. Returns the primitives freed (the array is compacted). */
static uint32_t merge_limbs(cr_cook_squash *s, double *r0, const cr_cook_grid *g) {
    uint32_t freed = 0;
    for (int grew = 1; grew;) {
        grew = 0;
        double bd = 1e300;
        uint32_t bi = s->count, bj = s->count;
        int bend = 0; /* which end of a segment i moves to j (0: b, 1: a) */
        for (uint32_t i = 0; i < s->count; ++i)
            for (uint32_t j = 0; j < s->count; ++j) {
                const cr_cook_primitive *p = &s->prims[i], *q = &s->prims[j];
                if (i == j || q->type != CR_SQUASH_POINT || (p->type == CR_SQUASH_POINT && j < i)) continue;
                if (p->type != CR_SQUASH_POINT && p->type != CR_SQUASH_SEGMENT) continue;
                double lo = fmin(p->radius, q->radius), hi = fmax(p->radius, q->radius);
                if (hi > 1.35 * lo) continue;
                for (int end = 0; end < (p->type == CR_SQUASH_SEGMENT ? 2 : 1); ++end) {
                    const double *from = p->type == CR_SQUASH_SEGMENT && end == 0 ? p->b : p->a;
                    double d = dist3(from, q->a);
                    if (!(d < FIT_K * (p->radius + q->radius)) || d <= 0) continue;
                    if (p->type == CR_SQUASH_SEGMENT) {
                        /* runs on: q beyond this end, near the segment's line */
                        const double *other = end == 0 ? p->a : p->b;
                        double u[3], v[3], lu = 0, lv = 0, dot = 0;
                        for (int k = 0; k < 3; ++k) u[k] = from[k] - other[k], v[k] = q->a[k] - from[k];
                        for (int k = 0; k < 3; ++k) lu += u[k] * u[k], lv += v[k] * v[k], dot += u[k] * v[k];
                        if (!(lu > 0 && lv > 0) || dot < 0.866 * sqrt(lu * lv)) continue;
                    }
                    bool inside = true;
                    for (int k = 0; k <= 8 && inside; ++k) {
                        double t = k / 8.0, x[3];
                        for (int c = 0; c < 3; ++c) x[c] = from[c] + t * (q->a[c] - from[c]);
                        inside = inside_at(g, x) >= 0.85 * FIT_K * lo;
                    }
                    if (inside && d < bd) bd = d, bi = i, bj = j, bend = end;
                }
            }
        if (bi == s->count) break;
        cr_cook_primitive *p = &s->prims[bi];
        const cr_cook_primitive *q = &s->prims[bj];
        if (p->type == CR_SQUASH_POINT) {
            p->type = CR_SQUASH_SEGMENT;
            memcpy(p->b, q->a, sizeof p->b);
            p->radius = 0.5 * (p->radius + q->radius);
        } else {
            memcpy(bend == 0 ? p->b : p->a, q->a, sizeof p->a);
            p->radius = 0.5 * (p->radius + q->radius);
        }
        r0[bi] = 0.5 * (r0[bi] + r0[bj]);
        memmove(&s->prims[bj], &s->prims[bj + 1], (s->count - bj - 1) * sizeof *s->prims);
        memmove(&r0[bj], &r0[bj + 1], (s->count - bj - 1) * sizeof *r0);
        --s->count, ++freed, grew = 1;
    }
    return freed;
}

/* Primitives up to `count`, one at a time at the largest ball inside the mesh that touches the vertex the skin
 * misses most (ties: the first), a few corrections after each. 0, or -1 out of memory. */
static int add_where_missed(cr_cook_squash *out, double *r0, const cr_cook_grid *gp, const double *pos, uint32_t nv, uint32_t count,
                            uint8_t *covered) {
    const cr_cook_grid g = *gp;
    size_t nx = g.dims[0], ny = g.dims[1], nz = g.dims[2], nodes = nx * ny * nz;
    int rc = 0;
    uint32_t stride = nv > FIT_VERTICES ? (nv + FIT_VERTICES - 1) / FIT_VERTICES : 1;
    while (rc == 0 && out->count < count) {
        /* the vertex farthest outside the skin (ties: the first), and the largest ball inside the mesh that touches it */
        cr_squash_primitive *p = malloc(out->count * sizeof *p);
        if (p == NULL) {
            rc = -1;
            break;
        }
        cr_cook_squash_runtime(out, p);
        uint32_t worst = UINT32_MAX;
        double wm = 0;
        for (uint32_t v = 0; v < nv; v += stride) {
            double m = miss(out, p, &pos[3 * v]);
            if (m < wm) wm = m, worst = v;
        }
        free(p);
        if (worst == UINT32_MAX) break; /* every vertex inside the skin */
        const double *x = &pos[3 * worst];
        size_t best = SIZE_MAX;
        double br = 0;
        for (size_t i = 0; i < nodes; ++i) {
            if (!(g.values[i] < 0) || -(double)g.values[i] <= br) continue;
            double c[3] = {g.origin[0] + (double)(i % nx) * g.cell, g.origin[1] + (double)(i / nx % ny) * g.cell,
                           g.origin[2] + (double)(i / (nx * ny)) * g.cell};
            if (dist3(c, x) <= -(double)g.values[i] + 1.5 * g.cell) br = -(double)g.values[i], best = i;
        }
        if (best == SIZE_MAX) {
            /* no inscribed ball reaches it (a vertex of an open shell, a spout's inner wall): the ball nearest it */
            double bg = 1e300;
            for (size_t i = 0; i < nodes; ++i) {
                if (!(g.values[i] < 0)) continue;
                double c[3] = {g.origin[0] + (double)(i % nx) * g.cell, g.origin[1] + (double)(i / nx % ny) * g.cell,
                               g.origin[2] + (double)(i / (nx * ny)) * g.cell};
                double gap = dist3(c, x) + (double)g.values[i];
                if (gap < bg) bg = gap, best = i;
            }
        }
        if (best == SIZE_MAX) break;
        add_ball(out, r0, gp, best, covered);
        rc |= refine(out, r0, pos, nv, 4);
    }
    return rc;
}

int cr_squash_fit(const double *pos, uint32_t nv, const uint32_t *tri, uint32_t nt, uint32_t count, cr_cook_squash *out,
                  cr_squash_fit_report *report, char *err, size_t en) {
    memset(out, 0, sizeof *out);
    memset(report, 0, sizeof *report);
    if (count == 0 || nv == 0 || nt == 0) {
        snprintf(err, en, "fitting a skeleton needs a mesh and at least one primitive");
        return -1;
    }
    /* the inside, and how far each inside node is from the surface */
    cr_cook_grid g;
    cr_cook_grid_layout(pos, nv, FIT_GRID_RES, 2, &g);
    cr_bvh *bvh = cr_bvh_build(pos, tri, nt);
    double t1, t2;
    if (bvh == NULL || cr_cook_grid_fill(&g, bvh, NULL, NULL, &t1, &t2, NULL) != 0) {
        cr_bvh_free(bvh);
        snprintf(err, en, "out of memory for the fitting grid");
        return -1;
    }
    cr_bvh_free(bvh);
    size_t nx = g.dims[0], ny = g.dims[1], nz = g.dims[2], nodes = nx * ny * nz;
    uint8_t *covered = calloc(nodes, 1);
    out->prims = calloc(count, sizeof *out->prims);
    double *r0 = calloc(count, sizeof *r0);
    if (covered == NULL || out->prims == NULL || r0 == NULL) {
        free(covered), free(r0), cr_cook_grid_free(&g), cr_cook_squash_free(out);
        snprintf(err, en, "out of memory for the fitting grid");
        return -1;
    }
    out->isovalue = FIT_C;
    out->mesh_cells = 48;
    out->mesher = CR_COOK_MESHER_GRID;
    /* greedy balls, largest first, from the nodes no ball holds yet (ties: the lowest node) */
    /* half the primitives by size, the rest where the skin misses the mesh most */
    uint32_t by_size = (count + 1) / 2;
    int rc = 0;
    while (out->count < by_size) {
        size_t best = SIZE_MAX;
        double br = 0;
        for (size_t i = 0; i < nodes; ++i)
            if (!covered[i] && g.values[i] < 0 && -(double)g.values[i] > br) br = -(double)g.values[i], best = i;
        if (best == SIZE_MAX) break;
        add_ball(out, r0, &g, best, covered);
    }
    if (out->count == 0) {
        free(covered), free(r0), cr_cook_grid_free(&g), cr_cook_squash_free(out);
        snprintf(err, en, "the mesh has no inside to fit a skeleton in (not closed, or thinner than its grid's cell)");
        return -1;
    }
    rc |= refine(out, r0, pos, nv, FIT_ROUNDS / 2);
    rc |= add_where_missed(out, r0, &g, pos, nv, count, covered);
    if (rc == 0) rc = refine(out, r0, pos, nv, FIT_ROUNDS);
    /* the same skeleton with runs of points along limbs merged into segments, the primitives freed placed again
     * where the skin misses most: kept if its skin is closer to the mesh (mean distance), else the points' */
    cr_cook_squash merged;
    double *r1 = malloc(count * sizeof *r1);
    memset(&merged, 0, sizeof merged);
    if (rc == 0 && (r1 == NULL || cr_cook_squash_copy(out, &merged, err, en) != 0)) rc = -1;
    if (rc == 0) {
        cr_cook_primitive *grown = realloc(merged.prims, count * sizeof *grown);
        if (grown == NULL) rc = -1;
        else merged.prims = grown;
    }
    uint32_t freed = 0;
    if (rc == 0) {
        memcpy(r1, r0, out->count * sizeof *r1);
        freed = merge_limbs(&merged, r1, &g);
        if (freed > 0) rc |= refine(&merged, r1, pos, nv, 4), rc |= add_where_missed(&merged, r1, &g, pos, nv, count, covered);
        if (freed > 0 && rc == 0) rc = refine(&merged, r1, pos, nv, FIT_ROUNDS);
    }
    free(covered);
    cr_cook_grid_free(&g);
    /* joined, corrected from there, joined again (the corrections may part a piece again) */
    for (int pass = 0; pass < 3 && rc == 0; ++pass) {
        connect(out);
        if (freed > 0) connect(&merged);
        if (pass < 2) rc = refine(out, r0, pos, nv, FIT_ROUNDS / 4);
        if (pass < 2 && freed > 0 && rc == 0) rc = refine(&merged, r1, pos, nv, FIT_ROUNDS / 4);
    }
    if (rc != 0) {
        free(r0), free(r1), cr_cook_squash_free(out), cr_cook_squash_free(&merged);
        snprintf(err, en, "out of memory");
        return -1;
    }
    free(r0), free(r1);
    cr_squash_fit_measure(out, pos, nv, report);
    if (freed > 0) {
        cr_squash_fit_report mr;
        cr_squash_fit_measure(&merged, pos, nv, &mr);
        if (mr.mean < report->mean) {
            cr_cook_squash_free(out);
            *out = merged;
            memset(&merged, 0, sizeof merged);
            *report = mr;
            report->merged = freed;
        }
    }
    cr_cook_squash_free(&merged);
    return 0;
}
