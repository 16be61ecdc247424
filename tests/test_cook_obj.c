/* test_cook_obj.c — the OBJ reader on the things real files do, and the
 * cleanup stage's repairs and reports.
 *
 * Every error case checks the "name:line:" prefix, because that is what a
 * user needs to find the bad line in a file of a million lines.
 */
#include "test.h"
#include "test_cook_util.h"

static int parse(const char *text, cr_obj *o, char *err, size_t n) {
    return cr_obj_parse("t.obj", text, strlen(text), o, err, n);
}

CR_TEST(cook_obj_polygons_are_fanned) {
    cr_obj o;
    char err[256];
    const char *text = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv -1 0.5 0\n"
                       "f 1 2 3 4\n"        /* quad: 2 triangles */
                       "f 1 2 3 4 5\n"      /* pentagon: 3 */
                       "f 1 2 3\n";         /* triangle: 1 */
    ENSURE(parse(text, &o, err, sizeof err) == 0);
    ENSURE(o.triangle_count == 6);
    ENSURE(o.face_count == 3);
    ENSURE(o.polygon_count == 2);
    /* the fan keeps the polygon's winding: every triangle starts at corner 1 */
    ENSURE(o.tri[0] == 0 && o.tri[1] == 1 && o.tri[2] == 2);
    ENSURE(o.tri[3] == 0 && o.tri[4] == 2 && o.tri[5] == 3);
    ENSURE(o.tri[12] == 0 && o.tri[13] == 3 && o.tri[14] == 4);
    cr_obj_free(&o);
}

CR_TEST(cook_obj_negative_and_slash_forms) {
    cr_obj o;
    char err[256];
    const char *text = "v 0 0 0\nv 1 0 0\nv 0 1 0\n"
                       "vt 0 0\nvt 1 0\nvt 0 1\n"
                       "vn 0 0 1\n"
                       "f -3 -2 -1\n"             /* relative to the 3 vertices so far */
                       "f 1/1 2/2 3/3\n"
                       "f 1//1 2//1 3//1\n"
                       "f 1/1/1 2/2/1 3/3/1\n"
                       "v 0 0 1\n"
                       "f -4/-3/-1 -3/-2/-1 -1/-1/-1\n"; /* now 4 vertices: -1 is the new one */
    ENSURE(parse(text, &o, err, sizeof err) == 0);
    ENSURE(o.triangle_count == 5);
    ENSURE(o.texcoord_count == 3 && o.normal_count == 1);
    for (int t = 0; t < 4; ++t) ENSURE(o.tri[3 * t] == 0 && o.tri[3 * t + 1] == 1 && o.tri[3 * t + 2] == 2);
    ENSURE(o.tri[12] == 0 && o.tri[13] == 1 && o.tri[14] == 3);
    cr_obj_free(&o);
}

CR_TEST(cook_obj_line_ends_groups_comments_and_continuations) {
    cr_obj o;
    char err[256];
    /* CRLF, a lone CR, groups, smoothing and material lines, comments, a `\`
     * continuation, trailing spaces, extra per-vertex colours, and no newline
     * after the last line */
    const char *text = "# header\r\nmtllib x.mtl\r\no first\r\nv 0 0 0 1 0 0\r\nv 1 0 0\rv 0 1 0   \r\n"
                       "g second\r\nusemtl red\r\ns 1\r\nv 0 0 1 # trailing comment\r\n"
                       "f 1 2 \\\r\n 3\r\nl 1 2\r\nf 1 3 4";
    ENSURE(parse(text, &o, err, sizeof err) == 0);
    ENSURE(o.vertex_count == 4);
    ENSURE(o.triangle_count == 2);
    ENSURE(o.group_count == 2);
    ENSURE(o.tri[3] == 0 && o.tri[4] == 2 && o.tri[5] == 3);
    ENSURE(o.pos[9] == 0 && o.pos[10] == 0 && o.pos[11] == 1);
    cr_obj_free(&o);

    /* line numbers still match the file after a continuation */
    const char *bad = "v 0 0 0\nv 1 0 \\\n 0\nv 0 1 0\nbogus\n";
    ENSURE(parse(bad, &o, err, sizeof err) != 0);
    ENSURE_MSG(strncmp(err, "t.obj:5:", 8) == 0, "error was '%s'", err);
}

CR_TEST(cook_obj_errors_name_file_and_line) {
    static const struct {
        const char *text;
        const char *prefix;
        const char *word; /* a word the message must contain */
    } cases[] = {
        {"v 0 0 0\nv 1 0\n", "t.obj:2:", "3 coordinates"},
        {"v 0 0 0\nv 1 nan 0\n", "t.obj:2:", "finite"},
        {"v 0 0 0\nv 1 1e999 0\n", "t.obj:2:", "finite"},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2\n", "t.obj:4:", "at least 3"},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n", "t.obj:4:", "index 0"},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 -4\n", "t.obj:4:", "relative"},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\n\nf 1 2 9\n", "t.obj:5:", "only 3"},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/5 2/5 3/5\n", "t.obj:4:", "texture"},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/x 2 3\n", "t.obj:4:", "face corner"},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/2/3/4 2 3\n", "t.obj:4:", "too many"},
        {"v 0 0 0\nwibble 1 2\n", "t.obj:2:", "unknown statement 'wibble'"},
        {"v 0 0 0\n\x01\x02\x03\n", "t.obj:2:", "unreadable"},
        {"# nothing\n", "t.obj:1:", "no vertices"},
        {"v 0 0 0\n", "t.obj:1:", "no faces"},
        {"v 1.5abc 0 0\n", "t.obj:1:", "finite"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        cr_obj o;
        char err[256] = "";
        ENSURE_MSG(parse(cases[i].text, &o, err, sizeof err) != 0, "case %zu was accepted", i);
        ENSURE_MSG(strncmp(err, cases[i].prefix, strlen(cases[i].prefix)) == 0, "case %zu: '%s' lacks '%s'", i, err,
                   cases[i].prefix);
        ENSURE_MSG(strstr(err, cases[i].word) != NULL, "case %zu: '%s' lacks '%s'", i, err, cases[i].word);
    }
    /* a NUL byte in the middle of the text */
    const char nul[] = "v 0 0 0\nv 1\0 0 0\n";
    cr_obj o;
    char err[256];
    ENSURE(cr_obj_parse("t.obj", nul, sizeof nul - 1, &o, err, sizeof err) != 0);
    ENSURE_MSG(strncmp(err, "t.obj:2:", 8) == 0, "'%s'", err);
}

CR_TEST(cook_obj_forward_references_are_allowed) {
    cr_obj o;
    char err[256];
    ENSURE(parse("f 1 2 3\nv 0 0 0\nv 1 0 0\nv 0 1 0\n", &o, err, sizeof err) == 0);
    ENSURE(o.triangle_count == 1);
    cr_obj_free(&o);
}

CR_TEST(cook_obj_missing_file_is_an_error) {
    cr_obj o;
    char err[256];
    ENSURE(cr_obj_load("no/such/file.obj", &o, err, sizeof err) != 0);
    ENSURE(strcmp(err, "no/such/file.obj: cannot open file") == 0); /* a whole-file error has no line */
}

/* A cube written the way exporters do: 4 vertices per face (24), plus a
 * sliver, a repeated face and a triangle with a repeated corner. */
CR_TEST(cook_clean_welds_and_drops_degenerate_triangles) {
    char *s = NULL;
    static const int q[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
    for (int f = 0; f < 6; ++f)
        for (int k = 0; k < 4; ++k) {
            int c = q[f][k];
            tc_printf(&s, "v %d %d %d\n", c & 1, (c >> 1) & 1, (c >> 2) & 1);
        }
    for (int f = 0; f < 6; ++f) tc_printf(&s, "f %d %d %d %d\n", 4 * f + 1, 4 * f + 2, 4 * f + 3, 4 * f + 4);
    tc_printf(&s, "f 1 2 3 4\n");          /* repeated face: 2 repeated triangles */
    tc_printf(&s, "v 0.5 0 0\nf 1 25 4\n"); /* collinear sliver along an edge */
    tc_printf(&s, "f 1 1 2\n");             /* repeated corner */
    cr_obj o;
    char err[256];
    ENSURE(cr_obj_parse("cube.obj", s, arrlenu(s), &o, err, sizeof err) == 0);
    cr_cook_options opt = cr_cook_default_options();
    cr_cook_mesh m;
    ENSURE(cr_cook_clean(&o, &opt, &m, err, sizeof err) == 0);
    ENSURE_MSG(m.vertex_count == 8, "%u vertices", m.vertex_count);
    ENSURE_MSG(m.triangle_count == 12, "%u triangles", m.triangle_count);
    ENSURE(m.welded_vertices == 16);
    ENSURE(m.dropped_triangles == 4);
    ENSURE(m.boundary_edges == 0 && m.nonmanifold_edges == 0);
    ENSURE(m.components == 1);
    ENSURE_NEAR(cr_cook_signed_volume(m.pos, m.tri, m.triangle_count), 1.0, 1e-12);
    cr_cook_mesh_free(&m);

    /* near-duplicates need --weld: 1e-7 apart are kept apart by default, merged with a distance */
    arrsetlen(s, 0);
    tc_printf(&s, "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1e-7 0 0\nv 0 0 1\nf 1 2 3\nf 4 3 5\n");
    cr_obj_free(&o);
    ENSURE(cr_obj_parse("w.obj", s, arrlenu(s), &o, err, sizeof err) == 0);
    ENSURE(cr_cook_clean(&o, &opt, &m, err, sizeof err) == 0);
    ENSURE(m.vertex_count == 5 && m.welded_vertices == 0);
    cr_cook_mesh_free(&m);
    opt.weld_distance = 1e-6;
    ENSURE(cr_cook_clean(&o, &opt, &m, err, sizeof err) == 0);
    ENSURE(m.vertex_count == 4 && m.welded_vertices == 1);
    cr_cook_mesh_free(&m);
    cr_obj_free(&o);
    arrfree(s);
}

CR_TEST(cook_clean_reports_holes_components_and_nonmanifold_edges) {
    char *s = NULL;
    tc_box(&s, 0, 0, 0, 1, 1, 1, 1);
    tc_box(&s, 3, 0, 0, 4, 1, 1, 9);
    cr_obj o;
    char err[256];
    cr_cook_options opt = cr_cook_default_options();
    cr_cook_mesh m;
    /* two separate cubes */
    ENSURE(cr_obj_parse("two.obj", s, arrlenu(s), &o, err, sizeof err) == 0);
    ENSURE(cr_cook_clean(&o, &opt, &m, err, sizeof err) == 0);
    ENSURE(m.components == 2 && m.boundary_edges == 0 && m.nonmanifold_edges == 0);
    cr_cook_mesh_free(&m);
    cr_obj_free(&o);

    /* a box without its top: a hole of 4 boundary edges (the quad's diagonal is interior) */
    arrsetlen(s, 0);
    tc_box(&s, 0, 0, 0, 1, 1, 1, 1);
    char *cut = strstr(s, "f 3 7 8 4\n"); /* the y = 1 face */
    ENSURE(cut != NULL);
    memset(cut, ' ', strlen("f 3 7 8 4"));
    ENSURE(cr_obj_parse("open.obj", s, arrlenu(s), &o, err, sizeof err) == 0);
    ENSURE(cr_cook_clean(&o, &opt, &m, err, sizeof err) == 0);
    ENSURE_MSG(m.boundary_edges == 4, "%u boundary edges", m.boundary_edges);
    cr_cook_mesh_free(&m);
    cr_obj_free(&o);

    /* three triangles on one edge, and a face turned the wrong way */
    arrsetlen(s, 0);
    tc_printf(&s, "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 -1 0\nv 0 0 1\nf 1 2 3\nf 2 1 4\nf 1 2 5\n");
    ENSURE(cr_obj_parse("fan.obj", s, arrlenu(s), &o, err, sizeof err) == 0);
    ENSURE(cr_cook_clean(&o, &opt, &m, err, sizeof err) == 0);
    ENSURE(m.nonmanifold_edges == 1);
    cr_cook_mesh_free(&m);
    cr_obj_free(&o);
    arrfree(s);
}

CR_TEST(cook_clean_reverses_inside_out_meshes_and_applies_frame_options) {
    char *s = NULL;
    tc_printf(&s, "v 10 10 10\nv 12 10 10\nv 10 14 10\nv 10 10 18\nf 1 2 3\nf 1 2 4\nf 1 3 4\nf 2 4 3\n");
    cr_obj o;
    char err[256];
    ENSURE(cr_obj_parse("tet.obj", s, arrlenu(s), &o, err, sizeof err) == 0);
    cr_cook_options opt = cr_cook_default_options();
    cr_cook_mesh m;
    ENSURE(cr_cook_clean(&o, &opt, &m, err, sizeof err) == 0);
    /* tetrahedron volume 2*4*8/6; the faces above are all inward */
    ENSURE(m.flipped);
    ENSURE_NEAR(cr_cook_signed_volume(m.pos, m.tri, m.triangle_count), 64.0 / 6.0, 1e-9);
    cr_cook_mesh_free(&m);
    /* --scale 0.5 --normalise 1 --recentre: longest side 1, box centred on the origin */
    opt.scale = 0.5;
    opt.normalise = 1.0;
    opt.recentre = true;
    ENSURE(cr_cook_clean(&o, &opt, &m, err, sizeof err) == 0);
    double lo[3] = {1e9, 1e9, 1e9}, hi[3] = {-1e9, -1e9, -1e9};
    for (uint32_t i = 0; i < m.vertex_count; ++i)
        for (int k = 0; k < 3; ++k) {
            lo[k] = fmin(lo[k], m.pos[3 * i + k]);
            hi[k] = fmax(hi[k], m.pos[3 * i + k]);
        }
    ENSURE_NEAR(hi[2] - lo[2], 1.0, 1e-12);
    for (int k = 0; k < 3; ++k) ENSURE_NEAR(lo[k] + hi[k], 0.0, 1e-12);
    ENSURE_NEAR(m.frame_s, 1.0 / 8.0, 1e-15);
    cr_cook_mesh_free(&m);
    cr_obj_free(&o);
    arrfree(s);
}

/* Damaged text must give an error with a line number or a mesh, never a crash
 * (run under ASan and UBSan by make test-sanitize). */
CR_TEST(cook_obj_survives_mutated_text) {
    const char *base = "# cube\no c\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\nvt 0 0\nvn 0 0 1\n"
                       "f 1/1/1 4/1/1 3/1/1 2/1/1\nf 5 6 7 8\nf 1 2 6 5\nf 2 3 7 6\nf 3 4 8 7\nf -4 -1 -5 -8\n";
    size_t n = strlen(base);
    char *buf = malloc(n + 8);
    uint64_t seed = 31;
    int ok = 0, errors = 0;
    for (int it = 0; it < 4000; ++it) {
        memcpy(buf, base, n);
        size_t len = n;
        int edits = 1 + (int)(tc_rand(&seed) * 3);
        for (int e = 0; e < edits; ++e) {
            size_t at = (size_t)(tc_rand(&seed) * (double)len);
            static const char pool[] = "0123456789-+./ \n\r\\#vfe\t\x01\xff";
            double k = tc_rand(&seed);
            if (k < 0.6)
                buf[at] = pool[(size_t)(tc_rand(&seed) * (sizeof pool - 1))];
            else if (k < 0.8)
                len = at; /* cut */
            else
                buf[at] = (char)(uint8_t)(tc_rand(&seed) * 256); /* via uint8_t: a float over 127 cast to char is UB */
        }
        /* exact-size copy, so a read past the end is caught */
        char *exact = malloc(len ? len : 1);
        memcpy(exact, buf, len);
        cr_obj o;
        char err[256];
        if (cr_obj_parse("m.obj", exact, len, &o, err, sizeof err) == 0) {
            for (uint32_t t = 0; t < 3 * o.triangle_count; ++t) ENSURE(o.tri[t] < o.vertex_count);
            cr_obj_free(&o);
            ++ok;
        } else {
            ENSURE_MSG(strncmp(err, "m.obj:", 6) == 0, "'%s'", err);
            ++errors;
        }
        free(exact);
    }
    cr_test_printf("    4000 mutated files: %d parsed, %d rejected with a line number\n", ok, errors);
    free(buf);
}

/* Whatever the cooker accepts, the runtime must accept: random triangle
 * soups (folded, open, self-intersecting) either cook into a file that loads,
 * or are refused with a message. */
CR_TEST(cook_random_soups_cook_to_loadable_assets_or_clear_errors) {
    uint64_t seed = 8;
    int cooked = 0, refused = 0;
    for (int it = 0; it < 60; ++it) {
        char *s = NULL;
        int nv = 4 + (int)(tc_rand(&seed) * 12), nt = 1 + (int)(tc_rand(&seed) * 20);
        for (int v = 0; v < nv; ++v)
            tc_printf(&s, "v %.6f %.6f %.6f\n", tc_rand(&seed) * 2 - 1, tc_rand(&seed) * 2 - 1, tc_rand(&seed) * (it % 5 ? 2 : 1e-9));
        for (int t = 0; t < nt; ++t)
            tc_printf(&s, "f %d %d %d\n", 1 + (int)(tc_rand(&seed) * nv), 1 + (int)(tc_rand(&seed) * nv), 1 + (int)(tc_rand(&seed) * nv));
        cr_cook_options opt = cr_cook_default_options();
        opt.quiet = true;
        opt.sdf_res = 10;
        opt.auto_bones = it % 3 == 0 ? 2 : 0;
        opt.max_samples = it % 2 ? 3 : 0;
        cr_obj obj;
        char err[512];
        ENSURE(cr_obj_parse("soup.obj", s, arrlenu(s), &obj, err, sizeof err) == 0);
        cr_cook_result r;
        if (cr_cook_obj("soup.obj", &obj, &opt, &r, err, sizeof err) == 0) {
            cr_asset a;
            void *block = tc_load(r.bytes, r.size, &a);
            ENSURE_MSG(block != NULL, "soup %d cooked but does not load", it);
            free(block);
            cr_cook_result_free(&r);
            ++cooked;
        } else {
            ENSURE_MSG(strncmp(err, "soup.obj:", 9) == 0, "soup %d: '%s'", it, err);
            ++refused;
        }
        cr_obj_free(&obj);
        arrfree(s);
    }
    cr_test_printf("    60 random soups: %d cooked and loaded, %d refused with a message\n", cooked, refused);
    ENSURE(cooked > 0);
}
