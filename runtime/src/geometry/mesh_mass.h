/* mesh_mass.h — volume, centre of mass and inertia of a closed triangle
 * surface at unit density (internal), for models that change a body's shape
 * at run time (the cooker's tools/cook_mass.c does the same offline, in
 * double).
 *
 * Each triangle (a, b, c) with the origin spans a signed tetrahedron of
 * volume d/6, d = a . (b x c); summed, the outside cancels (divergence
 * theorem). Its first moment is d/24 (a + b + c) and its second moment
 * matrix d/120 (a a^T + b b^T + c c^T + s s^T), s = a + b + c.
 */
#ifndef CRUMPLE_MESH_MASS_H
#define CRUMPLE_MESH_MASS_H

#include "crumple/vecmath.h"

typedef struct cr_mesh_mass {
    cr_real volume;   ///< m^3 (0 or negative: not a closed outward surface)
    cr_vec3 centre;   ///< m, centre of volume
    cr_vec3 inertia;  ///< m^5, the diagonal of the inertia tensor about the centre, axes of the frame
                      ///< (the off-diagonal terms a shape change brings are not kept)
} cr_mesh_mass;

cr_mesh_mass cri_mesh_mass_of(const cr_vec3 *positions, const uint32_t *triangles, uint32_t triangle_count);

#endif
