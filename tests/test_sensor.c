/* test_sensor.c — sensor bodies as a game uses a trigger volume: a ball
 * falls through a sensor box with one begin and one end event and no
 * response, filters and disabling decide who is seen, a full event buffer
 * is counted, and a snapshot restore replays the same events. */
#include "test.h"
#include "crumple/crumple.h"

#include <stdlib.h>
#include <string.h>

typedef struct trigger_world {
    void *block;
    size_t size;
    cr_world *w;
    cr_body_id sensor, ball;
} trigger_world;

/* A static sensor box (1 m cube at y = 2) over a ground plane, a ball above it. */
static bool make_trigger(trigger_world *t, uint32_t event_capacity) {
    cr_world_def def = cr_default_world_def();
    def.body_capacity = 8;
    def.sensor_event_capacity = event_capacity;
    t->size = cr_world_memory_size(&def);
    t->block = aligned_alloc(CR_BLOCK_ALIGN, (t->size + 15) / 16 * 16);
    if (cr_world_create(&def, t->block, t->size, &t->w) != CR_OK) return false;
    cr_body_def g = cr_default_body_def();
    g.type = CR_BODY_STATIC;
    g.shape.type = CR_SHAPE_PLANE;
    cr_body_id ground;
    cr_body_create(t->w, &g, &ground);
    cr_body_def s = cr_default_body_def();
    s.type = CR_BODY_STATIC;
    s.is_sensor = true;
    s.shape.type = CR_SHAPE_BOX;
    s.position = cr_v3(0, CR_R(2), 0);
    if (cr_body_create(t->w, &s, &t->sensor) != CR_OK) return false;
    cr_body_def b = cr_default_body_def();
    b.shape.radius = CR_R(0.25);
    b.position = cr_v3(0, CR_R(4), 0);
    return cr_body_create(t->w, &b, &t->ball) == CR_OK;
}

typedef struct event_tally {
    uint32_t begins, ends, begin_frame, end_frame;
} event_tally;

static void tally(const trigger_world *t, event_tally *e, uint32_t frame, cr_body_id visitor) {
    cr_sensor_event ev[8];
    uint32_t n = cr_world_get_sensor_events(t->w, ev, 8);
    for (uint32_t i = 0; i < n && i < 8; ++i) {
        if (ev[i].visitor.index1 != visitor.index1) continue;
        if (ev[i].begin) {
            e->begins++;
            e->begin_frame = frame;
        } else {
            e->ends++;
            e->end_frame = frame;
        }
    }
}

static void count_line(void *ctx, cr_vec3 a, cr_vec3 b, uint32_t color) {
    (void)a, (void)b;
    if (color == CR_DRAW_COLOR_SENSOR) ++*(uint32_t *)ctx;
}

CR_TEST(sensor_ball_falls_through_with_one_begin_and_one_end) {
    trigger_world t;
    ENSURE(make_trigger(&t, 16));
    ENSURE(cr_body_is_sensor(t.w, t.sensor) && !cr_body_is_sensor(t.w, t.ball));
    event_tally e = {0, 0, 0, 0};
    bool inside_seen = false;
    for (uint32_t f = 1; f <= 120; ++f) {
        cr_world_step(t.w, CR_R(1.0 / 60.0));
        tally(&t, &e, f, t.ball);
        cr_body_id in[4];
        uint32_t n = cr_sensor_get_overlaps(t.w, t.sensor, in, 4);
        double y = cr_to_double(cr_body_get_transform(t.w, t.ball).p.y);
        if (y < 2.5 && y > 1.5) { /* the ball's centre is in the box: it must be listed, and drawn */
            ENSURE(n == 1 && in[0].index1 == t.ball.index1);
            inside_seen = true;
            uint32_t lines = 0;
            cr_debug_draw d = cr_default_debug_draw();
            d.line = count_line;
            d.context = &lines;
            ENSURE(cr_world_draw(t.w, &d, CR_DRAW_SENSORS) == CR_OK && lines == 1);
        }
        if (y > 2.8 || y < 1.2) ENSURE(n == 0);
    }
    ENSURE(inside_seen);
    ENSURE_MSG(e.begins == 1 && e.ends == 1, "begins %u ends %u", e.begins, e.ends);
    ENSURE(e.begin_frame < e.end_frame);
    /* no response: it fell through to the ground (y = 0.25) at the speed of a free fall */
    ENSURE_NEAR(cr_to_double(cr_body_get_transform(t.w, t.ball).p.y), 0.25, 0.02);
    ENSURE_NEAR(cr_to_double(cr_body_get_transform(t.w, t.sensor).p.y), 2.0, 1e-9);
    free(t.block);
}

CR_TEST(sensor_sees_only_what_its_filter_and_enabled_let_it) {
    trigger_world t;
    ENSURE(make_trigger(&t, 16));
    cr_filter f = cr_default_filter();
    f.mask_bits = ~(uint64_t)1; /* the ball ignores category 1: the sensor */
    ENSURE(cr_body_set_filter(t.w, t.ball, f) == CR_OK);
    cr_body_def b = cr_default_body_def();
    b.shape.radius = CR_R(0.25);
    b.position = cr_v3(0, CR_R(2), 0); /* inside the sensor from the start */
    b.gravity_scale = 0;
    cr_body_id floater;
    ENSURE(cr_body_create(t.w, &b, &floater) == CR_OK);
    event_tally ball = {0, 0, 0, 0}, fl = {0, 0, 0, 0};
    for (uint32_t f2 = 1; f2 <= 90; ++f2) {
        if (f2 == 30) ENSURE(cr_body_set_enabled(t.w, floater, false) == CR_OK);
        if (f2 == 60) ENSURE(cr_body_set_enabled(t.w, floater, true) == CR_OK);
        cr_world_step(t.w, CR_R(1.0 / 60.0));
        tally(&t, &ball, f2, t.ball);
        tally(&t, &fl, f2, floater);
    }
    ENSURE(ball.begins == 0 && ball.ends == 0); /* filtered out */
    /* the floater: begins at once, ends when disabled, begins again when enabled */
    ENSURE_MSG(fl.begins == 2 && fl.ends == 1, "begins %u ends %u", fl.begins, fl.ends);
    ENSURE(fl.end_frame == 30 && fl.begin_frame == 60);
    free(t.block);
}

CR_TEST(sensor_full_event_buffer_is_counted_and_snapshots_replay_events) {
    trigger_world t;
    ENSURE(make_trigger(&t, 1)); /* room for one event per step */
    cr_body_def b = cr_default_body_def();
    b.shape.radius = CR_R(0.25);
    b.position = cr_v3(CR_R(0.2), CR_R(4), 0); /* falls beside the first ball: they enter together */
    cr_body_id second;
    ENSURE(cr_body_create(t.w, &b, &second) == CR_OK);
    void *snap = malloc(cr_world_snapshot_size(t.w));
    ENSURE(cr_world_snapshot_save(t.w, snap, cr_world_snapshot_size(t.w)) == CR_OK);
    uint32_t overflow = 0, events = 0;
    uint64_t hashes[100];
    for (int f = 0; f < 100; ++f) {
        cr_world_step(t.w, CR_R(1.0 / 60.0));
        overflow += cr_world_get_stats(t.w).sensor_overflow;
        events += cr_world_get_sensor_events(t.w, NULL, 0);
        hashes[f] = cr_world_state_hash(t.w);
    }
    ENSURE(events >= 2 && overflow >= 1); /* two entered in one step: one event kept, one counted */
    ENSURE(cr_world_snapshot_restore(t.w, snap, cr_world_snapshot_size(t.w)) == CR_OK);
    for (int f = 0; f < 100; ++f) {
        cr_world_step(t.w, CR_R(1.0 / 60.0));
        ENSURE(cr_world_state_hash(t.w) == hashes[f]);
    }
    free(snap);
    free(t.block);
}

CR_TEST(sensor_hostile_defs_and_handles) {
    cr_world_def def = cr_default_world_def();
    def.sensor_capacity = (1u << 24) + 1;
    cr_field f;
    ENSURE(cr_world_def_check(&def, &f) == CR_ERR_DEF_INVALID && f == CR_FIELD_WORLD_SENSOR_CAPACITY);
    def = cr_default_world_def();
    def.hit_event_speed = CR_R(-1);
    ENSURE(cr_world_def_check(&def, &f) == CR_ERR_DEF_INVALID && f == CR_FIELD_WORLD_HIT_EVENT_SPEED);
    trigger_world t;
    ENSURE(make_trigger(&t, 0)); /* no room for events: overlaps still kept, events counted */
    for (int i = 0; i < 60; ++i) cr_world_step(t.w, CR_R(1.0 / 60.0));
    ENSURE(cr_world_get_sensor_events(t.w, NULL, 0) == 0);
    cr_body_id stale = {99, 0};
    ENSURE(cr_sensor_get_overlaps(t.w, stale, NULL, 0) == 0);
    ENSURE(cr_sensor_get_overlaps(t.w, t.ball, NULL, 0) == 0); /* not a sensor */
    ENSURE(cr_world_get_sensor_events(NULL, NULL, 0) == 0);
    free(t.block);
}
