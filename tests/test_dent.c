/* test_dent.c — whole dents on a plate of vertices: depth, support, glancing shear. */
#include "test.h"
#include "damage/dent.h"

#include <stdlib.h>
#include <string.h>

static cr_dent_def params(void) {
    cr_dent_def p;
    memset(&p, 0, sizeof p);
    p.threshold_speed = CR_R(1);
    p.speed_scale = CR_R(0.01);
    p.max_distance = CR_R(0.1);
    p.blur = CR_R(0.01);
    p.heat_iterations = 4;
    p.modified_iterations = 4;
    p.steepness = CR_R(1);
    p.min_cos = CR_R(0.2);
    p.min_cells = 25;
    p.max_cells = 200;
    return p;
}

/* A 1 m square plate, 5 mm spacing, top face at y = 0 (the target's outside
 * is +y, so the denting normal is -y). */
enum { PLATE = 201 };
static cr_vec3 *plate(void) {
    cr_vec3 *v = malloc(sizeof(cr_vec3) * PLATE * PLATE);
    for (int j = 0; j < PLATE; ++j)
        for (int i = 0; i < PLATE; ++i)
            v[j * PLATE + i] = cr_v3(cr_mul(cr_from_int(i - PLATE / 2), CR_R(0.005)), 0, cr_mul(cr_from_int(j - PLATE / 2), CR_R(0.005)));
    return v;
}

CR_TEST(dent_distance_from_normal_speed) {
    cr_dent_def p = params();
    ENSURE(cri_dent_distance(&p, CR_R(0.5)) == 0);
    ENSURE_NEAR(cr_to_double(cri_dent_distance(&p, CR_R(4))), 0.03, 1e-6);
    ENSURE_NEAR(cr_to_double(cri_dent_distance(&p, CR_R(400))), 0.1, 1e-7);
    p.speed_scale = 0;
    p.fixed_distance = CR_R(0.02);
    ENSURE_NEAR(cr_to_double(cri_dent_distance(&p, CR_R(2))), 0.02, 1e-7);
}

CR_TEST(dent_head_on_sphere_depth_and_support) {
    cr_dent_def p = params();
    cr_vec3 *v = plate(), *rest = plate();
    cr_dent_impact imp = {cr_v3_zero(), cr_v3(0, CR_R(-1), 0), cr_v3(0, CR_R(-5), 0), CR_R(0.03)};
    cr_dent_projectile ball = {true, CR_R(0.1), NULL, NULL, 0, 0, {{0, 0, 0}, {0, 0, 0, CR_R(1)}}, false};
    cr_real cell;
    uint32_t cells = cri_dent_plan_cells(&p, &imp, &ball, CR_R(0.005), &cell);
    ENSURE(cells >= p.min_cells && cells <= p.max_cells);
    void *scratch = malloc(cri_dent_scratch_bytes(cells));
    cr_dent d;
    cri_dent_build(&d, &p, &imp, &ball, cells, cell, scratch);
    uint32_t first, last;
    uint32_t moved = cri_dent_apply(&d, &p, v, PLATE * PLATE, &first, &last, NULL);
    ENSURE(moved > 0 && first <= last);
    double deepest = 0;
    for (int i = 0; i < PLATE * PLATE; ++i) {
        double dy = cr_to_double(v[i].y);
        if (-dy > deepest) deepest = -dy;
        double r = hypot(cr_to_double(rest[i].x), cr_to_double(rest[i].z));
        /* nothing outside the dent's support moves, not even by a bit */
        if (r > cr_to_double(d.support)) ENSURE(memcmp(&v[i], &rest[i], sizeof v[i]) == 0);
        /* head-on: only along the normal */
        ENSURE(v[i].x == rest[i].x && v[i].z == rest[i].z);
    }
    ENSURE_NEAR(deepest, 0.03, 1e-4);
    ENSURE_NEAR(cr_to_double(v[(PLATE / 2) * PLATE + PLATE / 2].y), -0.03, 1e-4);
    free(v), free(rest), free(scratch);
}

/* Seed §3.3: at 60° the dent leans toward the velocity and is deepest ahead
 * of the impact point. */
CR_TEST(dent_glancing_is_sheared_toward_velocity) {
    cr_dent_def p = params();
    cr_vec3 *v = plate(), *rest = plate();
    /* moving +x and down, 60° from the denting normal */
    cr_dent_impact imp = {cr_v3_zero(), cr_v3(0, CR_R(-1), 0), cr_v3(CR_R(4.330127), CR_R(-2.5), 0), CR_R(0.03)};
    cr_dent_projectile ball = {true, CR_R(0.1), NULL, NULL, 0, 0, {{0, 0, 0}, {0, 0, 0, CR_R(1)}}, false};
    cr_real cell;
    uint32_t cells = cri_dent_plan_cells(&p, &imp, &ball, CR_R(0.005), &cell);
    void *scratch = malloc(cri_dent_scratch_bytes(cells));
    cr_dent d;
    cri_dent_build(&d, &p, &imp, &ball, cells, cell, scratch);
    ENSURE_NEAR(cr_to_double(d.cos_theta), 0.5, 1e-4);
    uint32_t first, last;
    cri_dent_apply(&d, &p, v, PLATE * PLATE, &first, &last, NULL);
    double lead = 0, trail = 0, sum_dx = 0;
    int row = PLATE / 2;
    for (int i = 0; i < PLATE; ++i) {
        int k = row * PLATE + i;
        double x = cr_to_double(v[k].x), depth = -cr_to_double(v[k].y);
        sum_dx += x - cr_to_double(rest[k].x);
        if (x > 0.02 && x < 0.06 && depth > lead) lead = depth;
        if (x < -0.02 && x > -0.06 && depth > trail) trail = depth;
    }
    ENSURE_MSG(sum_dx > 0, "points moved against the velocity (%g)", sum_dx);
    ENSURE_MSG(lead > trail * 1.05, "leading side %.4g not deeper than trailing side %.4g", lead, trail);
    free(v), free(rest), free(scratch);
}

/* A flat-ended box projectile through the Z-buffer path: the dent takes its
 * square footprint, not a round one. */
CR_TEST(dent_mesh_projectile_leaves_its_shape) {
    cr_dent_def p = params();
    cr_vec3 *v = plate();
    /* a 10 cm cube just above the plate, bottom face at y = 0 */
    cr_vec3 box[8];
    for (int i = 0; i < 8; ++i)
        box[i] = cr_v3((i & 1) ? CR_R(0.05) : CR_R(-0.05), (i & 2) ? CR_R(0.1) : 0, (i & 4) ? CR_R(0.05) : CR_R(-0.05));
    static const uint32_t tris[36] = {0, 1, 5, 0, 5, 4, 2, 6, 7, 2, 7, 3, 0, 4, 6, 0, 6, 2,
                                      1, 3, 7, 1, 7, 5, 0, 2, 3, 0, 3, 1, 4, 5, 7, 4, 7, 6};
    cr_dent_impact imp = {cr_v3_zero(), cr_v3(0, CR_R(-1), 0), cr_v3(0, CR_R(-5), 0), CR_R(0.02)};
    cr_dent_projectile cube = {false, 0, box, tris, 12, CR_R(0.1), {{0, 0, 0}, {0, 0, 0, CR_R(1)}}, false};
    p.blur = CR_R(0.004);
    cr_real cell;
    uint32_t cells = cri_dent_plan_cells(&p, &imp, &cube, CR_R(0.005), &cell);
    void *scratch = malloc(cri_dent_scratch_bytes(cells));
    cr_dent d;
    cri_dent_build(&d, &p, &imp, &cube, cells, cell, scratch);
    ENSURE(d.zbuffer_work > 0);
    uint32_t first, last;
    cri_dent_apply(&d, &p, v, PLATE * PLATE, &first, &last, NULL);
    int c = PLATE / 2;
    /* inside the square footprint: close to full depth at the corner region too */
    double centre = -cr_to_double(v[c * PLATE + c].y);
    double corner = -cr_to_double(v[(c + 8) * PLATE + (c + 8)].y);   /* (4 cm, 4 cm): inside the square */
    double diag_out = -cr_to_double(v[(c + 14) * PLATE + (c + 14)].y); /* (7 cm, 7 cm): outside */
    ENSURE_NEAR(centre, 0.02, 1e-3);
    ENSURE_MSG(corner > 0.6 * centre, "square footprint lost: corner %.4g centre %.4g", corner, centre);
    ENSURE(diag_out < 0.5 * corner);
    free(v), free(scratch);
}
