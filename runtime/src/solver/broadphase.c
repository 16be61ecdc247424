/* broadphase.c — candidate pairs from a fixed-capacity uniform spatial hash.
 *
 * Seed 002 narrows down which bodies may touch with "a uniform spatial
 * partitioning data structure ... implemented using a hash table". Here every
 * body's swept bounding box (start-of-step bounding sphere grown by the motion
 * of one step) is entered into the one grid cell that holds its lower corner;
 * the cell edge is at least every hashed box's extent, so two boxes can only
 * overlap when their cells are neighbours (differ by at most 1 per axis). Cells
 * are hashed into a bucket table rebuilt every step in scratch:
 *
 *   1. count the bodies of each bucket, 2. prefix sums, 3. fill the buckets
 *      in body-slot order (a counting sort, so a bucket lists bodies in
 *      ascending slot order on every machine),
 *   4. for each body, the bodies of its own cell after it and every body of
 *      the 13 "forward" neighbour cells (half of the 26, so each pair of
 *      cells, and so each pair of bodies, is looked at once): linear in the
 *      bodies for a bounded density, where entering a box into every cell it
 *      covered (up to 8) met each pair once per shared cell,
 *   5. sort the pairs by (lower slot, higher slot).
 *
 * The pairs found are exactly the pairs of overlapping swept boxes, whatever
 * the cell edge, so the sorted output does not depend on how the grid is laid.
 *
 * Notes
 *   - Nothing is allocated: buckets and pairs are sized from the def (2 buckets
 *     per body slot, pair_capacity pairs).
 *   - A body whose box is wider than 2 x the base cell (a terrain, a giant, a
 *     bullet) goes to a short "large" list that is tested against every body;
 *     planes are never hashed and are paired with every moving body whose
 *     swept sphere reaches them.
 *   - Collision filters (cr_filter: docs/filters.md) drop a pair before it is
 *     counted, so a filtered pair costs neither pair_capacity nor any
 *     narrowphase work; the world def's pair_filter hook then sees the
 *     surviving pairs in sorted order, so its calls do not depend on the grid.
 *   - Pairs without an awake dynamic body (except a sleeper next to a moving
 *     kinematic body, which must wake), and jointed pairs that must not
 *     collide, are never reported. Pairs beyond pair_capacity are counted as overflow.
 *   - The base cell edge is def.broadphase_cell, or 1.5 x the mean bounding
 *     diameter of the moving bodies; the cell used is the widest hashed box
 *     within 2 x that base (never less than the base).
 */
#include "solver/solver.h"

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

uint64_t cri_broadphase_scratch(const cr_world_def *def) {
    uint64_t entries = (uint64_t)def->body_capacity;
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

void cri_sort_u64(uint64_t *keys, uint64_t *tmp, uint32_t n) {
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
    if (s->nno_collide > 0 && cri_joints_pair_excluded(s, a, b)) return;
    if (!cr_filter_collides(s->bodies[a].filter, s->bodies[b].filter)) return;
    if (o->n >= o->cap) {
        o->overflow++;
        return;
    }
    o->pairs[o->n++] = cr_pair_key(a, b);
}

static cr_body_id body_id(const cr_step *s, uint32_t slot) {
    cr_body_id id = {slot + 1u, s->bodies[slot].generation};
    return id;
}

/* The game's pair filter over the sorted pairs, keeping their order. */
static uint32_t host_filter(cr_step *s, uint64_t *pairs, uint32_t n) {
    const cr_world_def *def = &s->w->def;
    uint32_t kept = 0;
    for (uint32_t k = 0; k < n; ++k) {
        uint32_t a = (uint32_t)(pairs[k] >> 32), b = (uint32_t)pairs[k];
        if (def->pair_filter(def->pair_filter_user, body_id(s, a), body_id(s, b))) pairs[kept++] = pairs[k];
    }
    return kept;
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

/* The bucket of a cell and the range of entries it spans. */
static void bucket_span(const uint32_t *start, uint32_t k, uint32_t *e0, uint32_t *e1) {
    *e0 = k == 0 ? 0 : start[k - 1];
    *e1 = start[k];
}

/* Half of the 26 neighbour offsets: for each pair of opposite offsets, the
 * one whose first non-zero coordinate (z, then y, then x) is positive. */
static const int8_t forward_cells[13][3] = {
    {1, 0, 0}, {-1, 1, 0}, {0, 1, 0}, {1, 1, 0},                                         /* dz = 0 */
    {-1, -1, 1}, {0, -1, 1}, {1, -1, 1}, {-1, 0, 1}, {0, 0, 1}, {1, 0, 1}, {-1, 1, 1}, {0, 1, 1}, {1, 1, 1}, /* dz = 1 */
};

void cri_broadphase(cr_step *s) {
    cr_world *w = s->w;
    const cr_world_def *def = &w->def;
    uint32_t mark = cr_arena_pos(&w->scratch);
    uint32_t entry_cap = def->body_capacity;
    uint32_t buckets = bucket_count_for(entry_cap);
    uint32_t off_r = cri_arena_push_uninit(&w->scratch, def->body_capacity * (uint32_t)sizeof(bp_range), 16);
    uint32_t off_e = cri_arena_push_uninit(&w->scratch, entry_cap * (uint32_t)sizeof(bp_entry), 16);
    uint32_t off_b = cri_arena_push_uninit(&w->scratch, (buckets + 1u) * (uint32_t)sizeof(uint32_t), 16);
    uint32_t off_l = cri_arena_push_uninit(&w->scratch, def->body_capacity * (uint32_t)sizeof(uint32_t), 16);
    uint32_t off_p = cri_arena_push_uninit(&w->scratch, def->body_capacity * (uint32_t)sizeof(uint32_t), 16);
    uint32_t off_t = cri_arena_push_uninit(&w->scratch, def->pair_capacity * (uint32_t)sizeof(uint64_t), 16);
    s->npairs = 0;
    if (off_r == CR_NO_OFFSET || off_e == CR_NO_OFFSET || off_b == CR_NO_OFFSET || off_l == CR_NO_OFFSET ||
        off_p == CR_NO_OFFSET || off_t == CR_NO_OFFSET) {
        w->stats.stage[CR_STAGE_broadphase].overflow += s->nb;
        cri_arena_pop_to(&w->scratch, mark);
        return;
    }
    bp_range *range = CR_AT(w, off_r, bp_range);
    bp_entry *entry = CR_AT(w, off_e, bp_entry);
    uint32_t *start = CR_AT(w, off_b, uint32_t);
    uint32_t *large = CR_AT(w, off_l, uint32_t);
    uint32_t *planes = CR_AT(w, off_p, uint32_t);
    uint32_t nlarge = 0, nplanes = 0;
    uint32_t mask = buckets - 1u;

    cr_real base = def->broadphase_cell > 0 ? def->broadphase_cell : auto_cell(s);
    cr_real widest = cr_mul(base, CR_R(2));
    cr_real g_dt2 = cr_mul(cr_v3_len(def->gravity), cr_mul(s->dt, s->dt));
    cr_real grow = CR_CANDIDATE_SLOP + g_dt2;

    /* swept boxes; the cell must hold the widest box that is hashed */
    cr_real cell = base;
    for (uint32_t i = 0; i < s->nb; ++i) {
        const cr_body *b = &s->bodies[i];
        bp_range *r = &range[i];
        r->kind = BP_NONE;
        if (!b->alive || b->ghost || b->disabled) continue; /* ghost: a bending body, its sub-bodies collide for it */
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
        cr_vec3 ext = cr_v3_sub(r->bmax, r->bmin);
        cr_real wide = cr_max(ext.x, cr_max(ext.y, ext.z));
        if (wide > widest) {
            r->kind = BP_LARGE;
            large[nlarge++] = i;
        } else {
            r->kind = BP_HASHED;
            if (wide > cell) cell = wide;
        }
    }
    cr_real inv_cell = cr_div(CR_R(1), cell);

    /* the cell of each hashed box's lower corner; counting sort into buckets in body-slot order */
    memset(start, 0, (buckets + 1u) * sizeof(uint32_t));
    for (uint32_t i = 0; i < s->nb; ++i) {
        bp_range *r = &range[i];
        if (r->kind != BP_HASHED) continue;
        r->lo[0] = cell_of(r->bmin.x, inv_cell);
        r->lo[1] = cell_of(r->bmin.y, inv_cell);
        r->lo[2] = cell_of(r->bmin.z, inv_cell);
        start[cell_hash(r->lo[0], r->lo[1], r->lo[2], mask) + 1]++;
    }
    for (uint32_t k = 0; k < buckets; ++k) start[k + 1] += start[k];
    /* fill using start[k] as a cursor; afterwards start[k] is the end of bucket k, i.e. the start of k+1 */
    for (uint32_t i = 0; i < s->nb; ++i) {
        const bp_range *r = &range[i];
        if (r->kind != BP_HASHED) continue;
        bp_entry *e = &entry[start[cell_hash(r->lo[0], r->lo[1], r->lo[2], mask)]++];
        e->c[0] = r->lo[0];
        e->c[1] = r->lo[1];
        e->c[2] = r->lo[2];
        e->body = i;
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
    /* each hashed body: its own cell's later bodies, then the 13 forward
     * neighbour cells (entries of another cell that shares the bucket are skipped) */
    for (uint32_t i = 0; i < s->nb; ++i) {
        const bp_range *ri = &range[i];
        if (ri->kind != BP_HASHED) continue;
        for (int32_t n = -1; n < 13; ++n) {
            int32_t cx = ri->lo[0], cy = ri->lo[1], cz = ri->lo[2];
            if (n >= 0) {
                cx += forward_cells[n][0];
                cy += forward_cells[n][1];
                cz += forward_cells[n][2];
            }
            uint32_t e0, e1;
            bucket_span(start, cell_hash(cx, cy, cz, mask), &e0, &e1);
            for (uint32_t e = e0; e < e1; ++e) {
                const bp_entry *eb = &entry[e];
                if (n < 0 && eb->body <= i) continue;
                if (eb->c[0] != cx || eb->c[1] != cy || eb->c[2] != cz) continue;
                if (boxes_overlap(ri, &range[eb->body])) emit(s, &out, i, eb->body);
            }
        }
    }
    cri_sort_u64(out.pairs, CR_AT(w, off_t, uint64_t), out.n);
    if (def->pair_filter != NULL) out.n = host_filter(s, out.pairs, out.n);
    s->npairs = out.n;
    w->stats.stage[CR_STAGE_broadphase].work = out.n;
    w->stats.stage[CR_STAGE_broadphase].overflow += out.overflow;
    cri_arena_pop_to(&w->scratch, mark);
}
