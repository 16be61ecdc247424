/* crumple/query.h — what a game asks the world between steps: rays, overlaps
 * and distances, against every body as it is now (docs/queries.md).
 *
 * Usage:
 *     cr_ray_hit hit;
 *     bool found;
 *     cr_world_cast_ray_closest(world, eye, cr_v3_scale(dir, CR_R(100)), cr_default_query_filter(), &hit, &found);
 *     if (found) ... hit.body, hit.point, hit.normal, hit.fraction, hit.triangle ...
 *
 * Notes
 *   - Every body kind answers: spheres, boxes, planes, mesh bodies by their
 *     triangles, soft bodies by their particles' triangles, and a damaged body
 *     (dented, bent, example-deformed, squashed, a fracture piece) by its
 *     surface as drawn now (cr_body_get_mesh). A bending body answers with its
 *     skinned mesh under its own handle; its sub-bodies do not answer.
 *   - A query reads the world and changes no state: the state hash is the same
 *     before and after. It allocates nothing: its working memory is a bit per
 *     body on its own stack (1 KiB), so queries may run on several threads at
 *     once between steps and a callback may query again. A world of more than
 *     8192 bodies keeps those bits in its block instead: there, one query at a
 *     time (a query from a callback gets CR_ERR_ARGUMENT_RANGE naming "fn").
 *     A refused call writes the refused-field note (cr_world_refused_field).
 *   - Results are deterministic: callbacks see bodies in handle order (rigid
 *     bodies by slot, then soft bodies by slot), arrays are sorted, and ties
 *     between equal fractions go to the lower handle.
 *   - Rays are one-sided: a ray that starts inside a body does not hit that
 *     body's surface from within (as in Box2D).
 */
#ifndef CRUMPLE_QUERY_H
#define CRUMPLE_QUERY_H

#include "body.h"
#include "spring.h"

/* Link names carry the scalar mode (CR_LINK_NAME, crumple/real.h), so code
 * compiled in the other mode fails to link instead of misreading every cr_real. */
#define cr_default_query_filter CR_LINK_NAME(cr_default_query_filter)
#define cr_world_cast_ray_closest CR_LINK_NAME(cr_world_cast_ray_closest)
#define cr_world_cast_ray CR_LINK_NAME(cr_world_cast_ray)
#define cr_world_cast_ray_all CR_LINK_NAME(cr_world_cast_ray_all)
#define cr_world_overlap_aabb CR_LINK_NAME(cr_world_overlap_aabb)
#define cr_world_overlap_sphere CR_LINK_NAME(cr_world_overlap_sphere)
#define cr_world_overlap_box CR_LINK_NAME(cr_world_overlap_box)
#define cr_world_overlap_aabb_all CR_LINK_NAME(cr_world_overlap_aabb_all)
#define cr_world_overlap_sphere_all CR_LINK_NAME(cr_world_overlap_sphere_all)
#define cr_world_overlap_box_all CR_LINK_NAME(cr_world_overlap_box_all)
#define cr_world_cast_sphere CR_LINK_NAME(cr_world_cast_sphere)
#define cr_world_cast_box CR_LINK_NAME(cr_world_cast_box)
#define cr_body_query_point CR_LINK_NAME(cr_body_query_point)
#define cr_asset_query_bytes CR_LINK_NAME(cr_asset_query_bytes)

#ifdef __cplusplus
extern "C" {
#endif

/// Which bodies a query sees: a body passes when
/// (body.category_bits & filter.mask_bits) != 0 && (body.mask_bits & filter.category_bits) != 0,
/// and, for a sensor (cr_body_def.is_sensor), only when `sensors` is true.
typedef struct cr_query_filter {
    uint64_t category_bits; ///< what the query is (default 1)
    uint64_t mask_bits;     ///< what it sees (default all)
    bool sensors;           ///< sensors answer too (default false: a trigger volume is not a wall to a ray)
} cr_query_filter;

/// Category 1, mask all bits, no sensors: every solid body with the default filter.
cr_query_filter cr_default_query_filter(void);

/// One place a ray meets a body's surface.
typedef struct cr_ray_hit {
    cr_body_id body;   ///< the rigid body hit; null when a soft body was hit
    cr_soft_id soft;   ///< the soft body hit; null when a rigid body was hit
    cr_vec3 point;     ///< m, world frame
    cr_vec3 normal;    ///< unit, world frame, outward from the surface hit
    cr_real fraction;  ///< of the translation, 0..1: point = origin + fraction * translation
    uint32_t triangle; ///< mesh and soft bodies: the triangle (cr_body_get_mesh order); UINT32_MAX otherwise
} cr_ray_hit;

/// The closest hit along origin .. origin + translation (m, world frame).
/// *found is false when nothing is hit. CR_ERR_NOT_FINITE naming "origin" or
/// "translation" for a NaN or infinite vector, CR_ERR_ARGUMENT_RANGE naming
/// "translation" for a zero one (or one longer than CR_QUERY_MAX_LENGTH).
cr_status cr_world_cast_ray_closest(const cr_world *world, cr_vec3 origin, cr_vec3 translation, cr_query_filter filter,
                                    cr_ray_hit *out, bool *found);

/// What a ray callback returns: < 0 ignore this hit and go on; 0 stop; a
/// fraction in (0, 1) clip the ray there (later bodies are tested against the
/// shorter ray); 1 go on unclipped.
typedef cr_real cr_ray_fn(void *context, const cr_ray_hit *hit);

/// Every body the ray hits, each with its nearest hit, through `fn`, in handle
/// order (rigid bodies by slot, then soft bodies by slot). CR_ERR_NULL_ARGUMENT
/// naming "fn" without a callback; otherwise as cr_world_cast_ray_closest.
cr_status cr_world_cast_ray(const cr_world *world, cr_vec3 origin, cr_vec3 translation, cr_query_filter filter,
                            cr_ray_fn *fn, void *context);

/// Every body the ray hits, nearest first (ties: lower handle first), into
/// `out`: at most `capacity` are written (the nearest ones) and *count gets
/// how many there were.
cr_status cr_world_cast_ray_all(const cr_world *world, cr_vec3 origin, cr_vec3 translation, cr_query_filter filter,
                                cr_ray_hit *out, uint32_t capacity, uint32_t *count);

/// m: the longest ray or cast translation, and the largest overlap shape (the
/// fixed-point build's range: docs/queries.md).
#define CR_QUERY_MAX_LENGTH CR_R(65536.0)

/// What an overlap callback returns: true to go on, false to stop.
typedef bool cr_overlap_fn(void *context, cr_body_id body, cr_soft_id soft);

/// Every body whose surface or inside meets the box lo .. hi (m, world axes),
/// through `fn`, in handle order.
cr_status cr_world_overlap_aabb(const cr_world *world, cr_vec3 lo, cr_vec3 hi, cr_query_filter filter,
                                cr_overlap_fn *fn, void *context);
/// Every body whose surface or inside meets the sphere (centre m, radius m).
cr_status cr_world_overlap_sphere(const cr_world *world, cr_vec3 centre, cr_real radius, cr_query_filter filter,
                                  cr_overlap_fn *fn, void *context);
/// Every body whose surface or inside meets the box of `half_extents` (m) at `pose`.
cr_status cr_world_overlap_box(const cr_world *world, cr_transform pose, cr_vec3 half_extents, cr_query_filter filter,
                               cr_overlap_fn *fn, void *context);

/// One body an overlap found (the array forms).
typedef struct cr_overlap_hit {
    cr_body_id body; ///< null for a soft body
    cr_soft_id soft; ///< null for a rigid body
} cr_overlap_hit;

/// The array forms: at most `capacity` bodies in handle order into `out`,
/// *count gets how many there were.
cr_status cr_world_overlap_aabb_all(const cr_world *world, cr_vec3 lo, cr_vec3 hi, cr_query_filter filter,
                                    cr_overlap_hit *out, uint32_t capacity, uint32_t *count);
cr_status cr_world_overlap_sphere_all(const cr_world *world, cr_vec3 centre, cr_real radius, cr_query_filter filter,
                                      cr_overlap_hit *out, uint32_t capacity, uint32_t *count);
cr_status cr_world_overlap_box_all(const cr_world *world, cr_transform pose, cr_vec3 half_extents,
                                   cr_query_filter filter, cr_overlap_hit *out, uint32_t capacity, uint32_t *count);

/// A sphere (centre m, radius m) swept along translation (m): the first body
/// it touches. out->fraction is when (0 if it starts touching), point the
/// touching point on that body's surface, normal the body's outward normal
/// there (world frame), triangle the mesh triangle touched. *found is false
/// when the sweep touches nothing. Ties go to the lower handle.
cr_status cr_world_cast_sphere(const cr_world *world, cr_vec3 centre, cr_real radius, cr_vec3 translation,
                               cr_query_filter filter, cr_ray_hit *out, bool *found);

/// A box (half extents m, at pose) swept along translation (m) without
/// turning: the first body it touches, as cr_world_cast_sphere. The point is
/// on the plane of contact under the box's centre at that time.
cr_status cr_world_cast_box(const cr_world *world, cr_transform pose, cr_vec3 half_extents, cr_vec3 translation,
                            cr_query_filter filter, cr_ray_hit *out, bool *found);

/// The signed distance (m, negative inside) from a world point to one rigid
/// body and the outward unit normal there (world frame): a mesh body's from
/// its distance grid as it is now (a dented body's patched copy), spheres,
/// boxes and planes exactly. CR_ERR_STALE_HANDLE for a bad id.
cr_status cr_body_query_point(const cr_world *world, cr_body_id id, cr_vec3 point, cr_real *distance, cr_vec3 *normal);

/// Bytes of cr_world_def.query.mesh_tree_bytes one registered asset's
/// triangle tree takes (an asset whose tree does not fit is answered by
/// testing all its triangles). 0 for a null asset.
uint64_t cr_asset_query_bytes(const struct cr_asset *asset);

#ifdef __cplusplus
}
#endif

#endif
