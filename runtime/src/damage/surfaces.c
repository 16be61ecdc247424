/* surfaces.c — which body owns which surface copy (geometry/surface_copy.h),
 * and the public reads of a body's current surface.
 *
 * A body with a copy has its shape's asset slot replaced, inside the runtime
 * only, by CR_SURFACE_SLOT_FLAG | record, so the solver collides with the
 * moved surface without knowing it moved; cr_body_get_shape gives the host
 * the cooked slot back.
 */
#include "damage/stage.h"
#include "damage/dent_model.h"
#include "base/hash.h"

#include <string.h>

static cr_surface_copy *records(cr_world *w) { return CR_AT(w, CR_DAMAGE(w)->surfaces, cr_surface_copy); }
static const cr_surface_copy *records_c(const cr_world *w) {
    return CR_AT(w, CR_DAMAGE(w)->surfaces, const cr_surface_copy);
}

const cr_asset *cri_damage_surface_view(const cr_world *w, uint32_t slot) {
    uint32_t i = slot & ~CR_SURFACE_SLOT_FLAG;
    if ((slot & CR_SURFACE_SLOT_FLAG) == 0 || i >= CR_DAMAGE(w)->surface_capacity) return NULL;
    const cr_surface_copy *r = &records_c(w)[i];
    return r->body_index1 ? CR_AT(w, r->view, const cr_asset) : NULL;
}

const cr_asset *cri_damage_rest_asset(const cr_world *w, uint32_t slot) {
    if ((slot & CR_SURFACE_SLOT_FLAG) == 0) return cr_world_asset(w, slot);
    uint32_t i = slot & ~CR_SURFACE_SLOT_FLAG;
    if (i >= CR_DAMAGE(w)->surface_capacity || records_c(w)[i].body_index1 == 0) return NULL;
    return cr_world_asset(w, records_c(w)[i].rest_slot);
}

uint32_t cri_damage_rest_slot(const cr_world *w, uint32_t slot) {
    uint32_t i = slot & ~CR_SURFACE_SLOT_FLAG;
    if ((slot & CR_SURFACE_SLOT_FLAG) == 0) return slot;
    return i < CR_DAMAGE(w)->surface_capacity ? records_c(w)[i].rest_slot : 0;
}

cr_surface_copy *cri_damage_surface_of(cr_world *w, uint32_t body_index1) {
    if (body_index1 == 0 || body_index1 > w->body_high) return NULL;
    const cr_body *b = &cr_world_bodies(w)[body_index1 - 1];
    if (b->shape.type != CR_SHAPE_MESH || (b->shape.asset & CR_SURFACE_SLOT_FLAG) == 0) return NULL;
    return &records(w)[b->shape.asset & ~CR_SURFACE_SLOT_FLAG];
}

cr_status cri_damage_surface_attach(cr_world *w, uint32_t body_index1, cr_surface_copy **out) {
    cr_body *b = &cr_world_bodies(w)[body_index1 - 1];
    *out = cri_damage_surface_of(w, body_index1);
    if (*out != NULL) return CR_OK;
    if (b->shape.type != CR_SHAPE_MESH) return CR_ERR_DEF_INVALID;
    const cr_asset *rest = cr_world_asset(w, b->shape.asset);
    if (rest == NULL) return CR_ERR_DEF_INVALID;
    uint32_t need = cri_surface_copy_bytes(rest);
    /* a free record whose region has exactly this size first, then a record without a region */
    uint32_t pick = UINT32_MAX;
    for (uint32_t i = 0; i < CR_DAMAGE(w)->surface_capacity; ++i) {
        cr_surface_copy *r = &records(w)[i];
        if (r->body_index1 != 0) continue;
        if (r->region != 0 && r->region_bytes == need) {
            pick = i;
            break;
        }
        if (r->region == 0 && pick == UINT32_MAX) pick = i;
    }
    if (pick == UINT32_MAX) return CR_ERR_CAPACITY;
    cr_surface_copy *r = &records(w)[pick];
    if (r->region == 0) {
        uint32_t region = cri_arena_push(&CR_DAMAGE(w)->surface_memory, (uint8_t *)w, need, 16);
        if (region == CR_NO_OFFSET) return CR_ERR_CAPACITY;
        r->region = region;
        r->region_bytes = need;
    }
    cri_surface_copy_init(r, (uint8_t *)w, r->region, rest);
    r->body_index1 = body_index1;
    r->body_generation = b->generation;
    r->rest_slot = b->shape.asset;
    b->shape.asset = CR_SURFACE_SLOT_FLAG | pick;
    cri_query_stale(w); /* the body leaves the queries' tree for their list of moving surfaces */
    *out = r;
    return CR_OK;
}

void cri_damage_surface_detach(cr_world *w, uint32_t body_index1) {
    cr_surface_copy *r = cri_damage_surface_of(w, body_index1);
    if (r == NULL) return;
    cr_world_bodies(w)[body_index1 - 1].shape.asset = r->rest_slot;
    r->body_index1 = 0;
    cri_query_stale(w);
}

void cri_damage_surfaces_rebind(cr_world *w) {
    for (uint32_t i = 0; i < CR_DAMAGE(w)->surface_capacity; ++i) {
        cr_surface_copy *r = &records(w)[i];
        if (r->body_index1) cri_surface_copy_bind(r, (uint8_t *)w, cr_world_asset(w, r->rest_slot));
    }
}

uint64_t cri_damage_surfaces_hash(const cr_world *w, uint64_t h) {
    for (uint32_t i = 0; i < CR_DAMAGE(w)->surface_capacity; ++i) {
        const cr_surface_copy *r = &records_c(w)[i];
        if (r->body_index1 == 0) continue;
        h = cr_hash_u32(h, r->body_index1);
        if (r->changes == 0) continue; /* an unchanged copy equals its cooked asset */
        const cr_asset *view = CR_AT(w, r->view, const cr_asset);
        const cr_vec3 *p = CR_AT(w, r->positions, const cr_vec3);
        for (uint32_t v = 0; v < view->vertex_count; ++v) h = cr_hash_vec3(h, p[v]);
        h = cr_hash_u64(h, r->patch_digest);
        /* where the frame sits (a restore re-places the grid by it); copies that never moved hash as before */
        if (r->frame_shift.x != 0 || r->frame_shift.y != 0 || r->frame_shift.z != 0) h = cr_hash_vec3(h, r->frame_shift);
    }
    return h;
}

cr_status cr_body_get_mesh(const cr_world *w, cr_body_id id, cr_body_mesh *out) {
    if (w == NULL || out == NULL) return CR_ERR_NULL_ARGUMENT;
    memset(out, 0, sizeof *out);
    const cr_body *b = cri_world_body_c(w, id);
    if (b == NULL) return CR_ERR_STALE_HANDLE;
    if (b->shape.type != CR_SHAPE_MESH) return CR_ERR_DEF_INVALID;
    const cr_asset *view = cr_world_asset(w, b->shape.asset), *rest = cri_damage_rest_asset(w, b->shape.asset);
    if (view == NULL || rest == NULL) return CR_ERR_DEF_INVALID;
    const cr_surface_copy *r = cri_damage_surface_of((cr_world *)w, id.index1);
    out->vertex_count = view->vertex_count;
    out->triangle_count = view->triangle_count;
    out->positions = view->positions;
    out->normals = view->normals;
    out->rest_positions = rest->positions;
    out->rest_offset = r ? r->frame_shift : cr_v3_zero();
    out->triangles = view->triangles;
    out->dirty_first = 1, out->dirty_last = 0, out->dirty_range_count = 0;
    if (r != NULL) {
        cri_ranges_span(&r->dirty, &out->dirty_first, &out->dirty_last);
        out->dirty_range_count = cri_ranges_export(&r->dirty, out->dirty_ranges);
    }
    out->dent_count = cri_dent_model_dent_count(w, id.index1);
    return CR_OK;
}

cr_status cr_body_clear_dirty(cr_world *w, cr_body_id id) {
    if (w == NULL) return CR_ERR_NULL_ARGUMENT;
    if (cri_world_body(w, id) == NULL) return CR_ERR_STALE_HANDLE;
    cr_surface_copy *r = cri_damage_surface_of(w, id.index1);
    if (r != NULL) cri_ranges_clear(&r->dirty);
    return CR_OK;
}

const cr_asset *cr_body_get_asset(const cr_world *w, cr_body_id id) {
    const cr_body *b = w ? cri_world_body_c(w, id) : NULL;
    if (b == NULL || b->shape.type != CR_SHAPE_MESH) return NULL;
    return cr_world_asset(w, b->shape.asset);
}
