/* crumple/vecmath.h — vectors, quaternions, 3x3 matrices and rigid transforms on cr_real.
 *
 * All functions are small static inline value functions so that the solver
 * reads like the maths in the seeds. Every product goes through cr_mul, so
 * the same source is exact Q32.32 in fixed builds and float32 otherwise.
 * Evaluation order is fixed by the source (no fused multiply-add: the build
 * uses -ffp-contract=off), which is what makes results bit-identical.
 */
#ifndef CRUMPLE_VECMATH_H
#define CRUMPLE_VECMATH_H

#include "real.h"

/* link names carry the scalar mode (CR_LINK_NAME, crumple/real.h) */
#define cr_v3_len_wide_ CR_LINK_NAME(cr_v3_len_wide_)

#ifdef __cplusplus
extern "C" {
#endif

/// A point or direction in metres (or a velocity in m/s, depending on use).
typedef struct cr_vec3 { cr_real x, y, z; } cr_vec3;
/// Unit quaternion (x, y, z, w) for orientations.
typedef struct cr_quat { cr_real x, y, z, w; } cr_quat;
/// 3x3 matrix stored as three columns.
typedef struct cr_mat3 { cr_vec3 cx, cy, cz; } cr_mat3;
/// Rigid transform: rotate by q, then translate by p.
typedef struct cr_transform { cr_vec3 p; cr_quat q; } cr_transform;

static inline cr_vec3 cr_v3(cr_real x, cr_real y, cr_real z) { cr_vec3 v = {x, y, z}; return v; }
static inline cr_vec3 cr_v3_zero(void) { cr_vec3 v = {0, 0, 0}; return v; }
static inline cr_vec3 cr_v3_add(cr_vec3 a, cr_vec3 b) { return cr_v3(a.x + b.x, a.y + b.y, a.z + b.z); }
static inline cr_vec3 cr_v3_sub(cr_vec3 a, cr_vec3 b) { return cr_v3(a.x - b.x, a.y - b.y, a.z - b.z); }
static inline cr_vec3 cr_v3_neg(cr_vec3 a) { return cr_v3(-a.x, -a.y, -a.z); }
static inline cr_vec3 cr_v3_scale(cr_vec3 a, cr_real s) { return cr_v3(cr_mul(a.x, s), cr_mul(a.y, s), cr_mul(a.z, s)); }
/// a + s*b
static inline cr_vec3 cr_v3_mad(cr_vec3 a, cr_real s, cr_vec3 b) { return cr_v3_add(a, cr_v3_scale(b, s)); }
static inline cr_vec3 cr_v3_mulv(cr_vec3 a, cr_vec3 b) { return cr_v3(cr_mul(a.x, b.x), cr_mul(a.y, b.y), cr_mul(a.z, b.z)); }
static inline cr_real cr_v3_dot(cr_vec3 a, cr_vec3 b) { return cr_mul(a.x, b.x) + cr_mul(a.y, b.y) + cr_mul(a.z, b.z); }
static inline cr_vec3 cr_v3_cross(cr_vec3 a, cr_vec3 b) {
    return cr_v3(cr_mul(a.y, b.z) - cr_mul(a.z, b.y), cr_mul(a.z, b.x) - cr_mul(a.x, b.z), cr_mul(a.x, b.y) - cr_mul(a.y, b.x));
}
static inline cr_real cr_v3_len_sq(cr_vec3 a) { return cr_v3_dot(a, a); }
#if CR_FIXED
/// Length of a vector whose squares may not fit Q32.32 (runtime/src/base/vec_len.c).
cr_real cr_v3_len_wide_(cr_vec3 a);
/* Below 26754 per component the three squares sum inside Q32.32 (3 x
 * 26754^2 < 2^31); past it a huge impulse or velocity would overflow the
 * sum (undefined behaviour), so it is measured on a scaled copy. */
static inline cr_real cr_v3_len(cr_vec3 a) {
    const cr_real safe = CR_R(26754);
    if (a.x > -safe && a.x < safe && a.y > -safe && a.y < safe && a.z > -safe && a.z < safe) return cr_sqrt(cr_v3_dot(a, a));
    return cr_v3_len_wide_(a);
}
#else
static inline cr_real cr_v3_len(cr_vec3 a) { return cr_sqrt(cr_v3_dot(a, a)); }
#endif
static inline cr_vec3 cr_v3_min(cr_vec3 a, cr_vec3 b) { return cr_v3(cr_min(a.x, b.x), cr_min(a.y, b.y), cr_min(a.z, b.z)); }
static inline cr_vec3 cr_v3_max(cr_vec3 a, cr_vec3 b) { return cr_v3(cr_max(a.x, b.x), cr_max(a.y, b.y), cr_max(a.z, b.z)); }
static inline cr_vec3 cr_v3_lerp(cr_vec3 a, cr_vec3 b, cr_real t) { return cr_v3_add(a, cr_v3_scale(cr_v3_sub(b, a), t)); }
/// Unit vector along a; the zero vector stays zero.
static inline cr_vec3 cr_v3_normalize(cr_vec3 a) {
    cr_real l = cr_v3_len(a);
    if (l <= CR_REAL_EPS) return cr_v3_zero();
    return cr_v3_scale(a, cr_div(CR_R(1), l));
}
/// Like cr_v3_normalize but also returns the length.
static inline cr_vec3 cr_v3_normalize_len(cr_vec3 a, cr_real *len) {
    cr_real l = cr_v3_len(a);
    *len = l;
    if (l <= CR_REAL_EPS) return cr_v3_zero();
    return cr_v3_scale(a, cr_div(CR_R(1), l));
}

static inline cr_quat cr_quat_identity(void) { cr_quat q = {0, 0, 0, CR_R(1)}; return q; }
static inline cr_quat cr_quat_conj(cr_quat q) { cr_quat r = {-q.x, -q.y, -q.z, q.w}; return r; }
static inline cr_quat cr_quat_mul(cr_quat a, cr_quat b) {
    cr_quat r;
    r.x = cr_mul(a.w, b.x) + cr_mul(a.x, b.w) + cr_mul(a.y, b.z) - cr_mul(a.z, b.y);
    r.y = cr_mul(a.w, b.y) - cr_mul(a.x, b.z) + cr_mul(a.y, b.w) + cr_mul(a.z, b.x);
    r.z = cr_mul(a.w, b.z) + cr_mul(a.x, b.y) - cr_mul(a.y, b.x) + cr_mul(a.z, b.w);
    r.w = cr_mul(a.w, b.w) - cr_mul(a.x, b.x) - cr_mul(a.y, b.y) - cr_mul(a.z, b.z);
    return r;
}
static inline cr_quat cr_quat_normalize(cr_quat q) {
    cr_real n2 = cr_mul(q.x, q.x) + cr_mul(q.y, q.y) + cr_mul(q.z, q.z) + cr_mul(q.w, q.w);
    if (n2 <= CR_REAL_EPS) return cr_quat_identity();
    cr_real s = cr_rsqrt(n2);
    cr_quat r = {cr_mul(q.x, s), cr_mul(q.y, s), cr_mul(q.z, s), cr_mul(q.w, s)};
    return r;
}
/// Rotation of `angle` radians about the unit vector `axis`.
static inline cr_quat cr_quat_from_axis_angle(cr_vec3 axis, cr_real angle) {
    cr_real h = cr_half(angle), s = cr_sin(h);
    cr_quat q = {cr_mul(axis.x, s), cr_mul(axis.y, s), cr_mul(axis.z, s), cr_cos(h)};
    return q;
}
/// q * v * conj(q), written as v + 2w(u×v) + 2u×(u×v).
static inline cr_vec3 cr_quat_rotate(cr_quat q, cr_vec3 v) {
    cr_vec3 u = cr_v3(q.x, q.y, q.z);
    cr_vec3 t = cr_v3_cross(u, v);
    t = cr_v3_add(t, t);
    return cr_v3_add(cr_v3_add(v, cr_v3_scale(t, q.w)), cr_v3_cross(u, t));
}
static inline cr_vec3 cr_quat_inv_rotate(cr_quat q, cr_vec3 v) { return cr_quat_rotate(cr_quat_conj(q), v); }
/// Advance orientation q by angular velocity w (rad/s) over dt: q + dt/2 * (w,0) q, renormalised.
static inline cr_quat cr_quat_integrate(cr_quat q, cr_vec3 w, cr_real dt) {
    cr_real h = cr_half(dt);
    cr_quat wq = {cr_mul(w.x, h), cr_mul(w.y, h), cr_mul(w.z, h), 0};
    cr_quat d = cr_quat_mul(wq, q);
    cr_quat r = {q.x + d.x, q.y + d.y, q.z + d.z, q.w + d.w};
    return cr_quat_normalize(r);
}

static inline cr_mat3 cr_mat3_identity(void) {
    cr_mat3 m = {{CR_R(1), 0, 0}, {0, CR_R(1), 0}, {0, 0, CR_R(1)}};
    return m;
}
static inline cr_mat3 cr_mat3_diag(cr_vec3 d) {
    cr_mat3 m = {{d.x, 0, 0}, {0, d.y, 0}, {0, 0, d.z}};
    return m;
}
static inline cr_vec3 cr_mat3_mul_v3(cr_mat3 m, cr_vec3 v) {
    return cr_v3_add(cr_v3_add(cr_v3_scale(m.cx, v.x), cr_v3_scale(m.cy, v.y)), cr_v3_scale(m.cz, v.z));
}
static inline cr_mat3 cr_mat3_transpose(cr_mat3 m) {
    cr_mat3 t = {{m.cx.x, m.cy.x, m.cz.x}, {m.cx.y, m.cy.y, m.cz.y}, {m.cx.z, m.cy.z, m.cz.z}};
    return t;
}
static inline cr_mat3 cr_mat3_mul(cr_mat3 a, cr_mat3 b) {
    cr_mat3 r = {cr_mat3_mul_v3(a, b.cx), cr_mat3_mul_v3(a, b.cy), cr_mat3_mul_v3(a, b.cz)};
    return r;
}
static inline cr_mat3 cr_mat3_add(cr_mat3 a, cr_mat3 b) {
    cr_mat3 r = {cr_v3_add(a.cx, b.cx), cr_v3_add(a.cy, b.cy), cr_v3_add(a.cz, b.cz)};
    return r;
}
static inline cr_mat3 cr_mat3_scale(cr_mat3 a, cr_real s) {
    cr_mat3 r = {cr_v3_scale(a.cx, s), cr_v3_scale(a.cy, s), cr_v3_scale(a.cz, s)};
    return r;
}
static inline cr_real cr_mat3_det(cr_mat3 m) { return cr_v3_dot(m.cx, cr_v3_cross(m.cy, m.cz)); }
/// Inverse; a singular matrix gives the zero matrix (used for infinite-mass bodies).
static inline cr_mat3 cr_mat3_inverse(cr_mat3 m) {
    cr_real det = cr_mat3_det(m);
    cr_mat3 r = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
    if (cr_abs(det) <= CR_REAL_EPS) return r;
    cr_real inv = cr_div(CR_R(1), det);
    cr_vec3 r0 = cr_v3_cross(m.cy, m.cz), r1 = cr_v3_cross(m.cz, m.cx), r2 = cr_v3_cross(m.cx, m.cy);
    /* rows of the inverse are the cross products; transpose into columns */
    cr_mat3 rows = {cr_v3_scale(r0, inv), cr_v3_scale(r1, inv), cr_v3_scale(r2, inv)};
    return cr_mat3_transpose(rows);
}
/// Skew matrix [v]x with [v]x w = v × w.
static inline cr_mat3 cr_mat3_skew(cr_vec3 v) {
    cr_mat3 m = {{0, v.z, -v.y}, {-v.z, 0, v.x}, {v.y, -v.x, 0}};
    return m;
}
static inline cr_mat3 cr_mat3_from_quat(cr_quat q) {
    cr_mat3 m = {cr_quat_rotate(q, cr_v3(CR_R(1), 0, 0)), cr_quat_rotate(q, cr_v3(0, CR_R(1), 0)),
                 cr_quat_rotate(q, cr_v3(0, 0, CR_R(1)))};
    return m;
}
/// R diag(d) R^T: a body-frame diagonal tensor (e.g. inverse inertia) in world frame.
static inline cr_mat3 cr_mat3_rotate_diag(cr_quat q, cr_vec3 d) {
    cr_mat3 r = cr_mat3_from_quat(q);
    return cr_mat3_mul(cr_mat3_mul(r, cr_mat3_diag(d)), cr_mat3_transpose(r));
}

static inline cr_transform cr_transform_identity(void) { cr_transform t = {{0, 0, 0}, {0, 0, 0, CR_R(1)}}; return t; }
/// Body-space point to world space.
static inline cr_vec3 cr_transform_point(cr_transform t, cr_vec3 p) { return cr_v3_add(cr_quat_rotate(t.q, p), t.p); }
/// World-space point to body space.
static inline cr_vec3 cr_transform_inv_point(cr_transform t, cr_vec3 p) { return cr_quat_inv_rotate(t.q, cr_v3_sub(p, t.p)); }
/// a ∘ b: apply b, then a.
static inline cr_transform cr_transform_mul(cr_transform a, cr_transform b) {
    cr_transform r = {cr_transform_point(a, b.p), cr_quat_normalize(cr_quat_mul(a.q, b.q))};
    return r;
}
static inline cr_transform cr_transform_inverse(cr_transform t) {
    cr_quat qi = cr_quat_conj(t.q);
    cr_transform r = {cr_quat_rotate(qi, cr_v3_neg(t.p)), qi};
    return r;
}

#ifdef __cplusplus
}
#endif

#endif
