/* obj_export.c — render scenes as Wavefront OBJ text. See obj_export.h.
 *
 * OBJ indices are global across the file and 1-based, so each object's faces
 * are offset by the vertices written before it. Normals are written per
 * vertex (same count and order as positions) and referenced as v//vn, which
 * every importer reads as smooth shading of the deformed surface.
 */
#include "obj_export.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform.h"
#include "stb_ds.h"

typedef struct text {
    char *buf; /* stb_ds array */
    int failed;
} text;

static void put(text *t, const char *fmt, ...) {
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof line) {
        t->failed = 1;
        return;
    }
    memcpy(arraddnptr(t->buf, n), line, (size_t)n);
}

/* "%.6f" prints -0.000000 for tiny negatives; a reader does not care, but a
 * diff between two runs would, so clamp values that round to zero. */
static double tidy(double v) { return (v > -5e-7 && v < 5e-7) ? 0.0 : v; }

int cr_render_obj_text(const cr_render_scene *s, const char *comment, char **out, size_t *out_size) {
    text t = {NULL, 0};
    put(&t, "# crumple OBJ export: deformed meshes in world space, metres\n");
    if (comment && comment[0]) {
        const char *p = comment;
        while (*p) {
            const char *e = strchr(p, '\n');
            size_t n = e ? (size_t)(e - p) : strlen(p);
            if (n > 200) n = 200;
            put(&t, "# %.*s\n", (int)n, p);
            p = e ? e + 1 : p + strlen(p);
        }
    }
    size_t base = 1;
    for (ptrdiff_t mi = 0; mi < arrlen(s->meshes); ++mi) {
        const cr_render_mesh *m = &s->meshes[mi];
        if (m->ground) continue;
        size_t nv = (size_t)arrlen(m->pos) / 3, nt = (size_t)arrlen(m->tri) / 3;
        put(&t, "o body_%u\n", m->id);
        for (size_t i = 0; i < nv; ++i)
            put(&t, "v %.6f %.6f %.6f\n", tidy(m->pos[3 * i]), tidy(m->pos[3 * i + 1]), tidy(m->pos[3 * i + 2]));
        for (size_t i = 0; i < nv; ++i) {
            double n[3] = {m->normal[3 * i], m->normal[3 * i + 1], m->normal[3 * i + 2]};
            double l = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
            if (l > 0.0) {
                /* unit normals keep importers from rescaling them differently */
                double inv = 1.0 / sqrt(l);
                n[0] *= inv; n[1] *= inv; n[2] *= inv;
            }
            put(&t, "vn %.6f %.6f %.6f\n", tidy(n[0]), tidy(n[1]), tidy(n[2]));
        }
        for (size_t i = 0; i < nt; ++i) {
            size_t a = base + m->tri[3 * i], b = base + m->tri[3 * i + 1], c = base + m->tri[3 * i + 2];
            put(&t, "f %zu//%zu %zu//%zu %zu//%zu\n", a, a, b, b, c, c);
        }
        base += nv;
    }
    if (t.failed) {
        arrfree(t.buf);
        return 0;
    }
    size_t n = (size_t)arrlen(t.buf);
    char *copy = (char *)malloc(n + 1);
    if (copy == NULL) {
        arrfree(t.buf);
        return 0;
    }
    if (n) memcpy(copy, t.buf, n);
    copy[n] = 0;
    arrfree(t.buf);
    *out = copy;
    *out_size = n;
    return 1;
}

int cr_render_export_obj(const cr_render_scene *s, const char *path, const char *comment, char *err,
                         size_t err_size) {
    char *data = NULL;
    size_t size = 0;
    if (!cr_render_obj_text(s, comment, &data, &size)) {
        snprintf(err, err_size, "%s: out of memory while writing OBJ text", path);
        return 0;
    }
    crp_status st = crp_write_file_atomic(path, data, size);
    free(data);
    if (st != CRP_OK) {
        snprintf(err, err_size, "%s: %s", path, crp_status_message(st));
        return 0;
    }
    return 1;
}
