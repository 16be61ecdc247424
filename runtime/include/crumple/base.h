/* crumple/base.h — status codes, version, and the hooks a host may hand the runtime.
 *
 * Every call that can fail returns a cr_status. The list is one X-macro so that
 * the enum and the printable names can never drift apart, and tests assert the
 * exact code they expect. The runtime prints nothing itself: a host that wants
 * messages passes a log hook in the world def.
 *
 * Which argument or field was wrong. A refused call returns a status that
 * says the class of the problem (CR_ERR_NOT_FINITE, CR_ERR_BAD_ORIENTATION,
 * CR_ERR_ARGUMENT_RANGE, CR_ERR_DEF_INVALID, CR_ERR_MASS_RANGE,
 * CR_ERR_WORLD_TOO_LARGE) and a cr_field that names the argument or def field,
 * e.g. "cr_body_def.orientation" or "dt". There is one way to read it:
 *   - a call on a world: cr_world_refused_field(world) gives the field of the
 *     most recent refused call on that world (kept in the world's block: the
 *     runtime has no globals);
 *   - cr_world_create, where no world exists yet: cr_world_def_check(def, &f)
 *     runs the very checks create runs and returns the same status and field.
 * cr_field_name(f) prints it. See docs/errors.md.
 */
#ifndef CRUMPLE_BASE_H
#define CRUMPLE_BASE_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#include "real.h" /* CR_LINK_NAME */

/* Link names carry the scalar mode (CR_LINK_NAME, crumple/real.h), so code
 * compiled in the other mode fails to link instead of misreading every cr_real. */
#define cr_status_name CR_LINK_NAME(cr_status_name)
#define cr_status_message CR_LINK_NAME(cr_status_message)
#define cr_version_string CR_LINK_NAME(cr_version_string)
#define cr_field_name CR_LINK_NAME(cr_field_name)

#ifdef __cplusplus
extern "C" {
#endif

#define CR_VERSION_MAJOR 0
#define CR_VERSION_MINOR 1
#define CR_VERSION_PATCH 0
#define CR_VERSION_STRING "0.1.0"

/* X(name, message) */
#define CR_STATUS_LIST(X)                                                         \
    X(CR_OK, "ok")                                                                \
    X(CR_ERR_NULL_ARGUMENT, "a required pointer argument is null")                \
    X(CR_ERR_DEF_NOT_DEFAULTED, "def was not filled by its cr_default_*_def()")   \
    X(CR_ERR_DEF_INVALID, "a def field is out of range (cr_field says which)")    \
    X(CR_ERR_BLOCK_TOO_SMALL, "memory block smaller than cr_world_memory_size()") \
    X(CR_ERR_BLOCK_MISALIGNED, "memory block not aligned to CR_BLOCK_ALIGN")      \
    X(CR_ERR_CAPACITY, "a capacity from the world def is exhausted")              \
    X(CR_ERR_ARENA_FULL, "the arena has no room left")                            \
    X(CR_ERR_STALE_HANDLE, "handle is null, stale or from another world")         \
    X(CR_ERR_BAD_ASSET, "asset failed validation")                                \
    X(CR_ERR_BAD_SNAPSHOT, "snapshot does not belong to this world layout")       \
    X(CR_ERR_BUFFER_TOO_SMALL, "caller buffer is too small")                      \
    X(CR_ERR_NOT_FINITE, "a real argument or def field is NaN or infinite (fixed point: saturated)") \
    X(CR_ERR_BAD_ORIENTATION, "a quaternion is zero or far from unit length")     \
    X(CR_ERR_ARGUMENT_RANGE, "an argument is out of range (dt <= 0, time <= 0, unknown type or flag)") \
    X(CR_ERR_MASS_RANGE, "mass or a principal moment is too small: its reciprocal overflows the scalar") \
    X(CR_ERR_WORLD_TOO_LARGE, "the def's capacities need a block larger than 4 GiB")

typedef enum cr_status {
#define CR_X_ENUM_(name, msg) name,
    CR_STATUS_LIST(CR_X_ENUM_)
#undef CR_X_ENUM_
    CR_STATUS_COUNT
} cr_status;

/// Symbolic name of a status, e.g. "CR_ERR_CAPACITY".
const char *cr_status_name(cr_status s);
/// One-line human explanation of a status.
const char *cr_status_message(cr_status s);
/// "crumple 0.1.0 (float32)" or "(fixed-q32.32)".
const char *cr_version_string(void);

/* X(name, printed name): every argument or def field a call can refuse. */
#define CR_FIELD_LIST(X)                                         \
    X(NONE, "")                                                  \
    X(WORLD_DEF, "cr_world_def")                                 \
    X(WORLD_GRAVITY, "cr_world_def.gravity")                     \
    X(WORLD_BODY_CAPACITY, "cr_world_def.body_capacity")         \
    X(WORLD_JOINT_CAPACITY, "cr_world_def.joint_capacity")       \
    X(WORLD_PAIR_CAPACITY, "cr_world_def.pair_capacity")         \
    X(WORLD_POINTS_PER_PAIR, "cr_world_def.points_per_pair")     \
    X(WORLD_POINT_CAPACITY, "cr_world_def.point_capacity")       \
    X(WORLD_CONTACT_CAPACITY, "cr_world_def.contact_capacity")   \
    X(WORLD_EVENT_CAPACITY, "cr_world_def.event_capacity")       \
    X(WORLD_ASSET_CAPACITY, "cr_world_def.asset_capacity")       \
    X(WORLD_COLLISION_PASSES, "cr_world_def.collision_passes")   \
    X(WORLD_CONTACT_PASSES, "cr_world_def.contact_passes")       \
    X(WORLD_LEVEL_ITERATIONS, "cr_world_def.level_iterations")   \
    X(WORLD_JOINT_ITERATIONS, "cr_world_def.joint_iterations")   \
    X(WORLD_BROADPHASE_CELL, "cr_world_def.broadphase_cell")     \
    X(WORLD_EVENT_MIN_SPEED, "cr_world_def.event_min_speed")     \
    X(WORLD_SLEEP_TIME, "cr_world_def.sleep_time")               \
    X(WORLD_SLEEP_LINEAR, "cr_world_def.sleep_linear")           \
    X(WORLD_SLEEP_ANGULAR, "cr_world_def.sleep_angular")         \
    X(WORLD_DAMAGE_COMMANDS, "cr_world_def.damage.command_capacity") \
    X(WORLD_DAMAGE_DENT, "cr_world_def.damage.dent")             \
    X(WORLD_DAMAGE_EXAMPLE, "cr_world_def.damage.example")       \
    X(WORLD_DAMAGE_SQUASH, "cr_world_def.damage.squash")         \
    X(WORLD_DAMAGE_FRACTURE, "cr_world_def.damage.fracture")     \
    X(WORLD_DAMAGE_CUSTOM, "cr_world_def.damage.custom")         \
    X(BODY_TYPE, "cr_body_def.type")                             \
    X(BODY_POSITION, "cr_body_def.position")                     \
    X(BODY_ORIENTATION, "cr_body_def.orientation")               \
    X(BODY_LINEAR_VELOCITY, "cr_body_def.linear_velocity")       \
    X(BODY_ANGULAR_VELOCITY, "cr_body_def.angular_velocity")     \
    X(BODY_SHAPE_TYPE, "cr_body_def.shape.type")                 \
    X(BODY_SHAPE_RADIUS, "cr_body_def.shape.radius")             \
    X(BODY_SHAPE_HALF_EXTENTS, "cr_body_def.shape.half_extents") \
    X(BODY_SHAPE_ASSET, "cr_body_def.shape.asset")               \
    X(BODY_DENSITY, "cr_body_def.material.density")              \
    X(BODY_RESTITUTION, "cr_body_def.material.restitution")      \
    X(BODY_FRICTION, "cr_body_def.material.friction")            \
    X(BODY_ROLLING_FRICTION, "cr_body_def.material.rolling_friction")   \
    X(BODY_SPINNING_FRICTION, "cr_body_def.material.spinning_friction") \
    X(BODY_MASS, "cr_body_def: mass (shape x density)")          \
    X(BODY_INERTIA, "cr_body_def: inertia (shape x density)")    \
    X(JOINT_TYPE, "cr_joint_def.type")                           \
    X(JOINT_BODY_B, "cr_joint_def.body_b")                       \
    X(JOINT_ANCHOR, "cr_joint_def.anchor")                       \
    X(JOINT_AXIS, "cr_joint_def.axis")                           \
    X(JOINT_REST, "rest")                                        \
    X(DT, "dt")                                                  \
    X(GRAVITY, "gravity")                                        \
    X(POSITION, "transform.p")                                   \
    X(ORIENTATION, "transform.q")                                \
    X(LINEAR_VELOCITY, "linear")                                 \
    X(ANGULAR_VELOCITY, "angular")                               \
    X(IMPULSE, "impulse")                                        \
    X(FORCE, "force")                                            \
    X(TORQUE, "torque")                                          \
    X(WORLD_POINT, "world_point")                                \
    X(INPUT_TYPE, "cr_input.type")                               \
    X(INPUT_FLAGS, "cr_input.flags")                             \
    X(INPUT_TIME, "cr_input.time")                               \
    X(INPUT_A, "cr_input.a")                                     \
    X(INPUT_B, "cr_input.b")                                     \
    X(INPUT_Q, "cr_input.q")                                     \
    X(DENT_THRESHOLD_SPEED, "cr_dent_def.threshold_speed")       \
    X(DENT_SPEED_SCALE, "cr_dent_def.speed_scale")               \
    X(DENT_FIXED_DISTANCE, "cr_dent_def.fixed_distance")         \
    X(DENT_MAX_DISTANCE, "cr_dent_def.max_distance")             \
    X(DENT_BLUR, "cr_dent_def.blur")                             \
    X(DENT_STEEPNESS, "cr_dent_def.steepness")                   \
    X(DENT_WIDTH_T, "cr_dent_def.width_t")                       \
    X(DENT_MIN_COS, "cr_dent_def.min_cos")                       \
    X(DENT_CELLS, "cr_dent_def.min_cells/max_cells")             \
    X(DENT_ITERATIONS, "cr_dent_def.heat_iterations/modified_iterations") \
    X(DENT_BUDGET_BODY_CAPACITY, "cr_world_def.damage.dent.body_capacity")   \
    X(DENT_BUDGET_DENTS_PER_STEP, "cr_world_def.damage.dent.dents_per_step") \
    X(DENT_BUDGET_WORK_PER_STEP, "cr_world_def.damage.dent.work_per_step")   \
    X(DENT_BUDGET_QUEUE_CAPACITY, "cr_world_def.damage.dent.queue_capacity") \
    X(DENT_BUDGET_MAX_CELLS, "cr_world_def.damage.dent.max_cells")           \
    X(EXAMPLE_ALPHA, "cr_example_def.alpha")                     \
    X(EXAMPLE_BETA, "cr_example_def.beta")                       \
    X(EXAMPLE_GAMMA, "cr_example_def.gamma")                     \
    X(EXAMPLE_LAMBDA, "cr_example_def.lambda")                   \
    X(EXAMPLE_MU, "cr_example_def.mu")                           \
    X(EXAMPLE_NU, "cr_example_def.nu")                           \
    X(EXAMPLE_DRAW_LAG, "cr_example_def.draw_lag")               \
    X(EXAMPLE_GRID_LAG, "cr_example_def.grid_lag")               \
    X(EXAMPLE_BUDGET_BODY_CAPACITY, "cr_world_def.damage.example.body_capacity")             \
    X(EXAMPLE_BUDGET_MAX_VERTICES, "cr_world_def.damage.example.max_vertices")               \
    X(EXAMPLE_BUDGET_MAX_EXAMPLES, "cr_world_def.damage.example.max_examples")               \
    X(EXAMPLE_BUDGET_QUEUE_CAPACITY, "cr_world_def.damage.example.queue_capacity")           \
    X(EXAMPLE_BUDGET_IMPULSES_PER_STEP, "cr_world_def.damage.example.impulses_per_step")     \
    X(EXAMPLE_BUDGET_NEIGHBOURS_PER_STEP, "cr_world_def.damage.example.neighbours_per_step") \
    X(EXAMPLE_BUDGET_VERTICES_PER_STEP, "cr_world_def.damage.example.vertices_per_step")     \
    X(EXAMPLE_BUDGET_GRID_NODES_PER_STEP, "cr_world_def.damage.example.grid_nodes_per_step") \
    X(JOINT_BEND, "cr_joint_def.bend_strength/bend_damping/bend_damping_constant/spring_stiffness/spring_damping") \
    X(WORLD_DAMAGE_BEND, "cr_world_def.damage.bend")             \
    X(BEND_DEF, "cr_bend_def")                                   \
    X(FRACTURE_PIECE_ASSET, "cr_fracture_def.first_piece_asset") \
    X(FRACTURE_TOUGHNESS, "cr_fracture_def.toughness")           \
    X(FRACTURE_STRENGTH, "cr_fracture_def.strength")             \
    X(FRACTURE_DAMAGE_RADIUS, "cr_fracture_def.damage_radius")   \
    X(FRACTURE_ANCHOR, "cr_fracture_def.anchor_min/anchor_max")  \
    X(FRACTURE_STRESS_ITERATIONS, "cr_fracture_def.stress_iterations") \
    X(WORLD_SPRING, "cr_world_def.spring")                       \
    X(SOFT_ASSET, "cr_soft_def.asset")                           \
    X(SOFT_TRANSFORM, "cr_soft_def.transform")                   \
    X(SOFT_VELOCITY, "cr_soft_def.linear_velocity/angular_velocity") \
    X(SOFT_MASS, "cr_soft_def.mass")                             \
    X(SOFT_STIFFNESS, "cr_soft_def.stiffness/bend_stiffness/volume_stiffness") \
    X(SOFT_DAMPING, "cr_soft_def.damping/absolute_damping")      \
    X(SOFT_RADIUS, "cr_soft_def.particle_radius")                \
    X(SOFT_CONTACT, "cr_soft_def.friction/restitution")          \
    X(SOFT_VOLUME_TOLERANCE, "cr_soft_def.volume_tolerance")     \
    X(SOFT_ROLLING_FRICTION, "cr_soft_def.rolling_friction")      \
    X(SQUASH_PRIMITIVES, "cr_squash_set_primitives.primitives")  \
    X(WORLD_DAMAGE_BUDGET, "cr_world_def.damage.budget")         \
    X(WORLD_DAMAGE_COSTS, "cr_world_def.damage.costs")           \
    X(BODY_GRAVITY_SCALE, "cr_body_def.gravity_scale")           \
    X(BODY_LINEAR_DAMPING, "cr_body_def.linear_damping")         \
    X(BODY_ANGULAR_DAMPING, "cr_body_def.angular_damping")       \
    X(MASS, "mass")                                              \
    X(WORLD_SENSOR_CAPACITY, "cr_world_def.sensor_capacity")     \
    X(WORLD_SENSOR_EVENT_CAPACITY, "cr_world_def.sensor_event_capacity") \
    X(WORLD_TOUCH_CAPACITY, "cr_world_def.touch_capacity")       \
    X(WORLD_CONTACT_EVENT_CAPACITY, "cr_world_def.contact_event_capacity") \
    X(WORLD_HIT_EVENT_SPEED, "cr_world_def.hit_event_speed") \
    X(QUERY_ORIGIN, "origin")                                    \
    X(QUERY_TRANSLATION, "translation")                          \
    X(QUERY_CALLBACK, "fn")                                      \
    X(QUERY_OUT, "out")                                          \
    X(QUERY_BOUNDS, "lo/hi")                                     \
    X(QUERY_CENTRE, "centre")                                    \
    X(QUERY_RADIUS, "radius")                                    \
    X(QUERY_POSE, "pose")                                        \
    X(QUERY_HALF_EXTENTS, "half_extents")                        \
    X(QUERY_POINT, "point")                                      \
    X(QUERY_BODY, "id")

typedef enum cr_field {
#define CR_X_FIELD_ENUM_(name, text) CR_FIELD_##name,
    CR_FIELD_LIST(CR_X_FIELD_ENUM_)
#undef CR_X_FIELD_ENUM_
    CR_FIELD_COUNT
} cr_field;

/// Printable name of a field, e.g. "cr_body_def.orientation" ("" for CR_FIELD_NONE).
const char *cr_field_name(cr_field f);

typedef enum cr_log_level { CR_LOG_INFO, CR_LOG_WARN, CR_LOG_ERROR } cr_log_level;
/// Host log sink; `user` is the pointer given in the def.
typedef void cr_log_fn(void *user, cr_log_level level, const char *message);
/// Host assert handler, called when an internal invariant fails (CR_ASSERT).
typedef void cr_assert_fn(void *user, const char *expr, const char *file, int line);

/// Alignment the world block must have.
#define CR_BLOCK_ALIGN 16

#ifdef __cplusplus
}
#endif

#endif
