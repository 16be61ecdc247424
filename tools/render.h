/* render.h — pictures of a crumple world or asset: camera, colour modes,
 * tessellation of the analytic shapes, and drawing through raster.h.
 *
 * Usage (one picture of a world):
 *     cr_render_options opt = cr_default_render_options();
 *     opt.mode = CR_RENDER_DISPLACEMENT;
 *     cr_render_scene scene;
 *     cr_render_scene_init(&scene);
 *     cr_render_scene_add_world(&scene, world, assets, asset_count, &opt);
 *     cr_camera cam = cr_render_fit_camera(&opt.camera, &scene, opt.width, opt.height);
 *     cr_image img;
 *     if (cr_render_draw(&scene, &cam, &opt, &img)) { cr_png_write_file(...img.rgb...); cr_image_free(&img); }
 *     cr_render_scene_free(&scene);
 *
 * Notes
 *   - A scene is plain geometry in world space (double), built from bodies:
 *     spheres as cube-spheres, boxes as six quads, planes as a finite checker
 *     quad sized to the other bodies, meshes from their asset (or from the
 *     deformed positions the caller passes). Each vertex gets its colour from
 *     the mode when the body is added, so a scene is drawn the same way twice.
 *   - The camera is resolved once from the scene bounds (planes excluded) and
 *     may then be kept for a whole sequence so that frames line up.
 *   - Everything is double arithmetic with sqrt as the only libm call (the
 *     field-of-view tangent is a series of our own), so pictures are the same
 *     bytes on every machine for the same world state.
 *   - Colour modes follow the seeds' figures: by body; by displacement from
 *     the rest shape (dent depth, seed 000 Figures 5/10/11); by skinning bone
 *     and by example weights (seed 001 Figures 7/8); the SDF as a slice image.
 */
#ifndef CRUMPLE_TOOLS_RENDER_H
#define CRUMPLE_TOOLS_RENDER_H

#include <stddef.h>
#include <stdint.h>

#include "crumple/asset.h"
#include "crumple/crumple.h"
#include "raster.h"

/// A perspective camera: eye looks at target, up is roughly up.
typedef struct cr_camera {
    double eye[3];    ///< m, world space
    double target[3]; ///< m, world space
    double up[3];     ///< any vector not parallel to target - eye
    double fov_y;     ///< vertical field of view, degrees (1..170)
} cr_camera;

/// How the user asked for the camera: a named direction with automatic
/// framing, or an explicit eye (and target). Parsed from `--camera`.
typedef struct cr_camera_spec {
    double dir[3];    ///< from target towards eye, for automatic framing
    int has_eye;      ///< eye given: keep it, aim at target or the scene centre
    int has_target;   ///< target given
    double eye[3], target[3];
    double fov_y;     ///< degrees
} cr_camera_spec;

/// Default: three-quarter view from the front right, above; 35 degree field of view.
cr_camera_spec cr_default_camera_spec(void);
/// Parse "iso|front|back|left|right|top" or "EX,EY,EZ[,TX,TY,TZ]", either
/// optionally followed by ",FOV" for a named view or a 7th number. Returns 1,
/// or 0 with a message in err.
int cr_camera_spec_parse(const char *text, cr_camera_spec *out, char *err, size_t err_size);

/// Colour modes.
typedef enum cr_render_mode {
    CR_RENDER_BODY,         ///< one colour per body (palette by body slot); static bodies grey
    CR_RENDER_DISPLACEMENT, ///< distance of each vertex from its rest position: dent depth
    CR_RENDER_BONE,         ///< skinning weights blended over the bones' palette colours
    CR_RENDER_WEIGHTS,      ///< example-pose weights blended over the examples' colours (rest = white, as seed 001 Figure 8)
    CR_RENDER_SDF           ///< a slice of the signed distance grid (assets only; see cr_render_sdf_slice)
} cr_render_mode;

/// "body", "displacement" (or "dent"), "bone", "weights", "sdf"; returns 0 if unknown.
int cr_render_mode_parse(const char *text, cr_render_mode *out);
const char *cr_render_mode_name(cr_render_mode m);

/// Everything that decides what a picture looks like.
typedef struct cr_render_options {
    uint32_t width, height;   ///< pixels
    cr_render_mode mode;
    cr_camera_spec camera;
    int wireframe;            ///< overlay triangle edges
    int supersample;          ///< draw at this many times the size and average down (1..4; default 2)
    double range;             ///< m: displacement that gets the hottest colour; 0 = the largest in the scene
    int legend;               ///< draw the colour legend for the mode (and the label)
    char label[96];           ///< text in the top-left corner ("" for none)
    uint32_t background_top, background_bottom; ///< 0xRRGGBB vertical gradient
} cr_render_options;

cr_render_options cr_default_render_options(void);
/// Parse "WxH" (each 16..4096). Returns 1, or 0 with a message.
int cr_render_size_parse(const char *text, uint32_t *w, uint32_t *h, char *err, size_t err_size);

/// Triangles in world space with a colour and normal per vertex (stb_ds arrays).
typedef struct cr_render_mesh {
    uint32_t id;        ///< body slot (or 0 for a lone asset): the OBJ object name
    int ground;         ///< a plane drawn as a finite checker: left out of framing and OBJ export
    double *pos;        ///< 3 per vertex, m
    double *normal;     ///< 3 per vertex
    double *color;      ///< 3 per vertex, linear 0..1 (displacement mode: filled at draw time)
    double *disp;       ///< 1 per vertex, m from the rest position (displacement mode only, else null)
    uint32_t *tri;      ///< 3 per triangle, counter-clockwise seen from outside
} cr_render_mesh;

typedef struct cr_render_scene {
    cr_render_mesh *meshes; ///< stb_ds array, drawn in this order
    double bmin[3], bmax[3];///< bounds of the non-ground meshes (valid if has_bounds)
    int has_bounds;
    double max_displacement;///< m, largest vertex displacement seen while adding bodies
    uint32_t missing_assets;///< mesh bodies left out because their asset was not given
    cr_transform *plane_xf; ///< stb_ds: plane bodies waiting for the bounds (see cr_render_scene_finish)
    uint32_t *plane_id;     ///< stb_ds: their body slots
    int finished;           ///< planes tessellated
    /* The ground quad: centre (m, world) and half size (m). Chosen from the
     * bounds unless ground_fixed is set; a sequence copies the first frame's
     * values into the next scenes so the floor does not move between frames. */
    double ground_center[3];
    double ground_half;
    int ground_fixed;
} cr_render_scene;

/// One body as the renderer needs it, whatever it came from.
typedef struct cr_render_body {
    uint32_t id;                   ///< palette index, usually the body slot
    int is_static;                 ///< drawn grey in body mode
    cr_shape_def shape;
    cr_transform xf;               ///< body frame -> world
    const cr_asset *asset;         ///< mesh bodies: the cooked asset (null for analytic shapes)
    const cr_vec3 *positions;      ///< mesh: current vertex positions in the body frame; null = asset rest shape
    const cr_vec3 *rest_positions; ///< mesh: what displacement is measured against; null = the asset's positions
    cr_vec3 rest_offset;           ///< m, subtracted from rest_positions (cr_body_mesh.rest_offset)
    const cr_real *example_weights;///< mesh: [vertex * example_count + e]; null = none (rest)
    uint32_t example_count;
} cr_render_body;

void cr_render_scene_init(cr_render_scene *s);
void cr_render_scene_free(cr_render_scene *s);
/// Tessellate one body into the scene, coloured by opt->mode. Returns 0 when out of memory.
int cr_render_scene_add_body(cr_render_scene *s, const cr_render_body *b, const cr_render_options *opt);
/// Every live body of a world, in slot order. Mesh bodies find their asset
/// as assets[shape.asset], or with assets null through cr_world_get_asset
/// (not found: left out, counted in missing_assets), and their current
/// (dented) surface through cr_body_get_mesh.
/// Calls cr_render_scene_finish. Returns 0 when out of memory.
int cr_render_scene_add_world(cr_render_scene *s, const cr_world *world, const cr_asset *const *assets,
                              uint32_t asset_count, const cr_render_options *opt);
/// Tessellate the planes now that the bounds are known (idempotent).
int cr_render_scene_finish(cr_render_scene *s);

/// Lay a cooked asset out in the body frame, optionally in example pose
/// `example` (skinned with the asset's example transforms; 0 = rest), into
/// `out` (an stb_ds array the caller frees with arrfree). Returns 0 if the
/// example does not exist or out of memory.
int cr_render_pose_asset(const cr_asset *asset, uint32_t example, cr_vec3 **out);

/// The camera for this scene and image size: the spec's direction framed on
/// the scene bounds (a unit cube at the origin when the scene is empty).
cr_camera cr_render_fit_camera(const cr_camera_spec *spec, const cr_render_scene *s, uint32_t width,
                               uint32_t height);

/// Draw the scene into a new image (free with cr_image_free). Returns 0 when out of memory.
int cr_render_draw(const cr_render_scene *s, const cr_camera *cam, const cr_render_options *opt, cr_image *out);

/// Write `label` in the top-left corner as cr_render_draw does (legend on).
void cr_render_label(cr_image *img, const char *label);

/// Project a world point: pixel coordinates and view depth (m). Returns 0 behind the camera.
int cr_render_project(const cr_camera *cam, uint32_t width, uint32_t height, const double p[3], double *px,
                      double *py, double *depth);

/// The SDF of an asset on the plane axis = value (body frame; axis 0/1/2 = x/y/z),
/// over the grid's extent, as a picture: blue inside, orange outside, a band
/// every grid cell, the zero level set white. Returns 0 on bad arguments or
/// out of memory (a value outside the grid still draws: distances grow outward).
int cr_render_sdf_slice(const cr_asset *asset, int axis, double value, const cr_render_options *opt,
                        cr_image *out);

/// Lay `count` images out in a grid (columns = ceil(sqrt(count))) into one
/// new image, each downscaled by `factor` (1 = full size), with its caption
/// under it (captions may be null). Returns 0 on failure.
int cr_render_contact_sheet(const cr_image *frames, const char *const *captions, uint32_t count, uint32_t factor,
                            cr_image *out);

/// A cooked asset read from a file and validated, with the memory its view uses.
typedef struct cr_render_asset_file {
    uint8_t *bytes; ///< the file (crp_read_file)
    size_t size;
    void *block;    ///< the loader's block (aligned_alloc)
    cr_asset asset; ///< the view; valid while bytes and block live
} cr_render_asset_file;

/// Read and validate a .crb file. Returns 1, or 0 with "PATH: what is wrong" in err.
int cr_render_load_asset(const char *path, cr_render_asset_file *out, char *err, size_t err_size);
void cr_render_free_asset(cr_render_asset_file *f);

/// Palette colour i (0xRRGGBB): bodies, bones, examples.
uint32_t cr_render_palette(uint32_t i);
/// Displacement colour map at t in 0..1, linear RGB.
void cr_render_heat(double t, double out[3]);

#endif
