/* crumple/fracture.h — prescored fracture: pieces cooked offline, bonds that
 * break under load, pieces that become bodies (seed 001 §5, seed 000 §1;
 * NVIDIA Blast's support graph is the industry anchor; docs/fracture.md).
 *
 * A prescored asset (`crumple cook --pieces N` or an OBJ whose groups are
 * the pieces) carries, besides the whole shape, its pieces (each a complete
 * cooked asset nested in the same file) and the support graph: one bond per
 * pair of pieces that share cut faces, with the bond's area, centroid and
 * normal (crumple/asset.h: cr_asset_piece, cr_asset_bond).
 *
 * While no bond has broken the body is one rigid body with the whole shape:
 * one set of mass properties, one contact set, no cost per piece. Each step
 * every impact on it uses up bond health (impulse x falloff from the impact
 * point / (toughness x bond area)) and a stress estimate over the support
 * graph (the loads the body carries: its weight, its contacts, its joints)
 * breaks bonds loaded past strength x area. When the support graph falls
 * into islands, the body is replaced in the same step, through the deferred
 * world commands, by one body per piece: exact mass properties from the
 * piece's own asset, the velocity of the parent's material point at the
 * piece's centre of mass and the parent's spin (linear and angular momentum
 * kept to rounding); the unbroken bonds inside a moving island become fixed
 * joints that break in turn when the joint carries more than the bond can;
 * islands that still hold to an anchor stay static.
 *
 * Usage:
 *     def.damage.fracture = cr_default_fracture_budget();
 *     def.damage.fracture.body_capacity = 2;         // world def: room for fracturable bodies
 *     ...
 *     cr_asset wall;                                  // loaded from a prescored .crb
 *     cr_world_add_asset(world, &wall, &wall_slot);
 *     for (uint32_t i = 0; i < wall.piece_count; ++i) {  // the pieces, in order, at consecutive slots
 *         const void *pb; size_t pn;
 *         cr_asset_piece_bytes(&wall, bytes, size, i, &pb, &pn);
 *         cr_asset_load(pb, pn, ...); cr_world_add_asset(world, &piece[i], &slot);
 *     }
 *     cr_fracture_def fd = cr_default_fracture_def();
 *     fd.first_piece_asset = slot_of_piece_0;
 *     fd.anchor_min = ...; fd.anchor_max = ...;       // pieces whose centre lies here hold to the world
 *     cr_fracture_attach(world, wall_body, &fd);
 */
#ifndef CRUMPLE_FRACTURE_H
#define CRUMPLE_FRACTURE_H

#include "body.h"

/* Link names carry the scalar mode (CR_LINK_NAME, crumple/real.h), so code
 * compiled in the other mode fails to link instead of misreading every cr_real. */
#define cr_default_fracture_def CR_LINK_NAME(cr_default_fracture_def)
#define cr_fracture_attach CR_LINK_NAME(cr_fracture_attach)
#define cr_fracture_apply_damage CR_LINK_NAME(cr_fracture_apply_damage)
#define cr_fracture_get CR_LINK_NAME(cr_fracture_get)
#define cr_fracture_get_bond_health CR_LINK_NAME(cr_fracture_get_bond_health)
#define cr_fracture_get_piece_body CR_LINK_NAME(cr_fracture_get_piece_body)
#define cr_default_fracture_budget CR_LINK_NAME(cr_default_fracture_budget)

#ifdef __cplusplus
extern "C" {
#endif

/// How a prescored body breaks (one material).
typedef struct cr_fracture_def {
    uint32_t first_piece_asset; ///< asset slot of piece 0; piece i is slot first_piece_asset + i
    cr_real toughness;          ///< N s/m^2: impact impulse per m^2 of bond area that uses up a bond's health
    cr_real strength;           ///< N/m^2: force per m^2 of bond area a bond carries unharmed (stress, joints)
    cr_real damage_radius;      ///< m: an impact's damage falls off linearly to 0 at this distance from its point
    cr_vec3 anchor_min;         ///< m, the asset's mesh frame (as modelled): a static body's pieces whose centre
    cr_vec3 anchor_max;         ///< lies in [anchor_min, anchor_max] hold to the world; empty (min > max): no anchors
    uint32_t stress_iterations; ///< Gauss-Seidel sweeps of the stress estimate per step (0: no stress, impacts only)
    uint32_t cookie;            ///< set by cr_default_fracture_def(); checked by cr_fracture_attach
} cr_fracture_def;

/// Concrete-like bonds at a 60 Hz step: toughness 2000 N s/m^2, strength 2e5 N/m^2,
/// damage radius 0.5 m, no anchors, 16 stress sweeps.
cr_fracture_def cr_default_fracture_def(void);

/// Make a prescored mesh body fracturable. CR_ERR_DEF_INVALID: not a mesh
/// body, its asset has fewer than 2 pieces, a piece's slot holds an asset of
/// another volume than the piece table says, the body fractures already, or
/// a def field out of range (named by cr_world_refused_field). CR_ERR_CAPACITY:
/// damage.fracture has no record, piece or bond room left, or more pieces than
/// pieces_per_step (the body could never split in one step).
cr_status cr_fracture_attach(cr_world *world, cr_body_id body, const cr_fracture_def *def);

/// The game's own damage (a bullet, an explosion): an impulse (N s) at a world
/// point, applied to the bonds in the next step's damage stage like an impact.
/// `body` may be the whole body or one of its pieces.
cr_status cr_fracture_apply_damage(cr_world *world, cr_body_id body, cr_vec3 world_point, cr_real impulse);

/// A read-only look at a fracturable body (or any of its pieces).
typedef struct cr_fracture_view {
    uint32_t piece_count;
    uint32_t bond_count;
    uint32_t bonds_broken;     ///< bonds broken so far
    uint32_t pieces_spawned;   ///< pieces that are bodies of their own (0 while whole)
    bool whole;                ///< still one body
} cr_fracture_view;
/// CR_ERR_DEF_INVALID if the body is neither a fracturable body nor one of its pieces.
cr_status cr_fracture_get(const cr_world *world, cr_body_id body, cr_fracture_view *out);
/// Health of bond k in [0, 1] (1 new, 0 broken); 0 for a bad handle or index.
cr_real cr_fracture_get_bond_health(const cr_world *world, cr_body_id body, uint32_t bond);
/// The body piece i is now (null while whole, or if the piece's body was destroyed).
cr_body_id cr_fracture_get_piece_body(const cr_world *world, cr_body_id body, uint32_t piece);

/// Budgets that suit a few fracturable bodies of up to 1000 pieces, once body_capacity is set.
cr_fracture_budget cr_default_fracture_budget(void);

#ifdef __cplusplus
}
#endif

#endif
