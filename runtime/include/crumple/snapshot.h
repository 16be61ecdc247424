/* crumple/snapshot.h — save and restore a whole world as bytes (rollback, replays).
 *
 * All simulation state lives in the world's block at offsets, so a snapshot
 * is a header plus a byte copy of the block's state part (the per-step
 * scratch is not state and is not copied). Restoring frame k and stepping
 * with the same inputs reproduces the original hashes from frame k on,
 * bit for bit: that is what rollback networking and replay seeking need.
 *
 * What a snapshot does not carry: the host's hooks (log, assert, clock) and
 * the registered asset pointers. Restore keeps those of the world it restores
 * into, so a snapshot can be restored into another world created from the
 * same def in the same build (same layout hash), with the same assets
 * registered in the same slots.
 *
 *     size_t n = cr_world_snapshot_size(world);      // fixed for a world's lifetime
 *     cr_world_snapshot_save(world, buf, n);
 *     ... step, mispredict ...
 *     cr_world_snapshot_restore(world, buf, n);
 */
#ifndef CRUMPLE_SNAPSHOT_H
#define CRUMPLE_SNAPSHOT_H

#include "world.h"

/* Link names carry the scalar mode (CR_LINK_NAME, crumple/real.h), so code
 * compiled in the other mode fails to link instead of misreading every cr_real. */
#define cr_world_snapshot_size CR_LINK_NAME(cr_world_snapshot_size)
#define cr_world_snapshot_save CR_LINK_NAME(cr_world_snapshot_save)
#define cr_world_snapshot_restore CR_LINK_NAME(cr_world_snapshot_restore)
#define cr_world_layout_hash CR_LINK_NAME(cr_world_layout_hash)

#ifdef __cplusplus
extern "C" {
#endif

/// Bytes a snapshot of `world` needs (constant for the world's lifetime).
size_t cr_world_snapshot_size(const cr_world *world);
/// Write a snapshot into `buffer`; CR_ERR_BUFFER_TOO_SMALL if size is short.
cr_status cr_world_snapshot_save(const cr_world *world, void *buffer, size_t size);
/// Restore a snapshot; CR_ERR_BAD_SNAPSHOT if it is damaged or from another
/// layout (different def, build or scalar mode). On error the world is unchanged.
cr_status cr_world_snapshot_restore(cr_world *world, const void *buffer, size_t size);
/// Hash of the world's byte layout: scalar mode, structure sizes, capacities.
uint64_t cr_world_layout_hash(const cr_world *world);

#ifdef __cplusplus
}
#endif

#endif
