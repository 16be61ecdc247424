/* bend_model.h — bending (seed 000 §4) as a damage model: the model's
 * exports for the damage stage (see damage.h), its per-body records and the
 * per-body arrays dynamic articulation (dynamic_articulation.c) changes. */
#ifndef CRUMPLE_BEND_MODEL_H
#define CRUMPLE_BEND_MODEL_H

#include "damage/models.h"

/* The contract every model exports is declared in damage/models.h.
 * Its surfaces: Surface copies the model may hold at once (a parent and its sub-bodies per body).
 * Its step: Queue this step's impacts above split_speed, split bones while splits_per_step lasts, move every bendable body to its root bone, and re-skin the ones whose bones moved while vertices_per_step lasts; fills cr_world_stats.bend.
 * Its rebind: The sub-bodies' views after a byte copy (after the surfaces' own rebind). */
#include "crumple/bend.h"
#include "geometry/skinning.h"

/// One bone of a bendable body. Bones past the record's bone_count are
/// parked: their sub-body exists as a ghost, waiting for a split.
typedef struct cr_bend_bone {
    cr_body_id sub;        ///< the bone's sub-body
    cr_joint_id joint;     ///< the joint to its parent bone (null for a root, or until a deferred create is applied)
    cr_vec3 centre;        ///< m, the sub-body's centre of mass in the parent's body frame at rest
    cr_vec3 seg_a, seg_b;  ///< m, the bone as a segment in the parent's rest frame (impacts project onto it)
    int32_t parent;        ///< parent bone, -1 for a root
    uint32_t samples;      ///< collision samples it owns (its copy's sample count)
    uint32_t nodes;        ///< inside grid nodes it owns
    cr_asset_bone_moments moments; ///< its inside nodes' integer moments (sub_body.h): its mass, centre and inertia
    int32_t cluster;       ///< condensed into bone `cluster`'s sub-body (condense.c), -1: simulated on its own
    cr_transform skin;     ///< parent frame at rest -> parent frame now, as last skinned
    cr_transform rel;      ///< while condensed: its sub-body's pose in the cluster's body frame
    cr_real quiet;         ///< s, how long the joint to its parent has been quiet (condensation)
    cr_quat seam;          ///< the joint's turn (parent's orientation to its own) when its seam was last made; all zero: not made since the grids were cut (seam.c)
    /* a cluster's representative: its copy's view while condensed (rebind restores it) */
    cr_vec3 cluster_origin;
    cr_real cluster_cell;
    uint32_t cluster_samples;
    uint32_t pad_;
} cr_bend_bone;

/// A bendable body.
typedef struct cr_bend_body {
    uint32_t body_index1;  ///< 0: free
    uint32_t body_generation;
    uint32_t bone_count;   ///< live bones (sub-bodies in the simulation)
    uint32_t skinned;      ///< re-skins so far
    uint32_t splits;       ///< bones added at impacts so far
    uint32_t dirty;        ///< the weights changed: re-skin even if no bone moved
    uint32_t dent_count;   ///< dents made (bend + dent)
    uint32_t skin_groups;  ///< groups of its grouped skinning layout; 0: to build, UINT32_MAX: does not fit (plain skinning)
    uint32_t clusters;     ///< condensed clusters now
    uint32_t condensations; ///< clusters ever condensed
    cr_bend_def def;
    cr_real node_mass;     ///< kg per inside grid node
    cr_real mass, inv_mass;        ///< the body's own, given back when the model lets go
    cr_vec3 inertia, inv_inertia;
} cr_bend_body;

/// A split waiting for a step with room (dynamic articulation).
typedef struct cr_bend_split {
    uint32_t body_index1, body_generation;
    cr_vec3 point;         ///< m, where the impact was, parent's rest frame
} cr_bend_split;

static inline cr_bend_body *cri_bend_records(const cr_world *w) { return CR_AT(w, CR_DAMAGE(w)->bend.records, cr_bend_body); }
static inline cr_bend_bone *cri_bend_bones(const cr_world *w, uint32_t rec) {
    return CR_AT(w, CR_DAMAGE(w)->bend.bones, cr_bend_bone) + (size_t)rec * w->def.damage.bend.max_bones;
}
/// A record's own skinning influences (copied from the asset at attach; a split changes one bone's).
static inline uint8_t *cri_bend_skin_bone(const cr_world *w, uint32_t rec) {
    return CR_AT(w, CR_DAMAGE(w)->bend.skin_bone, uint8_t) + (size_t)rec * 4u * w->def.damage.bend.max_vertices;
}
static inline cr_real *cri_bend_skin_weight(const cr_world *w, uint32_t rec) {
    return CR_AT(w, CR_DAMAGE(w)->bend.skin_weight, cr_real) + (size_t)rec * 4u * w->def.damage.bend.max_vertices;
}
/// A record's rest surface: the asset's, then dented (bend_dent.c).
static inline cr_vec3 *cri_bend_rest_pos(const cr_world *w, uint32_t rec) {
    return CR_AT(w, CR_DAMAGE(w)->bend.rest_pos, cr_vec3) + (size_t)rec * w->def.damage.bend.max_vertices;
}
/// A record's owner byte per grid node.
static inline uint8_t *cri_bend_node_bone(const cr_world *w, uint32_t rec) {
    return CR_AT(w, CR_DAMAGE(w)->bend.node_bone, uint8_t) + (size_t)rec * w->def.damage.bend.max_grid_nodes;
}

/// Groups a record's grouped skinning layout may have (more: plain skinning, the same bits).
#define CR_BEND_SKIN_GROUPS 256u
/// A record's grouped skinning layout (arrays only; count and groups are the caller's).
cr_skin_layout cri_bend_skin_layout(const cr_world *w, uint32_t rec);

/// The segmentation scratch: owner bytes, growth queue, triangle owners, vertex marks, spare weights.
typedef struct cr_bend_scratch {
    cr_transform *bone_x;   ///< max_bones transforms (a step's skinning transforms, a cluster's inverses)
    void *bone_m;           ///< max_bones skinning matrices (geometry/skinning.h cr_skin_bone)
    cr_real *grid;          ///< a grid's values (condensation)
    cr_asset_bone_moments *moments; ///< max_bones bones' moments (attach, split)
    uint8_t *node_bone;
    uint32_t *queue;
    uint8_t *tri_bone;
    uint8_t *mark;
    uint8_t *skin_bone;
    cr_real *skin_weight;
    uint32_t *skin_tmp;     ///< its build's sort (3 max_vertices)
} cr_bend_scratch;
cr_bend_scratch cri_bend_scratch(const cr_world *w);

cr_status cri_bend_model_attach(cr_world *w, uint32_t body_index1, const cr_bend_def *def);

/// Fill sub-body k's surface copy, centre, mass and bounds from the bone's
/// moments, the record's node owners and the triangle owners in tri_bone
/// (sub_body.c does the cutting).
void cri_bend_fit_sub_body(cr_world *w, uint32_t rec, uint32_t bone, const uint8_t *tri_bone, uint8_t *mark);

/// A bone's sub-body pose now: its own, or its cluster's composed with its place in it.
cr_transform cri_bend_bone_pose(const cr_world *w, const cr_bend_bone *bones, uint32_t k);

/* ---- condense.c ---- */

/// Merge bones members[0..n) (a connected set, members[0] the lowest) into
/// members[0]'s sub-body (seed 000 §4.5); returns the work.
uint32_t cri_bend_condense(cr_world *w, uint32_t rec, const uint32_t *members, uint32_t n);
/// Give every bone of the cluster of `rep` its own sub-body back; returns the work.
uint32_t cri_bend_uncondense(cr_world *w, uint32_t rec, uint32_t rep);
/// The member of the cluster of `rep` nearest point p (the cluster body's frame):
/// the bone whose segment it is closest to, the lowest on a tie.
uint32_t cri_bend_cluster_bone_at(const cr_world *w, uint32_t rec, uint32_t rep, cr_vec3 p);
/// Wake the cluster of `rep` where bone `hit` is struck: the hit bone gets its
/// own body, each piece of the rest still linked inside the cluster stays one
/// condensed body (Fig. 15: only the joints next to the hit are simulated);
/// momentum and angular momentum kept to rounding. Returns the work.
uint32_t cri_bend_uncondense_around(cr_world *w, uint32_t rec, uint32_t rep, uint32_t hit);

/* ---- seam.c ---- */

/// A bone's seam not made since its grid (or its parent's) was cut at rest: due at once.
static inline cr_quat cri_bend_seam_unmade(void) {
    cr_quat q = {0, 0, 0, 0};
    return q;
}

/// Make the seams of joints not made since their grids were cut (a new
/// joint: attach, split, wake) and re-make those turned more than their
/// def's seam_angle since, seams_per_step of them (docs/bending.md "Seams");
/// the rest wait. Returns the work.
uint32_t cri_bend_seams(cr_world *w);

/* ---- bend_dent.c ---- */

/// Dent the sub-body of `bone` by impact `im` (its frame) and the body's rest
/// surface with it (seed 000 §4.4). Returns the work; *dented says whether it did.
uint32_t cri_bend_dent(cr_world *w, uint32_t rec, uint32_t bone, const cr_body_impact *im, bool *dented);

/* ---- dynamic_articulation.c ---- */

/// Split the bone nearest `point` (parent's rest frame) of record `rec` at
/// the point's projection onto it (seed 000 §4.2). Returns the work spent;
/// *split says whether a bone was added.
uint32_t cri_bend_split(cr_world *w, uint32_t rec, cr_vec3 point, bool *split);

#endif
