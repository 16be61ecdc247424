/* bench_squash.c — `crumple_stage_bench squash [--json] [--updates N]`: what the
 * skin update of seed 003 costs (issue 15's target: <= 0.2 ms per step for
 * a 10k-vertex squishy body under a sphere, in float; fixed beside it).
 *
 *   ball     a point skeleton's sphere (R 1 m, surface at 0.45 m) meshed
 *            with 10 086 vertices, a rigid ball (0.25 m) pressed 3 to 9 cm
 *            into its top, moving a little every update as in a game
 *   capsule  a capsule 4 times longer (one segment) meshed at the same
 *            spacing, ~40k vertices, the same ball at the same depths: the
 *            zone is the same size, so the time should be too (cost follows
 *            the vertices in the zone, not the body: the rest vertices are
 *            bucketed in cells, as the world model does)
 *   zones    the ball body again under balls of 0.08 to 0.40 m: the zone
 *            grows with the ball, the body does not; the time per zone
 *            vertex should stay flat (cost proportional to the zone)
 * Each update is the whole per-step skin work of the model: the last zone
 * back at rest, the scan, compression, dilation, the volume rule's secant
 * passes, Newton onto the deformed surface, normals. Times are medians.
 */
#include "stage_bench.h"
#include "cli.h"
#include "platform.h"
#include "squash_mesh.h"
#include "damage/squash.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct bench_case {
    const char *name;
    cr_real ball_radius;
    cr_squash_primitive prim;
    cr_vec3 half;
    int cells[3];
} bench_case;

typedef struct bench_out {
    uint32_t vertices, zone_min, zone_max;
    double median_ms, per_zone_us, volume_worst, restored_worst;
} bench_out;

static int run_case(const bench_case *bc, int updates, bench_out *o) {
    cr_squash_mesh m;
    if (cr_squash_mesh_star(&bc->prim, 1, CR_R(0.5), cr_v3_zero(), bc->half, bc->cells, &m) != 0) return -1;
    uint32_t nv = m.vertex_count, nt = m.triangle_count;
    cri_squash_skin s;
    memset(&s, 0, sizeof s);
    cr_vec3 *pos = malloc(nv * sizeof(cr_vec3)), *nor = malloc(nv * sizeof(cr_vec3));
    uint32_t *ts = malloc((nv + 1) * sizeof(uint32_t)), *tl = malloc(3 * (size_t)nt * sizeof(uint32_t));
    uint32_t *cs = malloc((nv + 1) * sizeof(uint32_t)), *cv = malloc(nv * sizeof(uint32_t));
    uint32_t *prev = malloc(nv * sizeof(uint32_t));
    memcpy(pos, m.pos, nv * sizeof(cr_vec3)), memcpy(nor, m.normals, nv * sizeof(cr_vec3));
    cri_squash_vertex_triangles(m.tri, nt, nv, ts, tl);
    cri_squash_cells g;
    cri_squash_cells_build(m.pos, nv, nv, &g, cs, cv);
    s.vertex_count = nv, s.triangle_count = nt, s.rest = m.pos, s.rest_normals = m.normals, s.triangles = m.tri;
    s.tri_start = ts, s.tri_list = tl, s.pos = pos, s.normals = nor, s.cells = &g;
    s.mark = calloc(nv, 1), s.zone = malloc(nv * sizeof(uint32_t)), s.candidates = malloc((nv + nt) * sizeof(uint32_t));
    s.zone_dir = malloc(nv * sizeof(cr_vec3));
    s.zone_c1 = malloc(nv * CRI_SQUASH_MAX_OTHERS * sizeof(cr_real)), s.zone_h = malloc(nv * CRI_SQUASH_MAX_OTHERS * sizeof(cr_real));
    s.zone_capacity = nv;
    cri_squash_params prm;
    memset(&prm, 0, sizeof prm);
    prm.prims = &bc->prim, prm.count = 1, prm.newton_steps = 3;
    prm.c = CR_R(0.5), prm.c0 = CR_R(0.2), prm.peak = CR_R(0.5), prm.fixed_scale = -CR_R(1);
    cr_shape_def ball = {CR_SHAPE_SPHERE, bc->ball_radius, {0, 0, 0}, 0};
    cr_real top = 0;
    for (uint32_t v = 0; v < nv; ++v) top = cr_max(top, m.pos[v].y);
    double *ms = malloc((size_t)updates * sizeof(double)), *per = malloc((size_t)updates * sizeof(double));
    int touching = 0;
    uint32_t prev_count = 0;
    o->vertices = nv, o->zone_min = nv, o->zone_max = 0, o->volume_worst = 0, o->restored_worst = 0;
    for (int u = 0; u < updates; ++u) {
        /* 3..9 cm deep, drifting 2 cm sideways: a different zone every update */
        double depth = 0.03 + 0.06 * (double)(u % 16) / 15.0, dx = 0.02 * (double)(u % 5);
        cri_squash_other o2;
        memset(&o2, 0, sizeof o2);
        o2.kind = CRI_SQUASH_OTHER_SHAPE;
        o2.to_other = cr_transform_identity();
        cr_vec3 at = cr_v3(cr_from_float((float)dx), top + ball.radius - cr_from_float((float)depth), 0);
        o2.to_other.p = cr_v3_neg(at);
        o2.shape = &ball, o2.scale = prm.c, o2.reach = CR_R(0.3);
        o2.bound_centre = at, o2.bound_radius = ball.radius + o2.reach;
        o2.velocity = cr_v3(0, -CR_R(1), 0);
        uint64_t t0 = crp_clock_ns();
        cri_squash_result r = cri_squash_deform(&prm, &s, &o2, 1, prev, prev_count);
        prm.model_bias = r.model_bias; /* as the world model does: the last step's model error is the next one's aim */
        prm.widen_hint = r.widen_next; /* and its zone's width the next one's start */
        uint64_t t1 = crp_clock_ns();
        memcpy(prev, s.zone, r.zone_count * sizeof(uint32_t));
        prev_count = r.zone_count;
        ms[u] = (double)(t1 - t0) * 1e-6;
        if (r.zone_count > 0) per[touching++] = 1e3 * ms[u] / r.zone_count;
        if (r.zone_count < o->zone_min) o->zone_min = r.zone_count;
        if (r.zone_count > o->zone_max) o->zone_max = r.zone_count;
        if (cr_to_double(r.dv) > o->volume_worst) o->volume_worst = cr_to_double(r.dv);
        /* how far from giving back all the compressed volume (share of it) */
        if (r.dv_compressed < 0) {
            double off = fabs(cr_to_double(r.dv) / cr_to_double(r.dv_compressed));
            if (off > o->restored_worst) o->restored_worst = off;
        }
    }
    qsort(ms, (size_t)updates, sizeof(double), cmp_double);
    o->median_ms = ms[updates / 2];
    /* each update's time over its own zone, the median of those (updates with a zone) */
    qsort(per, (size_t)touching, sizeof(double), cmp_double);
    o->per_zone_us = touching > 0 ? per[touching / 2] : 0;
    free(per);
    free(ms), free(pos), free(nor), free(ts), free(tl), free(cs), free(cv), free(prev);
    free(s.mark), free(s.zone), free(s.candidates), free(s.zone_c1), free(s.zone_h), free(s.zone_dir);
    cr_squash_mesh_free(&m);
    return 0;
}

int cr_bench_squash(int argc, char **argv) {
    int json = 0, updates = 400;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--json") == 0) json = 1;
        else if (strcmp(argv[i], "--updates") == 0 && i + 1 < argc) updates = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: crumple_stage_bench squash [--json] [--updates N]\n");
            return 2;
        }
    }
    if (updates < 3) updates = 3;
    bench_case cases[2];
    memset(cases, 0, sizeof cases);
    cases[0].ball_radius = cases[1].ball_radius = CR_R(0.25);
    cases[0].name = "ball";
    cases[0].prim = cr_default_squash_primitive();
    cases[0].half = cr_v3(CR_R(0.4537), CR_R(0.4537), CR_R(0.4537));
    cases[0].cells[0] = cases[0].cells[1] = cases[0].cells[2] = 40;
    cases[1].name = "capsule";
    cases[1].prim = cr_default_squash_primitive();
    cases[1].prim.type = CR_SQUASH_SEGMENT;
    cases[1].prim.a = cr_v3(-CR_R(1.8), 0, 0), cases[1].prim.b = cr_v3(CR_R(1.8), 0, 0);
    cases[1].half = cr_v3(CR_R(2.2537), CR_R(0.4537), CR_R(0.4537));
    cases[1].cells[0] = 200, cases[1].cells[1] = cases[1].cells[2] = 40;
    bench_out out[2];
    for (int k = 0; k < 2; ++k)
        if (run_case(&cases[k], updates, &out[k]) != 0) {
            fprintf(stderr, "crumple_stage_bench squash: could not mesh the %s\n", cases[k].name);
            return 1;
        }
    if (json) {
        printf("{\"mode\": \"%s\", \"updates\": %d, \"cases\": [", CR_MODE_NAME, updates);
        for (int k = 0; k < 2; ++k)
            printf("%s{\"name\": \"%s\", \"vertices\": %u, \"zone_min\": %u, \"zone_max\": %u, \"median_ms\": %.4f, "
                   "\"us_per_zone_vertex\": %.4f}", k ? ", " : "", cases[k].name, out[k].vertices, out[k].zone_min,
                   out[k].zone_max, out[k].median_ms, out[k].per_zone_us);
        printf("]}\n");
        return 0;
    }
    printf("squash skin update (seed 003 §3 + the volume rule), %s, median of %d updates\n", CR_MODE_NAME, updates);
    printf("  %-8s %9s %15s %12s %16s %22s\n", "body", "vertices", "zone vertices", "ms/update", "us/zone vertex",
           "volume left lost, worst");
    for (int k = 0; k < 2; ++k)
        printf("  %-8s %9u %7u..%-7u %12.4f %16.4f %20.1f %%\n", cases[k].name, out[k].vertices, out[k].zone_min, out[k].zone_max,
               out[k].median_ms, out[k].per_zone_us, 100 * out[k].restored_worst);
    printf("  target (issue 15): <= 0.2 ms for the 10k-vertex body in float; the 4x longer body within 1.5x of it\n");
    /* cost against zone size: the same body, balls from small to large */
    static const double radii[] = {0.08, 0.15, 0.25, 0.40};
    printf("  cost vs zone (the ball body, %d updates each):\n  %8s %15s %12s %16s\n", updates, "ball r", "zone vertices",
           "ms/update", "us/zone vertex");
    for (int i = 0; i < 4; ++i) {
        bench_case z = cases[0];
        z.ball_radius = cr_from_float((float)radii[i]);
        bench_out o;
        if (run_case(&z, updates, &o) != 0) return 1;
        printf("  %8.2f %7u..%-7u %12.4f %16.4f\n", radii[i], o.zone_min, o.zone_max, o.median_ms, o.per_zone_us);
    }
    return 0;
}
