/* render_overlay.h — cr_world_draw's lines and points (crumple/debug_draw.h)
 * drawn over a picture of the world: `crumple run --render DIR --overlay
 * contacts,joints` proves the game's debug-draw path in the tool.
 *
 * The overlay is drawn after the shaded picture, at its final size, without
 * a depth test (a debug overlay shows what is hidden too), one or two pixels
 * wide; lines with an end behind the camera are left out.
 */
#ifndef CRUMPLE_TOOLS_RENDER_OVERLAY_H
#define CRUMPLE_TOOLS_RENDER_OVERLAY_H

#include <stddef.h>
#include <stdint.h>

#include "crumple/crumple.h"
#include "raster.h"
#include "render.h"
#include "scene.h"

/// Not a runtime flag: the scene's `ray` and `overlap` lines as asked so far,
/// with their hits (tools/scene_query.c). Above every CR_DRAW_* bit.
#define CR_RENDER_OVERLAY_QUERIES (1u << 31)
#define CR_RENDER_COLOR_QUERY 0xffff40u     ///< a ray, an overlap that found nothing
#define CR_RENDER_COLOR_QUERY_HIT 0xff8000u ///< a hit point and its normal, an overlap that found a body

/// Parse "bodies,sleep,contacts,joints,cells,dents,bones,sensors,queries | all" into CR_DRAW_* flags
/// (and CR_RENDER_OVERLAY_QUERIES). Returns 1, or 0 with
/// "unknown overlay 'x' (bodies sleep contacts joints cells dents bones sensors queries all)" in err.
int cr_render_overlay_parse(const char *text, uint32_t *flags, char *err, size_t err_size);
/// Draw the world's debug geometry for `flags` over `img` as seen by `cam`,
/// and with CR_RENDER_OVERLAY_QUERIES the scene's asked queries (scene may be
/// NULL). Returns how many lines and points landed in front of the camera.
uint32_t cr_render_overlay(cr_image *img, const cr_camera *cam, const cr_world *world, const cr_scene *scene, uint32_t flags);

#endif
