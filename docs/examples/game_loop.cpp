// game_loop.cpp — crumple in a C++ game: the same steps as game_loop.c, with
// the block and the asset owned by RAII and events read into std::vector.
//
//     c++ -std=c++17 game_loop.cpp -o game_loop $(pkg-config --cflags --libs crumple)
//     crumple cook data/meshes/plate.obj -o plate.crb && ./game_loop plate.crb
//
// It also drops a spark whose collision filter ignores the plate through it
// into a sensor box, counts the sensor's begin event, and casts a ray where
// the ball lands, before and after: it finds the dent's floor.
// crumple's headers are C with C linkage; include them as they are. The world
// is one block of the game's memory: when the block goes, the world goes.
// tests/check_install.sh builds and runs it (both scalar modes).
#include <crumple/crumple.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <memory>
#include <vector>

namespace {

struct aligned_free {
    void operator()(void *p) const { std::free(p); }
};
using block_ptr = std::unique_ptr<void, aligned_free>;

block_ptr alloc_block(size_t size) {
    size_t rounded = (size + CR_BLOCK_ALIGN - 1) / CR_BLOCK_ALIGN * CR_BLOCK_ALIGN;
    return block_ptr(std::aligned_alloc(CR_BLOCK_ALIGN, rounded ? rounded : CR_BLOCK_ALIGN));
}

// A loaded cooked asset: the file bytes and the block of converted arrays
// must outlive every world that uses the view.
struct loaded_asset {
    block_ptr bytes, block;
    cr_asset view{};
    bool load(const char *path) {
        std::ifstream in(path, std::ios::binary);
        std::vector<char> file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        if (file.empty()) return false;
        bytes = alloc_block(file.size());
        std::copy(file.begin(), file.end(), static_cast<char *>(bytes.get()));
        size_t need = cr_asset_memory_size(bytes.get(), file.size());
        block = alloc_block(need);
        cr_asset_error err{};
        if (cr_asset_load(bytes.get(), file.size(), block.get(), need, &view, &err) != CR_OK) {
            std::fprintf(stderr, "%s: %s\n", path, cr_asset_check_message(err.check));
            return false;
        }
        return true;
    }
};

}  // namespace

int main(int argc, char **argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: game_loop PLATE.crb\n");
        return 2;
    }
    loaded_asset plate_asset;
    if (!plate_asset.load(argv[1])) return 1;

    cr_world_def def = cr_default_world_def();
    def.body_capacity = 8;
    def.joint_capacity = 0;
    def.asset_capacity = 1;
    def.pair_capacity = 32;
    def.contact_capacity = 32;
    def.point_capacity = 512;
    def.event_capacity = 64;
    def.damage.dent.body_capacity = 1;
    def.damage.dent.max_cells = 64;
    def.damage.surface_bytes = static_cast<uint32_t>(cr_asset_damage_bytes(&plate_asset.view));
    const size_t size = cr_world_memory_size(&def);
    block_ptr block = alloc_block(size);
    cr_world *world = nullptr;
    if (cr_world_create(&def, block.get(), size, &world) != CR_OK) return 1;
    uint32_t slot = 0;
    if (cr_world_add_asset(world, &plate_asset.view, &slot) != CR_OK) return 1;

    cr_body_def pd = cr_default_body_def();
    pd.type = CR_BODY_STATIC;
    pd.shape.type = CR_SHAPE_MESH;
    pd.shape.asset = slot;
    cr_transform level = cr_transform_identity();
    level.p = cr_v3(0, CR_R(1), 0);
    cr_body_id plate{};
    if (cr_body_create_as_modelled(world, &pd, level, &plate) != CR_OK) return 1;
    cr_dent_def dd = cr_default_dent_def();
    dd.threshold_speed = CR_R(1);
    dd.max_distance = CR_R(0.008); // 8 mm at most: the plate is 4 cm thick
    if (cr_dent_attach(world, plate, &dd) != CR_OK) return 1;

    cr_body_def bd = cr_default_body_def();
    bd.shape.type = CR_SHAPE_SPHERE;
    bd.shape.radius = CR_R(0.02);
    bd.material.density = CR_R(7800);
    bd.position = cr_v3(CR_R(0.05), CR_R(1.2), CR_R(-0.04));
    bd.linear_velocity = cr_v3(0, CR_R(-5), 0);
    cr_body_id ball{};
    if (cr_body_create(world, &bd, &ball) != CR_OK) return 1;

    // the plate's surface under the ball's landing, by a ray down through every
    // body on the way (the ball is above it): the callback keeps the plate's hit
    struct plate_hit {
        cr_body_id plate;
        cr_real y;
        bool found;
    };
    auto plate_height = [&](plate_hit &h) {
        h = plate_hit{plate, 0, false};
        cr_ray_fn *keep_plate = [](void *ctx, const cr_ray_hit *hit) -> cr_real {
            auto *ph = static_cast<plate_hit *>(ctx);
            if (hit->body.index1 == ph->plate.index1) ph->y = hit->point.y, ph->found = true;
            return CR_R(1);  // go on: every body along the ray
        };
        return cr_world_cast_ray(world, cr_v3(CR_R(0.05), CR_R(2), CR_R(-0.04)), cr_v3(0, CR_R(-2), 0),
                                 cr_default_query_filter(), keep_plate, &h) == CR_OK &&
               h.found;
    };
    plate_hit before{}, after{};
    if (!plate_height(before)) return 1;

    // a spark whose filter ignores the plate (category 1), and a sensor under the plate that sees it
    cr_body_def sd = cr_default_body_def();
    sd.shape.radius = CR_R(0.01);
    sd.position = cr_v3(0, CR_R(1.2), CR_R(0.05));
    sd.linear_velocity = cr_v3(0, CR_R(-5), 0);
    sd.filter.category_bits = 2;
    sd.filter.mask_bits = ~uint64_t{1};
    cr_body_id spark{};
    if (cr_body_create(world, &sd, &spark) != CR_OK) return 1;
    cr_body_def td = cr_default_body_def();
    td.type = CR_BODY_STATIC;
    td.shape.type = CR_SHAPE_BOX;
    td.shape.half_extents = cr_v3(CR_R(0.3), CR_R(0.1), CR_R(0.3));
    td.position = cr_v3(0, CR_R(0.5), 0);
    td.is_sensor = true;
    td.filter.category_bits = 4;  // sensors obey filters too: the spark must collide with category 4
    cr_body_id trigger{};
    if (cr_body_create(world, &td, &trigger) != CR_OK) return 1;

    std::vector<cr_sensor_event> sensed(def.sensor_event_capacity);
    unsigned spark_seen = 0;
    std::vector<cr_dent_event> dents(def.damage.dent.dents_per_step);
    std::vector<cr_vec3> gpu_positions(plate_asset.view.vertex_count);  // stands in for a vertex buffer
    unsigned total_dents = 0, uploaded = 0;
    for (int frame = 0; frame < 60; ++frame) {
        cr_world_step(world, CR_R(1.0 / 60.0));
        uint32_t nd = cr_world_get_dent_events(world, dents.data(), static_cast<uint32_t>(dents.size()));
        total_dents += nd;
        uint32_t ns = cr_world_get_sensor_events(world, sensed.data(), static_cast<uint32_t>(sensed.size()));
        for (uint32_t i = 0; i < ns && i < sensed.size(); ++i)
            if (sensed[i].begin && sensed[i].visitor.index1 == spark.index1) ++spark_seen;
        cr_body_mesh mesh{};
        if (cr_body_get_mesh(world, plate, &mesh) == CR_OK && mesh.dirty_range_count > 0) {
            for (uint32_t r = 0; r < mesh.dirty_range_count; ++r) {  // exactly what moved, a range at a time
                const cr_vertex_range &range = mesh.dirty_ranges[r];
                std::copy(mesh.positions + range.first, mesh.positions + range.first + range.count,
                          gpu_positions.begin() + range.first);
                uploaded += range.count;
            }
            cr_body_clear_dirty(world, plate);
        }
    }
    bool in_dent = plate_height(after) && after.y < before.y;  // queries see the dented surface
    cr_transform pose = cr_body_get_transform(world, ball);
    std::printf("C++: dents %u, vertices uploaded %u, spark seen %u, ball at y %.3f m, ray at the dent %.4f -> %.4f m, state %016llx\n",
                total_dents, uploaded, spark_seen, cr_to_double(pose.p.y), cr_to_double(before.y), cr_to_double(after.y),
                static_cast<unsigned long long>(cr_world_state_hash(world)));
    return total_dents > 0 && uploaded > 0 && spark_seen == 1 && in_dent ? 0 : 1;
}
