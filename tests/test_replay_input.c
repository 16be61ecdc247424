/* test_replay_input.c — runtime input records (crumple/input.h): what each
 * type does, the canonical order, errors, and the per-body hashes a replay
 * verifier uses to name the bodies that differ.
 */
#include "test.h"
#include "crumple/crumple.h"
#include "crumple/input.h"

#include <stdlib.h>
#include <string.h>

typedef struct sim {
    cr_world *w;
    void *block;
    cr_body_id ground, a, b, k; /* a, b dynamic spheres; k kinematic box */
} sim;

static int sim_init(sim *s) {
    cr_world_def def = cr_default_world_def();
    def.body_capacity = 8;
    size_t size = cr_world_memory_size(&def);
    s->block = aligned_alloc(CR_BLOCK_ALIGN, (size + 15) / 16 * 16);
    if (s->block == NULL || cr_world_create(&def, s->block, size, &s->w) != CR_OK) return 0;
    cr_body_def g = cr_default_body_def();
    g.type = CR_BODY_STATIC;
    g.shape.type = CR_SHAPE_PLANE;
    cr_body_def d = cr_default_body_def();
    d.position = cr_v3(0, CR_R(3), 0);
    cr_body_def e = d;
    e.position = cr_v3(CR_R(4), CR_R(3), 0);
    cr_body_def kin = cr_default_body_def();
    kin.type = CR_BODY_KINEMATIC;
    kin.shape.type = CR_SHAPE_BOX;
    kin.position = cr_v3(CR_R(-4), CR_R(1), 0);
    return cr_body_create(s->w, &g, &s->ground) == CR_OK && cr_body_create(s->w, &d, &s->a) == CR_OK &&
           cr_body_create(s->w, &e, &s->b) == CR_OK && cr_body_create(s->w, &kin, &s->k) == CR_OK;
}

static cr_input make(uint32_t type, cr_body_id body, uint32_t seq, cr_vec3 a, cr_vec3 b) {
    cr_input in;
    memset(&in, 0, sizeof in);
    in.type = type;
    in.body = body;
    in.seq = seq;
    in.a = a;
    in.b = b;
    in.q = cr_quat_identity();
    return in;
}

CR_TEST(replay_input_records_have_no_padding) {
    /* stored and compared as bytes: the size is the sum of the fields */
    ENSURE(sizeof(cr_input) == 6 * sizeof(uint32_t) + 11 * sizeof(cr_real));
}

CR_TEST(replay_inputs_apply_the_same_in_any_given_order) {
    sim x, y;
    ENSURE(sim_init(&x) && sim_init(&y));
    cr_input in[5] = {
        make(CR_INPUT_IMPULSE, x.a, 0, cr_v3(CR_R(100), 0, 0), cr_v3(0, CR_R(3.2), 0)),
        make(CR_INPUT_IMPULSE, x.a, 0, cr_v3(0, CR_R(50), CR_R(7)), cr_v3(0, CR_R(3), CR_R(0.3))),
        make(CR_INPUT_TORQUE, x.b, 0, cr_v3(0, CR_R(300), 0), cr_v3_zero()),
        make(CR_INPUT_FORCE, x.b, 0, cr_v3(CR_R(900), 0, 0), cr_v3(CR_R(4), CR_R(3.1), 0)),
        make(CR_INPUT_IMPULSE, x.b, 1, cr_v3(0, 0, CR_R(-20)), cr_v3_zero()),
    };
    in[4].flags = CR_INPUT_AT_CENTER;
    /* the same five, reversed and rotated: handles are equal in both worlds */
    cr_input rev[5];
    for (int i = 0; i < 5; ++i) rev[i] = in[(7 - i) % 5];
    ENSURE(cr_world_apply_inputs(x.w, in, 5) == CR_OK);
    ENSURE(cr_world_apply_inputs(y.w, rev, 5) == CR_OK);
    ENSURE(cr_world_state_hash(x.w) == cr_world_state_hash(y.w));
    for (int f = 0; f < 30; ++f) {
        cr_world_step(x.w, CR_R(1.0 / 60.0));
        cr_world_step(y.w, CR_R(1.0 / 60.0));
    }
    ENSURE(cr_world_state_hash(x.w) == cr_world_state_hash(y.w));
    /* and they did something: a was pushed along +x, b spun about y and pushed along +x */
    ENSURE(cr_to_double(cr_body_get_linear_velocity(x.w, x.a).x) > 0.1);
    ENSURE(cr_to_double(cr_body_get_angular_velocity(x.w, x.b).y) > 0.01);
    ENSURE(cr_to_double(cr_body_get_transform(x.w, x.b).p.x) > 4.0);
    free(x.block), free(y.block);
}

CR_TEST(replay_input_seq_decides_the_order_of_conflicting_inputs) {
    sim x, y;
    ENSURE(sim_init(&x) && sim_init(&y));
    /* set velocity, then kick: the kick survives; kick, then set: it does not */
    cr_input set = make(CR_INPUT_SET_VELOCITY, x.a, 0, cr_v3(CR_R(1), 0, 0), cr_v3_zero());
    cr_input kick = make(CR_INPUT_IMPULSE, x.a, 1, cr_v3(0, CR_R(200), 0), cr_v3_zero());
    kick.flags = CR_INPUT_AT_CENTER;
    cr_input first[2] = {kick, set};
    ENSURE(cr_world_apply_inputs(x.w, first, 2) == CR_OK);
    ENSURE(cr_to_double(cr_body_get_linear_velocity(x.w, x.a).y) > 0.1);
    set.seq = 1, kick.seq = 0;
    cr_input second[2] = {set, kick};
    ENSURE(cr_world_apply_inputs(y.w, second, 2) == CR_OK);
    ENSURE(cr_to_double(cr_body_get_linear_velocity(y.w, y.a).y) == 0.0);
    ENSURE(cr_to_double(cr_body_get_linear_velocity(y.w, y.a).x) == 1.0);
    free(x.block), free(y.block);
}

CR_TEST(replay_input_transform_target_and_destroy) {
    sim x;
    ENSURE(sim_init(&x));
    cr_input in[3];
    in[0] = make(CR_INPUT_SET_TRANSFORM, x.b, 0, cr_v3(CR_R(5), CR_R(2), CR_R(1)), cr_v3_zero());
    in[0].q = cr_quat_from_axis_angle(cr_v3(0, CR_R(1), 0), CR_R(0.5));
    in[1] = make(CR_INPUT_KINEMATIC_TARGET, x.k, 0, cr_v3(CR_R(-4), CR_R(2), 0), cr_v3_zero());
    in[1].time = CR_R(0.5);
    in[1].q = cr_quat_from_axis_angle(cr_v3(0, CR_R(1), 0), CR_R(1.0));
    in[1].flags = CR_INPUT_HAS_ORIENTATION;
    in[2] = make(CR_INPUT_DESTROY, x.a, 0, cr_v3_zero(), cr_v3_zero());
    ENSURE(cr_world_apply_inputs(x.w, in, 3) == CR_OK);
    ENSURE(!cr_body_is_valid(x.w, x.a));
    ENSURE_NEAR(cr_to_double(cr_body_get_transform(x.w, x.b).p.x), 5.0, 1e-6);
    ENSURE_NEAR(cr_to_double(cr_body_get_transform(x.w, x.b).q.y), 0.247404, 1e-4); /* sin(0.25) */
    /* the kinematic box moves 1 m up in 0.5 s and turns 1 rad about y */
    ENSURE_NEAR(cr_to_double(cr_body_get_linear_velocity(x.w, x.k).y), 2.0, 1e-4);
    ENSURE_NEAR(cr_to_double(cr_body_get_angular_velocity(x.w, x.k).y), 2.0, 2e-3);
    for (int f = 0; f < 30; ++f) cr_world_step(x.w, CR_R(1.0 / 60.0));
    ENSURE_NEAR(cr_to_double(cr_body_get_transform(x.w, x.k).p.y), 2.0, 1e-3);
    free(x.block);
}

CR_TEST(replay_input_errors_are_reported_and_the_rest_applied) {
    sim x;
    ENSURE(sim_init(&x));
    cr_body_id gone = x.a;
    ENSURE(cr_body_destroy(x.w, gone) == CR_OK);
    cr_input in[4];
    in[0] = make(CR_INPUT_IMPULSE, gone, 0, cr_v3(CR_R(5), 0, 0), cr_v3_zero());
    in[1] = make(CR_INPUT_SET_VELOCITY, x.b, 1, cr_v3(0, 0, CR_R(2)), cr_v3_zero());
    in[2] = make(99, x.b, 2, cr_v3_zero(), cr_v3_zero());
    in[3] = make(CR_INPUT_KINEMATIC_TARGET, x.k, 3, cr_v3_zero(), cr_v3_zero()); /* time 0 */
    ENSURE(cr_world_apply_inputs(x.w, in, 4) == CR_ERR_STALE_HANDLE); /* the first in canonical order */
    ENSURE(cr_to_double(cr_body_get_linear_velocity(x.w, x.b).z) == 2.0);
    ENSURE(cr_world_apply_inputs(x.w, in + 2, 1) == CR_ERR_ARGUMENT_RANGE);
    ENSURE(cr_world_refused_field(x.w) == CR_FIELD_INPUT_TYPE);
    ENSURE(cr_world_apply_inputs(x.w, in + 3, 1) == CR_ERR_ARGUMENT_RANGE);
    ENSURE(cr_world_refused_field(x.w) == CR_FIELD_INPUT_TIME);
    in[1].flags = 0x40;
    ENSURE(cr_world_apply_inputs(x.w, in + 1, 1) == CR_ERR_ARGUMENT_RANGE);
    ENSURE(cr_world_refused_field(x.w) == CR_FIELD_INPUT_FLAGS);
    ENSURE(cr_world_apply_inputs(x.w, NULL, 0) == CR_OK);
    ENSURE(cr_world_apply_inputs(x.w, NULL, 1) == CR_ERR_NULL_ARGUMENT);
    ENSURE(cr_world_apply_inputs(NULL, in, 1) == CR_ERR_NULL_ARGUMENT);
    free(x.block);
}

CR_TEST(replay_body_hashes_name_the_body_that_changed) {
    sim x;
    ENSURE(sim_init(&x));
    cr_body_hash before[8], after[8];
    uint32_t n = cr_world_body_hashes(x.w, before, 8);
    ENSURE(n == 4);
    for (uint32_t i = 0; i < n; ++i) ENSURE(before[i].hash == cr_body_state_hash(x.w, before[i].id));
    cr_body_id ids[4];
    ENSURE(cr_body_hashes_diff(before, n, before, n, ids, 4) == 0);
    /* the smallest possible change to one body: one unit in the last place of its x velocity */
    cr_vec3 v = cr_body_get_linear_velocity(x.w, x.b);
    v.x = CR_REAL_EPS;
    ENSURE(cr_body_set_velocity(x.w, x.b, v, cr_v3_zero()) == CR_OK);
    ENSURE(cr_world_body_hashes(x.w, after, 8) == 4);
    ENSURE(cr_body_hashes_diff(before, n, after, n, ids, 4) == 1);
    ENSURE(ids[0].index1 == x.b.index1 && ids[0].generation == x.b.generation);
    /* a destroyed body differs (missing from one list), and so does its replacement */
    ENSURE(cr_body_destroy(x.w, x.a) == CR_OK);
    cr_body_def d = cr_default_body_def();
    cr_body_id again;
    ENSURE(cr_body_create(x.w, &d, &again) == CR_OK);
    ENSURE(again.index1 == x.a.index1 && again.generation != x.a.generation);
    uint32_t m = cr_world_body_hashes(x.w, after, 8);
    ENSURE(cr_body_hashes_diff(before, n, after, m, ids, 4) == 3); /* b, old a, new a */
    ENSURE(cr_body_state_hash(x.w, x.a) == 0);
    free(x.block);
}

CR_TEST(replay_state_layout_id_names_the_mode) {
    uint64_t id = cr_state_layout_id();
    ENSURE(id == cr_state_layout_id());
    ENSURE(id != 0);
    cr_test_printf("state-layout id %016llx (%s)\n", (unsigned long long)id, CR_MODE_NAME);
}
