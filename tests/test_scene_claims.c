/* test_scene_claims.c — each shipped scene shows what it claims (issue 4).
 *
 * The scenes in data/scenes/ are run exactly as `crumple run` runs them
 * (cr_scene_load, cr_scene_build, cr_scene_step per frame) and their claims
 * are measured frame by frame: a cube on an incline that must not bounce or
 * creep, a stack that must stand, a pile that must neither sink nor explode,
 * friction that holds iff tan(angle) <= mu, rolling friction that stops a
 * ball, and so on. Every number a claim depends on is printed, so a failing
 * run says how far off it was. Both scalar modes run the same claims.
 */
#include "test_scene_util.h"
#include "stb_ds.h"
#include "platform.h"
#include "gen_mesh.h"
#include "crumple/asset.h"

#include <string.h>

typedef struct dvec {
    double x, y, z;
} dvec;

static dvec pos(const scene_run *r, cr_body_id id) {
    cr_vec3 p = cr_body_get_transform(r->w, id).p;
    dvec d = {cr_to_double(p.x), cr_to_double(p.y), cr_to_double(p.z)};
    return d;
}

static dvec vel(const scene_run *r, cr_body_id id) {
    cr_vec3 v = cr_body_get_linear_velocity(r->w, id);
    dvec d = {cr_to_double(v.x), cr_to_double(v.y), cr_to_double(v.z)};
    return d;
}

static double dlen(dvec a) { return sqrt(a.x * a.x + a.y * a.y + a.z * a.z); }
static dvec dsub(dvec a, dvec b) {
    dvec d = {a.x - b.x, a.y - b.y, a.z - b.z};
    return d;
}
static double ddot(dvec a, dvec b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

/* Lowest world y of an analytic body (sphere or box), m. */
static double lowest_y(const scene_run *r, cr_body_id id) {
    cr_shape_def sh = cr_body_get_shape(r->w, id);
    cr_transform t = cr_body_get_transform(r->w, id);
    double y = cr_to_double(t.p.y);
    if (sh.type == CR_SHAPE_SPHERE) return y - cr_to_double(sh.radius);
    cr_mat3 m = cr_mat3_from_quat(t.q);
    /* the box's vertical half extent: sum over its axes of |axis.y| h */
    double ext = fabs(cr_to_double(m.cx.y)) * cr_to_double(sh.half_extents.x) +
                 fabs(cr_to_double(m.cy.y)) * cr_to_double(sh.half_extents.y) +
                 fabs(cr_to_double(m.cz.y)) * cr_to_double(sh.half_extents.z);
    return y - ext;
}

CR_TEST(scene_incline_cube_neither_bounces_nor_creeps) {
    scene_run r;
    ENSURE(open_scene("incline", &r) == 0);
    cr_body_id cube = body(&r, "cube");
    const double deg = 3.14159265358979 / 6.0;
    dvec n = {-sin(deg), cos(deg), 0}, t = {cos(deg), sin(deg), 0};
    dvec p0 = pos(&r, cube);
    double h0 = ddot(p0, n), rise = 0, slide = 0;
    for (int32_t f = 0; f < 600; ++f) {
        ENSURE(step(&r, f) == 0);
        dvec p = pos(&r, cube);
        rise = fmax(rise, ddot(p, n) - h0);
        slide = fmax(slide, fabs(ddot(dsub(p, p0), t)));
    }
    cr_test_printf("  10 s on a 30 deg incline, e = 1, mu = 1: rise %.3g m, slide %.3g m\n", rise, slide);
    ENSURE(rise < 1e-4);
    ENSURE(slide < 1e-3);
    close_scene(&r);
}

CR_TEST(scene_stack_of_ten_stands) {
    scene_run r;
    ENSURE(open_scene("stack", &r) == 0);
    dvec p0[10];
    cr_body_id cube[10];
    for (int i = 0; i < 10; ++i) {
        char name[32];
        snprintf(name, sizeof name, "cube.%d", i);
        cube[i] = body(&r, name);
        ENSURE(cr_body_is_valid(r.w, cube[i]));
        p0[i] = pos(&r, cube[i]);
    }
    for (int32_t f = 0; f < 600; ++f) ENSURE(step(&r, f) == 0);
    double worst = 0;
    for (int i = 0; i < 10; ++i) {
        dvec d = dsub(pos(&r, cube[i]), p0[i]);
        worst = fmax(worst, dlen(d));
        /* still standing: every cube over the one below, in order */
        ENSURE(sqrt(d.x * d.x + d.z * d.z) < 0.05);
        ENSURE(fabs(d.y) < 0.05);
    }
    double top = dlen(dsub(pos(&r, cube[9]), p0[9]));
    cr_test_printf("  10 cubes, mu 0.5, 10 s: top cube drift %.3g m, largest drift %.3g m (Bullet 3.24: 0.48 m)\n", top,
                   worst);
    ENSURE(top < 0.01);
    close_scene(&r);
}

CR_TEST(scene_pile_neither_sinks_nor_explodes) {
    scene_run r;
    ENSURE(open_scene("pile", &r) == 0);
    cr_body_id ids[1001];
    uint32_t n = cr_world_get_body_ids(r.w, ids, 1001);
    ENSURE(n == 1001); /* the ground and 1000 bodies */
    double start_top = 0, pe0 = 0;
    for (uint32_t i = 1; i < n; ++i) {
        start_top = fmax(start_top, pos(&r, ids[i]).y);
        pe0 += cr_to_double(cr_body_get_mass(r.w, ids[i])) * 9.81 * lowest_y(&r, ids[i]);
    }
    /* falling from start_top, no body can honestly move faster than this */
    double vmax_allowed = 1.1 * sqrt(2 * 9.81 * start_top);
    /* spread is reported, not bounded: a ball rolling off the heap is not an explosion */
    double lowest = 1e9, lowest_centre = 1e9, highest = 0, fastest = 0, widest = 0;
    const int32_t frames = 600;
    for (int32_t f = 0; f < frames; ++f) {
        ENSURE(step(&r, f) == 0);
        if (f % 10 != 9) continue;
        for (uint32_t i = 1; i < n; ++i) {
            dvec p = pos(&r, ids[i]), v = vel(&r, ids[i]);
            ENSURE_MSG(isfinite(p.x) && isfinite(p.y) && isfinite(p.z) && isfinite(dlen(v)), "body %u is not finite", i);
            lowest = fmin(lowest, lowest_y(&r, ids[i]));
            lowest_centre = fmin(lowest_centre, p.y);
            highest = fmax(highest, p.y);
            fastest = fmax(fastest, dlen(v));
            widest = fmax(widest, fmax(fabs(p.x), fabs(p.z)));
        }
    }
    double ke = 0, resting_lowest = 1e9;
    for (uint32_t i = 1; i < n; ++i) {
        double v = dlen(vel(&r, ids[i]));
        ke += 0.5 * cr_to_double(cr_body_get_mass(r.w, ids[i])) * v * v;
        resting_lowest = fmin(resting_lowest, lowest_y(&r, ids[i]));
    }
    cr_test_printf("  1000 bodies, %d frames: deepest point during impacts %.3g m, lowest centre %.3g m, lowest point at "
                   "rest %.3g m, highest centre %.3g m (start %.3g), fastest %.3g m/s (free fall %.3g), spread %.3g m, "
                   "kinetic energy left %.2g%% of the drop's\n",
                   frames, lowest, lowest_centre, resting_lowest, highest, start_top, fastest, vmax_allowed / 1.1, widest,
                   100.0 * ke / pe0);
    /* nothing through the ground: no centre ever below it (an impact at
     * 12 m/s may dip a corner in for a frame), and at rest a sliver at most */
    ENSURE(lowest_centre > 0.2);
    ENSURE(resting_lowest > -0.05);
    ENSURE(highest <= start_top + 1e-3); /* nothing thrown upwards */
    ENSURE(fastest < vmax_allowed);      /* no energy from nowhere */
    ENSURE(ke < 0.01 * pe0);             /* the pile has come (nearly) to rest */
    close_scene(&r);
}

CR_TEST(scene_friction_ramp_slides_iff_tan_exceeds_mu) {
    scene_run r;
    ENSURE(open_scene("friction_ramp", &r) == 0);
    const int angles[4] = {20, 25, 30, 35};
    cr_body_id b[4];
    dvec p0[4];
    for (int k = 0; k < 4; ++k) {
        char name[32];
        snprintf(name, sizeof name, "block%d", angles[k]);
        b[k] = body(&r, name);
        ENSURE(cr_body_is_valid(r.w, b[k]));
        p0[k] = pos(&r, b[k]);
    }
    for (int32_t f = 0; f < 120; ++f) ENSURE(step(&r, f) == 0);
    for (int k = 0; k < 4; ++k) {
        double a = angles[k] * 3.14159265358979 / 180.0;
        dvec down = {-cos(a), -sin(a), 0};
        double s = ddot(dsub(pos(&r, b[k]), p0[k]), down);
        /* sliding: s = g (sin a - mu cos a) t^2 / 2 over t = 2 s */
        double expect = fmax(0.0, 9.81 * (sin(a) - 0.5 * cos(a)) * 2.0);
        cr_test_printf("  %d deg (tan %.3f vs mu 0.5): moved %.4f m down the slope (Coulomb: %.4f m)\n", angles[k], tan(a),
                       s, expect);
        if (tan(a) <= 0.5) {
            ENSURE(fabs(s) < 0.01);
        } else {
            ENSURE(s > 0.5);
            ENSURE(fabs(s - expect) < 0.1 * expect); /* and at the kinetic-friction rate */
        }
    }
    close_scene(&r);
}

CR_TEST(scene_rolling_friction_stops_a_ball) {
    scene_run r;
    ENSURE(open_scene("rolling", &r) == 0);
    cr_body_id damped = body(&r, "damped"), free_ball = body(&r, "free");
    int32_t stopped_at = -1;
    for (int32_t f = 0; f < 600; ++f) {
        ENSURE(step(&r, f) == 0);
        if (stopped_at < 0 && dlen(vel(&r, damped)) < 0.01) stopped_at = f;
    }
    double vd = dlen(vel(&r, damped)), vf = dlen(vel(&r, free_ball));
    cr_test_printf("  after 10 s: ball with rolling friction %.4f m/s (below 1 cm/s from frame %d, %.3g m rolled), "
                   "without %.3f m/s\n",
                   vd, (int)stopped_at, pos(&r, damped).x, vf);
    ENSURE(vd < 0.01);
    ENSURE(vf > 2.0);
    /* both stay on the ground */
    ENSURE(fabs(pos(&r, damped).y - 0.5) < 0.01 && fabs(pos(&r, free_ball).y - 0.5) < 0.01);
    close_scene(&r);
}

/* The torus's hole axis in the world: the OBJ's y axis, carried by the body
 * frame (mesh frame = body orientation * mesh_to_body rotation). */
static dvec torus_axis(const scene_run *r, cr_body_id id, const cr_asset *a) {
    cr_quat q = cr_quat_mul(cr_body_get_transform(r->w, id).q, a->mesh_to_body.q);
    cr_vec3 n = cr_quat_rotate(q, cr_v3(0, CR_R(1), 0));
    dvec d = {cr_to_double(n.x), cr_to_double(n.y), cr_to_double(n.z)};
    double l = dlen(d);
    d.x /= l, d.y /= l, d.z /= l;
    return d;
}

/* Does ring j thread ring i? Ring j's centre circle (radius R) must cross the
 * disc of ring i's hole (radius R - r) in ring i's plane. */
static int threads(dvec ci, dvec ni, dvec cj, dvec nj, double R, double hole) {
    /* two unit vectors spanning ring j's plane */
    dvec t = fabs(nj.x) < 0.9 ? (dvec){1, 0, 0} : (dvec){0, 1, 0};
    dvec u = {nj.y * t.z - nj.z * t.y, nj.z * t.x - nj.x * t.z, nj.x * t.y - nj.y * t.x};
    double lu = dlen(u);
    u.x /= lu, u.y /= lu, u.z /= lu;
    dvec v = {nj.y * u.z - nj.z * u.y, nj.z * u.x - nj.x * u.z, nj.x * u.y - nj.y * u.x};
    const int k = 128;
    dvec prev = {0, 0, 0};
    double prev_d = 0;
    for (int s = 0; s <= k; ++s) {
        double phi = 2 * 3.14159265358979 * s / k;
        dvec p = {cj.x + R * (cos(phi) * u.x + sin(phi) * v.x), cj.y + R * (cos(phi) * u.y + sin(phi) * v.y),
                  cj.z + R * (cos(phi) * u.z + sin(phi) * v.z)};
        double d = ddot(dsub(p, ci), ni);
        if (s > 0 && ((d <= 0) != (prev_d <= 0))) {
            double f = prev_d / (prev_d - d);
            dvec x = {prev.x + f * (p.x - prev.x), prev.y + f * (p.y - prev.y), prev.z + f * (p.z - prev.z)};
            if (dlen(dsub(x, ci)) < hole) return 1;
        }
        prev = p;
        prev_d = d;
    }
    return 0;
}

/* Does ring j reach into ring i's hole? Some point of j's tube centre line
 * lies inside the cylinder of i's hole (radius R - r, as tall as the tube). */
static int in_hole(dvec ci, dvec ni, dvec cj, dvec nj, double R, double tube) {
    dvec t = fabs(nj.x) < 0.9 ? (dvec){1, 0, 0} : (dvec){0, 1, 0};
    dvec u = {nj.y * t.z - nj.z * t.y, nj.z * t.x - nj.x * t.z, nj.x * t.y - nj.y * t.x};
    double lu = dlen(u);
    u.x /= lu, u.y /= lu, u.z /= lu;
    dvec v = {nj.y * u.z - nj.z * u.y, nj.z * u.x - nj.x * u.z, nj.x * u.y - nj.y * u.x};
    for (int s = 0; s < 128; ++s) {
        double phi = 2 * 3.14159265358979 * s / 128;
        dvec p = {cj.x + R * (cos(phi) * u.x + sin(phi) * v.x), cj.y + R * (cos(phi) * u.y + sin(phi) * v.y),
                  cj.z + R * (cos(phi) * u.z + sin(phi) * v.z)};
        dvec d = dsub(p, ci);
        double h = ddot(d, ni);
        dvec radial = {d.x - h * ni.x, d.y - h * ni.y, d.z - h * ni.z};
        if (fabs(h) < tube && dlen(radial) < R - tube) return 1;
    }
    return 0;
}

CR_TEST(scene_rings_interlock_and_rest_above_ground) {
    /* the two measures on known cases: two links of a chain thread each
     * other; two rings stacked like coins do neither */
    dvec o = {0, 0, 0}, up = {0, 1, 0}, link = {1, 0, 0}, side = {0, 0, 1}, above = {0, 0.5, 0};
    ENSURE(threads(o, up, link, side, 1.0, 0.75) && threads(link, side, o, up, 1.0, 0.75));
    ENSURE(in_hole(o, up, link, side, 1.0, 0.25));
    ENSURE(!threads(o, up, above, up, 1.0, 0.75) && !in_hole(o, up, above, up, 1.0, 0.25));
    scene_run r;
    ENSURE(open_scene("rings", &r) == 0);
    const cr_asset *a = r.s->assets[0].view_;
    ENSURE(a != NULL && a->triangle_count == 400);
    cr_body_id ids[201];
    uint32_t n = cr_world_get_body_ids(r.w, ids, 201);
    ENSURE(n == 201);
    const double R = 1.0, tube = 0.25;
    double pe0 = 0, lowest = 1e9, lowest_centre = 1e9;
    for (uint32_t i = 1; i < n; ++i) pe0 += cr_to_double(cr_body_get_mass(r.w, ids[i])) * 9.81 * pos(&r, ids[i]).y;
    const int32_t frames = 600;
    for (int32_t f = 0; f < frames; ++f) {
        ENSURE(step(&r, f) == 0);
        if (f % 10 != 9) continue;
        for (uint32_t i = 1; i < n; ++i) {
            dvec c = pos(&r, ids[i]), ax = torus_axis(&r, ids[i], a);
            ENSURE_MSG(isfinite(c.x) && isfinite(c.y) && isfinite(c.z), "ring %u is not finite", i);
            /* lowest point of a torus: centre - r - R sqrt(1 - n_y^2) */
            lowest = fmin(lowest, c.y - tube - R * sqrt(fmax(0.0, 1 - ax.y * ax.y)));
            lowest_centre = fmin(lowest_centre, c.y);
        }
    }
    double ke = 0, fastest = 0, resting_lowest = 1e9;
    int threaded = 0, threaded_rings = 0, overlapping = 0;
    static int in_pair[201];
    memset(in_pair, 0, sizeof in_pair);
    for (uint32_t i = 1; i < n; ++i) {
        double v = dlen(vel(&r, ids[i]));
        fastest = fmax(fastest, v);
        ke += 0.5 * cr_to_double(cr_body_get_mass(r.w, ids[i])) * v * v;
        dvec ci = pos(&r, ids[i]), ni = torus_axis(&r, ids[i], a);
        resting_lowest = fmin(resting_lowest, ci.y - tube - R * sqrt(fmax(0.0, 1 - ni.y * ni.y)));
        for (uint32_t j = 1; j < n; ++j) {
            if (j == i) continue;
            dvec cj = pos(&r, ids[j]);
            if (dlen(dsub(ci, cj)) > 2 * (R + tube)) continue;
            dvec nj = torus_axis(&r, ids[j], a);
            if (threads(ci, ni, cj, nj, R, R - tube)) {
                ++threaded;
                in_pair[i] = in_pair[j] = 1;
            }
            overlapping += in_hole(ci, ni, cj, nj, R, tube);
        }
    }
    for (uint32_t i = 1; i < n; ++i) threaded_rings += in_pair[i];
    cr_test_printf("  200 tori, %d frames: deepest point during impacts %.3g m, lowest centre %.3g m, lowest point at rest "
                   "%.3g m, fastest at the end %.3g m/s, kinetic energy left %.2g%% of the drop's; %d ring-through-hole "
                   "crossings, %d rings threaded, %d rings reaching into another's hole\n",
                   frames, lowest, lowest_centre, resting_lowest, fastest, 100.0 * ke / pe0, threaded, threaded_rings,
                   overlapping);
    /* none below the ground: no centre ever lower than half the tube's
     * radius (0.25 m) above it, and at rest a sliver at most */
    ENSURE(lowest_centre > 0.125);
    ENSURE(resting_lowest > -0.05);
    ENSURE(ke < 0.01 * pe0);     /* come to rest */
    /* they interlock: equal rings dropped on a heap mostly nest, a ring's tube
     * sunk into the hole of the ring below; full chain links are rarer */
    ENSURE(overlapping >= 10);
    close_scene(&r);
}

CR_TEST(scene_terrain_balls_do_not_tunnel) {
    scene_run r;
    ENSURE(open_scene("terrain", &r) == 0);
    /* the slab's top is the generator's height field, sampled at 0.5 m */
    cr_gen_terrain shape = cr_gen_default_terrain();
    cr_body_id ids[101];
    uint32_t n = cr_world_get_body_ids(r.w, ids, 101);
    ENSURE(n == 101 && cr_body_get_shape(r.w, ids[0]).type == CR_SHAPE_MESH);
    double deepest = 1e9;
    int off_slab = 0;
    const int32_t frames = 600;
    for (int32_t f = 0; f < frames; ++f) {
        ENSURE(step(&r, f) == 0);
        for (uint32_t i = 1; i < n; ++i) {
            dvec p = pos(&r, ids[i]);
            ENSURE_MSG(isfinite(p.x) && isfinite(p.y) && isfinite(p.z), "ball %u is not finite", i);
            if (fabs(p.x) > 15.5 || fabs(p.z) > 15.5) continue; /* rolled off the slab's edge */
            /* height of the ball's bottom over the surface below its centre */
            double clearance = p.y - 0.5 - cr_gen_terrain_height(&shape, p.x, p.z);
            deepest = fmin(deepest, clearance);
            ENSURE_MSG(clearance > -0.25, "ball %u at frame %d is %.3f m into the terrain at (%.2f, %.2f)", i, (int)f,
                       -clearance, p.x, p.z);
        }
    }
    for (uint32_t i = 1; i < n; ++i) {
        dvec p = pos(&r, ids[i]);
        off_slab += fabs(p.x) > 15.5 || fabs(p.z) > 15.5;
    }
    cr_test_printf("  100 balls, %d frames on the 64x64-cell terrain: deepest %.3g m below the surface, %d rolled off the "
                   "slab\n",
                   frames, -deepest, off_slab);
    ENSURE(deepest > -0.05);
    close_scene(&r);
}

/* Runs shock.scene with shock propagation on or off; returns how far the top
 * cube moved (m) and how many cubes still stand over the one below. */
static int run_shock(int on, double *top_moved, int *standing, double *ms) {
    scene_run r;
    if (open_scene_with_shock("shock", on, &r)) return -1;
    cr_body_id cube[20];
    dvec p0[20];
    for (int i = 0; i < 20; ++i) {
        char name[32];
        snprintf(name, sizeof name, "cube.%d", i);
        cube[i] = body(&r, name);
        p0[i] = pos(&r, cube[i]);
    }
    uint64_t t0 = crp_clock_ns();
    for (int32_t f = 0; f < r.s->frames; ++f)
        if (step(&r, f)) return -1;
    *ms = (double)(crp_clock_ns() - t0) / 1e6 / r.s->frames;
    *top_moved = dlen(dsub(pos(&r, cube[19]), p0[19]));
    *standing = 0;
    for (int i = 0; i < 20; ++i) *standing += dlen(dsub(pos(&r, cube[i]), p0[i])) < 0.05;
    close_scene(&r);
    return 0;
}

CR_TEST(scene_shock_propagation_keeps_a_tall_stack_standing) {
    double on_moved, off_moved, on_ms, off_ms;
    int on_standing, off_standing;
    ENSURE(run_shock(1, &on_moved, &on_standing, &on_ms) == 0);
    ENSURE(run_shock(0, &off_moved, &off_standing, &off_ms) == 0);
    cr_test_printf("  20 cubes, 5 collision + 10 contact passes, 5 s: shock propagation on: top cube moved %.3g m, %d of 20 "
                   "in place (%.2f ms/step); off: top cube moved %.3g m, %d of 20 in place (%.2f ms/step)\n",
                   on_moved, on_standing, on_ms, off_moved, off_standing, off_ms);
    /* seed 002: with shock propagation the stack stands with the paper's
     * iteration counts; without it the weight never reaches the ground in
     * 10 sweeps and the stack gives way */
    ENSURE(on_standing == 20 && on_moved < 0.05);
    ENSURE(off_moved > 0.1 && off_moved > 10 * on_moved);
}
