/* test_scene_gen.c — the generated meshes of the rings and terrain scenes.
 *
 * The OBJ files in data/meshes/ must be exactly what `crumple gen` makes with
 * its defaults (so anyone can rebuild them and get the same bytes), and they
 * must be closed, outward-oriented solids, or their signed distance grids
 * would have no inside and bodies would fall through them.
 */
#include "test.h"
#include "gen_mesh.h"
#include "platform.h"

#include <stdlib.h>
#include <string.h>

typedef struct mesh {
    double *v; /* 3 per vertex */
    int *t;    /* 3 per triangle, 0-based */
    int nv, nt;
} mesh;

/* Reads the v/f lines of our own OBJ output. */
static int read_obj(const char *text, mesh *m) {
    memset(m, 0, sizeof *m);
    int cv = 0, ct = 0;
    for (const char *p = text; *p; ++p)
        if (p == text || p[-1] == '\n') cv += *p == 'v', ct += *p == 'f';
    m->v = malloc(sizeof(double) * 3 * (size_t)(cv + 1));
    m->t = malloc(sizeof(int) * 3 * (size_t)(ct + 1));
    for (const char *p = text; *p;) {
        if (p[0] == 'v' && p[1] == ' ') {
            double *d = &m->v[3 * m->nv++];
            if (sscanf(p, "v %lf %lf %lf", &d[0], &d[1], &d[2]) != 3) return -1;
        } else if (p[0] == 'f' && p[1] == ' ') {
            int *t = &m->t[3 * m->nt++];
            if (sscanf(p, "f %d %d %d", &t[0], &t[1], &t[2]) != 3) return -1;
            for (int k = 0; k < 3; ++k)
                if (--t[k] < 0) return -1;
        }
        while (*p && *p != '\n') ++p;
        if (*p) ++p;
    }
    for (int i = 0; i < 3 * m->nt; ++i)
        if (m->t[i] >= m->nv) return -1;
    return 0;
}

static int cmp_edge(const void *a, const void *b) {
    const long long *x = a, *y = b;
    return *x < *y ? -1 : *x > *y;
}

/* Closed and consistently oriented: every directed edge appears exactly once
 * and its reverse exactly once. Returns the number of edges that fail. */
static int open_edges(const mesh *m) {
    long long *e = malloc(sizeof(long long) * 3 * (size_t)m->nt);
    for (int i = 0; i < m->nt; ++i)
        for (int k = 0; k < 3; ++k) e[3 * i + k] = (long long)m->t[3 * i + k] * m->nv + m->t[3 * i + (k + 1) % 3];
    int n = 3 * m->nt, bad = 0;
    qsort(e, (size_t)n, sizeof e[0], cmp_edge);
    for (int i = 0; i < n; ++i) {
        if (i + 1 < n && e[i + 1] == e[i]) ++bad; /* same directed edge twice */
        long long rev = (e[i] % m->nv) * m->nv + e[i] / m->nv;
        if (bsearch(&rev, e, (size_t)n, sizeof e[0], cmp_edge) == NULL) ++bad;
    }
    free(e);
    return bad;
}

static double signed_volume(const mesh *m) {
    double vol = 0;
    for (int i = 0; i < m->nt; ++i) {
        const double *a = &m->v[3 * m->t[3 * i]], *b = &m->v[3 * m->t[3 * i + 1]], *c = &m->v[3 * m->t[3 * i + 2]];
        vol += (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) + a[2] * (b[0] * c[1] - b[1] * c[0])) / 6.0;
    }
    return vol;
}

static void free_mesh(mesh *m) {
    free(m->v);
    free(m->t);
}

/* The checked-in file equals the generator's output, byte for byte. */
static int same_as_file(const char *text, size_t size, const char *path) {
    uint8_t *data = NULL;
    size_t n = 0;
    if (crp_read_file(path, &data, &n) != CRP_OK) {
        cr_test_printf("  %s is missing: run `crumple gen` (see tools/gen_mesh.h)\n", path);
        return 0;
    }
    int same = n == size && memcmp(data, text, n) == 0;
    if (!same) {
        size_t i = 0;
        while (i < n && i < size && data[i] == (uint8_t)text[i]) ++i;
        cr_test_printf("  %s differs from the generator at byte %zu of %zu/%zu\n", path, i, n, size);
    }
    crp_free(data);
    return same;
}

CR_TEST(scene_gen_torus_is_reproduced_and_closed) {
    cr_gen_torus opt = cr_gen_default_torus();
    size_t size = 0;
    char *text = cr_gen_torus_obj(&opt, &size);
    ENSURE(text != NULL && size == strlen(text));
    ENSURE(same_as_file(text, size, "data/meshes/torus.obj"));
    mesh m;
    ENSURE(read_obj(text, &m) == 0);
    /* R = 1, r = 0.25, about 400 triangles */
    ENSURE(m.nv == 200 && m.nt == 400);
    double rmax = 0, ymax = 0, rmin = 1e9;
    for (int i = 0; i < m.nv; ++i) {
        double r = sqrt(m.v[3 * i] * m.v[3 * i] + m.v[3 * i + 2] * m.v[3 * i + 2]);
        rmax = fmax(rmax, r);
        rmin = fmin(rmin, r);
        ymax = fmax(ymax, fabs(m.v[3 * i + 1]));
    }
    ENSURE_NEAR(rmax, 1.25, 1e-6);
    ENSURE_NEAR(rmin, 0.75, 1e-6);
    ENSURE(ymax <= 0.25 + 1e-6 && ymax > 0.23);
    ENSURE(open_edges(&m) == 0);
    /* outward: positive volume, close to 2 pi^2 R r^2 (a 20x10 polygon is a little smaller) */
    double vol = signed_volume(&m), exact = 2 * 3.14159265358979 * 3.14159265358979 * 0.0625;
    cr_test_printf("  torus: %d triangles, volume %.4f m^3 (smooth torus %.4f)\n", m.nt, vol, exact);
    ENSURE(vol > 0.88 * exact && vol < exact);
    /* bad options are refused, not written */
    opt.minor_radius = 2;
    ENSURE(cr_gen_torus_obj(&opt, &size) == NULL);
    free_mesh(&m);
    free(text);
}

CR_TEST(scene_gen_terrain_is_reproduced_and_closed) {
    cr_gen_terrain opt = cr_gen_default_terrain();
    size_t size = 0;
    char *text = cr_gen_terrain_obj(&opt, &size);
    ENSURE(text != NULL);
    ENSURE(same_as_file(text, size, "data/meshes/terrain.obj"));
    mesh m;
    ENSURE(read_obj(text, &m) == 0);
    /* 65x65 top, a 256-vertex bottom ring and its centre; 64x64x2 + 4x64x2 + 256 triangles */
    ENSURE(m.nv == 65 * 65 + 256 + 1);
    ENSURE(m.nt == 64 * 64 * 2 + 4 * 64 * 2 + 256);
    ENSURE(open_edges(&m) == 0);
    double vol = signed_volume(&m);
    cr_test_printf("  terrain: %d triangles, volume %.1f m^3\n", m.nt, vol);
    ENSURE_NEAR(vol, 32.0 * 32.0 * 3.0, 50.0);
    /* the top samples the height function; it is really bumpy */
    double lo = 1e9, hi = -1e9;
    for (int i = 0; i < 65 * 65; ++i) {
        double h = cr_gen_terrain_height(&opt, m.v[3 * i], m.v[3 * i + 2]);
        ENSURE(fabs(h - m.v[3 * i + 1]) <= 1e-6);
        lo = fmin(lo, h);
        hi = fmax(hi, h);
    }
    cr_test_printf("  terrain heights %.3f .. %.3f m\n", lo, hi);
    ENSURE(hi - lo > 1.0 && hi <= 1.0 && lo >= -1.0);
    free_mesh(&m);
    free(text);
}

CR_TEST(scene_gen_command_refuses_bad_options) {
    char *a1[] = {"gen", "cone"};
    ENSURE(cr_cmd_gen(2, a1) == 2);
    char *a2[] = {"gen", "torus", "--minor", "abc"};
    ENSURE(cr_cmd_gen(4, a2) == 2);
    char *a3[] = {"gen", "terrain", "--major", "2"};
    ENSURE(cr_cmd_gen(4, a3) == 2);
    char *a4[] = {"gen", "terrain", "--cells", "0"};
    ENSURE(cr_cmd_gen(4, a4) == 2);
}

/* The dent scenes' block, plate and ball: closed, outward, exactly the files. */
CR_TEST(scene_gen_dent_meshes_are_reproduced_and_closed) {
    cr_gen_box block = cr_gen_default_box(), plate = {{0.3, 0.04, 0.3}, 60};
    cr_gen_sphere ball = cr_gen_default_sphere();
    const char *paths[3] = {"data/meshes/block.obj", "data/meshes/plate.obj", "data/meshes/ball.obj"};
    const double volume[3] = {0.4, 0.3 * 0.04 * 0.3, 4.0 / 3.0 * 3.14159265358979 * 0.027};
    for (int k = 0; k < 3; ++k) {
        size_t size = 0;
        char *text = k == 0 ? cr_gen_box_obj(&block, &size) : k == 1 ? cr_gen_box_obj(&plate, &size) : cr_gen_sphere_obj(&ball, &size);
        ENSURE(text != NULL);
        ENSURE(same_as_file(text, size, paths[k]));
        mesh m;
        ENSURE(read_obj(text, &m) == 0);
        ENSURE(open_edges(&m) == 0);
        double vol = signed_volume(&m);
        cr_test_printf("  %s: %d vertices, %d triangles, volume %.5f m^3\n", paths[k], m.nv, m.nt, vol);
        ENSURE(vol > 0.98 * volume[k] && vol <= volume[k] * (1 + 1e-9));
        free_mesh(&m);
        free(text);
    }
    block.cells = 0;
    size_t size;
    ENSURE(cr_gen_box_obj(&block, &size) == NULL);
}

/* The plastic assets of issue 13 (the barrel and the car: mesh, rig, example
 * poses, cook options) are exactly what `crumple gen barrel|car` writes, and
 * an unknown name is refused. */
CR_TEST(scene_gen_plastic_assets_are_reproduced) {
    static const char *const names[2] = {"barrel", "car"};
    static const char *const where[4][2] = {{"meshes", "obj"}, {"rigs", "rig"}, {"poses", "pose"}, {"meshes", "cook"}};
    for (int a = 0; a < 2; ++a) {
        char *texts[4];
        size_t sizes[4];
        ENSURE(cr_gen_plastic_text(names[a], texts, sizes) == 0);
        for (int i = 0; i < 4; ++i) {
            char path[128];
            snprintf(path, sizeof path, "data/%s/%s.%s", where[i][0], names[a], where[i][1]);
            ENSURE(same_as_file(texts[i], sizes[i], path));
            free(texts[i]);
        }
        cr_test_printf("  %s: mesh, rig, poses and cook options as generated\n", names[a]);
    }
    char *texts[4];
    size_t sizes[4];
    ENSURE(cr_gen_plastic_text("boat", texts, sizes) == 2);
    char *a1[] = {"gen", "car", "--colour", "red"};
    ENSURE(cr_cmd_gen(4, a1) == 2);
}

/* The fracture scenes' brick grids (docs/fracture.md): each file is what its
 * own first line's `crumple gen bricks` command makes, and every brick (an `o`
 * group, one prescored piece) is a closed, outward solid of one brick's volume,
 * so the cooker's pieces and bonds come out of faces the bricks share exactly. */
CR_TEST(scene_gen_bricks_are_reproduced_and_each_brick_closed) {
    static const struct {
        const char *path;
        cr_gen_bricks b;
    } files[] = {
        {"data/meshes/fracture_wall.obj", {{4, 3, 1}, {0.25, 0.25, 0.2}, 3}},
        {"data/meshes/fracture_beam.obj", {{6, 1, 1}, {0.25, 0.2, 0.2}, 2}},
        {"data/meshes/fracture_tower.obj", {{2, 4, 1}, {0.25, 0.25, 0.25}, 2}},
        {"data/meshes/fracture_post.obj", {{2, 3, 1}, {0.15, 0.2, 0.15}, 2}},
    };
    for (size_t f = 0; f < sizeof files / sizeof files[0]; ++f) {
        const cr_gen_bricks *b = &files[f].b;
        size_t size = 0;
        char *text = cr_gen_bricks_obj(b, &size);
        ENSURE(text != NULL && size == strlen(text));
        ENSURE(same_as_file(text, size, files[f].path));
        mesh all;
        ENSURE(read_obj(text, &all) == 0);
        /* one brick at a time: the triangles between two `o` lines */
        int bricks = 0, t = 0, first = 0;
        const double brick_volume = b->brick[0] * b->brick[1] * b->brick[2];
        for (const char *p = text;; ++p) {
            int line = p == text || p[-1] == '\n', end = *p == '\0';
            if (end || (line && p[0] == 'o' && p[1] == ' ')) {
                if (t > first) {
                    mesh one = {all.v, all.t + 3 * first, all.nv, t - first};
                    ENSURE(open_edges(&one) == 0);
                    ENSURE_NEAR(signed_volume(&one), brick_volume, 1e-12);
                    ++bricks;
                }
                first = t;
            }
            if (end) break;
            if (line && p[0] == 'f' && p[1] == ' ') ++t;
        }
        ENSURE(bricks == b->count[0] * b->count[1] * b->count[2]);
        ENSURE(t == all.nt && all.nt == bricks * 12 * b->quads * b->quads);
        free_mesh(&all);
        free(text);
    }
    cr_gen_bricks bad = cr_gen_default_bricks();
    bad.quads = 0;
    size_t size = 0;
    ENSURE(cr_gen_bricks_obj(&bad, &size) == NULL);
}
