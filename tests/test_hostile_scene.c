/* test_hostile_scene.c — scene text a careless or hostile author writes: the
 * parser names the line and says what is wrong, and refuses a scene whose
 * world cannot exist before it allocates the bodies that world would hold.
 */
#include "test.h"
#include "scene.h"
#include "crumple/crumple.h"

#include <stdlib.h>
#include <string.h>

static int parse_msg(const char *text, char *msg, size_t n) {
    cr_scene *s = NULL;
    cr_scene_error e;
    int rc = cr_scene_parse(text, strlen(text), "t.scene", &s, &e);
    if (rc == 0) {
        snprintf(msg, n, "(parsed)");
        cr_scene_free(s);
    } else {
        cr_scene_error_format(msg, n, &e);
    }
    return rc;
}

/* Compares a message with an expected one in which "#" stands for a byte
 * count over the block limit (the world's size is the runtime's business and
 * differs between the scalar modes). */
static bool message_matches(const char *msg, const char *expected) {
    const char *hash = strchr(expected, '#');
    if (hash == NULL) return strcmp(msg, expected) == 0;
    size_t head = (size_t)(hash - expected);
    if (strncmp(msg, expected, head) != 0) return false;
    char *end;
    unsigned long long need = strtoull(msg + head, &end, 10);
    return end != msg + head && need > CR_WORLD_MAX_BLOCK_BYTES && strcmp(end, hash + 1) == 0;
}

CR_TEST(hostile_scene_messages_name_the_problem) {
    static const struct { const char *text, *message; } cases[] = {
        {"crumple-scene 1\nbody a dynamic sphere 1 position 0 nan 0\n",
         "t.scene:2: bad number 'nan' for 'position': NaN and infinity are not finite numbers"},
        {"crumple-scene 1\nbody a dynamic sphere -Infinity\n",
         "t.scene:2: bad number '-Infinity' for 'sphere': NaN and infinity are not finite numbers"},
        {"crumple-scene 1\ngravity 0 INF 0\n", "t.scene:2: bad number 'INF' for 'gravity': NaN and infinity are not finite numbers"},
        {"crumple-scene 1\ndent soft threshold nan\n",
         "t.scene:2: bad number 'nan' for 'threshold': NaN and infinity are not finite numbers"},
        {"crumple-scene 1\ndent soft fixed 0.01 max -inf\n",
         "t.scene:2: bad number '-inf' for 'max': NaN and infinity are not finite numbers"},
        {"crumple-scene 1\ndent soft heat inf\n", "t.scene:2: bad number 'inf' for 'heat': not a whole number"},
        {"crumple-scene 1\ndeform cells NaN\n", "t.scene:2: bad number 'NaN' for 'cells': not a whole number"},
        {"crumple-scene 1\nplastic tin grid_lag 8\n", "t.scene:2: 'grid_lag' must be in [1/16, 4] (grid cells)"},
        {"crumple-scene 1\nplastic tin draw_lag 0\n", "t.scene:2: 'draw_lag' must be in [1/64, 1] (grid cells)"},
        {"crumple-scene 1\nplastic tin lag 1\n",
         "t.scene:2: unknown plastic key 'lag' (alpha beta gamma lambda mu nu draw_lag grid_lag)"},
        {"\xef\xbb\xbf" "crumple-scene 1\nbody a dynamic sphere 1\n",
         "t.scene:1: the file starts with a UTF-8 byte-order mark (bytes EF BB BF); save it without one"},
        {"crumple-scene 1\ncapacity bodies 16\ngrid g dynamic sphere 0.1 count 1024 1024 1\n",
         "t.scene:3: grid of 1024x1024x1 bodies makes 1048576 bodies, over capacity bodies 16 (set at line 2)"},
        {"crumple-scene 1\ncapacity points_total 67108864\ncapacity pairs 16777216\nbody a dynamic sphere 1\n",
         "t.scene:3: the world this scene describes needs # bytes, over the 4294967280-byte block limit; "
         "lower the capacities or the bodies"},
    };
    char msg[600];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        ENSURE(parse_msg(cases[i].text, msg, sizeof msg) != 0);
        ENSURE_MSG(message_matches(msg, cases[i].message), "case %zu: %s", i, msg);
    }
    double d;
    const char *why;
    ENSURE(cr_scene_parse_number("nan", &d, &why) == -1 && strcmp(why, "NaN and infinity are not finite numbers") == 0);
    ENSURE(cr_scene_parse_number("+inf", &d, &why) == -1);
    ENSURE(cr_scene_parse_number("1.5", &d, &why) == 0 && d == 1.5);
}

/* The size the world would need is the runtime's own measure, also past the limit. */
CR_TEST(hostile_world_memory_need_goes_past_the_limit) {
    cr_world_def def = cr_default_world_def();
    ENSURE(cr_world_memory_need(&def) == cr_world_memory_size(&def));
    def.point_capacity = 1u << 26;
    def.pair_capacity = 1u << 24;
    ENSURE(cr_world_memory_size(&def) == 0);
    ENSURE(cr_world_memory_need(&def) > CR_WORLD_MAX_BLOCK_BYTES);
    def.body_capacity = 0;
    ENSURE(cr_world_memory_need(&def) == 0);
}

/* A body the parser lets through but the runtime refuses (a sphere larger
 * than CR_SHAPE_LIMIT): the message names the line, the body and the def
 * field cr_world_refused_field named, not "cr_field says which" (issue 28). */
CR_TEST(hostile_scene_refused_body_names_the_field) {
    static const char text[] = "crumple-scene 1\nbody ground static plane\nbody huge dynamic sphere 100000000\n";
    cr_scene *s = NULL;
    cr_scene_error e;
    ENSURE(cr_scene_parse(text, strlen(text), "t.scene", &s, &e) == 0);
    cr_world *w = NULL;
    ENSURE(cr_scene_build(s, &w, &e) != 0 && w == NULL);
    char msg[600];
    cr_scene_error_format(msg, sizeof msg, &e);
    ENSURE_MSG(strcmp(msg, "t.scene:3: body 'huge': cannot create: cr_body_def.shape.radius is out of range "
                           "(CR_ERR_DEF_INVALID)") == 0,
               "%s", msg);
    cr_scene_free(s);
    char buf[256];
    /* other refusals keep the status's own words, after the field */
    cr_scene_refusal(buf, sizeof buf, CR_ERR_MASS_RANGE, CR_FIELD_BODY_MASS);
    ENSURE_MSG(strcmp(buf, "cr_body_def: mass (shape x density): mass or a principal moment is too small: its reciprocal "
                           "overflows the scalar (CR_ERR_MASS_RANGE)") == 0,
               "%s", buf);
}
