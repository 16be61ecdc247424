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

/* Link names carry the scalar mode (CR_LINK_NAME, crumple/real.h), so code
 * compiled in the other mode fails to link instead of misreading every cr_real. */
#define cr_damage_op_name CR_LINK_NAME(cr_damage_op_name)
#define cr_default_damage_costs CR_LINK_NAME(cr_default_damage_costs)
#define cr_default_world_def CR_LINK_NAME(cr_default_world_def)
#define cr_world_memory_size CR_LINK_NAME(cr_world_memory_size)
#define cr_world_memory_need CR_LINK_NAME(cr_world_memory_need)
#define cr_world_scratch_size CR_LINK_NAME(cr_world_scratch_size)
#define cr_world_memory_report CR_LINK_NAME(cr_world_memory_report)
#define cr_asset_damage_bytes CR_LINK_NAME(cr_asset_damage_bytes)
#define cr_world_create CR_LINK_NAME(cr_world_create)
#define cr_world_def_check CR_LINK_NAME(cr_world_def_check)
#define cr_world_refused_field CR_LINK_NAME(cr_world_refused_field)
#define cr_world_get_def CR_LINK_NAME(cr_world_get_def)
#define cr_world_set_gravity CR_LINK_NAME(cr_world_set_gravity)
#define cr_world_set_shock_propagation CR_LINK_NAME(cr_world_set_shock_propagation)
#define cr_world_add_asset CR_LINK_NAME(cr_world_add_asset)
#define cr_world_get_asset CR_LINK_NAME(cr_world_get_asset)
#define cr_world_memory_stats CR_LINK_NAME(cr_world_memory_stats)
#define cr_stage_name CR_LINK_NAME(cr_stage_name)
#define cr_world_get_stats CR_LINK_NAME(cr_world_get_stats)
#define cr_world_step CR_LINK_NAME(cr_world_step)
#define cr_world_state_hash CR_LINK_NAME(cr_world_state_hash)

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cr_world cr_world;
struct cr_asset;
struct cr_custom_step;

/// Per-step caps and capacities of the dent model (crumple/dent.h). Dents
/// beyond a cap wait in the model's queue, in arrival order, for later steps.
typedef struct cr_dent_budget {
    uint32_t body_capacity;   ///< bodies with a dent model attached at once (0: no dents, no memory for them)
    uint32_t dents_per_step;  ///< dents applied per step at most
    uint32_t work_per_step;   ///< work units per step: dent-map cells per pass (Z-buffer, broadening, each
                              ///< smoothing iteration) + grid nodes patched + vertices and triangles of
                              ///< target and projectile every dent loops over
    uint32_t queue_capacity;  ///< impacts waiting for a later step
    uint32_t max_cells;       ///< largest dent-map grid side
} cr_dent_budget;

/// Per-step caps and capacities of the example-based plasticity model
/// (crumple/example.h). Impulses beyond a cap wait in the model's queue in
/// arrival order; bodies whose re-skin does not fit wait for a later step.
typedef struct cr_example_budget {
    uint32_t body_capacity;      ///< bodies with the model attached at once (0: none, no memory for it)
    uint32_t max_vertices;       ///< vertices of a plastic body's asset at most (sizes E and dE per body)
    uint32_t max_examples;       ///< example poses (rest included) of its asset at most
    uint32_t queue_capacity;     ///< impulses waiting for a later step
    uint32_t impulses_per_step;  ///< impulses turned into weight changes per step (eq. 4-8)
    uint32_t neighbours_per_step; ///< geodesic neighbours visited per step (eq. 11)
    uint32_t vertices_per_step;  ///< vertices faded in and re-skinned per step (eq. 13, 3)
    uint32_t grid_nodes_per_step; ///< distance-grid nodes patched per re-skinned body and step (a larger change is cut, counted shrunk)
} cr_example_budget;

/// Per-step caps and capacities of the bending model (crumple/bend.h).
/// Bodies whose re-skin does not fit wait for a later step, in slot order.
typedef struct cr_bend_budget {
    uint32_t body_capacity;     ///< bendable bodies at once (0: none, no memory for them)
    uint32_t max_bones;         ///< bones (sub-bodies) per bendable body at most
    uint32_t max_vertices;      ///< vertices of a bendable body's asset at most
    uint32_t max_triangles;     ///< triangles of its asset at most
    uint32_t max_grid_nodes;    ///< distance-grid nodes of its asset at most (sizes the segmentation scratch)
    uint32_t vertices_per_step; ///< vertices re-skinned per step, all bendable bodies together
    uint32_t splits_per_step;   ///< bones split at impacts per step (dynamic articulation); the rest wait
    uint32_t queue_capacity;    ///< splits waiting for a later step
    uint32_t condensations_per_step; ///< clusters condensed or woken per step (condensation)
    uint32_t dents_per_step;    ///< dents made on bendable bodies per step (bend + dent); more impacts count over_capacity
    uint32_t dent_cells;        ///< largest dent-map side for them (sizes the scratch)
    uint32_t seams_per_step;    ///< joints whose seams are re-segmented per step (docs/bending.md "Seams"); the rest wait; 0: never
} cr_bend_budget;
/// Per-step caps and capacities of the squash model (crumple/squash.h).
/// A zone past zone_vertices stays at rest (counted shrunk); bodies whose
/// skin update does not fit vertices_per_step wait for a later step.
typedef struct cr_squash_budget {
    uint32_t body_capacity;      ///< squishy bodies at once (0: none, no memory for them)
    uint32_t max_vertices;       ///< vertices of a squishy body's mesh at most
    uint32_t max_primitives;     ///< skeleton primitives per body at most
    uint32_t zone_vertices;      ///< vertices one body's skin deforms per step at most
    uint32_t vertices_per_step;  ///< vertices scanned by all skin updates of a step (the first body always runs)
    uint32_t posable;            ///< 1: room for each squishy body's posed rest skin (cr_squash_set_primitives); 0: none
    uint32_t sculpt_nodes;       ///< nodes of each body's sculpting grid at most (needs posable; 0: no sculpting)
    uint32_t pose_grid_nodes;    ///< distance-grid nodes rewritten per step, all bodies, so a posed body's collision follows
                                 ///< its pose (0: the grid stays the cooked pose's; the samples follow at once either way)
} cr_squash_budget;
/// Per-step caps and capacities of prescored fracture (crumple/fracture.h).
/// Impacts beyond bonds_per_step wait in the model's queue in arrival order;
/// bodies whose islands or pieces do not fit this step wait for the next.
typedef struct cr_fracture_budget {
    uint32_t body_capacity;    ///< fracturable bodies at once (0: none, no memory for it)
    uint32_t piece_capacity;   ///< pieces of all fracturable bodies together
    uint32_t bond_capacity;    ///< bonds of all fracturable bodies together
    uint32_t bonds_per_step;   ///< bond evaluations per step (impact damage + stress sweeps + joint loads)
    uint32_t islands_per_step; ///< support-graph pieces + bonds visited finding islands per step
    uint32_t pieces_per_step;  ///< pieces made bodies per step (a body splits whole or waits)
    uint32_t queue_capacity;   ///< impacts waiting for a later step
    uint32_t carry_corners;    ///< corners of a dented whole's surface kept at its split for its pieces' dents
                               ///< (one break's at a time; a bigger dented whole splits undented, counted shrunk)
    uint32_t carry_nodes;      ///< a piece's carried-dent grid patch staged between steps (nodes)
} cr_fracture_budget;

/// A damage model the game writes itself (crumple/damage.h): called once per
/// step for every body it is attached to, with that body's impacts and
/// contacts in the body's frame. `step` returns the work units it spent.
typedef uint32_t cr_custom_step_fn(void *user, struct cr_custom_step *step);
typedef struct cr_custom_budget {
    uint32_t body_capacity;   ///< bodies with the custom model attached at once
    uint32_t state_bytes;     ///< per attached body, in the block: snapshotted, rolled back and hashed with the world
    uint32_t work_per_step;   ///< work units per step for all its bodies together
    cr_custom_step_fn *step;  ///< the game's model (a host hook like log: not part of the state)
    void *user;
} cr_custom_budget;

/// Room and integrator settings for mass-spring soft bodies (crumple/spring.h),
/// a field of cr_world_def. A step whose soft work would pass work_per_step
/// steps the bodies that fit, in slot order from where the last step stopped;
/// the others wait (they keep their state) and run first next step.
typedef struct cr_spring_budget {
    uint32_t body_capacity;      ///< soft bodies at once (0: none, no memory for them)
    uint32_t particle_capacity;  ///< particles of all soft bodies together
    uint32_t spring_capacity;    ///< springs of all soft bodies together
    uint32_t substeps;           ///< XPBD substeps per step of max_dt (default 8)
    cr_real max_dt;              ///< s, a step of up to max_dt takes `substeps` substeps (default 1/60); a longer one takes more, never longer ones
    uint32_t work_per_step;      ///< (particles + springs) x substeps per step at most, all soft bodies together
} cr_spring_budget;

/// Room for the queries (crumple/query.h, docs/queries.md), a field of cr_world_def.
typedef struct cr_query_def {
    uint32_t mesh_tree_bytes; ///< the registered assets' triangle trees: the sum of cr_asset_query_bytes over the
                              ///< mesh assets to register (default 0: meshes answer queries triangle by triangle; an
                              ///< asset whose tree does not fit is answered so too)
} cr_query_def;

/// The damage stage's memory and every model's capacities (a field of cr_world_def).
/* The damage stage's operations. The stage charges every item of each one
 * against the step's budget at its cost in cr_damage_costs (picoseconds of
 * the reference core per item: docs/frame-budget.md), so that the budget,
 * in nanoseconds of that core, tracks time whatever the mix of work: a grid
 * node patched costs a hundred dent-map cells. The models not yet cut into
 * slices of their own operations are charged one cost per unit of their
 * own count (the *_work entries). X(name, what one item is) */
#define CR_DAMAGE_OP_LIST(X)                                                                                            \
    X(dent_plan_triangle, "a projectile triangle visited to plan a dent or draw its profile")                          \
    X(dent_map_cell, "a dent-map cell in one pass (the Gaussian, the Z-buffer's clear, broadening, each smoothing iteration)") \
    X(dent_vertex, "a target vertex tested against a dent")                                                            \
    X(dent_vertex_moved, "a target vertex the dent moved")                                                             \
    X(dent_refresh, "a triangle, vertex or sample of the normals, samples and bounds refresh")                         \
    X(dent_patch_node, "a distance-grid node of a dent's patch box (near the surface or not)")                        \
    X(dent_patch_probe, "a grid node near the surface the dent's displacement is asked at")                          \
    X(dent_patch_linear, "a grid node the dent moved less than half a cell: its first-order value")                  \
    X(dent_patch_moved, "a grid node the dent moved farther: its pre-image iteration and trilinear read")             \
    X(dent_commit_node, "a patched grid node written into the body's grid")                                            \
    X(dent_volume_triangle, "a triangle of the mass refresh's volume")                                                 \
    X(example_work, "a unit of the example model's own count (cr_world_stats.example.done and docs)")                 \
    X(bend_work, "a unit of the bending model's own count")                                                            \
    X(squash_work, "a unit of the squash model's own count")                                                           \
    X(fracture_bond, "a bond an impact's sweep or the joint-load pass looked at")                                       \
    X(fracture_stress, "a piece or bond of a stress sweep, a contact of the whole's load test")                         \
    X(fracture_island, "a piece or bond visited finding a whole's islands")                                             \
    X(fracture_piece, "a piece made a body: its def and commands, its blow, its dent record and surface copy")           \
    X(fracture_carry_corner, "a corner of the whole's dented surface kept, at the split, for its pieces")              \
    X(fracture_carry_vertex, "a piece vertex given the whole's dent (its nearest kept corner), planned or committed")   \
    X(fracture_carry_node, "a grid node of a piece's carried-dent patch: its nearest kept corner, its staged value")   \
    X(fracture_carry_moved, "a grid node the carried dent moved: its pre-image iteration and trilinear read")           \
    X(fracture_refresh, "a triangle, vertex or sample of a piece's refresh when its carried dent commits")              \
    X(custom_work, "a unit the game's own model reports (the game sets what it costs)")

typedef enum cr_damage_op {
#define CR_X_DAMAGE_OP_(name, what) CR_DAMAGE_OP_##name,
    CR_DAMAGE_OP_LIST(CR_X_DAMAGE_OP_)
#undef CR_X_DAMAGE_OP_
    CR_DAMAGE_OP_COUNT
} cr_damage_op;

/// Name of a damage operation, e.g. "dent_patch_moved".
const char *cr_damage_op_name(cr_damage_op op);

/// What each damage operation costs, in picoseconds of the reference core
/// per item (a table per scalar mode: cr_default_damage_costs gives this
/// build's). `crumple bench calibrate` measures a table for the machine it
/// runs on; a team ships its console's.
typedef struct cr_damage_costs {
    uint32_t ps[CR_DAMAGE_OP_COUNT]; ///< ps per item, indexed by cr_damage_op; at most 10^9 (1 ms)
} cr_damage_costs;

/// The reference core's table for this build's scalar mode (docs/frame-budget.md).
cr_damage_costs cr_default_damage_costs(void);

typedef struct cr_damage_def {
    uint32_t budget;           ///< ns of the reference core the whole damage stage may spend per step (at least
                               ///< 10 000); its operations are charged at `costs`; default 1 000 000 (1 ms)
    cr_damage_costs costs;     ///< what each operation costs (cr_default_damage_costs)
    uint32_t surface_bytes;    ///< memory for the bodies' own copies of surface and distance grid (dented bodies)
    uint32_t command_capacity; ///< deferred world commands (create/destroy body/joint) waiting at once
    cr_dent_budget dent;       ///< the dent model (seed 000 §3)
    cr_example_budget example; ///< example-based plasticity (seed 001)
    cr_bend_budget bend;       ///< bending (seed 000 §4)
    cr_squash_budget squash;   ///< squash and bulge of implicit bodies (seed 003)
    cr_fracture_budget fracture; ///< prescored fracture (seeds 000 §1, 001 §5)
    cr_custom_budget custom;   ///< the game's own model, if any
} cr_damage_def;

struct cr_body_id;
/// A game's own pair filter (cr_world_def.pair_filter): called by the
/// broadphase for each candidate pair whose cr_filter bits let it collide,
/// in ascending (lower slot, higher slot) order, between the step's start and
/// any narrowphase work; return false to drop the pair for this step. It must
/// not call the world.
typedef bool cr_pair_filter_fn(void *user, struct cr_body_id a, struct cr_body_id b);

/// Host clock used only to fill the time fields of the stats; may be null.
typedef uint64_t cr_clock_ns_fn(void *user);

/// Everything needed to size and create a world. Fill with cr_default_world_def().
typedef struct cr_world_def {
    cr_vec3 gravity;              ///< m/s^2
    uint32_t body_capacity;       ///< live bodies at once
    uint32_t joint_capacity;      ///< live joints at once
    uint32_t pair_capacity;       ///< broadphase pairs per step
    uint32_t points_per_pair;     ///< interference points kept per pair (the extremes that span the contact, then the deepest)
    uint32_t point_capacity;      ///< interference points per step, all pairs together
    uint32_t contact_capacity;    ///< interfering pairs (contact manifolds) in the solver per step
    uint32_t event_capacity;      ///< impact events kept per step
    uint32_t asset_capacity;      ///< cooked assets registered at once
    uint32_t scratch_bytes;       ///< per-step scratch arena, reset every step; the world takes more if its capacities need more (cr_world_scratch_size); default 0: exactly that
    uint32_t collision_passes;    ///< seed 002 collision iterations per step (5 in the paper)
    uint32_t contact_passes;      ///< seed 002 contact iterations per step (10 in the paper), the last is the shock sweep
    uint32_t level_iterations;    ///< at most this many sweeps of each contact-graph level in the last contact pass (default 8; the others sweep once)
    uint32_t joint_iterations;    ///< joint pre- and post-stabilisation iterations per step (default 8)
    bool shock_propagation;       ///< seed 002 shock propagation on the last contact sweep
    cr_real broadphase_cell;      ///< m, spatial hash cell edge; 0 = from the mean body size each step
    cr_real event_min_speed;      ///< m/s, collisions approaching slower than this make no impact event (default 0.1)
    uint32_t sensor_capacity;     ///< sensor overlaps kept at once (default 64; crumple/events.h)
    uint32_t sensor_event_capacity; ///< sensor begin/end events kept per step (default 64)
    uint32_t touch_capacity;      ///< touching pairs kept after each step for contact events and cr_body_get_contacts (default 0: neither)
    uint32_t contact_event_capacity; ///< contact begin/end/hit events kept per step (default 0; needs touch_capacity)
    cr_real hit_event_speed;      ///< m/s, impacts approaching at least this fast make a hit event (default 1)
    bool sleep;                   ///< let resting islands of bodies sleep (leave the solver) until something touches them (default on)
    cr_real sleep_time;           ///< s, an island sleeps once all its bodies rested this long; a body of a moving island after twice this, if nothing it touches moves (default 0.5)
    cr_real sleep_linear;         ///< m/s, "rested": slower than this at every step of sleep_time (default 0.02)
    cr_real sleep_angular;        ///< rad/s, "rested": turning slower than this at every step of sleep_time (default 0.05)
    cr_damage_def damage;         ///< memory and budgets of the damage stage (dents, the game's own model)
    cr_spring_budget spring;      ///< room for mass-spring soft bodies (crumple/spring.h)
    cr_query_def query;           ///< room for the queries (crumple/query.h)
    cr_log_fn *log;               ///< optional log sink
    void *log_user;
    cr_assert_fn *assert_handler; ///< optional; called when an internal invariant fails
    void *assert_user;
    cr_clock_ns_fn *clock_ns;     ///< optional; stats times are 0 without it
    void *clock_user;
    cr_pair_filter_fn *pair_filter; ///< optional custom pair filter after the cr_filter bits (a host hook: not state)
    void *pair_filter_user;
    uint32_t cookie;              ///< set by cr_default_world_def(); checked by create
} cr_world_def;

/// Default settings: earth gravity along -y, room for a few hundred bodies,
/// the paper's 5 collision and 10 contact passes with shock propagation.
cr_world_def cr_default_world_def(void);
/// Bytes of block needed for `def` (0 if the def is invalid).
size_t cr_world_memory_size(const cr_world_def *def);
/// Largest world block: offsets inside it are 32-bit.
#define CR_WORLD_MAX_BLOCK_BYTES 0xfffffff0u
/// Bytes of block `def` would need even past CR_WORLD_MAX_BLOCK_BYTES (where
/// cr_world_memory_size says 0), so a host can say how much it asked for;
/// 0 if the def is refused for another reason.
uint64_t cr_world_memory_need(const cr_world_def *def);
/// Scratch bytes one step of the solver needs for the capacities in `def`
/// (the scratch arena is the larger of this and def.scratch_bytes).
size_t cr_world_scratch_size(const cr_world_def *def);
/// One region of the world block (cr_world_memory_report).
typedef struct cr_memory_region {
    const char *name;   ///< what it holds, e.g. "bodies", "scratch: interference points"
    const char *field;  ///< the cr_world_def field(s) that size it, e.g. "body_capacity"; "" for fixed overhead
    uint64_t bytes;     ///< its size in the block
} cr_memory_region;
/// Regions cr_world_memory_report lists at most.
#define CR_MEMORY_REGION_MAX 32u
/// Every region of the block `def` needs, in block order, with the def field
/// that sizes it: the way to see what to shrink. Writes at most `capacity`
/// regions to `out` (may be null to count) and returns how many there are;
/// their bytes add up to exactly cr_world_memory_need(def). 0 for a refused
/// def. `crumple run SCENE --memory` prints it for a scene.
uint32_t cr_world_memory_report(const cr_world_def *def, cr_memory_region *out, uint32_t capacity);
/// Bytes of cr_world_def.damage.surface_bytes one body of `asset` takes once a
/// model that moves its surface is attached (cr_dent_attach, cr_example_attach):
/// its own copy of the vertices, normals, collision samples and distance grid.
/// The same for every cr_dent_def / cr_example_def; sum it over the bodies that
/// may deform at once. 0 for a null asset.
uint64_t cr_asset_damage_bytes(const struct cr_asset *asset);
/// Create a world inside `block` (aligned to CR_BLOCK_ALIGN, at least cr_world_memory_size bytes).
cr_status cr_world_create(const cr_world_def *def, void *block, size_t block_size, cr_world **out_world);
/// The status cr_world_create would return for `def` (before any block is
/// needed), and in *field (may be null) the field it refuses: the way to learn
/// which field a refused world def got wrong, since no world exists to ask.
cr_status cr_world_def_check(const cr_world_def *def, cr_field *field);
/// The argument or def field of the most recent call on this world that was
/// refused with a status naming one (CR_FIELD_NONE if none was refused yet).
cr_field cr_world_refused_field(const cr_world *world);
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
 *   damage       ns of the reference core charged by all models (<= damage.budget
 *                but for the models not yet cut into slices: docs/frame-budget.md;
 *                overflow: items waiting); per model: cr_world_stats.dent, ...,
 *                per operation: cr_world_stats.damage_ops                      */
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
    X(damage)

typedef enum cr_stage {
#define CR_X_STAGE_(name) CR_STAGE_##name,
    CR_STAGE_LIST(CR_X_STAGE_)
#undef CR_X_STAGE_
    CR_STAGE_COUNT
} cr_stage;

/// Name of a stage, e.g. "broadphase".
const char *cr_stage_name(cr_stage s);

/// One damage model's work in the last step (deterministic counts).
typedef struct cr_model_stats {
    uint32_t done;          ///< items finished (dents applied; custom: bodies stepped)
    uint32_t work;          ///< ns of the reference core charged (its operations at cr_damage_def.costs)
    uint32_t waiting;       ///< items waiting in the model's queue for a later step
    uint32_t over_capacity; ///< items that found the queue full: counted, not queued
    uint32_t shrunk;        ///< items done smaller than planned to fit the budget (dent map or grid patch)
    uint32_t committed;     ///< changes whose mesh and grid became the body's collision shape in this step
    uint32_t latency_max;   ///< steps from impact to commit, the largest among this step's committed changes (0: same step)
    uint32_t latency_sum;   ///< steps from impact to commit, summed over this step's committed changes
    uint32_t largest_slice; ///< ns charged by the dearest slice of this step: work passes what the stage allowed
                            ///< by less than it (a step's first slice always runs, so every change arrives)
    uint64_t time_ns;       ///< the model's step on the host's clock (0 without one): what `work` predicts
} cr_model_stats;

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
    cr_model_stats dent;       ///< the dent model's work
    cr_model_stats custom;     ///< the game's own model's work
    cr_model_stats example;    ///< example plasticity: done = impulses applied, waiting = impulses + bodies waiting
    cr_model_stats bend;       ///< bending: done = bodies re-skinned, work = vertices re-skinned, waiting = bodies whose re-skin waits
    cr_model_stats squash;     ///< squash: done = skins updated, work = vertices scanned + potentials evaluated, waiting = bodies
    cr_model_stats fracture;   ///< fracture: done = bonds broken, waiting = impacts + bodies waiting, over_capacity = pieces left attached for want of bodies
    cr_model_stats spring;     ///< soft bodies: done = bodies stepped, work = (particles + springs) x substeps, waiting = bodies that waited, over_capacity = soft pairs or rigid candidates that did not fit, shrunk = particle contacts
    uint32_t commands_applied; ///< deferred world commands applied at the end of the step
    uint32_t commands_waiting; ///< deferred commands kept for the next step (queue full or the create was refused)
    cr_stage_stats stage[CR_STAGE_COUNT];
    uint32_t frozen;           ///< bodies whose state became NaN/Inf in the step: frozen (zero velocity, last finite pose)
    uint32_t sensor_overflow;  ///< sensor overlaps past sensor_capacity + sensor events past sensor_event_capacity
    uint32_t contact_overflow; ///< touching pairs past touch_capacity + contact events past contact_event_capacity
    uint32_t damage_ops[CR_DAMAGE_OP_COUNT]; ///< items of each damage operation done in the step (what the budget charged)
    uint32_t broadphase_tests; ///< the broadphase's work: grid cells looked up + boxes compared (it follows the moving bodies, not the sleeping ones)
} cr_world_stats;
cr_world_stats cr_world_get_stats(const cr_world *world);

/// Advance the world by dt seconds.
cr_status cr_world_step(cr_world *world, cr_real dt);

/// 64-bit hash of the simulation state (bodies, joints, pending forces, the
/// last step's events): equal hashes mean bit-identical state. Independent of
/// pointers and padding (asset pointers are not hashed).
uint64_t cr_world_state_hash(const cr_world *world);

#ifdef __cplusplus
}
#endif

#endif
