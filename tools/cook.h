/* cook.h — the cooker: an OBJ mesh (+ optional rig and example poses) in, one
 * cooked asset (docs/asset-format.md) out. Tools only: malloc and doubles are
 * fine here, but every byte written must be the same on every machine.
 *
 * Stages, in order (each timed, see cr_cook_timings):
 *   read      OBJ text -> positions + triangles                   (obj.c)
 *   clean     scale/recentre/normalise, weld, drop degenerate and
 *             duplicate triangles, topology report                 (cook_mesh.c)
 *             orientation, shell by shell                          (cook_shells.c)
 *   mass      volume, centre of mass, inertia, principal frame:
 *             from the surface if closed, from a winding-number
 *             occupancy grid if not                                (cook_mass.c)
 *   sdf       signed distance grid in the body frame: exact
 *             distance over a BVH, sign from the fast generalised
 *             winding number, re-distanced across holes            (cook_bvh.c, cook_sdf.c,
 *                                                                  cook_redistance.c)
 *   surface   normals, sample points, adjacency, geodesic lists    (cook_surface.c)
 *   skin      rig or automatic bones, voxel-geodesic skinning
 *             weights, example poses                               (cook_skin.c)
 *   write     sections, checksum, atomic write                     (cook_write.c)
 *
 * Determinism: only + - * / and sqrt on doubles (IEEE, -ffp-contract=off),
 * the cooker's own atan for solid angles, fixed iteration orders and total
 * orders in every sort. So one input and one set of options give one file.
 */
#ifndef CRUMPLE_TOOLS_COOK_H
#define CRUMPLE_TOOLS_COOK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "obj.h"

/// Cooking options; fill with cr_cook_default_options().
typedef struct cr_cook_options {
    double scale;            ///< multiply every coordinate (applied first); default 1
    double normalise;        ///< > 0: then scale so the longest bounding-box side is this long; 0 = off
    bool recentre;           ///< move the bounding-box centre to the origin of the mesh frame
    double weld_distance;    ///< merge vertices closer than this (after scaling); 0 = identical positions only
    int sdf_res;             ///< grid cells along the longest axis, padding included; default 64
    int sdf_pad;             ///< cells of padding on every side; default 3
    uint32_t max_samples;    ///< cap on collision sample points (farthest-point thinning); 0 = every vertex
    uint32_t mass_cells;     ///< most cells of the occupancy grid that integrates an open mesh's mass; default 2^21
    double geodesic_radius;  ///< edge-path radius of the geodesic lists; 0 = 0.25 x bounding radius
    uint32_t geodesic_max;   ///< entries kept per vertex, nearest first; default 16
    double geodesic_patch;   ///< > 0: lists per patch of vertices within this edge-path distance of its centre
                             ///< (cook_surface.c), not per vertex; 0 = one list per vertex (default)
    uint32_t auto_bones;     ///< > 0: place this many bones inside the shape (when no rig is given)
    const char *rig_path;    ///< rig text file (docs/asset-format.md), or NULL
    const char *poses_path;  ///< example poses text file, or NULL (needs bones)
    const char *skeleton_path; ///< squishy skin (seed 003): skeleton text file the mesh lies on (tools/cook_squash.c), or NULL
    uint32_t fit_skeleton;   ///< > 0: fit this many point primitives to the mesh and cook their skin instead (tools/squash_fit.c)
    const struct cr_cook_squash *skeleton; ///< a skeleton (OBJ coordinates) the mesh lies on, instead of skeleton_path; set by the fit
    bool quiet;              ///< no progress bar or report on stderr
    /* set by the prescoring cooker (cook_fracture.c), NULL / false otherwise */
    bool keep_slivers;       ///< keep triangles of no area: a piece's cut faces, which a drop would open
    const struct cr_cook_mass *mass;         ///< use these mass properties (a piece's before its crack gap) instead of the surface's
    const struct cr_cook_fracture *fracture; ///< the pieces and bonds to store with the whole
    /* a soft (mass-spring) asset: remesh, then particles and springs (cook_soft.h, docs/mass-spring.md) */
    bool soft;               ///< write SPRP and SPRS
    double soft_spread;      ///< remesh when the longest edge is more than this times the shortest; default 2.5
    double soft_edge;        ///< m, the remesher's target edge length; 0 = the mean edge
    uint32_t soft_internal;  ///< internal chords cast per vertex of a closed mesh (0 none, at most 5); default 1
    bool soft_area_masses;   ///< particle mass a third of its triangles' area; false: equal (the seed's)
    bool bend;               ///< a rigged asset: cook bending's segmentation (BNDT, BNDN, BNDM; tools/cook_bend.c)
    uint32_t leave_out;      ///< CR_COOK_LEAVE_* bits: sections no model of the game will read (`--models`); 0 = keep all
} cr_cook_options;

/// Sections a cooker may leave out of an asset (`crumple cook --models LIST`):
/// the loader accepts them empty and the models that read them refuse such
/// an asset at attach (docs/asset-format.md).
#define CR_COOK_LEAVE_ADJACENCY 1u ///< ADJS, ADJI: read only by soft bodies built from a mesh
#define CR_COOK_LEAVE_GEODESICS 2u ///< GEOS, GEOI, GEOD, GPAT: read only by example plasticity
/// The leave_out bits when soft bodies (`soft`) or example plasticity
/// (`example`) will, or will not, be made from the asset.
uint32_t cr_cook_leave_out_unless(bool soft, bool example);
/// The leave_out bits for a comma-separated list of the models a game will
/// attach (rigid dent bend example squash fracture soft); 0, or -1 with
/// *bad pointing at the word it does not know.
int cr_cook_models_leave_out(const char *list, uint32_t *leave_out, const char **bad, size_t *bad_len);

cr_cook_options cr_cook_default_options(void);
/// 0 when the options are in range, else -1 with the offending option named in err
/// ("--sdf-res must be between 8 and 1023"); the command turns that into bad usage (exit 2).
int cr_cook_check_options(const cr_cook_options *opt, char *err, size_t err_size);

/// Progress bar on stderr for work over a second (silent when quiet).
typedef struct cr_cook_progress {
    const char *label;
    double start, last;
    bool quiet, shown, done;
} cr_cook_progress;
void cr_cook_progress_begin(cr_cook_progress *p, const char *label, bool quiet);
void cr_cook_progress_update(void *p, double fraction);
void cr_cook_progress_end(cr_cook_progress *p);
double cr_cook_now(void);

/// The cooker's working mesh: double precision, indices into pos.
typedef struct cr_cook_mesh {
    double *pos;             ///< 3 per vertex
    uint32_t *tri;           ///< 3 per triangle
    uint32_t vertex_count, triangle_count;
    double frame_s, frame_o[3];  ///< mesh frame = frame_s * (OBJ coordinates) + frame_o
    /* topology report */
    uint32_t welded_vertices, dropped_triangles, boundary_edges, nonmanifold_edges, components;
    uint32_t holes;          ///< connected loops of boundary edges
    bool flipped;            ///< some shell was inside out and was reversed (flipped_shells > 0)
    uint32_t shells;         ///< connected components, as cr_cook_orient_shells numbers them (1 = first in the file)
    uint32_t agreed_triangles; ///< triangles reversed to agree with their neighbours across shared edges
    uint32_t flipped_shells; ///< shells reversed: inside out, or inside one that was
    uint32_t nested_same;    ///< shells inside another that face its way (a solid in a solid: mass from the grid)
    uint32_t crossing_shells; ///< shells partly inside another (overlapping parts: mass from the grid)
    char shell_note[256];    ///< the outermost reversed shells, named ("shell 2 of 2 (4 triangles, box centre ...)")
} cr_cook_mesh;

/// Mass properties for unit density.
typedef struct cr_cook_mass {
    double volume;           ///< m^3
    double com[3];           ///< centre of mass in the mesh frame
    double inertia[3];       ///< principal moments, ascending, about the centre of mass
    double axes[3][3];       ///< axes[k] = k-th principal axis in the mesh frame (right-handed)
    double q[4];             ///< mesh -> body rotation as a unit quaternion (x y z w)
    bool from_surface;       ///< true: exact surface integrals; false: occupancy grid
} cr_cook_mass;

/// What re-distancing changed (cook_redistance.c): none of it for a closed mesh.
typedef struct cr_cook_redistance_report {
    uint32_t cap_edges;      ///< grid edges the sign changes across with no triangle between their nodes (a hole's cap)
    uint32_t cap_nodes;      ///< nodes nearer such a cap than any triangle, whose value is now the distance to the cap
} cr_cook_redistance_report;

/// Per-stage wall times in seconds (not part of the cooked bytes).
typedef struct cr_cook_timings {
    double read, clean, mass, sdf_distance, sdf_sign, surface, skin, write, total;
} cr_cook_timings;

/// The cooked file in memory plus what the report needs.
typedef struct cr_cook_result {
    uint8_t *bytes;          ///< malloc'd
    size_t size;
    cr_cook_timings time;
    cr_cook_mass mass;
    uint32_t vertex_count, triangle_count, sample_count, bone_count, example_count;
    uint32_t sdf_dims[3];
    double sdf_cell;
    uint32_t boundary_edges, nonmanifold_edges, components, welded_vertices, dropped_triangles;
    uint32_t holes, agreed_triangles, flipped_shells, nested_same, crossing_shells; ///< as in cr_cook_mesh
    cr_cook_redistance_report redistance; ///< what the grid's re-distancing across holes changed
    size_t section_bytes[32];    ///< per section, in the format's order (room for sections to come)
    uint64_t left_out_bytes;     ///< what cr_cook_options.leave_out saved
    /* --soft: the remesher's edge-length spread (longest / shortest) before and after, and the springs */
    bool soft_remeshed;
    double soft_spread_before, soft_spread_after;
    uint32_t soft_structural, soft_bending, soft_internal;
} cr_cook_result;

/// Cook a parsed OBJ. Returns 0, or -1 with "file:line: message" in err.
int cr_cook_obj(const char *name, const cr_obj *obj, const cr_cook_options *opt, cr_cook_result *out, char *err,
                size_t err_size);
/// Read, cook and (if out_path) atomically write. Returns 0 or -1 as above.
int cr_cook_file(const char *in_path, const char *out_path, const cr_cook_options *opt, cr_cook_result *out, char *err,
                 size_t err_size);
void cr_cook_result_free(cr_cook_result *r);

/* ---- stages (used by cook.c and by the tests) ------------------------------ */

/// Apply scale/normalise/recentre, weld, drop degenerate/duplicate triangles,
/// drop unused vertices, count boundary/non-manifold edges and components, and
/// reverse inside-out meshes. Returns 0 or -1 with a message.
int cr_cook_clean(const cr_obj *obj, const cr_cook_options *opt, cr_cook_mesh *out, char *err, size_t err_size);
void cr_cook_mesh_free(cr_cook_mesh *m);
/// Make the triangles of each shell agree across their shared edges, then
/// turn each shell (connected component; `vertex_root` gives each vertex's
/// component as any one vertex of it) the way its place among the others
/// says (cook_shells.c): an outermost shell encloses positive volume, a shell
/// inside another keeps its way relative to it. Sets shells, flipped_shells,
/// agreed_triangles, nested_same, crossing_shells and shell_note. Returns 0, or -1 out of memory.
int cr_cook_orient_shells(cr_cook_mesh *m, const uint32_t *vertex_root);
/// Signed volume of a triangle soup by the divergence theorem (m^3).
double cr_cook_signed_volume(const double *pos, const uint32_t *tri, uint32_t triangle_count);

/// Bounding volume hierarchy over a triangle soup, with the per-node data
/// the fast winding number needs (area-weighted normal sum, centre, radius).
typedef struct cr_bvh cr_bvh;
cr_bvh *cr_bvh_build(const double *pos, const uint32_t *tri, uint32_t triangle_count);
void cr_bvh_free(cr_bvh *b);
/// Exact distance from q to the nearest triangle; *tri_io is a hint in (a
/// triangle likely to be close, or UINT32_MAX) and the nearest triangle out.
double cr_bvh_distance(const cr_bvh *b, const double q[3], uint32_t *tri_io);
/// min(exact distance from q to the mesh, limit): cheap when nothing is that near.
double cr_bvh_distance_bounded(const cr_bvh *b, const double q[3], double limit);
/// Generalised winding number at q (about 1 inside, 0 outside, smooth across
/// holes): exact near q, dipole far-field for clusters seen from far away.
double cr_bvh_winding(const cr_bvh *b, const double q[3]);
/// Exact winding number by summing every triangle (for tests).
double cr_winding_exact(const double *pos, const uint32_t *tri, uint32_t triangle_count, const double q[3]);
/// Exact point-triangle distance (for tests and the BVH).
double cr_point_triangle_distance(const double q[3], const double a[3], const double b[3], const double c[3]);
/// The cooker's own atan2 (deterministic on every libm).
double cr_cook_atan2(double y, double x);

/// Mass properties of a cleaned mesh in its mesh frame. `res` is the
/// occupancy grid resolution used when the mesh is not closed; prog may be NULL.
/// bvh may be NULL only for a closed mesh: if its surface encloses no volume,
/// out->from_surface comes back false and the caller asks again with a BVH.
void cr_cook_mass_properties(const cr_cook_mesh *m, const cr_bvh *bvh, int res, cr_cook_mass *out, cr_cook_progress *prog);
/// Eigen-decomposition of a symmetric 3x3 matrix by cyclic Jacobi sweeps:
/// values ascending, vectors[k] the unit vector of values[k], right-handed.
void cr_cook_eigen_sym3(double a[3][3], double values[3], double vectors[3][3]);


/// Signed distance grid. `values` is malloc'd, x fastest.
typedef struct cr_cook_grid {
    double origin[3];
    double cell;
    uint32_t dims[3];
    float *values;
} cr_cook_grid;
/// Lay out the grid around the vertices' bounds (res cells on the longest axis, pad of them padding).
void cr_cook_grid_layout(const double *pos, uint32_t vertex_count, int res, int pad, cr_cook_grid *g);
/// Fill grid values: exact unsigned distance, sign from the winding number,
/// re-distanced across holes (cr_cook_redistance; rep may be NULL).
/// `progress` (may be NULL) is called with fractions in [0,1].
int cr_cook_grid_fill(cr_cook_grid *g, const cr_bvh *bvh, void (*progress)(void *, double), void *user, double *t_dist,
                      double *t_sign, cr_cook_redistance_report *rep);
void cr_cook_grid_free(cr_cook_grid *g);

/// Signed values from a grid's nodes' exact unsigned distances `dist` (m) and
/// winding numbers: sign of w > 1/2 (inside, negative), magnitude the distance
/// to the nearest triangle or to the nearest point where the sign changes
/// with no triangle there, whichever is nearer, so neighbouring values differ
/// by at most their spacing. `cell` is the node spacing (m); `value` gets
/// dims[0] dims[1] dims[2] values, x fastest. Returns 0, or -1 out of memory.
int cr_cook_redistance(const uint32_t dims[3], double cell, const double *dist, const double *winding, double *value,
                       cr_cook_redistance_report *rep);

/// Surface data in the body frame.
typedef struct cr_cook_surface {
    float *normals;              ///< 3 per vertex
    uint32_t *sample_vertex;     ///< sample_count
    uint32_t sample_count;
    uint32_t *adj_start, *adj;   ///< CSR one-ring
    uint32_t adj_count;
    uint32_t *geo_start, *geo;   ///< CSR geodesic lists
    float *geo_dist;
    uint32_t geo_count;
    double geo_radius;
    uint32_t *geo_patch;         ///< vertex_count patch of each vertex when geo_patch_count > 0, else NULL
    uint32_t geo_patch_count;    ///< lists are per patch (its centre's) when > 0, per vertex when 0
    double geo_patch_radius;     ///< the farthest vertex from its patch's centre (edge path)
    double area;
} cr_cook_surface;
int cr_cook_surface_build(const cr_cook_mesh *m, const cr_cook_options *opt, double bound_radius, cr_cook_surface *s,
                          cr_cook_progress *prog);
void cr_cook_surface_free(cr_cook_surface *s);

/// Skeleton, weights and poses, in the body frame.
typedef struct cr_cook_skin {
    uint32_t bone_count, example_count;
    int32_t *parent;          ///< bone_count
    double *rest;             ///< 7 per bone: p xyz, q xyzw
    uint8_t *skin_bone;       ///< 4 per vertex
    float *skin_weight;       ///< 4 per vertex
    double *examples;         ///< 7 per (example, bone)
} cr_cook_skin;

/// How the cooker moved the mesh: body = Q (s x + o) + p for a point x of the OBJ file.
typedef struct cr_cook_frame {
    double s, o[3];           ///< cook scale and offset (scale/normalise/recentre)
    double R[3][3];           ///< rows: mesh -> body rotation (R x)
    double q[4];              ///< the same rotation as a quaternion
    double p[3];              ///< translation after rotation
} cr_cook_frame;

/// The skin weights' rule (cook_skin.c): part of a scene's asset cache key,
/// so a change to the rule re-cooks every skinned asset instead of reading a
/// stale one (2: compact, continuous weights).
#define CR_COOK_SKIN_RULE 2u

/// Build bones from the rig file or automatically, weights over the grid,
/// and example poses. Errors name the rig/pose file and line.
int cr_cook_skin_build(const cr_cook_mesh *body_mesh, const cr_cook_grid *grid, const cr_cook_frame *frame,
                       const cr_cook_options *opt, cr_cook_skin *out, char *err, size_t err_size, cr_cook_progress *prog);
void cr_cook_skin_free(cr_cook_skin *s);

/// A prescored asset's pieces and support graph (cook_fracture.c), in the
/// whole's body frame; the pieces are complete cooked assets of their own.
typedef struct cr_cook_fracture {
    uint32_t piece_count, bond_count;
    uint8_t **piece_bytes;     ///< [piece_count] each piece's cooked asset
    size_t *piece_size;
    double *piece_volume;      ///< [piece_count] m^3
    double *piece_centroid;    ///< 3 per piece, m, whole body frame
    uint32_t *bond_pair;       ///< 2 per bond, a < b, pairs ascending
    double *bond_area;         ///< m^2
    double *bond_centroid;     ///< 3 per bond, whole body frame
    double *bond_normal;       ///< 3 per bond, unit, from a into b
} cr_cook_fracture;

/// Everything the writer needs.
typedef struct cr_cook_asset {
    const cr_cook_mesh *mesh;      ///< in the body frame
    const cr_cook_surface *surface;
    const cr_cook_grid *grid;
    const cr_cook_skin *skin;
    const cr_cook_mass *mass;
    const cr_cook_frame *frame;
    const struct cr_cook_squash *squash; ///< squishy skeleton in the body frame, or NULL
    double bounds_min[3], bounds_max[3], bound_radius;
    const cr_cook_fracture *fracture; ///< NULL: not prescored (the fracture sections stay empty)
    const struct cr_cook_soft *soft;  ///< NULL: not a soft asset (SPRP and SPRS stay empty)
    const uint8_t *bend_triangle_bone; ///< NULL: no segmentation (BNDT and BNDN stay empty); else one per triangle
    const uint8_t *bend_node_bone;     ///< one per grid node
    const int64_t *bend_moments;       ///< NULL: BNDM stays empty; else 10 per bone (crumple/asset.h cr_asset_bone_moments order)
} cr_cook_asset;
/// Serialise to the asset format (malloc'd bytes). Returns 0 or -1.
int cr_cook_write(const cr_cook_asset *a, uint8_t **bytes, size_t *size, size_t section_bytes[32], char *err, size_t err_size);


#endif
