/* crumple/asset.h — cooked mesh assets: validate once, then use in place.
 *
 * A cooked asset (.crb, written by `crumple cook`, format in
 * docs/asset-format.md) carries everything the runtime needs about one shape:
 * the triangle mesh in its principal frame, a signed distance grid, mass
 * properties for unit density, collision sample points, surface adjacency and
 * geodesic neighbourhoods (seed 001), and an optional skeleton with skinning
 * weights and example poses (seeds 000/001).
 *
 * Usage:
 *     size_t need = cr_asset_memory_size(bytes, size);      // 0: not an asset
 *     void *block = my_aligned_alloc(CR_BLOCK_ALIGN, need);  // the host's memory
 *     cr_asset asset;
 *     cr_asset_error err;
 *     if (cr_asset_load(bytes, size, block, need, &asset, &err) != CR_OK)
 *         printf("bad asset: %s in section %.4s at %u\n",
 *                cr_asset_check_message(err.check), err.section_tag, err.index);
 *     cr_vec3 n;
 *     cr_real d = cr_asset_sdf(&asset, p_local, &n);        // < 0 inside
 *
 * Notes
 *   - cr_asset_load checks the whole file before it touches any value: magic,
 *     version, size, checksum, section table, every count and offset, every
 *     index, every float (no NaN/Inf, bounded magnitude). A hostile file gets
 *     CR_ERR_BAD_ASSET and an error naming the failed check; it never reads
 *     outside [bytes, bytes+size) nor writes outside the block.
 *   - The cr_asset is a read-only view. Its arrays point into the file bytes
 *     (index arrays always; cr_real arrays too in float builds when the bytes
 *     are 4-byte aligned) or into the block (cr_real arrays in fixed builds,
 *     converted exactly with cr_from_float; bones and example poses always).
 *     Keep both the bytes and the block alive, unchanged, while the view is used.
 *   - cr_asset_memory_size depends on the bytes' address (aligned float data
 *     can be used in place), so pass the same pointer to both calls.
 *   - Everything is in the body frame: the principal frame of inertia with the
 *     centre of mass at the origin. mesh_to_body says where that frame sits in
 *     the mesh as cooked (after the cooker's --scale/--recentre/--normalise).
 *   - Lengths are metres if the cooked mesh was in metres; mass properties are
 *     for density 1 (multiply by the material density for kg and kg m^2).
 */
#ifndef CRUMPLE_ASSET_H
#define CRUMPLE_ASSET_H

#include "base.h"
#include "vecmath.h"

/* Link names carry the scalar mode (CR_LINK_NAME, crumple/real.h), so code
 * compiled in the other mode fails to link instead of misreading every cr_real. */
#define cr_asset_check_name CR_LINK_NAME(cr_asset_check_name)
#define cr_asset_check_message CR_LINK_NAME(cr_asset_check_message)
#define cr_asset_memory_size CR_LINK_NAME(cr_asset_memory_size)
#define cr_asset_resident_report CR_LINK_NAME(cr_asset_resident_report)
#define cr_asset_load CR_LINK_NAME(cr_asset_load)
#define cr_asset_piece_bytes CR_LINK_NAME(cr_asset_piece_bytes)
#define cr_asset_body_pose CR_LINK_NAME(cr_asset_body_pose)
#define cr_asset_checksum CR_LINK_NAME(cr_asset_checksum)
#define cr_asset_sdf CR_LINK_NAME(cr_asset_sdf)

#ifdef __cplusplus
extern "C" {
#endif

/// Limits the loader enforces (and the cooker respects).
#define CR_ASSET_MAX_VERTICES (1u << 22)   ///< vertices per mesh
#define CR_ASSET_MAX_TRIANGLES (1u << 23)  ///< triangles per mesh
#define CR_ASSET_MAX_SDF_DIM 1024u         ///< grid nodes along one axis
#define CR_ASSET_MAX_SDF_NODES (1u << 25)  ///< grid nodes in all
#define CR_ASSET_MAX_NEIGHBORS (1u << 27)  ///< entries in one CSR neighbour list
#define CR_ASSET_MAX_BONES 255u            ///< bones (a skin index is one byte)
#define CR_ASSET_MAX_EXAMPLES 64u          ///< example poses, rest pose included
#define CR_ASSET_MAX_SQUASH_PRIMITIVES 4096u ///< skeleton primitives of a squishy asset (seed 003)
#define CR_ASSET_MAX_SOFT_SPRINGS_PER_VERTEX 64u ///< a soft asset's springs per vertex at most (SPRS)
#define CR_ASSET_MAX_COORD 1048576.0       ///< 2^20: |any stored real| is below this (m); keeps Q32.32 safe
#define CR_ASSET_SKIN_SLOTS 4u             ///< skinning influences per vertex

/* X(name, message): every check the loader makes, so a failure names itself. */
#define CR_ASSET_CHECK_LIST(X)                                                            \
    X(CR_ASSET_OK, "ok")                                                                  \
    X(CR_ASSET_NULL_ARGUMENT, "a required pointer argument is null")                      \
    X(CR_ASSET_TRUNCATED, "file is shorter than its header says")                         \
    X(CR_ASSET_BAD_MAGIC, "not a crumple asset (magic)")                                  \
    X(CR_ASSET_BAD_VERSION, "unsupported format version")                                 \
    X(CR_ASSET_BAD_HEADER, "header field out of range (header size, flags, reserved)")    \
    X(CR_ASSET_BAD_FILE_SIZE, "header file size differs from the bytes given")            \
    X(CR_ASSET_BAD_CHECKSUM, "checksum mismatch: the payload was changed or damaged")     \
    X(CR_ASSET_BAD_SECTION_TABLE, "section table out of bounds or wrong section count")   \
    X(CR_ASSET_UNKNOWN_SECTION, "unknown section tag")                                    \
    X(CR_ASSET_DUPLICATE_SECTION, "section appears twice")                                \
    X(CR_ASSET_MISSING_SECTION, "required section missing")                               \
    X(CR_ASSET_SECTION_BOUNDS, "section lies outside the file or overlaps another")       \
    X(CR_ASSET_SECTION_ALIGN, "section offset not aligned to 16 bytes")                   \
    X(CR_ASSET_SECTION_SIZE, "section size does not match its element count")             \
    X(CR_ASSET_COUNT_LIMIT, "a count is zero where it must not be, or over its limit")    \
    X(CR_ASSET_NOT_FINITE, "a stored float is NaN or infinite")                           \
    X(CR_ASSET_VALUE_RANGE, "a stored value is out of its allowed range")                 \
    X(CR_ASSET_INDEX_RANGE, "an index points past the end of its array")                  \
    X(CR_ASSET_BAD_CSR, "a neighbour list's start offsets are not monotone or wrong")     \
    X(CR_ASSET_BAD_BONE_PARENT, "a bone's parent is not an earlier bone")                 \
    X(CR_ASSET_BAD_QUATERNION, "a rotation quaternion is not of unit length")             \
    X(CR_ASSET_BAD_WEIGHTS, "skinning weights negative or not summing to 1")              \
    X(CR_ASSET_BAD_INERTIA, "principal moments not positive, not a triangle, or impossible for the volume and radius") \
    X(CR_ASSET_BAD_BOUND_RADIUS, "the bound radius does not cover every vertex")          \
    X(CR_ASSET_BAD_SDF, "neighbouring distance-grid values differ by more than a cell length") \
    X(CR_ASSET_BLOCK_TOO_SMALL, "block smaller than cr_asset_memory_size()")             \
    X(CR_ASSET_BLOCK_MISALIGNED, "block not aligned to CR_BLOCK_ALIGN")

typedef enum cr_asset_check {
#define CR_X_ASSET_ENUM_(name, msg) name,
    CR_ASSET_CHECK_LIST(CR_X_ASSET_ENUM_)
#undef CR_X_ASSET_ENUM_
    CR_ASSET_CHECK_COUNT
} cr_asset_check;

/// What cr_asset_load found wrong: the check, the section, and where in it.
typedef struct cr_asset_error {
    cr_asset_check check;  ///< which check failed (CR_ASSET_OK on success)
    char section_tag[5];   ///< four-letter section tag ("VPOS", ...), "" for the header
    uint32_t index;        ///< element index (or byte offset for header/table checks)
} cr_asset_error;

/// Symbolic name of a check, e.g. "CR_ASSET_BAD_CHECKSUM".
const char *cr_asset_check_name(cr_asset_check c);
/// One-line explanation of a check.
const char *cr_asset_check_message(cr_asset_check c);

/// One bone of the skeleton.
typedef struct cr_asset_bone {
    int32_t parent;    ///< index of the parent bone, -1 for a root; always less than the bone's own index
    cr_transform rest; ///< the bone's frame at rest, in the body frame (m)
} cr_asset_bone;

/// One piece of a prescored asset (crumple/fracture.h): a complete cooked
/// asset nested in this file, cooked in the same mesh frame as the whole.
typedef struct cr_asset_piece {
    uint32_t offset;     ///< byte offset of the piece's own asset in this file (16-aligned)
    uint32_t size;       ///< its bytes
    cr_real volume;      ///< m^3, the piece's volume (its own asset says the same)
    cr_vec3 centroid;    ///< m, its centre of mass in this asset's body frame
} cr_asset_piece;
#define CR_ASSET_MAX_PIECES 65536u

/// One bond of the support graph: two pieces that share cut faces.
typedef struct cr_asset_bond {
    uint32_t a, b;       ///< piece indices, a < b
    cr_real area;        ///< m^2 of the shared cut faces
    cr_vec3 centroid;    ///< m, their centroid, body frame
    cr_vec3 normal;      ///< unit, from piece a into piece b, body frame
} cr_asset_bond;

/// Kinds of a soft asset's springs (crumple/spring.h).
typedef enum cr_asset_spring_kind {
    CR_ASSET_SPRING_STRUCTURAL = 0, ///< an edge of the mesh
    CR_ASSET_SPRING_BENDING = 1,    ///< between the two vertices opposite an edge
    CR_ASSET_SPRING_INTERNAL = 2    ///< between two vertices through the interior (a closed body's shape)
} cr_asset_spring_kind;

/// One spring of a cooked soft asset, between two vertices (= particles).
typedef struct cr_asset_spring {
    uint32_t a, b;       ///< vertex indices, a < b
    uint32_t kind;       ///< cr_asset_spring_kind
    cr_real rest;        ///< m, rest length in the body frame
} cr_asset_spring;

/// Mesh quality found by the cooker (reported, not hidden).
typedef struct cr_asset_topology {
    uint32_t boundary_edges;     ///< edges with one triangle: holes (0 for a closed mesh)
    uint32_t nonmanifold_edges;  ///< edges with more than two triangles, or two that disagree on orientation
    uint32_t components;         ///< connected pieces of surface
    uint32_t welded_vertices;    ///< duplicate positions merged by the cooker
    uint32_t dropped_triangles;  ///< degenerate or duplicate triangles removed
    bool closed;                 ///< no boundary or non-manifold edge: mass came from the surface, not the grid
} cr_asset_topology;

/// One bone's part of a bendable asset's grid (bending's cooked segmentation,
/// docs/bending.md): the integer moments of the inside nodes (phi < 0) the
/// bone owns, in node indices (i, j, k) (the node at sdf_origin + (i, j, k) *
/// sdf_cell). Exact, so the mass, centre and inertia made from them are the
/// same bits whether they were cooked or summed at attach.
typedef struct cr_asset_bone_moments {
    int64_t count;       ///< inside nodes the bone owns
    int64_t sum[3];      ///< sum of i, j, k
    int64_t sum_sq[3];   ///< sum of i*i, j*j, k*k
    int64_t sum_cross[3]; ///< sum of i*j, i*k, j*k
} cr_asset_bone_moments;

/// Read-only view of a loaded asset. Arrays are null when their count is 0.
typedef struct cr_asset {
    /* surface, in the body frame */
    uint32_t vertex_count;
    uint32_t triangle_count;
    const cr_vec3 *positions;      ///< [vertex_count] m
    const cr_vec3 *normals;        ///< [vertex_count] outward unit normals (area weighted)
    const uint32_t *triangles;     ///< [3 * triangle_count] vertex indices, counter-clockwise seen from outside

    /* collision sample points (seed 002: surface vertices tested against the other body's grid) */
    uint32_t sample_count;
    const cr_vec3 *samples;        ///< [sample_count] m; equal to positions[sample_vertex[i]]
    const uint32_t *sample_vertex; ///< [sample_count] the vertex each sample is

    /* signed distance grid: values at nodes origin + (i, j, k) * cell, x fastest */
    cr_vec3 sdf_origin;            ///< m, node (0,0,0)
    cr_real sdf_cell;              ///< m, node spacing
    cr_real sdf_inv_cell;          ///< 1/m, so sampling needs no division
    uint32_t sdf_dims[3];          ///< nodes along x, y, z (each >= 2)
    const cr_real *sdf;            ///< [dims x*y*z] m, negative inside

    /* mass properties for unit density */
    cr_real volume;                ///< m^3 (= mass at density 1)
    cr_vec3 inertia;               ///< principal moments about the centre of mass, m^5 (kg m^2 per kg/m^3)
    cr_transform mesh_to_body;     ///< cooked mesh frame -> body frame (x_body = q * x_mesh + p)
    cr_real surface_area;          ///< m^2

    /* bounds in the body frame */
    cr_vec3 bounds_min, bounds_max; ///< m, of the vertices
    cr_real bound_radius;          ///< m, largest |vertex| (sphere about the centre of mass)

    /* surface neighbourhoods as CSR lists: entries start[v] .. start[v+1]-1 */
    const uint32_t *adjacency_start;    ///< [vertex_count + 1]
    const uint32_t *adjacency;          ///< one-ring neighbours, ascending index
    uint32_t geodesic_count;            ///< total entries of the geodesic lists
    cr_real geodesic_radius;            ///< m, the lists hold vertices within this edge-path distance
    const uint32_t *geodesic_start;     ///< [lists + 1]: lists = geodesic_patch_count, or vertex_count when that is 0
    const uint32_t *geodesic_vertex;    ///< nearest first (Dijkstra order); a vertex's own list leaves it out,
                                        ///< a patch's list starts with its centre
    const cr_real *geodesic_distance;   ///< m, edge-path distance of each entry from the list's vertex or patch centre,
                                        ///< non-decreasing per list
    uint32_t geodesic_patch_count;      ///< 0: one list per vertex; else one per patch (compact: a vertex reads its patch's)
    cr_real geodesic_patch_radius;      ///< m, no vertex is farther from its patch's centre (a distance read
                                        ///< through the patch is off by at most this); 0 without patches
    const uint32_t *geodesic_patch;     ///< [vertex_count] the patch of each vertex, NULL without patches

    /* skeleton (seed 000 bending, seed 001 example-based plasticity); bone_count may be 0 */
    uint32_t bone_count;
    const cr_asset_bone *bones;         ///< [bone_count], parents before children
    const uint8_t *skin_bone;           ///< [4 * vertex_count] bone index per influence
    const cr_real *skin_weight;         ///< [4 * vertex_count] weights, sum 1 per vertex, unused slots 0
    uint32_t example_count;             ///< example poses, example 0 is the rest pose (0 without bones)
    const cr_transform *examples;       ///< [example_count * bone_count] skinning transform of each bone,
                                        ///< body frame rest -> body frame example; example-major

    /* squishy skin (seed 003, crumple/squash.h): the skeleton whose f = c the mesh lies on; count 0 if rigid */
    uint32_t squash_primitive_count;
    const struct cr_squash_primitive *squash_primitives; ///< [squash_primitive_count], body frame
    cr_real squash_isovalue;            ///< c
    /* prescored fracture (crumple/fracture.h); piece_count 0 for other assets */
    uint32_t piece_count;
    const cr_asset_piece *pieces;       ///< [piece_count]
    uint32_t bond_count;
    const cr_asset_bond *bonds;         ///< [bond_count], the support graph
    /* soft (mass-spring) asset (crumple/spring.h, `crumple cook --soft`); soft_spring_count 0 for other assets */
    uint32_t soft_spring_count;
    const cr_asset_spring *soft_springs;  ///< [soft_spring_count] structural, then bending, then internal
    const cr_real *soft_mass_weights;     ///< [vertex_count] each particle's share of the body's mass (sum 1)

    /* bending's segmentation, cooked (`crumple cook --bend`, docs/bending.md); NULL when not cooked */
    const uint8_t *bend_triangle_bone;  ///< [triangle_count] the bone each triangle belongs to
    const uint8_t *bend_node_bone;      ///< [sdf node count] the bone that owns each grid node
    const cr_asset_bone_moments *bend_moments; ///< [bone_count] each bone's inside nodes as moments; NULL when not cooked

    cr_asset_topology topology;
    uint64_t checksum;                  ///< the file's checksum: equal checksums, equal cooked bytes
} cr_asset;

/// Bytes of block cr_asset_load needs for these bytes (0 if the header or
/// section table is not valid; the load call then says why).
size_t cr_asset_memory_size(const void *bytes, size_t size);

/// One section of a cooked asset as a game keeps it resident beside its
/// world block: the file's bytes (the view reads them in place) and the load
/// block's converted copy (cr_asset_memory_size is the sum of block_bytes).
typedef struct cr_asset_section_bytes {
    char tag[5];            ///< the section's tag, "VPOS", ...; "HEAD" for header, table and padding
    uint64_t file_bytes;    ///< bytes of the file
    uint64_t block_bytes;   ///< bytes of the load block (0 where the file is used in place: float, little-endian)
    const char *what;       ///< what it holds, e.g. "geodesic neighbours"
    const char *read_by;    ///< which parts of the runtime read it, e.g. "example plasticity"
} cr_asset_section_bytes;

/// The resident bytes of a cooked asset section by section (those with any
/// bytes, then "HEAD"), at most `capacity` into `out`; returns how many
/// there are (0 when the bytes are not an asset). The file bytes add up to
/// `size`, the block bytes to cr_asset_memory_size.
uint32_t cr_asset_resident_report(const void *bytes, size_t size, cr_asset_section_bytes *out, uint32_t capacity);

/// Validate a cooked asset completely, then fill `out` with a view of it.
/// `block` (aligned to CR_BLOCK_ALIGN) receives converted arrays. On failure
/// returns CR_ERR_BAD_ASSET (or CR_ERR_NULL_ARGUMENT / CR_ERR_BLOCK_TOO_SMALL /
/// CR_ERR_BLOCK_MISALIGNED), zeroes *out, and fills *err if err is not null.
cr_status cr_asset_load(const void *bytes, size_t size, void *block, size_t block_size, cr_asset *out,
                        cr_asset_error *err);

/// The bytes of piece i's own cooked asset inside a prescored asset's file
/// (`bytes`, `size`: the file `a` was loaded from). Load them with
/// cr_asset_load like any asset. CR_ERR_ARGUMENT_RANGE for i >= piece_count.
cr_status cr_asset_piece_bytes(const cr_asset *a, const void *bytes, size_t size, uint32_t i, const void **piece_bytes,
                               size_t *piece_size);
/// The body pose that puts the mesh where the level has it ("as modelled").
/// A cooked asset lives in its principal frame (centre of mass at the origin,
/// axes along the principal moments); `mesh_in_level` is the transform the
/// level editor gives the mesh as it was modelled (mesh file frame -> world).
/// The result goes into cr_body_def.position/orientation, so the body's
/// vertices (cr_body_get_mesh, body frame) land where the artist put them:
///     body pose = mesh_in_level * inverse(asset->mesh_to_body)
/// cr_body_create_as_modelled (body.h) does this and creates the body.
cr_transform cr_asset_body_pose(const cr_asset *asset, cr_transform mesh_in_level);

/// The checksum the format uses (64-bit, see docs/asset-format.md); the cooker
/// calls it too, so writer and loader cannot disagree.
uint64_t cr_asset_checksum(const void *bytes, size_t size);

/// Signed distance (m, negative inside) at a body-frame point, by trilinear
/// interpolation of the grid. If normal_out is not null it receives the
/// outward unit normal from the gradient. Outside the grid the value is the
/// distance to the grid box plus the value at the nearest boundary point, and
/// the normal points away from the box.
cr_real cr_asset_sdf(const cr_asset *asset, cr_vec3 p_local, cr_vec3 *normal_out);

#ifdef __cplusplus
}
#endif

#endif
