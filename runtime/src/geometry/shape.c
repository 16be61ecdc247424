/* shape.c — the signed distance functions, sample points and mass properties
 * of body shapes (seed 002's geometric representation).
 *
 * Seed 002 gives every rigid body two representations: a signed distance
 * function phi (negative inside, normal = grad phi) and a set of sample points
 * on the surface. Interference is "points of one body inside the other's phi".
 *
 *   sphere  phi = |p| - r, exact. As a point set a sphere is its centre with
 *           the radius subtracted from the other body's phi, which is exact
 *           for a sphere against any signed distance function.
 *   box     phi exact (distance to the box outside, to the nearest face inside).
 *           Sample points: the 8 corners plus points along the 12 edges.
 *           Corners alone miss an edge crossing a face while both its ends are
 *           outside; the seed notes that this error is proportional to the
 *           edge length, so edges get a point every CR_BOX_SAMPLE_SPACING.
 *   plane   the body's local y = 0 plane, solid below: phi = y. No samples.
 *   mesh    the cooked asset's trilinear SDF grid and its sample points.
 *
 * Notes
 *   - Ties in the inside-box normal (a point about equally far from two
 *     faces) go to the face that faces the other body, then x before y
 *     before z, so the answer is the same on every machine; the returned
 *     depth is that face's, never more than the tie tolerance (2 cm, or a tenth of the smallest half extent) off the
 *     exact distance.
 */
#include "geometry/shape.h"

static cr_real sign_of(cr_real x) { return x < 0 ? CR_R(-1) : CR_R(1); }

/* Box SDF. Inside, the normal is the nearest face's; faces within
 * the tie tolerance (2 cm, or a tenth of the smallest half extent) of the nearest count as tied, and a tie goes to the face
 * facing `hint` (the other body's centre), else x before y before z. Without
 * this a cube resting exactly on an aligned cube has its corners at the lower
 * cube's corners, where the side faces are as near as the top face, and
 * would be pushed sideways. */
static cr_real box_sdf(cr_vec3 h, cr_vec3 p, cr_vec3 hint, cr_vec3 *n) {
    cr_vec3 q = cr_v3(cr_abs(p.x) - h.x, cr_abs(p.y) - h.y, cr_abs(p.z) - h.z);
    if (q.x > 0 || q.y > 0 || q.z > 0) {
        cr_vec3 o = cr_v3(q.x > 0 ? (p.x < 0 ? -q.x : q.x) : 0, q.y > 0 ? (p.y < 0 ? -q.y : q.y) : 0,
                          q.z > 0 ? (p.z < 0 ? -q.z : q.z) : 0);
        cr_real len;
        cr_vec3 dir = cr_v3_normalize_len(o, &len);
        /* a hair outside (fixed point rounds a touching point there) has no
         * usable direction: it is on the surface, so it takes a face normal */
        if (len > CR_R(1e-6)) {
            if (n != NULL) *n = dir;
            return len;
        }
    }
    cr_real qs[3] = {q.x, q.y, q.z}, ps[3] = {p.x, p.y, p.z}, hs[3] = {hint.x, hint.y, hint.z};
    int best = 0;
    for (int i = 1; i < 3; ++i)
        if (qs[i] > qs[best]) best = i;
    cr_real tol = cr_min(CR_R(0.02), cr_mul(CR_R(0.1), cr_min(h.x, cr_min(h.y, h.z))));
    int pick = best;
    cr_real pick_score = cr_mul(sign_of(ps[best]), hs[best]);
    for (int i = 0; i < 3; ++i) {
        if (i == best || qs[i] < qs[best] - tol) continue;
        cr_real score = cr_mul(sign_of(ps[i]), hs[i]);
        if (score > pick_score) {
            pick = i;
            pick_score = score;
        }
    }
    if (n != NULL) {
        cr_real v[3] = {0, 0, 0};
        v[pick] = sign_of(ps[pick]);
        *n = cr_v3(v[0], v[1], v[2]);
    }
    return qs[pick];
}

cr_real cri_shape_sdf(const cr_world *w, const cr_shape_def *s, cr_vec3 p, cr_vec3 hint, cr_vec3 *n) {
    switch (s->type) {
    case CR_SHAPE_SPHERE: {
        cr_real len;
        cr_vec3 dir = cr_v3_normalize_len(p, &len);
        if (n != NULL) *n = (len <= CR_REAL_EPS) ? cr_v3(0, CR_R(1), 0) : dir;
        return len - s->radius;
    }
    case CR_SHAPE_BOX:
        return box_sdf(s->half_extents, p, hint, n);
    case CR_SHAPE_PLANE:
        if (n != NULL) *n = cr_v3(0, CR_R(1), 0);
        return p.y;
    case CR_SHAPE_MESH: {
        const cr_asset *a = cr_world_asset(w, s->asset);
        if (a == NULL) {
            if (n != NULL) *n = cr_v3(0, CR_R(1), 0);
            return CR_REAL_MAX;
        }
        return cr_asset_sdf(a, p, n);
    }
    }
    if (n != NULL) *n = cr_v3(0, CR_R(1), 0);
    return CR_REAL_MAX;
}

/* Segments along an edge of length 2h: one sample every CR_BOX_SAMPLE_SPACING. */
static int32_t edge_segments(cr_real h) {
    int32_t k = cr_floor_int(cr_div(h + h, CR_BOX_SAMPLE_SPACING)) + 1;
    if (k < 1) k = 1;
    if (k > CR_BOX_MAX_SEGMENTS) k = CR_BOX_MAX_SEGMENTS;
    return k;
}

uint32_t cri_box_samples(cr_vec3 h, cr_vec3 *out) {
    uint32_t n = 0;
    for (int i = 0; i < 8; ++i)
        out[n++] = cr_v3((i & 1) ? h.x : -h.x, (i & 2) ? h.y : -h.y, (i & 4) ? h.z : -h.z);
    const cr_real he[3] = {h.x, h.y, h.z};
    for (int axis = 0; axis < 3; ++axis) {
        int32_t k = edge_segments(he[axis]);
        int u = (axis + 1) % 3, v = (axis + 2) % 3;
        for (int corner = 0; corner < 4; ++corner) {
            for (int32_t j = 1; j < k; ++j) {
                cr_real c[3];
                c[axis] = -he[axis] + cr_div(cr_mul(he[axis] + he[axis], cr_from_int(j)), cr_from_int(k));
                c[u] = (corner & 1) ? he[u] : -he[u];
                c[v] = (corner & 2) ? he[v] : -he[v];
                out[n++] = cr_v3(c[0], c[1], c[2]);
            }
        }
    }
    return n;
}

void cri_shape_mass(const cr_world *w, const cr_shape_def *s, cr_real rho, cr_real *mass, cr_vec3 *inertia,
                   cr_real *radius) {
    *mass = 0;
    *inertia = cr_v3_zero();
    *radius = CR_REAL_MAX;
    if (s->type == CR_SHAPE_SPHERE) {
        cr_real r = s->radius, r2 = cr_mul(r, r);
        *mass = cr_mul(cr_mul(rho, CR_R(4.18879020478639098)), cr_mul(r2, r)); /* 4/3 pi r^3 */
        cr_real i = cr_mul(CR_R(0.4), cr_mul(*mass, r2));
        *inertia = cr_v3(i, i, i);
        *radius = r;
    } else if (s->type == CR_SHAPE_BOX) {
        cr_vec3 h = s->half_extents;
        *mass = cr_mul(cr_mul(CR_R(8), rho), cr_mul(cr_mul(h.x, h.y), h.z));
        cr_real k = cr_div(*mass, CR_R(3));
        cr_real x2 = cr_sq(h.x), y2 = cr_sq(h.y), z2 = cr_sq(h.z);
        *inertia = cr_v3(cr_mul(k, y2 + z2), cr_mul(k, x2 + z2), cr_mul(k, x2 + y2));
        *radius = cr_v3_len(h);
    } else if (s->type == CR_SHAPE_MESH) {
        const cr_asset *a = cr_world_asset(w, s->asset);
        if (a == NULL) return;
        *mass = cr_mul(rho, a->volume);
        *inertia = cr_v3_scale(a->inertia, rho);
        *radius = a->bound_radius;
    }
}

/* ---- coarse minimum grid (seed 002: label the minimum phi of each voxel) ---- */

/* Cell index of a grid coordinate, clamped like the trilinear lookup's. */
static int32_t coarse_cell(cr_real g, uint32_t nodes) {
    int32_t i = cr_floor_int(cr_clamp(g, CR_R(-1.0e6), CR_R(1.0e6)));
    int32_t last = (int32_t)nodes - 2;
    return i < 0 ? 0 : (i > last ? last : i);
}

/* Interleave the low 10 bits of x, y, z (Morton order keeps neighbours near). */
static uint32_t spread10(uint32_t v) {
    v &= 0x3ffu;
    v = (v | (v << 16)) & 0x030000ffu;
    v = (v | (v << 8)) & 0x0300f00fu;
    v = (v | (v << 4)) & 0x030c30c3u;
    v = (v | (v << 2)) & 0x09249249u;
    return v;
}

static uint32_t morton_key(cr_vec3 p, cr_vec3 lo, cr_vec3 scale) {
    cr_vec3 d = cr_v3_sub(p, lo);
    uint32_t x = (uint32_t)cr_floor_int(cr_clamp(cr_mul(d.x, scale.x), 0, CR_R(1023)));
    uint32_t y = (uint32_t)cr_floor_int(cr_clamp(cr_mul(d.y, scale.y), 0, CR_R(1023)));
    uint32_t z = (uint32_t)cr_floor_int(cr_clamp(cr_mul(d.z, scale.z), 0, CR_R(1023)));
    return spread10(x) | spread10(y) << 1 | spread10(z) << 2;
}

/* Samples sorted by Morton key (stable bottom-up merge sort, keys and a
 * buffer in `tmp`, 3 n words), then cut into clusters of CR_CLUSTER_SIZE. */
static void build_clusters(cr_coarse_grid *g, const cr_asset *a, uint32_t *tmp) {
    g->clusters = 0;
    const cr_vec3 *pts = a->samples != NULL ? a->samples : a->positions;
    uint32_t n = a->samples != NULL ? a->sample_count : a->vertex_count;
    if (pts == NULL || n == 0 || n > CR_CLUSTER_MAX_SAMPLES || tmp == NULL) return;
    cr_vec3 lo = a->bounds_min, ext = cr_v3_sub(a->bounds_max, a->bounds_min);
    cr_vec3 scale = cr_v3(ext.x > 0 ? cr_div(CR_R(1023), ext.x) : 0, ext.y > 0 ? cr_div(CR_R(1023), ext.y) : 0,
                          ext.z > 0 ? cr_div(CR_R(1023), ext.z) : 0);
    uint32_t *key = tmp, *buf = tmp + n;
    for (uint32_t i = 0; i < n; ++i) {
        g->order[i] = i;
        key[i] = morton_key(pts[i], lo, scale);
    }
    uint32_t *src = g->order, *dst = buf;
    for (uint32_t width = 1; width < n; width += width) {
        for (uint32_t l = 0; l < n; l += width + width) {
            uint32_t m = l + width < n ? l + width : n, h = l + width + width < n ? l + width + width : n;
            uint32_t i = l, j = m, k = l;
            while (i < m && j < h) dst[k++] = key[src[j]] < key[src[i]] ? src[j++] : src[i++];
            while (i < m) dst[k++] = src[i++];
            while (j < h) dst[k++] = src[j++];
        }
        uint32_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != g->order)
        for (uint32_t i = 0; i < n; ++i) g->order[i] = src[i];
    uint32_t count = (n + CR_CLUSTER_SIZE - 1) / CR_CLUSTER_SIZE;
    for (uint32_t c = 0; c < count; ++c) {
        uint32_t i0 = c * CR_CLUSTER_SIZE, i1 = i0 + CR_CLUSTER_SIZE < n ? i0 + CR_CLUSTER_SIZE : n;
        cr_vec3 bmin = pts[g->order[i0]], bmax = bmin;
        for (uint32_t i = i0 + 1; i < i1; ++i) {
            bmin = cr_v3_min(bmin, pts[g->order[i]]);
            bmax = cr_v3_max(bmax, pts[g->order[i]]);
        }
        cr_vec3 centre = cr_v3_scale(cr_v3_add(bmin, bmax), CR_R(0.5));
        cr_real r = 0;
        for (uint32_t i = i0; i < i1; ++i) r = cr_max(r, cr_v3_len(cr_v3_sub(pts[g->order[i]], centre)));
        g->centre[c] = centre;
        g->radius[c] = r + CR_R(1e-6);
    }
    g->clusters = count;
}

void cri_coarse_build(cr_coarse_grid *g, const cr_asset *a, uint32_t *tmp) {
    g->dims[0] = g->dims[1] = g->dims[2] = 0;
    g->block = 0;
    uint32_t cx = a->sdf_dims[0] - 1, cy = a->sdf_dims[1] - 1, cz = a->sdf_dims[2] - 1; /* cells */
    uint32_t b = 2;
    while (((cx + b - 1) / b) * ((cy + b - 1) / b) * ((cz + b - 1) / b) > CR_COARSE_MAX) ++b;
    uint32_t bx = (cx + b - 1) / b, by = (cy + b - 1) / b, bz = (cz + b - 1) / b;
    const uint32_t nx = a->sdf_dims[0], ny = a->sdf_dims[1], nz = a->sdf_dims[2];
    for (uint32_t k = 0; k < bz; ++k)
        for (uint32_t j = 0; j < by; ++j)
            for (uint32_t i = 0; i < bx; ++i) {
                /* nodes of the block's cells: [i b, (i + 1) b], the far corners included */
                uint32_t x1 = (i + 1) * b < nx - 1 ? (i + 1) * b : nx - 1;
                uint32_t y1 = (j + 1) * b < ny - 1 ? (j + 1) * b : ny - 1;
                uint32_t z1 = (k + 1) * b < nz - 1 ? (k + 1) * b : nz - 1;
                cr_real m = CR_REAL_MAX;
                for (uint32_t z = k * b; z <= z1; ++z)
                    for (uint32_t y = j * b; y <= y1; ++y)
                        for (uint32_t x = i * b; x <= x1; ++x) m = cr_min(m, a->sdf[x + nx * (y + ny * z)]);
                g->min[i + bx * (j + by * k)] = m;
            }
    g->dims[0] = bx;
    g->dims[1] = by;
    g->dims[2] = bz;
    g->block = b;
    build_clusters(g, a, tmp);
}

/* The trilinear value at p is a blend of its cell's eight nodes, all inside
 * one block's node range, so it is at least that block's minimum; outside the
 * grid the lookup adds a non-negative distance to the boundary value. */
cr_real cri_coarse_lower_bound(const cr_coarse_grid *g, const cr_asset *a, cr_vec3 p) {
    if (g == NULL || g->block == 0) return -CR_REAL_MAX;
    int32_t ix = coarse_cell(cr_mul(p.x - a->sdf_origin.x, a->sdf_inv_cell), a->sdf_dims[0]);
    int32_t iy = coarse_cell(cr_mul(p.y - a->sdf_origin.y, a->sdf_inv_cell), a->sdf_dims[1]);
    int32_t iz = coarse_cell(cr_mul(p.z - a->sdf_origin.z, a->sdf_inv_cell), a->sdf_dims[2]);
    uint32_t bi = (uint32_t)ix / g->block, bj = (uint32_t)iy / g->block, bk = (uint32_t)iz / g->block;
    return g->min[bi + g->dims[0] * (bj + g->dims[1] * bk)];
}

const cr_coarse_grid *cri_world_coarse(const cr_world *w, uint32_t slot) {
    if (slot >= w->asset_count) return NULL; /* dented copies (flagged slots) have none */
    return &CR_AT(w, w->coarse, const cr_coarse_grid)[slot];
}
