/* test_example_patch.c — compact geodesic lists for example-based plasticity
 * (seed 001, issue 13): with --geodesic-patch the cooker keeps one list per
 * patch of vertices (from its centre) instead of one per vertex, and the
 * runtime reads a vertex's distances from its patch's list.
 *
 * What a user would notice: a car-sized body of 5000+ vertices with gamma a
 * quarter of its length fits in a few MB (per-vertex lists need tens), and
 * the weights a hit spreads (phi(d / gamma), eq. 12) stay within the bound the
 * patch radius gives: a distance read through the patch is off by at most
 * the vertex's own distance to its centre (triangle inequality both ways), so
 * phi is off by at most 1.5 R / gamma (1.5 = the largest slope of phi). */
#include "test_cook_util.h"
#include "asset_format.h"
#include "gen_mesh.h"

/* The car-like box: 4 m long, 1.2 m high, 1.8 m wide, split into square
 * cells, 54 along its length: 5000+ vertices. gamma a quarter of its length. */
#define CAR_LENGTH 4.0
#define CAR_GAMMA (CAR_LENGTH / 4)
#define CAR_PATCH 0.2

static int cook_fine_car(double patch, cr_cook_result *r) {
    cr_gen_box box = cr_gen_default_box();
    box.size[0] = CAR_LENGTH, box.size[1] = 1.2, box.size[2] = 1.8;
    box.cells = 54;
    size_t len = 0;
    char *text = cr_gen_box_obj(&box, &len);
    if (text == NULL) return -1;
    cr_cook_options opt = cr_cook_default_options();
    opt.quiet = true;
    opt.sdf_res = 16;
    opt.max_samples = 64;
    opt.geodesic_radius = CAR_GAMMA;
    opt.geodesic_max = 4096;
    opt.geodesic_patch = patch;
    int rc = tc_cook_text("fine_car.obj", text, len, &opt, r);
    free(text);
    return rc;
}

static size_t geodesic_bytes(const cr_cook_result *r) {
    return r->section_bytes[CR_ASEC_GEOS] + r->section_bytes[CR_ASEC_GEOI] + r->section_bytes[CR_ASEC_GEOD] +
           r->section_bytes[CR_ASEC_GPAT];
}

static double kernel(double x) { return x >= 1 ? 0 : (2 * x - 3) * x * x + 1; }

CR_TEST(example_compact_geodesic_lists_fit_a_5k_vertex_car) {
    cr_cook_result patched, full;
    ENSURE(cook_fine_car(CAR_PATCH, &patched) == 0);
    ENSURE(cook_fine_car(0, &full) == 0);
    cr_asset a;
    void *block = tc_load(patched.bytes, patched.size, &a);
    ENSURE(block != NULL);
    size_t small = geodesic_bytes(&patched), big = geodesic_bytes(&full);
    cr_test_printf("    %u vertices, gamma %.2f m: per-vertex lists %.2f MB, %u patches (radius %.3f m) %.2f MB, file %.2f MB\n",
                   a.vertex_count, CAR_GAMMA, big / 1e6, a.geodesic_patch_count, cr_to_double(a.geodesic_patch_radius),
                   small / 1e6, patched.size / 1e6);
    ENSURE(a.vertex_count >= 5000);
    ENSURE(small <= 4000000);                   /* "a few MB" */
    ENSURE(big > 8 * small);                    /* what the per-vertex lists cost */
    ENSURE(a.geodesic_patch_count > 0 && a.geodesic_patch_count < a.vertex_count / 8);
    ENSURE(cr_to_double(a.geodesic_patch_radius) <= CAR_PATCH + 1e-6);
    /* every vertex's patch list starts with its centre, and holds the vertex */
    for (uint32_t v = 0; v < a.vertex_count; ++v) {
        uint32_t p = a.geodesic_patch[v], s0 = a.geodesic_start[p], s1 = a.geodesic_start[p + 1];
        ENSURE(s1 > s0 && a.geodesic_distance[s0] == 0);
        bool found = false;
        for (uint32_t k = s0; k < s1 && !found; ++k) found = a.geodesic_vertex[k] == v;
        ENSURE_MSG(found, "vertex %u is not in its own patch's list", v);
    }
    free(block);
    cr_cook_result_free(&patched);
    cr_cook_result_free(&full);
}

CR_TEST(example_patch_spread_approximates_the_geodesic_kernel) {
    cr_cook_result patched, full;
    ENSURE(cook_fine_car(CAR_PATCH, &patched) == 0);
    ENSURE(cook_fine_car(0, &full) == 0);
    cr_asset a, x;
    void *pa = tc_load(patched.bytes, patched.size, &a), *px = tc_load(full.bytes, full.size, &x);
    ENSURE(pa != NULL && px != NULL);
    ENSURE(a.vertex_count == x.vertex_count && x.geodesic_patch == NULL);
    uint32_t n = a.vertex_count;
    double *exact = malloc(sizeof(double) * n), *approx = malloc(sizeof(double) * n);
    for (uint32_t v = 0; v < n; ++v) exact[v] = approx[v] = 0;
    double bound = 1.5 * cr_to_double(a.geodesic_patch_radius) / CAR_GAMMA + 1e-5, worst = 0, sum = 0;
    uint64_t pairs = 0, missed = 0;
    uint32_t worst_v = 0;
    for (uint32_t v = 0; v < n; ++v) {
        /* phi of the exact edge-path distance (the per-vertex list), and of
         * the distance the runtime reads (example_model.c: the list of v's
         * patch, v itself left out, the walk ending where phi is 0) */
        for (uint32_t k = x.geodesic_start[v]; k < x.geodesic_start[v + 1]; ++k)
            exact[x.geodesic_vertex[k]] = kernel(cr_to_double(x.geodesic_distance[k]) / CAR_GAMMA);
        uint32_t p = a.geodesic_patch[v];
        for (uint32_t k = a.geodesic_start[p]; k < a.geodesic_start[p + 1]; ++k) {
            double phi = kernel(cr_to_double(a.geodesic_distance[k]) / CAR_GAMMA);
            if (phi <= 0) break;
            if (a.geodesic_vertex[k] != v) approx[a.geodesic_vertex[k]] = phi;
        }
        for (int pass = 0; pass < 2; ++pass) {
            const cr_asset *l = pass == 0 ? &x : &a;
            uint32_t list = pass == 0 ? v : p;
            for (uint32_t k = l->geodesic_start[list]; k < l->geodesic_start[list + 1]; ++k) {
                uint32_t w = l->geodesic_vertex[k];
                if (w == v || (exact[w] < 0 && approx[w] < 0)) continue; /* v itself has weight 1; counted already */
                double e = fabs(exact[w] - approx[w]);
                if (exact[w] > 0.5 && approx[w] == 0) ++missed;
                if (e > worst) worst = e, worst_v = v;
                sum += e, ++pairs;
                exact[w] = approx[w] = -1; /* each pair once */
            }
        }
        for (uint32_t k = x.geodesic_start[v]; k < x.geodesic_start[v + 1]; ++k)
            exact[x.geodesic_vertex[k]] = approx[x.geodesic_vertex[k]] = 0;
        for (uint32_t k = a.geodesic_start[p]; k < a.geodesic_start[p + 1]; ++k)
            exact[a.geodesic_vertex[k]] = approx[a.geodesic_vertex[k]] = 0;
    }
    cr_test_printf("    phi(d / gamma) read through the patches: worst error %.4f (vertex %u), mean %.4f over %llu pairs; "
                   "bound 1.5 R / gamma = %.4f\n",
                   worst, worst_v, sum / (double)pairs, (unsigned long long)pairs, bound);
    ENSURE(pairs > (uint64_t)n * 100);
    ENSURE(worst <= bound);
    ENSURE(sum / (double)pairs < bound / 3); /* the bound is the worst case: most pairs are far closer */
    ENSURE(missed == 0);                     /* nothing with phi > 0.5 left out */
    free(exact), free(approx), free(pa), free(px);
    cr_cook_result_free(&patched);
    cr_cook_result_free(&full);
}

/* The cooker refuses a patch radius that is negative or not finite, naming the option. */
CR_TEST(example_cook_refuses_a_bad_geodesic_patch) {
    cr_gen_box box = cr_gen_default_box();
    box.cells = 4;
    size_t len = 0;
    char *text = cr_gen_box_obj(&box, &len);
    ENSURE(text != NULL);
    cr_obj obj;
    char err[512];
    ENSURE(cr_obj_parse("box.obj", text, len, &obj, err, sizeof err) == 0);
    const double bad[] = {-0.1, NAN, INFINITY};
    for (int i = 0; i < 3; ++i) {
        cr_cook_options opt = cr_cook_default_options();
        opt.quiet = true;
        opt.sdf_res = 8;
        opt.geodesic_patch = bad[i];
        cr_cook_result r;
        err[0] = 0;
        ENSURE(cr_cook_obj("box.obj", &obj, &opt, &r, err, sizeof err) != 0);
        ENSURE_MSG(strstr(err, "--geodesic-patch") != NULL, "error '%s' does not name the option", err);
    }
    cr_obj_free(&obj);
    free(text);
}
