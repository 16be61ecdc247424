/* test_contact_events.c — contact begin/end/hit events and the contact
 * query, as a game uses them for footsteps, sounds and "am I grounded":
 * a ball lands (begin + hit), rests (its contact with the ground's normal
 * and the impulse that holds it), sleeps (still touching, no end), is
 * lifted (end); a full pair set is counted, never a second begin. */
#include "test.h"
#include "crumple/crumple.h"

#include <stdlib.h>
#include <string.h>

typedef struct landing {
    void *block;
    cr_world *w;
    cr_body_id ground, ball;
} landing;

static bool make_landing(landing *l, uint32_t touch_capacity, uint32_t event_capacity) {
    cr_world_def def = cr_default_world_def();
    def.body_capacity = 8;
    def.touch_capacity = touch_capacity;
    def.contact_event_capacity = event_capacity;
    size_t size = cr_world_memory_size(&def);
    l->block = aligned_alloc(CR_BLOCK_ALIGN, (size + 15) / 16 * 16);
    if (cr_world_create(&def, l->block, size, &l->w) != CR_OK) return false;
    cr_body_def g = cr_default_body_def();
    g.type = CR_BODY_STATIC;
    g.shape.type = CR_SHAPE_PLANE;
    cr_body_create(l->w, &g, &l->ground);
    cr_body_def b = cr_default_body_def();
    b.shape.radius = CR_R(0.25);
    b.position = cr_v3(0, CR_R(1.5), 0);
    b.material.restitution = 0; /* lands and stays: one begin (a bounce would end and begin again) */
    return cr_body_create(l->w, &b, &l->ball) == CR_OK;
}

typedef struct contact_tally {
    uint32_t begin, end, hit;
    double hit_speed;
    cr_vec3 begin_normal;
} contact_tally;

static void count_events(const landing *l, contact_tally *t) {
    cr_contact_event ev[16];
    uint32_t n = cr_world_get_contact_events(l->w, ev, 16);
    for (uint32_t i = 0; i < n && i < 16; ++i) {
        if (ev[i].kind == CR_CONTACT_BEGIN) {
            t->begin++;
            t->begin_normal = ev[i].normal;
        }
        if (ev[i].kind == CR_CONTACT_END) t->end++;
        if (ev[i].kind == CR_CONTACT_HIT) {
            if (t->hit++ == 0) t->hit_speed = cr_to_double(ev[i].speed);
        }
    }
}

CR_TEST(contact_events_land_rest_sleep_and_lift) {
    landing l;
    ENSURE(make_landing(&l, 16, 16));
    contact_tally t;
    memset(&t, 0, sizeof t);
    for (int f = 0; f < 240; ++f) {
        cr_world_step(l.w, CR_R(1.0 / 60.0));
        count_events(&l, &t);
    }
    /* landed once, fast (free fall from 1.25 m: about 4.7 m/s at the step that
     * met the ground), and never left; the solver's impact-time scheme needs
     * a second collision the step after (its impact event is a hit too) */
    ENSURE_MSG(t.begin == 1 && t.end == 0, "begin %u end %u", t.begin, t.end);
    ENSURE_MSG(t.hit >= 1 && t.hit <= 2 && t.hit_speed > 4.0 && t.hit_speed < 5.5, "hits %u speed %g", t.hit, t.hit_speed);
    ENSURE(cr_to_double(t.begin_normal.y) < -0.99); /* body_a is the ground (lower slot): normal from the ball towards it */
    ENSURE(cr_body_is_sleeping(l.w, l.ball));
    /* asleep, it still touches the ground: the contact it fell asleep with */
    cr_contact_data c[4];
    ENSURE(cr_body_get_contacts(l.w, l.ball, c, 4) == 1);
    ENSURE(c[0].other.index1 == l.ground.index1 && c[0].body.index1 == l.ball.index1);
    ENSURE(cr_to_double(c[0].normal.y) > 0.99); /* from the ground towards the ball */
    ENSURE(c[0].point_count >= 1 && c[0].point_count <= CR_CONTACT_POINTS);
    ENSURE_NEAR(cr_to_double(c[0].points[0].y), 0.0, 0.02);
    /* the impulse that held it for the step before it slept: about m g dt */
    double mg_dt = cr_to_double(cr_body_get_mass(l.w, l.ball)) * 9.81 / 60.0;
    ENSURE_MSG(cr_to_double(c[0].normal_impulse) > 0.5 * mg_dt && cr_to_double(c[0].normal_impulse) < 2.0 * mg_dt,
               "impulse %g, m g dt %g", cr_to_double(c[0].normal_impulse), mg_dt);
    ENSURE(cr_body_get_contacts(l.w, l.ground, c, 4) == 1 && cr_to_double(c[0].normal.y) < -0.99);
    /* lifted away: the contact ends */
    cr_body_set_transform(l.w, l.ball, (cr_transform){cr_v3(0, CR_R(3), 0), cr_quat_identity()});
    cr_world_step(l.w, CR_R(1.0 / 60.0));
    memset(&t, 0, sizeof t);
    count_events(&l, &t);
    ENSURE(t.end == 1 && t.begin == 0);
    ENSURE(cr_body_get_contacts(l.w, l.ball, c, 4) == 0);
    free(l.block);
}

CR_TEST(contact_events_destroyed_body_ends_and_full_set_is_counted) {
    landing l;
    ENSURE(make_landing(&l, 1, 16)); /* one touching pair kept */
    cr_body_def b = cr_default_body_def();
    b.shape.radius = CR_R(0.25);
    b.position = cr_v3(CR_R(2), CR_R(1.5), 0);
    b.material.restitution = 0;
    cr_body_id second;
    ENSURE(cr_body_create(l.w, &b, &second) == CR_OK);
    contact_tally t;
    memset(&t, 0, sizeof t);
    uint32_t overflow = 0;
    for (int f = 0; f < 120; ++f) {
        cr_world_step(l.w, CR_R(1.0 / 60.0));
        count_events(&l, &t);
        overflow += cr_world_get_stats(l.w).contact_overflow;
    }
    ENSURE_MSG(t.begin == 1 && overflow > 0, "begin %u overflow %u", t.begin, overflow); /* the second pair did not fit: counted, never begun */
    ENSURE(cr_body_destroy(l.w, l.ball) == CR_OK);
    cr_world_step(l.w, CR_R(1.0 / 60.0));
    cr_contact_event ev[4];
    uint32_t n = cr_world_get_contact_events(l.w, ev, 4);
    bool ended = false;
    for (uint32_t i = 0; i < n && i < 4; ++i)
        if (ev[i].kind == CR_CONTACT_END && ev[i].body_b.index1 == l.ball.index1) ended = true;
    ENSURE(ended); /* the destroyed ball's contact ends, named by its old handle */
    free(l.block);
}

CR_TEST(contact_events_off_by_default_and_hostile_def) {
    landing l;
    ENSURE(make_landing(&l, 0, 0));
    for (int f = 0; f < 60; ++f) cr_world_step(l.w, CR_R(1.0 / 60.0));
    ENSURE(cr_world_get_contact_events(l.w, NULL, 0) == 0);
    ENSURE(cr_body_get_contacts(l.w, l.ball, NULL, 0) == 0);
    cr_body_id stale = {77, 3};
    ENSURE(cr_body_get_contacts(l.w, stale, NULL, 0) == 0);
    cr_world_def def = cr_default_world_def();
    def.touch_capacity = 0xffffffffu;
    cr_field f;
    ENSURE(cr_world_def_check(&def, &f) == CR_ERR_DEF_INVALID && f == CR_FIELD_WORLD_TOUCH_CAPACITY);
    free(l.block);
}
