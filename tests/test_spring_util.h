/* test_spring_util.h — worlds with soft bodies for the mass-spring tests:
 * cooked spheres, subdivided cubes and the shipped meshes as soft assets. */
#ifndef CRUMPLE_TEST_SPRING_UTIL_H
#define CRUMPLE_TEST_SPRING_UTIL_H

#include "test_cook_util.h"
#include "test_solver_util.h"
#include "soft/mass_spring.h"

#define SP_MAX_ASSETS 4

typedef struct sp_world {
    cr_cook_result cooked[SP_MAX_ASSETS];
    cr_asset asset[SP_MAX_ASSETS];
    void *asset_block[SP_MAX_ASSETS];
    uint32_t slot[SP_MAX_ASSETS];
    int assets;
    cr_world *w;
    void *block;
} sp_world;

/* A cube [-h, h]^3 with n x n quads a face (shared edges and corners). */
static inline void sp_cube_obj(char **s, double h, int n) {
    /* vertices on the surface of the (n+1)^3 lattice, indexed through a table */
    int m = n + 1, next = 1;
    int *id = (int *)calloc((size_t)(m * m * m), sizeof(int));
    for (int k = 0; k < m; ++k)
        for (int j = 0; j < m; ++j)
            for (int i = 0; i < m; ++i) {
                if (i != 0 && i != n && j != 0 && j != n && k != 0 && k != n) continue;
                id[(k * m + j) * m + i] = next++;
                tc_printf(s, "v %.17g %.17g %.17g\n", -h + 2 * h * i / n, -h + 2 * h * j / n, -h + 2 * h * k / n);
            }
#define SP_ID(i, j, k) id[((k) * m + (j)) * m + (i)]
    for (int a = 0; a < n; ++a)
        for (int b = 0; b < n; ++b) {
            /* -z and +z, -y and +y, -x and +x faces, counter-clockwise from outside */
            tc_printf(s, "f %d %d %d %d\n", SP_ID(a, b, 0), SP_ID(a, b + 1, 0), SP_ID(a + 1, b + 1, 0), SP_ID(a + 1, b, 0));
            tc_printf(s, "f %d %d %d %d\n", SP_ID(a, b, n), SP_ID(a + 1, b, n), SP_ID(a + 1, b + 1, n), SP_ID(a, b + 1, n));
            tc_printf(s, "f %d %d %d %d\n", SP_ID(a, 0, b), SP_ID(a + 1, 0, b), SP_ID(a + 1, 0, b + 1), SP_ID(a, 0, b + 1));
            tc_printf(s, "f %d %d %d %d\n", SP_ID(a, n, b), SP_ID(a, n, b + 1), SP_ID(a + 1, n, b + 1), SP_ID(a + 1, n, b));
            tc_printf(s, "f %d %d %d %d\n", SP_ID(0, a, b), SP_ID(0, a, b + 1), SP_ID(0, a + 1, b + 1), SP_ID(0, a + 1, b));
            tc_printf(s, "f %d %d %d %d\n", SP_ID(n, a, b), SP_ID(n, a + 1, b), SP_ID(n, a + 1, b + 1), SP_ID(n, a, b + 1));
        }
#undef SP_ID
    free(id);
}

/* Cook OBJ text (taken and freed) into the next asset. */
static inline int sp_cook_text(sp_world *d, char *obj, double normalise) {
    int k = d->assets;
    if (k >= SP_MAX_ASSETS) return 0;
    cr_cook_options opt = cr_cook_default_options();
    opt.quiet = true;
    opt.sdf_res = 24;
    opt.normalise = normalise;
    int rc = tc_cook_text("soft.obj", obj, (size_t)arrlen(obj), &opt, &d->cooked[k]);
    arrfree(obj);
    if (rc != 0) return 0;
    d->asset_block[k] = tc_load(d->cooked[k].bytes, d->cooked[k].size, &d->asset[k]);
    if (d->asset_block[k] == NULL) return 0;
    d->assets++;
    return 1;
}

static inline int sp_cook_sphere(sp_world *d, double r, int seg, int rings) {
    char *s = NULL;
    tc_sphere(&s, r, seg, rings);
    return sp_cook_text(d, s, 0);
}

static inline int sp_cook_cube(sp_world *d, double h, int n) {
    char *s = NULL;
    sp_cube_obj(&s, h, n);
    return sp_cook_text(d, s, 0);
}

/* A shipped mesh (data/meshes/), scaled so its longest side is `size` m. */
static inline int sp_cook_file(sp_world *d, const char *name, double size) {
    char path[256];
    snprintf(path, sizeof path, CR_SHARED_MESHES "%s", name);
    FILE *f = fopen(path, "rb");
    if (f == NULL) return 0;
    char *s = NULL;
    int c;
    while ((c = fgetc(f)) != EOF) arrput(s, (char)c);
    fclose(f);
    return sp_cook_text(d, s, size);
}

/* The world, after the assets are cooked; `budget` sets the soft room. */
static inline int sp_make_world(sp_world *d, cr_vec3 gravity, cr_spring_budget budget) {
    cr_world_def def = cr_default_world_def();
    def.body_capacity = 64;
    def.gravity = gravity;
    def.spring = budget;
    size_t size = cr_world_memory_size(&def);
    if (size == 0) return 0;
    d->block = aligned_alloc(CR_BLOCK_ALIGN, (size + 15) / 16 * 16);
    if (cr_world_create(&def, d->block, size, &d->w) != CR_OK) return 0;
    for (int k = 0; k < d->assets; ++k)
        if (cr_world_add_asset(d->w, &d->asset[k], &d->slot[k]) != CR_OK) return 0;
    return 1;
}

static inline cr_spring_budget sp_budget(uint32_t bodies, uint32_t particles, uint32_t springs) {
    cr_spring_budget b = cr_default_spring_budget();
    b.body_capacity = bodies;
    b.particle_capacity = particles;
    b.spring_capacity = springs;
    return b;
}

static inline void sp_free(sp_world *d) {
    for (int k = 0; k < d->assets; ++k) {
        free(d->asset_block[k]);
        cr_cook_result_free(&d->cooked[k]);
    }
    free(d->block);
    memset(d, 0, sizeof *d);
}

static inline cr_soft_state sp_state(cr_world *w, cr_soft_id id) {
    cr_soft_state s;
    cr_soft_get_state(w, id, &s);
    return s;
}

static inline double sp_len(cr_vec3 v) { return sqrt(ts_d(v.x) * ts_d(v.x) + ts_d(v.y) * ts_d(v.y) + ts_d(v.z) * ts_d(v.z)); }

/* Winding number of a point about a closed triangle mesh (1 inside, 0 outside). */
static inline double sp_winding(const cr_asset *a, const cr_vec3 *x, cr_vec3 q) {
    double total = 0;
    for (uint32_t t = 0; t < a->triangle_count; ++t) {
        double v[3][3];
        for (int k = 0; k < 3; ++k) {
            cr_vec3 p = x[a->triangles[3 * t + k]];
            v[k][0] = ts_d(p.x) - ts_d(q.x), v[k][1] = ts_d(p.y) - ts_d(q.y), v[k][2] = ts_d(p.z) - ts_d(q.z);
        }
        double l[3];
        for (int k = 0; k < 3; ++k) l[k] = sqrt(v[k][0] * v[k][0] + v[k][1] * v[k][1] + v[k][2] * v[k][2]);
        double det = v[0][0] * (v[1][1] * v[2][2] - v[1][2] * v[2][1]) - v[0][1] * (v[1][0] * v[2][2] - v[1][2] * v[2][0]) +
                     v[0][2] * (v[1][0] * v[2][1] - v[1][1] * v[2][0]);
        double d01 = v[0][0] * v[1][0] + v[0][1] * v[1][1] + v[0][2] * v[1][2];
        double d12 = v[1][0] * v[2][0] + v[1][1] * v[2][1] + v[1][2] * v[2][2];
        double d20 = v[2][0] * v[0][0] + v[2][1] * v[0][1] + v[2][2] * v[0][2];
        total += 2 * atan2(det, l[0] * l[1] * l[2] + d01 * l[2] + d12 * l[0] + d20 * l[1]);
    }
    return total / (4 * TS_PI);
}

#endif
