/* mass_spring.h — the soft-body stage's part of the world block and its
 * entry points (internal; seed 004, docs/mass-spring.md).
 *
 * The stage sits between the rigid solver and the damage stage (its own
 * layer, soft/, tests/check_layers.sh): world.c lays its region out, steps it
 * after the rigid position update, and hashes it. Its records are
 *   cr_soft_body   one per soft body (slot header first, like cr_body)
 *   cr_particle    the particles of all bodies, packed body after body
 *   cr_spring      the springs of all bodies, packed body after body
 * A destroyed body's particles and springs are closed up by moving the later
 * bodies' down, so the arrays stay packed and their order is the slot order
 * of creation — deterministic, and a byte copy of the block is a snapshot.
 *
 * mass_spring.c is the model (particles, springs, volume, the integrator,
 * sleep); spring_collide.c its collisions with rigid bodies and with other
 * soft bodies; soft_triangle.c soft against soft as particles against
 * triangles (surface_contacts).
 */
#ifndef CRUMPLE_SOFT_MASS_SPRING_H
#define CRUMPLE_SOFT_MASS_SPRING_H

#include "base/block.h"

/// Rigid bodies a soft body remembers touching from one step to the next.
#define CR_SOFT_TOUCHED 4u

/// One soft body.
typedef struct cr_soft_body {
    uint32_t generation;
    uint32_t next_free;       ///< index1 of the next free slot when dead
    uint8_t alive;
    uint8_t asleep;
    uint8_t no_sleep;
    uint8_t closed;           ///< the asset is closed: the volume force applies
    uint8_t surface;          ///< cr_soft_def.surface_contacts: against another such body, particles against triangles (soft_triangle.c)
    uint32_t asset;           ///< asset slot (triangles; never a flagged surface copy)
    uint32_t first_particle, particle_count;
    uint32_t first_spring, spring_count;
    uint32_t structural_count; ///< the first springs are edges, the rest bending springs
    cr_real mass;             ///< kg
    cr_real absolute_damping; ///< N s/m per particle
    cr_real volume_stiffness; ///< Pa
    cr_real rest_volume;      ///< m^3
    cr_real volume_tolerance; ///< relative; 0: none (a hard volume constraint holds |V - V0| / V0 within it)
    cr_real radius;           ///< m, particle collision radius against rigid bodies
    cr_real soft_radius;      ///< m, against other soft bodies: the widest triangle's circumradius, so no particle slips through
    cr_real skin;             ///< m, against another surface_contacts body's triangles (and its particles at rest): the thin radius the surfaces rest apart by twice
    cr_real rim;              ///< m, a particle behind one of this body's faces and no farther past its rim than this is pushed out along it (soft_triangle.c); the soft radius
    cr_real friction;
    cr_real restitution;
    cr_real rolling_friction; ///< m, lever arm against static and kinematic bodies
    cr_real sleep_time;       ///< s since its sleep window began (its particles within sleep_linear x the world's sleep_time of their anchors since, mass-weighted RMS)
    cr_vec3 bounds_min, bounds_max; ///< m, the particles at the end of the last step
    uint32_t touched[CR_SOFT_TOUCHED]; ///< index1 of rigid bodies its particles touched last step (0: none): no new impact event on them
    uint64_t user_data;
} cr_soft_body;

typedef struct cr_particle {
    cr_vec3 x;                ///< m, world space
    cr_vec3 v;                ///< m/s
    cr_real mass;             ///< kg
    cr_real inv_mass;         ///< 1/kg
} cr_particle;

typedef struct cr_spring {
    uint32_t a, b;            ///< particle indices within the body
    cr_real rest;             ///< m, rest length
    cr_real k;                ///< N/m
    cr_real c;                ///< N s/m, along the spring
} cr_spring;

typedef struct cr_soft_region {
    uint32_t bodies;          ///< offset of cr_soft_body[spring.body_capacity]
    uint32_t particles;       ///< offset of cr_particle[spring.particle_capacity]
    uint32_t springs;         ///< offset of cr_spring[spring.spring_capacity]
    uint32_t free_body;       ///< index1 of the first free slot
    uint32_t body_count;      ///< live soft bodies
    uint32_t body_high;       ///< slots ever used
    uint32_t particle_count;  ///< particles in use (packed)
    uint32_t spring_count;    ///< springs in use (packed)
    uint32_t next_body;       ///< the slot the next step starts at (a body that waited runs first)
    uint32_t anchors;         ///< offset of cr_vec3[spring.particle_capacity]: each particle where its body's sleep window began
} cr_soft_region;

static inline cr_soft_region *cri_soft_region(cr_world *w) { return CR_AT(w, w->soft_region, cr_soft_region); }
static inline const cr_soft_region *cri_soft_region_c(const cr_world *w) {
    return CR_AT(w, w->soft_region, const cr_soft_region);
}
static inline cr_soft_body *cri_soft_bodies(cr_world *w) { return CR_AT(w, cri_soft_region(w)->bodies, cr_soft_body); }
static inline cr_particle *cri_soft_particles(cr_world *w) { return CR_AT(w, cri_soft_region(w)->particles, cr_particle); }
static inline cr_spring *cri_soft_springs(cr_world *w) { return CR_AT(w, cri_soft_region(w)->springs, cr_spring); }
static inline cr_vec3 *cri_soft_anchors(cr_world *w) { return CR_AT(w, cri_soft_region(w)->anchors, cr_vec3); }

/* world.c */
cr_status cri_soft_check_budget(const cr_spring_budget *b);
uint64_t cri_soft_region_bytes(const cr_world_def *def);
uint64_t cri_soft_scratch_bytes(const cr_world_def *def);
bool cri_soft_layout(cr_world *w, uint8_t *block);
/// The stage: every awake soft body within the budget, after the rigid position update.
void cri_soft_step(cr_world *w, cr_real dt);
/// Mix every soft body into the state hash (nothing when there are none, so
/// worlds without soft bodies hash as before).
uint64_t cri_soft_hash(const cr_world *w, uint64_t h);

/// The live soft body a handle names, or NULL.
cr_soft_body *cri_soft_body(cr_world *w, cr_soft_id id);
const cr_soft_body *cri_soft_body_c(const cr_world *w, cr_soft_id id);

/// Sum of the internal forces (springs, spring damping, volume) on a body's
/// particles now, N (zero to rounding: tests check it every step), and the
/// largest single particle's; false for a stale handle or no scratch.
bool cri_soft_internal_force_sum(cr_world *w, cr_soft_id id, cr_vec3 *sum, cr_real *largest);

/* soft_asset.c: a cooked soft asset's springs and masses (SPRS, SPRP) */
/// The asset's cooked springs in their order (structural first; *structural
/// their count); with out == NULL only counts. Rest lengths and stiffness are
/// the caller's to set.
uint32_t cri_soft_asset_springs(const cr_asset *a, cr_spring *out, uint32_t *structural);
/// Each particle's mass from the asset's weights and the body's mass.
void cri_soft_asset_masses(const cr_asset *a, cr_real mass, cr_particle *p);

/* spring_collide.c */
/// A soft body's impact on a rigid body in this step, gathered while the
/// substeps run and turned into a cr_impact_event at the end of the step.
typedef struct cr_soft_hit {
    uint32_t soft, rigid;     ///< slots
    cr_real vn;               ///< m/s, the fastest approach (most negative)
    cr_vec3 point;            ///< m, on the rigid surface where it was met
    cr_vec3 normal;           ///< the rigid body's outward normal there
    cr_vec3 vrel;             ///< m/s, particle minus rigid point, before the impulse
    cr_real jn;               ///< N s, normal impulse on the particles since the hit began
    cr_vec3 j;                ///< N s, total impulse on the particles since then
} cr_soft_hit;

/// The step's hits: at most `capacity` (the room left in the world's event
/// buffer), the rest counted; pairs approaching faster than min_speed start one.
typedef struct cr_soft_hits {
    cr_soft_hit *hit;
    uint32_t count, capacity, overflow;
    cr_real min_speed;
    /* one body's substep (cri_soft_collide_rigid resets them): the normal
     * impulse static and kinematic bodies gave it, where (impulse-weighted
     * sum of the contact points), and the largest rolling lever arm met */
    cr_real roll_jn;
    cr_vec3 roll_at;
    cr_real roll_arm;
} cr_soft_hits;

/// Scratch the collision passes need for the def's capacities.
uint64_t cri_soft_collide_scratch_bytes(const cr_world_def *def);
/// The rigid bodies a soft body may touch this step (bounding spheres against
/// its bounds grown by its motion): slots into `out` (at most `capacity`, in
/// slot order; the others are counted in *overflow), returns the count.
uint32_t cri_soft_rigid_candidates(cr_world *w, const cr_soft_body *sb, cr_real reach, uint32_t *out, uint32_t capacity,
                                   uint32_t *overflow);
/// Rigid bodies one soft body collides with in a step at most.
#define CR_SOFT_MAX_CANDIDATES 64u
/// One substep's particle contacts with the candidate rigid bodies: push out,
/// equal and opposite impulses (restitution, friction). Returns contacts.
/// A candidate touched gets CR_SOFT_TOUCH_BIT; a pair approaching faster
/// than hits->min_speed starts an impact record unless the rigid body is in
/// sb->touched (it was touching last step: the same contact, not an impact).
/// (h: the substep, s; reach: how far the body may move this step, m;
/// prev: the body's particles where its last substep's rigid contacts left
/// them, or NULL: static friction undoes what slid since; set on return)
uint32_t cri_soft_collide_rigid(cr_world *w, cr_soft_body *sb, uint32_t *cand, uint32_t n_cand, cr_real h,
                               cr_real reach, cr_soft_hits *hits, cr_vec3 *prev);
/// The rolling resistance of one rigid body's contacts of this substep
/// (hits->roll_*: normal impulse, impulse-weighted contact points, lever arm).
void cri_soft_roll_resist(cr_world *w, cr_soft_body *sb, const cr_soft_hits *hits);
/// Marks a candidate its particles touched (cri_soft_collide_rigid sets it).
#define CR_SOFT_TOUCH_BIT 0x80000000u
/// Particle pairs of different soft bodies closer than their radii plus
/// their step's motion, found once per step between the particles of each
/// body inside another's grown bounds; returns the pair count (pairs are two
/// u32 global particle indices; at most `capacity`; *overflow counts the
/// pairs that did not fit). motion, per body slot: [0, B) how far its
/// particles may move this step (m), [B, 2B) its fastest particle's speed
/// (m/s), [2B, 3B) 1 when it runs this step, else 0 (B: body_high); two
/// bodies that do not run are not searched.
/// Between two surface_contacts bodies (with `nearest`) only the pairs within
/// their skins, and those closing faster than CR_SOFT_REST_SPEED, are kept.
/// With `nearest`: also every particle within reach of the other body with
/// its nearest partner of it, (particle, partner) per body pair, at most
/// `capacity`, counted in *n_nearest.
uint32_t cri_soft_find_pairs(cr_world *w, const cr_real *motion, uint32_t *pairs, uint32_t capacity, uint32_t *overflow,
                             uint32_t *nearest, uint32_t *n_nearest);
/// One substep's response of the step's particle pairs (owner: body slot of
/// each particle; moving: per slot, whether it ran this step; h: the
/// substep, s; prev: every particle where the last pair pass left it, global
/// index: static friction undoes the pair's relative slide since; spheres:
/// the particles meet as spheres of their soft radius, else of their contact
/// radius, as the triangle contacts' backstop); returns contacts.
uint32_t cri_soft_collide_pairs(cr_world *w, const uint32_t *pairs, uint32_t n_pairs, const uint32_t *owner,
                                const uint32_t *moving, cr_real h, const cr_vec3 *prev, bool spheres);
/* soft_triangle.c: soft against soft as particles against triangles */
/// Scratch the triangle contacts need for the def's capacities.
uint64_t cri_soft_triangle_scratch_bytes(const cr_world_def *def);
/// Every particle's triangles (global particle index: the triangle indices
/// of its body's asset in list[start[g] .. start[g + 1]]), in the step's
/// scratch; false when they did not fit (the caller meets particles as
/// spheres of the soft radius instead).
bool cri_soft_incidence(cr_world *w, uint32_t *o_start, uint32_t *o_list);
/// The step's particle-against-triangle contacts from the pairs' nearest
/// partners (cri_soft_find_pairs): (the particle, its partner, the
/// partner's triangle nearest to it) into out (three words each), when
/// within the two skins and the two bodies' motion (cri_soft_find_pairs);
/// start, list: cri_soft_incidence.
/// Returns the count.
uint32_t cri_soft_triangle_contacts(cr_world *w, const uint32_t *nearest, uint32_t n_nearest, const uint32_t *owner,
                                    const uint32_t *start, const uint32_t *list, const cr_real *motion, uint32_t *out);
/// One substep of them (moving, h, prev as cri_soft_collide_pairs). Returns contacts.
uint32_t cri_soft_collide_triangles(cr_world *w, const uint32_t *contacts_in, uint32_t n_in, const uint32_t *owner,
                                    const uint32_t *moving, cr_real h, const cr_vec3 *prev);
/// After the substeps: every contact's particle found inside the other body
/// (the closest point round the step triangle's corners, the closest
/// feature's pseudonormal) moved out to the skins, positions only. Returns
/// the particles moved.
uint32_t cri_soft_resolve_inside(cr_world *w, const uint32_t *contacts_in, uint32_t n_in, const uint32_t *owner,
                                 const uint32_t *moving, const uint32_t *start, const uint32_t *list);
/// A soft body's skin against other soft bodies' triangles, as a share of
/// its mean edge (cr_soft_body.skin): two bodies with surface contacts rest
/// this far apart twice.
#define CR_SOFT_SKIN CR_R(0.08)
/// Pair capacity per particle of the world's particle capacity.
#define CR_SOFT_PAIRS_PER_PARTICLE 16u

#endif
