/* obj.h — a Wavefront OBJ reader for real-world files (tools only).
 *
 * Reads positions and faces; everything else that OBJ allows is accepted and
 * skipped, so that files from any modeller load:
 *   - `v x y z [w | r g b]`, `vt`, `vn`, `vp`
 *   - `f` with any number of corners (fanned into triangles), corners as
 *     `v`, `v/vt`, `v//vn`, `v/vt/vn`, negative (relative) indices
 *   - `o`, `g`, `s`, `usemtl`, `mtllib`, `l`, `p` and the free-form statements
 *     (all groups land in one mesh; lines, points and curves are skipped)
 *   - `#` comments, blank lines, CRLF or CR line ends, a last line without a
 *     newline, `\` line continuations
 * Anything else is an error reported as "name:line: message".
 *
 * Notes
 *   - Faces may refer to vertices defined later in the file (the format
 *     allows it); such indices are checked once the whole file is read.
 *   - Polygons are fanned from their first corner. That is exact for convex
 *     polygons, which is what modellers export; the cooker's topology report
 *     shows if a concave one folded over.
 */
#ifndef CRUMPLE_TOOLS_OBJ_H
#define CRUMPLE_TOOLS_OBJ_H

#include <stddef.h>
#include <stdint.h>

typedef struct cr_obj {
    double *pos;              ///< 3 per vertex, in file units (malloc'd)
    uint32_t *tri;            ///< 3 per triangle, 0-based vertex indices (malloc'd)
    uint32_t vertex_count;
    uint32_t triangle_count;
    uint32_t face_count;      ///< `f` statements
    uint32_t polygon_count;   ///< faces with more than three corners
    uint32_t group_count;     ///< `o` and `g` statements
    uint32_t texcoord_count;  ///< `vt` lines (read, not kept)
    uint32_t normal_count;    ///< `vn` lines (read, not kept)
    uint32_t skipped_count;   ///< lines, points and free-form statements skipped
    uint32_t *tri_group;      ///< per triangle: the `o`/`g` statement in effect (1-based, in file order; 0 before any), malloc'd
} cr_obj;

/// Parse OBJ text (need not be NUL-terminated). `name` prefixes error
/// messages. Returns 0, or -1 with "name:line: message" in err.
int cr_obj_parse(const char *name, const char *text, size_t len, cr_obj *out, char *err, size_t err_size);
/// Read and parse a file; errors as for cr_obj_parse (line 0 for I/O errors).
int cr_obj_load(const char *path, cr_obj *out, char *err, size_t err_size);
void cr_obj_free(cr_obj *obj);

#endif
