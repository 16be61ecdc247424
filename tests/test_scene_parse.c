/* test_scene_parse.c — the scene-file parser as a scene author meets it.
 *
 * Good scenes give exactly the bodies, materials and inputs they describe;
 * numbers are read exactly (checked against the C library's correctly
 * rounded strtod); and every kind of bad line gives `file:line: message`
 * naming the line and the offending word, never a crash and never a scene.
 */
#include "test.h"
#include "scene.h"
#include "platform.h"
#include "stb_ds.h"

#include <stdlib.h>
#include <string.h>

#define HDR "crumple-scene 1\n"

static cr_scene *parse_ok(const char *text, cr_scene_error *e) {
    cr_scene *s = NULL;
    if (cr_scene_parse(text, strlen(text), "data/t.scene", &s, e) != 0) {
        char buf[1200];
        cr_scene_error_format(buf, sizeof buf, e);
        cr_test_printf("  unexpected parse error: %s\n", buf);
        return NULL;
    }
    return s;
}

/* Parses text that must fail; returns the formatted error ("" if it parsed). */
static const char *parse_fail(const char *text) {
    static char buf[1200];
    cr_scene *s = (cr_scene *)1;
    cr_scene_error e;
    memset(&e, 0, sizeof e);
    buf[0] = '\0';
    if (cr_scene_parse(text, strlen(text), "t.scene", &s, &e) == 0) {
        cr_scene_free(s);
        return buf;
    }
    if (s != NULL) return "scene pointer not cleared on error";
    cr_scene_error_format(buf, sizeof buf, &e);
    return buf;
}

#define ENSURE_ERROR(text, expect)                                                               \
    do {                                                                                         \
        const char *got_ = parse_fail(text);                                                     \
        ENSURE_MSG(strcmp(got_, (expect)) == 0, "scene error\n    got:    '%s'\n    wanted: '%s'", got_, (expect)); \
    } while (0)

CR_TEST(scene_parse_example_gives_what_it_describes) {
    cr_scene *s = NULL;
    cr_scene_error e;
    ENSURE(cr_scene_load("data/scenes/example.scene", &s, &e) == 0);
    /* 5 bodies, 3x2x3 grid, 1 spawned ball; one joint */
    ENSURE(arrlen(s->bodies) == 5 + 18 + 1);
    ENSURE(arrlen(s->joints) == 1 && s->joints[0].def.type == CR_JOINT_POINT && s->joints[0].body_b == -1);
    ENSURE(s->joints[0].body_a == cr_scene_find_body(s, "bob"));
    ENSURE(arrlen(s->materials) == 3); /* default, wood, rubber */
    ENSURE(s->frames == 240);
    ENSURE(s->def.collision_passes == 5 && s->def.contact_passes == 10 && s->def.shock_propagation);
    ENSURE(s->def.body_capacity >= 24);
    int32_t crate = cr_scene_find_body(s, "crate"), ball = cr_scene_find_body(s, "ball");
    ENSURE(crate >= 0 && ball >= 0 && cr_scene_find_body(s, "nobody") < 0);
    ENSURE(s->bodies[crate].def.shape.type == CR_SHAPE_BOX);
    ENSURE_NEAR(cr_to_double(s->bodies[crate].def.material.density), 700, 1e-3);
    ENSURE_NEAR(cr_to_double(s->bodies[crate].def.position.y), 0.5, 1e-9);
    /* rotate 0 0 1 45: a quarter-turn's half about z */
    ENSURE_NEAR(cr_to_double(s->bodies[ball].def.orientation.z), 0.38268343, 1e-5);
    ENSURE_NEAR(cr_to_double(s->bodies[ball].def.orientation.w), 0.92387953, 1e-5);
    ENSURE_NEAR(cr_to_double(s->bodies[ball].def.material.rolling_friction), 0.01, 1e-6);
    /* grid: instance k is (ix, iy, iz) with x fastest, then z, then y; odd parity alternates */
    int32_t h0 = cr_scene_find_body(s, "heap.0"), h1 = cr_scene_find_body(s, "heap.1"), h17 = cr_scene_find_body(s, "heap.17");
    ENSURE(h0 >= 0 && h1 == h0 + 1 && h17 == h0 + 17 && cr_scene_find_body(s, "heap.18") < 0);
    ENSURE(s->bodies[h0].def.shape.type == CR_SHAPE_BOX && s->bodies[h1].def.shape.type == CR_SHAPE_SPHERE);
    int spheres = 0;
    for (int k = 0; k < 18; ++k) spheres += s->bodies[h0 + k].def.shape.type == CR_SHAPE_SPHERE;
    ENSURE(spheres == 9);
    /* heap.17 = (2, 1, 2): 2 + 2*0.5 + jitter in x, 0.2 + 0.45 + jitter in y */
    ENSURE_NEAR(cr_to_double(s->bodies[h17].def.position.x), 3.0, 0.02 + 1e-6);
    ENSURE_NEAR(cr_to_double(s->bodies[h17].def.position.y), 0.65, 0.02 + 1e-6);
    ENSURE(s->bodies[h17].def.position.x != CR_R(3.0)); /* jitter really varies it */
    /* inputs sorted by frame; the spawn comes from the body line */
    ENSURE(arrlen(s->inputs) == 5);
    for (ptrdiff_t i = 1; i < arrlen(s->inputs); ++i) ENSURE(s->inputs[i - 1].frame <= s->inputs[i].frame);
    ENSURE(s->inputs[0].kind == CR_SCENE_INPUT_TARGET && s->inputs[0].frame == 30 && s->inputs[0].frames == 60);
    ENSURE(s->inputs[1].kind == CR_SCENE_INPUT_SPAWN && s->inputs[1].frame == 60);
    /* two inputs at frame 90 keep their order in the file */
    ENSURE(s->inputs[2].frame == 90 && s->inputs[2].kind == CR_SCENE_INPUT_IMPULSE && s->inputs[2].flags == CR_SCENE_INPUT_HAS_POINT);
    ENSURE(s->inputs[3].frame == 90 && s->inputs[3].kind == CR_SCENE_INPUT_VELOCITY);
    ENSURE(s->bodies[s->inputs[1].body].spawn_frame == 60);
    cr_scene_free(s);
}

CR_TEST(scene_parse_grid_variation_is_deterministic) {
    const char *text = HDR "grid g dynamic sphere 0.5 count 4 4 4 spacing 1.5 1.5 1.5 jitter 0.1 tilt 30 seed 9\n";
    cr_scene_error e;
    cr_scene *a = parse_ok(text, &e), *b = parse_ok(text, &e);
    ENSURE(a && b);
    ENSURE(arrlen(a->bodies) == 64);
    int differ = 0;
    for (int i = 0; i < 64; ++i) {
        ENSURE(memcmp(&a->bodies[i].def, &b->bodies[i].def, sizeof a->bodies[i].def) == 0);
        if (i > 0 && a->bodies[i].def.orientation.w != a->bodies[0].def.orientation.w) differ = 1;
        ENSURE(cr_to_double(a->bodies[i].def.orientation.w) >= cos(15.0 * 3.14159265 / 180.0) - 1e-6);
    }
    ENSURE(differ);
    /* another seed, another pile */
    cr_scene *c = parse_ok(HDR "grid g dynamic sphere 0.5 count 4 4 4 spacing 1.5 1.5 1.5 jitter 0.1 tilt 30 seed 10\n", &e);
    ENSURE(c);
    int moved = 0;
    for (int i = 0; i < 64; ++i) moved += memcmp(&c->bodies[i].def.position, &a->bodies[i].def.position, sizeof(cr_vec3)) != 0;
    ENSURE(moved > 60);
    cr_scene_free(a);
    cr_scene_free(b);
    cr_scene_free(c);
}

/* Our decimal reader must agree with a correctly rounded strtod on every
 * plain decimal, and with IEEE division on small-integer fractions. */
CR_TEST(scene_parse_filters_and_sensors_reach_the_body_defs) {
    cr_scene_error e;
    cr_scene *s = parse_ok(HDR "capacity touches 32 contact_events 16 sensors 8 sensor_events 4\n"
                               "body trigger static box 1 1 1 sensor category 0x8 mask 6 group -7\n"
                               "body ball dynamic sphere 0.5 position 0 3 0 category 18446744073709551615 group 12\n",
                           &e);
    ENSURE(s != NULL);
    const cr_body_def *t = &s->bodies[0].def, *b = &s->bodies[1].def;
    ENSURE(t->is_sensor && !b->is_sensor);
    ENSURE(t->filter.category_bits == 8 && t->filter.mask_bits == 6 && t->filter.group_index == -7);
    ENSURE(b->filter.category_bits == ~(uint64_t)0 && b->filter.mask_bits == ~(uint64_t)0 && b->filter.group_index == 12);
    ENSURE(s->def.touch_capacity == 32 && s->def.contact_event_capacity == 16);
    ENSURE(s->def.sensor_capacity == 8 && s->def.sensor_event_capacity == 4);
    cr_scene_free(s);
}

CR_TEST(scene_numbers_are_read_exactly) {
    uint64_t x = 12345;
    int checked = 0;
    for (int i = 0; i < 20000; ++i) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        char buf[64];
        int digits = 1 + (int)((x >> 20) % 17), point = (int)((x >> 30) % (unsigned)(digits + 1));
        int exp10 = (int)((x >> 40) % 21) - 10;
        int n = 0;
        if ((x >> 50) & 1) buf[n++] = '-';
        uint64_t y = x;
        for (int d = 0; d < digits; ++d) {
            if (d == point && d > 0) buf[n++] = '.';
            y = y * 2862933555777941757ull + 3037000493ull;
            buf[n++] = (char)('0' + (y >> 60) % 10);
        }
        if ((x >> 55) & 1) n += snprintf(buf + n, sizeof buf - (size_t)n, "e%d", exp10);
        buf[n] = '\0';
        double want = strtod(buf, NULL), got = 0;
        const char *why = NULL;
        if (want != 0 && (fabs(want) > 1e9 || fabs(want) < 1e-9)) {
            ENSURE_MSG(cr_scene_parse_number(buf, &got, &why) != 0, "'%s' should be out of range", buf);
            continue;
        }
        ENSURE_MSG(cr_scene_parse_number(buf, &got, &why) == 0, "'%s' rejected: %s", buf, why);
        ENSURE_MSG(got == want, "'%s': got %.17g, strtod %.17g", buf, got, want);
        ++checked;
    }
    for (int a = 1; a < 200; a += 7)
        for (int b = 1; b < 200; b += 3) {
            char buf[32];
            snprintf(buf, sizeof buf, "%d/%d", a, b);
            double got = 0;
            const char *why = NULL;
            ENSURE(cr_scene_parse_number(buf, &got, &why) == 0);
            ENSURE_MSG(got == (double)a / (double)b, "%s: got %.17g", buf, got);
        }
    double v;
    const char *why;
    ENSURE(cr_scene_parse_number("0.5/1e-2", &v, &why) == 0 && v == 50.0);
    ENSURE(cr_scene_parse_number("-.25", &v, &why) == 0 && v == -0.25);
    ENSURE(cr_scene_parse_number("+3.", &v, &why) == 0 && v == 3.0);
    ENSURE(cr_scene_parse_number("0", &v, &why) == 0 && v == 0.0);
    ENSURE(cr_scene_parse_number("1..2", &v, &why) != 0);
    ENSURE(cr_scene_parse_number("1/0", &v, &why) != 0 && strcmp(why, "division by zero") == 0);
    ENSURE(cr_scene_parse_number("1e", &v, &why) != 0);
    ENSURE(cr_scene_parse_number(".", &v, &why) != 0);
    ENSURE(cr_scene_parse_number("1e31", &v, &why) != 0);
    ENSURE(cr_scene_parse_number("2e9", &v, &why) != 0);
    ENSURE(cr_scene_parse_number("1234567890123456789012345", &v, &why) != 0);
    ENSURE(cr_scene_parse_number("nan", &v, &why) != 0 && cr_scene_parse_number("inf", &v, &why) != 0);
    cr_test_printf("  %d decimals match strtod bit for bit\n", checked);
    ENSURE(checked > 10000);
}

CR_TEST(scene_numbers_convert_by_one_rule) {
    cr_scene_error e;
    cr_scene *s = parse_ok(HDR "dt 1/60\ngravity 0.1 -9.81 -2.5e-3\n", &e);
    ENSURE(s);
#if CR_FIXED
    /* round(x * 2^32), halves away from zero: the same bits as CR_R */
    ENSURE(s->dt == (cr_real)floor(1.0 / 60.0 * 4294967296.0 + 0.5));
    ENSURE(s->def.gravity.x == (cr_real)429496730 && s->def.gravity.x == CR_R(0.1));
    ENSURE(s->def.gravity.y == -(cr_real)floor(9.81 * 4294967296.0 + 0.5) && s->def.gravity.y == CR_R(-9.81));
    ENSURE(s->def.gravity.z == CR_R(-2.5e-3));
    ENSURE(cr_scene_real_from_double(-0.5 / 4294967296.0) == -1);
    ENSURE(cr_scene_real_from_double(0.5 / 4294967296.0) == 1);
    ENSURE(cr_scene_real_from_double(-0.25 / 4294967296.0) == 0);
#else
    ENSURE(s->dt == (float)(1.0 / 60.0));
    ENSURE(s->def.gravity.x == 0.1f && s->def.gravity.y == -9.81f && s->def.gravity.z == -2.5e-3f);
#endif
    cr_scene_free(s);
}

CR_TEST(scene_parse_comments_blank_lines_crlf) {
    cr_scene_error e;
    const char *text = "# leading comment\r\n\r\n  crumple-scene 1   # header\r\n\tbody a dynamic sphere 1#no space\r\n"
                       "body b static plane\n# trailing";
    cr_scene *s = parse_ok(text, &e);
    ENSURE(s);
    ENSURE(arrlen(s->bodies) == 2);
    ENSURE(s->bodies[0].def.shape.radius == CR_R(1) && s->bodies[0].line == 4 && s->bodies[1].line == 5);
    /* user_data maps a body back to its scene entry */
    ENSURE(s->bodies[1].def.user_data == 2);
    cr_scene_free(s);
}

CR_TEST(scene_errors_name_file_line_and_word) {
    /* header */
    ENSURE_ERROR("", "t.scene:1: empty scene: expected 'crumple-scene 1' as the first statement");
    ENSURE_ERROR("# only a comment\n\n", "t.scene:1: empty scene: expected 'crumple-scene 1' as the first statement");
    ENSURE_ERROR("body a dynamic sphere 1\n", "t.scene:1: expected 'crumple-scene 1' as the first statement, got 'body'");
    ENSURE_ERROR("crumple-scene 2\n", "t.scene:1: unsupported scene version '2' (this crumple reads version 1)");
    ENSURE_ERROR(HDR "crumple-scene 1\n", "t.scene:2: second 'crumple-scene' header (first at line 1)");
    /* unknown keyword */
    ENSURE_ERROR(HDR "\n# c\nbodyy a dynamic sphere 1\n", "t.scene:4: unknown keyword 'bodyy'");
    /* wrong argument counts */
    ENSURE_ERROR(HDR "gravity 0 -9.81\n", "t.scene:2: 'gravity' needs 3 numbers (x y z), got 2");
    ENSURE_ERROR(HDR "gravity 0 -9.81 0 1\n", "t.scene:2: unexpected '1' after 'gravity'");
    ENSURE_ERROR(HDR "body a dynamic sphere 1 position 1 2 material default\n",
                 "t.scene:2: 'position' needs 3 numbers (x y z), got 2");
    ENSURE_ERROR(HDR "body a dynamic box 1 1\n", "t.scene:2: 'box' needs 3 numbers (half extents x y z), got 2");
    ENSURE_ERROR(HDR "body a dynamic sphere 1 rotate 0 1 0\n", "t.scene:2: 'rotate' needs 4 numbers (axis x y z, degrees), got 3");
    ENSURE_ERROR(HDR "passes 5\n", "t.scene:2: 'passes (contact)' needs a whole number");
    ENSURE_ERROR(HDR "grid g dynamic sphere 1 count 2 2\n", "t.scene:2: 'count' needs 3 numbers (nx ny nz), got 2");
    ENSURE_ERROR(HDR "body a\n", "t.scene:2: 'body' needs a type (static kinematic dynamic)");
    ENSURE_ERROR(HDR "body a dynamic\n", "t.scene:2: missing shape (sphere R | box HX HY HZ | plane | mesh ASSET)");
    ENSURE_ERROR(HDR "shock\n", "t.scene:2: 'shock' needs on or off");
    /* bad numbers */
    ENSURE_ERROR(HDR "dt 0.01.5\n", "t.scene:2: bad number '0.01.5' for 'dt': not a number");
    ENSURE_ERROR(HDR "gravity 0 -9.8e 0\n", "t.scene:2: bad number '-9.8e' for 'gravity': exponent has no digits");
    ENSURE_ERROR(HDR "gravity 0 1/0 0\n", "t.scene:2: bad number '1/0' for 'gravity': division by zero");
    ENSURE_ERROR(HDR "body a dynamic sphere 1 position 0 5e10 0\n",
                 "t.scene:2: bad number '5e10' for 'position': out of range (|x| <= 1e9)");
    ENSURE_ERROR(HDR "frames 1.5\n", "t.scene:2: bad number '1.5' for 'frames': not a whole number");
    ENSURE_ERROR(HDR "frames -3\n", "t.scene:2: bad number '-3' for 'frames': not a whole number");
    ENSURE_ERROR(HDR "passes 65 10\n", "t.scene:2: 'passes (collision)' is 65, must be 0..64");
    ENSURE_ERROR(HDR "dt 2\n", "t.scene:2: 'dt' must be in (0, 1] seconds, got 2");
    ENSURE_ERROR(HDR "body a dynamic sphere 0\n", "t.scene:2: sphere radius must be > 0");
    ENSURE_ERROR(HDR "material m density 0\n", "t.scene:2: 'density' must be > 0");
    ENSURE_ERROR(HDR "material m restitution 1.5\n", "t.scene:2: 'restitution' must be in 0..1");
    ENSURE_ERROR(HDR "shock yes\n", "t.scene:2: 'shock' needs on or off, got 'yes'");
    /* unknown names */
    ENSURE_ERROR(HDR "body a dynamic sphere 1 material steel\n",
                 "t.scene:2: unknown material 'steel' (materials must be defined before they are used)");
    ENSURE_ERROR(HDR "body a dynamic mesh torus\n", "t.scene:2: unknown asset 'torus' (assets must be defined before they are used)");
    ENSURE_ERROR(HDR "impulse 10 ghost 0 1 0\n",
                 "t.scene:2: unknown body 'ghost' in 'impulse' (bodies must be defined before they are used)");
    ENSURE_ERROR(HDR "body a dynamic sphere 1 colour red\n",
                 "t.scene:2: unknown body attribute 'colour' (material dent position rotate quat velocity spin sleep sensor "
                 "category mask group spawn)");
    /* filters and sensors */
    ENSURE_ERROR(HDR "body a dynamic sphere 1 mask 0xfg\n",
                 "t.scene:2: 'mask' needs a whole number (decimal or 0x hex), got '0xfg'");
    ENSURE_ERROR(HDR "body a dynamic sphere 1 category\n", "t.scene:2: 'category' needs a whole number (decimal or 0x hex), got ''");
    ENSURE_ERROR(HDR "body a dynamic sphere 1 category 18446744073709551616\n",
                 "t.scene:2: 'category' is 18446744073709551616, more than 64 bits");
    ENSURE_ERROR(HDR "body a dynamic sphere 1 group -x\n", "t.scene:2: 'group' needs a whole number");
    ENSURE_ERROR(HDR "body a dynamic sphere 1 group 3000000000\n", "t.scene:2: 'group' is 3000000000, must be 0..2147483647");
    ENSURE_ERROR(HDR "capacity touches 99999999\n", "t.scene:2: 'capacity touches' is 99999999, must be 0..16777216");
    /* dents */
    ENSURE_ERROR(HDR "body a dynamic sphere 1 dent soft\n",
                 "t.scene:2: unknown dent 'soft' (dents must be defined before they are used)");
    ENSURE_ERROR(HDR "dent soft\nbody a dynamic sphere 1 dent soft\n", "t.scene:3: only mesh bodies dent ('a' is not a mesh)");
    ENSURE_ERROR(HDR "dent soft hardness 3\n",
                 "t.scene:2: unknown dent attribute 'hardness' (threshold scale fixed max blur heat modified steepness "
                 "width min-cos cells move-projectile refresh-mass)");
    ENSURE_ERROR(HDR "dent soft cells 90 60\n", "t.scene:2: 'cells MIN MAX' needs MIN <= MAX");
    ENSURE_ERROR(HDR "dent soft\ndent soft\n", "t.scene:3: dent 'soft' already defined at line 2");
    ENSURE_ERROR(HDR "deform max_cells 300 cells 1000\n", "t.scene:2: deform cells 1000 is less than max_cells^2 = 90000");
    ENSURE_ERROR(HDR "deform sparkle 3\n", "t.scene:2: unknown deform key 'sparkle' (bodies memory_kb dents cells queue max_cells)");
    ENSURE_ERROR(HDR "material m hardness 3\n",
                 "t.scene:2: unknown material attribute 'hardness' (density restitution friction rolling spinning)");
    ENSURE_ERROR(HDR "body a dynamic cone 1\n", "t.scene:2: unknown shape 'cone' (sphere box plane mesh)");
    ENSURE_ERROR(HDR "body a floating sphere 1\n", "t.scene:2: unknown body type 'floating' (static kinematic dynamic)");
    ENSURE_ERROR(HDR "capacity springs 3\n",
                 "t.scene:2: unknown capacity 'springs' (keys: bodies joints pairs points points_total contacts events assets scratch_kb "
                 "touches contact_events sensors sensor_events)");
    ENSURE_ERROR(HDR "asset a mesh.stl\n", "t.scene:2: asset 'a': 'mesh.stl' is neither a cooked .crb nor an .obj (or .skel) file");
    /* duplicates and misuse */
    ENSURE_ERROR(HDR "body a dynamic sphere 1\nbody a dynamic sphere 1\n", "t.scene:3: body 'a' already defined at line 2");
    ENSURE_ERROR(HDR "grid a dynamic sphere 1 count 2 1 1\nbody a.1 dynamic sphere 1\n",
                 "t.scene:3: bad body name 'a.1': use letters, digits, '_' and '-', starting with a letter or '_'");
    ENSURE_ERROR(HDR "material m\nmaterial m\n", "t.scene:3: material 'm' already defined at line 2");
    ENSURE_ERROR(HDR "material default\n", "t.scene:2: material 'default' is built in and cannot be redefined");
    ENSURE_ERROR(HDR "body p dynamic plane\n", "t.scene:2: a plane must be static");
    ENSURE_ERROR(HDR "body s static sphere 1\nimpulse 1 s 0 1 0\n", "t.scene:3: 'impulse' needs a dynamic body; 's' is not");
    ENSURE_ERROR(HDR "body b dynamic sphere 1\ntarget 1 b 0 1 0\n", "t.scene:3: 'target' needs a kinematic body; 'b' is not");
    ENSURE_ERROR(HDR "body b dynamic sphere 1 spawn 20\nimpulse 10 b 0 1 0\n",
                 "t.scene:3: 'impulse' at frame 10 on 'b', which only spawns at frame 20");
    ENSURE_ERROR(HDR "grid g dynamic sphere 1\n", "t.scene:2: 'grid' needs 'count NX NY NZ'");
    ENSURE_ERROR(HDR "grid g dynamic sphere 1 count 1000 1000 1000\n",
                 "t.scene:2: grid of 1000x1000x1000 bodies is over the limit of 1048576 bodies per scene");
    /* joints */
    ENSURE_ERROR(HDR "body a dynamic sphere 1\njoint j rope a world anchor 0 0 0\n", "t.scene:3: unknown joint type 'rope' (point hinge fixed)");
    ENSURE_ERROR(HDR "body a dynamic sphere 1\njoint j point a world\n", "t.scene:3: joint 'j' needs 'anchor X Y Z' (a world point)");
    ENSURE_ERROR(HDR "body a dynamic sphere 1\njoint j hinge a world anchor 0 0 0\n", "t.scene:3: hinge 'j' needs 'axis X Y Z'");
    ENSURE_ERROR(HDR "body a dynamic sphere 1\njoint j point a a anchor 0 0 0\n", "t.scene:3: joint 'j' joins 'a' to itself");
    ENSURE_ERROR(HDR "body a dynamic sphere 1\njoint j point a b anchor 0 0 0\n",
                 "t.scene:3: unknown body 'b' in 'joint' (bodies must be defined before they are used)");
    ENSURE_ERROR(HDR "body a dynamic sphere 1\njoint j point a world anchor 0 0\n", "t.scene:3: 'anchor' needs 3 numbers (x y z), got 2");
    ENSURE_ERROR(HDR "body a dynamic sphere 1 spawn 5\njoint j point a world anchor 0 0 0\n",
                 "t.scene:3: joint 'j' needs 'a' at the start, but it spawns at frame 5");
    ENSURE_ERROR(HDR "capacity joints 1\nbody a dynamic sphere 1\njoint j point a world anchor 0 0 0\njoint k point a world anchor 0 1 0\n",
                 "t.scene:5: joint 'k' exceeds capacity joints 1 (set at line 2)");
    /* capacity exceeded: reported at the first body that does not fit */
    ENSURE_ERROR(HDR "capacity bodies 2\nbody a dynamic sphere 1\nbody b dynamic sphere 1\nbody c dynamic sphere 1\n",
                 "t.scene:5: body 'c' exceeds capacity bodies 2 (set at line 2)");
    ENSURE_ERROR(HDR "capacity bodies 5\ngrid g dynamic sphere 1 count 2 2 2\n",
                 "t.scene:3: grid of 2x2x2 bodies makes 8 bodies, over capacity bodies 5 (set at line 2)");
    ENSURE_ERROR(HDR "asset a a.crb\nasset b b.crb\ncapacity assets 1\n", "t.scene:3: asset 'b' exceeds capacity assets 1 (set at line 4)");
    ENSURE_ERROR(HDR "capacity bodies 0\n", "t.scene:2: 'capacity bodies' is 0, must be 1..1048576");
}

CR_TEST(scene_errors_on_hostile_text) {
    /* NUL bytes, huge lines, too many words: errors, never a crash */
    char text[6000];
    memcpy(text, HDR "body a", 22);
    text[22] = '\0';
    cr_scene *s = (cr_scene *)1;
    cr_scene_error e;
    ENSURE(cr_scene_parse(text, 23, "t.scene", &s, &e) != 0 && s == NULL);
    ENSURE(e.line == 2 && strstr(e.message, "NUL") != NULL);
    memset(text, 'x', sizeof text);
    memcpy(text, HDR, 16);
    text[sizeof text - 1] = '\0';
    ENSURE(cr_scene_parse(text, strlen(text), "t.scene", &s, &e) != 0 && s == NULL);
    ENSURE(e.line == 2 && strstr(e.message, "longer than") != NULL);
    char many[1000] = HDR "body";
    for (int i = 0; i < 70; ++i) strcat(many, " 1");
    ENSURE_ERROR(many, "t.scene:2: too many words on one line (max 64)");
    /* truncated text: the parser stops at `size`, not at a NUL */
    const char *t2 = HDR "gravity 0 -1 0 garbage";
    ENSURE(cr_scene_parse(t2, strlen(HDR "gravity 0 -1 0"), "t.scene", &s, &e) == 0 && s != NULL);
    ENSURE(s->def.gravity.y == CR_R(-1));
    cr_scene_free(s);
    ENSURE(cr_scene_load("data/scenes/no-such.scene", &s, &e) != 0 && s == NULL);
    ENSURE(e.line == 0 && strstr(e.message, "cannot read") != NULL);
    /* a byte-flipping sweep over the example scene: every variant parses or fails cleanly */
    uint8_t *data = NULL;
    size_t size = 0;
    ENSURE(crp_read_file("data/scenes/example.scene", &data, &size) == CRP_OK);
    char *copy = malloc(size + 1);
    int failures = 0;
    for (size_t i = 0; i < size; i += 3) {
        memcpy(copy, data, size);
        copy[i] = (char)(copy[i] ^ (char)(1 + (i % 7) * 17));
        cr_scene *f = NULL;
        if (cr_scene_parse(copy, size, "f.scene", &f, &e) != 0) {
            ++failures;
            ENSURE(f == NULL && e.line >= 1 && e.message[0] != '\0');
        } else {
            cr_scene_free(f);
        }
    }
    cr_test_printf("  %d of %zu mutated scenes rejected with a line number\n", failures, (size + 2) / 3);
    ENSURE(failures > 0);
    free(copy);
    crp_free(data);
}

/* The shipped scenes parse and describe what their claims are about. */
CR_TEST(scene_shipped_scenes_parse) {
    static const struct {
        const char *name;
        int bodies;
    } scenes[] = {{"example", 24}, {"incline", 2}, {"stack", 11}, {"pile", 1001}, {"rings", 201},
                  {"terrain", 101}, {"shock", 0}, {"friction_ramp", 8}, {"rolling", 3}};
    for (size_t i = 0; i < sizeof scenes / sizeof scenes[0]; ++i) {
        char path[128];
        snprintf(path, sizeof path, "data/scenes/%s.scene", scenes[i].name);
        cr_scene *s = NULL;
        cr_scene_error e;
        if (cr_scene_load(path, &s, &e)) {
            char buf[1200];
            cr_scene_error_format(buf, sizeof buf, &e);
            ENSURE_MSG(0, "%s", buf);
        }
        if (scenes[i].bodies) ENSURE_MSG(arrlen(s->bodies) == scenes[i].bodies, "%s: %d bodies", path, (int)arrlen(s->bodies));
        if (strcmp(scenes[i].name, "pile") == 0) {
            int spheres = 0, boxes = 0;
            for (ptrdiff_t k = 0; k < arrlen(s->bodies); ++k) {
                spheres += s->bodies[k].def.shape.type == CR_SHAPE_SPHERE;
                boxes += s->bodies[k].def.shape.type == CR_SHAPE_BOX;
            }
            ENSURE(spheres == 500 && boxes == 500);
        }
        if (strcmp(scenes[i].name, "rings") == 0) {
            ENSURE(arrlen(s->assets) == 1 && strstr(s->assets[0].path, "meshes/torus.obj") != NULL);
            ENSURE(s->bodies[200].def.shape.type == CR_SHAPE_MESH && s->bodies[200].asset == 0);
        }
        if (strcmp(scenes[i].name, "terrain") == 0) ENSURE(s->bodies[0].def.type == CR_BODY_STATIC && s->bodies[0].asset == 0);
        cr_scene_free(s);
    }
}
