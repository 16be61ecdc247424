/* solver.h — what the stages of one step share (internal to the runtime).
 *
 * A step (world.c) runs seed 002's sequence over data that lives only for
 * that step, in the world's scratch arena:
 *
 *   solver bodies   velocities + world inverse inertia of every body slot
 *   pairs           broadphase output, sorted by (lower slot, higher slot)
 *   manifolds       pairs with interference points, in pair order
 *   points          the interference points of all manifolds (a pool)
 *   level order     manifolds sorted by contact-graph level
 *
 * Every array is sized from the world def, never from what this step happens
 * to need, so the scratch a step uses is the same every step and
 * cr_world_scratch_size can say it in advance.
 *
 * Solver constants are here with their units; docs/solver.md explains them.
 */
#ifndef CRUMPLE_SOLVER_H
#define CRUMPLE_SOLVER_H

#include "base/block.h"
#include "geometry/shape.h"

/* ---- constants (docs/solver.md) ---- */

/// m: points farther than this (beyond what the motion of the step can close)
/// are not kept as interference candidates.
#define CR_CANDIDATE_SLOP CR_R(0.01)
/// m: penetration tolerated without a push-out velocity (resting contacts sit
/// between 0 and g dt^2 deep, well inside this).
#define CR_PENETRATION_SLOP CR_R(0.005)
/// fraction of the penetration beyond the slop removed per step by contacts.
#define CR_PENETRATION_BETA CR_R(0.2)
/// m/s: cap on the push-out velocity, so a deep overlap separates, not explodes.
#define CR_MAX_PUSH_SPEED CR_R(0.5)
/// sweeps of the push-out pseudo-impulses at most (push_out.c).
#define CR_PUSH_SWEEPS 8u
/// m/s: relative normal speeds within this of a point's floor count as
/// resting, not approaching. It only absorbs the rounding noise the iterated
/// impulses leave (a body drifts at most this x 10 s = 0.1 mm by it); it is
/// no threshold velocity in the seed's sense.
#define CR_RESTING_SPEED_EPS CR_R(1e-5)
/// m/s: a collision pass counts a point as worked only if it corrected a
/// velocity error above this; the passes stop when none did.
#define CR_COLLISION_TOLERANCE CR_R(1e-5)
/// m (and rad): joint post-stabilisation sweeps stop once no joint is off by more.
#define CR_JOINT_TOLERANCE CR_R(1e-5)
/// fraction of a jointed pair's kinetic energy up to which the end-of-step
/// velocity projection's loss is given back (joint.c, restore_energy).
#define CR_JOINT_RESTORE_MAX CR_R(0.01)
/// cosine of the largest angle between a contact normal and "up" (against
/// gravity) for which the contact graph says one body rests on the other;
/// steeper contacts tie the two bodies into one level.
#define CR_SUPPORT_COS CR_R(0.5)
/// m: a side contact between bodies whose centres are this close in height
/// ties them into one level; otherwise the higher one leans on the lower.
#define CR_SIDE_TIE CR_R(0.01)
/// m/s: the last contact pass sweeps a level again (up to level_iterations
/// times) only while its impulses still correct velocity errors above this.
#define CR_LEVEL_TOLERANCE CR_R(1e-3)
/* An awake body faster than this many times the sleep thresholds wakes the
 * whole island of a sleeper it touches; slower (but above them), only the
 * sleeper itself (sleep.c). */
#define CR_SLEEP_WAKE_ISLAND 50
/* A body whose island still moves may sleep alone once it rested this many
 * times sleep_time (not in an island with a mesh body: sleep.c). */
#define CR_SLEEP_ALONE 2
/// a sticking point's slip counts this many times over against
/// CR_LEVEL_TOLERANCE (so it is held to 0.1 mm/s).
#define CR_STICK_TOLERANCE_SCALE CR_R(10)
/// extra samples per box edge at most against a thinner body (interference.c).
#define CR_BOX_FINE_SAMPLES 64u
/// directions (each taken both ways) along which a pair whose points exceed
/// points_per_pair keeps its extreme points (interference.c).
#define CR_SUPPORT_DIRS 13u
/// cells a body may cover in the spatial hash before it goes to the "large" list.
#define CR_BP_MAX_CELLS 27u
/// hash entries per body slot reserved for the spatial hash.
#define CR_BP_ENTRIES_PER_BODY 8u

/* ---- per-step data ---- */

/// A body as the impulse loops see it: velocities and world-frame inverse
/// inertia at the start-of-step orientation (which the seed's K matrices use).
typedef struct cr_sbody {
    cr_vec3 v;          ///< m/s
    cr_vec3 w;          ///< rad/s
    cr_vec3 dx;         ///< m, impact-time correction added by the position update
    cr_vec3 push_v;     ///< m/s, push-out pseudo-velocity: moves the position update, never kept (push_out.c)
    cr_vec3 push_w;     ///< rad/s, the same for the orientation
    cr_mat3 inv_i;      ///< 1/(kg m^2), world frame; zero unless dynamic
    cr_mat3 rot;        ///< the start-of-step orientation as a matrix (body to world)
    cr_real spin_reach; ///< m/s, |w| x bounding radius at the start of the step (0 for planes and static bodies)
    cr_real inv_mass;   ///< 1/kg; zero unless dynamic
    uint32_t level;     ///< contact-graph level, CR_NO_LEVEL if in no contact
    uint8_t dynamic;    ///< receives impulses
    uint8_t frozen;     ///< shock propagation: infinite mass for the rest of the sweep
    uint8_t pad_[2];
    uint32_t manifolds; ///< contact pairs the body is in this step
} cr_sbody;

#define CR_NO_LEVEL 0xffffffffu

/// One interference point: a sample of one body inside (or near) the other's
/// signed distance function, at the start-of-step configuration.
typedef struct cr_cpoint {
    cr_vec3 ra;   ///< m, from a's centre of mass to the point (world)
    cr_vec3 rb;   ///< m, from b's centre of mass to the point (world)
    cr_vec3 n;    ///< unit normal, pushes a away from b
    /* the normal direction's response, fixed for the step (the K matrices
     * use the start-of-step configuration): a normal impulse jn changes w_a
     * by jn * wa and u_n by jn * (ka + kb) */
    cr_vec3 na;   ///< m, ra x n
    cr_vec3 nb;   ///< m, rb x n
    cr_vec3 wa;   ///< I_a^-1 (ra x n), zero unless a is dynamic
    cr_vec3 wb;   ///< I_b^-1 (rb x n), zero unless b is dynamic
    cr_real ka;   ///< 1/kg, 1/m_a + (ra x n) . I_a^-1 (ra x n); zero unless a is dynamic
    cr_real kb;   ///< 1/kg, the same for b
    cr_mat3 k;    ///< 1/kg, K of the point with both bodies as created (friction along the slip)
    cr_mat3 kinv; ///< kg, K^-1 of the same (static friction)
    cr_real phi;  ///< m, signed separation now; negative = penetrating
    uint32_t of_b; ///< 1 if the sample is b's (inside a's SDF), 0 if a's
    cr_real bounce; ///< m/s, collision target fixed when first met approaching (collision.c: collision_meet); negative until then
    cr_real hit;    ///< s, when in the step the point reaches the surface (collision passes; set when met)
    cr_real jn;   ///< N s, normal impulse the collision, then the contact passes applied here
    cr_vec3 jt;   ///< N s, tangential impulse the contact passes applied here
    cr_real jp;   ///< N s, push-out pseudo-impulse (push_out.c)
    uint32_t feature; ///< which sample of which body (CR_FEATURE_*): names the point from step to step (warm_start.c)
} cr_cpoint;

/// cr_cpoint.feature: the sample is b's; a box's extra edge sample against a thin body.
#define CR_FEATURE_OF_B 0x80000000u
#define CR_FEATURE_FINE 0x40000000u

enum {
    CR_MF_STICKING = 1u,  ///< the last contact impulse was static friction
    CR_MF_IMPACT = 2u,    ///< the collision passes applied an impulse
    CR_MF_ISOLATED = 4u,  ///< one point, and no other pair shares a moving body with it (contact.c)
};

/// A pair of bodies with interference points (seed 002's "intersecting pair").
typedef struct cr_manifold {
    uint32_t a, b;          ///< body slots, a < b
    uint32_t first;         ///< first point in the pool
    uint32_t count;         ///< points
    uint32_t level;         ///< contact-graph level (the higher of its bodies')
    uint32_t flags;         ///< CR_MF_*
    cr_real restitution;    ///< min of the two
    cr_real friction;       ///< min of the two
    cr_real rolling;        ///< m, max of the two
    cr_real spinning;       ///< m, max of the two
    cr_real contact_jn;     ///< N s, normal impulse the contact passes applied
    uint32_t contact_point; ///< pool index of the deepest point a contact impulse went to
    uint32_t impact_point;  ///< pool index of the point that met the fastest approach
    cr_real impact_speed;   ///< m/s, most negative relative normal velocity met in the collision passes
    cr_vec3 impact_velocity; ///< m/s, relative velocity (a minus b) at that point then
    cr_vec3 impact_local;   ///< m, that point in a's body frame
    cr_real impact_jn;      ///< N s, normal impulse of the collision passes
    cr_vec3 impact_j;       ///< N s, impulse of the collision passes on a
} cr_manifold;

typedef struct cr_step {
    cr_world *w;
    cr_body *bodies;
    cr_real dt;
    cr_real inv_dt;
    uint32_t nb;            ///< body slots in use (world body_high)
    cr_sbody *sb;           ///< [body_capacity]
    uint64_t *pairs;        ///< [pair_capacity] (a << 32 | b), sorted
    uint32_t npairs;
    cr_manifold *m;         ///< [contact_capacity]
    uint32_t nm;
    cr_cpoint *pts;         ///< [point_capacity]
    uint32_t npts;
    cr_cpoint *tmp_pts;     ///< [points_per_pair] narrowphase scratch for one pair
    uint32_t *live;         ///< [points_per_pair] a pair's points by depth, deepest first (interference.c)
    uint32_t *live_tmp;     ///< [points_per_pair] merge buffer for sorting them
    uint32_t *order;        ///< [contact_capacity] manifolds by level
    uint32_t *level_start;  ///< [body_capacity + 2] first entry of each level in order
    uint32_t nlevels;
    cr_real residual;       ///< m/s, largest velocity error a contact impulse corrected since last reset
    uint64_t *no_collide;   ///< [joint_capacity] jointed pairs that must not collide, sorted
    uint32_t nno_collide;
    uint32_t graph_bytes_at; ///< scratch position where the contact graph's arrays start
    bool pushed;            ///< the push-out gave some point a pseudo-impulse this step (push_out.c)
} cr_step;

/* ---- scratch plan ---- */

/// Bytes each per-step array takes for a def (the step pushes them in this order).
typedef struct cr_scratch_plan {
    uint64_t sbodies, pairs, manifolds, points, tmp_points, active, order, level_start, no_collide;
    uint64_t broadphase; ///< transient: freed before the narrowphase
    uint64_t graph;      ///< transient: freed after the levels are known
    uint64_t total;
} cr_scratch_plan;
void cri_scratch_plan_make(const cr_world_def *def, cr_scratch_plan *plan);
uint64_t cri_broadphase_scratch(const cr_world_def *def);
uint64_t cri_contact_graph_scratch(const cr_world_def *def);

/* ---- broadphase.c ---- */

/// Fill s->pairs with every pair whose swept bounds overlap, sorted.
void cri_broadphase(cr_step *s);
/// m, the broadphase's base cell edge (def.broadphase_cell, or from the mean
/// moving body size); a step's cell may be up to twice that (broadphase.c).
cr_real cri_broadphase_base_cell(const cr_world *w);

/* ---- interference.c ---- */

/// Vertex-vs-SDF interference of every pair into manifolds and points.
void cri_interference(cr_step *s);

/* ---- collision.c ---- */

/// Parameters of one point impulse.
typedef struct cr_impulse_law {
    cr_real restitution;   ///< target normal velocity is -restitution * (approach velocity)
    bool contact;          ///< contact stage: normal impulses + pair-budget friction, push-out floor
    bool first_pass;       ///< collision stage: the first pass, which lands each pair as one block first
} cr_impulse_law;

/// Relative normal velocity (m/s) of a point, a minus b: (w x r) . n = w . (r x n)
/// with the cached r x n.
static inline cr_real cr_point_normal_velocity(const cr_step *s, const cr_manifold *m, const cr_cpoint *p) {
    const cr_sbody *A = &s->sb[m->a], *B = &s->sb[m->b];
    return cr_v3_dot(cr_v3_sub(A->v, B->v), p->n) + cr_v3_dot(A->w, p->na) - cr_v3_dot(B->w, p->nb);
}
/// The smallest relative normal velocity at which the point does not
/// interfere at the predicted position (the seed's "non-separating" test).
/// A point already deeper than that is not pushed out by its velocity: the
/// push-out is a separate pseudo-velocity that moves positions only
/// (push_out.c), so it never becomes momentum.
static inline cr_real cr_point_floor(const cr_step *s, const cr_cpoint *p, bool contact) {
    (void)contact;
    if (p->phi > 0) return -cr_mul(p->phi, s->inv_dt);
    return 0;
}
/// Process one pair with the seed's aggressive optimisation: impulse at the
/// deepest non-separating point, drop separating points, repeat on the same
/// list. Returns the impulses applied.
uint32_t cri_process_pair(cr_step *s, cr_manifold *m, cr_impulse_law law);
/// Collision stage: passes over all pairs on the start-of-step velocities.
void cri_collisions(cr_step *s);
/// Apply an impulse j (N s) to a at arm ra and -j to b at rb, honouring frozen bodies.
void cri_apply_pair_impulse(cr_step *s, uint32_t a, uint32_t b, cr_vec3 ra, cr_vec3 rb, cr_vec3 j);
/// K = 1/m E - [r]x I^-1 [r]x of one body (zero if it does not move).
cr_mat3 cri_body_k(const cr_sbody *b, cr_vec3 r);
/// Solve K x = rhs for a symmetric positive semi-definite K, scaled so fixed
/// point keeps its precision; a singular K gives x = 0.
cr_vec3 cri_solve_k(cr_mat3 k, cr_vec3 rhs);
/// K^-1 with the same scaling (zero for a singular K).
cr_mat3 cri_inverse_k(cr_mat3 k);
static inline bool cr_sbody_moves(const cr_sbody *b) { return b->dynamic && !b->frozen; }

/* ---- contact_graph.c ---- */

/// Levels of the contact graph (strongly connected components, lowest first)
/// and s->order / s->level_start.
void cri_contact_graph(cr_step *s);

/* ---- contact.c ---- */

/// Contact stage: restitution ramp, level order, shock propagation.
void cri_contacts(cr_step *s);

/* ---- warm_start.c ---- */

/// Each touching point starts the contact stage with the impulse its sample
/// needed last step (found by pair and feature), applied to the bodies.
uint32_t cri_warm_start_apply(cr_step *s);
/// Keep this step's contact impulses for the next step.
void cri_warm_start_store(cr_step *s);

/* ---- push_out.c ---- */

/// Split position correction: pseudo-velocities (sb->push_v, push_w) that
/// move points deeper than CR_PENETRATION_SLOP out at the position update.
void cri_push_out(cr_step *s);
/// After the position update: the angular momentum the push's moves shifted,
/// given back to each pair of dynamic bodies as a rigid turn (cri_pair_turn).
void cri_push_out_give_back(cr_step *s);

/* ---- rolling_friction.c ---- */

/// Rolling and spinning friction on every pair the contact stage pressed together.
void cri_rolling_friction(cr_step *s);

/* ---- pair_turn.c ---- */

/// A pair of moving bodies at their poses: its centre of mass c, each body's
/// offset r from it and world inertia ik, and the pair's inertia about c
/// (parallel axis: m (|r|^2 1 - r r^T) = -m [r]x [r]x).
typedef struct cri_pair_mass {
    cr_vec3 c, r[2];
    cr_mat3 ik[2], inertia;
} cri_pair_mass;
cri_pair_mass cri_pair_mass_of(const cr_body *const bs[2]);
/// Whether the pair's sums (its inertia about the centre, the energies, the
/// angular momentum) stay well inside what the scalar holds for velocities
/// v, w (Q32.32: 2^31): masses and moments up to 2^26, speeds and spins up
/// to 2^12, the energies m |v|^2, I |w|^2 and M |r|^2 up to 2^26 each. The
/// same test in both builds; a pair beyond it is left as the position
/// correction left it.
bool cri_pair_in_range(const cr_body *const bs[2], const cr_vec3 v[2], const cr_vec3 w[2]);
/// The rigid motion of the pair with velocities v, w (world): *vr = P / M and
/// *wr = I_c^-1 L_c. Returns twice the kinetic energy of the motion relative
/// to it (a sum of squares).
cr_real cri_pair_rigid(const cr_body *const bs[2], const cri_pair_mass *pm, const cr_vec3 v[2], const cr_vec3 w[2], cr_vec3 *vr,
                       cr_vec3 *wr);
/// v, w of a body become the rigid motion (vr, wr about c) plus f times its own motion relative to it.
void cri_pair_scale_relative(const cr_body *b, cr_vec3 *v, cr_vec3 *w, cr_vec3 vr, cr_vec3 wr, cr_vec3 c, cr_real f);
/// Give the pair (both moving) the angular momentum dl (world; the pair's
/// momentum is unchanged, so about any point) as a rigid turn about its
/// centre of mass, its first-order energy taken from the pair's relative
/// motion when that has four times as much (bodies' v, w).
void cri_pair_turn(cr_body *ba, cr_body *bb, cr_vec3 dl);

/* ---- joint.c ---- */

/// Jointed pairs that must not collide, sorted, into s->no_collide.
void cri_joints_collect_no_collide(cr_step *s);
bool cri_joints_pair_excluded(const cr_step *s, uint32_t a, uint32_t b);
/// Pre-stabilisation: impulses that make the predicted positions satisfy the joints.
void cri_joints_pre_stabilise(cr_step *s);
/// Post-stabilisation: move the bodies to remove the drift left after the position update.
void cri_joints_post_stabilise(cr_step *s);

/* ---- plastic_joint.c, elastic_joint.c (seed 000 §4.1, §4.3) ---- */

/// The part of angular impulse l that keeps the joint's accumulated angular
/// impulse within its bending strength; marks the joint yielded when it cuts.
cr_vec3 cri_plastic_clamp(cr_joint *jt, cr_vec3 l);
/// The relative angular velocity a yielding joint keeps after one step of its
/// constant + proportional damping (zero once it has settled).
cr_vec3 cri_plastic_damped_rate(const cr_joint *jt, cr_vec3 w_rel, cr_real dt);
/// Closed-form step of I phi'' + C phi' + kappa phi = 0 over dt:
/// phi' = m[0] phi + m[1] w, w' = m[2] phi + m[3] w.
void cri_spring_step_map(cr_real inertia, cr_real stiffness, cr_real damping, cr_real dt, cr_real m[4]);

/* ---- sleep.c ---- */

/// Wake sleepers that a moving body pairs with (or is jointed to): with their
/// island if it is fast, driven or kinematic, alone if it is slow (sleep.c).
/// Returns bodies woken.
uint32_t cri_sleep_wake_touched(cr_step *s);
/// Islands, rest timers, and falling asleep, after the position update.
void cri_sleep_update(cr_step *s);
uint64_t cri_sleep_scratch(const cr_world_def *def);

/* ---- impact_events.c ---- */

/// Write the impact events of the collision passes into the world's buffer.
void cri_impact_events(cr_step *s);

/* ---- small helpers ---- */

static inline uint64_t cr_pair_key(uint32_t a, uint32_t b) { return ((uint64_t)a << 32) | b; }

/// Sort n 64-bit keys ascending (LSD radix sort; tmp has room for n keys).
void cri_sort_u64(uint64_t *keys, uint64_t *tmp, uint32_t n);

#endif
