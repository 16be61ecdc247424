/* test_fracture_plastic.c — one body both plastic (example-based, seed 001,
 * crumple/example.h) and fracturable (crumple/fracture.h), both scalar builds.
 *
 * The decision (docs/fracture.md, "Plastic and fracturable"): the two models
 * compose on the whole. A prescored asset cooked with a rig and example
 * poses (`crumple cook --pieces N --rig R --poses P`) carries the whole's
 * skeleton and examples besides its pieces; the whole deforms by examples
 * while it is whole and breaks like any fracturable body; its pieces are
 * rigid bodies with their cooked shapes (the examples belong to the whole's
 * skeleton, which the pieces do not have). What a user notices: the bar
 * sags where the ball hit it and keeps the sag, and a later blow breaks it
 * into its pieces, which fly as rigid bodies; the example record is freed
 * with the whole. */
#include "test_cook_util.h"
#include "cook_fracture.h"
#include "obj.h"
#include <math.h>

typedef struct plastic_kit {
    cr_cook_result cooked;
    cr_asset whole, piece[8];
    void *block[9];
    uint32_t pieces;
} plastic_kit;

static int cook_plastic_bar(plastic_kit *k) {
    memset(k, 0, sizeof *k);
    cr_cook_options opt = cr_cook_default_options();
    opt.quiet = true;
    opt.sdf_res = 24;
    opt.geodesic_radius = 1.5;
    opt.geodesic_max = 64;
    opt.rig_path = "data/rigs/bar.rig";
    opt.poses_path = "data/poses/bar.pose";
    cr_cook_pieces_options po = cr_cook_default_pieces_options();
    po.pieces = 4;
    po.seed = 3;
    cr_obj obj;
    char err[512];
    if (cr_obj_load("data/meshes/bar.obj", &obj, err, sizeof err) != 0) return cr_test_printf("    %s\n", err), 0;
    cr_cook_pieces_report rep;
    int rc = cr_cook_prescored("bar", &obj, &opt, &po, &k->cooked, &rep, err, sizeof err);
    cr_obj_free(&obj);
    if (rc != 0) return cr_test_printf("    %s\n", err), 0;
    k->block[0] = tc_load(k->cooked.bytes, k->cooked.size, &k->whole);
    if (k->block[0] == NULL || k->whole.piece_count > 8) return 0;
    k->pieces = k->whole.piece_count;
    for (uint32_t i = 0; i < k->pieces; ++i) {
        const void *pb;
        size_t pn;
        if (cr_asset_piece_bytes(&k->whole, k->cooked.bytes, k->cooked.size, i, &pb, &pn) != CR_OK) return 0;
        k->block[1 + i] = tc_load(pb, pn, &k->piece[i]);
        if (k->block[1 + i] == NULL) return 0;
    }
    return 1;
}

static void free_kit(plastic_kit *k) {
    for (uint32_t i = 0; i <= k->pieces; ++i) free(k->block[i]);
    cr_cook_result_free(&k->cooked);
}

/* deepest sag of the bar's middle (|x| < 0.3 m), m */
static double middle_sag(cr_world *w, cr_body_id bar) {
    cr_body_mesh m;
    if (cr_body_get_mesh(w, bar, &m) != CR_OK) return -1;
    double sag = 0;
    for (uint32_t i = 0; i < m.vertex_count; ++i)
        if (fabs(cr_to_double(m.rest_positions[i].x)) < 0.3)
            sag = fmax(sag, cr_to_double(m.rest_positions[i].y) - cr_to_double(m.positions[i].y));
    return sag;
}

CR_TEST(fracture_plastic_body_deforms_then_breaks) {
    static plastic_kit k;
    ENSURE(cook_plastic_bar(&k));
    cr_test_printf("    the prescored bar: %u pieces, %u bonds, %u bones, %u examples\n", k.pieces, k.whole.bond_count,
                   k.whole.bone_count, k.whole.example_count);
    ENSURE(k.pieces == 4 && k.whole.bone_count == 3 && k.whole.example_count == 4);
    cr_world_def def = cr_default_world_def();
    def.body_capacity = 16;
    def.joint_capacity = 16;
    def.asset_capacity = 8;
    def.gravity = cr_v3_zero();
    def.damage.command_capacity = 64;
    def.damage.example = cr_default_example_budget();
    def.damage.example.body_capacity = 1;
    def.damage.surface_bytes = 1u << 20;
    def.damage.fracture = cr_default_fracture_budget();
    def.damage.fracture.body_capacity = 1;
    size_t size = cr_world_memory_size(&def);
    ENSURE(size > 0);
    void *block = aligned_alloc(CR_BLOCK_ALIGN, (size + 15) / 16 * 16);
    cr_world *w = NULL;
    ENSURE(cr_world_create(&def, block, size, &w) == CR_OK);
    uint32_t whole_slot, first = 0, slot;
    ENSURE(cr_world_add_asset(w, &k.whole, &whole_slot) == CR_OK);
    for (uint32_t i = 0; i < k.pieces; ++i) {
        ENSURE(cr_world_add_asset(w, &k.piece[i], &slot) == CR_OK);
        if (i == 0) first = slot;
    }
    cr_body_def bd = cr_default_body_def();
    bd.type = CR_BODY_STATIC;
    bd.shape.type = CR_SHAPE_MESH;
    bd.shape.asset = whole_slot;
    bd.material.restitution = CR_R(0.8);
    cr_body_id bar;
    ENSURE(cr_body_create(w, &bd, &bar) == CR_OK);
    /* both models on the one body */
    cr_example_def ed = cr_default_example_def();
    ed.alpha = CR_R(20), ed.beta = CR_R(50), ed.gamma = CR_R(1.5), ed.lambda = CR_R(0.5);
    ENSURE(cr_example_attach(w, bar, &ed) == CR_OK);
    cr_fracture_def fd = cr_default_fracture_def();
    fd.first_piece_asset = first;
    fd.toughness = CR_R(1e7); /* the ball bends it; it does not break it */
    fd.strength = CR_R(1e9);
    fd.damage_radius = CR_R(10); /* the blow below reaches every bond */
    ENSURE(cr_fracture_attach(w, bar, &fd) == CR_OK);
    /* 1. a dense ball on the middle: the bar yields and keeps the sag */
    cr_body_def s = cr_default_body_def();
    s.shape.type = CR_SHAPE_SPHERE;
    s.shape.radius = CR_R(0.2);
    s.material.density = CR_R(8000);
    s.material.restitution = CR_R(1);
    s.position = cr_v3(0, CR_R(0.5), 0);
    s.linear_velocity = cr_v3(0, CR_R(-10), 0);
    cr_body_id ball;
    ENSURE(cr_body_create(w, &s, &ball) == CR_OK);
    uint32_t applied = 0;
    for (int i = 0; i < 120; ++i) {
        ENSURE(cr_world_step(w, CR_R(1.0 / 60.0)) == CR_OK);
        applied += cr_world_get_stats(w).example.done;
    }
    cr_body_destroy(w, ball);
    cr_fracture_view v;
    ENSURE(cr_fracture_get(w, bar, &v) == CR_OK);
    double sag = middle_sag(w, bar);
    cr_example_view ev;
    ENSURE(cr_example_get(w, bar, &ev) == CR_OK);
    double crush = 0; /* the crush example's (index 2) largest weight */
    for (uint32_t i = 0; i < ev.vertex_count; ++i) crush = fmax(crush, cr_to_double(ev.weights[i * ev.example_count + 2]));
    cr_test_printf("    after the ball: %u example impulses, middle sag %.4f m, crush weight up to %.3f, %u bonds broken\n", applied,
                   sag, crush, v.bonds_broken);
    ENSURE_MSG(applied > 0 && sag > 0.01 && crush > 0.05, "the bar yielded to the ball by its examples");
    ENSURE_MSG(v.whole && v.bonds_broken == 0, "and it did not break");
    for (int i = 0; i < 30; ++i) ENSURE(cr_world_step(w, CR_R(1.0 / 60.0)) == CR_OK);
    ENSURE_MSG(middle_sag(w, bar) > 0.9 * sag, "the sag stays: plastic, not elastic");
    /* 2. a blow that breaks every bond: the bar splits into its pieces */
    ENSURE(cr_fracture_apply_damage(w, bar, cr_body_get_transform(w, bar).p, CR_R(1e9)) == CR_OK);
    ENSURE(cr_world_step(w, CR_R(1.0 / 60.0)) == CR_OK);
    ENSURE(cr_fracture_get(w, bar, &v) == CR_OK);
    cr_test_printf("    after the blow: %u of %u bonds broken, %u pieces\n", v.bonds_broken, v.bond_count, v.pieces_spawned);
    ENSURE(!v.whole && v.bonds_broken == v.bond_count && v.pieces_spawned == k.pieces);
    ENSURE(!cr_body_is_valid(w, bar));                             /* the plastic whole is gone... */
    ENSURE(cr_example_get(w, bar, &ev) != CR_OK);                  /* ...and its example record with it */
    for (uint32_t i = 0; i < k.pieces; ++i) {
        cr_body_id pb = cr_fracture_get_piece_body(w, bar, i);
        ENSURE(cr_body_is_valid(w, pb) && cr_body_get_type(w, pb) == CR_BODY_DYNAMIC);
        ENSURE(cr_example_get(w, pb, &ev) != CR_OK);               /* the pieces are rigid */
    }
    /* the freed example record takes a new plastic body */
    bd.type = CR_BODY_STATIC;
    bd.position = cr_v3(CR_R(5), 0, 0);
    bd.shape.asset = whole_slot;
    cr_body_id again;
    ENSURE(cr_body_create(w, &bd, &again) == CR_OK);
    ENSURE(cr_example_attach(w, again, &ed) == CR_OK);
    free(block);
    free_kit(&k);
}
