/* test_filter_scene.c — data/scenes/filter_sensor.scene shows what it
 * claims, run as `crumple run` runs it: the red and blue balls never begin a
 * contact with each other but do with their own colour and the ground, the
 * trigger reports balls passing through it and pushes none, the
 * pendulum's bob stays a metre from its anchor, and the scene's rays at the
 * end see the trigger only when they ask for sensors. */
#include "test_scene_util.h"
#include "stb_ds.h"

CR_TEST(scene_filter_sensor_claims) {
    scene_run r;
    ENSURE(open_scene("filter_sensor", &r) == 0);
    cr_body_id trigger = body(&r, "trigger"), bob = body(&r, "bob");
    ENSURE(cr_body_is_sensor(r.w, trigger));
    uint32_t cross = 0, same = 0, entered = 0, left = 0;
    double worst_length = 0;
    for (int32_t f = 0; f < 180; ++f) {
        ENSURE(step(&r, f) == 0);
        cr_contact_event ev[256];
        uint32_t n = cr_world_get_contact_events(r.w, ev, 256);
        ENSURE(n <= 256 && cr_world_get_stats(r.w).contact_overflow == 0);
        for (uint32_t i = 0; i < n; ++i) {
            if (ev[i].kind != CR_CONTACT_BEGIN) continue;
            uint64_t ca = cr_body_get_filter(r.w, ev[i].body_a).category_bits;
            uint64_t cb = cr_body_get_filter(r.w, ev[i].body_b).category_bits;
            if (ca == 1 || cb == 1) continue; /* the ground */
            if (ca != cb) ++cross;
            else ++same;
        }
        cr_sensor_event se[64];
        uint32_t m = cr_world_get_sensor_events(r.w, se, 64);
        for (uint32_t i = 0; i < m && i < 64; ++i) {
            ENSURE(se[i].sensor.index1 == trigger.index1);
            if (se[i].begin) ++entered;
            else ++left;
        }
        cr_vec3 d = cr_v3_sub(cr_body_get_transform(r.w, bob).p, cr_v3(CR_R(2.2), CR_R(2.5), CR_R(0.6)));
        double len = sqrt(cr_to_double(cr_v3_dot(d, d)));
        if (fabs(len - sqrt(1.0 + 0.36)) > worst_length) worst_length = fabs(len - sqrt(1.0 + 0.36));
    }
    cr_test_printf("  filter_sensor.scene: %u same-colour contacts begun, %u across; trigger: %u entered, %u left; "
                   "pendulum length off by %.2g m\n", same, cross, entered, left, worst_length);
    ENSURE(cross == 0 && same > 0);
    ENSURE(entered > 0);
    ENSURE(worst_length < 0.01);
    ENSURE_NEAR(cr_to_double(cr_body_get_transform(r.w, trigger).p.y), 0.6, 1e-6); /* static: where the scene put it */
    /* `ray 180 down ... all` and the same with `sensors`: one more hit, the trigger's top */
    const cr_scene_query *down = &r.s->queries[0], *with = &r.s->queries[1];
    ENSURE(arrlen(r.s->queries) == 3 && down->asked && with->asked && with->filter.sensors);
    ENSURE(arrlen(with->hits) == arrlen(down->hits) + 1 && arrlen(down->hits) >= 1);
    uint32_t trigger_hits = 0;
    for (ptrdiff_t k = 0; k < arrlen(down->hits); ++k) ENSURE(down->hits[k].body.index1 != trigger.index1);
    for (ptrdiff_t k = 0; k < arrlen(with->hits); ++k)
        if (with->hits[k].body.index1 == trigger.index1) {
            ++trigger_hits;
            ENSURE_NEAR(cr_to_double(with->hits[k].point.y), 0.9, 1e-4);
        }
    ENSURE(trigger_hits == 1 && arrlen(r.s->queries[2].hits) > 1);
    cr_test_printf("  its rays: %d hits, %d with sensors; the sphere meets %d bodies\n", (int)arrlen(down->hits),
                   (int)arrlen(with->hits), (int)arrlen(r.s->queries[2].hits));
    close_scene(&r);
}
