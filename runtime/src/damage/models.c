/* models.c — which damage models may share a body, in one table.
 *
 * A model that moves a surface owns the body's one surface copy, and two
 * models that each rewrite it from their own rest state would erase each
 * other's work: an example model's re-skin erases dents, the bending skin is
 * the mesh an example model would blend, squash writes the skin a dent would
 * move. Such pairs are refused at attach; every other pair composes (a
 * fracture actor's pieces keep their dents, a bending body may squash).
 * The table is symmetric: the order of the attach calls does not matter.
 */
#include "damage/models.h"

/* Row: a model's bit; columns: the models it must not share a body with (itself included). */
static uint8_t excluded(uint8_t model) {
    switch (model) {
    case CR_MODEL_DENT: return CR_MODEL_DENT | CR_MODEL_EXAMPLE | CR_MODEL_BEND | CR_MODEL_SQUASH;
    case CR_MODEL_EXAMPLE: return CR_MODEL_EXAMPLE | CR_MODEL_DENT | CR_MODEL_BEND | CR_MODEL_SQUASH;
    case CR_MODEL_BEND: return CR_MODEL_BEND | CR_MODEL_DENT | CR_MODEL_EXAMPLE; /* bend + dent (seed 000 §4.4) is the bending model's own dents */
    case CR_MODEL_SQUASH: return CR_MODEL_SQUASH | CR_MODEL_DENT | CR_MODEL_EXAMPLE;
    case CR_MODEL_FRACTURE: return CR_MODEL_FRACTURE;
    case CR_MODEL_CUSTOM: return CR_MODEL_CUSTOM;
    default: return 0xffu;
    }
}

cr_status cri_damage_may_share(uint8_t have, uint8_t model) {
    return (have & excluded(model)) ? CR_ERR_DEF_INVALID : CR_OK;
}

uint32_t cri_damage_surfaces(const cr_damage_def *d) {
    uint32_t n = 0;
#define CRI_SURFACES(name, bit, region, field) n += cri_##name##_model_surfaces(d);
    CRI_DAMAGE_MODELS(CRI_SURFACES)
#undef CRI_SURFACES
    return n;
}
