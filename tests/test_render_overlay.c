/* test_render_overlay.c — `crumple run --overlay`: the runtime's debug draw
 * over a picture, as a tester sees it: the joint and the contact normals are
 * in the picture with the overlay and not without, and a bad overlay name is
 * refused with what it accepts. */
#include "test.h"
#include "cli.h"
#include "render_overlay.h"
#include "scene.h"
#include "stb_ds.h"

#include <string.h>

static uint32_t pixels_of(const cr_image *img, uint32_t rgb) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < img->width * img->height; ++i) {
        const uint8_t *p = &img->rgb[3 * i];
        if (((uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2]) == rgb) ++n;
    }
    return n;
}

CR_TEST(render_overlay_draws_joints_and_contacts_over_the_picture) {
    const char *text = "crumple-scene 1\n"
                       "capacity touches 16\n"
                       "body ground static plane\n"
                       "body crate dynamic box 0.3 0.3 0.3 position 0 0.3 0\n"
                       "body bob dynamic sphere 0.2 position 1 1.5 0\n"
                       "joint swing point bob world anchor 1 2.5 0\n";
    cr_scene *s = NULL;
    cr_scene_error e;
    ENSURE(cr_scene_parse(text, strlen(text), "t.scene", &s, &e) == 0);
    cr_world *w = NULL;
    ENSURE(cr_scene_build(s, &w, &e) == 0);
    for (int f = 0; f < 20; ++f) cr_world_step(w, CR_R(1.0 / 60.0));
    cr_render_options opt = cr_default_render_options();
    opt.width = 160, opt.height = 120, opt.supersample = 1, opt.legend = 0;
    cr_render_scene scene;
    cr_render_scene_init(&scene);
    ENSURE(cr_render_scene_add_world(&scene, w, NULL, 0, &opt));
    cr_camera cam = cr_render_fit_camera(&opt.camera, &scene, opt.width, opt.height);
    cr_image plain, over;
    ENSURE(cr_render_draw(&scene, &cam, &opt, &plain) && cr_render_draw(&scene, &cam, &opt, &over));
    uint32_t flags;
    char err[160];
    ENSURE(cr_render_overlay_parse("contacts,joints", &flags, err, sizeof err));
    ENSURE(flags == (CR_DRAW_CONTACTS | CR_DRAW_JOINTS));
    ENSURE(cr_render_overlay(&over, &cam, w, s, flags) > 0);
    ENSURE(pixels_of(&plain, CR_DRAW_COLOR_JOINT) == 0 && pixels_of(&over, CR_DRAW_COLOR_JOINT) > 10);
    ENSURE(pixels_of(&plain, CR_DRAW_COLOR_NORMAL) < pixels_of(&over, CR_DRAW_COLOR_NORMAL)); /* the crate's contact normals */
    ENSURE(!cr_render_overlay_parse("contacts,rays", &flags, err, sizeof err));
    ENSURE(strcmp(err, "unknown overlay 'rays' (bodies sleep contacts joints cells dents bones sensors queries all)") == 0);
    ENSURE(!cr_render_overlay_parse("", &flags, err, sizeof err));
    cr_image_free(&plain);
    cr_image_free(&over);
    cr_render_scene_free(&scene);
    cr_cli_world_free(w);
    cr_scene_free(s);
}

CR_TEST(render_overlay_draws_the_scenes_rays_and_their_hits) {
    const char *text = "crumple-scene 1\n"
                       "body ground static plane\n"
                       "body crate dynamic box 0.3 0.3 0.3 position 0 0.3 0\n"
                       "ray 10 down 0.1 2 0.1 0 -3 0\n"
                       "ray 10 miss 3 2 3 0 1 0\n"
                       "overlap 10 around sphere 0 0.3 0 0.5\n";
    cr_scene *s = NULL;
    cr_scene_error e;
    ENSURE(cr_scene_parse(text, strlen(text), "t.scene", &s, &e) == 0);
    cr_world *w = NULL;
    ENSURE(cr_scene_build(s, &w, &e) == 0);
    for (int f = 0; f < 10; ++f) ENSURE(cr_scene_step(s, w, f, &e) == 0);
    ENSURE(s->queries[0].asked && arrlen(s->queries[0].hits) == 1 && arrlen(s->queries[1].hits) == 0);
    cr_render_options opt = cr_default_render_options();
    opt.width = 160, opt.height = 120, opt.supersample = 1, opt.legend = 0;
    cr_render_scene scene;
    cr_render_scene_init(&scene);
    ENSURE(cr_render_scene_add_world(&scene, w, NULL, 0, &opt));
    cr_camera cam = cr_render_fit_camera(&opt.camera, &scene, opt.width, opt.height);
    cr_image plain, over;
    ENSURE(cr_render_draw(&scene, &cam, &opt, &plain) && cr_render_draw(&scene, &cam, &opt, &over));
    uint32_t flags;
    char err[160];
    ENSURE(cr_render_overlay_parse("queries", &flags, err, sizeof err) && flags == CR_RENDER_OVERLAY_QUERIES);
    ENSURE(cr_render_overlay(&over, &cam, w, s, flags) > 0);
    uint32_t ray0 = pixels_of(&plain, CR_RENDER_COLOR_QUERY), ray1 = pixels_of(&over, CR_RENDER_COLOR_QUERY);
    uint32_t hit0 = pixels_of(&plain, CR_RENDER_COLOR_QUERY_HIT), hit1 = pixels_of(&over, CR_RENDER_COLOR_QUERY_HIT);
    cr_test_printf("  ray pixels %u -> %u, hit pixels %u -> %u\n", ray0, ray1, hit0, hit1);
    ENSURE(ray0 == 0 && ray1 > 10 && hit0 == 0 && hit1 > 10);
    /* the runtime's own flags draw no query */
    cr_image again;
    ENSURE(cr_render_draw(&scene, &cam, &opt, &again));
    cr_render_overlay(&again, &cam, w, s, CR_DRAW_JOINTS);
    ENSURE(pixels_of(&again, CR_RENDER_COLOR_QUERY_HIT) == 0);
    cr_image_free(&again);
    cr_image_free(&plain);
    cr_image_free(&over);
    cr_render_scene_free(&scene);
    cr_cli_world_free(w);
    cr_scene_free(s);
}
