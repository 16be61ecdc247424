/* soft_triangle.c — soft against soft as particles against the other body's
 * triangles, the default (docs/mass-spring.md, "Soft against soft").
 *
 * Two soft bodies used to meet particle against particle, each a sphere of
 * its body's widest triangle's circumradius (else a particle slipped through
 * the middle of a triangle): stacked cubes rested 0.166 m apart, visibly
 * floating. Here each particle meets the other body's surface: the nearest
 * triangle round the nearest particles, point against triangle, kept at the
 * two bodies' skins (cr_soft_body.skin, CR_SOFT_SKIN x the mean edge: about
 * 0.01 m between stacked 0.5 m cubes).
 *
 * The step's nearest partners (spring_collide.c, found once a step with the
 * two bodies' motion as margin) name the candidates: each particle against
 * the triangle round its nearest partner of the other body nearest to it,
 * chosen once a step. Each substep each such particle-triangle contact is
 * resolved as a position constraint C = d - R >= 0 (d the distance along the
 * contact normal, R the sum of the two skins) whose correction is
 * shared by the particle and the triangle's three vertices with barycentric
 * weights: the sum of m dx is zero, so momentum is kept exactly (to the
 * rounding of the sums). The approach velocity is removed the same way, and
 * static friction undoes the pair's slide since the last pass, within the
 * friction cone (as spring_collide.c does against rigid bodies). After the
 * substeps, the step's last pass (cri_soft_resolve_inside) moves out every
 * contact's particle found inside the other body. */
#include "soft/mass_spring.h"
#include "base/check.h"

#include <string.h>

static uint64_t al16(uint64_t x) { return (x + 15u) & ~(uint64_t)15u; }

uint64_t cri_soft_triangle_scratch_bytes(const cr_world_def *def) {
    uint64_t P = def->spring.particle_capacity;
    /* the incidence lists (closed meshes: under 2 triangles a vertex, 3
     * corners each) and the contacts */
    return al16((P + 1) * 4u) + al16(P * 6u * 4u + 64u) + al16(P * 4u + 4u) +
           al16(P * CR_SOFT_PAIRS_PER_PARTICLE * 12u + 16u) + 64u;
}

/* Closest point of the triangle (a, b, c) to q, as barycentric weights. */
static void closest_on_triangle(cr_vec3 q, cr_vec3 a, cr_vec3 b, cr_vec3 c, cr_real *wa, cr_real *wb, cr_real *wc) {
    cr_vec3 ab = cr_v3_sub(b, a), ac = cr_v3_sub(c, a), ap = cr_v3_sub(q, a);
    cr_real d1 = cr_v3_dot(ab, ap), d2 = cr_v3_dot(ac, ap);
    if (d1 <= 0 && d2 <= 0) { *wa = CR_R(1), *wb = 0, *wc = 0; return; }
    cr_vec3 bp = cr_v3_sub(q, b);
    cr_real d3 = cr_v3_dot(ab, bp), d4 = cr_v3_dot(ac, bp);
    if (d3 >= 0 && d4 <= d3) { *wa = 0, *wb = CR_R(1), *wc = 0; return; }
    cr_real vc = cr_mul(d1, d4) - cr_mul(d3, d2);
    if (vc <= 0 && d1 >= 0 && d3 <= 0) {
        cr_real t = d1 - d3 > 0 ? cr_div(d1, d1 - d3) : 0;
        *wa = CR_R(1) - t, *wb = t, *wc = 0;
        return;
    }
    cr_vec3 cp = cr_v3_sub(q, c);
    cr_real d5 = cr_v3_dot(ab, cp), d6 = cr_v3_dot(ac, cp);
    if (d6 >= 0 && d5 <= d6) { *wa = 0, *wb = 0, *wc = CR_R(1); return; }
    cr_real vb = cr_mul(d5, d2) - cr_mul(d1, d6);
    if (vb <= 0 && d2 >= 0 && d6 <= 0) {
        cr_real t = d2 - d6 > 0 ? cr_div(d2, d2 - d6) : 0;
        *wa = CR_R(1) - t, *wb = 0, *wc = t;
        return;
    }
    cr_real va = cr_mul(d3, d6) - cr_mul(d5, d4);
    if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
        cr_real den = (d4 - d3) + (d5 - d6);
        cr_real t = den > 0 ? cr_div(d4 - d3, den) : 0;
        *wa = 0, *wb = CR_R(1) - t, *wc = t;
        return;
    }
    cr_real den = va + vb + vc;
    if (den <= 0) { *wa = CR_R(1), *wb = 0, *wc = 0; return; }
    cr_real v = cr_div(vb, den), w = cr_div(vc, den);
    *wa = CR_R(1) - v - w, *wb = v, *wc = w;
}

/* The triangle of body `sb` round its particle `g` (global) nearest to q,
 * by its centroid (a closest-point test for each of the six or so was a
 * tenth of the step): its index in the body's asset, or UINT32_MAX. */
static uint32_t nearest_round(const cr_particle *p, const cr_soft_body *sb, const cr_asset *a, const uint32_t *start,
                              const uint32_t *list, uint32_t g, cr_vec3 q) {
    uint32_t best = UINT32_MAX;
    cr_real best_d = CR_REAL_MAX;
    const cr_particle *bp = p + sb->first_particle;
    cr_vec3 q3 = cr_v3_scale(q, CR_R(3));
    for (uint32_t k = start[g]; k < start[g + 1]; ++k) {
        const uint32_t *tri = &a->triangles[3 * list[k]];
        cr_vec3 c3 = cr_v3_add(cr_v3_add(bp[tri[0]].x, bp[tri[1]].x), bp[tri[2]].x);
        cr_real d = cr_v3_len_sq(cr_v3_sub(q3, c3));
        if (d < best_d) best_d = d, best = list[k];
    }
    return best;
}

bool cri_soft_incidence(cr_world *w, uint32_t *o_start, uint32_t *o_list) {
    cr_soft_region *r = cri_soft_region(w);
    uint32_t P = r->particle_count;
    const cr_soft_body *bodies = cri_soft_bodies(w);
    uint64_t corners = 0;
    for (uint32_t b = 0; b < r->body_high; ++b)
        if (bodies[b].alive) corners += 3ull * cr_world_asset(w, bodies[b].asset)->triangle_count;
    if (corners > 0x0fffffffu) return false;
    uint32_t mark = cr_arena_pos(&w->scratch);
    *o_start = cri_arena_push(&w->scratch, (uint8_t *)w, (P + 1) * 4u, 16); /* zeroed: the counts */
    *o_list = cri_arena_push_uninit(&w->scratch, (uint32_t)corners * 4u + 4u, 16);
    uint32_t o_fill = cri_arena_push_uninit(&w->scratch, P * 4u + 4u, 16);
    if (*o_start == CR_NO_OFFSET || *o_list == CR_NO_OFFSET || o_fill == CR_NO_OFFSET) {
        cri_arena_pop_to(&w->scratch, mark);
        return false;
    }
    uint32_t *start = CR_AT(w, *o_start, uint32_t), *list = CR_AT(w, *o_list, uint32_t), *fill = CR_AT(w, o_fill, uint32_t);
    /* every particle's triangles (counting sort by corner, in triangle order: deterministic) */
    for (uint32_t b = 0; b < r->body_high; ++b) {
        if (!bodies[b].alive) continue;
        const cr_asset *a = cr_world_asset(w, bodies[b].asset);
        for (uint32_t k = 0; k < 3 * a->triangle_count; ++k) start[bodies[b].first_particle + a->triangles[k] + 1]++;
    }
    for (uint32_t i = 0; i < P; ++i) start[i + 1] += start[i], fill[i] = start[i];
    for (uint32_t b = 0; b < r->body_high; ++b) {
        if (!bodies[b].alive) continue;
        const cr_asset *a = cr_world_asset(w, bodies[b].asset);
        for (uint32_t t = 0; t < a->triangle_count; ++t)
            for (uint32_t c = 0; c < 3; ++c) list[fill[bodies[b].first_particle + a->triangles[3 * t + c]]++] = t;
    }
    return true;
}

/* Where particle q stands against triangle t of body T: the contact normal,
 * the signed distance along it (below zero behind the face, inside the
 * body), the closest point's barycentric weights. False when the triangle
 * has no say: farther in front than the skins, degenerate, past its rim by
 * more than the allowance, or deeper behind it than the soft radius. */
typedef struct tri_hit {
    uint32_t t;
    cr_real u, v, s, dist;
    cr_vec3 n;
    bool in_face;
    bool far; ///< farther than the skins in front of the face's plane
} tri_hit;

static bool classify(const cr_particle *p, const cr_soft_body *T, const cr_asset *a, uint32_t t, cr_vec3 xq, cr_real R,
                     tri_hit *o) {
    const uint32_t *tri = &a->triangles[3 * t];
    cr_vec3 xa = p[T->first_particle + tri[0]].x, xb = p[T->first_particle + tri[1]].x, xc = p[T->first_particle + tri[2]].x;
    cr_real len;
    cr_vec3 nf = cr_v3_normalize_len(cr_v3_cross(cr_v3_sub(xb, xa), cr_v3_sub(xc, xa)), &len);
    o->far = false;
    if (len <= CR_REAL_EPS) return false;
    /* farther than the skins in front of the face's plane is farther from
     * the triangle too: most of the step's contacts, out of touch, end here */
    if (cr_v3_dot(cr_v3_sub(xq, xa), nf) >= R) return o->far = true, false;
    cr_real u, v, s;
    closest_on_triangle(xq, xa, xb, xc, &u, &v, &s);
    cr_vec3 c = cr_v3_add(cr_v3_add(cr_v3_scale(xa, u), cr_v3_scale(xb, v)), cr_v3_scale(xc, s));
    cr_vec3 d = cr_v3_sub(xq, c);
    cr_real side = cr_v3_dot(d, nf), dist;
    cr_vec3 n;
    bool inside_face = u > 0 && v > 0 && s > 0;
    if (inside_face) {
        n = nf, dist = side; /* signed: behind the face is inside the body */
    } else if (side <= 0) {
        /* Behind the face, past its rim: inside the body round a convex
         * edge or corner when no farther past the rim than the body's rim
         * allowance (the soft radius), so pushed out along the face's
         * normal. Only within the skins of the rim, a cube's corner pressed
         * into the tube of a torus between two faces was nobody's and
         * stayed inside; not at all, two stacked cubes (vertex on vertex,
         * each at every neighbour's rim) fell through each other. */
        cr_vec3 off = cr_v3_sub(d, cr_v3_scale(nf, side));
        if (cr_v3_len_sq(off) > cr_mul(T->rim, T->rim)) return false;
        n = nf, dist = side;
    } else {
        n = cr_v3_normalize_len(d, &dist);
        if (dist <= CR_REAL_EPS) n = nf;
    }
    /* deeper behind the face than the body's soft radius is not this face's
     * to push out (the particle may be past a thin part of the body) */
    if (dist >= R || dist < -T->soft_radius) return false;
    o->t = t, o->u = u, o->v = v, o->s = s, o->dist = dist, o->n = n, o->in_face = inside_face, o->far = false;
    return true;
}

/* One particle q (of body Q) against body T's step triangle t. */
static uint32_t particle_triangle(cr_world *w, cr_soft_body *Q, uint32_t q, cr_soft_body *T, uint32_t t, bool q_moves,
                                  bool t_moves, cr_real h, const cr_vec3 *prev) {
    if (t == UINT32_MAX) return 0;
    cr_particle *p = cri_soft_particles(w);
    const cr_asset *a = cr_world_asset(w, T->asset);
    cr_real R = Q->skin + T->skin;
    tri_hit hit_t = {0};
    bool found = classify(p, T, a, t, p[q].x, R, &hit_t);
    /* Over the step's triangle only: a particle that has moved over a
     * neighbour, or got behind one, is left to the step's last pass
     * (cri_soft_resolve_inside), which measures the faces round the
     * triangle's corners. Measured here every substep (the ring round the
     * partner, soft16e) it cost 0.15 ms a step of the awake pile and still
     * let particles in (docs/mass-spring.md, round soft16h). */
    if (!found) return 0;
    const uint32_t *tri = &a->triangles[3 * hit_t.t];
    uint32_t ia = T->first_particle + tri[0], ib = T->first_particle + tri[1], ic = T->first_particle + tri[2];
    cr_real u = hit_t.u, v = hit_t.v, s = hit_t.s, dist = hit_t.dist;
    cr_vec3 n = hit_t.n;
    cr_real pen = R - dist;
    cr_vec3 vt_tri = cr_v3_add(cr_v3_add(cr_v3_scale(p[ia].v, u), cr_v3_scale(p[ib].v, v)), cr_v3_scale(p[ic].v, s));
    cr_vec3 vrel = cr_v3_sub(p[q].v, vt_tri);
    cr_real vn = cr_v3_dot(vrel, n);
    /* a body that did not run this step is immovable unless hit (as the
     * particle pairs of spring_collide.c): then it wakes */
    bool hit = vn < -w->def.sleep_linear && pen > cr_mul(CR_R(4), cr_mul(w->def.sleep_linear, h));
    cr_real wq = p[q].inv_mass, wa = p[ia].inv_mass, wb = p[ib].inv_mass, wc = p[ic].inv_mass;
    if (!q_moves) {
        if (hit) Q->asleep = 0, Q->sleep_time = 0;
        else wq = 0;
    }
    if (!t_moves) {
        if (hit) T->asleep = 0, T->sleep_time = 0;
        else wa = wb = wc = 0;
    }
    cr_real W = wq + cr_mul(cr_mul(u, u), wa) + cr_mul(cr_mul(v, v), wb) + cr_mul(cr_mul(s, s), wc);
    if (W <= 0) return 0;
    cr_real inv_W = cr_div(CR_R(1), W);
    /* the push-out: lambda = pen / W along n, shared with barycentric weights */
    cr_real lam = cr_mul(pen, inv_W);
    p[q].x = cr_v3_mad(p[q].x, cr_mul(lam, wq), n);
    p[ia].x = cr_v3_mad(p[ia].x, -cr_mul(lam, cr_mul(u, wa)), n);
    p[ib].x = cr_v3_mad(p[ib].x, -cr_mul(lam, cr_mul(v, wb)), n);
    p[ic].x = cr_v3_mad(p[ic].x, -cr_mul(lam, cr_mul(s, wc)), n);
    cr_real jn = vn < 0 ? cr_mul(-vn, inv_W) : 0;
    cr_real j_push = cr_div(lam, h);
    cr_vec3 J = cr_v3_scale(n, jn);
    cr_vec3 vt = cr_v3_sub(vrel, cr_v3_scale(n, vn));
    cr_real vt_len;
    cr_vec3 tdir = cr_v3_normalize_len(vt, &vt_len);
    /* static friction: the pair's slide since the last pass (prev) undone
     * within the cone, as spring_collide.c does */
    cr_vec3 mq = cr_v3_sub(p[q].x, prev[q]);
    cr_vec3 mt = cr_v3_add(cr_v3_add(cr_v3_scale(cr_v3_sub(p[ia].x, prev[ia]), u), cr_v3_scale(cr_v3_sub(p[ib].x, prev[ib]), v)),
                           cr_v3_scale(cr_v3_sub(p[ic].x, prev[ic]), s));
    cr_vec3 slide = cr_v3_sub(mq, mt);
    slide = cr_v3_sub(slide, cr_v3_scale(n, cr_v3_dot(slide, n)));
    cr_real slide_len = cr_v3_len(slide);
    if (vt_len > CR_REAL_EPS || slide_len > CR_REAL_EPS) {
        cr_real mu = cr_sqrt(cr_mul(Q->friction, T->friction));
        cr_real limit = cr_mul(mu, jn + j_push);
        cr_real stick = cr_mul(cr_max(vt_len, cr_div(slide_len, h)), inv_W);
        if (vt_len > CR_REAL_EPS) J = cr_v3_mad(J, -cr_min(cr_mul(vt_len, inv_W), limit), tdir);
        if (stick <= limit) {
            cr_vec3 l = cr_v3_scale(slide, inv_W);
            p[q].x = cr_v3_mad(p[q].x, -wq, l);
            p[ia].x = cr_v3_mad(p[ia].x, cr_mul(u, wa), l);
            p[ib].x = cr_v3_mad(p[ib].x, cr_mul(v, wb), l);
            p[ic].x = cr_v3_mad(p[ic].x, cr_mul(s, wc), l);
        }
    }
    /* J acts on the particle, -J on the triangle's point */
    p[q].v = cr_v3_mad(p[q].v, wq, J);
    p[ia].v = cr_v3_mad(p[ia].v, -cr_mul(u, wa), J);
    p[ib].v = cr_v3_mad(p[ib].v, -cr_mul(v, wb), J);
    p[ic].v = cr_v3_mad(p[ic].v, -cr_mul(s, wc), J);
    return 1;
}

uint32_t cri_soft_triangle_contacts(cr_world *w, const uint32_t *nearest, uint32_t n_nearest, const uint32_t *owner,
                                    const uint32_t *start, const uint32_t *list, const cr_real *motion, uint32_t *out) {
    const cr_soft_body *bodies = cri_soft_bodies(w);
    const cr_particle *p = cri_soft_particles(w);
    /* One contact a particle and other body, not one a pair, and its
     * triangle found once a step: a particle has a dozen partners within the
     * pairs' reach, and finding triangles for each every substep made the
     * step six times slower. */
    uint32_t n = 0;
    for (uint32_t k = 0; k < n_nearest; ++k) {
        uint32_t q = nearest[2 * k], g = nearest[2 * k + 1];
        const cr_soft_body *Q = &bodies[owner[q]], *T = &bodies[owner[g]];
        if (!Q->surface || !T->surface) continue; /* both asked for it (cr_soft_def.surface_contacts) */
        /* the partner's triangles reach no farther than its soft radius from it */
        cr_real reach = Q->skin + T->skin + motion[owner[q]] + motion[owner[g]], far = reach + T->soft_radius;
        if (cr_v3_len_sq(cr_v3_sub(p[g].x, p[q].x)) > cr_mul(far, far)) continue;
        const cr_asset *a = cr_world_asset(w, T->asset);
        uint32_t t = nearest_round(p, T, a, start, list, g, p[q].x);
        if (t == UINT32_MAX) continue;
        const uint32_t *tri = &a->triangles[3 * t];
        const cr_particle *tp = p + T->first_particle;
        cr_real u, v, c;
        closest_on_triangle(p[q].x, tp[tri[0]].x, tp[tri[1]].x, tp[tri[2]].x, &u, &v, &c);
        cr_vec3 x = cr_v3_add(cr_v3_add(cr_v3_scale(tp[tri[0]].x, u), cr_v3_scale(tp[tri[1]].x, v)), cr_v3_scale(tp[tri[2]].x, c));
        if (cr_v3_len_sq(cr_v3_sub(p[q].x, x)) > cr_mul(reach, reach)) continue;
        out[3 * n] = q, out[3 * n + 1] = g, out[3 * n + 2] = t, ++n;
    }
    return n;
}

uint32_t cri_soft_collide_triangles(cr_world *w, const uint32_t *contacts_in, uint32_t n_in, const uint32_t *owner,
                                    const uint32_t *moving, cr_real h, const cr_vec3 *prev) {
    cr_soft_body *bodies = cri_soft_bodies(w);
    uint32_t contacts = 0;
    for (uint32_t k = 0; k < n_in; ++k) {
        uint32_t q = contacts_in[3 * k], g = contacts_in[3 * k + 1];
        uint32_t oq = owner[q], og = owner[g];
        if (!moving[oq] && !moving[og]) continue; /* two resting bodies stay as they are */
        contacts += particle_triangle(w, &bodies[oq], q, &bodies[og], contacts_in[3 * k + 2], moving[oq], moving[og], h, prev);
    }
    return contacts;
}

/* The step's last word on soft against soft: no particle ends a step inside
 * another body (docs/mass-spring.md, "Inside at the step's end").
 *
 * The substeps' contacts decide inside or outside from the step's one
 * triangle and are passed Gauss-Seidel: in a hard
 * impact a later contact on the same faces put a particle pushed out early
 * back in, a face across the step triangle's edge was never measured, and a
 * particle out of touch was carried in as a corner of its own body's
 * triangle. Which particles of a pile were left 1-5 mm inside was a draw of
 * the trajectory (a rounding change alone moved it). Here, after the
 * substeps, each contact's particle is measured against every triangle
 * round the step triangle's three corners (the faces across its edges too),
 * and the sign is the closest feature's own: the face's normal over a face,
 * the two faces' normals at an edge, the angle-weighted normal of the whole
 * fan at a corner (Baerentzen and Aanaes 2005: behind it is inside a closed
 * surface); where that can be wrong (a folded surface, a particle deeper
 * than the skins) the other body's whole winding number decides. A
 * particle inside is moved out to the skins, shared with the
 * closest point's three corners by barycentric weights as the contacts do
 * (the sum of m dx is zero). Positions only: no velocity changes, so
 * momentum is untouched. The pass is repeated while it moved anything (a
 * push moves the other body's corners, which may meet another particle),
 * at most CR_SOFT_INSIDE_PASSES times. */
#define CR_SOFT_INSIDE_PASSES 8
#define CR_SOFT_INSIDE_HOPS 3

/* The unit normal of triangle t of T and the angle of its corner at the
 * asset vertex c (when c is one of its corners; else 0). */
static cr_vec3 face_normal(const cr_particle *bp, const cr_asset *a, uint32_t t, uint32_t c, cr_real *angle) {
    const uint32_t *tri = &a->triangles[3 * t];
    cr_vec3 xa = bp[tri[0]].x, xb = bp[tri[1]].x, xc = bp[tri[2]].x;
    cr_real len;
    cr_vec3 n = cr_v3_normalize_len(cr_v3_cross(cr_v3_sub(xb, xa), cr_v3_sub(xc, xa)), &len);
    if (len <= CR_REAL_EPS) n = cr_v3_zero();
    *angle = 0;
    for (uint32_t j = 0; j < 3; ++j) {
        if (tri[j] != c) continue;
        cr_vec3 e1 = cr_v3_sub(bp[tri[(j + 1) % 3]].x, bp[tri[j]].x), e2 = cr_v3_sub(bp[tri[(j + 2) % 3]].x, bp[tri[j]].x);
        *angle = cr_atan2(cr_v3_len(cr_v3_cross(e1, e2)), cr_v3_dot(e1, e2));
    }
    return n;
}

static bool has_corner(const uint32_t *tri, uint32_t c) { return tri[0] == c || tri[1] == c || tri[2] == c; }

/* d (from a point of triangle t to the particle) in front of t's plane or on it. */
static bool face_front(const cr_particle *bp, const cr_asset *a, uint32_t t, cr_vec3 d) {
    const uint32_t *tri = &a->triangles[3 * t];
    cr_vec3 xa = bp[tri[0]].x;
    return cr_v3_dot(d, cr_v3_cross(cr_v3_sub(bp[tri[1]].x, xa), cr_v3_sub(bp[tri[2]].x, xa))) >= 0;
}

/* The closest point to xq of the triangles round triangle t's three
 * corners (each once): its triangle, weights and offset. */
typedef struct near_hit {
    uint32_t t;
    cr_real dd, u, v, s;
    cr_vec3 d;
    bool behind_over; ///< behind some triangle's plane, within the skins, over its face
} near_hit;

static void closest_round(const cr_particle *bp, const cr_asset *a, uint32_t first, const uint32_t *start, const uint32_t *list,
                          uint32_t t, cr_vec3 xq, cr_real R2, near_hit *o) {
    const uint32_t *tri = &a->triangles[3 * t];
    for (uint32_t j = 0; j < 3; ++j) {
        uint32_t c = first + tri[j];
        for (uint32_t k = start[c]; k < start[c + 1]; ++k) {
            const uint32_t *tk = &a->triangles[3 * list[k]];
            /* each triangle once: skip those met round an earlier corner */
            if ((j > 0 && has_corner(tk, tri[0])) || (j > 1 && has_corner(tk, tri[1]))) continue;
            cr_vec3 xa = bp[tk[0]].x, xb = bp[tk[1]].x, xc = bp[tk[2]].x;
            cr_real u, v, s;
            closest_on_triangle(xq, xa, xb, xc, &u, &v, &s);
            cr_vec3 d = cr_v3_sub(xq, cr_v3_add(cr_v3_add(cr_v3_scale(xa, u), cr_v3_scale(xb, v)), cr_v3_scale(xc, s)));
            cr_real dd = cr_v3_len_sq(d);
            if (u > 0 && v > 0 && s > 0 && dd < R2 && cr_v3_dot(d, cr_v3_cross(cr_v3_sub(xb, xa), cr_v3_sub(xc, xa))) < 0)
                o->behind_over = true;
            if (dd < o->dd) o->dd = dd, o->d = d, o->t = list[k], o->u = u, o->v = v, o->s = s;
        }
    }
}

/* The winding number of T's closed surface round xq, times 4 pi (the sum of
 * its triangles' solid angles, Van Oosterom and Strackee 1983): about 4 pi
 * inside, 0 outside, whatever the surface's folds. */
static cr_real solid_angle_sum(const cr_particle *bp, const cr_asset *a, cr_vec3 xq) {
    cr_real total = 0;
    for (uint32_t t = 0; t < a->triangle_count; ++t) {
        const uint32_t *tk = &a->triangles[3 * t];
        cr_vec3 va = cr_v3_sub(bp[tk[0]].x, xq), vb = cr_v3_sub(bp[tk[1]].x, xq), vc = cr_v3_sub(bp[tk[2]].x, xq);
        cr_real la = cr_v3_len(va), lb = cr_v3_len(vb), lc = cr_v3_len(vc);
        cr_real det = cr_v3_dot(va, cr_v3_cross(vb, vc));
        cr_real den = cr_mul(cr_mul(la, lb), lc) + cr_mul(cr_v3_dot(va, vb), lc) + cr_mul(cr_v3_dot(vb, vc), la) +
                      cr_mul(cr_v3_dot(vc, va), lb);
        total += cr_mul(CR_R(2), cr_atan2(det, den));
    }
    return total;
}

/* One contact's particle q against body T round triangle t: moved out when
 * inside. Returns 1 when moved. */
static uint32_t resolve_inside(cr_particle *p, cr_soft_body *Q, uint32_t q, cr_soft_body *T, uint32_t t, bool q_moves,
                               bool t_moves, const cr_asset *a, const uint32_t *start, const uint32_t *list) {
    const cr_particle *bp = p + T->first_particle;
    cr_vec3 xq = p[q].x;
    cr_real R = Q->skin + T->skin, R2 = cr_mul(R, R), reach = cr_max(R, T->soft_radius), reach2 = cr_mul(reach, reach);
    /* in front of the step triangle's plane by more than that: out of
     * touch, as most of the step's contacts (no square root: against the
     * cross product's own length) */
    {
        const uint32_t *tt = &a->triangles[3 * t];
        cr_vec3 xa = bp[tt[0]].x, nt = cr_v3_cross(cr_v3_sub(bp[tt[1]].x, xa), cr_v3_sub(bp[tt[2]].x, xa));
        cr_real side = cr_v3_dot(cr_v3_sub(xq, xa), nt);
        if (side > 0 && cr_mul(side, side) >= cr_mul(R2, cr_v3_len_sq(nt))) return 0;
    }
    near_hit h = {UINT32_MAX, CR_REAL_MAX, 0, 0, 0, {0, 0, 0}, false};
    closest_round(bp, a, T->first_particle, start, list, t, xq, R2, &h);
    /* walked on while the nearest is within reach and round another
     * triangle: the face the particle got behind may be two rings away */
    for (uint32_t hop = 0; hop < CR_SOFT_INSIDE_HOPS && h.t != UINT32_MAX && h.dd < reach2 && h.t != t; ++hop) {
        t = h.t;
        closest_round(bp, a, T->first_particle, start, list, t, xq, R2, &h);
    }
    /* farther than the soft radius (or the skins) either way: in front, out
     * of touch; behind, past a thin part of the body, not this surface's.
     * Between the skins and the soft radius behind, only the winding number
     * says inside (below): by the local sign alone those ping-ponged between
     * two faces of a fold and let more in. */
    if (h.t == UINT32_MAX || h.dd >= reach2) return 0;
    cr_real dist = cr_sqrt(h.dd);
    cr_real bu = h.u, bv = h.v, bs = h.s;
    uint32_t bt = h.t;
    cr_vec3 d_best = h.d;
    /* the closest feature's pseudonormal */
    const uint32_t *tb = &a->triangles[3 * bt];
    cr_real wgt[3] = {bu, bv, bs}, ang;
    uint32_t zero = (bu <= 0) + (bv <= 0) + (bs <= 0);
    /* in front of every face at the closest feature is outside whatever
     * their weights (most contacts in touch, without the fan's angles) */
    if (h.dd >= R2 || !h.behind_over) {
        bool front = true;
        uint32_t e0 = UINT32_MAX, e1 = UINT32_MAX;
        for (uint32_t j = 0; j < 3; ++j)
            if (wgt[j] > 0) *(e0 == UINT32_MAX ? &e0 : &e1) = tb[j];
        if (zero == 0) {
            front = face_front(bp, a, bt, d_best);
        } else {
            uint32_t c = T->first_particle + e0;
            for (uint32_t k = start[c]; k < start[c + 1] && front; ++k)
                if (zero == 2 || has_corner(&a->triangles[3 * list[k]], e1)) front = face_front(bp, a, list[k], d_best);
        }
        if (front) return 0;
    }
    cr_vec3 N;
    if (zero == 0) {
        N = face_normal(bp, a, bt, UINT32_MAX, &ang);
    } else if (zero == 1) {
        /* an edge: the two faces sharing it */
        uint32_t e0 = UINT32_MAX, e1 = UINT32_MAX;
        for (uint32_t j = 0; j < 3; ++j)
            if (wgt[j] > 0) *(e0 == UINT32_MAX ? &e0 : &e1) = tb[j];
        N = cr_v3_zero();
        uint32_t c = T->first_particle + e0;
        for (uint32_t k = start[c]; k < start[c + 1]; ++k)
            if (has_corner(&a->triangles[3 * list[k]], e1)) N = cr_v3_add(N, face_normal(bp, a, list[k], UINT32_MAX, &ang));
    } else {
        /* a corner: its whole fan, each face by its angle there */
        uint32_t v0 = wgt[0] > 0 ? tb[0] : wgt[1] > 0 ? tb[1] : tb[2];
        N = cr_v3_zero();
        uint32_t c = T->first_particle + v0;
        for (uint32_t k = start[c]; k < start[c + 1]; ++k) {
            cr_vec3 nf = face_normal(bp, a, list[k], v0, &ang);
            N = cr_v3_mad(N, ang, nf);
        }
    }
    cr_real nl;
    cr_vec3 Nn = cr_v3_normalize_len(N, &nl);
    if (nl <= CR_REAL_EPS) return 0;
    if (cr_v3_dot(d_best, Nn) >= 0) {
        /* Outside by the closest feature. A surface folded there (a ball
         * dented by a torus's tube: a row of its triangles turned over, the
         * front of a folded face inside) says so wrongly; the sign of a
         * particle behind one triangle of the neighbourhood, over its face,
         * while the closest feature says outside, is asked of the whole
         * surface's winding number. Inside, it goes the other way through
         * the closest point (the same move below, d's own direction). */
        if (h.dd >= R2 || !h.behind_over || dist <= CR_REAL_EPS || solid_angle_sum(bp, a, xq) < cr_mul(CR_R(2), CR_PI)) return 0;
    } else if (h.dd >= R2 && solid_angle_sum(bp, a, xq) < cr_mul(CR_R(2), CR_PI)) {
        return 0; /* behind deeper than the skins: asked of the winding number too (past a thin part, a fold) */
    }
    cr_vec3 n = dist > CR_REAL_EPS ? cr_v3_scale(d_best, cr_div(CR_R(-1), dist)) : Nn;
    cr_real wq = q_moves ? p[q].inv_mass : 0;
    uint32_t ia = T->first_particle + tb[0], ib = T->first_particle + tb[1], ic = T->first_particle + tb[2];
    cr_real wa = t_moves ? p[ia].inv_mass : 0, wb = t_moves ? p[ib].inv_mass : 0, wc = t_moves ? p[ic].inv_mass : 0;
    cr_real W = wq + cr_mul(cr_mul(bu, bu), wa) + cr_mul(cr_mul(bv, bv), wb) + cr_mul(cr_mul(bs, bs), wc);
    if (W <= 0) return 0;
    cr_real lam = cr_div(R + dist, W); /* from dist behind to the skins in front */
    p[q].x = cr_v3_mad(p[q].x, cr_mul(lam, wq), n);
    p[ia].x = cr_v3_mad(p[ia].x, -cr_mul(lam, cr_mul(bu, wa)), n);
    p[ib].x = cr_v3_mad(p[ib].x, -cr_mul(lam, cr_mul(bv, wb)), n);
    p[ic].x = cr_v3_mad(p[ic].x, -cr_mul(lam, cr_mul(bs, wc)), n);
    return 1;
}

uint32_t cri_soft_resolve_inside(cr_world *w, const uint32_t *contacts_in, uint32_t n_in, const uint32_t *owner,
                                 const uint32_t *moving, const uint32_t *start, const uint32_t *list) {
    cr_soft_body *bodies = cri_soft_bodies(w);
    cr_particle *p = cri_soft_particles(w);
    uint32_t moved = 0;
    for (uint32_t pass = 0; pass < CR_SOFT_INSIDE_PASSES; ++pass) {
        uint32_t m = 0;
        for (uint32_t k = 0; k < n_in; ++k) {
            uint32_t q = contacts_in[3 * k], g = contacts_in[3 * k + 1];
            uint32_t oq = owner[q], og = owner[g];
            if (!moving[oq] && !moving[og]) continue;
            cr_soft_body *T = &bodies[og];
            m += resolve_inside(p, &bodies[oq], q, T, contacts_in[3 * k + 2], moving[oq], moving[og], cr_world_asset(w, T->asset),
                                start, list);
        }
        moved += m;
        if (m == 0) break;
    }
    return moved;
}
