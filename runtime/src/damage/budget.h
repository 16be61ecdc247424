/* budget.h — the damage stage's one budget (internal): every model charges
 * the items of its operations (cr_damage_op) to a meter at their costs
 * (cr_damage_def.costs, ps of the reference core per item) and stops, at a
 * slice's boundary, once the meter reaches the allowance the stage gave it.
 *
 * Costs are summed in picoseconds in 64 bits, so a million cheap items and
 * one dear one add up without rounding; the stats read nanoseconds. Counts
 * are deterministic, so what a meter says is the same on every machine:
 * the costs turn counts into time only on the reference core.
 */
#ifndef CRUMPLE_DAMAGE_BUDGET_H
#define CRUMPLE_DAMAGE_BUDGET_H

#include "damage/damage.h"

typedef struct cr_damage_meter {
    cr_world *w;
    uint64_t spent_ps;     ///< charged so far
    uint64_t allowance_ps; ///< what the stage gave the model this step
} cr_damage_meter;

/// A meter for a model that may spend `allowance_ns` this step.
cr_damage_meter cri_damage_meter(cr_world *w, uint32_t allowance_ns);
/// Charge `count` items of `op` (counted in cr_world_stats.damage_ops too).
void cri_damage_charge(cr_damage_meter *m, cr_damage_op op, uint64_t count);
/// What `count` items of `op` would cost, ps.
uint64_t cri_damage_cost_ps(const cr_world *w, cr_damage_op op, uint64_t count);
/// Whether `ps` more fits what is left.
bool cri_damage_fits(const cr_damage_meter *m, uint64_t ps);
/// ns charged so far (rounded up), for cr_model_stats.work.
uint32_t cri_damage_spent_ns(const cr_damage_meter *m);

/// A model whose step is not yet cut into slices of its own operations: its
/// step's own count `work` charged as one operation; returns the ns charged
/// (for cr_model_stats.work).
uint32_t cri_damage_charge_count(cr_world *w, cr_damage_op op, uint64_t work);

/// CR_OK, or CR_ERR_DEF_INVALID naming the budget or the costs.
cr_status cri_damage_budget_check(const cr_damage_def *d, cr_field *field);

#endif
