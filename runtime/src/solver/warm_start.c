/* warm_start.c — contact impulses carried from one step to the next.
 *
 * Seed 002 solves each step's contacts from nothing: every contact pass
 * starts with zero impulses and the ramp, the level sweeps and shock
 * propagation must find again the impulses that hold a heap up. In a tall
 * stack shock propagation does that; in the 1000-body pile the contact graph
 * has a handful of levels, each one a few hundred bodies tied by side
 * contacts, and the sweeps of a level do not converge: after the contact
 * stage half of the touching points were still approaching at about 5 mm/s,
 * every level hit its sweep limit, the contacts sank to the push-out slop,
 * and the heap crept at 2-3 cm/s for as long as it ran, never falling asleep
 * (measured, docs/solver.md). 64 sweeps per level instead of 8 took the creep
 * to 4 mm/s: the sweeps converge, only too slowly from zero.
 *
 * So, as sequential-impulse engines do (Box2D, Bullet, Jolt), a point starts
 * the contact stage with the impulse its sample needed at the end of the
 * last step, applied to the bodies before the first pass. The passes then
 * correct the difference: a point pushed apart by it gets it back through
 * the relaxation of pressed points (collision.c), which may shrink a point's
 * impulse to zero, never below.
 *
 *   - A point is named by its pair (the two body slots) and its feature: the
 *     sample index on the body that carries it, b's marked (cr_cpoint.feature).
 *     Samples are fixed on their bodies, so the same feature is the same
 *     material point from step to step.
 *   - The impulses live in the persistent arena (w->warm, point_capacity
 *     entries), sorted by (pair, feature): they are state, so a snapshot
 *     holds them and the state hash covers them. A pair is matched by a
 *     merge walk with the manifolds (both in pair order), a point by binary
 *     search in its pair's range.
 *   - The two bodies' slot generations are kept with each impulse: a body
 *     created in a reused slot starts cold.
 *   - The tangential impulse is projected onto the new tangent plane; the
 *     normal one acts along the new normal.
 *   - A pair with a mesh body carries its normal impulse only. A mesh's
 *     samples are its vertices, and as two coarse surfaces slide the points
 *     (and their SDF normals) change from step to step; carrying their
 *     friction let the 200 rings of peer_rings.scene sink into each other
 *     0.043-0.089 m (deepest ring-ring penetration at 200-600 steps), 0.031 m
 *     with the normal impulse only (0.028-0.055 m with no warm start). The
 *     pile needs the friction carried: without it its heap crept 1-4 cm in
 *     the tenth second again.
 */
#include "solver/solver.h"

static uint32_t generations_of(const cr_step *s, uint32_t a, uint32_t b) {
    return s->bodies[a].generation * 0x9e3779b1u ^ s->bodies[b].generation;
}

uint32_t cri_warm_start_apply(cr_step *s) {
    cr_world *w = s->w;
    const cr_warm_impulse *cache = CR_AT(w, w->warm, const cr_warm_impulse);
    uint32_t nc = w->warm_count, c = 0, used = 0;
    for (uint32_t k = 0; k < s->nm && c < nc; ++k) {
        const cr_manifold *m = &s->m[k];
        uint64_t key = cr_pair_key(m->a, m->b);
        while (c < nc && cache[c].pair < key) ++c;
        uint32_t e = c;
        while (e < nc && cache[e].pair == key) ++e;
        if (e == c || cache[c].generations != generations_of(s, m->a, m->b)) {
            c = e;
            continue;
        }
        bool mesh = s->bodies[m->a].shape.type == CR_SHAPE_MESH || s->bodies[m->b].shape.type == CR_SHAPE_MESH;
        for (uint32_t i = 0; i < m->count; ++i) {
            cr_cpoint *p = &s->pts[m->first + i];
            uint32_t lo = c, hi = e; /* first entry with feature >= p->feature */
            while (lo < hi) {
                uint32_t mid = lo + (hi - lo) / 2;
                if (cache[mid].feature < p->feature) lo = mid + 1;
                else hi = mid;
            }
            if (lo == e || cache[lo].feature != p->feature) continue;
            cr_vec3 jt = mesh ? cr_v3_zero() : cache[lo].jt;
            jt = cr_v3_mad(jt, -cr_v3_dot(jt, p->n), p->n);
            p->jn = cache[lo].jn;
            p->jt = jt;
            cri_apply_pair_impulse(s, m->a, m->b, p->ra, p->rb, cr_v3_mad(jt, p->jn, p->n));
            ++used;
        }
        c = e;
    }
    return used;
}

/* Is the body out of the solver this step (asleep, static, kinematic) but still there? */
static bool resting_out(const cr_body *b) {
    return b->alive && (b->asleep || b->type != CR_BODY_DYNAMIC);
}

void cri_warm_start_store(cr_step *s) {
    cr_world *w = s->w;
    cr_warm_impulse *cache = CR_AT(w, w->warm, cr_warm_impulse);
    uint32_t cap = w->def.point_capacity, n = 0, t = cap;
    /* A pair of two sleepers is in no manifold while they sleep, but wakes
     * with the impulses that held it: moved to the tail (from the back, in
     * order) and merged back below. Without it a woken heap started cold and
     * sagged at up to a metre per second, waking its neighbours in turn. */
    for (uint32_t i = w->warm_count; i-- > 0;) {
        uint32_t a = (uint32_t)(cache[i].pair >> 32), b = (uint32_t)(cache[i].pair & 0xffffffffu);
        if (a >= s->nb || b >= s->nb || !resting_out(&s->bodies[a]) || !resting_out(&s->bodies[b])) continue;
        if (!s->bodies[a].asleep && !s->bodies[b].asleep) continue;
        if (cache[i].generations != generations_of(s, a, b)) continue;
        cache[--t] = cache[i];
    }
    uint32_t kept = t; /* next kept entry; new entries stay below t */
    for (uint32_t k = 0; k < s->nm; ++k) {
        const cr_manifold *m = &s->m[k];
        uint64_t key = cr_pair_key(m->a, m->b);
        while (kept < cap && cache[kept].pair < key) cache[n++] = cache[kept++];
        uint32_t gens = generations_of(s, m->a, m->b), first = n;
        for (uint32_t i = 0; i < m->count && n < kept; ++i) {
            const cr_cpoint *p = &s->pts[m->first + i];
            if (p->jn <= 0) continue;
            /* insertion by feature: a pair holds points_per_pair at most */
            uint32_t at = n;
            while (at > first && cache[at - 1].feature > p->feature) {
                cache[at] = cache[at - 1];
                --at;
            }
            cache[at].pair = key;
            cache[at].feature = p->feature;
            cache[at].generations = gens;
            cache[at].jn = p->jn;
            cache[at].jt = p->jt;
            ++n;
        }
    }
    while (kept < cap) cache[n++] = cache[kept++];
    w->warm_count = n;
}
