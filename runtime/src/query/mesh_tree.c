/* mesh_tree.c — a registered asset's triangle tree, so a ray or an overlap
 * opens a few leaves of four triangles instead of every triangle.
 *
 * Built when the asset is registered (cr_world_add_asset), in the memory
 * cr_world_def.query.mesh_tree_bytes gives; an asset whose tree does not fit
 * has none and is answered by testing every triangle (the same answers,
 * slower). The tree is over the cooked vertices: a body with its own surface
 * copy (dented, bent, example-deformed, squashed) never uses it, since its
 * vertices move; it is tested triangle by triangle inside its bound sphere,
 * which the damage models keep covering the copy (docs/queries.md).
 */
#include "query/query_tree.h"

static uint64_t al16(uint64_t x) { return (x + 15u) & ~(uint64_t)15u; }

static uint64_t tree_bytes(uint32_t triangles) {
    if (triangles == 0) return 0;
    return al16((uint64_t)cri_bvh_node_count(triangles, CR_TREE_LEAF_TRIANGLES) * sizeof(cr_tree_node)) +
           al16((uint64_t)triangles * sizeof(uint32_t));
}

uint64_t cr_asset_query_bytes(const cr_asset *asset) { return asset ? tree_bytes(asset->triangle_count) : 0; }

static void triangle_box(const void *ctx, uint32_t t, cr_vec3 *lo, cr_vec3 *hi) {
    const cr_asset *a = ctx;
    const uint32_t *tri = &a->triangles[3 * t];
    cr_vec3 p0 = a->positions[tri[0]], p1 = a->positions[tri[1]], p2 = a->positions[tri[2]];
    *lo = cr_v3_min(p0, cr_v3_min(p1, p2));
    *hi = cr_v3_max(p0, cr_v3_max(p1, p2));
}

void cri_query_add_asset(cr_world *w, uint32_t slot) {
    cr_query_region *r = cri_query_region(w);
    cr_mesh_tree *t = &CR_AT(w, r->mesh_trees, cr_mesh_tree)[slot];
    const cr_asset *a = cr_world_asset(w, slot);
    t->nodes = t->triangles = t->node_count = t->triangle_count = 0;
    if (a == NULL || a->triangle_count == 0) return;
    uint32_t n = a->triangle_count;
    uint32_t nodes_n = cri_bvh_node_count(n, CR_TREE_LEAF_TRIANGLES);
    if (tree_bytes(n) > (uint64_t)(r->tree_memory.end - r->tree_memory.pos)) return; /* none: every triangle is tested */
    uint32_t nodes = cri_arena_push(&r->tree_memory, (uint8_t *)w, nodes_n * (uint32_t)sizeof(cr_tree_node), 16);
    uint32_t items = cri_arena_push(&r->tree_memory, (uint8_t *)w, n * (uint32_t)sizeof(uint32_t), 16);
    if (nodes == CR_NO_OFFSET || items == CR_NO_OFFSET) return;
    uint32_t *it = CR_AT(w, items, uint32_t);
    for (uint32_t i = 0; i < n; ++i) it[i] = i;
    t->node_count = cri_bvh_build(CR_AT(w, nodes, cr_tree_node), it, n, CR_TREE_LEAF_TRIANGLES, triangle_box, a);
    t->nodes = nodes, t->triangles = items, t->triangle_count = n;
}

const cr_mesh_tree *cri_query_mesh_tree(const cr_world *w, uint32_t slot) {
    if ((slot & CR_SURFACE_SLOT_FLAG) || slot >= w->asset_count) return NULL;
    const cr_mesh_tree *t = &CR_AT(w, cri_query_region(w)->mesh_trees, const cr_mesh_tree)[slot];
    return t->nodes ? t : NULL;
}
