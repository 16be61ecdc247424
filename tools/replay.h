/* replay.h — replay files: a self-contained record of one run, for verifying
 * that a build reproduces it bit for bit (docs/determinism.md).
 *
 * A replay holds the scene text (embedded, so the file is all a verifier
 * needs besides the scene's mesh files), what identifies the build that
 * recorded it (scalar mode, crumple version, state-layout id, a hash of the
 * world def, the checksum of every cooked asset), every runtime input
 * with its frame, the world state hash after every frame and every live
 * body's hash after every frame, so a verifier can name the first bodies
 * that differ.
 *
 *     cr_replay r;
 *     cr_replay_init(&r, scene_path, scene_text, scene_size, world, dt);
 *     for each frame: apply inputs, step, cr_replay_add_frame(&r, world, inputs, n);
 *     cr_replay_save(&r, "run.crr", &err);
 *     cr_replay_free(&r);
 *
 *     cr_replay_error e;
 *     if (cr_replay_load("run.crr", &r, &e) != CR_REPLAY_OK) print e.message
 *
 * Notes
 *   - The file format is in docs/determinism.md. All numbers are
 *     little-endian; reals are their raw bits in 64-bit fields, so a replay is
 *     the same bytes on every machine of the recording's scalar mode.
 *   - The reader validates everything (checksum first, then every length,
 *     count, type, flag and order against the bytes that are really there)
 *     before it allocates by any count, so a hostile or truncated file gets an
 *     error, never a crash or a huge allocation.
 *   - A replay from the other scalar mode is read (and fully checked) but
 *     reported as CR_REPLAY_OTHER_MODE: its inputs cannot be represented in
 *     this build's cr_real.
 */
#ifndef CRUMPLE_REPLAY_H
#define CRUMPLE_REPLAY_H

#include "crumple/crumple.h"
#include "crumple/input.h"

#include <stddef.h>

#define CR_REPLAY_VERSION 1u            ///< file format version this code reads and writes
#define CR_REPLAY_HEADER_BYTES 64u
#define CR_REPLAY_INPUT_BYTES 112u       ///< one input record in the file
#define CR_REPLAY_MAX_PATH 4096u         ///< longest recorded scene path, bytes
#define CR_REPLAY_MAX_SCENE (16u << 20)  ///< largest embedded scene text, bytes
#define CR_REPLAY_MAX_FRAMES 10000000u
#define CR_REPLAY_MAX_ASSETS 4096u

typedef enum cr_replay_status {
    CR_REPLAY_OK = 0,
    CR_REPLAY_BAD_FILE,   ///< unreadable, damaged, truncated or not a replay
    CR_REPLAY_OTHER_MODE, ///< a valid replay of the other scalar mode
    CR_REPLAY_WRITE_FAILED
} cr_replay_status;

/// Why reading or writing failed (a sentence naming the field and the byte offset).
typedef struct cr_replay_error {
    char message[256];
} cr_replay_error;

/// What one recorded frame holds: the state hash after its step, and where
/// its per-body hashes are in cr_replay.body_hashes.
typedef struct cr_replay_frame {
    uint64_t state_hash;
    uint32_t first_body; ///< index of its first body hash
    uint32_t body_count; ///< live bodies after the step
} cr_replay_frame;

/// A replay in memory. Arrays are stb_ds arrays (arrlen gives their lengths).
typedef struct cr_replay {
    uint32_t version;         ///< file format version (CR_REPLAY_VERSION)
    uint32_t fixed;           ///< scalar mode: 0 float32, 1 fixed Q32.32
    uint32_t crumple_version; ///< (major << 16) | (minor << 8) | patch of the recording build
    uint64_t layout_id;       ///< cr_state_layout_id() of the recording build
    uint64_t def_hash;        ///< cr_replay_def_hash of the recorded world's def
    uint64_t dt_bits;         ///< the frame time step, raw cr_real bits
    char *scene_path;         ///< as recorded, NUL-terminated (malloc)
    char *scene_text;         ///< embedded scene, NUL-terminated (malloc)
    size_t scene_size;        ///< bytes of scene_text without the NUL
    uint64_t *asset_checksums;///< checksum of the cooked asset in each world asset slot (stb_ds array)
    cr_input *inputs;         ///< every applied input, sorted by frame
    cr_replay_frame *frames;  ///< one per frame
    cr_body_hash *body_hashes;///< all frames' per-body hashes, frame after frame
} cr_replay;

/// Start recording: the scene (path for messages, and its exact text), the
/// world built from it (before any step: its def and the checksums of the
/// cooked assets it registered are recorded) and the frame time step.
void cr_replay_init(cr_replay *r, const char *scene_path, const char *scene_text, size_t scene_size,
                    const cr_world *world, cr_real dt);
/// Record one frame after its step: the inputs applied before the step and
/// the world's hashes now.
void cr_replay_add_frame(cr_replay *r, const cr_world *world, const cr_input *inputs, uint32_t count);
void cr_replay_free(cr_replay *r);

/// Serialise into a new malloc'ed buffer (the file's exact bytes).
cr_replay_status cr_replay_encode(const cr_replay *r, uint8_t **out, size_t *size);
/// Parse and fully validate file bytes into *r (zeroed first; free with
/// cr_replay_free even on error).
cr_replay_status cr_replay_decode(const uint8_t *data, size_t size, cr_replay *r, cr_replay_error *err);
/// Write atomically (temporary file, then rename).
cr_replay_status cr_replay_save(const cr_replay *r, const char *path, cr_replay_error *err);
cr_replay_status cr_replay_load(const char *path, cr_replay *r, cr_replay_error *err);

/* ------------------------------------------------------------ verifying */

#define CR_REPLAY_NAMED_BODIES 8 ///< differing bodies a verdict names

typedef enum cr_replay_outcome {
    CR_REPLAY_PASS = 0,   ///< every frame's state hash matched
    CR_REPLAY_DESYNC = 1, ///< a frame's hash differs (or a recorded input no longer applies)
    CR_REPLAY_MISMATCH = 2///< this build cannot reproduce it by design: other mode, layout id, def or dt
} cr_replay_outcome;

/// What cr_replay_verify found.
typedef struct cr_replay_verdict {
    cr_replay_outcome outcome;
    int32_t frame;             ///< first differing frame (desync), else -1
    uint64_t hash;             ///< state hash this build computed after that frame
    uint64_t recorded;         ///< the replay's hash for that frame
    uint32_t body_differs;     ///< how many bodies differ after that frame
    uint32_t named;            ///< entries of bodies/names filled (at most CR_REPLAY_NAMED_BODIES)
    cr_body_id bodies[CR_REPLAY_NAMED_BODIES];       ///< first differing bodies, slot order
    char names[CR_REPLAY_NAMED_BODIES][64];          ///< their scene names ("?" if not a scene body)
    char message[512];         ///< one line saying what happened
} cr_replay_verdict;

/// Re-simulate a replay: build the world from its embedded scene, then per
/// frame create the scene's spawns, apply the recorded inputs with
/// cr_world_apply_inputs, step, and compare the state hash. Stops at the
/// first differing frame and names the first differing bodies. Meshes are
/// cooked into ./build/cache when it exists, else into a temporary folder
/// that is removed before this returns (never where the replay's scene says).
cr_replay_outcome cr_replay_verify(const cr_replay *r, cr_replay_verdict *v);
/// The same, rolling back as a rollback-networking layer does: after each
/// frame f (from frame depth - 1 on) restore the snapshot taken before frame
/// f - depth + 1 and re-simulate those depth frames, each compared with the
/// recording again. depth 0 is cr_replay_verify.
cr_replay_outcome cr_replay_verify_rollback(const cr_replay *r, uint32_t depth, cr_replay_verdict *v);

/// Write per-frame state hashes as a golden hash file (text: `mode NAME`,
/// `frames N`, then `FRAME HASH` lines, # comments).
int cr_golden_write(const char *path, const char *title, uint32_t fixed, const uint64_t *hashes, uint32_t count,
                    cr_replay_error *err);
/// Read a golden hash file for mode `fixed`; on success *hashes is a new
/// malloc'ed array of *count hashes. Errors are "file:line: message".
int cr_golden_read(const char *path, uint32_t fixed, uint64_t **hashes, uint32_t *count, cr_replay_error *err);

/// Hash of the simulation settings of a world def (gravity, capacities,
/// passes, switches; not the hooks, not the scratch size, which depends on
/// structure sizes): a replay checks that its scene still builds this def.
uint64_t cr_replay_def_hash(const cr_world_def *def);
/// This build's crumple version as stored in replays.
uint32_t cr_replay_build_version(void);
/// Raw bits of a real as a replay stores them.
uint64_t cr_replay_real_bits(cr_real r);

#endif
