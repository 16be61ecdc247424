/* rolling_friction.c — rolling and spinning friction (seed 002).
 *
 * Static friction freezes the contact point but leaves a body free to roll
 * and spin about it; seed 002 treats rolling and spinning like kinetic
 * friction on the relative angular velocity w = w_a - w_b at the contact:
 *
 *   w_n = (w . N) N      spinning about the normal
 *   w_t = w - w_n        rolling
 *
 * Each magnitude is reduced by the coefficient times the normal impulse of
 * the contact stage, limited at zero so the body never reverses, keeping
 * the sign otherwise. Then one impulse is built that gives both the proposed
 * relative angular velocity and the proposed relative velocity at the
 * contact point (zero tangential slip when the point was sticking, unchanged
 * otherwise): a linear impulse j at the point plus a pure angular impulse L,
 * from the 6x6 system
 *
 *     [ K   B ] [ j ]   [ du ]      K = sum (1/m) E - [r]x I^-1 [r]x
 *     [ B^T M ] [ L ] = [ dw ],     B = -sum [r]x I^-1,  M = sum I^-1
 *
 * Decision (docs/solver.md): the coefficients are lever arms in metres, so
 * the angular impulse they may remove in a step is mu_r * j_n (N m s), the
 * moment of the normal impulse displaced by mu_r, as in the usual rolling
 * resistance model. As a reduction of relative angular velocity about the
 * unit axis t that is mu_r * j_n * (t . Ic^-1 t), with Ic the inertia about
 * the contact point, about which a rolling body turns. A ball of radius R
 * rolling on the ground then slows at mu_r g / (1.4 R) (solid sphere).
 */
#include "solver/solver.h"
#include "base/inertia.h"

/* Gaussian elimination with partial pivoting on a 6x6 system, after scaling
 * so the largest diagonal entry is 1 (fixed point keeps its precision). */
static bool solve6(cr_real a[6][7]) {
    cr_real big = 0;
    for (int i = 0; i < 6; ++i) big = cr_max(big, cr_abs(a[i][i]));
    if (big <= CR_REAL_EPS) return false;
    cr_real sc = cr_div(CR_R(1), big);
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 7; ++j) a[i][j] = cr_mul(a[i][j], sc);
    for (int c = 0; c < 6; ++c) {
        int p = c;
        for (int r = c + 1; r < 6; ++r)
            if (cr_abs(a[r][c]) > cr_abs(a[p][c])) p = r;
        if (cr_abs(a[p][c]) <= CR_R(1e-7)) return false;
        if (p != c)
            for (int j = 0; j < 7; ++j) {
                cr_real t = a[c][j];
                a[c][j] = a[p][j];
                a[p][j] = t;
            }
        cr_real inv = cr_div(CR_R(1), a[c][c]);
        for (int r = c + 1; r < 6; ++r) {
            cr_real f = cr_mul(a[r][c], inv);
            if (f == 0) continue;
            for (int j = c; j < 7; ++j) a[r][j] -= cr_mul(f, a[c][j]);
        }
    }
    for (int c = 5; c >= 0; --c) {
        cr_real x = a[c][6];
        for (int j = c + 1; j < 6; ++j) x -= cr_mul(a[c][j], a[j][6]);
        a[c][6] = cr_div(x, a[c][c]);
    }
    return true;
}

static cr_real col(cr_mat3 m, int r, int c) {
    cr_vec3 v = c == 0 ? m.cx : (c == 1 ? m.cy : m.cz);
    return r == 0 ? v.x : (r == 1 ? v.y : v.z);
}

/* Reduce |x| by d, never past zero. */
static cr_real shrink(cr_real x, cr_real d) {
    if (x > 0) return x > d ? x - d : 0;
    return -x > d ? x + d : 0;
}

/* Inverse of the inertia about the contact point, I + m (|r|^2 E - r r^T)
 * (world frame), of a dynamic body; zero otherwise. Rolling turns a body
 * about its contact point, so that is the inertia a rolling torque meets. */
static cr_mat3 contact_inv_inertia(const cr_step *s, uint32_t i, cr_vec3 r) {
    cr_mat3 zero = cr_mat3_scale(cr_mat3_identity(), 0);
    const cr_body *b = &s->bodies[i];
    if (!s->sb[i].dynamic) return zero;
    cr_mat3 ic = cri_inertia_world(b, cr_mat3_from_quat(b->xf.q));
    cr_real r2 = cr_v3_len_sq(r);
    cr_mat3 rr = {cr_v3_scale(r, r.x), cr_v3_scale(r, r.y), cr_v3_scale(r, r.z)};
    cr_mat3 shift = cr_mat3_add(cr_mat3_scale(cr_mat3_identity(), r2), cr_mat3_scale(rr, CR_R(-1)));
    ic = cr_mat3_add(ic, cr_mat3_scale(shift, b->mass));
    /* scaled to ~1 before the inverse: kg m^2 entries cube into the determinant */
    cr_real trace = ic.cx.x + ic.cy.y + ic.cz.z;
    if (trace <= CR_REAL_EPS) return zero;
    cr_real sc = cr_div(CR_R(3), trace);
    return cr_mat3_scale(cr_mat3_inverse(cr_mat3_scale(ic, sc)), sc);
}

static void roll_pair(cr_step *s, cr_manifold *m, cr_real jn) {
    const cr_cpoint *p = &s->pts[m->contact_point];
    cr_sbody *A = &s->sb[m->a], *B = &s->sb[m->b];
    cr_mat3 ia = A->dynamic ? A->inv_i : cr_mat3_scale(cr_mat3_identity(), 0);
    cr_mat3 ib = B->dynamic ? B->inv_i : cr_mat3_scale(cr_mat3_identity(), 0);
    cr_mat3 msum = cr_mat3_add(ia, ib);
    cr_vec3 n = p->n;
    cr_vec3 wrel = cr_v3_sub(A->w, B->w);
    cr_real wn = cr_v3_dot(wrel, n);
    cr_vec3 wt = cr_v3_mad(wrel, -wn, n);
    cr_real wt_len;
    cr_vec3 t = cr_v3_normalize_len(wt, &wt_len);

    cr_mat3 mc = cr_mat3_add(contact_inv_inertia(s, m->a, p->ra), contact_inv_inertia(s, m->b, p->rb));
    cr_real kt = cr_v3_dot(t, cr_mat3_mul_v3(mc, t));
    cr_real kn = cr_v3_dot(n, cr_mat3_mul_v3(mc, n));
    cr_real wt_new = shrink(wt_len, cr_mul(cr_mul(m->rolling, jn), kt));
    cr_real wn_new = shrink(wn, cr_mul(cr_mul(m->spinning, jn), kn));
    if (wt_new == wt_len && wn_new == wn) return;
    cr_vec3 dw = cr_v3_add(cr_v3_scale(t, wt_new - wt_len), cr_v3_scale(n, wn_new - wn));

    cr_vec3 u = cr_v3_sub(cr_v3_add(A->v, cr_v3_cross(A->w, p->ra)), cr_v3_add(B->v, cr_v3_cross(B->w, p->rb)));
    cr_vec3 du = cr_v3_zero();
    if (m->flags & CR_MF_STICKING) du = cr_v3_neg(cr_v3_mad(u, -cr_v3_dot(u, n), n));

    if (A->dynamic != B->dynamic) {
        /* one moving body: (j, L) gives it dv = j / m and dw = I^-1 (r x j + L),
         * so the impulse follows from the velocities directly, no 6x6 solve.
         * Relative velocities are a minus b, so b's changes are the negated ones. */
        cr_sbody *X = A->dynamic ? A : B;
        const cr_body *bx = &s->bodies[A->dynamic ? m->a : m->b];
        cr_vec3 r = A->dynamic ? p->ra : p->rb;
        cr_real sign = A->dynamic ? CR_R(1) : CR_R(-1);
        cr_vec3 dwx = cr_v3_scale(dw, sign), dux = cr_v3_scale(du, sign);
        cr_vec3 dvx = cr_v3_sub(dux, cr_v3_cross(dwx, r)); /* du = dv + dw x r */
        cr_vec3 j = cr_v3_scale(dvx, bx->mass);
        cr_vec3 l = cr_v3_sub(cr_mat3_mul_v3(cri_inertia_world(bx, cr_mat3_from_quat(bx->xf.q)), dwx), cr_v3_cross(r, j));
        X->v = cr_v3_mad(X->v, X->inv_mass, j);
        X->w = cr_v3_add(X->w, cr_mat3_mul_v3(X->inv_i, cr_v3_add(cr_v3_cross(r, j), l)));
        return;
    }
    cr_mat3 k = cr_mat3_add(cri_body_k(A, p->ra), cri_body_k(B, p->rb));
    cr_mat3 zero = cr_mat3_scale(cr_mat3_identity(), 0);
    cr_mat3 bm = cr_mat3_scale(cr_mat3_add(A->dynamic ? cr_mat3_mul(cr_mat3_skew(p->ra), ia) : zero,
                                           B->dynamic ? cr_mat3_mul(cr_mat3_skew(p->rb), ib) : zero),
                               CR_R(-1));
    cr_mat3 bt = cr_mat3_transpose(bm);
    cr_real sys[6][7];
    cr_vec3 rhs_u = du, rhs_w = dw;
    for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 3; ++c) {
            sys[r][c] = col(k, r, c);
            sys[r][c + 3] = col(bm, r, c);
            sys[r + 3][c] = col(bt, r, c);
            sys[r + 3][c + 3] = col(msum, r, c);
        }
    }
    sys[0][6] = rhs_u.x;
    sys[1][6] = rhs_u.y;
    sys[2][6] = rhs_u.z;
    sys[3][6] = rhs_w.x;
    sys[4][6] = rhs_w.y;
    sys[5][6] = rhs_w.z;
    if (!solve6(sys)) return;
    cr_vec3 j = cr_v3(sys[0][6], sys[1][6], sys[2][6]);
    cr_vec3 l = cr_v3(sys[3][6], sys[4][6], sys[5][6]);
    if (A->dynamic) {
        A->v = cr_v3_mad(A->v, A->inv_mass, j);
        A->w = cr_v3_add(A->w, cr_mat3_mul_v3(ia, cr_v3_add(cr_v3_cross(p->ra, j), l)));
    }
    if (B->dynamic) {
        B->v = cr_v3_mad(B->v, -B->inv_mass, j);
        B->w = cr_v3_sub(B->w, cr_mat3_mul_v3(ib, cr_v3_add(cr_v3_cross(p->rb, j), l)));
    }
}

void cri_rolling_friction(cr_step *s) {
    for (uint32_t k = 0; k < s->nm; ++k) {
        cr_manifold *m = &s->m[k];
        if (m->rolling <= 0 && m->spinning <= 0) continue;
        /* the pair's normal impulse so far (warm start included): this runs
         * before the last contact pass (contact.c), when a pair resolved in
         * the last pass only has not been pressed yet this step */
        cr_real jn = 0;
        for (uint32_t i = 0; i < m->count; ++i) {
            cr_real pj = s->pts[m->first + i].jn;
            if (pj > 0) jn = jn > CR_REAL_MAX - pj ? CR_REAL_MAX : jn + pj;
        }
        if (jn <= 0) continue;
        roll_pair(s, m, jn);
    }
}
