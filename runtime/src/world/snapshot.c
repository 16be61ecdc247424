/* snapshot.c — whole-world snapshots as byte copies (see crumple/snapshot.h).
 *
 * Format: a 32-byte header {magic "CRSN", version, payload size, layout hash,
 * payload checksum} followed by bytes [0, persistent arena end) of the block.
 * The checksum lets restore refuse a damaged buffer before it touches the
 * world, so a failed restore leaves the world exactly as it was.
 */
#include "base/block.h"
#include "base/hash.h"
#include "crumple/snapshot.h"
#include "damage/stage.h"

#include <string.h>

#define CR_SNAPSHOT_MAGIC 0x4e535243u /* "CRSN" */
#define CR_SNAPSHOT_VERSION 1u
#define CR_SNAPSHOT_HEADER 32u

static uint32_t state_bytes(const cr_world *w) { return w->persistent.end; }

static uint64_t bytes_hash(const uint8_t *p, uint32_t n) {
    uint64_t h = CR_HASH_SEED;
    for (uint32_t i = 0; i < n; ++i) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

uint64_t cr_world_layout_hash(const cr_world *w) {
    uint64_t h = CR_HASH_SEED;
    h = cr_hash_u32(h, CR_FIXED);
    h = cr_hash_u32(h, (uint32_t)sizeof(cr_real));
    h = cr_hash_u32(h, (uint32_t)sizeof(struct cr_world));
    h = cr_hash_u32(h, (uint32_t)sizeof(cr_body));
    h = cr_hash_u32(h, (uint32_t)sizeof(cr_joint));
    h = cr_hash_u32(h, w->def.body_capacity);
    h = cr_hash_u32(h, w->def.joint_capacity);
    h = cr_hash_u32(h, w->def.event_capacity);
    h = cr_hash_u32(h, w->def.asset_capacity);
    h = cr_hash_u32(h, w->persistent.begin);
    h = cr_hash_u32(h, w->persistent.end);
    return h;
}

static void put_u32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; ++i) p[i] = (uint8_t)(v >> (8 * i));
}
static void put_u64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; ++i) p[i] = (uint8_t)(v >> (8 * i));
}
static uint32_t get_u32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t get_u64(const uint8_t *p) { return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32; }

size_t cr_world_snapshot_size(const cr_world *w) {
    return w == NULL ? 0 : (size_t)CR_SNAPSHOT_HEADER + state_bytes(w);
}

cr_status cr_world_snapshot_save(const cr_world *w, void *buffer, size_t size) {
    if (w == NULL || buffer == NULL) return CR_ERR_NULL_ARGUMENT;
    if (size < cr_world_snapshot_size(w)) return CR_ERR_BUFFER_TOO_SMALL;
    uint8_t *out = (uint8_t *)buffer;
    uint32_t n = state_bytes(w);
    memcpy(out + CR_SNAPSHOT_HEADER, w, n);
    memset(out, 0, CR_SNAPSHOT_HEADER);
    put_u32(out, CR_SNAPSHOT_MAGIC);
    put_u32(out + 4, CR_SNAPSHOT_VERSION);
    put_u32(out + 8, n);
    put_u64(out + 16, cr_world_layout_hash(w));
    put_u64(out + 24, bytes_hash(out + CR_SNAPSHOT_HEADER, n));
    return CR_OK;
}

cr_status cr_world_snapshot_restore(cr_world *w, const void *buffer, size_t size) {
    if (w == NULL || buffer == NULL) return CR_ERR_NULL_ARGUMENT;
    const uint8_t *in = (const uint8_t *)buffer;
    uint32_t n = state_bytes(w);
    if (size < CR_SNAPSHOT_HEADER || size < (size_t)CR_SNAPSHOT_HEADER + n) return CR_ERR_BAD_SNAPSHOT;
    if (get_u32(in) != CR_SNAPSHOT_MAGIC || get_u32(in + 4) != CR_SNAPSHOT_VERSION || get_u32(in + 8) != n)
        return CR_ERR_BAD_SNAPSHOT;
    if (get_u64(in + 16) != cr_world_layout_hash(w)) return CR_ERR_BAD_SNAPSHOT;
    if (get_u64(in + 24) != bytes_hash(in + CR_SNAPSHOT_HEADER, n)) return CR_ERR_BAD_SNAPSHOT;

    /* The host's hooks and asset pointers belong to the live world, not to the
     * moment the snapshot was taken. */
    cr_world_def live_def = w->def;
    uint32_t live_block_size = w->block_size, live_asset_count = w->asset_count;
    /* copy around the asset table (same offset in both: the layout hash matched) */
    uint32_t skip_begin = w->assets, skip_end = w->assets + w->def.asset_capacity * (uint32_t)sizeof(const cr_asset *);
    if (w->def.asset_capacity == 0 || skip_begin == CR_NO_OFFSET) skip_begin = skip_end = n;
    memcpy(w, in + CR_SNAPSHOT_HEADER, skip_begin);
    memcpy((uint8_t *)w + skip_end, in + CR_SNAPSHOT_HEADER + skip_end, n - skip_end);
    w->block_size = live_block_size;
    w->asset_count = live_asset_count;
    cri_damage_rebind(w); /* the copied surface views point into the block they were saved from */
    w->def.log = live_def.log;
    w->def.log_user = live_def.log_user;
    w->def.assert_handler = live_def.assert_handler;
    w->def.assert_user = live_def.assert_user;
    w->def.clock_ns = live_def.clock_ns;
    w->def.clock_user = live_def.clock_user;
    w->def.damage.custom.step = live_def.damage.custom.step;
    w->def.damage.custom.user = live_def.damage.custom.user;
    w->def.pair_filter = live_def.pair_filter;
    w->def.pair_filter_user = live_def.pair_filter_user;
    return CR_OK;
}
