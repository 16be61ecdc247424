/* budget.c — the damage budget's meter and the reference core's cost tables
 * (budget.h; docs/frame-budget.md says how the tables were measured). */
#include "damage/budget.h"

#include <string.h>

const char *cr_damage_op_name(cr_damage_op op) {
    switch (op) {
#define CR_X_OP_NAME_(name, what)                                                                                       \
    case CR_DAMAGE_OP_##name:                                                                                           \
        return #name;
        CR_DAMAGE_OP_LIST(CR_X_OP_NAME_)
#undef CR_X_OP_NAME_
    default:
        return "unknown";
    }
}

/* ps per item on the reference core (x86-64 at -O2, one core; docs/frame-budget.md,
 * "Calibrating the costs"), fitted by `crumple bench calibrate` over the shipped
 * scenes' steps: 2026-12-01, the 25 scenes with a damage model, 3 repeats, CPU
 * clock, on the shared 2-core machine under load (load average about 12), so
 * the times are inflated, perhaps 1.5-4x against a quiet core. The float table
 * from build/bin/crumple, the fixed one from build-fixed/bin/crumple (make FIXED=1
 * cli). dent_volume_triangle and custom_work were done by no scene: their values
 * are the placeholders (8873f1d). A 0 is the fit's: that op's time is explained
 * by the ops counted with it in the same slices.
 * The fracture_* rows replaced the one fracture_work (12701 / 19493 ps) on
 * 2026-12-02: `crumple bench calibrate fracture_wall fracture_beam
 * fracture_beam_holds fracture_tower demo --repeat 5`, CPU clock, on the same
 * machine lightly loaded (load average 1-2), so they are less inflated than
 * the rows above (docs/frame-budget.md). */
cr_damage_costs cr_default_damage_costs(void) {
    cr_damage_costs c;
    memset(&c, 0, sizeof c);
#if CR_FIXED
    static const uint32_t ps[CR_DAMAGE_OP_COUNT] = {
        115808, 6224, 45547, 412837, 16031, 4275, 42749, 274240, 366010, 0, 20000, 9536, 12011, 48306,
        /* fracture: bond, stress, island, piece, carry_corner, carry_vertex, carry_node, carry_moved, refresh */
        48957, 9966, 49783, 1377160, 0, 196377, 286776, 247880, 540,
        1000,
    };
#else
    static const uint32_t ps[CR_DAMAGE_OP_COUNT] = {
        31976, 12498, 10001, 182208, 5502, 2352, 23516, 40154, 260349, 0, 10000, 4020, 4093, 17663,
        /* fracture: bond, stress, island, piece, carry_corner, carry_vertex, carry_node, carry_moved, refresh */
        46663, 3346, 16772, 545987, 3712, 428530, 139825, 513828, 257,
        1000,
    };
#endif
    memcpy(c.ps, ps, sizeof c.ps);
    return c;
}

cr_status cri_damage_budget_check(const cr_damage_def *d, cr_field *field) {
    if (d->budget < 10000u) {
        *field = CR_FIELD_WORLD_DAMAGE_BUDGET;
        return CR_ERR_DEF_INVALID;
    }
    for (int k = 0; k < CR_DAMAGE_OP_COUNT; ++k)
        if (d->costs.ps[k] > 1000000000u) {
            *field = CR_FIELD_WORLD_DAMAGE_COSTS;
            return CR_ERR_DEF_INVALID;
        }
    return CR_OK;
}

cr_damage_meter cri_damage_meter(cr_world *w, uint32_t allowance_ns) {
    cr_damage_meter m = {w, 0, (uint64_t)allowance_ns * 1000u};
    return m;
}

uint64_t cri_damage_cost_ps(const cr_world *w, cr_damage_op op, uint64_t count) {
    return count * w->def.damage.costs.ps[op];
}

void cri_damage_charge(cr_damage_meter *m, cr_damage_op op, uint64_t count) {
    m->spent_ps += cri_damage_cost_ps(m->w, op, count);
    uint64_t n = (uint64_t)m->w->stats.damage_ops[op] + count;
    m->w->stats.damage_ops[op] = n > 0xffffffffu ? 0xffffffffu : (uint32_t)n;
}

uint32_t cri_damage_charge_count(cr_world *w, cr_damage_op op, uint64_t work) {
    cr_damage_meter m = cri_damage_meter(w, 0);
    cri_damage_charge(&m, op, work);
    return cri_damage_spent_ns(&m);
}

bool cri_damage_fits(const cr_damage_meter *m, uint64_t ps) {
    return m->spent_ps + ps <= m->allowance_ps;
}

uint32_t cri_damage_spent_ns(const cr_damage_meter *m) {
    uint64_t ns = (m->spent_ps + 999u) / 1000u;
    return ns > 0xffffffffu ? 0xffffffffu : (uint32_t)ns;
}
