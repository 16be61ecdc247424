/* test_hostile_api.c — every public entry point against a careless or hostile
 * caller: NaN, ±Inf (in fixed point the saturated values that stand for them),
 * zero quaternions, dt <= 0, masses whose reciprocal overflows.
 *
 * Each refusal is checked for its exact status and for the field that
 * cr_world_refused_field / cr_world_def_check name, and the world must be
 * unchanged by it (same state hash). Then the last line of defence: a body
 * whose state becomes non-finite anyway is frozen and counted, and the rest
 * of the world goes on.
 */
#include "test.h"
#include "crumple/crumple.h"
#include "crumple/input.h"
#include "base/block.h"

#include <stdlib.h>
#include <string.h>

/* The values no argument may have, in this build's scalar type. */
#if CR_FIXED
static const cr_real bad[] = {CR_REAL_MAX, -CR_REAL_MAX, INT64_MIN};
#else
static const cr_real bad[] = {NAN, INFINITY, -INFINITY};
#endif
#define NBAD (sizeof bad / sizeof bad[0])

typedef struct hworld {
    void *block;
    cr_world *w;
    cr_body_id ground, ball, other;
} hworld;

static bool hworld_init(hworld *h) {
    memset(h, 0, sizeof *h);
    cr_world_def def = cr_default_world_def();
    def.body_capacity = 8;
    size_t size = cr_world_memory_size(&def);
    h->block = aligned_alloc(CR_BLOCK_ALIGN, (size + 15) / 16 * 16);
    if (h->block == NULL || cr_world_create(&def, h->block, size, &h->w) != CR_OK) return false;
    cr_body_def bd = cr_default_body_def();
    bd.type = CR_BODY_STATIC;
    bd.shape.type = CR_SHAPE_PLANE;
    if (cr_body_create(h->w, &bd, &h->ground) != CR_OK) return false;
    bd = cr_default_body_def();
    bd.position = cr_v3(0, CR_R(2), 0);
    if (cr_body_create(h->w, &bd, &h->ball) != CR_OK) return false;
    bd.position = cr_v3(CR_R(3), CR_R(2), 0);
    return cr_body_create(h->w, &bd, &h->other) == CR_OK;
}

CR_TEST(hostile_world_def_names_the_field) {
    static const struct { size_t offset; cr_field field; } reals[] = {
        {offsetof(cr_world_def, gravity) + offsetof(cr_vec3, y), CR_FIELD_WORLD_GRAVITY},
        {offsetof(cr_world_def, broadphase_cell), CR_FIELD_WORLD_BROADPHASE_CELL},
        {offsetof(cr_world_def, event_min_speed), CR_FIELD_WORLD_EVENT_MIN_SPEED},
        {offsetof(cr_world_def, sleep_time), CR_FIELD_WORLD_SLEEP_TIME},
        {offsetof(cr_world_def, sleep_linear), CR_FIELD_WORLD_SLEEP_LINEAR},
        {offsetof(cr_world_def, sleep_angular), CR_FIELD_WORLD_SLEEP_ANGULAR},
    };
    static _Alignas(16) uint8_t block[1 << 12];
    for (size_t i = 0; i < sizeof reals / sizeof reals[0]; ++i)
        for (size_t k = 0; k < NBAD; ++k) {
            cr_world_def def = cr_default_world_def();
            memcpy((uint8_t *)&def + reals[i].offset, &bad[k], sizeof(cr_real));
            cr_field f = CR_FIELD_NONE;
            ENSURE(cr_world_def_check(&def, &f) == CR_ERR_NOT_FINITE);
            ENSURE_MSG(f == reals[i].field, "field %s, expected %s", cr_field_name(f), cr_field_name(reals[i].field));
            ENSURE(cr_world_memory_size(&def) == 0);
            cr_world *w = (cr_world *)block;
            ENSURE(cr_world_create(&def, block, sizeof block, &w) == CR_ERR_NOT_FINITE && w == NULL);
        }
    /* a finite value out of range, and capacities past the 4 GiB block limit */
    cr_world_def def = cr_default_world_def();
    def.sleep_time = CR_R(-1);
    cr_field f;
    ENSURE(cr_world_def_check(&def, &f) == CR_ERR_DEF_INVALID && f == CR_FIELD_WORLD_SLEEP_TIME);
    def = cr_default_world_def();
    def.points_per_pair = 0;
    ENSURE(cr_world_def_check(&def, &f) == CR_ERR_DEF_INVALID && f == CR_FIELD_WORLD_POINTS_PER_PAIR);
    ENSURE(strcmp(cr_field_name(f), "cr_world_def.points_per_pair") == 0);
    def = cr_default_world_def();
    def.body_capacity = 1u << 24;
    def.point_capacity = 1u << 26;
    ENSURE(cr_world_def_check(&def, &f) == CR_ERR_WORLD_TOO_LARGE && f == CR_FIELD_WORLD_DEF);
    cr_world *w;
    ENSURE(cr_world_create(&def, block, sizeof block, &w) == CR_ERR_WORLD_TOO_LARGE);
    def = cr_default_world_def();
    ENSURE(cr_world_def_check(&def, &f) == CR_OK && f == CR_FIELD_NONE);
}

/* The damage models' budgets hold counts, not reals: each count out of its
 * range is CR_ERR_DEF_INVALID naming that count (not only the budget), and
 * memory_size / create refuse the same def. A model with body_capacity 0 takes
 * no memory, so its other counts are free then. */
typedef struct { const char *what; void (*spoil)(cr_damage_def *); cr_field f; } spoil_t;
#define SPOIL_(name, stmt) static void name(cr_damage_def *d) { stmt; }
SPOIL_(dent_bodies, d->dent.body_capacity = 5000)
SPOIL_(dent_queue0, (d->dent.body_capacity = 1, d->dent.queue_capacity = 0))
SPOIL_(dent_queue_big, d->dent.queue_capacity = (1u << 20) + 1)
SPOIL_(dent_cells, (d->dent.body_capacity = 1, d->dent.max_cells = 4))
SPOIL_(dent_cells_big, d->dent.max_cells = 2048)
SPOIL_(dent_per_step, (d->dent.body_capacity = 1, d->dent.dents_per_step = 0))
SPOIL_(dent_work, (d->dent.body_capacity = 1, d->dent.work_per_step = d->dent.max_cells * d->dent.max_cells - 1))
SPOIL_(ex_bodies, d->example.body_capacity = 5000)
SPOIL_(ex_vertices, (d->example.body_capacity = 1, d->example.max_vertices = 0))
SPOIL_(ex_rows_too_big, (d->example.body_capacity = 4096, d->example.max_vertices = 1u << 20))
SPOIL_(ex_examples, (d->example.body_capacity = 1, d->example.max_examples = 1))
SPOIL_(ex_queue, (d->example.body_capacity = 1, d->example.queue_capacity = 0))
SPOIL_(ex_impulses, (d->example.body_capacity = 1, d->example.impulses_per_step = 0))
SPOIL_(ex_neighbours, (d->example.body_capacity = 1, d->example.neighbours_per_step = 0))
SPOIL_(ex_vertices_step, (d->example.body_capacity = 1, d->example.vertices_per_step = 0))
SPOIL_(ex_grid, (d->example.body_capacity = 1, d->example.grid_nodes_per_step = (1u << 24) + 1))
#undef SPOIL_

CR_TEST(hostile_damage_budgets_name_the_field) {
    static const spoil_t spoils[] = {
        {"dent bodies 5000", dent_bodies, CR_FIELD_DENT_BUDGET_BODY_CAPACITY},
        {"dent queue 0", dent_queue0, CR_FIELD_DENT_BUDGET_QUEUE_CAPACITY},
        {"dent queue 2^20+1", dent_queue_big, CR_FIELD_DENT_BUDGET_QUEUE_CAPACITY},
        {"dent max_cells 4", dent_cells, CR_FIELD_DENT_BUDGET_MAX_CELLS},
        {"dent max_cells 2048", dent_cells_big, CR_FIELD_DENT_BUDGET_MAX_CELLS},
        {"dent dents_per_step 0", dent_per_step, CR_FIELD_DENT_BUDGET_DENTS_PER_STEP},
        {"dent work below one map", dent_work, CR_FIELD_DENT_BUDGET_WORK_PER_STEP},
        {"example bodies 5000", ex_bodies, CR_FIELD_EXAMPLE_BUDGET_BODY_CAPACITY},
        {"example max_vertices 0", ex_vertices, CR_FIELD_EXAMPLE_BUDGET_MAX_VERTICES},
        {"example rows past 1 GiB", ex_rows_too_big, CR_FIELD_EXAMPLE_BUDGET_MAX_VERTICES},
        {"example max_examples 1", ex_examples, CR_FIELD_EXAMPLE_BUDGET_MAX_EXAMPLES},
        {"example queue 0", ex_queue, CR_FIELD_EXAMPLE_BUDGET_QUEUE_CAPACITY},
        {"example impulses_per_step 0", ex_impulses, CR_FIELD_EXAMPLE_BUDGET_IMPULSES_PER_STEP},
        {"example neighbours_per_step 0", ex_neighbours, CR_FIELD_EXAMPLE_BUDGET_NEIGHBOURS_PER_STEP},
        {"example vertices_per_step 0", ex_vertices_step, CR_FIELD_EXAMPLE_BUDGET_VERTICES_PER_STEP},
        {"example grid nodes 2^24+1", ex_grid, CR_FIELD_EXAMPLE_BUDGET_GRID_NODES_PER_STEP},
    };
    static _Alignas(16) uint8_t block[1 << 12];
    for (size_t i = 0; i < sizeof spoils / sizeof spoils[0]; ++i) {
        cr_world_def def = cr_default_world_def();
        spoils[i].spoil(&def.damage);
        cr_field f = CR_FIELD_NONE;
        cr_status s = cr_world_def_check(&def, &f);
        ENSURE_MSG(s == CR_ERR_DEF_INVALID && f == spoils[i].f, "%s: %s, field %s (expected %s)", spoils[i].what,
                   cr_status_name(s), cr_field_name(f), cr_field_name(spoils[i].f));
        ENSURE(cr_world_memory_size(&def) == 0);
        cr_world *w = (cr_world *)block;
        ENSURE(cr_world_create(&def, block, sizeof block, &w) == CR_ERR_DEF_INVALID && w == NULL);
    }
    /* the same counts are free while the model has no bodies */
    cr_world_def def = cr_default_world_def();
    def.damage.example.max_vertices = 0, def.damage.example.queue_capacity = 0;
    def.damage.dent.dents_per_step = 0;
    cr_field f;
    ENSURE(cr_world_def_check(&def, &f) == CR_OK && f == CR_FIELD_NONE);
    ENSURE(strcmp(cr_field_name(CR_FIELD_DENT_BUDGET_QUEUE_CAPACITY), "cr_world_def.damage.dent.queue_capacity") == 0);
}

CR_TEST(hostile_body_def_names_the_field) {
    hworld h;
    ENSURE(hworld_init(&h));
    uint64_t before = cr_world_state_hash(h.w);
    static const struct { size_t offset; cr_field field; } reals[] = {
        {offsetof(cr_body_def, position) + offsetof(cr_vec3, x), CR_FIELD_BODY_POSITION},
        {offsetof(cr_body_def, orientation) + offsetof(cr_quat, w), CR_FIELD_BODY_ORIENTATION},
        {offsetof(cr_body_def, linear_velocity) + offsetof(cr_vec3, z), CR_FIELD_BODY_LINEAR_VELOCITY},
        {offsetof(cr_body_def, angular_velocity) + offsetof(cr_vec3, y), CR_FIELD_BODY_ANGULAR_VELOCITY},
        {offsetof(cr_body_def, shape) + offsetof(cr_shape_def, radius), CR_FIELD_BODY_SHAPE_RADIUS},
        {offsetof(cr_body_def, shape) + offsetof(cr_shape_def, half_extents), CR_FIELD_BODY_SHAPE_HALF_EXTENTS},
        {offsetof(cr_body_def, material) + offsetof(cr_material, density), CR_FIELD_BODY_DENSITY},
        {offsetof(cr_body_def, material) + offsetof(cr_material, restitution), CR_FIELD_BODY_RESTITUTION},
        {offsetof(cr_body_def, material) + offsetof(cr_material, friction), CR_FIELD_BODY_FRICTION},
        {offsetof(cr_body_def, material) + offsetof(cr_material, rolling_friction), CR_FIELD_BODY_ROLLING_FRICTION},
        {offsetof(cr_body_def, material) + offsetof(cr_material, spinning_friction), CR_FIELD_BODY_SPINNING_FRICTION},
    };
    for (size_t i = 0; i < sizeof reals / sizeof reals[0]; ++i)
        for (size_t k = 0; k < NBAD; ++k) {
            cr_body_def bd = cr_default_body_def();
            memcpy((uint8_t *)&bd + reals[i].offset, &bad[k], sizeof(cr_real));
            cr_body_id id = {7, 7};
            ENSURE(cr_body_create(h.w, &bd, &id) == CR_ERR_NOT_FINITE);
            ENSURE(cr_body_id_is_null(id));
            cr_field f = cr_world_refused_field(h.w);
            ENSURE_MSG(f == reals[i].field, "field %s, expected %s", cr_field_name(f), cr_field_name(reals[i].field));
        }
    /* the zero quaternion has no rotation to normalise to */
    cr_body_def bd = cr_default_body_def();
    bd.orientation.w = 0;
    cr_body_id id;
    ENSURE(cr_body_create(h.w, &bd, &id) == CR_ERR_BAD_ORIENTATION);
    ENSURE(cr_world_refused_field(h.w) == CR_FIELD_BODY_ORIENTATION);
    ENSURE(strcmp(cr_field_name(cr_world_refused_field(h.w)), "cr_body_def.orientation") == 0);
    /* a finite value out of range is still CR_ERR_DEF_INVALID, with its field */
    bd = cr_default_body_def();
    bd.shape.type = CR_SHAPE_BOX;
    bd.shape.half_extents.y = 0;
    ENSURE(cr_body_create(h.w, &bd, &id) == CR_ERR_DEF_INVALID);
    ENSURE(cr_world_refused_field(h.w) == CR_FIELD_BODY_SHAPE_HALF_EXTENTS);
    /* finite, but past what a length may be: 1e30 cast to a segment count would be UB */
    bd = cr_default_body_def();
    bd.shape.type = CR_SHAPE_BOX;
    bd.shape.half_extents.x = CR_FIXED ? CR_R(2e6) : CR_R(1e30);
    ENSURE(cr_body_create(h.w, &bd, &id) == CR_ERR_DEF_INVALID);
    ENSURE(cr_world_refused_field(h.w) == CR_FIELD_BODY_SHAPE_HALF_EXTENTS);
    bd = cr_default_body_def();
    bd.position.z = CR_R(2e9);
    ENSURE(cr_body_create(h.w, &bd, &id) == CR_ERR_DEF_INVALID);
    ENSURE(cr_world_refused_field(h.w) == CR_FIELD_BODY_POSITION);
    /* a sphere so small that 1/inertia does not fit the scalar type */
    bd = cr_default_body_def();
    bd.shape.radius = CR_FIXED ? CR_R(1e-3) : CR_R(1e-10);
    ENSURE(cr_body_create(h.w, &bd, &id) == CR_ERR_MASS_RANGE);
    ENSURE(cr_world_refused_field(h.w) == CR_FIELD_BODY_INERTIA || cr_world_refused_field(h.w) == CR_FIELD_BODY_MASS);
    ENSURE(cr_world_get_stats(h.w).body_count == 0 || cr_world_get_body_ids(h.w, NULL, 0) == 3);
    ENSURE(cr_world_state_hash(h.w) == before);
    free(h.block);
}

CR_TEST(hostile_body_calls_refuse_non_finite_arguments) {
    hworld h;
    ENSURE(hworld_init(&h));
    uint64_t before = cr_world_state_hash(h.w);
    cr_vec3 ok = cr_v3(CR_R(1), 0, 0);
    for (size_t k = 0; k < NBAD; ++k) {
        cr_vec3 v = cr_v3(0, bad[k], 0);
        cr_transform t = cr_transform_identity();
        t.p = v;
        ENSURE(cr_body_set_transform(h.w, h.ball, t) == CR_ERR_NOT_FINITE);
        ENSURE(cr_world_refused_field(h.w) == CR_FIELD_POSITION);
        t = cr_transform_identity();
        t.q.x = bad[k];
        ENSURE(cr_body_set_transform(h.w, h.ball, t) == CR_ERR_NOT_FINITE);
        ENSURE(cr_world_refused_field(h.w) == CR_FIELD_ORIENTATION);
        ENSURE(cr_body_set_velocity(h.w, h.ball, v, ok) == CR_ERR_NOT_FINITE);
        ENSURE(cr_world_refused_field(h.w) == CR_FIELD_LINEAR_VELOCITY);
        ENSURE(cr_body_set_velocity(h.w, h.ball, ok, v) == CR_ERR_NOT_FINITE);
        ENSURE(cr_world_refused_field(h.w) == CR_FIELD_ANGULAR_VELOCITY);
        ENSURE(cr_body_apply_impulse(h.w, h.ball, v, ok) == CR_ERR_NOT_FINITE);
        ENSURE(cr_world_refused_field(h.w) == CR_FIELD_IMPULSE);
        ENSURE(cr_body_apply_impulse(h.w, h.ball, ok, v) == CR_ERR_NOT_FINITE);
        ENSURE(cr_world_refused_field(h.w) == CR_FIELD_WORLD_POINT);
        ENSURE(cr_body_apply_force(h.w, h.ball, v, ok) == CR_ERR_NOT_FINITE);
        ENSURE(cr_world_refused_field(h.w) == CR_FIELD_FORCE);
        ENSURE(cr_body_apply_force(h.w, h.ball, ok, v) == CR_ERR_NOT_FINITE);
        ENSURE(cr_world_refused_field(h.w) == CR_FIELD_WORLD_POINT);
        ENSURE(cr_body_apply_torque(h.w, h.ball, v) == CR_ERR_NOT_FINITE);
        ENSURE(cr_world_refused_field(h.w) == CR_FIELD_TORQUE);
        ENSURE(cr_world_set_gravity(h.w, v) == CR_ERR_NOT_FINITE);
        ENSURE(cr_world_refused_field(h.w) == CR_FIELD_GRAVITY);
        ENSURE(cr_world_step(h.w, bad[k]) == CR_ERR_NOT_FINITE);
        ENSURE(cr_world_refused_field(h.w) == CR_FIELD_DT);
    }
    cr_transform t = cr_transform_identity();
    t.p.y = CR_R(2e9);
    ENSURE(cr_body_set_transform(h.w, h.ball, t) == CR_ERR_ARGUMENT_RANGE);
    ENSURE(cr_world_refused_field(h.w) == CR_FIELD_POSITION);
    t = cr_transform_identity();
    t.q.w = 0;
    ENSURE(cr_body_set_transform(h.w, h.ball, t) == CR_ERR_BAD_ORIENTATION);
    ENSURE(cr_world_refused_field(h.w) == CR_FIELD_ORIENTATION);
    ENSURE(cr_world_step(h.w, 0) == CR_ERR_ARGUMENT_RANGE);
    ENSURE(cr_world_step(h.w, CR_R(-0.01)) == CR_ERR_ARGUMENT_RANGE);
    ENSURE(cr_world_refused_field(h.w) == CR_FIELD_DT);
#if !CR_FIXED
    ENSURE(cr_world_step(h.w, 1e-39f) == CR_ERR_ARGUMENT_RANGE); /* 1/dt overflows */
#endif
    ENSURE(cr_world_state_hash(h.w) == before);
    ENSURE(cr_world_step(h.w, CR_R(1.0 / 60.0)) == CR_OK);
    free(h.block);
}

CR_TEST(hostile_joint_and_input_arguments_are_refused) {
    hworld h;
    ENSURE(hworld_init(&h));
    uint64_t before = cr_world_state_hash(h.w);
    for (size_t k = 0; k < NBAD; ++k) {
        cr_joint_def jd = cr_default_joint_def();
        jd.type = CR_JOINT_HINGE;
        jd.body_a = h.ball;
        jd.body_b = h.other;
        jd.anchor.z = bad[k];
        cr_joint_id j;
        ENSURE(cr_joint_create(h.w, &jd, &j) == CR_ERR_NOT_FINITE && cr_joint_id_is_null(j));
        ENSURE(cr_world_refused_field(h.w) == CR_FIELD_JOINT_ANCHOR);
        jd.anchor.z = 0;
        jd.axis.x = bad[k];
        ENSURE(cr_joint_create(h.w, &jd, &j) == CR_ERR_NOT_FINITE);
        ENSURE(cr_world_refused_field(h.w) == CR_FIELD_JOINT_AXIS);

        cr_input in;
        memset(&in, 0, sizeof in);
        in.type = CR_INPUT_IMPULSE;
        in.body = h.ball;
        in.a.x = bad[k];
        ENSURE(cr_world_apply_inputs(h.w, &in, 1) == CR_ERR_NOT_FINITE);
        ENSURE(cr_world_refused_field(h.w) == CR_FIELD_INPUT_A);
        in.a.x = 0;
        in.b.y = bad[k];
        ENSURE(cr_world_apply_inputs(h.w, &in, 1) == CR_ERR_NOT_FINITE);
        ENSURE(cr_world_refused_field(h.w) == CR_FIELD_INPUT_B);
        in.b.y = 0;
        in.type = CR_INPUT_KINEMATIC_TARGET;
        in.time = bad[k];
        ENSURE(cr_world_apply_inputs(h.w, &in, 1) == CR_ERR_NOT_FINITE);
        ENSURE(cr_world_refused_field(h.w) == CR_FIELD_INPUT_TIME);
    }
    cr_joint_def jd = cr_default_joint_def();
    jd.type = CR_JOINT_HINGE;
    jd.body_a = h.ball;
    jd.axis = cr_v3_zero();
    cr_joint_id j;
    ENSURE(cr_joint_create(h.w, &jd, &j) == CR_ERR_DEF_INVALID);
    ENSURE(cr_world_refused_field(h.w) == CR_FIELD_JOINT_AXIS);
    jd.body_b = h.ball;
    jd.axis = cr_v3(0, CR_R(1), 0);
    ENSURE(cr_joint_create(h.w, &jd, &j) == CR_ERR_DEF_INVALID);
    ENSURE(cr_world_refused_field(h.w) == CR_FIELD_JOINT_BODY_B);
    jd.body_b = h.other;
    ENSURE(cr_joint_create(h.w, &jd, &j) == CR_OK);
    before = cr_world_state_hash(h.w);
    cr_quat zero = {0, 0, 0, 0};
    ENSURE(cr_joint_set_rest_orientation(h.w, j, zero) == CR_ERR_BAD_ORIENTATION);
    ENSURE(cr_world_refused_field(h.w) == CR_FIELD_JOINT_REST);
    cr_input in;
    memset(&in, 0, sizeof in);
    in.type = CR_INPUT_SET_TRANSFORM;
    in.body = h.ball;
    ENSURE(cr_world_apply_inputs(h.w, &in, 1) == CR_ERR_BAD_ORIENTATION); /* q all zero */
    ENSURE(cr_world_refused_field(h.w) == CR_FIELD_INPUT_Q);
    in.type = CR_INPUT_KINEMATIC_TARGET;
    in.time = CR_R(-1);
    ENSURE(cr_world_apply_inputs(h.w, &in, 1) == CR_ERR_ARGUMENT_RANGE);
    ENSURE(cr_world_refused_field(h.w) == CR_FIELD_INPUT_TIME);
    ENSURE(cr_world_state_hash(h.w) == before);
    free(h.block);
}

/* The state goes non-finite behind the API's back (as a solver overflow
 * would make it): the step freezes that body, counts it, and the other body
 * falls on exactly as in a world where nothing happened. */
CR_TEST(hostile_non_finite_body_is_frozen_and_the_world_goes_on) {
    hworld h, ref;
    ENSURE(hworld_init(&h) && hworld_init(&ref));
    ENSURE(cr_world_step(h.w, CR_R(1.0 / 60.0)) == CR_OK && cr_world_step(ref.w, CR_R(1.0 / 60.0)) == CR_OK);
    cr_transform rested = cr_body_get_transform(h.w, h.ball); /* its last finite pose */
    /* a lost position: back to the pose it ended its last finite step with */
    cr_world_bodies(h.w)[h.ball.index1 - 1].xf.p.x = bad[0];
    ENSURE(cr_world_step(h.w, CR_R(1.0 / 60.0)) == CR_OK && cr_world_step(ref.w, CR_R(1.0 / 60.0)) == CR_OK);
    ENSURE(cr_world_get_stats(h.w).frozen == 1);
    ENSURE(cr_world_get_stats(ref.w).frozen == 0);
    /* frozen before the broadphase saw it: back at that pose with zero
     * velocity, then one ordinary step of free fall from there */
    cr_transform now = cr_body_get_transform(h.w, h.ball);
    ENSURE(now.p.x == rested.p.x && now.p.z == rested.p.z && now.p.y < rested.p.y);
    cr_vec3 v = cr_body_get_linear_velocity(h.w, h.ball);
    ENSURE(v.x == 0 && v.z == 0 && v.y < 0 && v.y >= CR_R(-9.81 / 60.0) - CR_R(1e-6));
    ENSURE(cr_body_state_hash(h.w, h.other) == cr_body_state_hash(ref.w, ref.other));
    /* from then on it is an ordinary body again: it falls */
    ENSURE(cr_world_step(h.w, CR_R(1.0 / 60.0)) == CR_OK);
    ENSURE(cr_world_get_stats(h.w).frozen == 0);
    ENSURE(cr_body_get_linear_velocity(h.w, h.ball).y < 0);
#if !CR_FIXED
    /* a lost velocity: it keeps its pose and starts the step at rest */
    cr_transform start = cr_body_get_transform(h.w, h.ball);
    cr_world_bodies(h.w)[h.ball.index1 - 1].w.z = NAN;
    ENSURE(cr_world_step(h.w, CR_R(1.0 / 60.0)) == CR_OK);
    ENSURE(cr_world_get_stats(h.w).frozen == 1);
    now = cr_body_get_transform(h.w, h.ball);
    ENSURE(memcmp(&now.q, &start.q, sizeof now.q) == 0 && now.p.x == start.p.x);
    ENSURE(cr_body_get_angular_velocity(h.w, h.ball).z == 0);
    /* and through the API alone: a finite speed times a long dt overflows */
    ENSURE(cr_body_set_velocity(h.w, h.other, cr_v3(0, 3e38f, 0), cr_v3_zero()) == CR_OK);
    cr_transform before = cr_body_get_transform(h.w, h.other);
    ENSURE(cr_world_step(h.w, 100.0f) == CR_OK);
    ENSURE(cr_world_get_stats(h.w).frozen >= 1); /* the resting ball may overflow too at dt = 100 s */
    cr_transform after = cr_body_get_transform(h.w, h.other);
    ENSURE(memcmp(&after.p, &before.p, sizeof after.p) == 0);
#endif
    free(h.block);
    free(ref.block);
}

CR_TEST(hostile_status_and_field_names_are_distinct) {
    for (int i = 0; i < CR_STATUS_COUNT; ++i)
        for (int j = i + 1; j < CR_STATUS_COUNT; ++j)
            ENSURE(strcmp(cr_status_message((cr_status)i), cr_status_message((cr_status)j)) != 0);
    for (int i = 0; i < CR_FIELD_COUNT; ++i)
        for (int j = i + 1; j < CR_FIELD_COUNT; ++j)
            ENSURE(strcmp(cr_field_name((cr_field)i), cr_field_name((cr_field)j)) != 0);
}
