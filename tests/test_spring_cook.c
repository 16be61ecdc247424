/* test_spring_cook.c — soft assets from the cooker (`crumple cook --soft`):
 * the remesher, the SPRP/SPRS sections, their validation, and soft bodies
 * made from them (issue 16's cooker part, docs/mass-spring.md). */
#include "test.h"
#include "test_spring_util.h"
#include "cook_soft.h"
#include "geometry/asset_format.h"

/* Cook OBJ text (taken and freed) as a soft asset into the next slot of d. */
static int sc_cook_soft(sp_world *d, char *obj, const cr_cook_options *opt) {
    int k = d->assets;
    if (k >= SP_MAX_ASSETS) return 0;
    int rc = tc_cook_text("soft.obj", obj, (size_t)arrlen(obj), opt, &d->cooked[k]);
    arrfree(obj);
    if (rc != 0) return 0;
    d->asset_block[k] = tc_load(d->cooked[k].bytes, d->cooked[k].size, &d->asset[k]);
    if (d->asset_block[k] == NULL) return 0;
    d->assets++;
    return 1;
}

static cr_cook_options sc_soft_options(uint32_t internal) {
    cr_cook_options opt = cr_cook_default_options();
    opt.quiet = true;
    opt.sdf_res = 24;
    opt.soft = true;
    opt.soft_internal = internal;
    return opt;
}

static char *sc_read(const char *path) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    char *s = NULL;
    int c;
    while ((c = fgetc(f)) != EOF) arrput(s, (char)c);
    fclose(f);
    return s;
}

/* Cooking twice gives the same bytes; a UV sphere (poles: spread 5.7) and the
 * shipped spot.obj (spread 27) are remeshed within the ratio; the springs
 * are structural, bending and internal in that order, and the weights sum to 1. */
CR_TEST(spring_cook_soft_remeshes_within_ratio_and_repeats) {
    cr_cook_options opt = sc_soft_options(1);
    for (int mesh = 0; mesh < 2; ++mesh) {
        cr_cook_result r[2];
        for (int k = 0; k < 2; ++k) {
            char *s = NULL;
            if (mesh == 0) tc_sphere(&s, 0.5, 16, 10);
            else s = sc_read(CR_SHARED_MESHES "spot.obj");
            ENSURE(s != NULL);
            ENSURE(tc_cook_text(mesh ? "spot.obj" : "sphere.obj", s, (size_t)arrlen(s), &opt, &r[k]) == 0);
            arrfree(s);
        }
        ENSURE(r[0].size == r[1].size && memcmp(r[0].bytes, r[1].bytes, r[0].size) == 0);
        /* the shape is kept: closed as before, the volume to 5 % (new vertices lie on the old faces: a coarse
         * polyhedron's corners are cut a little) */
        {
            cr_cook_options rigid = opt;
            rigid.soft = false;
            char *t = NULL;
            if (mesh == 0) tc_sphere(&t, 0.5, 16, 10);
            else t = sc_read(CR_SHARED_MESHES "spot.obj");
            cr_cook_result rr;
            ENSURE(tc_cook_text("rigid.obj", t, (size_t)arrlen(t), &rigid, &rr) == 0);
            arrfree(t);
            cr_test_printf("    volume %.6g before remeshing, %.6g after (%+.2f %%); boundary edges %u\n", rr.mass.volume,
                           r[0].mass.volume, 100 * (r[0].mass.volume / rr.mass.volume - 1), r[0].boundary_edges);
            ENSURE(fabs(r[0].mass.volume / rr.mass.volume - 1) < 0.05);
            ENSURE(r[0].boundary_edges == 0 && r[0].nonmanifold_edges == 0);
            cr_cook_result_free(&rr);
        }
        cr_test_printf("    %s: edge-length spread %.2f -> %.2f (ratio %.2f), %u particles, %u structural, %u bending, %u internal\n",
                       mesh ? "spot.obj" : "UV sphere 16x10", r[0].soft_spread_before, r[0].soft_spread_after, opt.soft_spread,
                       r[0].vertex_count, r[0].soft_structural, r[0].soft_bending, r[0].soft_internal);
        ENSURE(r[0].soft_remeshed && r[0].soft_spread_before > opt.soft_spread);
        ENSURE(r[0].soft_spread_after <= opt.soft_spread);
        ENSURE(r[0].soft_internal > r[0].vertex_count / 4); /* a closed body is braced */
        cr_asset a;
        void *blk = tc_load(r[0].bytes, r[0].size, &a);
        ENSURE(blk != NULL);
        ENSURE(a.soft_spring_count == r[0].soft_structural + r[0].soft_bending + r[0].soft_internal);
        ENSURE(a.soft_mass_weights != NULL);
        double sum = 0;
        for (uint32_t i = 0; i < a.vertex_count; ++i) sum += ts_d(a.soft_mass_weights[i]);
        ENSURE(fabs(sum - 1) < 1e-3);
        ENSURE(r[0].soft_structural * 2 == a.adjacency_start[a.vertex_count]); /* every edge once */
        for (uint32_t j = 1; j < a.soft_spring_count; ++j) ENSURE(a.soft_springs[j].kind >= a.soft_springs[j - 1].kind);
        free(blk);
        cr_cook_result_free(&r[0]);
        cr_cook_result_free(&r[1]);
    }
    /* a mesh already within the ratio is left as it is */
    char *s = NULL;
    sp_cube_obj(&s, 0.3, 4);
    cr_cook_result r;
    ENSURE(tc_cook_text("cube.obj", s, (size_t)arrlen(s), &opt, &r) == 0);
    arrfree(s);
    ENSURE(!r.soft_remeshed && r.vertex_count == 98);
    cr_cook_result_free(&r);
}

/* Drop a ball made from `slot`; returns the measurements of spring_soft_drop. */
typedef struct sc_drop {
    double rest_h, flattest, bounce_v, lowest, err_3s, volume, final_h;
    int touched;
} sc_drop;

static double sc_height(cr_world *w, cr_soft_id b) {
    cr_soft_state s = sp_state(w, b);
    return ts_d(s.bounds_max.y) - ts_d(s.bounds_min.y);
}

static int sc_drop_ball(sp_world *d, uint32_t slot, cr_real volume_stiffness, sc_drop *out) {
    cr_soft_def sd = cr_default_soft_def();
    sd.asset = slot;
    sd.transform.p = cr_v3(0, CR_R(2), 0);
    sd.stiffness = CR_R(4000);
    sd.bend_stiffness = CR_R(1000);
    sd.volume_stiffness = volume_stiffness;
    sd.restitution = CR_R(0.6);
    cr_soft_id b;
    if (cr_soft_create(d->w, &sd, &b) != CR_OK) return 0;
    memset(out, 0, sizeof *out);
    out->rest_h = out->flattest = sc_height(d->w, b);
    out->lowest = 10, out->err_3s = 1, out->touched = -1;
    for (int step = 0; step < 300; ++step) {
        if (cr_world_step(d->w, TS_DT) != CR_OK) return 0;
        cr_soft_state s = sp_state(d->w, b);
        double vy = ts_d(s.linear_momentum.y) / ts_d(s.mass);
        out->lowest = fmin(out->lowest, ts_d(s.bounds_min.y));
        if (out->touched < 0 && ts_d(s.bounds_min.y) < 0.1) out->touched = step;
        if (out->touched >= 0 && step < out->touched + 30) out->flattest = fmin(out->flattest, sc_height(d->w, b));
        if (out->touched >= 0) out->bounce_v = fmax(out->bounce_v, vy);
        if (out->touched >= 0 && step == out->touched + 180) out->err_3s = ts_d(s.edge_error);
        out->volume = ts_d(s.volume) / ts_d(s.rest_volume);
    }
    out->final_h = sc_height(d->w, b) / out->rest_h;
    return 1;
}

/* soft_drop with a cooked soft asset (a UV sphere remeshed, internal chords):
 * it lands, flattens, bounces and returns to its rest shape (edge RMS error
 * below 0.1 % 3 s after landing), as the ball built at create time does. */
CR_TEST(spring_cooked_soft_drop_returns_to_shape) {
    sp_world d = {0};
    cr_cook_options opt = sc_soft_options(1);
    char *s = NULL;
    tc_sphere(&s, 0.5, 16, 10);
    ENSURE(sc_cook_soft(&d, s, &opt));
    cr_spring_budget bb = sp_budget(2, 4096, 16384);
    bb.substeps = 16;
    ENSURE(sp_make_world(&d, cr_v3(0, CR_R(-9.81), 0), bb));
    ts_ground(d.w, ts_material(0.5, 0.5));
    sc_drop r;
    ENSURE(sc_drop_ball(&d, d.slot[0], CR_R(20000), &r));
    cr_test_printf("    cooked soft ball (%u particles, %u springs): lands at step %d, flattens to %.3f, bounces at %.2f m/s, "
                   "lowest %.4f m, edge RMS 3 s after landing %.4f %%, volume %.4f\n",
                   d.asset[0].vertex_count, d.asset[0].soft_spring_count, r.touched, r.flattest / r.rest_h, r.bounce_v,
                   r.lowest, 100 * r.err_3s, r.volume);
    ENSURE(r.touched > 0);
    ENSURE(r.flattest < 0.97 * r.rest_h);
    ENSURE(r.bounce_v > 0.5);
    ENSURE(r.lowest > -0.05);
    ENSURE(r.err_3s < 0.001);
    sp_free(&d);
}

/* Internal springs keep a closed body's shape without the volume
 * constraint: a soft ball with no volume stiffness, dropped, flattens less
 * and stands taller at rest with the cooked chords than with its surface
 * springs alone. */
CR_TEST(spring_internal_springs_hold_shape) {
    double flat[2], rest[2];
    for (int internal = 0; internal < 2; ++internal) {
        sp_world d = {0};
        cr_cook_options opt = sc_soft_options((uint32_t)internal);
        char *s = NULL;
        tc_sphere(&s, 0.5, 16, 10);
        ENSURE(sc_cook_soft(&d, s, &opt));
        cr_spring_budget bb = sp_budget(2, 4096, 16384);
        bb.substeps = 16;
        ENSURE(sp_make_world(&d, cr_v3(0, CR_R(-9.81), 0), bb));
        ts_ground(d.w, ts_material(0.5, 0.5));
        sc_drop r;
        ENSURE(sc_drop_ball(&d, d.slot[0], 0, &r));
        flat[internal] = r.flattest / r.rest_h;
        rest[internal] = r.final_h;
        cr_test_printf("    no volume constraint, %s internal springs (%u springs): flattens to %.3f on landing, "
                       "%.3f of its height after 5 s\n",
                       internal ? "with" : "without", d.asset[0].soft_spring_count, flat[internal], rest[internal]);
        sp_free(&d);
    }
    ENSURE(flat[1] > flat[0]);
    ENSURE(rest[1] >= rest[0]);
}

/* Fix the checksum after an edit of the bytes. */
static void sc_reseal(uint8_t *b, size_t n) {
    uint64_t h = cr_asset_checksum(b + 16, n - 16);
    for (int i = 0; i < 8; ++i) b[CR_AH_CHECKSUM + i] = (uint8_t)(h >> (8 * i));
}

static uint32_t sc_u32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static void sc_put(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24); }
static uint32_t sc_fbits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* Malformed SPRP / SPRS sections are refused naming the section and the
 * element, never read past: an index out of range, a kind out of order, a
 * rest length that is not the vertices' distance, NaN, a negative weight,
 * weights not summing to 1, one section without the other. */
CR_TEST(spring_cook_soft_malformed_refused) {
    cr_cook_options opt = sc_soft_options(1);
    char *s = NULL;
    sp_cube_obj(&s, 0.3, 3);
    cr_cook_result r;
    ENSURE(tc_cook_text("cube.obj", s, (size_t)arrlen(s), &opt, &r) == 0);
    arrfree(s);
    const uint8_t *tbl = r.bytes + CR_ASSET_HEADER_SIZE;
    ENSURE(sc_u32(r.bytes + CR_AH_SECTION_COUNT) == CR_ASEC_SPRS + 1);
    uint32_t p_off = sc_u32(tbl + 16 * CR_ASEC_SPRP + 4), s_off = sc_u32(tbl + 16 * CR_ASEC_SPRS + 4);
    uint32_t n_spr = sc_u32(tbl + 16 * CR_ASEC_SPRS + 12), nv = sc_u32(tbl + 16 * CR_ASEC_SPRP + 12);
    ENSURE(n_spr > 10 && nv == 56);
    struct {
        const char *what, *tag;
        cr_asset_check check;
        uint32_t at, value;
        uint32_t index; /* the element the error names */
    } cases[] = {
        {"spring end past the vertices", "SPRS", CR_ASSET_INDEX_RANGE, s_off + 16 * 5 + 4, 56, 5},
        {"a == b", "SPRS", CR_ASSET_INDEX_RANGE, s_off + 16 * 7 + 4, 0xffffffffu, 7},
        {"unknown kind", "SPRS", CR_ASSET_VALUE_RANGE, s_off + 16 * 3 + 8, 3, 3},
        {"kinds out of order", "SPRS", CR_ASSET_VALUE_RANGE, s_off + 16 * 4 + 8, 1, 5},
        {"rest length not the distance", "SPRS", CR_ASSET_VALUE_RANGE, s_off + 16 * 2 + 12, 0, 2},
        {"NaN rest length", "SPRS", CR_ASSET_NOT_FINITE, s_off + 16 * 9 + 12, 0x7fc00000u, 9},
        {"negative weight", "SPRP", CR_ASSET_VALUE_RANGE, p_off + 4 * 11, sc_fbits(-1.0f / 56), 11},
        {"weights not summing to 1", "SPRP", CR_ASSET_VALUE_RANGE, p_off + 4 * 0, sc_fbits(0.5f), 56},
        {"springs without weights", "SPRP", CR_ASSET_SECTION_SIZE, CR_ASSET_HEADER_SIZE + 16 * CR_ASEC_SPRP + 12, 0, 0},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        uint8_t *b = aligned_alloc(16, (r.size + 15) / 16 * 16);
        memcpy(b, r.bytes, r.size);
        uint32_t v = cases[c].value;
        if (v == 0xffffffffu) v = sc_u32(b + cases[c].at - 4); /* b := a */
        if (strcmp(cases[c].what, "rest length not the distance") == 0) {
            float f;
            uint32_t u = sc_u32(b + cases[c].at);
            memcpy(&f, &u, 4);
            v = sc_fbits(f * 1.01f);
        }
        if (strcmp(cases[c].what, "springs without weights") == 0) sc_put(b + cases[c].at - 4, 0); /* size 0 too */
        sc_put(b + cases[c].at, v);
        sc_reseal(b, r.size);
        size_t need = cr_asset_memory_size(b, r.size);
        void *blk = aligned_alloc(CR_BLOCK_ALIGN, need ? (need + 15) / 16 * 16 : 16);
        cr_asset a;
        cr_asset_error e;
        cr_status st = cr_asset_load(b, r.size, blk, need, &a, &e);
        cr_test_printf("    %-30s -> %s '%s' at %u\n", cases[c].what, cr_asset_check_name(e.check), e.section_tag, e.index);
        ENSURE(st == CR_ERR_BAD_ASSET);
        ENSURE(e.check == cases[c].check);
        ENSURE(strcmp(e.section_tag, cases[c].tag) == 0);
        if (cases[c].check != CR_ASSET_SECTION_SIZE) ENSURE(e.index == cases[c].index);
        free(blk);
        free(b);
    }
    cr_cook_result_free(&r);
}

/* A rigid cook writes no soft sections: its table ends where it always did,
 * so rigid assets keep their bytes. */
CR_TEST(spring_cook_rigid_has_no_soft_sections) {
    cr_cook_options opt = cr_cook_default_options();
    opt.quiet = true;
    opt.sdf_res = 24;
    char *s = NULL;
    sp_cube_obj(&s, 0.3, 3);
    cr_cook_result r;
    ENSURE(tc_cook_text("cube.obj", s, (size_t)arrlen(s), &opt, &r) == 0);
    arrfree(s);
    ENSURE(sc_u32(r.bytes + CR_AH_SECTION_COUNT) == CR_ASSET_REQUIRED_SECTIONS);
    cr_asset a;
    void *blk = tc_load(r.bytes, r.size, &a);
    ENSURE(blk != NULL && a.soft_spring_count == 0 && a.soft_mass_weights == NULL);
    free(blk);
    cr_cook_result_free(&r);
}

/* A soft cook of a mesh already within the ratio, without internal springs,
 * holds exactly the springs cr_soft_create builds from the adjacency, in the
 * same order; a body made either way falls the same (equal weights times the
 * mass against mass / n: rounding apart). */
CR_TEST(spring_cooked_springs_match_the_built_ones) {
    sp_world d = {0};
    cr_cook_options soft = sc_soft_options(0), rigid = soft;
    rigid.soft = false;
    char *s = NULL;
    sp_cube_obj(&s, 0.25, 3);
    char *s2 = NULL;
    for (ptrdiff_t i = 0; i < arrlen(s); ++i) arrput(s2, s[i]);
    ENSURE(sc_cook_soft(&d, s, &soft));
    ENSURE(sc_cook_soft(&d, s2, &rigid));
    ENSURE(d.asset[0].soft_spring_count > 0 && d.asset[1].soft_spring_count == 0);
    ENSURE(sp_make_world(&d, cr_v3(0, CR_R(-9.81), 0), sp_budget(2, 512, 4096)));
    ts_ground(d.w, ts_material(0.2, 0.6));
    cr_soft_id id[2];
    for (int k = 0; k < 2; ++k) {
        cr_soft_def sd = cr_default_soft_def();
        sd.asset = d.slot[k];
        sd.transform.p = cr_v3(CR_R(3 * k), CR_R(1), 0);
        ENSURE(cr_soft_create(d.w, &sd, &id[k]) == CR_OK);
    }
    const cr_soft_body *b0 = cri_soft_body_c(d.w, id[0]), *b1 = cri_soft_body_c(d.w, id[1]);
    ENSURE(b0->spring_count == b1->spring_count && b0->structural_count == b1->structural_count);
    const cr_spring *sp = cri_soft_springs(d.w);
    for (uint32_t j = 0; j < b0->spring_count; ++j) {
        const cr_spring *x = &sp[b0->first_spring + j], *y = &sp[b1->first_spring + j];
        ENSURE_MSG(x->a == y->a && x->b == y->b && x->k == y->k, "spring %u: (%u %u) against (%u %u)", j, x->a, x->b, y->a, y->b);
        ENSURE(fabs(ts_d(x->rest) - ts_d(y->rest)) < 1e-6); /* measured at two places: rounding apart */
    }
    for (int step = 0; step < 120; ++step) ENSURE(cr_world_step(d.w, TS_DT) == CR_OK);
    cr_soft_state s0 = sp_state(d.w, id[0]), s1 = sp_state(d.w, id[1]);
    double dy = fabs(ts_d(s0.centre.y) - ts_d(s1.centre.y)), dx = fabs(ts_d(s0.centre.x) - ts_d(s1.centre.x) + 3);
    cr_test_printf("    %u springs (%u structural) equal, in order; after 2 s the centres differ by %.2g m\n", b0->spring_count,
                   b0->structural_count, fmax(dx, dy));
    ENSURE(dx < 1e-3 && dy < 1e-3);
    sp_free(&d);
}
