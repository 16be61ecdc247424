/* test_solver_mesh.c — nonconvex mesh bodies (cooked assets: sample points +
 * SDF grid), seed 002's showcase: a torus rests on its tube, and a ring
 * hangs from another through its hole like a chain link, which no convex
 * decomposition-free convex solver can do. The torus is the project's own
 * data/meshes/torus.obj (R = 1, r = 0.25, 400 triangles), cooked here. */
#include "test_solver_util.h"
#include "crumple/asset.h"
#include "cook.h"

typedef struct ts_asset {
    cr_cook_result cooked;
    void *block;
    cr_asset view;
} ts_asset;

/* Cook data/meshes/torus.obj in memory and load it; false (with a message) if
 * the mesh is missing or does not cook. */
static bool torus_asset(ts_asset *a, char *err, size_t err_size) {
    memset(a, 0, sizeof *a);
    cr_cook_options opt = cr_cook_default_options();
    opt.quiet = true;
    if (cr_cook_file("data/meshes/torus.obj", NULL, &opt, &a->cooked, err, err_size) != 0) return false;
    size_t need = cr_asset_memory_size(a->cooked.bytes, a->cooked.size);
    a->block = aligned_alloc(CR_BLOCK_ALIGN, (need + 15) / 16 * 16 + 16);
    cr_asset_error e;
    if (need == 0 || a->block == NULL ||
        cr_asset_load(a->cooked.bytes, a->cooked.size, a->block, need, &a->view, &e) != CR_OK) {
        snprintf(err, err_size, "torus asset does not load");
        return false;
    }
    return true;
}

static void torus_free(ts_asset *a) {
    cr_cook_result_free(&a->cooked);
    free(a->block);
}

static cr_body_id torus_body(cr_world *w, uint32_t slot, cr_body_type type, cr_vec3 p, cr_quat q, cr_material m) {
    cr_body_def bd = cr_default_body_def();
    bd.type = type;
    bd.shape.type = CR_SHAPE_MESH;
    bd.shape.asset = slot;
    bd.position = p;
    bd.orientation = q;
    bd.material = m;
    cr_body_id id;
    if (cr_body_create(w, &bd, &id) != CR_OK) memset(&id, 0, sizeof id);
    return id;
}

CR_TEST(solver_mesh_torus_rests_on_its_tube) {
    char err[256];
    ts_asset a;
    ENSURE_MSG(torus_asset(&a, err, sizeof err), "%s", err);
    cr_world_def def = cr_default_world_def();
    def.sleep = false;
    cr_world *w = ts_world(&def);
    uint32_t slot;
    ENSURE(cr_world_add_asset(w, &a.view, &slot) == CR_OK);
    cr_material m = ts_material(0.2, 0.5);
    ts_ground(w, m);
    /* the torus's symmetry axis is its body z (largest moment): tip it to lie flat */
    cr_quat flat = cr_quat_from_axis_angle(cr_v3(CR_R(1), 0, 0), CR_R(1.5707963267948966));
    cr_quat tilted = cr_quat_mul(cr_quat_from_axis_angle(cr_v3(0, 0, CR_R(1)), CR_R(0.3)), flat);
    cr_body_id t = torus_body(w, slot, CR_BODY_DYNAMIC, ts_v(0, 1.5, 0), tilted, m);
    ENSURE(!cr_body_id_is_null(t));
    /* mass = density x the cooked volume */
    ENSURE_NEAR(ts_d(cr_body_get_mass(w, t)), 1000.0 * ts_d(a.view.volume), 1.0);
    for (int s = 0; s < 240; ++s) ENSURE(cr_world_step(w, TS_DT) == CR_OK);
    /* lying flat, the centre is at the tube's half height (the cooked polygon's) */
    double half = ts_d(a.view.bounds_max.z);
    cr_vec3 axis = cr_quat_rotate(cr_body_get_transform(w, t).q, cr_v3(0, 0, CR_R(1)));
    cr_test_printf("    torus dropped tilted: rests at centre height %.4f m (tube half height %.4f), axis (%.3f %.3f %.3f), "
                   "%u points on the ground\n", ts_d(ts_pos(w, t).y), half, ts_d(axis.x), ts_d(axis.y), ts_d(axis.z),
                   cr_world_get_stats(w).points);
    ENSURE_NEAR(ts_d(ts_pos(w, t).y), half, 0.003);
    ENSURE(fabs(ts_d(axis.y)) > 0.999);
    ENSURE(ts_d(cr_v3_len(cr_body_get_linear_velocity(w, t))) < 1e-2);
    ts_free(w);
    torus_free(&a);
}

/* Ring B threads ring A, which is pinned (static) with its hole along z. B
 * falls until its top tube lies on A's bottom tube: hooked, 0.5 m lower, not
 * through. */
CR_TEST(solver_mesh_ring_hangs_from_a_ring_like_a_chain_link) {
    char err[256];
    ts_asset a;
    ENSURE_MSG(torus_asset(&a, err, sizeof err), "%s", err);
    for (int mode = 0; mode < 2; ++mode) { /* B through A, then A through B (b's samples in a's grid and back) */
        cr_world_def def = cr_default_world_def();
        def.sleep = false;
        cr_world *w = ts_world(&def);
        uint32_t slot;
        ENSURE(cr_world_add_asset(w, &a.view, &slot) == CR_OK);
        cr_material m = ts_material(0.1, 0.5);
        cr_quat hole_x = cr_quat_from_axis_angle(cr_v3(0, CR_R(1), 0), CR_R(1.5707963267948966));
        cr_body_id ring_a, ring_b;
        if (mode == 0) {
            ring_a = torus_body(w, slot, CR_BODY_STATIC, ts_v(0, 3, 0), cr_quat_identity(), m);
            ring_b = torus_body(w, slot, CR_BODY_DYNAMIC, ts_v(0, 2, 0), hole_x, m);
        } else {
            ring_b = torus_body(w, slot, CR_BODY_DYNAMIC, ts_v(0, 2, 0), hole_x, m);
            ring_a = torus_body(w, slot, CR_BODY_STATIC, ts_v(0, 3, 0), cr_quat_identity(), m);
        }
        ENSURE(!cr_body_id_is_null(ring_a) && !cr_body_id_is_null(ring_b));
        double lowest = 10;
        for (int s = 0; s < 180; ++s) {
            ENSURE(cr_world_step(w, TS_DT) == CR_OK);
            double y = ts_d(ts_pos(w, ring_b).y);
            if (y < lowest) lowest = y;
        }
        cr_vec3 p = ts_pos(w, ring_b);
        cr_test_printf("    hanging ring (%s body): centre (%.3f %.3f %.3f), lowest %.3f (hooked at 1.5), speed %.4f m/s\n",
                       mode == 0 ? "higher" : "lower", ts_d(p.x), ts_d(p.y), ts_d(p.z), lowest,
                       ts_d(cr_v3_len(cr_body_get_linear_velocity(w, ring_b))));
        ENSURE_NEAR(ts_d(p.y), 1.5, 0.05);
        ENSURE(lowest > 1.4);
        ENSURE(fabs(ts_d(p.x)) < 0.1 && fabs(ts_d(p.z)) < 0.3);
        ts_free(w);
    }
    torus_free(&a);
}
