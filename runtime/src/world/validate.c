/* validate.c — what the create calls refuse, and the record of which field.
 *
 * Every def is checked field by field before anything is written, and each
 * refusal names its field (crumple/base.h, "Which argument or field was
 * wrong"). The status says the class: CR_ERR_NOT_FINITE for NaN/Inf (or a
 * saturated fixed-point value), CR_ERR_BAD_ORIENTATION for a zero quaternion,
 * CR_ERR_DEF_INVALID for a finite value out of its range, CR_ERR_MASS_RANGE
 * for a mass or moment whose reciprocal the scalar type cannot hold.
 *
 * The checks only refuse; they never change a value a valid def would give,
 * so the simulation of valid input is bit for bit what it was without them.
 */
#include "base/block.h"
#include "damage/stage.h"
#include "soft/mass_spring.h"
#include "base/check.h"

cr_status cri_refuse(cr_world *w, cr_status s, cr_field field) {
    if (w != NULL && w->magic == CR_WORLD_MAGIC) w->refused_field = (uint32_t)field;
    return s;
}

cr_field cr_world_refused_field(const cr_world *w) {
    return (w == NULL || w->refused_field >= CR_FIELD_COUNT) ? CR_FIELD_NONE : (cr_field)w->refused_field;
}

/* a def field: NaN/Inf first (it fails every comparison), then its range */
#define CR_DEF_REAL(x, bad_range, f)                                    \
    do {                                                                \
        if (!cr_real_is_finite(x)) return *field = (f), CR_ERR_NOT_FINITE; \
        if (bad_range) return *field = (f), CR_ERR_DEF_INVALID;         \
    } while (0)
#define CR_DEF_VEC3(v, f)                                               \
    do {                                                                \
        if (!cr_vec3_is_finite(v)) return *field = (f), CR_ERR_NOT_FINITE; \
    } while (0)
#define CR_DEF_RANGE(bad, f)                                            \
    do {                                                                \
        if (bad) return *field = (f), CR_ERR_DEF_INVALID;               \
    } while (0)

cr_status cri_world_def_fields(const cr_world_def *def, cr_field *field) {
    *field = CR_FIELD_NONE;
    CR_DEF_VEC3(def->gravity, CR_FIELD_WORLD_GRAVITY);
    CR_DEF_RANGE(def->body_capacity == 0 || def->body_capacity > (1u << 24), CR_FIELD_WORLD_BODY_CAPACITY);
    CR_DEF_RANGE(def->joint_capacity > (1u << 24), CR_FIELD_WORLD_JOINT_CAPACITY);
    CR_DEF_RANGE(def->pair_capacity > (1u << 24), CR_FIELD_WORLD_PAIR_CAPACITY);
    CR_DEF_RANGE(def->contact_capacity > (1u << 24), CR_FIELD_WORLD_CONTACT_CAPACITY);
    CR_DEF_RANGE(def->event_capacity > (1u << 24), CR_FIELD_WORLD_EVENT_CAPACITY);
    CR_DEF_RANGE(def->point_capacity > (1u << 26), CR_FIELD_WORLD_POINT_CAPACITY);
    CR_DEF_RANGE(def->points_per_pair == 0 || def->points_per_pair > 4096, CR_FIELD_WORLD_POINTS_PER_PAIR);
    CR_DEF_RANGE(def->asset_capacity > 4096, CR_FIELD_WORLD_ASSET_CAPACITY);
    CR_DEF_RANGE(def->collision_passes > 64, CR_FIELD_WORLD_COLLISION_PASSES);
    CR_DEF_RANGE(def->contact_passes > 256, CR_FIELD_WORLD_CONTACT_PASSES);
    CR_DEF_RANGE(def->level_iterations == 0 || def->level_iterations > 64, CR_FIELD_WORLD_LEVEL_ITERATIONS);
    CR_DEF_RANGE(def->joint_iterations > 256, CR_FIELD_WORLD_JOINT_ITERATIONS);
    CR_DEF_REAL(def->broadphase_cell, def->broadphase_cell < 0, CR_FIELD_WORLD_BROADPHASE_CELL);
    CR_DEF_REAL(def->event_min_speed, def->event_min_speed < 0, CR_FIELD_WORLD_EVENT_MIN_SPEED);
    CR_DEF_REAL(def->sleep_time, def->sleep_time < 0, CR_FIELD_WORLD_SLEEP_TIME);
    CR_DEF_REAL(def->sleep_linear, def->sleep_linear < 0, CR_FIELD_WORLD_SLEEP_LINEAR);
    CR_DEF_REAL(def->sleep_angular, def->sleep_angular < 0, CR_FIELD_WORLD_SLEEP_ANGULAR);
    cr_status soft = cri_soft_check_budget(&def->spring);
    if (soft != CR_OK) return *field = CR_FIELD_WORLD_SPRING, soft;
    return cri_damage_check_def(&def->damage, field);
}

/* Finite is not enough where the solver turns a length into a count or a
 * cell index (a box's sample segments, the broadphase cell): a float of
 * 1e30 is finite, and casting it to an integer is undefined behaviour. So
 * shape sizes stay within the asset format's 2^20 m and positions within
 * 2^30 m, which Q32.32 also needs (it holds about ±2.1e9). */
#define CR_SHAPE_LIMIT CR_R(1048576.0)
#define CR_POSITION_LIMIT CR_R(1073741824.0)
static bool vec3_within(cr_vec3 v, cr_real lim) { return cr_abs(v.x) <= lim && cr_abs(v.y) <= lim && cr_abs(v.z) <= lim; }

cr_status cri_check_position(cr_world *w, cr_vec3 p, cr_field f) {
    if (!cr_vec3_is_finite(p)) return cri_refuse(w, CR_ERR_NOT_FINITE, f);
    return vec3_within(p, CR_POSITION_LIMIT) ? CR_OK : cri_refuse(w, CR_ERR_ARGUMENT_RANGE, f);
}

static cr_status material_fields(const cr_material *m, bool dynamic, cr_field *field) {
    CR_DEF_REAL(m->density, m->density <= 0 && dynamic, CR_FIELD_BODY_DENSITY);
    CR_DEF_REAL(m->restitution, m->restitution < 0, CR_FIELD_BODY_RESTITUTION);
    CR_DEF_REAL(m->friction, m->friction < 0, CR_FIELD_BODY_FRICTION);
    CR_DEF_REAL(m->rolling_friction, m->rolling_friction < 0, CR_FIELD_BODY_ROLLING_FRICTION);
    CR_DEF_REAL(m->spinning_friction, m->spinning_friction < 0, CR_FIELD_BODY_SPINNING_FRICTION);
    return CR_OK;
}

/* Limits that keep gravity x scale x dt and 1 + dt x damping well inside
 * Q32.32 at any step the world accepts. */
static cr_status motion_fields(cr_real gravity_scale, cr_real linear, cr_real angular, cr_field *field) {
    CR_DEF_REAL(gravity_scale, cr_abs(gravity_scale) > CR_R(1000), CR_FIELD_BODY_GRAVITY_SCALE);
    CR_DEF_REAL(linear, linear < 0 || linear > CR_R(10000), CR_FIELD_BODY_LINEAR_DAMPING);
    CR_DEF_REAL(angular, angular < 0 || angular > CR_R(10000), CR_FIELD_BODY_ANGULAR_DAMPING);
    return CR_OK;
}

cr_status cri_material_refuse(cr_world *w, const cr_material *m, bool dynamic) {
    cr_field f;
    cr_status s = material_fields(m, dynamic, &f);
    return s == CR_OK ? CR_OK : cri_refuse(w, s, f);
}

cr_status cri_motion_refuse(cr_world *w, cr_real gravity_scale, cr_real linear_damping, cr_real angular_damping) {
    cr_field f;
    cr_status s = motion_fields(gravity_scale, linear_damping, angular_damping, &f);
    return s == CR_OK ? CR_OK : cri_refuse(w, s, f);
}

static cr_status body_def_fields(const cr_world *w, const cr_body_def *def, cr_field *field) {
    *field = CR_FIELD_NONE;
    CR_DEF_RANGE((unsigned)def->type > CR_BODY_DYNAMIC, CR_FIELD_BODY_TYPE);
    CR_DEF_RANGE((unsigned)def->shape.type > CR_SHAPE_MESH, CR_FIELD_BODY_SHAPE_TYPE);
    CR_DEF_VEC3(def->position, CR_FIELD_BODY_POSITION);
    CR_DEF_RANGE(!vec3_within(def->position, CR_POSITION_LIMIT), CR_FIELD_BODY_POSITION);
    cr_status q = cr_quat_status(def->orientation);
    if (q != CR_OK) return *field = CR_FIELD_BODY_ORIENTATION, q;
    CR_DEF_VEC3(def->linear_velocity, CR_FIELD_BODY_LINEAR_VELOCITY);
    CR_DEF_VEC3(def->angular_velocity, CR_FIELD_BODY_ANGULAR_VELOCITY);
    CR_DEF_REAL(def->shape.radius, def->shape.type == CR_SHAPE_SPHERE && def->shape.radius <= 0, CR_FIELD_BODY_SHAPE_RADIUS);
    CR_DEF_RANGE(cr_abs(def->shape.radius) > CR_SHAPE_LIMIT, CR_FIELD_BODY_SHAPE_RADIUS);
    const cr_vec3 he = def->shape.half_extents;
    CR_DEF_VEC3(he, CR_FIELD_BODY_SHAPE_HALF_EXTENTS);
    CR_DEF_RANGE(!vec3_within(he, CR_SHAPE_LIMIT), CR_FIELD_BODY_SHAPE_HALF_EXTENTS);
    CR_DEF_RANGE(def->shape.type == CR_SHAPE_BOX && (he.x <= 0 || he.y <= 0 || he.z <= 0), CR_FIELD_BODY_SHAPE_HALF_EXTENTS);
    CR_DEF_RANGE(def->shape.type == CR_SHAPE_PLANE && def->type != CR_BODY_STATIC, CR_FIELD_BODY_SHAPE_TYPE);
    CR_DEF_RANGE(def->shape.type == CR_SHAPE_MESH && cr_world_asset(w, def->shape.asset) == NULL, CR_FIELD_BODY_SHAPE_ASSET);
    CR_TRY(material_fields(&def->material, def->type == CR_BODY_DYNAMIC, field));
    return motion_fields(def->gravity_scale, def->linear_damping, def->angular_damping, field);
}

cr_status cri_body_def_refuse(cr_world *w, const cr_body_def *def) {
    cr_field f;
    cr_status s = body_def_fields(w, def, &f);
    return s == CR_OK ? CR_OK : cri_refuse(w, s, f);
}

/* A reciprocal the scalar type can hold: positive and finite, and in fixed
 * point not the saturated quotient cr_div gives for a divisor below 2^-31. */
static bool invertible(cr_real x) {
    if (!(x > 0) || !cr_real_is_finite(x)) return false;
    cr_real inv = cr_div(CR_R(1), x);
    return cr_real_is_finite(inv) && inv > 0;
}

cr_status cri_body_mass_refuse(cr_world *w, cr_body_type type, cr_real mass, cr_vec3 inertia) {
    if (type != CR_BODY_DYNAMIC) return CR_OK;
    if (!invertible(mass)) return cri_refuse(w, CR_ERR_MASS_RANGE, CR_FIELD_BODY_MASS);
    if (!invertible(inertia.x) || !invertible(inertia.y) || !invertible(inertia.z))
        return cri_refuse(w, CR_ERR_MASS_RANGE, CR_FIELD_BODY_INERTIA);
    return CR_OK;
}

cr_status cri_joint_def_refuse(cr_world *w, const cr_joint_def *def) {
    if ((unsigned)def->type > CR_JOINT_FIXED) return cri_refuse(w, CR_ERR_DEF_INVALID, CR_FIELD_JOINT_TYPE);
    CR_TRY(cr_check_vec3(w, def->anchor, CR_FIELD_JOINT_ANCHOR));
    CR_TRY(cr_check_vec3(w, def->axis, CR_FIELD_JOINT_AXIS));
    /* bending joints (seed 000 §4): finite, not negative, on fixed joints,
     * plastic or elastic but not both */
    const cr_real bend[5] = {def->bend_strength, def->bend_damping, def->bend_damping_constant,
                             def->spring_stiffness, def->spring_damping};
    for (int i = 0; i < 5; ++i) {
        CR_TRY(cr_check_real(w, bend[i], CR_FIELD_JOINT_BEND));
        if (bend[i] < 0) return cri_refuse(w, CR_ERR_DEF_INVALID, CR_FIELD_JOINT_BEND);
        if (bend[i] != 0 && def->type != CR_JOINT_FIXED) return cri_refuse(w, CR_ERR_DEF_INVALID, CR_FIELD_JOINT_BEND);
    }
    if (def->bend_strength > 0 && def->spring_stiffness > 0) return cri_refuse(w, CR_ERR_DEF_INVALID, CR_FIELD_JOINT_BEND);
    return CR_OK;
}
