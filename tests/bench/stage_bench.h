/* stage_bench.h — benchmarks of single runtime stages, outside the crumple command.
 *
 * They time internal functions (cri_*: the dent map's Z-buffer, broadening
 * and smoothing; example plasticity's re-skin), which the crumple command may
 * not reach: tools see the public API and the asset format only
 * (docs/architecture.md, "API decisions"). So they live with the tests, which
 * may, and build into build/bin/crumple_stage_bench (`make bench-stages`).
 */
#ifndef CRUMPLE_STAGE_BENCH_H
#define CRUMPLE_STAGE_BENCH_H

/// `crumple_stage_bench dent [--json] [--quick]`: seed 000 Table 1 (bench_dent.c).
int cr_bench_dent(int argc, char **argv);
/// `crumple_stage_bench example [--json] [--segments N]`: seed 001's re-skin and damage-stage cost (bench_example.c).
int cr_bench_example(int argc, char **argv);
/// `crumple_stage_bench skin` / `bend`: seed 000 §4's skinning and bending costs (bench_bend.c).
int cr_bench_skin(int argc, char **argv);
int cr_bench_bend(int argc, char **argv);
/// `crumple_stage_bench squash`: seed 003's skin update (bench_squash.c).
int cr_bench_squash(int argc, char **argv);

#endif
