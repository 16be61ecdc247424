/* fracture_dents.c — dents before the break, kept after it (seed 000 §1 and
 * Fig. 3: a wall dented over time until a ball breaks through it).
 *
 * While whole, a fracturable body may dent like any mesh body (both models
 * attached). When it splits, its pieces dent with the same def from then on,
 * and the dents it had are carried over: each piece's surface copy takes, at
 * every corner, the displacement of the nearest corner of the whole's dented
 * surface within two mean edges (corners on the cut faces are farther than
 * that from the old surface and stay put), and its distance grid is patched
 * over the moved corners' box as a dent's is. To read the whole's dented
 * surface the whole is destroyed only after its pieces took it over, at the
 * end of the same step. A piece the dent model has no room for
 * (damage.dent.body_capacity) splits off undented, counted in
 * stats.fracture.shrunk.
 */
#include "damage/stage.h"
#include "damage/fracture_model.h"
#include "damage/dent_model.h"

#include <string.h>

bool cri_fracture_dents_keep(cr_world *w, cr_fracture_actor *a) {
    a->dent_pieces = cri_dent_model_def_of(w, a->whole_index1, &a->dent_def) ? 1 : 0;
    return a->dent_pieces != 0;
}

typedef struct carry {
    const cr_vec3 *now, *rest;    /* the whole's dented and cooked corners, whole frame */
    const uint32_t *near;         /* candidate corners: near a dent */
    uint32_t near_count;
    cr_real reach;                /* m */
    cr_transform pose;            /* piece frame -> whole frame */
} carry;

/* the displacement at a point of the piece (piece frame in and out) */
static cr_vec3 carried(const void *ctx, cr_vec3 p) {
    const carry *c = ctx;
    cr_vec3 x = cr_transform_point(c->pose, p);
    cr_real best = cr_mul(c->reach, c->reach);
    uint32_t pick = UINT32_MAX;
    for (uint32_t i = 0; i < c->near_count; ++i) {
        cr_real d = cr_v3_len_sq(cr_v3_sub(c->rest[c->near[i]], x));
        if (d < best) best = d, pick = c->near[i];
    }
    if (pick == UINT32_MAX) return cr_v3_zero();
    return cr_quat_inv_rotate(c->pose.q, cr_v3_sub(c->now[pick], c->rest[pick]));
}

void cri_fracture_dents_carry(cr_world *w, cr_fracture_actor *a, uint32_t k) {
    cr_fracture_piece *p = &cri_fracture_pieces(w, a)[k];
    if (cr_dent_attach(w, p->body, &a->dent_def) != CR_OK) {
        w->stats.fracture.shrunk++;
        return;
    }
    cr_surface_copy *from = a->whole_index1 ? cri_damage_surface_of(w, a->whole_index1) : NULL;
    cr_surface_copy *to = cri_damage_surface_of(w, p->body.index1);
    if (from == NULL || to == NULL) return;
    uint8_t *block = (uint8_t *)w;
    const cr_asset *whole_rest = cr_world_asset(w, from->rest_slot);
    const cr_asset *piece_rest = cr_world_asset(w, to->rest_slot);
    const cr_vec3 *now = cr_surface_copy_positions(from, block);
    /* the corners near a dent, into scratch */
    uint32_t off = cri_arena_push(&w->scratch, block, whole_rest->vertex_count * (uint32_t)sizeof(uint32_t), 16);
    if (off == CR_NO_OFFSET) {
        w->stats.fracture.shrunk++;
        return;
    }
    uint32_t *near = CR_AT(w, off, uint32_t);
    cr_real edge = whole_rest->triangle_count
                       ? cr_sqrt(cr_mul(cr_div(whole_rest->surface_area, cr_from_int((int32_t)whole_rest->triangle_count)), CR_R(2.309401076758503)))
                       : CR_R(0.01);
    cr_real reach = edge + edge;
    cr_vec3 lo = cr_v3(CR_REAL_MAX, CR_REAL_MAX, CR_REAL_MAX), hi = cr_v3(-CR_REAL_MAX, -CR_REAL_MAX, -CR_REAL_MAX);
    bool any = false;
    for (uint32_t i = 0; i < whole_rest->vertex_count; ++i)
        if (cr_v3_len_sq(cr_v3_sub(now[i], whole_rest->positions[i])) > 0) {
            lo = cr_v3_min(lo, whole_rest->positions[i]), hi = cr_v3_max(hi, whole_rest->positions[i]);
            any = true;
        }
    if (!any) return;
    cr_vec3 grow = cr_v3(reach, reach, reach);
    lo = cr_v3_sub(lo, grow), hi = cr_v3_add(hi, grow);
    uint32_t n = 0;
    for (uint32_t i = 0; i < whole_rest->vertex_count; ++i) {
        cr_vec3 q = whole_rest->positions[i];
        if (q.x >= lo.x && q.x <= hi.x && q.y >= lo.y && q.y <= hi.y && q.z >= lo.z && q.z <= hi.z) near[n++] = i;
    }
    carry c = {now, whole_rest->positions, near, n, reach, p->pose};
    cr_vec3 *pos = cr_surface_copy_positions(to, block);
    cr_vertex_ranges moved;
    cri_ranges_clear(&moved);
    cr_real most = 0;
    cr_vec3 mlo = cr_v3(CR_REAL_MAX, CR_REAL_MAX, CR_REAL_MAX), mhi = cr_v3(-CR_REAL_MAX, -CR_REAL_MAX, -CR_REAL_MAX);
    for (uint32_t i = 0; i < piece_rest->vertex_count; ++i) {
        cr_vec3 d = carried(&c, piece_rest->positions[i]);
        if (d.x == 0 && d.y == 0 && d.z == 0) continue;
        pos[i] = cr_v3_add(piece_rest->positions[i], d);
        cri_ranges_add(&moved, i, i);
        most = cr_max(most, cr_v3_len(d));
        mlo = cr_v3_min(mlo, piece_rest->positions[i]), mhi = cr_v3_max(mhi, piece_rest->positions[i]);
    }
    w->stats.fracture.work += piece_rest->vertex_count;
    if (moved.count == 0) return;
    cr_body *b = cri_world_body(w, p->body);
    cri_surface_copy_mark_ranges(to, &moved);
    w->stats.fracture.work += cri_surface_copy_refresh(to, block, &b->bound_radius);
    uint32_t nodes = piece_rest->sdf_dims[0] * piece_rest->sdf_dims[1] * piece_rest->sdf_dims[2];
    uint32_t soff = cri_arena_push(&w->scratch, block, nodes * (uint32_t)sizeof(cr_real), 16);
    if (soff == CR_NO_OFFSET) {
        w->stats.fracture.shrunk++; /* the surface carries the dent, the grid does not */
        return;
    }
    cr_vec3 centre = cr_v3_scale(cr_v3_add(mlo, mhi), CR_R(0.5));
    cr_real half = cr_half(cr_v3_len(cr_v3_sub(mhi, mlo)));
    cr_surface_patch pr = cri_surface_copy_patch(to, block, centre, half + most, most, carried, &c, nodes, CR_AT(w, soff, cr_real), nodes);
    w->stats.fracture.work += pr.nodes;
    if (pr.shrunk) w->stats.fracture.shrunk++;
}

/* The dented surface of a static piece's body about to be replaced. */
typedef struct saved_surface {
    uint32_t positions, sdf;      /* scratch offsets, 0: nothing saved */
    uint32_t vertices, nodes;
    uint64_t patch_digest;
    uint32_t changes;
} saved_surface;

static void save_surface(cr_world *w, uint32_t body_index1, saved_surface *out) {
    memset(out, 0, sizeof *out);
    cr_surface_copy *from = cri_damage_surface_of(w, body_index1);
    if (from == NULL || from->changes == 0) return; /* never dented: nothing to keep */
    uint8_t *block = (uint8_t *)w;
    const cr_asset *rest = cr_world_asset(w, from->rest_slot);
    out->vertices = rest->vertex_count;
    out->nodes = rest->sdf_dims[0] * rest->sdf_dims[1] * rest->sdf_dims[2];
    out->positions = cri_arena_push(&w->scratch, block, out->vertices * (uint32_t)sizeof(cr_vec3), 16);
    out->sdf = cri_arena_push(&w->scratch, block, out->nodes * (uint32_t)sizeof(cr_real), 16);
    if (out->positions == CR_NO_OFFSET || out->sdf == CR_NO_OFFSET) {
        w->stats.fracture.shrunk++; /* no room to carry it: the piece goes on undented */
        out->positions = out->sdf = 0;
        return;
    }
    memcpy(CR_AT(w, out->positions, cr_vec3), cr_surface_copy_positions(from, block), out->vertices * sizeof(cr_vec3));
    memcpy(CR_AT(w, out->sdf, cr_real), block + from->sdf, out->nodes * sizeof(cr_real));
    out->patch_digest = from->patch_digest;
    out->changes = from->changes;
    w->stats.fracture.work += out->vertices + out->nodes;
}

static void restore_surface(cr_world *w, cr_fracture_piece *p, const saved_surface *sv) {
    if (sv->positions == 0) return;
    cr_surface_copy *to = cri_damage_surface_of(w, p->body.index1);
    if (to == NULL) return;
    uint8_t *block = (uint8_t *)w;
    const cr_asset *rest = cr_world_asset(w, to->rest_slot);
    if (rest->vertex_count != sv->vertices || rest->sdf_dims[0] * rest->sdf_dims[1] * rest->sdf_dims[2] != sv->nodes) return;
    memcpy(cr_surface_copy_positions(to, block), CR_AT(w, sv->positions, cr_vec3), sv->vertices * sizeof(cr_vec3));
    memcpy(block + to->sdf, CR_AT(w, sv->sdf, cr_real), sv->nodes * sizeof(cr_real));
    to->patch_digest = sv->patch_digest;
    cri_surface_copy_mark(to, 0, sv->vertices - 1);
    cr_body *b = cri_world_body(w, p->body);
    w->stats.fracture.work += cri_surface_copy_refresh(to, block, &b->bound_radius) + sv->nodes;
    to->changes = sv->changes + 1;
}

void cri_fracture_dents_replace(cr_world *w, cr_fracture_actor *a, uint32_t k) {
    cr_fracture_piece *p = &cri_fracture_pieces(w, a)[k];
    cr_body_id old = p->old_body;
    p->old_body.index1 = 0, p->old_body.generation = 0;
    saved_surface sv;
    memset(&sv, 0, sizeof sv);
    if (cri_world_body_c(w, old) != NULL) {
        save_surface(w, old.index1, &sv);
        cri_fracture_slots(w)[old.index1 - 1].actor1 = 0; /* its detach must not touch piece k (its new body) */
        cr_body_destroy(w, old);
    }
    cri_fracture_dents_carry(w, a, k);
    restore_surface(w, p, &sv);
}
