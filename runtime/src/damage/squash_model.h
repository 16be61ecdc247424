/* squash_model.h — squash and bulge of implicit bodies (seed 003) as a damage
 * model: the model's exports for the damage stage (see damage.h). */
#ifndef CRUMPLE_SQUASH_MODEL_H
#define CRUMPLE_SQUASH_MODEL_H

#include "damage/damage.h"
#include "crumple/squash.h"

cr_status cri_squash_model_check_def(const cr_squash_budget *b);
uint64_t cri_squash_model_region_bytes(const cr_world_def *def);
bool cri_squash_model_layout(cr_world *w, uint8_t *block);
cr_status cri_squash_model_attach(cr_world *w, uint32_t body_index1, const cr_squash_def *def);
void cri_squash_model_detach(cr_world *w, uint32_t body_index1);
/// Every squishy body near another: the skin deformed (squash.c) into its
/// surface copy, the soft contact forces added for the next velocity update;
/// the skin back at rest where contact ended. Fills cr_world_stats.squash.
void cri_squash_model_step(cr_world *w, cr_real dt);
uint64_t cri_squash_model_hash(const cr_world *w, uint64_t h);

#endif
