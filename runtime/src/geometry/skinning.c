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
