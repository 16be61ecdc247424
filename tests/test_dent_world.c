/* test_dent_world.c — dents made by the world's deformation stage from real
 * impacts: depth from the impact speed, nothing moves outside the dent, the
 * grid follows the surface, equal bodies dent equally, budgets queue work. */
#include "test_cook_util.h"
#include "crumple/snapshot.h"

/* A box with every face split into n x n quads, so a dent has vertices to move. */
static void tess_box(char **s, double hx, double hy, double hz, int n) {
    /* each face: origin corner, two edge vectors; outward by right-hand order */
    const double c[6][9] = {
        {-hx, -hy, hz, 2 * hx, 0, 0, 0, 2 * hy, 0},   {hx, -hy, -hz, -2 * hx, 0, 0, 0, 2 * hy, 0},
        {hx, -hy, hz, 0, 0, -2 * hz, 0, 2 * hy, 0},   {-hx, -hy, -hz, 0, 0, 2 * hz, 0, 2 * hy, 0},
        {-hx, hy, hz, 2 * hx, 0, 0, 0, 0, -2 * hz},   {-hx, -hy, -hz, 2 * hx, 0, 0, 0, 0, 2 * hz},
    };
    int base = 1;
    for (int f = 0; f < 6; ++f) {
        for (int j = 0; j <= n; ++j)
            for (int i = 0; i <= n; ++i) {
                double u = (double)i / n, v = (double)j / n;
                tc_printf(s, "v %.17g %.17g %.17g\n", c[f][0] + u * c[f][3] + v * c[f][6], c[f][1] + u * c[f][4] + v * c[f][7],
                          c[f][2] + u * c[f][5] + v * c[f][8]);
            }
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i) {
                int a = base + j * (n + 1) + i;
                tc_printf(s, "f %d %d %d %d\n", a, a + 1, a + n + 2, a + n + 1);
            }
        base += (n + 1) * (n + 1);
    }
}

typedef struct dent_world {
    cr_cook_result cooked[2];
    cr_asset asset[2];
    void *asset_block[2];
    uint32_t slot[2];
    cr_world *w;
    void *block;
} dent_world;

static int cook_into(dent_world *d, int k, char *obj, int res) {
    cr_cook_options opt = cr_cook_default_options();
    opt.quiet = true;
    opt.sdf_res = res;
    int rc = tc_cook_text("dent.obj", obj, (size_t)arrlen(obj), &opt, &d->cooked[k]);
    arrfree(obj);
    if (rc != 0) return 0;
    d->asset_block[k] = tc_load(d->cooked[k].bytes, d->cooked[k].size, &d->asset[k]);
    return d->asset_block[k] != NULL;
}

static int make_world(dent_world *d, int assets, cr_vec3 gravity, cr_deform_def deform) {
    cr_world_def def = cr_default_world_def();
    def.body_capacity = 64;
    def.gravity = gravity;
    def.deform = deform;
    size_t size = cr_world_memory_size(&def);
    if (size == 0) return 0;
    d->block = aligned_alloc(CR_BLOCK_ALIGN, (size + 15) / 16 * 16);
    if (cr_world_create(&def, d->block, size, &d->w) != CR_OK) return 0;
    for (int k = 0; k < assets; ++k)
        if (cr_world_add_asset(d->w, &d->asset[k], &d->slot[k]) != CR_OK) return 0;
    return 1;
}

static void free_world(dent_world *d, int assets) {
    for (int k = 0; k < assets; ++k) {
        free(d->asset_block[k]);
        cr_cook_result_free(&d->cooked[k]);
    }
    free(d->block);
}

static cr_deform_def roomy_deform(void) {
    cr_deform_def dd = cr_default_deform_def();
    dd.body_capacity = 4;
    dd.bytes = 8u << 20;
    dd.max_cells = 100;
    dd.cells_per_step = 200000;
    return dd;
}

/* The cooked frame is the principal frame; place the body so the mesh sits
 * in the world as it was modelled. */
static cr_transform modelled_pose(const cr_asset *a, cr_vec3 at) {
    cr_transform t = cr_transform_inverse(a->mesh_to_body);
    t.p = cr_v3_add(t.p, at);
    return t;
}

/* A static dentable block from asset 0, placed as modelled. */
static cr_status add_dentable_block(dent_world *d, cr_body_id *out) {
    cr_body_def block = cr_default_body_def();
    block.type = CR_BODY_STATIC;
    block.shape.type = CR_SHAPE_MESH;
    block.shape.asset = d->slot[0];
    cr_transform pose = modelled_pose(&d->asset[0], cr_v3_zero());
    block.position = pose.p;
    block.orientation = pose.q;
    block.dent = cr_default_dent_material();
    block.dent.enabled = true;
    return cr_body_create(d->w, &block, out);
}

/* Seed 000 Figure 2: a ball hits a block head on. */
CR_TEST(dent_ball_block_depth_support_and_grid) {
    dent_world d;
    char *obj = NULL;
    tess_box(&obj, 0.5, 0.2, 0.5, 40);
    ENSURE(cook_into(&d, 0, obj, 40));
    ENSURE(make_world(&d, 1, cr_v3_zero(), roomy_deform()));

    cr_body_id bid, ball;
    ENSURE(add_dentable_block(&d, &bid) == CR_OK); /* default dent: 1 cm per m/s above 1 m/s */

    cr_body_def bd = cr_default_body_def();
    bd.shape.radius = CR_R(0.1);
    bd.position = cr_v3(0, CR_R(0.35), 0);
    bd.linear_velocity = cr_v3(0, CR_R(-5), 0);
    ENSURE(cr_body_create(d.w, &bd, &ball) == CR_OK);

    cr_body_mesh m;
    ENSURE(cr_body_get_mesh(d.w, bid, &m) == CR_OK);
    ENSURE(m.dent_count == 0 && m.dirty_first > m.dirty_last);
    cr_real speed = 0;
    for (int f = 0; f < 30 && m.dent_count == 0; ++f) {
        ENSURE(cr_world_step(d.w, CR_R(1.0 / 60.0)) == CR_OK);
        cr_impact_event ev[4];
        uint32_t n = cr_world_get_events(d.w, ev, 4);
        if (n > 0) speed = -ev[0].normal_speed;
        ENSURE(cr_body_get_mesh(d.w, bid, &m) == CR_OK);
    }
    ENSURE_MSG(m.dent_count == 1, "no dent after the impact (dent_count %u)", m.dent_count);
    ENSURE(m.dirty_first <= m.dirty_last);
    double expect = 0.01 * (cr_to_double(speed) - 1.0);

    /* deepest displacement = the dent distance; far points bit-identical */
    cr_transform xf = cr_body_get_transform(d.w, bid);
    double deepest = 0;
    uint32_t far_moved = 0, moved = 0;
    for (uint32_t i = 0; i < m.vertex_count; ++i) {
        cr_vec3 delta = cr_v3_sub(m.positions[i], m.rest_positions[i]);
        double len = cr_to_double(cr_v3_len(delta));
        if (len > deepest) deepest = len;
        cr_vec3 wp = cr_transform_point(xf, m.rest_positions[i]);
        double r = hypot(cr_to_double(wp.x), cr_to_double(wp.z));
        if (len > 0) ++moved;
        if (r > 0.4 && memcmp(&m.positions[i], &m.rest_positions[i], sizeof(cr_vec3)) != 0) ++far_moved;
    }
    cr_test_printf("     ball 5 m/s into block: dent %.4f m (expected %.4f), %u vertices moved\n", deepest, expect, moved);
    ENSURE_NEAR(deepest, expect, 0.1 * expect);
    ENSURE(far_moved == 0);
    ENSURE(cr_body_clear_dirty(d.w, bid) == CR_OK);
    ENSURE(cr_body_get_mesh(d.w, bid, &m) == CR_OK && m.dirty_first > m.dirty_last);

    /* the grid follows: just under the old surface at the centre is now outside */
    const cr_asset *view = cr_world_get_asset(d.w, cr_body_get_shape(d.w, bid).asset);
    ENSURE(view != NULL && view != &d.asset[0]);
    cr_vec3 probe = cr_transform_inv_point(xf, cr_v3(0, CR_R(0.2) - cr_mul(CR_R(0.5), cr_from_float((float)expect)), 0));
    cr_vec3 nrm;
    ENSURE(cr_asset_sdf(&d.asset[0], probe, &nrm) < 0);
    ENSURE_MSG(cr_asset_sdf(view, probe, &nrm) > 0, "patched grid still says inside: %g",
               cr_to_double(cr_asset_sdf(view, probe, &nrm)));
    /* and far away it is the cooked grid, untouched */
    cr_vec3 corner = cr_transform_inv_point(xf, cr_v3(CR_R(0.45), CR_R(0.19), CR_R(0.45)));
    ENSURE(cr_asset_sdf(view, corner, &nrm) == cr_asset_sdf(&d.asset[0], corner, &nrm));
    free_world(&d, 1);
}

/* Seed 000 Figure 1: two equal dentable spheres dent each other equally. */
CR_TEST(dent_symmetric_equal_spheres_mirror) {
    dent_world d;
    char *obj = NULL;
    tc_sphere(&obj, 0.3, 48, 24);
    ENSURE(cook_into(&d, 0, obj, 32));
    ENSURE(make_world(&d, 1, cr_v3_zero(), roomy_deform()));
    cr_body_id id[2];
    for (int k = 0; k < 2; ++k) {
        cr_body_def bd = cr_default_body_def();
        bd.shape.type = CR_SHAPE_MESH;
        bd.shape.asset = d.slot[0];
        bd.position = cr_v3(k ? CR_R(0.35) : CR_R(-0.35), 0, 0);
        bd.linear_velocity = cr_v3(k ? CR_R(-3) : CR_R(3), 0, 0);
        bd.dent = cr_default_dent_material();
        bd.dent.enabled = true;
        bd.dent.refresh_mass = true;
        ENSURE(cr_body_create(d.w, &bd, &id[k]) == CR_OK);
    }
    double mass0 = cr_to_double(cr_body_get_mass(d.w, id[0]));
    cr_body_mesh m[2];
    for (int f = 0; f < 30; ++f) cr_world_step(d.w, CR_R(1.0 / 60.0));
    double depth[2] = {0, 0}, total[2] = {0, 0};
    for (int k = 0; k < 2; ++k) {
        ENSURE(cr_body_get_mesh(d.w, id[k], &m[k]) == CR_OK);
        ENSURE_MSG(m[k].dent_count >= 1, "sphere %d not dented", k);
        for (uint32_t i = 0; i < m[k].vertex_count; ++i) {
            double len = cr_to_double(cr_v3_len(cr_v3_sub(m[k].positions[i], m[k].rest_positions[i])));
            if (len > depth[k]) depth[k] = len;
            if (len > 0.002) total[k] += len; /* the visible dent, not its last tenths of a millimetre */
        }
    }
    cr_test_printf("     equal spheres at 6 m/s: dents %.5f and %.5f m, summed displacement %.4f and %.4f m (%u, %u dents)\n",
                   depth[0], depth[1], total[0], total[1], m[0].dent_count, m[1].dent_count);
    ENSURE(depth[0] > 0.01);
    ENSURE_NEAR(depth[0], depth[1], 0.01 * depth[0]);
    ENSURE_NEAR(total[0], total[1], 0.02 * total[0]);
    /* the dents took volume, and with it mass, equally from both */
    double mass1[2] = {cr_to_double(cr_body_get_mass(d.w, id[0])), cr_to_double(cr_body_get_mass(d.w, id[1]))};
    cr_test_printf("     mass %.3f kg -> %.3f and %.3f kg\n", mass0, mass1[0], mass1[1]);
    ENSURE(mass1[0] < mass0 && mass1[0] > 0.95 * mass0);
    ENSURE_NEAR(mass1[0], mass1[1], 1e-3 * mass0);
    free_world(&d, 1);
}

/* Per-step caps: with one dent per step, a burst of impacts waits in the
 * queue, is counted, and drains over the next steps. */
CR_TEST(dent_budget_queues_and_drains) {
    dent_world d;
    char *obj = NULL;
    tess_box(&obj, 1.0, 0.2, 1.0, 32);
    ENSURE(cook_into(&d, 0, obj, 40));
    cr_deform_def dd = roomy_deform();
    dd.dents_per_step = 1;
    ENSURE(make_world(&d, 1, cr_v3_zero(), dd));
    cr_body_id bid, ball;
    ENSURE(add_dentable_block(&d, &bid) == CR_OK);
    for (int i = 0; i < 6; ++i) {
        cr_body_def bd = cr_default_body_def();
        bd.shape.radius = CR_R(0.05);
        bd.position = cr_v3(cr_mul(CR_R(0.3), cr_from_int(i % 3 - 1)), CR_R(0.3), cr_mul(CR_R(0.5), cr_from_int(i / 3) - CR_R(0.5)));
        bd.linear_velocity = cr_v3(0, CR_R(-4), 0);
        ENSURE(cr_body_create(d.w, &bd, &ball) == CR_OK);
    }
    uint32_t max_queued = 0, dents = 0;
    for (int f = 0; f < 40; ++f) {
        cr_world_step(d.w, CR_R(1.0 / 60.0));
        cr_world_stats st = cr_world_get_stats(d.w);
        ENSURE(st.stage[CR_STAGE_deform].work <= 1);
        dents += st.stage[CR_STAGE_deform].work;
        if (st.stage[CR_STAGE_deform].overflow > max_queued) max_queued = st.stage[CR_STAGE_deform].overflow;
    }
    cr_body_mesh m;
    ENSURE(cr_body_get_mesh(d.w, bid, &m) == CR_OK);
    cr_test_printf("     6 simultaneous impacts, 1 dent per step: %u queued at most, %u dents\n", max_queued, dents);
    ENSURE(max_queued >= 4);
    ENSURE(m.dent_count == 6 && dents == 6);
    ENSURE(cr_world_get_stats(d.w).stage[CR_STAGE_deform].overflow == 0);
    for (uint32_t i = 0; i < m.vertex_count; ++i) {
        double x = cr_to_double(m.positions[i].x);
        ENSURE(x == x);
    }
    free_world(&d, 1);
}

/* A dented world rolls back like any other: snapshot, dent, restore. */
CR_TEST(dent_survives_snapshot_restore) {
    dent_world d;
    char *obj = NULL;
    tess_box(&obj, 0.5, 0.2, 0.5, 24);
    ENSURE(cook_into(&d, 0, obj, 32));
    ENSURE(make_world(&d, 1, cr_v3_zero(), roomy_deform()));
    cr_body_id bid, ball;
    ENSURE(add_dentable_block(&d, &bid) == CR_OK);
    cr_body_def bd = cr_default_body_def();
    bd.shape.radius = CR_R(0.1);
    bd.position = cr_v3(0, CR_R(0.4), 0);
    bd.linear_velocity = cr_v3(0, CR_R(-4), 0);
    ENSURE(cr_body_create(d.w, &bd, &ball) == CR_OK);
    size_t n = cr_world_snapshot_size(d.w);
    uint8_t *snap = malloc(n);
    ENSURE(cr_world_snapshot_save(d.w, snap, n) == CR_OK);
    uint64_t h[40];
    for (int f = 0; f < 40; ++f) {
        cr_world_step(d.w, CR_R(1.0 / 60.0));
        h[f] = cr_world_state_hash(d.w);
    }
    cr_body_mesh m;
    ENSURE(cr_body_get_mesh(d.w, bid, &m) == CR_OK && m.dent_count == 1);
    ENSURE(cr_world_snapshot_restore(d.w, snap, n) == CR_OK);
    ENSURE(cr_body_get_mesh(d.w, bid, &m) == CR_OK && m.dent_count == 0);
    for (int f = 0; f < 40; ++f) {
        cr_world_step(d.w, CR_R(1.0 / 60.0));
        ENSURE_MSG(cr_world_state_hash(d.w) == h[f], "replayed dent differs at frame %d", f);
    }
    free(snap);
    free_world(&d, 1);
}

/* The seed moves the projectile into the dent it made (Algorithm 1 lines
 * 16, 19) when asked: the ball ends up lower by the dent distance. */
CR_TEST(dent_moves_projectile_into_its_dent_on_request) {
    double ball_y[2];
    for (int move = 0; move < 2; ++move) {
        dent_world d;
        char *obj = NULL;
        tess_box(&obj, 0.5, 0.2, 0.5, 24);
        ENSURE(cook_into(&d, 0, obj, 32));
        ENSURE(make_world(&d, 1, cr_v3_zero(), roomy_deform()));
        cr_body_def block = cr_default_body_def();
        block.type = CR_BODY_STATIC;
        block.shape.type = CR_SHAPE_MESH;
        block.shape.asset = d.slot[0];
        cr_transform pose = modelled_pose(&d.asset[0], cr_v3_zero());
        block.position = pose.p, block.orientation = pose.q;
        block.dent = cr_default_dent_material();
        block.dent.enabled = true;
        block.dent.move_projectile = move;
        cr_body_id bid, ball;
        ENSURE(cr_body_create(d.w, &block, &bid) == CR_OK);
        cr_body_def bd = cr_default_body_def();
        bd.shape.radius = CR_R(0.1);
        bd.material.restitution = 0;
        bd.position = cr_v3(0, CR_R(0.4), 0);
        bd.linear_velocity = cr_v3(0, CR_R(-4), 0);
        ENSURE(cr_body_create(d.w, &bd, &ball) == CR_OK);
        cr_body_mesh m = {0};
        for (int f = 0; f < 30 && m.dent_count == 0; ++f) {
            cr_world_step(d.w, CR_R(1.0 / 60.0));
            ENSURE(cr_body_get_mesh(d.w, bid, &m) == CR_OK);
        }
        ENSURE(m.dent_count == 1);
        ball_y[move] = cr_to_double(cr_body_get_transform(d.w, ball).p.y);
        free_world(&d, 1);
    }
    cr_test_printf("     ball after the dent: y %.4f m as it was, %.4f m moved into the dent\n", ball_y[0], ball_y[1]);
    ENSURE_NEAR(ball_y[0] - ball_y[1], 0.03, 0.002); /* the dent distance: 1 cm per m/s over 1 m/s */
}
