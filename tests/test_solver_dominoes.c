/* test_solver_dominoes.c — a row of dominoes falls to its end: each one
 * topples onto the next, its edge sliding and turning on the next one's face
 * while both stand on the ground (edge-on-face contacts between dynamic
 * bodies). Rows of several sizes and spacings, the first pushed at its top,
 * in a world whose point pool is what a scene file gives boxes (16 points a
 * box, at least 256: tools/scene_parse.c): the row's pairs need about 50 a
 * domino while they topple, more than the pool holds, and a pair that got no
 * points let the fifth domino of the row pass through the sixth's
 * foot (docs/solver.md, "Memory"). */
#include "test_solver_util.h"

typedef struct td_row {
    double thick, height, width; /* m: along x (the row), y, z */
    double spacing;              /* m, centre to centre */
    int count;
    double friction, restitution;
    double push;                 /* N s at the first one's top, along +x per kg of its mass */
} td_row;

/* Dominoes past 45 degrees after `seconds`, and whether the last one lies
 * (turned past 60 degrees: leaning on nothing, it is on the ground). */
static int td_fallen(const td_row *r, double seconds, double *last_angle) {
    cr_world_def def = cr_default_world_def();
    def.point_capacity = (uint32_t)(16 * r->count > 256 ? 16 * r->count : 256);
    cr_world *w = ts_world(&def);
    if (w == NULL) return -1;
    cr_material m = ts_material(r->restitution, r->friction);
    m.density = CR_R(700); /* wood */
    ts_ground(w, m);
    cr_body_id ids[32];
    for (int i = 0; i < r->count && i < 32; ++i)
        ids[i] = ts_box(w, ts_v(i * r->spacing, 0.5 * r->height, 0), cr_quat_identity(),
                        ts_v(0.5 * r->thick, 0.5 * r->height, 0.5 * r->width), m);
    double mass = ts_d(cr_body_get_mass(w, ids[0]));
    cr_body_apply_impulse(w, ids[0], ts_v(r->push * mass, 0, 0), ts_v(0, r->height, 0));
    int steps = (int)(seconds * 60);
    for (int s = 0; s < steps; ++s) cr_world_step(w, TS_DT);
    int fallen = 0;
    for (int i = 0; i < r->count; ++i) {
        cr_vec3 up = cr_quat_rotate(cr_body_get_transform(w, ids[i]).q, cr_v3(0, CR_R(1), 0));
        double angle = acos(fmin(1.0, fmax(-1.0, ts_d(up.y)))) * 180.0 / TS_PI;
        if (angle > 45) ++fallen;
        if (i == r->count - 1) *last_angle = angle;
    }
    ts_free(w);
    return fallen;
}

CR_TEST(solver_domino_row_falls_to_its_end) {
    static const td_row rows[] = {
        {0.05, 0.5, 0.2, 0.3, 10, 0.5, 0.1, 0.14},   /* the row: wooden, 5 x 50 x 20 cm, 30 cm apart, 0.5 N s */
        {0.05, 0.5, 0.2, 0.2, 10, 0.5, 0.1, 0.1},
        {0.05, 0.5, 0.2, 0.4, 16, 0.5, 0.1, 0.3},
        {0.02, 0.2, 0.1, 0.13, 12, 0.4, 0.2, 0.1},   /* small ones */
        {0.1, 1.0, 0.5, 0.65, 8, 0.6, 0.05, 0.2},    /* big ones */
        {0.04, 0.3, 0.15, 0.21, 20, 0.3, 0.0, 0.1},  /* a long row of slippery ones */
    };
    int ok = 0, n = (int)(sizeof rows / sizeof rows[0]);
    for (int k = 0; k < n; ++k) {
        double last = 0;
        int fallen = td_fallen(&rows[k], 8.0, &last);
        cr_test_printf("    %2d dominoes %.0f x %.0f x %.0f cm, %.0f cm apart, mu %.2f e %.2f: %d fell past 45 deg, the last "
                       "turned %.0f deg\n", rows[k].count, rows[k].thick * 100, rows[k].height * 100, rows[k].width * 100,
                       rows[k].spacing * 100, rows[k].friction, rows[k].restitution, fallen, last);
        if (fallen == rows[k].count && last > 60) ++ok;
    }
    ENSURE(ok == n);
}
