/* segmentation.h — bending's segmentation, shared by the cooker and the
 * runtime (a runtime-internal header tools may see, like asset_format.h and
 * implicit_skeleton.h).
 *
 * The BNDT and BNDN sections store the triangle and grid-node owners
 * cr_bend_attach would compute, and BNDM each bone's inside nodes as integer
 * moments (cri_sub_body_moments); the cooker must compute exactly those (a
 * test checks they are the same bytes and give the same sub-bodies), so it
 * calls the runtime's own segmentation through this forwarding include
 * rather than a second copy that could drift (docs/architecture.md, "API
 * decisions").
 */
#ifndef CRUMPLE_TOOLS_SEGMENTATION_H
#define CRUMPLE_TOOLS_SEGMENTATION_H

#include "../runtime/src/damage/sub_body.h"

#endif
