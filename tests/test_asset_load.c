/* test_asset_load.c — the loader against damaged and hostile files.
 *
 * Three kinds of attack, all run under ASan + UBSan by `make test-sanitize`:
 *   - every truncation of a small cooked asset, and a flipped bit in every
 *     byte: the checksum or an earlier header check must reject each one;
 *   - forged files whose checksum was recomputed after the damage, so only
 *     the structural checks stand between them and the runtime: each must be
 *     rejected with the exact check (and section) that names the problem;
 *   - random re-checksummed mutations: whatever the verdict, nothing may
 *     read or write out of bounds, and an accepted file must be usable.
 */
#include "test.h"
#include "test_cook_util.h"
#include "geometry/asset_format.h"

/* The bar with its rig and poses at a coarse grid: every section non-empty, ~9 KB. */
static int cook_bar(cr_cook_result *r) {
    cr_cook_options opt = cr_cook_default_options();
    opt.quiet = true;
    opt.sdf_res = 12;
    opt.geodesic_max = 4;
    opt.rig_path = "data/rigs/bar.rig";
    opt.poses_path = "data/poses/bar.pose";
    char err[512];
    int rc = cr_cook_file("data/meshes/bar.obj", NULL, &opt, r, err, sizeof err);
    if (rc != 0) cr_test_printf("    %s\n", err);
    return rc;
}

static cr_status try_load(const uint8_t *b, size_t n, cr_asset_error *e) {
    /* a generous block: these tests are about the file, not the block size */
    static _Alignas(16) uint8_t block[1 << 16];
    cr_asset a;
    size_t need = cr_asset_memory_size(b, n);
    if (need > sizeof block) return CR_ERR_BLOCK_TOO_SMALL;
    cr_status s = cr_asset_load(b, n, block, sizeof block, &a, e);
    if (s == CR_OK) {
        /* use it: a view that passed validation must be safe to read everywhere */
        volatile double sink = 0;
        for (uint32_t i = 0; i < 3 * a.triangle_count; ++i) sink += cr_to_double(a.positions[a.triangles[i]].x);
        for (uint32_t i = 0; i < a.geodesic_count; ++i) sink += a.geodesic_vertex[i];
        for (uint32_t i = 0; i < a.vertex_count * 4 && a.bone_count; ++i) sink += a.skin_bone[i];
        cr_vec3 nrm;
        sink += cr_to_double(cr_asset_sdf(&a, cr_v3(CR_R(0.3), CR_R(-0.1), CR_R(9.0)), &nrm));
        (void)sink;
    }
    return s;
}

static uint32_t rd32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static void wr32(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24); }
static void wrf(uint8_t *p, float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    wr32(p, u);
}
static void reseal(uint8_t *b, size_t n) {
    uint64_t h = cr_asset_checksum(b + 16, n - 16);
    for (int i = 0; i < 8; ++i) b[8 + i] = (uint8_t)(h >> (8 * i));
}
/* offset of a section's data, from the table */
static uint8_t *section(uint8_t *b, const char *tag) {
    for (uint32_t e = 0; e < CR_ASSET_SECTION_COUNT; ++e) {
        uint8_t *en = b + CR_ASSET_HEADER_SIZE + e * CR_ASSET_ENTRY_SIZE;
        if (memcmp(en, tag, 4) == 0) return b + rd32(en + 4);
    }
    return NULL;
}
static uint8_t *entry(uint8_t *b, const char *tag) {
    for (uint32_t e = 0; e < CR_ASSET_SECTION_COUNT; ++e) {
        uint8_t *en = b + CR_ASSET_HEADER_SIZE + e * CR_ASSET_ENTRY_SIZE;
        if (memcmp(en, tag, 4) == 0) return en;
    }
    return NULL;
}

CR_TEST(asset_load_accepts_a_good_file_and_reports_sizes) {
    cr_cook_result r;
    ENSURE(cook_bar(&r) == 0);
    cr_asset a;
    void *block = tc_load(r.bytes, r.size, &a);
    ENSURE(block != NULL);
    ENSURE(a.vertex_count == 36 && a.triangle_count == 68 && a.bone_count == 3 && a.example_count == 4);
    ENSURE(a.checksum == cr_asset_checksum(r.bytes + 16, r.size - 16));
    /* the block is checked before it is used */
    static _Alignas(16) uint8_t small[64];
    cr_asset_error e;
    ENSURE(cr_asset_load(r.bytes, r.size, small, sizeof small, &a, &e) == CR_ERR_BLOCK_TOO_SMALL);
    ENSURE(e.check == CR_ASSET_BLOCK_TOO_SMALL);
    ENSURE(cr_asset_load(r.bytes, r.size, small + 4, sizeof small - 4, &a, &e) == CR_ERR_BLOCK_MISALIGNED);
    ENSURE(cr_asset_load(NULL, r.size, small, sizeof small, &a, &e) == CR_ERR_NULL_ARGUMENT);
    ENSURE(cr_asset_load(r.bytes, r.size, small, sizeof small, NULL, &e) == CR_ERR_NULL_ARGUMENT);
    ENSURE(cr_asset_memory_size(NULL, 10) == 0);
    free(block);
    cr_cook_result_free(&r);
}

CR_TEST(asset_load_rejects_every_truncation) {
    cr_cook_result r;
    ENSURE(cook_bar(&r) == 0);
    uint8_t *copy = malloc(r.size);
    for (size_t n = 0; n < r.size; ++n) {
        /* a fresh allocation of exactly n bytes, so ASan sees any read past the end */
        memcpy(copy, r.bytes, n);
        uint8_t *exact = malloc(n ? n : 1);
        memcpy(exact, copy, n);
        cr_asset_error e;
        cr_status s = try_load(exact, n, &e);
        free(exact);
        ENSURE_MSG(s == CR_ERR_BAD_ASSET, "truncated to %zu of %zu bytes: %s", n, r.size, cr_status_name(s));
        ENSURE_MSG(e.check == CR_ASSET_TRUNCATED, "truncated to %zu: reported %s", n, cr_asset_check_name(e.check));
    }
    cr_test_printf("    %zu truncations rejected, all as CR_ASSET_TRUNCATED\n", r.size);
    free(copy);
    cr_cook_result_free(&r);
}

CR_TEST(asset_load_rejects_every_byte_flip) {
    cr_cook_result r;
    ENSURE(cook_bar(&r) == 0);
    uint8_t *b = malloc(r.size);
    int by_check[CR_ASSET_CHECK_COUNT] = {0};
    for (size_t i = 0; i < r.size; ++i)
        for (int bit = 0; bit < 8; bit += 3) {
            memcpy(b, r.bytes, r.size);
            b[i] ^= (uint8_t)(1u << bit);
            cr_asset_error e;
            cr_status s = try_load(b, r.size, &e);
            ENSURE_MSG(s == CR_ERR_BAD_ASSET, "bit %d of byte %zu flipped: %s", bit, i, cr_status_name(s));
            by_check[e.check]++;
        }
    cr_test_printf("    %zu x 3 flips rejected:", r.size);
    for (int c = 0; c < (int)CR_ASSET_CHECK_COUNT; ++c)
        if (by_check[c]) cr_test_printf(" %s %d", cr_asset_check_name((cr_asset_check)c), by_check[c]);
    cr_test_printf("\n");
    free(b);
    cr_cook_result_free(&r);
}

typedef struct forgery {
    const char *what;
    cr_asset_check expect;
    const char *tag; /* expected section tag, "" for the header */
} forgery;

/* Applies forgery number k to b (then resealed by the caller). */
static void forge(int k, uint8_t *b, size_t n, const cr_asset *a) {
    uint8_t *info = section(b, "INFO");
    switch (k) {
    case 0: wr32(section(b, "TRIS") + 4 * 7, a->vertex_count); break;
    case 1: wr32(section(b, "SDFV") + 4 * 5, 0x7fc00000u); break; /* NaN */
    case 2: wrf(section(b, "SDFV") + 4 * 5, 3e9f); break;
    case 3: wr32(entry(b, "VNRM") + 4, rd32(entry(b, "VNRM") + 4) + 4); break;
    case 4: wr32(entry(b, "GEOD") + 4, (uint32_t)n); break;
    case 5: wr32(entry(b, "VNRM") + 4, rd32(entry(b, "VPOS") + 4)); break;
    case 6: memcpy(entry(b, "SKNI"), "ZZZZ", 4); break;
    case 7: memcpy(entry(b, "SKNI"), "SKNW", 4); break;
    case 8: wr32(info + CR_AI_VERTEX_COUNT, 1u << 30); break;
    case 9: wr32(info + CR_AI_TRIANGLE_COUNT, a->triangle_count - 1); break;
    case 10: wr32(section(b, "ADJS") + 4 * 3, rd32(section(b, "ADJS") + 4 * 2) - 1); break;
    case 11: wr32(section(b, "ADJI") + 4 * 1, rd32(section(b, "ADJI"))); break; /* not ascending */
    case 12: wr32(section(b, "BONE") + 32 * 1, 1); break;                       /* its own parent */
    case 13: wrf(section(b, "SKNW") + 16 * 3, 2.0f); break;
    case 14: wrf(section(b, "SKNW") + 16 * 3, -0.5f); break;
    case 15: section(b, "SKNI")[4 * 3 + 1] = 3; break;                          /* bone 3 of 3 */
    case 16: wrf(section(b, "EXMP") + 28 * 5 + 24, 0.5f); break;                 /* q.w halved */
    case 17: wrf(section(b, "SMPP") + 4, 123.0f); break;
    case 18: wrf(section(b, "GEOD") + 4 * 2, 1e5f); break;
    case 19: wrf(info + CR_AI_SDF_CELL, 0.0f); break;
    case 20: b[CR_AH_RESERVED + 3] = 1; break;
    case 21: wr32(b + CR_AH_VERSION, 2); break;
    case 22: wr32(b + CR_AH_FILE_SIZE, (uint32_t)n - 16); break;
    case 23: wr32(b + CR_AH_SECTION_COUNT, CR_ASSET_SECTION_COUNT - 1); break;
    case 24: wr32(b + CR_AH_FLAGS, 0); break; /* says open, topology says closed */
    case 25: wr32(section(b, "GEOI") + 4, 0); break; /* vertex 0's own list lists vertex 0 */
    case 26: wrf(section(b, "VNRM"), 0.0f), wrf(section(b, "VNRM") + 4, 0.0f), wrf(section(b, "VNRM") + 8, 0.0f); break;
    case 27: wr32(entry(b, "TRIS") + 12, rd32(entry(b, "TRIS") + 12) - 1); break;
    case 28: wrf(info + CR_AI_MESH_TO_BODY_Q + 12, 0.9f); break;
    case 29: wrf(info + CR_AI_VOLUME, -1.0f); break;
    default: break;
    }
}

CR_TEST(asset_load_names_what_is_wrong_in_forged_files) {
    static const forgery cases[] = {
        {"triangle index past the vertices", CR_ASSET_INDEX_RANGE, "TRIS"},
        {"NaN distance", CR_ASSET_NOT_FINITE, "SDFV"},
        {"distance of 3e9 m", CR_ASSET_VALUE_RANGE, "SDFV"},
        {"section offset not aligned", CR_ASSET_SECTION_ALIGN, "VNRM"},
        {"section past the end", CR_ASSET_SECTION_BOUNDS, "GEOD"},
        {"two sections overlap", CR_ASSET_SECTION_BOUNDS, "VNRM"},
        {"unknown tag", CR_ASSET_UNKNOWN_SECTION, "ZZZZ"},
        {"tag twice", CR_ASSET_DUPLICATE_SECTION, "SKNW"},
        {"absurd vertex count", CR_ASSET_COUNT_LIMIT, "INFO"},
        {"triangle count disagrees with TRIS", CR_ASSET_SECTION_SIZE, "TRIS"},
        {"CSR start goes backwards", CR_ASSET_BAD_CSR, "ADJS"},
        {"adjacency not ascending", CR_ASSET_BAD_CSR, "ADJI"},
        {"bone is its own parent", CR_ASSET_BAD_BONE_PARENT, "BONE"},
        {"weight of 2", CR_ASSET_BAD_WEIGHTS, "SKNW"},
        {"negative weight", CR_ASSET_BAD_WEIGHTS, "SKNW"},
        {"skin bone index past the bones", CR_ASSET_INDEX_RANGE, "SKNI"},
        {"example quaternion not unit", CR_ASSET_BAD_QUATERNION, "EXMP"},
        {"sample not on its vertex", CR_ASSET_VALUE_RANGE, "SMPP"},
        {"geodesic distance past the radius", CR_ASSET_VALUE_RANGE, "GEOD"},
        {"zero cell size", CR_ASSET_VALUE_RANGE, "INFO"},
        {"reserved header byte set", CR_ASSET_BAD_HEADER, ""},
        {"future version", CR_ASSET_BAD_VERSION, ""},
        {"file size field too small", CR_ASSET_BAD_FILE_SIZE, ""},
        {"section count", CR_ASSET_BAD_SECTION_TABLE, ""},
        {"closed flag contradicts the topology", CR_ASSET_BAD_HEADER, ""},
        {"vertex is its own geodesic neighbour", CR_ASSET_INDEX_RANGE, "GEOI"},
        {"zero normal", CR_ASSET_VALUE_RANGE, "VNRM"},
        {"section count field disagrees with its size", CR_ASSET_SECTION_SIZE, "TRIS"},
        {"mesh-to-body rotation not unit", CR_ASSET_BAD_QUATERNION, "INFO"},
        {"negative volume", CR_ASSET_VALUE_RANGE, "INFO"},
    };
    cr_cook_result r;
    ENSURE(cook_bar(&r) == 0);
    cr_asset a;
    void *block = tc_load(r.bytes, r.size, &a);
    ENSURE(block != NULL);
    uint8_t *b = malloc(r.size);
    for (int k = 0; k < (int)(sizeof cases / sizeof cases[0]); ++k) {
        memcpy(b, r.bytes, r.size);
        forge(k, b, r.size, &a);
        reseal(b, r.size);
        cr_asset_error e;
        cr_status s = try_load(b, r.size, &e);
        ENSURE_MSG(s == CR_ERR_BAD_ASSET, "%s: accepted", cases[k].what);
        ENSURE_MSG(e.check == cases[k].expect && strcmp(e.section_tag, cases[k].tag) == 0, "%s: got %s in '%s', expected %s in '%s'",
                   cases[k].what, cr_asset_check_name(e.check), e.section_tag, cr_asset_check_name(cases[k].expect), cases[k].tag);
    }
    free(b);
    free(block);
    cr_cook_result_free(&r);
}

/* The compact geodesic lists (--geodesic-patch, asset_format.h GPAT): the
 * patch count, the patch radius and each vertex's patch are checked too. */
CR_TEST(asset_load_names_what_is_wrong_in_forged_patch_lists) {
    static const forgery cases[] = {
        {"a vertex's patch past the patches", CR_ASSET_INDEX_RANGE, "GPAT"},
        {"more patches than vertices", CR_ASSET_COUNT_LIMIT, "INFO"},
        {"patch count disagrees with the lists", CR_ASSET_SECTION_SIZE, "GEOS"},
        {"negative patch radius", CR_ASSET_VALUE_RANGE, "INFO"},
        {"NaN patch radius", CR_ASSET_NOT_FINITE, "INFO"},
        {"patch list entry past the vertices", CR_ASSET_INDEX_RANGE, "GEOI"},
        {"patch list not nearest first", CR_ASSET_VALUE_RANGE, "GEOD"},
        {"GPAT left off the table", CR_ASSET_SECTION_SIZE, "GPAT"},
    };
    cr_cook_options opt = cr_cook_default_options();
    opt.quiet = true;
    opt.sdf_res = 12;
    opt.geodesic_max = 8;
    opt.geodesic_patch = 0.5;
    char err[512];
    cr_cook_result r;
    ENSURE(cr_cook_file("data/meshes/bar.obj", NULL, &opt, &r, err, sizeof err) == 0);
    cr_asset a;
    void *block = tc_load(r.bytes, r.size, &a);
    ENSURE(block != NULL && a.geodesic_patch_count > 1 && a.geodesic_patch_count < a.vertex_count);
    uint8_t *b = malloc(r.size);
    for (int k = 0; k < (int)(sizeof cases / sizeof cases[0]); ++k) {
        memcpy(b, r.bytes, r.size);
        uint8_t *info = section(b, "INFO");
        switch (k) {
        case 0: wr32(section(b, "GPAT") + 4 * 3, a.geodesic_patch_count); break;
        case 1: wr32(info + CR_AI_GEODESIC_PATCHES, a.vertex_count + 1); break;
        case 2: wr32(info + CR_AI_GEODESIC_PATCHES, a.geodesic_patch_count - 1); break;
        case 3: wrf(info + CR_AI_GEODESIC_PATCH_RADIUS, -0.1f); break;
        case 4: wr32(info + CR_AI_GEODESIC_PATCH_RADIUS, 0x7fc00000u); break;
        case 5: wr32(section(b, "GEOI") + 4, a.vertex_count); break;
        case 6: wrf(section(b, "GEOD") + 4 * 2, 0.0f), wrf(section(b, "GEOD") + 4, 0.3f); break;
        case 7: wr32(b + CR_AH_SECTION_COUNT, CR_ASEC_GPAT); break; /* the table ends before GPAT */
        default: break;
        }
        reseal(b, r.size);
        cr_asset_error e;
        cr_status s = try_load(b, r.size, &e);
        ENSURE_MSG(s == CR_ERR_BAD_ASSET, "%s: accepted", cases[k].what);
        ENSURE_MSG(e.check == cases[k].expect && strcmp(e.section_tag, cases[k].tag) == 0, "%s: got %s in '%s', expected %s in '%s'",
                   cases[k].what, cr_asset_check_name(e.check), e.section_tag, cr_asset_check_name(cases[k].expect), cases[k].tag);
    }
    /* a per-vertex asset must leave the patch radius 0 */
    cr_cook_result_free(&r);
    opt.geodesic_patch = 0;
    ENSURE(cr_cook_file("data/meshes/bar.obj", NULL, &opt, &r, err, sizeof err) == 0);
    b = realloc(b, r.size);
    memcpy(b, r.bytes, r.size);
    wrf(section(b, "INFO") + CR_AI_GEODESIC_PATCH_RADIUS, 0.1f);
    reseal(b, r.size);
    cr_asset_error e;
    ENSURE(try_load(b, r.size, &e) == CR_ERR_BAD_ASSET && e.check == CR_ASSET_VALUE_RANGE &&
           strcmp(e.section_tag, "INFO") == 0 && e.index == CR_AI_GEODESIC_PATCH_RADIUS);
    free(b);
    free(block);
    cr_cook_result_free(&r);
}

CR_TEST(asset_load_survives_random_resealed_mutations) {
    cr_cook_result r;
    ENSURE(cook_bar(&r) == 0);
    uint8_t *b = malloc(r.size);
    uint64_t seed = 2024;
    int accepted = 0, n = 3000;
    for (int it = 0; it < n; ++it) {
        memcpy(b, r.bytes, r.size);
        int edits = 1 + (int)(tc_rand(&seed) * 4);
        for (int k = 0; k < edits; ++k) {
            /* half the edits hit the header, table and INFO, where one byte moves everything */
            size_t span = tc_rand(&seed) < 0.5 ? 64 + 16 * CR_ASSET_SECTION_COUNT + 192 : r.size;
            size_t at = (size_t)(tc_rand(&seed) * span);
            if (at < 16) at += 16; /* keep the magic and let reseal fix the checksum */
            double kind = tc_rand(&seed);
            if (kind < 0.4)
                b[at] ^= (uint8_t)(1u << (int)(tc_rand(&seed) * 8));
            else if (kind < 0.7)
                b[at] = (uint8_t)(tc_rand(&seed) * 256);
            else if (at + 4 <= r.size)
                wr32(b + at, (uint32_t)(tc_rand(&seed) * 4294967296.0));
        }
        reseal(b, r.size);
        cr_asset_error e;
        accepted += try_load(b, r.size, &e) == CR_OK;
    }
    cr_test_printf("    %d resealed mutations: %d accepted (harmless edits, e.g. a distance value), %d rejected\n", n, accepted,
                   n - accepted);
    ENSURE(accepted < n);
    free(b);
    cr_cook_result_free(&r);
}

CR_TEST(asset_load_from_unaligned_bytes_copies_and_agrees) {
    cr_cook_result r;
    ENSURE(cook_bar(&r) == 0);
    cr_asset a, u;
    void *block = tc_load(r.bytes, r.size, &a);
    ENSURE(block != NULL);
    uint8_t *shifted = malloc(r.size + 1);
    memcpy(shifted + 1, r.bytes, r.size);
    ENSURE(cr_asset_memory_size(shifted + 1, r.size) >= cr_asset_memory_size(r.bytes, r.size));
    void *block2 = tc_load(shifted + 1, r.size, &u);
    ENSURE(block2 != NULL);
    /* nothing of the view may point into the unaligned bytes */
    ENSURE((const void *)u.triangles < (const void *)shifted || (const void *)u.triangles >= (const void *)(shifted + r.size + 1));
    for (uint32_t i = 0; i < 3 * a.triangle_count; ++i) ENSURE(a.triangles[i] == u.triangles[i]);
    uint64_t seed = 3;
    for (int i = 0; i < 100; ++i) {
        cr_vec3 p = cr_v3(cr_from_float((float)(tc_rand(&seed) * 6 - 3)), cr_from_float((float)(tc_rand(&seed) * 2 - 1)),
                          cr_from_float((float)(tc_rand(&seed) * 2 - 1)));
        cr_vec3 n1, n2;
        ENSURE(cr_asset_sdf(&a, p, &n1) == cr_asset_sdf(&u, p, &n2));
        ENSURE(n1.x == n2.x && n1.y == n2.y && n1.z == n2.z);
    }
    free(block);
    free(block2);
    free(shifted);
    cr_cook_result_free(&r);
}

CR_TEST(asset_check_names_are_distinct) {
    for (int i = 0; i < (int)CR_ASSET_CHECK_COUNT; ++i)
        for (int j = i + 1; j < (int)CR_ASSET_CHECK_COUNT; ++j) {
            ENSURE(strcmp(cr_asset_check_name((cr_asset_check)i), cr_asset_check_name((cr_asset_check)j)) != 0);
            ENSURE(strcmp(cr_asset_check_message((cr_asset_check)i), cr_asset_check_message((cr_asset_check)j)) != 0);
        }
}
