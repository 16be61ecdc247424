/* test_apng.c — the animated PNG writer (tools/apng.c), read back by a
 * decoder we did not write: tests/apng_decode.py checks every CRC, the chunk
 * order and sequence numbers, and inflates every frame with Python's zlib. */
#define _POSIX_C_SOURCE 200809L
#include "test.h"
#include "apng.h"
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define AW 37
#define AH 11
#define AF 4

static void frame_pixels(uint8_t *rgb, int f) {
    for (int y = 0; y < AH; ++y)
        for (int x = 0; x < AW; ++x) {
            uint8_t *p = rgb + 3 * (y * AW + x);
            p[0] = (uint8_t)(x * 7 + f * 40);
            p[1] = (uint8_t)(y * 23 ^ f * 91);
            p[2] = (uint8_t)((x == f * 5) ? 255 : (x + y) * 3);
        }
}

CR_TEST(apng_frames_read_back_exactly) {
    static uint8_t frames[AF][3 * AW * AH];
    cr_apng a;
    ENSURE(cr_apng_begin(&a, AW, AH, 24) == CR_PNG_OK);
    for (int f = 0; f < AF; ++f) {
        frame_pixels(frames[f], f);
        ENSURE(cr_apng_add_frame(&a, frames[f]) == CR_PNG_OK);
    }
    char png[64], raw[80];
    snprintf(png, sizeof png, "/tmp/crumple_apng_XXXXXX");
    int fd = mkstemp(png);
    ENSURE(fd >= 0);
    close(fd);
    snprintf(raw, sizeof raw, "%s.raw", png);
    ENSURE(cr_apng_write_file(&a, png) == CR_PNG_OK);
    /* the same frames give the same bytes */
    uint8_t *b1, *b2;
    size_t n1, n2;
    ENSURE(cr_apng_encode(&a, &b1, &n1) == CR_PNG_OK && cr_apng_encode(&a, &b2, &n2) == CR_PNG_OK);
    ENSURE(n1 == n2 && memcmp(b1, b2, n1) == 0);
    free(b1), free(b2);
    cr_apng_free(&a);

    char cmd[256];
    snprintf(cmd, sizeof cmd, "python3 tests/apng_decode.py %s %s", png, raw);
    FILE *p = popen(cmd, "r");
    ENSURE(p != NULL);
    char line[128] = "";
    if (fgets(line, sizeof line, p) == NULL) line[0] = 0;
    ENSURE_MSG(pclose(p) == 0, "tests/apng_decode.py refused our APNG");
    unsigned w, h, count, dn, dd;
    ENSURE(sscanf(line, "%u %u %u %u %u", &w, &h, &count, &dn, &dd) == 5);
    ENSURE(w == AW && h == AH && count == AF && dn == 1 && dd == 24);
    FILE *f = fopen(raw, "rb");
    ENSURE(f != NULL);
    static uint8_t back[AF][3 * AW * AH];
    size_t got = fread(back, 1, sizeof back, f);
    fclose(f);
    ENSURE(got == sizeof back && memcmp(back, frames, sizeof back) == 0);
    remove(png), remove(raw);
    /* bad arguments are refused, not written */
    ENSURE(cr_apng_begin(&a, 0, 10, 24) == CR_PNG_ERR_ARGUMENT);
    ENSURE(cr_apng_begin(&a, 10, 10, 0) == CR_PNG_ERR_ARGUMENT);
    ENSURE(cr_apng_begin(&a, 10, 10, 24) == CR_PNG_OK);
    uint8_t *none;
    size_t nn;
    ENSURE(cr_apng_encode(&a, &none, &nn) == CR_PNG_ERR_ARGUMENT);
    cr_apng_free(&a);
}

/* `crumple run SCENE --apng FILE`: frame 0 (as built) and every drawn frame,
 * at the asked size and rate, one file a browser plays. */
CR_TEST(apng_crumple_run_writes_the_animation) {
    char png[64], raw[80];
    snprintf(png, sizeof png, "/tmp/crumple_run_apng_XXXXXX");
    int fd = mkstemp(png);
    ENSURE(fd >= 0);
    close(fd);
    snprintf(raw, sizeof raw, "%s.raw", png);
    char *args[] = {"run", "data/scenes/dent_ball_block.scene", "--frames", "6", "--apng", png,
                    "--size", "64x48", "--fps", "12"};
    ENSURE(cr_cmd_run(10, args) == 0);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "python3 tests/apng_decode.py %s %s", png, raw);
    FILE *p = popen(cmd, "r");
    ENSURE(p != NULL);
    char line[128] = "";
    if (fgets(line, sizeof line, p) == NULL) line[0] = 0;
    ENSURE(pclose(p) == 0);
    unsigned w, h, count, dn, dd;
    ENSURE(sscanf(line, "%u %u %u %u %u", &w, &h, &count, &dn, &dd) == 5);
    ENSURE(w == 64 && h == 48 && count == 7 && dn == 1 && dd == 12);
    remove(png), remove(raw);
}
