/* test_replay.c — replay files and their verifier (tools/replay.c,
 * tools/cmd_replay.c), and the reference scene against its golden hashes.
 *
 * What a user would notice: a recorded run verifies; a run that diverges is
 * caught at the frame where it diverges, naming the body that diverged; a
 * damaged, truncated or hostile replay is refused with a message (never a
 * crash); a replay from another build is called a mismatched build, not a
 * desync; and the reference scene gives the checked-in golden hashes in this
 * build (the matrix, tests/matrix.sh, checks the same on other CPUs).
 */
#define _POSIX_C_SOURCE 200809L
#include "test.h"
#include "cli.h"
#include "replay.h"
#include "scene.h"
#include "crumple/snapshot.h"
#include "stb_ds.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A floor, a small pile, a ball in free flight (no gravity, far from the
 * rest) and a spawn: every kind of input the scene format has. */
static const char small_scene[] =
    "crumple-scene 1\n"
    "dt 1/60\n"
    "frames 40\n"
    "body ground static plane\n"
    "grid pile dynamic box 0.2 0.2 0.2 position 0 0.2 0 count 2 2 1 spacing 0.45 0.45 0.45 alternate sphere 0.2 seed 2\n"
    "body ball dynamic sphere 0.2 position 10 5 0\n"
    "body lift kinematic box 0.5 0.05 0.5 position -5 0.5 0\n"
    "body late dynamic sphere 0.1 position 0 2 0 spawn 6\n"
    "impulse 3 pile.1 0.5 1 0\n"
    "impulse 9 ball 0 1 0 at 10 5.1 0\n"
    "velocity 12 late 0.5 0 0 spin 0 1 0\n"
    "target 15 lift -5 1 0 rotate 0 1 0 30 frames 10\n"
    "impulse 20 ball 1 0 0\n";

/* Records `frames` frames of scene text exactly as `crumple run --record`. */
static int record(const char *text, int frames, cr_replay *r) {
    cr_scene *s = NULL;
    cr_scene_error e;
    if (cr_scene_parse(text, strlen(text), "small.scene", &s, &e)) {
        cr_scene_error_print(stdout, &e);
        return 0;
    }
    cr_world *w = NULL;
    if (cr_scene_build(s, &w, &e)) {
        cr_scene_error_print(stdout, &e);
        cr_scene_free(s);
        return 0;
    }
    cr_replay_init(r, "small.scene", text, strlen(text), w, s->dt);
    int ok = 1;
    for (int f = 0; f < frames && ok; ++f) {
        if (cr_scene_step(s, w, f, &e)) {
            cr_scene_error_print(stdout, &e);
            ok = 0;
        }
        cr_replay_add_frame(r, w, s->frame_inputs, (uint32_t)arrlen(s->frame_inputs));
    }
    cr_cli_world_free(w);
    cr_scene_free(s);
    return ok;
}

static uint64_t fnv(const uint8_t *p, size_t n) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

/* Recomputes the checksum at byte 56 as the format says, so a test can hand
 * the reader a file that is hostile but not merely damaged. */
static void reseal(uint8_t *p, size_t n) {
    memset(p + 56, 0, 8);
    uint64_t h = fnv(p, n);
    for (int i = 0; i < 8; ++i) p[56 + i] = (uint8_t)(h >> (8 * i));
}

static void put32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; ++i) p[i] = (uint8_t)(v >> (8 * i));
}
static uint32_t get32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

CR_TEST(replay_file_round_trip_is_exact) {
    cr_replay r, back;
    ENSURE(record(small_scene, 40, &r));
    ENSURE(arrlen(r.frames) == 40);
    ENSURE(arrlen(r.inputs) == 5); /* the spawn is scene structure, not an input */
    uint8_t *bytes = NULL;
    size_t n = 0;
    ENSURE(cr_replay_encode(&r, &bytes, &n) == CR_REPLAY_OK);
    cr_replay_error err;
    ENSURE_MSG(cr_replay_decode(bytes, n, &back, &err) == CR_REPLAY_OK, "decode: %s", err.message);
    ENSURE(back.fixed == (uint32_t)CR_FIXED && back.layout_id == cr_state_layout_id());
    ENSURE(back.scene_size == strlen(small_scene) && strcmp(back.scene_text, small_scene) == 0);
    ENSURE(strcmp(back.scene_path, "small.scene") == 0);
    ENSURE(arrlen(back.inputs) == arrlen(r.inputs));
    for (ptrdiff_t i = 0; i < arrlen(r.inputs); ++i) ENSURE(cr_input_compare(&r.inputs[i], &back.inputs[i]) == 0);
    ENSURE(arrlen(back.frames) == arrlen(r.frames) && arrlen(back.body_hashes) == arrlen(r.body_hashes));
    for (ptrdiff_t f = 0; f < arrlen(r.frames); ++f) {
        ENSURE(back.frames[f].state_hash == r.frames[f].state_hash);
        ENSURE(back.frames[f].body_count == r.frames[f].body_count);
    }
    for (ptrdiff_t k = 0; k < arrlen(r.body_hashes); ++k) ENSURE(back.body_hashes[k].hash == r.body_hashes[k].hash);
    /* the spawn shows in the per-body hashes: one more live body from frame 6 on */
    ENSURE(r.frames[6].body_count == r.frames[5].body_count + 1);
    /* encoding what was decoded gives the same bytes */
    uint8_t *again = NULL;
    size_t n2 = 0;
    ENSURE(cr_replay_encode(&back, &again, &n2) == CR_REPLAY_OK);
    ENSURE(n2 == n && memcmp(again, bytes, n) == 0);
    free(again), free(bytes);
    cr_replay_free(&back);
    cr_replay_free(&r);
}

CR_TEST(replay_reader_rejects_every_truncation_and_flipped_byte) {
    cr_replay r, back;
    ENSURE(record(small_scene, 12, &r));
    uint8_t *bytes = NULL;
    size_t n = 0;
    ENSURE(cr_replay_encode(&r, &bytes, &n) == CR_REPLAY_OK);
    cr_replay_free(&r);
    uint8_t *copy = malloc(n);
    cr_replay_error err;
    int rejected = 0, total = 0;
    for (size_t len = 0; len < n; ++len) {
        memcpy(copy, bytes, len);
        err.message[0] = '\0';
        if (cr_replay_decode(copy, len, &back, &err) == CR_REPLAY_BAD_FILE && err.message[0] != '\0') ++rejected;
        cr_replay_free(&back);
        ++total;
    }
    for (size_t i = 0; i < n; ++i) {
        static const uint8_t flips[3] = {0x01, 0x80, 0xff};
        for (int k = 0; k < 3; ++k) {
            memcpy(copy, bytes, n);
            copy[i] ^= flips[k];
            err.message[0] = '\0';
            if (cr_replay_decode(copy, n, &back, &err) == CR_REPLAY_BAD_FILE && err.message[0] != '\0') ++rejected;
            cr_replay_free(&back);
            ++total;
        }
    }
    cr_test_printf("replay of %zu bytes: %d of %d truncated or flipped copies rejected\n", n, rejected, total);
    ENSURE(rejected == total);
    /* the untouched bytes still read */
    ENSURE(cr_replay_decode(bytes, n, &back, &err) == CR_REPLAY_OK);
    cr_replay_free(&back);
    free(copy), free(bytes);
}

/* Offsets of the variable sections of an encoded replay. */
typedef struct layout_ {
    size_t inputs_count, first_input, first_frame;
} layout_;

static layout_ find_layout(const uint8_t *p) {
    layout_ l;
    size_t path = get32(p + 64);
    size_t text = get32(p + 68 + path);
    size_t assets = get32(p + 72 + path + text);
    l.inputs_count = 76 + path + text + 8 * assets;
    l.first_input = l.inputs_count + 4;
    l.first_frame = l.first_input + (size_t)get32(p + l.inputs_count) * CR_REPLAY_INPUT_BYTES;
    return l;
}

/* Applies one hostile edit, reseals, and expects a refusal naming `what`. */
static int refuses(const uint8_t *bytes, size_t n, size_t at, uint32_t value, size_t cut, const char *what) {
    uint8_t *p = malloc(n);
    memcpy(p, bytes, n);
    if (at + 4 <= n) put32(p + at, value);
    size_t len = n - cut;
    reseal(p, len);
    cr_replay back;
    cr_replay_error err;
    cr_replay_status s = cr_replay_decode(p, len, &back, &err);
    cr_replay_free(&back);
    free(p);
    if (s != CR_REPLAY_BAD_FILE || strstr(err.message, what) == NULL) {
        cr_test_printf("edit at %zu = %u (cut %zu): status %d, '%s', wanted '%s'\n", at, value, cut, (int)s,
                       err.message, what);
        return 0;
    }
    return 1;
}

CR_TEST(replay_reader_refuses_hostile_fields_behind_a_valid_checksum) {
    cr_replay r;
    ENSURE(record(small_scene, 30, &r));
    uint8_t *b = NULL;
    size_t n = 0;
    ENSURE(cr_replay_encode(&r, &b, &n) == CR_REPLAY_OK);
    cr_replay_free(&r);
    layout_ l = find_layout(b);
    size_t in0 = l.first_input, in1 = l.first_input + CR_REPLAY_INPUT_BYTES;
    ENSURE(refuses(b, n, 4, 2, 0, "format version 2"));
    ENSURE(refuses(b, n, 8, 65, 0, "header size"));
    ENSURE(refuses(b, n, 12, 7, 0, "scalar mode"));
    ENSURE(refuses(b, n, 16, 16, 0, "real size"));
    ENSURE(refuses(b, n, 48, 0xffffffffu, 0, "frames"));
    ENSURE(refuses(b, n, 52, 1, 0, "flags"));
    ENSURE(refuses(b, n, 64, 0x7fffffffu, 0, "scene path"));
    ENSURE(refuses(b, n, 68 + get32(b + 64), 0xffffff, 0, "truncated")); /* scene text longer than the file */
    ENSURE(refuses(b, n, l.inputs_count, 0xffffffffu, 0, "inputs need"));
    ENSURE(refuses(b, n, l.inputs_count - 4, 5000, 0, "asset checksums"));
    ENSURE(refuses(b, n, l.inputs_count - 4, 1000, 0, "asset checksums")); /* more than the file holds */
    ENSURE(refuses(b, n, in0 + 4, 99, 0, "unknown type"));
    ENSURE(refuses(b, n, in0 + 8, 0, 0, "null body"));
    ENSURE(refuses(b, n, in0 + 20, 0x100, 0, "unknown flags"));
    ENSURE(refuses(b, n, in0, 29, 0, "before the previous")); /* input 0 after input 1 */
    ENSURE(refuses(b, n, in1, 30, 0, "past the recorded frames"));
    ENSURE(refuses(b, n, l.first_frame + 8, 0xffffffffu, 0, "body hashes"));
    ENSURE(refuses(b, n, l.first_frame + 12, get32(b + l.first_frame + 12 + 16), 0, "not after the previous"));
    ENSURE(refuses(b, n, n, 0, 1, "truncated"));
#if !CR_FIXED
    ENSURE(refuses(b, n, in0 + 24 + 8 + 4, 1, 0, "high bits"));     /* a.x's high half */
    ENSURE(refuses(b, n, in0 + 24 + 8, 0x7f800000u, 0, "finite")); /* a.x = inf */
#endif
    /* a stray byte after the last frame */
    uint8_t *longer = malloc(n + 1);
    memcpy(longer, b, n);
    longer[n] = 0;
    ENSURE(refuses(longer, n + 1, n + 1, 0, 0, "unexpected bytes"));
    free(longer), free(b);
}

/* Random edits behind a valid checksum (the bytes a fuzzer would try): each
 * copy is either refused with a message or read into a replay whose counts
 * agree with its arrays, and some of those are verified (an edited scene or
 * input gives a mismatch or a desync, never a crash); with the sanitizers (make test-sanitize) this is
 * also the proof that the reader never reads or writes out of bounds. */
CR_TEST(replay_reader_survives_random_edits_behind_a_valid_checksum) {
    cr_replay r, back;
    ENSURE(record(small_scene, 20, &r));
    uint8_t *b = NULL;
    size_t n = 0;
    ENSURE(cr_replay_encode(&r, &b, &n) == CR_REPLAY_OK);
    cr_replay_free(&r);
    uint8_t *p = malloc(n);
    uint64_t seed = 0x2545f4914f6cdd1dull;
    int refused = 0, read = 0;
    for (int iter = 0; iter < 3000; ++iter) {
        memcpy(p, b, n);
        int edits = 1 + iter % 4;
        for (int k = 0; k < edits; ++k) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            size_t at = 64 + (size_t)((seed >> 33) % (n - 64)); /* past the header: its fields have their own test */
            p[at] = (uint8_t)(seed >> 17);
        }
        size_t len = n - (size_t)(iter % 7 == 0 ? (seed >> 40) % 64 : 0);
        reseal(p, len);
        cr_replay_error err;
        err.message[0] = '\0';
        cr_replay_status st = cr_replay_decode(p, len, &back, &err);
        if (st == CR_REPLAY_OK) {
            ++read;
            uint32_t bodies = 0;
            for (ptrdiff_t f = 0; f < arrlen(back.frames); ++f) {
                ENSURE(back.frames[f].first_body == bodies);
                bodies += back.frames[f].body_count;
            }
            ENSURE((ptrdiff_t)bodies == arrlen(back.body_hashes));
            ENSURE(back.scene_text[back.scene_size] == '\0');
            if (read % 8 == 1) { /* and the verifier copes with whatever it now says */
                cr_replay_verdict v;
                cr_replay_outcome o = cr_replay_verify(&back, &v);
                ENSURE(o == CR_REPLAY_PASS || o == CR_REPLAY_DESYNC || o == CR_REPLAY_MISMATCH);
                ENSURE(v.message[0] != '\0');
            }
        } else {
            ENSURE(st == CR_REPLAY_BAD_FILE && err.message[0] != '\0');
            ++refused;
        }
        cr_replay_free(&back);
    }
    cr_test_printf("random edits: %d refused, %d still valid replays\n", refused, read);
    ENSURE(refused > 0);
    free(p), free(b);
}

CR_TEST(replay_verify_passes_and_pins_a_desync_to_its_frame_and_body) {
    cr_replay r;
    ENSURE(record(small_scene, 40, &r));
    cr_replay_verdict v;
    ENSURE_MSG(cr_replay_verify(&r, &v) == CR_REPLAY_PASS, "%s", v.message);
    ENSURE(v.frame == -1);

    /* A different impulse on the free-flying ball at frame 20: the world
     * differs right after that frame's step, and only the ball does. */
    ptrdiff_t k = -1;
    for (ptrdiff_t i = 0; i < arrlen(r.inputs); ++i)
        if (r.inputs[i].frame == 20) k = i;
    ENSURE(k >= 0);
    cr_input saved = r.inputs[k];
    r.inputs[k].a.x += CR_R(0.5);
    ENSURE(cr_replay_verify(&r, &v) == CR_REPLAY_DESYNC);
    cr_test_printf("%s; first body: %s\n", v.message, v.named ? v.names[0] : "-");
    ENSURE(v.frame == 20);
    ENSURE(v.hash != v.recorded && v.recorded == r.frames[20].state_hash);
    ENSURE(v.body_differs == 1 && v.named == 1 && strcmp(v.names[0], "ball") == 0);
    r.inputs[k] = saved;

    /* A pile body kicked up hard enough to leave the pile at frame 3 (a kick
     * weaker than gravity is absorbed by the contacts, bit for bit). */
    ENSURE(r.inputs[0].frame == 3);
    r.inputs[0].a.y += CR_R(20);
    ENSURE(cr_replay_verify(&r, &v) == CR_REPLAY_DESYNC);
    ENSURE(v.frame == 3 && v.body_differs >= 1);
    int named_pile1 = 0;
    for (uint32_t i = 0; i < v.named; ++i) named_pile1 |= strcmp(v.names[i], "pile.1") == 0;
    ENSURE(named_pile1);
    r.inputs[0].a.y -= CR_R(20);
    ENSURE(cr_replay_verify(&r, &v) == CR_REPLAY_PASS);

    /* A replay naming a body that is gone is a desync too, not a crash. */
    r.inputs[k].body.generation += 1;
    ENSURE(cr_replay_verify(&r, &v) == CR_REPLAY_DESYNC && v.frame == 20);
    ENSURE(strstr(v.message, "does not apply") != NULL);
    r.inputs[k] = saved;

    /* Another build: different state layout, or a scene that builds another world. */
    r.layout_id ^= 1;
    ENSURE(cr_replay_verify(&r, &v) == CR_REPLAY_MISMATCH && strstr(v.message, "mismatched build"));
    r.layout_id ^= 1;
    r.def_hash ^= 1;
    ENSURE(cr_replay_verify(&r, &v) == CR_REPLAY_MISMATCH && strstr(v.message, "world def"));
    r.def_hash ^= 1;
    ENSURE(cr_replay_verify(&r, &v) == CR_REPLAY_PASS);
    /* a replay that names a cooked asset this build did not load */
    ENSURE(arrlen(r.asset_checksums) == 0);
    arrput(r.asset_checksums, 0x1234);
    ENSURE(cr_replay_verify(&r, &v) == CR_REPLAY_MISMATCH && strstr(v.message, "asset slot 0"));
    arrsetlen(r.asset_checksums, 0);
    ENSURE(cr_replay_verify(&r, &v) == CR_REPLAY_PASS);
    cr_replay_free(&r);
}

/* The command line: exit 0 pass, 1 desync, 2 bad file or mismatched build. */
CR_TEST(replay_command_exit_codes) {
    char path[64], bad[80];
    snprintf(path, sizeof path, "/tmp/crumple_replay_XXXXXX");
    int fd = mkstemp(path);
    ENSURE(fd >= 0);
    close(fd);
    snprintf(bad, sizeof bad, "%s.bad", path);
    cr_replay r;
    ENSURE(record(small_scene, 30, &r));
    cr_replay_error err;
    ENSURE(cr_replay_save(&r, path, &err) == CR_REPLAY_OK);
    char *ok_args[] = {"replay", path, "--verify", "--quiet"};
    ENSURE(cr_cmd_replay(4, ok_args) == 0);
    char *rollback_args[] = {"replay", path, "--verify", "--rollback", "8", "--quiet"};
    ENSURE(cr_cmd_replay(6, rollback_args) == 0);
    char *bad_rollback[] = {"replay", path, "--verify", "--rollback", "0"};
    ENSURE(cr_cmd_replay(5, bad_rollback) == 2);
    r.frames[17].state_hash ^= 0x8000; /* recorded by a "different machine" */
    ENSURE(cr_replay_save(&r, bad, &err) == CR_REPLAY_OK);
    char *desync_args[] = {"replay", bad, "--verify", "--quiet"};
    ENSURE(cr_cmd_replay(4, desync_args) == 1);
    r.frames[17].state_hash ^= 0x8000;
    r.layout_id ^= 1;
    ENSURE(cr_replay_save(&r, bad, &err) == CR_REPLAY_OK);
    ENSURE(cr_cmd_replay(4, desync_args) == 1); /* a mismatched build: the work failed (said on stderr) */
    FILE *f = fopen(bad, "wb");
    ENSURE(f != NULL);
    fputs("not a replay", f);
    fclose(f);
    ENSURE(cr_cmd_replay(4, desync_args) == 1);
    char *missing_args[] = {"replay", "/nonexistent/x.crr", "--verify"};
    ENSURE(cr_cmd_replay(3, missing_args) == 1);
    remove(path), remove(bad);
    cr_replay_free(&r);
}

/* Rollback on top of a replay: restore the snapshot of frame k, re-apply the
 * recorded inputs (and the scene's spawns), and every hash from k on is the
 * recorded one. Rewinds 8 frames every 4 frames through the whole run. */
CR_TEST(replay_rollback_from_snapshots_reproduces_recorded_hashes) {
    enum { BACK = 8, FRAMES = 40 };
    cr_replay r;
    ENSURE(record(small_scene, FRAMES, &r));
    cr_scene *s = NULL;
    cr_scene_error e;
    ENSURE(cr_scene_parse(r.scene_text, r.scene_size, r.scene_path, &s, &e) == 0);
    cr_world *w = NULL;
    ENSURE(cr_scene_build(s, &w, &e) == 0);
    size_t snap = cr_world_snapshot_size(w);
    uint8_t *ring = malloc(snap * (BACK + 1));
    ptrdiff_t *first_input = malloc(sizeof(ptrdiff_t) * (FRAMES + 1));
    ptrdiff_t next = 0;
    for (int f = 0; f <= FRAMES; ++f) {
        first_input[f] = next;
        while (next < arrlen(r.inputs) && r.inputs[next].frame == f) ++next;
    }
    int rewinds = 0;
    for (int f = 0; f < FRAMES; ++f) {
        ENSURE(cr_world_snapshot_save(w, ring + snap * (size_t)(f % (BACK + 1)), snap) == CR_OK);
        ENSURE(cr_scene_spawn(s, w, f, &e) == 0);
        ENSURE(cr_world_apply_inputs(w, r.inputs + first_input[f], (uint32_t)(first_input[f + 1] - first_input[f])) == CR_OK);
        ENSURE(cr_world_step(w, s->dt) == CR_OK);
        ENSURE(cr_world_state_hash(w) == r.frames[f].state_hash);
        if (f >= BACK && f % 4 == 0) {
            int from = f - BACK + 1;
            ENSURE(cr_world_snapshot_restore(w, ring + snap * (size_t)(from % (BACK + 1)), snap) == CR_OK);
            ++rewinds;
            for (int g = from; g <= f; ++g) {
                /* a spawn undone by the rewind is created again, in the same slot */
                ENSURE(cr_scene_spawn(s, w, g, &e) == 0);
                ENSURE(cr_world_apply_inputs(w, r.inputs + first_input[g],
                                             (uint32_t)(first_input[g + 1] - first_input[g])) == CR_OK);
                ENSURE(cr_world_step(w, s->dt) == CR_OK);
                ENSURE_MSG(cr_world_state_hash(w) == r.frames[g].state_hash, "re-run frame %d after rewind at %d", g, f);
            }
        }
    }
    ENSURE(rewinds > 0);
    /* the library's rollback verifier agrees, and still finds a planted desync */
    cr_replay_verdict v;
    ENSURE_MSG(cr_replay_verify_rollback(&r, BACK, &v) == CR_REPLAY_PASS, "%s", v.message);
    r.frames[30].state_hash ^= 1;
    ENSURE(cr_replay_verify_rollback(&r, BACK, &v) == CR_REPLAY_DESYNC && v.frame == 30);
    r.frames[30].state_hash ^= 1;
    free(ring), free(first_input);
    cr_cli_world_free(w);
    cr_scene_free(s);
    cr_replay_free(&r);
}

/* The reference scene in this build gives the golden per-frame hashes
 * checked into tests/golden/ (named "determinism" so that `make test` also
 * runs it at -O0 and with clang). A change that alters results fails here
 * and is updated on purpose: tests/matrix.sh --update-golden. */
CR_TEST(determinism_reference_scene_matches_golden_hashes) {
    const char *golden = CR_FIXED ? "tests/golden/reference-fixed.hashes" : "tests/golden/reference-float.hashes";
    uint64_t *want = NULL;
    uint32_t count = 0;
    cr_replay_error err;
    ENSURE_MSG(cr_golden_read(golden, CR_FIXED, &want, &count, &err) == 0, "%s", err.message);
    ENSURE(count >= 600);
    cr_scene *s = NULL;
    cr_scene_error e;
    ENSURE(cr_scene_load("data/scenes/reference.scene", &s, &e) == 0);
    ENSURE(s->frames == (int32_t)count);
    cr_world *w = NULL;
    ENSURE(cr_scene_build(s, &w, &e) == 0);
    int first_bad = -1;
    for (uint32_t f = 0; f < count && first_bad < 0; ++f) {
        ENSURE(cr_scene_step(s, w, (int32_t)f, &e) == 0);
        if (cr_world_state_hash(w) != want[f]) first_bad = (int)f;
    }
    ENSURE_MSG(first_bad < 0,
               "reference scene differs from %s from frame %d on (%s); if the change is meant to alter results, "
               "update the golden hashes on purpose: sh tests/matrix.sh --update-golden",
               golden, first_bad, CR_MODE_NAME);
    cr_test_printf("reference scene: %u frames match %s\n", count, golden);
    free(want);
    cr_cli_world_free(w);
    cr_scene_free(s);
}

/* `crumple run SCENE --record FILE` and `crumple replay FILE --verify`, as a
 * user runs them: the replay holds the scene text and verifies. */
CR_TEST(replay_run_record_then_verify) {
    char path[64];
    snprintf(path, sizeof path, "/tmp/crumple_record_XXXXXX");
    int fd = mkstemp(path);
    ENSURE(fd >= 0);
    close(fd);
    char *run_args[] = {"run", "data/scenes/example.scene", "--frames", "130", "--record", path, "--json"};
    ENSURE(cr_cmd_run(7, run_args) == 0);
    cr_replay r;
    cr_replay_error err;
    ENSURE_MSG(cr_replay_load(path, &r, &err) == CR_REPLAY_OK, "%s", err.message);
    ENSURE(arrlen(r.frames) == 130);
    ENSURE(strstr(r.scene_text, "crumple-scene 1") == r.scene_text);
    ENSURE(strcmp(r.scene_path, "data/scenes/example.scene") == 0);
    /* every timed input of the scene inside 130 frames except spawns (scene structure) */
    cr_scene *s = NULL;
    cr_scene_error e;
    ENSURE(cr_scene_load("data/scenes/example.scene", &s, &e) == 0);
    ptrdiff_t want = 0;
    for (ptrdiff_t i = 0; i < arrlen(s->inputs); ++i)
        want += s->inputs[i].frame < 130 && s->inputs[i].kind != CR_SCENE_INPUT_SPAWN;
    cr_scene_free(s);
    ENSURE(want > 0 && arrlen(r.inputs) == want);
    cr_replay_free(&r);
    char *verify_args[] = {"replay", path, "--verify", "--quiet"};
    ENSURE(cr_cmd_replay(4, verify_args) == 0);
    char *shock_args[] = {"run", "data/scenes/example.scene", "--shock", "off", "--record", path};
    ENSURE(cr_cmd_run(6, shock_args) == 2); /* the replay could not reproduce an override */
    remove(path);
}
