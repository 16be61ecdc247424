/* cli_world.c — the tools are a host like any game: they give the world its block. */
#include "cli.h"

#include <stdlib.h>

cr_status cr_cli_world_new(const cr_world_def *def, cr_world **out) {
    *out = NULL;
    size_t size = cr_world_memory_size(def);
    if (size == 0) return CR_ERR_DEF_INVALID;
    size_t rounded = (size + CR_BLOCK_ALIGN - 1) / CR_BLOCK_ALIGN * CR_BLOCK_ALIGN;
    void *block = aligned_alloc(CR_BLOCK_ALIGN, rounded);
    if (block == NULL) return CR_ERR_BLOCK_TOO_SMALL;
    cr_status s = cr_world_create(def, block, rounded, out);
    if (s != CR_OK) free(block);
    return s;
}

void cr_cli_world_free(cr_world *w) { free(w); }
