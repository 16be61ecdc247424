/* test_png.c — the PNG writer, checked against decoders we did not write.
 *
 * Checksums against their published check values; zlib streams inflated by
 * Python's zlib; whole PNGs read back by tests/png_decode.py (Python zlib +
 * CRC checks + unfiltering) and by `pngcheck`. Both tools are required: a
 * machine without them fails these tests loudly rather than skipping them.
 */
#define _POSIX_C_SOURCE 200809L
#include "test.h"
#include "png.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A fresh temporary path; the file exists (empty) so no other process takes the name. */
static int temp_path(char *buf, size_t n, const char *tag) {
    snprintf(buf, n, "/tmp/crumple_%s_XXXXXX", tag);
    int fd = mkstemp(buf);
    if (fd < 0) return 0;
    close(fd);
    return 1;
}

static int write_all(const char *path, const void *data, size_t size) {
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    size_t w = size ? fwrite(data, 1, size, f) : 0;
    return fclose(f) == 0 && w == size;
}

static uint8_t *read_all(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    uint8_t *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n == cap) {
            cap = cap ? cap * 2 : 65536;
            uint8_t *p = realloc(buf, cap);
            if (!p) { free(buf); fclose(f); return NULL; }
            buf = p;
        }
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (r == 0) break;
    }
    fclose(f);
    *size = n;
    return buf;
}

/* Deterministic test bytes: smooth ramps, long runs and LCG noise, so that
 * literals, short and long matches, far distances and stored blocks all occur. */
static void fill_pattern(uint8_t *p, size_t n, uint32_t seed) {
    uint32_t x = seed;
    for (size_t i = 0; i < n; ++i) {
        size_t part = (i / 9000) % 4;
        x = x * 1664525u + 1013904223u;
        if (part == 0) p[i] = (uint8_t)(i / 7);
        else if (part == 1) p[i] = (uint8_t)(x >> 24);
        else if (part == 2) p[i] = 42;
        else p[i] = (uint8_t)("the quick brown fox "[i % 20] ^ (uint8_t)((i / 3000) & 1));
    }
}

CR_TEST(png_checksums_match_known_values) {
    const char *check = "123456789";
    ENSURE(cr_crc32(0, check, 9) == 0xCBF43926u);
    ENSURE(cr_adler32(1, check, 9) == 0x091E01DEu);
    ENSURE(cr_adler32(1, "Wikipedia", 9) == 0x11E60398u);
    /* chained calls equal one call */
    ENSURE(cr_crc32(cr_crc32(0, check, 4), check + 4, 5) == 0xCBF43926u);
    ENSURE(cr_adler32(cr_adler32(1, check, 4), check + 4, 5) == 0x091E01DEu);
    ENSURE(cr_crc32(0, "", 0) == 0 && cr_adler32(1, "", 0) == 1);
    /* the PNG IEND chunk CRC every PNG ends with */
    ENSURE(cr_crc32(0, "IEND", 4) == 0xAE426082u);
    /* Adler over more than 5552 bytes of 0xff exercises the modulo batching */
    static uint8_t ff[20000];
    memset(ff, 0xff, sizeof ff);
    uint32_t a = 1, b = 0;
    for (size_t i = 0; i < sizeof ff; ++i) {
        a = (a + 0xff) % 65521u;
        b = (b + a) % 65521u;
    }
    ENSURE(cr_adler32(1, ff, sizeof ff) == ((b << 16) | a));
}

CR_TEST(png_zlib_streams_inflate_with_python_zlib) {
    const size_t sizes[] = {0, 1, 2, 3, 259, 70000, 200000};
    char in_path[64], out_path[64];
    ENSURE(temp_path(in_path, sizeof in_path, "z") && temp_path(out_path, sizeof out_path, "zo"));
    for (int mode = 0; mode < 2; ++mode) {
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) {
            size_t n = sizes[k];
            uint8_t *src = malloc(n + 1);
            fill_pattern(src, n, (uint32_t)(k + 1));
            uint8_t *z = NULL;
            size_t zn = 0;
            ENSURE(cr_zlib_compress(src, n, (cr_png_compression)mode, &z, &zn) == CR_PNG_OK);
            /* same input, same bytes */
            uint8_t *z2 = NULL;
            size_t zn2 = 0;
            ENSURE(cr_zlib_compress(src, n, (cr_png_compression)mode, &z2, &zn2) == CR_PNG_OK);
            ENSURE(zn == zn2 && memcmp(z, z2, zn) == 0);
            free(z2);
            ENSURE(write_all(in_path, z, zn));
            char cmd[256];
            snprintf(cmd, sizeof cmd,
                     "python3 -c \"import sys,zlib; sys.stdout.buffer.write(zlib.decompress(open(sys.argv[1],'rb')"
                     ".read()))\" %s > %s",
                     in_path, out_path);
            ENSURE_MSG(system(cmd) == 0, "python3 could not inflate our zlib stream (mode %d, %zu bytes); "
                                         "is python3 installed?", mode, n);
            size_t back_n = 0;
            uint8_t *back = read_all(out_path, &back_n);
            ENSURE(back != NULL);
            ENSURE_MSG(back_n == n && memcmp(back, src, n) == 0, "round trip differs (mode %d, %zu bytes)", mode, n);
            if (mode == 1 && n == 200000) {
                /* a quarter of the pattern is noise: compression must still win overall,
                 * and stored fallback keeps the worst case near the input size */
                cr_test_printf("  zlib fixed: %zu -> %zu bytes\n", n, zn);
                ENSURE(zn < n * 3 / 4);
            }
            free(back);
            free(z);
            free(src);
        }
    }
    remove(in_path);
    remove(out_path);
}

CR_TEST(png_noise_never_grows_much) {
    size_t n = 100000;
    uint8_t *src = malloc(n);
    uint32_t x = 7;
    for (size_t i = 0; i < n; ++i) {
        x = x * 1664525u + 1013904223u;
        src[i] = (uint8_t)(x >> 24);
    }
    uint8_t *z = NULL;
    size_t zn = 0;
    ENSURE(cr_zlib_compress(src, n, CR_PNG_FIXED, &z, &zn) == CR_PNG_OK);
    /* stored blocks cost 5 bytes per 65535 plus the 6-byte zlib frame */
    ENSURE(zn <= n + 5 * 2 + 6 + 1);
    free(z);
    free(src);
}

/* A test image with flat areas, gradients and a few hard edges, like a render. */
static uint8_t *test_image(uint32_t w, uint32_t h, uint32_t ch) {
    uint8_t *p = malloc((size_t)w * h * ch);
    for (uint32_t y = 0; y < h; ++y)
        for (uint32_t x = 0; x < w; ++x)
            for (uint32_t c = 0; c < ch; ++c) {
                int inside = (x - w / 2) * (x - w / 2) + (y - h / 2) * (y - h / 2) < w * h / 9;
                p[((size_t)y * w + x) * ch + c] =
                    (uint8_t)(inside ? (x * 3 + y * 2 + c * 40) : (c == 3 ? 255 : 30 + c * 10));
            }
    return p;
}

CR_TEST(png_decodes_with_independent_readers) {
    char png_path[64], raw_path[64];
    ENSURE(temp_path(png_path, sizeof png_path, "png") && temp_path(raw_path, sizeof raw_path, "raw"));
    const uint32_t channels[] = {1, 3, 4};
    for (int mode = 0; mode < 2; ++mode) {
        for (int k = 0; k < 3; ++k) {
            uint32_t w = 61, h = 47, ch = channels[k];
            uint8_t *img = test_image(w, h, ch);
            ENSURE(cr_png_write_file(png_path, img, w, h, ch, (cr_png_compression)mode) == CR_PNG_OK);
            char cmd[256];
            snprintf(cmd, sizeof cmd, "pngcheck -q %s", png_path);
            ENSURE_MSG(system(cmd) == 0, "pngcheck rejected our PNG (mode %d, %u channels); "
                                         "is pngcheck installed (Debian package pngcheck)?", mode, ch);
            snprintf(cmd, sizeof cmd, "python3 tests/png_decode.py %s %s > /dev/null", png_path, raw_path);
            ENSURE_MSG(system(cmd) == 0, "tests/png_decode.py could not read our PNG (mode %d, %u channels)", mode, ch);
            size_t n = 0;
            uint8_t *back = read_all(raw_path, &n);
            ENSURE(back != NULL);
            ENSURE_MSG(n == (size_t)w * h * ch && memcmp(back, img, n) == 0,
                       "decoded pixels differ (mode %d, %u channels)", mode, ch);
            free(back);
            free(img);
        }
    }
    remove(png_path);
    remove(raw_path);
}

CR_TEST(png_same_pixels_same_bytes_and_compressed_is_smaller) {
    uint32_t w = 200, h = 150;
    uint8_t *img = test_image(w, h, 3);
    uint8_t *a = NULL, *b = NULL, *s = NULL;
    size_t an = 0, bn = 0, sn = 0;
    ENSURE(cr_png_encode(img, w, h, 3, CR_PNG_FIXED, &a, &an) == CR_PNG_OK);
    ENSURE(cr_png_encode(img, w, h, 3, CR_PNG_FIXED, &b, &bn) == CR_PNG_OK);
    ENSURE(cr_png_encode(img, w, h, 3, CR_PNG_STORED, &s, &sn) == CR_PNG_OK);
    ENSURE(an == bn && memcmp(a, b, an) == 0);
    cr_test_printf("  %ux%u RGB: stored %zu B, fixed Huffman %zu B\n", w, h, sn, an);
    ENSURE(sn > (size_t)w * h * 3);
    ENSURE(an < sn / 4);
    /* one changed pixel changes the file */
    img[(75 * w + 100) * 3] ^= 0x55;
    free(b);
    ENSURE(cr_png_encode(img, w, h, 3, CR_PNG_FIXED, &b, &bn) == CR_PNG_OK);
    ENSURE(!(an == bn && memcmp(a, b, an) == 0));
    free(a);
    free(b);
    free(s);
    free(img);
}

typedef struct sink {
    uint8_t buf[64];
    size_t size;
    int calls;
} sink;

static int refuse_write(void *user, const void *data, size_t size) {
    sink *s = (sink *)user;
    (void)data;
    s->calls++;
    s->size += size;
    return 1;
}

CR_TEST(png_rejects_bad_arguments) {
    uint8_t px[12] = {0};
    uint8_t *out = NULL;
    size_t n = 0;
    ENSURE(cr_png_encode(NULL, 2, 2, 3, CR_PNG_FIXED, &out, &n) == CR_PNG_ERR_ARGUMENT);
    ENSURE(cr_png_encode(px, 0, 2, 3, CR_PNG_FIXED, &out, &n) == CR_PNG_ERR_ARGUMENT);
    ENSURE(cr_png_encode(px, 2, 0, 3, CR_PNG_FIXED, &out, &n) == CR_PNG_ERR_ARGUMENT);
    ENSURE(cr_png_encode(px, 2, 2, 2, CR_PNG_FIXED, &out, &n) == CR_PNG_ERR_ARGUMENT);
    ENSURE(cr_png_encode(px, 100000, 1, 3, CR_PNG_FIXED, &out, &n) == CR_PNG_ERR_ARGUMENT);
    ENSURE(cr_png_encode(px, 2, 2, 3, (cr_png_compression)7, &out, &n) == CR_PNG_ERR_ARGUMENT);
    ENSURE(out == NULL && n == 0);
    sink s = {{0}, 0, 0};
    ENSURE(cr_png_write(refuse_write, &s, px, 2, 2, 3, CR_PNG_FIXED) == CR_PNG_ERR_WRITE);
    ENSURE(s.calls == 1 && s.size > 8);
    ENSURE(cr_png_write_file("/nonexistent-dir/x.png", px, 2, 2, 3, CR_PNG_FIXED) == CR_PNG_ERR_WRITE);
    ENSURE(strlen(cr_png_status_message(CR_PNG_ERR_WRITE)) > 0);
}
