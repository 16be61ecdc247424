/* test_surface_refresh.c — a plastic body's normals after its commits: the
 * example model refreshes only the normals around the vertices a commit moved
 * (cri_surface_copy_refresh_moved). Every normal of a vertex that shares a
 * triangle with a moved one must be the full refresh's bits (summed from zero
 * over its faces in triangle order), and every other normal must keep its bits;
 * a normal left out, or summed in another order, shows here. Run on the
 * shipped example_car (848 vertices, fade after fade as the heavy car lands)
 * in both scalar modes. */
#include "test_scene_util.h"

#include <stdlib.h>

/* Every vertex normal as cri_surface_copy_refresh computes it. */
static void full_normals(const cr_body_mesh *m, cr_vec3 *out) {
    for (uint32_t v = 0; v < m->vertex_count; ++v) out[v] = cr_v3_zero();
    for (uint32_t t = 0; t < m->triangle_count; ++t) {
        const uint32_t *tri = &m->triangles[3 * t];
        const cr_vec3 *p = m->positions;
        cr_vec3 n = cr_v3_cross(cr_v3_sub(p[tri[1]], p[tri[0]]), cr_v3_sub(p[tri[2]], p[tri[0]]));
        for (int k = 0; k < 3; ++k) out[tri[k]] = cr_v3_add(out[tri[k]], n);
    }
    for (uint32_t v = 0; v < m->vertex_count; ++v) out[v] = cr_v3_normalize(out[v]);
}

static bool same(const cr_vec3 *a, const cr_vec3 *b) { return memcmp(a, b, sizeof(cr_vec3)) == 0; }

CR_TEST(surface_refresh_of_moved_vertices_gives_the_full_refresh_bits) {
    scene_run r;
    ENSURE(open_scene("example_car", &r) == 0);
    cr_body_id wreck = body_named(&r, "wreck");
    ENSURE(wreck.index1 != 0);
    cr_body_mesh m;
    ENSURE(cr_body_get_mesh(r.w, wreck, &m) == CR_OK);
    const uint32_t nv = m.vertex_count;
    cr_vec3 *want = malloc(nv * sizeof(cr_vec3)), *normals = malloc(nv * sizeof(cr_vec3));
    cr_vec3 *positions = malloc(nv * sizeof(cr_vec3));
    uint8_t *near = malloc(nv);
    ENSURE(want != NULL && normals != NULL && positions != NULL && near != NULL);
    uint32_t moved_steps = 0, local_steps = 0, wrong_near = 0, wrong_far = 0;
    for (int32_t f = 0; f < r.s->frames; ++f) {
        memcpy(normals, m.normals, nv * sizeof(cr_vec3));
        memcpy(positions, m.positions, nv * sizeof(cr_vec3));
        ENSURE(step(&r, f) == 0);
        ENSURE(cr_body_get_mesh(r.w, wreck, &m) == CR_OK);
        memset(near, 0, nv);
        for (uint32_t t = 0; t < m.triangle_count; ++t) {
            const uint32_t *tri = &m.triangles[3 * t];
            bool moved = false;
            for (int k = 0; k < 3; ++k) moved = moved || !same(&positions[tri[k]], &m.positions[tri[k]]);
            if (moved)
                for (int k = 0; k < 3; ++k) near[tri[k]] = 1;
        }
        uint32_t touched = 0;
        for (uint32_t v = 0; v < nv; ++v) touched += near[v];
        if (touched == 0) continue;
        ++moved_steps;
        if (touched < nv) ++local_steps;
        full_normals(&m, want);
        for (uint32_t v = 0; v < nv; ++v) {
            if (near[v] && !same(&want[v], &m.normals[v])) ++wrong_near;
            if (!near[v] && !same(&normals[v], &m.normals[v])) ++wrong_far;
        }
    }
    cr_test_printf("    %d steps; the surface moved in %u, some vertices' normals only in %u; normals unlike the full "
                   "refresh next to a moved vertex: %u, changed away from every moved vertex: %u\n",
                   r.s->frames, moved_steps, local_steps, wrong_near, wrong_far);
    ENSURE(moved_steps > 10 && local_steps > 10);
    ENSURE(wrong_near == 0 && wrong_far == 0);
    free(want);
    free(normals);
    free(positions);
    free(near);
    cr_cli_world_free(r.w);
    cr_scene_free(r.s);
}
