/* custom_model.h — the game's own damage model (crumple/damage.h) on the
 * damage stage's seam: the exports every model has (see damage.h). */
#ifndef CRUMPLE_CUSTOM_MODEL_H
#define CRUMPLE_CUSTOM_MODEL_H

#include "damage/models.h"

/* The contract every model exports is declared in damage/models.h.
 * Its step: Call the game's model for each of its bodies, in slot order, within `budget`.
 * Its hash: Mixes the attached bodies and their state bytes. */

cr_status cri_custom_model_attach(cr_world *w, uint32_t body_index1);

#endif
