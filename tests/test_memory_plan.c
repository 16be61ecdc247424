/* test_memory_plan.c — memory a game can plan before it has a world
 * (issue 18): the block region by region from the def, the damage bytes of an
 * asset, the targets (5 bodies and a 9k-vertex dentable plate in
 * 2 MiB), and a mesh body placed "as modelled" from its level transform. */
#define _POSIX_C_SOURCE 200809L
#include "test_cook_util.h"
#include "test_memory_doc.h"
#include "cli.h"
#include "scene.h"

#include <unistd.h>

#define MIB (1024.0 * 1024.0)

static cr_real abs_diff(cr_real a, cr_real b) { return a > b ? a - b : b - a; }

static uint64_t report_sum(const cr_world_def *d, uint32_t *count) {
    cr_memory_region r[CR_MEMORY_REGION_MAX];
    uint32_t n = cr_world_memory_report(d, r, CR_MEMORY_REGION_MAX);
    uint64_t sum = 0;
    for (uint32_t i = 0; i < n && i < CR_MEMORY_REGION_MAX; ++i) sum += r[i].bytes;
    *count = n;
    return sum;
}

static void print_report(const cr_world_def *d) {
    cr_memory_region r[CR_MEMORY_REGION_MAX];
    uint32_t n = cr_world_memory_report(d, r, CR_MEMORY_REGION_MAX);
    for (uint32_t i = 0; i < n; ++i)
        cr_test_printf("    %10llu  %-60s %s\n", (unsigned long long)r[i].bytes, r[i].name, r[i].field);
}

static uint32_t no_damage(void *user, struct cr_custom_step *step) {
    (void)user, (void)step;
    return 0;
}

CR_TEST(memory_report_regions_add_up_to_the_block) {
    cr_world_def d = cr_default_world_def();
    uint32_t n = 0;
    ENSURE(report_sum(&d, &n) == cr_world_memory_need(&d));
    ENSURE(n > 8 && n <= CR_MEMORY_REGION_MAX);
    /* every region names what it holds; every capacity-sized one its field */
    cr_memory_region r[CR_MEMORY_REGION_MAX];
    ENSURE(cr_world_memory_report(&d, r, CR_MEMORY_REGION_MAX) == n);
    int bodies = 0;
    for (uint32_t i = 0; i < n; ++i) {
        ENSURE(r[i].name != NULL && r[i].name[0] != 0 && r[i].field != NULL && r[i].bytes > 0);
        if (strcmp(r[i].name, "bodies") == 0) bodies = strcmp(r[i].field, "body_capacity") == 0;
    }
    ENSURE(bodies);
    /* more bodies: the report grows by what the block grows */
    cr_world_def big = d;
    big.body_capacity *= 4;
    ENSURE(report_sum(&big, &n) == cr_world_memory_need(&big));
    /* damage models, and a host scratch beyond the need, are their own lines */
    cr_world_def dent = d;
    dent.damage.dent.body_capacity = 3;
    dent.damage.example.body_capacity = 2;
    dent.damage.custom.body_capacity = 2;
    dent.damage.custom.state_bytes = 64;
    dent.damage.custom.step = no_damage;
    dent.damage.surface_bytes = 123456;
    dent.scratch_bytes = 64u << 20;
    ENSURE(cr_world_memory_need(&dent) > 0 && report_sum(&dent, &n) == cr_world_memory_need(&dent));
    ENSURE(cr_world_memory_report(&dent, r, CR_MEMORY_REGION_MAX) == n);
    int surface = 0, beyond = 0;
    for (uint32_t i = 0; i < n; ++i) {
        if (strstr(r[i].field, "surface_bytes") != NULL) surface = r[i].bytes == (123456u + 15u) / 16u * 16u;
        if (strcmp(r[i].field, "scratch_bytes") == 0) beyond = r[i].bytes == (64u << 20) - cr_world_scratch_size(&dent);
    }
    ENSURE(surface && beyond);
    /* every model and the soft bodies too: each is a line of its own, and
     * what is left over for the block's alignment stays a few bytes (a
     * region the report forgot would land there) */
    cr_world_def all = dent;
    all.damage.bend.body_capacity = all.damage.squash.body_capacity = all.damage.fracture.body_capacity = 1;
    all.spring.body_capacity = 2, all.spring.particle_capacity = 400, all.spring.spring_capacity = 2000;
    uint32_t n_all = 0;
    ENSURE(cr_world_memory_need(&all) > 0 && report_sum(&all, &n_all) == cr_world_memory_need(&all));
    ENSURE(cr_world_memory_report(&all, r, CR_MEMORY_REGION_MAX) == n_all);
    int lines = 0;
    for (uint32_t i = 0; i < n_all; ++i) {
        if (strcmp(r[i].name, "alignment") == 0) ENSURE_MSG(r[i].bytes <= 256, "alignment %llu B", (unsigned long long)r[i].bytes);
        lines += strstr(r[i].name, "bending") != NULL || strstr(r[i].name, "squash") != NULL ||
                 strstr(r[i].name, "fracture") != NULL || strstr(r[i].name, "soft bodies") != NULL;
    }
    ENSURE(lines == 4);
    /* counting only, and a short array, give the same count */
    ENSURE(cr_world_memory_report(&dent, NULL, 0) == n);
    ENSURE(cr_world_memory_report(&dent, r, 2) == n);
    /* a refused def has no report */
    cr_world_def bad = d;
    bad.cookie = 0;
    ENSURE(cr_world_memory_report(&bad, r, CR_MEMORY_REGION_MAX) == 0);
    ENSURE(cr_world_memory_report(NULL, r, CR_MEMORY_REGION_MAX) == 0);
}

typedef struct plate_asset {
    cr_cook_result cooked;
    cr_asset a;
    void *block;
} plate_asset;

static int cook_plate(plate_asset *p) {
    cr_cook_options opt = cr_cook_default_options();
    opt.quiet = true;
    char err[512];
    memset(p, 0, sizeof *p);
    if (cr_cook_file("data/meshes/plate.obj", NULL, &opt, &p->cooked, err, sizeof err) != 0) {
        cr_test_printf("    %s\n", err);
        return 0;
    }
    p->block = tc_load(p->cooked.bytes, p->cooked.size, &p->a);
    return p->block != NULL;
}

static void free_plate(plate_asset *p) {
    free(p->block);
    cr_cook_result_free(&p->cooked);
}

/* The target: a small level, four things thrown at a dentable 9k-vertex
 * plate, sized the documented way (docs/memory.md): capacities for 5 bodies,
 * surface_bytes from cr_asset_damage_bytes. It fits in 2 MiB, runs without
 * running short of anything, and dents. */
CR_TEST(memory_five_bodies_and_a_dentable_plate_fit_2_mib) {
    plate_asset plate;
    ENSURE(cook_plate(&plate));
    ENSURE(plate.a.vertex_count > 9000);
    cr_world_def def = cr_default_world_def();
    def.body_capacity = 5;
    def.joint_capacity = 0;
    def.asset_capacity = 1;
    def.pair_capacity = 16;     /* 5 bodies: 10 pairs at most */
    def.contact_capacity = 16;
    def.points_per_pair = 64;
    def.point_capacity = 320;  /* 4 bodies on the plate, 64 points each at most, and a margin */
    def.event_capacity = 64;
    def.damage.dent.body_capacity = 1;
    /* the report's largest line was the dent model: two dent maps of
     * max_cells^2 (default 200) and the grid patch's old values, as many as
     * work_per_step (default 2^20, capped at 200000 nodes): 2.7 MiB in float,
     * 5.4 in fixed. 48 cells across a 30 cm plate is a 6 mm map cell; with
     * 2^16 work units a step the dents are made (their maps a little smaller
     * than planned: counted in stats.dent.shrunk, printed below). */
    def.damage.dent.max_cells = 48;
    def.damage.dent.work_per_step = 1u << 16;
    def.damage.surface_bytes = (uint32_t)cr_asset_damage_bytes(&plate.a);
    size_t size = cr_world_memory_size(&def);
    cr_test_printf("  5 bodies + a %u-vertex dentable plate: block %.3f MiB, of which the plate's copy %.3f MiB\n",
                   plate.a.vertex_count, size / MIB, def.damage.surface_bytes / MIB);
    print_report(&def);
    ENSURE(size > 0 && size <= 2u * 1024u * 1024u);
    ENSURE_MEMORY_DOC("5 bodies and the", size);

    void *block = aligned_alloc(CR_BLOCK_ALIGN, (size + CR_BLOCK_ALIGN - 1) / CR_BLOCK_ALIGN * CR_BLOCK_ALIGN);
    cr_world *w = NULL;
    ENSURE(cr_world_create(&def, block, size, &w) == CR_OK);
    uint32_t slot;
    ENSURE(cr_world_add_asset(w, &plate.a, &slot) == CR_OK);
    cr_body_def pd = cr_default_body_def();
    pd.type = CR_BODY_STATIC;
    pd.shape.type = CR_SHAPE_MESH;
    pd.shape.asset = slot;
    cr_body_id pid;
    ENSURE(cr_body_create_as_modelled(w, &pd, cr_transform_identity(), &pid) == CR_OK);
    cr_dent_def dd = cr_default_dent_def();
    dd.threshold_speed = CR_R(1);
    dd.min_cells = 24;
    ENSURE(cr_dent_attach(w, pid, &dd) == CR_OK);
    for (int i = 0; i < 4; ++i) {
        cr_body_def bd = cr_default_body_def();
        bd.shape.type = i % 2 ? CR_SHAPE_BOX : CR_SHAPE_SPHERE;
        bd.shape.radius = CR_R(0.02);
        bd.shape.half_extents = cr_v3(CR_R(0.02), CR_R(0.02), CR_R(0.02));
        bd.material.density = CR_R(7800);
        bd.position = cr_v3(i < 2 ? CR_R(-0.07) : CR_R(0.07), CR_R(0.1) + cr_from_int(i) / 20, i % 2 ? CR_R(0.07) : CR_R(-0.07));
        bd.linear_velocity = cr_v3(0, CR_R(-4), 0);
        cr_body_id id;
        ENSURE(cr_body_create(w, &bd, &id) == CR_OK);
    }
    uint32_t dents = 0, shrunk = 0, short_of_room = 0;
    for (int f = 0; f < 90; ++f) {
        ENSURE(cr_world_step(w, CR_R(1.0 / 60.0)) == CR_OK);
        cr_world_stats st = cr_world_get_stats(w);
        dents += st.dent.done;
        shrunk += st.dent.shrunk;
        short_of_room += st.stage[CR_STAGE_broadphase].overflow + st.stage[CR_STAGE_events].overflow +
                         st.dent.over_capacity + st.stage[CR_STAGE_commands].overflow;
    }
    cr_memory_stats m = cr_world_memory_stats(w);
    cr_test_printf("  90 frames: %u dents (%u made smaller to fit the step's work), high water %.3f of %.3f MiB\n", dents, shrunk, m.high_water / MIB, m.capacity / MIB);
    ENSURE(dents >= 4);
    ENSURE(short_of_room == 0);
    free(block);
    free_plate(&plate);
}

/* What a game keeps resident for a cooked asset, section by section: the
 * file's bytes and the load block's, adding up to the file and to
 * cr_asset_memory_size, each section saying who reads it. */
CR_TEST(memory_resident_report_adds_up_to_the_file_and_the_load_block) {
    plate_asset plate;
    ENSURE(cook_plate(&plate));
    cr_asset_section_bytes sec[40];
    uint32_t n = cr_asset_resident_report(plate.cooked.bytes, plate.cooked.size, sec, 40);
    ENSURE(n > 8 && n <= 40);
    uint64_t file = 0, block = 0, geodesic = 0;
    for (uint32_t i = 0; i < n; ++i) {
        file += sec[i].file_bytes, block += sec[i].block_bytes;
        ENSURE(strlen(sec[i].tag) == 4 && sec[i].what != NULL && sec[i].read_by != NULL);
        if (strncmp(sec[i].tag, "GEO", 3) == 0) {
            geodesic += sec[i].file_bytes + sec[i].block_bytes;
            ENSURE(strcmp(sec[i].read_by, "example plasticity") == 0);
        }
        cr_test_printf("    %s %9llu file %9llu block  %-28s read by %s\n", sec[i].tag, (unsigned long long)sec[i].file_bytes,
                       (unsigned long long)sec[i].block_bytes, sec[i].what, sec[i].read_by);
    }
    cr_test_printf("  the plate resident: %.3f MiB file + %.3f MiB block, geodesic lists %.3f MiB of it\n", file / MIB,
                   block / MIB, geodesic / MIB);
    ENSURE(file == plate.cooked.size);
    ENSURE(block == cr_asset_memory_size(plate.cooked.bytes, plate.cooked.size));
    ENSURE(geodesic > 0);
    /* fewer slots than sections: the count says how many there are */
    ENSURE(cr_asset_resident_report(plate.cooked.bytes, plate.cooked.size, sec, 2) == n);
    /* not an asset: nothing */
    uint8_t junk[400] = {0};
    ENSURE(cr_asset_resident_report(junk, sizeof junk, sec, 40) == 0);
    ENSURE(cr_asset_resident_report(NULL, 0, sec, 40) == 0);
    free_plate(&plate);
}

/* `crumple run SCENE --memory` ends with the whole bill: the block and the
 * assets resident beside it, each asset's file and load blocks. */
CR_TEST(memory_run_memory_adds_the_resident_assets) {
    char path[] = "/tmp/crumple_memory_XXXXXX";
    int fd = mkstemp(path);
    ENSURE(fd >= 0);
    fflush(stdout);
    int saved = dup(1);
    ENSURE(saved >= 0 && dup2(fd, 1) >= 0);
    char *args[] = {"run", "data/scenes/dent_bunny.scene", "--memory"};
    int rc = cr_cmd_run(3, args);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    close(fd);
    ENSURE(rc == 0);
    FILE *f = fopen(path, "r");
    ENSURE(f != NULL);
    char line[512];
    unsigned long long total = 0, assets_seen = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, "total ", 6) == 0) ENSURE(sscanf(line + 6, " %llu", &total) == 1);
        if (strstr(line, "  asset ") != NULL && strstr(line, ": file ") != NULL) ++assets_seen; /* "asset NAME: file ..." */
    }
    fclose(f);
    remove(path);
    /* the same bill from the scene: the block plus each asset's file and load block */
    cr_scene *s = NULL;
    cr_scene_error e;
    cr_world *w = NULL;
    ENSURE(cr_scene_load("data/scenes/dent_bunny.scene", &s, &e) == 0 && cr_scene_build(s, &w, &e) == 0);
    cr_world_def def = cr_world_get_def(w);
    uint64_t want = cr_world_memory_size(&def);
    for (ptrdiff_t i = 0; i < arrlen(s->assets); ++i) want += s->assets[i].size_ + cr_asset_memory_size(s->assets[i].bytes_, s->assets[i].size_);
    cr_test_printf("  dent_bunny --memory: %llu assets, total %.3f MiB (the block %.3f MiB)\n", assets_seen, total / MIB,
                   cr_world_memory_size(&def) / MIB);
    ENSURE(assets_seen == (unsigned long long)arrlen(s->assets) && assets_seen >= 2);
    ENSURE(total == want);
    cr_cli_world_free(w);
    cr_scene_free(s);
}

/* The plate cooked for dents only (`crumple cook --models rigid,dent`): the
 * sections only soft bodies and example plasticity read are left out, the
 * loader takes it, and two balls dent it to the same bits as the full asset. */
static uint64_t dent_plate_hash(const cr_asset *plate, size_t *block_bytes) {
    cr_world_def def = cr_default_world_def();
    def.body_capacity = 4;
    def.asset_capacity = 1;
    def.damage.dent.body_capacity = 1;
    def.damage.dent.max_cells = 48;
    def.damage.surface_bytes = (uint32_t)cr_asset_damage_bytes(plate);
    size_t size = cr_world_memory_size(&def);
    *block_bytes = size;
    void *block = aligned_alloc(CR_BLOCK_ALIGN, (size + CR_BLOCK_ALIGN - 1) / CR_BLOCK_ALIGN * CR_BLOCK_ALIGN);
    cr_world *w = NULL;
    uint32_t slot;
    cr_body_id pid, id;
    uint64_t h = 0;
    if (block == NULL || cr_world_create(&def, block, size, &w) != CR_OK || cr_world_add_asset(w, plate, &slot) != CR_OK)
        goto done;
    cr_body_def pd = cr_default_body_def();
    pd.type = CR_BODY_STATIC, pd.shape.type = CR_SHAPE_MESH, pd.shape.asset = slot;
    cr_dent_def dd = cr_default_dent_def();
    dd.threshold_speed = CR_R(1);
    if (cr_body_create(w, &pd, &pid) != CR_OK || cr_dent_attach(w, pid, &dd) != CR_OK) goto done;
    for (int i = 0; i < 2; ++i) {
        cr_body_def bd = cr_default_body_def();
        bd.shape.radius = CR_R(0.02);
        bd.material.density = CR_R(7800);
        bd.position = cr_v3(i ? CR_R(0.06) : CR_R(-0.06), CR_R(0.2), 0);
        bd.linear_velocity = cr_v3(0, CR_R(-5), 0);
        if (cr_body_create(w, &bd, &id) != CR_OK) goto done;
    }
    for (int f = 0; f < 40; ++f) cr_world_step(w, CR_R(1.0 / 60.0));
    cr_body_mesh m;
    if (cr_body_get_mesh(w, pid, &m) != CR_OK || m.dent_count < 2) goto done;
    h = 1469598103934665603ull;
    const uint8_t *p = (const uint8_t *)m.positions;
    for (size_t k = 0; k < m.vertex_count * sizeof(cr_vec3); ++k) h = (h ^ p[k]) * 1099511628211ull;
done:
    free(block);
    return h;
}

CR_TEST(memory_dent_only_asset_leaves_out_what_dents_never_read) {
    plate_asset full;
    ENSURE(cook_plate(&full));
    cr_cook_options opt = cr_cook_default_options();
    opt.quiet = true;
    const char *bad;
    size_t bad_len;
    ENSURE(cr_cook_models_leave_out("rigid,dent", &opt.leave_out, &bad, &bad_len) == 0);
    ENSURE(opt.leave_out == (CR_COOK_LEAVE_ADJACENCY | CR_COOK_LEAVE_GEODESICS));
    ENSURE(cr_cook_models_leave_out("dent,blob", &opt.leave_out, &bad, &bad_len) != 0 && bad_len == 4 && strncmp(bad, "blob", 4) == 0);
    ENSURE(cr_cook_models_leave_out("example,soft", &opt.leave_out, &bad, &bad_len) == 0 && opt.leave_out == 0);
    ENSURE(cr_cook_models_leave_out("dent", &opt.leave_out, &bad, &bad_len) == 0);
    cr_cook_result lean;
    char err[512];
    ENSURE(cr_cook_file("data/meshes/plate.obj", NULL, &opt, &lean, err, sizeof err) == 0);
    cr_asset a;
    void *ablock = tc_load(lean.bytes, lean.size, &a);
    ENSURE(ablock != NULL);
    ENSURE(a.adjacency_start == NULL && a.geodesic_start == NULL && a.geodesic_count == 0);
    /* what was left out is what the file lost, but for the sections' 16-byte padding */
    ENSURE(lean.size + lean.left_out_bytes + 64 >= full.cooked.size && lean.size + lean.left_out_bytes <= full.cooked.size + 64);
    cr_test_printf("  the plate for dents: %.3f MiB resident, the full asset %.3f MiB (left out %.3f MiB)\n", lean.size / MIB,
                   full.cooked.size / MIB, lean.left_out_bytes / MIB);
    size_t b1, b2;
    uint64_t h_full = dent_plate_hash(&full.a, &b1), h_lean = dent_plate_hash(&a, &b2);
    ENSURE(h_full != 0 && h_full == h_lean && b1 == b2);
    free(ablock);
    cr_cook_result_free(&lean);
    free_plate(&full);
}

/* A scene cooks each .obj asset with only the sections its bodies read: the
 * dent scene's plate and bunny have neither geodesics nor adjacency, the
 * plastic barrel keeps its geodesics, the soft ball its adjacency. */
static int scene_assets(const char *name, bool *adjacency, bool *geodesics) {
    char path[256];
    snprintf(path, sizeof path, "data/scenes/%s.scene", name);
    cr_scene *s = NULL;
    cr_scene_error e;
    if (cr_scene_load(path, &s, &e) || cr_scene_load_assets(s, &e)) {
        cr_scene_error_print(stdout, &e);
        cr_scene_free(s);
        return -1;
    }
    *adjacency = *geodesics = false;
    for (ptrdiff_t i = 0; i < arrlen(s->assets); ++i) {
        *adjacency = *adjacency || s->assets[i].view_->adjacency_start != NULL;
        *geodesics = *geodesics || s->assets[i].view_->geodesic_start != NULL;
    }
    cr_scene_free(s);
    return 0;
}

CR_TEST(memory_scenes_cook_only_the_sections_their_bodies_read) {
    bool adj, geo;
    ENSURE(scene_assets("dent_bunny", &adj, &geo) == 0);
    ENSURE_MSG(!adj && !geo, "dent_bunny's assets: adjacency %d, geodesics %d (no body reads them)", adj, geo);
    ENSURE(scene_assets("example_bounce", &adj, &geo) == 0);
    ENSURE_MSG(!adj && geo, "example_bounce's barrel: adjacency %d, geodesics %d", adj, geo);
    ENSURE(scene_assets("soft_drop", &adj, &geo) == 0);
    ENSURE_MSG(adj && !geo, "soft_drop's ball: adjacency %d, geodesics %d", adj, geo);
}

/* cr_asset_damage_bytes is exactly what attaching takes: that many bytes of
 * surface memory fit one body, 16 fewer do not. */
CR_TEST(memory_asset_damage_bytes_is_what_attach_takes) {
    plate_asset plate;
    ENSURE(cook_plate(&plate));
    uint64_t need = cr_asset_damage_bytes(&plate.a);
    ENSURE(need > (uint64_t)plate.a.vertex_count * 2u * sizeof(cr_vec3));
    ENSURE(cr_asset_damage_bytes(NULL) == 0);
    for (int fewer = 0; fewer < 2; ++fewer) {
        cr_world_def def = cr_default_world_def();
        def.body_capacity = 2;
        def.damage.dent.body_capacity = 1;
        def.damage.surface_bytes = (uint32_t)need - (fewer ? 16u : 0u);
        size_t size = cr_world_memory_size(&def);
        void *block = aligned_alloc(CR_BLOCK_ALIGN, (size + CR_BLOCK_ALIGN - 1) / CR_BLOCK_ALIGN * CR_BLOCK_ALIGN);
        cr_world *w = NULL;
        ENSURE(cr_world_create(&def, block, size, &w) == CR_OK);
        uint32_t slot;
        ENSURE(cr_world_add_asset(w, &plate.a, &slot) == CR_OK);
        cr_body_def pd = cr_default_body_def();
        pd.type = CR_BODY_STATIC;
        pd.shape.type = CR_SHAPE_MESH;
        pd.shape.asset = slot;
        cr_body_id pid;
        ENSURE(cr_body_create(w, &pd, &pid) == CR_OK);
        cr_dent_def dd = cr_default_dent_def();
        ENSURE(cr_dent_attach(w, pid, &dd) == (fewer ? CR_ERR_CAPACITY : CR_OK));
        free(block);
    }
    free_plate(&plate);
}

/* An L of two boxes modelled away from the origin: its principal frame is
 * shifted and turned. Placed with cr_body_create_as_modelled at a level
 * transform, every vertex lands where that transform puts the OBJ's vertex. */
CR_TEST(memory_mesh_body_as_modelled_lands_where_the_level_puts_it) {
    char *obj = NULL;
    tc_box(&obj, 1.0, 2.0, 3.0, 1.6, 2.1, 3.2, 1);
    tc_box(&obj, 1.0, 2.1, 3.0, 1.1, 2.5, 3.2, 9);
    double src[16][3];
    {
        double x[2] = {1.0, 1.6}, y[2] = {2.0, 2.1}, z[2] = {3.0, 3.2};
        double x2[2] = {1.0, 1.1}, y2[2] = {2.1, 2.5};
        for (int i = 0; i < 8; ++i) {
            src[i][0] = x[i & 1], src[i][1] = y[(i >> 1) & 1], src[i][2] = z[(i >> 2) & 1];
            src[8 + i][0] = x2[i & 1], src[8 + i][1] = y2[(i >> 1) & 1], src[8 + i][2] = z[(i >> 2) & 1];
        }
    }
    cr_cook_options opt = cr_cook_default_options();
    opt.quiet = true;
    opt.sdf_res = 24;
    cr_cook_result cooked;
    ENSURE(tc_cook_text("ell.obj", obj, (size_t)arrlen(obj), &opt, &cooked) == 0);
    arrfree(obj);
    cr_asset a;
    void *ablock = tc_load(cooked.bytes, cooked.size, &a);
    ENSURE(ablock != NULL);
    ENSURE(cr_to_double(cr_v3_len(a.mesh_to_body.p)) > 0.5); /* the principal frame is far from the file's */

    cr_world_def def = cr_default_world_def();
    def.body_capacity = 4;
    def.asset_capacity = 1;
    size_t size = cr_world_memory_size(&def);
    void *block = aligned_alloc(CR_BLOCK_ALIGN, (size + CR_BLOCK_ALIGN - 1) / CR_BLOCK_ALIGN * CR_BLOCK_ALIGN);
    cr_world *w = NULL;
    ENSURE(cr_world_create(&def, block, size, &w) == CR_OK);
    uint32_t slot;
    ENSURE(cr_world_add_asset(w, &a, &slot) == CR_OK);
    /* the level: 30 degrees about an oblique axis, moved 5 m */
    cr_transform level;
    level.q = cr_quat_normalize((cr_quat){CR_R(0.2), CR_R(0.3), CR_R(0.1), CR_R(0.9)});
    level.p = cr_v3(CR_R(5), CR_R(-1), CR_R(2));
    cr_body_def bd = cr_default_body_def();
    bd.type = CR_BODY_STATIC;
    bd.shape.type = CR_SHAPE_MESH;
    bd.shape.asset = slot;
    cr_body_id id;
    ENSURE(cr_body_create_as_modelled(w, &bd, level, &id) == CR_OK);
    cr_transform pose = cr_body_get_transform(w, id);
    cr_body_mesh m;
    ENSURE(cr_body_get_mesh(w, id, &m) == CR_OK);
    double worst = 0;
    for (int i = 0; i < 16; ++i) {
        cr_vec3 want = cr_transform_point(level, cr_v3(cr_from_float((float)src[i][0]), cr_from_float((float)src[i][1]), cr_from_float((float)src[i][2])));
        double best = 1e9;
        for (uint32_t v = 0; v < m.vertex_count; ++v) {
            double d = cr_to_double(cr_v3_len(cr_v3_sub(cr_transform_point(pose, m.positions[v]), want)));
            if (d < best) best = d;
        }
        if (best > worst) worst = best;
    }
    cr_test_printf("  farthest vertex from where the level put it: %.3g m\n", worst);
    ENSURE(worst < 1e-4);
    /* the pure function gives the same pose (create normalises the
     * orientation once more: in fixed point that may move the last bits) */
    cr_transform p2 = cr_asset_body_pose(&a, level);
    ENSURE(p2.p.x == pose.p.x && p2.p.y == pose.p.y && p2.p.z == pose.p.z);
    ENSURE(cr_to_double(abs_diff(p2.q.w, pose.q.w)) < 1e-8 && cr_to_double(abs_diff(p2.q.x, pose.q.x)) < 1e-8);
    /* an analytic shape has no modelled frame: refused, naming the field */
    cr_body_def sphere = cr_default_body_def();
    ENSURE(cr_body_create_as_modelled(w, &sphere, level, &id) == CR_ERR_DEF_INVALID);
    ENSURE(cr_world_refused_field(w) == CR_FIELD_BODY_SHAPE_ASSET);
    ENSURE(id.index1 == 0);
    free(block);
    free(ablock);
    cr_cook_result_free(&cooked);
}
