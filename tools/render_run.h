/* render_run.h — the pictures of `crumple run`: PNG frames, a contact sheet, OBJ frames.
 *
 *     crumple run SCENE --render DIR [--every K] [--size WxH] [--camera C]
 *                       [--mode M] [--wireframe] [--range MM] [--sheet [--sheet-frames N]] [--dents]
 *                       [--obj DIR] [--apng FILE [--fps N]] [--overlay LIST]
 *
 * cmd_run.c hands each unknown option to cr_run_pictures_option, calls
 * cr_run_pictures_begin before the first step, cr_run_pictures_frame after
 * each step, and cr_run_pictures_finish at the end. Everything else
 * (rendering, file names, the sheet) lives here, so `crumple demo` uses the
 * same code.
 *
 * Notes
 *   - Frame f (0-based) is the state after f steps: frame_00000.png is the
 *     scene as built, before any step. With --every K, frames 0, K, 2K, ...
 *     and always the last one are drawn, and every frame in which a dent was
 *     made (damage is what the pictures are for; it lasts one frame).
 *   - The camera and the floor are fixed from the first picture (the scene as
 *     built), so frames line up; the displacement colour range is fixed by
 *     --range or else grows with the largest dent seen so far.
 *   - The sheet picks up to --sheet-frames (default 12) of the drawn frames:
 *     the frames with dents first (up to all but two), the rest evenly spaced
 *     including the first and last, in frame order; it writes DIR/sheet.png.
 *   - Files are written atomically; the same scene gives the same bytes.
 */
#ifndef CRUMPLE_TOOLS_RENDER_RUN_H
#define CRUMPLE_TOOLS_RENDER_RUN_H

#include <stdint.h>
#include <stdio.h>

#include "apng.h"
#include "raster.h"
#include "render.h"
#include "scene.h"

/// What the picture options asked for.
typedef struct cr_run_pictures_options {
    const char *render_dir;   ///< --render DIR: PNG frames go here (null: no pictures)
    const char *obj_dir;      ///< --obj DIR: OBJ frames go here (null: none)
    int32_t every;            ///< --every K: draw every K-th frame (>= 1)
    int sheet;                ///< --sheet: also write DIR/sheet.png
    int dents;                ///< --dents: at the end, DIR/dent_NAME.png for each dented body
    uint32_t sheet_frames;    ///< --sheet-frames N: frames on the sheet (2..64)
    cr_render_options render; ///< --size, --camera, --mode, --wireframe, --range
    const char *apng_path;    ///< --apng FILE: the drawn frames as one animated PNG (null: none)
    uint32_t fps;             ///< --fps N: its frame rate (0: real time, 1 / (dt x every))
    uint32_t overlay;         ///< --overlay LIST: CR_DRAW_* flags drawn over each frame (render_overlay.h; 0: none)
} cr_run_pictures_options;

/// Defaults: no output, every frame, 480x360, body colours, 12 frames on a sheet.
cr_run_pictures_options cr_run_pictures_default_options(void);

/// If argv[*i] is a picture option, consume it (and its value, advancing *i)
/// and return 1; return 0 if it is not one; return -1 after printing
/// "crumple run: ..." if its value is bad.
int cr_run_pictures_option(cr_run_pictures_options *o, int argc, char **argv, int *i);
/// Check combinations after all options are read (e.g. --sheet without
/// --render). Returns 0, or -1 after printing the problem.
int cr_run_pictures_check(const cr_run_pictures_options *o);
/// The options' lines for a usage text.
void cr_run_pictures_usage(FILE *out);

/// State of the pictures of one run.
typedef struct cr_run_pictures {
    cr_run_pictures_options opt;
    int32_t frames;           ///< steps the run will take
    int active;               ///< any output asked for
    cr_camera camera;         ///< fixed from the first picture
    int have_camera;
    double ground_center[3], ground_half; ///< fixed from the first picture
    double max_displacement;  ///< m, largest seen so far (the colour range without --range)
    uint32_t pictures;        ///< PNG frames written
    uint32_t objs;            ///< OBJ frames written
    uint32_t dent_pictures;   ///< dent close-ups written
    const cr_scene *scene;    ///< the run's scene and world, kept from begin to finish
    const cr_world *world;
    double ms;                ///< wall time spent drawing and writing, ms
    cr_image *sheet_images;   ///< stb_ds: copies of the frames chosen for the sheet
    char **sheet_captions;    ///< stb_ds: their captions (heap strings)
    uint8_t *sheet_dented;    ///< stb_ds: 1 where a dent was made in that frame (drawn whatever --every says)
    char sheet_path[1100];    ///< where the sheet went ("" if none)
    cr_apng apng;             ///< --apng: the frames so far (begun with the first frame)
    int apng_begun;
} cr_run_pictures;

/// Prepare for a run of `frames` steps and draw frame 0 (the scene as built).
/// Creates the output folders. Returns 0, or -1 after printing the problem.
int cr_run_pictures_begin(cr_run_pictures *p, const cr_run_pictures_options *o, const cr_scene *s, const cr_world *w,
                          int32_t frames);
/// After step `step` (0-based) the world is at frame step+1: draw it if due.
int cr_run_pictures_frame(cr_run_pictures *p, const cr_scene *s, const cr_world *w, int32_t step);
/// Write the sheet (if asked) and free everything. `print` non-zero: one
/// line per output folder on stdout. Returns 0, or -1 after printing the problem.
int cr_run_pictures_finish(cr_run_pictures *p, int print);
/// Free without writing anything (after an error).
void cr_run_pictures_free(cr_run_pictures *p);

/// A lit close-up of the dented region of mesh body `id` into *out (free with
/// cr_image_free): displacement colours up to `range` m (0: its own deepest),
/// captioned `label` (null: "NAME: N DENTS, DEEPEST X MM"); *deepest (may be
/// null) gets the deepest displacement. Returns 1, or 0 for a body that is not
/// a mesh or when out of memory.
int cr_run_dent_closeup(const cr_world *w, cr_body_id id, const char *name, const cr_render_options *base, double range,
                        const char *label, cr_image *out, double *deepest);

/// Each mesh body that has dented, drawn alone from above and coloured by
/// dent depth (seed 000 Figures 5 and 10), into DIR/dent_NAME.png (NAME from
/// the scene). `print`: one line per picture on stdout. Returns the number
/// of pictures, or -1 after printing the problem.
int cr_run_pictures_dents(const cr_scene *s, const cr_world *w, const char *dir, const cr_render_options *base,
                          int print);

#endif
