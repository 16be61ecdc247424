/* crumple/spring.h — elastic mass-spring bodies (seed 004, Kharevych and Khan
 * 2002): soft bodies that wobble, sag under load, collide with rigid bodies,
 * the ground and each other, and return to their rest shape.
 *
 * A soft body is its cooked mesh: every vertex a particle, every edge a
 * structural spring at its rest length, a bending spring across every edge
 * (between the two vertices opposite it), and, for a closed mesh, a volume
 * (pressure) force that keeps the enclosed volume. Springs pull along
 * themselves in proportion to the change of their length; damping acts on the
 * relative velocity along each spring, so a body flying or spinning rigidly
 * is not slowed (the seed's damping of each particle's absolute velocity is
 * available as `absolute_damping`). docs/mass-spring.md is the model.
 *
 * Soft bodies are their own kind of body with their own stage (soft/): the
 * world steps them after the rigid solver, in a fixed number of XPBD
 * substeps (a spring of stiffness k is a distance constraint of compliance
 * 1/k), which no stiffness makes explode; cr_soft_create refuses values out
 * of range (CR_ERR_DEF_INVALID naming the field) and NaN/Inf. Particles collide with every rigid body's signed
 * distance (two-way: equal and opposite impulses, so momentum is exchanged
 * exactly) and with the particles of other soft bodies.
 *
 * Usage:
 *     def.spring = cr_default_spring_budget();     // world def: room for soft bodies
 *     def.spring.body_capacity = 32;
 *     ...
 *     cr_soft_def sd = cr_default_soft_def();
 *     sd.asset = ball_slot;                        // a registered cooked asset (cr_world_add_asset)
 *     sd.transform.p = cr_v3(0, CR_R(2), 0);
 *     sd.mass = CR_R(1);
 *     cr_soft_id ball;
 *     cr_soft_create(world, &sd, &ball);
 *     ... cr_world_step(world, dt) ...
 *     cr_soft_get_positions(world, ball, verts, n);   // the deformed mesh, the asset's triangles
 */
#ifndef CRUMPLE_SPRING_H
#define CRUMPLE_SPRING_H

#include "events.h"

/* Link names carry the scalar mode (CR_LINK_NAME, crumple/real.h), so code
 * compiled in the other mode fails to link instead of misreading every cr_real. */
#define cr_default_spring_budget CR_LINK_NAME(cr_default_spring_budget)
#define cr_default_soft_def CR_LINK_NAME(cr_default_soft_def)
#define cr_soft_create CR_LINK_NAME(cr_soft_create)
#define cr_soft_destroy CR_LINK_NAME(cr_soft_destroy)
#define cr_soft_get_positions CR_LINK_NAME(cr_soft_get_positions)
#define cr_soft_get_velocities CR_LINK_NAME(cr_soft_get_velocities)
#define cr_soft_get_normals CR_LINK_NAME(cr_soft_get_normals)
#define cr_soft_get_state CR_LINK_NAME(cr_soft_get_state)
#define cr_soft_apply_impulse CR_LINK_NAME(cr_soft_apply_impulse)
#define cr_soft_apply_body_impulse CR_LINK_NAME(cr_soft_apply_body_impulse)
#define cr_soft_set_velocity CR_LINK_NAME(cr_soft_set_velocity)
#define cr_world_get_soft_ids CR_LINK_NAME(cr_world_get_soft_ids)
#define cr_soft_get_asset CR_LINK_NAME(cr_soft_get_asset)

#ifdef __cplusplus
extern "C" {
#endif

/* cr_soft_id (the handle of a soft body: slot + 1 and the slot's
 * generation; all-zero is null) is declared in events.h, which names soft
 * bodies in impact events. */

/// The world's room for soft bodies, with everything off (no memory) by
/// default; set body, particle and spring capacities to use them.
cr_spring_budget cr_default_spring_budget(void);

/// One soft body. Masses in kg, stiffness in N/m, damping in N s/m.
typedef struct cr_soft_def {
    uint32_t asset;              ///< registered asset slot: vertices are particles, edges springs
    cr_transform transform;      ///< where the rest shape (the asset's body frame) is placed
    cr_vec3 linear_velocity;     ///< m/s, of every particle
    cr_vec3 angular_velocity;    ///< rad/s, about transform.p
    cr_real mass;                ///< kg, the whole body's
    bool area_masses;            ///< each particle a third of its triangles' area x density (non-uniform meshes); false: the seed's equal masses
    cr_real stiffness;           ///< N/m, each structural spring (an edge)
    cr_real bend_stiffness;      ///< N/m, each bending spring (across an edge); 0: none
    cr_real damping;             ///< N s/m, on the relative velocity along each spring
    cr_real absolute_damping;    ///< N s/m, on each particle's absolute velocity (the seed's form; slows rigid motion too)
    bool normalise_by_neighbours; ///< the seed's force / n (n: the particle's neighbour count)
    cr_real volume_stiffness;    ///< Pa, pressure per unit relative volume change (closed meshes; 0: volume not kept)
    cr_real particle_radius;     ///< m, collision radius of each particle against rigid bodies; 0: 0.35 x the mean edge (against soft bodies: at least the widest triangle's circumradius)
    cr_real friction;            ///< Coulomb friction against anything
    cr_real restitution;         ///< of impacts faster than 1 m/s (slower ones rest)
    bool no_sleep;               ///< never sleeps
    bool surface_contacts;       ///< on by default: against another soft body that has it too, each particle against the other's triangles at a skin of 0.08 x the mean edge, so their surfaces rest about 0.01 m apart (0.125 m edges); off: as particle spheres of the widest triangle's circumradius (0.166 m apart), about a fifth less step time in a pile (docs/mass-spring.md)
    cr_real volume_tolerance;    ///< relative, 0 or within (0, 0.5]: |V - V0| / V0 is held within it however hard the body is loaded (a hard volume constraint past it; closed meshes only); 0: only volume_stiffness
    cr_real rolling_friction;    ///< m, lever arm of the rolling resistance against static and kinematic bodies (the larger of it and theirs), 0..10
    uint64_t user_data;
    uint32_t cookie;             ///< set by cr_default_soft_def(); checked by cr_soft_create
} cr_soft_def;

/// A rubber ball: stiffness 1000 N/m, bending 250 N/m, damping 0.5 N s/m,
/// volume stiffness 20 kPa, 1 kg, friction 0.5, restitution 0.3, rolling
/// friction 0.01 m, surface contacts on.
cr_soft_def cr_default_soft_def(void);

/// Create a soft body. CR_ERR_CAPACITY when the world has no room for its
/// body, particles or springs (cr_spring_budget); CR_ERR_DEF_INVALID (the
/// field in cr_world_refused_field) for a value out of range (stiffness and
/// damping up to 1e7); CR_ERR_NOT_FINITE for NaN/Inf.
cr_status cr_soft_create(cr_world *world, const cr_soft_def *def, cr_soft_id *out);
/// Destroy a soft body; the others keep their handles.
cr_status cr_soft_destroy(cr_world *world, cr_soft_id id);

/// Particles (= the asset's vertices, in its order) in world space; returns
/// the particle count (0 for a stale handle). Writes at most `capacity`.
uint32_t cr_soft_get_positions(const cr_world *world, cr_soft_id id, cr_vec3 *out, uint32_t capacity);
/// Particle velocities, m/s, like cr_soft_get_positions.
uint32_t cr_soft_get_velocities(const cr_world *world, cr_soft_id id, cr_vec3 *out, uint32_t capacity);
/// Outward unit vertex normals of the deformed surface (area weighted), like
/// cr_soft_get_positions: with the asset's triangles, the mesh to draw.
uint32_t cr_soft_get_normals(const cr_world *world, cr_soft_id id, cr_vec3 *out, uint32_t capacity);

/// What a game or a test reads about a soft body as a whole.
typedef struct cr_soft_state {
    uint32_t particles;          ///< particle count
    uint32_t springs;            ///< springs (structural + bending)
    cr_real mass;                ///< kg
    cr_vec3 centre;              ///< m, centre of mass
    cr_vec3 linear_momentum;     ///< kg m/s
    cr_vec3 angular_momentum;    ///< kg m^2/s, about the centre of mass
    cr_real kinetic_energy;      ///< J
    cr_real elastic_energy;      ///< J, springs + volume
    cr_real volume;              ///< m^3 now (closed meshes)
    cr_real rest_volume;         ///< m^3 at rest
    cr_real edge_error;          ///< RMS of (length - rest) / rest over the structural springs
    cr_vec3 bounds_min, bounds_max; ///< m, of the particles
    bool asleep;
} cr_soft_state;
cr_status cr_soft_get_state(const cr_world *world, cr_soft_id id, cr_soft_state *out);

/// Apply an impulse (N s, each component within ±1e6: CR_ERR_ARGUMENT_RANGE)
/// at the particle nearest `world_point`; wakes the body. A particle's
/// velocity components are kept within ±1000 m/s.
cr_status cr_soft_apply_impulse(cr_world *world, cr_soft_id id, cr_vec3 impulse, cr_vec3 world_point);
/// Apply an impulse (N s, each component within ±1e6: CR_ERR_ARGUMENT_RANGE)
/// to the whole body: every particle's velocity changes by impulse / mass, so
/// its momentum changes by impulse and nothing turns or deforms (a rigid
/// body's impulse at its centre of mass); wakes the body.
cr_status cr_soft_apply_body_impulse(cr_world *world, cr_soft_id id, cr_vec3 impulse);
/// Set every particle's velocity to one rigid motion: `linear` (m/s) at the
/// centre of mass plus `angular` (rad/s) about it (each component within
/// ±1000: CR_ERR_ARGUMENT_RANGE naming it); the shape is kept; wakes the body.
cr_status cr_soft_set_velocity(cr_world *world, cr_soft_id id, cr_vec3 linear, cr_vec3 angular);

/// The live soft bodies in slot order into `out` (at most `capacity`);
/// returns how many there are (call with capacity 0 to count).
uint32_t cr_world_get_soft_ids(const cr_world *world, cr_soft_id *out, uint32_t capacity);
/// The asset slot a soft body was made from (its triangles are the surface
/// to draw over cr_soft_get_positions); UINT32_MAX for a stale handle.
uint32_t cr_soft_get_asset(const cr_world *world, cr_soft_id id);

#ifdef __cplusplus
}
#endif

#endif
