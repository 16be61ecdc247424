/* scene_error.c — how every scene error is kept and shown: `file:line: message`.
 *
 * Parsing, building and stepping a scene all fail the same way: they fill a
 * cr_scene_error with the file, the line the problem is on (0 for whole-file
 * problems, which then print without a line) and a message naming the
 * offending word, and return -1. This file is that one format, and the one
 * way a runtime refusal (status + cr_field) is put into words.
 */
#include "scene.h"

#include <stdarg.h>

void cr_scene_error_set_v(cr_scene_error *e, const char *file, int line, const char *fmt, va_list ap) {
    if (e == NULL) return;
    snprintf(e->file, sizeof e->file, "%s", file ? file : "");
    e->line = line;
    vsnprintf(e->message, sizeof e->message, fmt, ap);
}

int cr_scene_error_set(cr_scene_error *e, const char *file, int line, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    cr_scene_error_set_v(e, file, line, fmt, ap);
    va_end(ap);
    return -1;
}

const char *cr_scene_refusal(char *buf, size_t size, cr_status st, cr_field f) {
    if (size == 0) return buf;
    /* the status's own text says "cr_field says which": here it is said */
    if (f != CR_FIELD_NONE && (st == CR_ERR_DEF_INVALID || st == CR_ERR_ARGUMENT_RANGE))
        snprintf(buf, size, "%s is out of range (%s)", cr_field_name(f), cr_status_name(st));
    else if (f != CR_FIELD_NONE)
        snprintf(buf, size, "%s: %s (%s)", cr_field_name(f), cr_status_message(st), cr_status_name(st));
    else
        snprintf(buf, size, "%s (%s)", cr_status_message(st), cr_status_name(st));
    return buf;
}

void cr_scene_error_format(char *buf, size_t size, const cr_scene_error *e) {
    if (size == 0) return;
    if (e->line > 0)
        snprintf(buf, size, "%s:%d: %s", e->file, e->line, e->message);
    else
        snprintf(buf, size, "%s: %s", e->file, e->message);
}

void cr_scene_error_print(FILE *out, const cr_scene_error *e) {
    char buf[CR_SCENE_PATH_MAX + 600];
    cr_scene_error_format(buf, sizeof buf, e);
    fprintf(out, "%s\n", buf);
}
