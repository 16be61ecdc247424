/* scalar.c — crumple's own sqrt, rsqrt, sin, cos, atan2, exp and log.
 *
 * libm's transcendental functions differ between C libraries (and versions of
 * the same one) in the last bit, which is enough to make two machines disagree
 * about a simulation after a few hundred frames. So the runtime computes them
 * itself from operations whose results IEEE-754 (or plain integer arithmetic)
 * pins down exactly: + - * /, sqrt, conversions and bit manipulation. With
 * -ffp-contract=off and SSE/VFP arithmetic (FLT_EVAL_METHOD 0) each function is
 * then bit-identical on every compiler and CPU.
 *
 * Float mode (default)
 *   sqrt   the IEEE operation (__builtin_sqrtf), correctly rounded.
 *   rsqrt  1 / sqrt(x): two correctly rounded operations.
 *   sin, cos  reduction to r in [-pi/4, pi/4] plus a quadrant: a 3-part
 *          Cody–Waite subtraction of k*pi/2 for |x| < 4096, an exact integer
 *          multiplication by the bits of 2/pi (Payne–Hanek) above; then Taylor
 *          polynomials in r^2 (their truncation error is ~1e-10, far below float
 *          rounding).
 *   atan2  octant reduction (|y| <-> |x| swap, signs), then atan(u) for
 *          |u| <= tan(pi/8) through atan(t) = pi/4 + atan((t-1)/(t+1)), with a
 *          degree-4-in-u^2 Chebyshev fit; the octant base angle is added last,
 *          as a hi+lo pair, in a single rounding.
 *   exp    x = k ln2 + r with a 2-part Cody–Waite ln2, |r| <= ln2/2, degree-7
 *          Taylor polynomial, scaled by 2^k built from exponent bits.
 *   log    x = 2^e m with m in [sqrt(1/2), sqrt(2)), log m = 2 atanh(s) with
 *          s = (m-1)/(m+1), odd series to s^11, plus e*ln2 as a hi+lo pair.
 *
 * Fixed mode (CR_FIXED=1): integer arithmetic only, no float or double at all.
 *   sqrt   raw normalised by an even shift to m in [0.5, 2); 1/sqrt(m) from a
 *          192-entry seed and three Newton steps (multiplies only); sqrt = m * (1/sqrt m),
 *          then an exact integer check makes it the correctly rounded sqrt(raw*2^32).
 *   rsqrt  the same 1/sqrt(m), shifted and rounded to nearest (error < 0.51 units).
 *   sin, cos  |x| times 128 bits of 2/pi (a 192-bit product, so even x = 2^31 is
 *          reduced exactly), r in Q2.62, Taylor to r^15 / r^16 in Q2.62.
 *   atan2  octant reduction, then 40 CORDIC vectoring steps (shifts and adds
 *          only) accumulating the angle from a table of atan(2^-i) in Q61.
 *   exp    x*log2(e) in Q6.57, e^x = 2^k * sqrt(2) * e^g, |g| <= ln2/2, degree-12
 *          Taylor in Q2.62, rounded to nearest; saturates / underflows to 0.
 *   log    x = 2^n m, m in [1, 2); m*r_i = 1+u with r_i from a 32-entry table
 *          (|u| <= 1/64), log m = log1p(u) - log r_i, degree-9 series in Q2.62.
 *
 * Measured errors are in docs/scalar.md and are enforced by tests/test_scalar.c.
 *
 * Notes
 *   - All tables are static const numbers (no pointers), so the runtime keeps
 *     no writable data. The constants were generated with mpmath at 400 bits
 *     (script in docs/scalar.md).
 *   - Right shifts of negative signed values are arithmetic on every compiler
 *     the project supports (real.h relies on this too); left shifts of negative
 *     values are avoided (undefined), as is any signed overflow.
 *   - Where the compiler has __int128 it is used for 64x64->128 products; the
 *     portable 32-bit-halves path gives the same bits (-DCR_NO_INT128 forces it
 *     on a 64-bit host, which is how the tests check that).
 */
#include "crumple/real.h"

#include <string.h>

#if defined(__SIZEOF_INT128__) && !defined(CR_NO_INT128)
#define CR_SCALAR_I128_ 1
__extension__ typedef unsigned __int128 cr_u128_;
__extension__ typedef __int128 cr_s128_;
#else
#define CR_SCALAR_I128_ 0
#endif

/* ------------------------------------------------------------------------- */
/* Integer helpers shared by both modes (float mode needs them for the exact */
/* reduction of large sin/cos arguments).                                     */

/* 2/pi as a 256-bit binary fraction: word 0 holds bits 2^-1 .. 2^-32. */
static const uint32_t cr_two_over_pi_[8] = {
    0xa2f9836eu, 0x4e441529u, 0xfc2757d1u, 0xf534ddc0u,
    0xdb629599u, 0x3c439041u, 0xfe5163abu, 0xdebbc561u,
};

#define CR_PIO2_Q61_ INT64_C(0x3243f6a8885a308d) /* pi/2 * 2^61 */

static inline void cr_umul128_(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo) {
#if CR_SCALAR_I128_
    cr_u128_ p = (cr_u128_)a * b;
    *hi = (uint64_t)(p >> 64);
    *lo = (uint64_t)p;
#else
    uint64_t a0 = a & 0xffffffffu, a1 = a >> 32;
    uint64_t b0 = b & 0xffffffffu, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
    *lo = (mid << 32) | (p00 & 0xffffffffu);
    *hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
#endif
}

/* Two's-complement reinterpretation, well-defined (compiles to nothing). */
static inline int64_t cr_u2s_(uint64_t u) {
    return u <= (uint64_t)INT64_MAX ? (int64_t)u : -(int64_t)(~u) - 1;
}

/* (a*b + 2^(sh-1)) >> sh on the exact 128-bit product, 1 <= sh <= 63:
 * round to nearest, ties up. The caller guarantees the result fits. */
static inline int64_t cr_qmul_(int64_t a, int64_t b, int sh) {
#if CR_SCALAR_I128_
    return (int64_t)(((cr_s128_)a * b + ((cr_s128_)1 << (sh - 1))) >> sh);
#else
    uint64_t ua = (uint64_t)a, ub = (uint64_t)b, hi, lo;
    cr_umul128_(ua, ub, &hi, &lo);
    if (a < 0) hi -= ub;
    if (b < 0) hi -= ua;
    uint64_t lo2 = lo + ((uint64_t)1 << (sh - 1));
    if (lo2 < lo) hi += 1;
    return cr_u2s_((lo2 >> sh) | (hi << (64 - sh)));
#endif
}

/* 32 bits of 2/pi starting after bit index `pos` (0 = first fraction bit). */
static inline uint64_t cr_2pi_word_(int idx) { return idx < 8 ? cr_two_over_pi_[idx] : 0u; }
static uint64_t cr_2pi_bits64_(int pos) {
    int w = pos >> 5, s = pos & 31;
    uint64_t v = (cr_2pi_word_(w) << 32) | cr_2pi_word_(w + 1);
    if (s == 0) return v;
    return (v << s) | (cr_2pi_word_(w + 2) >> (32 - s));
}

/* Payne–Hanek reduction of the exact value m * 2^e (m < 2^64, -32 <= e <= 104):
 * returns the quadrant (mod 4) of m 2^e / (pi/2) rounded to nearest and the
 * remainder r = that value minus the quadrant, times pi/2, in Q2.62.
 * Bits of 2/pi worth a multiple of 4 after scaling by 2^e are skipped (they only
 * add whole turns); the next 128 bits make a 192-bit product whose bits below
 * the binary point give the remainder to ~2^-90 (m < 2^64 cancels at most 64). */
static unsigned cr_reduce_pio2_(uint64_t m, int e, int64_t *r_q62) {
    int s = e >= 2 ? e - 2 : 0;
    uint64_t whi = cr_2pi_bits64_(s), wlo = cr_2pi_bits64_(s + 64);
    uint64_t h1, l1, h2, l2;
    cr_umul128_(m, wlo, &h1, &l1);
    cr_umul128_(m, whi, &h2, &l2);
    uint64_t p[3];
    p[0] = l1;
    p[1] = l2 + h1;
    p[2] = h2 + (p[1] < h1);
    /* The product is (m 2^e 2/pi mod 4) * 2^pos. */
    int pos = s + 128 - e; /* 127..160 */
    int b = pos - 64;      /* fraction = bits b .. b+63 */
    int w = b >> 6, sh = b & 63;
    uint64_t frac = sh ? (p[w] >> sh) | (p[w + 1] << (64 - sh)) : p[w];
    int qb = pos;
    unsigned quad = (unsigned)(p[qb >> 6] >> (qb & 63));
    if ((qb & 63) == 63) quad |= (unsigned)(p[(qb >> 6) + 1] << 1);
    if (frac >> 63) quad += 1; /* round to the nearest quadrant */
    /* frac as signed Q0.64 in [-1/2, 1/2), times pi/2 (Q61) -> Q62. */
    *r_q62 = cr_qmul_(cr_u2s_(frac), CR_PIO2_Q61_, 63);
    return quad & 3u;
}

#if CR_FIXED
/* ========================================================================= */
/* Fixed point Q32.32: integers only.                                        */

#define CR_ONE_Q62_ (INT64_C(1) << 62)

/* Q2.62 multiply, the workhorse of the fixed-point polynomials. */
static inline int64_t cr_q62_(int64_t a, int64_t b) { return cr_qmul_(a, b, 62); }

static inline int cr_clz64_(uint64_t v) { /* v != 0 */
#if defined(__GNUC__)
    return __builtin_clzll(v);
#else
    int n = 0;
    for (int s = 32; s > 0; s >>= 1) {
        if ((v >> (64 - s)) == 0) {
            n += s;
            v <<= s;
        }
    }
    return n;
#endif
}

/* Rounded Q2.62 -> Q32.32. */
static inline cr_real cr_q62_to_real_(int64_t v) { return (v + (INT64_C(1) << 29)) >> 30; }

/* (a*b + 2^61) >> 62 for unsigned a, b < 2^63 (so the result is < 2^64). */
static inline uint64_t cr_umul62_(uint64_t a, uint64_t b) {
    uint64_t hi, lo;
    cr_umul128_(a, b, &hi, &lo);
    uint64_t lo2 = lo + (UINT64_C(1) << 61);
    hi += lo2 < lo;
    return (hi << 2) | (lo2 >> 62);
}

/* 2^15 / sqrt((i + 64.5) / 128): first guess of 1/sqrt(m) for m in [0.5, 2),
 * indexed by the top 8 bits of m in Q2.62, relative error < 2^-8. */
static const uint16_t cr_rsqrt_seed_[192] = {
    46161u, 45807u, 45462u, 45124u, 44793u, 44470u, 44153u, 43843u, 43540u, 43243u, 42951u, 42666u,
    42386u, 42112u, 41843u, 41579u, 41320u, 41065u, 40816u, 40571u, 40330u, 40093u, 39861u, 39632u,
    39408u, 39187u, 38970u, 38756u, 38546u, 38340u, 38136u, 37936u, 37739u, 37545u, 37354u, 37166u,
    36980u, 36798u, 36618u, 36441u, 36266u, 36093u, 35924u, 35756u, 35591u, 35428u, 35267u, 35109u,
    34953u, 34798u, 34646u, 34496u, 34347u, 34201u, 34056u, 33913u, 33772u, 33633u, 33496u, 33360u,
    33225u, 33093u, 32962u, 32832u, 32704u, 32578u, 32453u, 32329u, 32207u, 32086u, 31966u, 31848u,
    31731u, 31616u, 31501u, 31388u, 31276u, 31166u, 31056u, 30948u, 30840u, 30734u, 30629u, 30525u,
    30422u, 30320u, 30219u, 30120u, 30021u, 29923u, 29826u, 29730u, 29635u, 29540u, 29447u, 29354u,
    29263u, 29172u, 29082u, 28993u, 28905u, 28817u, 28731u, 28645u, 28560u, 28475u, 28392u, 28309u,
    28227u, 28145u, 28064u, 27984u, 27905u, 27826u, 27748u, 27671u, 27594u, 27518u, 27442u, 27368u,
    27293u, 27220u, 27147u, 27074u, 27002u, 26931u, 26860u, 26790u, 26720u, 26651u, 26582u, 26514u,
    26447u, 26380u, 26313u, 26247u, 26182u, 26117u, 26052u, 25988u, 25924u, 25861u, 25799u, 25736u,
    25674u, 25613u, 25552u, 25492u, 25432u, 25372u, 25313u, 25254u, 25196u, 25138u, 25080u, 25023u,
    24966u, 24910u, 24854u, 24798u, 24743u, 24688u, 24633u, 24579u, 24525u, 24472u, 24419u, 24366u,
    24313u, 24261u, 24209u, 24158u, 24107u, 24056u, 24005u, 23955u, 23905u, 23856u, 23807u, 23758u,
    23709u, 23661u, 23613u, 23565u, 23518u, 23470u, 23423u, 23377u, 23331u, 23284u, 23239u, 23193u,
};

/* For raw > 0: M = raw * 4^j in [2^61, 2^63), i.e. m = M / 2^62 in [0.5, 2),
 * and y = 1/sqrt(m) in Q2.62 to ~2^-59 relative: the table seed (2^-8), then
 * three Newton steps y += y (1 - m y^2) / 2, each squaring the error. */
static uint64_t cr_rsqrt_m_(uint64_t raw, int *j, uint64_t *M) {
    int n = 63 - cr_clz64_(raw);
    int twoj = (62 - n) & ~1;
    uint64_t m = raw << twoj;
    uint64_t y = (uint64_t)cr_rsqrt_seed_[(m >> 55) - 64u] << 47;
    for (int i = 0; i < 3; ++i) {
        int64_t e = (int64_t)(UINT64_C(1) << 62) - (int64_t)cr_umul62_(m, cr_umul62_(y, y)); /* |e| < 2^55 */
        y += (uint64_t)cr_qmul_((int64_t)y, e, 63);
    }
    *j = twoj >> 1;
    *M = m;
    return y;
}

/* raw result = sqrt(raw * 2^32) = sqrt(m) 2^(47-j) = m y 2^(47-j). The Newton
 * result is within 2^-12 of the exact root, so the candidate is at most one
 * away from the correctly rounded root; the exact test N - R^2 in (-R, R]
 * (N = raw 2^32; both sides mod 2^64 since the difference is < 2^50) fixes it. */
cr_real cr_sqrt(cr_real x) {
    if (x <= 0) return 0;
    int j;
    uint64_t M, y = cr_rsqrt_m_((uint64_t)x, &j, &M);
    int sh = 15 + j;
    uint64_t R = (cr_umul62_(M, y) + (UINT64_C(1) << (sh - 1))) >> sh;
    int64_t D = cr_u2s_(((uint64_t)x << 32) - R * R);
    if (D > (int64_t)R) R += 1u;
    else if (D <= -(int64_t)R) R -= 1u;
    return (cr_real)R;
}

/* raw result = 2^48 / sqrt(raw) = y 2^(17+j) in Q32.32: y rounded to nearest
 * after a shift of 45 - j >= 14 bits; y's own error is below 2^-12 units. */
cr_real cr_rsqrt(cr_real x) {
    if (x <= 0) return CR_REAL_MAX;
    int j;
    uint64_t M, y = cr_rsqrt_m_((uint64_t)x, &j, &M);
    int sh = 45 - j;
    return (cr_real)((y + (UINT64_C(1) << (sh - 1))) >> sh);
}

/* Taylor coefficients (-1)^n / (2n+1)! and (-1)^n / (2n)! in Q2.62. */
static const int64_t cr_sin_q62_[7] = {
    INT64_C(-768614336404564651), INT64_C(38430716820228233), INT64_C(-915017067148291),
    INT64_C(12708570377060),      INT64_C(-115532457973),     INT64_C(740592679),
    INT64_C(-3526632),
};
static const int64_t cr_cos_q62_[8] = {
    INT64_C(-2305843009213693952), INT64_C(192153584101141163), INT64_C(-6405119470038039),
    INT64_C(114377133393536),      INT64_C(-1270857037706),     INT64_C(9627704831),
    INT64_C(-52899477),            INT64_C(220414),
};

/* |r| <= pi/4 (+ tiny): truncation errors 2e-14 (sin) and 1e-15 (cos). */
static int64_t cr_sin_poly_q62_(int64_t r) {
    int64_t z = cr_q62_(r, r), p = cr_sin_q62_[6];
    for (int i = 5; i >= 0; --i) p = cr_sin_q62_[i] + cr_q62_(z, p);
    return r + cr_q62_(cr_q62_(r, z), p);
}
static int64_t cr_cos_poly_q62_(int64_t r) {
    int64_t z = cr_q62_(r, r), p = cr_cos_q62_[7];
    for (int i = 6; i >= 0; --i) p = cr_cos_q62_[i] + cr_q62_(z, p);
    return CR_ONE_Q62_ + cr_q62_(z, p);
}

/* sin(x + quarter * pi/2). */
static cr_real cr_sincos_fixed_(cr_real x, unsigned quarter) {
    uint64_t m = x < 0 ? 0u - (uint64_t)x : (uint64_t)x;
    int64_t r;
    unsigned q = cr_reduce_pio2_(m, -32, &r);
    /* sin(-x + k pi/2) = -sin(x - k pi/2): negate r and the quadrant. */
    if (x < 0) {
        r = -r;
        q = 0u - q;
    }
    q = (q + quarter) & 3u;
    int64_t v = (q & 1u) ? cr_cos_poly_q62_(r) : cr_sin_poly_q62_(r);
    if (q & 2u) v = -v;
    return cr_q62_to_real_(v);
}

cr_real cr_sin(cr_real x) { return cr_sincos_fixed_(x, 0); }
cr_real cr_cos(cr_real x) { return cr_sincos_fixed_(x, 1); }

/* atan(2^-i) in Q61. */
#define CR_CORDIC_STEPS_ 40
static const int64_t cr_atan_pow2_q61_[CR_CORDIC_STEPS_] = {
    INT64_C(0x1921fb54442d1847), INT64_C(0x0ed63382b0dda7b4), INT64_C(0x07d6dd7e4b203759),
    INT64_C(0x03fab7535585edb9), INT64_C(0x01ff55bb72cfde9c), INT64_C(0x00ffeaaddd4bb125),
    INT64_C(0x007ffd556eedca6b), INT64_C(0x003fffaaab77752e), INT64_C(0x001ffff5555bbbb7),
    INT64_C(0x000ffffeaaaaddde), INT64_C(0x0007ffffd55556ef), INT64_C(0x0003fffffaaaaab7),
    INT64_C(0x0001ffffff555556), INT64_C(0x0000ffffffeaaaab), INT64_C(0x00007ffffffd5555),
    INT64_C(0x00003fffffffaaab), INT64_C(0x00001ffffffff555), INT64_C(0x00000ffffffffeab),
    INT64_C(0x000007ffffffffd5), INT64_C(0x000003fffffffffb), INT64_C(0x000001ffffffffff),
    INT64_C(0x0000010000000000), INT64_C(0x0000008000000000), INT64_C(0x0000004000000000),
    INT64_C(0x0000002000000000), INT64_C(0x0000001000000000), INT64_C(0x0000000800000000),
    INT64_C(0x0000000400000000), INT64_C(0x0000000200000000), INT64_C(0x0000000100000000),
    INT64_C(0x0000000080000000), INT64_C(0x0000000040000000), INT64_C(0x0000000020000000),
    INT64_C(0x0000000010000000), INT64_C(0x0000000008000000), INT64_C(0x0000000004000000),
    INT64_C(0x0000000002000000), INT64_C(0x0000000001000000), INT64_C(0x0000000000800000),
    INT64_C(0x0000000000400000),
};
#define CR_PI_Q61_ INT64_C(0x6487ed5110b4611a)

cr_real cr_atan2(cr_real y, cr_real x) {
    uint64_t ax = x < 0 ? 0u - (uint64_t)x : (uint64_t)x;
    uint64_t ay = y < 0 ? 0u - (uint64_t)y : (uint64_t)y;
    if (ax == 0 && ay == 0) return 0;
    bool swap = ay > ax;
    uint64_t mx = swap ? ay : ax, mn = swap ? ax : ay;
    int64_t a = 0;
    if (mn != 0) {
        /* Scale so that mx is in [2^60, 2^61): CORDIC's gain (1.65) times the
         * length (<= sqrt(2) mx) then stays below 2^63. The angle only
         * depends on the ratio, and dropping <= 3 low bits of a 2^63-sized
         * value changes it by < 2^-59. */
        int lead = 63 - cr_clz64_(mx);
        if (lead > 60) {
            mx >>= lead - 60;
            mn >>= lead - 60;
        } else {
            mx <<= 60 - lead;
            mn <<= 60 - lead;
        }
        int64_t X = (int64_t)mx, Y = (int64_t)mn;
        /* Rotate (X, Y) onto the x axis; the residual angle after step i is
         * below atan(2^-i), so 40 steps leave < 2^-39 rad. */
        for (int i = 0; i < CR_CORDIC_STEPS_; ++i) {
            int64_t dx = Y >> i, dy = X >> i;
            if (Y >= 0) {
                X += dx;
                Y -= dy;
                a += cr_atan_pow2_q61_[i];
            } else {
                X -= dx;
                Y += dy;
                a -= cr_atan_pow2_q61_[i];
            }
        }
    }
    if (swap) a = (CR_PIO2_Q61_ - a);
    if (x < 0) a = CR_PI_Q61_ - a;
    if (y < 0) a = -a;
    return (a + (INT64_C(1) << 28)) >> 29;
}

/* 1/n! for n = 0..12 in Q2.62. */
static const int64_t cr_exp_q62_[13] = {
    INT64_C(4611686018427387904), INT64_C(4611686018427387904), INT64_C(2305843009213693952),
    INT64_C(768614336404564651),  INT64_C(192153584101141163),  INT64_C(38430716820228233),
    INT64_C(6405119470038039),    INT64_C(915017067148291),     INT64_C(114377133393536),
    INT64_C(12708570377060),      INT64_C(1270857037706),       INT64_C(115532457973),
    INT64_C(9627704831),
};
#define CR_LOG2E_Q62_ INT64_C(0x5c551d94ae0bf85e)
#define CR_LN2_Q62_ INT64_C(0x2c5c85fdf473de6b)
#define CR_SQRT2_Q62_ INT64_C(0x5a827999fcef3242)
#define CR_LN2_Q57_ INT64_C(0x162e42fefa39ef3)

cr_real cr_exp(cr_real x) {
    /* e^22 > 2^31 saturates; e^-23 * 2^32 = 0.44 rounds to 0. */
    if (x >= INT64_C(22) << 32) return CR_REAL_MAX;
    if (x <= -(INT64_C(23) << 32)) return 0;
    /* t = x log2(e) in Q6.57; k = floor(t), f = t - k in [0, 1). */
    int64_t t = cr_qmul_(x, CR_LOG2E_Q62_, 37);
    int k = (int)(t >> 57);
    int64_t f = (int64_t)((uint64_t)t & ((UINT64_C(1) << 57) - 1u));
    /* g = (f - 1/2) ln2 in Q2.62, |g| <= 0.347; e^x = 2^k sqrt(2) e^g. */
    int64_t g = cr_q62_((f - (INT64_C(1) << 56)) * 32, CR_LN2_Q62_);
    int64_t p = cr_exp_q62_[12];
    for (int i = 11; i >= 0; --i) p = cr_exp_q62_[i] + cr_q62_(g, p);
    int64_t v = cr_qmul_(p, CR_SQRT2_Q62_, 63); /* 2^(f) in Q61: [2^61, 2^62] */
    int sh = 29 - k;                             /* raw = v * 2^(k + 32 - 61) */
    if (sh < 0) {
        if (sh < -1 || v >= (INT64_C(1) << 62)) return CR_REAL_MAX;
        return v * 2;
    }
    if (sh >= 63) return 0;
    return (cr_real)(((uint64_t)v + (UINT64_C(1) << sh >> 1)) >> sh);
}

/* r_i ~ 1 / (1 + (i + 1/2)/32) in Q2.62, and -log(r_i) of those exact values. */
static const int64_t cr_log_r_q62_[32] = {
    INT64_C(0x3f03f03f03f03f04), INT64_C(0x3d226357e16ece54), INT64_C(0x3b5cc0ed7303b5cc),
    INT64_C(0x39b0ad12073615a2), INT64_C(0x381c0e070381c0e0), INT64_C(0x369d0369d0369d03),
    INT64_C(0x3531dec0d4c77b03), INT64_C(0x33d91d2a2067b23a), INT64_C(0x329161f9add3c0ca),
    INT64_C(0x3159721ed7e75347), INT64_C(0x3030303030303030), INT64_C(0x2f149902f149902f),
    INT64_C(0x2e05c0b81702e05c), INT64_C(0x2d02d02d02d02d03), INT64_C(0x2c0b02c0b02c0b03),
    INT64_C(0x2b1da46102b1da46), INT64_C(0x2a3a0fd5c5f02a3a), INT64_C(0x295fad40a57eb503),
    INT64_C(0x288df0cac5b3f5dd), INT64_C(0x27c45979c95204f9), INT64_C(0x2702702702702702),
    INT64_C(0x2647c69456217ece), INT64_C(0x2593f69b02593f6a), INT64_C(0x24e6a171024e6a17),
    INT64_C(0x243f6f0243f6f024), INT64_C(0x239e0d5b450239e1), INT64_C(0x2302302302302302),
    INT64_C(0x226b90226b90226c), INT64_C(0x21d9ead7cd391fbc), INT64_C(0x214d0214d0214d02),
    INT64_C(0x20c49ba5e353f7cf), INT64_C(0x2040810204081020),
};
static const int64_t cr_log_nlr_q62_[32] = {
    INT64_C(0x00fe054587e01f1e), INT64_C(0x02ee8b1ec65b9f89), INT64_C(0x04d075e586f47425),
    INT64_C(0x06a49b4e92b558da), INT64_C(0x086bbf3e68472cb4), INT64_C(0x0a2695b665be8f34),
    INT64_C(0x0bd5c481086c848e), INT64_C(0x0d79e4a7405ff96d), INT64_C(0x0f1383b7157972f5),
    INT64_C(0x10a324e27390e35f), INT64_C(0x122941fbcf7965a3), INT64_C(0x13a64c556945e9c7),
    INT64_C(0x151aad872df82d0a), INT64_C(0x1686c81e9b14aec4), INT64_C(0x17eaf83b82afc364),
    INT64_C(0x1947941c2116faba), INT64_C(0x1a9cec9a9a08498d), INT64_C(0x1beb4d9da71b7bf7),
    INT64_C(0x1d32fe7e00ebd561), INT64_C(0x1e744261d68787e3), INT64_C(0x1faf588f78f31eda),
    INT64_C(0x20e47cb839be809c), INT64_C(0x2213e73c5a992dfb), INT64_C(0x233dcd68cf92dd99),
    INT64_C(0x246261af7d7e8506), INT64_C(0x2581d3da891d1773), INT64_C(0x269c513b39c3a62e),
    INT64_C(0x27b204d4e2adf547), INT64_C(0x28c3178438bd84fb), INT64_C(0x29cfb0236eb7613a),
    INT64_C(0x2ad7f3ab67e73282), INT64_C(0x2bdc0552482ceae2),
};
/* (-1)^(n+1)/n for n = 1..9 in Q2.62. */
static const int64_t cr_log1p_q62_[9] = {
    INT64_C(4611686018427387904), INT64_C(-2305843009213693952), INT64_C(1537228672809129301),
    INT64_C(-1152921504606846976), INT64_C(922337203685477581),  INT64_C(-768614336404564651),
    INT64_C(658812288346769701),  INT64_C(-576460752303423488), INT64_C(512409557603043100),
};

cr_real cr_log(cr_real x) {
    if (x <= 0) return -CR_REAL_MAX;
    int n = 63 - cr_clz64_((uint64_t)x);                 /* x = 2^(n-32) m */
    int64_t m = (int64_t)((uint64_t)x << (62 - n));       /* m in [1, 2), Q2.62 */
    int i = (int)((m >> 57) & 31);
    int64_t u = cr_q62_(m, cr_log_r_q62_[i]) - CR_ONE_Q62_; /* |u| <= 1/64 */
    int64_t p = cr_log1p_q62_[8];
    for (int j = 7; j >= 0; --j) p = cr_log1p_q62_[j] + cr_q62_(u, p);
    int64_t logm = cr_q62_(u, p) + cr_log_nlr_q62_[i]; /* log m, Q2.62 */
    int64_t t = (int64_t)(n - 32) * CR_LN2_Q57_ + ((logm + 16) >> 5); /* Q6.57 */
    return (t + (INT64_C(1) << 24)) >> 25;
}

#else /* ===================================================================== */
/* Float: + - * / and bit manipulation only.                                 */

static inline uint32_t cr_f2u_(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}
static inline float cr_u2f_(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

#if defined(__GNUC__) && defined(__NO_MATH_ERRNO__)
/* the external definitions of the inline ones in crumple/real.h */
extern inline cr_real cr_sqrt(cr_real x);
extern inline cr_real cr_rsqrt(cr_real x);
#else
cr_real cr_sqrt(cr_real x) { return x < 0.0f ? 0.0f : __builtin_sqrtf(x); }

cr_real cr_rsqrt(cr_real x) { return x <= 0.0f ? CR_REAL_MAX : 1.0f / __builtin_sqrtf(x); }
#endif

/* pi/2 = P1 + P2 + P3; P1 and P2 have 12 significant bits so k*P1 and k*P2 are
 * exact for k < 2^12. */
#define CR_PIO2_P1_ 0x1.922p+0f
#define CR_PIO2_P2_ -0x1.2aep-18f
#define CR_PIO2_P3_ -0x1.de973ep-31f
#define CR_2_OVER_PI_F_ 0x1.45f306p-1f

/* Returns the quadrant; *r = x - quadrant*pi/2 in [-pi/4, pi/4] (+ tiny). */
static unsigned cr_reduce_f_(float ax, float *r) {
    if (ax <= 0x1.921fb6p-1f) {
        *r = ax;
        return 0;
    }
    if (ax < 4096.0f) {
        int k = (int)(ax * CR_2_OVER_PI_F_ + 0.5f);
        float kf = (float)k;
        *r = ((ax - kf * CR_PIO2_P1_) - kf * CR_PIO2_P2_) - kf * CR_PIO2_P3_;
        return (unsigned)k & 3u;
    }
    /* Exact reduction of the float's value m 2^e in integers. */
    uint32_t bits = cr_f2u_(ax);
    uint64_t m = (bits & 0x7fffffu) | 0x800000u;
    int e = (int)(bits >> 23) - 150;
    int64_t r62;
    unsigned q = cr_reduce_pio2_(m, e, &r62);
    *r = (float)r62 * 0x1p-62f; /* one correctly rounded conversion */
    return q;
}

/* Taylor coefficients; truncation < 1e-10 on [-pi/4, pi/4]. */
static float cr_sin_poly_f_(float r) {
    float z = r * r;
    float p = -0x1.ae6456p-26f; /* -1/11! */
    p = 0x1.71de3ap-19f + z * p; /* 1/9! */
    p = -0x1.a01a02p-13f + z * p; /* -1/7! */
    p = 0x1.111112p-7f + z * p;  /* 1/5! */
    p = -0x1.555556p-3f + z * p; /* -1/3! */
    return r + (r * z) * p;
}
static float cr_cos_poly_f_(float r) {
    float z = r * r;
    float p = -0x1.27e4fcp-22f;  /* -1/10! */
    p = 0x1.a01a02p-16f + z * p; /* 1/8! */
    p = -0x1.6c16c2p-10f + z * p; /* -1/6! */
    p = 0x1.555556p-5f + z * p;  /* 1/4! */
    return (1.0f - 0.5f * z) + (z * z) * p;
}

static float cr_sincos_f_(float x, unsigned quarter) {
    if (x != x || x - x != 0.0f) return x - x; /* NaN, inf -> NaN */
    float ax = x < 0.0f ? -x : x, r;
    unsigned q = cr_reduce_f_(ax, &r);
    if (x < 0.0f) {
        r = -r;
        q = 0u - q;
    }
    q = (q + quarter) & 3u;
    float v = (q & 1u) ? cr_cos_poly_f_(r) : cr_sin_poly_f_(r);
    return (q & 2u) ? -v : v;
}

cr_real cr_sin(cr_real x) { return cr_sincos_f_(x, 0); }
cr_real cr_cos(cr_real x) { return cr_sincos_f_(x, 1); }

/* Octant base angles 0, pi/4, pi/2, 3pi/4, pi as float hi + lo. */
static const float cr_atan_base_hi_[5] = {0.0f, 0x1.921fb6p-1f, 0x1.921fb6p+0f, 0x1.2d97c8p+1f,
                                          0x1.921fb6p+1f};
static const float cr_atan_base_lo_[5] = {0.0f, -0x1.777a5cp-26f, -0x1.777a5cp-25f,
                                          -0x1.99bc5cp-28f, -0x1.777a5cp-24f};

/* atan(u) for |u| <= tan(pi/8): u + u^3 P(u^2), P a Chebyshev fit (error 1e-9). */
static float cr_atan_poly_f_(float u) {
    float z = u * u;
    float p = -0x1.08455ep-4f;
    p = 0x1.b81030p-4f + z * p;
    p = -0x1.242036p-3f + z * p;
    p = 0x1.999730p-3f + z * p;
    p = -0x1.555554p-2f + z * p;
    return u + (u * z) * p;
}

cr_real cr_atan2(cr_real y, cr_real x) {
    if (x != x || y != y) return x + y;
    float ax = x < 0.0f ? -x : x, ay = y < 0.0f ? -y : y;
    if (ax == 0.0f && ay == 0.0f) return 0.0f;
    if (ax - ax != 0.0f && ay - ay != 0.0f) ax = ay = 1.0f; /* both infinite */
    bool swap = ay > ax;
    float mx = swap ? ay : ax, mn = swap ? ax : ay;
    if (mx > 0x1p120f) { /* keep mn + mx finite */
        mx *= 0x1p-8f;
        mn *= 0x1p-8f;
    }
    /* angle = base + sign * atan(u); base index counts pi/4 steps. */
    int base = 0;
    float sign = 1.0f, u;
    if (mn > mx * 0x1.a8279ap-2f) { /* t > tan(pi/8): atan t = pi/4 + atan((t-1)/(t+1)) */
        u = (mn - mx) / (mn + mx);
        base = 1;
    } else {
        u = mn / mx;
    }
    if (swap) { /* pi/2 - a */
        base = 2 - base;
        sign = -sign;
    }
    if (x < 0.0f) { /* pi - a */
        base = 4 - base;
        sign = -sign;
    }
    float a = cr_atan_base_hi_[base] + (sign * cr_atan_poly_f_(u) + cr_atan_base_lo_[base]);
    return y < 0.0f ? -a : a;
}

/* ln2 = LN2_HI + LN2_LO; LN2_HI has 16 bits so k*LN2_HI is exact for |k| < 2^8. */
#define CR_LN2_HI_F_ 0x1.62e4p-1f
#define CR_LN2_LO_F_ 0x1.7f7d1cp-20f
#define CR_LOG2E_F_ 0x1.715476p+0f

cr_real cr_exp(cr_real x) {
    if (x != x) return x;
    if (x > 0x1.62e42ep+6f) return CR_REAL_MAX; /* > ln(FLT_MAX) */
    if (x < -104.0f) return 0.0f;               /* below half the smallest subnormal */
    float kf = x * CR_LOG2E_F_;
    int k = (int)(kf < 0.0f ? kf - 0.5f : kf + 0.5f);
    kf = (float)k;
    float r = (x - kf * CR_LN2_HI_F_) - kf * CR_LN2_LO_F_; /* |r| <= 0.35 */
    float p = 0x1.a01a02p-13f;    /* 1/7! */
    p = 0x1.6c16c2p-10f + r * p;  /* 1/6! */
    p = 0x1.111112p-7f + r * p;   /* 1/5! */
    p = 0x1.555556p-5f + r * p;   /* 1/4! */
    p = 0x1.555556p-3f + r * p;   /* 1/3! */
    p = 0.5f + r * p;
    p = 1.0f + r * p;
    p = 1.0f + r * p;
    /* p * 2^k in at most two exact power-of-two steps, so a subnormal result
     * is rounded once. */
    if (k > 127) return p * 2.0f * cr_u2f_((uint32_t)(k - 1 + 127) << 23);
    if (k < -126) return (p * cr_u2f_((uint32_t)(k + 100 + 127) << 23)) * 0x1p-100f;
    return p * cr_u2f_((uint32_t)(k + 127) << 23);
}

cr_real cr_log(cr_real x) {
    if (x != x) return x;
    if (x <= 0.0f) return -CR_REAL_MAX;
    if (x - x != 0.0f) return x; /* +inf */
    uint32_t bits = cr_f2u_(x);
    int e = 0;
    if ((bits >> 23) == 0) { /* subnormal: scale into the normal range */
        bits = cr_f2u_(x * 0x1p25f);
        e = -25;
    }
    e += (int)(bits >> 23) - 127;
    bits = (bits & 0x7fffffu) | 0x3f800000u; /* m in [1, 2) */
    if (bits > 0x3fb504f3u) {                /* m > sqrt(2): use m/2 */
        bits -= 0x00800000u;
        e += 1;
    }
    float f = cr_u2f_(bits) - 1.0f; /* exact */
    float s = f / (2.0f + f);
    float z = s * s;
    /* log m = 2 atanh(s) = 2s + s z (2/3 + 2/5 z + ...), |s| <= 0.172. */
    float p = 0x1.745d18p-3f;     /* 2/11 */
    p = 0x1.c71c72p-3f + z * p;   /* 2/9 */
    p = 0x1.24924ap-2f + z * p;   /* 2/7 */
    p = 0x1.99999ap-2f + z * p;   /* 2/5 */
    p = 0x1.555556p-1f + z * p;   /* 2/3 */
    float logm = 2.0f * s + (s * z) * p;
    float ef = (float)e;
    return ef * CR_LN2_HI_F_ + (logm + ef * CR_LN2_LO_F_);
}

#endif
