/* test_scene_run.c — `crumple run`'s frame loop, timed inputs and JSON contract.
 *
 * Inputs must reach the world exactly on their frame (that is what a replay
 * relies on), a scene must give the same state hash every time it runs, and
 * the JSON that `crumple run --json` prints must be valid JSON holding the
 * fields docs/scene-format.md promises, with values that match the world.
 */
#include "test_scene_util.h"
#include "stb_ds.h"
#include "test_json.h"

#include <stdlib.h>
#include <string.h>

/* ---- helpers ---- */

static cr_scene *scene_from(const char *text) {
    cr_scene *s = NULL;
    cr_scene_error e;
    if (cr_scene_parse(text, strlen(text), "run.scene", &s, &e)) {
        cr_scene_error_print(stdout, &e);
        return NULL;
    }
    return s;
}

CR_TEST(scene_run_inputs_arrive_on_their_frame) {
    cr_scene *s = scene_from("crumple-scene 1\ngravity 0 0 0\ndt 1/50\n"
                             "body ball dynamic sphere 0.5 material default position 0 10 0\n"
                             "body late dynamic box 0.5 0.5 0.5 position 5 10 0 spawn 5\n"
                             "body lift kinematic box 1 0.1 1 position -5 0 0\n"
                             "impulse 10 ball 0 0 100\n"
                             "velocity 12 late 1 0 0 spin 0 2 0\n"
                             "target 20 lift -5 3 0 frames 25\n"
                             "velocity 45 lift 0 0 0\n");
    ENSURE(s);
    cr_world *w = NULL;
    cr_scene_error e;
    ENSURE(cr_scene_build(s, &w, &e) == 0);
    cr_body_id ball = s->bodies[0].id, lift = s->bodies[2].id;
    ENSURE(cr_body_is_valid(w, ball) && cr_body_is_valid(w, lift));
    ENSURE(!cr_body_is_valid(w, s->bodies[1].id));
    double mass = cr_to_double(cr_body_get_mass(w, ball));
    for (int f = 0; f < 60; ++f) {
        ENSURE(cr_scene_step(s, w, f, &e) == 0);
        double vz = cr_to_double(cr_body_get_linear_velocity(w, ball).z);
        if (f < 10) ENSURE(vz == 0);
        else ENSURE_NEAR(vz, 100.0 / mass, 1e-3 * 100.0 / mass);
        ENSURE(cr_body_is_valid(w, s->bodies[1].id) == (f >= 5));
        if (f >= 12) {
            ENSURE_NEAR(cr_to_double(cr_body_get_linear_velocity(w, s->bodies[1].id).x), 1.0, 1e-6);
            ENSURE_NEAR(cr_to_double(cr_body_get_angular_velocity(w, s->bodies[1].id).y), 2.0, 1e-6);
        }
        if (f == 44) ENSURE_NEAR(cr_to_double(cr_body_get_transform(w, lift).p.y), 3.0, 1e-3);
    }
    /* the lift reached its target in 25 frames and stopped there */
    ENSURE_NEAR(cr_to_double(cr_body_get_transform(w, lift).p.y), 3.0, 1e-3);
    ENSURE(cr_to_double(cr_body_get_linear_velocity(w, lift).y) == 0);
    cr_cli_world_free(w);
    cr_scene_free(s);
}

CR_TEST(scene_run_target_turns_a_kinematic_body) {
    cr_scene *s = scene_from("crumple-scene 1\ngravity 0 0 0\n"
                             "body door kinematic box 1 2 0.1 position 0 2 0\n"
                             "target 0 door 0 2 0 rotate 0 1 0 90 frames 30\n");
    ENSURE(s);
    cr_world *w = NULL;
    cr_scene_error e;
    ENSURE(cr_scene_build(s, &w, &e) == 0);
    for (int f = 0; f < 30; ++f) ENSURE(cr_scene_step(s, w, f, &e) == 0);
    cr_quat q = cr_body_get_transform(w, s->bodies[0].id).q;
    /* 90 degrees about y: (0, sin 45, 0, cos 45) */
    ENSURE_NEAR(cr_to_double(q.y), 0.70710678, 2e-3);
    ENSURE_NEAR(cr_to_double(q.w), 0.70710678, 2e-3);
    ENSURE_NEAR(cr_to_double(cr_body_get_angular_velocity(w, s->bodies[0].id).y), 3.14159265 / 2 / 0.5, 1e-3);
    cr_cli_world_free(w);
    cr_scene_free(s);
}

CR_TEST(scene_run_same_scene_same_hash) {
    uint64_t h[2];
    for (int k = 0; k < 2; ++k) {
        cr_scene *s = NULL;
        cr_scene_error e;
        ENSURE(cr_scene_load("data/scenes/example.scene", &s, &e) == 0);
        cr_world *w = NULL;
        ENSURE(cr_scene_build(s, &w, &e) == 0);
        for (int f = 0; f < 150; ++f) ENSURE(cr_scene_step(s, w, f, &e) == 0);
        h[k] = cr_world_state_hash(w);
        cr_cli_world_free(w);
        cr_scene_free(s);
    }
    ENSURE(h[0] == h[1]);
}

CR_TEST(scene_run_json_contract) {
    cr_scene *s = NULL;
    cr_scene_error e;
    ENSURE(cr_scene_load("data/scenes/example.scene", &s, &e) == 0);
    cr_world *w = NULL;
    ENSURE(cr_scene_build(s, &w, &e) == 0);
    char *text = run_json(s, w, 75);
    ENSURE(text != NULL);
    jreader r = {text, 1};
    jnode root;
    jvalue(&r, &root, 0);
    jws(&r);
    ENSURE_MSG(r.ok && *r.p == '\0', "invalid JSON near byte %d: %.40s", (int)(r.p - text), r.p);
    ENSURE(root.type == J_OBJ);

    const jnode *frames = jget(&root, "frames");
    ENSURE(frames && frames->type == J_NUM && frames->num == 75);
    const jnode *hash = jget(&root, "state_hash");
    ENSURE(hash && hash->type == J_STR && strlen(hash->str) == 16 && strspn(hash->str, "0123456789abcdef") == 16);
    char want[17];
    snprintf(want, sizeof want, "%016llx", (unsigned long long)cr_world_state_hash(w));
    ENSURE(strcmp(hash->str, want) == 0);

    const jnode *mem = jget(&root, "memory");
    const jnode *cap = jget(mem, "capacity"), *used = jget(mem, "used"), *hw = jget(mem, "high_water");
    ENSURE(cap && used && hw && cap->type == J_NUM && used->type == J_NUM && hw->type == J_NUM);
    ENSURE(used->num > 0 && used->num <= cap->num && hw->num <= cap->num && hw->num >= used->num);
    ENSURE(cap->num == (double)cr_world_memory_stats(w).capacity);

    const jnode *stats = jget(&root, "stats");
    ENSURE(stats && stats->type == J_OBJ && arrlen(stats->kids) == CR_STAGE_COUNT);
    for (int k = 0; k < CR_STAGE_COUNT; ++k) {
        const jnode *st = jget(stats, cr_stage_name((cr_stage)k));
        ENSURE_MSG(st != NULL, "stage '%s' missing from stats", cr_stage_name((cr_stage)k));
        const jnode *work = jget(st, "work"), *ovf = jget(st, "overflow"), *ms = jget(st, "time_ms");
        ENSURE(work && ovf && ms && work->type == J_NUM && ovf->type == J_NUM && ms->type == J_NUM);
        ENSURE(work->num >= 0 && ovf->num >= 0 && ms->num >= 0);
    }
    /* at least the position stage works on every moving body every frame */
    ENSURE(jget(jget(stats, "position"), "work")->num >= 75);

    const jnode *bodies = jget(&root, "bodies");
    ENSURE(bodies && bodies->type == J_ARR);
    ENSURE(arrlen(bodies->kids) == (ptrdiff_t)cr_world_get_stats(w).body_count);
    ENSURE(arrlen(bodies->kids) == 24); /* the late ball spawned at frame 60 */
    for (ptrdiff_t i = 0; i < arrlen(bodies->kids); ++i) {
        const jnode *b = &bodies->kids[i];
        const jnode *name = jget(b, "name");
        ENSURE(name && name->type == J_STR);
        ENSURE(jnum_array(jget(b, "position"), 3) && jnum_array(jget(b, "orientation"), 4));
        ENSURE(jnum_array(jget(b, "linear_velocity"), 3) && jnum_array(jget(b, "angular_velocity"), 3));
        int32_t k = cr_scene_find_body(s, name->str);
        ENSURE_MSG(k >= 0, "JSON names an unknown body '%s'", name->str);
        cr_transform t = cr_body_get_transform(w, s->bodies[k].id);
        const jnode *p = jget(b, "position");
        ENSURE_NEAR(p->kids[1].num, cr_to_double(t.p.y), 1e-6 * (1 + fabs(cr_to_double(t.p.y))));
        const jnode *q = jget(b, "orientation");
        ENSURE_NEAR(q->kids[3].num, cr_to_double(t.q.w), 1e-6);
    }
    jfree(&root);
    free(text);
    cr_cli_world_free(w);
    cr_scene_free(s);
}

CR_TEST(scene_run_json_escapes_and_stays_valid) {
    /* a scene path with quotes and a backslash must still give valid JSON */
    cr_scene *s = NULL;
    cr_scene_error e;
    const char *text = "crumple-scene 1\nbody b dynamic sphere 1\n";
    ENSURE(cr_scene_parse(text, strlen(text), "odd \"name\"\\x.scene", &s, &e) == 0);
    cr_world *w = NULL;
    ENSURE(cr_scene_build(s, &w, &e) == 0);
    char *json = run_json(s, w, 2);
    jreader r = {json, 1};
    jnode root;
    jvalue(&r, &root, 0);
    jws(&r);
    ENSURE(r.ok && *r.p == '\0');
    ENSURE(strcmp(jget(&root, "scene")->str, "odd \"name\"\\x.scene") == 0);
    jfree(&root);
    free(json);
    cr_cli_world_free(w);
    cr_scene_free(s);
}

CR_TEST(scene_run_command_exit_codes) {
    char *a1[] = {"run"};
    ENSURE(cr_cmd_run(1, a1) == 2);
    char *a2[] = {"run", "data/scenes/example.scene", "--frames", "ten"};
    ENSURE(cr_cmd_run(4, a2) == 2);
    char *a3[] = {"run", "data/scenes/example.scene", "--colour"};
    ENSURE(cr_cmd_run(3, a3) == 2);
    char *a4[] = {"run", "data/scenes/no-such.scene"};
    ENSURE(cr_cmd_run(2, a4) == 1);
}

CR_TEST(scene_run_joint_reaches_the_world) {
    /* the example's pendulum: a point joint keeps the bob 1.5 m from its anchor while it swings */
    cr_scene *s = NULL;
    cr_scene_error e;
    ENSURE(cr_scene_load("data/scenes/example.scene", &s, &e) == 0);
    cr_world *w = NULL;
    ENSURE(cr_scene_build(s, &w, &e) == 0);
    ENSURE(cr_world_get_joint_count(w) == 1 && cr_joint_is_valid(w, s->joints[0].id));
    cr_body_id bob = s->bodies[cr_scene_find_body(s, "bob")].id;
    double worst = 0, lowest = 1e9;
    for (int f = 0; f < 120; ++f) {
        ENSURE(cr_scene_step(s, w, f, &e) == 0);
        cr_vec3 p = cr_body_get_transform(w, bob).p;
        double dx = cr_to_double(p.x) - 3, dy = cr_to_double(p.y) - 3, dz = cr_to_double(p.z) - 2;
        worst = fmax(worst, fabs(sqrt(dx * dx + dy * dy + dz * dz) - 1.5));
        lowest = fmin(lowest, cr_to_double(p.y));
    }
    cr_test_printf("  pendulum: length held to %.3g m, swung down to y = %.3f m\n", worst, lowest);
    ENSURE(worst < 0.01);
    ENSURE(lowest < 1.6); /* it swung: the bottom of the arc is y = 1.5 */
    cr_cli_world_free(w);
    cr_scene_free(s);
}

CR_TEST(scene_bench_prints_its_json_line) {
    FILE *tmp = tmpfile();
    ENSURE(tmp != NULL);
    ENSURE(cr_bench_scene(tmp, "stack", "data/scenes/stack.scene", 30) == 0);
    long n = ftell(tmp);
    rewind(tmp);
    char *text = calloc(1, (size_t)n + 1);
    ENSURE(fread(text, 1, (size_t)n, tmp) == (size_t)n);
    fclose(tmp);
    ENSURE(n > 0 && text[n - 1] == '\n' && strchr(text, '\n') == text + n - 1); /* one line */
    jreader r = {text, 1};
    jnode root;
    jvalue(&r, &root, 0);
    jws(&r);
    ENSURE(r.ok && *r.p == '\0' && root.type == J_OBJ);
    const jnode *sc = jget(&root, "scene"), *steps = jget(&root, "steps"), *bodies = jget(&root, "bodies");
    ENSURE(sc && steps && bodies && sc->type == J_STR && strcmp(sc->str, "stack") == 0);
    ENSURE(steps->num == 30 && bodies->num == 11);
    const jnode *median = jget(&root, "median_ms"), *max = jget(&root, "max_ms");
    ENSURE(median && max && median->type == J_NUM && max->type == J_NUM);
    ENSURE(median->num > 0 && max->num >= median->num);
    const jnode *hash = jget(&root, "state_hash");
    ENSURE(hash && hash->type == J_STR && strlen(hash->str) == 16);
    jfree(&root);
    free(text);
    /* a missing scene is an error, not a line of zeros */
    tmp = tmpfile();
    ENSURE(cr_bench_scene(tmp, "none", "data/scenes/none.scene", 5) == 1 && ftell(tmp) == 0);
    fclose(tmp);
}

static char *summary_of(const cr_scene *s, const cr_world *w) {
    cr_run_stats rs;
    memset(&rs, 0, sizeof rs);
    return run_output(cr_run_write_summary, s, w, &rs);
}

/* issue 28: fracture_wall's --json listed 5 bodies where the world had 17
 * (the wall's pieces were missing) and nothing said it broke. Every body at
 * the end is in "bodies" (a piece as "wall/piece I", at its body's pose),
 * "fractures" says when the wall split and into how many pieces, and the
 * summary says the same step, time and count. */
CR_TEST(scene_run_fracture_in_json_and_summary) {
    cr_scene *s = NULL;
    cr_scene_error e;
    ENSURE(cr_scene_load("data/scenes/fracture_wall.scene", &s, &e) == 0);
    cr_world *w = NULL;
    ENSURE(cr_scene_build(s, &w, &e) == 0);
    char *text = run_json(s, w, s->frames);
    ENSURE(text != NULL);
    jreader r = {text, 1};
    jnode root;
    jvalue(&r, &root, 0);
    jws(&r);
    ENSURE_MSG(r.ok && *r.p == '\0', "invalid JSON near byte %d: %.40s", (int)(r.p - text), r.p);

    const jnode *bodies = jget(&root, "bodies");
    uint32_t in_world = cr_world_get_stats(w).body_count;
    ENSURE(bodies && bodies->type == J_ARR);
    ENSURE_MSG(arrlen(bodies->kids) == (ptrdiff_t)in_world, "%d bodies in the JSON, %u in the world", (int)arrlen(bodies->kids),
               in_world);
    cr_body_id wall = s->bodies[cr_scene_find_body(s, "wall")].id;
    int pieces = 0;
    for (ptrdiff_t i = 0; i < arrlen(bodies->kids); ++i) {
        const jnode *b = &bodies->kids[i];
        unsigned k;
        if (sscanf(jget(b, "name")->str, "wall/piece %u", &k) != 1) continue;
        ++pieces;
        const jnode *of = jget(b, "piece_of"), *piece = jget(b, "piece");
        ENSURE(of && strcmp(of->str, "wall") == 0 && piece && piece->num == k);
        cr_transform t = cr_body_get_transform(w, cr_fracture_get_piece_body(w, wall, k));
        const jnode *p = jget(b, "position");
        ENSURE(jnum_array(p, 3));
        ENSURE_NEAR(p->kids[0].num, cr_to_double(t.p.x), 1e-6 * (1 + fabs(cr_to_double(t.p.x))));
        ENSURE_NEAR(p->kids[2].num, cr_to_double(t.p.z), 1e-6 * (1 + fabs(cr_to_double(t.p.z))));
    }
    ENSURE_MSG(pieces == 12, "%d wall pieces in the JSON (want 12)", pieces);

    const jnode *fr = jget(&root, "fractures");
    ENSURE(fr && fr->type == J_ARR && arrlen(fr->kids) == 1);
    const jnode *f = &fr->kids[0];
    ENSURE(strcmp(jget(f, "body")->str, "wall") == 0 && jget(f, "whole")->type == J_BOOL && jget(f, "whole")->num == 0);
    int stepno = (int)jget(f, "step")->num;
    ENSURE_MSG(stepno > 80 && stepno <= s->frames, "broke at step %d (the third ball is launched at frame 80)", stepno);
    ENSURE_NEAR(jget(f, "time")->num, stepno * cr_to_double(s->dt), 1e-6);
    ENSURE(jget(f, "pieces")->num == 12 && jget(f, "moving")->num + jget(f, "held")->num == 12 && jget(f, "moving")->num > 0);
    ENSURE(jget(f, "bonds_broken")->num > 0 && jget(f, "bonds_broken")->num <= jget(f, "bonds")->num);

    char *sum = summary_of(s, w);
    ENSURE(sum != NULL);
    char want[160];
    snprintf(want, sizeof want, "\nbodies       %u\n", in_world);
    ENSURE_MSG(strstr(sum, want) != NULL, "%s", sum);
    snprintf(want, sizeof want, "\nfracture     wall: broke at step %d (t %.3f s) into 12 pieces (%d moving, %d held), %d of %d bonds broken\n",
             stepno, jget(f, "time")->num, (int)jget(f, "moving")->num, (int)jget(f, "held")->num, (int)jget(f, "bonds_broken")->num,
             (int)jget(f, "bonds")->num);
    ENSURE_MSG(strstr(sum, want) != NULL, "no line '%s' in\n%s", want + 1, sum);
    cr_test_printf("    %s", strstr(sum, "fracture     "));
    free(sum);
    jfree(&root);
    free(text);
    cr_cli_world_free(w);
    cr_scene_free(s);
}
