/* test_squash_cook.c — squishy assets from the cooker: a skeleton file meshed
 * and stored (SQSK, SQIV), loaded in the body frame with its mesh on f = c,
 * attached without a skeleton in the def; a mesh that is not the skeleton's
 * surface, a bad skeleton file and a hostile SQSK section are refused with
 * the place named. */
#include "test_cook_util.h"
#include "damage/squash.h"
#include "geometry/asset_format.h"
#include "../tools/cook_squash.h"
#include <math.h>
#include <string.h>

static int write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    if (f == NULL) return -1;
    fputs(text, f);
    return fclose(f);
}

static const char *blob_skel =
    "# two points and a segment: a peanut with a tail\n"
    "isovalue 0.45\n"
    "point -0.3 0 0 0.8\n"
    "point 0.3 0.05 0 0.75 1.1\n"
    "segment 0.3 0 0  0.8 0 0.1  0.4\n"
    "mesh 18\n";

CR_TEST(squash_cook_skeleton_file_stored_and_loaded_on_its_surface) {
    const char *path = "build/test_squash_blob.skel";
    ENSURE(write_text(path, blob_skel) == 0);
    cr_cook_options opt = cr_cook_default_options();
    opt.quiet = true;
    opt.sdf_res = 32;
    cr_cook_result r;
    char err[1024];
    ENSURE_MSG(cr_cook_file(path, NULL, &opt, &r, err, sizeof err) == 0, "%s", err);
    cr_asset a;
    void *block = tc_load(r.bytes, r.size, &a);
    ENSURE(block != NULL);
    ENSURE(a.squash_primitive_count == 3);
    ENSURE_NEAR(cr_to_double(a.squash_isovalue), 0.45, 1e-6);
    ENSURE(a.squash_primitives[2].type == CR_SQUASH_SEGMENT);
    ENSURE_NEAR(cr_to_double(a.squash_primitives[1].weight), 1.1, 1e-6);
    /* the stored skeleton is in the body frame: every loaded vertex is on its f = c */
    double worst = 0;
    for (uint32_t v = 0; v < a.vertex_count; ++v) {
        cr_potential f = cri_skeleton_potential(a.squash_primitives, a.squash_primitive_count, a.positions[v]);
        worst = fmax(worst, fabs(cr_to_double(f.f - a.squash_isovalue)) / cr_to_double(cr_v3_len(f.grad)));
    }
    cr_test_printf("     cooked peanut: %u vertices, closed %d, farthest vertex %.2g m off f = c\n", a.vertex_count,
                   a.topology.closed, worst);
    ENSURE(a.topology.closed);
    ENSURE(worst < 1e-4);

    /* a world: attach with no skeleton in the def, press a ball into it */
    cr_world_def def = cr_default_world_def();
    def.body_capacity = 8;
    def.gravity = cr_v3_zero();
    def.damage.squash = cr_default_squash_budget();
    def.damage.squash.body_capacity = 1;
    size_t size = cr_world_memory_size(&def);
    void *wb = aligned_alloc(CR_BLOCK_ALIGN, (size + 15) / 16 * 16);
    cr_world *w;
    uint32_t slot;
    ENSURE(cr_world_create(&def, wb, size, &w) == CR_OK && cr_world_add_asset(w, &a, &slot) == CR_OK);
    cr_body_def bd = cr_default_body_def();
    bd.type = CR_BODY_STATIC;
    bd.shape.type = CR_SHAPE_MESH, bd.shape.asset = slot;
    cr_body_id blob, ball;
    ENSURE(cr_body_create(w, &bd, &blob) == CR_OK);
    cr_squash_def q = cr_default_squash_def();
    ENSURE(cr_squash_attach(w, blob, &q) == CR_OK);
    cr_body_def kb = cr_default_body_def();
    kb.type = CR_BODY_KINEMATIC;
    kb.shape.type = CR_SHAPE_SPHERE, kb.shape.radius = CR_R(0.2);
    kb.position = cr_v3(0, a.bounds_max.y + CR_R(0.2) - CR_R(0.06), 0);
    ENSURE(cr_body_create(w, &kb, &ball) == CR_OK);
    cr_world_step(w, CR_R(1.0 / 60));
    cr_squash_view v;
    ENSURE(cr_squash_get(w, blob, &v) == CR_OK);
    cr_test_printf("     pressed: zone %u vertices, volume %.5f of %.5f m^3\n", v.zone_vertices, cr_to_double(v.volume),
                   cr_to_double(v.volume_rest));
    ENSURE(v.zone_vertices > 10 && v.volume <= v.volume_rest && v.volume_compressed < v.volume_rest);
    free(wb), free(block);
    cr_cook_result_free(&r);
}

CR_TEST(squash_cook_refuses_a_mesh_off_the_skeleton_and_bad_files) {
    const char *skel = "build/test_squash_ball.skel";
    ENSURE(write_text(skel, "point 0 0 0 1\n") == 0);
    /* a sphere of radius 0.6: the skeleton's surface is at 0.454 */
    char *obj = NULL;
    tc_sphere(&obj, 0.6, 24, 12);
    cr_cook_options opt = cr_cook_default_options();
    opt.quiet = true;
    opt.sdf_res = 24;
    opt.skeleton_path = skel;
    cr_cook_result r;
    char err[1024];
    cr_obj o;
    ENSURE(cr_obj_parse("ball.obj", obj, (size_t)arrlen(obj), &o, err, sizeof err) == 0);
    arrfree(obj);
    ENSURE(cr_cook_obj("ball.obj", &o, &opt, &r, err, sizeof err) != 0);
    cr_obj_free(&o);
    cr_test_printf("     %s\n", err);
    ENSURE(strstr(err, "not the skeleton's surface") != NULL);
    const struct { const char *text, *expect; } bad[] = {
        {"point 0 0 0\n", ":1: point needs"},
        {"blob 0 0 0 1\n", ":1: unknown keyword"},
        {"# nothing\n", "no primitive"},
        {"point 0 0 0 1\nrect 0 0 0 1 0 0 1 1 0 0.5\n", ":2: a rectangle's half-edges must be perpendicular"},
        {"isovalue 2\npoint 0 0 0 1\n", "isovalue must be below"},
        {"point 0 0 0 -1\n", ":1: the radius"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
        ENSURE(write_text(skel, bad[k].text) == 0);
        cr_cook_squash s;
        ENSURE(cr_cook_squash_read(skel, &s, err, sizeof err) != 0);
        ENSURE_MSG(strstr(err, bad[k].expect) != NULL, "case %zu: %s", k, err);
    }
}

/* The blending graph (seed §4.2) from a skeleton file: groups and collide lines cooked into SQSK's type words
 * and loaded back; colliding groups that overlap at the cooked pose and bad group lines refused, file:line. */
CR_TEST(squash_cook_blending_graph_stored_loaded_and_checked) {
    const char *path = "build/test_squash_groups.skel";
    ENSURE(write_text(path, "group body\npoint 0 0 0 0.8\ngroup neck\npoint 0 0.45 0 0.5\ngroup hand\n"
                            "point 1.3 0 0 0.6\nblend body neck\ncollide hand body\nmesh 16\n") == 0);
    cr_cook_options opt = cr_cook_default_options();
    opt.quiet = true;
    opt.sdf_res = 20;
    cr_cook_result r;
    char err[1024];
    ENSURE_MSG(cr_cook_file(path, NULL, &opt, &r, err, sizeof err) == 0, "%s", err);
    cr_asset a;
    void *block = tc_load(r.bytes, r.size, &a);
    ENSURE(block != NULL && a.squash_primitive_count == 3);
    const cr_squash_primitive *p = a.squash_primitives;
    ENSURE(p[0].group == 0 && p[1].group == 1 && p[2].group == 2);
    ENSURE(p[0].collide == 1u << 2 && p[1].collide == 0 && p[2].collide == 1u << 0);
    ENSURE(cri_skeleton_check(p, 3) == 0);
    ENSURE(cri_skeleton_blend_mask(p, 3, 0) == 3u && cri_skeleton_blend_mask(p, 3, 2) == 6u);
    free(block);
    cr_cook_result_free(&r);
    /* the hand moved into the body's reach: the mesh of the blended field is not the grouped skin */
    ENSURE(write_text(path, "group body\npoint 0 0 0 0.8\ngroup hand\npoint 0.75 0 0 0.6\ncollide hand body\nmesh 16\n") == 0);
    ENSURE(cr_cook_file(path, NULL, &opt, &r, err, sizeof err) != 0);
    cr_test_printf("     %s\n", err);
    ENSURE(strstr(err, "colliding groups must not overlap") != NULL);
    const struct { const char *text, *expect; } bad[] = {
        {"group\npoint 0 0 0 1\n", ":1: group needs one name"},
        {"group a\npoint 0 0 0 1\ncollide a b\n", ":3: unknown group 'b'"},
        {"group a\npoint 0 0 0 1\ncollide a a\n", ":3: a group blends with itself"},
        {"group a\npoint 0 0 0 1\ngroup b\npoint 3 0 0 1\nblend a b\ncollide b a\n", ":6: these two groups were said to blend and to collide"},
        {"group a\npoint 0 0 0 1\ngroup b\n", "group 'b' has no primitive"},
        {"group a b\npoint 0 0 0 1\n", ":1: group needs one name"},
        {"group g0\ngroup g1\ngroup g2\ngroup g3\ngroup g4\ngroup g5\ngroup g6\ngroup g7\ngroup g8\ngroup g9\n"
         "group g10\ngroup g11\ngroup g12\ngroup g13\ngroup g14\ngroup g15\ngroup g16\n", ":17: more than 16 groups"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
        ENSURE(write_text(path, bad[k].text) == 0);
        cr_cook_squash s;
        ENSURE(cr_cook_squash_read(path, &s, err, sizeof err) != 0);
        cr_test_printf("     %s\n", err);
        ENSURE_MSG(strstr(err, bad[k].expect) != NULL, "case %zu: %s", k, err);
    }
}

static uint32_t rd32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

CR_TEST(squash_cook_hostile_skeleton_section_is_named) {
    const char *path = "build/test_squash_h.skel";
    ENSURE(write_text(path, "point 0 0 0 0.9\npoint 0.3 0 0 0.9\nmesh 10\n") == 0);
    cr_cook_options opt = cr_cook_default_options();
    opt.quiet = true;
    opt.sdf_res = 20;
    cr_cook_result r;
    char err[1024];
    ENSURE_MSG(cr_cook_file(path, NULL, &opt, &r, err, sizeof err) == 0, "%s", err);
    uint8_t *sq = NULL, *iv = NULL;
    for (uint32_t e = 0; e < CR_ASSET_SECTION_COUNT; ++e) {
        uint8_t *en = r.bytes + CR_ASSET_HEADER_SIZE + e * CR_ASSET_ENTRY_SIZE;
        if (memcmp(en, "SQSK", 4) == 0) sq = r.bytes + rd32(en + 4);
        if (memcmp(en, "SQIV", 4) == 0) iv = r.bytes + rd32(en + 4);
    }
    ENSURE(sq != NULL && iv != NULL);
    /* without groups the type word is the kind alone: the bytes of the format before the blending graph */
    ENSURE(rd32(sq) == 0 && rd32(sq + 48) == 0);
    struct { size_t at; uint32_t value, element; } cases[] = {
        {48 + 0, 7, 1},           /* an unknown primitive type */
        {48 + 40, 0xbf800000u, 1}, /* radius -1 */
        {44, 0, 0},               /* weight 0 */
        {4, 0x7fc00000u, 0},      /* a NaN coordinate */
        {0, 16u << 8, 0},         /* group 16 */
        {0, 1u << 16, 0},         /* group 0 colliding with itself */
        {48, 1u << 8 | 1u << 16, 1}, /* group 1 collides with group 0, which does not collide back */
        {0, 2u << 16, 0},         /* group 0 collides with group 1, which has no primitive */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        uint8_t *copy = malloc(r.size);
        memcpy(copy, r.bytes, r.size);
        uint8_t *p = copy + (sq - r.bytes) + cases[k].at;
        for (int i = 0; i < 4; ++i) p[i] = (uint8_t)(cases[k].value >> (8 * i));
        uint64_t h = cr_asset_checksum(copy + 16, r.size - 16);
        for (int i = 0; i < 8; ++i) copy[8 + i] = (uint8_t)(h >> (8 * i));
        size_t need = (cr_asset_memory_size(copy, r.size) + 15) / 16 * 16;
        void *block = aligned_alloc(CR_BLOCK_ALIGN, need ? need : 16);
        cr_asset a;
        cr_asset_error e;
        ENSURE(cr_asset_load(copy, r.size, block, need, &a, &e) == CR_ERR_BAD_ASSET);
        ENSURE_MSG(strcmp(e.section_tag, "SQSK") == 0 && e.index == cases[k].element, "case %zu: section '%s' element %u", k,
                   e.section_tag, e.index);
        free(block), free(copy);
    }
    cr_cook_result_free(&r);
}
