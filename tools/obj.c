/* obj.c — Wavefront OBJ reader (see obj.h for what it accepts).
 *
 * The text is copied once into a NUL-terminated buffer where `\` continuations
 * are joined, then read line by line with a cursor. Numbers go through strtod
 * and strtol with explicit end checks, so "1.5abc" or "nan" is an error at its
 * line rather than a silent zero.
 */
#include "obj.h"

#include "platform.h"
#include "stb_ds.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A positive index that was beyond the vertices read so far; checked at the end. */
typedef struct forward_ref {
    uint32_t line;
    int kind; /* 0 position, 1 texcoord, 2 normal */
    long index;
} forward_ref;

typedef struct reader {
    const char *name;
    char *err;
    size_t err_size;
    uint32_t line;
} reader;

static int error_at(reader *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static int error_at(reader *r, const char *fmt, ...) {
    if (r->err != NULL && r->err_size > 0) {
        int n = snprintf(r->err, r->err_size, "%s:%u: ", r->name, r->line);
        if (n >= 0 && (size_t)n < r->err_size) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(r->err + n, r->err_size - (size_t)n, fmt, ap);
            va_end(ap);
        }
    }
    return -1;
}

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\v'; }

/* Next whitespace-separated token of the line [*p, end); returns its length (0 at the end). */
static size_t next_token(char **p, char *end, char **tok) {
    char *s = *p;
    while (s < end && is_space(*s)) ++s;
    char *t = s;
    while (t < end && !is_space(*t)) ++t;
    *tok = s;
    *p = t;
    return (size_t)(t - s);
}

static int token_is(const char *tok, size_t n, const char *word) { return strlen(word) == n && memcmp(tok, word, n) == 0; }

/* Parses a finite double that fills the whole token. */
static int parse_double(char *tok, size_t n, double *out) {
    char save = tok[n];
    tok[n] = 0;
    char *endp = NULL;
    double v = strtod(tok, &endp);
    /* overflow gives an infinity, caught here; underflow to a tiny or zero
     * value is harmless for coordinates (errno is not consulted: <errno.h>
     * is missing from some hosts' 32-bit headers) */
    int ok = endp == tok + n && n > 0 && isfinite(v);
    tok[n] = save;
    *out = v;
    return ok;
}

/* Parses an integer that fills [s, e); 0 on success. */
static int parse_long(const char *s, const char *e, long *out) {
    if (s == e || e - s > 18) return -1;
    long v = 0;
    int neg = 0;
    if (*s == '-' || *s == '+') {
        neg = *s == '-';
        ++s;
        if (s == e) return -1;
    }
    for (; s < e; ++s) {
        if (!isdigit((unsigned char)*s)) return -1;
        v = v * 10 + (*s - '0');
    }
    *out = neg ? -v : v;
    return 0;
}

/* Joins `\`-newline continuations and makes a NUL-terminated copy. Each
 * joined newline is re-emitted after the end of the joined line, so line
 * numbers in messages stay those of the file. */
static char *prepare(const char *text, size_t len, size_t *out_len) {
    char *buf = malloc(len + 1);
    if (buf == NULL) return NULL;
    size_t o = 0, pending = 0;
    for (size_t i = 0; i < len; ++i) {
        if (text[i] == '\\') {
            size_t j = i + 1;
            while (j < len && is_space(text[j])) ++j;
            if (j < len && (text[j] == '\n' || text[j] == '\r')) {
                buf[o++] = ' ';
                if (text[j] == '\r' && j + 1 < len && text[j + 1] == '\n') ++j;
                i = j;
                ++pending;
                continue;
            }
        }
        buf[o++] = text[i];
        int line_end = text[i] == '\n' || (text[i] == '\r' && !(i + 1 < len && text[i + 1] == '\n'));
        for (; line_end && pending > 0; --pending) buf[o++] = '\n';
    }
    buf[o] = 0;
    *out_len = o;
    return buf;
}

static int resolve(reader *r, long idx, uint32_t have, int kind, forward_ref **fwd, uint32_t *out) {
    static const char *const what[] = {"vertex", "texture coordinate", "normal"};
    if (idx == 0) return error_at(r, "%s index 0 (OBJ indices start at 1)", what[kind]);
    if (idx < 0) {
        if ((uint64_t)(-idx) > have) return error_at(r, "relative %s index %ld but only %u defined so far", what[kind], idx, have);
        *out = (uint32_t)((long)have + idx);
        return 0;
    }
    if ((uint64_t)idx > 0xfffffffeu) return error_at(r, "%s index %ld is too large", what[kind], idx);
    if ((uint64_t)idx > have) {
        forward_ref f = {r->line, kind, idx};
        arrput(*fwd, f);
    }
    *out = (uint32_t)(idx - 1);
    return 0;
}

static const char *const skipped_keywords[] = {
    "s", "usemtl", "mtllib", "l", "p", "vp", "maplib", "usemap", "lod", "bevel", "c_interp", "d_interp", "shadow_obj",
    "trace_obj", "cstype", "deg", "bmat", "step", "curv", "curv2", "surf", "parm", "trim", "hole", "scrv", "sp", "end",
    "con", "mg", "ctech", "stech", "call", "csh", "res"};

int cr_obj_parse(const char *name, const char *text, size_t len, cr_obj *out, char *err, size_t err_size) {
    memset(out, 0, sizeof *out);
    reader r = {name, err, err_size, 0};
    if (err && err_size) err[0] = 0;
    size_t n;
    char *buf = prepare(text, len, &n);
    if (buf == NULL) return error_at(&r, "out of memory");
    double *pos = NULL;
    uint32_t *tri = NULL;
    uint32_t *groups = NULL; /* stb_ds: the group of each triangle */
    uint32_t *corners = NULL;
    forward_ref *fwd = NULL;
    int rc = 0;
    char *p = buf, *end = buf + n;
    while (p < end && rc == 0) {
        r.line++;
        char *eol = p;
        while (eol < end && *eol != '\n' && *eol != '\r') ++eol;
        char *next = eol;
        if (next < end) {
            if (*next == '\r' && next + 1 < end && next[1] == '\n') ++next;
            ++next;
        }
        char *cur = p;
        p = next;
        /* a comment runs to the end of the line */
        for (char *c = cur; c < eol; ++c)
            if (*c == '#') {
                eol = c;
                break;
            }
        for (char *c = cur; c < eol; ++c)
            if (*c == 0) {
                rc = error_at(&r, "NUL byte in text: this is not an OBJ text file");
                break;
            }
        if (rc) break;
        char *kw;
        size_t kn = next_token(&cur, eol, &kw);
        if (kn == 0) continue;
        if (token_is(kw, kn, "v")) {
            double v[3];
            int k = 0;
            char *tok;
            size_t tn;
            while ((tn = next_token(&cur, eol, &tok)) > 0) {
                double x;
                if (!parse_double(tok, tn, &x)) {
                    rc = error_at(&r, "vertex coordinate '%.*s' is not a finite number", (int)(tn > 40 ? 40 : tn), tok);
                    break;
                }
                if (k < 3) v[k] = x;
                ++k;
            }
            if (rc) break;
            if (k < 3 || k > 7) {
                rc = error_at(&r, "vertex needs 3 coordinates (optionally w or r g b), got %d numbers", k);
                break;
            }
            if (out->vertex_count >= 0xfffffffeu / 3) {
                rc = error_at(&r, "too many vertices");
                break;
            }
            arrput(pos, v[0]);
            arrput(pos, v[1]);
            arrput(pos, v[2]);
            out->vertex_count++;
        } else if (token_is(kw, kn, "vt") || token_is(kw, kn, "vn")) {
            int is_n = kw[1] == 'n';
            int k = 0;
            char *tok;
            size_t tn;
            while ((tn = next_token(&cur, eol, &tok)) > 0) {
                double x;
                if (!parse_double(tok, tn, &x)) {
                    rc = error_at(&r, "%s value '%.*s' is not a finite number", is_n ? "normal" : "texture coordinate",
                                  (int)(tn > 40 ? 40 : tn), tok);
                    break;
                }
                ++k;
            }
            if (rc) break;
            if (is_n ? k != 3 : (k < 1 || k > 3)) {
                rc = error_at(&r, is_n ? "normal needs 3 numbers, got %d" : "texture coordinate needs 1 to 3 numbers, got %d", k);
                break;
            }
            if (is_n)
                out->normal_count++;
            else
                out->texcoord_count++;
        } else if (token_is(kw, kn, "f") || token_is(kw, kn, "fo")) {
            arrsetlen(corners, 0);
            char *tok;
            size_t tn;
            while ((tn = next_token(&cur, eol, &tok)) > 0 && rc == 0) {
                /* v, v/vt, v//vn, v/vt/vn */
                char *part[3] = {tok, NULL, NULL}, *part_end[3] = {tok + tn, NULL, NULL};
                int parts = 1;
                for (char *c = tok; c < tok + tn; ++c)
                    if (*c == '/') {
                        if (parts == 3) {
                            rc = error_at(&r, "face corner '%.*s' has too many '/'", (int)(tn > 40 ? 40 : tn), tok);
                            break;
                        }
                        part_end[parts - 1] = c;
                        part[parts] = c + 1;
                        part_end[parts] = tok + tn;
                        parts++;
                    }
                if (rc) break;
                long idx[3] = {0, 0, 0};
                for (int k = 0; k < parts; ++k) {
                    if (k > 0 && part[k] == part_end[k]) continue; /* v//vn leaves vt empty */
                    if (parse_long(part[k], part_end[k], &idx[k]) != 0) {
                        rc = error_at(&r, "face corner '%.*s' is not v, v/vt, v//vn or v/vt/vn", (int)(tn > 40 ? 40 : tn), tok);
                        break;
                    }
                }
                if (rc) break;
                uint32_t vi, unused;
                if (resolve(&r, idx[0], out->vertex_count, 0, &fwd, &vi) != 0) {
                    rc = -1;
                    break;
                }
                if (parts > 1 && part[1] != part_end[1] && resolve(&r, idx[1], out->texcoord_count, 1, &fwd, &unused) != 0) {
                    rc = -1;
                    break;
                }
                if (parts > 2 && part[2] != part_end[2] && resolve(&r, idx[2], out->normal_count, 2, &fwd, &unused) != 0) {
                    rc = -1;
                    break;
                }
                arrput(corners, vi);
            }
            if (rc) break;
            size_t cn = arrlenu(corners);
            if (cn < 3) {
                rc = error_at(&r, "face has %zu corner%s; a face needs at least 3", cn, cn == 1 ? "" : "s");
                break;
            }
            if ((uint64_t)out->triangle_count + cn - 2 > 0x3ffffffeu) {
                rc = error_at(&r, "too many triangles");
                break;
            }
            for (size_t k = 1; k + 1 < cn; ++k) {
                arrput(tri, corners[0]);
                arrput(tri, corners[k]);
                arrput(tri, corners[k + 1]);
                arrput(groups, out->group_count);
                out->triangle_count++;
            }
            out->face_count++;
            if (cn > 3) out->polygon_count++;
        } else if (token_is(kw, kn, "o") || token_is(kw, kn, "g")) {
            out->group_count++;
        } else {
            int known = 0;
            for (size_t k = 0; k < sizeof skipped_keywords / sizeof skipped_keywords[0]; ++k)
                if (token_is(kw, kn, skipped_keywords[k])) known = 1;
            if (!known) {
                int shown = (int)(kn > 40 ? 40 : kn);
                int printable = 1;
                for (int k = 0; k < shown; ++k)
                    if (!isprint((unsigned char)kw[k])) printable = 0;
                if (printable)
                    rc = error_at(&r, "unknown statement '%.*s'", shown, kw);
                else
                    rc = error_at(&r, "unreadable line (binary data?)");
                break;
            }
            out->skipped_count++;
        }
    }
    for (size_t i = 0; rc == 0 && i < arrlenu(fwd); ++i) {
        uint32_t have = fwd[i].kind == 0 ? out->vertex_count : fwd[i].kind == 1 ? out->texcoord_count : out->normal_count;
        if ((uint64_t)fwd[i].index > have) {
            static const char *const what[] = {"vertex", "texture coordinate", "normal"};
            r.line = fwd[i].line;
            rc = error_at(&r, "%s index %ld but the file has only %u", what[fwd[i].kind], fwd[i].index, have);
        }
    }
    if (rc == 0 && out->vertex_count == 0) {
        r.line = r.line ? r.line : 1;
        rc = error_at(&r, "no vertices ('v' lines) in the file");
    } else if (rc == 0 && out->triangle_count == 0) {
        rc = error_at(&r, "no faces ('f' lines) in the file");
    }
    free(buf);
    arrfree(corners);
    arrfree(fwd);
    if (rc != 0) {
        arrfree(pos);
        arrfree(tri);
        arrfree(groups);
        memset(out, 0, sizeof *out);
        return -1;
    }
    /* hand out plain malloc'd arrays so callers need not know stb_ds */
    out->pos = malloc(sizeof(double) * 3 * out->vertex_count);
    out->tri = malloc(sizeof(uint32_t) * 3 * out->triangle_count);
    out->tri_group = malloc(sizeof(uint32_t) * out->triangle_count);
    if (out->pos == NULL || out->tri == NULL || out->tri_group == NULL) {
        arrfree(pos);
        arrfree(tri);
        arrfree(groups);
        cr_obj_free(out);
        return error_at(&r, "out of memory");
    }
    memcpy(out->pos, pos, sizeof(double) * 3 * out->vertex_count);
    memcpy(out->tri, tri, sizeof(uint32_t) * 3 * out->triangle_count);
    memcpy(out->tri_group, groups, sizeof(uint32_t) * out->triangle_count);
    arrfree(pos);
    arrfree(tri);
    arrfree(groups);
    return 0;
}

int cr_obj_load(const char *path, cr_obj *out, char *err, size_t err_size) {
    memset(out, 0, sizeof *out);
    uint8_t *data;
    size_t size;
    crp_status s = crp_read_file(path, &data, &size);
    if (s != CRP_OK) {
        if (err && err_size) snprintf(err, err_size, "%s: %s", path, crp_status_message(s));
        return -1;
    }
    int rc = cr_obj_parse(path, (const char *)data, size, out, err, err_size);
    crp_free(data);
    return rc;
}

void cr_obj_free(cr_obj *obj) {
    free(obj->pos);
    free(obj->tri);
    free(obj->tri_group);
    memset(obj, 0, sizeof *obj);
}
