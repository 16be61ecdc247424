/* crumple/bend.h — bending after seed 000 §4 (Patkar et al. 2014): a rigid
 * body with an articulated skeleton whose joints bend plastically or spring
 * back elastically, its mesh following by skinning.
 *
 * A rigged, cooked mesh (bones and skinning weights in the asset: `crumple
 * cook --rig` or automatic bones) is made bendable with cr_bend_attach. The
 * body is then simulated as one sub-body per bone (docs/bending.md):
 *   - each triangle belongs to one bone, each distance-grid node to one bone
 *     (grown from its triangles); a sub-body collides with its own bone's
 *     samples and with the parent's grid restricted to its own nodes (the
 *     others read a small positive distance), and takes its mass, centre of
 *     mass and inertia from its own inside nodes;
 *   - each bone is held to its parent bone by a fixed joint at the bone's
 *     head: plastic (bend_strength: yields past it and keeps the bend,
 *     crumple/joint.h) or elastic (spring_stiffness: a torsion spring solved
 *     in closed form);
 *   - the body itself stays the handle the game holds: it follows its root
 *     bone, no longer collides (its sub-bodies do), and its mesh
 *     (cr_body_get_mesh) is re-skinned from the sub-bodies' poses by linear
 *     blend skinning, with dirty ranges as for dents.
 *
 * Dynamic articulation (§4.2): with split_speed > 0, an impact on a sub-body
 * faster than it splits the bone nearest the impact at the impact's
 * projection: the bone's skinning weights are shared between its two halves
 * across one grid cell around the split (no other bone's change), its grid
 * nodes are grown again between the two, both halves get their own mass
 * properties, and a new bending joint holds them at the split.
 *
 * Condensation (§4.5): with condense_time > 0, bones whose joints have been
 * quiet that long merge into one rigid body (mass, centre, momentum and
 * angular momentum kept), and get their own bodies back when something
 * faster than wake_speed hits or is about to hit them.
 *
 * Bend + dent (§4.4): with `dents`, impacts on a sub-body also dent the body
 * (as `dent` says); the dent is in the rest surface the mesh is skinned
 * from, so it bends with the body.
 *
 * Usage:
 *     def.damage.bend.body_capacity = 4;       // world def: room for bendable bodies
 *     ...
 *     cr_bend_def bd = cr_default_bend_def();
 *     bd.bend_strength = CR_R(40);              // N m s
 *     cr_bend_attach(world, lamppost, &bd);
 *     cr_body_id top = cr_bend_get_sub_body(world, lamppost, 2);
 */
#ifndef CRUMPLE_BEND_H
#define CRUMPLE_BEND_H

#include "body.h"
#include "joint.h"
#include "dent.h"

/* Link names carry the scalar mode (CR_LINK_NAME, crumple/real.h), so code
 * compiled in the other mode fails to link instead of misreading every cr_real. */
#define cr_default_bend_def CR_LINK_NAME(cr_default_bend_def)
#define cr_bend_attach CR_LINK_NAME(cr_bend_attach)
#define cr_bend_get_bone_count CR_LINK_NAME(cr_bend_get_bone_count)
#define cr_bend_get_sub_body CR_LINK_NAME(cr_bend_get_sub_body)
#define cr_bend_get_joint CR_LINK_NAME(cr_bend_get_joint)
#define cr_bend_is_sub_body CR_LINK_NAME(cr_bend_is_sub_body)
#define cr_default_bend_budget CR_LINK_NAME(cr_default_bend_budget)

#ifdef __cplusplus
extern "C" {
#endif

/// How a body's skeleton bends (one material).
typedef struct cr_bend_def {
    cr_real bend_strength;         ///< N m s: angular impulse a joint holds in one step before it yields (plastic); 0: elastic or rigid joints
    cr_real bend_damping;          ///< 1/s: proportional damping of a yielding joint's bend rate
    cr_real bend_damping_constant; ///< rad/s^2: constant damping of the bend rate
    cr_real spring_stiffness;      ///< N m/rad: elastic joints (torsion springs) instead; needs bend_strength 0
    cr_real spring_damping;        ///< N m s/rad: the springs' damping
    /* dynamic articulation (seed 000 §4.2, Fig. 14) */
    cr_real split_speed;           ///< m/s: an impact on a sub-body faster than this splits the nearest bone at the impact's projection (0: never)
    cr_real split_min_length;      ///< m: neither part of a split bone may be shorter than this
    uint32_t max_bones;            ///< bones the body may grow to by splits (<= the budget's max_bones; 0: the asset's count)
    /* condensation (seed 000 §4.5, Fig. 15) */
    cr_real condense_time;         ///< s: bones joined by joints quiet this long merge into one rigid body (0: never)
    cr_real wake_speed;            ///< m/s: an impact this fast on a condensed cluster gives its bones back their own bodies
    /* bend + dent (seed 000 §4.4) */
    bool dents;                    ///< impacts on its sub-bodies dent the body (its rest surface, so the dent bends with it)
    cr_dent_def dent;              ///< how it dents (crumple/dent.h; cr_default_bend_def fills it with cr_default_dent_def)
    /* seams (docs/bending.md "Seams") */
    cr_real seam_angle;            ///< rad: a joint turned this far from where its seam was last re-segmented gets it re-segmented (0: never)
    uint32_t cookie;               ///< set by cr_default_bend_def(); checked by cr_bend_attach
} cr_bend_def;

/// Plastic steel-like joints at a 60 Hz step: bend_strength 50 N m s, bend_damping 4/s, constant 2 rad/s^2;
/// no dynamic articulation (split_speed 0; split_min_length 0.25 m).
cr_bend_def cr_default_bend_def(void);

/// Make a rigged dynamic mesh body bendable: it becomes one sub-body per
/// bone joined by bending joints at once; with split_speed > 0 it also gets
/// max_bones - bones parked sub-bodies for the bones impacts will add.
/// CR_ERR_DEF_INVALID: not a dynamic mesh body, an asset with no bones (or
/// one bone and no dynamic articulation) or no collision samples, a
/// body that already bends, dents or deforms by examples, a bone that owns no
/// inside grid node (too short for the grid), or a def out of range (negative
/// or non-finite values, plastic and elastic at once). CR_ERR_CAPACITY: all
/// damage.bend.body_capacity records taken, the asset is larger than the
/// budget's max_bones / max_vertices / max_triangles / max_grid_nodes, or the
/// world has no room for the sub-bodies, joints or surface copies.
cr_status cr_bend_attach(cr_world *world, cr_body_id body, const cr_bend_def *def);
/// Bones of a bendable body (0 if it has none).
uint32_t cr_bend_get_bone_count(const cr_world *world, cr_body_id body);
/// The sub-body of a bone (null id if the body does not bend or the bone does not exist).
cr_body_id cr_bend_get_sub_body(const cr_world *world, cr_body_id body, uint32_t bone);
/// The joint that holds a bone to its parent bone: null for a root bone, while
/// the bone is condensed with its parent (condensation removes the joint and
/// re-creates it when the cluster wakes), and until the end of the step that
/// made it (a split's or a wake's joint is a deferred command).
cr_joint_id cr_bend_get_joint(const cr_world *world, cr_body_id body, uint32_t bone);

/// True for a sub-body of a bendable body (live, parked or condensed): the
/// model's collision stand-in for one bone. Draw the bendable body itself
/// (cr_body_get_mesh: the skinned mesh), not its sub-bodies.
bool cr_bend_is_sub_body(const cr_world *world, cr_body_id body);

/// Budgets that suit a handful of bendable bodies, once body_capacity is set.
cr_bend_budget cr_default_bend_budget(void);

#ifdef __cplusplus
}
#endif

#endif
