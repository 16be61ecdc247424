/* squash_fit.h — a squishy skeleton fitted to a closed mesh (seed 003: "a
 * skeleton of primitives ... fitted automatically to a mesh"), tools only.
 *
 * The mesh's signed distance grid (the cooker's own, winding-number signs,
 * so a scan with holes still has an inside) gives every inside node the
 * radius of the largest ball around it inside the mesh. Balls are taken
 * greedily, largest first, each from the nodes no earlier ball holds: the
 * centres walk the medial axis from the thick parts out to the thin ones
 * (a bunny's body, then its head, then its ears). Each ball becomes a point
 * primitive (weight 1, c = 0.5) whose own skin is the ball; then the radii
 * of influence are corrected, all at once, 48 rounds: each mesh vertex
 * measures how far the skin of the sum is from it along the gradient
 * ((f - c) / |grad f|, the field's first-order distance) and the primitive
 * whose own skin is nearest takes the mean of its vertices' misses off its
 * skin radius (half of it a round) and moves by the mean miss along the
 * normal. Half the primitives are taken by size, the other half one at a
 * time at the largest ball touching the vertex the skin misses most (an
 * ear's tip), with a few corrections between. A ball that ends up apart
 * from the rest becomes a segment bridging to the nearest ball, so the skin
 * is one piece. The same fit is tried again with runs of overlapping points
 * of like radii along a line inside the mesh merged into segments (a limb)
 * and the freed primitives placed where the skin misses most; the closer of
 * the two (mean distance) is kept. Only + - * / and sqrt on doubles and the runtime's own
 * potential, in fixed orders: the same skeleton everywhere.
 */
#ifndef CRUMPLE_TOOLS_SQUASH_FIT_H
#define CRUMPLE_TOOLS_SQUASH_FIT_H

#include "cook_squash.h"

typedef struct cr_squash_fit_report {
    uint32_t primitives;      ///< placed (fewer than asked when the inside runs out)
    uint32_t segments;        ///< of them, segments (limbs, and bridges that join the skin into one piece)
    uint32_t merged;          ///< points merged into limb segments (their places given to new balls); 0: the points' fit was closer
    double size;              ///< m, the mesh's longest bounding-box side
    double mean, max;         ///< distance from the mesh's vertices to the skin f = c, over `size`
} cr_squash_fit_report;

/// Fit up to `count` point primitives to the closed mesh (pos: 3 doubles a
/// vertex, tri: 3 indices a triangle); out is a skeleton in the mesh's
/// coordinates, meshed by the grid mesher. 0, or -1 with a message.
int cr_squash_fit(const double *pos, uint32_t vertex_count, const uint32_t *tri, uint32_t triangle_count, uint32_t count,
                  cr_cook_squash *out, cr_squash_fit_report *report, char *err, size_t en);

/// The report alone: the distance from each vertex to the skeleton's skin.
void cr_squash_fit_measure(const cr_cook_squash *s, const double *pos, uint32_t vertex_count, cr_squash_fit_report *report);

#endif
