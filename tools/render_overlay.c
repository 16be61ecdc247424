/* render_overlay.c — the debug-draw overlay of `crumple run` pictures
 * (render_overlay.h): the runtime's cr_world_draw, projected with the
 * picture's camera and drawn as pixels, and the scene's rays and overlaps
 * with their hits (`queries`), which are the tool's, not the world's.
 */
#include "render_overlay.h"
#include "stb_ds.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const struct {
    const char *name;
    uint32_t flags;
} overlay_names[] = {
    {"bodies", CR_DRAW_BODIES}, {"sleep", CR_DRAW_BODIES | CR_DRAW_SLEEP}, {"contacts", CR_DRAW_CONTACTS},
    {"joints", CR_DRAW_JOINTS}, {"cells", CR_DRAW_BROADPHASE},             {"dents", CR_DRAW_DENTS},
    {"bones", CR_DRAW_BONES},   {"sensors", CR_DRAW_SENSORS},               {"queries", CR_RENDER_OVERLAY_QUERIES},
    {"all", CR_DRAW_BODIES | CR_DRAW_SLEEP | CR_DRAW_CONTACTS | CR_DRAW_JOINTS | CR_DRAW_DENTS | CR_DRAW_BONES | CR_DRAW_SENSORS |
                CR_RENDER_OVERLAY_QUERIES},
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
            snprintf(err, err_size, "unknown overlay '%.*s' (bodies sleep contacts joints cells dents bones sensors queries all)", (int)n, p);
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

/* the box of half extents e at (c, q) as its twelve edges */
static void box_edges(overlay *o, cr_vec3 c, cr_quat q, cr_vec3 e, uint32_t color) {
    for (int axis = 0; axis < 3; ++axis)
        for (int k = 0; k < 4; ++k) {
            cr_real s[3] = {0, 0, 0}, u = (k & 1) ? CR_R(1) : CR_R(-1), v = (k & 2) ? CR_R(1) : CR_R(-1);
            s[(axis + 1) % 3] = u, s[(axis + 2) % 3] = v;
            cr_vec3 a = cr_v3(cr_mul(s[0], e.x), cr_mul(s[1], e.y), cr_mul(s[2], e.z)), b = a;
            (&a.x)[axis] = -(&e.x)[axis], (&b.x)[axis] = (&e.x)[axis];
            overlay_line(o, cr_v3_add(c, cr_quat_rotate(q, a)), cr_v3_add(c, cr_quat_rotate(q, b)), color);
        }
}

/* a sphere as its three great circles, 24 segments each */
static void sphere_circles(overlay *o, cr_vec3 c, cr_real r, uint32_t color) {
    for (int axis = 0; axis < 3; ++axis) {
        cr_vec3 prev = cr_v3_zero();
        for (int k = 0; k <= 24; ++k) {
            double t = 6.283185307179586 * k / 24;
            cr_real cs = cr_mul(r, cr_from_float((float)cos(t))), sn = cr_mul(r, cr_from_float((float)sin(t)));
            cr_real v[3] = {0, 0, 0};
            v[(axis + 1) % 3] = cs, v[(axis + 2) % 3] = sn;
            cr_vec3 p = cr_v3_add(c, cr_v3(v[0], v[1], v[2]));
            if (k) overlay_line(o, prev, p, color);
            prev = p;
        }
    }
}

/* the scene's asked queries: a ray to its last hit (or its end), a point and
 * a 10 cm normal at each hit; an overlap's shape, in the hit colour when it
 * found a body */
static void draw_queries(overlay *o, const cr_scene *s) {
    for (ptrdiff_t i = 0; i < arrlen(s->queries); ++i) {
        const cr_scene_query *q = &s->queries[i];
        if (!q->asked) continue;
        ptrdiff_t n = arrlen(q->hits);
        uint32_t color = n ? CR_RENDER_COLOR_QUERY_HIT : CR_RENDER_COLOR_QUERY;
        switch ((cr_scene_query_kind)q->kind) {
        case CR_SCENE_QUERY_RAY:
        case CR_SCENE_QUERY_RAY_ALL:
            overlay_line(o, q->a, n ? q->hits[n - 1].point : cr_v3_add(q->a, q->b), CR_RENDER_COLOR_QUERY);
            for (ptrdiff_t k = 0; k < n; ++k) {
                overlay_point(o, q->hits[k].point, 0, CR_RENDER_COLOR_QUERY_HIT);
                overlay_line(o, q->hits[k].point, cr_v3_add(q->hits[k].point, cr_v3_scale(q->hits[k].normal, CR_R(0.1))),
                             CR_RENDER_COLOR_QUERY_HIT);
            }
            break;
        case CR_SCENE_QUERY_SPHERE: sphere_circles(o, q->a, q->radius, color); break;
        case CR_SCENE_QUERY_BOX: box_edges(o, q->a, q->q, q->b, color); break;
        case CR_SCENE_QUERY_AABB:
            box_edges(o, cr_v3_scale(cr_v3_add(q->a, q->b), CR_R(0.5)), cr_quat_identity(),
                      cr_v3_scale(cr_v3_sub(q->b, q->a), CR_R(0.5)), color);
            break;
        }
    }
}

uint32_t cr_render_overlay(cr_image *img, const cr_camera *cam, const cr_world *world, const cr_scene *scene, uint32_t flags) {
    overlay o = {img, cam, 0};
    cr_debug_draw d = cr_default_debug_draw();
    d.line = overlay_line;
    d.point = overlay_point;
    d.context = &o;
    if (cr_world_draw(world, &d, flags & ~(uint32_t)CR_RENDER_OVERLAY_QUERIES) != CR_OK) return 0;
    if ((flags & CR_RENDER_OVERLAY_QUERIES) && scene != NULL) draw_queries(&o, scene);
    return o.drawn;
}
