/* test_world.c — the memory model and handles, as a host sees them:
 * sizing, creating in a caller block, running out, stale handles, and the
 * state hash that determinism tests compare. */
#include "test.h"
#include "crumple/crumple.h"

#include <stdlib.h>
#include <string.h>

static void *aligned_block(size_t size) { return aligned_alloc(CR_BLOCK_ALIGN, (size + 15) / 16 * 16); }

CR_TEST(world_create_fits_reported_size) {
    cr_world_def def = cr_default_world_def();
    def.body_capacity = 100;
    size_t size = cr_world_memory_size(&def);
    ENSURE(size > 100 * sizeof(cr_body_def) / 4);
    void *block = aligned_block(size);
    cr_world *w = NULL;
    ENSURE(cr_world_create(&def, block, size, &w) == CR_OK);
    ENSURE(w != NULL);
    cr_memory_stats m = cr_world_memory_stats(w);
    ENSURE(m.capacity == size);
    ENSURE(m.used <= m.capacity && m.high_water <= m.capacity);
    /* the default def leaves scratch_bytes 0: the world sizes it from the capacities */
    ENSURE(m.scratch_capacity == cr_world_scratch_size(&def));
    free(block);
}

CR_TEST(world_rejects_bad_blocks_and_defs) {
    cr_world_def def = cr_default_world_def();
    size_t size = cr_world_memory_size(&def);
    uint8_t *block = aligned_block(size + 16);
    cr_world *w = (cr_world *)block;
    ENSURE(cr_world_create(&def, block, size - 1, &w) == CR_ERR_BLOCK_TOO_SMALL);
    ENSURE(w == NULL);
    ENSURE(cr_world_create(&def, block + 4, size, &w) == CR_ERR_BLOCK_MISALIGNED);
    ENSURE(cr_world_create(&def, NULL, size, &w) == CR_ERR_NULL_ARGUMENT);
    cr_world_def raw;
    memset(&raw, 0, sizeof raw);
    ENSURE(cr_world_create(&raw, block, size, &w) == CR_ERR_DEF_NOT_DEFAULTED);
    ENSURE(cr_world_memory_size(&raw) == 0);
    def.body_capacity = 0;
    ENSURE(cr_world_create(&def, block, size, &w) == CR_ERR_DEF_INVALID);
    ENSURE(strcmp(cr_status_name(CR_ERR_BLOCK_TOO_SMALL), "CR_ERR_BLOCK_TOO_SMALL") == 0);
    free(block);
}

CR_TEST(world_body_capacity_is_an_error_not_a_crash) {
    cr_world_def def = cr_default_world_def();
    def.body_capacity = 3;
    size_t size = cr_world_memory_size(&def);
    void *block = aligned_block(size);
    cr_world *w;
    ENSURE(cr_world_create(&def, block, size, &w) == CR_OK);
    cr_body_def bd = cr_default_body_def();
    cr_body_id ids[4];
    for (int i = 0; i < 3; ++i) ENSURE(cr_body_create(w, &bd, &ids[i]) == CR_OK);
    ENSURE(cr_body_create(w, &bd, &ids[3]) == CR_ERR_CAPACITY);
    ENSURE(cr_body_id_is_null(ids[3]));
    /* the world stays valid and keeps stepping */
    for (int i = 0; i < 10; ++i) ENSURE(cr_world_step(w, CR_R(1.0 / 60.0)) == CR_OK);
    ENSURE(cr_world_get_stats(w).body_count == 3);
    /* a freed slot is reused with a new generation; the old handle is refused */
    ENSURE(cr_body_destroy(w, ids[1]) == CR_OK);
    ENSURE(cr_body_destroy(w, ids[1]) == CR_ERR_STALE_HANDLE);
    ENSURE(cr_body_create(w, &bd, &ids[3]) == CR_OK);
    ENSURE(ids[3].index1 == ids[1].index1 && ids[3].generation != ids[1].generation);
    ENSURE(!cr_body_is_valid(w, ids[1]));
    ENSURE(cr_body_set_velocity(w, ids[1], cr_v3_zero(), cr_v3_zero()) == CR_ERR_STALE_HANDLE);
    ENSURE(cr_body_is_valid(w, ids[3]));
    free(block);
}

CR_TEST(world_body_def_must_be_defaulted) {
    cr_world_def def = cr_default_world_def();
    size_t size = cr_world_memory_size(&def);
    void *block = aligned_block(size);
    cr_world *w;
    ENSURE(cr_world_create(&def, block, size, &w) == CR_OK);
    cr_body_def bd;
    memset(&bd, 0, sizeof bd);
    cr_body_id id;
    ENSURE(cr_body_create(w, &bd, &id) == CR_ERR_DEF_NOT_DEFAULTED);
    bd = cr_default_body_def();
    bd.shape.radius = CR_R(-1);
    ENSURE(cr_body_create(w, &bd, &id) == CR_ERR_DEF_INVALID);
    free(block);
}

CR_TEST(world_free_fall_matches_kinematics) {
    cr_world_def def = cr_default_world_def();
    size_t size = cr_world_memory_size(&def);
    void *block = aligned_block(size);
    cr_world *w;
    ENSURE(cr_world_create(&def, block, size, &w) == CR_OK);
    cr_body_def bd = cr_default_body_def();
    bd.position = cr_v3(0, CR_R(100), 0);
    cr_body_id id;
    ENSURE(cr_body_create(w, &bd, &id) == CR_OK);
    /* sphere of radius 0.5 at 1000 kg/m^3 */
    ENSURE_NEAR(cr_to_double(cr_body_get_mass(w, id)), 1000.0 * 4.0 / 3.0 * 3.14159265 * 0.125, 0.05);
    for (int i = 0; i < 60; ++i) cr_world_step(w, CR_R(1.0 / 60.0));
    /* symplectic Euler: y = y0 - g dt^2 n(n+1)/2 */
    double dt = 1.0 / 60.0, expect = 100.0 - 9.81 * dt * dt * 60 * 61 / 2;
    ENSURE_NEAR(cr_to_double(cr_body_get_transform(w, id).p.y), expect, 1e-3);
    ENSURE_NEAR(cr_to_double(cr_body_get_linear_velocity(w, id).y), -9.81, 1e-3);
    free(block);
}

CR_TEST(world_impulse_changes_momentum) {
    cr_world_def def = cr_default_world_def();
    def.gravity = cr_v3_zero();
    size_t size = cr_world_memory_size(&def);
    void *block = aligned_block(size);
    cr_world *w;
    ENSURE(cr_world_create(&def, block, size, &w) == CR_OK);
    cr_body_def bd = cr_default_body_def();
    bd.shape.type = CR_SHAPE_BOX;
    bd.material.density = CR_R(1);
    cr_body_id id;
    ENSURE(cr_body_create(w, &bd, &id) == CR_OK);
    ENSURE_NEAR(cr_to_double(cr_body_get_mass(w, id)), 1.0, 1e-6);
    /* off-centre impulse: linear and angular velocity both change */
    ENSURE(cr_body_apply_impulse(w, id, cr_v3(0, CR_R(2), 0), cr_v3(CR_R(0.5), 0, 0)) == CR_OK);
    ENSURE_NEAR(cr_to_double(cr_body_get_linear_velocity(w, id).y), 2.0, 1e-6);
    /* I_z = m/3 (hx^2 + hy^2) = 1/6; L = r x J = 0.5 * 2 = 1 => w_z = 6 */
    ENSURE_NEAR(cr_to_double(cr_body_get_angular_velocity(w, id).z), 6.0, 1e-4);
    free(block);
}
