/* test_scene_query.c — rays and overlaps a scene asks at given frames
 * (`ray`, `overlap`; tools/scene_query.c, docs/scene-format.md "Queries").
 *
 * What a tester reads must be what the runtime answers: the hits in
 * `crumple run --json` are the public query calls' on the world of that
 * frame, a ray after a dent lands in the dent's floor, asking changes no
 * state, and a bad query line is a `file:line:` error naming the word.
 */
#include "test.h"
#include "scene.h"
#include "cli.h"
#include "test_json.h"

#include <math.h>
#include <stdio.h>

/* the shipped scene's text with `extra` lines after it, parsed as that file */
static cr_scene *scene_with(const char *path, const char *extra, cr_scene_error *e) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 4096, f);
    fclose(f);
    snprintf(text + n, sizeof text - n, "\n%s", extra);
    cr_scene *s = NULL;
    return cr_scene_parse(text, strlen(text), path, &s, e) == 0 ? s : NULL;
}

static const jnode *query_named(const jnode *queries, const char *name) {
    for (ptrdiff_t i = 0; queries && i < arrlen(queries->kids); ++i) {
        const jnode *n = jget(&queries->kids[i], "name");
        if (n && n->type == J_STR && strcmp(n->str, name) == 0) return &queries->kids[i];
    }
    return NULL;
}

/* the y of the first hit on `body` in a ray query's hits; NAN if none */
static double hit_y(const jnode *q, const char *body) {
    const jnode *hits = jget(q, "hits");
    for (ptrdiff_t k = 0; hits && k < arrlen(hits->kids); ++k) {
        const jnode *b = jget(&hits->kids[k], "body"), *p = jget(&hits->kids[k], "point");
        if (b && strcmp(b->str, body) == 0 && jnum_array(p, 3)) return p->kids[1].num;
    }
    return NAN;
}

CR_TEST(scene_query_ray_lands_in_the_dent_floor_and_changes_nothing) {
    const char *path = "data/scenes/dent_ball_block.scene";
    const char *extra = "ray 0 before 0 1 0 0 -2 0 all\n"
                        "ray 90 after 0 1 0 0 -2 0 all\n"
                        "ray 90 closest 0 1 0 0 -2 0\n"
                        "ray 90 blind 0 1 0 0 -2 0 mask 0\n"
                        "overlap 90 near sphere 0 0.3 0 0.5\n"
                        "overlap 90 corner aabb 5 5 5 6 6 6\n"
                        "overlap 45 around box 0 0.3 0 0.6 0.6 0.6 rotate 0 1 0 45\n"
                        "ray 500 late 0 1 0 0 -2 0\n";
    cr_scene_error e;
    cr_scene *s = scene_with(path, extra, &e), *plain = scene_with(path, "", &e);
    ENSURE(s != NULL && plain != NULL);
    ENSURE(arrlen(s->queries) == 8);
    cr_world *w = NULL, *wp = NULL;
    ENSURE(cr_scene_build(s, &w, &e) == 0 && cr_scene_build(plain, &wp, &e) == 0);
    char *text = run_json(s, w, 90);
    ENSURE(text != NULL);
    for (int f = 0; f < 90; ++f) ENSURE(cr_scene_step(plain, wp, f, &e) == 0);
    /* asking is reading: the same state as the scene without queries */
    ENSURE(cr_world_state_hash(w) == cr_world_state_hash(wp));

    jreader r = {text, 1};
    jnode root;
    jvalue(&r, &root, 0);
    jws(&r);
    ENSURE_MSG(r.ok && *r.p == '\0', "invalid JSON near byte %d: %.40s", (int)(r.p - text), r.p);
    const jnode *queries = jget(&root, "queries");
    ENSURE(queries && queries->type == J_ARR && arrlen(queries->kids) == 8);
    const jnode *before = query_named(queries, "before"), *after = query_named(queries, "after");
    ENSURE(before && after);
    ENSURE(strcmp(jget(after, "kind")->str, "ray") == 0 && strcmp(jget(after, "shape")->str, "ray all") == 0);
    ENSURE(jget(after, "frame")->num == 90 && jget(after, "asked")->type == J_BOOL);
    /* the dent: the block's surface under the impact, before and after, against the deepest move */
    const jnode *bodies = jget(&root, "bodies");
    double deepest = 0;
    for (ptrdiff_t i = 0; i < arrlen(bodies->kids); ++i)
        if (strcmp(jget(&bodies->kids[i], "name")->str, "block") == 0)
            deepest = jget(jget(&bodies->kids[i], "damage"), "deepest")->num;
    double y0 = hit_y(before, "block"), y1 = hit_y(after, "block");
    cr_test_printf("  the block under the ray: y %.4f before, %.4f after (deepest move %.2f mm)\n", y0, y1, deepest * 1000);
    ENSURE(isfinite(y0) && isfinite(y1) && deepest > 0.03);
    ENSURE(y0 - y1 > 0.8 * deepest && y0 - y1 < 1.2 * deepest);

    /* the JSON's closest hit is the runtime's answer on the world as the run left it */
    cr_ray_hit h;
    bool found = false;
    ENSURE(cr_world_cast_ray_closest(w, cr_v3(0, CR_R(1), 0), cr_v3(0, CR_R(-2), 0), cr_default_query_filter(), &h, &found) ==
               CR_OK &&
           found);
    const jnode *closest = query_named(queries, "closest"), *ch = jget(closest, "hits");
    ENSURE(ch && arrlen(ch->kids) == 1 && arrlen(s->queries[2].hits) == 1);
    ENSURE(s->queries[2].hits[0].point.y == h.point.y && s->queries[2].hits[0].fraction == h.fraction);
    ENSURE_NEAR(jget(&ch->kids[0], "fraction")->num, cr_to_double(h.fraction), 1e-8);
    ENSURE(jget(&ch->kids[0], "triangle") != NULL || h.triangle == UINT32_MAX);

    /* a mask that sees nothing; overlaps find the bodies they cover and not the far corner */
    ENSURE(arrlen(jget(query_named(queries, "blind"), "hits")->kids) == 0);
    ENSURE(arrlen(jget(query_named(queries, "near"), "hits")->kids) >= 1);
    ENSURE(arrlen(jget(query_named(queries, "corner"), "hits")->kids) == 0);
    ENSURE(arrlen(jget(query_named(queries, "around"), "hits")->kids) >= 1);
    /* past the run's end: never asked, and says so */
    const jnode *late = query_named(queries, "late");
    ENSURE(late && jget(late, "asked")->type == J_BOOL && !s->queries[7].asked && arrlen(jget(late, "hits")->kids) == 0);
    jfree(&root);
    free(text);
    cr_cli_world_free(w);
    cr_cli_world_free(wp);
    cr_scene_free(s);
    cr_scene_free(plain);
}

CR_TEST(scene_query_lines_refuse_bad_words_naming_them) {
    static const struct {
        const char *line, *want;
    } cases[] = {
        {"ray 0 r 0 1 0 0 0 0", "ray 'r' has a zero translation"},
        {"ray 0 r 0 1 0 0 -1", "'ray translation' needs 3 numbers"},
        {"ray x r 0 1 0 0 -1 0", "'ray frame' needs a whole number"},
        {"ray 0 r 0 1 0 0 -1 0 bogus", "unknown ray attribute 'bogus' (all category mask sensors)"},
        {"ray 0 r 0 1 0 0 -1 0 mask 0xg", "'mask' needs a whole number"},
        {"overlap 0 o cube 1 2 3", "overlap 'o' needs a shape: sphere"},
        {"overlap 0 o sphere 0 0 0 -1", "the sphere's radius must be above 0"},
        {"overlap 0 o box 0 0 0 1 -1 1", "half extents must not be negative"},
        {"overlap 0 o aabb 0 0 0 -1 1 1", "the high corner is below the low one"},
        {"overlap 0 o box 0 0 0 1 1 1 rotate 0 0 0 30", "'rotate' needs an axis that is not 0"},
        {"overlap 0 o sphere 0 0 0 1 all", "unknown overlap attribute 'all' (category mask sensors)"},
        {"ray 0 1r 0 1 0 0 -1 0", "bad ray name '1r'"},
        {"ray 0 r 0 1 0 0 -1 0\nray 1 r 0 1 0 0 -1 0", "query 'r' already defined at line 3"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        char text[512];
        snprintf(text, sizeof text, "crumple-scene 1\nbody b dynamic sphere 1\n%s\n", cases[i].line);
        cr_scene *s = NULL;
        cr_scene_error e;
        ENSURE_MSG(cr_scene_parse(text, strlen(text), "q.scene", &s, &e) != 0, "'%s' was accepted", cases[i].line);
        char msg[700];
        cr_scene_error_format(msg, sizeof msg, &e);
        ENSURE_MSG(strncmp(msg, "q.scene:", 8) == 0 && strstr(msg, cases[i].want) != NULL, "'%s' gave '%s'", cases[i].line, msg);
    }
    /* the same words accepted */
    const char *ok = "crumple-scene 1\nbody b dynamic sphere 1\nray 0 r 0 5 0 0 -10 0 all sensors category 2 mask 0x3\n"
                     "overlap 3 o box 0 0 0 1 1 1 rotate 0 1 0 30 sensors\n";
    cr_scene *s = NULL;
    cr_scene_error e;
    ENSURE(cr_scene_parse(ok, strlen(ok), "q.scene", &s, &e) == 0);
    ENSURE(arrlen(s->queries) == 2 && s->queries[0].kind == CR_SCENE_QUERY_RAY_ALL && s->queries[0].filter.sensors);
    ENSURE(s->queries[0].filter.category_bits == 2 && s->queries[0].filter.mask_bits == 3 && s->queries[1].frame == 3);
    cr_world *w = NULL;
    ENSURE(cr_scene_build(s, &w, &e) == 0);
    for (int f = 0; f < 4; ++f) ENSURE(cr_scene_step(s, w, f, &e) == 0);
    ENSURE(s->queries[0].asked && arrlen(s->queries[0].hits) == 1 && s->queries[1].asked && arrlen(s->queries[1].hits) == 1);
    cr_cli_world_free(w);
    cr_scene_free(s);
}
