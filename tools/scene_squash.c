/* scene_squash.c — `squash` and `pose` lines of a scene (scene_squash.h).
 *
 *   squash NAME KEY VALUE ...   keys: stiffness N  damping N  soft M  reach M  c0 X  peak X  loss X  newton N
 *                               sculpt CELL (m: sculpting mode, seed §4.3)  rate X  nodes N (its grid's node cap)
 * (cr_squash_def's fields: docs/squash.md). The skeleton comes from the body's
 * asset, so a squash line holds the material only.
 *
 *   pose BODY FRAME FRAMES group G [turn AX AY AZ DEG about PX PY PZ] [move DX DY DZ]
 * A keyframe of a kinematic skeleton (seed §4.2): over frames FRAME ..
 * FRAME + FRAMES - 1 the primitives of group G (0-based, in the order the
 * .skel names them; 0 without groups) turn about the pivot and move, evenly
 * per frame, on top of where the earlier keyframes of that group left them
 * (skeleton file coordinates). Before each frame a keyframe is running in,
 * the body's whole skeleton is computed from the cooked one and handed to
 * cr_squash_set_primitives. A replay rebuilds the poses from the scene text,
 * as it does spawns. */
#include "scene_squash.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stb_ds.h"

int32_t cr_scene_squash_find(const cr_scene *s, const char *name) {
    for (ptrdiff_t i = 0; i < arrlen(s->squashes); ++i)
        if (strcmp(s->squashes[i].name, name) == 0) return (int32_t)i;
    return -1;
}

static int number(const char *t, double lo, double hi, double *out) {
    char *end;
    double v = strtod(t, &end);
    if (end == t || *end != 0 || !isfinite(v) || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

int cr_scene_squash_define(cr_scene *s, char *const *tok, int ntok, int line, char *why, size_t n) {
    if (ntok < 1) return snprintf(why, n, "'squash' needs a name"), -1;
    cr_scene_squash q;
    memset(&q, 0, sizeof q);
    if (strlen(tok[0]) >= sizeof q.name) return snprintf(why, n, "squash name '%.40s...' is too long", tok[0]), -1;
    int32_t prev = cr_scene_squash_find(s, tok[0]);
    if (prev >= 0) return snprintf(why, n, "squash '%.63s' already defined at line %d", tok[0], s->squashes[prev].line), -1;
    strcpy(q.name, tok[0]);
    q.line = line;
    q.def = cr_default_squash_def();
    q.sculpt_nodes = 100000;
    static const struct { const char *key; double lo, hi; } keys[] = {
        {"stiffness", 0, 1e8}, {"damping", 0, 1e8}, {"soft", 1e-3, 10}, {"reach", 1e-3, 10},
        {"c0", 1e-3, 1}, {"peak", 0.01, 0.99}, {"loss", 0, 0.5}, {"newton", 1, 8},
        {"sculpt", 1e-3, 10}, {"rate", 1e-3, 1}, {"nodes", 8, 1 << 24},
    };
    for (int i = 1; i < ntok; i += 2) {
        int k = -1;
        for (int j = 0; j < (int)(sizeof keys / sizeof keys[0]); ++j)
            if (strcmp(tok[i], keys[j].key) == 0) k = j;
        if (k < 0)
            return snprintf(why, n, "unknown squash attribute '%s' (stiffness damping soft reach c0 peak loss newton sculpt rate nodes)",
                            tok[i]), -1;
        double v;
        if (i + 1 >= ntok || number(tok[i + 1], keys[k].lo, keys[k].hi, &v) != 0)
            return snprintf(why, n, "squash '%s' needs a number from %g to %g", tok[i], keys[k].lo, keys[k].hi), -1;
        cr_real r = cr_from_float((float)v);
        switch (k) {
        case 0: q.def.stiffness = r; break;
        case 1: q.def.damping = r; break;
        case 2: q.def.soft_depth = r; break;
        case 3: q.def.rigid_reach = r; break;
        case 4: q.def.c0 = r; break;
        case 5: q.def.peak = r; break;
        case 6: q.def.volume_loss = r; break;
        case 7: q.def.newton_steps = (uint32_t)v; break;
        case 8: q.def.sculpt_cell = r; break;
        case 9: q.def.sculpt_rate = r; break;
        default: q.sculpt_nodes = (uint32_t)v; break;
        }
    }
    arrput(s->squashes, q);
    return 0;
}

uint32_t cr_scene_squash_sculpt_nodes(const cr_scene *s) {
    uint32_t nodes = 0;
    for (ptrdiff_t i = 0; i < arrlen(s->squashes); ++i)
        if (s->squashes[i].def.sculpt_cell > 0 && s->squashes[i].sculpt_nodes > nodes) nodes = s->squashes[i].sculpt_nodes;
    return nodes;
}

static int vec3_at(char *const *tok, int ntok, int at, double lo, double hi, cr_vec3 *out) {
    double v[3];
    if (at + 3 > ntok) return -1;
    for (int k = 0; k < 3; ++k)
        if (number(tok[at + k], lo, hi, &v[k]) != 0) return -1;
    *out = cr_v3(cr_from_float((float)v[0]), cr_from_float((float)v[1]), cr_from_float((float)v[2]));
    return 0;
}

int cr_scene_squash_pose_define(cr_scene *s, char *const *tok, int ntok, int line, char *why, size_t n) {
    if (ntok < 5) return snprintf(why, n, "'pose' needs BODY FRAME FRAMES group G [turn AX AY AZ DEG about PX PY PZ] [move DX DY DZ]"), -1;
    cr_scene_pose p;
    memset(&p, 0, sizeof p);
    p.line = line;
    p.body = cr_scene_find_body(s, tok[0]);
    if (p.body < 0) return snprintf(why, n, "unknown body '%.63s' in 'pose' (bodies must be defined before they are used)", tok[0]), -1;
    if (!s->bodies[p.body].squash) return snprintf(why, n, "'pose' needs a squishy body; '%.63s' has no squash", tok[0]), -1;
    double v;
    if (number(tok[1], 0, 1e7, &v) != 0 || v != floor(v)) return snprintf(why, n, "pose FRAME must be a whole number from 0"), -1;
    p.frame = (int32_t)v;
    if (number(tok[2], 1, 1e7, &v) != 0 || v != floor(v)) return snprintf(why, n, "pose FRAMES must be a whole number from 1"), -1;
    p.frames = (int32_t)v;
    if (strcmp(tok[3], "group") != 0 || number(tok[4], 0, CR_SQUASH_MAX_GROUPS - 1, &v) != 0 || v != floor(v))
        return snprintf(why, n, "pose needs 'group G' after FRAMES, G from 0 to %d", CR_SQUASH_MAX_GROUPS - 1), -1;
    p.group = (uint32_t)v;
    p.axis = cr_v3(0, CR_R(1), 0);
    bool moved = false;
    for (int i = 5; i < ntok;) {
        if (strcmp(tok[i], "turn") == 0) {
            double deg;
            if (vec3_at(tok, ntok, i + 1, -1e3, 1e3, &p.axis) != 0 || i + 4 >= ntok || number(tok[i + 4], -3600, 3600, &deg) != 0)
                return snprintf(why, n, "pose 'turn' needs an axis AX AY AZ and an angle in degrees (-3600 to 3600)"), -1;
            cr_real l;
            p.axis = cr_v3_normalize_len(p.axis, &l);
            if (l <= CR_R(1e-6)) return snprintf(why, n, "pose 'turn' needs an axis that is not 0"), -1;
            p.angle = cr_from_float((float)(deg * 3.14159265358979323846 / 180.0));
            if (i + 5 >= ntok || strcmp(tok[i + 5], "about") != 0 || vec3_at(tok, ntok, i + 6, -1e6, 1e6, &p.pivot) != 0)
                return snprintf(why, n, "pose 'turn' needs 'about PX PY PZ' (the pivot)"), -1;
            i += 9, moved = true;
        } else if (strcmp(tok[i], "move") == 0) {
            if (vec3_at(tok, ntok, i + 1, -1e6, 1e6, &p.move) != 0) return snprintf(why, n, "pose 'move' needs DX DY DZ"), -1;
            i += 4, moved = true;
        } else {
            return snprintf(why, n, "unknown pose attribute '%.40s' (turn, move)", tok[i]), -1;
        }
    }
    if (!moved) return snprintf(why, n, "pose needs 'turn' or 'move'"), -1;
    /* a group's keyframes follow one another: each starts after the last one of that group ended */
    for (ptrdiff_t i = 0; i < arrlen(s->poses); ++i) {
        const cr_scene_pose *o = &s->poses[i];
        if (o->body == p.body && o->group == p.group && p.frame < o->frame + o->frames)
            return snprintf(why, n, "pose of group %u starts at frame %d, before the one at line %d ends (frame %d)", p.group, p.frame,
                            o->line, o->frame + o->frames), -1;
    }
    arrput(s->poses, p);
    return 0;
}

/* x (skeleton file frame) turned s of the keyframe's angle about its pivot and moved s of its move. */
static cr_vec3 key_point(const cr_scene_pose *p, cr_real s, cr_vec3 x) {
    cr_quat q = cr_quat_from_axis_angle(p->axis, cr_mul(p->angle, s));
    return cr_v3_add(cr_v3_add(p->pivot, cr_quat_rotate(q, cr_v3_sub(x, p->pivot))), cr_v3_scale(p->move, s));
}

static cr_vec3 key_dir(const cr_scene_pose *p, cr_real s, cr_vec3 d) {
    return cr_quat_rotate(cr_quat_from_axis_angle(p->axis, cr_mul(p->angle, s)), d);
}

int cr_scene_squash_pose(cr_scene *s, cr_world *w, int32_t frame, cr_scene_error *err) {
    ptrdiff_t np = arrlen(s->poses);
    for (ptrdiff_t i = 0; i < np; ++i) {
        const cr_scene_pose *p = &s->poses[i];
        if (frame < p->frame || frame >= p->frame + p->frames) continue;
        /* the first keyframe of its body running in this frame poses the body; later ones of the same body skip */
        bool first = true;
        for (ptrdiff_t j = 0; j < i && first; ++j)
            first = !(s->poses[j].body == p->body && frame >= s->poses[j].frame && frame < s->poses[j].frame + s->poses[j].frames);
        if (!first) continue;
        cr_body_id id = s->bodies[p->body].id;
        const cr_asset *a = cr_body_get_asset(w, id);
        if (a == NULL || a->squash_primitive_count == 0)
            return cr_scene_error_set(err, s->path, p->line, "pose: body '%s' has no cooked skeleton", s->bodies[p->body].name);
        uint32_t n = a->squash_primitive_count;
        bool has_group = false;
        for (uint32_t k = 0; k < n; ++k) has_group |= a->squash_primitives[k].group == p->group;
        if (!has_group)
            return cr_scene_error_set(err, s->path, p->line, "pose: body '%s' has no primitive in group %u", s->bodies[p->body].name, p->group);
        cr_squash_primitive *prims = malloc(n * sizeof *prims);
        if (prims == NULL) return cr_scene_error_set(err, s->path, p->line, "pose: out of memory");
        /* from the cooked skeleton (body frame) into the skeleton file's frame, every keyframe of each group that has
         * begun by this frame (its share: whole once it ended), and back */
        cr_transform m = a->mesh_to_body;
        for (uint32_t k = 0; k < n; ++k) {
            cr_squash_primitive q = a->squash_primitives[k];
            bool seg = q.type == CR_SQUASH_SEGMENT;
            cr_vec3 qa = cr_transform_inv_point(m, q.a), qb = seg ? cr_transform_inv_point(m, q.b) : cr_quat_inv_rotate(m.q, q.b);
            cr_vec3 qe = cr_quat_inv_rotate(m.q, q.e);
            for (ptrdiff_t j = 0; j < np; ++j) {
                const cr_scene_pose *k2 = &s->poses[j];
                if (k2->body != p->body || k2->group != q.group || frame < k2->frame) continue;
                int32_t done = frame - k2->frame + 1;
                cr_real share = done >= k2->frames ? CR_R(1) : cr_div(cr_from_int(done), cr_from_int(k2->frames));
                qa = key_point(k2, share, qa);
                qb = seg ? key_point(k2, share, qb) : key_dir(k2, share, qb);
                qe = key_dir(k2, share, qe);
            }
            q.a = cr_transform_point(m, qa);
            q.b = seg ? cr_transform_point(m, qb) : cr_quat_rotate(m.q, qb);
            q.e = cr_quat_rotate(m.q, qe);
            prims[k] = q;
        }
        cr_status st = cr_squash_set_primitives(w, id, prims, n);
        free(prims);
        if (st != CR_OK) {
            char why[256];
            return cr_scene_error_set(err, s->path, p->line, "pose: cannot pose body '%s': %s", s->bodies[p->body].name,
                                      cr_scene_refusal(why, sizeof why, st, cr_world_refused_field(w)));
        }
    }
    return 0;
}
