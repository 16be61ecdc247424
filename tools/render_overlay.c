/* render_overlay.c — the debug-draw overlay of `crumple run` pictures
 * (render_overlay.h): the runtime's cr_world_draw, projected with the
 * picture's camera and drawn as pixels.
 */
#include "render_overlay.h"

#include <stdio.h>
#include <string.h>

static const struct {
    const char *name;
    uint32_t flags;
} overlay_names[] = {
    {"bodies", CR_DRAW_BODIES}, {"sleep", CR_DRAW_BODIES | CR_DRAW_SLEEP}, {"contacts", CR_DRAW_CONTACTS},
    {"joints", CR_DRAW_JOINTS}, {"cells", CR_DRAW_BROADPHASE},             {"dents", CR_DRAW_DENTS},
    {"bones", CR_DRAW_BONES},   {"sensors", CR_DRAW_SENSORS},
    {"all", CR_DRAW_BODIES | CR_DRAW_SLEEP | CR_DRAW_CONTACTS | CR_DRAW_JOINTS | CR_DRAW_DENTS | CR_DRAW_BONES | CR_DRAW_SENSORS},
};

int cr_render_overlay_parse(const char *text, uint32_t *flags, char *err, size_t err_size) {
    *flags = 0;
    const char *p = text;
    do {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        size_t k = 0, count = sizeof overlay_names / sizeof overlay_names[0];
        while (k < count && !(strlen(overlay_names[k].name) == n && strncmp(overlay_names[k].name, p, n) == 0)) ++k;
        if (k == count) {
            snprintf(err, err_size, "unknown overlay '%.*s' (bodies sleep contacts joints cells dents bones sensors all)", (int)n, p);
            return 0;
        }
        *flags |= overlay_names[k].flags;
        p = end ? end + 1 : NULL;
    } while (p != NULL);
    return 1;
}

typedef struct overlay {
    cr_image *img;
    const cr_camera *cam;
    uint32_t drawn;
} overlay;

static int project(const overlay *o, cr_vec3 v, double *x, double *y) {
    double p[3] = {cr_to_double(v.x), cr_to_double(v.y), cr_to_double(v.z)}, depth;
    return cr_render_project(o->cam, o->img->width, o->img->height, p, x, y, &depth);
}

static void overlay_line(void *ctx, cr_vec3 a, cr_vec3 b, uint32_t color) {
    overlay *o = (overlay *)ctx;
    double ax, ay, bx, by;
    if (!project(o, a, &ax, &ay) || !project(o, b, &bx, &by)) return;
    double dx = bx - ax, dy = by - ay;
    double len = dx > 0 ? dx : -dx;
    if ((dy > 0 ? dy : -dy) > len) len = dy > 0 ? dy : -dy;
    /* at most one step per pixel along the longer axis; a line leaving the picture far is cut */
    int steps = len > 4096.0 ? 4096 : (int)len + 1;
    for (int i = 0; i <= steps; ++i) {
        double t = (double)i / steps;
        cr_image_fill_rect(o->img, (int)(ax + dx * t), (int)(ay + dy * t), 2, 2, color);
    }
    o->drawn++;
}

static void overlay_point(void *ctx, cr_vec3 p, cr_real size, uint32_t color) {
    overlay *o = (overlay *)ctx;
    (void)size; /* a fixed 5-pixel square reads better at any distance */
    double x, y;
    if (!project(o, p, &x, &y)) return;
    cr_image_fill_rect(o->img, (int)x - 2, (int)y - 2, 5, 5, color);
    o->drawn++;
}

uint32_t cr_render_overlay(cr_image *img, const cr_camera *cam, const cr_world *world, uint32_t flags) {
    overlay o = {img, cam, 0};
    cr_debug_draw d = cr_default_debug_draw();
    d.line = overlay_line;
    d.point = overlay_point;
    d.context = &o;
    return cr_world_draw(world, &d, flags) == CR_OK ? o.drawn : 0;
}
