/* skinning.c — bone frames blended about their pivots: skinned positions and
 * their Jacobian with respect to the example weights (skinning.h). */
#include "geometry/skinning.h"

#include <string.h>

/* The grouped loop's stores (group_slots) transpose four vertices' x, y, z
 * lanes into their 48 packed bytes with SSE shuffles where the compiler has
 * them: data moves only, the arithmetic is the same IEEE operations in the
 * same order, so the same bits as the portable loop. */
#if !CR_FIXED && (defined(__SSE__) || defined(_M_X64))
#include <xmmintrin.h>
#define SKIN_SSE 1
#else
#define SKIN_SSE 0
#endif

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
    c->lanes = NULL;
    for (uint32_t b = 0; b < a->bone_count; ++b) bones[b].stamp = 0, bones[b].wide_stamp = 0;
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

/* cri_skin_example_point_cached for one vertex of a range, in one loop body:
 * the same operations in the same order (so the same bits), without a call,
 * a returned vector and the vector helpers' temporaries */
static cr_vec3 point_cached(const cr_asset *a, const cr_skin_frame *frames, cr_skin_cache *cache, uint32_t v,
                            const cr_real *row) {
    const uint32_t ne = cache->examples;
    bool same = cache->stamp != 0;
    for (uint32_t e = 0; e < ne && same; ++e) same = row[e] == cache->row[e];
    if (!same) {
        for (uint32_t e = 0; e < ne; ++e) cache->row[e] = row[e];
        cache->stamp++;
    }
    const cr_vec3 u = a->positions[v];
    cr_real x = 0, y = 0, z = 0;
    for (uint32_t k = 0; k < CR_ASSET_SKIN_SLOTS; ++k) {
        cr_real wk = a->skin_weight[CR_ASSET_SKIN_SLOTS * v + k];
        if (wk == 0) continue;
        uint32_t b = a->skin_bone[CR_ASSET_SKIN_SLOTS * v + k];
        cr_skin_blend *bl = &cache->bones[b];
        if (bl->stamp != cache->stamp) {
            make_blend(a, frames, b, row, bl);
            bl->stamp = cache->stamp;
        }
        const cr_real *m = bl->m;
        const cr_vec3 c = a->bones[b].rest.p;
        cr_real dx = u.x - c.x, dy = u.y - c.y, dz = u.z - c.z;
        cr_real mx = cr_mul(m[0], dx) + cr_mul(m[1], dy) + cr_mul(m[2], dz);
        cr_real my = cr_mul(m[3], dx) + cr_mul(m[4], dy) + cr_mul(m[5], dz);
        cr_real mz = cr_mul(m[6], dx) + cr_mul(m[7], dy) + cr_mul(m[8], dz);
        x = x + cr_mul(bl->t.x + mx, wk);
        y = y + cr_mul(bl->t.y + my, wk);
        z = z + cr_mul(bl->t.z + mz, wk);
    }
    return cr_v3(u.x + x, u.y + y, u.z + z);
}

/* ---- four vertices at a time (the compiler's vector units) ----
 * A block of L = CR_SKIN_LANES consecutive vertices whose slots agree on
 * their 0 weights (in each slot every lane's weight is 0 or none is) runs
 * lane-parallel: each lane does exactly point_cached's operations in its
 * order, the lanes side by side in straight-line code the SLP vectoriser
 * turns into vector instructions (IEEE +, -, *, /, sqrt are the same bits in
 * a vector lane). Rows equal across the block, where the lanes also share
 * their bones, take the cached blends as vectors; rows that differ (a fade
 * spreads a different row to every vertex) build each lane's QLERP in the
 * lanes from its own bone's frames, where an example's weight is 0 in every
 * lane or in none (blend() skips a 0 weight: a lane cannot, so a mixed
 * block goes vertex by vertex). The rest, and the range's ends off the
 * blocks, take point_cached. */
#define L CR_SKIN_LANES
_Static_assert(sizeof(cr_vec3) == 3 * sizeof(cr_real), "cr_vec3 is three packed reals");

typedef struct lane_block {
    uint32_t slots;        /* slots with weight in every lane (in each slot the weight is 0 in every lane or in none) */
    bool uniform;          /* every lane has the same bone in each of them */
    uint8_t bone[4][L];    /* bone[s][k]: lane k's bone in the s-th of them */
    const cr_real *w;      /* [slots][L] their weights */
    const cr_real *u;      /* [3][L] rest positions */
    cr_real buf[7 * L];    /* room for w and u when gathered here */
} lane_block;

/* The block's influences into lb (bones) and w[slots][L], u[3][L], or false
 * when a slot's weight is 0 in some lanes and not in others (point_cached
 * skips a 0 weight: a lane cannot; the block goes vertex by vertex). */
static bool lane_gather(const cr_asset *a, uint32_t v, lane_block *lb, cr_real *w, cr_real *u) {
    const cr_real *sw = a->skin_weight + (size_t)CR_ASSET_SKIN_SLOTS * v;
    const uint8_t *sb = a->skin_bone + (size_t)CR_ASSET_SKIN_SLOTS * v;
    uint32_t mask[L];
    for (uint32_t k = 0; k < L; ++k) {
        mask[k] = 0;
        for (uint32_t s = 0; s < CR_ASSET_SKIN_SLOTS; ++s) mask[k] |= (uint32_t)(sw[CR_ASSET_SKIN_SLOTS * k + s] != 0) << s;
    }
    if ((mask[1] ^ mask[0]) | (mask[2] ^ mask[0]) | (mask[3] ^ mask[0])) return false;
    lb->slots = 0;
    lb->uniform = true;
    for (uint32_t s = 0; s < CR_ASSET_SKIN_SLOTS; ++s) {
        if (!(mask[0] >> s & 1u)) continue;
        for (uint32_t k = 0; k < L; ++k) {
            w[lb->slots * L + k] = sw[CR_ASSET_SKIN_SLOTS * k + s];
            lb->bone[lb->slots][k] = sb[CR_ASSET_SKIN_SLOTS * k + s];
            lb->uniform &= sb[CR_ASSET_SKIN_SLOTS * k + s] == sb[s];
        }
        lb->slots++;
    }
    const cr_vec3 *p = a->positions + v;
    for (uint32_t k = 0; k < L; ++k) u[k] = p[k].x, u[L + k] = p[k].y, u[2 * L + k] = p[k].z;
    return true;
}

/* ---- the same, gathered once per body (cr_skin_lanes) ---- */

#define LANE_META 24u       /* per block: slot count (255: vertex by vertex), uniform, 6 spare, bone[4][L] */
#define LANE_REALS (7u * L) /* per block: x, y, z, then up to four slots' weights, L each */
#define LANE_EXAMPLES 8u    /* rows of more examples go vertex by vertex (the lanes' rows on a small stack) */

uint64_t cri_skin_lanes_bytes(uint32_t nv) {
    uint64_t blocks = nv / L;
    return ((LANE_META * blocks + 15u) & ~(uint64_t)15u) + blocks * LANE_REALS * sizeof(cr_real);
}

cr_skin_lanes cri_skin_lanes_view(void *mem, uint32_t nv) {
    cr_skin_lanes l;
    l.blocks = nv / L;
    l.meta = (uint8_t *)mem;
    l.data = (cr_real *)((uint8_t *)mem + ((LANE_META * (uint64_t)l.blocks + 15u) & ~(uint64_t)15u));
    return l;
}

void cri_skin_lanes_build(const cr_asset *a, cr_skin_lanes *l) {
    for (uint32_t blk = 0; blk < l->blocks; ++blk) {
        lane_block lb;
        uint8_t *meta = l->meta + LANE_META * (size_t)blk;
        cr_real *d = l->data + (size_t)LANE_REALS * blk;
        for (uint32_t k = 0; k < LANE_REALS; ++k) d[k] = 0;
        for (uint32_t k = 0; k < LANE_META; ++k) meta[k] = 255;
        if (!lane_gather(a, blk * L, &lb, d + 3 * L, d)) continue;
        meta[0] = (uint8_t)lb.slots;
        meta[1] = lb.uniform;
        memcpy(meta + 8, lb.bone, sizeof lb.bone);
    }
}

void cri_skin_lanes_count(const cr_skin_lanes *l, uint32_t *lanes, uint32_t *uniform) {
    *lanes = *uniform = 0;
    for (uint32_t blk = 0; blk < l->blocks; ++blk) {
        const uint8_t *meta = l->meta + LANE_META * (size_t)blk;
        *lanes += meta[0] != 255;
        *uniform += meta[0] != 255 && meta[1] == 1;
    }
}

/* sum += w (t + M (u - c)) in every lane for one blend (point_cached's
 * order): q = the blend's `wide` rows, m[9] then t[3] then c[3] */
static inline void lane_apply(const cr_real (*restrict q)[4], const cr_real *restrict w, const cr_real *restrict u,
                              cr_real (*restrict sum)[L]) {
    for (uint32_t k = 0; k < L; ++k) {
        cr_real dx = u[k] - q[12][k], dy = u[L + k] - q[13][k], dz = u[2 * L + k] - q[14][k];
        cr_real mx = cr_mul(q[0][k], dx) + cr_mul(q[1][k], dy) + cr_mul(q[2][k], dz);
        cr_real my = cr_mul(q[3][k], dx) + cr_mul(q[4][k], dy) + cr_mul(q[5][k], dz);
        cr_real mz = cr_mul(q[6][k], dx) + cr_mul(q[7][k], dy) + cr_mul(q[8][k], dz);
        sum[0][k] = sum[0][k] + cr_mul(q[9][k] + mx, w[k]);
        sum[1][k] = sum[1][k] + cr_mul(q[10][k] + my, w[k]);
        sum[2][k] = sum[2][k] + cr_mul(q[11][k] + mz, w[k]);
    }
}

/* the same with a blend and a pivot per lane: m[9][L], t[3][L], c[3][L] */
static void lane_apply_each(const cr_real (*restrict m)[L], const cr_real (*restrict t)[L], const cr_real (*restrict c)[L],
                            const cr_real *restrict w, const cr_real *restrict u, cr_real (*restrict sum)[L]) {
    for (uint32_t k = 0; k < L; ++k) {
        cr_real dx = u[k] - c[0][k], dy = u[L + k] - c[1][k], dz = u[2 * L + k] - c[2][k];
        cr_real mx = cr_mul(m[0][k], dx) + cr_mul(m[1][k], dy) + cr_mul(m[2][k], dz);
        cr_real my = cr_mul(m[3][k], dx) + cr_mul(m[4][k], dy) + cr_mul(m[5][k], dz);
        cr_real mz = cr_mul(m[6][k], dx) + cr_mul(m[7][k], dy) + cr_mul(m[8][k], dz);
        sum[0][k] = sum[0][k] + cr_mul(t[0][k] + mx, w[k]);
        sum[1][k] = sum[1][k] + cr_mul(t[1][k] + my, w[k]);
        sum[2][k] = sum[2][k] + cr_mul(t[2][k] + mz, w[k]);
    }
}

/* 1/sqrt(n2) for n2 > 0: cr_rsqrt's bits (float: one sqrt and one division, vectorisable) */
static inline cr_real lane_rsqrt(cr_real n2) {
#if CR_FIXED
    return cr_rsqrt(n2);
#else
    return CR_R(1) / __builtin_sqrtf(n2);
#endif
}

/* make_blend in every lane for the lanes' own rows e[example][lane]
 * (examples `use`: weight non-zero in every lane, the others 0 in every
 * lane); false when some lane's sum vanished (that block goes vertex by
 * vertex, where make_blend gives the rest pose) */
static bool lane_blend(const cr_skin_frame *const fb[L], bool uniform, uint32_t bone_count, uint32_t ne, uint32_t use,
                       const cr_real (*e)[L], cr_real (*restrict m)[L], cr_real (*restrict t)[L]) {
    cr_real rx[L] = {0}, ry[L] = {0}, rz[L] = {0}, rw[L] = {0}, tx[L] = {0}, ty[L] = {0}, tz[L] = {0};
    for (uint32_t x = 0; x < ne; ++x) {
        if (!(use >> x & 1u)) continue;
        const cr_real *restrict w = e[x];
        if (uniform) {
            /* one bone: its example x in every lane */
            const cr_quat q = fb[0][(size_t)x * bone_count].q;
            const cr_vec3 te = fb[0][(size_t)x * bone_count].t;
            for (uint32_t k = 0; k < L; ++k) {
                rx[k] += cr_mul(w[k], q.x), ry[k] += cr_mul(w[k], q.y), rz[k] += cr_mul(w[k], q.z), rw[k] += cr_mul(w[k], q.w);
                tx[k] = tx[k] + cr_mul(te.x, w[k]), ty[k] = ty[k] + cr_mul(te.y, w[k]), tz[k] = tz[k] + cr_mul(te.z, w[k]);
            }
            continue;
        }
        /* each lane's bone's example x, side by side */
        cr_real f[7][L];
        for (uint32_t k = 0; k < L; ++k) {
            const cr_skin_frame *fr = fb[k] + (size_t)x * bone_count;
            f[0][k] = fr->q.x, f[1][k] = fr->q.y, f[2][k] = fr->q.z, f[3][k] = fr->q.w;
            f[4][k] = fr->t.x, f[5][k] = fr->t.y, f[6][k] = fr->t.z;
        }
        for (uint32_t k = 0; k < L; ++k) {
            rx[k] += cr_mul(w[k], f[0][k]), ry[k] += cr_mul(w[k], f[1][k]), rz[k] += cr_mul(w[k], f[2][k]);
            rw[k] += cr_mul(w[k], f[3][k]);
            tx[k] = tx[k] + cr_mul(f[4][k], w[k]), ty[k] = ty[k] + cr_mul(f[5][k], w[k]), tz[k] = tz[k] + cr_mul(f[6][k], w[k]);
        }
    }
    cr_real n2[L];
    for (uint32_t k = 0; k < L; ++k)
        n2[k] = cr_mul(rx[k], rx[k]) + cr_mul(ry[k], ry[k]) + cr_mul(rz[k], rz[k]) + cr_mul(rw[k], rw[k]);
    /* checked apart: in the same loop the test kept the sums out of the vector unit */
    bool ok = true;
    for (uint32_t k = 0; k < L; ++k) ok &= n2[k] > 0;
    if (!ok) return false;
    for (uint32_t k = 0; k < L; ++k) {
        cr_real inv = lane_rsqrt(n2[k]);
        cr_real x = cr_mul(rx[k], inv), y = cr_mul(ry[k], inv), z = cr_mul(rz[k], inv), w = cr_mul(rw[k], inv);
        cr_real xx = cr_mul(x, x), yy = cr_mul(y, y), zz = cr_mul(z, z);
        cr_real xy = cr_mul(x, y), xz = cr_mul(x, z), yz = cr_mul(y, z), wx = cr_mul(w, x), wy = cr_mul(w, y), wz = cr_mul(w, z);
        m[0][k] = -2 * (yy + zz), m[1][k] = 2 * (xy - wz), m[2][k] = 2 * (xz + wy);
        m[3][k] = 2 * (xy + wz), m[4][k] = -2 * (xx + zz), m[5][k] = 2 * (yz - wx);
        m[6][k] = 2 * (xz - wy), m[7][k] = 2 * (yz + wx), m[8][k] = -2 * (xx + yy);
        t[0][k] = tx[k], t[1][k] = ty[k], t[2][k] = tz[k];
    }
    return true;
}

/* One block of L vertices from v; false when it must go vertex by vertex. */
static bool lane_points(const cr_asset *a, const cr_skin_frame *frames, cr_skin_cache *cache, uint32_t v,
                        const cr_real *rows, cr_vec3 *out) {
    const uint32_t ne = cache->examples;
    lane_block lb;
    if (cache->lanes != NULL) {
        /* gathered at attach: v is a multiple of L */
        const uint8_t *meta = cache->lanes->meta + LANE_META * (size_t)(v / L);
        if (meta[0] == 255) return false;
        lb.slots = meta[0];
        lb.uniform = meta[1] == 1;
        memcpy(lb.bone, meta + 8, sizeof lb.bone);
        lb.u = cache->lanes->data + (size_t)LANE_REALS * (v / L);
        lb.w = lb.u + 3 * L;
    } else {
        if (!lane_gather(a, v, &lb, lb.buf + 3 * L, lb.buf)) return false;
        lb.u = lb.buf, lb.w = lb.buf + 3 * L;
    }
    const cr_real *row = rows + (size_t)v * ne;
    /* the lanes' rows the same bits (row k against row k - 1: the block's
     * rows against themselves shifted by one); rows equal but for the sign
     * of a 0 take the other path, which gives the same bits */
    bool shared = memcmp(row, row + ne, (size_t)(L - 1) * ne * sizeof(cr_real)) == 0;
    /* one row but a bone per lane: gathering four cached blends into lanes
     * cost more than the vertex loop (measured on the car: 0.029 against
     * 0.023 ms) */
    if (shared && !lb.uniform) return false;
    cr_real sum[3][L] = {{0}};
    if (shared) {
        /* one row: each bone's blend from the cache, made once per run of
         * equal rows (a stamp moved for a 0's sign remakes the same blends) */
        if (cache->stamp == 0 || memcmp(row, cache->row, ne * sizeof(cr_real)) != 0) {
            for (uint32_t x = 0; x < ne; ++x) cache->row[x] = row[x];
            cache->stamp++;
        }
        for (uint32_t s = 0; s < lb.slots; ++s) {
            uint32_t b = lb.bone[s][0]; /* the lanes' bone */
            cr_skin_blend *bl = &cache->bones[b];
            if (bl->stamp != cache->stamp) {
                make_blend(a, frames, b, row, bl);
                bl->stamp = cache->stamp;
            }
            if (bl->wide_stamp != cache->stamp) {
                const cr_vec3 c = a->bones[b].rest.p;
                const cr_real one[15] = {bl->m[0], bl->m[1], bl->m[2], bl->m[3], bl->m[4], bl->m[5], bl->m[6], bl->m[7],
                                         bl->m[8], bl->t.x, bl->t.y, bl->t.z, c.x, c.y, c.z};
                for (uint32_t i = 0; i < 15; ++i)
                    for (uint32_t k = 0; k < L; ++k) bl->wide[i][k] = one[i];
                bl->wide_stamp = cache->stamp;
            }
            lane_apply((const cr_real(*)[4])bl->wide, lb.w + s * L, lb.u, sum);
        }
    } else {
        /* a row per lane: the QLERPs in the lanes, examples 0 in every lane skipped as blend() does */
        cr_real e[LANE_EXAMPLES][L];
        uint32_t use = 0;
        if (ne > LANE_EXAMPLES) return false;
        for (uint32_t x = 0; x < ne; ++x) {
            uint32_t nz = 0;
            for (uint32_t k = 0; k < L; ++k) e[x][k] = row[(size_t)k * ne + x], nz += e[x][k] != 0;
            if (nz != 0 && nz != L) return false;
            if (nz == L) use |= 1u << x;
        }
        cr_real m[9][L], t[3][L], c[3][L];
        for (uint32_t s = 0; s < lb.slots; ++s) {
            const cr_skin_frame *fb[L];
            for (uint32_t k = 0; k < L; ++k) {
                uint32_t b = lb.bone[s][k];
                fb[k] = frames + b;
                c[0][k] = a->bones[b].rest.p.x, c[1][k] = a->bones[b].rest.p.y, c[2][k] = a->bones[b].rest.p.z;
            }
            if (!lane_blend(fb, lb.uniform, a->bone_count, ne, use, (const cr_real(*)[L])e, m, t)) return false;
            lane_apply_each((const cr_real(*)[L])m, (const cr_real(*)[L])t, (const cr_real(*)[L])c, lb.w + s * L, lb.u, sum);
        }
    }
    /* x = u + sum in the lanes, stored a coordinate at a time (strided
     * stores from the vector registers: the lanes interleaved through
     * memory stalled on reading back partial stores) */
    cr_real o[3][L];
    for (uint32_t k = 0; k < L; ++k)
        o[0][k] = lb.u[k] + sum[0][k], o[1][k] = lb.u[L + k] + sum[1][k], o[2][k] = lb.u[2 * L + k] + sum[2][k];
    cr_real *dst = &out[0].x;
    for (uint32_t c = 0; c < 3; ++c)
        for (uint32_t k = 0; k < L; ++k) dst[3 * k + c] = o[c][k];
    return true;
}
#undef LANE_META
#undef LANE_REALS
#undef LANE_EXAMPLES
#undef L

void cri_skin_example_points(const cr_asset *a, const cr_skin_frame *frames, cr_skin_cache *cache, uint32_t first,
                             uint32_t end, const cr_real *rows, cr_vec3 *out) {
    /* blocks of CR_SKIN_LANES vertices side by side where their influences
     * agree, the others one by one: every vertex gets point_cached's bits */
    const uint32_t ne = cache->examples;
    uint32_t v = first;
    while (v < end) {
        /* with the body's lanes, blocks start at multiples of CR_SKIN_LANES */
        bool block = CR_SKIN_VECTOR_LANES && end - v >= CR_SKIN_LANES && (cache->lanes == NULL || v % CR_SKIN_LANES == 0);
        if (block && lane_points(a, frames, cache, v, rows, out + (v - first))) {
            v += CR_SKIN_LANES;
            continue;
        }
        out[v - first] = point_cached(a, frames, cache, v, rows + (size_t)v * ne);
        ++v;
    }
}

/* How far one bone's frame can carry a point at p = u - c per unit of
 * |E' - E|_1 (docs/example-plasticity.md, "Commits"). t and r = sum E_e q_e
 * are linear in E, and a row's change dE sums to 0, so it is |dE|_1 / 2 times
 * a difference of two convex blends: |sum dE_e a_e| <= |dE|_1 / 2 max_ij |a_i - a_j|
 * for the translations t_e and the quaternions q_e alike. A rotation moves p
 * by 2 sin(theta/2) |p| <= 2 |q' - q| |p| for unit q, q', and normalising
 * costs at most 1 / rho (Dunkl-Williams: |a/|a| - b/|b|| <= 2 |a - b| / (|a| + |b|)),
 * rho a lower bound of |r| over the simplex: rho^2 >= min_ij q_i . q_j, as
 * |r|^2 = sum_ij E_i E_j q_i . q_j. Without a positive one the blend can pass
 * near 0 and nothing is bounded (-1). Per unit of |dE|_1:
 *     t_diam / 2 + 2 (q_diam / 2) |p| / rho;
 * out[0] = t_diam / 2 and out[1] = q_diam / rho (-1: none). */
static void bone_reach(const cr_asset *a, const cr_skin_frame *frames, uint32_t b, cr_real out[2]) {
    cr_real t_diam = 0, q_diam = 0, dot_min = CR_R(1);
    for (uint32_t e = 0; e < a->example_count; ++e) {
        const cr_skin_frame *fe = &frames[e * a->bone_count + b];
        for (uint32_t k = 0; k < e; ++k) {
            const cr_skin_frame *fk = &frames[k * a->bone_count + b];
            cr_quat dq = {fe->q.x - fk->q.x, fe->q.y - fk->q.y, fe->q.z - fk->q.z, fe->q.w - fk->q.w};
            t_diam = cr_max(t_diam, cr_v3_len(cr_v3_sub(fe->t, fk->t)));
            q_diam = cr_max(q_diam, cr_sqrt(qdot(dq, dq)));
            dot_min = cr_min(dot_min, qdot(fe->q, fk->q));
        }
    }
    out[0] = cr_half(t_diam);
    if (q_diam == 0) out[1] = 0; /* no example turns the bone */
    else if (dot_min <= CR_R(0.01)) out[1] = -1;
    else out[1] = cr_div(q_diam, cr_sqrt(dot_min));
}

void cri_skin_example_reach(const cr_asset *a, const cr_skin_frame *frames, cr_real *bones, cr_real *reach) {
    for (uint32_t b = 0; b < a->bone_count; ++b) bone_reach(a, frames, b, &bones[2 * b]);
    for (uint32_t v = 0; v < a->vertex_count; ++v) {
        const cr_vec3 u = a->positions[v];
        cr_real sum = 0;
        for (uint32_t k = 0; k < CR_ASSET_SKIN_SLOTS && sum >= 0; ++k) {
            cr_real wk = a->skin_weight[CR_ASSET_SKIN_SLOTS * v + k];
            if (wk == 0) continue;
            uint32_t b = a->skin_bone[CR_ASSET_SKIN_SLOTS * v + k];
            if (bones[2 * b + 1] < 0) sum = -1;
            else sum += cr_mul(cr_abs(wk), bones[2 * b] + cr_mul(bones[2 * b + 1], cr_v3_len(cr_v3_sub(u, a->bones[b].rest.p))));
        }
        /* plus 1/1024 for rounding: the bound is tight for a vertex on one bone
         * moving between two examples (the cooker's weights leave most
         * vertices on one), and the blend's sums and normalisation round
         * past it by up to ~1e-4 */
        reach[v] = sum > 0 ? sum + cr_mul(sum, CR_R(0.0009765625)) : sum;
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
    /* one slot of weight exactly 1 in every vertex: the group's multiply by it can go */
    for (uint32_t k = 0, e = 0; k < g; ++k) {
        const uint8_t *gb = &l->group_bone[4 * k];
        uint32_t slots = (gb[0] != 255) + (gb[1] != 255) + (gb[2] != 255) + (gb[3] != 255), s = 0;
        while (s < 3 && gb[s] == 255) ++s;
        bool unit = slots == 1;
        for (; e < l->group_end[k]; ++e) unit &= l->order[e] == UINT32_MAX || l->w[s * n + e] == CR_R(1);
        l->group_unit[k] = unit;
    }
    return true;
}

/* One group's entries [a, end) with its ns present slots (bones uniform
 * over the group; r[s] is slot s's R and t rows, wt[s] its weights), summed
 * in slot order in registers, CR_SKIN_LANES entries at a time, and written
 * straight to out[order[e]]: no scratch sums, no second pass to scatter them.
 * Per entry the operations and their order are cri_skin_linear's: the sums
 * start at 0 (0 + w p: the same bits, -0 included) and add w (R u + t) slot
 * by slot, the slots of weight 0 (the group's "none") left out. Lanes are
 * independent straight-line code (SSE, or the compiler's SLP vectoriser).
 * ns is a constant at each call (inlined): a one-bone group costs one
 * slot's arithmetic, not a loop over four, and a `unit` group (its one
 * weight exactly 1 in every entry, as the cooker gives a vertex with one
 * influence) leaves out the multiply: 1 p is p, so 0 + p is the same bits. */
#if SKIN_SSE
static inline void group_slots(size_t a, size_t end, size_t n, const cr_real *restrict u, const cr_real *const wt[4],
                               const uint32_t *restrict order, const cr_real (*r)[12], const uint32_t ns, const bool unit,
                               cr_vec3 *restrict out) {
    __m128 c[4][12];
    for (uint32_t s = 0; s < ns; ++s)
        for (uint32_t k = 0; k < 12; ++k) c[s][k] = _mm_set1_ps(r[s][k]);
    for (size_t i = a; i < end; i += CR_SKIN_LANES) {
        const __m128 x = _mm_loadu_ps(u + i), y = _mm_loadu_ps(u + n + i), z = _mm_loadu_ps(u + 2 * n + i);
        __m128 ox = _mm_setzero_ps(), oy = _mm_setzero_ps(), oz = _mm_setzero_ps();
        for (uint32_t s = 0; s < ns; ++s) {
            const __m128 *q = c[s];
            const __m128 wk = unit ? _mm_setzero_ps() : _mm_loadu_ps(wt[s] + i);
            __m128 px = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(q[0], x), _mm_mul_ps(q[1], y)), _mm_mul_ps(q[2], z)), q[3]);
            __m128 py = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(q[4], x), _mm_mul_ps(q[5], y)), _mm_mul_ps(q[6], z)), q[7]);
            __m128 pz = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(q[8], x), _mm_mul_ps(q[9], y)), _mm_mul_ps(q[10], z)), q[11]);
            if (unit) { /* 0 + 1 p = 0 + p, bit for bit */
                ox = _mm_add_ps(ox, px), oy = _mm_add_ps(oy, py), oz = _mm_add_ps(oz, pz);
                continue;
            }
            ox = _mm_add_ps(ox, _mm_mul_ps(wk, px));
            oy = _mm_add_ps(oy, _mm_mul_ps(wk, py));
            oz = _mm_add_ps(oz, _mm_mul_ps(wk, pz));
        }
        /* a group's entries are in increasing vertex order (a stable sort),
         * so first and last CR_SKIN_LANES - 1 apart means consecutive
         * vertices: their 48 bytes in three stores (padding is UINT32_MAX:
         * never consecutive) */
        uint32_t v0 = order[i];
        if (order[i + CR_SKIN_LANES - 1] - v0 == CR_SKIN_LANES - 1) {
            __m128 xy0 = _mm_unpacklo_ps(ox, oy), xy1 = _mm_unpackhi_ps(ox, oy); /* x0 y0 x1 y1, x2 y2 x3 y3 */
            __m128 zx = _mm_shuffle_ps(oz, ox, _MM_SHUFFLE(1, 1, 0, 0));         /* z0 z0 x1 x1 */
            __m128 yz = _mm_shuffle_ps(oy, oz, _MM_SHUFFLE(1, 1, 1, 1));         /* y1 y1 z1 z1 */
            __m128 zxy = _mm_shuffle_ps(oz, xy1, _MM_SHUFFLE(3, 2, 2, 2));       /* z2 z2 x3 y3 */
            __m128 yzz = _mm_shuffle_ps(xy1, oz, _MM_SHUFFLE(3, 3, 3, 3));       /* y3 y3 z3 z3 */
            float *d = &out[v0].x;
            _mm_storeu_ps(d, _mm_shuffle_ps(xy0, zx, _MM_SHUFFLE(2, 0, 1, 0)));     /* x0 y0 z0 x1 */
            _mm_storeu_ps(d + 4, _mm_shuffle_ps(yz, xy1, _MM_SHUFFLE(1, 0, 2, 0))); /* y1 z1 x2 y2 */
            _mm_storeu_ps(d + 8, _mm_shuffle_ps(zxy, yzz, _MM_SHUFFLE(2, 0, 2, 0))); /* z2 x3 y3 z3 */
            continue;
        }
        /* else vertex by vertex: x y from the interleaved pairs, z alone */
        const __m128 xy0 = _mm_unpacklo_ps(ox, oy), xy1 = _mm_unpackhi_ps(ox, oy); /* x0 y0 x1 y1, x2 y2 x3 y3 */
        const __m128 z1 = _mm_shuffle_ps(oz, oz, _MM_SHUFFLE(1, 1, 1, 1)), z2 = _mm_movehl_ps(oz, oz);
        const __m128 z3 = _mm_shuffle_ps(oz, oz, _MM_SHUFFLE(3, 3, 3, 3));
        const uint32_t *o = order + i;
        _mm_storel_pi((__m64 *)(void *)&out[o[0]].x, xy0), _mm_store_ss(&out[o[0]].z, oz);
        if (o[1] != UINT32_MAX) _mm_storeh_pi((__m64 *)(void *)&out[o[1]].x, xy0), _mm_store_ss(&out[o[1]].z, z1);
        if (o[2] != UINT32_MAX) _mm_storel_pi((__m64 *)(void *)&out[o[2]].x, xy1), _mm_store_ss(&out[o[2]].z, z2);
        if (o[3] != UINT32_MAX) _mm_storeh_pi((__m64 *)(void *)&out[o[3]].x, xy1), _mm_store_ss(&out[o[3]].z, z3);
    }
}
#else
static inline void group_slots(size_t a, size_t end, size_t n, const cr_real *restrict u, const cr_real *const wt[4],
                               const uint32_t *restrict order, const cr_real (*r)[12], const uint32_t ns, const bool unit,
                               cr_vec3 *restrict out) {
    for (size_t i = a; i < end; i += CR_SKIN_LANES) {
        const cr_real *restrict x = u + i, *restrict y = u + n + i, *restrict z = u + 2 * n + i;
        cr_real ox[CR_SKIN_LANES] = {0}, oy[CR_SKIN_LANES] = {0}, oz[CR_SKIN_LANES] = {0};
        for (uint32_t s = 0; s < ns; ++s) {
            const cr_real *q = r[s], *restrict ws = wt[s] + i;
            for (size_t k = 0; k < CR_SKIN_LANES; ++k) {
                cr_real px = cr_mul(q[0], x[k]) + cr_mul(q[1], y[k]) + cr_mul(q[2], z[k]) + q[3];
                cr_real py = cr_mul(q[4], x[k]) + cr_mul(q[5], y[k]) + cr_mul(q[6], z[k]) + q[7];
                cr_real pz = cr_mul(q[8], x[k]) + cr_mul(q[9], y[k]) + cr_mul(q[10], z[k]) + q[11];
                if (unit) ox[k] += px, oy[k] += py, oz[k] += pz; /* 0 + 1 p = 0 + p, bit for bit */
                else ox[k] += cr_mul(ws[k], px), oy[k] += cr_mul(ws[k], py), oz[k] += cr_mul(ws[k], pz);
            }
        }
        /* a group's entries are in increasing vertex order (a stable sort),
         * so first and last CR_SKIN_LANES - 1 apart means consecutive
         * vertices: one contiguous store of the block instead of a vertex
         * at a time (padding is UINT32_MAX: never consecutive) */
        uint32_t v0 = order[i];
        if (order[i + CR_SKIN_LANES - 1] - v0 == CR_SKIN_LANES - 1) {
            cr_real *restrict d = &out[v0].x;
            for (size_t k = 0; k < CR_SKIN_LANES; ++k) d[3 * k] = ox[k], d[3 * k + 1] = oy[k], d[3 * k + 2] = oz[k];
            continue;
        }
        for (size_t k = 0; k < CR_SKIN_LANES; ++k) {
            uint32_t v = order[i + k];
            if (v != UINT32_MAX) out[v] = cr_v3(ox[k], oy[k], oz[k]);
        }
    }
}
#endif

static void group_pass(size_t a, size_t end, size_t n, const cr_real *restrict u, const cr_real *restrict w,
                       const uint32_t *restrict order, const cr_skin_bone *bones, const uint8_t *gb, bool unit,
                       cr_vec3 *restrict out) {
    cr_real r[4][12];
    const cr_real *wt[4];
    uint32_t ns = 0;
    for (uint32_t s = 0; s < 4; ++s) {
        if (gb[s] == 255) continue;
        const cr_skin_bone *m = &bones[gb[s]];
        cr_real *q = r[ns];
        q[0] = m->r.cx.x, q[1] = m->r.cy.x, q[2] = m->r.cz.x, q[3] = m->t.x;
        q[4] = m->r.cx.y, q[5] = m->r.cy.y, q[6] = m->r.cz.y, q[7] = m->t.y;
        q[8] = m->r.cx.z, q[9] = m->r.cy.z, q[10] = m->r.cz.z, q[11] = m->t.z;
        wt[ns++] = w + s * n;
    }
    const cr_real(*rr)[12] = (const cr_real(*)[12])r;
    if (ns == 1 && unit) group_slots(a, end, n, u, wt, order, rr, 1, true, out);
    else if (ns == 1) group_slots(a, end, n, u, wt, order, rr, 1, false, out);
    else if (ns == 2) group_slots(a, end, n, u, wt, order, rr, 2, false, out);
    else if (ns == 3) group_slots(a, end, n, u, wt, order, rr, 3, false, out);
    else group_slots(a, end, n, u, wt, order, rr, ns, false, out);
}

void cri_skin_linear_grouped(cr_skin_layout *l, const cr_skin_bone *bones, cr_vec3 *out) {
    uint32_t n = l->count, a = 0;
    for (uint32_t g = 0; g < l->groups; ++g) {
        uint32_t end = l->group_end[g];
        group_pass(a, end, n, l->u, l->w, l->order, bones, &l->group_bone[4 * g], l->group_unit[g] != 0, out);
        a = end;
    }
}
