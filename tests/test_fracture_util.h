/* test_fracture_util.h — prescored boxes for the fracture tests: a grid of
 * nx x ny x nz box pieces cooked one by one in the whole's mesh frame, the
 * whole cooked as one box, and the support graph (a bond per shared face)
 * written into the whole's asset view the way the loader fills it from a
 * cooked prescored file. Every piece and the whole are placed as modelled. */
#ifndef CRUMPLE_TEST_FRACTURE_UTIL_H
#define CRUMPLE_TEST_FRACTURE_UTIL_H

#include "test_cook_util.h"

/* A box [lo, hi] with every face split into n x n quads (so a dent has
 * vertices to move and contacts have samples), outward, for the cooker. */
static inline void tf_box(char **s, const double lo[3], const double hi[3], int n) {
    double e[3] = {hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]};
    const double c[6][9] = {
        {lo[0], lo[1], hi[2], e[0], 0, 0, 0, e[1], 0},  {hi[0], lo[1], lo[2], -e[0], 0, 0, 0, e[1], 0},
        {hi[0], lo[1], hi[2], 0, 0, -e[2], 0, e[1], 0}, {lo[0], lo[1], lo[2], 0, 0, e[2], 0, e[1], 0},
        {lo[0], hi[1], hi[2], e[0], 0, 0, 0, 0, -e[2]}, {lo[0], lo[1], lo[2], e[0], 0, 0, 0, 0, e[2]},
    };
    int base = 1;
    for (int f = 0; f < 6; ++f) {
        for (int j = 0; j <= n; ++j)
            for (int i = 0; i <= n; ++i) {
                double u = (double)i / n, v = (double)j / n;
                tc_printf(s, "v %.17g %.17g %.17g\n", c[f][0] + u * c[f][3] + v * c[f][6], c[f][1] + u * c[f][4] + v * c[f][7],
                          c[f][2] + u * c[f][5] + v * c[f][8]);
            }
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i) {
                int a = base + j * (n + 1) + i;
                tc_printf(s, "f %d %d %d %d\n", a, a + 1, a + n + 2, a + n + 1);
            }
        base += (n + 1) * (n + 1);
    }
}

#define TF_MAX 64
#define TF_GAP 0.004 /* m, the crack between pieces */

typedef struct tf_kit {
    int nx, ny, nz, count;
    double size[3];               /* one piece's edges, m */
    cr_cook_result cooked[TF_MAX + 1];
    cr_asset asset[TF_MAX + 1];   /* [0] the whole, [1 + i] piece i */
    void *asset_block[TF_MAX + 1];
    cr_asset_piece pieces[TF_MAX];
    cr_asset_bond bonds[3 * TF_MAX];
    uint32_t whole_slot, first_piece_slot;
} tf_kit;

static inline int tf_cook_box(tf_kit *k, int i, const double lo[3], const double hi[3], int n, int res) {
    char *obj = NULL;
    tf_box(&obj, lo, hi, n);
    cr_cook_options opt = cr_cook_default_options();
    opt.quiet = true;
    opt.sdf_res = res;
    opt.weld_distance = 1e-7;
    int rc = tc_cook_text("fracture.obj", obj, (size_t)arrlen(obj), &opt, &k->cooked[i]);
    arrfree(obj);
    if (rc != 0) return 0;
    k->asset_block[i] = tc_load(k->cooked[i].bytes, k->cooked[i].size, &k->asset[i]);
    return k->asset_block[i] != NULL;
}

static inline int tf_piece_index(const tf_kit *k, int x, int y, int z) { return (z * k->ny + y) * k->nx + x; }

/* Cook a grid of pieces of edges size[], the whole from the origin corner;
 * the whole's faces split into whole_cells x whole_cells quads (dents need vertices). */
static inline int tf_kit_make_fine(tf_kit *k, int nx, int ny, int nz, const double size[3], int whole_cells);
static inline int tf_kit_make(tf_kit *k, int nx, int ny, int nz, const double size[3]) {
    return tf_kit_make_fine(k, nx, ny, nz, size, 4);
}
static inline int tf_kit_make_fine(tf_kit *k, int nx, int ny, int nz, const double size[3], int whole_cells) {
    memset(k, 0, sizeof *k);
    k->nx = nx, k->ny = ny, k->nz = nz, k->count = nx * ny * nz;
    if (k->count > TF_MAX) return 0;
    memcpy(k->size, size, sizeof k->size);
    double lo[3] = {0, 0, 0}, hi[3] = {nx * size[0], ny * size[1], nz * size[2]};
    if (!tf_cook_box(k, 0, lo, hi, whole_cells, 24)) return 0;
    const cr_transform m2b = k->asset[0].mesh_to_body;
    for (int z = 0; z < nz; ++z)
        for (int y = 0; y < ny; ++y)
            for (int x = 0; x < nx; ++x) {
                int i = tf_piece_index(k, x, y, z);
                double plo[3] = {x * size[0], y * size[1], z * size[2]};
                double phi[3] = {plo[0] + size[0], plo[1] + size[1], plo[2] + size[2]};
                /* the cooker's crack gap: each piece's surface inset by half of
                 * it, its mass properties those of the piece before the inset */
                double ilo[3], ihi[3], e[3];
                for (int c = 0; c < 3; ++c) ilo[c] = plo[c] + TF_GAP / 2, ihi[c] = phi[c] - TF_GAP / 2, e[c] = size[c] * size[c];
                if (!tf_cook_box(k, 1 + i, ilo, ihi, 3, 16)) return 0;
                double vol = size[0] * size[1] * size[2], mom[3] = {vol * (e[1] + e[2]) / 12, vol * (e[0] + e[2]) / 12,
                                                                    vol * (e[0] + e[1]) / 12};
                for (int a = 0; a < 2; ++a) /* ascending, as the cooker's principal moments */
                    for (int b = 0; b < 2 - a; ++b)
                        if (mom[b] > mom[b + 1]) {
                            double t = mom[b];
                            mom[b] = mom[b + 1], mom[b + 1] = t;
                        }
                k->asset[1 + i].volume = cr_from_float((float)vol);
                k->asset[1 + i].inertia = cr_v3(cr_from_float((float)mom[0]), cr_from_float((float)mom[1]), cr_from_float((float)mom[2]));
                k->pieces[i].volume = k->asset[1 + i].volume;
                cr_vec3 c = cr_v3(cr_from_float((float)((plo[0] + phi[0]) / 2)), cr_from_float((float)((plo[1] + phi[1]) / 2)),
                                  cr_from_float((float)((plo[2] + phi[2]) / 2)));
                k->pieces[i].centroid = cr_transform_point(m2b, c);
            }
    /* a bond per shared face: +x, +y, +z neighbours */
    uint32_t nb = 0;
    for (int z = 0; z < nz; ++z)
        for (int y = 0; y < ny; ++y)
            for (int x = 0; x < nx; ++x)
                for (int axis = 0; axis < 3; ++axis) {
                    int q[3] = {x, y, z};
                    q[axis]++;
                    if (q[0] >= nx || q[1] >= ny || q[2] >= nz) continue;
                    cr_asset_bond *b = &k->bonds[nb++];
                    b->a = (uint32_t)tf_piece_index(k, x, y, z);
                    b->b = (uint32_t)tf_piece_index(k, q[0], q[1], q[2]);
                    double area = axis == 0 ? size[1] * size[2] : axis == 1 ? size[0] * size[2] : size[0] * size[1];
                    b->area = cr_from_float((float)area);
                    double m[3] = {(x + 0.5) * size[0], (y + 0.5) * size[1], (z + 0.5) * size[2]};
                    m[axis] += 0.5 * size[axis];
                    b->centroid = cr_transform_point(m2b, cr_v3(cr_from_float((float)m[0]), cr_from_float((float)m[1]),
                                                                cr_from_float((float)m[2])));
                    cr_vec3 nrm = cr_v3(axis == 0 ? CR_R(1) : 0, axis == 1 ? CR_R(1) : 0, axis == 2 ? CR_R(1) : 0);
                    b->normal = cr_quat_rotate(m2b.q, nrm);
                }
    k->asset[0].piece_count = (uint32_t)k->count;
    k->asset[0].pieces = k->pieces;
    k->asset[0].bond_count = nb;
    k->asset[0].bonds = k->bonds;
    return 1;
}

static inline int tf_kit_register(tf_kit *k, cr_world *w) {
    if (cr_world_add_asset(w, &k->asset[0], &k->whole_slot) != CR_OK) return 0;
    for (int i = 0; i < k->count; ++i) {
        uint32_t slot;
        if (cr_world_add_asset(w, &k->asset[1 + i], &slot) != CR_OK) return 0;
        if (i == 0) k->first_piece_slot = slot;
    }
    return 1;
}

static inline void tf_kit_free(tf_kit *k) {
    for (int i = 0; i <= k->count; ++i) {
        free(k->asset_block[i]);
        cr_cook_result_free(&k->cooked[i]);
    }
}

/* The whole's body pose so that its mesh sits as modelled, shifted by `at`. */
static inline cr_transform tf_modelled(const cr_asset *a, cr_vec3 at) {
    cr_transform t = cr_transform_inverse(a->mesh_to_body);
    t.p = cr_v3_add(t.p, at);
    return t;
}

/* A world with room for fracture. */
static inline cr_world *tf_world(void **block, cr_vec3 gravity, uint32_t bodies) {
    cr_world_def def = cr_default_world_def();
    def.body_capacity = bodies;
    def.joint_capacity = 256;
    def.asset_capacity = TF_MAX + 8;
    def.gravity = gravity;
    def.damage.command_capacity = 512;
    def.damage.fracture = cr_default_fracture_budget();
    def.damage.fracture.body_capacity = 4;
    def.damage.dent = cr_default_dent_budget();
    def.damage.dent.body_capacity = 24;
    def.damage.dent.max_cells = 64;
    def.damage.dent.work_per_step = 1u << 20;
    size_t size = cr_world_memory_size(&def);
    if (size == 0) return NULL;
    *block = aligned_alloc(CR_BLOCK_ALIGN, (size + 15) / 16 * 16);
    cr_world *w = NULL;
    if (cr_world_create(&def, *block, size, &w) != CR_OK) return NULL;
    return w;
}

/* A ball of the given radius at `at` (density, velocity: the caller's). */
static inline cr_body_def tf_ball_def(cr_real radius, cr_vec3 at) {
    cr_body_def bd = cr_default_body_def();
    bd.shape.type = CR_SHAPE_SPHERE;
    bd.shape.radius = radius;
    bd.position = at;
    return bd;
}

/* The whole body of a kit, placed as modelled + at. */
static inline cr_status tf_body(cr_world *w, tf_kit *k, cr_body_type type, cr_vec3 at, cr_body_id *out) {
    cr_body_def bd = cr_default_body_def();
    bd.type = type;
    bd.shape.type = CR_SHAPE_MESH;
    bd.shape.asset = k->whole_slot;
    bd.material.density = CR_R(1000);
    cr_transform pose = tf_modelled(&k->asset[0], at);
    bd.position = pose.p;
    bd.orientation = pose.q;
    return cr_body_create(w, &bd, out);
}

#endif
