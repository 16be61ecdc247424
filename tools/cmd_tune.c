/* cmd_tune.c — `crumple tune SCENE -o TABLE.png`: the dent tuning table.
 *
 * A dent is tuned by two lengths (docs/denting.md): its distance (how far
 * the surface moves in at the centre; here cr_dent_def.fixed_distance) and
 * its width (the broadening blur, sigma of seed 000 §3.2's Gaussians). This
 * runs the same scene, the same impact, once per pair of values, and draws
 * the dented region of one body each time, all with one colour range, into
 * one table: rows are distances, columns are widths (seed 000 Figure 5 is
 * such a table for the bunny's ears in a plate; `make dent-guide` makes ours
 * from data/scenes/dent_bunny.scene for docs/dent-tuning.md).
 *
 * Everything else of the body's dent def stays as the scene says; speed
 * scaling is turned off so the distance is exactly the row's.
 */
#include "cli.h"
#include "render_run.h"
#include "scene.h"
#include "stb_ds.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TUNE_MAX 6

static void usage(FILE *out) {
    fprintf(out,
            "usage: crumple tune SCENE -o TABLE.png [--body NAME] [--distance D1,D2,...] [--blur B1,B2,...]\n"
            "       [--frames N] [--size WxH]\n"
            "  Runs SCENE once per (dent distance, blur) pair and writes a table of lit close-ups of the\n"
            "  dented region of one body: rows are distances, columns blurs, one colour range for all.\n"
            "  -o TABLE.png       the table (required)\n"
            "  --body NAME        the body whose dent is tuned (default: the scene's first dented body)\n"
            "  --distance LIST    dent distances in metres, up to %d (default 0.005,0.01,0.02)\n"
            "  --blur LIST        broadening widths (sigma) in metres, up to %d (default 0.001,0.003,0.008)\n"
            "  --frames N         frames per run (default: the scene's)\n"
            "  --size WxH         size of one close-up (default 320x240)\n",
            TUNE_MAX, TUNE_MAX);
}

/* "a,b,c" into up to TUNE_MAX positive lengths; returns the count or 0. */
static int parse_list(const char *text, double *out) {
    int n = 0;
    const char *p = text;
    while (*p && n < TUNE_MAX) {
        char *end;
        double v = strtod(p, &end);
        if (end == p || !(v > 0 && v < 10)) return 0;
        out[n++] = v;
        if (*end == ',') p = end + 1;
        else if (*end == 0) return n;
        else return 0;
    }
    return *p == 0 ? n : 0;
}

/* One run: the scene with the body's dent set to (distance, blur), stepped
 * `frames` frames, its dented region drawn into *img. 0 ok, else 1 (printed). */
static int one_run(const char *path, const char *body, double distance, double blur, int32_t frames, double range,
                   const cr_render_options *ro, cr_image *img) {
    cr_scene *s = NULL;
    cr_scene_error err;
    if (cr_scene_load(path, &s, &err)) {
        cr_scene_error_print(stderr, &err);
        return 1;
    }
    int32_t bi = -1;
    for (ptrdiff_t i = 0; i < arrlen(s->bodies) && bi < 0; ++i)
        if (body != NULL ? strcmp(s->bodies[i].name, body) == 0 : s->bodies[i].dents) bi = (int32_t)i;
    if (bi < 0 || !s->bodies[bi].dents) {
        fprintf(stderr, "%s: %s%s%s\n", path, body ? "no dented body named '" : "no dented body", body ? body : "",
                body ? "'" : "");
        cr_scene_free(s);
        return 1;
    }
    cr_dent_def *d = &s->bodies[bi].dent;
    d->speed_scale = 0;
    d->fixed_distance = cr_from_float((float)distance);
    if (d->max_distance < d->fixed_distance) d->max_distance = d->fixed_distance;
    d->blur = cr_from_float((float)blur);
    cr_world *w = NULL;
    if (cr_scene_build(s, &w, &err)) {
        cr_scene_error_print(stderr, &err);
        cr_scene_free(s);
        return 1;
    }
    cr_scene_loop loop = {.from = 0, .to = frames >= 0 ? frames : s->frames};
    int rc = cr_scene_run(s, w, &loop, &err);
    if (rc < 0) cr_scene_error_print(stderr, &err);
    char label[64];
    snprintf(label, sizeof label, "D %.1f MM  BLUR %.1f MM", distance * 1000.0, blur * 1000.0);
    if (rc == 0 && !cr_run_dent_closeup(w, s->bodies[bi].id, s->bodies[bi].name, ro, range, label, img, NULL)) {
        fprintf(stderr, "crumple tune: cannot draw body '%s'\n", s->bodies[bi].name);
        rc = 1;
    }
    cr_cli_world_free(w);
    cr_scene_free(s);
    return rc != 0;
}

int cr_cmd_tune(int argc, char **argv) {
    const char *scene = NULL, *out = NULL, *body = NULL;
    double dist[TUNE_MAX] = {0.005, 0.01, 0.02}, blur[TUNE_MAX] = {0.001, 0.003, 0.008};
    int nd = 3, nb = 3;
    long frames = -1;
    cr_render_options ro = cr_default_render_options();
    ro.width = 320, ro.height = 240;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        char err[128];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "-o") == 0 && v) {
            out = v, ++i;
        } else if (strcmp(a, "--body") == 0 && v) {
            body = v, ++i;
        } else if (strcmp(a, "--distance") == 0 && v) {
            if ((nd = parse_list(v, dist)) == 0) {
                fprintf(stderr, "crumple tune: --distance '%s': up to %d lengths in metres, e.g. 0.005,0.01\n", v, TUNE_MAX);
                return 2;
            }
            ++i;
        } else if (strcmp(a, "--blur") == 0 && v) {
            if ((nb = parse_list(v, blur)) == 0) {
                fprintf(stderr, "crumple tune: --blur '%s': up to %d lengths in metres, e.g. 0.002,0.004\n", v, TUNE_MAX);
                return 2;
            }
            ++i;
        } else if (strcmp(a, "--frames") == 0 && v) {
            char *end;
            frames = strtol(v, &end, 10);
            if (end == v || *end != 0 || frames < 1 || frames > 100000) {
                fprintf(stderr, "crumple tune: --frames '%s' is not a number in 1..100000\n", v);
                return 2;
            }
            ++i;
        } else if (strcmp(a, "--size") == 0 && v) {
            if (!cr_render_size_parse(v, &ro.width, &ro.height, err, sizeof err)) {
                fprintf(stderr, "crumple tune: %s\n", err);
                return 2;
            }
            ++i;
        } else if (a[0] != '-' && scene == NULL) {
            scene = a;
        } else {
            fprintf(stderr, "crumple tune: unknown option, extra argument or missing value '%s'\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (scene == NULL || out == NULL) {
        fprintf(stderr, "crumple tune: a scene and -o TABLE.png are needed\n");
        usage(stderr);
        return 2;
    }
    double range = 0; /* one colour scale: the deepest distance asked for */
    for (int i = 0; i < nd; ++i) range = dist[i] > range ? dist[i] : range;
    cr_image *cells = calloc((size_t)(nd * nb), sizeof *cells);
    int rc = cells == NULL;
    for (int r = 0; r < nd && rc == 0; ++r)
        for (int c = 0; c < nb && rc == 0; ++c)
            rc = one_run(scene, body, dist[r], blur[c], (int32_t)frames, range, &ro, &cells[r * nb + c]);
    cr_image table;
    memset(&table, 0, sizeof table);
    if (rc == 0) {
        /* rows of nb cells, 4 px apart on white (every cell has the run's size) */
        uint32_t cw = cells[0].width, ch = cells[0].height, gap = 4;
        rc = !cr_image_init(&table, (uint32_t)nb * (cw + gap) + gap, (uint32_t)nd * (ch + gap) + gap, 0xffffff);
        for (int i = 0; rc == 0 && i < nd * nb; ++i)
            cr_image_blit(&table, &cells[i], (int)(gap + (uint32_t)(i % nb) * (cw + gap)), (int)(gap + (uint32_t)(i / nb) * (ch + gap)));
    }
    if (rc == 0) {
        cr_png_status ps = cr_png_write_file(out, table.rgb, table.width, table.height, 3, CR_PNG_FIXED);
        if (ps != CR_PNG_OK) {
            fprintf(stderr, "%s: cannot write PNG: %s\n", out, cr_png_status_message(ps));
            rc = 1;
        } else {
            printf("tune         %d distances x %d blurs of %s -> %s (%ux%u)\n", nd, nb, scene, out, table.width,
                   table.height);
        }
    }
    cr_image_free(&table);
    for (int i = 0; cells != NULL && i < nd * nb; ++i) cr_image_free(&cells[i]);
    free(cells);
    return rc;
}
