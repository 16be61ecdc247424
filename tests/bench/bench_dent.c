/* bench_dent.c — `crumple_stage_bench dent [--json] [--quick]`: seed 000 Table 1.
 *
 * The Stanford bunny (data/meshes, 70k triangles, 20 cm tall, ears
 * first) is the projectile, as in the seed's Figure 5. For each dent-map grid
 * size the four steps are timed separately: Z-buffer profile, broadening (our
 * linear-time distance transform), the O(N^2) brute-force envelope it
 * replaces, and smoothing. Brute force at 400^2 takes some 20 s; --quick skips
 * it there. Times are the median of repeated runs.
 */
#include "stage_bench.h"
#include "cli.h"
#include "obj.h"
#include "damage/dent_map.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUNNY_PATH "data/meshes/stanford-bunny.obj"

typedef struct bench_row {
    uint32_t n;
    double zbuffer, broaden, brute, smooth;
    uint32_t samples;
} bench_row;

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The bunny in dent-profile coordinates: ears toward the target (+z past the
 * plane), 20 cm tall, its deepest point at height `dent` past the moved plane. */
static cr_vec3 *bunny_profile(const cr_obj *o, double dent, double *half_width) {
    double lo[3] = {1e30, 1e30, 1e30}, hi[3] = {-1e30, -1e30, -1e30};
    for (uint32_t i = 0; i < o->vertex_count; ++i)
        for (int k = 0; k < 3; ++k) {
            double v = o->pos[3 * i + k];
            lo[k] = v < lo[k] ? v : lo[k];
            hi[k] = v > hi[k] ? v : hi[k];
        }
    double scale = 0.2 / (hi[1] - lo[1]);
    cr_vec3 *p = malloc(sizeof(cr_vec3) * o->vertex_count);
    *half_width = 0;
    for (uint32_t i = 0; i < o->vertex_count; ++i) {
        /* model y (up, ears on top) becomes the depth direction */
        double x = (o->pos[3 * i] - 0.5 * (lo[0] + hi[0])) * scale;
        double y = (o->pos[3 * i + 2] - 0.5 * (lo[2] + hi[2])) * scale;
        double z = (o->pos[3 * i + 1] - hi[1]) * scale + dent;
        if (z > 0) {
            double r = fabs(x) > fabs(y) ? fabs(x) : fabs(y);
            *half_width = r > *half_width ? r : *half_width;
        }
        p[i] = cr_v3(cr_from_float((float)x), cr_from_float((float)y), cr_from_float((float)z));
    }
    return p;
}

static double seconds_since(uint64_t t0) { return (double)(crp_clock_ns() - t0) * 1e-9; }

int cr_bench_dent(int argc, char **argv) {
    bool json = false, quick = false;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--json") == 0) json = true;
        else if (strcmp(argv[i], "--quick") == 0) quick = true;
        else {
            fprintf(stderr, "crumple_stage_bench dent: unknown option '%s' (use --json, --quick)\n", argv[i]);
            return 2;
        }
    }
    cr_obj bunny;
    char err[512];
    if (cr_obj_load(BUNNY_PATH, &bunny, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n(the benchmark reads data/meshes/: run from the project root)\n", err);
        return 1;
    }
    const double dent = 0.03, blur = 0.006;
    double half;
    cr_vec3 *pts = bunny_profile(&bunny, dent, &half);
    half += 3 * blur + 0.01;
    static const uint32_t sizes[] = {25, 50, 100, 200, 400};
    bench_row rows[5];
    for (int s = 0; s < 5; ++s) {
        uint32_t n = sizes[s];
        cr_dent_grid g = {n, cr_from_float((float)(2 * half / (n - 1))), calloc((size_t)n * n, sizeof(cr_real))};
        cr_real *tmp = calloc((size_t)n * n, sizeof(cr_real)), *profile = calloc((size_t)n * n, sizeof(cr_real));
        void *scratch = malloc(cri_dent_broaden_scratch_bytes(n));
        double t_z[9], t_b[9], t_s[9];
        int reps = n <= 100 ? 9 : (n <= 200 ? 5 : 3);
        for (int r = 0; r < reps; ++r) {
            uint64_t t0 = crp_clock_ns();
            memset(g.h, 0, (size_t)n * n * sizeof(cr_real));
            cri_dent_zbuffer(&g, pts, bunny.tri, bunny.triangle_count);
            t_z[r] = seconds_since(t0);
            memcpy(profile, g.h, (size_t)n * n * sizeof(cr_real));
            t0 = crp_clock_ns();
            cri_dent_broaden(&g, cr_from_float((float)blur), scratch);
            t_b[r] = seconds_since(t0);
            t0 = crp_clock_ns();
            cri_dent_smooth(&g, 4, 4, cr_from_float((float)dent), tmp);
            t_s[r] = seconds_since(t0);
        }
        qsort(t_z, (size_t)reps, sizeof(double), cmp_double);
        qsort(t_b, (size_t)reps, sizeof(double), cmp_double);
        qsort(t_s, (size_t)reps, sizeof(double), cmp_double);
        rows[s].n = n;
        rows[s].zbuffer = t_z[reps / 2];
        rows[s].broaden = t_b[reps / 2];
        rows[s].smooth = t_s[reps / 2];
        rows[s].samples = 0;
        for (uint32_t i = 0; i < n * n; ++i) rows[s].samples += profile[i] > 0;
        rows[s].brute = -1;
        if (n <= 200 || !quick) {
            cr_dent_grid in = {n, g.cell, profile};
            uint64_t t0 = crp_clock_ns();
            cri_dent_broaden_brute(&in, cr_from_float((float)blur), tmp);
            rows[s].brute = seconds_since(t0);
        }
        if (!json)
            fprintf(stderr, "  %3ux%-3u done\n", n, n);
        free(g.h), free(tmp), free(profile), free(scratch);
    }
    if (json) {
        printf("{\"bench\":\"dent\",\"mode\":\"%s\",\"projectile\":\"stanford-bunny\",\"triangles\":%u,\"rows\":[",
               CR_MODE_NAME, bunny.triangle_count);
        for (int s = 0; s < 5; ++s) {
            printf("%s{\"grid\":%u,\"samples\":%u,\"zbuffer_s\":%.6g,\"broaden_s\":%.6g,", s ? "," : "", rows[s].n,
                   rows[s].samples, rows[s].zbuffer, rows[s].broaden);
            if (rows[s].brute >= 0)
                printf("\"brute_s\":%.6g,\"speedup\":%.1f,", rows[s].brute, rows[s].brute / rows[s].broaden);
            else
                printf("\"brute_s\":null,\"speedup\":null,");
            printf("\"smooth_s\":%.6g,\"total_s\":%.6g}", rows[s].smooth, rows[s].zbuffer + rows[s].broaden + rows[s].smooth);
        }
        printf("],\"seed_table1_s\":{\"100\":{\"zbuffer\":0.0104,\"broaden\":0.0696,\"brute\":3.949,\"smooth\":0.0025}}}\n");
    } else {
        printf("dent map timing, bunny projectile (%u triangles), %s; seconds\n", bunny.triangle_count, CR_MODE_NAME);
        printf("%-9s %10s %10s %10s %10s %10s %9s\n", "grid", "Z-buffer", "broaden", "brute", "smooth", "total", "speedup");
        for (int s = 0; s < 5; ++s) {
            char brute[32] = "skipped", speed[32] = "-";
            if (rows[s].brute >= 0) {
                snprintf(brute, sizeof brute, "%.4g", rows[s].brute);
                snprintf(speed, sizeof speed, "%.0fx", rows[s].brute / rows[s].broaden);
            }
            printf("%3ux%-5u %10.3g %10.3g %10s %10.3g %10.3g %9s\n", rows[s].n, rows[s].n, rows[s].zbuffer,
                   rows[s].broaden, brute, rows[s].smooth, rows[s].zbuffer + rows[s].broaden + rows[s].smooth, speed);
        }
        printf("seed Table 1 at 100x100: Z-buffer 0.0104, broadening 0.0696, brute 3.949, smoothing 0.0025\n");
    }
    free(pts);
    cr_obj_free(&bunny);
    return 0;
}
