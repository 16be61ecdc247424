/* implicit_skeleton.h — the potential of a skeleton-based implicit surface
 * (seed 003 §2.1), and the potential crumple gives a rigid body (internal).
 *
 * f(P) = sum_i f_i(P), f_i = w_i (1 - r_i^2 / R_i^2)^3 for r_i < R_i, else 0,
 * r_i the distance from P to primitive i. The polynomial is the soft-object
 * kernel: it has compact support (a primitive far away costs nothing and a
 * skeleton's reach is bounded) and is C2 at R_i, so the sum and its gradient
 * are continuous everywhere; it needs no square root (r^2 is enough). The
 * surface is f = c, inside is f >= c, and the gradient points inwards.
 *
 * A rigid body has no skeleton: its potential is derived from its signed
 * distance d (negative inside) as f = c (1 - d / reach)^2 for d < reach, else
 * 0: f = c on its surface, more inside, 0 at `reach` outside with a zero
 * slope there (so the dilation it causes fades C1 into the rest skin).
 *
 * The blending graph (seed 003 §4.2): primitives carry a group, and a group
 * mask (bit g: group g) picks the primitives whose potentials add. A skin
 * vertex belongs to one group, its owner (the group of the primitive that
 * weighs most on it at the cooked rest); its potential is the sum over the
 * groups its owner blends with (every group it does not collide with). So
 * blended groups share one C1 field (no crease where the owner changes) and
 * a colliding group's primitives are not in it: they are another body to it.
 */
#ifndef CRUMPLE_IMPLICIT_SKELETON_H
#define CRUMPLE_IMPLICIT_SKELETON_H

#include "crumple/squash.h"

/// A potential and its gradient at one point.
typedef struct cr_potential {
    cr_real f;      ///< potential
    cr_vec3 grad;   ///< its gradient (1/m), pointing into the body
} cr_potential;

/// f and grad f of a skeleton at p (the skeleton's frame).
cr_potential cri_skeleton_potential(const cr_squash_primitive *prims, uint32_t count, cr_vec3 p);
/// The same over the primitives whose group's bit is set in mask.
cr_potential cri_skeleton_potential_groups(const cr_squash_primitive *prims, uint32_t count, uint32_t mask, cr_vec3 p);
/// The group that owns a skin point: the group of the primitive that weighs most on it (the first of equals).
uint32_t cri_skeleton_owner_group(const cr_squash_primitive *prims, uint32_t count, cr_vec3 p);
/// The groups group g's field is made of: every group present it does not collide with (itself included).
uint32_t cri_skeleton_blend_mask(const cr_squash_primitive *prims, uint32_t count, uint32_t g);
/// The distance from p to the nearest core of the primitives of the groups in mask, in units of that primitive's
/// radius of influence (continuous in p: the blending graph's split, docs/squash.md); CR_REAL_MAX if none.
cr_real cri_skeleton_group_distance(const cr_squash_primitive *prims, uint32_t count, uint32_t mask, cr_vec3 p);
/// Only f (cheaper: the zone test).
cr_real cri_skeleton_value(const cr_squash_primitive *prims, uint32_t count, cr_vec3 p);
/// How far (m) the sphere (centre, radius) is from where the skeleton's
/// potential is not 0: <= 0 if they overlap (the nearest primitive's reach).
cr_real cri_skeleton_gap(const cr_squash_primitive *prims, uint32_t count, cr_vec3 centre, cr_real radius);
/// Centre and radius (m) of a sphere outside which the skeleton's potential is 0.
void cri_skeleton_bound(const cr_squash_primitive *prims, uint32_t count, cr_vec3 *centre, cr_real *radius);
/// A rigid body's potential from its signed distance d (m) and outward unit
/// normal n there: c (1 - d/reach)^2 below reach, its gradient along -n.
cr_potential cri_distance_potential(cr_real d, cr_vec3 n, cr_real c, cr_real reach);
/// Move p along the gradient onto f = c (at most `steps` Newton steps); returns
/// the point. Used to put a mesh on a skeleton's rest surface.
cr_vec3 cri_skeleton_project(const cr_squash_primitive *prims, uint32_t count, cr_real c, cr_vec3 p, uint32_t steps);
/// 0 if every primitive is usable (finite, radius and weight > 0, a rectangle's
/// half-edges perpendicular; a group below CR_SQUASH_MAX_GROUPS with the same
/// collide mask as the group's first primitive, not colliding with itself,
/// each collision listed both ways, with a group that has primitives), else
/// 1 + the index of the first that is not.
uint32_t cri_skeleton_check(const cr_squash_primitive *prims, uint32_t count);

#endif
