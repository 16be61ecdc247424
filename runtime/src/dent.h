/* dent.h — one dent, start to finish (seed 000 Algorithm 1, lines 2-8), internal.
 *
 * Everything here works on plain arrays in the target body's frame, so that
 * the world's deformation stage only has to gather an impact, call
 * cr_dent_build and cr_dent_apply, and patch what moved. Two dentable bodies
 * denting each other build both maps from their pre-dent states before
 * either is applied (Jacobi, seed Figure 1): build never reads what apply writes.
 *
 * Frames. p is the impact point, n the denting normal (the target's inward
 * normal), u the projectile's velocity relative to the target (dot(u, n) > 0).
 * theta = angle(u, n). The tangent axis ex points along u's tangential part,
 * ey = n × ex. The profile is taken looking along u (seed §3.3): its plane
 * has axes ex' = cos(theta) ex - sin(theta) n and ey, depth along u.
 */
#ifndef CRUMPLE_DENT_INTERNAL_H
#define CRUMPLE_DENT_INTERNAL_H

#include "dent_map.h"

/// Tuning of dents for one material (kept in the body; see crumple/dent.h).
typedef struct cr_dent_params {
    cr_real threshold_speed; ///< m/s of relative normal velocity below which nothing dents
    cr_real speed_scale;     ///< m of dent per m/s above the threshold (0: use fixed_distance)
    cr_real fixed_distance;  ///< m, dent distance when speed_scale is 0
    cr_real max_distance;    ///< m, cap on the dent distance
    cr_real blur;            ///< m, sigma of the broadening Gaussians
    uint32_t heat_iterations;     ///< explicit heat steps before the rescale
    uint32_t modified_iterations; ///< raise-only heat steps after it
    cr_real steepness;       ///< attenuation a(z) = 2/(1+e^(k z/d)), k = steepness
    cr_real width_t;         ///< glancing width correction t (0: the plain shear)
    cr_real min_cos;         ///< clamp of cos(theta) for the 1/cos widening
    uint32_t min_cells;      ///< grid cells per side, lower bound
    uint32_t max_cells;      ///< grid cells per side, upper bound
} cr_dent_params;

/// Dent distance from the relative normal speed (seed Algorithm 1 lines 2, 14); 0 = no dent.
cr_real cr_dent_distance(const cr_dent_params *p, cr_real normal_speed);

/// Where and how a projectile hits, in the target's body frame.
typedef struct cr_dent_impact {
    cr_vec3 point;        ///< m
    cr_vec3 normal;       ///< denting normal: unit, into the target
    cr_vec3 velocity;     ///< m/s, projectile relative to target
    cr_real distance;     ///< m, dent distance
} cr_dent_impact;

/// The projectile as the Z-buffer sees it: a sphere, or a mesh (its pre-dent
/// vertices in its own frame, placed in the target's frame by to_target).
typedef struct cr_dent_projectile {
    bool is_sphere;
    cr_real radius;           ///< sphere radius, m
    const cr_vec3 *vertices;  ///< mesh, projectile frame
    const uint32_t *triangles;
    uint32_t triangle_count;
    cr_real edge_length;      ///< m, typical edge of the projectile mesh
    cr_transform to_target;   ///< projectile frame -> target frame
} cr_dent_projectile;

/// A built dent: the map and the frame it lives in.
typedef struct cr_dent {
    cr_dent_grid grid;
    cr_vec3 point, normal, ex, ey;
    cr_real cos_theta, sin_theta;
    cr_real distance;
    cr_real support;        ///< m, radius outside which nothing moves
    uint32_t zbuffer_work;  ///< cell writes of the Z-buffer
} cr_dent;

/// Cells per side the dent would use (for budgets, before building).
uint32_t cr_dent_plan_cells(const cr_dent_params *p, const cr_dent_impact *imp, const cr_dent_projectile *proj,
                            cr_real target_edge_length, cr_real *cell_out);
/// Bytes of scratch cr_dent_build needs for a grid of `cells` per side (heights included).
uint32_t cr_dent_scratch_bytes(uint32_t cells);

/// Build the dent map (profile, broaden, smooth) into `scratch` (8-aligned).
void cr_dent_build(cr_dent *out, const cr_dent_params *p, const cr_dent_impact *imp, const cr_dent_projectile *proj,
                   uint32_t cells, cr_real cell, void *scratch);

/// Displacement the dent gives a point p of the target (body frame, m).
cr_vec3 cr_dent_displacement(const cr_dent *d, const cr_dent_params *p, cr_vec3 point);

/// Displace target vertices by the dent (with attenuation into the body and
/// the glancing shear). Returns how many moved; [*first, *last] brackets them.
uint32_t cr_dent_apply(const cr_dent *d, const cr_dent_params *p, cr_vec3 *vertices, uint32_t count, uint32_t *first,
                       uint32_t *last);

#endif
