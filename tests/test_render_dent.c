/* test_render_dent.c — a real dent from the world, seen in displacement mode.
 *
 * A ball hits a dentable steel plate (seed 000 Figure 2); the world's
 * deformation stage dents it. Drawn from above through
 * cr_render_scene_add_world (which reads the dented surface with
 * cr_body_get_mesh), the impact point must glow and the plate's corner must
 * stay cool, and the scene's largest displacement must be the dent's depth.
 */
#include "test_cook_util.h"
#include "png.h"
#include "render.h"

/* One face of a box as an nu x nv grid of quads; U x V points outward. */
static void grid_face(char **s, int *base, const double o[3], const double u[3], const double v[3], int nu, int nv) {
    for (int j = 0; j <= nv; ++j)
        for (int i = 0; i <= nu; ++i) {
            double a = (double)i / nu, b = (double)j / nv;
            tc_printf(s, "v %.17g %.17g %.17g\n", o[0] + u[0] * a + v[0] * b, o[1] + u[1] * a + v[1] * b,
                      o[2] + u[2] * a + v[2] * b);
        }
    for (int j = 0; j < nv; ++j)
        for (int i = 0; i < nu; ++i) {
            int q = *base + j * (nu + 1) + i;
            tc_printf(s, "f %d %d %d %d\n", q, q + 1, q + nu + 2, q + nu + 1);
        }
    *base += (nu + 1) * (nv + 1);
}

/* A 1 m x 1 m plate, 12.5 cm thick, its top split into n x n quads (dyadic
 * sizes, so the faces' shared edges have bit-identical vertices to weld). */
static void plate_obj(char **s, int n) {
    const double hx = 0.5, hy = 0.0625, hz = 0.5;
    int base = 1;
    const double faces[6][9] = {
        {-hx, hy, hz, 2 * hx, 0, 0, 0, 0, -2 * hz},  {-hx, -hy, -hz, 2 * hx, 0, 0, 0, 0, 2 * hz},
        {-hx, -hy, hz, 2 * hx, 0, 0, 0, 2 * hy, 0},  {hx, -hy, -hz, -2 * hx, 0, 0, 0, 2 * hy, 0},
        {hx, -hy, hz, 0, 0, -2 * hz, 0, 2 * hy, 0},  {-hx, -hy, -hz, 0, 0, 2 * hz, 0, 2 * hy, 0},
    };
    for (int f = 0; f < 6; ++f) grid_face(s, &base, faces[f], faces[f] + 3, faces[f] + 6, n, f < 2 ? n : 1);
}

CR_TEST(render_dent_from_the_world_glows_in_displacement_mode) {
    char *obj = NULL;
    plate_obj(&obj, 32);
    cr_cook_options co = cr_cook_default_options();
    co.quiet = true;
    co.sdf_res = 40;
    cr_cook_result cooked;
    int rc = tc_cook_text("plate.obj", obj, (size_t)arrlen(obj), &co, &cooked);
    arrfree(obj);
    ENSURE(rc == 0);
    cr_asset asset;
    void *asset_block = tc_load(cooked.bytes, cooked.size, &asset);
    ENSURE(asset_block != NULL);

    cr_world_def def = cr_default_world_def();
    def.body_capacity = 8;
    def.gravity = cr_v3_zero();
    def.damage.dent.body_capacity = 1;
    def.damage.surface_bytes = 4u << 20;
    def.damage.dent.max_cells = 64;
    def.damage.dent.work_per_step = 100000;
    size_t size = cr_world_memory_size(&def);
    ENSURE(size > 0);
    void *block = aligned_alloc(CR_BLOCK_ALIGN, (size + 15) / 16 * 16);
    cr_world *w = NULL;
    ENSURE(cr_world_create(&def, block, size, &w) == CR_OK);
    uint32_t slot;
    ENSURE(cr_world_add_asset(w, &asset, &slot) == CR_OK);

    /* the plate as modelled (top at y = 0.0625), whatever its principal frame */
    cr_body_def pd = cr_default_body_def();
    pd.type = CR_BODY_STATIC;
    pd.shape.type = CR_SHAPE_MESH;
    pd.shape.asset = slot;
    cr_transform pose = cr_transform_inverse(asset.mesh_to_body);
    pd.position = pose.p;
    pd.orientation = pose.q;
    cr_body_id plate, ball;
    cr_status cs = cr_body_create(w, &pd, &plate);
    cr_dent_def dd = cr_default_dent_def();
    if (cs == CR_OK) cs = cr_dent_attach(w, plate, &dd);
    ENSURE_MSG(cs == CR_OK, "dentable plate: %s", cr_status_message(cs));
    cr_body_def bd = cr_default_body_def();
    bd.shape.radius = CR_R(0.1);
    bd.position = cr_v3(0, CR_R(0.3), 0);
    bd.linear_velocity = cr_v3(0, CR_R(-6), 0);
    ENSURE(cr_body_create(w, &bd, &ball) == CR_OK);
    cr_body_mesh m;
    for (int f = 0; f < 30; ++f) {
        ENSURE(cr_world_step(w, CR_R(1.0 / 60.0)) == CR_OK);
        ENSURE(cr_body_get_mesh(w, plate, &m) == CR_OK);
        if (m.dent_count > 0) break;
    }
    ENSURE_MSG(m.dent_count > 0, "the plate did not dent");
    double deepest = 0;
    for (uint32_t i = 0; i < m.vertex_count; ++i) {
        double d = cr_to_double(cr_v3_len(cr_v3_sub(m.positions[i], m.rest_positions[i])));
        if (d > deepest) deepest = d;
    }
    ENSURE(cr_body_destroy(w, ball) == CR_OK); /* out of the way of the camera */

    cr_render_options opt = cr_default_render_options();
    opt.width = 160;
    opt.height = 120;
    opt.mode = CR_RENDER_DISPLACEMENT;
    char err[128];
    ENSURE(cr_camera_spec_parse("0,2.5,0.8,0,0,0", &opt.camera, err, sizeof err));
    cr_render_scene s;
    cr_render_scene_init(&s);
    ENSURE(cr_render_scene_add_world(&s, w, NULL, 0, &opt));
    cr_test_printf("  dent depth %.4f m, scene's largest displacement %.4f m\n", deepest, s.max_displacement);
    ENSURE(s.missing_assets == 0);
    ENSURE_NEAR(s.max_displacement, deepest, 1e-6);
    ENSURE(deepest > 0.005);
    cr_camera cam = cr_render_fit_camera(&opt.camera, &s, opt.width, opt.height);
    cr_image img;
    ENSURE(cr_render_draw(&s, &cam, &opt, &img));
    double centre[3] = {0, 0.0625, 0}, corner[3] = {0.4, 0.0625, 0.35}, px, py, depth;
    ENSURE(cr_render_project(&cam, img.width, img.height, centre, &px, &py, &depth));
    const uint8_t *c = img.rgb + ((size_t)py * img.width + (size_t)px) * 3;
    ENSURE(cr_render_project(&cam, img.width, img.height, corner, &px, &py, &depth));
    const uint8_t *k = img.rgb + ((size_t)py * img.width + (size_t)px) * 3;
    cr_test_printf("  impact rgb %u,%u,%u  corner rgb %u,%u,%u\n", c[0], c[1], c[2], k[0], k[1], k[2]);
    ENSURE(c[0] > c[2] + 50);
    ENSURE(k[0] < k[2] + 30);
    cr_image_free(&img);
    cr_render_scene_free(&s);
    free(block);
    free(asset_block);
    cr_cook_result_free(&cooked);
}
