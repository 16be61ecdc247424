/* hash.h — the state hash's byte mixer (internal).
 *
 * FNV-1a over an explicit little-endian serialisation of each value, so the
 * hash never sees padding, pointers or host byte order. It is the oracle of
 * every determinism test, so it favours being obviously canonical over speed.
 */
#ifndef CRUMPLE_HASH_H
#define CRUMPLE_HASH_H

#include <stdint.h>
#include <string.h>
#include "crumple/vecmath.h"

#define CR_HASH_SEED 0xcbf29ce484222325ull

static inline uint64_t cr_hash_u64(uint64_t h, uint64_t v) {
    for (int i = 0; i < 8; ++i) {
        h ^= (uint8_t)(v >> (8 * i));
        h *= 0x100000001b3ull;
    }
    return h;
}
static inline uint64_t cr_hash_u32(uint64_t h, uint32_t v) {
    for (int i = 0; i < 4; ++i) {
        h ^= (uint8_t)(v >> (8 * i));
        h *= 0x100000001b3ull;
    }
    return h;
}
static inline uint64_t cr_hash_real(uint64_t h, cr_real r) {
#if CR_FIXED
    return cr_hash_u64(h, (uint64_t)r);
#else
    uint32_t bits;
    memcpy(&bits, &r, sizeof bits);
    return cr_hash_u32(h, bits);
#endif
}
static inline uint64_t cr_hash_vec3(uint64_t h, cr_vec3 v) {
    return cr_hash_real(cr_hash_real(cr_hash_real(h, v.x), v.y), v.z);
}
static inline uint64_t cr_hash_quat(uint64_t h, cr_quat q) {
    return cr_hash_real(cr_hash_real(cr_hash_real(cr_hash_real(h, q.x), q.y), q.z), q.w);
}

#endif
