/* png.c — PNG writer: row filters, a deflate encoder (stored + fixed Huffman),
 * zlib framing, CRC-32 and Adler-32. See png.h for the contract.
 *
 * The deflate encoder is deliberately small: one greedy LZ77 pass over a
 * 32 KiB window found through a hash chain of bounded length, coded with the
 * fixed Huffman code of RFC 1951 section 3.2.6. Rendered pictures are mostly
 * flat background and smooth shading, which LZ77 on filtered rows already
 * shrinks several times; a dynamic Huffman code would buy little more.
 * Everything that decides a byte is integer arithmetic in a fixed order.
 */
#include "png.h"

#include <stdlib.h>
#include <string.h>

const char *cr_png_status_message(cr_png_status s) {
    switch (s) {
    case CR_PNG_OK: return "ok";
    case CR_PNG_ERR_ARGUMENT: return "bad image arguments (null pixels, size 0 or too large, channels not 1/3/4)";
    case CR_PNG_ERR_NO_MEMORY: return "out of memory";
    case CR_PNG_ERR_WRITE: return "write failed";
    }
    return "unknown PNG status";
}

/* ---- checksums ---------------------------------------------------------- */

/* CRC-32 of each nibble value, reflected polynomial 0xEDB88320: two lookups
 * per byte keep the table to 16 constants. */
static const uint32_t crc_nibble[16] = {
    0x00000000u, 0x1db71064u, 0x3b6e20c8u, 0x26d930acu, 0x76dc4190u, 0x6b6b51f4u, 0x4db26158u, 0x5005713cu,
    0xedb88320u, 0xf00f9344u, 0xd6d6a3e8u, 0xcb61b38cu, 0x9b64c2b0u, 0x86d3d2d4u, 0xa00ae278u, 0xbdbdf21cu,
};

uint32_t cr_crc32(uint32_t crc, const void *data, size_t size) {
    const uint8_t *p = (const uint8_t *)data;
    uint32_t c = ~crc;
    for (size_t i = 0; i < size; ++i) {
        c ^= p[i];
        c = (c >> 4) ^ crc_nibble[c & 15u];
        c = (c >> 4) ^ crc_nibble[c & 15u];
    }
    return ~c;
}

uint32_t cr_adler32(uint32_t adler, const void *data, size_t size) {
    const uint8_t *p = (const uint8_t *)data;
    uint32_t a = adler & 0xffffu, b = adler >> 16;
    while (size > 0) {
        /* 5552 is the longest run before b can overflow 32 bits (RFC 1950 / zlib's NMAX). */
        size_t n = size < 5552 ? size : 5552;
        size -= n;
        while (n--) {
            a += *p++;
            b += a;
        }
        a %= 65521u;
        b %= 65521u;
    }
    return (b << 16) | a;
}

/* ---- growable byte buffer and bit writer -------------------------------- */

typedef struct bytes {
    uint8_t *data;
    size_t size, cap;
    int failed; /* sticky: an allocation failed */
} bytes;

static void bytes_reserve(bytes *b, size_t extra) {
    if (b->failed) return;
    if (b->size + extra <= b->cap) return;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->size + extra) cap *= 2;
    uint8_t *p = (uint8_t *)realloc(b->data, cap);
    if (p == NULL) {
        b->failed = 1;
        return;
    }
    b->data = p;
    b->cap = cap;
}

static void bytes_put(bytes *b, const void *data, size_t n) {
    bytes_reserve(b, n);
    if (b->failed) return;
    memcpy(b->data + b->size, data, n);
    b->size += n;
}

static void bytes_u8(bytes *b, uint8_t v) { bytes_put(b, &v, 1); }

static void bytes_be32(bytes *b, uint32_t v) {
    uint8_t q[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    bytes_put(b, q, 4);
}

/* Deflate packs bits least-significant first. */
typedef struct bitwriter {
    bytes *out;
    uint32_t acc;
    int nbits;
    uint64_t total_bits; /* bits written so far, for the stored-vs-fixed choice */
} bitwriter;

static void bits_put(bitwriter *w, uint32_t value, int n) {
    for (int i = 0; i < n; ++i) {
        w->acc |= ((value >> i) & 1u) << w->nbits;
        if (++w->nbits == 8) {
            bytes_u8(w->out, (uint8_t)w->acc);
            w->acc = 0;
            w->nbits = 0;
        }
    }
    w->total_bits += (uint64_t)n;
}

/* Huffman codes are defined most-significant bit first (RFC 1951 3.1.1). */
static void bits_put_code(bitwriter *w, uint32_t code, int n) {
    for (int i = n - 1; i >= 0; --i) bits_put(w, (code >> i) & 1u, 1);
}

static void bits_align(bitwriter *w) {
    if (w->nbits > 0) bits_put(w, 0, 8 - w->nbits);
}

/* ---- deflate ------------------------------------------------------------ */

#define WINDOW_SIZE 32768
#define HASH_BITS 15
#define MIN_MATCH 3
#define MAX_MATCH 258
#define MAX_CHAIN 48         /* candidates tried per position: bounds the time, fixes the result */
#define SEGMENT_BYTES 65535  /* largest stored block; also the unit of the stored-vs-fixed choice */

static const uint16_t len_base[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                      31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint8_t len_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                      2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const uint16_t dist_base[30] = {1,   2,   3,   4,   5,   7,    9,    13,   17,   25,   33,   49,   65,    97,    129,
                                       193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
static const uint8_t dist_extra[30] = {0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6,
                                       6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

static int len_code(uint32_t len) {
    int c = 28;
    while (len_base[c] > len) --c;
    return c;
}

static int dist_code(uint32_t dist) {
    int c = 29;
    while (dist_base[c] > dist) --c;
    return c;
}

/* Fixed literal/length code (RFC 1951 3.2.6): returns bit count, sets *code. */
static int fixed_litlen(uint32_t sym, uint32_t *code) {
    if (sym < 144) { *code = 0x30u + sym; return 8; }
    if (sym < 256) { *code = 0x190u + (sym - 144); return 9; }
    if (sym < 280) { *code = sym - 256; return 7; }
    *code = 0xc0u + (sym - 280);
    return 8;
}

/* A symbol of a segment: a literal byte, or a match (bit 31 set, length in
 * bits 16..24, distance in bits 0..15; distance 32768 is stored as 0). */
#define SYM_MATCH 0x80000000u

static uint32_t sym_bits(uint32_t s) {
    uint32_t code;
    if (!(s & SYM_MATCH)) return (uint32_t)fixed_litlen(s, &code);
    uint32_t len = (s >> 16) & 0x1ffu, dist = s & 0xffffu;
    if (dist == 0) dist = WINDOW_SIZE;
    int lc = len_code(len), dc = dist_code(dist);
    return (uint32_t)fixed_litlen(257u + (uint32_t)lc, &code) + len_extra[lc] + 5u + dist_extra[dc];
}

static void sym_emit(bitwriter *w, uint32_t s) {
    uint32_t code;
    int n;
    if (!(s & SYM_MATCH)) {
        n = fixed_litlen(s, &code);
        bits_put_code(w, code, n);
        return;
    }
    uint32_t len = (s >> 16) & 0x1ffu, dist = s & 0xffffu;
    if (dist == 0) dist = WINDOW_SIZE;
    int lc = len_code(len), dc = dist_code(dist);
    n = fixed_litlen(257u + (uint32_t)lc, &code);
    bits_put_code(w, code, n);
    bits_put(w, len - len_base[lc], len_extra[lc]);
    bits_put_code(w, (uint32_t)dc, 5);
    bits_put(w, dist - dist_base[dc], dist_extra[dc]);
}

static uint32_t hash3(const uint8_t *p) {
    uint32_t v = (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16);
    return (v * 2654435761u) >> (32 - HASH_BITS);
}

typedef struct lz_state {
    const uint8_t *data;
    size_t size;
    int32_t *head; /* [1 << HASH_BITS]: latest position with this hash, -1 if none */
    int32_t *prev; /* [WINDOW_SIZE]: previous position with the same hash */
} lz_state;

static void lz_insert(lz_state *lz, size_t i) {
    if (i + MIN_MATCH > lz->size) return;
    uint32_t h = hash3(lz->data + i);
    lz->prev[i & (WINDOW_SIZE - 1)] = lz->head[h];
    lz->head[h] = (int32_t)i;
}

/* Longest match for position i that ends before `limit`; ties keep the
 * nearest candidate (found first). Returns the length, 0 if under MIN_MATCH. */
static uint32_t lz_find(const lz_state *lz, size_t i, size_t limit, uint32_t *dist_out) {
    if (i + MIN_MATCH > limit) return 0;
    size_t max_len = limit - i < MAX_MATCH ? limit - i : MAX_MATCH;
    const uint8_t *p = lz->data + i;
    int32_t cand = lz->head[hash3(p)];
    uint32_t best = 0, best_dist = 0;
    for (int chain = 0; cand >= 0 && chain < MAX_CHAIN; ++chain) {
        size_t d = i - (size_t)cand;
        if (d > WINDOW_SIZE) break;
        const uint8_t *q = lz->data + cand;
        if (q[best] == p[best]) {
            size_t n = 0;
            while (n < max_len && q[n] == p[n]) ++n;
            if (n > best) {
                best = (uint32_t)n;
                best_dist = (uint32_t)d;
                if (n == max_len) break;
            }
        }
        cand = lz->prev[(size_t)cand & (WINDOW_SIZE - 1)];
    }
    if (best < MIN_MATCH) return 0;
    *dist_out = best_dist;
    return best;
}

/* Deflate `size` bytes into w. Returns 0, or -1 when out of memory. */
static int deflate_data(bitwriter *w, const uint8_t *data, size_t size, cr_png_compression compression) {
    if (size == 0) {
        bits_put(w, 1, 1); /* BFINAL */
        bits_put(w, 1, 2); /* fixed Huffman block holding only end-of-block */
        bits_put_code(w, 0, 7);
        return 0;
    }
    lz_state lz = {data, size, NULL, NULL};
    uint32_t *syms = NULL;
    if (compression == CR_PNG_FIXED) {
        lz.head = (int32_t *)malloc(sizeof(int32_t) << HASH_BITS);
        lz.prev = (int32_t *)malloc(sizeof(int32_t) * WINDOW_SIZE);
        syms = (uint32_t *)malloc(sizeof(uint32_t) * SEGMENT_BYTES);
        if (lz.head == NULL || lz.prev == NULL || syms == NULL) {
            free(lz.head);
            free(lz.prev);
            free(syms);
            return -1;
        }
        for (size_t i = 0; i < ((size_t)1 << HASH_BITS); ++i) lz.head[i] = -1;
        for (size_t i = 0; i < WINDOW_SIZE; ++i) lz.prev[i] = -1;
    }
    for (size_t start = 0; start < size; start += SEGMENT_BYTES) {
        size_t end = size - start > SEGMENT_BYTES ? start + SEGMENT_BYTES : size;
        uint32_t final = end == size;
        size_t nsym = 0;
        uint64_t fixed_bits = UINT64_MAX;
        if (compression == CR_PNG_FIXED) {
            fixed_bits = 3 + 7; /* header + end-of-block */
            size_t i = start;
            while (i < end) {
                uint32_t dist = 0, len = lz_find(&lz, i, end, &dist);
                if (len) {
                    syms[nsym++] = SYM_MATCH | (len << 16) | (dist & 0xffffu);
                    for (uint32_t k = 0; k < len; ++k) lz_insert(&lz, i + k);
                    i += len;
                } else {
                    syms[nsym++] = data[i];
                    lz_insert(&lz, i);
                    i += 1;
                }
                fixed_bits += sym_bits(syms[nsym - 1]);
            }
        }
        uint64_t pad = (8 - ((w->total_bits + 3) & 7)) & 7;
        uint64_t stored_bits = 3 + pad + 32 + 8 * (uint64_t)(end - start);
        if (stored_bits <= fixed_bits) {
            bits_put(w, final, 1);
            bits_put(w, 0, 2);
            bits_align(w);
            uint32_t len = (uint32_t)(end - start);
            bits_put(w, len, 16);
            bits_put(w, ~len & 0xffffu, 16);
            bytes_put(w->out, data + start, end - start);
            w->total_bits += 8 * (uint64_t)(end - start);
        } else {
            bits_put(w, final, 1);
            bits_put(w, 1, 2);
            for (size_t k = 0; k < nsym; ++k) sym_emit(w, syms[k]);
            bits_put_code(w, 0, 7); /* end of block: symbol 256 */
        }
    }
    free(lz.head);
    free(lz.prev);
    free(syms);
    return 0;
}

static cr_png_status zlib_into(bytes *out, const uint8_t *data, size_t size, cr_png_compression compression) {
    /* CMF 0x78 = deflate with a 32 KiB window; FLG makes CMF*256+FLG a multiple of 31. */
    bytes_u8(out, 0x78);
    bytes_u8(out, compression == CR_PNG_FIXED ? 0x5e : 0x01);
    bitwriter w = {out, 0, 0, 0};
    if (deflate_data(&w, data, size, compression) != 0) return CR_PNG_ERR_NO_MEMORY;
    bits_align(&w);
    bytes_be32(out, cr_adler32(1, data, size));
    return out->failed ? CR_PNG_ERR_NO_MEMORY : CR_PNG_OK;
}

cr_png_status cr_zlib_compress(const uint8_t *data, size_t size, cr_png_compression compression, uint8_t **out,
                               size_t *out_size) {
    if (out == NULL || out_size == NULL || (data == NULL && size > 0)) return CR_PNG_ERR_ARGUMENT;
    *out = NULL;
    *out_size = 0;
    bytes b = {NULL, 0, 0, 0};
    cr_png_status s = zlib_into(&b, data, size, compression);
    if (s != CR_PNG_OK) {
        free(b.data);
        return s;
    }
    *out = b.data;
    *out_size = b.size;
    return CR_PNG_OK;
}

/* ---- PNG ---------------------------------------------------------------- */

static int paeth(int a, int b, int c) {
    int p = a + b - c;
    int pa = p > a ? p - a : a - p, pb = p > b ? p - b : b - p, pc = p > c ? p - c : c - p;
    if (pa <= pb && pa <= pc) return a;
    return pb <= pc ? b : c;
}

/* Filter one row with filter type f into out (without the type byte);
 * returns the sum of |residual as a signed byte|, the row-choice heuristic. */
static uint32_t filter_row(int f, const uint8_t *row, const uint8_t *up, size_t n, size_t bpp, uint8_t *out) {
    uint32_t cost = 0;
    for (size_t i = 0; i < n; ++i) {
        int a = i >= bpp ? row[i - bpp] : 0;
        int b = up ? up[i] : 0;
        int c = (up && i >= bpp) ? up[i - bpp] : 0;
        int pred = 0;
        switch (f) {
        case 1: pred = a; break;
        case 2: pred = b; break;
        case 3: pred = (a + b) >> 1; break;
        case 4: pred = paeth(a, b, c); break;
        default: pred = 0; break;
        }
        uint8_t r = (uint8_t)(row[i] - pred);
        out[i] = r;
        cost += r < 128 ? r : 256u - r;
    }
    return cost;
}

static void chunk(bytes *out, const char type[4], const uint8_t *data, size_t size) {
    bytes_be32(out, (uint32_t)size);
    bytes_put(out, type, 4);
    if (size) bytes_put(out, data, size);
    uint32_t crc = cr_crc32(0, type, 4);
    crc = cr_crc32(crc, data, size);
    bytes_be32(out, crc);
}

/* Largest side we accept: keeps every size computation far from overflow. */
#define MAX_SIDE 16384u
/* IDAT chunk size: readers handle any size; 64 KiB is what most writers use. */
#define IDAT_BYTES 65536u

static cr_png_status png_into(bytes *out, const uint8_t *pixels, uint32_t width, uint32_t height, uint32_t channels,
                              cr_png_compression compression) {
    if (pixels == NULL || width == 0 || height == 0 || width > MAX_SIDE || height > MAX_SIDE ||
        (channels != 1 && channels != 3 && channels != 4) ||
        (compression != CR_PNG_STORED && compression != CR_PNG_FIXED))
        return CR_PNG_ERR_ARGUMENT;
    size_t stride = (size_t)width * channels;
    size_t raw_size = (stride + 1) * height;
    uint8_t *raw = (uint8_t *)malloc(raw_size);
    uint8_t *trial = (uint8_t *)malloc(stride);
    if (raw == NULL || trial == NULL) {
        free(raw);
        free(trial);
        return CR_PNG_ERR_NO_MEMORY;
    }
    for (uint32_t y = 0; y < height; ++y) {
        const uint8_t *row = pixels + stride * y;
        const uint8_t *up = y ? row - stride : NULL;
        uint8_t *dst = raw + (stride + 1) * y;
        uint32_t best_cost = UINT32_MAX;
        for (int f = 0; f < 5; ++f) {
            uint32_t cost = filter_row(f, row, up, stride, channels, trial);
            if (cost < best_cost) {
                best_cost = cost;
                dst[0] = (uint8_t)f;
                memcpy(dst + 1, trial, stride);
            }
        }
    }
    free(trial);

    bytes z = {NULL, 0, 0, 0};
    cr_png_status s = zlib_into(&z, raw, raw_size, compression);
    free(raw);
    if (s != CR_PNG_OK) {
        free(z.data);
        return s;
    }

    static const uint8_t signature[8] = {137, 80, 78, 71, 13, 10, 26, 10};
    bytes_put(out, signature, 8);
    uint8_t ihdr[13];
    ihdr[0] = (uint8_t)(width >> 24); ihdr[1] = (uint8_t)(width >> 16);
    ihdr[2] = (uint8_t)(width >> 8);  ihdr[3] = (uint8_t)width;
    ihdr[4] = (uint8_t)(height >> 24); ihdr[5] = (uint8_t)(height >> 16);
    ihdr[6] = (uint8_t)(height >> 8);  ihdr[7] = (uint8_t)height;
    ihdr[8] = 8;                                                   /* bits per sample */
    ihdr[9] = (uint8_t)(channels == 1 ? 0 : channels == 3 ? 2 : 6); /* grey, RGB, RGBA */
    ihdr[10] = 0;                                                  /* deflate */
    ihdr[11] = 0;                                                  /* adaptive filtering */
    ihdr[12] = 0;                                                  /* no interlace */
    chunk(out, "IHDR", ihdr, sizeof ihdr);
    for (size_t off = 0; off < z.size; off += IDAT_BYTES) {
        size_t n = z.size - off < IDAT_BYTES ? z.size - off : IDAT_BYTES;
        chunk(out, "IDAT", z.data + off, n);
    }
    free(z.data);
    chunk(out, "IEND", NULL, 0);
    return out->failed ? CR_PNG_ERR_NO_MEMORY : CR_PNG_OK;
}

cr_png_status cr_png_encode(const uint8_t *pixels, uint32_t width, uint32_t height, uint32_t channels,
                            cr_png_compression compression, uint8_t **out, size_t *out_size) {
    if (out == NULL || out_size == NULL) return CR_PNG_ERR_ARGUMENT;
    *out = NULL;
    *out_size = 0;
    bytes b = {NULL, 0, 0, 0};
    cr_png_status s = png_into(&b, pixels, width, height, channels, compression);
    if (s != CR_PNG_OK) {
        free(b.data);
        return s;
    }
    *out = b.data;
    *out_size = b.size;
    return CR_PNG_OK;
}

cr_png_status cr_png_write(cr_png_write_fn *write, void *user, const uint8_t *pixels, uint32_t width,
                           uint32_t height, uint32_t channels, cr_png_compression compression) {
    if (write == NULL) return CR_PNG_ERR_ARGUMENT;
    uint8_t *data;
    size_t size;
    cr_png_status s = cr_png_encode(pixels, width, height, channels, compression, &data, &size);
    if (s != CR_PNG_OK) return s;
    int rc = write(user, data, size);
    free(data);
    return rc == 0 ? CR_PNG_OK : CR_PNG_ERR_WRITE;
}

cr_png_status cr_png_write_file(const char *path, const uint8_t *pixels, uint32_t width, uint32_t height,
                                uint32_t channels, cr_png_compression compression) {
    if (path == NULL) return CR_PNG_ERR_ARGUMENT;
    uint8_t *data;
    size_t size;
    cr_png_status s = cr_png_encode(pixels, width, height, channels, compression, &data, &size);
    if (s != CR_PNG_OK) return s;
    crp_status ws = crp_write_file_atomic(path, data, size);
    free(data);
    return ws == CRP_OK ? CR_PNG_OK : CR_PNG_ERR_WRITE;
}
