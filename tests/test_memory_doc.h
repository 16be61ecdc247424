/* test_memory_doc.h — docs/memory.md's "Measured" table checked against what
 * the tests measure: each memory test that computes a world's block looks
 * its row up here, and the test fails when the document's figure (MiB, two
 * decimals, in this build's scalar mode's column) is not the measured one
 * rounded. So the document cannot drift from the code.
 */
#ifndef CRUMPLE_TEST_MEMORY_DOC_H
#define CRUMPLE_TEST_MEMORY_DOC_H

#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The MiB figure of the row of docs/memory.md whose first cell starts with
 * `row` (float column, or fixed in the fixed build); -1 when there is none. */
static inline double memory_doc_mib(const char *row) {
    FILE *f = fopen("docs/memory.md", "r");
    if (f == NULL) return -1;
    char line[1024];
    double mib = -1;
    size_t n = strlen(row);
    while (mib < 0 && fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, "| ", 2) != 0 || strncmp(line + 2, row, n) != 0) continue;
        /* | label | float | fixed | */
        char *cell = strchr(line + 1, '|');
        if (cell != NULL && CR_FIXED) cell = strchr(cell + 1, '|');
        if (cell != NULL) mib = strtod(cell + 1, NULL);
    }
    fclose(f);
    return mib;
}

/* ENSURE that docs/memory.md's row says `bytes` (to its two decimals). */
#define ENSURE_MEMORY_DOC(row, bytes)                                                                                    \
    do {                                                                                                                 \
        double doc_ = memory_doc_mib(row), got_ = (double)(bytes) / (1024.0 * 1024.0);                                   \
        ENSURE_MSG(fabs(doc_ - got_) <= 0.0051, "docs/memory.md says %.2f MiB (%s) for '%s'; the code measures %.3f MiB", \
                   doc_, CR_FIXED ? "fixed" : "float", row, got_);                                                        \
    } while (0)

#endif
