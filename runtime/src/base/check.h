/* check.h — the argument checks every public entry point makes (internal).
 *
 * One place decides what "finite" and "a usable quaternion" mean, so every
 * call refuses the same values with the same status, and records which
 * argument it was in the world (cr_world_refused_field) before returning.
 *
 *   float  finite: the exponent bits are not all ones (no NaN, no ±Inf);
 *   fixed  finite: not one of the saturated values (±CR_REAL_MAX, INT64_MIN)
 *          that cr_from_float gives for ±Inf and cr_div gives for x/0; a
 *          fixed-point value can hold no NaN, so this is all there is.
 *
 * A quaternion is usable when its components are finite and at most 1024 in
 * magnitude (so its squared length fits Q32.32) and its squared length is at
 * least 1e-6: a zero quaternion has no rotation to normalise to, and one much
 * shorter or longer than unit is a caller's bug, not an orientation.
 *
 * Usage at the top of an entry point, one line per argument:
 *     CR_TRY(cr_check_vec3(w, impulse, CR_FIELD_IMPULSE));
 */
#ifndef CR_BASE_CHECK_H
#define CR_BASE_CHECK_H

#include "crumple/crumple.h"
#include "crumple/joint.h"

#include <string.h>

static inline bool cr_real_is_finite(cr_real x) {
#if CR_FIXED
    return x != CR_REAL_MAX && x != -CR_REAL_MAX && x != INT64_MIN;
#else
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return ((u >> 23) & 0xffu) != 0xffu;
#endif
}

static inline bool cr_vec3_is_finite(cr_vec3 v) {
    return cr_real_is_finite(v.x) && cr_real_is_finite(v.y) && cr_real_is_finite(v.z);
}

static inline bool cr_quat_is_finite(cr_quat q) {
    return cr_real_is_finite(q.x) && cr_real_is_finite(q.y) && cr_real_is_finite(q.z) && cr_real_is_finite(q.w);
}

/// CR_OK, CR_ERR_NOT_FINITE or CR_ERR_BAD_ORIENTATION for a quaternion a caller hands in.
static inline cr_status cr_quat_status(cr_quat q) {
    if (!cr_quat_is_finite(q)) return CR_ERR_NOT_FINITE;
    const cr_real lim = CR_R(1024);
    if (cr_abs(q.x) > lim || cr_abs(q.y) > lim || cr_abs(q.z) > lim || cr_abs(q.w) > lim) return CR_ERR_BAD_ORIENTATION;
    cr_real n2 = cr_mul(q.x, q.x) + cr_mul(q.y, q.y) + cr_mul(q.z, q.z) + cr_mul(q.w, q.w);
    return n2 < CR_R(1e-6) ? CR_ERR_BAD_ORIENTATION : CR_OK;
}

/// Record `field` as the reason of a refusal in `w` (if there is a world) and return `s`.
cr_status cri_refuse(cr_world *w, cr_status s, cr_field field);

static inline cr_status cr_check_real(cr_world *w, cr_real x, cr_field f) {
    return cr_real_is_finite(x) ? CR_OK : cri_refuse(w, CR_ERR_NOT_FINITE, f);
}
static inline cr_status cr_check_vec3(cr_world *w, cr_vec3 v, cr_field f) {
    return cr_vec3_is_finite(v) ? CR_OK : cri_refuse(w, CR_ERR_NOT_FINITE, f);
}
static inline cr_status cr_check_quat(cr_world *w, cr_quat q, cr_field f) {
    cr_status s = cr_quat_status(q);
    return s == CR_OK ? CR_OK : cri_refuse(w, s, f);
}

/// CR_ERR_NOT_FINITE, or CR_ERR_ARGUMENT_RANGE past 2^30 m (world/validate.c).
cr_status cri_check_position(cr_world *w, cr_vec3 p, cr_field f);

/* The def checks (world/validate.c): field by field, the field recorded. */
cr_status cri_world_def_fields(const cr_world_def *def, cr_field *field);
cr_status cri_body_def_refuse(cr_world *w, const cr_body_def *def);
cr_status cri_body_mass_refuse(cr_world *w, cr_body_type type, cr_real mass, cr_vec3 inertia);
/// A material as cr_body_def.material is checked (density only matters for a dynamic body).
cr_status cri_material_refuse(cr_world *w, const cr_material *m, bool dynamic);
/// Gravity scale and damping as cr_body_def's are checked.
cr_status cri_motion_refuse(cr_world *w, cr_real gravity_scale, cr_real linear_damping, cr_real angular_damping);
cr_status cri_joint_def_refuse(cr_world *w, const cr_joint_def *def);

/// Return the status of `expr` from the enclosing function unless it is CR_OK.
#define CR_TRY(expr)                           \
    do {                                       \
        cr_status cr_try_ = (expr);            \
        if (cr_try_ != CR_OK) return cr_try_;  \
    } while (0)

#endif
