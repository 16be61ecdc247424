/* scene.h — crumple's text scene files: parse, build a world, feed it its inputs.
 *
 * A scene file (docs/scene-format.md) is a line-oriented description of a
 * world: settings, materials, assets, bodies, grids of bodies, and timed
 * inputs (spawns, impulses, velocities, kinematic targets). This module turns
 * it into a cr_scene (scene_parse.c, numbers in scene_number.c), builds a
 * world from that through the public API only (scene_build.c, assets in
 * scene_asset.c), and applies the timed inputs frame by frame
 * (scene_inputs.c); errors are one format (scene_error.c). `crumple run`,
 * `crumple bench` and the scene tests all go through the same three calls:
 *
 *     cr_scene *s; cr_scene_error e; cr_world *w;
 *     if (cr_scene_load("data/scenes/stack.scene", &s, &e)) { cr_scene_error_print(stderr, &e); ... }
 *     if (cr_scene_build(s, &w, &e)) ...
 *     for (int32_t f = 0; f < s->frames; ++f) if (cr_scene_step(s, w, f, &e)) ...
 *     cr_cli_world_free(w); cr_scene_free(s);
 *
 * Notes
 *   - Every error is a `file:line: message` naming what is wrong; the parser
 *     never crashes on bad input and never reads past its buffer.
 *   - Numbers are read by our own exact decimal parser (no strtod, no locale):
 *     the text is rounded once to the nearest double, then converted to
 *     cr_real by one rule (float: round to nearest float; fixed: round
 *     value·2^32 to the nearest integer, halves away from zero). A scene
 *     therefore gives the same bits on every machine, and the same bits as
 *     CR_R(literal). `a/b` fractions are exact rationals rounded once, so
 *     `dt 1/60` is the double nearest to 1/60.
 *   - The timed inputs are one frame-sorted list applied by exactly one
 *     function, cr_scene_apply_inputs, so that a replay log can record and
 *     re-apply exactly those inputs.
 *   - The scene owns heap memory (stb_ds arrays); the world it builds lives in
 *     one block from cr_cli_world_new and never points into the scene.
 */
#ifndef CRUMPLE_SCENE_H
#define CRUMPLE_SCENE_H

#include "crumple/crumple.h"
#include "crumple/input.h"

#include <stdarg.h>
#include <stdio.h>

#define CR_SCENE_NAME_MAX 64   ///< longest body/material/asset name + 1
#define CR_SCENE_PATH_MAX 1024 ///< longest path + 1
/// Most bodies (including grid instances and spawns) one scene may declare.
#define CR_SCENE_MAX_BODIES (1u << 20)

/// Where and why parsing, building or running a scene failed.
typedef struct cr_scene_error {
    char file[CR_SCENE_PATH_MAX]; ///< the scene file (or the asset file that failed)
    int line;                     ///< 1-based line, 0 if the error has no line
    char message[512];            ///< what is wrong, naming the offending word
} cr_scene_error;

/// Print the error as `file:line: message` (or `file: message` without a line).
void cr_scene_error_print(FILE *out, const cr_scene_error *e);
/// Same, into a buffer (always terminated).
void cr_scene_error_format(char *buf, size_t size, const cr_scene_error *e);
/// Fill *e (if not NULL) with `file`, `line` (0 = the whole file) and the
/// printf-formatted message; returns -1, the failure every scene call returns.
int cr_scene_error_set(cr_scene_error *e, const char *file, int line, const char *fmt, ...);
/// The same with a va_list, for callers that add their own prefix.
void cr_scene_error_set_v(cr_scene_error *e, const char *file, int line, const char *fmt, va_list ap);
/// A refused runtime call in words, naming the def field the runtime named:
/// `cr_body_def.shape.radius is out of range (CR_ERR_DEF_INVALID)`, or the
/// status's message and name (and the field, if any) for other refusals.
/// `f` is cr_world_refused_field() right after the call. Returns buf.
const char *cr_scene_refusal(char *buf, size_t size, cr_status st, cr_field f);

/// A named material (`material` line). "default" always exists.
typedef struct cr_scene_material {
    char name[CR_SCENE_NAME_MAX];
    cr_material material;
    int line;
} cr_scene_material;

/// A named dent material (`dent` line): how bodies that name it dent.
typedef struct cr_scene_dent {
    char name[CR_SCENE_NAME_MAX];
    cr_dent_def dent;
    int line;
} cr_scene_dent;

/// A named plastic material (`plastic` line, tools/scene_example.c): how bodies that name it yield (seed 001).
typedef struct cr_scene_plastic {
    char name[CR_SCENE_NAME_MAX];
    cr_example_def def;
    int line;
} cr_scene_plastic;
/// A named bending material (`bend` line, tools/scene_bend.c).
typedef struct cr_scene_bend {
    char name[CR_SCENE_NAME_MAX];
    cr_bend_def bend;
    int line;
} cr_scene_bend;
/// A named squash material (`squash` line, tools/scene_squash.c).
typedef struct cr_scene_squash {
    char name[CR_SCENE_NAME_MAX];
    cr_squash_def def;            ///< no primitives: the body's asset carries the skeleton
    int line;
    uint32_t sculpt_nodes;        ///< `nodes N`: the sculpting grid's node cap (with `sculpt CELL`)
} cr_scene_squash;
/// A named fracture material (`fracture` line, tools/scene_fracture.c).
typedef struct cr_scene_fracture {
    char name[CR_SCENE_NAME_MAX];
    cr_fracture_def def;          ///< first_piece_asset is set at attach from the body's asset
    int line;
} cr_scene_fracture;

/// A named asset (`asset` line): a cooked .crb file, or an .obj cooked on load.
typedef struct cr_scene_asset {
    char name[CR_SCENE_NAME_MAX];
    char path[CR_SCENE_PATH_MAX]; ///< resolved against the scene file's folder
    int line;
    uint32_t sdf_res;             ///< .obj: cook option `sdf N` (grid cells on the longest axis), 0 = cooker default
    uint32_t max_samples;         ///< .obj: cook option `samples N` (collision sample points), 0 = cooker default
    uint32_t sdf_pad;             ///< .obj/.skel: cook option `pad N` (grid cells of padding each side), 0 = cooker default
    char rig[CR_SCENE_PATH_MAX];  ///< .obj: cook option `rig PATH` (a skeleton for bending), "" = none
    uint32_t auto_bones;          ///< .obj: cook option `bones N` (automatic bones), 0 = none
    bool soft;                    ///< .obj: cook option `soft` (a mass-spring asset: remeshed, SPRP/SPRS; tools/scene_spring.c)
    uint32_t slot;                ///< asset slot in the built world
    uint8_t *bytes_;              ///< private: the cooked file (owned; the view may point into it)
    void *block_;                 ///< private: the view's block (owned)
    struct cr_asset *view_;       ///< private: the validated view the world keeps a pointer to
    size_t size_;                 ///< private: bytes_'s size
    uint32_t first_piece_slot;    ///< a prescored asset: slot of its piece 0 in the built world (pieces follow)
    struct cr_scene_pieces_ *pieces_; ///< private: a prescored asset's piece views (tools/scene_fracture.c), else NULL
} cr_scene_asset;

/// One body of the scene (a `body` line, or one instance of a `grid`).
typedef struct cr_scene_body {
    char name[CR_SCENE_NAME_MAX]; ///< grid instances are GRID.k, k from 0
    cr_body_def def;              ///< complete; def.user_data = scene body index + 1
    bool dents;                   ///< `dent NAME`: cr_dent_attach(dent) right after the body is created
    cr_dent_def dent;
    bool plastic;                 ///< `plastic NAME`: cr_example_attach(plastic_def) right after the body is created
    cr_example_def plastic_def;
    bool bends;                   ///< `bend NAME`: cr_bend_attach(bend) right after the body is created
    cr_bend_def bend;
    bool squash;                  ///< `squash NAME`: cr_squash_attach(squash_def) right after the body is created
    cr_squash_def squash_def;
    bool fractures;               ///< `fracture NAME`: cr_fracture_attach(fracture_def) right after the body is created
    cr_fracture_def fracture_def;
    int32_t asset;                ///< index into assets for mesh bodies, else -1
    int32_t spawn_frame;          ///< -1: created by cr_scene_build; else by a spawn input
    int line;
    cr_body_id id;                ///< handle in the built world; null until created
    int32_t broke_frame;          ///< a fracturing body: the frame whose step split it into pieces (cr_scene_run), -1 while whole
} cr_scene_body;

/// A joint between two bodies (`joint` line), created by cr_scene_build.
typedef struct cr_scene_joint {
    char name[CR_SCENE_NAME_MAX];
    cr_joint_def def;             ///< complete except the body handles
    int32_t body_a;               ///< index into bodies
    int32_t body_b;               ///< index into bodies, or -1 for the world
    int line;
    cr_joint_id id;               ///< handle in the built world; null until built
} cr_scene_joint;

/// Kinds of timed input.
typedef enum cr_scene_input_kind {
    CR_SCENE_INPUT_SPAWN,    ///< create `body` from its def
    CR_SCENE_INPUT_IMPULSE,  ///< apply impulse `v` (N·s) at world point `p`, or at the centre of mass
    CR_SCENE_INPUT_VELOCITY, ///< set linear velocity `v` (m/s) and angular velocity `w` (rad/s)
    CR_SCENE_INPUT_TARGET    ///< kinematic target: set velocities that reach `p`, `q` in `frames` frames
} cr_scene_input_kind;

#define CR_SCENE_INPUT_HAS_POINT 1u       ///< impulse: `p` is the point of application
#define CR_SCENE_INPUT_HAS_ORIENTATION 2u ///< target: `q` is a target orientation
#define CR_SCENE_INPUT_SOFT 4u            ///< `body` indexes cr_scene.softs (impulse, velocity; applied by tools/scene_spring.c)

/// One timed input. Plain data (no pointers), so a replay log can store it as is.
typedef struct cr_scene_input {
    int32_t frame;     ///< applied just before step `frame` (0-based), i.e. at t = frame·dt
    uint32_t kind;     ///< cr_scene_input_kind
    uint32_t body;     ///< index into cr_scene.bodies
    uint32_t flags;    ///< CR_SCENE_INPUT_HAS_POINT, CR_SCENE_INPUT_HAS_ORIENTATION
    uint32_t seq;      ///< declaration order; ties on `frame` keep this order
    int32_t frames;    ///< target: frames to reach it (>= 1)
    int32_t line;      ///< source line, for errors
    int32_t pad_;
    cr_vec3 v;         ///< impulse (N·s) or linear velocity (m/s)
    cr_vec3 w;         ///< angular velocity (rad/s)
    cr_vec3 p;         ///< impulse point or target position (m)
    cr_quat q;         ///< target orientation
} cr_scene_input;

/// Kinds of scene query (`ray` and `overlap` lines, tools/scene_query.c).
typedef enum cr_scene_query_kind {
    CR_SCENE_QUERY_RAY,     ///< the closest hit along a .. a + b
    CR_SCENE_QUERY_RAY_ALL, ///< every body along a .. a + b, nearest first (`ray ... all`)
    CR_SCENE_QUERY_SPHERE,  ///< the bodies meeting the sphere at a of `radius`
    CR_SCENE_QUERY_BOX,     ///< the bodies meeting the box of half extents b at (a, q)
    CR_SCENE_QUERY_AABB     ///< the bodies meeting the world box a .. b
} cr_scene_query_kind;

/// One body a scene query found: for rays also where (overlaps leave point,
/// normal and fraction 0, triangle UINT32_MAX).
typedef struct cr_scene_query_hit {
    cr_body_id body;   ///< null for a soft body
    cr_soft_id soft;   ///< null for a rigid body
    cr_vec3 point, normal;
    cr_real fraction;
    uint32_t triangle;
} cr_scene_query_hit;

/// A query the scene asks on the world step `frame` - 1 left (frame 0: as built), before that frame's inputs.
typedef struct cr_scene_query {
    char name[CR_SCENE_NAME_MAX];
    int32_t frame;
    uint32_t kind;                ///< cr_scene_query_kind
    int line;
    cr_vec3 a, b;                 ///< see cr_scene_query_kind
    cr_real radius;               ///< sphere
    cr_quat q;                    ///< box
    cr_query_filter filter;       ///< `category`, `mask`, `sensors`
    bool asked;                   ///< asked in this run (hits valid)
    cr_scene_query_hit *hits;     ///< stb_ds array, in the query's order (rays nearest first, overlaps by handle)
} cr_scene_query;

/// A parsed scene. Arrays are stb_ds arrays (arrlen() gives their length).
typedef struct cr_scene {
    char path[CR_SCENE_PATH_MAX];  ///< as given to cr_scene_load
    char dir[CR_SCENE_PATH_MAX];   ///< folder relative paths are resolved against
    char cache_dir[CR_SCENE_PATH_MAX]; ///< where .obj assets are cooked ("" = default)
    cr_world_def def;              ///< world settings and capacities for cr_scene_build
    cr_real dt;                    ///< s per frame
    int32_t frames;                ///< frames `crumple run` steps by default
    cr_scene_material *materials;
    cr_scene_dent *dents;
    cr_scene_plastic *plastics;
    cr_scene_bend *bends;
    cr_scene_squash *squashes;
    struct cr_scene_pose *poses;     ///< keyframes of squishy skeletons (`pose` lines, tools/scene_squash.c)
    cr_scene_fracture *fractures;
    struct cr_scene_spring *springs; ///< soft materials (`spring` lines, tools/scene_spring.c)
    struct cr_scene_soft *softs;     ///< soft bodies (`soft` lines, tools/scene_spring.c)
    bool deform_bytes_given;       ///< `deform memory_kb` was set; else cr_scene_build sizes it from the assets
    cr_bend_budget bend_caps;      ///< `bending KEY N ...`: the bend budget's per-step caps and queue; 0 = the default
    cr_scene_asset *assets;
    cr_scene_body *bodies;
    cr_scene_joint *joints;
    cr_scene_input *inputs;        ///< sorted by (frame, seq)
    cr_scene_query *queries;       ///< rays and overlaps at given frames, in file order
    cr_input *frame_inputs;        ///< runtime inputs the last cr_scene_apply_inputs applied (spawns excepted): what a replay records
    struct cr_scene_name_ *names_; ///< private: body name → index
} cr_scene;

/// Parse scene text. `path` names it in errors and anchors relative paths.
/// Returns 0 and a new scene, or -1 with *err filled and *out NULL.
int cr_scene_parse(const char *text, size_t size, const char *path, cr_scene **out, cr_scene_error *err);
/// Read and parse a scene file.
int cr_scene_load(const char *path, cr_scene **out, cr_scene_error *err);
void cr_scene_free(cr_scene *s);

/// One number as scenes write it: [+-]digits[.digits][e[+-]digits], optionally
/// followed by /denominator of the same unsigned form; at most 24 significant
/// digits, |exponent| <= 30, and 1e-9 <= |value| <= 1e9 or 0. The exact value
/// is rounded once to the nearest double (ties to even). Returns 0, or -1 with
/// *why saying what is wrong.
int cr_scene_parse_number(const char *text, double *out, const char **why);
/// The one conversion from a parsed double to cr_real: float builds round to
/// the nearest float; fixed builds round value·2^32 to the nearest integer,
/// halves away from zero (the rounding of CR_R, so `9.81` here equals CR_R(9.81)).
cr_real cr_scene_real_from_double(double d);
/// True for a word that was meant as a number: it starts like one, or it is
/// nan/inf/infinity (which then fails cr_scene_parse_number as "bad number"
/// instead of "needs 3 numbers").
bool cr_scene_looks_numeric(const char *text);

/// Load every asset of the scene (tools/scene_asset.c): .crb files as they
/// are, .obj files cooked into the cache folder first. Called by
/// cr_scene_build; errors name the asset's line.
int cr_scene_load_assets(cr_scene *s, cr_scene_error *err);
void cr_scene_free_assets(cr_scene *s);
/// Mesh bodies are placed in their file's frame: turn that placement into the
/// body frame (centre of mass, principal axes) through asset->mesh_to_body.
void cr_scene_mesh_placement(const struct cr_asset *asset, cr_vec3 *position, cr_quat *orientation);

/* ---- bending (tools/scene_bend.c) ---- */

/// Index of the bend material called `name`, or -1.
int32_t cr_scene_bend_find(const cr_scene *s, const char *name);
/// The attributes after `bend NAME` (ntok words) into *def; 0, or -1 with msg.
int cr_scene_bend_parse(const cr_scene *s, char *const *tok, int ntok, cr_bend_def *def, char *msg, size_t n);
/// The world's bend budget and the room for sub-bodies and joints, from the
/// scene's bendable bodies (assets loaded).
void cr_scene_bend_budget(const cr_scene *s, cr_world_def *def);
/// Surface-copy bytes the bendable bodies need.
uint32_t cr_scene_bend_surface_bytes(const cr_scene *s);

/// Index of the body called `name`, or -1.
int32_t cr_scene_find_body(const cr_scene *s, const char *name);

/// Create the world the scene describes (one host block from cr_cli_world_new),
/// register its assets and create its bodies that do not wait for a spawn.
/// The world's stages are timed by s->def.clock_ns if the caller set one,
/// else by the host's monotonic clock.
/// Returns 0, or -1 with *err naming the scene line that failed.
int cr_scene_build(cr_scene *s, cr_world **out, cr_scene_error *err);
/// Create body `index` (and attach its dent def) in `w`; errors name `line`.
/// cr_scene_build uses it for the bodies of frame 0, cr_scene_spawn for spawns.
int cr_scene_create_body(cr_scene *s, cr_world *w, uint32_t index, int line, cr_scene_error *err);

/// Apply every input of `frame`: spawns first (they are scene structure, which
/// a replay rebuilds from the scene text), then the rest converted to runtime
/// inputs (s->frame_inputs, seq = declaration order) and applied by
/// cr_world_apply_inputs. The one place inputs reach the world.
/// Returns 0, or -1 with *err naming the input's line.
int cr_scene_apply_inputs(cr_scene *s, cr_world *w, int32_t frame, cr_scene_error *err);
/// Only the spawns of `frame` (what a replay applies besides its recorded inputs).
int cr_scene_spawn(cr_scene *s, cr_world *w, int32_t frame, cr_scene_error *err);

/// One frame exactly as `crumple run` does it: the frame's inputs, then one
/// world step of the scene's dt (cr_scene_run over the one frame).
int cr_scene_step(cr_scene *s, cr_world *w, int32_t frame, cr_scene_error *err);

/// What cr_scene_run measured of one frame.
typedef struct cr_scene_frame {
    int32_t frame;        ///< the frame just stepped (0-based)
    double ms;            ///< wall time of its inputs and step, ms
    double cpu_ms;        ///< process CPU time of the same, ms
    cr_world_stats stats; ///< the world's stats after the step
} cr_scene_frame;

/// Called by cr_scene_run after every frame; nonzero stops the run and is returned.
typedef int (*cr_scene_frame_fn)(void *user, cr_scene *s, cr_world *w, const cr_scene_frame *frame);

/// Which frames cr_scene_run steps, with what, and what it does after each.
typedef struct cr_scene_loop {
    int32_t from, to;             ///< frames [from, to)
    const cr_input *inputs;       ///< a replay's recorded inputs, applied instead of the scene's own...
    const ptrdiff_t *input_first; ///< ...frame f's being inputs[input_first[f] .. input_first[f + 1]); NULL: the scene's
    struct cr_run_stats *stats;   ///< totals each frame is added to, or NULL
    cr_scene_frame_fn each;       ///< after each frame, or NULL
    void *user;                   ///< passed to `each`
} cr_scene_loop;

/// The tools' one frame loop (tools/scene_run.c): every frame's spawns and
/// inputs, one step of s->dt, timed; its stats into loop->stats; then
/// loop->each. Returns 0; -1 with *err naming the frame that failed; or the
/// hook's nonzero value.
int cr_scene_run(cr_scene *s, cr_world *w, const cr_scene_loop *loop, cr_scene_error *err);
/* ---- queries at given frames (tools/scene_query.c) ---- */
/// Ask every query of `frame` not yet asked (cr_scene_run calls it right
/// after step frame - 1, and before the first frame it steps).
/// 0, or -1 naming the query's line when the runtime refuses it.
int cr_scene_ask_queries(cr_scene *s, const cr_world *w, int32_t frame, cr_scene_error *err);
/// "ray" or "overlap": the query's keyword; its shape: "ray", "ray all", "sphere", "box", "aabb".
const char *cr_scene_query_keyword(const cr_scene_query *q);
const char *cr_scene_query_shape(const cr_scene_query *q);
/// A hit's body by its scene name (see cr_scene_body_label), a soft body by its `soft` name.
void cr_scene_hit_name(const cr_scene *s, const cr_world *w, const cr_scene_query_hit *h, char *out, size_t size);
/// A rigid body's scene name; a fracture piece "NAME/piece K" as every output
/// names it; another body the runtime made from a scene body (a bending
/// part) "NAME/body SLOT"; any other "body#SLOT".
void cr_scene_body_label(const cr_scene *s, const cr_world *w, cr_body_id id, char *out, size_t size);
void cr_scene_free_queries(cr_scene *s);

/* ---- example-based plasticity in scenes (tools/scene_example.c) ---- */
/// `plastic NAME [alpha|beta|gamma|lambda|mu|nu VALUE]...`: tok[0..ntok) are the words after the keyword.
int cr_scene_plastic_statement(cr_scene *s, int line, char *const *tok, int ntok, cr_scene_error *err);
/// A body line's `plastic NAME` (name NULL when the line ended).
int cr_scene_body_plastic(cr_scene *s, cr_scene_body *b, const char *name, int line, cr_scene_error *err);
/// Paths a cook options struct points at while an .obj asset is cooked.
typedef struct cr_scene_rig_files {
    char rig[CR_SCENE_PATH_MAX + 32];
    char poses[CR_SCENE_PATH_MAX + 32];
} cr_scene_rig_files;
struct cr_cook_options;
/// The data rule's rig, poses and .cook options beside MESHDIR/NAME.obj into
/// *opt (paths kept in *files), their bytes hashed into *key. 0, or -1 with *why.
int cr_scene_example_cook_options(const char *obj_path, struct cr_cook_options *opt, cr_scene_rig_files *files,
                                  uint64_t *key, char *why, size_t why_size);
/// Size def->damage.example (and surface_bytes) for the scene's plastic bodies; assets loaded.
void cr_scene_example_size(const cr_scene *s, cr_world_def *def);
/// Attach the example model to body `index` if the scene says so (it was just created).
int cr_scene_example_attach(cr_scene *s, cr_world *w, uint32_t index, int line, cr_scene_error *err);

/* ---- prescored fracture in scenes (tools/scene_fracture.c) ---- */
/// `fracture NAME [toughness T] [strength S] [radius R] [anchor X0 Y0 Z0 X1 Y1 Z1] [stress N]`.
int cr_scene_fracture_statement(cr_scene *s, int line, char *const *tok, int ntok, cr_scene_error *err);
/// Index of the fracture material called `name`, or -1.
int32_t cr_scene_fracture_find(const cr_scene *s, const char *name);
/// A body line's `fracture NAME` (name NULL when the line ended).
int cr_scene_body_fracture(cr_scene *s, cr_scene_body *b, const char *name, int line, cr_scene_error *err);
/// A .cook file word that prescores (--pieces, --piece-seed, --gap, --piece-sdf-res): read by
/// cr_scene_fracture_cook_options, skipped by the plastic assets' .cook reader.
bool cr_scene_fracture_cook_word(const char *word);
struct cr_cook_pieces_options;
/// The prescoring options of MESHDIR/NAME.cook beside an .obj: 1 prescored, 0 not, -1 with *why.
int cr_scene_fracture_cook_options(const char *obj_path, struct cr_cook_pieces_options *po, char *why, size_t why_size);
/// Cook `obj_path` prescored into `out_path`; 0, or -1 with *why.
int cr_scene_fracture_cook(const char *obj_path, const char *out_path, const struct cr_cook_options *opt,
                           const struct cr_cook_pieces_options *po, char *why, size_t why_size);
/// Load a prescored asset's pieces (after its own view); 0, or -1 naming the asset's line.
int cr_scene_fracture_load_pieces(cr_scene *s, cr_scene_asset *a, cr_scene_error *err);
void cr_scene_fracture_free_pieces(cr_scene_asset *a);
/// Size the fracture budget, the pieces' bodies, joints, commands, dents and asset slots; assets loaded.
void cr_scene_fracture_size(const cr_scene *s, cr_world_def *def);
/// Register every prescored asset's pieces after the assets (sets first_piece_slot).
int cr_scene_fracture_register(cr_scene *s, cr_world *w, cr_scene_error *err);
/// Attach the fracture model to body `index` if the scene says so (it was just created).
int cr_scene_fracture_attach(cr_scene *s, cr_world *w, uint32_t index, int line, cr_scene_error *err);

/* ---- crumple run: what a run measures and prints (tools/cmd_run.c) ---- */

/// Totals over the frames of a run.
typedef struct cr_run_stats {
    int32_t frames;                     ///< frames stepped
    cr_stage_stats total[CR_STAGE_COUNT]; ///< work, overflow and time summed over the frames
    uint32_t max_work[CR_STAGE_COUNT];  ///< largest per-frame work of each stage
    double step_ms_total;               ///< wall time of the steps, ms
    double step_ms_max;                 ///< slowest step, ms
} cr_run_stats;

/// Add one frame's world stats and measured step time to the totals.
void cr_run_stats_add(cr_run_stats *rs, const cr_world_stats *ws, double step_ms);

/* ---- the bodies a run ends with (tools/run_bodies.c) ---- */

/// Called for each body that exists: `name` is the scene body's, or
/// `PARENT/piece I` for piece I of a fractured scene body; `parent` the scene
/// body index; `piece` -1 for a scene body itself.
typedef void (*cr_run_body_fn)(void *user, const char *name, cr_body_id id, int32_t parent, int32_t piece);
/// Every body of `w` that a scene line made, in scene order, each fractured
/// one followed by its pieces that are bodies (what `crumple run` prints).
void cr_run_each_body(const cr_scene *s, const cr_world *w, cr_run_body_fn fn, void *user);

/// What damage did to a body's surface: dents applied, the deepest vertex
/// move (m, the largest distance of a vertex from where it was cooked) and
/// the vertices not where they were cooked, over vertices [first, last]
/// (0, UINT32_MAX: all). Zeros for a body without a surface of its own.
typedef struct cr_run_damage {
    uint32_t dents;
    double deepest;   ///< m
    uint32_t moved;
} cr_run_damage;
cr_run_damage cr_run_body_damage(const cr_world *w, cr_body_id id, uint32_t first, uint32_t last);

/// How a fracturing scene body ended (cr_run_fracture_of).
typedef struct cr_run_fracture {
    cr_fracture_view view;  ///< pieces, bonds, bonds broken, whole
    int32_t step;           ///< 1-based step that split it (frame + 1), 0 while whole
    double time;            ///< s, at the end of that step (step x dt)
    uint32_t moving, held;  ///< pieces that are dynamic bodies / static (held to an anchor)
} cr_run_fracture;
/// 1 and *out if scene body `index` was made fracturable, else 0.
int cr_run_fracture_of(const cr_scene *s, const cr_world *w, uint32_t index, cr_run_fracture *out);
/// Its JSON fields after the body's name, as --json and the report's JSON block write them:
/// `"whole": false, "step": 83, "time": 1.38333341, "pieces": 12, "moving": 2, "held": 10, "bonds": 17, "bonds_broken": 7`.
void cr_run_fracture_json_fields(char *buf, size_t size, const cr_run_fracture *f);
/// One line about it, e.g. `wall: broke at step 83 (t 1.383 s) into 12 pieces (2 moving, 10 held), 7 of 17 bonds broken`,
/// as the summary and the report print it; 1, or 0 (buf untouched) if the body was not made fracturable.
int cr_run_fracture_line(char *buf, size_t size, const cr_scene *s, const cr_world *w, uint32_t index);

/// The JSON object `crumple run --json` prints (docs/scene-format.md gives the contract).
void cr_run_write_json(FILE *out, const cr_scene *s, const cr_world *w, const cr_run_stats *rs);
/// The summary `crumple run` prints without --json: scene, frames, bodies,
/// memory, overflows, each fracturing body (cr_run_fracture_format), each
/// damaged body (dents, deepest vertex move, vertices moved), state hash.
void cr_run_write_summary(FILE *out, const cr_scene *s, const cr_world *w, const cr_run_stats *rs);

/* ---- crumple bench (tools/cmd_bench.c) ---- */

/// Load, build and step one scene `steps` times at 1/60 s, timing every step,
/// and write one JSON line to `out`: scene (= `name`), steps, median_ms,
/// max_ms, mean_ms, cpu_median_ms, cpu_max_ms, bodies, overflow,
/// memory_bytes, mode, state_hash. Returns 0, or 1 after printing the error.
int cr_bench_scene(FILE *out, const char *name, const char *path, int32_t steps);
/// qsort's comparison of two doubles, ascending.
int cr_bench_cmp_double(const void *a, const void *b);
/// Median of n sorted values (the mean of the middle two when n is even); 0 when n <= 0.
double cr_bench_median(const double *sorted, int32_t n);
/// The number after option argv[i] if it is a whole number in 1..max, else -1.
long cr_bench_count(int argc, char **argv, int i, long max);
/// A bench argument into a scene path and a label: a name is DIR/NAME.scene
/// labelled NAME, a path ending in .scene is itself labelled by its base name;
/// the label is made JSON-safe. 0, or -1 when the path does not fit.
int cr_bench_scene_path(const char *dir, const char *name, char path[CR_SCENE_PATH_MAX], char label[CR_SCENE_NAME_MAX]);

#endif
