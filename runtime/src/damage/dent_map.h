/* dent_map.h — the 2D dent map of seed 000 §3 (Patkar et al. 2014), internal.
 *
 * A dent map D̂ is a square grid of heights on the collision plane, centred on
 * the point of impact, with z along the denting normal (into the dented body).
 * It is built in four steps, each a function here:
 *   1. profile:   the projectile's Z-buffer profile against the collision plane
 *                 moved back by the dent distance (cri_dent_zbuffer), or an
 *                 analytic Gaussian for a simple projectile (cri_dent_gaussian);
 *   2. broaden:   the upper envelope of equal-width Gaussians placed on every
 *                 profile sample (cri_dent_broaden);
 *   3. smooth:    explicit heat iterations, rescale to keep the dent distance,
 *                 then "modified" heat iterations that may only raise values;
 *   4. apply:     sample with attenuation a(z) and the glancing-impact shear.
 *
 * Broadening is done better than the seed's O(N log N) dual convex hull: with
 * one shared width, log of the envelope is a lower envelope of parabolas,
 * which the Felzenszwalb–Huttenlocher sampled distance transform finds exactly
 * in O(N) (two separable 1D passes). We keep, for every cell, which sample won,
 * and evaluate that sample's Gaussian directly, so the result equals the brute
 * force envelope up to exp's rounding, not up to log/exp round trips.
 *
 * All arrays are caller memory (the world's scratch arena); nothing allocates.
 */
#ifndef CRUMPLE_DENT_MAP_H
#define CRUMPLE_DENT_MAP_H

#include "crumple/vecmath.h"

/// Square grid of n*n heights (m), row-major, cell centres at (i - (n-1)/2) * cell.
typedef struct cr_dent_grid {
    uint32_t n;
    cr_real cell; ///< m per cell
    cr_real *h;   ///< n*n heights, caller memory
} cr_dent_grid;

/// Scratch for cri_dent_broaden on an n*n grid: bytes needed.
uint32_t cri_dent_broaden_scratch_bytes(uint32_t n);

/// Centre of cell i along one axis, in metres.
cr_real cri_dent_cell_center(const cr_dent_grid *g, uint32_t i);

/// Max-depth Z-buffer of triangles given in dent-frame coordinates
/// (x, y on the plane; z = how far the point reaches past the moved-back plane
/// toward the target). Heights below zero are clipped: the grid keeps max(0, z).
/// Returns the number of cell writes (the work count).
uint32_t cri_dent_zbuffer(cr_dent_grid *g, const cr_vec3 *pts, const uint32_t *tris, uint32_t tri_count);

/// Analytic dent: depth * exp(-r^2 / (2 sigma^2)).
void cri_dent_gaussian(cr_dent_grid *g, cr_real depth, cr_real sigma);

/// Replace the profile by the upper envelope of Gaussians h_i exp(-|x - x_i|^2 / (2 sigma^2))
/// placed at every nonzero sample, in O(n^2) time for the n*n grid.
/// `scratch` holds cri_dent_broaden_scratch_bytes(n) bytes, 8-aligned.
void cri_dent_broaden(cr_dent_grid *g, cr_real sigma, void *scratch);

/// The same envelope by brute force, O(n^4): for tests and the benchmark only.
void cri_dent_broaden_brute(const cr_dent_grid *in, cr_real sigma, cr_real *out);

/// Seed §3.2 smoothing: `heat` explicit heat iterations, rescale so the peak
/// equals `dent_distance`, then `modified` iterations that may only raise values.
/// `tmp` holds n*n reals.
/// One pass of cri_dent_smooth (heat, or the modified kind), and its rescale
/// between the two kinds: the smoothing in slices, the same bits.
void cri_dent_smooth_pass(cr_dent_grid *g, bool modified, cr_real *tmp);
void cri_dent_rescale(cr_dent_grid *g, cr_real dent_distance);
void cri_dent_smooth(cr_dent_grid *g, uint32_t heat, uint32_t modified, cr_real dent_distance, cr_real *tmp);

/// 2 / (1 + e^x), the logistic falloff of attenuation and the glancing width
/// correction; 0 where e^x would overflow (fixed point saturates there).
cr_real cri_dent_logistic2(cr_real x);

/// Largest height in the grid.
cr_real cri_dent_peak(const cr_dent_grid *g);

/// Bilinear sample at plane coordinates (x, y) in metres; 0 outside the grid.
cr_real cri_dent_sample(const cr_dent_grid *g, cr_real x, cr_real y);

/// Seed §3.1 attenuation into the body for a point at depth z >= 0 behind the
/// impact point: a(z) = 2 / (1 + e^(k z / d)), k = steepness (1 = the seed's
/// default). Clamped from below by 1 - z/d, the steepest falloff that cannot
/// push front points past back points (seed Figure 2d); a(z) = 1 for z <= 0.
cr_real cri_dent_attenuation(cr_real z, cr_real dent_distance, cr_real steepness);

#endif
