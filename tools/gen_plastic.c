/* gen_plastic.c — `crumple gen barrel|car [--dir DIR]`: the two authored
 * plastic assets of issue 13 (seed 001), as an artist would hand them to the
 * cooker (docs/example-plasticity.md, "Assets and scenes"):
 *
 *   DIR/meshes/NAME.obj   the closed surface, metres, y up
 *   DIR/rigs/NAME.rig     bones placed by hand-picked rules (below), parents first
 *   DIR/poses/NAME.pose   example deformations, each moving some bones
 *   DIR/meshes/NAME.cook  the cook options (grid, geodesic lists out to gamma)
 *
 * DIR is data by default; `make data` runs both before cooking, and a file
 * whose bytes are already what the generator makes is left alone (so its
 * date, and the cooked asset, stay). tests/test_scene_gen.c checks the
 * checked-in files are exactly this output.
 *
 * barrel: a bulged cylinder 0.9 m tall, 0.34 m radius at the waist; 12 bones
 * (three levels of four around the axis); 3 examples besides the rest pose
 * (the seed's Table 1 barrel row): a side dent, a squash, a bend.
 *
 * car: a 4 m x 1.8 m x 1.4 m car silhouette (body and cabin) extruded across
 * its width; 30 bones (a 6 x 3 grid in the body, a 4 x 3 grid in the cabin);
 * 6 examples: front and rear crashes, a dent in each side, a crushed roof and
 * a flattened car.
 *
 * Numbers are printed with %.6f from doubles built by + - * / and the
 * generator's own sine and cosine (gen_mesh.c), so the bytes are the same on
 * every machine. (This replaced tools/gen_plastic_assets.py, whose output it
 * reproduces byte for byte apart from the files' first comment line naming
 * the generator.)
 */
#include "cli.h"
#include "gen_mesh.h"
#include "platform.h"
#include "stb_ds.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct gtext {
    char *s; /* stb_ds */
} gtext;

static void put(gtext *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void put(gtext *t, const char *fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    for (int i = 0; i < n && i < (int)sizeof buf - 1; ++i) arrput(t->s, buf[i]);
}

/* "%.6f", with -0.000000 written as 0.000000; `slot` picks one of a few
 * buffers so one put() can take several. */
static const char *fmt6(double x, int slot) {
    static char buf[8][32]; /* tools: a command's own scratch */
    snprintf(buf[slot], sizeof buf[slot], "%.6f", x);
    if (strcmp(buf[slot], "-0.000000") == 0) snprintf(buf[slot], sizeof buf[slot], "0.000000");
    return buf[slot];
}

typedef struct pv {
    double x, y, z;
} pv;

typedef struct pmesh {
    pv *v;   /* stb_ds */
    int *f;  /* stb_ds, 3 per triangle, 0-based */
} pmesh;

static void vert(pmesh *m, double x, double y, double z) { arrput(m->v, ((pv){x, y, z})); }
static void tri(pmesh *m, int a, int b, int c) {
    arrput(m->f, a);
    arrput(m->f, b);
    arrput(m->f, c);
}

static void obj_text(gtext *t, const char *line1, const char *line2, const pmesh *m) {
    put(t, "# %s\n# %s\n", line1, line2);
    for (ptrdiff_t i = 0; i < arrlen(m->v); ++i) put(t, "v %s %s %s\n", fmt6(m->v[i].x, 0), fmt6(m->v[i].y, 1), fmt6(m->v[i].z, 2));
    for (ptrdiff_t i = 0; i < arrlen(m->f); i += 3) put(t, "f %d %d %d\n", m->f[i] + 1, m->f[i + 1] + 1, m->f[i + 2] + 1);
}

/* A unit quaternion turning `deg` degrees about `axis`. */
static void quat_axis(const double axis[3], double deg, double q[4]) {
    double n = sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
    double h = deg * (3.14159265358979323846 / 180.0) / 2;
    double s = cr_gen_sin(h) / n;
    q[0] = axis[0] * s, q[1] = axis[1] * s, q[2] = axis[2] * s, q[3] = cr_gen_cos(h);
}

/* ---- barrel -------------------------------------------------------------- */

static double barrel_radius(double y, double h) {
    double t = 2 * y / h;
    return 0.30 + 0.04 * (1 - t * t);
}

static void barrel(gtext *obj, gtext *rig, gtext *pose, gtext *cook) {
    const double h = 0.9;
    const int rings = 18, seg = 32, cap_rings = 4;
    const double two_pi = 2 * 3.14159265358979323846;
    pmesh m = {NULL, NULL};
    for (int i = 0; i <= rings; ++i) {
        double y = -h / 2 + h * i / rings, r = barrel_radius(y, h);
        for (int j = 0; j < seg; ++j) {
            double a = two_pi * j / seg;
            vert(&m, r * cr_gen_cos(a), y, -r * cr_gen_sin(a));
        }
    }
    for (int top = 0; top < 2; ++top) {
        double y = top ? h / 2 : -h / 2, r0 = barrel_radius(y, h);
        int pairs[8][2], np = 0;
        int prev = top ? rings * seg : 0;
        for (int k = 1; k < cap_rings; ++k) {
            double s = 1 - (double)k / cap_rings;
            int start = (int)arrlen(m.v);
            for (int j = 0; j < seg; ++j) {
                double a = two_pi * j / seg;
                vert(&m, r0 * s * cr_gen_cos(a), y, -r0 * s * cr_gen_sin(a));
            }
            pairs[np][0] = prev, pairs[np][1] = start, ++np;
            prev = start;
        }
        int centre = (int)arrlen(m.v);
        vert(&m, 0.0, y, 0.0);
        for (int p = 0; p < np; ++p)
            for (int j = 0; j < seg; ++j) {
                int a = pairs[p][0] + j, b = pairs[p][0] + (j + 1) % seg;
                int c = pairs[p][1] + j, d = pairs[p][1] + (j + 1) % seg;
                if (top) tri(&m, a, b, d), tri(&m, a, d, c);
                else tri(&m, a, d, b), tri(&m, a, c, d);
            }
        for (int j = 0; j < seg; ++j) {
            int a = prev + j, b = prev + (j + 1) % seg;
            if (top) tri(&m, a, b, centre);
            else tri(&m, a, centre, b);
        }
    }
    for (int i = 0; i < rings; ++i)
        for (int j = 0; j < seg; ++j) {
            int a = i * seg + j, b = i * seg + (j + 1) % seg, c = a + seg, d = b + seg;
            tri(&m, a, b, d), tri(&m, a, d, c);
        }
    obj_text(obj, "barrel.obj — a bulged barrel, 0.9 m tall, 0.34 m radius at the waist (crumple gen barrel).",
             "Rig: data/rigs/barrel.rig, examples: data/poses/barrel.pose (issue 13, seed 001 Table 1).", &m);
    arrfree(m.v);
    arrfree(m.f);

    /* bones: levels low/mid/top, four around (east, north, west, south) at 0.16 m */
    static const char *const level[3] = {"low", "mid", "top"};
    static const double level_y[3] = {-0.3, 0.0, 0.3};
    static const char *const side[4] = {"e", "n", "w", "s"};
    static const double side_x[4] = {1, 0, -1, 0}, side_z[4] = {0, -1, 0, 1};
    put(rig, "# barrel.rig — 12 bones for data/meshes/barrel.obj (OBJ coordinates, metres).\n");
    put(rig, "#   bone NAME PARENT|- X Y Z   (parents first). Three levels of four bones around\n");
    put(rig, "#   the axis; each column is a chain up the staves, the low east bone is the root.\n");
    for (int li = 0; li < 3; ++li)
        for (int si = 0; si < 4; ++si) {
            char name[16], parent[16];
            snprintf(name, sizeof name, "%s_%s", level[li], side[si]);
            if (li == 0) snprintf(parent, sizeof parent, "%s", si == 0 ? "-" : "low_e");
            else snprintf(parent, sizeof parent, "%s_%s", level[li - 1], side[si]);
            put(rig, "bone %-6s %-6s %s %s %s\n", name, parent, fmt6(0.16 * side_x[si], 0), fmt6(level_y[li], 1),
                fmt6(0.16 * side_z[si], 2));
        }
    put(pose, "# barrel.pose — example deformations of data/meshes/barrel.obj (seed 001).\n");
    put(pose, "# Example 0 is the rest pose. Each line: BONE TX TY TZ [QX QY QZ QW], a rotation\n");
    put(pose, "# about the bone's rest position, then a translation (OBJ coordinates, metres).\n\n");
    put(pose, "# a stave pushed in on the east side, deepest at the waist\n");
    put(pose, "example dent\n");
    put(pose, "mid_e  -0.140000 0.000000 0.000000\n");
    put(pose, "low_e  -0.050000 0.020000 0.000000\n");
    put(pose, "top_e  -0.050000 -0.020000 0.000000\n\n");
    put(pose, "# squashed from above: the top comes down, the waist bulges out\n");
    put(pose, "example squash\n");
    for (int si = 0; si < 4; ++si) {
        put(pose, "top_%s  %s -0.180000 %s\n", side[si], fmt6(0.05 * side_x[si], 0), fmt6(0.05 * side_z[si], 1));
        put(pose, "mid_%s  %s -0.080000 %s\n", side[si], fmt6(0.08 * side_x[si], 0), fmt6(0.08 * side_z[si], 1));
    }
    put(pose, "\n# bent over to the east: the top leans 25 degrees about z\n");
    put(pose, "example bend\n");
    const double z_axis[3] = {0, 0, 1};
    double q[4];
    quat_axis(z_axis, -25, q);
    for (int si = 0; si < 4; ++si) {
        put(pose, "top_%s  0.140000 -0.020000 0.000000 %s %s %s %s\n", side[si], fmt6(q[0], 0), fmt6(q[1], 1), fmt6(q[2], 2),
            fmt6(q[3], 3));
        put(pose, "mid_%s  0.040000 0.000000 0.000000\n", side[si]);
    }
    put(cook, "--sdf-res 32 --geodesic-radius 0.6 --geodesic-max 1024 --geodesic-patch 0.06\n");
}

/* ---- car ----------------------------------------------------------------- */

typedef struct car_bone {
    char name[16]; /* "b5l"; room for any int, which -O1 cannot rule out */
    double x, y, z;
} car_bone;

/* A pose's move of one bone: false leaves it at rest; *rot set for a rotation too. */
typedef bool car_move_fn(double x, double y, double z, double t[3]);

static bool move_front(double x, double y, double z, double t[3]) {
    (void)y, (void)z;
    if (!(x > 0.6)) return false;
    t[0] = -0.45 * (x - 0.6) / 1.1, t[1] = 0.08 * (x - 0.6) / 1.1, t[2] = 0.0;
    return true;
}
static bool move_rear(double x, double y, double z, double t[3]) {
    (void)y, (void)z;
    if (!(x < -0.6)) return false;
    t[0] = 0.35 * (-0.6 - x) / 1.1, t[1] = 0.05 * (-0.6 - x) / 1.1, t[2] = 0.0;
    return true;
}
static bool move_left(double x, double y, double z, double t[3]) {
    (void)y;
    if (!(z > 0.1)) return false;
    t[0] = 0.0, t[1] = 0.0, t[2] = -0.3 * fmax(0.0, 1 - fabs(x) / 1.6);
    return true;
}
static bool move_right(double x, double y, double z, double t[3]) {
    (void)y;
    if (!(z < -0.1)) return false;
    t[0] = 0.0, t[1] = 0.0, t[2] = 0.3 * fmax(0.0, 1 - fabs(x) / 1.6);
    return true;
}
static bool move_roof(double x, double y, double z, double t[3]) {
    (void)z;
    if (!(y > 1.0 && x > 0)) return false;
    t[0] = 0.0, t[1] = -0.35, t[2] = 0.0;
    return true;
}
/* m: how far the flattened shape drops its centre of volume (cri_mesh_mass_of
 * on the cooked car, the pose applied whole); added back so the pose keeps the
 * centre (why: the pose's comment) */
#define CAR_FLAT_RISE 0.188
static bool move_flat(double x, double y, double z, double t[3]) {
    (void)x;
    if (y > 1.0) t[0] = 0.0, t[1] = -0.55 + CAR_FLAT_RISE, t[2] = 0.15 * z;
    else t[0] = 0.0, t[1] = -0.05 + CAR_FLAT_RISE, t[2] = 0.3 * z;
    return true;
}

static void car_pose(gtext *p, const char *name, const char *comment, const car_bone *bones, int nb, car_move_fn *move) {
    /* each line of the comment gets its "# " */
    const char *s = comment;
    while (*s) {
        const char *e = strchr(s, '\n');
        int len = e ? (int)(e - s) : (int)strlen(s);
        put(p, "# %.*s\n", len, s);
        s += len + (e ? 1 : 0);
    }
    put(p, "example %s\n", name);
    for (int i = 0; i < nb; ++i) {
        double t[3];
        if (!move(bones[i].x, bones[i].y, bones[i].z, t)) continue;
        put(p, "%-4s %s %s %s\n", bones[i].name, fmt6(t[0], 0), fmt6(t[1], 1), fmt6(t[2], 2));
    }
    put(p, "\n");
}

static int car(gtext *obj, gtext *rig, gtext *pose, gtext *cook) {
    /* side silhouette (x forward, y up), counter-clockwise seen from +z */
    static const double profile[8][2] = {{-2.0, 0.25}, {2.0, 0.25}, {2.0, 0.75}, {1.3, 0.9},
                                         {0.6, 1.4},   {-0.9, 1.4}, {-1.6, 0.95}, {-2.0, 0.85}};
    const int n = 8;
    double cx = 0, cy = 0;
    for (int i = 0; i < n; ++i) cx += profile[i][0];
    for (int i = 0; i < n; ++i) cy += profile[i][1];
    cx /= n, cy /= n;
    for (int i = 0; i < n; ++i) { /* star-shaped about its centroid, so the caps can be concentric rings */
        const double *a = profile[i], *b = profile[(i + 1) % n];
        if (!((a[0] - cx) * (b[1] - cy) - (a[1] - cy) * (b[0] - cx) > 0)) {
            fprintf(stderr, "crumple gen car: the profile must be star-shaped\n");
            return 1;
        }
    }
    const double step = 0.2;
    pv *ring = NULL; /* stb_ds; z unused */
    for (int i = 0; i < n; ++i) {
        const double *a = profile[i], *b = profile[(i + 1) % n];
        double dx = b[0] - a[0], dy = b[1] - a[1];
        double steps = sqrt(dx * dx + dy * dy) / step;
        int k = (int)floor(steps + 0.5);
        if ((double)k - steps == 0.5 && k % 2 != 0) --k; /* halves to even (the 0.5 m nose is 2.5 steps: 2) */
        if (k < 1) k = 1;
        for (int j = 0; j < k; ++j) {
            double t = (double)j / k;
            arrput(ring, ((pv){a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]), 0}));
        }
    }
    const int mr = (int)arrlen(ring), slices = 9, cap_rings = 5;
    const double half_w = 0.9;
    pmesh m = {NULL, NULL};
    for (int s = 0; s <= slices; ++s) {
        double z = -half_w + 2 * half_w * s / slices;
        for (int j = 0; j < mr; ++j) vert(&m, ring[j].x, ring[j].y, z);
    }
    for (int s = 0; s < slices; ++s)
        for (int j = 0; j < mr; ++j) {
            int a = s * mr + j, b = s * mr + (j + 1) % mr, c = a + mr, d = b + mr;
            tri(&m, a, b, d), tri(&m, a, d, c);
        }
    for (int side = 0; side < 2; ++side) {
        double z = side ? half_w : -half_w;
        int prev = side ? slices * mr : 0, pairs[8][2], np = 0;
        for (int k = 1; k < cap_rings; ++k) {
            double sc = 1 - (double)k / cap_rings;
            int start = (int)arrlen(m.v);
            for (int j = 0; j < mr; ++j) vert(&m, cx + sc * (ring[j].x - cx), cy + sc * (ring[j].y - cy), z);
            pairs[np][0] = prev, pairs[np][1] = start, ++np;
            prev = start;
        }
        int centre = (int)arrlen(m.v);
        vert(&m, cx, cy, z);
        for (int p = 0; p < np; ++p)
            for (int j = 0; j < mr; ++j) {
                int a = pairs[p][0] + j, b = pairs[p][0] + (j + 1) % mr;
                int c = pairs[p][1] + j, d = pairs[p][1] + (j + 1) % mr;
                if (side) tri(&m, a, b, d), tri(&m, a, d, c);
                else tri(&m, a, d, b), tri(&m, a, c, d);
            }
        for (int j = 0; j < mr; ++j) {
            int a = prev + j, b = prev + (j + 1) % mr;
            if (side) tri(&m, a, b, centre);
            else tri(&m, a, centre, b);
        }
    }
    arrfree(ring);
    obj_text(obj, "car.obj — a 4 m car-like body: a body and a cabin extruded 1.8 m across (crumple gen car).",
             "Rig: data/rigs/car.rig (30 bones), examples: data/poses/car.pose (6, a flattened one among them).", &m);
    arrfree(m.v);
    arrfree(m.f);

    static const double xs_body[6] = {-1.7, -1.0, -0.35, 0.35, 1.0, 1.7};
    static const double xs_cabin[4] = {-0.9, -0.3, 0.3, 0.9};
    static const char zn[3] = {'r', 'c', 'l'};
    static const double zs[3] = {-0.55, 0.0, 0.55};
    car_bone bones[30];
    int nb = 0;
    for (int i = 0; i < 6; ++i)
        for (int k = 0; k < 3; ++k, ++nb) {
            snprintf(bones[nb].name, sizeof bones[nb].name, "b%d%c", i, zn[k]);
            bones[nb].x = xs_body[i], bones[nb].y = 0.55, bones[nb].z = zs[k];
        }
    for (int i = 0; i < 4; ++i)
        for (int k = 0; k < 3; ++k, ++nb) {
            snprintf(bones[nb].name, sizeof bones[nb].name, "c%d%c", i, zn[k]);
            bones[nb].x = xs_cabin[i], bones[nb].y = 1.1, bones[nb].z = 0.8 * zs[k];
        }
    put(rig, "# car.rig — 30 bones for data/meshes/car.obj (OBJ coordinates, metres; x forward, z left).\n");
    put(rig, "#   bone NAME PARENT|- X Y Z   (parents first). b<i><r|c|l>: a 6 x 3 grid in the body at\n");
    put(rig, "#   0.55 m; c<i><r|c|l>: a 4 x 3 grid in the cabin at 1.1 m. The body's centre line is a\n");
    put(rig, "#   chain from the rear; side bones hang off it, cabin bones off the body bone below.\n");
    for (int i = 0; i < 6; ++i) {
        char parent[8];
        if (i == 0) snprintf(parent, sizeof parent, "-");
        else snprintf(parent, sizeof parent, "b%dc", i - 1);
        put(rig, "bone b%dc %-4s %s %s %s\n", i, parent, fmt6(xs_body[i], 0), fmt6(0.55, 1), fmt6(0.0, 2));
    }
    for (int i = 0; i < 6; ++i)
        for (int k = 0; k < 3; ++k)
            if (zn[k] != 'c') put(rig, "bone b%d%c b%dc %s %s %s\n", i, zn[k], i, fmt6(xs_body[i], 0), fmt6(0.55, 1), fmt6(zs[k], 2));
    for (int i = 0; i < 4; ++i) {
        int below = 0; /* the body bone nearest in x, the first of equals */
        for (int k = 1; k < 6; ++k)
            if (fabs(xs_body[k] - xs_cabin[i]) < fabs(xs_body[below] - xs_cabin[i])) below = k;
        for (int k = 0; k < 3; ++k)
            put(rig, "bone c%d%c b%d%c %s %s %s\n", i, zn[k], below, zn[k], fmt6(xs_cabin[i], 0), fmt6(1.1, 1),
                fmt6(0.8 * zs[k], 2));
    }
    put(pose, "# car.pose — example deformations of data/meshes/car.obj (seed 001, Fig. 7).\n");
    put(pose, "# Example 0 is the rest pose. Each line: BONE TX TY TZ [QX QY QZ QW], a rotation\n");
    put(pose, "# about the bone's rest position, then a translation (OBJ coordinates, metres).\n\n");
    car_pose(pose, "front_crash", "the nose pushed back 45 cm and buckled up", bones, nb, move_front);
    car_pose(pose, "rear_crash", "the tail pushed in 35 cm", bones, nb, move_rear);
    car_pose(pose, "side_left", "the left doors pushed in 30 cm, most at the middle", bones, nb, move_left);
    car_pose(pose, "side_right", "the right doors pushed in 30 cm, most at the middle", bones, nb, move_right);
    car_pose(pose, "roof_crush", "the front of the roof pushed down 35 cm (a hit on the windscreen pillar)", bones, nb, move_roof);
    car_pose(pose, "flattened",
             "flattened: the cabin down 55 cm onto the body, which spreads sideways on its floor.\n"
             "Authored about the body's centre of volume, as the runtime keeps it (example_model.c,\n"
             "follow_mass, seed 001 section 3.2): every bone is 18.8 cm higher than the shape alone needs,\n"
             "the drop of the flattened shape's centre. A uniform shift is invisible once the body is\n"
             "recentred, but it is what the Jacobian (eq. 5) sees: authored with the floor 5 cm down,\n"
             "the ground's push up on a crushed car's floor read as 'un-flatten' (docs/example-plasticity.md).",
             bones, nb, move_flat);
    put(cook, "--sdf-res 48 --geodesic-radius 4 --geodesic-max 4096 --geodesic-patch 0.2\n");
    return 0;
}

/* ---- the command ---------------------------------------------------------- */

int cr_gen_plastic_text(const char *name, char **texts, size_t *sizes) {
    gtext t[4] = {{NULL}, {NULL}, {NULL}, {NULL}};
    int rc = 0;
    if (strcmp(name, "barrel") == 0) barrel(&t[0], &t[1], &t[2], &t[3]);
    else if (strcmp(name, "car") == 0) rc = car(&t[0], &t[1], &t[2], &t[3]);
    else rc = 2;
    for (int i = 0; i < 4; ++i) {
        size_t n = (size_t)arrlen(t[i].s);
        texts[i] = rc ? NULL : malloc(n + 1);
        if (texts[i] != NULL) {
            memcpy(texts[i], t[i].s, n);
            texts[i][n] = '\0';
            sizes[i] = n;
        } else if (rc == 0) rc = 1;
        arrfree(t[i].s);
    }
    return rc;
}

int cr_gen_plastic(const char *name, const char *dir) {
    char *texts[4];
    size_t sizes[4];
    int rc = cr_gen_plastic_text(name, texts, sizes);
    if (rc) return rc;
    static const char *const where[4][2] = {{"meshes", "obj"}, {"rigs", "rig"}, {"poses", "pose"}, {"meshes", "cook"}};
    for (int i = 0; i < 4 && rc == 0; ++i) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, where[i][0]);
        if (crp_make_dirs(path) != CRP_OK) {
            fprintf(stderr, "%s: cannot make the directory\n", path);
            rc = 1;
            break;
        }
        snprintf(path, sizeof path, "%s/%s/%s.%s", dir, where[i][0], name, where[i][1]);
        uint8_t *old = NULL;
        size_t old_size = 0;
        bool same = crp_read_file(path, &old, &old_size) == CRP_OK && old_size == sizes[i] && memcmp(old, texts[i], sizes[i]) == 0;
        crp_free(old);
        if (same) continue; /* its date stays, so make does not cook it again */
        crp_status s = crp_write_file_atomic(path, texts[i], sizes[i]);
        if (s != CRP_OK) {
            fprintf(stderr, "%s: cannot write: %s\n", path, crp_status_message(s));
            rc = 1;
        } else {
            printf("wrote %s\n", path);
        }
    }
    for (int i = 0; i < 4; ++i) free(texts[i]);
    return rc;
}
