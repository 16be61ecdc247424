/* cmd_demo.c — `crumple demo`: the main job in one command.
 *
 * Creates a world in one host block, drops a few bodies, steps them, and
 * prints what a game programmer first asks of a runtime like this: how much
 * memory it took, how long the stages took, and the state hash that a replay
 * or another machine must reproduce bit for bit.
 */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cr_cmd_demo(int argc, char **argv) {
    int frames = 120;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--frames") == 0 && i + 1 < argc) {
            frames = atoi(argv[++i]);
        } else {
            fprintf(stderr, "crumple demo: unknown option '%s'\n", argv[i]);
            return 2;
        }
    }
    cr_world_def def = cr_default_world_def();
    def.body_capacity = 64;
    def.log = crp_log_hook;
    def.clock_ns = crp_clock_hook;
    cr_world *world;
    cr_status s = cr_cli_world_new(&def, &world);
    if (s != CR_OK) {
        fprintf(stderr, "crumple demo: cannot create world: %s\n", cr_status_message(s));
        return 1;
    }
    for (int i = 0; i < 8; ++i) {
        cr_body_def bd = cr_default_body_def();
        bd.position = cr_v3(cr_from_int(i), cr_from_int(10 + i), 0);
        bd.angular_velocity = cr_v3(0, CR_R(0.5), CR_R(0.25));
        if (i % 2) {
            bd.shape.type = CR_SHAPE_BOX;
        }
        cr_body_id id;
        s = cr_body_create(world, &bd, &id);
        if (s != CR_OK) {
            fprintf(stderr, "crumple demo: cannot create body: %s\n", cr_status_message(s));
            cr_cli_world_free(world);
            return 1;
        }
    }
    uint64_t t0 = crp_clock_ns();
    for (int f = 0; f < frames; ++f) cr_world_step(world, CR_R(1.0 / 60.0));
    double ms = (double)(crp_clock_ns() - t0) / 1e6;

    cr_memory_stats m = cr_world_memory_stats(world);
    cr_world_stats st = cr_world_get_stats(world);
    printf("%s\n", cr_version_string());
    printf("frames       %d (%.3f ms total, %.4f ms/frame)\n", frames, ms, frames ? ms / frames : 0.0);
    printf("bodies       %u\n", st.body_count);
    printf("memory       used %zu B, high-water %zu B, capacity %zu B\n", m.used, m.high_water, m.capacity);
    printf("state hash   %016llx\n", (unsigned long long)cr_world_state_hash(world));
    cr_cli_world_free(world);
    return 0;
}
