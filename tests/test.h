/* test.h — crumple's tiny test runner.
 *
 *     CR_TEST(world_rejects_small_block) {
 *         ENSURE(cr_world_create(&def, block, 10, &w) == CR_ERR_BLOCK_TOO_SMALL);
 *         ENSURE_NEAR(cr_to_double(x), 1.0, 1e-6);
 *     }
 *
 * Tests are discovered by the Makefile, which greps CR_TEST(name) out of
 * the tests folder, so adding a test is adding a function. `crumple_tests [filter...]`
 * runs the tests whose names contain any filter; the last line is always
 * "N passed, M failed".
 */
#ifndef CRUMPLE_TEST_H
#define CRUMPLE_TEST_H

#include <stdio.h>
#include <math.h>

typedef struct cr_test_ctx {
    const char *name;
    int failed;
} cr_test_ctx;

#define CR_TEST(name) void cr_test_##name(cr_test_ctx *cr_test_ctx_)

/// printf for tables and measurements a test wants people to see.
void cr_test_printf(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
void cr_test_fail(cr_test_ctx *ctx, const char *file, int line, const char *fmt, ...);

#define ENSURE(cond)                                                                \
    do {                                                                            \
        if (!(cond)) {                                                              \
            cr_test_fail(cr_test_ctx_, __FILE__, __LINE__, "ENSURE(%s)", #cond);    \
            return;                                                                 \
        }                                                                           \
    } while (0)

#define ENSURE_MSG(cond, ...)                                      \
    do {                                                           \
        if (!(cond)) {                                             \
            cr_test_fail(cr_test_ctx_, __FILE__, __LINE__, __VA_ARGS__); \
            return;                                                \
        }                                                          \
    } while (0)

#define ENSURE_NEAR(a, b, tol)                                                                          \
    do {                                                                                                \
        double cr_a_ = (double)(a), cr_b_ = (double)(b), cr_t_ = (double)(tol);                         \
        if (!(fabs(cr_a_ - cr_b_) <= cr_t_)) {                                                          \
            cr_test_fail(cr_test_ctx_, __FILE__, __LINE__, "ENSURE_NEAR(%s, %s, %s): %.9g vs %.9g (diff %.3g)", \
                         #a, #b, #tol, cr_a_, cr_b_, fabs(cr_a_ - cr_b_));                              \
            return;                                                                                     \
        }                                                                                               \
    } while (0)

/// Path to the public test meshes (data/meshes/README.md); tests that need them fail loudly if missing.
#define CR_SHARED_MESHES "data/meshes/"

#endif
