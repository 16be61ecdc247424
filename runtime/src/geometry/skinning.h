/* skinning.h — skinned positions from blends of bone frames (internal),
 * shared by the models that re-skin a surface (example plasticity, seed 001
 * eq. 3; bending, seed 000 §4).
 *
 * A bone frame is a rotation about the bone's own pivot (its rest head,
 * asset.bones[b].rest.p) followed by a translation of that pivot. The asset
 * stores each example as a skinning transform about the body origin
 * (x' = q x + p); blending those directly would swing a bone's pivot on an arc
 * around the origin (44 cm off at 90 degrees for a bone 1.5 m out), so every
 * example is re-expressed about the pivot first: t = q c + p - c.
 *
 * Rotations blend by QLERP (seed 001 after Kavan & Zara 2005): the weighted sum
 * of the examples' quaternions, each turned into the rest pose's hemisphere,
 * normalised. Translations blend linearly. A vertex is
 *     x = sum_k W_k (c_k + t_k(E) + R(q_k(E)) (u - c_k))
 * over its (at most four) skinning influences. With the rest weights
 * (1, 0, ...) every bone is the identity and x = u exactly.
 *
 * The Jacobian of x with respect to the example weights (eq. 5) is analytic:
 * for r = sum_e E_e q_e and p = (u - c, 0),
 *     d(R v)/dE_e = 2 vec(q_e p r*) / |r|^2 - 2 (r . q_e) / |r|^2 R v.
 */
#ifndef CRUMPLE_SKINNING_H
#define CRUMPLE_SKINNING_H

#include "crumple/asset.h"

/// Example e of bone b as a bone frame: rotation q (in the rest pose's
/// hemisphere) about the pivot, then translation t of the pivot.
void cri_skin_example_frame(const cr_asset *a, uint32_t bone, uint32_t e, cr_quat *q, cr_vec3 *t);

/// Every bone's examples as bone frames, once per re-skin instead of once per vertex.
typedef struct cr_skin_frame {
    cr_quat q;  ///< rotation about the bone's pivot, in the rest pose's hemisphere
    cr_vec3 t;  ///< m, translation of the pivot
} cr_skin_frame;

/// Fill frames[e * bone_count + b] for every example e and bone b.
void cri_skin_example_frames(const cr_asset *a, cr_skin_frame *frames);

/// Eq. 3: the skinned position of vertex v (rest position u) for the example
/// weights weights[0 .. a->example_count). `frames` from
/// cri_skin_example_frames, or NULL to build each one as needed (same result).
cr_vec3 cri_skin_example_point(const cr_asset *a, const cr_skin_frame *frames, uint32_t v, cr_vec3 u,
                              const cr_real *weights);

/// One bone's blend for one weight row, ready to apply to many vertices:
/// x += W (t + M (u - c)), with M = R(QLERP) - I, so the rest pose adds 0.
typedef struct cr_skin_blend {
    cr_real m[9];    ///< R - I, row-major
    cr_vec3 t;       ///< m, the pivot's blended translation
    uint32_t stamp;  ///< the cache row it was made for
    uint32_t wide_stamp; ///< the cache row `wide` was copied for
    /// m, t and the bone's pivot, each repeated in CR_SKIN_LANES lanes: the
    /// vector loops read them as vectors instead of broadcasting 15 scalars
    cr_real wide[15][4];
} cr_skin_blend;

/// Lanes of the vectorised loops: the compiler's 128-bit vectors of float.
#define CR_SKIN_LANES 4u
/// Whether eq. 3's re-skin runs its vertices in lanes (cr_skin_lanes): in
/// float the compiler vectorises them; Q32.32's 64-bit products do not
/// vectorise, and the lanes' bookkeeping made the fixed build's re-skin
/// slower (0.30 -> 0.35 ms on the bench's bar), so it keeps the vertex loop
/// and no lanes memory.
#define CR_SKIN_VECTOR_LANES (!CR_FIXED)

/// Eq. 3's rest data CR_SKIN_LANES vertices at a time, gathered once per body
/// (at attach) instead of at every re-skin: per block of consecutive vertices
/// whose slots agree on which weights are 0 (in each slot the weight is 0 in
/// every lane or in none), each lane's bones, and side by side (structure of
/// arrays) the rest positions and the slots' weights. Other blocks are marked
/// and go vertex by vertex.
typedef struct cr_skin_lanes {
    uint32_t blocks;  ///< vertex_count / CR_SKIN_LANES
    uint8_t *meta;    ///< [24 blocks]: slot count (255: vertex by vertex), 1 if the lanes share their bones, 6 spare,
                      ///< then bone[slot][lane]
    cr_real *data;    ///< [7 CR_SKIN_LANES blocks]: x, y, z, then each slot's weight, CR_SKIN_LANES each
} cr_skin_lanes;

/// Bytes of the lanes of nv vertices (16-aligned memory).
uint64_t cri_skin_lanes_bytes(uint32_t nv);
/// The lanes of nv vertices in `mem` (cri_skin_lanes_bytes(nv) bytes, 16-aligned).
cr_skin_lanes cri_skin_lanes_view(void *mem, uint32_t nv);
/// Gather the asset's rest positions and influences into the lanes.
void cri_skin_lanes_build(const cr_asset *a, cr_skin_lanes *l);
/// Blocks that run in lanes, and of them those whose lanes share their bones.
void cri_skin_lanes_count(const cr_skin_lanes *l, uint32_t *lanes, uint32_t *uniform);

/// Re-skinning many vertices: the last weight row seen and, per bone, its
/// blend for that row. Neighbouring vertices mostly share a row (all at rest,
/// or wholly in one example), so a bone's QLERP is made once per run of equal
/// rows instead of once per vertex and influence. `bones` holds bone_count
/// entries; cri_skin_cache_init clears them.
typedef struct cr_skin_cache {
    cr_skin_blend *bones;
    const cr_skin_lanes *lanes; ///< the body's lanes, or NULL (cri_skin_cache_init): gathered as they are met
    uint32_t stamp;
    uint32_t examples;
    cr_real row[CR_ASSET_MAX_EXAMPLES];
} cr_skin_cache;

void cri_skin_cache_init(cr_skin_cache *c, cr_skin_blend *bones, const cr_asset *a);

/// cri_skin_example_point with the cache (same bits); `frames` must not be NULL.
cr_vec3 cri_skin_example_point_cached(const cr_asset *a, const cr_skin_frame *frames, cr_skin_cache *cache, uint32_t v,
                                     cr_vec3 u, const cr_real *weights);

/// The same for the vertices [first, end): out[v - first] for v's row
/// rows[v * example_count ..] (same bits as one call per vertex, without a
/// call per vertex). CR_SKIN_LANES vertices at a time where their influences
/// agree (cr_skin_lanes), each lane the same operations as one vertex: rows
/// equal across the block share the cached blends, rows that differ get
/// their QLERPs in the lanes.
void cri_skin_example_points(const cr_asset *a, const cr_skin_frame *frames, cr_skin_cache *cache, uint32_t first,
                             uint32_t end, const cr_real *rows, cr_vec3 *out);
/// For every vertex v, a bound on how far its skinned position moves per unit
/// of weight change: |x(E') - x(E)| <= reach[v] * sum_e |E'_e - E_e| for rows
/// E, E' on the simplex (up to the rows' rounding), from every bone's example
/// frames. Negative when no bound holds (a bone's examples turn so far apart
/// that their QLERP can pass near zero). `frames` from
/// cri_skin_example_frames; `bones` holds 2 bone_count reals of scratch.
void cri_skin_example_reach(const cr_asset *a, const cr_skin_frame *frames, cr_real *bones, cr_real *reach);
/// Eq. 5: cols[e] = dx/dE_e of vertex v at the example weights `weights`.
void cri_skin_example_jacobian(const cr_asset *a, uint32_t v, cr_vec3 u, const cr_real *weights, cr_vec3 *cols);

/// One bone's linear-blend skinning transform x -> R x + t, as a matrix
/// (built once per re-skin: 9 multiplies per influence instead of a quaternion rotation).
typedef struct cr_skin_bone {
    cr_mat3 r;
    cr_vec3 t;
} cr_skin_bone;

/// Linear blend skinning (seed 000 §4: the bending model's mesh follows its
/// bones): out[v] = sum_s weight[4v+s] (R_b u + t_b), b = bone[4v+s], for
/// v in [first, end), u the asset's rest position. Zero weights are skipped.
void cri_skin_linear(const cr_asset *a, const uint8_t *bone, const cr_real *weight, const cr_skin_bone *bones,
                     uint32_t first, uint32_t end, cr_vec3 *out);

/// The same skinning laid out for the compiler's vector units: the vertices
/// grouped by their four slots' bones (a slot of weight 0 is "none", 255),
/// each group padded to a multiple of CR_SKIN_LANES entries, and per entry
/// the rest position and the weights in separate arrays (structure of
/// arrays). Built once per change of the influences or the rest surface
/// (cri_skin_layout_build); cri_skin_linear_grouped then gives cri_skin_linear's
/// bits exactly: per vertex the same operations in the same slot order.
typedef struct cr_skin_layout {
    uint32_t count;     ///< entries, padding included (a multiple of CR_SKIN_LANES)
    uint32_t groups;
    uint32_t *order;    ///< [count] the vertex of each entry; UINT32_MAX for padding
    cr_real *u;         ///< [3 count] rest x, then y, then z of each entry
    cr_real *w;         ///< [4 count] slot 0..3 weights of each entry
    uint32_t *group_end; ///< [groups] one past each group's last entry
    uint8_t *group_bone; ///< [4 groups] each group's bone per slot, 255 = none
    uint8_t *group_unit; ///< [groups] 1: one slot, its weight exactly 1 in every entry (the multiply by it left out)
} cr_skin_layout;

/// Entries a layout of nv vertices may need at most: each group pads by < CR_SKIN_LANES.
uint32_t cri_skin_layout_capacity(uint32_t nv, uint32_t max_groups);
/// Group vertices [0, nv) of `pos` by their influences into *l, whose arrays
/// hold `capacity` entries and `max_groups` groups; `tmp` holds 3 nv uint32.
/// False when they do not fit (the caller keeps cri_skin_linear then).
bool cri_skin_layout_build(const cr_vec3 *pos, const uint8_t *bone, const cr_real *weight, uint32_t nv, uint32_t capacity,
                           uint32_t max_groups, uint32_t *tmp, cr_skin_layout *l);
/// cri_skin_linear over every vertex of a built layout, into out[vertex].
void cri_skin_linear_grouped(cr_skin_layout *l, const cr_skin_bone *bones, cr_vec3 *out);

#endif
