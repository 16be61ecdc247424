/* fracture_model.c — prescored fracture as a damage model (crumple/fracture.h,
 * docs/fracture.md): the records in the block, attach and detach, the order
 * of one step, the hash, and the public calls.
 *
 * Memory: actor records, a piece pool and a bond pool sized by the world
 * def's damage.fracture; an actor takes a range of each at attach. A freed
 * actor keeps its ranges so the next attach that fits reuses them (no
 * compaction: offsets written into queued commands must stay valid). Plus
 * one break's carried dents (fracture_carry.c: carry_corners, carry_nodes).
 *
 * One step, in this order, the oldest work first; every loop is charged to
 * the damage stage's one budget per item (the fracture_* operations) and a
 * slice that does not fit what is left waits for the next step (the step's
 * first slice always runs, so nothing waits for ever); the def's own caps
 * stay as upper limits:
 *   0. a break whose pieces are taking over its whole's dents (fracture_carry.c);
 *   1. splits that waited since an earlier step;
 *   2. hits that waited, oldest first;
 *   3. each body with the model, in slot order: its impacts damage the bonds
 *      near them (in the whole body's frame), its contacts are loads;
 *   4. each actor, in record order: joint loads, the stress estimate, and if
 *      bonds broke its islands and the bodies they need (fracture_pieces.c).
 * The world applies the queued destroys and creates at the end of the step;
 * then the new piece bodies join the model (cri_fracture_model_after_commands).
 */
#include "damage/stage.h"
#include "damage/fracture_model.h"
#include "base/check.h"
#include "base/hash.h"

#include <string.h>

static uint64_t al16(uint64_t x) { return (x + 15u) & ~(uint64_t)15u; }

cr_fracture_budget cr_default_fracture_budget(void) {
    cr_fracture_budget b;
    memset(&b, 0, sizeof b);
    b.body_capacity = 0; /* no fracture unless the host makes room for it */
    b.piece_capacity = 1024;
    b.bond_capacity = 8192;
    b.bonds_per_step = 1u << 17;
    b.islands_per_step = 1u << 16;
    b.pieces_per_step = 1024;
    b.queue_capacity = 64;
    b.carry_corners = 4096;
    b.carry_nodes = 1u << 14;
    return b;
}

cr_fracture_def cr_default_fracture_def(void) {
    cr_fracture_def d;
    memset(&d, 0, sizeof d);
    d.toughness = CR_R(2000);
    d.strength = CR_R(200000);
    d.damage_radius = CR_R(0.5);
    d.anchor_min = cr_v3(CR_R(1), CR_R(1), CR_R(1));
    d.anchor_max = cr_v3(CR_R(-1), CR_R(-1), CR_R(-1));
    d.stress_iterations = 16;
    d.cookie = CR_FRACTURE_COOKIE;
    return d;
}

static cr_status check_budget(const cr_fracture_budget *b) {
    if (b->body_capacity > 4096 || b->piece_capacity > (1u << 20) || b->bond_capacity > (1u << 22) ||
        b->queue_capacity > (1u << 16) || b->carry_corners > (1u << 22) || b->carry_nodes > (1u << 24))
        return CR_ERR_DEF_INVALID;
    if (b->body_capacity > 0 && (b->piece_capacity < 2 || b->bond_capacity == 0 || b->bonds_per_step == 0 ||
                                 b->islands_per_step == 0 || b->pieces_per_step == 0 || b->queue_capacity == 0))
        return CR_ERR_DEF_INVALID;
    return CR_OK;
}

cr_status cri_fracture_model_check_def(const cr_damage_def *d, cr_field *field) {
    if (check_budget(&d->fracture) == CR_OK) return CR_OK;
    *field = CR_FIELD_WORLD_DAMAGE_FRACTURE;
    return CR_ERR_DEF_INVALID;
}

uint64_t cri_fracture_model_region_bytes(const cr_world_def *def) {
    const cr_fracture_budget *b = &def->damage.fracture;
    if (b->body_capacity == 0) return 0;
    return al16((uint64_t)b->body_capacity * sizeof(cr_fracture_actor)) +
           al16((uint64_t)b->piece_capacity * sizeof(cr_fracture_piece)) +
           al16((uint64_t)b->bond_capacity * sizeof(cr_fracture_bond)) +
           al16((uint64_t)def->body_capacity * sizeof(cr_fracture_slot)) +
           al16((uint64_t)b->queue_capacity * sizeof(cr_fracture_hit)) +
           3 * al16((uint64_t)b->carry_corners * sizeof(cr_vec3)) + al16((uint64_t)b->carry_corners * sizeof(uint32_t)) +
           al16(((uint64_t)b->carry_corners + 1) * sizeof(uint32_t)) + al16((uint64_t)b->carry_nodes * sizeof(cr_real)) + 192u;
}

/* per step: a load per piece, a blow velocity per piece, and u32 scratch for islands and the stress
 * estimate's adjacency (pieces + 1 starts, two entries per bond, a parent per piece) */
uint64_t cri_fracture_model_scratch_bytes(const cr_world_def *def) {
    const cr_fracture_budget *b = &def->damage.fracture;
    if (b->body_capacity == 0) return 0;
    return 2 * al16((uint64_t)b->piece_capacity * sizeof(cr_vec3)) +
           al16(((uint64_t)2 * b->piece_capacity + 1 + 2ull * b->bond_capacity) * sizeof(uint32_t)) + 64u;
}

bool cri_fracture_model_layout(cr_world *w, uint8_t *block) {
    const cr_fracture_budget *b = &w->def.damage.fracture;
    cr_fracture_region *r = &CR_DAMAGE(w)->fracture;
    memset(r, 0, sizeof *r);
    if (b->body_capacity == 0) return true;
    r->actors = cri_arena_push(&w->persistent, block, b->body_capacity * (uint32_t)sizeof(cr_fracture_actor), 16);
    r->pieces = cri_arena_push(&w->persistent, block, b->piece_capacity * (uint32_t)sizeof(cr_fracture_piece), 16);
    r->bonds = cri_arena_push(&w->persistent, block, b->bond_capacity * (uint32_t)sizeof(cr_fracture_bond), 16);
    r->slots = cri_arena_push(&w->persistent, block, w->def.body_capacity * (uint32_t)sizeof(cr_fracture_slot), 16);
    r->queue = cri_arena_push(&w->persistent, block, b->queue_capacity * (uint32_t)sizeof(cr_fracture_hit), 16);
    /* a dented whole's corners kept for its pieces, and a piece's staged patch (fracture_carry.c) */
    r->carry_rest = cri_arena_push(&w->persistent, block, b->carry_corners * (uint32_t)sizeof(cr_vec3) + 16, 16);
    r->carry_move = cri_arena_push(&w->persistent, block, b->carry_corners * (uint32_t)sizeof(cr_vec3) + 16, 16);
    r->carry_index = cri_arena_push(&w->persistent, block, b->carry_corners * (uint32_t)sizeof(uint32_t) + 16, 16);
    r->carry_cells = cri_arena_push(&w->persistent, block, (b->carry_corners + 1) * (uint32_t)sizeof(uint32_t), 16);
    r->staged = cri_arena_push(&w->persistent, block, b->carry_nodes * (uint32_t)sizeof(cr_real) + 16, 16);
    r->carry_local = cri_arena_push(&w->persistent, block, b->carry_corners * (uint32_t)sizeof(cr_vec3) + 16, 16);
    return r->actors != CR_NO_OFFSET && r->pieces != CR_NO_OFFSET && r->bonds != CR_NO_OFFSET &&
           r->slots != CR_NO_OFFSET && r->queue != CR_NO_OFFSET && r->carry_rest != CR_NO_OFFSET &&
           r->carry_move != CR_NO_OFFSET && r->carry_index != CR_NO_OFFSET && r->carry_cells != CR_NO_OFFSET &&
           r->staged != CR_NO_OFFSET && r->carry_local != CR_NO_OFFSET;
}

cr_fracture_actor *cri_fracture_actors(const cr_world *w) {
    return CR_AT(w, CR_DAMAGE(w)->fracture.actors, cr_fracture_actor);
}
cr_fracture_piece *cri_fracture_pieces(const cr_world *w, const cr_fracture_actor *a) {
    return CR_AT(w, CR_DAMAGE(w)->fracture.pieces, cr_fracture_piece) + a->piece_first;
}
cr_fracture_bond *cri_fracture_bonds(const cr_world *w, const cr_fracture_actor *a) {
    return CR_AT(w, CR_DAMAGE(w)->fracture.bonds, cr_fracture_bond) + a->bond_first;
}
cr_fracture_slot *cri_fracture_slots(const cr_world *w) { return CR_AT(w, CR_DAMAGE(w)->fracture.slots, cr_fracture_slot); }
uint32_t cri_fracture_piece_offset(const cr_world *w, const cr_fracture_actor *a, uint32_t k) {
    return CR_DAMAGE(w)->fracture.pieces + (a->piece_first + k) * (uint32_t)sizeof(cr_fracture_piece);
}
uint32_t cri_fracture_bond_offset(const cr_world *w, const cr_fracture_actor *a, uint32_t k) {
    return CR_DAMAGE(w)->fracture.bonds + (a->bond_first + k) * (uint32_t)sizeof(cr_fracture_bond);
}

/* the actor a body handle names: the body attached (even after its split), or one of its pieces */
static cr_fracture_actor *actor_of(const cr_world *w, cr_body_id id) {
    if (w->def.damage.fracture.body_capacity == 0 || id.index1 == 0) return NULL;
    cr_fracture_actor *actors = cri_fracture_actors(w);
    for (uint32_t i = 0; i < w->def.damage.fracture.body_capacity; ++i)
        if (actors[i].origin_index1 == id.index1 && actors[i].origin_generation == id.generation) return &actors[i];
    if (id.index1 > w->body_high || cri_world_body_c(w, id) == NULL) return NULL;
    const cr_fracture_slot *s = &cri_fracture_slots(w)[id.index1 - 1];
    return s->actor1 ? &actors[s->actor1 - 1] : NULL;
}

void cri_fracture_break_bond(cr_world *w, cr_fracture_actor *a, uint32_t k) {
    cr_fracture_bond *b = &cri_fracture_bonds(w, a)[k];
    if (b->broken) return;
    b->broken = 1;
    b->health = 0;
    a->broken++;
    if (!a->dirty) a->dirty_step = (uint32_t)w->step_count; /* the break's latency counts from here */
    a->dirty = 1;
    w->stats.fracture.done++;
    if (!cr_joint_id_is_null(b->joint) && cr_joint_is_valid(w, b->joint) &&
        cr_damage_defer_joint_destroy(w, b->joint) == CR_OK)
        b->joint.index1 = 0, b->joint.generation = 0;
}

static cr_status check_fdef(cr_world *w, const cr_fracture_def *d) {
    CR_TRY(cr_check_real(w, d->toughness, CR_FIELD_FRACTURE_TOUGHNESS));
    CR_TRY(cr_check_real(w, d->strength, CR_FIELD_FRACTURE_STRENGTH));
    CR_TRY(cr_check_real(w, d->damage_radius, CR_FIELD_FRACTURE_DAMAGE_RADIUS));
    CR_TRY(cr_check_vec3(w, d->anchor_min, CR_FIELD_FRACTURE_ANCHOR));
    CR_TRY(cr_check_vec3(w, d->anchor_max, CR_FIELD_FRACTURE_ANCHOR));
    if (d->toughness <= 0) return cri_refuse(w, CR_ERR_DEF_INVALID, CR_FIELD_FRACTURE_TOUGHNESS);
    if (d->strength <= 0) return cri_refuse(w, CR_ERR_DEF_INVALID, CR_FIELD_FRACTURE_STRENGTH);
    if (d->damage_radius <= 0) return cri_refuse(w, CR_ERR_DEF_INVALID, CR_FIELD_FRACTURE_DAMAGE_RADIUS);
    if (d->stress_iterations > 1024) return cri_refuse(w, CR_ERR_DEF_INVALID, CR_FIELD_FRACTURE_STRESS_ITERATIONS);
    return CR_OK;
}

/* The piece assets must be the asset's pieces, in order: equal volumes (to
 * the cooker's float rounding) is what a host that registered them out of
 * order or from another file cannot pass by chance. */
static bool pieces_match(const cr_world *w, const cr_asset *whole, uint32_t first) {
    if (first >= w->asset_count || whole->piece_count > w->asset_count - first) return false;
    for (uint32_t i = 0; i < whole->piece_count; ++i) {
        const cr_asset *p = cr_world_asset(w, first + i);
        if (p == NULL || p->piece_count != 0) return false;
        cr_real d = cr_abs(p->volume - whole->pieces[i].volume), tol = cr_mul(whole->pieces[i].volume, CR_R(1e-4));
        if (d > tol) return false;
    }
    return true;
}

cr_status cr_fracture_attach(cr_world *w, cr_body_id id, const cr_fracture_def *def) {
    if (w == NULL || def == NULL) return CR_ERR_NULL_ARGUMENT;
    if (def->cookie != CR_FRACTURE_COOKIE) return CR_ERR_DEF_NOT_DEFAULTED;
    cr_body *body = cri_world_body(w, id);
    if (body == NULL) return CR_ERR_STALE_HANDLE;
    CR_TRY(check_fdef(w, def));
    const cr_fracture_budget *fb = &w->def.damage.fracture;
    if (body->shape.type != CR_SHAPE_MESH || cri_damage_may_share(body->models, CR_MODEL_FRACTURE) != CR_OK)
        return cri_refuse(w, CR_ERR_DEF_INVALID, CR_FIELD_BODY_SHAPE_ASSET);
    if (body->type == CR_BODY_KINEMATIC) return cri_refuse(w, CR_ERR_DEF_INVALID, CR_FIELD_BODY_TYPE);
    const cr_asset *whole = cri_damage_rest_asset(w, body->shape.asset);
    if (whole == NULL || whole->piece_count < 2) return cri_refuse(w, CR_ERR_DEF_INVALID, CR_FIELD_BODY_SHAPE_ASSET);
    if (!pieces_match(w, whole, def->first_piece_asset))
        return cri_refuse(w, CR_ERR_DEF_INVALID, CR_FIELD_FRACTURE_PIECE_ASSET);
    if (fb->body_capacity == 0 || whole->piece_count > fb->pieces_per_step) return CR_ERR_CAPACITY;
    cr_fracture_region *r = &CR_DAMAGE(w)->fracture;
    cr_fracture_actor *actors = cri_fracture_actors(w), *a = NULL;
    /* a freed record whose ranges fit, else a fresh record with fresh ranges */
    for (uint32_t i = 0; i < fb->body_capacity && a == NULL; ++i)
        if (actors[i].origin_index1 == 0 && actors[i].piece_room >= whole->piece_count &&
            actors[i].bond_room >= whole->bond_count)
            a = &actors[i];
    if (a == NULL) {
        if (fb->piece_capacity - r->pieces_used < whole->piece_count || fb->bond_capacity - r->bonds_used < whole->bond_count)
            return CR_ERR_CAPACITY;
        for (uint32_t i = 0; i < fb->body_capacity && a == NULL; ++i)
            if (actors[i].origin_index1 == 0 && actors[i].piece_room == 0) a = &actors[i];
        if (a == NULL) return CR_ERR_CAPACITY;
        a->piece_first = r->pieces_used, a->piece_room = whole->piece_count;
        a->bond_first = r->bonds_used, a->bond_room = whole->bond_count;
        r->pieces_used += whole->piece_count;
        r->bonds_used += whole->bond_count;
    }
    uint32_t pf = a->piece_first, pr = a->piece_room, bf = a->bond_first, br = a->bond_room;
    memset(a, 0, sizeof *a);
    a->piece_first = pf, a->piece_room = pr, a->bond_first = bf, a->bond_room = br;
    a->origin_index1 = id.index1;
    a->origin_generation = id.generation;
    a->whole_index1 = id.index1;
    a->asset = cri_damage_rest_slot(w, body->shape.asset);
    a->piece_count = whole->piece_count;
    a->bond_count = whole->bond_count;
    a->was_static = body->type == CR_BODY_STATIC;
    a->def = *def;
    cr_fracture_bond *bonds = cri_fracture_bonds(w, a);
    memset(bonds, 0, a->bond_count * sizeof *bonds);
    for (uint32_t k = 0; k < a->bond_count; ++k) bonds[k].health = CR_R(1);
    cri_fracture_pieces_init(w, a, whole, body);
    body->models |= CR_MODEL_FRACTURE;
    cr_fracture_slot *s = &cri_fracture_slots(w)[id.index1 - 1];
    s->actor1 = (uint32_t)(a - actors) + 1;
    s->piece = CR_FRACTURE_WHOLE;
    return CR_OK;
}

void cri_fracture_model_detach(cr_world *w, uint32_t body_index1) {
    if (w->def.damage.fracture.body_capacity == 0) return;
    cr_fracture_slot *s = &cri_fracture_slots(w)[body_index1 - 1];
    cr_world_bodies(w)[body_index1 - 1].models &= (uint8_t)~CR_MODEL_FRACTURE;
    if (s->actor1 == 0) return;
    cr_fracture_actor *a = &cri_fracture_actors(w)[s->actor1 - 1];
    uint32_t piece = s->piece;
    s->actor1 = 0, s->piece = 0;
    if (piece == CR_FRACTURE_WHOLE) {
        a->whole_index1 = 0;
        if (!a->splitting) a->origin_index1 = 0; /* the host destroyed the whole body: the record is free */
        return;
    }
    cr_fracture_piece *p = &cri_fracture_pieces(w, a)[piece];
    p->mapped = 0;
    p->body.index1 = 0, p->body.generation = 0;
    if (p->respawning) return;
    /* the host took the piece away: nothing holds to it any more */
    const cr_asset *whole = cr_world_asset(w, a->asset);
    for (uint32_t k = 0; whole != NULL && k < a->bond_count; ++k)
        if (whole->bonds[k].a == piece || whole->bonds[k].b == piece) cri_fracture_break_bond(w, a, k);
}

static cr_fracture_hit *queue_at(cr_world *w, uint32_t i) {
    cr_fracture_region *r = &CR_DAMAGE(w)->fracture;
    return &CR_AT(w, r->queue, cr_fracture_hit)[(r->queue_head + i) % w->def.damage.fracture.queue_capacity];
}

static void enqueue(cr_world *w, uint32_t actor, cr_vec3 point, cr_real impulse) {
    cr_fracture_region *r = &CR_DAMAGE(w)->fracture;
    if (r->queue_count >= w->def.damage.fracture.queue_capacity) {
        w->stats.fracture.over_capacity++;
        return;
    }
    cr_fracture_hit *h = queue_at(w, r->queue_count++);
    memset(h, 0, sizeof *h);
    h->actor = actor, h->point = point, h->impulse = impulse;
}

cr_status cr_fracture_apply_damage(cr_world *w, cr_body_id id, cr_vec3 world_point, cr_real impulse) {
    if (w == NULL) return CR_ERR_NULL_ARGUMENT;
    CR_TRY(cr_check_vec3(w, world_point, CR_FIELD_WORLD_POINT));
    CR_TRY(cr_check_real(w, impulse, CR_FIELD_IMPULSE));
    if (impulse < 0) return cri_refuse(w, CR_ERR_ARGUMENT_RANGE, CR_FIELD_IMPULSE);
    const cr_body *b = cri_world_body_c(w, id);
    if (b == NULL) return CR_ERR_STALE_HANDLE;
    cr_fracture_actor *a = actor_of(w, id);
    if (a == NULL) return cri_refuse(w, CR_ERR_DEF_INVALID, CR_FIELD_BODY_SHAPE_ASSET);
    cr_vec3 p = cr_transform_inv_point(b->xf, world_point);
    const cr_fracture_slot *s = &cri_fracture_slots(w)[id.index1 - 1];
    if (s->actor1 != 0 && s->piece != CR_FRACTURE_WHOLE) p = cr_transform_point(cri_fracture_pieces(w, a)[s->piece].pose, p);
    cr_fracture_region *r = &CR_DAMAGE(w)->fracture;
    if (r->queue_count >= w->def.damage.fracture.queue_capacity) return CR_ERR_CAPACITY;
    enqueue(w, (uint32_t)(a - cri_fracture_actors(w)), p, impulse);
    return CR_OK;
}

/* Step 2's per-body part: impacts damage bonds while the budget lasts (the
 * rest waits in the queue behind what waits already), contacts are loads. */
static void body_inputs(cr_world *w, const cr_damage_input *in, uint32_t slot, cr_vec3 *load, cr_real dt, uint32_t *work,
                        cr_fracture_meter *fm) {
    const cr_fracture_slot *s = &cri_fracture_slots(w)[slot];
    if (s->actor1 == 0) return;
    cr_fracture_actor *a = &cri_fracture_actors(w)[s->actor1 - 1];
    const cr_asset *whole = cr_world_asset(w, a->asset);
    if (whole == NULL) return;
    const cr_body *b = &cr_world_bodies(w)[slot];
    cr_transform to_whole = s->piece == CR_FRACTURE_WHOLE ? cr_transform_identity() : cri_fracture_pieces(w, a)[s->piece].pose;
    const uint32_t budget = w->def.damage.fracture.bonds_per_step;
    for (uint32_t i = in->impact_start[slot]; i < in->impact_start[slot + 1]; ++i) {
        const cr_body_impact *im = &in->impacts[i];
        /* pieces of one actor are cut along faces they still share: as they
         * part, the solver meets those faces at grazing angles, and those
         * contacts are not blows (docs/fracture.md) */
        if (im->other.index1 != 0 && im->other.index1 <= w->body_high &&
            cri_fracture_slots(w)[im->other.index1 - 1].actor1 == s->actor1)
            continue;
        cr_vec3 p = cr_transform_point(to_whole, im->point);
        if (CR_DAMAGE(w)->fracture.queue_count > 0 || (*work > 0 && *work + a->bond_count > budget) ||
            !cri_fracture_fits(fm, cri_damage_cost_ps(w, CR_DAMAGE_OP_fracture_bond, a->bond_count)))
            enqueue(w, s->actor1 - 1, p, im->impulse);
        else {
            uint32_t n = cri_fracture_impact(w, a, whole, p, im->impulse);
            *work += n;
            cri_damage_charge(&fm->m, CR_DAMAGE_OP_fracture_bond, n);
            cri_fracture_slice_ran(fm);
        }
    }
    if (a->def.stress_iterations == 0 || load == NULL) return;
    if (s->piece == CR_FRACTURE_WHOLE && b->asleep) {
        /* asleep, it carries what it carried when it fell asleep: the stress
         * pass of that step stands (a touch wakes it, and the pass with it) */
        a->calm = 1;
        return;
    }
    if (s->piece == CR_FRACTURE_WHOLE) {
        /* No cost per piece while whole: no bond carries more than all the
         * loads together (fracture_bonds.c), which is at most twice the
         * contact impulses and the weight; below the weakest bond's
         * strength, the stress pass is skipped before it visits a piece. */
        cr_real weight = cr_mul(cr_mul(whole->volume, b->material.density), dt);
        cr_real total = cr_mul(weight, cr_v3_len(w->def.gravity));
        cr_vec3 sum = cr_v3_scale(cr_quat_inv_rotate(b->xf.q, w->def.gravity), weight);
        for (uint32_t i = in->contact_start[slot]; i < in->contact_start[slot + 1]; ++i) {
            total += in->contacts[i].impulse;
            sum = cr_v3_mad(sum, in->contacts[i].impulse, in->contacts[i].normal);
        }
        *work += 1 + in->contact_start[slot + 1] - in->contact_start[slot];
        cri_damage_charge(&fm->m, CR_DAMAGE_OP_fracture_stress, 1 + in->contact_start[slot + 1] - in->contact_start[slot]);
        a->calm = total + total <= cr_mul(cr_mul(a->def.strength, a->min_area), dt);
        if (a->calm) return;
        /* Loads that could break a bond, but the same loads as the last pass
         * (their sum, weight and contacts in the body frame, within
         * CR_FRACTURE_LOAD_TOLERANCE of their size) give the same answer: a
         * converged pass that overloaded nothing stands, and the per-piece
         * work is skipped. Resting under a steady load, the whole costs this
         * O(contacts) test per step. Not the loads' moment: the solver
         * reports one deepest point per contact, which hops between the
         * corners of a face resting flat, so the moment of a steady load
         * jumps by most of its size from step to step (docs/fracture.md). */
        if (a->settled && cr_v3_len(cr_v3_sub(sum, a->load_sum)) <= cr_mul(total, CR_FRACTURE_LOAD_TOLERANCE)) {
            a->calm = 1;
            return;
        }
        a->load_sum = sum; /* the loads this pass sees: later steps compare with them, so a slow drift adds up */
    }
    /* contact impulses, world frame, on the piece they press: a piece body's
     * own, or for the whole body the piece whose centre is nearest */
    for (uint32_t i = in->contact_start[slot]; i < in->contact_start[slot + 1]; ++i) {
        const cr_body_contact *c = &in->contacts[i];
        uint32_t k = s->piece;
        if (k == CR_FRACTURE_WHOLE) {
            cr_real best = CR_REAL_MAX;
            k = 0;
            for (uint32_t j = 0; j < a->piece_count; ++j) {
                cr_real d = cr_v3_len_sq(cr_v3_sub(whole->pieces[j].centroid, c->point));
                if (d < best) best = d, k = j;
            }
            *work += a->piece_count;
            cri_damage_charge(&fm->m, CR_DAMAGE_OP_fracture_stress, a->piece_count);
        }
        cr_vec3 jw = cr_quat_rotate(b->xf.q, cr_v3_scale(c->normal, c->impulse));
        load[a->piece_first + k] = cr_v3_add(load[a->piece_first + k], jw);
    }
}

bool cri_fracture_fits(const cr_fracture_meter *fm, uint64_t ps) { return fm->slices == 0 || cri_damage_fits(&fm->m, ps); }

void cri_fracture_slice_ran(cr_fracture_meter *fm) {
    uint64_t ps = fm->m.spent_ps - fm->mark_ps;
    if (ps > fm->largest_ps) fm->largest_ps = ps;
    fm->mark_ps = fm->m.spent_ps;
    fm->slices++;
}

void cri_fracture_committed(cr_world *w, uint32_t since_step) {
    uint32_t latency = (uint32_t)w->step_count - since_step;
    cr_model_stats *st = &w->stats.fracture;
    st->committed++;
    st->latency_sum += latency;
    if (latency > st->latency_max) st->latency_max = latency;
}

/* Slice: an actor's islands and, if they ask for it, its split queued
 * (fracture_pieces.c), admitted at their most. False: it waits (counted). */
static bool split_actor(cr_world *w, const cr_damage_input *in, cr_fracture_actor *a, uint32_t i, const cr_asset *whole,
                        uint32_t *u32, cr_vec3 *blow, uint32_t *islands_left, uint32_t *pieces_left, cr_fracture_meter *fm) {
    const cr_fracture_budget *fb = &w->def.damage.fracture;
    uint32_t cost = a->piece_count + a->bond_count;
    uint64_t ps = cri_damage_cost_ps(w, CR_DAMAGE_OP_fracture_island, cost) +
                  cri_damage_cost_ps(w, CR_DAMAGE_OP_fracture_piece, a->piece_count);
    if (u32 == NULL || blow == NULL || (cost > *islands_left && *islands_left < fb->islands_per_step) ||
        !cri_fracture_fits(fm, ps)) {
        w->stats.fracture.waiting++;
        return false;
    }
    *islands_left = cost > *islands_left ? 0 : *islands_left - cost;
    cri_fracture_islands(w, a, whole, u32);
    cri_damage_charge(&fm->m, CR_DAMAGE_OP_fracture_island, cost);
    uint32_t wait = 0, over = 0;
    uint32_t made = cri_fracture_spawn(w, a, i, whole, in, blow + a->piece_first, *pieces_left, in->dt, fm, &wait, &over);
    cri_fracture_slice_ran(fm);
    *pieces_left -= made;
    w->stats.fracture.waiting += wait;
    w->stats.fracture.over_capacity += over;
    if (wait == 0 && over == 0) a->dirty = 0;
    return true;
}

/* The step. Every loop is charged to the stage's meter at its operation's
 * cost (budget.h); the model's own caps (bonds_per_step, islands_per_step,
 * pieces_per_step) stay as upper limits. The oldest work goes first: a
 * break's pieces taking over its dents (fracture_carry.c), then splits that
 * waited since an earlier step, then the hits that waited, then this step's
 * hits, loads and splits. A slice that does not fit what is left of the
 * budget waits for the next step, unless it is the step's first, so the
 * oldest work always moves on. */
void cri_fracture_model_step(cr_world *w, const cr_damage_input *in) {
    const cr_real dt = in->dt;
    const cr_fracture_budget *fb = &w->def.damage.fracture;
    if (fb->body_capacity == 0) return;
    cr_fracture_region *r = &CR_DAMAGE(w)->fracture;
    cr_fracture_actor *actors = cri_fracture_actors(w);
    cr_fracture_meter fm = {cri_damage_meter(w, in->allowance), 0, 0, 0};
    uint32_t work = 0;
    uint32_t loads_off = cri_arena_push(&w->scratch, (uint8_t *)w, fb->piece_capacity * (uint32_t)sizeof(cr_vec3), 16);
    uint32_t blow_off = cri_arena_push(&w->scratch, (uint8_t *)w, fb->piece_capacity * (uint32_t)sizeof(cr_vec3), 16);
    uint32_t u32_off = cri_arena_push(&w->scratch, (uint8_t *)w,
                                      (2 * fb->piece_capacity + 1 + 2 * fb->bond_capacity) * (uint32_t)sizeof(uint32_t), 16);
    cr_vec3 *load = loads_off == CR_NO_OFFSET ? NULL : CR_AT(w, loads_off, cr_vec3);
    cr_vec3 *blow = blow_off == CR_NO_OFFSET ? NULL : CR_AT(w, blow_off, cr_vec3);
    uint32_t *u32 = u32_off == CR_NO_OFFSET ? NULL : CR_AT(w, u32_off, uint32_t);
    if (load) memset(load, 0, fb->piece_capacity * sizeof(cr_vec3));
    uint32_t islands_left = fb->islands_per_step, pieces_left = fb->pieces_per_step;
    /* 0. the dents of a break that split in an earlier step */
    cri_fracture_carry_step(w, &fm);
    /* 1. splits that waited since an earlier step, in record order */
    for (uint32_t i = 0; i < fb->body_capacity; ++i) {
        cr_fracture_actor *a = &actors[i];
        if (a->origin_index1 == 0 || !a->dirty || a->splitting || a->dirty_step >= (uint32_t)w->step_count) continue;
        const cr_asset *whole = cr_world_asset(w, a->asset);
        if (whole != NULL) split_actor(w, in, a, i, whole, u32, blow, &islands_left, &pieces_left, &fm);
    }
    /* 2. hits that waited, oldest first */
    while (r->queue_count > 0) {
        cr_fracture_hit h = *queue_at(w, 0);
        cr_fracture_actor *a = &actors[h.actor];
        const cr_asset *whole = a->origin_index1 ? cr_world_asset(w, a->asset) : NULL;
        if (whole != NULL && ((work > 0 && work + a->bond_count > fb->bonds_per_step) ||
                              !cri_fracture_fits(&fm, cri_damage_cost_ps(w, CR_DAMAGE_OP_fracture_bond, a->bond_count))))
            break;
        r->queue_head = (r->queue_head + 1) % fb->queue_capacity;
        r->queue_count--;
        if (whole != NULL) {
            uint32_t n = cri_fracture_impact(w, a, whole, h.point, h.impulse);
            work += n;
            cri_damage_charge(&fm.m, CR_DAMAGE_OP_fracture_bond, n);
            cri_fracture_slice_ran(&fm);
        }
    }
    /* 3. bodies in slot order */
    for (uint32_t slot = 0; slot < in->body_high; ++slot) {
        const cr_body *b = &cr_world_bodies(w)[slot];
        if (b->alive && (b->models & CR_MODEL_FRACTURE)) body_inputs(w, in, slot, load, dt, &work, &fm);
    }
    /* 4. actors in record order (one split in 1. is done for this step) */
    for (uint32_t i = 0; i < fb->body_capacity; ++i) {
        cr_fracture_actor *a = &actors[i];
        if (a->origin_index1 == 0 || a->splitting) continue;
        const cr_asset *whole = cr_world_asset(w, a->asset);
        if (whole == NULL) continue;
        uint32_t jn = cri_fracture_joint_loads(w, a, whole, dt);
        work += jn;
        cri_damage_charge(&fm.m, CR_DAMAGE_OP_fracture_bond, jn);
        if (a->def.stress_iterations > 0 && load != NULL && u32 != NULL) {
            uint32_t left = work < fb->bonds_per_step ? fb->bonds_per_step - work : 0;
            uint32_t sn = cri_fracture_stress(w, a, whole, load, dt, left, u32);
            work += sn;
            cri_damage_charge(&fm.m, CR_DAMAGE_OP_fracture_stress, sn);
        }
        if (a->dirty && load != NULL) split_actor(w, in, a, i, whole, u32, blow, &islands_left, &pieces_left, &fm);
    }
    cri_fracture_slice_ran(&fm); /* the inputs, joint loads and stress passes since the last slice */
    cr_model_stats *st = &w->stats.fracture;
    st->work = cri_damage_spent_ns(&fm.m);
    st->largest_slice = (uint32_t)((fm.largest_ps + 999u) / 1000u);
    st->waiting += r->queue_count;
    if (r->carry.actor1 != 0) st->waiting++; /* a break's dents still being carried */
}

void cri_fracture_model_after_commands(cr_world *w) {
    const cr_fracture_budget *fb = &w->def.damage.fracture;
    for (uint32_t i = 0; i < fb->body_capacity; ++i) {
        cr_fracture_actor *a = &cri_fracture_actors(w)[i];
        if (a->origin_index1 != 0 && a->splitting) cri_fracture_pieces_adopt(w, a, i);
    }
}

uint64_t cri_fracture_model_hash(const cr_world *w, uint64_t h) {
    const cr_fracture_budget *fb = &w->def.damage.fracture;
    for (uint32_t i = 0; i < fb->body_capacity; ++i) {
        const cr_fracture_actor *a = &cri_fracture_actors(w)[i];
        if (a->origin_index1 == 0) continue;
        h = cr_hash_u32(h, a->origin_index1);
        h = cr_hash_u32(h, a->whole_index1);
        h = cr_hash_u32(h, a->broken);
        h = cr_hash_u32(h, a->spawned);
        h = cr_hash_u32(h, a->settled);
        h = cr_hash_vec3(h, a->load_sum);
        const cr_fracture_bond *b = cri_fracture_bonds(w, a);
        for (uint32_t k = 0; k < a->bond_count; ++k) h = cr_hash_real(h, b[k].health);
        const cr_fracture_piece *p = cri_fracture_pieces(w, a);
        for (uint32_t k = 0; k < a->piece_count; ++k) {
            h = cr_hash_u32(h, p[k].body.index1);
            h = cr_hash_vec3(h, p[k].stress_u);
        }
    }
    if (fb->body_capacity > 0 && CR_DAMAGE(w)->fracture.queue_count > 0) h = cr_hash_u32(h, CR_DAMAGE(w)->fracture.queue_count);
    return fb->body_capacity > 0 ? cri_fracture_carry_hash(w, h) : h;
}

cr_status cr_fracture_get(const cr_world *w, cr_body_id id, cr_fracture_view *out) {
    if (w == NULL || out == NULL) return CR_ERR_NULL_ARGUMENT;
    memset(out, 0, sizeof *out);
    const cr_fracture_actor *a = actor_of(w, id);
    if (a == NULL || a->origin_index1 == 0) return CR_ERR_DEF_INVALID;
    out->piece_count = a->piece_count;
    out->bond_count = a->bond_count;
    out->bonds_broken = a->broken;
    out->pieces_spawned = a->spawned;
    out->whole = a->whole_index1 != 0 && !a->splitting;
    return CR_OK;
}

cr_real cr_fracture_get_bond_health(const cr_world *w, cr_body_id id, uint32_t bond) {
    if (w == NULL) return 0;
    const cr_fracture_actor *a = actor_of(w, id);
    if (a == NULL || a->origin_index1 == 0 || bond >= a->bond_count) return 0;
    return cri_fracture_bonds(w, a)[bond].health;
}

cr_body_id cr_fracture_get_piece_body(const cr_world *w, cr_body_id id, uint32_t piece) {
    cr_body_id none = {0, 0};
    if (w == NULL) return none;
    const cr_fracture_actor *a = actor_of(w, id);
    if (a == NULL || a->origin_index1 == 0 || piece >= a->piece_count) return none;
    cr_body_id b = cri_fracture_pieces(w, a)[piece].body;
    return cri_world_body_c(w, b) != NULL ? b : none;
}

uint32_t cri_fracture_model_surfaces(const cr_damage_def *d) { (void)d; return 0; } /* pieces are cooked: nothing moves a surface */
void cri_fracture_model_rebind(cr_world *w) { (void)w; }
