/* point.c — the distance from a world point to one body, and the query
 * filter's default (crumple/query.h).
 *
 * The distance is the one the solver collides with (geometry/shape.c):
 * exact for spheres, boxes and planes; for a mesh body its distance grid as
 * it is now, so a dented body answers from its patched copy. Outside the
 * grid it is the distance to the grid box plus the value at its nearest
 * boundary point (cr_asset_sdf).
 */
#include "query/query_call.h"
#include "geometry/shape.h"

cr_query_filter cr_default_query_filter(void) {
    cr_query_filter f = {1u, ~(uint64_t)0, false};
    return f;
}

cr_status cr_body_query_point(const cr_world *w, cr_body_id id, cr_vec3 point, cr_real *distance, cr_vec3 *normal) {
    if (w == NULL) return CR_ERR_NULL_ARGUMENT;
    if (distance == NULL || normal == NULL) return cri_query_refuse(w, CR_ERR_NULL_ARGUMENT, CR_FIELD_QUERY_OUT);
    *distance = 0, *normal = cr_v3_zero();
    const cr_body *b = cri_world_body_c(w, id);
    if (b == NULL) return cri_query_refuse(w, CR_ERR_STALE_HANDLE, CR_FIELD_QUERY_BODY);
    CR_TRY(cri_query_check_vec3(w, point, CR_FIELD_QUERY_POINT));
    cr_vec3 local = cr_transform_inv_point(b->xf, point), n;
    *distance = cri_shape_sdf(w, &b->shape, local, local, &n);
    *normal = cr_quat_rotate(b->xf.q, n);
    return CR_OK;
}
