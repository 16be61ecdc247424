/* crumple/real.h — the one scalar type of the runtime.
 *
 * Everything the runtime computes is a `cr_real`. By default it is an IEEE
 * float; built with -DCR_FIXED=1 (make FIXED=1) it is a signed 64-bit Q32.32
 * fixed-point number: range about ±2.1e9, resolution 2^-32 ≈ 2.3e-10
 * (docs/scalar.md says why this format and what the error bounds are).
 *
 * Code that must work in both modes never uses * or / on cr_real directly:
 * it calls cr_mul / cr_div, writes literals with CR_R(1.5), and converts with
 * cr_from_int / cr_from_float. + - < > == and unary - are fine in both modes.
 *
 * The transcendental functions are crumple's own (runtime/src/scalar.c) and
 * never libm's, so a given build mode gives bit-identical results on every
 * compiler and CPU. sqrt in float mode is the IEEE operation, which is
 * correctly rounded everywhere and so deterministic too.
 */
#ifndef CRUMPLE_REAL_H
#define CRUMPLE_REAL_H

#include <stdint.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef CR_FIXED
#define CR_FIXED 0
#endif

/* Compiler flags for the game's own code. The library is built with
 * -ffp-contract=off and without fast-math; the inline functions of these
 * headers (cr_mul, the cr_v3_* and cr_quat_* helpers) compile into the game's
 * objects, so a game whose inputs to the world (poses, impulses, targets) must
 * be bit-identical on every compiler and CPU compiles with the same flags:
 *     -DCR_FIXED=0|1 -ffp-contract=off      and never -ffast-math / -Ofast
 * `pkg-config --cflags crumple` (or crumple-fixed) gives exactly these. What
 * the preprocessor can see is checked here: */
#if defined(__FAST_MATH__)
#error "crumple: -ffast-math (or -Ofast) changes float results between builds; crumple's determinism needs it off"
#endif
#if CR_FIXED != 0 && CR_FIXED != 1
#error "crumple: CR_FIXED must be 0 (float) or 1 (Q32.32 fixed point)"
#endif

/* The scalar mode is part of every link name. Each public header renames
 * each function it declares, `#define cr_world_step CR_LINK_NAME(cr_world_step)`,
 * so the library and the game's objects refer to cr_world_step_float32 or
 * cr_world_step_fixed_q32. A game compiled with one CR_FIXED and linked with
 * the other mode's library (libcrumple.a is float, libcrumple-fixed.a is
 * fixed), or two of its files compiled in different modes, fail at link time
 * with an undefined reference that names the mode expected, e.g.
 *     undefined reference to `cr_body_create_fixed_q32'
 * instead of running with every cr_real misread. Both modes carry a suffix,
 * so the mismatch fails whichever way round it is (docs/scalar.md).
 * tests/check_promises.sh fails if the library defines a public function
 * without its mode's suffix. The static inline helpers (cr_mul, cr_v3_*) are
 * compiled into the caller and keep their names. */
#if CR_FIXED
#define CR_LINK_NAME(name) name##_fixed_q32
#else
#define CR_LINK_NAME(name) name##_float32
#endif
#define cr_div CR_LINK_NAME(cr_div)
#define cr_from_float CR_LINK_NAME(cr_from_float)
#define cr_mul_soft_ CR_LINK_NAME(cr_mul_soft_)
#define cr_sqrt CR_LINK_NAME(cr_sqrt)
#define cr_rsqrt CR_LINK_NAME(cr_rsqrt)
#define cr_sin CR_LINK_NAME(cr_sin)
#define cr_cos CR_LINK_NAME(cr_cos)
#define cr_atan2 CR_LINK_NAME(cr_atan2)
#define cr_exp CR_LINK_NAME(cr_exp)
#define cr_log CR_LINK_NAME(cr_log)

#if CR_FIXED

/// Q32.32 fixed point: value = raw / 2^32.
typedef int64_t cr_real;
#define CR_FRAC_BITS 32
/// A literal constant, rounded to the nearest 2^-32; only for compile-time
/// constants (the compiler does the conversion, so it costs nothing).
#define CR_R(x) ((cr_real)((x) * 4294967296.0 + ((x) >= 0 ? 0.5 : -0.5)))
#define CR_REAL_MAX INT64_MAX
#define CR_REAL_EPS ((cr_real)1)
#define CR_MODE_NAME "fixed-q32.32"

/* -DCR_NO_INT128 forces the portable path, so a 64-bit host can test it. */
#if defined(__SIZEOF_INT128__) && !defined(CR_NO_INT128)
__extension__ typedef __int128 cr_i128_;
/// a*b, rounded to nearest (ties up).
static inline cr_real cr_mul(cr_real a, cr_real b) {
    return (cr_real)(((cr_i128_)a * b + ((cr_i128_)1 << 31)) >> 32);
}
#else
cr_real cr_mul_soft_(cr_real a, cr_real b);
/// a*b, rounded to nearest (ties up); same bits as the 128-bit path.
static inline cr_real cr_mul(cr_real a, cr_real b) { return cr_mul_soft_(a, b); }
#endif
/// a/b truncated toward zero; b == 0 saturates to ±CR_REAL_MAX (0/0 gives 0).
cr_real cr_div(cr_real a, cr_real b);
static inline cr_real cr_from_int(int32_t i) { return (cr_real)((uint64_t)(int64_t)i << 32); }
/// Integer part, rounded toward minus infinity.
static inline int32_t cr_floor_int(cr_real a) { return (int32_t)(a >> 32); }
/// Exact, integer-only conversion of an IEEE float (NaN → 0, out of range saturates).
cr_real cr_from_float(float f);
/// For printing and tools only: never used inside a simulation step.
static inline double cr_to_double(cr_real a) { return (double)a * (1.0 / 4294967296.0); }
static inline cr_real cr_half(cr_real a) { return a >> 1; }

#else /* float */

typedef float cr_real;
#define CR_R(x) ((cr_real)(x))
#define CR_REAL_MAX 3.402823466e+38f
#define CR_REAL_EPS 1.1920929e-7f
#define CR_MODE_NAME "float32"

static inline cr_real cr_mul(cr_real a, cr_real b) { return a * b; }
static inline cr_real cr_div(cr_real a, cr_real b) { return a / b; }
static inline cr_real cr_from_int(int32_t i) { return (cr_real)i; }
static inline int32_t cr_floor_int(cr_real a) { int32_t i = (int32_t)a; return (cr_real)i > a ? i - 1 : i; }
static inline cr_real cr_from_float(float f) { return f; }
static inline double cr_to_double(cr_real a) { return (double)a; }
static inline cr_real cr_half(cr_real a) { return a * 0.5f; }

#endif

static inline cr_real cr_abs(cr_real a) { return a < 0 ? -a : a; }
static inline cr_real cr_min(cr_real a, cr_real b) { return a < b ? a : b; }
static inline cr_real cr_max(cr_real a, cr_real b) { return a > b ? a : b; }
static inline cr_real cr_clamp(cr_real a, cr_real lo, cr_real hi) { return a < lo ? lo : (a > hi ? hi : a); }
static inline cr_real cr_sq(cr_real a) { return cr_mul(a, a); }

/* crumple's own transcendental functions (runtime/src/scalar.c).
 * Domains and error bounds are in docs/scalar.md and checked by tests. */

#if !CR_FIXED && defined(__GNUC__) && defined(__NO_MATH_ERRNO__)
/* Float square roots inline (one sqrtss, correctly rounded by IEEE 754, so
 * the same bits everywhere): out of line they were a call per vector length in
 * the solver's inner loops. C99 inline definitions: base/scalar.c holds the
 * external ones, so code built without -fno-math-errno (where the builtin
 * could call libm to set errno) gets the plain declarations below and links
 * to those. */
/// Square root; negative input gives 0.
inline cr_real cr_sqrt(cr_real x) { return x < 0.0f ? 0.0f : __builtin_sqrtf(x); }
/// 1/sqrt(x); x <= 0 gives CR_REAL_MAX.
inline cr_real cr_rsqrt(cr_real x) { return x <= 0.0f ? CR_REAL_MAX : 1.0f / __builtin_sqrtf(x); }
#else
/// Square root; negative input gives 0.
cr_real cr_sqrt(cr_real x);
/// 1/sqrt(x); x <= 0 gives CR_REAL_MAX.
cr_real cr_rsqrt(cr_real x);
#endif
/// Sine of x radians, any x in range.
cr_real cr_sin(cr_real x);
/// Cosine of x radians, any x in range.
cr_real cr_cos(cr_real x);
/// Angle of (x, y) in (-pi, pi]; atan2(0, 0) = 0.
cr_real cr_atan2(cr_real y, cr_real x);
/// e^x; saturates for large x, 0 for very negative x.
cr_real cr_exp(cr_real x);
/// Natural logarithm; x <= 0 gives -CR_REAL_MAX.
cr_real cr_log(cr_real x);

#define CR_PI CR_R(3.14159265358979323846)

#ifdef __cplusplus
}
#endif

#endif
