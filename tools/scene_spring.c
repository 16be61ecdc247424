/* scene_spring.c — `spring` and `soft` lines of a scene (scene_spring.h):
 * soft materials, soft bodies, the world's soft room, and creating them.
 *
 * Numbers go through the scene's own exact parser and its one conversion to
 * cr_real (cr_scene_parse_number, cr_scene_real_from_double), so a soft
 * scene gives the same bits on every machine, like the rest of a scene.
 */
#include "scene_spring.h"

#include <stdio.h>
#include <string.h>

#include "stb_ds.h"

int32_t cr_scene_spring_find(const cr_scene *s, const char *name) {
    for (ptrdiff_t i = 0; i < arrlen(s->springs); ++i)
        if (strcmp(s->springs[i].name, name) == 0) return (int32_t)i;
    return -1;
}

int32_t cr_scene_soft_find(const cr_scene *s, const char *name) {
    for (ptrdiff_t i = 0; i < arrlen(s->softs); ++i)
        if (strcmp(s->softs[i].name, name) == 0) return (int32_t)i;
    return -1;
}

/* n numbers after tok[*i] (the key at tok[*i - 1]), each in [lo, hi]. */
static int numbers(char *const *tok, int ntok, int *i, const char *key, int n, double lo, double hi, cr_real *out,
                   char *why, size_t wn) {
    for (int k = 0; k < n; ++k) {
        double v;
        const char *what = NULL;
        if (*i >= ntok || !cr_scene_looks_numeric(tok[*i]))
            return snprintf(why, wn, "'%s' needs %d number%s, got %d", key, n, n == 1 ? "" : "s", k), -1;
        if (cr_scene_parse_number(tok[*i], &v, &what) != 0)
            return snprintf(why, wn, "bad number '%.40s' for '%s': %s", tok[*i], key, what), -1;
        if (v < lo || v > hi) return snprintf(why, wn, "'%s' is %.40s, must be %g..%g", key, tok[*i], lo, hi), -1;
        out[k] = cr_scene_real_from_double(v);
        ++*i;
    }
    return 0;
}

static int on_off(char *const *tok, int ntok, int *i, const char *key, const char *on, const char *off, bool *out,
                  char *why, size_t wn) {
    const char *t = *i < ntok ? tok[*i] : "";
    if (strcmp(t, on) != 0 && strcmp(t, off) != 0) return snprintf(why, wn, "'%s' needs %s or %s, got '%.40s'", key, on, off, t), -1;
    *out = strcmp(t, on) == 0;
    ++*i;
    return 0;
}

static bool good_name(const char *t) {
    if (!((*t >= 'A' && *t <= 'Z') || (*t >= 'a' && *t <= 'z') || *t == '_')) return false;
    for (; *t; ++t)
        if (!((*t >= 'A' && *t <= 'Z') || (*t >= 'a' && *t <= 'z') || (*t >= '0' && *t <= '9') || *t == '_' || *t == '-'))
            return false;
    return true;
}

static int new_name(const char *what, const char *t, char *out, char *why, size_t wn) {
    if (!good_name(t))
        return snprintf(why, wn, "bad %s name '%.40s': use letters, digits, '_' and '-', starting with a letter or '_'", what, t), -1;
    if (strlen(t) >= CR_SCENE_NAME_MAX) return snprintf(why, wn, "%s name '%.40s...' is too long", what, t), -1;
    strcpy(out, t);
    return 0;
}

int cr_scene_spring_define(cr_scene *s, char *const *tok, int ntok, int line, char *why, size_t wn) {
    if (ntok < 1) return snprintf(why, wn, "'spring' needs a name"), -1;
    cr_scene_spring m;
    memset(&m, 0, sizeof m);
    if (new_name("spring", tok[0], m.name, why, wn)) return -1;
    int32_t prev = cr_scene_spring_find(s, m.name);
    if (prev >= 0) return snprintf(why, wn, "spring '%s' already defined at line %d", m.name, s->springs[prev].line), -1;
    m.line = line;
    m.def = cr_default_soft_def();
    for (int i = 1; i < ntok;) {
        const char *k = tok[i++];
        int rc = 0;
        bool flag;
        if (strcmp(k, "stiffness") == 0) rc = numbers(tok, ntok, &i, k, 1, 1e-3, 1e7, &m.def.stiffness, why, wn);
        else if (strcmp(k, "bend") == 0) rc = numbers(tok, ntok, &i, k, 1, 0, 1e7, &m.def.bend_stiffness, why, wn);
        else if (strcmp(k, "damping") == 0) rc = numbers(tok, ntok, &i, k, 1, 0, 1e7, &m.def.damping, why, wn);
        else if (strcmp(k, "absolute_damping") == 0) rc = numbers(tok, ntok, &i, k, 1, 0, 1e7, &m.def.absolute_damping, why, wn);
        else if (strcmp(k, "volume") == 0) rc = numbers(tok, ntok, &i, k, 1, 0, 1e7, &m.def.volume_stiffness, why, wn);
        else if (strcmp(k, "radius") == 0) rc = numbers(tok, ntok, &i, k, 1, 0, 100, &m.def.particle_radius, why, wn);
        else if (strcmp(k, "friction") == 0) rc = numbers(tok, ntok, &i, k, 1, 0, 100, &m.def.friction, why, wn);
        else if (strcmp(k, "restitution") == 0) rc = numbers(tok, ntok, &i, k, 1, 0, 1, &m.def.restitution, why, wn);
        else if (strcmp(k, "mass") == 0) rc = numbers(tok, ntok, &i, k, 1, 1e-3, 1e6, &m.def.mass, why, wn);
        else if (strcmp(k, "substeps") == 0) {
            /* whole numbers only: the world's substep count */
            const char *t = i < ntok ? tok[i] : "";
            uint32_t n = 0;
            int digits = 0;
            for (; *t >= '0' && *t <= '9' && digits < 3; ++t, ++digits) n = n * 10 + (uint32_t)(*t - '0');
            if (*t != 0 || digits == 0 || n < 1 || n > 64) return snprintf(why, wn, "'substeps' needs a whole number 1..64"), -1;
            m.substeps = n;
            ++i;
        } else if (strcmp(k, "masses") == 0) {
            rc = on_off(tok, ntok, &i, k, "area", "equal", &flag, why, wn);
            m.def.area_masses = flag;
        } else if (strcmp(k, "normalise") == 0) {
            rc = on_off(tok, ntok, &i, k, "on", "off", &flag, why, wn);
            m.def.normalise_by_neighbours = flag;
        } else if (strcmp(k, "sleep") == 0) {
            rc = on_off(tok, ntok, &i, k, "on", "off", &flag, why, wn);
            m.def.no_sleep = !flag;
        } else if (strcmp(k, "surface") == 0) {
            /* cr_soft_def.surface_contacts: on (the default) touching at the skin, off as particle spheres */
            rc = on_off(tok, ntok, &i, k, "on", "off", &flag, why, wn);
            m.def.surface_contacts = flag;
        } else {
            return snprintf(why, wn, "unknown spring attribute '%.40s' (stiffness bend damping absolute_damping volume radius "
                                     "friction restitution mass substeps masses normalise sleep surface)", k), -1;
        }
        if (rc) return -1;
    }
    arrput(s->springs, m);
    return 0;
}

int cr_scene_soft_define(cr_scene *s, char *const *tok, int ntok, int line, char *why, size_t wn) {
    if (ntok < 2) return snprintf(why, wn, "'soft' needs a name and an asset"), -1;
    cr_scene_soft b;
    memset(&b, 0, sizeof b);
    if (new_name("soft body", tok[0], b.name, why, wn)) return -1;
    int32_t prev = cr_scene_soft_find(s, b.name);
    if (prev >= 0) return snprintf(why, wn, "soft body '%s' already defined at line %d", b.name, s->softs[prev].line), -1;
    b.line = line;
    b.asset = -1;
    b.spawn_frame = -1;
    for (ptrdiff_t i = 0; i < arrlen(s->assets); ++i)
        if (strcmp(s->assets[i].name, tok[1]) == 0) b.asset = (int32_t)i;
    if (b.asset < 0) return snprintf(why, wn, "unknown asset '%.40s' (assets must be defined before they are used)", tok[1]), -1;
    b.spring = -1;
    b.def = cr_default_soft_def();
    cr_vec3 position = cr_v3(0, 0, 0);
    cr_quat q = cr_quat_identity();
    bool mass_set = false;
    cr_real mass = 0;
    for (int i = 2; i < ntok;) {
        const char *k = tok[i++];
        cr_real r[4];
        if (strcmp(k, "spring") == 0) {
            if (i >= ntok) return snprintf(why, wn, "'spring' needs a spring material name"), -1;
            b.spring = cr_scene_spring_find(s, tok[i]);
            if (b.spring < 0) return snprintf(why, wn, "unknown spring '%.40s' (springs must be defined before they are used)", tok[i]), -1;
            ++i;
        } else if (strcmp(k, "position") == 0) {
            if (numbers(tok, ntok, &i, k, 3, -1e6, 1e6, r, why, wn)) return -1;
            position = cr_v3(r[0], r[1], r[2]);
        } else if (strcmp(k, "rotate") == 0) {
            if (numbers(tok, ntok, &i, k, 4, -1e6, 1e6, r, why, wn)) return -1;
            cr_vec3 axis = cr_v3(r[0], r[1], r[2]);
            if (cr_v3_len_sq(axis) <= 0) return snprintf(why, wn, "'rotate' axis must not be zero"), -1;
            cr_quat d = cr_quat_from_axis_angle(cr_v3_normalize(axis), cr_mul(r[3], CR_R(0.017453292519943295)));
            q = cr_quat_normalize(cr_quat_mul(d, q));
        } else if (strcmp(k, "quat") == 0) {
            if (numbers(tok, ntok, &i, k, 4, -1e6, 1e6, r, why, wn)) return -1;
            if (r[0] == 0 && r[1] == 0 && r[2] == 0 && r[3] == 0) return snprintf(why, wn, "'quat' must not be the zero quaternion"), -1;
            cr_quat v = {r[0], r[1], r[2], r[3]};
            q = cr_quat_normalize(v);
        } else if (strcmp(k, "velocity") == 0) {
            if (numbers(tok, ntok, &i, k, 3, -1e4, 1e4, r, why, wn)) return -1;
            b.def.linear_velocity = cr_v3(r[0], r[1], r[2]);
        } else if (strcmp(k, "spin") == 0) {
            if (numbers(tok, ntok, &i, k, 3, -1e4, 1e4, r, why, wn)) return -1;
            b.def.angular_velocity = cr_v3(r[0], r[1], r[2]);
        } else if (strcmp(k, "mass") == 0) {
            if (numbers(tok, ntok, &i, k, 1, 1e-3, 1e6, &mass, why, wn)) return -1;
            mass_set = true;
        } else if (strcmp(k, "spawn") == 0) {
            const char *t = i < ntok ? tok[i] : "";
            uint32_t f = 0;
            int digits = 0;
            for (; *t >= '0' && *t <= '9' && digits < 9; ++t, ++digits) f = f * 10 + (uint32_t)(*t - '0');
            if (*t != 0 || digits == 0 || f > 10000000u) return snprintf(why, wn, "'spawn' needs a frame number 0..10000000"), -1;
            b.spawn_frame = (int32_t)f;
            ++i;
        } else {
            return snprintf(why, wn, "unknown soft attribute '%.40s' (spring position rotate quat velocity spin mass spawn)", k), -1;
        }
    }
    /* the material's fields, then this body's own */
    if (b.spring >= 0) {
        cr_soft_def m = s->springs[b.spring].def;
        m.linear_velocity = b.def.linear_velocity;
        m.angular_velocity = b.def.angular_velocity;
        b.def = m;
    }
    if (mass_set) b.def.mass = mass;
    b.def.transform.p = position;
    b.def.transform.q = q;
    arrput(s->softs, b);
    return 0;
}

/* Springs the runtime builds for an asset: its cooked ones, or at most one
 * structural and one bending spring per edge (2 x edges = the adjacency's
 * entries). */
static uint32_t springs_of(const cr_asset *a) {
    if (a->soft_spring_count) return a->soft_spring_count;
    return a->adjacency_start ? a->adjacency_start[a->vertex_count] : 0;
}

void cr_scene_spring_budget(const cr_scene *s, cr_world_def *def) {
    uint32_t n = (uint32_t)arrlen(s->softs);
    if (n == 0) return;
    cr_spring_budget b = cr_default_spring_budget();
    uint64_t particles = 0, springs = 0;
    for (uint32_t i = 0; i < n; ++i) {
        const cr_asset *a = s->assets[s->softs[i].asset].view_;
        if (a == NULL) continue;
        particles += a->vertex_count;
        springs += springs_of(a);
        int32_t m = s->softs[i].spring;
        if (m >= 0 && s->springs[m].substeps > b.substeps) b.substeps = s->springs[m].substeps;
    }
    b.body_capacity = n;
    /* twice the particles: the soft pair list is sized from this capacity
     * (CR_SOFT_PAIRS_PER_PARTICLE a particle), and a pile's particles touch
     * more than that many others on average; with the exact count soft_pile
     * dropped pairs and bodies passed into each other */
    particles *= 2;
    b.particle_capacity = particles > 0xffffffu ? 0xffffffu : (uint32_t)particles;
    b.spring_capacity = springs > 0xffffffu ? 0xffffffu : (uint32_t)springs;
    def->spring = b;
}

static int create_soft(cr_scene *s, cr_world *w, cr_scene_soft *b, cr_scene_error *err) {
    cr_soft_def def = b->def;
    def.asset = s->assets[b->asset].slot;
    /* placed as modelled, like a mesh body: position and rotation are the
     * mesh file's frame, not the cooked body frame (centre of mass,
     * principal axes), so `rotate 0 0 1 35` tilts a cube onto an edge
     * whatever axes its cook chose */
    cr_scene_mesh_placement(s->assets[b->asset].view_, &def.transform.p, &def.transform.q);
    cr_status st = cr_soft_create(w, &def, &b->id);
    if (st != CR_OK) {
        char why[256];
        return cr_scene_error_set(err, s->path, b->line, "soft body '%s': cannot create: %s", b->name,
                                  cr_scene_refusal(why, sizeof why, st, cr_world_refused_field(w)));
    }
    return 0;
}

int cr_scene_spring_create(cr_scene *s, cr_world *w, cr_scene_error *err) {
    for (ptrdiff_t i = 0; i < arrlen(s->softs); ++i) {
        memset(&s->softs[i].id, 0, sizeof s->softs[i].id);
        if (s->softs[i].spawn_frame < 0 && create_soft(s, w, &s->softs[i], err)) return -1;
    }
    return 0;
}

int cr_scene_spring_spawn(cr_scene *s, cr_world *w, int32_t frame, cr_scene_error *err) {
    for (ptrdiff_t i = 0; i < arrlen(s->softs); ++i)
        if (s->softs[i].spawn_frame == frame && create_soft(s, w, &s->softs[i], err)) return -1;
    return 0;
}

int cr_scene_spring_inputs(cr_scene *s, cr_world *w, int32_t frame, cr_scene_error *err) {
    for (ptrdiff_t i = 0; i < arrlen(s->inputs) && s->inputs[i].frame <= frame; ++i) {
        const cr_scene_input *in = &s->inputs[i];
        if (in->frame != frame || !(in->flags & CR_SCENE_INPUT_SOFT)) continue;
        const cr_scene_soft *b = &s->softs[in->body];
        cr_status st;
        const char *what = in->kind == CR_SCENE_INPUT_IMPULSE ? "impulse" : "velocity";
        if (in->kind == CR_SCENE_INPUT_IMPULSE)
            st = in->flags & CR_SCENE_INPUT_HAS_POINT ? cr_soft_apply_impulse(w, b->id, in->v, in->p)
                                                      : cr_soft_apply_body_impulse(w, b->id, in->v);
        else if (in->kind == CR_SCENE_INPUT_VELOCITY)
            st = cr_soft_set_velocity(w, b->id, in->v, in->w);
        else
            return cr_scene_error_set(err, s->path, in->line, "soft body '%s' takes impulse and velocity inputs only", b->name);
        if (st == CR_ERR_STALE_HANDLE)
            return cr_scene_error_set(err, s->path, in->line, "soft body '%s' is not in the world at frame %d", b->name, frame);
        if (st != CR_OK) {
            char why[256];
            return cr_scene_error_set(err, s->path, in->line, "'%s' on soft body '%s' at frame %d: %s", what, b->name, frame,
                                      cr_scene_refusal(why, sizeof why, st, cr_world_refused_field(w)));
        }
    }
    return 0;
}

void cr_scene_spring_free(cr_scene *s) {
    arrfree(s->springs);
    arrfree(s->softs);
}
