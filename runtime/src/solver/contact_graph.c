/* contact_graph.c — the contact graph and its levels (seed 002, contact).
 *
 * Seed 002 orders contact processing with a directed graph: an edge points
 * from a body to the body resting on it, so a stack of cubes gives a chain
 * from the ground up. Bodies that depend on each other cyclically are grouped
 * into one level; levels are processed lowest first, and shock propagation
 * freezes each finished level for the ones above.
 *
 * Built here, at the start of the contact stage (after the velocity update):
 *   1. A pair is "in contact" when at least one of its points is, at the
 *      predicted position, less than CR_PENETRATION_SLOP away from the other
 *      body. (Not "approaching": the velocity update gives a body and the one
 *      it rests on the same gravity, so their contact points are not
 *      approaching yet when the graph is built.)
 *   2. Edge rule (a decision the seed leaves open, docs/solver.md): take the
 *      sum N of the normals of the interfering points (pushing a away from
 *      b). If N is within acos(CR_SUPPORT_COS) = 60 degrees of "up" (against
 *      gravity), a rests on b: edge b -> a; if within 60 degrees of down,
 *      edge a -> b; a side contact gets both edges, which puts the two bodies
 *      in one strongly connected component. Static and kinematic bodies are
 *      not nodes: they are the ground under level 0. Without gravity every
 *      contact is a side contact.
 *   3. Strongly connected components by Tarjan's algorithm, iterative (an
 *      explicit stack, no recursion), visiting bodies in slot order and edges
 *      in pair order, so the components are the same on every machine.
 *   4. Level of a component = longest path to it from a component without
 *      incoming edges (those are level 0), in topological order (Tarjan emits
 *      components in reverse topological order).
 *   5. Each pair's level is the higher level of its dynamic bodies; the pairs
 *      are counting-sorted by level into s->order / s->level_start, keeping
 *      pair order inside a level.
 *
 * All arrays are transient scratch sized from body_capacity and
 * contact_capacity; the graph is dropped once the order is known.
 */
#include "solver/solver.h"

#include <string.h>

#define UNVISITED 0xffffffffu

uint64_t cri_contact_graph_scratch(const cr_world_def *def) {
    uint64_t n = def->body_capacity, e = 2ull * def->contact_capacity;
    uint64_t b = 0;
    b += ((n + 1u) * 4u + 15u) & ~15ull; /* out_start */
    b += (e * 4u + 15u) & ~15ull;        /* adjacency */
    b += (e * 8u + 15u) & ~15ull;        /* edge list (src, dst) */
    b += 9u * ((n * 4u + 15u) & ~15ull); /* index, low, comp, stack, cs_node, cs_edge, comp_nodes, comp_start, comp_level */
    b += (n + 15u) & ~15ull;             /* on_stack */
    return b + 16u * 16u;
}

typedef struct graph {
    uint32_t *out_start, *adj, *edges;
    uint32_t *index, *low, *comp, *stack, *cs_node, *cs_edge, *comp_nodes, *comp_start, *comp_level;
    uint8_t *on_stack;
} graph;

static void *gpush(cr_world *w, uint64_t bytes, bool *ok) {
    uint32_t off = bytes > 0xffffffffu ? CR_NO_OFFSET : cri_arena_push_uninit(&w->scratch, (uint32_t)bytes, 16);
    if (off == CR_NO_OFFSET) {
        *ok = false;
        return NULL;
    }
    return CR_AT(w, off, void);
}

/* Every pair in level 0, pair order: what the contact stage falls back to
 * when the graph does not fit the scratch arena. */
static void flat_order(cr_step *s) {
    for (uint32_t k = 0; k < s->nm; ++k) {
        s->order[k] = k;
        s->m[k].level = 0;
    }
    s->level_start[0] = 0;
    s->level_start[1] = s->nm;
    s->nlevels = s->nm > 0 ? 1 : 0;
}

void cri_contact_graph(cr_step *s) {
    cr_world *w = s->w;
    const uint32_t n = s->nb;
    const uint32_t ecap = 2u * w->def.contact_capacity;
    uint32_t mark = cr_arena_pos(&w->scratch);
    bool ok = true;
    graph g;
    g.out_start = gpush(w, ((uint64_t)n + 1u) * 4u, &ok);
    g.adj = gpush(w, (uint64_t)ecap * 4u, &ok);
    g.edges = gpush(w, (uint64_t)ecap * 8u, &ok);
    g.index = gpush(w, (uint64_t)n * 4u, &ok);
    g.low = gpush(w, (uint64_t)n * 4u, &ok);
    g.comp = gpush(w, (uint64_t)n * 4u, &ok);
    g.stack = gpush(w, (uint64_t)n * 4u, &ok);
    g.cs_node = gpush(w, (uint64_t)n * 4u, &ok);
    g.cs_edge = gpush(w, (uint64_t)n * 4u, &ok);
    g.comp_nodes = gpush(w, (uint64_t)n * 4u, &ok);
    g.comp_start = gpush(w, ((uint64_t)n + 1u) * 4u, &ok);
    g.comp_level = gpush(w, (uint64_t)n * 4u, &ok);
    g.on_stack = gpush(w, n, &ok);
    if (!ok || n == 0) {
        if (!ok) w->stats.stage[CR_STAGE_contact].overflow += s->nm;
        cri_arena_pop_to(&w->scratch, mark);
        flat_order(s);
        return;
    }

    /* 1-2: pairs in contact and the edges between dynamic bodies */
    cr_vec3 up = cr_v3_normalize(cr_v3_neg(w->def.gravity));
    bool has_up = up.x != 0 || up.y != 0 || up.z != 0;
    uint32_t ne = 0;
    for (uint32_t k = 0; k < s->nm; ++k) {
        const cr_manifold *m = &s->m[k];
        cr_vec3 nsum = cr_v3_zero();
        bool touching = false;
        for (uint32_t i = 0; i < m->count; ++i) {
            const cr_cpoint *p = &s->pts[m->first + i];
            cr_real un = cr_point_normal_velocity(s, m, p);
            if (p->phi + cr_mul(s->dt, cr_min(un, 0)) < CR_PENETRATION_SLOP) {
                touching = true;
                nsum = cr_v3_add(nsum, p->n);
            }
        }
        if (!touching || !s->sb[m->a].dynamic || !s->sb[m->b].dynamic) continue;
        bool a_on_b = false, b_on_a = false;
        if (has_up) {
            cr_real c = cr_v3_dot(nsum, up), len = cr_v3_len(nsum);
            a_on_b = c > cr_mul(CR_SUPPORT_COS, len);
            b_on_a = c < -cr_mul(CR_SUPPORT_COS, len);
        }
        if (!b_on_a && ne < ecap) { /* b supports a (or a side contact) */
            g.edges[2 * ne] = m->b;
            g.edges[2 * ne + 1] = m->a;
            ++ne;
        }
        if (!a_on_b && ne < ecap) {
            g.edges[2 * ne] = m->a;
            g.edges[2 * ne + 1] = m->b;
            ++ne;
        }
    }
    /* CSR adjacency, edges of a node in pair order */
    memset(g.out_start, 0, ((size_t)n + 1u) * 4u);
    for (uint32_t e = 0; e < ne; ++e) g.out_start[g.edges[2 * e] + 1]++;
    for (uint32_t v = 0; v < n; ++v) g.out_start[v + 1] += g.out_start[v];
    for (uint32_t v = 0; v < n; ++v) g.cs_edge[v] = g.out_start[v]; /* borrowed as a fill cursor */
    for (uint32_t e = 0; e < ne; ++e) g.adj[g.cs_edge[g.edges[2 * e]]++] = g.edges[2 * e + 1];

    /* 3: Tarjan, iterative */
    for (uint32_t v = 0; v < n; ++v) {
        g.index[v] = UNVISITED;
        g.on_stack[v] = 0;
    }
    uint32_t counter = 0, sp = 0, csp = 0, ncomp = 0, placed = 0, largest = 0;
    for (uint32_t root = 0; root < n; ++root) {
        if (!s->sb[root].dynamic || g.index[root] != UNVISITED) continue;
        g.index[root] = g.low[root] = counter++;
        g.stack[sp++] = root;
        g.on_stack[root] = 1;
        g.cs_node[csp] = root;
        g.cs_edge[csp] = g.out_start[root];
        ++csp;
        while (csp > 0) {
            uint32_t u = g.cs_node[csp - 1];
            uint32_t e = g.cs_edge[csp - 1];
            if (e < g.out_start[u + 1]) {
                g.cs_edge[csp - 1] = e + 1;
                uint32_t x = g.adj[e];
                if (g.index[x] == UNVISITED) {
                    g.index[x] = g.low[x] = counter++;
                    g.stack[sp++] = x;
                    g.on_stack[x] = 1;
                    g.cs_node[csp] = x;
                    g.cs_edge[csp] = g.out_start[x];
                    ++csp;
                } else if (g.on_stack[x] && g.index[x] < g.low[u]) {
                    g.low[u] = g.index[x];
                }
                continue;
            }
            --csp;
            if (g.low[u] == g.index[u]) {
                g.comp_start[ncomp] = placed;
                uint32_t x;
                do {
                    x = g.stack[--sp];
                    g.on_stack[x] = 0;
                    g.comp[x] = ncomp;
                    g.comp_nodes[placed++] = x;
                } while (x != u);
                if (placed - g.comp_start[ncomp] > largest) largest = placed - g.comp_start[ncomp];
                ++ncomp;
            }
            if (csp > 0) {
                uint32_t parent = g.cs_node[csp - 1];
                if (g.low[u] < g.low[parent]) g.low[parent] = g.low[u];
            }
        }
    }
    g.comp_start[ncomp] = placed;

    /* 4: levels in topological order (highest component id first) */
    for (uint32_t c = 0; c < ncomp; ++c) g.comp_level[c] = 0;
    for (uint32_t c = ncomp; c-- > 0;) {
        for (uint32_t k = g.comp_start[c]; k < g.comp_start[c + 1]; ++k) {
            uint32_t u = g.comp_nodes[k];
            for (uint32_t e = g.out_start[u]; e < g.out_start[u + 1]; ++e) {
                uint32_t d = g.comp[g.adj[e]];
                if (d != c && g.comp_level[d] < g.comp_level[c] + 1) g.comp_level[d] = g.comp_level[c] + 1;
            }
        }
    }
    for (uint32_t v = 0; v < n; ++v)
        s->sb[v].level = (s->sb[v].dynamic && g.index[v] != UNVISITED) ? g.comp_level[g.comp[v]] : CR_NO_LEVEL;

    /* 5: pairs by level */
    uint32_t nlevels = 0;
    for (uint32_t k = 0; k < s->nm; ++k) {
        cr_manifold *m = &s->m[k];
        uint32_t la = s->sb[m->a].dynamic ? s->sb[m->a].level : 0;
        uint32_t lb = s->sb[m->b].dynamic ? s->sb[m->b].level : 0;
        m->level = la > lb ? la : lb;
        if (m->level + 1 > nlevels) nlevels = m->level + 1;
    }
    uint32_t *count = s->level_start; /* [body_capacity + 2] and nlevels <= n */
    memset(count, 0, ((size_t)nlevels + 1u) * 4u);
    for (uint32_t k = 0; k < s->nm; ++k) count[s->m[k].level + 1]++;
    for (uint32_t l = 0; l < nlevels; ++l) count[l + 1] += count[l];
    /* levels never exceed the component count, so nlevels <= n and g.stack can be the fill cursor */
    for (uint32_t l = 0; l < nlevels; ++l) g.stack[l] = count[l];
    for (uint32_t k = 0; k < s->nm; ++k) {
        uint32_t l = s->m[k].level;
        s->order[g.stack[l]++] = k;
    }
    s->nlevels = nlevels;
    w->stats.contact_levels = nlevels;
    w->stats.largest_level = largest;
    cri_arena_pop_to(&w->scratch, mark);
}
