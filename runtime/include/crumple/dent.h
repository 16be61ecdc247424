/* crumple/dent.h — bodies that dent (seed 000 §3, Patkar et al. 2014).
 *
 * A mesh body whose material says it dents gets its own copy of the cooked
 * surface and signed distance grid inside the world block. After every step,
 * each impact event whose relative normal speed passes the material's
 * threshold becomes a dent: a dent map is built from the other body's shape
 * (a Z-buffer profile for meshes and boxes, an analytic Gaussian for spheres),
 * broadened, smoothed, sheared for glancing hits, and applied to the copy;
 * the grid is patched around the dent only. When both bodies dent, both maps
 * are built from the pre-dent shapes first, so equal bodies dent equally.
 *
 * The work per step is capped (dents and dent-map cells, cr_deform_def);
 * impacts beyond the cap wait in a queue, in arrival order, for later steps,
 * and the stats count them (stage "deform": work = dents applied, overflow =
 * impacts still queued). A full queue drops the newest impacts, counted too.
 *
 * Usage:
 *     cr_body_def bd = cr_default_body_def();
 *     bd.shape.type = CR_SHAPE_MESH; bd.shape.asset = slot;
 *     bd.dent = cr_default_dent_material();
 *     bd.dent.enabled = true;
 *     ...
 *     cr_body_mesh m;
 *     cr_body_get_mesh(world, id, &m);   // (body.h) deformed vertices + the range that changed
 */
#ifndef CRUMPLE_DENT_H
#define CRUMPLE_DENT_H

#include "base.h"
#include "vecmath.h"

/// How a material dents. Lengths in metres, speeds in m/s.
typedef struct cr_dent_material {
    bool enabled;                 ///< this body dents
    cr_real threshold_speed;      ///< relative normal speed below which nothing dents
    cr_real speed_scale;          ///< dent distance per m/s above the threshold (s); 0: use fixed_distance
    cr_real fixed_distance;       ///< dent distance when speed_scale is 0
    cr_real max_distance;         ///< cap on one dent's distance
    cr_real blur;                 ///< sigma of the broadening Gaussians (seed §3.2): wider = softer metal
    uint32_t heat_iterations;     ///< explicit heat smoothing steps
    uint32_t modified_iterations; ///< raise-only heat steps after rescaling
    cr_real steepness;            ///< attenuation into the body, a(z) = 2/(1+e^(k z/d)); 1 = the seed's
    cr_real width_t;              ///< glancing width correction t (seed §3.3); 0 = plain shear
    cr_real min_cos;              ///< clamp of cos(angle of incidence) for the 1/cos widening
    uint32_t min_cells;           ///< dent-map grid cells per side, at least
    uint32_t max_cells;           ///< and at most (the world's deform.max_cells caps it too)
    bool move_projectile;         ///< push a dynamic projectile into the dent it made
    bool refresh_mass;            ///< rescale mass and inertia by the dented volume (dynamic bodies)
} cr_dent_material;

/// A dent material with the seed's defaults, not enabled.
cr_dent_material cr_default_dent_material(void);

/// World-wide budgets of the deformation stage (a field of cr_world_def).
/// The default has body_capacity 0: set it (and bytes) to have dentable bodies.
typedef struct cr_deform_def {
    uint32_t body_capacity;       ///< dentable bodies at once
    uint32_t bytes;               ///< memory for their surface and grid copies
    uint32_t dents_per_step;      ///< K: dents applied per step at most
    uint32_t cells_per_step;      ///< M: dent-map plus grid-patch cells per step at most
    uint32_t queue_capacity;      ///< impacts waiting for a later step
    uint32_t max_cells;           ///< largest dent-map grid side
} cr_deform_def;

/// Budgets that suit a handful of dentable bodies, once body_capacity is set.
cr_deform_def cr_default_deform_def(void);

/// A body's current surface: the dented copy for a dentable body, else its asset's.
typedef struct cr_body_mesh {
    uint32_t vertex_count;
    uint32_t triangle_count;
    const cr_vec3 *positions;   ///< body frame, m
    const cr_vec3 *normals;     ///< body frame, unit
    const cr_vec3 *rest_positions; ///< the cooked shape, to measure dents against
    const uint32_t *triangles;
    uint32_t dirty_first;       ///< first vertex changed since the last cr_body_clear_dirty
    uint32_t dirty_last;        ///< last one; first > last when nothing changed
    uint32_t dent_count;        ///< dents applied so far
} cr_body_mesh;

#endif
