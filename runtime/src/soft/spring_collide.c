/* spring_collide.c — a soft body's collisions (seed 004's "collision detection
 * and response", done with the rigid core's signed distances).
 *
 * Seed 004 intersects edges with triangles and collects the points inside by
 * a depth-first search; crumple already has what that search computes: every
 * rigid body's signed distance (seed 002's grid for meshes, closed forms for
 * boxes, spheres and planes). So each particle, a sphere of the body's
 * particle radius, is tested against the signed distance of every rigid body
 * whose bounding sphere reaches the soft body's bounds, in every substep:
 *
 *   - push-out: the particle moves out along the normal by its depth (the
 *     rigid body is not moved; its velocity is what the impulse changes);
 *   - impulse: the relative normal velocity is removed (restitution for
 *     approaches faster than 1 m/s) with the effective mass of both sides,
 *     1/m_p + 1/M + (r x n) I^-1 (r x n), plus Coulomb friction up to mu J;
 *     the rigid body gets the equal and opposite impulse, so momentum is
 *     exchanged exactly (to rounding) and a soft ball pushes a light box and
 *     is pushed by a heavy one. A sleeping rigid body is static unless the
 *     impulse would move it faster than the world's sleep speed: then it wakes.
 *
 * Soft against soft: particles of different bodies closer than the sum of
 * their radii push apart (mass weighted, so the centre of mass stays) and
 * lose their approach velocity with equal and opposite impulses. The pairs
 * are found once per step, with a margin for the step's motion, between the
 * particles of each body inside another's grown bounds (body pairs in slot
 * order, particles in index order: deterministic); pairs beyond the capacity
 * are counted, not kept. Between two bodies with surface_contacts (the
 * default) the particles meet the other's triangles (soft_triangle.c) and
 * these spheres are the backstop: of the skin at rest, and in an impact a
 * brake on the approach past 1 m/s within the soft radius (no push).
 *
 * Static friction (against bodies that do not move, and between soft
 * particles) undoes all the contact slid since its last pass, not only the
 * substep's velocity: push-outs and spring corrections are not velocity and
 * escaped it (a stack of two soft cubes walked at 2.3 cm/s).
 */
#include "soft/mass_spring.h"
#include "geometry/shape.h"
#include "base/inertia.h"
#include "base/check.h"

#include <string.h>

#define CR_SOFT_REST_SPEED CR_R(1.0) /* m/s: slower approaches rest (restitution 0) */

static uint64_t al16(uint64_t x) { return (x + 15u) & ~(uint64_t)15u; }

uint64_t cri_soft_collide_scratch_bytes(const cr_world_def *def) {
    uint64_t P = def->spring.particle_capacity;
    /* two lists of particles inside a partner's bounds (and the second's
     * positions), and the pairs */
    return 4 * al16(P * 4u + 4u) + 2 * al16(P * (uint64_t)sizeof(cr_real) + 16u) + al16(P * (uint64_t)sizeof(cr_vec3) + 16u) +
           2 * al16(P * CR_SOFT_PAIRS_PER_PARTICLE * 8u + 8u) + 64u;
}

uint32_t cri_soft_rigid_candidates(cr_world *w, const cr_soft_body *sb, cr_real reach, uint32_t *out, uint32_t capacity,
                                   uint32_t *overflow) {
    const cr_body *bodies = cr_world_bodies_c(w);
    uint32_t n = 0;
    cr_real grow = sb->radius + reach;
    cr_vec3 lo = cr_v3_sub(sb->bounds_min, cr_v3(grow, grow, grow)), hi = cr_v3_add(sb->bounds_max, cr_v3(grow, grow, grow));
    for (uint32_t i = 0; i < w->body_high; ++i) {
        const cr_body *b = &bodies[i];
        if (!b->alive || b->disabled) continue;
        if (b->shape.type != CR_SHAPE_PLANE) {
            cr_real r = b->bound_radius + cr_mul(cr_v3_len(b->v), cr_mul(w->def.spring.max_dt, CR_R(2)));
            cr_vec3 c = b->xf.p;
            if (c.x + r < lo.x || c.y + r < lo.y || c.z + r < lo.z || c.x - r > hi.x || c.y - r > hi.y || c.z - r > hi.z)
                continue;
        }
        if (n < capacity) out[n++] = i;
        else ++*overflow;
    }
    return n;
}

/* The impulse between particle `pt` (already pushed out, touching along n,
 * the rigid body's outward normal) and rigid body b: the relative normal
 * velocity removed (restitution above CR_SOFT_REST_SPEED), Coulomb friction,
 * equal and opposite. */
/* The hit record of soft body `soft` on rigid `slot` this step: found, or
 * started when this contact approaches faster than the events' speed
 * (NULL when it does not, or when the step's room is used up: counted). */
static cr_soft_hit *hit_of(cr_soft_hits *hits, uint32_t soft, uint32_t slot, cr_real vn) {
    if (hits == NULL) return NULL;
    for (uint32_t k = 0; k < hits->count; ++k)
        if (hits->hit[k].soft == soft && hits->hit[k].rigid == slot) return &hits->hit[k];
    if (-vn < hits->min_speed || vn >= 0) return NULL; /* looking up only */
    if (hits->count >= hits->capacity) {
        hits->overflow++;
        return NULL;
    }
    cr_soft_hit *h = &hits->hit[hits->count++];
    memset(h, 0, sizeof *h);
    h->soft = soft, h->rigid = slot;
    return h;
}

static void contact_impulse(cr_world *w, cr_body *b, uint32_t slot, const cr_mat3 *inv_i, cr_particle *pt, cr_vec3 n,
                            cr_real mu, cr_real e_max, cr_real push_speed, cr_real h, cr_soft_hits *hits, bool may_start,
                            uint32_t soft, cr_real roll_arm, cr_soft_hit **hp, cr_vec3 at, const cr_vec3 *prev) {
    bool dynamic = b->type == CR_BODY_DYNAMIC;
    cr_vec3 rel = cr_v3_sub(pt->x, b->xf.p);
    bool sleeping = dynamic && b->asleep;
    cr_vec3 vb = (b->type == CR_BODY_STATIC || sleeping) ? cr_v3_zero() : cr_v3_add(b->v, cr_v3_cross(b->w, rel));
    cr_vec3 vrel = cr_v3_sub(pt->v, vb);
    cr_real vn = cr_v3_dot(vrel, n);
    if (vn >= 0 && push_speed <= 0) return;
    cr_real wb = 0;
    if (dynamic) {
        cr_vec3 rn = cr_v3_cross(rel, n);
        wb = b->inv_mass + cr_v3_dot(rn, cr_mat3_mul_v3(*inv_i, rn));
    }
    cr_real e = vn < -CR_SOFT_REST_SPEED ? e_max : 0;
    cr_real jn = vn < 0 ? cr_div(-cr_mul(CR_R(1) + e, vn), pt->inv_mass + wb) : 0;
    if (sleeping) {
        /* a resting push leaves a sleeping body asleep (and static); a hard one wakes it */
        if (cr_mul(jn, b->inv_mass) > w->def.sleep_linear) {
            cri_world_wake(w, slot);
            sleeping = false;
        } else {
            wb = 0;
            jn = vn < 0 ? cr_div(-cr_mul(CR_R(1) + e, vn), pt->inv_mass) : 0;
        }
    }
    /* the push-out counts as an impulse for friction (pen / h over the
     * inverse masses): a particle pressed against a wall by its neighbours,
     * with no approach speed of its own, still holds by friction */
    cr_real j_push = cr_div(push_speed, pt->inv_mass + wb);
    cr_vec3 J = cr_v3_scale(n, jn);
    cr_vec3 vt = cr_v3_sub(vrel, cr_v3_scale(n, vn));
    cr_real vt_len;
    cr_vec3 t = cr_v3_normalize_len(vt, &vt_len);
    /* Static friction holds the position too: the velocity this substep
     * moved the particle with (gravity's g h included) has already carried
     * it along the surface by vt h, which a velocity impulse alone never
     * takes back, so a particle pressed to a wall would creep down at g h
     * (2 cm/s at 480 substeps a second) however rough the wall. Against a
     * body that does not move (static, asleep) what is undone is all the
     * particle slid since its last contacts (prev): besides vt h, the
     * position push-outs of soft pairs and the springs' corrections, which
     * are not velocity and escaped friction: a stack of two soft cubes walked
     * across the ground at 2.3 cm/s for ever, pushed by its own contacts. */
    cr_vec3 slide = cr_v3_scale(vt, h);
    if (prev != NULL && (b->type == CR_BODY_STATIC || sleeping)) {
        cr_vec3 moved = cr_v3_sub(pt->x, *prev);
        slide = cr_v3_sub(moved, cr_v3_scale(n, cr_v3_dot(moved, n)));
    }
    cr_real slide_len = cr_v3_len(slide);
    if (vt_len > CR_REAL_EPS || slide_len > CR_REAL_EPS) {
        cr_real stick = cr_div(cr_max(vt_len, cr_div(slide_len, h)), pt->inv_mass + wb), limit = cr_mul(mu, jn + j_push);
        if (vt_len > CR_REAL_EPS) J = cr_v3_mad(J, -cr_min(cr_div(vt_len, pt->inv_mass + wb), limit), t);
        if (stick <= limit) pt->x = cr_v3_sub(pt->x, slide);
    }
    pt->v = cr_v3_mad(pt->v, pt->inv_mass, J);
    /* an impact event's record: the fastest approach's point, normal and
     * velocity, and every impulse of the pair from then on */
    if (*hp == NULL && hits != NULL && may_start && vn < -hits->min_speed) *hp = hit_of(hits, soft, slot, vn);
    cr_soft_hit *hit = *hp;
    if (!dynamic && hits != NULL) {
        /* for the rolling resistance (mass_spring.c roll_resist) */
        cr_real jr = jn + j_push;
        hits->roll_jn += jr;
        hits->roll_at = cr_v3_mad(hits->roll_at, jr, at);
        hits->roll_arm = cr_max(hits->roll_arm, cr_max(roll_arm, b->material.rolling_friction));
    }
    if (hit != NULL) {
        if (vn < hit->vn) hit->vn = vn, hit->point = at, hit->normal = n, hit->vrel = vrel;
        hit->jn += jn;
        hit->j = cr_v3_add(hit->j, J);
    }
    if (dynamic && !sleeping) {
        b->v = cr_v3_mad(b->v, -b->inv_mass, J);
        b->w = cr_v3_sub(b->w, cr_mat3_mul_v3(*inv_i, cr_v3_cross(rel, J)));
    }
}

/* Points along a box's edges, one per soft radius: the rigid body's samples
 * against the soft surface (the particles' spheres). A particle pushed out
 * of a box by its distance alone slides off round an edge, and the edge then
 * passes between particles; against these points it cannot. */
/* Only the edges whose world bounds (from the box pose `xf`) reach [lo, hi]
 * are walked: a wall's far edges, generated every substep for every body,
 * were a third of the particle-against-rigid time. */
static uint32_t box_edge_points(cr_vec3 he, cr_real spacing, cr_vec3 *out, uint32_t cap, cr_transform xf, cr_vec3 lo,
                                cr_vec3 hi) {
    uint32_t n = 0;
    const cr_real h[3] = {he.x, he.y, he.z};
    for (int axis = 0; axis < 3; ++axis) {
        int32_t k = cr_floor_int(cr_div(h[axis] + h[axis], spacing)) + 1;
        if (k < 1) k = 1;
        if (k > 32) k = 32;
        int u = (axis + 1) % 3, v = (axis + 2) % 3;
        for (int corner = 0; corner < 4; ++corner) {
            cr_real e0[3], e1[3];
            e0[axis] = -h[axis], e1[axis] = h[axis];
            e0[u] = e1[u] = (corner & 1) ? h[u] : -h[u];
            e0[v] = e1[v] = (corner & 2) ? h[v] : -h[v];
            cr_vec3 a = cr_transform_point(xf, cr_v3(e0[0], e0[1], e0[2]));
            cr_vec3 b = cr_transform_point(xf, cr_v3(e1[0], e1[1], e1[2]));
            cr_vec3 emin = cr_v3_min(a, b), emax = cr_v3_max(a, b);
            if (emax.x < lo.x || emax.y < lo.y || emax.z < lo.z || emin.x > hi.x || emin.y > hi.y || emin.z > hi.z)
                continue;
            for (int32_t j = 0; j <= k; ++j) {
                if (n >= cap) return n;
                cr_real c[3];
                c[axis] = -h[axis] + cr_div(cr_mul(h[axis] + h[axis], cr_from_int(j)), cr_from_int(k));
                c[u] = (corner & 1) ? h[u] : -h[u];
                c[v] = (corner & 2) ? h[v] : -h[v];
                out[n++] = cr_v3(c[0], c[1], c[2]);
            }
        }
    }
    return n;
}

uint32_t cri_soft_collide_rigid(cr_world *w, cr_soft_body *sb, uint32_t *cand, uint32_t n_cand, cr_real h,
                               cr_real reach, cr_soft_hits *hits, cr_vec3 *prev) {
    uint32_t soft = (uint32_t)(sb - cri_soft_bodies(w));

    cr_real inv_h = cr_div(CR_R(1), h);
    cr_body *bodies = cr_world_bodies(w);
    cr_particle *p = cri_soft_particles(w) + sb->first_particle;
    cr_real r = sb->radius;
    uint32_t contacts = 0;
    for (uint32_t c = 0; c < n_cand; ++c) {
        uint32_t slot = cand[c] & ~CR_SOFT_TOUCH_BIT;
        uint32_t before = contacts;
        if (hits != NULL) hits->roll_jn = 0, hits->roll_at = cr_v3_zero(), hits->roll_arm = 0;
        cr_body *b = &bodies[slot];
        bool plane = b->shape.type == CR_SHAPE_PLANE;
        cr_mat3 inv_i = cr_mat3_diag(cr_v3_zero());
        if (b->type == CR_BODY_DYNAMIC) {
            cr_mat3 rot = cr_mat3_from_quat(b->xf.q);
            inv_i = cri_inertia_inv_world(b, rot);
        }
        /* a plane's bound is CR_REAL_MAX, and a huge body's squared bound
         * overflows fixed point: those skip the sphere test */
        bool unbounded = plane || b->bound_radius > CR_R(1000);
        cr_real reach2 = unbounded ? 0 : cr_sq(b->bound_radius + sb->soft_radius);
        cr_real mu = cr_sqrt(cr_mul(sb->friction, b->material.friction));
        cr_soft_hit *hit = hit_of(hits, soft, slot, 0); /* this pair's record, if it was hit already this step */
        /* touching since last step: a resting or rolling contact, not a new impact */
        bool was_touching = false;
        for (uint32_t k = 0; k < CR_SOFT_TOUCHED; ++k) was_touching |= sb->touched[k] == slot + 1;
        bool fresh = !was_touching;
        cr_real e_max = cr_max(sb->restitution, b->material.restitution);
        /* a box's world bounds (|R| h): a wall's bounding sphere holds the
         * whole pile, its bounds only the particles near it */
        bool box = b->shape.type == CR_SHAPE_BOX;
        cr_vec3 ext = cr_v3_zero();
        if (box) {
            cr_mat3 rot = cr_mat3_from_quat(b->xf.q);
            cr_vec3 he = b->shape.half_extents;
            ext.x = cr_mul(cr_abs(rot.cx.x), he.x) + cr_mul(cr_abs(rot.cy.x), he.y) + cr_mul(cr_abs(rot.cz.x), he.z) + r;
            ext.y = cr_mul(cr_abs(rot.cx.y), he.x) + cr_mul(cr_abs(rot.cy.y), he.y) + cr_mul(cr_abs(rot.cz.y), he.z) + r;
            ext.z = cr_mul(cr_abs(rot.cx.z), he.x) + cr_mul(cr_abs(rot.cy.z), he.y) + cr_mul(cr_abs(rot.cz.z), he.z) + r;
            /* a wall far from this body: nothing of it can touch (bounds are
             * the last step's, grown by this step's motion) */
            cr_real g = sb->soft_radius + sb->soft_radius + reach;
            cr_vec3 c0 = b->xf.p;
            if (c0.x + ext.x < sb->bounds_min.x - g || c0.x - ext.x > sb->bounds_max.x + g ||
                c0.y + ext.y < sb->bounds_min.y - g || c0.y - ext.y > sb->bounds_max.y + g ||
                c0.z + ext.z < sb->bounds_min.z - g || c0.z - ext.z > sb->bounds_max.z + g)
                continue;
        }
        /* a plane's distance is its local y: with the plane's normal in the
         * world once, each particle is one dot product (the ground meets
         * every particle every substep; for an unrotated plane the numbers
         * are the same to the bit as the rotated-into-its-frame ones) */
        cr_vec3 plane_n = plane ? cr_quat_rotate(b->xf.q, cr_v3(0, CR_R(1), 0)) : cr_v3_zero();
        for (uint32_t i = 0; i < sb->particle_count; ++i) {
            cr_vec3 rel = cr_v3_sub(p[i].x, b->xf.p);
            cr_vec3 n;
            cr_real d;
            if (plane) {
                d = cr_v3_dot(plane_n, rel);
                if (d >= r) continue;
                n = plane_n;
            } else {
                if (!unbounded && cr_v3_len_sq(rel) > reach2) continue;
                if (box && (cr_abs(rel.x) > ext.x || cr_abs(rel.y) > ext.y || cr_abs(rel.z) > ext.z)) continue;
                cr_vec3 local = cr_quat_inv_rotate(b->xf.q, rel), nl;
                d = cri_shape_sdf(w, &b->shape, local, local, &nl);
                if (d >= r) continue;
                n = cr_quat_rotate(b->xf.q, nl);
            }
            p[i].x = cr_v3_mad(p[i].x, r - d, n);
            ++contacts;
            contact_impulse(w, b, slot, &inv_i, &p[i], n, mu, e_max, cr_mul(r - d, inv_h), h, hits, fresh, soft, sb->rolling_friction, &hit,
                            cr_v3_mad(p[i].x, -r, n), prev != NULL ? &prev[i] : NULL);
        }
        /* the rigid body's own samples against the particles: a box's edges
         * (one point per soft radius), a mesh's sample vertices */
        cr_vec3 pts[12 * 33];
        uint32_t np = 0;
        const cr_vec3 *local_pts = pts;
        cr_real R = r, R2 = cr_mul(R, R);
        cr_real gr = R + R + reach;
        cr_vec3 lo = cr_v3_sub(sb->bounds_min, cr_v3(gr, gr, gr)), hi = cr_v3_add(sb->bounds_max, cr_v3(gr, gr, gr));
        if (b->shape.type == CR_SHAPE_BOX) {
            np = box_edge_points(b->shape.half_extents, sb->soft_radius, pts, 12 * 33, b->xf, lo, hi);
        } else if (b->shape.type == CR_SHAPE_MESH) {
            const cr_asset *a = cr_world_asset(w, b->shape.asset);
            if (a != NULL) local_pts = a->samples, np = a->sample_count;
        }
        if (contacts > before) cand[c] |= CR_SOFT_TOUCH_BIT;
        if (np == 0) {
            if (hits != NULL) cri_soft_roll_resist(w, sb, hits);
            continue;
        }
        for (uint32_t k = 0; k < np; ++k) {
            cr_vec3 q = cr_transform_point(b->xf, local_pts[k]);
            /* the step's bounds, grown: points far from the body touch none of it */
            if (q.x < lo.x || q.y < lo.y || q.z < lo.z || q.x > hi.x || q.y > hi.y || q.z > hi.z) continue;
            for (uint32_t i = 0; i < sb->particle_count; ++i) {
                cr_vec3 dq = cr_v3_sub(p[i].x, q);
                cr_real d2 = cr_v3_len_sq(dq);
                if (d2 >= R2) continue;
                cr_real dist;
                cr_vec3 n = cr_v3_normalize_len(dq, &dist);
                if (dist <= CR_REAL_EPS) continue;
                p[i].x = cr_v3_mad(p[i].x, R - dist, n);
                ++contacts;
                contact_impulse(w, b, slot, &inv_i, &p[i], n, mu, e_max, cr_mul(R - dist, inv_h), h, hits, fresh, soft, sb->rolling_friction, &hit, q, NULL);
            }
        }
        if (hits != NULL) cri_soft_roll_resist(w, sb, hits);
        if (contacts > before) cand[c] |= CR_SOFT_TOUCH_BIT;
    }
    /* where each particle is after its rigid contacts: the next substep's
     * static friction undoes what slid from here */
    if (prev != NULL)
        for (uint32_t i = 0; i < sb->particle_count; ++i) prev[i] = p[i].x;
    return contacts;
}

/* The particles of `body` inside the box [lo, hi], as global indices. */
static uint32_t particles_in(const cr_particle *p, const cr_soft_body *body, cr_vec3 lo, cr_vec3 hi, uint32_t *out) {
    uint32_t n = 0;
    for (uint32_t k = 0; k < body->particle_count; ++k) {
        cr_vec3 x = p[body->first_particle + k].x;
        if (x.x >= lo.x && x.y >= lo.y && x.z >= lo.z && x.x <= hi.x && x.y <= hi.y && x.z <= hi.z)
            out[n++] = body->first_particle + k;
    }
    return n;
}

uint32_t cri_soft_find_pairs(cr_world *w, const cr_real *motion, uint32_t *pairs, uint32_t capacity, uint32_t *overflow,
                             uint32_t *nearest, uint32_t *n_nearest) {
    cr_soft_region *r = cri_soft_region(w);
    uint32_t P = r->particle_count;
    *overflow = 0;
    if (P == 0) return 0;
    const cr_soft_body *bodies = cri_soft_bodies(w);
    const cr_particle *p = cri_soft_particles(w);
    uint32_t body_high = r->body_high;
    uint32_t mark = cr_arena_pos(&w->scratch);
    uint32_t o_a = cri_arena_push_uninit(&w->scratch, P * 4u + 4u, 16), o_b = cri_arena_push_uninit(&w->scratch, P * 4u + 4u, 16);
    uint32_t o_na = cri_arena_push_uninit(&w->scratch, P * 4u + 4u, 16), o_nb = cri_arena_push_uninit(&w->scratch, P * 4u + 4u, 16);
    uint32_t o_da = cri_arena_push_uninit(&w->scratch, P * (uint32_t)sizeof(cr_real) + 16u, 16);
    uint32_t o_db = cri_arena_push_uninit(&w->scratch, P * (uint32_t)sizeof(cr_real) + 16u, 16);
    uint32_t o_xb = cri_arena_push_uninit(&w->scratch, P * (uint32_t)sizeof(cr_vec3) + 16u, 16);
    if (n_nearest != NULL) *n_nearest = 0;
    if (o_a == CR_NO_OFFSET || o_b == CR_NO_OFFSET || o_na == CR_NO_OFFSET || o_nb == CR_NO_OFFSET || o_da == CR_NO_OFFSET ||
        o_db == CR_NO_OFFSET || o_xb == CR_NO_OFFSET) {
        cri_arena_pop_to(&w->scratch, mark);
        *overflow = P;
        return 0;
    }
    uint32_t *la = CR_AT(w, o_a, uint32_t), *lb = CR_AT(w, o_b, uint32_t);
    /* each listed particle's nearest partner of the other body (for the
     * triangle contacts, soft_triangle.c) */
    uint32_t *near_a = CR_AT(w, o_na, uint32_t), *near_b = CR_AT(w, o_nb, uint32_t);
    cr_real *da = CR_AT(w, o_da, cr_real), *db = CR_AT(w, o_db, cr_real);
    /* B's listed positions side by side: the inner loop streams them rather
     * than gathering each through its index (the same sums, in the same order) */
    cr_vec3 *xb = CR_AT(w, o_xb, cr_vec3);
    /* Body pairs whose bounds (grown by both radii and the step's motion)
     * overlap, in slot order; then only the particles of each inside the
     * other's grown bounds are tested against each other, in index order.
     * In a pile a body overlaps a few neighbours by a few particles, so this
     * tests far fewer pairs than a grid around every particle would. */
    uint32_t n = 0;
    for (uint32_t A = 0; A < r->body_high; ++A) {
        const cr_soft_body *ba = &bodies[A];
        if (!ba->alive) continue;
        for (uint32_t B = A + 1; B < r->body_high; ++B) {
            const cr_soft_body *bb = &bodies[B];
            if (!bb->alive) continue;
            /* Two surface bodies meet particle against triangle at their
             * skins (soft_triangle.c): a particle's triangle is found round
             * its nearest partner, no farther than the partner's soft radius
             * (the widest triangle's circumradius) from any point of its
             * triangles, so nearest partners are wanted that far past the
             * skins. Their particles meet as spheres of the skin, and of the
             * soft radius only while approaching faster than
             * CR_SOFT_REST_SPEED (a hard impact, cri_soft_collide_pairs):
             * only those pairs are kept, a few hundred in a resting pile
             * where the soft radius gave thousands. Else as spheres of the
             * soft radius. */
            /* two bodies that do not run this step stay as they are
             * (cri_soft_collide_pairs): a sleeping pile searches nothing */
            if (motion[2 * body_high + A] == 0 && motion[2 * body_high + B] == 0) continue;
            bool surf = nearest != NULL && ba->surface && bb->surface;
            cr_real margin = motion[A] + motion[B];
            cr_real skins = ba->skin + bb->skin + margin;
            /* two bodies whose fastest particles cannot close at
             * CR_SOFT_REST_SPEED have no fast pairs to find (a resting pile) */
            bool fast = !surf || motion[body_high + A] + motion[body_high + B] >= CR_SOFT_REST_SPEED;
            cr_real near_reach = surf ? cr_max(ba->soft_radius, bb->soft_radius) + skins : 0;
            cr_real reach = fast ? ba->soft_radius + bb->soft_radius + margin : near_reach;
            cr_real reach2 = cr_sq(reach);
            cr_real near2 = surf ? cr_sq(near_reach) : reach2;
            cr_real pair2 = surf ? cr_mul(skins, skins) : reach2;
            cr_real fast2 = cr_mul(CR_SOFT_REST_SPEED, CR_SOFT_REST_SPEED);
            cr_vec3 g = cr_v3(reach, reach, reach);
            cr_vec3 alo = cr_v3_sub(ba->bounds_min, g), ahi = cr_v3_add(ba->bounds_max, g);
            if (bb->bounds_max.x < alo.x || bb->bounds_max.y < alo.y || bb->bounds_max.z < alo.z ||
                bb->bounds_min.x > ahi.x || bb->bounds_min.y > ahi.y || bb->bounds_min.z > ahi.z)
                continue;
            uint32_t na = particles_in(p, ba, cr_v3_sub(bb->bounds_min, g), cr_v3_add(bb->bounds_max, g), la);
            if (na == 0) continue;
            uint32_t nb = particles_in(p, bb, alo, ahi, lb);
            for (uint32_t j = 0; j < nb; ++j) db[j] = near2, xb[j] = p[lb[j]].x;
            for (uint32_t i = 0; i < na; ++i) {
                da[i] = near2;
                cr_vec3 xa = p[la[i]].x;
                for (uint32_t j = 0; j < nb; ++j) {
                    cr_vec3 d = cr_v3_sub(xb[j], xa);
                    cr_real d2 = cr_v3_len_sq(d);
                    if (d2 >= reach2) continue;
                    if (nearest != NULL) {
                        if (d2 < da[i]) da[i] = d2, near_a[i] = lb[j];
                        if (d2 < db[j]) db[j] = d2, near_b[j] = la[i];
                    }
                    if (d2 >= pair2) {
                        if (!fast) continue;
                        /* past the skins: kept only while approaching fast */
                        cr_real closing = cr_v3_dot(cr_v3_sub(p[lb[j]].v, p[la[i]].v), d);
                        if (closing >= 0 || cr_mul(closing, closing) <= cr_mul(fast2, d2)) continue;
                    }
                    if (n < capacity) {
                        pairs[2 * n] = la[i];
                        pairs[2 * n + 1] = lb[j];
                        ++n;
                    } else {
                        ++*overflow;
                    }
                }
            }
            if (nearest != NULL) {
                /* (particle, nearest partner), A's then B's, in list order */
                for (uint32_t i = 0; i < na; ++i)
                    if (da[i] < near2 && *n_nearest < capacity) nearest[2 * *n_nearest] = la[i], nearest[2 * *n_nearest + 1] = near_a[i], ++*n_nearest;
                for (uint32_t j = 0; j < nb; ++j)
                    if (db[j] < near2 && *n_nearest < capacity) nearest[2 * *n_nearest] = lb[j], nearest[2 * *n_nearest + 1] = near_b[j], ++*n_nearest;
            }
        }
    }
    cri_arena_pop_to(&w->scratch, mark);
    return n;
}

uint32_t cri_soft_collide_pairs(cr_world *w, const uint32_t *pairs, uint32_t n_pairs, const uint32_t *owner,
                                const uint32_t *moving, cr_real h, const cr_vec3 *prev, bool spheres) {
    cr_soft_body *bodies = cri_soft_bodies(w);
    cr_particle *p = cri_soft_particles(w);
    uint32_t contacts = 0;
    for (uint32_t k = 0; k < n_pairs; ++k) {
        uint32_t i = pairs[2 * k], j = pairs[2 * k + 1];
        cr_soft_body *A = &bodies[owner[i]], *B = &bodies[owner[j]];
        if (!moving[owner[i]] && !moving[owner[j]]) continue; /* two resting bodies stay as they are */
        cr_vec3 d = cr_v3_sub(p[j].x, p[i].x);
        cr_real wide_r = A->soft_radius + B->soft_radius;
        if (cr_v3_len_sq(d) >= cr_mul(wide_r, wide_r)) continue; /* apart even as wide spheres: no square root */
        cr_real dist;
        cr_vec3 n = cr_v3_normalize_len(d, &dist);
        if (dist <= CR_REAL_EPS) continue;
        cr_vec3 vrel = cr_v3_sub(p[j].v, p[i].v);
        cr_real vn = cr_v3_dot(vrel, n);
        /* Behind the triangle contacts (soft_triangle.c) the particles meet
         * as spheres of their skin at rest, but of their soft
         * radius (the widest triangle's circumradius) while approaching
         * faster than CR_SOFT_REST_SPEED: in a hard impact a particle
         * otherwise got between the other body's particles (nine of a ball's
         * inside a cube at one moment of soft_pile's landing). */
        bool surf = !spheres && A->surface && B->surface;
        bool wide = !surf || vn < -CR_SOFT_REST_SPEED;
        cr_real pen = (wide ? wide_r : A->skin + B->skin) - dist;
        if (pen <= 0) continue;
        if (surf && wide) {
            /* Between surfaces the wide spheres only brake: the approach
             * past CR_SOFT_REST_SPEED is removed, equal and opposite, and
             * nothing is pushed. The triangle contacts keep the surfaces
             * apart; this keeps a hard impact slow enough for them. A push
             * out of the whole overlap threw bodies resting within each
             * other's soft radius apart whenever two contact particles met
             * at 1 m/s (a few hundred times a second in a settled pile),
             * and the pile never slept. */
            /* a body that did not run this step is immovable to it (the
             * triangle contacts wake it when hit) */
            cr_real bi = moving[owner[i]] ? p[i].inv_mass : 0, bj = moving[owner[j]] ? p[j].inv_mass : 0;
            if (bi + bj <= 0) continue;
            cr_vec3 J = cr_v3_scale(n, cr_div(-vn - CR_SOFT_REST_SPEED, bi + bj));
            p[i].v = cr_v3_mad(p[i].v, -bi, J);
            p[j].v = cr_v3_mad(p[j].v, bj, J);
            ++contacts;
            continue;
        }
        /* A body that did not run this step is immovable unless hit: then it
         * wakes. Hit: approaching and into it by more than four times
         * sleep_linear x h this substep. Not the approach speed alone: a
         * body resting on a sleeper carries its weight as velocity of its
         * contact particles (0.1-0.4 m/s, taken back by the contact every
         * substep), which woke every sleeper under it every step, so a pile
         * never slept; resting, it is pushed out each substep and gets only
         * gravity's g h^2 into the sleeper. */
        cr_real wi = p[i].inv_mass, wj = p[j].inv_mass;
        bool hit = vn < -w->def.sleep_linear && pen > cr_mul(CR_R(4), cr_mul(w->def.sleep_linear, h));
        if (!moving[owner[i]]) {
            if (hit) A->asleep = 0, A->sleep_time = 0;
            else wi = 0;
        }
        if (!moving[owner[j]]) {
            if (hit) B->asleep = 0, B->sleep_time = 0;
            else wj = 0;
        }
        cr_real wsum = wi + wj;
        if (wsum <= 0) continue;
        ++contacts;
        cr_real share_i = cr_div(wi, wsum), share_j = cr_div(wj, wsum);
        p[i].x = cr_v3_mad(p[i].x, -cr_mul(pen, share_i), n);
        p[j].x = cr_v3_mad(p[j].x, cr_mul(pen, share_j), n);
        /* the push-out is an impulse too (pen / h over the pair's inverse
         * mass): friction is bounded by both, so bodies resting on each
         * other (no approach speed left) still hold by friction */
        cr_real jn = vn < 0 ? cr_div(-vn, wsum) : 0;
        cr_real j_push = cr_div(cr_div(pen, h), wsum);
        cr_vec3 J = cr_v3_scale(n, jn);
        cr_vec3 vt = cr_v3_sub(vrel, cr_v3_scale(n, vn));
        cr_real vt_len;
        cr_vec3 t = cr_v3_normalize_len(vt, &vt_len);
        /* static friction undoes the pair's relative slide since the last
         * pair pass (prev): vt h, and the position push-outs and spring
         * corrections between, which are not velocity and escaped friction
         * (as contact_impulse against a body that does not move) */
        cr_vec3 slide = cr_v3_sub(cr_v3_sub(p[j].x, prev[j]), cr_v3_sub(p[i].x, prev[i]));
        slide = cr_v3_sub(slide, cr_v3_scale(n, cr_v3_dot(slide, n)));
        cr_real slide_len = cr_v3_len(slide);
        if (vt_len > CR_REAL_EPS || slide_len > CR_REAL_EPS) {
            cr_real mu = cr_sqrt(cr_mul(A->friction, B->friction));
            cr_real limit = cr_mul(mu, jn + j_push);
            cr_real stick = cr_div(cr_max(vt_len, cr_div(slide_len, h)), wsum);
            if (vt_len > CR_REAL_EPS) J = cr_v3_mad(J, -cr_min(cr_div(vt_len, wsum), limit), t);
            if (stick <= limit) {
                /* mass weighted (the centre of mass stays) */
                p[i].x = cr_v3_mad(p[i].x, share_i, slide);
                p[j].x = cr_v3_mad(p[j].x, -share_j, slide);
            }
        }
        /* J acts on j; -J on i */
        p[i].v = cr_v3_mad(p[i].v, -wi, J);
        p[j].v = cr_v3_mad(p[j].v, wj, J);
    }
    return contacts;
}
