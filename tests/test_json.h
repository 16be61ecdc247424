/* test_json.h — a small JSON reader for the tests of what the tools print
 * (`crumple run --json`): strict enough to reject what a real parser would,
 * into a tree of stb_ds arrays; run_json steps a scene as `crumple run` does
 * and returns what --json prints. Parse with jvalue, check jws(&r) reached the
 * end and r.ok, look fields up with jget, free with jfree.
 */
#ifndef CRUMPLE_TEST_JSON_H
#define CRUMPLE_TEST_JSON_H

#include "test_scene_util.h"
#include "stb_ds.h"

#include <stdlib.h>
#include <string.h>

typedef enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ } jtype;
typedef struct jnode {
    jtype type;
    double num;
    char str[256];
    char key[64];
    struct jnode *kids; /* stb_ds */
} jnode;

typedef struct jreader {
    const char *p;
    int ok;
} jreader;

static inline void jws(jreader *r) {
    while (*r->p == ' ' || *r->p == '\n' || *r->p == '\t' || *r->p == '\r') ++r->p;
}

static inline void jstring(jreader *r, char *out, size_t cap) {
    size_t n = 0;
    if (*r->p != '"') {
        r->ok = 0;
        return;
    }
    ++r->p;
    while (*r->p && *r->p != '"') {
        char ch = *r->p++;
        if ((unsigned char)ch < 0x20) r->ok = 0;
        if (ch == '\\') {
            ch = *r->p++;
            if (ch == 'u') {
                for (int i = 0; i < 4; ++i)
                    if (!strchr("0123456789abcdefABCDEF", *r->p++)) r->ok = 0;
                ch = '?';
            } else if (!strchr("\"\\/bfnrt", ch)) {
                r->ok = 0;
            }
        }
        if (n + 1 < cap) out[n++] = ch;
    }
    out[n] = '\0';
    if (*r->p != '"') r->ok = 0;
    else ++r->p;
}

static inline void jvalue(jreader *r, jnode *n, int depth) {
    memset(n, 0, sizeof *n);
    jws(r);
    if (depth > 20) r->ok = 0;
    if (!r->ok) return;
    char c = *r->p;
    if (c == '{' || c == '[') {
        n->type = c == '{' ? J_OBJ : J_ARR;
        ++r->p;
        jws(r);
        if (*r->p == (c == '{' ? '}' : ']')) {
            ++r->p;
            return;
        }
        for (;;) {
            jnode kid;
            char key[64] = "";
            jws(r);
            if (c == '{') {
                jstring(r, key, sizeof key);
                jws(r);
                if (*r->p != ':') r->ok = 0;
                ++r->p;
            }
            if (!r->ok) return;
            jvalue(r, &kid, depth + 1);
            strcpy(kid.key, key);
            arrput(n->kids, kid);
            jws(r);
            if (*r->p == ',') {
                ++r->p;
                continue;
            }
            if (*r->p == (c == '{' ? '}' : ']')) {
                ++r->p;
                return;
            }
            r->ok = 0;
            return;
        }
    } else if (c == '"') {
        n->type = J_STR;
        jstring(r, n->str, sizeof n->str);
    } else if (strncmp(r->p, "null", 4) == 0) {
        n->type = J_NULL;
        r->p += 4;
    } else if (strncmp(r->p, "true", 4) == 0 || strncmp(r->p, "false", 5) == 0) {
        n->type = J_BOOL;
        r->p += *r->p == 't' ? 4 : 5;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
        /* JSON grammar: -?(0|[1-9]d*)(.d+)?([eE][+-]?d+)? */
        const char *s = r->p;
        if (*s == '-') ++s;
        if (*s == '0') ++s;
        else if (*s >= '1' && *s <= '9') while (*s >= '0' && *s <= '9') ++s;
        else r->ok = 0;
        if (*s == '.') {
            ++s;
            if (!(*s >= '0' && *s <= '9')) r->ok = 0;
            while (*s >= '0' && *s <= '9') ++s;
        }
        if (*s == 'e' || *s == 'E') {
            ++s;
            if (*s == '+' || *s == '-') ++s;
            if (!(*s >= '0' && *s <= '9')) r->ok = 0;
            while (*s >= '0' && *s <= '9') ++s;
        }
        n->type = J_NUM;
        n->num = strtod(r->p, NULL);
        r->p = s;
    } else {
        r->ok = 0;
    }
}

static inline void jfree(jnode *n) {
    for (ptrdiff_t i = 0; i < arrlen(n->kids); ++i) jfree(&n->kids[i]);
    arrfree(n->kids);
}

static inline const jnode *jget(const jnode *n, const char *key) {
    if (n == NULL || n->type != J_OBJ) return NULL;
    for (ptrdiff_t i = 0; i < arrlen(n->kids); ++i)
        if (strcmp(n->kids[i].key, key) == 0) return &n->kids[i];
    return NULL;
}

static inline int jnum_array(const jnode *n, int len) {
    if (n == NULL || n->type != J_ARR || arrlen(n->kids) != len) return 0;
    for (int i = 0; i < len; ++i)
        if (n->kids[i].type != J_NUM) return 0;
    return 1;
}

/* Runs a scene as `crumple run` does and returns the JSON text (malloc'ed). */
static inline char *run_json(cr_scene *s, cr_world *w, int frames) {
    cr_run_stats rs;
    memset(&rs, 0, sizeof rs);
    cr_scene_error e;
    for (int f = 0; f < frames; ++f) {
        if (cr_scene_step(s, w, f, &e)) return NULL;
        cr_world_stats ws = cr_world_get_stats(w);
        cr_run_stats_add(&rs, &ws, 0.25);
    }
    return run_output(cr_run_write_json, s, w, &rs);
}

#endif
