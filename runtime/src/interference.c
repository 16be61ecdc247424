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
 *   - At most points_per_pair points per pair: when full, a deeper point
 *     replaces the shallowest one (overflow counted). Manifolds beyond
 *     contact_capacity and points beyond point_capacity are counted too.
 */
#include "solver.h"

#include <string.h>

typedef struct np_pair {
    cr_step *s;
    uint32_t a, b;
    const cr_body *A, *B;
    cr_real margin;
    uint32_t n, cap, overflow;
} np_pair;

static void add_point(np_pair *c, cr_vec3 p, cr_vec3 n, cr_real phi, bool of_a) {
    if (n.x == 0 && n.y == 0 && n.z == 0) return; /* no direction to push along */
    cr_cpoint cp;
    const cr_sbody *sa = &c->s->sb[c->a], *sb = &c->s->sb[c->b];
    cp.of_b = of_a ? 0u : 1u;
    cp.ra = cr_v3_sub(p, c->A->xf.p);
    cp.rb = cr_v3_sub(p, c->B->xf.p);
    cp.n = n;
    cp.na = cr_v3_cross(cp.ra, n);
    cp.nb = cr_v3_cross(cp.rb, n);
    cp.wa = sa->dynamic ? cr_mat3_mul_v3(sa->inv_i, cp.na) : cr_v3_zero();
    cp.wb = sb->dynamic ? cr_mat3_mul_v3(sb->inv_i, cp.nb) : cr_v3_zero();
    cp.ka = sa->dynamic ? sa->inv_mass + cr_v3_dot(cp.na, cp.wa) : 0;
    cp.kb = sb->dynamic ? sb->inv_mass + cr_v3_dot(cp.nb, cp.wb) : 0;
    cp.k = cr_mat3_add(cr_body_k(sa, cp.ra), cr_body_k(sb, cp.rb));
    cp.kinv = cr_inverse_k(cp.k);
    cp.phi = phi;
    cp.jn = 0;
    cp.jt = cr_v3_zero();
    if (c->n < c->cap) {
        c->s->tmp_pts[c->n++] = cp;
        return;
    }
    c->overflow++;
    uint32_t shallowest = 0;
    for (uint32_t i = 1; i < c->n; ++i)
        if (c->s->tmp_pts[i].phi > c->s->tmp_pts[shallowest].phi) shallowest = i;
    if (phi < c->s->tmp_pts[shallowest].phi) c->s->tmp_pts[shallowest] = cp;
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
        cr_real phi = cr_shape_sdf(w, &Y->shape, q, q, &nl) - X->shape.radius;
        if (phi >= margin) return;
        cr_vec3 n = cr_quat_rotate(Y->xf.q, nl);
        cr_vec3 p = cr_v3_mad(X->xf.p, -X->shape.radius, n);
        add_point(c, p, x_is_a ? n : cr_v3_neg(n), phi, x_is_a);
        return;
    }

    cr_vec3 box[CR_BOX_MAX_SAMPLES];
    const cr_vec3 *samples;
    uint32_t count;
    if (X->shape.type == CR_SHAPE_BOX) {
        if (Y->shape.type == CR_SHAPE_PLANE) {
            count = 8; /* corners first in cr_box_samples */
            cr_box_samples(X->shape.half_extents, box);
        } else {
            count = cr_box_samples(X->shape.half_extents, box);
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
            add_point(c, p, x_is_a ? up : cr_v3_neg(up), phi, x_is_a);
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
    const cr_coarse_grid *coarse = grid != NULL ? cr_world_coarse(w, Y->shape.asset) : NULL;
    /* X's sample clusters (meshes): a cluster whose sphere misses Y's grown
     * bounds is skipped whole */
    const cr_coarse_grid *xc = X->shape.type == CR_SHAPE_MESH ? cr_world_coarse(w, X->shape.asset) : NULL;
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
        if (coarse != NULL && cr_coarse_lower_bound(coarse, grid, q) >= margin) continue;
        cr_vec3 nl;
        cr_real phi = cr_shape_sdf(w, &Y->shape, q, hint, &nl);
        if (phi >= margin) continue;
        cr_vec3 n = cr_mat3_mul_v3(cr_mat3_transpose(ryt), nl);
        cr_vec3 p = cr_v3_add(cr_mat3_mul_v3(rx, sl), X->xf.p);
        add_point(c, p, x_is_a ? n : cr_v3_neg(n), phi, x_is_a);
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

void cr_interference(cr_step *s) {
    cr_world *w = s->w;
    const cr_world_def *def = &w->def;
    cr_real g_dt = cr_mul(cr_v3_len(def->gravity), s->dt);
    uint32_t overflow = 0;
    s->nm = 0;
    s->npts = 0;
    for (uint32_t k = 0; k < s->npairs; ++k) {
        uint32_t a = (uint32_t)(s->pairs[k] >> 32), b = (uint32_t)(s->pairs[k] & 0xffffffffu);
        np_pair c;
        memset(&c, 0, sizeof c);
        c.s = s;
        c.a = a;
        c.b = b;
        c.A = &s->bodies[a];
        c.B = &s->bodies[b];
        c.cap = def->points_per_pair;
        c.margin = pair_margin(s, a, b, g_dt);
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
        overflow += c.overflow;
        if (c.n == 0) continue;
        if (s->nm >= def->contact_capacity || s->npts + c.n > def->point_capacity) {
            overflow += c.n;
            continue;
        }
        cr_manifold *m = &s->m[s->nm++];
        memset(m, 0, sizeof *m);
        m->a = a;
        m->b = b;
        m->first = s->npts;
        m->count = c.n;
        m->level = 0;
        m->restitution = cr_min(c.A->material.restitution, c.B->material.restitution);
        m->friction = cr_min(c.A->material.friction, c.B->material.friction);
        m->rolling = cr_max(c.A->material.rolling_friction, c.B->material.rolling_friction);
        m->spinning = cr_max(c.A->material.spinning_friction, c.B->material.spinning_friction);
        m->contact_point = m->first;
        m->impact_point = m->first;
        /* deepest first: the order the aggressive optimisation works the list in */
        sort_by_depth(s, c.n);
        for (uint32_t i = 0; i < c.n; ++i) s->pts[s->npts + i] = s->tmp_pts[s->live[i]];
        s->npts += c.n;
    }
    w->stats.stage[CR_STAGE_narrowphase].work = s->npts;
    w->stats.stage[CR_STAGE_narrowphase].overflow = overflow;
}
