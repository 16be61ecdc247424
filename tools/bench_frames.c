/* bench_frames.c — `crumple bench frames`: every step of every shipped scene
 * against issue 25's frame budget (docs/frame-budget.md).
 *
 *     crumple bench frames                       every .scene file in DIR (default data/scenes), sorted by name
 *     crumple bench frames demo dent_symmetric   only these (names in DIR, or paths to .scene files)
 *     crumple bench frames demo --steps 60 --repeat 1 --json
 *     make bench-frames                          the float and the fixed tool, one table each
 *
 * Each scene is loaded, built and stepped exactly as `crumple run` steps it
 * (cr_scene_load, cr_scene_build, cr_scene_run: its own dt, its own frame
 * count unless --steps says otherwise), in this binary's scalar mode. Per
 * step it keeps the wall and CPU time, the damage stage's time and work
 * units (the scene build installs the clock hook that times the stages), and
 * per damage model (dent, example, bend, squash, fracture, custom) the
 * changes committed in the step, their latency in steps from impact to
 * commit, the work units spent and the work waiting.
 *
 * Per scene it reports the p50, p99 and worst step (wall ms), worst / p50
 * (the "demo worst step <= 3x its median", for every scene), the
 * worst step's damage ms, the worst damage ms of any step, the largest damage
 * work of a step, and per model the changes committed with their worst and
 * mean latency. Human table by default; --json prints one object per scene
 * per line instead.
 *
 * Notes
 *   - Noise: the machine is shared, and a step that lost its core for a
 *     moment looks like a stall. The runs are deterministic, so step i is
 *     the same work in every repeat: the scene is run R times (--repeat,
 *     default 3) and each step's times are the minimum over the repeats.
 *     Wall, CPU and damage time are minimised each on its own, so the worst
 *     step's damage ms is that step's best damage time, not necessarily
 *     from the repeat that gave its best wall time.
 *   - Determinism is checked, not assumed: the state hash after the last
 *     step and every step's work counts must be identical across repeats,
 *     or the scene fails (exit 1) saying which repeat differed; taking the
 *     minimum over different work would be meaningless.
 *   - `--clock cpu` times the stages (so the damage ms) on this process's
 *     CPU clock (crp_cpu_clock_ns, CLOCK_PROCESS_CPUTIME_ID) instead of the monotonic wall
 *     clock the scene build installs: on a loaded machine the wall clock
 *     also counts the time a long step waited for a core, which the
 *     minimum over repeats cannot remove from a step longer than the
 *     scheduler's slice. The step's own wall and CPU ms are kept either way.
 *   - p99 is the nearest rank (the ceil(0.99 n)-th fastest step), so in a
 *     scene of fewer than 100 steps it is the worst step.
 *   - Latency mean is latency_sum / committed over the run; "-" (JSON null)
 *     when the model committed nothing. Until the runtime fills the
 *     committed and latency fields they read 0, and are printed anyway.
 *   - Work units are what the damage budget charged: ns of the reference
 *     core at cr_damage_def.costs (world.h), deterministic, so the same on
 *     every machine; set them against "damage_budget" in the JSON.
 *   - Building the world (and cooking .obj assets on first use) is not
 *     timed, as in `crumple bench`.
 */
#include "cli.h"
#include "scene.h"
#include "stb_ds.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A model's deterministic counts of one step. */
typedef struct frames_model_step {
    uint32_t committed, latency_max, latency_sum, work, waiting;
} frames_model_step;

/* One step: times (minimised over repeats) and counts (equal in every repeat). */
typedef struct frames_step {
    double ms, cpu_ms, damage_ms;
    uint32_t damage_work;
    frames_model_step model[CR_BENCH_MODEL_COUNT];
} frames_step;

typedef struct frames_opts {
    int32_t steps; /* 0: the scene's own frame count */
    int repeat;
    bool json;
    bool cpu_clock; /* stages timed on the process CPU clock */
} frames_opts;

/* What a model did over the run. */
typedef struct frames_model_sum {
    uint64_t committed, latency_sum, work;
    uint32_t latency_max, work_max, waiting_max;
} frames_model_sum;

/* cr_scene_run's per-frame hook: the frame's row of the current repeat. */
static int frames_record(void *user, cr_scene *s, cr_world *w, const cr_scene_frame *fr) {
    (void)s, (void)w;
    frames_step *st = (frames_step *)user + fr->frame;
    st->ms = fr->ms;
    st->cpu_ms = fr->cpu_ms;
    st->damage_ms = (double)fr->stats.stage[CR_STAGE_damage].time_ns * 1e-6;
    st->damage_work = fr->stats.stage[CR_STAGE_damage].work;
    for (int m = 0; m < CR_BENCH_MODEL_COUNT; ++m) {
        const cr_model_stats *ms = cr_bench_model_stats(&fr->stats, m);
        st->model[m] = (frames_model_step){ms->committed, ms->latency_max, ms->latency_sum, ms->work, ms->waiting};
    }
    return 0;
}

/* One whole run into rows[0 .. *steps) (allocated here, free()); the hash
 * after the last step. 0, or 1 after printing the error. */
static int frames_run(const char *path, const frames_opts *o, frames_step **rows, int32_t *steps, uint64_t *hash,
                      double *dt, uint32_t *budget) {
    cr_bench_run r = {.cpu_clock = o->cpu_clock, .steps = o->steps, .row_size = sizeof **rows, .each = frames_record};
    int rc = cr_bench_run_scene("crumple bench frames", path, &r);
    *rows = r.rows, *steps = r.steps, *hash = r.hash, *dt = r.dt, *budget = r.budget;
    return rc;
}

static bool frames_counts_equal(const frames_step *a, const frames_step *b) {
    return a->damage_work == b->damage_work && memcmp(a->model, b->model, sizeof a->model) == 0;
}

/* The ceil(q n)-th smallest of n sorted values. */
static double frames_rank(const double *sorted, int32_t n, double q) {
    if (n <= 0) return 0;
    int32_t k = (int32_t)(q * n);
    if ((double)k < q * n) ++k;
    return sorted[k < 1 ? 0 : k - 1];
}

static void frames_json_latency_mean(FILE *out, const frames_model_sum *m) {
    if (m->committed) fprintf(out, "%.3f", (double)m->latency_sum / (double)m->committed);
    else fprintf(out, "null");
}

static void frames_table_header(FILE *out, const frames_opts *o) {
    fprintf(out, "crumple bench frames: %s, each step's time the minimum of %d repeat%s, %s, damage timed on the %s clock\n",
            CR_MODE_NAME, o->repeat, o->repeat == 1 ? "" : "s", o->steps > 0 ? "--steps given" : "each scene's own frames and dt",
            o->cpu_clock ? "CPU" : "wall");
    fprintf(out, "%-20s %6s %8s %8s %9s %6s %9s %10s %10s %12s %12s %13s  %s\n", "scene", "steps", "p50 ms", "p99 ms",
            "worst ms", "@step", "worst/p50", "cpu p50 ms", "cpu max ms", "dmg@worst ms", "dmg worst ms", "dmg max units",
            "per model: committed, latency worst/mean (steps), max units/step, max waiting");
}

/* One scene: R runs, per-step minimum, the row. 0, or 1 after printing the error. */
static int frames_scene(FILE *out, const char *label, const char *path, const frames_opts *o) {
    frames_step *best = NULL, *cur = NULL;
    int32_t steps = 0, cur_steps = 0;
    uint64_t hash = 0, cur_hash = 0;
    double dt = 0;
    uint32_t budget = 0;
    if (frames_run(path, o, &best, &steps, &hash, &dt, &budget)) {
        free(best);
        return 1;
    }
    for (int r = 1; r < o->repeat; ++r) {
        if (frames_run(path, o, &cur, &cur_steps, &cur_hash, &dt, &budget)) {
            free(best);
            free(cur);
            return 1;
        }
        if (cur_hash != hash) {
            fprintf(stderr,
                    "crumple bench frames: %s: NOT DETERMINISTIC: state hash %016llx in repeat 1, %016llx in repeat %d "
                    "(same scene, same build, same steps)\n",
                    label, (unsigned long long)hash, (unsigned long long)cur_hash, r + 1);
            free(best);
            free(cur);
            return 1;
        }
        for (int32_t i = 0; i < steps; ++i) {
            if (!frames_counts_equal(&best[i], &cur[i])) {
                fprintf(stderr, "crumple bench frames: %s: NOT DETERMINISTIC: step %d's work counts differ between repeat 1 and %d\n",
                        label, (int)i, r + 1);
                free(best);
                free(cur);
                return 1;
            }
            if (cur[i].ms < best[i].ms) best[i].ms = cur[i].ms;
            if (cur[i].cpu_ms < best[i].cpu_ms) best[i].cpu_ms = cur[i].cpu_ms;
            if (cur[i].damage_ms < best[i].damage_ms) best[i].damage_ms = cur[i].damage_ms;
        }
        free(cur);
        cur = NULL;
    }

    int32_t worst = 0, dmg_worst = 0, work_worst = 0;
    double cpu_max = 0;
    frames_model_sum sum[CR_BENCH_MODEL_COUNT];
    memset(sum, 0, sizeof sum);
    double *sorted = malloc(sizeof(double) * (size_t)(steps > 0 ? steps : 1));
    double *cpu_sorted = malloc(sizeof(double) * (size_t)(steps > 0 ? steps : 1));
    if (sorted == NULL || cpu_sorted == NULL) {
        free(sorted);
        free(cpu_sorted);
        free(best);
        return 1;
    }
    for (int32_t i = 0; i < steps; ++i) {
        const frames_step *st = &best[i];
        sorted[i] = st->ms;
        cpu_sorted[i] = st->cpu_ms;
        if (st->ms > best[worst].ms) worst = i;
        if (st->damage_ms > best[dmg_worst].damage_ms) dmg_worst = i;
        if (st->damage_work > best[work_worst].damage_work) work_worst = i;
        if (st->cpu_ms > cpu_max) cpu_max = st->cpu_ms;
        for (int m = 0; m < CR_BENCH_MODEL_COUNT; ++m) {
            const frames_model_step *ms = &st->model[m];
            frames_model_sum *t = &sum[m];
            t->committed += ms->committed;
            t->latency_sum += ms->latency_sum;
            t->work += ms->work;
            if (ms->latency_max > t->latency_max) t->latency_max = ms->latency_max;
            if (ms->work > t->work_max) t->work_max = ms->work;
            if (ms->waiting > t->waiting_max) t->waiting_max = ms->waiting;
        }
    }
    qsort(sorted, (size_t)steps, sizeof sorted[0], cr_bench_cmp_double);
    qsort(cpu_sorted, (size_t)steps, sizeof cpu_sorted[0], cr_bench_cmp_double);
    double cpu_p50 = cr_bench_median(cpu_sorted, steps);
    double p50 = cr_bench_median(sorted, steps), p99 = frames_rank(sorted, steps, 0.99);
    double worst_ms = steps ? best[worst].ms : 0, ratio = p50 > 0 ? worst_ms / p50 : 0;
    double at_worst = steps ? best[worst].damage_ms : 0, dmg_max = steps ? best[dmg_worst].damage_ms : 0;
    uint32_t work_max = steps ? best[work_worst].damage_work : 0;

    if (o->json) {
        fprintf(out,
                "{\"scene\":\"%s\",\"mode\":\"%s\",\"steps\":%d,\"dt\":%.9g,\"repeat\":%d,\"clock\":\"%s\",\"p50_ms\":%.4f,\"p99_ms\":%.4f,"
                "\"worst_ms\":%.4f,\"worst_step\":%d,\"worst_over_p50\":%.2f,\"cpu_p50_ms\":%.4f,\"cpu_max_ms\":%.4f,"
                "\"worst_step_damage_ms\":%.4f,\"damage_worst_ms\":%.4f,\"damage_worst_step\":%d,"
                "\"damage_budget\":%u,\"damage_work_max\":%u,\"damage_work_max_step\":%d,\"state_hash\":\"%016llx\",\"models\":{",
                label, CR_MODE_NAME, (int)steps, dt, o->repeat, o->cpu_clock ? "cpu" : "wall", p50, p99, worst_ms, (int)worst,
                ratio, cpu_p50, cpu_max, at_worst, dmg_max, (int)dmg_worst, budget, work_max, (int)work_worst, (unsigned long long)hash);
        for (int m = 0; m < CR_BENCH_MODEL_COUNT; ++m) {
            const frames_model_sum *t = &sum[m];
            fprintf(out, "%s\"%s\":{\"committed\":%llu,\"latency_max\":%u,\"latency_mean\":", m ? "," : "",
                    cr_bench_model_name(m), (unsigned long long)t->committed, t->latency_max);
            frames_json_latency_mean(out, t);
            fprintf(out, ",\"work\":%llu,\"work_max\":%u,\"waiting_max\":%u}", (unsigned long long)t->work, t->work_max,
                    t->waiting_max);
        }
        fprintf(out, "}}\n");
    } else {
        fprintf(out, "%-20s %6d %8.3f %8.3f %9.3f %6d %8.1fx %10.3f %10.3f %12.3f %12.3f %13u ", label, (int)steps, p50,
                p99, worst_ms, (int)worst, ratio, cpu_p50, cpu_max, at_worst, dmg_max, work_max);
        int shown = 0;
        for (int m = 0; m < CR_BENCH_MODEL_COUNT; ++m) {
            const frames_model_sum *t = &sum[m];
            if (t->committed == 0 && t->work == 0 && t->waiting_max == 0) continue; /* a model the scene does not use */
            fprintf(out, "%s %s %llu, ", shown++ ? ";" : "", cr_bench_model_name(m), (unsigned long long)t->committed);
            if (t->committed) fprintf(out, "%u/%.1f", t->latency_max, (double)t->latency_sum / (double)t->committed);
            else fprintf(out, "-/-");
            fprintf(out, ", %u, %u", t->work_max, t->waiting_max);
        }
        fprintf(out, "%s\n", shown ? "" : " -");
    }
    fflush(out);
    free(sorted);
    free(cpu_sorted);
    free(best);
    return 0;
}

static void frames_usage(FILE *out) {
    fprintf(out,
            "usage: crumple bench frames [SCENE...] [--steps N] [--repeat R] [--clock wall|cpu] [--scenes DIR] [--json]\n"
            "  Steps every scene of DIR (or the SCENEs named: a name in DIR or a path to a .scene file) as\n"
            "  `crumple run` does, R times, and prints per scene the p50, p99 and worst step (wall ms, each\n"
            "  step the minimum over the repeats), worst/p50, the worst step's damage ms, the worst damage\n"
            "  ms and work units of any step, and per damage model the changes committed with their worst\n"
            "  and mean latency in steps from impact (docs/frame-budget.md: issue 25's targets).\n"
            "  Fails (exit 1) if the repeats' state hashes or work counts differ.\n"
            "  --steps N     steps per scene (default: the scene's own frames)\n"
            "  --repeat R    runs of each scene, 1..100 (default 3)\n"
            "  --clock wall|cpu  time the stages (the damage ms) on the wall clock (default) or on this\n"
            "                process's CPU clock, which leaves out time spent waiting for a core\n"
            "  --scenes DIR  where scenes are found (default data/scenes)\n"
            "  --json        one JSON object per scene per line instead of the table\n");
}

int cr_bench_frames(int argc, char **argv) {
    frames_opts o = {.steps = 0, .repeat = 3, .json = false, .cpu_clock = false};
    const char *dir = "data/scenes";
    char **names = NULL; /* stb_ds, each strdup'd */
    int taken;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            frames_usage(stdout);
            cr_bench_free_names(names);
            return 0;
        } else if ((taken = cr_bench_run_option("crumple bench frames", argc, argv, &i, &o.steps, &o.repeat, &o.cpu_clock, &dir)) != 0) {
            if (taken < 0) {
                cr_bench_free_names(names);
                return 2;
            }
        } else if (strcmp(a, "--json") == 0) {
            o.json = true;
        } else if (a[0] == '-') {
            fprintf(stderr, "crumple bench frames: unknown option '%s'\n", a);
            frames_usage(stderr);
            cr_bench_free_names(names);
            return 2;
        } else {
            arrput(names, cr_bench_copy(a, strlen(a)));
        }
    }
    if (arrlen(names) == 0 && cr_bench_list_scenes("crumple bench frames", dir, &names)) {
        cr_bench_free_names(names);
        return 1;
    }
    if (!o.json) frames_table_header(stdout, &o);
    int rc = 0;
    for (ptrdiff_t i = 0; i < arrlen(names); ++i) {
        char path[CR_SCENE_PATH_MAX], label[CR_SCENE_NAME_MAX];
        if (cr_bench_scene_path(dir, names[i], path, label)) {
            fprintf(stderr, "crumple bench frames: scene path too long: %s\n", names[i]);
            rc = 2;
            continue;
        }
        if (frames_scene(stdout, label, path, &o)) rc = rc ? rc : 1;
    }
    cr_bench_free_names(names);
    return rc;
}
