/* test_solver_util.h — small fixtures shared by the solver tests: a world in a
 * heap block, ground planes, boxes and spheres with a given material. */
#ifndef CRUMPLE_TEST_SOLVER_UTIL_H
#define CRUMPLE_TEST_SOLVER_UTIL_H

#include "test.h"
#include "crumple/crumple.h"

#include <stdlib.h>
#include <string.h>

static inline cr_world *ts_world(const cr_world_def *def) {
    size_t size = cr_world_memory_size(def);
    if (size == 0) return NULL;
    void *block = aligned_alloc(CR_BLOCK_ALIGN, (size + 15) / 16 * 16);
    cr_world *w = NULL;
    if (block == NULL || cr_world_create(def, block, size, &w) != CR_OK) {
        free(block);
        return NULL;
    }
    return w;
}

static inline void ts_free(cr_world *w) { free(w); }

static inline cr_material ts_material(double restitution, double friction) {
    cr_material m = cr_default_material();
    m.restitution = cr_from_float((float)restitution);
    m.friction = cr_from_float((float)friction);
    return m;
}

/* A static plane through `point` whose solid side is below `q` applied to +y. */
static inline cr_body_id ts_plane(cr_world *w, cr_vec3 point, cr_quat q, cr_material m) {
    cr_body_def bd = cr_default_body_def();
    bd.type = CR_BODY_STATIC;
    bd.shape.type = CR_SHAPE_PLANE;
    bd.position = point;
    bd.orientation = q;
    bd.material = m;
    cr_body_id id;
    if (cr_body_create(w, &bd, &id) != CR_OK) memset(&id, 0, sizeof id);
    return id;
}

static inline cr_body_id ts_ground(cr_world *w, cr_material m) {
    return ts_plane(w, cr_v3_zero(), cr_quat_identity(), m);
}

static inline cr_body_id ts_box(cr_world *w, cr_vec3 p, cr_quat q, cr_vec3 half, cr_material m) {
    cr_body_def bd = cr_default_body_def();
    bd.shape.type = CR_SHAPE_BOX;
    bd.shape.half_extents = half;
    bd.position = p;
    bd.orientation = q;
    bd.material = m;
    cr_body_id id;
    if (cr_body_create(w, &bd, &id) != CR_OK) memset(&id, 0, sizeof id);
    return id;
}

static inline cr_body_id ts_sphere(cr_world *w, cr_vec3 p, double radius, cr_material m) {
    cr_body_def bd = cr_default_body_def();
    bd.shape.type = CR_SHAPE_SPHERE;
    bd.shape.radius = cr_from_float((float)radius);
    bd.position = p;
    bd.material = m;
    cr_body_id id;
    if (cr_body_create(w, &bd, &id) != CR_OK) memset(&id, 0, sizeof id);
    return id;
}

static inline cr_vec3 ts_pos(cr_world *w, cr_body_id id) { return cr_body_get_transform(w, id).p; }
static inline double ts_d(cr_real x) { return cr_to_double(x); }
static inline cr_vec3 ts_v(double x, double y, double z) {
    return cr_v3(cr_from_float((float)x), cr_from_float((float)y), cr_from_float((float)z));
}
static inline double ts_dist(cr_vec3 a, cr_vec3 b) {
    double dx = ts_d(a.x) - ts_d(b.x), dy = ts_d(a.y) - ts_d(b.y), dz = ts_d(a.z) - ts_d(b.z);
    return sqrt(dx * dx + dy * dy + dz * dz);
}

#define TS_DT CR_R(1.0 / 60.0)
#define TS_PI 3.14159265358979323846

#endif
