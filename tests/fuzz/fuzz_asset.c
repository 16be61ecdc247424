/* fuzz_asset.c — libFuzzer harness: the cooked-asset loader, then a world
 * that uses what it accepted.
 *
 * The checksum is recomputed over the mutated bytes before loading, so
 * mutations get past it to the structural and plausibility checks (otherwise
 * nearly every input would stop at CR_ASSET_BAD_CHECKSUM). An accepted asset
 * becomes a dynamic mesh body dropped on a plane next to a sphere, and the
 * world steps a few frames: whatever the loader lets through must simulate
 * without a sanitizer report and stay finite. A soft asset (SPRP, SPRS) is
 * also made a soft body from its cooked springs (it may be refused: a def
 * the integrator cannot keep stable is an error, not a crash).
 *
 *     make fuzz            (FUZZ_SECONDS each, both scalar modes)
 *     build-fuzz/fuzz/fuzz_asset tests/fuzz/corpus/asset
 */
#include "crumple/crumple.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void check_finite(const cr_world *w, cr_body_id id) {
    cr_transform t = cr_body_get_transform(w, id);
    cr_real r[7] = {t.p.x, t.p.y, t.p.z, t.q.x, t.q.y, t.q.z, t.q.w};
    for (int i = 0; i < 7; ++i) {
#if CR_FIXED
        if (r[i] == CR_REAL_MAX || r[i] == -CR_REAL_MAX) abort();
#else
        if (r[i] != r[i] || r[i] - r[i] != 0) abort();
#endif
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > (1u << 22)) return 0;
    uint8_t *bytes = aligned_alloc(16, (size + 15) / 16 * 16 + 16);
    if (bytes == NULL) return 0;
    memcpy(bytes, data, size);
    if (size >= 16) {
        uint64_t h = cr_asset_checksum(bytes + 16, size - 16);
        for (int i = 0; i < 8; ++i) bytes[8 + i] = (uint8_t)(h >> (8 * i));
    }
    size_t need = cr_asset_memory_size(bytes, size);
    if (need == 0 || need > (1u << 26)) {
        free(bytes);
        return 0;
    }
    void *block = aligned_alloc(CR_BLOCK_ALIGN, (need + 15) / 16 * 16);
    cr_asset asset;
    cr_asset_error err;
    if (block == NULL || cr_asset_load(bytes, size, block, need, &asset, &err) != CR_OK) {
        free(block);
        free(bytes);
        return 0;
    }
    cr_world_def def = cr_default_world_def();
    def.body_capacity = 4;
    def.pair_capacity = 64;
    def.point_capacity = 4096;
    def.contact_capacity = 64;
    bool soft = asset.soft_spring_count > 0 && asset.vertex_count <= 4096 && asset.soft_spring_count <= 65536;
    if (soft) {
        def.spring = cr_default_spring_budget();
        def.spring.body_capacity = 1;
        def.spring.particle_capacity = asset.vertex_count;
        def.spring.spring_capacity = asset.soft_spring_count;
    }
    size_t wsize = cr_world_memory_size(&def);
    void *wblock = aligned_alloc(CR_BLOCK_ALIGN, (wsize + 15) / 16 * 16);
    cr_world *w = NULL;
    if (wblock != NULL && cr_world_create(&def, wblock, wsize, &w) == CR_OK) {
        uint32_t slot;
        cr_body_def bd = cr_default_body_def();
        bd.type = CR_BODY_STATIC;
        bd.shape.type = CR_SHAPE_PLANE;
        cr_body_id ground, mesh = {0, 0}, ball;
        cr_body_create(w, &bd, &ground);
        if (cr_world_add_asset(w, &asset, &slot) == CR_OK) {
            bd = cr_default_body_def();
            bd.shape.type = CR_SHAPE_MESH;
            bd.shape.asset = slot;
            bd.position = cr_v3(0, asset.bound_radius + CR_R(0.1), 0);
            cr_body_create(w, &bd, &mesh);
        }
        cr_soft_id jelly = {0, 0};
        if (soft) {
            cr_soft_def sd = cr_default_soft_def();
            sd.asset = slot;
            sd.transform.p = cr_v3(CR_R(5), asset.bound_radius + CR_R(0.1), 0);
            (void)cr_soft_create(w, &sd, &jelly);
        }
        bd = cr_default_body_def();
        bd.position = cr_v3(CR_R(0.3), CR_R(3), 0);
        cr_body_create(w, &bd, &ball);
        for (int i = 0; i < 8; ++i)
            if (cr_world_step(w, CR_R(1.0 / 60.0)) != CR_OK) abort();
        if (!cr_body_id_is_null(mesh)) check_finite(w, mesh);
        if (!cr_soft_id_is_null(jelly)) {
            cr_soft_state st;
            if (cr_soft_get_state(w, jelly, &st) != CR_OK) abort();
#if CR_FIXED
            if (st.centre.y == CR_REAL_MAX || st.centre.y == -CR_REAL_MAX) abort();
#else
            if (st.centre.y != st.centre.y || st.centre.y - st.centre.y != 0) abort();
#endif
        }
        check_finite(w, ball);
    }
    free(wblock);
    free(block);
    free(bytes);
    return 0;
}
