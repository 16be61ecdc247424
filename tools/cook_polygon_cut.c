/* cook_polygon_cut.c — the Voronoi cutter on polygon faces (tools only).
 *
 * Cutting triangles one plane after the other (cook_plane_cut.c) fans every
 * cap into triangles, and every later cut through such a fan adds a row of
 * corners on one line: a piece cut by many planes grows hundreds of thin
 * triangles. Here a piece is a set of polygon faces: a cut clips each face
 * (Sutherland-Hodgman, one shared cut point per cut edge, so the faces stay
 * watertight), and each cap is one more face; faces are triangulated once, at
 * the end, by the same ear clipping as before. The caps' loops, holes and
 * bridges are cook_plane_cut.c's.
 */
#include "cook_fracture.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void pm_add_vertex(crf_pmesh *m, const double p[3]) {
    if (m->nv == m->cap_v) {
        m->cap_v = m->cap_v ? 2 * m->cap_v : 64;
        m->pos = realloc(m->pos, sizeof(double) * 3 * m->cap_v);
    }
    memcpy(m->pos + 3 * (size_t)m->nv++, p, sizeof(double) * 3);
}

static void pm_begin_face(crf_pmesh *m, uint32_t tag) {
    if (m->nf + 1 >= m->cap_f) {
        m->cap_f = m->cap_f ? 2 * m->cap_f : 64;
        m->start = realloc(m->start, sizeof(uint32_t) * (m->cap_f + 1));
        m->ftag = realloc(m->ftag, sizeof(uint32_t) * m->cap_f);
    }
    if (m->nf == 0) m->start[0] = 0;
    m->ftag[m->nf] = tag;
    m->start[m->nf + 1] = m->start[m->nf];
    m->nf++;
}

static void pm_push(crf_pmesh *m, uint32_t v) {
    if (m->ni == m->cap_i) {
        m->cap_i = m->cap_i ? 2 * m->cap_i : 256;
        m->idx = realloc(m->idx, sizeof(uint32_t) * m->cap_i);
    }
    m->idx[m->ni++] = v;
    m->start[m->nf]++;
}

/* a face of fewer than three corners is no face */
static void pm_end_face(crf_pmesh *m) {
    uint32_t n = m->start[m->nf] - m->start[m->nf - 1];
    if (n < 3) {
        m->ni -= n;
        m->nf--;
    }
}

void crf_pmesh_free(crf_pmesh *m) {
    free(m->pos);
    free(m->idx);
    free(m->start);
    free(m->ftag);
    memset(m, 0, sizeof *m);
}

void crf_pmesh_from(const crf_mesh *t, crf_pmesh *m) {
    memset(m, 0, sizeof *m);
    for (uint32_t i = 0; i < t->nv; ++i) pm_add_vertex(m, t->pos + 3 * (size_t)i);
    for (uint32_t f = 0; f < t->nt; ++f) {
        pm_begin_face(m, t->tag[f]);
        for (int k = 0; k < 3; ++k) pm_push(m, t->tri[3 * (size_t)f + k]);
        pm_end_face(m);
    }
}

/* open addressing: edge key -> cut vertex */
typedef struct pmap {
    uint64_t *key;
    uint32_t *val;
    uint32_t cap;
} pmap;

static uint32_t *pmap_slot(pmap *m, uint64_t k, bool *fresh) {
    uint32_t i = (uint32_t)((k * 0x9e3779b97f4a7c15ull) >> 32) & (m->cap - 1);
    while (m->key[i] != UINT64_MAX && m->key[i] != k) i = (i + 1) & (m->cap - 1);
    *fresh = m->key[i] == UINT64_MAX;
    m->key[i] = k;
    return &m->val[i];
}

int crf_pcut(const crf_pmesh *in, const double n[3], double d, uint32_t tag, crf_pmesh *out) {
    memset(out, 0, sizeof *out);
    double *dist = malloc(sizeof(double) * (in->nv ? in->nv : 1));
    uint32_t *map = malloc(sizeof(uint32_t) * (in->nv ? in->nv : 1));
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t i = 0; i < in->nv; ++i)
        for (int k = 0; k < 3; ++k) {
            double x = in->pos[3 * (size_t)i + k];
            lo[k] = x < lo[k] ? x : lo[k], hi[k] = x > hi[k] ? x : hi[k];
        }
    double tol = 1e-9 * sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) + (hi[2] - lo[2]) * (hi[2] - lo[2]));
    uint32_t inside = 0;
    for (uint32_t i = 0; i < in->nv; ++i) {
        const double *p = in->pos + 3 * (size_t)i;
        dist[i] = n[0] * p[0] + n[1] * p[1] + n[2] * p[2] - d;
        if (fabs(dist[i]) <= tol) dist[i] = 0;
        map[i] = UINT32_MAX;
        inside += dist[i] <= 0;
    }
    /* the map holds the cut edges only: size it by the faces that cross */
    uint32_t crossing = 0;
    for (uint32_t f = 0; f < in->nf; ++f) {
        bool any_in = false, any_out = false;
        for (uint32_t k = in->start[f]; k < in->start[f + 1]; ++k) {
            if (dist[in->idx[k]] <= 0) any_in = true;
            else any_out = true;
        }
        if (any_in && any_out) crossing += in->start[f + 1] - in->start[f];
    }
    pmap em;
    em.cap = 64;
    while (em.cap < 4 * crossing + 64) em.cap *= 2;
    em.key = malloc(sizeof(uint64_t) * em.cap);
    em.val = malloc(sizeof(uint32_t) * em.cap);
    for (uint32_t i = 0; i < em.cap; ++i) em.key[i] = UINT64_MAX;
    uint32_t *seg = NULL;
    size_t nseg = 0, capseg = 0;
    for (uint32_t f = 0; f < in->nf; ++f) {
        const uint32_t *c = in->idx + in->start[f];
        uint32_t k = in->start[f + 1] - in->start[f];
        pm_begin_face(out, in->ftag[f]);
        uint32_t pend_exit = UINT32_MAX, first_entry = UINT32_MAX;
        for (uint32_t e = 0; e < k; ++e) {
            uint32_t u = c[e], v = c[(e + 1) % k];
            bool ui = dist[u] <= 0, vi = dist[v] <= 0;
            if (ui) {
                if (map[u] == UINT32_MAX) map[u] = out->nv, pm_add_vertex(out, in->pos + 3 * (size_t)u);
                pm_push(out, map[u]);
            }
            if (ui == vi) continue;
            uint32_t x;
            uint32_t on = dist[u] == 0 ? u : (dist[v] == 0 ? v : UINT32_MAX);
            if (on != UINT32_MAX) {
                if (map[on] == UINT32_MAX) map[on] = out->nv, pm_add_vertex(out, in->pos + 3 * (size_t)on);
                x = map[on];
            } else {
                uint64_t key = u < v ? ((uint64_t)u << 32) | v : ((uint64_t)v << 32) | u;
                bool fresh;
                uint32_t *slot = pmap_slot(&em, key, &fresh);
                if (fresh) {
                    uint32_t a = u < v ? u : v, b = u < v ? v : u;
                    double s = dist[a] / (dist[a] - dist[b]), q[3];
                    for (int j = 0; j < 3; ++j) q[j] = in->pos[3 * (size_t)a + j] + s * (in->pos[3 * (size_t)b + j] - in->pos[3 * (size_t)a + j]);
                    *slot = out->nv;
                    pm_add_vertex(out, q);
                }
                x = *slot;
                pm_push(out, x);
            }
            /* Sutherland-Hodgman joins each exit to the next entry along the
             * plane; reversed, those joins are the cap's boundary */
            if (ui) {
                pend_exit = x;
            } else {
                if (pend_exit != UINT32_MAX) {
                    if (pend_exit != x) {
                        if (nseg == capseg) capseg = capseg ? 2 * capseg : 64, seg = realloc(seg, sizeof(uint32_t) * 2 * capseg);
                        seg[2 * nseg] = x, seg[2 * nseg + 1] = pend_exit;
                        ++nseg;
                    }
                    pend_exit = UINT32_MAX;
                } else if (first_entry == UINT32_MAX) {
                    first_entry = x;
                }
            }
        }
        /* the face began outside: its last exit joins its first entry */
        if (pend_exit != UINT32_MAX && first_entry != UINT32_MAX && pend_exit != first_entry) {
            if (nseg == capseg) capseg = capseg ? 2 * capseg : 64, seg = realloc(seg, sizeof(uint32_t) * 2 * capseg);
            seg[2 * nseg] = first_entry, seg[2 * nseg + 1] = pend_exit;
            ++nseg;
        }
        pm_end_face(out);
    }
    free(em.key);
    free(em.val);
    free(dist);
    free(map);
    int rc = 0;
    if (inside == in->nv || nseg == 0) {
        free(seg);
        return 0;
    }
    /* the cap's regions, each one face */
    crf_faces cap;
    rc = crf_cap_faces(out->pos, out->nv, seg, nseg, n, &cap);
    for (uint32_t r = 0; r < cap.count; ++r) {
        pm_begin_face(out, tag);
        for (uint32_t k = cap.start[r]; k < cap.start[r + 1]; ++k) pm_push(out, cap.idx[k]);
        pm_end_face(out);
    }
    free(cap.idx);
    free(cap.start);
    free(seg);
    return rc;
}

void crf_pmesh_triangulate(const crf_pmesh *m, crf_mesh *out) {
    memset(out, 0, sizeof *out);
    for (uint32_t i = 0; i < m->nv; ++i) crf_mesh_vertex(out, m->pos + 3 * (size_t)i);
    for (uint32_t f = 0; f < m->nf; ++f) crf_face_ears(out, m->idx + m->start[f], m->start[f + 1] - m->start[f], m->ftag[f]);
}
