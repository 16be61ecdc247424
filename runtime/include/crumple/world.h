/* crumple/world.h — the world: one block of host memory holding every body,
 * contact, joint and event, stepped with a bounded amount of work.
 *
 * Usage:
 *     cr_world_def def = cr_default_world_def();
 *     def.body_capacity = 256;
 *     size_t size = cr_world_memory_size(&def);
 *     void *block = my_aligned_alloc(CR_BLOCK_ALIGN, size);   // the host's memory, not ours
 *     cr_world *world = NULL;
 *     cr_status s = cr_world_create(&def, block, size, &world);
 *     ... cr_world_step(world, CR_R(1.0/60.0)); ...
 *     // no destroy call: the block is the host's; drop it when done.
 *
 * One step is the time sequencing of seed 002 (Guendelman, Bridson, Fedkiw
 * 2003), docs/solver.md: collisions on predicted positions, velocity update,
 * contacts (restitution ramp, contact-graph levels, shock propagation),
 * rolling/spinning friction, joints, position update, impact events.
 *
 * The world never allocates. Every capacity is a def field; when one runs out
 * the call returns an error (or the step counts an overflow in the stats) and
 * the world stays valid. State inside the block is addressed by offsets, so a
 * byte copy of the block is a snapshot (cooked assets are the exception: the
 * world keeps the host's cr_asset view pointers, which the host must keep
 * alive and at the same address).
 */
#ifndef CRUMPLE_WORLD_H
#define CRUMPLE_WORLD_H

#include "base.h"
#include "vecmath.h"
#include "dent.h"

typedef struct cr_world cr_world;
struct cr_asset;

/// Host clock used only to fill the time fields of the stats; may be null.
typedef uint64_t cr_clock_ns_fn(void *user);

/// Everything needed to size and create a world. Fill with cr_default_world_def().
typedef struct cr_world_def {
    cr_vec3 gravity;              ///< m/s^2
    uint32_t body_capacity;       ///< live bodies at once
    uint32_t joint_capacity;      ///< live joints at once
    uint32_t pair_capacity;       ///< broadphase pairs per step
    uint32_t points_per_pair;     ///< interference points kept per pair (the deepest are kept)
    uint32_t point_capacity;      ///< interference points per step, all pairs together
    uint32_t contact_capacity;    ///< interfering pairs (contact manifolds) in the solver per step
    uint32_t event_capacity;      ///< impact events kept per step
    uint32_t asset_capacity;      ///< cooked assets registered at once
    uint32_t scratch_bytes;       ///< per-step scratch arena, reset every step; the world takes more if its capacities need more (cr_world_scratch_size)
    uint32_t collision_passes;    ///< seed 002 collision iterations per step (5 in the paper)
    uint32_t contact_passes;      ///< seed 002 contact iterations per step (10 in the paper), the last is the shock sweep
    uint32_t level_iterations;    ///< at most this many sweeps of each contact-graph level in the last contact pass (default 8; the others sweep once)
    uint32_t joint_iterations;    ///< joint pre- and post-stabilisation iterations per step (default 8)
    bool shock_propagation;       ///< seed 002 shock propagation on the last contact sweep
    cr_real broadphase_cell;      ///< m, spatial hash cell edge; 0 = from the mean body size each step
    cr_real event_min_speed;      ///< m/s, collisions approaching slower than this make no impact event (default 0.1)
    bool sleep;                   ///< let resting islands of bodies sleep (leave the solver) until something touches them (default on)
    cr_real sleep_time;           ///< s, an island sleeps once all its bodies rested this long (default 0.5)
    cr_real sleep_linear;         ///< m/s, "rested": moved less than sleep_linear x sleep_time over that time (default 0.05)
    cr_real sleep_angular;        ///< rad/s, "rested": turned less than sleep_angular x sleep_time over that time (default 0.05)
    cr_deform_def deform;         ///< budgets of the deformation stage (crumple/dent.h)
    cr_log_fn *log;               ///< optional log sink
    void *log_user;
    cr_assert_fn *assert_handler; ///< optional; called when an internal invariant fails
    void *assert_user;
    cr_clock_ns_fn *clock_ns;     ///< optional; stats times are 0 without it
    void *clock_user;
    uint32_t cookie;              ///< set by cr_default_world_def(); checked by create
} cr_world_def;

/// Default settings: earth gravity along -y, room for a few hundred bodies,
/// the paper's 5 collision and 10 contact passes with shock propagation.
cr_world_def cr_default_world_def(void);
/// Bytes of block needed for `def` (0 if the def is invalid).
size_t cr_world_memory_size(const cr_world_def *def);
/// Scratch bytes one step of the solver needs for the capacities in `def`
/// (the scratch arena is the larger of this and def.scratch_bytes).
size_t cr_world_scratch_size(const cr_world_def *def);
/// Create a world inside `block` (aligned to CR_BLOCK_ALIGN, at least cr_world_memory_size bytes).
cr_status cr_world_create(const cr_world_def *def, void *block, size_t block_size, cr_world **out_world);
/// The def the world was created with (scratch_bytes resolved).
cr_world_def cr_world_get_def(const cr_world *world);

/// Change gravity (m/s^2) between steps.
cr_status cr_world_set_gravity(cr_world *world, cr_vec3 gravity);
/// Switch shock propagation on or off between steps.
cr_status cr_world_set_shock_propagation(cr_world *world, bool enabled);

/// Register a loaded cooked asset so mesh bodies can use it. The world keeps
/// the pointer (not a copy): `asset` and the memory it views must stay alive
/// and unchanged while the world uses them. *slot receives the slot for
/// cr_shape_def.asset. CR_ERR_CAPACITY when asset_capacity slots are taken.
cr_status cr_world_add_asset(cr_world *world, const struct cr_asset *asset, uint32_t *slot);
/// The asset in a slot, or NULL.
const struct cr_asset *cr_world_get_asset(const cr_world *world, uint32_t slot);

/// Memory report of the block, in bytes.
typedef struct cr_memory_stats {
    size_t capacity;          ///< size of the block
    size_t used;              ///< bytes taken now (persistent + scratch in use)
    size_t high_water;        ///< most bytes ever taken
    size_t scratch_capacity;  ///< per-step scratch size
    size_t scratch_high_water;
} cr_memory_stats;
cr_memory_stats cr_world_memory_stats(const cr_world *world);

/// Work counts (deterministic) and times (not) of the last step, per stage.
typedef struct cr_stage_stats {
    uint32_t work;      ///< items processed (pairs, points, bodies, ...)
    uint32_t overflow;  ///< items that did not fit a capacity and were dropped or deferred
    uint64_t time_ns;   ///< 0 without a clock hook
} cr_stage_stats;

/* What `work` counts per stage:
 *   commands     forces and torques applied at the velocity update
 *   broadphase   candidate pairs (overflow: pairs over pair_capacity, bodies off the hash)
 *   narrowphase  interference points kept (overflow: points or pairs that did not fit)
 *   collision    collision impulses applied
 *   velocity     bodies whose velocity was updated
 *   contact      contact impulses applied
 *   joints       joint impulses (pre- and post-stabilisation)
 *   position     bodies moved
 *   events       impact events written (overflow: events over event_capacity)
 *   deform       dents applied (overflow: impacts still queued or dropped)  */
#define CR_STAGE_LIST(X) \
    X(commands)          \
    X(broadphase)        \
    X(narrowphase)       \
    X(collision)         \
    X(velocity)          \
    X(contact)           \
    X(joints)            \
    X(position)          \
    X(events)            \
    X(deform)

typedef enum cr_stage {
#define CR_X_STAGE_(name) CR_STAGE_##name,
    CR_STAGE_LIST(CR_X_STAGE_)
#undef CR_X_STAGE_
    CR_STAGE_COUNT
} cr_stage;

/// Name of a stage, e.g. "broadphase".
const char *cr_stage_name(cr_stage s);

typedef struct cr_world_stats {
    uint64_t step_count;
    uint32_t body_count;
    uint32_t joint_count;
    uint32_t pairs;            ///< broadphase pairs of the last step
    uint32_t manifolds;        ///< pairs with interference points
    uint32_t points;           ///< interference points
    uint32_t contact_levels;   ///< levels of the contact graph
    uint32_t largest_level;    ///< bodies in the largest strongly connected component
    uint32_t collision_passes_run; ///< collision passes until no impulse was needed
    uint32_t sleeping;         ///< bodies asleep after the step
    uint32_t woken;            ///< bodies woken during the step
    uint32_t dent_cells;       ///< dent-map and grid-patch cells the deformation stage used
    cr_stage_stats stage[CR_STAGE_COUNT];
} cr_world_stats;
cr_world_stats cr_world_get_stats(const cr_world *world);

/// Advance the world by dt seconds.
cr_status cr_world_step(cr_world *world, cr_real dt);

/// 64-bit hash of the simulation state (bodies, joints, pending forces, the
/// last step's events): equal hashes mean bit-identical state. Independent of
/// pointers and padding (asset pointers are not hashed).
uint64_t cr_world_state_hash(const cr_world *world);

#endif
