/* test_scene_util.h — running shipped scenes in tests exactly as `crumple run`
 * does: cr_scene_load, cr_scene_build, then cr_scene_step per frame. */
#ifndef CRUMPLE_TEST_SCENE_UTIL_H
#define CRUMPLE_TEST_SCENE_UTIL_H

#include "test.h"
#include "scene.h"
#include "cli.h"

#include <stdlib.h>
#include <string.h>

typedef struct scene_run {
    cr_scene *s;
    cr_world *w;
} scene_run;

static inline int open_scene(const char *name, scene_run *r) {
    char path[256];
    snprintf(path, sizeof path, "data/scenes/%s.scene", name);
    cr_scene_error e;
    memset(r, 0, sizeof *r);
    if (cr_scene_load(path, &r->s, &e) || cr_scene_build(r->s, &r->w, &e)) {
        cr_scene_error_print(stdout, &e);
        cr_scene_free(r->s);
        r->s = NULL;
        return -1;
    }
    return 0;
}

/* The same, with the scene's shock propagation setting replaced (as
 * `crumple run --shock on|off` does). */
static inline int open_scene_with_shock(const char *name, int on, scene_run *r) {
    char path[256];
    snprintf(path, sizeof path, "data/scenes/%s.scene", name);
    cr_scene_error e;
    memset(r, 0, sizeof *r);
    if (cr_scene_load(path, &r->s, &e)) {
        cr_scene_error_print(stdout, &e);
        return -1;
    }
    r->s->def.shock_propagation = on != 0;
    if (cr_scene_build(r->s, &r->w, &e)) {
        cr_scene_error_print(stdout, &e);
        cr_scene_free(r->s);
        r->s = NULL;
        return -1;
    }
    return 0;
}

/* The live body a scene line named (a zero handle when no line did). */
static inline cr_body_id body_named(const scene_run *r, const char *name) {
    int32_t i = cr_scene_find_body(r->s, name);
    cr_body_id none = {0, 0};
    return i < 0 ? none : r->s->bodies[i].id;
}

static inline int step(scene_run *r, int32_t frame) {
    cr_scene_error e;
    if (cr_scene_step(r->s, r->w, frame, &e)) {
        cr_scene_error_print(stdout, &e);
        return -1;
    }
    return 0;
}

/* What one of `crumple run`'s writers (cr_run_write_json, cr_run_write_summary)
 * prints for the world as it is now, as a string to free; NULL on failure. */
typedef void (*run_writer)(FILE *out, const cr_scene *s, const cr_world *w, const cr_run_stats *rs);
static inline char *run_output(run_writer write, const cr_scene *s, const cr_world *w, const cr_run_stats *rs) {
    FILE *tmp = tmpfile();
    if (tmp == NULL) return NULL;
    write(tmp, s, w, rs);
    long n = ftell(tmp);
    rewind(tmp);
    char *text = (char *)calloc(1, (size_t)n + 1);
    if (text != NULL && fread(text, 1, (size_t)n, tmp) != (size_t)n) text[0] = '\0';
    fclose(tmp);
    return text;
}

static inline void close_scene(scene_run *r) {
    cr_cli_world_free(r->w);
    cr_scene_free(r->s);
}

static inline cr_body_id body(const scene_run *r, const char *name) {
    int32_t i = cr_scene_find_body(r->s, name);
    cr_body_id none = {0, 0};
    return i < 0 ? none : r->s->bodies[i].id;
}

#endif
