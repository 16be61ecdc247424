/* scene_run.c — the tools' one frame and their one frame loop.
 *
 * Every tool that steps a scene (crumple run, demo, bench, replay --verify,
 * the soak, the fuzz harness) goes through cr_scene_run: per frame the
 * scene's spawns, the frame's inputs (the scene's own, or a replay's recorded
 * ones), one world step of the scene's dt, timed on the wall and CPU clocks,
 * the world's stats added to the run's totals, then the caller's per-frame
 * hook (pictures, recording, hashes, checks). A tool therefore differs from
 * another only in what it does after a frame, never in how it steps one, so
 * a replay steps exactly as the run that recorded it.
 */
#include "scene.h"
#include "cli.h"
#include "scene_squash.h"
#include "stb_ds.h"

#include <time.h>

void cr_run_stats_add(cr_run_stats *rs, const cr_world_stats *ws, double step_ms) {
    for (int k = 0; k < CR_STAGE_COUNT; ++k) {
        rs->total[k].work += ws->stage[k].work;
        rs->total[k].overflow += ws->stage[k].overflow;
        rs->total[k].time_ns += ws->stage[k].time_ns;
        if (ws->stage[k].work > rs->max_work[k]) rs->max_work[k] = ws->stage[k].work;
    }
    rs->frames++;
    rs->step_ms_total += step_ms;
    if (step_ms > rs->step_ms_max) rs->step_ms_max = step_ms;
}

/* Spawns, then the recorded inputs [in, in + count) when `recorded`, else the
 * scene's own, then one step. */
static int one_frame(cr_scene *s, cr_world *w, int32_t frame, bool recorded, const cr_input *in, uint32_t count,
                     cr_scene_error *err) {
    if (!recorded) {
        if (cr_scene_apply_inputs(s, w, frame, err)) return -1;
    } else {
        if (cr_scene_spawn(s, w, frame, err)) return -1;
        cr_status st = cr_world_apply_inputs(w, count ? in : NULL, count);
        if (st != CR_OK)
            return cr_scene_error_set(err, s->path, 0, "a recorded input of frame %d does not apply: %s", frame,
                                      cr_status_message(st));
    }
    /* squishy skeletons posed by the scene's keyframes: scene structure, as spawns (a replay has them from the text) */
    if (s->poses && cr_scene_squash_pose(s, w, frame, err)) return -1;
    cr_status st = cr_world_step(w, s->dt);
    if (st != CR_OK) return cr_scene_error_set(err, s->path, 0, "step %d failed: %s", frame, cr_status_message(st));
    return 0;
}

/* The frame a fracturing body split in, kept on its scene body: the world
 * says only whether it is whole now, and every output (summary, --json,
 * report) says when it broke. */
static void note_fractures(cr_scene *s, const cr_world *w, int32_t frame) {
    for (ptrdiff_t i = 0; i < arrlen(s->bodies); ++i) {
        cr_scene_body *b = &s->bodies[i];
        cr_fracture_view v;
        if (!b->fractures || b->broke_frame >= 0 || cr_body_id_is_null(b->id)) continue;
        if (cr_fracture_get(w, b->id, &v) == CR_OK && !v.whole) b->broke_frame = frame;
    }
}

int cr_scene_run(cr_scene *s, cr_world *w, const cr_scene_loop *loop, cr_scene_error *err) {
    for (int32_t f = loop->from; f < loop->to; ++f) {
        bool recorded = loop->input_first != NULL;
        const cr_input *in = NULL;
        uint32_t count = 0;
        if (recorded) {
            /* a replay with no inputs has a null array, and null + 0 is undefined */
            count = (uint32_t)(loop->input_first[f + 1] - loop->input_first[f]);
            if (count) in = loop->inputs + loop->input_first[f];
        }
        /* a scene's rays and overlaps of frame F see the world as step F - 1
         * left it (frame 0: as built), before frame F's spawns and inputs; each
         * is asked once, so this asks only the first frame's, the rest being
         * asked right after the step before theirs, outside the step's time */
        if (s->queries && cr_scene_ask_queries(s, w, f, err)) return -1;
        uint64_t t0 = crp_clock_ns();
        clock_t c0 = clock();
        if (one_frame(s, w, f, recorded, in, count, err)) return -1;
        note_fractures(s, w, f);
        cr_scene_frame fr;
        fr.frame = f;
        fr.ms = (double)(crp_clock_ns() - t0) / 1e6;
        fr.cpu_ms = 1000.0 * (double)(clock() - c0) / CLOCKS_PER_SEC;
        if (s->queries && cr_scene_ask_queries(s, w, f + 1, err)) return -1;
        fr.stats = cr_world_get_stats(w);
        if (loop->stats) cr_run_stats_add(loop->stats, &fr.stats, fr.ms);
        if (loop->each) {
            int rc = loop->each(loop->user, s, w, &fr);
            if (rc) return rc;
        }
    }
    return 0;
}

int cr_scene_step(cr_scene *s, cr_world *w, int32_t frame, cr_scene_error *err) {
    cr_scene_loop one = {0};
    one.from = frame;
    one.to = frame + 1;
    return cr_scene_run(s, w, &one, err);
}
