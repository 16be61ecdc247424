/* arena.h — linear allocator over a region of the world block (internal).
 *
 * An arena hands out aligned pieces of one region by bumping a position, and
 * gives them back only all at once (pop_to a saved position, or clear). A temp
 * scope is just a saved position. Positions are offsets from the start of the
 * world block, never pointers, so the arena itself is part of a byte-copy
 * snapshot. The high-water mark is the proof of how much memory a world needs.
 *
 * Passing block == NULL makes a dry run that only counts: cr_world_memory_size
 * runs the same layout code as cr_world_create this way, so the two can never
 * disagree.
 */
#ifndef CRUMPLE_ARENA_H
#define CRUMPLE_ARENA_H

#include <stdint.h>
#include <stddef.h>

#define CR_ARENA_MAX_ALIGN 16u

typedef struct cr_arena {
    uint32_t begin;      ///< offset of the region's first byte in the block
    uint32_t end;        ///< offset one past the region's last byte
    uint32_t pos;        ///< next free offset
    uint32_t high_water; ///< largest pos - begin ever reached
    uint32_t failures;   ///< pushes refused because the region was full
} cr_arena;

/// Offset 0 is the world header, so no allocation can have it: it means "none".
#define CR_NO_OFFSET 0u

void cri_arena_init(cr_arena *a, uint32_t begin, uint32_t end);
/// Push `size` zeroed bytes aligned to `align` (power of two, <= 16); CR_NO_OFFSET when full.
uint32_t cri_arena_push(cr_arena *a, uint8_t *block, uint32_t size, uint32_t align);
/// Like cri_arena_push, but the bytes are not zeroed: only for per-step
/// scratch that is always written before it is read (large solver arrays).
uint32_t cri_arena_push_uninit(cr_arena *a, uint32_t size, uint32_t align);
static inline uint32_t cr_arena_pos(const cr_arena *a) { return a->pos; }
/// Free everything pushed after `pos` (a value from cr_arena_pos).
void cri_arena_pop_to(cr_arena *a, uint32_t pos);
static inline void cr_arena_clear(cr_arena *a) { cri_arena_pop_to(a, a->begin); }
static inline uint32_t cr_arena_used(const cr_arena *a) { return a->pos - a->begin; }
static inline uint32_t cr_arena_capacity(const cr_arena *a) { return a->end - a->begin; }

/// Typed pointer to the object at `off` inside the block.
#define CR_AT(block, off, T) ((T *)((uint8_t *)(block) + (off)))

#endif
