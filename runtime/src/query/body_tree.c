/* body_tree.c — the tree over the world's bodies that every query walks
 * first, and the marks that turn what it finds into handle order.
 *
 * At the end of every step (after the damage stage) the tree's boxes are
 * refitted to where the bodies are now; it is built anew, a sort of the
 * bodies, when a body was made, removed, moved outside a step or given a
 * surface copy since the last build, and every CR_TREE_REFITS steps, so the
 * refitted boxes never grow loose for long (docs/queries.md has the costs).
 * Planes (no finite box) and
 * bodies with their own surface copy (whose bound may change with any model
 * call) are not in it but in a short list tested by every query. Any call
 * that moves, makes or removes a body between steps bumps the world's
 * query_epoch; a query that finds the tree older than that tests every body
 * instead — the same answers, in the same order, only slower — until the
 * next step rebuilds it.
 *
 * A query marks its candidates in a bit per body slot and then reads the
 * bits in slot order, which is what makes callbacks arrive in handle order
 * whatever the tree looks like. The bits are on the query's own stack for
 * worlds of up to CR_QUERY_STACK_BODIES bodies (1 KiB), so queries may run
 * on several threads at once and a callback may query again; a larger world
 * keeps them in its block, and then one query at a time.
 */
#include "query/query_tree.h"
#include "query/segment.h"
#include "base/check.h"

#include <string.h>

static uint64_t al16(uint64_t x) { return (x + 15u) & ~(uint64_t)15u; }

static uint32_t mark_words(const cr_world_def *def) { return (def->body_capacity + 31u) / 32u; }
static uint32_t body_nodes(const cr_world_def *def) { return cri_bvh_node_count(def->body_capacity, CR_TREE_LEAF_BODIES); }

uint64_t cri_query_region_bytes(const cr_world_def *def) {
    uint64_t bc = def->body_capacity;
    return al16(sizeof(cr_query_region)) + al16((uint64_t)def->asset_capacity * sizeof(cr_mesh_tree)) +
           al16(def->query.mesh_tree_bytes) + al16((uint64_t)body_nodes(def) * sizeof(cr_tree_node)) +
           al16(bc * sizeof(uint32_t)) + al16((uint64_t)mark_words(def) * sizeof(uint32_t));
}

bool cri_query_layout(cr_world *w, uint8_t *block) {
    const cr_world_def *def = &w->def;
    uint32_t bc = def->body_capacity;
    w->query_region = cri_arena_push(&w->persistent, block, (uint32_t)sizeof(cr_query_region), 16);
    if (w->query_region == CR_NO_OFFSET) return false;
    cr_query_region *r = cri_query_region(w);
    uint32_t mesh_trees = cri_arena_push(&w->persistent, block, def->asset_capacity * (uint32_t)sizeof(cr_mesh_tree), 16);
    uint32_t tree_memory = cri_arena_push(&w->persistent, block, (uint32_t)al16(def->query.mesh_tree_bytes), 16);
    r->mesh_trees = mesh_trees;
    cri_arena_init(&r->tree_memory, tree_memory, tree_memory + (uint32_t)al16(def->query.mesh_tree_bytes));
    r->body_nodes = cri_arena_push(&w->persistent, block, body_nodes(def) * (uint32_t)sizeof(cr_tree_node), 16);
    r->body_items = cri_arena_push(&w->persistent, block, bc * (uint32_t)sizeof(uint32_t), 16);
    r->loose = r->body_items;
    r->marks = cri_arena_push(&w->persistent, block, mark_words(def) * (uint32_t)sizeof(uint32_t), 16);
    /* zero-sized pushes of an empty def may give no offset; nothing reads them then */
    return bc == 0 || (r->body_nodes != CR_NO_OFFSET && r->body_items != CR_NO_OFFSET && r->marks != CR_NO_OFFSET);
}

/* The same bodies as at the last build, moved by the step: new boxes for the
 * leaves and, children after parents in the node array, for every inner node
 * from its children's, walking the nodes backwards. */
static void refit(cr_world *w, cr_query_region *r) {
    const cr_body *bodies = cr_world_bodies_c(w);
    cr_tree_node *nodes = CR_AT(w, r->body_nodes, cr_tree_node);
    const uint32_t *items = CR_AT(w, r->body_items, const uint32_t);
    for (uint32_t k = r->node_count; k-- > 0;) {
        cr_tree_node *nd = &nodes[k];
        if (nd->count == 0) {
            nd->lo = cr_v3_min(nodes[nd->first].lo, nodes[nd->first + 1].lo);
            nd->hi = cr_v3_max(nodes[nd->first].hi, nodes[nd->first + 1].hi);
            continue;
        }
        for (uint32_t i = 0; i < nd->count; ++i) {
            cr_vec3 lo, hi;
            cri_query_body_box(w, &bodies[items[nd->first + i]], &lo, &hi);
            nd->lo = i ? cr_v3_min(nd->lo, lo) : lo;
            nd->hi = i ? cr_v3_max(nd->hi, hi) : hi;
        }
    }
    r->refits++;
}

static void live_box(const void *ctx, uint32_t slot, cr_vec3 *lo, cr_vec3 *hi) {
    const cr_world *w = ctx;
    cri_query_body_box(w, &cr_world_bodies_c(w)[slot], lo, hi);
}

void cri_query_rebuild(cr_world *w) {
    cr_query_region *r = cri_query_region(w);
    /* no body made, removed, moved outside a step or given a surface copy since the
     * last build: the same tree with new boxes, and a new tree every
     * CR_TREE_REFITS steps, before the refitted boxes grow loose */
    if (cri_query_tree_valid(w) && r->refits < CR_TREE_REFITS) {
        refit(w, r);
        return;
    }
    const cr_body *bodies = cr_world_bodies_c(w);
    uint32_t *items = CR_AT(w, r->body_items, uint32_t);
    /* the boxes once each, in the scratch arena's free end (the step is over);
     * without room there the build asks for them again at every comparison */
    uint32_t mark_pos = cr_arena_pos(&w->scratch);
    uint32_t tmp = cri_arena_push_uninit(&w->scratch, 2u * w->body_high * (uint32_t)sizeof(cr_vec3), 16);
    cr_vec3 *boxes = tmp == CR_NO_OFFSET ? NULL : CR_AT(w, tmp, cr_vec3);
    /* tree items from the front of the array, planes and surface copies from its end */
    uint32_t n = 0, nl = 0, cap = w->def.body_capacity;
    for (uint32_t i = 0; i < w->body_high; ++i) {
        if (!cri_query_answers(w, i)) continue;
        const cr_body *b = &bodies[i];
        if (b->shape.type == CR_SHAPE_PLANE || (b->shape.type == CR_SHAPE_MESH && (b->shape.asset & CR_SURFACE_SLOT_FLAG))) {
            items[cap - 1 - nl++] = i;
            continue;
        }
        if (boxes) cri_query_body_box(w, b, &boxes[2 * i], &boxes[2 * i + 1]);
        items[n++] = i;
    }
    /* the loose slots in ascending order right after the tree's items */
    for (uint32_t a = cap - nl, b = cap - 1; a < b; ++a, --b) {
        uint32_t t = items[a];
        items[a] = items[b], items[b] = t;
    }
    memmove(items + n, items + cap - nl, nl * sizeof(uint32_t));
    r->node_count = boxes ? cri_bvh_build(CR_AT(w, r->body_nodes, cr_tree_node), items, n, CR_TREE_LEAF_BODIES, NULL, boxes)
                          : cri_bvh_build(CR_AT(w, r->body_nodes, cr_tree_node), items, n, CR_TREE_LEAF_BODIES, live_box, w);
    cri_arena_pop_to(&w->scratch, mark_pos);
    r->item_count = n, r->loose_count = nl;
    r->loose = r->body_items + n * (uint32_t)sizeof(uint32_t);
    r->built = 1;
    r->built_epoch = w->query_epoch;
    r->refits = 0;
}

static void mark(uint32_t *bits, uint32_t slot) { bits[slot >> 5] |= 1u << (slot & 31u); }

static bool boxes_meet(cr_vec3 alo, cr_vec3 ahi, cr_vec3 blo, cr_vec3 bhi) {
    return alo.x <= bhi.x && blo.x <= ahi.x && alo.y <= bhi.y && blo.y <= ahi.y && alo.z <= bhi.z && blo.z <= ahi.z;
}

/* every answering body, when the tree cannot be trusted */
static uint32_t mark_all(const cr_world *w, uint32_t *bits) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < w->body_high; ++i)
        if (cri_query_answers(w, i)) mark(bits, i), ++n;
    return n;
}

static uint32_t mark_loose(const cr_query_region *r, const cr_world *w, uint32_t *bits) {
    const uint32_t *loose = CR_AT(w, r->loose, const uint32_t);
    for (uint32_t i = 0; i < r->loose_count; ++i) mark(bits, loose[i]);
    return r->loose_count;
}

uint32_t cri_query_mark_box(const cr_world *w, uint32_t *bits, cr_vec3 lo, cr_vec3 hi) {
    const cr_query_region *r = cri_query_region(w);
    if (!cri_query_tree_valid(w)) return mark_all(w, bits);
    uint32_t n = mark_loose(r, w, bits);
    if (r->item_count == 0) return n;
    const cr_tree_node *nodes = CR_AT(w, r->body_nodes, const cr_tree_node);
    const uint32_t *items = CR_AT(w, r->body_items, const uint32_t);
    uint32_t stack[CR_TREE_STACK], top = 0;
    stack[top++] = 0;
    while (top > 0) {
        const cr_tree_node *nd = &nodes[stack[--top]];
        if (!boxes_meet(lo, hi, nd->lo, nd->hi)) continue;
        if (nd->count == 0) {
            stack[top++] = nd->first + 1, stack[top++] = nd->first;
            continue;
        }
        for (uint32_t k = 0; k < nd->count; ++k) mark(bits, items[nd->first + k]), ++n;
    }
    return n;
}

uint32_t cri_query_mark_ray(const cr_world *w, uint32_t *bits, cr_vec3 o, cr_vec3 d) {
    const cr_query_region *r = cri_query_region(w);
    if (!cri_query_tree_valid(w)) return mark_all(w, bits);
    uint32_t n = mark_loose(r, w, bits);
    if (r->item_count == 0) return n;
    cr_segment s = cri_segment(o, d);
    const cr_tree_node *nodes = CR_AT(w, r->body_nodes, const cr_tree_node);
    const uint32_t *items = CR_AT(w, r->body_items, const uint32_t);
    uint32_t stack[CR_TREE_STACK], top = 0;
    stack[top++] = 0;
    while (top > 0) {
        const cr_tree_node *nd = &nodes[stack[--top]];
        cr_real t0, t1;
        if (!cri_segment_box(&s, nd->lo, nd->hi, CR_R(1), &t0, &t1)) continue;
        if (nd->count == 0) {
            stack[top++] = nd->first + 1, stack[top++] = nd->first;
            continue;
        }
        for (uint32_t k = 0; k < nd->count; ++k) mark(bits, items[nd->first + k]), ++n;
    }
    return n;
}

uint32_t cri_query_next_mark(const cr_world *w, uint32_t *bits, uint32_t from) {
    uint32_t words = (w->body_high + 31u) / 32u;
    for (uint32_t k = from >> 5; k < words; ++k) {
        uint32_t m = bits[k];
        if (k == from >> 5) m &= ~0u << (from & 31u);
        if (m == 0) continue;
        uint32_t bit = 0;
        while ((m & 1u) == 0) m >>= 1, ++bit;
        bits[k] &= ~(1u << bit);
        return k * 32u + bit;
    }
    return UINT32_MAX;
}

cr_status cri_query_enter(const cr_world *w, cr_query_marks *m) {
    uint32_t words = (w->body_high + 31u) / 32u;
    m->shared = w->def.body_capacity > CR_QUERY_STACK_BODIES;
    if (!m->shared) {
        m->bits = m->local;
        memset(m->local, 0, words * sizeof(uint32_t));
        return CR_OK;
    }
    cr_query_region *r = cri_query_region(w);
    if (r->busy) return cri_refuse((cr_world *)w, CR_ERR_ARGUMENT_RANGE, CR_FIELD_QUERY_CALLBACK);
    r->busy = 1;
    m->bits = CR_AT(w, r->marks, uint32_t);
    return CR_OK;
}

void cri_query_leave(const cr_world *w, cr_query_marks *m) {
    if (!m->shared) return;
    memset(m->bits, 0, (w->body_high + 31u) / 32u * sizeof(uint32_t));
    cri_query_region(w)->busy = 0;
}
