/* bench_soft.c — `crumple bench soft [--json] [--steps N] [--export FILE]`:
 * the soft_pile scene of issue 16 (seed 004), timed.
 *
 * Twenty soft bodies — a UV ball (r 0.3 m, 12 x 8), a subdivided cube (0.5 m,
 * 3 x 3 quads a face) and data/meshes/torus.obj scaled to 0.7 m, in turn —
 * fall into a 2 x 2 m box (ground plane + four static box walls): 0.5 kg
 * each, stiffness 1000 N/m, bending 250 N/m, volume 50 kPa, 600 steps at
 * 1/60 s (the numbers). Reported: ms per step (median of the
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
#include "cook.h"
#include "obj.h"
#include "platform.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t clock_hook(void *user) {
    (void)user;
    return crp_clock_ns();
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

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

static void sphere_obj(text *t, double r, int seg, int rings) {
    const double pi = 3.14159265358979323846;
    put(t, "v 0 %.9g 0\n", r);
    for (int i = 1; i < rings; ++i)
        for (int j = 0; j < seg; ++j) {
            double th = pi * i / rings, ph = 2 * pi * j / seg;
            put(t, "v %.9g %.9g %.9g\n", r * sin(th) * cos(ph), r * cos(th), -r * sin(th) * sin(ph));
        }
    put(t, "v 0 %.9g 0\n", -r);
    int south = 2 + (rings - 1) * seg;
    for (int j = 0; j < seg; ++j) put(t, "f 1 %d %d\n", 2 + j, 2 + (j + 1) % seg);
    for (int i = 0; i < rings - 2; ++i)
        for (int j = 0; j < seg; ++j) {
            int a = 2 + i * seg + j, b = 2 + i * seg + (j + 1) % seg;
            put(t, "f %d %d %d %d\n", a, a + seg, b + seg, b);
        }
    for (int j = 0; j < seg; ++j) put(t, "f %d %d %d\n", 2 + (rings - 2) * seg + j, south, 2 + (rings - 2) * seg + (j + 1) % seg);
}

static void cube_obj(text *t, double h, int n) {
    int m = n + 1, next = 1;
    int *id = calloc((size_t)(m * m * m), sizeof(int));
    if (id == NULL) return;
    for (int k = 0; k < m; ++k)
        for (int j = 0; j < m; ++j)
            for (int i = 0; i < m; ++i) {
                if (i != 0 && i != n && j != 0 && j != n && k != 0 && k != n) continue;
                id[(k * m + j) * m + i] = next++;
                put(t, "v %.9g %.9g %.9g\n", -h + 2 * h * i / n, -h + 2 * h * j / n, -h + 2 * h * k / n);
            }
#define ID(i, j, k) id[((k) * m + (j)) * m + (i)]
    for (int a = 0; a < n; ++a)
        for (int b = 0; b < n; ++b) {
            put(t, "f %d %d %d %d\n", ID(a, b, 0), ID(a, b + 1, 0), ID(a + 1, b + 1, 0), ID(a + 1, b, 0));
            put(t, "f %d %d %d %d\n", ID(a, b, n), ID(a + 1, b, n), ID(a + 1, b + 1, n), ID(a, b + 1, n));
            put(t, "f %d %d %d %d\n", ID(a, 0, b), ID(a + 1, 0, b), ID(a + 1, 0, b + 1), ID(a, 0, b + 1));
            put(t, "f %d %d %d %d\n", ID(a, n, b), ID(a, n, b + 1), ID(a + 1, n, b + 1), ID(a + 1, n, b));
            put(t, "f %d %d %d %d\n", ID(0, a, b), ID(0, a, b + 1), ID(0, a + 1, b + 1), ID(0, a + 1, b));
            put(t, "f %d %d %d %d\n", ID(n, a, b), ID(n, a + 1, b), ID(n, a + 1, b + 1), ID(n, a, b + 1));
        }
#undef ID
    free(id);
}

typedef struct soft_asset {
    cr_cook_result cooked;
    cr_asset asset;
    void *block;
} soft_asset;

static int cook_text(const char *name, text *t, double normalise, soft_asset *out) {
    cr_obj obj;
    char err[512];
    if (cr_obj_parse(name, t->s, t->len, &obj, err, sizeof err) != 0) {
        fprintf(stderr, "crumple bench soft: %s\n", err);
        return 0;
    }
    cr_cook_options opt = cr_cook_default_options();
    opt.quiet = true;
    opt.sdf_res = 24;
    opt.normalise = normalise;
    int rc = cr_cook_obj(name, &obj, &opt, &out->cooked, err, sizeof err);
    cr_obj_free(&obj);
    if (rc != 0) {
        fprintf(stderr, "crumple bench soft: %s\n", err);
        return 0;
    }
    size_t need = cr_asset_memory_size(out->cooked.bytes, out->cooked.size);
    out->block = need ? aligned_alloc(CR_BLOCK_ALIGN, (need + 15) / 16 * 16) : NULL;
    return out->block != NULL &&
           cr_asset_load(out->cooked.bytes, out->cooked.size, out->block, (need + 15) / 16 * 16, &out->asset, NULL) == CR_OK;
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

#define PILE 20
#define WALL 1.0

int cr_bench_soft(int argc, char **argv) {
    int json = 0, steps = 600;
    const char *export_path = NULL;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--json") == 0) json = 1;
        else if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc) steps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--export") == 0 && i + 1 < argc) export_path = argv[++i];
        else {
            fprintf(stderr, "usage: crumple bench soft [--json] [--steps N] [--export FILE]\n");
            return 2;
        }
    }
    if (steps < 1 || steps > 100000) steps = 600;
    soft_asset assets[3];
    memset(assets, 0, sizeof assets);
    text t = {0};
    sphere_obj(&t, 0.3, 12, 8);
    int ok = cook_text("ball", &t, 0, &assets[0]);
    t.len = 0;
    cube_obj(&t, 0.25, 3);
    ok = ok && cook_text("cube", &t, 0, &assets[1]);
    t.len = 0;
    FILE *f = fopen("data/meshes/torus.obj", "rb");
    if (f != NULL) {
        int c;
        while ((c = fgetc(f)) != EOF) put(&t, "%c", c);
        fclose(f);
    }
    ok = ok && f != NULL && cook_text("torus.obj", &t, 0.7, &assets[2]);
    free(t.s);
    if (!ok) {
        fprintf(stderr, "crumple bench soft: could not cook the pile's meshes (run from the repository root)\n");
        return 1;
    }

    cr_world_def def = cr_default_world_def();
    def.body_capacity = 16;
    def.asset_capacity = 4;
    def.clock_ns = clock_hook;
    def.spring = cr_default_spring_budget();
    def.spring.body_capacity = PILE;
    def.spring.particle_capacity = PILE * 256;
    def.spring.spring_capacity = PILE * 1200;
    size_t size = cr_world_memory_size(&def);
    void *block = aligned_alloc(CR_BLOCK_ALIGN, (size + 15) / 16 * 16);
    cr_world *w = NULL;
    if (block == NULL || cr_world_create(&def, block, size, &w) != CR_OK) {
        fprintf(stderr, "crumple bench soft: world\n");
        return 1;
    }
    uint32_t slot[3];
    for (int k = 0; k < 3; ++k) cr_world_add_asset(w, &assets[k].asset, &slot[k]);
    cr_body_def gd = cr_default_body_def();
    gd.type = CR_BODY_STATIC;
    gd.shape.type = CR_SHAPE_PLANE;
    cr_body_id id;
    cr_body_create(w, &gd, &id);
    const double wall[4][6] = {{WALL + 0.1, 1.5, 0, 0.1, 1.5, WALL + 0.2}, {-WALL - 0.1, 1.5, 0, 0.1, 1.5, WALL + 0.2},
                               {0, 1.5, WALL + 0.1, WALL + 0.2, 1.5, 0.1}, {0, 1.5, -WALL - 0.1, WALL + 0.2, 1.5, 0.1}};
    for (int k = 0; k < 4; ++k) {
        cr_body_def bd = cr_default_body_def();
        bd.type = CR_BODY_STATIC;
        bd.shape.type = CR_SHAPE_BOX;
        bd.position = cr_v3(CR_R(wall[k][0]), CR_R(wall[k][1]), CR_R(wall[k][2]));
        bd.shape.half_extents = cr_v3(CR_R(wall[k][3]), CR_R(wall[k][4]), CR_R(wall[k][5]));
        cr_body_create(w, &bd, &id);
    }
    cr_soft_id ids[PILE];
    int kind[PILE];
    text ex = {0};
    put(&ex, "# crumple bench soft --export: soft_pile (issue 16)\n");
    put(&ex, "steps %d dt %.9g gravity -9.81\nground 0\n", steps, 1.0 / 60.0);
    for (int k = 0; k < 4; ++k)
        put(&ex, "wall %.9g %.9g %.9g %.9g %.9g %.9g\n", wall[k][0], wall[k][1], wall[k][2], wall[k][3], wall[k][4], wall[k][5]);
    uint32_t particles = 0, springs = 0;
    for (int i = 0; i < PILE; ++i) {
        cr_soft_def sd = cr_default_soft_def();
        kind[i] = i % 3;
        sd.asset = slot[kind[i]];
        sd.transform.p = cr_v3(cr_from_float((float)(-0.45 + 0.9 * (i % 2))), cr_from_float((float)(0.5 + 0.75 * (i / 2))),
                               cr_from_float((float)(-0.4 + 0.8 * ((i / 2) % 2))));
        sd.transform.q = cr_quat_from_axis_angle(cr_v3(CR_R(1), 0, 0), cr_from_float((float)(0.3 * i)));
        sd.mass = CR_R(0.5);
        sd.volume_stiffness = CR_R(50000);
        sd.friction = CR_R(0.8);
        if (cr_soft_create(w, &sd, &ids[i]) != CR_OK) {
            fprintf(stderr, "crumple bench soft: body %d refused\n", i);
            return 1;
        }
        cr_soft_state st;
        cr_soft_get_state(w, ids[i], &st);
        particles += st.particles;
        springs += st.springs;
        const cr_asset *a = &assets[kind[i]].asset;
        cr_vec3 *x = malloc(st.particles * sizeof *x);
        cr_soft_get_positions(w, ids[i], x, st.particles);
        put(&ex, "body %u %u mass %.9g stiffness %.9g bend %.9g volume %.9g friction %.9g\n", st.particles, a->triangle_count,
            cr_to_double(sd.mass), cr_to_double(sd.stiffness), cr_to_double(sd.bend_stiffness),
            cr_to_double(sd.volume_stiffness), cr_to_double(sd.friction));
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
        cr_world_step(w, CR_R(1.0 / 60.0));
        ms[s] = (double)(crp_clock_ns() - t0) * 1e-6;
        total += ms[s];
        work += cr_world_get_stats(w).spring.work;
    }
    qsort(ms, (size_t)steps, sizeof *ms, cmp_double);
    /* what a player would see: particles inside another body, or outside the box */
    int inside = 0, outside = 0, resting = 0;
    cr_vec3 *xs[PILE];
    for (int i = 0; i < PILE; ++i) {
        xs[i] = malloc(512 * sizeof(cr_vec3));
        cr_soft_get_positions(w, ids[i], xs[i], 512);
    }
    for (int i = 0; i < PILE; ++i) {
        cr_soft_state st;
        cr_soft_get_state(w, ids[i], &st);
        if (st.asleep || cr_to_double(cr_v3_len(st.linear_momentum)) / cr_to_double(st.mass) < 0.05) ++resting;
        for (uint32_t p = 0; p < st.particles; ++p) {
            cr_vec3 q = xs[i][p];
            if (fabs(cr_to_double(q.x)) > WALL + 0.02 || fabs(cr_to_double(q.z)) > WALL + 0.02 || cr_to_double(q.y) < -0.02) ++outside;
            for (int j = 0; j < PILE; ++j)
                if (j != i && winding(&assets[kind[j]].asset, xs[j], q) > 0.5) ++inside;
        }
    }
    for (int i = 0; i < PILE; ++i) free(xs[i]);
    if (json)
        printf("{\"bench\":\"soft_pile\",\"bodies\":%d,\"particles\":%u,\"springs\":%u,\"steps\":%d,\"ms_per_step_median\":%.4f,"
               "\"ms_per_step_mean\":%.4f,\"work_per_step\":%.0f,\"particles_inside_another\":%d,\"particles_outside\":%d,"
               "\"resting\":%d,\"mode\":\"%s\"}\n",
               PILE, particles, springs, steps, ms[steps / 2], total / steps, (double)work / steps, inside, outside, resting,
               CR_MODE_NAME);
    else
        printf("soft_pile (%s): %d bodies, %u particles, %u springs, %d steps at 1/60 s\n"
               "  ms/step: median %.3f, mean %.3f; soft work %.0f units/step\n"
               "  particles inside another body: %d; outside the box: %d; at rest: %d of %d\n",
               CR_MODE_NAME, PILE, particles, springs, steps, ms[steps / 2], total / steps, (double)work / steps, inside,
               outside, resting, PILE);
    free(ms);
    free(block);
    for (int k = 0; k < 3; ++k) {
        free(assets[k].block);
        cr_cook_result_free(&assets[k].cooked);
    }
    return 0;
}
