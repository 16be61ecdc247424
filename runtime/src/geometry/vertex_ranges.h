/* vertex_ranges.h — a short, bounded list of the vertices a change moved
 * (internal): what a renderer uploads (cr_body_mesh.dirty_ranges,
 * cr_dent_event.ranges).
 *
 * Ranges are kept sorted and disjoint; one closer than CR_DIRTY_RANGE_GAP
 * vertices to another is merged with it, and when the list is full the two
 * neighbours with the smallest gap between them are merged (the lowest pair
 * on a tie), so the list is exact where it can be, always covers every moved
 * vertex, and is the same on every machine. Adding vertices in ascending
 * order (as the models' loops do) costs O(1) each.
 */
#ifndef CRUMPLE_VERTEX_RANGES_H
#define CRUMPLE_VERTEX_RANGES_H

#include "crumple/body.h"

typedef struct cr_vertex_ranges {
    uint32_t count;
    uint32_t pad_;
    cr_vertex_range r[CR_DIRTY_RANGE_MAX + 1]; ///< one spare while a full list merges
} cr_vertex_ranges;

static inline void cri_ranges_clear(cr_vertex_ranges *s) { s->count = 0; }
/// Add vertices first..last (inclusive; nothing when first > last).
void cri_ranges_add(cr_vertex_ranges *s, uint32_t first, uint32_t last);
/// Add every range of `from`.
void cri_ranges_add_all(cr_vertex_ranges *s, const cr_vertex_ranges *from);
/// The lowest and highest vertex covered (first > last when empty); returns the vertices covered.
uint32_t cri_ranges_span(const cr_vertex_ranges *s, uint32_t *first, uint32_t *last);
/// Copy into a public array of CR_DIRTY_RANGE_MAX; returns the count.
uint32_t cri_ranges_export(const cr_vertex_ranges *s, cr_vertex_range *out);

#endif
