/* dent_model.h — dents as a damage model (seed 000 §3): the model's exports
 * for the damage stage (see damage.h for the set every model exports). */
#ifndef CRUMPLE_DENT_MODEL_H
#define CRUMPLE_DENT_MODEL_H

#include "damage/models.h"

/* The contract every model exports is declared in damage/models.h.
 * Its check_def: CR_OK, or CR_ERR_DEF_INVALID with the budget field out of range in *field.
 * Its step: Queue this step's impacts on dented bodies, then apply dents from the queue while `budget` work units last; fills cr_world_stats.dent. */
#include "crumple/dent.h"

cr_status cri_dent_model_attach(cr_world *w, uint32_t body_index1, const cr_dent_def *def);
/// Dents applied to a body so far (0 if it does not dent).
uint32_t cri_dent_model_dent_count(const cr_world *w, uint32_t body_index1);
/// The def a body dents with (false if it does not dent): fracture gives its pieces the same.
bool cri_dent_model_def_of(cr_world *w, uint32_t body_index1, cr_dent_def *out);

#endif
