/* cook_squash.c — a squishy asset's skeleton (seed 003) for the cooker: the
 * skeleton text file, its move into the body frame, the check that the mesh
 * lies on f = c, and the star-meshed rest surface of a skeleton given alone.
 *
 * Skeleton file (docs/asset-format.md), OBJ coordinates, `#` comments:
 *     isovalue C                                       (default 0.5)
 *     point   X Y Z  R [W]                             (W: weight, default 1)
 *     segment AX AY AZ  BX BY BZ  R [W]
 *     rect    CX CY CZ  UX UY UZ  VX VY VZ  R [W]      (U, V: perpendicular half-edges)
 *     mesh    CELLS                                    (cells along the longest side when meshed here; default 32)
 *     mesher  grid|star                                (default grid: any shape; star: rays from the centre)
 *     group   NAME                                     (the primitives after it are in group NAME; at most 16)
 *     collide NAME NAME                                (two groups that collide: each deforms the other's skin)
 *     blend   NAME NAME                                (two groups that blend: the default, said for the reader)
 * The blending graph (seed 003 §4.2, docs/squash.md): groups blend unless a
 * collide line says otherwise. Colliding groups must not overlap at the
 * cooked pose (the mesh is the blended skin: the check below refuses it).
 */
#include "cook_squash.h"
#include "squash_mesh.h"
#include "squash_polygonise.h"
#include "crumple/asset.h"
#include "implicit_skeleton.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cr_cook_squash_free(cr_cook_squash *s) {
    free(s->prims);
    memset(s, 0, sizeof *s);
}

int cr_cook_squash_copy(const cr_cook_squash *s, cr_cook_squash *out, char *err, size_t en) {
    *out = *s;
    out->prims = malloc((s->count ? s->count : 1) * sizeof *out->prims);
    if (out->prims == NULL) {
        memset(out, 0, sizeof *out);
        snprintf(err, en, "out of memory");
        return -1;
    }
    memcpy(out->prims, s->prims, s->count * sizeof *out->prims);
    return 0;
}

static int fail(char *err, size_t n, const char *path, int line, const char *what) {
    snprintf(err, n, "%s:%d: %s", path, line, what);
    return -1;
}

int cr_cook_squash_read(const char *path, cr_cook_squash *out, char *err, size_t en) {
    memset(out, 0, sizeof *out);
    out->isovalue = 0.5;
    out->mesh_cells = 32;
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        snprintf(err, en, "%s: cannot open the skeleton file", path);
        return -1;
    }
    char buf[1024];
    int line = 0, group = 0;
    uint16_t pair_bits[CR_SQUASH_MAX_GROUPS] = {0}; /* pairs named by a collide or blend line */
    while (fgets(buf, sizeof buf, f)) {
        ++line;
        char *h = strchr(buf, '#');
        if (h) *h = 0;
        char word[32];
        double v[12];
        int used = 0;
        if (sscanf(buf, " %31s%n", word, &used) != 1) continue;
        if (strcmp(word, "group") == 0 || strcmp(word, "collide") == 0 || strcmp(word, "blend") == 0) {
            char na[64], nb[64];
            int tail = 0, pair = word[0] != 'g';
            int got = pair ? sscanf(buf + used, " %63s %63s %n", na, nb, &tail) : sscanf(buf + used, " %63s %n", na, &tail);
            if (got != (pair ? 2 : 1) || buf[used + tail] != 0) {
                fclose(f);
                return fail(err, en, path, line, pair ? "collide and blend need two group names" : "group needs one name");
            }
            if (!pair) {
                if (strlen(na) >= sizeof out->group_names[0]) {
                    fclose(f);
                    return fail(err, en, path, line, "a group name is longer than 31 characters");
                }
                uint32_t g = 0;
                while (g < out->group_count && strcmp(out->group_names[g], na) != 0) ++g;
                if (g == out->group_count) {
                    if (g == CR_SQUASH_MAX_GROUPS) {
                        fclose(f);
                        return fail(err, en, path, line, "more than 16 groups");
                    }
                    strcpy(out->group_names[g], na), out->group_count++;
                }
                group = (int)g;
                continue;
            }
            int ga = -1, gb = -1;
            for (uint32_t g = 0; g < out->group_count; ++g) {
                if (strcmp(out->group_names[g], na) == 0) ga = (int)g;
                if (strcmp(out->group_names[g], nb) == 0) gb = (int)g;
            }
            if (ga < 0 || gb < 0) {
                char why[160];
                snprintf(why, sizeof why, "unknown group '%.40s' (name it in a group line before)", ga < 0 ? na : nb);
                fclose(f);
                return fail(err, en, path, line, why);
            }
            if (ga == gb) {
                fclose(f);
                return fail(err, en, path, line, "a group blends with itself and cannot collide with itself");
            }
            uint32_t bit = pair_bits[ga] >> gb & 1u;
            if (bit && ((out->collide[ga] >> gb & 1u) != (word[0] == 'c'))) {
                fclose(f);
                return fail(err, en, path, line, "these two groups were said to blend and to collide");
            }
            pair_bits[ga] |= (uint16_t)(1u << gb), pair_bits[gb] |= (uint16_t)(1u << ga);
            if (word[0] == 'c') out->collide[ga] |= (uint16_t)(1u << gb), out->collide[gb] |= (uint16_t)(1u << ga);
            continue;
        }
        if (strcmp(word, "mesher") == 0) {
            char kind[16];
            int tail = 0;
            if (sscanf(buf + used, " %15s %n", kind, &tail) != 1 || buf[used + tail] != 0 ||
                (strcmp(kind, "grid") != 0 && strcmp(kind, "star") != 0)) {
                fclose(f);
                return fail(err, en, path, line, "mesher needs 'grid' or 'star'");
            }
            out->mesher = strcmp(kind, "star") == 0 ? CR_COOK_MESHER_STAR : CR_COOK_MESHER_GRID;
            continue;
        }
        int n = 0;
        char *p = buf + used, *end;
        while (n < 12) {
            double x = strtod(p, &end);
            if (end == p) break;
            if (!isfinite(x)) {
                fclose(f);
                return fail(err, en, path, line, "a number is not finite");
            }
            v[n++] = x, p = end;
        }
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') ++p;
        if (*p != 0) {
            fclose(f);
            return fail(err, en, path, line, "unexpected text after the numbers");
        }
        int type = strcmp(word, "point") == 0 ? 0 : strcmp(word, "segment") == 0 ? 1 : strcmp(word, "rect") == 0 ? 2 : -1;
        if (strcmp(word, "isovalue") == 0) {
            if (n != 1 || !(v[0] > 0)) {
                fclose(f);
                return fail(err, en, path, line, "isovalue needs one number above 0");
            }
            out->isovalue = v[0];
            continue;
        }
        if (strcmp(word, "mesh") == 0) {
            if (n != 1 || !(v[0] >= 4 && v[0] <= 512)) {
                fclose(f);
                return fail(err, en, path, line, "mesh needs a cell count from 4 to 512");
            }
            out->mesh_cells = (int)v[0];
            continue;
        }
        if (type < 0) {
            fclose(f);
            return fail(err, en, path, line, "unknown keyword (isovalue, point, segment, rect, mesh, mesher)");
        }
        int need = type == 0 ? 4 : type == 1 ? 7 : 10;
        if (n != need && n != need + 1) {
            fclose(f);
            return fail(err, en, path, line, type == 0 ? "point needs X Y Z R [W]" : type == 1 ? "segment needs AX AY AZ BX BY BZ R [W]"
                                                                                             : "rect needs CX CY CZ UX UY UZ VX VY VZ R [W]");
        }
        cr_cook_primitive q;
        memset(&q, 0, sizeof q);
        q.type = type;
        memcpy(q.a, v, sizeof q.a);
        if (type >= 1) memcpy(q.b, v + 3, sizeof q.b);
        if (type == 2) memcpy(q.e, v + 6, sizeof q.e);
        q.radius = v[need - 1];
        q.weight = n == need + 1 ? v[need] : 1.0;
        q.group = group;
        if (!(q.radius > 1e-4 && q.radius < 1e4) || !(q.weight > 0 && q.weight < 1e4)) {
            fclose(f);
            return fail(err, en, path, line, "the radius must be in (1e-4, 1e4) m and the weight in (0, 1e4)");
        }
        if (type == 2) {
            double d = q.b[0] * q.e[0] + q.b[1] * q.e[1] + q.b[2] * q.e[2];
            double lb = sqrt(q.b[0] * q.b[0] + q.b[1] * q.b[1] + q.b[2] * q.b[2]);
            double le = sqrt(q.e[0] * q.e[0] + q.e[1] * q.e[1] + q.e[2] * q.e[2]);
            if (fabs(d) > 1e-4 * lb * le) {
                fclose(f);
                return fail(err, en, path, line, "a rectangle's half-edges must be perpendicular");
            }
        }
        if (out->count == CR_ASSET_MAX_SQUASH_PRIMITIVES) {
            fclose(f);
            return fail(err, en, path, line, "more primitives than the format allows (4096)");
        }
        cr_cook_primitive *grown = realloc(out->prims, (out->count + 1) * sizeof *grown);
        if (grown == NULL) {
            fclose(f);
            return fail(err, en, path, line, "out of memory");
        }
        out->prims = grown;
        out->prims[out->count++] = q;
    }
    fclose(f);
    if (out->count == 0) return fail(err, en, path, line, "no primitive (point, segment or rect)");
    for (uint32_t g = 0; g < out->group_count; ++g) {
        uint32_t k = 0;
        while (k < out->count && out->prims[k].group != (int)g) ++k;
        if (k == out->count) {
            char why[160];
            snprintf(why, sizeof why, "group '%.40s' has no primitive", out->group_names[g]);
            return fail(err, en, path, line, why);
        }
    }
    double wmax = 0;
    for (uint32_t i = 0; i < out->count; ++i) wmax = fmax(wmax, out->prims[i].weight);
    if (!(out->isovalue < wmax)) return fail(err, en, path, line, "the isovalue must be below the largest weight, or there is no skin");
    return 0;
}

/* x -> R (s x + o) + p, or for a direction R s x */
static void move(const cr_cook_frame *f, const double x[3], double y[3], int point) {
    double m[3];
    for (int k = 0; k < 3; ++k) m[k] = f->s * x[k] + (point ? f->o[k] : 0);
    for (int r = 0; r < 3; ++r) y[r] = f->R[r][0] * m[0] + f->R[r][1] * m[1] + f->R[r][2] * m[2] + (point ? f->p[r] : 0);
}

void cr_cook_squash_to_body(cr_cook_squash *s, const cr_cook_frame *f) {
    for (uint32_t i = 0; i < s->count; ++i) {
        cr_cook_primitive *q = &s->prims[i];
        double a[3], b[3], e[3];
        move(f, q->a, a, 1);
        move(f, q->b, b, q->type == 1);
        move(f, q->e, e, 0);
        memcpy(q->a, a, sizeof a), memcpy(q->b, b, sizeof b), memcpy(q->e, e, sizeof e);
        q->radius *= f->s;
    }
}

void cr_cook_squash_runtime(const cr_cook_squash *s, cr_squash_primitive *out) {
    for (uint32_t i = 0; i < s->count; ++i) {
        const cr_cook_primitive *q = &s->prims[i];
        out[i] = cr_default_squash_primitive();
        out[i].type = (uint32_t)q->type;
        out[i].a = cr_v3(cr_from_float((float)q->a[0]), cr_from_float((float)q->a[1]), cr_from_float((float)q->a[2]));
        out[i].b = cr_v3(cr_from_float((float)q->b[0]), cr_from_float((float)q->b[1]), cr_from_float((float)q->b[2]));
        out[i].e = cr_v3(cr_from_float((float)q->e[0]), cr_from_float((float)q->e[1]), cr_from_float((float)q->e[2]));
        out[i].radius = cr_from_float((float)q->radius);
        out[i].weight = cr_from_float((float)q->weight);
        out[i].group = (uint16_t)q->group;
        out[i].collide = s->collide[q->group];
    }
}

int cr_cook_squash_check_mesh(const cr_cook_squash *s, const double *pos, uint32_t n, double bound_radius, char *err,
                              size_t en) {
    cr_squash_primitive *p = malloc(s->count * sizeof *p);
    if (p == NULL) {
        snprintf(err, en, "out of memory");
        return -1;
    }
    cr_cook_squash_runtime(s, p);
    cr_real c = cr_from_float((float)s->isovalue);
    /* first-order distance to f = c: |f - c| / |grad f| */
    double tol = fmax(2e-3, 1e-2 * bound_radius), worst = 0;
    uint32_t at = 0;
    for (uint32_t v = 0; v < n; ++v) {
        cr_vec3 x = cr_v3(cr_from_float((float)pos[3 * v]), cr_from_float((float)pos[3 * v + 1]), cr_from_float((float)pos[3 * v + 2]));
        /* the vertex's own group's field: a colliding group that reaches it at rest is not in it */
        uint32_t mask = cri_skeleton_blend_mask(p, s->count, cri_skeleton_owner_group(p, s->count, x));
        cr_potential f = cri_skeleton_potential_groups(p, s->count, mask, x);
        double g = cr_to_double(cr_v3_len(f.grad));
        double d = g > 1e-9 ? fabs(cr_to_double(f.f - c)) / g : 1e9;
        if (d > worst) worst = d, at = v;
    }
    free(p);
    if (worst > tol) {
        int grouped = 0;
        for (uint32_t g = 0; g < CR_SQUASH_MAX_GROUPS; ++g) grouped |= s->collide[g] != 0;
        snprintf(err, en, "the mesh is not the skeleton's surface f = %g: vertex %u is %.3g m off it (at most %.3g); %s",
                 s->isovalue, at, worst, tol,
                 grouped ? "colliding groups must not overlap at the cooked pose (move them apart in the skeleton file)"
                         : "mesh the skeleton itself (crumple cook FILE.skel)");
        return -1;
    }
    return 0;
}

/* x^(1/3) for x in (0, 1) by Newton from 1 (decreasing to the root): libm's
 * cbrt is not rounded alike everywhere, and the box it sizes moves the grid. */
static double cube_root(double x) {
    double y = 1;
    for (int i = 0; i < 60; ++i) y -= (y * y * y - x) / (3 * y * y);
    return y;
}

/* The surface net over a grid of cells of side longest / mesh_cells laid over
 * the box (lo, hi) the primitives' own skins fill. The sum of primitives can
 * reach c beyond that box, so a grid whose boundary is inside grows by two
 * cells a side; a saddle caught on a grid face (not a manifold) moves the
 * grid by fixed fractions of a cell, then refines it by 5/4. Every try is
 * fixed in advance, so the result is the same on every machine. */
static int mesh_grid(const cr_squash_primitive *p, const cr_cook_squash *s, const double lo[3], const double hi[3],
                     double longest, cr_squash_mesh *m, char *err, size_t en) {
    static const double shift[4][3] = {{0, 0, 0}, {0.31, 0.17, 0.43}, {0.13, 0.47, 0.29}, {0.41, 0.23, 0.11}};
    double cells_long = s->mesh_cells, pad = 1.5;
    int rc = CR_POLYGONISE_EMPTY;
    for (int refine = 0; refine < 6; ++refine, cells_long *= 1.25)
        for (int try = 0; try < 4; ++try) {
            double cell = longest / cells_long;
            int cells[3];
            double start[3];
            for (int k = 0; k < 3; ++k) {
                cells[k] = (int)ceil((hi[k] - lo[k]) / cell + 2 * pad) + 1;
                start[k] = lo[k] - (pad + shift[try][k]) * cell;
            }
            if ((double)cells[0] * cells[1] * cells[2] > 6e7) goto out;
            cr_vec3 o = cr_v3(cr_from_float((float)start[0]), cr_from_float((float)start[1]), cr_from_float((float)start[2]));
            rc = cr_squash_polygonise(p, s->count, cr_from_float((float)s->isovalue), o, cr_from_float((float)cell), cells, m);
            if (rc == CR_POLYGONISE_OK || rc == CR_POLYGONISE_NO_MEMORY || rc == CR_POLYGONISE_EMPTY) goto out;
            if (rc == CR_POLYGONISE_BOX_CUTS_SKIN) pad += 2, --try; /* the same try on a larger box */
        }
out:
    if (rc == CR_POLYGONISE_OK) return 0;
    snprintf(err, en, "%s", rc == CR_POLYGONISE_NO_MEMORY ? "out of memory"
                            : rc == CR_POLYGONISE_EMPTY   ? "the skeleton has no skin (no grid node reaches the isovalue)"
                            : rc == CR_POLYGONISE_BOX_CUTS_SKIN
                                ? "the skeleton's skin reaches past every grid tried (over 6e7 nodes; lower 'mesh')"
                                : "the skeleton's surface could not be meshed as a closed surface "
                                  "(saddles on every grid tried; raise 'mesh')");
    return -1;
}

int cr_cook_squash_obj(const cr_cook_squash *s, cr_obj *out, char *err, size_t en) {
    memset(out, 0, sizeof *out);
    cr_squash_primitive *p = malloc(s->count * sizeof *p);
    if (p == NULL) {
        snprintf(err, en, "out of memory");
        return -1;
    }
    cr_cook_squash_runtime(s, p);
    /* the box around the skin: the skeleton's bound shrunk to where f can reach c */
    cr_vec3 centre;
    cr_real radius;
    cri_skeleton_bound(p, s->count, &centre, &radius);
    double lo[3] = {1e30, 1e30, 1e30}, hi[3] = {-1e30, -1e30, -1e30};
    for (uint32_t i = 0; i < s->count; ++i) {
        const cr_cook_primitive *q = &s->prims[i];
        double reach = q->radius * sqrt(fmax(0, 1 - cube_root(s->isovalue / q->weight)));
        double ext[3] = {0, 0, 0}, mid[3] = {q->a[0], q->a[1], q->a[2]};
        for (int k = 0; k < 3; ++k) {
            if (q->type == 1) mid[k] = 0.5 * (q->a[k] + q->b[k]), ext[k] = 0.5 * fabs(q->b[k] - q->a[k]);
            if (q->type == 2) ext[k] = fabs(q->b[k]) + fabs(q->e[k]);
            lo[k] = fmin(lo[k], mid[k] - ext[k] - reach), hi[k] = fmax(hi[k], mid[k] + ext[k] + reach);
        }
    }
    double longest = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
    cr_squash_mesh m;
    int rc;
    if (s->mesher == CR_COOK_MESHER_GRID) {
        rc = mesh_grid(p, s, lo, hi, longest, &m, err, en);
        free(p);
        if (rc != 0) return -1;
    } else {
        int cells[3];
        for (int k = 0; k < 3; ++k) {
            cells[k] = (int)ceil(s->mesh_cells * (hi[k] - lo[k]) / longest);
            if (cells[k] < 2) cells[k] = 2;
        }
        cr_vec3 mid = cr_v3(cr_from_float((float)(0.5 * (lo[0] + hi[0]))), cr_from_float((float)(0.5 * (lo[1] + hi[1]))),
                            cr_from_float((float)(0.5 * (lo[2] + hi[2]))));
        cr_vec3 half = cr_v3(cr_from_float((float)(0.5 * (hi[0] - lo[0]))), cr_from_float((float)(0.5 * (hi[1] - lo[1]))),
                             cr_from_float((float)(0.5 * (hi[2] - lo[2]))));
        rc = cr_squash_mesh_star(p, s->count, cr_from_float((float)s->isovalue), mid, half, cells, &m);
        free(p);
        if (rc != 0) {
            snprintf(err, en, "the skeleton's surface could not be meshed from its centre (not star-shaped, or no surface)");
            return -1;
        }
    }
    out->pos = malloc(3 * (size_t)m.vertex_count * sizeof(double));
    out->tri = malloc(3 * (size_t)m.triangle_count * sizeof(uint32_t));
    if (out->pos == NULL || out->tri == NULL) {
        cr_squash_mesh_free(&m);
        cr_obj_free(out);
        snprintf(err, en, "out of memory");
        return -1;
    }
    for (uint32_t v = 0; v < m.vertex_count; ++v) {
        out->pos[3 * v] = cr_to_double(m.pos[v].x), out->pos[3 * v + 1] = cr_to_double(m.pos[v].y);
        out->pos[3 * v + 2] = cr_to_double(m.pos[v].z);
    }
    memcpy(out->tri, m.tri, 3 * (size_t)m.triangle_count * sizeof(uint32_t));
    out->vertex_count = m.vertex_count, out->triangle_count = m.triangle_count;
    out->face_count = m.triangle_count;
    cr_squash_mesh_free(&m);
    return 0;
}
