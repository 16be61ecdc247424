/* interference.c — vertex-vs-SDF interference (seed 002's narrowphase).
 *
 * For each broadphase pair, the sample points of each body are tested against
 * the other body's signed distance function; points inside (or close enough
 * that this step's motion can bring them inside) are kept, with the normal
 * grad(phi) and the depth phi, as the pair's interference points. Seed 002
 * handles nonconvex bodies with several contact regions this way: every point
 * is independent, there is no contact manifold reduction.
 *
 *   sphere vs any   the sphere's centre against the other SDF, minus the
 *                   radius: one exact point (no samples of the other body)
 *   box, mesh       sample points both ways (a box's edge samples are
 *                   skipped against a plane: a flat face never reaches them
 *                   before the corners)
 *   plane           no samples; its SDF is the height above it
 *
 * Notes
 *   - Detection runs once per step, at the start-of-step configuration, and
 *     keeps every point whose depth phi is below a margin that covers the
 *     relative motion this step can produce (speeds, spin, gravity). The
 *     collision and contact passes then predict each point's depth at the
 *     predicted positions as phi + dt * (relative normal velocity), which is
 *     the seed's "interference at the predicted positions" to first order in
 *     dt. Re-running the SDF queries at every pass, as the seed does, would
 *     cost 15x as much; docs/solver.md says why this is the same to first
 *     order and why it is also safer against tunnelling.
 *   - Pruning before any SDF query: bounding spheres of the pair, their
 *     oriented bounding boxes (separating axes), then each
 *     sample, taken into the other body's frame with one 3x3 matrix, against
 *     that body's local bounding box grown by the margin, and for a mesh the
 *     minimum of the SDF over the block of cells around the sample (the
 *     seed's "labeling the minimum value of phi in each voxel").
 *   - Contact reduction: at most points_per_pair points per pair. Once the
 *     list is full, it keeps the support of the contact region: the extreme
 *     points along 13 fixed directions (both ways), and the deepest points in
 *     the other slots. Keeping only the deepest let a large flat face sink
 *     (the kept points bunch where it happens to be lowest, and the rest of
 *     the face goes unsupported). Points dropped by design are not overflow;
 *     manifolds beyond contact_capacity and points beyond point_capacity are.
 */
#include "solver/solver.h"

#include <string.h>

typedef struct np_pair {
    cr_step *s;
    uint32_t a, b;
    const cr_body *A, *B;
    cr_real margin;
    cr_real soft;                      /* m, the pair's soft layer: squishy bodies let others this deep (squash model) */
    uint32_t n, cap;
    bool reducing;                     /* the list is full: contact reduction runs */
    uint32_t ndir;                     /* reduction directions in use */
    uint32_t ext[2 * CR_SUPPORT_DIRS]; /* slot of the extreme point along +d_k (2k) and -d_k (2k+1) */
    cr_real ext_val[2 * CR_SUPPORT_DIRS];
} np_pair;

/* The fixed world directions (applied to the arm r_a: one origin per pair) along which a full pair keeps its extreme
 * points: axes, then face diagonals, then body diagonals, so a small
 * points_per_pair uses the most telling ones first. Unnormalised: only the
 * order of p . d along one direction matters. */
static const int8_t support_dir[CR_SUPPORT_DIRS][3] = {
    {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 0}, {1, -1, 0}, {1, 0, 1}, {1, 0, -1},
    {0, 1, 1}, {0, 1, -1}, {1, 1, 1}, {1, 1, -1}, {1, -1, 1}, {1, -1, -1},
};

static cr_real along(cr_vec3 p, uint32_t k) {
    cr_real v = 0;
    if (support_dir[k][0]) v = support_dir[k][0] > 0 ? v + p.x : v - p.x;
    if (support_dir[k][1]) v = support_dir[k][1] > 0 ? v + p.y : v - p.y;
    if (support_dir[k][2]) v = support_dir[k][2] > 0 ? v + p.z : v - p.z;
    return v;
}

/* Contact reduction, begun when the pair's list first fills: every slot's
 * count of the directions it is the extreme of goes in s->live (unused until
 * the depth sort), and the extremes of the points so far are found. Half the
 * slots at most are extremes, so a deeper point always finds a slot. */
static void support_begin(np_pair *c) {
    uint32_t nd = c->cap / 4u;
    c->reducing = true;
    c->ndir = nd < CR_SUPPORT_DIRS ? nd : CR_SUPPORT_DIRS;
    uint32_t *refs = c->s->live;
    for (uint32_t i = 0; i < c->n; ++i) refs[i] = 0;
    for (uint32_t k = 0; k < c->ndir; ++k) {
        uint32_t hi = 0, lo = 0;
        cr_real vhi = along(c->s->tmp_pts[0].ra, k), vlo = vhi;
        for (uint32_t i = 1; i < c->n; ++i) {
            cr_real v = along(c->s->tmp_pts[i].ra, k);
            if (v > vhi) { vhi = v; hi = i; }
            if (v < vlo) { vlo = v; lo = i; }
        }
        c->ext[2 * k] = hi;
        c->ext_val[2 * k] = vhi;
        c->ext[2 * k + 1] = lo;
        c->ext_val[2 * k + 1] = vlo;
        refs[hi]++;
        refs[lo]++;
    }
}

/* A point arriving at a full pair: it takes the place of the shallowest
 * point that spans nothing, if it is deeper or if it is a new extreme along
 * one of the directions (the extreme it replaces may then be given up). */
static void support_add(np_pair *c, const cr_cpoint *cp) {
    cr_cpoint *pt = c->s->tmp_pts;
    uint32_t *refs = c->s->live;
    uint32_t wins = 0; /* bit e: cp beats extreme e */
    for (uint32_t k = 0; k < c->ndir; ++k) {
        cr_real v = along(cp->ra, k);
        if (v > c->ext_val[2 * k]) wins |= 1u << (2 * k);
        if (v < c->ext_val[2 * k + 1]) wins |= 1u << (2 * k + 1);
    }
    for (uint32_t e = 0; e < 2 * c->ndir; ++e)
        if (wins & (1u << e)) refs[c->ext[e]]--;
    uint32_t victim = c->n;
    for (uint32_t i = 0; i < c->n; ++i)
        if (refs[i] == 0 && (victim == c->n || pt[i].phi > pt[victim].phi)) victim = i;
    if (wins == 0 && (victim == c->n || cp->phi >= pt[victim].phi)) return;
    pt[victim] = *cp;
    refs[victim] = 0;
    for (uint32_t e = 0; e < 2 * c->ndir; ++e) {
        if (!(wins & (1u << e))) continue;
        c->ext[e] = victim;
        c->ext_val[e] = along(cp->ra, e / 2);
        refs[victim]++;
    }
}

static void add_point(np_pair *c, cr_vec3 p, cr_vec3 n, cr_real phi, bool of_a, uint32_t feature) {
    if (n.x == 0 && n.y == 0 && n.z == 0) return; /* no direction to push along */
    cr_cpoint cp;
    const cr_sbody *sa = &c->s->sb[c->a], *sb = &c->s->sb[c->b];
    cp.of_b = of_a ? 0u : 1u;
    cp.feature = feature | (of_a ? 0u : CR_FEATURE_OF_B);
    cp.ra = cr_v3_sub(p, c->A->xf.p);
    cp.rb = cr_v3_sub(p, c->B->xf.p);
    cp.n = n;
    cp.na = cr_v3_cross(cp.ra, n);
    cp.nb = cr_v3_cross(cp.rb, n);
    cp.wa = sa->dynamic ? cr_mat3_mul_v3(sa->inv_i, cp.na) : cr_v3_zero();
    cp.wb = sb->dynamic ? cr_mat3_mul_v3(sb->inv_i, cp.nb) : cr_v3_zero();
    cp.ka = sa->dynamic ? sa->inv_mass + cr_v3_dot(cp.na, cp.wa) : 0;
    cp.kb = sb->dynamic ? sb->inv_mass + cr_v3_dot(cp.nb, cp.wb) : 0;
    cp.k = cr_mat3_add(cri_body_k(sa, cp.ra), cri_body_k(sb, cp.rb));
    cp.kinv = cri_inverse_k(cp.k);
    cp.phi = c->soft != 0 ? phi + c->soft : phi; /* a squishy body's soft layer (squash model) */
    cp.bounce = CR_R(-1);
    cp.hit = 0;
    cp.jn = 0;
    cp.jt = cr_v3_zero();
    cp.jp = 0;
    if (c->n < c->cap) {
        c->s->tmp_pts[c->n++] = cp;
        return;
    }
    if (!c->reducing) support_begin(c);
    support_add(c, &cp);
}

/* Points of X against the SDF of Y. `x_is_a` says which side of the pair X
 * is, so the normal can always push body a away from body b. */
static void points_against(np_pair *c, const cr_body *X, const cr_body *Y, bool x_is_a) {
    const cr_world *w = c->s->w;
    cr_real margin = c->margin;
    if (X->shape.type == CR_SHAPE_PLANE) return;
    if (X->shape.type == CR_SHAPE_SPHERE) {
        cr_vec3 q = cr_transform_inv_point(Y->xf, X->xf.p);
        cr_vec3 nl;
        cr_real phi = cri_shape_sdf(w, &Y->shape, q, q, &nl) - X->shape.radius;
        if (phi >= margin) return;
        cr_vec3 n = cr_quat_rotate(Y->xf.q, nl);
        cr_vec3 p = cr_v3_mad(X->xf.p, -X->shape.radius, n);
        add_point(c, p, x_is_a ? n : cr_v3_neg(n), phi, x_is_a, 0);
        return;
    }

    cr_vec3 box[CR_BOX_MAX_SAMPLES];
    const cr_vec3 *samples;
    uint32_t count;
    if (X->shape.type == CR_SHAPE_BOX) {
        if (Y->shape.type == CR_SHAPE_PLANE) {
            count = 8; /* corners first in cri_box_samples */
            cri_box_samples(X->shape.half_extents, box);
        } else {
            count = cri_box_samples(X->shape.half_extents, box);
        }
        samples = box;
    } else {
        const cr_asset *asset = cr_world_asset(w, X->shape.asset);
        if (asset == NULL) return;
        samples = asset->samples;
        count = asset->sample_count;
        if (samples == NULL) {
            samples = asset->positions;
            count = asset->vertex_count;
        }
    }

    cr_mat3 rx = c->s->sb[X - c->s->bodies].rot;
    cr_vec3 hint = cr_transform_inv_point(Y->xf, X->xf.p); /* X's centre in Y's frame */
    if (Y->shape.type == CR_SHAPE_PLANE) {
        /* height over the plane, a dot product per sample, before any SDF call */
        cr_vec3 up = cr_quat_rotate(Y->xf.q, cr_v3(0, CR_R(1), 0));
        cr_vec3 up_in_x = cr_mat3_mul_v3(cr_mat3_transpose(rx), up);
        cr_real h0 = cr_v3_dot(up, cr_v3_sub(X->xf.p, Y->xf.p));
        for (uint32_t i = 0; i < count; ++i) {
            cr_real phi = h0 + cr_v3_dot(up_in_x, samples[i]);
            if (phi >= margin) continue;
            cr_vec3 p = cr_v3_add(cr_mat3_mul_v3(rx, samples[i]), X->xf.p);
            add_point(c, p, x_is_a ? up : cr_v3_neg(up), phi, x_is_a, i);
        }
        return;
    }
    /* X's frame to Y's as one matrix, and Y's local bounds grown by the
     * margin: most samples are rejected for a mat-vec and six compares */
    cr_mat3 ryt = cr_mat3_transpose(c->s->sb[Y - c->s->bodies].rot);
    cr_mat3 rel = cr_mat3_mul(ryt, rx);
    cr_vec3 trel = cr_mat3_mul_v3(ryt, cr_v3_sub(X->xf.p, Y->xf.p));
    cr_vec3 lo, hi;
    if (Y->shape.type == CR_SHAPE_BOX) {
        hi = Y->shape.half_extents;
        lo = cr_v3_neg(hi);
    } else if (Y->shape.type == CR_SHAPE_MESH && cr_world_asset(w, Y->shape.asset) != NULL) {
        const cr_asset *ya = cr_world_asset(w, Y->shape.asset);
        lo = ya->bounds_min;
        hi = ya->bounds_max;
    } else {
        hi = cr_v3(Y->bound_radius, Y->bound_radius, Y->bound_radius);
        lo = cr_v3_neg(hi);
    }
    cr_vec3 grow = cr_v3(margin, margin, margin);
    lo = cr_v3_sub(lo, grow);
    hi = cr_v3_add(hi, grow);
    const cr_asset *grid = Y->shape.type == CR_SHAPE_MESH ? cr_world_asset(w, Y->shape.asset) : NULL;
    const cr_coarse_grid *coarse = grid != NULL ? cri_world_coarse(w, Y->shape.asset) : NULL;
    /* X's sample clusters (meshes): a cluster whose sphere misses Y's grown
     * bounds is skipped whole */
    const cr_coarse_grid *xc = X->shape.type == CR_SHAPE_MESH ? cri_world_coarse(w, X->shape.asset) : NULL;
    uint32_t nclusters = (xc != NULL && xc->clusters > 0) ? xc->clusters : 1;
    for (uint32_t ci = 0; ci < nclusters; ++ci) {
        uint32_t i0 = 0, i1 = count;
        if (xc != NULL && xc->clusters > 0) {
            cr_vec3 qc = cr_v3_add(cr_mat3_mul_v3(rel, xc->centre[ci]), trel);
            cr_real r = xc->radius[ci];
            if (qc.x + r < lo.x || qc.x - r > hi.x || qc.y + r < lo.y || qc.y - r > hi.y || qc.z + r < lo.z ||
                qc.z - r > hi.z)
                continue;
            i0 = ci * CR_CLUSTER_SIZE;
            i1 = i0 + CR_CLUSTER_SIZE < count ? i0 + CR_CLUSTER_SIZE : count;
        }
    for (uint32_t k = i0; k < i1; ++k) {
        uint32_t i = (xc != NULL && xc->clusters > 0) ? xc->order[k] : k;
        cr_vec3 sl = samples[i];
        cr_vec3 q = cr_v3_add(cr_mat3_mul_v3(rel, sl), trel);
        if (q.x < lo.x || q.x > hi.x || q.y < lo.y || q.y > hi.y || q.z < lo.z || q.z > hi.z) continue;
        if (coarse != NULL && cri_coarse_lower_bound(coarse, grid, q) >= margin) continue;
        cr_vec3 nl;
        cr_real phi = cri_shape_sdf(w, &Y->shape, q, hint, &nl);
        if (phi >= margin) continue;
        cr_vec3 n = cr_mat3_mul_v3(cr_mat3_transpose(ryt), nl);
        cr_vec3 p = cr_v3_add(cr_mat3_mul_v3(rx, sl), X->xf.p);
        add_point(c, p, x_is_a ? n : cr_v3_neg(n), phi, x_is_a, i);
    }
    }
    if (X->shape.type != CR_SHAPE_BOX) return;
    /* Thin things: a box's edge samples are CR_BOX_SAMPLE_SPACING apart, so
     * a body thinner than that (a 2 cm rod across a box's ridge) can sit
     * between two of them, touched by no sample of either body, and fall
     * through. Where Y is thinner than the box's sample spacing, the parts of
     * X's edges inside Y's grown bounds get samples every half of Y's
     * thickness, at most CR_BOX_FINE_SAMPLES per edge. */
    cr_real thin = cr_min(hi.x - lo.x, cr_min(hi.y - lo.y, hi.z - lo.z)) - margin - margin;
    cr_real step = cr_half(thin);
    cr_vec3 h = X->shape.half_extents;
    const cr_real he[3] = {h.x, h.y, h.z};
    for (int axis = 0; axis < 3; ++axis) {
        /* the spacing cri_box_samples used along this axis */
        cr_real len = he[axis] + he[axis];
        if (step <= 0 || cr_mul(step, cr_from_int(CR_BOX_MAX_SEGMENTS)) >= len || step >= CR_BOX_SAMPLE_SPACING) continue;
        int u = (axis + 1) % 3, v = (axis + 2) % 3;
        for (int corner = 0; corner < 4; ++corner) {
            cr_real e0[3];
            e0[axis] = -he[axis];
            e0[u] = (corner & 1) ? he[u] : -he[u];
            e0[v] = (corner & 2) ? he[v] : -he[v];
            cr_vec3 a0 = cr_v3(e0[0], e0[1], e0[2]);
            cr_real d1[3] = {0, 0, 0};
            d1[axis] = len;
            cr_vec3 dir = cr_v3(d1[0], d1[1], d1[2]);
            /* the edge a0 + t dir, t in [0, 1], clipped to Y's grown bounds in Y's frame */
            cr_vec3 qa = cr_v3_add(cr_mat3_mul_v3(rel, a0), trel), qd = cr_mat3_mul_v3(rel, dir);
            cr_real t0 = 0, t1 = CR_R(1);
            const cr_real qa_[3] = {qa.x, qa.y, qa.z}, qd_[3] = {qd.x, qd.y, qd.z};
            const cr_real lo_[3] = {lo.x, lo.y, lo.z}, hi_[3] = {hi.x, hi.y, hi.z};
            for (int k = 0; k < 3 && t0 <= t1; ++k) {
                if (cr_abs(qd_[k]) <= CR_REAL_EPS) {
                    if (qa_[k] < lo_[k] || qa_[k] > hi_[k]) t1 = -CR_R(1);
                    continue;
                }
                cr_real ta = cr_div(lo_[k] - qa_[k], qd_[k]), tb = cr_div(hi_[k] - qa_[k], qd_[k]);
                if (ta > tb) {
                    cr_real t = ta;
                    ta = tb;
                    tb = t;
                }
                t0 = cr_max(t0, ta);
                t1 = cr_min(t1, tb);
            }
            if (t0 > t1) continue;
            cr_real dt_ = cr_div(step, len);
            int32_t count = 1 + cr_floor_int(cr_min(cr_div(t1 - t0, dt_), CR_R(1000)));
            if (count > (int32_t)CR_BOX_FINE_SAMPLES) {
                count = (int32_t)CR_BOX_FINE_SAMPLES;
                dt_ = cr_div(t1 - t0, cr_from_int(count - 1));
            }
            for (int32_t j = 0; j < count; ++j) {
                cr_real t = t0 + cr_mul(dt_, cr_from_int(j));
                if (t <= 0 || t >= CR_R(1)) continue; /* corners are sampled already */
                cr_vec3 sl = cr_v3_mad(a0, t, dir);
                cr_vec3 q = cr_v3_mad(qa, t, qd);
                cr_vec3 nl;
                cr_real phi = cri_shape_sdf(w, &Y->shape, q, hint, &nl);
                if (phi >= margin) continue;
                cr_vec3 n = cr_mat3_mul_v3(cr_mat3_transpose(ryt), nl);
                cr_vec3 p = cr_v3_add(cr_mat3_mul_v3(rx, sl), X->xf.p);
                /* a fine sample is named by its edge and its place on it */
                add_point(c, p, x_is_a ? n : cr_v3_neg(n), phi, x_is_a,
                          CR_FEATURE_FINE | (uint32_t)axis << 24 | (uint32_t)corner << 22 | (uint32_t)j);
            }
        }
    }
}

/* s->live[0..n) = indices of s->tmp_pts by depth, deepest first, ties in
 * detection order (a stable bottom-up merge sort: the same on every machine). */
static void sort_by_depth(cr_step *s, uint32_t n) {
    uint32_t *src = s->live, *dst = s->live_tmp;
    for (uint32_t i = 0; i < n; ++i) src[i] = i;
    const cr_cpoint *pt = s->tmp_pts;
    for (uint32_t width = 1; width < n; width += width) {
        for (uint32_t lo = 0; lo < n; lo += width + width) {
            uint32_t mid = lo + width < n ? lo + width : n, hi = lo + width + width < n ? lo + width + width : n;
            uint32_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) dst[k++] = pt[src[j]].phi < pt[src[i]].phi ? src[j++] : src[i++];
            while (i < mid) dst[k++] = src[i++];
            while (j < hi) dst[k++] = src[j++];
        }
        uint32_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != s->live)
        for (uint32_t i = 0; i < n; ++i) s->live[i] = src[i];
}

/* Bodies farther apart than their bounding spheres plus the margin cannot touch. */
static bool spheres_apart(const cr_body *A, const cr_body *B, cr_real margin) {
    if (A->shape.type == CR_SHAPE_PLANE || B->shape.type == CR_SHAPE_PLANE) return false;
    cr_real reach = A->bound_radius + B->bound_radius + margin;
    cr_vec3 d = cr_v3_sub(A->xf.p, B->xf.p);
    if (cr_abs(d.x) > reach || cr_abs(d.y) > reach || cr_abs(d.z) > reach) return true;
    return cr_v3_len_sq(d) > cr_mul(reach, reach);
}

/* A body's local bounding box (centre, half extents) if it has a tight one. */
static bool local_box(const cr_world *w, const cr_body *b, cr_vec3 *centre, cr_vec3 *half) {
    if (b->shape.type == CR_SHAPE_BOX) {
        *centre = cr_v3_zero();
        *half = b->shape.half_extents;
        return true;
    }
    if (b->shape.type == CR_SHAPE_MESH) {
        const cr_asset *a = cr_world_asset(w, b->shape.asset);
        if (a == NULL) return false;
        *centre = cr_v3_scale(cr_v3_add(a->bounds_min, a->bounds_max), CR_R(0.5));
        *half = cr_v3_scale(cr_v3_sub(a->bounds_max, a->bounds_min), CR_R(0.5));
        return true;
    }
    return false;
}

/* Separating-axis test of the two oriented bounding boxes, one grown by the
 * margin: a pair of rings whose bounding spheres overlap is often far apart
 * box-wise, and this costs less than taking 400 samples across. */
static bool boxes_apart(const cr_step *s, const cr_body *A, const cr_body *B, cr_real margin) {
    cr_vec3 ca, ha, cb, hb;
    if (!local_box(s->w, A, &ca, &ha) || !local_box(s->w, B, &cb, &hb)) return false;
    ha = cr_v3_add(ha, cr_v3(margin, margin, margin));
    cr_mat3 ra = s->sb[A - s->bodies].rot, rb = s->sb[B - s->bodies].rot;
    cr_vec3 d = cr_v3_sub(cr_v3_add(B->xf.p, cr_mat3_mul_v3(rb, cb)), cr_v3_add(A->xf.p, cr_mat3_mul_v3(ra, ca)));
    const cr_vec3 ax[3] = {ra.cx, ra.cy, ra.cz}, bx[3] = {rb.cx, rb.cy, rb.cz};
    const cr_real ea[3] = {ha.x, ha.y, ha.z}, eb[3] = {hb.x, hb.y, hb.z};
    cr_real r[3][3], ar[3][3], t[3];
    for (int i = 0; i < 3; ++i) {
        t[i] = cr_v3_dot(d, ax[i]);
        for (int j = 0; j < 3; ++j) {
            r[i][j] = cr_v3_dot(ax[i], bx[j]);
            ar[i][j] = cr_abs(r[i][j]) + CR_R(1e-6);
        }
    }
    for (int i = 0; i < 3; ++i) {
        cr_real rb_ = cr_mul(eb[0], ar[i][0]) + cr_mul(eb[1], ar[i][1]) + cr_mul(eb[2], ar[i][2]);
        if (cr_abs(t[i]) > ea[i] + rb_) return true;
    }
    for (int j = 0; j < 3; ++j) {
        cr_real ra_ = cr_mul(ea[0], ar[0][j]) + cr_mul(ea[1], ar[1][j]) + cr_mul(ea[2], ar[2][j]);
        cr_real tj = cr_mul(t[0], r[0][j]) + cr_mul(t[1], r[1][j]) + cr_mul(t[2], r[2][j]);
        if (cr_abs(tj) > ra_ + eb[j]) return true;
    }
    for (int i = 0; i < 3; ++i) {
        int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
        for (int j = 0; j < 3; ++j) {
            int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
            cr_real ra_ = cr_mul(ea[i1], ar[i2][j]) + cr_mul(ea[i2], ar[i1][j]);
            cr_real rb_ = cr_mul(eb[j1], ar[i][j2]) + cr_mul(eb[j2], ar[i][j1]);
            cr_real tt = cr_mul(t[i2], r[i1][j]) - cr_mul(t[i1], r[i2][j]);
            if (cr_abs(tt) > ra_ + rb_) return true;
        }
    }
    return false;
}

/* How far (m) the pair can close in on itself in one step, bounded from the
 * start-of-step velocities plus the gravity of the velocity update. */
static cr_real pair_margin(const cr_step *s, uint32_t a, uint32_t b, cr_real g_dt) {
    const cr_body *A = &s->bodies[a], *B = &s->bodies[b];
    cr_real speed = cr_v3_len(cr_v3_sub(A->v, B->v)) + g_dt + g_dt + s->sb[a].spin_reach + s->sb[b].spin_reach;
    /* other pairs' collisions may speed a body up within the step: a quarter more */
    speed += cr_mul(speed, CR_R(0.25));
    return cr_mul(speed, s->dt) + CR_CANDIDATE_SLOP;
}

/* One pass over the pairs: each pair's points, at most `cap` of them (a
 * full list keeps its support), into the pool, in pair order. *found gets
 * every point the pairs found; with `counts`, the number each pair with
 * points found (the first *ncounts pairs, up to contact_capacity). A pair
 * whose points do not all fit keeps its deepest ones that do. Returns
 * whether the pool ran out. */
static bool narrow_pass(cr_step *s, uint32_t cap, uint64_t *found, uint32_t *counts, uint32_t *ncounts) {
    cr_world *w = s->w;
    const cr_world_def *def = &w->def;
    cr_real g_dt = cr_mul(cr_v3_len(def->gravity), s->dt);
    bool ran_out = false;
    s->nm = 0;
    s->npts = 0;
    *found = 0;
    if (ncounts != NULL) *ncounts = 0;
    for (uint32_t k = 0; k < s->npairs; ++k) {
        uint32_t a = (uint32_t)(s->pairs[k] >> 32), b = (uint32_t)(s->pairs[k] & 0xffffffffu);
        np_pair c;
        memset(&c, 0, sizeof c);
        c.s = s;
        c.a = a;
        c.b = b;
        c.A = &s->bodies[a];
        c.B = &s->bodies[b];
        c.cap = cap;
        c.margin = pair_margin(s, a, b, g_dt);
        c.soft = c.A->soft_depth + c.B->soft_depth;
        if (c.soft != 0) c.margin -= c.soft;
        if (spheres_apart(c.A, c.B, c.margin) || boxes_apart(s, c.A, c.B, c.margin)) continue;

        cr_shape_type ta = c.A->shape.type, tb = c.B->shape.type;
        if (ta == CR_SHAPE_SPHERE) {
            points_against(&c, c.A, c.B, true);
        } else if (tb == CR_SHAPE_SPHERE) {
            points_against(&c, c.B, c.A, false);
        } else {
            points_against(&c, c.A, c.B, true);
            points_against(&c, c.B, c.A, false);
        }
        if (c.n == 0) continue;
        *found += c.n;
        if (counts != NULL && *ncounts < def->contact_capacity) counts[(*ncounts)++] = c.n;
        uint32_t room = def->point_capacity - s->npts;
        if (c.n > room) ran_out = true;
        if (s->nm >= def->contact_capacity || room == 0) continue;
        cr_manifold *m = &s->m[s->nm++];
        memset(m, 0, sizeof *m);
        m->a = a;
        m->b = b;
        m->first = s->npts;
        m->level = 0;
        m->restitution = cr_min(c.A->material.restitution, c.B->material.restitution);
        m->friction = cr_min(c.A->material.friction, c.B->material.friction);
        m->rolling = cr_max(c.A->material.rolling_friction, c.B->material.rolling_friction);
        m->spinning = cr_max(c.A->material.spinning_friction, c.B->material.spinning_friction);
        m->contact_point = m->first;
        m->impact_point = m->first;
        /* deepest first: the order the aggressive optimisation works the list in */
        sort_by_depth(s, c.n);
        m->count = c.n < room ? c.n : room;
        for (uint32_t i = 0; i < m->count; ++i) s->pts[s->npts + i] = s->tmp_pts[s->live[i]];
        s->npts += m->count;
    }
    return ran_out;
}

/* Points that did not fit: every pair's list stays whole while the pool has
 * room. When it has not, the pairs met first took it all and the later ones
 * got nothing: a row of dominoes in a scene sized for a pile (16 points a
 * box; the row's edge-on-face pairs need about 50 a domino at once) lost the
 * contact between the fifth and the sixth, the fifth went through the
 * sixth's foot, and the row stopped there. Then the pass runs again with
 * every pair cut to one share: the largest L with sum(min(n_i, L)) within
 * the pool, each list cut by the support-keeping reduction; pairs that need
 * fewer keep all theirs. The overflow counts what did not fit whole (points
 * beyond the pool or beyond contact_capacity's manifolds). */
void cri_interference(cr_step *s) {
    const cr_world_def *def = &s->w->def;
    uint32_t *counts = s->order, n = 0;
    uint64_t wanted = 0, again;
    if (narrow_pass(s, def->points_per_pair, &wanted, counts, &n)) {
        uint32_t lo = 1, hi = def->points_per_pair;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo + 1) / 2;
            uint64_t sum = 0;
            for (uint32_t i = 0; i < n; ++i) sum += counts[i] < mid ? counts[i] : mid;
            if (sum <= def->point_capacity) lo = mid;
            else hi = mid - 1;
        }
        narrow_pass(s, lo, &again, NULL, NULL);
    }
    s->w->stats.stage[CR_STAGE_narrowphase].work = s->npts;
    s->w->stats.stage[CR_STAGE_narrowphase].overflow = (uint32_t)(wanted - s->npts);
}
