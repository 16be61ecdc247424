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
#include "solver.h"

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

cr_real cr_shape_sdf(const cr_world *w, const cr_shape_def *s, cr_vec3 p, cr_vec3 hint, cr_vec3 *n) {
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

uint32_t cr_box_samples(cr_vec3 h, cr_vec3 *out) {
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

void cr_shape_mass(const cr_world *w, const cr_shape_def *s, cr_real rho, cr_real *mass, cr_vec3 *inertia,
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
