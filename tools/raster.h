/* raster.h — crumple's software rasterizer and RGB images (tools only).
 *
 * Enough to show a dent: triangles with a depth buffer, per-pixel Lambert +
 * ambient lighting of interpolated normals, an optional hidden-line wireframe
 * overlay, and a few 2D helpers (rectangles, blits, box downscale, a 3x5
 * pixel font) for contact sheets and legends.
 *
 * Determinism: vertex positions are snapped to 1/256 pixel and coverage is
 * decided by 64-bit integer edge functions with the top-left fill rule, so
 * which pixels a triangle owns never depends on floating-point rounding, and
 * two triangles sharing an edge neither overlap nor leave a crack. Shading is
 * double arithmetic in a fixed order (the build forbids fused multiply-add),
 * with sqrt as the only function called, so the same inputs give the same
 * bytes run to run and machine to machine.
 *
 * Conventions: pixel (0,0) is the top-left pixel and covers [0,1)x[0,1);
 * colours are linear 0..1 doubles until written, then encoded with gamma 2
 * (a square root: close to sRGB, and exact everywhere).
 */
#ifndef CRUMPLE_TOOLS_RASTER_H
#define CRUMPLE_TOOLS_RASTER_H

#include <stddef.h>
#include <stdint.h>

/// An 8-bit RGB image, rows top to bottom, no padding.
typedef struct cr_image {
    uint32_t width, height; ///< pixels
    uint8_t *rgb;           ///< [3 * width * height]
} cr_image;

/// Allocate an image filled with `rgb` (0xRRGGBB); returns 0 when out of memory or too large.
int cr_image_init(cr_image *img, uint32_t width, uint32_t height, uint32_t rgb);
void cr_image_free(cr_image *img);
/// Fill the rectangle [x, x+w) x [y, y+h), clipped to the image.
void cr_image_fill_rect(cr_image *img, int x, int y, int w, int h, uint32_t rgb);
/// Copy `src` with its top-left corner at (x, y), clipped.
void cr_image_blit(cr_image *dst, const cr_image *src, int x, int y);
/// Average each factor x factor block of `src` into one pixel of `dst`
/// (dst is allocated: width/factor x height/factor). Returns 0 on failure.
int cr_image_downscale(cr_image *dst, const cr_image *src, uint32_t factor);
/// Draw text with the built-in 3x5 font (A-Z, 0-9, space . , : ; = - + / % ( ) _ < >),
/// each font pixel `scale` image pixels; lower-case is drawn as upper-case,
/// unknown characters as a box. Returns the x just past the text.
int cr_image_text(cr_image *img, int x, int y, const char *text, int scale, uint32_t rgb);
/// Width in image pixels of `text` drawn at `scale`.
int cr_image_text_width(const char *text, int scale);

/// One vertex handed to the rasterizer, already projected.
typedef struct cr_raster_vertex {
    double x, y;     ///< pixels, in the image's pixel convention
    double inv_w;    ///< 1 / view depth (1/m, > 0): depth test and perspective-correct interpolation
    double n[3];     ///< normal for lighting, any length (normalised per pixel)
    double c[3];     ///< base colour, linear 0..1
} cr_raster_vertex;

/// A colour image with a depth buffer and the lighting used for triangles.
typedef struct cr_raster {
    cr_image image;
    double *depth;         ///< [width*height] inv_w of the nearest surface so far, 0 = empty
    double light[3];       ///< unit vector towards the light, same frame as the vertex normals
    double ambient;        ///< light that reaches every surface, 0..1
    double diffuse;        ///< Lambert factor scale, 0..1
    int wireframe;         ///< non-zero: darken pixels within wire_width of a triangle's edge
    double wire_width;     ///< pixels
    double wire_rgb[3];    ///< linear colour of the wire lines
    uint32_t triangles_drawn;   ///< triangles that covered at least one pixel centre
    uint32_t triangles_skipped; ///< degenerate, or too far off screen for the integer path
} cr_raster;

/// Allocate a raster of width x height cleared to `background` (0xRRGGBB), with
/// default lighting (light from the upper left, ambient 0.25, diffuse 0.75).
/// Returns 0 when out of memory.
int cr_raster_init(cr_raster *r, uint32_t width, uint32_t height, uint32_t background);
void cr_raster_free(cr_raster *r);
/// Clear colour to `background` and depth to empty.
void cr_raster_clear(cr_raster *r, uint32_t background);
/// Draw one triangle with depth test. Both windings are drawn; a back-facing
/// triangle has its normals flipped so a thin sheet is lit from either side.
void cr_raster_triangle(cr_raster *r, const cr_raster_vertex v[3]);

/// Linear 0..1 colour to an 8-bit channel with the gamma-2 encoding.
uint8_t cr_raster_encode(double linear);
/// 0xRRGGBB (already encoded) to a linear 0..1 colour.
void cr_raster_decode_rgb(uint32_t rgb, double out[3]);

#endif
