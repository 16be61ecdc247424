/* peer_common.h — what the Bullet and ODE peer programs share: reading a scene's
 * layout (tests/peers/peer_scenes.py writes it), the terrain and torus of
 * ../shared/peer-scenes.md, the step clock and the one-line JSON report.
 *
 * The peers are benchmark programs, not product code: they may use libm, the
 * heap and stdio freely. Each prints one JSON object, which the driver
 * (tests/peers/bench_peers.py) puts next to crumple's `crumple bench --poses`:
 *
 *   {"engine":"bullet","scene":"pile","sleep":true,"steps":600,"median_ms":..,"max_ms":..,
 *    "max_rise":..,"poses":[[x,y,z,qx,qy,qz,qw],...]}     (dynamic bodies in layout order)
 */
#ifndef PEER_COMMON_H
#define PEER_COMMON_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PEER_STEPS 600
#define PEER_DT (1.0 / 60.0)
#define PEER_MAX_BODIES 4096

enum { PEER_SPHERE, PEER_BOX, PEER_TORUS };

typedef struct peer_body {
    int kind;
    double size[3]; /* sphere: r; box: half extents; torus: R, r */
    double p[3], q[4]; /* x y z w */
    double v[3], w[3]; /* m/s, rad/s (world) at the start: a `velocity` line after the body */
} peer_body;

typedef struct peer_layout {
    char scene[32];
    double friction, restitution; /* combined, what every pair must get */
    int count;
    peer_body body[PEER_MAX_BODIES];
} peer_layout;

static int peer_read_layout(const char *path, peer_layout *l) {
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "%s: cannot open\n", path);
        return 1;
    }
    if (fscanf(f, " scene %31s friction %lf restitution %lf", l->scene, &l->friction, &l->restitution) != 3) {
        fprintf(stderr, "%s:1: bad header\n", path);
        fclose(f);
        return 1;
    }
    char kind[16];
    l->count = 0;
    while (fscanf(f, " %15s", kind) == 1) {
        peer_body *b = &l->body[l->count];
        int ok;
        if (strcmp(kind, "velocity") == 0 && l->count > 0) {
            peer_body *last = &l->body[l->count - 1];
            if (fscanf(f, "%lf %lf %lf %lf %lf %lf", &last->v[0], &last->v[1], &last->v[2], &last->w[0], &last->w[1],
                       &last->w[2]) != 6) {
                fprintf(stderr, "%s: bad velocity after body %d\n", path, l->count);
                fclose(f);
                return 1;
            }
            continue;
        }
        if (l->count >= PEER_MAX_BODIES) break;
        memset(b, 0, sizeof *b);
        if (strcmp(kind, "sphere") == 0) {
            b->kind = PEER_SPHERE;
            ok = fscanf(f, "%lf", &b->size[0]) == 1;
        } else if (strcmp(kind, "box") == 0) {
            b->kind = PEER_BOX;
            ok = fscanf(f, "%lf %lf %lf", &b->size[0], &b->size[1], &b->size[2]) == 3;
        } else if (strcmp(kind, "torus") == 0) {
            b->kind = PEER_TORUS;
            ok = fscanf(f, "%lf %lf", &b->size[0], &b->size[1]) == 2;
        } else {
            ok = 0;
        }
        ok = ok && fscanf(f, "%lf %lf %lf %lf %lf %lf %lf", &b->p[0], &b->p[1], &b->p[2], &b->q[0], &b->q[1], &b->q[2],
                          &b->q[3]) == 7;
        if (!ok) {
            fprintf(stderr, "%s: bad body %d\n", path, l->count + 1);
            fclose(f);
            return 1;
        }
        ++l->count;
    }
    fclose(f);
    return 0;
}

/* The terrain of the spec: 65 x 65 vertices one metre apart centred on the
 * origin, 8192 triangles wound to face up. */
#define PEER_TERRAIN_N 64
static double peer_terrain_height(double x, double z) {
    return 0.8 * sin(0.45 * x) * cos(0.45 * z) + 0.25 * sin(1.3 * x + 0.5) * sin(1.1 * z + 0.2);
}
static void peer_terrain_mesh(float *v /* 65*65*3 */, int *t /* 64*64*6 */) {
    const int row = PEER_TERRAIN_N + 1;
    for (int k = 0; k < row; ++k)
        for (int i = 0; i < row; ++i) {
            double x = -32.0 + i, z = -32.0 + k;
            float *p = v + 3 * (i + k * row);
            p[0] = (float)x, p[1] = (float)peer_terrain_height(x, z), p[2] = (float)z;
        }
    for (int k = 0, n = 0; k < PEER_TERRAIN_N; ++k)
        for (int i = 0; i < PEER_TERRAIN_N; ++i) {
            int a = i + k * row, b = i + (k + 1) * row, c = i + 1 + (k + 1) * row, d = i + 1 + k * row;
            t[n++] = a, t[n++] = b, t[n++] = c, t[n++] = a, t[n++] = c, t[n++] = d;
        }
}

/* The spec's torus: 20 x 10 segments, 200 vertices, 400 outward triangles. */
#define PEER_TORUS_U 20
#define PEER_TORUS_W 10
static void peer_torus_mesh(double R, double r, float *v /* 200*3 */, int *t /* 400*3 */) {
    const double two_pi = 6.283185307179586;
    for (int i = 0; i < PEER_TORUS_U; ++i)
        for (int j = 0; j < PEER_TORUS_W; ++j) {
            double u = two_pi * i / PEER_TORUS_U, w = two_pi * j / PEER_TORUS_W, ring = R + r * cos(w);
            float *p = v + 3 * (i * PEER_TORUS_W + j);
            p[0] = (float)(ring * cos(u)), p[1] = (float)(r * sin(w)), p[2] = (float)(ring * sin(u));
        }
    for (int i = 0, n = 0; i < PEER_TORUS_U; ++i)
        for (int j = 0; j < PEER_TORUS_W; ++j) {
            int a = i * PEER_TORUS_W + j, b = i * PEER_TORUS_W + (j + 1) % PEER_TORUS_W;
            int c = ((i + 1) % PEER_TORUS_U) * PEER_TORUS_W + (j + 1) % PEER_TORUS_W;
            int d = ((i + 1) % PEER_TORUS_U) * PEER_TORUS_W + j;
            t[n++] = a, t[n++] = b, t[n++] = c, t[n++] = a, t[n++] = c, t[n++] = d;
        }
}

/* Solid torus of mass m about its own axes (symmetry axis y). */
static void peer_torus_inertia(double m, double R, double r, double out[3]) {
    double diameter = m * (0.5 * R * R + 0.625 * r * r), axis = m * (R * R + 0.75 * r * r);
    out[0] = diameter, out[1] = axis, out[2] = diameter;
}

static double peer_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* This process's CPU time, as `crumple bench`'s cpu_* figures (C clock()): on
 * a shared machine wall time includes waiting for a core, CPU time does not. */
static double peer_cpu_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int peer_cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double peer_median(double *v, int n) {
    qsort(v, (size_t)n, sizeof v[0], peer_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* ms[] (wall) and cpu[] (CPU) are sorted in place. poses: count x 7 doubles. */
static void peer_report(const char *engine, const char *scene, int sleep, double *ms, double *cpu, int steps,
                        double max_rise, const double *poses, int count) {
    double median = peer_median(ms, steps), cpu_median = peer_median(cpu, steps);
    printf("{\"engine\":\"%s\",\"scene\":\"%s\",\"sleep\":%s,\"steps\":%d,\"median_ms\":%.4f,\"max_ms\":%.4f,"
           "\"cpu_median_ms\":%.4f,\"cpu_max_ms\":%.4f,\"max_rise\":%.9g,\"poses\":[",
           engine, scene, sleep ? "true" : "false", steps, median, ms[steps - 1], cpu_median, cpu[steps - 1], max_rise);
    for (int i = 0; i < count; ++i) {
        const double *p = poses + 7 * i;
        printf("%s[%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g]", i ? "," : "", p[0], p[1], p[2], p[3], p[4], p[5], p[6]);
    }
    printf("]}\n");
    fflush(stdout);
}

#endif
