/* squash.h — the local deformation of seed 003 §3 on a squishy body's skin
 * (internal): compression, C1 dilation, direction dependence, the volume
 * rule, and the soft contact force of §2.3 step 3. No world needed: the
 * model (squash_model.c) and the tests call it on arrays.
 *
 * For the skin f1 = c of body 1 and the potential f2 of each other body k
 * (in body 1's frame), the deformed potential is
 *     F1 = f1 + sum_k d_k(f2k),   d_k(x) = c - x          x >= c   (compression)
 *                                        = b1(x; c1, h)   c1 <= x < c (dilation)
 *                                        = 0              otherwise,
 * b1 two cubics meeting at the peak (m, h): b1(c1) = b1'(c1) = 0, b1(m) = h,
 * b1'(m) = 0, b1(c) = 0, b1'(c) = -1. F1 is C1, so its iso-surface F1 = c is
 * tangent-continuous at both borders (the seed's argument, eq. 1).
 *
 * Decisions the seed leaves open (docs/squash.md):
 *   - c1(P) = c0 (1 + 1/2 cos a), a the angle between the other body's
 *     velocity D2 and -grad f2k(P) (the direction from the other body to P).
 *     The seed writes grad f1; on a flat face grad f1 is the same at every P
 *     and cannot tell front from back. With -grad f2 the front of an arriving
 *     body gets the larger c1: a shorter propagation zone.
 *   - The bump's height follows its width: h(P) = h (c - c0) / (c - c1(P)),
 *     so the front bump is higher as well as shorter, as the seed wants.
 *   - The peak m is the front-most border's, m = c1m + peak (c - c1m) with
 *     c1m = max(c1, 1.5 c0), alike at every vertex: the bump b1 makes at
 *     h = 0 (its slope -1 at c) is then alike front and back, and cannot make
 *     the back higher when s is small.
 *   - c1(P) and h(P) are taken at the vertex's rest position and held while
 *     Newton moves it (F1 stays one C1 function per vertex).
 *   - h = s x (the deepest compression potential of that contact), one scale
 *     s per body and step, chosen by the volume rule: the compression pass
 *     records each vertex's dy/ds, the volume with every vertex moved along
 *     it is a cubic in s (exact in the tetrahedra), its root (aimed lower by
 *     the model's shortfall in the last step) gives s; a pass from there, a
 *     step along the cubic's slope if it lands off, and s = 0 if the volume
 *     would still be above rest. The target leaves `volume_loss` of the
 *     compressed volume lost (and a hair more, so the model's error cannot
 *     push the volume above rest).
 *   - Where even the widest zone's bulge at its fold limit falls short (a
 *     squishy other buried past about 0.7 of its skin radius: the zone ends
 *     where its potential does), the bulge is held there and a second ring
 *     of the body's own field round the zone (cri_squash_ring: by distance
 *     from the zone's centre, C1 at both borders, its own fold limit) takes
 *     the rest, its height chosen by the same cubic model.
 */
#ifndef CRUMPLE_SQUASH_INTERNAL_H
#define CRUMPLE_SQUASH_INTERNAL_H

#include "crumple/squash.h"
#include "geometry/implicit_skeleton.h"

/// Other bodies whose potential can deform one skin in one step.
#define CRI_SQUASH_MAX_OTHERS 4
/// Share of the compressed volume the default rule leaves lost, so that the
/// nonlinear rest of the secant cannot take the volume above rest.
#define CRI_SQUASH_VOLUME_MARGIN CR_R(0.01)
/// A widened zone's c1 stays at or above this share of c (c1 > 0: the zone ends inside the other's reach).
#define CRI_SQUASH_C1_FLOOR CR_R(0.0625)
/// Newton stops where |F1 - c| is within this share of c (about 3e-5 m on
/// the bench's skin): a warm start that lands there takes no further step.
#define CRI_SQUASH_NEWTON_TOL CR_R(1e-6)
/// Largest bulge scale: h at most this many times the compression depth.
#define CRI_SQUASH_MAX_SCALE CR_R(64)

typedef enum cri_squash_other_kind { CRI_SQUASH_OTHER_SKELETON = 0, CRI_SQUASH_OTHER_SHAPE = 1 } cri_squash_other_kind;

/// One other body's potential seen from the squishy body.
typedef struct cri_squash_other {
    uint32_t kind;                      ///< cri_squash_other_kind
    cr_transform to_other;              ///< squishy body frame -> the other's frame
    const cr_squash_primitive *prims;   ///< skeleton (kind SKELETON), in the other's frame
    uint32_t count;
    cr_real scale;                      ///< its potential times this puts its surface at our c (c / c_other)
    const cr_world *world;              ///< shape (kind SHAPE): its signed distance
    const cr_shape_def *shape;
    cr_real reach;                      ///< m, the rigid potential's reach
    cr_vec3 bound_centre;               ///< squishy frame: outside this sphere its potential is 0
    cr_real bound_radius;
    cr_vec3 velocity;                   ///< m/s, D2: the other's velocity relative to the squishy body, its frame
    cr_real depth;                      ///< out: deepest f2 - c over the skin (the compression)
    uint32_t prim_groups;               ///< a group of the body's own skeleton (seed §4.2, self-contact): only the
                                        ///< primitives of these groups make its potential; 0: all of them
    uint32_t applies;                   ///< only the skin vertices of these groups see it (self-contact); 0: all
    cr_mat3 rot;                        ///< to_other's rotation as a matrix (cri_squash_deform fills it: 9 products
                                        ///< per point instead of a quaternion's 30, on the hottest path)
} cri_squash_other;

/// The second swelling ring (docs/squash.md, the volume rule): where even the widest zone's bulge, held at its fold
/// limit, gives back too little (a squishy other pressed past about 0.7 of its own skin radius: the zone ends where
/// its potential does), a bump of the body's own field around the zone, by distance r from the zone's centre:
///     F1 += s x unit x B(t),  B = 16 t^2 (1 - t)^2,  t = (r - r0) / width,  r0 <= r <= r0 + width,
/// value and slope 0 at both borders (C1), the other's potential not involved. While it is on, s drives the ring
/// and the bulge keeps the scale `bulge`.
typedef struct cri_squash_ring {
    uint32_t on;          ///< 0: no ring (s is the bulge's scale)
    cr_real bulge;        ///< the bulge's scale, held at its fold limit
    cr_vec3 centre;       ///< m, body frame: the mean rest place of the zone's vertices
    cr_real r0, width;    ///< m: the ring starts past every zone vertex (r0) and is this wide
    cr_real unit;         ///< potential per unit s (the deepest compression)
} cri_squash_ring;

/// The ring's term and gradient at p, times s (0 outside the ring or when it is off).
cr_potential cri_squash_ring_term(const cri_squash_ring *ring, cr_real s, cr_vec3 p);

/// The squishy body's own skeleton and material.
typedef struct cri_squash_params {
    const cr_squash_primitive *prims;
    uint32_t count;
    uint32_t newton_steps;
    cr_real c, c0, peak;
    cr_real volume_loss;
    cr_real max_step;      ///< m, longest Newton step (cri_squash_deform sets it: a quarter of the smallest radius of influence)
    cr_real widen_hint;    ///< the last step's widen_next: the zone starts this wide (1, 1.5 or 2.25; below 1: 1)
    cr_real model_bias;    ///< the last step's model_bias (a contact changes little in a step): the volume model aims this much lower
    const cr_real *grid;   ///< sculpting (seed §4.3): potential grid nodes (<= 0) added to the skeleton's potential, or NULL
    int32_t grid_dims[3];
    cr_vec3 grid_origin;   ///< m, node (0, 0, 0)
    cr_real grid_inv;      ///< 1/m, one over the node spacing
    cr_real fixed_scale;   ///< >= 0: the seed's own rule, h = this x the compression depth, no volume rule; < 0: the volume rule
    const uint8_t *vertex_group; ///< the blending graph (seed §4.2): each skin vertex's group, or NULL (every group blends)
    uint32_t blend[CR_SQUASH_MAX_GROUPS]; ///< with vertex_group: the groups whose primitives make group g's potential
    /* The split (docs/squash.md, the blending graph): a group g that blends with two groups a < b colliding with each
     * other (a shoulder between trunk and arm) takes at each vertex (1 - w) of a's side's field (the groups g and a
     * both blend with) and w of b's, w from the vertex's cooked place: 0 all along the border with a's vertices, 1
     * along b's, C1 between. No part of its own skeleton presses it (not dented by its own arm). */
    uint32_t split_mask;                  ///< the split groups (0: none)
    uint8_t split_a[CR_SQUASH_MAX_GROUPS], split_b[CR_SQUASH_MAX_GROUPS];
    cr_real split_lo[CR_SQUASH_MAX_GROUPS], split_hi[CR_SQUASH_MAX_GROUPS]; ///< w = smoothstep of r = d_a / (d_a + d_b) over [lo, hi]
    const cr_vec3 *cooked;                ///< with a split: each vertex's cooked rest place
    const cr_squash_primitive *cooked_prims; ///< with a split: the cooked skeleton (count primitives)
    cri_squash_ring ring;                 ///< the second ring (cri_squash_deform sets it on its own copy; a caller
                                          ///< evaluating a deformed skin copies the result's in)
} cri_squash_params;

/// The rest vertices bucketed in a grid (body frame), so a contact visits
/// the cells under it and not the whole body: cost follows the zone.
typedef struct cri_squash_cells {
    cr_vec3 origin;          ///< m, corner of cell (0, 0, 0)
    cr_real inv_cell;        ///< 1/m
    int32_t dims[3];
    const uint32_t *start;   ///< [cells + 1] each cell's first entry in vertex
    const uint32_t *vertex;  ///< [vertex_count] by cell, ascending within a cell
} cri_squash_cells;

/// A skin and the memory one deformation uses.
typedef struct cri_squash_skin {
    uint32_t vertex_count, triangle_count;
    const cr_vec3 *rest;              ///< [vertex_count] on f1 = c
    const cr_vec3 *rest_normals;      ///< [vertex_count]
    const uint32_t *triangles;        ///< [3 triangle_count], counter-clockwise from outside
    const uint32_t *tri_start;        ///< [vertex_count + 1] vertex -> triangles (cri_squash_vertex_triangles)
    const uint32_t *tri_list;         ///< [3 triangle_count]
    cr_vec3 *pos, *normals;           ///< [vertex_count] the drawn skin: zone vertices written, others untouched
    uint8_t *mark;                    ///< [vertex_count] scratch, all 0 between calls
    uint32_t *zone;                   ///< [zone_capacity] out: the zone vertices in scan order (by cell), then the second ring's
    cr_real *zone_c1;                 ///< [zone_capacity * CRI_SQUASH_MAX_OTHERS] scratch
    cr_real *zone_h;                  ///< [zone_capacity * CRI_SQUASH_MAX_OTHERS] scratch
    cr_vec3 *zone_dir;                ///< [zone_capacity] scratch: each zone vertex's dy/ds (the volume model)
    uint32_t zone_capacity;
    const cri_squash_cells *cells;    ///< or NULL: every vertex is tested against the others' bounds
    uint32_t *candidates;             ///< [vertex_count + triangle_count] scratch: the vertices within the others'
                                      ///< bounds, then the zone's triangles
} cri_squash_skin;

/// What one deformation did.
typedef struct cri_squash_result {
    uint32_t zone_count;      ///< vertices deformed
    uint32_t zone_dropped;    ///< vertices of the zone past zone_capacity (left at rest: counted)
    uint32_t work;            ///< vertices scanned + potential evaluations + triangles visited
    cr_real dv_compressed;    ///< m^3, the volume change with compression alone (<= 0)
    cr_real dv;               ///< m^3, the volume change of the final skin
    cr_real scale;            ///< the bulge scale s the volume rule chose
    cr_real scale_limit;      ///< the largest s that does not fold the skin over
    cr_real widen;            ///< the zone's widening: 1, or 1.5 and 2.25 when the bulge a narrower zone needs would fold
    cr_real widen_next;       ///< the width the next step should start at (its widen_hint)
    cr_real model_bias;       ///< how far the volume model fell short, share of the compressed volume (0..0.1)
    cri_squash_ring ring;     ///< the second ring, when the fold-limited bulge fell short (then scale is the ring's s)
    uint32_t ring_count;      ///< of zone_count, the ring's vertices (after the zone's own)
} cri_squash_result;

/// The squishy body's own potential: its skeleton's plus, when sculpting, the grid's (trilinear; 0 outside it).
cr_potential cri_squash_own_potential(const cri_squash_params *prm, cr_vec3 p);
/// The own potential skin vertex v follows: its group's blended field (cri_squash_own_potential without groups).
cr_potential cri_squash_vertex_potential(const cri_squash_params *prm, uint32_t v, cr_vec3 p);
/// The split's b-side share w in [0, 1] of skin vertex v (0 for a vertex of a group that is not split).
cr_real cri_squash_split_weight(const cri_squash_params *prm, uint32_t v);
/// Find the split groups of a blending graph (vertex groups vg, the cooked skin and skeleton in prm; triangles to
/// find the borders) and fill prm's split fields. A group whose borders' r ranges overlap (lo >= hi) is not split
/// (it sees both sides, the old rule). Returns the split mask.
uint32_t cri_squash_split_build(cri_squash_params *prm, const uint32_t *triangles, uint32_t triangle_count);
/// Print d (< 0 lowers the potential) into the grid around p, trilinear weights, nodes kept >= floor.
void cri_squash_grid_print(const cri_squash_params *prm, cr_real *grid, cr_vec3 p, cr_real d, cr_real floor);
/// b1(x) and b1'(x) for the dilation on [c1, c] with peak (m, h); 0 outside.
cr_real cri_squash_bulge(cr_real x, cr_real c1, cr_real m, cr_real h, cr_real c, cr_real *slope);
/// The other body's potential (scaled to our c) and gradient at p, squishy frame.
cr_potential cri_squash_other_potential(const cri_squash_other *o, cr_vec3 p);
/// Bucket n rest vertices in at most max_cells cells (start: [max_cells + 1],
/// vertex: [n]); returns the cells used.
uint32_t cri_squash_cells_build(const cr_vec3 *rest, uint32_t n, uint32_t max_cells, cri_squash_cells *g, uint32_t *start,
                                uint32_t *vertex);
/// Build the vertex -> triangle lists: start [n + 1], list [3 t].
void cri_squash_vertex_triangles(const uint32_t *triangles, uint32_t t, uint32_t n, uint32_t *start, uint32_t *list);
/// The deformed potential F1 and its gradient at p, for zone vertex slot z (c1 and h held per vertex).
cr_potential cri_squash_deformed_potential(const cri_squash_params *prm, const cri_squash_skin *skin, uint32_t z,
                                           const cri_squash_other *others, uint32_t n_others, cr_real scale,
                                           cr_vec3 p);
/// Deform the skin by the others' potentials (the whole of §3 with the
/// volume rule). Vertices that were in the last call's zone and are not in
/// this one are put back at rest first (prev/prev_count: the last zone).
cri_squash_result cri_squash_deform(const cri_squash_params *prm, cri_squash_skin *skin, cri_squash_other *others,
                                    uint32_t n_others, const uint32_t *prev, uint32_t prev_count);
/// §2.3 step 3, after cri_squash_deform (its zone: zone_count vertices):
/// R1 = -R2 = sum over the interpenetration vertices of
/// (f2 - c) N1 x stiffness x vertex area, on body 1 (N1: its outward rest
/// normal, so the force pushes body 1 away). Returns the force (N, squishy
/// frame); *point gets where it acts (the force-weighted mean of the vertices).
cr_vec3 cri_squash_contact_force(const cri_squash_params *prm, const cri_squash_skin *skin, const cri_squash_other *o,
                                 uint32_t zone_count, cr_real stiffness, cr_real vertex_area, cr_vec3 *point,
                                 uint32_t *work);

#endif
