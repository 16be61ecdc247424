/* fracture_blow.c — the blow that frees pieces of a static actor: what the
 * bodies that struck it could have given free pieces, and what goes back to
 * them (docs/fracture.md, "Energy at the break of a static body").
 *
 * A static body takes an impact without moving: the solver stops the
 * striker against it, and a ball that breaks a wall has already bounced off
 * when the wall splits at the end of the step. Handing the freed pieces the
 * whole impulse the wall took would keep momentum but not energy: a light
 * brick hit by a heavy ball would leave faster than the ball came, and the
 * ball would bounce back instead of going through the hole. So in the step
 * the pieces are freed, the blow is redone as the two-body impact it would
 * have been had they been free:
 *
 *   strikers  the other bodies of this step's impacts on the actor's static
 *             bodies (the whole, or its static pieces) that landed within
 *             damage_radius of a broken bond: they broke it. Dynamic ones
 *             have their mass, kinematic ones count as infinitely heavy;
 *             static bodies and the actor's own pieces do not strike.
 *             Several strikers act as one body of their summed mass,
 *             approaching at their impulse-weighted approach speed;
 *   weights   each freed piece takes the blow by the damage falloff at its
 *             centre from the strikers' impulse-weighted point,
 *             w = max(0, 1 - d / damage_radius) (the nearest freed piece
 *             alone when none is in reach); an island moves as one (its
 *             unbroken bonds become fixed joints), with the mass-weighted
 *             mean of its pieces' weights, scaled so the island struck most
 *             squarely has 1: f_r in [0, 1];
 *   impact    the struck mass is M = sum over islands of f_r M_r, and the
 *             strikers give it P = (1 + e) mu v_n along n, mu = m M / (m + M)
 *             the reduced mass, n the direction of the impulse J the wall
 *             took from them (normal and friction together: in a dented
 *             crater the points push along several normals), v_n their
 *             approach speed along n, e the smallest restitution of the
 *             pairs (the solver's rule); never more than |J|;
 *   shares    island r starts with velocity f_r P n / M: the freed pieces'
 *             momenta sum to P n, and no piece leaves faster than a free
 *             piece of its mass struck alone would (f_r / (m + M) <=
 *             1 / (m + M_r), since M >= f_r M_r);
 *   return    each impact's striker gets back what the wall took in it less
 *             its share of P n by impulse, J_i - (|J_i| / sum |J|) P n, at
 *             the point it struck, so it goes on through the hole: strikers
 *             and freed pieces carry the momentum the strikers brought, to
 *             rounding, whatever their number.
 *
 * No striker (the game's damage, a hit that waited in the queue, stress
 * alone): the freed pieces start at rest, the static actor's own motion.
 * The return changes the striker's velocity at once, in this step's damage
 * stage (the striker is a body already; only the pieces wait for the end-of-
 * step commands), and only once the split is sure to be queued: the caller
 * checked the room for it first (fracture_pieces.c).
 */
#include "damage/stage.h"
#include "damage/fracture_model.h"

/* body slot + 1 of the actor's i-th static body (the whole, or piece i's
 * static body), 0 if there is none; *to_whole its frame -> the whole's */
static uint32_t still_body(const cr_world *w, const cr_fracture_actor *a, uint32_t i, cr_transform *to_whole) {
    *to_whole = cr_transform_identity();
    if (a->whole_index1 != 0) return i == 0 ? a->whole_index1 : 0;
    const cr_fracture_piece *p = &cri_fracture_pieces(w, a)[i];
    const cr_body *b = p->mapped ? cri_world_body_c(w, p->body) : NULL;
    if (b == NULL || b->type != CR_BODY_STATIC) return 0;
    *to_whole = p->pose;
    return p->body.index1;
}

static uint32_t still_count(const cr_fracture_actor *a) { return a->whole_index1 != 0 ? 1 : a->piece_count; }

/* the body an impact names, if it can strike the actor: alive, moving
 * (dynamic or kinematic), not one of the actor's own pieces */
static const cr_body *striker_of(const cr_world *w, const cr_fracture_actor *a, const cr_damage_input *in, cr_body_id id) {
    if (id.index1 == 0 || id.index1 > in->body_high) return NULL;
    const cr_body *b = &cr_world_bodies_c(w)[id.index1 - 1];
    if (!b->alive || b->generation != id.generation || b->type == CR_BODY_STATIC) return NULL;
    const cr_fracture_slot *s = &cri_fracture_slots(w)[id.index1 - 1];
    if (s->actor1 != 0 && &cri_fracture_actors(w)[s->actor1 - 1] == a) return NULL;
    return b;
}

/* an impact at p (whole frame) within damage_radius of a broken bond: it helped break the actor */
static bool near_break(const cr_world *w, const cr_fracture_actor *a, const cr_asset *whole, cr_vec3 p) {
    const cr_fracture_bond *bonds = cri_fracture_bonds(w, a);
    cr_real r2 = cr_mul(a->def.damage_radius, a->def.damage_radius);
    for (uint32_t k = 0; k < a->bond_count; ++k)
        if (bonds[k].broken && cr_v3_len_sq(cr_v3_sub(whole->bonds[k].centroid, p)) < r2) return true;
    return false;
}

/* A walk over the impacts of this step that strike the actor, in a fixed
 * order (its static bodies in piece order, then each one's impacts in event
 * order): next_strike returns the next one, or NULL at the end, with the
 * static body it landed on and that body's frame -> the whole's. */
typedef struct blow_walk {
    uint32_t body, at, end;
    cr_transform to_whole;
    const cr_body *still;
} blow_walk;

static const cr_body_impact *next_strike(const cr_world *w, const cr_fracture_actor *a, const cr_asset *whole,
                                         const cr_damage_input *in, blow_walk *it) {
    for (;;) {
        while (it->at >= it->end) {
            if (it->body >= still_count(a)) return NULL;
            uint32_t slot1 = still_body(w, a, it->body++, &it->to_whole);
            if (slot1 == 0 || slot1 > in->body_high) continue;
            it->still = &cr_world_bodies_c(w)[slot1 - 1];
            it->at = in->impact_start[slot1 - 1];
            it->end = in->impact_start[slot1];
        }
        const cr_body_impact *im = &in->impacts[it->at++];
        cr_vec3 j = im->impulse_vector;
        if (striker_of(w, a, in, im->other) == NULL || (j.x == 0 && j.y == 0 && j.z == 0)) continue;
        if (!near_break(w, a, whole, cr_transform_point(it->to_whole, im->point))) continue;
        return im;
    }
}

/* no body is counted twice in the strikers' mass: true if an impact before
 * `im` (in the walk's order) names the same body */
static bool named_before(const cr_world *w, const cr_fracture_actor *a, const cr_asset *whole, const cr_damage_input *in,
                         const cr_body_impact *im) {
    blow_walk it = {0, 0, 0, cr_transform_identity(), NULL};
    for (const cr_body_impact *jm; (jm = next_strike(w, a, whole, in, &it)) != im;)
        if (jm->other.index1 == im->other.index1) return true;
    return false;
}

void cri_fracture_blow(cr_world *w, cr_fracture_actor *a, const cr_asset *whole, const cr_damage_input *in, cr_vec3 *vel) {
    cr_fracture_piece *pc = cri_fracture_pieces(w, a);
    const uint32_t count = a->piece_count;
    for (uint32_t k = 0; k < count; ++k) vel[k] = cr_v3_zero();
    if (in == NULL || in->impacts == NULL) return;
    /* 1. the strikers together: J (world), sum |J_i|, their impulse-weighted
     * point (whole frame) and relative velocity (world), mass, restitution */
    cr_vec3 j = cr_v3_zero(), point = cr_v3_zero(), u = cr_v3_zero();
    cr_real total = 0, mass = 0, e = CR_REAL_MAX;
    bool immovable = false;
    blow_walk it = {0, 0, 0, cr_transform_identity(), NULL};
    for (const cr_body_impact *im; (im = next_strike(w, a, whole, in, &it)) != NULL;) {
        const cr_body *s = striker_of(w, a, in, im->other);
        cr_real ji = cr_v3_len(im->impulse_vector);
        total += ji;
        j = cr_v3_add(j, cr_quat_rotate(it.still->xf.q, im->impulse_vector));
        point = cr_v3_mad(point, ji, cr_transform_point(it.to_whole, im->point));
        u = cr_v3_mad(u, ji, cr_quat_rotate(it.still->xf.q, im->velocity));
        e = cr_min(e, cr_min(s->material.restitution, it.still->material.restitution));
        if (s->type != CR_BODY_DYNAMIC) immovable = true;
        else if (!named_before(w, a, whole, in, im)) mass += s->mass;
    }
    cr_real jn = cr_v3_len(j);
    if (total <= 0 || jn <= 0) return; /* no striker: the freed pieces start at rest */
    point = cr_v3_scale(point, cr_div(CR_R(1), total));
    /* 2. weights: vel[root].x the island's freed mass, .y its sum of m w */
    const cr_real radius = a->def.damage_radius;
    cr_real nearest = CR_REAL_MAX, weighted = 0;
    uint32_t near_k = count;
    for (uint32_t k = 0; k < count; ++k) {
        if (!pc[k].respawning || pc[k].held) continue; /* the pieces freed now */
        cr_real d = cr_v3_len(cr_v3_sub(pc[k].pose.p, point));
        if (d < nearest) nearest = d, near_k = k;
        cr_real mw = d < radius ? cr_mul(pc[k].mass, CR_R(1) - cr_div(d, radius)) : 0;
        vel[pc[k].island].x += pc[k].mass;
        vel[pc[k].island].y += mw;
        weighted += mw;
    }
    if (near_k == count) return;
    if (weighted <= 0) vel[pc[near_k].island].y = vel[pc[near_k].island].x; /* none in reach: the nearest takes it */
    /* f_r = (y / x) / top, top the largest y / x; M = sum f_r x = sum y / top */
    cr_real top = 0, sum_y = 0;
    for (uint32_t k = 0; k < count; ++k) {
        if (pc[k].island != k || !pc[k].respawning || pc[k].held || vel[k].x <= 0) continue;
        top = cr_max(top, cr_div(vel[k].y, vel[k].x));
        sum_y += vel[k].y;
    }
    if (top <= 0) {
        for (uint32_t k = 0; k < count; ++k) vel[k] = cr_v3_zero();
        return;
    }
    const cr_real struck = cr_div(sum_y, top);
    /* 3. the two-body impact along n */
    const cr_vec3 n = cr_v3_scale(j, cr_div(CR_R(1), jn));
    const cr_real approach = cr_div(cr_v3_dot(u, n), total);
    const cr_real mu = immovable ? struck : cr_div(cr_mul(mass, struck), mass + struck);
    cr_real p = approach > 0 ? cr_mul(cr_mul(CR_R(1) + cr_max(e, 0), mu), approach) : 0;
    p = cr_min(p, jn);
    /* 4. the rest back to each impact's striker, its share of p by impulse */
    blow_walk back = {0, 0, 0, cr_transform_identity(), NULL};
    for (const cr_body_impact *im; (im = next_strike(w, a, whole, in, &back)) != NULL;) {
        if (striker_of(w, a, in, im->other)->type != CR_BODY_DYNAMIC) continue;
        cr_vec3 ji = cr_quat_rotate(back.still->xf.q, im->impulse_vector);
        cr_real share = cr_div(cr_mul(p, cr_v3_len(im->impulse_vector)), total);
        cr_body_apply_impulse(w, im->other, cr_v3_mad(ji, -share, n), cr_transform_point(back.still->xf, im->point));
    }
    /* 5. f_r into each freed root's .z, then each freed piece's velocity
     * f_r p n / M, from the last piece down: a root is its island's lowest
     * index, so its members read its entry before it is overwritten */
    for (uint32_t k = 0; k < count; ++k)
        if (pc[k].island == k && pc[k].respawning && !pc[k].held && vel[k].x > 0)
            vel[k].z = cr_div(cr_div(vel[k].y, vel[k].x), top);
    const cr_vec3 per_f = cr_v3_scale(n, cr_div(p, struck));
    for (uint32_t k = count; k-- > 0;) {
        bool freed = pc[k].respawning && !pc[k].held;
        vel[k] = freed ? cr_v3_scale(per_f, vel[pc[k].island].z) : cr_v3_zero();
    }
}
