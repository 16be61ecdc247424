/* cli.h — what the crumple command's subcommands share.
 *
 * Each subcommand is one file tools/cmd_<name>.c with an entry point
 * `int cr_cmd_<name>(int argc, char **argv)` (argv[0] is the subcommand name),
 * listed once in tools/main.c. Errors are printed as "file:line: message" or
 * "crumple <cmd>: message" and give a non-zero exit status.
 */
#ifndef CRUMPLE_CLI_H
#define CRUMPLE_CLI_H

#include "crumple/crumple.h"
#include "platform.h"
#include "scene.h"

#include <stdio.h>

int cr_cmd_demo(int argc, char **argv);
int cr_cmd_run(int argc, char **argv);
int cr_cmd_replay(int argc, char **argv);
int cr_cmd_render(int argc, char **argv);
int cr_cmd_gen(int argc, char **argv);
int cr_cmd_bench(int argc, char **argv);
int cr_cmd_cook(int argc, char **argv);
int cr_cmd_info(int argc, char **argv);
int cr_cmd_query(int argc, char **argv);
int cr_cmd_tune(int argc, char **argv);
/// `crumple bench cook`: the bunny's cook time by stage (tools/bench_cook.c).
int cr_bench_cook(int argc, char **argv);
/// `crumple bench fracture`: prescoring and the split's cost (tools/bench_fracture.c).
int cr_bench_fracture(int argc, char **argv);
/// `crumple bench example`: what plasticity adds to the rigid step of the plastic scenes (tools/bench_plastic.c).
int cr_bench_plastic(int argc, char **argv);
/// `crumple bench frames`: every step of the shipped scenes against issue 25's frame budget (tools/bench_frames.c).
int cr_bench_frames(int argc, char **argv);
/// `crumple bench soft`: issue 16's soft_pile, timed (tools/bench_soft.c).
int cr_bench_soft(int argc, char **argv);
/// `crumple bench calibrate`: fits the damage cost tables from the shipped scenes' steps (tools/bench_calibrate.c).
int cr_bench_calibrate(int argc, char **argv);
/// The damage models whose cr_model_stats the benches read, in print order. The
/// runtime's own list (damage/models.h) is internal; tools see only the
/// cr_world_stats fields named after each model, so a new model is a line here.
#define CR_BENCH_MODEL_LIST(X) X(dent) X(example) X(bend) X(squash) X(fracture) X(custom)
enum {
#define CR_X_BENCH_MODEL_(m) CR_BENCH_MODEL_##m,
    CR_BENCH_MODEL_LIST(CR_X_BENCH_MODEL_)
#undef CR_X_BENCH_MODEL_
    CR_BENCH_MODEL_COUNT
};
/// Name of bench model m ("dent", ...).
const char *cr_bench_model_name(int m);
/// Model m's stats in `st`.
const cr_model_stats *cr_bench_model_stats(const cr_world_stats *st, int m);
/// A world clock (cr_world_def.clock_ns) on this process's CPU time, ns (crp_cpu_clock_ns).
uint64_t cr_bench_cpu_clock(void *user);
/// The .scene files of `dir` as names (no suffix), sorted, appended to *names
/// (stb_ds array, each malloc'd: cr_bench_free_names); 0, or 1 after saying why on stderr as `who`.
int cr_bench_list_scenes(const char *who, const char *dir, char ***names);
/// One run of a scene for the per-step benches (bench frames, bench calibrate).
typedef struct cr_bench_run {
    bool cpu_clock;          ///< in: the world's clock on the process CPU clock (else the scene build's wall clock)
    int32_t steps;           ///< in: steps to run, 0 = the scene's own frames; out: the steps run
    size_t row_size;         ///< in: bytes of one step's row
    cr_scene_frame_fn each;  ///< in: after every step, with `rows` as its user pointer
    bool (*accept)(const cr_scene *s); ///< in, may be null: false skips the scene before it is built
    void *rows;              ///< out: steps rows of row_size bytes, zeroed, then filled by `each` (free())
    uint64_t hash;           ///< out: the state hash after the last step
    double dt;               ///< out: the scene's s per step
    uint32_t budget;         ///< out: the scene's damage budget, ns
} cr_bench_run;
/// Loads, builds and steps the scene at `path` as `crumple run` does, filling *r.
/// 0; -1 if r->accept refused it; 1 after printing the error (`who` names the bench).
int cr_bench_run_scene(const char *who, const char *path, cr_bench_run *r);
/// The per-step benches' shared options at argv[*i]: --steps N, --repeat R,
/// --clock wall|cpu, --scenes DIR (its value consumed: *i moves past it).
/// 1 taken; 0 not one of them; -1 bad usage, said on stderr as `who`.
int cr_bench_run_option(const char *who, int argc, char **argv, int *i, int32_t *steps, int *repeat, bool *cpu_clock,
                        const char **dir);
/// A malloc'd copy of the first n bytes of `text`, or NULL.
char *cr_bench_copy(const char *text, size_t n);
/// Frees the names and the array of cr_bench_list_scenes.
void cr_bench_free_names(char **names);
/// `crumple bench queries`: rays and sphere overlaps into the peer pile and rings (tools/bench_queries.c).
int cr_bench_queries(int argc, char **argv);
/// Read and validate a cooked asset with the runtime loader (tools/cmd_info.c); prints "file:0: why" on failure. Caller frees *bytes (crp_free) and *block (free).
int cr_cli_asset_open(const char *path, uint8_t **bytes, void **block, cr_asset *asset);
/// `crumple query --sdf` on any stream: "x y z" lines in, signed distances out; 1 and "in_name:line:" on a bad line (tools/cmd_query.c).
int cr_cli_query_sdf(const cr_asset *a, FILE *in, FILE *out, bool normals, const char *in_name);

/// A world in a block from the host heap, aligned as the runtime asks; free with cr_cli_world_free.
cr_status cr_cli_world_new(const cr_world_def *def, cr_world **out);
void cr_cli_world_free(cr_world *w);

#endif
