/* cmd_bench.c — `crumple bench`: milliseconds per step of the shipped scenes.
 *
 *     crumple bench                     pile, rings and terrain, 600 steps each
 *     crumple bench stack pile --steps 120
 *     crumple bench data/scenes/my.scene
 *     crumple bench cook                the cooker's benchmark
 *     crumple bench example             what plasticity adds to the plastic scenes' rigid step
 *     crumple bench fracture            prescoring and the split's cost
 *     crumple bench soft                issue 16's soft pile (make bench-soft: beside Bullet's)
 *     crumple bench frames              every step of every shipped scene against issue 25's frame budget
 *     crumple bench calibrate           fits the damage budget's cost tables (ps per item) from the scenes' steps
 *     crumple bench queries             rays and overlaps into the peer pile and rings (make bench-queries)
 *   (the dent-map and re-skin benchmarks time internal stages, which tools
 *   may not reach: they are tests/bench/, `make bench-stages`)
 *
 * Each scene is loaded and built exactly as `crumple run` does (tools/scene_*.c),
 * then stepped at dt = 1/60 s by cr_scene_run, which times every frame on
 * the host's monotonic clock. One JSON object per scene, one per line:
 *
 *     {"scene":"pile","steps":600,"median_ms":2.1,"max_ms":3.4,"mean_ms":2.2,"bodies":1000,...}
 *
 * Notes
 *   - Building the world (and cooking .obj assets into the cache on first
 *     use) is not timed: the numbers are the per-frame cost a game pays.
 *   - The median is the headline (robust to a descheduled step); the max says
 *     what the worst frame cost, which is what a frame budget cares about.
 *   - The state hash is printed too, so a faster change that alters the
 *     simulation is visible next to its timing.
 *   - Wall time is what a game sees, but on a shared machine it includes
 *     time spent waiting for a core; cpu_median_ms / cpu_max_ms (C clock(),
 *     this process's CPU time) say what the step itself cost.
 *   - `--poses` (used by `make bench-peers`, tests/peers/) adds the final pose
 *     of every scene body ("poses": [x,y,z,qx,qy,qz,qw] each, in the mesh's own
 *     frame for mesh bodies, so a torus's axis is its file's y) and "max_rise",
 *     the largest rise of any dynamic body's centre above its starting height
 *     over the run: what the peer table compares. Reading them is outside the
 *     timed step. `--sleep on|off` overrides the world's sleeping (the peer
 *     table runs the stack awake).
 */
#include "cli.h"
#include "scene.h"
#include "stb_ds.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const default_scenes[] = {"pile", "rings", "terrain"};

static void bench_usage(FILE *out) {
    fprintf(out, "usage: crumple bench [SCENE...] [--steps N] [--scenes DIR] [--json] [--poses] [--sleep on|off]\n"
                 "       crumple bench cook [--res N] [--bones auto:N] [MESH.obj]   (the cooker's benchmark)\n"
                 "       crumple bench example [--rounds N]   (what plasticity adds to the rigid step of example_pachinko and example_car)\n"
                 "       crumple bench fracture [options]   (prescoring 1000 pieces, a resting and a breaking body)\n"
                 "       crumple bench soft [options]   (the soft pile, timed; make bench-soft runs Bullet's beside it)\n"
                 "       crumple bench frames [SCENE...] [options]   (every step of every shipped scene: p50/p99/worst, damage, latency)\n"
                 "       crumple bench calibrate [SCENE...] [options]   (fits the damage cost tables, ps per item, from the scenes' steps)\n"
                 "       crumple bench queries [options]   (rays and overlaps into the peer pile and rings; make bench-queries runs Bullet's beside it)\n"
                 "  Steps each scene (default: pile rings terrain) N times (default 600) at 1/60 s\n"
                 "  and prints one JSON object per scene: median and max ms per step.\n"
                 "  A SCENE is a name in DIR (default data/scenes) or a path to a .scene file.\n"
                 "  --steps N       steps per scene (also --frames N)\n"
                 "  --scenes DIR    where scene names are looked up (default data/scenes)\n"
                 "  --json          accepted for scripts: the output is always JSON\n"
                 "  --poses         also print every body's final pose (mesh bodies in their OBJ's frame)\n"
                 "  --sleep on|off  override the scenes' sleep setting\n"
                 "  The stage benchmarks (dent, skin, bend, squash: internal stages timed alone) are\n"
                 "  build/bin/crumple_stage_bench NAME from `make bench-stages-bin`; `crumple bench cook --help`.\n");
}

int cr_bench_cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double cr_bench_median(const double *sorted, int32_t n) {
    if (n <= 0) return 0;
    return n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
}

long cr_bench_count(int argc, char **argv, int i, long max) {
    char *end = NULL;
    long v = i + 1 < argc ? strtol(argv[i + 1], &end, 10) : -1;
    if (i + 1 >= argc || end == argv[i + 1] || *end != '\0' || v < 1 || v > max) return -1;
    return v;
}

int cr_bench_scene_path(const char *dir, const char *name, char path[CR_SCENE_PATH_MAX], char label[CR_SCENE_NAME_MAX]) {
    size_t len = strlen(name);
    int written;
    if (len > 6 && strcmp(name + len - 6, ".scene") == 0) {
        written = snprintf(path, CR_SCENE_PATH_MAX, "%s", name);
        const char *base = strrchr(name, '/');
        base = base ? base + 1 : name;
        snprintf(label, CR_SCENE_NAME_MAX, "%.*s", (int)(strlen(base) - 6), base);
    } else {
        written = snprintf(path, CR_SCENE_PATH_MAX, "%s/%s.scene", dir, name);
        snprintf(label, CR_SCENE_NAME_MAX, "%s", name);
    }
    for (char *c = label; *c; ++c)
        if (*c == '"' || *c == '\\' || (unsigned char)*c < 0x20) *c = '_'; /* keep the JSON valid */
    return written < 0 || written >= CR_SCENE_PATH_MAX ? -1 : 0;
}

/* Where a scene body is, for the peer comparison: mesh bodies in their file's
 * frame (x_body = q·x_mesh + p, so the mesh frame is body ∘ mesh_to_body). */
static cr_transform bench_pose(const cr_scene *s, const cr_world *w, ptrdiff_t i) {
    cr_transform t = cr_body_get_transform(w, s->bodies[i].id);
    if (s->bodies[i].asset >= 0) {
        cr_transform m = s->assets[s->bodies[i].asset].view_->mesh_to_body;
        t.p = cr_v3_add(t.p, cr_quat_rotate(t.q, m.p));
        t.q = cr_quat_mul(t.q, m.q);
    }
    return t;
}

typedef struct bench_frames {
    double *ms, *cpu;  /* per frame */
    uint64_t *overflow;
    double *start_y;   /* stb_ds; NULL without poses */
    double *max_rise;
} bench_frames;

/* cr_scene_run's per-frame hook: the frame's times, overflow and rise */
static int bench_frame(void *user, cr_scene *s, cr_world *w, const cr_scene_frame *fr) {
    bench_frames *b = user;
    b->ms[fr->frame] = fr->ms;
    b->cpu[fr->frame] = fr->cpu_ms;
    for (int k = 0; k < CR_STAGE_COUNT; ++k) *b->overflow += fr->stats.stage[k].overflow;
    if (b->start_y)
        for (ptrdiff_t i = 0; i < arrlen(s->bodies); ++i) {
            if (cr_body_id_is_null(s->bodies[i].id) || s->bodies[i].def.type != CR_BODY_DYNAMIC) continue;
            double rise = cr_to_double(bench_pose(s, w, i).p.y) - b->start_y[i];
            if (rise > *b->max_rise) *b->max_rise = rise;
        }
    return 0;
}

/* sleep: 1 on, 0 off, -1 as the scene says */
static int bench_scene(FILE *out, const char *name, const char *path, int32_t steps, bool poses, int sleep) {
    cr_scene *s = NULL;
    cr_scene_error err;
    if (cr_scene_load(path, &s, &err)) {
        cr_scene_error_print(stderr, &err);
        return 1;
    }
    s->dt = cr_scene_real_from_double(1.0 / 60.0);
    if (sleep >= 0) s->def.sleep = sleep != 0;
    cr_world *w = NULL;
    if (cr_scene_build(s, &w, &err)) {
        cr_scene_error_print(stderr, &err);
        cr_scene_free(s);
        return 1;
    }
    double *ms = malloc(sizeof(double) * (size_t)(steps > 0 ? steps : 1));
    double *cpu = malloc(sizeof(double) * (size_t)(steps > 0 ? steps : 1));
    uint64_t overflow = 0;
    int rc = 0;
    double max_rise = 0;
    double *start_y = NULL; /* stb_ds; only with poses */
    if (poses)
        for (ptrdiff_t i = 0; i < arrlen(s->bodies); ++i)
            arrput(start_y, cr_body_id_is_null(s->bodies[i].id) ? 0.0 : cr_to_double(bench_pose(s, w, i).p.y));
    bench_frames b = {ms, cpu, &overflow, poses ? start_y : NULL, &max_rise};
    cr_scene_loop loop = {.from = 0, .to = steps, .each = bench_frame, .user = &b};
    if (cr_scene_run(s, w, &loop, &err)) {
        cr_scene_error_print(stderr, &err);
        rc = 1;
    }
    if (rc == 0) {
        double total = 0;
        for (int32_t f = 0; f < steps; ++f) total += ms[f];
        qsort(ms, (size_t)steps, sizeof ms[0], cr_bench_cmp_double);
        qsort(cpu, (size_t)steps, sizeof cpu[0], cr_bench_cmp_double);
        double median = cr_bench_median(ms, steps);
        double max = steps == 0 ? 0 : ms[steps - 1];
        double cpu_median = cr_bench_median(cpu, steps);
        double cpu_max = steps == 0 ? 0 : cpu[steps - 1];
        cr_memory_stats m = cr_world_memory_stats(w);
        fprintf(out, "{\"scene\":\"%s\",\"steps\":%d,\"median_ms\":%.4f,\"max_ms\":%.4f,\"mean_ms\":%.4f,\"cpu_median_ms\":%.4f,"
               "\"cpu_max_ms\":%.4f,\"bodies\":%u,\"overflow\":%llu,\"memory_bytes\":%zu,\"mode\":\"%s\","
               "\"state_hash\":\"%016llx\"",
               name, (int)steps, median, max, steps ? total / steps : 0.0, cpu_median, cpu_max, cr_world_get_stats(w).body_count,
               (unsigned long long)overflow, m.capacity, CR_MODE_NAME, (unsigned long long)cr_world_state_hash(w));
        if (poses) {
            fprintf(out, ",\"max_rise\":%.9g,\"poses\":[", max_rise);
            for (ptrdiff_t i = 0; i < arrlen(s->bodies); ++i) {
                cr_transform t = cr_body_id_is_null(s->bodies[i].id) ? (cr_transform){cr_v3(0, 0, 0), {0, 0, 0, CR_R(1)}} : bench_pose(s, w, i);
                fprintf(out, "%s[%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g]", i ? "," : "", cr_to_double(t.p.x),
                        cr_to_double(t.p.y), cr_to_double(t.p.z), cr_to_double(t.q.x), cr_to_double(t.q.y),
                        cr_to_double(t.q.z), cr_to_double(t.q.w));
            }
            fprintf(out, "]");
        }
        fprintf(out, "}\n");
        fflush(out);
    }
    free(ms);
    free(cpu);
    arrfree(start_y);
    cr_cli_world_free(w);
    cr_scene_free(s);
    return rc;
}

int cr_bench_scene(FILE *out, const char *name, const char *path, int32_t steps) {
    return bench_scene(out, name, path, steps, false, -1);
}

/* Benchmarks of other parts, by name: `crumple bench cook` and so on. */
static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
} sub_benches[] = {
    {"cook", cr_bench_cook}, /* tools/bench_cook.c */
    {"calibrate", cr_bench_calibrate}, /* tools/bench_calibrate.c */
    {"example", cr_bench_plastic}, /* tools/bench_plastic.c */
    {"fracture", cr_bench_fracture}, /* tools/bench_fracture.c */
    {"frames", cr_bench_frames}, /* tools/bench_frames.c */
    {"soft", cr_bench_soft}, /* tools/bench_soft.c */
    {"queries", cr_bench_queries}, /* tools/bench_queries.c */
};

/* The stage benchmarks time internal functions the crumple command may not
 * reach (tests/bench/stage_bench.h): their names here say where they are,
 * rather than being looked up as scenes that do not exist. */
static const char *const stage_benches[] = {"dent", "skin", "bend", "squash"};

int cr_cmd_bench(int argc, char **argv) {
    if (argc >= 2)
        for (size_t i = 0; i < sizeof sub_benches / sizeof sub_benches[0]; ++i)
            if (strcmp(argv[1], sub_benches[i].name) == 0) return sub_benches[i].run(argc - 1, argv + 1);
    if (argc >= 2)
        for (size_t i = 0; i < sizeof stage_benches / sizeof stage_benches[0]; ++i)
            if (strcmp(argv[1], stage_benches[i]) == 0) {
                fprintf(stderr,
                        "crumple bench %s: a stage benchmark, which times the runtime's internal functions and so is "
                        "built apart: run `make bench-stages-bin && build/bin/crumple_stage_bench %s` (or `make "
                        "bench-stages` for all of them)\n",
                        argv[1], argv[1]);
                return 2;
            }
    int32_t steps = 600;
    const char *dir = "data/scenes";
    const char **names = NULL; /* stb_ds */
    bool poses = false;
    int sleep = -1;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            bench_usage(stdout);
            arrfree(names);
            return 0;
        } else if (strcmp(a, "--steps") == 0 || strcmp(a, "--frames") == 0) {
            long v = cr_bench_count(argc, argv, i, 1000000);
            if (v < 0) {
                fprintf(stderr, "crumple bench: %s needs a number in 1..1000000\n", a);
                arrfree(names);
                return 2;
            }
            steps = (int32_t)v;
            ++i;
        } else if (strcmp(a, "--scenes") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "crumple bench: --scenes needs a folder\n");
                arrfree(names);
                return 2;
            }
            dir = argv[++i];
        } else if (strcmp(a, "--sleep") == 0) {
            if (i + 1 >= argc || (strcmp(argv[i + 1], "on") != 0 && strcmp(argv[i + 1], "off") != 0)) {
                fprintf(stderr, "crumple bench: --sleep needs on or off\n");
                arrfree(names);
                return 2;
            }
            sleep = strcmp(argv[++i], "on") == 0;
        } else if (strcmp(a, "--poses") == 0) {
            poses = true;
        } else if (strcmp(a, "--json") == 0) {
            /* the output is always JSON; accepted so scripts can say so */
        } else if (a[0] == '-') {
            fprintf(stderr, "crumple bench: unknown option '%s'\n", a);
            bench_usage(stderr);
            arrfree(names);
            return 2;
        } else {
            arrput(names, a);
        }
    }
    if (arrlen(names) == 0)
        for (size_t i = 0; i < sizeof default_scenes / sizeof default_scenes[0]; ++i) arrput(names, default_scenes[i]);
    int rc = 0;
    for (ptrdiff_t i = 0; i < arrlen(names); ++i) {
        char path[CR_SCENE_PATH_MAX], label[CR_SCENE_NAME_MAX];
        if (cr_bench_scene_path(dir, names[i], path, label)) {
            fprintf(stderr, "crumple bench: scene path too long: %s\n", names[i]);
            rc = 2;
            continue;
        }
        if (bench_scene(stdout, label, path, steps, poses, sleep)) rc = 1;
    }
    arrfree(names);
    return rc;
}
