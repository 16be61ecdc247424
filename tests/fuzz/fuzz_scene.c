/* fuzz_scene.c — libFuzzer harness: the scene parser, then the world the
 * scene describes, stepped a few frames as `crumple run` steps it.
 *
 * Scenes that name assets are only parsed: loading them would read (and for
 * .obj, cook into a cache) files named by the input, which a harness must not
 * do. Scenes over 300 bodies are parsed but not built, to keep each
 * execution in milliseconds; the parser's own allocation bound is what is
 * tested there.
 */
#include "cli.h"
#include "scene.h"
#include "stb_ds.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > (1u << 16)) return 0;
    cr_scene *s = NULL;
    cr_scene_error err;
    if (cr_scene_parse((const char *)data, size, "fuzz.scene", &s, &err) != 0) return 0;
    if (arrlen(s->assets) == 0 && arrlen(s->bodies) <= 300) {
        cr_world *w = NULL;
        if (cr_scene_build(s, &w, &err) == 0) {
            cr_scene_loop loop = {.from = 0, .to = 4};
            (void)cr_scene_run(s, w, &loop, &err);
            cr_cli_world_free(w);
        }
    }
    cr_scene_free(s);
    return 0;
}
