/* test_bend_scene.c — bending from a scene file (tools/scene_bend.c):
 * data/scenes/bend_bar.scene's bar, struck by a block, bends at its joints
 * and keeps the bend; bad `bend` lines are refused with their line. */
#include "test.h"
#include "scene.h"
#include "cli.h"
#include "stb_ds.h"

#include <math.h>
#include <string.h>

static double bend_of(const cr_world *w, cr_body_id body) {
    double sum = 0;
    for (uint32_t k = 0; k < cr_bend_get_bone_count(w, body); ++k) {
        cr_joint_id j = cr_bend_get_joint(w, body, k);
        if (cr_joint_id_is_null(j)) continue;
        cr_quat q = cr_joint_get_rest_orientation(w, j);
        double v = sqrt(cr_to_double(q.x) * cr_to_double(q.x) + cr_to_double(q.y) * cr_to_double(q.y) +
                        cr_to_double(q.z) * cr_to_double(q.z));
        sum += 2.0 * atan2(v, fabs(cr_to_double(q.w)));
    }
    return sum;
}

CR_TEST(bend_scene_bar_bends_and_keeps_it) {
    cr_scene *s = NULL;
    cr_scene_error e;
    ENSURE(cr_scene_load("data/scenes/bend_bar.scene", &s, &e) == 0);
    cr_world *w = NULL;
    ENSURE_MSG(cr_scene_build(s, &w, &e) == 0, "%s:%d: %s", e.file, e.line, e.message);
    int32_t bar = cr_scene_find_body(s, "bar");
    ENSURE(bar >= 0);
    cr_body_id id = s->bodies[bar].id;
    ENSURE(cr_bend_get_bone_count(w, id) == 3);
    double at90 = 0;
    for (int f = 0; f < 150; ++f) {
        ENSURE(cr_scene_step(s, w, f, &e) == 0);
        if (f == 89) at90 = bend_of(w, id);
    }
    double at150 = bend_of(w, id);
    cr_test_printf("    bend_bar.scene: bend %.4f rad at 1.5 s, %.4f rad at 2.5 s\n", at90, at150);
    ENSURE(at90 > 0.05);
    ENSURE(fabs(at150 - at90) < 0.02 * at90);
    cr_cli_world_free(w);
    cr_scene_free(s);
}

CR_TEST(bend_scene_lines_are_checked) {
    static const char *const bad[] = {
        "crumple-scene 1\nbend a strength\n",                       /* a number missing */
        "crumple-scene 1\nbend a strength -3\n",                    /* negative */
        "crumple-scene 1\nbend a wobble 3\n",                       /* unknown attribute */
        "crumple-scene 1\nbend a dent nope\n",                      /* unknown dent */
        "crumple-scene 1\nbend a split 1 0.2 1.5\n",                /* bones not whole */
        "crumple-scene 1\nbend a\nbend a\n",                        /* twice */
        "crumple-scene 1\nbody b dynamic box 1 1 1 bend a\n",       /* not defined */
        "crumple-scene 1\nbend a\nbody b dynamic box 1 1 1 bend a\n", /* not a mesh */
        "crumple-scene 1\nbend a\nbody b dynamic box 1 1 1\njoint j fixed b world anchor 0 0 0 bend z\n", /* no such bend */
        "crumple-scene 1\nbend a\nbody b dynamic box 1 1 1\njoint j point b world anchor 0 0 0 bend a\n", /* not fixed */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        cr_scene *s = NULL;
        cr_scene_error e;
        ENSURE_MSG(cr_scene_parse(bad[i], strlen(bad[i]), "t.scene", &s, &e) != 0 && s == NULL, "case %zu", i);
        ENSURE_MSG(e.line >= 2, "case %zu: line %d", i, e.line);
    }
    const char *good = "crumple-scene 1\ndent soft\nbend a strength 10 damping 1 2 split 2 0.3 4 condense 0.5 1 dent soft\n"
                       "bend b spring 100 3\n";
    cr_scene *s = NULL;
    cr_scene_error e;
    ENSURE(cr_scene_parse(good, strlen(good), "t.scene", &s, &e) == 0);
    ENSURE(arrlen(s->bends) == 2 && s->bends[0].bend.dents && s->bends[1].bend.spring_stiffness > 0);
    cr_scene_free(s);
}

/* data/scenes/bend_plank.scene (seed 000 Fig. 14): the one-bone plank gains a
 * joint where the ball lands, and bends there. */
CR_TEST(bend_scene_plank_gains_a_joint) {
    cr_scene *s = NULL;
    cr_scene_error e;
    ENSURE(cr_scene_load("data/scenes/bend_plank.scene", &s, &e) == 0);
    cr_world *w = NULL;
    ENSURE_MSG(cr_scene_build(s, &w, &e) == 0, "%s:%d: %s", e.file, e.line, e.message);
    cr_body_id id = s->bodies[cr_scene_find_body(s, "plank")].id;
    ENSURE(cr_bend_get_bone_count(w, id) == 1);
    int split_at = -1;
    for (int f = 0; f < 120; ++f) {
        ENSURE(cr_scene_step(s, w, f, &e) == 0);
        if (split_at < 0 && cr_bend_get_bone_count(w, id) > 1) split_at = f;
    }
    double bend = bend_of(w, id);
    cr_joint_id j = cr_bend_get_joint(w, id, 1);
    ENSURE(!cr_joint_id_is_null(j));
    double x = cr_to_double(cr_transform_inv_point(cr_body_get_transform(w, id), cr_joint_get_anchor_a(w, j)).x);
    cr_test_printf("    bend_plank.scene: %u bones (split at frame %d, before the ball lands), joint at x = %.3f m "
                   "(ball over x = 0.6 m), bend %.4f rad\n",
                   cr_bend_get_bone_count(w, id), split_at, x, bend);
    ENSURE(split_at >= 0 && cr_bend_get_bone_count(w, id) == 2);
    ENSURE(fabs(x - 0.6) < 0.1);
    ENSURE(bend > 0.1);
    cr_cli_world_free(w);
    cr_scene_free(s);
}

/* ---- data/scenes/spring_joint.scene (seed 000 §4.3) ---- */

/* Each box of spring_joint.scene, followed over the run: its turn about z
 * (the relative angle of the damped oscillator), the measured period from
 * upward zero crossings, and its energy against the start. */
typedef struct spring_track {
    cr_body_id id;
    double inertia, kappa, damping, e0, prev, first, last, period, final, max_ratio;
    int crossings;
} spring_track;

CR_TEST(bend_scene_spring_joint_rings_settles_and_stays_stable) {
    cr_scene *s = NULL;
    cr_scene_error e;
    ENSURE(cr_scene_load("data/scenes/spring_joint.scene", &s, &e) == 0);
    cr_world *w = NULL;
    ENSURE_MSG(cr_scene_build(s, &w, &e) == 0, "%s:%d: %s", e.file, e.line, e.message);
    static const char *const names[3] = {"soft", "damped", "stiff"};
    spring_track t[3];
    memset(t, 0, sizeof t);
    for (int i = 0; i < 3; ++i) {
        int32_t b = cr_scene_find_body(s, names[i]);
        ENSURE(b >= 0 && arrlen(s->joints) == 3);
        t[i].id = s->bodies[b].id;
        t[i].inertia = cr_to_double(cr_body_get_inertia(w, t[i].id).z);
        t[i].kappa = cr_to_double(s->joints[i].def.spring_stiffness);
        t[i].damping = cr_to_double(s->joints[i].def.spring_damping);
        ENSURE(t[i].kappa > 0 && s->joints[i].def.bend_strength == 0);
        t[i].first = t[i].last = -1;
    }
    double dt = cr_to_double(s->dt);
    for (int f = 0; f < (int)s->frames; ++f) {
        ENSURE(cr_scene_step(s, w, f, &e) == 0);
        for (int i = 0; i < 3; ++i) {
            spring_track *k = &t[i];
            cr_quat q = cr_body_get_transform(w, k->id).q;
            double ang = 2.0 * atan2(cr_to_double(q.z), cr_to_double(q.w));
            double wz = cr_to_double(cr_body_get_angular_velocity(w, k->id).z);
            double en = 0.5 * k->inertia * wz * wz + 0.5 * k->kappa * ang * ang;
            if (f == 0) k->e0 = en; /* the spin of frame 0's input, one step in */
            else if (en / k->e0 > k->max_ratio) k->max_ratio = en / k->e0;
            if (f > 0 && k->prev < 0 && ang >= 0) { /* upward zero crossing, interpolated in the step */
                double at = (f - 1 + k->prev / (k->prev - ang)) * dt;
                if (k->first < 0) k->first = at;
                else ++k->crossings;
                k->last = at;
            }
            k->prev = ang;
            k->final = fabs(ang);
        }
    }
    for (int i = 0; i < 3; ++i)
        if (t[i].crossings > 0) t[i].period = (t[i].last - t[i].first) / t[i].crossings;
    double gamma = t[0].damping / (2 * t[0].inertia);
    double expect = 2 * 3.14159265358979323846 / sqrt(t[0].kappa / t[0].inertia - gamma * gamma);
    double stiffness = t[2].kappa * dt * dt / t[2].inertia;
    cr_test_printf("    spring_joint.scene: soft period %.4f s, expected %.4f s (%.3f %%), max E/E0 %.5f; damped |angle| "
                   "after %.0f s %.2e rad; stiff (kappa dt^2/I = %.0f) max E/E0 %.6f\n",
                   t[0].period, expect, 100 * fabs(t[0].period - expect) / expect, t[0].max_ratio, s->frames * dt,
                   t[1].final, stiffness, t[2].max_ratio);
    ENSURE(t[0].crossings >= 3);
    ENSURE(fabs(t[0].period - expect) < 0.01 * expect);
    ENSURE(t[0].max_ratio < 1.0 + 1e-3);
    ENSURE(t[1].final < 1e-3);           /* back on θ₀ */
    ENSURE(stiffness > 100);             /* κΔt²/I ≫ 1 ... */
    ENSURE(t[2].max_ratio < 1.0 + 1e-3); /* ... and no energy growth */
    ENSURE(t[2].max_ratio > 0.5);        /* nor a spring that simply stopped */
    cr_cli_world_free(w);
    cr_scene_free(s);
}
