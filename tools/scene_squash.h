/* scene_squash.h — the scene format's squash words (docs/scene-format.md,
 * docs/squash.md), kept out of scene.c: a `squash NAME KEY VALUE ...` line
 * defines a squishy material; `body ... squash NAME` makes a mesh body
 * squishy (its asset carries the skeleton: a .skel asset or one cooked with
 * --skeleton). */
#ifndef CRUMPLE_TOOLS_SCENE_SQUASH_H
#define CRUMPLE_TOOLS_SCENE_SQUASH_H

#include "scene.h"

/// One keyframe of a squishy body's skeleton (`pose` line, seed 003 §4.2):
/// from frame `frame` to frame + frames - 1 the primitives of `group` turn
/// about `pivot` by `angle` and move by `move` (skeleton file coordinates),
/// evenly per frame, on top of the pose the earlier keyframes left.
typedef struct cr_scene_pose {
    int32_t body;                 ///< scene body index
    int32_t frame, frames;
    uint32_t group;
    cr_vec3 axis, pivot, move;    ///< axis unit; the skeleton file's (mesh) frame
    cr_real angle;                ///< rad
    int line;
} cr_scene_pose;

/// Parse the words after `pose`; 0, or -1 with why.
int cr_scene_squash_pose_define(cr_scene *s, char *const *tok, int ntok, int line, char *why, size_t why_size);
/// Before frame `frame` is stepped: every squishy body a keyframe moves in it is posed
/// (cr_squash_set_primitives); 0, or -1 with err naming the pose line.
int cr_scene_squash_pose(cr_scene *s, cr_world *w, int32_t frame, cr_scene_error *err);
/// The sculpting nodes the scene's squash materials ask for (the largest), 0 if none sculpts.
uint32_t cr_scene_squash_sculpt_nodes(const cr_scene *s);

/// Parse the words after `squash` (tok[0] is the name); 0, or -1 with why.
int cr_scene_squash_define(cr_scene *s, char *const *tok, int ntok, int line, char *why, size_t why_size);
/// The squash material named `name`, or -1.
int32_t cr_scene_squash_find(const cr_scene *s, const char *name);

#endif
