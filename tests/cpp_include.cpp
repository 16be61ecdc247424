// cpp_include.cpp — a C++ game includes crumple/crumple.h as is and links
// libcrumple.a (tests/run_all.sh builds and runs this in both scalar modes).
// It touches every public header's main entry, so a declaration without C
// linkage fails to link here rather than in a game.
// Each public header is included on its own first (each carries its own
// extern "C" guard; tests/run_all.sh also compiles each one alone), then the
// umbrella header.
#include "crumple/real.h"
#include "crumple/base.h"
#include "crumple/vecmath.h"
#include "crumple/world.h"
#include "crumple/body.h"
#include "crumple/asset.h"
#include "crumple/joint.h"
#include "crumple/events.h"
#include "crumple/dent.h"
#include "crumple/example.h"
#include "crumple/damage.h"
#include "crumple/input.h"
#include "crumple/snapshot.h"
#include "crumple/crumple.h"

#include <cstdio>
#include <cstdlib>
#include <vector>

int main() {
    cr_world_def def = cr_default_world_def();
    def.body_capacity = 8;
    size_t size = cr_world_memory_size(&def);
    void *block = std::aligned_alloc(CR_BLOCK_ALIGN, (size + 15) / 16 * 16);
    cr_world *world = nullptr;
    if (block == nullptr || cr_world_create(&def, block, size, &world) != CR_OK) return 1;
    cr_body_def ground = cr_default_body_def();
    ground.type = CR_BODY_STATIC;
    ground.shape.type = CR_SHAPE_PLANE;
    cr_body_id g, ball;
    cr_body_create(world, &ground, &g);
    cr_body_def bd = cr_default_body_def();
    bd.position = cr_v3(0, CR_R(2), 0);
    cr_body_create(world, &bd, &ball);
    std::vector<unsigned char> snap(cr_world_snapshot_size(world));
    cr_world_snapshot_save(world, snap.data(), snap.size());
    for (int f = 0; f < 60; ++f) cr_world_step(world, CR_R(1.0 / 60.0));
    cr_impact_event ev[4];
    cr_dent_event dents[4];
    uint32_t impacts = cr_world_get_events(world, ev, 4);
    uint32_t dented = cr_world_get_dent_events(world, dents, 4);
    cr_dent_def dd = cr_default_dent_def();
    cr_status refused = cr_dent_attach(world, ball, &dd); // a sphere cannot dent
    cr_input in;
    (void)in;
    uint64_t layout = cr_state_layout_id();
    uint64_t h = cr_world_state_hash(world);
    cr_world_snapshot_restore(world, snap.data(), snap.size());
    double y = cr_to_double(cr_body_get_transform(world, ball).p.y);
    std::printf("c++: %s; hash %016llx, layout %016llx, %u impacts, %u dents, attach to a sphere: %s, y back to %.3f\n",
                cr_version_string(), (unsigned long long)h, (unsigned long long)layout, impacts, dented,
                cr_status_name(refused), y);
    std::free(block);
    return refused == CR_ERR_DEF_INVALID && y > 1.9 ? 0 : 1;
}
