/* bench_run.c — what the per-step benches share (bench frames, bench
 * calibrate; cli.h): loading, building and stepping a scene with a per-step
 * row, their common options, the scene listing, the CPU clock and the list
 * of damage models whose stats they read.
 */
#include "cli.h"
#include "scene.h"
#include "stb_ds.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    size_t offset; /* of its cr_model_stats in cr_world_stats */
} bench_models[CR_BENCH_MODEL_COUNT] = {
#define CR_X_BENCH_ENTRY_(m) {#m, offsetof(cr_world_stats, m)},
    CR_BENCH_MODEL_LIST(CR_X_BENCH_ENTRY_)
#undef CR_X_BENCH_ENTRY_
};

const char *cr_bench_model_name(int m) {
    return bench_models[m].name;
}

const cr_model_stats *cr_bench_model_stats(const cr_world_stats *st, int m) {
    return (const cr_model_stats *)((const char *)st + bench_models[m].offset);
}

uint64_t cr_bench_cpu_clock(void *user) {
    (void)user;
    return crp_cpu_clock_ns();
}

char *cr_bench_copy(const char *text, size_t n) {
    char *c = malloc(n + 1);
    if (c) memcpy(c, text, n), c[n] = 0;
    return c;
}

/* A listed DIR/NAME.scene, kept as NAME so it is looked up in DIR and labelled by its name. */
static void bench_add_name(void *user, const char *file) {
    char ***names = user;
    char *name = cr_bench_copy(file, strlen(file) - strlen(".scene"));
    if (name) arrput(*names, name);
}

static int bench_cmp_name(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int cr_bench_list_scenes(const char *who, const char *dir, char ***names) {
    ptrdiff_t had = arrlen(*names);
    if (crp_list_dir(dir, ".scene", bench_add_name, names) != CRP_OK) {
        fprintf(stderr, "%s: cannot list the scenes in %s\n", who, dir);
        return 1;
    }
    if (arrlen(*names) == had) {
        fprintf(stderr, "%s: no .scene files in %s\n", who, dir);
        return 1;
    }
    qsort(*names + had, (size_t)(arrlen(*names) - had), sizeof **names, bench_cmp_name);
    return 0;
}

void cr_bench_free_names(char **names) {
    for (ptrdiff_t i = 0; i < arrlen(names); ++i) free(names[i]);
    arrfree(names);
}

int cr_bench_run_option(const char *who, int argc, char **argv, int *i, int32_t *steps, int *repeat, bool *cpu_clock,
                        const char **dir) {
    const char *a = argv[*i];
    if (strcmp(a, "--steps") == 0 || strcmp(a, "--repeat") == 0) {
        bool is_steps = a[2] == 's';
        long v = cr_bench_count(argc, argv, *i, is_steps ? 1000000 : 100);
        if (v < 0) {
            fprintf(stderr, "%s: %s needs a number in 1..%d\n", who, a, is_steps ? 1000000 : 100);
            return -1;
        }
        if (is_steps) *steps = (int32_t)v;
        else *repeat = (int)v;
    } else if (strcmp(a, "--clock") == 0) {
        if (*i + 1 >= argc || (strcmp(argv[*i + 1], "wall") != 0 && strcmp(argv[*i + 1], "cpu") != 0)) {
            fprintf(stderr, "%s: --clock needs wall or cpu\n", who);
            return -1;
        }
        *cpu_clock = strcmp(argv[*i + 1], "cpu") == 0;
    } else if (strcmp(a, "--scenes") == 0) {
        if (*i + 1 >= argc) {
            fprintf(stderr, "%s: --scenes needs a folder\n", who);
            return -1;
        }
        *dir = argv[*i + 1];
    } else {
        return 0;
    }
    ++*i;
    return 1;
}

int cr_bench_run_scene(const char *who, const char *path, cr_bench_run *r) {
    r->rows = NULL;
    cr_scene *s = NULL;
    cr_scene_error err;
    if (cr_scene_load(path, &s, &err)) {
        cr_scene_error_print(stderr, &err);
        return 1;
    }
    if (r->accept && !r->accept(s)) {
        cr_scene_free(s);
        return -1;
    }
    if (r->cpu_clock) s->def.clock_ns = cr_bench_cpu_clock;
    cr_world *w = NULL;
    if (cr_scene_build(s, &w, &err)) {
        cr_scene_error_print(stderr, &err);
        cr_scene_free(s);
        return 1;
    }
    r->steps = r->steps > 0 ? r->steps : s->frames;
    r->dt = cr_to_double(s->dt);
    r->budget = s->def.damage.budget;
    r->rows = calloc((size_t)(r->steps > 0 ? r->steps : 1), r->row_size);
    int rc = 0;
    if (r->rows == NULL) {
        fprintf(stderr, "%s: out of memory for %d steps\n", who, (int)r->steps);
        rc = 1;
    } else {
        cr_scene_loop loop = {.from = 0, .to = r->steps, .each = r->each, .user = r->rows};
        if (cr_scene_run(s, w, &loop, &err)) {
            cr_scene_error_print(stderr, &err);
            rc = 1;
        }
        r->hash = cr_world_state_hash(w);
    }
    cr_cli_world_free(w);
    cr_scene_free(s);
    return rc;
}
