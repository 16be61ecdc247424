/* test_main.c — runs the CR_TEST functions listed in the generated test_list.h.
 * Arguments are name filters (substring match); no argument runs everything.
 * Prints a line per failure, and always ends with "N passed, M failed".
 */
#include "test.h"

#include <stdarg.h>
#include <string.h>
#include <time.h>

#define CR_TEST_ENTRY(name) void cr_test_##name(cr_test_ctx *);
#include "test_list.h"
#undef CR_TEST_ENTRY

typedef struct test_entry {
    const char *name;
    void (*fn)(cr_test_ctx *);
} test_entry;

static const test_entry all_tests[] = {
#define CR_TEST_ENTRY(name) {#name, cr_test_##name},
#include "test_list.h"
#undef CR_TEST_ENTRY
};

void cr_test_printf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    fflush(stdout);
}

void cr_test_fail(cr_test_ctx *ctx, const char *file, int line, const char *fmt, ...) {
    va_list ap;
    ctx->failed = 1;
    printf("FAIL %s\n  %s:%d: ", ctx->name, file, line);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
}

static int selected(const char *name, int argc, char **argv) {
    if (argc <= 1) return 1;
    for (int i = 1; i < argc; ++i)
        if (strstr(name, argv[i]) != NULL) return 1;
    return 0;
}

int main(int argc, char **argv) {
    int passed = 0, failed = 0;
    for (size_t i = 0; i < sizeof all_tests / sizeof all_tests[0]; ++i) {
        if (!selected(all_tests[i].name, argc, argv)) continue;
        cr_test_ctx ctx = {all_tests[i].name, 0};
        clock_t t0 = clock();
        all_tests[i].fn(&ctx);
        double ms = 1000.0 * (double)(clock() - t0) / CLOCKS_PER_SEC;
        if (ctx.failed) {
            ++failed;
        } else {
            ++passed;
            printf("ok   %-56s %8.1f ms\n", all_tests[i].name, ms);
        }
        fflush(stdout);
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 && passed > 0 ? 0 : 1;
}
