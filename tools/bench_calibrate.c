/* bench_calibrate.c — `crumple bench calibrate`: fits the damage budget's
 * cost tables (cr_damage_costs, ps of the reference core per item) from the
 * shipped scenes' steps (docs/frame-budget.md, "Calibrating the costs").
 *
 *     crumple bench calibrate                        every data/scenes/NAME.scene with a damage model
 *     crumple bench calibrate dent_bunny demo --steps 120 --repeat 5
 *     crumple bench calibrate --json                 one JSON object instead of the table
 *
 * Each scene is loaded, built and stepped as `crumple run` steps it, R times
 * (--repeat, default 3), with the world's clock on this process's CPU time
 * (--clock cpu, the default) or the wall clock. Every step's item counts
 * (cr_world_stats.damage_ops) must be identical in every repeat, or the
 * command fails: the minimum of times of different work would mean nothing.
 * Per step and model its time (cr_model_stats.time_ns) is the minimum over
 * the repeats.
 *
 * A sample is one (step, model) whose operations counted any item: the
 * model's time and its operations' counts. Each operation belongs to one
 * model, by its name's prefix (dent_* to dent, example_work to example, ...),
 * so damage_ops, which is per step for all models together, splits exactly.
 * Per model the coefficients are fitted by non-negative least squares
 * (Lawson–Hanson's active set on the normal equations, double precision):
 *
 *     time_ns · 1000  ≈  Σ ps[op] · count[op]
 *
 * with each row divided by max(time, CAL_FLOOR_NS), i.e. relative error: the
 * few huge steps (a 40 ms dent) would otherwise decide every coefficient and
 * leave the many small steps (which are most of a game's frames, and where
 * the budget decides whether a slice fits) predicted anyhow. The floor keeps
 * steps of a few clock ticks (clock() has 1 µs steps) from counting as much
 * as real ones; the spread is measured against the same max(time, floor).
 * Operations whose counts are proportional in every sample (the dent patch's
 * nodes, probes and commits are one count today) cannot be told apart by any
 * fit: they are one unknown that scales their defaults together, and the
 * table says which op each was fitted with. An operation no scene did keeps
 * the current default and is reported "not measured".
 *
 * Prints per operation the items seen, the fitted ps/item and the current
 * default; per model the samples and the spread of |predicted - measured| /
 * measured (median, 90th percentile, the worst step); last the C initializer
 * of runtime/src/damage/budget.c's table for this build's scalar mode, in
 * CR_DAMAGE_OP_LIST order.
 */
#include "cli.h"
#include "scene.h"
#include "stb_ds.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Rows are divided by max(time, this): relative error, but a step of a few
 * clock ticks does not weigh more than a 10 µs one. */
#define CAL_FLOOR_NS 10000.0

/* Coefficients per model at most: the dent model's 11 operations. */
#define CAL_MAX_UNKNOWNS CR_DAMAGE_OP_COUNT

typedef struct cal_opts {
    int32_t steps; /* 0: the scene's own frames */
    int repeat;
    bool cpu_clock;
    bool json;
} cal_opts;

/* One step of one run: each model's time and every operation's count. */
typedef struct cal_step {
    uint64_t time_ns[CR_BENCH_MODEL_COUNT];
    uint32_t ops[CR_DAMAGE_OP_COUNT];
} cal_step;

/* One (step, model) sample of the fit. */
typedef struct cal_sample {
    int32_t scene, step;
    double time_ns;
    uint32_t ops[CR_DAMAGE_OP_COUNT];
} cal_sample;

/* The model an operation belongs to: its name is "MODEL_...". */
static int cal_op_model(int op) {
    const char *name = cr_damage_op_name((cr_damage_op)op);
    for (int m = 0; m < CR_BENCH_MODEL_COUNT; ++m) {
        size_t n = strlen(cr_bench_model_name(m));
        if (strncmp(name, cr_bench_model_name(m), n) == 0 && name[n] == '_') return m;
    }
    return -1;
}

static int cal_record(void *user, cr_scene *s, cr_world *w, const cr_scene_frame *fr) {
    (void)s, (void)w;
    cal_step *st = (cal_step *)user + fr->frame;
    for (int m = 0; m < CR_BENCH_MODEL_COUNT; ++m) st->time_ns[m] = cr_bench_model_stats(&fr->stats, m)->time_ns;
    memcpy(st->ops, fr->stats.damage_ops, sizeof st->ops);
    return 0;
}

static bool cal_has_damage(const cr_scene *s) {
    for (ptrdiff_t i = 0; i < arrlen(s->bodies); ++i) {
        const cr_scene_body *b = &s->bodies[i];
        if (b->dents || b->plastic || b->bends || b->squash || b->fractures) return true;
    }
    return false;
}

/* One run of a scene into *rows (calloc'd, *steps of them). 0; 1 after
 * printing the error; -1 if `skip_undamaged` and no body has a damage model. */
static int cal_run(const char *path, const cal_opts *o, bool skip_undamaged, cal_step **rows, int32_t *steps) {
    cr_bench_run r = {.cpu_clock = o->cpu_clock, .steps = o->steps, .row_size = sizeof **rows, .each = cal_record,
                      .accept = skip_undamaged ? cal_has_damage : NULL};
    int rc = cr_bench_run_scene("crumple bench calibrate", path, &r);
    *rows = r.rows, *steps = r.steps;
    return rc;
}

/* A scene's R runs, each step's times the minimum, its samples appended.
 * 0; 1 after printing the error; -1 skipped (no damage model). */
static int cal_scene(const char *label, const char *path, const cal_opts *o, bool skip_undamaged, int32_t index,
                     cal_sample **samples) {
    cal_step *best = NULL, *cur = NULL;
    int32_t steps = 0, cur_steps = 0;
    int rc = cal_run(path, o, skip_undamaged, &best, &steps);
    for (int r = 1; rc == 0 && r < o->repeat; ++r) {
        if (cal_run(path, o, false, &cur, &cur_steps)) {
            rc = 1;
            break;
        }
        for (int32_t i = 0; i < steps && rc == 0; ++i) {
            if (memcmp(best[i].ops, cur[i].ops, sizeof best[i].ops) != 0) {
                fprintf(stderr,
                        "crumple bench calibrate: %s: NOT DETERMINISTIC: step %d's damage operation counts differ "
                        "between repeat 1 and %d (same scene, same build)\n",
                        label, (int)i, r + 1);
                rc = 1;
            }
            for (int m = 0; m < CR_BENCH_MODEL_COUNT; ++m)
                if (cur[i].time_ns[m] < best[i].time_ns[m]) best[i].time_ns[m] = cur[i].time_ns[m];
        }
        free(cur);
        cur = NULL;
    }
    for (int32_t i = 0; rc == 0 && i < steps; ++i)
        for (int m = 0; m < CR_BENCH_MODEL_COUNT; ++m) {
            cal_sample smp = {index, i, (double)best[i].time_ns[m], {0}};
            bool any = false;
            for (int op = 0; op < CR_DAMAGE_OP_COUNT; ++op)
                if (cal_op_model(op) == m && best[i].ops[op]) smp.ops[op] = best[i].ops[op], any = true;
            if (any) arrput(*samples, smp);
        }
    free(best);
    return rc;
}

/* Solves the n x n system a z = b (row-major, overwritten) by Gaussian
 * elimination with partial pivoting; false if singular. */
static bool cal_solve(double *a, double *b, int n, double *z) {
    for (int c = 0; c < n; ++c) {
        int p = c;
        for (int r = c + 1; r < n; ++r)
            if (fabs(a[r * n + c]) > fabs(a[p * n + c])) p = r;
        if (fabs(a[p * n + c]) < 1e-300) return false;
        if (p != c) {
            for (int k = 0; k < n; ++k) {
                double t = a[c * n + k];
                a[c * n + k] = a[p * n + k], a[p * n + k] = t;
            }
            double t = b[c];
            b[c] = b[p], b[p] = t;
        }
        for (int r = c + 1; r < n; ++r) {
            double f = a[r * n + c] / a[c * n + c];
            for (int k = c; k < n; ++k) a[r * n + k] -= f * a[c * n + k];
            b[r] -= f * b[c];
        }
    }
    for (int r = n - 1; r >= 0; --r) {
        double v = b[r];
        for (int k = r + 1; k < n; ++k) v -= a[r * n + k] * z[k];
        z[r] = v / a[r * n + r];
    }
    return true;
}

/* Least squares of g x ≈ h restricted to the passive set: g[P,P] z = h[P]. */
static bool cal_passive_solve(const double *g, const double *h, int n, const bool *passive, double *z) {
    double a[CAL_MAX_UNKNOWNS * CAL_MAX_UNKNOWNS], b[CAL_MAX_UNKNOWNS], y[CAL_MAX_UNKNOWNS];
    int idx[CAL_MAX_UNKNOWNS], np = 0;
    for (int j = 0; j < n; ++j)
        if (passive[j]) idx[np++] = j;
    for (int r = 0; r < np; ++r) {
        for (int c = 0; c < np; ++c) a[r * np + c] = g[idx[r] * n + idx[c]];
        b[r] = h[idx[r]];
    }
    if (!cal_solve(a, b, np, y)) return false;
    for (int j = 0; j < n; ++j) z[j] = 0;
    for (int r = 0; r < np; ++r) z[idx[r]] = y[r];
    return true;
}

/* Non-negative least squares min |A x - b|, x >= 0, given G = AᵀA and
 * h = Aᵀb (n unknowns, columns scaled to unit norm by the caller): Lawson and
 * Hanson's active-set algorithm (Solving Least Squares Problems, ch. 23). */
static void cal_nnls(const double *g, const double *h, int n, double *x) {
    bool passive[CAL_MAX_UNKNOWNS] = {false};
    double z[CAL_MAX_UNKNOWNS], w[CAL_MAX_UNKNOWNS];
    for (int j = 0; j < n; ++j) x[j] = 0;
    const double tol = 1e-12;
    for (int outer = 0; outer < 3 * n + 10; ++outer) {
        int best = -1;
        for (int j = 0; j < n; ++j) {
            double gx = 0;
            for (int k = 0; k < n; ++k) gx += g[j * n + k] * x[k];
            w[j] = h[j] - gx; /* the negative gradient */
            if (!passive[j] && w[j] > tol && (best < 0 || w[j] > w[best])) best = j;
        }
        if (best < 0) return;
        passive[best] = true;
        for (int inner = 0; inner < 3 * n + 10; ++inner) {
            if (!cal_passive_solve(g, h, n, passive, z)) {
                passive[best] = false; /* collinear with the passive columns: leave it at 0 */
                break;
            }
            bool feasible = true;
            for (int j = 0; j < n; ++j)
                if (passive[j] && z[j] <= 0) feasible = false;
            if (feasible) {
                memcpy(x, z, sizeof(double) * (size_t)n);
                break;
            }
            double alpha = 1;
            for (int j = 0; j < n; ++j)
                if (passive[j] && z[j] <= 0) {
                    double a = x[j] / (x[j] - z[j]);
                    if (a < alpha) alpha = a;
                }
            for (int j = 0; j < n; ++j) {
                x[j] += alpha * (z[j] - x[j]);
                if (passive[j] && x[j] <= tol) passive[j] = false, x[j] = 0;
            }
        }
    }
}

/* A model's fit and its spread over its samples. */
typedef struct cal_fit {
    int32_t samples;
    double median, p90, worst;
    int32_t worst_sample;
} cal_fit;

static double cal_predict_ns(const double *ps, const uint32_t *ops) {
    double p = 0;
    for (int op = 0; op < CR_DAMAGE_OP_COUNT; ++op) p += ps[op] * (double)ops[op];
    return p / 1000.0;
}

static double cal_weight(const cal_sample *smp) {
    return 1.0 / fmax(smp->time_ns, CAL_FLOOR_NS);
}

static bool cal_mine(const cal_sample *smp, const int *cols, int n) {
    for (int c = 0; c < n; ++c)
        if (smp->ops[cols[c]]) return true;
    return false;
}

/* Whether operations a and b counted proportionally in every sample of the
 * model: then no fit can tell their costs apart. */
static bool cal_tied(const cal_sample *smp, const int *cols, int n, int a, int b) {
    double aa = 0, bb = 0, ab = 0;
    for (ptrdiff_t i = 0; i < arrlen(smp); ++i) {
        if (!cal_mine(&smp[i], cols, n)) continue;
        double x = smp[i].ops[a], y = smp[i].ops[b];
        aa += x * x, bb += y * y, ab += x * y;
    }
    return ab * ab >= (1 - 1e-12) * aa * bb;
}

/* Fits model m's measured operations into ps[]. Operations whose counts are
 * proportional in every sample (tie[op] names the first of them) are one
 * unknown: their defaults' sum, scaled by one factor, so they keep the
 * defaults' ratio, which the data cannot change. Columns are scaled to unit
 * norm, since counts differ by orders of magnitude between operations. */
static cal_fit cal_fit_model(int m, const cal_sample *smp, const bool *measured, const cr_damage_costs *def,
                             int *tie, double *ps) {
    cal_fit f = {0, 0, 0, 0, -1};
    int cols[CAL_MAX_UNKNOWNS], n = 0, lead[CAL_MAX_UNKNOWNS], g = 0;
    for (int op = 0; op < CR_DAMAGE_OP_COUNT; ++op)
        if (cal_op_model(op) == m && measured[op]) cols[n++] = op;
    if (n == 0) return f;
    for (int c = 0; c < n; ++c) {
        tie[cols[c]] = cols[c];
        for (int k = 0; k < g; ++k)
            if (cal_tied(smp, cols, n, lead[k], cols[c])) {
                tie[cols[c]] = lead[k];
                break;
            }
        if (tie[cols[c]] == cols[c]) lead[g++] = cols[c];
    }
    double unit[CR_DAMAGE_OP_COUNT]; /* ps of an op per unit of its unknown */
    for (int c = 0; c < n; ++c) unit[cols[c]] = def->ps[cols[c]] ? (double)def->ps[cols[c]] : 1.0;
    double gram[CAL_MAX_UNKNOWNS * CAL_MAX_UNKNOWNS] = {0}, h[CAL_MAX_UNKNOWNS] = {0}, norm[CAL_MAX_UNKNOWNS] = {0};
    double x[CAL_MAX_UNKNOWNS], *rows = NULL; /* stb_ds: g weighted entries per sample of the model */
    for (ptrdiff_t i = 0; i < arrlen(smp); ++i) {
        if (!cal_mine(&smp[i], cols, n)) continue;
        double wgt = cal_weight(&smp[i]), row[CAL_MAX_UNKNOWNS] = {0};
        for (int c = 0; c < n; ++c)
            for (int k = 0; k < g; ++k)
                if (tie[cols[c]] == lead[k]) row[k] += (double)smp[i].ops[cols[c]] * unit[cols[c]] * wgt;
        for (int k = 0; k < g; ++k) arrput(rows, row[k]), norm[k] += row[k] * row[k];
        arrput(rows, smp[i].time_ns * 1000.0 * wgt);
        ++f.samples;
    }
    for (int k = 0; k < g; ++k) norm[k] = sqrt(norm[k]);
    for (int32_t i = 0; i < f.samples; ++i) {
        const double *row = rows + (ptrdiff_t)i * (g + 1);
        for (int r = 0; r < g; ++r) {
            h[r] += row[r] / norm[r] * row[g];
            for (int c = 0; c < g; ++c) gram[r * g + c] += row[r] / norm[r] * row[c] / norm[c];
        }
    }
    arrfree(rows);
    cal_nnls(gram, h, g, x);
    for (int c = 0; c < n; ++c)
        for (int k = 0; k < g; ++k)
            if (tie[cols[c]] == lead[k]) ps[cols[c]] = x[k] / norm[k] * unit[cols[c]];

    double *rel = NULL; /* stb_ds */
    for (ptrdiff_t i = 0; i < arrlen(smp); ++i) {
        if (!cal_mine(&smp[i], cols, n)) continue;
        double e = fabs(cal_predict_ns(ps, smp[i].ops) - smp[i].time_ns) / fmax(smp[i].time_ns, CAL_FLOOR_NS);
        arrput(rel, e);
        if (f.worst_sample < 0 || e > f.worst) f.worst = e, f.worst_sample = (int32_t)i;
    }
    qsort(rel, (size_t)arrlen(rel), sizeof rel[0], cr_bench_cmp_double);
    int32_t k = (int32_t)arrlen(rel);
    f.median = cr_bench_median(rel, k);
    f.p90 = k ? rel[(int32_t)ceil(0.9 * k) - 1] : 0;
    arrfree(rel);
    return f;
}

static void cal_usage(FILE *out) {
    fprintf(out,
            "usage: crumple bench calibrate [SCENE...] [--steps N] [--repeat R] [--clock wall|cpu] [--scenes DIR] [--json] [--c]\n"
            "  Steps every scene of DIR that has a damage model (or the SCENEs named: a name in DIR or a\n"
            "  path to a .scene file) as `crumple run` does, R times, and fits per damage model the ps per\n"
            "  item of its operations (cr_damage_costs) by non-negative least squares over its steps'\n"
            "  times (each step's the minimum over the repeats), rows weighted by 1 / max(time, 10 us).\n"
            "  Prints per operation the items seen, the fitted ps/item and the current default, per model\n"
            "  the spread of |predicted - measured| / measured (median, 90th percentile, the worst step),\n"
            "  and the C initializer of runtime/src/damage/budget.c's table for this build's scalar mode.\n"
            "  Fails (exit 1) if a step's operation counts differ between repeats.\n"
            "  --steps N     steps per scene (default: the scene's own frames)\n"
            "  --repeat R    runs of each scene, 1..100 (default 3)\n"
            "  --clock wall|cpu  time the models on this process's CPU clock (default) or the wall clock\n"
            "  --scenes DIR  where scenes are found (default data/scenes)\n"
            "  --json        one JSON object instead of the table\n"
            "  --c           print only the C initializer (it ends the table anyway)\n");
}

static void cal_print_initializer(FILE *out, const uint32_t *table) {
    fprintf(out, "{");
    for (int op = 0; op < CR_DAMAGE_OP_COUNT; ++op) fprintf(out, "%s%u", op ? ", " : " ", table[op]);
    fprintf(out, ", }\n");
}

int cr_bench_calibrate(int argc, char **argv) {
    const char *who = "crumple bench calibrate";
    cal_opts o = {.steps = 0, .repeat = 3, .cpu_clock = true, .json = false};
    bool c_only = false;
    const char *dir = "data/scenes";
    char **names = NULL; /* stb_ds, each malloc'd */
    int taken;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            cal_usage(stdout);
            cr_bench_free_names(names);
            return 0;
        } else if ((taken = cr_bench_run_option(who, argc, argv, &i, &o.steps, &o.repeat, &o.cpu_clock, &dir)) != 0) {
            if (taken < 0) {
                cr_bench_free_names(names);
                return 2;
            }
        } else if (strcmp(a, "--json") == 0) {
            o.json = true;
        } else if (strcmp(a, "--c") == 0) {
            c_only = true;
        } else if (a[0] == '-') {
            fprintf(stderr, "%s: unknown option '%s'\n", who, a);
            cal_usage(stderr);
            cr_bench_free_names(names);
            return 2;
        } else {
            arrput(names, cr_bench_copy(a, strlen(a)));
        }
    }
    bool all = arrlen(names) == 0; /* every scene with damage, the others skipped */
    if (all && cr_bench_list_scenes(who, dir, &names)) {
        cr_bench_free_names(names);
        return 1;
    }

    cal_sample *samples = NULL; /* stb_ds */
    char **used = NULL;         /* stb_ds: labels of the scenes sampled, indexed by cal_sample.scene */
    int rc = 0;
    for (ptrdiff_t i = 0; i < arrlen(names); ++i) {
        char path[CR_SCENE_PATH_MAX], label[CR_SCENE_NAME_MAX];
        if (cr_bench_scene_path(dir, names[i], path, label)) {
            fprintf(stderr, "%s: scene path too long: %s\n", who, names[i]);
            rc = 2;
            continue;
        }
        int r = cal_scene(label, path, &o, all, (int32_t)arrlen(used), &samples);
        if (r > 0) rc = rc ? rc : 1;
        if (r == 0) arrput(used, cr_bench_copy(label, strlen(label)));
    }
    if (rc) {
        arrfree(samples);
        cr_bench_free_names(used);
        cr_bench_free_names(names);
        return rc;
    }

    cr_damage_costs def = cr_default_damage_costs();
    uint64_t items[CR_DAMAGE_OP_COUNT] = {0};
    bool measured[CR_DAMAGE_OP_COUNT] = {false};
    double ps[CR_DAMAGE_OP_COUNT];
    int tie[CR_DAMAGE_OP_COUNT];
    for (ptrdiff_t i = 0; i < arrlen(samples); ++i)
        for (int op = 0; op < CR_DAMAGE_OP_COUNT; ++op) items[op] += samples[i].ops[op];
    for (int op = 0; op < CR_DAMAGE_OP_COUNT; ++op) measured[op] = items[op] > 0, ps[op] = def.ps[op], tie[op] = op;
    cal_fit fit[CR_BENCH_MODEL_COUNT];
    for (int m = 0; m < CR_BENCH_MODEL_COUNT; ++m) fit[m] = cal_fit_model(m, samples, measured, &def, tie, ps);
    uint32_t table[CR_DAMAGE_OP_COUNT];
    for (int op = 0; op < CR_DAMAGE_OP_COUNT; ++op)
        table[op] = !measured[op] ? def.ps[op] : ps[op] >= 1e9 ? 1000000000u : (uint32_t)llround(ps[op]);

    FILE *out = stdout;
    if (o.json) {
        fprintf(out, "{\"mode\":\"%s\",\"clock\":\"%s\",\"repeat\":%d,\"floor_ns\":%.0f,\"scenes\":[", CR_MODE_NAME,
                o.cpu_clock ? "cpu" : "wall", o.repeat, CAL_FLOOR_NS);
        for (ptrdiff_t i = 0; i < arrlen(used); ++i) fprintf(out, "%s\"%s\"", i ? "," : "", used[i]);
        fprintf(out, "],\"ops\":[");
        for (int op = 0; op < CR_DAMAGE_OP_COUNT; ++op) {
            int m = cal_op_model(op);
            fprintf(out, "%s{\"op\":\"%s\",\"model\":\"%s\",\"items\":%llu,\"measured\":%s,\"fitted_ps\":", op ? "," : "",
                    cr_damage_op_name((cr_damage_op)op), m >= 0 ? cr_bench_model_name(m) : "", (unsigned long long)items[op],
                    measured[op] ? "true" : "false");
            if (measured[op]) fprintf(out, "%.1f", ps[op]);
            else fprintf(out, "null");
            fprintf(out, ",\"default_ps\":%u,\"table_ps\":%u,\"tied_to\":", def.ps[op], table[op]);
            if (tie[op] != op) fprintf(out, "\"%s\"}", cr_damage_op_name((cr_damage_op)tie[op]));
            else fprintf(out, "null}");
        }
        fprintf(out, "],\"models\":{");
        int shown = 0;
        for (int m = 0; m < CR_BENCH_MODEL_COUNT; ++m) {
            if (fit[m].samples == 0) continue;
            const cal_sample *w = &samples[fit[m].worst_sample];
            fprintf(out,
                    "%s\"%s\":{\"samples\":%d,\"rel_err_median\":%.4f,\"rel_err_p90\":%.4f,\"rel_err_worst\":%.4f,"
                    "\"worst_scene\":\"%s\",\"worst_step\":%d,\"worst_measured_ns\":%.0f,\"worst_predicted_ns\":%.0f}",
                    shown++ ? "," : "", cr_bench_model_name(m), (int)fit[m].samples, fit[m].median, fit[m].p90, fit[m].worst,
                    used[w->scene], (int)w->step, w->time_ns, cal_predict_ns(ps, w->ops));
        }
        fprintf(out, "},\"table\":[");
        for (int op = 0; op < CR_DAMAGE_OP_COUNT; ++op) fprintf(out, "%s%u", op ? "," : "", table[op]);
        fprintf(out, "]}\n");
    } else {
        if (!c_only) {
            fprintf(out,
                    "crumple bench calibrate: %s, %d scene%s, each step's time the minimum of %d repeat%s on the %s "
                    "clock, rows weighted 1/max(time, %.0f us)\n",
                    CR_MODE_NAME, (int)arrlen(used), arrlen(used) == 1 ? "" : "s", o.repeat, o.repeat == 1 ? "" : "s",
                    o.cpu_clock ? "CPU" : "wall", CAL_FLOOR_NS / 1000.0);
            fprintf(out, "%-22s %-9s %14s %14s %14s  %s\n", "op", "model", "items seen", "fitted ps/item", "default ps",
                    "fitted with");
            for (int op = 0; op < CR_DAMAGE_OP_COUNT; ++op) {
                int m = cal_op_model(op);
                fprintf(out, "%-22s %-9s %14llu ", cr_damage_op_name((cr_damage_op)op), m >= 0 ? cr_bench_model_name(m) : "-",
                        (unsigned long long)items[op]);
                if (measured[op]) fprintf(out, "%14.0f", ps[op]);
                else fprintf(out, "%14s", "not measured");
                fprintf(out, " %14u  %s\n", def.ps[op],
                        tie[op] != op ? cr_damage_op_name((cr_damage_op)tie[op]) : "");
            }
            fprintf(out, "\n%-9s %8s %12s %12s  %s\n", "model", "samples", "median err", "p90 err",
                     "worst step: err (scene@step: measured / predicted us)");
            for (int m = 0; m < CR_BENCH_MODEL_COUNT; ++m) {
                if (fit[m].samples == 0) continue;
                const cal_sample *w = &samples[fit[m].worst_sample];
                fprintf(out, "%-9s %8d %11.1f%% %11.1f%%  %.1f%% (%s@%d: %.1f / %.1f)\n", cr_bench_model_name(m),
                        (int)fit[m].samples, 100 * fit[m].median, 100 * fit[m].p90, 100 * fit[m].worst, used[w->scene],
                        (int)w->step, w->time_ns / 1000.0, cal_predict_ns(ps, w->ops) / 1000.0);
            }
            fprintf(out, "\nC initializer (runtime/src/damage/budget.c, %s, CR_DAMAGE_OP_LIST order):\n", CR_MODE_NAME);
        }
        cal_print_initializer(out, table);
    }
    fflush(out);
    arrfree(samples);
    cr_bench_free_names(used);
    cr_bench_free_names(names);
    return 0;
}
