/* dent.h — one dent, start to finish (seed 000 Algorithm 1, lines 2-8), internal.
 *
 * Everything here works on plain arrays in the target body's frame, so that
 * the world's deformation stage only has to gather an impact, call
 * cri_dent_build and cri_dent_apply, and patch what moved. Two dentable bodies
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

#include "geometry/vertex_ranges.h"
#include "damage/dent_map.h"
#include "crumple/dent.h"

/* The tunables of a dent are the public cr_dent_def (crumple/dent.h): one
 * struct, from the scene file to the map; the dent model clamps its cell
 * bounds to the world's before a dent is built. */

/// Dent distance from the relative normal speed (seed Algorithm 1 lines 2, 14); 0 = no dent.
cr_real cri_dent_distance(const cr_dent_def *p, cr_real normal_speed);

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
    bool is_plane;            ///< the triangles are a square cut from a plane (its local y = 0): it
                              ///< touches at the impact point itself, not at its foremost corner
} cr_dent_projectile;

/// A built dent: the map and the frame it lives in.
typedef struct cr_dent {
    cr_dent_grid grid;
    cr_vec3 point, normal, ex, ey;
    cr_real cos_theta, sin_theta;
    cr_real distance;
    cr_real support;        ///< m, radius outside which nothing moves
    uint32_t zbuffer_work;  ///< cell writes of the Z-buffer
    cr_vec3 shift;          ///< m, the projectile moved along the profile direction to just touch (a mesh's)
    cr_real ahead;          ///< the corners' farthest reach along it so far (CR_REAL_MAX: the shift is known)
    cr_real reach2;         ///< m^2, the touching projectile's widest corner in the profile plane so far (planning)
} cr_dent;

/// Cells per side the dent would use (for budgets, before building).
uint32_t cri_dent_plan_cells(const cr_dent_def *p, const cr_dent_impact *imp, const cr_dent_projectile *proj,
                            cr_real target_edge_length, cr_real *cell_out);
/// cri_dent_plan_cells in slices, for a projectile of many triangles: begin
/// (the frame), its farthest reach (cri_dent_build_ahead) over ranges of its
/// triangles, then its widest corner over ranges, then finish: the same
/// cells and cell, and the shift a build from the same impact can reuse.
void cri_dent_plan_begin(cr_dent *d, const cr_dent_def *p, const cr_dent_impact *imp, const cr_dent_projectile *proj);
void cri_dent_plan_reach(cr_dent *d, const cr_dent_projectile *proj, uint32_t first, uint32_t count);
uint32_t cri_dent_plan_finish(const cr_dent *d, const cr_dent_def *p, const cr_dent_projectile *proj,
                              cr_real target_edge_length, cr_real *cell_out);
/// Bytes of scratch cri_dent_build needs for a grid of `cells` per side (heights included).
uint32_t cri_dent_scratch_bytes(uint32_t cells);

/// The same build in slices, so a mesh projectile's map can be drawn over
/// several steps: begin (the frame and the cleared map; a sphere's Gaussian
/// whole, and then it returns true), the projectile's farthest reach over
/// ranges of its triangles until cri_dent_build_shift_known, its triangles
/// into the Z-buffer in ranges, then finish (broadening and smoothing). The
/// map's heights must be at grid.h on every call (a byte copy of the block
/// may have moved them: re-point it); the same bits as cri_dent_build.
bool cri_dent_build_begin(cr_dent *out, const cr_dent_def *p, const cr_dent_impact *imp, const cr_dent_projectile *proj,
                          uint32_t cells, cr_real cell, void *scratch);
void cri_dent_build_ahead(cr_dent *d, const cr_dent_projectile *proj, uint32_t first, uint32_t count);
bool cri_dent_build_shift_known(const cr_dent *d);
void cri_dent_build_triangles(cr_dent *d, const cr_dent_projectile *proj, uint32_t first, uint32_t count);
void cri_dent_build_finish(cr_dent *d, const cr_dent_def *p, void *scratch);
/// The finish in passes: the broadening, each heat iteration (the rescale to
/// the dent distance with the last), each modified iteration; the same bits.
uint32_t cri_dent_build_finish_passes(const cr_dent_def *p);
void cri_dent_build_finish_pass(cr_dent *d, const cr_dent_def *p, void *scratch, uint32_t k);

/// Build the dent map (profile, broaden, smooth) into `scratch` (8-aligned).
void cri_dent_build(cr_dent *out, const cr_dent_def *p, const cr_dent_impact *imp, const cr_dent_projectile *proj,
                   uint32_t cells, cr_real cell, void *scratch);

/// Displacement the dent gives a point p of the target (body frame, m).
cr_vec3 cri_dent_displacement(const cr_dent *d, const cr_dent_def *p, cr_vec3 point);

/// Displace target vertices by the dent (with attenuation into the body and
/// the glancing shear). Returns how many moved; [*first, *last] brackets them
/// and `moved` (may be NULL) gets them exactly.
uint32_t cri_dent_apply(const cr_dent *d, const cr_dent_def *p, cr_vec3 *vertices, uint32_t count, uint32_t *first,
                       uint32_t *last, cr_vertex_ranges *moved);

#endif
