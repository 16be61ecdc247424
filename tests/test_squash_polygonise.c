/* test_squash_polygonise.c — the cooker's general mesher of a skeleton's
 * rest surface (tools/squash_polygonise.c) on skins a star mesher cannot
 * do: a U, a ring (a torus), two blobs on a bar, next to a peanut, a slab
 * and a ball. Each mesh is checked by this file's own counting, not by the
 * mesher's check: every edge in two triangles, once each way (closed and
 * consistently turned), every triangle facing along -grad f; the Euler characteristic of the expected genus;
 * positive volume close to the implicit volume counted on a fine grid;
 * every vertex on f = c; the smallest angle above the bound docs/squash.md
 * gives; and the same bytes when cooked twice. */
#include "test_cook_util.h"
#include "geometry/implicit_skeleton.h"
#include "../tools/cook_squash.h"
#include "../tools/squash_polygonise.h"
#include <math.h>
#include <string.h>

static int write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    if (f == NULL) return -1;
    fputs(text, f);
    return fclose(f);
}

typedef struct shape {
    const char *name, *text;
    int genus;
} shape;

static const shape shapes[] = {
    {"u", "# a U: three segments, the inside of the U is outside the skin\n"
          "segment -0.6 0.8 0  -0.6 0 0  0.45\nsegment -0.6 0 0  0.6 0 0  0.45\nsegment 0.6 0 0  0.6 0.8 0  0.45\n"
          "mesh 40\n",
     0},
    {"ring", "# a ring of eight segments: a torus\nisovalue 0.5\n"
             "segment 1 0 0  0.7071 0 0.7071  0.4\nsegment 0.7071 0 0.7071  0 0 1  0.4\n"
             "segment 0 0 1  -0.7071 0 0.7071  0.4\nsegment -0.7071 0 0.7071  -1 0 0  0.4\n"
             "segment -1 0 0  -0.7071 0 -0.7071  0.4\nsegment -0.7071 0 -0.7071  0 0 -1  0.4\n"
             "segment 0 0 -1  0.7071 0 -0.7071  0.4\nsegment 0.7071 0 -0.7071  1 0 0  0.4\nmesh 48\n",
     1},
    {"dumbbell", "# two blobs on a thin bar: the bar's waist is a saddle of the sum\n"
                 "point -0.7 0 0 0.7\npoint 0.7 0 0 0.6 1.2\nsegment -0.7 0 0  0.7 0 0  0.3\nmesh 44\n",
     0},
    {"peanut", "isovalue 0.45\npoint -0.3 0 0 0.8\npoint 0.3 0.05 0 0.75 1.1\nsegment 0.3 0 0  0.8 0 0.1  0.4\nmesh 24\n", 0},
    {"slab", "rect 0 0 0   1 0 0   0 0 0.6   0.5\nmesh 36\n", 0},
    {"ball", "point 0.1 -0.2 0.3 0.9\nmesh 16\n", 0},
};

static double signed_volume(const cr_obj *o) {
    double v = 0;
    for (uint32_t t = 0; t < o->triangle_count; ++t) {
        const double *a = &o->pos[3 * o->tri[3 * t]], *b = &o->pos[3 * o->tri[3 * t + 1]], *c = &o->pos[3 * o->tri[3 * t + 2]];
        v += (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) + a[2] * (b[0] * c[1] - b[1] * c[0])) / 6;
    }
    return v;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* 0 when every directed edge appears once and its reverse once; the count of undirected edges in *edges */
static int count_edges(const cr_obj *o, uint32_t *edges) {
    size_t n = 3 * (size_t)o->triangle_count;
    uint64_t *e = malloc(n * sizeof *e);
    if (e == NULL) return -1;
    for (uint32_t t = 0; t < o->triangle_count; ++t)
        for (int k = 0; k < 3; ++k) e[3 * t + k] = (uint64_t)o->tri[3 * t + k] << 32 | o->tri[3 * t + (k + 1) % 3];
    qsort(e, n, sizeof *e, cmp_u64);
    int bad = 0;
    for (size_t i = 0; i < n; ++i) {
        if (i + 1 < n && e[i] == e[i + 1]) ++bad;
        uint64_t rev = (e[i] & 0xffffffffu) << 32 | e[i] >> 32;
        if (bsearch(&rev, e, n, sizeof *e, cmp_u64) == NULL) ++bad;
    }
    free(e);
    *edges = (uint32_t)(n / 2);
    return bad;
}

/* The implicit volume: grid points with f >= c, counted at the centres of a
 * fine grid over the mesh's box grown by 5 %. */
static double implicit_volume(const cr_squash_primitive *p, uint32_t np, cr_real c, const double lo[3], const double hi[3]) {
    const int n = 96;
    double l[3], h[3];
    for (int k = 0; k < 3; ++k) {
        double m = 0.05 * (hi[k] - lo[k]);
        l[k] = lo[k] - m, h[k] = (hi[k] - lo[k] + 2 * m) / n;
    }
    long inside = 0;
    for (int k = 0; k < n; ++k)
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i) {
                cr_vec3 x = cr_v3(cr_from_float((float)(l[0] + (i + 0.5) * h[0])), cr_from_float((float)(l[1] + (j + 0.5) * h[1])),
                                  cr_from_float((float)(l[2] + (k + 0.5) * h[2])));
                inside += cri_skeleton_value(p, np, x) >= c;
            }
    return (double)inside * h[0] * h[1] * h[2];
}

/* The smallest angle (degrees) of the mesh's triangles. */
static double smallest_angle(const cr_obj *o) {
    double worst = 180;
    for (uint32_t t = 0; t < o->triangle_count; ++t)
        for (int k = 0; k < 3; ++k) {
            const double *a = &o->pos[3 * o->tri[3 * t + k]], *b = &o->pos[3 * o->tri[3 * t + (k + 1) % 3]],
                         *c = &o->pos[3 * o->tri[3 * t + (k + 2) % 3]];
            double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
            double d = u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
            double lu = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]), lv = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
            double ang = acos(fmax(-1, fmin(1, d / (lu * lv)))) * 180 / TC_PI;
            if (ang < worst) worst = ang;
        }
    return worst;
}

CR_TEST(squash_polygonise_closed_outward_on_surface_for_any_shape) {
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s) {
        char path[128];
        snprintf(path, sizeof path, "build/test_squash_poly_%s.skel", shapes[s].name);
        ENSURE(write_text(path, shapes[s].text) == 0);
        cr_cook_squash sq;
        char err[512];
        ENSURE_MSG(cr_cook_squash_read(path, &sq, err, sizeof err) == 0, "%s", err);
        ENSURE(sq.mesher == CR_COOK_MESHER_GRID);
        cr_obj o;
        ENSURE_MSG(cr_cook_squash_obj(&sq, &o, err, sizeof err) == 0, "%s: %s", shapes[s].name, err);
        uint32_t edges = 0;
        int bad = count_edges(&o, &edges);
        int euler = (int)o.vertex_count - (int)edges + (int)o.triangle_count;
        cr_squash_primitive *p = malloc(sq.count * sizeof *p);
        ENSURE(p != NULL);
        cr_cook_squash_runtime(&sq, p);
        cr_real c = cr_from_float((float)sq.isovalue);
        double lo[3] = {1e30, 1e30, 1e30}, hi[3] = {-1e30, -1e30, -1e30}, off = 0;
        for (uint32_t v = 0; v < o.vertex_count; ++v) {
            for (int k = 0; k < 3; ++k) lo[k] = fmin(lo[k], o.pos[3 * v + k]), hi[k] = fmax(hi[k], o.pos[3 * v + k]);
            cr_vec3 x = cr_v3(cr_from_float((float)o.pos[3 * v]), cr_from_float((float)o.pos[3 * v + 1]),
                              cr_from_float((float)o.pos[3 * v + 2]));
            cr_potential f = cri_skeleton_potential(p, sq.count, x);
            off = fmax(off, fabs(cr_to_double(f.f - c)) / cr_to_double(cr_v3_len(f.grad)));
        }
        /* every triangle faces outwards: its normal along -grad f at its centre */
        uint32_t flipped = 0;
        for (uint32_t t = 0; t < o.triangle_count; ++t) {
            const double *a = &o.pos[3 * o.tri[3 * t]], *b = &o.pos[3 * o.tri[3 * t + 1]], *cc = &o.pos[3 * o.tri[3 * t + 2]];
            double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, w[3] = {cc[0] - a[0], cc[1] - a[1], cc[2] - a[2]};
            double n[3] = {u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]};
            cr_vec3 m = cr_v3(cr_from_float((float)((a[0] + b[0] + cc[0]) / 3)), cr_from_float((float)((a[1] + b[1] + cc[1]) / 3)),
                              cr_from_float((float)((a[2] + b[2] + cc[2]) / 3)));
            cr_potential f = cri_skeleton_potential(p, sq.count, m);
            if (-(n[0] * cr_to_double(f.grad.x) + n[1] * cr_to_double(f.grad.y) + n[2] * cr_to_double(f.grad.z)) <= 0) ++flipped;
        }
        double size = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
        double vol = signed_volume(&o), ivol = implicit_volume(p, sq.count, c, lo, hi);
        double angle = smallest_angle(&o);
        cr_test_printf("     %-8s %6u vertices %6u triangles, bad edges %d, euler %d, off f=c %.2g of size, "
                       "volume %.4f vs implicit %.4f (%+.2f %%), smallest angle %.1f deg, %u facing inwards\n",
                       shapes[s].name, o.vertex_count, o.triangle_count, bad, euler, off / size, vol, ivol,
                       100 * (vol - ivol) / ivol, angle, flipped);
        ENSURE(bad == 0);
        ENSURE(euler == 2 - 2 * shapes[s].genus);
        ENSURE(vol > 0);
        ENSURE(flipped == 0);
        ENSURE(fabs(vol - ivol) < 0.02 * ivol);
        ENSURE(off < 1e-4 * size);
        ENSURE(angle > 20);
        free(p);
        cr_obj_free(&o);
        cr_cook_squash_free(&sq);
    }
}

CR_TEST(squash_polygonise_cooks_the_same_bytes_twice) {
    const char *path = "build/test_squash_poly_twice.skel";
    ENSURE(write_text(path, shapes[0].text) == 0);
    cr_cook_options opt = cr_cook_default_options();
    opt.quiet = true;
    opt.sdf_res = 24;
    cr_cook_result r1, r2;
    char err[1024];
    ENSURE_MSG(cr_cook_file(path, NULL, &opt, &r1, err, sizeof err) == 0, "%s", err);
    ENSURE_MSG(cr_cook_file(path, NULL, &opt, &r2, err, sizeof err) == 0, "%s", err);
    cr_test_printf("     the U cooked twice: %zu and %zu bytes\n", r1.size, r2.size);
    ENSURE(r1.size == r2.size && memcmp(r1.bytes, r2.bytes, r1.size) == 0);
    cr_asset a;
    void *block = tc_load(r1.bytes, r1.size, &a);
    ENSURE(block != NULL);
    ENSURE(a.topology.closed);
    ENSURE(a.squash_primitive_count == 3);
    free(block);
    cr_cook_result_free(&r1);
    cr_cook_result_free(&r2);
}

CR_TEST(squash_polygonise_refuses_what_is_not_a_surface) {
    /* a fan of triangles that is not closed, and one whose edge is used twice the same way */
    uint32_t open_fan[] = {0, 1, 2, 0, 2, 3};
    ENSURE(cr_squash_mesh_check_manifold(open_fan, 2, 4) == CR_POLYGONISE_NOT_MANIFOLD);
    uint32_t tet[] = {0, 2, 1, 0, 1, 3, 1, 2, 3, 0, 3, 2};
    ENSURE(cr_squash_mesh_check_manifold(tet, 4, 4) == CR_POLYGONISE_OK);
    uint32_t flipped[] = {0, 1, 2, 0, 1, 3, 1, 2, 3, 0, 3, 2};
    ENSURE(cr_squash_mesh_check_manifold(flipped, 4, 4) == CR_POLYGONISE_NOT_MANIFOLD);
    /* two tetrahedra sharing one vertex: every edge fine, the vertex's fan two cycles */
    uint32_t pinch[] = {0, 2, 1, 0, 1, 3, 1, 2, 3, 0, 3, 2, 0, 5, 4, 0, 4, 6, 4, 5, 6, 0, 6, 5};
    ENSURE(cr_squash_mesh_check_manifold(pinch, 8, 7) == CR_POLYGONISE_NOT_MANIFOLD);
    /* a mesher keyword that is neither */
    const char *path = "build/test_squash_poly_bad.skel";
    ENSURE(write_text(path, "point 0 0 0 1\nmesher cubes\n") == 0);
    cr_cook_squash sq;
    char err[512];
    ENSURE(cr_cook_squash_read(path, &sq, err, sizeof err) != 0);
    cr_test_printf("     %s\n", err);
    ENSURE(strstr(err, "test_squash_poly_bad.skel:2:") != NULL);
}
