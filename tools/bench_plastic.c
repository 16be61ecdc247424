/* bench_plastic.c — `crumple bench example [--json] [--rounds N] [--scenes DIR]`:
 * what example-based plasticity (issue 13, seed 001) adds to the rigid step.
 *
 * The two shipped plastic scenes, example_pachinko (six barrels through a
 * board of pegs: the target scene, at most +15 %) and example_car (a
 * car flattened by a bigger one), are each run whole `rounds` times through
 * the tools' frame loop. Per round the damage stage's time is set against the
 * sum of every other stage's (the rigid step: broadphase, narrowphase,
 * solver, events); the median round is reported. Seed 001's Table 2 has the
 * plasticity adding 42-59 % to its rigid step. Public API only: the stage
 * times are the world's own stats (the scene build gives it a clock); the
 * stage's insides are timed by `make bench-stages` (tests/bench/).
 */
#include "cli.h"
#include "scene.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct plastic_round {
    double rigid_ms, damage_ms, added; /* per step, per step, damage / rigid */
    int32_t frames;
} plastic_round;

static int cmp_round(const void *a, const void *b) {
    return cr_bench_cmp_double(&((const plastic_round *)a)->added, &((const plastic_round *)b)->added);
}

/* One whole run of a scene; 0, or 1 after printing the error. */
static int run_once(const char *path, plastic_round *out) {
    cr_scene *s = NULL;
    cr_scene_error err;
    if (cr_scene_load(path, &s, &err)) {
        cr_scene_error_print(stderr, &err);
        return 1;
    }
    cr_world *w = NULL;
    if (cr_scene_build(s, &w, &err)) {
        cr_scene_error_print(stderr, &err);
        cr_scene_free(s);
        return 1;
    }
    cr_run_stats rs;
    memset(&rs, 0, sizeof rs);
    cr_scene_loop loop = {.from = 0, .to = s->frames, .stats = &rs, .each = NULL, .user = NULL};
    int rc = cr_scene_run(s, w, &loop, &err);
    if (rc < 0) cr_scene_error_print(stderr, &err);
    double rigid = 0, damage = 0;
    for (int k = 0; k < CR_STAGE_COUNT; ++k) {
        double ms = (double)rs.total[k].time_ns * 1e-6;
        if (k == CR_STAGE_damage) damage += ms;
        else rigid += ms;
    }
    int32_t n = rs.frames > 0 ? rs.frames : 1;
    out->frames = rs.frames;
    out->rigid_ms = rigid / n, out->damage_ms = damage / n;
    out->added = rigid > 0 ? damage / rigid : 0;
    cr_cli_world_free(w);
    cr_scene_free(s);
    return rc != 0;
}

int cr_bench_plastic(int argc, char **argv) {
    int json = 0, rounds = 5;
    const char *dir = "data/scenes";
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("usage: crumple bench example [--json] [--rounds N] [--scenes DIR]\n"
                   "  Runs example_pachinko and example_car whole N times (default 5) and prints, for the\n"
                   "  median run, the rigid step (every stage but damage) and the damage stage in ms per step\n"
                   "  and the damage stage's time over the rigid step's.\n");
            return 0;
        }
        if (strcmp(argv[i], "--json") == 0) json = 1;
        else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) rounds = atoi(argv[++i]);
        else if (strcmp(argv[i], "--scenes") == 0 && i + 1 < argc) dir = argv[++i];
        else {
            fprintf(stderr, "usage: crumple bench example [--json] [--rounds N] [--scenes DIR]\n");
            return 2;
        }
    }
    if (rounds < 1 || rounds > 1000) {
        fprintf(stderr, "crumple bench example: --rounds must be 1..1000\n");
        return 2;
    }
    static const char *const scenes[] = {"example_pachinko", "example_car"};
    plastic_round *r = calloc((size_t)rounds, sizeof *r);
    if (r == NULL) return 1;
    if (!json) printf("%-18s %8s %12s %12s %10s   (median of %d runs; seed 001 Table 2: +42-59 %%; target +15 %% on pachinko)\n",
                      "scene", "frames", "rigid ms", "damage ms", "added", rounds);
    for (size_t k = 0; k < sizeof scenes / sizeof scenes[0]; ++k) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s.scene", dir, scenes[k]);
        for (int i = 0; i < rounds; ++i)
            if (run_once(path, &r[i])) {
                free(r);
                return 1;
            }
        qsort(r, (size_t)rounds, sizeof *r, cmp_round);
        const plastic_round *m = &r[rounds / 2];
        if (json)
            printf("{\"scene\": \"%s\", \"frames\": %d, \"rounds\": %d, \"rigid_ms_per_step\": %.6f, \"damage_ms_per_step\": %.6f, "
                   "\"added_percent\": %.2f, \"min_added_percent\": %.2f, \"max_added_percent\": %.2f}\n",
                   scenes[k], m->frames, rounds, m->rigid_ms, m->damage_ms, 100 * m->added, 100 * r[0].added,
                   100 * r[rounds - 1].added);
        else
            printf("%-18s %8d %12.4f %12.4f %9.1f %%   (runs %.1f-%.1f %%)\n", scenes[k], m->frames, m->rigid_ms, m->damage_ms,
                   100 * m->added, 100 * r[0].added, 100 * r[rounds - 1].added);
    }
    free(r);
    return 0;
}
