/* test_fracture_cook.c — the prescoring cooker (tools/cook_fracture.c) and
 * the loader's fracture sections: Voronoi pieces are closed and outward, sum
 * to the whole's volume, the two sides of every bond agree on its area, the
 * same input cooks to the same bytes, a mesh the cooker was not tuned on
 * (spot) prescores too, damaged fracture sections are refused by name, and
 * a cooked prescored wall loads, registers and breaks in a world. */
#include "test_cook_util.h"
#include "cook_fracture.h"
#include "geometry/asset_format.h"
#include <string.h>

static char *wall_obj(double w, double h, double d) {
    char *s = NULL;
    double lo[3] = {0, 0, 0}, hi[3] = {w, h, d};
    double x[2] = {lo[0], hi[0]}, y[2] = {lo[1], hi[1]}, z[2] = {lo[2], hi[2]};
    for (int i = 0; i < 8; ++i) tc_printf(&s, "v %.17g %.17g %.17g\n", x[i & 1], y[(i >> 1) & 1], z[(i >> 2) & 1]);
    static const int q[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
    for (int f = 0; f < 6; ++f) tc_printf(&s, "f %d %d %d %d\n", 1 + q[f][0], 1 + q[f][1], 1 + q[f][2], 1 + q[f][3]);
    return s;
}

static int prescore_text(const char *text, size_t len, uint32_t pieces, uint64_t seed, int res, cr_cook_result *r,
                         cr_cook_pieces_report *rep) {
    cr_obj obj;
    char err[1024];
    if (cr_obj_parse("wall.obj", text, len, &obj, err, sizeof err) != 0) return -1;
    cr_cook_options opt = cr_cook_default_options();
    opt.quiet = true;
    opt.sdf_res = res;
    cr_cook_pieces_options po = cr_cook_default_pieces_options();
    po.pieces = pieces;
    po.seed = seed;
    int rc = cr_cook_prescored("wall.obj", &obj, &opt, &po, r, rep, err, sizeof err);
    if (rc != 0) cr_test_printf("    prescore failed: %s\n", err);
    cr_obj_free(&obj);
    return rc;
}

/* Every piece loads as an asset of its own, closed, with the volume the table says. */
static int check_pieces(const cr_cook_result *r, const cr_asset *whole) {
    for (uint32_t i = 0; i < whole->piece_count; ++i) {
        const void *pb;
        size_t pn;
        if (cr_asset_piece_bytes(whole, r->bytes, r->size, i, &pb, &pn) != CR_OK) return 0;
        cr_asset piece;
        void *blk = tc_load(pb, pn, &piece);
        if (blk == NULL) return 0;
        int ok = piece.topology.closed && piece.piece_count == 0 &&
                 fabs(cr_to_double(piece.volume) - cr_to_double(whole->pieces[i].volume)) <= 1e-6 * cr_to_double(piece.volume) + 1e-9;
        if (!ok)
            cr_test_printf("    piece %u: closed %d (%u boundary, %u non-manifold edges), volume %.9g vs %.9g\n", i, piece.topology.closed,
                           piece.topology.boundary_edges, piece.topology.nonmanifold_edges, cr_to_double(piece.volume),
                           cr_to_double(whole->pieces[i].volume));
        free(blk);
        if (!ok) return 0;
    }
    return 1;
}

CR_TEST(fracture_cook_voronoi_wall_pieces_closed_volumes_bonds) {
    char *obj = wall_obj(1.0, 0.75, 0.2);
    cr_cook_result r;
    cr_cook_pieces_report rep;
    ENSURE(prescore_text(obj, (size_t)arrlen(obj), 12, 7, 24, &r, &rep) == 0);
    arrfree(obj);
    cr_test_printf("    %u pieces, %u bonds, volume %.6f of %.6f, bond sides differ by %.2e, gap %.4f m\n", rep.pieces,
                   rep.bonds, rep.pieces_volume, rep.whole_volume, rep.max_bond_mismatch, rep.gap);
    ENSURE(rep.pieces == 12 && rep.open_pieces == 0 && rep.inward_pieces == 0);
    ENSURE_NEAR(rep.pieces_volume, rep.whole_volume, 0.005 * rep.whole_volume);
    ENSURE(rep.max_bond_mismatch < 1e-6);
    ENSURE(rep.bonds >= 11); /* 12 pieces of one solid are connected */
    cr_asset whole;
    void *blk = tc_load(r.bytes, r.size, &whole);
    ENSURE(blk != NULL);
    ENSURE(whole.piece_count == 12 && whole.bond_count == rep.bonds);
    ENSURE(check_pieces(&r, &whole));
    double vsum = 0;
    for (uint32_t i = 0; i < whole.piece_count; ++i) vsum += cr_to_double(whole.pieces[i].volume);
    ENSURE_NEAR(vsum, cr_to_double(whole.volume), 0.005 * cr_to_double(whole.volume));
    for (uint32_t k = 0; k < whole.bond_count; ++k) {
        const cr_asset_bond *b = &whole.bonds[k];
        ENSURE(b->a < b->b && b->b < 12 && b->area > 0);
        /* the bond's normal points from piece a's centre towards piece b's */
        cr_vec3 ab = cr_v3_sub(whole.pieces[b->b].centroid, whole.pieces[b->a].centroid);
        ENSURE(cr_v3_dot(ab, b->normal) > 0);
    }
    free(blk);
    cr_cook_result_free(&r);
}

CR_TEST(fracture_cook_same_input_same_bytes) {
    char *obj = wall_obj(0.8, 0.5, 0.3);
    cr_cook_result a, b, c;
    cr_cook_pieces_report rep;
    ENSURE(prescore_text(obj, (size_t)arrlen(obj), 6, 3, 16, &a, &rep) == 0);
    ENSURE(prescore_text(obj, (size_t)arrlen(obj), 6, 3, 16, &b, &rep) == 0);
    ENSURE(prescore_text(obj, (size_t)arrlen(obj), 6, 4, 16, &c, &rep) == 0);
    arrfree(obj);
    ENSURE(a.size == b.size && memcmp(a.bytes, b.bytes, a.size) == 0);
    ENSURE(a.size != c.size || memcmp(a.bytes, c.bytes, a.size) != 0); /* another seed, other pieces */
    cr_cook_result_free(&a);
    cr_cook_result_free(&b);
    cr_cook_result_free(&c);
}

/* spot (a closed cow, not a box): non-convex cuts, caps with several regions */
CR_TEST(fracture_cook_spot_pieces_closed) {
    char path[256];
    snprintf(path, sizeof path, "%s%s", CR_SHARED_MESHES, "spot.obj");
    cr_obj obj;
    char err[1024];
    ENSURE_MSG(cr_obj_load(path, &obj, err, sizeof err) == 0, "%s", err);
    cr_cook_options opt = cr_cook_default_options();
    opt.quiet = true;
    opt.sdf_res = 24;
    cr_cook_pieces_options po = cr_cook_default_pieces_options();
    po.pieces = 10;
    po.piece_sdf_res = 10;
    cr_cook_result r;
    cr_cook_pieces_report rep;
    int rc = cr_cook_prescored("spot.obj", &obj, &opt, &po, &r, &rep, err, sizeof err);
    cr_obj_free(&obj);
    ENSURE_MSG(rc == 0, "%s", err);
    cr_test_printf("    spot: %u pieces, %u bonds, volume %+.4f%%, bond sides differ by %.2e, %.2f s\n", rep.pieces, rep.bonds,
                   100 * (rep.pieces_volume - rep.whole_volume) / rep.whole_volume, rep.max_bond_mismatch, rep.time_total);
    ENSURE(rep.open_pieces == 0 && rep.inward_pieces == 0);
    ENSURE_NEAR(rep.pieces_volume, rep.whole_volume, 0.005 * rep.whole_volume);
    ENSURE(rep.max_bond_mismatch < 1e-3);
    cr_asset whole;
    void *blk = tc_load(r.bytes, r.size, &whole);
    ENSURE(blk != NULL);
    ENSURE(check_pieces(&r, &whole));
    free(blk);
    cr_cook_result_free(&r);
}

static uint8_t *section_of(uint8_t *b, uint32_t id, uint32_t *count) {
    uint8_t *en = b + CR_ASSET_HEADER_SIZE + id * CR_ASSET_ENTRY_SIZE;
    uint32_t off = (uint32_t)en[4] | (uint32_t)en[5] << 8 | (uint32_t)en[6] << 16 | (uint32_t)en[7] << 24;
    *count = (uint32_t)en[12] | (uint32_t)en[13] << 8 | (uint32_t)en[14] << 16 | (uint32_t)en[15] << 24;
    return b + off;
}

static void reseal(uint8_t *b, size_t n) {
    uint64_t h = cr_asset_checksum(b + 16, n - 16);
    for (int i = 0; i < 8; ++i) b[8 + i] = (uint8_t)(h >> (8 * i));
}

static cr_asset_error load_err(const uint8_t *b, size_t n) {
    cr_asset a;
    cr_asset_error e;
    size_t need = (cr_asset_memory_size(b, n) + 15) / 16 * 16;
    void *blk = aligned_alloc(CR_BLOCK_ALIGN, need ? need : 16);
    cr_asset_load(b, n, blk, need, &a, &e);
    free(blk);
    return e;
}

CR_TEST(fracture_cook_damaged_sections_are_named) {
    char *obj = wall_obj(1.0, 0.5, 0.2);
    cr_cook_result r;
    cr_cook_pieces_report rep;
    ENSURE(prescore_text(obj, (size_t)arrlen(obj), 5, 11, 16, &r, &rep) == 0);
    arrfree(obj);
    uint8_t *c = malloc(r.size);
    uint32_t count;
    /* a bond naming a piece that is not there */
    memcpy(c, r.bytes, r.size);
    uint8_t *bonds = section_of(c, CR_ASEC_FRCB, &count);
    ENSURE(count > 0);
    bonds[4] = 99;
    reseal(c, r.size);
    cr_asset_error e = load_err(c, r.size);
    ENSURE(e.check == CR_ASSET_INDEX_RANGE && memcmp(e.section_tag, "FRCB", 4) == 0);
    /* a piece's volume doubled: the pieces no longer sum to the whole */
    memcpy(c, r.bytes, r.size);
    uint8_t *pieces = section_of(c, CR_ASEC_FRCP, &count);
    float v;
    memcpy(&v, pieces + 8, 4);
    v *= 2;
    memcpy(pieces + 8, &v, 4);
    reseal(c, r.size);
    e = load_err(c, r.size);
    ENSURE(e.check == CR_ASSET_VALUE_RANGE && memcmp(e.section_tag, "FRCP", 4) == 0);
    /* a byte of a nested piece changed: its own checksum catches it at the whole's load */
    memcpy(c, r.bytes, r.size);
    uint8_t *nest = section_of(c, CR_ASEC_FRCA, &count);
    nest[200] ^= 0x40;
    reseal(c, r.size);
    e = load_err(c, r.size);
    ENSURE(e.check == CR_ASSET_VALUE_RANGE && memcmp(e.section_tag, "FRCP", 4) == 0);
    free(c);
    cr_cook_result_free(&r);
}

/* Cooked, loaded, registered, attached: a ball breaks the wall it was cooked for. */
CR_TEST(fracture_cook_prescored_wall_breaks_in_a_world) {
    char *obj = wall_obj(1.0, 0.75, 0.2);
    cr_cook_result r;
    cr_cook_pieces_report rep;
    ENSURE(prescore_text(obj, (size_t)arrlen(obj), 10, 5, 24, &r, &rep) == 0);
    arrfree(obj);
    cr_asset whole, piece[10];
    void *wblk = tc_load(r.bytes, r.size, &whole), *pblk[10];
    ENSURE(wblk != NULL);
    for (uint32_t i = 0; i < 10; ++i) {
        const void *pb;
        size_t pn;
        ENSURE(cr_asset_piece_bytes(&whole, r.bytes, r.size, i, &pb, &pn) == CR_OK);
        pblk[i] = tc_load(pb, pn, &piece[i]);
        ENSURE(pblk[i] != NULL);
    }
    cr_world_def def = cr_default_world_def();
    def.body_capacity = 32;
    def.asset_capacity = 16;
    def.damage.command_capacity = 128;
    def.damage.fracture = cr_default_fracture_budget();
    def.damage.fracture.body_capacity = 1;
    size_t size = cr_world_memory_size(&def);
    void *block = aligned_alloc(CR_BLOCK_ALIGN, (size + 15) / 16 * 16);
    cr_world *w;
    ENSURE(cr_world_create(&def, block, size, &w) == CR_OK);
    uint32_t wslot, first = 0, slot;
    ENSURE(cr_world_add_asset(w, &whole, &wslot) == CR_OK);
    for (uint32_t i = 0; i < 10; ++i) {
        ENSURE(cr_world_add_asset(w, &piece[i], &slot) == CR_OK);
        if (i == 0) first = slot;
    }
    cr_body_def bd = cr_default_body_def();
    bd.type = CR_BODY_STATIC;
    bd.shape.type = CR_SHAPE_MESH;
    bd.shape.asset = wslot;
    cr_transform pose = cr_transform_inverse(whole.mesh_to_body);
    bd.position = pose.p;
    bd.orientation = pose.q;
    cr_body_id wall, ball;
    ENSURE(cr_body_create(w, &bd, &wall) == CR_OK);
    cr_fracture_def fd = cr_default_fracture_def();
    fd.first_piece_asset = first;
    fd.damage_radius = CR_R(0.4);
    fd.anchor_min = cr_v3(CR_R(-1), CR_R(-1), CR_R(-1));
    fd.anchor_max = cr_v3(CR_R(2), CR_R(0.25), CR_R(1));
    ENSURE(cr_fracture_attach(w, wall, &fd) == CR_OK);
    cr_body_def ball_def = cr_default_body_def();
    ball_def.shape.type = CR_SHAPE_SPHERE;
    ball_def.shape.radius = CR_R(0.1);
    ball_def.material.density = CR_R(8000);
    ball_def.position = cr_v3(CR_R(0.5), CR_R(0.55), CR_R(-0.6));
    ball_def.linear_velocity = cr_v3(0, 0, CR_R(20));
    ENSURE(cr_body_create(w, &ball_def, &ball) == CR_OK);
    for (int s = 0; s < 30; ++s) ENSURE(cr_world_step(w, CR_R(1.0 / 60.0)) == CR_OK);
    cr_fracture_view v;
    ENSURE(cr_fracture_get(w, wall, &v) == CR_OK);
    cr_test_printf("    %u of %u bonds broken, %u piece bodies\n", v.bonds_broken, v.bond_count, v.pieces_spawned);
    ENSURE(!v.whole && v.bonds_broken > 0 && v.pieces_spawned == 10);
    int moving = 0;
    for (uint32_t i = 0; i < 10; ++i) moving += cr_body_get_type(w, cr_fracture_get_piece_body(w, wall, i)) == CR_BODY_DYNAMIC;
    ENSURE(moving > 0 && moving < 10);
    free(block);
    for (uint32_t i = 0; i < 10; ++i) free(pblk[i]);
    free(wblk);
    cr_cook_result_free(&r);
}

/* Pieces from an artist: a 2 x 2 grid of cubes, each its own `o` group, the
 * shared faces written once by each neighbour, reversed. */
CR_TEST(fracture_cook_artist_groups_are_the_pieces) {
    char *s = NULL;
    int first = 1;
    for (int y = 0; y < 2; ++y)
        for (int x = 0; x < 2; ++x) {
            tc_printf(&s, "o brick_%d_%d\n", x, y);
            tc_box(&s, 0.3 * x, 0.2 * y, 0, 0.3 * x + 0.3, 0.2 * y + 0.2, 0.25, first);
            first += 8;
        }
    cr_obj obj;
    char err[1024];
    ENSURE(cr_obj_parse("bricks.obj", s, (size_t)arrlen(s), &obj, err, sizeof err) == 0);
    arrfree(s);
    cr_cook_options opt = cr_cook_default_options();
    opt.quiet = true;
    opt.sdf_res = 20;
    cr_cook_pieces_options po = cr_cook_default_pieces_options();
    po.pieces = 0; /* the groups */
    cr_cook_result r;
    cr_cook_pieces_report rep;
    int rc = cr_cook_prescored("bricks.obj", &obj, &opt, &po, &r, &rep, err, sizeof err);
    cr_obj_free(&obj);
    ENSURE_MSG(rc == 0, "%s", err);
    cr_test_printf("    %u pieces, %u bonds, volume %.6f of %.6f\n", rep.pieces, rep.bonds, rep.pieces_volume, rep.whole_volume);
    ENSURE(rep.pieces == 4 && rep.bonds == 4 && rep.open_pieces == 0 && rep.inward_pieces == 0);
    ENSURE_NEAR(rep.pieces_volume, 0.6 * 0.4 * 0.25, 1e-9);
    ENSURE_NEAR(rep.whole_volume, 0.6 * 0.4 * 0.25, 1e-6);
    cr_asset whole;
    void *blk = tc_load(r.bytes, r.size, &whole);
    ENSURE(blk != NULL);
    ENSURE(whole.piece_count == 4 && whole.topology.closed);
    ENSURE(check_pieces(&r, &whole));
    /* bricks side by side share 0.2 x 0.25, one above the other 0.3 x 0.25 */
    double areas[4];
    for (uint32_t k = 0; k < 4; ++k) areas[k] = cr_to_double(whole.bonds[k].area);
    int side = 0, stacked = 0;
    for (uint32_t k = 0; k < 4; ++k) {
        side += fabs(areas[k] - 0.05) < 1e-6;
        stacked += fabs(areas[k] - 0.075) < 1e-6;
        cr_vec3 ab = cr_v3_sub(whole.pieces[whole.bonds[k].b].centroid, whole.pieces[whole.bonds[k].a].centroid);
        ENSURE(cr_v3_dot(ab, whole.bonds[k].normal) > 0);
    }
    ENSURE(side == 2 && stacked == 2);
    free(blk);
    cr_cook_result_free(&r);
}

/* An open box (its top face missing, as a scan's open base): the hole is
 * filled before the cut, every piece comes out closed. */
CR_TEST(fracture_cook_fills_holes_first) {
    char *s = NULL;
    double x[2] = {0, 0.6}, y[2] = {0, 0.4}, z[2] = {0, 0.3};
    for (int i = 0; i < 8; ++i) tc_printf(&s, "v %.17g %.17g %.17g\n", x[i & 1], y[(i >> 1) & 1], z[(i >> 2) & 1]);
    static const int q[5][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {0, 4, 6, 2}, {1, 3, 7, 5}}; /* no +y face */
    for (int f = 0; f < 5; ++f) tc_printf(&s, "f %d %d %d %d\n", 1 + q[f][0], 1 + q[f][1], 1 + q[f][2], 1 + q[f][3]);
    cr_cook_result r;
    cr_cook_pieces_report rep;
    ENSURE(prescore_text(s, (size_t)arrlen(s), 6, 2, 16, &r, &rep) == 0);
    arrfree(s);
    cr_test_printf("    %u hole filled, %u pieces, volume %.6f of %.6f\n", rep.holes_filled, rep.pieces, rep.pieces_volume, rep.whole_volume);
    ENSURE(rep.holes_filled == 1 && rep.open_pieces == 0 && rep.inward_pieces == 0);
    ENSURE_NEAR(rep.whole_volume, 0.6 * 0.4 * 0.3, 1e-6);
    ENSURE_NEAR(rep.pieces_volume, rep.whole_volume, 0.005 * rep.whole_volume);
    cr_asset whole;
    void *blk = tc_load(r.bytes, r.size, &whole);
    ENSURE(blk != NULL && whole.topology.closed);
    ENSURE(check_pieces(&r, &whole));
    free(blk);
    cr_cook_result_free(&r);
}
