/* real.c — out-of-line helpers of the Q32.32 fixed-point scalar (crumple/real.h).
 *
 * Only the fixed-point build (-DCR_FIXED=1) has anything here; in float mode
 * every helper is an inline in real.h.
 *
 *   cr_div         (a * 2^32) / b, truncated toward zero, saturating.
 *   cr_from_float  exact decode of the IEEE-754 bits, integer arithmetic only.
 *   cr_mul_soft_   a*b for targets without __int128 (Cortex-M, 32-bit x86).
 *
 * Notes
 *   - Every path must give the same bits on every target. Where __int128 exists
 *     we use it because it is fast; the portable paths are always compiled too
 *     (as cri_mul_portable_ / cri_div_portable_) so the tests can prove on a
 *     64-bit host that both give identical results; -DCR_NO_INT128 makes the
 *     whole library use them (real.h honours it too).
 *   - Saturation is symmetric: results are clamped to [-CR_REAL_MAX, CR_REAL_MAX],
 *     so INT64_MIN is never produced and negating a result is always safe.
 *   - Signed overflow is undefined behaviour in C, so every wrapping intermediate
 *     is unsigned; conversions back to int64 go through cr_u2s_, which is
 *     well-defined and compiles to nothing.
 */
#include "crumple/real.h"

#if CR_FIXED

#if defined(__SIZEOF_INT128__) && !defined(CR_NO_INT128)
#define CR_REAL_I128_ 1
#else
#define CR_REAL_I128_ 0
#endif

#include <string.h>

/* Test hooks: the portable paths, always compiled, same bits as the fast paths. */
cr_real cri_mul_portable_(cr_real a, cr_real b);
cr_real cri_div_portable_(cr_real a, cr_real b);

/* Two's-complement reinterpretation without implementation-defined casts. */
static inline int64_t cr_u2s_(uint64_t u) {
    return u <= (uint64_t)INT64_MAX ? (int64_t)u : -(int64_t)(~u) - 1;
}

/* |a| as unsigned; correct for INT64_MIN too. */
static inline uint64_t cr_uabs_(int64_t a) { return a < 0 ? 0u - (uint64_t)a : (uint64_t)a; }

/* 64x64 -> 128 unsigned product from 32-bit halves (no carries are lost:
 * each partial product is < 2^64 and the middle sum is split before adding). */
static void cr_umul128_(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo) {
    uint64_t a0 = a & 0xffffffffu, a1 = a >> 32;
    uint64_t b0 = b & 0xffffffffu, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
    *lo = (mid << 32) | (p00 & 0xffffffffu);
    *hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

cr_real cri_mul_portable_(cr_real a, cr_real b) {
    uint64_t ua = (uint64_t)a, ub = (uint64_t)b, hi, lo;
    cr_umul128_(ua, ub, &hi, &lo);
    /* Signed product from the unsigned one: subtract b*2^64 if a < 0 and
     * a*2^64 if b < 0 (mod 2^128; only the high word changes). */
    if (a < 0) hi -= ub;
    if (b < 0) hi -= ua;
    /* + 2^31 then arithmetic >> 32, keeping the low 64 bits of the result:
     * exactly what the __int128 expression in real.h computes. */
    uint64_t lo2 = lo + ((uint64_t)1 << 31);
    if (lo2 < lo) hi += 1;
    return cr_u2s_((lo2 >> 32) | (hi << 32));
}

#if !CR_REAL_I128_
cr_real cr_mul_soft_(cr_real a, cr_real b) { return cri_mul_portable_(a, b); }
#endif

/* Quotient magnitude -> saturated signed result. */
static inline cr_real cr_div_finish_(uint64_t q, bool neg, bool overflow) {
    if (overflow || q > (uint64_t)INT64_MAX) return neg ? -CR_REAL_MAX : CR_REAL_MAX;
    return neg ? -(int64_t)q : (int64_t)q;
}

/* floor(|a| * 2^32 / |b|) by shift-subtract, 32 bits at a time: the integer
 * part with one 64-bit division, then the 32 fraction bits one by one. The
 * remainder stays below |b| <= 2^63, so doubling it never overflows. */
cr_real cri_div_portable_(cr_real a, cr_real b) {
    if (b == 0) return a > 0 ? CR_REAL_MAX : (a < 0 ? -CR_REAL_MAX : 0);
    uint64_t ua = cr_uabs_(a), ub = cr_uabs_(b);
    bool neg = (a < 0) != (b < 0);
    uint64_t qi = ua / ub, r = ua % ub;
    if (qi >> 31) return cr_div_finish_(0, neg, true); /* |q| >= 2^63 */
    uint64_t qf = 0;
    for (int i = 0; i < 32; ++i) {
        r <<= 1;
        qf <<= 1;
        if (r >= ub) {
            r -= ub;
            qf |= 1u;
        }
    }
    return cr_div_finish_((qi << 32) | qf, neg, false);
}

cr_real cr_div(cr_real a, cr_real b) {
#if CR_REAL_I128_
    if (b == 0) return a > 0 ? CR_REAL_MAX : (a < 0 ? -CR_REAL_MAX : 0);
    __extension__ typedef unsigned __int128 u128;
    u128 n = (u128)cr_uabs_(a) << 32; /* < 2^95: no overflow */
    u128 q = n / cr_uabs_(b);
    bool neg = (a < 0) != (b < 0);
    return cr_div_finish_((uint64_t)q, neg, (q >> 63) != 0);
#else
    return cri_div_portable_(a, b);
#endif
}

/* value = mant * 2^(exp - 150) for a normal float; raw = value * 2^32. */
cr_real cr_from_float(float f) {
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    bool neg = (bits >> 31) != 0;
    int32_t ex = (int32_t)((bits >> 23) & 0xffu);
    uint64_t mant = bits & 0x7fffffu;
    if (ex == 0xff) {
        if (mant != 0) return 0; /* NaN */
        return neg ? -CR_REAL_MAX : CR_REAL_MAX;
    }
    if (ex == 0) {
        ex = 1; /* subnormal: no hidden bit, same scale as the smallest normal */
    } else {
        mant |= (uint64_t)1 << 23;
    }
    int32_t sh = ex - 150 + 32; /* raw = mant * 2^sh */
    uint64_t mag;
    if (sh >= 0) {
        if (sh > 40) return neg ? -CR_REAL_MAX : CR_REAL_MAX; /* mant < 2^24: 2^64 and up */
        mag = mant << sh; /* < 2^64 */
        if (mag > (uint64_t)INT64_MAX) return neg ? -CR_REAL_MAX : CR_REAL_MAX;
    } else {
        mag = sh <= -64 ? 0 : mant >> -sh; /* truncation toward zero */
    }
    return neg ? -(int64_t)mag : (int64_t)mag;
}

#else

/* Float mode needs nothing out of line; ISO C forbids an empty translation unit. */
typedef int cr_real_c_is_empty_in_float_mode_;

#endif
