/* run_report.h — `crumple run SCENE --report DIR`: one self-contained HTML
 * page about a run, the view engine programmers keep open next to a game.
 *
 * DIR/index.html holds, with no file or network reference outside itself:
 *   - the run as an animation (the APNG of --apng, embedded as a data: URI)
 *   - a per-frame stacked chart of stage times (SVG, one area per stage)
 *   - each per-step work count against its capacity from the world def
 *   - memory over time (used and high water against the block), and the
 *     block region by region (cr_world_memory_report)
 *   - the events timeline: impacts per frame, every dent (frame, body, the
 *     deepest vertex move in its vertices), every fracture (when, how many
 *     pieces), and each body's damage at the end: the numbers and names the
 *     summary prints (tools/run_bodies.c)
 *   - the state-hash trail, one hash per frame
 *   - the world's settings (its def)
 *   - all the numbers above as JSON in <script type="application/json"
 *     id="crumple-run">, which tests/test_run_report.c holds the SVG against.
 *
 * cmd_run.c calls cr_run_report_begin before the first step,
 * cr_run_report_frame after every step (from cr_scene_run's hook) and
 * cr_run_report_finish once the animation is written.
 */
#ifndef CRUMPLE_TOOLS_RUN_REPORT_H
#define CRUMPLE_TOOLS_RUN_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "scene.h"

/// One frame as the report keeps it.
typedef struct cr_report_frame {
    double stage_ms[CR_STAGE_COUNT];
    uint32_t work[CR_STAGE_COUNT];
    uint32_t overflow[CR_STAGE_COUNT];
    uint32_t pairs, manifolds, points, bodies, impacts, dents;
    uint64_t used, high_water;
    uint64_t hash;
} cr_report_frame;

/// One dent, for the timeline.
typedef struct cr_report_dent {
    int32_t frame;
    int32_t body; ///< scene body index, -1 if not a scene body
    double dent_distance; ///< m, the dent map's dent distance at the centre (cr_dent_event.depth): what was asked
    double deepest;       ///< m, the deepest vertex move in the dent's vertices after its step: what the surface did
    uint32_t first_vertex, last_vertex;
} cr_report_dent;

typedef struct cr_run_report {
    const char *dir;
    cr_report_frame *frames; ///< stb_ds, one per stepped frame
    cr_report_dent *dents;   ///< stb_ds
    uint64_t initial_hash;   ///< before the first step
} cr_run_report;

/// Prepare DIR (created) for a run of the world `w` as built. 0, or -1 after printing why.
int cr_run_report_begin(cr_run_report *r, const char *dir, const cr_world *w);
/// Keep frame `frame` (0-based, just stepped). 0, or -1 when out of memory.
int cr_run_report_frame(cr_run_report *r, const cr_scene *s, const cr_world *w, const cr_scene_frame *frame);
/// Write DIR/index.html, embedding the animation file `apng_path` (may be
/// null: no animation). `print`: one line on stdout. 0, or -1 after printing why.
int cr_run_report_finish(cr_run_report *r, const cr_scene *s, const cr_world *w, const char *apng_path, int print);
void cr_run_report_free(cr_run_report *r);

#endif
