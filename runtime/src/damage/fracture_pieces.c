/* fracture_pieces.c — pieces become bodies (seed 001 §5: an artist's pieces
 * held by constraints that shared faces coincide; Blast: an actor splits into
 * islands that become actors of their own).
 *
 * A piece's place in the whole comes from the two cooked frames: both assets
 * were cooked from one mesh frame, so piece body -> whole body is the whole's
 * mesh_to_body after the inverse of the piece's. Its mass is the density
 * times its own asset's volume, which is what cr_body_create will give it.
 *
 * The split of a whole body, all in the end-of-step commands of one step:
 * destroy the whole, create one body per piece at its place with the
 * velocity of the whole's material point at the piece's centre of mass and
 * the whole's spin (sum m_i (v + w x r_i) = M v and sum (I_i w + m_i r_i x
 * (w x r_i)) = I w: linear and angular momentum kept to rounding), then a
 * fixed joint for each unbroken bond between two moving pieces. Pieces of an
 * island that holds an anchor of a static body are static bodies. Later, a
 * static piece cut off from every anchor is replaced by a moving one.
 *
 * A piece a static body frees gets its velocity from the blow that freed it
 * (fracture_blow.c: what the striker could have given it as a free body; at
 * rest if nothing struck), and starts one step of that velocity on (v dt), where it would be had it moved
 * in this step's position update like the body that struck it. Started in
 * place, its edges lie in the planes its static neighbours' edges lie in (a
 * wall's faces), the distance grids' normals there point diagonally, and the
 * solver's predicted-interference test (phi + dt u.n < 0) reads the piece's
 * leaving as approaching: it stopped dead in one step.
 *
 * Room is checked before anything is queued: the command queue, the world's
 * free body and joint slots, the step's piece budget, and for a dented whole
 * the carry (one break's dents at a time, fracture_carry.c). A split that
 * does not fit waits whole (counted), so nothing is ever half split. A dented
 * whole goes like any other: its dents are kept for its pieces as the split
 * is queued, and its pieces take them over in the steps after.
 */
#include "damage/stage.h"
#include "damage/fracture_model.h"

#include <stddef.h>
#include <string.h>

static bool in_box(cr_vec3 p, cr_vec3 lo, cr_vec3 hi) {
    return p.x >= lo.x && p.x <= hi.x && p.y >= lo.y && p.y <= hi.y && p.z >= lo.z && p.z <= hi.z;
}

void cri_fracture_pieces_init(cr_world *w, cr_fracture_actor *a, const cr_asset *whole, const cr_body *body) {
    cr_fracture_piece *pc = cri_fracture_pieces(w, a);
    memset(pc, 0, a->piece_count * sizeof *pc);
    for (uint32_t k = 0; k < a->piece_count; ++k) {
        const cr_asset *piece = cr_world_asset(w, a->def.first_piece_asset + k);
        pc[k].pose = cr_transform_mul(whole->mesh_to_body, cr_transform_inverse(piece->mesh_to_body));
        pc[k].mass = cr_mul(piece->volume, body->material.density);
        /* the anchor box is in the mesh frame, where the artist modelled the wall */
        pc[k].anchor = in_box(cr_transform_inv_point(whole->mesh_to_body, pc[k].pose.p), a->def.anchor_min, a->def.anchor_max);
        pc[k].island = 0;
    }
    a->min_area = CR_REAL_MAX;
    for (uint32_t k = 0; k < a->bond_count; ++k)
        if (whole->bonds[k].area < a->min_area) a->min_area = whole->bonds[k].area;
}

static cr_body_id id_of(const cr_world *w, uint32_t index1) {
    cr_body_id id = {index1, cr_world_bodies_c(w)[index1 - 1].generation};
    return id;
}

static uint32_t body_field(const cr_world *w, const cr_fracture_actor *a, uint32_t k) {
    return cri_fracture_piece_offset(w, a, k) + (uint32_t)offsetof(cr_fracture_piece, body);
}

/* The def of piece k's body at pose xf moving with (v, spin) of a body whose centre is at c. */
static cr_body_def piece_def(const cr_fracture_actor *a, const cr_body *from, uint32_t k, cr_transform xf,
                             cr_vec3 c, cr_vec3 v, cr_vec3 spin, bool is_static) {
    cr_body_def d = cr_default_body_def();
    d.type = is_static ? CR_BODY_STATIC : CR_BODY_DYNAMIC;
    d.position = xf.p;
    d.orientation = xf.q;
    if (!is_static) {
        d.linear_velocity = cr_v3_add(v, cr_v3_cross(spin, cr_v3_sub(xf.p, c)));
        d.angular_velocity = spin;
    }
    d.shape.type = CR_SHAPE_MESH;
    d.shape.asset = a->def.first_piece_asset + k;
    d.material = from->material;
    d.no_sleep = from->no_sleep != 0;
    d.user_data = from->user_data;
    d.filter = from->filter;
    d.gravity_scale = from->gravity_scale;
    d.linear_damping = from->linear_damping;
    d.angular_damping = from->angular_damping;
    return d;
}

uint32_t cri_fracture_spawn(cr_world *w, cr_fracture_actor *a, uint32_t actor_index, const cr_asset *whole,
                            const cr_damage_input *in, cr_vec3 *scratch, uint32_t piece_budget, cr_real dt,
                            cr_fracture_meter *fm, uint32_t *wait, uint32_t *over) {
    cr_fracture_piece *pc = cri_fracture_pieces(w, a);
    cr_fracture_bond *bonds = cri_fracture_bonds(w, a);
    const bool whole_now = a->whole_index1 != 0;
    const uint32_t count = a->piece_count;
    /* held: the island holds an anchor of a static whole (roots are the
     * lowest index of their island, so a root is final before its members) */
    uint32_t islands = 0;
    for (uint32_t k = 0; k < count; ++k) pc[k].held = 0, islands += pc[k].island == k;
    if (a->was_static)
        for (uint32_t k = 0; k < count; ++k)
            if (pc[k].anchor) pc[pc[k].island].held = 1;
    for (uint32_t k = 0; k < count; ++k) pc[k].held = pc[pc[k].island].held;
    /* what it takes: n bodies made, destroys, joints for the unbroken bonds between moving pieces */
    uint32_t n = 0, destroys = 0, joints = 0;
    if (whole_now) {
        if (islands < 2) return 0;
        n = count, destroys = 1;
        /* a dented whole's dents are kept for its pieces below (fracture_carry.c), so it goes like any other */
        cri_fracture_dents_keep(w, a);
    } else {
        for (uint32_t k = 0; k < count; ++k) n += pc[k].is_static && pc[k].mapped && !pc[k].held;
        destroys = a->dent_pieces ? 0 : n; /* dented, the old bodies go after their dents moved over (adopt) */
    }
    if (n == 0) return 0;
    for (uint32_t k = 0; k < a->bond_count; ++k) {
        const cr_asset_bond *g = &whole->bonds[k];
        if (bonds[k].broken || pc[g->a].held || pc[g->b].held) continue;
        joints += whole_now || (pc[g->a].is_static && pc[g->a].mapped);
    }
    /* one break's dents are carried at a time (fracture_carry.c): a dented
     * whole waits whole meanwhile, and so do this actor's static pieces
     * while its own pieces still take their dents over */
    bool carry_wait = a->dent_pieces && cri_fracture_carry_busy(w) &&
                      (whole_now || CR_DAMAGE(w)->fracture.carry.actor1 == actor_index + 1);
    if (n > piece_budget || cri_damage_commands_room(w) < destroys + n + joints || carry_wait) {
        *wait = 1;
        return 0;
    }
    if (w->def.body_capacity - w->body_count + destroys < n || w->def.joint_capacity - w->joint_count < joints) {
        *over = n; /* pieces left attached, this step */
        return 0;
    }
    const uint32_t joint_field = (uint32_t)offsetof(cr_fracture_bond, joint);
    /* what becoming bodies costs, charged now for the end of the step's
     * commands and adopt: per piece its def, blow, create and dent record;
     * a dented static piece's surface and grid moved to its new body */
    cri_damage_charge(&fm->m, CR_DAMAGE_OP_fracture_piece, n);
    cri_damage_charge(&fm->m, CR_DAMAGE_OP_fracture_stress, count); /* the held-island marks above */
    if (!whole_now && a->dent_pieces)
        for (uint32_t k = 0; k < count; ++k) {
            if (!(pc[k].is_static && pc[k].mapped && !pc[k].held)) continue;
            const cr_surface_copy *sc = cri_damage_surface_of(w, pc[k].body.index1);
            const cr_asset *v = sc != NULL ? cr_world_asset(w, sc->rest_slot) : NULL;
            if (v != NULL)
                cri_damage_charge(&fm->m, CR_DAMAGE_OP_fracture_refresh,
                                  (uint64_t)v->triangle_count + 3ull * v->vertex_count + v->sample_count +
                                      (uint64_t)v->sdf_dims[0] * v->sdf_dims[1] * v->sdf_dims[2]);
        }
    if (whole_now && a->dent_pieces) cri_fracture_carry_begin(w, a, actor_index, fm);
    if (whole_now) {
        const cr_body *b = &cr_world_bodies_c(w)[a->whole_index1 - 1];
        cr_transform xf = b->xf;
        cr_vec3 v = b->v, spin = b->w;
        cr_damage_defer_body_destroy(w, id_of(w, a->whole_index1));
        for (uint32_t k = 0; k < count; ++k) {
            pc[k].is_static = pc[k].held;
            pc[k].respawning = 1;
        }
        /* a static whole's freed pieces: the blow that freed them (fracture_blow.c) */
        if (a->was_static) cri_fracture_blow(w, a, whole, in, scratch);
        for (uint32_t k = 0; k < count; ++k) pc[k].body.index1 = 0, pc[k].body.generation = 0;
        for (uint32_t k = 0; k < count; ++k) {
            bool freed = a->was_static && !pc[k].held;
            cr_vec3 vk = freed ? scratch[k] : v;
            cr_transform at = cr_transform_mul(xf, pc[k].pose);
            if (freed) at.p = cr_v3_mad(at.p, dt, vk); /* one step on: see the header */
            cr_body_def d = piece_def(a, b, k, at, xf.p, vk, spin, pc[k].held != 0);
            cri_damage_defer_body_create_into(w, &d, body_field(w, a, k));
        }
        for (uint32_t k = 0; k < a->bond_count; ++k) {
            const cr_asset_bond *g = &whole->bonds[k];
            if (bonds[k].broken || pc[g->a].held || pc[g->b].held) continue;
            cr_joint_def jd = cr_default_joint_def();
            jd.type = CR_JOINT_FIXED;
            jd.anchor = cr_transform_point(xf, g->centroid);
            cri_damage_defer_joint_create_between(w, &jd, body_field(w, a, g->a), body_field(w, a, g->b),
                                                  cri_fracture_bond_offset(w, a, k) + joint_field);
        }
    } else {
        /* static pieces cut off from every anchor start to move: with the
         * blow that cut them off (fracture_blow.c), or at rest */
        for (uint32_t k = 0; k < count; ++k)
            if (pc[k].is_static && pc[k].mapped && !pc[k].held) pc[k].respawning = 1;
        cri_fracture_blow(w, a, whole, in, scratch);
        for (uint32_t k = 0; k < count; ++k)
            if (pc[k].respawning) pc[k].is_static = 0;
        for (uint32_t k = 0; k < count; ++k) {
            if (!pc[k].respawning) continue;
            const cr_body *b = cri_world_body_c(w, pc[k].body);
            cr_vec3 vk = scratch[k];
            cr_transform at = b->xf;
            at.p = cr_v3_mad(at.p, dt, vk); /* one step on: see the header */
            cr_body_def d = piece_def(a, b, k, at, at.p, vk, cr_v3_zero(), false);
            if (a->dent_pieces) pc[k].old_body = pc[k].body;
            else cr_damage_defer_body_destroy(w, pc[k].body);
            cri_damage_defer_body_create_into(w, &d, body_field(w, a, k));
        }
        for (uint32_t k = 0; k < a->bond_count; ++k) {
            const cr_asset_bond *g = &whole->bonds[k];
            if (bonds[k].broken || pc[g->a].held || pc[g->b].held || !pc[g->a].respawning) continue;
            /* the bond's centroid where piece a's (old, same-pose) body carries it */
            const cr_body *ba = cri_world_body_c(w, pc[g->a].body);
            cr_joint_def jd = cr_default_joint_def();
            jd.type = CR_JOINT_FIXED;
            jd.anchor = cr_transform_point(ba->xf, cr_transform_inv_point(pc[g->a].pose, g->centroid));
            cri_damage_defer_joint_create_between(w, &jd, body_field(w, a, g->a), body_field(w, a, g->b),
                                                  cri_fracture_bond_offset(w, a, k) + joint_field);
        }
    }
    a->splitting = 1;
    return n;
}

void cri_fracture_pieces_adopt(cr_world *w, cr_fracture_actor *a, uint32_t actor_index) {
    cr_fracture_piece *pc = cri_fracture_pieces(w, a);
    cr_fracture_slot *slots = cri_fracture_slots(w);
    bool pending = false;
    uint32_t bodies = 0;
    for (uint32_t k = 0; k < a->piece_count; ++k) {
        cr_fracture_piece *p = &pc[k];
        if (p->respawning) {
            cr_body *b = cri_world_body(w, p->body);
            if (b == NULL) {
                pending = true; /* its create waits in the queue (the world was full) */
                continue;
            }
            b->models |= CR_MODEL_FRACTURE;
            slots[p->body.index1 - 1].actor1 = actor_index + 1;
            slots[p->body.index1 - 1].piece = k;
            p->mapped = 1;
            p->respawning = 0;
            if (a->dent_pieces && p->old_body.index1 != 0) cri_fracture_dents_replace(w, a, k);
            else if (a->dent_pieces && cri_fracture_dents_attach(w, a, k))
                p->carrying = CR_DAMAGE(w)->fracture.carry.actor1 == actor_index + 1 && k >= CR_DAMAGE(w)->fracture.carry.piece;
        }
        bodies += p->mapped;
    }
    a->spawned = bodies;
    /* its pieces are bodies: the break is done, unless their dents are still to come (fracture_carry.c) */
    if (!pending && CR_DAMAGE(w)->fracture.carry.actor1 != actor_index + 1) cri_fracture_committed(w, a->dirty_step);
    if (!pending) a->splitting = 0;
}
