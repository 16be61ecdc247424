/* bench_bend.c — `crumple_stage_bench skin` and `crumple_stage_bench bend`: what bending
 * (seed 000 §4) costs, against issue 12's targets.
 *
 *   skin   linear-blend skinning of the Stanford bunny (data/meshes/
 *          stanford-bunny.obj, ~35k triangles, 4 automatic bones) with every
 *          bone turned, next to a memcpy of the same vertex bytes (seed 000:
 *          50 ms; target <= 0.5 ms and within 4x of the memcpy)
 *   bend   segmentation of the bunny into its bones (triangles and grid
 *          nodes: what a re-segmentation after a split costs; seed: ~5 ms),
 *          and the per-step cost of a field of bendable bars falling onto
 *          posts (--bars N, default 64: 3 sub-bodies and 2 plastic joints each)
 * Times are medians of repeated runs on the host's monotonic clock; the
 * fixed-point build (build-fixed/bin/crumple) reports its own numbers.
 */
#include "stage_bench.h"
#include "cli.h"
#include "cook.h"
#include "platform.h"
#include "geometry/skinning.h"
#include "geometry/surface_copy.h"
#include "damage/sub_body.h"
#include "damage/bend_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct bench_asset {
    cr_cook_result cooked;
    cr_asset a;
    void *block;
} bench_asset;

static int load_opt(bench_asset *b, const char *mesh, const char *rig, uint32_t auto_bones, uint32_t sdf_res, bool bend) {
    memset(b, 0, sizeof *b);
    cr_cook_options opt = cr_cook_default_options();
    opt.quiet = true;
    opt.bend = bend;
    opt.rig_path = rig;
    opt.auto_bones = auto_bones;
    if (sdf_res) opt.sdf_res = sdf_res;
    char err[1024];
    if (cr_cook_file(mesh, NULL, &opt, &b->cooked, err, sizeof err) != 0) {
        fprintf(stderr, "crumple_stage_bench: %s\n", err);
        return 0;
    }
    size_t need = cr_asset_memory_size(b->cooked.bytes, b->cooked.size);
    need = (need + CR_BLOCK_ALIGN - 1) / CR_BLOCK_ALIGN * CR_BLOCK_ALIGN;
    b->block = need ? aligned_alloc(CR_BLOCK_ALIGN, need) : NULL;
    if (b->block == NULL || cr_asset_load(b->cooked.bytes, b->cooked.size, b->block, need, &b->a, NULL) != CR_OK) {
        fprintf(stderr, "crumple_stage_bench: %s does not load\n", mesh);
        return 0;
    }
    return 1;
}

static int load(bench_asset *b, const char *mesh, const char *rig, uint32_t auto_bones, uint32_t sdf_res) {
    return load_opt(b, mesh, rig, auto_bones, sdf_res, false);
}

static void unload(bench_asset *b) {
    free(b->block);
    cr_cook_result_free(&b->cooked);
}

int cr_bench_skin(int argc, char **argv) {
    int json = argc > 1 && strcmp(argv[1], "--json") == 0;
    bench_asset b;
    if (!load(&b, "data/meshes/stanford-bunny.obj", NULL, 4, 0)) return 1;
    const cr_asset *a = &b.a;
    uint32_t nv = a->vertex_count;
    cr_skin_bone bones[CR_ASSET_MAX_BONES];
    for (uint32_t k = 0; k < a->bone_count; ++k) {
        /* every bone turned and moved a little, as a bent body's are */
        cr_quat q = {CR_R(0.05) * (cr_real)(k + 1), CR_R(0.02), -CR_R(0.03), CR_R(1)};
        q = cr_quat_normalize(q);
        bones[k].r = cr_mat3_from_quat(q);
        bones[k].t = cr_v3(CR_R(0.01) * (cr_real)k, 0, CR_R(0.02));
    }
    cr_vec3 *out = malloc(sizeof(cr_vec3) * nv), *copy = malloc(sizeof(cr_vec3) * nv);
    enum { REPS = 101 };
    double t_skin[REPS], t_copy[REPS], sink = 0;
    for (int r = 0; r < REPS; ++r) {
        uint64_t t0 = crp_clock_ns();
        cri_skin_linear(a, a->skin_bone, a->skin_weight, bones, 0, nv, out);
        t_skin[r] = (double)(crp_clock_ns() - t0) * 1e-6;
        t0 = crp_clock_ns();
        memcpy(copy, out, sizeof(cr_vec3) * nv);
        t_copy[r] = (double)(crp_clock_ns() - t0) * 1e-6;
        sink += cr_to_double(copy[(uint32_t)r % nv].y);
    }
    /* the grouped layout (structure of arrays): built once, then the same bits faster */
    uint32_t groups = 256, cap = cri_skin_layout_capacity(nv, groups);
    cr_skin_layout l;
    l.order = malloc(sizeof(uint32_t) * cap), l.u = malloc(sizeof(cr_real) * 3 * cap), l.w = malloc(sizeof(cr_real) * 4 * cap);
    l.group_end = malloc(sizeof(uint32_t) * groups), l.group_bone = malloc(4 * groups), l.group_unit = malloc(groups);
    uint32_t *tmp = malloc(sizeof(uint32_t) * 3 * nv);
    double t_build[REPS], t_grouped[REPS];
    int same = 1;
    cr_vec3 *out2 = malloc(sizeof(cr_vec3) * nv);
    for (int r = 0; r < REPS; ++r) {
        uint64_t t0 = crp_clock_ns();
        if (!cri_skin_layout_build(a->positions, a->skin_bone, a->skin_weight, nv, cap, groups, tmp, &l)) return 1;
        t_build[r] = (double)(crp_clock_ns() - t0) * 1e-6;
        t0 = crp_clock_ns();
        cri_skin_linear_grouped(&l, bones, out2);
        t_grouped[r] = (double)(crp_clock_ns() - t0) * 1e-6;
    }
    same = memcmp(out, out2, sizeof(cr_vec3) * nv) == 0;
    /* how many of each vertex's four slots really weigh something: each costs
     * 24 float operations (R u + t, times w, summed), a lone one of weight 1
     * 21 (the multiply by 1 left out) */
    uint32_t inf[5] = {0};
    for (uint32_t v = 0; v < nv; ++v) {
        uint32_t k = 0;
        for (uint32_t s = 0; s < CR_ASSET_SKIN_SLOTS; ++s) k += a->skin_weight[CR_ASSET_SKIN_SLOTS * v + s] != 0;
        inf[k]++;
    }
    /* the arithmetic floor: the same kernel over the first 1024 vertices
     * again and again (24 KB of rest positions, weights and output: L1-hot),
     * scaled to the whole bunny; what is left of the full run is memory */
    enum { SMALL = 1024, SMALL_REPS = 34 };
    double t_small[REPS];
    if (!cri_skin_layout_build(a->positions, a->skin_bone, a->skin_weight, SMALL, cap, groups, tmp, &l)) return 1;
    for (int r = 0; r < REPS; ++r) {
        uint64_t t0 = crp_clock_ns();
        for (int k = 0; k < SMALL_REPS; ++k) cri_skin_linear_grouped(&l, bones, out2);
        t_small[r] = (double)(crp_clock_ns() - t0) * 1e-6 * ((double)nv / ((double)SMALL * SMALL_REPS));
    }
    qsort(t_small, REPS, sizeof(double), cmp_double);
    if (!cri_skin_layout_build(a->positions, a->skin_bone, a->skin_weight, nv, cap, groups, tmp, &l)) return 1;
    qsort(t_build, REPS, sizeof(double), cmp_double);
    qsort(t_grouped, REPS, sizeof(double), cmp_double);
    qsort(t_skin, REPS, sizeof(double), cmp_double);
    qsort(t_copy, REPS, sizeof(double), cmp_double);
    const char *mode = CR_FIXED ? "fixed-q32.32" : "float32";
    double ts = t_grouped[REPS / 2], tp = t_skin[REPS / 2], tc = t_copy[REPS / 2];
    if (json)
        printf("{\"bench\":\"skin\",\"mode\":\"%s\",\"vertices\":%u,\"triangles\":%u,\"bones\":%u,\"skin_ms\":%.4f,"
               "\"plain_ms\":%.4f,\"layout_ms\":%.4f,\"memcpy_ms\":%.4f,\"skin_over_memcpy\":%.2f,\"same_bits\":%s,"
               "\"l1_hot_ms\":%.4f,\"influences\":[%u,%u,%u,%u]}\n",
               mode, nv, a->triangle_count, a->bone_count, ts, tp, t_build[REPS / 2], tc, ts / tc, same ? "true" : "false",
               t_small[REPS / 2], inf[1], inf[2], inf[3], inf[4]);
    else {
        printf("bunny, %u vertices, %u triangles, %u bones (%s)\n", nv, a->triangle_count, a->bone_count, mode);
        printf("  linear blend skinning   %8.4f ms   (grouped%s; seed 000: 50 ms; target 0.5 ms)\n", ts,
               CR_FIXED ? ": the fixed build's model runs vertex by vertex" : ", vectorised: what the bend model runs");
        printf("  memcpy of the vertices  %8.4f ms   (skinning %.2fx; target 4x)\n", tc, ts / tc);
        printf("  the same, L1-hot        %8.4f ms   (1024 vertices %d times, scaled: the arithmetic, %u float ops a vertex)\n",
               t_small[REPS / 2], SMALL_REPS, (21u * inf[1] + 24u * (2 * inf[2] + 3 * inf[3] + 4 * inf[4]) + nv / 2) / nv);
        printf("  vertices by influences  1: %u, 2: %u, 3: %u, 4: %u (non-zero weights of the four slots)\n", inf[1], inf[2],
               inf[3], inf[4]);
        printf("  vertex by vertex        %8.4f ms   (cri_skin_linear; %s bits)\n", tp, same ? "the same" : "DIFFERENT");
        printf("  the layout, built once  %8.4f ms   (%u groups, %u entries; again after a split or a dent)\n",
               t_build[REPS / 2], l.groups, l.count);
    }
    free(l.order), free(l.u), free(l.w), free(l.group_end), free(l.group_bone), free(l.group_unit), free(tmp), free(out2);
    if (sink == 12345.678) printf(" ");
    free(out);
    free(copy);
    unload(&b);
    return 0;
}

static uint64_t clock_hook(void *user) {
    (void)user;
    return crp_clock_ns();
}

int cr_bench_bend(int argc, char **argv) {
    int json = 0, bars = 64;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--json") == 0) json = 1;
        else if (strcmp(argv[i], "--bars") == 0 && i + 1 < argc) bars = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: crumple_stage_bench bend [--json] [--bars N]\n");
            return 2;
        }
    }
    if (bars < 1 || bars > 4096) {
        fprintf(stderr, "crumple_stage_bench bend: --bars must be in 1..4096\n");
        return 2;
    }
    /* ---- segmentation of the bunny ---- */
    bench_asset bunny;
    if (!load(&bunny, "data/meshes/stanford-bunny.obj", NULL, 4, 0)) return 1;
    const cr_asset *a = &bunny.a;
    uint32_t nodes = a->sdf_dims[0] * a->sdf_dims[1] * a->sdf_dims[2];
    uint8_t *node_bone = malloc(nodes), *tri_bone = malloc(a->triangle_count);
    uint32_t *queue = malloc(sizeof(uint32_t) * nodes);
    enum { REPS = 21 };
    double t_seg[REPS];
    for (int r = 0; r < REPS; ++r) {
        uint64_t t0 = crp_clock_ns();
        cri_sub_body_segment(a, a->skin_bone, a->skin_weight, tri_bone, node_bone, queue);
        t_seg[r] = (double)(crp_clock_ns() - t0) * 1e-6;
    }
    qsort(t_seg, REPS, sizeof(double), cmp_double);
    free(node_bone);
    free(tri_bone);
    free(queue);

    /* ---- the bunny made bendable: attach (segmenting, or with the cooked BNDT/BNDN/BNDM), and one joint's seam ---- */
    bench_asset cooked;
    if (!load_opt(&cooked, "data/meshes/stanford-bunny.obj", NULL, 4, 0, true)) return 1;
    enum { AREPS = 7 };
    double t_attach[2][AREPS], t_seam[AREPS];
    uint32_t seam_nodes = 0;
    for (int c = 0; c < 2; ++c) {
        const cr_asset *ba = c ? &cooked.a : a;
        cr_world_def bdef = cr_default_world_def();
        bdef.body_capacity = 16;
        bdef.damage.bend = cr_default_bend_budget();
        bdef.damage.bend.body_capacity = 1;
        bdef.damage.bend.max_vertices = ba->vertex_count;
        bdef.damage.bend.max_triangles = ba->triangle_count;
        bdef.damage.bend.max_grid_nodes = nodes;
        bdef.damage.surface_bytes = 8 * (cri_surface_copy_bytes(ba) + 64);
        size_t bsize = cr_world_memory_size(&bdef);
        void *bblock = bsize ? aligned_alloc(CR_BLOCK_ALIGN, (bsize + 15) / 16 * 16) : NULL;
        for (int r = 0; r < AREPS; ++r) {
            cr_world *bw = NULL;
            uint32_t bslot;
            cr_body_id bid;
            cr_body_def bbd = cr_default_body_def();
            bbd.shape.type = CR_SHAPE_MESH;
            cr_bend_def bend = cr_default_bend_def();
            if (!bblock || cr_world_create(&bdef, bblock, bsize, &bw) != CR_OK || cr_world_add_asset(bw, ba, &bslot) != CR_OK ||
                (bbd.shape.asset = bslot, cr_body_create(bw, &bbd, &bid)) != CR_OK) {
                fprintf(stderr, "crumple_stage_bench bend: the bendable bunny failed to build\n");
                return 1;
            }
            uint64_t t0 = crp_clock_ns();
            if (cr_bend_attach(bw, bid, &bend) != CR_OK) {
                fprintf(stderr, "crumple_stage_bench bend: the bunny does not attach\n");
                return 1;
            }
            t_attach[c][r] = (double)(crp_clock_ns() - t0) * 1e-6;
            if (c == 1) {
                /* bone 1 turned 0.3 rad about x at its joint, then its seam re-made (both sides), as a step does */
                cr_body_id s1 = cr_bend_get_sub_body(bw, bid, 1);
                cr_transform x = cr_body_get_transform(bw, s1);
                x.q = cr_quat_normalize(cr_quat_mul(cr_quat_from_axis_angle(cr_v3(CR_R(1), 0, 0), CR_R(0.3)), x.q));
                cr_body_set_transform(bw, s1, x);
                /* every seam as made straight (a new joint's seam is due at once: seam.c), so only bone 1's is re-made */
                for (uint32_t k = 0; k < cr_bend_get_bone_count(bw, bid); ++k) cri_bend_bones(bw, 0)[k].seam = cr_quat_identity();
                t0 = crp_clock_ns();
                seam_nodes = cri_bend_seams(bw);
                t_seam[r] = (double)(crp_clock_ns() - t0) * 1e-6;
            }
        }
        free(bblock);
    }
    qsort(t_attach[0], AREPS, sizeof(double), cmp_double);
    qsort(t_attach[1], AREPS, sizeof(double), cmp_double);
    qsort(t_seam, AREPS, sizeof(double), cmp_double);
    printf("  bunny attach %8.3f ms segmenting, %8.3f ms with the cooked BNDT/BNDN/BNDM (%s); one joint's seam re-made "
           "%8.3f ms (work %u)\n",
           t_attach[0][AREPS / 2], t_attach[1][AREPS / 2], CR_FIXED ? "fixed-q32.32" : "float32", t_seam[AREPS / 2],
           seam_nodes);
    unload(&cooked);

    /* ---- a field of bendable bars dropped across posts ---- */
    bench_asset bar;
    if (!load(&bar, "data/meshes/bar.obj", "data/rigs/bar.rig", 0, 32)) return 1;
    cr_world_def def = cr_default_world_def();
    def.body_capacity = (uint32_t)bars * 5 + 16;
    def.joint_capacity = (uint32_t)bars * 2 + 16;
    def.pair_capacity = (uint32_t)bars * 32 + 256;
    def.contact_capacity = (uint32_t)bars * 16 + 256;
    def.point_capacity = (uint32_t)bars * 128 + 1024;
    def.damage.bend = cr_default_bend_budget();
    def.damage.bend.body_capacity = (uint32_t)bars;
    def.damage.bend.max_bones = 3;
    def.damage.bend.max_vertices = bar.a.vertex_count;
    def.damage.bend.max_triangles = bar.a.triangle_count;
    def.damage.bend.max_grid_nodes = bar.a.sdf_dims[0] * bar.a.sdf_dims[1] * bar.a.sdf_dims[2];
    def.damage.surface_bytes = (uint32_t)bars * 4 * (cri_surface_copy_bytes(&bar.a) + 64);
    def.clock_ns = clock_hook;
    size_t wsize = cr_world_memory_size(&def);
    void *wblock = wsize ? aligned_alloc(CR_BLOCK_ALIGN, (wsize + 15) / 16 * 16) : NULL;
    cr_world *w = NULL;
    uint32_t slot = 0;
    int ok = wblock && cr_world_create(&def, wblock, wsize, &w) == CR_OK && cr_world_add_asset(w, &bar.a, &slot) == CR_OK;
    cr_body_def ground = cr_default_body_def();
    ground.type = CR_BODY_STATIC;
    ground.shape.type = CR_SHAPE_PLANE;
    ok = ok && cr_body_create(w, &ground, &(cr_body_id){0, 0}) == CR_OK;
    int side = 1;
    while (side * side < bars) ++side;
    cr_bend_def bd = cr_default_bend_def();
    bd.bend_strength = CR_R(300);
    for (int i = 0; ok && i < bars; ++i) {
        cr_real x = CR_R(6) * (cr_real)(i % side), z = CR_R(2) * (cr_real)(i / side);
        cr_body_def post = cr_default_body_def();
        post.type = CR_BODY_STATIC;
        post.shape.type = CR_SHAPE_BOX;
        post.shape.half_extents = cr_v3(CR_R(0.3), CR_R(0.5), CR_R(0.5));
        post.position = cr_v3(x, CR_R(0.5), z);
        cr_body_def bb = cr_default_body_def();
        bb.shape.type = CR_SHAPE_MESH;
        bb.shape.asset = slot;
        bb.material.density = CR_R(7800);
        bb.position = cr_v3(x, CR_R(2) + CR_R(0.25) * (cr_real)(i % 3), z);
        cr_body_id id;
        ok = cr_body_create(w, &post, &(cr_body_id){0, 0}) == CR_OK && cr_body_create(w, &bb, &id) == CR_OK &&
             cr_bend_attach(w, id, &bd) == CR_OK;
    }
    enum { STEPS = 300 };
    double *t_step = malloc(sizeof(double) * STEPS), sum_damage = 0, sum_joints = 0;
    uint64_t reskins = 0;
    for (int i = 0; ok && i < STEPS; ++i) {
        uint64_t t0 = crp_clock_ns();
        ok = cr_world_step(w, CR_R(1.0 / 60.0)) == CR_OK;
        t_step[i] = (double)(crp_clock_ns() - t0) * 1e-6;
        cr_world_stats st = cr_world_get_stats(w);
        sum_damage += (double)st.stage[CR_STAGE_damage].time_ns * 1e-6;
        sum_joints += (double)st.stage[CR_STAGE_joints].time_ns * 1e-6;
        reskins += st.bend.done;
    }
    if (!ok) {
        fprintf(stderr, "crumple_stage_bench bend: the field failed to build or step\n");
    } else {
        double sorted[STEPS];
        memcpy(sorted, t_step, sizeof sorted);
        qsort(sorted, STEPS, sizeof(double), cmp_double);
        const char *mode = CR_FIXED ? "fixed-q32.32" : "float32";
        if (json)
            printf("{\"bench\":\"bend\",\"mode\":\"%s\",\"segment_ms\":%.3f,\"segment_nodes\":%u,\"segment_triangles\":%u,"
                   "\"bars\":%d,\"steps\":%d,\"step_median_ms\":%.3f,\"step_max_ms\":%.3f,\"damage_ms_per_step\":%.4f,"
                   "\"reskins\":%llu,\"hash\":\"%016llx\"}\n",
                   mode, t_seg[REPS / 2], nodes, a->triangle_count, bars, STEPS, sorted[STEPS / 2], sorted[STEPS - 1],
                   sum_damage / STEPS, (unsigned long long)reskins, (unsigned long long)cr_world_state_hash(w));
        else {
            printf("bending (%s)\n", mode);
            printf("  segmentation of the bunny (%u triangles, %u grid nodes, %u bones)  %8.3f ms   (seed: ~5 ms)\n",
                   a->triangle_count, nodes, a->bone_count, t_seg[REPS / 2]);
            printf("  %d bendable bars onto posts, %d steps: median %.3f ms/step, max %.3f ms, damage stage %.4f ms/step, "
                   "joints %.4f ms/step, %llu re-skins\n",
                   bars, STEPS, sorted[STEPS / 2], sorted[STEPS - 1], sum_damage / STEPS, sum_joints / STEPS,
                   (unsigned long long)reskins);
            printf("  state hash %016llx\n", (unsigned long long)cr_world_state_hash(w));
        }
    }
    free(t_step);
    free(wblock);
    unload(&bar);
    unload(&bunny);
    return ok ? 0 : 1;
}
