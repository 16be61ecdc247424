/* custom_model.h — the game's own damage model (crumple/damage.h) on the
 * damage stage's seam: the exports every model has (see damage.h). */
#ifndef CRUMPLE_CUSTOM_MODEL_H
#define CRUMPLE_CUSTOM_MODEL_H

#include "damage/damage.h"

cr_status cri_custom_model_check_def(const cr_custom_budget *b);
uint64_t cri_custom_model_region_bytes(const cr_world_def *def);
bool cri_custom_model_layout(cr_world *w, uint8_t *block);
cr_status cri_custom_model_attach(cr_world *w, uint32_t body_index1);
void cri_custom_model_detach(cr_world *w, uint32_t body_index1);
/// Call the game's model for each of its bodies, in slot order, within `budget`.
void cri_custom_model_step(cr_world *w, const cr_damage_input *in, uint32_t budget);
/// Mixes the attached bodies and their state bytes.
uint64_t cri_custom_model_hash(const cr_world *w, uint64_t h);

#endif
