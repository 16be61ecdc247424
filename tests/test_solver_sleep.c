/* test_solver_sleep.c — sleeping by velocity and time: a body sleeps once it
 * has been slower than the thresholds for sleep_time, so a slow but steady
 * body (a block coasting on ice) keeps moving; sleeping can be turned off per
 * world and per body, in the API and in scene files. */
#include "test_scene_util.h"
#include "test_solver_util.h"

/* A box on a frictionless plane given 3 cm/s: after 10 s it has coasted
 * 0.3 m, awake. */
CR_TEST(solver_slow_coasting_body_keeps_coasting) {
    cr_world_def def = cr_default_world_def();
    ENSURE(def.sleep);
    cr_world *w = ts_world(&def);
    ENSURE(w != NULL);
    cr_material ice = ts_material(0, 0);
    ice.rolling_friction = 0;
    ice.spinning_friction = 0;
    ts_ground(w, ice);
    cr_body_id box = ts_box(w, ts_v(0, 0.25, 0), cr_quat_identity(), ts_v(0.4, 0.25, 0.3), ice);
    for (int i = 0; i < 30; ++i) ENSURE(cr_world_step(w, TS_DT) == CR_OK); /* settle on the ice */
    ENSURE(cr_body_set_velocity(w, box, ts_v(0.03, 0, 0), cr_v3_zero()) == CR_OK);
    cr_vec3 p0 = ts_pos(w, box);
    bool slept = false;
    for (int i = 0; i < 600; ++i) {
        ENSURE(cr_world_step(w, TS_DT) == CR_OK);
        slept = slept || cr_body_is_sleeping(w, box);
    }
    double moved = ts_d(ts_pos(w, box).x) - ts_d(p0.x);
    cr_test_printf("    box coasting at 3 cm/s on ice, 10 s: moved %.4f m (0.3 m), slept: %s\n", moved, slept ? "yes" : "no");
    ENSURE(!slept);
    ENSURE(moved > 0.29 && moved < 0.31);
    ts_free(w);
}

/* Resting boxes: one may sleep, one made with no_sleep never does, and in a
 * world with sleep off neither does. */
CR_TEST(solver_sleep_can_be_turned_off_per_world_and_per_body) {
    for (int world_sleep = 0; world_sleep < 2; ++world_sleep) {
        cr_world_def def = cr_default_world_def();
        def.sleep = world_sleep != 0;
        cr_world *w = ts_world(&def);
        ENSURE(w != NULL);
        cr_material m = ts_material(0, 0.5);
        ts_ground(w, m);
        cr_body_id may = ts_box(w, ts_v(-2, 0.5, 0), cr_quat_identity(), ts_v(0.5, 0.5, 0.5), m);
        cr_body_def bd = cr_default_body_def();
        ENSURE(!bd.no_sleep);
        bd.shape.type = CR_SHAPE_BOX;
        bd.shape.half_extents = ts_v(0.5, 0.5, 0.5);
        bd.position = ts_v(2, 0.5, 0);
        bd.material = m;
        bd.no_sleep = true;
        cr_body_id never;
        ENSURE(cr_body_create(w, &bd, &never) == CR_OK);
        int may_asleep_at = -1;
        bool never_slept = false;
        for (int i = 0; i < 180; ++i) {
            ENSURE(cr_world_step(w, TS_DT) == CR_OK);
            if (may_asleep_at < 0 && cr_body_is_sleeping(w, may)) may_asleep_at = i;
            never_slept = never_slept || cr_body_is_sleeping(w, never);
        }
        cr_test_printf("    world sleep %s: resting box asleep at step %d, no_sleep box slept: %s\n", world_sleep ? "on " : "off",
                       may_asleep_at, never_slept ? "yes" : "no");
        ENSURE(!never_slept);
        if (world_sleep) ENSURE(may_asleep_at >= 0 && may_asleep_at < 60);
        else ENSURE(may_asleep_at < 0);
        ts_free(w);
    }
}

/* The same from a scene file: `sleep off` for the world and for one body. */
CR_TEST(solver_scene_files_turn_sleep_off) {
    const char *text = "crumple-scene 1\n"
                       "material m density 1000 restitution 0 friction 0.5\n"
                       "body ground static plane material m\n"
                       "body a dynamic box 0.5 0.5 0.5 material m position -2 0.5 0\n"
                       "body b dynamic box 0.5 0.5 0.5 material m position 2 0.5 0 sleep off\n";
    cr_scene *s = NULL;
    cr_scene_error e;
    ENSURE(cr_scene_parse(text, strlen(text), "sleep.scene", &s, &e) == 0);
    ENSURE(s->def.sleep);
    ENSURE(!s->bodies[1].def.no_sleep && s->bodies[2].def.no_sleep);
    cr_scene_free(s);
    const char *off = "crumple-scene 1\nsleep off\nbody ground static plane\n";
    ENSURE(cr_scene_parse(off, strlen(off), "off.scene", &s, &e) == 0);
    ENSURE(!s->def.sleep);
    cr_scene_free(s);
    const char *bad = "crumple-scene 1\nsleep maybe\n";
    ENSURE(cr_scene_parse(bad, strlen(bad), "bad.scene", &s, &e) != 0);
}

/* The pile's first impacts (up to 574 in one step, about 2 s in) fit the
 * default event buffer: nothing is counted as overflow in its first 3 s. */
CR_TEST(solver_pile_first_impacts_fit_the_default_event_buffer) {
    scene_run r;
    ENSURE(open_scene("pile", &r) == 0);
    ENSURE(r.s->def.event_capacity == cr_default_world_def().event_capacity);
    uint32_t most = 0, overflow = 0;
    for (int32_t f = 0; f < 180; ++f) {
        ENSURE(step(&r, f) == 0);
        cr_world_stats st = cr_world_get_stats(r.w);
        uint32_t n = st.stage[CR_STAGE_events].work + st.stage[CR_STAGE_events].overflow;
        if (n > most) most = n;
        overflow += st.stage[CR_STAGE_events].overflow;
        ENSURE(cr_world_get_events(r.w, NULL, 0) == st.stage[CR_STAGE_events].work);
    }
    cr_test_printf("    pile, 3 s: at most %u impacts in one step, default capacity %u, overflow %u\n", most,
                   r.s->def.event_capacity, overflow);
    ENSURE(most > 256); /* what the old default of 256 dropped */
    ENSURE(overflow == 0);
    close_scene(&r);
}
