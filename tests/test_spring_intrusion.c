/* test_spring_intrusion.c — no soft body passes into another, at the shipped
 * skin and past-rim allowance and at settings round them (issue 16;
 * docs/mass-spring.md, "Soft against soft").
 *
 * Which single particle of a pile ended up inside another body used to
 * depend chaotically on the skin and the past-rim allowance: clean at the
 * shipped pair checked once a second (9 particles inside, checked every
 * step), one to seventeen at neighbouring ones. A
 * user sees that as a body's corner poking into its neighbour. Here the
 * pile falls at several (skin, allowance) pairs and every particle is
 * checked against every other body by winding number at every step. */
#include "test_spring_util.h"

#define IN_BODIES 20

static void in_wall(cr_world *w, cr_vec3 p, cr_vec3 half) {
    cr_body_def bd = cr_default_body_def();
    bd.type = CR_BODY_STATIC;
    bd.shape.type = CR_SHAPE_BOX;
    bd.shape.half_extents = half;
    bd.position = p;
    cr_body_id id;
    (void)cr_body_create(w, &bd, &id);
}

/* The pile of spring_soft_pile (balls, cubes, tori falling into a box) for
 * `steps` steps with each body's skin and rim allowance scaled, and its
 * start moved by `jitter` (0: the pile as spring_soft_pile drops it; 1, 2,
 * 3: each body turned and shifted a little differently, another landing);
 * returns the particles found inside another body, summed over the steps,
 * and in *held those of them that were inside the same body the step
 * before too (NULL: not wanted). */
static int pile_intrusions(double skin_scale, double rim_scale, int steps, int jitter, int *held) {
    sp_world d = {0};
    if (!sp_cook_sphere(&d, 0.3, 12, 8) || !sp_cook_cube(&d, 0.25, 3) || !sp_cook_file(&d, "torus.obj", 0.7)) return -1;
    if (!sp_make_world(&d, cr_v3(0, CR_R(-9.81), 0), sp_budget(IN_BODIES, IN_BODIES * 256, IN_BODIES * 1200))) return -1;
    ts_ground(d.w, ts_material(0.2, 0.6));
    const double W = 1.0;
    in_wall(d.w, cr_v3(CR_R(W + 0.1), CR_R(1.5), 0), cr_v3(CR_R(0.1), CR_R(1.5), CR_R(W + 0.2)));
    in_wall(d.w, cr_v3(CR_R(-W - 0.1), CR_R(1.5), 0), cr_v3(CR_R(0.1), CR_R(1.5), CR_R(W + 0.2)));
    in_wall(d.w, cr_v3(0, CR_R(1.5), CR_R(W + 0.1)), cr_v3(CR_R(W + 0.2), CR_R(1.5), CR_R(0.1)));
    in_wall(d.w, cr_v3(0, CR_R(1.5), CR_R(-W - 0.1)), cr_v3(CR_R(W + 0.2), CR_R(1.5), CR_R(0.1)));
    cr_soft_id ids[IN_BODIES];
    int kind[IN_BODIES];
    for (int i = 0; i < IN_BODIES; ++i) {
        cr_soft_def sd = cr_default_soft_def();
        kind[i] = i % 3;
        sd.asset = d.slot[kind[i]];
        double jx = 0.03 * jitter * ((i * 7) % 3 - 1), jz = 0.03 * jitter * ((i * 5) % 3 - 1);
        sd.transform.p = cr_v3(cr_from_float((float)(-0.45 + 0.9 * (i % 2) + jx)), cr_from_float((float)(0.5 + 0.75 * (i / 2))),
                               cr_from_float((float)(-0.4 + 0.8 * ((i / 2) % 2) + jz)));
        sd.transform.q = cr_quat_from_axis_angle(cr_v3(CR_R(1), 0, 0), cr_from_float((float)(0.3 * i + 0.37 * jitter * (i % 4))));
        sd.mass = CR_R(0.5);
        sd.volume_stiffness = CR_R(50000);
        sd.friction = CR_R(0.8);
        if (cr_soft_create(d.w, &sd, &ids[i]) != CR_OK) return -1;
        cr_soft_body *b = cri_soft_body(d.w, ids[i]);
        b->skin = cr_mul(b->skin, cr_from_float((float)skin_scale));
        b->rim = cr_mul(b->soft_radius, cr_from_float((float)rim_scale));
    }
    cr_vec3 *x[IN_BODIES];
    for (int i = 0; i < IN_BODIES; ++i) x[i] = (cr_vec3 *)calloc(512, sizeof(cr_vec3));
    int inside = 0, kept = 0;
    /* the step each particle was last found inside body j, per (i, p, j) */
    int *last = (int *)calloc((size_t)IN_BODIES * 512 * IN_BODIES, sizeof(int));
    for (int step = 1; step <= steps; ++step) {
        if (cr_world_step(d.w, TS_DT) != CR_OK) { inside = -1; break; }
        for (int i = 0; i < IN_BODIES; ++i) cr_soft_get_positions(d.w, ids[i], x[i], 512);
        cr_soft_state st[IN_BODIES];
        for (int i = 0; i < IN_BODIES; ++i) st[i] = sp_state(d.w, ids[i]);
        for (int i = 0; i < IN_BODIES; ++i) {
            uint32_t n = cr_soft_get_positions(d.w, ids[i], NULL, 0);
            for (uint32_t p = 0; p < n; ++p) {
                double px = ts_d(x[i][p].x), py = ts_d(x[i][p].y), pz = ts_d(x[i][p].z);
                for (int j = 0; j < IN_BODIES; ++j) {
                    if (j == i || px < ts_d(st[j].bounds_min.x) || px > ts_d(st[j].bounds_max.x) ||
                        py < ts_d(st[j].bounds_min.y) || py > ts_d(st[j].bounds_max.y) || pz < ts_d(st[j].bounds_min.z) ||
                        pz > ts_d(st[j].bounds_max.z))
                        continue;
                    if (sp_winding(&d.asset[kind[j]], x[j], x[i][p]) <= 0.5) continue;
                    ++inside;
                    int *l = &last[((size_t)i * 512 + p) * IN_BODIES + (size_t)j];
                    if (*l == step - 1) ++kept;
                    *l = step;
                    /* where and how fast: which contact let it in (docs) */
                    const cr_particle *pp = cri_soft_particles(d.w) + cri_soft_body(d.w, ids[i])->first_particle + p;
                    uint32_t nj = cr_soft_get_positions(d.w, ids[j], NULL, 0);
                    double best = 1e9;
                    for (uint32_t g = 0; g < nj; ++g) {
                        double dx = ts_d(x[j][g].x) - px, dy = ts_d(x[j][g].y) - py, dz = ts_d(x[j][g].z) - pz;
                        best = fmin(best, sqrt(dx * dx + dy * dy + dz * dz));
                    }
                    cr_test_printf("      step %d: particle %u of body %d (kind %d, %.2f m/s) inside body %d (kind %d, "
                                   "%.2f m/s down), %.3f m from its nearest particle\n",
                                   step, p, i, kind[i], sp_len(pp->v), j, kind[j], ts_d(st[j].linear_momentum.y) / ts_d(st[j].mass), best);
                }
            }
        }
    }
    for (int i = 0; i < IN_BODIES; ++i) free(x[i]);
    free(last);
    sp_free(&d);
    if (held) *held = kept;
    return inside;
}

/* The shipped skin and allowance and eleven pairs round them (skin 0.07 to
 * 0.09 x the mean edge, allowance 0.75 to 1.5 x the soft radius): the pile
 * lands (the first 3 s: every impact) with no particle inside another body
 * at any step. Before the ring measure (soft_triangle.c ring_closest) the
 * shipped pair alone had 9 particles inside, checked every step. */
CR_TEST(spring_soft_pile_no_intrusion_sweep) {
    static const double skin[] = {0.875, 1.0, 1.125}, rim[] = {0.75, 1.0, 1.25, 1.5};
    int total = 0;
    for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 4; ++b) {
            int n = pile_intrusions(skin[a], rim[b], 180, 0, NULL);
            cr_test_printf("    skin x%.2f, rim allowance x%.2f: %d particles inside another body (every step, 3 s)\n",
                           skin[a], rim[b], n);
            ENSURE(n >= 0);
            total += n;
        }
    ENSURE(total == 0);
}

/* Three other landings (the pile's bodies turned and shifted a few
 * centimetres) at the shipped skin and the four allowances: no particle
 * stays inside another body. Which particle of a pile the substeps'
 * contacts let in is a draw of the trajectory (docs/mass-spring.md, rounds
 * soft16g and soft16h): before the step's last pass (soft_triangle.c,
 * cri_soft_resolve_inside) landing 1 had a torus particle inside a ball for
 * two steps running and an earlier candidate one held for 69; since, a
 * particle found inside at one step's end (12 in float and 5 in fixed over
 * the three landings at all 12 of the sweep's settings) is out by the
 * next, and spring_soft_pile_no_intrusion_sweep's pile has none at all. */
CR_TEST(spring_soft_pile_no_intrusion_stays) {
    static const double rim[] = {0.75, 1.0, 1.25, 1.5};
    int total = 0, held = 0;
    for (int j = 1; j <= 3; ++j)
        for (int b = 0; b < 4; ++b) {
            int h = 0, n = pile_intrusions(1.0, rim[b], 180, j, &h);
            cr_test_printf("    landing %d, rim allowance x%.2f: %d particles inside another body, %d of them inside the step "
                           "before too\n",
                           j, rim[b], n, h);
            ENSURE(n >= 0);
            total += n, held += h;
        }
    cr_test_printf("    %d particles inside at a step's end over the 12 piles, %d of them held\n", total, held);
    ENSURE(held == 0);
}
