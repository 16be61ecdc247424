/* bench_example.c — `crumple_stage_bench example [--json] [--segments N]`: what
 * example-based plasticity (seed 001) costs, against the targets.
 *
 * The body is the bar of data/meshes/bar.obj (4 x 0.5 x 0.5 m, rigged by
 * data/rigs/bar.rig, posed by data/poses/bar.pose), generated here with every
 * face split into a fine grid (--segments along the bar, default 160: ~10k
 * vertices) so the numbers are about a game-sized mesh, not 36 vertices.
 *   reskin   one pass of eq. 3 (QLERP about each bone's pivot) over every
 *            vertex with a mixed weight row, next to a memcpy of the vertex
 *            bytes (issue 13: within 4x of the memcpy for the car)
 *   step     the plastic bar (static) under a rain of balls, 600 steps: the
 *            damage stage's time over the rest of the step (issue 13: at most
 *            15 % on the pachinko scene; seed Table 2: 42-59 %)
 * Times are medians of repeated runs on the host's monotonic clock.
 */
#include "stage_bench.h"
#include "cli.h"
#include "cook.h"
#include "obj.h"
#include "platform.h"
#include "geometry/skinning.h"
#include "geometry/surface_copy.h"

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

/* The bar's box with each face a grid: n cells along x, k across. */
static char *bar_obj(int n, int k, size_t *len) {
    size_t cap = (size_t)(6 * (n + 1) * (n + 1) + 64) * 160, used = 0;
    char *s = malloc(cap);
    if (s == NULL) return NULL;
    /* faces: origin, edge u, edge v (outward by the right-hand rule) */
    const double hx = 2, h = 0.25;
    const double f[6][9] = {
        {-hx, -h, h, 2 * hx, 0, 0, 0, 2 * h, 0},  {hx, -h, -h, -2 * hx, 0, 0, 0, 2 * h, 0},
        {-hx, h, h, 2 * hx, 0, 0, 0, 0, -2 * h},  {-hx, -h, -h, 2 * hx, 0, 0, 0, 0, 2 * h},
        {hx, -h, h, 0, 0, -2 * h, 0, 2 * h, 0},   {-hx, -h, -h, 0, 0, 2 * h, 0, 2 * h, 0},
    };
    int base = 1;
    for (int q = 0; q < 6; ++q) {
        int nu = q < 4 ? n : k, nv = k;
        for (int j = 0; j <= nv; ++j)
            for (int i = 0; i <= nu; ++i) {
                double u = (double)i / nu, v = (double)j / nv;
                used += (size_t)snprintf(s + used, cap - used, "v %.9g %.9g %.9g\n", f[q][0] + u * f[q][3] + v * f[q][6],
                                         f[q][1] + u * f[q][4] + v * f[q][7], f[q][2] + u * f[q][5] + v * f[q][8]);
            }
        for (int j = 0; j < nv; ++j)
            for (int i = 0; i < nu; ++i) {
                int a = base + j * (nu + 1) + i;
                used += (size_t)snprintf(s + used, cap - used, "f %d %d %d %d\n", a, a + 1, a + nu + 2, a + nu + 1);
            }
        base += (nu + 1) * (nv + 1);
    }
    *len = used;
    return s;
}

/* Issue 13's own subject: re-skinning the car of data/scenes/example_car.scene
 * (data/meshes/car.obj, data/rigs/car.rig: 30 bones, data/poses/car.pose: 6
 * examples; the grid of data/meshes/car.cook), one weight row everywhere and
 * a row of its own per vertex, against a memcpy of its vertex bytes. */
typedef struct car_numbers {
    uint32_t vertices, bones, examples, lane_blocks, lane_uniform, blocks, influences[5];
    double reskin, own, copy, lanes, frames;
    int same;
} car_numbers;

static int bench_car(car_numbers *c) {
    cr_cook_options opt = cr_cook_default_options();
    opt.quiet = true;
    opt.sdf_res = 48;
    opt.rig_path = "data/rigs/car.rig";
    opt.poses_path = "data/poses/car.pose";
    cr_cook_result cooked;
    char err[1024];
    if (cr_cook_file("data/meshes/car.obj", NULL, &opt, &cooked, err, sizeof err) != 0) {
        fprintf(stderr, "crumple_stage_bench example: %s\n", err);
        return 0;
    }
    size_t need = cr_asset_memory_size(cooked.bytes, cooked.size);
    need = (need + CR_BLOCK_ALIGN - 1) / CR_BLOCK_ALIGN * CR_BLOCK_ALIGN;
    void *ablock = need ? aligned_alloc(CR_BLOCK_ALIGN, need) : NULL;
    cr_asset a;
    if (ablock == NULL || cr_asset_load(cooked.bytes, cooked.size, ablock, need, &a, NULL) != CR_OK) {
        fprintf(stderr, "crumple_stage_bench example: the car does not load\n");
        free(ablock);
        cr_cook_result_free(&cooked);
        return 0;
    }
    uint32_t nv = a.vertex_count, ne = a.example_count;
    memset(c, 0, sizeof *c);
    c->vertices = nv, c->bones = a.bone_count, c->examples = ne;
    for (uint32_t v = 0; v < nv; ++v) {
        uint32_t k = 0;
        for (uint32_t s = 0; s < CR_ASSET_SKIN_SLOTS; ++s) k += a.skin_weight[CR_ASSET_SKIN_SLOTS * v + s] != 0;
        c->influences[k]++;
    }
    cr_real *rows = malloc(sizeof(cr_real) * nv * ne), *own = malloc(sizeof(cr_real) * nv * ne);
    for (uint32_t v = 0; v < nv; ++v)
        for (uint32_t e = 0; e < ne; ++e) {
            double f = 0.5 * (double)(v % 97) / 97.0;
            rows[v * ne + e] = CR_R(e == 0 ? 0.5 : e == ne - 1 ? 0.5 : 0); /* half crushed */
            own[v * ne + e] = CR_R(e == 0 ? 1.0 - f : e == ne - 1 ? f : 0);
        }
    cr_skin_frame *frames = malloc(sizeof(cr_skin_frame) * a.bone_count * ne);
    cr_skin_blend *blends = malloc(sizeof(cr_skin_blend) * a.bone_count);
    cr_vec3 *out = malloc(sizeof(cr_vec3) * nv), *copy = malloc(sizeof(cr_vec3) * nv), *ref = malloc(sizeof(cr_vec3) * nv);
    void *lmem = aligned_alloc(16, (cri_skin_lanes_bytes(nv) + 15) / 16 * 16);
    cr_skin_lanes lanes = cri_skin_lanes_view(lmem, nv);
    uint64_t t0 = crp_clock_ns();
    cri_skin_lanes_build(&a, &lanes);
    c->lanes = (double)(crp_clock_ns() - t0) * 1e-6;
    cri_skin_lanes_count(&lanes, &c->lane_blocks, &c->lane_uniform);
    c->blocks = lanes.blocks;
    enum { REPS = 201, INNER = 10 }; /* a small mesh: each sample is INNER passes */
    static double t_skin[REPS], t_own[REPS], t_copy[REPS];
    c->same = 1;
    double sink = 0;
    for (int r = 0; r < REPS; ++r) {
        cr_skin_cache cache;
        t0 = crp_clock_ns();
        for (int k = 0; k < INNER; ++k) {
            cri_skin_example_frames(&a, frames);
            cri_skin_cache_init(&cache, blends, &a);
            cache.lanes = CR_SKIN_VECTOR_LANES ? &lanes : NULL;
            cri_skin_example_points(&a, frames, &cache, 0, nv, rows, out);
        }
        t_skin[r] = (double)(crp_clock_ns() - t0) * 1e-6 / INNER;
        t0 = crp_clock_ns();
        for (int k = 0; k < INNER; ++k) memcpy(copy, out, sizeof(cr_vec3) * nv);
        t_copy[r] = (double)(crp_clock_ns() - t0) * 1e-6 / INNER;
        sink += cr_to_double(copy[(uint32_t)r % nv].x);
        t0 = crp_clock_ns();
        for (int k = 0; k < INNER; ++k) {
            cri_skin_example_frames(&a, frames);
            cri_skin_cache_init(&cache, blends, &a);
            cache.lanes = CR_SKIN_VECTOR_LANES ? &lanes : NULL;
            cri_skin_example_points(&a, frames, &cache, 0, nv, own, out);
        }
        t_own[r] = (double)(crp_clock_ns() - t0) * 1e-6 / INNER;
        if (r == 0) {
            for (uint32_t v = 0; v < nv; ++v) ref[v] = cri_skin_example_point(&a, frames, v, a.positions[v], &own[v * ne]);
            c->same = memcmp(ref, out, sizeof(cr_vec3) * nv) == 0;
        }
    }
    /* of which the example frames (cri_skin_example_frames: every bone's every example, once per re-skin) */
    static double t_frames[REPS];
    for (int r = 0; r < REPS; ++r) {
        t0 = crp_clock_ns();
        for (int k = 0; k < INNER; ++k) cri_skin_example_frames(&a, frames);
        t_frames[r] = (double)(crp_clock_ns() - t0) * 1e-6 / INNER;
        sink += cr_to_double(frames[(uint32_t)r % (a.bone_count * ne)].t.x);
    }
    qsort(t_frames, REPS, sizeof(double), cmp_double);
    c->frames = t_frames[REPS / 2];
    qsort(t_skin, REPS, sizeof(double), cmp_double);
    qsort(t_own, REPS, sizeof(double), cmp_double);
    qsort(t_copy, REPS, sizeof(double), cmp_double);
    c->reskin = t_skin[REPS / 2], c->own = t_own[REPS / 2], c->copy = t_copy[REPS / 2];
    if (sink == 12345.678) printf(" ");
    free(rows), free(own), free(frames), free(blends), free(out), free(copy), free(ref), free(lmem), free(ablock);
    cr_cook_result_free(&cooked);
    return 1;
}

int cr_bench_example(int argc, char **argv) {
    int json = 0, segments = 160;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--json") == 0) json = 1;
        else if (strcmp(argv[i], "--segments") == 0 && i + 1 < argc) segments = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: crumple_stage_bench example [--json] [--segments N]\n");
            return 2;
        }
    }
    if (segments < 8 || segments > 2000) {
        fprintf(stderr, "crumple_stage_bench example: --segments must be in 8..2000\n");
        return 2;
    }
    size_t len = 0;
    char *text = bar_obj(segments, segments / 8 > 2 ? segments / 8 : 2, &len);
    cr_obj obj;
    char err[1024];
    if (text == NULL || cr_obj_parse("bar_fine.obj", text, len, &obj, err, sizeof err) != 0) {
        fprintf(stderr, "crumple_stage_bench example: %s\n", text ? err : "out of memory");
        free(text);
        return 1;
    }
    free(text);
    cr_cook_options opt = cr_cook_default_options();
    opt.quiet = true;
    opt.rig_path = "data/rigs/bar.rig";
    opt.poses_path = "data/poses/bar.pose";
    cr_cook_result cooked;
    int rc = cr_cook_obj("bar_fine.obj", &obj, &opt, &cooked, err, sizeof err);
    cr_obj_free(&obj);
    if (rc != 0) {
        fprintf(stderr, "crumple_stage_bench example: %s\n", err);
        return 1;
    }
    size_t need = cr_asset_memory_size(cooked.bytes, cooked.size);
    need = (need + CR_BLOCK_ALIGN - 1) / CR_BLOCK_ALIGN * CR_BLOCK_ALIGN;
    void *ablock = aligned_alloc(CR_BLOCK_ALIGN, need ? need : CR_BLOCK_ALIGN);
    cr_asset a;
    if (need == 0 || ablock == NULL || cr_asset_load(cooked.bytes, cooked.size, ablock, need, &a, NULL) != CR_OK) {
        fprintf(stderr, "crumple_stage_bench example: the cooked bar does not load\n");
        free(ablock);
        cr_cook_result_free(&cooked);
        return 1;
    }

    /* ---- re-skin vs memcpy ---- */
    uint32_t nv = a.vertex_count, ne = a.example_count;
    cr_real *rows = malloc(sizeof(cr_real) * nv * ne);
    cr_vec3 *out = malloc(sizeof(cr_vec3) * nv), *copy = malloc(sizeof(cr_vec3) * nv);
    const double mix[4] = {0.4, 0.3, 0.2, 0.1};
    for (uint32_t v = 0; v < nv; ++v)
        for (uint32_t e = 0; e < ne; ++e) rows[v * ne + e] = CR_R(e < 4 ? mix[e] : 0);
    /* rows of their own: what a fade spreads (eq. 11-13), a different row at every vertex */
    cr_real *own = malloc(sizeof(cr_real) * nv * ne);
    for (uint32_t v = 0; v < nv; ++v) {
        double f = 0.3 * (double)(v % 97) / 97.0;
        for (uint32_t e = 0; e < ne; ++e) own[v * ne + e] = CR_R(e == 0 ? 1.0 - f : e == 1 ? f : 0);
    }
    enum { REPS = 31 };
    double t_skin[REPS], t_copy[REPS];
    double sink = 0;
    cr_skin_frame *frames = malloc(sizeof(cr_skin_frame) * a.bone_count * ne);
    cr_skin_blend *blends = malloc(sizeof(cr_skin_blend) * a.bone_count);
    /* the rest data four vertices at a time, as the model gathers it at attach */
    void *lmem = aligned_alloc(16, (cri_skin_lanes_bytes(nv) + 15) / 16 * 16);
    cr_skin_lanes lanes = cri_skin_lanes_view(lmem, nv);
    uint64_t tl0 = crp_clock_ns();
    cri_skin_lanes_build(&a, &lanes);
    double t_lanes = (double)(crp_clock_ns() - tl0) * 1e-6;
    uint32_t lane_blocks = 0, lane_uniform = 0;
    cri_skin_lanes_count(&lanes, &lane_blocks, &lane_uniform);
    cr_vec3 *ref = malloc(sizeof(cr_vec3) * nv);
    double t_vary[REPS], t_percall[REPS], t_own[REPS], t_hot[REPS];
    int same = 1;
    enum { HOT = 1024, HOT_REPS = 13 };
    for (int r = 0; r < REPS; ++r) {
        /* as the model does: the frames once per re-skin, the body's lanes, each bone's blend once per run of equal rows */
        uint64_t t0 = crp_clock_ns();
        cr_skin_cache cache;
        cri_skin_example_frames(&a, frames);
        cri_skin_cache_init(&cache, blends, &a);
        cache.lanes = &lanes;
        cri_skin_example_points(&a, frames, &cache, 0, nv, rows, out);
        t_skin[r] = (double)(crp_clock_ns() - t0) * 1e-6;
        /* the same kernel over the first HOT vertices again and again (L1-hot), scaled: the arithmetic alone */
        t0 = crp_clock_ns();
        for (int k = 0; k < HOT_REPS; ++k) {
            cri_skin_cache_init(&cache, blends, &a);
            cache.lanes = &lanes;
            cri_skin_example_points(&a, frames, &cache, 0, HOT, rows, copy);
        }
        t_hot[r] = (double)(crp_clock_ns() - t0) * 1e-6 * ((double)nv / ((double)HOT * HOT_REPS));
        /* one call per vertex, as the model did before cri_skin_example_points */
        t0 = crp_clock_ns();
        cri_skin_cache_init(&cache, blends, &a);
        for (uint32_t v = 0; v < nv; ++v)
            ref[v] = cri_skin_example_point_cached(&a, frames, &cache, v, a.positions[v], &rows[v * ne]);
        t_percall[r] = (double)(crp_clock_ns() - t0) * 1e-6;
        same &= memcmp(ref, out, sizeof(cr_vec3) * nv) == 0;
        /* a row of its own at every vertex: no blend to share, the QLERPs in the lanes */
        t0 = crp_clock_ns();
        cri_skin_cache_init(&cache, blends, &a);
        cache.lanes = &lanes;
        cri_skin_example_points(&a, frames, &cache, 0, nv, own, out);
        t_own[r] = (double)(crp_clock_ns() - t0) * 1e-6;
        /* ... and vertex by vertex (the reference) */
        t0 = crp_clock_ns();
        for (uint32_t v = 0; v < nv; ++v) ref[v] = cri_skin_example_point(&a, frames, v, a.positions[v], &own[v * ne]);
        t_vary[r] = (double)(crp_clock_ns() - t0) * 1e-6;
        same &= memcmp(ref, out, sizeof(cr_vec3) * nv) == 0;
        t0 = crp_clock_ns();
        memcpy(copy, out, sizeof(cr_vec3) * nv);
        t_copy[r] = (double)(crp_clock_ns() - t0) * 1e-6;
        sink += cr_to_double(copy[r % nv].y);
    }
    qsort(t_own, REPS, sizeof(double), cmp_double);
    qsort(t_hot, REPS, sizeof(double), cmp_double);
    qsort(t_skin, REPS, sizeof(double), cmp_double);
    qsort(t_copy, REPS, sizeof(double), cmp_double);
    qsort(t_vary, REPS, sizeof(double), cmp_double);
    qsort(t_percall, REPS, sizeof(double), cmp_double);

    /* ---- a world: the plastic bar under a rain of balls ---- */
    cr_world_def def = cr_default_world_def();
    def.body_capacity = 128;
    def.damage.example = cr_default_example_budget();
    def.damage.example.body_capacity = 1;
    def.damage.example.max_vertices = nv;
    def.damage.example.max_examples = ne;
    def.damage.surface_bytes = cri_surface_copy_bytes(&a) + 4096;
    def.clock_ns = clock_hook;
    size_t wsize = cr_world_memory_size(&def);
    void *wblock = wsize ? aligned_alloc(CR_BLOCK_ALIGN, (wsize + 15) / 16 * 16) : NULL;
    cr_world *w = NULL;
    uint32_t slot = 0;
    cr_body_id bar = {0, 0}, ball = {0, 0};
    int ok = wblock && cr_world_create(&def, wblock, wsize, &w) == CR_OK && cr_world_add_asset(w, &a, &slot) == CR_OK;
    cr_body_def bd = cr_default_body_def();
    bd.type = CR_BODY_STATIC;
    bd.shape.type = CR_SHAPE_MESH;
    bd.shape.asset = slot;
    ok = ok && cr_body_create(w, &bd, &bar) == CR_OK;
    cr_example_def ed = cr_default_example_def();
    ed.alpha = CR_R(20);
    ed.beta = CR_R(50);
    ed.gamma = CR_R(0.5);
    ok = ok && cr_example_attach(w, bar, &ed) == CR_OK;
    enum { STEPS = 600 };
    double *t_step = malloc(sizeof(double) * STEPS), *t_damage = malloc(sizeof(double) * STEPS);
    uint64_t impulses = 0, work = 0;
    for (int i = 0; ok && i < STEPS; ++i) {
        if (i % 10 == 0) {
            cr_body_def s = cr_default_body_def();
            s.shape.type = CR_SHAPE_SPHERE;
            s.shape.radius = CR_R(0.12);
            s.material.density = CR_R(8000);
            s.position = cr_v3(CR_R(-1.8 + 3.6 * ((i * 37) % 100) / 100.0), CR_R(2), CR_R(0.2 * ((i * 13) % 3) - 0.2));
            s.linear_velocity = cr_v3(0, CR_R(-8), 0);
            if (cr_body_create(w, &s, &ball) != CR_OK) break; /* full: the rain stops */
        }
        uint64_t t0 = crp_clock_ns();
        ok = cr_world_step(w, CR_R(1.0 / 60.0)) == CR_OK;
        t_step[i] = (double)(crp_clock_ns() - t0) * 1e-6;
        cr_world_stats st = cr_world_get_stats(w);
        t_damage[i] = (double)st.stage[CR_STAGE_damage].time_ns * 1e-6;
        impulses += st.example.done;
        work += st.example.work;
    }
    /* the rows the rain left, re-skinned whole as the model does (runs of equal rows share their blends) */
    double t_left[REPS];
    uint32_t distinct = 0;
    cr_example_view ev;
    for (int r = 0; ok && r < REPS && cr_example_get(w, bar, &ev) == CR_OK; ++r) {
        uint64_t t0 = crp_clock_ns();
        cr_skin_cache cache;
        cri_skin_example_frames(&a, frames);
        cri_skin_cache_init(&cache, blends, &a);
        cache.lanes = &lanes;
        cri_skin_example_points(&a, frames, &cache, 0, nv, ev.weights, out);
        t_left[r] = (double)(crp_clock_ns() - t0) * 1e-6;
        distinct = cache.stamp;
        sink += cr_to_double(out[r % nv].x);
    }
    qsort(t_left, REPS, sizeof(double), cmp_double);
    double sum_step = 0, sum_damage = 0;
    for (int i = 0; i < STEPS; ++i) sum_step += t_step[i], sum_damage += t_damage[i];
    double rigid = sum_step - sum_damage;
    car_numbers car;
    ok = ok && bench_car(&car);
    if (!ok) fprintf(stderr, "crumple_stage_bench example: the world failed\n");
    else if (json)
        printf("{\"bench\":\"example\",\"vertices\":%u,\"examples\":%u,\"bones\":%u,\"reskin_ms\":%.4f,\"memcpy_ms\":%.4f,"
               "\"reskin_over_memcpy\":%.1f,\"reskin_per_call_ms\":%.4f,\"reskin_unshared_ms\":%.4f,\"reskin_after_rain_ms\":%.4f,"
               "\"rows_runs_after_rain\":%u,\"steps\":%d,\"impulses\":%llu,\"work\":%llu,\"rigid_ms_per_step\":%.4f,"
               "\"damage_ms_per_step\":%.4f,\"damage_over_rigid\":%.3f,\"reskin_own_rows_ms\":%.4f,\"reskin_l1_hot_ms\":%.4f,"
               "\"lanes_ms\":%.4f,\"lane_blocks\":%u,\"blocks\":%u,\"same_bits\":%s,\"car_vertices\":%u,"
               "\"car_reskin_ms\":%.5f,\"car_own_rows_ms\":%.5f,\"car_memcpy_ms\":%.5f,\"car_reskin_over_memcpy\":%.1f,"
               "\"car_same_bits\":%s}\n",
               nv, ne, a.bone_count, t_skin[REPS / 2], t_copy[REPS / 2], t_skin[REPS / 2] / t_copy[REPS / 2],
               t_percall[REPS / 2], t_vary[REPS / 2], t_left[REPS / 2], distinct, STEPS, (unsigned long long)impulses,
               (unsigned long long)work, rigid / STEPS, sum_damage / STEPS, sum_damage / rigid, t_own[REPS / 2],
               t_hot[REPS / 2], t_lanes, lane_blocks, lanes.blocks, same ? "true" : "false", car.vertices, car.reskin, car.own,
               car.copy, car.reskin / car.copy, car.same ? "true" : "false");
    else {
        const double mc = t_copy[REPS / 2];
        printf("bar, %u vertices, %u bones, %u examples (rest included); memcpy of the vertex bytes %.4f ms\n", nv,
               a.bone_count, ne, mc);
        printf("  re-skin, one weight row everywhere        %8.3f ms (%.0fx the memcpy; issue 13: 4x)\n", t_skin[REPS / 2],
               t_skin[REPS / 2] / mc);
        printf("  ... the same, L1-hot                      %8.3f ms (%.0fx: %d vertices %d times, scaled: the arithmetic)\n",
               t_hot[REPS / 2], t_hot[REPS / 2] / mc, HOT, HOT_REPS);
        printf("  ... one call per vertex (the model before)  %8.3f ms (%.0fx)\n", t_percall[REPS / 2],
               t_percall[REPS / 2] / mc);
        printf("  re-skin, a row of its own at every vertex %8.3f ms (%.0fx; what a fade re-skins)\n", t_own[REPS / 2],
               t_own[REPS / 2] / mc);
        printf("  ... vertex by vertex (the reference)      %8.3f ms (%.0fx; %s bits)\n", t_vary[REPS / 2],
               t_vary[REPS / 2] / mc, same ? "the same" : "DIFFERENT");
        printf("  the body's lanes, gathered at attach      %8.3f ms (%u of %u blocks of 4 vertices in the lanes, %u with the "
               "same bones in every lane)\n", t_lanes, lane_blocks, lanes.blocks, lane_uniform);
        printf("  re-skin, the rows the rain left (%u runs)  %8.3f ms (%.0fx)\n", distinct, t_left[REPS / 2],
               t_left[REPS / 2] / mc);
        printf("  %d steps, %llu impulses: rigid %.3f ms/step, damage stage %.3f ms/step (+%.1f %%)\n", STEPS,
               (unsigned long long)impulses, rigid / STEPS, sum_damage / STEPS, 100 * sum_damage / rigid);
        printf("car (example_car), %u vertices, %u bones, %u examples; influences 1: %u, 2: %u, 3: %u, 4: %u; "
               "memcpy of the vertex bytes %.5f ms\n", car.vertices, car.bones, car.examples, car.influences[1],
               car.influences[2], car.influences[3], car.influences[4], car.copy);
        printf("  re-skin, one weight row everywhere        %8.4f ms (%.0fx the memcpy; issue 13: 4x)\n", car.reskin,
               car.reskin / car.copy);
        printf("  re-skin, a row of its own at every vertex %8.4f ms (%.0fx; %s bits as vertex by vertex)\n", car.own,
               car.own / car.copy, car.same ? "the same" : "DIFFERENT");
        printf("  ... of which the %u example frames       %8.4f ms\n", car.bones * car.examples, car.frames);
        printf("  lanes: %u of %u blocks of 4 vertices (%u with the same bones in every lane), gathered in %.3f ms\n",
               car.lane_blocks, car.blocks, car.lane_uniform, car.lanes);
    }
    if (sink == 12345.678) printf(" ");
    free(t_step);
    free(own);
    free(ref);
    free(lmem);
    free(t_damage);
    free(wblock);
    free(rows);
    free(frames);
    free(blends);
    free(out);
    free(copy);
    free(ablock);
    cr_cook_result_free(&cooked);
    return ok ? 0 : 1;
}
