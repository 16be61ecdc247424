/* stage.h — the damage stage's entry points for the world (internal; see damage.h). */
#ifndef CRUMPLE_DAMAGE_STAGE_H
#define CRUMPLE_DAMAGE_STAGE_H

#include "solver/solver.h"
#include "damage/damage.h"

/// CR_OK, or CR_ERR_DEF_INVALID for a damage def out of range.
/* CR_ERR_DEF_INVALID with *field naming the damage def part that is out of range */
cr_status cri_damage_check_def(const cr_damage_def *d, cr_field *field);
/// Persistent bytes the damage stage takes for `def`.
uint64_t cri_damage_region_bytes(const cr_world_def *def);
/// Scratch bytes one step of the damage stage takes at most.
uint64_t cri_damage_scratch_bytes(const cr_world_def *def);
/// Lay the damage region out in the persistent arena (world layout calls it).
bool cri_damage_layout(cr_world *w, uint8_t *block);
/// Remember every body's pose at the start of the step (scratch): impacts
/// are measured by the solver in that configuration.
void cri_damage_begin(cr_world *w);
/// The stage: per-body impacts and contacts, every model, then the deferred commands.
void cri_damage_step(cr_step *s);
/// Mix every model's state and the command queue into the state hash.
uint64_t cri_damage_hash(const cr_world *w, uint64_t h);
/// Repair pointers after a byte copy of the block (snapshot restore).
void cri_damage_rebind(cr_world *w);
/// A body is being destroyed: every model lets go of it.
void cri_damage_detach_all(cr_world *w, uint32_t body_index1);

/* ---- surfaces.c: the bodies' own surface copies ---- */

/// The copy a body owns, or NULL.
cr_surface_copy *cri_damage_surface_of(cr_world *w, uint32_t body_index1);
/// Give a mesh body its own copy (or return the one it has); its shape then names the copy.
cr_status cri_damage_surface_attach(cr_world *w, uint32_t body_index1, cr_surface_copy **out);
/// Let go of a body's copy (its memory stays for a body of the same size).
void cri_damage_surface_detach(cr_world *w, uint32_t body_index1);
/// The cooked asset's slot behind a shape slot (flagged or not).
uint32_t cri_damage_rest_slot(const cr_world *w, uint32_t slot);
/// The cooked asset behind a shape slot (flagged or not).
const cr_asset *cri_damage_rest_asset(const cr_world *w, uint32_t slot);
void cri_damage_surfaces_rebind(cr_world *w);
uint64_t cri_damage_surfaces_hash(const cr_world *w, uint64_t h);

/* ---- commands.c: deferred world commands ---- */

/// Apply the queued commands in queue order; those the world refuses stay queued.
void cri_damage_commands_apply(cr_world *w);
uint64_t cri_damage_commands_hash(const cr_world *w, uint64_t h);
/// Queue a body create that writes the new handle at block offset id_out when applied.
cr_status cri_damage_defer_body_create_into(cr_world *w, const cr_body_def *def, uint32_t id_out);
/// Queue a joint create whose bodies are read from block offsets a_from/b_from
/// (0: the def's) when applied, and whose handle is written at id_out (0: nowhere).
cr_status cri_damage_defer_joint_create_between(cr_world *w, const cr_joint_def *def, uint32_t a_from, uint32_t b_from,
                                                uint32_t id_out);
/// Queue a translation of `body` by `by` (m, world frame) for the step's end.
cr_status cri_damage_defer_body_move(cr_world *w, cr_body_id body, cr_vec3 by);
/// Commands the queue has room for now.
uint32_t cri_damage_commands_room(const cr_world *w);

#endif
