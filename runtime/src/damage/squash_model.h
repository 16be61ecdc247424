/* squash_model.h — squash and bulge of implicit bodies (seed 003) as a damage
 * model: the model's exports for the damage stage (see damage.h). */
#ifndef CRUMPLE_SQUASH_MODEL_H
#define CRUMPLE_SQUASH_MODEL_H

#include "damage/models.h"

/* The contract every model exports is declared in damage/models.h.
 * Its step: Every squishy body near another: the skin deformed (squash.c) into its surface copy, the soft contact forces added for the next velocity update; the skin back at rest where contact ended. Fills cr_world_stats.squash. */
#include "crumple/squash.h"

cr_status cri_squash_model_attach(cr_world *w, uint32_t body_index1, const cr_squash_def *def);

#endif
