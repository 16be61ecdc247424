/* fracture_carry.c — a dented whole's dents carried onto its pieces, slice by
 * slice within the damage stage's one budget (issue 25; docs/fracture.md,
 * "Dents", and docs/frame-budget.md).
 *
 * Each piece's surface takes, at every corner, the displacement of the
 * nearest corner of the whole's dented surface within two mean edges
 * (corners on the cut faces are farther than that from the old surface and
 * stay put), and its distance grid is patched over the moved corners' box as
 * a dent's is. Done all at once in the step of the split this was the wall
 * scene's 25-35 ms step: every grid node of every piece asked its nearest
 * corner by a scan of all the corners near the dents.
 *
 * So the work shrinks and is cut:
 *   at the split (in the step's budget, fracture_pieces.c) the corners near
 *     the whole's dents are kept in the region, sorted into a bucket grid of
 *     cells at least `reach` wide: a lookup visits at most 3 x 3 x 3 cells,
 *     and the nearest corner is the one the scan found (ties go to the
 *     lowest vertex index, as the scan's strict < did), so the pieces come
 *     out bit for bit as before. The whole can then go at the end of that
 *     step, as a whole without dents does;
 *   then, from the next step on, the pieces in index order, each in slices:
 *     plan    its vertices' carried moves (nothing written): the moved box;
 *     rows    its grid patch a row a slice, into the region's staged values;
 *             the grid the solver reads keeps its old values meanwhile;
 *     commit  its vertices, normals, samples and bounds, and the staged
 *             values into its grid, in one slice: the piece collides with
 *             its cooked shape until then, and with the dented one after.
 * A piece waiting for its dents is dentable but no dent job starts on it
 * (dent_model.c asks cri_fracture_carry_pending), so a new dent never lands
 * on a shape about to be overwritten. One break is carried at a time;
 * another dented whole's split waits whole meanwhile (counted waiting).
 */
#include "damage/stage.h"
#include "damage/fracture_model.h"
#include "base/hash.h"

#include <string.h>

enum { FRACTURE_CARRY_PLAN = 0, FRACTURE_CARRY_ROWS = 1, FRACTURE_CARRY_COMMIT = 2 };

typedef struct carry {
    const cr_vec3 *rest;         /* kept corners' cooked places, whole frame, bucket order */
    const cr_vec3 *local;        /* their dents in the piece's frame (rotated once per piece) */
    const uint32_t *index;       /* their vertex indices */
    const uint32_t *cells;       /* bucket starts [cells + 1] */
    const cr_fracture_carry *c;
    cr_transform pose;           /* piece frame -> whole frame */
} carry;

static int32_t clampi(int32_t v, int32_t lo, int32_t hi) { return v < lo ? lo : v > hi ? hi : v; }

static int32_t cell_of(cr_real x, cr_real lo, cr_real inv) { return cr_floor_int(cr_mul(x - lo, inv)); }

/* The corners of one cell against the best so far: the nearest strictly
 * within reach, the lowest vertex index among equals (as a scan in index
 * order with a strict < finds). */
static void scan_cell(const carry *k, uint32_t cell, cr_vec3 x, cr_real *best, uint32_t *pick, uint32_t *pick_index) {
    for (uint32_t i = k->cells[cell]; i < k->cells[cell + 1]; ++i) {
        cr_real d = cr_v3_len_sq(cr_v3_sub(k->rest[i], x));
        if (d < *best || (d == *best && *pick != UINT32_MAX && k->index[i] < *pick_index))
            *best = d, *pick = i, *pick_index = k->index[i];
    }
}

/* the displacement at a point of the piece (piece frame in and out): the
 * nearest kept corner strictly within reach, the lowest index among equals.
 * Cells are searched in rings around the point's own cell; a corner in ring
 * k lies at least (k - 1) cells from the point along some axis, so once
 * rings 0..r are searched and (r cells - slack)^2 passes the best distance
 * so far, no farther corner can win or tie (slack: a thousandth of a cell,
 * far more than the rounding of the cell indices), and the search stops. */
static cr_vec3 carried(const void *ctx, cr_vec3 p) {
    const carry *k = ctx;
    const cr_fracture_carry *c = k->c;
    cr_vec3 x = cr_transform_point(k->pose, p);
    const cr_real px[3] = {x.x, x.y, x.z}, lo[3] = {c->lo.x, c->lo.y, c->lo.z};
    int32_t o[3], a[3], b[3];
    for (int i = 0; i < 3; ++i) {
        /* every corner within reach lies in these cells: rounding is monotone, so q > x - reach gives cell(q) >= cell(x - reach) */
        a[i] = cell_of(px[i] - c->reach, lo[i], c->inv_cell), b[i] = cell_of(px[i] + c->reach, lo[i], c->inv_cell);
        if (b[i] < 0 || a[i] > c->dims[i] - 1) return cr_v3_zero();
        a[i] = clampi(a[i], 0, c->dims[i] - 1), b[i] = clampi(b[i], 0, c->dims[i] - 1);
        o[i] = cell_of(px[i], lo[i], c->inv_cell);
    }
    cr_real best = cr_mul(c->reach, c->reach);
    uint32_t pick = UINT32_MAX, pick_index = UINT32_MAX;
    const cr_real slack = cr_mul(c->cell, CR_R(0.001));
    for (int32_t r = 0;; ++r) {
        for (int32_t z = o[2] - r; z <= o[2] + r; ++z) {
            if (z < a[2] || z > b[2]) continue;
            const bool zface = z == o[2] - r || z == o[2] + r;
            for (int32_t y = o[1] - r; y <= o[1] + r; ++y) {
                if (y < a[1] || y > b[1]) continue;
                const bool face = zface || y == o[1] - r || y == o[1] + r;
                /* off the ring's faces only its two x ends are in the ring */
                const int32_t step = face || r == 0 ? 1 : 2 * r;
                for (int32_t xx = o[0] - r; xx <= o[0] + r; xx += step) {
                    if (xx < a[0] || xx > b[0]) continue;
                    scan_cell(k, (uint32_t)((z * c->dims[1] + y) * c->dims[0] + xx), x, &best, &pick, &pick_index);
                }
            }
        }
        cr_real gap = cr_mul(cr_from_int(r), c->cell) - slack;
        if (gap > 0 && cr_mul(gap, gap) > best) break;
        if (o[0] - r <= a[0] && o[0] + r >= b[0] && o[1] - r <= a[1] && o[1] + r >= b[1] && o[2] - r <= a[2] &&
            o[2] + r >= b[2])
            break; /* the rings have covered every cell within reach */
    }
    return pick == UINT32_MAX ? cr_v3_zero() : k->local[pick];
}

static carry carry_of(const cr_world *w, const cr_fracture_piece *p) {
    const cr_fracture_region *r = &CR_DAMAGE(w)->fracture;
    carry k = {CR_AT(w, r->carry_rest, const cr_vec3), CR_AT(w, r->carry_local, const cr_vec3),
               CR_AT(w, r->carry_index, const uint32_t), CR_AT(w, r->carry_cells, const uint32_t), &r->carry, p->pose};
    return k;
}

bool cri_fracture_carry_busy(const cr_world *w) {
    return w->def.damage.fracture.body_capacity > 0 && CR_DAMAGE(w)->fracture.carry.actor1 != 0;
}

bool cri_fracture_carry_begin(cr_world *w, cr_fracture_actor *a, uint32_t actor_index, cr_fracture_meter *fm) {
    const cr_fracture_budget *fb = &w->def.damage.fracture;
    cr_fracture_region *r = &CR_DAMAGE(w)->fracture;
    cr_fracture_carry *c = &r->carry;
    if (c->actor1 != 0 || a->whole_index1 == 0 || fb->carry_corners == 0) return false;
    cr_surface_copy *from = cri_damage_surface_of(w, a->whole_index1);
    if (from == NULL) return false;
    uint8_t *block = (uint8_t *)w;
    const cr_asset *rest = cr_world_asset(w, from->rest_slot);
    const cr_vec3 *now = cr_surface_copy_positions(from, block);
    cr_real edge = rest->triangle_count
                       ? cr_sqrt(cr_mul(cr_div(rest->surface_area, cr_from_int((int32_t)rest->triangle_count)), CR_R(2.309401076758503)))
                       : CR_R(0.01);
    cr_real reach = edge + edge;
    cr_vec3 lo = cr_v3(CR_REAL_MAX, CR_REAL_MAX, CR_REAL_MAX), hi = cr_v3(-CR_REAL_MAX, -CR_REAL_MAX, -CR_REAL_MAX);
    bool any = false;
    for (uint32_t i = 0; i < rest->vertex_count; ++i)
        if (cr_v3_len_sq(cr_v3_sub(now[i], rest->positions[i])) > 0) {
            lo = cr_v3_min(lo, rest->positions[i]), hi = cr_v3_max(hi, rest->positions[i]);
            any = true;
        }
    cri_damage_charge(&fm->m, CR_DAMAGE_OP_fracture_carry_corner, rest->vertex_count);
    if (!any) return false;
    cr_vec3 grow = cr_v3(reach, reach, reach);
    lo = cr_v3_sub(lo, grow), hi = cr_v3_add(hi, grow);
    uint32_t n = 0;
    for (uint32_t i = 0; i < rest->vertex_count; ++i) {
        cr_vec3 q = rest->positions[i];
        n += q.x >= lo.x && q.x <= hi.x && q.y >= lo.y && q.y <= hi.y && q.z >= lo.z && q.z <= hi.z;
    }
    cri_damage_charge(&fm->m, CR_DAMAGE_OP_fracture_carry_corner, rest->vertex_count);
    if (n > fb->carry_corners) {
        w->stats.fracture.shrunk++; /* no room to keep them: the pieces go on undented */
        return false;
    }
    /* buckets half the reach wide (a lookup then mostly ends after the 27
     * cells around its own), fewer than corners of room; one more cell per
     * axis than the box needs, so no corner's cell is ever clamped */
    cr_real cell = cr_half(reach);
    int32_t dims[3];
    for (;;) {
        cr_real inv = cr_div(CR_R(1), cell);
        uint64_t cells = 1;
        dims[0] = cell_of(hi.x, lo.x, inv) + 2, dims[1] = cell_of(hi.y, lo.y, inv) + 2, dims[2] = cell_of(hi.z, lo.z, inv) + 2;
        for (int k = 0; k < 3; ++k) cells *= (uint64_t)(dims[k] < 1 ? 1 : dims[k]);
        if (cells <= fb->carry_corners) break;
        cell = cell + cell;
    }
    memset(c, 0, sizeof *c);
    c->reach = reach, c->lo = lo, c->cell = cell, c->inv_cell = cr_div(CR_R(1), cell);
    for (int k = 0; k < 3; ++k) c->dims[k] = dims[k] < 1 ? 1 : dims[k];
    const uint32_t cells = (uint32_t)(c->dims[0] * c->dims[1] * c->dims[2]);
    uint32_t *start = CR_AT(w, r->carry_cells, uint32_t);
    memset(start, 0, (cells + 1) * sizeof(uint32_t));
    /* a counting sort by cell, stable: within a cell the corners keep vertex order */
#define CRI_CELL(q)                                                                                                     \
    (uint32_t)((clampi(cell_of((q).z, lo.z, c->inv_cell), 0, c->dims[2] - 1) * c->dims[1] +                            \
                clampi(cell_of((q).y, lo.y, c->inv_cell), 0, c->dims[1] - 1)) * c->dims[0] +                           \
               clampi(cell_of((q).x, lo.x, c->inv_cell), 0, c->dims[0] - 1))
#define CRI_IN(q) ((q).x >= lo.x && (q).x <= hi.x && (q).y >= lo.y && (q).y <= hi.y && (q).z >= lo.z && (q).z <= hi.z)
    for (uint32_t i = 0; i < rest->vertex_count; ++i)
        if (CRI_IN(rest->positions[i])) start[CRI_CELL(rest->positions[i])]++;
    uint32_t sum = 0;
    for (uint32_t i = 0; i <= cells; ++i) {
        uint32_t v = i < cells ? start[i] : 0;
        start[i] = sum, sum += v;
    }
    cr_vec3 *kr = CR_AT(w, r->carry_rest, cr_vec3), *km = CR_AT(w, r->carry_move, cr_vec3);
    uint32_t *ki = CR_AT(w, r->carry_index, uint32_t);
    for (uint32_t i = 0; i < rest->vertex_count; ++i) {
        cr_vec3 q = rest->positions[i];
        if (!CRI_IN(q)) continue;
        uint32_t s = start[CRI_CELL(q)]++;
        kr[s] = q, km[s] = cr_v3_sub(now[i], q), ki[s] = i;
    }
#undef CRI_CELL
#undef CRI_IN
    /* start[i] is now the end of cell i = the start of cell i + 1 */
    for (uint32_t i = cells; i > 0; --i) start[i] = start[i - 1];
    start[0] = 0;
    cri_damage_charge(&fm->m, CR_DAMAGE_OP_fracture_carry_corner, 2ull * rest->vertex_count + cells);
    c->corners = n;
    c->actor1 = actor_index + 1;
    c->break_step = a->dirty_step;
    return true;
}

bool cri_fracture_carry_pending(const cr_world *w, uint32_t body_index1) {
    if (w->def.damage.fracture.body_capacity == 0 || CR_DAMAGE(w)->fracture.carry.actor1 == 0) return false;
    if (body_index1 == 0 || body_index1 > w->body_high) return false;
    const cr_fracture_slot *s = &cri_fracture_slots(w)[body_index1 - 1];
    if (s->actor1 == 0 || s->piece == CR_FRACTURE_WHOLE) return false;
    const cr_fracture_actor *a = &cri_fracture_actors(w)[s->actor1 - 1];
    return cri_fracture_pieces(w, a)[s->piece].carrying != 0;
}

/* The break is carried: every piece has its dents (or went away). */
static void carry_done(cr_world *w, cr_fracture_actor *a) {
    cr_fracture_carry *c = &CR_DAMAGE(w)->fracture.carry;
    if (a != NULL && a->origin_index1 != 0) {
        cr_fracture_piece *pc = cri_fracture_pieces(w, a);
        for (uint32_t k = 0; k < a->piece_count; ++k) pc[k].carrying = 0;
        cri_fracture_committed(w, (uint32_t)c->break_step);
    }
    memset(c, 0, sizeof *c);
}

/* Slice: the piece's vertices' moves, nothing written; its patch box planned. */
static bool plan_piece(cr_world *w, cr_fracture_carry *c, cr_fracture_piece *p, cr_surface_copy *to,
                       const cr_asset *rest, cr_fracture_meter *fm) {
    if (!cri_fracture_fits(fm, cri_damage_cost_ps(w, CR_DAMAGE_OP_fracture_carry_vertex, rest->vertex_count) +
                                   cri_damage_cost_ps(w, CR_DAMAGE_OP_fracture_carry_corner, c->corners)))
        return false;
    /* the dents in this piece's frame, once, instead of at every lookup (the same bits) */
    const cr_fracture_region *r = &CR_DAMAGE(w)->fracture;
    const cr_vec3 *move = CR_AT(w, r->carry_move, const cr_vec3);
    cr_vec3 *local = CR_AT(w, r->carry_local, cr_vec3);
    for (uint32_t i = 0; i < c->corners; ++i) local[i] = cr_quat_inv_rotate(p->pose.q, move[i]);
    cri_damage_charge(&fm->m, CR_DAMAGE_OP_fracture_carry_corner, c->corners);
    carry k = carry_of(w, p);
    c->first = UINT32_MAX, c->last = 0, c->most = 0;
    c->mlo = cr_v3(CR_REAL_MAX, CR_REAL_MAX, CR_REAL_MAX), c->mhi = cr_v3(-CR_REAL_MAX, -CR_REAL_MAX, -CR_REAL_MAX);
    for (uint32_t i = 0; i < rest->vertex_count; ++i) {
        cr_vec3 d = carried(&k, rest->positions[i]);
        if (d.x == 0 && d.y == 0 && d.z == 0) continue;
        c->first = i < c->first ? i : c->first, c->last = i;
        c->most = cr_max(c->most, cr_v3_len(d));
        c->mlo = cr_v3_min(c->mlo, rest->positions[i]), c->mhi = cr_v3_max(c->mhi, rest->positions[i]);
    }
    cri_damage_charge(&fm->m, CR_DAMAGE_OP_fracture_carry_vertex, rest->vertex_count);
    c->box_ok = 0;
    if (c->first != UINT32_MAX) {
        uint32_t nodes = rest->sdf_dims[0] * rest->sdf_dims[1] * rest->sdf_dims[2];
        uint32_t room = w->def.damage.fracture.carry_nodes;
        cr_vec3 centre = cr_v3_scale(cr_v3_add(c->mlo, c->mhi), CR_R(0.5));
        cr_real half = cr_half(cr_v3_len(cr_v3_sub(c->mhi, c->mlo)));
        c->box_ok = cri_surface_patch_box_plan(&c->box, to, (const uint8_t *)w, centre, half + c->most, c->most,
                                               nodes < room ? nodes : room);
        if (c->box.shrunk || !c->box_ok) w->stats.fracture.shrunk++; /* the surface carries the dent, the grid less of it */
    }
    cri_fracture_slice_ran(fm);
    return true;
}

/* Slices: rows of the piece's patch while they fit. */
static bool patch_rows(cr_world *w, cr_fracture_carry *c, cr_fracture_piece *p, const cr_surface_copy *to,
                       cr_fracture_meter *fm) {
    cr_surface_patch_box *b = &c->box;
    carry k = carry_of(w, p);
    cr_real *staged = CR_AT(w, CR_DAMAGE(w)->fracture.staged, cr_real);
    const uint64_t row = (uint64_t)(b->hi[0] - b->lo[0] + 1);
    /* every node of a row is probed (its nearest kept corner); a moved one
     * also takes the pre-image iteration: admitted at the probes, charged
     * at what the row did, so a step passes its allowance by at most one
     * row's moved nodes */
    const uint64_t row_ps = cri_damage_cost_ps(w, CR_DAMAGE_OP_fracture_carry_node, row);
    while (!cri_surface_patch_box_done(b)) {
        if (!cri_fracture_fits(fm, row_ps)) return false;
        cr_surface_patch_count n = {0, 0, 0};
        cri_surface_patch_box_rows(b, to, (const uint8_t *)w, carried, &k, staged, 1, &n);
        cri_damage_charge(&fm->m, CR_DAMAGE_OP_fracture_carry_node, n.probed);
        cri_damage_charge(&fm->m, CR_DAMAGE_OP_fracture_carry_moved, n.moved);
        cri_fracture_slice_ran(fm);
    }
    return true;
}

/* Slice: the piece's carried dents become its shape, drawn and collided, at once. */
static bool commit_piece(cr_world *w, cr_fracture_carry *c, cr_fracture_piece *p, cr_surface_copy *to,
                         const cr_asset *rest, cr_fracture_meter *fm) {
    uint8_t *block = (uint8_t *)w;
    const cr_asset *view = cr_surface_copy_view(to, block);
    uint64_t refresh = (uint64_t)view->triangle_count + 2ull * view->vertex_count + view->sample_count;
    if (!cri_fracture_fits(fm, cri_damage_cost_ps(w, CR_DAMAGE_OP_fracture_carry_vertex, rest->vertex_count) +
                                   cri_damage_cost_ps(w, CR_DAMAGE_OP_fracture_refresh, refresh)))
        return false;
    carry k = carry_of(w, p);
    cr_vec3 *pos = cr_surface_copy_positions(to, block);
    cr_vertex_ranges moved; /* exactly the vertices the carry moves: what the renderer uploads */
    cri_ranges_clear(&moved);
    for (uint32_t i = c->first; i <= c->last; ++i) {
        cr_vec3 d = carried(&k, rest->positions[i]);
        if (d.x == 0 && d.y == 0 && d.z == 0) continue;
        cr_vec3 q = cr_v3_add(rest->positions[i], d);
        if (q.x != pos[i].x || q.y != pos[i].y || q.z != pos[i].z) cri_ranges_add(&moved, i, i);
        pos[i] = q;
    }
    cri_damage_charge(&fm->m, CR_DAMAGE_OP_fracture_carry_vertex, c->last - c->first + 1);
    cr_body *b = cri_world_body(w, p->body);
    cri_surface_copy_mark_ranges(to, &moved);
    cri_damage_charge(&fm->m, CR_DAMAGE_OP_fracture_refresh, cri_surface_copy_refresh(to, block, &b->bound_radius));
    if (c->box_ok) cri_surface_patch_box_commit(&c->box, to, block, CR_AT(w, CR_DAMAGE(w)->fracture.staged, cr_real));
    cri_fracture_slice_ran(fm);
    return true;
}

void cri_fracture_carry_step(cr_world *w, cr_fracture_meter *fm) {
    cr_fracture_carry *c = &CR_DAMAGE(w)->fracture.carry;
    while (c->actor1 != 0) {
        cr_fracture_actor *a = &cri_fracture_actors(w)[c->actor1 - 1];
        if (a->origin_index1 == 0) { /* the host took the actor away */
            carry_done(w, NULL);
            return;
        }
        cr_fracture_piece *pc = cri_fracture_pieces(w, a);
        while (c->piece < a->piece_count && !pc[c->piece].carrying) c->piece++, c->phase = FRACTURE_CARRY_PLAN;
        if (c->piece == a->piece_count) {
            carry_done(w, a);
            return;
        }
        cr_fracture_piece *p = &pc[c->piece];
        cr_surface_copy *to = cri_world_body_c(w, p->body) != NULL ? cri_damage_surface_of(w, p->body.index1) : NULL;
        if (to == NULL) { /* the piece's body went away, or it dents no more */
            p->carrying = 0;
            continue;
        }
        const cr_asset *rest = cr_world_asset(w, to->rest_slot);
        if (c->phase == FRACTURE_CARRY_PLAN) {
            if (!plan_piece(w, c, p, to, rest, fm)) return;
            if (c->first == UINT32_MAX) { /* no dent reaches this piece */
                p->carrying = 0;
                continue;
            }
            c->phase = FRACTURE_CARRY_ROWS;
        }
        if (c->phase == FRACTURE_CARRY_ROWS) {
            if (c->box_ok && !patch_rows(w, c, p, to, fm)) return;
            c->phase = FRACTURE_CARRY_COMMIT;
        }
        if (!commit_piece(w, c, p, to, rest, fm)) return;
        p->carrying = 0;
        c->phase = FRACTURE_CARRY_PLAN;
    }
}

uint64_t cri_fracture_carry_hash(const cr_world *w, uint64_t h) {
    const cr_fracture_carry *c = &CR_DAMAGE(w)->fracture.carry;
    if (c->actor1 == 0) return h;
    h = cr_hash_u32(h, c->actor1);
    h = cr_hash_u32(h, c->piece);
    h = cr_hash_u32(h, c->phase);
    h = cr_hash_u32(h, (uint32_t)c->box.next_y);
    return cr_hash_u32(h, (uint32_t)c->box.next_z);
}
