/* apng.h — animated PNG (APNG) from crumple's own PNG writer.
 *
 * A run's frames as one file any browser plays: the PNG signature and IHDR,
 * an acTL chunk (frame count, loop forever), then per frame an fcTL chunk
 * (size, delay) and its image data: IDAT for the first frame (so a viewer
 * without APNG shows frame 0 as a still PNG), fdAT (a sequence number and
 * the same zlib stream) for the others. Each frame's zlib stream is the one
 * cr_png_encode makes, so the filters and compression are the PNG writer's
 * and equally deterministic: the same frames give the same bytes.
 *
 *     cr_apng a;
 *     cr_apng_begin(&a, width, height, 30);           // 30 frames per second
 *     for (...) cr_apng_add_frame(&a, rgb);           // 3 bytes per pixel, rows top to bottom
 *     cr_apng_write_file(&a, "run.png");              // atomic; then cr_apng_free(&a)
 *
 * Frames are kept compressed in memory until the file is written (the frame
 * count goes first, in acTL). tests/apng_decode.py reads the result back with
 * Python's zlib, checking every CRC and sequence number.
 */
#ifndef CRUMPLE_TOOLS_APNG_H
#define CRUMPLE_TOOLS_APNG_H

#include <stddef.h>
#include <stdint.h>

#include "png.h"

typedef struct cr_apng {
    uint32_t width, height;
    uint32_t fps;          ///< frames per second (1..1000): every frame's delay is 1/fps s
    uint32_t frame_count;
    uint8_t **streams;     ///< stb_ds: each frame's zlib stream (heap)
    size_t *stream_sizes;  ///< stb_ds
} cr_apng;

/// Start an animation of width x height RGB frames at `fps` frames per second.
cr_png_status cr_apng_begin(cr_apng *a, uint32_t width, uint32_t height, uint32_t fps);
/// Compress one frame (3 * width * height bytes) and keep it.
cr_png_status cr_apng_add_frame(cr_apng *a, const uint8_t *rgb);
/// The whole file into a new heap buffer (free with free()).
cr_png_status cr_apng_encode(const cr_apng *a, uint8_t **out, size_t *out_size);
/// The whole file, atomically (temporary file + rename).
cr_png_status cr_apng_write_file(const cr_apng *a, const char *path);
void cr_apng_free(cr_apng *a);

#endif
