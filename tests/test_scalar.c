/* test_scalar.c — accuracy and exactness of crumple's scalar layer.
 *
 *   - cr_mul / cr_div / cr_from_float (fixed mode): bit-exact against an
 *     independent reference, the portable paths against the __int128 ones,
 *     rounding direction, saturation, NaN.
 *   - sqrt, rsqrt, sin, cos, atan2, exp, log: dense deterministic sweeps against
 *     libm in double precision. Each sweep prints one line of the error table
 *     (docs/scalar.md quotes it) and fails if any point exceeds the documented
 *     bound  |err| <= abs_tol + rel_tol * |exact|.
 *   - edge cases the header promises (sqrt of a negative, log of 0, atan2(0,0)...)
 *   - a golden hash per mode of many outputs, so that a compiler, CPU or
 *     portable-path build that changes a single bit is caught.
 *
 * libm is fine here: tests are not the runtime. Sampling uses a local xorshift
 * generator, so every run checks the same points.
 */
#include "test.h"

#include "crumple/real.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#if CR_FIXED
cr_real cri_mul_portable_(cr_real a, cr_real b);
cr_real cri_div_portable_(cr_real a, cr_real b);
#endif

typedef struct rng {
    uint64_t s;
} rng;

static uint64_t rng_next(rng *r) {
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return r->s * UINT64_C(2685821657736338717);
}

/* Uniform in [0, 1). */
static double rng_unit(rng *r) { return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0); }

/* A cr_real close to d. In fixed mode the raw value is rounded to a multiple of
 * 2^11 when it is large, so that cr_to_double() of it is exact and libm sees
 * precisely the argument the runtime saw. */
static cr_real real_near(double d) {
#if CR_FIXED
    double raw = d * 4294967296.0;
    if (raw >= 9.2e18) return CR_REAL_MAX & ~(cr_real)2047;
    if (raw <= -9.2e18) return -(CR_REAL_MAX & ~(cr_real)2047);
    cr_real v = (cr_real)raw;
    if (v >= (INT64_C(1) << 53) || v <= -(INT64_C(1) << 53)) v = (v / 2048) * 2048;
    return v;
#else
    return (float)d;
#endif
}

/* ------------------------------------------------------------------------- */
/* Sweeps against libm.                                                      */

typedef enum fn_id { FN_SQRT, FN_RSQRT, FN_SIN, FN_COS, FN_ATAN2, FN_EXP, FN_LOG } fn_id;

typedef struct sweep {
    fn_id fn;
    const char *name, *domain;
    double lo, hi;    /* domain of x (for atan2: of both x and y) */
    int log_scale;    /* sample log-uniformly in [lo, hi] (lo > 0) */
    double abs_tol;   /* bound: |err| <= abs_tol + rel_tol * |exact| */
    double rel_tol;
    double rel_floor; /* max rel err is reported over |exact| >= rel_floor */
    int points;
} sweep;

typedef struct sweep_result {
    double max_abs, max_rel, worst_x, worst_y, worst_err;
    int bad;
} sweep_result;

static double eval_ref(fn_id fn, double x, double y) {
    switch (fn) {
    case FN_SQRT: return sqrt(x);
    case FN_RSQRT: return 1.0 / sqrt(x);
    case FN_SIN: return sin(x);
    case FN_COS: return cos(x);
    case FN_ATAN2: return atan2(y, x);
    case FN_EXP: return exp(x);
    case FN_LOG: return log(x);
    }
    return 0.0;
}

static cr_real eval_cr(fn_id fn, cr_real x, cr_real y) {
    switch (fn) {
    case FN_SQRT: return cr_sqrt(x);
    case FN_RSQRT: return cr_rsqrt(x);
    case FN_SIN: return cr_sin(x);
    case FN_COS: return cr_cos(x);
    case FN_ATAN2: return cr_atan2(y, x);
    case FN_EXP: return cr_exp(x);
    case FN_LOG: return cr_log(x);
    }
    return 0;
}

static double sample(const sweep *s, rng *r, int i) {
    double u = rng_unit(r);
    /* The first points walk a regular grid including both ends. */
    if (i < 1001) u = i / 1000.0;
    if (s->log_scale) return s->lo * pow(s->hi / s->lo, u);
    return s->lo + (s->hi - s->lo) * u;
}

static sweep_result run_sweep(const sweep *s) {
    sweep_result res = {0, 0, 0, 0, 0, 0};
    rng r = {UINT64_C(0x9e3779b97f4a7c15) ^ (uint64_t)s->fn ^ ((uint64_t)s->points << 20)};
    for (int i = 0; i < s->points; ++i) {
        cr_real x = real_near(sample(s, &r, i));
        cr_real y = s->fn == FN_ATAN2 ? real_near(s->lo + (s->hi - s->lo) * rng_unit(&r)) : 0;
        double xd = cr_to_double(x), yd = cr_to_double(y);
        double want = eval_ref(s->fn, xd, yd);
        double got = cr_to_double(eval_cr(s->fn, x, y));
        double err = fabs(got - want);
        if (!(err <= s->abs_tol + s->rel_tol * fabs(want))) {
            if (!res.bad || err > res.worst_err) {
                res.worst_x = xd;
                res.worst_y = yd;
                res.worst_err = err;
            }
            res.bad++;
        }
        if (err > res.max_abs) res.max_abs = err;
        if (fabs(want) >= s->rel_floor && err / fabs(want) > res.max_rel) res.max_rel = err / fabs(want);
    }
    cr_test_printf("  %-5s %-6s %-22s %8d  max abs %9.3g  max rel %9.3g  bound %.2g + %.2g|y|\n",
                   CR_FIXED ? "fixed" : "float", s->name, s->domain, s->points, res.max_abs, res.max_rel,
                   s->abs_tol, s->rel_tol);
    return res;
}

#define RUN_SWEEP(...)                                                                          \
    do {                                                                                        \
        sweep s_ = {__VA_ARGS__};                                                               \
        sweep_result r_ = run_sweep(&s_);                                                       \
        ENSURE_MSG(r_.bad == 0, "%s: %d points over the bound, worst at x=%.17g y=%.17g err=%.3g", \
                   s_.name, r_.bad, r_.worst_x, r_.worst_y, r_.worst_err);                      \
    } while (0)

/* Error bounds per mode. Float: a few ulp. Fixed: a few 2^-32 units (2.3e-10). */
#if CR_FIXED
#define TOL_SQRT 1.2e-10, 0.0
#define TOL_RSQRT 5e-10, 1e-15
#define TOL_SINCOS 2.5e-10, 0.0
#define TOL_ATAN2 2.5e-10, 0.0
#define TOL_EXP 1.2e-10, 1e-14
#define TOL_LOG 1.5e-10, 0.0
#define SINCOS_WIDE 2147483647.0
#define SINCOS_WIDE_NAME "[-2^31, 2^31)"
#define EXP_LO -23.0
#define EXP_HI 21.48
#define EXP_DOMAIN "[-23, 21.48]"
#define EXP_REL_FLOOR 1e-3 /* below that the 2^-32 quantum dominates */
#define POS_LO (1.0 / 4294967296.0)
#define POS_HI 2147483647.0
#define POS_DOMAIN "[2^-32, 2^31) log"
#else
#define TOL_SQRT 0.0, 6e-8
#define TOL_RSQRT 0.0, 2e-7
#define TOL_SINCOS 2e-7, 0.0
#define TOL_ATAN2 3e-7, 0.0
#define TOL_EXP 0.0, 1e-6
#define TOL_LOG 0.0, 1e-6
#define SINCOS_WIDE 1e30
#define SINCOS_WIDE_NAME "[1, 1e30] log"
#define EXP_LO -87.0
#define EXP_HI 88.7
#define EXP_DOMAIN "[-87, 88.7]"
#define EXP_REL_FLOOR 1e-30
#define POS_LO 1e-30
#define POS_HI 1e30
#define POS_DOMAIN "[1e-30, 1e30] log"
#endif

CR_TEST(scalar_sqrt_sweep) {
    cr_test_printf("  mode  fn     domain                   points  (err = |crumple - libm double|)\n");
    RUN_SWEEP(FN_SQRT, "sqrt", "[0, 4]", 0.0, 4.0, 0, TOL_SQRT, 1e-30, 200000);
    RUN_SWEEP(FN_SQRT, "sqrt", POS_DOMAIN, POS_LO, POS_HI, 1, TOL_SQRT, 1e-30, 200000);
}

CR_TEST(scalar_rsqrt_sweep) {
    RUN_SWEEP(FN_RSQRT, "rsqrt", "[1e-3, 4]", 1e-3, 4.0, 0, TOL_RSQRT, 1e-30, 200000);
    RUN_SWEEP(FN_RSQRT, "rsqrt", POS_DOMAIN, POS_LO, POS_HI, 1, TOL_RSQRT, 1e-30, 200000);
}

CR_TEST(scalar_sin_sweep) {
    RUN_SWEEP(FN_SIN, "sin", "[-pi, pi]", -3.1416, 3.1416, 0, TOL_SINCOS, 1e-3, 200000);
    RUN_SWEEP(FN_SIN, "sin", "[-100, 100]", -100.0, 100.0, 0, TOL_SINCOS, 1e-3, 200000);
    RUN_SWEEP(FN_SIN, "sin", "[-1e4, 1e4]", -1e4, 1e4, 0, TOL_SINCOS, 1e-3, 100000);
#if CR_FIXED
    RUN_SWEEP(FN_SIN, "sin", SINCOS_WIDE_NAME, -SINCOS_WIDE, SINCOS_WIDE, 0, TOL_SINCOS, 1e-3, 100000);
#else
    RUN_SWEEP(FN_SIN, "sin", SINCOS_WIDE_NAME, 1.0, SINCOS_WIDE, 1, TOL_SINCOS, 1e-3, 100000);
#endif
}

CR_TEST(scalar_cos_sweep) {
    RUN_SWEEP(FN_COS, "cos", "[-pi, pi]", -3.1416, 3.1416, 0, TOL_SINCOS, 1e-3, 200000);
    RUN_SWEEP(FN_COS, "cos", "[-100, 100]", -100.0, 100.0, 0, TOL_SINCOS, 1e-3, 200000);
    RUN_SWEEP(FN_COS, "cos", "[-1e4, 1e4]", -1e4, 1e4, 0, TOL_SINCOS, 1e-3, 100000);
#if CR_FIXED
    RUN_SWEEP(FN_COS, "cos", SINCOS_WIDE_NAME, -SINCOS_WIDE, SINCOS_WIDE, 0, TOL_SINCOS, 1e-3, 100000);
#else
    RUN_SWEEP(FN_COS, "cos", SINCOS_WIDE_NAME, 1.0, SINCOS_WIDE, 1, TOL_SINCOS, 1e-3, 100000);
#endif
}

CR_TEST(scalar_atan2_sweep) {
    RUN_SWEEP(FN_ATAN2, "atan2", "x,y in [-1, 1]", -1.0, 1.0, 0, TOL_ATAN2, 1e-3, 200000);
    RUN_SWEEP(FN_ATAN2, "atan2", "x,y in [-1e4, 1e4]", -1e4, 1e4, 0, TOL_ATAN2, 1e-3, 200000);
}

CR_TEST(scalar_exp_sweep) {
    RUN_SWEEP(FN_EXP, "exp", "[-1, 1]", -1.0, 1.0, 0, TOL_EXP, 1e-30, 200000);
    RUN_SWEEP(FN_EXP, "exp", EXP_DOMAIN, EXP_LO, EXP_HI, 0, TOL_EXP, EXP_REL_FLOOR, 200000);
}

CR_TEST(scalar_log_sweep) {
    RUN_SWEEP(FN_LOG, "log", "[0.5, 2]", 0.5, 2.0, 0, TOL_LOG, 1e-3, 200000);
    RUN_SWEEP(FN_LOG, "log", POS_DOMAIN, POS_LO, POS_HI, 1, TOL_LOG, 1e-3, 200000);
}

/* ------------------------------------------------------------------------- */
/* Edge cases promised by real.h.                                             */

CR_TEST(scalar_edge_cases) {
    const cr_real one = cr_from_int(1);
    ENSURE(cr_sqrt(-one) == 0);
    ENSURE(cr_sqrt(0) == 0);
    ENSURE(cr_sqrt(one) == one);
    ENSURE(cr_sqrt(cr_from_int(4)) == cr_from_int(2));
    ENSURE(cr_rsqrt(0) == CR_REAL_MAX);
    ENSURE(cr_rsqrt(-one) == CR_REAL_MAX);
    ENSURE(cr_rsqrt(one) == one);
    ENSURE(cr_rsqrt(cr_from_int(4)) == cr_half(one));
    ENSURE(cr_log(0) == -CR_REAL_MAX);
    ENSURE(cr_log(-one) == -CR_REAL_MAX);
    ENSURE(cr_log(one) == 0);
    ENSURE(cr_exp(0) == one);
    ENSURE(cr_sin(0) == 0);
    ENSURE(cr_cos(0) == one);
    ENSURE(cr_atan2(0, 0) == 0);
    ENSURE(cr_atan2(0, one) == 0);
    /* pi correctly rounded; note CR_PI (CR_R truncates) may be one unit lower in fixed mode. */
    ENSURE_NEAR(cr_to_double(cr_atan2(0, -one)), 3.14159265358979323846, CR_FIXED ? 1.2e-10 : 1.5e-7);
    ENSURE_NEAR(cr_to_double(cr_atan2(one, 0)), 1.5707963267948966, CR_FIXED ? 1.2e-10 : 5e-8);
    ENSURE(cr_atan2(-one, 0) == -cr_atan2(one, 0));
    ENSURE(cr_atan2(cr_from_int(-3), cr_from_int(-3)) > -CR_PI);
    ENSURE_NEAR(cr_to_double(cr_atan2(one, one)), 0.78539816339744831, CR_FIXED ? 2.5e-10 : 1e-7);
    ENSURE(cr_exp(cr_from_int(1000)) == CR_REAL_MAX);
    ENSURE(cr_exp(cr_from_int(-1000)) == 0);
    /* Odd and even symmetry hold exactly (the reduction works on |x|). */
    for (int i = 1; i < 2000; ++i) {
        cr_real x = real_near(i * 0.0731);
        ENSURE(cr_sin(-x) == -cr_sin(x));
        ENSURE(cr_cos(-x) == cr_cos(x));
    }
#if CR_FIXED
    /* Anything representable is a valid argument. */
    const cr_real extremes[] = {CR_REAL_MAX, -CR_REAL_MAX, INT64_MIN, 1, -1, INT64_C(1) << 62};
    for (size_t i = 0; i < sizeof extremes / sizeof extremes[0]; ++i) {
        cr_real x = extremes[i];
        double xd = (double)x / 4294967296.0; /* sin/cos of the double nearest x */
        if (x == CR_REAL_MAX || x == -CR_REAL_MAX) continue; /* not exactly a double */
        ENSURE_NEAR(cr_to_double(cr_sin(x)), sin(xd), 2.5e-10);
        ENSURE_NEAR(cr_to_double(cr_cos(x)), cos(xd), 2.5e-10);
    }
    ENSURE(cr_sin(CR_REAL_MAX) == -cr_sin(-CR_REAL_MAX));
    ENSURE(cr_sqrt(CR_REAL_MAX) == INT64_C(0xb504f333f9de)); /* sqrt(2^31) in Q32.32, rounded */
    ENSURE(cr_rsqrt(1) == INT64_C(1) << 48);                /* 1/sqrt(2^-32) = 2^16 */
    ENSURE(cr_exp(CR_R(21.4)) > 0 && cr_exp(CR_R(21.5)) == CR_REAL_MAX);
    ENSURE(cr_log(1) < cr_log(2) && cr_log(CR_REAL_MAX) > CR_R(21.48));
    ENSURE(cr_atan2(CR_REAL_MAX, INT64_MIN) > 0);
    ENSURE(cr_atan2(INT64_MIN, INT64_MIN) < 0);
    ENSURE(cr_atan2(1, CR_REAL_MAX) == 0); /* 2^-63 rad rounds to 0 */
#else
    ENSURE(cr_sin(NAN) != cr_sin(NAN));
    ENSURE(cr_log(INFINITY) == INFINITY);
    ENSURE(cr_exp(-INFINITY) == 0.0f);
    ENSURE(cr_exp(INFINITY) == CR_REAL_MAX);
    ENSURE(cr_rsqrt(INFINITY) == 0.0f);
    ENSURE_NEAR(cr_atan2(INFINITY, -INFINITY), 3.0 * 0.78539816339744831, 3e-7);
    ENSURE_NEAR(cr_atan2(1.0f, -INFINITY), 3.14159265358979, 3e-7);
    ENSURE_NEAR(cr_atan2(3e38f, 2.9e38f), atan2(3e38, 2.9e38), 3e-7);
    ENSURE_NEAR(cr_log(1e-40f), log(1e-40f), 1e-6 * 92.1);
    ENSURE(cr_exp(-103.0f) > 0.0f && cr_exp(-103.0f) < 1e-44f);
    ENSURE(cr_exp(88.72f) < INFINITY);
#endif
}

/* ------------------------------------------------------------------------- */
/* Fixed-point arithmetic exactness.                                          */

#if CR_FIXED && defined(__SIZEOF_INT128__)
__extension__ typedef __int128 t_i128;
/* floor((a*b + 2^31) / 2^32) taken mod 2^64, written independently of real.h. */
static int64_t ref_mul(int64_t a, int64_t b) {
    t_i128 p = (t_i128)a * b + ((t_i128)1 << 31);
    t_i128 q = p >= 0 ? p / ((t_i128)1 << 32) : -((-p + (((t_i128)1 << 32) - 1)) / ((t_i128)1 << 32));
    uint64_t u = (uint64_t)q;
    int64_t out;
    memcpy(&out, &u, sizeof out);
    return out;
}
static int64_t ref_div(int64_t a, int64_t b) {
    if (b == 0) return a > 0 ? INT64_MAX : (a < 0 ? -INT64_MAX : 0);
    t_i128 q = ((t_i128)a * ((t_i128)1 << 32)) / b; /* C division truncates toward zero */
    if (q > INT64_MAX) return INT64_MAX;
    if (q < -INT64_MAX) return -INT64_MAX;
    return (int64_t)q;
}
#endif

#if CR_FIXED
/* Random raw values over every magnitude, plus the awkward ones. */
static cr_real any_real(rng *r, int i) {
    static const int64_t special[] = {0, 1, -1, INT64_MAX, INT64_MIN, INT64_MIN + 1, INT64_C(1) << 31,
                                      -(INT64_C(1) << 31), INT64_C(1) << 32, INT64_C(3) << 31, 0x7fffffff};
    int ns = (int)(sizeof special / sizeof special[0]);
    if (i < ns * ns) return special[(i / ns) % ns];
    uint64_t u = rng_next(r) >> (rng_next(r) % 64);
    return (rng_next(r) & 1) ? -(int64_t)(u >> 1) : (int64_t)(u >> 1);
}
static cr_real any_real2(rng *r, int i) {
    static const int64_t special[] = {0, 1, -1, INT64_MAX, INT64_MIN, INT64_MIN + 1, INT64_C(1) << 31,
                                      -(INT64_C(1) << 31), INT64_C(1) << 32, INT64_C(3) << 31, 0x7fffffff};
    int ns = (int)(sizeof special / sizeof special[0]);
    if (i < ns * ns) return special[i % ns];
    return any_real(r, i);
}
#endif

CR_TEST(scalar_mul_exact) {
#if CR_FIXED
    ENSURE(cr_mul(CR_R(1.5), CR_R(2.0)) == CR_R(3.0));
    ENSURE(cr_mul(CR_R(-1.5), CR_R(2.0)) == CR_R(-3.0));
    ENSURE(cr_mul(1, INT64_C(1) << 31) == 1);  /* 0.5 ulp rounds up */
    ENSURE(cr_mul(-1, INT64_C(1) << 31) == 0); /* -0.5 ulp rounds up too (ties toward +inf) */
    ENSURE(cr_mul(3, INT64_C(1) << 31) == 2);  /* 1.5 ulp -> 2 */
    ENSURE(cr_mul(-3, INT64_C(1) << 31) == -1);
    rng r = {UINT64_C(12345)};
    for (int i = 0; i < 200000; ++i) {
        cr_real a = any_real(&r, i), b = any_real2(&r, i);
        ENSURE_MSG(cr_mul(a, b) == cri_mul_portable_(a, b), "mul(%lld, %lld): %lld vs portable %lld", (long long)a,
                   (long long)b, (long long)cr_mul(a, b), (long long)cri_mul_portable_(a, b));
#if defined(__SIZEOF_INT128__)
        ENSURE_MSG(cr_mul(a, b) == ref_mul(a, b), "mul(%lld, %lld)", (long long)a, (long long)b);
#endif
    }
#else
    ENSURE(cr_mul(1.5f, 2.0f) == 3.0f);
    ENSURE(cr_mul(-0.1f, 10.0f) == -0.1f * 10.0f);
#endif
}

CR_TEST(scalar_div_exact) {
#if CR_FIXED
    ENSURE(cr_div(CR_R(3.0), CR_R(2.0)) == CR_R(1.5));
    ENSURE(cr_div(CR_R(1.0), CR_R(3.0)) == INT64_C(0x55555555));  /* truncated, not rounded */
    ENSURE(cr_div(CR_R(-1.0), CR_R(3.0)) == -INT64_C(0x55555555)); /* toward zero */
    ENSURE(cr_div(CR_R(2.0), CR_R(3.0)) == INT64_C(0xaaaaaaaa));
    ENSURE(cr_div(-1, CR_R(3.0)) == 0);
    ENSURE(cr_div(CR_R(5.0), 0) == CR_REAL_MAX);
    ENSURE(cr_div(CR_R(-5.0), 0) == -CR_REAL_MAX);
    ENSURE(cr_div(0, 0) == 0);
    ENSURE(cr_div(CR_R(1073741824.0), CR_R(0.25)) == CR_REAL_MAX);
    ENSURE(cr_div(CR_R(-1073741824.0), CR_R(0.25)) == -CR_REAL_MAX);
    ENSURE(cr_div(INT64_MIN, -CR_R(1.0)) == CR_REAL_MAX);
    ENSURE(cr_div(INT64_MIN, CR_R(1.0)) == -CR_REAL_MAX); /* symmetric saturation */
    ENSURE(cr_div(CR_REAL_MAX, CR_REAL_MAX) == CR_R(1.0));
    ENSURE(cr_div(1, CR_REAL_MAX) == 0);
    rng r = {UINT64_C(777)};
    for (int i = 0; i < 100000; ++i) {
        cr_real a = any_real(&r, i), b = any_real2(&r, i);
        ENSURE_MSG(cr_div(a, b) == cri_div_portable_(a, b), "div(%lld, %lld): %lld vs portable %lld", (long long)a,
                   (long long)b, (long long)cr_div(a, b), (long long)cri_div_portable_(a, b));
#if defined(__SIZEOF_INT128__)
        ENSURE_MSG(cr_div(a, b) == ref_div(a, b), "div(%lld, %lld)", (long long)a, (long long)b);
#endif
    }
#else
    ENSURE(cr_div(3.0f, 2.0f) == 1.5f);
#endif
}

CR_TEST(scalar_from_float_exact) {
#if CR_FIXED
    ENSURE(cr_from_float(1.5f) == INT64_C(3) << 31);
    ENSURE(cr_from_float(-2.25f) == -(INT64_C(9) << 30));
    ENSURE(cr_from_float(1e-12f) == 0);            /* below 2^-32: toward zero */
    ENSURE(cr_from_float(1e-9f) == 4);             /* 4.29 units, truncated */
    ENSURE(cr_from_float(-1e-9f) == -4);           /* toward zero, not floor */
    ENSURE(cr_from_float(0x1p-32f) == 1);
    ENSURE(cr_from_float(0x1p-33f) == 0);
    ENSURE(cr_from_float(0x1p-149f) == 0);         /* subnormal */
    ENSURE(cr_from_float(-0.0f) == 0);
    ENSURE(cr_from_float(3e9f) == CR_REAL_MAX);
    ENSURE(cr_from_float(-3e9f) == -CR_REAL_MAX);
    ENSURE(cr_from_float(2147483648.0f) == CR_REAL_MAX); /* 2^31 itself is out of range */
    ENSURE(cr_from_float(-2147483648.0f) == -CR_REAL_MAX);
    ENSURE(cr_from_float(2147483520.0f) == INT64_C(2147483520) << 32); /* largest float below 2^31 */
    ENSURE(cr_from_float(INFINITY) == CR_REAL_MAX);
    ENSURE(cr_from_float(-INFINITY) == -CR_REAL_MAX);
    ENSURE(cr_from_float(NAN) == 0);
    ENSURE(cr_from_float(1e30f) == CR_REAL_MAX);
    /* Every float below 2^31 in magnitude: trunc(f * 2^32) is exact in double. */
    rng r = {UINT64_C(4242)};
    for (int i = 0; i < 200000; ++i) {
        uint32_t bits = (uint32_t)(rng_next(&r) >> 32);
        float f;
        memcpy(&f, &bits, sizeof f);
        if (f != f) continue;
        double d = (double)f;
        int64_t want;
        if (d >= 2147483648.0) want = CR_REAL_MAX;
        else if (d <= -2147483648.0) want = -CR_REAL_MAX;
        else want = (int64_t)(d * 4294967296.0); /* C truncates toward zero */
        ENSURE_MSG(cr_from_float(f) == want, "from_float(%a) = %lld, want %lld", (double)f,
                   (long long)cr_from_float(f), (long long)want);
    }
#else
    ENSURE(cr_from_float(1.5f) == 1.5f);
#endif
}

#if CR_FIXED
/* 128-bit helpers written for the test, independent of the runtime's. */
typedef struct t_u128 {
    uint64_t hi, lo;
} t_u128;
static t_u128 t_mul(uint64_t a, uint64_t b) {
    uint64_t a0 = (uint32_t)a, a1 = a >> 32, b0 = (uint32_t)b, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10;
    t_u128 r = {p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32), (mid << 32) | (uint32_t)p00};
    return r;
}
static t_u128 t_add(t_u128 a, uint64_t b) {
    t_u128 r = {a.hi + (a.lo + b < a.lo), a.lo + b};
    return r;
}
static int t_le(t_u128 a, t_u128 b) { return a.hi < b.hi || (a.hi == b.hi && a.lo <= b.lo); }
#endif

CR_TEST(scalar_sqrt_correctly_rounded) {
    rng r = {UINT64_C(31337)};
    for (int i = 0; i < 300000; ++i) {
#if CR_FIXED
        /* R = round(sqrt(N)), N = raw 2^32, iff R^2 - R < N <= R^2 + R. */
        uint64_t raw = (rng_next(&r) >> 1) >> (rng_next(&r) % 63);
        if (i < 64) raw = (UINT64_C(1) << (i % 63)) + (uint64_t)(i / 63) - 1u; /* powers of two and neighbours */
        if (raw == 0) continue;
        uint64_t R = (uint64_t)cr_sqrt((cr_real)raw);
        t_u128 N = {raw >> 32, raw << 32};
        t_u128 R2 = t_mul(R, R);
        t_u128 lo = R2.lo >= R ? (t_u128){R2.hi, R2.lo - R} : (t_u128){R2.hi - 1, R2.lo - R}; /* R^2 - R */
        ENSURE_MSG(!t_le(N, lo) && t_le(N, t_add(R2, R)), "sqrt(raw %llu) = %llu is not correctly rounded",
                   (unsigned long long)raw, (unsigned long long)R);
#else
        uint32_t bits = (uint32_t)(rng_next(&r) >> 33); /* positive floats, NaN/inf included */
        float f;
        memcpy(&f, &bits, sizeof f);
        if (f != f) continue;
        /* sqrt in double then float is correctly rounded (53 >= 2*24 + 2). */
        ENSURE(cr_sqrt(f) == (float)sqrt((double)f));
#endif
    }
}

/* ------------------------------------------------------------------------- */
/* Golden hash: the exact bits of many outputs. A different compiler, CPU,    */
/* optimisation level or the portable (no __int128) path must not change it. */

static uint64_t hash_real(uint64_t h, cr_real v) {
    unsigned char b[sizeof v];
    memcpy(b, &v, sizeof v);
    for (size_t i = 0; i < sizeof v; ++i) h = (h ^ b[i]) * UINT64_C(0x100000001b3);
    return h;
}

CR_TEST(scalar_golden_hash) {
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    rng r = {UINT64_C(99)};
    for (int i = 0; i < 20000; ++i) {
        double u = rng_unit(&r) * 2.0 - 1.0;
        cr_real a = real_near(u * 50.0), b = real_near((rng_unit(&r) * 2.0 - 1.0) * 50.0);
        cr_real p = real_near(fabs(u) * 1000.0 + 1e-3);
        h = hash_real(h, cr_sqrt(p));
        h = hash_real(h, cr_rsqrt(p));
        h = hash_real(h, cr_sin(a));
        h = hash_real(h, cr_cos(b));
        h = hash_real(h, cr_atan2(a, b));
        h = hash_real(h, cr_exp(real_near(u * 20.0)));
        h = hash_real(h, cr_log(p));
        h = hash_real(h, cr_sin(real_near(u * 1e6)));
        h = hash_real(h, cr_mul(a, b));
        h = hash_real(h, cr_div(a, b));
    }
#if CR_FIXED
    const uint64_t golden = UINT64_C(0x5a70c111406bd512);
#else
    const uint64_t golden = UINT64_C(0x6eba4d7931bed9a6);
#endif
    cr_test_printf("  scalar golden hash (%s): 0x%016llx\n", CR_MODE_NAME, (unsigned long long)h);
    ENSURE(h == golden);
}
