/* scene_parse.c — scene text into a cr_scene: the statements and their checks.
 *
 * The format is documented with a full example in docs/scene-format.md. One
 * statement per line: a keyword, then words. Attributes are `name values...`
 * with a fixed number of values, so "wrong argument count" can always name
 * the attribute and say how many values it wanted. Numbers are read by
 * scene_number.c, the world is built by scene_build.c, the timed inputs are
 * applied by scene_inputs.c, errors are kept by scene_error.c.
 *
 * Notes
 *   - Names must be defined before they are used (materials, assets, bodies),
 *     so every reference error points at the line that made it.
 *   - Per-instance variation in grids (jitter, tilt) comes from a splitmix64
 *     hash of (seed, instance, axis) mapped onto a 1/65536 lattice in [-1, 1],
 *     which is exact in both scalar modes, so a grid is the same everywhere.
 *   - The parser allocates with stb_ds; everything it allocated is released by
 *     cr_scene_free, including on every error path.
 */
#include "scene.h"
#include "cli.h"
#include "stb_ds.h"
#include "scene_squash.h"
#include "scene_spring.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct cr_scene_name_ {
    char *key;
    int32_t value;
};

enum { MAX_TOKENS = 64, MAX_LINE = 4096 };

/* Capacity keys of the `capacity` statement, in cr_world_def order. */
enum { CAP_BODIES, CAP_JOINTS, CAP_PAIRS, CAP_POINTS, CAP_POINTS_TOTAL, CAP_CONTACTS, CAP_EVENTS, CAP_ASSETS, CAP_SCRATCH_KB,
       CAP_TOUCHES, CAP_CONTACT_EVENTS, CAP_SENSORS, CAP_SENSOR_EVENTS, CAP_COUNT };
static const char *const cap_names[CAP_COUNT] = {"bodies", "joints", "pairs", "points", "points_total", "contacts", "events",
                                                 "assets", "scratch_kb", "touches", "contact_events", "sensors", "sensor_events"};
static const uint32_t cap_max[CAP_COUNT] = {CR_SCENE_MAX_BODIES, 1u << 24, 1u << 24, 4096, 1u << 26, 1u << 24, 1u << 24, 4096, 1u << 22,
                                            1u << 24, 1u << 24, 1u << 24, 1u << 24};
#define CAP_KEYS "bodies joints pairs points points_total contacts events assets scratch_kb touches contact_events sensors sensor_events"

/* ------------------------------------------------------------ the parser */

typedef struct pctx {
    cr_scene *s;
    cr_scene_error *err;
    int line;
    char buf[MAX_LINE + 1];
    char *tok[MAX_TOKENS];
    int ntok;
    int pos;
    int header_line;
    uint32_t seq;
    int cap_line[CAP_COUNT];
    uint32_t cap_value[CAP_COUNT];
    int deform_bodies_line;        ///< line of `deform bodies N`, 0 if not given
} pctx;

static int fail(pctx *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    cr_scene_error_set_v(c->err, c->s->path, c->line, fmt, ap);
    va_end(ap);
    return -1;
}

static bool at_end(const pctx *c) { return c->pos >= c->ntok; }

/* Reads `count` numbers for `what`; `names` lists them for the message. */
static int read_doubles(pctx *c, const char *what, const char *names, int count, double *out) {
    for (int i = 0; i < count; ++i) {
        if (at_end(c) || !cr_scene_looks_numeric(c->tok[c->pos]))
            return fail(c, "'%s' needs %d number%s (%s), got %d", what, count, count == 1 ? "" : "s", names, i);
        const char *why = NULL;
        if (cr_scene_parse_number(c->tok[c->pos], &out[i], &why) != 0)
            return fail(c, "bad number '%s' for '%s': %s", c->tok[c->pos], what, why);
        ++c->pos;
    }
    return 0;
}

static int read_reals(pctx *c, const char *what, const char *names, int count, cr_real *out) {
    double d[4];
    if (read_doubles(c, what, names, count, d)) return -1;
    for (int i = 0; i < count; ++i) out[i] = cr_scene_real_from_double(d[i]);
    return 0;
}

static int read_vec3(pctx *c, const char *what, cr_vec3 *v) {
    cr_real r[3];
    if (read_reals(c, what, "x y z", 3, r)) return -1;
    *v = cr_v3(r[0], r[1], r[2]);
    return 0;
}

/* A non-negative integer in [lo, hi]. */
static int read_uint(pctx *c, const char *what, uint32_t lo, uint32_t hi, uint32_t *out) {
    if (at_end(c) || !cr_scene_looks_numeric(c->tok[c->pos])) return fail(c, "'%s' needs a whole number", what);
    const char *t = c->tok[c->pos];
    uint64_t v = 0;
    int n = 0;
    for (; *t >= '0' && *t <= '9'; ++t, ++n)
        if (v <= 0xffffffffu) v = v * 10 + (uint64_t)(*t - '0');
    if (*t != '\0' || n == 0) return fail(c, "bad number '%s' for '%s': not a whole number", c->tok[c->pos], what);
    if (v < lo || v > hi) return fail(c, "'%s' is %s, must be %u..%u", what, c->tok[c->pos], lo, hi);
    ++c->pos;
    *out = (uint32_t)v;
    return 0;
}

/* A 64-bit mask: decimal, or hex after 0x. */
static int read_bits(pctx *c, const char *what, uint64_t *out) {
    const char *t = at_end(c) ? "" : c->tok[c->pos];
    bool hex = t[0] == '0' && (t[1] == 'x' || t[1] == 'X');
    uint64_t v = 0, base = hex ? 16u : 10u;
    int n = 0;
    bool over = false;
    for (const char *p = hex ? t + 2 : t; *p != '\0'; ++p, ++n) {
        int digit = *p >= '0' && *p <= '9'            ? *p - '0'
                    : hex && *p >= 'a' && *p <= 'f' ? *p - 'a' + 10
                    : hex && *p >= 'A' && *p <= 'F' ? *p - 'A' + 10
                                                    : -1;
        if (digit < 0) return fail(c, "'%s' needs a whole number (decimal or 0x hex), got '%s'", what, t);
        if (v > (UINT64_MAX - (uint64_t)digit) / base) over = true;
        v = v * base + (uint64_t)digit;
    }
    if (n == 0) return fail(c, "'%s' needs a whole number (decimal or 0x hex), got '%s'", what, t);
    if (over) return fail(c, "'%s' is %s, more than 64 bits", what, t);
    ++c->pos;
    *out = v;
    return 0;
}

static bool valid_name(const char *t, bool allow_dot) {
    if (!((*t >= 'A' && *t <= 'Z') || (*t >= 'a' && *t <= 'z') || *t == '_')) return false;
    for (; *t; ++t) {
        bool ok = (*t >= 'A' && *t <= 'Z') || (*t >= 'a' && *t <= 'z') || (*t >= '0' && *t <= '9') || *t == '_' ||
                  *t == '-' || (allow_dot && *t == '.');
        if (!ok) return false;
    }
    return true;
}

/* A new name for `what`; `room` leaves space for grid suffixes. */
static int read_new_name(pctx *c, const char *what, size_t room, char *out) {
    if (at_end(c)) return fail(c, "'%s' needs a name", what);
    const char *t = c->tok[c->pos];
    if (!valid_name(t, false))
        return fail(c, "bad %s name '%s': use letters, digits, '_' and '-', starting with a letter or '_'", what, t);
    if (strlen(t) + room >= CR_SCENE_NAME_MAX)
        return fail(c, "%s name '%s' is too long (max %d characters)", what, t, (int)(CR_SCENE_NAME_MAX - 1 - room));
    strcpy(out, t);
    ++c->pos;
    return 0;
}

static int32_t find_material(const cr_scene *s, const char *name) {
    for (ptrdiff_t i = 0; i < arrlen(s->materials); ++i)
        if (strcmp(s->materials[i].name, name) == 0) return (int32_t)i;
    return -1;
}

static int32_t find_asset(const cr_scene *s, const char *name) {
    for (ptrdiff_t i = 0; i < arrlen(s->assets); ++i)
        if (strcmp(s->assets[i].name, name) == 0) return (int32_t)i;
    return -1;
}

int32_t cr_scene_find_body(const cr_scene *s, const char *name) {
    if (s == NULL || name == NULL) return -1;
    struct cr_scene_name_ *map = s->names_; /* shgeti writes through its argument */
    ptrdiff_t i = shgeti(map, name);
    return i < 0 ? -1 : map[i].value;
}

/* A body name that must already exist. */
static int read_body_ref(pctx *c, const char *what, int32_t *out) {
    if (at_end(c)) return fail(c, "'%s' needs a body name", what);
    const char *t = c->tok[c->pos];
    int32_t i = cr_scene_find_body(c->s, t);
    if (i < 0) return fail(c, "unknown body '%s' in '%s' (bodies must be defined before they are used)", t, what);
    ++c->pos;
    *out = i;
    return 0;
}

static int end_of_statement(pctx *c, const char *what) {
    if (!at_end(c)) return fail(c, "unexpected '%s' after '%s'", c->tok[c->pos], what);
    return 0;
}

/* Degrees to a rotation about `axis` (any length but zero). */
static cr_quat axis_degrees(cr_vec3 axis, cr_real degrees) {
    cr_real rad = cr_mul(degrees, CR_R(0.017453292519943295));
    return cr_quat_from_axis_angle(cr_v3_normalize(axis), rad);
}

static int read_rotate(pctx *c, const char *what, cr_quat *q) {
    cr_real r[4];
    if (read_reals(c, what, "axis x y z, degrees", 4, r)) return -1;
    cr_vec3 axis = cr_v3(r[0], r[1], r[2]);
    if (cr_v3_len_sq(axis) <= 0) return fail(c, "'%s' axis must not be zero", what);
    *q = cr_quat_normalize(cr_quat_mul(axis_degrees(axis, r[3]), *q));
    return 0;
}

static int read_quat(pctx *c, const char *what, cr_quat *q) {
    cr_real r[4];
    if (read_reals(c, what, "x y z w", 4, r)) return -1;
    cr_quat v = {r[0], r[1], r[2], r[3]};
    if (r[0] == 0 && r[1] == 0 && r[2] == 0 && r[3] == 0) return fail(c, "'%s' must not be the zero quaternion", what);
    *q = cr_quat_normalize(v);
    return 0;
}

/* ---- world settings ---- */

static int st_gravity(pctx *c) {
    if (read_vec3(c, "gravity", &c->s->def.gravity)) return -1;
    return end_of_statement(c, "gravity");
}

static int st_dt(pctx *c) {
    double d;
    if (read_doubles(c, "dt", "seconds", 1, &d)) return -1;
    if (!(d > 0 && d <= 1)) return fail(c, "'dt' must be in (0, 1] seconds, got %s", c->tok[c->pos - 1]);
    c->s->dt = cr_scene_real_from_double(d);
    if (c->s->dt <= 0) return fail(c, "'dt' %s is below the scalar's resolution", c->tok[c->pos - 1]);
    return end_of_statement(c, "dt");
}

static int st_frames(pctx *c) {
    uint32_t n = 0; /* gcc -O3 cannot see that read_uint sets it on success */
    if (read_uint(c, "frames", 0, 10000000, &n)) return -1;
    c->s->frames = (int32_t)n;
    return end_of_statement(c, "frames");
}

static int st_passes(pctx *c) {
    uint32_t a = 0, b = 0;
    if (read_uint(c, "passes (collision)", 0, 64, &a)) return -1;
    if (read_uint(c, "passes (contact)", 0, 256, &b)) return -1;
    c->s->def.collision_passes = a;
    c->s->def.contact_passes = b;
    return end_of_statement(c, "passes");
}

static int st_shock(pctx *c) {
    if (at_end(c)) return fail(c, "'shock' needs on or off");
    const char *t = c->tok[c->pos++];
    if (strcmp(t, "on") == 0)
        c->s->def.shock_propagation = true;
    else if (strcmp(t, "off") == 0)
        c->s->def.shock_propagation = false;
    else
        return fail(c, "'shock' needs on or off, got '%s'", t);
    return end_of_statement(c, "shock");
}

/* `sleep on|off`: whether resting islands may sleep (world def.sleep) */
static int st_sleep(pctx *c) {
    if (at_end(c)) return fail(c, "'sleep' needs on or off");
    const char *t = c->tok[c->pos++];
    if (strcmp(t, "on") == 0)
        c->s->def.sleep = true;
    else if (strcmp(t, "off") == 0)
        c->s->def.sleep = false;
    else
        return fail(c, "'sleep' needs on or off, got '%s'", t);
    return end_of_statement(c, "sleep");
}

static int st_capacity(pctx *c) {
    if (at_end(c)) return fail(c, "'capacity' needs KEY N pairs (keys: " CAP_KEYS ")");
    while (!at_end(c)) {
        const char *key = c->tok[c->pos++];
        int k = 0;
        while (k < CAP_COUNT && strcmp(cap_names[k], key) != 0) ++k;
        if (k == CAP_COUNT)
            return fail(c, "unknown capacity '%s' (keys: " CAP_KEYS ")", key);
        uint32_t v;
        char what[64];
        snprintf(what, sizeof what, "capacity %s", key);
        if (read_uint(c, what, k == CAP_BODIES || k == CAP_POINTS ? 1 : 0, cap_max[k], &v)) return -1;
        c->cap_value[k] = v;
        c->cap_line[k] = c->line;
    }
    return 0;
}

static int st_cache(pctx *c) {
    if (at_end(c)) return fail(c, "'cache' needs a folder");
    const char *t = c->tok[c->pos++];
    int n = (t[0] == '/') ? snprintf(c->s->cache_dir, sizeof c->s->cache_dir, "%s", t)
                          : snprintf(c->s->cache_dir, sizeof c->s->cache_dir, "%s%s", c->s->dir, t);
    if (n < 0 || (size_t)n >= sizeof c->s->cache_dir) return fail(c, "cache folder path is too long");
    return end_of_statement(c, "cache");
}

/* ---- materials and assets ---- */

static int st_material(pctx *c) {
    cr_scene_material m;
    memset(&m, 0, sizeof m);
    if (read_new_name(c, "material", 0, m.name)) return -1;
    int32_t prev = find_material(c->s, m.name);
    if (prev >= 0) {
        if (c->s->materials[prev].line == 0) return fail(c, "material '%s' is built in and cannot be redefined", m.name);
        return fail(c, "material '%s' already defined at line %d", m.name, c->s->materials[prev].line);
    }
    m.material = cr_default_material();
    m.line = c->line;
    while (!at_end(c)) {
        const char *a = c->tok[c->pos++];
        cr_real v;
        if (strcmp(a, "density") == 0) {
            if (read_reals(c, a, "kg/m^3", 1, &v)) return -1;
            if (v <= 0) return fail(c, "'density' must be > 0");
            m.material.density = v;
        } else if (strcmp(a, "restitution") == 0) {
            if (read_reals(c, a, "0..1", 1, &v)) return -1;
            if (v < 0 || v > CR_R(1)) return fail(c, "'restitution' must be in 0..1");
            m.material.restitution = v;
        } else if (strcmp(a, "friction") == 0) {
            if (read_reals(c, a, "coefficient", 1, &v)) return -1;
            if (v < 0) return fail(c, "'friction' must be >= 0");
            m.material.friction = v;
        } else if (strcmp(a, "rolling") == 0) {
            if (read_reals(c, a, "m", 1, &v)) return -1;
            if (v < 0) return fail(c, "'rolling' must be >= 0");
            m.material.rolling_friction = v;
        } else if (strcmp(a, "spinning") == 0) {
            if (read_reals(c, a, "m", 1, &v)) return -1;
            if (v < 0) return fail(c, "'spinning' must be >= 0");
            m.material.spinning_friction = v;
        } else {
            return fail(c, "unknown material attribute '%s' (density restitution friction rolling spinning)", a);
        }
    }
    arrput(c->s->materials, m);
    return 0;
}

/* ---- dents (seed 000 §3, docs/denting.md) ---- */

static int32_t find_dent(const cr_scene *s, const char *name) {
    for (ptrdiff_t i = 0; i < arrlen(s->dents); ++i)
        if (strcmp(s->dents[i].name, name) == 0) return (int32_t)i;
    return -1;
}

static int st_dent(pctx *c) {
    cr_scene_dent d;
    memset(&d, 0, sizeof d);
    if (read_new_name(c, "dent", 0, d.name)) return -1;
    int32_t prev = find_dent(c->s, d.name);
    if (prev >= 0) return fail(c, "dent '%s' already defined at line %d", d.name, c->s->dents[prev].line);
    d.dent = cr_default_dent_def();
    d.line = c->line;
    cr_dent_def *m = &d.dent;
    while (!at_end(c)) {
        const char *a = c->tok[c->pos++];
        cr_real v;
        if (strcmp(a, "threshold") == 0) {
            if (read_reals(c, a, "m/s", 1, &v)) return -1;
            if (v < 0) return fail(c, "'threshold' must be >= 0");
            m->threshold_speed = v;
        } else if (strcmp(a, "scale") == 0) {
            if (read_reals(c, a, "s", 1, &v)) return -1;
            if (v <= 0) return fail(c, "'scale' must be > 0");
            m->speed_scale = v;
        } else if (strcmp(a, "fixed") == 0) {
            if (read_reals(c, a, "m", 1, &v)) return -1;
            if (v <= 0) return fail(c, "'fixed' must be > 0");
            m->fixed_distance = v;
            m->speed_scale = 0;
        } else if (strcmp(a, "max") == 0) {
            if (read_reals(c, a, "m", 1, &v)) return -1;
            if (v <= 0) return fail(c, "'max' must be > 0");
            m->max_distance = v;
        } else if (strcmp(a, "blur") == 0) {
            if (read_reals(c, a, "m", 1, &v)) return -1;
            if (v <= 0) return fail(c, "'blur' must be > 0");
            m->blur = v;
        } else if (strcmp(a, "heat") == 0) {
            if (read_uint(c, a, 0, CR_DENT_MAX_ITERATIONS, &m->heat_iterations)) return -1;
        } else if (strcmp(a, "modified") == 0) {
            if (read_uint(c, a, 0, CR_DENT_MAX_ITERATIONS, &m->modified_iterations)) return -1;
        } else if (strcmp(a, "steepness") == 0) {
            if (read_reals(c, a, "k", 1, &v)) return -1;
            if (v <= 0) return fail(c, "'steepness' must be > 0");
            m->steepness = v;
        } else if (strcmp(a, "width") == 0) {
            if (read_reals(c, a, "t", 1, &v)) return -1;
            if (v < 0) return fail(c, "'width' must be >= 0");
            m->width_t = v;
        } else if (strcmp(a, "min-cos") == 0) {
            if (read_reals(c, a, "0..1", 1, &v)) return -1;
            if (v <= 0 || v > CR_R(1)) return fail(c, "'min-cos' must be in (0, 1]");
            m->min_cos = v;
        } else if (strcmp(a, "cells") == 0) {
            if (read_uint(c, a, 5, 1024, &m->min_cells) || read_uint(c, a, 5, 1024, &m->max_cells)) return -1;
            if (m->min_cells > m->max_cells) return fail(c, "'cells MIN MAX' needs MIN <= MAX");
        } else if (strcmp(a, "move-projectile") == 0) {
            m->move_projectile = true;
        } else if (strcmp(a, "refresh-mass") == 0) {
            m->refresh_mass = true;
        } else {
            return fail(c, "unknown dent attribute '%s' (threshold scale fixed max blur heat modified steepness width "
                           "min-cos cells move-projectile refresh-mass)", a);
        }
    }
    arrput(c->s->dents, d);
    return 0;
}

/* `bend NAME ...` (seed 000 §4): the attributes are tools/scene_bend.c's. */
static int st_bend(pctx *c) {
    cr_scene_bend b;
    memset(&b, 0, sizeof b);
    if (read_new_name(c, "bend", 0, b.name)) return -1;
    int32_t prev = cr_scene_bend_find(c->s, b.name);
    if (prev >= 0) return fail(c, "bend '%s' already defined at line %d", b.name, c->s->bends[prev].line);
    char msg[256];
    if (cr_scene_bend_parse(c->s, c->tok + c->pos, c->ntok - c->pos, &b.bend, msg, sizeof msg)) return fail(c, "%s", msg);
    c->pos = c->ntok;
    b.line = c->line;
    arrput(c->s->bends, b);
    return 0;
}

/* `bending KEY N ...`: the bend model's per-step caps and its split queue
 * (cr_bend_budget, crumple/world.h); the rest is sized by tools/scene_bend.c. */
static int st_bending(pctx *c) {
    static const char *const keys = "splits queue skin condensations dents seams";
    cr_bend_budget *b = &c->s->bend_caps;
    if (at_end(c)) return fail(c, "'bending' needs KEY N pairs (%s)", keys);
    while (!at_end(c)) {
        const char *k = c->tok[c->pos++];
        if (strcmp(k, "splits") == 0) {
            if (read_uint(c, k, 1, 1u << 16, &b->splits_per_step)) return -1;
        } else if (strcmp(k, "queue") == 0) {
            if (read_uint(c, k, 1, 1u << 16, &b->queue_capacity)) return -1;
        } else if (strcmp(k, "skin") == 0) {
            if (read_uint(c, k, 1, 1u << 26, &b->vertices_per_step)) return -1;
        } else if (strcmp(k, "condensations") == 0) {
            if (read_uint(c, k, 1, 1u << 16, &b->condensations_per_step)) return -1;
        } else if (strcmp(k, "dents") == 0) {
            if (read_uint(c, k, 1, 1u << 16, &b->dents_per_step)) return -1;
        } else if (strcmp(k, "seams") == 0) {
            if (read_uint(c, k, 1, 1u << 16, &b->seams_per_step)) return -1;
        } else {
            return fail(c, "unknown bending key '%s' (%s)", k, keys);
        }
    }
    return 0;
}

/* `deform KEY N ...`: the dent model's budgets (cr_world_def.damage, crumple/world.h). */
static int st_deform(pctx *c) {
    static const char *const keys = "bodies memory_kb dents cells queue max_cells";
    cr_dent_budget *d = &c->s->def.damage.dent;
    if (at_end(c)) return fail(c, "'deform' needs KEY N pairs (%s)", keys);
    while (!at_end(c)) {
        const char *k = c->tok[c->pos++];
        uint32_t v;
        if (strcmp(k, "bodies") == 0) {
            if (read_uint(c, k, 0, 4096, &v)) return -1;
            d->body_capacity = v;
            c->deform_bodies_line = c->line;
        } else if (strcmp(k, "memory_kb") == 0) {
            if (read_uint(c, k, 1, 1u << 22, &v)) return -1;
            c->s->def.damage.surface_bytes = v * 1024u;
            c->s->deform_bytes_given = true;
        } else if (strcmp(k, "dents") == 0) {
            if (read_uint(c, k, 1, 1u << 16, &d->dents_per_step)) return -1;
        } else if (strcmp(k, "cells") == 0) {
            if (read_uint(c, k, 25, 1u << 26, &d->work_per_step)) return -1;
        } else if (strcmp(k, "queue") == 0) {
            if (read_uint(c, k, 1, 1u << 20, &d->queue_capacity)) return -1;
        } else if (strcmp(k, "max_cells") == 0) {
            if (read_uint(c, k, 5, 1024, &d->max_cells)) return -1;
        } else {
            return fail(c, "unknown deform key '%s' (%s)", k, keys);
        }
    }
    if (d->work_per_step < d->max_cells * d->max_cells)
        return fail(c, "deform cells %u is less than max_cells^2 = %u", d->work_per_step, d->max_cells * d->max_cells);
    return 0;
}

static bool ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), k = strlen(suffix);
    if (n < k) return false;
    for (size_t i = 0; i < k; ++i) {
        char a = s[n - k + i], b = suffix[i];
        if (a >= 'A' && a <= 'Z') a = (char)(a - 'A' + 'a');
        if (a != b) return false;
    }
    return true;
}

static int st_asset(pctx *c) {
    cr_scene_asset a;
    memset(&a, 0, sizeof a);
    if (read_new_name(c, "asset", 0, a.name)) return -1;
    int32_t prev = find_asset(c->s, a.name);
    if (prev >= 0) return fail(c, "asset '%s' already defined at line %d", a.name, c->s->assets[prev].line);
    if (at_end(c)) return fail(c, "'asset' needs a file path after the name");
    const char *p = c->tok[c->pos++];
    if (!ends_with(p, ".crb") && !ends_with(p, ".obj") && !ends_with(p, ".skel"))
        return fail(c, "asset '%s': '%s' is neither a cooked .crb nor an .obj (or .skel) file", a.name, p);
    int n = (p[0] == '/') ? snprintf(a.path, sizeof a.path, "%s", p) : snprintf(a.path, sizeof a.path, "%s%s", c->s->dir, p);
    if (n < 0 || (size_t)n >= sizeof a.path) return fail(c, "asset path is too long");
    a.line = c->line;
    while (!at_end(c)) {
        const char *k = c->tok[c->pos++];
        bool obj = ends_with(a.path, ".obj") || ends_with(a.path, ".skel"); /* both cooked on load */
        if (strcmp(k, "sdf") == 0 && obj) {
            if (read_uint(c, "sdf", 8, 1024, &a.sdf_res)) return -1;
        } else if (strcmp(k, "pad") == 0 && obj) { /* the grid's padding: room for a posed squishy skin (docs/squash.md) */
            if (read_uint(c, "pad", 1, 64, &a.sdf_pad)) return -1;
        } else if (strcmp(k, "samples") == 0 && obj) {
            if (read_uint(c, "samples", 1, 1u << 22, &a.max_samples)) return -1;
        } else if (strcmp(k, "rig") == 0 && obj) { /* a skeleton for bending (docs/bending.md) */
            if (at_end(c)) return fail(c, "'rig' needs a rig file path");
            const char *r = c->tok[c->pos++];
            int m = (r[0] == '/') ? snprintf(a.rig, sizeof a.rig, "%s", r) : snprintf(a.rig, sizeof a.rig, "%s%s", c->s->dir, r);
            if (m < 0 || (size_t)m >= sizeof a.rig) return fail(c, "rig path is too long");
        } else if (strcmp(k, "bones") == 0 && obj) {
            if (read_uint(c, "bones", 1, 64, &a.auto_bones)) return -1;
        } else if (strcmp(k, "soft") == 0 && obj) { /* a mass-spring asset (docs/mass-spring.md) */
            a.soft = true;
        } else {
            return fail(c, "unknown asset attribute '%s' (%s)", k, obj ? "sdf pad samples rig bones soft" : "a .crb asset takes none");
        }
    }
    arrput(c->s->assets, a);
    return 0;
}

/* ---- bodies and grids ---- */

static int read_shape(pctx *c, cr_shape_def *shape, int32_t *asset) {
    if (at_end(c)) return fail(c, "missing shape (sphere R | box HX HY HZ | plane | mesh ASSET)");
    const char *t = c->tok[c->pos++];
    *asset = -1;
    if (strcmp(t, "sphere") == 0) {
        shape->type = CR_SHAPE_SPHERE;
        if (read_reals(c, "sphere", "radius", 1, &shape->radius)) return -1;
        if (shape->radius <= 0) return fail(c, "sphere radius must be > 0");
    } else if (strcmp(t, "box") == 0) {
        shape->type = CR_SHAPE_BOX;
        if (read_reals(c, "box", "half extents x y z", 3, &shape->half_extents.x)) return -1;
        if (shape->half_extents.x <= 0 || shape->half_extents.y <= 0 || shape->half_extents.z <= 0)
            return fail(c, "box half extents must be > 0");
    } else if (strcmp(t, "plane") == 0) {
        shape->type = CR_SHAPE_PLANE;
    } else if (strcmp(t, "mesh") == 0) {
        shape->type = CR_SHAPE_MESH;
        if (at_end(c)) return fail(c, "'mesh' needs an asset name");
        const char *n = c->tok[c->pos++];
        *asset = find_asset(c->s, n);
        if (*asset < 0) return fail(c, "unknown asset '%s' (assets must be defined before they are used)", n);
    } else {
        return fail(c, "unknown shape '%s' (sphere box plane mesh)", t);
    }
    return 0;
}

/* What a grid adds on top of a body. */
typedef struct grid_spec {
    uint32_t count[3];
    cr_vec3 spacing;
    bool has_alternate;
    cr_shape_def alternate;
    int32_t alternate_asset;
    cr_real jitter;  /* m */
    cr_real tilt;    /* degrees */
    uint32_t seed;
} grid_spec;

static uint64_t splitmix64(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* A hashed value in [-1, 1] on a 1/65536 lattice: exact in float and Q32.32. */
static cr_real hash_unit(uint32_t seed, uint32_t instance, uint32_t salt) {
    uint64_t h = splitmix64(((uint64_t)seed << 32) ^ splitmix64(((uint64_t)instance << 4) | salt));
    int32_t k = (int32_t)(h % 131073u) - 65536;
    return cr_div(cr_from_int(k), cr_from_int(65536));
}

static int add_body(pctx *c, const cr_scene_body *b) {
    if (arrlen(c->s->bodies) >= (ptrdiff_t)CR_SCENE_MAX_BODIES)
        return fail(c, "too many bodies (a scene holds at most %u)", CR_SCENE_MAX_BODIES);
    ptrdiff_t prev = shgeti(c->s->names_, b->name);
    if (prev >= 0) return fail(c, "body '%s' already defined at line %d", b->name, c->s->bodies[c->s->names_[prev].value].line);
    int32_t index = (int32_t)arrlen(c->s->bodies);
    shput(c->s->names_, b->name, index);
    arrput(c->s->bodies, *b);
    c->s->bodies[index].def.user_data = (uint64_t)index + 1;
    if (b->spawn_frame >= 0) {
        cr_scene_input in;
        memset(&in, 0, sizeof in);
        in.frame = b->spawn_frame;
        in.kind = CR_SCENE_INPUT_SPAWN;
        in.body = (uint32_t)index;
        in.seq = c->seq++;
        in.line = c->line;
        in.q = cr_quat_identity();
        arrput(c->s->inputs, in);
    }
    return 0;
}

static int st_body_or_grid(pctx *c, bool grid) {
    const char *kw = grid ? "grid" : "body";
    cr_scene_body b;
    memset(&b, 0, sizeof b);
    /* grid instance names get ".k" appended */
    if (read_new_name(c, kw, grid ? 11 : 0, b.name)) return -1;
    b.def = cr_default_body_def();
    b.spawn_frame = -1;
    b.line = c->line;
    if (at_end(c)) return fail(c, "'%s' needs a type (static kinematic dynamic)", kw);
    const char *type = c->tok[c->pos++];
    if (strcmp(type, "static") == 0)
        b.def.type = CR_BODY_STATIC;
    else if (strcmp(type, "kinematic") == 0)
        b.def.type = CR_BODY_KINEMATIC;
    else if (strcmp(type, "dynamic") == 0)
        b.def.type = CR_BODY_DYNAMIC;
    else
        return fail(c, "unknown body type '%s' (static kinematic dynamic)", type);
    if (read_shape(c, &b.def.shape, &b.asset)) return -1;
    if (b.def.shape.type == CR_SHAPE_PLANE && b.def.type != CR_BODY_STATIC) return fail(c, "a plane must be static");

    grid_spec g;
    memset(&g, 0, sizeof g);
    g.spacing = cr_v3(CR_R(1), CR_R(1), CR_R(1));
    g.seed = 1;
    bool has_count = false;
    while (!at_end(c)) {
        const char *a = c->tok[c->pos++];
        if (strcmp(a, "material") == 0) {
            if (at_end(c)) return fail(c, "'material' needs a material name");
            const char *n = c->tok[c->pos++];
            int32_t m = find_material(c->s, n);
            if (m < 0) return fail(c, "unknown material '%s' (materials must be defined before they are used)", n);
            b.def.material = c->s->materials[m].material;
        } else if (strcmp(a, "dent") == 0) {
            if (at_end(c)) return fail(c, "'dent' needs a dent name");
            const char *n = c->tok[c->pos++];
            int32_t d = find_dent(c->s, n);
            if (d < 0) return fail(c, "unknown dent '%s' (dents must be defined before they are used)", n);
            if (b.def.shape.type != CR_SHAPE_MESH) return fail(c, "only mesh bodies dent ('%s' is not a mesh)", b.name);
            b.dents = true;
            b.dent = c->s->dents[d].dent;
        } else if (strcmp(a, "plastic") == 0) {
            if (cr_scene_body_plastic(c->s, &b, at_end(c) ? NULL : c->tok[c->pos++], c->line, c->err)) return -1;
        } else if (strcmp(a, "bend") == 0) {
            if (at_end(c)) return fail(c, "'bend' needs a bend name");
            const char *n = c->tok[c->pos++];
            int32_t d = cr_scene_bend_find(c->s, n);
            if (d < 0) return fail(c, "unknown bend '%s' (bends must be defined before they are used)", n);
            if (b.def.shape.type != CR_SHAPE_MESH) return fail(c, "only mesh bodies bend ('%s' is not a mesh)", b.name);
            b.bends = true;
            b.bend = c->s->bends[d].bend;
        } else if (strcmp(a, "squash") == 0) {
            int32_t q = at_end(c) ? -1 : cr_scene_squash_find(c->s, c->tok[c->pos++]);
            if (q < 0 || b.def.shape.type != CR_SHAPE_MESH) return fail(c, "'squash' needs a squash defined before, on a mesh body");
            b.squash = true, b.squash_def = c->s->squashes[q].def;
        } else if (strcmp(a, "fracture") == 0) { /* tools/scene_fracture.c */
            if (cr_scene_body_fracture(c->s, &b, at_end(c) ? NULL : c->tok[c->pos++], c->line, c->err)) return -1;
        } else if (strcmp(a, "position") == 0) {
            if (read_vec3(c, a, &b.def.position)) return -1;
        } else if (strcmp(a, "rotate") == 0) {
            if (read_rotate(c, a, &b.def.orientation)) return -1;
        } else if (strcmp(a, "quat") == 0) {
            if (read_quat(c, a, &b.def.orientation)) return -1;
        } else if (strcmp(a, "velocity") == 0) {
            if (read_vec3(c, a, &b.def.linear_velocity)) return -1;
        } else if (strcmp(a, "spin") == 0) {
            if (read_vec3(c, a, &b.def.angular_velocity)) return -1;
        } else if (strcmp(a, "sleep") == 0) {
            const char *t = at_end(c) ? "" : c->tok[c->pos++];
            if (strcmp(t, "on") != 0 && strcmp(t, "off") != 0) return fail(c, "'sleep' needs on or off, got '%s'", t);
            b.def.no_sleep = strcmp(t, "off") == 0;
        } else if (strcmp(a, "sensor") == 0) {
            b.def.is_sensor = true;
        } else if (strcmp(a, "category") == 0) {
            if (read_bits(c, a, &b.def.filter.category_bits)) return -1;
        } else if (strcmp(a, "mask") == 0) {
            if (read_bits(c, a, &b.def.filter.mask_bits)) return -1;
        } else if (strcmp(a, "group") == 0) {
            bool negative = !at_end(c) && c->tok[c->pos][0] == '-';
            if (negative) ++c->tok[c->pos]; /* the sign, then the magnitude as a whole number */
            uint32_t g;
            if (read_uint(c, "group", 0, 0x7fffffffu, &g)) return -1;
            b.def.filter.group_index = negative ? -(int32_t)g : (int32_t)g;
        } else if (strcmp(a, "spawn") == 0) {
            uint32_t f;
            if (read_uint(c, "spawn", 0, 10000000, &f)) return -1;
            b.spawn_frame = (int32_t)f;
        } else if (grid && strcmp(a, "count") == 0) {
            for (int k = 0; k < 3; ++k) {
                if (at_end(c) || !cr_scene_looks_numeric(c->tok[c->pos])) return fail(c, "'count' needs 3 numbers (nx ny nz), got %d", k);
                if (read_uint(c, "count", 1, CR_SCENE_MAX_BODIES, &g.count[k])) return -1;
            }
            has_count = true;
        } else if (grid && strcmp(a, "spacing") == 0) {
            if (read_vec3(c, a, &g.spacing)) return -1;
        } else if (grid && strcmp(a, "alternate") == 0) {
            if (read_shape(c, &g.alternate, &g.alternate_asset)) return -1;
            if (g.alternate.type == CR_SHAPE_PLANE) return fail(c, "a grid cannot alternate with a plane");
            g.has_alternate = true;
        } else if (grid && strcmp(a, "jitter") == 0) {
            if (read_reals(c, a, "m", 1, &g.jitter)) return -1;
            if (g.jitter < 0) return fail(c, "'jitter' must be >= 0");
        } else if (grid && strcmp(a, "tilt") == 0) {
            if (read_reals(c, a, "degrees", 1, &g.tilt)) return -1;
        } else if (grid && strcmp(a, "seed") == 0) {
            if (read_uint(c, "seed", 0, 0xffffffffu, &g.seed)) return -1;
        } else if (grid) {
            return fail(c, "unknown grid attribute '%s' (count spacing alternate jitter tilt seed material dent position "
                           "rotate quat velocity spin sleep sensor category mask group spawn)", a);
        } else {
            return fail(c, "unknown body attribute '%s' (material dent position rotate quat velocity spin sleep sensor category "
                           "mask group spawn)", a);
        }
    }
    if (b.def.type == CR_BODY_STATIC && b.spawn_frame >= 0 && b.def.shape.type == CR_SHAPE_PLANE)
        return fail(c, "a plane cannot be spawned later");
    if (!grid) return add_body(c, &b);

    if (!has_count) return fail(c, "'grid' needs 'count NX NY NZ'");
    if (b.def.shape.type == CR_SHAPE_PLANE) return fail(c, "a grid of planes makes no sense");
    uint64_t total = (uint64_t)g.count[0] * g.count[1] * g.count[2];
    if (total + (uint64_t)arrlen(c->s->bodies) > CR_SCENE_MAX_BODIES)
        return fail(c, "grid of %ux%ux%u bodies is over the limit of %u bodies per scene", g.count[0], g.count[1], g.count[2],
                    CR_SCENE_MAX_BODIES);
    /* Refused before a single instance is made: the parser holds no more
     * bodies than the world it describes can take. */
    uint64_t after = total + (uint64_t)arrlen(c->s->bodies);
    if (c->cap_line[CAP_BODIES] && after > c->cap_value[CAP_BODIES])
        return fail(c, "grid of %ux%ux%u bodies makes %llu bodies, over capacity bodies %u (set at line %d)", g.count[0],
                    g.count[1], g.count[2], (unsigned long long)after, c->cap_value[CAP_BODIES], c->cap_line[CAP_BODIES]);
    /* Layers bottom-up (y outermost), then rows (z), then x: the lower
     * layers get the lower slots, so the order is the order of a drop. */
    char base[CR_SCENE_NAME_MAX];
    strcpy(base, b.name);
    uint32_t k = 0;
    for (uint32_t iy = 0; iy < g.count[1]; ++iy)
        for (uint32_t iz = 0; iz < g.count[2]; ++iz)
            for (uint32_t ix = 0; ix < g.count[0]; ++ix, ++k) {
                cr_scene_body inst = b;
                snprintf(inst.name, sizeof inst.name, "%.52s.%u", base, k);
                cr_vec3 off = cr_v3(cr_mul(cr_from_int((int32_t)ix), g.spacing.x), cr_mul(cr_from_int((int32_t)iy), g.spacing.y),
                                    cr_mul(cr_from_int((int32_t)iz), g.spacing.z));
                if (g.jitter > 0) {
                    off.x += cr_mul(g.jitter, hash_unit(g.seed, k, 0));
                    off.y += cr_mul(g.jitter, hash_unit(g.seed, k, 1));
                    off.z += cr_mul(g.jitter, hash_unit(g.seed, k, 2));
                }
                inst.def.position = cr_v3_add(b.def.position, off);
                if (g.tilt != 0) {
                    cr_vec3 axis = cr_v3(hash_unit(g.seed, k, 3), hash_unit(g.seed, k, 4), hash_unit(g.seed, k, 5));
                    if (cr_v3_len_sq(axis) <= CR_R(0.0001)) axis = cr_v3(0, CR_R(1), 0);
                    cr_quat tq = axis_degrees(axis, cr_mul(g.tilt, hash_unit(g.seed, k, 6)));
                    inst.def.orientation = cr_quat_normalize(cr_quat_mul(tq, b.def.orientation));
                }
                if (g.has_alternate && ((ix + iy + iz) & 1u)) {
                    inst.def.shape = g.alternate;
                    inst.asset = g.alternate_asset;
                }
                if (add_body(c, &inst)) return -1;
            }
    return 0;
}

/* ---- joints ---- */

static int st_joint(pctx *c) {
    cr_scene_joint j;
    memset(&j, 0, sizeof j);
    if (read_new_name(c, "joint", 0, j.name)) return -1;
    for (ptrdiff_t i = 0; i < arrlen(c->s->joints); ++i)
        if (strcmp(c->s->joints[i].name, j.name) == 0)
            return fail(c, "joint '%s' already defined at line %d", j.name, c->s->joints[i].line);
    j.def = cr_default_joint_def();
    j.line = c->line;
    if (at_end(c)) return fail(c, "'joint' needs a type (point hinge fixed)");
    const char *type = c->tok[c->pos++];
    if (strcmp(type, "point") == 0)
        j.def.type = CR_JOINT_POINT;
    else if (strcmp(type, "hinge") == 0)
        j.def.type = CR_JOINT_HINGE;
    else if (strcmp(type, "fixed") == 0)
        j.def.type = CR_JOINT_FIXED;
    else
        return fail(c, "unknown joint type '%s' (point hinge fixed)", type);
    if (read_body_ref(c, "joint", &j.body_a)) return -1;
    if (at_end(c)) return fail(c, "'joint' needs a second body (or 'world')");
    if (strcmp(c->tok[c->pos], "world") == 0) {
        j.body_b = -1;
        ++c->pos;
    } else if (read_body_ref(c, "joint", &j.body_b)) {
        return -1;
    }
    if (j.body_a == j.body_b) return fail(c, "joint '%s' joins '%s' to itself", j.name, c->s->bodies[j.body_a].name);
    for (int k = 0; k < 2; ++k) {
        int32_t b = k == 0 ? j.body_a : j.body_b;
        if (b >= 0 && c->s->bodies[b].spawn_frame >= 0)
            return fail(c, "joint '%s' needs '%s' at the start, but it spawns at frame %d", j.name, c->s->bodies[b].name,
                        c->s->bodies[b].spawn_frame);
    }
    bool has_anchor = false, has_axis = false, bends = false;
    while (!at_end(c)) {
        const char *a = c->tok[c->pos++];
        if (strcmp(a, "anchor") == 0) {
            if (read_vec3(c, a, &j.def.anchor)) return -1;
            has_anchor = true;
        } else if (strcmp(a, "axis") == 0) {
            if (read_vec3(c, a, &j.def.axis)) return -1;
            if (cr_v3_len_sq(j.def.axis) <= 0) return fail(c, "'axis' must not be zero");
            has_axis = true;
        } else if (strcmp(a, "collide") == 0) {
            j.def.collide_connected = true;
        } else if (strcmp(a, "bend") == 0) {
            /* a bending material's joint half (seed 000 §4.1, §4.3): plastic or elastic */
            int32_t d = at_end(c) ? -1 : cr_scene_bend_find(c->s, c->tok[c->pos++]);
            if (d < 0) return fail(c, "'bend' needs a bend defined before");
            const cr_bend_def *bd = &c->s->bends[d].bend;
            j.def.bend_strength = bd->bend_strength;
            j.def.bend_damping = bd->bend_damping;
            j.def.bend_damping_constant = bd->bend_damping_constant;
            j.def.spring_stiffness = bd->spring_stiffness;
            j.def.spring_damping = bd->spring_damping;
            bends = true;
        } else {
            return fail(c, "unknown joint attribute '%s' (anchor axis collide bend)", a);
        }
    }
    if (!has_anchor) return fail(c, "joint '%s' needs 'anchor X Y Z' (a world point)", j.name);
    if (j.def.type == CR_JOINT_HINGE && !has_axis) return fail(c, "hinge '%s' needs 'axis X Y Z'", j.name);
    if (j.def.type != CR_JOINT_HINGE && has_axis) return fail(c, "only a hinge takes an 'axis'");
    if (j.def.type != CR_JOINT_FIXED && bends) return fail(c, "only a fixed joint takes a 'bend'");
    j.def.user_data = (uint64_t)arrlen(c->s->joints) + 1;
    arrput(c->s->joints, j);
    return 0;
}

/* ---- timed inputs ---- */

static int read_input_head(pctx *c, const char *what, cr_scene_input *in) {
    memset(in, 0, sizeof *in);
    uint32_t f;
    char fw[64];
    snprintf(fw, sizeof fw, "%s frame", what);
    if (read_uint(c, fw, 0, 10000000, &f)) return -1;
    int32_t body = -1;
    /* a soft body by its name too (tools/scene_spring.c applies those) */
    int32_t soft = at_end(c) || cr_scene_find_body(c->s, c->tok[c->pos]) >= 0 ? -1 : cr_scene_soft_find(c->s, c->tok[c->pos]);
    if (soft >= 0) {
        const cr_scene_soft *sb = &c->s->softs[soft];
        ++c->pos;
        if (sb->spawn_frame > (int32_t)f)
            return fail(c, "'%s' at frame %u on soft body '%s', which only spawns at frame %d", what, f, sb->name, sb->spawn_frame);
        body = soft;
        in->flags |= CR_SCENE_INPUT_SOFT;
    } else {
        if (read_body_ref(c, what, &body)) return -1;
        const cr_scene_body *b = &c->s->bodies[body];
        if (b->spawn_frame > (int32_t)f)
            return fail(c, "'%s' at frame %u on '%s', which only spawns at frame %d", what, f, b->name, b->spawn_frame);
    }
    in->frame = (int32_t)f;
    in->body = (uint32_t)body;
    in->seq = c->seq++;
    in->line = c->line;
    in->frames = 1;
    in->q = cr_quat_identity();
    return 0;
}

static int st_impulse(pctx *c) {
    cr_scene_input in;
    if (read_input_head(c, "impulse", &in)) return -1;
    in.kind = CR_SCENE_INPUT_IMPULSE;
    if (!(in.flags & CR_SCENE_INPUT_SOFT) && c->s->bodies[in.body].def.type != CR_BODY_DYNAMIC)
        return fail(c, "'impulse' needs a dynamic body; '%s' is not", c->s->bodies[in.body].name);
    if (read_vec3(c, "impulse", &in.v)) return -1;
    while (!at_end(c)) {
        const char *a = c->tok[c->pos++];
        if (strcmp(a, "at") == 0) {
            if (read_vec3(c, "at", &in.p)) return -1;
            in.flags |= CR_SCENE_INPUT_HAS_POINT;
        } else {
            return fail(c, "unknown impulse attribute '%s' (at)", a);
        }
    }
    arrput(c->s->inputs, in);
    return 0;
}

static int st_velocity(pctx *c) {
    cr_scene_input in;
    if (read_input_head(c, "velocity", &in)) return -1;
    in.kind = CR_SCENE_INPUT_VELOCITY;
    if (!(in.flags & CR_SCENE_INPUT_SOFT) && c->s->bodies[in.body].def.type == CR_BODY_STATIC)
        return fail(c, "'velocity' cannot move the static body '%s'", c->s->bodies[in.body].name);
    if (read_vec3(c, "velocity", &in.v)) return -1;
    while (!at_end(c)) {
        const char *a = c->tok[c->pos++];
        if (strcmp(a, "spin") == 0) {
            if (read_vec3(c, "spin", &in.w)) return -1;
        } else {
            return fail(c, "unknown velocity attribute '%s' (spin)", a);
        }
    }
    arrput(c->s->inputs, in);
    return 0;
}

static int st_target(pctx *c) {
    cr_scene_input in;
    if (read_input_head(c, "target", &in)) return -1;
    in.kind = CR_SCENE_INPUT_TARGET;
    if (in.flags & CR_SCENE_INPUT_SOFT)
        return fail(c, "'target' needs a kinematic body; '%s' is a soft body (impulse and velocity reach soft bodies)",
                    c->s->softs[in.body].name);
    if (c->s->bodies[in.body].def.type != CR_BODY_KINEMATIC)
        return fail(c, "'target' needs a kinematic body; '%s' is not", c->s->bodies[in.body].name);
    if (read_vec3(c, "target", &in.p)) return -1;
    while (!at_end(c)) {
        const char *a = c->tok[c->pos++];
        if (strcmp(a, "rotate") == 0) {
            if (read_rotate(c, a, &in.q)) return -1;
            in.flags |= CR_SCENE_INPUT_HAS_ORIENTATION;
        } else if (strcmp(a, "quat") == 0) {
            if (read_quat(c, a, &in.q)) return -1;
            in.flags |= CR_SCENE_INPUT_HAS_ORIENTATION;
        } else if (strcmp(a, "frames") == 0) {
            uint32_t n;
            if (read_uint(c, "frames", 1, 10000000, &n)) return -1;
            in.frames = (int32_t)n;
        } else {
            return fail(c, "unknown target attribute '%s' (rotate quat frames)", a);
        }
    }
    arrput(c->s->inputs, in);
    return 0;
}

/* ---- the statement table ---- */

typedef struct statement {
    const char *keyword;
    int (*parse)(pctx *c);
} statement;

static int st_plastic(pctx *c) { return cr_scene_plastic_statement(c->s, c->line, c->tok + c->pos, c->ntok - c->pos, c->err); }
static int st_body(pctx *c) { return st_body_or_grid(c, false); }
static int st_grid(pctx *c) { return st_body_or_grid(c, true); }
/* `fracture NAME ...`: tools/scene_fracture.c */
static int st_fracture(pctx *c) {
    if (cr_scene_fracture_statement(c->s, c->line, c->tok + c->pos, c->ntok - c->pos, c->err)) return -1;
    c->pos = c->ntok;
    return 0;
}

static int st_squash(pctx *c) {
    char why[256];
    if (cr_scene_squash_define(c->s, c->tok + c->pos, c->ntok - c->pos, c->line, why, sizeof why)) return fail(c, "%s", why);
    c->pos = c->ntok;
    return 0;
}

static int st_pose(pctx *c) {
    char why[256];
    if (cr_scene_squash_pose_define(c->s, c->tok + c->pos, c->ntok - c->pos, c->line, why, sizeof why)) return fail(c, "%s", why);
    c->pos = c->ntok;
    return 0;
}

static int st_spring(pctx *c) {
    char why[256];
    if (cr_scene_spring_define(c->s, c->tok + c->pos, c->ntok - c->pos, c->line, why, sizeof why)) return fail(c, "%s", why);
    c->pos = c->ntok;
    return 0;
}
static int st_soft(pctx *c) {
    char why[256];
    if (cr_scene_soft_define(c->s, c->tok + c->pos, c->ntok - c->pos, c->line, why, sizeof why)) return fail(c, "%s", why);
    c->pos = c->ntok;
    return 0;
}

/* `ray FRAME NAME X Y Z DX DY DZ [all]` and `overlap FRAME NAME sphere|box|aabb ...`,
 * then the filter words; asked by tools/scene_query.c */
static int read_query_filter(pctx *c, cr_scene_query *q, bool ray) {
    while (!at_end(c)) {
        const char *a = c->tok[c->pos++];
        if (strcmp(a, "category") == 0) {
            if (read_bits(c, a, &q->filter.category_bits)) return -1;
        } else if (strcmp(a, "mask") == 0) {
            if (read_bits(c, a, &q->filter.mask_bits)) return -1;
        } else if (strcmp(a, "sensors") == 0) {
            q->filter.sensors = true;
        } else if (ray && strcmp(a, "all") == 0) {
            q->kind = CR_SCENE_QUERY_RAY_ALL;
        } else {
            return fail(c, "unknown %s attribute '%s' (%scategory mask sensors)", ray ? "ray" : "overlap", a, ray ? "all " : "");
        }
    }
    return 0;
}

static int read_query_head(pctx *c, const char *what, cr_scene_query *q) {
    memset(q, 0, sizeof *q);
    uint32_t f;
    char fw[64];
    snprintf(fw, sizeof fw, "%s frame", what);
    if (read_uint(c, fw, 0, 10000000, &f)) return -1;
    if (read_new_name(c, what, 0, q->name)) return -1;
    for (ptrdiff_t i = 0; i < arrlen(c->s->queries); ++i)
        if (strcmp(c->s->queries[i].name, q->name) == 0)
            return fail(c, "query '%s' already defined at line %d", q->name, c->s->queries[i].line);
    q->frame = (int32_t)f;
    q->line = c->line;
    q->q = cr_quat_identity();
    q->filter = cr_default_query_filter();
    return 0;
}

static int st_ray(pctx *c) {
    cr_scene_query q;
    if (read_query_head(c, "ray", &q) || read_vec3(c, "ray origin", &q.a) || read_vec3(c, "ray translation", &q.b)) return -1;
    if (q.b.x == 0 && q.b.y == 0 && q.b.z == 0) return fail(c, "ray '%s' has a zero translation", q.name);
    q.kind = CR_SCENE_QUERY_RAY;
    if (read_query_filter(c, &q, true)) return -1;
    arrput(c->s->queries, q);
    return 0;
}

static int st_overlap(pctx *c) {
    cr_scene_query q;
    if (read_query_head(c, "overlap", &q)) return -1;
    const char *shape = at_end(c) ? "" : c->tok[c->pos++];
    if (strcmp(shape, "sphere") == 0) {
        q.kind = CR_SCENE_QUERY_SPHERE;
        if (read_vec3(c, "overlap sphere centre", &q.a) || read_reals(c, "overlap sphere radius", "r", 1, &q.radius)) return -1;
        if (q.radius <= 0) return fail(c, "overlap '%s': the sphere's radius must be above 0", q.name);
    } else if (strcmp(shape, "box") == 0 || strcmp(shape, "aabb") == 0) {
        bool box = shape[0] == 'b';
        q.kind = box ? CR_SCENE_QUERY_BOX : CR_SCENE_QUERY_AABB;
        if (read_vec3(c, box ? "overlap box centre" : "overlap aabb low corner", &q.a) ||
            read_vec3(c, box ? "overlap box half extents" : "overlap aabb high corner", &q.b))
            return -1;
        cr_vec3 e = box ? q.b : cr_v3_sub(q.b, q.a);
        if (e.x < 0 || e.y < 0 || e.z < 0)
            return fail(c, "overlap '%s': %s", q.name, box ? "half extents must not be negative" : "the high corner is below the low one");
        if (box && !at_end(c) && strcmp(c->tok[c->pos], "rotate") == 0) {
            ++c->pos;
            cr_real r[4];
            if (read_reals(c, "rotate", "ax ay az degrees", 4, r)) return -1;
            if (r[0] == 0 && r[1] == 0 && r[2] == 0) return fail(c, "'rotate' needs an axis that is not 0");
            q.q = axis_degrees(cr_v3(r[0], r[1], r[2]), r[3]);
        }
    } else {
        return fail(c, "overlap '%s' needs a shape: sphere X Y Z R, box X Y Z HX HY HZ [rotate AX AY AZ DEG], aabb X0 Y0 Z0 X1 Y1 Z1%s%s%s",
                    q.name, *shape ? " (got '" : "", shape, *shape ? "')" : "");
    }
    if (read_query_filter(c, &q, false)) return -1;
    arrput(c->s->queries, q);
    return 0;
}

static const statement statements[] = {
    {"gravity", st_gravity}, {"dt", st_dt},         {"frames", st_frames},     {"passes", st_passes},
    {"shock", st_shock},     {"sleep", st_sleep},       {"capacity", st_capacity}, {"cache", st_cache},   {"material", st_material},
    {"asset", st_asset},     {"body", st_body},     {"grid", st_grid},         {"joint", st_joint},
    {"impulse", st_impulse}, {"dent", st_dent},     {"deform", st_deform},     {"bend", st_bend},
    {"bending", st_bending},
    {"velocity", st_velocity}, {"target", st_target},
    {"plastic", st_plastic},
    {"squash", st_squash},
    {"pose", st_pose},
    {"fracture", st_fracture},
    {"spring", st_spring}, {"soft", st_soft},
    {"ray", st_ray}, {"overlap", st_overlap},
};

/* Splits c->buf into words; '#' starts a comment. */
static int tokenize(pctx *c) {
    c->ntok = 0;
    c->pos = 0;
    char *p = c->buf;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\r') *p++ = '\0';
        if (*p == '\0' || *p == '#') {
            *p = '\0';
            return 0;
        }
        if (c->ntok == MAX_TOKENS) return fail(c, "too many words on one line (max %d)", MAX_TOKENS);
        c->tok[c->ntok++] = p;
        while (*p != '\0' && *p != ' ' && *p != '\t' && *p != '\r' && *p != '#') ++p;
        if (*p == '#') {
            *p = '\0';
            return 0;
        }
    }
}

static int parse_line(pctx *c) {
    if (tokenize(c)) return -1;
    if (c->ntok == 0) return 0;
    const char *kw = c->tok[c->pos++];
    if (c->header_line == 0) {
        if (strcmp(kw, "crumple-scene") != 0) return fail(c, "expected 'crumple-scene 1' as the first statement, got '%s'", kw);
        if (at_end(c) || strcmp(c->tok[c->pos], "1") != 0)
            return fail(c, "unsupported scene version '%s' (this crumple reads version 1)", at_end(c) ? "" : c->tok[c->pos]);
        ++c->pos;
        c->header_line = c->line;
        return end_of_statement(c, "crumple-scene 1");
    }
    if (strcmp(kw, "crumple-scene") == 0) return fail(c, "second 'crumple-scene' header (first at line %d)", c->header_line);
    for (size_t i = 0; i < sizeof statements / sizeof statements[0]; ++i)
        if (strcmp(kw, statements[i].keyword) == 0) return statements[i].parse(c);
    return fail(c, "unknown keyword '%s'", kw);
}

static int cmp_input(const void *a, const void *b) {
    const cr_scene_input *x = a, *y = b;
    if (x->frame != y->frame) return x->frame < y->frame ? -1 : 1;
    return x->seq < y->seq ? -1 : (x->seq > y->seq ? 1 : 0);
}

/* A world over the block limit (32-bit offsets) cannot be made: say so at
 * the line that asks for it, with the size it would need. The line is the
 * body whose arrival crosses the limit, or, when the capacities alone are
 * too much, the last capacity line. */
static int over_block_limit(pctx *c, const cr_world_def *d) {
    uint64_t need = cr_world_memory_need(d);
    if (need > 0 && need <= CR_WORLD_MAX_BLOCK_BYTES) return 0;
    if (need == 0) {
        cr_field f;
        cr_status st = cr_world_def_check(d, &f);
        return fail(c, "the world this scene describes is refused: %s (%s)", cr_status_message(st), cr_field_name(f));
    }
    cr_world_def probe = *d;
    probe.body_capacity = 1;
    int line = 0;
    for (int k = 0; k < CAP_COUNT; ++k) line = c->cap_line[k] > line ? c->cap_line[k] : line;
    if (cr_world_memory_need(&probe) <= CR_WORLD_MAX_BLOCK_BYTES && !c->cap_line[CAP_BODIES]) {
        /* the bodies do it: find the first body count over the limit */
        uint32_t lo = 1, hi = d->body_capacity;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            probe.body_capacity = mid;
            if (cr_world_memory_need(&probe) > CR_WORLD_MAX_BLOCK_BYTES) hi = mid;
            else lo = mid + 1;
        }
        line = c->s->bodies[lo - 1].line;
    }
    if (line > 0) c->line = line;
    return fail(c, "the world this scene describes needs %llu bytes, over the %llu-byte block limit; lower the capacities "
                   "or the bodies",
                (unsigned long long)need, (unsigned long long)CR_WORLD_MAX_BLOCK_BYTES);
}

/* Capacities given explicitly must hold what the scene declares; the
 * rest are derived from the counts. */
static int finish(pctx *c) {
    cr_scene *s = c->s;
    uint32_t nbodies = (uint32_t)arrlen(s->bodies), nassets = (uint32_t)arrlen(s->assets);
    if (c->cap_line[CAP_BODIES] && nbodies > c->cap_value[CAP_BODIES]) {
        const cr_scene_body *b = &s->bodies[c->cap_value[CAP_BODIES]];
        c->line = b->line;
        return fail(c, "body '%s' exceeds capacity bodies %u (set at line %d)", b->name, c->cap_value[CAP_BODIES],
                    c->cap_line[CAP_BODIES]);
    }
    if (c->cap_line[CAP_ASSETS] && nassets > c->cap_value[CAP_ASSETS]) {
        const cr_scene_asset *a = &s->assets[c->cap_value[CAP_ASSETS]];
        c->line = a->line;
        return fail(c, "asset '%s' exceeds capacity assets %u (set at line %d)", a->name, c->cap_value[CAP_ASSETS],
                    c->cap_line[CAP_ASSETS]);
    }
    cr_world_def *d = &s->def;
    d->body_capacity = c->cap_line[CAP_BODIES] ? c->cap_value[CAP_BODIES] : (nbodies > 0 ? nbodies : 1);
    uint32_t ndent = 0;
    for (uint32_t i = 0; i < nbodies; ++i) ndent += s->bodies[i].dents;
    for (uint32_t i = 0; i < nbodies; ++i) d->damage.squash.body_capacity += s->bodies[i].squash;
    /* kinematic skeletons (`pose`) and sculpting need room for a posed rest skin; sculpting its grid */
    d->damage.squash.sculpt_nodes = cr_scene_squash_sculpt_nodes(s);
    if (arrlen(s->poses) > 0 || d->damage.squash.sculpt_nodes > 0) d->damage.squash.posable = 1;
    if (!c->deform_bodies_line) d->damage.dent.body_capacity = ndent;
    else if (ndent > d->damage.dent.body_capacity) {
        c->line = c->deform_bodies_line;
        return fail(c, "the scene has %u dentable bodies, more than 'deform bodies %u'", ndent, d->damage.dent.body_capacity);
    }
    if (c->cap_line[CAP_ASSETS]) d->asset_capacity = c->cap_value[CAP_ASSETS];
    else if (nassets > d->asset_capacity) d->asset_capacity = nassets;
    /* A resting pile touches about six neighbours per body. */
    uint32_t pairs = 8u * nbodies;
    if (c->cap_line[CAP_PAIRS]) d->pair_capacity = c->cap_value[CAP_PAIRS];
    else if (pairs > d->pair_capacity) d->pair_capacity = pairs;
    if (c->cap_line[CAP_CONTACTS]) d->contact_capacity = c->cap_value[CAP_CONTACTS];
    else if (pairs > d->contact_capacity) d->contact_capacity = pairs;
    uint32_t njoints = (uint32_t)arrlen(s->joints);
    if (c->cap_line[CAP_JOINTS] && njoints > c->cap_value[CAP_JOINTS]) {
        const cr_scene_joint *j = &s->joints[c->cap_value[CAP_JOINTS]];
        c->line = j->line;
        return fail(c, "joint '%s' exceeds capacity joints %u (set at line %d)", j->name, c->cap_value[CAP_JOINTS],
                    c->cap_line[CAP_JOINTS]);
    }
    if (c->cap_line[CAP_JOINTS]) d->joint_capacity = c->cap_value[CAP_JOINTS];
    else if (njoints > d->joint_capacity) d->joint_capacity = njoints;
    if (c->cap_line[CAP_POINTS]) d->points_per_pair = c->cap_value[CAP_POINTS];
    /* Interference points per step from what each body's pairs hold at once
     * (docs/solver.md, "Memory"): a sphere 8 (one per neighbour), a box 16 (a
     * face on a face keeps about 16 and a pile or a stack has about one such
     * pair per box), a mesh 2 x points_per_pair; never below 256. The pool is
     * most of a big world's block (188 B a point in float, 376 in fixed), so it
     * follows the bodies, not the contact capacity; a scene with more (a box
     * pyramid) says `capacity points_total`, and what did not fit is counted
     * as narrowphase overflow. */
    uint64_t points = 0;
    for (uint32_t i = 0; i < nbodies; ++i) {
        const cr_body_def *b = &s->bodies[i].def;
        if (b->type == CR_BODY_STATIC) continue; /* its points count with the bodies that touch it */
        points += b->shape.type == CR_SHAPE_SPHERE ? 8u
                  : b->shape.type == CR_SHAPE_BOX  ? 16u
                                                   : 2u * (uint64_t)d->points_per_pair;
    }
    if (points < 256u) points = 256u;
    if (c->cap_line[CAP_POINTS_TOTAL]) d->point_capacity = c->cap_value[CAP_POINTS_TOTAL];
    else d->point_capacity = (uint32_t)(points < (1u << 26) ? points : (1u << 26));
    if (c->cap_line[CAP_EVENTS]) d->event_capacity = c->cap_value[CAP_EVENTS];
    if (c->cap_line[CAP_TOUCHES]) d->touch_capacity = c->cap_value[CAP_TOUCHES];
    if (c->cap_line[CAP_CONTACT_EVENTS]) d->contact_event_capacity = c->cap_value[CAP_CONTACT_EVENTS];
    if (c->cap_line[CAP_SENSORS]) d->sensor_capacity = c->cap_value[CAP_SENSORS];
    if (c->cap_line[CAP_SENSOR_EVENTS]) d->sensor_event_capacity = c->cap_value[CAP_SENSOR_EVENTS];
    /* the world grows its scratch to what its capacities need by itself */
    if (c->cap_line[CAP_SCRATCH_KB]) d->scratch_bytes = c->cap_value[CAP_SCRATCH_KB] * 1024u;
    if (over_block_limit(c, d)) return -1;
    if (arrlen(s->inputs) > 1) qsort(s->inputs, (size_t)arrlen(s->inputs), sizeof s->inputs[0], cmp_input);
    return 0;
}

static void set_paths(cr_scene *s, const char *path) {
    snprintf(s->path, sizeof s->path, "%s", path ? path : "<scene>");
    const char *slash = strrchr(s->path, '/');
    if (slash == NULL) {
        s->dir[0] = '\0';
    } else {
        size_t n = (size_t)(slash - s->path) + 1;
        memcpy(s->dir, s->path, n);
        s->dir[n] = '\0';
    }
}

int cr_scene_parse(const char *text, size_t size, const char *path, cr_scene **out, cr_scene_error *err) {
    if (out == NULL) return -1;
    *out = NULL;
    cr_scene *s = calloc(1, sizeof *s);
    pctx *c = calloc(1, sizeof *c);
    if (s == NULL || c == NULL) {
        free(s);
        free(c);
        return cr_scene_error_set(err, path ? path : "<scene>", 0, "out of memory");
    }
    set_paths(s, path);
    sh_new_strdup(s->names_);
    s->def = cr_default_world_def();
    s->dt = cr_scene_real_from_double(1.0 / 60.0);
    s->frames = 600;
    cr_scene_material def_mat;
    memset(&def_mat, 0, sizeof def_mat);
    strcpy(def_mat.name, "default");
    def_mat.material = cr_default_material();
    arrput(s->materials, def_mat);
    c->s = s;
    c->err = err;

    int rc = 0;
    size_t i = 0;
    if (text == NULL) size = 0;
    if (size >= 3 && (uint8_t)text[0] == 0xef && (uint8_t)text[1] == 0xbb && (uint8_t)text[2] == 0xbf) {
        c->line = 1;
        rc = fail(c, "the file starts with a UTF-8 byte-order mark (bytes EF BB BF); save it without one");
    }
    while (rc == 0 && i < size) {
        ++c->line;
        size_t n = 0;
        while (i < size && text[i] != '\n') {
            if (text[i] == '\0') {
                rc = fail(c, "NUL byte in the scene text");
                break;
            }
            if (n == MAX_LINE) {
                rc = fail(c, "line is longer than %d characters", MAX_LINE);
                break;
            }
            c->buf[n++] = text[i++];
        }
        if (rc) break;
        c->buf[n] = '\0';
        ++i; /* the newline */
        rc = parse_line(c);
    }
    if (rc == 0 && c->header_line == 0) {
        c->line = 1;
        rc = fail(c, "empty scene: expected 'crumple-scene 1' as the first statement");
    }
    if (rc == 0) rc = finish(c);
    free(c);
    if (rc != 0) {
        cr_scene_free(s);
        return -1;
    }
    *out = s;
    return 0;
}

int cr_scene_load(const char *path, cr_scene **out, cr_scene_error *err) {
    if (out) *out = NULL;
    uint8_t *data = NULL;
    size_t size = 0;
    crp_status ps = crp_read_file(path, &data, &size);
    if (ps != CRP_OK) return cr_scene_error_set(err, path, 0, "cannot read the scene: %s", crp_status_message(ps));
    int rc = cr_scene_parse((const char *)data, size, path, out, err);
    crp_free(data);
    return rc;
}

void cr_scene_free(cr_scene *s) {
    if (s == NULL) return;
    arrfree(s->materials);
    arrfree(s->dents);
    arrfree(s->plastics);
    arrfree(s->squashes);
    arrfree(s->poses);
    arrfree(s->fractures);
    cr_scene_spring_free(s);
    cr_scene_free_assets(s);
    arrfree(s->assets);
    arrfree(s->bodies);
    arrfree(s->joints);
    arrfree(s->bends);
    arrfree(s->inputs);
    cr_scene_free_queries(s);
    arrfree(s->frame_inputs);
    shfree(s->names_);
    free(s);
}
