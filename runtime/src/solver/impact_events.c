/* impact_events.c — what the collision passes hit, for the deformation stage
 * and for games (sound, sparks).
 *
 * Every pair that received collision impulses while approaching faster than
 * def.event_min_speed gives one event per step: the point that met the
 * fastest approach (where body a carries it at the end of the step, so a
 * consumer can take it into a's frame with a's current transform), its
 * normal, the relative velocity there (and its normal part, negative when
 * approaching) and the total impulse the collision passes applied. Events go
 * into the world's buffer of def.event_capacity in pair order, which is
 * deterministic; the rest are counted as overflow, never written.
 *
 * Contact impulses (resting, sliding) make no events: the collision/contact
 * separation of seed 002 is exactly the line between an impact and a touch.
 */
#include "solver/solver.h"

void cri_impact_events(cr_step *s) {
    cr_world *w = s->w;
    cr_impact_event *ev = cr_world_events(w);
    uint32_t n = 0, overflow = 0;
    for (uint32_t k = 0; k < s->nm; ++k) {
        const cr_manifold *m = &s->m[k];
        if (!(m->flags & CR_MF_IMPACT) || -m->impact_speed < w->def.event_min_speed) continue;
        if (n >= w->def.event_capacity) {
            ++overflow;
            continue;
        }
        const cr_cpoint *p = &s->pts[m->impact_point];
        const cr_body *a = &s->bodies[m->a], *b = &s->bodies[m->b];
        /* runs after the position update: the point moves with body a */
        cr_impact_event *e = &ev[n++];
        e->body_a.index1 = m->a + 1;
        e->body_a.generation = a->generation;
        e->body_b.index1 = m->b + 1;
        e->body_b.generation = b->generation;
        e->point = cr_transform_point(a->xf, m->impact_local);
        e->normal = p->n;
        e->relative_velocity = m->impact_velocity;
        e->normal_speed = m->impact_speed;
        e->impulse = m->impact_jn;
        e->impulse_vector = m->impact_j;
    }
    w->event_count = n;
    w->stats.stage[CR_STAGE_events].work = n;
    w->stats.stage[CR_STAGE_events].overflow = overflow;
}
