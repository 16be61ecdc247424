/* test_filter.c — collision filters as a game uses them: categories, masks
 * and groups in the body def and by setter, the pairs they remove from the
 * broadphase (counted in the stats, not timed), and the state hash that must
 * tell filtered worlds apart. */
#include "test.h"
#include "crumple/crumple.h"

#include <stdlib.h>
#include <string.h>

static cr_world *filter_world(void **block, uint32_t bodies) {
    cr_world_def def = cr_default_world_def();
    def.body_capacity = bodies;
    size_t size = cr_world_memory_size(&def);
    *block = aligned_alloc(CR_BLOCK_ALIGN, (size + 15) / 16 * 16);
    cr_world *w = NULL;
    if (cr_world_create(&def, *block, size, &w) != CR_OK) return NULL;
    return w;
}

CR_TEST(filter_default_set_get_and_hash) {
    void *block;
    cr_world *w = filter_world(&block, 4);
    ENSURE(w != NULL);
    cr_body_def bd = cr_default_body_def();
    ENSURE(bd.filter.category_bits == 1 && bd.filter.mask_bits == ~(uint64_t)0 && bd.filter.group_index == 0);
    cr_body_id a;
    ENSURE(cr_body_create(w, &bd, &a) == CR_OK);
    cr_filter f = cr_body_get_filter(w, a);
    ENSURE(f.category_bits == 1 && f.mask_bits == ~(uint64_t)0 && f.group_index == 0);
    uint64_t h0 = cr_world_state_hash(w);
    f.category_bits = 4;
    f.mask_bits = 2;
    f.group_index = -3;
    ENSURE(cr_body_set_filter(w, a, f) == CR_OK);
    cr_filter g = cr_body_get_filter(w, a);
    ENSURE(g.category_bits == 4 && g.mask_bits == 2 && g.group_index == -3);
    ENSURE(cr_world_state_hash(w) != h0); /* the filter changes what the step sees */
    ENSURE(cr_body_set_filter(w, a, cr_default_filter()) == CR_OK);
    ENSURE(cr_world_state_hash(w) == h0);
    cr_body_id stale = a;
    ENSURE(cr_body_destroy(w, a) == CR_OK);
    ENSURE(cr_body_set_filter(w, stale, f) == CR_ERR_STALE_HANDLE);
    ENSURE(cr_body_get_filter(w, stale).category_bits == 1);
    free(block);
}
