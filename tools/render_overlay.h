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

/// Parse "bodies,sleep,contacts,joints,cells,grid... | all" into CR_DRAW_* flags.
/// Returns 1, or 0 with "unknown overlay 'x' (bodies sleep contacts joints cells dents bones sensors all)" in err.
int cr_render_overlay_parse(const char *text, uint32_t *flags, char *err, size_t err_size);
/// Draw the world's debug geometry for `flags` over `img` as seen by `cam`.
/// Returns how many lines and points landed in front of the camera.
uint32_t cr_render_overlay(cr_image *img, const cr_camera *cam, const cr_world *world, uint32_t flags);

#endif
