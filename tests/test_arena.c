/* test_arena.c — the allocator behind the world block. */
#include "test.h"
#include "base/arena.h"

#include <string.h>

CR_TEST(arena_push_aligns_zeroes_and_counts) {
    _Alignas(16) uint8_t block[256];
    memset(block, 0xAB, sizeof block);
    cr_arena a;
    cri_arena_init(&a, 16, 256);
    uint32_t o1 = cri_arena_push(&a, block, 3, 1);
    uint32_t o2 = cri_arena_push(&a, block, 8, 8);
    ENSURE(o1 == 16 && o2 == 24);
    ENSURE(block[16] == 0 && block[18] == 0 && block[24] == 0 && block[31] == 0);
    ENSURE(block[19] == 0xAB); /* padding is not ours to touch */
    ENSURE(cr_arena_used(&a) == 16 && a.high_water == 16);
    uint32_t mark = cr_arena_pos(&a);
    ENSURE(cri_arena_push(&a, block, 100, 16) != CR_NO_OFFSET);
    cri_arena_pop_to(&a, mark);
    ENSURE(cr_arena_used(&a) == 16 && a.high_water == 116);
    /* full: an error value, nothing written, and the arena still works */
    ENSURE(cri_arena_push(&a, block, 1000, 16) == CR_NO_OFFSET);
    ENSURE(a.failures == 1 && cr_arena_used(&a) == 16);
    ENSURE(cri_arena_push(&a, block, 8, 4) != CR_NO_OFFSET);
    cr_arena_clear(&a);
    ENSURE(cr_arena_used(&a) == 0);
}
