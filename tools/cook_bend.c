/* cook_bend.c — bending's segmentation cooked into the asset (BNDT, BNDN).
 *
 * cr_bend_attach divides a rigged body into sub-bodies by bone: triangles to
 * bones by their skinning weights, then grid nodes grown from the triangles
 * (runtime/src/damage/sub_body.c). That is the attach's whole cost (5 ms on
 * the bunny), and it depends only on the asset, so the cooker can do it
 * once: it loads the asset it just wrote with the runtime's loader and runs
 * the runtime's own segmentation on it (tools/segmentation.h), so the cooked
 * owners are the bytes attach would compute in this scalar mode.
 */
#include "cook_bend.h"
#include "segmentation.h"

#include "crumple/crumple.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cr_cook_bend_segment(const uint8_t *bytes, size_t size, uint8_t **tri_bone, uint8_t **node_bone, char *err,
                         size_t err_size) {
    *tri_bone = *node_bone = NULL;
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
    if (*tri_bone == NULL || *node_bone == NULL || queue == NULL) {
        free(*tri_bone), free(*node_bone), free(queue), free(block);
        *tri_bone = *node_bone = NULL;
        snprintf(err, err_size, "out of memory segmenting the asset");
        return -1;
    }
    cri_sub_body_segment(&a, a.skin_bone, a.skin_weight, *tri_bone, *node_bone, queue);
    free(queue);
    free(block);
    return 0;
}
