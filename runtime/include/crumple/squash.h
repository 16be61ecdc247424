/* crumple/squash.h — squash and bulge of skeleton-based implicit bodies
 * (seed 003, Opalach and Cani, "Local deformations for animation of implicit
 * surfaces").
 *
 * A squishy body's skin is the iso-surface f = c of a potential f = sum f_i
 * around a skeleton of primitives (points, segments, rectangles), each with a
 * radius of influence R beyond which it adds nothing. In contact the skin is
 * hollowed by the other body's potential f2 (compression: f1 += c - f2 where
 * f2 >= c) and swells around the contact (dilation: f1 += b1(f2) where
 * c1 <= f2 < c), C1-smooth at both borders; the bulge is higher and shorter in
 * front of an arriving object; its height is chosen every step so the body's
 * volume never grows and, by default, what the compression took is given back
 * (docs/squash.md). The skin returns to rest when the contact ends.
 *
 * Usage:
 *     def.damage.squash.body_capacity = 4;           // world def: room for squishy bodies
 *     ...
 *     cr_squash_primitive core = cr_default_squash_primitive();
 *     core.radius = CR_R(1.2);                       // m, radius of influence
 *     cr_squash_def sd = cr_default_squash_def();
 *     sd.primitives = &core, sd.primitive_count = 1; // copied at attach
 *     cr_squash_attach(world, blob, &sd);            // blob: a mesh body whose mesh lies on f = c
 *
 * The body's mesh must be the skeleton's rest iso-surface (the cooker or
 * cri_skeleton_project puts it there). Other bodies may sink up to soft_depth
 * into it (the solver's contacts start there); inside that layer the seed's
 * soft contact force (f2 - c) N1, with damping, pushes them apart. The
 * deformed skin is what cr_body_get_mesh draws; collision samples and the
 * distance grid stay the rest surface's (the posed rest's once the game poses
 * the skeleton).
 */
#ifndef CRUMPLE_SQUASH_H
#define CRUMPLE_SQUASH_H

#include "body.h"

/* Link names carry the scalar mode (CR_LINK_NAME, crumple/real.h), so code
 * compiled in the other mode fails to link instead of misreading every cr_real. */
#define cr_default_squash_primitive CR_LINK_NAME(cr_default_squash_primitive)
#define cr_default_squash_def CR_LINK_NAME(cr_default_squash_def)
#define cr_squash_attach CR_LINK_NAME(cr_squash_attach)
#define cr_squash_set_primitives CR_LINK_NAME(cr_squash_set_primitives)
#define cr_squash_get CR_LINK_NAME(cr_squash_get)
#define cr_default_squash_budget CR_LINK_NAME(cr_default_squash_budget)

#ifdef __cplusplus
extern "C" {
#endif

/// The kinds of skeleton primitive (seed 003 §2.1).
typedef enum cr_squash_primitive_type {
    CR_SQUASH_POINT = 0,   ///< a point at a
    CR_SQUASH_SEGMENT = 1, ///< the segment a..b
    CR_SQUASH_RECT = 2     ///< the rectangle a ± b ± e (b, e: perpendicular half-edges): a flat face
} cr_squash_primitive_type;

/// Groups of one skeleton (seed 003 §4.2, the blending graph): at most this many.
#define CR_SQUASH_MAX_GROUPS 16

/// One skeleton primitive: f_i(P) = weight (1 - r^2/R^2)^3 for r = the
/// distance from P to the primitive below the radius of influence R, else 0.
///
/// The blending graph (seed 003 §4.2): each primitive belongs to a group
/// (0 .. CR_SQUASH_MAX_GROUPS - 1); two groups either blend (their
/// potentials add: an arm into its shoulder, no crease) or collide (each
/// hollows and bulges the other's skin as two squishy bodies would: a hand
/// against the belly). `collide` is the bit mask of the groups this
/// primitive's group collides with; every primitive of a group carries the
/// same mask, the graph is symmetric and no group collides with itself. All
/// 0 (the default): one group, everything blends. A group that blends with
/// two groups colliding with each other (a shoulder between trunk and arm)
/// is split between them: its skin takes the trunk's side field next to the
/// trunk and the arm's next to the arm, smoothly between, and no part of its
/// own skeleton presses it (docs/squash.md, "The blending graph").
typedef struct cr_squash_primitive {
    uint32_t type;   ///< cr_squash_primitive_type
    uint16_t group;  ///< its group of the blending graph (< CR_SQUASH_MAX_GROUPS)
    uint16_t collide; ///< bit h set: its group collides with group h (else they blend)
    cr_vec3 a;       ///< m: the point, the segment's start, the rectangle's centre
    cr_vec3 b;       ///< m: the segment's end, the rectangle's first half-edge
    cr_vec3 e;       ///< m: the rectangle's second half-edge (perpendicular to b)
    cr_real radius;  ///< m, radius of influence R (> 0)
    cr_real weight;  ///< potential on the primitive itself (> 0)
} cr_squash_primitive;

/// A point primitive at the origin, R = 1 m, weight 1.
cr_squash_primitive cr_default_squash_primitive(void);

/// A squishy body's material and skeleton.
typedef struct cr_squash_def {
    const cr_squash_primitive *primitives; ///< the skeleton in the mesh's own frame (the OBJ's; copied into the body frame by cr_squash_attach);
                             ///< none (count 0): the asset's cooked skeleton and isovalue (crumple cook --skeleton, or FILE.skel)
    uint32_t primitive_count;
    uint32_t newton_steps;   ///< Newton steps that put a vertex on the deformed surface (1..8)
    cr_real isovalue;        ///< c: the skin is f = c (0 < c < weight)
    cr_real c0;              ///< the propagation zone ends where the other's potential is c1 = c0 (1 ± 1/2 ...); 0 < 1.5 c0 < c
    cr_real peak;            ///< in (0, 1): where the bulge peaks, m = c1m + peak (c - c1m), c1m = max(c1, 1.5 c0)
    cr_real rigid_reach;     ///< m: a rigid body's potential c (1 - d/reach)^2 reaches this far from its surface
    cr_real volume_loss;     ///< in [0, 0.5]: share of the compressed volume allowed to stay lost (0: restore it all; flesh: 0.2)
    cr_real stiffness;       ///< N per unit potential and m^2: the soft contact force (f2 - c) N1 per skin area
    cr_real damping;         ///< N s/m: the soft contact force's damping along it, so bodies settle
    cr_real soft_depth;      ///< m: how deep another body may sink into the rest skin before the solver stops it (> 0)
    cr_real sculpt_cell;     ///< m: sculpting mode (seed §4.3) with a potential grid of this spacing (0: off; coarsened
                             ///< until it fits damage.squash.sculpt_nodes); contacts print into it and the prints stay
    cr_real sculpt_rate;     ///< in (0, 1]: share of a contact's compression potential printed per step
    uint32_t cookie;         ///< set by cr_default_squash_def(); checked by cr_squash_attach
} cr_squash_def;

/// c = 0.5, c0 = 0.2, peak 0.5, 3 Newton steps, reach 0.3 m, no volume loss,
/// stiffness 2000, damping 100 N s/m, soft depth 0.1 m; no skeleton.
cr_squash_def cr_default_squash_def(void);

/// Make a mesh body squishy. CR_ERR_DEF_INVALID: not a mesh body, another
/// model moves its surface, no skeleton or a def out of range. CR_ERR_CAPACITY:
/// all damage.squash.body_capacity records taken, more primitives than
/// max_primitives, more vertices than max_vertices, or no room in
/// damage.surface_bytes for its surface copy.
cr_status cr_squash_attach(cr_world *world, cr_body_id body, const cr_squash_def *def);

/// A kinematic skeleton (seed 003 §4.2): the game moves the body's
/// primitives (the same count, kinds, groups and collide masks as attached,
/// in the body frame; radii and weights may change too). The rest skin
/// follows at once: each vertex, from its cooked place, is carried by the
/// cooked primitive of its own group that weighs most on it (a point's move,
/// a segment's or rectangle's move and turn) and put on the new skeleton's
/// f = c (its group's blended field) by Newton; normals from the gradient;
/// the drawn skin is the new rest skin until the next step deforms it (a
/// pose depends on the primitives alone, not on earlier poses). Groups that
/// collide deform each other from the next step on. The body's collision
/// samples and bounds follow at once; its distance grid is rewritten under
/// the primitives that moved, damage.squash.pose_grid_nodes nodes per step
/// (cr_squash_view.grid_pending says how many are left), so other bodies
/// rest on and are pushed by the posed surface. The grid cannot grow past
/// its cooked box (the asset's sdf_origin .. + (sdf_dims - 1) sdf_cell): a
/// pose that would put any skin vertex outside it is refused,
/// CR_ERR_ARGUMENT_RANGE with cr_world_refused_field
/// CR_FIELD_SQUASH_PRIMITIVES ("cr_squash_set_primitives.primitives"), and
/// nothing changes (cook the asset in a pose that spans the reach, or with a
/// larger grid margin). CR_ERR_CAPACITY: the world def's
/// damage.squash.posable is 0; CR_ERR_DEF_INVALID: not squishy, another
/// count, kind or group, or a bad primitive.
cr_status cr_squash_set_primitives(cr_world *world, cr_body_id body, const cr_squash_primitive *primitives, uint32_t count);

/// What a squishy body did in the last step.
typedef struct cr_squash_view {
    uint32_t zone_vertices;  ///< vertices in an interpenetration or propagation zone
    uint32_t contacts;       ///< other bodies whose potential reached the skin
    cr_real volume_rest;     ///< m^3, of the rest skin
    cr_real volume;          ///< m^3, of the deformed skin
    cr_real volume_compressed; ///< m^3, what the compression alone would have left
    cr_real bulge_scale;     ///< the bulge height per unit of compression the volume rule chose
    uint32_t ring_vertices;  ///< of zone_vertices, those of the second ring (the bulge at its fold limit fell short)
    uint32_t sculpt_nodes;   ///< nodes of its sculpting grid (0: not sculpting)
    cr_real sculpt_cell;     ///< m, the grid's spacing after fitting it into the budget
    cr_real sculpt_depth;    ///< m, the farthest a print has moved the rest skin so far
    uint32_t grid_pending;   ///< distance-grid nodes a pose's sweep has still to rewrite (0: collision is the pose's)
} cr_squash_view;

/// CR_ERR_DEF_INVALID if the body is not squishy.
cr_status cr_squash_get(const cr_world *world, cr_body_id body, cr_squash_view *out);

/// Budgets that suit a few squishy bodies, once body_capacity is set.
cr_squash_budget cr_default_squash_budget(void);

#ifdef __cplusplus
}
#endif

#endif
