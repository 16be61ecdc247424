/* test_example_frame.c — a plastic body's rest shape read in its own frame.
 * The example model moves a dynamic body's frame to its deformed shape's
 * centre of mass (seed 001 §3.2), so the cooked positions cr_body_get_mesh
 * gives are off by that move; cr_body_mesh.rest_offset says by how much, and
 * the tools' displacement (crumple run's "deepest", the displacement
 * pictures) subtract it. A barrel's tips in example_bounce stay on the rest
 * pose while its side crumples: read with the offset they have not moved,
 * read without it they all seem moved by the frame's shift. */
#include "test_scene_util.h"

CR_TEST(example_rest_offset_puts_the_rest_shape_in_the_body_frame) {
    scene_run r;
    ENSURE(open_scene("example_bounce", &r) == 0);
    cr_body_id barrel = body_named(&r, "barrel");
    ENSURE(barrel.index1 != 0);
    for (int32_t f = 0; f < r.s->frames; ++f) ENSURE(step(&r, f) == 0);
    cr_body_mesh m;
    cr_example_view v;
    ENSURE(cr_body_get_mesh(r.w, barrel, &m) == CR_OK && cr_example_get(r.w, barrel, &v) == CR_OK);
    const double shift = cr_to_double(cr_v3_len(m.rest_offset));
    uint32_t at_rest = 0;
    double with = 0, without = 1e9, deepest = 0;
    for (uint32_t k = 0; k < m.vertex_count; ++k) {
        const double moved = cr_to_double(cr_v3_len(cr_v3_sub(m.positions[k], cr_v3_sub(m.rest_positions[k], m.rest_offset))));
        deepest = moved > deepest ? moved : deepest;
        if (v.weights[k * v.example_count] != CR_R(1)) continue; /* only rows still on the rest pose */
        ++at_rest;
        with = moved > with ? moved : with;
        const double raw = cr_to_double(cr_v3_len(cr_v3_sub(m.positions[k], m.rest_positions[k])));
        without = raw < without ? raw : without;
    }
    cr_test_printf("    frame moved %.2f mm; %u of %u vertices still weight the rest pose 1: moved at most %.2e m "
                   "read with the offset, at least %.2e m without; deepest vertex %.1f mm\n",
                   shift * 1000, at_rest, m.vertex_count, with, without, deepest * 1000);
    ENSURE(shift > 1e-4 && at_rest > 10);
    ENSURE(with < 1e-5);
    ENSURE(without > 0.5 * shift);
    ENSURE(deepest > 10 * with);
    cr_cli_world_free(r.w);
    cr_scene_free(r.s);
}
