/* test_tune.c — `crumple tune`: the dent tuning table (issue 18). One cell
 * per (distance, blur) run, rows of distances, one colour range for all: a
 * deeper dent of the same impact shows more of the hot end of the scale. */
#define _POSIX_C_SOURCE 200809L
#include "test.h"
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

CR_TEST(tune_table_rows_are_distances_on_one_colour_scale) {
    char png[64], raw[80];
    snprintf(png, sizeof png, "/tmp/crumple_tune_XXXXXX");
    int fd = mkstemp(png);
    ENSURE(fd >= 0);
    close(fd);
    snprintf(raw, sizeof raw, "%s.raw", png);
    char *args[] = {"tune", "data/scenes/dent_ball_block.scene", "-o", png, "--distance", "0.01,0.04",
                    "--blur", "0.01", "--frames", "20", "--size", "96x72"};
    ENSURE(cr_cmd_tune(12, args) == 0);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "python3 tests/png_decode.py %s %s", png, raw);
    FILE *p = popen(cmd, "r");
    ENSURE(p != NULL);
    char line[64] = "";
    if (fgets(line, sizeof line, p) == NULL) line[0] = 0;
    ENSURE(pclose(p) == 0);
    unsigned w, h, ch;
    ENSURE(sscanf(line, "%u %u %u", &w, &h, &ch) == 3);
    ENSURE(w == 96 + 8 && h == 2 * (72 + 4) + 4 && ch == 3); /* one column, two rows */
    FILE *f = fopen(raw, "rb");
    ENSURE(f != NULL);
    uint8_t *px = malloc((size_t)w * h * 3);
    ENSURE(px != NULL && fread(px, 1, (size_t)w * h * 3, f) == (size_t)w * h * 3);
    fclose(f);
    /* hot pixels (deep red) in each cell, above the legend strip at the bottom */
    unsigned hot[2] = {0, 0};
    for (int r = 0; r < 2; ++r)
        for (unsigned y = 4 + (unsigned)r * 76 + 10; y < 4 + (unsigned)r * 76 + 50; ++y)
            for (unsigned x = 4; x < 100; ++x) {
                const uint8_t *q = px + 3 * ((size_t)y * w + x);
                hot[r] += q[0] > 150 && q[1] < 90 && q[2] < 90;
            }
    cr_test_printf("  deep red pixels: 10 mm dent %u, 40 mm dent %u\n", hot[0], hot[1]);
    ENSURE(hot[1] > hot[0] && hot[1] > 10);
    free(px);
    remove(png), remove(raw);
    char *bad[] = {"tune", "data/scenes/dent_ball_block.scene", "-o", png, "--distance", "-1"};
    ENSURE(cr_cmd_tune(6, bad) == 2);
    char *missing[] = {"tune", "/nonexistent.scene", "-o", png};
    ENSURE(cr_cmd_tune(4, missing) == 1);
}
