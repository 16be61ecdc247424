/* test_cook_skin.c — skeletons, skinning weights and example poses as the
 * runtime will use them (linear blend skinning of the loaded asset), the
 * command line's promises (atomic output, file:line errors, `query`), and
 * the cooker's determinism (same input, same bytes, on every compiler).
 */
#include "test.h"
#include "test_cook_util.h"
#include "cli.h"

#include <time.h>

static int cook_bar(cr_cook_result *r, const char *rig, const char *poses, int res) {
    cr_cook_options opt = cr_cook_default_options();
    opt.quiet = true;
    opt.sdf_res = res;
    opt.rig_path = rig;
    opt.poses_path = poses;
    char err[512];
    int rc = cr_cook_file("data/meshes/bar.obj", NULL, &opt, r, err, sizeof err);
    if (rc != 0) cr_test_printf("    %s\n", err);
    return rc;
}

/* Linear blend skinning of vertex v in example e (seed 001 eq. 1). */
static cr_vec3 skin(const cr_asset *a, uint32_t v, uint32_t e) {
    cr_vec3 x = cr_v3_zero();
    for (uint32_t k = 0; k < CR_ASSET_SKIN_SLOTS; ++k) {
        cr_real w = a->skin_weight[4 * v + k];
        cr_transform t = a->examples[e * a->bone_count + a->skin_bone[4 * v + k]];
        x = cr_v3_add(x, cr_v3_scale(cr_transform_point(t, a->positions[v]), w));
    }
    return x;
}

CR_TEST(cook_skin_weights_are_normalised_local_and_at_most_four) {
    cr_cook_result r;
    ENSURE(cook_bar(&r, "data/rigs/bar.rig", "data/poses/bar.pose", 24) == 0);
    cr_asset a;
    void *block = tc_load(r.bytes, r.size, &a);
    ENSURE(block != NULL);
    ENSURE(a.bone_count == 3 && a.example_count == 4);
    ENSURE(a.bones[0].parent == -1 && a.bones[1].parent == 0 && a.bones[2].parent == 1);
    for (uint32_t v = 0; v < a.vertex_count; ++v) {
        double sum = 0, prev = 2;
        for (uint32_t k = 0; k < 4; ++k) {
            double w = cr_to_double(a.skin_weight[4 * v + k]);
            ENSURE(w >= 0 && w <= prev + 1e-6); /* strongest first */
            prev = w;
            sum += w;
        }
        ENSURE_NEAR(sum, 1.0, 1e-5);
        /* the ends of the bar belong to the end bones */
        double x = tc_v(a.positions, v, 0);
        if (x > 1.9) ENSURE(a.skin_bone[4 * v] == 2 && cr_to_double(a.skin_weight[4 * v]) > 0.6);
        if (x < -1.9) ENSURE(a.skin_bone[4 * v] == 0 && cr_to_double(a.skin_weight[4 * v]) > 0.6);
    }
    /* rest pose: every example-0 transform is the identity, so skinning changes nothing */
    for (uint32_t v = 0; v < a.vertex_count; ++v) {
        cr_vec3 x = skin(&a, v, 0);
        ENSURE_NEAR(cr_to_double(x.x), tc_v(a.positions, v, 0), 1e-5);
        ENSURE_NEAR(cr_to_double(x.y), tc_v(a.positions, v, 1), 1e-5);
    }
    free(block);
    cr_cook_result_free(&r);
}

CR_TEST(cook_poses_move_the_bar_as_the_file_says) {
    cr_cook_result r;
    ENSURE(cook_bar(&r, "data/rigs/bar.rig", "data/poses/bar.pose", 24) == 0);
    cr_asset a;
    void *block = tc_load(r.bytes, r.size, &a);
    ENSURE(block != NULL);
    /* the bar is its own principal frame (long axis x), so body = mesh here */
    ENSURE(cr_to_double(a.mesh_to_body.q.w) > 1 - 1e-6);
    /* bend_up: the end bone turns 30 degrees about the middle joint at the origin */
    cr_transform bend = a.examples[1 * 3 + 2];
    cr_vec3 tip = cr_transform_point(bend, cr_v3(CR_R(2), 0, 0));
    ENSURE_NEAR(cr_to_double(tip.x), 2 * 0.8660254, 1e-4);
    ENSURE_NEAR(cr_to_double(tip.y), 1.0, 1e-4);
    cr_transform base = a.examples[1 * 3 + 0];
    ENSURE(cr_to_double(base.q.w) == 1.0 && cr_to_double(base.p.x) == 0);
    /* crush: the middle bone sinks 0.15 */
    cr_transform crush = a.examples[2 * 3 + 1];
    ENSURE_NEAR(cr_to_double(crush.p.y), -0.15, 1e-6);
    /* twist: 45 degrees about the bar's axis, through the end bone's head */
    cr_transform twist = a.examples[3 * 3 + 2];
    cr_vec3 corner = cr_transform_point(twist, cr_v3(CR_R(2), CR_R(0.25), CR_R(0.25)));
    ENSURE_NEAR(cr_to_double(corner.x), 2.0, 1e-5);
    ENSURE_NEAR(cr_to_double(corner.y), 0.0, 1e-5);
    ENSURE_NEAR(cr_to_double(corner.z), 0.3535534, 1e-5);
    /* what a user sees: skinned with the weights, the tip rises and the middle sinks */
    double tip_rise = 0, mid_sink = 0;
    for (uint32_t v = 0; v < a.vertex_count; ++v) {
        double x = tc_v(a.positions, v, 0), y = tc_v(a.positions, v, 1);
        if (x > 1.9) tip_rise = fmax(tip_rise, cr_to_double(skin(&a, v, 1).y) - y);
        /* along the middle bone (its joint with the base at 0 blends the two) */
        if (x > 0.4 && x < 1.1) mid_sink = fmax(mid_sink, y - cr_to_double(skin(&a, v, 2).y));
    }
    cr_test_printf("    bend_up lifts the tip by %.3f m (0.97 if bound to the end bone alone); crush sinks the middle bone's part by %.3f m\n",
                   tip_rise, mid_sink);
    ENSURE(tip_rise > 0.8 && tip_rise < 0.97);
    ENSURE(mid_sink > 0.1 && mid_sink <= 0.15 + 1e-6);
    free(block);
    cr_cook_result_free(&r);
}

/* A U: two prongs joined at the bottom, a gap between them. The top inner
 * corner of the left prong is close to the right prong's bone through the
 * air, but far from it through the material. */
CR_TEST(cook_skin_weights_go_around_gaps_not_through_them) {
    char *s = NULL;
    tc_box(&s, 0, -1, 0, 2.6, 0, 1, 1);     /* base */
    tc_box(&s, 0, 0, 0, 1, 4, 1, 9);        /* left prong */
    tc_box(&s, 1.6, 0, 0, 2.6, 4, 1, 17);   /* right prong */
    char rig[256], path[128];
    snprintf(path, sizeof path, "/tmp/crumple-test-u-%lx.rig", (unsigned long)(uintptr_t)&s ^ (unsigned long)time(NULL));
    snprintf(rig, sizeof rig, "bone left - 0.5 0.5 0.5\nbone right left 2.1 3.5 0.5\n");
    FILE *f = fopen(path, "wb");
    ENSURE(f != NULL);
    fputs(rig, f);
    fclose(f);
    cr_cook_options opt = cr_cook_default_options();
    opt.quiet = true;
    opt.sdf_res = 48;
    opt.rig_path = path;
    cr_cook_result r;
    int rc = tc_cook_text("u.obj", s, arrlenu(s), &opt, &r);
    remove(path);
    ENSURE(rc == 0);
    cr_asset a;
    void *block = tc_load(r.bytes, r.size, &a);
    ENSURE(block != NULL);
    cr_transform m2b = a.mesh_to_body;
    cr_vec3 corner = cr_transform_point(m2b, cr_v3(CR_R(1), CR_R(4), CR_R(1)));
    uint32_t v = UINT32_MAX;
    for (uint32_t i = 0; i < a.vertex_count; ++i)
        if (cr_to_double(cr_v3_len(cr_v3_sub(a.positions[i], corner))) < 1e-4) v = i;
    ENSURE(v != UINT32_MAX);
    double w_left = 0;
    for (int k = 0; k < 4; ++k)
        if (a.skin_bone[4 * v + k] == 0) w_left += cr_to_double(a.skin_weight[4 * v + k]);
    /* straight-line distances would pick the other bone: 1.31 m vs 3.57 m */
    double d_left = sqrt(0.25 + 12.25 + 0.25), d_right = sqrt(1.21 + 0.25 + 0.25);
    cr_test_printf("    U corner: %.2f of its weight on its own prong's bone (straight-line distances %.2f vs %.2f m)\n", w_left,
                   d_left, d_right);
    ENSURE(d_right < d_left);
    ENSURE(w_left > 0.8);
    free(block);
    cr_cook_result_free(&r);
    arrfree(s);
}

CR_TEST(cook_auto_bones_sit_inside_and_form_a_tree) {
    char *s = NULL;
    tc_torus(&s, 1.0, 0.3, 32, 16);
    cr_cook_options opt = cr_cook_default_options();
    opt.quiet = true;
    opt.sdf_res = 40;
    opt.auto_bones = 6;
    cr_cook_result r;
    ENSURE(tc_cook_text("ring.obj", s, arrlenu(s), &opt, &r) == 0);
    cr_asset a;
    void *block = tc_load(r.bytes, r.size, &a);
    ENSURE(block != NULL);
    ENSURE(a.bone_count == 6 && a.example_count == 1);
    ENSURE(a.bones[0].parent == -1);
    double cell = cr_to_double(a.sdf_cell);
    for (uint32_t b = 0; b < a.bone_count; ++b) {
        if (b > 0) ENSURE(a.bones[b].parent >= 0 && a.bones[b].parent < (int32_t)b);
        double d = cr_to_double(cr_asset_sdf(&a, a.bones[b].rest.p, NULL));
        ENSURE_MSG(d < 0, "bone %u is outside the ring (sdf %g, cell %g)", b, d, cell);
        /* spread round the ring, not bunched: each bone about 60 degrees from the next nearest */
        double nearest = 1e9;
        for (uint32_t c = 0; c < a.bone_count; ++c)
            if (c != b) nearest = fmin(nearest, cr_to_double(cr_v3_len(cr_v3_sub(a.bones[b].rest.p, a.bones[c].rest.p))));
        ENSURE(nearest > 0.7);
    }
    /* every vertex is bound mostly to a bone on its own side of the ring */
    for (uint32_t v = 0; v < a.vertex_count; ++v) {
        cr_vec3 p = a.positions[v], bp = a.bones[a.skin_bone[4 * v]].rest.p;
        ENSURE(cr_to_double(cr_v3_dot(p, bp)) > 0);
    }
    free(block);
    cr_cook_result_free(&r);
    arrfree(s);
}

static int write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    if (f == NULL) return -1;
    fputs(text, f);
    return fclose(f);
}

CR_TEST(cook_rig_and_pose_errors_name_file_and_line) {
    static const struct {
        const char *rig, *poses, *expect;
    } cases[] = {
        {"bone a - 0 0 0\nbone b zz 1 0 0\n", NULL, ":2: parent 'zz'"},
        {"bone a - 0 0 0\nbone a a 1 0 0\n", NULL, ":2: bone name 'a'"},
        {"# c\nbone a - 0 x 0\n", NULL, ":2: a number"},
        {"bone a - 0 0 0 0 0 0 0\n", NULL, ":1: rotation quaternion has zero length"},
        {"joint a - 0 0 0\n", NULL, ":1: unknown statement 'joint'"},
        {"bone a - 0 0\n", NULL, ":1: expected 'bone"},
        {"bone a - 0 0 0\n", "a 0 0 0\n", ":1: bone line 'a' before any 'example"},
        {"bone a - 0 0 0\n", "example e\nb 0 0 0\n", ":2: unknown bone 'b'"},
        {"bone a - 0 0 0\n", "example e\na 0 0\n", ":2: expected 'BONE"},
        {"bone a - 0 0 0\n", "example e\na 0 0 inf\n", ":2: a number"},
        {"bone a - 0 0 0\n", "# nothing\n", ":1: no 'example NAME'"},
    };
    char rig[128], poses[128];
    unsigned long tag = (unsigned long)(uintptr_t)&rig ^ (unsigned long)time(NULL);
    snprintf(rig, sizeof rig, "/tmp/crumple-test-%lx.rig", tag);
    snprintf(poses, sizeof poses, "/tmp/crumple-test-%lx.pose", tag);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        ENSURE(write_file(rig, cases[i].rig) == 0);
        if (cases[i].poses) ENSURE(write_file(poses, cases[i].poses) == 0);
        cr_cook_result r;
        cr_cook_options opt = cr_cook_default_options();
        opt.quiet = true;
        opt.sdf_res = 10;
        opt.rig_path = rig;
        opt.poses_path = cases[i].poses ? poses : NULL;
        char err[512] = "";
        int rc = cr_cook_file("data/meshes/bar.obj", NULL, &opt, &r, err, sizeof err);
        ENSURE_MSG(rc != 0, "case %zu accepted", i);
        const char *file = cases[i].poses ? poses : rig;
        ENSURE_MSG(strncmp(err, file, strlen(file)) == 0 && strstr(err, cases[i].expect) != NULL, "case %zu: '%s' lacks '%s'", i,
                   err, cases[i].expect);
    }
    remove(rig);
    remove(poses);
}

CR_TEST(cook_cli_writes_atomically_and_fails_cleanly) {
    char out[128], bad[128];
    unsigned long tag = (unsigned long)(uintptr_t)&out ^ (unsigned long)time(NULL);
    snprintf(out, sizeof out, "/tmp/crumple-test-%lx.crb", tag);
    snprintf(bad, sizeof bad, "/tmp/crumple-test-%lx.obj", tag);
    remove(out);
    char *ok_argv[] = {"cook", "data/meshes/bar.obj", "-o", out, "--sdf-res", "10", "--quiet", NULL};
    ENSURE(cr_cmd_cook(7, ok_argv) == 0);
    uint8_t *bytes;
    void *block;
    cr_asset a;
    ENSURE(cr_cli_asset_open(out, &bytes, &block, &a) == 0);
    ENSURE(a.vertex_count == 36);
    crp_free(bytes);
    free(block);
    /* a broken input leaves the earlier output alone and writes nothing new */
    ENSURE(write_file(bad, "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 1 2 oops\n") == 0);
    remove(out);
    char *bad_argv[] = {"cook", bad, "-o", out, "--quiet", NULL};
    ENSURE(cr_cmd_cook(5, bad_argv) == 1);
    FILE *f = fopen(out, "rb");
    ENSURE(f == NULL);
    char *opt_argv[] = {"cook", "data/meshes/bar.obj", "-o", out, "--sdf-res", "many", NULL};
    ENSURE(cr_cmd_cook(6, opt_argv) == 2);
    remove(bad);
}

CR_TEST(cook_query_reads_points_and_reports_bad_lines) {
    cr_cook_result r;
    ENSURE(cook_bar(&r, NULL, NULL, 16) == 0);
    cr_asset a;
    void *block = tc_load(r.bytes, r.size, &a);
    ENSURE(block != NULL);
    FILE *in = tmpfile(), *out = tmpfile();
    ENSURE(in != NULL && out != NULL);
    fputs("# x y z\n0 0 0\n\n3 0 0\n0 1 0   # above the bar\n", in);
    rewind(in);
    ENSURE(cr_cli_query_sdf(&a, in, out, false, "pts") == 0);
    rewind(out);
    double d[3];
    ENSURE(fscanf(out, "%lf %lf %lf", &d[0], &d[1], &d[2]) == 3);
    /* inside at the centre (0.25 from the faces), 1 m beyond the end, 0.75 above the top */
    ENSURE_NEAR(d[0], -0.25, 0.05);
    ENSURE_NEAR(d[1], 1.0, 0.05);
    ENSURE_NEAR(d[2], 0.75, 0.05);
    fclose(in);
    fclose(out);
    in = tmpfile();
    out = tmpfile();
    fputs("0 0 0\n1 2\n", in);
    rewind(in);
    ENSURE(cr_cli_query_sdf(&a, in, out, true, "pts") == 1);
    fclose(in);
    fclose(out);
    free(block);
    cr_cook_result_free(&r);
}

/* The same mesh and options give the same bytes: twice in a row, and against
 * a golden checksum that every compiler, optimisation level and scalar mode
 * must reproduce (run_all.sh runs "determinism" tests at -O0 and with clang).
 * Change the golden only with a format or cooker change, and say so. */
CR_TEST(cook_determinism_same_input_same_bytes) {
    cr_cook_result r1, r2;
    ENSURE(cook_bar(&r1, "data/rigs/bar.rig", "data/poses/bar.pose", 20) == 0);
    ENSURE(cook_bar(&r2, "data/rigs/bar.rig", "data/poses/bar.pose", 20) == 0);
    ENSURE(r1.size == r2.size && memcmp(r1.bytes, r2.bytes, r1.size) == 0);
    uint64_t bar = cr_asset_checksum(r1.bytes + 16, r1.size - 16);
    cr_cook_result_free(&r1);
    cr_cook_result_free(&r2);

    char path[256];
    snprintf(path, sizeof path, "%s%s", CR_SHARED_MESHES, "suzanne.obj");
    cr_cook_options opt = cr_cook_default_options();
    opt.quiet = true;
    opt.sdf_res = 16;
    opt.auto_bones = 3;
    char err[512];
    ENSURE_MSG(cr_cook_file(path, NULL, &opt, &r1, err, sizeof err) == 0, "%s (the public meshes in data/meshes/ are needed)", err);
    ENSURE(cr_cook_file(path, NULL, &opt, &r2, err, sizeof err) == 0);
    ENSURE(r1.size == r2.size && memcmp(r1.bytes, r2.bytes, r1.size) == 0);
    uint64_t suzanne = cr_asset_checksum(r1.bytes + 16, r1.size - 16);
    cr_test_printf("    bar %016llx, suzanne %016llx\n", (unsigned long long)bar, (unsigned long long)suzanne);
    ENSURE(bar == 0xe329e9518f66806bull); /* format: the three (empty) fracture sections, issue 14 */
    ENSURE(suzanne == 0xbd80f99df9e360b0ull);
    cr_cook_result_free(&r1);
    cr_cook_result_free(&r2);
}
