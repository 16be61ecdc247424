/* cook_soft.h — the soft (mass-spring) part of a cook (`crumple cook --soft`,
 * docs/mass-spring.md): the remesher that evens out edge lengths
 * (cook_remesh.c) and the particles' mass weights and springs written to the
 * SPRP and SPRS sections (cook_soft.c). Tools only.
 */
#ifndef CRUMPLE_TOOLS_COOK_SOFT_H
#define CRUMPLE_TOOLS_COOK_SOFT_H

#include "cook.h"

/// What the remesher did: edge-length spread (longest / shortest edge) before and after.
typedef struct cr_cook_remesh_report {
    double spread_before, spread_after;
    double target;             ///< m, the edge length aimed at
    uint32_t splits, collapses, flips, rounds, vertices_after;
    bool kept_input;           ///< the remeshed spread came out worse: the input mesh was kept
} cr_cook_remesh_report;

/// Longest over shortest edge of a triangle list (INFINITY for a zero-length
/// edge); *mean (may be NULL) gets the mean edge length.
double cr_cook_edge_spread(const double *pos, const uint32_t *tri, uint32_t triangle_count, double *mean);
/// Split edges longer than 4/3 target and collapse those shorter than 4/5
/// target (target <= 0: the mean edge), in place (the arrays may be
/// reallocated). Deterministic. Returns 0.
int cr_cook_remesh(cr_cook_mesh *mesh, double target, cr_cook_remesh_report *rep);

/// A soft asset's particles and springs.
typedef struct cr_cook_soft {
    uint32_t vertex_count;
    float *weight;             ///< [vertex_count] share of the body's mass, sum 1
    uint32_t spring_count;
    uint32_t *spring;          ///< 3 per spring: a < b, kind (cr_asset_spring_kind)
    double *rest;              ///< [spring_count] m
    uint32_t structural, bending, internal;
} cr_cook_soft;

/// Springs from the cooked adjacency (structural: every edge; bending: across
/// every manifold edge whose opposite vertices are not joined; the runtime's
/// own order), `internal` chords per vertex through a closed body's interior
/// (0: none), and mass weights (equal, or a third of the triangles' area
/// when area_masses). pos: the body-frame positions as they are stored (float).
int cr_cook_soft_build(const cr_cook_mesh *m, const float *pos, const cr_cook_surface *s, uint32_t internal,
                       bool area_masses, cr_cook_soft *out, char *err, size_t err_size);
void cr_cook_soft_free(cr_cook_soft *s);

#endif
