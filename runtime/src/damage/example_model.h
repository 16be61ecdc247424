/* example_model.h — example-based plasticity (seed 001 §3) as a damage
 * model: the model's exports for the damage stage (see damage.h). */
#ifndef CRUMPLE_EXAMPLE_MODEL_H
#define CRUMPLE_EXAMPLE_MODEL_H

#include "damage/damage.h"
#include "crumple/example.h"

/// CR_OK, or CR_ERR_DEF_INVALID with the budget field out of range in *field.
cr_status cri_example_model_check_def(const cr_example_budget *b, cr_field *field);
uint64_t cri_example_model_region_bytes(const cr_world_def *def);
bool cri_example_model_layout(cr_world *w, uint8_t *block);
cr_status cri_example_model_attach(cr_world *w, uint32_t body_index1, const cr_example_def *def);
void cri_example_model_detach(cr_world *w, uint32_t body_index1);
/// Queue this step's impulses above beta, turn them into weight changes while
/// the budget lasts, fade in, re-skin, and set every plastic body's
/// restitution (eq. 15); fills cr_world_stats.example.
void cri_example_model_step(cr_world *w, const cr_damage_input *in, cr_real dt);
uint64_t cri_example_model_hash(const cr_world *w, uint64_t h);

#endif
