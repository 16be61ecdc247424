/* fracture_model.h — prescored fracture (crumple/fracture.h) as a damage
 * model: its records, its exports for the damage stage (see damage.h), and
 * the calls between its files:
 *   fracture_model.c   records, attach/detach, the step's order, hash, public calls
 *   fracture_bonds.c   bond health: impact damage, the stress estimate, joint loads
 *   fracture_islands.c islands of the support graph (union-find)
 *   fracture_pieces.c  pieces become bodies (deferred commands), and join the model
 *   fracture_blow.c    the blow that frees a static actor's pieces: their velocities, the strikers' share
 *   fracture_dents.c   dents before the break: the pieces dent, a static piece's dent kept when freed
 *   fracture_carry.c   the whole's dents carried onto its pieces, slice by slice within the budget
 */
#ifndef CRUMPLE_FRACTURE_MODEL_H
#define CRUMPLE_FRACTURE_MODEL_H

#include "damage/models.h"
#include "damage/budget.h"

/* The contract every model exports is declared in damage/models.h.
 * Its step: A break's dents carried onto its pieces, impacts and game damage into bond health, stress, islands, pieces queued as bodies, all charged to the stage's budget; fills cr_world_stats.fracture.
 * Its after_commands: After the deferred commands: the pieces made bodies join the model. */
#include "crumple/fracture.h"
#include "crumple/asset.h"
#include "crumple/dent.h"

#define CR_FRACTURE_COOKIE 0x66726163u /* "frac" */
/// A whole's loads whose sum is within this fraction of their size of the
/// last stress pass's are the same loads: a settled pass stands (docs/fracture.md).
#define CR_FRACTURE_LOAD_TOLERANCE CR_R(0.02)
/// cr_fracture_slot.piece of the whole body (not one piece).
#define CR_FRACTURE_WHOLE 0xffffffffu

/// One fracturable body, whole or split.
typedef struct cr_fracture_actor {
    uint32_t origin_index1;   ///< the body attached: its handle names the actor for ever (0: free record)
    uint32_t origin_generation;
    uint32_t whole_index1;    ///< the whole body's slot while it is whole, 0 once split
    uint32_t asset;           ///< cooked slot of the whole shape
    uint32_t piece_first, piece_count, piece_room; ///< its range of the piece pool (room >= count)
    uint32_t bond_first, bond_count, bond_room;    ///< its range of the bond pool
    uint32_t broken;          ///< bonds broken so far
    uint32_t spawned;         ///< pieces made bodies so far (creates applied)
    uint8_t dirty;            ///< bonds broke since its islands were last found
    uint8_t splitting;        ///< its creates are queued: the whole's destroy must not free the record
    uint8_t was_static;       ///< the whole body was static: anchors count
    uint8_t dent_pieces;      ///< the whole dented: its pieces dent with dent_def and take its dents over
    uint8_t calm;             ///< this step the whole's loads cannot break its weakest bond: no stress pass (set per step)
    uint8_t settled;          ///< the last stress pass converged and overloaded no bond: while the loads stay, it stands
    uint8_t pad3_[2];
    uint32_t dirty_step;      ///< the step bonds broke since its islands were last found: a break's latency starts here
    cr_vec3 load_sum;         ///< N s, whole frame: the sum of the loads (contacts + weight) the last stress pass saw (fracture_model.c)
    cr_real min_area;         ///< m^2, the smallest bond: loads below strength x this cannot break one
    cr_fracture_def def;
    cr_dent_def dent_def;     ///< the whole's, for its pieces (dent_pieces)
} cr_fracture_actor;

/// A piece's state. Its shape, volume and place come from the assets.
typedef struct cr_fracture_piece {
    cr_body_id body;          ///< written by the deferred create when the piece becomes a body (commands.c)
    cr_transform pose;        ///< piece body frame -> whole body frame
    cr_vec3 stress_u;         ///< the stress estimate's potential, kept between steps (warm start)
    cr_real mass;             ///< kg, density x the piece's volume
    uint32_t island;          ///< lowest piece index of its island at the last search
    uint8_t anchor;           ///< holds to the world (static whole, centre in the anchor box)
    uint8_t is_static;        ///< its body is (to be) static
    uint8_t mapped;           ///< its body is in the slot map with the model bit
    uint8_t respawning;       ///< a create for it is queued (its old body's destroy breaks nothing)
    uint8_t held;             ///< its island holds an anchor (last island search)
    uint8_t carrying;         ///< a body that waits for the whole's dents (fracture_carry.c); no dent job starts on it meanwhile
    uint8_t pad_[2];
    cr_body_id old_body;      ///< a dented static body being replaced by a moving one: destroyed once its dents moved over
} cr_fracture_piece;

/// A bond's state; its geometry is the asset's cr_asset_bond.
typedef struct cr_fracture_bond {
    cr_real health;           ///< 1 new .. 0 broken
    cr_joint_id joint;        ///< the fixed joint that holds it while both pieces are moving bodies (else null)
    uint32_t broken;
} cr_fracture_bond;

/// What a body slot is to the model.
typedef struct cr_fracture_slot {
    uint32_t actor1;          ///< actor record + 1, 0: none
    uint32_t piece;           ///< piece index in the actor, or CR_FRACTURE_WHOLE
} cr_fracture_slot;

/// A hit waiting for bond budget: in the whole body's frame.
typedef struct cr_fracture_hit {
    uint32_t actor;
    uint32_t pad_;
    cr_vec3 point;            ///< m, whole body frame
    cr_real impulse;          ///< N s
} cr_fracture_hit;

/* ---- fracture_model.c ---- */

cr_fracture_actor *cri_fracture_actors(const cr_world *w);
cr_fracture_piece *cri_fracture_pieces(const cr_world *w, const cr_fracture_actor *a);
cr_fracture_bond *cri_fracture_bonds(const cr_world *w, const cr_fracture_actor *a);
cr_fracture_slot *cri_fracture_slots(const cr_world *w);
/// Block offset of an actor's piece k (for handles written back by commands).
uint32_t cri_fracture_piece_offset(const cr_world *w, const cr_fracture_actor *a, uint32_t k);
uint32_t cri_fracture_bond_offset(const cr_world *w, const cr_fracture_actor *a, uint32_t k);
/// Break bond k: count it, mark the islands for a search, let go of its joint.
void cri_fracture_break_bond(cr_world *w, cr_fracture_actor *a, uint32_t k);

/* ---- fracture_model.c: the step's meter ---- */
/// The model's step against the stage's budget: a slice runs if it fits what
/// is left, or if it is the step's first (so no work waits for ever).
typedef struct cr_fracture_meter {
    cr_damage_meter m;
    uint32_t slices;          ///< slices run this step
    uint64_t mark_ps, largest_ps;
} cr_fracture_meter;
bool cri_fracture_fits(const cr_fracture_meter *fm, uint64_t ps);
/// A slice ran: its charges since the last mark are one slice.
void cri_fracture_slice_ran(cr_fracture_meter *fm);
/// A break's pieces are bodies with their dents: count it and its latency.
void cri_fracture_committed(cr_world *w, uint32_t since_step);

/* ---- fracture_bonds.c ---- */
/// Damage every unbroken bond near `point` (whole frame) by an impulse; returns work (bonds looked at).
uint32_t cri_fracture_impact(cr_world *w, cr_fracture_actor *a, const cr_asset *whole, cr_vec3 point, cr_real impulse);
/// The stress estimate over the actor's non-moving pieces (the whole body, or
/// its static pieces) with `load` (N s per piece this step, world frame, pool
/// scratch indexed by the actor's pieces); returns work.
uint32_t cri_fracture_stress(cr_world *w, cr_fracture_actor *a, const cr_asset *whole, cr_vec3 *load, cr_real dt,
                             uint32_t budget, uint32_t *scratch_u32);
/// Bonds held by joints: the joint's last impulse against strength x area; returns work.
uint32_t cri_fracture_joint_loads(cr_world *w, cr_fracture_actor *a, const cr_asset *whole, cr_real dt);

/* ---- fracture_islands.c ---- */
/// Islands of the unbroken support graph: piece.island = lowest piece index
/// of its island; returns the number of islands. `parent` is scratch [piece_count].
uint32_t cri_fracture_islands(const cr_world *w, cr_fracture_actor *a, const cr_asset *whole, uint32_t *parent);

/* ---- fracture_pieces.c ---- */
/// Piece poses, masses and anchors at attach.
void cri_fracture_pieces_init(cr_world *w, cr_fracture_actor *a, const cr_asset *whole, const cr_body *body);
/// Queue the bodies the islands ask for (the whole body's split, or static
/// pieces cut off from every anchor). Returns pieces queued, or 0 when it
/// must wait (*wait set) or the world has no room (*over set to pieces left attached).
/// `in` is this step's impacts (the blow on a static actor), `scratch` room for a vector per piece.
/// Charged to `fm`: the pieces queued, their blow, the corners kept for their dents.
uint32_t cri_fracture_spawn(cr_world *w, cr_fracture_actor *a, uint32_t actor_index, const cr_asset *whole,
                            const cr_damage_input *in, cr_vec3 *scratch, uint32_t piece_budget, cr_real dt,
                            cr_fracture_meter *fm, uint32_t *wait, uint32_t *over);
/// The pieces whose bodies were made this step join the model (slot map, model bit).
void cri_fracture_pieces_adopt(cr_world *w, cr_fracture_actor *a, uint32_t actor_index);

/* ---- fracture_blow.c ---- */
/// The pieces a static actor frees now (respawning and not held) get the
/// blow of this step's strikers as a two-body impact: vel[k], world frame,
/// for every piece (zero unless freed); each dynamic striker gets back what
/// they could not take. Call only once the split is sure to be queued.
void cri_fracture_blow(cr_world *w, cr_fracture_actor *a, const cr_asset *whole, const cr_damage_input *in, cr_vec3 *vel);

/* ---- fracture_carry.c ---- */
/// At the split of a dented whole (its body still there): keep the corners of
/// its surface near its dents for its pieces. False: no dent to carry, or no room (counted shrunk).
bool cri_fracture_carry_begin(cr_world *w, cr_fracture_actor *a, uint32_t actor_index, cr_fracture_meter *fm);
/// Whether a break's carry is in flight (one at a time: another dented whole's split waits).
bool cri_fracture_carry_busy(const cr_world *w);
/// Slices of the carry in flight while the meter allows; a piece's patch
/// is staged and commits whole with its vertices.
void cri_fracture_carry_step(cr_world *w, cr_fracture_meter *fm);
/// Whether body_index1 is a piece still waiting for its carried dents.
bool cri_fracture_carry_pending(const cr_world *w, uint32_t body_index1);
/// The carry's state into the hash.
uint64_t cri_fracture_carry_hash(const cr_world *w, uint64_t h);

/* ---- fracture_dents.c ---- */
/// At the split: remember whether the whole dents and how (true: it does, and
/// its destroy waits until its pieces took its dents over).
bool cri_fracture_dents_keep(cr_world *w, cr_fracture_actor *a);
/// Piece k, just made a body: dent it like the whole (its dents carried later, fracture_carry.c).
bool cri_fracture_dents_attach(cr_world *w, cr_fracture_actor *a, uint32_t k);
/// Piece k, just made a moving body in place of its static one (old_body):
/// destroy the old body and give the new one its dented surface and grid.
void cri_fracture_dents_replace(cr_world *w, cr_fracture_actor *a, uint32_t k);

#endif
