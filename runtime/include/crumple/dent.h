/* crumple/dent.h — bodies that dent (seed 000 §3, Patkar et al. 2014).
 *
 * The dent model attaches to a mesh body the way a shape attaches to a body
 * in Box2D: fill a cr_dent_def from cr_default_dent_def(), then
 * cr_dent_attach(world, body, &def). The body gets its own copy of the cooked
 * surface and signed distance grid inside the world block. In the damage
 * stage after every step, each impact on the body whose relative normal
 * speed passes the threshold becomes a dent: a dent map is built from the
 * other body's shape (a Z-buffer profile for meshes and boxes, an analytic
 * Gaussian for spheres), broadened, smoothed, sheared for glancing hits, and
 * applied to the copy; the grid is patched around the dent only. When both
 * bodies dent, both maps are built from the pre-dent shapes first, so equal
 * bodies dent equally. Repeated hits at one place deepen one dent: each map
 * is applied to the surface as the earlier dents left it.
 *
 * The work per step is capped (cr_world_def.damage.dent); impacts beyond the
 * cap wait in the model's queue, in arrival order, and the stats count them
 * (cr_world_stats.dent). Each applied dent makes a cr_dent_event (events.h).
 *
 * Usage:
 *     def.damage.dent.body_capacity = 4;        // world def: room for dented bodies
 *     ...
 *     cr_dent_def dd = cr_default_dent_def();
 *     dd.threshold_speed = CR_R(2);
 *     cr_dent_attach(world, plate, &dd);
 *     ...
 *     cr_body_mesh m;
 *     cr_body_get_mesh(world, plate, &m);       // (body.h) dented vertices + the range that changed
 */
#ifndef CRUMPLE_DENT_H
#define CRUMPLE_DENT_H

#include "body.h"

/* Link names carry the scalar mode (CR_LINK_NAME, crumple/real.h), so code
 * compiled in the other mode fails to link instead of misreading every cr_real. */
#define cr_default_dent_def CR_LINK_NAME(cr_default_dent_def)
#define cr_dent_attach CR_LINK_NAME(cr_dent_attach)
#define cr_default_dent_budget CR_LINK_NAME(cr_default_dent_budget)

#ifdef __cplusplus
extern "C" {
#endif

/// Most smoothing iterations of each kind a dent def may ask for: every one is
/// a pass over the dent map, counted against the dent budget.
#define CR_DENT_MAX_ITERATIONS 1000u

/// How a body dents. Lengths in metres, speeds in m/s.
typedef struct cr_dent_def {
    cr_real threshold_speed;      ///< relative normal speed below which nothing dents
    cr_real speed_scale;          ///< dent distance per m/s above the threshold (s); 0: use fixed_distance
    cr_real fixed_distance;       ///< dent distance when speed_scale is 0
    cr_real max_distance;         ///< cap on one dent's distance
    cr_real blur;                 ///< sigma of the broadening Gaussians (seed §3.2): wider = softer metal
    uint32_t heat_iterations;     ///< explicit heat smoothing steps, 0..CR_DENT_MAX_ITERATIONS
    uint32_t modified_iterations; ///< raise-only heat steps after rescaling, 0..CR_DENT_MAX_ITERATIONS
    cr_real steepness;            ///< attenuation into the body, a(z) = 2/(1+e^(k z/d)); 1 = the seed's
    cr_real width_t;              ///< glancing width correction t (seed §3.3); 0 = plain shear
    cr_real min_cos;              ///< clamp of cos(angle of incidence) for the 1/cos widening
    uint32_t min_cells;           ///< dent-map grid cells per side, at least
    uint32_t max_cells;           ///< and at most (the world's damage.dent.max_cells caps it too)
    bool move_projectile;         ///< push a dynamic projectile into the dent it made
    bool refresh_mass;            ///< rescale mass and inertia by the dented volume (dynamic bodies)
    uint32_t cookie;              ///< set by cr_default_dent_def(); checked by cr_dent_attach
} cr_dent_def;

/// The seed's defaults.
cr_dent_def cr_default_dent_def(void);

/// Make a mesh body dent. CR_ERR_CAPACITY when damage.dent.body_capacity
/// bodies dent already or damage.surface_bytes has no room for its copy;
/// CR_ERR_DEF_INVALID for an analytic shape, a body that dents already or one
/// that deforms by examples (crumple/example.h: its re-skins would erase dents).
cr_status cr_dent_attach(cr_world *world, cr_body_id body, const cr_dent_def *def);

/// Budgets that suit a handful of dented bodies, once body_capacity is set.
cr_dent_budget cr_default_dent_budget(void);

#ifdef __cplusplus
}
#endif

#endif
