/* segment.h — a ray as a segment origin + t * d, t in [0, 1], and its slab
 * test against a box (internal; ray.c, body_tree.c, mesh_tree.c).
 *
 * The slab test divides by each component of d once per ray. In fixed point
 * a quotient can leave Q32.32's range, so a slab whose quotient would pass
 * +-2 is clamped there before the multiply (the segment only spans [0, 1]),
 * and an axis along which the segment moves less than CR_SEGMENT_FLAT is
 * treated as flat, its slab widened by that much so the test stays
 * conservative.
 */
#ifndef CRUMPLE_QUERY_SEGMENT_H
#define CRUMPLE_QUERY_SEGMENT_H

#include "crumple/crumple.h"

/// m: a segment moving less than this along an axis is flat along it.
#if CR_FIXED
#define CR_SEGMENT_FLAT CR_R(1.0 / 65536.0)
#else
#define CR_SEGMENT_FLAT CR_R(0)
#endif

typedef struct cr_segment {
    cr_vec3 o, d;     ///< m, origin and translation
    cr_real inv[3];   ///< 1/d per axis (0 on a flat axis)
    uint8_t flat[3];  ///< the axis is flat
} cr_segment;

static inline cr_real cr_seg_axis(cr_vec3 v, int a) { return a == 0 ? v.x : a == 1 ? v.y : v.z; }

static inline cr_segment cri_segment(cr_vec3 o, cr_vec3 d) {
    cr_segment s;
    s.o = o, s.d = d;
    for (int a = 0; a < 3; ++a) {
        cr_real da = cr_seg_axis(d, a);
        s.flat[a] = cr_abs(da) <= CR_SEGMENT_FLAT;
        s.inv[a] = s.flat[a] ? 0 : cr_div(CR_R(1), da);
    }
    return s;
}

/* the fraction where the segment crosses coordinate `num` away from its origin */
static inline cr_real cri_segment_cross(cr_real num, cr_real d, cr_real inv) {
#if CR_FIXED
    if (cr_abs(num) >= 2 * cr_abs(d)) return (num < 0) != (d < 0) ? CR_R(-2) : CR_R(2);
#else
    (void)d;
#endif
    return cr_mul(num, inv);
}

/* one axis of the slab test: narrows [*enter, *leave]; false once it is empty */
static inline bool cri_segment_slab(cr_real o, cr_real d, cr_real inv, bool flat, cr_real l, cr_real h, cr_real *enter,
                                    cr_real *leave) {
    if (flat) return o >= l - CR_SEGMENT_FLAT && o <= h + CR_SEGMENT_FLAT;
    cr_real ta = cri_segment_cross(l - o, d, inv), tb = cri_segment_cross(h - o, d, inv);
    if (ta > tb) {
        cr_real t = ta;
        ta = tb, tb = t;
    }
    if (ta > *enter) *enter = ta;
    if (tb < *leave) *leave = tb;
    return *enter <= *leave;
}

/// Where the segment is inside lo .. hi: [*t0, *t1] within [0, tmax]; false if nowhere.
static inline bool cri_segment_box(const cr_segment *s, cr_vec3 lo, cr_vec3 hi, cr_real tmax, cr_real *t0,
                                   cr_real *t1) {
    cr_real enter = 0, leave = tmax;
    if (!cri_segment_slab(s->o.x, s->d.x, s->inv[0], s->flat[0], lo.x, hi.x, &enter, &leave) ||
        !cri_segment_slab(s->o.y, s->d.y, s->inv[1], s->flat[1], lo.y, hi.y, &enter, &leave) ||
        !cri_segment_slab(s->o.z, s->d.z, s->inv[2], s->flat[2], lo.z, hi.z, &enter, &leave))
        return false;
    *t0 = enter, *t1 = leave;
    return true;
}

/// The point at fraction t.
static inline cr_vec3 cri_segment_at(const cr_segment *s, cr_real t) { return cr_v3_mad(s->o, t, s->d); }

#endif
