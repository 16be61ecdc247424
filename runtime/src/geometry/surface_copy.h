/* surface_copy.h — a body's own copy of its cooked surface and distance grid
 * (internal), the part every damage model that moves a surface shares.
 *
 * A copy holds, in one region of the world block, a cr_asset view that points
 * at copied positions, normals, collision samples and signed distance grid,
 * and at the cooked asset for everything that never changes (triangles,
 * neighbours...). Collision detection, mass queries and drawing read the view
 * and never know the surface moved. A model that moves vertices then calls,
 * in this order: cri_surface_copy_mark (the vertex range it moved),
 * cri_surface_copy_refresh (normals, samples, bounds), cri_surface_copy_patch
 * (the grid around the change), and, if the body's mass should follow,
 * cri_surface_copy_volume_ratio. Every call returns or adds the work it did,
 * so the model can count it against its budget.
 *
 * The view holds pointers into the block: cri_surface_copy_bind rewrites them
 * from the stored offsets after a byte copy of the block (snapshot restore).
 */
#ifndef CRUMPLE_SURFACE_COPY_H
#define CRUMPLE_SURFACE_COPY_H

#include "crumple/asset.h"
#include "geometry/vertex_ranges.h"

typedef struct cr_surface_copy {
    uint32_t body_index1;    ///< owner body slot + 1; 0: free (its region stays for a body of the same size)
    uint32_t body_generation;
    uint32_t rest_slot;      ///< the cooked asset's slot
    uint32_t view;           ///< offset of the cr_asset view
    uint32_t positions;      ///< offset of cr_vec3[vertex_count]
    uint32_t normals;        ///< offset of cr_vec3[vertex_count]
    uint32_t samples;        ///< offset of cr_vec3[sample_count]
    uint32_t sdf;            ///< offset of cr_real[nodes]
    uint32_t region;         ///< offset of the whole allocation (0: none yet)
    uint32_t region_bytes;
    uint32_t changes;        ///< times a model moved the surface
    uint32_t pad_;
    cr_vertex_ranges dirty;  ///< vertices changed since the host last cleared them
    uint64_t patch_digest;   ///< hash of every grid value ever patched (the grid's part of the state hash)
    cr_vec3 frame_shift;     ///< m, where the body frame's origin moved in the cooked frame (a model that
                             ///< keeps it at the changing centre of mass): positions and grid sit at -shift
} cr_surface_copy;

/// Bytes one copy of `rest` takes.
uint32_t cri_surface_copy_bytes(const cr_asset *rest);
/// Lay a copy of `rest` out at `region` of `block` and fill it with the cooked values.
void cri_surface_copy_init(cr_surface_copy *c, uint8_t *block, uint32_t region, const cr_asset *rest);
/// Point the view at this block again (after a byte copy); keeps the copied
/// bounds, and places the grid and mesh frame by frame_shift.
void cri_surface_copy_bind(cr_surface_copy *c, uint8_t *block, const cr_asset *rest);

static inline cr_asset *cr_surface_copy_view(const cr_surface_copy *c, uint8_t *block) {
    return (cr_asset *)(block + c->view);
}
static inline cr_vec3 *cr_surface_copy_positions(const cr_surface_copy *c, uint8_t *block) {
    return (cr_vec3 *)(block + c->positions);
}

/// Add vertices [first, last] to the dirty ranges.
void cri_surface_copy_mark(cr_surface_copy *c, uint32_t first, uint32_t last);
/// Add exactly these ranges.
void cri_surface_copy_mark_ranges(cr_surface_copy *c, const cr_vertex_ranges *moved);
/// Add the vertices in first..last whose bit is set in `bits`.
void cri_surface_copy_mark_bits(cr_surface_copy *c, const uint32_t *bits, uint32_t first, uint32_t last);
/// Normals, collision samples and bounds after vertices moved. Returns the
/// work (triangles + vertices visited); *bound_radius gets the new radius.
uint32_t cri_surface_copy_refresh(cr_surface_copy *c, uint8_t *block, cr_real *bound_radius);
/// The same after only the vertices whose bit is set in `moved` moved since
/// the last refresh: the same bits, only the normals around them recomputed.
/// `touched` is scratch of a bit per vertex.
uint32_t cri_surface_copy_refresh_moved(cr_surface_copy *c, uint8_t *block, const uint32_t *moved, uint32_t *touched,
                                        cr_real *bound_radius);

/// Displacement of a point of the body by the change being patched (body frame, m).
typedef cr_vec3 cr_surface_displacement_fn(const void *ctx, cr_vec3 p);

/// What a grid patch did.
typedef struct cr_surface_patch {
    uint32_t nodes;   ///< grid nodes read (the work)
    bool shrunk;      ///< the box had to be cut to fit the budget or the scratch
} cr_surface_patch;

/// Patch the grid inside the box centre ± reach: phi_new(x) = phi_old(y)
/// where y + D(y) = x (the point that moved to x), found by fixed-point
/// iteration from y = x - D(x). `max_move` (m) bounds |D|, `budget` the nodes
/// read (the box with its margin), `staged` holds `scratch_nodes` reals for
/// the new values. All at once: a cr_surface_patch_box planned, run and committed.
cr_surface_patch cri_surface_copy_patch(cr_surface_copy *c, uint8_t *block, cr_vec3 centre, cr_real reach,
                                       cr_real max_move, cr_surface_displacement_fn *disp, const void *ctx,
                                       uint32_t budget, cr_real *staged, uint32_t scratch_nodes);

/// The same patch in slices: planned once, its new values computed a few
/// rows at a time (over as many steps as the budget needs) into caller
/// memory, then committed into the grid at once. Until the commit the grid
/// holds its old values everywhere, so collisions read the last committed
/// shape and never a half-patched one, and the rows read the old values
/// straight from the grid. Plain data: it lives in the model's region
/// between steps and survives a byte copy of the block.
typedef struct cr_surface_patch_box {
    int32_t lo[3], hi[3];    ///< the nodes patched (grid indices, inclusive)
    int32_t c0[3], size[3];  ///< the nodes read: lo..hi with the move's margin, clamped to the grid
    int32_t next_y, next_z;  ///< the next row to compute
    uint32_t nodes;          ///< nodes read (size[0] size[1] size[2])
    uint32_t shrunk;         ///< 1: the box was cut to fit `limit`
    cr_real linear;          ///< cells; > 0: a node moved less than this takes the first-order value (0: never)
    uint64_t digest;         ///< the copy's patch digest with the rows computed so far mixed in
} cr_surface_patch_box;

/// Plan the box around centre ± reach (as cri_surface_copy_patch): false when
/// even its core does not fit `limit` nodes read. The staged values take
/// cri_surface_patch_box_nodes reals.
bool cri_surface_patch_box_plan(cr_surface_patch_box *b, const cr_surface_copy *c, const uint8_t *block, cr_vec3 centre,
                                cr_real reach, cr_real max_move, uint32_t limit);
/// Nodes the box patches (its staged values).
uint32_t cri_surface_patch_box_nodes(const cr_surface_patch_box *b);
/// What rows of a patch did, node by node (for a budget's charges).
typedef struct cr_surface_patch_count {
    uint32_t probed;         ///< nodes the displacement was asked at
    uint32_t linear;         ///< nodes moved less than `linear` cells: first-order values
    uint32_t moved;          ///< nodes moved farther: pre-image iteration and trilinear read
} cr_surface_patch_count;

/// Compute up to `rows` more rows (lo[0]..hi[0] at one y, z) of new values
/// into `staged`; returns the rows done and adds what its nodes took to
/// *count (may be NULL). The grid is not written. With `linear`, a node
/// that moves less than that many cells takes phi_old(x) - grad phi_old(x) . D(x),
/// the gradient by central differences: no pre-image iteration, no trilinear
/// read. (Leaving out the nodes far from the surface was tried: the solver's
/// impact timing reads distances a step's travel away, and a fast ball then
/// bounced off the fracture wall it broke through; docs/frame-budget.md.)
uint32_t cri_surface_patch_box_rows(cr_surface_patch_box *b, const cr_surface_copy *c, const uint8_t *block,
                                    cr_surface_displacement_fn *disp, const void *ctx, cr_real *staged, uint32_t rows,
                                    cr_surface_patch_count *count);
/// Every row computed.
bool cri_surface_patch_box_done(const cr_surface_patch_box *b);
/// Write the staged values into the grid and the digest into the copy; returns the nodes written.
uint32_t cri_surface_patch_box_commit(const cr_surface_patch_box *b, cr_surface_copy *c, uint8_t *block,
                                      const cr_real *staged);

/// A displacement field held at the nodes of a box of the copy's own grid
/// lattice (body frame, m), 0 on the box's outer layer and beyond it.
typedef struct cr_patch_field {
    const cr_real *f;        ///< [3][nodes]: the x, y and z components one after the other, x fastest in each
    const int32_t *span;     ///< per row (y, z) of the box, [2]: the first and last x the field may be non-zero
                             ///< at; first > last: the row was never reached and holds no values (read as 0);
                             ///< NULL: every row holds values
    uint32_t nodes;          ///< dims[0] dims[1] dims[2]
    int32_t first[3];        ///< the box's node (0, 0, 0) as the grid's node index (may lie outside the grid)
    int32_t dims[3];
    cr_vec3 origin;          ///< m, where node (0, 0, 0) is
    cr_real inv_cell;        ///< 1/m, the grid's
} cr_patch_field;

/// The field at p, trilinear (a cr_surface_displacement_fn; ctx: cr_patch_field).
cr_vec3 cri_patch_field_at(const void *ctx, cr_vec3 p);

/// cri_surface_copy_patch for a node-aligned field: only the grid nodes
/// inside the field's box are visited, a node reads its own value without
/// interpolation (0: left as it is), and the pre-image iteration stops when a
/// step moves it less than 1/64 of a cell. Returns shrunk with nothing done when the saved
/// box (the field's box with the move's margin) exceeds `scratch_nodes`.
cr_surface_patch cri_surface_copy_patch_field(cr_surface_copy *c, uint8_t *block, const cr_patch_field *field,
                                             cr_real max_move, cr_real *scratch, uint32_t scratch_nodes);

/// Move the body frame's origin by `c` (body frame, m): positions, collision
/// samples, bounds, grid origin and mesh frame all shift by -c, the grid
/// values stay (a translation of the frame, not of the surface). `rest` is the
/// cooked asset the grid origin is placed from. Work: vertices.
uint32_t cri_surface_copy_shift(cr_surface_copy *c, uint8_t *block, const cr_asset *rest, cr_vec3 by);

/// Volume of the copy over the volume of the cooked surface (mass follows it);
/// 0 if either is not positive. Work: 2 x triangles.
cr_real cri_surface_copy_volume_ratio(const cr_surface_copy *c, uint8_t *block, const cr_asset *rest);

#endif
