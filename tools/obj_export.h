/* obj_export.h — deformed meshes as Wavefront OBJ, for Blender/Maya users.
 *
 * Writes the meshes of a render scene (tools/render.h) in world space, one
 * `o body_<slot>` object per body with positions (m), vertex normals and
 * counter-clockwise faces, so a whole run can be imported frame by frame.
 * Numbers are printed with a fixed "%.6f" format, so the same scene gives the
 * same file bytes. The ground plane is left out: it is infinite in the
 * simulation and only a drawing aid in the pictures.
 */
#ifndef CRUMPLE_TOOLS_OBJ_EXPORT_H
#define CRUMPLE_TOOLS_OBJ_EXPORT_H

#include <stddef.h>

#include "render.h"

/// Write `s` to `path` atomically (temporary file + rename). `comment` (may be
/// null) goes into the header as '#' lines. Returns 1, or 0 with a message.
int cr_render_export_obj(const cr_render_scene *s, const char *path, const char *comment, char *err,
                         size_t err_size);

/// Same, into a new heap buffer (*out, free with free(), *out_size bytes). Returns 0 when out of memory.
int cr_render_obj_text(const cr_render_scene *s, const char *comment, char **out, size_t *out_size);

#endif
