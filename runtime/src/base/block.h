/* block.h — the layout of a world block (internal to the runtime).
 *
 * The block is the one data structure every layer of the runtime reads
 * (geometry, solver, damage, world: docs/architecture.md), so its layout is
 * at the base: the body and joint records, and the offsets of each layer's
 * region. A layer's own records (the damage stage's, for one) live in its
 * region and are declared in that layer's headers, never here.
 *
 * The block starts with struct cr_world; after it the persistent arena holds
 * every array sized from the def (bodies, joints, events, the asset table),
 * and the block ends with the per-step scratch arena. Arrays are found through
 * offsets stored here, never through stored pointers, so copying the block's
 * bytes copies the world. The one exception is the asset table: it holds the
 * host's cr_asset view pointers, which are external resources (never hashed).
 */
#ifndef CRUMPLE_BLOCK_H
#define CRUMPLE_BLOCK_H

#include "crumple/crumple.h"
#include "base/arena.h"

#include <stddef.h>

#define CR_WORLD_MAGIC 0x57524352u /* "CRWR" */
#define CR_DEF_COOKIE 0x63726d70u  /* "crmp" */
/* Largest block a world may use: offsets are 32-bit. */
#define CR_MAX_BLOCK_BYTES 0xfffffff0u

/// Internal body record. Dead slots are chained through next_free.
typedef struct cr_body {
    uint32_t generation;
    uint32_t next_free;   ///< index1 of the next free slot when dead
    uint8_t alive;
    uint8_t type;         ///< cr_body_type
    uint8_t asleep;       ///< resting with its island: out of the solver until woken (sleep.c)
    uint8_t models;       ///< damage models attached (CR_MODEL_* bits)
    uint8_t no_sleep;     ///< never falls asleep, nor lets its island (cr_body_def.no_sleep)
    uint8_t ghost;        ///< out of collision detection: a bending body whose sub-bodies collide for it (damage/bend_model.c)
    uint8_t disabled;     ///< out of the step: no pairs, no motion (cr_body_set_enabled)
    uint8_t sensor;       ///< overlaps make sensor events, never contacts (solver/touch_events.c)
    uint32_t joint_count; ///< live joints that name this body
    uint32_t island;      ///< while asleep: the island it fell asleep with (lowest slot in it)
    cr_real sleep_time;   ///< s, how long the body has been slower than the sleep thresholds
    cr_vec3 finite_p;     ///< m, its position at the end of its last finite step (a frozen body goes back there)
    cr_quat finite_q;     ///< its orientation then
    cr_transform xf;      ///< centre of mass frame in world space
    cr_vec3 v;            ///< linear velocity, m/s
    cr_vec3 w;            ///< angular velocity, rad/s
    cr_real mass;         ///< kg; 0 for static/kinematic
    cr_real inv_mass;     ///< 1/kg; 0 for static/kinematic
    cr_vec3 inertia;      ///< kg m^2, the inertia tensor's diagonal in the body frame (principal moments for most bodies)
    cr_vec3 inv_inertia;  ///< the inverse tensor's diagonal (body frame)
    cr_vec3 inertia_products;     ///< kg m^2, the tensor's off-diagonal entries xy, xz, yz (0 in a principal frame: base/inertia.h)
    cr_vec3 inv_inertia_products; ///< the inverse tensor's off-diagonal entries
    cr_real bound_radius; ///< m, bounding sphere about the centre of mass
    cr_vec3 force;        ///< N, accumulated for the next velocity update
    cr_vec3 torque;       ///< N m, world frame, accumulated for the next velocity update
    cr_shape_def shape;
    cr_material material;
    uint64_t user_data;
    cr_filter filter;     ///< collision filter (broadphase.c)
    cr_real gravity_scale;   ///< times the world's gravity (1: as every body)
    cr_real linear_damping;  ///< 1/s
    cr_real angular_damping; ///< 1/s
    uint32_t material_set;   ///< 1 once cr_body_set_material changed the material: it is hashed from then on
    cr_real soft_depth;   ///< m, how deep other bodies sink into its rest surface before the solver pushes (squash model; 0: rigid)
} cr_body;

/// Internal joint record. Anchors and axes live in the bodies' frames.
typedef struct cr_joint {
    uint32_t generation;
    uint32_t next_free;   ///< index1 of the next free slot when dead
    uint8_t alive;
    uint8_t type;         ///< cr_joint_type
    uint8_t collide_connected;
    uint8_t pad_;
    uint32_t a, b;        ///< body slot index + 1; b == 0 is the world
    cr_vec3 local_anchor_a, local_anchor_b; ///< m, from each centre of mass, body frame (b: world frame if b == 0)
    cr_vec3 local_axis_a, local_axis_b;     ///< unit hinge axis in each body frame (b: world frame if b == 0)
    cr_quat rest;         ///< rest relative orientation conj(q_a) q_b (q_b = identity for the world)
    cr_vec3 linear_impulse;  ///< N s on body a, last step's pre-stabilisation
    cr_vec3 angular_impulse; ///< N m s on body a, last step's pre-stabilisation
    uint64_t user_data;
    /* bending joints (seed 000 §4: solver/plastic_joint.c, solver/elastic_joint.c) */
    cr_real bend_strength;   ///< N m s; 0: never yields
    cr_real bend_damping;    ///< 1/s
    cr_real bend_damping_constant; ///< rad/s^2
    cr_real spring_stiffness; ///< N m/rad; 0: no spring
    cr_real spring_damping;  ///< N m s/rad
    cr_vec3 bend_rate;       ///< rad/s, a's frame: the relative angular velocity a yielding joint still bends at (zero: holding)
    cr_vec3 spring_w_end;    ///< rad/s, a's frame: the spring's closed-form relative angular velocity at the end of this step
    cr_vec3 target_w;        ///< rad/s, world: the relative angular velocity this pass aims at (working value of one step)
    uint32_t yielded;        ///< the plastic clamp bit in this step's pre-stabilisation
    uint32_t pad2_;
} cr_joint;

/// Blocks of a coarse minimum grid at most (shape.c).
#define CR_COARSE_MAX 2048u
/// Samples per cluster, and samples an asset may have to be clustered.
#define CR_CLUSTER_SIZE 16u
#define CR_CLUSTER_MAX_SAMPLES 4096u

/// Seed 002's "labeling the minimum ... values of phi in each voxel": per
/// registered asset, the minimum of the SDF nodes of each block of cells, so
/// most samples that cannot touch are rejected with one lookup in a small
/// table instead of a trilinear lookup in a large grid.
typedef struct cr_coarse_grid {
    uint32_t dims[3];          ///< blocks along x, y, z (0: no table)
    uint32_t block;            ///< cells per block edge
    cr_real min[CR_COARSE_MAX]; ///< m, minimum node value of each block (its far nodes included)
    /* the sample points in clusters of CR_CLUSTER_SIZE neighbours (Morton
     * order), each with a bounding sphere: a pair tests a cluster's sphere
     * before any of its samples */
    uint32_t clusters;         ///< 0: the asset has more than CR_CLUSTER_MAX_SAMPLES samples, no clusters
    uint32_t order[CR_CLUSTER_MAX_SAMPLES]; ///< sample indices, cluster after cluster
    cr_vec3 centre[CR_CLUSTER_MAX_SAMPLES / CR_CLUSTER_SIZE];  ///< m, body frame
    cr_real radius[CR_CLUSTER_MAX_SAMPLES / CR_CLUSTER_SIZE];  ///< m
} cr_coarse_grid;

/// A contact impulse kept from one step to the next (solver/warm_start.c),
/// sorted by (pair, feature). State: hashed and snapshotted.
typedef struct cr_warm_impulse {
    uint64_t pair;        ///< (a << 32 | b), body slots
    uint32_t feature;     ///< the sample (cr_cpoint.feature)
    uint32_t generations; ///< the two bodies' slot generations, mixed: a reused slot starts cold
    cr_real jn;           ///< N s, normal impulse
    cr_vec3 jt;           ///< N s, tangential impulse
} cr_warm_impulse;


struct cr_world {
    uint32_t magic;
    uint32_t block_size;
    cr_world_def def;
    cr_arena persistent;
    cr_arena scratch;
    uint32_t bodies;        ///< offset of cr_body[def.body_capacity]
    uint32_t free_body;     ///< index1 of the first free slot, 0 if none
    uint32_t body_count;    ///< live bodies
    uint32_t body_high;     ///< slots ever used (live or dead): iteration bound
    uint32_t joints;        ///< offset of cr_joint[def.joint_capacity]
    uint32_t free_joint;
    uint32_t joint_count;
    uint32_t joint_high;
    uint32_t events;        ///< offset of cr_impact_event[def.event_capacity]
    uint32_t event_count;   ///< events of the last step
    uint32_t assets;        ///< offset of (const cr_asset *)[def.asset_capacity]: host pointers, not hashed
    uint32_t asset_count;
    uint32_t coarse;        ///< offset of cr_coarse_grid[def.asset_capacity] (shape.c), derived from the assets, not hashed
    uint32_t damage_region; ///< offset of the damage stage's cr_damage_region (damage/damage.h)
    uint32_t warm;          ///< offset of cr_warm_impulse[def.point_capacity] (solver/warm_start.c)
    uint32_t warm_count;    ///< impulses kept from the last step
    uint32_t soft_region;   ///< offset of the soft-body stage's cr_soft_region (soft/mass_spring.h)
    uint32_t sensor_overlaps;  ///< offset of cri_sensor_overlap[def.sensor_capacity], sorted by (sensor, visitor) slot (solver/sensors.c)
    uint32_t sensor_overlap_count;
    uint32_t sensor_events;    ///< offset of cr_sensor_event[def.sensor_event_capacity]
    uint32_t sensor_event_count;
    uint32_t touches;          ///< offset of cri_touch[def.touch_capacity], sorted by pair (solver/contact_events.c)
    uint32_t touch_count;
    uint32_t contact_events;   ///< offset of cr_contact_event[def.contact_event_capacity]
    uint32_t contact_event_count;
    uint32_t query_region;  ///< offset of the queries' cr_query_region (query/query_tree.h): derived, not hashed
    uint32_t query_epoch;   ///< bumped by every call that moves, makes or removes a body between steps, so the
                            ///< queries know their body tree is stale (query/body_tree.c); not hashed
    uint64_t step_count;
    cr_world_stats stats;
    uint32_t refused_field; ///< cr_field of the last refused call (validate.c); not state, not hashed
};

static inline cr_body *cr_world_bodies(cr_world *w) { return CR_AT(w, w->bodies, cr_body); }
static inline const cr_body *cr_world_bodies_c(const cr_world *w) { return CR_AT(w, w->bodies, const cr_body); }
static inline cr_joint *cr_world_joints(cr_world *w) { return CR_AT(w, w->joints, cr_joint); }
static inline const cr_joint *cr_world_joints_c(const cr_world *w) { return CR_AT(w, w->joints, const cr_joint); }
static inline cr_impact_event *cr_world_events(cr_world *w) { return CR_AT(w, w->events, cr_impact_event); }
/// Bits of cr_body.models: which damage models a body has (a quick test before a lookup).
#define CR_MODEL_DENT 1u
#define CR_MODEL_CUSTOM 2u
#define CR_MODEL_EXAMPLE 4u
#define CR_MODEL_BEND 8u
#define CR_MODEL_SQUASH 32u
#define CR_MODEL_FRACTURE 16u

/// Shape asset slots with this bit name a body's own surface copy (a dented
/// body: damage/surfaces.c), so the solver collides with the moved surface
/// without knowing it moved. Internal: cr_body_get_shape and
/// cr_world_get_asset never return such a slot.
#define CR_SURFACE_SLOT_FLAG 0x80000000u

/// The view of a body's own surface copy behind a flagged slot; defined by the
/// damage stage (damage/surfaces.c), the one call the block makes upward.
const cr_asset *cri_damage_surface_view(const cr_world *w, uint32_t slot);
static inline const cr_asset *cr_world_asset(const cr_world *w, uint32_t slot) {
    if (slot & CR_SURFACE_SLOT_FLAG) return cri_damage_surface_view(w, slot);
    if (slot >= w->asset_count) return NULL;
    return CR_AT(w, w->assets, const cr_asset *const)[slot];
}

/* Slots of generation-checked records (cr_body, cr_joint): every such record
 * begins with {uint32_t generation; uint32_t next_free;}, dead slots are
 * chained through next_free (index1, 0 ends the list) and the last freed slot
 * is reused first, so reuse order is part of the state and deterministic. */
_Static_assert(offsetof(cr_body, generation) == 0 && offsetof(cr_body, next_free) == 4, "cr_body slot header");
_Static_assert(offsetof(cr_joint, generation) == 0 && offsetof(cr_joint, next_free) == 4, "cr_joint slot header");

static inline uint32_t *cr_slot_word_(void *records, size_t stride, uint32_t index, uint32_t word) {
    return (uint32_t *)((uint8_t *)records + stride * index) + word;
}
/// A slot to fill: the last freed one, else a never-used one; UINT32_MAX when all are live.
static inline uint32_t cr_slot_take(void *records, size_t stride, uint32_t *free_head, uint32_t *high, uint32_t capacity) {
    if (*free_head != 0) {
        uint32_t index = *free_head - 1;
        *free_head = *cr_slot_word_(records, stride, index, 1);
        return index;
    }
    return *high < capacity ? (*high)++ : UINT32_MAX;
}
/// Give a slot back; its generation grows so old handles to it stop working.
static inline void cr_slot_release(void *records, size_t stride, uint32_t *free_head, uint32_t index) {
    ++*cr_slot_word_(records, stride, index, 0);
    *cr_slot_word_(records, stride, index, 1) = *free_head;
    *free_head = index + 1;
}

/// A body was moved, made, removed or given a surface copy outside a step:
/// the queries' body tree (query/body_tree.c) no longer describes the bodies.
static inline void cri_query_stale(cr_world *w) { ++w->query_epoch; }

/// Mix one body's state into a hash (the world state hash and the per-body
/// hashes of replays use this one list, so they can never disagree).
uint64_t cri_body_hash_into(uint64_t h, const cr_body *b, uint32_t slot);

/// A body's damping over one step (body.c): v and w shrink by 1 / (1 + dt c),
/// which never reverses them however large dt c is; no-op without damping.
void cri_body_damp(const cr_body *b, cr_real dt, cr_vec3 *v, cr_vec3 *w);

/// The live body a handle names, or NULL if the handle is null or stale.
cr_body *cri_world_body(cr_world *w, cr_body_id id);
const cr_body *cri_world_body_c(const cr_world *w, cr_body_id id);
/// Destroy every joint naming body slot index1 (body.c calls it on destroy).
void cri_joints_remove_for_body(cr_world *w, uint32_t body_index1);
/// Wake a sleeping body and the island it fell asleep with (sleep.c); a
/// no-op for an awake body. Returns how many bodies woke.
uint32_t cri_world_wake(cr_world *w, uint32_t slot);
/// Wake every sleeping body (sleep.c): for changes whose reach is not known. Returns how many woke.
uint32_t cri_world_wake_all(cr_world *w);

void cri_world_log(const cr_world *w, cr_log_level level, const char *message);
void cri_world_assert_failed(const cr_world *w, const char *expr, const char *file, int line);
#define CR_ASSERT(w, cond) \
    ((cond) ? (void)0 : cri_world_assert_failed((w), #cond, __FILE__, __LINE__))

uint64_t cri_world_now(const cr_world *w);

#endif
