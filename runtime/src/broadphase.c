/* broadphase.c — candidate pairs from a fixed-capacity uniform spatial hash.
 *
 * Seed 002 narrows down which bodies may touch with "a uniform spatial
 * partitioning data structure ... implemented using a hash table". Here every
 * body's swept bounding box (start-of-step bounding sphere grown by the motion
 * of one step) is entered into the cells of a uniform grid it covers; cells
 * are hashed into a bucket table that is rebuilt every step in scratch:
 *
 *   1. count the entries of each bucket, 2. prefix sums, 3. fill the buckets
 *      in body-slot order (a counting sort, so a bucket lists bodies in
 *      ascending slot order on every machine),
 *   4. for each bucket, every two entries of the same cell; a pair is
 *      reported only from the first cell the two boxes share, so it is
 *      reported once,
 *   5. sort the pairs by (lower slot, higher slot).
 *
 * Notes
 *   - Nothing is allocated: entries, buckets and pairs are sized from the def
 *     (CR_BP_ENTRIES_PER_BODY entries per body slot, pair_capacity pairs).
 *   - A body covering more than CR_BP_MAX_CELLS cells (a terrain, a giant) or
 *     that no longer fits the entry array goes to a short "large" list that is
 *     tested against every body; planes are never hashed and are paired with
 *     every moving body whose swept sphere reaches them.
 *   - Pairs without an awake dynamic body (except a sleeper next to a moving
 *     kinematic body, which must wake), and jointed pairs that must not
 *     collide, are never reported. Pairs beyond pair_capacity are counted as overflow.
 *   - The cell edge is def.broadphase_cell, or 1.5 x the mean bounding
 *     diameter of the moving bodies, so a typical body covers at most 2 cells
 *     per axis.
 */
#include "solver.h"

#include <string.h>

typedef struct bp_range {
    int32_t lo[3], hi[3]; ///< cells covered, inclusive
    cr_vec3 bmin, bmax;   ///< m, swept box
    uint8_t kind;         ///< BP_NONE, BP_HASHED, BP_LARGE, BP_PLANE
    uint8_t pad_[3];
} bp_range;

enum { BP_NONE, BP_HASHED, BP_LARGE, BP_PLANE };

typedef struct bp_entry {
    int32_t c[3];
    uint32_t body;
} bp_entry;

static uint32_t bucket_count_for(uint32_t entries) {
    uint32_t n = 16;
    while (n < 2u * entries && n < (1u << 30)) n <<= 1;
    return n;
}

uint64_t cr_broadphase_scratch(const cr_world_def *def) {
    uint64_t entries = (uint64_t)def->body_capacity * CR_BP_ENTRIES_PER_BODY;
    uint64_t buckets = bucket_count_for((uint32_t)entries);
    uint64_t b = 0;
    b += ((uint64_t)def->body_capacity * sizeof(bp_range) + 15u) & ~15ull;
    b += (entries * sizeof(bp_entry) + 15u) & ~15ull;
    b += ((buckets + 1u) * sizeof(uint32_t) + 15u) & ~15ull;
    b += ((uint64_t)def->body_capacity * sizeof(uint32_t) + 15u) & ~15ull; /* large list */
    b += ((uint64_t)def->body_capacity * sizeof(uint32_t) + 15u) & ~15ull; /* plane list */
    b += ((uint64_t)def->pair_capacity * sizeof(uint64_t) + 15u) & ~15ull; /* sort buffer */
    return b + 6u * 16u;
}

void cr_sort_u64(uint64_t *keys, uint64_t *tmp, uint32_t n) {
    uint64_t all = 0;
    for (uint32_t i = 0; i < n; ++i) all |= keys[i];
    uint64_t *src = keys, *dst = tmp;
    for (uint32_t shift = 0; shift < 64; shift += 8) {
        if (((all >> shift) & 0xffu) == 0) continue; /* this digit is zero everywhere */
        uint32_t count[257];
        memset(count, 0, sizeof count);
        for (uint32_t i = 0; i < n; ++i) count[((src[i] >> shift) & 0xffu) + 1]++;
        for (uint32_t d = 0; d < 256; ++d) count[d + 1] += count[d];
        for (uint32_t i = 0; i < n; ++i) dst[count[(src[i] >> shift) & 0xffu]++] = src[i];
        uint64_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != keys) memcpy(keys, src, (size_t)n * sizeof(uint64_t));
}

static uint32_t cell_hash(int32_t x, int32_t y, int32_t z, uint32_t mask) {
    uint32_t h = (uint32_t)x * 73856093u ^ (uint32_t)y * 19349663u ^ (uint32_t)z * 83492791u;
    h ^= h >> 15;
    return h & mask;
}

/* Cell index of a coordinate, kept well inside int32 for absurd positions. */
static int32_t cell_of(cr_real x, cr_real inv_cell) {
    cr_real q = cr_mul(x, inv_cell);
    q = cr_clamp(q, CR_R(-1.0e8), CR_R(1.0e8));
    return cr_floor_int(q);
}

static bool boxes_overlap(const bp_range *a, const bp_range *b) {
    return a->bmin.x <= b->bmax.x && b->bmin.x <= a->bmax.x && a->bmin.y <= b->bmax.y && b->bmin.y <= a->bmax.y &&
           a->bmin.z <= b->bmax.z && b->bmin.z <= a->bmax.z;
}

typedef struct bp_out {
    uint64_t *pairs;
    uint32_t n, cap, overflow;
} bp_out;

static bool moving_kinematic(const cr_body *b) {
    return b->type == CR_BODY_KINEMATIC &&
           (b->v.x != 0 || b->v.y != 0 || b->v.z != 0 || b->w.x != 0 || b->w.y != 0 || b->w.z != 0);
}

static void emit(cr_step *s, bp_out *o, uint32_t i, uint32_t j) {
    uint32_t a = i < j ? i : j, b = i < j ? j : i;
    if (!s->sb[a].dynamic && !s->sb[b].dynamic) {
        /* neither moves in the solver; only a sleeper about to be hit by a
         * moving kinematic body matters (sleep.c wakes it) */
        const cr_body *A = &s->bodies[a], *B = &s->bodies[b];
        if (!(A->asleep && moving_kinematic(B)) && !(B->asleep && moving_kinematic(A))) return;
    }
    if (s->nno_collide > 0 && cr_joints_pair_excluded(s, a, b)) return;
    if (o->n >= o->cap) {
        o->overflow++;
        return;
    }
    o->pairs[o->n++] = cr_pair_key(a, b);
}

static cr_real auto_cell(const cr_step *s) {
    cr_real sum = 0;
    int32_t n = 0;
    for (uint32_t i = 0; i < s->nb; ++i) {
        const cr_body *b = &s->bodies[i];
        if (!b->alive || b->type == CR_BODY_STATIC || b->shape.type == CR_SHAPE_PLANE) continue;
        sum += b->bound_radius;
        ++n;
    }
    if (n == 0) return CR_R(2);
    cr_real mean_radius = cr_div(sum, cr_from_int(n));
    cr_real cell = cr_mul(mean_radius, CR_R(3)); /* 1.5 x the mean diameter */
    return cr_max(cell, CR_R(0.05));
}

void cr_broadphase(cr_step *s) {
    cr_world *w = s->w;
    const cr_world_def *def = &w->def;
    uint32_t mark = cr_arena_pos(&w->scratch);
    uint32_t entry_cap = def->body_capacity * CR_BP_ENTRIES_PER_BODY;
    uint32_t buckets = bucket_count_for(entry_cap);
    uint32_t off_r = cr_arena_push_uninit(&w->scratch, def->body_capacity * (uint32_t)sizeof(bp_range), 16);
    uint32_t off_e = cr_arena_push_uninit(&w->scratch, entry_cap * (uint32_t)sizeof(bp_entry), 16);
    uint32_t off_b = cr_arena_push_uninit(&w->scratch, (buckets + 1u) * (uint32_t)sizeof(uint32_t), 16);
    uint32_t off_l = cr_arena_push_uninit(&w->scratch, def->body_capacity * (uint32_t)sizeof(uint32_t), 16);
    uint32_t off_p = cr_arena_push_uninit(&w->scratch, def->body_capacity * (uint32_t)sizeof(uint32_t), 16);
    uint32_t off_t = cr_arena_push_uninit(&w->scratch, def->pair_capacity * (uint32_t)sizeof(uint64_t), 16);
    s->npairs = 0;
    if (off_r == CR_NO_OFFSET || off_e == CR_NO_OFFSET || off_b == CR_NO_OFFSET || off_l == CR_NO_OFFSET ||
        off_p == CR_NO_OFFSET || off_t == CR_NO_OFFSET) {
        w->stats.stage[CR_STAGE_broadphase].overflow += s->nb;
        cr_arena_pop_to(&w->scratch, mark);
        return;
    }
    bp_range *range = CR_AT(w, off_r, bp_range);
    bp_entry *entry = CR_AT(w, off_e, bp_entry);
    uint32_t *start = CR_AT(w, off_b, uint32_t);
    uint32_t *large = CR_AT(w, off_l, uint32_t);
    uint32_t *planes = CR_AT(w, off_p, uint32_t);
    uint32_t nlarge = 0, nplanes = 0, nentries = 0;
    uint32_t mask = buckets - 1u;

    cr_real cell = def->broadphase_cell > 0 ? def->broadphase_cell : auto_cell(s);
    cr_real inv_cell = cr_div(CR_R(1), cell);
    cr_real g_dt2 = cr_mul(cr_v3_len(def->gravity), cr_mul(s->dt, s->dt));
    cr_real grow = CR_CANDIDATE_SLOP + g_dt2;

    /* swept boxes and the cells they cover */
    for (uint32_t i = 0; i < s->nb; ++i) {
        const cr_body *b = &s->bodies[i];
        bp_range *r = &range[i];
        r->kind = BP_NONE;
        if (!b->alive) continue;
        if (b->shape.type == CR_SHAPE_PLANE) {
            r->kind = BP_PLANE;
            planes[nplanes++] = i;
            continue;
        }
        cr_vec3 x0 = b->xf.p, x1 = cr_v3_mad(b->xf.p, s->dt, b->v);
        cr_real e = b->bound_radius + grow;
        cr_vec3 ev = cr_v3(e, e, e);
        r->bmin = cr_v3_sub(cr_v3_min(x0, x1), ev);
        r->bmax = cr_v3_add(cr_v3_max(x0, x1), ev);
        r->lo[0] = cell_of(r->bmin.x, inv_cell);
        r->lo[1] = cell_of(r->bmin.y, inv_cell);
        r->lo[2] = cell_of(r->bmin.z, inv_cell);
        r->hi[0] = cell_of(r->bmax.x, inv_cell);
        r->hi[1] = cell_of(r->bmax.y, inv_cell);
        r->hi[2] = cell_of(r->bmax.z, inv_cell);
        uint64_t cells = (uint64_t)(r->hi[0] - r->lo[0] + 1) * (uint64_t)(r->hi[1] - r->lo[1] + 1) *
                         (uint64_t)(r->hi[2] - r->lo[2] + 1);
        if (cells > CR_BP_MAX_CELLS || nentries + cells > entry_cap) {
            r->kind = BP_LARGE;
            large[nlarge++] = i;
        } else {
            r->kind = BP_HASHED;
            nentries += (uint32_t)cells;
        }
    }

    /* counting sort of the entries into buckets, in body-slot order */
    memset(start, 0, (buckets + 1u) * sizeof(uint32_t));
    for (uint32_t i = 0; i < s->nb; ++i) {
        const bp_range *r = &range[i];
        if (r->kind != BP_HASHED) continue;
        for (int32_t z = r->lo[2]; z <= r->hi[2]; ++z)
            for (int32_t y = r->lo[1]; y <= r->hi[1]; ++y)
                for (int32_t x = r->lo[0]; x <= r->hi[0]; ++x) start[cell_hash(x, y, z, mask) + 1]++;
    }
    for (uint32_t k = 0; k < buckets; ++k) start[k + 1] += start[k];
    /* fill using start[k] as a cursor; afterwards start[k] is the end of bucket k, i.e. the start of k+1 */
    for (uint32_t i = 0; i < s->nb; ++i) {
        const bp_range *r = &range[i];
        if (r->kind != BP_HASHED) continue;
        for (int32_t z = r->lo[2]; z <= r->hi[2]; ++z)
            for (int32_t y = r->lo[1]; y <= r->hi[1]; ++y)
                for (int32_t x = r->lo[0]; x <= r->hi[0]; ++x) {
                    bp_entry *e = &entry[start[cell_hash(x, y, z, mask)]++];
                    e->c[0] = x;
                    e->c[1] = y;
                    e->c[2] = z;
                    e->body = i;
                }
    }
    /* bucket k now spans [k == 0 ? 0 : start[k-1], start[k]) */

    bp_out out = {s->pairs, 0, def->pair_capacity, 0};
    /* planes first, then the large list, then the hash: when pair_capacity
     * runs out, the pairs dropped are the hashed ones of the highest slots */
    for (uint32_t p = 0; p < nplanes; ++p) {
        uint32_t i = planes[p];
        const cr_body *pb = &s->bodies[i];
        cr_vec3 n = cr_quat_rotate(pb->xf.q, cr_v3(0, CR_R(1), 0));
        for (uint32_t j = 0; j < s->nb; ++j) {
            const cr_body *b = &s->bodies[j];
            if (!b->alive || range[j].kind == BP_PLANE || range[j].kind == BP_NONE) continue;
            cr_real d = cr_v3_dot(n, cr_v3_sub(b->xf.p, pb->xf.p));
            cr_real approach = cr_mul(s->dt, cr_v3_dot(n, b->v));
            if (approach > 0) approach = 0;
            if (d + approach - b->bound_radius - grow < 0) emit(s, &out, i, j);
        }
    }

    for (uint32_t l = 0; l < nlarge; ++l) {
        uint32_t i = large[l];
        for (uint32_t j = 0; j < s->nb; ++j) {
            const bp_range *rj = &range[j];
            if (j == i || (rj->kind != BP_HASHED && rj->kind != BP_LARGE)) continue;
            if (rj->kind == BP_LARGE && j < i) continue; /* that pair came from j's turn */
            if (boxes_overlap(&range[i], rj)) emit(s, &out, i, j);
        }
    }
    /* each bucket: every two entries of the same cell, reported from the
     * first cell the two boxes share so a pair is reported once */
    for (uint32_t k = 0; k < buckets; ++k) {
        uint32_t e0 = k == 0 ? 0 : start[k - 1], e1 = start[k];
        for (uint32_t e = e0; e + 1 < e1; ++e) {
            const bp_entry *ea = &entry[e];
            const bp_range *ri = &range[ea->body];
            for (uint32_t f = e + 1; f < e1; ++f) {
                const bp_entry *eb = &entry[f];
                if (eb->c[0] != ea->c[0] || eb->c[1] != ea->c[1] || eb->c[2] != ea->c[2]) continue;
                const bp_range *rj = &range[eb->body];
                int32_t fx = ri->lo[0] > rj->lo[0] ? ri->lo[0] : rj->lo[0];
                int32_t fy = ri->lo[1] > rj->lo[1] ? ri->lo[1] : rj->lo[1];
                int32_t fz = ri->lo[2] > rj->lo[2] ? ri->lo[2] : rj->lo[2];
                if (fx != ea->c[0] || fy != ea->c[1] || fz != ea->c[2]) continue;
                if (boxes_overlap(ri, rj)) emit(s, &out, ea->body, eb->body);
            }
        }
    }
    cr_sort_u64(out.pairs, CR_AT(w, off_t, uint64_t), out.n);
    s->npairs = out.n;
    w->stats.stage[CR_STAGE_broadphase].work = out.n;
    w->stats.stage[CR_STAGE_broadphase].overflow += out.overflow;
    cr_arena_pop_to(&w->scratch, mark);
}
