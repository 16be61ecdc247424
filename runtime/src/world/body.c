/* body.c — body slots, handles and mass properties.
 *
 * Slots live in a fixed array sized by the world def. Free slots form a list
 * through next_free; the lowest slots are reused last-freed-first, which is
 * deterministic because the list is part of the state. A slot's generation
 * grows on every destroy so old handles stop working.
 *
 * Mass properties come from shape.c (density x volume; meshes use the cooked
 * asset's unit-density volume and principal moments). A dynamic body whose
 * mass or a principal moment is too small for its reciprocal to fit the
 * build's scalar type is refused with CR_ERR_MASS_RANGE instead of getting an
 * infinite inverse. Every argument is checked first (base/check.h).
 */
#include "base/inertia.h"
#include "solver/solver.h"
#include "damage/stage.h"
#include "base/check.h"

#include <string.h>

#define CR_BODY_COOKIE 0x626f6479u /* "body" */

cr_material cr_default_material(void) {
    cr_material m;
    m.density = CR_R(1000);
    m.restitution = CR_R(0.2);
    m.friction = CR_R(0.5);
    m.rolling_friction = 0;
    m.spinning_friction = 0;
    return m;
}

cr_filter cr_default_filter(void) {
    cr_filter f;
    f.category_bits = 1;
    f.mask_bits = ~(uint64_t)0;
    f.group_index = 0;
    return f;
}

cr_body_def cr_default_body_def(void) {
    cr_body_def d;
    memset(&d, 0, sizeof d);
    d.type = CR_BODY_DYNAMIC;
    d.orientation = cr_quat_identity();
    d.shape.type = CR_SHAPE_SPHERE;
    d.shape.radius = CR_R(0.5);
    d.shape.half_extents = cr_v3(CR_R(0.5), CR_R(0.5), CR_R(0.5));
    d.material = cr_default_material();
    d.filter = cr_default_filter();
    d.gravity_scale = CR_R(1);
    d.enabled = true;
    d.cookie = CR_BODY_COOKIE;
    return d;
}

cr_body *cri_world_body(cr_world *w, cr_body_id id) {
    if (w == NULL || id.index1 == 0 || id.index1 > w->body_high) return NULL;
    cr_body *b = &cr_world_bodies(w)[id.index1 - 1];
    return (b->alive && b->generation == id.generation) ? b : NULL;
}

const cr_body *cri_world_body_c(const cr_world *w, cr_body_id id) {
    return cri_world_body((cr_world *)w, id);
}

static cr_status check_body_def(const cr_world *w, const cr_body_def *def) {
    if (def->cookie != CR_BODY_COOKIE) return CR_ERR_DEF_NOT_DEFAULTED;
    if ((unsigned)def->type > CR_BODY_DYNAMIC || (unsigned)def->shape.type > CR_SHAPE_MESH) return CR_ERR_DEF_INVALID;
    if (def->shape.type == CR_SHAPE_SPHERE && def->shape.radius <= 0) return CR_ERR_DEF_INVALID;
    if (def->shape.type == CR_SHAPE_BOX &&
        (def->shape.half_extents.x <= 0 || def->shape.half_extents.y <= 0 || def->shape.half_extents.z <= 0))
        return CR_ERR_DEF_INVALID;
    if (def->shape.type == CR_SHAPE_PLANE && def->type != CR_BODY_STATIC) return CR_ERR_DEF_INVALID;
    if (def->shape.type == CR_SHAPE_MESH && cr_world_asset(w, def->shape.asset) == NULL) return CR_ERR_DEF_INVALID;
    if (def->material.density <= 0 && def->type == CR_BODY_DYNAMIC) return CR_ERR_DEF_INVALID;
    if (def->material.restitution < 0 || def->material.friction < 0 || def->material.rolling_friction < 0 ||
        def->material.spinning_friction < 0)
        return CR_ERR_DEF_INVALID;
    return CR_OK;
}

/* A dynamic body's mass and the shape's principal moments. */
static void set_mass_properties(cr_body *b, cr_real mass, cr_vec3 inertia) {
    b->mass = mass;
    b->inv_mass = cr_div(CR_R(1), mass);
    cri_inertia_set(b, inertia, cr_v3_zero());
}

cr_status cr_body_create(cr_world *w, const cr_body_def *def, cr_body_id *out) {
    if (out == NULL) return CR_ERR_NULL_ARGUMENT;
    memset(out, 0, sizeof *out);
    if (w == NULL || def == NULL) return CR_ERR_NULL_ARGUMENT;
    if (def->cookie != CR_BODY_COOKIE) return CR_ERR_DEF_NOT_DEFAULTED;
    cr_status s = cri_body_def_refuse(w, def); /* field by field, naming the field (validate.c) */
    if (s == CR_OK) s = check_body_def(w, def);
    if (s != CR_OK) return s;

    cr_real mass, bound_radius;
    cr_vec3 inertia;
    cri_shape_mass(w, &def->shape, def->material.density, &mass, &inertia, &bound_radius);
    /* a mass or moment whose reciprocal this scalar mode cannot hold: refuse rather than divide */
    CR_TRY(cri_body_mass_refuse(w, def->type, mass, inertia));

    cr_body *bodies = cr_world_bodies(w);
    uint32_t index = cr_slot_take(bodies, sizeof *bodies, &w->free_body, &w->body_high, w->def.body_capacity);
    if (index == UINT32_MAX) {
        cri_world_log(w, CR_LOG_WARN, "cr_body_create: body_capacity reached");
        return CR_ERR_CAPACITY;
    }

    cr_body *b = &bodies[index];
    uint32_t generation = b->generation;
    memset(b, 0, sizeof *b);
    b->generation = generation;
    b->alive = 1;
    b->type = (uint8_t)def->type;
    b->xf.p = def->position;
    b->xf.q = cr_quat_normalize(def->orientation);
    b->finite_p = b->xf.p;
    b->finite_q = b->xf.q;
    b->shape = def->shape;
    b->material = def->material;
    b->user_data = def->user_data;
    b->filter = def->filter;
    b->gravity_scale = def->gravity_scale;
    b->linear_damping = def->linear_damping;
    b->angular_damping = def->angular_damping;
    b->disabled = def->enabled ? 0 : 1;
    b->sensor = def->is_sensor ? 1 : 0;
    b->no_sleep = def->no_sleep ? 1 : 0;
    b->bound_radius = bound_radius;
    if (def->type == CR_BODY_DYNAMIC) set_mass_properties(b, mass, inertia); /* checked positive above */
    if (def->type != CR_BODY_STATIC) {
        b->v = def->linear_velocity;
        b->w = def->angular_velocity;
    }
    w->body_count++;
    cri_query_stale(w);
    out->index1 = index + 1;
    out->generation = b->generation;
    return CR_OK;
}

cr_status cr_body_destroy(cr_world *w, cr_body_id id) {
    cr_body *b = cri_world_body(w, id);
    if (b == NULL) return CR_ERR_STALE_HANDLE;
    if (b->joint_count > 0) cri_joints_remove_for_body(w, id.index1);
    /* what rested on it must fall: its island, or everything asleep if it
     * was static or kinematic (those are in no island) */
    cri_world_wake(w, id.index1 - 1);
    if (b->type != CR_BODY_DYNAMIC) cri_world_wake_all(w);
    if (b->models != 0 || b->shape.type == CR_SHAPE_MESH) cri_damage_detach_all(w, id.index1);
    b->alive = 0;
    cr_slot_release(cr_world_bodies(w), sizeof *b, &w->free_body, id.index1 - 1);
    w->body_count--;
    cri_query_stale(w);
    return CR_OK;
}

bool cr_body_is_valid(const cr_world *w, cr_body_id id) { return cri_world_body_c(w, id) != NULL; }

cr_transform cr_body_get_transform(const cr_world *w, cr_body_id id) {
    const cr_body *b = cri_world_body_c(w, id);
    return b ? b->xf : cr_transform_identity();
}

cr_status cr_body_set_transform(cr_world *w, cr_body_id id, cr_transform t) {
    CR_TRY(cri_check_position(w, t.p, CR_FIELD_POSITION));
    CR_TRY(cr_check_quat(w, t.q, CR_FIELD_ORIENTATION));
    cr_body *b = cri_world_body(w, id);
    if (b == NULL) return CR_ERR_STALE_HANDLE;
    b->xf.p = t.p;
    b->xf.q = cr_quat_normalize(t.q);
    cri_query_stale(w);
    cri_world_wake(w, id.index1 - 1);
    if (b->type != CR_BODY_DYNAMIC) {
        /* a teleported static or kinematic body may leave sleepers hanging in
         * the air: wake every island (rare, and simpler than asking who rested on it) */
        cri_world_wake_all(w);
    }
    return CR_OK;
}

cr_vec3 cr_body_get_linear_velocity(const cr_world *w, cr_body_id id) {
    const cr_body *b = cri_world_body_c(w, id);
    return b ? b->v : cr_v3_zero();
}

cr_vec3 cr_body_get_angular_velocity(const cr_world *w, cr_body_id id) {
    const cr_body *b = cri_world_body_c(w, id);
    return b ? b->w : cr_v3_zero();
}

cr_status cr_body_set_velocity(cr_world *w, cr_body_id id, cr_vec3 linear, cr_vec3 angular) {
    CR_TRY(cr_check_vec3(w, linear, CR_FIELD_LINEAR_VELOCITY));
    CR_TRY(cr_check_vec3(w, angular, CR_FIELD_ANGULAR_VELOCITY));
    cr_body *b = cri_world_body(w, id);
    if (b == NULL) return CR_ERR_STALE_HANDLE;
    if (b->type == CR_BODY_STATIC) return CR_OK;
    b->v = linear;
    b->w = angular;
    cri_world_wake(w, id.index1 - 1);
    return CR_OK;
}

cr_status cr_body_apply_impulse(cr_world *w, cr_body_id id, cr_vec3 impulse, cr_vec3 world_point) {
    CR_TRY(cr_check_vec3(w, impulse, CR_FIELD_IMPULSE));
    CR_TRY(cr_check_vec3(w, world_point, CR_FIELD_WORLD_POINT));
    cr_body *b = cri_world_body(w, id);
    if (b == NULL) return CR_ERR_STALE_HANDLE;
    if (b->type != CR_BODY_DYNAMIC) return CR_OK;
    cri_world_wake(w, id.index1 - 1);
    b->v = cr_v3_mad(b->v, b->inv_mass, impulse);
    cr_vec3 r = cr_v3_sub(world_point, b->xf.p);
    cr_vec3 dl = cr_quat_inv_rotate(b->xf.q, cr_v3_cross(r, impulse));
    cr_vec3 dw = cr_quat_rotate(b->xf.q, cri_inertia_inv_mul(b, dl));
    b->w = cr_v3_add(b->w, dw);
    return CR_OK;
}

cr_status cr_body_apply_force(cr_world *w, cr_body_id id, cr_vec3 force, cr_vec3 world_point) {
    CR_TRY(cr_check_vec3(w, force, CR_FIELD_FORCE));
    CR_TRY(cr_check_vec3(w, world_point, CR_FIELD_WORLD_POINT));
    cr_body *b = cri_world_body(w, id);
    if (b == NULL) return CR_ERR_STALE_HANDLE;
    if (b->type != CR_BODY_DYNAMIC) return CR_OK;
    cri_world_wake(w, id.index1 - 1);
    b->force = cr_v3_add(b->force, force);
    b->torque = cr_v3_add(b->torque, cr_v3_cross(cr_v3_sub(world_point, b->xf.p), force));
    return CR_OK;
}

cr_status cr_body_apply_torque(cr_world *w, cr_body_id id, cr_vec3 torque) {
    CR_TRY(cr_check_vec3(w, torque, CR_FIELD_TORQUE));
    cr_body *b = cri_world_body(w, id);
    if (b == NULL) return CR_ERR_STALE_HANDLE;
    if (b->type != CR_BODY_DYNAMIC) return CR_OK;
    cri_world_wake(w, id.index1 - 1);
    b->torque = cr_v3_add(b->torque, torque);
    return CR_OK;
}

bool cr_body_is_sleeping(const cr_world *w, cr_body_id id) {
    const cr_body *b = cri_world_body_c(w, id);
    return b != NULL && b->asleep;
}

cr_status cr_body_wake(cr_world *w, cr_body_id id) {
    if (cri_world_body(w, id) == NULL) return CR_ERR_STALE_HANDLE;
    cri_world_wake(w, id.index1 - 1);
    return CR_OK;
}

cr_vec3 cr_body_get_inertia(const cr_world *w, cr_body_id id) {
    const cr_body *b = cri_world_body_c(w, id);
    return b ? b->inertia : cr_v3_zero();
}

cr_vec3 cr_body_get_inertia_products(const cr_world *w, cr_body_id id) {
    const cr_body *b = cri_world_body_c(w, id);
    return b ? b->inertia_products : cr_v3_zero();
}

cr_real cr_body_get_bound_radius(const cr_world *w, cr_body_id id) {
    const cr_body *b = cri_world_body_c(w, id);
    return b ? b->bound_radius : 0;
}

cr_vec3 cr_body_get_point_velocity(const cr_world *w, cr_body_id id, cr_vec3 world_point) {
    const cr_body *b = cri_world_body_c(w, id);
    if (b == NULL) return cr_v3_zero();
    return cr_v3_add(b->v, cr_v3_cross(b->w, cr_v3_sub(world_point, b->xf.p)));
}

cr_real cr_body_get_mass(const cr_world *w, cr_body_id id) {
    const cr_body *b = cri_world_body_c(w, id);
    return b ? b->mass : 0;
}

uint64_t cr_body_get_user_data(const cr_world *w, cr_body_id id) {
    const cr_body *b = cri_world_body_c(w, id);
    return b ? b->user_data : 0;
}

cr_body_type cr_body_get_type(const cr_world *w, cr_body_id id) {
    const cr_body *b = cri_world_body_c(w, id);
    return b ? (cr_body_type)b->type : CR_BODY_STATIC;
}

cr_shape_def cr_body_get_shape(const cr_world *w, cr_body_id id) {
    const cr_body *b = cri_world_body_c(w, id);
    cr_shape_def s;
    memset(&s, 0, sizeof s);
    if (b == NULL) return s;
    s = b->shape;
    /* a body's own surface copy is internal: the host sees the cooked slot it gave */
    if (s.type == CR_SHAPE_MESH && (s.asset & CR_SURFACE_SLOT_FLAG)) s.asset = cri_damage_rest_slot(w, b->shape.asset);
    return s;
}

cr_material cr_body_get_material(const cr_world *w, cr_body_id id) {
    const cr_body *b = cri_world_body_c(w, id);
    return b ? b->material : cr_default_material();
}

cr_status cr_body_set_filter(cr_world *w, cr_body_id id, cr_filter filter) {
    cr_body *b = cri_world_body(w, id);
    if (b == NULL) return CR_ERR_STALE_HANDLE;
    b->filter = filter;
    /* a sleeper is out of the broadphase's awake pairs: wake it so a pair
     * the new filter allows is found on the next step */
    cri_world_wake(w, id.index1 - 1);
    return CR_OK;
}

cr_filter cr_body_get_filter(const cr_world *w, cr_body_id id) {
    const cr_body *b = cri_world_body_c(w, id);
    return b ? b->filter : cr_default_filter();
}

/* A damage model owns the mass and the type of the bodies it runs on (a
 * dent's volume, a bone's share of its body): setters leave those alone. */
static cr_status owned_by_model(cr_world *w, const cr_body *b, cr_field f) {
    return (b->models != 0 || b->ghost) ? cri_refuse(w, CR_ERR_DEF_INVALID, f) : CR_OK;
}

/* The mass and inertia of the body's shape at `density`, checked as create checks them. */
static cr_status shape_mass(cr_world *w, const cr_body *b, cr_body_type type, cr_real density, cr_real *mass,
                            cr_vec3 *inertia) {
    cr_real radius;
    cri_shape_mass(w, &b->shape, density, mass, inertia, &radius);
    return cri_body_mass_refuse(w, type, *mass, *inertia);
}

/* What rested on or against a body whose motion changed must notice: its
 * island, and everything asleep if it was or is static or kinematic (those
 * are in no island), as destroy does. */
static void wake_around(cr_world *w, uint32_t slot, bool all) {
    cri_world_wake(w, slot);
    if (all) cri_world_wake_all(w);
}

cr_status cr_body_set_type(cr_world *w, cr_body_id id, cr_body_type type) {
    cr_body *b = cri_world_body(w, id);
    if (b == NULL) return CR_ERR_STALE_HANDLE;
    if ((unsigned)type > CR_BODY_DYNAMIC) return cri_refuse(w, CR_ERR_DEF_INVALID, CR_FIELD_BODY_TYPE);
    if (type == (cr_body_type)b->type) return CR_OK;
    if (b->shape.type == CR_SHAPE_PLANE) return cri_refuse(w, CR_ERR_DEF_INVALID, CR_FIELD_BODY_SHAPE_TYPE);
    CR_TRY(owned_by_model(w, b, CR_FIELD_BODY_TYPE));
    cr_real mass = 0;
    cr_vec3 inertia = cr_v3_zero();
    if (type == CR_BODY_DYNAMIC) {
        CR_TRY(cri_material_refuse(w, &b->material, true)); /* a static body may have density 0 */
        CR_TRY(shape_mass(w, b, type, b->material.density, &mass, &inertia));
    }
    wake_around(w, id.index1 - 1, true);
    b->type = (uint8_t)type;
    b->asleep = 0;
    b->sleep_time = 0;
    if (type == CR_BODY_DYNAMIC) {
        set_mass_properties(b, mass, inertia);
    } else {
        b->mass = b->inv_mass = 0;
        b->inertia = b->inv_inertia = b->inertia_products = b->inv_inertia_products = cr_v3_zero();
        b->force = b->torque = cr_v3_zero();
    }
    if (type == CR_BODY_STATIC) b->v = b->w = cr_v3_zero();
    return CR_OK;
}

cr_status cr_body_set_mass(cr_world *w, cr_body_id id, cr_real mass) {
    CR_TRY(cr_check_real(w, mass, CR_FIELD_MASS));
    cr_body *b = cri_world_body(w, id);
    if (b == NULL) return CR_ERR_STALE_HANDLE;
    if (b->type != CR_BODY_DYNAMIC || mass <= 0) return cri_refuse(w, CR_ERR_ARGUMENT_RANGE, CR_FIELD_MASS);
    CR_TRY(owned_by_model(w, b, CR_FIELD_MASS));
    /* the shape's distribution at the new mass: inertia scales with mass */
    cr_real ratio = cr_div(mass, b->mass);
    cr_vec3 inertia = cr_v3_scale(b->inertia, ratio);
    CR_TRY(cri_body_mass_refuse(w, CR_BODY_DYNAMIC, mass, inertia));
    cr_vec3 products = cr_v3_scale(b->inertia_products, ratio);
    b->mass = mass;
    b->inv_mass = cr_div(CR_R(1), mass);
    cri_inertia_set(b, inertia, products);
    cri_world_wake(w, id.index1 - 1);
    return CR_OK;
}

cr_status cr_body_set_material(cr_world *w, cr_body_id id, cr_material m) {
    cr_body *b = cri_world_body(w, id);
    if (b == NULL) return CR_ERR_STALE_HANDLE;
    bool dynamic = b->type == CR_BODY_DYNAMIC;
    CR_TRY(cri_material_refuse(w, &m, dynamic));
    bool new_mass = dynamic && m.density != b->material.density;
    cr_real mass = 0;
    cr_vec3 inertia = cr_v3_zero();
    if (new_mass) {
        CR_TRY(owned_by_model(w, b, CR_FIELD_BODY_DENSITY));
        CR_TRY(shape_mass(w, b, CR_BODY_DYNAMIC, m.density, &mass, &inertia));
        set_mass_properties(b, mass, inertia);
    }
    b->material = m;
    b->material_set = 1;
    cri_world_wake(w, id.index1 - 1);
    return CR_OK;
}

cr_status cr_body_set_gravity_scale(cr_world *w, cr_body_id id, cr_real scale) {
    cr_body *b = cri_world_body(w, id);
    if (b == NULL) return CR_ERR_STALE_HANDLE;
    CR_TRY(cri_motion_refuse(w, scale, b->linear_damping, b->angular_damping));
    b->gravity_scale = scale;
    cri_world_wake(w, id.index1 - 1);
    return CR_OK;
}

cr_real cr_body_get_gravity_scale(const cr_world *w, cr_body_id id) {
    const cr_body *b = cri_world_body_c(w, id);
    return b ? b->gravity_scale : CR_R(1);
}

cr_status cr_body_set_damping(cr_world *w, cr_body_id id, cr_real linear, cr_real angular) {
    cr_body *b = cri_world_body(w, id);
    if (b == NULL) return CR_ERR_STALE_HANDLE;
    CR_TRY(cri_motion_refuse(w, b->gravity_scale, linear, angular));
    b->linear_damping = linear;
    b->angular_damping = angular;
    return CR_OK;
}

cr_real cr_body_get_linear_damping(const cr_world *w, cr_body_id id) {
    const cr_body *b = cri_world_body_c(w, id);
    return b ? b->linear_damping : 0;
}

cr_real cr_body_get_angular_damping(const cr_world *w, cr_body_id id) {
    const cr_body *b = cri_world_body_c(w, id);
    return b ? b->angular_damping : 0;
}

void cri_body_damp(const cr_body *b, cr_real dt, cr_vec3 *v, cr_vec3 *w) {
    if (b->linear_damping > 0) *v = cr_v3_scale(*v, cr_div(CR_R(1), CR_R(1) + cr_mul(dt, b->linear_damping)));
    if (b->angular_damping > 0) *w = cr_v3_scale(*w, cr_div(CR_R(1), CR_R(1) + cr_mul(dt, b->angular_damping)));
}

cr_status cr_body_set_user_data(cr_world *w, cr_body_id id, uint64_t user_data) {
    cr_body *b = cri_world_body(w, id);
    if (b == NULL) return CR_ERR_STALE_HANDLE;
    b->user_data = user_data;
    return CR_OK;
}

cr_status cr_body_set_enabled(cr_world *w, cr_body_id id, bool enabled) {
    cr_body *b = cri_world_body(w, id);
    if (b == NULL) return CR_ERR_STALE_HANDLE;
    if (enabled == !b->disabled) return CR_OK;
    wake_around(w, id.index1 - 1, b->type != CR_BODY_DYNAMIC);
    b->disabled = enabled ? 0 : 1;
    b->asleep = 0;
    b->sleep_time = 0;
    return CR_OK;
}

bool cr_body_is_enabled(const cr_world *w, cr_body_id id) {
    const cr_body *b = cri_world_body_c(w, id);
    return b != NULL && !b->disabled;
}

bool cr_body_is_sensor(const cr_world *w, cr_body_id id) {
    const cr_body *b = cri_world_body_c(w, id);
    return b != NULL && b->sensor;
}

uint32_t cr_world_get_body_ids(const cr_world *w, cr_body_id *out, uint32_t capacity) {
    if (w == NULL) return 0;
    const cr_body *bodies = cr_world_bodies_c(w);
    uint32_t n = 0;
    for (uint32_t i = 0; i < w->body_high; ++i) {
        if (!bodies[i].alive) continue;
        if (out != NULL && n < capacity) {
            out[n].index1 = i + 1;
            out[n].generation = bodies[i].generation;
        }
        ++n;
    }
    return n;
}

cr_status cr_body_create_as_modelled(cr_world *w, const cr_body_def *def, cr_transform mesh_in_level, cr_body_id *out) {
    if (out == NULL) return CR_ERR_NULL_ARGUMENT;
    memset(out, 0, sizeof *out);
    if (w == NULL || def == NULL) return CR_ERR_NULL_ARGUMENT;
    if (def->cookie != CR_BODY_COOKIE) return CR_ERR_DEF_NOT_DEFAULTED;
    const cr_asset *a = def->shape.type == CR_SHAPE_MESH ? cr_world_get_asset(w, def->shape.asset) : NULL;
    if (a == NULL) return cri_refuse(w, CR_ERR_DEF_INVALID, CR_FIELD_BODY_SHAPE_ASSET);
    CR_TRY(cr_check_vec3(w, mesh_in_level.p, CR_FIELD_BODY_POSITION));
    CR_TRY(cr_check_quat(w, mesh_in_level.q, CR_FIELD_BODY_ORIENTATION));
    cr_body_def placed = *def;
    cr_transform pose = cr_asset_body_pose(a, mesh_in_level);
    placed.position = pose.p;
    placed.orientation = pose.q;
    return cr_body_create(w, &placed, out);
}
