/* crumple/body.h — rigid bodies, referred to by generation-checked handles.
 *
 * A handle is a small value {index1, generation}; all-zero is null. Destroying
 * a body bumps its slot's generation, so a stale handle is refused with
 * CR_ERR_STALE_HANDLE instead of silently reaching the slot's next owner.
 *
 * Shapes (seed 002 represents every body by sample points plus a signed
 * distance function): spheres and boxes are analytic and exact; planes are
 * static half-spaces; meshes are cooked assets (triangle mesh + SDF grid in
 * the principal frame, crumple/asset.h) registered with cr_world_add_asset.
 * A body's position is its centre of mass; for meshes that is the asset's
 * body-frame origin.
 */
#ifndef CRUMPLE_BODY_H
#define CRUMPLE_BODY_H

#include "world.h"

/* Link names carry the scalar mode (CR_LINK_NAME, crumple/real.h), so code
 * compiled in the other mode fails to link instead of misreading every cr_real. */
#define cr_default_filter CR_LINK_NAME(cr_default_filter)
#define cr_default_material CR_LINK_NAME(cr_default_material)
#define cr_default_body_def CR_LINK_NAME(cr_default_body_def)
#define cr_body_create CR_LINK_NAME(cr_body_create)
#define cr_body_create_as_modelled CR_LINK_NAME(cr_body_create_as_modelled)
#define cr_body_destroy CR_LINK_NAME(cr_body_destroy)
#define cr_body_is_valid CR_LINK_NAME(cr_body_is_valid)
#define cr_body_get_transform CR_LINK_NAME(cr_body_get_transform)
#define cr_body_set_transform CR_LINK_NAME(cr_body_set_transform)
#define cr_body_get_linear_velocity CR_LINK_NAME(cr_body_get_linear_velocity)
#define cr_body_get_angular_velocity CR_LINK_NAME(cr_body_get_angular_velocity)
#define cr_body_set_velocity CR_LINK_NAME(cr_body_set_velocity)
#define cr_body_apply_impulse CR_LINK_NAME(cr_body_apply_impulse)
#define cr_body_apply_force CR_LINK_NAME(cr_body_apply_force)
#define cr_body_apply_torque CR_LINK_NAME(cr_body_apply_torque)
#define cr_body_get_inertia CR_LINK_NAME(cr_body_get_inertia)
#define cr_body_get_inertia_products CR_LINK_NAME(cr_body_get_inertia_products)
#define cr_body_get_bound_radius CR_LINK_NAME(cr_body_get_bound_radius)
#define cr_body_is_sleeping CR_LINK_NAME(cr_body_is_sleeping)
#define cr_body_wake CR_LINK_NAME(cr_body_wake)
#define cr_body_get_point_velocity CR_LINK_NAME(cr_body_get_point_velocity)
#define cr_body_get_mass CR_LINK_NAME(cr_body_get_mass)
#define cr_body_get_user_data CR_LINK_NAME(cr_body_get_user_data)
#define cr_body_get_type CR_LINK_NAME(cr_body_get_type)
#define cr_body_get_shape CR_LINK_NAME(cr_body_get_shape)
#define cr_body_get_material CR_LINK_NAME(cr_body_get_material)
#define cr_body_set_type CR_LINK_NAME(cr_body_set_type)
#define cr_body_set_mass CR_LINK_NAME(cr_body_set_mass)
#define cr_body_set_material CR_LINK_NAME(cr_body_set_material)
#define cr_body_set_gravity_scale CR_LINK_NAME(cr_body_set_gravity_scale)
#define cr_body_get_gravity_scale CR_LINK_NAME(cr_body_get_gravity_scale)
#define cr_body_set_damping CR_LINK_NAME(cr_body_set_damping)
#define cr_body_get_linear_damping CR_LINK_NAME(cr_body_get_linear_damping)
#define cr_body_get_angular_damping CR_LINK_NAME(cr_body_get_angular_damping)
#define cr_body_set_user_data CR_LINK_NAME(cr_body_set_user_data)
#define cr_body_set_enabled CR_LINK_NAME(cr_body_set_enabled)
#define cr_body_is_enabled CR_LINK_NAME(cr_body_is_enabled)
#define cr_body_is_sensor CR_LINK_NAME(cr_body_is_sensor)
#define cr_body_set_filter CR_LINK_NAME(cr_body_set_filter)
#define cr_body_get_filter CR_LINK_NAME(cr_body_get_filter)
#define cr_world_get_body_ids CR_LINK_NAME(cr_world_get_body_ids)
#define cr_body_get_mesh CR_LINK_NAME(cr_body_get_mesh)
#define cr_body_clear_dirty CR_LINK_NAME(cr_body_clear_dirty)
#define cr_body_get_asset CR_LINK_NAME(cr_body_get_asset)

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cr_body_id {
    uint32_t index1;     ///< slot index + 1; 0 means null
    uint32_t generation; ///< must match the slot's generation
} cr_body_id;

static inline bool cr_body_id_is_null(cr_body_id id) { return id.index1 == 0; }

typedef enum cr_body_type {
    CR_BODY_STATIC,    ///< never moves; infinite mass
    CR_BODY_KINEMATIC, ///< moved by its velocity only; infinite mass
    CR_BODY_DYNAMIC    ///< moved by forces and impulses
} cr_body_type;

typedef enum cr_shape_type {
    CR_SHAPE_SPHERE, ///< radius
    CR_SHAPE_BOX,    ///< half extents
    CR_SHAPE_PLANE,  ///< the body's local y = 0 plane, solid below (static only)
    CR_SHAPE_MESH    ///< a cooked asset: triangle mesh + signed distance grid
} cr_shape_type;
#define CR_SHAPE_TYPE_COUNT 4

/// Surface and bulk properties.
typedef struct cr_material {
    cr_real density;          ///< kg/m^3
    cr_real restitution;      ///< 0..1; a pair uses the smaller of the two
    cr_real friction;         ///< Coulomb coefficient; a pair uses the smaller of the two
    cr_real rolling_friction; ///< m, lever arm of the rolling resistance; a pair uses the larger of the two
    cr_real spinning_friction;///< m, lever arm of the resistance to spin about the normal; the larger of the two
} cr_material;

typedef struct cr_shape_def {
    cr_shape_type type;
    cr_real radius;       ///< sphere radius, m
    cr_vec3 half_extents; ///< box half extents, m
    uint32_t asset;       ///< mesh: asset slot from cr_world_add_asset
} cr_shape_def;

/// Which bodies a body collides with (Box2D's semantics, docs/filters.md). A
/// pair collides when (a.category_bits & b.mask_bits) and (b.category_bits &
/// a.mask_bits) are both non-zero, except that two bodies with the same
/// non-zero group_index always collide when it is positive and never when it
/// is negative. Applied in the broadphase, before any narrowphase work.
typedef struct cr_filter {
    uint64_t category_bits; ///< what this body is (default 1)
    uint64_t mask_bits;     ///< what it collides with (default all bits)
    int32_t group_index;    ///< same positive group: always collide; same negative group: never (default 0: none)
} cr_filter;

/// The filter every body starts with: category 1, every mask bit, no group.
cr_filter cr_default_filter(void);

/// Whether two filters let their bodies collide (the rule above; the
/// broadphase and the world def's pair_filter hook come after it).
static inline bool cr_filter_collides(cr_filter a, cr_filter b) {
    if (a.group_index == b.group_index && a.group_index != 0) return a.group_index > 0;
    return (a.category_bits & b.mask_bits) != 0 && (b.category_bits & a.mask_bits) != 0;
}

typedef struct cr_body_def {
    cr_body_type type;
    cr_vec3 position;          ///< m, of the centre of mass
    cr_quat orientation;
    cr_vec3 linear_velocity;   ///< m/s
    cr_vec3 angular_velocity;  ///< rad/s
    cr_shape_def shape;
    cr_material material;
    bool no_sleep;             ///< never falls asleep, and keeps its island awake (default false: it may sleep)
    cr_filter filter;          ///< collision filter (cr_default_filter())
    cr_real gravity_scale;     ///< times the world's gravity on this body (default 1; |scale| <= 1000)
    cr_real linear_damping;    ///< 1/s, v shrinks by 1 / (1 + dt c) per step (default 0; 0..10000)
    cr_real angular_damping;   ///< 1/s, the same for the spin (default 0; 0..10000)
    bool enabled;              ///< false: in the world but out of the step, neither colliding nor moving (default true)
    bool is_sensor;            ///< reports overlaps (cr_world_get_sensor_events) instead of colliding (default false)
    uint64_t user_data;
    uint32_t cookie;           ///< set by cr_default_body_def(); checked by create
} cr_body_def;

cr_material cr_default_material(void);
cr_body_def cr_default_body_def(void);

/// Create a body; on failure returns a status and leaves *out null.
cr_status cr_body_create(cr_world *world, const cr_body_def *def, cr_body_id *out);
/// Create a mesh body placed as modelled: `def` as for cr_body_create, except
/// that its position and orientation are ignored and replaced by the pose that
/// puts the mesh of def->shape.asset at `mesh_in_level` (the mesh's transform in
/// the level, mesh file frame -> world; cr_asset_body_pose). CR_ERR_DEF_INVALID
/// (field cr_body_def.shape.asset) for a non-mesh shape or an empty asset slot.
cr_status cr_body_create_as_modelled(cr_world *world, const cr_body_def *def, cr_transform mesh_in_level,
                                     cr_body_id *out);
cr_status cr_body_destroy(cr_world *world, cr_body_id id);
bool cr_body_is_valid(const cr_world *world, cr_body_id id);

cr_transform cr_body_get_transform(const cr_world *world, cr_body_id id);
cr_status cr_body_set_transform(cr_world *world, cr_body_id id, cr_transform t);
cr_vec3 cr_body_get_linear_velocity(const cr_world *world, cr_body_id id);
cr_vec3 cr_body_get_angular_velocity(const cr_world *world, cr_body_id id);
cr_status cr_body_set_velocity(cr_world *world, cr_body_id id, cr_vec3 linear, cr_vec3 angular);
/// Apply an impulse (N·s) at a world point; takes effect at once.
cr_status cr_body_apply_impulse(cr_world *world, cr_body_id id, cr_vec3 impulse, cr_vec3 world_point);
/// Add a force (N) at a world point for the next step's velocity update (seed
/// 002 step 2); forces are cleared after each step.
cr_status cr_body_apply_force(cr_world *world, cr_body_id id, cr_vec3 force, cr_vec3 world_point);
/// Add a torque (N m, world frame) for the next step's velocity update.
cr_status cr_body_apply_torque(cr_world *world, cr_body_id id, cr_vec3 torque);
/// The inertia tensor's diagonal (kg m^2, body frame): the principal moments of a
/// body cooked in its principal frame; zero for static and kinematic bodies.
cr_vec3 cr_body_get_inertia(const cr_world *world, cr_body_id id);
/// The inertia tensor's off-diagonal entries xy, xz, yz (kg m^2, body frame):
/// zero but for a body whose frame is not principal (a bending body's bone).
cr_vec3 cr_body_get_inertia_products(const cr_world *world, cr_body_id id);
/// Radius (m) of the bounding sphere about the centre of mass (planes: CR_REAL_MAX).
cr_real cr_body_get_bound_radius(const cr_world *world, cr_body_id id);
/// True while the body sleeps (its island rested for def.sleep_time): it is
/// out of the solver until an awake body touches it or the API moves it.
bool cr_body_is_sleeping(const cr_world *world, cr_body_id id);
/// Wake a sleeping body and its island.
cr_status cr_body_wake(cr_world *world, cr_body_id id);
/// Velocity (m/s) of the body's material point at a world position.
cr_vec3 cr_body_get_point_velocity(const cr_world *world, cr_body_id id, cr_vec3 world_point);
cr_real cr_body_get_mass(const cr_world *world, cr_body_id id);
uint64_t cr_body_get_user_data(const cr_world *world, cr_body_id id);
cr_body_type cr_body_get_type(const cr_world *world, cr_body_id id);
/// The body's shape as created (a null handle gives a zero shape).
cr_shape_def cr_body_get_shape(const cr_world *world, cr_body_id id);
cr_material cr_body_get_material(const cr_world *world, cr_body_id id);
/* Setters after creation (docs/filters.md). Each checks its input as
 * cr_body_create checks the def, naming the field (cr_world_refused_field),
 * and leaves the body and the world as they were when it refuses. Changing
 * what a body is made of is refused (CR_ERR_DEF_INVALID) on a body a damage
 * model owns the mass of (cr_*_attach, bones, fracture pieces' whole). */

/// Make the body static, kinematic or dynamic. A dynamic body takes the mass
/// and inertia of its shape at its material's density (CR_ERR_MASS_RANGE if
/// they do not fit, as at create); a static one stops. It and everything
/// asleep near it wake. A plane stays static (CR_FIELD_BODY_SHAPE_TYPE).
cr_status cr_body_set_type(cr_world *world, cr_body_id id, cr_body_type type);
/// Set a dynamic body's mass (kg), scaling its inertia with it (the shape's
/// mass distribution is kept); field "mass".
cr_status cr_body_set_mass(cr_world *world, cr_body_id id, cr_real mass);
/// Replace the material (checked as cr_body_def.material); a new density
/// gives a dynamic body the mass of its shape at that density.
cr_status cr_body_set_material(cr_world *world, cr_body_id id, cr_material material);
/// Times the world's gravity on this body (finite, |scale| <= 1000).
cr_status cr_body_set_gravity_scale(cr_world *world, cr_body_id id, cr_real scale);
cr_real cr_body_get_gravity_scale(const cr_world *world, cr_body_id id);
/// Linear and angular damping, 1/s (0..10000 each).
cr_status cr_body_set_damping(cr_world *world, cr_body_id id, cr_real linear, cr_real angular);
cr_real cr_body_get_linear_damping(const cr_world *world, cr_body_id id);
cr_real cr_body_get_angular_damping(const cr_world *world, cr_body_id id);
cr_status cr_body_set_user_data(cr_world *world, cr_body_id id, uint64_t user_data);
/// Take the body out of the step (false) or put it back (true). A disabled
/// body keeps its pose and velocity, collides with nothing, is not moved,
/// holds its joints' other bodies as a static body would, and counts for no
/// sensor; what rested on it wakes.
cr_status cr_body_set_enabled(cr_world *world, cr_body_id id, bool enabled);
bool cr_body_is_enabled(const cr_world *world, cr_body_id id);
/// Whether the body was created as a sensor (cr_body_def.is_sensor).
bool cr_body_is_sensor(const cr_world *world, cr_body_id id);

/// Change the collision filter; pairs it now excludes stop touching from the
/// next step on, and the body wakes so pairs it now allows are found.
cr_status cr_body_set_filter(cr_world *world, cr_body_id id, cr_filter filter);
/// The body's collision filter (a null handle gives cr_default_filter()).
cr_filter cr_body_get_filter(const cr_world *world, cr_body_id id);

/// Handles of the live bodies in slot order (a deterministic order); writes at
/// most `capacity` and returns how many live bodies there are.
uint32_t cr_world_get_body_ids(const cr_world *world, cr_body_id *out, uint32_t capacity);

/// Vertices [first, first + count) of a mesh: what a renderer uploads.
typedef struct cr_vertex_range {
    uint32_t first;
    uint32_t count;
} cr_vertex_range;

/// Most ranges a dirty list holds (cr_body_mesh, cr_dent_event). Ranges
/// closer than CR_DIRTY_RANGE_GAP vertices are merged (one upload of a few
/// unchanged vertices is cheaper than another call); past the most, the two
/// neighbours with the smallest gap are merged, so the list stays exact where
/// it can and always covers every moved vertex.
#define CR_DIRTY_RANGE_MAX 64
#define CR_DIRTY_RANGE_GAP 4

/// A body's current surface: a dented body's own copy (crumple/dent.h), else its cooked asset's.
typedef struct cr_body_mesh {
    uint32_t vertex_count;
    uint32_t triangle_count;
    const cr_vec3 *positions;   ///< body frame, m
    const cr_vec3 *normals;     ///< body frame, unit
    const cr_vec3 *rest_positions; ///< the cooked shape, to measure dents against
    /// m: where the body frame's origin has moved in the cooked frame. A
    /// plastic body's frame follows its centre of mass as it deforms (seed 001
    /// §3.2), so vertex v's rest place in the frame `positions` are in is
    /// rest_positions[v] - rest_offset; zero for every other body.
    cr_vec3 rest_offset;
    const uint32_t *triangles;
    uint32_t dirty_first;       ///< first vertex changed since the last cr_body_clear_dirty
    uint32_t dirty_last;        ///< last one; first > last when nothing changed
    uint32_t dent_count;        ///< dents applied so far
    uint32_t dirty_range_count; ///< the changed vertices exactly, as ranges in ascending order:
    cr_vertex_range dirty_ranges[CR_DIRTY_RANGE_MAX]; ///< within dirty_first..dirty_last (see CR_DIRTY_RANGE_GAP)
} cr_body_mesh;

/// The body's current surface: a dented body's own copy, or the cooked
/// asset's for other mesh bodies. CR_ERR_DEF_INVALID for analytic shapes.
cr_status cr_body_get_mesh(const cr_world *world, cr_body_id id, cr_body_mesh *out);
/// Forget the dirty vertex ranges once the host has uploaded them.
cr_status cr_body_clear_dirty(cr_world *world, cr_body_id id);
/// The asset a mesh body collides with now: its own dented copy (same
/// triangles, moved vertices, patched grid) or the cooked asset; NULL for
/// analytic shapes. cr_body_get_shape(...).asset always names the cooked slot.
const struct cr_asset *cr_body_get_asset(const cr_world *world, cr_body_id id);

#ifdef __cplusplus
}
#endif

#endif
