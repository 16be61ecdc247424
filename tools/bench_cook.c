/* bench_cook.c — the cooker's benchmark: cook the 70k-triangle Stanford
 * bunny (not watertight) at 64^3 and report the time of every stage, as JSON
 * on stdout. `crumple bench cook [--res N] [--bones auto:N] [MESH.obj]`.
 *
 * Stage times are wall-clock, plus the CPU time of the whole cook (the two
 * differ on a shared machine). None of it is part of any test; the cooked
 * bytes are, and their checksum is printed so two machines can compare.
 */
#include "cli.h"
#include "cook.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int cr_bench_cook(int argc, char **argv) {
    const char *path = "data/meshes/stanford-bunny.obj";
    cr_cook_options opt = cr_cook_default_options();
    opt.quiet = true;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("usage: crumple bench cook [--res N] [--bones auto:N] [MESH.obj]\n"
                   "  Cooks MESH.obj (default data/meshes/stanford-bunny.obj) once and prints the time of each\n"
                   "  cooking stage and the process's CPU time as JSON.\n"
                   "  --res N         distance-grid cells along the longest axis (default 64)\n"
                   "  --bones auto:N  also place N bones inside the shape and skin it\n");
            return 0;
        } else if (strcmp(argv[i], "--res") == 0 && i + 1 < argc) {
            opt.sdf_res = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--bones") == 0 && i + 1 < argc && strncmp(argv[i + 1], "auto:", 5) == 0) {
            opt.auto_bones = (uint32_t)atoi(argv[++i] + 5);
        } else if (argv[i][0] != '-') {
            path = argv[i];
        } else {
            fprintf(stderr, "usage: crumple bench cook [--res N] [--bones auto:N] [MESH.obj]\n");
            return 2;
        }
    }
    cr_cook_result r;
    char err[1024];
    /* wall time per stage, and the process's CPU time for the whole cook:
     * on a busy machine the two differ, and the target is about one core */
    clock_t c0 = clock();
    int rc = cr_cook_file(path, NULL, &opt, &r, err, sizeof err);
    double cpu = (double)(clock() - c0) / CLOCKS_PER_SEC;
    if (rc != 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    const cr_cook_timings *t = &r.time;
    uint64_t sum = 0;
    for (int i = 0; i < 8; ++i) sum |= (uint64_t)r.bytes[8 + i] << (8 * i);
    printf("{\"bench\": \"cook\", \"mesh\": \"%s\", \"triangles\": %u, \"vertices\": %u, \"sdf_dims\": [%u, %u, %u], "
           "\"bones\": %u, \"bytes\": %zu, \"checksum\": \"%016llx\",\n"
           " \"seconds\": {\"read\": %.4f, \"clean\": %.4f, \"mass\": %.4f, \"sdf_distance\": %.4f, \"sdf_sign\": %.4f, "
           "\"surface\": %.4f, \"skin\": %.4f, \"write\": %.4f, \"total\": %.4f}, \"cpu_seconds\": %.4f}\n",
           path, r.triangle_count, r.vertex_count, r.sdf_dims[0], r.sdf_dims[1], r.sdf_dims[2], r.bone_count, r.size,
           (unsigned long long)sum, t->read, t->clean, t->mass, t->sdf_distance, t->sdf_sign, t->surface, t->skin, t->write,
           t->total, cpu);
    cr_cook_result_free(&r);
    return 0;
}
