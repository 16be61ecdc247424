/* inertia.c — setting a body's inertia tensor and its inverse (inertia.h).
 *
 * With products, the inverse is taken of N = S I S, S = diag(d)^-1/2: N has
 * a unit diagonal and off-diagonal entries of size below 1 for a positive
 * definite tensor, so its cofactors and determinant are well inside either
 * scalar mode's range whatever the body's size; I^-1 = S N^-1 S. Sylvester's
 * test on N (1 - n_xy^2 > 0 and det N > 0) is the positive definiteness
 * check.
 */
#include "base/inertia.h"

bool cri_inertia_set(cr_body *b, cr_vec3 d, cr_vec3 o) {
    if (!(d.x > 0 && d.y > 0 && d.z > 0)) return false;
    if (o.x == 0 && o.y == 0 && o.z == 0) {
        b->inertia = d, b->inertia_products = cr_v3_zero();
        b->inv_inertia = cr_v3(cr_div(CR_R(1), d.x), cr_div(CR_R(1), d.y), cr_div(CR_R(1), d.z));
        b->inv_inertia_products = cr_v3_zero();
        return true;
    }
    cr_vec3 s = cr_v3(cr_rsqrt(d.x), cr_rsqrt(d.y), cr_rsqrt(d.z));
    cr_real a = cr_mul(cr_mul(o.x, s.x), s.y), c = cr_mul(cr_mul(o.y, s.x), s.z), e = cr_mul(cr_mul(o.z, s.y), s.z);
    /* N = [1 a c; a 1 e; c e 1]: its cofactors */
    cr_real cxx = CR_R(1) - cr_mul(e, e), cyy = CR_R(1) - cr_mul(c, c), czz = CR_R(1) - cr_mul(a, a);
    cr_real cxy = cr_mul(c, e) - a, cxz = cr_mul(a, e) - c, cyz = cr_mul(a, c) - e;
    cr_real det = cxx + cr_mul(a, cxy) + cr_mul(c, cxz);
    if (!(czz > 0 && det > 0)) return false;
    cr_real inv_det = cr_div(CR_R(1), det);
    b->inertia = d, b->inertia_products = o;
    b->inv_inertia = cr_v3(cr_mul(cr_mul(cxx, inv_det), cr_mul(s.x, s.x)), cr_mul(cr_mul(cyy, inv_det), cr_mul(s.y, s.y)),
                           cr_mul(cr_mul(czz, inv_det), cr_mul(s.z, s.z)));
    b->inv_inertia_products = cr_v3(cr_mul(cr_mul(cxy, inv_det), cr_mul(s.x, s.y)),
                                    cr_mul(cr_mul(cxz, inv_det), cr_mul(s.x, s.z)),
                                    cr_mul(cr_mul(cyz, inv_det), cr_mul(s.y, s.z)));
    return true;
}
