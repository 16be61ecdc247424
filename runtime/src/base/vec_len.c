/* vec_len.c — the length of a large vector in fixed point.
 *
 * Q32.32 holds about ±2.1e9, so the squares of components past ~46 000 (and
 * their sum past ~26 750 each) do not fit: a heavy body's accumulated
 * friction impulse got there in a fuzzed scene and the sum overflowed, which
 * is undefined behaviour. cr_v3_len sends such vectors here.
 *
 * Where the plain sum of the rounded squares still fits, it is used as is,
 * so every length the runtime computed before is bit for bit the same. Past
 * that, the vector is scaled down by 2^17 first (components then below
 * 16 384, squares summing below 2^31) and the length scaled back up,
 * saturating at CR_REAL_MAX; 17 bits of a length over 26 000 m are far below
 * any tolerance the solver uses.
 */
#include "crumple/vecmath.h"

#if CR_FIXED

/* a*a when it fits an int64 raw value, else -1 */
static int64_t square_or_fail(cr_real a) {
    const cr_real lim = CR_R(46340); /* 46340^2 < 2^31 */
    if (a <= -lim || a >= lim) return -1;
    return cr_mul(a, a);
}

cr_real cr_v3_len_wide_(cr_vec3 a) {
    int64_t x = square_or_fail(a.x), y = square_or_fail(a.y), z = square_or_fail(a.z);
    if (x >= 0 && y >= 0 && z >= 0) {
        uint64_t sum = (uint64_t)x + (uint64_t)y + (uint64_t)z;
        if (sum <= (uint64_t)INT64_MAX) return cr_sqrt((cr_real)sum);
    }
    /* arithmetic shifts, as cr_half; INT64_MIN becomes -2^46, harmless */
    cr_vec3 b = cr_v3(a.x >> 17, a.y >> 17, a.z >> 17);
    cr_real l = cr_sqrt(cr_mul(b.x, b.x) + cr_mul(b.y, b.y) + cr_mul(b.z, b.z));
    return l > (CR_REAL_MAX >> 17) ? CR_REAL_MAX : l * ((cr_real)1 << 17);
}

#else
typedef int cr_vec_len_float_has_nothing_here_;
#endif
