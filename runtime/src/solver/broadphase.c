/* broadphase.c — candidate pairs from a fixed-capacity hierarchical spatial hash.
 *
 * Seed 002 narrows down which bodies may touch with "a uniform spatial
 * partitioning data structure ... implemented using a hash table". One
 * uniform cell edge cannot fit every body-size mix: with one cell as wide as
 * the widest box, a pile of tiny bodies beside a big one crowds hundreds of
 * bodies into a cell (each tested against each), and a box wider than the
 * cell has to be tested against every body. So the grid has levels (Mirtich's
 * hierarchical hash grid): level l has cells base x 2^l, and every body's
 * swept box (start-of-step bounding sphere grown by one step's motion) is
 * entered once, in the finest level whose cell it spans at most two of per
 * axis, under the cell of its lower corner. Inside a level every box is
 * between a quarter of a cell and one cell wide, so a cell holds a bounded
 * number of bodies that do not overlap, whatever the mix. Cells of every
 * level are hashed into one bucket table rebuilt every step in scratch:
 *
 *   1. count the bodies of each bucket, 2. prefix sums, 3. fill the buckets
 *      in body-slot order (a counting sort, so a bucket lists bodies in
 *      ascending slot order on every machine),
 *   4. each moving body ("active": awake dynamic, or kinematic with a
 *      velocity) looks up the cells its box reaches, widened by one cell
 *      below (another box's lower corner may be one cell lower), in its own
 *      level and in every coarser level that holds a body; a resting body
 *      (asleep, static, kinematic at rest) looks up only coarser levels that
 *      hold an active body, for the active bodies there. A pair of the same
 *      level is found by its active body of the lower slot, a pair of two
 *      levels by its finer body: each pair once. Two resting bodies are never
 *      a pair, so a sleeping heap costs one pass over its slots and nothing
 *      per neighbour,
 *   5. sort the pairs by (lower slot, higher slot).
 *
 * The pairs found are exactly the pairs of overlapping swept boxes, whatever
 * the cell edge: the cells a box reaches are computed with the same rounding
 * as its neighbours', so two boxes that overlap always reach a common cell,
 * and the sorted output does not depend on how the grid is laid.
 * stats.broadphase_tests counts the cells looked up and the boxes compared,
 * the broadphase's work, so tests can see that it follows what moves.
 *
 * Notes
 *   - Nothing is allocated: buckets and pairs are sized from the def (2 buckets
 *     per body slot, pair_capacity pairs); a step clears the buckets of the
 *     bodies it hashed, not of the capacity.
 *   - A box wider than the coarsest level (over 2^20 x the base cell, or
 *     1e7 m) goes to a short "huge" list compared with every active body;
 *     planes are never hashed and are paired with every active body whose
 *     swept sphere reaches them.
 *   - Collision filters (cr_filter: docs/filters.md) and sensors (sensors.c
 *     finds their overlaps) drop a pair before it is
 *     counted, so a filtered pair costs neither pair_capacity nor any
 *     narrowphase work; the world def's pair_filter hook then sees the
 *     surviving pairs in sorted order, so its calls do not depend on the grid.
 *   - Pairs without an awake dynamic body (except a sleeper next to a moving
 *     kinematic body, which must wake), and jointed pairs that must not
 *     collide, are never reported. Pairs beyond pair_capacity are counted as
 *     overflow (planes' pairs are kept first).
 *   - The base cell edge is def.broadphase_cell, or 1.5 x the mean bounding
 *     diameter of the moving bodies; it only decides how the levels are laid.
 */
#include "solver/solver.h"

#include <string.h>

/* Levels base x 2^l for l in [BP_LEVEL_MIN, BP_LEVEL_MAX]: 1/4096 of the
 * base cell (finer than any box, which is at least 2 x CR_CANDIDATE_SLOP
 * wide for bodies of ordinary size) to 2^20 x it. */
#define BP_LEVEL_MIN (-12)
#define BP_LEVEL_MAX 20
#define BP_LEVELS (BP_LEVEL_MAX - BP_LEVEL_MIN + 1)
#define BP_CELL_TOP CR_R(1.0e7) /* m: no coarser cell, so cell indices stay far inside the clamp */

typedef struct bp_range {
    int32_t lo[3];        ///< cell of the lower corner in the body's level
    cr_vec3 bmin, bmax;   ///< m, swept box
    uint8_t kind;         ///< BP_NONE, BP_HASHED, BP_HUGE, BP_PLANE
    uint8_t level;        ///< level index (l - BP_LEVEL_MIN) of a hashed box
    uint8_t active;       ///< moves this step: awake dynamic, or kinematic with a velocity
    uint8_t pad_;
} bp_range;

enum { BP_NONE, BP_HASHED, BP_HUGE, BP_PLANE };

typedef struct bp_entry {
    int32_t c[3];
    uint32_t body;
} bp_entry;

/* The levels of this step: cell edges, their inverses, and who is in them. */
typedef struct bp_levels {
    cr_real cell[BP_LEVELS], inv[BP_LEVELS];
    uint32_t count[BP_LEVELS], active[BP_LEVELS];
    int32_t top; ///< highest usable level index
} bp_levels;

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
    b += ((uint64_t)def->body_capacity * sizeof(uint32_t) + 15u) & ~15ull; /* active list, then huge list from the top */
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

static uint32_t cell_hash(int32_t x, int32_t y, int32_t z, uint32_t level, uint32_t mask) {
    uint32_t h = (uint32_t)x * 73856093u ^ (uint32_t)y * 19349663u ^ (uint32_t)z * 83492791u ^ level * 2654435761u;
    h ^= h >> 15;
    return h & mask;
}

/* Cell index of a coordinate, kept well inside int32 for absurd positions. */
static int32_t cell_of(cr_real x, cr_real inv_cell) {
    cr_real q = cr_mul(x, inv_cell);
    q = cr_clamp(q, CR_R(-1.0e8), CR_R(1.0e8));
    return cr_floor_int(q);
}

static void cells_of(cr_vec3 p, cr_real inv, int32_t c[3]) {
    c[0] = cell_of(p.x, inv);
    c[1] = cell_of(p.y, inv);
    c[2] = cell_of(p.z, inv);
}

static bool boxes_overlap(const bp_range *a, const bp_range *b) {
    return a->bmin.x <= b->bmax.x && b->bmin.x <= a->bmax.x && a->bmin.y <= b->bmax.y && b->bmin.y <= a->bmax.y &&
           a->bmin.z <= b->bmax.z && b->bmin.z <= a->bmax.z;
}

typedef struct bp_out {
    uint64_t *pairs;
    uint32_t n, cap, overflow;
    uint32_t tests; ///< cells looked up + boxes compared
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
    if (s->bodies[a].sensor || s->bodies[b].sensor) return; /* sensors only overlap (sensors.c) */
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

static cr_real auto_cell(const cr_body *bodies, uint32_t nb) {
    cr_real sum = 0;
    int32_t n = 0;
    for (uint32_t i = 0; i < nb; ++i) {
        const cr_body *b = &bodies[i];
        if (!b->alive || b->type == CR_BODY_STATIC || b->shape.type == CR_SHAPE_PLANE) continue;
        sum += b->bound_radius;
        ++n;
    }
    if (n == 0) return CR_R(2);
    cr_real mean_radius = cr_div(sum, cr_from_int(n));
    cr_real cell = cr_mul(mean_radius, CR_R(3)); /* 1.5 x the mean diameter */
    return cr_max(cell, CR_R(0.05));
}

cr_real cri_broadphase_base_cell(const cr_world *w) {
    return w->def.broadphase_cell > 0 ? w->def.broadphase_cell : auto_cell(cr_world_bodies_c(w), w->body_high);
}

/* Cell edges base x 2^l, by halving and doubling (exact in float). */
static void levels_make(bp_levels *lv, cr_real base) {
    const int32_t zero = -BP_LEVEL_MIN;
    lv->cell[zero] = base;
    for (int32_t k = zero; k-- > 0;) lv->cell[k] = cr_mul(lv->cell[k + 1], CR_R(0.5));
    lv->top = zero;
    for (int32_t k = zero + 1; k < BP_LEVELS && lv->cell[k - 1] <= BP_CELL_TOP; ++k) {
        lv->cell[k] = cr_mul(lv->cell[k - 1], CR_R(2));
        lv->top = k;
    }
    for (int32_t k = 0; k <= lv->top; ++k) {
        lv->inv[k] = cr_div(CR_R(1), lv->cell[k]);
        lv->count[k] = lv->active[k] = 0;
    }
}

/* Does the box reach at most two cells per axis at level k? */
static bool fits(const bp_range *r, const bp_levels *lv, int32_t k, int32_t lo[3]) {
    int32_t hi[3];
    cells_of(r->bmin, lv->inv[k], lo);
    cells_of(r->bmax, lv->inv[k], hi);
    return hi[0] - lo[0] <= 1 && hi[1] - lo[1] <= 1 && hi[2] - lo[2] <= 1;
}

/* The finest level whose cell is at least the box's widest extent and that
 * the box fits (rounding may push it one level up); -1 when none does. */
static int32_t level_of(bp_range *r, const bp_levels *lv) {
    cr_vec3 ext = cr_v3_sub(r->bmax, r->bmin);
    cr_real wide = cr_max(ext.x, cr_max(ext.y, ext.z));
    int32_t k = -BP_LEVEL_MIN;
    while (k < lv->top && wide > lv->cell[k]) ++k;
    while (k > 0 && wide <= lv->cell[k - 1]) --k;
    for (; k <= lv->top; ++k)
        if (fits(r, lv, k, r->lo)) return k;
    return -1;
}

typedef struct bp_grid {
    const bp_entry *entry;
    const uint32_t *start; ///< bucket k spans [k == 0 ? 0 : start[k-1], start[k])
    uint32_t mask;
} bp_grid;

/* Body i against the entries of level k whose lower corner is in the cells
 * from (its lower corner - 1) to its upper corner. same_level: i's own level,
 * where an active partner of a lower slot found the pair on its turn;
 * only_active: i rests, so only the moving bodies there can pair with it. */
static void scan_level(cr_step *s, bp_out *out, const bp_grid *g, const bp_range *range, const bp_levels *lv,
                       uint32_t i, int32_t k, bool same_level, bool only_active) {
    const bp_range *ri = &range[i];
    int32_t lo[3], hi[3];
    if (same_level) {
        for (int a = 0; a < 3; ++a) lo[a] = ri->lo[a];
        cells_of(ri->bmax, lv->inv[k], hi);
    } else {
        cells_of(ri->bmin, lv->inv[k], lo);
        cells_of(ri->bmax, lv->inv[k], hi);
    }
    for (int32_t cz = lo[2] - 1; cz <= hi[2]; ++cz)
        for (int32_t cy = lo[1] - 1; cy <= hi[1]; ++cy)
            for (int32_t cx = lo[0] - 1; cx <= hi[0]; ++cx) {
                uint32_t h = cell_hash(cx, cy, cz, (uint32_t)k, g->mask);
                uint32_t e0 = h == 0 ? 0 : g->start[h - 1], e1 = g->start[h];
                out->tests++;
                for (uint32_t e = e0; e < e1; ++e) {
                    const bp_entry *eb = &g->entry[e];
                    if (eb->c[0] != cx || eb->c[1] != cy || eb->c[2] != cz) continue;
                    const bp_range *rj = &range[eb->body];
                    if (rj->level != (uint8_t)k || eb->body == i) continue; /* another level shares the bucket */
                    if (only_active && !rj->active) continue;
                    if (same_level && rj->active && eb->body < i) continue;
                    out->tests++;
                    if (boxes_overlap(ri, rj)) emit(s, out, i, eb->body);
                }
            }
}

void cri_broadphase(cr_step *s) {
    cr_world *w = s->w;
    const cr_world_def *def = &w->def;
    uint32_t mark = cr_arena_pos(&w->scratch);
    uint32_t entry_cap = def->body_capacity;
    uint32_t buckets_cap = bucket_count_for(entry_cap);
    uint32_t off_r = cri_arena_push_uninit(&w->scratch, def->body_capacity * (uint32_t)sizeof(bp_range), 16);
    uint32_t off_e = cri_arena_push_uninit(&w->scratch, entry_cap * (uint32_t)sizeof(bp_entry), 16);
    uint32_t off_b = cri_arena_push_uninit(&w->scratch, (buckets_cap + 1u) * (uint32_t)sizeof(uint32_t), 16);
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
    uint32_t *list = CR_AT(w, off_l, uint32_t); /* active bodies from the front, huge boxes from the back */
    uint32_t *planes = CR_AT(w, off_p, uint32_t);
    uint32_t nactive = 0, nhuge = 0, nplanes = 0, nhashed = 0;

    bp_levels lv;
    levels_make(&lv, cri_broadphase_base_cell(w));
    cr_real g_dt2 = cr_mul(cr_v3_len(def->gravity), cr_mul(s->dt, s->dt));
    cr_real grow = CR_CANDIDATE_SLOP + g_dt2;

    /* swept boxes and their levels */
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
        r->active = s->sb[i].dynamic || moving_kinematic(b);
        if (r->active) list[nactive++] = i;
        int32_t k = level_of(r, &lv);
        if (k < 0) {
            r->kind = BP_HUGE;
            list[def->body_capacity - 1u - nhuge++] = i;
            continue;
        }
        r->kind = BP_HASHED;
        r->level = (uint8_t)k;
        lv.count[k]++;
        lv.active[k] += r->active;
        ++nhashed;
    }

    /* counting sort of the hashed boxes into buckets, in body-slot order;
     * only the buckets this step's boxes need are cleared */
    uint32_t buckets = bucket_count_for(nhashed);
    uint32_t mask = buckets - 1u;
    memset(start, 0, (buckets + 1u) * sizeof(uint32_t));
    for (uint32_t i = 0; i < s->nb; ++i) {
        const bp_range *r = &range[i];
        if (r->kind == BP_HASHED) start[cell_hash(r->lo[0], r->lo[1], r->lo[2], r->level, mask) + 1]++;
    }
    for (uint32_t k = 0; k < buckets; ++k) start[k + 1] += start[k];
    /* fill using start[k] as a cursor; afterwards start[k] is the end of bucket k, i.e. the start of k+1 */
    for (uint32_t i = 0; i < s->nb; ++i) {
        const bp_range *r = &range[i];
        if (r->kind != BP_HASHED) continue;
        bp_entry *e = &entry[start[cell_hash(r->lo[0], r->lo[1], r->lo[2], r->level, mask)]++];
        e->c[0] = r->lo[0];
        e->c[1] = r->lo[1];
        e->c[2] = r->lo[2];
        e->body = i;
    }

    bp_out out = {s->pairs, 0, def->pair_capacity, 0, 0};
    /* planes first: when pair_capacity runs out, the ground's pairs are kept.
     * A plane is static, so only an active body pairs with it. */
    for (uint32_t p = 0; p < nplanes; ++p) {
        uint32_t i = planes[p];
        const cr_body *pb = &s->bodies[i];
        cr_vec3 n = cr_quat_rotate(pb->xf.q, cr_v3(0, CR_R(1), 0));
        for (uint32_t a = 0; a < nactive; ++a) {
            uint32_t j = list[a];
            const cr_body *b = &s->bodies[j];
            cr_real d = cr_v3_dot(n, cr_v3_sub(b->xf.p, pb->xf.p));
            cr_real approach = cr_mul(s->dt, cr_v3_dot(n, b->v));
            if (approach > 0) approach = 0;
            out.tests++;
            if (d + approach - b->bound_radius - grow < 0) emit(s, &out, i, j);
        }
    }

    /* huge boxes: against each other, then against every active body */
    for (uint32_t h = 0; h < nhuge; ++h) {
        uint32_t i = list[def->body_capacity - 1u - h];
        for (uint32_t h2 = h + 1; h2 < nhuge; ++h2) {
            uint32_t j = list[def->body_capacity - 1u - h2];
            out.tests++;
            if ((range[i].active || range[j].active) && boxes_overlap(&range[i], &range[j])) emit(s, &out, i, j);
        }
        /* a moving huge body (a rare thing) meets resting bodies too */
        uint32_t n = range[i].active ? s->nb : nactive;
        for (uint32_t a = 0; a < n; ++a) {
            uint32_t j = range[i].active ? a : list[a];
            if (range[j].kind != BP_HASHED) continue;
            out.tests++;
            if (boxes_overlap(&range[i], &range[j])) emit(s, &out, i, j);
        }
    }

    /* the grid: an active body looks in its own level and every coarser one
     * that holds a body; a resting body only in coarser levels with an
     * active body. Slot order, so the emitted order is the same everywhere. */
    bp_grid g = {entry, start, mask};
    bool any_active_level = false;
    for (int32_t k = 0; k <= lv.top; ++k) any_active_level |= lv.active[k] > 0;
    for (uint32_t i = 0; i < s->nb && any_active_level; ++i) {
        const bp_range *ri = &range[i];
        if (ri->kind != BP_HASHED) continue;
        int32_t own = ri->level;
        if (ri->active) scan_level(s, &out, &g, range, &lv, i, own, true, false);
        for (int32_t k = own + 1; k <= lv.top; ++k) {
            if (ri->active ? lv.count[k] == 0 : lv.active[k] == 0) continue;
            scan_level(s, &out, &g, range, &lv, i, k, false, !ri->active);
        }
    }
    cri_sort_u64(out.pairs, CR_AT(w, off_t, uint64_t), out.n);
    if (def->pair_filter != NULL) out.n = host_filter(s, out.pairs, out.n);
    s->npairs = out.n;
    w->stats.stage[CR_STAGE_broadphase].work = out.n;
    w->stats.stage[CR_STAGE_broadphase].overflow += out.overflow;
    w->stats.broadphase_tests += out.tests;
    cri_arena_pop_to(&w->scratch, mark);
}
