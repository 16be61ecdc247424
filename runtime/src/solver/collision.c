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
 * of the step; it stops early when a pass corrects no velocity error above
 * CR_COLLISION_TOLERANCE. Unlike the seed, a point's collision impulse is
 * accumulated over the passes and may shrink again, and the first pass lands
 * each pair as one block before its points one by one (collision_block):
 * impulses that may only grow turned a flat landing into spin and a sideways
 * throw (docs/solver.md).
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
#include "solver/solver.h"

cr_mat3 cri_body_k(const cr_sbody *b, cr_vec3 r) {
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

cr_mat3 cri_inverse_k(cr_mat3 k) {
    cr_real trace = k.cx.x + k.cy.y + k.cz.z;
    if (trace <= CR_REAL_EPS) return cr_mat3_scale(k, 0);
    cr_real scale = cr_div(CR_R(3), trace);
    return cr_mat3_scale(cr_mat3_inverse(cr_mat3_scale(k, scale)), scale);
}

cr_vec3 cri_solve_k(cr_mat3 k, cr_vec3 rhs) {
    cr_real trace = k.cx.x + k.cy.y + k.cz.z;
    if (trace <= CR_REAL_EPS) return cr_v3_zero();
    cr_real scale = cr_div(CR_R(3), trace);
    cr_mat3 inv = cr_mat3_inverse(cr_mat3_scale(k, scale));
    return cr_mat3_mul_v3(inv, cr_v3_scale(rhs, scale));
}

void cri_apply_pair_impulse(cr_step *s, uint32_t a, uint32_t b, cr_vec3 ra, cr_vec3 rb, cr_vec3 j) {
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

/* A collision impulse at point pi of pair m: seed 002's law, with the
 * point's impulse over the collision passes accumulated and allowed to
 * shrink again (never below zero). The target is fixed when the point is
 * first met approaching: -e times that approach speed (p->bounce). Sequential
 * impulses that may only grow cannot stop a face that lands on several points
 * at once: the first corner's impulse tips the body, which lifts the opposite
 * corner, and what is left is spin and a sideways throw (a cube landing flat
 * with e = 0 kept 17 % of its energy and spun at 2.3 rad/s). With the
 * accumulated impulse the corners share the landing, and the face stops.
 * Friction likewise: the tangential impulse that stops the slip, accumulated
 * and kept inside the cone mu * p->jn (static friction inside, kinetic at its
 * edge, opposing the slip). Returns the velocity error corrected (m/s). */
/* The collision target of a met point: its bounce -e u_n, but never below
 * the floor. A point that still has a gap and does not bounce (e = 0) only
 * has to reach the surface by the end of the step: stopping it at once would
 * leave the body hanging where it was, to fall the gap again. */
static cr_real collision_target(const cr_cpoint *p, cr_real floor) {
    if (p->phi > 0 && p->bounce <= 0) return floor;
    return cr_max(p->bounce, floor);
}

/* m/s^2: the relative normal acceleration gravity gives a point (a minus b
 * along n): only a dynamic body falls. */
static cr_real gravity_along(const cr_step *s, const cr_manifold *m, const cr_cpoint *p) {
    cr_real gn = cr_v3_dot(s->w->def.gravity, p->n);
    return (s->sb[m->a].dynamic ? gn : 0) - (s->sb[m->b].dynamic ? gn : 0);
}

/* Whether a point is met approaching now (or already was), and when in the
 * step it reaches the surface (*hit, s). The velocities the collision passes
 * see are the last step's chords (x += dt v after v += dt g), half a step
 * behind: at the start of the step the point approaches at u0 = u_n + a dt/2
 * and reaches the surface at the first root of phi + u0 t + a t^2/2. A point
 * with restitution whose own approach would stop short of the surface but
 * which this step's gravity brings onto it is met too: it hits within the
 * step, and left to the contact passes it would be stopped on the surface
 * and bounce a step later from a slower approach. */
static bool collision_meets(const cr_step *s, const cr_manifold *m, const cr_cpoint *p, cr_real e, cr_real un, cr_real floor,
                            cr_real *hit) {
    if (p->bounce >= 0) {
        *hit = p->hit;
        return true;
    }
    /* an approach no faster than one step of gravity is what the contact
     * passes leave on a resting body, not an impact: the contact stage
     * holds it (the seed's point: resting contact has no velocity to
     * bounce at the start of a step; collision impulses on that noise
     * made a block on a 30 degree incline creep 1.3 mm in 10 s) */
    cr_real rest = cr_mul(cr_v3_len(s->w->def.gravity), s->dt);
    cr_real a = gravity_along(s, m, p);
    cr_real reach = e > 0 ? floor - cr_mul(a, s->dt) : floor;
    if (un >= reach - CR_RESTING_SPEED_EPS || un > -rest) return false;
    *hit = 0;
    if (p->phi > 0) {
        cr_real u0 = un + cr_mul(cr_half(a), s->dt);
        cr_real disc = cr_mul(u0, u0) - cr_mul(a + a, p->phi);
        cr_real den = disc < 0 ? 0 : -u0 + cr_sqrt(disc);
        *hit = den > 0 ? cr_min(cr_div(p->phi + p->phi, den), s->dt) : s->dt;
    }
    return true;
}

/* The point is met approaching (or already was): fix its target. False
 * while it is not approaching. The target is Newton's -e u at the moment of
 * impact, on the flight the scheme continues from: the velocity update adds
 * a dt to it and the position update moves by the result, so the target is
 * the bounce v_b = -e (u0 + a t_hit) minus a (dt/2 + t_hit), which leaves the
 * chord of the flight after the bounce (impact_time then puts the body where
 * that flight is at the end of the step). Without the shift a ball came off
 * the ground g dt/2 (1 + e) short: 2.11 m/s where e v = 2.215. */
static bool collision_meet(cr_step *s, cr_manifold *m, uint32_t pi, cr_real e, cr_real un, cr_real floor) {
    cr_cpoint *p = &s->pts[pi];
    cr_real hit;
    if (!collision_meets(s, m, p, e, un, floor, &hit)) return false;
    if (p->bounce < 0) {
        cr_real a = gravity_along(s, m, p);
        cr_real u_hit = un + cr_mul(a, cr_half(s->dt) + hit);
        p->hit = hit;
        p->bounce = e > 0 ? cr_max(-cr_mul(e, u_hit) - cr_mul(a, cr_half(s->dt) + hit), 0) : 0;
        if (un < m->impact_speed) {
            m->impact_speed = un;
            m->impact_point = pi;
            const cr_sbody *A = &s->sb[m->a], *B = &s->sb[m->b];
            m->impact_velocity = cr_v3_sub(cr_v3_add(A->v, cr_v3_cross(A->w, p->ra)),
                                           cr_v3_add(B->v, cr_v3_cross(B->w, p->rb)));
            /* where the surfaces meet: the sample moved onto the other body's surface */
            cr_real to_surface = p->of_b ? p->phi : -p->phi;
            m->impact_local = cr_quat_inv_rotate(s->bodies[m->a].xf.q, cr_v3_mad(p->ra, to_surface, p->n));
        }
    }
    return true;
}

/* Seed 002's kinetic friction at one point, for the point's total impulse:
 * J = J_n (N + mu D) with N . (u_free + K J) = target, u_free the point's
 * velocity without its own impulse and D the direction of the tangential
 * impulse that would have made it stick (jst, the static total that left the
 * cone). The seed takes the friction against the slip before the impulse; a
 * corner that lands without slipping, off the line of its centre of mass,
 * starts to slip only under the impulse, and solving the normal alone with
 * the friction after it left such a corner 2.6 % short of -e u after the
 * five passes (fixed-point rounds on the direction of the slip after
 * oscillated). False when there is no such direction or friction would make
 * the normal response degenerate (N . K (N + mu D) below half of N . K N).
 * Collision passes only: nothing is frozen, so the cached K holds. */
static bool kinetic_total(const cr_cpoint *p, cr_vec3 u_free, cr_vec3 jst, cr_real target, cr_real mu, cr_vec3 *total) {
    cr_real len;
    cr_vec3 d = cr_v3_normalize_len(jst, &len);
    if (len <= 0 || mu <= 0) return false;
    cr_vec3 dir = cr_v3_mad(p->n, mu, d);
    cr_real knn = cr_v3_dot(p->n, cr_mat3_mul_v3(p->k, p->n));
    cr_real denom = cr_v3_dot(p->n, cr_mat3_mul_v3(p->k, dir));
    if (denom <= cr_half(knn)) return false;
    cr_real jn = cr_max(cr_div(target - cr_v3_dot(u_free, p->n), denom), 0);
    *total = cr_v3_scale(dir, jn);
    return true;
}

static cr_real collision_impulse(cr_step *s, cr_manifold *m, uint32_t pi, cr_real e) {
    cr_cpoint *p = &s->pts[pi];
    cr_real un = cr_point_normal_velocity(s, m, p);
    cr_real floor = cr_point_floor(s, p, false);
    if (!collision_meet(s, m, pi, e, un, floor)) return 0;
    cr_real knn = point_knn(s, m, p);
    if (knn <= CR_REAL_EPS) return 0;
    cr_real target = collision_target(p, floor);
    cr_real err = cr_abs(target - un);
    /* static friction first: the impulse that meets the target and stops the
     * slip in one (K^-1 of the point), kept if the point's total stays in its cone */
    cr_vec3 u0 = relative_velocity(s, m, p);
    cr_vec3 js = cr_mat3_mul_v3(p->kinv, cr_v3_sub(cr_v3_scale(p->n, target), u0));
    cr_real jsn = cr_v3_dot(js, p->n);
    cr_vec3 jst = cr_v3_add(p->jt, cr_v3_mad(js, -jsn, p->n));
    if (p->jn + jsn >= 0 && cr_v3_len(jst) <= cr_mul(m->friction, p->jn + jsn)) {
        cr_vec3 ut0 = cr_v3_mad(u0, -cr_v3_dot(u0, p->n), p->n);
        cr_real slip0 = cr_v3_len(ut0);
        if (slip0 > err) err = slip0;
        if (js.x == 0 && js.y == 0 && js.z == 0) return err;
        p->jn += jsn;
        p->jt = jst;
        cri_apply_pair_impulse(s, m->a, m->b, p->ra, p->rb, js);
        m->impact_jn += jsn;
        m->impact_j = cr_v3_add(m->impact_j, js);
        if (p->jn > 0) m->flags |= CR_MF_IMPACT;
        return err;
    }
    /* kinetic: the point's total impulse at the cone's edge (kinetic_total) */
    cr_vec3 old = cr_v3_mad(p->jt, p->jn, p->n), total_j;
    cr_vec3 u_free = cr_v3_sub(u0, cr_mat3_mul_v3(p->k, old));
    if (m->restitution > 0 && kinetic_total(p, u_free, jst, target, m->friction, &total_j)) {
        cr_vec3 dj = cr_v3_sub(total_j, old);
        cr_real dn = cr_v3_dot(total_j, p->n) - p->jn;
        p->jn += dn;
        p->jt = cr_v3_mad(total_j, -p->jn, p->n);
        cri_apply_pair_impulse(s, m->a, m->b, p->ra, p->rb, dj);
        m->impact_jn += dn;
        m->impact_j = cr_v3_add(m->impact_j, dj);
        if (p->jn > 0) m->flags |= CR_MF_IMPACT;
        return err;
    }
    /* or, where friction makes that degenerate, the normal impulse alone
     * (which may shrink, never below zero), then the friction that stops the
     * slip, held to the cone's edge */
    cr_real jn = cr_max(p->jn + cr_div(target - un, knn), 0);
    cr_real dn = jn - p->jn;
    if (dn != 0) {
        p->jn = jn;
        apply_normal(s, m, p, dn);
        m->impact_jn += dn;
        m->impact_j = cr_v3_mad(m->impact_j, dn, p->n);
    }
    /* friction */
    cr_vec3 u = relative_velocity(s, m, p);
    cr_vec3 ut = cr_v3_mad(u, -cr_v3_dot(u, p->n), p->n);
    cr_real slip;
    cr_vec3 t = cr_v3_normalize_len(ut, &slip);
    cr_vec3 total = p->jt;
    if (slip > 0) {
        cr_real ktt = point_ktt(s, m, p, t);
        if (ktt > CR_REAL_EPS) total = cr_v3_mad(total, -cr_div(slip, ktt), t);
    }
    cr_real cone = cr_mul(m->friction, p->jn);
    cr_real len = cr_v3_len(total);
    if (len > cone) total = len > 0 ? cr_v3_scale(total, cr_div(cone, len)) : cr_v3_zero();
    cr_vec3 dj = cr_v3_sub(total, p->jt);
    if (dj.x != 0 || dj.y != 0 || dj.z != 0) {
        p->jt = total;
        cri_apply_pair_impulse(s, m->a, m->b, p->ra, p->rb, dj);
        m->impact_j = cr_v3_add(m->impact_j, dj);
        if (slip > err) err = slip;
    }
    if (p->jn > 0) m->flags |= CR_MF_IMPACT;
    return err;
}

/* The pair's landing as one block, before its points one by one: every
 * point that approaches faster than its target gets the same share of one
 * normal impulse, sized so the points' mean approach meets their mean
 * target. A face that lands flat stops at once, evenly, with no slip for
 * friction to turn into spin; the point-by-point sweeps that follow correct
 * only what the block could not (a tilted landing, uneven targets).
 * Sequential point impulses alone converge slowly here: a cube landing flat
 * with e = 0 and mu = 0.5 needed 30 passes to stop spinning. */
static void collision_block(cr_step *s, cr_manifold *m, cr_real e) {
    const cr_sbody *A = &s->sb[m->a], *B = &s->sb[m->b];
    bool ma = cr_sbody_moves(A), mb = cr_sbody_moves(B);
    cr_vec3 sum_n = cr_v3_zero(), sum_wa = cr_v3_zero(), sum_wb = cr_v3_zero();
    cr_real sum_err = 0;
    uint32_t k = 0;
    /* the block is the points that reach the surface with the first one,
     * within 1 mm of travel (a flat face): a box falling on an edge or a
     * corner meets its far corners too (they are within the step's reach),
     * and sharing the landing with them made it bounce as if flat (a corner
     * landing 10-57 % short of e v); a 5 mm window still took in a mesh's
     * neighbouring vertices (spot.obj 4-12 % off). The sweeps meet the other
     * points with the velocities the first impulse leaves. */
    cr_real first = CR_REAL_MAX, hit, speed = 0;
    for (uint32_t i = 0; i < m->count; ++i) {
        const cr_cpoint *p = &s->pts[m->first + i];
        cr_real un = cr_point_normal_velocity(s, m, p);
        if (collision_meets(s, m, p, e, un, cr_point_floor(s, p, false), &hit) && hit < first) {
            first = hit;
            speed = -un;
        }
    }
    cr_real together = first + cr_min(cr_mul(CR_R(0.25), s->dt), speed > 0 ? cr_div(CR_R(0.001), speed) : 0);
    for (uint32_t i = 0; i < m->count; ++i) {
        cr_cpoint *p = &s->pts[m->first + i];
        cr_real un = cr_point_normal_velocity(s, m, p);
        cr_real floor = cr_point_floor(s, p, false);
        if (!collision_meets(s, m, p, e, un, floor, &hit) || hit > together) continue;
        collision_meet(s, m, m->first + i, e, un, floor);
        cr_real err = collision_target(p, floor) - un;
        if (err <= 0) continue;
        sum_err += err;
        sum_n = cr_v3_add(sum_n, p->n);
        sum_wa = cr_v3_add(sum_wa, p->wa);
        sum_wb = cr_v3_add(sum_wb, p->wb);
        ++k;
    }
    if (k < 2) return; /* one point: the sweep does exactly this */
    /* resting contact approaches at one step of gravity at most: no landing,
     * and its friction is the point sweeps' to hold */
    cr_real rest = cr_mul(cr_v3_len(s->w->def.gravity), s->dt);
    if (sum_err <= cr_mul(cr_from_int((int32_t)k), rest + rest)) return;
    /* the response of the mean approach to a unit impulse shared by the k points */
    cr_vec3 dv = cr_v3_scale(sum_n, (ma ? A->inv_mass : 0) + (mb ? B->inv_mass : 0));
    cr_real response = 0;
    for (uint32_t i = 0; i < m->count; ++i) {
        cr_cpoint *p = &s->pts[m->first + i];
        if (p->bounce < 0) continue;
        cr_real err = collision_target(p, cr_point_floor(s, p, false)) - cr_point_normal_velocity(s, m, p);
        if (err <= 0) continue;
        response += cr_v3_dot(p->n, dv);
        if (ma) response += cr_v3_dot(p->na, sum_wa);
        if (mb) response += cr_v3_dot(p->nb, sum_wb);
    }
    if (response <= CR_REAL_EPS) return;
    /* mean error / (response / k^2), shared as lambda / k per point */
    cr_real share = cr_div(sum_err, response);
    for (uint32_t i = 0; i < m->count; ++i) {
        cr_cpoint *p = &s->pts[m->first + i];
        if (p->bounce < 0) continue;
        if (collision_target(p, cr_point_floor(s, p, false)) <= cr_point_normal_velocity(s, m, p)) continue;
        p->jn += share;
        m->impact_jn += share;
        m->impact_j = cr_v3_mad(m->impact_j, share, p->n);
        m->flags |= CR_MF_IMPACT;
        apply_normal(s, m, p, share);
    }
}

/* Whether K^-1 rhs can be formed: each of its sums of three products stays
 * inside Q32.32 (2^31; here 2^29 to leave the friction and the totals room).
 * A step whose bodies are that heavy and that fast (a fuzzed scene: two 650 t
 * spheres overlapping a 23 kg crate drove it to 28 km/s in fixed point) has
 * no meaningful impulse left to give; the point gets none, and the body is
 * left to the freeze of non-finite states. Always true in float. */
static bool impulse_fits(const cr_mat3 *k, cr_vec3 rhs) {
#if CR_FIXED
    const cr_vec3 c[3] = {k->cx, k->cy, k->cz};
    cr_real most = 0;
    for (int i = 0; i < 3; ++i) most = cr_max(most, cr_max(cr_abs(c[i].x), cr_max(cr_abs(c[i].y), cr_abs(c[i].z))));
    cr_real sum = cr_abs(rhs.x) + cr_abs(rhs.y) + cr_abs(rhs.z); /* each below 2^31: the sum fits 2^33 */
    return most <= CR_R(1) || sum <= cr_div(CR_R(536870912.0), most);
#else
    (void)k, (void)rhs;
    return true;
#endif
}

/* A contact impulse at point pi: seed 002's law with the ramped restitution,
 * static friction if the point's total impulse over the contact passes stays
 * inside its friction cone, kinetic friction otherwise. */
static cr_real contact_impulse(cr_step *s, cr_manifold *m, uint32_t pi, cr_real e, bool first_in_pair) {
    cr_cpoint *p = &s->pts[pi];
    const cr_sbody *A = &s->sb[m->a], *B = &s->sb[m->b];
    cr_vec3 u = relative_velocity(s, m, p);
    cr_real un = cr_v3_dot(u, p->n);
    cr_real floor = cr_point_floor(s, p, true);
    cr_real target = p->phi > CR_PENETRATION_SLOP ? floor : cr_max(-cr_mul(e, un), floor);
    if (un >= target) return 0;
    cr_real knn = point_knn(s, m, p);
    if (knn <= CR_REAL_EPS) return 0;
    if (target - un > s->residual) s->residual = target - un;
    /* the cached K^-1 holds unless shock propagation froze one side */
    bool as_created = cr_sbody_moves(A) == (A->dynamic != 0) && cr_sbody_moves(B) == (B->dynamic != 0);
    cr_mat3 kinv = as_created ? p->kinv : cri_inverse_k(cr_mat3_add(cri_body_k(A, p->ra), cri_body_k(B, p->rb)));
    cr_vec3 rhs = cr_v3_sub(cr_v3_scale(p->n, target), u);
    if (!impulse_fits(&kinv, rhs)) return 0;
    cr_vec3 j = cr_mat3_mul_v3(kinv, rhs);
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
    cri_apply_pair_impulse(s, m->a, m->b, p->ra, p->rb, j);
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
            /* saturating: a pair of absurd impulses must not overflow Q32.32 */
            total_jn = total_jn > CR_REAL_MAX - p->jn ? CR_REAL_MAX : total_jn + p->jn;
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
                cri_apply_pair_impulse(s, m->a, m->b, p->ra, p->rb, cr_v3_neg(p->jt));
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
        } else if (cr_mul(slip, CR_STICK_TOLERANCE_SCALE) > s->residual) {
            /* a sticking point still slipping: not converged. Held ten times
             * tighter than the normal error: a slip of 1 mm/s left at every
             * step made a block on an incline creep 1 mm in 10 s */
            s->residual = cr_mul(slip, CR_STICK_TOLERANCE_SCALE);
        }
        cr_vec3 dj = cr_v3_sub(total, p->jt);
        if (dj.x == 0 && dj.y == 0 && dj.z == 0) continue;
        p->jt = total;
        cri_apply_pair_impulse(s, m->a, m->b, p->ra, p->rb, dj);
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
uint32_t cri_process_pair(cr_step *s, cr_manifold *m, cr_impulse_law law) {
    uint32_t impulses = 0;
    bool first = true;
    if (!law.contact) {
        if (law.first_pass) collision_block(s, m, law.restitution);
        /* collisions: every point met so far is revisited, its impulse may shrink */
        for (uint32_t i = 0; i < m->count; ++i)
            if (collision_impulse(s, m, m->first + i, law.restitution) > CR_COLLISION_TOLERANCE) ++impulses;
        return impulses;
    }
    /* friction and released normal impulse first, so a pass ends with the
     * normal impulses: the last word on each point is "not approaching" */
    if (law.contact) impulses += relax_pressed_points(s, m);
    for (uint32_t i = 0; i < m->count; ++i) {
        const cr_cpoint *p = &s->pts[m->first + i];
        if (cr_point_normal_velocity(s, m, p) >= cr_point_floor(s, p, law.contact) - CR_RESTING_SPEED_EPS)
            continue; /* separating, or not interfering at the predicted position */
        cr_real jn = contact_impulse(s, m, m->first + i, law.restitution, first);
        if (jn > 0) {
            ++impulses;
            first = false;
        }
    }
    return impulses;
}

/* Impact time. The seed's collisions act at the start of the step on the
 * predicted positions, so a point that still had a gap phi > 0 bounces up to
 * one step early: it never travels the gap, and the position update moves
 * it up from where it was. collision_meet already gave it the velocity of
 * the flight after a bounce at the moment of impact; here the bodies are
 * moved (split by inverse mass, along the normal of the point that reaches
 * the surface first) to where that flight is at the end of the step: a ball
 * dropped from h then bounces to e^2 h, whatever the gap. Approaches slower
 * than one step of gravity (resting contact) are never met, so never moved:
 * there the seed's scheme is exactly what stops bouncing. */
/* m/s: how fast spin moves a point of body i, the larger of the start of
 * the step and now; 0 for spheres. */
static cr_real spin_reach_now(const cr_step *s, uint32_t i) {
    const cr_body *b = &s->bodies[i];
    if (b->shape.type == CR_SHAPE_SPHERE) return 0;
    cr_real now = s->sb[i].dynamic ? cr_mul(cr_v3_len(s->sb[i].w), b->bound_radius) : 0;
    return cr_max(now, s->sb[i].spin_reach);
}

static void impact_time(cr_step *s, const cr_manifold *m) {
    if (!(m->flags & CR_MF_IMPACT) || m->restitution <= 0 || m->impact_speed >= 0) return;
    cr_sbody *A = &s->sb[m->a], *B = &s->sb[m->b];
    cr_real ia = cr_sbody_moves(A) ? A->inv_mass : 0, ib = cr_sbody_moves(B) ? B->inv_mass : 0;
    if (ia + ib <= 0) return;
    cr_real dt = s->dt;
    /* The correction is one-dimensional: the pair's relative translation
     * along the normal. When spin, before or after the collision, moves any
     * point of the bodies by a quarter of the approach or more, moving the
     * bodies along the normal is not the motion the bounce should have had:
     * it put spinning bodies landing at 4-10 m/s up to 36 cm into the
     * ground. The seed's scheme is left as it is then. (A sphere's spin
     * moves no point along a normal.) */
    if ((spin_reach_now(s, m->a) + spin_reach_now(s, m->b)) * 4 > -m->impact_speed) return;
    /* The impact is timed by the point that reaches the surface first, not
     * by the fastest one: a tumbling block's fastest point may still be far
     * off, and timing by it moved the block 28 cm into a 10 cm wall. */
    const cr_cpoint *p = NULL;
    for (uint32_t i = 0; i < m->count; ++i) {
        const cr_cpoint *q = &s->pts[m->first + i];
        if (q->bounce <= 0) continue;
        if (q->phi <= 0) return; /* touching at the start: nothing to time */
        if (p == NULL || q->hit < p->hit) p = q;
    }
    if (p == NULL) return;
    cr_real a = gravity_along(s, m, p);
    /* the flight after the bounce: v_b at t_hit, and where it is at the end */
    cr_real v_bounce = p->bounce + cr_mul(a, cr_half(dt) + p->hit);
    cr_real tau = dt - p->hit;
    cr_real phi_end = cr_mul(v_bounce, tau) + cr_mul(cr_half(a), cr_mul(tau, tau));
    /* where the scheme puts it: the target plus a dt, for the whole step */
    cr_real dx = phi_end - p->phi - cr_mul(dt, p->bounce + cr_mul(a, dt));
    cr_real fa = cr_div(ia, ia + ib), fb = CR_R(1) - fa;
    A->dx = cr_v3_mad(A->dx, cr_mul(dx, fa), p->n);
    B->dx = cr_v3_mad(B->dx, -cr_mul(dx, fb), p->n);
}

void cri_collisions(cr_step *s) {
    cr_world *w = s->w;
    uint32_t total = 0, passes = 0;
    for (uint32_t pass = 0; pass < w->def.collision_passes; ++pass) {
        uint32_t applied = 0;
        for (uint32_t k = 0; k < s->nm; ++k) {
            cr_manifold *m = &s->m[k];
            cr_impulse_law law = {m->restitution, false, pass == 0};
            applied += cri_process_pair(s, m, law);
        }
        ++passes;
        total += applied;
        if (applied == 0) break;
    }
    for (uint32_t k = 0; k < s->nm; ++k) {
        cr_manifold *m = &s->m[k];
        impact_time(s, m);
        /* the contact stage's friction budget starts from zero */
        for (uint32_t i = 0; i < m->count; ++i) {
            s->pts[m->first + i].jn = 0;
            s->pts[m->first + i].jt = cr_v3_zero();
        }
    }
    w->stats.stage[CR_STAGE_collision].work = total;
    w->stats.collision_passes_run = passes;
}
