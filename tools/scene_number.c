/* scene_number.c — the numbers of a scene file, read exactly.
 *
 * cr_scene_parse_number reads [+-]digits[.digits][e[+-]digits] and an
 * optional "/denominator" of the same form as an exact rational held in a
 * small big integer, rounds it once to the nearest double (ties to even), and
 * cr_scene_real_from_double applies the one conversion rule of scene.h. No
 * strtod: its rounding and locale are the C library's, not ours, and a scene
 * must give the same bits on every machine and in both scalar modes.
 */
#include "scene.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

/* Just enough of a big unsigned integer to divide two of them exactly:
 * 40 limbs of 32 bits hold every value the bounded grammar can produce
 * (at most 24 digits times 10^30, scaled by up to 2^420). */
enum { BIG_LIMBS = 40, MAX_DIGITS = 24, MAX_EXP10 = 30 };
typedef struct big {
    uint32_t w[BIG_LIMBS];
    int n; /* limbs in use; w[n-1] != 0 unless n == 0 */
} big;

static void big_set(big *b, uint32_t v) {
    memset(b, 0, sizeof *b);
    b->w[0] = v;
    b->n = v ? 1 : 0;
}

static void big_mul_add(big *b, uint32_t m, uint32_t a) {
    uint64_t carry = a;
    for (int i = 0; i < b->n; ++i) {
        uint64_t t = (uint64_t)b->w[i] * m + carry;
        b->w[i] = (uint32_t)t;
        carry = t >> 32;
    }
    if (carry && b->n < BIG_LIMBS) b->w[b->n++] = (uint32_t)carry;
}

static int big_bitlen(const big *b) {
    if (b->n == 0) return 0;
    int bits = (b->n - 1) * 32;
    uint32_t top = b->w[b->n - 1];
    while (top) {
        ++bits;
        top >>= 1;
    }
    return bits;
}

static void big_shl(big *b, int bits) {
    int limbs = bits / 32, r = bits % 32;
    if (b->n == 0) return;
    int n = b->n + limbs + 1;
    if (n > BIG_LIMBS) n = BIG_LIMBS;
    for (int i = n - 1; i >= 0; --i) {
        int src = i - limbs;
        uint32_t hi = (src >= 0 && src < b->n) ? b->w[src] : 0;
        uint32_t lo = (src - 1 >= 0 && src - 1 < b->n) ? b->w[src - 1] : 0;
        b->w[i] = r ? (hi << r) | (lo >> (32 - r)) : hi;
    }
    b->n = n;
    while (b->n > 0 && b->w[b->n - 1] == 0) --b->n;
}

static void big_shr1(big *b) {
    for (int i = 0; i < b->n; ++i) b->w[i] = (b->w[i] >> 1) | (i + 1 < b->n ? b->w[i + 1] << 31 : 0);
    while (b->n > 0 && b->w[b->n - 1] == 0) --b->n;
}

static int big_cmp(const big *a, const big *b) {
    if (a->n != b->n) return a->n < b->n ? -1 : 1;
    for (int i = a->n - 1; i >= 0; --i)
        if (a->w[i] != b->w[i]) return a->w[i] < b->w[i] ? -1 : 1;
    return 0;
}

/* a -= b, with a >= b */
static void big_sub(big *a, const big *b) {
    uint64_t borrow = 0;
    for (int i = 0; i < a->n; ++i) {
        uint64_t bi = (i < b->n ? b->w[i] : 0) + borrow;
        borrow = (uint64_t)a->w[i] < bi;
        a->w[i] = (uint32_t)((uint64_t)a->w[i] - bi);
    }
    while (a->n > 0 && a->w[a->n - 1] == 0) --a->n;
}

/* n/d (both > 0) rounded once to the nearest double, ties to even. The
 * quotient is scaled to 54 or 55 bits, divided bit by bit, and the bits
 * below the 53-bit mantissa plus the remainder decide the rounding. */
static double big_ratio_to_double(big n, big d) {
    int s = 54 - (big_bitlen(&n) - big_bitlen(&d));
    if (s > 0)
        big_shl(&n, s);
    else if (s < 0)
        big_shl(&d, -s);
    big dk = d;
    big_shl(&dk, 55);
    uint64_t q = 0;
    for (int i = 55; i >= 0; --i) {
        if (big_cmp(&n, &dk) >= 0) {
            big_sub(&n, &dk);
            q |= (uint64_t)1 << i;
        }
        big_shr1(&dk);
    }
    int extra = (q >> 54) ? 2 : 1;
    uint64_t mant = q >> extra, rest = q & (((uint64_t)1 << extra) - 1), half = (uint64_t)1 << (extra - 1);
    if (rest > half || (rest == half && (n.n != 0 || (mant & 1)))) ++mant;
    return ldexp((double)mant, extra - s);
}

/* One unsigned decimal: digits into a big integer, the point and exponent
 * into a power of ten. Returns the end of what was read, or NULL. */
static const char *read_decimal(const char *t, big *m, int *exp10, const char **why) {
    int digits = 0, any = 0, frac = 0;
    big_set(m, 0);
    for (; *t >= '0' && *t <= '9'; ++t, any = 1) {
        if (digits > 0 || *t != '0') ++digits;
        big_mul_add(m, 10, (uint32_t)(*t - '0'));
    }
    if (*t == '.') {
        ++t;
        for (; *t >= '0' && *t <= '9'; ++t, any = 1) {
            if (digits > 0 || *t != '0') ++digits;
            big_mul_add(m, 10, (uint32_t)(*t - '0'));
            ++frac;
        }
    }
    if (!any) {
        *why = "not a number";
        return NULL;
    }
    if (digits > MAX_DIGITS || frac > MAX_EXP10) {
        *why = "too many digits";
        return NULL;
    }
    int e = 0;
    if (*t == 'e' || *t == 'E') {
        ++t;
        int neg = 0, edigits = 0;
        if (*t == '+' || *t == '-') neg = *t++ == '-';
        for (; *t >= '0' && *t <= '9'; ++t, ++edigits)
            if (e < 1000) e = e * 10 + (*t - '0');
        if (edigits == 0) {
            *why = "exponent has no digits";
            return NULL;
        }
        if (neg) e = -e;
    }
    if (e > MAX_EXP10 || e < -MAX_EXP10) {
        *why = "exponent out of range";
        return NULL;
    }
    *exp10 = e - frac;
    return t;
}

/* nan, inf, infinity in any case, with a sign or not: a number a user meant
 * but no scene can hold, so it gets "bad number", not "needs 3 numbers" */
static bool nonfinite_word(const char *t) {
    if (*t == '+' || *t == '-') ++t;
    char w[9];
    size_t n = 0;
    for (; t[n] != '\0' && n < sizeof w - 1; ++n) w[n] = (char)(t[n] >= 'A' && t[n] <= 'Z' ? t[n] - 'A' + 'a' : t[n]);
    w[n] = '\0';
    return t[n] == '\0' && (strcmp(w, "nan") == 0 || strcmp(w, "inf") == 0 || strcmp(w, "infinity") == 0);
}

int cr_scene_parse_number(const char *t, double *out, const char **why) {
    if (nonfinite_word(t)) {
        *why = "NaN and infinity are not finite numbers";
        return -1;
    }
    int neg = 0;
    if (*t == '+' || *t == '-') neg = *t++ == '-';
    big n, d;
    int en, ed = 0;
    t = read_decimal(t, &n, &en, why);
    if (t == NULL) return -1;
    big_set(&d, 1);
    if (*t == '/') {
        t = read_decimal(t + 1, &d, &ed, why);
        if (t == NULL) return -1;
        if (d.n == 0) {
            *why = "division by zero";
            return -1;
        }
    }
    if (*t != '\0') {
        *why = "not a number";
        return -1;
    }
    if (n.n == 0) {
        *out = 0.0;
        return 0;
    }
    /* n·10^en / (d·10^ed) */
    int e = en - ed;
    for (; e > 0; --e) big_mul_add(&n, 10, 0);
    for (; e < 0; ++e) big_mul_add(&d, 10, 0);
    double v = big_ratio_to_double(n, d);
    /* Q32.32 holds about ±2.1e9; keep both modes to one range so a scene
     * that loads in one mode loads in the other. */
    if (v > 1e9 || v < 1e-9) {
        *why = v > 1e9 ? "out of range (|x| <= 1e9)" : "out of range (|x| >= 1e-9 or 0)";
        return -1;
    }
    *out = neg ? -v : v;
    return 0;
}

cr_real cr_scene_real_from_double(double d) {
#if CR_FIXED
    double x = d * 4294967296.0; /* exact: a power of two */
    /* Half away from zero, as CR_R rounds literals, so a scene number and
     * the same literal in C give the same bits. Below 2^52 adding 0.5 is
     * exact; above it x is already an integer. */
    double a = x < 0 ? -x : x;
    double r = a < 4503599627370496.0 ? floor(a + 0.5) : a;
    return (cr_real)(x < 0 ? -r : r);
#else
    return (cr_real)d;
#endif
}

bool cr_scene_looks_numeric(const char *t) {
    return (*t >= '0' && *t <= '9') || *t == '+' || *t == '-' || *t == '.' || nonfinite_word(t);
}
