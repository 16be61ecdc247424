/* scene_spring.h — the scene format's mass-spring words (docs/scene-format.md,
 * docs/mass-spring.md), kept out of scene_parse.c:
 *
 *   spring NAME [stiffness K] [bend K] [damping C] [absolute_damping C] [volume KV] [radius R]
 *               [friction F] [restitution E] [mass M] [substeps N] [masses equal|area]
 *               [normalise on|off] [sleep on|off] [surface on|off]
 *     a soft material (cr_soft_def's fields; unset ones keep cr_default_soft_def()'s);
 *   soft NAME ASSET [spring MATERIAL] [position X Y Z] [rotate AX AY AZ DEG] [quat X Y Z W]
 *               [velocity X Y Z] [spin X Y Z] [mass M] [spawn FRAME]
 *     a soft body made from ASSET (any mesh asset; one cooked with `soft` brings
 *     its remeshed particles, internal springs and masses), its rest shape
 *     placed by position and rotation as cooked (the body frame).
 *
 * Timed `impulse` and `velocity` inputs name soft bodies too
 * (cr_scene_spring_inputs; docs/scene-format.md, "Timed inputs").
 *
 * The world's soft room (cr_world_def.spring) is sized from the soft bodies
 * once the assets are loaded: a body each, their particles and springs, and
 * the most substeps any material asks for. Soft bodies are created with the
 * bodies of frame 0, after them, in the order of their lines; one with
 * `spawn FRAME` just before that frame's step, after its rigid spawns (a
 * replay rebuilds it the same way: spawns are scene structure).
 */
#ifndef CRUMPLE_TOOLS_SCENE_SPRING_H
#define CRUMPLE_TOOLS_SCENE_SPRING_H

#include "scene.h"

/// A named soft material (`spring` line).
typedef struct cr_scene_spring {
    char name[CR_SCENE_NAME_MAX];
    cr_soft_def def;              ///< no asset or placement: the soft line gives those
    uint32_t substeps;            ///< 0: the world's default
    int line;
} cr_scene_spring;

/// A soft body (`soft` line).
typedef struct cr_scene_soft {
    char name[CR_SCENE_NAME_MAX];
    cr_soft_def def;              ///< complete but for def.asset (set at build from `asset`)
    int32_t asset;                ///< index into the scene's assets
    int32_t spring;               ///< index into the scene's spring materials, or -1 (defaults)
    int32_t spawn_frame;          ///< -1: created by cr_scene_build; else before that frame's step
    int line;
    cr_soft_id id;                ///< handle in the built world; null until built
} cr_scene_soft;

/// The words after `spring` (tok[0] is the name); 0, or -1 with why.
int cr_scene_spring_define(cr_scene *s, char *const *tok, int ntok, int line, char *why, size_t why_size);
/// The words after `soft` (tok[0] is the name); 0, or -1 with why.
int cr_scene_soft_define(cr_scene *s, char *const *tok, int ntok, int line, char *why, size_t why_size);
/// The spring material named `name`, or -1.
int32_t cr_scene_spring_find(const cr_scene *s, const char *name);
/// The soft body named `name`, or -1.
int32_t cr_scene_soft_find(const cr_scene *s, const char *name);
/// def->spring for the scene's soft bodies (assets loaded); nothing when there are none.
void cr_scene_spring_budget(const cr_scene *s, cr_world_def *def);
/// Create every soft body of frame 0 in `w` (after the rigid bodies); errors name the soft line.
int cr_scene_spring_create(cr_scene *s, cr_world *w, cr_scene_error *err);
/// Create the soft bodies that spawn at `frame` (cr_scene_spawn calls it after the rigid spawns).
int cr_scene_spring_spawn(cr_scene *s, cr_world *w, int32_t frame, cr_scene_error *err);
/// Apply the timed inputs of `frame` that name soft bodies (impulse: on the
/// whole body, or at the particle nearest `at`; velocity: every particle's,
/// one rigid motion); cr_scene_spawn calls it after the spawns, so replays
/// rebuild them from the scene text. Errors name the input's line.
int cr_scene_spring_inputs(cr_scene *s, cr_world *w, int32_t frame, cr_scene_error *err);
/// Free the scene's spring materials and soft bodies.
void cr_scene_spring_free(cr_scene *s);

#endif
