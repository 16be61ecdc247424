/* bvh.c — one bounding-volume tree builder for the queries: an asset's
 * triangles (mesh_tree.c) and the world's bodies (body_tree.c).
 *
 * Top down, median splits: a node's items are split at the median of their
 * box centres along the axis where the centres spread most, found by a
 * selection in the total order (centre, item), so equal centres still split
 * and the tree is the same on every machine and in both scalar modes'
 * orders. Median splits give a tree of depth log2(n) + 1 and a node count
 * known in advance (cri_bvh_node_count), which is what sizes the memory; a
 * surface-area split would walk fewer nodes per ray but needs neither less
 * nor a known amount of memory.
 */
#include "query/query_tree.h"

uint32_t cri_bvh_node_count(uint32_t n, uint32_t leaf) {
    if (n <= leaf) return 1;
    return 1 + cri_bvh_node_count(n / 2, leaf) + cri_bvh_node_count(n - n / 2, leaf);
}

typedef struct build {
    uint32_t *items;
    cr_item_box_fn *box;
    const void *ctx;
    uint32_t axis;
} build;

/* the boxes as an array (lo, hi per item) when there is no function: the body tree's */
static inline void item_box(const build *b, uint32_t item, cr_vec3 *lo, cr_vec3 *hi) {
    if (b->box == NULL) {
        const cr_vec3 *boxes = b->ctx;
        *lo = boxes[2 * item], *hi = boxes[2 * item + 1];
        return;
    }
    b->box(b->ctx, item, lo, hi);
}

static cr_real axis_of(cr_vec3 v, uint32_t axis) { return axis == 0 ? v.x : axis == 1 ? v.y : v.z; }

/* twice the item's box centre along the axis (no halving: only the order matters) */
static cr_real key(const build *b, uint32_t item) {
    cr_vec3 lo, hi;
    item_box(b, item, &lo, &hi);
    return axis_of(lo, b->axis) + axis_of(hi, b->axis);
}

static bool before(cr_real ka, uint32_t a, cr_real kb, uint32_t b) { return ka < kb || (ka == kb && a < b); }

/* Put the k-th smallest of items[lo .. hi] at k, the smaller ones before it
 * and the larger after (Hoare's selection, the middle element as pivot). */
static void select_kth(const build *b, uint32_t lo, uint32_t hi, uint32_t k) {
    uint32_t *it = b->items;
    while (lo < hi) {
        uint32_t pivot = it[lo + (hi - lo) / 2];
        cr_real kp = key(b, pivot);
        uint32_t i = lo, j = hi;
        while (i <= j) {
            while (before(key(b, it[i]), it[i], kp, pivot)) ++i;
            while (before(kp, pivot, key(b, it[j]), it[j])) --j;
            if (i <= j) {
                uint32_t t = it[i];
                it[i] = it[j], it[j] = t;
                ++i;
                if (j == 0) break;
                --j;
            }
        }
        if (k <= j) hi = j;
        else if (k >= i) lo = i;
        else return;
    }
}

uint32_t cri_bvh_build(cr_tree_node *nodes, uint32_t *items, uint32_t n, uint32_t leaf, cr_item_box_fn *box,
                       const void *ctx) {
    if (n == 0) return 0;
    build b = {items, box, ctx, 0};
    uint32_t stack[3 * CR_TREE_STACK]; /* node, first item, item count */
    uint32_t top = 0, used = 1;
    stack[top++] = 0, stack[top++] = 0, stack[top++] = n;
    while (top > 0) {
        uint32_t count = stack[--top], first = stack[--top], node = stack[--top];
        cr_vec3 lo, hi, clo, chi;
        item_box(&b, items[first], &lo, &hi);
        clo = cr_v3_add(lo, hi), chi = clo;
        for (uint32_t i = 1; i < count; ++i) {
            cr_vec3 l, h;
            item_box(&b, items[first + i], &l, &h);
            lo = cr_v3_min(lo, l), hi = cr_v3_max(hi, h);
            cr_vec3 c = cr_v3_add(l, h);
            clo = cr_v3_min(clo, c), chi = cr_v3_max(chi, c);
        }
        cr_tree_node *nd = &nodes[node];
        nd->lo = lo, nd->hi = hi;
        if (count <= leaf) {
            nd->first = first, nd->count = count;
            continue;
        }
        cr_vec3 spread = cr_v3_sub(chi, clo);
        b.axis = spread.x >= spread.y && spread.x >= spread.z ? 0 : spread.y >= spread.z ? 1 : 2;
        uint32_t half = count / 2;
        select_kth(&b, first, first + count - 1, first + half);
        nd->first = used, nd->count = 0;
        used += 2;
        stack[top++] = nd->first + 1, stack[top++] = first + half, stack[top++] = count - half;
        stack[top++] = nd->first, stack[top++] = first, stack[top++] = half;
    }
    return used;
}
