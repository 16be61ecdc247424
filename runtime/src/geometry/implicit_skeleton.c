/* implicit_skeleton.c — skeleton potentials and the rigid-body potential
 * (seed 003 §2.1; the header says which functions and why). */
#include "geometry/implicit_skeleton.h"
#include "base/check.h"

cr_squash_primitive cr_default_squash_primitive(void) {
    cr_squash_primitive p;
    memset(&p, 0, sizeof p);
    p.type = CR_SQUASH_POINT;
    p.radius = CR_R(1);
    p.weight = CR_R(1);
    return p;
}

/* P minus the primitive's nearest point (so r^2 = |v|^2 and the gradient of
 * r^2 is 2v: the nearest point moves with P only along the primitive, which
 * is perpendicular to v). */
static cr_vec3 offset_from(const cr_squash_primitive *q, cr_vec3 p) {
    cr_vec3 d = cr_v3_sub(p, q->a);
    if (q->type == CR_SQUASH_SEGMENT) {
        cr_vec3 ab = cr_v3_sub(q->b, q->a);
        cr_real l2 = cr_v3_len_sq(ab);
        if (l2 > 0) {
            cr_real t = cr_clamp(cr_div(cr_v3_dot(d, ab), l2), 0, CR_R(1));
            d = cr_v3_sub(d, cr_v3_scale(ab, t));
        }
    } else if (q->type == CR_SQUASH_RECT) {
        cr_real lb = cr_v3_len_sq(q->b), le = cr_v3_len_sq(q->e);
        if (lb > 0) d = cr_v3_sub(d, cr_v3_scale(q->b, cr_clamp(cr_div(cr_v3_dot(d, q->b), lb), -CR_R(1), CR_R(1))));
        if (le > 0) d = cr_v3_sub(d, cr_v3_scale(q->e, cr_clamp(cr_div(cr_v3_dot(d, q->e), le), -CR_R(1), CR_R(1))));
    }
    return d;
}

/* A cheap rejection before the exact offset: a box around the primitive grown by R. */
static bool far_from(const cr_squash_primitive *q, cr_vec3 p) {
    cr_vec3 lo = q->a, hi = q->a;
    if (q->type == CR_SQUASH_SEGMENT) lo = cr_v3_min(lo, q->b), hi = cr_v3_max(hi, q->b);
    else if (q->type == CR_SQUASH_RECT) {
        cr_vec3 s = cr_v3(cr_abs(q->b.x) + cr_abs(q->e.x), cr_abs(q->b.y) + cr_abs(q->e.y), cr_abs(q->b.z) + cr_abs(q->e.z));
        lo = cr_v3_sub(q->a, s), hi = cr_v3_add(q->a, s);
    }
    cr_real r = q->radius;
    return p.x < lo.x - r || p.y < lo.y - r || p.z < lo.z - r || p.x > hi.x + r || p.y > hi.y + r || p.z > hi.z + r;
}

/* The potential over the primitives in mask (ALL: every one, and the test is
 * compiled out of the plain call, the hot path). */
#define CRI_ALL_GROUPS 0xffffffffu
static inline cr_potential potential_of(const cr_squash_primitive *prims, uint32_t count, uint32_t mask, cr_vec3 p) {
    cr_potential out = {0, {0, 0, 0}};
    for (uint32_t i = 0; i < count; ++i) {
        const cr_squash_primitive *q = &prims[i];
        if (mask != CRI_ALL_GROUPS && !((mask >> (q->group & 31u)) & 1u)) continue;
        if (far_from(q, p)) continue;
        cr_vec3 v = offset_from(q, p);
        cr_real inv_r2 = cr_div(CR_R(1), cr_sq(q->radius));
        cr_real s = cr_mul(cr_v3_len_sq(v), inv_r2);
        if (s >= CR_R(1)) continue;
        cr_real t = CR_R(1) - s, t2 = cr_mul(t, t);
        out.f += cr_mul(q->weight, cr_mul(t2, t));
        /* d/dP w t^3 = w 3 t^2 (-2 v / R^2) */
        cr_real g = -cr_mul(cr_mul(q->weight, CR_R(6)), cr_mul(t2, inv_r2));
        out.grad = cr_v3_mad(out.grad, g, v);
    }
    return out;
}

cr_potential cri_skeleton_potential(const cr_squash_primitive *prims, uint32_t count, cr_vec3 p) {
    return potential_of(prims, count, CRI_ALL_GROUPS, p);
}

cr_potential cri_skeleton_potential_groups(const cr_squash_primitive *prims, uint32_t count, uint32_t mask, cr_vec3 p) {
    return potential_of(prims, count, mask, p);
}

uint32_t cri_skeleton_owner_group(const cr_squash_primitive *prims, uint32_t count, cr_vec3 p) {
    uint32_t owner = 0;
    cr_real best = -CR_R(1);
    for (uint32_t i = 0; i < count; ++i) {
        cr_real f = cri_skeleton_value(&prims[i], 1, p);
        if (f > best) best = f, owner = prims[i].group;
    }
    return owner;
}

cr_real cri_skeleton_group_distance(const cr_squash_primitive *prims, uint32_t count, uint32_t mask, cr_vec3 p) {
    cr_real best = CR_REAL_MAX;
    for (uint32_t i = 0; i < count; ++i) {
        if (!((mask >> (prims[i].group & 31u)) & 1u)) continue;
        cr_real d = cr_div(cr_v3_len(offset_from(&prims[i], p)), prims[i].radius);
        if (d < best) best = d;
    }
    return best;
}

uint32_t cri_skeleton_blend_mask(const cr_squash_primitive *prims, uint32_t count, uint32_t g) {
    uint32_t present = 0, collide = 0;
    for (uint32_t i = 0; i < count; ++i) {
        present |= 1u << (prims[i].group & 31u);
        if (prims[i].group == g) collide = prims[i].collide;
    }
    return present & ~collide;
}

cr_real cri_skeleton_value(const cr_squash_primitive *prims, uint32_t count, cr_vec3 p) {
    cr_real f = 0;
    for (uint32_t i = 0; i < count; ++i) {
        const cr_squash_primitive *q = &prims[i];
        if (far_from(q, p)) continue;
        cr_real s = cr_div(cr_v3_len_sq(offset_from(q, p)), cr_sq(q->radius));
        if (s >= CR_R(1)) continue;
        cr_real t = CR_R(1) - s;
        f += cr_mul(q->weight, cr_mul(cr_mul(t, t), t));
    }
    return f;
}

cr_real cri_skeleton_gap(const cr_squash_primitive *prims, uint32_t count, cr_vec3 centre, cr_real radius) {
    cr_real best = CR_REAL_MAX;
    for (uint32_t i = 0; i < count; ++i) {
        cr_real g = cr_v3_len(offset_from(&prims[i], centre)) - prims[i].radius - radius;
        if (g < best) best = g;
    }
    return best;
}

void cri_skeleton_bound(const cr_squash_primitive *prims, uint32_t count, cr_vec3 *centre, cr_real *radius) {
    cr_vec3 lo = cr_v3_zero(), hi = cr_v3_zero();
    for (uint32_t i = 0; i < count; ++i) {
        const cr_squash_primitive *q = &prims[i];
        cr_vec3 s = cr_v3(q->radius, q->radius, q->radius), a = q->a, b = q->a;
        if (q->type == CR_SQUASH_SEGMENT) a = cr_v3_min(a, q->b), b = cr_v3_max(b, q->b);
        else if (q->type == CR_SQUASH_RECT)
            s = cr_v3_add(s, cr_v3(cr_abs(q->b.x) + cr_abs(q->e.x), cr_abs(q->b.y) + cr_abs(q->e.y), cr_abs(q->b.z) + cr_abs(q->e.z)));
        a = cr_v3_sub(a, s), b = cr_v3_add(b, s);
        lo = i == 0 ? a : cr_v3_min(lo, a);
        hi = i == 0 ? b : cr_v3_max(hi, b);
    }
    *centre = cr_v3_scale(cr_v3_add(lo, hi), CR_R(0.5));
    *radius = cr_v3_len(cr_v3_scale(cr_v3_sub(hi, lo), CR_R(0.5)));
}

cr_potential cri_distance_potential(cr_real d, cr_vec3 n, cr_real c, cr_real reach) {
    cr_potential out = {0, {0, 0, 0}};
    if (d >= reach) return out;
    cr_real t = CR_R(1) - cr_div(d, reach);
    out.f = cr_mul(c, cr_mul(t, t));
    /* df/dd = -2 c t / reach; grad d = n */
    out.grad = cr_v3_scale(n, -cr_div(cr_mul(2 * c, t), reach));
    return out;
}

cr_vec3 cri_skeleton_project(const cr_squash_primitive *prims, uint32_t count, cr_real c, cr_vec3 p, uint32_t steps) {
    for (uint32_t k = 0; k < steps; ++k) {
        cr_potential f = cri_skeleton_potential(prims, count, p);
        cr_real g2 = cr_v3_len_sq(f.grad);
        if (g2 <= CR_REAL_EPS) break;
        p = cr_v3_mad(p, cr_div(c - f.f, g2), f.grad);
    }
    return p;
}

uint32_t cri_skeleton_check(const cr_squash_primitive *prims, uint32_t count) {
    /* the blending graph: each group's mask from its first primitive, then every primitive against them */
    uint32_t present = 0, mask[CR_SQUASH_MAX_GROUPS] = {0};
    for (uint32_t i = 0; i < count; ++i)
        if (prims[i].group < CR_SQUASH_MAX_GROUPS && !((present >> prims[i].group) & 1u))
            present |= 1u << prims[i].group, mask[prims[i].group] = prims[i].collide;
    for (uint32_t i = 0; i < count; ++i) {
        const cr_squash_primitive *q = &prims[i];
        bool ok = q->type <= CR_SQUASH_RECT && cr_vec3_is_finite(q->a) && cr_vec3_is_finite(q->b) &&
                  cr_vec3_is_finite(q->e) && cr_real_is_finite(q->radius) && cr_real_is_finite(q->weight) &&
                  q->radius > CR_R(1e-4) && q->radius < CR_R(1e4) && q->weight > 0 && q->weight < CR_R(1e4);
        if (ok && q->type == CR_SQUASH_RECT)
            ok = cr_abs(cr_v3_dot(q->b, q->e)) <= cr_mul(CR_R(1e-3), cr_mul(cr_v3_len(q->b), cr_v3_len(q->e)) + CR_R(1e-6));
        /* a group that exists, the same mask as its group's first primitive, not colliding with itself, with
         * groups that exist and collide back */
        if (ok) ok = q->group < CR_SQUASH_MAX_GROUPS && q->collide == mask[q->group] && !((q->collide >> q->group) & 1u) &&
                     (q->collide & ~present) == 0;
        for (uint32_t h = 0; ok && h < CR_SQUASH_MAX_GROUPS; ++h)
            if ((q->collide >> h) & 1u) ok = (mask[h] >> q->group) & 1u;
        if (!ok) return i + 1;
    }
    return 0;
}
