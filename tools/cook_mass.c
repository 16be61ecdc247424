/* cook_mass.c — volume, centre of mass, inertia and the principal frame.
 *
 * The runtime simulates every body in its principal frame (seed 002: "store
 * the object space representation with center of mass"), so the inertia is
 * three numbers and the centre of mass is the origin.
 *
 * Closed meshes: exact integrals over the polyhedron by the divergence
 * theorem, one signed tetrahedron (origin, a, b, c) per triangle:
 *     V   = sum det/6
 *     M1  = sum det/24 (a+b+c)
 *     M2  = sum det/120 (aa' + bb' + cc' + (a+b+c)(a+b+c)')      (= integral of x x')
 * with coordinates taken relative to the bounding-box centre so the terms
 * stay small. Then I = tr(C) 1 - C with C = M2 - V com com'.
 *
 * Open meshes (holes, non-manifold edges) have no inside in that sense, and
 * the formulas above would depend on where the origin is. There the volume is
 * integrated over a cell-centred grid whose occupancy is a smoothed step of
 * the signed distance, clamp(1/2 - d/h, 0, 1), with the sign from the winding
 * number. That step is exact for a plane along a grid axis and second order
 * for smooth surfaces, so a grid at half the SDF resolution is enough.
 *
 * The principal axes come from cyclic Jacobi rotations on the 3x3 tensor:
 * only + - * / sqrt, so the frame is the same on every machine.
 */
#include "cook.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Eigenvalues closer than this (relative) count as equal when ordering, so a
 * symmetric shape keeps the mesh's own axis order instead of a noise-picked one. */
#define EIGEN_TIE 1e-7

void cr_cook_eigen_sym3(double in[3][3], double values[3], double vectors[3][3]) {
    double a[3][3], v[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    memcpy(a, in, sizeof a);
    for (int sweep = 0; sweep < 64; ++sweep) {
        double off = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2];
        double diag = a[0][0] * a[0][0] + a[1][1] * a[1][1] + a[2][2] * a[2][2];
        if (off <= 1e-34 * diag || off == 0) break;
        for (int p = 0; p < 2; ++p)
            for (int q = p + 1; q < 3; ++q) {
                if (a[p][q] == 0) continue;
                /* the rotation that zeroes a[p][q] (Golub & Van Loan 8.4) */
                double theta = (a[q][q] - a[p][p]) / (2 * a[p][q]);
                double t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1));
                double c = 1 / sqrt(t * t + 1), s = t * c;
                for (int k = 0; k < 3; ++k) {
                    double akp = a[k][p], akq = a[k][q];
                    a[k][p] = c * akp - s * akq;
                    a[k][q] = s * akp + c * akq;
                }
                for (int k = 0; k < 3; ++k) {
                    double apk = a[p][k], aqk = a[q][k];
                    a[p][k] = c * apk - s * aqk;
                    a[q][k] = s * apk + c * aqk;
                }
                for (int k = 0; k < 3; ++k) {
                    double vkp = v[k][p], vkq = v[k][q];
                    v[k][p] = c * vkp - s * vkq;
                    v[k][q] = s * vkp + c * vkq;
                }
            }
    }
    int order[3] = {0, 1, 2};
    double scale = fabs(a[0][0]) + fabs(a[1][1]) + fabs(a[2][2]);
    for (int i = 1; i < 3; ++i)
        for (int j = i; j > 0; --j) {
            double x = a[order[j - 1]][order[j - 1]], y = a[order[j]][order[j]];
            if (y < x - EIGEN_TIE * scale) {
                int t = order[j];
                order[j] = order[j - 1];
                order[j - 1] = t;
            }
        }
    for (int k = 0; k < 3; ++k) {
        values[k] = a[order[k]][order[k]];
        for (int r = 0; r < 3; ++r) vectors[k][r] = v[r][order[k]];
        /* sign: the largest component positive (first one on ties) */
        int big = 0;
        for (int r = 1; r < 3; ++r)
            if (fabs(vectors[k][r]) > fabs(vectors[k][big])) big = r;
        if (vectors[k][big] < 0)
            for (int r = 0; r < 3; ++r) vectors[k][r] = -vectors[k][r];
    }
    /* Equal moments leave the axes in their plane undetermined, and Jacobi
     * would pick them from rounding noise. Pin them instead: all three equal
     * (a cube, a sphere) keeps the mesh axes; two equal (a torus, a cylinder)
     * keeps the unique axis and takes the mesh axis most nearly in the plane,
     * so symmetric shapes get the frame a person would draw. */
    bool tie01 = values[1] - values[0] <= EIGEN_TIE * scale, tie12 = values[2] - values[1] <= EIGEN_TIE * scale;
    if (tie01 && tie12) {
        for (int k = 0; k < 3; ++k)
            for (int r = 0; r < 3; ++r) vectors[k][r] = k == r ? 1.0 : 0.0;
    } else if (tie01 || tie12) {
        int unique = tie01 ? 2 : 0, a = tie01 ? 0 : 1, b = tie01 ? 1 : 2;
        const double *w = vectors[unique];
        int e = 0;
        for (int k = 1; k < 3; ++k)
            if (fabs(w[k]) < fabs(w[e])) e = k;
        double u[3] = {0, 0, 0};
        u[e] = 1;
        double d = w[e];
        for (int r = 0; r < 3; ++r) u[r] -= d * w[r];
        double l = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
        for (int r = 0; r < 3; ++r) u[r] /= l;
        /* right-handed either way: w x u follows u when w is first, precedes it when w is last */
        double v[3] = {w[1] * u[2] - w[2] * u[1], w[2] * u[0] - w[0] * u[2], w[0] * u[1] - w[1] * u[0]};
        memcpy(vectors[a], u, sizeof u);
        memcpy(vectors[b], v, sizeof v);
    }
    double *x = vectors[0], *y = vectors[1], *z = vectors[2];
    double det = x[0] * (y[1] * z[2] - y[2] * z[1]) - x[1] * (y[0] * z[2] - y[2] * z[0]) + x[2] * (y[0] * z[1] - y[1] * z[0]);
    if (det < 0)
        for (int r = 0; r < 3; ++r) z[r] = -z[r];
}

/* Rotation matrix (rows = body axes in mesh coordinates) to a unit quaternion
 * of the same rotation, then the matrix rebuilt from the quaternion so the
 * stored quaternion and the transformed vertices agree exactly. */
static void rotation_to_quat(double m[3][3], double q[4]) {
    double tr = m[0][0] + m[1][1] + m[2][2];
    if (tr > 0) {
        double s = sqrt(tr + 1.0) * 2;
        q[3] = 0.25 * s;
        q[0] = (m[2][1] - m[1][2]) / s;
        q[1] = (m[0][2] - m[2][0]) / s;
        q[2] = (m[1][0] - m[0][1]) / s;
    } else if (m[0][0] > m[1][1] && m[0][0] > m[2][2]) {
        double s = sqrt(1.0 + m[0][0] - m[1][1] - m[2][2]) * 2;
        q[3] = (m[2][1] - m[1][2]) / s;
        q[0] = 0.25 * s;
        q[1] = (m[0][1] + m[1][0]) / s;
        q[2] = (m[0][2] + m[2][0]) / s;
    } else if (m[1][1] > m[2][2]) {
        double s = sqrt(1.0 + m[1][1] - m[0][0] - m[2][2]) * 2;
        q[3] = (m[0][2] - m[2][0]) / s;
        q[0] = (m[0][1] + m[1][0]) / s;
        q[1] = 0.25 * s;
        q[2] = (m[1][2] + m[2][1]) / s;
    } else {
        double s = sqrt(1.0 + m[2][2] - m[0][0] - m[1][1]) * 2;
        q[3] = (m[1][0] - m[0][1]) / s;
        q[0] = (m[0][2] + m[2][0]) / s;
        q[1] = (m[1][2] + m[2][1]) / s;
        q[2] = 0.25 * s;
    }
    /* w >= 0: one of the two equivalent quaternions, always the same one */
    double sign = q[3] < 0 ? -1.0 : 1.0;
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int k = 0; k < 4; ++k) q[k] = sign * q[k] / n;
    double x = q[0], y = q[1], z = q[2], w = q[3];
    m[0][0] = 1 - 2 * (y * y + z * z), m[0][1] = 2 * (x * y - z * w), m[0][2] = 2 * (x * z + y * w);
    m[1][0] = 2 * (x * y + z * w), m[1][1] = 1 - 2 * (x * x + z * z), m[1][2] = 2 * (y * z - x * w);
    m[2][0] = 2 * (x * z - y * w), m[2][1] = 2 * (y * z + x * w), m[2][2] = 1 - 2 * (x * x + y * y);
}

/* Surface integrals about `o`: V, M1, M2. */
static void surface_moments(const cr_cook_mesh *m, const double o[3], double *V, double M1[3], double M2[3][3]) {
    *V = 0;
    memset(M1, 0, 3 * sizeof(double));
    memset(M2, 0, 9 * sizeof(double));
    for (uint32_t t = 0; t < m->triangle_count; ++t) {
        double p[3][3];
        for (int v = 0; v < 3; ++v)
            for (int k = 0; k < 3; ++k) p[v][k] = m->pos[3 * (size_t)m->tri[3 * t + v] + k] - o[k];
        double *a = p[0], *b = p[1], *c = p[2];
        double det = a[0] * (b[1] * c[2] - b[2] * c[1]) + a[1] * (b[2] * c[0] - b[0] * c[2]) + a[2] * (b[0] * c[1] - b[1] * c[0]);
        *V += det / 6;
        double s[3] = {a[0] + b[0] + c[0], a[1] + b[1] + c[1], a[2] + b[2] + c[2]};
        for (int i = 0; i < 3; ++i) {
            M1[i] += det / 24 * s[i];
            for (int j = 0; j < 3; ++j) M2[i][j] += det / 120 * (a[i] * a[j] + b[i] * b[j] + c[i] * c[j] + s[i] * s[j]);
        }
    }
}

/* whether a face neighbour of cell (x, y, z) is on the other side of the sign */
static bool across_sign(const double *sd, const uint32_t dims[3], uint32_t x, uint32_t y, uint32_t z) {
    size_t c = x + (size_t)dims[0] * (y + (size_t)dims[1] * z);
    const size_t stride[3] = {1, dims[0], (size_t)dims[0] * dims[1]};
    const uint32_t at[3] = {x, y, z};
    for (int k = 0; k < 3; ++k) {
        if (at[k] > 0 && (sd[c - stride[k]] < 0) != (sd[c] < 0)) return true;
        if (at[k] + 1 < dims[k] && (sd[c + stride[k]] < 0) != (sd[c] < 0)) return true;
    }
    return false;
}

/* Grid integrals about `o` with a smoothed occupancy (see the file header).
 * The occupancy reads the same re-distanced field as the grid the asset
 * stores (cook_redistance.c): across a hole the step sits where the winding
 * number crosses 1/2 to a fraction of a cell, not at the nearer cell centre,
 * so a cut-off box bottom costs no half-cell layer of volume. */
static int grid_moments(const cr_cook_mesh *m, const cr_bvh *bvh, int res, const double o[3], double *V, double M1[3],
                        double M2[3][3], cr_cook_progress *prog) {
    cr_cook_grid g;
    cr_cook_grid_layout(m->pos, m->vertex_count, res, 1, &g);
    double h = g.cell, h3 = h * h * h;
    *V = 0;
    memset(M1, 0, 3 * sizeof(double));
    memset(M2, 0, 9 * sizeof(double));
    /* cell centres: dims - 1 cells per axis, as the nodes of a grid of their own */
    uint32_t dims[3] = {g.dims[0] - 1, g.dims[1] - 1, g.dims[2] - 1};
    size_t total = (size_t)dims[0] * dims[1] * dims[2];
    double *dist = malloc(sizeof(double) * total), *wind = malloc(sizeof(double) * total), *sd = malloc(sizeof(double) * total);
    if (dist == NULL || wind == NULL || sd == NULL) {
        free(dist), free(wind), free(sd);
        return -1;
    }
    /* cells wholly inside: centre beyond half a cell from the surface with a
     * winding number over 1/2. A sheet, flat or curved, has none (its winding
     * number stays within (-1/2, 1/2) off the surface), only the half-cell
     * skin the smoothed step gives it on both sides, which is not volume. */
    bool enclosed = false;
    for (uint32_t z = 0; z < dims[2]; ++z) {
        if (prog) cr_cook_progress_update(prog, (double)z / dims[2]);
        for (uint32_t y = 0; y < dims[1]; ++y)
            for (uint32_t x = 0; x < dims[0]; ++x) {
                size_t i = x + (size_t)dims[0] * (y + (size_t)dims[1] * z);
                double q[3] = {g.origin[0] + (x + 0.5) * h, g.origin[1] + (y + 0.5) * h, g.origin[2] + (z + 0.5) * h};
                /* beyond a cell the smoothed step is 0 or 1 whatever the exact
                 * distance, and a hole's cap is still told from the surface
                 * (cr_cook_redistance compares the sum with one cell) */
                dist[i] = cr_bvh_distance_bounded(bvh, q, h);
                wind[i] = cr_bvh_winding(bvh, q);
                if (wind[i] > 0.5 && dist[i] >= 0.5 * h) enclosed = true;
            }
    }
    cr_cook_redistance_report rep;
    int rc = cr_cook_redistance(dims, h, dist, wind, sd, &rep);
    for (uint32_t z = 0; z < dims[2] && rc == 0 && enclosed; ++z)
        for (uint32_t y = 0; y < dims[1]; ++y)
            for (uint32_t x = 0; x < dims[0]; ++x) {
                size_t c = x + (size_t)dims[0] * (y + (size_t)dims[1] * z);
                double occ = 0.5 - sd[c] / h;
                occ = occ < 0 ? 0 : (occ > 1 ? 1 : occ);
                /* the smoothed step is for a surface between inside and outside; a
                 * fin or a decal has outside on both sides (an inner wall inside on
                 * both), so a cell none of whose neighbours is across the sign keeps
                 * its side's whole value rather than half a cell of skin */
                if (occ > 0 && occ < 1 && !across_sign(sd, dims, x, y, z)) occ = sd[c] < 0 ? 1 : 0;
                if (occ == 0) continue;
                double r[3] = {g.origin[0] + (x + 0.5) * h - o[0], g.origin[1] + (y + 0.5) * h - o[1],
                               g.origin[2] + (z + 0.5) * h - o[2]};
                double dv = occ * h3;
                *V += dv;
                for (int i = 0; i < 3; ++i) {
                    M1[i] += dv * r[i];
                    /* a full cell's own second moment, h^2/12 on the diagonal */
                    for (int j = 0; j < 3; ++j) M2[i][j] += dv * (r[i] * r[j] + (i == j ? h * h / 12 : 0));
                }
            }
    free(dist), free(wind), free(sd);
    return rc;
}

void cr_cook_mass_properties(const cr_cook_mesh *m, const cr_bvh *bvh, int res, cr_cook_mass *out, cr_cook_progress *prog) {
    memset(out, 0, sizeof *out);
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t i = 0; i < m->vertex_count; ++i)
        for (int k = 0; k < 3; ++k) {
            double x = m->pos[3 * (size_t)i + k];
            lo[k] = x < lo[k] ? x : lo[k];
            hi[k] = x > hi[k] ? x : hi[k];
        }
    double o[3] = {0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]), 0.5 * (lo[2] + hi[2])};
    double V, M1[3], M2[3][3];
    /* a solid inside a solid, or crossing shells (cook_shells.c), would count twice in the surface integrals */
    out->from_surface = m->boundary_edges == 0 && m->nonmanifold_edges == 0 && m->nested_same == 0 && m->crossing_shells == 0;
    if (out->from_surface)
        surface_moments(m, o, &V, M1, M2);
    else if (grid_moments(m, bvh, res, o, &V, M1, M2, prog) != 0)
        V = NAN; /* out of memory: cook.c tells this from an empty mesh */
    if (V == 0 || V < 0) {
        /* a closed surface with no volume (e.g. two coincident sheets): fall back to the grid */
        out->from_surface = false;
        if (bvh == NULL) return; /* the caller builds a BVH and asks again (cook.c) */
        if (grid_moments(m, bvh, res, o, &V, M1, M2, prog) != 0) V = NAN;
    }
    out->volume = V;
    double c[3];
    for (int k = 0; k < 3; ++k) c[k] = V > 0 ? M1[k] / V : 0;
    double C[3][3], I[3][3];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) C[i][j] = M2[i][j] - V * c[i] * c[j];
    double tr = C[0][0] + C[1][1] + C[2][2];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) I[i][j] = (i == j ? tr : 0) - C[i][j];
    /* symmetrise: the two halves were accumulated separately */
    for (int i = 0; i < 3; ++i)
        for (int j = i + 1; j < 3; ++j) I[i][j] = I[j][i] = 0.5 * (I[i][j] + I[j][i]);
    double axes[3][3];
    cr_cook_eigen_sym3(I, out->inertia, axes);
    rotation_to_quat(axes, out->q);
    memcpy(out->axes, axes, sizeof axes);
    /* moments in the (rebuilt) principal frame: R I R' diagonal */
    for (int k = 0; k < 3; ++k) {
        double s = 0;
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) s += axes[k][i] * I[i][j] * axes[k][j];
        out->inertia[k] = s < 0 ? 0 : s;
    }
    for (int k = 0; k < 3; ++k) out->com[k] = o[k] + c[k];
}
