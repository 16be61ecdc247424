/* scene_fracture.c — what scene files say about prescored fracture (issue 14,
 * crumple/fracture.h, docs/fracture.md):
 *
 *     fracture brick toughness 10000 strength 2e5 radius 0.4 anchor -1 -1 -1 2 0.2 1
 *     asset wall ../meshes/fracture_wall.obj        # fracture_wall.cook: --pieces groups
 *     body wall static mesh wall fracture brick dent soft
 *
 * `fracture NAME [KEY VALUE]...` names a material; keys (cr_fracture_def):
 *   toughness T    N s/m^2: impact impulse per m^2 of bond area that uses a bond up
 *   strength S     N/m^2: force per m^2 of bond area a bond carries unharmed
 *   radius R       m: an impact's damage falls off to 0 at this distance
 *   anchor X0 Y0 Z0 X1 Y1 Z1   the asset's mesh frame: a static body's pieces whose
 *                  centre lies in this box hold to the world
 *   stress N       stress sweeps per step (0: impacts only)
 * A mesh body line's `fracture NAME` attaches the model right after the body
 * (and its dent model, if it dents) is created.
 *
 * The body's asset must be prescored: a .crb cooked with --pieces, or an .obj
 * whose .cook file beside it (the Makefile's data rule reads the same file)
 * says `--pieces N|groups` (and optionally --piece-seed, --gap,
 * --piece-sdf-res): such an .obj is cooked prescored into the scene cache.
 * A prescored asset's pieces are loaded from its own file and registered
 * right after it, at consecutive slots, which is what cr_fracture_attach's
 * first_piece_asset names. The world's fracture budget, the room for the
 * pieces as bodies, their fixed joints, the deferred commands and (for a
 * dented body) the pieces' dents are sized here from the scene's assets.
 */
#include "scene.h"
#include "cook_fracture.h"
#include "obj.h"
#include "platform.h"
#include "stb_ds.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* one prescored asset's piece views, owned by the scene like the asset's own */
struct cr_scene_pieces_ {
    uint32_t count;
    void **block;
    struct cr_asset *view;
};

static int ferr(cr_scene_error *e, const char *file, int line, const char *fmt, ...) {
    if (e == NULL) return -1;
    va_list ap;
    va_start(ap, fmt);
    cr_scene_error_set_v(e, file, line, fmt, ap);
    va_end(ap);
    return -1;
}

int32_t cr_scene_fracture_find(const cr_scene *s, const char *name) {
    for (ptrdiff_t i = 0; i < arrlen(s->fractures); ++i)
        if (strcmp(s->fractures[i].name, name) == 0) return (int32_t)i;
    return -1;
}

static int num(const cr_scene *s, int line, const char *key, const char *t, double lo, double hi, double *out, cr_scene_error *e) {
    const char *why = NULL;
    if (t == NULL) return ferr(e, s->path, line, "fracture '%s' needs a number", key);
    if (cr_scene_parse_number(t, out, &why) != 0 || *out < lo || *out > hi)
        return ferr(e, s->path, line, "fracture '%s': '%s' is not a number from %g to %g%s%s", key, t, lo, hi, why ? ": " : "",
                    why ? why : "");
    return 0;
}

int cr_scene_fracture_statement(cr_scene *s, int line, char *const *tok, int ntok, cr_scene_error *err) {
    if (ntok < 1) return ferr(err, s->path, line, "'fracture' needs a name");
    cr_scene_fracture f;
    memset(&f, 0, sizeof f);
    if (strlen(tok[0]) >= sizeof f.name) return ferr(err, s->path, line, "fracture name '%.40s...' is too long", tok[0]);
    int32_t prev = cr_scene_fracture_find(s, tok[0]);
    if (prev >= 0) return ferr(err, s->path, line, "fracture '%.63s' already defined at line %d", tok[0], s->fractures[prev].line);
    strcpy(f.name, tok[0]);
    f.line = line;
    f.def = cr_default_fracture_def();
    for (int i = 1; i < ntok;) {
        const char *k = tok[i++];
        double v[6];
        if (strcmp(k, "toughness") == 0 || strcmp(k, "strength") == 0 || strcmp(k, "radius") == 0) {
            if (num(s, line, k, i < ntok ? tok[i] : NULL, 1e-6, 1e9, &v[0], err)) return -1;
            ++i;
            cr_real r = cr_scene_real_from_double(v[0]);
            if (k[0] == 't') f.def.toughness = r;
            else if (k[0] == 's') f.def.strength = r;
            else f.def.damage_radius = r;
        } else if (strcmp(k, "stress") == 0) {
            if (num(s, line, k, i < ntok ? tok[i] : NULL, 0, 1024, &v[0], err)) return -1;
            if (v[0] != (double)(uint32_t)v[0]) return ferr(err, s->path, line, "fracture 'stress' needs a whole number of sweeps");
            ++i;
            f.def.stress_iterations = (uint32_t)v[0];
        } else if (strcmp(k, "anchor") == 0) {
            for (int j = 0; j < 6; ++j, ++i)
                if (num(s, line, k, i < ntok ? tok[i] : NULL, -1e9, 1e9, &v[j], err)) return -1;
            f.def.anchor_min = cr_v3(cr_scene_real_from_double(v[0]), cr_scene_real_from_double(v[1]), cr_scene_real_from_double(v[2]));
            f.def.anchor_max = cr_v3(cr_scene_real_from_double(v[3]), cr_scene_real_from_double(v[4]), cr_scene_real_from_double(v[5]));
        } else {
            return ferr(err, s->path, line, "unknown fracture attribute '%s' (toughness strength radius anchor stress)", k);
        }
    }
    arrput(s->fractures, f);
    return 0;
}

int cr_scene_body_fracture(cr_scene *s, cr_scene_body *b, const char *name, int line, cr_scene_error *err) {
    if (name == NULL) return ferr(err, s->path, line, "'fracture' needs a fracture name");
    int32_t f = cr_scene_fracture_find(s, name);
    if (f < 0) return ferr(err, s->path, line, "unknown fracture '%s' (fractures must be defined before they are used)", name);
    if (b->def.shape.type != CR_SHAPE_MESH) return ferr(err, s->path, line, "only mesh bodies fracture ('%s' is not a mesh)", b->name);
    if (b->def.type == CR_BODY_KINEMATIC) return ferr(err, s->path, line, "a kinematic body cannot fracture ('%s')", b->name);
    b->fractures = true;
    b->fracture_def = s->fractures[f].def;
    return 0;
}

/* ---- cooking and loading ---- */

/* the next whitespace-separated word of *at, terminated in place; NULL at the end */
static char *word(char **at) {
    char *p = *at;
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') ++p;
    if (*p == 0) return *at = p, NULL;
    char *w = p;
    while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n') ++p;
    if (*p) *p++ = 0;
    *at = p;
    return w;
}

bool cr_scene_fracture_cook_word(const char *word) {
    return strcmp(word, "--pieces") == 0 || strcmp(word, "--piece-seed") == 0 || strcmp(word, "--gap") == 0 ||
           strcmp(word, "--piece-sdf-res") == 0;
}

int cr_scene_fracture_cook_options(const char *obj_path, cr_cook_pieces_options *po, char *why, size_t why_size) {
    *po = cr_cook_default_pieces_options();
    po->pieces = 0;
    size_t n = strlen(obj_path);
    if (n < 4 || strcmp(obj_path + n - 4, ".obj") != 0) return 0;
    char cook[CR_SCENE_PATH_MAX + 16];
    snprintf(cook, sizeof cook, "%.*s.cook", (int)(n - 4), obj_path);
    uint8_t *text = NULL;
    size_t size = 0;
    if (crp_read_file(cook, &text, &size) != CRP_OK) return 0; /* no .cook file: a plain asset */
    int prescored = 0;
    char *t = malloc(size + 1);
    if (t == NULL) {
        crp_free(text);
        return snprintf(why, why_size, "out of memory"), -1;
    }
    memcpy(t, text, size);
    t[size] = 0;
    crp_free(text);
    char *at = t;
    for (char *w = word(&at); w != NULL; w = word(&at)) {
        if (!cr_scene_fracture_cook_word(w)) continue;
        char *v = word(&at);
        double d = 0;
        const char *bad = NULL;
        if (v != NULL && strcmp(w, "--pieces") == 0 && strcmp(v, "groups") == 0) {
            prescored = 1;
            continue;
        }
        if (v == NULL || cr_scene_parse_number(v, &d, &bad) || d < 0) {
            snprintf(why, why_size, "%s: '%s' needs a number >= 0 (or --pieces groups)", cook, w);
            free(t);
            return -1;
        }
        if (strcmp(w, "--pieces") == 0) {
            if (d < 2 || d > CR_ASSET_MAX_PIECES || d != (double)(uint32_t)d) {
                snprintf(why, why_size, "%s: --pieces needs a whole number from 2 to %u, or groups", cook, (unsigned)CR_ASSET_MAX_PIECES);
                free(t);
                return -1;
            }
            po->pieces = (uint32_t)d, prescored = 1;
        } else if (strcmp(w, "--piece-seed") == 0) {
            po->seed = (uint64_t)d;
        } else if (strcmp(w, "--gap") == 0) {
            po->gap = d;
        } else {
            po->piece_sdf_res = d < 8 ? 8 : d > 256 ? 256 : (int)d;
        }
    }
    free(t);
    return prescored;
}

int cr_scene_fracture_cook(const char *obj_path, const char *out_path, const cr_cook_options *opt, const cr_cook_pieces_options *po,
                           char *why, size_t why_size) {
    cr_obj obj;
    if (cr_obj_load(obj_path, &obj, why, why_size) != 0) return -1;
    cr_cook_result r;
    memset(&r, 0, sizeof r);
    cr_cook_pieces_report rep;
    int rc = cr_cook_prescored(obj_path, &obj, opt, po, &r, &rep, why, why_size);
    cr_obj_free(&obj);
    if (rc == 0) {
        crp_status st = crp_write_file_atomic(out_path, r.bytes, r.size);
        if (st != CRP_OK) snprintf(why, why_size, "%s: %s", out_path, crp_status_message(st)), rc = -1;
    }
    cr_cook_result_free(&r);
    return rc;
}

int cr_scene_fracture_load_pieces(cr_scene *s, cr_scene_asset *a, cr_scene_error *err) {
    if (a->view_ == NULL || a->view_->piece_count == 0 || a->pieces_ != NULL) return 0;
    uint32_t n = a->view_->piece_count;
    struct cr_scene_pieces_ *p = calloc(1, sizeof *p);
    if (p == NULL) return ferr(err, s->path, a->line, "asset '%s': out of memory", a->name);
    a->pieces_ = p;
    p->block = calloc(n, sizeof *p->block);
    p->view = calloc(n, sizeof *p->view);
    if (p->block == NULL || p->view == NULL) return ferr(err, s->path, a->line, "asset '%s': out of memory", a->name);
    for (uint32_t i = 0; i < n; ++i) {
        const void *pb = NULL;
        size_t pn = 0;
        cr_status st = cr_asset_piece_bytes(a->view_, a->bytes_, a->size_, i, &pb, &pn);
        size_t need = st == CR_OK ? cr_asset_memory_size(pb, pn) : 0;
        size_t alloc = need ? (need + CR_BLOCK_ALIGN - 1) / CR_BLOCK_ALIGN * CR_BLOCK_ALIGN : CR_BLOCK_ALIGN;
        p->block[i] = st == CR_OK ? aligned_alloc(CR_BLOCK_ALIGN, alloc) : NULL;
        p->count = i + 1;
        cr_asset_error ae;
        if (p->block[i] == NULL || cr_asset_load(pb, pn, p->block[i], alloc, &p->view[i], &ae) != CR_OK)
            return ferr(err, s->path, a->line, "asset '%s': piece %u is not a valid asset", a->name, i);
    }
    return 0;
}

void cr_scene_fracture_free_pieces(cr_scene_asset *a) {
    struct cr_scene_pieces_ *p = a->pieces_;
    if (p == NULL) return;
    for (uint32_t i = 0; i < p->count; ++i) free(p->block[i]);
    free(p->block);
    free(p->view);
    free(p);
    a->pieces_ = NULL;
}

/* ---- building ---- */

static uint64_t copy_bytes(const cr_asset *a) {
    uint64_t nodes = (uint64_t)a->sdf_dims[0] * a->sdf_dims[1] * a->sdf_dims[2];
    return 16 + sizeof(cr_asset) + 2 * (16 + (uint64_t)a->vertex_count * sizeof(cr_vec3)) +
           (16 + (uint64_t)a->sample_count * sizeof(cr_vec3)) + (16 + nodes * sizeof(cr_real)) + 64;
}

void cr_scene_fracture_size(const cr_scene *s, cr_world_def *def) {
    uint32_t assets_pieces = 0;
    for (ptrdiff_t i = 0; i < arrlen(s->assets); ++i)
        if (s->assets[i].pieces_) assets_pieces += s->assets[i].pieces_->count;
    def->asset_capacity += assets_pieces;
    uint32_t bodies = 0, pieces = 0, bonds = 0, most = 0, dent_pieces = 0, corners = 0, nodes = 0;
    uint64_t dent_bytes = 0;
    for (ptrdiff_t i = 0; i < arrlen(s->bodies); ++i) {
        const cr_scene_body *b = &s->bodies[i];
        if (!b->fractures || b->asset < 0 || s->assets[b->asset].view_ == NULL) continue;
        const cr_asset *a = s->assets[b->asset].view_;
        ++bodies;
        pieces += a->piece_count;
        bonds += a->bond_count;
        most = a->piece_count > most ? a->piece_count : most;
        if (b->dents && s->assets[b->asset].pieces_) {
            dent_pieces += a->piece_count;
            for (uint32_t k = 0; k < s->assets[b->asset].pieces_->count; ++k) {
                const cr_asset *v = &s->assets[b->asset].pieces_->view[k];
                dent_bytes += copy_bytes(v);
                uint32_t n = v->sdf_dims[0] * v->sdf_dims[1] * v->sdf_dims[2];
                nodes = n > nodes ? n : nodes;
            }
            corners = a->vertex_count > corners ? a->vertex_count : corners;
        }
    }
    if (bodies == 0) return;
    cr_fracture_budget *fb = &def->damage.fracture;
    *fb = cr_default_fracture_budget();
    fb->body_capacity = bodies;
    fb->piece_capacity = pieces < 2 ? 2 : pieces;
    fb->bond_capacity = bonds < 1 ? 1 : bonds;
    if (most > fb->pieces_per_step) fb->pieces_per_step = most;
    /* room to carry a dented whole's dents onto its pieces (fracture_carry.c): all its corners, a whole piece grid */
    if (corners > fb->carry_corners) fb->carry_corners = corners;
    if (nodes > fb->carry_nodes) fb->carry_nodes = nodes;
    def->body_capacity += pieces;  /* every piece a body of its own */
    def->joint_capacity += bonds;  /* a fixed joint per unbroken bond of a moving island */
    def->pair_capacity += 8 * pieces, def->contact_capacity += 8 * pieces; /* the parser's 8 per body */
    uint64_t points = (uint64_t)def->point_capacity + 2ull * def->points_per_pair * pieces; /* and 2 x points_per_pair per mesh body */
    def->point_capacity = points < (1u << 26) ? (uint32_t)points : (1u << 26);
    uint32_t commands = 2 * pieces + bonds + 64; /* destroys, creates and joints of one split each */
    if (def->damage.command_capacity < commands) def->damage.command_capacity = commands;
    def->damage.dent.body_capacity += dent_pieces;
    if (!s->deform_bytes_given && dent_bytes > 0) {
        uint64_t total = (uint64_t)def->damage.surface_bytes + dent_bytes;
        def->damage.surface_bytes = total > 0xfff00000u ? 0xfff00000u : (uint32_t)total;
    }
}

int cr_scene_fracture_register(cr_scene *s, cr_world *w, cr_scene_error *err) {
    for (ptrdiff_t i = 0; i < arrlen(s->assets); ++i) {
        cr_scene_asset *a = &s->assets[i];
        a->first_piece_slot = 0;
        if (a->pieces_ == NULL) continue;
        for (uint32_t k = 0; k < a->pieces_->count; ++k) {
            uint32_t slot;
            cr_status st = cr_world_add_asset(w, &a->pieces_->view[k], &slot);
            if (st != CR_OK) return ferr(err, s->path, a->line, "asset '%s': piece %u: %s", a->name, k, cr_status_message(st));
            if (k == 0) a->first_piece_slot = slot;
        }
    }
    return 0;
}

int cr_scene_fracture_attach(cr_scene *s, cr_world *w, uint32_t index, int line, cr_scene_error *err) {
    cr_scene_body *b = &s->bodies[index];
    if (!b->fractures) return 0;
    const cr_scene_asset *a = &s->assets[b->asset];
    if (a->pieces_ == NULL) {
        cr_body_destroy(w, b->id);
        memset(&b->id, 0, sizeof b->id);
        return ferr(err, s->path, line, "body '%s': cannot fracture: asset '%s' has no pieces (cook it with --pieces, or a .cook "
                    "file beside the .obj saying --pieces N or --pieces groups)", b->name, a->name);
    }
    cr_fracture_def d = b->fracture_def;
    d.first_piece_asset = a->first_piece_slot;
    cr_status st = cr_fracture_attach(w, b->id, &d);
    if (st == CR_OK) return 0;
    char why[256];
    cr_scene_refusal(why, sizeof why, st, cr_world_refused_field(w));
    cr_body_destroy(w, b->id);
    memset(&b->id, 0, sizeof b->id);
    return ferr(err, s->path, line, "body '%s': cannot fracture: %s", b->name, why);
}
