/* soft_asset.c — a soft body's springs and masses from a cooked soft asset
 * (`crumple cook --soft`, the SPRP and SPRS sections, docs/asset-format.md).
 *
 * The cooker decides the springs once, offline: structural (every edge),
 * bending (across every edge) and internal (chords through a closed body's
 * interior that hold its shape), on a mesh it remeshed to near-uniform edge
 * lengths, and each particle's share of the mass. cr_soft_create takes them
 * from here when the asset has them, and builds structural and bending
 * springs from the adjacency itself otherwise (mass_spring.c). The loader has
 * validated every index, kind and rest length (geometry/asset.c), so these
 * copies need no checks. Rest lengths are measured again from the placed
 * particles by the caller, as for a built spring, so both paths start a body
 * at exactly its rest shape.
 */
#include "soft/mass_spring.h"

uint32_t cri_soft_asset_springs(const cr_asset *a, cr_spring *out, uint32_t *structural) {
    uint32_t n = a->soft_spring_count, s = 0;
    for (uint32_t j = 0; j < n; ++j) {
        const cr_asset_spring *c = &a->soft_springs[j];
        if (c->kind == CR_ASSET_SPRING_STRUCTURAL) ++s;
        /* k 1 marks a structural spring and 0 the others, as build_springs does; create sets both */
        if (out != NULL) out[j] = (cr_spring){c->a, c->b, 0, c->kind == CR_ASSET_SPRING_STRUCTURAL ? CR_R(1) : 0, 0};
    }
    *structural = s;
    return n;
}

void cri_soft_asset_masses(const cr_asset *a, cr_real mass, cr_particle *p) {
    for (uint32_t i = 0; i < a->vertex_count; ++i) {
        p[i].mass = cr_mul(a->soft_mass_weights[i], mass);
        /* a weight the loader accepted (> 0) times a mass the def accepted
         * (> 1e-4 kg) can still round to nothing in Q32.32: keep an inverse */
        if (p[i].mass < CR_R(1e-8)) p[i].mass = CR_R(1e-8);
        p[i].inv_mass = cr_div(CR_R(1), p[i].mass);
    }
}
