/* cook_bend.h — cooking bending's segmentation (BNDT, BNDN, BNDM; docs/bending.md). */
#ifndef CRUMPLE_COOK_BEND_H
#define CRUMPLE_COOK_BEND_H

#include <stddef.h>
#include <stdint.h>

/// Segment the cooked, rigged asset in bytes[0..size) as cr_bend_attach
/// would (the runtime's own segmentation, this build's scalar mode): one owner
/// bone per triangle into *tri_bone and per grid node into *node_bone, and
/// each bone's inside nodes as 10 integer moments into *moments (malloc'd).
/// Returns 0, or -1 with a message in err.
int cr_cook_bend_segment(const uint8_t *bytes, size_t size, uint8_t **tri_bone, uint8_t **node_bone, int64_t **moments,
                         char *err, size_t err_size);

#endif
