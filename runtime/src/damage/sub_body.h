/* sub_body.h — a bendable body divided into one sub-body per bone (seed 000
 * §4 and §4.2), internal to the bending model. */
#ifndef CRUMPLE_SUB_BODY_H
#define CRUMPLE_SUB_BODY_H

#include "crumple/asset.h"

/// Value a restricted grid reads at nodes another bone owns (the seed's
/// "small positive number"), in cells: one cell outside.
#define CR_SUB_BODY_FILL_CELLS 1

/// The bone a triangle belongs to (the rule of docs/bending.md), from the
/// influences skin_bone/skin_weight (4 per vertex); only bones with
/// allowed[bone] != 0 count if allowed is not NULL. 0xff: no influence counted.
uint8_t cri_sub_body_triangle_bone(const cr_asset *a, const uint8_t *skin_bone, const cr_real *skin_weight, uint32_t t,
                                   const uint8_t *allowed);
/// Grow the owners of the nodes still 0xff in node_bone from the triangles
/// whose bone has seeds[bone] != 0 (each claims the nodes nearest a lattice on
/// it no coarser than a cell), then breadth-first through the 0xff nodes.
/// queue: nodes entries of scratch. Returns the work.
uint32_t cri_sub_body_grow(const cr_asset *a, const uint8_t *tri_bone, const uint8_t *seeds, uint8_t *node_bone,
                           uint32_t *queue);
/// The owner of the grid node nearest p (the parent's rest frame; clamped to the grid).
uint8_t cri_sub_body_owner_at(const cr_asset *a, const uint8_t *node_bone, cr_vec3 p);
/// Segment the whole asset: tri_bone[triangle_count] and node_bone[nodes].
uint32_t cri_sub_body_segment(const cr_asset *a, const uint8_t *skin_bone, const cr_real *skin_weight, uint8_t *tri_bone,
                              uint8_t *node_bone, uint32_t *queue);

/// One pass over the grid: the integer moments of the inside nodes (phi < 0)
/// each bone b < bone_count owns (only those with want[b] != 0 when want is
/// not NULL) into out[b], zeroed first (what the cooker stores as BNDM).
void cri_sub_body_moments(const cr_asset *a, const uint8_t *node_bone, uint32_t bone_count, const uint8_t *want,
                          cr_asset_bone_moments *out);

/// Mass properties of one bone's part from its moments: returns the node
/// count; centre (body frame of the parent, m), the moments about the
/// parent's axes through it (kg m^2) for `node_mass` kg per node, and when
/// products is not NULL the inertia tensor's off-diagonal entries (xy, xz, yz;
/// the sub-body drops them). The one function for cooked and summed moments.
uint32_t cri_sub_body_mass(const cr_asset *a, const cr_asset_bone_moments *m, cr_real node_mass, cr_vec3 *centre,
                           cr_vec3 *inertia, cr_vec3 *products);

/// Fill a body's surface-copy arrays as bone `bone`'s sub-body sees the
/// parent: every vertex and grid value moved into the sub-body's frame (the
/// parent's axes, origin at `centre`), the collision samples of the bone's
/// triangles first, the grid of the other bones' nodes raised to one cell
/// outside. rest_positions: the rest surface (the asset's, or dented).
/// Sets the view's sample count, grid origin and bounds. vertex_mark
/// is vertex_count bytes of scratch. Returns the samples kept.
uint32_t cri_sub_body_restrict(cr_asset *view, cr_vec3 *positions, cr_vec3 *samples, cr_real *sdf,
                               const cr_asset *rest, const cr_vec3 *rest_positions, const uint8_t *tri_bone,
                               const uint8_t *node_bone, uint8_t *vertex_mark, uint32_t bone, cr_vec3 centre);

#endif
