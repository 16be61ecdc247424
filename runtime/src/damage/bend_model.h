/* bend_model.h — bending (seed 000 §4) as a damage model: the model's
 * exports for the damage stage (see damage.h) and its per-body records. */
#ifndef CRUMPLE_BEND_MODEL_H
#define CRUMPLE_BEND_MODEL_H

#include "damage/damage.h"
#include "crumple/bend.h"

/// One bone of a bendable body.
typedef struct cr_bend_bone {
    cr_body_id sub;        ///< the bone's sub-body
    cr_joint_id joint;     ///< the joint to its parent bone (null for a root)
    cr_vec3 centre;        ///< m, the sub-body's centre of mass in the parent's body frame at rest
    uint32_t samples;      ///< collision samples it owns (its copy's sample count)
    uint32_t nodes;        ///< inside grid nodes it owns
    cr_transform skin;     ///< parent frame at rest -> parent frame now, as last skinned
} cr_bend_bone;

/// A bendable body.
typedef struct cr_bend_body {
    uint32_t body_index1;  ///< 0: free
    uint32_t body_generation;
    uint32_t bone_count;
    uint32_t skinned;      ///< re-skins so far
    cr_bend_def def;
    cr_real mass, inv_mass;        ///< the body's own, given back when the model lets go
    cr_vec3 inertia, inv_inertia;
} cr_bend_body;

cr_status cri_bend_model_check_def(const cr_bend_budget *b);
uint64_t cri_bend_model_region_bytes(const cr_world_def *def);
/// Surface copies the model may hold at once (a parent and its sub-bodies per body).
uint32_t cri_bend_model_surfaces(const cr_bend_budget *b);
bool cri_bend_model_layout(cr_world *w, uint8_t *block);
cr_status cri_bend_model_attach(cr_world *w, uint32_t body_index1, const cr_bend_def *def);
void cri_bend_model_detach(cr_world *w, uint32_t body_index1);
/// Move every bendable body to its root bone and re-skin the ones whose
/// bones moved while vertices_per_step lasts; fills cr_world_stats.bend.
void cri_bend_model_step(cr_world *w, const cr_damage_input *in);
uint64_t cri_bend_model_hash(const cr_world *w, uint64_t h);
/// The sub-bodies' views after a byte copy (after the surfaces' own rebind).
void cri_bend_model_rebind(cr_world *w);

#endif
