/* contact_events.c — which pairs touch after a step, their points and
 * impulses (cr_body_get_contacts), and the begin/end/hit events between one
 * step and the next (docs/filters.md).
 *
 * A pair touches when it is a manifold of the step (it has interference
 * points: solver.h). Manifolds come in pair order, as the kept pairs do, so
 * one merge walk finds the pairs that began, went on and ended. A pair that
 * is in no manifold because nothing of it is in the solver (both bodies
 * asleep, or asleep on a static or kinematic body) goes on touching with the
 * points it had: a heap that falls asleep does not end its contacts. Hits
 * are the step's impact events approaching faster than def.hit_event_speed.
 *
 * Off by default (def.touch_capacity 0: no memory, no work, nothing hashed).
 * Pairs past touch_capacity are not kept (and make no begin event, so a pair
 * never begins twice without ending); they and events past
 * contact_event_capacity are counted in stats.contact_overflow.
 */
#include "solver/touch.h"
#include "base/hash.h"

#include <string.h>

uint64_t cri_touch_region_bytes(const cr_world_def *def) {
    uint64_t touches = ((uint64_t)def->touch_capacity * 2u * sizeof(cri_touch) + 15u) & ~15ull;
    uint64_t events = ((uint64_t)def->contact_event_capacity * sizeof(cr_contact_event) + 15u) & ~15ull;
    return touches + events + 32u;
}

bool cri_touch_layout(cr_world *w, uint8_t *block) {
    const cr_world_def *def = &w->def;
    w->touches = cri_arena_push(&w->persistent, block, def->touch_capacity * 2u * (uint32_t)sizeof(cri_touch), 16);
    w->contact_events = cri_arena_push(&w->persistent, block, def->contact_event_capacity * (uint32_t)sizeof(cr_contact_event), 16);
    w->touch_count = w->contact_event_count = 0;
    return w->touches != CR_NO_OFFSET && w->contact_events != CR_NO_OFFSET;
}

static cr_body_id id_of(uint32_t slot, uint32_t generation) {
    cr_body_id id = {slot + 1u, generation};
    return id;
}

/* A kept point's world position now: a's body frame carried by a's pose. */
static cr_vec3 touch_point(const cr_body *a, const cri_touch *t, uint32_t i) {
    return cr_transform_point(a->xf, t->local[i]);
}

static void push_event(cr_world *w, uint32_t kind, cr_body_id a, cr_body_id b, cr_vec3 point, cr_vec3 normal, cr_real speed) {
    if (w->contact_event_count >= w->def.contact_event_capacity) {
        w->stats.contact_overflow++;
        return;
    }
    cr_contact_event *e = &CR_AT(w, w->contact_events, cr_contact_event)[w->contact_event_count++];
    e->kind = kind;
    e->body_a = a;
    e->body_b = b;
    e->point = point;
    e->normal = normal;
    e->speed = speed;
}

static void push_end(cr_world *w, const cri_touch *t) {
    push_event(w, CR_CONTACT_END, id_of(t->a, t->gen_a), id_of(t->b, t->gen_b), cr_v3_zero(), cr_v3_zero(), 0);
}

/* The pair of manifold m as kept: up to CR_CONTACT_POINTS of its points in
 * a's frame (from the start-of-step rotation the points were measured with). */
static void touch_from(const cr_step *s, const cr_manifold *m, cri_touch *t) {
    memset(t, 0, sizeof *t);
    t->a = m->a;
    t->b = m->b;
    t->gen_a = s->bodies[m->a].generation;
    t->gen_b = s->bodies[m->b].generation;
    cr_mat3 rot_t = cr_mat3_transpose(s->sb[m->a].rot);
    cr_real deepest = CR_REAL_MAX;
    for (uint32_t i = 0; i < m->count; ++i) {
        const cr_cpoint *p = &s->pts[m->first + i];
        if (p->phi < deepest) {
            deepest = p->phi;
            t->normal = p->n;
        }
        t->jn_total += p->jn;
        t->jt_total = cr_v3_add(t->jt_total, p->jt);
        if (i < CR_CONTACT_POINTS) {
            t->local[i] = cr_mat3_mul_v3(rot_t, p->ra);
            t->phi[i] = p->phi;
            t->jn[i] = p->jn;
            t->count = i + 1;
        }
    }
}

/* Nothing of the pair is in the solver, both bodies are the ones it touched
 * and both still take part: it touches as it did. */
static bool rests_untouched(const cr_world *w, const cri_touch *t) {
    const cr_body *bodies = cr_world_bodies_c(w);
    if (t->a >= w->body_high || t->b >= w->body_high) return false;
    const cr_body *a = &bodies[t->a], *b = &bodies[t->b];
    if (!a->alive || !b->alive || a->generation != t->gen_a || b->generation != t->gen_b) return false;
    if (a->disabled || b->disabled || a->ghost || b->ghost) return false;
    bool a_moves = a->type == CR_BODY_DYNAMIC && !a->asleep, b_moves = b->type == CR_BODY_DYNAMIC && !b->asleep;
    return !a_moves && !b_moves && (a->asleep || b->asleep);
}

static uint64_t touch_key(const cri_touch *t) { return cr_pair_key(t->a, t->b); }

void cri_contact_events(cr_step *s) {
    cr_world *w = s->w;
    uint32_t cap = w->def.touch_capacity;
    w->contact_event_count = 0;
    if (cap == 0) return;
    cri_touch *old = CR_AT(w, w->touches, cri_touch);
    cri_touch *now = old + cap;
    uint32_t n_old = w->touch_count, n = 0, i = 0, k = 0;
    while (i < n_old || k < s->nm) {
        const cr_manifold *m = k < s->nm ? &s->m[k] : NULL;
        if (m != NULL && m->count == 0) {
            ++k;
            continue;
        }
        uint64_t mk = m != NULL ? cr_pair_key(m->a, m->b) : UINT64_MAX;
        uint64_t ok = i < n_old ? touch_key(&old[i]) : UINT64_MAX;
        if (ok < mk) { /* the pair has no points now */
            if (rests_untouched(w, &old[i])) {
                if (n < cap) now[n++] = old[i];
                else w->stats.contact_overflow++;
            } else {
                push_end(w, &old[i]);
            }
            ++i;
            continue;
        }
        cri_touch t;
        touch_from(s, m, &t);
        ++k;
        bool went_on = false;
        if (ok == mk) {
            went_on = old[i].gen_a == t.gen_a && old[i].gen_b == t.gen_b;
            if (!went_on) push_end(w, &old[i]); /* a reused slot: the old body's pair ended */
            ++i;
        }
        if (n >= cap) {
            w->stats.contact_overflow++;
            continue;
        }
        now[n++] = t;
        if (!went_on)
            push_event(w, CR_CONTACT_BEGIN, id_of(t.a, t.gen_a), id_of(t.b, t.gen_b),
                       touch_point(&s->bodies[t.a], &t, 0), t.normal, 0);
    }
    memcpy(old, now, (size_t)n * sizeof *old);
    w->touch_count = n;
    /* hits: the impact events (already in pair order) fast enough */
    const cr_impact_event *ev = CR_AT(w, w->events, const cr_impact_event);
    for (uint32_t e = 0; e < w->event_count; ++e) {
        cr_real speed = -ev[e].normal_speed;
        if (speed >= w->def.hit_event_speed && cr_soft_id_is_null(ev[e].soft_b))
            push_event(w, CR_CONTACT_HIT, ev[e].body_a, ev[e].body_b, ev[e].point, ev[e].normal, speed);
    }
}

uint64_t cri_touch_hash(const cr_world *w, uint64_t h) {
    if (w->def.touch_capacity == 0) return h; /* off: nothing kept */
    h = cr_hash_u32(h, w->touch_count);
    const cri_touch *t = CR_AT(w, w->touches, const cri_touch);
    for (uint32_t i = 0; i < w->touch_count; ++i) {
        h = cr_hash_u32(cr_hash_u32(h, t[i].a), t[i].b);
        h = cr_hash_u32(cr_hash_u32(h, t[i].gen_a), t[i].gen_b);
        h = cr_hash_vec3(h, t[i].normal);
        h = cr_hash_u32(h, t[i].count);
        for (uint32_t p = 0; p < t[i].count; ++p) {
            h = cr_hash_vec3(h, t[i].local[p]);
            h = cr_hash_real(cr_hash_real(h, t[i].phi[p]), t[i].jn[p]);
        }
        h = cr_hash_real(h, t[i].jn_total);
        h = cr_hash_vec3(h, t[i].jt_total);
    }
    h = cr_hash_u32(h, w->contact_event_count);
    const cr_contact_event *e = CR_AT(w, w->contact_events, const cr_contact_event);
    for (uint32_t i = 0; i < w->contact_event_count; ++i) {
        h = cr_hash_u32(cr_hash_u32(cr_hash_u32(h, e[i].kind), e[i].body_a.index1), e[i].body_b.index1);
        h = cr_hash_vec3(cr_hash_vec3(h, e[i].point), e[i].normal);
        h = cr_hash_real(h, e[i].speed);
    }
    return h;
}

uint32_t cr_world_get_contact_events(const cr_world *w, cr_contact_event *out, uint32_t capacity) {
    if (w == NULL) return 0;
    uint32_t n = w->contact_event_count;
    if (out != NULL) memcpy(out, CR_AT(w, w->contact_events, const cr_contact_event), (size_t)(n < capacity ? n : capacity) * sizeof *out);
    return n;
}

uint32_t cr_body_get_contacts(const cr_world *w, cr_body_id id, cr_contact_data *out, uint32_t capacity) {
    if (cri_world_body_c(w, id) == NULL) return 0;
    const cr_body *bodies = cr_world_bodies_c(w);
    const cri_touch *t = CR_AT(w, w->touches, const cri_touch);
    uint32_t slot = id.index1 - 1, n = 0;
    for (uint32_t i = 0; i < w->touch_count; ++i) {
        bool is_a = t[i].a == slot;
        if (!is_a && t[i].b != slot) continue;
        if (out != NULL && n < capacity) {
            cr_contact_data *c = &out[n];
            memset(c, 0, sizeof *c);
            uint32_t other = is_a ? t[i].b : t[i].a;
            c->body = id;
            c->other = id_of(other, bodies[other].generation);
            c->normal = is_a ? t[i].normal : cr_v3_neg(t[i].normal);
            c->point_count = t[i].count;
            for (uint32_t p = 0; p < t[i].count; ++p) {
                c->points[p] = touch_point(&bodies[t[i].a], &t[i], p);
                c->separations[p] = t[i].phi[p];
                c->normal_impulses[p] = t[i].jn[p];
            }
            c->normal_impulse = t[i].jn_total;
            c->tangent_impulse = is_a ? t[i].jt_total : cr_v3_neg(t[i].jt_total);
        }
        ++n;
    }
    return n;
}
