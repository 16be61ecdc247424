/* test_example.c — example-based plasticity (seed 001) on the cooked bar
 * (data/meshes/bar.obj, data/rigs/bar.rig, data/poses/bar.pose): the skinning
 * it re-skins with, what attach refuses, and what a user would see: a hard hit
 * moves the hit region toward the example that gives way there (and the
 * distance grid follows), weights stay barycentric, resting contact below the
 * yield threshold changes nothing, the fade-in rate does not change where the
 * body ends up (eq. 14), the restitution drops with the deformation and
 * recovers (eq. 15) and a second drop bounces lower, gamma sets how far a hit
 * spreads, the inertia follows the shape, a fading body stays awake, budgets
 * delay work without changing it, snapshots and destroyed bodies are safe,
 * and the commits: the drawn surface stays within 1/8 cell of eq. 3 during a
 * fade and ends on its bits, on a bound (the reach) that every vertex of
 * the shipped assets keeps. */
#include "test_cook_util.h"
#include "crumple/snapshot.h"
#include "geometry/skinning.h"
#include "damage/stage.h"
#include <time.h>

/* The bar's examples, as data/poses/bar.pose orders them. */
enum { EX_REST, EX_BEND_UP, EX_CRUSH, EX_TWIST };

typedef struct bar_world {
    cr_cook_result cooked;
    cr_asset asset;
    void *asset_block;
    uint32_t slot;
    cr_world *w;
    void *block;
    cr_body_id bar;
} bar_world;

/* Cook the bar with geodesic lists reaching `reach` m (every vertex fits in 64 entries). */
static int cook_bar_reach(bar_world *b, bool rigged, double reach);
/* ... long enough for a gamma of 1.5 m. */
static int cook_bar(bar_world *b, bool rigged) { return cook_bar_reach(b, rigged, 1.5); }
static int cook_bar_reach(bar_world *b, bool rigged, double reach) {
    memset(b, 0, sizeof *b);
    cr_cook_options opt = cr_cook_default_options();
    opt.quiet = true;
    opt.sdf_res = 24;
    opt.geodesic_radius = reach;
    opt.geodesic_max = 64;
    if (rigged) {
        opt.rig_path = "data/rigs/bar.rig";
        opt.poses_path = "data/poses/bar.pose";
    }
    char err[512];
    if (cr_cook_file("data/meshes/bar.obj", NULL, &opt, &b->cooked, err, sizeof err) != 0) {
        cr_test_printf("    %s\n", err);
        return 0;
    }
    b->asset_block = tc_load(b->cooked.bytes, b->cooked.size, &b->asset);
    return b->asset_block != NULL;
}

static int make_world(bar_world *b, cr_vec3 gravity, uint32_t capacity) {
    cr_world_def def = cr_default_world_def();
    def.body_capacity = 16;
    def.gravity = gravity;
    def.damage.example = cr_default_example_budget();
    def.damage.example.body_capacity = capacity;
    def.damage.surface_bytes = 1u << 20;
    size_t size = cr_world_memory_size(&def);
    if (size == 0) return 0;
    b->block = aligned_alloc(CR_BLOCK_ALIGN, (size + 15) / 16 * 16);
    if (cr_world_create(&def, b->block, size, &b->w) != CR_OK) return 0;
    return cr_world_add_asset(b->w, &b->asset, &b->slot) == CR_OK;
}

static void free_bar(bar_world *b) {
    free(b->block);
    free(b->asset_block);
    cr_cook_result_free(&b->cooked);
}

static cr_body_def bar_def(const bar_world *b, cr_body_type type, cr_vec3 at) {
    cr_body_def d = cr_default_body_def();
    d.type = type;
    d.shape.type = CR_SHAPE_MESH;
    d.shape.asset = b->slot;
    d.position = at;
    d.material.restitution = CR_R(0.8);
    return d;
}

/* A steel ball of radius r at p moving at v. */
static cr_body_def steel_ball(cr_real r, cr_vec3 p, cr_vec3 v) {
    cr_body_def s = cr_default_body_def();
    s.shape.type = CR_SHAPE_SPHERE;
    s.shape.radius = r;
    s.material.density = CR_R(8000);
    s.position = p;
    s.linear_velocity = v;
    return s;
}

/* A plastic static bar at the origin, and a dense ball `above` its point x
 * moving at `speed` down onto it (no gravity: one clean hit). */
static int hit_setup(bar_world *b, const cr_example_def *ed, double x, double speed, cr_body_id *ball) {
    if (!cook_bar(b, true) || !make_world(b, cr_v3_zero(), 4)) return 0;
    cr_body_def bd = bar_def(b, CR_BODY_STATIC, cr_v3_zero());
    if (cr_body_create(b->w, &bd, &b->bar) != CR_OK) return 0;
    if (cr_example_attach(b->w, b->bar, ed) != CR_OK) return 0;
    cr_body_def s = steel_ball(CR_R(0.2), cr_v3(CR_R(x), CR_R(0.5), 0), cr_v3(0, CR_R(-speed), 0));
    s.material.restitution = CR_R(1);
    return cr_body_create(b->w, &s, ball) == CR_OK;
}

static cr_example_def soft_def(void) {
    cr_example_def ed = cr_default_example_def();
    ed.alpha = CR_R(20);
    ed.beta = CR_R(50);
    ed.gamma = CR_R(1.5);
    ed.lambda = CR_R(0.5);
    return ed;
}

static double row_sum(const cr_example_view *v, uint32_t row) {
    double s = 0;
    for (uint32_t k = 0; k < v->example_count; ++k) s += cr_to_double(v->weights[row * v->example_count + k]);
    return s;
}

/* Every entry in [0, 1] and every row summing to 1; returns the worst row-sum error. */
static double barycentric_error(const cr_example_view *v, int *out_of_range) {
    double worst = 0;
    for (uint32_t i = 0; i < v->vertex_count; ++i) {
        for (uint32_t k = 0; k < v->example_count; ++k) {
            double e = cr_to_double(v->weights[i * v->example_count + k]);
            if (e < 0 || e > 1) ++*out_of_range;
        }
        double d = fabs(row_sum(v, i) - 1);
        if (d > worst) worst = d;
    }
    return worst;
}

static double weight(const cr_example_view *v, uint32_t row, int ex) {
    return cr_to_double(v->weights[row * v->example_count + (uint32_t)ex]);
}

/* ---- skinning (geometry/skinning.c) ---------------------------------------- */

CR_TEST(example_skinning_jacobian_is_the_derivative_and_examples_are_reached) {
    bar_world b;
    ENSURE(cook_bar(&b, true));
    const cr_asset *a = &b.asset;
    ENSURE(a->example_count == 4 && a->bone_count == 3);
    const double rows[3][4] = {{1, 0, 0, 0}, {0.5, 0.3, 0.2, 0}, {0.1, 0.2, 0.3, 0.4}};
    double worst = 0;
    cr_skin_frame frames[3 * 4];
    cri_skin_example_frames(a, frames);
    cr_skin_blend blends[3];
    cr_skin_cache cache;
    cri_skin_cache_init(&cache, blends, a);
    for (uint32_t v = 0; v < a->vertex_count; ++v) {
        /* the rest weights re-skin every vertex exactly where it was cooked */
        cr_real rest[4] = {CR_R(1), 0, 0, 0};
        cr_vec3 x = cri_skin_example_point(a, NULL, v, a->positions[v], rest);
        ENSURE(x.x == a->positions[v].x && x.y == a->positions[v].y && x.z == a->positions[v].z);
        /* one example's whole weight: the example as the cooker stored it */
        for (uint32_t e = 1; e < 4; ++e) {
            cr_real one[4] = {0, 0, 0, 0};
            one[e] = CR_R(1);
            cr_vec3 y = cri_skin_example_point(a, NULL, v, a->positions[v], one), z = cr_v3_zero();
            for (uint32_t k = 0; k < 4; ++k) {
                cr_transform t = a->examples[e * 3 + a->skin_bone[4 * v + k]];
                z = cr_v3_mad(z, a->skin_weight[4 * v + k], cr_transform_point(t, a->positions[v]));
            }
            ENSURE_NEAR(cr_to_double(y.x), cr_to_double(z.x), 1e-4);
            ENSURE_NEAR(cr_to_double(y.y), cr_to_double(z.y), 1e-4);
            ENSURE_NEAR(cr_to_double(y.z), cr_to_double(z.z), 1e-4);
        }
        /* eq. 5 against central differences */
        for (int r = 0; r < 3; ++r) {
            cr_real w[4];
            for (int k = 0; k < 4; ++k) w[k] = CR_R(rows[r][k]);
            /* the frame table the model builds once per re-skin changes no bit */
            cr_vec3 p0 = cri_skin_example_point(a, NULL, v, a->positions[v], w);
            cr_vec3 p1 = cri_skin_example_point(a, frames, v, a->positions[v], w);
            ENSURE(p0.x == p1.x && p0.y == p1.y && p0.z == p1.z);
            /* nor does the per-bone blend cache, whether the row changed (r) or repeats (twice) */
            for (int rep = 0; rep < 2; ++rep) {
                cr_vec3 p2 = cri_skin_example_point_cached(a, frames, &cache, v, a->positions[v], w);
                ENSURE(p0.x == p2.x && p0.y == p2.y && p0.z == p2.z);
            }
            cr_vec3 cols[4];
            cri_skin_example_jacobian(a, v, a->positions[v], w, cols);
            for (int k = 0; k < 4; ++k) {
                const double h = 1e-3;
                cr_real wp[4], wm[4];
                for (int q = 0; q < 4; ++q) wp[q] = wm[q] = w[q];
                wp[k] = CR_R(rows[r][k] + h), wm[k] = CR_R(rows[r][k] - h);
                cr_vec3 xp = cri_skin_example_point(a, NULL, v, a->positions[v], wp);
                cr_vec3 xm = cri_skin_example_point(a, NULL, v, a->positions[v], wm);
                double fd[3] = {(cr_to_double(xp.x) - cr_to_double(xm.x)) / (2 * h),
                                (cr_to_double(xp.y) - cr_to_double(xm.y)) / (2 * h),
                                (cr_to_double(xp.z) - cr_to_double(xm.z)) / (2 * h)};
                double an[3] = {cr_to_double(cols[k].x), cr_to_double(cols[k].y), cr_to_double(cols[k].z)};
                for (int c = 0; c < 3; ++c)
                    if (fabs(fd[c] - an[c]) > worst) worst = fabs(fd[c] - an[c]);
            }
        }
    }
    cr_test_printf("    jacobian vs central differences: worst %.3g m per unit weight\n", worst);
    ENSURE(worst < 2e-3);
    free_bar(&b);
}

/* ---- attach ------------------------------------------------------------------- */

/* The model re-skins each run of changed rows with one call
 * (cri_skin_example_points): the same bits as one call per vertex, whatever
 * the runs, shared rows and rest rows among them. */
CR_TEST(example_reskin_in_runs_gives_the_same_bits_as_per_vertex) {
    bar_world b;
    ENSURE(cook_bar(&b, true));
    const cr_asset *a = &b.asset;
    uint32_t n = a->vertex_count, ne = a->example_count;
    cr_real *rows = malloc(sizeof(cr_real) * n * ne);
    cr_vec3 *one = malloc(sizeof(cr_vec3) * n), *runs = malloc(sizeof(cr_vec3) * n);
    for (uint32_t v = 0; v < n; ++v) {
        /* thirds: at rest, one shared mixed row, a row of its own per vertex */
        double mix[4] = {0.4, 0.3, 0.2, 0.1};
        for (uint32_t e = 0; e < ne; ++e) {
            double x = v < n / 3 ? (e == 0) : v < 2 * n / 3 ? mix[e] : (e == v % ne ? 0.7 : 0.1);
            rows[v * ne + e] = CR_R(x);
        }
    }
    cr_skin_frame frames[3 * 4];
    cri_skin_example_frames(a, frames);
    for (uint32_t v = 0; v < n; ++v) one[v] = cri_skin_example_point(a, frames, v, a->positions[v], &rows[v * ne]);
    const uint32_t splits[] = {1, 2, 5, 7, n};
    uint32_t compared = 0;
    for (size_t s = 0; s < sizeof splits / sizeof splits[0]; ++s) {
        cr_skin_blend blends[3];
        cr_skin_cache cache;
        cri_skin_cache_init(&cache, blends, a);
        for (uint32_t v = 0; v < n; v += splits[s]) {
            uint32_t end = v + splits[s] < n ? v + splits[s] : n;
            cri_skin_example_points(a, frames, &cache, v, end, rows, runs + v);
        }
        for (uint32_t v = 0; v < n; ++v, ++compared)
            ENSURE_MSG(one[v].x == runs[v].x && one[v].y == runs[v].y && one[v].z == runs[v].z,
                       "vertex %u, runs of %u: not the same bits", v, splits[s]);
    }
    cr_test_printf("    %u vertices compared over 5 run lengths: same bits\n", compared);
    free(rows), free(one), free(runs);
    free_bar(&b);
}

/* The re-skin runs four vertices side by side where their influences agree
 * (cr_skin_lanes, gathered at attach), on the fine bar (1056 vertices):
 * rows shared by a block (the cached blends), a row per lane (the QLERPs in
 * the lanes, with examples 0 in every lane or in none), rows 0 in some lanes
 * and not others (vertex by vertex), a -0 beside a 0; the same bits (memcmp,
 * the sign of 0 included) as one cri_skin_example_point per vertex, with and
 * without the lanes, in runs of 1, 3, 4, 5, 16 and all. */
CR_TEST(example_reskin_in_lanes_gives_the_same_bits_as_per_vertex) {
    cr_cook_options opt = cr_cook_default_options();
    opt.quiet = true;
    opt.sdf_res = 24;
    opt.rig_path = "data/rigs/bar.rig";
    opt.poses_path = "data/poses/bar.pose";
    cr_cook_result cooked;
    char err[512];
    ENSURE_MSG(cr_cook_file("data/meshes/fine_bar.obj", NULL, &opt, &cooked, err, sizeof err) == 0, "%s", err);
    cr_asset asset;
    void *ablock = tc_load(cooked.bytes, cooked.size, &asset);
    ENSURE(ablock != NULL);
    const cr_asset *a = &asset;
    uint32_t n = a->vertex_count, ne = a->example_count;
    ENSURE(ne == 4 && a->bone_count == 3);
    void *lmem = aligned_alloc(16, (cri_skin_lanes_bytes(n) + 15) / 16 * 16);
    cr_skin_lanes lanes = cri_skin_lanes_view(lmem, n);
    cri_skin_lanes_build(a, &lanes);
    uint32_t in_lanes = 0, uniform = 0;
    cri_skin_lanes_count(&lanes, &in_lanes, &uniform);
    ENSURE_MSG(2 * in_lanes > lanes.blocks, "%u of %u blocks in the lanes", in_lanes, lanes.blocks);
    cr_real *rows = malloc(sizeof(cr_real) * n * ne);
    cr_vec3 *one = malloc(sizeof(cr_vec3) * n), *runs = malloc(sizeof(cr_vec3) * n);
    cr_skin_frame frames[3 * 4];
    cri_skin_example_frames(a, frames);
    uint32_t compared = 0;
    for (int pattern = 0; pattern < 6; ++pattern) {
        for (uint32_t v = 0; v < n; ++v) {
            double f = (double)(v % 37) / 37.0, r[4] = {1, 0, 0, 0};
            if (pattern == 1) r[0] = 0.4, r[1] = 0.3, r[2] = 0.2, r[3] = 0.1;             /* one row everywhere */
            if (pattern == 2) r[0] = 1 - 0.8 * f, r[1] = 0.8 * f;                           /* a row each, 2 examples */
            if (pattern == 3) r[0] = 0.1 + 0.5 * f, r[1] = 0.3, r[2] = 0.5 - 0.4 * f, r[3] = 0.1; /* a row each, all */
            if (pattern == 4 && v % 3 == 0) r[0] = 0.5, r[1] = 0.5;                         /* 0 in some lanes */
            if (pattern == 5) r[0] = 0.6, r[1] = (v / 4) % 2 ? 0.4 : 0.2, r[2] = (v / 4) % 2 ? 0 : 0.2; /* a row a block */
            for (uint32_t e = 0; e < ne; ++e) rows[v * ne + e] = CR_R(r[e]);
            /* a -0 beside a 0: equal rows, different bits */
            if (pattern == 5 && v % 8 == 5) rows[v * ne + 3] = -rows[v * ne + 3];
        }
        for (uint32_t v = 0; v < n; ++v) one[v] = cri_skin_example_point(a, frames, v, a->positions[v], &rows[v * ne]);
        const uint32_t splits[] = {1, 3, 4, 5, 16, n};
        for (int with = 0; with < 2; ++with)
            for (size_t s = 0; s < sizeof splits / sizeof splits[0]; ++s) {
                cr_skin_blend blends[3];
                cr_skin_cache cache;
                cri_skin_cache_init(&cache, blends, a);
                if (with) cache.lanes = &lanes;
                for (uint32_t v = 0; v < n; v += splits[s]) {
                    uint32_t end = v + splits[s] < n ? v + splits[s] : n;
                    cri_skin_example_points(a, frames, &cache, v, end, rows, runs + v);
                }
                for (uint32_t v = 0; v < n; ++v, ++compared)
                    ENSURE_MSG(memcmp(&one[v], &runs[v], sizeof(cr_vec3)) == 0,
                               "rows %d, vertex %u, runs of %u, %s the lanes: not the same bits", pattern, v, splits[s],
                               with ? "with" : "without");
            }
    }
    cr_test_printf("    %u of %u blocks in the lanes (%u with one bone per slot); %u vertices compared over 6 row patterns, 6 run lengths, with and "
                   "without the lanes: same bits\n", in_lanes, lanes.blocks, uniform, compared);
    free(rows), free(one), free(runs), free(lmem), free(ablock);
    cr_cook_result_free(&cooked);
}

CR_TEST(example_attach_refuses_what_it_cannot_deform) {
    bar_world b;
    ENSURE(cook_bar(&b, true) && make_world(&b, cr_v3_zero(), 1));
    cr_example_def ed = cr_default_example_def();
    cr_body_def sd = cr_default_body_def();
    sd.shape.type = CR_SHAPE_SPHERE;
    cr_body_id ball, bar, bar2;
    ENSURE(cr_body_create(b.w, &sd, &ball) == CR_OK);
    ENSURE(cr_example_attach(b.w, ball, &ed) == CR_ERR_DEF_INVALID);       /* not a mesh */
    cr_body_def bd = bar_def(&b, CR_BODY_STATIC, cr_v3_zero());
    ENSURE(cr_body_create(b.w, &bd, &bar) == CR_OK);
    cr_example_def raw;
    memset(&raw, 0, sizeof raw);
    ENSURE(cr_example_attach(b.w, bar, &raw) == CR_ERR_DEF_NOT_DEFAULTED);
    ENSURE(cr_example_attach(b.w, bar, NULL) == CR_ERR_NULL_ARGUMENT);
    cr_example_def bad = ed;
    bad.lambda = CR_R(1);
    ENSURE(cr_example_attach(b.w, bar, &bad) == CR_ERR_DEF_INVALID);
    bad = ed, bad.gamma = 0;
    ENSURE(cr_example_attach(b.w, bar, &bad) == CR_ERR_DEF_INVALID);
    ENSURE(cr_example_attach(b.w, bar, &ed) == CR_OK);
    ENSURE(cr_example_attach(b.w, bar, &ed) == CR_ERR_DEF_INVALID);       /* twice */
    bd.position = cr_v3(0, CR_R(3), 0);
    ENSURE(cr_body_create(b.w, &bd, &bar2) == CR_OK);
    ENSURE(cr_example_attach(b.w, bar2, &ed) == CR_ERR_CAPACITY);         /* capacity 1 */
    cr_example_view v;
    ENSURE(cr_example_get(b.w, bar2, &v) == CR_ERR_DEF_INVALID);
    ENSURE(cr_example_get(b.w, bar, &v) == CR_OK && v.vertex_count == b.asset.vertex_count && v.example_count == 4);
    ENSURE(weight(&v, 0, EX_REST) == 1 && v.restitution_rest == CR_R(0.8));
    free_bar(&b);

    /* the default world def only needs room for plastic bodies */
    {
        cr_world_def wd = cr_default_world_def();
        wd.damage.example.body_capacity = 2;
        ENSURE(cr_world_memory_size(&wd) > 0);
    }

    /* a body that dents: a re-skin would erase its dents */
    ENSURE(cook_bar(&b, true));
    cr_world_def def = cr_default_world_def();
    def.body_capacity = 4;
    def.damage.example = cr_default_example_budget();
    def.damage.example.body_capacity = 1;
    def.damage.dent = cr_default_dent_budget();
    def.damage.dent.body_capacity = 1;
    size_t size = cr_world_memory_size(&def);
    b.block = aligned_alloc(CR_BLOCK_ALIGN, (size + 15) / 16 * 16);
    ENSURE(cr_world_create(&def, b.block, size, &b.w) == CR_OK && cr_world_add_asset(b.w, &b.asset, &b.slot) == CR_OK);
    bd = bar_def(&b, CR_BODY_STATIC, cr_v3_zero());
    ENSURE(cr_body_create(b.w, &bd, &bar) == CR_OK);
    cr_dent_def dd = cr_default_dent_def();
    ENSURE(cr_dent_attach(b.w, bar, &dd) == CR_OK);
    ENSURE(cr_example_attach(b.w, bar, &ed) == CR_ERR_DEF_INVALID);
    /* and the other way round: a plastic body does not take dents */
    cr_body_id bar3;
    bd.position = cr_v3(0, CR_R(5), 0);
    ENSURE(cr_body_create(b.w, &bd, &bar3) == CR_OK);
    ENSURE(cr_example_attach(b.w, bar3, &ed) == CR_OK);
    ENSURE(cr_dent_attach(b.w, bar3, &dd) == CR_ERR_DEF_INVALID);
    free_bar(&b);

    /* an asset without bones has no examples to blend */
    ENSURE(cook_bar(&b, false) && make_world(&b, cr_v3_zero(), 2));
    bd = bar_def(&b, CR_BODY_STATIC, cr_v3_zero());
    ENSURE(cr_body_create(b.w, &bd, &bar) == CR_OK);
    ENSURE(cr_example_attach(b.w, bar, &ed) == CR_ERR_DEF_INVALID);
    free_bar(&b);
}

/* Every real of a cr_example_def: a non-finite value (float NaN/±Inf, fixed
 * saturated) is CR_ERR_NOT_FINITE, a finite one out of range CR_ERR_DEF_INVALID
 * (below and above), and cr_world_refused_field names it; nothing is attached
 * by a refusal, and the body takes a valid def afterwards. */
CR_TEST(hostile_example_def_names_the_field) {
#if CR_FIXED
    static const cr_real bad[] = {CR_REAL_MAX, -CR_REAL_MAX, INT64_MIN};
#else
    static const cr_real bad[] = {NAN, INFINITY, -INFINITY};
#endif
    bar_world b;
    ENSURE(cook_bar(&b, true) && make_world(&b, cr_v3_zero(), 1));
    cr_body_def bd = bar_def(&b, CR_BODY_DYNAMIC, cr_v3_zero());
    cr_body_id bar;
    ENSURE(cr_body_create(b.w, &bd, &bar) == CR_OK);
    const uint64_t before = cr_world_state_hash(b.w);
    const struct { size_t off; cr_field f; cr_real low, high; } fields[] = {
        {offsetof(cr_example_def, alpha), CR_FIELD_EXAMPLE_ALPHA, CR_R(-1), CR_R(2e6)},
        {offsetof(cr_example_def, beta), CR_FIELD_EXAMPLE_BETA, CR_R(-0.001), CR_R(2e9)},
        {offsetof(cr_example_def, gamma), CR_FIELD_EXAMPLE_GAMMA, 0, CR_R(2e6)},
        {offsetof(cr_example_def, lambda), CR_FIELD_EXAMPLE_LAMBDA, CR_R(-0.5), CR_R(1)},
        {offsetof(cr_example_def, mu), CR_FIELD_EXAMPLE_MU, CR_R(-1), CR_R(2e6)},
        {offsetof(cr_example_def, nu), CR_FIELD_EXAMPLE_NU, CR_R(-1), CR_R(2e6)},
        {offsetof(cr_example_def, draw_lag), CR_FIELD_EXAMPLE_DRAW_LAG, CR_R(0.01), CR_R(1.5)},
        {offsetof(cr_example_def, grid_lag), CR_FIELD_EXAMPLE_GRID_LAG, CR_R(0.05), CR_R(5)},
    };
    int refused = 0;
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; ++i) {
        for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
            cr_example_def ed = cr_default_example_def();
            memcpy((char *)&ed + fields[i].off, &bad[k], sizeof(cr_real));
            ENSURE(cr_example_attach(b.w, bar, &ed) == CR_ERR_NOT_FINITE);
            ENSURE_MSG(cr_world_refused_field(b.w) == fields[i].f, "field %s, expected %s",
                       cr_field_name(cr_world_refused_field(b.w)), cr_field_name(fields[i].f));
            ++refused;
        }
        const cr_real out[2] = {fields[i].low, fields[i].high};
        for (int k = 0; k < 2; ++k) {
            cr_example_def ed = cr_default_example_def();
            memcpy((char *)&ed + fields[i].off, &out[k], sizeof(cr_real));
            ENSURE(cr_example_attach(b.w, bar, &ed) == CR_ERR_DEF_INVALID);
            ENSURE(cr_world_refused_field(b.w) == fields[i].f);
            ++refused;
        }
    }
    ENSURE(strcmp(cr_field_name(CR_FIELD_EXAMPLE_LAMBDA), "cr_example_def.lambda") == 0);
    /* nothing was attached: no weights to read, the world as it was */
    cr_example_view v;
    ENSURE(cr_example_get(b.w, bar, &v) == CR_ERR_DEF_INVALID);
    ENSURE(cr_world_state_hash(b.w) == before);
    /* the ends of the ranges are accepted */
    cr_example_def ed = cr_default_example_def();
    ed.alpha = CR_R(1e6), ed.beta = 0, ed.gamma = CR_R(1e-4), ed.lambda = 0, ed.mu = 0, ed.nu = CR_R(1e6);
    ENSURE(cr_example_attach(b.w, bar, &ed) == CR_OK);
    ENSURE(cr_example_get(b.w, bar, &v) == CR_OK && v.vertex_count == b.asset.vertex_count);
    cr_test_printf("    %d refusals, each naming its field\n", refused);
    free_bar(&b);
}

/* ---- what a user sees ------------------------------------------------------------ */

CR_TEST(example_hard_hit_moves_the_hit_region_toward_its_example) {
    bar_world b;
    cr_body_id ball;
    cr_example_def ed = soft_def();
    ENSURE(hit_setup(&b, &ed, 0, 10, &ball));
    uint32_t applied = 0;
    for (int i = 0; i < 120; ++i) {
        ENSURE(cr_world_step(b.w, CR_R(1.0 / 60.0)) == CR_OK);
        applied += cr_world_get_stats(b.w).example.done;
    }
    ENSURE(applied > 0);
    cr_example_view v;
    ENSURE(cr_example_get(b.w, b.bar, &v) == CR_OK);
    cr_body_mesh m;
    ENSURE(cr_body_get_mesh(b.w, b.bar, &m) == CR_OK);
    /* the middle was pushed down: the crush example (middle bone down 15 cm)
     * gains weight there, more than at the far ends */
    double mid_crush = 0, end_crush = 0, mid_drop = 0;
    int nmid = 0, nend = 0;
    for (uint32_t i = 0; i < v.vertex_count; ++i) {
        double x = cr_to_double(m.rest_positions[i].x);
        if (fabs(x) < 0.3) {
            mid_crush += weight(&v, i, EX_CRUSH), ++nmid;
            mid_drop += cr_to_double(m.rest_positions[i].y) - cr_to_double(m.positions[i].y);
        }
        if (fabs(x) > 1.9) end_crush += weight(&v, i, EX_CRUSH), ++nend;
    }
    mid_crush /= nmid, end_crush /= nend, mid_drop /= nmid;
    cr_test_printf("    %u impulses applied; crush weight middle %.3f ends %.3f; middle moved down %.4f m\n", applied,
                   mid_crush, end_crush, mid_drop);
    ENSURE(mid_crush > 0.05 && mid_crush > 2 * end_crush);
    ENSURE(mid_drop > 0.005);
    /* the distance grid followed the surface: the middle of the top face
     * (0, 0.25, 0) sank with its vertices, so the body's grid now reads
     * outside there by about the drop, and about 0 where the face went */
    double top_drop = 0;
    int ntop = 0;
    for (uint32_t i = 0; i < v.vertex_count; ++i)
        if (fabs(cr_to_double(m.rest_positions[i].x)) < 0.3 && cr_to_double(m.rest_positions[i].y) > 0)
            top_drop += cr_to_double(m.rest_positions[i].y) - cr_to_double(m.positions[i].y), ++ntop;
    top_drop /= ntop;
    const cr_asset *now = cr_body_get_asset(b.w, b.bar);
    double at_old = cr_to_double(cr_asset_sdf(now, cr_v3(0, CR_R(0.25), 0), NULL));
    double at_new = cr_to_double(cr_asset_sdf(now, cr_v3(0, CR_R(0.25 - top_drop), 0), NULL));
    double cooked_new = cr_to_double(cr_asset_sdf(&b.asset, cr_v3(0, CR_R(0.25 - top_drop), 0), NULL));
    cr_test_printf("    top face sank %.4f m: body grid %.4f at the old face, %.4f at the new (cooked grid there %.4f)\n",
                   top_drop, at_old, at_new, cooked_new);
    ENSURE(top_drop > 0.01);
    ENSURE(at_old > 0.5 * top_drop && fabs(at_new) < 0.3 * top_drop);
    int bad = 0;
    ENSURE(barycentric_error(&v, &bad) < 1e-5 && bad == 0);
    free_bar(&b);
}

/* Many hits on a dynamic bar bouncing on the ground: the weights stay barycentric. */
CR_TEST(example_weights_stay_barycentric_after_many_impacts) {
    bar_world b;
    ENSURE(cook_bar(&b, true) && make_world(&b, cr_v3(0, CR_R(-9.81), 0), 4));
    cr_body_def ground = cr_default_body_def();
    ground.type = CR_BODY_STATIC;
    ground.shape.type = CR_SHAPE_PLANE;
    cr_body_id g, balls[6];
    ENSURE(cr_body_create(b.w, &ground, &g) == CR_OK);
    cr_body_def bd = bar_def(&b, CR_BODY_DYNAMIC, cr_v3(0, CR_R(1.5), 0));
    bd.orientation = cr_quat_from_axis_angle(cr_v3(0, 0, CR_R(1)), CR_R(0.2));
    ENSURE(cr_body_create(b.w, &bd, &b.bar) == CR_OK);
    cr_example_def ed = soft_def();
    ed.beta = CR_R(20);
    ed.lambda = CR_R(0.8);
    ENSURE(cr_example_attach(b.w, b.bar, &ed) == CR_OK);
    for (int k = 0; k < 6; ++k) {
        cr_vec3 at = cr_v3(CR_R(-1.8 + 0.7 * k), CR_R(3 + 0.5 * k), CR_R(0.05 * (k % 3) - 0.05));
        cr_body_def s = steel_ball(CR_R(0.15), at, cr_v3(0, CR_R(-6), 0));
        ENSURE(cr_body_create(b.w, &s, &balls[k]) == CR_OK);
    }
    uint32_t applied = 0;
    double worst = 0;
    int out = 0;
    cr_example_view v;
    for (int i = 0; i < 300; ++i) {
        ENSURE(cr_world_step(b.w, CR_R(1.0 / 60.0)) == CR_OK);
        applied += cr_world_get_stats(b.w).example.done;
        ENSURE(cr_example_get(b.w, b.bar, &v) == CR_OK);
        double e = barycentric_error(&v, &out);
        if (e > worst) worst = e;
    }
    double moved = 0;
    for (uint32_t i = 0; i < v.vertex_count; ++i) moved = fmax(moved, 1 - weight(&v, i, EX_REST));
    cr_test_printf("    %u impulses applied in 5 s; largest non-rest weight %.3f; worst row sum error %.2g; state hash %016llx\n",
                   applied, moved, worst, (unsigned long long)cr_world_state_hash(b.w));
    ENSURE(applied >= 6 && moved > 0.05);
    ENSURE(out == 0 && worst < 1e-5);
    free_bar(&b);
}

/* A bar lying on the ground, its resting impulse per step below beta: 10 s
 * leave every example weight bit for bit as attached. The same bar with
 * beta 0 does deform (the contacts do reach the model). */
static int resting_run(double beta, uint64_t *changed) {
    bar_world b;
    if (!cook_bar(&b, true) || !make_world(&b, cr_v3(0, CR_R(-9.81), 0), 4)) return 0;
    cr_body_def ground = cr_default_body_def();
    ground.type = CR_BODY_STATIC;
    ground.shape.type = CR_SHAPE_PLANE;
    cr_body_id g;
    if (cr_body_create(b.w, &ground, &g) != CR_OK) return 0;
    cr_body_def bd = bar_def(&b, CR_BODY_DYNAMIC, cr_v3(0, CR_R(0.25), 0));
    if (cr_body_create(b.w, &bd, &b.bar) != CR_OK) return 0;
    cr_example_def ed = soft_def();
    ed.beta = CR_R(beta);
    if (cr_example_attach(b.w, b.bar, &ed) != CR_OK) return 0;
    cr_example_view v;
    cr_example_get(b.w, b.bar, &v);
    size_t n = (size_t)v.vertex_count * v.example_count;
    cr_real *start = malloc(n * sizeof(cr_real));
    memcpy(start, v.weights, n * sizeof(cr_real));
    *changed = 0;
    for (int i = 0; i < 600; ++i) {
        if (cr_world_step(b.w, CR_R(1.0 / 60.0)) != CR_OK) return 0;
        cr_example_get(b.w, b.bar, &v);
        if (memcmp(start, v.weights, n * sizeof(cr_real)) != 0) ++*changed;
    }
    free(start);
    free_bar(&b);
    return 1;
}

CR_TEST(example_resting_contact_below_beta_leaves_weights_bit_identical) {
    /* 1000 kg bar: m g dt = 164 N s per step spread over its contacts */
    uint64_t changed_soft, changed_yield;
    ENSURE(resting_run(200, &changed_soft));
    ENSURE(resting_run(0, &changed_yield));
    cr_test_printf("    steps with E changed in 10 s: beta 200 N s %llu, beta 0 %llu\n",
                   (unsigned long long)changed_soft, (unsigned long long)changed_yield);
    ENSURE(changed_soft == 0);
    ENSURE(changed_yield > 0);
}

/* Eq. 14: lambda sets how fast the deformation arrives, not how much. */
static int lambda_run(double lambda, cr_real *out, uint32_t n) {
    bar_world b;
    cr_body_id ball;
    cr_example_def ed = soft_def();
    ed.lambda = CR_R(lambda);
    if (!hit_setup(&b, &ed, 1.2, 10, &ball)) return 0;
    for (int i = 0; i < 300; ++i)
        if (cr_world_step(b.w, CR_R(1.0 / 60.0)) != CR_OK) return 0;
    cr_example_view v;
    cr_example_get(b.w, b.bar, &v);
    if (v.vertex_count * v.example_count > n) return 0;
    memcpy(out, v.weights, v.vertex_count * v.example_count * sizeof(cr_real));
    for (uint32_t k = 0; k < v.vertex_count * v.example_count; ++k)
        if (v.pending[k] != 0) return 0; /* the fade has ended */
    free_bar(&b);
    return (int)(v.vertex_count * v.example_count);
}

CR_TEST(example_fade_rate_does_not_change_the_final_weights) {
    enum { N = 4096 };
    static cr_real e[3][N];
    const double lambdas[3] = {0, 0.5, 0.9};
    int n = 0;
    for (int k = 0; k < 3; ++k) ENSURE((n = lambda_run(lambdas[k], e[k], N)) > 0);
    double worst = 0, moved = 0;
    for (int i = 0; i < n; ++i) {
        moved = fmax(moved, fabs(cr_to_double(e[0][i]) - (i % 4 == 0 ? 1 : 0)));
        for (int k = 1; k < 3; ++k) worst = fmax(worst, fabs(cr_to_double(e[k][i]) - cr_to_double(e[0][i])));
    }
    cr_test_printf("    largest weight change %.3f; lambda 0.5 and 0.9 differ from lambda 0 by %.2g at most\n", moved, worst);
    ENSURE(moved > 0.05);
    ENSURE(worst < 1e-4);
}

/* Eq. 15: right after a deforming hit C_r = exp(-nu |dE|) C_r*, then it rises
 * at mu per second back to C_r*. */
CR_TEST(example_restitution_drops_with_the_deformation_and_recovers_at_mu) {
    bar_world b;
    cr_body_id ball;
    cr_example_def ed = soft_def();
    ed.lambda = CR_R(0.5);
    ed.mu = CR_R(0.3);
    ed.nu = CR_R(2);
    ENSURE(hit_setup(&b, &ed, 0, 10, &ball));
    cr_example_view v;
    ENSURE(cr_example_get(b.w, b.bar, &v) == CR_OK);
    size_t n = (size_t)v.vertex_count * v.example_count;
    cr_real *before = malloc(n * sizeof(cr_real));
    int hit = -1;
    for (int i = 0; i < 60 && hit < 0; ++i) {
        memcpy(before, v.weights, n * sizeof(cr_real));
        ENSURE(cr_world_step(b.w, CR_R(1.0 / 60.0)) == CR_OK);
        ENSURE(cr_example_get(b.w, b.bar, &v) == CR_OK);
        if (cr_world_get_stats(b.w).example.done > 0) hit = i;
    }
    ENSURE(hit >= 0);
    /* half of the step's dE arrived (lambda 0.5): |dE| is twice what E moved */
    double s = 0;
    for (size_t k = 0; k < n; ++k) {
        double d = cr_to_double(v.weights[k]) - cr_to_double(before[k]);
        s += d * d;
    }
    double norm = 2 * sqrt(s);
    double c0 = cr_to_double(cr_body_get_material(b.w, b.bar).restitution);
    double want = exp(-2 * norm) * 0.8;
    cr_test_printf("    |dE| %.4f: C_r %.5f, exp(-nu |dE|) C_r* = %.5f\n", norm, c0, want);
    ENSURE(norm > 0.05);
    ENSURE_NEAR(c0, want, 1e-4);
    /* no further hit: half a second later it rose by mu x 0.5 s */
    for (int i = 0; i < 30; ++i) {
        ENSURE(cr_world_step(b.w, CR_R(1.0 / 60.0)) == CR_OK);
        ENSURE(cr_world_get_stats(b.w).example.done == 0);
    }
    double c1 = cr_to_double(cr_body_get_material(b.w, b.bar).restitution);
    cr_test_printf("    0.5 s later C_r %.5f (C_r + mu x 0.5 s = %.5f)\n", c1, c0 + 0.15);
    ENSURE_NEAR(c1, c0 + 0.15, 1e-4);
    for (int i = 0; i < 180; ++i) ENSURE(cr_world_step(b.w, CR_R(1.0 / 60.0)) == CR_OK);
    ENSURE(cr_body_get_material(b.w, b.bar).restitution == CR_R(0.8));
    free(before);
    free_bar(&b);
}

/* The model's state is bytes in the block: a snapshot taken mid-fade and
 * restored replays the same steps to the same hash. */
CR_TEST(example_snapshot_mid_fade_replays_bit_identically) {
    bar_world b;
    cr_body_id ball;
    cr_example_def ed = soft_def();
    ed.lambda = CR_R(0.9);
    ENSURE(hit_setup(&b, &ed, 0.6, 10, &ball));
    for (int i = 0; i < 40; ++i) ENSURE(cr_world_step(b.w, CR_R(1.0 / 60.0)) == CR_OK);
    cr_example_view v;
    ENSURE(cr_example_get(b.w, b.bar, &v) == CR_OK);
    int pending = 0;
    for (uint32_t k = 0; k < v.vertex_count * v.example_count; ++k) pending += v.pending[k] != 0;
    ENSURE(pending > 0);
    size_t size = cr_world_snapshot_size(b.w);
    void *snap = malloc(size);
    ENSURE(cr_world_snapshot_save(b.w, snap, size) == CR_OK);
    for (int i = 0; i < 60; ++i) ENSURE(cr_world_step(b.w, CR_R(1.0 / 60.0)) == CR_OK);
    uint64_t h1 = cr_world_state_hash(b.w);
    ENSURE(cr_world_snapshot_restore(b.w, snap, size) == CR_OK);
    for (int i = 0; i < 60; ++i) ENSURE(cr_world_step(b.w, CR_R(1.0 / 60.0)) == CR_OK);
    ENSURE(cr_world_state_hash(b.w) == h1);
    free(snap);
    free_bar(&b);
}

/* Two bars hit at once under a budget of one impulse and one body's re-skin
 * per step: work waits (counted), and it only waits — after the fade both
 * bars have the weights an unlimited world gives them. */
static int budget_run(uint32_t impulses, uint32_t vertices, cr_real *out, uint32_t n, uint32_t *max_waiting) {
    bar_world b;
    if (!cook_bar(&b, true)) return 0;
    cr_world_def def = cr_default_world_def();
    def.body_capacity = 16;
    def.gravity = cr_v3_zero();
    def.damage.example = cr_default_example_budget();
    def.damage.example.body_capacity = 2;
    def.damage.example.impulses_per_step = impulses;
    def.damage.example.vertices_per_step = vertices;
    def.damage.surface_bytes = 1u << 20;
    size_t size = cr_world_memory_size(&def);
    b.block = aligned_alloc(CR_BLOCK_ALIGN, (size + 15) / 16 * 16);
    if (cr_world_create(&def, b.block, size, &b.w) != CR_OK || cr_world_add_asset(b.w, &b.asset, &b.slot) != CR_OK)
        return 0;
    cr_example_def ed = soft_def();
    cr_body_id bars[2], ball;
    for (int k = 0; k < 2; ++k) {
        cr_body_def bd = bar_def(&b, CR_BODY_STATIC, cr_v3(0, 0, cr_from_int(3 * k)));
        if (cr_body_create(b.w, &bd, &bars[k]) != CR_OK || cr_example_attach(b.w, bars[k], &ed) != CR_OK) return 0;
        for (int j = 0; j < 2; ++j) {
            cr_vec3 at = cr_v3(CR_R(j ? 1.0 : -0.8), CR_R(0.5), cr_from_int(3 * k));
            cr_body_def s = steel_ball(CR_R(0.2), at, cr_v3(0, CR_R(-10), 0));
            if (cr_body_create(b.w, &s, &ball) != CR_OK) return 0;
        }
    }
    *max_waiting = 0;
    for (int i = 0; i < 300; ++i) {
        if (cr_world_step(b.w, CR_R(1.0 / 60.0)) != CR_OK) return 0;
        cr_world_stats st = cr_world_get_stats(b.w);
        if (st.example.waiting > *max_waiting) *max_waiting = st.example.waiting;
        if (st.example.done > impulses) return 0;
    }
    uint32_t m = 0;
    for (int k = 0; k < 2; ++k) {
        cr_example_view v;
        cr_example_get(b.w, bars[k], &v);
        for (uint32_t i = 0; i < v.vertex_count * v.example_count && m < n; ++i) out[m++] = v.weights[i];
    }
    free_bar(&b);
    return (int)m;
}

CR_TEST(example_budget_delays_work_and_never_changes_the_result) {
    enum { N = 4096 };
    static cr_real tight[N], roomy[N];
    uint32_t wait_tight, wait_roomy;
    int n;
    ENSURE((n = budget_run(1, 1, tight, N, &wait_tight)) > 0);
    ENSURE(budget_run(64, 1u << 15, roomy, N, &wait_roomy) == n);
    double worst = 0, moved = 0;
    for (int i = 0; i < n; ++i) {
        worst = fmax(worst, fabs(cr_to_double(tight[i]) - cr_to_double(roomy[i])));
        moved = fmax(moved, fabs(cr_to_double(roomy[i]) - (i % 4 == 0 ? 1 : 0)));
    }
    cr_test_printf("    most work waiting in a step: %u (budget 1/1), %u (roomy); final weights differ by %.2g (moved %.3f)\n",
                   wait_tight, wait_roomy, worst, moved);
    ENSURE(wait_tight >= 2 && wait_roomy == 0);
    ENSURE(moved > 0.05 && worst < 1e-4);
}

/* example_bounce: a bar dropped flat on hard ground yields on landing; with
 * mu 0 its restitution stays where the landing left it, and dropped again
 * from the same height it bounces lower by (C_r / C_r*)^2. */
static double apex_after_landing(cr_world *w, cr_body_id bar, double *c_at_impact) {
    double apex = 0;
    int landed = 0;
    for (int i = 0; i < 240; ++i) {
        double c = cr_to_double(cr_body_get_material(w, bar).restitution);
        cr_vec3 v0 = cr_body_get_linear_velocity(w, bar);
        if (cr_world_step(w, CR_R(1.0 / 240.0)) != CR_OK) return -1;
        cr_vec3 v1 = cr_body_get_linear_velocity(w, bar);
        if (!landed && cr_to_double(v0.y) < 0 && cr_to_double(v1.y) > 0) landed = 1, *c_at_impact = c;
        double y = cr_to_double(cr_body_get_transform(w, bar).p.y);
        if (landed && y > apex) apex = y;
        if (landed && cr_to_double(v1.y) < 0) break;
    }
    return landed ? apex : -1;
}

CR_TEST(example_bounce_second_drop_bounces_lower_by_the_restitution_squared) {
    bar_world b;
    ENSURE(cook_bar(&b, true) && make_world(&b, cr_v3(0, CR_R(-9.81), 0), 4));
    cr_body_def ground = cr_default_body_def();
    ground.type = CR_BODY_STATIC;
    ground.shape.type = CR_SHAPE_PLANE;
    ground.material.restitution = CR_R(1);
    cr_body_id g;
    ENSURE(cr_body_create(b.w, &ground, &g) == CR_OK);
    const double h0 = 1.25;
    cr_body_def bd = bar_def(&b, CR_BODY_DYNAMIC, cr_v3(0, CR_R(h0), 0));
    ENSURE(cr_body_create(b.w, &bd, &b.bar) == CR_OK);
    cr_example_def ed = soft_def();
    ed.beta = CR_R(300);
    ed.lambda = CR_R(0.5);
    ed.alpha = CR_R(5); /* a small change of shape, a large drop of restitution */
    ed.mu = 0;
    ed.nu = CR_R(2);
    ENSURE(cr_example_attach(b.w, b.bar, &ed) == CR_OK);
    double c1 = 0, c2 = 0;
    double a1 = apex_after_landing(b.w, b.bar, &c1);
    ENSURE(a1 > 0);
    double c_after = cr_to_double(cr_body_get_material(b.w, b.bar).restitution);
    /* the same drop again, the body as the first landing left it */
    cr_transform t = cr_body_get_transform(b.w, b.bar);
    t.p.y = CR_R(h0);
    ENSURE(cr_body_set_transform(b.w, b.bar, t) == CR_OK);
    ENSURE(cr_body_set_velocity(b.w, b.bar, cr_v3_zero(), cr_v3_zero()) == CR_OK);
    double a2 = apex_after_landing(b.w, b.bar, &c2);
    ENSURE(a2 > 0);
    double rest_y = 0.25, r1 = (a1 - rest_y) / (h0 - rest_y), r2 = (a2 - rest_y) / (h0 - rest_y);
    double want = (c2 / 0.8) * (c2 / 0.8);
    /* the solver's own answer for that restitution: a rigid bar with C_r fixed at c2, same drop */
    bar_world rb;
    ENSURE(cook_bar(&rb, true) && make_world(&rb, cr_v3(0, CR_R(-9.81), 0), 0));
    ENSURE(cr_body_create(rb.w, &ground, &g) == CR_OK);
    bd.material.restitution = CR_R(c2);
    ENSURE(cr_body_create(rb.w, &bd, &rb.bar) == CR_OK);
    double cr_rigid = 0, r_rigid = (apex_after_landing(rb.w, rb.bar, &cr_rigid) - rest_y) / (h0 - rest_y);
    cr_test_printf("    C_r at landing 1: %.4f, after: %.4f, at landing 2: %.4f; bounce height ratio 1: %.4f, 2: %.4f;\n"
                   "    ratio 2/1 %.4f vs (C_r/C_r*)^2 %.4f; a rigid bar of restitution %.4f: %.4f\n", c1, c_after, c2, r1,
                   r2, r2 / r1, want, c2, r_rigid / r1);
    ENSURE(c2 < 0.8 * 0.95);
    ENSURE(r2 < r1);
    ENSURE(fabs(r2 / r1 - want) < 0.05 * want);
    /* reported, not asserted: the rigid bar bounces 13 % higher than the bent
     * one (the bent bar lands on its middle and rocks), and 8 % above e^2 */
    ENSURE(r_rigid > 0);
    free_bar(&rb);
    free_bar(&b);
}

/* example_gamma (seed Fig. 3): the same hit spreads over more of the bar as
 * gamma grows. */
static int gamma_run(double gamma, double *fraction) {
    bar_world b;
    cr_body_id ball;
    cr_example_def ed = soft_def();
    ed.gamma = CR_R(gamma);
    /* lists reaching past the bar's length, so gamma alone limits the spread */
    if (!cook_bar_reach(&b, true, 5) || !make_world(&b, cr_v3_zero(), 4)) return 0;
    cr_body_def bd = bar_def(&b, CR_BODY_STATIC, cr_v3_zero());
    if (cr_body_create(b.w, &bd, &b.bar) != CR_OK || cr_example_attach(b.w, b.bar, &ed) != CR_OK) return 0;
    cr_body_def s = steel_ball(CR_R(0.2), cr_v3(0, CR_R(0.5), 0), cr_v3(0, CR_R(-10), 0));
    if (cr_body_create(b.w, &s, &ball) != CR_OK) return 0;
    for (int i = 0; i < 120; ++i)
        if (cr_world_step(b.w, CR_R(1.0 / 60.0)) != CR_OK) return 0;
    cr_example_view v;
    cr_example_get(b.w, b.bar, &v);
    uint32_t moved = 0;
    for (uint32_t i = 0; i < v.vertex_count; ++i) moved += weight(&v, i, EX_REST) < 1 - 1e-3;
    *fraction = (double)moved / v.vertex_count;
    free_bar(&b);
    return 1;
}

CR_TEST(example_gamma_spreads_the_same_hit_wider) {
    const double gammas[3] = {0.3, 1.2, 4.5};
    double f[3];
    for (int k = 0; k < 3; ++k) ENSURE(gamma_run(gammas[k], &f[k]));
    cr_test_printf("    deformed vertices: gamma 0.3 m %.0f%%, 1.2 m %.0f%%, 4.5 m %.0f%%\n", 100 * f[0], 100 * f[1], 100 * f[2]);
    ENSURE(f[0] > 0 && f[0] < f[1] && f[1] < f[2]);
    ENSURE(f[2] > 0.9);
}

/* A bar that landed and keeps changing shape (a slow fade) is kept awake
 * while its surface moves, so its contacts follow the shape; once the
 * surface stops moving it falls asleep as any resting body. */
CR_TEST(example_slow_fade_keeps_the_body_awake_while_its_surface_moves) {
    bar_world b;
    ENSURE(cook_bar(&b, true) && make_world(&b, cr_v3(0, CR_R(-9.81), 0), 4));
    cr_body_def ground = cr_default_body_def();
    ground.type = CR_BODY_STATIC;
    ground.shape.type = CR_SHAPE_PLANE;
    cr_body_id g;
    ENSURE(cr_body_create(b.w, &ground, &g) == CR_OK);
    cr_body_def bd = bar_def(&b, CR_BODY_DYNAMIC, cr_v3(0, CR_R(1.25), 0));
    bd.material.restitution = 0;
    ENSURE(cr_body_create(b.w, &bd, &b.bar) == CR_OK);
    cr_example_def ed = soft_def();
    ed.alpha = CR_R(5);
    ed.beta = CR_R(300);
    ed.lambda = CR_R(0.97);
    ENSURE(cr_example_attach(b.w, b.bar, &ed) == CR_OK);
    const uint32_t nv = b.asset.vertex_count;
    cr_vec3 *before = malloc(nv * sizeof(cr_vec3));
    int moved_asleep = 0, last_move = -1, asleep_at = -1;
    for (int i = 0; i < 1800 && asleep_at < 0; ++i) {
        cr_body_mesh m;
        ENSURE(cr_body_get_mesh(b.w, b.bar, &m) == CR_OK);
        memcpy(before, m.positions, nv * sizeof(cr_vec3));
        ENSURE(cr_world_step(b.w, CR_R(1.0 / 60.0)) == CR_OK);
        ENSURE(cr_body_get_mesh(b.w, b.bar, &m) == CR_OK);
        bool moved = memcmp(before, m.positions, nv * sizeof(cr_vec3)) != 0;
        bool sleeping = cr_body_is_sleeping(b.w, b.bar);
        if (moved) last_move = i;
        if (moved && sleeping) ++moved_asleep;
        if (sleeping) asleep_at = i;
    }
    cr_test_printf("    surface last moved at step %d, bar asleep at step %d; steps asleep with the surface moving: %d\n",
                   last_move, asleep_at, moved_asleep);
    ENSURE(last_move > 120 && asleep_at > last_move && moved_asleep == 0);
    free(before);
    free_bar(&b);
}

/* Unit-density inertia diagonal of a closed mesh about its centre, in double. */
static void mesh_inertia(const cr_vec3 *p, const uint32_t *tri, uint32_t n, double *vol, double I[3]) {
    double v6 = 0, f[3] = {0, 0, 0}, s2[3] = {0, 0, 0};
    for (uint32_t t = 0; t < n; ++t) {
        double a[3] = {tc_v(p, tri[3 * t], 0), tc_v(p, tri[3 * t], 1), tc_v(p, tri[3 * t], 2)};
        double b[3] = {tc_v(p, tri[3 * t + 1], 0), tc_v(p, tri[3 * t + 1], 1), tc_v(p, tri[3 * t + 1], 2)};
        double c[3] = {tc_v(p, tri[3 * t + 2], 0), tc_v(p, tri[3 * t + 2], 1), tc_v(p, tri[3 * t + 2], 2)};
        double d = a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) + a[2] * (b[0] * c[1] - b[1] * c[0]);
        v6 += d;
        for (int k = 0; k < 3; ++k) {
            double s = a[k] + b[k] + c[k];
            f[k] += d * s / 24;
            s2[k] += d * (a[k] * a[k] + b[k] * b[k] + c[k] * c[k] + s * s) / 120;
        }
    }
    *vol = v6 / 6;
    for (int k = 0; k < 3; ++k) s2[k] -= f[k] * f[k] / *vol;
    I[0] = s2[1] + s2[2], I[1] = s2[0] + s2[2], I[2] = s2[0] + s2[1];
}

/* The seed keeps the mass and updates the inertia to the deformed shape. */
CR_TEST(example_inertia_follows_the_deformed_shape_at_constant_mass) {
    bar_world b;
    ENSURE(cook_bar(&b, true) && make_world(&b, cr_v3_zero(), 4));
    cr_body_def bd = bar_def(&b, CR_BODY_DYNAMIC, cr_v3_zero());
    bd.material.density = CR_R(100); /* light: the ball's hit bends it hard */
    ENSURE(cr_body_create(b.w, &bd, &b.bar) == CR_OK);
    cr_example_def ed = soft_def();
    ed.alpha = CR_R(5);
    ed.beta = CR_R(20);
    ENSURE(cr_example_attach(b.w, b.bar, &ed) == CR_OK);
    cr_vec3 i0 = cr_body_get_inertia(b.w, b.bar);
    double m0 = cr_to_double(cr_body_get_mass(b.w, b.bar));
    /* a ball from below near the right end: bend_up */
    cr_body_def s = steel_ball(CR_R(0.2), cr_v3(CR_R(1.8), CR_R(-0.5), 0), cr_v3(0, CR_R(10), 0));
    cr_body_id ball;
    ENSURE(cr_body_create(b.w, &s, &ball) == CR_OK);
    for (int i = 0; i < 60; ++i) ENSURE(cr_world_step(b.w, CR_R(1.0 / 60.0)) == CR_OK);
    cr_example_view v;
    ENSURE(cr_example_get(b.w, b.bar, &v) == CR_OK);
    double bend = 0;
    for (uint32_t k = 0; k < v.vertex_count; ++k) bend = fmax(bend, weight(&v, k, EX_BEND_UP));
    cr_body_mesh m;
    ENSURE(cr_body_get_mesh(b.w, b.bar, &m) == CR_OK);
    double vol, I[3];
    mesh_inertia(m.positions, m.triangles, m.triangle_count, &vol, I);
    cr_vec3 i1 = cr_body_get_inertia(b.w, b.bar);
    double got[3] = {cr_to_double(i1.x), cr_to_double(i1.y), cr_to_double(i1.z)};
    double was[3] = {cr_to_double(i0.x), cr_to_double(i0.y), cr_to_double(i0.z)};
    cr_test_printf("    bend_up weight %.3f; inertia %.1f %.1f %.1f -> %.1f %.1f %.1f kg m^2 (mesh: %.1f %.1f %.1f)\n", bend,
                   was[0], was[1], was[2], got[0], got[1], got[2], m0 / vol * I[0], m0 / vol * I[1], m0 / vol * I[2]);
    ENSURE(bend > 0.1);
    ENSURE(cr_to_double(cr_body_get_mass(b.w, b.bar)) == m0);
    int changed = 0;
    for (int k = 0; k < 3; ++k) {
        ENSURE(fabs(got[k] - m0 / vol * I[k]) < 1e-3 * got[k]);
        changed |= fabs(got[k] - was[k]) > 0.01 * was[k];
    }
    ENSURE(changed);
    free_bar(&b);
}

/* A plastic body destroyed with impulses still queued and a fade pending
 * lets go of everything: the jobs are dropped, and a new plastic body in the
 * same slot starts at rest and deforms from its own hits only. */
CR_TEST(example_destroyed_body_drops_its_queue_and_a_reused_slot_starts_at_rest) {
    bar_world b;
    ENSURE(cook_bar(&b, true));
    cr_world_def def = cr_default_world_def();
    def.body_capacity = 16;
    def.gravity = cr_v3_zero();
    def.damage.example = cr_default_example_budget();
    def.damage.example.body_capacity = 1;
    def.damage.example.impulses_per_step = 1;
    def.damage.surface_bytes = 1u << 20;
    size_t size = cr_world_memory_size(&def);
    b.block = aligned_alloc(CR_BLOCK_ALIGN, (size + 15) / 16 * 16);
    ENSURE(cr_world_create(&def, b.block, size, &b.w) == CR_OK && cr_world_add_asset(b.w, &b.asset, &b.slot) == CR_OK);
    cr_example_def ed = soft_def();
    ed.lambda = CR_R(0.9);
    cr_body_def bd = bar_def(&b, CR_BODY_STATIC, cr_v3_zero());
    ENSURE(cr_body_create(b.w, &bd, &b.bar) == CR_OK && cr_example_attach(b.w, b.bar, &ed) == CR_OK);
    /* four balls at once: one impulse per step, the rest wait */
    for (int k = 0; k < 4; ++k) {
        cr_body_def s = steel_ball(CR_R(0.2), cr_v3(CR_R(-1.5 + k), CR_R(0.5), 0), cr_v3(0, CR_R(-10), 0));
        cr_body_id ball;
        ENSURE(cr_body_create(b.w, &s, &ball) == CR_OK);
    }
    uint32_t waiting = 0;
    for (int i = 0; i < 60 && waiting == 0; ++i) {
        ENSURE(cr_world_step(b.w, CR_R(1.0 / 60.0)) == CR_OK);
        waiting = cr_world_get_stats(b.w).example.waiting;
    }
    ENSURE(waiting > 0);
    ENSURE(cr_body_destroy(b.w, b.bar) == CR_OK);
    cr_example_view v;
    ENSURE(cr_example_get(b.w, b.bar, &v) == CR_ERR_STALE_HANDLE);
    cr_body_id again;
    ENSURE(cr_body_create(b.w, &bd, &again) == CR_OK && again.index1 == b.bar.index1);
    ENSURE(cr_example_attach(b.w, again, &ed) == CR_OK);
    uint32_t applied = 0;
    for (int i = 0; i < 30; ++i) {
        ENSURE(cr_world_step(b.w, CR_R(1.0 / 60.0)) == CR_OK);
        applied += cr_world_get_stats(b.w).example.done;
    }
    ENSURE(cr_example_get(b.w, again, &v) == CR_OK);
    int at_rest = 1;
    for (uint32_t i = 0; i < v.vertex_count; ++i) at_rest &= weight(&v, i, EX_REST) == 1;
    cr_test_printf("    %u waiting when destroyed; the new body: %u impulses applied, every row at rest: %d\n", waiting,
                   applied, at_rest);
    ENSURE(applied == 0 && at_rest && cr_world_get_stats(b.w).example.waiting == 0);
    free_bar(&b);
}

/* Seed 001 §3.2: after a re-skin the body frame's origin is the deformed
 * shape's centre of mass, and the body does not jump for it. A very heavy
 * dynamic bar (barely moved by the hit, alpha large so it still bends) is hit
 * near its end; over a slow fade the frame's origin moves in the cooked frame
 * (the shift, read from the view's mesh frame) by centimetres while the point
 * of the body that is the cooked origin only travels with the body's velocity.
 * The grid moves with the frame (the surface reads ~0 in it), and a snapshot
 * mid-fade restores the grid where it was. */
CR_TEST(example_centre_of_mass_follows_the_shape_without_a_jump) {
    bar_world b;
    ENSURE(cook_bar(&b, true) && make_world(&b, cr_v3_zero(), 4));
    cr_body_def bd = bar_def(&b, CR_BODY_DYNAMIC, cr_v3_zero());
    bd.material.density = CR_R(1e5);
    ENSURE(cr_body_create(b.w, &bd, &b.bar) == CR_OK);
    cr_example_def ed = soft_def();
    ed.alpha = CR_R(1e5);
    ed.beta = CR_R(20);
    ed.lambda = CR_R(0.9);
    ENSURE(cr_example_attach(b.w, b.bar, &ed) == CR_OK);
    cr_body_def s = steel_ball(CR_R(0.2), cr_v3(CR_R(1.7), CR_R(-0.6), 0), cr_v3(0, CR_R(10), 0));
    cr_body_id ball;
    ENSURE(cr_body_create(b.w, &s, &ball) == CR_OK);
    const double dt = 1.0 / 60.0;
    double o_prev[3] = {0, 0, 0}, shift_prev[3] = {0, 0, 0}, travel_err = 0, shift_path = 0, motion = 0;
    double v_o[3] = {0, 0, 0};
    size_t snap_size = cr_world_snapshot_size(b.w);
    void *snap = malloc(snap_size);
    cr_vec3 origin_at_snap = cr_v3_zero();
    for (int f = 0; f < 90; ++f) {
        ENSURE(cr_world_step(b.w, CR_R(dt)) == CR_OK);
        cr_transform xf = cr_body_get_transform(b.w, b.bar);
        const cr_asset *view = cr_body_get_asset(b.w, b.bar);
        double sh[3] = {cr_to_double(b.asset.mesh_to_body.p.x) - cr_to_double(view->mesh_to_body.p.x),
                        cr_to_double(b.asset.mesh_to_body.p.y) - cr_to_double(view->mesh_to_body.p.y),
                        cr_to_double(b.asset.mesh_to_body.p.z) - cr_to_double(view->mesh_to_body.p.z)};
        /* the world point that is the cooked frame's origin: xf applied to -shift */
        cr_vec3 o = cr_transform_point(xf, cr_v3(CR_R(-sh[0]), CR_R(-sh[1]), CR_R(-sh[2])));
        double od[3] = {cr_to_double(o.x), cr_to_double(o.y), cr_to_double(o.z)};
        if (f >= 20) { /* the ball is long gone: only the fade changes the shape */
            double e = 0, ds = 0, m = 0;
            for (int k = 0; k < 3; ++k) {
                double d = od[k] - o_prev[k] - v_o[k] * dt;
                e += d * d, ds += (sh[k] - shift_prev[k]) * (sh[k] - shift_prev[k]), m += (od[k] - o_prev[k]) * (od[k] - o_prev[k]);
            }
            travel_err = fmax(travel_err, sqrt(e));
            shift_path += sqrt(ds), motion += sqrt(m);
        }
        if (f == 40) {
            ENSURE(cr_world_snapshot_save(b.w, snap, snap_size) == CR_OK);
            origin_at_snap = view->sdf_origin;
        }
        /* the velocity of that material point, for the next step */
        cr_vec3 v = cr_body_get_linear_velocity(b.w, b.bar), w = cr_body_get_angular_velocity(b.w, b.bar);
        cr_vec3 vo = cr_v3_add(v, cr_v3_cross(w, cr_v3_sub(o, xf.p)));
        v_o[0] = cr_to_double(vo.x), v_o[1] = cr_to_double(vo.y), v_o[2] = cr_to_double(vo.z);
        memcpy(o_prev, od, sizeof od), memcpy(shift_prev, sh, sizeof sh);
    }
    /* the body frame's origin is the deformed surface's centre of volume */
    cr_body_mesh m;
    ENSURE(cr_body_get_mesh(b.w, b.bar, &m) == CR_OK);
    double c6[3] = {0, 0, 0}, v6 = 0;
    for (uint32_t t = 0; t < m.triangle_count; ++t) {
        const cr_vec3 *p = m.positions;
        const uint32_t *tr = &m.triangles[3 * t];
        double a[3] = {tc_v(p, tr[0], 0), tc_v(p, tr[0], 1), tc_v(p, tr[0], 2)};
        double bb[3] = {tc_v(p, tr[1], 0), tc_v(p, tr[1], 1), tc_v(p, tr[1], 2)};
        double c[3] = {tc_v(p, tr[2], 0), tc_v(p, tr[2], 1), tc_v(p, tr[2], 2)};
        double d = a[0] * (bb[1] * c[2] - bb[2] * c[1]) - a[1] * (bb[0] * c[2] - bb[2] * c[0]) + a[2] * (bb[0] * c[1] - bb[1] * c[0]);
        v6 += d;
        for (int k = 0; k < 3; ++k) c6[k] += d * (a[k] + bb[k] + c[k]) / 4;
    }
    double centre = sqrt(c6[0] * c6[0] + c6[1] * c6[1] + c6[2] * c6[2]) / v6;
    /* the grid moved with the frame: the surface reads about zero in it */
    const cr_asset *view = cr_body_get_asset(b.w, b.bar);
    double mean_phi = 0;
    for (uint32_t k = 0; k < m.vertex_count; ++k)
        mean_phi += fabs(cr_to_double(cr_asset_sdf(view, m.positions[k], NULL))) / m.vertex_count;
    double grid_off = 0;
    const cr_real *ro = &b.asset.sdf_origin.x, *vo = &view->sdf_origin.x;
    for (int k = 0; k < 3; ++k) grid_off = fmax(grid_off, fabs(cr_to_double(ro[k]) - shift_prev[k] - cr_to_double(vo[k])));
    double total_shift = sqrt(shift_prev[0] * shift_prev[0] + shift_prev[1] * shift_prev[1] + shift_prev[2] * shift_prev[2]);
    cr_test_printf("    frame moved %.4f m in the cooked frame (%.4f m of it during the fade after contact); body-frame centre "
                   "%.2g m; cooked origin off its own velocity by %.2g m per step at worst (moved %.4f m); surface in the grid "
                   "mean |phi| %.4f m (cell %.3f; the blended patch's error, the same without the move)\n",
                   total_shift, shift_path, centre, travel_err, motion, mean_phi, cr_to_double(view->sdf_cell));
    ENSURE(total_shift > 0.005);
    ENSURE(shift_path > 0.002);
    ENSURE(centre < 1e-4);
    ENSURE(travel_err < 0.1 * shift_path / 70); /* a jump by the shift would be the step's whole shift change */
    ENSURE(grid_off < 1e-6 && mean_phi < 0.5 * cr_to_double(view->sdf_cell));
    /* restore mid-fade: the grid goes back to where the frame was then, and the replay matches */
    uint64_t h = cr_world_state_hash(b.w);
    ENSURE(cr_world_snapshot_restore(b.w, snap, snap_size) == CR_OK);
    view = cr_body_get_asset(b.w, b.bar);
    ENSURE(view->sdf_origin.x == origin_at_snap.x && view->sdf_origin.y == origin_at_snap.y &&
           view->sdf_origin.z == origin_at_snap.z);
    for (int f = 41; f < 90; ++f) ENSURE(cr_world_step(b.w, CR_R(dt)) == CR_OK);
    ENSURE(cr_world_state_hash(b.w) == h);
    free(snap);
    free_bar(&b);
}

/* The body frame of a dynamic plastic body follows its shape's centre of
 * volume, so a pose that only differs from another by a global offset is the
 * same shape in that frame, and a push must not prefer one of them. Two
 * examples of the bar: `crush` (the middle bone 15 cm down) and the same crush
 * authored 30 cm higher (every bone +0.3 m in y). A 10 m/s ball straight down
 * on the middle of a dynamic bar: both must gain the same weight. Read in the
 * poses' own frame, the lifted one's Jacobian has +0.3 m of y in every
 * column, and the downward push turned the middle away from it. */
CR_TEST(example_pose_offset_does_not_bias_the_push) {
    char path[128];
    snprintf(path, sizeof path, "/tmp/crumple-test-lifted-%lx.pose", (unsigned long)(uintptr_t)path ^ (unsigned long)time(NULL));
    FILE *f = fopen(path, "wb");
    ENSURE(f != NULL);
    fputs("example crush\nmiddle 0 -0.15 0\n"
          "example crush_lifted\nbase 0 0.3 0\nmiddle 0 0.15 0\nend 0 0.3 0\n", f);
    fclose(f);
    bar_world b;
    memset(&b, 0, sizeof b);
    cr_cook_options opt = cr_cook_default_options();
    opt.quiet = true;
    opt.sdf_res = 24;
    opt.geodesic_radius = 1.5;
    opt.geodesic_max = 64;
    opt.rig_path = "data/rigs/bar.rig";
    opt.poses_path = path;
    char err[512];
    int rc = cr_cook_file("data/meshes/bar.obj", NULL, &opt, &b.cooked, err, sizeof err);
    remove(path);
    if (rc != 0) cr_test_printf("    %s\n", err);
    ENSURE(rc == 0);
    b.asset_block = tc_load(b.cooked.bytes, b.cooked.size, &b.asset);
    ENSURE(b.asset_block != NULL && b.asset.example_count == 3);
    ENSURE(make_world(&b, cr_v3_zero(), 4));
    cr_body_def bd = bar_def(&b, CR_BODY_DYNAMIC, cr_v3_zero());
    ENSURE(cr_body_create(b.w, &bd, &b.bar) == CR_OK);
    cr_example_def ed = soft_def();
    ENSURE(cr_example_attach(b.w, b.bar, &ed) == CR_OK);
    cr_body_def s = steel_ball(CR_R(0.2), cr_v3(0, CR_R(0.5), 0), cr_v3(0, CR_R(-10), 0));
    s.material.restitution = CR_R(1);
    cr_body_id ball;
    ENSURE(cr_body_create(b.w, &s, &ball) == CR_OK);
    uint32_t applied = 0;
    for (int i = 0; i < 60; ++i) {
        ENSURE(cr_world_step(b.w, CR_R(1.0 / 60.0)) == CR_OK);
        applied += cr_world_get_stats(b.w).example.done;
    }
    cr_example_view v;
    ENSURE(cr_example_get(b.w, b.bar, &v) == CR_OK);
    cr_body_mesh m;
    ENSURE(cr_body_get_mesh(b.w, b.bar, &m) == CR_OK);
    double crush = 0, lifted = 0, worst = 0;
    int n = 0;
    for (uint32_t i = 0; i < v.vertex_count; ++i) {
        double a = weight(&v, i, 1), c = weight(&v, i, 2);
        worst = fmax(worst, fabs(a - c));
        if (fabs(cr_to_double(m.rest_positions[i].x)) < 0.3) crush += a, lifted += c, ++n;
    }
    crush /= n, lifted /= n;
    cr_test_printf("    %u impulses applied; middle: crush %.4f, the same crush authored 0.3 m higher %.4f; worst vertex "
                   "difference %.2e\n",
                   applied, crush, lifted, worst);
    ENSURE(applied > 0);
    ENSURE(crush > 0.02 && lifted > 0.02);
    ENSURE(fabs(crush - lifted) < 0.01 * fmax(crush, lifted));
    ENSURE(worst < 1e-3);
    free_bar(&b);
}

/* The static barrel (data/meshes/barrel.obj, its rig and poses, the splatted
 * patch path) hit in the side by a 0.15 m steel ball at 8 m/s, run for 2 s
 * with the given lags (cr_example_def.draw_lag, grid_lag): what a test reads. */
typedef struct barrel_hit {
    uint32_t impulses;
    double cell, deepest;     ///< m
    double mean, worst;       ///< the grid at the mesh's vertices after the fade, m
    double fading_worst;      ///< the grid at the drawn vertices while it ran, m
    double old_phi;           ///< the grid at the deepest vertex's old place, m
    uint32_t drawn_moves;     ///< steps in which the drawn surface moved
    uint64_t work;            ///< the model's work counter, summed
} barrel_hit;

static int run_barrel_hit(cr_real draw_lag, cr_real grid_lag, barrel_hit *out) {
    bar_world b;
    memset(&b, 0, sizeof b);
    memset(out, 0, sizeof *out);
    cr_cook_options opt = cr_cook_default_options();
    opt.quiet = true;
    opt.sdf_res = 32;
    opt.geodesic_radius = 0.6;
    opt.geodesic_max = 1024;
    opt.rig_path = "data/rigs/barrel.rig";
    opt.poses_path = "data/poses/barrel.pose";
    char err[512];
    int rc = cr_cook_file("data/meshes/barrel.obj", NULL, &opt, &b.cooked, err, sizeof err);
    if (rc != 0) cr_test_printf("    %s\n", err);
    int ok = rc == 0 && (b.asset_block = tc_load(b.cooked.bytes, b.cooked.size, &b.asset)) != NULL &&
             make_world(&b, cr_v3_zero(), 4);
    cr_body_def bd = ok ? bar_def(&b, CR_BODY_STATIC, cr_v3_zero()) : cr_default_body_def();
    ok = ok && cr_body_create(b.w, &bd, &b.bar) == CR_OK;
    cr_example_def ed = cr_default_example_def();
    ed.alpha = CR_R(20);
    ed.beta = CR_R(50);
    ed.gamma = CR_R(0.3);
    ed.lambda = CR_R(0.8);
    ed.draw_lag = draw_lag;
    ed.grid_lag = grid_lag;
    ok = ok && cr_example_attach(b.w, b.bar, &ed) == CR_OK;
    cr_body_def s = steel_ball(CR_R(0.15), cr_v3(CR_R(0.6), 0, 0), cr_v3(CR_R(-8), 0, 0));
    cr_body_id ball;
    ok = ok && cr_body_create(b.w, &s, &ball) == CR_OK;
    cr_body_mesh m;
    for (int i = 0; i < 120 && ok; ++i) {
        ok = cr_body_get_mesh(b.w, b.bar, &m) == CR_OK;
        const uint32_t changes = ok ? cri_damage_surface_of(b.w, b.bar.index1)->changes : 0;
        ok = ok && cr_world_step(b.w, CR_R(1.0 / 60.0)) == CR_OK && cr_body_get_mesh(b.w, b.bar, &m) == CR_OK;
        if (!ok) break;
        out->drawn_moves += cri_damage_surface_of(b.w, b.bar.index1)->changes != changes;
        cr_world_stats st = cr_world_get_stats(b.w);
        out->impulses += st.example.done;
        out->work += st.example.work;
        const cr_asset *now = cr_body_get_asset(b.w, b.bar);
        for (uint32_t k = 0; k < m.vertex_count; ++k)
            out->fading_worst = fmax(out->fading_worst, fabs(cr_to_double(cr_asset_sdf(now, m.positions[k], NULL))));
    }
    if (ok) {
        const cr_asset *now = cr_body_get_asset(b.w, b.bar);
        double sum = 0;
        uint32_t deep = 0;
        out->cell = cr_to_double(now->sdf_cell);
        for (uint32_t i = 0; i < m.vertex_count; ++i) {
            double moved = cr_to_double(cr_v3_len(cr_v3_sub(m.positions[i], m.rest_positions[i])));
            if (moved > out->deepest) out->deepest = moved, deep = i;
            double phi = fabs(cr_to_double(cr_asset_sdf(now, m.positions[i], NULL)));
            sum += phi;
            out->worst = fmax(out->worst, phi);
        }
        out->old_phi = cr_to_double(cr_asset_sdf(now, m.rest_positions[deep], NULL));
        out->mean = sum / m.vertex_count;
    }
    free_bar(&b);
    return ok;
}

/* The grid is patched lazily (half a cell of lag while the body moves), but
 * once a fade has ended it must agree with the mesh: 2 s after the barrel's
 * hit the body's distance grid read at every vertex of its mesh is close to
 * 0, far closer than the dent is deep, and the grid reads the dent's old
 * surface as outside; during the fade it was off by no more than the lags
 * allow. */
CR_TEST(example_grid_agrees_with_the_mesh_after_a_fade) {
    barrel_hit h;
    ENSURE(run_barrel_hit(CR_R(0.125), CR_R(0.5), &h));
    cr_test_printf("    %u impulses; deepest vertex moved %.4f m (cell %.4f); grid at the vertices: mean |phi| %.4f m, "
                   "worst %.4f m (during the fade %.4f m); at the deepest vertex's old place %.4f m\n",
                   h.impulses, h.deepest, h.cell, h.mean, h.worst, h.fading_worst, h.old_phi);
    ENSURE(h.impulses > 0 && h.deepest > h.cell);
    ENSURE(h.mean < 0.1 * h.cell && h.worst < 0.5 * h.deepest);
    ENSURE(h.old_phi > 0.4 * h.deepest);
    /* while it ran, the grid lagged the drawn surface by at most its patch's
     * threshold (half a cell) and the surface lagged eq. 3 by at most 1/8 */
    ENSURE(h.fading_worst <= h.worst + 0.625 * h.cell);
}

/* The lags are the def's (draw_lag, grid_lag): the same hit with the drawn
 * surface allowed half a cell behind eq. 3 and the grid two cells behind the
 * drawn surface moves the drawing in fewer steps and does less work, lets the
 * grid lag more while the fade runs (within the larger bound), and ends on a
 * grid that agrees with the mesh as well as with the defaults. */
CR_TEST(example_lags_trade_work_for_lag_and_end_on_the_same_grid) {
    barrel_hit tight, loose;
    ENSURE(run_barrel_hit(CR_R(0.125), CR_R(0.5), &tight));
    ENSURE(run_barrel_hit(CR_R(0.5), CR_R(2), &loose));
    cr_test_printf("    draw_lag 1/8, grid_lag 1/2 cell: drawn surface moved in %u steps, work %llu, grid during the "
                   "fade %.4f m, after mean %.4f worst %.4f m\n"
                   "    draw_lag 1/2, grid_lag 2 cells: drawn surface moved in %u steps, work %llu, grid during the "
                   "fade %.4f m, after mean %.4f worst %.4f m (cell %.4f)\n",
                   tight.drawn_moves, (unsigned long long)tight.work, tight.fading_worst, tight.mean, tight.worst,
                   loose.drawn_moves, (unsigned long long)loose.work, loose.fading_worst, loose.mean, loose.worst,
                   loose.cell);
    ENSURE(tight.impulses > 0 && loose.impulses > 0);
    ENSURE(loose.drawn_moves < tight.drawn_moves);
    ENSURE(loose.work < tight.work);
    ENSURE(loose.fading_worst > tight.fading_worst);
    ENSURE(loose.fading_worst <= loose.worst + 2.5 * loose.cell);
    ENSURE(loose.mean < 0.1 * loose.cell && loose.worst < 0.5 * loose.deepest);
}

/* Commits (docs/example-plasticity.md, "Commits"): the fade moves the weights
 * every step, the surface follows only when it would be more than 1/8 of a
 * grid cell from eq. 3 at them. A dynamic bar (its frame follows its centre)
 * hit from above at 10 m/s, lambda 0.8: at the end of every step of the fade
 * every drawn vertex is within 1/8 cell of eq. 3 at its row (recomputed
 * here), the grid read at the drawn vertices stays within a bounded lag, the
 * surface moves in fewer steps than the fade runs, and the step the fade ends
 * the surface is eq. 3's bits exactly, frame shift and all. */
CR_TEST(example_commits_keep_the_surface_near_eq3_and_end_on_its_bits) {
    bar_world b;
    ENSURE(cook_bar(&b, true) && make_world(&b, cr_v3_zero(), 4));
    cr_body_def bd = bar_def(&b, CR_BODY_DYNAMIC, cr_v3_zero());
    ENSURE(cr_body_create(b.w, &bd, &b.bar) == CR_OK);
    cr_example_def ed = soft_def();
    ed.lambda = CR_R(0.8);
    ENSURE(cr_example_attach(b.w, b.bar, &ed) == CR_OK);
    cr_body_def s = steel_ball(CR_R(0.2), cr_v3(CR_R(0.4), CR_R(0.5), 0), cr_v3(0, CR_R(-10), 0));
    cr_body_id ball;
    ENSURE(cr_body_create(b.w, &s, &ball) == CR_OK);
    const uint32_t nv = b.asset.vertex_count, ne = b.asset.example_count;
    const double cell = cr_to_double(b.asset.sdf_cell);
    cr_vec3 *before = malloc(nv * sizeof(cr_vec3)), *exact = malloc(nv * sizeof(cr_vec3));
    ENSURE(before != NULL && exact != NULL);
    int fade_steps = 0, moved_steps = 0, ended_at = -1;
    double worst_lag = 0, worst_grid = 0, worst_mean_grid = 0, rest_grid = 0;
    bool was_fading = false, bits = false;
    for (int i = 0; i < 600 && ended_at < 0; ++i) {
        cr_body_mesh m;
        ENSURE(cr_body_get_mesh(b.w, b.bar, &m) == CR_OK);
        memcpy(before, m.positions, nv * sizeof(cr_vec3));
        ENSURE(cr_world_step(b.w, CR_R(1.0 / 60.0)) == CR_OK);
        ENSURE(cr_body_get_mesh(b.w, b.bar, &m) == CR_OK);
        cr_example_view v;
        ENSURE(cr_example_get(b.w, b.bar, &v) == CR_OK);
        bool fading = false;
        for (uint32_t k = 0; k < nv * ne && !fading; ++k) fading = v.pending[k] != 0;
        /* eq. 3 at the weights now, in the body frame the copy is in */
        const cr_vec3 shift = cri_damage_surface_of(b.w, b.bar.index1)->frame_shift;
        for (uint32_t k = 0; k < nv; ++k)
            exact[k] = cr_v3_sub(cri_skin_example_point(&b.asset, NULL, k, b.asset.positions[k], &v.weights[k * ne]), shift);
        const cr_asset *now = cr_body_get_asset(b.w, b.bar);
        double lag = 0, grid = 0, grid_sum = 0;
        for (uint32_t k = 0; k < nv; ++k) {
            double d2 = 0;
            d2 += pow(cr_to_double(exact[k].x) - cr_to_double(m.positions[k].x), 2);
            d2 += pow(cr_to_double(exact[k].y) - cr_to_double(m.positions[k].y), 2);
            d2 += pow(cr_to_double(exact[k].z) - cr_to_double(m.positions[k].z), 2);
            lag = fmax(lag, sqrt(d2));
            double phi = fabs(cr_to_double(cr_asset_sdf(now, m.positions[k], NULL)));
            grid = fmax(grid, phi), grid_sum += phi;
        }
        if (i == 0) rest_grid = grid; /* the cooked grid's own error at the vertices, before any hit */
        if (fading || was_fading) {
            ++fade_steps;
            worst_lag = fmax(worst_lag, lag);
            worst_grid = fmax(worst_grid, grid);
            worst_mean_grid = fmax(worst_mean_grid, grid_sum / nv);
            if (memcmp(before, m.positions, nv * sizeof(cr_vec3)) != 0) ++moved_steps;
        }
        if (was_fading && !fading) {
            ended_at = i;
            bits = memcmp(exact, m.positions, nv * sizeof(cr_vec3)) == 0;
        }
        was_fading = fading;
    }
    cr_test_printf("    fade ended at step %d after %d steps; the surface moved in %d of them; drawn vertex from eq. 3: "
                   "worst %.5f m (1/8 cell %.5f); grid at the drawn vertices: worst %.4f m, mean %.4f m (cell %.4f, "
                   "cooked grid %.4f); final surface eq. 3's bits: %s\n",
                   ended_at, fade_steps, moved_steps, worst_lag, cell / 8, worst_grid, worst_mean_grid, cell, rest_grid,
                   bits ? "yes" : "no");
    ENSURE(ended_at > 0 && fade_steps > 5);
    ENSURE(worst_lag > 0 && worst_lag <= cell / 8 + 1e-6);
    ENSURE(moved_steps < fade_steps);
    ENSURE(bits);
    /* the grid lags the drawn surface by less than half a cell (its patch's
     * threshold) on top of its own error */
    ENSURE(worst_grid <= rest_grid + 0.5 * cell + cell / 8);
    free(before);
    free(exact);
    free_bar(&b);
}

/* The commits' bound (cri_skin_example_reach): no vertex of the bar, the
 * barrel or the car moves further between two weight rows than its reach
 * times the rows' L1 distance. Each vertex against 24 pairs of rows: the
 * examples' corners two by two, and random rows (a fixed generator) both
 * on the whole simplex and near a corner. */
static uint32_t reach_rng(uint32_t *s) { return *s = *s * 1664525u + 1013904223u; }
static void reach_row(uint32_t *s, uint32_t ne, uint32_t corner, int kind, cr_real *row) {
    double w[CR_ASSET_MAX_EXAMPLES], sum = 0;
    for (uint32_t k = 0; k < ne; ++k) {
        w[k] = kind == 0 ? (k == corner ? 1.0 : 0.0) : (double)(reach_rng(s) >> 8) / 16777216.0;
        if (kind == 2) w[k] *= 0.1; /* near a corner */
        if (kind == 2 && k == corner) w[k] += 1;
        sum += w[k];
    }
    for (uint32_t k = 0; k < ne; ++k) row[k] = CR_R(w[k] / sum);
}
static int reach_holds(const char *mesh, const char *rig, const char *pose, double *worst, double *mean) {
    cr_cook_options opt = cr_cook_default_options();
    opt.quiet = true;
    opt.sdf_res = 16;
    opt.rig_path = rig;
    opt.poses_path = pose;
    cr_cook_result cooked;
    char err[512];
    if (cr_cook_file(mesh, NULL, &opt, &cooked, err, sizeof err) != 0) {
        cr_test_printf("    %s\n", err);
        return 0;
    }
    cr_asset a;
    void *block = tc_load(cooked.bytes, cooked.size, &a);
    if (block == NULL) return 0;
    cr_skin_frame *frames = malloc(a.bone_count * a.example_count * sizeof *frames);
    cr_real *bones = malloc(2 * a.bone_count * sizeof(cr_real)), *reach = malloc(a.vertex_count * sizeof(cr_real));
    cri_skin_example_frames(&a, frames);
    cri_skin_example_reach(&a, frames, bones, reach);
    uint32_t ne = a.example_count, seed = 7, pairs = 0;
    double sum = 0;
    *worst = 0;
    int ok = 1;
    for (uint32_t v = 0; v < a.vertex_count && ok; ++v) {
        if (reach[v] < 0) ok = 0; /* the shipped assets' examples are all bounded */
        for (int p = 0; p < 24; ++p) {
            cr_real r0[CR_ASSET_MAX_EXAMPLES], r1[CR_ASSET_MAX_EXAMPLES];
            uint32_t c0 = reach_rng(&seed) % ne, c1 = reach_rng(&seed) % ne;
            int kind = p < 8 ? 0 : (p < 16 ? 1 : 2);
            reach_row(&seed, ne, c0, kind, r0);
            reach_row(&seed, ne, c1, kind, r1);
            cr_vec3 x0 = cri_skin_example_point(&a, frames, v, a.positions[v], r0);
            cr_vec3 x1 = cri_skin_example_point(&a, frames, v, a.positions[v], r1);
            double l1 = 0, d2 = 0;
            for (uint32_t k = 0; k < ne; ++k) l1 += fabs(cr_to_double(r1[k]) - cr_to_double(r0[k]));
            d2 = pow(cr_to_double(x1.x) - cr_to_double(x0.x), 2) + pow(cr_to_double(x1.y) - cr_to_double(x0.y), 2) +
                 pow(cr_to_double(x1.z) - cr_to_double(x0.z), 2);
            double bound = cr_to_double(reach[v]) * l1;
            if (bound <= 0) continue;
            double ratio = sqrt(d2) / bound;
            if (ratio > *worst) *worst = ratio;
            sum += ratio, ++pairs;
        }
    }
    *mean = pairs ? sum / pairs : 0;
    free(frames), free(bones), free(reach), free(block);
    cr_cook_result_free(&cooked);
    return ok && pairs > 0;
}

CR_TEST(example_reach_bounds_every_vertex_move) {
    static const char *const assets[][3] = {
        {"data/meshes/bar.obj", "data/rigs/bar.rig", "data/poses/bar.pose"},
        {"data/meshes/barrel.obj", "data/rigs/barrel.rig", "data/poses/barrel.pose"},
        {"data/meshes/car.obj", "data/rigs/car.rig", "data/poses/car.pose"},
    };
    for (int i = 0; i < 3; ++i) {
        double worst, mean;
        ENSURE(reach_holds(assets[i][0], assets[i][1], assets[i][2], &worst, &mean));
        cr_test_printf("    %s: move / bound worst %.7f, mean %.3f\n", assets[i][0], worst, mean);
        /* the bound holds up to the rows' rounding, and is not vacuous */
        ENSURE(worst <= 1 + 1e-4 && worst > 0.2);
    }
}
