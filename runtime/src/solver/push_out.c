/* push_out.c — split position correction: overlaps are removed by moving
 * positions, never by giving bodies momentum.
 *
 * Seed 002 stops approaching contact points and leaves what is already
 * inside where it is; a point that ended up deeper than CR_PENETRATION_SLOP
 * (a fast landing, a heap's weight pressing through the passes) needs a
 * push out. crumple first did that inside the contact passes: a deep point's
 * target velocity was raised to CR_PENETRATION_BETA of the excess per step.
 * That push stayed in the bodies as real velocity, along the contact normal:
 * in a heap whose slanted contacts sit a few millimetres past the slop, every
 * step pushed the lower bodies sideways, out from under the upper ones, and
 * the 1000-body pile crept at 2-3 cm/s for as long as it was simulated (more
 * friction made it creep faster), never falling asleep (docs/solver.md).
 *
 * Here, after the contact stage and rolling friction, each dynamic body gets
 * a pseudo-velocity (push_v, push_w) that exists for the position update
 * only (world.c adds dt push_v to the position and turns the orientation by
 * dt push_w), as split impulses do in Bullet and Box2D. The pseudo-impulses
 * are point impulses along the normal with the same cached responses as the
 * contact passes (r x n, I^-1 (r x n), n . K n), accumulated per point and
 * never negative, swept over the pairs in contact-graph level order until no
 * pseudo normal velocity is short of its target by CR_LEVEL_TOLERANCE, at
 * most CR_PUSH_SWEEPS times. The target of a point at depth d > slop is
 * beta (d - slop) / dt, capped at CR_MAX_PUSH_SPEED, as before.
 *
 * The bodies keep their velocities across the push, so it moves angular
 * momentum about a fixed point, which a jointed hit with a ball measured at
 * up to 9e-4 relative (docs/bending.md "Momentum"): the push's turn changes
 * the angular momentum of a spin with unequal moments (the position update
 * keeps I(q) w across it: world.c), and its moves shift the orbital angular
 * momentum of a pair by dt sum_points jp n x (v_a - v_b) (a pseudo-impulse
 * moves a by dt jp n / m_a, b by the opposite). That shift is given back to
 * each pair of dynamic bodies after the position update as a rigid turn of
 * the pair about its centre of mass (cri_push_out_give_back, pair_turn.c),
 * only in steps where something was pushed. A static or kinematic partner
 * takes what it takes, as its impulses do. The pairs are turned one after
 * another, so where they share bodies (a pile) each sees the velocities the
 * previous turns left: exact to first order.
 */
#include "solver/solver.h"
#include "base/inertia.h"

/* the pseudo normal velocity of a point, a minus b */
static cr_real push_normal_velocity(const cr_step *s, const cr_manifold *m, const cr_cpoint *p) {
    const cr_sbody *A = &s->sb[m->a], *B = &s->sb[m->b];
    return cr_v3_dot(cr_v3_sub(A->push_v, B->push_v), p->n) + cr_v3_dot(A->push_w, p->na) -
           cr_v3_dot(B->push_w, p->nb);
}

void cri_push_out(cr_step *s) {
    bool any = false;
    for (uint32_t k = 0; k < s->nm; ++k) {
        const cr_manifold *m = &s->m[k];
        for (uint32_t i = 0; i < m->count; ++i) {
            cr_cpoint *p = &s->pts[m->first + i];
            p->jp = 0;
            if (p->phi < -CR_PENETRATION_SLOP) any = true;
        }
    }
    if (!any) return;
    s->pushed = true;
    uint32_t work = 0;
    for (uint32_t sweep = 0; sweep < CR_PUSH_SWEEPS; ++sweep) {
        cr_real worst = 0;
        for (uint32_t o = 0; o < s->nm; ++o) {
            const cr_manifold *m = &s->m[s->order[o]];
            cr_sbody *A = &s->sb[m->a], *B = &s->sb[m->b];
            if (!A->dynamic && !B->dynamic) continue;
            for (uint32_t i = 0; i < m->count; ++i) {
                cr_cpoint *p = &s->pts[m->first + i];
                if (p->phi >= -CR_PENETRATION_SLOP && p->jp <= 0) continue;
                cr_real target = 0;
                if (p->phi < -CR_PENETRATION_SLOP)
                    target = cr_min(cr_mul(cr_mul(CR_PENETRATION_BETA, -p->phi - CR_PENETRATION_SLOP), s->inv_dt),
                                    CR_MAX_PUSH_SPEED);
                cr_real knn = (A->dynamic ? p->ka : 0) + (B->dynamic ? p->kb : 0);
                if (knn <= CR_REAL_EPS) continue;
                cr_real un = push_normal_velocity(s, m, p);
                cr_real jp = cr_max(p->jp + cr_div(target - un, knn), 0);
                cr_real dj = jp - p->jp;
                if (dj == 0) continue;
                if (cr_abs(target - un) > worst && (target > un || p->jp > 0)) worst = cr_abs(target - un);
                p->jp = jp;
                if (A->dynamic) {
                    A->push_v = cr_v3_mad(A->push_v, cr_mul(A->inv_mass, dj), p->n);
                    A->push_w = cr_v3_mad(A->push_w, dj, p->wa);
                }
                if (B->dynamic) {
                    B->push_v = cr_v3_mad(B->push_v, -cr_mul(B->inv_mass, dj), p->n);
                    B->push_w = cr_v3_mad(B->push_w, -dj, p->wb);
                }
                ++work;
            }
        }
        if (worst < CR_LEVEL_TOLERANCE) break;
    }
    s->w->stats.stage[CR_STAGE_contact].work += work;
}

void cri_push_out_give_back(cr_step *s) {
    if (!s->pushed) return;
    for (uint32_t k = 0; k < s->nm; ++k) {
        const cr_manifold *m = &s->m[k];
        if (!s->sb[m->a].dynamic || !s->sb[m->b].dynamic) continue;
        cr_vec3 p = cr_v3_zero(); /* N s, the pair's pseudo-impulse on a */
        for (uint32_t i = 0; i < m->count; ++i) {
            const cr_cpoint *c = &s->pts[m->first + i];
            if (c->jp > 0) p = cr_v3_mad(p, c->jp, c->n);
        }
        if (p.x == 0 && p.y == 0 && p.z == 0) continue;
        cr_body *a = &s->bodies[m->a], *b = &s->bodies[m->b];
        if (a->type != CR_BODY_DYNAMIC || b->type != CR_BODY_DYNAMIC) continue;
        cr_vec3 moved = cr_v3_scale(cr_v3_cross(p, cr_v3_sub(a->v, b->v)), s->dt);
        cri_pair_turn(a, b, cr_v3_neg(moved));
    }
}
