/* test_fracture_scenes.c — the three scenes as scenario tests, both
 * scalar builds:
 *   fracture_wall   seed 000 Fig. 3: a ball hits a prescored wall again and
 *                   again; the dent deepens, then bonds near the hit break,
 *                   pieces fly on, the far pieces stay attached; twice from
 *                   the start and once through a snapshot, the same hashes;
 *   fracture_beam   a beam on two supports breaks under a dropped weight
 *                   above a threshold mass and holds below it;
 *   fracture_tower  a tower of bonded bricks loses a base brick to a ball and
 *                   its overhang comes down under its own weight (stress: the
 *                   bonds that give are out of the ball's reach). */
#include "test_fracture_util.h"
#include "crumple/snapshot.h"
#include <string.h>

#define DT CR_R(1.0 / 60.0)

static double max_dent(cr_world *w, cr_body_id b) {
    cr_body_mesh m;
    if (cr_body_get_mesh(w, b, &m) != CR_OK) return 0;
    double worst = 0;
    for (uint32_t i = 0; i < m.vertex_count; ++i) {
        double d = cr_to_double(cr_v3_len(cr_v3_sub(m.positions[i], m.rest_positions[i])));
        worst = d > worst ? d : worst;
    }
    return worst;
}

static cr_body_id throw_ball(cr_world *w, cr_vec3 at, cr_real speed) {
    cr_body_def bd = cr_default_body_def();
    bd.shape.type = CR_SHAPE_SPHERE;
    bd.shape.radius = CR_R(0.1);
    bd.material.density = CR_R(7800);
    bd.material.restitution = CR_R(0.2);
    bd.position = at;
    bd.linear_velocity = cr_v3(0, 0, speed);
    cr_body_id id = {0, 0};
    cr_body_create(w, &bd, &id);
    return id;
}

typedef struct wall_run {
    double dent[4];        /* deepest dent after each hit */
    bool whole[4];         /* still whole after each hit */
    uint32_t broken, moving, bottom_static;
    double piece_dent;     /* deepest dent a moving piece carries after the break */
    uint64_t hash;
} wall_run;

static int fracture_wall(tf_kit *k, wall_run *out, int snapshot_at) {
    memset(out, 0, sizeof *out);
    void *block = NULL;
    cr_world *w = tf_world(&block, cr_v3(0, CR_R(-9.81), 0), 64);
    if (w == NULL || !tf_kit_register(k, w)) return 0;
    cr_body_id wall;
    if (tf_body(w, k, CR_BODY_STATIC, cr_v3_zero(), &wall) != CR_OK) return 0;
    cr_dent_def dd = cr_default_dent_def();
    dd.threshold_speed = CR_R(1);
    dd.speed_scale = CR_R(0.004);
    dd.max_distance = CR_R(0.08);
    dd.blur = CR_R(0.03);
    if (cr_dent_attach(w, wall, &dd) != CR_OK) return 0;
    cr_fracture_def fd = cr_default_fracture_def();
    fd.first_piece_asset = k->first_piece_slot;
    fd.toughness = CR_R(10000);
    fd.damage_radius = CR_R(0.4);
    fd.anchor_min = cr_v3(CR_R(-1), CR_R(-1), CR_R(-1));
    fd.anchor_max = cr_v3(CR_R(2), CR_R(0.2), CR_R(1));
    if (cr_fracture_attach(w, wall, &fd) != CR_OK) return 0;
    size_t snap_size = cr_world_snapshot_size(w);
    void *snap = snapshot_at >= 0 ? aligned_alloc(CR_BLOCK_ALIGN, (snap_size + 15) / 16 * 16) : NULL;
    cr_body_id ball = {0, 0};
    int step = 0;
    for (int hit = 0; hit < 4; ++hit) {
        if (cr_body_is_valid(w, ball)) cr_body_destroy(w, ball);
        ball = throw_ball(w, cr_v3(CR_R(0.5), CR_R(0.55), CR_R(-0.5)), CR_R(10));
        for (int s = 0; s < 40; ++s, ++step) {
            if (step == snapshot_at && snap) {
                /* save, run on, restore: the rest must replay bit for bit */
                if (cr_world_snapshot_save(w, snap, snap_size) != CR_OK) return 0;
                for (int j = 0; j < 25; ++j) cr_world_step(w, DT);
                if (cr_world_snapshot_restore(w, snap, snap_size) != CR_OK) return 0;
            }
            if (cr_world_step(w, DT) != CR_OK) return 0;
        }
        cr_fracture_view v;
        if (cr_fracture_get(w, wall, &v) != CR_OK) return 0;
        out->whole[hit] = v.whole;
        out->dent[hit] = v.whole ? max_dent(w, wall) : 0;
    }
    cr_fracture_view v;
    cr_fracture_get(w, wall, &v);
    out->broken = v.bonds_broken;
    for (uint32_t i = 0; i < v.piece_count; ++i) {
        cr_body_id pb = cr_fracture_get_piece_body(w, wall, i);
        if (!cr_body_is_valid(w, pb)) continue;
        bool dyn = cr_body_get_type(w, pb) == CR_BODY_DYNAMIC;
        out->moving += dyn;
        if (dyn) out->piece_dent = fmax(out->piece_dent, max_dent(w, pb));
        out->bottom_static += (i / 4 == 0) && !dyn;
    }
    out->hash = cr_world_state_hash(w);
    free(snap);
    free(block);
    return 1;
}

CR_TEST(fracture_wall_dents_then_breaks) {
    static tf_kit k;
    const double size[3] = {0.25, 0.25, 0.2};
    ENSURE(tf_kit_make_fine(&k, 4, 3, 1, size, 12));
    wall_run a, b, c;
    ENSURE(fracture_wall(&k, &a, -1));
    cr_test_printf("    dents %.4f %.4f %.4f m, whole %d %d %d %d, %u bonds broken, %u pieces moving, hash %016llx\n", a.dent[0],
                   a.dent[1], a.dent[2], a.whole[0], a.whole[1], a.whole[2], a.whole[3], a.broken, a.moving,
                   (unsigned long long)a.hash);
    ENSURE_MSG(a.whole[0] && a.dent[0] > 0.01, "the first hit dents, and does not break");
    ENSURE_MSG(a.whole[1] && a.dent[1] > a.dent[0], "the second hit deepens the dent");
    ENSURE_MSG(!a.whole[3], "the wall broke by the fourth hit");
    ENSURE(a.broken > 0 && a.moving > 0);
    ENSURE(a.bottom_static == 4); /* the far pieces stay attached */
    cr_test_printf("    the pieces that fly off carry dents %.4f m deep\n", a.piece_dent);
    ENSURE_MSG(a.piece_dent > 0.5 * a.dent[2], "the dents are kept on the pieces that fly off");
    ENSURE(fracture_wall(&k, &b, -1));
    ENSURE(b.hash == a.hash);
    ENSURE(fracture_wall(&k, &c, 70));
    ENSURE_MSG(c.hash == a.hash, "through a snapshot: %016llx vs %016llx", (unsigned long long)c.hash, (unsigned long long)a.hash);
    tf_kit_free(&k);
}

/* A beam of six pieces on two static supports; a box dropped on its middle. */
static int fracture_beam(tf_kit *k, double weight_kg, cr_fracture_view *v) {
    void *block = NULL;
    cr_world *w = tf_world(&block, cr_v3(0, CR_R(-9.81), 0), 64);
    if (w == NULL || !tf_kit_register(k, w)) return 0;
    cr_body_def sd = cr_default_body_def();
    sd.type = CR_BODY_STATIC;
    sd.shape.type = CR_SHAPE_BOX;
    sd.shape.half_extents = cr_v3(CR_R(0.1), CR_R(0.5), CR_R(0.3));
    cr_body_id left, right, beam, weight;
    sd.position = cr_v3(CR_R(0.05), CR_R(0.5), CR_R(0.1));
    if (cr_body_create(w, &sd, &left) != CR_OK) return 0;
    sd.position = cr_v3(CR_R(1.45), CR_R(0.5), CR_R(0.1));
    if (cr_body_create(w, &sd, &right) != CR_OK) return 0;
    if (tf_body(w, k, CR_BODY_DYNAMIC, cr_v3(0, CR_R(1.0), 0), &beam) != CR_OK) return 0;
    cr_fracture_def fd = cr_default_fracture_def();
    fd.first_piece_asset = k->first_piece_slot;
    fd.toughness = CR_R(3000);
    fd.strength = CR_R(30000);
    fd.damage_radius = CR_R(0.3);
    if (cr_fracture_attach(w, beam, &fd) != CR_OK) return 0;
    for (int s = 0; s < 30; ++s) cr_world_step(w, DT); /* settle on the supports */
    cr_body_def wd = cr_default_body_def();
    wd.shape.type = CR_SHAPE_BOX;
    wd.shape.half_extents = cr_v3(CR_R(0.1), CR_R(0.1), CR_R(0.1));
    wd.material.density = cr_from_float((float)(weight_kg / 0.008));
    wd.material.restitution = 0;
    wd.position = cr_v3(CR_R(0.75), CR_R(2.0), CR_R(0.1));
    if (cr_body_create(w, &wd, &weight) != CR_OK) return 0;
    for (int s = 0; s < 90; ++s) cr_world_step(w, DT);
    int ok = cr_fracture_get(w, beam, v) == CR_OK;
    free(block);
    return ok;
}

CR_TEST(fracture_beam_breaks_above_a_threshold_mass) {
    static tf_kit k;
    const double size[3] = {0.25, 0.2, 0.2};
    ENSURE(tf_kit_make(&k, 6, 1, 1, size));
    cr_fracture_view light, heavy;
    ENSURE(fracture_beam(&k, 10, &light));
    ENSURE(fracture_beam(&k, 400, &heavy));
    cr_test_printf("    10 kg: %u bonds broken; 400 kg: %u bonds broken\n", light.bonds_broken, heavy.bonds_broken);
    ENSURE(light.whole && light.bonds_broken == 0);
    ENSURE(!heavy.whole && heavy.bonds_broken > 0);
    tf_kit_free(&k);
}

static int fracture_tower(tf_kit *k, bool knock, cr_fracture_view *v, uint32_t *far_broken, int *fallen) {
    void *block = NULL;
    cr_world *w = tf_world(&block, cr_v3(0, CR_R(-9.81), 0), 64);
    if (w == NULL || !tf_kit_register(k, w)) return 0;
    cr_body_id ground, tower;
    cr_body_def gd = cr_default_body_def();
    gd.type = CR_BODY_STATIC;
    gd.shape.type = CR_SHAPE_PLANE;
    if (cr_body_create(w, &gd, &ground) != CR_OK) return 0;
    if (tf_body(w, k, CR_BODY_STATIC, cr_v3(0, CR_R(0.002), 0), &tower) != CR_OK) return 0;
    cr_fracture_def fd = cr_default_fracture_def();
    fd.first_piece_asset = k->first_piece_slot;
    fd.toughness = CR_R(2000);
    fd.strength = CR_R(9000);
    fd.damage_radius = CR_R(0.3);
    fd.anchor_min = cr_v3(CR_R(-1), CR_R(-1), CR_R(-1));
    fd.anchor_max = cr_v3(CR_R(2), CR_R(0.2), CR_R(1)); /* the two base bricks */
    if (cr_fracture_attach(w, tower, &fd) != CR_OK) return 0;
    /* the right base brick knocked out: a ball at it, low and fast */
    if (knock && cr_body_id_is_null(throw_ball(w, cr_v3(CR_R(0.375), CR_R(0.125), CR_R(-0.5)), CR_R(25)))) return 0;
    for (int s = 0; s < 120; ++s)
        if (cr_world_step(w, DT) != CR_OK) return 0;
    if (cr_fracture_get(w, tower, v) != CR_OK) return 0;
    /* broken bonds out of the ball's reach: more than damage_radius from where it hits the base brick's face */
    *far_broken = 0, *fallen = 0;
    for (uint32_t b = 0; b < v->bond_count; ++b) {
        cr_vec3 m = cr_transform_point(cr_transform_inverse(k->asset[0].mesh_to_body), k->bonds[b].centroid);
        double dx = cr_to_double(m.x) - 0.375, dy = cr_to_double(m.y) - 0.127, dz = cr_to_double(m.z);
        if (sqrt(dx * dx + dy * dy + dz * dz) > 0.3 && cr_to_double(cr_fracture_get_bond_health(w, tower, b)) <= 0) ++*far_broken;
    }
    for (uint32_t i = 0; i < v->piece_count; ++i) {
        cr_body_id pb = cr_fracture_get_piece_body(w, tower, i);
        *fallen += cr_body_is_valid(w, pb) && cr_body_get_type(w, pb) == CR_BODY_DYNAMIC;
    }
    free(block);
    return 1;
}

CR_TEST(fracture_tower_collapses_when_its_base_is_knocked_out) {
    static tf_kit k;
    const double size[3] = {0.25, 0.25, 0.25};
    ENSURE(tf_kit_make(&k, 2, 4, 1, size));
    cr_fracture_view v;
    uint32_t far_broken;
    int fallen;
    ENSURE(fracture_tower(&k, false, &v, &far_broken, &fallen));
    ENSURE_MSG(v.whole && v.bonds_broken == 0, "the standing tower holds its own weight (%u bonds broke)", v.bonds_broken);
    ENSURE(fracture_tower(&k, true, &v, &far_broken, &fallen));
    cr_test_printf("    %u of %u bonds broken, %u out of the ball's reach; %d bricks down\n", v.bonds_broken, v.bond_count,
                   far_broken, fallen);
    ENSURE(!v.whole && fallen >= 6);
    ENSURE_MSG(far_broken > 0, "a bond the ball could not reach gave way under the weight it had to carry alone");
    tf_kit_free(&k);
}

/* The wall scene's final state hash, recorded on x86-64 gcc -O2: `make test`
 * runs the tests named "determinism" again at -O0 and with clang, so this
 * holds the fracture model (dents, bonds, the split, joints, pieces flying)
 * to bit-identical results across compilers and optimisation levels. Record
 * again only on purpose, and say why. */
#if CR_FIXED
#define FRACTURE_WALL_GOLDEN 0xf275a47602b6d951ull
#else
#define FRACTURE_WALL_GOLDEN 0xbaa5455144f9ac39ull
#endif

CR_TEST(determinism_fracture_wall_golden) {
    static tf_kit k;
    const double size[3] = {0.25, 0.25, 0.2};
    ENSURE(tf_kit_make_fine(&k, 4, 3, 1, size, 12));
    wall_run a;
    ENSURE(fracture_wall(&k, &a, -1));
    ENSURE_MSG(a.hash == FRACTURE_WALL_GOLDEN, "fracture wall state hash %016llx, golden %016llx", (unsigned long long)a.hash,
               (unsigned long long)FRACTURE_WALL_GOLDEN);
    tf_kit_free(&k);
}
