/* cook_shells.c — each shell (connected component) of a mesh faces the way
 * its place among the other shells says, so the mass and the grid's sign
 * are the solid's.
 *
 * A modeller's mirror, an export or a hand-made part can leave one shell of
 * a mesh inside out while the others face outwards. Reversing the whole mesh
 * when the total signed volume is negative (what the cooker did) misses that:
 * two tetrahedra, one reversed, summed to V1 - V2 and cooked as a closed
 * mesh of the wrong mass, with the reversed one's winding number -1 inside,
 * so the grid said "outside" there too.
 *
 * First, within a shell, triangles that disagree with their neighbours
 * across an edge (a face turned by hand) are reversed to agree, so each
 * shell has one way to face. Then the rule, per shell S:
 *   - S lies inside shell T when T's own winding number is above 3/4 in
 *     magnitude at every corner of S (whichever way T faces; corners within
 *     1/4 of 1/2 are on T's surface, touching, and count neither way). Some
 *     corners inside and some below 1/4 outside: S and T cross;
 *   - a shell inside no other (an outermost shell) must enclose positive
 *     volume (its signed volume, about its own box centre: exact for a
 *     closed shell, what a person would say for a shell with small holes);
 *     one that does not is reversed, and so is every shell inside it: a
 *     nest is turned as one, so a hollow ball exported inside out (outer
 *     shell in, inner shell out) comes back a hollow ball;
 *   - a shell inside another keeps the way it faces relative to its
 *     container: facing the other way it is a cavity, the same way a solid
 *     inside a solid (the winding number 2 there is still inside).
 * A solid inside a solid, or two shells that cross (a union modelled as
 * overlapping parts), makes the closed-surface integrals count the shared
 * volume twice; the mesh is then marked so its mass comes from the
 * winding-number grid, which takes the union (cook_mass.c).
 *
 * Cost: a BVH of T and one fast winding number per corner of S, for each
 * pair whose boxes overlap, so shells side by side cost next to nothing.
 */
#include "cook.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct shell {
    uint32_t first, count;   /* its triangles in the by-shell order */
    double lo[3], hi[3];     /* box */
    double volume;           /* signed, about the box centre */
    uint32_t outer;          /* the outermost shell containing it (itself if none) */
    uint32_t inner_of;       /* the innermost shell containing it, UINT32_MAX if none */
    uint32_t depth;          /* how many shells contain it */
    bool turn;               /* to be reversed */
    bool crosses;            /* some of its corners inside another shell, some outside it */
} shell;

static void reverse(uint32_t *t) {
    uint32_t x = t[1];
    t[1] = t[2];
    t[2] = x;
}

typedef struct edge_use {
    uint32_t lo, hi, t;
} edge_use;

static int cmp_edge_use(const void *pa, const void *pb) {
    const edge_use *a = pa, *b = pb;
    if (a->lo != b->lo) return a->lo < b->lo ? -1 : 1;
    if (a->hi != b->hi) return a->hi < b->hi ? -1 : 1;
    return (a->t > b->t) - (a->t < b->t);
}

/* whether triangle t walks the edge from a to b */
static bool walks(const uint32_t *t, uint32_t a, uint32_t b) {
    return (t[0] == a && t[1] == b) || (t[1] == a && t[2] == b) || (t[2] == a && t[0] == b);
}

/* Within a shell, make every triangle agree with its neighbours across each
 * edge two triangles share (they walk it in opposite directions): a
 * breadth-first walk from the lowest triangle of each patch, reversing a
 * neighbour that disagrees. An edge of three or more triangles joins
 * nothing (which two would be the surface?), and a non-orientable patch (a
 * Moebius strip) keeps one disagreement, where the walk closes. Returns the
 * triangles reversed, or -1 out of memory. */
static long agree_across_edges(cr_cook_mesh *m) {
    uint32_t nt = m->triangle_count;
    edge_use *e = malloc(sizeof(edge_use) * 3 * (size_t)nt);
    uint32_t *other = malloc(sizeof(uint32_t) * 3 * (size_t)nt); /* per (triangle, edge): the one neighbour, or UINT32_MAX */
    uint32_t *queue = malloc(sizeof(uint32_t) * nt);
    uint8_t *seen = calloc(nt, 1);
    if (e == NULL || other == NULL || queue == NULL || seen == NULL) {
        free(e), free(other), free(queue), free(seen);
        return -1;
    }
    for (uint32_t t = 0; t < nt; ++t)
        for (int k = 0; k < 3; ++k) {
            uint32_t a = m->tri[3 * t + k], b = m->tri[3 * t + (k + 1) % 3];
            edge_use u = {a < b ? a : b, a < b ? b : a, t};
            e[3 * (size_t)t + k] = u;
            other[3 * (size_t)t + k] = UINT32_MAX;
        }
    size_t ne = 3 * (size_t)nt;
    qsort(e, ne, sizeof(edge_use), cmp_edge_use);
    for (size_t i = 0; i < ne;) {
        size_t j = i + 1;
        while (j < ne && e[j].lo == e[i].lo && e[j].hi == e[i].hi) ++j;
        if (j - i == 2)
            for (int s = 0; s < 2; ++s) {
                uint32_t t = e[i + s].t, n = e[i + 1 - s].t;
                for (int k = 0; k < 3; ++k) {
                    uint32_t a = m->tri[3 * t + k], b = m->tri[3 * t + (k + 1) % 3];
                    if ((a == e[i].lo && b == e[i].hi) || (a == e[i].hi && b == e[i].lo)) other[3 * (size_t)t + k] = n;
                }
            }
        i = j;
    }
    free(e);
    long reversed = 0;
    for (uint32_t start = 0; start < nt; ++start) {
        if (seen[start]) continue;
        size_t head = 0, tail = 0;
        queue[tail++] = start;
        seen[start] = 1;
        while (head < tail) {
            uint32_t t = queue[head++];
            for (int k = 0; k < 3; ++k) {
                uint32_t n = other[3 * (size_t)t + k];
                if (n == UINT32_MAX || seen[n]) continue;
                uint32_t a = m->tri[3 * t + k], b = m->tri[3 * t + (k + 1) % 3];
                if (walks(m->tri + 3 * (size_t)n, a, b)) { /* same direction: n disagrees with t */
                    reverse(m->tri + 3 * (size_t)n);
                    /* its edges' slots moved with its corners: keep other[] in step */
                    uint32_t x = other[3 * (size_t)n];
                    other[3 * (size_t)n] = other[3 * (size_t)n + 2];
                    other[3 * (size_t)n + 2] = x;
                    ++reversed;
                }
                seen[n] = 1;
                queue[tail++] = n;
            }
        }
    }
    free(other), free(queue), free(seen);
    return reversed;
}

int cr_cook_orient_shells(cr_cook_mesh *m, const uint32_t *vertex_root) {
    uint32_t nt = m->triangle_count, nv = m->vertex_count;
    long agreed = agree_across_edges(m);
    if (agreed < 0) return -1;
    m->agreed_triangles = (uint32_t)agreed;
    m->flipped_shells = 0;
    m->nested_same = 0;
    m->crossing_shells = 0;
    m->shell_note[0] = 0;
    /* shells numbered by their first triangle, so the numbers follow the file */
    uint32_t *label = malloc(sizeof(uint32_t) * nv), *tri_shell = malloc(sizeof(uint32_t) * (nt ? nt : 1));
    if (label == NULL || tri_shell == NULL) {
        free(label), free(tri_shell);
        return -1;
    }
    for (uint32_t i = 0; i < nv; ++i) label[i] = UINT32_MAX;
    uint32_t ns = 0;
    for (uint32_t t = 0; t < nt; ++t) {
        uint32_t r = vertex_root[m->tri[3 * t]];
        if (label[r] == UINT32_MAX) label[r] = ns++;
        tri_shell[t] = label[r];
    }
    free(label);
    shell *sh = calloc(ns ? ns : 1, sizeof(shell));
    uint32_t *order = malloc(sizeof(uint32_t) * (nt ? nt : 1));
    if (sh == NULL || order == NULL) {
        free(sh), free(order), free(tri_shell);
        return -1;
    }
    /* triangles grouped by shell, in file order within each (a counting sort) */
    for (uint32_t t = 0; t < nt; ++t) sh[tri_shell[t]].count++;
    for (uint32_t s = 0, at = 0; s < ns; ++s) sh[s].first = at, at += sh[s].count, sh[s].count = 0;
    for (uint32_t t = 0; t < nt; ++t) order[sh[tri_shell[t]].first + sh[tri_shell[t]].count++] = t;
    for (uint32_t s = 0; s < ns; ++s) {
        shell *x = &sh[s];
        for (int k = 0; k < 3; ++k) x->lo[k] = INFINITY, x->hi[k] = -INFINITY;
        for (uint32_t i = x->first; i < x->first + x->count; ++i) {
            const uint32_t *t = m->tri + 3 * (size_t)order[i];
            for (int v = 0; v < 3; ++v)
                for (int k = 0; k < 3; ++k) {
                    double c = m->pos[3 * (size_t)t[v] + k];
                    x->lo[k] = c < x->lo[k] ? c : x->lo[k];
                    x->hi[k] = c > x->hi[k] ? c : x->hi[k];
                }
        }
        double o[3] = {0.5 * (x->lo[0] + x->hi[0]), 0.5 * (x->lo[1] + x->hi[1]), 0.5 * (x->lo[2] + x->hi[2])};
        double v6 = 0;
        for (uint32_t i = x->first; i < x->first + x->count; ++i) {
            const uint32_t *t = m->tri + 3 * (size_t)order[i];
            const double *a = m->pos + 3 * (size_t)t[0], *b = m->pos + 3 * (size_t)t[1], *c = m->pos + 3 * (size_t)t[2];
            double p[3] = {a[0] - o[0], a[1] - o[1], a[2] - o[2]}, q[3] = {b[0] - o[0], b[1] - o[1], b[2] - o[2]},
                   r[3] = {c[0] - o[0], c[1] - o[1], c[2] - o[2]};
            v6 += p[0] * (q[1] * r[2] - q[2] * r[1]) + p[1] * (q[2] * r[0] - q[0] * r[2]) + p[2] * (q[0] * r[1] - q[1] * r[0]);
        }
        x->volume = v6 / 6;
        x->outer = s;
        x->inner_of = UINT32_MAX;
    }
    /* containment pairs (s inside c) and crossings, over the pairs whose boxes overlap */
    uint32_t *pair = NULL, *tmp = NULL;
    size_t pairs = 0, pair_cap = 0;
    int rc = 0;
    for (uint32_t c = 0; c < ns && ns > 1 && rc == 0; ++c) {
        const shell *t = &sh[c];
        cr_bvh *bvh = NULL; /* built when a shell's box first meets c's */
        for (uint32_t s = 0; s < ns && rc == 0; ++s) {
            const shell *x = &sh[s];
            bool apart = false;
            for (int k = 0; k < 3; ++k) apart |= x->hi[k] < t->lo[k] || x->lo[k] > t->hi[k];
            if (s == c || apart) continue;
            if (bvh == NULL) {
                free(tmp);
                tmp = malloc(sizeof(uint32_t) * 3 * (size_t)t->count);
                if (tmp == NULL) rc = -1;
                for (uint32_t i = 0; rc == 0 && i < t->count; ++i)
                    memcpy(tmp + 3 * (size_t)i, m->tri + 3 * (size_t)order[t->first + i], 12);
                if (rc == 0 && (bvh = cr_bvh_build(m->pos, tmp, t->count)) == NULL) rc = -1;
                if (rc != 0) break;
            }
            /* every corner of s: inside c, outside, or on it (|w| near 1/2: touching) */
            uint32_t in = 0, out = 0;
            for (uint32_t i = x->first; i < x->first + x->count; ++i)
                for (int v = 0; v < 3; ++v) {
                    double w = fabs(cr_bvh_winding(bvh, m->pos + 3 * (size_t)m->tri[3 * (size_t)order[i] + v]));
                    in += w > 0.75;
                    out += w < 0.25;
                }
            if (in > 0 && out > 0) sh[s].crosses = sh[c].crosses = true;
            if (in == 0 || out > 0) continue;
            if (pairs == pair_cap) {
                pair_cap = pair_cap ? 2 * pair_cap : 16;
                uint32_t *grown = realloc(pair, sizeof(uint32_t) * 2 * pair_cap);
                if (grown == NULL) {
                    rc = -1;
                    break;
                }
                pair = grown;
            }
            pair[2 * pairs] = s, pair[2 * pairs + 1] = c, ++pairs;
            sh[s].depth++;
        }
        cr_bvh_free(bvh);
    }
    free(tmp);
    /* the outermost container (depth 0) and the innermost (deepest), lower numbers on ties */
    for (size_t i = 0; i < pairs && rc == 0; ++i) {
        shell *x = &sh[pair[2 * i]];
        uint32_t c = pair[2 * i + 1];
        if (sh[c].depth == 0 && (x->outer == pair[2 * i] || c < x->outer)) x->outer = c;
        if (x->inner_of == UINT32_MAX || sh[c].depth > sh[x->inner_of].depth) x->inner_of = c;
    }
    free(pair);
    /* decided for every shell before any is turned: a nest turns with its outermost shell */
    for (uint32_t s = 0; s < ns; ++s) sh[s].turn = sh[sh[s].outer].volume < 0;
    size_t used = 0;
    for (uint32_t s = 0; s < ns && rc == 0; ++s) {
        shell *x = &sh[s];
        if (!x->turn) continue;
        for (uint32_t i = x->first; i < x->first + x->count; ++i) reverse(m->tri + 3 * (size_t)order[i]);
        x->volume = -x->volume;
        m->flipped_shells++;
        if (used + 1 < sizeof m->shell_note && x->outer == s) {
            int n = snprintf(m->shell_note + used, sizeof m->shell_note - used,
                             "%sshell %u of %u (%u triangles, box centre %.4g %.4g %.4g)", used ? "; " : "", s + 1, ns,
                             x->count, 0.5 * (x->lo[0] + x->hi[0]), 0.5 * (x->lo[1] + x->hi[1]), 0.5 * (x->lo[2] + x->hi[2]));
            used = n < 0 ? used : (used + (size_t)n < sizeof m->shell_note ? used + (size_t)n : sizeof m->shell_note - 1);
        }
    }
    /* a solid inside a solid: the same orientation as its innermost container */
    for (uint32_t s = 0; s < ns && rc == 0; ++s)
        if (sh[s].inner_of != UINT32_MAX && (sh[s].volume > 0) == (sh[sh[s].inner_of].volume > 0)) m->nested_same++;
    for (uint32_t s = 0; s < ns; ++s) m->crossing_shells += sh[s].crosses;
    m->shells = ns;
    free(sh), free(order), free(tri_shell);
    return rc;
}
