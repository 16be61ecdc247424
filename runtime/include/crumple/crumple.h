/* crumple/crumple.h — the whole public API in one include (C and C++).
 *
 * crumple: rigid bodies that dent, bend, crumple, break and squish, inside one
 * block of host memory, with bounded work per frame and bit-identical results.
 * Link build/libcrumple.a and add runtime/include to the include path.
 * Every declaration has C linkage, so a C++ game includes this file as is.
 */
#ifndef CRUMPLE_H
#define CRUMPLE_H

#ifdef __cplusplus
extern "C" {
#endif

#include "base.h"
#include "real.h"
#include "vecmath.h"
#include "world.h"
#include "body.h"
#include "asset.h"
#include "joint.h"
#include "events.h"
#include "dent.h"
#include "example.h"
#include "bend.h"
#include "squash.h"
#include "fracture.h"
#include "spring.h"
#include "damage.h"
#include "input.h"
#include "snapshot.h"
#include "debug_draw.h"
#include "query.h"

#ifdef __cplusplus
}
#endif

#endif
