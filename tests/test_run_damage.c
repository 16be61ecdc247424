/* test_run_damage.c — `crumple run --json` says what damage did to each body
 * (issue 18): dents applied, the deepest point below the cooked surface and
 * how many vertices moved, equal to what the runtime's mesh says. */
#include "test_scene_util.h"

#include <math.h>
#include <stdlib.h>

static char *json_of(scene_run *r) {
    cr_run_stats rs;
    memset(&rs, 0, sizeof rs);
    return run_output(cr_run_write_json, r->s, r->w, &rs);
}

/* The "damage" object of the body named `name`: 0 if found. */
static int damage_in(const char *json, const char *name, unsigned *dents, double *deepest, unsigned *moved) {
    char key[96];
    snprintf(key, sizeof key, "{\"name\": \"%s\"", name);
    const char *b = strstr(json, key);
    if (b == NULL) return -1;
    const char *d = strstr(b, "\"damage\": {");
    if (d == NULL) return -1;
    return sscanf(d, "\"damage\": {\"dents\": %u, \"deepest\": %lf, \"moved_vertices\": %u}", dents, deepest, moved) == 3
               ? 0
               : -1;
}

CR_TEST(run_json_reports_damage_per_body) {
    scene_run r;
    ENSURE(open_scene("dent_ball_block", &r) == 0);
    for (int32_t f = 0; f < r.s->frames; ++f) ENSURE(step(&r, f) == 0);
    char *json = json_of(&r);
    ENSURE(json != NULL);
    unsigned dents = 0, moved = 0;
    double deepest = 0;
    ENSURE(damage_in(json, "block", &dents, &deepest, &moved) == 0);
    cr_body_mesh m;
    ENSURE(cr_body_get_mesh(r.w, body(&r, "block"), &m) == CR_OK);
    cr_test_printf("  block: %u dents, deepest %.2f mm, %u of %u vertices moved\n", dents, deepest * 1000, moved, m.vertex_count);
    ENSURE(dents == m.dent_count && dents >= 1);
    ENSURE(moved > 0 && moved < m.vertex_count);
    /* the deepest vertex really is that far from where it was cooked */
    double most = 0;
    uint32_t count = 0;
    for (uint32_t v = 0; v < m.vertex_count; ++v) {
        double dx = cr_to_double(m.positions[v].x - m.rest_positions[v].x);
        double dy = cr_to_double(m.positions[v].y - m.rest_positions[v].y);
        double dz = cr_to_double(m.positions[v].z - m.rest_positions[v].z);
        double len = sqrt(dx * dx + dy * dy + dz * dz);
        if (len > most) most = len;
        count += len > 0;
    }
    ENSURE(fabs(most - deepest) <= 1e-6 * most + 1e-9 && count == moved);
    /* the ball has no surface of its own: all zeros, still present */
    ENSURE(damage_in(json, "ball", &dents, &deepest, &moved) == 0);
    ENSURE(dents == 0 && deepest == 0 && moved == 0);
    free(json);
    close_scene(&r);
}
