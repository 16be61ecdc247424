/* cook_skin.c — skeleton, skinning weights and example poses (seeds 000, 001).
 *
 * Bones come from a rig file or are placed automatically (`--bones auto:N`):
 * k-means over the interior nodes of the signed distance grid, seeded by
 * farthest-point sampling from the deepest node, with each bone snapped into
 * the shape if its cluster's mean fell outside (a C-shaped cluster). Bones
 * are linked by a minimum spanning tree grown from the bone nearest the
 * centre of mass, and numbered in the order the tree reached them, so every
 * parent comes before its children.
 *
 * Weights are geodesic voxel binding (after Dionne & de Lasa 2013): distances
 * from each bone are grown by Dijkstra through the solid nodes of the SDF grid
 * (26 neighbours), so they go around concavities instead of through the air:
 * a bunny's ear is not bound to the bone in the other ear. A bone is the
 * segments from its head to its children's heads (a leaf reaches on to the
 * surface), so a joint's vertices blend its two bones; each segment end
 * that is a joint is cut back, on both sides by the same length (a third of
 * the shorter segment, SKIN_JOINT_TRIM), or else both bones would be at the
 * same distance (the joint's) over the whole cone of surface beyond a bent
 * joint. A vertex reads the distance trilinearly from the corners of its
 * cell (a corner outside the grown region one step on from its nearest
 * grown neighbour), which is continuous over the surface.
 *
 * Weights are compactly supported and continuous: phi_b = S(1 - (d_b -
 * d_min) / band_b), S(x) = 3x^2 - 2x^3 on [0, 1], with band_b a tenth of the
 * bone's longest segment and at least a cell (SKIN_BAND); the five largest
 * phi less the fifth (so the four slots stay continuous where a fifth bone
 * overtakes the fourth), normalised. The distances are continuous over the
 * surface, so the weights are: seed 001 relies on smooth weights, and no
 * influence drops out with a step. A vertex more than a band nearer to one
 * bone than to any other has that bone alone: on the bunny with four
 * automatic bones 75 % of the vertices have one influence, 24 % two (the
 * old (1 + d/h)^-4 falloff, normalised, gave every vertex four, and
 * subtracting a threshold eps from it would still leave two or three at
 * any eps below 1/4: docs/bending.md, "Decisions"). Skinning costs per
 * influence, so this is what makes it cheap.
 *
 * Example poses (seed 001): example 0 is the rest pose; each further example
 * gives, for some bones, a rotation about the bone's rest position followed
 * by a translation, in the OBJ file's coordinates. They are stored as
 * skinning transforms in the body frame: x_example = q x_rest + p.
 *
 * Rig file (one bone per line, parents first; `#` comments):
 *     bone <name> <parent name | -> <x> <y> <z> [<qx> <qy> <qz> <qw>]
 * Pose file:
 *     example <name>
 *     <bone name> <tx> <ty> <tz> [<qx> <qy> <qz> <qw>]
 */
#include "cook.h"
#include "crumple/asset.h"
#include "platform.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_MAX_LEN 63
/* Each end of a bone's segment that is a joint (shared with the parent or a
 * child) is cut back by this fraction of the shorter segment at the joint,
 * so that the two bones' distances differ away from the plane between them
 * (bone_shapes). */
#define SKIN_JOINT_TRIM (1.0 / 3.0)
/* The blend band of a bone: this fraction of its longest segment, at least
 * one grid cell (the distances are good to about a cell). */
#define SKIN_BAND 0.1

typedef struct bone_def {
    char name[NAME_MAX_LEN + 1];
    int32_t parent;
    double head[3]; /* body frame */
    double q[4];    /* body frame orientation */
} bone_def;

static int msg(char *err, size_t n, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int msg(char *err, size_t n, const char *fmt, ...) {
    if (err && n) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, n, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* ---- quaternions in double ---------------------------------------------------- */

static void qmul(const double a[4], const double b[4], double r[4]) {
    double x = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    double y = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    double z = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    double w = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
    r[0] = x, r[1] = y, r[2] = z, r[3] = w;
}

static void qrot(const double q[4], const double v[3], double out[3]) {
    double p[4] = {v[0], v[1], v[2], 0}, c[4] = {-q[0], -q[1], -q[2], q[3]}, t[4], r[4];
    qmul(q, p, t);
    qmul(t, c, r);
    out[0] = r[0], out[1] = r[1], out[2] = r[2];
}

static int qnormalise(double q[4]) {
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(n > 1e-12)) return -1;
    for (int k = 0; k < 4; ++k) q[k] /= n;
    /* w >= 0: q and -q are the same rotation; store one of them, always the same */
    if (q[3] < 0)
        for (int k = 0; k < 4; ++k) q[k] = -q[k];
    return 0;
}

/* OBJ-file point to body frame. */
static void to_body(const cr_cook_frame *f, const double x[3], double out[3]) {
    double m[3] = {f->s * x[0] + f->o[0], f->s * x[1] + f->o[1], f->s * x[2] + f->o[2]};
    for (int r = 0; r < 3; ++r) out[r] = f->R[r][0] * m[0] + f->R[r][1] * m[1] + f->R[r][2] * m[2] + f->p[r];
}

/* ---- small line reader for the rig and pose files ------------------------------- */

typedef struct text_lines {
    char *buf;
    char *cur;
    uint32_t line;
    const char *path;
} text_lines;

static int lines_open(text_lines *t, const char *path, char *err, size_t n) {
    uint8_t *data;
    size_t size;
    crp_status s = crp_read_file(path, &data, &size);
    if (s != CRP_OK) return msg(err, n, "%s: %s", path, crp_status_message(s));
    if (memchr(data, 0, size) != NULL) {
        crp_free(data);
        return msg(err, n, "%s:1: NUL byte in text: not a text file", path);
    }
    t->buf = (char *)data; /* crp_read_file NUL-terminates */
    t->cur = t->buf;
    t->line = 0;
    t->path = path;
    return 0;
}

/* Splits the next line into up to 16 tokens; returns the token count, -1 at the end. */
static int lines_next(text_lines *t, char *tok[16]) {
    if (*t->cur == 0) return -1;
    char *s = t->cur;
    char *e = s;
    while (*e && *e != '\n' && *e != '\r') ++e;
    char *next = e;
    if (*next == '\r') ++next;
    if (*next == '\n') ++next;
    t->cur = next;
    t->line++;
    *e = 0;
    char *hash = strchr(s, '#');
    if (hash) *hash = 0;
    int n = 0;
    while (*s) {
        while (*s == ' ' || *s == '\t') ++s;
        if (!*s) break;
        if (n == 16) return 17;
        tok[n++] = s;
        while (*s && *s != ' ' && *s != '\t') ++s;
        if (*s) *s++ = 0;
    }
    return n;
}

static int parse_num(const char *s, double *out) {
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end != 0 || !isfinite(v)) return -1;
    *out = v;
    return 0;
}

/* A point and an optional rotation from text, as rig and pose lines write
 * them: "X Y Z [QX QY QZ QW]". Errors as "path:line: ..." in err. */
static int parse_pose(const char *const *tok, bool has_q, double p[3], double q[4], const char *path, uint32_t line,
                      char *err, size_t en) {
    int bad = 0;
    q[0] = q[1] = q[2] = 0, q[3] = 1;
    for (int i = 0; i < 3; ++i) bad |= parse_num(tok[i], &p[i]);
    for (int i = 0; i < 4 && has_q; ++i) bad |= parse_num(tok[3 + i], &q[i]);
    if (bad) return msg(err, en, "%s:%u: a number is malformed or not finite", path, line);
    if (qnormalise(q) != 0) return msg(err, en, "%s:%u: rotation quaternion has zero length", path, line);
    return 0;
}

static int find_bone(const bone_def *b, uint32_t n, const char *name) {
    for (uint32_t i = 0; i < n; ++i)
        if (strcmp(b[i].name, name) == 0) return (int)i;
    return -1;
}

static int read_rig(const char *path, const cr_cook_frame *f, bone_def **out, uint32_t *count, char *err, size_t en) {
    text_lines t;
    if (lines_open(&t, path, err, en) != 0) return -1;
    bone_def *bones = calloc(CR_ASSET_MAX_BONES, sizeof(bone_def));
    uint32_t n = 0;
    char *tok[16];
    int k, rc = 0;
    while ((k = lines_next(&t, tok)) >= 0) {
        if (k == 0) continue;
        if (strcmp(tok[0], "bone") != 0) {
            rc = msg(err, en, "%s:%u: unknown statement '%.40s' (expected 'bone')", path, t.line, tok[0]);
            break;
        }
        if (k != 6 && k != 10) {
            rc = msg(err, en, "%s:%u: expected 'bone NAME PARENT X Y Z [QX QY QZ QW]'", path, t.line);
            break;
        }
        if (n == CR_ASSET_MAX_BONES) {
            rc = msg(err, en, "%s:%u: more than %u bones", path, t.line, CR_ASSET_MAX_BONES);
            break;
        }
        if (strlen(tok[1]) > NAME_MAX_LEN || find_bone(bones, n, tok[1]) >= 0 || strcmp(tok[1], "-") == 0) {
            rc = msg(err, en, "%s:%u: bone name '%.40s' is too long, '-', or already used", path, t.line, tok[1]);
            break;
        }
        bone_def *b = &bones[n];
        strcpy(b->name, tok[1]);
        b->parent = -1;
        if (strcmp(tok[2], "-") != 0) {
            b->parent = find_bone(bones, n, tok[2]);
            if (b->parent < 0) {
                rc = msg(err, en, "%s:%u: parent '%.40s' is not an earlier bone", path, t.line, tok[2]);
                break;
            }
        }
        double head[3], q[4];
        if ((rc = parse_pose((const char *const *)tok + 3, k == 10, head, q, path, t.line, err, en)) != 0) break;
        to_body(f, head, b->head);
        qmul(f->q, q, b->q);
        qnormalise(b->q);
        ++n;
    }
    if (rc == 0 && n == 0) rc = msg(err, en, "%s:%u: the rig has no bones", path, t.line);
    crp_free(t.buf);
    if (rc != 0) {
        free(bones);
        return -1;
    }
    *out = bones;
    *count = n;
    return 0;
}

static int read_poses(const char *path, const cr_cook_frame *f, const bone_def *bones, uint32_t nb, double **out,
                      uint32_t *count, char *err, size_t en) {
    text_lines t;
    if (lines_open(&t, path, err, en) != 0) return -1;
    double *ex = malloc(sizeof(double) * 7 * nb * CR_ASSET_MAX_EXAMPLES);
    uint32_t ne = 1;
    for (uint32_t b = 0; b < nb; ++b) {
        double id[7] = {0, 0, 0, 0, 0, 0, 1};
        memcpy(ex + 7 * b, id, sizeof id);
    }
    char *tok[16];
    int k, rc = 0;
    while ((k = lines_next(&t, tok)) >= 0) {
        if (k == 0) continue;
        if (strcmp(tok[0], "example") == 0) {
            if (k != 2) {
                rc = msg(err, en, "%s:%u: expected 'example NAME'", path, t.line);
                break;
            }
            if (ne == CR_ASSET_MAX_EXAMPLES) {
                rc = msg(err, en, "%s:%u: more than %u examples (the rest pose counts as one)", path, t.line, CR_ASSET_MAX_EXAMPLES - 1);
                break;
            }
            for (uint32_t b = 0; b < nb; ++b) {
                double id[7] = {0, 0, 0, 0, 0, 0, 1};
                memcpy(ex + 7 * ((size_t)ne * nb + b), id, sizeof id);
            }
            ++ne;
            continue;
        }
        if (ne == 1) {
            rc = msg(err, en, "%s:%u: bone line '%.40s' before any 'example NAME' line", path, t.line, tok[0]);
            break;
        }
        int b = find_bone(bones, nb, tok[0]);
        if (b < 0) {
            rc = msg(err, en, "%s:%u: unknown bone '%.40s'", path, t.line, tok[0]);
            break;
        }
        if (k != 4 && k != 8) {
            rc = msg(err, en, "%s:%u: expected 'BONE TX TY TZ [QX QY QZ QW]'", path, t.line);
            break;
        }
        double tr[3], q[4];
        if ((rc = parse_pose((const char *const *)tok + 1, k == 8, tr, q, path, t.line, err, en)) != 0) break;
        /* In the file: x -> q (x - h) + h + t. In the body frame (y = Q(s x + o) + p):
         * y -> (Q q Q^-1)(y - h_b) + h_b + s Q t. */
        double qc[4] = {-f->q[0], -f->q[1], -f->q[2], f->q[3]}, tmp[4], qb[4], st[3], rt[3], rh[3];
        qmul(f->q, q, tmp);
        qmul(tmp, qc, qb);
        qnormalise(qb);
        const double *h = bones[b].head;
        for (int i = 0; i < 3; ++i) st[i] = f->s * tr[i];
        qrot(f->q, st, rt);
        qrot(qb, h, rh);
        double *dst = ex + 7 * ((size_t)(ne - 1) * nb + (size_t)b);
        for (int i = 0; i < 3; ++i) dst[i] = h[i] + rt[i] - rh[i];
        memcpy(dst + 3, qb, sizeof qb);
    }
    crp_free(t.buf);
    if (rc != 0) {
        free(ex);
        return -1;
    }
    if (ne == 1) {
        free(ex);
        return msg(err, en, "%s:%u: no 'example NAME' in the file", path, t.line);
    }
    *out = ex;
    *count = ne;
    return 0;
}

/* ---- automatic bones ------------------------------------------------------------- */

static double dist2_3(const double *a, const double *b) {
    double x = a[0] - b[0], y = a[1] - b[1], z = a[2] - b[2];
    return x * x + y * y + z * z;
}

static void node_pos(const cr_cook_grid *g, size_t i, double out[3]) {
    size_t nx = g->dims[0], ny = g->dims[1];
    out[0] = g->origin[0] + (double)(i % nx) * g->cell;
    out[1] = g->origin[1] + (double)((i / nx) % ny) * g->cell;
    out[2] = g->origin[2] + (double)(i / (nx * ny)) * g->cell;
}

static int auto_bones(const cr_cook_grid *g, uint32_t nb, bone_def **out, char *err, size_t en) {
    size_t total = (size_t)g->dims[0] * g->dims[1] * g->dims[2];
    size_t *inside = malloc(sizeof(size_t) * total);
    size_t ni = 0, deepest = 0;
    for (size_t i = 0; i < total; ++i)
        if (g->values[i] < 0) inside[ni++] = i;
    if (ni == 0) /* thinner than a cell: take the nodes nearest the surface */
        for (size_t i = 0; i < total; ++i)
            if (g->values[i] < g->cell) inside[ni++] = i;
    if (ni < nb) {
        free(inside);
        return msg(err, en, "--bones auto:%u: the shape has only %zu interior grid nodes; use fewer bones or a finer --sdf-res", nb,
                   ni);
    }
    for (size_t k = 0; k < ni; ++k)
        if (g->values[inside[k]] < g->values[inside[deepest]]) deepest = k;
    double *pts = malloc(sizeof(double) * 3 * ni);
    for (size_t k = 0; k < ni; ++k) node_pos(g, inside[k], pts + 3 * k);
    double *c = malloc(sizeof(double) * 3 * nb);
    double *d2 = malloc(sizeof(double) * ni);
    uint32_t *lab = malloc(sizeof(uint32_t) * ni);
    /* farthest-point seeds from the deepest node */
    size_t cur = deepest;
    for (size_t k = 0; k < ni; ++k) d2[k] = INFINITY;
    for (uint32_t b = 0; b < nb; ++b) {
        memcpy(c + 3 * b, pts + 3 * cur, sizeof(double) * 3);
        size_t next = 0;
        double far = -1;
        for (size_t k = 0; k < ni; ++k) {
            double e = dist2_3(pts + 3 * k, c + 3 * b);
            if (e < d2[k]) d2[k] = e;
            if (d2[k] > far) far = d2[k], next = k;
        }
        cur = next;
    }
    /* Lloyd iterations */
    double *sum = malloc(sizeof(double) * 4 * nb);
    for (int it = 0; it < 16; ++it) {
        memset(sum, 0, sizeof(double) * 4 * nb);
        for (size_t k = 0; k < ni; ++k) {
            uint32_t best = 0;
            double bd = INFINITY;
            for (uint32_t b = 0; b < nb; ++b) {
                double e = dist2_3(pts + 3 * k, c + 3 * b);
                if (e < bd) bd = e, best = b;
            }
            lab[k] = best;
            for (int j = 0; j < 3; ++j) sum[4 * best + j] += pts[3 * k + j];
            sum[4 * best + 3] += 1;
        }
        for (uint32_t b = 0; b < nb; ++b)
            if (sum[4 * b + 3] > 0)
                for (int j = 0; j < 3; ++j) c[3 * b + j] = sum[4 * b + j] / sum[4 * b + 3];
    }
    /* snap a centre that fell outside to its cluster's node nearest to it */
    for (uint32_t b = 0; b < nb; ++b) {
        double gc[3] = {(c[3 * b] - g->origin[0]) / g->cell, (c[3 * b + 1] - g->origin[1]) / g->cell,
                        (c[3 * b + 2] - g->origin[2]) / g->cell};
        size_t ix = (size_t)(gc[0] + 0.5), iy = (size_t)(gc[1] + 0.5), iz = (size_t)(gc[2] + 0.5);
        size_t node = ix + g->dims[0] * (iy + g->dims[1] * iz);
        if (node < total && g->values[node] < 0) continue;
        size_t bestk = SIZE_MAX;
        double bd = INFINITY;
        for (size_t k = 0; k < ni; ++k) {
            if (lab[k] != b) continue;
            double e = dist2_3(pts + 3 * k, c + 3 * b);
            if (e < bd) bd = e, bestk = k;
        }
        if (bestk != SIZE_MAX) memcpy(c + 3 * b, pts + 3 * bestk, sizeof(double) * 3);
    }
    /* tree: Prim from the bone nearest the centre of mass */
    uint32_t *order = malloc(sizeof(uint32_t) * nb), *par = malloc(sizeof(uint32_t) * nb);
    uint8_t *in = calloc(nb, 1);
    uint32_t root = 0;
    double zero[3] = {0, 0, 0};
    for (uint32_t b = 1; b < nb; ++b)
        if (dist2_3(c + 3 * b, zero) < dist2_3(c + 3 * root, zero)) root = b;
    order[0] = root;
    par[root] = UINT32_MAX;
    in[root] = 1;
    for (uint32_t n = 1; n < nb; ++n) {
        uint32_t bi = 0, bj = 0;
        double bd = INFINITY;
        for (uint32_t a = 0; a < n; ++a)
            for (uint32_t b = 0; b < nb; ++b) {
                if (in[b]) continue;
                double e = dist2_3(c + 3 * order[a], c + 3 * b);
                if (e < bd) bd = e, bi = order[a], bj = b;
            }
        order[n] = bj;
        par[bj] = bi;
        in[bj] = 1;
    }
    bone_def *bones = calloc(nb, sizeof(bone_def));
    uint32_t *newidx = malloc(sizeof(uint32_t) * nb);
    for (uint32_t n = 0; n < nb; ++n) newidx[order[n]] = n;
    for (uint32_t n = 0; n < nb; ++n) {
        uint32_t b = order[n];
        snprintf(bones[n].name, sizeof bones[n].name, "b%u", n);
        bones[n].parent = par[b] == UINT32_MAX ? -1 : (int32_t)newidx[par[b]];
        memcpy(bones[n].head, c + 3 * b, sizeof(double) * 3);
        bones[n].q[3] = 1;
    }
    free(inside), free(pts), free(c), free(d2), free(lab), free(sum), free(order), free(par), free(in), free(newidx);
    *out = bones;
    return 0;
}

/* ---- geodesic voxel binding ------------------------------------------------------- */

typedef struct gheap {
    float d;
    uint32_t i;
} gheap;

static int gless(gheap a, gheap b) { return a.d < b.d || (a.d == b.d && a.i < b.i); }

static void gpush(gheap *h, size_t *n, gheap it) {
    size_t i = (*n)++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!gless(it, h[p])) break;
        h[i] = h[p];
        i = p;
    }
    h[i] = it;
}

static gheap gpop(gheap *h, size_t *n) {
    gheap top = h[0], last = h[--*n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= *n) break;
        if (c + 1 < *n && gless(h[c + 1], h[c])) ++c;
        if (!gless(h[c], last)) break;
        h[i] = h[c];
        i = c;
    }
    if (*n > 0) h[i] = last;
    return top;
}

/* A bone's extent: the segments from its head to each child's head; a leaf
 * bone reaches on from its head, away from its parent, to where that line
 * leaves the shape (a finger's last bone covers the fingertip). */
typedef struct bone_shape {
    double head[3];
    double tail[CR_ASSET_MAX_BONES + 1][3];
    uint32_t tails;
    uint32_t child[CR_ASSET_MAX_BONES + 1]; /* the child bone whose head each tail is; UINT32_MAX: the leaf's reach */
    double reach;                           /* m, its longest segment */
    double cut;                             /* m, cut from each segment's head end (the joint with the parent) */
    double tail_cut[CR_ASSET_MAX_BONES + 1]; /* m, cut from each tail end (the child's cut; 0 at a leaf's reach) */
} bone_shape;

/* The grid cell holding p (clamped into the grid) and p's place in it, 0..1 per axis. */
static void grid_cell(const cr_cook_grid *g, const double p[3], size_t i[3], double f[3]) {
    for (int k = 0; k < 3; ++k) {
        double c = (p[k] - g->origin[k]) / g->cell;
        if (c < 0) c = 0;
        if (c > g->dims[k] - 1) c = g->dims[k] - 1;
        size_t ci = (size_t)c;
        if (ci > g->dims[k] - 2) ci = g->dims[k] - 2;
        i[k] = ci, f[k] = c - (double)ci;
    }
}

static double grid_value(const cr_cook_grid *g, const double p[3]) {
    double f[3];
    size_t i[3];
    grid_cell(g, p, i, f);
    size_t nx = g->dims[0], ny = g->dims[1];
    double v = 0;
    for (int c = 0; c < 8; ++c) {
        size_t x = i[0] + (c & 1), y = i[1] + ((c >> 1) & 1), z = i[2] + ((c >> 2) & 1);
        double w = ((c & 1) ? f[0] : 1 - f[0]) * ((c & 2) ? f[1] : 1 - f[1]) * ((c & 4) ? f[2] : 1 - f[2]);
        v += w * g->values[x + nx * (y + ny * z)];
    }
    return v;
}

static void bone_shapes(const bone_def *bones, uint32_t nb, const cr_cook_grid *g, bone_shape *out) {
    for (uint32_t b = 0; b < nb; ++b) {
        bone_shape *s = &out[b];
        memcpy(s->head, bones[b].head, sizeof s->head);
        s->tails = 0;
        for (uint32_t c = 0; c < nb; ++c)
            if (bones[c].parent == (int32_t)b) s->child[s->tails] = c, memcpy(s->tail[s->tails++], bones[c].head, sizeof s->head);
        if (s->tails > 0 || bones[b].parent < 0) continue;
        const double *ph = bones[bones[b].parent].head;
        double dir[3] = {s->head[0] - ph[0], s->head[1] - ph[1], s->head[2] - ph[2]};
        double l = sqrt(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
        if (!(l > 0)) continue;
        double step = 0.25 * g->cell, t = 0, reach = g->cell * (g->dims[0] + g->dims[1] + g->dims[2]);
        while (t < reach) {
            double q[3] = {s->head[0] + dir[0] / l * (t + step), s->head[1] + dir[1] / l * (t + step), s->head[2] + dir[2] / l * (t + step)};
            if (grid_value(g, q) > 0) break;
            t += step;
        }
        for (int k = 0; k < 3; ++k) s->tail[0][k] = s->head[k] + dir[k] / l * t;
        s->child[0] = UINT32_MAX;
        s->tails = t > 0 ? 1 : 0;
    }
    /* a joint is cut back by the same length on both sides (its plane stays
     * at the joint): SKIN_JOINT_TRIM of the shorter of the parent's segment
     * to it and the child's own shortest segment */
    for (uint32_t b = 0; b < nb; ++b) {
        bone_shape *s = &out[b];
        double shortest = INFINITY;
        s->reach = 0;
        for (uint32_t c = 0; c < s->tails; ++c) {
            double l = sqrt(dist2_3(s->head, s->tail[c]));
            if (l > s->reach) s->reach = l;
            if (l < shortest) shortest = l;
        }
        s->cut = 0;
        if (bones[b].parent < 0) continue;
        double up = sqrt(dist2_3(s->head, bones[bones[b].parent].head));
        s->cut = SKIN_JOINT_TRIM * (shortest < up ? shortest : up);
    }
    for (uint32_t b = 0; b < nb; ++b)
        for (uint32_t c = 0; c < out[b].tails; ++c) out[b].tail_cut[c] = out[b].child[c] == UINT32_MAX ? 0 : out[out[b].child[c]].cut;
}

/* Distance from p to the bone's extent, its joints cut back (bone_shapes). */
static double bone_distance(const bone_shape *s, const double p[3]) {
    double best = s->tails > 0 ? INFINITY : sqrt(dist2_3(p, s->head));
    for (uint32_t c = 0; c < s->tails; ++c) {
        double ab0[3] = {s->tail[c][0] - s->head[0], s->tail[c][1] - s->head[1], s->tail[c][2] - s->head[2]};
        double l = sqrt(ab0[0] * ab0[0] + ab0[1] * ab0[1] + ab0[2] * ab0[2]);
        double t0 = l > 0 ? s->cut / l : 0, t1 = l > 0 ? 1 - s->tail_cut[c] / l : 1;
        double a[3], e[3];
        for (int k = 0; k < 3; ++k) a[k] = s->head[k] + t0 * ab0[k], e[k] = s->head[k] + t1 * ab0[k];
        double ab[3] = {e[0] - a[0], e[1] - a[1], e[2] - a[2]}, ap[3] = {p[0] - a[0], p[1] - a[1], p[2] - a[2]};
        double l2 = ab[0] * ab[0] + ab[1] * ab[1] + ab[2] * ab[2];
        double t = l2 > 0 ? (ab[0] * ap[0] + ab[1] * ap[1] + ab[2] * ap[2]) / l2 : 0;
        t = t < 0 ? 0 : (t > 1 ? 1 : t);
        double q[3] = {a[0] + t * ab[0], a[1] + t * ab[1], a[2] + t * ab[2]};
        double d = sqrt(dist2_3(p, q));
        if (d < best) best = d;
    }
    return best;
}

/* The bone's distance at a grid node: its own, or for a node outside the
 * grown region (outside the shape by more than a cell) one step on from its
 * nearest grown neighbour; INFINITY if none is grown. */
static double node_distance(const cr_cook_grid *g, const float *dist, int (*off)[3], const float *len, int no, size_t x,
                            size_t y, size_t z) {
    size_t nx = g->dims[0], ny = g->dims[1], nz = g->dims[2];
    double d = dist[x + nx * (y + ny * z)];
    if (isfinite(d)) return d;
    for (int k = 0; k < no; ++k) {
        size_t xx = x + (size_t)off[k][0], yy = y + (size_t)off[k][1], zz = z + (size_t)off[k][2];
        if (xx >= nx || yy >= ny || zz >= nz) continue;
        double e = (double)dist[xx + nx * (yy + ny * zz)] + len[k];
        if (e < d) d = e;
    }
    return d;
}

/* The distance at p, trilinear in its cell's corners; INFINITY when a corner has none. */
static double cell_distance(const cr_cook_grid *g, const float *dist, int (*off)[3], const float *len, int no,
                            const double p[3]) {
    size_t i[3];
    double f[3];
    grid_cell(g, p, i, f);
    double d = 0;
    for (int c = 0; c < 8; ++c) {
        double w = ((c & 1) ? f[0] : 1 - f[0]) * ((c & 2) ? f[1] : 1 - f[1]) * ((c & 4) ? f[2] : 1 - f[2]);
        double e = node_distance(g, dist, off, len, no, i[0] + (c & 1), i[1] + ((c >> 1) & 1), i[2] + ((c >> 2) & 1));
        if (!isfinite(e)) return INFINITY;
        d += w * e;
    }
    return d;
}

static void skin_weights(const cr_cook_mesh *m, const cr_cook_grid *g, const bone_def *bones, uint32_t nb, uint8_t *sb,
                         float *sw, cr_cook_progress *prog) {
    size_t nx = g->dims[0], ny = g->dims[1], nz = g->dims[2], total = nx * ny * nz;
    double h = g->cell;
    /* solid: inside, or within one cell of the surface so that every
     * vertex has solid corners around it */
    bone_shape *shapes = malloc(sizeof(bone_shape) * nb);
    bone_shapes(bones, nb, g, shapes);
    uint8_t *solid = malloc(total);
    for (size_t i = 0; i < total; ++i) solid[i] = g->values[i] <= h;
    float *dist = malloc(sizeof(float) * total);
    gheap *heap = malloc(sizeof(gheap) * (total * 26 + 1));
    float *vd = malloc(sizeof(float) * (size_t)m->vertex_count * nb);
    int off[26][3];
    float len[26];
    int no = 0;
    for (int dz = -1; dz <= 1; ++dz)
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
                if (!dx && !dy && !dz) continue;
                off[no][0] = dx, off[no][1] = dy, off[no][2] = dz;
                len[no] = (float)(h * sqrt((double)(dx * dx + dy * dy + dz * dz)));
                ++no;
            }
    for (uint32_t b = 0; b < nb; ++b) {
        if (prog) cr_cook_progress_update(prog, (double)b / nb);
        size_t hn = 0;
        size_t nearest = SIZE_MAX;
        double nearest_d = INFINITY;
        for (size_t i = 0; i < total; ++i) {
            dist[i] = INFINITY;
            if (!solid[i]) continue;
            double p[3];
            node_pos(g, i, p);
            double d = bone_distance(&shapes[b], p);
            if (d < nearest_d) nearest_d = d, nearest = i;
            if (d <= h) {
                dist[i] = (float)d;
                gheap it = {(float)d, (uint32_t)i};
                gpush(heap, &hn, it);
            }
        }
        if (hn == 0 && nearest != SIZE_MAX) {
            dist[nearest] = (float)nearest_d;
            gheap it = {(float)nearest_d, (uint32_t)nearest};
            gpush(heap, &hn, it);
        }
        while (hn > 0) {
            gheap it = gpop(heap, &hn);
            if (it.d > dist[it.i]) continue;
            size_t x = it.i % nx, y = (it.i / nx) % ny, z = it.i / (nx * ny);
            for (int k = 0; k < no; ++k) {
                size_t xx = x + (size_t)off[k][0], yy = y + (size_t)off[k][1], zz = z + (size_t)off[k][2];
                /* unsigned wrap turns -1 into a huge value, caught by the bound */
                if (xx >= nx || yy >= ny || zz >= nz) continue;
                size_t j = xx + nx * (yy + ny * zz);
                if (!solid[j]) continue;
                float nd = it.d + len[k];
                if (nd < dist[j]) {
                    dist[j] = nd;
                    gheap ni = {nd, (uint32_t)j};
                    gpush(heap, &hn, ni);
                }
            }
        }
        for (uint32_t v = 0; v < m->vertex_count; ++v) {
            const double *p = m->pos + 3 * (size_t)v;
            /* trilinear in the corners of the vertex's cell: a function of
             * the position that is continuous from cell to cell (the
             * corners' values are the nodes' own), so the weights are */
            double best = cell_distance(g, dist, off, len, no, p);
            /* no corner reached (a piece the bone's region does not reach):
             * the nearest node of the cell or of one ring further out */
            for (int ring = 1; ring <= 2 && !isfinite(best); ++ring) {
                long bx = (long)floor((p[0] - g->origin[0]) / h), by = (long)floor((p[1] - g->origin[1]) / h),
                     bz = (long)floor((p[2] - g->origin[2]) / h);
                for (long z = bz - ring + 1; z <= bz + ring; ++z)
                    for (long y = by - ring + 1; y <= by + ring; ++y)
                        for (long x = bx - ring + 1; x <= bx + ring; ++x) {
                            if (x < 0 || y < 0 || z < 0 || x >= (long)nx || y >= (long)ny || z >= (long)nz) continue;
                            size_t j = (size_t)x + nx * ((size_t)y + ny * (size_t)z);
                            if (!isfinite(dist[j])) continue;
                            double q[3];
                            node_pos(g, j, q);
                            double d = dist[j] + sqrt(dist2_3(p, q));
                            if (d < best) best = d;
                        }
            }
            vd[(size_t)v * nb + b] = (float)best;
        }
    }
    for (uint32_t v = 0; v < m->vertex_count; ++v) {
        float *d = vd + (size_t)v * nb;
        int any = 0;
        for (uint32_t b = 0; b < nb; ++b) any |= isfinite(d[b]);
        /* a piece no bone's region reaches: fall back to straight-line distance */
        if (!any)
            for (uint32_t b = 0; b < nb; ++b) d[b] = (float)bone_distance(&shapes[b], m->pos + 3 * (size_t)v);
        /* phi_b = S(1 - (d_b - d_min) / band_b), S the smoothstep: 1 for the
         * nearest bone, 0 for a bone a band or more further away */
        double dmin = INFINITY;
        for (uint32_t b = 0; b < nb; ++b)
            if (d[b] < dmin) dmin = d[b];
        uint32_t top[CR_ASSET_SKIN_SLOTS + 1];
        double tw[CR_ASSET_SKIN_SLOTS + 1];
        uint32_t nt = 0;
        for (uint32_t b = 0; b < nb; ++b) {
            double band = SKIN_BAND * shapes[b].reach;
            if (band < h) band = h;
            double x = isfinite(d[b]) ? 1.0 - (d[b] - dmin) / band : 0;
            x = x < 0 ? 0 : (x > 1 ? 1 : x);
            double w = x * x * (3 - 2 * x);
            /* insertion into the top five: larger weight first, lower index on ties */
            uint32_t pos = nt;
            while (pos > 0 && w > tw[pos - 1]) --pos;
            if (pos > CR_ASSET_SKIN_SLOTS) continue;
            uint32_t last = nt < CR_ASSET_SKIN_SLOTS + 1 ? nt : CR_ASSET_SKIN_SLOTS;
            for (uint32_t k = last; k > pos; --k) top[k] = top[k - 1], tw[k] = tw[k - 1];
            top[pos] = b;
            tw[pos] = w;
            if (nt < CR_ASSET_SKIN_SLOTS + 1) ++nt;
        }
        /* less the fifth: the four slots' weights stay continuous where a
         * fifth bone overtakes the fourth (both are at the fifth's value
         * there, so 0 either side) */
        double fifth = nt > CR_ASSET_SKIN_SLOTS ? tw[CR_ASSET_SKIN_SLOTS] : 0, sum = 0;
        if (nt > CR_ASSET_SKIN_SLOTS) nt = CR_ASSET_SKIN_SLOTS;
        for (uint32_t k = 0; k < nt; ++k) tw[k] = tw[k] - fifth, sum += tw[k];
        /* five bones at the same nearest distance (sum 0): the first alone */
        for (uint32_t k = 0; k < CR_ASSET_SKIN_SLOTS; ++k) {
            float w = k < nt ? (float)(sum > 0 ? tw[k] / sum : (k == 0 ? 1.0 : 0.0)) : 0.0f;
            sb[4 * (size_t)v + k] = w != 0 ? (uint8_t)top[k] : 0;
            sw[4 * (size_t)v + k] = w;
        }
    }
    free(solid), free(dist), free(heap), free(vd), free(shapes);
}

int cr_cook_skin_build(const cr_cook_mesh *m, const cr_cook_grid *g, const cr_cook_frame *f, const cr_cook_options *opt,
                       cr_cook_skin *out, char *err, size_t en, cr_cook_progress *prog) {
    memset(out, 0, sizeof *out);
    bone_def *bones = NULL;
    uint32_t nb = 0;
    if (opt->rig_path != NULL) {
        if (read_rig(opt->rig_path, f, &bones, &nb, err, en) != 0) return -1;
    } else if (opt->auto_bones > 0) {
        if (opt->auto_bones > CR_ASSET_MAX_BONES) return msg(err, en, "--bones auto:N allows at most %u bones", CR_ASSET_MAX_BONES);
        nb = opt->auto_bones;
        if (auto_bones(g, nb, &bones, err, en) != 0) return -1;
    } else {
        if (opt->poses_path != NULL) return msg(err, en, "%s: example poses need bones: give --rig or --bones auto:N", opt->poses_path);
        return 0;
    }
    out->bone_count = nb;
    out->parent = malloc(sizeof(int32_t) * nb);
    out->rest = malloc(sizeof(double) * 7 * nb);
    for (uint32_t b = 0; b < nb; ++b) {
        out->parent[b] = bones[b].parent;
        memcpy(out->rest + 7 * b, bones[b].head, sizeof(double) * 3);
        memcpy(out->rest + 7 * b + 3, bones[b].q, sizeof(double) * 4);
    }
    out->skin_bone = malloc(4 * (size_t)m->vertex_count);
    out->skin_weight = malloc(sizeof(float) * 4 * (size_t)m->vertex_count);
    skin_weights(m, g, bones, nb, out->skin_bone, out->skin_weight, prog);
    if (opt->poses_path != NULL) {
        if (read_poses(opt->poses_path, f, bones, nb, &out->examples, &out->example_count, err, en) != 0) {
            free(bones);
            cr_cook_skin_free(out);
            return -1;
        }
    } else {
        out->example_count = 1;
        out->examples = malloc(sizeof(double) * 7 * nb);
        for (uint32_t b = 0; b < nb; ++b) {
            double id[7] = {0, 0, 0, 0, 0, 0, 1};
            memcpy(out->examples + 7 * b, id, sizeof id);
        }
    }
    free(bones);
    return 0;
}

void cr_cook_skin_free(cr_cook_skin *s) {
    free(s->parent);
    free(s->rest);
    free(s->skin_bone);
    free(s->skin_weight);
    free(s->examples);
    memset(s, 0, sizeof *s);
}
