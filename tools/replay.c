/* replay.c — replay file writer and fully validating reader (see replay.h;
 * the byte layout is documented in docs/determinism.md, "Replay files").
 *
 * Notes
 *   - Encoding goes through put_* helpers that write little-endian bytes one
 *     at a time, and decoding through a cursor whose take() refuses to move
 *     past the end, so neither depends on host byte order, alignment or
 *     structure padding.
 *   - The checksum (FNV-1a 64 over the whole file with the checksum field
 *     read as zero) is checked before any other field is trusted: a single
 *     flipped byte anywhere always changes it, because every FNV-1a step is a
 *     bijection of the running state.
 *   - Counts are checked against the bytes left before anything is
 *     allocated by them.
 *   - Cooked assets are not embedded (they are big and the game ships them);
 *     their checksums are, so a verifier that loaded other files says so
 *     instead of reporting a desync.
 */
#include "replay.h"
#include "cli.h"
#include "platform.h"
#include "scene.h"
#include "crumple/asset.h"
#include "crumple/snapshot.h"
#include "stb_ds.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAGIC0 'C'
#define MAGIC1 'R'
#define MAGIC2 'R'
#define MAGIC3 'P'
#define OFF_CHECKSUM 56u
#define FRAME_MIN_BYTES 12u
#define BODY_HASH_BYTES 16u

/* ------------------------------------------------------------ helpers */

static uint64_t fnv_bytes(uint64_t h, const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static uint64_t fnv_u64(uint64_t h, uint64_t v) {
    for (int i = 0; i < 8; ++i) {
        h ^= (uint8_t)(v >> (8 * i));
        h *= 0x100000001b3ull;
    }
    return h;
}

uint64_t cr_replay_real_bits(cr_real r) {
#if CR_FIXED
    return (uint64_t)r;
#else
    uint32_t u;
    memcpy(&u, &r, sizeof u);
    return u;
#endif
}

static cr_real real_from_bits(uint64_t b) {
#if CR_FIXED
    return (cr_real)b;
#else
    uint32_t u = (uint32_t)b;
    cr_real r;
    memcpy(&r, &u, sizeof r);
    return r;
#endif
}

uint32_t cr_replay_build_version(void) {
    return ((uint32_t)CR_VERSION_MAJOR << 16) | ((uint32_t)CR_VERSION_MINOR << 8) | (uint32_t)CR_VERSION_PATCH;
}

uint64_t cr_replay_def_hash(const cr_world_def *d) {
    uint64_t h = 0xcbf29ce484222325ull;
    const cr_real reals[5] = {d->gravity.x, d->gravity.y, d->gravity.z, d->broadphase_cell, d->event_min_speed};
    for (int i = 0; i < 5; ++i) h = fnv_u64(h, cr_replay_real_bits(reals[i]));
    const uint32_t u[13] = {d->body_capacity,   d->joint_capacity,   d->pair_capacity,    d->points_per_pair,
                            d->point_capacity,  d->contact_capacity, d->event_capacity,   d->asset_capacity,
                            d->collision_passes, d->contact_passes,  d->level_iterations, d->joint_iterations,
                            d->shock_propagation ? 1u : 0u};
    for (int i = 0; i < 13; ++i) h = fnv_u64(h, u[i]);
    return h;
}

#if defined(__GNUC__)
#define CR_PRINTF_(f, a) __attribute__((format(printf, f, a)))
#else
#define CR_PRINTF_(f, a)
#endif

static void set_err(cr_replay_error *e, const char *fmt, ...) CR_PRINTF_(2, 3);
static void set_err(cr_replay_error *e, const char *fmt, ...) {
    if (e == NULL) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->message, sizeof e->message, fmt, ap);
    va_end(ap);
}

/* ------------------------------------------------------------- writing */

static char *dup_bytes(const char *s, size_t n) {
    char *p = malloc(n + 1);
    if (p == NULL) return NULL;
    if (n) memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

void cr_replay_init(cr_replay *r, const char *scene_path, const char *scene_text, size_t scene_size,
                    const cr_world *world, cr_real dt) {
    memset(r, 0, sizeof *r);
    r->version = CR_REPLAY_VERSION;
    r->fixed = CR_FIXED;
    r->crumple_version = cr_replay_build_version();
    r->layout_id = cr_state_layout_id();
    cr_world_def def = cr_world_get_def(world);
    r->def_hash = cr_replay_def_hash(&def);
    r->dt_bits = cr_replay_real_bits(dt);
    if (scene_path == NULL) scene_path = "";
    r->scene_path = dup_bytes(scene_path, strlen(scene_path));
    r->scene_text = dup_bytes(scene_text ? scene_text : "", scene_text ? scene_size : 0);
    r->scene_size = scene_text ? scene_size : 0;
    for (uint32_t slot = 0; slot < CR_REPLAY_MAX_ASSETS; ++slot) {
        const cr_asset *a = cr_world_get_asset(world, slot);
        if (a == NULL) break;
        arrput(r->asset_checksums, a->checksum);
    }
}

void cr_replay_add_frame(cr_replay *r, const cr_world *world, const cr_input *inputs, uint32_t count) {
    for (uint32_t i = 0; i < count; ++i) arrput(r->inputs, inputs[i]);
    cr_replay_frame fr;
    fr.state_hash = cr_world_state_hash(world);
    fr.first_body = (uint32_t)arrlen(r->body_hashes);
    fr.body_count = cr_world_body_hashes(world, NULL, 0);
    arrsetlen(r->body_hashes, fr.first_body + fr.body_count);
    cr_world_body_hashes(world, r->body_hashes + fr.first_body, fr.body_count);
    arrput(r->frames, fr);
}

void cr_replay_free(cr_replay *r) {
    if (r == NULL) return;
    free(r->scene_path);
    free(r->scene_text);
    arrfree(r->asset_checksums);
    arrfree(r->inputs);
    arrfree(r->frames);
    arrfree(r->body_hashes);
    memset(r, 0, sizeof *r);
}

typedef struct wbuf {
    uint8_t *p; /* stb_ds array */
} wbuf;

static void put_u32(wbuf *b, uint32_t v) {
    for (int i = 0; i < 4; ++i) arrput(b->p, (uint8_t)(v >> (8 * i)));
}
static void put_u64(wbuf *b, uint64_t v) {
    for (int i = 0; i < 8; ++i) arrput(b->p, (uint8_t)(v >> (8 * i)));
}
static void put_bytes(wbuf *b, const void *data, size_t n) {
    size_t at = (size_t)arrlen(b->p);
    arrsetlen(b->p, at + n);
    if (n) memcpy(b->p + at, data, n);
}
static void put_real(wbuf *b, cr_real r) { put_u64(b, cr_replay_real_bits(r)); }
static void put_vec3(wbuf *b, cr_vec3 v) {
    put_real(b, v.x), put_real(b, v.y), put_real(b, v.z);
}

cr_replay_status cr_replay_encode(const cr_replay *r, uint8_t **out, size_t *size) {
    *out = NULL;
    *size = 0;
    size_t path_len = r->scene_path ? strlen(r->scene_path) : 0;
    if (path_len > CR_REPLAY_MAX_PATH || r->scene_size > CR_REPLAY_MAX_SCENE ||
        (size_t)arrlen(r->frames) > CR_REPLAY_MAX_FRAMES || (size_t)arrlen(r->asset_checksums) > CR_REPLAY_MAX_ASSETS)
        return CR_REPLAY_WRITE_FAILED;
    wbuf b = {NULL};
    const uint8_t magic[4] = {MAGIC0, MAGIC1, MAGIC2, MAGIC3};
    put_bytes(&b, magic, 4);
    put_u32(&b, CR_REPLAY_VERSION);
    put_u32(&b, CR_REPLAY_HEADER_BYTES);
    put_u32(&b, r->fixed);
    put_u32(&b, r->fixed ? 8u : 4u);
    put_u32(&b, r->crumple_version);
    put_u64(&b, r->layout_id);
    put_u64(&b, r->def_hash);
    put_u64(&b, r->dt_bits);
    put_u32(&b, (uint32_t)arrlen(r->frames));
    put_u32(&b, 0); /* flags: none defined in version 1 */
    put_u64(&b, 0); /* checksum, filled below */

    put_u32(&b, (uint32_t)path_len);
    put_bytes(&b, r->scene_path, path_len);
    put_u32(&b, (uint32_t)r->scene_size);
    put_bytes(&b, r->scene_text, r->scene_size);
    put_u32(&b, (uint32_t)arrlen(r->asset_checksums));
    for (ptrdiff_t i = 0; i < arrlen(r->asset_checksums); ++i) put_u64(&b, r->asset_checksums[i]);

    put_u32(&b, (uint32_t)arrlen(r->inputs));
    for (ptrdiff_t i = 0; i < arrlen(r->inputs); ++i) {
        const cr_input *in = &r->inputs[i];
        put_u32(&b, (uint32_t)in->frame);
        put_u32(&b, in->type);
        put_u32(&b, in->body.index1);
        put_u32(&b, in->body.generation);
        put_u32(&b, in->seq);
        put_u32(&b, in->flags);
        put_real(&b, in->time);
        put_vec3(&b, in->a);
        put_vec3(&b, in->b);
        put_real(&b, in->q.x), put_real(&b, in->q.y), put_real(&b, in->q.z), put_real(&b, in->q.w);
    }
    for (ptrdiff_t f = 0; f < arrlen(r->frames); ++f) {
        const cr_replay_frame *fr = &r->frames[f];
        put_u64(&b, fr->state_hash);
        put_u32(&b, fr->body_count);
        for (uint32_t k = 0; k < fr->body_count; ++k) {
            const cr_body_hash *bh = &r->body_hashes[fr->first_body + k];
            put_u32(&b, bh->id.index1);
            put_u32(&b, bh->id.generation);
            put_u64(&b, bh->hash);
        }
    }
    size_t n = (size_t)arrlen(b.p);
    uint64_t sum = fnv_bytes(0xcbf29ce484222325ull, b.p, n);
    for (int i = 0; i < 8; ++i) b.p[OFF_CHECKSUM + (unsigned)i] = (uint8_t)(sum >> (8 * i));
    uint8_t *copy = malloc(n);
    if (copy == NULL) {
        arrfree(b.p);
        return CR_REPLAY_WRITE_FAILED;
    }
    memcpy(copy, b.p, n);
    arrfree(b.p);
    *out = copy;
    *size = n;
    return CR_REPLAY_OK;
}

cr_replay_status cr_replay_save(const cr_replay *r, const char *path, cr_replay_error *err) {
    uint8_t *bytes = NULL;
    size_t n = 0;
    if (cr_replay_encode(r, &bytes, &n) != CR_REPLAY_OK) {
        set_err(err, "the replay exceeds the format's limits (scene, path or frames)");
        return CR_REPLAY_WRITE_FAILED;
    }
    crp_status ps = crp_write_file_atomic(path, bytes, n);
    free(bytes);
    if (ps != CRP_OK) {
        set_err(err, "cannot write: %s", crp_status_message(ps));
        return CR_REPLAY_WRITE_FAILED;
    }
    return CR_REPLAY_OK;
}

/* ------------------------------------------------------------- reading */

typedef struct cursor {
    const uint8_t *p;
    size_t size, pos;
    cr_replay_error *err;
} cursor;

static size_t left(const cursor *c) { return c->size - c->pos; }

static int take(cursor *c, size_t n, const char *what, const uint8_t **out) {
    if (n > left(c)) {
        set_err(c->err, "byte %zu: truncated: %s needs %zu bytes, %zu left", c->pos, what, n, left(c));
        return -1;
    }
    *out = c->p + c->pos;
    c->pos += n;
    return 0;
}

static uint32_t le32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t le64(const uint8_t *p) { return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32; }

static int get_u32(cursor *c, const char *what, uint32_t *v) {
    const uint8_t *p;
    if (take(c, 4, what, &p)) return -1;
    *v = le32(p);
    return 0;
}
static int get_u64(cursor *c, const char *what, uint64_t *v) {
    const uint8_t *p;
    if (take(c, 8, what, &p)) return -1;
    *v = le64(p);
    return 0;
}

/* A stored real must be a value of the file's mode: float bits in the low
 * half with a zero high half, and finite. */
static int check_real_bits(cursor *c, uint32_t fixed, uint64_t bits, size_t at, const char *what) {
    if (fixed) return 0;
    if ((bits >> 32) != 0) {
        set_err(c->err, "byte %zu: %s: float32 value with non-zero high bits", at, what);
        return -1;
    }
    if (((bits >> 23) & 0xffu) == 0xffu) {
        set_err(c->err, "byte %zu: %s: not a finite number", at, what);
        return -1;
    }
    return 0;
}

static int read_string(cursor *c, const char *what, uint32_t max, char **out, size_t *len) {
    uint32_t n;
    size_t at = c->pos;
    if (get_u32(c, what, &n)) return -1;
    if (n > max) {
        set_err(c->err, "byte %zu: %s is %u bytes, more than the %u allowed", at, what, (unsigned)n, (unsigned)max);
        return -1;
    }
    const uint8_t *p;
    if (take(c, n, what, &p)) return -1;
    if (memchr(p, 0, n) != NULL) {
        set_err(c->err, "byte %zu: %s contains a NUL byte", at + 4, what);
        return -1;
    }
    *out = dup_bytes((const char *)p, n);
    if (*out == NULL) {
        set_err(c->err, "out of memory reading %s", what);
        return -1;
    }
    *len = n;
    return 0;
}

static int read_input(cursor *c, uint32_t fixed, uint32_t frames, int32_t prev_frame, uint32_t index,
                      cr_input *in) {
    size_t at = c->pos;
    const uint8_t *p;
    if (take(c, CR_REPLAY_INPUT_BYTES, "an input record", &p)) return -1;
    uint32_t frame = le32(p), type = le32(p + 4), flags = le32(p + 20);
    memset(in, 0, sizeof *in);
    if (frame >= frames || (int32_t)frame < prev_frame) {
        set_err(c->err, "byte %zu: input %u: frame %u is %s", at, (unsigned)index, (unsigned)frame,
                frame >= frames ? "past the recorded frames" : "before the previous input's (inputs must be sorted)");
        return -1;
    }
    if (type < CR_INPUT_TYPE_MIN || type > CR_INPUT_TYPE_MAX) {
        set_err(c->err, "byte %zu: input %u: unknown type %u", at + 4, (unsigned)index, (unsigned)type);
        return -1;
    }
    if (le32(p + 8) == 0) {
        set_err(c->err, "byte %zu: input %u: null body handle", at + 8, (unsigned)index);
        return -1;
    }
    if ((flags & ~CR_INPUT_FLAGS_ALL) != 0) {
        set_err(c->err, "byte %zu: input %u: unknown flags 0x%x", at + 20, (unsigned)index, (unsigned)flags);
        return -1;
    }
    uint64_t bits[11];
    for (int k = 0; k < 11; ++k) {
        bits[k] = le64(p + 24 + 8 * k);
        if (check_real_bits(c, fixed, bits[k], at + 24 + 8 * (size_t)k, "input value")) return -1;
    }
    in->frame = (int32_t)frame;
    in->type = type;
    in->body.index1 = le32(p + 8);
    in->body.generation = le32(p + 12);
    in->seq = le32(p + 16);
    in->flags = flags;
    if (fixed != (uint32_t)CR_FIXED) return 0; /* checked, not representable here */
    in->time = real_from_bits(bits[0]);
    in->a = cr_v3(real_from_bits(bits[1]), real_from_bits(bits[2]), real_from_bits(bits[3]));
    in->b = cr_v3(real_from_bits(bits[4]), real_from_bits(bits[5]), real_from_bits(bits[6]));
    in->q.x = real_from_bits(bits[7]), in->q.y = real_from_bits(bits[8]);
    in->q.z = real_from_bits(bits[9]), in->q.w = real_from_bits(bits[10]);
    if (type == CR_INPUT_KINEMATIC_TARGET && !(in->time > 0)) {
        set_err(c->err, "byte %zu: input %u: kinematic target time is not positive", at + 24, (unsigned)index);
        return -1;
    }
    return 0;
}

static cr_replay_status decode(cursor *c, cr_replay *r) {
    const uint8_t *h;
    if (c->size < CR_REPLAY_HEADER_BYTES) {
        set_err(c->err, "byte 0: truncated: %zu bytes, a replay header alone is %u", c->size, CR_REPLAY_HEADER_BYTES);
        return CR_REPLAY_BAD_FILE;
    }
    if (take(c, CR_REPLAY_HEADER_BYTES, "the header", &h)) return CR_REPLAY_BAD_FILE;
    if (h[0] != MAGIC0 || h[1] != MAGIC1 || h[2] != MAGIC2 || h[3] != MAGIC3) {
        set_err(c->err, "byte 0: not a crumple replay (no CRRP magic)");
        return CR_REPLAY_BAD_FILE;
    }
    r->version = le32(h + 4);
    if (r->version != CR_REPLAY_VERSION) {
        set_err(c->err, "byte 4: replay format version %u; this build reads version %u", (unsigned)r->version, (unsigned)CR_REPLAY_VERSION);
        return CR_REPLAY_BAD_FILE;
    }
    if (le32(h + 8) != CR_REPLAY_HEADER_BYTES) {
        set_err(c->err, "byte 8: header size %u, expected %u", (unsigned)le32(h + 8), (unsigned)CR_REPLAY_HEADER_BYTES);
        return CR_REPLAY_BAD_FILE;
    }
    uint64_t stored = le64(h + OFF_CHECKSUM);
    static const uint8_t zeros[8] = {0};
    uint64_t sum = fnv_bytes(0xcbf29ce484222325ull, c->p, OFF_CHECKSUM);
    sum = fnv_bytes(sum, zeros, 8);
    sum = fnv_bytes(sum, c->p + OFF_CHECKSUM + 8, c->size - OFF_CHECKSUM - 8);
    if (sum != stored) {
        set_err(c->err, "byte %u: checksum mismatch (the file is damaged or truncated)", OFF_CHECKSUM);
        return CR_REPLAY_BAD_FILE;
    }
    r->fixed = le32(h + 12);
    if (r->fixed > 1) {
        set_err(c->err, "byte 12: unknown scalar mode %u", (unsigned)r->fixed);
        return CR_REPLAY_BAD_FILE;
    }
    if (le32(h + 16) != (r->fixed ? 8u : 4u)) {
        set_err(c->err, "byte 16: real size %u does not match the scalar mode", (unsigned)le32(h + 16));
        return CR_REPLAY_BAD_FILE;
    }
    r->crumple_version = le32(h + 20);
    r->layout_id = le64(h + 24);
    r->def_hash = le64(h + 32);
    r->dt_bits = le64(h + 40);
    if (check_real_bits(c, r->fixed, r->dt_bits, 40, "dt")) return CR_REPLAY_BAD_FILE;
    if (r->fixed ? (int64_t)r->dt_bits <= 0 : (((r->dt_bits >> 31) & 1u) != 0 || r->dt_bits == 0)) {
        set_err(c->err, "byte 40: dt is not positive");
        return CR_REPLAY_BAD_FILE;
    }
    uint32_t frames = le32(h + 48);
    if (frames > CR_REPLAY_MAX_FRAMES) {
        set_err(c->err, "byte 48: %u frames, more than the %u allowed", (unsigned)frames, (unsigned)CR_REPLAY_MAX_FRAMES);
        return CR_REPLAY_BAD_FILE;
    }
    if (le32(h + 52) != 0) {
        set_err(c->err, "byte 52: unknown flags 0x%x", (unsigned)le32(h + 52));
        return CR_REPLAY_BAD_FILE;
    }

    if (read_string(c, "the scene path", CR_REPLAY_MAX_PATH, &r->scene_path, &(size_t){0})) return CR_REPLAY_BAD_FILE;
    if (read_string(c, "the scene text", CR_REPLAY_MAX_SCENE, &r->scene_text, &r->scene_size))
        return CR_REPLAY_BAD_FILE;

    uint32_t nassets;
    size_t at = c->pos;
    if (get_u32(c, "the asset count", &nassets)) return CR_REPLAY_BAD_FILE;
    if (nassets > CR_REPLAY_MAX_ASSETS || (uint64_t)nassets * 8u > left(c)) {
        set_err(c->err, "byte %zu: %u asset checksums: more than %u or past the end of the file", at,
                (unsigned)nassets, (unsigned)CR_REPLAY_MAX_ASSETS);
        return CR_REPLAY_BAD_FILE;
    }
    for (uint32_t i = 0; i < nassets; ++i) {
        uint64_t sum;
        if (get_u64(c, "an asset checksum", &sum)) return CR_REPLAY_BAD_FILE;
        arrput(r->asset_checksums, sum);
    }

    uint32_t ninputs;
    at = c->pos;
    if (get_u32(c, "the input count", &ninputs)) return CR_REPLAY_BAD_FILE;
    if ((uint64_t)ninputs * CR_REPLAY_INPUT_BYTES > left(c)) {
        set_err(c->err, "byte %zu: truncated: %u inputs need %llu bytes, %zu left", at, (unsigned)ninputs,
                (unsigned long long)ninputs * CR_REPLAY_INPUT_BYTES, left(c));
        return CR_REPLAY_BAD_FILE;
    }
    arrsetcap(r->inputs, ninputs);
    int32_t prev = 0;
    for (uint32_t i = 0; i < ninputs; ++i) {
        cr_input in;
        if (read_input(c, r->fixed, frames, prev, i, &in)) return CR_REPLAY_BAD_FILE;
        prev = in.frame;
        arrput(r->inputs, in);
    }

    if ((uint64_t)frames * FRAME_MIN_BYTES > left(c)) {
        set_err(c->err, "byte %zu: truncated: %u frames need at least %llu bytes, %zu left", c->pos, (unsigned)frames,
                (unsigned long long)frames * FRAME_MIN_BYTES, left(c));
        return CR_REPLAY_BAD_FILE;
    }
    arrsetcap(r->frames, frames);
    for (uint32_t f = 0; f < frames; ++f) {
        cr_replay_frame fr;
        if (get_u64(c, "a frame's state hash", &fr.state_hash)) return CR_REPLAY_BAD_FILE;
        at = c->pos;
        if (get_u32(c, "a frame's body count", &fr.body_count)) return CR_REPLAY_BAD_FILE;
        /* what the remaining frames need at least must stay available */
        uint64_t need = (uint64_t)fr.body_count * BODY_HASH_BYTES + (uint64_t)(frames - 1 - f) * FRAME_MIN_BYTES;
        if (need > left(c)) {
            set_err(c->err, "byte %zu: truncated: frame %u has %u body hashes, the file ends first", at, (unsigned)f,
                    (unsigned)fr.body_count);
            return CR_REPLAY_BAD_FILE;
        }
        fr.first_body = (uint32_t)arrlen(r->body_hashes);
        uint32_t prev_index = 0;
        for (uint32_t k = 0; k < fr.body_count; ++k) {
            const uint8_t *p;
            at = c->pos;
            if (take(c, BODY_HASH_BYTES, "a body hash", &p)) return CR_REPLAY_BAD_FILE;
            cr_body_hash bh;
            bh.id.index1 = le32(p);
            bh.id.generation = le32(p + 4);
            bh.hash = le64(p + 8);
            if (bh.id.index1 <= prev_index) {
                set_err(c->err, "byte %zu: frame %u: body slot %u is not after the previous one", at, (unsigned)f, (unsigned)bh.id.index1);
                return CR_REPLAY_BAD_FILE;
            }
            prev_index = bh.id.index1;
            arrput(r->body_hashes, bh);
        }
        arrput(r->frames, fr);
    }
    if (left(c) != 0) {
        set_err(c->err, "byte %zu: %zu unexpected bytes after the last frame", c->pos, left(c));
        return CR_REPLAY_BAD_FILE;
    }
    return r->fixed == (uint32_t)CR_FIXED ? CR_REPLAY_OK : CR_REPLAY_OTHER_MODE;
}

cr_replay_status cr_replay_decode(const uint8_t *data, size_t size, cr_replay *r, cr_replay_error *err) {
    memset(r, 0, sizeof *r);
    if (err) err->message[0] = '\0';
    if (data == NULL) size = 0;
    cursor c = {data, size, 0, err};
    cr_replay_status s = decode(&c, r);
    if (s == CR_REPLAY_OTHER_MODE)
        set_err(err, "recorded in %s mode; this build is %s", r->fixed ? "fixed-q32.32" : "float32", CR_MODE_NAME);
    return s;
}

cr_replay_status cr_replay_load(const char *path, cr_replay *r, cr_replay_error *err) {
    memset(r, 0, sizeof *r);
    uint8_t *data = NULL;
    size_t size = 0;
    crp_status ps = crp_read_file(path, &data, &size);
    if (ps != CRP_OK) {
        set_err(err, "cannot read: %s", crp_status_message(ps));
        return CR_REPLAY_BAD_FILE;
    }
    cr_replay_status s = cr_replay_decode(data, size, r, err);
    crp_free(data);
    return s;
}

/* ------------------------------------------------------------ verifying */

static const char *mode_name(uint32_t fixed) { return fixed ? "fixed-q32.32" : "float32"; }

static void verdict(cr_replay_verdict *v, cr_replay_outcome o, const char *fmt, ...) CR_PRINTF_(3, 4);
static void verdict(cr_replay_verdict *v, cr_replay_outcome o, const char *fmt, ...) {
    v->outcome = o;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->message, sizeof v->message, fmt, ap);
    va_end(ap);
}

static void name_bodies(const cr_scene *s, const cr_world *w, const cr_replay *r, const cr_replay_frame *fr,
                        cr_replay_verdict *v) {
    uint32_t n = cr_world_body_hashes(w, NULL, 0);
    cr_body_hash *now = calloc((size_t)n + 1, sizeof *now);
    if (now == NULL) return;
    cr_world_body_hashes(w, now, n);
    v->body_differs = cr_body_hashes_diff(r->body_hashes + fr->first_body, fr->body_count, now, n, v->bodies,
                                          CR_REPLAY_NAMED_BODIES);
    v->named = v->body_differs < CR_REPLAY_NAMED_BODIES ? v->body_differs : CR_REPLAY_NAMED_BODIES;
    for (uint32_t i = 0; i < v->named; ++i) {
        snprintf(v->names[i], sizeof v->names[i], "?");
        for (ptrdiff_t k = 0; k < arrlen(s->bodies); ++k)
            if (s->bodies[k].id.index1 == v->bodies[i].index1 && s->bodies[k].id.generation == v->bodies[i].generation)
                snprintf(v->names[i], sizeof v->names[i], "%s", s->bodies[k].name);
    }
    free(now);
}

/* The recorded frames as cr_scene_run steps them, and the comparison after each. */
typedef struct verify_run {
    const cr_replay *r;
    cr_replay_verdict *v;
    int32_t rewound; /* the frame whose rollback led here, -1 for none */
    uint32_t depth;  /* frames each rollback goes back, 0 for none */
    size_t snap;     /* bytes of one snapshot */
    uint8_t *ring;   /* depth + 1 snapshots: the starts of the last frames */
    const ptrdiff_t *first;
} verify_run;

static void desync_after(const verify_run *vr, char *after, size_t size) {
    after[0] = '\0';
    if (vr->rewound >= 0) snprintf(after, size, ", re-run after rolling back at frame %d", (int)vr->rewound);
}

/* Compares frame fr's state hash with the recording's: 0 matched, 1 desync (v filled). */
static int compare_frame(verify_run *vr, cr_scene *s, cr_world *w, int32_t f) {
    const cr_replay *r = vr->r;
    cr_replay_verdict *v = vr->v;
    const cr_replay_frame *fr = &r->frames[f];
    uint64_t h = cr_world_state_hash(w);
    if (h == fr->state_hash) return 0;
    char after[64];
    desync_after(vr, after, sizeof after);
    v->frame = f;
    v->hash = h;
    v->recorded = fr->state_hash;
    name_bodies(s, w, r, fr, v);
    verdict(v, CR_REPLAY_DESYNC, "desync at frame %d (t = %.4f s)%s: state hash %016llx, recorded %016llx", (int)f,
            cr_to_double(s->dt) * (double)(f + 1), after, (unsigned long long)h, (unsigned long long)fr->state_hash);
    return 1;
}

static int save_start(verify_run *vr, cr_world *w, int32_t f) {
    if (vr->depth == 0) return 0;
    if (cr_world_snapshot_save(w, vr->ring + vr->snap * (size_t)((uint32_t)f % (vr->depth + 1u)), vr->snap) == CR_OK) return 0;
    verdict(vr->v, CR_REPLAY_MISMATCH, "snapshot failed at frame %d", (int)f);
    vr->v->frame = -1;
    return 1;
}

static int rerun_compare(void *user, cr_scene *s, cr_world *w, const cr_scene_frame *fr) {
    verify_run *vr = user;
    vr->v->frame = fr->frame; /* the last frame stepped, for run_frames's message */
    return compare_frame(vr, s, w, fr->frame);
}

/* Frames [from, to) again through cr_scene_run, each compared; a failed step is a desync. */
static int run_frames(verify_run *vr, cr_scene *s, cr_world *w, int32_t from, int32_t to, cr_scene_frame_fn each) {
    cr_scene_loop loop = {.from = from, .to = to, .inputs = vr->r->inputs, .input_first = vr->first, .each = each, .user = vr};
    cr_scene_error e;
    int rc = cr_scene_run(s, w, &loop, &e);
    if (rc >= 0) return rc;
    /* the frame that failed is the one after the last that was compared */
    char why[600], after[64];
    cr_scene_error_format(why, sizeof why, &e);
    desync_after(vr, after, sizeof after);
    int32_t f = vr->v->frame >= from ? vr->v->frame + 1 : from;
    vr->v->frame = f;
    verdict(vr->v, CR_REPLAY_DESYNC, "desync at frame %d%s: %s", (int)f, after, why);
    return 1;
}

/* After every recorded frame f: compare; keep the start of f + 1; and, with a
 * depth, roll back as a network layer does on late input: to the start of
 * frame f - depth + 1 and the same frames again. */
static int verify_frame(void *user, cr_scene *s, cr_world *w, const cr_scene_frame *fr) {
    verify_run *vr = user;
    int32_t f = fr->frame;
    vr->v->frame = f; /* the last frame stepped, for run_frames's message */
    if (compare_frame(vr, s, w, f)) return 1;
    if (vr->depth != 0 && f + 1 >= (int32_t)vr->depth) {
        int32_t from = f + 1 - (int32_t)vr->depth;
        if (cr_world_snapshot_restore(w, vr->ring + vr->snap * (size_t)((uint32_t)from % (vr->depth + 1u)), vr->snap) != CR_OK) {
            verdict(vr->v, CR_REPLAY_DESYNC, "the snapshot of frame %d does not restore", (int)from);
            vr->v->frame = from;
            return 1;
        }
        vr->rewound = f;
        vr->v->frame = from - 1;
        int bad = run_frames(vr, s, w, from, f + 1, rerun_compare);
        vr->rewound = -1;
        vr->v->frame = f;
        if (bad) return 1;
    }
    return save_start(vr, w, f + 1);
}

cr_replay_outcome cr_replay_verify(const cr_replay *r, cr_replay_verdict *v) { return cr_replay_verify_rollback(r, 0, v); }

/* The verifier's cache rule. A replay may come from anyone and be checked
 * from any folder: its scene's `cache` line (and the path the scene is said
 * to have had) must not choose where the verifier writes, and a verify run in
 * a folder that has no build/cache must not leave one behind. So the meshes
 * it cooks go to ./build/cache when that exists already (the tools' default,
 * keyed by the mesh bytes, so sharing it is safe and the cooks are kept),
 * else to a temporary folder that is removed when the verify ends. */
static cr_replay_outcome verify_in(const cr_replay *r, uint32_t depth, const char *cache, cr_replay_verdict *v);

cr_replay_outcome cr_replay_verify_rollback(const cr_replay *r, uint32_t depth, cr_replay_verdict *v) {
    char tmp[CR_SCENE_PATH_MAX] = "";
    const char *cache = "build/cache";
    if (!crp_dir_exists(cache)) {
        if (crp_make_temp_dir(tmp, sizeof tmp) != CRP_OK) {
            memset(v, 0, sizeof *v);
            v->frame = -1;
            verdict(v, CR_REPLAY_MISMATCH, "cannot make a temporary cache folder (no ./build/cache here)");
            return v->outcome;
        }
        cache = tmp;
    }
    cr_replay_outcome out = verify_in(r, depth, cache, v);
    if (tmp[0] != '\0') crp_remove_dir(tmp);
    return out;
}

static cr_replay_outcome verify_in(const cr_replay *r, uint32_t depth, const char *cache, cr_replay_verdict *v) {
    memset(v, 0, sizeof *v);
    v->frame = -1;
    if (r->fixed != (uint32_t)CR_FIXED) {
        verdict(v, CR_REPLAY_MISMATCH, "mismatched build: recorded in %s mode, this build is %s", mode_name(r->fixed),
                CR_MODE_NAME);
        return v->outcome;
    }
    if (r->layout_id != cr_state_layout_id()) {
        verdict(v, CR_REPLAY_MISMATCH, "mismatched build: state-layout id %016llx, this build's is %016llx",
                (unsigned long long)r->layout_id, (unsigned long long)cr_state_layout_id());
        return v->outcome;
    }
    cr_scene *s = NULL;
    cr_scene_error e;
    char why[600];
    if (cr_scene_parse(r->scene_text, r->scene_size, r->scene_path, &s, &e)) {
        cr_scene_error_format(why, sizeof why, &e);
        verdict(v, CR_REPLAY_MISMATCH, "mismatched build: the embedded scene does not parse here: %s", why);
        return v->outcome;
    }
    /* the replay is fully decoded and checked by now; the only files it may
     * make are cooked meshes in the verifier's own cache (above) */
    snprintf(s->cache_dir, sizeof s->cache_dir, "%s", cache);
    cr_world *w = NULL;
    if (cr_scene_build(s, &w, &e)) {
        cr_scene_error_format(why, sizeof why, &e);
        verdict(v, CR_REPLAY_MISMATCH, "mismatched build: the embedded scene does not build here: %s", why);
        cr_scene_free(s);
        return v->outcome;
    }
    cr_world_def def = cr_world_get_def(w);
    if (cr_replay_def_hash(&def) != r->def_hash || cr_replay_real_bits(s->dt) != r->dt_bits) {
        verdict(v, CR_REPLAY_MISMATCH, "mismatched build: the embedded scene builds a different world def or dt here");
        cr_cli_world_free(w);
        cr_scene_free(s);
        return v->outcome;
    }
    for (uint32_t slot = 0; slot <= (uint32_t)arrlen(r->asset_checksums); ++slot) {
        const cr_asset *a = cr_world_get_asset(w, slot);
        bool recorded = slot < (uint32_t)arrlen(r->asset_checksums);
        if (a == NULL && !recorded) break;
        if (a != NULL && recorded && a->checksum == r->asset_checksums[slot]) continue;
        const char *name = "?";
        for (ptrdiff_t i = 0; i < arrlen(s->assets); ++i)
            if (s->assets[i].slot == slot) name = s->assets[i].name;
        verdict(v, CR_REPLAY_MISMATCH,
                "mismatched assets: asset slot %u (%s) %s the recording (other mesh files, cook options or cooker)",
                (unsigned)slot, name, a == NULL ? "is missing here but in" : (recorded ? "differs from" : "is not in"));
        cr_cli_world_free(w);
        cr_scene_free(s);
        return v->outcome;
    }
    /* where each frame's inputs start (inputs are sorted by frame) */
    ptrdiff_t frames = arrlen(r->frames), ninputs = arrlen(r->inputs);
    ptrdiff_t *first = malloc(sizeof *first * (size_t)(frames + 1));
    size_t snap = depth ? cr_world_snapshot_size(w) : 0;
    uint8_t *ring = depth ? malloc(snap * (depth + 1u)) : NULL;
    if (first == NULL || (depth && ring == NULL)) {
        verdict(v, CR_REPLAY_MISMATCH, "out of memory");
    } else {
        ptrdiff_t k = 0;
        for (ptrdiff_t f = 0; f <= frames; ++f) {
            first[f] = k;
            while (k < ninputs && r->inputs[k].frame == (int32_t)f) ++k;
        }
        if (depth)
            verdict(v, CR_REPLAY_PASS, "%d frames verified (%s), rolling back %u frames every frame", (int)frames,
                    CR_MODE_NAME, (unsigned)depth);
        else
            verdict(v, CR_REPLAY_PASS, "%d frames verified (%s)", (int)frames, CR_MODE_NAME);
        verify_run vr = {r, v, -1, depth, snap, ring, first};
        if (save_start(&vr, w, 0) == 0) {
            v->frame = -1;
            if (run_frames(&vr, s, w, 0, (int32_t)frames, verify_frame) == 0) v->frame = -1;
        }
    }
    free(ring);
    free(first);
    cr_cli_world_free(w);
    cr_scene_free(s);
    return v->outcome;
}

/* ---------------------------------------------------------- golden files */

int cr_golden_write(const char *path, const char *title, uint32_t fixed, const uint64_t *hashes, uint32_t count,
                    cr_replay_error *err) {
    char *text = NULL; /* stb_ds array */
    char line[512];
    int n = snprintf(line, sizeof line, "# %s\n# per-frame state hashes, after each frame's step\nmode %s\nframes %u\n",
                     title ? title : "crumple", mode_name(fixed), (unsigned)count);
    size_t len = n < 0 ? 0 : ((size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
    memcpy(arraddnptr(text, len), line, len);
    for (uint32_t f = 0; f < count; ++f) {
        n = snprintf(line, sizeof line, "%u %016llx\n", (unsigned)f, (unsigned long long)hashes[f]);
        memcpy(arraddnptr(text, (size_t)n), line, (size_t)n);
    }
    crp_status ps = crp_write_file_atomic(path, text, (size_t)arrlen(text));
    arrfree(text);
    if (ps != CRP_OK) {
        set_err(err, "%s: cannot write: %s", path, crp_status_message(ps));
        return -1;
    }
    return 0;
}

static int parse_hex64(const char *t, uint64_t *out) {
    uint64_t v = 0;
    int n = 0;
    for (; *t; ++t, ++n) {
        int d = (*t >= '0' && *t <= '9') ? *t - '0' : (*t >= 'a' && *t <= 'f') ? *t - 'a' + 10 : -1;
        if (d < 0 || n >= 16) return -1;
        v = v << 4 | (uint64_t)d;
    }
    if (n != 16) return -1;
    *out = v;
    return 0;
}

static int parse_count(const char *t, uint32_t max, uint32_t *out) {
    uint64_t v = 0;
    if (*t == '\0') return -1;
    for (; *t; ++t) {
        if (*t < '0' || *t > '9') return -1;
        v = v * 10 + (uint64_t)(*t - '0');
        if (v > max) return -1;
    }
    *out = (uint32_t)v;
    return 0;
}

int cr_golden_read(const char *path, uint32_t fixed, uint64_t **out, uint32_t *count, cr_replay_error *err) {
    *out = NULL;
    *count = 0;
    uint8_t *data = NULL;
    size_t size = 0;
    crp_status ps = crp_read_file(path, &data, &size);
    if (ps != CRP_OK) {
        set_err(err, "%s: cannot read: %s", path, crp_status_message(ps));
        return -1;
    }
    int rc = 0, line_no = 0;
    uint32_t next = 0, frames = 0;
    bool have_mode = false, have_frames = false;
    char *line = (char *)data, *end = (char *)data + size;
    uint64_t *hashes = NULL;
    while (rc == 0 && line < end) {
        char *nl = memchr(line, '\n', (size_t)(end - line));
        if (nl == NULL) nl = end; /* crp_read_file put a NUL there */
        *nl = '\0';
        ++line_no;
        char *word[3] = {NULL, NULL, NULL};
        int nw = 0;
        for (char *p = line; *p && nw < 3;) {
            while (*p == ' ' || *p == '\t' || *p == '\r') *p++ = '\0';
            if (*p == '\0') break;
            word[nw++] = p;
            while (*p && *p != ' ' && *p != '\t' && *p != '\r') ++p;
        }
        uint32_t frame;
        uint64_t h;
        if (nw == 0 || word[0][0] == '#') {
            /* blank or comment */
        } else if (nw == 2 && strcmp(word[0], "mode") == 0 && !have_mode) {
            if (strcmp(word[1], mode_name(fixed)) != 0) {
                set_err(err, "%s:%d: golden hashes of mode %s, wanted %s", path, line_no, word[1], mode_name(fixed));
                rc = -1;
            }
            have_mode = true;
        } else if (nw == 2 && strcmp(word[0], "frames") == 0 && !have_frames) {
            if (parse_count(word[1], CR_REPLAY_MAX_FRAMES, &frames)) {
                set_err(err, "%s:%d: 'frames' needs a count in 0..%u", path, line_no, CR_REPLAY_MAX_FRAMES);
                rc = -1;
            } else if ((hashes = calloc((size_t)frames + 1, sizeof *hashes)) == NULL) {
                set_err(err, "%s:%d: out of memory", path, line_no);
                rc = -1;
            }
            have_frames = true;
        } else if (nw == 2 && parse_count(word[0], CR_REPLAY_MAX_FRAMES, &frame) == 0) {
            if (!have_mode || !have_frames) {
                set_err(err, "%s:%d: hash lines must follow 'mode' and 'frames'", path, line_no);
                rc = -1;
            } else if (frame != next || frame >= frames) {
                set_err(err, "%s:%d: expected frame %u of %u here, got %u", path, line_no, (unsigned)next, (unsigned)frames, (unsigned)frame);
                rc = -1;
            } else if (parse_hex64(word[1], &h)) {
                set_err(err, "%s:%d: '%s' is not a 16-digit lowercase hex hash", path, line_no, word[1]);
                rc = -1;
            } else {
                hashes[next++] = h;
            }
        } else {
            set_err(err, "%s:%d: expected 'mode NAME', 'frames N' or 'FRAME HASH'", path, line_no);
            rc = -1;
        }
        line = nl + 1;
    }
    if (rc == 0 && (!have_frames || next != frames)) {
        set_err(err, "%s:%d: %u frame hashes, 'frames' says %u", path, line_no, (unsigned)next, (unsigned)frames);
        rc = -1;
    }
    crp_free(data);
    if (rc) {
        free(hashes);
        return -1;
    }
    *out = hashes;
    *count = frames;
    return 0;
}
