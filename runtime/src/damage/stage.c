/* stage.c — the damage stage: impacts and contacts into each body's frame,
 * then every model in a fixed order, then the deferred commands (damage.h).
 * Which models exist, and their order, is damage/models.h's list: every loop
 * over the models below is that list expanded. */
#include "damage/stage.h"
#include "damage/models.h"
#include "damage/budget.h"

#include <string.h>

static uint64_t al16(uint64_t x) { return (x + 15u) & ~(uint64_t)15u; }

cr_damage_def cr_default_damage_def(void) {
    cr_damage_def d;
    memset(&d, 0, sizeof d);
    d.budget = 1000000u; /* 1 ms of the reference core */
    d.costs = cr_default_damage_costs();
    d.surface_bytes = 8u << 20;
    d.command_capacity = 16;
    d.dent = cr_default_dent_budget();
    d.example = cr_default_example_budget();
    d.bend = cr_default_bend_budget();
    d.squash = cr_default_squash_budget();
    d.fracture = cr_default_fracture_budget();
    return d;
}

static bool any_model(const cr_damage_def *d) {
#define CRI_ON(name, bit, region, field) || d->name.body_capacity > 0
    return false CRI_DAMAGE_MODELS(CRI_ON);
#undef CRI_ON
}

cr_status cri_damage_check_def(const cr_damage_def *d, cr_field *field) {
    if (d->command_capacity > (1u << 16)) {
        *field = CR_FIELD_WORLD_DAMAGE_COMMANDS;
        return CR_ERR_DEF_INVALID;
    }
    if (any_model(d) && cri_damage_budget_check(d, field) != CR_OK) return CR_ERR_DEF_INVALID;
    /* the first model out of range names its field */
#define CRI_CHECK(name, bit, region, field_)                                                                            \
    if (cri_##name##_model_check_def(d, field) != CR_OK) return CR_ERR_DEF_INVALID;
    CRI_DAMAGE_MODELS(CRI_CHECK)
#undef CRI_CHECK
    return CR_OK;
}

uint64_t cri_damage_region_bytes(const cr_world_def *def) {
    const cr_damage_def *d = &def->damage;
    uint64_t surfaces = cri_damage_surfaces(d);
    uint64_t n = al16(surfaces * sizeof(cr_surface_copy)) + (surfaces ? al16(d->surface_bytes) : 0);
    n += al16((uint64_t)d->command_capacity * sizeof(cr_command)) + al16(sizeof(cr_damage_region));
#define CRI_BYTES(name, bit, region, field) n += cri_##name##_model_region_bytes(def);
    CRI_DAMAGE_MODELS(CRI_BYTES)
#undef CRI_BYTES
    return n + 64u;
}

uint64_t cri_damage_scratch_bytes(const cr_world_def *def) {
    if (!any_model(&def->damage)) return 0;
    uint64_t slots = def->body_capacity;
    uint64_t n = al16(slots * sizeof(cr_transform)) + 2 * al16((slots + 1) * sizeof(uint32_t)) +
                 al16(2ull * def->event_capacity * sizeof(cr_body_impact)) +
                 al16(2ull * def->contact_capacity * sizeof(cr_body_contact)) + 64u;
#define CRI_SCRATCH(name, bit, region, field) n += cri_##name##_model_scratch_bytes(def);
    CRI_DAMAGE_MODELS(CRI_SCRATCH)
#undef CRI_SCRATCH
    return n;
}

bool cri_damage_layout(cr_world *w, uint8_t *block) {
    const cr_damage_def *d = &w->def.damage;
    w->damage_region = cri_arena_push(&w->persistent, block, (uint32_t)sizeof(cr_damage_region), 16);
    if (w->damage_region == CR_NO_OFFSET) return false;
    cr_damage_region *r = CR_DAMAGE(w);
    bool ok = true;
    r->surface_capacity = cri_damage_surfaces(d);
    if (r->surface_capacity > 0) {
        r->surfaces = cri_arena_push(&w->persistent, block, r->surface_capacity * (uint32_t)sizeof(cr_surface_copy), 16);
        uint32_t mem = cri_arena_push(&w->persistent, block, d->surface_bytes, 16);
        ok = ok && r->surfaces != CR_NO_OFFSET && mem != CR_NO_OFFSET;
        cri_arena_init(&r->surface_memory, mem, mem + d->surface_bytes);
    }
    if (d->command_capacity > 0) {
        r->commands = cri_arena_push(&w->persistent, block, d->command_capacity * (uint32_t)sizeof(cr_command), 16);
        ok = ok && r->commands != CR_NO_OFFSET;
    }
#define CRI_LAYOUT(name, bit, region, field) ok = ok && cri_##name##_model_layout(w, block);
    CRI_DAMAGE_MODELS(CRI_LAYOUT)
#undef CRI_LAYOUT
    return ok;
}

void cri_damage_begin(cr_world *w) {
    CR_DAMAGE(w)->start_poses = CR_NO_OFFSET;
    if (!any_model(&w->def.damage) || w->body_high == 0) return;
    uint32_t off = cri_arena_push_uninit(&w->scratch, w->body_high * (uint32_t)sizeof(cr_transform), 16);
    if (off == CR_NO_OFFSET) return; /* counted below: the stage then skips this step's impacts */
    cr_transform *poses = CR_AT(w, off, cr_transform);
    const cr_body *b = cr_world_bodies_c(w);
    for (uint32_t i = 0; i < w->body_high; ++i) poses[i] = b[i].xf;
    CR_DAMAGE(w)->start_poses = off;
}

/* The host's clock for the stats' times (never for a decision: the budget charges counts). */
static uint64_t clock_ns(const cr_world *w) { return w->def.clock_ns != NULL ? w->def.clock_ns(w->def.clock_user) : 0; }

static void *scratch(cr_world *w, uint64_t bytes) {
    uint32_t off = cri_arena_push(&w->scratch, (uint8_t *)w, (uint32_t)(bytes ? bytes : 16), 16);
    return off == CR_NO_OFFSET ? NULL : CR_AT(w, off, void);
}

/* Counting sort by body slot: `count` holds per-slot counts on entry and
 * start offsets (with the total at [n]) on return. */
static void prefix(uint32_t *count, uint32_t n) {
    uint32_t sum = 0;
    for (uint32_t i = 0; i <= n; ++i) {
        uint32_t c = i < n ? count[i] : 0;
        count[i] = sum;
        sum += c;
    }
}

static bool wants(const cr_body *b) { return b->alive && b->models != 0; }

/* Step 1: every impact event, once, into the frames of the bodies it touched.
 * The solver measured the normal and the relative velocity in the start-of-
 * step configuration, and carried the point with body a to the end of the
 * step; so the point is brought back into a's frame with a's end pose (its
 * carrier) and everything else uses the start poses. */
static void gather_impacts(cr_world *w, const cr_transform *x0, cr_damage_input *in, uint32_t *start,
                           cr_body_impact *out) {
    const cr_impact_event *ev = cr_world_events(w);
    const cr_body *bodies = cr_world_bodies_c(w);
    uint32_t n = w->body_high;
    memset(start, 0, (n + 1) * sizeof(uint32_t));
    for (uint32_t e = 0; e < w->event_count; ++e) {
        uint32_t a = ev[e].body_a.index1 - 1, b = ev[e].body_b.index1 - 1;
        if (wants(&bodies[a])) start[a]++;
        if (ev[e].body_b.index1 != 0 && wants(&bodies[b])) start[b]++; /* a soft body's hit has no rigid body_b */
    }
    prefix(start, n);
    uint32_t *fill = start; /* filled in event order, then shifted back below */
    for (uint32_t e = 0; e < w->event_count; ++e) {
        const cr_impact_event *x = &ev[e];
        uint32_t a = x->body_a.index1 - 1, b = x->body_b.index1 - 1;
        cr_vec3 local_a = cr_transform_inv_point(bodies[a].xf, x->point);
        if (x->body_b.index1 == 0) {
            /* a soft body's hit (soft stage): only the rigid side, the soft
             * body named by soft_other and seen at the contact point */
            if (!wants(&bodies[a])) continue;
            cr_body_impact *i = &out[fill[a]++];
            memset(i, 0, sizeof *i);
            i->soft_other = x->soft_b;
            i->point = local_a;
            i->normal = cr_quat_inv_rotate(x0[a].q, x->normal);
            i->velocity = cr_quat_inv_rotate(x0[a].q, cr_v3_neg(x->relative_velocity));
            i->normal_speed = -x->normal_speed;
            i->impulse = x->impulse;
            i->impulse_vector = cr_quat_inv_rotate(x0[a].q, x->impulse_vector);
            i->other_pose = cr_transform_identity();
            i->other_pose.p = local_a;
            continue;
        }
        cr_transform xa = x0[a], xb = x0[b];
        cr_vec3 world0 = cr_transform_point(xa, local_a);
        if (wants(&bodies[a])) {
            cr_body_impact *i = &out[fill[a]++];
            i->other = x->body_b;
            i->point = local_a;
            i->normal = cr_quat_inv_rotate(xa.q, x->normal);
            i->velocity = cr_quat_inv_rotate(xa.q, cr_v3_neg(x->relative_velocity));
            i->normal_speed = -x->normal_speed;
            i->impulse = x->impulse;
            i->other_pose = cr_transform_mul(cr_transform_inverse(xa), xb);
            i->soft_other.index1 = i->soft_other.generation = 0;
            i->impulse_vector = cr_quat_inv_rotate(xa.q, x->impulse_vector);
        }
        if (wants(&bodies[b])) {
            cr_body_impact *i = &out[fill[b]++];
            i->other = x->body_a;
            i->point = cr_transform_inv_point(xb, world0);
            i->normal = cr_quat_inv_rotate(xb.q, cr_v3_neg(x->normal));
            i->velocity = cr_quat_inv_rotate(xb.q, x->relative_velocity);
            i->normal_speed = -x->normal_speed;
            i->impulse = x->impulse;
            i->other_pose = cr_transform_mul(cr_transform_inverse(xb), xa);
            i->soft_other.index1 = i->soft_other.generation = 0;
            i->impulse_vector = cr_quat_inv_rotate(xb.q, cr_v3_neg(x->impulse_vector));
        }
    }
    /* fill[i] now is the end of slot i = the start of slot i + 1 */
    for (uint32_t i = n; i > 0; --i) start[i] = start[i - 1];
    start[0] = 0;
    in->impacts = out;
    in->impact_start = start;
}

/* Step 2: the resting contacts, from the solver's manifolds (start-of-step
 * configuration, as the contact passes saw them). */
static void gather_contacts(const cr_step *s, const cr_transform *x0, cr_damage_input *in, uint32_t *start,
                            cr_body_contact *out) {
    const cr_body *bodies = s->bodies;
    uint32_t n = s->w->body_high;
    memset(start, 0, (n + 1) * sizeof(uint32_t));
    for (uint32_t k = 0; k < s->nm; ++k) {
        const cr_manifold *m = &s->m[k];
        if (m->contact_jn <= 0) continue;
        if (wants(&bodies[m->a])) start[m->a]++;
        if (wants(&bodies[m->b])) start[m->b]++;
    }
    prefix(start, n);
    for (uint32_t k = 0; k < s->nm; ++k) {
        const cr_manifold *m = &s->m[k];
        if (m->contact_jn <= 0) continue;
        const cr_cpoint *p = &s->pts[m->contact_point];
        cr_vec3 world0 = cr_v3_add(x0[m->a].p, p->ra);
        const uint32_t side[2] = {m->a, m->b};
        for (int k2 = 0; k2 < 2; ++k2) {
            uint32_t i = side[k2];
            if (!wants(&bodies[i])) continue;
            cr_body_contact *c = &out[start[i]++];
            c->other.index1 = side[1 - k2] + 1;
            c->other.generation = bodies[side[1 - k2]].generation;
            c->point = cr_transform_inv_point(x0[i], world0);
            c->normal = cr_quat_inv_rotate(x0[i].q, k2 == 0 ? p->n : cr_v3_neg(p->n));
            c->impulse = m->contact_jn;
        }
    }
    for (uint32_t i = n; i > 0; --i) start[i] = start[i - 1];
    start[0] = 0;
    in->contacts = out;
    in->contact_start = start;
}

void cri_damage_step(cr_step *s) {
    cr_world *w = s->w;
    memset(w->stats.damage_ops, 0, sizeof w->stats.damage_ops);
#define CRI_CLEAR(name, bit, region, field) memset(&w->stats.name, 0, sizeof w->stats.name);
    CRI_DAMAGE_MODELS(CRI_CLEAR)
#undef CRI_CLEAR
    w->stats.commands_applied = w->stats.commands_waiting = 0;
    if (any_model(&w->def.damage)) {
        cr_damage_input in;
        memset(&in, 0, sizeof in);
        in.body_high = w->body_high;
        in.dt = s->dt;
        uint32_t n = w->body_high;
        uint32_t *istart = scratch(w, (n + 1) * sizeof(uint32_t)), *cstart = scratch(w, (n + 1) * sizeof(uint32_t));
        cr_body_impact *imp = scratch(w, 2ull * w->event_count * sizeof(cr_body_impact));
        cr_body_contact *con = scratch(w, 2ull * s->nm * sizeof(cr_body_contact));
        if (CR_DAMAGE(w)->start_poses != CR_NO_OFFSET && istart && cstart && imp && con) {
            const cr_transform *x0 = CR_AT(w, CR_DAMAGE(w)->start_poses, const cr_transform);
            gather_impacts(w, x0, &in, istart, imp);
            gather_contacts(s, x0, &in, cstart, con);
        } else {
            /* no scratch (the host shrank scratch_bytes): no impacts reach the models this step, counted */
            w->stats.stage[CR_STAGE_damage].overflow += w->event_count;
            if (istart) memset(istart, 0, (n + 1) * sizeof(uint32_t));
            if (cstart) memset(cstart, 0, (n + 1) * sizeof(uint32_t));
            in.impact_start = istart, in.contact_start = cstart;
            if (istart == NULL || cstart == NULL) in.body_high = 0;
        }
        /* Step 3: the models, in the list's fixed order, each given what is
         * left of the step's budget (a model charges its operations as it goes) */
        uint64_t spent = 0;
#define CRI_STEP(name, bit, region, field)                                                                              \
    in.allowance = spent < w->def.damage.budget ? (uint32_t)(w->def.damage.budget - spent) : 0;                         \
    if (w->def.damage.name.body_capacity > 0) {                                                                         \
        uint64_t t0 = clock_ns(w);                                                                                      \
        cri_##name##_model_step(w, &in);                                                                                \
        w->stats.name.time_ns = clock_ns(w) - t0;                                                                       \
    }                                                                                                                   \
    spent += w->stats.name.work;
        CRI_DAMAGE_MODELS(CRI_STEP)
#undef CRI_STEP
    }
    cri_damage_commands_apply(w);
#define CRI_AFTER(name, bit, region, field) cri_##name##_model_after_commands(w);
    CRI_DAMAGE_MODELS(CRI_AFTER)
#undef CRI_AFTER
    cr_stage_stats *st = &w->stats.stage[CR_STAGE_damage];
    st->work = 0;
    st->overflow += w->stats.commands_waiting;
#define CRI_SUM(name, bit, region, field) st->work += w->stats.name.work, st->overflow += w->stats.name.waiting;
    CRI_DAMAGE_MODELS(CRI_SUM)
#undef CRI_SUM
}

uint64_t cri_damage_hash(const cr_world *w, uint64_t h) {
    h = cri_damage_surfaces_hash(w, h);
#define CRI_HASH(name, bit, region, field) h = cri_##name##_model_hash(w, h);
    CRI_DAMAGE_MODELS(CRI_HASH)
#undef CRI_HASH
    return cri_damage_commands_hash(w, h);
}

void cri_damage_rebind(cr_world *w) {
    cri_damage_surfaces_rebind(w);
#define CRI_REBIND(name, bit, region, field) cri_##name##_model_rebind(w);
    CRI_DAMAGE_MODELS(CRI_REBIND)
#undef CRI_REBIND
}

void cri_damage_detach_all(cr_world *w, uint32_t body_index1) {
#define CRI_DETACH(name, bit, region, field) cri_##name##_model_detach(w, body_index1);
    CRI_DAMAGE_MODELS(CRI_DETACH)
#undef CRI_DETACH
    cri_damage_surface_detach(w, body_index1);
}
