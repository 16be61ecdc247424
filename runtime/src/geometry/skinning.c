/* skinning.c — bone frames blended about their pivots: skinned positions and
 * their Jacobian with respect to the example weights (skinning.h). */
#include "geometry/skinning.h"

void cri_skin_example_frame(const cr_asset *a, uint32_t bone, uint32_t e, cr_quat *q, cr_vec3 *t) {
    cr_transform x = a->examples[e * a->bone_count + bone];
    cr_vec3 c = a->bones[bone].rest.p;
    /* q and -q turn alike; QLERP needs every example on the rest's side */
    if (x.q.w < 0) x.q.x = -x.q.x, x.q.y = -x.q.y, x.q.z = -x.q.z, x.q.w = -x.q.w;
    *q = x.q;
    *t = cr_v3_sub(cr_transform_point(x, c), c);
}

void cri_skin_example_frames(const cr_asset *a, cr_skin_frame *frames) {
    for (uint32_t e = 0; e < a->example_count; ++e)
        for (uint32_t b = 0; b < a->bone_count; ++b)
            cri_skin_example_frame(a, b, e, &frames[e * a->bone_count + b].q, &frames[e * a->bone_count + b].t);
}

/* One bone's QLERP blend: the unnormalised quaternion sum and the pivot's translation. */
static void blend(const cr_asset *a, const cr_skin_frame *frames, uint32_t bone, const cr_real *weights, cr_quat *r,
                  cr_vec3 *t) {
    cr_quat s = {0, 0, 0, 0};
    cr_vec3 tt = cr_v3_zero();
    for (uint32_t e = 0; e < a->example_count; ++e) {
        cr_real w = weights[e];
        if (w == 0) continue;
        cr_quat q;
        cr_vec3 te;
        if (frames != NULL) q = frames[e * a->bone_count + bone].q, te = frames[e * a->bone_count + bone].t;
        else cri_skin_example_frame(a, bone, e, &q, &te);
        s.x += cr_mul(w, q.x), s.y += cr_mul(w, q.y), s.z += cr_mul(w, q.z), s.w += cr_mul(w, q.w);
        tt = cr_v3_mad(tt, w, te);
    }
    *r = s, *t = tt;
}

static cr_real qdot(cr_quat a, cr_quat b) { return cr_mul(a.x, b.x) + cr_mul(a.y, b.y) + cr_mul(a.z, b.z) + cr_mul(a.w, b.w); }

/* R(r/|r|) v; the rest pose when the sum vanished (all weight on nothing). */
static cr_vec3 rotate(cr_quat r, cr_real n2, cr_vec3 v) {
    if (n2 <= 0) return v;
    cr_real inv = cr_rsqrt(n2);
    cr_quat q = {cr_mul(r.x, inv), cr_mul(r.y, inv), cr_mul(r.z, inv), cr_mul(r.w, inv)};
    return cr_quat_rotate(q, v);
}

/* Bone b's blend for `weights`: QLERP's normalised quaternion as R - I
 * (2 s [v]x + 2 [v]x^2 for the unit q = (v, s): exact zero for the identity,
 * so the rest pose adds nothing), and the blended translation. */
static void make_blend(const cr_asset *a, const cr_skin_frame *frames, uint32_t b, const cr_real *weights,
                       cr_skin_blend *out) {
    cr_quat r;
    blend(a, frames, b, weights, &r, &out->t);
    cr_real n2 = qdot(r, r);
    if (n2 <= 0) { /* all weight on nothing: the rest pose */
        for (int k = 0; k < 9; ++k) out->m[k] = 0;
        return;
    }
    cr_real inv = cr_rsqrt(n2);
    cr_real x = cr_mul(r.x, inv), y = cr_mul(r.y, inv), z = cr_mul(r.z, inv), w = cr_mul(r.w, inv);
    cr_real xx = cr_mul(x, x), yy = cr_mul(y, y), zz = cr_mul(z, z);
    cr_real xy = cr_mul(x, y), xz = cr_mul(x, z), yz = cr_mul(y, z), wx = cr_mul(w, x), wy = cr_mul(w, y), wz = cr_mul(w, z);
    out->m[0] = -2 * (yy + zz), out->m[1] = 2 * (xy - wz), out->m[2] = 2 * (xz + wy);
    out->m[3] = 2 * (xy + wz), out->m[4] = -2 * (xx + zz), out->m[5] = 2 * (yz - wx);
    out->m[6] = 2 * (xz - wy), out->m[7] = 2 * (yz + wx), out->m[8] = -2 * (xx + yy);
}

/* x += W (t + M (u - c)) */
static cr_vec3 apply_blend(cr_vec3 x, cr_real wk, const cr_skin_blend *bl, cr_vec3 u, cr_vec3 c) {
    cr_vec3 d = cr_v3_sub(u, c);
    const cr_real *m = bl->m;
    cr_vec3 md = cr_v3(cr_mul(m[0], d.x) + cr_mul(m[1], d.y) + cr_mul(m[2], d.z),
                       cr_mul(m[3], d.x) + cr_mul(m[4], d.y) + cr_mul(m[5], d.z),
                       cr_mul(m[6], d.x) + cr_mul(m[7], d.y) + cr_mul(m[8], d.z));
    return cr_v3_mad(x, wk, cr_v3_add(bl->t, md));
}

cr_vec3 cri_skin_example_point(const cr_asset *a, const cr_skin_frame *frames, uint32_t v, cr_vec3 u,
                              const cr_real *weights) {
    /* summed as displacements from u: the rest pose gives u bit for bit, and
     * the cooked weights' rounding (sum 1 +- an ulp) cannot move a vertex */
    cr_vec3 x = cr_v3_zero();
    for (uint32_t k = 0; k < CR_ASSET_SKIN_SLOTS; ++k) {
        cr_real wk = a->skin_weight[CR_ASSET_SKIN_SLOTS * v + k];
        if (wk == 0) continue;
        uint32_t b = a->skin_bone[CR_ASSET_SKIN_SLOTS * v + k];
        cr_skin_blend bl;
        make_blend(a, frames, b, weights, &bl);
        x = apply_blend(x, wk, &bl, u, a->bones[b].rest.p);
    }
    return cr_v3_add(u, x);
}

void cri_skin_cache_init(cr_skin_cache *c, cr_skin_blend *bones, const cr_asset *a) {
    c->bones = bones;
    c->stamp = 0;
    c->examples = a->example_count;
    for (uint32_t b = 0; b < a->bone_count; ++b) bones[b].stamp = 0;
    for (uint32_t e = 0; e < CR_ASSET_MAX_EXAMPLES; ++e) c->row[e] = 0;
}

cr_vec3 cri_skin_example_point_cached(const cr_asset *a, const cr_skin_frame *frames, cr_skin_cache *cache, uint32_t v,
                                     cr_vec3 u, const cr_real *weights) {
    bool same = cache->stamp != 0;
    for (uint32_t e = 0; e < cache->examples && same; ++e) same = weights[e] == cache->row[e];
    if (!same) {
        for (uint32_t e = 0; e < cache->examples; ++e) cache->row[e] = weights[e];
        cache->stamp++;
    }
    cr_vec3 x = cr_v3_zero();
    for (uint32_t k = 0; k < CR_ASSET_SKIN_SLOTS; ++k) {
        cr_real wk = a->skin_weight[CR_ASSET_SKIN_SLOTS * v + k];
        if (wk == 0) continue;
        uint32_t b = a->skin_bone[CR_ASSET_SKIN_SLOTS * v + k];
        cr_skin_blend *bl = &cache->bones[b];
        if (bl->stamp != cache->stamp) {
            make_blend(a, frames, b, weights, bl);
            bl->stamp = cache->stamp;
        }
        x = apply_blend(x, wk, bl, u, a->bones[b].rest.p);
    }
    return cr_v3_add(u, x);
}

void cri_skin_example_points(const cr_asset *a, const cr_skin_frame *frames, cr_skin_cache *cache, uint32_t first,
                             uint32_t end, const cr_real *rows, cr_vec3 *out) {
    /* cri_skin_example_point_cached for a range, in one loop: the same
     * operations in the same order (so the same bits), without a call, a
     * returned vector and the vector helpers' temporaries per vertex; this is
     * what the model's re-skin runs over each run of changed rows */
    const uint32_t ne = cache->examples;
    const cr_real *sw = a->skin_weight;
    const uint8_t *sb = a->skin_bone;
    const cr_asset_bone *bones = a->bones;
    cr_skin_blend *blends = cache->bones;
    for (uint32_t v = first; v < end; ++v) {
        const cr_real *row = rows + (size_t)v * ne;
        bool same = cache->stamp != 0;
        for (uint32_t e = 0; e < ne && same; ++e) same = row[e] == cache->row[e];
        if (!same) {
            for (uint32_t e = 0; e < ne; ++e) cache->row[e] = row[e];
            cache->stamp++;
        }
        const cr_vec3 u = a->positions[v];
        cr_real x = 0, y = 0, z = 0;
        for (uint32_t k = 0; k < CR_ASSET_SKIN_SLOTS; ++k) {
            cr_real wk = sw[CR_ASSET_SKIN_SLOTS * v + k];
            if (wk == 0) continue;
            uint32_t b = sb[CR_ASSET_SKIN_SLOTS * v + k];
            cr_skin_blend *bl = &blends[b];
            if (bl->stamp != cache->stamp) {
                make_blend(a, frames, b, row, bl);
                bl->stamp = cache->stamp;
            }
            const cr_real *m = bl->m;
            cr_real dx = u.x - bones[b].rest.p.x, dy = u.y - bones[b].rest.p.y, dz = u.z - bones[b].rest.p.z;
            cr_real mx = cr_mul(m[0], dx) + cr_mul(m[1], dy) + cr_mul(m[2], dz);
            cr_real my = cr_mul(m[3], dx) + cr_mul(m[4], dy) + cr_mul(m[5], dz);
            cr_real mz = cr_mul(m[6], dx) + cr_mul(m[7], dy) + cr_mul(m[8], dz);
            x = x + cr_mul(bl->t.x + mx, wk);
            y = y + cr_mul(bl->t.y + my, wk);
            z = z + cr_mul(bl->t.z + mz, wk);
        }
        out[v - first] = cr_v3(u.x + x, u.y + y, u.z + z);
    }
}

void cri_skin_example_jacobian(const cr_asset *a, uint32_t v, cr_vec3 u, const cr_real *weights, cr_vec3 *cols) {
    for (uint32_t e = 0; e < a->example_count; ++e) cols[e] = cr_v3_zero();
    for (uint32_t k = 0; k < CR_ASSET_SKIN_SLOTS; ++k) {
        cr_real wk = a->skin_weight[CR_ASSET_SKIN_SLOTS * v + k];
        if (wk == 0) continue;
        uint32_t b = a->skin_bone[CR_ASSET_SKIN_SLOTS * v + k];
        cr_vec3 c = a->bones[b].rest.p, t;
        cr_quat r;
        blend(a, NULL, b, weights, &r, &t);
        cr_real n2 = qdot(r, r);
        cr_vec3 d = cr_v3_sub(u, c);
        cr_vec3 rv = rotate(r, n2, d);
        cr_real inv_n2 = n2 > 0 ? cr_div(CR_R(1), n2) : 0;
        cr_quat p = {d.x, d.y, d.z, 0};
        cr_quat rc = cr_quat_conj(r);
        for (uint32_t e = 0; e < a->example_count; ++e) {
            cr_quat qe;
            cr_vec3 te;
            cri_skin_example_frame(a, b, e, &qe, &te);
            cr_quat g = cr_quat_mul(cr_quat_mul(qe, p), rc);
            cr_vec3 col = cr_v3_scale(cr_v3(g.x, g.y, g.z), 2 * inv_n2);
            col = cr_v3_sub(col, cr_v3_scale(rv, cr_mul(2 * qdot(r, qe), inv_n2)));
            cols[e] = cr_v3_mad(cols[e], wk, cr_v3_add(te, col));
        }
    }
}

void cri_skin_linear(const cr_asset *a, const uint8_t *bone, const cr_real *weight, const cr_skin_bone *bones,
                     uint32_t first, uint32_t end, cr_vec3 *out) {
    for (uint32_t v = first; v < end; ++v) {
        cr_vec3 u = a->positions[v];
        cr_real x = 0, y = 0, z = 0;
        for (uint32_t s = 0; s < CR_ASSET_SKIN_SLOTS; ++s) {
            cr_real wt = weight[v * CR_ASSET_SKIN_SLOTS + s];
            if (wt == 0) continue;
            const cr_skin_bone *m = &bones[bone[v * CR_ASSET_SKIN_SLOTS + s]];
            cr_real px = cr_mul(m->r.cx.x, u.x) + cr_mul(m->r.cy.x, u.y) + cr_mul(m->r.cz.x, u.z) + m->t.x;
            cr_real py = cr_mul(m->r.cx.y, u.x) + cr_mul(m->r.cy.y, u.y) + cr_mul(m->r.cz.y, u.z) + m->t.y;
            cr_real pz = cr_mul(m->r.cx.z, u.x) + cr_mul(m->r.cy.z, u.y) + cr_mul(m->r.cz.z, u.z) + m->t.z;
            x += cr_mul(wt, px), y += cr_mul(wt, py), z += cr_mul(wt, pz);
        }
        out[v] = cr_v3(x, y, z);
    }
}

/* ---- the grouped layout (structure of arrays, vectorised by the compiler) ---- */

uint32_t cri_skin_layout_capacity(uint32_t nv, uint32_t max_groups) { return nv + max_groups * (CR_SKIN_LANES - 1u); }

/* A vertex's key: its four slots' bones, 255 for a slot of weight 0. */
static uint32_t slot_key(const uint8_t *bone, const cr_real *weight, uint32_t v) {
    uint32_t key = 0;
    for (uint32_t s = 0; s < CR_ASSET_SKIN_SLOTS; ++s)
        key |= (weight[v * CR_ASSET_SKIN_SLOTS + s] == 0 ? 255u : bone[v * CR_ASSET_SKIN_SLOTS + s]) << (8 * s);
    return key;
}

bool cri_skin_layout_build(const cr_vec3 *pos, const uint8_t *bone, const cr_real *weight, uint32_t nv, uint32_t capacity,
                           uint32_t max_groups, uint32_t *tmp, cr_skin_layout *l) {
    /* the vertices sorted by key: four stable counting passes, one per byte (deterministic, no comparisons) */
    uint32_t *a = tmp, *b = tmp + nv, *key = tmp + 2 * (size_t)nv;
    for (uint32_t v = 0; v < nv; ++v) a[v] = v, key[v] = slot_key(bone, weight, v);
    for (uint32_t pass = 0; pass < 4; ++pass) {
        uint32_t count[257] = {0};
        for (uint32_t i = 0; i < nv; ++i) count[((key[a[i]] >> (8 * pass)) & 255u) + 1]++;
        for (uint32_t k = 0; k < 256; ++k) count[k + 1] += count[k];
        for (uint32_t i = 0; i < nv; ++i) b[count[(key[a[i]] >> (8 * pass)) & 255u]++] = a[i];
        uint32_t *t = a;
        a = b, b = t;
    }
    /* runs of one key are the groups, each padded with entries of weight 0 */
    uint32_t n = 0, g = 0;
    for (uint32_t i = 0; i < nv;) {
        uint32_t k0 = key[a[i]], j = i;
        while (j < nv && key[a[j]] == k0) ++j;
        uint32_t padded = (j - i + CR_SKIN_LANES - 1u) / CR_SKIN_LANES * CR_SKIN_LANES;
        if (g == max_groups || n + padded > capacity) return false;
        for (uint32_t s = 0; s < 4; ++s) l->group_bone[4 * g + s] = (uint8_t)(k0 >> (8 * s));
        l->group_end[g++] = n + padded;
        for (uint32_t k = 0; k < padded; ++k, ++n) l->order[n] = k < j - i ? a[i + k] : UINT32_MAX;
        i = j;
    }
    l->count = n;
    l->groups = g;
    for (uint32_t e = 0; e < n; ++e) {
        uint32_t v = l->order[e];
        cr_vec3 u = v != UINT32_MAX ? pos[v] : cr_v3_zero();
        l->u[e] = u.x, l->u[n + e] = u.y, l->u[2 * n + e] = u.z;
        for (uint32_t s = 0; s < 4; ++s) l->w[s * n + e] = v != UINT32_MAX ? weight[v * CR_ASSET_SKIN_SLOTS + s] : 0;
    }
    return true;
}

/* One slot of one group: acc += w (R u + t), the bone uniform, lanes
 * independent: entries [a, end) of separate arrays, so the compiler's
 * vectoriser takes CR_SKIN_LANES entries at a time. */
static void slot_pass(size_t a, size_t end, const cr_real *restrict ux, const cr_real *restrict uy, const cr_real *restrict uz,
                      const cr_real *restrict w, cr_real *restrict ax, cr_real *restrict ay, cr_real *restrict az,
                      const cr_skin_bone *m) {
    const cr_real r0 = m->r.cx.x, r1 = m->r.cy.x, r2 = m->r.cz.x, r3 = m->r.cx.y, r4 = m->r.cy.y, r5 = m->r.cz.y;
    const cr_real r6 = m->r.cx.z, r7 = m->r.cy.z, r8 = m->r.cz.z, tx = m->t.x, ty = m->t.y, tz = m->t.z;
    for (size_t i = a; i < end; i += CR_SKIN_LANES) {
        const cr_real *restrict x = ux + i, *restrict y = uy + i, *restrict z = uz + i, *restrict wt = w + i;
        cr_real *restrict sx = ax + i, *restrict sy = ay + i, *restrict sz = az + i;
        for (size_t k = 0; k < CR_SKIN_LANES; ++k) { /* straight-line lanes: the compiler's SLP vectoriser */
            cr_real px = cr_mul(r0, x[k]) + cr_mul(r1, y[k]) + cr_mul(r2, z[k]) + tx;
            cr_real py = cr_mul(r3, x[k]) + cr_mul(r4, y[k]) + cr_mul(r5, z[k]) + ty;
            cr_real pz = cr_mul(r6, x[k]) + cr_mul(r7, y[k]) + cr_mul(r8, z[k]) + tz;
            sx[k] += cr_mul(wt[k], px), sy[k] += cr_mul(wt[k], py), sz[k] += cr_mul(wt[k], pz);
        }
    }
}

/* A group whose four slots all have a bone (the usual case): the four
 * slots in one pass, the sums kept in registers, written once; per entry
 * the same operations in the same order as slot_pass four times. */
static void four_slot_pass(size_t a, size_t end, size_t n, const cr_real *restrict u, const cr_real *restrict w,
                           cr_real *restrict acc, const cr_skin_bone *const m[4]) {
    cr_real r[4][12];
    for (int s = 0; s < 4; ++s) {
        r[s][0] = m[s]->r.cx.x, r[s][1] = m[s]->r.cy.x, r[s][2] = m[s]->r.cz.x, r[s][3] = m[s]->t.x;
        r[s][4] = m[s]->r.cx.y, r[s][5] = m[s]->r.cy.y, r[s][6] = m[s]->r.cz.y, r[s][7] = m[s]->t.y;
        r[s][8] = m[s]->r.cx.z, r[s][9] = m[s]->r.cy.z, r[s][10] = m[s]->r.cz.z, r[s][11] = m[s]->t.z;
    }
    for (size_t i = a; i < end; i += CR_SKIN_LANES) {
        const cr_real *restrict x = u + i, *restrict y = u + n + i, *restrict z = u + 2 * n + i;
        cr_real *restrict sx = acc + i, *restrict sy = acc + n + i, *restrict sz = acc + 2 * n + i;
        cr_real ox[CR_SKIN_LANES] = {0}, oy[CR_SKIN_LANES] = {0}, oz[CR_SKIN_LANES] = {0};
        for (int s = 0; s < 4; ++s) {
            const cr_real *q = r[s], *restrict wt = w + (size_t)s * n + i;
            for (size_t k = 0; k < CR_SKIN_LANES; ++k) { /* straight-line lanes: the compiler's SLP vectoriser */
                cr_real px = cr_mul(q[0], x[k]) + cr_mul(q[1], y[k]) + cr_mul(q[2], z[k]) + q[3];
                cr_real py = cr_mul(q[4], x[k]) + cr_mul(q[5], y[k]) + cr_mul(q[6], z[k]) + q[7];
                cr_real pz = cr_mul(q[8], x[k]) + cr_mul(q[9], y[k]) + cr_mul(q[10], z[k]) + q[11];
                ox[k] += cr_mul(wt[k], px), oy[k] += cr_mul(wt[k], py), oz[k] += cr_mul(wt[k], pz);
            }
        }
        for (size_t k = 0; k < CR_SKIN_LANES; ++k) sx[k] = ox[k], sy[k] = oy[k], sz[k] = oz[k];
    }
}

void cri_skin_linear_grouped(cr_skin_layout *l, const cr_skin_bone *bones, cr_vec3 *out) {
    uint32_t n = l->count, a = 0;
    for (uint32_t g = 0; g < l->groups; ++g) {
        uint32_t end = l->group_end[g];
        const uint8_t *gb = &l->group_bone[4 * g];
        if (gb[0] != 255 && gb[1] != 255 && gb[2] != 255 && gb[3] != 255) {
            const cr_skin_bone *m[4] = {&bones[gb[0]], &bones[gb[1]], &bones[gb[2]], &bones[gb[3]]};
            four_slot_pass(a, end, n, l->u, l->w, l->acc, m);
            a = end;
            continue;
        }
        /* the sums start at 0, as cri_skin_linear's (0 + w p: the same bits, -0 included) */
        for (uint32_t e = a; e < end; ++e) l->acc[e] = l->acc[n + e] = l->acc[2 * n + e] = 0;
        for (uint32_t s = 0; s < 4; ++s) {
            uint8_t b = l->group_bone[4 * g + s];
            if (b != 255)
                slot_pass(a, end, l->u, l->u + n, l->u + 2 * (size_t)n, l->w + (size_t)s * n, l->acc, l->acc + n,
                          l->acc + 2 * (size_t)n, &bones[b]);
        }
        a = end;
    }
    for (uint32_t e = 0; e < n; ++e) {
        uint32_t v = l->order[e];
        if (v != UINT32_MAX) out[v] = cr_v3(l->acc[e], l->acc[n + e], l->acc[2 * n + e]);
    }
}
