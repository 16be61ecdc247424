/* cook_bend.c — bending's segmentation cooked into the asset (BNDT, BNDN,
 * BNDM).
 *
 * cr_bend_attach divides a rigged body into sub-bodies by bone: triangles to
 * bones by their skinning weights, then grid nodes grown from the triangles,
 * then each bone's mass properties from its inside nodes
 * (runtime/src/damage/sub_body.c). That depends only on the asset, so the
 * cooker can do it once: it loads the asset it just wrote with the runtime's
 * loader and runs the runtime's own segmentation and moment sums on it
 * (tools/segmentation.h), so the cooked owners and moments are the values
 * attach would compute in this scalar mode (the moments are integers: the
 * mass, centre and inertia attach makes of them are the same bits).
 */
#include "cook_bend.h"
#include "segmentation.h"

#include "crumple/crumple.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cr_cook_bend_segment(const uint8_t *bytes, size_t size, uint8_t **tri_bone, uint8_t **node_bone, int64_t **moments,
                         char *err, size_t err_size) {
    *tri_bone = *node_bone = NULL;
    *moments = NULL;
    size_t need = cr_asset_memory_size(bytes, size);
    size_t rounded = (need + CR_BLOCK_ALIGN - 1) / CR_BLOCK_ALIGN * CR_BLOCK_ALIGN;
    void *block = rounded ? aligned_alloc(CR_BLOCK_ALIGN, rounded) : NULL;
    cr_asset a;
    cr_asset_error e;
    memset(&e, 0, sizeof e);
    if (block == NULL || cr_asset_load(bytes, size, block, rounded, &a, &e) != CR_OK) {
        free(block);
        snprintf(err, err_size, "the asset to segment does not load");
        return -1;
    }
    if (a.bone_count == 0) {
        free(block);
        snprintf(err, err_size, "--bend needs a rigged asset (--rig or --bones)");
        return -1;
    }
    size_t nodes = (size_t)a.sdf_dims[0] * a.sdf_dims[1] * a.sdf_dims[2];
    *tri_bone = malloc(a.triangle_count);
    *node_bone = malloc(nodes);
    uint32_t *queue = malloc(nodes * sizeof(uint32_t));
    cr_asset_bone_moments *m = malloc(a.bone_count * sizeof *m);
    *moments = malloc(10 * sizeof(int64_t) * a.bone_count);
    if (*tri_bone == NULL || *node_bone == NULL || queue == NULL || m == NULL || *moments == NULL) {
        free(*tri_bone), free(*node_bone), free(*moments), free(queue), free(m), free(block);
        *tri_bone = *node_bone = NULL;
        *moments = NULL;
        snprintf(err, err_size, "out of memory segmenting the asset");
        return -1;
    }
    cri_sub_body_segment(&a, a.skin_bone, a.skin_weight, *tri_bone, *node_bone, queue);
    cri_sub_body_moments(&a, *node_bone, a.bone_count, NULL, m);
    for (uint32_t b = 0; b < a.bone_count; ++b) {
        int64_t *o = *moments + 10 * (size_t)b;
        o[0] = m[b].count;
        for (int k = 0; k < 3; ++k) o[1 + k] = m[b].sum[k], o[4 + k] = m[b].sum_sq[k], o[7 + k] = m[b].sum_cross[k];
    }
    free(m);
    free(queue);
    free(block);
    return 0;
}
