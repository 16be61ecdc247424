/* squash_mesh.h — a squishy body's rest surface f = c as a triangle mesh, for
 * the cooker and the squash benchmark (tools only).
 *
 * The mesher casts a ray from the skeleton's centre through every node of a
 * grid laid on the faces of a box (half extents `half`, cells[k] cells along
 * axis k) and puts the node where the ray leaves f >= c (bisection, then
 * Newton steps along the gradient: on the surface to the scalar's
 * resolution). Faces keep their own vertices along the box edges; the
 * cooker welds them. Quads split along the shorter diagonal: no slivers
 * where the box's grid is even. It needs a surface every ray from the centre
 * leaves once (star-shaped: a blob, a slab, a capsule, a belly), which the
 * cooker checks by the welded mesh being closed and the signs of the volume.
 */
#ifndef CRUMPLE_TOOLS_SQUASH_MESH_H
#define CRUMPLE_TOOLS_SQUASH_MESH_H

#include "crumple/squash.h"

typedef struct cr_squash_mesh {
    cr_vec3 *pos;        ///< malloc'd, [vertex_count], on f = c
    cr_vec3 *normals;    ///< malloc'd, [vertex_count], -grad f / |grad f|
    uint32_t *tri;       ///< malloc'd, [3 triangle_count], counter-clockwise from outside
    uint32_t vertex_count, triangle_count;
} cr_squash_mesh;

/// Mesh f = c of the skeleton around `centre`; 0, or -1 (out of memory or a
/// ray that never leaves the surface within 4 x the box's size).
int cr_squash_mesh_star(const cr_squash_primitive *prims, uint32_t count, cr_real c, cr_vec3 centre, cr_vec3 half,
                        const int cells[3], cr_squash_mesh *out);
void cr_squash_mesh_free(cr_squash_mesh *m);

#endif
