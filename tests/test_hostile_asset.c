/* test_hostile_asset.c — assets whose every value is in range, checksum
 * recomputed, but which no solid could have: the loader's plausibility checks
 * (asset.c, "physical plausibility") must name each one, because the solver
 * divides by these numbers. The issue's own case: moments (1.9e-36, 3.6e-43,
 * 5.33) used to load and fill a float step with NaN.
 */
#include "test.h"
#include "test_cook_util.h"
#include "geometry/asset_format.h"

static int cook_bar_plain(cr_cook_result *r) {
    cr_cook_options opt = cr_cook_default_options();
    opt.quiet = true;
    opt.sdf_res = 12;
    char err[512];
    int rc = cr_cook_file("data/meshes/bar.obj", NULL, &opt, r, err, sizeof err);
    if (rc != 0) cr_test_printf("    %s\n", err);
    return rc;
}

static uint32_t h_rd32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static void h_wrf(uint8_t *p, float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    for (int i = 0; i < 4; ++i) p[i] = (uint8_t)(u >> (8 * i));
}
static float h_rdf(const uint8_t *p) {
    uint32_t u = h_rd32(p);
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static void h_reseal(uint8_t *b, size_t n) {
    uint64_t h = cr_asset_checksum(b + 16, n - 16);
    for (int i = 0; i < 8; ++i) b[8 + i] = (uint8_t)(h >> (8 * i));
}
static uint8_t *h_section(uint8_t *b, const char *tag) {
    for (uint32_t e = 0; e < CR_ASSET_SECTION_COUNT; ++e) {
        uint8_t *en = b + CR_ASSET_HEADER_SIZE + e * CR_ASSET_ENTRY_SIZE;
        if (memcmp(en, tag, 4) == 0) return b + h_rd32(en + 4);
    }
    return NULL;
}

static cr_asset_check h_load(const uint8_t *b, size_t n, cr_asset_error *e) {
    cr_asset a;
    memset(e, 0, sizeof *e);
    size_t need = (cr_asset_memory_size(b, n) + 15) / 16 * 16;
    void *block = aligned_alloc(CR_BLOCK_ALIGN, need ? need : 16);
    if (block == NULL) return CR_ASSET_BLOCK_TOO_SMALL;
    cr_asset_load(b, n, block, need, &a, e);
    free(block);
    return e->check;
}

CR_TEST(hostile_asset_implausible_values_are_named) {
    cr_cook_result r;
    ENSURE(cook_bar_plain(&r) == 0);
    uint8_t *copy = malloc(r.size);
    ENSURE(copy != NULL);
    cr_asset_error e;
    ENSURE(h_load(r.bytes, r.size, &e) == CR_ASSET_OK);
    uint8_t *info0 = h_section(r.bytes, "INFO");
    float ix = h_rdf(info0 + CR_AI_INERTIA), iy = h_rdf(info0 + CR_AI_INERTIA + 4), iz = h_rdf(info0 + CR_AI_INERTIA + 8);
    float radius = h_rdf(info0 + CR_AI_BOUND_RADIUS), cell = h_rdf(info0 + CR_AI_SDF_CELL);
    struct { const char *what; float i[3]; cr_asset_check expect; uint32_t index; } moments[] = {
        {"the issue's moments", {1.9e-36f, 3.6e-43f, 5.33f}, CR_ASSET_BAD_INERTIA, CR_AI_INERTIA},
        {"a zero moment", {ix, 0, iz}, CR_ASSET_BAD_INERTIA, CR_AI_INERTIA + 4},
        {"not a triangle", {ix, iy, 3 * (ix + iy)}, CR_ASSET_BAD_INERTIA, CR_AI_INERTIA + 8},
        {"more than all mass on the bound sphere", {ix * 1e4f, iy * 1e4f, iz * 1e4f}, CR_ASSET_BAD_INERTIA, CR_AI_INERTIA},
        {"too small for the volume and radius", {ix * 1e-4f, iy * 1e-4f, iz * 1e-4f}, CR_ASSET_BAD_INERTIA, CR_AI_INERTIA},
    };
    for (size_t k = 0; k < sizeof moments / sizeof moments[0]; ++k) {
        memcpy(copy, r.bytes, r.size);
        uint8_t *info = h_section(copy, "INFO");
        for (int j = 0; j < 3; ++j) h_wrf(info + CR_AI_INERTIA + 4 * j, moments[k].i[j]);
        h_reseal(copy, r.size);
        cr_asset_check c = h_load(copy, r.size, &e);
        ENSURE_MSG(c == moments[k].expect && e.index == moments[k].index && strcmp(e.section_tag, "INFO") == 0,
                   "%s: %s at %s %u", moments[k].what, cr_asset_check_name(c), e.section_tag, e.index);
    }
    /* a bound radius that leaves a vertex out */
    memcpy(copy, r.bytes, r.size);
    h_wrf(h_section(copy, "INFO") + CR_AI_BOUND_RADIUS, radius * 0.9f);
    h_reseal(copy, r.size);
    ENSURE(h_load(copy, r.size, &e) == CR_ASSET_BAD_BOUND_RADIUS && strcmp(e.section_tag, "VPOS") == 0);
    memcpy(copy, r.bytes, r.size);
    h_wrf(h_section(copy, "INFO") + CR_AI_BOUND_RADIUS, 0);
    h_reseal(copy, r.size);
    ENSURE(h_load(copy, r.size, &e) == CR_ASSET_BAD_BOUND_RADIUS && strcmp(e.section_tag, "INFO") == 0);
    /* one grid node ten cells off its neighbours: the gradient there would be 10x a unit normal */
    memcpy(copy, r.bytes, r.size);
    uint8_t *sdf = h_section(copy, "SDFV");
    uint32_t node = 40;
    h_wrf(sdf + 4 * node, h_rdf(sdf + 4 * node) + 10 * cell);
    h_reseal(copy, r.size);
    ENSURE(h_load(copy, r.size, &e) == CR_ASSET_BAD_SDF && strcmp(e.section_tag, "SDFV") == 0);
    ENSURE(e.index <= node); /* the first node of the first pair it is in, in node order */
    /* a grid scaled tenfold: every step is ten cells */
    memcpy(copy, r.bytes, r.size);
    sdf = h_section(copy, "SDFV");
    uint8_t *info = h_section(copy, "INFO");
    uint32_t nodes = h_rd32(info + CR_AI_SDF_DIMS) * h_rd32(info + CR_AI_SDF_DIMS + 4) * h_rd32(info + CR_AI_SDF_DIMS + 8);
    for (uint32_t i = 0; i < nodes; ++i) h_wrf(sdf + 4 * i, h_rdf(sdf + 4 * i) * 10);
    h_reseal(copy, r.size);
    ENSURE(h_load(copy, r.size, &e) == CR_ASSET_BAD_SDF);
    free(copy);
    cr_cook_result_free(&r);
}

/* Every mesh the project ships cooks to an asset that passes the new checks. */
CR_TEST(hostile_asset_shipped_meshes_are_plausible) {
    static const char *meshes[] = {"bar", "block", "plate", "torus", "reference_block", "reference_ring"};
    for (size_t k = 0; k < sizeof meshes / sizeof meshes[0]; ++k) {
        char path[128];
        snprintf(path, sizeof path, "data/meshes/%s.obj", meshes[k]);
        cr_cook_options opt = cr_cook_default_options();
        opt.quiet = true;
        opt.sdf_res = 24;
        cr_cook_result r;
        char err[512];
        ENSURE_MSG(cr_cook_file(path, NULL, &opt, &r, err, sizeof err) == 0, "%s: %s", path, err);
        cr_asset_error e;
        ENSURE_MSG(h_load(r.bytes, r.size, &e) == CR_ASSET_OK, "%s: %s", path, cr_asset_check_name(e.check));
        cr_cook_result_free(&r);
    }
}
