/* crumple/crumple.h — the whole public API in one include.
 *
 * crumple: rigid bodies that dent, bend, crumple, break and squish, inside one
 * block of host memory, with bounded work per frame and bit-identical results.
 * Link build/libcrumple.a and add runtime/include to the include path.
 */
#ifndef CRUMPLE_H
#define CRUMPLE_H

#include "base.h"
#include "real.h"
#include "vecmath.h"
#include "world.h"
#include "body.h"
#include "asset.h"
#include "joint.h"

#endif
