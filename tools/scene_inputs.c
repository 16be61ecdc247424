/* scene_inputs.c — a scene's timed inputs, frame by frame.
 *
 * The inputs are one list sorted by (frame, declaration order). Spawns are
 * scene structure (a replay rebuilds them from the scene text); the rest are
 * converted to the runtime's plain-data cr_input and applied by one call,
 * cr_world_apply_inputs, so that a replay records exactly what reached the
 * world (s->frame_inputs). The frame that uses them is scene_run.c.
 */
#include "scene.h"
#include "scene_spring.h"
#include "stb_ds.h"

#include <string.h>

/* The scene's timed input as the runtime's plain-data input; spawns are not
 * runtime inputs (the scene creates them from its body defs). */
static int convert_input(cr_scene *s, cr_world *w, const cr_scene_input *in, cr_input *out, cr_scene_error *err) {
    cr_scene_body *b = &s->bodies[in->body];
    if (!cr_body_is_valid(w, b->id))
        return cr_scene_error_set(err, s->path, in->line, "body '%s' is not in the world at frame %d", b->name, in->frame);
    memset(out, 0, sizeof *out);
    out->frame = in->frame;
    out->body = b->id;
    out->seq = in->seq;
    if (in->kind == CR_SCENE_INPUT_IMPULSE) {
        out->type = CR_INPUT_IMPULSE;
        out->a = in->v;
        if (in->flags & CR_SCENE_INPUT_HAS_POINT)
            out->b = in->p;
        else
            out->flags = CR_INPUT_AT_CENTER;
    } else if (in->kind == CR_SCENE_INPUT_VELOCITY) {
        out->type = CR_INPUT_SET_VELOCITY;
        out->a = in->v;
        out->b = in->w;
    } else {
        /* velocities that carry the body onto the target in `frames` steps;
         * they stay until another input changes them */
        out->type = CR_INPUT_KINEMATIC_TARGET;
        out->time = cr_mul(cr_from_int(in->frames), s->dt);
        out->a = in->p;
        out->q = in->q;
        if (in->flags & CR_SCENE_INPUT_HAS_ORIENTATION) out->flags = CR_INPUT_HAS_ORIENTATION;
    }
    return 0;
}

static size_t first_input_of(const cr_scene *s, int32_t frame) {
    size_t n = (size_t)arrlen(s->inputs), lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->inputs[mid].frame < frame)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int cr_scene_spawn(cr_scene *s, cr_world *w, int32_t frame, cr_scene_error *err) {
    size_t n = (size_t)arrlen(s->inputs);
    for (size_t i = first_input_of(s, frame); i < n && s->inputs[i].frame == frame; ++i)
        if (s->inputs[i].kind == CR_SCENE_INPUT_SPAWN && cr_scene_create_body(s, w, s->inputs[i].body, s->inputs[i].line, err))
            return -1;
    if (cr_scene_spring_spawn(s, w, frame, err)) return -1; /* soft bodies with `spawn FRAME` (tools/scene_spring.c) */
    /* impulses and velocities on soft bodies: not runtime inputs (cr_input
     * names rigid bodies), so scene structure as spawns are, which a replay
     * rebuilds from the scene text (tools/scene_spring.c) */
    return cr_scene_spring_inputs(s, w, frame, err);
}

int cr_scene_apply_inputs(cr_scene *s, cr_world *w, int32_t frame, cr_scene_error *err) {
    arrsetlen(s->frame_inputs, 0);
    if (cr_scene_spawn(s, w, frame, err)) return -1;
    size_t n = (size_t)arrlen(s->inputs), first = first_input_of(s, frame);
    for (size_t i = first; i < n && s->inputs[i].frame == frame; ++i) {
        if (s->inputs[i].kind == CR_SCENE_INPUT_SPAWN || (s->inputs[i].flags & CR_SCENE_INPUT_SOFT)) continue;
        cr_input in;
        if (convert_input(s, w, &s->inputs[i], &in, err)) return -1;
        arrput(s->frame_inputs, in);
    }
    uint32_t count = (uint32_t)arrlen(s->frame_inputs);
    cr_status st = cr_world_apply_inputs(w, s->frame_inputs, count);
    if (st != CR_OK)
        return cr_scene_error_set(err, s->path, count ? s->inputs[first].line : 0, "inputs of frame %d: %s", frame,
                         cr_status_message(st));
    return 0;
}
