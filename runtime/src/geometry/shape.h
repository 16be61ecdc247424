/* shape.h — the shapes' signed distances, mass properties and sample points
 * (internal; shape.c), and the coarse tables that prune mesh queries.
 * The solver reads every shape through these; a dented body's mesh is its
 * own surface copy behind a flagged slot (base/block.h), read the same way.
 */
#ifndef CRUMPLE_SHAPE_H
#define CRUMPLE_SHAPE_H

#include "base/block.h"

/// m: target spacing of the extra sample points along a box edge.
#define CR_BOX_SAMPLE_SPACING CR_R(0.6)
/// samples per box edge at most (segments).
#define CR_BOX_MAX_SEGMENTS 4
/// box sample points at most: 8 corners + 12 edges x (segments - 1).
#define CR_BOX_MAX_SAMPLES (8 + 12 * (CR_BOX_MAX_SEGMENTS - 1))

/// Mass (kg), principal moments (kg m^2) and bounding radius (m) of a shape.
void cri_shape_mass(const cr_world *w, const cr_shape_def *s, cr_real density, cr_real *mass, cr_vec3 *inertia,
                   cr_real *radius);
/// Signed distance (m) and outward normal of a shape at a body-frame point;
/// `hint` (body frame, any length) points towards the other body and breaks
/// ties between box faces.
cr_real cri_shape_sdf(const cr_world *w, const cr_shape_def *s, cr_vec3 p, cr_vec3 hint, cr_vec3 *normal);
/// Fill a coarse minimum grid and the sample clusters from an asset (world.c
/// calls it when an asset is registered); tmp holds 3 x CR_CLUSTER_MAX_SAMPLES
/// words, or is NULL (no clusters).
void cri_coarse_build(cr_coarse_grid *g, const cr_asset *a, uint32_t *tmp);
/// A lower bound (m) of the asset's interpolated signed distance at a
/// body-frame point; -CR_REAL_MAX when there is no table.
cr_real cri_coarse_lower_bound(const cr_coarse_grid *g, const cr_asset *a, cr_vec3 p);
/// The coarse grid of a registered (not dented) asset slot, or NULL.
const cr_coarse_grid *cri_world_coarse(const cr_world *w, uint32_t slot);
/// Box sample points (body frame): corners first, then points along the edges;
/// returns the count (<= CR_BOX_MAX_SAMPLES).
uint32_t cri_box_samples(cr_vec3 half_extents, cr_vec3 *out);

#endif
