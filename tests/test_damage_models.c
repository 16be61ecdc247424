/* test_damage_models.c — the damage models' one contract (damage/models.h):
 * the list drives the stage, and the table of which models may share a body
 * answers the same whichever model was attached first. */
#include "test.h"
#include "damage/models.h"

static const uint8_t model_bits[] = {
#define BIT(name, bit, region, field) bit,
    CRI_DAMAGE_MODELS(BIT)
#undef BIT
};
#define MODEL_COUNT (sizeof model_bits / sizeof model_bits[0])

CR_TEST(damage_models_sharing_is_symmetric_and_no_model_attaches_twice) {
    ENSURE(MODEL_COUNT == 6);
    uint8_t all = 0;
    for (uint32_t i = 0; i < MODEL_COUNT; ++i) {
        ENSURE_MSG((all & model_bits[i]) == 0, "model %u shares a CR_MODEL_ bit", i);
        all |= model_bits[i];
        ENSURE(cri_damage_may_share(0, model_bits[i]) == CR_OK);
        ENSURE(cri_damage_may_share(model_bits[i], model_bits[i]) == CR_ERR_DEF_INVALID);
        for (uint32_t j = 0; j < MODEL_COUNT; ++j) {
            cr_status ab = cri_damage_may_share(model_bits[i], model_bits[j]);
            cr_status ba = cri_damage_may_share(model_bits[j], model_bits[i]);
            ENSURE_MSG(ab == ba, "models %u and %u: attach order decides (%d / %d)", i, j, (int)ab, (int)ba);
        }
    }
    /* the pairs that move one surface copy from two rest states exclude each other; fracture composes with dents */
    ENSURE(cri_damage_may_share(CR_MODEL_DENT, CR_MODEL_SQUASH) == CR_ERR_DEF_INVALID);
    ENSURE(cri_damage_may_share(CR_MODEL_DENT, CR_MODEL_EXAMPLE) == CR_ERR_DEF_INVALID);
    ENSURE(cri_damage_may_share(CR_MODEL_FRACTURE, CR_MODEL_DENT) == CR_OK);
    ENSURE(cri_damage_may_share(CR_MODEL_DENT | CR_MODEL_FRACTURE, CR_MODEL_CUSTOM) == CR_OK);
}
