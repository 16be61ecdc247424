/* example_model.h — example-based plasticity (seed 001 §3) as a damage
 * model: the model's exports for the damage stage (see damage.h). */
#ifndef CRUMPLE_EXAMPLE_MODEL_H
#define CRUMPLE_EXAMPLE_MODEL_H

#include "damage/models.h"

/* The contract every model exports is declared in damage/models.h.
 * Its check_def: CR_OK, or CR_ERR_DEF_INVALID with the budget field out of range in *field.
 * Its step: Queue this step's impulses above beta, turn them into weight changes while the budget lasts, fade in, re-skin, and set every plastic body's restitution (eq. 15); fills cr_world_stats.example. */
#include "crumple/example.h"

cr_status cri_example_model_attach(cr_world *w, uint32_t body_index1, const cr_example_def *def);

#endif
