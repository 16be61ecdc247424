/* cook_redistance.c — turn per-node distances and winding numbers into one
 * consistent signed distance field, also for open and non-manifold meshes.
 *
 * The grid's sign is the winding number's (w > 1/2 inside: cook_sdf.c says
 * why), its magnitude the exact distance d to the nearest triangle. For a
 * closed mesh the sign changes only where the surface passes, so d * sign is
 * a signed distance. For an open mesh it also changes across a hole, where
 * no triangle is: two neighbouring nodes in the middle of a cut-off bottom
 * are both far from every triangle yet on opposite sides, and d * sign jumps
 * by twice that distance. The runtime's gradient through such a jump is
 * meaningless and the loader refuses it (CR_ASSET_BAD_SDF).
 *
 * The fix keeps the sign and changes the magnitude to the distance to where
 * the sign changes: the surface, and the "cap" w = 1/2 spans across each
 * hole. On every grid edge whose ends differ in sign and whose distances sum
 * to more than the edge (so no triangle crosses it: the cap does), the cap's
 * point is placed by linear interpolation of w, and each end starts with its
 * distance to it. From these seeds the nearest cap point is propagated over
 * the grid (Danielsson-style vector propagation, a label-correcting Dijkstra
 * over the 26 neighbours in a fixed (distance, node) order), stopping where a
 * triangle is nearer. The value is then sign * min(d, d_cap).
 *
 * Why that is a distance field: d is 1-Lipschitz; the propagation ends with
 * d_cap(y) <= |y - p(x)| <= d_cap(x) + |x - y| for neighbours x, y (else it
 * would have lowered d_cap(y)), or d(y) below that; and across every sign
 * change either the surface passes (d(x) + d(y) <= one edge) or the seeds do
 * (d_cap(x) + d_cap(y) <= one edge). So neighbouring nodes never differ by
 * more than their spacing, as for a closed mesh.
 *
 * Why not a fast-marching solve of |grad phi| = 1 over the whole grid: it
 * would replace the exact distances near the surface with first-order ones,
 * and change the bytes of every closed mesh. Here a closed mesh has no seed
 * and keeps its bytes; only nodes nearer a cap than any triangle change.
 */
#include "cook.h"

#include <math.h>
#include <stdlib.h>

typedef struct heap_item {
    double key;
    uint32_t node;
} heap_item;

typedef struct heap {
    heap_item *item;
    size_t count, capacity;
} heap;

/* (key, node) is a total order, so the pops are the same on every machine */
static int item_less(heap_item a, heap_item b) { return a.key < b.key || (a.key == b.key && a.node < b.node); }

static int heap_push(heap *h, double key, uint32_t node) {
    if (h->count == h->capacity) {
        size_t cap = h->capacity ? 2 * h->capacity : 1024;
        heap_item *grown = realloc(h->item, sizeof(heap_item) * cap);
        if (grown == NULL) return -1;
        h->item = grown, h->capacity = cap;
    }
    size_t i = h->count++;
    heap_item x = {key, node};
    while (i > 0 && item_less(x, h->item[(i - 1) / 2])) {
        h->item[i] = h->item[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->item[i] = x;
    return 0;
}

static heap_item heap_pop(heap *h) {
    heap_item top = h->item[0], last = h->item[--h->count];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->count) break;
        if (c + 1 < h->count && item_less(h->item[c + 1], h->item[c])) ++c;
        if (!item_less(h->item[c], last)) break;
        h->item[i] = h->item[c];
        i = c;
    }
    if (h->count > 0) h->item[i] = last;
    return top;
}

/* distance in cells from node (x, y, z) to point p (grid index coordinates) */
static double cells_to(const double p[3], double x, double y, double z) {
    double dx = x - p[0], dy = y - p[1], dz = z - p[2];
    return sqrt(dx * dx + dy * dy + dz * dz);
}

int cr_cook_redistance(const uint32_t dims[3], double cell, const double *dist, const double *winding, double *value,
                       cr_cook_redistance_report *rep) {
    size_t nx = dims[0], ny = dims[1], nz = dims[2], total = nx * ny * nz;
    const size_t stride[3] = {1, nx, nx * ny};
    rep->cap_edges = 0;
    rep->cap_nodes = 0;
    double *cap = malloc(sizeof(double) * total);       /* distance to the nearest cap point, in cells */
    double *near = malloc(sizeof(double) * 3 * total); /* that point, grid index coordinates */
    heap h = {NULL, 0, 0};
    if (cap == NULL || near == NULL) {
        free(cap), free(near);
        return -1;
    }
    for (size_t i = 0; i < total; ++i) cap[i] = INFINITY;
    int rc = 0;
    /* seeds: sign changes no triangle explains */
    for (size_t z = 0; z < nz && rc == 0; ++z)
        for (size_t y = 0; y < ny && rc == 0; ++y)
            for (size_t x = 0; x < nx && rc == 0; ++x) {
                size_t i = x + nx * (y + ny * z);
                const size_t at[3] = {x, y, z}, n[3] = {nx, ny, nz};
                for (int k = 0; k < 3 && rc == 0; ++k) {
                    if (at[k] + 1 >= n[k]) continue;
                    size_t j = i + stride[k];
                    /* a triangle crossing the edge makes the distances sum to at most the
                     * edge (exactly, which rounding may push a few ulps over): only a
                     * larger sum is a cap. (A cap with a smaller sum, near a rim, needs
                     * no seed: the jump there is at most the edge already.) */
                    if ((winding[i] > 0.5) == (winding[j] > 0.5) || dist[i] + dist[j] <= cell * (1 + 1e-9)) continue;
                    ++rep->cap_edges;
                    double t = (winding[i] - 0.5) / (winding[i] - winding[j]);
                    t = t < 0 ? 0 : (t > 1 ? 1 : t);
                    double p[3] = {(double)x, (double)y, (double)z};
                    p[k] += t;
                    const size_t end[2] = {i, j};
                    const double d[2] = {t, 1 - t};
                    for (int e = 0; e < 2 && rc == 0; ++e) {
                        size_t m = end[e];
                        if (d[e] < cap[m] && d[e] * cell < dist[m]) {
                            cap[m] = d[e];
                            for (int c = 0; c < 3; ++c) near[3 * m + c] = p[c];
                            rc = heap_push(&h, d[e], (uint32_t)m);
                        }
                    }
                }
            }
    /* propagate each node's nearest cap point to its 26 neighbours while it is nearer than every triangle */
    while (rc == 0 && h.count > 0) {
        heap_item top = heap_pop(&h);
        size_t i = top.node;
        if (top.key != cap[i]) continue; /* a later, nearer point replaced this one */
        size_t x = i % nx, y = (i / nx) % ny, z = i / (nx * ny);
        const double *p = near + 3 * i;
        for (int dz = -1; dz <= 1 && rc == 0; ++dz)
            for (int dy = -1; dy <= 1 && rc == 0; ++dy)
                for (int dx = -1; dx <= 1 && rc == 0; ++dx) {
                    if ((dx == 0 && dy == 0 && dz == 0) || (dx < 0 && x == 0) || (dy < 0 && y == 0) || (dz < 0 && z == 0) ||
                        (dx > 0 && x + 1 == nx) || (dy > 0 && y + 1 == ny) || (dz > 0 && z + 1 == nz))
                        continue;
                    size_t m = (size_t)((ptrdiff_t)i + dx + (ptrdiff_t)nx * (dy + (ptrdiff_t)ny * dz));
                    double c = cells_to(p, (double)(x + dx), (double)(y + dy), (double)(z + dz));
                    if (c < cap[m] && c * cell < dist[m]) {
                        cap[m] = c;
                        for (int k = 0; k < 3; ++k) near[3 * m + k] = p[k];
                        rc = heap_push(&h, c, (uint32_t)m);
                    }
                }
    }
    if (rc == 0)
        for (size_t i = 0; i < total; ++i) {
            double d = dist[i];
            if (cap[i] * cell < d) d = cap[i] * cell, ++rep->cap_nodes;
            value[i] = winding[i] > 0.5 ? -d : d;
        }
    free(h.item);
    free(cap);
    free(near);
    return rc;
}
