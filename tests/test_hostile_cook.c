/* test_hostile_cook.c — the cooker refuses what the runtime's loader would
 * refuse: it loads back every asset it makes and writes nothing when that
 * fails (exit 1, no file), and a mesh that encloses no volume is an error as
 * docs/asset-format.md promises.
 */
#define _POSIX_C_SOURCE 200809L
#include "test.h"
#include "test_cook_util.h"
#include "cli.h"

#include <unistd.h>

static const char tiny_cube[] = /* 0.4 mm: its grid cell is below the loader's 2^-16 m */
    "v 0 0 0\nv 0.0004 0 0\nv 0.0004 0.0004 0\nv 0 0.0004 0\n"
    "v 0 0 0.0004\nv 0.0004 0 0.0004\nv 0.0004 0.0004 0.0004\nv 0 0.0004 0.0004\n"
    "f 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 2 3 7 6\nf 3 4 8 7\nf 4 1 5 8\n";
static const char flat_sheet[] = "v 0 0 0\nv 1 0 0\nv 1 0 1\nv 0 0 1\nf 1 2 3 4\n";
/* a bent open sheet: two quads of a cylinder's wall, 135 degrees apart. Its
 * winding number passes 1/2 on the concave side, in a lens between the sheet
 * and the cap the winding number spans across its opening; the sign flips
 * that cap makes used to give a grid the loader refused. */
static const char curved_sheet[] =
    "v 1 0 0\nv 0.7071 0.7071 0\nv 0 1 0\nv 1 0 1\nv 0.7071 0.7071 1\nv 0 1 1\n"
    "f 1 2 5 4\nf 2 3 6 5\n";

static int cook_text(const char *text, char *err, size_t en) {
    cr_obj obj;
    if (cr_obj_parse("mesh.obj", text, strlen(text), &obj, err, en) != 0) return -2;
    cr_cook_options opt = cr_cook_default_options();
    opt.quiet = true;
    cr_cook_result r;
    int rc = cr_cook_obj("mesh.obj", &obj, &opt, &r, err, en);
    cr_obj_free(&obj);
    if (rc == 0) cr_cook_result_free(&r);
    return rc;
}

CR_TEST(hostile_cook_refuses_what_the_loader_refuses) {
    char err[1024];
    ENSURE(cook_text(tiny_cube, err, sizeof err) == -1);
    ENSURE_MSG(strcmp(err, "mesh.obj: the cooked asset would not load: a stored value is out of its allowed range "
                           "(CR_ASSET_VALUE_RANGE, section 'INFO', at 76); is the mesh tiny or degenerate? --scale or "
                           "--normalise it to metres") == 0,
               "%s", err);
    ENSURE(cook_text(flat_sheet, err, sizeof err) == -1);
    ENSURE_MSG(strcmp(err, "mesh.obj: the mesh encloses no volume (a flat or open sheet?); it cannot be a rigid body") == 0,
               "%s", err);
}

/* The bent sheet is a body now: the lens it closes with its cap, re-distanced
 * so the loader takes it (it refused the grid with CR_ASSET_BAD_SDF before),
 * and smaller than the prism between the sheet and its chord (0.207 m^3). */
CR_TEST(hostile_cook_bent_sheet_cooks_to_the_lens_it_closes) {
    cr_cook_options opt = cr_cook_default_options();
    opt.quiet = true;
    cr_cook_result r;
    ENSURE(tc_cook_text("bent.obj", curved_sheet, strlen(curved_sheet), &opt, &r) == 0);
    cr_test_printf("    volume %.4f m^3, %u cap edges, %u nodes re-distanced\n", r.mass.volume, r.redistance.cap_edges,
                   r.redistance.cap_nodes);
    ENSURE(r.mass.volume > 0.01 && r.mass.volume < 0.207);
    ENSURE(r.redistance.cap_nodes > 0);
    cr_asset a;
    void *block = tc_load(r.bytes, r.size, &a);
    ENSURE(block != NULL);
    free(block);
    cr_cook_result_free(&r);
}

/* Through the command: exit 1, the message on stderr, and no file at all. */
CR_TEST(hostile_cook_command_writes_no_file_on_refusal) {
    char dir[] = "/tmp/crumple-hostile-cook-XXXXXX";
    ENSURE(mkdtemp(dir) != NULL);
    char in[128], out[128];
    snprintf(in, sizeof in, "%s/tiny.obj", dir);
    snprintf(out, sizeof out, "%s/tiny.crb", dir);
    FILE *f = fopen(in, "wb");
    ENSURE(f != NULL);
    fputs(tiny_cube, f);
    fclose(f);
    char *argv[] = {"cook", in, "-o", out, "--quiet", NULL};
    ENSURE(cr_cmd_cook(5, argv) == 1); /* its message goes to stderr */
    ENSURE(access(out, F_OK) != 0);
    remove(in);
    rmdir(dir);
}
