/* contact.c — the contact stage and shock propagation (seed 002, contact).
 *
 * After the velocity update, contacts are processed on the positions
 * predicted with the new velocities, with the same point impulses as
 * collisions (collision.c) but a restitution that is ramped: the seed's
 * first pass uses -0.9, the second -0.8, ..., the last 0. A negative
 * restitution only slows the approach down (target u'_n = 0.9 u_n, ...), so
 * the early passes spread the work over all pairs before the last pass stops
 * every approaching point; this is what makes the aggressive optimisation
 * accurate enough for resting contact. For P passes the ramp is linear from
 * -0.9 to 0 (P = 10 gives the seed's values exactly).
 *
 * Within a pass, pairs are processed level by level in contact-graph order
 * (contact_graph.c), lowest first. In the last pass each level's pairs are
 * swept up to def.level_iterations times before moving up (the seed treats a
 * level's list "a number of times"), stopping early once a sweep corrects no
 * velocity error above CR_LEVEL_TOLERANCE; the other passes sweep once.
 *
 * Shock propagation (def.shock_propagation) is the last sweep: after a level
 * is processed its bodies get infinite mass (K = 0, velocities not updated)
 * for every level above, until the sweep ends. A heavy stack then no longer
 * needs many passes to carry the weight down: the upper bodies simply cannot
 * push the finished lower ones into the ground.
 */
#include "solver/solver.h"

static cr_real ramp(uint32_t pass, uint32_t passes) {
    if (passes <= 1) return 0;
    return cr_div(cr_mul(CR_R(-0.9), cr_from_int((int32_t)(passes - 1 - pass))), cr_from_int((int32_t)(passes - 1)));
}

/* A pair with a single point none of whose moving bodies touches anything
 * else (a ball on the ground, two balls meeting in the air) gains nothing
 * from the ramp, which exists to share impulses between coupled points and
 * pairs: it is resolved in the last pass only. */
static void mark_isolated(cr_step *s) {
    for (uint32_t i = 0; i < s->nb; ++i) s->sb[i].manifolds = 0;
    for (uint32_t k = 0; k < s->nm; ++k) {
        s->sb[s->m[k].a].manifolds++;
        s->sb[s->m[k].b].manifolds++;
    }
    for (uint32_t k = 0; k < s->nm; ++k) {
        cr_manifold *m = &s->m[k];
        const cr_sbody *A = &s->sb[m->a], *B = &s->sb[m->b];
        bool alone = m->count == 1 && (!A->dynamic || A->manifolds == 1) && (!B->dynamic || B->manifolds == 1);
        if (alone) m->flags |= CR_MF_ISOLATED;
        else m->flags &= ~(uint32_t)CR_MF_ISOLATED;
    }
}

void cri_contacts(cr_step *s) {
    cr_world *w = s->w;
    const uint32_t passes = w->def.contact_passes;
    mark_isolated(s);
    uint32_t total = cri_warm_start_apply(s);
    for (uint32_t pass = 0; pass < passes; ++pass) {
        cr_impulse_law law = {ramp(pass, passes), true, false};
        bool last = pass + 1 == passes;
        bool shock = w->def.shock_propagation && last;
        /* Rolling and spinning friction before the last pass, not after the
         * stage: its impulse at one contact moves every other contact of the
         * two bodies, and applied after the last pass that was never
         * corrected. In the pile a third of the touching points then ended
         * the step approaching (5 mm/s on average), sank to the push-out
         * slop and kept the heap awake; with the last pass after it, 1 in 20. */
        if (last) {
            /* pairs that share no moving body with another pair: their one
             * pass, first, so their impulses are known to rolling friction
             * and kept for the next step like the others' (the order among
             * them and the rest does not matter: they share no body) */
            for (uint32_t k = 0; k < s->nm; ++k)
                if (s->m[k].flags & CR_MF_ISOLATED) total += cri_process_pair(s, &s->m[k], law);
            cri_rolling_friction(s);
        }
        for (uint32_t level = 0; level < s->nlevels; ++level) {
            uint32_t k0 = s->level_start[level], k1 = s->level_start[level + 1];
            uint32_t iters = last ? w->def.level_iterations : 1;
            for (uint32_t it = 0; it < iters; ++it) {
                s->residual = 0;
                for (uint32_t k = k0; k < k1; ++k) {
                    cr_manifold *m = &s->m[s->order[k]];
                    if (m->flags & CR_MF_ISOLATED) continue;
                    total += cri_process_pair(s, m, law);
                }
                if (s->residual < CR_LEVEL_TOLERANCE) break; /* this level has converged */
            }
            if (!shock) continue;
            for (uint32_t i = 0; i < s->nb; ++i)
                if (s->sb[i].level == level) s->sb[i].frozen = 1;
        }
    }
    for (uint32_t i = 0; i < s->nb; ++i) s->sb[i].frozen = 0;
    cri_warm_start_store(s);
    w->stats.stage[CR_STAGE_contact].work = total;
}
