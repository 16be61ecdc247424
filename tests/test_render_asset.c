/* test_render_asset.c — `crumple render` on a real cooked asset.
 *
 * The shipped bar (data/meshes/bar.obj, a 4 m beam with a 3-bone rig and
 * example poses) is cooked by the cooker, then drawn: each bone's colour
 * must appear where the camera projects that bone; example pose 1 in
 * displacement mode must be hot where the pose moves the beam and cool
 * where it does not; an SDF slice must show inside and outside on the right
 * sides of the surface; the command must write the same PNG bytes twice and
 * refuse bad files and impossible poses with a message, not a crash.
 */
#define _POSIX_C_SOURCE 200809L
#include "test.h"
#include "cli.h"
#include "cook.h"
#include "png.h"
#include "render.h"
#include "stb_ds.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const uint8_t *pixel(const cr_image *img, int x, int y) {
    return img->rgb + ((size_t)y * img->width + (size_t)x) * 3;
}

/* Cook the bar into dir/bar.crb; returns 1 on success. */
static int cook_bar(const char *dir, char *path, size_t n) {
    snprintf(path, n, "%s/bar.crb", dir);
    cr_cook_options co = cr_cook_default_options();
    co.rig_path = "data/rigs/bar.rig";
    co.poses_path = "data/poses/bar.pose";
    co.quiet = true;
    cr_cook_result res;
    char err[512];
    if (cr_cook_file("data/meshes/bar.obj", path, &co, &res, err, sizeof err) != 0) {
        cr_test_printf("  cook failed: %s\n", err);
        return 0;
    }
    cr_cook_result_free(&res);
    return 1;
}

static uint8_t *slurp(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc((size_t)len + 1);
    *n = fread(buf, 1, (size_t)len, f);
    fclose(f);
    return buf;
}

/* Draw the asset (posed) and project its bones; returns 1 on success. */
static int draw_asset(const cr_asset *as, uint32_t example, cr_render_mode mode, cr_image *img, cr_camera *cam) {
    cr_render_options opt = cr_default_render_options();
    opt.width = 240;
    opt.height = 160;
    opt.legend = 0;
    opt.mode = mode;
    char err[128];
    if (!cr_camera_spec_parse("front", &opt.camera, err, sizeof err)) return 0;
    cr_vec3 *posed = NULL;
    if (!cr_render_pose_asset(as, example, &posed)) return 0;
    cr_render_body b;
    memset(&b, 0, sizeof b);
    b.shape.type = CR_SHAPE_MESH;
    b.xf = cr_transform_identity();
    b.asset = as;
    b.positions = posed;
    cr_render_scene s;
    cr_render_scene_init(&s);
    int ok = cr_render_scene_add_body(&s, &b, &opt) && cr_render_scene_finish(&s);
    *cam = cr_render_fit_camera(&opt.camera, &s, opt.width, opt.height);
    ok = ok && cr_render_draw(&s, cam, &opt, img);
    cr_render_scene_free(&s);
    arrfree(posed);
    return ok;
}

CR_TEST(render_asset_bones_and_example_pose_land_where_expected) {
    char dir[] = "/tmp/crumple_rasset_XXXXXX";
    ENSURE(mkdtemp(dir) != NULL);
    char crb[128], err[512];
    ENSURE(cook_bar(dir, crb, sizeof crb));
    cr_render_asset_file af;
    ENSURE_MSG(cr_render_load_asset(crb, &af, err, sizeof err), "%s", err);
    const cr_asset *as = &af.asset;
    ENSURE(as->bone_count == 3 && as->example_count >= 2);

    /* bone mode: the colour at the first and last bone's projection is that bone's palette colour */
    cr_image img;
    cr_camera cam;
    ENSURE(draw_asset(as, 0, CR_RENDER_BONE, &img, &cam));
    for (uint32_t bone = 0; bone < 3; bone += 2) {
        /* the bone sits inside the beam; its front face is at z = +0.25 */
        double p[3] = {cr_to_double(as->bones[bone].rest.p.x), cr_to_double(as->bones[bone].rest.p.y), 0.25};
        double px, py, depth;
        ENSURE(cr_render_project(&cam, img.width, img.height, p, &px, &py, &depth));
        ENSURE(px > 0 && px < img.width && py > 0 && py < img.height);
        const uint8_t *c = pixel(&img, (int)px, (int)py);
        uint32_t want = cr_render_palette(bone);
        int wr = (int)(want >> 16), wb = (int)(want & 0xff);
        cr_test_printf("  bone %u at (%.0f, %.0f): rgb %u,%u,%u (palette %06x)\n", bone, px, py, c[0], c[1], c[2], want);
        /* shading scales the colour, so compare which channel dominates */
        ENSURE((c[0] > c[2]) == (wr > wb));
    }
    cr_image_free(&img);

    /* example pose 1 in displacement mode: the hottest pixel is far from the coolest */
    ENSURE(draw_asset(as, 1, CR_RENDER_DISPLACEMENT, &img, &cam));
    int hot_x = -1, cold_x = -1, hot = -1000, cold = 1000;
    for (uint32_t y = 0; y < img.height; ++y)
        for (uint32_t x = 0; x < img.width; ++x) {
            const uint8_t *c = pixel(&img, (int)x, (int)y);
            if (c[0] > 200 && c[1] > 200 && c[2] > 200) continue; /* background */
            int heat = (int)c[0] - (int)c[2];
            if (heat > hot) { hot = heat; hot_x = (int)x; }
            if (heat < cold) { cold = heat; cold_x = (int)x; }
        }
    cr_test_printf("  example 1: hottest red-blue %d at x=%d, coolest %d at x=%d\n", hot, hot_x, cold, cold_x);
    ENSURE(hot > 60 && cold < 20);
    ENSURE(abs(hot_x - cold_x) > (int)img.width / 4);
    cr_image_free(&img);

    /* SDF slice through the middle of the beam: inside at the centre, outside at the top edge */
    cr_render_options so = cr_default_render_options();
    so.width = 200;
    so.height = 100;
    so.legend = 0;
    ENSURE(cr_render_sdf_slice(as, 2, 0.0, &so, &img));
    const uint8_t *mid = pixel(&img, 100, 50), *top = pixel(&img, 100, 2);
    ENSURE(mid[2] > mid[0] + 30);
    ENSURE(top[0] > top[2]);
    cr_image_free(&img);
    cr_render_free_asset(&af);

    /* the command: same bytes twice, errors named */
    char out1[160], out2[160], obj[160];
    snprintf(out1, sizeof out1, "%s/a.png", dir);
    snprintf(out2, sizeof out2, "%s/b.png", dir);
    snprintf(obj, sizeof obj, "%s/bar.obj", dir);
    char *args1[] = {"render", crb, "-o", out1, "--mode", "bone", "--size", "120x90", "--obj", obj};
    char *args2[] = {"render", crb, "-o", out2, "--mode", "bone", "--size", "120x90"};
    fflush(stdout);
    ENSURE(cr_cmd_render(10, args1) == 0);
    ENSURE(cr_cmd_render(8, args2) == 0);
    size_t n1 = 0, n2 = 0, no = 0;
    uint8_t *d1 = slurp(out1, &n1), *d2 = slurp(out2, &n2), *dobj = slurp(obj, &no);
    ENSURE(d1 && d2 && dobj && n1 == n2 && memcmp(d1, d2, n1) == 0);
    ENSURE(no > 100 && memcmp(dobj, "# crumple OBJ", 13) == 0);
    free(d1);
    free(d2);
    free(dobj);
    char *no_pose[] = {"render", crb, "-o", out1, "--example", "9"};
    ENSURE(cr_cmd_render(6, no_pose) == 1);
    char *missing[] = {"render", "/nonexistent/x.crb", "-o", out1};
    ENSURE(cr_cmd_render(4, missing) == 1);
    char *bad_slice[] = {"render", crb, "-o", out1, "--slice", "w=3"};
    ENSURE(cr_cmd_render(6, bad_slice) == 2);
    /* a damaged file is refused by the loader's checks, never drawn */
    size_t n = 0;
    uint8_t *bytes = slurp(crb, &n);
    ENSURE(bytes != NULL && n > 200);
    bytes[n / 2] ^= 0x40;
    char broken[160];
    snprintf(broken, sizeof broken, "%s/broken.crb", dir);
    FILE *f = fopen(broken, "wb");
    ENSURE(f != NULL);
    fwrite(bytes, 1, n, f);
    fclose(f);
    free(bytes);
    char *args3[] = {"render", broken, "-o", out1};
    ENSURE(cr_cmd_render(4, args3) == 1);
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ENSURE(system(cmd) == 0);
}
