/* main.c — the `crumple` command: one binary, one subcommand per job. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

typedef struct cr_command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} cr_command;

static const cr_command commands[] = {
    {"demo", cr_cmd_demo, "run the demo scene: pictures, contact sheet, memory, per-stage time, state hash"},
    {"run", cr_cmd_run, "step a scene file: summary or --json, --memory, pictures, --apng animation, --report HTML page"},
    {"replay", cr_cmd_replay, "inspect a replay (crumple run --record); --verify re-simulates it, exit 1 on a desync"},
    {"render", cr_cmd_render, "draw a cooked asset to PNG: by body, displacement, bone, weights, or an SDF slice"},
    {"gen", cr_cmd_gen, "generate the meshes the scenes use (torus, terrain, box, sphere) as OBJ, and the plastic assets (barrel, car)"},
    {"tune", cr_cmd_tune, "the dent tuning table: one impact with each dent distance and width, drawn side by side"},
    {"bench", cr_cmd_bench, "ms per step of pile, rings and terrain (600 steps), as JSON"},
    {"cook", cr_cmd_cook, "cook an OBJ mesh (+ rig, poses) into a validated binary asset (.crb)"},
    {"info", cr_cmd_info, "validate a cooked asset and print its contents (--json)"},
    {"query", cr_cmd_query, "signed distance of points read from stdin, through the runtime's lookup"},
};

static void usage(FILE *out) {
    fprintf(out, "usage: crumple <command> [options]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; ++i)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "  %-10s %s\n", "version", "print the version and scalar mode");
    fprintf(out, "\n'crumple <command> --help' describes a command (on stdout, exit 0).\n"
                 "\nexit codes (every command):\n"
                 "  0  the work was done (and, where a command checks something, it held)\n"
                 "  1  the work failed: a bad file, a desync, a check that did not hold; the reason is on stderr\n"
                 "  2  bad usage: unknown command or option, missing or malformed argument; nothing was done\n");
}

static void version_usage(FILE *out) {
    fprintf(out, "usage: crumple version\n"
                 "  Prints the version and the scalar mode this tool was built in, e.g. '%s'\n"
                 "  (a replay or cooked asset from the other mode is refused by this tool).\n",
            cr_version_string());
}

/* `crumple version [--help]`: it takes no option, so anything else is bad usage */
static int version(int argc, char **argv) {
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        version_usage(stdout);
        return 0;
    }
    if (argc >= 2) {
        fprintf(stderr, "crumple version: unknown argument '%s'\n", argv[1]);
        version_usage(stderr);
        return 2;
    }
    printf("%s\n", cr_version_string());
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        usage(stderr); /* no command is bad usage */
        return 2;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "version") == 0 || strcmp(argv[1], "--version") == 0) return version(argc - 1, argv + 1);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; ++i)
        if (strcmp(argv[1], commands[i].name) == 0) return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "crumple: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
