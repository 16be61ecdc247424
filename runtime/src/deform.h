/* deform.h — per-body copies of deformable geometry, and the dent stage (internal).
 *
 * A dentable mesh body owns, in the world's deform region, a copy of its
 * cooked surface (positions, normals, collision samples) and of its signed
 * distance grid, plus a cr_asset view that points at those copies and at the
 * cooked asset for everything that never changes (triangles, neighbours...).
 * The body's shape names that view with a flagged asset slot
 * (CR_DEFORM_SLOT_FLAG | record), so collision detection, mass queries and
 * drawing see the dented shape without knowing about dents.
 *
 * The views hold pointers into the block: cr_deform_rebind rewrites them from
 * the stored offsets after the block's bytes were copied (snapshot restore).
 */
#ifndef CRUMPLE_DEFORM_H
#define CRUMPLE_DEFORM_H

#include "world_internal.h"
#include "crumple/dent.h"

/// One dentable body's copies. A record with body_index1 == 0 is free; its
/// region stays allocated for the next body of the same size.
typedef struct cr_deform_body {
    uint32_t body_index1;
    uint32_t body_generation;
    uint32_t rest_slot;      ///< the cooked asset's slot
    uint32_t view;           ///< offset of the cr_asset view
    uint32_t positions;      ///< offset of cr_vec3[vertex_count]
    uint32_t normals;        ///< offset of cr_vec3[vertex_count]
    uint32_t samples;        ///< offset of cr_vec3[sample_count]
    uint32_t sdf;            ///< offset of cr_real[nodes]
    uint32_t region;         ///< offset of the whole allocation (0: none yet)
    uint32_t region_bytes;
    uint32_t dirty_first, dirty_last; ///< changed vertices since the host last cleared them
    uint32_t dent_count;
    uint32_t pad_;
    uint64_t patch_digest;   ///< hash of every grid value a dent patched (the grid's part of the state hash)
    cr_dent_material material;
} cr_deform_body;

/// An impact waiting to become dents, in the frame of body a.
typedef struct cr_dent_job {
    uint32_t a_index1, a_generation, b_index1, b_generation;
    uint8_t dent_a, dent_b;  ///< which sides dent
    uint8_t pad_[2];
    cr_vec3 point;           ///< impact point, a's frame
    cr_vec3 normal;          ///< denting normal of a (into a), a's frame
    cr_vec3 velocity;        ///< b's velocity relative to a, a's frame
    cr_transform b_in_a;     ///< b's pose in a's frame at the impact
    cr_real normal_speed;    ///< m/s approaching, positive
} cr_dent_job;

/// Bytes the deform region takes for `def` (records, copies, queue, scratch).
uint64_t cr_deform_region_bytes(const cr_world_def *def);
/// Lay the deform region out in the persistent arena (world layout calls it).
bool cr_deform_layout(cr_world *w, uint8_t *block);
/// Give a freshly created mesh body its own copies if its material dents.
cr_status cr_deform_attach(cr_world *w, uint32_t body_index1, const cr_dent_material *m);
/// Release a destroyed body's record (its memory stays for reuse).
void cr_deform_detach(cr_world *w, uint32_t body_index1);
/// Point every view at this block again (after a byte copy of the world).
void cr_deform_rebind(cr_world *w);
/// The view behind a flagged slot, or NULL.
const cr_asset *cr_deform_view(const cr_world *w, uint32_t slot);
/// The cooked asset behind a body's shape slot (flagged or not).
const cr_asset *cr_deform_rest_asset(const cr_world *w, uint32_t slot);
/// Mix the dented geometry into the state hash.
uint64_t cr_deform_hash(const cr_world *w, uint64_t h);
/// Remember where every body was when the step began (scratch memory): a dent
/// is made by the projectile as it arrived, not as it bounced away.
void cr_deform_begin(cr_world *w);
/// Queue this step's impact events as dent jobs.
void cr_deform_enqueue(cr_world *w);
/// The deformation stage: apply queued dents within the step's budget.
void cr_deform_step(cr_world *w);

#endif
