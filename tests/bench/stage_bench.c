/* stage_bench.c — `crumple_stage_bench dent|example|skin|bend|squash [options]`: the stage benchmarks' entry.
 *
 * Run from the project root (they read data/meshes, data/rigs, data/poses).
 * Each prints a human table, or one JSON object with --json.
 */
#include "stage_bench.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    if (argc >= 2 && strcmp(argv[1], "dent") == 0) return cr_bench_dent(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "example") == 0) return cr_bench_example(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "skin") == 0) return cr_bench_skin(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "bend") == 0) return cr_bench_bend(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "squash") == 0) return cr_bench_squash(argc - 1, argv + 1);
    fprintf(argc >= 2 && strcmp(argv[1], "--help") == 0 ? stdout : stderr,
            "usage: crumple_stage_bench dent [--json] [--quick]      seed 000 Table 1: the dent map's steps on the bunny\n"
            "       crumple_stage_bench example [--json] [--segments N]  seed 001: re-skin and damage-stage cost\n"
            "       crumple_stage_bench skin|bend [--json] [--bars N]   seed 000 §4: skinning the bunny, segmenting, a field of bending bars\n"
            "       crumple_stage_bench squash [--json]                 seed 003: the squishy skin's update\n");
    return argc >= 2 && strcmp(argv[1], "--help") == 0 ? 0 : 2;
}
