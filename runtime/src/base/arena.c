/* arena.c — the linear allocator behind every byte a world uses (see arena.h). */
#include "base/arena.h"

#include <string.h>

void cri_arena_init(cr_arena *a, uint32_t begin, uint32_t end) {
    a->begin = begin;
    a->end = end;
    a->pos = begin;
    a->high_water = 0;
    a->failures = 0;
}

uint32_t cri_arena_push_uninit(cr_arena *a, uint32_t size, uint32_t align) {
    if (align == 0 || align > CR_ARENA_MAX_ALIGN || (align & (align - 1)) != 0) align = CR_ARENA_MAX_ALIGN;
    uint64_t start = ((uint64_t)a->pos + (align - 1)) & ~(uint64_t)(align - 1);
    uint64_t stop = start + size;
    if (stop > a->end) {
        a->failures++;
        return CR_NO_OFFSET;
    }
    a->pos = (uint32_t)stop;
    if (a->pos - a->begin > a->high_water) a->high_water = a->pos - a->begin;
    return (uint32_t)start;
}

uint32_t cri_arena_push(cr_arena *a, uint8_t *block, uint32_t size, uint32_t align) {
    uint32_t start = cri_arena_push_uninit(a, size, align);
    /* zeroed so that no uninitialised byte can reach the state hash or a snapshot */
    if (start != CR_NO_OFFSET && block != NULL && size > 0) memset(block + start, 0, size);
    return start;
}

void cri_arena_pop_to(cr_arena *a, uint32_t pos) {
    if (pos < a->begin) pos = a->begin;
    if (pos < a->pos) a->pos = pos;
}
