/* scene_example.c — what scene files say about example-based plasticity
 * (seed 001, crumple/example.h, docs/example-plasticity.md).
 *
 *     plastic steel alpha 20 beta 200 gamma 1.5 lambda 0.8 mu 0.5 nu 2
 *     asset car ../meshes/car.obj
 *     body wreck dynamic mesh car plastic steel position 0 1 0
 *
 * `plastic NAME [KEY VALUE]...` names a material's eight parameters (keys as in
 * cr_example_def; omitted keys keep cr_default_example_def()); a mesh body
 * line's `plastic NAME` attaches the model right after the body is created.
 *
 * An .obj asset is cooked with the rig, poses and cook options the project's
 * data rule uses (the Makefile's `make data`): for MESHDIR/NAME.obj,
 * MESHDIR/../rigs/NAME.rig, MESHDIR/../poses/NAME.pose and MESHDIR/NAME.cook
 * when they exist. Their bytes join the cache key, so an edited pose re-cooks.
 * A .cook file may set --sdf-res, --max-samples, --geodesic-radius,
 * --geodesic-max and --geodesic-patch (the options plastic assets need); a scene's own `sdf` and
 * `samples` asset options win over the file's.
 *
 * cr_scene_build sizes cr_world_def.damage.example from the scene: one record
 * per plastic body, rows as wide as the largest plastic asset, and room in
 * damage.surface_bytes for each plastic body's copy of its surface and grid.
 * The parser lives in scene.c; this file holds the plastic parts so that the
 * parser only calls them.
 */
#include "scene.h"
#include "cook.h"
#include "platform.h"
#include "stb_ds.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static int plastic_error(cr_scene_error *e, const char *file, int line, const char *fmt, ...) {
    if (e == NULL) return -1;
    snprintf(e->file, sizeof e->file, "%s", file ? file : "");
    e->line = line;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->message, sizeof e->message, fmt, ap);
    va_end(ap);
    return -1;
}

static int32_t find_plastic(const cr_scene *s, const char *name) {
    for (ptrdiff_t i = 0; i < arrlen(s->plastics); ++i)
        if (strcmp(s->plastics[i].name, name) == 0) return (int32_t)i;
    return -1;
}

int cr_scene_plastic_statement(cr_scene *s, int line, char *const *tok, int ntok, cr_scene_error *err) {
    static const char *const keys = "alpha beta gamma lambda mu nu draw_lag grid_lag";
    cr_scene_plastic p;
    memset(&p, 0, sizeof p);
    if (ntok < 1) return plastic_error(err, s->path, line, "'plastic' needs a name");
    if (strlen(tok[0]) >= sizeof p.name) return plastic_error(err, s->path, line, "plastic name '%s' is too long", tok[0]);
    int32_t prev = find_plastic(s, tok[0]);
    if (prev >= 0) return plastic_error(err, s->path, line, "plastic '%s' already defined at line %d", tok[0], s->plastics[prev].line);
    snprintf(p.name, sizeof p.name, "%s", tok[0]);
    p.def = cr_default_example_def();
    p.line = line;
    for (int i = 1; i < ntok; i += 2) {
        const char *k = tok[i];
        cr_real *field = strcmp(k, "alpha") == 0    ? &p.def.alpha
                         : strcmp(k, "beta") == 0   ? &p.def.beta
                         : strcmp(k, "gamma") == 0  ? &p.def.gamma
                         : strcmp(k, "lambda") == 0 ? &p.def.lambda
                         : strcmp(k, "mu") == 0     ? &p.def.mu
                         : strcmp(k, "nu") == 0     ? &p.def.nu
                         : strcmp(k, "draw_lag") == 0 ? &p.def.draw_lag
                         : strcmp(k, "grid_lag") == 0 ? &p.def.grid_lag
                                                    : NULL;
        if (field == NULL) return plastic_error(err, s->path, line, "unknown plastic key '%s' (%s)", k, keys);
        if (i + 1 >= ntok) return plastic_error(err, s->path, line, "'%s' needs a number", k);
        double d;
        const char *why = NULL;
        if (cr_scene_parse_number(tok[i + 1], &d, &why))
            return plastic_error(err, s->path, line, "bad number '%s' for '%s': %s", tok[i + 1], k, why);
        *field = cr_scene_real_from_double(d);
    }
    /* the runtime's own ranges (cr_example_attach), said here with the line */
    const cr_example_def *e = &p.def;
    if (e->alpha < 0 || e->alpha > CR_R(1e6)) return plastic_error(err, s->path, line, "'alpha' must be in [0, 1e6] (1/m)");
    if (e->beta < 0 || e->beta > CR_R(1e9)) return plastic_error(err, s->path, line, "'beta' must be in [0, 1e9] (N s)");
    if (e->gamma < CR_R(1e-4) || e->gamma > CR_R(1048576.0))
        return plastic_error(err, s->path, line, "'gamma' must be in [1e-4, 2^20] (m)");
    if (e->lambda < 0 || e->lambda >= CR_R(1)) return plastic_error(err, s->path, line, "'lambda' must be in [0, 1)");
    if (e->mu < 0 || e->mu > CR_R(1e6)) return plastic_error(err, s->path, line, "'mu' must be in [0, 1e6] (1/s)");
    if (e->nu < 0 || e->nu > CR_R(1e6)) return plastic_error(err, s->path, line, "'nu' must be in [0, 1e6]");
    if (e->draw_lag < CR_R(0.015625) || e->draw_lag > CR_R(1))
        return plastic_error(err, s->path, line, "'draw_lag' must be in [1/64, 1] (grid cells)");
    if (e->grid_lag < CR_R(0.0625) || e->grid_lag > CR_R(4))
        return plastic_error(err, s->path, line, "'grid_lag' must be in [1/16, 4] (grid cells)");
    arrput(s->plastics, p);
    return 0;
}

int cr_scene_body_plastic(cr_scene *s, cr_scene_body *b, const char *name, int line, cr_scene_error *err) {
    if (name == NULL) return plastic_error(err, s->path, line, "'plastic' needs a plastic name");
    int32_t p = find_plastic(s, name);
    if (p < 0) return plastic_error(err, s->path, line, "unknown plastic '%s' (plastics must be defined before they are used)", name);
    if (b->def.shape.type != CR_SHAPE_MESH)
        return plastic_error(err, s->path, line, "only mesh bodies with a rig deform by examples ('%s' is not a mesh)", b->name);
    if (b->dents) return plastic_error(err, s->path, line, "body '%s' dents already: a body is plastic or dents, not both", b->name);
    b->plastic = true;
    b->plastic_def = s->plastics[p].def;
    return 0;
}

/* ---- cooking: the data rule's rig, poses and options beside an .obj ---- */

static uint64_t fnv1a(uint64_t h, const void *data, size_t size) {
    const uint8_t *p = data;
    for (size_t i = 0; i < size; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

/* Hash the file at `path` into *key if it exists; true if it does. The
 * bytes are kept in *keep (NUL-terminated, size in *keep_size) if asked. */
static bool hash_if_there(const char *path, uint64_t *key, char **keep) {
    uint8_t *bytes = NULL;
    size_t size = 0;
    if (crp_read_file(path, &bytes, &size) != CRP_OK) return false;
    *key = fnv1a(*key, path, strlen(path));
    *key = fnv1a(*key, bytes, size);
    if (keep) {
        *keep = malloc(size + 1);
        if (*keep) memcpy(*keep, bytes, size), (*keep)[size] = 0;
    }
    crp_free(bytes);
    return true;
}

static bool is_space(char ch) { return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n'; }

/* The next whitespace-separated word of *at (terminated in place), or NULL. */
static char *next_word(char **at) {
    char *p = *at;
    while (*p && is_space(*p)) ++p;
    if (*p == 0) return NULL;
    char *w = p;
    while (*p && !is_space(*p)) ++p;
    if (*p) *p++ = 0;
    *at = p;
    return w;
}

int cr_scene_example_cook_options(const char *obj_path, cr_cook_options *opt, cr_scene_rig_files *files, uint64_t *key,
                                  char *why, size_t why_size) {
    memset(files, 0, sizeof *files);
    size_t n = strlen(obj_path);
    if (n < 4 || n + 16 >= sizeof files->rig) return 0;
    const char *slash = strrchr(obj_path, '/');
    size_t dir_len = slash ? (size_t)(slash - obj_path) + 1 : 0;
    int stem_len = (int)(n - 4 - dir_len);
    snprintf(files->rig, sizeof files->rig, "%.*s../rigs/%.*s.rig", (int)dir_len, obj_path, stem_len, obj_path + dir_len);
    snprintf(files->poses, sizeof files->poses, "%.*s../poses/%.*s.pose", (int)dir_len, obj_path, stem_len,
             obj_path + dir_len);
    char cook[CR_SCENE_PATH_MAX + 16];
    snprintf(cook, sizeof cook, "%.*s.cook", (int)(n - 4), obj_path);
    if (hash_if_there(files->rig, key, NULL)) opt->rig_path = files->rig;
    if (hash_if_there(files->poses, key, NULL)) opt->poses_path = files->poses;
    char *text = NULL;
    if (!hash_if_there(cook, key, &text)) return 0;
    if (text == NULL) {
        snprintf(why, why_size, "out of memory");
        return -1;
    }
    /* the .cook file: whitespace-separated options, the ones plastic assets use */
    int rc = 0;
    char *at = text;
    for (char *w = next_word(&at); w != NULL && rc == 0; w = next_word(&at)) {
        char *v = next_word(&at);
        if (v != NULL && cr_scene_fracture_cook_word(w)) continue; /* prescoring: tools/scene_fracture.c reads it */
        double d;
        const char *bad = NULL;
        if (v == NULL || cr_scene_parse_number(v, &d, &bad) || d <= 0) {
            snprintf(why, why_size, "%s: '%s' needs a positive number", cook, w);
            rc = -1;
        } else if (strcmp(w, "--sdf-res") == 0) {
            opt->sdf_res = (int)d;
        } else if (strcmp(w, "--max-samples") == 0) {
            opt->max_samples = (uint32_t)d;
        } else if (strcmp(w, "--geodesic-radius") == 0) {
            opt->geodesic_radius = d;
        } else if (strcmp(w, "--geodesic-max") == 0) {
            opt->geodesic_max = (uint32_t)d;
        } else if (strcmp(w, "--geodesic-patch") == 0) {
            opt->geodesic_patch = d;
        } else {
            snprintf(why, why_size,
                     "%s: option '%s' is not one a scene cooks with (--sdf-res --max-samples --geodesic-radius --geodesic-max --geodesic-patch)",
                     cook, w);
            rc = -1;
        }
    }
    free(text);
    return rc;
}

/* ---- building ---- */

/* One surface copy of `a` (geometry/surface_copy.c: a view, positions, normals,
 * samples and the grid, each 16-aligned), with slack. */
static uint64_t copy_bytes(const cr_asset *a) {
    uint64_t nodes = (uint64_t)a->sdf_dims[0] * a->sdf_dims[1] * a->sdf_dims[2];
    return 16 + sizeof(cr_asset) + 2 * (16 + (uint64_t)a->vertex_count * sizeof(cr_vec3)) +
           (16 + (uint64_t)a->sample_count * sizeof(cr_vec3)) + (16 + nodes * sizeof(cr_real)) + 64;
}

void cr_scene_example_size(const cr_scene *s, cr_world_def *def) {
    cr_example_budget *b = &def->damage.example;
    uint32_t bodies = 0, vertices = 0, examples = 2;
    uint64_t bytes = 0;
    for (ptrdiff_t i = 0; i < arrlen(s->bodies); ++i) {
        const cr_scene_body *sb = &s->bodies[i];
        if (!sb->plastic || sb->asset < 0) continue;
        const cr_asset *a = s->assets[sb->asset].view_;
        ++bodies;
        if (a->vertex_count > vertices) vertices = a->vertex_count;
        if (a->example_count > examples) examples = a->example_count;
        bytes += copy_bytes(a);
    }
    if (bodies == 0) return;
    if (b->body_capacity < bodies) b->body_capacity = bodies;
    if (b->max_vertices < vertices) b->max_vertices = vertices;
    if (b->max_examples < examples) b->max_examples = examples;
    if (!s->deform_bytes_given) {
        uint64_t total = (uint64_t)def->damage.surface_bytes + bytes;
        def->damage.surface_bytes = total > 0xfff00000u ? 0xfff00000u : (uint32_t)total;
    }
}

int cr_scene_example_attach(cr_scene *s, cr_world *w, uint32_t index, int line, cr_scene_error *err) {
    cr_scene_body *b = &s->bodies[index];
    if (!b->plastic) return 0;
    cr_status st = cr_example_attach(w, b->id, &b->plastic_def);
    if (st == CR_OK) return 0;
    char why[256];
    cr_scene_refusal(why, sizeof why, st, cr_world_refused_field(w));
    cr_body_destroy(w, b->id);
    memset(&b->id, 0, sizeof b->id);
    return plastic_error(err, s->path, line, "body '%s': cannot deform by examples: %s%s", b->name, why,
                         st == CR_ERR_DEF_INVALID ? "; does its asset have a rig and example poses (data/rigs, data/poses)?" : "");
}
