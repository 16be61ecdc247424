/* test_damage_seam.c — the damage stage's seam, proved by a model that lives
 * here in the tests and reaches the library only through crumple/crumple.h:
 * it receives impacts and contacts in its body's own frame, queues deferred
 * world commands, keeps to its budget, and its state rolls back with a
 * snapshot. */
#include "test.h"
#include "crumple/crumple.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The test model's state, kept by the world in its block. */
typedef struct probe_state {
    uint32_t impacts, contacts;     /* seen so far */
    cr_vec3 impact_point, impact_normal;   /* the last impact from the ball, body frame */
    cr_vec3 contact_point, contact_normal; /* the last contact from the ground, body frame */
    uint32_t pending;               /* work units waiting (25 per impact) */
    uint32_t done;                  /* work units done so far */
    uint32_t spawns_wanted;         /* pieces still to queue */
    uint32_t spawns_queued;
    uint32_t refused;               /* defer calls refused for a full queue */
} probe_state;

typedef struct probe_host {
    cr_body_id ball, ground;
    uint32_t max_budget_seen;
    uint32_t calls;
} probe_host;

static uint32_t probe_step(void *user, cr_custom_step *st) {
    probe_host *host = (probe_host *)user;
    probe_state *s = (probe_state *)st->state;
    host->calls++;
    if (st->budget > host->max_budget_seen) host->max_budget_seen = st->budget;
    for (uint32_t i = 0; i < st->impact_count; ++i) {
        const cr_body_impact *imp = &st->impacts[i];
        s->impacts++;
        if (imp->other.index1 == host->ball.index1) {
            s->impact_point = imp->point, s->impact_normal = imp->normal;
            s->pending += 25;
            if (s->spawns_wanted == 0 && s->spawns_queued == 0) s->spawns_wanted = 2; /* "fracture": two pieces */
        }
    }
    for (uint32_t i = 0; i < st->contact_count; ++i) {
        const cr_body_contact *c = &st->contacts[i];
        s->contacts++;
        if (c->other.index1 == host->ground.index1) s->contact_point = c->point, s->contact_normal = c->normal;
    }
    while (s->spawns_wanted > 0) {
        cr_body_def piece = cr_default_body_def();
        piece.shape.radius = CR_R(0.05);
        piece.position = cr_v3(cr_from_int(5 + (int32_t)s->spawns_queued), CR_R(3), 0);
        if (cr_damage_defer_body_create(st->world, &piece) != CR_OK) {
            s->refused++;
            break; /* the queue is full: keep it for the next step */
        }
        s->spawns_wanted--, s->spawns_queued++;
    }
    uint32_t work = s->pending < st->budget ? s->pending : st->budget;
    s->pending -= work;
    s->done += work;
    st->waiting = s->pending;
    return work;
}

typedef struct seam_world {
    cr_world *w;
    void *block;
    probe_host host;
    cr_body_id box;
} seam_world;

static int make_seam_world(seam_world *sw) {
    memset(sw, 0, sizeof *sw);
    cr_world_def def = cr_default_world_def();
    def.body_capacity = 16;
    def.sleep = false; /* the box must keep its resting contact in the solver */
    def.damage.command_capacity = 1;
    def.damage.custom.body_capacity = 1;
    def.damage.custom.state_bytes = sizeof(probe_state);
    def.damage.custom.work_per_step = 10;
    def.damage.custom.step = probe_step;
    def.damage.custom.user = &sw->host;
    size_t size = cr_world_memory_size(&def);
    if (size == 0) return 0;
    sw->block = aligned_alloc(CR_BLOCK_ALIGN, (size + 15) / 16 * 16);
    if (cr_world_create(&def, sw->block, size, &sw->w) != CR_OK) return 0;
    cr_body_def g = cr_default_body_def();
    g.type = CR_BODY_STATIC;
    g.shape.type = CR_SHAPE_PLANE;
    if (cr_body_create(sw->w, &g, &sw->host.ground) != CR_OK) return 0;
    /* a box turned 90 degrees about x: its frame is not the world's
     * (body y is world z, body z is world -y), resting on the ground */
    cr_body_def b = cr_default_body_def();
    b.shape.type = CR_SHAPE_BOX;
    b.shape.half_extents = cr_v3(CR_R(0.5), CR_R(0.2), CR_R(0.3));
    b.orientation = cr_quat_from_axis_angle(cr_v3(CR_R(1), 0, 0), CR_R(1.5707963267948966));
    b.position = cr_v3(0, CR_R(0.3), 0);
    if (cr_body_create(sw->w, &b, &sw->box) != CR_OK) return 0;
    if (cr_custom_attach(sw->w, sw->box) != CR_OK) return 0;
    return 1;
}

static probe_state state_of(const seam_world *sw) {
    probe_state s;
    const void *p = cr_custom_get_state(sw->w, sw->box);
    if (p) memcpy(&s, p, sizeof s);
    else memset(&s, 0xff, sizeof s);
    return s;
}

static void drop_ball(seam_world *sw) {
    cr_body_def bd = cr_default_body_def();
    bd.shape.radius = CR_R(0.1);
    bd.position = cr_v3(CR_R(0.2), CR_R(0.75), CR_R(0.1));
    bd.linear_velocity = cr_v3(0, CR_R(-5), 0);
    cr_body_create(sw->w, &bd, &sw->host.ball);
}

#define V3(v) cr_to_double((v).x), cr_to_double((v).y), cr_to_double((v).z)

CR_TEST(damage_seam_custom_model_sees_its_frame_defers_and_keeps_budget) {
    seam_world sw;
    ENSURE(make_seam_world(&sw));
    for (int f = 0; f < 30; ++f) ENSURE(cr_world_step(sw.w, CR_R(1.0 / 60.0)) == CR_OK);
    uint32_t bodies0 = cr_world_get_body_ids(sw.w, NULL, 0);
    probe_state s0 = state_of(&sw);
    ENSURE(s0.contacts >= 20 && s0.impacts == 0); /* resting: contacts every step, no impact */
    /* the ground pushes the box up: world +y is body -z; its bottom face is body z = +0.3 */
    cr_test_printf("     resting contact, box frame: point (%.3f %.3f %.3f) normal (%.3f %.3f %.3f)\n", V3(s0.contact_point),
                   V3(s0.contact_normal));
    ENSURE_NEAR(cr_to_double(s0.contact_normal.z), -1.0, 1e-3);
    ENSURE_NEAR(cr_to_double(s0.contact_point.z), 0.3, 0.01);
    drop_ball(&sw);
    uint32_t most_work = 0, total_work = 0, most_waiting = 0, commands_waiting = 0;
    for (int f = 0; f < 20; ++f) {
        ENSURE(cr_world_step(sw.w, CR_R(1.0 / 60.0)) == CR_OK);
        cr_world_stats st = cr_world_get_stats(sw.w);
        ENSURE(st.custom.done == 1); /* one body, called once a step */
        if (st.custom.work > most_work) most_work = st.custom.work;
        if (st.custom.waiting > most_waiting) most_waiting = st.custom.waiting;
        if (st.commands_waiting > commands_waiting) commands_waiting = st.commands_waiting;
        ENSURE(st.custom.over_capacity == 0);
        total_work += st.custom.work;
    }
    probe_state s1 = state_of(&sw);
    uint32_t bodies1 = cr_world_get_body_ids(sw.w, NULL, 0);
    cr_test_printf("     impact, box frame: point (%.3f %.3f %.3f) normal (%.3f %.3f %.3f); %u impacts\n", V3(s1.impact_point),
                   V3(s1.impact_normal), s1.impacts);
    cr_test_printf("     work at most %u a step (budget %u), %u in all, up to %u waiting; %u -> %u bodies, "
                   "%u command(s) kept for the next step\n",
                   most_work, sw.host.max_budget_seen, total_work, most_waiting, bodies0 + 1, bodies1, commands_waiting);
    /* the ball pushed down (world -y = body +z) on the top face (body z = -0.3) at world x 0.2, z 0.1 = body x 0.2, y 0.1 */
    ENSURE(s1.impacts >= 1);
    ENSURE_NEAR(cr_to_double(s1.impact_normal.z), 1.0, 1e-3);
    ENSURE_NEAR(cr_to_double(s1.impact_point.x), 0.2, 0.02);
    ENSURE_NEAR(cr_to_double(s1.impact_point.y), 0.1, 0.02);
    ENSURE_NEAR(cr_to_double(s1.impact_point.z), -0.3, 0.02);
    ENSURE(sw.host.max_budget_seen == 10);
    ENSURE(most_work <= 10);
    ENSURE(most_waiting >= 15);              /* 25 units of an impact waited */
    ENSURE(total_work == s1.done && s1.pending == 0 && total_work % 25 == 0 && total_work >= 25);
    ENSURE(bodies1 == bodies0 + 1 + 2);      /* the ball and both pieces, though the queue holds one command */
    ENSURE(s1.refused >= 1 && commands_waiting >= 1);
    free(sw.block);
}

/* The model's state is in the block: a snapshot restores it, and the same
 * steps after the restore give the same state and hash. */
CR_TEST(damage_seam_custom_state_rolls_back) {
    seam_world sw;
    ENSURE(make_seam_world(&sw));
    for (int f = 0; f < 10; ++f) ENSURE(cr_world_step(sw.w, CR_R(1.0 / 60.0)) == CR_OK);
    drop_ball(&sw);
    ENSURE(cr_world_step(sw.w, CR_R(1.0 / 60.0)) == CR_OK);
    size_t n = cr_world_snapshot_size(sw.w);
    void *snap = malloc(n);
    ENSURE(cr_world_snapshot_save(sw.w, snap, n) == CR_OK);
    probe_state at_snap = state_of(&sw);
    for (int f = 0; f < 15; ++f) ENSURE(cr_world_step(sw.w, CR_R(1.0 / 60.0)) == CR_OK);
    probe_state first = state_of(&sw);
    uint64_t h1 = cr_world_state_hash(sw.w);
    ENSURE(memcmp(&first, &at_snap, sizeof first) != 0); /* the state moved on */
    ENSURE(cr_world_snapshot_restore(sw.w, snap, n) == CR_OK);
    probe_state back = state_of(&sw);
    ENSURE(memcmp(&back, &at_snap, sizeof back) == 0);
    for (int f = 0; f < 15; ++f) ENSURE(cr_world_step(sw.w, CR_R(1.0 / 60.0)) == CR_OK);
    probe_state again = state_of(&sw);
    cr_test_printf("     rollback: %u -> %u work done, hash %016llx then %016llx\n", at_snap.done, again.done,
                   (unsigned long long)h1, (unsigned long long)cr_world_state_hash(sw.w));
    ENSURE(memcmp(&again, &first, sizeof again) == 0);
    ENSURE(cr_world_state_hash(sw.w) == h1);
    free(snap);
    free(sw.block);
}

/* The pose fix of issue 11: the solver measures an impact's normal at the
 * start of the step, so it must reach the body's frame through the start-of-
 * step pose. A box spinning at 12 rad/s turns 0.2 rad in a step; hit on a
 * face, the impact's normal in its frame must be that face's axis, not the
 * axis turned by the step's rotation. */
CR_TEST(damage_seam_impact_normal_uses_the_pose_it_was_measured_in) {
    seam_world sw;
    memset(&sw, 0, sizeof sw);
    cr_world_def def = cr_default_world_def();
    def.body_capacity = 8;
    def.gravity = cr_v3_zero();
    def.damage.custom.body_capacity = 1;
    def.damage.custom.state_bytes = sizeof(probe_state);
    def.damage.custom.work_per_step = 100;
    def.damage.custom.step = probe_step;
    def.damage.custom.user = &sw.host;
    size_t size = cr_world_memory_size(&def);
    sw.block = aligned_alloc(CR_BLOCK_ALIGN, (size + 15) / 16 * 16);
    ENSURE(cr_world_create(&def, sw.block, size, &sw.w) == CR_OK);
    cr_body_def b = cr_default_body_def();
    b.shape.type = CR_SHAPE_BOX;
    b.shape.half_extents = cr_v3(CR_R(0.3), CR_R(0.3), CR_R(0.3));
    b.angular_velocity = cr_v3(CR_R(12), 0, 0); /* about x: the top face's normal turns in the y-z plane */
    ENSURE(cr_body_create(sw.w, &b, &sw.box) == CR_OK);
    ENSURE(cr_custom_attach(sw.w, sw.box) == CR_OK);
    cr_body_def bd = cr_default_body_def();
    bd.shape.radius = CR_R(0.05);
    bd.material.density = CR_R(10); /* light: the box keeps spinning */
    bd.position = cr_v3(0, CR_R(0.9), 0);
    bd.linear_velocity = cr_v3(0, CR_R(-8), 0);
    ENSURE(cr_body_create(sw.w, &bd, &sw.host.ball) == CR_OK);
    cr_quat q0 = cr_quat_identity(), q1 = q0;
    probe_state s = state_of(&sw);
    for (int f = 0; f < 30 && s.impacts == 0; ++f) {
        q0 = cr_body_get_transform(sw.w, sw.box).q;
        ENSURE(cr_world_step(sw.w, CR_R(1.0 / 60.0)) == CR_OK);
        q1 = cr_body_get_transform(sw.w, sw.box).q;
        s = state_of(&sw);
    }
    ENSURE(s.impacts == 1);
    /* the world normal the solver measured is a face normal at the start pose:
     * in the body frame it is a face axis exactly */
    cr_vec3 n = s.impact_normal;
    double ax = fabs(cr_to_double(n.x)), ay = fabs(cr_to_double(n.y)), az = fabs(cr_to_double(n.z));
    double off_axis = 1.0 - fmax(ax, fmax(ay, az));
    /* what the end-of-step pose would have given */
    cr_vec3 world_n = cr_quat_rotate(q0, n);
    cr_vec3 end_n = cr_quat_inv_rotate(q1, world_n);
    double ex = fabs(cr_to_double(end_n.x)), ey = fabs(cr_to_double(end_n.y)), ez = fabs(cr_to_double(end_n.z));
    double end_off = 1.0 - fmax(ex, fmax(ey, ez));
    cr_test_printf("     spinning box hit: normal in its frame (%.4f %.4f %.4f), 1 - |largest| = %.2e; "
                   "with the end-of-step pose it would be %.2e\n", V3(n), off_axis, end_off);
    ENSURE(off_axis < 1e-4);
    ENSURE(end_off > 1e-2); /* the test can tell the two poses apart */
    free(sw.block);
}

/* Deferred world commands: applied at the end of the step, in the order they
 * were queued; a full queue refuses (counted); a create the world refuses for
 * its body capacity stays queued and is applied once there is room. */
CR_TEST(damage_commands_apply_in_order_and_wait_for_room) {
    cr_world_def def = cr_default_world_def();
    def.body_capacity = 3;
    def.joint_capacity = 2;
    def.gravity = cr_v3_zero();
    def.damage.command_capacity = 3;
    size_t size = cr_world_memory_size(&def);
    void *block = aligned_alloc(CR_BLOCK_ALIGN, (size + 15) / 16 * 16);
    cr_world *w = NULL;
    ENSURE(cr_world_create(&def, block, size, &w) == CR_OK);
    cr_body_def bd = cr_default_body_def();
    cr_body_id a, b;
    ENSURE(cr_body_create(w, &bd, &a) == CR_OK);
    bd.position = cr_v3(CR_R(2), 0, 0);
    ENSURE(cr_body_create(w, &bd, &b) == CR_OK);
    /* a joint between a and b, then the destruction of b (which takes the joint with it), then a new body */
    cr_joint_def jd = cr_default_joint_def();
    jd.body_a = a, jd.body_b = b;
    jd.anchor = cr_v3(CR_R(1), 0, 0);
    ENSURE(cr_damage_defer_joint_create(w, &jd) == CR_OK);
    ENSURE(cr_damage_defer_body_destroy(w, b) == CR_OK);
    bd.position = cr_v3(CR_R(-2), 0, 0);
    ENSURE(cr_damage_defer_body_create(w, &bd) == CR_OK);
    ENSURE(cr_damage_defer_body_create(w, &bd) == CR_ERR_CAPACITY); /* 3 queued: full */
    ENSURE(cr_world_get_joint_count(w) == 0 && cr_body_is_valid(w, b)); /* nothing happens before the step */
    ENSURE(cr_world_step(w, CR_R(1.0 / 60.0)) == CR_OK);
    cr_world_stats st = cr_world_get_stats(w);
    cr_test_printf("     step 1: %u commands applied, %u waiting; bodies %u, joints %u\n", st.commands_applied,
                   st.commands_waiting, cr_world_get_body_ids(w, NULL, 0), cr_world_get_joint_count(w));
    ENSURE(st.commands_applied == 3);
    ENSURE(!cr_body_is_valid(w, b) && cr_world_get_joint_count(w) == 0); /* made, then gone with b */
    ENSURE(cr_world_get_body_ids(w, NULL, 0) == 2);
    /* two more creates with room for one: the second waits, in order, for room */
    bd.position = cr_v3(0, CR_R(2), 0);
    ENSURE(cr_damage_defer_body_create(w, &bd) == CR_OK);
    bd.position = cr_v3(0, CR_R(-2), 0);
    ENSURE(cr_damage_defer_body_create(w, &bd) == CR_OK);
    ENSURE(cr_world_step(w, CR_R(1.0 / 60.0)) == CR_OK);
    st = cr_world_get_stats(w);
    ENSURE(st.commands_applied == 1 && st.commands_waiting == 1 && cr_world_get_body_ids(w, NULL, 0) == 3);
    uint64_t h_waiting = cr_world_state_hash(w);
    ENSURE(cr_body_destroy(w, a) == CR_OK);
    ENSURE(cr_world_step(w, CR_R(1.0 / 60.0)) == CR_OK);
    st = cr_world_get_stats(w);
    cr_body_id ids[3];
    uint32_t n = cr_world_get_body_ids(w, ids, 3);
    double y_last = cr_to_double(cr_body_get_transform(w, ids[0]).p.y);
    cr_test_printf("     the waiting create applied once a slot was free: %u bodies, it sits at y %.1f\n", n, y_last);
    ENSURE(st.commands_applied == 1 && st.commands_waiting == 0 && n == 3);
    ENSURE(y_last == -2.0); /* a's slot, taken by the create that waited */
    ENSURE(h_waiting != cr_world_state_hash(w));
    free(block);
}
