/* sleep.c — resting islands leave the solver until something touches them.
 *
 * Seed 002 resolves a resting pile every step: contacts stop what gravity
 * adds, again and again. A game's pile spends most of its life at rest, so,
 * as every game engine does, bodies that have rested long enough sleep: they
 * keep their pose, leave the solver, and cost nothing until woken.
 *
 *   - Islands: after the position update, bodies linked by a contact (a
 *     pair with a pressed point or an impact) or a joint are joined with a
 *     union-find over the pairs in pair order, joints in slot order; the
 *     smaller slot is always the root, so the islands are the same on every
 *     machine.
 *   - A dynamic body's sleep_time grows by the step while its speed is at
 *     most def.sleep_linear and its angular speed at most def.sleep_angular
 *     at the end of the step, and is 0 otherwise: velocity and time. crumple
 *     first measured the displacement over the window (a mean speed), which
 *     froze a block coasting at 3 cm/s on ice (it moved less than 2.5 cm in
 *     0.5 s). An island whose every body has rested def.sleep_time falls
 *     asleep: velocities zero, each body tagged with the island (its lowest
 *     slot). An island pressed by a moving kinematic body, or with a body
 *     made with no_sleep, never sleeps.
 *   - Waking: after the broadphase, a pair of a sleeping body with an awake
 *     dynamic or a moving kinematic body wakes the sleeper's whole island
 *     (all bodies with its tag), and the broadphase runs again so the woken
 *     bodies get their pairs with the ground too. Joints wake the same way.
 *     The API wakes a body it moves or pushes (set transform or velocity,
 *     impulses, forces, joints), and destroying a body wakes its island.
 *
 * Sleeping bodies are static for the solver (infinite mass, zero velocity);
 * their sleep state is part of the state hash.
 */
#include "solver/solver.h"

#include <string.h>

uint32_t cri_world_wake(cr_world *w, uint32_t slot) {
    cr_body *bodies = cr_world_bodies(w);
    if (slot >= w->body_high || !bodies[slot].alive || !bodies[slot].asleep) return 0;
    uint32_t tag = bodies[slot].island, woken = 0;
    for (uint32_t i = 0; i < w->body_high; ++i) {
        cr_body *b = &bodies[i];
        if (!b->alive || !b->asleep || b->island != tag) continue;
        b->asleep = 0;
        b->sleep_time = 0;
        ++woken;
    }
    w->stats.woken += woken;
    return woken;
}

uint32_t cri_world_wake_all(cr_world *w) {
    uint32_t woken = 0;
    for (uint32_t i = 0; i < w->body_high; ++i) woken += cri_world_wake(w, i);
    return woken;
}

static bool moving_kinematic(const cr_body *b) {
    return b->type == CR_BODY_KINEMATIC && (b->v.x != 0 || b->v.y != 0 || b->v.z != 0 || b->w.x != 0 ||
                                            b->w.y != 0 || b->w.z != 0);
}

/* Does body i wake a sleeping partner? Awake dynamic bodies and moving kinematic ones do. */
static bool wakes_others(const cr_body *b) {
    if (!b->alive) return false;
    if (b->type == CR_BODY_DYNAMIC) return !b->asleep;
    return moving_kinematic(b);
}

uint32_t cri_sleep_wake_touched(cr_step *s) {
    cr_world *w = s->w;
    if (!w->def.sleep) return 0;
    uint32_t woken = 0;
    for (uint32_t k = 0; k < s->npairs; ++k) {
        uint32_t a = (uint32_t)(s->pairs[k] >> 32), b = (uint32_t)(s->pairs[k] & 0xffffffffu);
        const cr_body *A = &s->bodies[a], *B = &s->bodies[b];
        if (A->asleep && wakes_others(B)) woken += cri_world_wake(w, a);
        else if (B->asleep && wakes_others(A)) woken += cri_world_wake(w, b);
    }
    const cr_joint *joints = cr_world_joints_c(w);
    for (uint32_t i = 0; i < w->joint_high; ++i) {
        const cr_joint *j = &joints[i];
        if (!j->alive || j->b == 0) continue;
        const cr_body *A = &s->bodies[j->a - 1], *B = &s->bodies[j->b - 1];
        if (A->asleep && wakes_others(B)) woken += cri_world_wake(w, j->a - 1);
        else if (B->asleep && wakes_others(A)) woken += cri_world_wake(w, j->b - 1);
    }
    return woken;
}

uint64_t cri_sleep_scratch(const cr_world_def *def) {
    return (((uint64_t)def->body_capacity * (sizeof(uint32_t) + sizeof(cr_real))) + 15u) & ~15ull;
}

static uint32_t find(uint32_t *parent, uint32_t i) {
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

static void unite(uint32_t *parent, uint32_t a, uint32_t b) {
    a = find(parent, a);
    b = find(parent, b);
    if (a < b) parent[b] = a;
    else if (b < a) parent[a] = b;
}

void cri_sleep_update(cr_step *s) {
    cr_world *w = s->w;
    const cr_world_def *def = &w->def;
    cr_body *bodies = s->bodies;
    uint32_t n = s->nb, sleeping = 0;
    if (!def->sleep) {
        cri_world_wake_all(w);
        w->stats.sleeping = 0;
        return;
    }
    uint32_t mark = cr_arena_pos(&w->scratch);
    uint32_t off_p = cri_arena_push_uninit(&w->scratch, n * (uint32_t)sizeof(uint32_t), 16);
    uint32_t off_t = cri_arena_push_uninit(&w->scratch, n * (uint32_t)sizeof(cr_real), 16);
    if (off_p == CR_NO_OFFSET || off_t == CR_NO_OFFSET) {
        cri_arena_pop_to(&w->scratch, mark);
        return; /* no sleeping this step; the world stays correct, only slower */
    }
    uint32_t *parent = CR_AT(w, off_p, uint32_t);
    cr_real *least = CR_AT(w, off_t, cr_real);

    for (uint32_t i = 0; i < n; ++i) {
        cr_body *b = &bodies[i];
        parent[i] = i;
        least[i] = CR_REAL_MAX;
        if (!b->alive || b->type != CR_BODY_DYNAMIC || b->asleep) continue;
        /* per axis first: a squared speed of a fast body would overflow Q32.32 */
        cr_real vl = def->sleep_linear, wl = def->sleep_angular;
        bool slow = !b->no_sleep && cr_abs(b->v.x) <= vl && cr_abs(b->v.y) <= vl && cr_abs(b->v.z) <= vl &&
                    cr_abs(b->w.x) <= wl && cr_abs(b->w.y) <= wl && cr_abs(b->w.z) <= wl &&
                    cr_v3_len_sq(b->v) <= cr_mul(vl, vl) && cr_v3_len_sq(b->w) <= cr_mul(wl, wl);
        b->sleep_time = slow ? b->sleep_time + s->dt : 0;
    }
    for (uint32_t k = 0; k < s->nm; ++k) {
        const cr_manifold *m = &s->m[k];
        if (m->contact_jn <= 0 && !(m->flags & CR_MF_IMPACT)) continue;
        const cr_body *A = &bodies[m->a], *B = &bodies[m->b];
        bool da = A->type == CR_BODY_DYNAMIC && !A->asleep, db = B->type == CR_BODY_DYNAMIC && !B->asleep;
        if (da && db) unite(parent, m->a, m->b);
        /* pressed by something moving that never rests: stay awake */
        if (da && moving_kinematic(B)) bodies[m->a].sleep_time = 0;
        if (db && moving_kinematic(A)) bodies[m->b].sleep_time = 0;
    }
    const cr_joint *joints = cr_world_joints_c(w);
    for (uint32_t i = 0; i < w->joint_high; ++i) {
        const cr_joint *j = &joints[i];
        if (!j->alive || j->b == 0) continue;
        if (bodies[j->a - 1].type == CR_BODY_DYNAMIC && bodies[j->b - 1].type == CR_BODY_DYNAMIC)
            unite(parent, j->a - 1, j->b - 1);
    }
    for (uint32_t i = 0; i < n; ++i) {
        const cr_body *b = &bodies[i];
        if (!b->alive || b->type != CR_BODY_DYNAMIC || b->asleep) continue;
        uint32_t r = find(parent, i);
        if (b->sleep_time < least[r]) least[r] = b->sleep_time;
    }
    for (uint32_t i = 0; i < n; ++i) {
        cr_body *b = &bodies[i];
        if (!b->alive || b->type != CR_BODY_DYNAMIC) continue;
        if (!b->asleep) {
            uint32_t r = find(parent, i);
            if (least[r] < def->sleep_time) continue;
            b->asleep = 1;
            b->island = r;
            b->v = cr_v3_zero();
            b->w = cr_v3_zero();
        }
        ++sleeping;
    }
    w->stats.sleeping = sleeping;
    cri_arena_pop_to(&w->scratch, mark);
}
