/* squash_mesh.c — the star mesher of a skeleton's rest surface (squash_mesh.h). */
#include "squash_mesh.h"
#include "implicit_skeleton.h"

#include <stdlib.h>
#include <string.h>

void cr_squash_mesh_free(cr_squash_mesh *m) {
    free(m->pos), free(m->normals), free(m->tri);
    memset(m, 0, sizeof *m);
}

int cr_squash_mesh_star(const cr_squash_primitive *p, uint32_t np, cr_real c, cr_vec3 centre, cr_vec3 half,
                        const int cells[3], cr_squash_mesh *out) {
    memset(out, 0, sizeof *out);
    uint32_t nv = 0, nt = 0;
    for (int axis = 0; axis < 3; ++axis) {
        uint32_t nu = (uint32_t)cells[(axis + 1) % 3], nw = (uint32_t)cells[(axis + 2) % 3];
        nv += 2 * (nu + 1) * (nw + 1), nt += 4 * nu * nw;
    }
    out->pos = malloc(nv * sizeof(cr_vec3)), out->normals = malloc(nv * sizeof(cr_vec3));
    out->tri = malloc(3 * (size_t)nt * sizeof(uint32_t));
    if (out->pos == NULL || out->normals == NULL || out->tri == NULL) {
        cr_squash_mesh_free(out);
        return -1;
    }
    const cr_real h[3] = {half.x, half.y, half.z};
    cr_real far = 4 * (half.x + half.y + half.z);
    uint32_t v = 0, t = 0;
    for (int face = 0; face < 6; ++face) {
        int axis = face / 2, a1 = (axis + 1) % 3, a2 = (axis + 2) % 3;
        cr_real sign = (face & 1) ? -CR_R(1) : CR_R(1);
        uint32_t nu = (uint32_t)cells[a1], nw = (uint32_t)cells[a2], base = v;
        for (uint32_t j = 0; j <= nw; ++j)
            for (uint32_t i = 0; i <= nu; ++i) {
                cr_real q[3];
                q[axis] = cr_mul(sign, h[axis]);
                q[a1] = cr_mul(cr_from_int((int32_t)(2 * i)) / (int32_t)nu - CR_R(1), h[a1]);
                q[a2] = cr_mul(cr_from_int((int32_t)(2 * j)) / (int32_t)nw - CR_R(1), h[a2]);
                cr_vec3 d = cr_v3_normalize(cr_v3(q[0], q[1], q[2]));
                cr_real lo = 0, hi = far;
                if (cri_skeleton_value(p, np, cr_v3_mad(centre, hi, d)) >= c) {
                    cr_squash_mesh_free(out);
                    return -1;
                }
                for (int it = 0; it < 48; ++it) {
                    cr_real mid = cr_half(lo + hi);
                    if (cri_skeleton_value(p, np, cr_v3_mad(centre, mid, d)) >= c) lo = mid;
                    else hi = mid;
                }
                cr_vec3 x = cri_skeleton_project(p, np, c, cr_v3_mad(centre, cr_half(lo + hi), d), 2);
                out->pos[v] = x;
                out->normals[v] = cr_v3_normalize(cr_v3_neg(cri_skeleton_potential(p, np, x).grad));
                ++v;
            }
        for (uint32_t j = 0; j < nw; ++j)
            for (uint32_t i = 0; i < nu; ++i) {
                uint32_t a = base + j * (nu + 1) + i, b = a + 1, cc = a + (nu + 1), dd = cc + 1;
                /* (a1, a2, axis) is right-handed: counter-clockwise from outside on + faces, reversed on - faces */
                uint32_t q4[4] = {a, b, dd, cc};
                if (sign < 0) q4[1] = cc, q4[3] = b;
                /* split along the shorter diagonal */
                cr_real d02 = cr_v3_len_sq(cr_v3_sub(out->pos[q4[0]], out->pos[q4[2]]));
                cr_real d13 = cr_v3_len_sq(cr_v3_sub(out->pos[q4[1]], out->pos[q4[3]]));
                uint32_t *o = &out->tri[3 * t];
                if (d02 <= d13) {
                    o[0] = q4[0], o[1] = q4[1], o[2] = q4[2], o[3] = q4[0], o[4] = q4[2], o[5] = q4[3];
                } else {
                    o[0] = q4[0], o[1] = q4[1], o[2] = q4[3], o[3] = q4[1], o[4] = q4[2], o[5] = q4[3];
                }
                t += 2;
            }
    }
    out->vertex_count = v, out->triangle_count = t;
    return 0;
}
