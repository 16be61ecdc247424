/* sdf_grid.c — sampling a cooked asset's signed distance grid (seed 002).
 *
 * This is the inner loop of vertex-vs-SDF collision: every sample point of one
 * body is mapped into the other body's frame and looked up here. So the path
 * has no division (the loader stored 1/cell), no branch per corner, and reads
 * the eight corner values of one cell.
 *
 * Notes
 *   - Value: trilinear interpolation of the node values, which are exact
 *     signed distances at the nodes (cooker), so the error is bounded by the
 *     cell size times the curvature of the distance field, and is zero on flat
 *     regions.
 *   - Normal: the analytic gradient of the same trilinear function, so value
 *     and normal never disagree about which way is out. It is continuous
 *     inside a cell and only changes direction across cell faces, which is
 *     what the contact solver needs; unit length comes from one cr_rsqrt.
 *   - Outside the grid box the point is clamped to the box; the value is the
 *     boundary value plus the distance to the box, which by the triangle
 *     inequality never underestimates the true distance by more than the
 *     boundary's own error, so a far point is never reported as touching.
 *     Beyond 4 km from the box the largest coordinate difference stands in
 *     for the distance, because its square would overflow Q32.32.
 */
#include "crumple/asset.h"

static cr_real lerp(cr_real a, cr_real b, cr_real t) { return a + cr_mul(b - a, t); }

/* Integer cell index and fraction of a grid coordinate, clamped to [0, n-2] and [0, 1]. */
static int32_t cell_of(cr_real g, uint32_t n, cr_real *frac) {
    int32_t i = cr_floor_int(g);
    int32_t last = (int32_t)n - 2;
    if (i > last) i = last;
    if (i < 0) i = 0;
    *frac = cr_clamp(g - cr_from_int(i), 0, CR_R(1));
    return i;
}

cr_real cr_asset_sdf(const cr_asset *a, cr_vec3 p, cr_vec3 *normal_out) {
    const uint32_t nx = a->sdf_dims[0], ny = a->sdf_dims[1], nz = a->sdf_dims[2];
    const cr_vec3 lo = a->sdf_origin;
    const cr_vec3 hi = cr_v3(lo.x + cr_mul(cr_from_int((int32_t)nx - 1), a->sdf_cell),
                             lo.y + cr_mul(cr_from_int((int32_t)ny - 1), a->sdf_cell),
                             lo.z + cr_mul(cr_from_int((int32_t)nz - 1), a->sdf_cell));
    const cr_vec3 c = cr_v3_min(cr_v3_max(p, lo), hi);
    const cr_vec3 outside = cr_v3_sub(p, c);

    cr_real fx, fy, fz;
    const int32_t ix = cell_of(cr_mul(c.x - lo.x, a->sdf_inv_cell), nx, &fx);
    const int32_t iy = cell_of(cr_mul(c.y - lo.y, a->sdf_inv_cell), ny, &fy);
    const int32_t iz = cell_of(cr_mul(c.z - lo.z, a->sdf_inv_cell), nz, &fz);
    const uint32_t sy = nx, sz = nx * ny;
    const cr_real *v = a->sdf + (uint32_t)ix + sy * (uint32_t)iy + sz * (uint32_t)iz;
    const cr_real v000 = v[0], v100 = v[1], v010 = v[sy], v110 = v[sy + 1];
    const cr_real v001 = v[sz], v101 = v[sz + 1], v011 = v[sz + sy], v111 = v[sz + sy + 1];

    const cr_real x00 = lerp(v000, v100, fx), x10 = lerp(v010, v110, fx);
    const cr_real x01 = lerp(v001, v101, fx), x11 = lerp(v011, v111, fx);
    const cr_real y0 = lerp(x00, x10, fy), y1 = lerp(x01, x11, fy);
    cr_real d = lerp(y0, y1, fz);

    const bool is_outside = outside.x != 0 || outside.y != 0 || outside.z != 0;
    if (is_outside) {
        const cr_real far = CR_R(4096.0);
        const cr_real m = cr_max(cr_abs(outside.x), cr_max(cr_abs(outside.y), cr_abs(outside.z)));
        if (m > far) {
            /* kilometres away: the squared length would overflow Q32.32, so
             * use the largest component, which is never more than the length:
             * still kilometres, never a phantom contact */
            if (normal_out != NULL)
                *normal_out = m == cr_abs(outside.x) ? cr_v3(outside.x > 0 ? CR_R(1) : CR_R(-1), 0, 0)
                              : m == cr_abs(outside.y) ? cr_v3(0, outside.y > 0 ? CR_R(1) : CR_R(-1), 0)
                                                       : cr_v3(0, 0, outside.z > 0 ? CR_R(1) : CR_R(-1));
            return d + m;
        }
        cr_real dist;
        cr_vec3 dir = cr_v3_normalize_len(outside, &dist);
        d += dist;
        if (normal_out != NULL) *normal_out = dir;
        return d;
    }
    if (normal_out != NULL) {
        /* d/dfx, d/dfy, d/dfz of the trilinear form; the common 1/cell factor
         * is applied so fixed point keeps its precision on small cells */
        cr_real gx = lerp(lerp(v100 - v000, v110 - v010, fy), lerp(v101 - v001, v111 - v011, fy), fz);
        cr_real gy = lerp(x10 - x00, x11 - x01, fz);
        cr_real gz = y1 - y0;
        cr_vec3 g = cr_v3_scale(cr_v3(gx, gy, gz), a->sdf_inv_cell);
        cr_real g2 = cr_v3_len_sq(g);
        if (g2 > CR_R(1e-8)) {
            *normal_out = cr_v3_scale(g, cr_rsqrt(g2));
        } else {
            /* a flat spot (deep inside a thick part): point away from the centre of mass */
            cr_vec3 r = cr_v3_normalize(p);
            *normal_out = (r.x == 0 && r.y == 0 && r.z == 0) ? cr_v3(0, CR_R(1), 0) : r;
        }
    }
    return d;
}
