/* scene_squash.h — the scene format's squash words (docs/scene-format.md,
 * docs/squash.md), kept out of scene.c: a `squash NAME KEY VALUE ...` line
 * defines a squishy material; `body ... squash NAME` makes a mesh body
 * squishy (its asset carries the skeleton: a .skel asset or one cooked with
 * --skeleton). */
#ifndef CRUMPLE_TOOLS_SCENE_SQUASH_H
#define CRUMPLE_TOOLS_SCENE_SQUASH_H

#include "scene.h"

/// Parse the words after `squash` (tok[0] is the name); 0, or -1 with why.
int cr_scene_squash_define(cr_scene *s, char *const *tok, int ntok, int line, char *why, size_t why_size);
/// The squash material named `name`, or -1.
int32_t cr_scene_squash_find(const cr_scene *s, const char *name);

#endif
