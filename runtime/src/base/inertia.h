/* inertia.h — a body's inertia tensor in its own frame.
 *
 * Most bodies are cooked in their principal frame, so their tensor is the
 * diagonal `inertia` and its inverse the diagonal `inv_inertia`. A bone's
 * sub-body (damage/sub_body.c) keeps the parent's axes, which are not the
 * bone's principal axes: it also has products of inertia, the tensor's
 * off-diagonal entries (xy, xz, yz) in `inertia_products`, and then
 * `inv_inertia` / `inv_inertia_products` are the diagonal and off-diagonal
 * entries of the inverse tensor. Every use goes through these functions, and
 * a body without products takes exactly the diagonal arithmetic it always
 * did (the same bits), so only bodies with products pay for the full tensor.
 */
#ifndef CRUMPLE_INERTIA_H
#define CRUMPLE_INERTIA_H

#include "base/block.h"

static inline bool cri_inertia_principal(const cr_body *b) {
    cr_vec3 p = b->inertia_products;
    return p.x == 0 && p.y == 0 && p.z == 0;
}

/* A symmetric matrix from its diagonal d and off-diagonal entries o (xy, xz, yz). */
static inline cr_mat3 cri_inertia_sym(cr_vec3 d, cr_vec3 o) {
    cr_mat3 m = {{d.x, o.x, o.y}, {o.x, d.y, o.z}, {o.y, o.z, d.z}};
    return m;
}

static inline cr_vec3 cri_inertia_sym_mul(cr_vec3 d, cr_vec3 o, cr_vec3 v) {
    return cr_v3(cr_mul(d.x, v.x) + cr_mul(o.x, v.y) + cr_mul(o.y, v.z),
                 cr_mul(o.x, v.x) + cr_mul(d.y, v.y) + cr_mul(o.z, v.z),
                 cr_mul(o.y, v.x) + cr_mul(o.z, v.y) + cr_mul(d.z, v.z));
}

/* I v and I^-1 v, body frame. */
static inline cr_vec3 cri_inertia_mul(const cr_body *b, cr_vec3 v) {
    if (cri_inertia_principal(b)) return cr_v3_mulv(b->inertia, v);
    return cri_inertia_sym_mul(b->inertia, b->inertia_products, v);
}
static inline cr_vec3 cri_inertia_inv_mul(const cr_body *b, cr_vec3 v) {
    if (cri_inertia_principal(b)) return cr_v3_mulv(b->inv_inertia, v);
    return cri_inertia_sym_mul(b->inv_inertia, b->inv_inertia_products, v);
}

/* Twice the rotational energy w . I w of the body-frame spin w. */
static inline cr_real cri_inertia_energy(const cr_body *b, cr_vec3 w) {
    cr_vec3 d = b->inertia;
    if (cri_inertia_principal(b)) {
#if CR_FIXED
        /* summed as unsigned: a hostile body's energy past Q32.32 wraps instead of being undefined
         * (the range guards decide what to do with it); the same bits in range */
        return (cr_real)((uint64_t)cr_mul(d.x, cr_mul(w.x, w.x)) + (uint64_t)cr_mul(d.y, cr_mul(w.y, w.y)) +
                         (uint64_t)cr_mul(d.z, cr_mul(w.z, w.z)));
#else
        return cr_mul(d.x, cr_mul(w.x, w.x)) + cr_mul(d.y, cr_mul(w.y, w.y)) + cr_mul(d.z, cr_mul(w.z, w.z));
#endif
    }
    return cr_v3_dot(w, cri_inertia_sym_mul(d, b->inertia_products, w));
}

/* Equal principal moments and no products: I w is parallel to w whatever the body's turn. */
static inline bool cri_inertia_round(const cr_body *b) {
    cr_vec3 d = b->inertia;
    return d.x == d.y && d.y == d.z && cri_inertia_principal(b);
}

/* R I R^T and R I^-1 R^T for the body's rotation matrix R. */
static inline cr_mat3 cri_inertia_world(const cr_body *b, cr_mat3 r) {
    cr_mat3 m = cri_inertia_principal(b) ? cr_mat3_diag(b->inertia) : cri_inertia_sym(b->inertia, b->inertia_products);
    return cr_mat3_mul(cr_mat3_mul(r, m), cr_mat3_transpose(r));
}
static inline cr_mat3 cri_inertia_inv_world(const cr_body *b, cr_mat3 r) {
    cr_mat3 m = cri_inertia_principal(b) ? cr_mat3_diag(b->inv_inertia)
                                         : cri_inertia_sym(b->inv_inertia, b->inv_inertia_products);
    return cr_mat3_mul(cr_mat3_mul(r, m), cr_mat3_transpose(r));
}

/* A spin's angular momentum I(q) w and the spin I(q)^-1 h of a momentum h,
 * world frame, at orientation q: a body turned by anything but its own spin
 * (a joint's or a contact's position correction) keeps h, not w. */
static inline cr_vec3 cri_inertia_spin_momentum(const cr_body *b, cr_quat q, cr_vec3 w) {
    return cr_quat_rotate(q, cri_inertia_mul(b, cr_quat_inv_rotate(q, w)));
}
static inline cr_vec3 cri_inertia_spin_of(const cr_body *b, cr_quat q, cr_vec3 h) {
    return cr_quat_rotate(q, cri_inertia_inv_mul(b, cr_quat_inv_rotate(q, h)));
}

/* Sets the tensor (moments d > 0 on the diagonal, products o off it) and its
 * inverse; returns false, leaving the body as it was, for a tensor that is
 * not positive definite. The inverse is taken of the tensor scaled to a unit
 * diagonal, D^-1/2 I D^-1/2, whose entries are at most 1 in size: a limb's
 * determinant in kg^3 m^6 is below Q32.32's resolution, the scaled one is
 * not. */
bool cri_inertia_set(cr_body *b, cr_vec3 d, cr_vec3 o);

#endif
