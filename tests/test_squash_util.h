/* test_squash_util.h — squishy skins for the squash tests: a skeleton's rest
 * surface meshed by casting rays from its centre through a box's surface
 * grid (so a flat slab gets an even grid on its faces), and the skin's
 * scratch memory. Test-only helpers (malloc is fine here). */
#ifndef TEST_SQUASH_UTIL_H
#define TEST_SQUASH_UTIL_H

#include "damage/squash.h"
#include "geometry/implicit_skeleton.h"

#include <stdlib.h>
#include <string.h>

typedef struct sq_mesh {
    cri_squash_skin skin;
    cr_vec3 *rest, *rest_normals, *pos, *normals;
    uint32_t *triangles, *tri_start, *tri_list, *prev;
    uint32_t prev_count;
} sq_mesh;

/* Where the ray centre + t dir meets f = c (bisection: f falls along the ray). */
static inline cr_vec3 sq_ray_surface(const cr_squash_primitive *p, uint32_t n, cr_real c, cr_vec3 o, cr_vec3 d, cr_real far) {
    cr_real lo = 0, hi = far;
    for (int it = 0; it < 48; ++it) {
        cr_real mid = cr_half(lo + hi);
        if (cri_skeleton_value(p, n, cr_v3_mad(o, mid, d)) >= c) lo = mid;
        else hi = mid;
    }
    return cri_skeleton_project(p, n, c, cr_v3_mad(o, cr_half(lo + hi), d), 2);
}

/* A closed mesh of the skeleton's surface f = c: each face of the box
 * centre ± half cut in n x n quads, each grid point moved onto the surface
 * along the ray from the centre. Faces keep their own vertices (the seams
 * are doubled: each copy moves the same way, so volumes are exact). */
static inline void sq_mesh_make(sq_mesh *m, const cr_squash_primitive *p, uint32_t np, cr_real c, cr_vec3 centre, cr_vec3 half,
                         uint32_t n, uint32_t zone_capacity) {
    memset(m, 0, sizeof *m);
    uint32_t nv = 6 * (n + 1) * (n + 1), nt = 6 * n * n * 2;
    m->rest = malloc(nv * sizeof(cr_vec3)), m->rest_normals = malloc(nv * sizeof(cr_vec3));
    m->pos = malloc(nv * sizeof(cr_vec3)), m->normals = malloc(nv * sizeof(cr_vec3));
    m->triangles = malloc(3 * nt * sizeof(uint32_t));
    m->tri_start = malloc((nv + 1) * sizeof(uint32_t)), m->tri_list = malloc(3 * nt * sizeof(uint32_t));
    m->prev = malloc(zone_capacity * sizeof(uint32_t));
    cr_real far = 4 * (half.x + half.y + half.z);
    uint32_t v = 0, t = 0;
    for (int face = 0; face < 6; ++face) {
        int axis = face / 2;
        cr_real sign = (face & 1) ? -CR_R(1) : CR_R(1);
        uint32_t base = v;
        for (uint32_t j = 0; j <= n; ++j)
            for (uint32_t i = 0; i <= n; ++i) {
                cr_real u = cr_from_int((int32_t)(2 * i)) / (int32_t)n - CR_R(1);
                cr_real w = cr_from_int((int32_t)(2 * j)) / (int32_t)n - CR_R(1);
                cr_real q[3];
                q[axis] = sign;
                q[(axis + 1) % 3] = u;
                q[(axis + 2) % 3] = w;
                cr_vec3 d = cr_v3(cr_mul(q[0], half.x), cr_mul(q[1], half.y), cr_mul(q[2], half.z));
                cr_vec3 x = sq_ray_surface(p, np, c, centre, cr_v3_normalize(d), far);
                m->rest[v] = x;
                m->rest_normals[v] = cr_v3_normalize(cr_v3_neg(cri_skeleton_potential(p, np, x).grad));
                ++v;
            }
        for (uint32_t j = 0; j < n; ++j)
            for (uint32_t i = 0; i < n; ++i) {
                uint32_t a = base + j * (n + 1) + i, b = a + 1, cc = a + (n + 1), dd = cc + 1;
                /* (u, w, axis) is right-handed for the + faces: counter-clockwise from outside */
                if (sign > 0) {
                    m->triangles[3 * t] = a, m->triangles[3 * t + 1] = b, m->triangles[3 * t + 2] = dd, ++t;
                    m->triangles[3 * t] = a, m->triangles[3 * t + 1] = dd, m->triangles[3 * t + 2] = cc, ++t;
                } else {
                    m->triangles[3 * t] = a, m->triangles[3 * t + 1] = dd, m->triangles[3 * t + 2] = b, ++t;
                    m->triangles[3 * t] = a, m->triangles[3 * t + 1] = cc, m->triangles[3 * t + 2] = dd, ++t;
                }
            }
    }
    memcpy(m->pos, m->rest, nv * sizeof(cr_vec3));
    memcpy(m->normals, m->rest_normals, nv * sizeof(cr_vec3));
    cri_squash_vertex_triangles(m->triangles, nt, nv, m->tri_start, m->tri_list);
    cri_squash_skin *s = &m->skin;
    s->vertex_count = nv, s->triangle_count = nt;
    s->rest = m->rest, s->rest_normals = m->rest_normals, s->triangles = m->triangles;
    s->tri_start = m->tri_start, s->tri_list = m->tri_list;
    s->pos = m->pos, s->normals = m->normals;
    s->mark = calloc(nv, 1);
    s->zone = malloc(zone_capacity * sizeof(uint32_t));
    s->zone_c1 = malloc(zone_capacity * CRI_SQUASH_MAX_OTHERS * sizeof(cr_real));
    s->zone_h = malloc(zone_capacity * CRI_SQUASH_MAX_OTHERS * sizeof(cr_real));
    s->zone_capacity = zone_capacity;
    s->candidates = malloc((nv + nt) * sizeof(uint32_t));
    s->zone_dir = malloc(zone_capacity * sizeof(cr_vec3));
}

static inline void sq_mesh_free(sq_mesh *m) {
    free(m->rest), free(m->rest_normals), free(m->pos), free(m->normals), free(m->triangles);
    free(m->tri_start), free(m->tri_list), free(m->prev);
    free(m->skin.mark), free(m->skin.zone), free(m->skin.zone_c1), free(m->skin.zone_h), free(m->skin.candidates), free(m->skin.zone_dir);
}

/* One step of the skin: deform and remember the zone for the next step's return to rest. */
static inline cri_squash_result sq_step(sq_mesh *m, const cri_squash_params *prm, cri_squash_other *o, uint32_t n) {
    cri_squash_result r = cri_squash_deform(prm, &m->skin, o, n, m->prev, m->prev_count);
    memcpy(m->prev, m->skin.zone, r.zone_count * sizeof(uint32_t));
    m->prev_count = r.zone_count;
    return r;
}

static inline double sq_volume(const cr_vec3 *x, const uint32_t *tri, uint32_t nt) {
    double v = 0;
    for (uint32_t t = 0; t < nt; ++t) {
        const cr_vec3 a = x[tri[3 * t]], b = x[tri[3 * t + 1]], c = x[tri[3 * t + 2]];
        double ax = cr_to_double(a.x), ay = cr_to_double(a.y), az = cr_to_double(a.z);
        double bx = cr_to_double(b.x), by = cr_to_double(b.y), bz = cr_to_double(b.z);
        double cx = cr_to_double(c.x), cy = cr_to_double(c.y), cz = cr_to_double(c.z);
        v += ax * (by * cz - bz * cy) + ay * (bz * cx - bx * cz) + az * (bx * cy - by * cx);
    }
    return v / 6;
}

static inline cri_squash_params sq_params(const cr_squash_primitive *p, uint32_t n) {
    cri_squash_params prm;
    memset(&prm, 0, sizeof prm);
    prm.prims = p, prm.count = n;
    prm.newton_steps = 4;
    prm.c = CR_R(0.5), prm.c0 = CR_R(0.2), prm.peak = CR_R(0.5);
    prm.volume_loss = 0;
    prm.fixed_scale = -CR_R(1);
    return prm;
}

/* A rigid sphere of radius r at `at` (squishy frame) moving with `vel`. */
static inline cri_squash_other sq_rigid_sphere(const cr_shape_def *shape, cr_vec3 at, cr_vec3 vel, cr_real c, cr_real reach) {
    cri_squash_other o;
    memset(&o, 0, sizeof o);
    o.kind = CRI_SQUASH_OTHER_SHAPE;
    o.to_other = cr_transform_identity();
    o.to_other.p = cr_v3_neg(at);
    o.shape = shape;
    o.scale = c;
    o.reach = reach;
    o.bound_centre = at;
    o.bound_radius = shape->radius + reach;
    o.velocity = vel;
    return o;
}

#endif
