/* squash.c — compression and C1 dilation of an implicit skin in contact, with
 * direction dependence and the volume rule (seed 003 §3; squash.h says what
 * and which decisions). */
#include "damage/squash.h"
#include "geometry/shape.h"

#include <string.h>

cr_real cri_squash_bulge(cr_real x, cr_real c1, cr_real m, cr_real h, cr_real c, cr_real *slope) {
    *slope = 0;
    if (x <= c1 || x >= c) return 0;
    if (x < m) {
        /* Hermite from (c1, 0, 0) to (m, h, 0): h (3t^2 - 2t^3) */
        cr_real l = m - c1, t = cr_div(x - c1, l);
        *slope = cr_div(cr_mul(cr_mul(h, CR_R(6)), cr_mul(t, CR_R(1) - t)), l);
        return cr_mul(h, cr_mul(cr_mul(t, t), CR_R(3) - 2 * t));
    }
    /* Hermite from (m, h, 0) to (c, 0, -1): h (2t^3 - 3t^2 + 1) - L (t^3 - t^2) */
    cr_real l = c - m, t = cr_div(x - m, l), t2 = cr_mul(t, t), t3 = cr_mul(t2, t);
    *slope = cr_div(cr_mul(h, cr_mul(CR_R(6), t2 - t)) - cr_mul(l, cr_mul(CR_R(3), t2) - 2 * t), l);
    return cr_mul(h, 2 * t3 - cr_mul(CR_R(3), t2) + CR_R(1)) - cr_mul(l, t3 - t2);
}

cr_potential cri_squash_other_potential(const cri_squash_other *o, cr_vec3 p) {
    cr_potential out = {0, {0, 0, 0}};
    if (cr_v3_len_sq(cr_v3_sub(p, o->bound_centre)) >= cr_sq(o->bound_radius)) return out;
    cr_vec3 q = cr_v3_add(cr_mat3_mul_v3(o->rot, p), o->to_other.p);
    if (o->kind == CRI_SQUASH_OTHER_SKELETON) {
        out = o->prim_groups ? cri_skeleton_potential_groups(o->prims, o->count, o->prim_groups, q)
                             : cri_skeleton_potential(o->prims, o->count, q);
        out.f = cr_mul(out.f, o->scale);
        out.grad = cr_v3_scale(out.grad, o->scale);
    } else {
        cr_vec3 n;
        cr_real d = cri_shape_sdf(o->world, o->shape, q, cr_v3_neg(q), &n);
        out = cri_distance_potential(d, n, o->scale, o->reach);
    }
    out.grad = cr_mat3_mul_v3(cr_mat3_transpose(o->rot), out.grad);
    return out;
}

void cri_squash_vertex_triangles(const uint32_t *triangles, uint32_t t, uint32_t n, uint32_t *start, uint32_t *list) {
    memset(start, 0, (n + 1) * sizeof(uint32_t));
    for (uint32_t k = 0; k < 3 * t; ++k) start[triangles[k] + 1]++;
    for (uint32_t v = 0; v < n; ++v) start[v + 1] += start[v];
    for (uint32_t k = 0; k < 3 * t; ++k) list[start[triangles[k]]++] = k / 3;
    for (uint32_t v = n; v > 0; --v) start[v] = start[v - 1]; /* the fill moved each start to the next one's */
    start[0] = 0;
}

/* The bulge's height-proportional part: b1 = h P(x) + (the -L (t^3 - t^2) term, not in h). */
static cr_real bulge_unit(cr_real x, cr_real c1, cr_real m, cr_real c) {
    if (x <= c1 || x >= c) return 0;
    if (x < m) {
        cr_real t = cr_div(x - c1, m - c1);
        return cr_mul(cr_mul(t, t), CR_R(3) - 2 * t);
    }
    cr_real t = cr_div(x - m, c - m), t2 = cr_mul(t, t);
    return 2 * cr_mul(t2, t) - cr_mul(CR_R(3), t2) + CR_R(1);
}

/* F1 at p for zone slot z and scale s; *dfds (if not NULL): dF1/ds, which
 * the volume rule's first-order model needs (b1 is linear in h = s x h_z). */
/* The bulge's peak m for a zone border c1. b1's falling cubic on [m, c]
 * makes a bump of up to (c - m) 4/27 even at h = 0 (its slope is -1 at c);
 * were m = c1 + peak (c - c1) everywhere, that bump would be larger behind a
 * moving body (c1 low) than in front, and whenever the volume rule's scale
 * is small (a body sliding over the skin: the bump at h = 0 already gives
 * back most of the volume) the back bump came out higher. So the falling
 * cubic is the same at every vertex: m = c1m + peak (c - c1m), c1m = 1.5 c0
 * the front-most border (m > every c1 <= 1.5 c0); only a border pushed past
 * that by the opening ramp keeps m = c1 + peak (c - c1). */
static cr_real peak_of(const cri_squash_params *prm, cr_real c1) {
    cr_real c1m = cr_max(c1, cr_mul(CR_R(1.5), prm->c0));
    return c1m + cr_mul(prm->peak, prm->c - c1m);
}

/* The grid cell holding p and p's place in it, or false outside the grid. */
static bool grid_cell(const cri_squash_params *prm, cr_vec3 p, int32_t i[3], cr_real t[3]) {
    const cr_real u[3] = {cr_mul(p.x - prm->grid_origin.x, prm->grid_inv), cr_mul(p.y - prm->grid_origin.y, prm->grid_inv),
                          cr_mul(p.z - prm->grid_origin.z, prm->grid_inv)};
    for (int k = 0; k < 3; ++k) {
        i[k] = cr_floor_int(u[k]);
        if (i[k] < 0 || i[k] >= prm->grid_dims[k] - 1) return false;
        t[k] = u[k] - cr_from_int(i[k]);
    }
    return true;
}

/* The grid's part added to f (sculpting). */
static cr_potential add_grid(const cri_squash_params *prm, cr_potential f, cr_vec3 p) {
    int32_t i[3];
    cr_real t[3];
    if (prm->grid == NULL || !grid_cell(prm, p, i, t)) return f;
    const int32_t nx = prm->grid_dims[0], nxy = nx * prm->grid_dims[1];
    const cr_real *g = prm->grid + (size_t)(i[2] * nxy + i[1] * nx + i[0]);
    /* trilinear: value and its three partial derivatives (per unit of the cell, then per metre) */
    cr_real v = 0, dx = 0, dy = 0, dz = 0;
    for (int c = 0; c < 8; ++c) {
        int a = c & 1, b = (c >> 1) & 1, e = (c >> 2) & 1;
        cr_real n = g[e * nxy + b * nx + a];
        if (n == 0) continue;
        cr_real wx = a ? t[0] : CR_R(1) - t[0], wy = b ? t[1] : CR_R(1) - t[1], wz = e ? t[2] : CR_R(1) - t[2];
        v += cr_mul(n, cr_mul(wx, cr_mul(wy, wz)));
        dx += cr_mul(a ? n : -n, cr_mul(wy, wz));
        dy += cr_mul(b ? n : -n, cr_mul(wx, wz));
        dz += cr_mul(e ? n : -n, cr_mul(wx, wy));
    }
    f.f += v;
    f.grad = cr_v3_add(f.grad, cr_v3_scale(cr_v3(dx, dy, dz), prm->grid_inv));
    return f;
}

cr_potential cri_squash_own_potential(const cri_squash_params *prm, cr_vec3 p) {
    cr_potential f = cri_skeleton_potential(prm->prims, prm->count, p);
    return prm->grid == NULL ? f : add_grid(prm, f, p);
}

/* Whether skin vertex v's group is split (it blends with two groups that collide with each other). */
static inline bool split_at(const cri_squash_params *prm, uint32_t v) {
    return prm->split_mask != 0 && prm->vertex_group != NULL && ((prm->split_mask >> prm->vertex_group[v]) & 1u);
}

cr_real cri_squash_split_weight(const cri_squash_params *prm, uint32_t v) {
    if (!split_at(prm, v)) return 0;
    uint32_t g = prm->vertex_group[v];
    cr_vec3 p = prm->cooked[v];
    cr_real da = cri_skeleton_group_distance(prm->cooked_prims, prm->count, 1u << prm->split_a[g], p);
    cr_real db = cri_skeleton_group_distance(prm->cooked_prims, prm->count, 1u << prm->split_b[g], p);
    /* r = d_a / (d_a + d_b): 0 on a's cores, 1 on b's, continuous; w its smoothstep over [lo, hi] (C1) */
    cr_real r = da + db > 0 ? cr_div(da, da + db) : CR_R(0.5);
    cr_real t = cr_clamp(cr_div(r - prm->split_lo[g], prm->split_hi[g] - prm->split_lo[g]), 0, CR_R(1));
    return cr_mul(cr_mul(t, t), CR_R(3) - 2 * t);
}

/* The hot path's own potential of vertex v (inlined where the skin is deformed); w: its split weight. */
static inline cr_potential own_at(const cri_squash_params *prm, uint32_t v, cr_vec3 p, cr_real w) {
    cr_potential f;
    if (prm->vertex_group == NULL) {
        f = cri_skeleton_potential(prm->prims, prm->count, p);
    } else if (!split_at(prm, v)) {
        f = cri_skeleton_potential_groups(prm->prims, prm->count, prm->blend[prm->vertex_group[v]], p);
    } else {
        /* a split vertex: (1 - w) of a's side field, w of b's (each the groups both blend with) */
        uint32_t g = prm->vertex_group[v], ma = prm->blend[g] & prm->blend[prm->split_a[g]], mb = prm->blend[g] & prm->blend[prm->split_b[g]];
        if (w <= 0) f = cri_skeleton_potential_groups(prm->prims, prm->count, ma, p);
        else if (w >= CR_R(1)) f = cri_skeleton_potential_groups(prm->prims, prm->count, mb, p);
        else {
            cr_potential fa = cri_skeleton_potential_groups(prm->prims, prm->count, ma, p);
            cr_potential fb = cri_skeleton_potential_groups(prm->prims, prm->count, mb, p);
            f.f = fa.f + cr_mul(w, fb.f - fa.f);
            f.grad = cr_v3_add(fa.grad, cr_v3_scale(cr_v3_sub(fb.grad, fa.grad), w));
        }
    }
    return prm->grid == NULL ? f : add_grid(prm, f, p);
}

cr_potential cri_squash_vertex_potential(const cri_squash_params *prm, uint32_t v, cr_vec3 p) {
    return own_at(prm, v, p, cri_squash_split_weight(prm, v));
}

uint32_t cri_squash_split_build(cri_squash_params *prm, const uint32_t *triangles, uint32_t triangle_count) {
    prm->split_mask = 0;
    if (prm->vertex_group == NULL) return 0;
    uint32_t present = 0, collide[CR_SQUASH_MAX_GROUPS] = {0};
    for (uint32_t i = 0; i < prm->count; ++i) {
        uint32_t g = prm->prims[i].group;
        present |= 1u << g;
        if (g < CR_SQUASH_MAX_GROUPS) collide[g] = prm->prims[i].collide;
    }
    for (uint32_t g = 0; g < CR_SQUASH_MAX_GROUPS; ++g) {
        if (!((present >> g) & 1u)) continue;
        /* the first pair (a < b) g blends with that collide with each other; more pairs keep the old rule */
        uint32_t a = CR_SQUASH_MAX_GROUPS, b = CR_SQUASH_MAX_GROUPS;
        for (uint32_t x = 0; x < CR_SQUASH_MAX_GROUPS && a == CR_SQUASH_MAX_GROUPS; ++x)
            for (uint32_t y = x + 1; y < CR_SQUASH_MAX_GROUPS; ++y)
                if (x != g && y != g && ((prm->blend[g] >> x) & 1u) && ((prm->blend[g] >> y) & 1u) && ((collide[x] >> y) & 1u)) {
                    a = x, b = y;
                    break;
                }
        if (a == CR_SQUASH_MAX_GROUPS) continue;
        prm->split_a[g] = (uint8_t)a, prm->split_b[g] = (uint8_t)b;
        /* lo: the largest r of g's vertices on the border with a's; hi: the smallest on b's */
        cr_real lo = -CR_R(1), hi = CR_R(2);
        prm->split_lo[g] = 0, prm->split_hi[g] = CR_R(1);
        prm->split_mask |= 1u << g;
        for (uint32_t t = 0; t < triangle_count; ++t)
            for (int j = 0; j < 3; ++j) {
                const uint32_t e[2] = {triangles[3 * t + j], triangles[3 * t + (j + 1) % 3]};
                for (int side = 0; side < 2; ++side) {
                    const uint32_t u = e[side], o = e[1 - side];
                    if (prm->vertex_group[u] != g || (prm->vertex_group[o] != a && prm->vertex_group[o] != b)) continue;
                    cr_vec3 pc = prm->cooked[u];
                    cr_real da = cri_skeleton_group_distance(prm->cooked_prims, prm->count, 1u << a, pc);
                    cr_real db = cri_skeleton_group_distance(prm->cooked_prims, prm->count, 1u << b, pc);
                    cr_real r = da + db > 0 ? cr_div(da, da + db) : CR_R(0.5);
                    if (prm->vertex_group[o] == a) lo = cr_max(lo, r);
                    else hi = cr_min(hi, r);
                }
            }
        if (lo < 0 || hi > CR_R(1) || lo >= hi) {
            prm->split_mask &= ~(1u << g); /* no border with one side, or the two borders' ranges overlap */
            continue;
        }
        prm->split_lo[g] = lo, prm->split_hi[g] = hi;
    }
    return prm->split_mask;
}

void cri_squash_grid_print(const cri_squash_params *prm, cr_real *grid, cr_vec3 p, cr_real d, cr_real floor) {
    int32_t i[3];
    cr_real t[3];
    if (grid == NULL || !grid_cell(prm, p, i, t)) return;
    const int32_t nx = prm->grid_dims[0], nxy = nx * prm->grid_dims[1];
    cr_real *g = grid + (size_t)(i[2] * nxy + i[1] * nx + i[0]);
    for (int c = 0; c < 8; ++c) {
        int a = c & 1, b = (c >> 1) & 1, e = (c >> 2) & 1;
        cr_real w = cr_mul(a ? t[0] : CR_R(1) - t[0], cr_mul(b ? t[1] : CR_R(1) - t[1], e ? t[2] : CR_R(1) - t[2]));
        cr_real *n = &g[e * nxy + b * nx + a];
        *n = cr_max(*n + cr_mul(d, w), floor);
    }
}

/* One other's term added to F1: compression where g >= c, else the bulge of height s x hz on [c1, c]. */
static void add_other(const cri_squash_params *prm, cr_potential *f, cr_potential g, cr_real c1, cr_real hz, cr_real scale,
                      cr_real *dfds) {
    cr_real d, slope;
    if (g.f >= prm->c) {
        d = prm->c - g.f, slope = -CR_R(1);
    } else {
        cr_real m = peak_of(prm, c1);
        d = cri_squash_bulge(g.f, c1, m, cr_mul(scale, hz), prm->c, &slope);
        if (dfds) *dfds += cr_mul(hz, bulge_unit(g.f, c1, m, prm->c));
    }
    f->f += d;
    f->grad = cr_v3_mad(f->grad, slope, g.grad);
}

/* The ring's bump per unit s at p: unit x 16 t^2 (1 - t)^2 and its gradient. B and B' vanish at t = 0 and t = 1,
 * so the ring joins the rest skin C1 at both borders whatever s is. */
static cr_potential ring_unit(const cri_squash_ring *ring, cr_vec3 p) {
    cr_potential out = {0, {0, 0, 0}};
    cr_vec3 d = cr_v3_sub(p, ring->centre);
    cr_real r2 = cr_v3_len_sq(d);
    if (r2 <= cr_sq(ring->r0) || r2 >= cr_sq(ring->r0 + ring->width)) return out;
    cr_real r = cr_sqrt(r2), t = cr_div(r - ring->r0, ring->width), u = CR_R(1) - t;
    out.f = cr_mul(ring->unit, 16 * cr_mul(cr_mul(t, t), cr_mul(u, u)));
    cr_real slope = cr_div(cr_mul(ring->unit, 32 * cr_mul(cr_mul(t, u), u - t)), ring->width);
    out.grad = cr_v3_scale(d, cr_div(slope, r));
    return out;
}

cr_potential cri_squash_ring_term(const cri_squash_ring *ring, cr_real s, cr_vec3 p) {
    cr_potential out = {0, {0, 0, 0}};
    if (!ring->on) return out;
    cr_potential u = ring_unit(ring, p);
    out.f = cr_mul(s, u.f), out.grad = cr_v3_scale(u.grad, s);
    return out;
}

static cr_potential deformed(const cri_squash_params *prm, const cri_squash_skin *skin, uint32_t z,
                             const cri_squash_other *others, uint32_t n_others, cr_real scale, cr_vec3 p, cr_real *dfds) {
    const uint32_t v = skin->zone[z];
    cr_potential f = own_at(prm, v, p, split_at(prm, v) ? cri_squash_split_weight(prm, v) : 0);
    if (dfds) *dfds = 0;
    /* with the ring on, s is the ring's and the bulge keeps its held scale */
    const cr_real sb = prm->ring.on ? prm->ring.bulge : scale;
    for (uint32_t k = 0; k < n_others; ++k) {
        cr_real c1 = skin->zone_c1[z * CRI_SQUASH_MAX_OTHERS + k];
        if (c1 <= 0) continue; /* this other does not reach the vertex */
        add_other(prm, &f, cri_squash_other_potential(&others[k], p), c1, skin->zone_h[z * CRI_SQUASH_MAX_OTHERS + k], sb,
                  prm->ring.on ? NULL : dfds);
    }
    if (prm->ring.on) {
        cr_potential u = ring_unit(&prm->ring, p);
        f.f += cr_mul(scale, u.f);
        f.grad = cr_v3_mad(f.grad, scale, u.grad);
        if (dfds) *dfds += u.f;
    }
    return f;
}

cr_potential cri_squash_deformed_potential(const cri_squash_params *prm, const cri_squash_skin *skin, uint32_t z,
                                           const cri_squash_other *others, uint32_t n_others, cr_real scale,
                                           cr_vec3 p) {
    return deformed(prm, skin, z, others, n_others, scale, p, NULL);
}

/* Twice the signed volume of a triangle's tetrahedron with the origin, times 3 (= 6 V). */
static cr_real tet6(cr_vec3 a, cr_vec3 b, cr_vec3 c) { return cr_v3_dot(a, cr_v3_cross(b, c)); }

/* Where a pass starts each zone vertex: at rest, or where the last pass left
 * it moved ds (a change of s) along the direction the first pass recorded; FROM_REST_SCANNED is FROM_REST at s = 0 whose first evaluation
 * the scan already made (F1 in pos[v].x, dF1/ds in pos[v].y, its gradient in
 * zone_dir: both free until this pass writes them), the same numbers. */
typedef enum place_start { FROM_REST, FROM_MODEL, FROM_REST_SCANNED } place_start;
/* What a pass leaves besides the positions: the deformed normals at the final points;
 * the deformed normals from each vertex's last evaluation (the start of its
 * last Newton step: a pass that starts on the model's guess ends a second-order
 * correction away, so the normal is the same to well under a degree, and one
 * evaluation per vertex is saved); or (the first pass) each vertex's dy/ds in
 * zone_dir (parked in normals too, for the volume model, until a later pass
 * writes the normals), the first-order model's direction. */
typedef enum place_out { OUT_NORMALS, OUT_NORMALS_NEAR, OUT_DIRECTION } place_out;

/* The triangles that touch the zone, each once (from its lowest-numbered
 * zone vertex), listed in skin->candidates (free once the scan is done) so
 * the volume passes do not walk the vertex -> triangle lists again. */
static uint32_t zone_triangles(const cri_squash_skin *skin, uint32_t zone_count, uint32_t *work) {
    uint32_t n = 0;
    for (uint32_t z = 0; z < zone_count; ++z) {
        uint32_t v = skin->zone[z];
        for (uint32_t k = skin->tri_start[v]; k < skin->tri_start[v + 1]; ++k) {
            const uint32_t *t = &skin->triangles[3 * skin->tri_list[k]];
            bool first = true;
            for (int j = 0; j < 3; ++j)
                if (t[j] < v && skin->mark[t[j]]) first = false;
            if (first) skin->candidates[n++] = skin->tri_list[k];
        }
        *work += skin->tri_start[v + 1] - skin->tri_start[v];
    }
    return n;
}

/* The volume change (m^3) over the zone's triangles. */
static cr_real zone_volume(const cri_squash_skin *skin, uint32_t tri_count, uint32_t *work) {
    cr_real six = 0;
    for (uint32_t i = 0; i < tri_count; ++i) {
        const uint32_t *t = &skin->triangles[3 * skin->candidates[i]];
        cr_vec3 a = skin->mark[t[0]] ? skin->pos[t[0]] : skin->rest[t[0]];
        cr_vec3 b = skin->mark[t[1]] ? skin->pos[t[1]] : skin->rest[t[1]];
        cr_vec3 c = skin->mark[t[2]] ? skin->pos[t[2]] : skin->rest[t[2]];
        six += tet6(a, b, c) - tet6(skin->rest[t[0]], skin->rest[t[1]], skin->rest[t[2]]);
    }
    *work += tri_count;
    return cr_div(six, CR_R(6));
}

/* The volume change if every zone vertex moved to pos + s dir (an
 * OUT_DIRECTION pass's, parked in normals too: read by vertex here), as the
 * cubic k[0] + k[1] s + k[2] s^2 + k[3] s^3 (m^3): each tetrahedron's triple
 * product is trilinear in its corners. */
static void zone_volume_cubic(const cri_squash_skin *skin, uint32_t tri_count, cr_real k[4], uint32_t *work) {
    cr_real six[4] = {0, 0, 0, 0};
    for (uint32_t i = 0; i < tri_count; ++i) {
        const uint32_t *t = &skin->triangles[3 * skin->candidates[i]];
        cr_vec3 p[3], d[3];
        for (int j = 0; j < 3; ++j) {
            bool in = skin->mark[t[j]] != 0;
            p[j] = in ? skin->pos[t[j]] : skin->rest[t[j]];
            d[j] = in ? skin->normals[t[j]] : cr_v3_zero();
        }
        cr_vec3 bc = cr_v3_cross(p[1], p[2]), bd = cr_v3_cross(d[1], d[2]);
        cr_vec3 mixed = cr_v3_add(cr_v3_cross(d[1], p[2]), cr_v3_cross(p[1], d[2]));
        six[0] += cr_v3_dot(p[0], bc) - tet6(skin->rest[t[0]], skin->rest[t[1]], skin->rest[t[2]]);
        six[1] += cr_v3_dot(d[0], bc) + cr_v3_dot(p[0], mixed);
        six[2] += cr_v3_dot(p[0], bd) + cr_v3_dot(d[0], mixed);
        six[3] += cr_v3_dot(d[0], bd);
    }
    *work += tri_count;
    for (int j = 0; j < 4; ++j) k[j] = cr_div(six[j], CR_R(6));
}

static cr_real cubic_at(const cr_real k[4], cr_real s) { return k[0] + cr_mul(s, k[1] + cr_mul(s, k[2] + cr_mul(s, k[3]))); }
static cr_real cubic_slope(const cr_real k[4], cr_real s) { return k[1] + cr_mul(s, 2 * k[2] + cr_mul(s, 3 * k[3])); }

/* The s in [0, s_max] where the cubic reaches target, given k[0] < target:
 * Newton kept inside a bracket, halving it where Newton would leave it;
 * s_max if the cubic stays below. */
static cr_real cubic_root(const cr_real k[4], cr_real target, cr_real s_max) {
    if (cubic_at(k, s_max) <= target) return s_max;
    cr_real lo = 0, hi = s_max, s = k[1] > 0 ? cr_clamp(cr_div(target - k[0], k[1]), 0, s_max) : cr_half(s_max);
    for (int it = 0; it < 24; ++it) {
        cr_real v = cubic_at(k, s) - target;
        if (v < 0) lo = s;
        else hi = s;
        if (hi - lo <= cr_mul(CR_R(1e-5), s_max)) break;
        cr_real d = cubic_slope(k, s), next = cr_half(lo + hi);
        if (d > 0) {
            cr_real n = s - cr_div(v, d);
            if (n > lo && n < hi) next = n;
        }
        if (next == s) break;
        s = next;
    }
    return s;
}

/* Put every zone vertex on F1 = c for bulge scale s (Newton along the
 * gradient, at most `steps`, stopping where |F1 - c| is within tol: a
 * warm start often lands there at once); returns the volume change (m^3) if
 * volume is set, else 0. */
static cr_real place(const cri_squash_params *prm, cri_squash_skin *skin, const cri_squash_other *others, uint32_t n_others,
                     uint32_t zone_count, uint32_t tri_count, cr_real s, cr_real ds, place_start start, place_out out,
                     uint32_t steps, bool volume, uint32_t *work) {
    const cr_real tol = cr_mul(prm->c, CRI_SQUASH_NEWTON_TOL);
    uint32_t evals = 0;
    for (uint32_t z = 0; z < zone_count; ++z) {
        uint32_t v = skin->zone[z];
        cr_vec3 y = start == FROM_REST || start == FROM_REST_SCANNED ? skin->rest[v]
                    : cr_v3_mad(skin->pos[v], ds, skin->zone_dir[z]);
        cr_potential f = {0, {0, 0, 0}};
        cr_real dfds = 0;
        bool fresh = false; /* f is F1 at y as it now is */
        for (uint32_t it = 0; it < steps; ++it) {
            if (it == 0 && start == FROM_REST_SCANNED) f.f = skin->pos[v].x, dfds = skin->pos[v].y, f.grad = skin->zone_dir[z];
            else f = deformed(prm, skin, z, others, n_others, s, y, out == OUT_DIRECTION ? &dfds : NULL), ++evals;
            fresh = true;
            if (cr_abs(prm->c - f.f) <= tol) break;
            cr_real g2 = cr_v3_len_sq(f.grad);
            if (g2 <= CR_REAL_EPS) break;
            /* where the two gradients nearly cancel (deep inside a squishy other) a full Newton step
             * shoots off: no step longer than max_step, and Newton converges from there */
            cr_vec3 d = cr_v3_scale(f.grad, cr_div(prm->c - f.f, g2));
            if (cr_v3_len_sq(d) > cr_sq(prm->max_step)) d = cr_v3_scale(d, cr_div(prm->max_step, cr_v3_len(d)));
            y = cr_v3_add(y, d), fresh = false;
        }
        /* the normals are the final point's; the model's direction may be the last step's start (it is a first guess) */
        if (out == OUT_NORMALS && !fresh) f = deformed(prm, skin, z, others, n_others, s, y, NULL), ++evals;
        skin->pos[v] = y;
        if (out == OUT_NORMALS || out == OUT_NORMALS_NEAR) {
            cr_vec3 n = cr_v3_normalize(cr_v3_neg(f.grad));
            skin->normals[v] = (n.x == 0 && n.y == 0 && n.z == 0) ? skin->rest_normals[v] : n;
        } else if (out == OUT_DIRECTION) {
            /* F1(y + u ds, s + ds) = c to first order, u along the gradient */
            cr_real g2 = cr_v3_len_sq(f.grad);
            skin->zone_dir[z] = g2 > CR_REAL_EPS ? cr_v3_scale(f.grad, -cr_div(dfds, g2)) : cr_v3_zero();
            skin->normals[v] = skin->zone_dir[z];
        }
    }
    *work += evals * (1u + n_others);
    return volume ? zone_volume(skin, tri_count, work) : 0;
}

static int32_t clampi(int32_t v, int32_t lo, int32_t hi) { return v < lo ? lo : (v > hi ? hi : v); }

static uint32_t cell_index(const cri_squash_cells *g, cr_vec3 p) {
    cr_vec3 d = cr_v3_sub(p, g->origin);
    int32_t cx = clampi(cr_floor_int(cr_mul(d.x, g->inv_cell)), 0, g->dims[0] - 1);
    int32_t cy = clampi(cr_floor_int(cr_mul(d.y, g->inv_cell)), 0, g->dims[1] - 1);
    int32_t cz = clampi(cr_floor_int(cr_mul(d.z, g->inv_cell)), 0, g->dims[2] - 1);
    return ((uint32_t)cz * (uint32_t)g->dims[1] + (uint32_t)cy) * (uint32_t)g->dims[0] + (uint32_t)cx;
}

uint32_t cri_squash_cells_build(const cr_vec3 *rest, uint32_t n, uint32_t max_cells, cri_squash_cells *g, uint32_t *start,
                                uint32_t *vertex) {
    memset(g, 0, sizeof *g);
    if (n == 0 || max_cells == 0) return 0;
    cr_vec3 lo = rest[0], hi = rest[0];
    for (uint32_t v = 1; v < n; ++v) lo = cr_v3_min(lo, rest[v]), hi = cr_v3_max(hi, rest[v]);
    const cr_real ext[3] = {hi.x - lo.x, hi.y - lo.y, hi.z - lo.z};
    /* 64 cells along the longest side at most, fewer until they fit */
    cr_real cell = cr_max(cr_max(ext[0], cr_max(ext[1], ext[2])) / 64, CR_R(1e-3));
    uint64_t cells;
    for (;;) {
        g->inv_cell = cr_div(CR_R(1), cell);
        cells = 1;
        for (int k = 0; k < 3; ++k) {
            g->dims[k] = cr_floor_int(cr_mul(ext[k], g->inv_cell)) + 1;
            cells *= (uint64_t)g->dims[k];
        }
        if (cells <= max_cells) break;
        cell = 2 * cell;
    }
    g->origin = lo;
    uint32_t nc = (uint32_t)cells;
    memset(start, 0, (nc + 1) * sizeof(uint32_t));
    /* counting sort by cell (vertices ascending within a cell) */
    for (uint32_t v = 0; v < n; ++v) start[cell_index(g, rest[v]) + 1]++;
    for (uint32_t c = 0; c < nc; ++c) start[c + 1] += start[c];
    for (uint32_t v = 0; v < n; ++v) vertex[start[cell_index(g, rest[v])]++] = v;
    for (uint32_t c = nc; c > 0; --c) start[c] = start[c - 1]; /* the fill moved each start to the next cell's */
    start[0] = 0;
    g->start = start, g->vertex = vertex;
    return nc;
}

static bool near_any(const cri_squash_other *others, const cr_real *radius, uint32_t n_others, cr_vec3 x) {
    for (uint32_t k = 0; k < n_others; ++k)
        if (cr_v3_len_sq(cr_v3_sub(x, others[k].bound_centre)) < cr_sq(radius[k])) return true;
    return false;
}

/* The vertices within radius[k] of some other's centre: through the cells
 * under the union of their boxes, or by testing every vertex. Returns the count. */
static uint32_t candidates(cri_squash_skin *skin, const cri_squash_other *others, const cr_real *radius, uint32_t n_others,
                           uint32_t *work) {
    uint32_t n = 0;
    const cri_squash_cells *g = skin->cells;
    if (g == NULL || g->start == NULL) {
        for (uint32_t v = 0; v < skin->vertex_count; ++v)
            if (near_any(others, radius, n_others, skin->rest[v])) skin->candidates[n++] = v;
        *work += skin->vertex_count;
        return n;
    }
    if (n_others == 0) return 0;
    cr_vec3 lo = others[0].bound_centre, hi = others[0].bound_centre;
    for (uint32_t k = 0; k < n_others; ++k) {
        cr_real r = radius[k];
        lo = cr_v3_min(lo, cr_v3_sub(others[k].bound_centre, cr_v3(r, r, r)));
        hi = cr_v3_max(hi, cr_v3_add(others[k].bound_centre, cr_v3(r, r, r)));
    }
    int32_t c0[3], c1[3];
    const cr_real l[3] = {lo.x - g->origin.x, lo.y - g->origin.y, lo.z - g->origin.z};
    const cr_real h[3] = {hi.x - g->origin.x, hi.y - g->origin.y, hi.z - g->origin.z};
    for (int k = 0; k < 3; ++k) {
        /* a box wholly outside the grid on one axis holds no vertex */
        if (h[k] < 0 || cr_floor_int(cr_mul(l[k], g->inv_cell)) >= g->dims[k]) return 0;
        c0[k] = clampi(cr_floor_int(cr_mul(l[k], g->inv_cell)), 0, g->dims[k] - 1);
        c1[k] = clampi(cr_floor_int(cr_mul(h[k], g->inv_cell)), 0, g->dims[k] - 1);
    }
    for (int32_t z = c0[2]; z <= c1[2]; ++z)
        for (int32_t y = c0[1]; y <= c1[1]; ++y)
            for (int32_t x = c0[0]; x <= c1[0]; ++x) {
                uint32_t c = ((uint32_t)z * (uint32_t)g->dims[1] + (uint32_t)y) * (uint32_t)g->dims[0] + (uint32_t)x;
                *work += 1 + (g->start[c + 1] - g->start[c]);
                for (uint32_t i = g->start[c]; i < g->start[c + 1]; ++i)
                    if (near_any(others, radius, n_others, skin->rest[g->vertex[i]])) skin->candidates[n++] = g->vertex[i];
            }
    return n;
}

/* Whether skin vertex v sees other o: a part of the body's own skeleton (self-contact, seed §4.2) is another body
 * only to the vertices of the groups it collides with (a split group's vertices blend with both sides, weighted,
 * and are pressed by no part of their own skeleton: the shoulder is never dented by its own arm). */
static inline bool sees(const cri_squash_params *prm, const cri_squash_other *o, uint32_t v) {
    return o->applies == 0 || prm->vertex_group == NULL || ((o->applies >> prm->vertex_group[v]) & 1u);
}

/* The ring's bump B = 16 t^2 (1 - t)^2 rises at most 32 x 0.0962 = 3.079 per unit t (at t = (1 - 1/sqrt 3) / 2). */
#define RING_MAX_SLOPE CR_R(3.08)

/* The second ring (squash.h, cri_squash_ring): the skin vertices around the zone (zone_count of them in skin->zone)
 * by distance from its centre on the body's own rest skin, r0 < r < r0 + width, appended to the zone with no other's
 * term (c1 = 0). The zone's centre is its vertices' mean rest place, r0 just past the farthest of them, and the ring
 * as wide as r0: the bump's room grows with its width squared, and a ring wider than the zone would reach round a
 * small body. The vertices of a group that presses (self-contact: the arm) are not part of it. Returns the vertices
 * added (0: none, or the ring would not fit in the zone's capacity) and the ring's fold limit in *limit: its rise
 * s x unit x 3.08 / width must stay under 0.8 |grad f1| at every ring vertex, as the bulge's does. */
static uint32_t ring_setup(cri_squash_params *prm, cri_squash_skin *skin, const cri_squash_other *others, uint32_t n_others,
                           uint32_t zone_count, cr_real bulge, cr_real unit, cr_real *limit, uint32_t *work) {
    *limit = 0;
    if (zone_count == 0 || unit <= 0) return 0;
    cr_vec3 centre = cr_v3_zero();
    for (uint32_t z = 0; z < zone_count; ++z) centre = cr_v3_add(centre, skin->rest[skin->zone[z]]);
    centre = cr_v3_scale(centre, cr_div(CR_R(1), cr_from_int((int32_t)zone_count)));
    cr_real r0sq = 0;
    for (uint32_t z = 0; z < zone_count; ++z) r0sq = cr_max(r0sq, cr_v3_len_sq(cr_v3_sub(skin->rest[skin->zone[z]], centre)));
    const cr_real r0 = cr_sqrt(r0sq) + CR_R(1e-4), width = r0;
    uint32_t pressing = 0; /* groups of the body's own skeleton that press it (self-contact) */
    for (uint32_t k = 0; k < n_others; ++k)
        if (others[k].depth > 0) pressing |= others[k].prim_groups;
    cri_squash_other around;
    memset(&around, 0, sizeof around);
    around.bound_centre = centre;
    const cr_real outer = r0 + width;
    uint32_t nc = candidates(skin, &around, &outer, 1, work), added = 0;
    for (uint32_t i = 0; i < nc; ++i) {
        uint32_t v = skin->candidates[i];
        if (skin->mark[v] || cr_v3_len_sq(cr_v3_sub(skin->rest[v], centre)) <= cr_sq(r0)) continue;
        if (pressing != 0 && prm->vertex_group != NULL && ((pressing >> prm->vertex_group[v]) & 1u)) continue;
        skin->candidates[added++] = v; /* compacted in place: i >= added */
    }
    if (added == 0 || zone_count + added > skin->zone_capacity) return 0;
    cr_real g1min = CR_REAL_MAX;
    for (uint32_t i = 0; i < added; ++i) {
        uint32_t v = skin->candidates[i], z = zone_count + i;
        cr_potential f1 = own_at(prm, v, skin->rest[v], split_at(prm, v) ? cri_squash_split_weight(prm, v) : 0);
        g1min = cr_min(g1min, cr_v3_len(f1.grad));
        for (uint32_t k = 0; k < CRI_SQUASH_MAX_OTHERS; ++k)
            skin->zone_c1[z * CRI_SQUASH_MAX_OTHERS + k] = 0, skin->zone_h[z * CRI_SQUASH_MAX_OTHERS + k] = 0;
        skin->zone[z] = v;
        skin->mark[v] = 1;
    }
    *work += added;
    prm->ring.on = 1, prm->ring.bulge = bulge, prm->ring.centre = centre, prm->ring.r0 = r0, prm->ring.width = width;
    prm->ring.unit = unit;
    *limit = cr_min(cr_div(cr_mul(cr_mul(CR_R(0.8), g1min), width), cr_mul(RING_MAX_SLOPE, unit)), CRI_SQUASH_MAX_SCALE);
    return added;
}

/* Which vertices the others reach, with each one's c1 and height factor. */
static uint32_t scan(const cri_squash_params *prm, cri_squash_skin *skin, cri_squash_other *others, uint32_t n_others,
                     uint32_t *dropped, uint32_t *work, cr_real *fold, cr_real width) {
    uint32_t count = 0;
    /* the lowest c1 any vertex can get: c0 / 2 (behind the other body), or the widened floor */
    const cr_real c0_min = width > CR_R(1) ? cr_mul(prm->c, CRI_SQUASH_C1_FLOOR) : cr_half(prm->c0);
    /* Where a rigid other's potential reaches c0_min and c: its bound less the
     * reach is a sphere holding the body, so a point rho from the centre is at
     * least rho - inner from it, and f2 = scale (1 - d / reach)^2 is below
     * c0_min past inner + reach (1 - sqrt(c0_min / scale)), below c outside
     * inner (scale = c). The candidates are the vertices in the smaller
     * sphere, not the whole reach: 3.9k -> 1.7k vertices under the bench's
     * ball. A plane or a skeleton keeps its bound. */
    cr_real zone_r[CRI_SQUASH_MAX_OTHERS], inside_r[CRI_SQUASH_MAX_OTHERS];
    for (uint32_t k = 0; k < n_others; ++k) {
        zone_r[k] = inside_r[k] = others[k].bound_radius;
        if (others[k].kind != CRI_SQUASH_OTHER_SHAPE || others[k].shape->type == CR_SHAPE_PLANE || others[k].scale <= 0) continue;
        cr_real inner = cr_max(others[k].bound_radius - others[k].reach, 0);
        cr_real fall = cr_mul(others[k].reach, CR_R(1) - cr_sqrt(cr_div(c0_min, others[k].scale)));
        zone_r[k] = cr_min(others[k].bound_radius, inner + cr_max(fall, 0) + CR_R(1e-4));
        inside_r[k] = cr_min(others[k].bound_radius, inner + CR_R(1e-4));
    }
    /* first the compression depth of each other: the zone grows with it */
    for (uint32_t k = 0; k < n_others; ++k) others[k].depth = 0;
    uint32_t nc = candidates(skin, others, zone_r, n_others, work);
    for (uint32_t i = 0; i < nc; ++i)
        for (uint32_t k = 0; k < n_others; ++k) {
            uint32_t v = skin->candidates[i];
            if (!sees(prm, &others[k], v)) continue;
            if (cr_v3_len_sq(cr_v3_sub(skin->rest[v], others[k].bound_centre)) >= cr_sq(inside_r[k])) continue;
            cr_real f2 = cri_squash_other_potential(&others[k], skin->rest[v]).f;
            ++*work;
            if (f2 - prm->c > others[k].depth) others[k].depth = f2 - prm->c;
        }
    cr_real ramp[CRI_SQUASH_MAX_OTHERS];
    cr_vec3 vdir[CRI_SQUASH_MAX_OTHERS]; /* D2's direction (0: at rest, no direction dependence) */
    for (uint32_t k = 0; k < n_others; ++k) {
        cr_real dl = cr_v3_len(others[k].velocity);
        vdir[k] = dl > CR_R(1e-6) ? cr_v3_scale(others[k].velocity, cr_div(CR_R(1), dl)) : cr_v3_zero();
    }
    for (uint32_t k = 0; k < n_others; ++k)
        ramp[k] = cr_mul(cr_min(CR_R(1), cr_div(4 * others[k].depth, prm->c - prm->c0)), width);
    for (uint32_t i = 0; i < nc; ++i) {
        uint32_t v = skin->candidates[i];
        cr_vec3 x = skin->rest[v];
        cr_real c1s[CRI_SQUASH_MAX_OTHERS], hs[CRI_SQUASH_MAX_OTHERS], gmax[CRI_SQUASH_MAX_OTHERS], rise[CRI_SQUASH_MAX_OTHERS];
        cr_potential gs[CRI_SQUASH_MAX_OTHERS];
        bool any = false;
        for (uint32_t k = 0; k < n_others; ++k) {
            c1s[k] = 0, hs[k] = 0;
            if (!sees(prm, &others[k], v)) continue;
            if (cr_v3_len_sq(cr_v3_sub(x, others[k].bound_centre)) >= cr_sq(zone_r[k])) continue;
            cr_potential g = cri_squash_other_potential(&others[k], x);
            ++*work;
            if (g.f < c0_min) continue;
            /* direction dependence: cos of D2 against the direction from the other to x */
            cr_real cosa = 0, gl = cr_v3_len(g.grad);
            if (gl > CR_R(1e-6)) cosa = cr_div(-cr_v3_dot(vdir[k], g.grad), gl);
            cr_real c1 = cr_mul(prm->c0, CR_R(1) + cr_half(cr_clamp(cosa, -CR_R(1), CR_R(1))));
            /* the zone opens with the compression, so the skin does not jump when the contact starts */
            cr_real c1z = cr_max(prm->c - cr_mul(prm->c - c1, ramp[k]), cr_mul(prm->c, CRI_SQUASH_C1_FLOOR));
            if (others[k].depth <= 0 || g.f < c1z || c1z >= prm->c) continue;
            c1s[k] = c1z;
            hs[k] = cr_div(prm->c - prm->c0, prm->c - c1);
            /* The rise this vertex can meet: b1' = 6 h t (1 - t) / (m - c1) at t = (f2 - c1) / (m - c1), times
             * |grad f2|. The bulge moves a vertex outwards, towards the other (f2 grows: t only grows), so the
             * steepest rise it can meet is the largest of 6 t (1 - t) from its rest t on: 1.5 up to the middle
             * of the first cubic, less past it, 0 past the peak (the falling cubic's slope, <= 0, adds to
             * grad f1 and cannot fold). Those past the middle are next to the contact, where the other's
             * potential is steepest: bounding them by the middle's rise capped the bulge too early at depth. */
            cr_real mz = peak_of(prm, c1z), t = cr_div(g.f - c1z, mz - c1z);
            rise[k] = t <= CR_R(0.5) ? CR_R(1.5) : (t >= CR_R(1) ? 0 : cr_mul(6 * t, CR_R(1) - t));
            gmax[k] = gl;
            gs[k] = g;
            any = true;
        }
        if (!any) continue;
        if (count == skin->zone_capacity) {
            ++*dropped;
            continue;
        }
        /* the bulge's rise the vertex can meet (above; at most 3h / 2 (m - c1)) times |grad f2| must stay below
         * 0.8 |grad f1|, or the deformed gradient turns round there and the skin folds over */
        cr_potential f1 = own_at(prm, v, x, split_at(prm, v) ? cri_squash_split_weight(prm, v) : 0);
        cr_real g1 = cr_v3_len(f1.grad);
        ++*work;
        for (uint32_t k = 0; k < n_others; ++k) {
            if (c1s[k] <= 0 || gmax[k] <= CR_R(1e-6) || rise[k] <= 0) continue;
            cr_real room = cr_div(cr_mul(cr_mul(CR_R(0.8), peak_of(prm, c1s[k]) - c1s[k]), g1), cr_mul(rise[k], gmax[k]));
            cr_real per = cr_div(room, hs[k]); /* the largest height per unit depth here */
            if (per < *fold) *fold = per;
        }
        for (uint32_t k = 0; k < CRI_SQUASH_MAX_OTHERS; ++k) {
            skin->zone_c1[count * CRI_SQUASH_MAX_OTHERS + k] = k < n_others ? c1s[k] : 0;
            skin->zone_h[count * CRI_SQUASH_MAX_OTHERS + k] = k < n_others ? hs[k] : 0;
        }
        /* the first pass's first evaluation (at rest, s = 0) from what is at hand: the same numbers */
        cr_real dfds = 0;
        for (uint32_t k = 0; k < n_others; ++k)
            if (c1s[k] > 0) add_other(prm, &f1, gs[k], c1s[k], cr_mul(hs[k], others[k].depth), 0, &dfds);
        skin->pos[v] = cr_v3(f1.f, dfds, 0), skin->zone_dir[count] = f1.grad;
        skin->zone[count++] = v;
        skin->mark[v] = 1;
    }
    /* the height factor becomes a height per unit scale: h = s x depth x factor */
    cr_real depth = 0;
    for (uint32_t k = 0; k < n_others; ++k) depth = cr_max(depth, others[k].depth);
    for (uint32_t z = 0; z < count; ++z)
        for (uint32_t k = 0; k < n_others; ++k) {
            cr_real *h = &skin->zone_h[z * CRI_SQUASH_MAX_OTHERS + k];
            *h = cr_mul(*h, others[k].depth);
        }
    /* fold was a height per unit of a factor; as a scale it is per unit depth */
    *fold = depth > 0 ? cr_div(*fold, depth) : 0;
    return count;
}

cri_squash_result cri_squash_deform(const cri_squash_params *prm, cri_squash_skin *skin, cri_squash_other *others,
                                    uint32_t n_others, const uint32_t *prev, uint32_t prev_count) {
    cri_squash_result r;
    memset(&r, 0, sizeof r);
    if (n_others > CRI_SQUASH_MAX_OTHERS) n_others = CRI_SQUASH_MAX_OTHERS;
    for (uint32_t k = 0; k < n_others; ++k) others[k].rot = cr_mat3_from_quat(others[k].to_other.q);
    /* the skin returns to rest where the last step's zone was */
    for (uint32_t k = 0; k < prev_count; ++k) {
        skin->pos[prev[k]] = skin->rest[prev[k]];
        skin->normals[prev[k]] = skin->rest_normals[prev[k]];
    }
    r.work += prev_count;
    /* a zone too narrow for the bulge that would give the volume back folds
     * before it gets there: then the zone widens (its width x1.5, twice at most) */
    cri_squash_params p = *prm;
    memset(&p.ring, 0, sizeof p.ring); /* the ring is this step's own (a caller may pass the last result's in) */
    /* a later pass starts near its answer (the model's guess or the last pass): one Newton step fewer */
    const uint32_t warm_steps = 1;
    p.max_step = CR_REAL_MAX;
    for (uint32_t i = 0; i < p.count; ++i) p.max_step = cr_min(p.max_step, cr_mul(CR_R(0.25), p.prims[i].radius));
    uint32_t zc = 0;
    /* the zone starts as wide as the last step suggested (widen_next: a contact that needed a wider zone
     * nearly always still does, and a restart costs a whole scan and pass) */
    cr_real width = CR_R(1), widen = CR_R(1);
    int widened = 0, narrowed = 0;
    for (; widened < 2 && widen < prm->widen_hint - CR_R(0.01); ++widened) widen = cr_mul(widen, CR_R(1.5)); /* hints are 1, 1.5, 2.25 */
    bool grow = false;
    /* every restart below raises widened (<= 2) or narrowed (<= 4): at most 7 attempts, and the last one always
     * ends with its final pass (a loop cut short would leave a probe's skin in place) */
    for (int attempt = 0;; ++attempt) {
        if (attempt > 0) {
            for (uint32_t z = 0; z < zc; ++z) {
                uint32_t v = skin->zone[z];
                skin->mark[v] = 0, skin->pos[v] = skin->rest[v], skin->normals[v] = skin->rest_normals[v];
            }
            if (grow) widen = cr_mul(widen, CR_R(1.5)), ++widened;
            else width = narrowed < 3 ? cr_half(width) : 0, ++narrowed;
            r.zone_dropped = 0;
        }
        cr_real fold = CRI_SQUASH_MAX_SCALE;
        zc = scan(&p, skin, others, n_others, &r.zone_dropped, &r.work, &fold, cr_mul(width, widen));
        cr_real s_max = cr_min(fold, CRI_SQUASH_MAX_SCALE);
        r.scale_limit = s_max, r.zone_count = zc, r.widen = widen;
        r.scale = 0, r.dv = r.dv_compressed = 0;
        if (zc == 0) {
            r.widen = CR_R(1);
            break;
        }
        uint32_t nt = zone_triangles(skin, zc, &r.work);
        /* compression alone, from rest; each vertex's dy/ds recorded */
        place(&p, skin, others, n_others, zc, nt, 0, 0, FROM_REST_SCANNED, OUT_DIRECTION, p.newton_steps, false, &r.work);
        cr_real k[4];
        zone_volume_cubic(skin, nt, k, &r.work);
        cr_real dv0 = k[0];
        r.dv_compressed = dv0;
        /* b1's slope of -1 at c makes a small bump even at h = 0: where that alone
         * outgrows the compressed volume (a contact just begun), the zone narrows */
        if (p.fixed_scale < 0 && dv0 > 0 && narrowed < 4) {
            grow = false;
            continue;
        }
        if (p.fixed_scale >= 0 || dv0 >= 0) {
            r.scale = p.fixed_scale >= 0 ? cr_min(p.fixed_scale, s_max) : 0;
            r.dv = place(&p, skin, others, n_others, zc, nt, r.scale, r.scale, FROM_MODEL, OUT_NORMALS_NEAR, warm_steps, true, &r.work);
            break;
        }
        /* The volume as a function of s, to first order in each vertex's
         * motion, is the cubic k (exact in the tetrahedra): its root is the
         * scale, a pass starts each vertex there; where that lands more than
         * 2 % of the compression off the target or above rest (the model
         * misses the bulge's bend by a few %), one step along the cubic's
         * slope, each vertex moved along its direction again. The normals
         * come with the last pass. */
        cr_real target = cr_mul(dv0, cr_max(p.volume_loss, CRI_SQUASH_VOLUME_MARGIN));
        cr_real off = cr_mul(CR_R(0.02), -dv0);
        if (cubic_at(k, s_max) < target && widened < 2) {
            /* short of the target at the fold limit: a wider zone */
            grow = true;
            continue;
        }
        if (widened >= 2 && cubic_at(k, s_max) < target - off) {
            /* Even the widest zone's bulge at its fold limit gives back too little (its zone ends where the other's
             * potential does): the bulge stays at its fold limit and a second ring round the zone, on the body's
             * own skin, takes the rest; from here s is the ring's (a first pass records each vertex's dy/ds, the
             * cubic model and the passes below run as for the bulge). */
            cr_real unit = 0, ring_limit = 0;
            for (uint32_t j = 0; j < n_others; ++j) unit = cr_max(unit, others[j].depth);
            uint32_t added = ring_setup(&p, skin, others, n_others, zc, s_max, unit, &ring_limit, &r.work);
            zc += added;
            nt = zone_triangles(skin, zc, &r.work); /* the setup used the triangle list's memory */
            if (added > 0) {
                r.zone_count = zc, r.ring_count = added;
                place(&p, skin, others, n_others, zc, nt, 0, 0, FROM_REST, OUT_DIRECTION, p.newton_steps, false, &r.work);
                zone_volume_cubic(skin, nt, k, &r.work);
                s_max = ring_limit;
            }
        }
        /* the model falls short by about as much as it did in the last step (the bulge's bend): aim that much lower */
        cr_real bias = cr_clamp(p.model_bias, 0, CR_R(0.1));
        cr_real s1 = cubic_root(k, target - cr_mul(bias, -dv0), s_max);
        cr_real v1 = place(&p, skin, others, n_others, zc, nt, s1, s1, FROM_MODEL, OUT_NORMALS_NEAR, warm_steps, true, &r.work);
        r.model_bias = cr_clamp(cr_div(v1 - cubic_at(k, s1), -dv0), 0, CR_R(0.1));
        if (s1 == s_max && v1 < target - off && widened < 2) {
            /* the model reached the fold limit and the volume is still short: wider */
            grow = true;
            continue;
        }
        if (v1 > 0 || cr_abs(v1 - target) > off) {
            cr_real slope = cubic_slope(k, s1);
            cr_real s2 = slope > 0 ? cr_clamp(s1 + cr_div(target - v1, slope), 0, s_max) : 0;
            cr_real v2 = place(&p, skin, others, n_others, zc, nt, s2, s2 - s1, FROM_MODEL, OUT_NORMALS_NEAR, warm_steps, true, &r.work);
            if (v2 <= 0 && (v1 > 0 || cr_abs(v2 - target) < cr_abs(v1 - target))) s1 = s2, v1 = v2;
            else if (v1 <= 0) v1 = place(&p, skin, others, n_others, zc, nt, s1, s1 - s2, FROM_MODEL, OUT_NORMALS_NEAR, warm_steps, true, &r.work);
            /* the last resort is the compression alone, placed from rest as dV0 was: the same numbers, so never above
             * rest (the ring off: its vertices stay at rest) */
            if (v1 > 0) p.ring.on = 0, s1 = 0, v1 = place(&p, skin, others, n_others, zc, nt, 0, 0, FROM_REST, OUT_NORMALS, p.newton_steps, true, &r.work);
        }
        r.scale = s1;
        r.dv = v1;
        /* the next step starts this wide if the bulge still needs most of the fold limit's room here; with room
         * to spare, one step narrower (and widens again if that falls short) */
        r.widen_next = widened > 0 && s1 < cr_half(s_max) && !p.ring.on ? cr_div(widen, CR_R(1.5)) : widen;
        r.ring = p.ring;
        break;
    }
    for (uint32_t z = 0; z < zc; ++z) skin->mark[skin->zone[z]] = 0;
    return r;
}

cr_vec3 cri_squash_contact_force(const cri_squash_params *prm, const cri_squash_skin *skin, const cri_squash_other *o,
                                 uint32_t zone_count, cr_real stiffness, cr_real vertex_area, cr_vec3 *point,
                                 uint32_t *work) {
    cr_vec3 force = cr_v3_zero(), at = cr_v3_zero();
    cr_real k = cr_mul(stiffness, vertex_area), wsum = 0;
    for (uint32_t z = 0; z < zone_count; ++z) {
        uint32_t v = skin->zone[z];
        if (cr_v3_len_sq(cr_v3_sub(skin->rest[v], o->bound_centre)) >= cr_sq(o->bound_radius)) continue;
        cr_potential g = cri_squash_other_potential(o, skin->rest[v]);
        ++*work;
        if (g.f <= prm->c) continue;
        force = cr_v3_mad(force, -cr_mul(g.f - prm->c, k), skin->rest_normals[v]);
        at = cr_v3_mad(at, g.f - prm->c, skin->rest[v]);
        wsum += g.f - prm->c;
    }
    *point = wsum > 0 ? cr_v3_scale(at, cr_div(CR_R(1), wsum)) : cr_v3_zero();
    return force;
}
