/* mesh_mass.c — unit-density mass properties of a closed surface (mesh_mass.h). */
#include "geometry/mesh_mass.h"

cr_mesh_mass cri_mesh_mass_of(const cr_vec3 *p, const uint32_t *tri, uint32_t count) {
    cr_real six_v = 0;
    cr_vec3 first = cr_v3_zero(); /* 24 x the first moment */
    cr_real xx = 0, yy = 0, zz = 0; /* 120 x the diagonal second moments */
    for (uint32_t t = 0; t < count; ++t) {
        cr_vec3 a = p[tri[3 * t]], b = p[tri[3 * t + 1]], c = p[tri[3 * t + 2]];
        cr_real d = cr_v3_dot(a, cr_v3_cross(b, c));
        cr_vec3 s = cr_v3_add(cr_v3_add(a, b), c);
        six_v += d;
        first = cr_v3_mad(first, d, s);
        cr_vec3 q = cr_v3_add(cr_v3_add(cr_v3_mulv(a, a), cr_v3_mulv(b, b)), cr_v3_add(cr_v3_mulv(c, c), cr_v3_mulv(s, s)));
        xx += cr_mul(d, q.x), yy += cr_mul(d, q.y), zz += cr_mul(d, q.z);
    }
    cr_mesh_mass m;
    m.volume = cr_div(six_v, CR_R(6));
    m.centre = cr_v3_zero();
    m.inertia = cr_v3_zero();
    if (m.volume <= 0) return m;
    m.centre = cr_v3_scale(first, cr_div(CR_R(1), cr_mul(CR_R(4), six_v))); /* (first/24) / (six_v/6) */
    cr_real sx = cr_div(xx, CR_R(120)), sy = cr_div(yy, CR_R(120)), sz = cr_div(zz, CR_R(120));
    /* about the origin, then moved to the centre (parallel axes) */
    cr_vec3 c = m.centre;
    sx -= cr_mul(m.volume, cr_mul(c.x, c.x)), sy -= cr_mul(m.volume, cr_mul(c.y, c.y)), sz -= cr_mul(m.volume, cr_mul(c.z, c.z));
    m.inertia = cr_v3(sy + sz, sx + sz, sx + sy);
    return m;
}
