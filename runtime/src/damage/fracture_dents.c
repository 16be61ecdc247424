/* fracture_dents.c — dents before the break, kept after it (seed 000 §1 and
 * Fig. 3: a wall dented over time until a ball breaks through it).
 *
 * While whole, a fracturable body may dent like any mesh body (both models
 * attached). When it splits, its pieces dent with the same def from then on
 * (their records and surface copies are made here as they become bodies),
 * and the dents the whole had are carried over to them slice by slice
 * within the stage's budget (fracture_carry.c). A static piece that is
 * dented and later cut loose gives its surface and grid, value for value,
 * to the moving body that replaces it (save/restore below: whole copies,
 * one slice, charged when the respawn is queued). A piece the dent model
 * has no room for (damage.dent.body_capacity) splits off undented, counted
 * in stats.fracture.shrunk.
 */
#include "damage/stage.h"
#include "damage/fracture_model.h"
#include "damage/dent_model.h"

#include <string.h>

bool cri_fracture_dents_keep(cr_world *w, cr_fracture_actor *a) {
    a->dent_pieces = cri_dent_model_def_of(w, a->whole_index1, &a->dent_def) ? 1 : 0;
    return a->dent_pieces != 0;
}

bool cri_fracture_dents_attach(cr_world *w, cr_fracture_actor *a, uint32_t k) {
    cr_fracture_piece *p = &cri_fracture_pieces(w, a)[k];
    if (cr_dent_attach(w, p->body, &a->dent_def) == CR_OK) return true;
    w->stats.fracture.shrunk++;
    return false;
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
    (void)cri_surface_copy_refresh(to, block, &b->bound_radius); /* charged when the respawn was queued (fracture_pieces.c) */
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
    if (cri_fracture_dents_attach(w, a, k)) restore_surface(w, p, &sv);
}
