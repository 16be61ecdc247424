/* cmd_render.c — `crumple render ASSET.crb -o FILE.png`: one cooked asset as a picture.
 *
 * Checks what the cooker made before it goes into a game: the mesh as the
 * runtime will see it (body frame, principal axes), its skinning weights by
 * bone, an example pose coloured by how far it moves from rest, or a slice of
 * the signed distance grid. `crumple run --render` draws whole scenes with
 * the same code (tools/render.c).
 *
 * Notes
 *   - The output is written atomically and is byte-identical for the same
 *     asset and options (see docs/render.md).
 *   - Errors: `crumple render: ...` for the command line, `PATH: ...` for
 *     files; exit 2 for usage, 1 for the rest.
 */
#include "cli.h"
#include "obj_export.h"
#include "png.h"
#include "render.h"
#include "stb_ds.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out) {
    fprintf(out,
            "usage: crumple render ASSET.crb -o FILE.png [--mode M] [--size WxH] [--camera C] [--example K]\n"
            "       [--slice AXIS=VALUE] [--range MM] [--wireframe] [--supersample N] [--label TEXT] [--no-legend]\n"
            "       [--obj FILE.obj] [--stored]\n"
            "  Draws one cooked asset (docs/render.md), in its body frame (the principal frame).\n"
            "  -o FILE.png          output picture (required; also --out)\n"
            "  --mode M             body | displacement | bone | weights | sdf (default body)\n"
            "  --size WxH           pixels (default 480x360)\n"
            "  --camera C           iso|front|back|left|right|top[,FOV] or EX,EY,EZ[,TX,TY,TZ[,FOV]] (m, degrees)\n"
            "  --example K          draw example pose K (skinned; 0 = rest); displacement shows how far it moves\n"
            "  --slice AXIS=VALUE   sdf mode: the plane to cut, e.g. y=0.1 (m, body frame; default: grid centre, z)\n"
            "  --range MM           displacement that gets the hottest colour (default: the largest)\n"
            "  --wireframe          overlay the triangle edges\n"
            "  --supersample N      draw N times larger and average down, 1..4 (default 2)\n"
            "  --label TEXT         caption in the top-left corner\n"
            "  --no-legend          no caption or colour legend\n"
            "  --obj FILE.obj       also write the (posed) mesh as OBJ\n"
            "  --stored             PNG without compression (stored deflate blocks)\n");
}

static int need_value(int i, int argc, const char *opt) {
    if (i + 1 < argc) return 1;
    fprintf(stderr, "crumple render: %s needs a value\n", opt);
    return 0;
}

int cr_cmd_render(int argc, char **argv) {
    const char *asset_path = NULL, *out_path = NULL, *obj_path = NULL, *slice = NULL;
    long example = 0;
    int stored = 0;
    char err[512];
    cr_render_options opt = cr_default_render_options();
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "-o") == 0 || strcmp(a, "--out") == 0) {
            if (!need_value(i, argc, a)) return 2;
            out_path = argv[++i];
        } else if (strcmp(a, "--mode") == 0) {
            if (!need_value(i, argc, a)) return 2;
            if (!cr_render_mode_parse(argv[++i], &opt.mode)) {
                fprintf(stderr, "crumple render: unknown mode '%s' (body, displacement, bone, weights, sdf)\n", argv[i]);
                return 2;
            }
        } else if (strcmp(a, "--size") == 0) {
            if (!need_value(i, argc, a)) return 2;
            if (!cr_render_size_parse(argv[++i], &opt.width, &opt.height, err, sizeof err)) {
                fprintf(stderr, "crumple render: %s\n", err);
                return 2;
            }
        } else if (strcmp(a, "--camera") == 0) {
            if (!need_value(i, argc, a)) return 2;
            if (!cr_camera_spec_parse(argv[++i], &opt.camera, err, sizeof err)) {
                fprintf(stderr, "crumple render: %s\n", err);
                return 2;
            }
        } else if (strcmp(a, "--example") == 0) {
            if (!need_value(i, argc, a)) return 2;
            char *end;
            example = strtol(argv[++i], &end, 10);
            if (*end != 0 || end == argv[i] || example < 0 || example >= (long)CR_ASSET_MAX_EXAMPLES) {
                fprintf(stderr, "crumple render: --example '%s' is not a pose number in 0..%u\n", argv[i],
                        CR_ASSET_MAX_EXAMPLES - 1);
                return 2;
            }
        } else if (strcmp(a, "--slice") == 0) {
            if (!need_value(i, argc, a)) return 2;
            slice = argv[++i];
        } else if (strcmp(a, "--range") == 0) {
            if (!need_value(i, argc, a)) return 2;
            char *end;
            double mm = strtod(argv[++i], &end);
            if (*end != 0 || end == argv[i] || !(mm > 0.0 && mm < 1e9)) {
                fprintf(stderr, "crumple render: --range '%s' is not a positive length in mm\n", argv[i]);
                return 2;
            }
            opt.range = mm / 1000.0;
        } else if (strcmp(a, "--wireframe") == 0) {
            opt.wireframe = 1;
        } else if (strcmp(a, "--supersample") == 0) {
            if (!need_value(i, argc, a)) return 2;
            char *end;
            long n = strtol(argv[++i], &end, 10);
            if (*end != 0 || end == argv[i] || n < 1 || n > 4) {
                fprintf(stderr, "crumple render: --supersample '%s' is not a number in 1..4\n", argv[i]);
                return 2;
            }
            opt.supersample = (int)n;
        } else if (strcmp(a, "--label") == 0) {
            if (!need_value(i, argc, a)) return 2;
            snprintf(opt.label, sizeof opt.label, "%s", argv[++i]);
        } else if (strcmp(a, "--no-legend") == 0) {
            opt.legend = 0;
        } else if (strcmp(a, "--obj") == 0) {
            if (!need_value(i, argc, a)) return 2;
            obj_path = argv[++i];
        } else if (strcmp(a, "--stored") == 0) {
            stored = 1;
        } else if (a[0] == '-' && a[1] != 0) {
            fprintf(stderr, "crumple render: unknown option '%s'\n", a);
            usage(stderr);
            return 2;
        } else if (asset_path == NULL) {
            asset_path = a;
        } else {
            fprintf(stderr, "crumple render: more than one asset ('%s' and '%s')\n", asset_path, a);
            return 2;
        }
    }
    if (asset_path == NULL || out_path == NULL) {
        fprintf(stderr, "crumple render: %s\n", asset_path == NULL ? "no asset file given" : "no output given (-o FILE.png)");
        usage(stderr);
        return 2;
    }
    int axis = 2;
    double slice_value = 0.0;
    int slice_given = 0;
    if (slice != NULL) {
        char *end;
        if ((slice[0] != 'x' && slice[0] != 'y' && slice[0] != 'z') || slice[1] != '=') {
            fprintf(stderr, "crumple render: --slice '%s': expected AXIS=VALUE with AXIS x, y or z\n", slice);
            return 2;
        }
        axis = slice[0] - 'x';
        slice_value = strtod(slice + 2, &end);
        if (*end != 0 || end == slice + 2 || !(slice_value > -1e6 && slice_value < 1e6)) {
            fprintf(stderr, "crumple render: --slice '%s': the value is not a length in metres\n", slice);
            return 2;
        }
        slice_given = 1;
        opt.mode = CR_RENDER_SDF;
    }

    cr_render_asset_file af;
    if (!cr_render_load_asset(asset_path, &af, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    const cr_asset *as = &af.asset;
    cr_image img;
    int ok = 1;
    uint32_t triangles = 0;
    if (opt.mode == CR_RENDER_SDF) {
        if (!slice_given) {
            slice_value = cr_to_double(axis == 0 ? as->sdf_origin.x : axis == 1 ? as->sdf_origin.y : as->sdf_origin.z) +
                          0.5 * cr_to_double(as->sdf_cell) * (double)(as->sdf_dims[axis] - 1);
        }
        ok = cr_render_sdf_slice(as, axis, slice_value, &opt, &img);
    } else {
        if (example > 0 && (as->bone_count == 0 || (uint32_t)example >= as->example_count)) {
            fprintf(stderr, "%s: has no example pose %ld (it has %u example poses, 0 = rest)\n", asset_path, example,
                    as->example_count);
            cr_render_free_asset(&af);
            return 1;
        }
        if (opt.mode == CR_RENDER_BONE && as->bone_count == 0)
            fprintf(stderr, "%s: note: no skeleton, so bone mode draws it grey\n", asset_path);
        cr_vec3 *posed = NULL;
        cr_real *weights = NULL;
        ok = cr_render_pose_asset(as, (uint32_t)example, &posed);
        cr_render_body b;
        memset(&b, 0, sizeof b);
        b.shape.type = CR_SHAPE_MESH;
        b.xf = cr_transform_identity();
        b.asset = as;
        b.positions = posed;
        if (opt.mode == CR_RENDER_WEIGHTS && as->example_count > 0) {
            /* a lone asset has no impulse history: weight 1 on the pose being drawn */
            arrsetlen(weights, (size_t)as->vertex_count * as->example_count);
            memset(weights, 0, sizeof(cr_real) * (size_t)as->vertex_count * as->example_count);
            for (uint32_t v = 0; v < as->vertex_count; ++v) weights[(size_t)v * as->example_count + (uint32_t)example] = CR_R(1);
            b.example_weights = weights;
            b.example_count = as->example_count;
        }
        cr_render_scene scene;
        cr_render_scene_init(&scene);
        ok = ok && cr_render_scene_add_body(&scene, &b, &opt) && cr_render_scene_finish(&scene);
        cr_camera cam = cr_render_fit_camera(&opt.camera, &scene, opt.width, opt.height);
        ok = ok && cr_render_draw(&scene, &cam, &opt, &img);
        triangles = as->triangle_count;
        if (ok && obj_path != NULL) {
            char comment[600];
            snprintf(comment, sizeof comment, "asset %s, example pose %ld", asset_path, example);
            if (!cr_render_export_obj(&scene, obj_path, comment, err, sizeof err)) {
                fprintf(stderr, "%s\n", err);
                ok = 0;
                cr_image_free(&img);
                cr_render_scene_free(&scene);
                arrfree(posed);
                arrfree(weights);
                cr_render_free_asset(&af);
                return 1;
            }
        }
        cr_render_scene_free(&scene);
        arrfree(posed);
        arrfree(weights);
    }
    if (!ok) {
        fprintf(stderr, "crumple render: out of memory drawing %s\n", asset_path);
        cr_render_free_asset(&af);
        return 1;
    }
    cr_png_status ps = cr_png_write_file(out_path, img.rgb, img.width, img.height, 3, stored ? CR_PNG_STORED : CR_PNG_FIXED);
    cr_image_free(&img);
    if (ps != CR_PNG_OK) {
        fprintf(stderr, "%s: cannot write PNG: %s\n", out_path, cr_png_status_message(ps));
        cr_render_free_asset(&af);
        return 1;
    }
    if (opt.mode == CR_RENDER_SDF)
        printf("wrote %s (%ux%u, SDF slice %c=%.4f m of a %ux%ux%u grid)\n", out_path, opt.width, opt.height, 'x' + axis,
               slice_value, as->sdf_dims[0], as->sdf_dims[1], as->sdf_dims[2]);
    else
        printf("wrote %s (%ux%u, %u triangles, mode %s%s)\n", out_path, opt.width, opt.height, triangles,
               cr_render_mode_name(opt.mode), example ? ", example pose" : "");
    cr_render_free_asset(&af);
    return 0;
}
