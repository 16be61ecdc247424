/* test_solver_rest.c — bodies rest where they land: large flat faces with
 * many sample points stay on the surface (contact reduction keeps the support,
 * docs/solver.md), a flat landing with restitution 0 does not bounce or spin,
 * and a spinning body does not swing into the ground within a step. The slabs
 * are meshes the project generates (gen_mesh.c), cooked here: nobody tuned
 * the solver on them. */
#include "test_solver_util.h"
#include "crumple/asset.h"
#include "cook.h"
#include "gen_mesh.h"
#include "obj.h"
#include <stdio.h>

typedef struct tr_asset {
    cr_cook_result cooked;
    void *block;
    cr_asset view;
} tr_asset;

static bool tr_box_asset(tr_asset *a, double sx, double sy, double sz, int cells) {
    memset(a, 0, sizeof *a);
    cr_gen_box g = cr_gen_default_box();
    g.size[0] = sx; g.size[1] = sy; g.size[2] = sz; g.cells = cells;
    size_t len;
    char *text = cr_gen_box_obj(&g, &len);
    if (text == NULL) return false;
    cr_obj obj;
    char err[256];
    int bad = cr_obj_parse("slab.obj", text, len, &obj, err, sizeof err);
    free(text);
    if (bad) return false;
    cr_cook_options opt = cr_cook_default_options();
    opt.quiet = true;
    bad = cr_cook_obj("slab", &obj, &opt, &a->cooked, err, sizeof err);
    cr_obj_free(&obj);
    if (bad) return false;
    size_t need = cr_asset_memory_size(a->cooked.bytes, a->cooked.size);
    a->block = aligned_alloc(CR_BLOCK_ALIGN, (need + 15) / 16 * 16 + 16);
    cr_asset_error e;
    return need != 0 && a->block != NULL && cr_asset_load(a->cooked.bytes, a->cooked.size, a->block, need, &a->view, &e) == CR_OK;
}


/* The solver's stated allowance for a resting body's depth (docs/solver.md). */
#define TR_ALLOWANCE 0.002

/* A mesh slab sx x sz, t thick, resting flat on a plane or on a static box
 * (turned by yaw about y), dropped from 2 cm: its flat bottom must rest
 * within the allowance, with nothing counted as overflow. */
static bool slab_rests(tr_asset *a, double t, bool on_box, double yaw, double *depth, uint32_t *overflow) {
    cr_world_def def = cr_default_world_def();
    def.sleep = false;
    cr_world *w = ts_world(&def);
    uint32_t slot;
    if (w == NULL || cr_world_add_asset(w, &a->view, &slot) != CR_OK) return false;
    cr_material m = ts_material(0, 0.5);
    if (on_box) {
        cr_body_def gd = cr_default_body_def();
        gd.type = CR_BODY_STATIC;
        gd.shape.type = CR_SHAPE_BOX;
        gd.shape.half_extents = ts_v(4, 0.5, 4);
        gd.position = ts_v(0, -0.5, 0);
        gd.material = m;
        cr_body_id gid;
        if (cr_body_create(w, &gd, &gid) != CR_OK) return false;
    } else {
        ts_ground(w, m);
    }
    /* the cooker puts the thin axis on the body's z: lay it along y */
    cr_quat lay = cr_quat_from_axis_angle(cr_v3(CR_R(1), 0, 0), CR_R(1.5707963));
    cr_quat turn = cr_quat_from_axis_angle(cr_v3(0, CR_R(1), 0), cr_from_float((float)yaw));
    cr_body_def bd = cr_default_body_def();
    bd.shape.type = CR_SHAPE_MESH;
    bd.shape.asset = slot;
    bd.orientation = cr_quat_mul(turn, lay);
    bd.position = ts_v(0.1, 0.5 * t + 0.02, -0.05);
    bd.material = m;
    cr_body_id id;
    if (cr_body_create(w, &bd, &id) != CR_OK) return false;
    *depth = 0;
    *overflow = 0;
    for (int i = 0; i < 240; ++i) {
        cr_world_step(w, TS_DT);
        *overflow += cr_world_get_stats(w).stage[CR_STAGE_narrowphase].overflow;
        double d = 0.5 * t - ts_d(ts_pos(w, id).y);
        if (i >= 60 && d > *depth) *depth = d;
    }
    ts_free(w);
    return true;
}

CR_TEST(solver_large_flat_face_rests_within_the_allowance) {
    static const struct { double sx, t, sz; int cells; } slabs[] = {{2, 0.1, 2, 40}, {3, 0.08, 1.2, 50}};
    for (int k = 0; k < 2; ++k) {
        tr_asset a;
        ENSURE(tr_box_asset(&a, slabs[k].sx, slabs[k].t, slabs[k].sz, slabs[k].cells));
        /* the slab has far more bottom samples than points_per_pair keeps */
        ENSURE(a.view.sample_count > 4 * cr_default_world_def().points_per_pair);
        ENSURE(ts_d(a.view.bounds_max.z) < 0.6 * slabs[k].t);
        for (int on_box = 0; on_box < 2; ++on_box) {
            double depth;
            uint32_t overflow;
            ENSURE(slab_rests(&a, slabs[k].t, on_box != 0, 0.37 * (k + on_box), &depth, &overflow));
            cr_test_printf("    slab %g x %g x %g m (%u samples) on a %s: deepest rest %.2f mm, overflow %u\n", slabs[k].sx,
                           slabs[k].t, slabs[k].sz, a.view.sample_count, on_box ? "box" : "plane", depth * 1e3, overflow);
            ENSURE(depth <= TR_ALLOWANCE);
            ENSURE(depth >= -TR_ALLOWANCE); /* and not hovering */
            ENSURE(overflow == 0);
        }
        cr_cook_result_free(&a.cooked);
        free(a.block);
    }
}

static double kinetic_energy(cr_world *w, cr_body_id id) {
    cr_vec3 v = cr_body_get_linear_velocity(w, id);
    cr_vec3 wl = cr_quat_inv_rotate(cr_body_get_transform(w, id).q, cr_body_get_angular_velocity(w, id));
    cr_vec3 in = cr_body_get_inertia(w, id);
    double m = ts_d(cr_body_get_mass(w, id));
    return 0.5 * m * (ts_d(v.x) * ts_d(v.x) + ts_d(v.y) * ts_d(v.y) + ts_d(v.z) * ts_d(v.z)) +
           0.5 * (ts_d(in.x) * ts_d(wl.x) * ts_d(wl.x) + ts_d(in.y) * ts_d(wl.y) * ts_d(wl.y) +
                  ts_d(in.z) * ts_d(wl.z) * ts_d(wl.z));
}

/* Restitution 0, mu 0.5: bodies dropped flat from 1 m (4.4 m/s) onto a plane
 * or a box. After the impact the body must keep < 2 % of its kinetic energy
 * (the most it has in the half second after the step it reaches the surface), and the normal impact must not
 * turn into spin or sliding. */
CR_TEST(solver_restitution_zero_flat_landing_stops_dead) {
    tr_asset a;
    ENSURE(tr_box_asset(&a, 1.2, 0.3, 0.8, 24));
    static const char *names[] = {"mesh 1.2 x 0.3 x 0.8", "cube 1 m", "box slab 2 x 0.1 x 1.4", "box 0.3 x 0.6 x 0.4"};
    for (int shape = 0; shape < 4; ++shape) {
        for (int on_box = 0; on_box < 2; ++on_box) {
            cr_world_def def = cr_default_world_def();
            def.sleep = false;
            cr_world *w = ts_world(&def);
            uint32_t slot;
            ENSURE(w != NULL && cr_world_add_asset(w, &a.view, &slot) == CR_OK);
            cr_material m = ts_material(0, 0.5);
            if (on_box) {
                cr_body_def gd = cr_default_body_def();
                gd.type = CR_BODY_STATIC;
                gd.shape.type = CR_SHAPE_BOX;
                gd.shape.half_extents = ts_v(5, 0.5, 5);
                gd.position = ts_v(0, -0.5, 0);
                gd.material = m;
                cr_body_id gid;
                ENSURE(cr_body_create(w, &gd, &gid) == CR_OK);
            } else {
                ts_ground(w, m);
            }
            cr_body_def bd = cr_default_body_def();
            double h;
            if (shape == 0) {
                bd.shape.type = CR_SHAPE_MESH;
                bd.shape.asset = slot;
                bd.orientation = cr_quat_from_axis_angle(cr_v3(CR_R(1), 0, 0), CR_R(1.5707963));
                h = 0.15;
            } else {
                static const double half[3][3] = {{0.5, 0.5, 0.5}, {1, 0.05, 0.7}, {0.15, 0.3, 0.2}};
                bd.shape.type = CR_SHAPE_BOX;
                bd.shape.half_extents = ts_v(half[shape - 1][0], half[shape - 1][1], half[shape - 1][2]);
                bd.orientation = cr_quat_from_axis_angle(cr_v3(0, CR_R(1), 0), cr_from_float(0.3f * (float)shape));
                h = half[shape - 1][1];
            }
            bd.position = ts_v(0.2, h + 1.0, -0.1);
            bd.material = m;
            cr_body_id id;
            ENSURE(cr_body_create(w, &bd, &id) == CR_OK);
            double before = 0, kept = 0, spin = 0, slide = 0;
            int impact = -1;
            for (int i = 0; i < 120; ++i) {
                double ke0 = kinetic_energy(w, id);
                double vy0 = ts_d(cr_body_get_linear_velocity(w, id).y);
                ENSURE(cr_world_step(w, TS_DT) == CR_OK);
                cr_vec3 v = cr_body_get_linear_velocity(w, id), wv = cr_body_get_angular_velocity(w, id);
                if (impact < 0 && ts_d(v.y) > vy0 + 0.5) {
                    impact = i;
                    before = ke0;
                }
                /* the impact step may end just on the surface, still moving: from the next one on */
                if (impact < 0 || i == impact || i > impact + 30) continue;
                double ke = kinetic_energy(w, id);
                if (ke > kept) kept = ke;
                double sp = sqrt(ts_d(wv.x) * ts_d(wv.x) + ts_d(wv.y) * ts_d(wv.y) + ts_d(wv.z) * ts_d(wv.z));
                double sl = sqrt(ts_d(v.x) * ts_d(v.x) + ts_d(v.z) * ts_d(v.z));
                if (sp > spin) spin = sp;
                if (sl > slide) slide = sl;
            }
            ENSURE(impact > 0);
            cr_test_printf("    %-22s on a %s, e = 0: keeps %.3f %% of %.0f J; spin %.4f rad/s, slide %.4f m/s\n",
                           names[shape], on_box ? "box  " : "plane", 100 * kept / before, before, spin, slide);
            ENSURE(kept < 0.02 * before);
            ENSURE(spin < 0.1);
            ENSURE(slide < 0.05);
            ts_free(w);
        }
    }
    cr_cook_result_free(&a.cooked);
    free(a.block);
}

/* Lowest point (m) of a box body: its corners in the world. */
static double box_lowest(cr_world *w, cr_body_id id, cr_vec3 half) {
    cr_transform t = cr_body_get_transform(w, id);
    double lo = 1e9;
    for (int c = 0; c < 8; ++c) {
        cr_vec3 p = cr_v3((c & 1) ? half.x : -half.x, (c & 2) ? half.y : -half.y, (c & 4) ? half.z : -half.z);
        double y = ts_d(cr_transform_point(t, p).y);
        if (y < lo) lo = y;
    }
    return lo;
}

/* Lowest point (m) of a mesh body: its sample points in the world. */
static double mesh_lowest(cr_world *w, cr_body_id id, const cr_asset *a) {
    cr_transform t = cr_body_get_transform(w, id);
    const cr_vec3 *pts = a->samples != NULL ? a->samples : a->positions;
    uint32_t n = a->samples != NULL ? a->sample_count : a->vertex_count;
    double lo = 1e9;
    for (uint32_t i = 0; i < n; ++i) {
        double y = ts_d(cr_transform_point(t, pts[i]).y);
        if (y < lo) lo = y;
    }
    return lo;
}

/* Bodies that land at 4 to 10 m/s spinning at 5 to 20 rad/s about a tilted
 * horizontal axis, from heights that put the landing at different phases of
 * the spin: a bar, a cube and a mesh slab, restitution 0 and 0.5, on a plane
 * and on a box. No corner or sample may go deeper than the allowance at any
 * step (the candidates cover |v| + |w| r of the step; the impact-time
 * correction is not applied where spin makes the approach, docs/solver.md). */
CR_TEST(solver_spinning_landing_does_not_swing_into_the_ground) {
    tr_asset a;
    ENSURE(tr_box_asset(&a, 0.9, 0.12, 0.4, 18));
    double worst = 0, worst_v = 0, worst_w = 0;
    int cases = 0;
    for (int k = 0; k < 36; ++k) {
        cr_world_def def = cr_default_world_def();
        def.sleep = false;
        cr_world *w = ts_world(&def);
        uint32_t slot;
        ENSURE(w != NULL && cr_world_add_asset(w, &a.view, &slot) == CR_OK);
        cr_material m = ts_material((k / 3) % 2 ? 0.5 : 0, 0.5);
        if ((k / 6) % 2) {
            cr_body_def gd = cr_default_body_def();
            gd.type = CR_BODY_STATIC;
            gd.shape.type = CR_SHAPE_BOX;
            gd.shape.half_extents = ts_v(6, 0.5, 6);
            gd.position = ts_v(0, -0.5, 0);
            gd.material = m;
            cr_body_id gid;
            ENSURE(cr_body_create(w, &gd, &gid) == CR_OK);
        } else {
            ts_ground(w, m);
        }
        int shape = k % 3;
        cr_vec3 half = shape == 0 ? ts_v(0.6, 0.1, 0.25) : ts_v(0.15, 0.15, 0.15);
        cr_vec3 p0 = ts_v(0, 1.2 + 0.017 * k, 0);
        cr_body_id id;
        if (shape == 2) {
            cr_body_def bd = cr_default_body_def();
            bd.shape.type = CR_SHAPE_MESH;
            bd.shape.asset = slot;
            bd.position = p0;
            bd.material = m;
            ENSURE(cr_body_create(w, &bd, &id) == CR_OK);
        } else {
            id = ts_box(w, p0, cr_quat_identity(), half, m);
        }
        double t = k / 35.0;
        double vy = -(4 + 6 * t), spin = 5 + 15 * t;
        cr_body_set_velocity(w, id, ts_v(0.3, vy, 0), ts_v(spin * 0.8, 0, spin * 0.6));
        double deepest = 0;
        for (int i = 0; i < 60; ++i) {
            ENSURE(cr_world_step(w, TS_DT) == CR_OK);
            double d = -(shape == 2 ? mesh_lowest(w, id, &a.view) : box_lowest(w, id, half));
            if (d > deepest) deepest = d;
        }
        if (deepest > worst) {
            worst = deepest;
            worst_v = -vy;
            worst_w = spin;
        }
        ++cases;
        ts_free(w);
    }
    cr_test_printf("    %d landings at 4-10 m/s, 5-20 rad/s: deepest %.2f mm (at %.1f m/s, %.1f rad/s)\n", cases,
                   worst * 1e3, worst_v, worst_w);
    ENSURE(worst <= TR_ALLOWANCE);
    cr_cook_result_free(&a.cooked);
    free(a.block);
}

/* Thin things on edges: a 2 cm square rod, 1.3 m long (its own edge samples
 * sit 0.22 m either side of its middle, none on the ridge), dropped across
 * the ridge of a box turned 45 degrees (a roof), balanced on it: it must come
 * to rest on the ridge, not fall through the box. Roof boxes of 1 m and 3 m. */
CR_TEST(solver_thin_rod_rests_across_a_box_ridge) {
    for (int k = 0; k < 2; ++k) {
        cr_world_def def = cr_default_world_def();
        def.sleep = false;
        cr_world *w = ts_world(&def);
        ENSURE(w != NULL);
        cr_material m = ts_material(0, 0.8);
        ts_ground(w, m);
        double half = k ? 1.5 : 0.5, ridge = half * sqrt(2.0) + 0.3;
        cr_body_def gd = cr_default_body_def();
        gd.type = CR_BODY_STATIC;
        gd.shape.type = CR_SHAPE_BOX;
        gd.shape.half_extents = ts_v(half, half, half);
        gd.position = ts_v(0, 0.3, 0);
        gd.orientation = cr_quat_from_axis_angle(cr_v3(0, 0, CR_R(1)), CR_R(0.78539816));
        gd.material = m;
        cr_body_id roof;
        ENSURE(cr_body_create(w, &gd, &roof) == CR_OK);
        /* the ridge runs along z at x = 0; the rod lies along x, its middle on it */
        cr_body_id rod = ts_box(w, ts_v(0, ridge + 0.05, 0.1), cr_quat_identity(), ts_v(0.65, 0.01, 0.01), m);
        double lowest = 1e9;
        for (int i = 0; i < 120; ++i) {
            ENSURE(cr_world_step(w, TS_DT) == CR_OK);
            double y = ts_d(ts_pos(w, rod).y);
            if (y < lowest) lowest = y;
        }
        double y = ts_d(ts_pos(w, rod).y);
        cr_test_printf("    2 cm rod across the ridge of a %.0f m box (ridge at %.3f m): rod centre at %.3f m after 2 s (lowest %.3f)\n",
                       2 * half, ridge, y, lowest);
        /* resting on the ridge: its centre 1 cm above it, within the allowance */
        ENSURE(fabs(y - (ridge + 0.01)) < TR_ALLOWANCE + 0.001);
        ENSURE(lowest > ridge + 0.01 - TR_ALLOWANCE - 0.001);
        ts_free(w);
    }
}

/* Fast bodies against a thin wall: a 0.3 m cube, a 0.3 m ball and a 0.3 m
 * mesh block thrown at 10 to 20 m/s (up to 33 cm a step at 60 Hz, more than
 * their size plus the wall's), two thirds of them spinning at 7-10 rad/s,
 * restitution 0 and 0.5, at a static wall 10 cm thick, from distances that
 * put the wall at every phase of a step. None may end in or beyond the wall.
 * (Candidates are kept as far out as the step's motion reaches, and the
 * depth is predicted along the motion: docs/solver.md.) */
CR_TEST(solver_fast_bodies_do_not_pass_a_thin_wall) {
    tr_asset a;
    ENSURE(tr_box_asset(&a, 0.3, 0.3, 0.3, 12));
    int through = 0, cases = 0;
    double deepest = 0;
    for (int shape = 0; shape < 3; ++shape) {
        for (int k = 0; k < 12; ++k) {
            cr_world_def def = cr_default_world_def();
            def.gravity = cr_v3_zero();
            def.sleep = false;
            cr_world *w = ts_world(&def);
            uint32_t slot;
            ENSURE(w != NULL && cr_world_add_asset(w, &a.view, &slot) == CR_OK);
            cr_material m = ts_material(k % 2 ? 0.5 : 0, 0.5);
            cr_body_def gd = cr_default_body_def();
            gd.type = CR_BODY_STATIC;
            gd.shape.type = CR_SHAPE_BOX;
            gd.shape.half_extents = ts_v(0.05, 1, 1);
            gd.position = ts_v(0, 1, 0);
            gd.material = m;
            cr_body_id wall;
            ENSURE(cr_body_create(w, &gd, &wall) == CR_OK);
            double speed = 10 + 10 * k / 11.0, start = -1.0 - 0.029 * k;
            cr_body_id id;
            if (shape == 0) {
                id = ts_box(w, ts_v(start, 1, 0), cr_quat_from_axis_angle(cr_v3(CR_R(0.6), 0, CR_R(0.8)), CR_R(0.3)),
                            ts_v(0.15, 0.15, 0.15), m);
            } else if (shape == 1) {
                id = ts_sphere(w, ts_v(start, 1, 0), 0.15, m);
            } else {
                cr_body_def bd = cr_default_body_def();
                bd.shape.type = CR_SHAPE_MESH;
                bd.shape.asset = slot;
                bd.position = ts_v(start, 1, 0);
                bd.material = m;
                ENSURE(cr_body_create(w, &bd, &id) == CR_OK);
            }
            ENSURE(cr_body_set_velocity(w, id, ts_v(speed, 0, 0), k % 3 ? ts_v(0, 4.0 * (k % 3), 6.0) : cr_v3_zero()) == CR_OK);
            double far = -1e9;
            for (int i = 0; i < 30; ++i) {
                ENSURE(cr_world_step(w, TS_DT) == CR_OK);
                double x = ts_d(ts_pos(w, id).x);
                if (x > far) far = x;
            }
            /* the centre may not pass the wall's near face (x = -0.05) by more than the body's half size */
            double depth = far - (-0.05 - 0.15);
            if (depth > deepest) deepest = depth;
            if (far > 0) ++through;
            ++cases;
            ts_free(w);
        }
    }
    cr_test_printf("    %d throws at 10-20 m/s at a 10 cm wall: %d through, deepest reach into the wall %.1f mm\n", cases,
                   through, deepest * 1e3);
    ENSURE(through == 0);
    ENSURE(deepest < 0.05); /* never half way into the wall */
    cr_cook_result_free(&a.cooked);
    free(a.block);
}

/* Overlaps are pushed out by moving the bodies, not by giving them speed
 * (push_out.c). A box and a ball made 4 cm deep in the ground, and a box
 * 4 cm deep in a resting box, come out to within the slop in 1 s without
 * being launched: their upward speed never exceeds 1 cm/s. When the push
 * was a contact velocity it stayed in the bodies as momentum (0.2 of the
 * excess per step: 21 cm/s at 3.5 cm past the slop). */
CR_TEST(solver_overlap_is_pushed_out_without_launching) {
    cr_world_def def = cr_default_world_def();
    def.sleep = false;
    cr_world *w = ts_world(&def);
    ENSURE(w != NULL);
    cr_material m = ts_material(0, 0.5);
    ts_ground(w, m);
    cr_body_id box = ts_box(w, ts_v(0, 0.5 - 0.04, 0), cr_quat_identity(), ts_v(0.5, 0.5, 0.5), m);
    cr_body_id ball = ts_sphere(w, ts_v(3, 0.4 - 0.04, 0), 0.4, m);
    cr_body_id low = ts_box(w, ts_v(-3, 0.5, 0), cr_quat_identity(), ts_v(0.5, 0.5, 0.5), m);
    cr_body_id high = ts_box(w, ts_v(-3, 1.5 - 0.04, 0), cr_quat_identity(), ts_v(0.4, 0.5, 0.4), m);
    double fastest = 0;
    for (int i = 0; i < 60; ++i) {
        ENSURE(cr_world_step(w, TS_DT) == CR_OK);
        cr_body_id ids[4] = {box, ball, low, high};
        for (int k = 0; k < 4; ++k) {
            double vy = ts_d(cr_body_get_linear_velocity(w, ids[k]).y);
            if (vy > fastest) fastest = vy;
        }
    }
    double box_depth = 0.5 - ts_d(ts_pos(w, box).y), ball_depth = 0.4 - ts_d(ts_pos(w, ball).y);
    double stack_depth = (ts_d(ts_pos(w, low).y) + 1.0) - ts_d(ts_pos(w, high).y);
    cr_test_printf("    4 cm deep, after 1 s: box %.2f mm, ball %.2f mm, box on box %.2f mm deep; fastest upward %.4f m/s\n",
                   box_depth * 1000, ball_depth * 1000, stack_depth * 1000, fastest);
    ENSURE(box_depth < 0.006 && ball_depth < 0.006 && stack_depth < 0.006);
    ENSURE(fastest < 0.01);
    ts_free(w);
}
