/* cook_surface.c — what the runtime needs about the surface besides triangles:
 * vertex normals, collision sample points, one-ring adjacency and geodesic
 * neighbourhoods.
 *
 * Sample points (seed 002 tests the vertices of one body against the other's
 * distance grid). A dense scan has far more vertices than a contact needs, so
 * with a cap the cooker keeps a farthest-point subset: each next sample is
 * the vertex farthest from all samples so far. That keeps coverage even
 * (thin parts and tips are never all dropped), and the order is progressive:
 * any prefix of the list is itself a well-spread subset, so the runtime can
 * use fewer samples for a distant or low-priority body.
 *
 * Geodesic lists (seed 001 §3.2.2 spreads example-weight changes over
 * "approximate geodesic distances, computed using a few passes of
 * Dijkstra's algorithm"): for every vertex, Dijkstra over mesh edges from it,
 * stopping at the radius or when the list is full. Lists are nearest first;
 * ties in distance go to the lower vertex index, so the lists are the same
 * on every machine.
 *
 * Per-vertex lists grow as vertices x vertices within the radius: the car's
 * full-length lists were 5.5 MB of its 5.7 MB at 848 vertices. With
 * --geodesic-patch P the vertices are first grouped into patches (each
 * vertex within P, along edges, of its patch's centre), and there is one
 * list per patch, from its centre, the centre included. The runtime takes a
 * vertex's distance to w as its centre's, which is off by at most the
 * vertex's own distance to the centre (the triangle inequality both ways),
 * so at most P; the lists shrink by the patches' size.
 */
#include "cook.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double edge_len(const double *pos, uint32_t a, uint32_t b) {
    double d[3] = {pos[3 * (size_t)a] - pos[3 * (size_t)b], pos[3 * (size_t)a + 1] - pos[3 * (size_t)b + 1],
                   pos[3 * (size_t)a + 2] - pos[3 * (size_t)b + 2]};
    return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* ---- a binary heap of (distance, vertex), smallest first, ties by vertex ---- */

typedef struct heap_item {
    double d;
    uint32_t v;
} heap_item;

static int item_less(heap_item a, heap_item b) { return a.d < b.d || (a.d == b.d && a.v < b.v); }

static void heap_push(heap_item *h, size_t *n, heap_item it) {
    size_t i = (*n)++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!item_less(it, h[p])) break;
        h[i] = h[p];
        i = p;
    }
    h[i] = it;
}

static heap_item heap_pop(heap_item *h, size_t *n) {
    heap_item top = h[0], last = h[--*n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= *n) break;
        if (c + 1 < *n && item_less(h[c + 1], h[c])) ++c;
        if (!item_less(h[c], last)) break;
        h[i] = h[c];
        i = c;
    }
    if (*n > 0) h[i] = last;
    return top;
}

/* ---- geodesic lists ------------------------------------------------------------ */

/* Work arrays of the Dijkstra searches; stamp[v] == run marks "seen in this
 * run", so nothing is cleared between sources. */
typedef struct geo_search {
    double *dist;
    uint32_t *stamp;
    uint8_t *done;
    heap_item *heap; /* adj_count + 1: at most one live entry per edge relaxation */
    uint32_t run;
} geo_search;

/* One list: Dijkstra over edges from src, nearest first, up to radius and at
 * most maxn entries; src itself is the first entry when `self` (a patch's
 * list, read by every vertex of the patch), left out otherwise. */
static uint32_t geo_list(const cr_cook_surface *s, const double *pos, uint32_t src, bool self, double radius, uint32_t maxn,
                         geo_search *w, uint32_t *out_v, float *out_d) {
    if (maxn == 0) return 0;
    uint32_t run = ++w->run, found = 0;
    size_t hn = 0;
    w->stamp[src] = run;
    w->dist[src] = 0;
    w->done[src] = 0;
    heap_item first = {0, src};
    heap_push(w->heap, &hn, first);
    while (hn > 0 && found < maxn) {
        heap_item it = heap_pop(w->heap, &hn);
        if (w->done[it.v] || it.d > w->dist[it.v]) continue;
        w->done[it.v] = 1;
        if (self || it.v != src) {
            out_v[found] = it.v;
            out_d[found] = (float)it.d;
            ++found;
        }
        for (uint32_t k = s->adj_start[it.v]; k < s->adj_start[it.v + 1]; ++k) {
            uint32_t u = s->adj[k];
            double nd = it.d + edge_len(pos, it.v, u);
            if (nd > radius) continue;
            if (w->stamp[u] != run) {
                w->stamp[u] = run;
                w->done[u] = 0;
                w->dist[u] = INFINITY;
            }
            if (!w->done[u] && nd < w->dist[u]) {
                w->dist[u] = nd;
                heap_item ni = {nd, u};
                if (hn < (size_t)s->adj_count + 1) heap_push(w->heap, &hn, ni);
            }
        }
    }
    return found;
}

/* Patches for compact lists: farthest-point centres (each next centre is the
 * vertex farthest, along edges, from every centre so far; the lowest index on
 * ties, so every machine picks the same) until every vertex is within
 * `reach` of one; a vertex belongs to its nearest centre (the earlier centre
 * on ties). Each new centre is one Dijkstra that only goes where it is
 * nearer than the centres before it. Returns the patch count; *far gets the
 * farthest vertex's distance from its centre. */
static uint32_t make_patches(const cr_cook_surface *s, const double *pos, uint32_t nv, double reach, geo_search *w,
                             uint32_t *centre, uint32_t *patch, double *far) {
    double *off = w->dist; /* distance to the nearest centre so far */
    for (uint32_t v = 0; v < nv; ++v) off[v] = INFINITY, patch[v] = 0;
    uint32_t count = 0;
    for (;;) {
        uint32_t c = 0;
        for (uint32_t v = 1; v < nv; ++v)
            if (off[v] > off[c]) c = v;
        if (off[c] <= reach) {
            *far = off[c];
            break;
        }
        uint32_t k = count++;
        centre[k] = c;
        off[c] = 0;
        patch[c] = k;
        size_t hn = 0;
        heap_item first = {0, c};
        heap_push(w->heap, &hn, first);
        while (hn > 0) {
            heap_item it = heap_pop(w->heap, &hn);
            if (it.d > off[it.v]) continue;
            for (uint32_t e = s->adj_start[it.v]; e < s->adj_start[it.v + 1]; ++e) {
                uint32_t u = s->adj[e];
                double nd = it.d + edge_len(pos, it.v, u);
                if (nd < off[u]) {
                    off[u] = nd;
                    patch[u] = k;
                    heap_item ni = {nd, u};
                    if (hn < (size_t)s->adj_count + 1) heap_push(w->heap, &hn, ni);
                }
            }
        }
    }
    return count;
}

int cr_cook_surface_build(const cr_cook_mesh *m, const cr_cook_options *opt, double bound_radius, cr_cook_surface *s,
                          cr_cook_progress *prog) {
    memset(s, 0, sizeof *s);
    uint32_t nv = m->vertex_count, nt = m->triangle_count;
    const double *pos = m->pos;

    /* area-weighted normals (the cross product's length is twice the area) */
    double *acc = calloc(3 * (size_t)nv, sizeof(double));
    s->normals = malloc(sizeof(float) * 3 * (size_t)nv);
    double area = 0;
    for (uint32_t t = 0; t < nt; ++t) {
        const uint32_t *v = m->tri + 3 * (size_t)t;
        const double *a = pos + 3 * (size_t)v[0], *b = pos + 3 * (size_t)v[1], *c = pos + 3 * (size_t)v[2];
        double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        area += 0.5 * sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        for (int k = 0; k < 3; ++k)
            for (int j = 0; j < 3; ++j) acc[3 * (size_t)v[k] + j] += n[j];
    }
    s->area = area;
    for (uint32_t i = 0; i < nv; ++i) {
        double *n = acc + 3 * (size_t)i;
        double l = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        if (l > 0) {
            for (int k = 0; k < 3; ++k) s->normals[3 * (size_t)i + k] = (float)(n[k] / l);
        } else {
            /* faces around the vertex cancel out (a folded sheet): point away from the centre */
            const double *p = pos + 3 * (size_t)i;
            double pl = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
            for (int k = 0; k < 3; ++k) s->normals[3 * (size_t)i + k] = pl > 0 ? (float)(p[k] / pl) : (k == 1 ? 1.0f : 0.0f);
        }
    }
    free(acc);

    /* samples: every vertex, or a farthest-point subset */
    uint32_t cap = opt->max_samples == 0 || opt->max_samples > nv ? nv : opt->max_samples;
    s->sample_count = cap;
    s->sample_vertex = malloc(sizeof(uint32_t) * cap);
    if (cap == nv) {
        for (uint32_t i = 0; i < nv; ++i) s->sample_vertex[i] = i;
    } else {
        double *d2 = malloc(sizeof(double) * nv);
        /* start at the vertex farthest from the centre of mass (the origin) */
        uint32_t cur = 0;
        double best = -1;
        for (uint32_t i = 0; i < nv; ++i) {
            const double *p = pos + 3 * (size_t)i;
            double r = p[0] * p[0] + p[1] * p[1] + p[2] * p[2];
            if (r > best) best = r, cur = i;
            d2[i] = INFINITY;
        }
        for (uint32_t k = 0; k < cap; ++k) {
            if (prog && (k & 63) == 0) cr_cook_progress_update(prog, 0.5 * k / cap);
            s->sample_vertex[k] = cur;
            const double *c = pos + 3 * (size_t)cur;
            uint32_t next = 0;
            double far = -1;
            for (uint32_t i = 0; i < nv; ++i) {
                const double *p = pos + 3 * (size_t)i;
                double e = (p[0] - c[0]) * (p[0] - c[0]) + (p[1] - c[1]) * (p[1] - c[1]) + (p[2] - c[2]) * (p[2] - c[2]);
                if (e < d2[i]) d2[i] = e;
                if (d2[i] > far) far = d2[i], next = i;
            }
            cur = next;
        }
        free(d2);
    }

    /* one-ring adjacency: both directions of every edge, sorted, unique */
    uint32_t *deg = calloc((size_t)nv + 1, sizeof(uint32_t));
    for (uint32_t t = 0; t < 3 * nt; ++t) deg[m->tri[t]] += 2;
    uint32_t *start = malloc(sizeof(uint32_t) * ((size_t)nv + 1));
    start[0] = 0;
    for (uint32_t i = 0; i < nv; ++i) start[i + 1] = start[i] + deg[i];
    uint32_t *tmp = malloc(sizeof(uint32_t) * ((size_t)start[nv] + 1));
    memset(deg, 0, sizeof(uint32_t) * nv);
    for (uint32_t t = 0; t < nt; ++t)
        for (int k = 0; k < 3; ++k) {
            uint32_t a = m->tri[3 * t + k], b = m->tri[3 * t + (k + 1) % 3];
            tmp[start[a] + deg[a]++] = b;
            tmp[start[b] + deg[b]++] = a;
        }
    s->adj_start = malloc(sizeof(uint32_t) * ((size_t)nv + 1));
    s->adj = malloc(sizeof(uint32_t) * ((size_t)start[nv] + 1));
    uint32_t out = 0;
    for (uint32_t i = 0; i < nv; ++i) {
        s->adj_start[i] = out;
        uint32_t *list = tmp + start[i];
        qsort(list, deg[i], sizeof(uint32_t), cmp_u32);
        for (uint32_t k = 0; k < deg[i]; ++k)
            if (k == 0 || list[k] != list[k - 1]) s->adj[out++] = list[k];
    }
    s->adj_start[nv] = out;
    s->adj_count = out;
    free(tmp), free(start), free(deg);

    /* geodesic lists */
    double radius = opt->geodesic_radius > 0 ? opt->geodesic_radius : 0.25 * bound_radius;
    s->geo_radius = radius;
    uint32_t maxn = opt->geodesic_max;
    geo_search gs = {malloc(sizeof(double) * nv), calloc(nv, sizeof(uint32_t)), calloc(nv, 1),
                     malloc(sizeof(heap_item) * ((size_t)s->adj_count + 1)), 0};
    uint32_t *centre = NULL, lists = nv;
    if (opt->geodesic_patch > 0) {
        centre = malloc(sizeof(uint32_t) * nv);
        s->geo_patch = malloc(sizeof(uint32_t) * nv);
        lists = s->geo_patch_count = make_patches(s, pos, nv, opt->geodesic_patch, &gs, centre, s->geo_patch, &s->geo_patch_radius);
    }
    s->geo_start = malloc(sizeof(uint32_t) * ((size_t)lists + 1));
    s->geo = malloc(sizeof(uint32_t) * ((size_t)lists * maxn + 1));
    s->geo_dist = malloc(sizeof(float) * ((size_t)lists * maxn + 1));
    uint32_t g = 0;
    for (uint32_t l = 0; l < lists; ++l) {
        if (prog && (l & 1023) == 0) cr_cook_progress_update(prog, 0.5 + 0.5 * l / lists);
        s->geo_start[l] = g;
        g += geo_list(s, pos, centre ? centre[l] : l, centre != NULL, radius, maxn, &gs, s->geo + g, s->geo_dist + g);
    }
    s->geo_start[lists] = g;
    s->geo_count = g;
    free(centre);
    free(gs.dist), free(gs.stamp), free(gs.done), free(gs.heap);
    return 0;
}

void cr_cook_surface_free(cr_cook_surface *s) {
    free(s->normals);
    free(s->sample_vertex);
    free(s->adj_start);
    free(s->adj);
    free(s->geo_start);
    free(s->geo);
    free(s->geo_dist);
    free(s->geo_patch);
    memset(s, 0, sizeof *s);
}
