/* test_spring_scene_files.c — issue 16's soft scenes as shipped scene files
 * (data/scenes/soft_*.scene, `spring` and `soft` lines: tools/scene_spring.c),
 * run exactly as `crumple run` runs them, checked against the issue's
 * figures; their replays verify bit-identically, with rollback; bad soft
 * lines are refused as file:line: what. */
#include "test_scene_util.h"
#include "test_solver_util.h"
#include "scene_spring.h"
#include "replay.h"
#include "stb_ds.h"

#include <math.h>
#include <stdlib.h>

static cr_soft_id soft_id(const scene_run *r, const char *name) {
    int32_t i = cr_scene_soft_find(r->s, name);
    cr_soft_id none = {0, 0};
    return i < 0 ? none : r->s->softs[i].id;
}

static cr_soft_state soft_state(const scene_run *r, cr_soft_id id) {
    cr_soft_state s;
    memset(&s, 0, sizeof s);
    cr_soft_get_state(r->w, id, &s);
    return s;
}

static double height(const cr_soft_state *s) { return ts_d(s->bounds_max.y) - ts_d(s->bounds_min.y); }

/* soft_drop: the ball lands, flattens, bounces, and its edge RMS error is
 * back below 0.1 % 3 s after landing. */
CR_TEST(spring_scene_soft_drop) {
    scene_run r;
    ENSURE(open_scene("soft_drop", &r) == 0);
    cr_soft_id b = soft_id(&r, "ball");
    ENSURE(!cr_soft_id_is_null(b));
    const cr_asset *a = cr_world_get_asset(r.w, cr_soft_get_asset(r.w, b));
    ENSURE(a != NULL && a->soft_spring_count > 0); /* the cooked soft asset's springs */
    cr_soft_state s = soft_state(&r, b);
    double rest_h = height(&s), flattest = rest_h, bounce = 0, lowest = 10, err_3s = 1;
    int touched = -1;
    for (int32_t f = 0; f < r.s->frames; ++f) {
        ENSURE(step(&r, f) == 0);
        s = soft_state(&r, b);
        lowest = fmin(lowest, ts_d(s.bounds_min.y));
        if (touched < 0 && ts_d(s.bounds_min.y) < 0.1) touched = f;
        if (touched >= 0 && f < touched + 30) flattest = fmin(flattest, height(&s));
        if (touched >= 0) bounce = fmax(bounce, ts_d(s.linear_momentum.y) / ts_d(s.mass));
        if (touched >= 0 && f == touched + 180) err_3s = ts_d(s.edge_error);
    }
    cr_test_printf("    soft_drop.scene: %u particles, %u springs; lands at frame %d, flattens to %.3f of its height, "
                   "bounces at %.2f m/s, lowest particle %.4f m, edge RMS 3 s after landing %.5f %%\n",
                   a->vertex_count, a->soft_spring_count, touched, flattest / rest_h, bounce, lowest, 100 * err_3s);
    ENSURE(touched > 0);
    ENSURE(flattest < 0.97 * rest_h);
    ENSURE(bounce > 0.5);
    ENSURE(lowest > -0.05);
    ENSURE(err_3s < 0.001);
    close_scene(&r);
}

/* soft_flip: the box, dropped on an edge (35 degrees), turns over and lies on a face. */
CR_TEST(spring_scene_soft_flip) {
    scene_run r;
    ENSURE(open_scene("soft_flip", &r) == 0);
    cr_soft_id b = soft_id(&r, "box");
    ENSURE(!cr_soft_id_is_null(b));
    cr_quat q0 = r.s->softs[cr_scene_soft_find(r.s, "box")].def.transform.q;
    uint32_t n = cr_soft_get_positions(r.w, b, NULL, 0);
    cr_vec3 *x = (cr_vec3 *)calloc(n, sizeof *x);
    cr_soft_get_positions(r.w, b, x, n);
    cr_vec3 c = soft_state(&r, b).centre;
    /* the particles of the box's own +x face (their centre) say which way it faces */
    double xmax = -1;
    for (uint32_t i = 0; i < n; ++i) xmax = fmax(xmax, ts_d(cr_quat_inv_rotate(q0, cr_v3_sub(x[i], c)).x));
    uint8_t *face = (uint8_t *)calloc(n, 1);
    for (uint32_t i = 0; i < n; ++i) face[i] = ts_d(cr_quat_inv_rotate(q0, cr_v3_sub(x[i], c)).x) > 0.95 * xmax;
    double angle0 = 0, angle = 0;
    for (int32_t f = 0; f <= r.s->frames; ++f) {
        cr_soft_get_positions(r.w, b, x, n);
        c = soft_state(&r, b).centre;
        double fx = 0, fy = 0, m = 0;
        for (uint32_t i = 0; i < n; ++i)
            if (face[i]) fx += ts_d(x[i].x), fy += ts_d(x[i].y), m += 1;
        angle = atan2(fy / m - ts_d(c.y), fx / m - ts_d(c.x)) * 180 / TS_PI;
        if (f == 0) angle0 = angle;
        if (f < r.s->frames) ENSURE(step(&r, f) == 0);
    }
    free(face);
    double off_face = fmod(fabs(angle) + 45.0, 90.0) - 45.0;
    cr_test_printf("    soft_flip.scene: +x face at %.1f deg, after 4 s at %.1f deg (%.1f off a face)\n", angle0, angle, off_face);
    ENSURE(fabs(angle0 - 35) < 1);
    ENSURE(fabs(angle - angle0) > 25);
    ENSURE(fabs(off_face) < 5);
    free(x);
    close_scene(&r);
}

/* soft_rigid: in each lane the ball and box keep their momentum to 1 %; the
 * light box flies off ahead, the heavy one sends the ball back. */
CR_TEST(spring_scene_soft_rigid) {
    scene_run r;
    ENSURE(open_scene("soft_rigid", &r) == 0);
    static const char *const lane[3] = {"equal", "light", "heavy"};
    double p0[3];
    for (int k = 0; k < 3; ++k) {
        char name[32];
        snprintf(name, sizeof name, "ball_%s", lane[k]);
        p0[k] = ts_d(soft_state(&r, soft_id(&r, name)).linear_momentum.x);
        ENSURE(fabs(p0[k] - 3) < 1e-3);
    }
    for (int32_t f = 0; f < r.s->frames; ++f) ENSURE(step(&r, f) == 0);
    for (int k = 0; k < 3; ++k) {
        char bn[32], xn[32];
        snprintf(bn, sizeof bn, "ball_%s", lane[k]);
        snprintf(xn, sizeof xn, "box_%s", lane[k]);
        cr_soft_state s = soft_state(&r, soft_id(&r, bn));
        cr_body_id box = body(&r, xn);
        double M = ts_d(cr_body_get_mass(r.w, box));
        cr_vec3 vb = cr_body_get_linear_velocity(r.w, box);
        double p1 = ts_d(s.linear_momentum.x) + M * ts_d(vb.x);
        double py = ts_d(s.linear_momentum.y) + M * ts_d(vb.y), pz = ts_d(s.linear_momentum.z) + M * ts_d(vb.z);
        double ball_v = ts_d(s.linear_momentum.x) / ts_d(s.mass);
        cr_test_printf("    soft_rigid.scene: box %.2f kg: ball %.3f m/s, box %.3f m/s, momentum %.4f -> %.4f (%.2g %%)\n", M,
                       ball_v, ts_d(vb.x), p0[k], p1, 100 * (p1 - p0[k]) / p0[k]);
        ENSURE(fabs(p1 - p0[k]) < 0.01 * p0[k]);
        ENSURE(sqrt(py * py + pz * pz) < 0.01 * p0[k]);
        ENSURE(ts_d(vb.x) > 0.05);
        if (k == 1) {
            /* the 1-D collision at the contact's restitution (0.3: the
             * scene's materials and the spring's default), as
             * spring_soft_rigid_momentum: a box a twentieth of the ball
             * leaves before the ball's springs give back their squash */
            double e = 0.3, m = ts_d(s.mass), u = p0[k] / m;
            double pred_box = u * (1 + e) * m / (m + M), pred_ball = u * (m - e * M) / (m + M);
            cr_test_printf("    soft_rigid.scene: the light box predicted %.3f m/s (%+.1f %%), the ball %.3f (%+.1f %%)\n", pred_box,
                           100 * (ts_d(vb.x) / pred_box - 1), pred_ball, 100 * (ball_v / pred_ball - 1));
            ENSURE(fabs(ts_d(vb.x) - pred_box) < 0.08 * pred_box);
            ENSURE(fabs(ball_v - pred_ball) < 0.01 * pred_ball);
        }
        if (k == 2) ENSURE(ball_v < -0.3);
    }
    close_scene(&r);
}

/* Winding number of a closed soft body's surface at q (about 1 inside). */
static double winding(const cr_asset *a, const cr_vec3 *x, cr_vec3 q) {
    double total = 0;
    for (uint32_t t = 0; t < a->triangle_count; ++t) {
        double v[3][3], l[3];
        for (int k = 0; k < 3; ++k) {
            cr_vec3 p = x[a->triangles[3 * t + k]];
            v[k][0] = ts_d(p.x) - ts_d(q.x), v[k][1] = ts_d(p.y) - ts_d(q.y), v[k][2] = ts_d(p.z) - ts_d(q.z);
            l[k] = sqrt(v[k][0] * v[k][0] + v[k][1] * v[k][1] + v[k][2] * v[k][2]);
        }
        double det = v[0][0] * (v[1][1] * v[2][2] - v[1][2] * v[2][1]) - v[0][1] * (v[1][0] * v[2][2] - v[1][2] * v[2][0]) +
                     v[0][2] * (v[1][0] * v[2][1] - v[1][1] * v[2][0]);
        double dot01 = v[0][0] * v[1][0] + v[0][1] * v[1][1] + v[0][2] * v[1][2];
        double dot12 = v[1][0] * v[2][0] + v[1][1] * v[2][1] + v[1][2] * v[2][2];
        double dot20 = v[2][0] * v[0][0] + v[2][1] * v[0][1] + v[2][2] * v[0][2];
        total += 2 * atan2(det, l[0] * l[1] * l[2] + dot01 * l[2] + dot12 * l[0] + dot20 * l[1]);
    }
    return total / (4 * TS_PI);
}

/* soft_pile: twenty bodies into the box; no particle inside another body or
 * outside the walls (every second), the whole pile asleep within 12 s and
 * still asleep at 15 s, volumes within 3 % at rest. */
CR_TEST(spring_scene_soft_pile) {
    scene_run r;
    ENSURE(open_scene("soft_pile", &r) == 0);
    int n = (int)arrlen(r.s->softs);
    ENSURE(n == 20);
    cr_soft_id ids[20];
    const cr_asset *as[20];
    cr_vec3 *x[20];
    for (int i = 0; i < n; ++i) {
        ids[i] = r.s->softs[i].id;
        as[i] = cr_world_get_asset(r.w, cr_soft_get_asset(r.w, ids[i]));
        ENSURE(as[i] != NULL);
        x[i] = (cr_vec3 *)calloc(as[i]->vertex_count, sizeof(cr_vec3));
    }
    const double W = 1.0;
    int inside = 0, outside = 0, all_asleep_at = 0, asleep = 0;
    double peak_ke = 0, end_ke = 0, worst_vol = 0;
    for (int32_t f = 0; f < r.s->frames; ++f) {
        ENSURE(step(&r, f) == 0);
        double ke = 0;
        asleep = 0;
        for (int i = 0; i < n; ++i) ke += ts_d(soft_state(&r, ids[i]).kinetic_energy), asleep += soft_state(&r, ids[i]).asleep;
        if (asleep < n) all_asleep_at = 0;
        else if (all_asleep_at == 0) all_asleep_at = f + 1;
        peak_ke = fmax(peak_ke, ke), end_ke = ke;
        if ((f + 1) % 60 != 0) continue;
        for (int i = 0; i < n; ++i) cr_soft_get_positions(r.w, ids[i], x[i], as[i]->vertex_count);
        for (int i = 0; i < n; ++i) {
            for (uint32_t p = 0; p < as[i]->vertex_count; ++p) {
                double px = ts_d(x[i][p].x), py = ts_d(x[i][p].y), pz = ts_d(x[i][p].z);
                if (fabs(px) > W + 0.02 || fabs(pz) > W + 0.02 || py < -0.02) ++outside;
                for (int j = 0; j < n; ++j) {
                    if (j == i) continue;
                    cr_soft_state sj = soft_state(&r, ids[j]);
                    if (px < ts_d(sj.bounds_min.x) || px > ts_d(sj.bounds_max.x) || py < ts_d(sj.bounds_min.y) ||
                        py > ts_d(sj.bounds_max.y) || pz < ts_d(sj.bounds_min.z) || pz > ts_d(sj.bounds_max.z))
                        continue;
                    if (winding(as[j], x[j], x[i][p]) > 0.5) ++inside;
                }
            }
            cr_soft_state s = soft_state(&r, ids[i]);
            worst_vol = fmax(worst_vol, fabs(ts_d(s.volume) / ts_d(s.rest_volume) - 1));
        }
    }
    double end_vol = 0;
    for (int i = 0; i < n; ++i) {
        cr_soft_state s = soft_state(&r, ids[i]);
        end_vol = fmax(end_vol, fabs(ts_d(s.volume) / ts_d(s.rest_volume) - 1));
    }
    cr_test_printf("    soft_pile.scene: particles inside another body %d, outside the box %d (every second); after 15 s "
                   "kinetic energy %.2g of its peak, %d of %d asleep (all since %.2f s); volume change at most %.2f %% at rest, %.2f %% on the way\n",
                   inside, outside, end_ke / peak_ke, asleep, n, all_asleep_at / 60.0, 100 * end_vol, 100 * worst_vol);
    ENSURE(inside == 0);
    ENSURE(outside == 0);
    ENSURE(asleep == n);
    ENSURE(all_asleep_at > 0 && all_asleep_at <= 12 * 60);
    ENSURE(end_ke < 0.002 * peak_ke);
    ENSURE(end_vol < 0.03);
    ENSURE(worst_vol < 0.08);
    for (int i = 0; i < n; ++i) free(x[i]);
    close_scene(&r);
}

/* A soft scene's replay verifies bit-identically, also rolling back 4 frames
 * through snapshots (soft bodies are in the state hash and the snapshot). */
CR_TEST(spring_scene_replay_is_bit_identical) {
    const char *path = "data/scenes/soft_drop.scene";
    FILE *f = fopen(path, "rb");
    ENSURE(f != NULL);
    char *text = NULL;
    int ch;
    while ((ch = fgetc(f)) != EOF) arrput(text, (char)ch);
    fclose(f);
    cr_scene *s = NULL;
    cr_scene_error e;
    ENSURE(cr_scene_parse(text, (size_t)arrlen(text), path, &s, &e) == 0);
    cr_world *w = NULL;
    ENSURE(cr_scene_build(s, &w, &e) == 0);
    cr_replay rp;
    cr_replay_init(&rp, path, text, (size_t)arrlen(text), w, s->dt);
    uint64_t h40 = 0;
    for (int32_t fr = 0; fr < 90; ++fr) {
        ENSURE(cr_scene_step(s, w, fr, &e) == 0);
        cr_replay_add_frame(&rp, w, s->frame_inputs, (uint32_t)arrlen(s->frame_inputs));
        if (fr == 40) h40 = cr_world_state_hash(w);
    }
    /* the soft body moves the hash: a world without it hashes otherwise */
    ENSURE(h40 != 0);
    cr_replay_verdict v;
    ENSURE_MSG(cr_replay_verify(&rp, &v) == CR_REPLAY_PASS, "%s", v.message);
    ENSURE_MSG(cr_replay_verify_rollback(&rp, 4, &v) == CR_REPLAY_PASS, "%s", v.message);
    cr_test_printf("    soft_drop.scene: 90 frames replayed bit-identically, and with a 4-frame rollback\n");
    cr_replay_free(&rp);
    cr_cli_world_free(w);
    cr_scene_free(s);
    arrfree(text);
}

/* Bad soft lines name the file, the line and what is wrong. */
CR_TEST(spring_scene_bad_lines_are_refused) {
    static const struct {
        const char *text, *want;
    } cases[] = {
        {"soft b nowhere\n", "unknown asset 'nowhere'"},
        {"asset m ../meshes/soft_ball.obj\nsoft b m spring none\n", "unknown spring 'none'"},
        {"spring j stiffness -5\n", "'stiffness' is -5"},
        {"spring j substeps 100\n", "'substeps' needs a whole number 1..64"},
        {"spring j wobble 3\n", "unknown spring attribute 'wobble'"},
        {"spring j\nspring j\n", "spring 'j' already defined at line 2"},
        {"asset m ../meshes/soft_ball.obj\nsoft b m position 1 2\n", "'position' needs 3 numbers, got 2"},
        {"asset m ../meshes/soft_ball.obj\nsoft b m rotate 0 0 0 30\n", "'rotate' axis must not be zero"},
        {"spring j masses heavy\n", "'masses' needs area or equal"},
        {"spring j surface maybe\n", "'surface' needs on or off, got 'maybe'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        char text[512];
        snprintf(text, sizeof text, "crumple-scene 1\n%s", cases[i].text);
        cr_scene *s = NULL;
        cr_scene_error e;
        ENSURE(cr_scene_parse(text, strlen(text), "data/scenes/bad.scene", &s, &e) != 0);
        char msg[700];
        cr_scene_error_format(msg, sizeof msg, &e);
        cr_test_printf("    %s\n", msg);
        ENSURE_MSG(strstr(msg, cases[i].want) != NULL, "'%s' lacks '%s'", msg, cases[i].want);
        ENSURE(strncmp(msg, "data/scenes/bad.scene:", 22) == 0 && e.line >= 2);
    }
    /* a def the runtime refuses is named at its line when the world is built */
    const char *text = "crumple-scene 1\nasset m ../meshes/soft_ball.obj\nspring j stiffness 10000000\nsoft b m spring j\n";
    cr_scene *s = NULL;
    cr_scene_error e;
    ENSURE(cr_scene_parse(text, strlen(text), "data/scenes/bad.scene", &s, &e) == 0);
    cr_world *w = NULL;
    ENSURE(cr_scene_build(s, &w, &e) != 0);
    char msg[700];
    cr_scene_error_format(msg, sizeof msg, &e);
    cr_test_printf("    %s\n", msg);
    ENSURE(e.line == 4 && strstr(msg, "soft body 'b'") != NULL && strstr(msg, "stiffness") != NULL);
    cr_scene_free(s);
    /* `surface off` turns the default surface contacts off, `on` keeps them */
    const char *surf = "crumple-scene 1\nasset m ../meshes/soft_ball.obj\nspring off surface off\nspring on surface on\n"
                       "soft a m spring off\nsoft b m spring on\nsoft c m\n";
    s = NULL;
    ENSURE(cr_scene_parse(surf, strlen(surf), "data/scenes/surface.scene", &s, &e) == 0);
    ENSURE(!s->softs[0].def.surface_contacts && s->softs[1].def.surface_contacts && s->softs[2].def.surface_contacts);
    cr_scene_free(s);
}

/* `spawn FRAME` on a soft line: the body appears just before that frame's
 * step (none before, one after), and a replay rebuilds it the same way. */
CR_TEST(spring_scene_soft_spawn_replays) {
    const char *text = "crumple-scene 1\n"
                       "asset m ../meshes/soft_ball.obj\n"
                       "body ground static plane\n"
                       "soft early m position 0 1 0\n"
                       "soft late m position 0.1 2 0 velocity 0 -1 0 spawn 10\n";
    const char *path = "data/scenes/spawn.scene";
    cr_scene *s = NULL;
    cr_scene_error e;
    ENSURE(cr_scene_parse(text, strlen(text), path, &s, &e) == 0);
    cr_world *w = NULL;
    ENSURE(cr_scene_build(s, &w, &e) == 0);
    cr_replay rp;
    cr_replay_init(&rp, path, text, strlen(text), w, s->dt);
    uint32_t before = 0, after = 0;
    for (int32_t fr = 0; fr < 40; ++fr) {
        if (fr == 10) before = cr_world_get_soft_ids(w, NULL, 0);
        ENSURE(cr_scene_step(s, w, fr, &e) == 0);
        if (fr == 10) after = cr_world_get_soft_ids(w, NULL, 0);
        cr_replay_add_frame(&rp, w, s->frame_inputs, (uint32_t)arrlen(s->frame_inputs));
    }
    cr_soft_state late;
    ENSURE(cr_soft_get_state(w, s->softs[1].id, &late) == CR_OK);
    cr_test_printf("    soft bodies before frame 10: %u, after: %u; the spawned one at y %.3f after 40 frames\n", before, after,
                   ts_d(late.centre.y));
    ENSURE(before == 1 && after == 2);
    ENSURE(ts_d(late.centre.y) < 1.9); /* it fell */
    cr_replay_verdict v;
    ENSURE_MSG(cr_replay_verify(&rp, &v) == CR_REPLAY_PASS, "%s", v.message);
    cr_replay_free(&rp);
    cr_cli_world_free(w);
    cr_scene_free(s);
}

/* Timed inputs reach soft bodies by name: `impulse` on the whole body (every
 * particle the same velocity change, so its momentum changes by the impulse
 * and it neither turns nor deforms) or at the particle nearest `at`;
 * `velocity` sets every particle to one rigid motion (linear at the centre
 * of mass, spin about it). A replay rebuilds them from the scene text, bit
 * for bit. Inputs that make no sense for a soft body are refused as
 * file:line: what. */
CR_TEST(spring_scene_soft_inputs) {
    const char *text = "crumple-scene 1\n"
                       "gravity 0 0 0\n"
                       "asset m ../meshes/soft_ball.obj\n"
                       "spring j mass 2 sleep off\n"
                       "body crate dynamic box 0.2 0.2 0.2 position 0 1 5\n"
                       "soft a m spring j position 0 1 0\n"
                       "soft b m spring j position 3 1 0\n"
                       "soft c m spring j position -3 1 0 spawn 5\n"
                       "impulse 10 a 4 0 0\n"
                       "velocity 10 b 0 1 0 spin 0 0 2\n"
                       "impulse 10 crate 0 0 64\n"
                       "impulse 20 c 0 0.5 0 at -3 2 0\n";
    const char *path = "data/scenes/soft_inputs.scene";
    cr_scene *s = NULL;
    cr_scene_error e;
    ENSURE(cr_scene_parse(text, strlen(text), path, &s, &e) == 0);
    cr_world *w = NULL;
    ENSURE(cr_scene_build(s, &w, &e) == 0);
    cr_replay rp;
    cr_replay_init(&rp, path, text, strlen(text), w, s->dt);
    cr_soft_state a0, a, b, c0, c;
    ENSURE(cr_soft_get_state(w, s->softs[0].id, &a0) == CR_OK);
    /* b's particles just after its velocity input, for its moment of inertia */
    cr_vec3 xb[512], crate_v = cr_v3_zero();
    uint32_t nb = 0;
    for (int32_t fr = 0; fr < 40; ++fr) {
        ENSURE(cr_scene_step(s, w, fr, &e) == 0);
        cr_replay_add_frame(&rp, w, s->frame_inputs, (uint32_t)arrlen(s->frame_inputs));
        if (fr == 10) {
            ENSURE(cr_soft_get_state(w, s->softs[0].id, &a) == CR_OK);
            ENSURE(cr_soft_get_state(w, s->softs[1].id, &b) == CR_OK);
            nb = cr_soft_get_positions(w, s->softs[1].id, xb, 512);
            crate_v = cr_body_get_linear_velocity(w, s->bodies[cr_scene_find_body(s, "crate")].id);
        }
        if (fr == 19) ENSURE(cr_soft_get_state(w, s->softs[2].id, &c0) == CR_OK);
        if (fr == 20) ENSURE(cr_soft_get_state(w, s->softs[2].id, &c) == CR_OK);
    }
    /* b's spin about z: the moment of inertia of its particles about the z axis through its centre */
    double iz = 0;
    for (uint32_t i = 0; i < nb; ++i) {
        double dx = ts_d(xb[i].x) - ts_d(b.centre.x), dy = ts_d(xb[i].y) - ts_d(b.centre.y);
        iz += (ts_d(b.mass) / nb) * (dx * dx + dy * dy);
    }
    cr_test_printf("    soft inputs: a's momentum %.4f %.4f %.4f after 'impulse 10 a 4 0 0' (spin %.2g, edge RMS %.2g -> %.2g); "
                   "b's momentum y %.4f, spin z %.4f (I_z w %.4f); c's momentum y %.4f after its poke at the top; the crate at %.3f m/s\n",
                   ts_d(a.linear_momentum.x), ts_d(a.linear_momentum.y), ts_d(a.linear_momentum.z), ts_d(cr_v3_len(a.angular_momentum)),
                   ts_d(a0.edge_error), ts_d(a.edge_error), ts_d(b.linear_momentum.y), ts_d(b.angular_momentum.z), 2 * iz,
                   ts_d(c.linear_momentum.y) - ts_d(c0.linear_momentum.y), ts_d(crate_v.z));
    ENSURE(fabs(ts_d(a.linear_momentum.x) - 4) < 1e-3 && fabs(ts_d(a.linear_momentum.y)) < 1e-3 && fabs(ts_d(a.linear_momentum.z)) < 1e-3);
    ENSURE(ts_d(cr_v3_len(a.angular_momentum)) < 1e-3); /* it does not turn */
    ENSURE(ts_d(a.edge_error) < 1e-4);                  /* nor deform */
    ENSURE(fabs(ts_d(b.linear_momentum.y) - 2) < 1e-3 && fabs(ts_d(b.linear_momentum.x)) < 1e-3);
    ENSURE(fabs(ts_d(b.angular_momentum.z) - 2 * iz) < 0.02 * 2 * iz); /* its spin, about its centre */
    ENSURE(fabs(ts_d(c.linear_momentum.y) - ts_d(c0.linear_momentum.y) - 0.5) < 1e-3); /* the spawned one, poked */
    ENSURE(fabs(ts_d(crate_v.z) - 64.0 / ts_d(cr_body_get_mass(w, s->bodies[cr_scene_find_body(s, "crate")].id))) < 1e-3); /* rigid inputs as before */
    cr_replay_verdict v;
    ENSURE_MSG(cr_replay_verify(&rp, &v) == CR_REPLAY_PASS, "%s", v.message);
    cr_replay_free(&rp);
    cr_cli_world_free(w);
    cr_scene_free(s);

    /* what makes no sense for a soft body, at its line */
    static const struct {
        const char *text, *want;
        int line;
    } cases[] = {
        {"soft a m\ntarget 5 a 0 1 0\n", "'target' needs a kinematic body; 'a' is a soft body", 4},
        {"soft a m spawn 5\nimpulse 3 a 1 0 0\n", "'impulse' at frame 3 on soft body 'a', which only spawns at frame 5", 4},
        {"soft a m\nimpulse 3 a 1 0 0 spin 1 0 0\n", "unknown impulse attribute 'spin'", 4},
        {"soft a m\nvelocity 3 ghost 1 0 0\n", "unknown body 'ghost'", 4},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        char bad[512];
        snprintf(bad, sizeof bad, "crumple-scene 1\nasset m ../meshes/soft_ball.obj\n%s", cases[i].text);
        s = NULL;
        ENSURE(cr_scene_parse(bad, strlen(bad), "data/scenes/bad.scene", &s, &e) != 0);
        char msg[700];
        cr_scene_error_format(msg, sizeof msg, &e);
        cr_test_printf("    %s\n", msg);
        ENSURE_MSG(strstr(msg, cases[i].want) != NULL, "'%s' lacks '%s'", msg, cases[i].want);
        ENSURE(strncmp(msg, "data/scenes/bad.scene:", 22) == 0 && e.line == cases[i].line);
    }
    /* a value the runtime refuses, named at the input's line when it applies */
    const char *fast = "crumple-scene 1\nasset m ../meshes/soft_ball.obj\nsoft a m\nvelocity 2 a 2000 0 0\n";
    s = NULL;
    ENSURE(cr_scene_parse(fast, strlen(fast), "data/scenes/bad.scene", &s, &e) == 0);
    w = NULL;
    ENSURE(cr_scene_build(s, &w, &e) == 0);
    int failed_at = -1;
    for (int32_t fr = 0; fr < 4 && failed_at < 0; ++fr)
        if (cr_scene_step(s, w, fr, &e) != 0) failed_at = fr;
    char msg[700];
    cr_scene_error_format(msg, sizeof msg, &e);
    cr_test_printf("    %s\n", msg);
    ENSURE(failed_at == 2 && e.line == 4 && strstr(msg, "soft body 'a'") != NULL && strstr(msg, "linear") != NULL);
    cr_cli_world_free(w);
    cr_scene_free(s);
}
