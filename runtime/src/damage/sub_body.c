/* sub_body.c — dividing a rigged body into one sub-body per bone (seed 000 §4
 * and §4.2): triangles to bones, distance-grid nodes to bones, mass
 * properties per bone, and a bone's restricted view of the parent's surface.
 *
 * Triangles: the seed gives each triangle "whose maximum skinning weight is
 * associated with that bone". A triangle has three vertices with up to four
 * weights each, which may prefer different bones; crumple sums each bone's
 * weights over the three vertices and takes the largest sum (ties: the lower
 * bone index), so a seam triangle goes to the bone that pulls it hardest
 * overall and every triangle has exactly one bone.
 *
 * Grid nodes: the seed first assigns the nodes next to each bone's triangles,
 * then marches outward ring by ring. crumple claims, triangle by triangle in
 * index order, the node nearest each point of a lattice on the triangle no
 * coarser than one cell (first claim wins), then grows all bones at once
 * breadth-first over the 6-neighbour graph in queue order: the march inward
 * and outward in one pass, ties broken by who reached a node first, which is
 * a fixed order. The result is one owner byte per node, not one grid per bone.
 *
 * Mass: the parent's mass is shared out in proportion to the inside nodes
 * (phi < 0) each bone owns; the centre is their mean; the moments are those
 * of the nodes as point masses plus each node's own cube (m h^2 / 6), taken
 * about the parent's axes: the sub-body keeps the parent's orientation, so
 * its tensor has products of inertia too (zero for a segment of a symmetric
 * bar, up to a third of the smallest moment for a teapot's spout), and the
 * body keeps the whole tensor (base/inertia.h). All of it comes from each
 * bone's nodes as integer moments of their indices (a node is at origin +
 * (i, j, k) h): count, sums, sums of squares and of products, exact in
 * int64. The cooker stores them (BNDM) and attach sums them when it has
 * none, and one function makes mass, centre and inertia from them, so the
 * two give the same bits in either scalar mode.
 */
#include "damage/sub_body.h"

#include <string.h>

uint8_t cri_sub_body_triangle_bone(const cr_asset *a, const uint8_t *skin_bone, const cr_real *skin_weight, uint32_t t,
                                   const uint8_t *allowed) {
    const uint32_t *tri = &a->triangles[3 * t];
    uint8_t bone[12];
    cr_real sum[12];
    uint32_t n = 0;
    for (uint32_t i = 0; i < 12; ++i) {
        uint32_t vi = tri[i / 4] * CR_ASSET_SKIN_SLOTS + i % 4;
        cr_real wt = skin_weight[vi];
        if (wt <= 0 || (allowed != NULL && !allowed[skin_bone[vi]])) continue;
        uint32_t k = 0;
        while (k < n && bone[k] != skin_bone[vi]) ++k;
        if (k == n) bone[n] = skin_bone[vi], sum[n++] = 0;
        sum[k] += wt;
    }
    uint8_t best = n ? bone[0] : 0xff;
    cr_real best_sum = n ? sum[0] : 0;
    for (uint32_t k = 1; k < n; ++k)
        if (sum[k] > best_sum || (sum[k] == best_sum && bone[k] < best)) best = bone[k], best_sum = sum[k];
    return best;
}

/* The grid node nearest p, as packed coordinates i | j << 10 | k << 20 (a
 * side has at most CR_ASSET_MAX_SDF_DIM = 1024 nodes): the growth's queue
 * holds these, so finding a node's neighbours needs no division. */
static uint32_t node_of(const cr_asset *a, cr_vec3 p) {
    const cr_real c[3] = {p.x - a->sdf_origin.x, p.y - a->sdf_origin.y, p.z - a->sdf_origin.z};
    uint32_t idx[3];
    for (int k = 0; k < 3; ++k) {
        int32_t i = cr_floor_int(cr_mul(c[k], a->sdf_inv_cell) + CR_R(0.5));
        if (i < 0) i = 0;
        if (i > (int32_t)a->sdf_dims[k] - 1) i = (int32_t)a->sdf_dims[k] - 1;
        idx[k] = (uint32_t)i;
    }
    return idx[0] | idx[1] << 10 | idx[2] << 20;
}

uint8_t cri_sub_body_owner_at(const cr_asset *a, const uint8_t *node_bone, cr_vec3 p) {
    uint32_t packed = node_of(a, p);
    return node_bone[(packed & 1023u) + a->sdf_dims[0] * ((packed >> 10 & 1023u) + a->sdf_dims[1] * (packed >> 20))];
}

uint32_t cri_sub_body_grow(const cr_asset *a, const uint8_t *tri_bone, const uint8_t *seeds, uint8_t *node_bone,
                           uint32_t *queue) {
    uint32_t nx = a->sdf_dims[0], ny = a->sdf_dims[1], nz = a->sdf_dims[2];
    uint32_t head = 0, tail = 0, work = 0;
    for (uint32_t t = 0; t < a->triangle_count; ++t) {
        uint8_t bone = tri_bone[t];
        if (!seeds[bone]) continue;
        const uint32_t *tri = &a->triangles[3 * t];
        cr_vec3 p0 = a->positions[tri[0]], e1 = cr_v3_sub(a->positions[tri[1]], p0), e2 = cr_v3_sub(a->positions[tri[2]], p0);
        cr_vec3 e3 = cr_v3_sub(e2, e1);
        cr_real l2 = cr_max(cr_v3_dot(e1, e1), cr_max(cr_v3_dot(e2, e2), cr_v3_dot(e3, e3)));
        int32_t n = 1; /* most triangles are shorter than a cell: their corners are the lattice */
        if (l2 >= cr_mul(a->sdf_cell, a->sdf_cell)) n = cr_floor_int(cr_mul(cr_sqrt(l2), a->sdf_inv_cell)) + 1;
        if (n == 1) {
            /* the lattice's three points p0, p0 + e2, p0 + e1 in its order: the general sum below
             * gives them up to the sign of a zero, which lands on the same node */
            const cr_vec3 corner[3] = {p0, cr_v3_add(p0, e2), cr_v3_add(p0, e1)};
            for (int q = 0; q < 3; ++q) {
                uint32_t packed = node_of(a, corner[q]);
                uint32_t node = (packed & 1023u) + nx * ((packed >> 10 & 1023u) + ny * (packed >> 20));
                ++work;
                if (node_bone[node] != 0xff) continue;
                node_bone[node] = bone;
                queue[tail++] = packed;
            }
            continue;
        }
        if (n > 64) n = 64; /* a triangle longer than 64 cells: the growth fills the gaps */
        cr_real inv_n = n == 1 ? CR_R(1) : cr_div(CR_R(1), cr_from_int(n));
        for (int32_t i = 0; i <= n; ++i) {
            for (int32_t j = 0; i + j <= n; ++j) {
                cr_vec3 p = cr_v3_add(p0, cr_v3_add(cr_v3_scale(e1, cr_mul(cr_from_int(i), inv_n)),
                                                    cr_v3_scale(e2, cr_mul(cr_from_int(j), inv_n))));
                uint32_t packed = node_of(a, p);
                uint32_t node = (packed & 1023u) + nx * ((packed >> 10 & 1023u) + ny * (packed >> 20));
                ++work;
                if (node_bone[node] != 0xff) continue;
                node_bone[node] = bone;
                queue[tail++] = packed;
            }
        }
    }
    const uint32_t sx = 1, sy = nx, sz = nx * ny;
    while (head < tail) {
        uint32_t packed = queue[head++];
        uint32_t i = packed & 1023u, j = packed >> 10 & 1023u, k = packed >> 20;
        uint32_t node = i + nx * (j + ny * k);
        uint8_t bone = node_bone[node];
        /* the six neighbours in a fixed order (-x +x -y +y -z +z): the first to reach a node claims it */
#define CR_GROW_TO(ok, step, pstep)                                                    \
        if ((ok) && node_bone[node + (step)] == 0xff) {                               \
            node_bone[node + (step)] = bone;                                          \
            queue[tail++] = packed + (pstep);                                         \
        }
        CR_GROW_TO(i > 0, -sx, -1u)
        CR_GROW_TO(i + 1 < nx, sx, 1u)
        CR_GROW_TO(j > 0, -sy, -(1u << 10))
        CR_GROW_TO(j + 1 < ny, sy, 1u << 10)
        CR_GROW_TO(k > 0, -sz, -(1u << 20))
        CR_GROW_TO(k + 1 < nz, sz, 1u << 20)
#undef CR_GROW_TO
        ++work;
    }
    return work;
}

uint32_t cri_sub_body_segment(const cr_asset *a, const uint8_t *skin_bone, const cr_real *skin_weight, uint8_t *tri_bone,
                              uint8_t *node_bone, uint32_t *queue) {
    uint8_t seeds[256];
    memset(seeds, 1, sizeof seeds);
    for (uint32_t t = 0; t < a->triangle_count; ++t) tri_bone[t] = cri_sub_body_triangle_bone(a, skin_bone, skin_weight, t, NULL);
    memset(node_bone, 0xff, (size_t)a->sdf_dims[0] * a->sdf_dims[1] * a->sdf_dims[2]);
    return a->triangle_count + cri_sub_body_grow(a, tri_bone, seeds, node_bone, queue);
}

void cri_sub_body_moments(const cr_asset *a, const uint8_t *node_bone, uint32_t bone_count, const uint8_t *want,
                          cr_asset_bone_moments *out) {
    for (uint32_t b = 0; b < bone_count; ++b)
        if (want == NULL || want[b]) memset(&out[b], 0, sizeof out[b]);
    uint32_t nx = a->sdf_dims[0], ny = a->sdf_dims[1], nz = a->sdf_dims[2], node = 0;
    for (uint32_t k = 0; k < nz; ++k)
        for (uint32_t j = 0; j < ny; ++j)
            for (uint32_t i = 0; i < nx; ++i, ++node) {
                uint32_t b = node_bone[node];
                if (a->sdf[node] >= 0 || b >= bone_count || (want != NULL && !want[b])) continue;
                cr_asset_bone_moments *m = &out[b];
                int64_t x = i, y = j, z = k;
                m->count++;
                m->sum[0] += x, m->sum[1] += y, m->sum[2] += z;
                m->sum_sq[0] += x * x, m->sum_sq[1] += y * y, m->sum_sq[2] += z * z;
                m->sum_cross[0] += x * y, m->sum_cross[1] += x * z, m->sum_cross[2] += y * z;
            }
}

/* sum / n as a real: whole part and remainder apart, so neither leaves int32 */
static cr_real ratio(int64_t sum, int64_t n) {
    int64_t q = sum / n, r = sum % n;
    return cr_from_int((int32_t)q) + cr_div(cr_from_int((int32_t)r), cr_from_int((int32_t)n));
}

uint32_t cri_sub_body_mass(const cr_asset *a, const cr_asset_bone_moments *m, cr_real node_mass, cr_vec3 *centre,
                           cr_vec3 *inertia, cr_vec3 *products) {
    *centre = cr_v3_zero();
    *inertia = cr_v3_zero();
    if (products) *products = cr_v3_zero();
    int64_t n = m->count;
    if (n <= 0) return 0;
    /* per axis: the mean index q + r/n, and the spread about it in cells^2:
     * sum (i - q)^2 / n - (r/n)^2, the integer sum exact (docs/bending.md) */
    int64_t q[3], r[3];
    cr_real c[3], var[3];
    for (int x = 0; x < 3; ++x) {
        q[x] = m->sum[x] / n, r[x] = m->sum[x] % n;
        c[x] = ratio(m->sum[x], n);
        int64_t spread = m->sum_sq[x] - 2 * q[x] * m->sum[x] + q[x] * q[x] * n;
        cr_real f = cr_div(cr_from_int((int32_t)r[x]), cr_from_int((int32_t)n));
        var[x] = ratio(spread, n) - cr_mul(f, f);
    }
    cr_real h = a->sdf_cell, mass = cr_mul(node_mass, cr_from_int((int32_t)n));
    *centre = cr_v3(a->sdf_origin.x + cr_mul(c[0], h), a->sdf_origin.y + cr_mul(c[1], h), a->sdf_origin.z + cr_mul(c[2], h));
    /* the nodes as point masses plus each node's own cube (h^2 / 6 per axis) */
    const cr_real own = cr_div(CR_R(1), CR_R(6));
    cr_real ix = cr_mul(cr_mul(var[1] + var[2] + own, h), h), iy = cr_mul(cr_mul(var[0] + var[2] + own, h), h),
            iz = cr_mul(cr_mul(var[0] + var[1] + own, h), h);
    *inertia = cr_v3(cr_mul(mass, ix), cr_mul(mass, iy), cr_mul(mass, iz));
    if (products) {
        /* -sum m d_a d_b per pair (xy, xz, yz): the tensor's off-diagonal entries */
        static const int pair[3][2] = {{0, 1}, {0, 2}, {1, 2}};
        cr_real p[3];
        for (int k = 0; k < 3; ++k) {
            int u = pair[k][0], v = pair[k][1];
            int64_t cross = m->sum_cross[k] - q[v] * m->sum[u] - q[u] * m->sum[v] + q[u] * q[v] * n; /* sum (i-q_u)(j-q_v) */
            /* the spread is n cross - r_u r_v over n^2: exactly 0 when that is (a box's
             * nodes, a slab of them), and then 0 here too, not a float rounding residue */
            if (r[u] * r[v] % n == 0 && cross == r[u] * r[v] / n) {
                p[k] = 0;
                continue;
            }
            cr_real fu = cr_div(cr_from_int((int32_t)r[u]), cr_from_int((int32_t)n));
            cr_real fv = cr_div(cr_from_int((int32_t)r[v]), cr_from_int((int32_t)n));
            p[k] = -cr_mul(mass, cr_mul(cr_mul(ratio(cross, n) - cr_mul(fu, fv), h), h));
        }
        *products = cr_v3(p[0], p[1], p[2]);
    }
    return (uint32_t)n;
}

uint32_t cri_sub_body_restrict(cr_asset *view, cr_vec3 *positions, cr_vec3 *samples, cr_real *sdf,
                               const cr_asset *rest, const cr_vec3 *rest_positions, const uint8_t *tri_bone,
                               const uint8_t *node_bone, uint8_t *vertex_mark, uint32_t bone, cr_vec3 centre) {
    memset(vertex_mark, 0, rest->vertex_count);
    for (uint32_t t = 0; t < rest->triangle_count; ++t) {
        if (tri_bone[t] != bone) continue;
        for (int k = 0; k < 3; ++k) vertex_mark[rest->triangles[3 * t + k]] = 1;
    }
    for (uint32_t v = 0; v < rest->vertex_count; ++v) positions[v] = cr_v3_sub(rest_positions[v], centre);
    uint32_t kept = 0;
    cr_vec3 lo = cr_v3(CR_REAL_MAX, CR_REAL_MAX, CR_REAL_MAX), hi = cr_v3_neg(lo);
    cr_real r2 = 0;
    for (uint32_t i = 0; i < rest->sample_count; ++i) {
        if (!vertex_mark[rest->sample_vertex[i]]) continue;
        cr_vec3 s = cr_v3_sub(rest_positions[rest->sample_vertex[i]], centre); /* a sample is its vertex */
        samples[kept++] = s;
        lo = cr_v3_min(lo, s);
        hi = cr_v3_max(hi, s);
        r2 = cr_max(r2, cr_v3_dot(s, s));
    }
    uint32_t nodes = rest->sdf_dims[0] * rest->sdf_dims[1] * rest->sdf_dims[2];
    cr_real fill = cr_mul(cr_from_int(CR_SUB_BODY_FILL_CELLS), rest->sdf_cell);
    for (uint32_t i = 0; i < nodes; ++i) sdf[i] = node_bone[i] == bone ? rest->sdf[i] : cr_max(rest->sdf[i], fill);
    view->sample_count = kept;
    view->sdf_origin = cr_v3_sub(rest->sdf_origin, centre);
    view->sdf_cell = rest->sdf_cell, view->sdf_inv_cell = rest->sdf_inv_cell; /* a condensed cluster changed them */
    /* its own nodes may reach a cell past its own vertices */
    cr_real pad = rest->sdf_cell;
    view->bounds_min = cr_v3_sub(lo, cr_v3(pad, pad, pad));
    view->bounds_max = cr_v3_add(hi, cr_v3(pad, pad, pad));
    view->bound_radius = cr_sqrt(r2) + pad;
    return kept;
}
