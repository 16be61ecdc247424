/* query_tree.h — the queries' part of the world block and their shared
 * pieces (internal; crumple/query.h is the public side, docs/queries.md).
 *
 * The layer sits between damage/ and world/ (tests/check_layers.sh): it reads
 * bodies, assets, surface copies (through cr_world_asset), bending records
 * and soft bodies, and world.c calls it to lay its region out, to build an
 * asset's triangle tree when the asset is registered and to rebuild the body
 * tree at the end of every step.
 *
 * Everything here is derived from the state and never hashed: the trees are
 * a function of the bodies and assets, and a tree that may be stale (a body
 * moved, made or removed between steps: cr_world.query_epoch) is not used —
 * the query then tests every body, with the same results, only slower.
 *
 *   bvh.c        one tree builder (median splits, a deterministic order) for triangles and bodies
 *   mesh_tree.c  an asset's triangle tree, built at cr_world_add_asset
 *   body_tree.c  the tree over the bodies at the end of every step, and the walk that lists candidates
 *   query_body.c which bodies answer, the filter, a body's world box
 *   ray.c, overlap.c, point.c   the public calls
 */
#ifndef CRUMPLE_QUERY_TREE_H
#define CRUMPLE_QUERY_TREE_H

#include "base/block.h"
#include "base/arena.h"

/// One node of a bounding-volume tree. A leaf (count > 0) holds items
/// first .. first + count - 1; an inner node (count == 0) has its children at
/// nodes first and first + 1.
typedef struct cr_tree_node {
    cr_vec3 lo, hi; ///< m, the box of everything below it
    uint32_t first;
    uint32_t count;
} cr_tree_node;

/// Items a leaf holds at most.
#define CR_TREE_LEAF_TRIANGLES 4u
#define CR_TREE_LEAF_BODIES 4u
/// Steps the body tree is refitted before it is built anew.
#define CR_TREE_REFITS 16u
/// Depth of a tree walk's stack: a median-split tree over 2^32 items is 33 deep.
#define CR_TREE_STACK 64u

/// A registered asset's triangle tree (nodes == 0: none, every triangle is tested).
typedef struct cr_mesh_tree {
    uint32_t nodes;      ///< offset of cr_tree_node[node_count]
    uint32_t triangles;  ///< offset of uint32_t[triangle_count]: triangle indices in leaf order
    uint32_t node_count;
    uint32_t triangle_count;
} cr_mesh_tree;

typedef struct cr_query_region {
    uint32_t mesh_trees;     ///< offset of cr_mesh_tree[asset_capacity]
    uint32_t pad_;
    cr_arena tree_memory;    ///< def.query.mesh_tree_bytes for the triangle trees
    uint32_t body_nodes;     ///< offset of cr_tree_node[cri_bvh_node_count(body_capacity, CR_TREE_LEAF_BODIES)]
    uint32_t body_items;     ///< offset of uint32_t[body_capacity]: body slots in leaf order, then the loose ones
    uint32_t loose;          ///< offset of the slots tested on every query (planes, surface copies), after the tree's
    uint32_t marks;          ///< offset of uint32_t[(body_capacity + 31) / 32]: a large world's query candidates (cri_query_enter)
    uint32_t item_count;     ///< bodies in the tree
    uint32_t loose_count;
    uint32_t node_count;
    uint32_t built_epoch;    ///< cr_world.query_epoch when the tree was built
    uint32_t built;          ///< 1 once a tree was built
    uint32_t busy;           ///< a query holds the marks (its callback may not start another)
    uint32_t refits;         ///< steps the tree was refitted since it was built
} cr_query_region;

static inline cr_query_region *cri_query_region(const cr_world *w) {
    return CR_AT(w, w->query_region, cr_query_region);
}

/* world.c */
uint64_t cri_query_region_bytes(const cr_world_def *def);
bool cri_query_layout(cr_world *w, uint8_t *block);
/// Build the triangle tree of a newly registered asset slot (if it fits).
void cri_query_add_asset(cr_world *w, uint32_t slot);
/// Refit or rebuild the body tree (end of every step).
void cri_query_rebuild(cr_world *w);

/* bvh.c */
/// The box of item `item` (m).
typedef void cr_item_box_fn(const void *ctx, uint32_t item, cr_vec3 *lo, cr_vec3 *hi);
/// Nodes a tree over n items with leaves of at most `leaf` items has.
uint32_t cri_bvh_node_count(uint32_t n, uint32_t leaf);
/// Build a tree over items[0 .. n-1] (reordered into leaf order); returns the
/// node count. With box NULL, ctx is the boxes as cr_vec3 lo, hi pairs indexed by item.
uint32_t cri_bvh_build(cr_tree_node *nodes, uint32_t *items, uint32_t n, uint32_t leaf, cr_item_box_fn *box,
                       const void *ctx);

/* mesh_tree.c */
/// The tree of a cooked asset slot, or NULL (a surface copy's slot, or none built).
const cr_mesh_tree *cri_query_mesh_tree(const cr_world *w, uint32_t slot);

/* query_body.c */
/// True if the body answers queries: alive, not a sub-body of a bending body
/// (its owner answers with the skinned mesh), not a parked ghost.
bool cri_query_answers(const cr_world *w, uint32_t slot);
/// True if the body passes the query filter (crumple/query.h) and is enabled.
bool cri_query_passes(const cr_world *w, uint32_t slot, cr_query_filter f);
/// Soft bodies have no filter of their own: they pass as the default one (category 1, mask all).
static inline bool cri_query_passes_soft(cr_query_filter f) { return (f.mask_bits & 1u) != 0 && f.category_bits != 0; }
/// Half extents (m), along the frame's axes, of a box of half extents e rotated by q, a little grown for rounding.
cr_vec3 cri_query_rotated_extent(cr_quat q, cr_vec3 e);
/// The world box of a finite body (not a plane): conservative for a surface copy.
void cri_query_body_box(const cr_world *w, const cr_body *b, cr_vec3 *lo, cr_vec3 *hi);
/// A mesh body's box in its own frame (m): the cooked bounds, or for a
/// surface copy the bound sphere's box (the copy may have moved anywhere in it).
void cri_query_mesh_local_box(const cr_world *w, const cr_body *b, cr_vec3 *lo, cr_vec3 *hi);

/* body_tree.c */
/// Bodies a world may have for a query's candidate bits to live on its stack.
#define CR_QUERY_STACK_BODIES 8192u
/// One query's candidates: a bit per body slot.
typedef struct cr_query_marks {
    uint32_t *bits;
    bool shared;   ///< the block's bits (a world of more than CR_QUERY_STACK_BODIES bodies)
    uint32_t local[CR_QUERY_STACK_BODIES / 32u];
} cr_query_marks;
/// A query with candidates starts: its bits cleared; refused (naming the
/// callback) while another query holds a large world's shared bits.
cr_status cri_query_enter(const cr_world *w, cr_query_marks *m);
void cri_query_leave(const cr_world *w, cr_query_marks *m);
/// Mark the candidate bodies whose box meets lo .. hi (world), or every body
/// if the tree is stale; returns the marked count. Read with cri_query_next_mark.
uint32_t cri_query_mark_box(const cr_world *w, uint32_t *bits, cr_vec3 lo, cr_vec3 hi);
/// The same for the bodies whose box the segment o .. o + d (world) meets.
uint32_t cri_query_mark_ray(const cr_world *w, uint32_t *bits, cr_vec3 o, cr_vec3 d);
/// The lowest marked slot at or after `from` (clearing it), or UINT32_MAX.
uint32_t cri_query_next_mark(const cr_world *w, uint32_t *bits, uint32_t from);
/// True when the body tree can be used.
static inline bool cri_query_tree_valid(const cr_world *w) {
    const cr_query_region *r = cri_query_region(w);
    return r->built && r->built_epoch == w->query_epoch;
}

#endif
