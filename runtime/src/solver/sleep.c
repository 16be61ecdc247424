/* sleep.c — resting islands leave the solver until something touches them.
 *
 * Seed 002 resolves a resting pile every step: contacts stop what gravity
 * adds, again and again. A game's pile spends most of its life at rest, so,
 * as every game engine does, bodies that have rested long enough sleep: they
 * keep their pose, leave the solver, and cost nothing until woken.
 *
 *   - Rest timer: a dynamic body's sleep_time grows by the step while its
 *     speed is at most def.sleep_linear and its angular speed at most
 *     def.sleep_angular at the end of the step, and is 0 otherwise: velocity
 *     and time. crumple first measured the displacement over the window (a
 *     mean speed), which froze a block coasting at 3 cm/s on ice. A body has
 *     rested once its timer reaches def.sleep_time.
 *   - Islands: after the position update, awake bodies linked by a contact
 *     (a pair with a pressed point or an impact) or a joint are joined with a
 *     union-find over the pairs in pair order, joints in slot order; the
 *     smaller slot is always the root, so the islands are the same on every
 *     machine. An island whose bodies have all rested falls asleep.
 *   - Sleeping alone: the 1000-body pile is one island, and a few of its
 *     bodies creep at 2-4 cm/s for seconds while the other 900 rest; the
 *     island rule alone kept it awake until 20 s. So a body of an island
 *     that still moves falls asleep by itself once it has rested
 *     CR_SLEEP_ALONE x sleep_time, unless it touches a body that moves now
 *     (above the thresholds, no_sleep, or a moving kinematic body). Not in an
 *     island with a mesh body: the rings of rings.scene slide into each
 *     other's holes while slower than the thresholds, and sleeping alone
 *     froze them (8-11 rings nested at 10 s instead of 13-14).
 *   - Falling asleep: velocities zero, each body tagged with its sleeping
 *     island: the bodies that fall asleep together and the sleepers they
 *     rest on (their tags merge, lowest slot).
 *   - Waking: after the broadphase, a sleeper paired (or jointed) with a
 *     moving kinematic body, a body the host drives (no_sleep, a force or a
 *     torque) or an awake body faster than CR_SLEEP_WAKE_ISLAND x the
 *     thresholds wakes with its whole island; an awake body merely above the
 *     thresholds wakes only the sleeper it touches, which wakes its own
 *     partners in turn if it starts to move; a resting awake body wakes
 *     nothing. A sleeper woken by touch keeps half sleep_time of rest. The
 *     broadphase then runs again so the woken bodies get their pairs with
 *     the ground too. The API wakes a body it moves or pushes (set transform
 *     or velocity, impulses, forces, joints) with its island and starts its
 *     count again, and destroying a body wakes its island.
 *   - A pair of two sleepers keeps its warm-start impulses (warm_start.c):
 *     a woken heap starts from what held it, not cold.
 *
 * Sleeping bodies are static for the solver (infinite mass, zero velocity);
 * their sleep state is part of the state hash.
 */
#include "solver/solver.h"

#include <string.h>

/* Wake the island of a sleeper; `rest` is the rest time its bodies keep
 * (0 for what the host moves, which starts the count again). */
static uint32_t wake_island(cr_world *w, uint32_t slot, cr_real rest) {
    cr_body *bodies = cr_world_bodies(w);
    if (slot >= w->body_high || !bodies[slot].alive || !bodies[slot].asleep) return 0;
    uint32_t tag = bodies[slot].island, woken = 0;
    for (uint32_t i = 0; i < w->body_high; ++i) {
        cr_body *b = &bodies[i];
        if (!b->alive || !b->asleep || b->island != tag) continue;
        b->asleep = 0;
        if (b->sleep_time > rest) b->sleep_time = rest;
        ++woken;
    }
    w->stats.woken += woken;
    return woken;
}

uint32_t cri_world_wake(cr_world *w, uint32_t slot) {
    return wake_island(w, slot, 0);
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

/* Is v within `limit` (per axis first: a squared speed of a fast body would overflow Q32.32)? */
static bool within(cr_vec3 v, cr_real limit) {
    return cr_abs(v.x) <= limit && cr_abs(v.y) <= limit && cr_abs(v.z) <= limit && cr_v3_len_sq(v) <= cr_mul(limit, limit);
}

/* Below the sleep thresholds times `k`? */
static bool slower_than(const cr_world_def *def, const cr_body *b, int32_t k) {
    return within(b->v, def->sleep_linear * k) && within(b->w, def->sleep_angular * k);
}

/* How body b wakes a sleeping partner: 0 not at all, 1 the partner alone,
 * 2 the partner's whole island. A moving kinematic body, a body the host
 * drives (no_sleep, or a force or torque this step) and an awake body faster
 * than CR_SLEEP_WAKE_ISLAND x the thresholds wake the island; an awake body
 * merely above the thresholds wakes the body it touches, which wakes its own
 * partners in turn only if it starts to move. A resting awake body wakes
 * nothing. */
static int32_t wakes(const cr_world_def *def, const cr_body *b) {
    if (!b->alive) return 0;
    if (b->type != CR_BODY_DYNAMIC) return moving_kinematic(b) ? 2 : 0;
    if (b->asleep) return 0;
    bool driven = b->force.x != 0 || b->force.y != 0 || b->force.z != 0 || b->torque.x != 0 || b->torque.y != 0 ||
                  b->torque.z != 0;
    if (b->no_sleep || driven) return 2;
    if (!slower_than(def, b, CR_SLEEP_WAKE_ISLAND)) return 2;
    return slower_than(def, b, 1) ? 0 : 1;
}

/* A sleeper woken by touch keeps half its rest time: what did not move falls
 * asleep again a quarter second later instead of half a second, so one body
 * rolling over a sleeping heap does not keep the whole heap awake. */
static uint32_t wake_by(cr_world *w, uint32_t sleeper, int32_t how) {
    cr_real half = w->def.sleep_time / 2;
    if (how == 2) return wake_island(w, sleeper, half);
    if (how == 0) return 0;
    cr_body *b = &cr_world_bodies(w)[sleeper];
    b->asleep = 0;
    if (b->sleep_time > half) b->sleep_time = half;
    w->stats.woken += 1;
    return 1;
}

uint32_t cri_sleep_wake_touched(cr_step *s) {
    cr_world *w = s->w;
    const cr_world_def *def = &w->def;
    if (!def->sleep) return 0;
    uint32_t woken = 0;
    for (uint32_t k = 0; k < s->npairs; ++k) {
        uint32_t a = (uint32_t)(s->pairs[k] >> 32), b = (uint32_t)(s->pairs[k] & 0xffffffffu);
        const cr_body *A = &s->bodies[a], *B = &s->bodies[b];
        if (A->asleep) woken += wake_by(w, a, wakes(def, B));
        else if (B->asleep) woken += wake_by(w, b, wakes(def, A));
    }
    const cr_joint *joints = cr_world_joints_c(w);
    for (uint32_t i = 0; i < w->joint_high; ++i) {
        const cr_joint *j = &joints[i];
        if (!j->alive || j->b == 0) continue;
        const cr_body *A = &s->bodies[j->a - 1], *B = &s->bodies[j->b - 1];
        if (A->asleep) woken += wake_by(w, j->a - 1, wakes(def, B));
        else if (B->asleep) woken += wake_by(w, j->b - 1, wakes(def, A));
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

/* Sleep states of the update: */
enum { SL_NONE, SL_RESTED, SL_BLOCKED, SL_ASLEEP, SL_STATE = 0x0f, SL_ISLAND_MOVES = 0x10, SL_ISLAND_MESH = 0x20 };

static bool awake_dynamic(const cr_body *b) {
    return b->alive && b->type == CR_BODY_DYNAMIC && !b->asleep;
}

/* A rested body next to an awake one that has not rested (or a moving
 * kinematic one) stays awake: it may be pushed at any moment. */
static void block_by(const cr_world_def *def, uint8_t *st, const cr_body *bodies, uint32_t a, uint32_t b) {
    if (st[a] != SL_RESTED) return;
    const cr_body *B = &bodies[b];
    bool moving = B->type == CR_BODY_DYNAMIC && st[b] == SL_NONE && (B->no_sleep || !slower_than(def, B, 1));
    if (moving || moving_kinematic(B)) st[a] = SL_BLOCKED;
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
    uint32_t off_t = cri_arena_push_uninit(&w->scratch, n * (uint32_t)sizeof(uint8_t), 16);
    if (off_p == CR_NO_OFFSET || off_t == CR_NO_OFFSET) {
        cri_arena_pop_to(&w->scratch, mark);
        return; /* no sleeping this step; the world stays correct, only slower */
    }
    uint32_t *parent = CR_AT(w, off_p, uint32_t);
    uint8_t *st = CR_AT(w, off_t, uint8_t);

    for (uint32_t i = 0; i < n; ++i) {
        cr_body *b = &bodies[i];
        parent[i] = i;
        st[i] = SL_NONE;
        if (!b->alive || b->type != CR_BODY_DYNAMIC) continue;
        if (b->asleep) {
            st[i] = SL_ASLEEP;
            continue;
        }
        bool slow = !b->no_sleep && slower_than(def, b, 1);
        b->sleep_time = slow ? b->sleep_time + s->dt : 0;
    }
    /* pressed by something moving that never rests: the timer starts again */
    for (uint32_t k = 0; k < s->nm; ++k) {
        const cr_manifold *m = &s->m[k];
        if (m->contact_jn <= 0 && !(m->flags & CR_MF_IMPACT)) continue;
        if (moving_kinematic(&bodies[m->b]) && st[m->a] == SL_NONE) bodies[m->a].sleep_time = 0;
        if (moving_kinematic(&bodies[m->a]) && st[m->b] == SL_NONE) bodies[m->b].sleep_time = 0;
    }
    for (uint32_t i = 0; i < n; ++i)
        if (st[i] == SL_NONE && bodies[i].alive && bodies[i].type == CR_BODY_DYNAMIC &&
            bodies[i].sleep_time >= def->sleep_time)
            st[i] = SL_RESTED;
    const cr_joint *joints = cr_world_joints_c(w);
    /* The island (awake bodies joined by contacts and joints) sleeps as a
     * whole once all its bodies rested; a body of an island that still
     * moves somewhere must rest twice as long before it may sleep alone. */
    for (uint32_t k = 0; k < s->nm; ++k) {
        const cr_manifold *m = &s->m[k];
        if (m->contact_jn <= 0 && !(m->flags & CR_MF_IMPACT)) continue;
        if (awake_dynamic(&bodies[m->a]) && awake_dynamic(&bodies[m->b])) unite(parent, m->a, m->b);
    }
    for (uint32_t i = 0; i < w->joint_high; ++i) {
        const cr_joint *j = &joints[i];
        if (!j->alive || j->b == 0) continue;
        if (awake_dynamic(&bodies[j->a - 1]) && awake_dynamic(&bodies[j->b - 1])) unite(parent, j->a - 1, j->b - 1);
    }
    for (uint32_t i = 0; i < n; ++i) {
        if (!awake_dynamic(&bodies[i])) continue;
        uint32_t r = find(parent, i);
        if (st[i] == SL_NONE) st[r] |= SL_ISLAND_MOVES;
        if (bodies[i].shape.type == CR_SHAPE_MESH) st[r] |= SL_ISLAND_MESH;
    }
    for (uint32_t i = 0; i < n; ++i) {
        if ((st[i] & SL_STATE) != SL_RESTED) continue;
        uint8_t island = st[find(parent, i)];
        if (!(island & SL_ISLAND_MOVES)) continue; /* the whole island rested */
        if ((island & SL_ISLAND_MESH) || bodies[i].sleep_time < def->sleep_time * CR_SLEEP_ALONE)
            st[i] = (uint8_t)((st[i] & ~SL_STATE) | SL_BLOCKED);
    }
    for (uint32_t i = 0; i < n; ++i) {
        st[i] &= SL_STATE;
        parent[i] = i;
    }
    for (uint32_t k = 0; k < s->nm; ++k) {
        const cr_manifold *m = &s->m[k];
        if (m->contact_jn <= 0 && !(m->flags & CR_MF_IMPACT)) continue;
        block_by(def, st, bodies, m->a, m->b);
        block_by(def, st, bodies, m->b, m->a);
    }
    for (uint32_t i = 0; i < w->joint_high; ++i) {
        const cr_joint *j = &joints[i];
        if (!j->alive || j->b == 0) continue;
        block_by(def, st, bodies, j->a - 1, j->b - 1);
        block_by(def, st, bodies, j->b - 1, j->a - 1);
    }
    /* islands of what sleeps after this step: the bodies that fall asleep
     * now, joined through their contacts and joints with each other and with
     * the sleepers they rest on (whose islands merge with theirs) */
    for (uint32_t i = 0; i < n; ++i)
        if (st[i] == SL_ASLEEP && bodies[i].island < n) unite(parent, i, bodies[i].island);
    for (uint32_t k = 0; k < s->nm; ++k) {
        const cr_manifold *m = &s->m[k];
        if (m->contact_jn <= 0 && !(m->flags & CR_MF_IMPACT)) continue;
        uint8_t x = st[m->a], y = st[m->b];
        if ((x == SL_RESTED || x == SL_ASLEEP) && (y == SL_RESTED || y == SL_ASLEEP) && (x == SL_RESTED || y == SL_RESTED))
            unite(parent, m->a, m->b);
    }
    for (uint32_t i = 0; i < w->joint_high; ++i) {
        const cr_joint *j = &joints[i];
        if (!j->alive || j->b == 0) continue;
        uint8_t x = st[j->a - 1], y = st[j->b - 1];
        if ((x == SL_RESTED || x == SL_ASLEEP) && (y == SL_RESTED || y == SL_ASLEEP)) unite(parent, j->a - 1, j->b - 1);
    }
    for (uint32_t i = 0; i < n; ++i) {
        cr_body *b = &bodies[i];
        if (st[i] == SL_RESTED) {
            b->asleep = 1;
            b->v = cr_v3_zero();
            b->w = cr_v3_zero();
        } else if (st[i] != SL_ASLEEP) continue;
        b->island = find(parent, i);
        ++sleeping;
    }
    w->stats.sleeping = sleeping;
    cri_arena_pop_to(&w->scratch, mark);
}
