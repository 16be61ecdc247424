/* gen_mesh.c — `crumple gen`: the torus and terrain meshes the scenes use.
 *
 * See gen_mesh.h for the shapes and options. The defaults give the files in
 * data/meshes/ (torus.obj: R = 1, r = 0.25, 400 triangles; terrain.obj: a
 * 32 m slab with 64x64 cells on top), which tests/test_scene_gen.c
 * regenerates byte for byte.
 *
 * Notes
 *   - Triangle orientation is not hand-derived per face: every triangle is
 *     checked against the outward direction it must face (tube normal, wall
 *     side, up, down) and flipped if needed, so the mesh is consistently
 *     counter-clockwise from outside by construction.
 *   - The terrain's sides and bottom share the top's boundary vertices, so the
 *     slab is one closed surface: every edge has exactly two triangles.
 */
#include "gen_mesh.h"
#include "cli.h"
#include "stb_ds.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GEN_TWO_PI 6.283185307179586476925

/* sin and cos from their Taylor series after reduction to [-pi, pi]: only
 * + - * / and floor, which IEEE double makes the same everywhere. */
static double gen_sin(double x) {
    x -= floor(x / GEN_TWO_PI + 0.5) * GEN_TWO_PI;
    double x2 = x * x, term = x, sum = x;
    for (int n = 1; n < 15; ++n) {
        term = term * -x2 / (double)((2 * n) * (2 * n + 1));
        sum += term;
    }
    return sum;
}

static double gen_cos(double x) {
    x -= floor(x / GEN_TWO_PI + 0.5) * GEN_TWO_PI;
    double x2 = x * x, term = 1.0, sum = 1.0;
    for (int n = 1; n < 15; ++n) {
        term = term * -x2 / (double)((2 * n - 1) * (2 * n));
        sum += term;
    }
    return sum;
}

double cr_gen_sin(double x) { return gen_sin(x); }
double cr_gen_cos(double x) { return gen_cos(x); }

typedef struct gvec {
    double x, y, z;
} gvec;

typedef struct gmesh {
    gvec *v;    /* stb_ds */
    int *tri;   /* stb_ds, 3 per triangle, 0-based */
} gmesh;

static gvec gsub(gvec a, gvec b) { return (gvec){a.x - b.x, a.y - b.y, a.z - b.z}; }
static gvec gcross(gvec a, gvec b) { return (gvec){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
static double gdot(gvec a, gvec b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

static int add_vertex(gmesh *m, double x, double y, double z) {
    arrput(m->v, ((gvec){x, y, z}));
    return (int)arrlen(m->v) - 1;
}

/* Adds triangle a b c, flipped if needed so that it faces `outward`. */
static void add_triangle(gmesh *m, int a, int b, int c, gvec outward) {
    gvec n = gcross(gsub(m->v[b], m->v[a]), gsub(m->v[c], m->v[a]));
    if (gdot(n, outward) < 0) {
        int t = b;
        b = c;
        c = t;
    }
    arrput(m->tri, a);
    arrput(m->tri, b);
    arrput(m->tri, c);
}

/* A coordinate as text: rounded to a whole micrometre, printed from integers,
 * trailing zeros dropped ("1", "-0.309017", "0.25"). */
static void put_coord(char **out, double x) {
    double r = floor(x * 1e6 + 0.5);
    long long q = (long long)r;
    char buf[48];
    int n = 0;
    if (q < 0) {
        buf[n++] = '-';
        q = -q;
    }
    long long whole = q / 1000000, frac = q % 1000000;
    n += snprintf(buf + n, sizeof buf - (size_t)n, "%lld", whole);
    if (frac) {
        char f[8];
        snprintf(f, sizeof f, "%06lld", frac);
        int len = 6;
        while (f[len - 1] == '0') --len;
        f[len] = '\0';
        n += snprintf(buf + n, sizeof buf - (size_t)n, ".%s", f);
    }
    if (q == 0) n = snprintf(buf, sizeof buf, "0");
    for (int i = 0; i < n; ++i) arrput(*out, buf[i]);
}

static void put_str(char **out, const char *s) {
    for (; *s; ++s) arrput(*out, *s);
}

static char *mesh_to_obj(const gmesh *m, const char *comment, size_t *size) {
    char *out = NULL;
    put_str(&out, comment);
    char buf[96];
    snprintf(buf, sizeof buf, "# %d vertices, %d triangles, counter-clockwise seen from outside\n", (int)arrlen(m->v),
             (int)(arrlen(m->tri) / 3));
    put_str(&out, buf);
    for (ptrdiff_t i = 0; i < arrlen(m->v); ++i) {
        put_str(&out, "v ");
        put_coord(&out, m->v[i].x);
        arrput(out, ' ');
        put_coord(&out, m->v[i].y);
        arrput(out, ' ');
        put_coord(&out, m->v[i].z);
        arrput(out, '\n');
    }
    for (ptrdiff_t i = 0; i < arrlen(m->tri); i += 3) {
        snprintf(buf, sizeof buf, "f %d %d %d\n", m->tri[i] + 1, m->tri[i + 1] + 1, m->tri[i + 2] + 1);
        put_str(&out, buf);
    }
    size_t n = (size_t)arrlen(out);
    char *text = malloc(n + 1);
    if (text != NULL) {
        memcpy(text, out, n);
        text[n] = '\0';
        if (size) *size = n;
    }
    arrfree(out);
    return text;
}

cr_gen_torus cr_gen_default_torus(void) {
    cr_gen_torus t = {1.0, 0.25, 20, 10};
    return t;
}

cr_gen_terrain cr_gen_default_terrain(void) {
    cr_gen_terrain t = {64, 32.0, 1.0, 2.0};
    return t;
}

char *cr_gen_torus_obj(const cr_gen_torus *t, size_t *size) {
    if (!(t->minor_radius > 0 && t->major_radius > t->minor_radius && t->major_radius < 1e4) || t->segments < 3 ||
        t->sides < 3 || t->segments > 4096 || t->sides > 4096)
        return NULL;
    gmesh m = {NULL, NULL};
    int n = t->segments, k = t->sides;
    for (int i = 0; i < n; ++i) {
        double u = GEN_TWO_PI * i / n, cu = gen_cos(u), su = gen_sin(u);
        for (int j = 0; j < k; ++j) {
            double v = GEN_TWO_PI * j / k, ring = t->major_radius + t->minor_radius * gen_cos(v);
            add_vertex(&m, ring * cu, t->minor_radius * gen_sin(v), ring * su);
        }
    }
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < k; ++j) {
            int a = i * k + j, b = i * k + (j + 1) % k, c = ((i + 1) % n) * k + (j + 1) % k, d = ((i + 1) % n) * k + j;
            /* outward: from the tube's centre line to the quad's first corner */
            double u = GEN_TWO_PI * (i + 0.5) / n;
            gvec centre = {t->major_radius * gen_cos(u), 0, t->major_radius * gen_sin(u)};
            gvec mid = {(m.v[a].x + m.v[c].x) * 0.5, (m.v[a].y + m.v[c].y) * 0.5, (m.v[a].z + m.v[c].z) * 0.5};
            gvec out = gsub(mid, centre);
            add_triangle(&m, a, b, c, out);
            add_triangle(&m, a, c, d, out);
        }
    char comment[256];
    snprintf(comment, sizeof comment,
             "# torus: major radius %g m, minor radius %g m, %d x %d segments (crumple gen torus)\n", t->major_radius,
             t->minor_radius, n, k);
    char *text = mesh_to_obj(&m, comment, size);
    arrfree(m.v);
    arrfree(m.tri);
    return text;
}

double cr_gen_terrain_height(const cr_gen_terrain *t, double x, double z) {
    /* three smooth waves of different lengths and directions; |h| <= height */
    double u = x / t->size, w = z / t->size;
    double h = 0.5 * gen_sin(GEN_TWO_PI * (2.0 * u + 0.1)) * gen_cos(GEN_TWO_PI * 1.5 * w) +
               0.3 * gen_sin(GEN_TWO_PI * 3.0 * (u + w) + 1.0) + 0.2 * gen_cos(GEN_TWO_PI * (5.0 * u - 2.0 * w));
    return t->height * h;
}

char *cr_gen_terrain_obj(const cr_gen_terrain *t, size_t *size) {
    if (t->cells < 1 || t->cells > 1024 || !(t->size > 0 && t->size < 1e5) || !(t->height >= 0 && t->height < 1e4) ||
        !(t->thickness > 0 && t->thickness < 1e4))
        return NULL;
    gmesh m = {NULL, NULL};
    int n = t->cells, row = n + 1;
    double half = t->size * 0.5, base = -t->height - t->thickness;
    /* top: vertex (i, k) at x = -half + size i / n, z likewise, index i + k (n+1) */
    for (int k = 0; k <= n; ++k)
        for (int i = 0; i <= n; ++i) {
            double x = -half + t->size * i / n, z = -half + t->size * k / n;
            add_vertex(&m, x, cr_gen_terrain_height(t, x, z), z);
        }
    gvec up = {0, 1, 0}, down = {0, -1, 0};
    for (int k = 0; k < n; ++k)
        for (int i = 0; i < n; ++i) {
            int a = i + k * row, b = i + (k + 1) * row, c = i + 1 + (k + 1) * row, d = i + 1 + k * row;
            add_triangle(&m, a, b, c, up);
            add_triangle(&m, a, c, d, up);
        }
    /* the boundary of the top as one ring, and the same ring on the bottom */
    int *ring = NULL;
    for (int i = 0; i < n; ++i) arrput(ring, i);                         /* z = -half */
    for (int k = 0; k < n; ++k) arrput(ring, n + k * row);               /* x = +half */
    for (int i = n; i > 0; --i) arrput(ring, i + n * row);               /* z = +half */
    for (int k = n; k > 0; --k) arrput(ring, k * row);                   /* x = -half */
    int count = (int)arrlen(ring), first_bottom = (int)arrlen(m.v);
    for (int j = 0; j < count; ++j) add_vertex(&m, m.v[ring[j]].x, base, m.v[ring[j]].z);
    for (int j = 0; j < count; ++j) {
        int j1 = (j + 1) % count;
        int ta = ring[j], tb = ring[j1], ba = first_bottom + j, bb = first_bottom + j1;
        /* the wall faces away from the footprint's centre along its side's axis */
        double mx = (m.v[ta].x + m.v[tb].x) * 0.5, mz = (m.v[ta].z + m.v[tb].z) * 0.5;
        gvec out = fabs(mx) > fabs(mz) ? (gvec){mx > 0 ? 1.0 : -1.0, 0, 0} : (gvec){0, 0, mz > 0 ? 1.0 : -1.0};
        add_triangle(&m, ta, tb, bb, out);
        add_triangle(&m, ta, bb, ba, out);
    }
    int centre = add_vertex(&m, 0, base, 0);
    for (int j = 0; j < count; ++j) add_triangle(&m, centre, first_bottom + j, first_bottom + (j + 1) % count, down);
    arrfree(ring);
    char comment[256];
    snprintf(comment, sizeof comment,
             "# terrain slab: %d x %d cells over %g m, bumps %g m, bottom at y = %g m (crumple gen terrain)\n", n, n,
             t->size, t->height, base);
    char *text = mesh_to_obj(&m, comment, size);
    arrfree(m.v);
    arrfree(m.tri);
    return text;
}

cr_gen_box cr_gen_default_box(void) {
    cr_gen_box b = {{1.0, 0.4, 1.0}, 40};
    return b;
}

cr_gen_sphere cr_gen_default_sphere(void) {
    cr_gen_sphere s = {0.3, 48, 24};
    return s;
}

/* Cells along an edge of length `len` when the longest edge has `cells`. */
static int edge_cells(double len, double longest, int cells) {
    int n = (int)floor(len / longest * cells + 0.5);
    return n < 1 ? 1 : n;
}

char *cr_gen_box_obj(const cr_gen_box *b, size_t *size) {
    for (int k = 0; k < 3; ++k)
        if (!(b->size[k] > 0 && b->size[k] < 1e4)) return NULL;
    if (b->cells < 1 || b->cells > 1024) return NULL;
    double longest = fmax(b->size[0], fmax(b->size[1], b->size[2]));
    int n[3];
    for (int k = 0; k < 3; ++k) n[k] = edge_cells(b->size[k], longest, b->cells);
    gmesh m = {NULL, NULL};
    /* one lattice of (n+1)^3 positions, of which only the surface ones exist:
     * faces share their edge vertices, so the box is closed without welding */
    int *id = malloc(sizeof(int) * (size_t)(n[0] + 1) * (size_t)(n[1] + 1) * (size_t)(n[2] + 1));
    if (id == NULL) return NULL;
#define GEN_ID(i, j, k) id[((k) * (n[1] + 1) + (j)) * (n[0] + 1) + (i)]
    for (int k = 0; k <= n[2]; ++k)
        for (int j = 0; j <= n[1]; ++j)
            for (int i = 0; i <= n[0]; ++i) {
                bool surface = i == 0 || j == 0 || k == 0 || i == n[0] || j == n[1] || k == n[2];
                GEN_ID(i, j, k) = surface ? add_vertex(&m, b->size[0] * ((double)i / n[0] - 0.5),
                                                       b->size[1] * ((double)j / n[1] - 0.5),
                                                       b->size[2] * ((double)k / n[2] - 0.5))
                                          : -1;
            }
    /* each face: the axis it faces along and the side */
    for (int axis = 0; axis < 3; ++axis) {
        int u = (axis + 1) % 3, v = (axis + 2) % 3;
        for (int side = 0; side < 2; ++side) {
            gvec out = {axis == 0 ? (side ? 1.0 : -1.0) : 0, axis == 1 ? (side ? 1.0 : -1.0) : 0,
                        axis == 2 ? (side ? 1.0 : -1.0) : 0};
            for (int a = 0; a < n[u]; ++a)
                for (int c = 0; c < n[v]; ++c) {
                    int q[4][3];
                    for (int corner = 0; corner < 4; ++corner) {
                        q[corner][axis] = side ? n[axis] : 0;
                        q[corner][u] = a + (corner == 1 || corner == 2);
                        q[corner][v] = c + (corner >= 2);
                    }
                    int p[4];
                    for (int corner = 0; corner < 4; ++corner) p[corner] = GEN_ID(q[corner][0], q[corner][1], q[corner][2]);
                    add_triangle(&m, p[0], p[1], p[2], out);
                    add_triangle(&m, p[0], p[2], p[3], out);
                }
        }
    }
#undef GEN_ID
    free(id);
    char comment[256];
    snprintf(comment, sizeof comment, "# box %g x %g x %g m, %d x %d x %d cells per face edge (crumple gen box)\n",
             b->size[0], b->size[1], b->size[2], n[0], n[1], n[2]);
    char *text = mesh_to_obj(&m, comment, size);
    arrfree(m.v);
    arrfree(m.tri);
    return text;
}

char *cr_gen_sphere_obj(const cr_gen_sphere *s, size_t *size) {
    if (!(s->radius > 0 && s->radius < 1e4) || s->segments < 3 || s->rings < 2 || s->segments > 4096 || s->rings > 4096)
        return NULL;
    gmesh m = {NULL, NULL};
    int north = add_vertex(&m, 0, s->radius, 0);
    for (int r = 1; r < s->rings; ++r) {
        double th = 0.5 * GEN_TWO_PI * r / s->rings;
        for (int j = 0; j < s->segments; ++j) {
            double ph = GEN_TWO_PI * j / s->segments;
            add_vertex(&m, s->radius * gen_sin(th) * gen_cos(ph), s->radius * gen_cos(th), s->radius * gen_sin(th) * gen_sin(ph));
        }
    }
    int south = add_vertex(&m, 0, -s->radius, 0);
    for (int r = 0; r < s->rings; ++r)
        for (int j = 0; j < s->segments; ++j) {
            int j1 = (j + 1) % s->segments;
            int a = r == 0 ? north : 1 + (r - 1) * s->segments + j, b = r == 0 ? north : 1 + (r - 1) * s->segments + j1;
            int c = r == s->rings - 1 ? south : 1 + r * s->segments + j1, d = r == s->rings - 1 ? south : 1 + r * s->segments + j;
            /* outward: the quad's centre seen from the sphere's centre */
            gvec mid = {(m.v[a].x + m.v[c].x) * 0.5, (m.v[a].y + m.v[c].y) * 0.5, (m.v[a].z + m.v[c].z) * 0.5};
            if (a != b) add_triangle(&m, a, b, c, mid);
            if (c != d) add_triangle(&m, a, c, d, mid);
        }
    char comment[256];
    snprintf(comment, sizeof comment, "# sphere: radius %g m, %d segments x %d rings (crumple gen sphere)\n", s->radius,
             s->segments, s->rings);
    char *text = mesh_to_obj(&m, comment, size);
    arrfree(m.v);
    arrfree(m.tri);
    return text;
}

/* ------------------------------------------------------------ the command */

static const char *const gen_usage_lines[7][2] = {
    {"torus", "torus   [--major R] [--minor r] [--segments N] [--sides M] [-o FILE]"},
    {"terrain", "terrain [--cells N] [--size S] [--height H] [--thickness T] [-o FILE]"},
    {"box", "box     [--sx X] [--sy Y] [--sz Z] [--cells N] [-o FILE]"},
    {"sphere", "sphere  [--radius R] [--segments N] [--rings M] [-o FILE]"},
    {"bricks", "bricks  [--nx N] [--ny N] [--nz N] [--bx X] [--by Y] [--bz Z] [--quads Q] [-o FILE]"},
    {"barrel", "barrel  [--dir DIR]"},
    {"car", "car     [--dir DIR]"},
};

/* All meshes (only == NULL) or one mesh's usage line. */
static void gen_usage_of(FILE *out, const char *only) {
    int n = 0;
    for (int i = 0; i < 7; ++i)
        if (only == NULL || strcmp(only, gen_usage_lines[i][0]) == 0)
            fprintf(out, "%s crumple gen %s\n", n++ ? "      " : "usage:", gen_usage_lines[i][1]);
    fprintf(out, "  Writes the mesh as OBJ to FILE (atomically; -o, also --output) or to standard output.\n"
                 "  Lengths in metres. The defaults give data/meshes/torus.obj and data/meshes/terrain.obj exactly.\n"
                 "  bricks writes a grid of bricks, one OBJ group each: a prescored asset whose groups are its pieces.\n"
                 "  barrel and car write the plastic assets of issue 13 (mesh, rig, example poses, cook options)\n"
                 "  into DIR/meshes, DIR/rigs and DIR/poses (--dir, default data), leaving files that are already so.\n");
}

static void gen_usage(FILE *out) { gen_usage_of(out, NULL); }

static int opt_number(const char *name, const char *text, double *out) {
    char *end = NULL;
    double v = strtod(text, &end);
    if (end == text || *end != '\0' || !isfinite(v)) {
        fprintf(stderr, "crumple gen: %s '%s' is not a number\n", name, text);
        return -1;
    }
    *out = v;
    return 0;
}

int cr_cmd_gen(int argc, char **argv) {
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        gen_usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (strcmp(argv[1], "barrel") == 0 || strcmp(argv[1], "car") == 0) {
        const char *dir = "data";
        for (int i = 2; i < argc; ++i) {
            if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
                gen_usage_of(stdout, argv[1]);
                return 0;
            }
            if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc) dir = argv[++i];
            else {
                fprintf(stderr, "crumple gen: unknown %s option '%s' or missing value\n", argv[1], argv[i]);
                gen_usage_of(stderr, argv[1]);
                return 2;
            }
        }
        return cr_gen_plastic(argv[1], dir); /* tools/gen_plastic.c */
    }
    bool torus = strcmp(argv[1], "torus") == 0, terrain = strcmp(argv[1], "terrain") == 0;
    bool box = strcmp(argv[1], "box") == 0, sphere = strcmp(argv[1], "sphere") == 0;
    bool bricks = strcmp(argv[1], "bricks") == 0;
    if (!torus && !terrain && !box && !sphere && !bricks) {
        fprintf(stderr, "crumple gen: unknown mesh '%s' (torus terrain box sphere bricks barrel car)\n", argv[1]);
        return 2;
    }
    cr_gen_torus to = cr_gen_default_torus();
    cr_gen_terrain te = cr_gen_default_terrain();
    cr_gen_box bo = cr_gen_default_box();
    cr_gen_sphere sp = cr_gen_default_sphere();
    cr_gen_bricks br = cr_gen_default_bricks();
    const char *path = NULL;
    for (int i = 2; i < argc; ++i) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            gen_usage_of(stdout, argv[1]);
            return 0;
        }
        if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "crumple gen: %s needs a file\n", a);
                return 2;
            }
            path = argv[++i];
            continue;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "crumple gen: unknown option '%s' or missing value\n", a);
            return 2;
        }
        double v;
        if (opt_number(a, argv[i + 1], &v)) return 2;
        ++i;
        if (torus && strcmp(a, "--major") == 0) to.major_radius = v;
        else if (torus && strcmp(a, "--minor") == 0) to.minor_radius = v;
        else if (torus && strcmp(a, "--segments") == 0) to.segments = (int)v;
        else if (torus && strcmp(a, "--sides") == 0) to.sides = (int)v;
        else if (terrain && strcmp(a, "--cells") == 0) te.cells = (int)v;
        else if (terrain && strcmp(a, "--size") == 0) te.size = v;
        else if (terrain && strcmp(a, "--height") == 0) te.height = v;
        else if (terrain && strcmp(a, "--thickness") == 0) te.thickness = v;
        else if (box && strcmp(a, "--sx") == 0) bo.size[0] = v;
        else if (box && strcmp(a, "--sy") == 0) bo.size[1] = v;
        else if (box && strcmp(a, "--sz") == 0) bo.size[2] = v;
        else if (box && strcmp(a, "--cells") == 0) bo.cells = (int)v;
        else if (sphere && strcmp(a, "--radius") == 0) sp.radius = v;
        else if (sphere && strcmp(a, "--segments") == 0) sp.segments = (int)v;
        else if (sphere && strcmp(a, "--rings") == 0) sp.rings = (int)v;
        else if (bricks && strcmp(a, "--nx") == 0) br.count[0] = (int)v;
        else if (bricks && strcmp(a, "--ny") == 0) br.count[1] = (int)v;
        else if (bricks && strcmp(a, "--nz") == 0) br.count[2] = (int)v;
        else if (bricks && strcmp(a, "--bx") == 0) br.brick[0] = v;
        else if (bricks && strcmp(a, "--by") == 0) br.brick[1] = v;
        else if (bricks && strcmp(a, "--bz") == 0) br.brick[2] = v;
        else if (bricks && strcmp(a, "--quads") == 0) br.quads = (int)v;
        else {
            fprintf(stderr, "crumple gen: unknown %s option '%s'\n", argv[1], a);
            gen_usage(stderr);
            return 2;
        }
    }
    size_t size = 0;
    char *text = torus     ? cr_gen_torus_obj(&to, &size)
                 : terrain ? cr_gen_terrain_obj(&te, &size)
                 : box     ? cr_gen_box_obj(&bo, &size)
                 : sphere  ? cr_gen_sphere_obj(&sp, &size)
                           : cr_gen_bricks_obj(&br, &size);
    if (text == NULL) {
        fprintf(stderr, "crumple gen: %s options out of range\n", argv[1]);
        return 2;
    }
    int rc = 0;
    if (path == NULL) {
        if (fwrite(text, 1, size, stdout) != size) rc = 1;
    } else {
        crp_status s = crp_write_file_atomic(path, text, size);
        if (s != CRP_OK) {
            fprintf(stderr, "%s: cannot write: %s\n", path, crp_status_message(s));
            rc = 1;
        }
    }
    free(text);
    return rc;
}
