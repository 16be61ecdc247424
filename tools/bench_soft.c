/* bench_soft.c — `crumple bench soft [--json] [--steps N] [--export FILE] [--scene FILE]`:
 * the soft_pile scene of issue 16 (seed 004), timed.
 *
 * The pile is data/scenes/soft_pile.scene (its one definition, also run by
 * tests/test_spring_scene_files.c): twenty soft bodies — a UV ball (r 0.3 m,
 * 12 x 8), a subdivided cube (0.5 m, 3 x 3 quads a face) and
 * data/meshes/torus.obj scaled to 0.7 m, in turn — fall into a 2 x 2 m box
 * (ground plane + four static box walls): 0.5 kg each, stiffness 1000 N/m,
 * bending 250 N/m, volume 50 kPa, 600 steps at 1/60 s (the numbers). Reported: ms per step (median of the
 * per-step times, and the mean), the soft stage's work, and how many
 * particles ended inside another body (winding number of its closed mesh)
 * or outside the box.
 *
 * --export FILE writes the same scene (walls, and every body's particles
 * and triangles as created, masses, stiffnesses) as text for the Bullet peer
 * (tests/peers/bullet_soft_peer.cpp), so both run the same meshes with the
 * same particle counts: docs/mass-spring.md has the side-by-side numbers.
 */
#include "cli.h"
#include "scene.h"
#include "scene_spring.h"
#include "stb_ds.h"
#include "platform.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct text {
    char *s;
    size_t len, cap;
} text;

static void put(text *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
#include <stdarg.h>
static void put(text *t, const char *fmt, ...) {
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
        va_end(ap);
        if (n >= 0 && (size_t)n < t->cap - t->len) {
            t->len += (size_t)n;
            return;
        }
        size_t cap = t->cap ? t->cap * 2 : 4096;
        char *s = realloc(t->s, cap);
        if (s == NULL) return;
        t->s = s, t->cap = cap;
    }
}

static double winding(const cr_asset *a, const cr_vec3 *x, cr_vec3 q) {
    double total = 0;
    for (uint32_t t = 0; t < a->triangle_count; ++t) {
        double v[3][3], l[3];
        for (int k = 0; k < 3; ++k) {
            cr_vec3 p = x[a->triangles[3 * t + k]];
            v[k][0] = cr_to_double(p.x) - cr_to_double(q.x);
            v[k][1] = cr_to_double(p.y) - cr_to_double(q.y);
            v[k][2] = cr_to_double(p.z) - cr_to_double(q.z);
            l[k] = sqrt(v[k][0] * v[k][0] + v[k][1] * v[k][1] + v[k][2] * v[k][2]);
        }
        double det = v[0][0] * (v[1][1] * v[2][2] - v[1][2] * v[2][1]) - v[0][1] * (v[1][0] * v[2][2] - v[1][2] * v[2][0]) +
                     v[0][2] * (v[1][0] * v[2][1] - v[1][1] * v[2][0]);
        double d01 = v[0][0] * v[1][0] + v[0][1] * v[1][1] + v[0][2] * v[1][2];
        double d12 = v[1][0] * v[2][0] + v[1][1] * v[2][1] + v[1][2] * v[2][2];
        double d20 = v[2][0] * v[0][0] + v[2][1] * v[0][1] + v[2][2] * v[0][2];
        total += 2 * atan2(det, l[0] * l[1] * l[2] + d01 * l[2] + d12 * l[0] + d20 * l[1]);
    }
    return total / (4 * 3.14159265358979323846);
}

#define WALL 1.0

int cr_bench_soft(int argc, char **argv) {
    int json = 0, steps = 600, awake = 0, spheres = 0;
    const char *export_path = NULL, *scene_path = "data/scenes/soft_pile.scene";
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--json") == 0) json = 1;
        else if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc) steps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--export") == 0 && i + 1 < argc) export_path = argv[++i];
        else if (strcmp(argv[i], "--scene") == 0 && i + 1 < argc) scene_path = argv[++i];
        else if (strcmp(argv[i], "--awake") == 0) awake = 1;
        else if (strcmp(argv[i], "--spheres") == 0) spheres = 1;
        else {
            fprintf(stderr, "usage: crumple bench soft [--json] [--steps N] [--export FILE] [--scene FILE] [--awake] [--spheres]\n");
            return 2;
        }
    }
    if (steps < 1 || steps > 100000) steps = 600;
    /* the one definition of the pile: its scene file (tools/scene_spring.c) */
    cr_scene *sc = NULL;
    cr_scene_error e;
    cr_world *w = NULL;
    /* --awake: the world's sleep off, so every step simulates every body (the
     * pile sleeps after about 4 s; a peer without sleep is compared like for like) */
    int bad = cr_scene_load(scene_path, &sc, &e);
    if (!bad && awake) sc->def.sleep = false;
    /* --spheres: every body with surface_contacts off (soft bodies meet as
     * particle spheres of the soft radius, the model before it was the default) */
    for (ptrdiff_t k = 0; !bad && spheres && k < arrlen(sc->softs); ++k) sc->softs[k].def.surface_contacts = false;
    if (bad || cr_scene_build(sc, &w, &e)) {
        cr_scene_error_print(stderr, &e);
        fprintf(stderr, "crumple bench soft: could not build %s (run from the repository root)\n", scene_path);
        cr_scene_free(sc);
        return 1;
    }
    int pile = (int)arrlen(sc->softs);
    cr_soft_id *ids = malloc(sizeof(cr_soft_id) * (size_t)(pile ? pile : 1));
    const cr_asset **as = malloc(sizeof(cr_asset *) * (size_t)(pile ? pile : 1));
    text ex = {0};
    put(&ex, "# crumple bench soft --export: %s (issue 16)\n", scene_path);
    put(&ex, "steps %d dt %.9g gravity %.9g\nground 0\n", steps, cr_to_double(sc->dt), cr_to_double(sc->def.gravity.y));
    for (ptrdiff_t k = 0; k < arrlen(sc->bodies); ++k) {
        const cr_body_def *bd = &sc->bodies[k].def;
        if (bd->type != CR_BODY_STATIC || bd->shape.type != CR_SHAPE_BOX) continue;
        put(&ex, "wall %.9g %.9g %.9g %.9g %.9g %.9g\n", cr_to_double(bd->position.x), cr_to_double(bd->position.y),
            cr_to_double(bd->position.z), cr_to_double(bd->shape.half_extents.x), cr_to_double(bd->shape.half_extents.y),
            cr_to_double(bd->shape.half_extents.z));
    }
    uint32_t particles = 0, springs = 0;
    for (int i = 0; i < pile; ++i) {
        const cr_soft_def *sd = &sc->softs[i].def;
        ids[i] = sc->softs[i].id;
        as[i] = cr_world_get_asset(w, cr_soft_get_asset(w, ids[i]));
        cr_soft_state st;
        cr_soft_get_state(w, ids[i], &st);
        particles += st.particles;
        springs += st.springs;
        const cr_asset *a = as[i];
        cr_vec3 *x = malloc(st.particles * sizeof *x);
        cr_soft_get_positions(w, ids[i], x, st.particles);
        put(&ex, "body %u %u mass %.9g stiffness %.9g bend %.9g volume %.9g friction %.9g\n", st.particles, a->triangle_count,
            cr_to_double(sd->mass), cr_to_double(sd->stiffness), cr_to_double(sd->bend_stiffness),
            cr_to_double(sd->volume_stiffness), cr_to_double(sd->friction));
        for (uint32_t p = 0; p < st.particles; ++p)
            put(&ex, "v %.9g %.9g %.9g\n", cr_to_double(x[p].x), cr_to_double(x[p].y), cr_to_double(x[p].z));
        for (uint32_t q = 0; q < a->triangle_count; ++q)
            put(&ex, "t %u %u %u\n", a->triangles[3 * q], a->triangles[3 * q + 1], a->triangles[3 * q + 2]);
        free(x);
    }
    if (export_path != NULL) {
        FILE *o = fopen(export_path, "wb");
        if (o == NULL || fwrite(ex.s, 1, ex.len, o) != ex.len) {
            fprintf(stderr, "crumple bench soft: cannot write %s\n", export_path);
            return 1;
        }
        fclose(o);
    }
    free(ex.s);

    double *ms = malloc((size_t)steps * sizeof *ms), total = 0;
    uint64_t work = 0;
    for (int s = 0; s < steps; ++s) {
        uint64_t t0 = crp_clock_ns();
        cr_world_step(w, sc->dt);
        ms[s] = (double)(crp_clock_ns() - t0) * 1e-6;
        total += ms[s];
        work += cr_world_get_stats(w).spring.work;
    }
    qsort(ms, (size_t)steps, sizeof *ms, cr_bench_cmp_double);
    /* what a player would see: particles inside another body, or outside the box */
    int inside = 0, outside = 0, resting = 0, asleep = 0;
    cr_vec3 **xs = malloc(sizeof(cr_vec3 *) * (size_t)(pile ? pile : 1));
    for (int i = 0; i < pile; ++i) {
        xs[i] = malloc(as[i]->vertex_count * sizeof(cr_vec3));
        cr_soft_get_positions(w, ids[i], xs[i], as[i]->vertex_count);
    }
    for (int i = 0; i < pile; ++i) {
        cr_soft_state st;
        cr_soft_get_state(w, ids[i], &st);
        if (st.asleep || cr_to_double(cr_v3_len(st.linear_momentum)) / cr_to_double(st.mass) < 0.05) ++resting;
        asleep += st.asleep;
        for (uint32_t p = 0; p < st.particles; ++p) {
            cr_vec3 q = xs[i][p];
            if (fabs(cr_to_double(q.x)) > WALL + 0.02 || fabs(cr_to_double(q.z)) > WALL + 0.02 || cr_to_double(q.y) < -0.02) ++outside;
            for (int j = 0; j < pile; ++j)
                if (j != i && winding(as[j], xs[j], q) > 0.5) ++inside;
        }
    }
    for (int i = 0; i < pile; ++i) free(xs[i]);
    free(xs);
    if (json)
        printf("{\"bench\":\"soft_pile\",\"bodies\":%d,\"particles\":%u,\"springs\":%u,\"steps\":%d,\"ms_per_step_median\":%.4f,"
               "\"ms_per_step_mean\":%.4f,\"work_per_step\":%.0f,\"particles_inside_another\":%d,\"particles_outside\":%d,"
               "\"resting\":%d,\"asleep\":%d,\"awake_forced\":%d,\"mode\":\"%s\"}\n",
               pile, particles, springs, steps, ms[steps / 2], total / steps, (double)work / steps, inside, outside, resting,
               asleep, awake, CR_MODE_NAME);
    else
        printf("soft_pile (%s%s): %d bodies, %u particles, %u springs, %d steps at 1/60 s\n"
               "  ms/step: median %.3f, mean %.3f; soft work %.0f units/step\n"
               "  particles inside another body: %d; outside the box: %d; at rest: %d of %d; asleep: %d\n",
               CR_MODE_NAME, awake ? (spheres ? ", sleep off, spheres" : ", sleep off") : (spheres ? ", spheres" : ""), pile, particles, springs, steps, ms[steps / 2], total / steps,
               (double)work / steps, inside, outside, resting, pile, asleep);
    free(ms);
    free(ids);
    free(as);
    cr_cli_world_free(w);
    cr_scene_free(sc);
    return 0;
}
