/* test_fracture.c — prescored fracture at run time (crumple/fracture.h):
 * a split keeps mass, linear and angular momentum; anchored islands stay
 * static and cut-off pieces fall; weak hits wear bonds without breaking
 * them; a full world leaves pieces attached and counts them; bad defs are
 * refused naming the field. Both scalar builds. */
#include "test_fracture_util.h"
#include <string.h>

static double d3(cr_vec3 v, int k) { return cr_to_double(k == 0 ? v.x : (k == 1 ? v.y : v.z)); }

/* Linear and angular momentum (about the world origin) of a body. */
static void momentum(cr_world *w, cr_body_id id, double p[3], double l[3]) {
    double m = cr_to_double(cr_body_get_mass(w, id));
    cr_transform xf = cr_body_get_transform(w, id);
    cr_vec3 v = cr_body_get_linear_velocity(w, id), om = cr_body_get_angular_velocity(w, id);
    cr_vec3 I = cr_body_get_inertia(w, id);
    cr_vec3 lb = cr_quat_inv_rotate(xf.q, om);
    cr_vec3 Il = cr_quat_rotate(xf.q, cr_v3(cr_mul(I.x, lb.x), cr_mul(I.y, lb.y), cr_mul(I.z, lb.z)));
    double x[3] = {d3(xf.p, 0), d3(xf.p, 1), d3(xf.p, 2)}, mv[3] = {m * d3(v, 0), m * d3(v, 1), m * d3(v, 2)};
    for (int k = 0; k < 3; ++k) p[k] = mv[k];
    l[0] = d3(Il, 0) + x[1] * mv[2] - x[2] * mv[1];
    l[1] = d3(Il, 1) + x[2] * mv[0] - x[0] * mv[2];
    l[2] = d3(Il, 2) + x[0] * mv[1] - x[1] * mv[0];
}

/* The world point of bond k of the kit's whole body. */
static cr_vec3 bond_world(cr_world *w, cr_body_id whole, const tf_kit *k, uint32_t bond) {
    return cr_transform_point(cr_body_get_transform(w, whole), k->bonds[bond].centroid);
}

static uint32_t bond_between(const tf_kit *k, int a, int b) {
    for (uint32_t i = 0; i < k->asset[0].bond_count; ++i)
        if ((int)k->bonds[i].a == a && (int)k->bonds[i].b == b) return i;
    return UINT32_MAX;
}

CR_TEST(fracture_split_keeps_mass_and_momentum) {
    static tf_kit k;
    const double size[3] = {0.25, 0.2, 0.3};
    ENSURE(tf_kit_make(&k, 4, 1, 1, size));
    void *block = NULL;
    cr_world *w = tf_world(&block, cr_v3_zero(), 32);
    ENSURE(w != NULL && tf_kit_register(&k, w));
    cr_body_id bar;
    ENSURE(tf_body(w, &k, CR_BODY_DYNAMIC, cr_v3(0, CR_R(3), 0), &bar) == CR_OK);
    ENSURE(cr_body_set_velocity(w, bar, cr_v3(CR_R(1.5), CR_R(0.5), CR_R(-0.25)), cr_v3(CR_R(0.4), CR_R(2), CR_R(1))) == CR_OK);
    cr_fracture_def fd = cr_default_fracture_def();
    fd.first_piece_asset = k.first_piece_slot;
    fd.damage_radius = CR_R(0.1); /* the middle bond only */
    ENSURE(cr_fracture_attach(w, bar, &fd) == CR_OK);
    ENSURE(cr_world_step(w, CR_R(1.0 / 60.0)) == CR_OK);
    ENSURE(cr_body_is_valid(w, bar));
    double M = cr_to_double(cr_body_get_mass(w, bar)), P[3], L[3];
    momentum(w, bar, P, L);
    uint32_t mid = bond_between(&k, 1, 2);
    ENSURE(mid != UINT32_MAX);
    ENSURE(cr_fracture_apply_damage(w, bar, bond_world(w, bar, &k, mid), CR_R(1e6)) == CR_OK);
    ENSURE(cr_world_step(w, CR_R(1.0 / 60.0)) == CR_OK);
    cr_fracture_view v;
    ENSURE(cr_fracture_get(w, bar, &v) == CR_OK);
    ENSURE(!v.whole && v.bonds_broken == 1 && v.pieces_spawned == 4);
    ENSURE(!cr_body_is_valid(w, bar));
    ENSURE(cr_world_get_joint_count(w) == 2); /* 0-1 and 2-3 still bonded */
    double m = 0, p[3] = {0, 0, 0}, l[3] = {0, 0, 0};
    for (uint32_t i = 0; i < 4; ++i) {
        cr_body_id pb = cr_fracture_get_piece_body(w, bar, i);
        ENSURE(cr_body_is_valid(w, pb));
        ENSURE(cr_body_get_type(w, pb) == CR_BODY_DYNAMIC);
        double pi[3], li[3];
        momentum(w, pb, pi, li);
        m += cr_to_double(cr_body_get_mass(w, pb));
        for (int c = 0; c < 3; ++c) p[c] += pi[c], l[c] += li[c];
    }
    double pn = sqrt(P[0] * P[0] + P[1] * P[1] + P[2] * P[2]), ln = sqrt(L[0] * L[0] + L[1] * L[1] + L[2] * L[2]);
    cr_test_printf("    mass %.6f -> %.6f kg, |P| %.6f, |L| %.6f\n", M, m, pn, ln);
    ENSURE_NEAR(m, M, 1e-4 * M);
    for (int c = 0; c < 3; ++c) {
        ENSURE_NEAR(p[c], P[c], 1e-4 * pn);
        ENSURE_NEAR(l[c], L[c], 1e-3 * ln);
    }
    /* the bonded pairs stay together; the halves drift apart only by their spin */
    for (int s = 0; s < 30; ++s) ENSURE(cr_world_step(w, CR_R(1.0 / 60.0)) == CR_OK);
    cr_vec3 a0 = cr_body_get_transform(w, cr_fracture_get_piece_body(w, bar, 0)).p;
    cr_vec3 a1 = cr_body_get_transform(w, cr_fracture_get_piece_body(w, bar, 1)).p;
    ENSURE_NEAR(cr_to_double(cr_v3_len(cr_v3_sub(a0, a1))), size[0], 0.01);
    free(block);
    tf_kit_free(&k);
}

/* A static wall bolted by its left column, off the ground: cut loose, the
 * right column falls as one jointed island; every other piece stays static
 * where it was. */
CR_TEST(fracture_anchored_wall_drops_cut_column) {
    static tf_kit k;
    const double size[3] = {0.25, 0.25, 0.2};
    ENSURE(tf_kit_make(&k, 4, 3, 1, size));
    void *block = NULL;
    cr_world *w = tf_world(&block, cr_v3(0, CR_R(-9.81), 0), 64);
    ENSURE(w != NULL && tf_kit_register(&k, w));
    cr_body_id wall;
    ENSURE(tf_body(w, &k, CR_BODY_STATIC, cr_v3(0, CR_R(2), 0), &wall) == CR_OK);
    cr_fracture_def fd = cr_default_fracture_def();
    fd.first_piece_asset = k.first_piece_slot;
    fd.damage_radius = CR_R(0.05);
    fd.anchor_min = cr_v3(CR_R(-1), CR_R(-1), CR_R(-1));
    fd.anchor_max = cr_v3(CR_R(0.2), CR_R(2), CR_R(1)); /* the left column's centres */
    ENSURE(cr_fracture_attach(w, wall, &fd) == CR_OK);
    for (int y = 0; y < 3; ++y) {
        uint32_t b = bond_between(&k, tf_piece_index(&k, 2, y, 0), tf_piece_index(&k, 3, y, 0));
        ENSURE(b != UINT32_MAX);
        ENSURE(cr_fracture_apply_damage(w, wall, bond_world(w, wall, &k, b), CR_R(1e6)) == CR_OK);
    }
    ENSURE(cr_world_step(w, CR_R(1.0 / 60.0)) == CR_OK);
    cr_fracture_view v;
    ENSURE(cr_fracture_get(w, wall, &v) == CR_OK);
    ENSURE(!v.whole && v.bonds_broken == 3 && v.pieces_spawned == 12);
    ENSURE(cr_world_get_joint_count(w) == 2); /* the right column's two bonds */
    cr_vec3 start[12];
    for (int i = 0; i < 12; ++i) {
        cr_body_id pb = cr_fracture_get_piece_body(w, wall, (uint32_t)i);
        ENSURE(cr_body_is_valid(w, pb));
        bool right = i % 4 == 3;
        ENSURE_MSG(cr_body_get_type(w, pb) == (right ? CR_BODY_DYNAMIC : CR_BODY_STATIC), "piece %d", i);
        /* the game's damage strikes with no body: the freed column starts at rest (fracture_blow.c) */
        cr_vec3 u = cr_body_get_linear_velocity(w, pb);
        ENSURE_MSG(u.x == 0 && u.y == 0 && u.z == 0, "piece %d starts at rest", i);
        start[i] = cr_body_get_transform(w, pb).p;
    }
    for (int s = 0; s < 20; ++s) ENSURE(cr_world_step(w, CR_R(1.0 / 60.0)) == CR_OK);
    for (int i = 0; i < 12; ++i) {
        cr_vec3 now = cr_body_get_transform(w, cr_fracture_get_piece_body(w, wall, (uint32_t)i)).p;
        double dy = cr_to_double(now.y) - cr_to_double(start[i].y);
        if (i % 4 == 3) ENSURE_MSG(dy < -0.3, "piece %d fell %.3f m", i, dy);
        else ENSURE(dy == 0);
    }
    /* the falling column holds together */
    cr_vec3 p3 = cr_body_get_transform(w, cr_fracture_get_piece_body(w, wall, 3)).p;
    cr_vec3 p11 = cr_body_get_transform(w, cr_fracture_get_piece_body(w, wall, 11)).p;
    ENSURE_NEAR(cr_to_double(cr_v3_len(cr_v3_sub(p3, p11))), 2 * size[1], 0.01);
    free(block);
    tf_kit_free(&k);
}

/* Hits below the bonds' toughness wear them; none breaks, the body stays whole. */
CR_TEST(fracture_weak_hits_wear_without_breaking) {
    static tf_kit k;
    const double size[3] = {0.3, 0.3, 0.3};
    ENSURE(tf_kit_make(&k, 2, 2, 1, size));
    void *block = NULL;
    cr_world *w = tf_world(&block, cr_v3_zero(), 16);
    ENSURE(w != NULL && tf_kit_register(&k, w));
    cr_body_id box;
    ENSURE(tf_body(w, &k, CR_BODY_STATIC, cr_v3_zero(), &box) == CR_OK);
    cr_fracture_def fd = cr_default_fracture_def();
    fd.first_piece_asset = k.first_piece_slot;
    ENSURE(cr_fracture_attach(w, box, &fd) == CR_OK);
    /* toughness 2000 N s/m^2 x 0.09 m^2 = 180 N s per bond at the point itself */
    cr_vec3 centre = cr_transform_point(cr_body_get_transform(w, box), cr_v3_zero());
    for (int s = 0; s < 3; ++s) {
        ENSURE(cr_fracture_apply_damage(w, box, centre, CR_R(40)) == CR_OK);
        ENSURE(cr_world_step(w, CR_R(1.0 / 60.0)) == CR_OK);
    }
    cr_fracture_view v;
    ENSURE(cr_fracture_get(w, box, &v) == CR_OK);
    ENSURE(v.whole && v.bonds_broken == 0 && cr_body_is_valid(w, box));
    for (uint32_t b = 0; b < v.bond_count; ++b) {
        double h = cr_to_double(cr_fracture_get_bond_health(w, box, b));
        ENSURE_MSG(h > 0.05 && h < 0.9, "bond %u health %.3f", b, h);
    }
    free(block);
    tf_kit_free(&k);
}

/* A world without room for the pieces keeps the body whole, counts the
 * pieces left attached, and splits once room is made. */
CR_TEST(fracture_full_world_leaves_pieces_attached) {
    static tf_kit k;
    const double size[3] = {0.25, 0.25, 0.25};
    ENSURE(tf_kit_make(&k, 4, 1, 1, size));
    void *block = NULL;
    cr_world *w = tf_world(&block, cr_v3_zero(), 4);
    ENSURE(w != NULL && tf_kit_register(&k, w));
    cr_body_id bar, filler;
    ENSURE(tf_body(w, &k, CR_BODY_DYNAMIC, cr_v3_zero(), &bar) == CR_OK);
    cr_body_def bd = tf_ball_def(CR_R(0.1), cr_v3(CR_R(5), 0, 0));
    ENSURE(cr_body_create(w, &bd, &filler) == CR_OK);
    cr_fracture_def fd = cr_default_fracture_def();
    fd.first_piece_asset = k.first_piece_slot;
    ENSURE(cr_fracture_attach(w, bar, &fd) == CR_OK);
    ENSURE(cr_fracture_apply_damage(w, bar, cr_body_get_transform(w, bar).p, CR_R(1e6)) == CR_OK);
    ENSURE(cr_world_step(w, CR_R(1.0 / 60.0)) == CR_OK);
    cr_world_stats st = cr_world_get_stats(w);
    ENSURE(st.fracture.over_capacity == 4 && st.fracture.done > 0);
    ENSURE(cr_body_is_valid(w, bar));
    cr_fracture_view v;
    ENSURE(cr_fracture_get(w, bar, &v) == CR_OK && v.whole);
    ENSURE(cr_body_destroy(w, filler) == CR_OK);
    ENSURE(cr_world_step(w, CR_R(1.0 / 60.0)) == CR_OK);
    ENSURE(cr_fracture_get(w, bar, &v) == CR_OK && !v.whole && v.pieces_spawned == 4);
    free(block);
    tf_kit_free(&k);
}

CR_TEST(fracture_attach_refuses_bad_defs) {
    static tf_kit k;
    const double size[3] = {0.25, 0.25, 0.25};
    ENSURE(tf_kit_make(&k, 2, 1, 1, size));
    void *block = NULL;
    cr_world *w = tf_world(&block, cr_v3_zero(), 8);
    ENSURE(w != NULL && tf_kit_register(&k, w));
    cr_body_id bar, ball;
    ENSURE(tf_body(w, &k, CR_BODY_DYNAMIC, cr_v3_zero(), &bar) == CR_OK);
    cr_body_def bd = tf_ball_def(CR_R(0.1), cr_v3(CR_R(5), 0, 0));
    ENSURE(cr_body_create(w, &bd, &ball) == CR_OK);
    cr_fracture_def fd = cr_default_fracture_def();
    fd.first_piece_asset = k.first_piece_slot;
    cr_fracture_def bad = fd;
    bad.toughness = cr_div(CR_R(1), 0);
    ENSURE(cr_fracture_attach(w, bar, &bad) == CR_ERR_NOT_FINITE);
    ENSURE(cr_world_refused_field(w) == CR_FIELD_FRACTURE_TOUGHNESS);
    bad = fd;
    bad.strength = CR_R(-1);
    ENSURE(cr_fracture_attach(w, bar, &bad) == CR_ERR_DEF_INVALID);
    ENSURE(cr_world_refused_field(w) == CR_FIELD_FRACTURE_STRENGTH);
    bad = fd;
    bad.first_piece_asset = k.whole_slot; /* the whole is not piece 0 */
    ENSURE(cr_fracture_attach(w, bar, &bad) == CR_ERR_DEF_INVALID);
    ENSURE(cr_world_refused_field(w) == CR_FIELD_FRACTURE_PIECE_ASSET);
    bad = fd;
    bad.cookie = 0;
    ENSURE(cr_fracture_attach(w, bar, &bad) == CR_ERR_DEF_NOT_DEFAULTED);
    ENSURE(cr_fracture_attach(w, ball, &fd) == CR_ERR_DEF_INVALID);
    ENSURE(cr_fracture_attach(w, bar, &fd) == CR_OK);
    ENSURE(cr_fracture_attach(w, bar, &fd) == CR_ERR_DEF_INVALID); /* twice */
    ENSURE(cr_fracture_apply_damage(w, bar, cr_v3(cr_div(CR_R(1), 0), 0, 0), CR_R(1)) == CR_ERR_NOT_FINITE);
    ENSURE(cr_world_refused_field(w) == CR_FIELD_WORLD_POINT);
    ENSURE(cr_fracture_apply_damage(w, ball, cr_v3_zero(), CR_R(1)) == CR_ERR_DEF_INVALID);
    free(block);
    tf_kit_free(&k);
}

/* Stress, not impacts: a beam of four pieces bolted to a wall at one end
 * carries its own weight; weak bonds give way at the root under it, strong
 * ones hold. Nothing touches the beam. */
static int cantilever(double strength, int steps, cr_fracture_view *out, double *tip_drop) {
    static tf_kit k;
    const double size[3] = {0.25, 0.25, 0.25};
    if (!tf_kit_make(&k, 4, 1, 1, size)) return 0;
    void *block = NULL;
    cr_world *w = tf_world(&block, cr_v3(0, CR_R(-9.81), 0), 32);
    if (w == NULL || !tf_kit_register(&k, w)) return 0;
    cr_body_id beam;
    if (tf_body(w, &k, CR_BODY_STATIC, cr_v3(0, CR_R(2), 0), &beam) != CR_OK) return 0;
    cr_fracture_def fd = cr_default_fracture_def();
    fd.first_piece_asset = k.first_piece_slot;
    fd.strength = cr_from_float((float)strength);
    fd.anchor_min = cr_v3(CR_R(-1), CR_R(-1), CR_R(-1));
    fd.anchor_max = cr_v3(CR_R(0.2), CR_R(1), CR_R(1));
    if (cr_fracture_attach(w, beam, &fd) != CR_OK) return 0;
    cr_vec3 tip0 = cr_transform_point(cr_body_get_transform(w, beam), k.pieces[3].centroid);
    for (int s = 0; s < steps; ++s)
        if (cr_world_step(w, CR_R(1.0 / 60.0)) != CR_OK) return 0;
    if (cr_fracture_get(w, beam, out) != CR_OK) return 0;
    cr_body_id tip = cr_fracture_get_piece_body(w, beam, 3);
    *tip_drop = cr_body_is_valid(w, tip) ? cr_to_double(tip0.y) - cr_to_double(cr_body_get_transform(w, tip).p.y) : 0;
    free(block);
    tf_kit_free(&k);
    return 1;
}

CR_TEST(fracture_stress_breaks_weak_cantilever_root) {
    /* the root bond carries the weight of three pieces: 3 x 15.6 kg x 9.81 = 460 N
     * on 0.0625 m^2, 7360 Pa */
    cr_fracture_view v;
    double drop = 0;
    ENSURE(cantilever(20000, 60, &v, &drop));
    ENSURE_MSG(v.whole && v.bonds_broken == 0, "strong beam broke %u bonds", v.bonds_broken);
    ENSURE(cantilever(5000, 60, &v, &drop));
    ENSURE_MSG(!v.whole && v.bonds_broken >= 1, "weak beam: %u bonds broken", v.bonds_broken);
    cr_test_printf("    weak beam: %u bonds broken, tip fell %.3f m\n", v.bonds_broken, drop);
    ENSURE(drop > 0.3);
}

/* A ball thrown at a wall held by its bottom row breaks bonds near the hit:
 * the pieces there fly on in the ball's direction, the bottom row stays. */
CR_TEST(fracture_ball_breaks_wall_near_impact) {
    static tf_kit k;
    const double size[3] = {0.25, 0.25, 0.2};
    ENSURE(tf_kit_make(&k, 4, 3, 1, size));
    void *block = NULL;
    cr_world *w = tf_world(&block, cr_v3(0, CR_R(-9.81), 0), 64);
    ENSURE(w != NULL && tf_kit_register(&k, w));
    cr_body_id wall, ball;
    ENSURE(tf_body(w, &k, CR_BODY_STATIC, cr_v3_zero(), &wall) == CR_OK);
    cr_fracture_def fd = cr_default_fracture_def();
    fd.first_piece_asset = k.first_piece_slot;
    fd.toughness = CR_R(2000);
    fd.damage_radius = CR_R(0.4);
    fd.anchor_min = cr_v3(CR_R(-1), CR_R(-1), CR_R(-1));
    fd.anchor_max = cr_v3(CR_R(2), CR_R(0.2), CR_R(1));
    ENSURE(cr_fracture_attach(w, wall, &fd) == CR_OK);
    cr_body_def bd = tf_ball_def(CR_R(0.1), cr_v3(CR_R(0.5), CR_R(0.625), CR_R(-0.6))); /* at the top row, between pieces 1 and 2 */
    bd.material.density = CR_R(8000);
    bd.linear_velocity = cr_v3(0, 0, CR_R(20));
    ENSURE(cr_body_create(w, &bd, &ball) == CR_OK);
    /* the wall is static: what it took from the ball goes on in the ball
     * and the pieces it frees (fracture_blow.c): the ball, which came at
     * 20 m/s, goes on through the hole, and ball + freed pieces carry the
     * momentum the ball brought (its gravity for the step added), to rounding */
    const double m_ball = cr_to_double(cr_body_get_mass(w, ball)), dt = 1.0 / 60.0;
    bool split = false;
    for (int s = 0; s < 40; ++s) {
        cr_vec3 v0 = cr_body_get_linear_velocity(w, ball);
        ENSURE(cr_world_step(w, CR_R(1.0 / 60.0)) == CR_OK);
        cr_fracture_view vv;
        ENSURE(cr_fracture_get(w, wall, &vv) == CR_OK);
        if (vv.pieces_spawned == 0 || split) continue;
        split = true;
        cr_vec3 v1 = cr_body_get_linear_velocity(w, ball);
        double before[3] = {m_ball * cr_to_double(v0.x), m_ball * (cr_to_double(v0.y) - 9.81 * dt), m_ball * cr_to_double(v0.z)};
        double after[3] = {m_ball * cr_to_double(v1.x), m_ball * cr_to_double(v1.y), m_ball * cr_to_double(v1.z)};
        double fastest = 0, ratio = 0; /* a piece's speed against its two-body elastic limit 2 m_s / (m_s + m_p) 20 m/s */
        for (uint32_t i = 0; i < 12; ++i) {
            cr_body_id pb = cr_fracture_get_piece_body(w, wall, i);
            if (cr_body_get_type(w, pb) != CR_BODY_DYNAMIC) continue;
            double mp = cr_to_double(cr_body_get_mass(w, pb));
            cr_vec3 u = cr_body_get_linear_velocity(w, pb);
            after[0] += mp * cr_to_double(u.x), after[1] += mp * cr_to_double(u.y), after[2] += mp * cr_to_double(u.z);
            double speed = cr_to_double(cr_v3_len(u));
            fastest = fmax(fastest, speed);
            ratio = fmax(ratio, speed / (2 * m_ball / (m_ball + mp) * 20.0));
        }
        cr_test_printf("    ball %.2f kg: velocity along the throw %.3f m/s before the split, %.3f after; fastest piece %.3f m/s "
                       "(%.2f of its elastic limit)\n",
                       m_ball, cr_to_double(v0.z), cr_to_double(v1.z), fastest, ratio);
        cr_test_printf("    ball + freed pieces: (%.6f %.6f %.6f) N s before, (%.6f %.6f %.6f) after\n", before[0], before[1],
                       before[2], after[0], after[1], after[2]);
        ENSURE_MSG(cr_to_double(v1.z) > 0, "the ball goes on through the hole");
        ENSURE_MSG(ratio <= 1, "no piece leaves faster than a free piece struck by the ball could");
        for (int c = 0; c < 3; ++c) ENSURE_NEAR(after[c], before[c], 1e-5 * before[2]);
    }
    ENSURE(split);
    cr_fracture_view v;
    ENSURE(cr_fracture_get(w, wall, &v) == CR_OK);
    cr_test_printf("    %u of %u bonds broken, %u pieces\n", v.bonds_broken, v.bond_count, v.pieces_spawned);
    ENSURE(!v.whole && v.bonds_broken > 0 && v.bonds_broken < v.bond_count);
    int flying = 0;
    for (int i = 0; i < 12; ++i) {
        cr_body_id pb = cr_fracture_get_piece_body(w, wall, (uint32_t)i);
        ENSURE(cr_body_is_valid(w, pb));
        int row = i / 4;
        if (row == 0) ENSURE_MSG(cr_body_get_type(w, pb) == CR_BODY_STATIC, "bottom piece %d moved", i);
        if (cr_body_get_type(w, pb) == CR_BODY_DYNAMIC) {
            ++flying;
            ENSURE_MSG(row == 2 || row == 1, "piece %d of row %d flew", i, row);
            cr_vec3 p = cr_body_get_transform(w, pb).p;
            ENSURE_MSG(cr_to_double(p.z) > 0.2, "piece %d flew the wrong way (z %.3f)", i, cr_to_double(p.z));
        }
    }
    ENSURE(flying > 0);
    free(block);
    tf_kit_free(&k);
}

/* Two balls strike a static wall in the same step and break it: they act
 * as one striker of their summed mass, the freed pieces take the two-body
 * impulse, and each ball gets back its share of the rest by the impulse it
 * gave (fracture_blow.c): both go on, and balls + pieces carry the momentum
 * the balls brought, to rounding. */
CR_TEST(fracture_two_strikers_share_the_blow) {
    static tf_kit k;
    const double size[3] = {0.25, 0.25, 0.2};
    ENSURE(tf_kit_make(&k, 4, 3, 1, size));
    void *block = NULL;
    cr_world *w = tf_world(&block, cr_v3(0, CR_R(-9.81), 0), 64);
    ENSURE(w != NULL && tf_kit_register(&k, w));
    cr_body_id wall, ball[2];
    ENSURE(tf_body(w, &k, CR_BODY_STATIC, cr_v3_zero(), &wall) == CR_OK);
    cr_fracture_def fd = cr_default_fracture_def();
    fd.first_piece_asset = k.first_piece_slot;
    fd.toughness = CR_R(2000);
    fd.damage_radius = CR_R(0.4);
    fd.anchor_min = cr_v3(CR_R(-1), CR_R(-1), CR_R(-1));
    fd.anchor_max = cr_v3(CR_R(2), CR_R(0.2), CR_R(1));
    ENSURE(cr_fracture_attach(w, wall, &fd) == CR_OK);
    for (int i = 0; i < 2; ++i) {
        cr_body_def bd = tf_ball_def(CR_R(0.1), cr_v3(i == 0 ? CR_R(0.375) : CR_R(0.875), CR_R(0.625), CR_R(-0.6))); /* top row, pieces 9 and 11 */
        bd.material.density = CR_R(i == 0 ? 8000 : 4000);
        bd.linear_velocity = cr_v3(0, 0, CR_R(15));
        ENSURE(cr_body_create(w, &bd, &ball[i]) == CR_OK);
    }
    const double dt = 1.0 / 60.0;
    double m[2];
    for (int i = 0; i < 2; ++i) m[i] = cr_to_double(cr_body_get_mass(w, ball[i]));
    bool split = false;
    for (int s = 0; s < 40 && !split; ++s) {
        cr_vec3 v0[2] = {cr_body_get_linear_velocity(w, ball[0]), cr_body_get_linear_velocity(w, ball[1])};
        ENSURE(cr_world_step(w, CR_R(1.0 / 60.0)) == CR_OK);
        cr_fracture_view vv;
        ENSURE(cr_fracture_get(w, wall, &vv) == CR_OK);
        if (vv.pieces_spawned == 0) continue;
        split = true;
        double before[3] = {0, 0, 0}, after[3] = {0, 0, 0}, fwd[2];
        for (int i = 0; i < 2; ++i) {
            cr_vec3 v1 = cr_body_get_linear_velocity(w, ball[i]);
            before[0] += m[i] * cr_to_double(v0[i].x), before[1] += m[i] * (cr_to_double(v0[i].y) - 9.81 * dt);
            before[2] += m[i] * cr_to_double(v0[i].z);
            after[0] += m[i] * cr_to_double(v1.x), after[1] += m[i] * cr_to_double(v1.y), after[2] += m[i] * cr_to_double(v1.z);
            fwd[i] = cr_to_double(v1.z);
        }
        double ratio = 0;
        for (uint32_t i = 0; i < 12; ++i) {
            cr_body_id pb = cr_fracture_get_piece_body(w, wall, i);
            if (cr_body_get_type(w, pb) != CR_BODY_DYNAMIC) continue;
            double mp = cr_to_double(cr_body_get_mass(w, pb));
            cr_vec3 u = cr_body_get_linear_velocity(w, pb);
            after[0] += mp * cr_to_double(u.x), after[1] += mp * cr_to_double(u.y), after[2] += mp * cr_to_double(u.z);
            ratio = fmax(ratio, cr_to_double(cr_v3_len(u)) / (2 * (m[0] + m[1]) / (m[0] + m[1] + mp) * 15.0));
        }
        cr_test_printf("    balls %.2f and %.2f kg at 15 m/s go on at %.3f and %.3f m/s; fastest piece %.2f of the elastic limit\n", m[0],
                       m[1], fwd[0], fwd[1], ratio);
        cr_test_printf("    balls + freed pieces: (%.6f %.6f %.6f) N s before, (%.6f %.6f %.6f) after\n", before[0], before[1],
                       before[2], after[0], after[1], after[2]);
        ENSURE_MSG(fwd[0] > 0 && fwd[1] > 0, "both balls go on through the wall");
        ENSURE_MSG(ratio <= 1, "no piece beats the elastic limit of the two balls as one striker");
        for (int c = 0; c < 3; ++c) ENSURE_NEAR(after[c], before[c], 1e-5 * before[2]);
    }
    ENSURE(split);
    free(block);
    tf_kit_free(&k);
}

/* Budgets defer, in a fixed order, and count: with room to find one body's
 * islands per step, the second of two bodies broken in the same step splits
 * one step later; with room for one impact's bonds per step, the second hit
 * waits in the queue and is applied the step after. */
CR_TEST(fracture_budgets_defer_and_count) {
    static tf_kit k;
    const double size[3] = {0.25, 0.25, 0.25};
    ENSURE(tf_kit_make(&k, 4, 1, 1, size));
    cr_world_def def = cr_default_world_def();
    def.body_capacity = 32;
    def.joint_capacity = 64;
    def.asset_capacity = TF_MAX + 8;
    def.gravity = cr_v3_zero();
    def.damage.command_capacity = 64;
    def.damage.fracture = cr_default_fracture_budget();
    def.damage.fracture.body_capacity = 2;
    def.damage.fracture.islands_per_step = 4; /* one bar is 4 pieces + 3 bonds */
    def.damage.fracture.bonds_per_step = 3;   /* one impact on one bar */
    size_t bytes = cr_world_memory_size(&def);
    void *block = aligned_alloc(CR_BLOCK_ALIGN, (bytes + 15) / 16 * 16);
    cr_world *w;
    ENSURE(cr_world_create(&def, block, bytes, &w) == CR_OK);
    ENSURE(tf_kit_register(&k, w));
    cr_body_id bar[2];
    cr_fracture_def fd = cr_default_fracture_def();
    fd.first_piece_asset = k.first_piece_slot;
    fd.damage_radius = CR_R(0.1);
    for (int i = 0; i < 2; ++i) {
        ENSURE(tf_body(w, &k, CR_BODY_DYNAMIC, cr_v3(0, CR_R(2 * i), 0), &bar[i]) == CR_OK);
        ENSURE(cr_fracture_attach(w, bar[i], &fd) == CR_OK);
    }
    uint32_t mid = bond_between(&k, 1, 2);
    for (int i = 0; i < 2; ++i)
        ENSURE(cr_fracture_apply_damage(w, bar[i], bond_world(w, bar[i], &k, mid), CR_R(1e6)) == CR_OK);
    cr_fracture_view v0, v1;
    /* step 1: bar 0's hit (3 bonds of work); bar 1's waits in the queue */
    ENSURE(cr_world_step(w, CR_R(1.0 / 60.0)) == CR_OK);
    cr_world_stats st = cr_world_get_stats(w);
    ENSURE(cr_fracture_get(w, bar[0], &v0) == CR_OK && cr_fracture_get(w, bar[1], &v1) == CR_OK);
    ENSURE_MSG(!v0.whole && v1.whole && v1.bonds_broken == 0 && st.fracture.waiting >= 1,
               "step 1: bar 0 split %d, bar 1 broken %u, waiting %u", !v0.whole, v1.bonds_broken, st.fracture.waiting);
    /* step 2: bar 1's hit is applied and it splits */
    ENSURE(cr_world_step(w, CR_R(1.0 / 60.0)) == CR_OK);
    ENSURE(cr_fracture_get(w, bar[1], &v1) == CR_OK);
    ENSURE(v1.bonds_broken == 1 && !v1.whole && v1.pieces_spawned == 4);
    ENSURE(cr_world_get_stats(w).fracture.waiting == 0);
    free(block);
    tf_kit_free(&k);
}

/* Two bars broken in the same step with room for one's islands: the second
 * splits a step later, counted as waiting meanwhile. */
CR_TEST(fracture_island_budget_waits_a_step) {
    static tf_kit k;
    const double size[3] = {0.25, 0.25, 0.25};
    ENSURE(tf_kit_make(&k, 4, 1, 1, size));
    cr_world_def def = cr_default_world_def();
    def.body_capacity = 32;
    def.joint_capacity = 64;
    def.asset_capacity = TF_MAX + 8;
    def.gravity = cr_v3_zero();
    def.damage.command_capacity = 64;
    def.damage.fracture = cr_default_fracture_budget();
    def.damage.fracture.body_capacity = 2;
    def.damage.fracture.islands_per_step = 7; /* one bar: 4 pieces + 3 bonds */
    size_t bytes = cr_world_memory_size(&def);
    void *block = aligned_alloc(CR_BLOCK_ALIGN, (bytes + 15) / 16 * 16);
    cr_world *w;
    ENSURE(cr_world_create(&def, block, bytes, &w) == CR_OK);
    ENSURE(tf_kit_register(&k, w));
    cr_body_id bar[2];
    cr_fracture_def fd = cr_default_fracture_def();
    fd.first_piece_asset = k.first_piece_slot;
    fd.damage_radius = CR_R(0.1);
    for (int i = 0; i < 2; ++i) {
        ENSURE(tf_body(w, &k, CR_BODY_DYNAMIC, cr_v3(0, CR_R(2 * i), 0), &bar[i]) == CR_OK);
        ENSURE(cr_fracture_attach(w, bar[i], &fd) == CR_OK);
    }
    uint32_t mid = bond_between(&k, 1, 2);
    for (int i = 0; i < 2; ++i)
        ENSURE(cr_fracture_apply_damage(w, bar[i], bond_world(w, bar[i], &k, mid), CR_R(1e6)) == CR_OK);
    cr_fracture_view v0, v1;
    ENSURE(cr_world_step(w, CR_R(1.0 / 60.0)) == CR_OK);
    ENSURE(cr_fracture_get(w, bar[0], &v0) == CR_OK && cr_fracture_get(w, bar[1], &v1) == CR_OK);
    ENSURE(!v0.whole && v1.whole && v1.bonds_broken == 1);
    ENSURE(cr_world_get_stats(w).fracture.waiting == 1);
    ENSURE(cr_world_step(w, CR_R(1.0 / 60.0)) == CR_OK);
    ENSURE(cr_fracture_get(w, bar[1], &v1) == CR_OK && !v1.whole && v1.pieces_spawned == 4);
    free(block);
    tf_kit_free(&k);
}

static double deepest(cr_world *w, cr_body_id b) {
    cr_body_mesh m;
    if (cr_body_get_mesh(w, b, &m) != CR_OK) return -1;
    double worst = 0;
    for (uint32_t i = 0; i < m.vertex_count; ++i) {
        double d = cr_to_double(cr_v3_len(cr_v3_sub(m.positions[i], m.rest_positions[i])));
        worst = d > worst ? d : worst;
    }
    return worst;
}

/* A dent made on a static piece (the wall split, the piece still holds to
 * the anchors) is on the piece's surface after it is cut loose: the moving
 * body that replaces it takes its dented corners and grid over, value for
 * value. */
CR_TEST(fracture_static_piece_keeps_its_dent_when_freed) {
    static tf_kit k;
    const double size[3] = {0.25, 0.25, 0.2};
    ENSURE(tf_kit_make(&k, 1, 3, 1, size)); /* a column of three: 0 bottom (anchored), 1, 2 */
    void *block = NULL;
    cr_world *w = tf_world(&block, cr_v3(0, CR_R(-9.81), 0), 64);
    ENSURE(w != NULL && tf_kit_register(&k, w));
    cr_body_id wall;
    ENSURE(tf_body(w, &k, CR_BODY_STATIC, cr_v3_zero(), &wall) == CR_OK);
    cr_dent_def dd = cr_default_dent_def();
    dd.threshold_speed = CR_R(1);
    dd.speed_scale = CR_R(0.004);
    dd.max_distance = CR_R(0.08);
    dd.blur = CR_R(0.03);
    ENSURE(cr_dent_attach(w, wall, &dd) == CR_OK);
    cr_fracture_def fd = cr_default_fracture_def();
    fd.first_piece_asset = k.first_piece_slot;
    fd.toughness = CR_R(1e6); /* the ball dents, it does not break */
    fd.damage_radius = CR_R(0.1);
    fd.anchor_min = cr_v3(CR_R(-1), CR_R(-1), CR_R(-1));
    fd.anchor_max = cr_v3(CR_R(1), CR_R(0.2), CR_R(1));
    ENSURE(cr_fracture_attach(w, wall, &fd) == CR_OK);
    const cr_transform wall_xf = cr_body_get_transform(w, wall); /* static: where its pieces stay */
    /* 1. the top piece cut off: the wall splits, pieces 0 and 1 stay static */
    uint32_t b12 = bond_between(&k, 1, 2), b01 = bond_between(&k, 0, 1);
    ENSURE(b12 != UINT32_MAX && b01 != UINT32_MAX);
    ENSURE(cr_fracture_apply_damage(w, wall, bond_world(w, wall, &k, b12), CR_R(1e6)) == CR_OK);
    ENSURE(cr_world_step(w, CR_R(1.0 / 60.0)) == CR_OK);
    cr_body_id p1 = cr_fracture_get_piece_body(w, wall, 1);
    ENSURE(cr_body_is_valid(w, p1) && cr_body_get_type(w, p1) == CR_BODY_STATIC);
    cr_body_id top = cr_fracture_get_piece_body(w, wall, 2);
    if (cr_body_is_valid(w, top)) cr_body_destroy(w, top); /* out of the way */
    /* 2. a steel ball dents the static piece 1 */
    cr_body_def bd = tf_ball_def(CR_R(0.1), cr_v3(CR_R(0.125), CR_R(0.375), CR_R(-0.4)));
    bd.material.density = CR_R(7800);
    bd.linear_velocity = cr_v3(0, 0, CR_R(10));
    cr_body_id ball;
    ENSURE(cr_body_create(w, &bd, &ball) == CR_OK);
    for (int s = 0; s < 20; ++s) ENSURE(cr_world_step(w, CR_R(1.0 / 60.0)) == CR_OK);
    cr_body_destroy(w, ball);
    ENSURE(cr_fracture_get_piece_body(w, wall, 1).index1 == p1.index1 && cr_body_get_type(w, p1) == CR_BODY_STATIC);
    double before = deepest(w, p1);
    cr_body_mesh m_before;
    ENSURE(cr_body_get_mesh(w, p1, &m_before) == CR_OK);
    uint32_t nv = m_before.vertex_count;
    cr_vec3 *saved = malloc(nv * sizeof *saved);
    ENSURE(saved != NULL);
    for (uint32_t i = 0; i < nv; ++i) saved[i] = cr_v3_sub(m_before.positions[i], m_before.rest_positions[i]);
    cr_test_printf("    the static piece's dent: %.4f m\n", before);
    ENSURE_MSG(before > 0.01, "the ball dented the static piece");
    /* 3. its last bond broken (the blow given through the anchored piece 0's
     * body, the whole is gone): cut off from the anchor, it becomes a moving body */
    cr_body_id p0 = cr_fracture_get_piece_body(w, wall, 0);
    ENSURE(cr_fracture_apply_damage(w, p0, cr_transform_point(wall_xf, k.bonds[b01].centroid), CR_R(1e6)) == CR_OK);
    ENSURE(cr_world_step(w, CR_R(1.0 / 60.0)) == CR_OK);
    cr_body_id freed = cr_fracture_get_piece_body(w, wall, 1);
    ENSURE(cr_body_is_valid(w, freed) && cr_body_get_type(w, freed) == CR_BODY_DYNAMIC);
    ENSURE(!cr_body_is_valid(w, p1)); /* the static body is gone */
    double after = deepest(w, freed);
    cr_test_printf("    the freed piece's dent: %.4f m\n", after);
    cr_body_mesh m_after;
    ENSURE(cr_body_get_mesh(w, freed, &m_after) == CR_OK && m_after.vertex_count == nv);
    for (uint32_t i = 0; i < nv; ++i)
        ENSURE_MSG(cr_v3_len_sq(cr_v3_sub(cr_v3_sub(m_after.positions[i], m_after.rest_positions[i]), saved[i])) == 0,
                   "corner %u moved by the replacement", i);
    ENSURE(after == before);
    free(saved);
    free(block);
    tf_kit_free(&k);
}
