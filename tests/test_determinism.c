/* test_determinism.c — the golden state hash of a small reference world.
 *
 * `make test` runs the tests whose names contain "determinism" again at -O0
 * and with clang: the same source must give the same bits under every
 * compiler and optimisation level, per scalar mode. The reference world
 * touches every stage of the solver: boxes and spheres dropped on a plane
 * (collisions, contacts, the contact graph, shock propagation, friction),
 * rolling friction, a kinematic paddle, a point-jointed pendulum and a
 * hinge, a force, and impact events.
 *
 * When the solver changes on purpose, print the new hashes with
 * `crumple_tests determinism` (the failure message shows them) and update
 * the goldens below in the same commit, saying so in its message.
 */
#include "test_solver_util.h"

#if CR_FIXED
#define GOLDEN_HASH 0x68eff1796fbaf572ull
#else
#define GOLDEN_HASH 0x557646490300ad1full
#endif

static uint64_t reference_world(int steps, uint32_t *events_seen) {
    cr_world_def def = cr_default_world_def();
    def.body_capacity = 32;
    cr_world *w = ts_world(&def);
    if (w == NULL) return 0;
    cr_material ground_m = ts_material(0.3, 0.6);
    ground_m.rolling_friction = CR_R(0.01);
    ts_ground(w, ground_m);
    cr_material m = ts_material(0.4, 0.5);
    for (int i = 0; i < 4; ++i) {
        cr_quat q = cr_quat_from_axis_angle(cr_v3_normalize(ts_v(1, 2, 3)), cr_from_float(0.3f * (float)i));
        ts_box(w, ts_v(0.3 * i, 1.0 + 1.2 * i, 0.1 * i), q, ts_v(0.5, 0.4, 0.3), m);
    }
    for (int i = 0; i < 3; ++i) {
        cr_body_id s = ts_sphere(w, ts_v(-2.0 + 0.2 * i, 1.0 + 1.5 * i, 1.0), 0.35, m);
        cr_body_set_velocity(w, s, ts_v(1.0, 0, -0.5), ts_v(0, 2.0, 0));
    }
    /* a kinematic paddle sweeping through */
    cr_body_def kd = cr_default_body_def();
    kd.type = CR_BODY_KINEMATIC;
    kd.shape.type = CR_SHAPE_BOX;
    kd.shape.half_extents = ts_v(0.1, 0.5, 1.0);
    kd.position = ts_v(-4, 0.6, 0);
    kd.linear_velocity = ts_v(1.5, 0, 0);
    cr_body_id paddle;
    cr_body_create(w, &kd, &paddle);
    /* a pendulum of two spheres hanging from the world, and a hinged flap */
    cr_body_id p1 = ts_sphere(w, ts_v(4, 4, 0), 0.2, m), p2 = ts_sphere(w, ts_v(5, 4, 0), 0.2, m);
    cr_body_id none = {0, 0};
    cr_joint_def jd = cr_default_joint_def();
    cr_joint_id j;
    jd.body_a = p1;
    jd.anchor = ts_v(3, 4, 0);
    cr_joint_create(w, &jd, &j);
    jd.body_a = p2;
    jd.body_b = p1;
    jd.anchor = ts_v(4, 4, 0);
    cr_joint_create(w, &jd, &j);
    cr_body_id flap = ts_box(w, ts_v(-3, 2.5, -3), cr_quat_identity(), ts_v(0.5, 0.05, 0.5), m);
    jd = cr_default_joint_def();
    jd.type = CR_JOINT_HINGE;
    jd.body_a = flap;
    jd.body_b = none;
    jd.anchor = ts_v(-3.5, 2.5, -3);
    jd.axis = ts_v(0, 0, 1);
    cr_joint_create(w, &jd, &j);
    uint32_t seen = 0;
    for (int s = 0; s < steps; ++s) {
        if (s < 30) cr_body_apply_force(w, p2, ts_v(0, 0, 200), ts_pos(w, p2));
        cr_world_step(w, TS_DT);
        seen += cr_world_get_events(w, NULL, 0);
    }
    *events_seen = seen;
    uint64_t h = cr_world_state_hash(w);
    ts_free(w);
    return h;
}

CR_TEST(solver_determinism_golden_hash) {
    uint32_t events = 0, events2 = 0;
    uint64_t h = reference_world(300, &events);
    uint64_t again = reference_world(300, &events2);
    cr_test_printf("    reference world, 300 steps, %s: state hash %016llx, %u impact events\n", CR_MODE_NAME,
                   (unsigned long long)h, events);
    ENSURE(h == again && events == events2);
    ENSURE(events > 0);
    ENSURE_MSG(h == GOLDEN_HASH, "state hash %016llx, golden %016llx (%s)", (unsigned long long)h,
               (unsigned long long)GOLDEN_HASH, CR_MODE_NAME);
}
