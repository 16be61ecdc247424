/* png.h — crumple's own PNG writer (no image library).
 *
 * Writes 8-bit grey, RGB or RGBA images as PNG: a zlib stream of deflate
 * blocks, either stored (no compression) or compressed with the fixed
 * Huffman code and a greedy LZ77 matcher on a hash chain. Every choice (row
 * filter, match, block kind) is made by integer rules in a fixed order, so
 * the same pixels always give the same bytes, on every machine.
 *
 * Output goes through a write callback (stb style), so the same code writes
 * to memory, to a file, or into a test's checker:
 *
 *     uint8_t *png; size_t n;
 *     if (cr_png_encode(rgb, w, h, 3, CR_PNG_FIXED, &png, &n) == CR_PNG_OK) { ...; free(png); }
 *     cr_png_write_file("out.png", rgb, w, h, 3, CR_PNG_FIXED);   // atomic: temp + rename
 *
 * Notes:
 *   - Rows are filtered (None/Sub/Up/Average/Paeth) picking, per row, the
 *     filter with the smallest sum of |signed residuals| (the usual PNG
 *     heuristic); ties go to the lower filter number.
 *   - Input is deflated in segments of up to 65535 bytes; each segment is
 *     emitted as a fixed-Huffman block, or as a stored block when that is
 *     smaller (noise-like images), so output never grows much past the input.
 *   - CRC-32 (PNG chunks) and Adler-32 (zlib trailer) are public because tests
 *     check them against known values.
 */
#ifndef CRUMPLE_TOOLS_PNG_H
#define CRUMPLE_TOOLS_PNG_H

#include <stddef.h>
#include <stdint.h>

#include "platform.h"

/// What went wrong while encoding.
typedef enum cr_png_status {
    CR_PNG_OK = 0,
    CR_PNG_ERR_ARGUMENT,  ///< null pixels, zero or too large size, channels not 1/3/4
    CR_PNG_ERR_NO_MEMORY, ///< the host allocator said no
    CR_PNG_ERR_WRITE      ///< the write callback refused, or the file could not be written
} cr_png_status;

/// Human text for a PNG status.
const char *cr_png_status_message(cr_png_status s);

/// How the zlib stream is compressed.
typedef enum cr_png_compression {
    CR_PNG_STORED = 0, ///< stored deflate blocks only: fastest, largest
    CR_PNG_FIXED = 1   ///< LZ77 + fixed Huffman blocks (stored where that is smaller)
} cr_png_compression;

/// Receives output bytes in order; returns 0 on success, non-zero to abort.
typedef int cr_png_write_fn(void *user, const void *data, size_t size);

/// Encode `pixels` (rows top to bottom, `channels` bytes per pixel: 1 grey,
/// 3 RGB, 4 RGBA, no row padding) as a PNG through `write`.
cr_png_status cr_png_write(cr_png_write_fn *write, void *user, const uint8_t *pixels, uint32_t width,
                           uint32_t height, uint32_t channels, cr_png_compression compression);

/// Same, into a new heap buffer (*out, free with free()); *out_size bytes.
cr_png_status cr_png_encode(const uint8_t *pixels, uint32_t width, uint32_t height, uint32_t channels,
                            cr_png_compression compression, uint8_t **out, size_t *out_size);

/// Same, into a file, atomically (temporary file + rename, see platform.h).
cr_png_status cr_png_write_file(const char *path, const uint8_t *pixels, uint32_t width, uint32_t height,
                                uint32_t channels, cr_png_compression compression);

/// zlib stream (RFC 1950) of `size` bytes into a new heap buffer (free with free()).
cr_png_status cr_zlib_compress(const uint8_t *data, size_t size, cr_png_compression compression, uint8_t **out,
                               size_t *out_size);

/// CRC-32 (ISO 3309, as PNG uses it). Start with crc = 0; chain calls to continue.
uint32_t cr_crc32(uint32_t crc, const void *data, size_t size);
/// Adler-32 (RFC 1950). Start with adler = 1; chain calls to continue.
uint32_t cr_adler32(uint32_t adler, const void *data, size_t size);

#endif
