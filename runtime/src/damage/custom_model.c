/* custom_model.c — the game's own damage model: records of the bodies it is
 * attached to, each with state_bytes of state in the block, and the calls to
 * the game's step function (crumple/damage.h).
 *
 * The state lives in the persistent arena, so a snapshot copies it, a
 * rollback restores it and the state hash covers it: a game's model is as
 * deterministic as its function. The function pointer itself is a host hook
 * in the def, like the log hook: the library holds no table of models.
 */
#include "damage/stage.h"
#include "damage/custom_model.h"
#include "base/hash.h"

#include <stdint.h>
#include <string.h>

typedef struct cr_custom_body {
    uint32_t body_index1;   ///< 0: free
    uint32_t body_generation;
} cr_custom_body;

static uint64_t al16(uint64_t x) { return (x + 15u) & ~(uint64_t)15u; }

static cr_status check_budget(const cr_custom_budget *b) {
    if (b->body_capacity > 4096 || b->state_bytes > (1u << 20)) return CR_ERR_DEF_INVALID;
    if (b->body_capacity > 0 && b->step == NULL) return CR_ERR_DEF_INVALID;
    return CR_OK;
}

cr_status cri_custom_model_check_def(const cr_damage_def *d, cr_field *field) {
    if (check_budget(&d->custom) == CR_OK) return CR_OK;
    *field = CR_FIELD_WORLD_DAMAGE_CUSTOM;
    return CR_ERR_DEF_INVALID;
}

uint64_t cri_custom_model_region_bytes(const cr_world_def *def) {
    const cr_custom_budget *b = &def->damage.custom;
    if (b->body_capacity == 0) return 0;
    return al16((uint64_t)b->body_capacity * sizeof(cr_custom_body)) +
           (uint64_t)b->body_capacity * al16(b->state_bytes) + 32u;
}

bool cri_custom_model_layout(cr_world *w, uint8_t *block) {
    const cr_custom_budget *b = &w->def.damage.custom;
    cr_custom_region *r = &CR_DAMAGE(w)->custom;
    memset(r, 0, sizeof *r);
    if (b->body_capacity == 0) return true;
    r->records = cri_arena_push(&w->persistent, block, b->body_capacity * (uint32_t)sizeof(cr_custom_body), 16);
    r->states = cri_arena_push(&w->persistent, block, b->body_capacity * (uint32_t)al16(b->state_bytes) + 16u, 16);
    return r->records != CR_NO_OFFSET && r->states != CR_NO_OFFSET;
}

static cr_custom_body *records(const cr_world *w) { return CR_AT(w, CR_DAMAGE(w)->custom.records, cr_custom_body); }
static uint8_t *state_of(const cr_world *w, uint32_t i) {
    return CR_AT(w, CR_DAMAGE(w)->custom.states + i * (uint32_t)al16(w->def.damage.custom.state_bytes), uint8_t);
}

cr_status cri_custom_model_attach(cr_world *w, uint32_t body_index1) {
    cr_body *b = &cr_world_bodies(w)[body_index1 - 1];
    if (cri_damage_may_share(b->models, CR_MODEL_CUSTOM) != CR_OK) return CR_ERR_DEF_INVALID;
    for (uint32_t i = 0; i < w->def.damage.custom.body_capacity; ++i) {
        cr_custom_body *r = &records(w)[i];
        if (r->body_index1 != 0) continue;
        r->body_index1 = body_index1;
        r->body_generation = b->generation;
        memset(state_of(w, i), 0, w->def.damage.custom.state_bytes);
        b->models |= CR_MODEL_CUSTOM;
        return CR_OK;
    }
    return CR_ERR_CAPACITY;
}

void cri_custom_model_detach(cr_world *w, uint32_t body_index1) {
    for (uint32_t i = 0; i < w->def.damage.custom.body_capacity; ++i)
        if (records(w)[i].body_index1 == body_index1) {
            records(w)[i].body_index1 = 0;
            cr_world_bodies(w)[body_index1 - 1].models &= (uint8_t)~CR_MODEL_CUSTOM;
        }
}

cr_status cr_custom_attach(cr_world *w, cr_body_id id) {
    if (w == NULL) return CR_ERR_NULL_ARGUMENT;
    if (cri_world_body(w, id) == NULL) return CR_ERR_STALE_HANDLE;
    return cri_custom_model_attach(w, id.index1);
}

cr_status cr_custom_detach(cr_world *w, cr_body_id id) {
    if (w == NULL) return CR_ERR_NULL_ARGUMENT;
    if (cri_world_body(w, id) == NULL) return CR_ERR_STALE_HANDLE;
    cri_custom_model_detach(w, id.index1);
    return CR_OK;
}

const void *cr_custom_get_state(const cr_world *w, cr_body_id id) {
    if (w == NULL || cri_world_body_c(w, id) == NULL) return NULL;
    for (uint32_t i = 0; i < w->def.damage.custom.body_capacity; ++i)
        if (records(w)[i].body_index1 == id.index1) return state_of(w, i);
    return NULL;
}

void cri_custom_model_step(cr_world *w, const cr_damage_input *in) {
    /* the game's units, each charged at costs.ps[custom_work]: its cap, or what the stage has left */
    const uint64_t unit_ps = w->def.damage.costs.ps[CR_DAMAGE_OP_custom_work];
    const uint64_t left = unit_ps ? (uint64_t)in->allowance * 1000u / unit_ps : UINT32_MAX;
    const uint32_t budget = left < w->def.damage.custom.work_per_step ? (uint32_t)left : w->def.damage.custom.work_per_step;
    const cr_custom_budget *cb = &w->def.damage.custom;
    if (cb->body_capacity == 0 || cb->step == NULL) return;
    /* slot order, not record order: the order bodies were attached in must not matter */
    uint32_t spent = 0, done = 0, waiting = 0;
    for (uint32_t slot = 0; slot < in->body_high; ++slot) {
        const cr_body *b = &cr_world_bodies(w)[slot];
        if (!b->alive || !(b->models & CR_MODEL_CUSTOM)) continue;
        uint32_t i = 0;
        while (i < cb->body_capacity && records(w)[i].body_index1 != slot + 1) ++i;
        if (i == cb->body_capacity) continue;
        cr_custom_step st;
        memset(&st, 0, sizeof st);
        st.world = w;
        st.body.index1 = slot + 1, st.body.generation = b->generation;
        st.state = state_of(w, i);
        st.state_bytes = cb->state_bytes;
        st.impacts = in->impacts ? in->impacts + in->impact_start[slot] : NULL;
        st.impact_count = in->impact_start[slot + 1] - in->impact_start[slot];
        st.contacts = in->contacts ? in->contacts + in->contact_start[slot] : NULL;
        st.contact_count = in->contact_start[slot + 1] - in->contact_start[slot];
        st.budget = budget > spent ? budget - spent : 0;
        uint32_t used = cb->step(cb->user, &st);
        /* a model that spends more than it was given is held to it: counted as over */
        if (used > st.budget) w->stats.custom.over_capacity += used - st.budget, used = st.budget;
        spent += used;
        waiting += st.waiting;
        ++done;
    }
    w->stats.custom.done = done;
    w->stats.custom.work = cri_damage_charge_count(w, CR_DAMAGE_OP_custom_work, spent);
    w->stats.custom.waiting = waiting;
}

uint64_t cri_custom_model_hash(const cr_world *w, uint64_t h) {
    const cr_custom_budget *cb = &w->def.damage.custom;
    for (uint32_t i = 0; i < cb->body_capacity; ++i) {
        const cr_custom_body *r = &records(w)[i];
        if (r->body_index1 == 0) continue;
        h = cr_hash_u32(h, r->body_index1);
        const uint8_t *s = state_of(w, i);
        for (uint32_t k = 0; k < cb->state_bytes; ++k) h = cr_hash_u32(h, s[k]);
    }
    return h;
}

uint64_t cri_custom_model_scratch_bytes(const cr_world_def *def) { (void)def; return 0; }
uint32_t cri_custom_model_surfaces(const cr_damage_def *d) { (void)d; return 0; } /* the game's state bytes, no surface */
void cri_custom_model_after_commands(cr_world *w) { (void)w; }
void cri_custom_model_rebind(cr_world *w) { (void)w; }
