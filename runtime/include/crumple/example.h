/* crumple/example.h — example-based plastic deformation (seed 001, Jones et
 * al. 2016, "Example-based plastic deformation of rigid bodies").
 *
 * An artist rigs a mesh and poses the rig into a few example deformations
 * (data/rigs/NAME.rig, data/poses/NAME.pose; the cooker stores bones,
 * skinning weights, example poses and geodesic neighbour lists in the asset).
 * At run time every vertex keeps a row of example weights E (barycentric: each
 * entry in [0, 1], the row sums to 1; example 0 is the rest pose). Each step,
 * every impulse the body received above the yield threshold beta becomes a
 * wanted displacement at the vertex nearest the contact (eq. 4), that
 * displacement a change of the vertex's example weights through the Jacobian
 * of its skinned position (eq. 5-8), spread over its geodesic neighbours with
 * the kernel phi(d / gamma) (eq. 11-12), and faded in at the rate lambda per
 * step (eq. 13). The mesh is re-skinned (eq. 3: rotations blended by QLERP,
 * translations linearly, about each bone's own pivot) into the body's own
 * surface copy, which the solver collides with. While the body yields its
 * restitution drops to exp(-nu |dE|) C_r* and recovers at mu per second
 * (eq. 15).
 *
 * Usage:
 *     def.damage.example.body_capacity = 4;   // world def: room for plastic bodies
 *     ...
 *     cr_example_def ed = cr_default_example_def();
 *     ed.beta = CR_R(200);                    // N s: no plasticity below this impulse
 *     cr_example_attach(world, barrel, &ed);
 *     ...
 *     cr_example_view v;
 *     cr_example_get(world, barrel, &v);      // example weights, e.g. to colour the mesh
 *
 * docs/example-plasticity.md gives the model as built and how to tune it.
 */
#ifndef CRUMPLE_EXAMPLE_H
#define CRUMPLE_EXAMPLE_H

#include "body.h"

/* Link names carry the scalar mode (CR_LINK_NAME, crumple/real.h), so code
 * compiled in the other mode fails to link instead of misreading every cr_real. */
#define cr_default_example_def CR_LINK_NAME(cr_default_example_def)
#define cr_example_attach CR_LINK_NAME(cr_example_attach)
#define cr_example_get CR_LINK_NAME(cr_example_get)
#define cr_default_example_budget CR_LINK_NAME(cr_default_example_budget)

#ifdef __cplusplus
extern "C" {
#endif

/// How a body yields to impulses (one material). Seed 001 §4 names the six.
typedef struct cr_example_def {
    cr_real alpha;  ///< 1/m: example-weight change per metre of wanted displacement (eq. 8); larger = softer
    cr_real beta;   ///< N s: yield impulse; a contact impulse at or below it deforms nothing (eq. 4)
    cr_real gamma;  ///< m: geodesic radius a deformation spreads over (eq. 11); small = dents, large = whole examples.
                    ///< The cooked lists reach asset.geodesic_radius at most: cook with --geodesic-radius >= gamma
    cr_real lambda; ///< in [0, 1), per step: share of the pending deformation kept for later steps (eq. 13); 0 = at once
    cr_real mu;     ///< 1/s: restitution recovery, C_r rises by at most mu per second back to C_r* (eq. 15)
    cr_real nu;     ///< restitution drop per unit of |dE| (Frobenius norm of the pending weight change, eq. 15)
    /// In cells of the body's distance grid: how far the drawn surface may lag
    /// eq. 3 while weights fade in before it is re-skinned (a commit). Larger:
    /// fewer re-skins, the dent drawn that much behind (docs/example-plasticity.md, "Commits").
    cr_real draw_lag;
    /// In cells: how far the collision grid may lag the drawn surface before
    /// it is patched (and the centre of mass followed). Larger: fewer patches,
    /// other bodies meet the dent that much late ("Grid patch", with a table of what each costs).
    cr_real grid_lag;
    uint32_t cookie; ///< set by cr_default_example_def(); checked by cr_example_attach
} cr_example_def;

/// A soft metal at a 60 Hz step: alpha 1, beta 50 N s, gamma 0.5 m, lambda 0.8, mu 0.5/s, nu 2;
/// draw_lag 1/8 cell, grid_lag 1/2 cell.
cr_example_def cr_default_example_def(void);

/// Make a mesh body deform by its asset's examples. The body's restitution at
/// attach time is its C_r*. CR_ERR_DEF_INVALID: not a mesh body, an asset
/// without bones or without an example besides the rest pose, a body that
/// has the model already or dents (a re-skin would erase its dents), or a def real out of range: alpha in
/// [0, 1e6], beta in [0, 1e9], gamma in [1e-4, 2^20], lambda in [0, 1), mu and nu in [0, 1e6],
/// draw_lag in [1/64, 1], grid_lag in [1/16, 4]
/// (cr_world_refused_field names it). CR_ERR_NOT_FINITE: a def real is NaN or infinite (fixed point:
/// saturated), the field named the same way. CR_ERR_CAPACITY: all
/// damage.example.body_capacity records taken, the asset has more vertices or
/// examples than damage.example.max_vertices / max_examples, or
/// damage.surface_bytes has no room for the body's surface copy.
cr_status cr_example_attach(cr_world *world, cr_body_id body, const cr_example_def *def);

/// A read-only look at a plastic body's state, valid until the next step.
typedef struct cr_example_view {
    uint32_t vertex_count;
    uint32_t example_count;  ///< columns of each row, example 0 the rest pose
    const cr_real *weights;  ///< [vertex_count * example_count] E, row-major
    const cr_real *pending;  ///< [vertex_count * example_count] dE still to fade in
    cr_real restitution_rest; ///< C_r*
    cr_real deformation;     ///< |dE| (Frobenius) the last step's restitution term used
} cr_example_view;

/// CR_ERR_DEF_INVALID if the body has no example model.
cr_status cr_example_get(const cr_world *world, cr_body_id body, cr_example_view *out);

/// Budgets that suit a handful of plastic bodies, once body_capacity is set.
cr_example_budget cr_default_example_budget(void);

#ifdef __cplusplus
}
#endif

#endif
