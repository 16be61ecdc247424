/* verify_main.c — the determinism matrix's verifier (tests/matrix.sh).
 *
 * `crumple-verify replay FILE --verify --golden HASHES` is `crumple replay`
 * and nothing else, so that each target of the matrix (other compilers,
 * optimisation levels and CPUs, some of them under qemu) builds only the
 * runtime and the few tools files the verifier links, not the whole CLI.
 * It lives in tests/matrix/, outside the folder the unit-test runner globs.
 */
#include "cli.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    if (argc >= 2 && strcmp(argv[1], "replay") == 0) return cr_cmd_replay(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "version") == 0) {
        printf("%s\n", cr_version_string());
        return 0;
    }
    fprintf(stderr, "usage: crumple-verify replay FILE [--verify] [--golden HASHES] (see crumple replay --help)\n");
    return 2;
}
