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
 * about the parent's axes (the sub-body keeps the parent's orientation, so
 * the products of inertia are dropped: zero for a segment of a symmetric
 * bar, small for most limbs; docs/bending.md).
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

static cr_vec3 node_position(const cr_asset *a, uint32_t node) {
    uint32_t nx = a->sdf_dims[0], ny = a->sdf_dims[1];
    uint32_t i = node % nx, j = (node / nx) % ny, k = node / (nx * ny);
    return cr_v3(a->sdf_origin.x + cr_mul(cr_from_int((int32_t)i), a->sdf_cell),
                 a->sdf_origin.y + cr_mul(cr_from_int((int32_t)j), a->sdf_cell),
                 a->sdf_origin.z + cr_mul(cr_from_int((int32_t)k), a->sdf_cell));
}

uint32_t cri_sub_body_mass(const cr_asset *a, const uint8_t *node_bone, uint32_t bone, cr_real node_mass,
                           cr_vec3 *centre, cr_vec3 *inertia) {
    uint32_t nodes = a->sdf_dims[0] * a->sdf_dims[1] * a->sdf_dims[2], n = 0;
    cr_vec3 sum = cr_v3_zero();
    for (uint32_t i = 0; i < nodes; ++i) {
        if (node_bone[i] != bone || a->sdf[i] >= 0) continue;
        sum = cr_v3_add(sum, node_position(a, i));
        ++n;
    }
    *centre = cr_v3_zero();
    *inertia = cr_v3_zero();
    if (n == 0) return 0;
    cr_vec3 c = cr_v3_scale(sum, cr_div(CR_R(1), cr_from_int((int32_t)n)));
    /* second moments about the centre, as the nodes' own sums first (then one multiply by the node mass) */
    cr_vec3 sq = cr_v3_zero();
    for (uint32_t i = 0; i < nodes; ++i) {
        if (node_bone[i] != bone || a->sdf[i] >= 0) continue;
        cr_vec3 d = cr_v3_sub(node_position(a, i), c);
        sq = cr_v3_add(sq, cr_v3(cr_mul(d.x, d.x), cr_mul(d.y, d.y), cr_mul(d.z, d.z)));
    }
    cr_real own = cr_mul(cr_from_int((int32_t)n), cr_div(cr_mul(a->sdf_cell, a->sdf_cell), CR_R(6)));
    *centre = c;
    *inertia = cr_v3(cr_mul(node_mass, sq.y + sq.z + own), cr_mul(node_mass, sq.x + sq.z + own),
                     cr_mul(node_mass, sq.x + sq.y + own));
    return n;
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
