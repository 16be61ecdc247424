/* soft_query.c — which soft bodies a world holds, and what each is made of,
 * for tools that draw or list them (crumple render draws every soft body's
 * deformed surface: its asset's triangles over cr_soft_get_positions).
 *
 * Read-only walks over the soft region in slot order, so a picture or a
 * listing is the same for the same world state.
 */
#include "soft/mass_spring.h"

uint32_t cr_world_get_soft_ids(const cr_world *w, cr_soft_id *out, uint32_t capacity) {
    if (w == NULL || w->def.spring.body_capacity == 0) return 0;
    const cr_soft_region *r = cri_soft_region_c(w);
    const cr_soft_body *b = CR_AT(w, r->bodies, const cr_soft_body);
    uint32_t n = 0;
    for (uint32_t i = 0; i < r->body_high; ++i) {
        if (!b[i].alive) continue;
        if (out != NULL && n < capacity) out[n] = (cr_soft_id){i + 1, b[i].generation};
        ++n;
    }
    return n;
}

uint32_t cr_soft_get_asset(const cr_world *w, cr_soft_id id) {
    const cr_soft_body *sb = w ? cri_soft_body_c(w, id) : NULL;
    return sb ? sb->asset : UINT32_MAX;
}
