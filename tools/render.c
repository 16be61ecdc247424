/* render.c — scenes from bodies, cameras, colour modes, drawing. See render.h.
 *
 * Notes
 *   - Geometry is converted from cr_real to double once, when a body is
 *     added; after that everything is double in a fixed order.
 *   - Spheres are cube-spheres (a subdivided cube pushed onto the sphere):
 *     no trigonometry, so no libm function, and two of the six patches are
 *     tinted so a rolling or spinning ball shows that it turns.
 *   - Triangles are clipped against the near plane in view space (a body
 *     right at the camera must not wrap around); the rasterizer clips to the
 *     image.
 */
#include "render.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform.h"
#include "stb_ds.h"

/* ---- small double vector helpers --------------------------------------- */

static void v3_set(double o[3], double x, double y, double z) { o[0] = x; o[1] = y; o[2] = z; }
static double v3_dot(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static void v3_sub(double o[3], const double a[3], const double b[3]) {
    o[0] = a[0] - b[0]; o[1] = a[1] - b[1]; o[2] = a[2] - b[2];
}
static void v3_cross(double o[3], const double a[3], const double b[3]) {
    double x = a[1] * b[2] - a[2] * b[1], y = a[2] * b[0] - a[0] * b[2], z = a[0] * b[1] - a[1] * b[0];
    o[0] = x; o[1] = y; o[2] = z;
}
static double v3_len(const double a[3]) { return sqrt(v3_dot(a, a)); }
static int v3_normalize(double a[3]) {
    double l = v3_len(a);
    if (!(l > 1e-300)) return 0;
    a[0] /= l; a[1] /= l; a[2] /= l;
    return 1;
}

typedef struct xf_d {
    double p[3];
    double q[4]; /* x y z w */
} xf_d;

static xf_d xf_from(cr_transform t) {
    xf_d x;
    v3_set(x.p, cr_to_double(t.p.x), cr_to_double(t.p.y), cr_to_double(t.p.z));
    x.q[0] = cr_to_double(t.q.x);
    x.q[1] = cr_to_double(t.q.y);
    x.q[2] = cr_to_double(t.q.z);
    x.q[3] = cr_to_double(t.q.w);
    return x;
}

/* v + 2w(u x v) + 2u x (u x v), as vecmath.h does it */
static void q_rotate(const double q[4], const double v[3], double o[3]) {
    double u[3] = {q[0], q[1], q[2]}, t[3], ut[3];
    v3_cross(t, u, v);
    t[0] *= 2.0; t[1] *= 2.0; t[2] *= 2.0;
    v3_cross(ut, u, t);
    double r[3] = {v[0] + q[3] * t[0] + ut[0], v[1] + q[3] * t[1] + ut[1], v[2] + q[3] * t[2] + ut[2]};
    o[0] = r[0]; o[1] = r[1]; o[2] = r[2];
}

static void xf_point(const xf_d *x, const double v[3], double o[3]) {
    q_rotate(x->q, v, o);
    o[0] += x->p[0]; o[1] += x->p[1]; o[2] += x->p[2];
}

static void xf_inv_point(const xf_d *x, const double v[3], double o[3]) {
    double d[3], qc[4] = {-x->q[0], -x->q[1], -x->q[2], x->q[3]};
    v3_sub(d, v, x->p);
    q_rotate(qc, d, o);
}

/* sin and cos by their Taylor series after reduction to [-pi/4, pi/4] by
 * quadrant: libm's are not promised to round the same everywhere, and the
 * field of view feeds every pixel. Accurate to ~1e-16 on that interval. */
static void sincos_own(double x, double *s, double *c) {
    const double pi = 3.14159265358979323846, half_pi = pi / 2.0;
    double k = x / half_pi;
    long n = (long)(k >= 0 ? k + 0.5 : k - 0.5);
    double r = x - (double)n * half_pi;
    double r2 = r * r, ts = r, tc = 1.0, sn = r, cs = 1.0;
    for (int i = 1; i < 12; ++i) {
        ts = -ts * r2 / (double)((2 * i) * (2 * i + 1));
        tc = -tc * r2 / (double)((2 * i - 1) * (2 * i));
        sn += ts;
        cs += tc;
    }
    switch (((n % 4) + 4) % 4) {
    case 0: *s = sn; *c = cs; break;
    case 1: *s = cs; *c = -sn; break;
    case 2: *s = -sn; *c = -cs; break;
    default: *s = -cs; *c = sn; break;
    }
}

static double tan_half_deg(double deg) {
    double s, c;
    sincos_own(deg * (3.14159265358979323846 / 360.0), &s, &c);
    return s / c;
}

/* ---- options, parsing --------------------------------------------------- */

cr_camera_spec cr_default_camera_spec(void) {
    cr_camera_spec c;
    memset(&c, 0, sizeof c);
    v3_set(c.dir, 0.55, 0.45, 1.0);
    v3_normalize(c.dir);
    c.fov_y = 35.0;
    return c;
}

typedef struct named_view {
    const char *name;
    double dir[3];
} named_view;

static const named_view views[] = {
    {"iso", {0.55, 0.45, 1.0}}, {"front", {0, 0.12, 1}}, {"back", {0, 0.12, -1}}, {"right", {1, 0.12, 0}},
    {"left", {-1, 0.12, 0}},    {"top", {0, 1, 0}},      {"side", {1, 0.12, 0}},
};

int cr_camera_spec_parse(const char *text, cr_camera_spec *out, char *err, size_t err_size) {
    cr_camera_spec c = cr_default_camera_spec();
    for (size_t i = 0; i < sizeof views / sizeof views[0]; ++i) {
        size_t n = strlen(views[i].name);
        if (strncmp(text, views[i].name, n) == 0 && (text[n] == 0 || text[n] == ',')) {
            memcpy(c.dir, views[i].dir, sizeof c.dir);
            v3_normalize(c.dir);
            if (text[n] == ',') {
                char *end;
                c.fov_y = strtod(text + n + 1, &end);
                if (*end != 0 || !(c.fov_y >= 1.0 && c.fov_y <= 170.0)) {
                    snprintf(err, err_size, "camera '%s': field of view must be a number of degrees in 1..170", text);
                    return 0;
                }
            }
            *out = c;
            return 1;
        }
    }
    double v[7];
    int n = 0;
    const char *p = text;
    while (*p && n < 8) {
        char *end;
        double d = strtod(p, &end);
        if (end == p || !(d == d) || d > 1e9 || d < -1e9) break;
        if (n < 7) v[n] = d;
        ++n;
        p = end;
        if (*p == ',') ++p;
        else break;
    }
    if (*p != 0 || (n != 3 && n != 6 && n != 7)) {
        snprintf(err, err_size,
                 "camera '%s': expected iso|front|back|left|right|top[,FOV] or EX,EY,EZ[,TX,TY,TZ[,FOV]]", text);
        return 0;
    }
    c.has_eye = 1;
    v3_set(c.eye, v[0], v[1], v[2]);
    if (n >= 6) {
        c.has_target = 1;
        v3_set(c.target, v[3], v[4], v[5]);
        double d[3];
        v3_sub(d, c.eye, c.target);
        if (!(v3_len(d) > 1e-9)) {
            snprintf(err, err_size, "camera '%s': eye and target are the same point", text);
            return 0;
        }
    }
    if (n == 7) {
        c.fov_y = v[6];
        if (!(c.fov_y >= 1.0 && c.fov_y <= 170.0)) {
            snprintf(err, err_size, "camera '%s': field of view must be in 1..170 degrees", text);
            return 0;
        }
    }
    *out = c;
    return 1;
}

static const char *const mode_names[] = {"body", "displacement", "bone", "weights", "sdf"};

int cr_render_mode_parse(const char *text, cr_render_mode *out) {
    for (int i = 0; i < 5; ++i)
        if (strcmp(text, mode_names[i]) == 0) {
            *out = (cr_render_mode)i;
            return 1;
        }
    if (strcmp(text, "dent") == 0) {
        *out = CR_RENDER_DISPLACEMENT;
        return 1;
    }
    return 0;
}

const char *cr_render_mode_name(cr_render_mode m) {
    return (unsigned)m < 5 ? mode_names[m] : "unknown";
}

cr_render_options cr_default_render_options(void) {
    cr_render_options o;
    memset(&o, 0, sizeof o);
    o.width = 480;
    o.height = 360;
    o.mode = CR_RENDER_BODY;
    o.camera = cr_default_camera_spec();
    o.legend = 1;
    o.supersample = 2;
    o.background_top = 0xf4f6f9;
    o.background_bottom = 0xcfd6df;
    return o;
}

int cr_render_size_parse(const char *text, uint32_t *w, uint32_t *h, char *err, size_t err_size) {
    char *end;
    long a = strtol(text, &end, 10);
    if (end == text || (*end != 'x' && *end != 'X')) goto bad;
    const char *q = end + 1;
    long b = strtol(q, &end, 10);
    if (end == q || *end != 0) goto bad;
    if (a < 16 || a > 4096 || b < 16 || b > 4096) {
        snprintf(err, err_size, "size '%s': width and height must be 16..4096 pixels", text);
        return 0;
    }
    *w = (uint32_t)a;
    *h = (uint32_t)b;
    return 1;
bad:
    snprintf(err, err_size, "size '%s': expected WIDTHxHEIGHT, e.g. 640x480", text);
    return 0;
}

/* ---- colours ------------------------------------------------------------ */

/* Tableau 10: distinct at a glance, kind to colour-blind readers. */
static const uint32_t palette[10] = {0x4e79a7, 0xf28e2b, 0xe15759, 0x76b7b2, 0x59a14f,
                                     0xedc948, 0xb07aa1, 0xff9da7, 0x9c755f, 0xbab0ac};

uint32_t cr_render_palette(uint32_t i) { return palette[i % 10]; }

/* Undamaged metal is a neutral grey; deeper dents run through yellow and
 * orange to dark red, the convention of the seeds' dent figures. */
static const uint32_t heat_stops[6] = {0xd5d9e0, 0xfee08b, 0xfdae61, 0xf46d43, 0xd73027, 0x7f0000};

void cr_render_heat(double t, double out[3]) {
    if (!(t > 0.0)) t = 0.0;
    if (t > 1.0) t = 1.0;
    double x = t * 5.0;
    int i = (int)x;
    if (i > 4) i = 4;
    double f = x - (double)i, a[3], b[3];
    cr_raster_decode_rgb(heat_stops[i], a);
    cr_raster_decode_rgb(heat_stops[i + 1], b);
    for (int k = 0; k < 3; ++k) out[k] = a[k] + (b[k] - a[k]) * f;
}

static const uint32_t static_grey = 0x8f99a6, neutral_grey = 0xc8c8c8;
/* seed 001 Figure 8: white vertices are undeformed (weight on the rest example) */
static const uint32_t rest_white = 0xf4f4f4;
static const uint32_t checker_a = 0xe2e2e2, checker_b = 0xc6c8cc;

/* ---- scene building ----------------------------------------------------- */

void cr_render_scene_init(cr_render_scene *s) { memset(s, 0, sizeof *s); }

static void mesh_free(cr_render_mesh *m) {
    arrfree(m->pos);
    arrfree(m->normal);
    arrfree(m->color);
    arrfree(m->disp);
    arrfree(m->tri);
}

void cr_render_scene_free(cr_render_scene *s) {
    for (ptrdiff_t i = 0; i < arrlen(s->meshes); ++i) mesh_free(&s->meshes[i]);
    arrfree(s->meshes);
    arrfree(s->plane_xf);
    arrfree(s->plane_id);
    memset(s, 0, sizeof *s);
}

static void push3(double **arr, const double v[3]) {
    arrput(*arr, v[0]);
    arrput(*arr, v[1]);
    arrput(*arr, v[2]);
}

static void bounds_add(cr_render_scene *s, const double p[3]) {
    if (!s->has_bounds) {
        memcpy(s->bmin, p, sizeof s->bmin);
        memcpy(s->bmax, p, sizeof s->bmax);
        s->has_bounds = 1;
        return;
    }
    for (int k = 0; k < 3; ++k) {
        if (p[k] < s->bmin[k]) s->bmin[k] = p[k];
        if (p[k] > s->bmax[k]) s->bmax[k] = p[k];
    }
}

/* Triangle a,b,c of mesh m, turned to face along `out` (world direction away
 * from the solid), so windings are right whatever order a patch was built in. */
static void push_tri_facing(cr_render_mesh *m, uint32_t a, uint32_t b, uint32_t c, const double out[3]) {
    double e1[3], e2[3], n[3];
    v3_sub(e1, &m->pos[3 * b], &m->pos[3 * a]);
    v3_sub(e2, &m->pos[3 * c], &m->pos[3 * a]);
    v3_cross(n, e1, e2);
    arrput(m->tri, a);
    if (v3_dot(n, out) >= 0.0) {
        arrput(m->tri, b);
        arrput(m->tri, c);
    } else {
        arrput(m->tri, c);
        arrput(m->tri, b);
    }
}

static void mode_color(const cr_render_options *opt, const cr_render_body *b, double tint, double out[3]) {
    uint32_t rgb = b->is_static ? static_grey : cr_render_palette(b->id);
    if (opt->mode == CR_RENDER_BONE) rgb = neutral_grey;
    if (opt->mode == CR_RENDER_WEIGHTS) rgb = b->shape.type == CR_SHAPE_MESH ? rest_white : neutral_grey;
    cr_raster_decode_rgb(rgb, out);
    if (opt->mode == CR_RENDER_BODY)
        for (int k = 0; k < 3; ++k) out[k] *= tint;
}

#define SPHERE_DIVISIONS 10

static void add_sphere(cr_render_scene *s, const cr_render_body *b, const cr_render_options *opt, cr_render_mesh *m) {
    double r = cr_to_double(b->shape.radius);
    xf_d x = xf_from(b->xf);
    for (int face = 0; face < 6; ++face) {
        int a = face >> 1;
        double sign = (face & 1) ? -1.0 : 1.0;
        int bi = (a + 1) % 3, ci = (a + 2) % 3;
        uint32_t base = (uint32_t)(arrlen(m->pos) / 3);
        double col[3];
        mode_color(opt, b, a == 0 ? 0.72 : 1.0, col);
        for (int j = 0; j <= SPHERE_DIVISIONS; ++j)
            for (int i = 0; i <= SPHERE_DIVISIONS; ++i) {
                double c[3] = {0, 0, 0};
                c[a] = sign;
                c[bi] = -1.0 + 2.0 * (double)i / SPHERE_DIVISIONS;
                c[ci] = -1.0 + 2.0 * (double)j / SPHERE_DIVISIONS;
                v3_normalize(c);
                double local[3] = {c[0] * r, c[1] * r, c[2] * r}, w[3], n[3];
                xf_point(&x, local, w);
                q_rotate(x.q, c, n);
                push3(&m->pos, w);
                push3(&m->normal, n);
                push3(&m->color, col);
                if (m->disp) arrput(m->disp, 0.0);
                bounds_add(s, w);
            }
        for (int j = 0; j < SPHERE_DIVISIONS; ++j)
            for (int i = 0; i < SPHERE_DIVISIONS; ++i) {
                uint32_t v00 = base + (uint32_t)(j * (SPHERE_DIVISIONS + 1) + i), v10 = v00 + 1;
                uint32_t v01 = v00 + SPHERE_DIVISIONS + 1, v11 = v01 + 1;
                double out[3];
                memcpy(out, &m->normal[3 * v00], sizeof out);
                push_tri_facing(m, v00, v10, v11, out);
                push_tri_facing(m, v00, v11, v01, out);
            }
    }
}

static void add_box(cr_render_scene *s, const cr_render_body *b, const cr_render_options *opt, cr_render_mesh *m) {
    double h[3] = {cr_to_double(b->shape.half_extents.x), cr_to_double(b->shape.half_extents.y),
                   cr_to_double(b->shape.half_extents.z)};
    xf_d x = xf_from(b->xf);
    for (int face = 0; face < 6; ++face) {
        int a = face >> 1;
        double sign = (face & 1) ? -1.0 : 1.0;
        int bi = (a + 1) % 3, ci = (a + 2) % 3;
        uint32_t base = (uint32_t)(arrlen(m->pos) / 3);
        double nl[3] = {0, 0, 0}, n[3], col[3];
        nl[a] = sign;
        q_rotate(x.q, nl, n);
        mode_color(opt, b, 1.0, col);
        for (int k = 0; k < 4; ++k) {
            double c[3];
            c[a] = sign * h[a];
            c[bi] = (k & 1) ? h[bi] : -h[bi];
            c[ci] = (k & 2) ? h[ci] : -h[ci];
            double w[3];
            xf_point(&x, c, w);
            push3(&m->pos, w);
            push3(&m->normal, n);
            push3(&m->color, col);
            if (m->disp) arrput(m->disp, 0.0);
            bounds_add(s, w);
        }
        push_tri_facing(m, base, base + 1, base + 3, n);
        push_tri_facing(m, base, base + 3, base + 2, n);
    }
}

/* Area-weighted vertex normals of the current (possibly deformed) surface:
 * the asset's cooked normals describe the rest shape, not a dent. */
static void mesh_normals(cr_render_mesh *m, uint32_t base, uint32_t first_tri) {
    uint32_t nv = (uint32_t)(arrlen(m->pos) / 3) - base;
    for (uint32_t i = 0; i < nv; ++i) {
        double z[3] = {0, 0, 0};
        push3(&m->normal, z);
    }
    uint32_t nt = (uint32_t)(arrlen(m->tri) / 3);
    for (uint32_t t = first_tri; t < nt; ++t) {
        uint32_t a = m->tri[3 * t], b = m->tri[3 * t + 1], c = m->tri[3 * t + 2];
        double e1[3], e2[3], n[3];
        v3_sub(e1, &m->pos[3 * b], &m->pos[3 * a]);
        v3_sub(e2, &m->pos[3 * c], &m->pos[3 * a]);
        v3_cross(n, e1, e2);
        for (int k = 0; k < 3; ++k) {
            m->normal[3 * a + (uint32_t)k] += n[k];
            m->normal[3 * b + (uint32_t)k] += n[k];
            m->normal[3 * c + (uint32_t)k] += n[k];
        }
    }
}

static void blend_add(double acc[3], uint32_t rgb, double w) {
    double c[3];
    cr_raster_decode_rgb(rgb, c);
    for (int k = 0; k < 3; ++k) acc[k] += w * c[k];
}

static void add_mesh(cr_render_scene *s, const cr_render_body *b, const cr_render_options *opt, cr_render_mesh *m) {
    const cr_asset *as = b->asset;
    xf_d x = xf_from(b->xf);
    uint32_t base = (uint32_t)(arrlen(m->pos) / 3);
    uint32_t first_tri = (uint32_t)(arrlen(m->tri) / 3);
    for (uint32_t i = 0; i < as->vertex_count; ++i) {
        cr_vec3 pv = b->positions ? b->positions[i] : as->positions[i];
        double local[3] = {cr_to_double(pv.x), cr_to_double(pv.y), cr_to_double(pv.z)}, w[3];
        xf_point(&x, local, w);
        push3(&m->pos, w);
        bounds_add(s, w);
        double col[3] = {0, 0, 0};
        if (opt->mode == CR_RENDER_BONE && as->bone_count > 0) {
            for (uint32_t k = 0; k < CR_ASSET_SKIN_SLOTS; ++k) {
                double wk = cr_to_double(as->skin_weight[CR_ASSET_SKIN_SLOTS * i + k]);
                if (wk > 0.0) blend_add(col, cr_render_palette(as->skin_bone[CR_ASSET_SKIN_SLOTS * i + k]), wk);
            }
        } else if (opt->mode == CR_RENDER_WEIGHTS && b->example_weights && b->example_count > 0) {
            for (uint32_t e = 0; e < b->example_count; ++e) {
                double we = cr_to_double(b->example_weights[(size_t)i * b->example_count + e]);
                if (we > 0.0) blend_add(col, e == 0 ? rest_white : cr_render_palette(e - 1), we);
            }
        } else {
            mode_color(opt, b, 1.0, col);
        }
        push3(&m->color, col);
        if (m->disp) {
            cr_vec3 r = b->rest_positions ? cr_v3_sub(b->rest_positions[i], b->rest_offset) : as->positions[i];
            double d[3] = {local[0] - cr_to_double(r.x), local[1] - cr_to_double(r.y), local[2] - cr_to_double(r.z)};
            double len = v3_len(d);
            arrput(m->disp, len);
            if (len > s->max_displacement) s->max_displacement = len;
        }
    }
    for (uint32_t t = 0; t < as->triangle_count; ++t)
        for (int k = 0; k < 3; ++k) arrput(m->tri, base + as->triangles[3 * t + (uint32_t)k]);
    mesh_normals(m, base, first_tri);
}

int cr_render_scene_add_body(cr_render_scene *s, const cr_render_body *b, const cr_render_options *opt) {
    if (b->shape.type == CR_SHAPE_PLANE) {
        arrput(s->plane_xf, b->xf);
        arrput(s->plane_id, b->id);
        s->finished = 0;
        return 1;
    }
    if (b->shape.type == CR_SHAPE_MESH && b->asset == NULL) {
        s->missing_assets++;
        return 1;
    }
    cr_render_mesh m;
    memset(&m, 0, sizeof m);
    m.id = b->id;
    if (opt->mode == CR_RENDER_DISPLACEMENT) arrsetcap(m.disp, 16);
    switch (b->shape.type) {
    case CR_SHAPE_SPHERE: add_sphere(s, b, opt, &m); break;
    case CR_SHAPE_BOX: add_box(s, b, opt, &m); break;
    case CR_SHAPE_MESH: add_mesh(s, b, opt, &m); break;
    default: break;
    }
    arrput(s->meshes, m);
    return 1;
}

/* A round tile size near `want` (1, 2 or 5 times a power of ten), so the
 * floor reads as a ruler. */
static double nice_step(double want) {
    double p = 1e-3;
    while (p * 10.0 <= want && p < 1e6) p *= 10.0;
    if (p * 5.0 <= want) return p * 5.0;
    if (p * 2.0 <= want) return p * 2.0;
    return p;
}

static double floor_d(double v) {
    double t = (double)(long long)v;
    return t > v ? t - 1.0 : t;
}

int cr_render_scene_finish(cr_render_scene *s) {
    if (s->finished) return 1;
    s->finished = 1;
    if (arrlen(s->plane_xf) == 0) return 1;
    if (!s->ground_fixed) {
        double c[3] = {0, 0, 0}, radius = 1.0;
        if (s->has_bounds) {
            double d[3];
            for (int k = 0; k < 3; ++k) c[k] = 0.5 * (s->bmin[k] + s->bmax[k]);
            v3_sub(d, s->bmax, s->bmin);
            radius = 0.5 * v3_len(d);
        }
        memcpy(s->ground_center, c, sizeof c);
        s->ground_half = 1.6 * radius + 0.5;
    }
    double half = s->ground_half;
    double tile = nice_step(half / 4.0);
    int tiles = (int)(2.0 * half / tile) + 1;
    if (tiles > 64) tiles = 64;
    for (ptrdiff_t pi = 0; pi < arrlen(s->plane_xf); ++pi) {
        xf_d x = xf_from(s->plane_xf[pi]);
        double lc[3], up[3], yl[3] = {0, 1, 0};
        xf_inv_point(&x, s->ground_center, lc);
        q_rotate(x.q, yl, up);
        /* snap the quad to whole tiles of the plane's own grid so the checker stays put */
        double x0 = (floor_d(lc[0] / tile) - (double)(tiles / 2)) * tile;
        double z0 = (floor_d(lc[2] / tile) - (double)(tiles / 2)) * tile;
        cr_render_mesh m;
        memset(&m, 0, sizeof m);
        m.id = s->plane_id[pi];
        m.ground = 1;
        for (int j = 0; j < tiles; ++j)
            for (int i = 0; i < tiles; ++i) {
                uint32_t base = (uint32_t)(arrlen(m.pos) / 3);
                long long gi = (long long)floor_d(x0 / tile + 0.5) + i, gj = (long long)floor_d(z0 / tile + 0.5) + j;
                double col[3];
                cr_raster_decode_rgb(((gi + gj) & 1) ? checker_a : checker_b, col);
                for (int k = 0; k < 4; ++k) {
                    double l[3] = {x0 + tile * (double)(i + (k & 1)), 0.0, z0 + tile * (double)(j + (k >> 1))}, w[3];
                    xf_point(&x, l, w);
                    push3(&m.pos, w);
                    push3(&m.normal, up);
                    push3(&m.color, col);
                }
                push_tri_facing(&m, base, base + 1, base + 3, up);
                push_tri_facing(&m, base, base + 3, base + 2, up);
            }
        arrput(s->meshes, m);
    }
    return 1;
}

/* Soft (mass-spring) bodies: the deformed surface, the asset's triangles over
 * the particles' world positions (an identity frame). Palette colours go on
 * after the rigid bodies'; displacement is not defined for a body without a
 * rigid frame, so it draws as rest (zero). */
static int add_soft_bodies(cr_render_scene *s, const cr_world *world, const cr_asset *const *assets, uint32_t asset_count,
                           uint32_t first_colour, const cr_render_options *opt) {
    uint32_t n = cr_world_get_soft_ids(world, NULL, 0);
    if (n == 0) return 1;
    cr_soft_id *ids = (cr_soft_id *)malloc(sizeof(cr_soft_id) * n);
    if (ids == NULL) return 0;
    n = cr_world_get_soft_ids(world, ids, n);
    int ok = 1;
    for (uint32_t i = 0; i < n && ok; ++i) {
        uint32_t slot = cr_soft_get_asset(world, ids[i]);
        const cr_asset *a = assets ? (slot < asset_count ? assets[slot] : NULL) : cr_world_get_asset(world, slot);
        cr_render_body b;
        memset(&b, 0, sizeof b);
        b.id = first_colour + ids[i].index1 - 1;
        b.shape.type = CR_SHAPE_MESH;
        b.shape.asset = slot;
        b.xf.q = cr_quat_identity();
        b.asset = a;
        cr_vec3 *pos = a ? (cr_vec3 *)malloc(sizeof(cr_vec3) * a->vertex_count) : NULL;
        if (a != NULL && pos == NULL) ok = 0;
        else if (a != NULL && cr_soft_get_positions(world, ids[i], pos, a->vertex_count) == a->vertex_count) {
            b.positions = pos;
            b.rest_positions = pos;
            ok = cr_render_scene_add_body(s, &b, opt);
        } else {
            s->missing_assets++;
        }
        free(pos);
    }
    free(ids);
    return ok;
}

int cr_render_scene_add_world(cr_render_scene *s, const cr_world *world, const cr_asset *const *assets,
                              uint32_t asset_count, const cr_render_options *opt) {
    uint32_t n = cr_world_get_body_ids(world, NULL, 0);
    cr_body_id *ids = (cr_body_id *)malloc(sizeof(cr_body_id) * (n ? n : 1));
    if (ids == NULL) return 0;
    n = cr_world_get_body_ids(world, ids, n);
    for (uint32_t i = 0; i < n; ++i) {
        if (cr_bend_is_sub_body(world, ids[i])) continue; /* the bendable body draws its skinned mesh for them */
        cr_render_body b;
        memset(&b, 0, sizeof b);
        b.id = ids[i].index1 - 1;
        b.shape = cr_body_get_shape(world, ids[i]);
        b.is_static = cr_body_get_type(world, ids[i]) == CR_BODY_STATIC;
        b.xf = cr_body_get_transform(world, ids[i]);
        if (b.shape.type == CR_SHAPE_MESH) {
            if (assets) b.asset = b.shape.asset < asset_count ? assets[b.shape.asset] : NULL;
            else b.asset = cr_world_get_asset(world, b.shape.asset);
            /* a dentable body's surface is its own dented copy, not the asset's */
            cr_body_mesh bm;
            if (b.asset && cr_body_get_mesh(world, ids[i], &bm) == CR_OK && bm.vertex_count == b.asset->vertex_count &&
                bm.triangle_count == b.asset->triangle_count) {
                b.positions = bm.positions;
                b.rest_positions = bm.rest_positions;
                b.rest_offset = bm.rest_offset;
            }
            /* a plastic body's example weights, for the weights mode (seed 001 Figure 8) */
            cr_example_view ev;
            if (b.asset && cr_example_get(world, ids[i], &ev) == CR_OK && ev.vertex_count == b.asset->vertex_count) {
                b.example_weights = ev.weights;
                b.example_count = ev.example_count;
            }
        }
        if (!cr_render_scene_add_body(s, &b, opt)) {
            free(ids);
            return 0;
        }
    }
    free(ids);
    if (!add_soft_bodies(s, world, assets, asset_count, n, opt)) return 0;
    return cr_render_scene_finish(s);
}

int cr_render_pose_asset(const cr_asset *asset, uint32_t example, cr_vec3 **out) {
    *out = NULL;
    if (example != 0 && (asset->bone_count == 0 || example >= asset->example_count)) return 0;
    arrsetlen(*out, asset->vertex_count);
    for (uint32_t i = 0; i < asset->vertex_count; ++i) {
        if (example == 0) {
            (*out)[i] = asset->positions[i];
            continue;
        }
        /* linear blend skinning with the example's bone transforms (seed 001) */
        cr_vec3 p = asset->positions[i], acc = cr_v3_zero();
        for (uint32_t k = 0; k < CR_ASSET_SKIN_SLOTS; ++k) {
            cr_real w = asset->skin_weight[CR_ASSET_SKIN_SLOTS * i + k];
            if (w <= 0) continue;
            uint32_t bone = asset->skin_bone[CR_ASSET_SKIN_SLOTS * i + k];
            cr_transform t = asset->examples[(size_t)example * asset->bone_count + bone];
            acc = cr_v3_add(acc, cr_v3_scale(cr_transform_point(t, p), w));
        }
        (*out)[i] = acc;
    }
    return 1;
}

/* ---- camera and drawing ------------------------------------------------- */

typedef struct view {
    double eye[3], r[3], u[3], f[3]; /* right, up, forward (towards the target) */
    double focal;                    /* pixels per unit of x/z */
    double cx, cy;                   /* image centre, pixels */
    double near_z;                   /* m */
} view;

static void view_from(const cr_camera *cam, uint32_t width, uint32_t height, view *v) {
    memcpy(v->eye, cam->eye, sizeof v->eye);
    v3_sub(v->f, cam->target, cam->eye);
    double dist = v3_len(v->f);
    if (!v3_normalize(v->f)) v3_set(v->f, 0, 0, -1);
    v3_cross(v->r, v->f, cam->up);
    if (!v3_normalize(v->r)) {
        /* looking along up: any right vector will do, pick one from the z axis */
        double alt[3] = {0, 0, -1};
        v3_cross(v->r, v->f, alt);
        if (!v3_normalize(v->r)) v3_set(v->r, 1, 0, 0);
    }
    v3_cross(v->u, v->r, v->f);
    v->focal = 0.5 * (double)height / tan_half_deg(cam->fov_y);
    v->cx = 0.5 * (double)width;
    v->cy = 0.5 * (double)height;
    v->near_z = dist * 0.01 > 1e-4 ? dist * 0.01 : 1e-4;
}

cr_camera cr_render_fit_camera(const cr_camera_spec *spec, const cr_render_scene *s, uint32_t width, uint32_t height) {
    double bmin[3] = {-0.5, -0.5, -0.5}, bmax[3] = {0.5, 0.5, 0.5};
    if (s && s->has_bounds) {
        memcpy(bmin, s->bmin, sizeof bmin);
        memcpy(bmax, s->bmax, sizeof bmax);
    }
    double c[3], d[3];
    for (int k = 0; k < 3; ++k) c[k] = 0.5 * (bmin[k] + bmax[k]);
    v3_sub(d, bmax, bmin);
    double radius = 0.5 * v3_len(d);
    if (radius < 0.05) radius = 0.05;
    cr_camera cam;
    memset(&cam, 0, sizeof cam);
    cam.fov_y = spec->fov_y >= 1.0 && spec->fov_y <= 170.0 ? spec->fov_y : 35.0;
    v3_set(cam.up, 0, 1, 0);
    if (spec->has_target) memcpy(cam.target, spec->target, sizeof cam.target);
    else memcpy(cam.target, c, sizeof c);
    if (spec->has_eye) {
        memcpy(cam.eye, spec->eye, sizeof cam.eye);
    } else {
        /* Just far enough that all eight corners of the bounding box fit, with
         * an 8% border: corner c (relative to the target) at view offsets
         * x, y and depth offset z needs |x| <= tan_x (d + z), same for y. */
        double ty = tan_half_deg(cam.fov_y) * 0.92;
        double tx = ty * (double)width / (double)height;
        double dir[3], f[3], r[3], u[3], up[3] = {0, 1, 0};
        memcpy(dir, spec->dir, sizeof dir);
        if (!v3_normalize(dir)) v3_set(dir, 0, 0, 1);
        v3_set(f, -dir[0], -dir[1], -dir[2]);
        v3_cross(r, f, up);
        if (!v3_normalize(r)) {
            v3_set(up, 0, 0, -1);
            v3_cross(r, f, up);
            v3_normalize(r);
        }
        v3_cross(u, r, f);
        double dist = radius * 0.2;
        for (int k = 0; k < 8; ++k) {
            double c[3] = {((k & 1) ? bmax[0] : bmin[0]) - cam.target[0], ((k & 2) ? bmax[1] : bmin[1]) - cam.target[1],
                           ((k & 4) ? bmax[2] : bmin[2]) - cam.target[2]};
            double x = v3_dot(c, r), y = v3_dot(c, u), z = v3_dot(c, f);
            double need_x = (x < 0 ? -x : x) / tx - z, need_y = (y < 0 ? -y : y) / ty - z;
            double need_z = radius * 0.2 - z; /* every corner well in front of the eye */
            if (need_x > dist) dist = need_x;
            if (need_y > dist) dist = need_y;
            if (need_z > dist) dist = need_z;
        }
        for (int k = 0; k < 3; ++k) cam.eye[k] = cam.target[k] + dir[k] * dist;
    }
    double f[3], r[3];
    v3_sub(f, cam.target, cam.eye);
    v3_cross(r, f, cam.up);
    if (!(v3_len(r) > 1e-9 * (v3_len(f) + 1e-30))) v3_set(cam.up, 0, 0, -1); /* top view: screen up is -z */
    return cam;
}

int cr_render_project(const cr_camera *cam, uint32_t width, uint32_t height, const double p[3], double *px,
                      double *py, double *depth) {
    view v;
    view_from(cam, width, height, &v);
    double d[3];
    v3_sub(d, p, v.eye);
    double z = v3_dot(d, v.f);
    if (!(z > 0.0)) return 0;
    *px = v.cx + v.focal * v3_dot(d, v.r) / z;
    *py = v.cy - v.focal * v3_dot(d, v.u) / z;
    *depth = z;
    return 1;
}

/* a vertex in view space with what it carries, for near-plane clipping */
typedef struct clip_vertex {
    double p[3]; /* x right, y up, z forward, m */
    double n[3], c[3];
} clip_vertex;

static void emit(cr_raster *r, const view *v, const clip_vertex *a, const clip_vertex *b, const clip_vertex *c) {
    const clip_vertex *cv[3] = {a, b, c};
    cr_raster_vertex rv[3];
    for (int i = 0; i < 3; ++i) {
        double iz = 1.0 / cv[i]->p[2];
        rv[i].x = v->cx + v->focal * cv[i]->p[0] * iz;
        rv[i].y = v->cy - v->focal * cv[i]->p[1] * iz;
        rv[i].inv_w = iz;
        memcpy(rv[i].n, cv[i]->n, sizeof rv[i].n);
        memcpy(rv[i].c, cv[i]->c, sizeof rv[i].c);
    }
    cr_raster_triangle(r, rv);
}

static void lerp_cv(const clip_vertex *a, const clip_vertex *b, double t, clip_vertex *o) {
    for (int k = 0; k < 3; ++k) {
        o->p[k] = a->p[k] + (b->p[k] - a->p[k]) * t;
        o->n[k] = a->n[k] + (b->n[k] - a->n[k]) * t;
        o->c[k] = a->c[k] + (b->c[k] - a->c[k]) * t;
    }
}

/* Clip a triangle to z >= near (Sutherland-Hodgman against one plane) and draw it. */
static void clip_and_draw(cr_raster *r, const view *v, const clip_vertex t[3]) {
    int inside = 0;
    for (int i = 0; i < 3; ++i) inside += t[i].p[2] >= v->near_z;
    if (inside == 3) {
        emit(r, v, &t[0], &t[1], &t[2]);
        return;
    }
    if (inside == 0) return;
    clip_vertex poly[4];
    int n = 0;
    for (int i = 0; i < 3; ++i) {
        const clip_vertex *a = &t[i], *b = &t[(i + 1) % 3];
        int ain = a->p[2] >= v->near_z, bin = b->p[2] >= v->near_z;
        if (ain) poly[n++] = *a;
        if (ain != bin) lerp_cv(a, b, (v->near_z - a->p[2]) / (b->p[2] - a->p[2]), &poly[n++]);
    }
    for (int i = 1; i + 1 < n; ++i) emit(r, v, &poly[0], &poly[i], &poly[i + 1]);
}

static void fmt_length(char *buf, size_t n, double m) {
    if (m < 0.01) snprintf(buf, n, "%.2f MM", m * 1000.0);
    else if (m < 0.1) snprintf(buf, n, "%.1f MM", m * 1000.0);
    else snprintf(buf, n, "%.3f M", m);
}

/* 3x5 glyphs need at least 2 pixels per dot to be read at a glance */
static int text_scale(uint32_t height) { return height >= 720 ? 3 : height >= 240 ? 2 : 1; }

static void draw_heat_legend(cr_image *img, double range) {
    int s = text_scale(img->height);
    int bw = (int)img->width / 3, bh = 5 * s + 2;
    int x0 = (int)img->width - bw - 8 * s, y0 = (int)img->height - bh - 10 * s - 6;
    for (int i = 0; i < bw; ++i) {
        double c[3];
        cr_render_heat((double)i / (double)(bw - 1), c);
        uint32_t rgb = ((uint32_t)cr_raster_encode(c[0]) << 16) | ((uint32_t)cr_raster_encode(c[1]) << 8) |
                       cr_raster_encode(c[2]);
        cr_image_fill_rect(img, x0 + i, y0, 1, bh, rgb);
    }
    char hi[48];
    fmt_length(hi, sizeof hi, range);
    int ty = y0 + bh + 3;
    cr_image_text(img, x0, ty, "0", s, 0x303030);
    cr_image_text(img, x0 + bw - cr_image_text_width(hi, s), ty, hi, s, 0x303030);
    cr_image_text(img, x0, y0 - 5 * s - 3, "DISPLACEMENT", s, 0x303030);
}

static void draw_mesh(cr_raster *r, const view *v, const cr_render_mesh *m, const cr_render_options *opt,
                      double range) {
    r->wireframe = opt->wireframe && !m->ground;
    ptrdiff_t nt = arrlen(m->tri) / 3;
    for (ptrdiff_t t = 0; t < nt; ++t) {
        clip_vertex cv[3];
        for (int i = 0; i < 3; ++i) {
            uint32_t vi = m->tri[3 * t + i];
            double d[3];
            v3_sub(d, &m->pos[3 * vi], v->eye);
            v3_set(cv[i].p, v3_dot(d, v->r), v3_dot(d, v->u), v3_dot(d, v->f));
            memcpy(cv[i].n, &m->normal[3 * vi], sizeof cv[i].n);
            if (opt->mode == CR_RENDER_DISPLACEMENT && m->disp)
                cr_render_heat(range > 0.0 ? m->disp[vi] / range : 0.0, cv[i].c);
            else
                memcpy(cv[i].c, &m->color[3 * vi], sizeof cv[i].c);
        }
        clip_and_draw(r, v, cv);
    }
}

void cr_render_label(cr_image *img, const char *label) {
    if (label == NULL || label[0] == 0) return;
    int ts = text_scale(img->height);
    /* a pale backing keeps dark text readable over dark floors and bodies */
    int x0 = 4 * ts, y0 = 4 * ts, x1 = x0 + cr_image_text_width(label, ts) + 4 * ts, y1 = y0 + 9 * ts;
    for (int y = y0; y < y1 && y < (int)img->height; ++y)
        for (int x = x0; x < x1 && x < (int)img->width; ++x) {
            uint8_t *p = img->rgb + ((size_t)y * img->width + (size_t)x) * 3;
            for (int k = 0; k < 3; ++k) p[k] = (uint8_t)((p[k] * 2u + 255u * 3u + 2u) / 5u);
        }
    cr_image_text(img, 6 * ts, 6 * ts, label, ts, 0x202020);
}

int cr_render_draw(const cr_render_scene *s, const cr_camera *cam, const cr_render_options *opt, cr_image *out) {
    /* Supersampling: draw at ss times the size, then average ss x ss blocks.
     * Edges and the far checker stop crawling, at ss^2 times the fill cost. */
    uint32_t ss = opt->supersample > 1 ? (uint32_t)opt->supersample : 1;
    if (ss > 4) ss = 4;
    uint32_t w = opt->width * ss, h = opt->height * ss;
    cr_raster r;
    if (!cr_raster_init(&r, w, h, opt->background_top)) return 0;
    /* the background gradient gives depth without distracting */
    double top[3], bottom[3];
    cr_raster_decode_rgb(opt->background_top, top);
    cr_raster_decode_rgb(opt->background_bottom, bottom);
    for (uint32_t y = 0; y < h; ++y) {
        double t = h > 1 ? (double)y / (double)(h - 1) : 0.0;
        uint32_t rgb = 0;
        for (int k = 0; k < 3; ++k) rgb = (rgb << 8) | cr_raster_encode(top[k] + (bottom[k] - top[k]) * t);
        cr_image_fill_rect(&r.image, 0, (int)y, (int)w, 1, rgb);
    }
    view v;
    view_from(cam, w, h, &v);
    /* key light from over the viewer's left shoulder, fixed to the camera so every view is lit */
    for (int k = 0; k < 3; ++k) r.light[k] = -0.45 * v.r[k] + 0.8 * v.u[k] - 0.5 * v.f[k];
    v3_normalize(r.light);
    r.wire_width *= (double)ss;
    double range = opt->range > 0.0 ? opt->range : s->max_displacement;
    /* the floor first: it is behind everything, so the bodies then overwrite it cheaply */
    for (int pass = 0; pass < 2; ++pass)
        for (ptrdiff_t mi = 0; mi < arrlen(s->meshes); ++mi)
            if (s->meshes[mi].ground == (pass == 0)) draw_mesh(&r, &v, &s->meshes[mi], opt, range);
    if (ss > 1) {
        cr_image small;
        int ok = cr_image_downscale(&small, &r.image, ss);
        cr_raster_free(&r);
        if (!ok) return 0;
        r.image = small;
    } else {
        free(r.depth);
    }
    /* text last, at the final size, so it stays sharp */
    if (opt->legend) {
        if (opt->mode == CR_RENDER_DISPLACEMENT) draw_heat_legend(&r.image, range);
        cr_render_label(&r.image, opt->label);
    }
    *out = r.image;
    return 1;
}

/* ---- SDF slice ---------------------------------------------------------- */

int cr_render_sdf_slice(const cr_asset *asset, int axis, double value, const cr_render_options *opt, cr_image *out) {
    if (asset == NULL || asset->sdf == NULL || axis < 0 || axis > 2) return 0;
    if (!cr_image_init(out, opt->width, opt->height, opt->background_bottom)) return 0;
    int ua = (axis + 1) % 3, va = (axis + 2) % 3;
    if (axis == 1) { ua = 0; va = 2; } /* a y slice reads as a floor plan: x right, z down */
    double origin[3] = {cr_to_double(asset->sdf_origin.x), cr_to_double(asset->sdf_origin.y),
                        cr_to_double(asset->sdf_origin.z)};
    double cell = cr_to_double(asset->sdf_cell);
    double lo[3], hi[3];
    for (int k = 0; k < 3; ++k) {
        lo[k] = origin[k];
        hi[k] = origin[k] + cell * (double)(asset->sdf_dims[k] - 1);
    }
    /* the grid plus a margin of 8% on each side, fitted to the image keeping squares square */
    double eu = hi[ua] - lo[ua], ev = hi[va] - lo[va];
    double mu = 0.08 * (eu > ev ? eu : ev);
    double span_u = eu + 2 * mu, span_v = ev + 2 * mu;
    double scale = span_u / (double)opt->width > span_v / (double)opt->height ? span_u / (double)opt->width
                                                                              : span_v / (double)opt->height;
    double cu = 0.5 * (lo[ua] + hi[ua]), cv = 0.5 * (lo[va] + hi[va]);
    double spacing = nice_step((eu > ev ? eu : ev) / 12.0);
    double inside_c[3], outside_c[3];
    cr_raster_decode_rgb(0x3b6fb6, inside_c);
    cr_raster_decode_rgb(0xe8954a, outside_c);
    for (uint32_t y = 0; y < opt->height; ++y)
        for (uint32_t x = 0; x < opt->width; ++x) {
            double pu = cu + ((double)x + 0.5 - 0.5 * (double)opt->width) * scale;
            double pv = cv + ((double)y + 0.5 - 0.5 * (double)opt->height) * scale;
            if (axis != 1) pv = cv - ((double)y + 0.5 - 0.5 * (double)opt->height) * scale; /* up is up */
            double p[3];
            p[axis] = value;
            p[ua] = pu;
            p[va] = pv;
            cr_vec3 pl = cr_v3(cr_from_float((float)p[0]), cr_from_float((float)p[1]), cr_from_float((float)p[2]));
            double d = cr_to_double(cr_asset_sdf(asset, pl, NULL));
            double ad = d < 0 ? -d : d;
            const double *base = d < 0 ? inside_c : outside_c;
            /* brighter near the surface, darker far away; a one-pixel contour line
             * every `spacing` metres of distance, like the rings of a height map */
            double fade = 1.0 / (1.0 + ad / (6.0 * cell));
            double k = 0.35 + 0.65 * fade;
            double band = ad / spacing - floor_d(ad / spacing);
            if (band * spacing < scale) k *= 0.72;
            double c[3] = {base[0] * k, base[1] * k, base[2] * k};
            if (ad < 1.2 * scale) c[0] = c[1] = c[2] = 1.0; /* the surface itself */
            int in_grid = pu >= lo[ua] && pu <= hi[ua] && pv >= lo[va] && pv <= hi[va];
            if (!in_grid)
                for (int q = 0; q < 3; ++q) c[q] = 0.55 * c[q] + 0.45 * 0.6; /* outside the grid: extrapolated, greyed */
            uint8_t *px = out->rgb + ((size_t)y * opt->width + x) * 3;
            for (int q = 0; q < 3; ++q) px[q] = cr_raster_encode(c[q]);
        }
    if (opt->legend) {
        int ts = text_scale(opt->height);
        char text[160], len[48], lines[48];
        const char *names = "XYZ";
        fmt_length(len, sizeof len, cell);
        fmt_length(lines, sizeof lines, spacing);
        snprintf(text, sizeof text, "SDF %c=%.3f M  CELL %s  LINES %s", names[axis], value, len, lines);
        cr_image_text(out, 6 * ts, 6 * ts, opt->label[0] ? opt->label : text, ts, 0x101010);
    }
    return 1;
}

/* ---- asset files ------------------------------------------------------- */

int cr_render_load_asset(const char *path, cr_render_asset_file *out, char *err, size_t err_size) {
    memset(out, 0, sizeof *out);
    crp_status st = crp_read_file(path, &out->bytes, &out->size);
    if (st != CRP_OK) {
        snprintf(err, err_size, "%s: %s", path, crp_status_message(st));
        return 0;
    }
    size_t need = cr_asset_memory_size(out->bytes, out->size);
    if (need == 0) need = CR_BLOCK_ALIGN; /* not an asset: the load call below says why */
    need = (need + CR_BLOCK_ALIGN - 1) / CR_BLOCK_ALIGN * CR_BLOCK_ALIGN;
    out->block = aligned_alloc(CR_BLOCK_ALIGN, need);
    if (out->block == NULL) {
        snprintf(err, err_size, "%s: out of memory (%zu bytes for the asset view)", path, need);
        cr_render_free_asset(out);
        return 0;
    }
    cr_asset_error ae;
    if (cr_asset_load(out->bytes, out->size, out->block, need, &out->asset, &ae) != CR_OK) {
        snprintf(err, err_size, "%s: not a valid cooked asset: %s (%s, section '%s', index %u)", path,
                 cr_asset_check_message(ae.check), cr_asset_check_name(ae.check), ae.section_tag, ae.index);
        cr_render_free_asset(out);
        return 0;
    }
    return 1;
}

void cr_render_free_asset(cr_render_asset_file *f) {
    crp_free(f->bytes);
    free(f->block);
    memset(f, 0, sizeof *f);
}

/* ---- contact sheet ------------------------------------------------------ */

int cr_render_contact_sheet(const cr_image *frames, const char *const *captions, uint32_t count, uint32_t factor,
                            cr_image *out) {
    if (count == 0 || factor == 0) return 0;
    uint32_t cols = 1;
    while (cols * cols < count) ++cols;
    uint32_t rows = (count + cols - 1) / cols;
    uint32_t tw = frames[0].width / factor, th = frames[0].height / factor;
    if (tw == 0 || th == 0) return 0;
    int ts = th >= 240 ? 2 : 1;
    uint32_t cap_h = captions ? (uint32_t)(5 * ts + 6) : 0, gap = 4;
    uint32_t w = cols * tw + (cols + 1) * gap, h = rows * (th + cap_h) + (rows + 1) * gap;
    if (!cr_image_init(out, w, h, 0xffffff)) return 0;
    for (uint32_t i = 0; i < count; ++i) {
        int x = (int)(gap + (i % cols) * (tw + gap)), y = (int)(gap + (i / cols) * (th + cap_h + gap));
        cr_image small;
        const cr_image *src = &frames[i];
        if (factor > 1) {
            if (!cr_image_downscale(&small, &frames[i], factor)) {
                cr_image_free(out);
                return 0;
            }
            src = &small;
        }
        cr_image_blit(out, src, x, y);
        if (factor > 1) cr_image_free(&small);
        if (captions && captions[i]) cr_image_text(out, x + 2, y + (int)th + 3, captions[i], ts, 0x202020);
    }
    return 1;
}
