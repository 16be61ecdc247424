/* test_render.c — pictures a user would check by eye, checked by pixels.
 *
 * The rasterizer's coverage rules (no gaps, no double-drawn pixels on a
 * shared edge), the camera (an object is where the camera says it is, the
 * corners show background), depth order, the colour modes (a pushed-in
 * vertex glows in displacement mode; bones get their palette colours; an
 * SDF slice is blue inside and orange outside), contact sheets, and that
 * the same scene always gives the same PNG bytes.
 */
#include "test.h"
#include "cli.h"
#include "png.h"
#include "raster.h"
#include "render.h"

#include <stdlib.h>
#include <string.h>

static const uint8_t *pixel(const cr_image *img, int x, int y) {
    return img->rgb + ((size_t)y * img->width + (size_t)x) * 3;
}

static int same_rgb(const uint8_t *a, const uint8_t *b) { return a[0] == b[0] && a[1] == b[1] && a[2] == b[2]; }

static uint32_t count_rgb(const cr_image *img, uint32_t rgb) {
    uint32_t n = 0;
    uint8_t want[3] = {(uint8_t)(rgb >> 16), (uint8_t)(rgb >> 8), (uint8_t)rgb};
    for (uint32_t i = 0; i < img->width * img->height; ++i) n += same_rgb(img->rgb + 3 * i, want);
    return n;
}

static cr_raster_vertex rv(double x, double y, double r, double g, double b) {
    cr_raster_vertex v;
    memset(&v, 0, sizeof v);
    v.x = x;
    v.y = y;
    v.inv_w = 1.0;
    v.n[2] = 1.0;
    v.c[0] = r;
    v.c[1] = g;
    v.c[2] = b;
    return v;
}

CR_TEST(render_raster_shared_edge_has_no_gap_and_no_overlap) {
    /* a 40x30 pixel rectangle split along its diagonal: pixel centres inside
     * number exactly 1200, and each belongs to exactly one of the two halves */
    cr_raster r;
    ENSURE(cr_raster_init(&r, 64, 48, 0x000000));
    r.ambient = 1.0;
    r.diffuse = 0.0;
    cr_raster_vertex a[3] = {rv(10, 10, 1, 0, 0), rv(50, 10, 1, 0, 0), rv(50, 40, 1, 0, 0)};
    cr_raster_vertex b[3] = {rv(10, 10, 0, 1, 0), rv(50, 40, 0, 1, 0), rv(10, 40, 0, 1, 0)};
    cr_raster_triangle(&r, a);
    uint32_t na = count_rgb(&r.image, 0xff0000);
    cr_raster_clear(&r, 0x000000);
    cr_raster_triangle(&r, b);
    uint32_t nb = count_rgb(&r.image, 0x00ff00);
    cr_raster_clear(&r, 0x000000);
    cr_raster_triangle(&r, a);
    cr_raster_triangle(&r, b);
    uint32_t ua = count_rgb(&r.image, 0xff0000), ub = count_rgb(&r.image, 0x00ff00);
    cr_test_printf("  halves %u + %u pixels, together %u + %u\n", na, nb, ua, ub);
    ENSURE(na + nb == 1200);
    ENSURE(ua == na && ub == nb);
    ENSURE(count_rgb(&r.image, 0x000000) == 64 * 48 - 1200);
    /* winding does not matter: the reversed triangle covers the same pixels */
    cr_raster_clear(&r, 0x000000);
    cr_raster_vertex a_rev[3] = {a[0], a[2], a[1]};
    cr_raster_triangle(&r, a_rev);
    ENSURE(count_rgb(&r.image, 0xff0000) == na);
    /* degenerate and non-finite triangles are skipped and counted, never drawn */
    cr_raster_vertex flat[3] = {rv(1, 1, 1, 1, 1), rv(5, 5, 1, 1, 1), rv(9, 9, 1, 1, 1)};
    cr_raster_vertex wild[3] = {rv(1, 1, 1, 1, 1), rv(1e30, 5, 1, 1, 1), rv(9, 0.0 / 0.0, 1, 1, 1)};
    uint32_t skipped = r.triangles_skipped;
    cr_raster_triangle(&r, flat);
    cr_raster_triangle(&r, wild);
    ENSURE(r.triangles_skipped == skipped + 2);
    ENSURE(count_rgb(&r.image, 0xffffff) == 0);
    cr_raster_free(&r);
}

CR_TEST(render_raster_nearer_surface_wins_and_wireframe_marks_edges) {
    cr_raster r;
    ENSURE(cr_raster_init(&r, 64, 64, 0x000000));
    r.ambient = 1.0;
    r.diffuse = 0.0;
    /* far red triangle drawn after a near green one: green must stay */
    cr_raster_vertex near_t[3] = {rv(4, 4, 0, 1, 0), rv(60, 4, 0, 1, 0), rv(4, 60, 0, 1, 0)};
    cr_raster_vertex far_t[3] = {rv(4, 4, 1, 0, 0), rv(60, 4, 1, 0, 0), rv(4, 60, 1, 0, 0)};
    for (int i = 0; i < 3; ++i) {
        near_t[i].inv_w = 1.0;
        far_t[i].inv_w = 0.5;
    }
    cr_raster_triangle(&r, near_t);
    cr_raster_triangle(&r, far_t);
    ENSURE(count_rgb(&r.image, 0xff0000) == 0);
    uint32_t green = count_rgb(&r.image, 0x00ff00);
    ENSURE(green > 1000);
    /* wireframe: edge pixels darken, the interior keeps its colour */
    cr_raster_clear(&r, 0x000000);
    r.wireframe = 1;
    cr_raster_triangle(&r, near_t);
    ENSURE(same_rgb(pixel(&r.image, 20, 20), (const uint8_t *)"\x00\xff\x00"));
    const uint8_t *edge = pixel(&r.image, 20, 4);
    ENSURE(edge[1] < 200);
    ENSURE(count_rgb(&r.image, 0x00ff00) < green);
    cr_raster_free(&r);
}

/* A world holding the given bodies; the caller frees it with cr_cli_world_free. */
static cr_world *world_with(const cr_body_def *defs, int n) {
    cr_world_def wd = cr_default_world_def();
    wd.body_capacity = 16;
    cr_world *w = NULL;
    if (cr_cli_world_new(&wd, &w) != CR_OK) return NULL;
    for (int i = 0; i < n; ++i) {
        cr_body_id id;
        if (cr_body_create(w, &defs[i], &id) != CR_OK) {
            cr_cli_world_free(w);
            return NULL;
        }
    }
    return w;
}

static cr_body_def sphere_at(double x, double y, double z, double radius) {
    cr_body_def b = cr_default_body_def();
    b.shape.type = CR_SHAPE_SPHERE;
    b.shape.radius = cr_from_float((float)radius);
    b.position = cr_v3(cr_from_float((float)x), cr_from_float((float)y), cr_from_float((float)z));
    return b;
}

static int draw_world(const cr_world *w, const cr_render_options *opt, cr_camera *cam_out, cr_image *img) {
    cr_render_scene s;
    cr_render_scene_init(&s);
    int ok = cr_render_scene_add_world(&s, w, NULL, 0, opt);
    cr_camera cam = cr_render_fit_camera(&opt->camera, &s, opt->width, opt->height);
    if (cam_out) *cam_out = cam;
    ok = ok && cr_render_draw(&s, &cam, opt, img);
    cr_render_scene_free(&s);
    return ok;
}

CR_TEST(render_sphere_appears_where_the_camera_says) {
    cr_body_def defs[1] = {sphere_at(1, 2, 3, 0.5)};
    cr_world *w = world_with(defs, 1);
    ENSURE(w != NULL);
    cr_render_options opt = cr_default_render_options();
    opt.width = 160;
    opt.height = 120;
    opt.legend = 0;
    char err[128];
    ENSURE(cr_camera_spec_parse("1,2,8,1,2,3,30", &opt.camera, err, sizeof err));
    cr_image img, empty;
    ENSURE(draw_world(w, &opt, NULL, &img));
    cr_render_scene none;
    cr_render_scene_init(&none);
    cr_camera cam = cr_render_fit_camera(&opt.camera, &none, opt.width, opt.height);
    ENSURE(cr_render_draw(&none, &cam, &opt, &empty));
    /* the centre shows the sphere, the corners the background */
    ENSURE(!same_rgb(pixel(&img, 80, 60), pixel(&empty, 80, 60)));
    const int corners[4][2] = {{0, 0}, {159, 0}, {0, 119}, {159, 119}};
    for (int i = 0; i < 4; ++i)
        ENSURE(same_rgb(pixel(&img, corners[i][0], corners[i][1]), pixel(&empty, corners[i][0], corners[i][1])));
    /* its silhouette is as wide as perspective says: radius 0.5 at 5 m with a
     * 30 degree field of view on 120 rows projects to about 45 pixels across */
    int left = 80, right = 80;
    while (left > 0 && !same_rgb(pixel(&img, left - 1, 60), pixel(&empty, left - 1, 60))) --left;
    while (right < 159 && !same_rgb(pixel(&img, right + 1, 60), pixel(&empty, right + 1, 60))) ++right;
    double expect = 2.0 * 60.0 / 0.26794919243 * 0.5 / 4.97493718553; /* tan 15 deg; tangent distance */
    cr_test_printf("  silhouette %d px wide, expected %.1f\n", right - left + 1, expect);
    ENSURE_NEAR(right - left + 1, expect, 2.0);
    ENSURE_NEAR((left + right) * 0.5, 79.5, 1.0);
    cr_image_free(&img);
    cr_image_free(&empty);
    cr_cli_world_free(w);
}

CR_TEST(render_object_right_of_target_is_drawn_right_of_centre) {
    cr_body_def defs[2] = {sphere_at(1.5, 0, 0, 0.4), sphere_at(-3, 0, -1, 0.2)};
    cr_world *w = world_with(defs, 2);
    ENSURE(w != NULL);
    cr_render_options opt = cr_default_render_options();
    opt.width = 200;
    opt.height = 100;
    opt.legend = 0;
    char err[128];
    ENSURE(cr_camera_spec_parse("0,0,6,0,0,0", &opt.camera, err, sizeof err));
    cr_image img;
    cr_camera cam;
    ENSURE(draw_world(w, &opt, &cam, &img));
    double c[3] = {1.5, 0, 0}, px, py, depth;
    ENSURE(cr_render_project(&cam, opt.width, opt.height, c, &px, &py, &depth));
    ENSURE(px > 100.0 && depth > 5.9 && depth < 6.1);
    ENSURE_NEAR(py, 50.0, 0.01);
    /* body palette colour 0 where the projection says, background at the mirror image */
    const uint8_t *at = pixel(&img, (int)px, (int)py), *mirror = pixel(&img, 200 - (int)px, (int)py);
    ENSURE(at[2] > at[0]);                   /* palette 0 is blue */
    ENSURE(mirror[0] > 200 && mirror[1] > 200); /* light background */
    /* a point behind the camera does not project */
    double behind[3] = {0, 0, 7};
    ENSURE(!cr_render_project(&cam, opt.width, opt.height, behind, &px, &py, &depth));
    cr_image_free(&img);
    cr_cli_world_free(w);
}

CR_TEST(render_same_scene_gives_identical_png_bytes) {
    cr_body_def defs[4];
    defs[0] = cr_default_body_def();
    defs[0].type = CR_BODY_STATIC;
    defs[0].shape.type = CR_SHAPE_PLANE;
    defs[1] = sphere_at(0, 0.5, 0, 0.5);
    defs[2] = cr_default_body_def();
    defs[2].shape.type = CR_SHAPE_BOX;
    defs[2].shape.half_extents = cr_v3(CR_R(0.3), CR_R(0.2), CR_R(0.4));
    defs[2].position = cr_v3(CR_R(1.2), CR_R(0.2), CR_R(0.3));
    defs[2].orientation = cr_quat_normalize((cr_quat){CR_R(0.0), CR_R(0.38), CR_R(0.0), CR_R(0.92)});
    defs[3] = sphere_at(-1, 1.5, -0.5, 0.3);
    cr_world *w = world_with(defs, 4);
    ENSURE(w != NULL);
    cr_render_options opt = cr_default_render_options();
    opt.width = 240;
    opt.height = 180;
    opt.wireframe = 1;
    snprintf(opt.label, sizeof opt.label, "FRAME 0");
    uint8_t *png[2] = {NULL, NULL};
    size_t n[2] = {0, 0};
    for (int k = 0; k < 2; ++k) {
        cr_image img;
        ENSURE(draw_world(w, &opt, NULL, &img));
        ENSURE(cr_png_encode(img.rgb, img.width, img.height, 3, CR_PNG_FIXED, &png[k], &n[k]) == CR_PNG_OK);
        cr_image_free(&img);
    }
    cr_test_printf("  %ux%u scene: %zu PNG bytes, crc %08x\n", opt.width, opt.height, n[0], cr_crc32(0, png[0], n[0]));
    ENSURE(n[0] == n[1] && memcmp(png[0], png[1], n[0]) == 0);
    free(png[0]);
    free(png[1]);
    cr_cli_world_free(w);
}

CR_TEST(render_camera_and_size_parsing_names_the_problem) {
    cr_camera_spec c;
    char err[160];
    ENSURE(cr_camera_spec_parse("top", &c, err, sizeof err) && !c.has_eye && c.dir[1] > 0.99);
    ENSURE(cr_camera_spec_parse("front,50", &c, err, sizeof err) && c.fov_y == 50.0);
    ENSURE(cr_camera_spec_parse("1,2,3", &c, err, sizeof err) && c.has_eye && !c.has_target);
    ENSURE(!cr_camera_spec_parse("1,2", &c, err, sizeof err) && strstr(err, "EX,EY,EZ") != NULL);
    ENSURE(!cr_camera_spec_parse("1,1,1,1,1,1", &c, err, sizeof err) && strstr(err, "same point") != NULL);
    ENSURE(!cr_camera_spec_parse("iso,500", &c, err, sizeof err) && strstr(err, "field of view") != NULL);
    ENSURE(!cr_camera_spec_parse("sideways", &c, err, sizeof err));
    uint32_t w, h;
    ENSURE(cr_render_size_parse("640x480", &w, &h, err, sizeof err) && w == 640 && h == 480);
    ENSURE(!cr_render_size_parse("640", &w, &h, err, sizeof err) && strstr(err, "WIDTHxHEIGHT") != NULL);
    ENSURE(!cr_render_size_parse("8x8", &w, &h, err, sizeof err) && strstr(err, "16..4096") != NULL);
    cr_render_mode m;
    ENSURE(cr_render_mode_parse("dent", &m) && m == CR_RENDER_DISPLACEMENT);
    ENSURE(!cr_render_mode_parse("rainbow", &m));
}

/* An octahedron of radius 1 as a hand-made asset view, with two bones: the
 * +x half skinned to bone 0, the -x half to bone 1, the poles shared. */
typedef struct octa {
    cr_vec3 pos[6];
    uint32_t tri[24];
    uint8_t skin_bone[24];
    cr_real skin_weight[24];
    cr_asset asset;
} octa;

static void octa_init(octa *o) {
    memset(o, 0, sizeof *o);
    const cr_vec3 p[6] = {{CR_R(1), 0, 0}, {CR_R(-1), 0, 0}, {0, CR_R(1), 0},
                          {0, CR_R(-1), 0}, {0, 0, CR_R(1)}, {0, 0, CR_R(-1)}};
    memcpy(o->pos, p, sizeof p);
    /* counter-clockwise from outside: for each octant (sx, sy, sz) */
    const uint32_t t[24] = {0, 2, 4, 4, 2, 1, 1, 2, 5, 5, 2, 0, 0, 4, 3, 4, 1, 3, 1, 5, 3, 5, 0, 3};
    memcpy(o->tri, t, sizeof t);
    for (int v = 0; v < 6; ++v) {
        int bone = v == 1 ? 1 : 0;
        o->skin_bone[4 * v] = (uint8_t)bone;
        o->skin_weight[4 * v] = CR_R(1);
        if (v >= 2) { /* poles: half and half */
            o->skin_bone[4 * v + 1] = 1;
            o->skin_weight[4 * v] = CR_R(0.5);
            o->skin_weight[4 * v + 1] = CR_R(0.5);
        }
    }
    o->asset.vertex_count = 6;
    o->asset.triangle_count = 8;
    o->asset.positions = o->pos;
    o->asset.triangles = o->tri;
    o->asset.bone_count = 2;
    o->asset.skin_bone = o->skin_bone;
    o->asset.skin_weight = o->skin_weight;
}

static int draw_body(const cr_render_body *b, cr_render_options *opt, cr_image *img, double *max_disp) {
    cr_render_scene s;
    cr_render_scene_init(&s);
    int ok = cr_render_scene_add_body(&s, b, opt) && cr_render_scene_finish(&s);
    cr_camera cam = cr_render_fit_camera(&opt->camera, &s, opt->width, opt->height);
    ok = ok && cr_render_draw(&s, &cam, opt, img);
    if (max_disp) *max_disp = s.max_displacement;
    cr_render_scene_free(&s);
    return ok;
}

CR_TEST(render_displacement_mode_shows_the_dent) {
    octa o;
    octa_init(&o);
    /* push the +z vertex (facing the camera) in by 0.3 m: a dent */
    cr_vec3 dented[6];
    memcpy(dented, o.pos, sizeof dented);
    dented[4].z = CR_R(0.7);
    cr_render_body b;
    memset(&b, 0, sizeof b);
    b.shape.type = CR_SHAPE_MESH;
    b.xf = cr_transform_identity();
    b.asset = &o.asset;
    b.positions = dented;
    cr_render_options opt = cr_default_render_options();
    opt.width = opt.height = 96;
    opt.legend = 0;
    opt.mode = CR_RENDER_DISPLACEMENT;
    char err[128];
    ENSURE(cr_camera_spec_parse("0,0,5,0,0,0", &opt.camera, err, sizeof err));
    cr_image img;
    double max_disp = 0;
    ENSURE(draw_body(&b, &opt, &img, &max_disp));
    ENSURE_NEAR(max_disp, 0.3, 1e-6);
    /* hot (red over blue) at the dented vertex in the middle, cool near the rim */
    const uint8_t *mid = pixel(&img, 48, 48), *rim = pixel(&img, 48 + 28, 48);
    cr_test_printf("  centre rgb %u,%u,%u  rim rgb %u,%u,%u\n", mid[0], mid[1], mid[2], rim[0], rim[1], rim[2]);
    ENSURE(mid[0] > mid[2] + 60);
    ENSURE(rim[0] < rim[2] + 40);
    cr_image_free(&img);
    /* without the dent nothing is hot */
    b.positions = NULL;
    ENSURE(draw_body(&b, &opt, &img, &max_disp));
    ENSURE(max_disp == 0.0);
    mid = pixel(&img, 48, 48);
    ENSURE(mid[0] < mid[2] + 40);
    cr_image_free(&img);
}

CR_TEST(render_bone_mode_colours_each_bone) {
    octa o;
    octa_init(&o);
    cr_render_body b;
    memset(&b, 0, sizeof b);
    b.shape.type = CR_SHAPE_MESH;
    b.xf = cr_transform_identity();
    b.asset = &o.asset;
    cr_render_options opt = cr_default_render_options();
    opt.width = opt.height = 96;
    opt.legend = 0;
    opt.mode = CR_RENDER_BONE;
    char err[128];
    ENSURE(cr_camera_spec_parse("0,0,5,0,0,0", &opt.camera, err, sizeof err));
    cr_image img;
    ENSURE(draw_body(&b, &opt, &img, NULL));
    /* bone 0 (palette blue 4e79a7) on the right, bone 1 (palette orange f28e2b) on the left */
    const uint8_t *right = pixel(&img, 48 + 20, 48), *left = pixel(&img, 48 - 20, 48);
    cr_test_printf("  right rgb %u,%u,%u  left rgb %u,%u,%u\n", right[0], right[1], right[2], left[0], left[1], left[2]);
    ENSURE(right[2] > right[0]);
    ENSURE(left[0] > left[2]);
    cr_image_free(&img);
}

/* Trilinear grid of a sphere's distance |p| - r, for the slice test. */
CR_TEST(render_sdf_slice_is_blue_inside_orange_outside) {
    enum { N = 9 };
    static cr_real grid[N * N * N];
    for (int k = 0; k < N; ++k)
        for (int j = 0; j < N; ++j)
            for (int i = 0; i < N; ++i) {
                double x = -1.0 + 0.25 * i, y = -1.0 + 0.25 * j, z = -1.0 + 0.25 * k;
                grid[(k * N + j) * N + i] = cr_from_float((float)(sqrt(x * x + y * y + z * z) - 0.6));
            }
    cr_asset a;
    memset(&a, 0, sizeof a);
    a.sdf_origin = cr_v3(CR_R(-1), CR_R(-1), CR_R(-1));
    a.sdf_cell = CR_R(0.25);
    a.sdf_inv_cell = CR_R(4);
    a.sdf_dims[0] = a.sdf_dims[1] = a.sdf_dims[2] = N;
    a.sdf = grid;
    cr_render_options opt = cr_default_render_options();
    opt.width = opt.height = 100;
    opt.legend = 0;
    cr_image img;
    ENSURE(cr_render_sdf_slice(&a, 2, 0.0, &opt, &img));
    const uint8_t *c = pixel(&img, 50, 50), *corner = pixel(&img, 12, 12);
    cr_test_printf("  inside rgb %u,%u,%u  outside rgb %u,%u,%u\n", c[0], c[1], c[2], corner[0], corner[1], corner[2]);
    ENSURE(c[2] > c[0] + 40);
    ENSURE(corner[0] > corner[2] + 30);
    /* the zero level set is drawn white somewhere on the row through the centre */
    int white = 0;
    for (int x = 0; x < 100; ++x) white += pixel(&img, x, 50)[0] == 255 && pixel(&img, x, 50)[2] == 255;
    ENSURE(white >= 2);
    cr_image_free(&img);
    ENSURE(!cr_render_sdf_slice(&a, 3, 0.0, &opt, &img));
}

CR_TEST(render_contact_sheet_tiles_frames_in_order) {
    cr_image frames[5];
    const uint32_t colours[5] = {0xff0000, 0x00ff00, 0x0000ff, 0xffff00, 0x00ffff};
    const char *captions[5] = {"F0", "F1", "F2", "F3", "F4"};
    for (int i = 0; i < 5; ++i) ENSURE(cr_image_init(&frames[i], 40, 30, colours[i]));
    cr_image sheet;
    ENSURE(cr_render_contact_sheet(frames, captions, 5, 2, &sheet));
    /* 3 columns x 2 rows of 20x15 tiles, 4 px gaps, 11 px captions */
    ENSURE(sheet.width == 3 * 20 + 4 * 4);
    ENSURE(sheet.height == 2 * (15 + 11) + 3 * 4);
    for (int i = 0; i < 5; ++i) {
        int x = 4 + (i % 3) * 24 + 10, y = 4 + (i / 3) * 30 + 7;
        const uint8_t *p = pixel(&sheet, x, y);
        ENSURE(((uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2]) == colours[i]);
    }
    /* the sixth cell is empty */
    ENSURE(same_rgb(pixel(&sheet, 4 + 2 * 24 + 10, 4 + 30 + 7), (const uint8_t *)"\xff\xff\xff"));
    cr_image_free(&sheet);
    for (int i = 0; i < 5; ++i) cr_image_free(&frames[i]);
}

CR_TEST(render_weights_mode_shows_rest_white_and_examples_in_colour) {
    /* seed 001 Figure 8: white where the rest example holds, colour where a
     * deformed example took over. Vertex 0 (+x) is all example 1. */
    octa o;
    octa_init(&o);
    cr_real w[6 * 2];
    for (int v = 0; v < 6; ++v) {
        w[2 * v] = v == 0 ? 0 : CR_R(1);
        w[2 * v + 1] = v == 0 ? CR_R(1) : 0;
    }
    cr_render_body b;
    memset(&b, 0, sizeof b);
    b.shape.type = CR_SHAPE_MESH;
    b.xf = cr_transform_identity();
    b.asset = &o.asset;
    b.example_weights = w;
    b.example_count = 2;
    cr_render_options opt = cr_default_render_options();
    opt.width = opt.height = 96;
    opt.legend = 0;
    opt.mode = CR_RENDER_WEIGHTS;
    char err[128];
    ENSURE(cr_camera_spec_parse("0,0,5,0,0,0", &opt.camera, err, sizeof err));
    cr_image img;
    ENSURE(draw_body(&b, &opt, &img, NULL));
    const uint8_t *right = pixel(&img, 48 + 26, 48), *left = pixel(&img, 48 - 26, 48);
    cr_test_printf("  right rgb %u,%u,%u  left rgb %u,%u,%u\n", right[0], right[1], right[2], left[0], left[1], left[2]);
    ENSURE(right[2] > right[0] + 20);                      /* example 1: palette blue */
    ENSURE(abs((int)left[0] - (int)left[2]) < 12 && left[0] > 90); /* rest: white, shaded grey */
    cr_image_free(&img);
}
