/* raster.c — triangles into a z-buffered RGB image; 2D helpers. See raster.h.
 *
 * Coverage is integer: positions snapped to 1/256 pixel (8 sub-pixel bits),
 * edge functions evaluated exactly in 64 bits at pixel centres, top-left
 * rule for pixels exactly on an edge. Coordinates are limited to +-2^20
 * pixels so every product fits in 63 bits; a triangle beyond that (a vertex
 * almost at the camera plane) is skipped and counted, never drawn wrongly.
 * Shading is per pixel from perspective-correct barycentrics.
 */
#include "raster.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SUBPIXEL_BITS 8
#define SUBPIXEL (1 << SUBPIXEL_BITS)
#define MAX_COORD 1048576.0 /* 2^20 pixels */

/* ---- images ------------------------------------------------------------- */

int cr_image_init(cr_image *img, uint32_t width, uint32_t height, uint32_t rgb) {
    img->width = img->height = 0;
    img->rgb = NULL;
    if (width == 0 || height == 0 || width > 16384 || height > 16384) return 0;
    img->rgb = (uint8_t *)malloc((size_t)width * height * 3);
    if (img->rgb == NULL) return 0;
    img->width = width;
    img->height = height;
    cr_image_fill_rect(img, 0, 0, (int)width, (int)height, rgb);
    return 1;
}

void cr_image_free(cr_image *img) {
    free(img->rgb);
    img->rgb = NULL;
    img->width = img->height = 0;
}

void cr_image_fill_rect(cr_image *img, int x, int y, int w, int h, uint32_t rgb) {
    int x0 = x < 0 ? 0 : x, y0 = y < 0 ? 0 : y;
    int x1 = x + w, y1 = y + h;
    if (x1 > (int)img->width) x1 = (int)img->width;
    if (y1 > (int)img->height) y1 = (int)img->height;
    for (int j = y0; j < y1; ++j)
        for (int i = x0; i < x1; ++i) {
            uint8_t *p = img->rgb + ((size_t)j * img->width + (size_t)i) * 3;
            p[0] = (uint8_t)(rgb >> 16);
            p[1] = (uint8_t)(rgb >> 8);
            p[2] = (uint8_t)rgb;
        }
}

void cr_image_blit(cr_image *dst, const cr_image *src, int x, int y) {
    for (uint32_t j = 0; j < src->height; ++j) {
        int dy = y + (int)j;
        if (dy < 0 || dy >= (int)dst->height) continue;
        for (uint32_t i = 0; i < src->width; ++i) {
            int dx = x + (int)i;
            if (dx < 0 || dx >= (int)dst->width) continue;
            memcpy(dst->rgb + ((size_t)dy * dst->width + (size_t)dx) * 3, src->rgb + ((size_t)j * src->width + i) * 3, 3);
        }
    }
}

int cr_image_downscale(cr_image *dst, const cr_image *src, uint32_t factor) {
    if (factor == 0 || src->width < factor || src->height < factor) return 0;
    uint32_t w = src->width / factor, h = src->height / factor;
    if (!cr_image_init(dst, w, h, 0)) return 0;
    uint32_t n = factor * factor;
    for (uint32_t y = 0; y < h; ++y)
        for (uint32_t x = 0; x < w; ++x)
            for (int c = 0; c < 3; ++c) {
                uint32_t sum = 0;
                for (uint32_t j = 0; j < factor; ++j)
                    for (uint32_t i = 0; i < factor; ++i)
                        sum += src->rgb[((size_t)(y * factor + j) * src->width + (x * factor + i)) * 3 + (size_t)c];
                dst->rgb[((size_t)y * w + x) * 3 + (size_t)c] = (uint8_t)((sum + n / 2) / n);
            }
    return 1;
}

/* 3x5 glyphs: bit (row*3 + column) set = ink, row 0 at the top. */
typedef struct glyph {
    char ch;
    uint16_t bits;
} glyph;

static const glyph font[] = {
    {'A', 0x5bea}, {'B', 0x3aeb}, {'C', 0x624e}, {'D', 0x3b6b}, {'E', 0x72cf}, {'F', 0x12cf},
    {'G', 0x6b4e}, {'H', 0x5bed}, {'I', 0x7497}, {'J', 0x2b24}, {'K', 0x5aed}, {'L', 0x7249},
    {'M', 0x5bfd}, {'N', 0x5b6b}, {'O', 0x2b6a}, {'P', 0x12eb}, {'Q', 0x476a}, {'R', 0x5aeb},
    {'S', 0x388e}, {'T', 0x2497}, {'U', 0x7b6d}, {'V', 0x2b6d}, {'W', 0x5fed}, {'X', 0x5aad},
    {'Y', 0x24ad}, {'Z', 0x72a7}, {'0', 0x7b6f}, {'1', 0x749a}, {'2', 0x72a3}, {'3', 0x38a3},
    {'4', 0x49ed}, {'5', 0x38cf}, {'6', 0x7bce}, {'7', 0x24a7}, {'8', 0x7bef}, {'9', 0x39ef},
    {' ', 0x0000}, {'.', 0x2000}, {',', 0x1400}, {':', 0x0410}, {';', 0x1410}, {'=', 0x0e38},
    {'-', 0x01c0}, {'+', 0x05d0}, {'/', 0x12a4}, {'%', 0x52a5}, {'(', 0x4494}, {')', 0x1491},
    {'_', 0x7000}, {'<', 0x4454}, {'>', 0x1511},
};

static uint16_t glyph_bits(char ch) {
    if (ch >= 'a' && ch <= 'z') ch = (char)(ch - 'a' + 'A');
    for (size_t i = 0; i < sizeof font / sizeof font[0]; ++i)
        if (font[i].ch == ch) return font[i].bits;
    return 0x7b6f | 0x0010; /* a filled-centre box marks a character the font lacks */
}

int cr_image_text_width(const char *text, int scale) {
    int n = (int)strlen(text);
    return n ? (n * 4 - 1) * scale : 0;
}

int cr_image_text(cr_image *img, int x, int y, const char *text, int scale, uint32_t rgb) {
    for (const char *p = text; *p; ++p) {
        uint16_t bits = glyph_bits(*p);
        for (int r = 0; r < 5; ++r)
            for (int c = 0; c < 3; ++c)
                if (bits & (1u << (r * 3 + c))) cr_image_fill_rect(img, x + c * scale, y + r * scale, scale, scale, rgb);
        x += 4 * scale;
    }
    return x;
}

/* ---- colour ------------------------------------------------------------- */

uint8_t cr_raster_encode(double linear) {
    if (!(linear > 0.0)) return 0; /* also catches NaN */
    if (linear >= 1.0) return 255;
    double e = sqrt(linear);
    return (uint8_t)(e * 255.0 + 0.5);
}

void cr_raster_decode_rgb(uint32_t rgb, double out[3]) {
    for (int c = 0; c < 3; ++c) {
        double v = (double)((rgb >> (16 - 8 * c)) & 0xffu) / 255.0;
        out[c] = v * v;
    }
}

/* ---- raster ------------------------------------------------------------- */

int cr_raster_init(cr_raster *r, uint32_t width, uint32_t height, uint32_t background) {
    memset(r, 0, sizeof *r);
    if (!cr_image_init(&r->image, width, height, background)) return 0;
    r->depth = (double *)calloc((size_t)width * height, sizeof(double));
    if (r->depth == NULL) {
        cr_image_free(&r->image);
        return 0;
    }
    /* key light from the upper left, slightly in front: the convention of product shots */
    r->light[0] = -0.4;
    r->light[1] = 0.8;
    r->light[2] = 0.45;
    double l = sqrt(r->light[0] * r->light[0] + r->light[1] * r->light[1] + r->light[2] * r->light[2]);
    for (int i = 0; i < 3; ++i) r->light[i] /= l;
    r->ambient = 0.25;
    r->diffuse = 0.75;
    r->wire_width = 0.6;
    r->wire_rgb[0] = r->wire_rgb[1] = r->wire_rgb[2] = 0.02;
    return 1;
}

void cr_raster_free(cr_raster *r) {
    cr_image_free(&r->image);
    free(r->depth);
    r->depth = NULL;
}

void cr_raster_clear(cr_raster *r, uint32_t background) {
    cr_image_fill_rect(&r->image, 0, 0, (int)r->image.width, (int)r->image.height, background);
    memset(r->depth, 0, (size_t)r->image.width * r->image.height * sizeof(double));
    r->triangles_drawn = r->triangles_skipped = 0;
}

/* round-to-nearest snap of a pixel coordinate to sub-pixel units, without libm */
static int64_t snap(double v) {
    double s = v * (double)SUBPIXEL + 0.5;
    int64_t i = (int64_t)s;
    if ((double)i > s) --i; /* truncation rounded a negative value up: step down to the floor */
    return i;
}

static int64_t floor_div(int64_t a, int64_t b) {
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
}

static int is_top_left(int64_t dx, int64_t dy) { return (dy == 0 && dx > 0) || dy < 0; }

void cr_raster_triangle(cr_raster *r, const cr_raster_vertex v_in[3]) {
    const cr_raster_vertex *v[3] = {&v_in[0], &v_in[1], &v_in[2]};
    for (int i = 0; i < 3; ++i) {
        /* written so that NaN fails the test too */
        if (!(v[i]->x > -MAX_COORD && v[i]->x < MAX_COORD && v[i]->y > -MAX_COORD && v[i]->y < MAX_COORD &&
              v[i]->inv_w > 0.0)) {
            r->triangles_skipped++;
            return;
        }
    }
    int64_t X[3], Y[3];
    for (int i = 0; i < 3; ++i) {
        X[i] = snap(v[i]->x);
        Y[i] = snap(v[i]->y);
    }
    int64_t area = (X[1] - X[0]) * (Y[2] - Y[0]) - (Y[1] - Y[0]) * (X[2] - X[0]);
    if (area == 0) {
        r->triangles_skipped++;
        return;
    }
    /* With y pointing down, a triangle counter-clockwise as the viewer sees it
     * has negative area here: that is the front face. Reorder to positive area. */
    double flip = 1.0;
    if (area > 0) {
        flip = -1.0;
    } else {
        const cr_raster_vertex *t = v[1];
        v[1] = v[2];
        v[2] = t;
        int64_t tx = X[1], ty = Y[1];
        X[1] = X[2]; Y[1] = Y[2];
        X[2] = tx; Y[2] = ty;
        area = -area;
    }
    /* edge i is opposite vertex i: from vertex i+1 to vertex i+2 */
    int64_t ex[3], ey[3], bias[3];
    double inv_len[3];
    for (int i = 0; i < 3; ++i) {
        int a = (i + 1) % 3, b = (i + 2) % 3;
        ex[i] = X[b] - X[a];
        ey[i] = Y[b] - Y[a];
        bias[i] = is_top_left(ex[i], ey[i]) ? 0 : -1;
        double len = sqrt((double)ex[i] * (double)ex[i] + (double)ey[i] * (double)ey[i]);
        inv_len[i] = 1.0 / len; /* len > 0: area != 0 */
    }
    int64_t minx = X[0], maxx = X[0], miny = Y[0], maxy = Y[0];
    for (int i = 1; i < 3; ++i) {
        if (X[i] < minx) minx = X[i];
        if (X[i] > maxx) maxx = X[i];
        if (Y[i] < miny) miny = Y[i];
        if (Y[i] > maxy) maxy = Y[i];
    }
    /* pixel px has its centre at px*256 + 128 */
    int64_t px0 = floor_div(minx - SUBPIXEL / 2 + SUBPIXEL - 1, SUBPIXEL);
    int64_t px1 = floor_div(maxx - SUBPIXEL / 2, SUBPIXEL);
    int64_t py0 = floor_div(miny - SUBPIXEL / 2 + SUBPIXEL - 1, SUBPIXEL);
    int64_t py1 = floor_div(maxy - SUBPIXEL / 2, SUBPIXEL);
    if (px0 < 0) px0 = 0;
    if (py0 < 0) py0 = 0;
    if (px1 > (int64_t)r->image.width - 1) px1 = (int64_t)r->image.width - 1;
    if (py1 > (int64_t)r->image.height - 1) py1 = (int64_t)r->image.height - 1;

    double inv_area = 1.0 / (double)area;
    int covered = 0;
    for (int64_t py = py0; py <= py1; ++py) {
        int64_t cy = py * SUBPIXEL + SUBPIXEL / 2;
        for (int64_t px = px0; px <= px1; ++px) {
            int64_t cx = px * SUBPIXEL + SUBPIXEL / 2;
            int64_t w[3];
            int inside = 1;
            for (int i = 0; i < 3; ++i) {
                int a = (i + 1) % 3;
                w[i] = ex[i] * (cy - Y[a]) - ey[i] * (cx - X[a]);
                if (w[i] + bias[i] < 0) inside = 0;
            }
            if (!inside) continue;
            covered = 1;
            double pw[3], s = 0.0;
            for (int i = 0; i < 3; ++i) {
                pw[i] = (double)w[i] * inv_area * v[i]->inv_w;
                s += pw[i];
            }
            size_t idx = (size_t)py * r->image.width + (size_t)px;
            if (!(s > r->depth[idx])) continue;
            r->depth[idx] = s;
            double n[3] = {0, 0, 0}, c[3] = {0, 0, 0};
            for (int i = 0; i < 3; ++i) {
                double q = pw[i] / s;
                for (int k = 0; k < 3; ++k) {
                    n[k] += q * v[i]->n[k];
                    c[k] += q * v[i]->c[k];
                }
            }
            double nl = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
            double lambert = 0.0;
            if (nl > 0.0) {
                lambert = flip * (n[0] * r->light[0] + n[1] * r->light[1] + n[2] * r->light[2]) / nl;
                if (lambert < 0.0) lambert = 0.0;
            }
            double shade = r->ambient + r->diffuse * lambert;
            double out[3] = {c[0] * shade, c[1] * shade, c[2] * shade};
            if (r->wireframe) {
                double d = (double)w[0] * inv_len[0];
                for (int i = 1; i < 3; ++i) {
                    double di = (double)w[i] * inv_len[i];
                    if (di < d) d = di;
                }
                d /= (double)SUBPIXEL; /* sub-pixel units to pixels */
                if (d < r->wire_width) {
                    double a = 0.85 * (1.0 - 0.5 * d / r->wire_width);
                    for (int k = 0; k < 3; ++k) out[k] = out[k] * (1.0 - a) + r->wire_rgb[k] * a;
                }
            }
            uint8_t *p = r->image.rgb + idx * 3;
            for (int k = 0; k < 3; ++k) p[k] = cr_raster_encode(out[k]);
        }
    }
    if (covered) r->triangles_drawn++;
}
