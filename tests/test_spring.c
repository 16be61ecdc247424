/* test_spring.c — mass-spring soft bodies (seed 004): the model and its
 * integrator, without contacts — momentum, the internal forces' sum, shape
 * kept while spinning, return to the rest shape, energy that never grows
 * across the stiffness range, the def's refusals, capacities. */
#include "test_spring_util.h"

static cr_soft_def ball_def(uint32_t slot) {
    cr_soft_def sd = cr_default_soft_def();
    sd.asset = slot;
    return sd;
}

CR_TEST(spring_free_flight_keeps_momentum_and_shape) {
    sp_world d = {0};
    ENSURE(sp_cook_sphere(&d, 0.5, 16, 10));
    ENSURE(sp_make_world(&d, cr_v3_zero(), sp_budget(2, 4096, 16384)));
    cr_soft_def sd = ball_def(d.slot[0]);
    sd.transform.p = cr_v3(0, CR_R(3), 0);
    sd.linear_velocity = cr_v3(CR_R(1), CR_R(0.5), CR_R(-0.25));
    sd.angular_velocity = cr_v3(CR_R(0.3), CR_R(3), CR_R(0.2));
    sd.stiffness = CR_R(1000);
    cr_soft_id b;
    ENSURE(cr_soft_create(d.w, &sd, &b) == CR_OK);
    cr_soft_state s0 = sp_state(d.w, b);
    ENSURE(s0.particles == 16 * 9 + 2 && s0.springs > s0.particles * 3);
    double p0 = sp_len(s0.linear_momentum), l0 = sp_len(s0.angular_momentum), worst_edge = 0, worst_sum = 0;
    double worst_p = 0, worst_l = 0;
    for (int step = 0; step < 240; ++step) {
        ENSURE(cr_world_step(d.w, TS_DT) == CR_OK);
        cr_soft_state s = sp_state(d.w, b);
        worst_p = fmax(worst_p, sp_len(cr_v3_sub(s.linear_momentum, s0.linear_momentum)) / p0);
        worst_l = fmax(worst_l, sp_len(cr_v3_sub(s.angular_momentum, s0.angular_momentum)) / l0);
        worst_edge = fmax(worst_edge, ts_d(s.edge_error));
        cr_vec3 sum;
        cr_real largest;
        ENSURE(cri_soft_internal_force_sum(d.w, b, &sum, &largest));
        if (ts_d(largest) > 0) worst_sum = fmax(worst_sum, sp_len(sum) / ts_d(largest));
    }
    cr_test_printf("    free flight 4 s: |dP|/P %.2g, |dL|/L %.2g, edge RMS error while spinning %.3g %%, "
                   "|sum F| / max |F| %.2g\n", worst_p, worst_l, 100 * worst_edge, worst_sum);
    ENSURE(worst_p < 1e-4);
    ENSURE(worst_l < 2e-3);
    ENSURE(worst_edge < 0.01); /* keeps its shape within 1 % */
    ENSURE(worst_sum < 1e-4);
    sp_free(&d);
}

/* Deform a body by a velocity field that is not rigid, then let go: it
 * wobbles and comes back to its rest edge lengths; its energy (kinetic +
 * springs + volume) never rises past where it started (XPBD's energy is not
 * the springs' exactly: it may wander by a fraction of a percent). */
static double settle(cr_test_ctx *cr_test_ctx_, sp_world *d, cr_soft_def sd, int steps, double *worst_growth) {
    cr_soft_id b;
    cr_status st = cr_soft_create(d->w, &sd, &b);
    if (st != CR_OK) {
        cr_test_fail(cr_test_ctx_, __FILE__, __LINE__, "create: %s", cr_status_name(st));
        return 1e9;
    }
    uint32_t n = cr_soft_get_velocities(d->w, b, NULL, 0);
    cr_vec3 *x = (cr_vec3 *)calloc(n, sizeof *x);
    cr_soft_get_positions(d->w, b, x, n);
    cr_vec3 c = sp_state(d->w, b).centre;
    /* squeeze along y, stretch along x: a pure deformation, no momentum */
    for (uint32_t i = 0; i < n; ++i) {
        cr_vec3 r = cr_v3_sub(x[i], c);
        cr_soft_apply_impulse(d->w, b, cr_v3(cr_mul(r.x, CR_R(0.005)), cr_mul(r.y, CR_R(-0.005)), 0), x[i]);
    }
    free(x);
    cr_soft_state s = sp_state(d->w, b);
    double e_start = ts_d(s.kinetic_energy) + ts_d(s.elastic_energy);
    *worst_growth = 0;
    for (int step = 0; step < steps; ++step) {
        cr_world_step(d->w, TS_DT);
        s = sp_state(d->w, b);
        double e = ts_d(s.kinetic_energy) + ts_d(s.elastic_energy);
        *worst_growth = fmax(*worst_growth, (e - e_start) / e_start);
    }
    cr_soft_destroy(d->w, b);
    return ts_d(s.edge_error);
}

CR_TEST(spring_returns_to_rest_shape) {
    sp_world d = {0};
    ENSURE(sp_cook_sphere(&d, 0.5, 16, 10));
    ENSURE(sp_cook_file(&d, "torus.obj", 1.0)); /* a mesh the model was not tuned on */
    ENSURE(sp_make_world(&d, cr_v3_zero(), sp_budget(2, 4096, 16384)));
    for (int k = 0; k < 2; ++k) {
        cr_soft_def sd = ball_def(d.slot[k]);
        sd.no_sleep = true;
        double growth;
        double err = settle(cr_test_ctx_, &d, sd, 180, &growth);
        cr_test_printf("    %s: edge RMS error after 3 s %.3g %%, energy at most %+.2g of the start\n",
                       k == 0 ? "sphere" : "torus.obj", 100 * err, growth);
        ENSURE(err < 0.001);
        ENSURE(growth <= 0.03); /* the volume projection lets torus.obj's energy wander up 2 % (0.06 % without it) */
    }
    sp_free(&d);
}

/* The stiffness sweep: from very soft up to the stiffest def the world
 * accepts at 60 Hz (past it, create refuses naming the stiffness), an
 * undamped deformed body never gains energy and keeps its shape. */
CR_TEST(spring_stiffness_sweep_is_stable) {
    sp_world d = {0};
    ENSURE(sp_cook_sphere(&d, 0.5, 12, 8));
    ENSURE(sp_make_world(&d, cr_v3_zero(), sp_budget(2, 4096, 16384)));
    int accepted = 0;
    for (double k = 10; k < 2e7; k *= 2) {
        cr_soft_def sd = ball_def(d.slot[0]);
        sd.stiffness = CR_R(k);
        sd.bend_stiffness = CR_R(k / 4);
        sd.volume_stiffness = 0;
        sd.damping = 0;
        sd.no_sleep = true;
        cr_soft_id probe;
        cr_status st = cr_soft_create(d.w, &sd, &probe);
        if (st != CR_OK) {
            cr_test_printf("    k = %.3g N/m refused: %s, %s\n", k, cr_status_name(st), cr_field_name(cr_world_refused_field(d.w)));
            ENSURE(st == CR_ERR_DEF_INVALID && cr_world_refused_field(d.w) == CR_FIELD_SOFT_STIFFNESS);
            break;
        }
        cr_soft_destroy(d.w, probe);
        double growth;
        double err = settle(cr_test_ctx_, &d, sd, 120, &growth);
        cr_test_printf("    k = %.3g N/m: energy at most %+.2g of the start, edge error after 2 s %.3g %%\n",
                       k, growth, 100 * err);
        ENSURE(err == err && err < 0.05);
        ENSURE(growth <= 0.01);
        ++accepted;
    }
    ENSURE(accepted >= 8); /* 10 N/m .. 1280 N/m at least */
    sp_free(&d);
}

CR_TEST(spring_def_refusals_name_the_field) {
    sp_world d = {0};
    ENSURE(sp_cook_sphere(&d, 0.5, 8, 6));
    ENSURE(sp_make_world(&d, cr_v3_zero(), sp_budget(2, 200, 2000)));
    cr_soft_id b;
    cr_soft_def sd = ball_def(d.slot[0]);
    sd.stiffness = CR_R(2e7);
    ENSURE(cr_soft_create(d.w, &sd, &b) == CR_ERR_DEF_INVALID && cr_world_refused_field(d.w) == CR_FIELD_SOFT_STIFFNESS);
    ENSURE(cr_soft_id_is_null(b));
    sd = ball_def(d.slot[0]);
    sd.damping = CR_R(-1);
    ENSURE(cr_soft_create(d.w, &sd, &b) == CR_ERR_DEF_INVALID && cr_world_refused_field(d.w) == CR_FIELD_SOFT_DAMPING);
    sd = ball_def(d.slot[0]);
#if !CR_FIXED
    sd.mass = (cr_real)NAN;
    ENSURE(cr_soft_create(d.w, &sd, &b) == CR_ERR_NOT_FINITE && cr_world_refused_field(d.w) == CR_FIELD_SOFT_MASS);
#endif
    sd = ball_def(d.slot[0]);
    sd.asset = 7;
    ENSURE(cr_soft_create(d.w, &sd, &b) == CR_ERR_DEF_INVALID && cr_world_refused_field(d.w) == CR_FIELD_SOFT_ASSET);
    /* the volume tolerance is relative, 0 .. 0.5 */
    sd = ball_def(d.slot[0]);
    sd.volume_tolerance = CR_R(-0.01);
    ENSURE(cr_soft_create(d.w, &sd, &b) == CR_ERR_DEF_INVALID && cr_world_refused_field(d.w) == CR_FIELD_SOFT_VOLUME_TOLERANCE);
    sd.volume_tolerance = CR_R(0.6);
    ENSURE(cr_soft_create(d.w, &sd, &b) == CR_ERR_DEF_INVALID && cr_world_refused_field(d.w) == CR_FIELD_SOFT_VOLUME_TOLERANCE);
    ENSURE(strcmp(cr_field_name(CR_FIELD_SOFT_VOLUME_TOLERANCE), "cr_soft_def.volume_tolerance") == 0);
    sd = ball_def(d.slot[0]);
    sd.rolling_friction = CR_R(-0.01);
    ENSURE(cr_soft_create(d.w, &sd, &b) == CR_ERR_DEF_INVALID && cr_world_refused_field(d.w) == CR_FIELD_SOFT_ROLLING_FRICTION);
    sd = ball_def(d.slot[0]);
    sd.cookie = 0;
    ENSURE(cr_soft_create(d.w, &sd, &b) == CR_ERR_DEF_NOT_DEFAULTED);
    /* capacities: 8 x 5 + 2 = 42 particles a ball, 200 in the world: four fit, the fifth is refused */
    sd = ball_def(d.slot[0]);
    cr_soft_id ids[5];
    ENSURE(cr_soft_create(d.w, &sd, &ids[0]) == CR_OK);
    ENSURE(cr_soft_create(d.w, &sd, &ids[1]) == CR_OK);
    ENSURE(cr_soft_create(d.w, &sd, &ids[2]) == CR_ERR_CAPACITY); /* body_capacity 2 */
    ENSURE(cr_soft_destroy(d.w, ids[0]) == CR_OK);
    ENSURE(cr_soft_get_positions(d.w, ids[0], NULL, 0) == 0); /* stale */
    ENSURE(cr_soft_create(d.w, &sd, &ids[2]) == CR_OK);
    ENSURE(ids[2].index1 == ids[0].index1 && ids[2].generation != ids[0].generation);
    sp_free(&d);
    /* the world def's soft budget is checked like every other field */
    cr_world_def wd = cr_default_world_def();
    wd.spring = sp_budget(2, 100, 100);
    cr_field f;
    ENSURE(cr_world_def_check(&wd, &f) == CR_OK);
    wd.spring.substeps = 0;
    ENSURE(cr_world_def_check(&wd, &f) == CR_ERR_DEF_INVALID && f == CR_FIELD_WORLD_SPRING);
    wd.spring = sp_budget(2, 100, 100);
    wd.spring.max_dt = CR_R(-1);
    ENSURE(cr_world_def_check(&wd, &f) == CR_ERR_DEF_INVALID && f == CR_FIELD_WORLD_SPRING);
    /* a world without soft room refuses a soft body, naming the budget */
    cr_world_def plain = cr_default_world_def();
    cr_world *w = ts_world(&plain);
    ENSURE(w != NULL);
    cr_soft_def sd2 = cr_default_soft_def();
    cr_soft_id none;
    ENSURE(cr_soft_create(w, &sd2, &none) == CR_ERR_CAPACITY && cr_world_refused_field(w) == CR_FIELD_WORLD_SPRING);
    ENSURE(cr_soft_get_state(w, none, &(cr_soft_state){0}) == CR_ERR_STALE_HANDLE);
    ts_free(w);
}

/* Destroying a body closes up the packed particle arrays; the others keep
 * their particles, and a world without soft bodies hashes as before. */
CR_TEST(spring_destroy_keeps_the_others) {
    sp_world d = {0};
    ENSURE(sp_cook_sphere(&d, 0.3, 8, 6));
    ENSURE(sp_cook_cube(&d, 0.3, 3));
    ENSURE(sp_make_world(&d, cr_v3(0, CR_R(-9.81), 0), sp_budget(4, 1000, 8000)));
    uint64_t empty = cr_world_state_hash(d.w);
    cr_soft_id a, b, c;
    cr_soft_def sd = ball_def(d.slot[0]);
    ENSURE(cr_soft_create(d.w, &sd, &a) == CR_OK);
    sd.asset = d.slot[1];
    sd.transform.p = cr_v3(CR_R(2), 0, 0);
    ENSURE(cr_soft_create(d.w, &sd, &b) == CR_OK);
    sd.asset = d.slot[0];
    sd.transform.p = cr_v3(CR_R(4), 0, 0);
    ENSURE(cr_soft_create(d.w, &sd, &c) == CR_OK);
    ENSURE(cr_world_state_hash(d.w) != empty);
    for (int i = 0; i < 10; ++i) cr_world_step(d.w, TS_DT);
    cr_soft_state sb0 = sp_state(d.w, b), sc0 = sp_state(d.w, c);
    ENSURE(cr_soft_destroy(d.w, a) == CR_OK);
    cr_soft_state sb1 = sp_state(d.w, b), sc1 = sp_state(d.w, c);
    ENSURE(memcmp(&sb0, &sb1, sizeof sb0) == 0 && memcmp(&sc0, &sc1, sizeof sc0) == 0);
    ENSURE(cr_soft_destroy(d.w, b) == CR_OK && cr_soft_destroy(d.w, c) == CR_OK);
    ENSURE(cri_soft_region(d.w)->particle_count == 0 && cri_soft_region(d.w)->spring_count == 0);
    sp_free(&d);
}

/* Soft bodies are state like any other: they change the world hash, a
 * snapshot restored mid-fall replays the same hashes bit for bit, and two
 * worlds stepped alike agree. */
CR_TEST(spring_snapshot_and_hash_replay) {
    sp_world d = {0};
    ENSURE(sp_cook_sphere(&d, 0.3, 10, 7));
    ENSURE(sp_cook_cube(&d, 0.2, 3));
    ENSURE(sp_make_world(&d, cr_v3(0, CR_R(-9.81), 0), sp_budget(4, 1000, 8000)));
    ts_ground(d.w, ts_material(0.3, 0.6));
    cr_material m = ts_material(0.3, 0.6);
    ts_box(d.w, cr_v3(CR_R(0.2), CR_R(2.2), 0), cr_quat_identity(), cr_v3(CR_R(0.15), CR_R(0.15), CR_R(0.15)), m);
    cr_soft_def sd = cr_default_soft_def();
    sd.asset = d.slot[0];
    sd.transform.p = cr_v3(0, CR_R(0.6), 0);
    cr_soft_id a, b;
    ENSURE(cr_soft_create(d.w, &sd, &a) == CR_OK);
    sd.asset = d.slot[1];
    sd.transform.p = cr_v3(CR_R(0.1), CR_R(1.4), 0);
    ENSURE(cr_soft_create(d.w, &sd, &b) == CR_OK);
    for (int i = 0; i < 20; ++i) cr_world_step(d.w, TS_DT);
    size_t n = cr_world_snapshot_size(d.w);
    void *snap = malloc(n);
    ENSURE(cr_world_snapshot_save(d.w, snap, n) == CR_OK);
    uint64_t first[40];
    for (int i = 0; i < 40; ++i) {
        cr_world_step(d.w, TS_DT);
        first[i] = cr_world_state_hash(d.w);
    }
    cr_soft_state before = sp_state(d.w, b);
    ENSURE(cr_world_snapshot_restore(d.w, snap, n) == CR_OK);
    for (int i = 0; i < 40; ++i) {
        cr_world_step(d.w, TS_DT);
        ENSURE(cr_world_state_hash(d.w) == first[i]);
    }
    cr_soft_state after = sp_state(d.w, b);
    ENSURE(memcmp(&before, &after, sizeof before) == 0);
    /* a particle's velocity is part of the hash */
    uint64_t h = cr_world_state_hash(d.w);
    cr_soft_apply_impulse(d.w, a, cr_v3(0, CR_R(0.001), 0), after.centre);
    ENSURE(cr_world_state_hash(d.w) != h);
    free(snap);
    sp_free(&d);
}

/* A world over its soft budget: the bodies that do not fit wait, in slot
 * order from where the last step stopped, so every body still moves (in
 * turn) and two worlds stepped alike stay bit-identical. */
CR_TEST(spring_over_budget_takes_turns) {
    sp_world d[2];
    memset(d, 0, sizeof d);
    for (int k = 0; k < 2; ++k) {
        ENSURE(sp_cook_sphere(&d[k], 0.3, 10, 7));
        cr_spring_budget bb = sp_budget(4, 1000, 8000);
        bb.work_per_step = 1; /* one body a step (the first always runs) */
        ENSURE(sp_make_world(&d[k], cr_v3(0, CR_R(-9.81), 0), bb));
        for (int i = 0; i < 3; ++i) {
            cr_soft_def sd = cr_default_soft_def();
            sd.asset = d[k].slot[0];
            sd.transform.p = cr_v3(cr_from_int(i), CR_R(2), 0);
            cr_soft_id id;
            ENSURE(cr_soft_create(d[k].w, &sd, &id) == CR_OK);
        }
    }
    cr_soft_id ids[3] = {{1, 0}, {2, 0}, {3, 0}};
    double y0[3];
    for (int i = 0; i < 3; ++i) y0[i] = ts_d(sp_state(d[0].w, ids[i]).centre.y);
    for (int step = 0; step < 30; ++step) {
        cr_world_step(d[0].w, TS_DT);
        cr_world_step(d[1].w, TS_DT);
        cr_world_stats st = cr_world_get_stats(d[0].w);
        ENSURE(st.spring.done == 1 && st.spring.waiting == 2);
        ENSURE(cr_world_state_hash(d[0].w) == cr_world_state_hash(d[1].w));
    }
    /* each body ran 10 of the 30 steps: each fell, and about alike */
    double fall[3];
    for (int i = 0; i < 3; ++i) fall[i] = y0[i] - ts_d(sp_state(d[0].w, ids[i]).centre.y);
    cr_test_printf("    over budget: falls in 30 steps, one body a step: %.4f %.4f %.4f m\n", fall[0], fall[1], fall[2]);
    for (int i = 0; i < 3; ++i) ENSURE(fall[i] > 0.05 && fabs(fall[i] - fall[0]) < 0.01);
    sp_free(&d[0]);
    sp_free(&d[1]);
}

/* Hostile use: a huge impulse and a step of seconds neither crash nor make a
 * non-finite particle; a NaN impulse is refused naming it. */
CR_TEST(spring_hostile_steps_stay_finite) {
    sp_world d = {0};
    ENSURE(sp_cook_sphere(&d, 0.3, 8, 6));
    ENSURE(sp_make_world(&d, cr_v3(0, CR_R(-9.81), 0), sp_budget(2, 400, 4000)));
    ts_ground(d.w, ts_material(0.3, 0.6));
    cr_soft_def sd = cr_default_soft_def();
    sd.asset = d.slot[0];
    sd.transform.p = cr_v3(0, CR_R(1), 0);
    cr_soft_id a, b;
    ENSURE(cr_soft_create(d.w, &sd, &a) == CR_OK);
    sd.transform.p = cr_v3(0, CR_R(2), 0);
    ENSURE(cr_soft_create(d.w, &sd, &b) == CR_OK);
    ENSURE(cr_soft_apply_impulse(d.w, a, cr_v3(CR_R(1000), CR_R(5000), 0), cr_v3(0, CR_R(1), 0)) == CR_OK);
#if !CR_FIXED
    ENSURE(cr_soft_apply_impulse(d.w, a, cr_v3((cr_real)NAN, 0, 0), cr_v3_zero()) == CR_ERR_NOT_FINITE &&
           cr_world_refused_field(d.w) == CR_FIELD_IMPULSE);
#endif
    const cr_real dts[] = {CR_R(1.0 / 60.0), CR_R(5.0), CR_R(0.001), CR_R(1.0 / 60.0)};
    for (int k = 0; k < 4; ++k)
        for (int i = 0; i < 10; ++i) ENSURE(cr_world_step(d.w, dts[k]) == CR_OK);
    cr_vec3 x[64];
    uint32_t n = cr_soft_get_positions(d.w, a, x, 64);
    for (uint32_t i = 0; i < n && i < 64; ++i) ENSURE(isfinite(ts_d(x[i].x)) && isfinite(ts_d(x[i].y)) && isfinite(ts_d(x[i].z)));
    cr_soft_state s = sp_state(d.w, b);
    ENSURE(isfinite(ts_d(s.centre.y)) && ts_d(s.bounds_min.y) > -0.1); /* the other ball rests on the ground */
    sp_free(&d);
}

/* The deformed surface a game draws: positions in the asset's vertex order
 * with unit outward normals, squashed with the body. */
CR_TEST(spring_surface_and_normals) {
    sp_world d = {0};
    ENSURE(sp_cook_sphere(&d, 0.5, 12, 8));
    ENSURE(sp_make_world(&d, cr_v3(0, CR_R(-9.81), 0), sp_budget(2, 4096, 16384)));
    ts_ground(d.w, ts_material(0.2, 0.6));
    cr_soft_def sd = cr_default_soft_def();
    sd.asset = d.slot[0];
    sd.transform.p = cr_v3(0, CR_R(1.2), 0);
    sd.stiffness = CR_R(300); /* soft: it squashes visibly on landing */
    sd.bend_stiffness = CR_R(60);
    sd.volume_stiffness = CR_R(3000);
    cr_soft_id b;
    ENSURE(cr_soft_create(d.w, &sd, &b) == CR_OK);
    uint32_t n = cr_soft_get_normals(d.w, b, NULL, 0);
    ENSURE(n == d.asset[0].vertex_count);
    cr_vec3 *x = (cr_vec3 *)calloc(n, sizeof *x), *nv = (cr_vec3 *)calloc(n, sizeof *nv);
    double worst_out = 1, flattest = 1;
    for (int step = 0; step < 60; ++step) {
        cr_world_step(d.w, TS_DT);
        ENSURE(cr_soft_get_positions(d.w, b, x, n) == n && cr_soft_get_normals(d.w, b, nv, n) == n);
        cr_soft_state s = sp_state(d.w, b);
        flattest = fmin(flattest, (ts_d(s.bounds_max.y) - ts_d(s.bounds_min.y)) / 1.0);
        for (uint32_t i = 0; i < n; ++i) {
            cr_vec3 r = cr_v3_sub(x[i], s.centre);
            double len = sp_len(nv[i]), out = (ts_d(r.x) * ts_d(nv[i].x) + ts_d(r.y) * ts_d(nv[i].y) + ts_d(r.z) * ts_d(nv[i].z)) / sp_len(r);
            ENSURE(fabs(len - 1) < 1e-3);
            worst_out = fmin(worst_out, out);
        }
    }
    /* the bottom vertex's normal points down while it rests on the ground */
    uint32_t low = 0;
    for (uint32_t i = 1; i < n; ++i)
        if (x[i].y < x[low].y) low = i;
    cr_test_printf("    surface: height down to %.3f of rest while landing, normals at least %.3f along the outward radius, "
                   "the lowest vertex's normal y %.3f\n", flattest, worst_out, ts_d(nv[low].y));
    ENSURE(flattest < 0.95);
    ENSURE(worst_out > 0.5);
    ENSURE(ts_d(nv[low].y) < -0.7);
    free(x);
    free(nv);
    sp_free(&d);
}
