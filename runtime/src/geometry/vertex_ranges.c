/* vertex_ranges.c — the bounded dirty-vertex list (vertex_ranges.h). */
#include "geometry/vertex_ranges.h"

#include <string.h>

static uint32_t end_of(const cr_vertex_range *r) { return r->first + r->count; }

/* merge the neighbours i and i + 1 */
static void merge_next(cr_vertex_ranges *s, uint32_t i) {
    s->r[i].count = end_of(&s->r[i + 1]) - s->r[i].first;
    memmove(&s->r[i + 1], &s->r[i + 2], (size_t)(s->count - i - 2) * sizeof s->r[0]);
    s->count--;
}

void cri_ranges_add(cr_vertex_ranges *s, uint32_t first, uint32_t last) {
    if (first > last) return;
    uint32_t a = first, b = last + 1;
    /* ascending adds: the new vertices reach the last range */
    if (s->count > 0) {
        cr_vertex_range *t = &s->r[s->count - 1];
        if (a >= t->first && a <= end_of(t) + CR_DIRTY_RANGE_GAP) {
            if (b > end_of(t)) t->count = b - t->first;
            return;
        }
    }
    /* the first range that does not end (with the gap) before a */
    uint32_t i = 0;
    while (i < s->count && end_of(&s->r[i]) + CR_DIRTY_RANGE_GAP < a) ++i;
    /* ranges i..j-1 meet a..b (with the gap): they become one */
    uint32_t j = i;
    while (j < s->count && s->r[j].first <= b + CR_DIRTY_RANGE_GAP) {
        if (s->r[j].first < a) a = s->r[j].first;
        if (end_of(&s->r[j]) > b) b = end_of(&s->r[j]);
        ++j;
    }
    if (j > i) {
        s->r[i].first = a, s->r[i].count = b - a;
        memmove(&s->r[i + 1], &s->r[j], (size_t)(s->count - j) * sizeof s->r[0]);
        s->count -= j - i - 1;
        return;
    }
    memmove(&s->r[i + 1], &s->r[i], (size_t)(s->count - i) * sizeof s->r[0]);
    s->r[i].first = a, s->r[i].count = b - a;
    s->count++;
    if (s->count <= CR_DIRTY_RANGE_MAX) return;
    uint32_t best = 0, gap = UINT32_MAX;
    for (uint32_t k = 0; k + 1 < s->count; ++k) {
        uint32_t g = s->r[k + 1].first - end_of(&s->r[k]);
        if (g < gap) gap = g, best = k;
    }
    merge_next(s, best);
}

void cri_ranges_add_all(cr_vertex_ranges *s, const cr_vertex_ranges *from) {
    for (uint32_t k = 0; k < from->count; ++k) cri_ranges_add(s, from->r[k].first, end_of(&from->r[k]) - 1);
}

uint32_t cri_ranges_span(const cr_vertex_ranges *s, uint32_t *first, uint32_t *last) {
    if (s->count == 0) {
        *first = 1, *last = 0;
        return 0;
    }
    *first = s->r[0].first, *last = end_of(&s->r[s->count - 1]) - 1;
    uint32_t n = 0;
    for (uint32_t k = 0; k < s->count; ++k) n += s->r[k].count;
    return n;
}

uint32_t cri_ranges_export(const cr_vertex_ranges *s, cr_vertex_range *out) {
    memcpy(out, s->r, (size_t)s->count * sizeof s->r[0]);
    return s->count;
}
