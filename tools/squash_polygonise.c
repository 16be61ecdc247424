/* squash_polygonise.c — the surface net of a skeleton's rest surface
 * (squash_polygonise.h). Everything that decides a position or a topology is
 * in the build's scalar (the runtime's own potential, no libm), so the bytes
 * are the same on every machine; only the diagonal choice compares doubles
 * made by + - * / and sqrt, which IEEE rounds the same everywhere. */
#include "squash_polygonise.h"
#include "implicit_skeleton.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { CR_POLYGONISE_RELAX_ROUNDS = 4 };

/* Newton onto f = c with every step at most `cap` long: near a saddle of the
 * sum (two blobs meeting) the gradient is small and a full step would jump
 * to another part of the skin. */
static cr_vec3 onto_surface(const cr_squash_primitive *p, uint32_t np, cr_real c, cr_vec3 x, cr_real cap) {
    for (int k = 0; k < 8; ++k) {
        cr_potential f = cri_skeleton_potential(p, np, x);
        cr_real g2 = cr_v3_len_sq(f.grad);
        if (g2 <= CR_REAL_EPS) break;
        cr_vec3 step = cr_v3_scale(f.grad, cr_div(c - f.f, g2));
        cr_real len = cr_v3_len(step);
        if (len > cap) step = cr_v3_scale(step, cr_div(cap, len));
        x = cr_v3_add(x, step);
    }
    return x;
}

/* The smallest angle's cosine is awkward; the smallest of the corners'
 * sin^2 is enough to compare two splits (both in [0, 1], larger is better). */
static double worst_corner(const cr_vec3 *pos, uint32_t a, uint32_t b, uint32_t cc) {
    const uint32_t v[3] = {a, b, cc};
    double worst = 1;
    for (int i = 0; i < 3; ++i) {
        cr_vec3 e1 = cr_v3_sub(pos[v[(i + 1) % 3]], pos[v[i]]), e2 = cr_v3_sub(pos[v[(i + 2) % 3]], pos[v[i]]);
        double x1 = cr_to_double(e1.x), y1 = cr_to_double(e1.y), z1 = cr_to_double(e1.z);
        double x2 = cr_to_double(e2.x), y2 = cr_to_double(e2.y), z2 = cr_to_double(e2.z);
        double cx = y1 * z2 - z1 * y2, cy = z1 * x2 - x1 * z2, cz = x1 * y2 - y1 * x2;
        double l = (x1 * x1 + y1 * y1 + z1 * z1) * (x2 * x2 + y2 * y2 + z2 * z2);
        double s2 = l > 0 ? (cx * cx + cy * cy + cz * cz) / l : 0;
        if (s2 < worst) worst = s2;
    }
    return worst;
}

/* Tangential relaxation: the net's vertex is the mean of its cell's
 * crossings, which puts two vertices close together where the skin passes
 * near a grid node (the slivers of a surface net). Each round moves every
 * vertex half way to the mean of its quad neighbours and back onto f = c
 * (Jacobi: all from the last round's positions, so the order of vertices
 * does not matter); the projection keeps it on the skin, the mean spreads
 * vertices evenly along it. */
static int relax(const cr_squash_primitive *p, uint32_t np, cr_real c, cr_real cell, const uint32_t *quad, size_t nq,
                 cr_vec3 *pos, size_t nv) {
    cr_vec3 *sum = malloc((nv + 1) * sizeof *sum), *next = malloc((nv + 1) * sizeof *next);
    int32_t *count = malloc((nv + 1) * sizeof *count);
    if (sum == NULL || next == NULL || count == NULL) {
        free(sum), free(next), free(count);
        return CR_POLYGONISE_NO_MEMORY;
    }
    for (int round = 0; round < CR_POLYGONISE_RELAX_ROUNDS; ++round) {
        memset(count, 0, nv * sizeof *count);
        for (size_t v = 0; v < nv; ++v) sum[v] = cr_v3_zero();
        /* each quad edge once per quad: every edge of a closed net is counted twice, alike for all */
        for (size_t q = 0; q < nq; ++q)
            for (int k = 0; k < 4; ++k) {
                uint32_t a = quad[4 * q + k], b = quad[4 * q + (k + 1) % 4];
                sum[a] = cr_v3_add(sum[a], pos[b]), ++count[a];
                sum[b] = cr_v3_add(sum[b], pos[a]), ++count[b];
            }
        for (size_t v = 0; v < nv; ++v) {
            cr_vec3 mean = cr_v3_scale(sum[v], cr_div(CR_R(1), cr_from_int(count[v])));
            cr_vec3 x = cr_v3_lerp(pos[v], mean, CR_R(0.5));
            next[v] = onto_surface(p, np, c, x, cr_mul(CR_R(0.25), cell));
        }
        memcpy(pos, next, nv * sizeof *pos);
    }
    free(sum), free(next), free(count);
    return CR_POLYGONISE_OK;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int cr_squash_mesh_check_manifold(const uint32_t *tri, uint32_t nt, uint32_t nv) {
    size_t ne = 3 * (size_t)nt;
    uint64_t *e = malloc((ne + 1) * sizeof *e);
    uint32_t *start = calloc((size_t)nv + 1, sizeof *start), *fan = malloc((ne + 1) * sizeof *fan);
    int rc = CR_POLYGONISE_OK;
    if (e == NULL || start == NULL || fan == NULL) {
        rc = CR_POLYGONISE_NO_MEMORY;
        goto done;
    }
    /* every directed edge once, and its reverse present */
    for (uint32_t t = 0; t < nt; ++t)
        for (int k = 0; k < 3; ++k) e[3 * t + k] = (uint64_t)tri[3 * t + k] << 32 | tri[3 * t + (k + 1) % 3];
    qsort(e, ne, sizeof *e, cmp_u64);
    for (size_t i = 0; i < ne && rc == 0; ++i) {
        if (i + 1 < ne && e[i + 1] == e[i]) rc = CR_POLYGONISE_NOT_MANIFOLD;
        uint64_t rev = (e[i] & 0xffffffffu) << 32 | e[i] >> 32;
        if (bsearch(&rev, e, ne, sizeof *e, cmp_u64) == NULL) rc = CR_POLYGONISE_NOT_MANIFOLD;
    }
    if (rc != 0) goto done;
    /* every vertex's triangles one fan: the edges opposite it, a -> b, chain into one cycle */
    for (size_t i = 0; i < ne; ++i) ++start[tri[i] + 1];
    for (uint32_t v = 0; v < nv; ++v) {
        if (start[v + 1] == 0) {
            rc = CR_POLYGONISE_NOT_MANIFOLD; /* an unused vertex */
            goto done;
        }
        start[v + 1] += start[v];
    }
    uint32_t *fill = malloc(((size_t)nv + 1) * sizeof *fill);
    if (fill == NULL) {
        rc = CR_POLYGONISE_NO_MEMORY;
        goto done;
    }
    memcpy(fill, start, ((size_t)nv + 1) * sizeof *fill);
    for (uint32_t t = 0; t < nt; ++t)
        for (int k = 0; k < 3; ++k) fan[fill[tri[3 * t + k]]++] = 3 * t + (uint32_t)k;
    free(fill);
    for (uint32_t v = 0; v < nv && rc == 0; ++v) {
        uint32_t n = start[v + 1] - start[v], at = start[v], steps = 0;
        uint32_t first = tri[fan[at] - fan[at] % 3 + (fan[at] + 1) % 3], a = first;
        do {
            uint32_t found = UINT32_MAX;
            for (uint32_t i = start[v]; i < start[v + 1]; ++i) {
                uint32_t c3 = fan[i] - fan[i] % 3;
                if (tri[c3 + (fan[i] + 1) % 3] == a) {
                    found = tri[c3 + (fan[i] + 2) % 3];
                    break;
                }
            }
            if (found == UINT32_MAX) break;
            a = found, ++steps;
        } while (a != first && steps <= n);
        if (a != first || steps != n) rc = CR_POLYGONISE_NOT_MANIFOLD;
    }
done:
    free(e), free(start), free(fan);
    return rc;
}

int cr_squash_polygonise(const cr_squash_primitive *p, uint32_t np, cr_real c, cr_vec3 lo, cr_real cell,
                         const int cells[3], cr_squash_mesh *out) {
    memset(out, 0, sizeof *out);
    const size_t nx = (size_t)cells[0], ny = (size_t)cells[1], nz = (size_t)cells[2];
    const size_t mx = nx + 1, my = ny + 1, mz = nz + 1, nodes = mx * my * mz, ncell = nx * ny * nz;
    cr_real *f = malloc(nodes * sizeof *f);
    uint32_t *vid = malloc(ncell * sizeof *vid);
    cr_vec3 *pos = NULL;
    uint32_t *tri = NULL, *quad = NULL;
    size_t nv = 0, nt = 0, nq = 0, cap_v = 0, cap_q = 0;
    int rc = CR_POLYGONISE_OK;
    if (f == NULL || vid == NULL) {
        rc = CR_POLYGONISE_NO_MEMORY;
        goto fail;
    }
#define NODE(i, j, k) ((i) + mx * ((j) + my * (k)))
#define CELL(i, j, k) ((i) + nx * ((j) + ny * (k)))
#define AT(i, j, k) cr_v3(lo.x + cr_mul(cr_from_int((int32_t)(i)), cell), lo.y + cr_mul(cr_from_int((int32_t)(j)), cell), \
                          lo.z + cr_mul(cr_from_int((int32_t)(k)), cell))
    size_t inside = 0;
    for (size_t k = 0; k < mz; ++k)
        for (size_t j = 0; j < my; ++j)
            for (size_t i = 0; i < mx; ++i) {
                cr_real v = cri_skeleton_value(p, np, AT(i, j, k));
                f[NODE(i, j, k)] = v;
                if (v >= c) {
                    ++inside;
                    if (i == 0 || j == 0 || k == 0 || i == nx || j == ny || k == nz) {
                        rc = CR_POLYGONISE_BOX_CUTS_SKIN;
                        goto fail;
                    }
                }
            }
    if (inside == 0) {
        rc = CR_POLYGONISE_EMPTY;
        goto fail;
    }
    /* one vertex per cell the skin crosses */
    static const int corner[8][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {0, 0, 1}, {1, 0, 1}, {0, 1, 1}, {1, 1, 1}};
    static const int edge[12][2] = {{0, 1}, {2, 3}, {4, 5}, {6, 7}, {0, 2}, {1, 3}, {4, 6}, {5, 7}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
    for (size_t k = 0; k < nz; ++k)
        for (size_t j = 0; j < ny; ++j)
            for (size_t i = 0; i < nx; ++i) {
                cr_real fc[8];
                int in = 0;
                for (int q = 0; q < 8; ++q) {
                    fc[q] = f[NODE(i + (size_t)corner[q][0], j + (size_t)corner[q][1], k + (size_t)corner[q][2])];
                    in += fc[q] >= c;
                }
                vid[CELL(i, j, k)] = UINT32_MAX;
                if (in == 0 || in == 8) continue;
                /* the mean of the crossings, in cell units from the cell's low corner */
                cr_vec3 sum = cr_v3_zero();
                int32_t crossings = 0;
                for (int q = 0; q < 12; ++q) {
                    int a = edge[q][0], b = edge[q][1];
                    if ((fc[a] >= c) == (fc[b] >= c)) continue;
                    cr_real t = cr_div(c - fc[a], fc[b] - fc[a]);
                    cr_vec3 pa = cr_v3(cr_from_int(corner[a][0]), cr_from_int(corner[a][1]), cr_from_int(corner[a][2]));
                    cr_vec3 pb = cr_v3(cr_from_int(corner[b][0]), cr_from_int(corner[b][1]), cr_from_int(corner[b][2]));
                    sum = cr_v3_add(sum, cr_v3_lerp(pa, pb, t));
                    ++crossings;
                }
                cr_vec3 local = cr_v3_scale(sum, cr_div(CR_R(1), cr_from_int(crossings)));
                cr_vec3 x = cr_v3_add(AT(i, j, k), cr_v3_scale(local, cell));
                if (nv == cap_v) {
                    cap_v = cap_v ? 2 * cap_v : 1024;
                    cr_vec3 *g = realloc(pos, cap_v * sizeof *g);
                    if (g == NULL) {
                        rc = CR_POLYGONISE_NO_MEMORY;
                        goto fail;
                    }
                    pos = g;
                }
                pos[nv] = onto_surface(p, np, c, x, cr_mul(CR_R(0.25), cell));
                vid[CELL(i, j, k)] = (uint32_t)nv++;
            }
    /* one quad per grid edge that crosses, facing from the inside node to the outside one */
    /* a crossing edge has an inside end, never on the boundary, so all four cells exist */
    for (size_t k = 0; k < mz; ++k)
        for (size_t j = 0; j < my; ++j)
            for (size_t i = 0; i < mx; ++i)
                for (int axis = 0; axis < 3; ++axis) {
                    size_t n0[3] = {i, j, k}, n1[3] = {i, j, k};
                    ++n1[axis];
                    if (n1[axis] > (size_t)cells[axis]) continue;
                    bool in0 = f[NODE(n0[0], n0[1], n0[2])] >= c, in1 = f[NODE(n1[0], n1[1], n1[2])] >= c;
                    if (in0 == in1) continue;
                    int a1 = (axis + 1) % 3, a2 = (axis + 2) % 3;
                    /* the cells around the edge, counter-clockwise seen from +axis */
                    static const int around[4][2] = {{-1, -1}, {0, -1}, {0, 0}, {-1, 0}};
                    uint32_t q4[4];
                    for (int s = 0; s < 4; ++s) {
                        size_t cc[3] = {n0[0], n0[1], n0[2]};
                        cc[a1] = (size_t)((ptrdiff_t)cc[a1] + around[s][0]);
                        cc[a2] = (size_t)((ptrdiff_t)cc[a2] + around[s][1]);
                        q4[s] = vid[CELL(cc[0], cc[1], cc[2])];
                    }
                    if (!in0) { /* outside below: the skin faces -axis */
                        uint32_t t = q4[1];
                        q4[1] = q4[3], q4[3] = t;
                    }
                    if (nq + 1 > cap_q) {
                        cap_q = cap_q ? 2 * cap_q : 2048;
                        uint32_t *g = realloc(quad, 4 * cap_q * sizeof *g);
                        if (g == NULL) {
                            rc = CR_POLYGONISE_NO_MEMORY;
                            goto fail;
                        }
                        quad = g;
                    }
                    memcpy(&quad[4 * nq++], q4, sizeof q4);
                }
#undef NODE
#undef CELL
#undef AT
    /* the topology is the quads' whatever their split: check it once, on any split */
    nt = 2 * nq;
    tri = malloc((3 * nt + 1) * sizeof *tri);
    if (tri == NULL) {
        rc = CR_POLYGONISE_NO_MEMORY;
        goto fail;
    }
    for (size_t q = 0; q < nq; ++q) {
        const uint32_t *a = &quad[4 * q];
        uint32_t *o = &tri[6 * q];
        o[0] = a[0], o[1] = a[1], o[2] = a[2], o[3] = a[0], o[4] = a[2], o[5] = a[3];
    }
    rc = cr_squash_mesh_check_manifold(tri, (uint32_t)nt, (uint32_t)nv);
    if (rc != 0) goto fail;
    rc = relax(p, np, c, cell, quad, nq, pos, nv);
    if (rc != 0) goto fail;
    for (size_t q = 0; q < nq; ++q) {
        const uint32_t *a = &quad[4 * q];
        double s02 = fmin(worst_corner(pos, a[0], a[1], a[2]), worst_corner(pos, a[0], a[2], a[3]));
        double s13 = fmin(worst_corner(pos, a[0], a[1], a[3]), worst_corner(pos, a[1], a[2], a[3]));
        uint32_t *o = &tri[6 * q];
        if (s02 >= s13) o[0] = a[0], o[1] = a[1], o[2] = a[2], o[3] = a[0], o[4] = a[2], o[5] = a[3];
        else o[0] = a[0], o[1] = a[1], o[2] = a[3], o[3] = a[1], o[4] = a[2], o[5] = a[3];
    }
    free(quad);
    quad = NULL;
    out->normals = malloc((nv ? nv : 1) * sizeof(cr_vec3));
    if (out->normals == NULL) {
        rc = CR_POLYGONISE_NO_MEMORY;
        goto fail;
    }
    for (size_t v = 0; v < nv; ++v) out->normals[v] = cr_v3_normalize(cr_v3_neg(cri_skeleton_potential(p, np, pos[v]).grad));
    out->pos = pos, out->tri = tri;
    out->vertex_count = (uint32_t)nv, out->triangle_count = (uint32_t)nt;
    free(f), free(vid);
    return CR_POLYGONISE_OK;
fail:
    free(f), free(vid), free(pos), free(tri), free(quad);
    memset(out, 0, sizeof *out);
    return rc;
}
