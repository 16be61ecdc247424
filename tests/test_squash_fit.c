/* test_squash_fit.c — a squishy skeleton fitted to meshes the fitting was
 * not tuned on (the Stanford bunny, Keenan Crane's spot, the torus, the
 * Utah teapot), at
 * 0.3 m to 3 m: the skin of the fitted skeleton lies close to the mesh (mean
 * and largest distance from the mesh's vertices, over the mesh's size), more
 * primitives fit closer, the same skeleton at every scale (relative to it),
 * and `crumple cook --fit-skeleton` cooks a closed squishy asset on the
 * fitted skin, the same bytes twice. */
#include "test_cook_util.h"
#include "../tools/squash_fit.h"
#include "geometry/implicit_skeleton.h"
#include <math.h>
#include <string.h>

typedef struct fit_case {
    const char *path;
    double size;          /* m: the mesh scaled so its longest side is this */
    uint32_t count;
    double mean_max, max_max;  /* bounds asserted, over the size */
} fit_case;

static int load_scaled(const char *path, double size, cr_obj *o) {
    char err[512];
    if (cr_obj_load(path, o, err, sizeof err) != 0) {
        cr_test_printf("    %s\n", err);
        return -1;
    }
    double lo[3] = {1e300, 1e300, 1e300}, hi[3] = {-1e300, -1e300, -1e300};
    for (uint32_t v = 0; v < o->vertex_count; ++v)
        for (int k = 0; k < 3; ++k) lo[k] = fmin(lo[k], o->pos[3 * v + k]), hi[k] = fmax(hi[k], o->pos[3 * v + k]);
    double s = size / fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
    for (uint32_t v = 0; v < 3 * o->vertex_count; ++v) o->pos[v] *= s;
    return 0;
}

CR_TEST(squash_fit_skin_close_to_meshes_it_was_not_tuned_on) {
    static const fit_case cases[] = {
        {"data/meshes/stanford-bunny.obj", 0.3, 8, 0.05, 0.25},
        {"data/meshes/stanford-bunny.obj", 0.3, 32, 0.02, 0.10},
        {"data/meshes/stanford-bunny.obj", 3.0, 32, 0.02, 0.10},
        {"data/meshes/spot.obj", 1.0, 32, 0.015, 0.08},
        {"data/meshes/torus.obj", 2.0, 16, 0.01, 0.03},
        {"data/meshes/teapot.obj", 3.0, 16, 0.03, 0.15}, /* open at the lid, a hollow spout: balls no vertex touches */
    };
    double bunny_mean[3] = {0, 0, 0};
    uint32_t bunny_merged = 0;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        const fit_case *c = &cases[k];
        cr_obj o;
        ENSURE(load_scaled(c->path, c->size, &o) == 0);
        cr_cook_squash sq;
        cr_squash_fit_report r;
        char err[512];
        ENSURE_MSG(cr_squash_fit(o.pos, o.vertex_count, o.tri, o.triangle_count, c->count, &sq, &r, err, sizeof err) == 0,
                   "%s", err);
        cr_test_printf("     %-32s %.1f m, %2u primitives asked, %2u placed (%u segments, %u points merged into limbs): distance to "
                       "the skin mean %.4f, largest %.4f of the size\n",
                       c->path, c->size, c->count, r.primitives, r.segments, r.merged, r.mean, r.max);
        ENSURE(r.primitives == c->count);
        ENSURE(r.mean < c->mean_max);
        ENSURE(r.max < c->max_max);
        if (k < 3) bunny_mean[k] = r.mean;
        if (k < 3) bunny_merged += r.merged;
        cr_cook_squash_free(&sq);
        cr_obj_free(&o);
    }
    ENSURE(bunny_mean[1] < 0.5 * bunny_mean[0]);                      /* more primitives, closer */
    ENSURE(fabs(bunny_mean[2] - bunny_mean[1]) < 0.05 * bunny_mean[1]); /* the same fit at ten times the size */
    ENSURE(bunny_merged > 0); /* the bunny's limbs (ears, legs) are runs of points the fit merges into segments */
}

CR_TEST(squash_fit_cook_makes_one_closed_skin_the_same_bytes_twice) {
    cr_cook_options opt = cr_cook_default_options();
    opt.quiet = true;
    opt.sdf_res = 24;
    opt.max_samples = 256;
    opt.fit_skeleton = 24;
    opt.normalise = 1.5;
    cr_cook_result r1, r2;
    char err[1024];
    ENSURE_MSG(cr_cook_file("data/meshes/spot.obj", NULL, &opt, &r1, err, sizeof err) == 0, "%s", err);
    ENSURE_MSG(cr_cook_file("data/meshes/spot.obj", NULL, &opt, &r2, err, sizeof err) == 0, "%s", err);
    ENSURE(r1.size == r2.size && memcmp(r1.bytes, r2.bytes, r1.size) == 0);
    cr_asset a;
    void *block = tc_load(r1.bytes, r1.size, &a);
    ENSURE(block != NULL);
    /* the skin is one closed piece, lies on the stored skeleton's f = c, and is the cow's size */
    double off = 0;
    for (uint32_t v = 0; v < a.vertex_count; ++v) {
        cr_potential f = cri_skeleton_potential(a.squash_primitives, a.squash_primitive_count, a.positions[v]);
        off = fmax(off, fabs(cr_to_double(f.f - a.squash_isovalue)) / cr_to_double(cr_v3_len(f.grad)));
    }
    double ext = 0;
    ext = fmax(ext, cr_to_double(a.bounds_max.x - a.bounds_min.x));
    ext = fmax(ext, cr_to_double(a.bounds_max.y - a.bounds_min.y));
    ext = fmax(ext, cr_to_double(a.bounds_max.z - a.bounds_min.z));
    cr_test_printf("     spot fitted (24) and cooked at 1.5 m: %u vertices, %u components, closed %d, %u primitives, "
                   "%.2g m off f = c, longest side %.3f m, %zu bytes twice\n",
                   a.vertex_count, a.topology.components, a.topology.closed, a.squash_primitive_count, off, ext, r1.size);
    ENSURE(a.topology.closed && a.topology.components == 1);
    ENSURE(a.squash_primitive_count == 24);
    ENSURE(off < 1e-4);
    /* --normalise sizes the OBJ's axis-aligned box; the body frame turns it to the principal axes */
    ENSURE(ext > 1.4 && ext < 1.9);
    /* and it squashes: attached with no skeleton in the def (the fitted one is the asset's), a ball pressed into its top */
    cr_world_def def = cr_default_world_def();
    def.body_capacity = 8;
    def.gravity = cr_v3_zero();
    def.damage.squash = cr_default_squash_budget();
    def.damage.squash.body_capacity = 1;
    size_t size = cr_world_memory_size(&def);
    void *wb = aligned_alloc(CR_BLOCK_ALIGN, (size + 15) / 16 * 16);
    cr_world *w;
    uint32_t slot;
    ENSURE(wb != NULL);
    ENSURE(cr_world_create(&def, wb, size, &w) == CR_OK && cr_world_add_asset(w, &a, &slot) == CR_OK);
    cr_body_def bd = cr_default_body_def();
    bd.type = CR_BODY_STATIC;
    bd.shape.type = CR_SHAPE_MESH, bd.shape.asset = slot;
    cr_body_id cow, ball;
    ENSURE(cr_body_create(w, &bd, &cow) == CR_OK);
    cr_squash_def q = cr_default_squash_def();
    ENSURE(cr_squash_attach(w, cow, &q) == CR_OK);
    cr_body_def kb = cr_default_body_def();
    kb.type = CR_BODY_KINEMATIC;
    kb.shape.type = CR_SHAPE_SPHERE, kb.shape.radius = CR_R(0.2);
    /* 5 cm into the skin at its vertex nearest the top of the body frame's y, from above */
    uint32_t top = 0;
    for (uint32_t vi = 1; vi < a.vertex_count; ++vi)
        if (a.positions[vi].y > a.positions[top].y) top = vi;
    kb.position = cr_v3_add(a.positions[top], cr_v3(0, CR_R(0.2) - CR_R(0.05), 0));
    ENSURE(cr_body_create(w, &kb, &ball) == CR_OK);
    cr_world_step(w, CR_R(1.0 / 60));
    cr_squash_view v;
    ENSURE(cr_squash_get(w, cow, &v) == CR_OK);
    cr_test_printf("     pressed 5 cm: zone %u vertices, volume %.5f of %.5f m^3 (compression alone %.5f)\n", v.zone_vertices,
                   cr_to_double(v.volume), cr_to_double(v.volume_rest), cr_to_double(v.volume_compressed));
    ENSURE(v.zone_vertices > 10 && v.volume <= v.volume_rest && v.volume_compressed < v.volume);
    free(wb);
    free(block);
    cr_cook_result_free(&r1);
    cr_cook_result_free(&r2);
}
