/* test_render_run.c — `crumple run --render/--sheet/--obj` end to end.
 *
 * A small scene file is parsed, built and stepped exactly as `crumple run`
 * does it, with pictures on. The files a user would open must exist, decode
 * with pngcheck, and be byte-identical when the run is repeated; the OBJ
 * frames must hold every body with valid face indices.
 */
#define _POSIX_C_SOURCE 200809L
#include "test.h"
#include "cli.h"
#include "render_run.h"
#include "scene.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char scene_text[] =
    "crumple-scene 1\n"
    "gravity 0 -9.81 0\n"
    "dt 1/60\n"
    "frames 10\n"
    "body ground static plane\n"
    "body ball dynamic sphere 0.5 position 0 2 0\n"
    "body crate dynamic box 0.4 0.3 0.4 position 1.5 0.3 0\n";

static uint8_t *slurp(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc((size_t)len + 1);
    *n = fread(buf, 1, (size_t)len, f);
    buf[*n] = 0;
    fclose(f);
    return buf;
}

/* Run the scene with pictures into dir; returns 0 on success. */
static int run_with_pictures(const char *dir, const char *obj_dir) {
    cr_scene *s = NULL;
    cr_scene_error e;
    if (cr_scene_parse(scene_text, sizeof scene_text - 1, "test.scene", &s, &e)) return -1;
    cr_world *w = NULL;
    if (cr_scene_build(s, &w, &e)) {
        cr_scene_free(s);
        return -1;
    }
    cr_run_pictures_options o = cr_run_pictures_default_options();
    o.render_dir = dir;
    o.obj_dir = obj_dir;
    o.every = 4;
    o.sheet = 1;
    o.render.width = 160;
    o.render.height = 120;
    cr_run_pictures p;
    int rc = cr_run_pictures_begin(&p, &o, s, w, s->frames);
    for (int32_t f = 0; rc == 0 && f < s->frames; ++f) {
        if (cr_scene_step(s, w, f, &e)) rc = -1;
        if (rc == 0) rc = cr_run_pictures_frame(&p, s, w, f);
    }
    if (rc == 0) rc = cr_run_pictures_finish(&p, 0);
    else cr_run_pictures_free(&p);
    cr_cli_world_free(w);
    cr_scene_free(s);
    return rc;
}

static const char *const expected[] = {"frame_00000.png", "frame_00004.png", "frame_00008.png", "frame_00010.png",
                                       "sheet.png"};

CR_TEST(render_run_writes_frames_sheet_and_obj_identically_twice) {
    char base[] = "/tmp/crumple_run_XXXXXX";
    ENSURE(mkdtemp(base) != NULL);
    char a[64], b[64], objs[64];
    snprintf(a, sizeof a, "%s/a", base);
    snprintf(b, sizeof b, "%s/b/nested", base); /* folders are created as needed */
    snprintf(objs, sizeof objs, "%s/obj", base);
    ENSURE(run_with_pictures(a, objs) == 0);
    ENSURE(run_with_pictures(b, NULL) == 0);
    char pa[128], pb[128], cmd[256];
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; ++i) {
        snprintf(pa, sizeof pa, "%s/%s", a, expected[i]);
        snprintf(pb, sizeof pb, "%s/%s", b, expected[i]);
        size_t na = 0, nb = 0;
        uint8_t *da = slurp(pa, &na), *db = slurp(pb, &nb);
        ENSURE_MSG(da != NULL && db != NULL, "missing %s", expected[i]);
        ENSURE_MSG(na == nb && memcmp(da, db, na) == 0, "%s differs between two identical runs", expected[i]);
        free(da);
        free(db);
        snprintf(cmd, sizeof cmd, "pngcheck -q %s", pa);
        ENSURE_MSG(system(cmd) == 0, "pngcheck rejected %s (is pngcheck installed?)", pa);
    }
    /* only the frames asked for */
    snprintf(pa, sizeof pa, "%s/frame_00001.png", a);
    ENSURE(access(pa, F_OK) != 0);
    /* OBJ frame: two bodies (the ground plane is left out), faces index existing vertices */
    snprintf(pa, sizeof pa, "%s/frame_00010.obj", objs);
    size_t n = 0;
    char *obj = (char *)slurp(pa, &n);
    ENSURE(obj != NULL);
    int objects = 0, vertices = 0, normals = 0, faces = 0, bad = 0;
    for (char *line = strtok(obj, "\n"); line; line = strtok(NULL, "\n")) {
        if (strncmp(line, "o ", 2) == 0) objects++;
        else if (strncmp(line, "v ", 2) == 0) vertices++;
        else if (strncmp(line, "vn ", 3) == 0) normals++;
        else if (strncmp(line, "f ", 2) == 0) {
            faces++;
            int i0, i1, i2, n0, n1, n2;
            if (sscanf(line, "f %d//%d %d//%d %d//%d", &i0, &n0, &i1, &n1, &i2, &n2) != 6) bad++;
            else if (i0 < 1 || i1 < 1 || i2 < 1 || i0 > vertices || i1 > vertices || i2 > vertices) bad++;
        }
    }
    cr_test_printf("  OBJ frame: %d objects, %d vertices, %d faces\n", objects, vertices, faces);
    ENSURE(objects == 2);
    ENSURE(vertices == normals && vertices > 24);
    ENSURE(faces > 12 && bad == 0);
    free(obj);
    snprintf(cmd, sizeof cmd, "rm -rf %s", base);
    ENSURE(system(cmd) == 0);
}

CR_TEST(render_run_options_reject_bad_values) {
    cr_run_pictures_options o = cr_run_pictures_default_options();
    char *ok_args[] = {"run", "--every", "5", "--size", "320x200", "--mode", "dent", "--sheet-frames", "6", "--wireframe",
                       "--dents", "--supersample", "3"};
    for (int i = 1; i < 13; ++i) ENSURE(cr_run_pictures_option(&o, 13, ok_args, &i) == 1);
    ENSURE(o.every == 5 && o.render.width == 320 && o.render.mode == CR_RENDER_DISPLACEMENT);
    ENSURE(o.sheet && o.sheet_frames == 6 && o.render.wireframe && o.dents && o.render.supersample == 3);
    ENSURE(cr_run_pictures_check(&o) == -1); /* a sheet and close-ups need --render DIR */
    o.sheet = 0;
    ENSURE(cr_run_pictures_check(&o) == -1);
    o.dents = 0;
    ENSURE(cr_run_pictures_check(&o) == 0);
    char *bad[][2] = {{"--every", "0"}, {"--size", "10"}, {"--mode", "sdf"}, {"--camera", "nowhere"}, {"--range", "-1"}};
    for (int k = 0; k < 5; ++k) {
        char *args[3] = {"run", bad[k][0], bad[k][1]};
        int i = 1;
        ENSURE_MSG(cr_run_pictures_option(&o, 3, args, &i) == -1, "%s %s accepted", bad[k][0], bad[k][1]);
    }
    char *missing[] = {"run", "--render"};
    int i = 1;
    ENSURE(cr_run_pictures_option(&o, 2, missing, &i) == -1);
    char *other[] = {"run", "--json"};
    i = 1;
    ENSURE(cr_run_pictures_option(&o, 2, other, &i) == 0);
}

CR_TEST(render_demo_command_writes_its_pictures) {
    char base[] = "/tmp/crumple_demo_XXXXXX";
    ENSURE(mkdtemp(base) != NULL);
    char out[64];
    snprintf(out, sizeof out, "%s/demo", base);
    /* 60 frames: the dents are built over steps within the damage budget, and
     * the fixed build's anvil dent commits after frame 40 */
    char *argv[] = {"demo", "--frames", "60", "--every", "20", "--size", "160x120", "--out", out};
    fflush(stdout);
    ENSURE(cr_cmd_demo(9, argv) == 0);
    const char *files[] = {"frame_00000.png", "frame_00020.png", "frame_00040.png", "sheet.png"};
    char path[128], cmd[256];
    for (int i = 0; i < 4; ++i) {
        snprintf(path, sizeof path, "%s/%s", out, files[i]);
        ENSURE_MSG(access(path, F_OK) == 0, "demo did not write %s", path);
    }
    snprintf(cmd, sizeof cmd, "pngcheck -q %s/sheet.png", out);
    ENSURE(system(cmd) == 0);
    /* the demo's dents: the ball's block and the bunny's plate, drawn alone */
    for (int i = 0; i < 2; ++i) {
        snprintf(path, sizeof path, "%s/%s", out, i ? "dent_plate.png" : "dent_anvil.png");
        ENSURE_MSG(access(path, F_OK) == 0, "demo did not draw the dent %s", path);
    }
    /* and its plastic barrel, coloured by example weights (seed 001) */
    snprintf(path, sizeof path, "%s/weights_barrel.png", out);
    ENSURE_MSG(access(path, F_OK) == 0, "demo did not draw the barrel's weights %s", path);
    /* and its jelly (seed 003), squashed by the rubber ball: alone, and in place with the ball */
    for (int i = 0; i < 2; ++i) {
        snprintf(path, sizeof path, "%s/%s", out, i ? "squash_jelly_closeup.png" : "squash_jelly.png");
        ENSURE_MSG(access(path, F_OK) == 0, "demo did not draw the squashed jelly %s", path);
    }
    /* a bad option is a usage error, not a crash */
    char *bad[] = {"demo", "--frames", "many"};
    ENSURE(cr_cmd_demo(3, bad) == 2);
    snprintf(cmd, sizeof cmd, "rm -rf %s", base);
    ENSURE(system(cmd) == 0);
}
