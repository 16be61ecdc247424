/* test_body_setters.c — changing a body after creation, as a game does:
 * type, mass, material, gravity scale, damping, user data, enabled. Each
 * setter refuses bad input naming the field and leaves the world valid;
 * what changes the simulation changes the state hash. */
#include "test.h"
#include "crumple/crumple.h"

#include <stdlib.h>
#include <string.h>

typedef struct setter_world {
    void *block;
    cr_world *w;
    cr_body_id ground, ball;
} setter_world;

/* A ball resting on a ground plane (asleep after 2 s), with room for more. */
static bool make_world(setter_world *sw) {
    cr_world_def def = cr_default_world_def();
    def.body_capacity = 8;
    size_t size = cr_world_memory_size(&def);
    sw->block = aligned_alloc(CR_BLOCK_ALIGN, (size + 15) / 16 * 16);
    if (cr_world_create(&def, sw->block, size, &sw->w) != CR_OK) return false;
    cr_body_def g = cr_default_body_def();
    g.type = CR_BODY_STATIC;
    g.shape.type = CR_SHAPE_PLANE;
    cr_body_create(sw->w, &g, &sw->ground);
    cr_body_def b = cr_default_body_def();
    b.position = cr_v3(0, CR_R(0.5), 0);
    return cr_body_create(sw->w, &b, &sw->ball) == CR_OK;
}

static void steps(cr_world *w, int n) {
    for (int i = 0; i < n; ++i) cr_world_step(w, CR_R(1.0 / 60.0));
}

static double height(const setter_world *sw) { return cr_to_double(cr_body_get_transform(sw->w, sw->ball).p.y); }

CR_TEST(setters_type_static_stops_and_dynamic_falls) {
    setter_world sw;
    ENSURE(make_world(&sw));
    cr_body_set_transform(sw.w, sw.ball, (cr_transform){cr_v3(0, CR_R(5), 0), cr_quat_identity()});
    ENSURE(cr_body_set_type(sw.w, sw.ball, CR_BODY_STATIC) == CR_OK);
    ENSURE(cr_body_get_mass(sw.w, sw.ball) == 0);
    steps(sw.w, 30);
    ENSURE_NEAR(height(&sw), 5.0, 1e-9); /* static: hangs in the air */
    ENSURE(cr_body_set_type(sw.w, sw.ball, CR_BODY_DYNAMIC) == CR_OK);
    ENSURE_NEAR(cr_to_double(cr_body_get_mass(sw.w, sw.ball)), 1000.0 * 4.0 / 3.0 * 3.14159265 * 0.125, 1.0);
    steps(sw.w, 30);
    ENSURE(height(&sw) < 4.0); /* dynamic again: falls */
    ENSURE(cr_body_set_type(sw.w, sw.ball, CR_BODY_KINEMATIC) == CR_OK);
    cr_body_set_velocity(sw.w, sw.ball, cr_v3(CR_R(1), 0, 0), cr_v3_zero());
    double y = height(&sw);
    steps(sw.w, 60);
    ENSURE_NEAR(height(&sw), y, 1e-9); /* kinematic: no gravity, moves by its velocity */
    ENSURE_NEAR(cr_to_double(cr_body_get_transform(sw.w, sw.ball).p.x), 1.0, 0.02);
    /* hostile: a type out of range, a plane made dynamic */
    ENSURE(cr_body_set_type(sw.w, sw.ball, (cr_body_type)7) == CR_ERR_DEF_INVALID);
    ENSURE(cr_world_refused_field(sw.w) == CR_FIELD_BODY_TYPE);
    ENSURE(cr_body_set_type(sw.w, sw.ground, CR_BODY_DYNAMIC) == CR_ERR_DEF_INVALID);
    ENSURE(cr_world_refused_field(sw.w) == CR_FIELD_BODY_SHAPE_TYPE);
    ENSURE(cr_body_get_type(sw.w, sw.ground) == CR_BODY_STATIC);
    free(sw.block);
}

CR_TEST(setters_type_change_wakes_what_rested_on_it) {
    setter_world sw;
    ENSURE(make_world(&sw));
    cr_body_def box = cr_default_body_def();
    box.type = CR_BODY_STATIC;
    box.shape.type = CR_SHAPE_BOX;
    box.position = cr_v3(CR_R(3), CR_R(1), 0);
    cr_body_id shelf, cup;
    ENSURE(cr_body_create(sw.w, &box, &shelf) == CR_OK);
    cr_body_def c = cr_default_body_def();
    c.shape.radius = CR_R(0.2);
    c.position = cr_v3(CR_R(3), CR_R(1.7), 0);
    ENSURE(cr_body_create(sw.w, &c, &cup) == CR_OK);
    steps(sw.w, 240);
    ENSURE(cr_body_is_sleeping(sw.w, cup));
    ENSURE(cr_body_set_type(sw.w, shelf, CR_BODY_DYNAMIC) == CR_OK); /* the shelf gives way */
    ENSURE(!cr_body_is_sleeping(sw.w, cup));
    steps(sw.w, 60);
    ENSURE(cr_to_double(cr_body_get_transform(sw.w, cup).p.y) < 1.2);
    free(sw.block);
}

CR_TEST(setters_mass_and_material_refuse_bad_input_and_change_the_hash) {
    setter_world sw;
    ENSURE(make_world(&sw));
    double m0 = cr_to_double(cr_body_get_mass(sw.w, sw.ball));
    double i0 = cr_to_double(cr_body_get_inertia(sw.w, sw.ball).x);
    ENSURE(cr_body_set_mass(sw.w, sw.ball, cr_mul(CR_R(2), cr_body_get_mass(sw.w, sw.ball))) == CR_OK);
    ENSURE_NEAR(cr_to_double(cr_body_get_mass(sw.w, sw.ball)), 2 * m0, 1e-3 * m0);
    ENSURE_NEAR(cr_to_double(cr_body_get_inertia(sw.w, sw.ball).x), 2 * i0, 1e-3 * i0);
    uint64_t h = cr_world_state_hash(sw.w);
    ENSURE(cr_body_set_mass(sw.w, sw.ball, CR_R(-1)) == CR_ERR_ARGUMENT_RANGE);
    ENSURE(cr_world_refused_field(sw.w) == CR_FIELD_MASS);
    ENSURE(cr_body_set_mass(sw.w, sw.ground, CR_R(1)) == CR_ERR_ARGUMENT_RANGE); /* static: no mass */
    cr_material m = cr_body_get_material(sw.w, sw.ball);
    m.friction = CR_R(-0.5);
    ENSURE(cr_body_set_material(sw.w, sw.ball, m) == CR_ERR_DEF_INVALID);
    ENSURE(cr_world_refused_field(sw.w) == CR_FIELD_BODY_FRICTION);
    m.friction = CR_R(0.5);
    m.density = 0;
    ENSURE(cr_body_set_material(sw.w, sw.ball, m) == CR_ERR_DEF_INVALID);
    ENSURE(cr_world_refused_field(sw.w) == CR_FIELD_BODY_DENSITY);
    ENSURE(cr_world_state_hash(sw.w) == h); /* refused: nothing changed */
    m.density = CR_R(500);
    m.restitution = CR_R(0.9);
    ENSURE(cr_body_set_material(sw.w, sw.ball, m) == CR_OK);
    ENSURE_NEAR(cr_to_double(cr_body_get_mass(sw.w, sw.ball)), m0 / 2, 1e-3 * m0); /* from the shape at 500 kg/m^3 */
    ENSURE_NEAR(cr_to_double(cr_body_get_material(sw.w, sw.ball).restitution), 0.9, 1e-6);
    ENSURE(cr_world_state_hash(sw.w) != h);
    free(sw.block);
}

CR_TEST(setters_gravity_scale_and_damping) {
    setter_world sw;
    ENSURE(make_world(&sw));
    cr_body_set_transform(sw.w, sw.ball, (cr_transform){cr_v3(0, CR_R(100), 0), cr_quat_identity()});
    uint64_t h = cr_world_state_hash(sw.w);
    ENSURE(cr_body_set_gravity_scale(sw.w, sw.ball, CR_R(0.5)) == CR_OK);
    ENSURE(cr_world_state_hash(sw.w) != h);
    steps(sw.w, 60);
    /* half gravity for 1 s: v = -4.905 m/s (forward Euler, exactly 60 steps of g/2 dt) */
    ENSURE_NEAR(cr_to_double(cr_body_get_linear_velocity(sw.w, sw.ball).y), -4.905, 1e-3);
    ENSURE(cr_body_set_gravity_scale(sw.w, sw.ball, 0) == CR_OK);
    ENSURE(cr_body_set_damping(sw.w, sw.ball, CR_R(2), CR_R(3)) == CR_OK);
    ENSURE_NEAR(cr_to_double(cr_body_get_angular_damping(sw.w, sw.ball)), 3.0, 1e-6);
    steps(sw.w, 60);
    /* 60 steps of 1 / (1 + 2/60): 4.905 x 0.1398 */
    ENSURE_NEAR(cr_to_double(cr_body_get_linear_velocity(sw.w, sw.ball).y), -4.905 * 0.139826, 1e-3);
    /* hostile: not finite, negative, too large; nothing changes */
    h = cr_world_state_hash(sw.w);
    ENSURE(cr_body_set_gravity_scale(sw.w, sw.ball, CR_R(5000)) == CR_ERR_DEF_INVALID);
    ENSURE(cr_world_refused_field(sw.w) == CR_FIELD_BODY_GRAVITY_SCALE);
    ENSURE(cr_body_set_damping(sw.w, sw.ball, CR_R(-1), 0) == CR_ERR_DEF_INVALID);
    ENSURE(cr_world_refused_field(sw.w) == CR_FIELD_BODY_LINEAR_DAMPING);
    ENSURE(cr_body_set_damping(sw.w, sw.ball, 0, CR_R(1e9)) == CR_ERR_DEF_INVALID);
    ENSURE(cr_world_refused_field(sw.w) == CR_FIELD_BODY_ANGULAR_DAMPING);
#if !CR_FIXED
    ENSURE(cr_body_set_gravity_scale(sw.w, sw.ball, CR_R(1.0) / 0.0f) == CR_ERR_NOT_FINITE);
#endif
    ENSURE(cr_world_state_hash(sw.w) == h);
    cr_body_def bad = cr_default_body_def();
    bad.linear_damping = CR_R(-2);
    cr_body_id id;
    ENSURE(cr_body_create(sw.w, &bad, &id) == CR_ERR_DEF_INVALID && cr_body_id_is_null(id));
    ENSURE(cr_world_refused_field(sw.w) == CR_FIELD_BODY_LINEAR_DAMPING);
    free(sw.block);
}

CR_TEST(setters_disabled_body_neither_collides_nor_moves) {
    setter_world sw;
    ENSURE(make_world(&sw));
    cr_body_def c = cr_default_body_def();
    c.position = cr_v3(0, CR_R(3), 0);
    cr_body_id top;
    ENSURE(cr_body_create(sw.w, &c, &top) == CR_OK);
    steps(sw.w, 120); /* top rests on the ball */
    ENSURE(cr_to_double(cr_body_get_transform(sw.w, top).p.y) > 1.3);
    cr_body_set_velocity(sw.w, sw.ball, cr_v3(CR_R(1), 0, 0), cr_v3_zero());
    ENSURE(cr_body_set_enabled(sw.w, sw.ball, false) == CR_OK);
    ENSURE(!cr_body_is_enabled(sw.w, sw.ball));
    cr_transform held = cr_body_get_transform(sw.w, sw.ball);
    steps(sw.w, 60);
    cr_transform now = cr_body_get_transform(sw.w, sw.ball);
    ENSURE(memcmp(&held.p, &now.p, sizeof held.p) == 0); /* not moved, though it has a velocity */
    ENSURE(cr_to_double(cr_body_get_transform(sw.w, top).p.y) < 0.6); /* top fell through it to the ground */
    ENSURE(cr_body_set_enabled(sw.w, sw.ball, true) == CR_OK);
    steps(sw.w, 30);
    ENSURE(cr_to_double(cr_body_get_transform(sw.w, sw.ball).p.x) > 0.1); /* back: it moves with its velocity */
    free(sw.block);
}

CR_TEST(setters_user_data_and_stale_handles) {
    setter_world sw;
    ENSURE(make_world(&sw));
    ENSURE(cr_body_set_user_data(sw.w, sw.ball, 0xfeedu) == CR_OK);
    ENSURE(cr_body_get_user_data(sw.w, sw.ball) == 0xfeedu);
    cr_body_id gone = sw.ball;
    cr_body_destroy(sw.w, sw.ball);
    ENSURE(cr_body_set_user_data(sw.w, gone, 1) == CR_ERR_STALE_HANDLE);
    ENSURE(cr_body_set_type(sw.w, gone, CR_BODY_STATIC) == CR_ERR_STALE_HANDLE);
    ENSURE(cr_body_set_mass(sw.w, gone, CR_R(1)) == CR_ERR_STALE_HANDLE);
    ENSURE(cr_body_set_material(sw.w, gone, cr_default_material()) == CR_ERR_STALE_HANDLE);
    ENSURE(cr_body_set_gravity_scale(sw.w, gone, 0) == CR_ERR_STALE_HANDLE);
    ENSURE(cr_body_set_damping(sw.w, gone, 0, 0) == CR_ERR_STALE_HANDLE);
    ENSURE(cr_body_set_enabled(sw.w, gone, false) == CR_ERR_STALE_HANDLE);
    ENSURE(cr_body_set_type(NULL, gone, CR_BODY_STATIC) == CR_ERR_STALE_HANDLE);
    free(sw.block);
}
