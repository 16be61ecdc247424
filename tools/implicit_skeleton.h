/* implicit_skeleton.h — the squishy skin's field, shared by the cooker and
 * the runtime (the second and last runtime-internal header tools may see).
 *
 * An SQSK section stores skeleton primitives whose meaning is the runtime's
 * potential (seed 003); the cooker meshes the skin on that field's isosurface
 * and refuses a mesh that is not on it. Evaluating a second copy of the
 * field in tools/ would let the two drift apart, so the cooker calls the
 * runtime's own through this forwarding include, as asset_format.h does for
 * the byte layout (docs/architecture.md, "API decisions").
 */
#ifndef CRUMPLE_TOOLS_IMPLICIT_SKELETON_H
#define CRUMPLE_TOOLS_IMPLICIT_SKELETON_H

#include "../runtime/src/geometry/implicit_skeleton.h"

#endif
