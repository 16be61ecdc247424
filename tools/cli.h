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
/// `crumple bench soft`: issue 16's soft_pile, timed (tools/bench_soft.c).
int cr_bench_soft(int argc, char **argv);
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
