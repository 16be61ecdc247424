/* scene_bend.c — the scene format's bending (seed 000 §4, docs/bending.md):
 *
 *     asset bar data/meshes/bar.obj rig data/rigs/bar.rig     # or: bones N (automatic bones)
 *     bend steel strength 300 damping 4 2 split 3 0.25 4 condense 0.5 1 dent soft
 *     body post dynamic mesh bar position 0 2 0 bend steel
 *
 * `bend NAME` attributes (all optional; cr_default_bend_def otherwise):
 *   strength S         plastic joints: bending strength S N m s
 *   damping P C        their damping: P 1/s proportional, C rad/s^2 constant
 *   spring K C         elastic joints instead: stiffness K N m/rad, damping C N m s/rad
 *   split V L B        joints added at impacts faster than V m/s, parts at least L m, up to B bones
 *   condense T V       quiet chains merge after T s, woken by impacts faster than V m/s
 *   dent NAME          impacts dent the body too, as the `dent NAME` line says
 *   seam A             a joint turned A rad since its seam was made gets it re-made (0: never; docs/bending.md "Seams")
 *
 *     bending splits 4 queue 240 skin 8640 condensations 4 dents 4 seams 4
 *
 * sets the world's per-step caps and split queue (cr_bend_budget); the rest
 * of the budget is sized from the scene's bendable bodies.
 * The parser (tools/scene.c) hands this file the words after the name, and
 * each bendable body's def to attach; the world's bend budget is sized here
 * from the scene's bendable bodies and their assets.
 */
#include "scene.h"
#include "stb_ds.h"

#include <stdio.h>
#include <string.h>

int32_t cr_scene_bend_find(const cr_scene *s, const char *name) {
    for (ptrdiff_t i = 0; i < arrlen(s->bends); ++i)
        if (strcmp(s->bends[i].name, name) == 0) return (int32_t)i;
    return -1;
}

static int reals(char *const *tok, int ntok, int *pos, int count, cr_real *out, const char *what, char *msg, size_t n) {
    for (int k = 0; k < count; ++k) {
        double d;
        const char *why = NULL;
        if (*pos >= ntok) return snprintf(msg, n, "'%s' needs %d number%s", what, count, count > 1 ? "s" : ""), -1;
        if (cr_scene_parse_number(tok[*pos], &d, &why) != 0 || d < 0)
            return snprintf(msg, n, "'%s': '%s' is not a number >= 0%s%s", what, tok[*pos], why ? ": " : "", why ? why : ""), -1;
        out[k] = cr_scene_real_from_double(d);
        ++*pos;
    }
    return 0;
}

int cr_scene_bend_parse(const cr_scene *s, char *const *tok, int ntok, cr_bend_def *def, char *msg, size_t n) {
    *def = cr_default_bend_def();
    int pos = 0;
    while (pos < ntok) {
        const char *a = tok[pos++];
        cr_real v[3];
        if (strcmp(a, "strength") == 0) {
            if (reals(tok, ntok, &pos, 1, v, a, msg, n)) return -1;
            def->bend_strength = v[0], def->spring_stiffness = 0;
        } else if (strcmp(a, "damping") == 0) {
            if (reals(tok, ntok, &pos, 2, v, a, msg, n)) return -1;
            def->bend_damping = v[0], def->bend_damping_constant = v[1];
        } else if (strcmp(a, "spring") == 0) {
            if (reals(tok, ntok, &pos, 2, v, a, msg, n)) return -1;
            def->spring_stiffness = v[0], def->spring_damping = v[1], def->bend_strength = 0;
        } else if (strcmp(a, "split") == 0) {
            if (reals(tok, ntok, &pos, 3, v, a, msg, n)) return -1;
            def->split_speed = v[0], def->split_min_length = v[1];
            double bones = cr_to_double(v[2]);
            if (bones < 1 || bones > 255 || bones != (double)(uint32_t)bones)
                return snprintf(msg, n, "'split': the bone count must be a whole number in 1..255"), -1;
            def->max_bones = (uint32_t)bones;
        } else if (strcmp(a, "condense") == 0) {
            if (reals(tok, ntok, &pos, 2, v, a, msg, n)) return -1;
            def->condense_time = v[0], def->wake_speed = v[1];
        } else if (strcmp(a, "dent") == 0) {
            if (pos >= ntok) return snprintf(msg, n, "'dent' needs a dent name"), -1;
            const char *d = tok[pos++];
            ptrdiff_t k = 0;
            while (k < arrlen(s->dents) && strcmp(s->dents[k].name, d) != 0) ++k;
            if (k == arrlen(s->dents)) return snprintf(msg, n, "unknown dent '%s' (dents must be defined before they are used)", d), -1;
            def->dents = true;
            def->dent = s->dents[k].dent;
        } else if (strcmp(a, "seam") == 0) {
            if (reals(tok, ntok, &pos, 1, v, a, msg, n)) return -1;
            def->seam_angle = v[0];
        } else {
            return snprintf(msg, n, "unknown bend attribute '%s' (strength damping spring split condense dent seam)", a), -1;
        }
    }
    return 0;
}

void cr_scene_bend_budget(const cr_scene *s, cr_world_def *d) {
    uint32_t bodies = 0, bones = 2, vertices = 1, triangles = 1, nodes = 8, joints = 0;
    for (ptrdiff_t i = 0; i < arrlen(s->bodies); ++i) {
        const cr_scene_body *b = &s->bodies[i];
        if (!b->bends || b->asset < 0 || s->assets[b->asset].view_ == NULL) continue;
        const struct cr_asset *a = s->assets[b->asset].view_;
        uint32_t n = b->bend.split_speed > 0 && b->bend.max_bones > a->bone_count ? b->bend.max_bones : a->bone_count;
        ++bodies;
        if (n > bones) bones = n;
        if (a->vertex_count > vertices) vertices = a->vertex_count;
        if (a->triangle_count > triangles) triangles = a->triangle_count;
        uint32_t g = a->sdf_dims[0] * a->sdf_dims[1] * a->sdf_dims[2];
        if (g > nodes) nodes = g;
        joints += n;
    }
    if (bodies == 0) return;
    cr_bend_budget *bb = &d->damage.bend;
    *bb = cr_default_bend_budget();
    bb->body_capacity = bodies;
    bb->max_bones = bones;
    bb->max_vertices = vertices;
    bb->max_triangles = triangles;
    bb->max_grid_nodes = nodes;
    /* the `bending` line's caps, where given */
    const cr_bend_budget *c = &s->bend_caps;
    if (c->splits_per_step) bb->splits_per_step = c->splits_per_step;
    if (c->queue_capacity) bb->queue_capacity = c->queue_capacity;
    if (c->vertices_per_step) bb->vertices_per_step = c->vertices_per_step;
    if (c->condensations_per_step) bb->condensations_per_step = c->condensations_per_step;
    if (c->dents_per_step) bb->dents_per_step = c->dents_per_step;
    if (c->seams_per_step) bb->seams_per_step = c->seams_per_step;
    d->body_capacity += bodies * bones; /* the sub-bodies, live and parked */
    d->joint_capacity += joints;
}

uint32_t cr_scene_bend_surface_bytes(const cr_scene *s) {
    uint64_t total = 0;
    for (ptrdiff_t i = 0; i < arrlen(s->bodies); ++i) {
        const cr_scene_body *b = &s->bodies[i];
        if (!b->bends || b->asset < 0 || s->assets[b->asset].view_ == NULL) continue;
        const struct cr_asset *a = s->assets[b->asset].view_;
        uint32_t n = b->bend.split_speed > 0 && b->bend.max_bones > a->bone_count ? b->bend.max_bones : a->bone_count;
        uint64_t g = (uint64_t)a->sdf_dims[0] * a->sdf_dims[1] * a->sdf_dims[2];
        uint64_t copy = 16 + sizeof(struct cr_asset) + 2 * (16 + (uint64_t)a->vertex_count * sizeof(cr_vec3)) +
                        (16 + (uint64_t)a->sample_count * sizeof(cr_vec3)) + (16 + g * sizeof(cr_real)) + 64;
        total += (1 + n) * copy; /* the drawn mesh and one per bone */
    }
    return total > 0xfff00000u ? 0xfff00000u : (uint32_t)total;
}
