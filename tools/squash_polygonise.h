/* squash_polygonise.h — a squishy body's rest surface f = c meshed over a
 * grid, for skins of any shape (tools only; the star mesher, squash_mesh.h,
 * needs a skin every ray from one centre leaves once).
 *
 * A surface net (dual contouring without normals): the potential is sampled
 * at the nodes of a regular grid; every cell whose corners are on both sides
 * of c gets one vertex, the mean of the points where its edges cross c
 * (linear interpolation), then moved onto f = c along the gradient (Newton,
 * steps capped at a quarter cell); every grid edge that crosses c gets the
 * quad of the four cells around it, turned so it faces from inside (f >= c)
 * to outside. The net alone has slivers where the skin passes close to a
 * grid node (two cells' vertices crowd together); four rounds of relaxation
 * (each vertex half way to its quad neighbours' mean, then back onto f = c)
 * spread them, and each quad is split along the diagonal that keeps the
 * larger smallest angle (25 degrees or more on the tests' shapes, where
 * marching cubes cuts near-zero corners off cells). Every quad edge is
 * shared by exactly two quads unless a grid face has all four edges
 * crossing (a saddle caught in one face) or a cell holds two pieces of skin; the mesher checks for both after meshing (every
 * edge used once each way, every vertex's fan one cycle) and the caller
 * moves the grid or refines it.
 */
#ifndef CRUMPLE_TOOLS_SQUASH_POLYGONISE_H
#define CRUMPLE_TOOLS_SQUASH_POLYGONISE_H

#include "squash_mesh.h"

enum {
    CR_POLYGONISE_OK = 0,
    CR_POLYGONISE_NO_MEMORY = -1,
    CR_POLYGONISE_BOX_CUTS_SKIN = -2,   ///< a node on the grid's boundary is inside: the box is too small
    CR_POLYGONISE_NOT_MANIFOLD = -3,    ///< an edge or a vertex fan is not a surface's (move or refine the grid)
    CR_POLYGONISE_EMPTY = -4,           ///< no node inside
};

/// Mesh f = c over the grid of cells[k] cells of side `cell` from `lo`; the
/// boundary nodes must be outside. Returns a CR_POLYGONISE_* code; on OK the
/// mesh is closed, manifold and counter-clockwise from outside.
int cr_squash_polygonise(const cr_squash_primitive *prims, uint32_t count, cr_real c, cr_vec3 lo, cr_real cell,
                         const int cells[3], cr_squash_mesh *out);

/// Whether a triangle list is a closed oriented manifold: every directed edge
/// once and its reverse once, every vertex's triangles one fan around it, no
/// unused vertex. 0 if so, else the code above.
int cr_squash_mesh_check_manifold(const uint32_t *tri, uint32_t triangle_count, uint32_t vertex_count);

#endif
