/* fuzz_obj.c — libFuzzer harness: the OBJ reader, then the cooker, then the
 * runtime's loader on what the cooker made.
 *
 * The cooker promises to hand out only assets the loader accepts (it loads
 * them back itself); this harness holds it to that: a cook that succeeds and
 * a load that fails is a crash. Inputs with many vertices are only parsed,
 * not cooked, so each execution stays in milliseconds. A mesh of at most
 * 60 vertices whose input has an odd length is also cooked as a soft
 * asset (`--soft`: the remesher, the springs, SPRP/SPRS), under the same
 * promise; only some, because a soft cook costs several rigid ones.
 */
#include "cook.h"
#include "obj.h"
#include "crumple/crumple.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > (1u << 16)) return 0;
    cr_obj obj;
    char err[1024];
    if (cr_obj_parse("fuzz.obj", (const char *)data, size, &obj, err, sizeof err) != 0) return 0;
    if (obj.vertex_count <= 200 && obj.triangle_count <= 400) {
        cr_cook_options opt = cr_cook_default_options();
        opt.quiet = true;
        opt.sdf_res = 12;
        opt.sdf_pad = 2;
        opt.max_samples = 64;
        /* a needle's occupancy grid at the default 2^21 cells takes seconds
         * under the sanitizers: the same code at a size a burst can afford */
        opt.mass_cells = 1u << 15;
        opt.geodesic_max = 4;
        int softs = obj.vertex_count <= 60 && (size & 1u) ? 2 : 1;
        for (int soft = 0; soft < softs; ++soft) {
            opt.soft = soft != 0;
            cr_cook_result r;
            if (cr_cook_obj("fuzz.obj", &obj, &opt, &r, err, sizeof err) == 0) {
                size_t need = cr_asset_memory_size(r.bytes, r.size);
                void *block = need ? aligned_alloc(CR_BLOCK_ALIGN, (need + 15) / 16 * 16) : NULL;
                cr_asset a;
                cr_asset_error e;
                if (block == NULL || cr_asset_load(r.bytes, r.size, block, (need + 15) / 16 * 16, &a, &e) != CR_OK) abort();
                free(block);
                cr_cook_result_free(&r);
            }
        }
    }
    cr_obj_free(&obj);
    return 0;
}
