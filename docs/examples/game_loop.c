/* game_loop.c — crumple in a C game loop, the way docs/memory.md sizes it.
 *
 * Build against an installed crumple (make install) with pkg-config alone:
 *     cc -std=c11 game_loop.c -o game_loop $(pkg-config --cflags --libs crumple)
 *     crumple cook data/meshes/plate.obj -o plate.crb
 *     ./game_loop plate.crb
 * (crumple-fixed instead of crumple for the Q32.32 build: the same source.)
 *
 * It loads a cooked plate, sizes the world block from the def (printing the
 * memory report), places the plate as modelled, lets it dent, throws two steel
 * balls at it and a spark whose collision filter ignores the plate, puts a
 * sensor under the plate, and in the frame loop reads impact, dent and sensor
 * events and the range of deformed vertices a renderer would upload to the
 * GPU. A ray cast where the first ball lands, before and after, finds the
 * dent's floor. tests/check_install.sh builds and runs it; it exits 1 if
 * nothing dented, the ray did not find the dent, or the sensor did not see
 * the spark fall through the plate.
 */
#include <crumple/crumple.h>

#include <stdio.h>
#include <stdlib.h>

/* The height of the plate's surface under (x, z), by a ray down from 2 m:
 * every body on the way (a ball may be above), keeping the plate's hit. */
static bool plate_height(const cr_world *world, cr_body_id plate, cr_real x, cr_real z, cr_real *y) {
    cr_ray_hit hits[8];
    uint32_t count = 0;
    if (cr_world_cast_ray_all(world, cr_v3(x, CR_R(2), z), cr_v3(0, CR_R(-2), 0), cr_default_query_filter(), hits, 8, &count) !=
        CR_OK)
        return false;
    for (uint32_t i = 0; i < count && i < 8; ++i)
        if (hits[i].body.index1 == plate.index1) {
            *y = hits[i].point.y;
            return true;
        }
    return false;
}

/* crumple never allocates: every byte is the game's, handed over once. */
static void *block_alloc(size_t size) {
    size_t rounded = (size + CR_BLOCK_ALIGN - 1) / CR_BLOCK_ALIGN * CR_BLOCK_ALIGN;
    return aligned_alloc(CR_BLOCK_ALIGN, rounded);
}

static void *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *bytes = n > 0 ? block_alloc((size_t)n) : NULL; /* aligned: float data is then used in place */
    if (bytes != NULL && fread(bytes, 1, (size_t)n, f) != (size_t)n) {
        free(bytes);
        bytes = NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return bytes;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: game_loop PLATE.crb\n");
        return 2;
    }
    printf("%s\n", cr_version_string());

    /* 1. the asset: validated completely, then used in place */
    size_t file_size = 0;
    void *file = read_file(argv[1], &file_size);
    if (file == NULL) {
        fprintf(stderr, "%s: cannot read\n", argv[1]);
        return 1;
    }
    size_t asset_size = cr_asset_memory_size(file, file_size);
    void *asset_block = block_alloc(asset_size ? asset_size : 1);
    cr_asset plate_asset;
    cr_asset_error aerr;
    if (cr_asset_load(file, file_size, asset_block, asset_size, &plate_asset, &aerr) != CR_OK) {
        fprintf(stderr, "%s: %s (section '%s', index %u)\n", argv[1], cr_asset_check_message(aerr.check),
                aerr.section_tag, aerr.index);
        return 1;
    }

    /* 2. the world def: every capacity, and memory for one deforming body */
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
    def.damage.surface_bytes = (uint32_t)cr_asset_damage_bytes(&plate_asset);
    size_t size = cr_world_memory_size(&def);
    cr_memory_region regions[CR_MEMORY_REGION_MAX];
    uint32_t n = cr_world_memory_report(&def, regions, CR_MEMORY_REGION_MAX);
    printf("world block: %zu bytes\n", size);
    for (uint32_t i = 0; i < n && i < CR_MEMORY_REGION_MAX; ++i)
        if (regions[i].bytes >= 16384) printf("  %9llu  %s  [%s]\n", (unsigned long long)regions[i].bytes, regions[i].name, regions[i].field);

    void *block = block_alloc(size);
    cr_world *world = NULL;
    cr_status s = cr_world_create(&def, block, size, &world);
    if (s != CR_OK) {
        cr_field field;
        cr_world_def_check(&def, &field);
        fprintf(stderr, "cr_world_create: %s %s\n", cr_status_message(s), cr_field_name(field));
        return 1;
    }
    uint32_t slot;
    if (cr_world_add_asset(world, &plate_asset, &slot) != CR_OK) return 1;

    /* 3. the plate where the level has it (here: the mesh as modelled, 1 m up), and its dents */
    cr_body_def pd = cr_default_body_def();
    pd.type = CR_BODY_STATIC;
    pd.shape.type = CR_SHAPE_MESH;
    pd.shape.asset = slot;
    cr_transform level = cr_transform_identity();
    level.p = cr_v3(0, CR_R(1), 0);
    cr_body_id plate;
    if (cr_body_create_as_modelled(world, &pd, level, &plate) != CR_OK) return 1;
    cr_dent_def dd = cr_default_dent_def();
    dd.threshold_speed = CR_R(1);
    dd.max_distance = CR_R(0.008); /* 8 mm at most: the plate is 4 cm thick */
    if (cr_dent_attach(world, plate, &dd) != CR_OK) return 1;

    for (int i = 0; i < 2; ++i) {
        cr_body_def bd = cr_default_body_def();
        bd.shape.type = CR_SHAPE_SPHERE;
        bd.shape.radius = CR_R(0.02);
        bd.material.density = CR_R(7800);
        bd.position = cr_v3(i ? CR_R(0.06) : CR_R(-0.06), CR_R(1.2), 0);
        bd.linear_velocity = cr_v3(0, CR_R(-5), 0);
        cr_body_id ball;
        if (cr_body_create(world, &bd, &ball) != CR_OK) return 1;
    }

    /* a spark: category 2, colliding with everything but category 1 (the plate's default) */
    cr_body_def sd = cr_default_body_def();
    sd.shape.radius = CR_R(0.01);
    sd.position = cr_v3(0, CR_R(1.2), CR_R(0.05));
    sd.linear_velocity = cr_v3(0, CR_R(-5), 0);
    sd.filter.category_bits = 2;
    sd.filter.mask_bits = ~(uint64_t)1;
    cr_body_id spark;
    if (cr_body_create(world, &sd, &spark) != CR_OK) return 1;
    /* a trigger volume under the plate: reports overlaps, pushes nothing */
    cr_body_def td = cr_default_body_def();
    td.type = CR_BODY_STATIC;
    td.shape.type = CR_SHAPE_BOX;
    td.shape.half_extents = cr_v3(CR_R(0.3), CR_R(0.1), CR_R(0.3));
    td.position = cr_v3(0, CR_R(0.5), 0);
    td.is_sensor = true;
    td.filter.category_bits = 4; /* sensors obey filters too: the spark must collide with category 4 */
    cr_body_id trigger;
    if (cr_body_create(world, &td, &trigger) != CR_OK) return 1;

    /* where the first ball will land, as the level was built */
    cr_real top = 0, floor = 0;
    if (!plate_height(world, plate, CR_R(-0.06), 0, &top)) return 1;

    /* 4. the frame loop */
    uint32_t impacts = 0, dents = 0, uploaded = 0, spark_seen = 0;
    for (int frame = 0; frame < 60; ++frame) {
        cr_world_step(world, CR_R(1.0 / 60.0));

        cr_impact_event ev[16];
        uint32_t ne = cr_world_get_events(world, ev, 16);
        impacts += ne;
        cr_dent_event de[4];
        uint32_t nd = cr_world_get_dent_events(world, de, 4);
        for (uint32_t i = 0; i < nd && i < 4; ++i) {
            printf("frame %2d: dent %.4f m deep at (%.3f %.3f %.3f), vertices %u..%u\n", frame,
                   cr_to_double(de[i].depth), cr_to_double(de[i].world_point.x), cr_to_double(de[i].world_point.y),
                   cr_to_double(de[i].world_point.z), de[i].first_vertex, de[i].last_vertex);
            ++dents;
        }
        cr_sensor_event se[8];
        uint32_t ns = cr_world_get_sensor_events(world, se, 8);
        for (uint32_t i = 0; i < ns && i < 8; ++i)
            if (se[i].begin && se[i].visitor.index1 == spark.index1) {
                printf("frame %2d: the spark fell through the plate into the trigger\n", frame);
                ++spark_seen;
            }
        /* the renderer's part: upload only the vertices that changed, range by range */
        cr_body_mesh mesh;
        if (cr_body_get_mesh(world, plate, &mesh) == CR_OK && mesh.dirty_range_count > 0) {
            for (uint32_t r = 0; r < mesh.dirty_range_count; ++r) {
                /* e.g. glBufferSubData(GL_ARRAY_BUFFER, first * stride, count * stride, ...) from
                 * mesh.positions[first..] and mesh.normals[first..] (body frame: draw with the body's transform) */
                uploaded += mesh.dirty_ranges[r].count;
            }
            cr_body_clear_dirty(world, plate);
        }
    }
    /* the same ray now meets the dent's floor: queries see the surface as it is */
    bool in_dent = plate_height(world, plate, CR_R(-0.06), 0, &floor) && floor < top;
    printf("the ray at the first ball's landing met the plate at y %.4f m before, %.4f m now\n", cr_to_double(top),
           cr_to_double(floor));
    cr_memory_stats m = cr_world_memory_stats(world);
    printf("impacts %u, dents %u, vertices uploaded %u, spark seen %u, memory high water %zu of %zu, state %016llx\n",
           impacts, dents, uploaded, spark_seen, m.high_water, m.capacity, (unsigned long long)cr_world_state_hash(world));
    free(block); /* no destroy call: the block is ours */
    free(asset_block);
    free(file);
    return dents > 0 && uploaded > 0 && spark_seen == 1 && in_dent ? 0 : 1;
}
