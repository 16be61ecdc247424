/* render_run.c — PNG frames, contact sheet and OBJ frames for `crumple run`.
 * See render_run.h for the options and the file layout.
 */
#include "render_run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "obj_export.h"
#include "platform.h"
#include "png.h"
#include "render_overlay.h"
#include "stb_ds.h"

cr_run_pictures_options cr_run_pictures_default_options(void) {
    cr_run_pictures_options o;
    memset(&o, 0, sizeof o);
    o.every = 1;
    o.sheet_frames = 12;
    o.render = cr_default_render_options();
    return o;
}

static int value_of(int argc, char **argv, int *i, const char **out) {
    if (*i + 1 >= argc) {
        fprintf(stderr, "crumple run: %s needs a value\n", argv[*i]);
        return 0;
    }
    *out = argv[++*i];
    return 1;
}

static int parse_count(const char *opt, const char *text, long lo, long hi, long *out) {
    char *end;
    long v = strtol(text, &end, 10);
    if (end == text || *end != 0 || v < lo || v > hi) {
        fprintf(stderr, "crumple run: %s '%s' is not a number in %ld..%ld\n", opt, text, lo, hi);
        return 0;
    }
    *out = v;
    return 1;
}

int cr_run_pictures_option(cr_run_pictures_options *o, int argc, char **argv, int *i) {
    const char *a = argv[*i], *v = NULL;
    char err[256];
    long n;
    if (strcmp(a, "--render") == 0) {
        if (!value_of(argc, argv, i, &v)) return -1;
        o->render_dir = v;
    } else if (strcmp(a, "--obj") == 0) {
        if (!value_of(argc, argv, i, &v)) return -1;
        o->obj_dir = v;
    } else if (strcmp(a, "--every") == 0) {
        if (!value_of(argc, argv, i, &v) || !parse_count(a, v, 1, 1000000, &n)) return -1;
        o->every = (int32_t)n;
    } else if (strcmp(a, "--sheet") == 0) {
        o->sheet = 1;
    } else if (strcmp(a, "--sheet-frames") == 0) {
        if (!value_of(argc, argv, i, &v) || !parse_count(a, v, 2, 64, &n)) return -1;
        o->sheet = 1;
        o->sheet_frames = (uint32_t)n;
    } else if (strcmp(a, "--size") == 0) {
        if (!value_of(argc, argv, i, &v)) return -1;
        if (!cr_render_size_parse(v, &o->render.width, &o->render.height, err, sizeof err)) {
            fprintf(stderr, "crumple run: %s\n", err);
            return -1;
        }
    } else if (strcmp(a, "--camera") == 0) {
        if (!value_of(argc, argv, i, &v)) return -1;
        if (!cr_camera_spec_parse(v, &o->render.camera, err, sizeof err)) {
            fprintf(stderr, "crumple run: %s\n", err);
            return -1;
        }
    } else if (strcmp(a, "--mode") == 0) {
        if (!value_of(argc, argv, i, &v)) return -1;
        if (!cr_render_mode_parse(v, &o->render.mode) || o->render.mode == CR_RENDER_SDF) {
            fprintf(stderr, "crumple run: --mode '%s': expected body, displacement, bone or weights\n", v);
            return -1;
        }
    } else if (strcmp(a, "--dents") == 0) {
        o->dents = 1;
    } else if (strcmp(a, "--apng") == 0) {
        if (!value_of(argc, argv, i, &v)) return -1;
        o->apng_path = v;
    } else if (strcmp(a, "--fps") == 0) {
        if (!value_of(argc, argv, i, &v) || !parse_count(a, v, 1, 1000, &n)) return -1;
        o->fps = (uint32_t)n;
    } else if (strcmp(a, "--wireframe") == 0) {
        o->render.wireframe = 1;
    } else if (strcmp(a, "--supersample") == 0) {
        if (!value_of(argc, argv, i, &v) || !parse_count(a, v, 1, 4, &n)) return -1;
        o->render.supersample = (int)n;
    } else if (strcmp(a, "--range") == 0) {
        if (!value_of(argc, argv, i, &v)) return -1;
        char *end;
        double mm = strtod(v, &end);
        if (end == v || *end != 0 || !(mm > 0.0 && mm < 1e9)) {
            fprintf(stderr, "crumple run: --range '%s' is not a positive length in mm\n", v);
            return -1;
        }
        o->render.range = mm / 1000.0;
    } else if (strcmp(a, "--overlay") == 0) {
        if (!value_of(argc, argv, i, &v)) return -1;
        if (!cr_render_overlay_parse(v, &o->overlay, err, sizeof err)) {
            fprintf(stderr, "crumple run: --overlay: %s\n", err);
            return -1;
        }
    } else {
        return 0;
    }
    return 1;
}

int cr_run_pictures_check(const cr_run_pictures_options *o) {
    if (o->sheet && o->render_dir == NULL) {
        fprintf(stderr, "crumple run: --sheet needs --render DIR (the sheet is written there)\n");
        return -1;
    }
    if (o->dents && o->render_dir == NULL) {
        fprintf(stderr, "crumple run: --dents needs --render DIR (the close-ups are written there)\n");
        return -1;
    }
    return 0;
}

void cr_run_pictures_usage(FILE *out) {
    fprintf(out,
            "  --render DIR     write PNG frames DIR/frame_NNNNN.png (frame 0 = the scene as built)\n"
            "  --every K        draw every K-th frame (and the last)\n"
            "  --size WxH       picture size in pixels (default 480x360)\n"
            "  --camera C       iso|front|back|left|right|top[,FOV] or EX,EY,EZ[,TX,TY,TZ[,FOV]]\n"
            "  --mode M         body | displacement | bone | weights (docs/render.md)\n"
            "  --wireframe      overlay triangle edges\n"
            "  --supersample N  draw N times larger and average down, 1..4 (default 2)\n"
            "  --range MM       displacement that gets the hottest colour (default: largest so far)\n"
            "  --sheet          also write DIR/sheet.png, a contact sheet of the run\n"
            "  --sheet-frames N frames on the sheet (default 12)\n"
            "  --dents          at the end, each dented body alone by dent depth: DIR/dent_NAME.png,\n"
            "                   and each plastic body by example weights: DIR/weights_NAME.png\n"
            "  --obj DIR        write the deformed meshes as DIR/frame_NNNNN.obj\n"
            "  --apng FILE      write the drawn frames (--every, --size, --camera...) as one animated PNG\n"
            "  --fps N          its frame rate, 1..1000 (default: real time, 1 / (dt x every))\n"
            "  --overlay LIST   draw the runtime's debug draw over each frame: bodies,sleep,contacts,joints,\n"
            "                   cells,dents,bones,sensors,queries (the scene's rays and overlaps, their hits)\n"
            "                   or all (contact points need `capacity touches`)\n");
}

static int drawn(const cr_run_pictures *p, int32_t f) { return f % p->opt.every == 0 || f == p->frames; }

/* Ordinal of frame f among the drawn frames. */
static uint32_t ordinal(const cr_run_pictures *p, int32_t f) {
    return (uint32_t)(f / p->opt.every) + (f == p->frames && f % p->opt.every != 0 ? 1u : 0u);
}

static int on_sheet(const cr_run_pictures *p, int32_t f) {
    if (!p->opt.sheet) return 0;
    uint32_t total = ordinal(p, p->frames) + 1, d = ordinal(p, f), n = p->opt.sheet_frames;
    if (total <= n) return 1;
    for (uint32_t j = 0; j < n; ++j)
        if ((uint64_t)j * (total - 1) / (n - 1) == d) return 1;
    return 0;
}

static int output(cr_run_pictures *p, const cr_scene *s, const cr_world *w, int32_t f, int dented) {
    uint64_t t0 = crp_clock_ns();
    double t = (double)f * cr_to_double(s->dt);
    cr_render_options ro = p->opt.render;
    /* the label goes on after the sheet's copy is taken: the sheet has captions */
    char label[96];
    snprintf(label, sizeof label, "FRAME %d  T=%.3f S", (int)f, t);
    ro.label[0] = 0;
    cr_render_scene scene;
    cr_render_scene_init(&scene);
    if (p->have_camera) {
        memcpy(scene.ground_center, p->ground_center, sizeof p->ground_center);
        scene.ground_half = p->ground_half;
        scene.ground_fixed = 1;
    }
    if (!cr_render_scene_add_world(&scene, w, NULL, 0, &ro)) goto oom;
    if (!p->have_camera) {
        /* frame a box 30% larger than the bodies as built: piles spread and balls bounce */
        cr_render_scene grown = scene;
        for (int k = 0; k < 3; ++k) {
            double c = 0.5 * (scene.bmin[k] + scene.bmax[k]), h = 0.65 * (scene.bmax[k] - scene.bmin[k]);
            grown.bmin[k] = c - h;
            grown.bmax[k] = c + h;
        }
        p->camera = cr_render_fit_camera(&ro.camera, &grown, ro.width, ro.height);
        memcpy(p->ground_center, scene.ground_center, sizeof p->ground_center);
        p->ground_half = scene.ground_half;
        p->have_camera = 1;
    }
    if (scene.max_displacement > p->max_displacement) p->max_displacement = scene.max_displacement;
    if (ro.range <= 0.0) ro.range = p->max_displacement > 1e-6 ? p->max_displacement : 1e-3;
    char path[1100], err[1300];
    if (p->opt.render_dir || p->opt.apng_path) {
        cr_image img;
        if (!cr_render_draw(&scene, &p->camera, &ro, &img)) goto oom;
        if (p->opt.overlay != 0) cr_render_overlay(&img, &p->camera, w, s, p->opt.overlay);
        if ((drawn(p, f) && on_sheet(p, f)) || (dented && p->opt.sheet)) {
            char caption[64];
            snprintf(caption, sizeof caption, "%d  %.2f S%s", (int)f, t, dented ? "  DENT" : "");
            char *c = (char *)malloc(strlen(caption) + 1);
            if (c == NULL) {
                cr_image_free(&img);
                goto oom;
            }
            memcpy(c, caption, strlen(caption) + 1);
            cr_image copy;
            if (!cr_image_init(&copy, img.width, img.height, 0)) {
                free(c);
                cr_image_free(&img);
                goto oom;
            }
            memcpy(copy.rgb, img.rgb, (size_t)img.width * img.height * 3);
            arrput(p->sheet_images, copy);
            arrput(p->sheet_captions, c);
            arrput(p->sheet_dented, (uint8_t)(dented != 0));
        }
        if (p->opt.render.legend) cr_render_label(&img, label);
        cr_png_status ps = CR_PNG_OK;
        if (p->opt.apng_path) {
            if (!p->apng_begun) {
                uint32_t fps = p->opt.fps;
                if (fps == 0) {
                    double real = 1.0 / (cr_to_double(s->dt) * p->opt.every);
                    fps = real < 1.0 ? 1u : real > 1000.0 ? 1000u : (uint32_t)(real + 0.5);
                }
                ps = cr_apng_begin(&p->apng, img.width, img.height, fps);
                p->apng_begun = ps == CR_PNG_OK;
            }
            if (ps == CR_PNG_OK) ps = cr_apng_add_frame(&p->apng, img.rgb);
            snprintf(path, sizeof path, "%s", p->opt.apng_path);
        }
        if (ps == CR_PNG_OK && p->opt.render_dir) {
            snprintf(path, sizeof path, "%s/frame_%05d.png", p->opt.render_dir, (int)f);
            ps = cr_png_write_file(path, img.rgb, img.width, img.height, 3, CR_PNG_FIXED);
            if (ps == CR_PNG_OK) p->pictures++;
        }
        cr_image_free(&img);
        if (ps != CR_PNG_OK) {
            fprintf(stderr, "%s: cannot write PNG: %s\n", path, cr_png_status_message(ps));
            cr_render_scene_free(&scene);
            return -1;
        }
    }
    if (p->opt.obj_dir) {
        snprintf(path, sizeof path, "%s/frame_%05d.obj", p->opt.obj_dir, (int)f);
        char comment[1200];
        snprintf(comment, sizeof comment, "scene %s, frame %d, t = %.6f s", s->path, (int)f, t);
        if (!cr_render_export_obj(&scene, path, comment, err, sizeof err)) {
            fprintf(stderr, "%s\n", err);
            cr_render_scene_free(&scene);
            return -1;
        }
        p->objs++;
    }
    cr_render_scene_free(&scene);
    p->ms += (double)(crp_clock_ns() - t0) / 1e6;
    return 0;
oom:
    fprintf(stderr, "crumple run: out of memory drawing frame %d\n", (int)f);
    cr_render_scene_free(&scene);
    return -1;
}

/* Close-ups: in the run's pictures the projectile sits in its dent and the
 * dent is a few pixels wide, so each dented body is also drawn alone; each
 * plastic body (seed 001) too, coloured by its example weights. */
int cr_run_dent_closeup(const cr_world *w, cr_body_id id, const char *name, const cr_render_options *base, double range,
                        const char *label, cr_image *out, double *deepest_out) {
    cr_shape_def shape = cr_body_get_shape(w, id);
    cr_body_mesh bm;
    if (shape.type != CR_SHAPE_MESH || cr_body_get_mesh(w, id, &bm) != CR_OK) return 0;
    const cr_asset *as = cr_world_get_asset(w, shape.asset);
    if (as == NULL || as->vertex_count != bm.vertex_count) return 0;
    cr_render_options opt = *base;
    opt.mode = CR_RENDER_DISPLACEMENT;
    opt.range = range;
    /* A close-up of the dented region, lit from the camera's shoulder: the
     * camera looks along the dented surface's mean normal, tilted 40
     * degrees or so, so the hollow reads by its shading as well as its
     * colour; framed on the moved vertices (and a margin of half their
     * size), not on the whole body, where a dent is a few pixels. */
    cr_transform bx = cr_body_get_transform(w, id);
    double lo[3] = {1e30, 1e30, 1e30}, hi[3] = {-1e30, -1e30, -1e30}, nsum[3] = {0, 0, 0};
    uint32_t moved = 0;
    /* the dent's attenuation reaches deep into a body by tiny amounts (a
     * thin plate's far face moves too): the region is the vertices moved
     * by a tenth of the deepest or more, their normals weighted by depth */
    double deepest_v = 0;
    for (uint32_t v = 0; v < bm.vertex_count; ++v) {
        double d = cr_to_double(cr_v3_len(cr_v3_sub(bm.positions[v], cr_v3_sub(bm.rest_positions[v], bm.rest_offset))));
        if (d > deepest_v) deepest_v = d;
    }
    for (uint32_t v = 0; v < bm.vertex_count && deepest_v > 0; ++v) {
        cr_vec3 a = bm.positions[v];
        double d = cr_to_double(cr_v3_len(cr_v3_sub(a, cr_v3_sub(bm.rest_positions[v], bm.rest_offset))));
        if (d < 0.1 * deepest_v) continue;
        cr_vec3 wp = cr_transform_point(bx, a), wn = cr_quat_rotate(bx.q, bm.normals[v]);
        double q[3] = {cr_to_double(wp.x), cr_to_double(wp.y), cr_to_double(wp.z)};
        for (int k = 0; k < 3; ++k) lo[k] = q[k] < lo[k] ? q[k] : lo[k], hi[k] = q[k] > hi[k] ? q[k] : hi[k];
        nsum[0] += d * cr_to_double(wn.x), nsum[1] += d * cr_to_double(wn.y), nsum[2] += d * cr_to_double(wn.z);
        ++moved;
    }
    opt.camera = cr_default_camera_spec();
    double nl = sqrt(nsum[0] * nsum[0] + nsum[1] * nsum[1] + nsum[2] * nsum[2]);
    if (moved > 0 && nl > 0) {
        /* the normal, plus a sideways lean that is never parallel to it */
        double side[3] = {0.55, 0.3, 0.75};
        for (int k = 0; k < 3; ++k) opt.camera.dir[k] = nsum[k] / nl + 0.8 * side[k];
    } else {
        opt.camera.dir[0] = 0.35, opt.camera.dir[1] = 1.0, opt.camera.dir[2] = 0.75;
    }
    cr_render_body b;
    memset(&b, 0, sizeof b);
    b.id = id.index1 - 1;
    b.shape = shape;
    b.xf = bx;
    b.asset = as;
    b.positions = bm.positions;
    b.rest_positions = bm.rest_positions;
    b.rest_offset = bm.rest_offset;
    cr_render_scene scene;
    cr_render_scene_init(&scene);
    int ok = cr_render_scene_add_body(&scene, &b, &opt) && cr_render_scene_finish(&scene);
    if (ok && moved > 0) {
        for (int k = 0; k < 3; ++k) {
            double c = 0.5 * (lo[k] + hi[k]), h = 0.5 * (hi[k] - lo[k]);
            h = h * 1.5 + 0.01; /* half again, and a centimetre, around the dent */
            scene.bmin[k] = c - h, scene.bmax[k] = c + h;
        }
        scene.has_bounds = 1;
    }
    if (label != NULL)
        snprintf(opt.label, sizeof opt.label, "%s", label);
    else
        snprintf(opt.label, sizeof opt.label, "%s: %u DENT%s, DEEPEST %.1f MM", name, bm.dent_count,
                 bm.dent_count == 1 ? "" : "S", scene.max_displacement * 1000.0);
    cr_camera cam = cr_render_fit_camera(&opt.camera, &scene, opt.width, opt.height);
    ok = ok && cr_render_draw(&scene, &cam, &opt, out);
    if (deepest_out != NULL) *deepest_out = scene.max_displacement;
    cr_render_scene_free(&scene);
    return ok;
}


/* A plastic body (seed 001) alone, coloured by its example weights and seen
 * from the side of the vertex that moved furthest off the rest pose; *moved
 * is that vertex's weight off the rest example. */
static int weights_closeup(const cr_world *w, cr_body_id id, const char *name, const cr_render_options *base,
                           const cr_example_view *ev, cr_image *out, double *moved) {
    cr_shape_def shape = cr_body_get_shape(w, id);
    cr_body_mesh bm;
    if (shape.type != CR_SHAPE_MESH || cr_body_get_mesh(w, id, &bm) != CR_OK) return 0;
    const cr_asset *as = cr_world_get_asset(w, shape.asset);
    if (as == NULL || as->vertex_count != bm.vertex_count) return 0;
    cr_render_options opt = *base;
    opt.mode = CR_RENDER_WEIGHTS;
    opt.range = 0;
    opt.camera = cr_default_camera_spec();
    opt.camera.dir[0] = 0.35, opt.camera.dir[1] = 1.0, opt.camera.dir[2] = 0.75;
    cr_render_body b;
    memset(&b, 0, sizeof b);
    b.id = id.index1 - 1;
    b.shape = shape;
    b.xf = cr_body_get_transform(w, id);
    b.asset = as;
    b.positions = bm.positions;
    b.rest_positions = bm.rest_positions;
    b.rest_offset = bm.rest_offset;
    b.example_weights = ev->weights, b.example_count = ev->example_count;
    cr_render_scene scene;
    cr_render_scene_init(&scene);
    int ok = cr_render_scene_add_body(&scene, &b, &opt) && cr_render_scene_finish(&scene);
    uint32_t most = 0;
    *moved = 0;
    for (uint32_t k = 0; k < ev->vertex_count; ++k) {
        double off = 1 - cr_to_double(ev->weights[k * ev->example_count]);
        if (off > *moved) *moved = off, most = k;
    }
    if (*moved > 0) {
        cr_vec3 side = cr_quat_rotate(b.xf.q, bm.positions[most]);
        double len = sqrt(cr_to_double(cr_v3_len_sq(side)));
        if (len > 0)
            for (int k = 0; k < 3; ++k) opt.camera.dir[k] = 0.5 * opt.camera.dir[k] + cr_to_double((&side.x)[k]) / len;
    }
    snprintf(opt.label, sizeof opt.label, "%.24s: EXAMPLE WEIGHTS, %.2f OFF REST", name, *moved);
    cr_camera cam = cr_render_fit_camera(&opt.camera, &scene, opt.width, opt.height);
    ok = ok && cr_render_draw(&scene, &cam, &opt, out);
    cr_render_scene_free(&scene);
    return ok;
}
/* A squashed body (seed 003) in place, with the bodies pressing it: the
 * body alone (above) shows the dent by colour, but the bulge is a few
 * centimetres and reads best as a ring rising round the other body. The
 * camera looks at the moved skin (vertices moved by a twentieth of the
 * largest or more, so the bulge is in) from 25 degrees above its mean rest
 * surface, along the surface towards the world's +z (the demo camera's
 * side), framed on the moved region and half as much again around it. */
static int squash_in_place(const cr_world *w, cr_body_id id, const char *name, const cr_render_options *base,
                           cr_image *out) {
    cr_body_mesh bm;
    if (cr_body_get_mesh(w, id, &bm) != CR_OK) return 0;
    cr_transform bx = cr_body_get_transform(w, id);
    double deepest = 0;
    for (uint32_t v = 0; v < bm.vertex_count; ++v) {
        double d = cr_to_double(cr_v3_len(cr_v3_sub(bm.positions[v], cr_v3_sub(bm.rest_positions[v], bm.rest_offset))));
        if (d > deepest) deepest = d;
    }
    double lo[3] = {1e30, 1e30, 1e30}, hi[3] = {-1e30, -1e30, -1e30}, n[3] = {0, 0, 0};
    uint32_t moved = 0;
    for (uint32_t v = 0; v < bm.vertex_count && deepest > 0; ++v) {
        cr_vec3 r = cr_v3_sub(bm.rest_positions[v], bm.rest_offset);
        if (cr_to_double(cr_v3_len(cr_v3_sub(bm.positions[v], r))) < 0.05 * deepest) continue;
        cr_vec3 wp = cr_transform_point(bx, bm.positions[v]);
        double q[3] = {cr_to_double(wp.x), cr_to_double(wp.y), cr_to_double(wp.z)};
        for (int k = 0; k < 3; ++k) lo[k] = fmin(lo[k], q[k]), hi[k] = fmax(hi[k], q[k]);
        ++moved;
    }
    if (moved == 0) return 0;
    /* the rest surface's normal there: the skin's outward normal at rest, from the body's rest mesh
     * is not kept, so the normal of the moved region's box face that points most up is used: the
     * direction from the body's centre to the region's centre, which is the rest normal on a blob
     * and the face's normal on a slab's face */
    cr_vec3 centre = bx.p;
    double c[3];
    for (int k = 0; k < 3; ++k) c[k] = 0.5 * (lo[k] + hi[k]);
    n[0] = c[0] - cr_to_double(centre.x), n[1] = c[1] - cr_to_double(centre.y), n[2] = c[2] - cr_to_double(centre.z);
    /* on a slab the centre-to-contact direction leans; the largest component is the face */
    int big = fabs(n[1]) >= fabs(n[0]) && fabs(n[1]) >= fabs(n[2]) ? 1 : fabs(n[0]) >= fabs(n[2]) ? 0 : 2;
    double face[3] = {0, 0, 0}, toward[3] = {0.35, 0, 1}, t[3];
    face[big] = n[big] >= 0 ? 1 : -1;
    double dt = toward[0] * face[0] + toward[1] * face[1] + toward[2] * face[2], tl = 0;
    for (int k = 0; k < 3; ++k) t[k] = toward[k] - dt * face[k], tl += t[k] * t[k];
    tl = sqrt(tl);
    if (tl < 1e-6) t[0] = 1, t[1] = t[2] = 0, tl = 1;
    cr_render_options opt = *base;
    opt.mode = CR_RENDER_DISPLACEMENT;
    opt.range = deepest;
    opt.camera = cr_default_camera_spec();
    opt.camera.fov_y = 30;
    for (int k = 0; k < 3; ++k) opt.camera.dir[k] = 0.47 * face[k] + 1.0 * t[k] / tl; /* 25 degrees above */
    cr_render_scene scene;
    cr_render_scene_init(&scene);
    int ok = cr_render_scene_add_world(&scene, w, NULL, 0, &opt);
    if (ok) {
        for (int k = 0; k < 3; ++k) {
            double h = 0.5 * (hi[k] - lo[k]) * 1.5 + 0.02;
            scene.bmin[k] = c[k] - h, scene.bmax[k] = c[k] + h;
        }
        scene.has_bounds = 1;
        snprintf(opt.label, sizeof opt.label, "%.40s IN PLACE: DENT AND BULGE, %.1f MM", name, deepest * 1000.0);
        cr_camera cam = cr_render_fit_camera(&opt.camera, &scene, opt.width, opt.height);
        ok = cr_render_draw(&scene, &cam, &opt, out);
    }
    cr_render_scene_free(&scene);
    return ok;
}

int cr_run_pictures_dents(const cr_scene *s, const cr_world *w, const char *dir, const cr_render_options *base,
                          int print) {
    uint32_t n = cr_world_get_body_ids(w, NULL, 0);
    cr_body_id *ids = (cr_body_id *)malloc(sizeof(cr_body_id) * (n ? n : 1));
    if (ids == NULL) return -1;
    n = cr_world_get_body_ids(w, ids, n);
    int written = 0;
    for (uint32_t i = 0; i < n; ++i) {
        cr_body_mesh bm;
        cr_example_view ev;
        const int plastic = cr_example_get(w, ids[i], &ev) == CR_OK;
        /* a squishy body (seed 003) pressed at the end of the run is drawn the same way: its dent and bulge */
        cr_squash_view sv;
        const bool squashed = cr_squash_get(w, ids[i], &sv) == CR_OK && sv.zone_vertices > 0;
        if (cr_body_get_shape(w, ids[i]).type != CR_SHAPE_MESH || cr_body_get_mesh(w, ids[i], &bm) != CR_OK ||
            (bm.dent_count == 0 && !plastic && !squashed))
            continue;
        uint64_t ud = cr_body_get_user_data(w, ids[i]);
        const char *name = ud >= 1 && ud <= (uint64_t)arrlen(s->bodies) ? s->bodies[ud - 1].name : "body";
        cr_image img;
        double deepest = 0, moved = 0;
        char label[96];
        snprintf(label, sizeof label, "%.40s: SQUASHED, %u VERTICES", name, squashed ? sv.zone_vertices : 0u);
        int ok = plastic ? weights_closeup(w, ids[i], name, base, &ev, &img, &moved)
                         : cr_run_dent_closeup(w, ids[i], name, base, 0, squashed ? label : NULL, &img, &deepest);
        if (!ok) {
            fprintf(stderr, "crumple: out of memory drawing the dent of '%s'\n", name);
            free(ids);
            return -1;
        }
        char path[1200];
        snprintf(path, sizeof path, "%s/%s_%s.png", dir, plastic ? "weights" : squashed ? "squash" : "dent", name);
        cr_png_status ps = cr_png_write_file(path, img.rgb, img.width, img.height, 3, CR_PNG_FIXED);
        cr_image_free(&img);
        if (ps != CR_PNG_OK) {
            fprintf(stderr, "%s: cannot write PNG: %s\n", path, cr_png_status_message(ps));
            free(ids);
            return -1;
        }
        if (print && plastic)
            printf("plastic      %s: weights off the rest pose up to %.2f -> %s\n", name, moved, path);
        else if (print && squashed)
            printf("squash       %s: %u skin vertices moved, largest %.1f mm -> %s\n", name, sv.zone_vertices, deepest * 1000.0, path);
        else if (print)
            printf("dent         %s: %u dent%s, deepest vertex move %.2f mm -> %s\n", name, bm.dent_count,
                   bm.dent_count == 1 ? "" : "s", deepest * 1000.0, path);
        if (squashed) {
            /* and in place, with what presses it */
            snprintf(path, sizeof path, "%s/squash_%s_closeup.png", dir, name);
            if (squash_in_place(w, ids[i], name, base, &img)) {
                ps = cr_png_write_file(path, img.rgb, img.width, img.height, 3, CR_PNG_FIXED);
                cr_image_free(&img);
                if (ps != CR_PNG_OK) {
                    fprintf(stderr, "%s: cannot write PNG: %s\n", path, cr_png_status_message(ps));
                    free(ids);
                    return -1;
                }
                if (print) printf("squash       %s: in place, dent and bulge -> %s\n", name, path);
            }
        }
        ++written;
    }
    free(ids);
    return written;
}

static int make_dir(const char *dir) {
    crp_status st = crp_make_dirs(dir);
    if (st != CRP_OK) {
        fprintf(stderr, "%s: cannot create folder: %s\n", dir, crp_status_message(st));
        return -1;
    }
    return 0;
}

int cr_run_pictures_begin(cr_run_pictures *p, const cr_run_pictures_options *o, const cr_scene *s, const cr_world *w,
                          int32_t frames) {
    memset(p, 0, sizeof *p);
    p->opt = *o;
    if (p->opt.every < 1) p->opt.every = 1;
    if (p->opt.sheet_frames < 2) p->opt.sheet_frames = 2;
    p->frames = frames;
    p->scene = s;
    p->world = w;
    p->active = o->render_dir != NULL || o->obj_dir != NULL || o->apng_path != NULL;
    if (!p->active) return 0;
    if (o->render_dir && make_dir(o->render_dir)) return -1;
    if (o->obj_dir && make_dir(o->obj_dir)) return -1;
    return output(p, s, w, 0, 0);
}

int cr_run_pictures_frame(cr_run_pictures *p, const cr_scene *s, const cr_world *w, int32_t step) {
    if (!p->active) return 0;
    int dented = cr_world_get_dent_events(w, NULL, 0) > 0;
    if (!drawn(p, step + 1) && !dented) return 0;
    return output(p, s, w, step + 1, dented);
}

/* The sheet's frames among the candidates kept during the run: every dented
 * frame (up to n - 2 of them), then evenly spaced regular ones (the first and
 * the last among them) up to n, in frame order. keep[i] says which. */
static void sheet_pick(const cr_run_pictures *p, uint8_t *keep) {
    uint32_t total = (uint32_t)arrlen(p->sheet_images), n = p->opt.sheet_frames, dents = 0, regular = 0;
    for (uint32_t i = 0; i < total; ++i) {
        keep[i] = total <= n;
        if (p->sheet_dented[i]) dents++;
        else regular++;
    }
    if (total <= n) return;
    uint32_t take_dents = dents < n - 2 ? dents : n - 2, left = n - take_dents;
    for (uint32_t i = 0, d = 0; i < total; ++i)
        if (p->sheet_dented[i] && d < take_dents) keep[i] = 1, d++;
    if (left > regular) left = regular;
    for (uint32_t i = 0, r = 0, j = 0; i < total && j < left; ++i) {
        if (p->sheet_dented[i]) continue;
        /* regular candidate r is chosen when it is the j-th of `left` evenly spaced picks */
        uint32_t want = left > 1 ? (uint32_t)((uint64_t)j * (regular - 1) / (left - 1)) : 0;
        if (r == want) keep[i] = 1, j++;
        r++;
    }
}

void cr_run_pictures_free(cr_run_pictures *p) {
    for (ptrdiff_t i = 0; i < arrlen(p->sheet_images); ++i) {
        cr_image_free(&p->sheet_images[i]);
        free(p->sheet_captions[i]);
    }
    arrfree(p->sheet_images);
    arrfree(p->sheet_captions);
    arrfree(p->sheet_dented);
    cr_apng_free(&p->apng);
    p->apng_begun = 0;
    p->active = 0;
}

int cr_run_pictures_finish(cr_run_pictures *p, int print) {
    int rc = 0;
    if (p->active && p->opt.sheet && arrlen(p->sheet_images) > 0) {
        uint64_t t0 = crp_clock_ns();
        cr_image sheet;
        uint32_t factor = p->sheet_images[0].width >= 320 ? 2 : 1;
        uint32_t total = (uint32_t)arrlen(p->sheet_images), count = 0;
        uint8_t *keep = malloc(total);
        cr_image *images = malloc(total * sizeof *images);
        const char **captions = malloc(total * sizeof *captions);
        if (keep != NULL && images != NULL && captions != NULL) {
            sheet_pick(p, keep);
            for (uint32_t i = 0; i < total; ++i)
                if (keep[i]) images[count] = p->sheet_images[i], captions[count++] = p->sheet_captions[i];
        }
        int made = count > 0 && cr_render_contact_sheet(images, captions, count, factor, &sheet);
        free(keep), free(images), free(captions);
        if (!made) {
            fprintf(stderr, "crumple run: out of memory making the contact sheet\n");
            rc = -1;
        } else {
            snprintf(p->sheet_path, sizeof p->sheet_path, "%s/sheet.png", p->opt.render_dir);
            cr_png_status ps = cr_png_write_file(p->sheet_path, sheet.rgb, sheet.width, sheet.height, 3, CR_PNG_FIXED);
            cr_image_free(&sheet);
            if (ps != CR_PNG_OK) {
                fprintf(stderr, "%s: cannot write PNG: %s\n", p->sheet_path, cr_png_status_message(ps));
                p->sheet_path[0] = 0;
                rc = -1;
            }
        }
        p->ms += (double)(crp_clock_ns() - t0) / 1e6;
    }
    if (p->active && rc == 0 && p->opt.dents) {
        int n = cr_run_pictures_dents(p->scene, p->world, p->opt.render_dir, &p->opt.render, print);
        if (n < 0) rc = -1;
        else p->dent_pictures = (uint32_t)n;
    }
    if (p->active && rc == 0 && p->apng_begun) {
        cr_png_status ps = cr_apng_write_file(&p->apng, p->opt.apng_path);
        if (ps != CR_PNG_OK) {
            fprintf(stderr, "%s: cannot write the animated PNG: %s\n", p->opt.apng_path, cr_png_status_message(ps));
            rc = -1;
        } else if (print) {
            printf("animation    %u frames at %u fps, %ux%u -> %s\n", p->apng.frame_count, p->apng.fps, p->apng.width,
                   p->apng.height, p->opt.apng_path);
        }
    }
    if (print && p->active && rc == 0) {
        if (p->opt.render_dir)
            printf("pictures     %u PNG frames in %s/%s%s (%.0f ms drawing)\n", p->pictures, p->opt.render_dir,
                   p->sheet_path[0] ? ", contact sheet " : "", p->sheet_path, p->ms);
        if (p->opt.obj_dir) printf("obj          %u OBJ frames in %s/\n", p->objs, p->opt.obj_dir);
    }
    cr_run_pictures_free(p);
    return rc;
}
