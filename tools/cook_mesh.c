/* cook_mesh.c — from raw OBJ soup to a clean mesh, with an honest report.
 *
 * Real-world meshes come with duplicated vertices (one per UV seam or per
 * face), degenerate slivers, repeated faces, holes and stray pieces. The
 * cooker repairs what has one right answer (welding exact or near duplicates,
 * dropping zero-area and repeated triangles, dropping unused vertices,
 * reversing an inside-out mesh) and counts what has not (holes, non-manifold
 * edges, separate components), so the user sees it instead of a silently
 * "fixed" shape.
 *
 * Notes
 *   - Welding within a distance sorts vertices by grid cell (cell = distance);
 *     a vertex joins the first earlier representative within the distance,
 *     scanning the 27 cells around it in a fixed order, so the result depends
 *     only on the input order.
 *   - A triangle is degenerate when its area is below 1e-12 of the squared
 *     bounding-box diagonal: that is rounding noise, not geometry.
 *   - Edges used twice in the same direction (two faces disagreeing about
 *     orientation) are counted as non-manifold: the surface formulas for
 *     volume need consistent orientation, so such a mesh is not "closed".
 */
#include "cook.h"
#include "crumple/asset.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail_msg(char *err, size_t n, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int fail_msg(char *err, size_t n, const char *fmt, ...) {
    if (err != NULL && n > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, n, fmt, ap);
        va_end(ap);
    }
    return -1;
}

double cr_cook_signed_volume(const double *pos, const uint32_t *tri, uint32_t triangle_count) {
    /* relative to the first vertex, to keep the terms small */
    const double *o = pos + 3 * (size_t)tri[0];
    double v6 = 0;
    for (uint32_t t = 0; t < triangle_count; ++t) {
        const double *a = pos + 3 * (size_t)tri[3 * t], *b = pos + 3 * (size_t)tri[3 * t + 1], *c = pos + 3 * (size_t)tri[3 * t + 2];
        double ax = a[0] - o[0], ay = a[1] - o[1], az = a[2] - o[2];
        double bx = b[0] - o[0], by = b[1] - o[1], bz = b[2] - o[2];
        double cx = c[0] - o[0], cy = c[1] - o[1], cz = c[2] - o[2];
        v6 += ax * (by * cz - bz * cy) + ay * (bz * cx - bx * cz) + az * (bx * cy - by * cx);
    }
    return v6 / 6.0;
}

/* ---- welding ---------------------------------------------------------------- */

static const double *vp(const double *pos, uint32_t i) { return pos + 3 * (size_t)i; }

static int cmp_pos_idx(const void *pa, const void *pb, const double *pos) {
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    for (int k = 0; k < 3; ++k) {
        double x = vp(pos, a)[k], y = vp(pos, b)[k];
        if (x < y) return -1;
        if (x > y) return 1;
    }
    return (a > b) - (a < b);
}

/* qsort has no context argument in C11: a file-local pointer for the one sort
 * that needs it (tools are single-threaded). */
static const double *sort_pos;
static int cmp_pos_idx_q(const void *a, const void *b) { return cmp_pos_idx(a, b, sort_pos); }

typedef struct weld_cell {
    int64_t key[3];
    uint32_t v;
} weld_cell;

static int cmp_cell(const void *pa, const void *pb) {
    const weld_cell *a = pa, *b = pb;
    for (int k = 0; k < 3; ++k)
        if (a->key[k] != b->key[k]) return a->key[k] < b->key[k] ? -1 : 1;
    return (a->v > b->v) - (a->v < b->v);
}

/* Grid cell of a coordinate; clamped so a tiny distance cannot overflow the cast. */
static int64_t cell_index(double x, double dist) {
    double c = floor(x / dist);
    return c > 4e18 ? (int64_t)4e18 : (c < -4e18 ? -(int64_t)4e18 : (int64_t)c);
}

/* rep[i] = the vertex i is merged into (rep[i] <= i). Returns merges. */
static uint32_t weld(const double *pos, uint32_t n, double dist, uint32_t *rep) {
    uint32_t merged = 0;
    if (dist <= 0) {
        uint32_t *order = malloc(sizeof(uint32_t) * n);
        for (uint32_t i = 0; i < n; ++i) order[i] = i;
        sort_pos = pos;
        qsort(order, n, sizeof(uint32_t), cmp_pos_idx_q);
        for (uint32_t i = 0; i < n;) {
            uint32_t j = i + 1;
            while (j < n && memcmp(vp(pos, order[i]), vp(pos, order[j]), sizeof(double) * 3) == 0) ++j;
            /* within a run of equal positions, order[i] is the lowest index */
            for (uint32_t k = i; k < j; ++k) rep[order[k]] = order[i];
            merged += j - i - 1;
            i = j;
        }
        free(order);
        return merged;
    }
    /* Near-duplicates: vertices sorted by grid cell (cell = the distance), so
     * the candidates of a vertex are found by binary search in the 27 cells
     * around it. (No hash table: its iteration order and hashing would be
     * one more thing to keep deterministic.) */
    weld_cell *cells = malloc(sizeof(weld_cell) * n);
    for (uint32_t i = 0; i < n; ++i) {
        const double *p = vp(pos, i);
        for (int k = 0; k < 3; ++k) cells[i].key[k] = cell_index(p[k], dist);
        cells[i].v = i;
    }
    qsort(cells, n, sizeof(weld_cell), cmp_cell);
    double d2 = dist * dist;
    for (uint32_t i = 0; i < n; ++i) {
        const double *p = vp(pos, i);
        int64_t k0[3] = {cell_index(p[0], dist), cell_index(p[1], dist), cell_index(p[2], dist)};
        uint32_t found = UINT32_MAX;
        for (int dz = -1; dz <= 1 && found == UINT32_MAX; ++dz)
            for (int dy = -1; dy <= 1 && found == UINT32_MAX; ++dy)
                for (int dx = -1; dx <= 1 && found == UINT32_MAX; ++dx) {
                    weld_cell probe = {{k0[0] + dx, k0[1] + dy, k0[2] + dz}, 0};
                    /* first entry of the cell: lower bound on (key, vertex 0) */
                    size_t lo = 0, hi = n;
                    while (lo < hi) {
                        size_t mid = (lo + hi) / 2;
                        if (cmp_cell(&cells[mid], &probe) < 0)
                            lo = mid + 1;
                        else
                            hi = mid;
                    }
                    for (size_t m = lo; m < n && memcmp(cells[m].key, probe.key, sizeof probe.key) == 0; ++m) {
                        uint32_t j = cells[m].v;
                        if (j >= i) break; /* entries of a cell are in vertex order: only earlier ones */
                        if (rep[j] != j) continue;
                        const double *q = vp(pos, j);
                        double ex = p[0] - q[0], ey = p[1] - q[1], ez = p[2] - q[2];
                        if (ex * ex + ey * ey + ez * ez <= d2) {
                            found = j;
                            break;
                        }
                    }
                }
        rep[i] = found != UINT32_MAX ? found : i;
        merged += found != UINT32_MAX;
    }
    free(cells);
    return merged;
}

/* ---- triangle keys ----------------------------------------------------------- */

typedef struct tri_key {
    uint32_t v[3]; /* sorted */
    uint32_t t;
} tri_key;

static int cmp_tri_key(const void *pa, const void *pb) {
    const tri_key *a = pa, *b = pb;
    for (int k = 0; k < 3; ++k)
        if (a->v[k] != b->v[k]) return a->v[k] < b->v[k] ? -1 : 1;
    return (a->t > b->t) - (a->t < b->t);
}

typedef struct edge_rec {
    uint32_t lo, hi;
    uint32_t forward; /* 1 if the triangle walks lo -> hi */
    uint32_t t;
} edge_rec;

static int cmp_edge(const void *pa, const void *pb) {
    const edge_rec *a = pa, *b = pb;
    if (a->lo != b->lo) return a->lo < b->lo ? -1 : 1;
    if (a->hi != b->hi) return a->hi < b->hi ? -1 : 1;
    return (a->t > b->t) - (a->t < b->t);
}

static uint32_t uf_find(uint32_t *parent, uint32_t x) {
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

static void uf_union(uint32_t *parent, uint32_t a, uint32_t b) {
    a = uf_find(parent, a);
    b = uf_find(parent, b);
    /* the smaller index is the root: independent of union order */
    if (a < b)
        parent[b] = a;
    else if (b < a)
        parent[a] = b;
}

/* Boundary, non-manifold and misoriented edge counts, and the holes: loops of
 * boundary edges joined at their vertices. */
static void count_edges(const uint32_t *tri, uint32_t nt, uint32_t *boundary, uint32_t *nonmanifold, uint32_t *holes,
                        uint32_t nv) {
    uint32_t *loop = malloc(sizeof(uint32_t) * nv);
    uint8_t *on = calloc(nv, 1);
    for (uint32_t i = 0; i < nv; ++i) loop[i] = i;
    edge_rec *e = malloc(sizeof(edge_rec) * 3 * (size_t)nt);
    for (uint32_t t = 0; t < nt; ++t)
        for (int k = 0; k < 3; ++k) {
            uint32_t a = tri[3 * t + k], b = tri[3 * t + (k + 1) % 3];
            edge_rec r = {a < b ? a : b, a < b ? b : a, a < b, t};
            e[3 * (size_t)t + k] = r;
        }
    size_t ne = 3 * (size_t)nt;
    qsort(e, ne, sizeof(edge_rec), cmp_edge);
    *boundary = 0;
    *nonmanifold = 0;
    for (size_t i = 0; i < ne;) {
        size_t j = i + 1;
        while (j < ne && e[j].lo == e[i].lo && e[j].hi == e[i].hi) ++j;
        size_t c = j - i;
        if (c == 1) {
            ++*boundary;
            uf_union(loop, e[i].lo, e[i].hi);
            on[e[i].lo] = on[e[i].hi] = 1;
        }
        else if (c > 2 || e[i].forward == e[i + 1].forward)
            ++*nonmanifold;
        i = j;
    }
    free(e);
    *holes = 0;
    for (uint32_t i = 0; i < nv; ++i) *holes += on[i] && uf_find(loop, i) == i;
    free(loop);
    free(on);
}

int cr_cook_clean(const cr_obj *obj, const cr_cook_options *opt, cr_cook_mesh *out, char *err, size_t err_size) {
    memset(out, 0, sizeof *out);
    uint32_t n = obj->vertex_count, nt = obj->triangle_count;
    if (n == 0 || nt == 0) return fail_msg(err, err_size, "mesh has no vertices or no faces");
    if (!(opt->scale > 0) || !isfinite(opt->scale)) return fail_msg(err, err_size, "--scale must be a positive number");
    double *pos = malloc(sizeof(double) * 3 * (size_t)n);
    uint32_t *rep = malloc(sizeof(uint32_t) * n);
    uint32_t *tri = malloc(sizeof(uint32_t) * 3 * (size_t)nt);
    uint8_t *used = calloc(n, 1);
    if (!pos || !rep || !tri || !used) {
        free(pos), free(rep), free(tri), free(used);
        return fail_msg(err, err_size, "out of memory");
    }

    /* frame: scale, then normalise and recentre from the used vertices' box */
    double s = opt->scale, o[3] = {0, 0, 0};
    for (uint32_t t = 0; t < 3 * nt; ++t) used[obj->tri[t]] = 1;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t i = 0; i < n; ++i) {
        if (!used[i]) continue;
        for (int k = 0; k < 3; ++k) {
            double x = obj->pos[3 * (size_t)i + k] * s;
            lo[k] = x < lo[k] ? x : lo[k];
            hi[k] = x > hi[k] ? x : hi[k];
        }
    }
    double longest = 0;
    for (int k = 0; k < 3; ++k) longest = hi[k] - lo[k] > longest ? hi[k] - lo[k] : longest;
    if (!(longest > 0) || !isfinite(longest)) {
        free(pos), free(rep), free(tri), free(used);
        return fail_msg(err, err_size, "mesh is flat in every direction (all faces at one point)");
    }
    if (opt->normalise > 0) {
        double f = opt->normalise / longest;
        s *= f;
        for (int k = 0; k < 3; ++k) lo[k] *= f, hi[k] *= f;
        longest = opt->normalise;
    }
    if (opt->recentre)
        for (int k = 0; k < 3; ++k) o[k] = -0.5 * (lo[k] + hi[k]);
    for (uint32_t i = 0; i < n; ++i)
        for (int k = 0; k < 3; ++k) pos[3 * (size_t)i + k] = obj->pos[3 * (size_t)i + k] * s + o[k];
    out->frame_s = s;
    memcpy(out->frame_o, o, sizeof o);
    for (int k = 0; k < 3; ++k) {
        double m = fabs(lo[k] + o[k]) > fabs(hi[k] + o[k]) ? fabs(lo[k] + o[k]) : fabs(hi[k] + o[k]);
        if (m >= CR_ASSET_MAX_COORD / 4) {
            free(pos), free(rep), free(tri), free(used);
            return fail_msg(err, err_size, "coordinates up to %g are too large for the runtime (limit %g); use --scale or --recentre",
                            m, CR_ASSET_MAX_COORD / 4);
        }
    }

    out->welded_vertices = weld(pos, n, opt->weld_distance, rep);

    /* remap, drop triangles with a repeated corner or no area */
    double diag2 = 0;
    for (int k = 0; k < 3; ++k) diag2 += (hi[k] - lo[k]) * (hi[k] - lo[k]);
    double min_area2 = (1e-12 * diag2) * (1e-12 * diag2);
    uint32_t kept = 0;
    for (uint32_t t = 0; t < nt; ++t) {
        uint32_t a = rep[obj->tri[3 * t]], b = rep[obj->tri[3 * t + 1]], c = rep[obj->tri[3 * t + 2]];
        if (a == b || b == c || a == c) continue;
        const double *pa = vp(pos, a), *pb = vp(pos, b), *pc = vp(pos, c);
        double e1[3] = {pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]};
        double e2[3] = {pc[0] - pa[0], pc[1] - pa[1], pc[2] - pa[2]};
        double cx = e1[1] * e2[2] - e1[2] * e2[1], cy = e1[2] * e2[0] - e1[0] * e2[2], cz = e1[0] * e2[1] - e1[1] * e2[0];
        if (0.25 * (cx * cx + cy * cy + cz * cz) <= min_area2 && !opt->keep_slivers) continue;
        tri[3 * kept] = a, tri[3 * kept + 1] = b, tri[3 * kept + 2] = c;
        ++kept;
    }
    /* drop repeated triangles (same three corners, either orientation), keeping the first */
    tri_key *keys = malloc(sizeof(tri_key) * (kept ? kept : 1));
    for (uint32_t t = 0; t < kept; ++t) {
        uint32_t v0 = tri[3 * t], v1 = tri[3 * t + 1], v2 = tri[3 * t + 2], x;
        if (v0 > v1) x = v0, v0 = v1, v1 = x;
        if (v1 > v2) x = v1, v1 = v2, v2 = x;
        if (v0 > v1) x = v0, v0 = v1, v1 = x;
        tri_key k = {{v0, v1, v2}, t};
        keys[t] = k;
    }
    qsort(keys, kept, sizeof(tri_key), cmp_tri_key);
    uint8_t *dup = calloc(kept ? kept : 1, 1);
    for (uint32_t i = 1; i < kept; ++i)
        if (memcmp(keys[i].v, keys[i - 1].v, sizeof keys[i].v) == 0) dup[keys[i].t] = 1;
    free(keys);
    uint32_t kept2 = 0;
    for (uint32_t t = 0; t < kept; ++t) {
        if (dup[t]) continue;
        memmove(tri + 3 * kept2, tri + 3 * t, 3 * sizeof(uint32_t));
        ++kept2;
    }
    free(dup);
    out->dropped_triangles = nt - kept2;
    if (kept2 == 0) {
        free(pos), free(rep), free(tri), free(used);
        return fail_msg(err, err_size, "every triangle is degenerate (zero area or repeated corners)");
    }

    /* keep only used vertices, in their original order */
    memset(used, 0, n);
    for (uint32_t t = 0; t < 3 * kept2; ++t) used[tri[t]] = 1;
    uint32_t nv = 0;
    for (uint32_t i = 0; i < n; ++i) rep[i] = used[i] ? nv++ : UINT32_MAX;
    if (nv > CR_ASSET_MAX_VERTICES || kept2 > CR_ASSET_MAX_TRIANGLES) {
        free(pos), free(rep), free(tri), free(used);
        return fail_msg(err, err_size, "mesh too large for the format: %u vertices (max %u), %u triangles (max %u)", nv,
                        CR_ASSET_MAX_VERTICES, kept2, CR_ASSET_MAX_TRIANGLES);
    }
    out->pos = malloc(sizeof(double) * 3 * (size_t)nv);
    for (uint32_t i = 0; i < n; ++i)
        if (used[i]) memcpy(out->pos + 3 * (size_t)rep[i], pos + 3 * (size_t)i, sizeof(double) * 3);
    for (uint32_t t = 0; t < 3 * kept2; ++t) tri[t] = rep[tri[t]];
    out->tri = realloc(tri, sizeof(uint32_t) * 3 * (size_t)kept2);
    out->vertex_count = nv;
    out->triangle_count = kept2;
    free(pos), free(rep), free(used);

    uint32_t *parent = malloc(sizeof(uint32_t) * nv);
    for (uint32_t i = 0; i < nv; ++i) parent[i] = i;
    for (uint32_t t = 0; t < kept2; ++t) {
        uf_union(parent, out->tri[3 * t], out->tri[3 * t + 1]);
        uf_union(parent, out->tri[3 * t], out->tri[3 * t + 2]);
    }
    out->components = 0;
    for (uint32_t i = 0; i < nv; ++i)
        if (uf_find(parent, i) == i) ++out->components;
    for (uint32_t i = 0; i < nv; ++i) parent[i] = uf_find(parent, i);
    int rc = cr_cook_orient_shells(out, parent);
    free(parent);
    if (rc != 0) {
        cr_cook_mesh_free(out);
        return fail_msg(err, err_size, "out of memory");
    }
    /* counted after orienting: an edge two faces walked the same way is fine once one of them is turned */
    count_edges(out->tri, kept2, &out->boundary_edges, &out->nonmanifold_edges, &out->holes, nv);
    out->flipped = out->flipped_shells > 0;
    return 0;
}

void cr_cook_mesh_free(cr_cook_mesh *m) {
    free(m->pos);
    free(m->tri);
    memset(m, 0, sizeof *m);
}
