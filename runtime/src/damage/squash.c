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
        out = cri_skeleton_potential(o->prims, o->count, q);
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

cr_potential cri_squash_deformed_potential(const cri_squash_params *prm, const cri_squash_skin *skin, uint32_t z,
                                           const cri_squash_other *others, uint32_t n_others, cr_real scale,
                                           cr_vec3 p) {
    cr_potential f = cri_skeleton_potential(prm->prims, prm->count, p);
    for (uint32_t k = 0; k < n_others; ++k) {
        cr_real c1 = skin->zone_c1[z * CRI_SQUASH_MAX_OTHERS + k];
        if (c1 <= 0) continue; /* this other does not reach the vertex */
        cr_potential g = cri_squash_other_potential(&others[k], p);
        cr_real d, slope;
        if (g.f >= prm->c) {
            d = prm->c - g.f, slope = -CR_R(1);
        } else {
            cr_real h = cr_mul(scale, skin->zone_h[z * CRI_SQUASH_MAX_OTHERS + k]);
            cr_real m = c1 + cr_mul(prm->peak, prm->c - c1);
            d = cri_squash_bulge(g.f, c1, m, h, prm->c, &slope);
        }
        f.f += d;
        f.grad = cr_v3_mad(f.grad, slope, g.grad);
    }
    return f;
}

/* Twice the signed volume of a triangle's tetrahedron with the origin, times 3 (= 6 V). */
static cr_real tet6(cr_vec3 a, cr_vec3 b, cr_vec3 c) { return cr_v3_dot(a, cr_v3_cross(b, c)); }

/* Put every zone vertex on F1 = c for bulge scale s; returns the volume change
 * (m^3) over the triangles that touch the zone. */
static cr_real place(const cri_squash_params *prm, cri_squash_skin *skin, const cri_squash_other *others,
                     uint32_t n_others, uint32_t zone_count, cr_real s, bool normals, bool warm, uint32_t *work) {
    /* a later pass of the same step starts where the last one left each vertex, one step nearer: one Newton step fewer */
    uint32_t steps = warm && prm->newton_steps > 1 ? prm->newton_steps - 1 : prm->newton_steps;
    for (uint32_t z = 0; z < zone_count; ++z) {
        uint32_t v = skin->zone[z];
        cr_vec3 y = warm ? skin->pos[v] : skin->rest[v];
        cr_potential f = {0, {0, 0, 0}};
        for (uint32_t it = 0; it < steps; ++it) {
            f = cri_squash_deformed_potential(prm, skin, z, others, n_others, s, y);
            cr_real g2 = cr_v3_len_sq(f.grad);
            if (g2 <= CR_REAL_EPS) break;
            /* where the two gradients nearly cancel (deep inside a squishy other) a full Newton step
             * shoots off: no step longer than max_step, and Newton converges from there */
            cr_vec3 d = cr_v3_scale(f.grad, cr_div(prm->c - f.f, g2));
            if (cr_v3_len_sq(d) > cr_sq(prm->max_step)) d = cr_v3_scale(d, cr_div(prm->max_step, cr_v3_len(d)));
            y = cr_v3_add(y, d);
        }
        skin->pos[v] = y;
        if (normals) {
            f = cri_squash_deformed_potential(prm, skin, z, others, n_others, s, y);
            cr_vec3 n = cr_v3_normalize(cr_v3_neg(f.grad));
            skin->normals[v] = (n.x == 0 && n.y == 0 && n.z == 0) ? skin->rest_normals[v] : n;
        }
    }
    *work += zone_count * (steps + (normals ? 1u : 0u)) * (1u + n_others);
    /* each triangle once: from its lowest-numbered zone vertex */
    cr_real six = 0;
    for (uint32_t z = 0; z < zone_count; ++z) {
        uint32_t v = skin->zone[z];
        for (uint32_t k = skin->tri_start[v]; k < skin->tri_start[v + 1]; ++k) {
            const uint32_t *t = &skin->triangles[3 * skin->tri_list[k]];
            bool first = true;
            for (int j = 0; j < 3; ++j)
                if (t[j] < v && skin->mark[t[j]]) first = false;
            if (!first) continue;
            cr_vec3 a = skin->mark[t[0]] ? skin->pos[t[0]] : skin->rest[t[0]];
            cr_vec3 b = skin->mark[t[1]] ? skin->pos[t[1]] : skin->rest[t[1]];
            cr_vec3 c = skin->mark[t[2]] ? skin->pos[t[2]] : skin->rest[t[2]];
            six += tet6(a, b, c) - tet6(skin->rest[t[0]], skin->rest[t[1]], skin->rest[t[2]]);
        }
        *work += skin->tri_start[v + 1] - skin->tri_start[v];
    }
    return cr_div(six, CR_R(6));
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

static bool near_any(const cri_squash_other *others, uint32_t n_others, cr_vec3 x) {
    for (uint32_t k = 0; k < n_others; ++k)
        if (cr_v3_len_sq(cr_v3_sub(x, others[k].bound_centre)) < cr_sq(others[k].bound_radius)) return true;
    return false;
}

/* The vertices within some other's bound: through the cells under the union
 * of their boxes, or by testing every vertex. Returns the count. */
static uint32_t candidates(cri_squash_skin *skin, const cri_squash_other *others, uint32_t n_others, uint32_t *work) {
    uint32_t n = 0;
    const cri_squash_cells *g = skin->cells;
    if (g == NULL || g->start == NULL) {
        for (uint32_t v = 0; v < skin->vertex_count; ++v)
            if (near_any(others, n_others, skin->rest[v])) skin->candidates[n++] = v;
        *work += skin->vertex_count;
        return n;
    }
    if (n_others == 0) return 0;
    cr_vec3 lo = others[0].bound_centre, hi = others[0].bound_centre;
    for (uint32_t k = 0; k < n_others; ++k) {
        cr_real r = others[k].bound_radius;
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
                    if (near_any(others, n_others, skin->rest[g->vertex[i]])) skin->candidates[n++] = g->vertex[i];
            }
    return n;
}

/* Which vertices the others reach, with each one's c1 and height factor. */
static uint32_t scan(const cri_squash_params *prm, cri_squash_skin *skin, cri_squash_other *others, uint32_t n_others,
                     uint32_t *dropped, uint32_t *work, cr_real *fold, cr_real width) {
    uint32_t count = 0;
    /* the lowest c1 any vertex can get: c0 / 2 (behind the other body), or the widened floor */
    const cr_real c0_min = width > CR_R(1) ? cr_mul(prm->c, CRI_SQUASH_C1_FLOOR) : cr_half(prm->c0);
    /* first the compression depth of each other: the zone grows with it */
    for (uint32_t k = 0; k < n_others; ++k) others[k].depth = 0;
    uint32_t nc = candidates(skin, others, n_others, work);
    for (uint32_t i = 0; i < nc; ++i)
        for (uint32_t k = 0; k < n_others; ++k) {
            uint32_t v = skin->candidates[i];
            if (cr_v3_len_sq(cr_v3_sub(skin->rest[v], others[k].bound_centre)) >= cr_sq(others[k].bound_radius)) continue;
            cr_real f2 = cri_squash_other_potential(&others[k], skin->rest[v]).f;
            ++*work;
            if (f2 - prm->c > others[k].depth) others[k].depth = f2 - prm->c;
        }
    cr_real ramp[CRI_SQUASH_MAX_OTHERS];
    for (uint32_t k = 0; k < n_others; ++k)
        ramp[k] = cr_mul(cr_min(CR_R(1), cr_div(4 * others[k].depth, prm->c - prm->c0)), width);
    for (uint32_t i = 0; i < nc; ++i) {
        uint32_t v = skin->candidates[i];
        cr_vec3 x = skin->rest[v];
        cr_real c1s[CRI_SQUASH_MAX_OTHERS], hs[CRI_SQUASH_MAX_OTHERS], gmax[CRI_SQUASH_MAX_OTHERS];
        bool any = false;
        for (uint32_t k = 0; k < n_others; ++k) {
            cr_potential g = cri_squash_other_potential(&others[k], x);
            c1s[k] = 0, hs[k] = 0;
            ++*work;
            if (g.f < c0_min) continue;
            /* direction dependence: cos of D2 against the direction from the other to x */
            cr_real cosa = 0, dl = cr_v3_len(others[k].velocity), gl = cr_v3_len(g.grad);
            if (dl > CR_R(1e-6) && gl > CR_R(1e-6))
                cosa = cr_div(cr_div(-cr_v3_dot(others[k].velocity, g.grad), dl), gl);
            cr_real c1 = cr_mul(prm->c0, CR_R(1) + cr_half(cr_clamp(cosa, -CR_R(1), CR_R(1))));
            /* the zone opens with the compression, so the skin does not jump when the contact starts */
            cr_real c1z = cr_max(prm->c - cr_mul(prm->c - c1, ramp[k]), cr_mul(prm->c, CRI_SQUASH_C1_FLOOR));
            if (others[k].depth <= 0 || g.f < c1z || c1z >= prm->c) continue;
            c1s[k] = c1z;
            hs[k] = cr_div(prm->c - prm->c0, prm->c - c1);
            /* only the dilation's own vertices climb the first cubic */
            gmax[k] = g.f < prm->c ? gl : 0;
            any = true;
        }
        if (!any) continue;
        if (count == skin->zone_capacity) {
            ++*dropped;
            continue;
        }
        /* the bulge's steepest rise (3h / 2 (m - c1) on the first cubic) times |grad f2| must stay below
         * 0.8 |grad f1|, or the deformed gradient turns round there and the skin folds over */
        cr_real g1 = cr_v3_len(cri_skeleton_potential(prm->prims, prm->count, x).grad);
        ++*work;
        for (uint32_t k = 0; k < n_others; ++k) {
            if (c1s[k] <= 0 || gmax[k] <= CR_R(1e-6)) continue;
            cr_real room = cr_div(cr_mul(cr_mul(prm->peak, prm->c - c1s[k]), g1), cr_mul(CR_R(1.875), gmax[k]));
            cr_real per = cr_div(room, hs[k]); /* the largest height per unit depth here */
            if (per < *fold) *fold = per;
        }
        for (uint32_t k = 0; k < CRI_SQUASH_MAX_OTHERS; ++k) {
            skin->zone_c1[count * CRI_SQUASH_MAX_OTHERS + k] = k < n_others ? c1s[k] : 0;
            skin->zone_h[count * CRI_SQUASH_MAX_OTHERS + k] = k < n_others ? hs[k] : 0;
        }
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
    p.max_step = CR_REAL_MAX;
    for (uint32_t i = 0; i < p.count; ++i) p.max_step = cr_min(p.max_step, cr_mul(CR_R(0.25), p.prims[i].radius));
    uint32_t zc = 0;
    cr_real width = CR_R(1), widen = CR_R(1);
    int widened = 0, narrowed = 0;
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
        if (zc == 0) break;
        cr_real dv0 = place(&p, skin, others, n_others, zc, 0, false, false, &r.work);
        r.dv_compressed = dv0;
        /* b1's slope of -1 at c makes a small bump even at h = 0: where that alone
         * outgrows the compressed volume (a contact just begun), the zone narrows */
        if (p.fixed_scale < 0 && dv0 > 0 && narrowed < 4) {
            grow = false;
            continue;
        }
        if (p.fixed_scale >= 0 || dv0 >= 0) {
            r.scale = p.fixed_scale >= 0 ? cr_min(p.fixed_scale, s_max) : 0;
            r.dv = place(&p, skin, others, n_others, zc, r.scale, true, true, &r.work);
            break;
        }
        /* The volume the bulge gives back is close to linear in s: one probe,
         * the line through it and s = 0, then the final pass; a secant step
         * only if the curve's bend took the volume above rest. */
        cr_real target = cr_mul(dv0, cr_max(p.volume_loss, CRI_SQUASH_VOLUME_MARGIN));
        cr_real sp = cr_min(p.scale_hint > 0 && widened == 0 ? p.scale_hint : CR_R(1), s_max);
        cr_real vp = place(&p, skin, others, n_others, zc, sp, false, true, &r.work);
        if (vp < target && sp == s_max && widened < 2) {
            /* short of the target at the fold limit: a wider zone */
            grow = true;
            continue;
        }
        cr_real s1 = vp > dv0 ? cr_clamp(cr_mul(sp, cr_div(target - dv0, vp - dv0)), 0, s_max) : 0;
        cr_real v1 = place(&p, skin, others, n_others, zc, s1, true, true, &r.work);
        if (s1 == s_max && v1 < target - cr_mul(CR_R(0.02), -dv0) && widened < 2) {
            /* the line led to the fold limit and the volume is still short (a hint below the limit): wider */
            grow = true;
            continue;
        }
        if (v1 <= 0 && cr_abs(v1 - target) > cr_mul(CR_R(0.02), -dv0) && v1 != vp) {
            /* more than 2 % of the compression off: one secant step, kept if it is closer and not above rest */
            cr_real s2 = cr_clamp(s1 + cr_mul(cr_div(target - v1, v1 - vp), s1 - sp), 0, s_max);
            cr_real v2 = place(&p, skin, others, n_others, zc, s2, true, true, &r.work);
            if (v2 <= 0 && cr_abs(v2 - target) < cr_abs(v1 - target)) s1 = s2, v1 = v2;
            else v1 = place(&p, skin, others, n_others, zc, s1, true, true, &r.work);
        }
        if (v1 > 0) {
            /* overshot: the secant through the probe and s1, or back to the probe if it was not above rest */
            cr_real s2 = v1 != vp ? cr_clamp(s1 + cr_mul(cr_div(target - v1, v1 - vp), s1 - sp), 0, s_max) : sp;
            cr_real v2 = place(&p, skin, others, n_others, zc, s2, true, true, &r.work);
            if (v2 > 0) s2 = vp <= 0 && sp < s1 ? sp : 0, v2 = place(&p, skin, others, n_others, zc, s2, true, true, &r.work);
            /* the last resort is the compression alone, placed from rest as dV0 was: the same numbers, so never above rest */
            if (v2 > 0) s2 = 0, v2 = place(&p, skin, others, n_others, zc, 0, true, false, &r.work);
            s1 = s2, v1 = v2;
        }
        r.scale = s1;
        r.dv = v1;
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
