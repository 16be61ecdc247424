/* test_bend.c — the bending model (seed 000 §4) on cooked, rigged meshes:
 * a body divided into sub-bodies by bone keeps its mass and centre, a bar
 * struck in the middle keeps a bend that grows with the blow and holds with
 * no load, the drawn mesh follows the bones, and snapshots restore it. */
#include "test_cook_util.h"
#include "crumple/snapshot.h"

typedef struct bend_world {
    cr_cook_result cooked;
    cr_asset asset;
    void *asset_block;
    uint32_t slot;
    cr_world *w;
    void *block;
    size_t size;
    cr_body_id body;
} bend_world;

/* Cook `mesh` with the rig at `rig`, or with `auto_bones` automatic bones. */
static int cook_rigged(bend_world *b, const char *mesh, const char *rig, uint32_t auto_bones, int sdf_res, double scale) {
    memset(b, 0, sizeof *b);
    cr_cook_options opt = cr_cook_default_options();
    opt.quiet = true;
    opt.sdf_res = sdf_res;
    opt.rig_path = rig;
    opt.auto_bones = auto_bones;
    if (scale > 0) opt.scale = scale;
    char err[512];
    if (cr_cook_file(mesh, NULL, &opt, &b->cooked, err, sizeof err) != 0) {
        cr_test_printf("    %s\n", err);
        return 0;
    }
    b->asset_block = tc_load(b->cooked.bytes, b->cooked.size, &b->asset);
    return b->asset_block != NULL;
}

static int make_world(bend_world *b, cr_vec3 gravity) {
    cr_world_def def = cr_default_world_def();
    def.body_capacity = 32;
    def.gravity = gravity;
    def.sleep = false;
    def.damage.bend = cr_default_bend_budget();
    def.damage.bend.body_capacity = 2;
    def.damage.surface_bytes = 16u << 20;
    b->size = cr_world_memory_size(&def);
    if (b->size == 0) return 0;
    b->block = aligned_alloc(CR_BLOCK_ALIGN, (b->size + 15) / 16 * 16);
    if (cr_world_create(&def, b->block, b->size, &b->w) != CR_OK) return 0;
    return cr_world_add_asset(b->w, &b->asset, &b->slot) == CR_OK;
}

static void free_world(bend_world *b) {
    free(b->block);
    free(b->asset_block);
    cr_cook_result_free(&b->cooked);
}

static cr_status add_body(bend_world *b, cr_vec3 at, double density, cr_body_id *out) {
    cr_body_def d = cr_default_body_def();
    d.shape.type = CR_SHAPE_MESH;
    d.shape.asset = b->slot;
    d.position = at;
    d.material.density = cr_from_float((float)density);
    d.material.restitution = 0;
    return cr_body_create(b->w, &d, out);
}

static double dd(cr_real x) { return cr_to_double(x); }


/* The mass and centre of the sub-bodies against the body they were cut from. */
static int check_division(bend_world *b, double *mass_err, double *centre_err) {
    double m0 = dd(cr_body_get_mass(b->w, b->body));
    cr_vec3 c0 = cr_body_get_transform(b->w, b->body).p;
    cr_bend_def zero;
    memset(&zero, 0, sizeof zero);
    if (cr_bend_attach(b->w, b->body, &zero) != CR_ERR_DEF_NOT_DEFAULTED) return 0;
    cr_bend_def bd = cr_default_bend_def();
    if (cr_bend_attach(b->w, b->body, &bd) != CR_OK) return 0;
    if (cr_bend_attach(b->w, b->body, &bd) != CR_ERR_DEF_INVALID) return 0; /* twice */
    uint32_t n = cr_bend_get_bone_count(b->w, b->body);
    if (n != b->asset.bone_count) return 0;
    double m = 0, cx = 0, cy = 0, cz = 0;
    for (uint32_t k = 0; k < n; ++k) {
        cr_body_id s = cr_bend_get_sub_body(b->w, b->body, k);
        double mk = dd(cr_body_get_mass(b->w, s));
        cr_vec3 p = cr_body_get_transform(b->w, s).p;
        if (!cr_body_is_valid(b->w, s) || mk <= 0) return 0;
        m += mk, cx += mk * dd(p.x), cy += mk * dd(p.y), cz += mk * dd(p.z);
        if (cr_joint_id_is_null(cr_bend_get_joint(b->w, b->body, k)) != (b->asset.bones[k].parent < 0)) return 0;
    }
    *mass_err = fabs(m - m0) / m0;
    double dx = cx / m - dd(c0.x), dy = cy / m - dd(c0.y), dz = cz / m - dd(c0.z);
    *centre_err = sqrt(dx * dx + dy * dy + dz * dz);
    return 1;
}

CR_TEST(bend_attach_divides_a_body_into_sub_bodies_by_bone) {
    const char *meshes[3] = {"data/meshes/bar.obj", "data/meshes/spot.obj", "data/meshes/teapot.obj"};
    for (int i = 0; i < 3; ++i) {
        bend_world b;
        ENSURE(cook_rigged(&b, meshes[i], i == 0 ? "data/rigs/bar.rig" : NULL, i == 0 ? 0 : 3, 32, 0));
        ENSURE(make_world(&b, cr_v3_zero()));
        ENSURE(add_body(&b, cr_v3(CR_R(1), CR_R(2), CR_R(3)), 1000, &b.body) == CR_OK);
        double mass_err, centre_err;
        uint32_t bodies0 = cr_world_get_body_ids(b.w, NULL, 0);
        ENSURE(check_division(&b, &mass_err, &centre_err));
        cr_test_printf("    %-22s %u bones: mass off by %.1e (relative), centre by %.2e m (cell %.3f m)\n", meshes[i],
                       b.asset.bone_count, mass_err, centre_err, dd(b.asset.sdf_cell));
        ENSURE(cr_world_get_body_ids(b.w, NULL, 0) == bodies0 + b.asset.bone_count);
        ENSURE(mass_err < 1e-4);
        ENSURE(centre_err < dd(b.asset.sdf_cell)); /* the grid's nodes, not the surface, weigh the sub-bodies */
        /* destroying the body takes its sub-bodies and joints with it */
        ENSURE(cr_body_destroy(b.w, b.body) == CR_OK);
        ENSURE(cr_world_get_body_ids(b.w, NULL, 0) == bodies0 - 1);
        ENSURE(cr_world_get_joint_count(b.w) == 0);
        free_world(&b);
    }
}
