/* apng.c — animated PNG from the PNG writer's own zlib streams (apng.h). */
#include "apng.h"
#include "stb_ds.h"

#include <stdlib.h>
#include <string.h>

cr_png_status cr_apng_begin(cr_apng *a, uint32_t width, uint32_t height, uint32_t fps) {
    memset(a, 0, sizeof *a);
    if (width == 0 || height == 0 || width > 16384 || height > 16384 || fps == 0 || fps > 1000)
        return CR_PNG_ERR_ARGUMENT;
    a->width = width, a->height = height, a->fps = fps;
    return CR_PNG_OK;
}

static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }

/* One frame as a still PNG, then its IDAT payloads joined: that is the
 * frame's zlib stream, made by exactly the code that writes still pictures. */
cr_png_status cr_apng_add_frame(cr_apng *a, const uint8_t *rgb) {
    uint8_t *png = NULL;
    size_t n = 0;
    cr_png_status st = cr_png_encode(rgb, a->width, a->height, 3, CR_PNG_FIXED, &png, &n);
    if (st != CR_PNG_OK) return st;
    size_t total = 0;
    for (size_t pos = 8; pos + 12 <= n;) {
        uint32_t len = be32(png + pos);
        if (memcmp(png + pos + 4, "IDAT", 4) == 0) total += len;
        pos += 12u + len;
    }
    uint8_t *stream = malloc(total ? total : 1);
    if (stream == NULL) {
        free(png);
        return CR_PNG_ERR_NO_MEMORY;
    }
    size_t at = 0;
    for (size_t pos = 8; pos + 12 <= n;) {
        uint32_t len = be32(png + pos);
        if (memcmp(png + pos + 4, "IDAT", 4) == 0) memcpy(stream + at, png + pos + 8, len), at += len;
        pos += 12u + len;
    }
    free(png);
    arrput(a->streams, stream);
    arrput(a->stream_sizes, total);
    a->frame_count++;
    return CR_PNG_OK;
}

typedef struct out_buf {
    uint8_t *data; /* stb_ds */
} out_buf;

static void put32(out_buf *o, uint32_t v) {
    arrput(o->data, (uint8_t)(v >> 24));
    arrput(o->data, (uint8_t)(v >> 16));
    arrput(o->data, (uint8_t)(v >> 8));
    arrput(o->data, (uint8_t)v);
}

static void put16(out_buf *o, uint16_t v) {
    arrput(o->data, (uint8_t)(v >> 8));
    arrput(o->data, (uint8_t)v);
}

/* A chunk: length, type, the body the caller wrote after `start`, CRC. */
static size_t chunk_begin(out_buf *o, const char *type) {
    put32(o, 0);
    for (int i = 0; i < 4; ++i) arrput(o->data, (uint8_t)type[i]);
    return (size_t)arrlen(o->data);
}

static void chunk_end(out_buf *o, size_t body) {
    size_t len = (size_t)arrlen(o->data) - body;
    uint8_t *p = o->data + body - 8;
    p[0] = (uint8_t)(len >> 24), p[1] = (uint8_t)(len >> 16), p[2] = (uint8_t)(len >> 8), p[3] = (uint8_t)len;
    put32(o, cr_crc32(0, o->data + body - 4, len + 4));
}

static void put_bytes(out_buf *o, const uint8_t *d, size_t n) {
    uint8_t *dst = arraddnptr(o->data, n);
    memcpy(dst, d, n);
}

cr_png_status cr_apng_encode(const cr_apng *a, uint8_t **out, size_t *out_size) {
    *out = NULL, *out_size = 0;
    if (a->frame_count == 0) return CR_PNG_ERR_ARGUMENT;
    out_buf o = {NULL};
    static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    put_bytes(&o, signature, 8);
    size_t b = chunk_begin(&o, "IHDR");
    put32(&o, a->width), put32(&o, a->height);
    const uint8_t ihdr_rest[5] = {8, 2, 0, 0, 0}; /* 8-bit RGB, deflate, adaptive filters, no interlace */
    put_bytes(&o, ihdr_rest, 5);
    chunk_end(&o, b);
    b = chunk_begin(&o, "acTL");
    put32(&o, a->frame_count), put32(&o, 0); /* plays: 0 = forever */
    chunk_end(&o, b);
    uint32_t seq = 0; /* fcTL and fdAT share one sequence */
    for (uint32_t f = 0; f < a->frame_count; ++f) {
        b = chunk_begin(&o, "fcTL");
        put32(&o, seq++);
        put32(&o, a->width), put32(&o, a->height), put32(&o, 0), put32(&o, 0);
        put16(&o, 1), put16(&o, (uint16_t)a->fps); /* delay 1/fps s */
        arrput(o.data, 0);                         /* dispose: none (the next frame covers it all) */
        arrput(o.data, 0);                         /* blend: source */
        chunk_end(&o, b);
        /* the stream may go in pieces of at most 2^31 - 1 bytes; frames are far smaller */
        b = chunk_begin(&o, f == 0 ? "IDAT" : "fdAT");
        if (f > 0) put32(&o, seq++);
        put_bytes(&o, a->streams[f], a->stream_sizes[f]);
        chunk_end(&o, b);
    }
    b = chunk_begin(&o, "IEND");
    chunk_end(&o, b);
    size_t n = (size_t)arrlen(o.data);
    uint8_t *copy = malloc(n);
    if (copy == NULL) {
        arrfree(o.data);
        return CR_PNG_ERR_NO_MEMORY;
    }
    memcpy(copy, o.data, n);
    arrfree(o.data);
    *out = copy, *out_size = n;
    return CR_PNG_OK;
}

cr_png_status cr_apng_write_file(const cr_apng *a, const char *path) {
    uint8_t *data;
    size_t n;
    cr_png_status st = cr_apng_encode(a, &data, &n);
    if (st != CR_PNG_OK) return st;
    crp_status ws = crp_write_file_atomic(path, data, n);
    free(data);
    return ws == CRP_OK ? CR_PNG_OK : CR_PNG_ERR_WRITE;
}

void cr_apng_free(cr_apng *a) {
    for (ptrdiff_t i = 0; i < arrlen(a->streams); ++i) free(a->streams[i]);
    arrfree(a->streams);
    arrfree(a->stream_sizes);
    memset(a, 0, sizeof *a);
}
