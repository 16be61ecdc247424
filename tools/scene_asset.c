/* scene_asset.c — a scene's mesh assets: cooked .crb files loaded as they
 * are, .obj meshes cooked into a cache folder on first use.
 *
 * An .obj asset is cooked with the cooker's library (tools/cook.h) into
 * `<cache>/<asset name>-<key>.crb`, where the key is a 64-bit FNV-1a hash of
 * the OBJ bytes, the cook options the scene sets (with the sections left
 * out because none of the scene's bodies reads them), the asset format
 * version and the crumple version. An unchanged mesh is therefore cooked once; an
 * edited one gets a new file. A cached file that no longer validates is
 * cooked again. Either way the bytes are checked completely by the runtime's
 * cr_asset_load before the world sees them.
 *
 * Notes
 *   - The world keeps the cr_asset view's address (crumple/world.h), so each
 *     view, its file bytes and its block are heap allocations owned by the
 *     scene and freed only with it; the scene must outlive the world.
 *   - Mesh bodies are placed in their file's frame; cr_scene_mesh_placement
 *     turns that into the body frame (centre of mass, principal axes) with the
 *     asset's mesh_to_body transform.
 */
#include "scene.h"
#include "cli.h"
#include "cook.h"
#include "asset_format.h"
#include "cook_fracture.h"
#include "scene_spring.h"
#include "stb_ds.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static uint64_t fnv1a(uint64_t h, const void *data, size_t size) {
    const uint8_t *p = data;
    for (size_t i = 0; i < size; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

static uint64_t fnv1a_u64(uint64_t h, uint64_t v) {
    uint8_t b[8];
    for (int i = 0; i < 8; ++i) b[i] = (uint8_t)(v >> (8 * i));
    return fnv1a(h, b, 8);
}

static int asset_error(const cr_scene *s, const cr_scene_asset *a, cr_scene_error *err, const char *fmt, ...) {
    memcpy(err->file, s->path, sizeof err->file);
    err->line = a->line;
    int n = snprintf(err->message, sizeof err->message, "asset '%s': ", a->name);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message + n, sizeof err->message - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

/* Loads and validates `path` into a's view. 0, or -1 with *why set. */
static int load_view(cr_scene_asset *a, const char *path, char *why, size_t why_size) {
    uint8_t *bytes = NULL;
    size_t size = 0;
    crp_status ps = crp_read_file(path, &bytes, &size);
    if (ps != CRP_OK) {
        snprintf(why, why_size, "%s", crp_status_message(ps));
        return -1;
    }
    size_t need = cr_asset_memory_size(bytes, size);
    size_t alloc = need ? (need + CR_BLOCK_ALIGN - 1) / CR_BLOCK_ALIGN * CR_BLOCK_ALIGN : CR_BLOCK_ALIGN;
    void *block = aligned_alloc(CR_BLOCK_ALIGN, alloc);
    cr_asset *view = calloc(1, sizeof *view);
    cr_asset_error ae;
    cr_status st = (block && view) ? cr_asset_load(bytes, size, block, alloc, view, &ae) : CR_ERR_BLOCK_TOO_SMALL;
    if (st != CR_OK) {
        if (block && view)
            snprintf(why, why_size, "not a valid asset: %s (%s%s%s, at %u)", cr_asset_check_message(ae.check),
                     cr_asset_check_name(ae.check), ae.section_tag[0] ? ", section " : "", ae.section_tag, ae.index);
        else
            snprintf(why, why_size, "out of memory");
        crp_free(bytes);
        free(block);
        free(view);
        return -1;
    }
    a->bytes_ = bytes;
    a->size_ = size;
    a->block_ = block;
    a->view_ = view;
    return 0;
}

/* The sections no body of the scene reads (tools/cook.h CR_COOK_LEAVE_*):
 * adjacency only for soft bodies made from the asset, geodesic lists only
 * for plastic bodies or an asset cooked with example poses. A scene asset
 * is then as lean as `crumple cook --models` would make it; the dropped
 * sections are never read, so every state stays bit for bit the same. */
static uint32_t unread_sections(const cr_scene *s, const cr_scene_asset *a, const cr_cook_options *opt) {
    int32_t index = (int32_t)(a - s->assets);
    bool soft = a->soft, plastic = opt->poses_path != NULL;
    for (ptrdiff_t i = 0; i < arrlen(s->softs); ++i) soft = soft || s->softs[i].asset == index;
    for (ptrdiff_t i = 0; i < arrlen(s->bodies); ++i) plastic = plastic || (s->bodies[i].plastic && s->bodies[i].asset == index);
    return cr_cook_leave_out_unless(soft, plastic);
}

static int load_one(cr_scene *s, cr_scene_asset *a, cr_scene_error *err) {
    char why[600];
    size_t n = strlen(a->path);
    bool obj = n > 4 && (strcmp(a->path + n - 4, ".obj") == 0 || strcmp(a->path + n - 4, ".OBJ") == 0 ||
                         (n > 5 && strcmp(a->path + n - 5, ".skel") == 0)); /* a squishy skeleton: meshed and cooked */
    if (!obj) {
        if (load_view(a, a->path, why, sizeof why)) return asset_error(s, a, err, "%s: %s", a->path, why);
        return 0;
    }
    /* the cache key: the mesh bytes and everything that changes the cooked bytes */
    uint8_t *mesh = NULL;
    size_t mesh_size = 0;
    crp_status ps = crp_read_file(a->path, &mesh, &mesh_size);
    if (ps != CRP_OK) return asset_error(s, a, err, "%s: %s", a->path, crp_status_message(ps));
    uint64_t key = fnv1a(0xcbf29ce484222325ull, mesh, mesh_size);
    crp_free(mesh);
    key = fnv1a_u64(key, CR_ASSET_VERSION);
    key = fnv1a(key, CR_VERSION_STRING, sizeof CR_VERSION_STRING);
    key = fnv1a_u64(key, a->sdf_res);
    if (a->rig[0]) { /* a rig (bending): its bytes change the cooked ones; no rig, the key is as before */
        uint8_t *rig = NULL;
        size_t rig_size = 0;
        ps = crp_read_file(a->rig, &rig, &rig_size);
        if (ps != CRP_OK) return asset_error(s, a, err, "%s: %s", a->rig, crp_status_message(ps));
        key = fnv1a(key, rig, rig_size);
        crp_free(rig);
    }
    if (a->auto_bones) key = fnv1a_u64(key, 0x626f6e6573ull ^ a->auto_bones);
    /* "BNDM": a rigged asset carries its segmentation and per-bone moments, made by this build's scalar mode
     * (a float and a Q32.32 build may break a tie differently), so each mode cooks its own */
    if (a->rig[0] || a->auto_bones) key = fnv1a_u64(key, 0x424e444dull ^ ((uint64_t)CR_FIXED << 32));
    key = fnv1a_u64(key, a->max_samples);
    if (a->sdf_pad) key = fnv1a_u64(key, 0x706164ull ^ ((uint64_t)a->sdf_pad << 24)); /* "pad": none, the key is as before */
    if (a->soft) key = fnv1a_u64(key, 0x736f6674ull); /* "soft": no soft, the key is as before */
    cr_cook_options opt = cr_cook_default_options();
    cr_scene_rig_files rig; /* the data rule's rig, poses and options beside the .obj (tools/scene_example.c) */
    if (cr_scene_example_cook_options(a->path, &opt, &rig, &key, why, sizeof why)) return asset_error(s, a, err, "%s", why);
    /* skinned: the weights' rule too (no skin, the key is as before) */
    if (a->rig[0] || a->auto_bones || opt.rig_path != NULL) key = fnv1a_u64(key, 0x736b696eull ^ ((uint64_t)CR_COOK_SKIN_RULE << 32));
    cr_cook_pieces_options po; /* a .cook file saying --pieces: cooked prescored (tools/scene_fracture.c) */
    int prescored = cr_scene_fracture_cook_options(a->path, &po, why, sizeof why);
    if (prescored < 0) return asset_error(s, a, err, "%s", why);
    opt.leave_out = prescored ? 0u : unread_sections(s, a, &opt);
    if (opt.leave_out) key = fnv1a_u64(key, 0x6c65616eull ^ ((uint64_t)opt.leave_out << 32)); /* "lean" */
    const char *dir = s->cache_dir[0] ? s->cache_dir : "build/cache";
    char cached[CR_SCENE_PATH_MAX + 96];
    snprintf(cached, sizeof cached, "%s/%s-%016llx.crb", dir, a->name, (unsigned long long)key);
    if (load_view(a, cached, why, sizeof why) == 0) return 0;

    if (crp_make_dirs(dir) != CRP_OK) return asset_error(s, a, err, "cannot make the cache folder %s", dir);
    opt.quiet = true;
    if (a->sdf_res) opt.sdf_res = (int)a->sdf_res;
    if (a->max_samples) opt.max_samples = a->max_samples;
    if (a->sdf_pad) opt.sdf_pad = (int)a->sdf_pad;
    if (a->rig[0]) opt.rig_path = a->rig;
    if (a->auto_bones) opt.auto_bones = a->auto_bones;
    opt.bend = a->rig[0] || a->auto_bones; /* a scene's rig is for bending: attach then costs no segmentation */
    opt.soft = a->soft;
    cr_cook_result res;
    memset(&res, 0, sizeof res);
    char cook_err[600];
    int rc = prescored ? cr_scene_fracture_cook(a->path, cached, &opt, &po, cook_err, sizeof cook_err)
                       : cr_cook_file(a->path, cached, &opt, &res, cook_err, sizeof cook_err);
    cr_cook_result_free(&res);
    if (rc != 0) return asset_error(s, a, err, "cannot cook: %s", cook_err);
    if (load_view(a, cached, why, sizeof why)) return asset_error(s, a, err, "%s: %s", cached, why);
    return 0;
}

int cr_scene_load_assets(cr_scene *s, cr_scene_error *err) {
    for (ptrdiff_t i = 0; i < arrlen(s->assets); ++i) {
        if (s->assets[i].view_ != NULL) continue; /* loaded by an earlier build */
        if (load_one(s, &s->assets[i], err)) return -1;
        if (cr_scene_fracture_load_pieces(s, &s->assets[i], err)) return -1; /* a prescored asset's pieces */
    }
    return 0;
}

void cr_scene_free_assets(cr_scene *s) {
    for (ptrdiff_t i = 0; i < arrlen(s->assets); ++i) {
        cr_scene_asset *a = &s->assets[i];
        cr_scene_fracture_free_pieces(a);
        crp_free(a->bytes_);
        free(a->block_);
        free(a->view_);
        a->bytes_ = NULL;
        a->block_ = NULL;
        a->view_ = NULL;
    }
}

void cr_scene_mesh_placement(const cr_asset *asset, cr_vec3 *position, cr_quat *orientation) {
    /* world = R x_mesh + P and x_body = q x_mesh + p, so the body frame is
     * R conj(q) and sits at P - R conj(q) p */
    cr_quat r = cr_quat_normalize(cr_quat_mul(*orientation, cr_quat_conj(asset->mesh_to_body.q)));
    *position = cr_v3_sub(*position, cr_quat_rotate(r, asset->mesh_to_body.p));
    *orientation = r;
}
