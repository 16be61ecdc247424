/* cmd_demo.c — `crumple demo` (what `make demo` runs): the main job in one command.
 *
 * Runs the shipped demo scene (data/scenes/demo.scene: a pile of bodies, a
 * steel ball denting a block, the Stanford bunny denting a plate ears first,
 * more as damage models land) through the same code as `crumple run`, draws
 * its frames and a contact sheet into a known folder (build/demo/ by
 * default), then each dented body alone coloured by dent depth
 * (dent_NAME.png) and each plastic body by its example weights
 * (weights_NAME.png), and prints what a game programmer asks first: frames, the
 * time and work of each stage, memory used / high-water / capacity, the final
 * state hash that a replay or another machine must reproduce bit for bit, and
 * where the pictures are. It also records the run as a replay
 * (DIR/demo.crr) and re-simulates it to prove the hashes repeat frame by
 * frame, as a test team's replay would.
 *
 * Notes
 *   - Mesh assets in the scene are cooked on load by the scene loader (an
 *     .obj asset line) into build/cache, so a fresh clone needs nothing
 *     prepared; the bunny is one of the public meshes in data/meshes/
 *     and a missing file is an error naming the scene line.
 *   - Errors: `file:line: message` (scene) or `crumple demo: message`,
 *     non-zero exit.
 */
#include "cli.h"
#include "render_run.h"
#include "replay.h"
#include "scene.h"
#include "stb_ds.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Eye, target (m) and field of view (degrees) that keep the block and the
 * plate in front, where their dents show, and the pile behind to the right. */
#define DEMO_CAMERA "0.0,2.9,4.6,0.1,0.3,-0.9,60"

static void usage(FILE *out) {
    fprintf(out,
            "usage: crumple demo [--scene FILE] [--out DIR] [--frames N] [--every K] [--size WxH] [--camera C]\n"
            "  Runs the demo scene, writes PNG frames (and every frame with a dent) and a contact sheet\n"
            "  that shows each dent as it happens, then a lit close-up of each dented region; prints a summary.\n"
            "  --scene FILE  scene to run (default data/scenes/demo.scene)\n"
            "  --out DIR     where the pictures go (default build/demo)\n"
            "  --frames N    frames to step (default: the scene's)\n"
            "  --every K     draw every K-th frame (default 3)\n"
            "  --size WxH    picture size (default 480x360)\n"
            "  --camera C    as for crumple run (default: the demo's view, " DEMO_CAMERA ")\n");
}

/* Save the recorded run and re-simulate it from the file's own bytes. */
typedef struct demo_outputs {
    cr_replay *rec;
    cr_run_pictures *pics;
} demo_outputs;

/* cr_scene_run's per-frame hook: the frame into the replay, and its picture */
static int frame_outputs(void *user, cr_scene *s, cr_world *w, const cr_scene_frame *fr) {
    demo_outputs *o = user;
    cr_replay_add_frame(o->rec, w, s->frame_inputs, (uint32_t)arrlen(s->frame_inputs));
    return cr_run_pictures_frame(o->pics, s, w, fr->frame) ? 1 : 0;
}

static int record_and_verify(const cr_replay *rec, const char *dir) {
    char path[1024];
    int n = snprintf(path, sizeof path, "%s/demo.crr", dir);
    if (n < 0 || (size_t)n >= sizeof path) {
        fprintf(stderr, "crumple demo: output folder name too long\n");
        return 1;
    }
    cr_replay_error rerr;
    if (cr_replay_save(rec, path, &rerr) != CR_REPLAY_OK) {
        fprintf(stderr, "%s: %s\n", path, rerr.message);
        return 1;
    }
    cr_replay loaded;
    if (cr_replay_load(path, &loaded, &rerr) != CR_REPLAY_OK) {
        fprintf(stderr, "%s: %s\n", path, rerr.message);
        cr_replay_free(&loaded);
        return 1;
    }
    uint64_t t0 = crp_clock_ns();
    cr_replay_verdict v;
    cr_replay_outcome out = cr_replay_verify(&loaded, &v);
    printf("replay       %s: %s (%.2f s)\n", path, v.message, (double)(crp_clock_ns() - t0) / 1e9);
    cr_replay_free(&loaded);
    return out == CR_REPLAY_PASS ? 0 : 1;
}

int cr_cmd_demo(int argc, char **argv) {
    const char *scene_path = "data/scenes/demo.scene";
    long frames_opt = -1;
    cr_run_pictures_options po = cr_run_pictures_default_options();
    po.render_dir = "build/demo";
    po.every = 3;
    po.sheet = 1;
    {
        char err[128];
        if (!cr_camera_spec_parse(DEMO_CAMERA, &po.render.camera, err, sizeof err)) return 1;
    }
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        int pr;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--scene") == 0 && i + 1 < argc) {
            scene_path = argv[++i];
        } else if (strcmp(a, "--out") == 0 && i + 1 < argc) {
            po.render_dir = argv[++i];
        } else if (strcmp(a, "--frames") == 0 && i + 1 < argc) {
            char *end;
            frames_opt = strtol(argv[++i], &end, 10);
            if (*end != 0 || end == argv[i] || frames_opt < 0 || frames_opt > 1000000) {
                fprintf(stderr, "crumple demo: --frames '%s' is not a number in 0..1000000\n", argv[i]);
                return 2;
            }
        } else if ((strcmp(a, "--every") == 0 || strcmp(a, "--size") == 0 || strcmp(a, "--camera") == 0) &&
                   (pr = cr_run_pictures_option(&po, argc, argv, &i)) != 0) {
            if (pr < 0) return 2;
        } else {
            fprintf(stderr, "crumple demo: unknown option or missing value '%s'\n", a);
            usage(stderr);
            return 2;
        }
    }

    uint64_t t_start = crp_clock_ns();
    printf("%s — demo\n", cr_version_string());
    cr_scene *s = NULL;
    cr_scene_error err;
    /* the replay embeds exactly the text that was parsed */
    uint8_t *text = NULL;
    size_t text_size = 0;
    crp_status read_status = crp_read_file(scene_path, &text, &text_size);
    if (read_status != CRP_OK) {
        fprintf(stderr, "%s: cannot read the scene: %s\n", scene_path, crp_status_message(read_status));
        return 1;
    }
    if (cr_scene_parse((const char *)text, text_size, scene_path, &s, &err)) {
        cr_scene_error_print(stderr, &err);
        crp_free(text);
        return 1;
    }
    cr_world *w = NULL;
    uint64_t t_build = crp_clock_ns();
    if (cr_scene_build(s, &w, &err)) {
        cr_scene_error_print(stderr, &err);
        cr_scene_free(s);
        return 1;
    }
    double build_ms = (double)(crp_clock_ns() - t_build) / 1e6;
    printf("scene        %s: %u bodies, %u assets (built in %.1f ms)\n", s->path, cr_world_get_body_ids(w, NULL, 0),
           (unsigned)arrlen(s->assets), build_ms);

    cr_replay rec;
    cr_replay_init(&rec, scene_path, (const char *)text, text_size, w, s->dt);
    crp_free(text);
    int32_t frames = frames_opt >= 0 ? (int32_t)frames_opt : s->frames;
    cr_run_pictures pics;
    int status = cr_run_pictures_begin(&pics, &po, s, w, frames) ? 1 : 0;
    cr_run_stats rs;
    memset(&rs, 0, sizeof rs);
    if (status == 0) {
        demo_outputs out = {&rec, &pics};
        cr_scene_loop loop = {.from = 0, .to = frames, .stats = &rs, .each = frame_outputs, .user = &out};
        int rc = cr_scene_run(s, w, &loop, &err);
        if (rc < 0) cr_scene_error_print(stderr, &err);
        if (rc) status = 1;
    }
    if (status != 0) {
        cr_run_pictures_free(&pics);
        cr_replay_free(&rec);
        cr_cli_world_free(w);
        cr_scene_free(s);
        return 1;
    }
    uint32_t pictures = pics.pictures;
    double draw_ms = pics.ms;
    if (cr_run_pictures_finish(&pics, 0)) status = 1;

    cr_memory_stats m = cr_world_memory_stats(w);
    printf("frames       %d at dt %.6g s: %.2f ms stepping (%.4f ms/frame mean, %.4f max)\n", (int)rs.frames,
           cr_to_double(s->dt), rs.step_ms_total, rs.frames ? rs.step_ms_total / rs.frames : 0.0, rs.step_ms_max);
    /* overflow: items a capacity did not hold (e.g. interference points past
     * the deepest `points` per pair), counted, never silently lost */
    printf("stages       %-12s %10s %12s %10s %12s\n", "", "ms total", "work total", "max/frame", "over cap");
    for (int k = 0; k < CR_STAGE_COUNT; ++k)
        printf("             %-12s %10.3f %12llu %10u %12llu\n", cr_stage_name((cr_stage)k),
               (double)rs.total[k].time_ns / 1e6, (unsigned long long)rs.total[k].work, rs.max_work[k],
               (unsigned long long)rs.total[k].overflow);
    printf("memory       used %zu B, high-water %zu B, capacity %zu B (scratch high-water %zu of %zu B)\n", m.used,
           m.high_water, m.capacity, m.scratch_high_water, m.scratch_capacity);
    printf("state hash   %016llx (%s)\n", (unsigned long long)cr_world_state_hash(w), CR_MODE_NAME);
    if (status == 0)
        printf("pictures     %u frames in %s/ (%.0f ms drawing); contact sheet %s\n", pictures, po.render_dir,
               draw_ms, pics.sheet_path);
    if (status == 0 && cr_run_pictures_dents(s, w, po.render_dir, &po.render, 1) < 0) status = 1;
    if (status == 0) status = record_and_verify(&rec, po.render_dir);
    cr_replay_free(&rec);
    printf("total        %.2f s\n", (double)(crp_clock_ns() - t_start) / 1e9);
    cr_cli_world_free(w);
    cr_scene_free(s);
    return status;
}
