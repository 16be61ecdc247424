/* models.h — the damage models, listed once, and the contract each implements.
 *
 * The list below is the only place the stage, the memory report, the stats
 * and the state hash learn which models exist and in which order they run.
 * Adding a model is its own files, its public header, its budget in
 * cr_damage_def, its cr_model_stats in cr_world_stats, one CR_MODEL_ bit,
 * one row of the sharing table (models.c) and one line here.
 *
 * X(name, BIT, region, field): `name` is the model's prefix (cri_name_model_*,
 * cr_damage_def.name, cr_world_stats.name), BIT its CR_MODEL_ bit, `region`
 * and `field` its line of the memory report (what the bytes are, the def
 * fields that size them). The order is the stage's fixed order.
 *
 * Every model exports, with these signatures (direct calls through the list,
 * no function-pointer tables: those would be writable data in the library):
 *   cr_status cri_name_model_check_def(const cr_damage_def *d, cr_field *field)
 *                 CR_OK, or CR_ERR_DEF_INVALID with *field naming what is out of range
 *   uint64_t  cri_name_model_region_bytes(const cr_world_def *def)   persistent bytes
 *   uint64_t  cri_name_model_scratch_bytes(const cr_world_def *def)  scratch one step takes at most
 *   uint32_t  cri_name_model_surfaces(const cr_damage_def *d)        surface copies it may own at once
 *   bool      cri_name_model_layout(cr_world *w, uint8_t *block)     lay its region out
 *   void      cri_name_model_detach(cr_world *w, uint32_t body_index1)
 *   void      cri_name_model_step(cr_world *w, const cr_damage_input *in)
 *                 this step's work from the step's impacts and contacts, within its
 *                 budget; fills cr_world_stats.name
 *   void      cri_name_model_after_commands(cr_world *w)  the deferred commands were applied
 *   uint64_t  cri_name_model_hash(const cr_world *w, uint64_t h)
 *   void      cri_name_model_rebind(cr_world *w)       pointers after a byte copy of the block
 * Attaching takes the model's own public def, so it is the one call outside
 * the contract (cr_name_attach in crumple/name.h); it asks
 * cri_damage_may_share first.
 */
#ifndef CRUMPLE_DAMAGE_MODELS_H
#define CRUMPLE_DAMAGE_MODELS_H

#include "damage/damage.h"
#include "damage/budget.h"

#define CRI_DAMAGE_MODELS(X)                                                                                            \
    X(dent, CR_MODEL_DENT, "damage: dent model (two dent maps, a grid patch, queue, records)",                          \
      "damage.dent.max_cells (maps: max_cells^2), .work_per_step (patch), .queue_capacity")                             \
    X(example, CR_MODEL_EXAMPLE, "damage: example plasticity model", "damage.example")                                  \
    X(bend, CR_MODEL_BEND, "damage: bending model (bones, skins, split queue)", "damage.bend")                          \
    X(squash, CR_MODEL_SQUASH, "damage: squash model (skeletons, zones)", "damage.squash")                              \
    X(fracture, CR_MODEL_FRACTURE, "damage: fracture model (pieces, bonds, queue)", "damage.fracture")                  \
    X(custom, CR_MODEL_CUSTOM, "damage: the game's model", "damage.custom")

#define CRI_DAMAGE_MODEL_DECLARE(name, bit, region, field)                                                              \
    cr_status cri_##name##_model_check_def(const cr_damage_def *d, cr_field *field_out);                                \
    uint64_t cri_##name##_model_region_bytes(const cr_world_def *def);                                                  \
    uint64_t cri_##name##_model_scratch_bytes(const cr_world_def *def);                                                 \
    uint32_t cri_##name##_model_surfaces(const cr_damage_def *d);                                                       \
    bool cri_##name##_model_layout(cr_world *w, uint8_t *block);                                                        \
    void cri_##name##_model_detach(cr_world *w, uint32_t body_index1);                                                  \
    void cri_##name##_model_step(cr_world *w, const cr_damage_input *in);                                               \
    void cri_##name##_model_after_commands(cr_world *w);                                                                \
    uint64_t cri_##name##_model_hash(const cr_world *w, uint64_t h);                                                    \
    void cri_##name##_model_rebind(cr_world *w);
CRI_DAMAGE_MODELS(CRI_DAMAGE_MODEL_DECLARE)
#undef CRI_DAMAGE_MODEL_DECLARE

/// Whether a body with the models `have` (CR_MODEL_* bits) may take `model`
/// too: CR_OK, or CR_ERR_DEF_INVALID when it has it already or one that
/// moves the same surface in a way the other would undo (models.c's table).
cr_status cri_damage_may_share(uint8_t have, uint8_t model);

/// Surface copies the def's models may own at once (the stage sizes the pool by it).
uint32_t cri_damage_surfaces(const cr_damage_def *d);

#endif
