/* collision.c — point impulses with restitution and static/kinetic friction,
 * the seed's "aggressive optimisation" per pair, and the collision stage.
 *
 * Seed 002, collisions: for a point with relative velocity u (body a minus
 * body b), normal N and arms r_a, r_b, an impulse j on a (and -j on b)
 * changes u by K j with
 *
 *     K = K_a + K_b,   K_x = (1/m_x) E - [r_x]x I_x^-1 [r_x]x
 *
 * (K_x = 0 for a body that does not move: static, kinematic, or frozen by
 * shock propagation). The target is u'_n = -e u_n along N.
 *   - Static friction: assume the point sticks (u'_t = 0) and solve
 *     K j = u' - u. If j lies in the friction cone |j_t| <= mu j_n, keep it.
 *   - Otherwise kinetic friction: j = j_n (N - mu T) with T the direction of
 *     the tangential relative velocity, and j_n from N . (u + K j) = u'_n.
 *
 * The aggressive optimisation (seed 002): within a pair, keep the list of
 * initially interfering points, apply the impulse at the deepest point that
 * is not separating, drop the points that now separate, and repeat on the
 * same list until it is empty. A point is "interfering at the predicted
 * position" when phi + dt u_n < 0, so "not separating" reads u_n < -phi/dt.
 * The objects stay put while the list is worked through, so the order,
 * deepest first, is fixed when the list is made (at detection); each point is
 * processed at most once per pass, which bounds the work and ends the loop
 * even when a negative restitution (contact ramp) leaves it approaching.
 *
 * The collision stage runs def.collision_passes passes over all pairs in pair
 * order with e = min of the two restitutions, on the velocities of the start
 * of the step; it stops early when a pass applies no impulse.
 *
 * Contacts (contact.c) use the same loop and law with the ramped
 * restitution, but the friction cone bounds what a point received over all
 * contact passes rather than one impulse, and relax_pressed_points then
 * keeps the friction of every pressed point inside its share of the pair's
 * cone. The seed's per-impulse cone cannot hold a resting body: the ramp's
 * last passes carry almost no normal impulse, so they could not remove the
 * slip the first passes leave (docs/solver.md).
 *
 * Notes
 *   - A point with a gap (phi > 0) may approach at -phi/dt and still not
 *     touch at the predicted position; that is the floor of its target, so a
 *     body with restitution 0 lands exactly on the surface instead of
 *     stopping in mid-air. With restitution > 0 it bounces at once, as in the
 *     seed, and impact_time() puts the bounce at the moment of impact.
 *   - The normal direction's response (r x n, I^-1 (r x n), n . K n) and
 *     K^-1 are cached per point at detection (the step's K matrices use the
 *     start-of-step configuration), so the loops cost a few dot products.
 *   - In the contact stage a point deeper than CR_PENETRATION_SLOP gets a
 *     push-out floor of CR_PENETRATION_BETA of the excess per step, capped at
 *     CR_MAX_PUSH_SPEED; resting contacts never get that deep.
 *   - K is solved after scaling by 3/trace(K): a 1000 kg body has K ~ 1e-3 and
 *     det K ~ 1e-9, below the resolution of Q32.32; scaled, K is ~1.
 */
#include "solver.h"

cr_mat3 cr_body_k(const cr_sbody *b, cr_vec3 r) {
    cr_mat3 k = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
    if (!cr_sbody_moves(b)) return k;
    cr_mat3 sk = cr_mat3_skew(r);
    cr_mat3 sis = cr_mat3_mul(cr_mat3_mul(sk, b->inv_i), sk);
    k = cr_mat3_scale(sis, CR_R(-1));
    k.cx.x += b->inv_mass;
    k.cy.y += b->inv_mass;
    k.cz.z += b->inv_mass;
    return k;
}

cr_mat3 cr_inverse_k(cr_mat3 k) {
    cr_real trace = k.cx.x + k.cy.y + k.cz.z;
    if (trace <= CR_REAL_EPS) return cr_mat3_scale(k, 0);
    cr_real scale = cr_div(CR_R(3), trace);
    return cr_mat3_scale(cr_mat3_inverse(cr_mat3_scale(k, scale)), scale);
}

cr_vec3 cr_solve_k(cr_mat3 k, cr_vec3 rhs) {
    cr_real trace = k.cx.x + k.cy.y + k.cz.z;
    if (trace <= CR_REAL_EPS) return cr_v3_zero();
    cr_real scale = cr_div(CR_R(3), trace);
    cr_mat3 inv = cr_mat3_inverse(cr_mat3_scale(k, scale));
    return cr_mat3_mul_v3(inv, cr_v3_scale(rhs, scale));
}

void cr_apply_pair_impulse(cr_step *s, uint32_t a, uint32_t b, cr_vec3 ra, cr_vec3 rb, cr_vec3 j) {
    cr_sbody *A = &s->sb[a], *B = &s->sb[b];
    if (cr_sbody_moves(A)) {
        A->v = cr_v3_mad(A->v, A->inv_mass, j);
        A->w = cr_v3_add(A->w, cr_mat3_mul_v3(A->inv_i, cr_v3_cross(ra, j)));
    }
    if (cr_sbody_moves(B)) {
        B->v = cr_v3_mad(B->v, -B->inv_mass, j);
        B->w = cr_v3_sub(B->w, cr_mat3_mul_v3(B->inv_i, cr_v3_cross(rb, j)));
    }
}

static cr_vec3 relative_velocity(const cr_step *s, const cr_manifold *m, const cr_cpoint *p) {
    const cr_sbody *A = &s->sb[m->a], *B = &s->sb[m->b];
    cr_vec3 ua = cr_v3_add(A->v, cr_v3_cross(A->w, p->ra));
    cr_vec3 ub = cr_v3_add(B->v, cr_v3_cross(B->w, p->rb));
    return cr_v3_sub(ua, ub);
}

/* n . K n, honouring bodies frozen by shock propagation */
static cr_real point_knn(const cr_step *s, const cr_manifold *m, const cr_cpoint *p) {
    return (cr_sbody_moves(&s->sb[m->a]) ? p->ka : 0) + (cr_sbody_moves(&s->sb[m->b]) ? p->kb : 0);
}

static void apply_normal(cr_step *s, const cr_manifold *m, const cr_cpoint *p, cr_real jn) {
    cr_sbody *A = &s->sb[m->a], *B = &s->sb[m->b];
    if (cr_sbody_moves(A)) {
        A->v = cr_v3_mad(A->v, cr_mul(A->inv_mass, jn), p->n);
        A->w = cr_v3_mad(A->w, jn, p->wa);
    }
    if (cr_sbody_moves(B)) {
        B->v = cr_v3_mad(B->v, -cr_mul(B->inv_mass, jn), p->n);
        B->w = cr_v3_mad(B->w, -jn, p->wb);
    }
}

/* t . K t for a unit direction t (friction along the slip) */
static cr_real point_ktt(const cr_step *s, const cr_manifold *m, const cr_cpoint *p, cr_vec3 t) {
    const cr_sbody *A = &s->sb[m->a], *B = &s->sb[m->b];
    if (cr_sbody_moves(A) == (A->dynamic != 0) && cr_sbody_moves(B) == (B->dynamic != 0))
        return cr_v3_dot(t, cr_mat3_mul_v3(p->k, t)); /* the cached K holds */
    cr_real k = 0;
    if (cr_sbody_moves(A)) {
        cr_vec3 rt = cr_v3_cross(p->ra, t);
        k += A->inv_mass + cr_v3_dot(rt, cr_mat3_mul_v3(A->inv_i, rt));
    }
    if (cr_sbody_moves(B)) {
        cr_vec3 rt = cr_v3_cross(p->rb, t);
        k += B->inv_mass + cr_v3_dot(rt, cr_mat3_mul_v3(B->inv_i, rt));
    }
    return k;
}

/* A collision impulse at point pi of pair m, seed 002's law with static and
 * kinetic friction. Returns the normal impulse (N s), 0 if none. */
static cr_real collision_impulse(cr_step *s, cr_manifold *m, uint32_t pi, cr_real e) {
    cr_cpoint *p = &s->pts[pi];
    const cr_sbody *A = &s->sb[m->a], *B = &s->sb[m->b];
    cr_vec3 u = relative_velocity(s, m, p);
    cr_real un = cr_v3_dot(u, p->n);
    cr_real target = cr_max(-cr_mul(e, un), cr_point_floor(s, p, false));
    if (un >= target) return 0;

    cr_mat3 k = cr_mat3_add(cr_body_k(A, p->ra), cr_body_k(B, p->rb));
    /* static friction: the point sticks */
    cr_vec3 du = cr_v3_sub(cr_v3_scale(p->n, target), u);
    cr_vec3 j = cr_solve_k(k, du);
    cr_real jn = cr_v3_dot(j, p->n);
    cr_vec3 jt = cr_v3_mad(j, -jn, p->n);
    if (!(jn > 0 && cr_v3_len(jt) <= cr_mul(m->friction, jn))) {
        /* outside the friction cone: kinetic friction opposing the tangential slip */
        cr_vec3 t = cr_v3_normalize(cr_v3_mad(u, -un, p->n));
        cr_vec3 dir = cr_v3_mad(p->n, -m->friction, t);
        cr_real denom = cr_v3_dot(p->n, cr_mat3_mul_v3(k, dir));
        if (denom <= CR_REAL_EPS) return 0;
        jn = cr_div(target - un, denom);
        if (jn <= 0) return 0;
        j = cr_v3_scale(dir, jn);
    }
    cr_apply_pair_impulse(s, m->a, m->b, p->ra, p->rb, j);

    if (un < m->impact_speed) {
        m->impact_speed = un;
        m->impact_point = pi;
        m->impact_velocity = u;
        /* where the surfaces meet: the sample moved onto the other body's surface */
        cr_real to_surface = p->of_b ? p->phi : -p->phi;
        m->impact_local = cr_quat_inv_rotate(s->bodies[m->a].xf.q, cr_v3_mad(p->ra, to_surface, p->n));
    }
    m->impact_jn += jn;
    m->impact_j = cr_v3_add(m->impact_j, j);
    m->flags |= CR_MF_IMPACT;
    return jn;
}

/* A contact impulse at point pi: seed 002's law with the ramped restitution,
 * static friction if the point's total impulse over the contact passes stays
 * inside its friction cone, kinetic friction otherwise. */
static cr_real contact_impulse(cr_step *s, cr_manifold *m, uint32_t pi, cr_real e, bool first_in_pair) {
    cr_cpoint *p = &s->pts[pi];
    const cr_sbody *A = &s->sb[m->a], *B = &s->sb[m->b];
    cr_vec3 u = relative_velocity(s, m, p);
    cr_real un = cr_v3_dot(u, p->n);
    cr_real target = cr_max(-cr_mul(e, un), cr_point_floor(s, p, true));
    if (un >= target) return 0;
    cr_real knn = point_knn(s, m, p);
    if (knn <= CR_REAL_EPS) return 0;
    if (target - un > s->residual) s->residual = target - un;
    /* the cached K^-1 holds unless shock propagation froze one side */
    bool as_created = cr_sbody_moves(A) == (A->dynamic != 0) && cr_sbody_moves(B) == (B->dynamic != 0);
    cr_mat3 kinv = as_created ? p->kinv : cr_inverse_k(cr_mat3_add(cr_body_k(A, p->ra), cr_body_k(B, p->rb)));
    cr_vec3 j = cr_mat3_mul_v3(kinv, cr_v3_sub(cr_v3_scale(p->n, target), u));
    cr_real jn = cr_v3_dot(j, p->n);
    cr_vec3 jt = cr_v3_mad(j, -jn, p->n);
    if (!(jn > 0 && cr_v3_len(cr_v3_add(p->jt, jt)) <= cr_mul(m->friction, p->jn + jn))) {
        /* kinetic: j = jn (n - mu t); n . K t = (r_a x n) . I_a^-1 (r_a x t) + the same for b */
        cr_vec3 t = cr_v3_normalize(cr_v3_mad(u, -un, p->n));
        cr_real knt = 0;
        if (cr_sbody_moves(A)) knt += cr_v3_dot(p->wa, cr_v3_cross(p->ra, t));
        if (cr_sbody_moves(B)) knt += cr_v3_dot(p->wb, cr_v3_cross(p->rb, t));
        cr_real denom = knn - cr_mul(m->friction, knt);
        if (denom <= CR_REAL_EPS) return 0;
        jn = cr_div(target - un, denom);
        if (jn <= 0) return 0;
        jt = cr_v3_scale(t, -cr_mul(m->friction, jn));
        j = cr_v3_mad(jt, jn, p->n);
    }
    cr_apply_pair_impulse(s, m->a, m->b, p->ra, p->rb, j);
    p->jn += jn;
    p->jt = cr_v3_add(p->jt, jt);
    if (first_in_pair) m->contact_point = pi;
    return jn;
}

/* The points a contact pass has pressed (total normal impulse > 0), even
 * those that no longer approach:
 *   - a point pushed apart by its neighbours' impulses gets part of its own
 *     normal impulse back (never more than it received), so resting contact
 *     ends with zero normal velocity instead of a small hop: impulses of
 *     one-sided contacts at several points of one body only converge if
 *     they may also be reduced;
 *   - then each gets the tangential impulse that stops its slip, applied
 *     straight against the slip with the point's effective mass along it,
 *     and its total tangential impulse is kept inside its share of the
 *     pair's friction budget mu * sum(j_n). A point inside its share sticks
 *     (static friction); one at the edge slides with friction opposing its
 *     slip (kinetic friction). The split of a pair's normal impulse over
 *     coplanar points is not determined by rigid bodies, and the order of
 *     sequential impulses makes it lopsided; sharing the budget evenly gives
 *     a sliding block the Coulomb force and no spurious spin. */
static uint32_t relax_pressed_points(cr_step *s, cr_manifold *m) {
    uint32_t work = 0;
    cr_real total_jn = 0;
    int32_t pressed = 0;
    for (uint32_t i = 0; i < m->count; ++i) {
        cr_cpoint *p = &s->pts[m->first + i];
        if (p->jn <= 0) continue;
        cr_real un = cr_point_normal_velocity(s, m, p);
        cr_real target = cr_max(cr_point_floor(s, p, true), 0);
        if (un > target) {
            cr_real knn = point_knn(s, m, p);
            if (knn > CR_REAL_EPS) {
                if (un - target > s->residual) s->residual = un - target;
                cr_real dn = cr_max(cr_div(target - un, knn), -p->jn);
                p->jn += dn;
                apply_normal(s, m, p, dn);
                ++work;
            }
        }
        if (p->jn > 0) {
            total_jn += p->jn;
            ++pressed;
        }
    }
    m->contact_jn = total_jn;
    cr_real share = pressed > 0 ? cr_div(cr_mul(m->friction, total_jn), cr_from_int(pressed)) : 0;
    bool sticking = true;
    for (uint32_t i = 0; i < m->count; ++i) {
        cr_cpoint *p = &s->pts[m->first + i];
        if (p->jn <= 0) {
            /* pressed earlier, released since: no normal impulse, no friction */
            if (p->jt.x != 0 || p->jt.y != 0 || p->jt.z != 0) {
                cr_apply_pair_impulse(s, m->a, m->b, p->ra, p->rb, cr_v3_neg(p->jt));
                p->jt = cr_v3_zero();
                ++work;
            }
            continue;
        }
        cr_vec3 u = relative_velocity(s, m, p);
        cr_vec3 ut = cr_v3_mad(u, -cr_v3_dot(u, p->n), p->n);
        cr_real slip;
        cr_vec3 t = cr_v3_normalize_len(ut, &slip);
        cr_vec3 total = p->jt;
        if (t.x != 0 || t.y != 0 || t.z != 0) {
            cr_real ktt = point_ktt(s, m, p, t);
            if (ktt > CR_REAL_EPS) total = cr_v3_mad(total, -cr_div(slip, ktt), t);
        }
        cr_real len = cr_v3_len(total);
        if (len > share) {
            total = cr_v3_scale(total, cr_div(share, len));
            sticking = false;
        } else if (slip > s->residual) {
            s->residual = slip; /* a sticking point still slipping: not converged */
        }
        cr_vec3 dj = cr_v3_sub(total, p->jt);
        if (dj.x == 0 && dj.y == 0 && dj.z == 0) continue;
        p->jt = total;
        cr_apply_pair_impulse(s, m->a, m->b, p->ra, p->rb, dj);
        ++work;
    }
    if (sticking) m->flags |= CR_MF_STICKING;
    else m->flags &= ~(uint32_t)CR_MF_STICKING;
    return work;
}

/* The aggressive optimisation. The objects stay where the list was made, so
 * the order of the list, deepest first, is fixed: interference.c stores each
 * pair's points sorted by depth, and each point is taken in turn if it is
 * still not separating (the seed drops the separating ones; a point separated
 * by one impulse and brought back by a later one is taken too). Each point
 * gets at most one impulse per pass. */
uint32_t cr_process_pair(cr_step *s, cr_manifold *m, cr_impulse_law law) {
    uint32_t impulses = 0;
    bool first = true;
    /* friction and released normal impulse first, so a pass ends with the
     * normal impulses: the last word on each point is "not approaching" */
    if (law.contact) impulses += relax_pressed_points(s, m);
    for (uint32_t i = 0; i < m->count; ++i) {
        const cr_cpoint *p = &s->pts[m->first + i];
        if (cr_point_normal_velocity(s, m, p) >= cr_point_floor(s, p, law.contact) - CR_RESTING_SPEED_EPS)
            continue; /* separating, or not interfering at the predicted position */
        cr_real jn = law.contact ? contact_impulse(s, m, m->first + i, law.restitution, first)
                                 : collision_impulse(s, m, m->first + i, law.restitution);
        if (jn > 0) {
            ++impulses;
            first = false;
        }
    }
    return impulses;
}

/* Impact time. The seed's collisions act at the start of the step on the
 * predicted positions, so a point that still had a gap phi > 0 bounces up to
 * one step early: it never travels the gap, and gravity acts on it for the
 * whole step after the bounce instead of the part after the impact. Along
 * the normal of the fastest-approaching point, the pair's relative motion in
 * the step is redone with the bounce at the impact time (phi + u_n t +
 * a t^2 / 2 = 0, a the relative acceleration from gravity), and
 * the difference is handed to the bodies (split by inverse mass) as a
 * velocity change now and a displacement at the position update. A ball
 * dropped from h then bounces to e^2 h, as it should, whatever the gap.
 * Approaches slower than one step of gravity (resting contact) are left
 * alone: there the seed's scheme is exactly what keeps them from bouncing. */
static void impact_time(cr_step *s, const cr_manifold *m) {
    if (!(m->flags & CR_MF_IMPACT) || m->restitution <= 0 || m->impact_speed >= 0) return;
    const cr_cpoint *p = &s->pts[m->impact_point];
    if (p->phi <= 0) return;
    cr_sbody *A = &s->sb[m->a], *B = &s->sb[m->b];
    cr_real ia = cr_sbody_moves(A) ? A->inv_mass : 0, ib = cr_sbody_moves(B) ? B->inv_mass : 0;
    if (ia + ib <= 0) return;
    cr_real u = m->impact_speed, e = m->restitution, dt = s->dt;
    /* relative normal acceleration from gravity: only a body that is not
     * dynamic on the other side makes one */
    cr_real ga = A->dynamic ? cr_v3_dot(s->w->def.gravity, p->n) : 0;
    cr_real gb = B->dynamic ? cr_v3_dot(s->w->def.gravity, p->n) : 0;
    cr_real a = ga - gb;
    /* a resting body's approach is at most one step of gravity: no impact to time */
    if (-u <= cr_mul(cr_abs(a), dt)) return;
    /* first root of phi + u t + a t^2 / 2 = 0, in the form without cancellation */
    cr_real disc = cr_mul(u, u) - cr_mul(a + a, p->phi);
    if (disc < 0) return;
    cr_real t_hit = cr_min(cr_div(p->phi + p->phi, -u + cr_sqrt(disc)), dt);
    cr_real tau = dt - t_hit;
    cr_real v_bounce = -cr_mul(e, u + cr_mul(a, t_hit));
    cr_real v_end = v_bounce + cr_mul(a, tau);
    cr_real phi_end = cr_mul(v_bounce, tau) + cr_mul(cr_half(a), cr_mul(tau, tau));
    /* what the scheme does by itself: bounce to -e u now, gravity for dt */
    cr_real v_scheme = -cr_mul(e, u) + cr_mul(a, dt);
    cr_real dv = v_end - v_scheme;
    cr_real dx = phi_end - p->phi - cr_mul(dt, v_end);
    cr_real fa = cr_div(ia, ia + ib), fb = CR_R(1) - fa;
    A->v = cr_v3_mad(A->v, cr_mul(dv, fa), p->n);
    B->v = cr_v3_mad(B->v, -cr_mul(dv, fb), p->n);
    A->dx = cr_v3_mad(A->dx, cr_mul(dx, fa), p->n);
    B->dx = cr_v3_mad(B->dx, -cr_mul(dx, fb), p->n);
}

void cr_collisions(cr_step *s) {
    cr_world *w = s->w;
    uint32_t total = 0, passes = 0;
    for (uint32_t pass = 0; pass < w->def.collision_passes; ++pass) {
        uint32_t applied = 0;
        for (uint32_t k = 0; k < s->nm; ++k) {
            cr_manifold *m = &s->m[k];
            cr_impulse_law law = {m->restitution, false};
            applied += cr_process_pair(s, m, law);
        }
        ++passes;
        total += applied;
        if (applied == 0) break;
    }
    for (uint32_t k = 0; k < s->nm; ++k) impact_time(s, &s->m[k]);
    w->stats.stage[CR_STAGE_collision].work = total;
    w->stats.collision_passes_run = passes;
}
