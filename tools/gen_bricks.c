/* gen_bricks.c — `crumple gen bricks`: an artist-style prescored asset, a
 * grid of bricks whose OBJ `o` groups are the pieces (docs/fracture.md), for
 * `crumple cook --pieces groups`.
 *
 * Notes
 *   - Every corner lies on one integer lattice (quads per brick edge) and is
 *     written once, at its first use, so two neighbouring bricks share the
 *     corners of their common face exactly: that is how the cooker finds the
 *     bonds between pieces.
 *   - Each face quad is split along the diagonal through its lexicographically
 *     smallest corner (by position), so a shared face has the same triangles
 *     seen from both bricks, whatever the brick's side.
 *   - Coordinates are lattice index x (brick edge / quads), one IEEE multiply
 *     and one division each, printed with %.9g (correctly rounded by the C
 *     library): the same bytes on every machine.
 */
#include "gen_mesh.h"
#include "stb_ds.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

cr_gen_bricks cr_gen_default_bricks(void) {
    return (cr_gen_bricks){{4, 3, 1}, {0.25, 0.25, 0.2}, 3};
}

/* %.9g, never "-0". */
static void put_number(char **text, double x) {
    char buf[32];
    snprintf(buf, sizeof buf, "%.9g", x);
    const char *s = strcmp(buf, "-0") == 0 ? "0" : buf;
    for (const char *c = s; *c; ++c) arrput(*text, *c);
}

static void put_text(char **text, const char *s) {
    for (; *s; ++s) arrput(*text, *s);
}

typedef struct brick_lattice {
    int size[3];  /* corners along each axis */
    int *id;      /* 1-based OBJ index of each lattice corner, 0 = not written yet */
    int *order;   /* stb_ds: lattice corners in first-use order */
} brick_lattice;

static int corner_id(brick_lattice *l, const int g[3]) {
    size_t k = ((size_t)g[2] * (size_t)l->size[1] + (size_t)g[1]) * (size_t)l->size[0] + (size_t)g[0];
    if (l->id[k] == 0) {
        arrput(l->order, (int)k);
        l->id[k] = (int)arrlen(l->order);
    }
    return l->id[k];
}

/* The two triangles of one face quad, q counter-clockwise seen from outside. */
static void put_quad(char **text, brick_lattice *l, int q[4][3], const double step[3]) {
    int m = 0;
    for (int k = 1; k < 4; ++k)
        for (int a = 0; a < 3; ++a) {
            double pk = q[k][a] * step[a], pm = q[m][a] * step[a];
            if (pk != pm) {
                if (pk < pm) m = k;
                break;
            }
        }
    int s = (m == 0 || m == 2) ? 0 : 1; /* the diagonal through the smallest corner */
    int t[2][3] = {{s, s + 1, s + 2}, {s, s + 2, (s + 3) % 4}};
    for (int i = 0; i < 2; ++i) {
        int id[3]; /* in order: first use numbers the corners */
        for (int k = 0; k < 3; ++k) id[k] = corner_id(l, q[t[i][k]]);
        char line[64];
        snprintf(line, sizeof line, "f %d %d %d\n", id[0], id[1], id[2]);
        put_text(text, line);
    }
}

char *cr_gen_bricks_obj(const cr_gen_bricks *b, size_t *size) {
    for (int a = 0; a < 3; ++a)
        if (b->count[a] < 1 || b->count[a] > 64 || !(b->brick[a] > 0 && b->brick[a] <= 100)) return NULL;
    if (b->quads < 1 || b->quads > 16) return NULL;
    const int n = b->quads;
    double step[3];
    brick_lattice l = {{0}, NULL, NULL};
    size_t corners = 1;
    for (int a = 0; a < 3; ++a) {
        step[a] = b->brick[a] / n;
        l.size[a] = b->count[a] * n + 1;
        corners *= (size_t)l.size[a];
    }
    l.id = calloc(corners, sizeof *l.id);
    if (l.id == NULL) return NULL;
    /* Faces first (they fix the corners' order), vertices written before them at the end. */
    char *faces = NULL;
    for (int z = 0; z < b->count[2]; ++z)
        for (int y = 0; y < b->count[1]; ++y)
            for (int x = 0; x < b->count[0]; ++x) {
                char line[64];
                snprintf(line, sizeof line, "o brick_%d_%d_%d\n", x, y, z);
                put_text(&faces, line);
                const int lo[3] = {x * n, y * n, z * n};
                for (int axis = 0; axis < 3; ++axis) {
                    const int u = (axis + 1) % 3, v = (axis + 2) % 3; /* u x v is +axis */
                    for (int side = 0; side < 2; ++side)
                        for (int j = 0; j < n; ++j)
                            for (int i = 0; i < n; ++i) {
                                int q[4][3];
                                const int du[4] = {i, i + 1, i + 1, i}, dv[4] = {j, j, j + 1, j + 1};
                                for (int k = 0; k < 4; ++k) {
                                    int *g = q[side ? k : 3 - k]; /* the low face looks down its axis */
                                    g[axis] = lo[axis] + side * n;
                                    g[u] = lo[u] + du[k];
                                    g[v] = lo[v] + dv[k];
                                }
                                put_quad(&faces, &l, q, step);
                            }
                }
            }
    char *text = NULL;
    char head[256];
    snprintf(head, sizeof head, "# %d x %d x %d bricks, one `o` group per brick: crumple gen bricks --nx %d --ny %d --nz %d",
             b->count[0], b->count[1], b->count[2], b->count[0], b->count[1], b->count[2]);
    put_text(&text, head);
    const char *edge[3] = {" --bx ", " --by ", " --bz "};
    for (int a = 0; a < 3; ++a) {
        put_text(&text, edge[a]);
        put_number(&text, b->brick[a]);
    }
    snprintf(head, sizeof head, " --quads %d\n", b->quads);
    put_text(&text, head);
    for (ptrdiff_t k = 0; k < arrlen(l.order); ++k) {
        int c = l.order[k];
        int g[3] = {c % l.size[0], (c / l.size[0]) % l.size[1], c / (l.size[0] * l.size[1])};
        put_text(&text, "v");
        for (int a = 0; a < 3; ++a) {
            put_text(&text, " ");
            put_number(&text, g[a] * step[a]);
        }
        put_text(&text, "\n");
    }
    for (ptrdiff_t k = 0; k < arrlen(faces); ++k) arrput(text, faces[k]);
    *size = (size_t)arrlen(text);
    char *out = malloc(*size + 1);
    if (out != NULL) {
        memcpy(out, text, *size);
        out[*size] = '\0';
    }
    arrfree(text);
    arrfree(faces);
    arrfree(l.order);
    free(l.id);
    return out;
}
