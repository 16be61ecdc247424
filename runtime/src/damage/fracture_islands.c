/* fracture_islands.c — the islands of a support graph: pieces joined by
 * unbroken bonds (Blast's actor = the union of its unbroken chunks, split
 * into islands when bonds break).
 *
 * Union-find with path halving; a union keeps the lower piece index as the
 * root, so every island is named by its lowest piece whatever order bonds
 * broke in: the result is a function of the set of broken bonds only. Work:
 * pieces + bonds (near-linear).
 */
#include "damage/stage.h"
#include "damage/fracture_model.h"

static uint32_t find(uint32_t *parent, uint32_t x) {
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

uint32_t cri_fracture_islands(const cr_world *w, cr_fracture_actor *a, const cr_asset *whole, uint32_t *parent) {
    const cr_fracture_bond *bonds = cri_fracture_bonds(w, a);
    cr_fracture_piece *pc = cri_fracture_pieces(w, a);
    for (uint32_t k = 0; k < a->piece_count; ++k) parent[k] = k;
    for (uint32_t k = 0; k < a->bond_count; ++k) {
        if (bonds[k].broken) continue;
        uint32_t x = find(parent, whole->bonds[k].a), y = find(parent, whole->bonds[k].b);
        if (x < y) parent[y] = x;
        else if (y < x) parent[x] = y;
    }
    uint32_t islands = 0;
    for (uint32_t k = 0; k < a->piece_count; ++k) {
        pc[k].island = find(parent, k);
        if (pc[k].island == k) ++islands;
    }
    return islands;
}
