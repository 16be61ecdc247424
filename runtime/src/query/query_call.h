/* query_call.h — what every public query checks before it reads the world
 * (internal): the arguments, and that no other query is running on it.
 *
 * A query takes a const world: it changes no state. The refused-field note
 * (and a large world's candidate bits, body_tree.c) it writes are not state:
 * never hashed, never read by a step, which is why writing them through the
 * const pointer is allowed.
 */
#ifndef CRUMPLE_QUERY_CALL_H
#define CRUMPLE_QUERY_CALL_H

#include "query/query_tree.h"
#include "base/check.h"

static inline cr_status cri_query_refuse(const cr_world *w, cr_status s, cr_field f) {
    return cri_refuse((cr_world *)w, s, f);
}

static inline cr_status cri_query_check_vec3(const cr_world *w, cr_vec3 v, cr_field f) {
    if (!cr_vec3_is_finite(v)) return cri_query_refuse(w, CR_ERR_NOT_FINITE, f);
    /* within the asset range (2^20 m): a query point past it has nothing to hit, and Q32.32 keeps its sums */
    cr_real lim = CR_R(1048576.0);
    if (cr_abs(v.x) > lim || cr_abs(v.y) > lim || cr_abs(v.z) > lim) return cri_query_refuse(w, CR_ERR_ARGUMENT_RANGE, f);
    return CR_OK;
}

/// A length (m) that must be positive and at most CR_QUERY_MAX_LENGTH.
static inline cr_status cri_query_check_length(const cr_world *w, cr_real x, cr_field f) {
    if (!cr_real_is_finite(x)) return cri_query_refuse(w, CR_ERR_NOT_FINITE, f);
    if (x <= 0 || x > CR_QUERY_MAX_LENGTH) return cri_query_refuse(w, CR_ERR_ARGUMENT_RANGE, f);
    return CR_OK;
}

static inline cr_status cri_query_check_ray(const cr_world *w, cr_vec3 origin, cr_vec3 translation) {
    CR_TRY(cri_query_check_vec3(w, origin, CR_FIELD_QUERY_ORIGIN));
    CR_TRY(cri_query_check_vec3(w, translation, CR_FIELD_QUERY_TRANSLATION));
    cr_real m = cr_max(cr_abs(translation.x), cr_max(cr_abs(translation.y), cr_abs(translation.z)));
    if (m <= CR_REAL_EPS || m > CR_QUERY_MAX_LENGTH)
        return cri_query_refuse(w, CR_ERR_ARGUMENT_RANGE, CR_FIELD_QUERY_TRANSLATION);
    return CR_OK;
}

/* The 15 axes that separate two boxes if any does: box one's faces (the
 * frame's axes) at 0, 2, 4, box two's (rotated by q) at 1, 3, 5, and the
 * edges' cross products. */
static inline void cri_box_pair_axes(cr_quat q, cr_vec3 axes[15]) {
    cr_mat3 m = cr_mat3_from_quat(q);
    const cr_vec3 u[3] = {{CR_R(1), 0, 0}, {0, CR_R(1), 0}, {0, 0, CR_R(1)}};
    const cr_vec3 v[3] = {m.cx, m.cy, m.cz};
    int n = 0;
    for (int i = 0; i < 3; ++i) axes[n++] = u[i], axes[n++] = v[i];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) axes[n++] = cr_v3_cross(u[i], v[j]);
}

#endif
