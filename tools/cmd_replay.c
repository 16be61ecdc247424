/* cmd_replay.c — `crumple replay FILE [--verify] [--golden HASHES] [--hashes OUT]`:
 * inspect a replay, re-simulate it and say whether this build reproduces it.
 *
 * --verify rebuilds the world from the scene text embedded in the replay,
 * then for every frame creates the scene's spawns, applies the recorded
 * inputs through cr_world_apply_inputs, steps, and compares the state hash
 * with the recorded one. It stops at the first frame that differs and names
 * the first bodies whose hashes differ, so a desync points at a frame and a
 * body rather than at "the end result is wrong". --rollback N also restores a
 * snapshot N frames back after every frame and re-simulates those frames, so
 * snapshots and rollback are checked against the recording from the CLI too.
 *
 * Notes
 *   - Exit status, as for every command (crumple --help): 0 the replay
 *     verified (and matched the golden hashes); 1 the work failed: a desync,
 *     a golden mismatch, a bad file, or a mismatched build (other scalar mode,
 *     other state-layout id, or the embedded scene builds a different world
 *     def); 2 bad usage. A mismatched build is reported as such on stderr,
 *     never as a desync: its hashes were never meant to agree.
 *   - Golden hash files (tests/golden/) are text: comment lines start with #,
 *     then `mode NAME`, `frames N`, and one `FRAME HASH` line per frame (hash
 *     in 16 hex digits). --hashes writes that format; --golden reads it.
 *   - Everything here uses the same calls as `crumple run` (scene.h), so what
 *     is verified is exactly what runs.
 */
#include "cli.h"
#include "replay.h"
#include "scene.h"
#include "stb_ds.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXIT_PASS 0
#define EXIT_DESYNC 1
#define EXIT_BAD 1   /* a replay this build cannot check: the work failed */
#define EXIT_USAGE 2

typedef struct replay_options {
    const char *file;
    const char *golden;
    const char *hashes_out;
    bool verify;
    bool quiet;
    uint32_t rollback; /* --rollback N: rewind N frames every frame while verifying */
} replay_options;

static void usage(FILE *out) {
    fprintf(out,
            "usage: crumple replay FILE [--verify [--rollback N]] [--golden HASHES] [--hashes OUT] [--quiet]\n"
            "  Without options, prints what the replay holds.\n"
            "  --verify         re-simulate from the embedded scene and recorded inputs; stop at the\n"
            "                   first frame whose state hash differs and name the bodies that differ;\n"
            "                   meshes are cooked into ./build/cache if that folder exists, else into\n"
            "                   a temporary folder removed at the end (the replay's `cache` line is ignored)\n"
            "  --rollback N     while verifying, restore a snapshot N frames back after every frame\n"
            "                   and re-simulate those frames (as rollback netcode does), 1..600\n"
            "  --golden HASHES  check the recorded per-frame hashes against a golden hash file\n"
            "  --hashes OUT     write the recorded per-frame hashes as a golden hash file\n"
            "  --quiet          print only failures\n"
            "  exit status: 0 pass; 1 desync, golden mismatch, bad file or mismatched build (stderr says which);\n"
            "  2 bad usage\n");
}

/* 0 ok, 1 help printed, 2 usage error */
static int parse_options(int argc, char **argv, replay_options *o) {
    memset(o, 0, sizeof *o);
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 1;
        } else if (strcmp(a, "--verify") == 0) {
            o->verify = true;
        } else if (strcmp(a, "--quiet") == 0) {
            o->quiet = true;
        } else if (strcmp(a, "--rollback") == 0) {
            char *end = NULL;
            long n = i + 1 < argc ? strtol(argv[++i], &end, 10) : 0;
            if (end == NULL || end == argv[i] || *end != '\0' || n < 1 || n > 600) {
                fprintf(stderr, "crumple replay: --rollback needs a frame count in 1..600\n");
                return 2;
            }
            o->rollback = (uint32_t)n;
        } else if (strcmp(a, "--golden") == 0 || strcmp(a, "--hashes") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "crumple replay: %s needs a file name\n", a);
                return 2;
            }
            if (a[2] == 'g')
                o->golden = argv[++i];
            else
                o->hashes_out = argv[++i];
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "crumple replay: unknown option '%s'\n", a);
            usage(stderr);
            return 2;
        } else if (o->file == NULL) {
            o->file = a;
        } else {
            fprintf(stderr, "crumple replay: more than one replay file ('%s' and '%s')\n", o->file, a);
            return 2;
        }
    }
    if (o->file == NULL) {
        fprintf(stderr, "crumple replay: no replay file given\n");
        usage(stderr);
        return 2;
    }
    return 0;
}

static const char *mode_name(uint32_t fixed) { return fixed ? "fixed-q32.32" : "float32"; }

static void print_info(const char *file, const cr_replay *r) {
    printf("replay       %s (format %u, crumple %u.%u.%u, %s)\n", file, (unsigned)r->version,
           (unsigned)(r->crumple_version >> 16), (unsigned)((r->crumple_version >> 8) & 0xffu),
           (unsigned)(r->crumple_version & 0xffu), mode_name(r->fixed));
    printf("scene        %s (%zu bytes embedded)\n", r->scene_path, r->scene_size);
    printf("frames       %d\n", (int)arrlen(r->frames));
    printf("inputs       %d\n", (int)arrlen(r->inputs));
    printf("assets       %d cooked (checksums recorded)\n", (int)arrlen(r->asset_checksums));
    printf("layout id    %016llx%s\n", (unsigned long long)r->layout_id,
           r->layout_id == cr_state_layout_id() ? "" : " (this build: different)");
    if (arrlen(r->frames) > 0)
        printf("final hash   %016llx\n", (unsigned long long)r->frames[arrlen(r->frames) - 1].state_hash);
}

/* 0 equal, 1 different (printed), 2 unreadable golden file (printed) */
static int check_golden(const replay_options *o, const cr_replay *r) {
    uint64_t *golden = NULL;
    uint32_t count = 0;
    cr_replay_error err;
    if (cr_golden_read(o->golden, r->fixed, &golden, &count, &err)) {
        fprintf(stderr, "%s\n", err.message);
        return 2;
    }
    int rc = 0;
    uint32_t frames = (uint32_t)arrlen(r->frames);
    for (uint32_t f = 0; f < count && f < frames; ++f) {
        if (golden[f] != r->frames[f].state_hash) {
            printf("replay %s: differs from golden %s at frame %u: recorded %016llx, golden %016llx\n", o->file,
                   o->golden, (unsigned)f, (unsigned long long)r->frames[f].state_hash, (unsigned long long)golden[f]);
            rc = 1;
            break;
        }
    }
    if (rc == 0 && count != frames) {
        printf("replay %s: %u frames, golden %s has %u\n", o->file, (unsigned)frames, o->golden, (unsigned)count);
        rc = 1;
    }
    free(golden);
    return rc;
}

static int write_hashes(const char *path, const cr_replay *r) {
    uint32_t n = (uint32_t)arrlen(r->frames);
    uint64_t *h = calloc((size_t)n + 1, sizeof *h);
    if (h == NULL) return -1;
    for (uint32_t f = 0; f < n; ++f) h[f] = r->frames[f].state_hash;
    char title[CR_REPLAY_MAX_PATH + 64];
    snprintf(title, sizeof title, "crumple golden hashes of %s", r->scene_path);
    cr_replay_error err;
    int rc = cr_golden_write(path, title, r->fixed, h, n, &err);
    if (rc) fprintf(stderr, "%s\n", err.message);
    free(h);
    return rc;
}

/* 0 pass, 1 desync, 2 mismatched build */
static int verify(const replay_options *o, const cr_replay *r) {
    cr_replay_verdict v;
    cr_replay_outcome out = cr_replay_verify_rollback(r, o->rollback, &v);
    if (out == CR_REPLAY_MISMATCH) {
        fprintf(stderr, "%s: %s\n", o->file, v.message);
        return 2;
    }
    if (out == CR_REPLAY_PASS) {
        if (!o->quiet)
            printf("replay %s: %s, final state hash %016llx\n", o->file, v.message,
                   (unsigned long long)(arrlen(r->frames) ? r->frames[arrlen(r->frames) - 1].state_hash : 0));
        return 0;
    }
    printf("replay %s: %s\n", o->file, v.message);
    if (v.hash != v.recorded && v.body_differs == 0) {
        printf("  no body differs: the difference is in joints, dented vertices or impact events\n");
    } else if (v.body_differs > 0) {
        printf("  first bodies that differ (%u):", (unsigned)v.body_differs);
        for (uint32_t i = 0; i < v.named; ++i)
            printf("%s %s (slot %u)", i ? "," : "", v.names[i], (unsigned)(v.bodies[i].index1 - 1));
        printf("\n");
    }
    return 1;
}

int cr_cmd_replay(int argc, char **argv) {
    replay_options o;
    int rc = parse_options(argc, argv, &o);
    if (rc) return rc == 1 ? EXIT_PASS : EXIT_USAGE;
    cr_replay r;
    cr_replay_error err;
    cr_replay_status st = cr_replay_load(o.file, &r, &err);
    if (st == CR_REPLAY_OTHER_MODE) {
        fprintf(stderr, "%s: mismatched build: %s\n", o.file, err.message);
        cr_replay_free(&r);
        return EXIT_BAD;
    }
    if (st != CR_REPLAY_OK) {
        fprintf(stderr, "%s: %s\n", o.file, err.message);
        cr_replay_free(&r);
        return EXIT_BAD;
    }
    int status = EXIT_PASS;
    if (!o.verify && !o.golden && !o.hashes_out) print_info(o.file, &r);
    if (r.layout_id != cr_state_layout_id()) {
        fprintf(stderr, "%s: mismatched build: state-layout id %016llx, this build's is %016llx\n", o.file,
                (unsigned long long)r.layout_id, (unsigned long long)cr_state_layout_id());
        status = EXIT_BAD;
    }
    if (status == EXIT_PASS && r.crumple_version != cr_replay_build_version() && !o.quiet)
        fprintf(stderr, "%s: note: recorded by crumple %u.%u.%u, this is %s\n", o.file,
                (unsigned)(r.crumple_version >> 16), (unsigned)((r.crumple_version >> 8) & 0xffu),
                (unsigned)(r.crumple_version & 0xffu), CR_VERSION_STRING);
    if (status == EXIT_PASS && o.hashes_out && write_hashes(o.hashes_out, &r)) status = EXIT_BAD;
    if (status == EXIT_PASS && o.golden) {
        int g = check_golden(&o, &r);
        status = g == 0 ? EXIT_PASS : (g == 1 ? EXIT_DESYNC : EXIT_BAD);
        if (g == 0 && !o.quiet)
            printf("replay %s: recorded hashes match golden %s\n", o.file, o.golden);
    }
    if (status == EXIT_PASS && o.verify) {
        int v = verify(&o, &r);
        status = v == 0 ? EXIT_PASS : (v == 1 ? EXIT_DESYNC : EXIT_BAD);
    }
    cr_replay_free(&r);
    return status;
}
