/* asset_format.h — the one runtime-internal header the tools may see.
 *
 * Tools are compiled against the public API (runtime/include), the platform
 * layer and tools/ only; runtime/src is not on their include path, so they
 * cannot reach the runtime's internals. The cooked asset's byte layout is the
 * exception: the cooker writes what the runtime's loader reads, and both must
 * use the same offsets and section tags, so it is shared here by this one
 * forwarding include (docs/architecture.md, "API decisions";
 * tests/check_layers.sh fails any other tool include of runtime/src).
 */
#ifndef CRUMPLE_TOOLS_ASSET_FORMAT_H
#define CRUMPLE_TOOLS_ASSET_FORMAT_H

#include "../runtime/src/geometry/asset_format.h"

#endif
