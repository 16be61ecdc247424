/* deform.c — dentable bodies' own copies of their surface and grid (see deform.h). */
#include "deform.h"
#include "dent.h"
#include "hash.h"

#include <string.h>

cr_dent_material cr_default_dent_material(void) {
    cr_dent_material m;
    memset(&m, 0, sizeof m);
    m.threshold_speed = CR_R(1);
    m.speed_scale = CR_R(0.01);
    m.fixed_distance = CR_R(0.02);
    m.max_distance = CR_R(0.1);
    m.blur = CR_R(0.01);
    m.heat_iterations = 4;
    m.modified_iterations = 4;
    m.steepness = CR_R(1);
    m.width_t = 0;
    m.min_cos = CR_R(0.2);
    m.min_cells = 50; /* the seed's range: 50x50 to 200x200 */
    m.max_cells = 200;
    return m;
}

cr_deform_def cr_default_deform_def(void) {
    cr_deform_def d;
    /* no dentable bodies unless the host makes room: a world without dents
     * should not pay megabytes for them */
    d.body_capacity = 0;
    d.bytes = 8u << 20;
    d.dents_per_step = 4;
    d.cells_per_step = 200000;
    d.queue_capacity = 64;
    d.max_cells = 200;
    return d;
}

static uint64_t al16(uint64_t x) { return (x + 15u) & ~(uint64_t)15u; }

/* Build scratch: two dent maps (Jacobi) and the old values of one grid patch. */
static uint64_t scratch_bytes(const cr_deform_def *d) {
    return 2 * al16(cr_dent_scratch_bytes(d->max_cells)) + al16((uint64_t)d->cells_per_step * sizeof(cr_real));
}

uint64_t cr_deform_region_bytes(const cr_world_def *def) {
    const cr_deform_def *d = &def->deform;
    if (d->body_capacity == 0) return 0;
    return al16((uint64_t)d->body_capacity * sizeof(cr_deform_body)) + al16(d->bytes) +
           al16((uint64_t)d->queue_capacity * sizeof(cr_dent_job)) + scratch_bytes(d) + 64u;
}

bool cr_deform_layout(cr_world *w, uint8_t *block) {
    const cr_deform_def *d = &w->def.deform;
    cr_deform_region *r = &w->deform;
    memset(r, 0, sizeof *r);
    if (d->body_capacity == 0) return true;
    r->records = cr_arena_push(&w->persistent, block, d->body_capacity * (uint32_t)sizeof(cr_deform_body), 16);
    uint32_t mem = cr_arena_push(&w->persistent, block, d->bytes, 16);
    r->queue = cr_arena_push(&w->persistent, block, d->queue_capacity * (uint32_t)sizeof(cr_dent_job), 16);
    r->scratch_bytes = (uint32_t)scratch_bytes(d);
    r->scratch = cr_arena_push(&w->persistent, block, r->scratch_bytes, 16);
    cr_arena_init(&r->memory, mem, mem + d->bytes);
    return r->records != CR_NO_OFFSET && mem != CR_NO_OFFSET && r->scratch != CR_NO_OFFSET &&
           (d->queue_capacity == 0 || r->queue != CR_NO_OFFSET);
}

static cr_deform_body *records(cr_world *w) { return CR_AT(w, w->deform.records, cr_deform_body); }
static const cr_deform_body *records_c(const cr_world *w) { return CR_AT(w, w->deform.records, const cr_deform_body); }

const cr_asset *cr_deform_view(const cr_world *w, uint32_t slot) {
    uint32_t i = slot & ~CR_DEFORM_SLOT_FLAG;
    if ((slot & CR_DEFORM_SLOT_FLAG) == 0 || i >= w->def.deform.body_capacity) return NULL;
    const cr_deform_body *r = &records_c(w)[i];
    return r->body_index1 ? CR_AT(w, r->view, const cr_asset) : NULL;
}

const cr_asset *cr_deform_rest_asset(const cr_world *w, uint32_t slot) {
    if ((slot & CR_DEFORM_SLOT_FLAG) == 0) return cr_world_asset(w, slot);
    uint32_t i = slot & ~CR_DEFORM_SLOT_FLAG;
    if (i >= w->def.deform.body_capacity || records_c(w)[i].body_index1 == 0) return NULL;
    return cr_world_asset(w, records_c(w)[i].rest_slot);
}

static uint32_t sdf_nodes(const cr_asset *a) { return a->sdf_dims[0] * a->sdf_dims[1] * a->sdf_dims[2]; }

/* Layout of one body's copies inside its region. */
static uint32_t region_layout(const cr_asset *a, cr_deform_body *r, uint32_t base) {
    uint32_t off = base;
    r->view = off, off += (uint32_t)al16(sizeof(cr_asset));
    r->positions = off, off += (uint32_t)al16((uint64_t)a->vertex_count * sizeof(cr_vec3));
    r->normals = off, off += (uint32_t)al16((uint64_t)a->vertex_count * sizeof(cr_vec3));
    r->samples = off, off += (uint32_t)al16((uint64_t)a->sample_count * sizeof(cr_vec3));
    r->sdf = off, off += (uint32_t)al16((uint64_t)sdf_nodes(a) * sizeof(cr_real));
    return off - base;
}

static void rebind_one(cr_world *w, cr_deform_body *r) {
    const cr_asset *rest = cr_world_asset(w, r->rest_slot);
    cr_asset *view = CR_AT(w, r->view, cr_asset);
    if (rest == NULL) return;
    /* keep the copied bounds; everything that does not deform is the cooked asset's */
    cr_vec3 lo = view->bounds_min, hi = view->bounds_max;
    cr_real radius = view->bound_radius;
    *view = *rest;
    view->bounds_min = lo, view->bounds_max = hi, view->bound_radius = radius;
    view->positions = CR_AT(w, r->positions, const cr_vec3);
    view->normals = CR_AT(w, r->normals, const cr_vec3);
    view->samples = rest->samples ? CR_AT(w, r->samples, const cr_vec3) : NULL;
    view->sdf = CR_AT(w, r->sdf, const cr_real);
}

void cr_deform_rebind(cr_world *w) {
    for (uint32_t i = 0; i < w->def.deform.body_capacity; ++i)
        if (records(w)[i].body_index1) rebind_one(w, &records(w)[i]);
}

cr_status cr_deform_attach(cr_world *w, uint32_t body_index1, const cr_dent_material *m) {
    cr_body *b = &cr_world_bodies(w)[body_index1 - 1];
    if (!m->enabled) return CR_OK;
    if (b->shape.type != CR_SHAPE_MESH || (b->shape.asset & CR_DEFORM_SLOT_FLAG)) return CR_ERR_DEF_INVALID;
    const cr_asset *rest = cr_world_asset(w, b->shape.asset);
    if (rest == NULL) return CR_ERR_DEF_INVALID;
    cr_deform_body probe;
    uint32_t need = region_layout(rest, &probe, 0);
    /* a free record whose region has exactly this size first, then any free record */
    uint32_t pick = UINT32_MAX;
    for (uint32_t i = 0; i < w->def.deform.body_capacity; ++i) {
        cr_deform_body *r = &records(w)[i];
        if (r->body_index1 != 0) continue;
        if (r->region != 0 && r->region_bytes == need) {
            pick = i;
            break;
        }
        if (r->region == 0 && pick == UINT32_MAX) pick = i;
    }
    if (pick == UINT32_MAX) return CR_ERR_CAPACITY;
    cr_deform_body *r = &records(w)[pick];
    if (r->region == 0) {
        uint32_t region = cr_arena_push(&w->deform.memory, (uint8_t *)w, need, 16);
        if (region == CR_NO_OFFSET) return CR_ERR_CAPACITY;
        r->region = region;
        r->region_bytes = need;
    }
    region_layout(rest, r, r->region);
    r->body_index1 = body_index1;
    r->body_generation = b->generation;
    r->rest_slot = b->shape.asset;
    r->dirty_first = 1, r->dirty_last = 0;
    r->dent_count = 0;
    r->patch_digest = 0;
    r->material = *m;
    memcpy(CR_AT(w, r->positions, cr_vec3), rest->positions, (size_t)rest->vertex_count * sizeof(cr_vec3));
    memcpy(CR_AT(w, r->normals, cr_vec3), rest->normals, (size_t)rest->vertex_count * sizeof(cr_vec3));
    if (rest->samples) memcpy(CR_AT(w, r->samples, cr_vec3), rest->samples, (size_t)rest->sample_count * sizeof(cr_vec3));
    memcpy(CR_AT(w, r->sdf, cr_real), rest->sdf, (size_t)sdf_nodes(rest) * sizeof(cr_real));
    cr_asset *view = CR_AT(w, r->view, cr_asset);
    view->bounds_min = rest->bounds_min, view->bounds_max = rest->bounds_max, view->bound_radius = rest->bound_radius;
    rebind_one(w, r);
    b->shape.asset = CR_DEFORM_SLOT_FLAG | pick;
    return CR_OK;
}

void cr_deform_detach(cr_world *w, uint32_t body_index1) {
    for (uint32_t i = 0; i < w->def.deform.body_capacity; ++i)
        if (records(w)[i].body_index1 == body_index1) records(w)[i].body_index1 = 0;
}

uint64_t cr_deform_hash(const cr_world *w, uint64_t h) {
    for (uint32_t i = 0; i < w->def.deform.body_capacity; ++i) {
        const cr_deform_body *r = &records_c(w)[i];
        if (r->body_index1 == 0) continue;
        h = cr_hash_u32(h, r->body_index1);
        h = cr_hash_u32(h, r->dent_count);
        if (r->dent_count == 0) continue; /* an undented copy equals its cooked asset */
        const cr_asset *view = CR_AT(w, r->view, const cr_asset);
        const cr_vec3 *p = CR_AT(w, r->positions, const cr_vec3);
        for (uint32_t v = 0; v < view->vertex_count; ++v) h = cr_hash_vec3(h, p[v]);
        h = cr_hash_u64(h, r->patch_digest);
    }
    /* worlds without dents hash as they did before dents existed */
    if (w->deform.queue_count > 0) h = cr_hash_u32(h, w->deform.queue_count);
    return h;
}

static cr_deform_body *record_for(const cr_world *w, cr_body_id id, const cr_body **body) {
    const cr_body *b = cr_world_body_c(w, id);
    *body = b;
    if (b == NULL || b->shape.type != CR_SHAPE_MESH || (b->shape.asset & CR_DEFORM_SLOT_FLAG) == 0) return NULL;
    return &CR_AT(w, w->deform.records, cr_deform_body)[b->shape.asset & ~CR_DEFORM_SLOT_FLAG];
}

cr_status cr_body_get_mesh(const cr_world *w, cr_body_id id, cr_body_mesh *out) {
    if (w == NULL || out == NULL) return CR_ERR_NULL_ARGUMENT;
    memset(out, 0, sizeof *out);
    const cr_body *b;
    const cr_deform_body *r = record_for(w, id, &b);
    if (b == NULL) return CR_ERR_STALE_HANDLE;
    if (b->shape.type != CR_SHAPE_MESH) return CR_ERR_DEF_INVALID;
    const cr_asset *view = cr_world_asset(w, b->shape.asset), *rest = cr_deform_rest_asset(w, b->shape.asset);
    if (view == NULL || rest == NULL) return CR_ERR_DEF_INVALID;
    out->vertex_count = view->vertex_count;
    out->triangle_count = view->triangle_count;
    out->positions = view->positions;
    out->normals = view->normals;
    out->rest_positions = rest->positions;
    out->triangles = view->triangles;
    out->dirty_first = r ? r->dirty_first : 1;
    out->dirty_last = r ? r->dirty_last : 0;
    out->dent_count = r ? r->dent_count : 0;
    return CR_OK;
}

cr_status cr_body_clear_dirty(cr_world *w, cr_body_id id) {
    if (w == NULL) return CR_ERR_NULL_ARGUMENT;
    const cr_body *b;
    cr_deform_body *r = record_for(w, id, &b);
    if (b == NULL) return CR_ERR_STALE_HANDLE;
    if (r != NULL) r->dirty_first = 1, r->dirty_last = 0;
    return CR_OK;
}
