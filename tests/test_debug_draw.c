/* test_debug_draw.c — cr_world_draw as a game's overlay uses it: shapes at
 * the bodies' poses, a dented mesh drawn as it is now (not as cooked),
 * contacts, joints, the distance grid slice, and refused draws. */
#include "test_cook_util.h"

#include <string.h>

typedef struct recorder {
    uint32_t lines, points, triangles;
    uint32_t color_lines[16]; /* lines of a few colours, by colour */
    uint32_t colors[16];
    double top_y;             /* highest line end within 5 cm of the y axis */
    uint32_t inside, outside; /* grid points by colour */
} recorder;

static uint32_t *color_count(recorder *r, uint32_t c) {
    for (int i = 0; i < 16; ++i) {
        if (r->colors[i] == c || r->color_lines[i] == 0) {
            r->colors[i] = c;
            return &r->color_lines[i];
        }
    }
    return &r->color_lines[15];
}

static void end_point(recorder *r, cr_vec3 p) {
    double x = cr_to_double(p.x), y = cr_to_double(p.y), z = cr_to_double(p.z);
    if (x * x + z * z < 0.05 * 0.05 && y > r->top_y) r->top_y = y;
}

static void rec_line(void *ctx, cr_vec3 a, cr_vec3 b, uint32_t color) {
    recorder *r = (recorder *)ctx;
    r->lines++;
    (*color_count(r, color))++;
    end_point(r, a);
    end_point(r, b);
}
static void rec_point(void *ctx, cr_vec3 p, cr_real size, uint32_t color) {
    recorder *r = (recorder *)ctx;
    (void)p, (void)size;
    r->points++;
    if (color == CR_DRAW_COLOR_INSIDE) r->inside++;
    if (color == CR_DRAW_COLOR_OUTSIDE) r->outside++;
}
static void rec_triangle(void *ctx, cr_vec3 a, cr_vec3 b, cr_vec3 c, uint32_t color) {
    recorder *r = (recorder *)ctx;
    (void)a, (void)b, (void)c, (void)color;
    r->triangles++;
}

static cr_debug_draw recording(recorder *r) {
    memset(r, 0, sizeof *r);
    r->top_y = -1e9;
    cr_debug_draw d = cr_default_debug_draw();
    d.line = rec_line;
    d.point = rec_point;
    d.triangle = rec_triangle;
    d.context = r;
    return d;
}

static cr_world *small_world(void **block, uint32_t touch) {
    cr_world_def def = cr_default_world_def();
    def.body_capacity = 16;
    def.touch_capacity = touch;
    def.damage.dent = cr_default_dent_budget();
    def.damage.dent.body_capacity = 2;
    def.damage.surface_bytes = 4u << 20;
    size_t size = cr_world_memory_size(&def);
    *block = aligned_alloc(CR_BLOCK_ALIGN, (size + 15) / 16 * 16);
    cr_world *w = NULL;
    return cr_world_create(&def, *block, size, &w) == CR_OK ? w : NULL;
}

static cr_body_id add(cr_world *w, cr_body_def *bd) {
    cr_body_id id;
    memset(&id, 0, sizeof id);
    cr_body_create(w, bd, &id);
    return id;
}

CR_TEST(debug_draw_shapes_joints_contacts) {
    void *block;
    cr_world *w = small_world(&block, 16);
    ENSURE(w != NULL);
    cr_body_def g = cr_default_body_def();
    g.type = CR_BODY_STATIC;
    g.shape.type = CR_SHAPE_PLANE;
    add(w, &g);
    recorder r;
    cr_debug_draw d = recording(&r);
    ENSURE(cr_world_draw(w, &d, CR_DRAW_BODIES) == CR_OK);
    ENSURE(r.lines == 5); /* a plane: its square and its normal */
    /* a sphere: three circles of 16 segments */
    cr_body_def b = cr_default_body_def();
    b.shape.radius = CR_R(0.3);
    b.position = cr_v3(CR_R(3), CR_R(2), 0);
    cr_body_id ball = add(w, &b);
    cr_world *none = NULL;
    ENSURE(cr_world_draw(none, &d, CR_DRAW_BODIES) == CR_ERR_NULL_ARGUMENT);
    d = recording(&r);
    ENSURE(cr_world_draw(w, &d, CR_DRAW_BODIES) == CR_OK);
    ENSURE(r.lines == 5 + 48);
    /* a box on the ground: 12 edges, 12 triangles, its corners at |h| from its centre */
    cr_body_def bx = cr_default_body_def();
    bx.shape.type = CR_SHAPE_BOX;
    bx.shape.half_extents = cr_v3(CR_R(0.5), CR_R(0.25), CR_R(0.5));
    bx.position = cr_v3(0, CR_R(0.25), 0);
    bx.material.restitution = 0;
    cr_body_id box = add(w, &bx);
    for (int f = 0; f < 30; ++f) cr_world_step(w, CR_R(1.0 / 60.0));
    d = recording(&r);
    ENSURE(cr_world_draw(w, &d, CR_DRAW_CONTACTS) == CR_OK);
    /* the box rests on the ground: its contact points (and normals) are drawn */
    ENSURE_MSG(r.points >= 1 && r.lines == r.points, "points %u lines %u", r.points, r.lines);
    ENSURE(r.top_y < 0.3); /* near the ground, not at the box's top */
    /* a ball joint from the box to the ball: 3 lines and the anchor point */
    cr_joint_def jd = cr_default_joint_def();
    jd.type = CR_JOINT_POINT;
    jd.body_a = box;
    jd.body_b = ball;
    jd.anchor = cr_v3(CR_R(1.5), CR_R(1), 0);
    cr_joint_id j;
    ENSURE(cr_joint_create(w, &jd, &j) == CR_OK);
    d = recording(&r);
    ENSURE(cr_world_draw(w, &d, CR_DRAW_JOINTS) == CR_OK);
    ENSURE(r.lines == 3 && r.points == 1 && *color_count(&r, CR_DRAW_COLOR_JOINT) == 2);
    d = recording(&r);
    ENSURE(cr_world_draw(w, &d, CR_DRAW_BODIES | CR_DRAW_SLEEP) == CR_OK);
    ENSURE(r.triangles == 12 && r.lines == 5 + 48 + 12);
    ENSURE(*color_count(&r, CR_DRAW_COLOR_STATIC) == 5);
    d = recording(&r);
    ENSURE(cr_world_draw(w, &d, CR_DRAW_BROADPHASE) == CR_OK);
    ENSURE(r.lines == 2 * 12); /* a cell for each of the two moving bodies */
    /* refused draws draw nothing */
    cr_debug_draw raw;
    memset(&raw, 0, sizeof raw);
    ENSURE(cr_world_draw(w, &raw, CR_DRAW_BODIES) == CR_ERR_DEF_NOT_DEFAULTED);
    d = recording(&r);
    d.grid_body = box; /* not a mesh */
    ENSURE(cr_world_draw(w, &d, CR_DRAW_BODIES | CR_DRAW_DISTANCE_GRID) == CR_ERR_DEF_INVALID);
    ENSURE(r.lines == 0 && r.points == 0);
    free(block);
}

/* A dentable mesh sphere hit from above: the wireframe drawn is the dented
 * surface, and its distance grid slice has points inside and outside. */
CR_TEST(debug_draw_shows_the_dent_not_the_cooked_surface) {
    char *obj = NULL;
    tc_sphere(&obj, 0.5, 48, 24);
    cr_cook_options opt = cr_cook_default_options();
    opt.quiet = true;
    opt.sdf_res = 32;
    cr_cook_result cooked;
    int rc = tc_cook_text("sphere.obj", obj, (size_t)arrlen(obj), &opt, &cooked);
    arrfree(obj);
    ENSURE(rc == 0);
    cr_asset asset;
    void *asset_block = tc_load(cooked.bytes, cooked.size, &asset);
    ENSURE(asset_block != NULL);
    void *block;
    cr_world *w = small_world(&block, 0);
    ENSURE(w != NULL);
    cr_world_set_gravity(w, cr_v3_zero());
    uint32_t slot;
    ENSURE(cr_world_add_asset(w, &asset, &slot) == CR_OK);
    cr_body_def m = cr_default_body_def();
    m.type = CR_BODY_STATIC;
    m.shape.type = CR_SHAPE_MESH;
    m.shape.asset = slot;
    cr_body_id target;
    ENSURE(cr_body_create_as_modelled(w, &m, cr_transform_identity(), &target) == CR_OK);
    cr_dent_def dd = cr_default_dent_def();
    ENSURE(cr_dent_attach(w, target, &dd) == CR_OK);
    recorder r;
    cr_debug_draw d = recording(&r);
    ENSURE(cr_world_draw(w, &d, CR_DRAW_BODIES) == CR_OK);
    double cooked_top = r.top_y;
    ENSURE_NEAR(cooked_top, 0.5, 0.01);
    cr_body_def b = cr_default_body_def();
    b.shape.radius = CR_R(0.1);
    b.position = cr_v3(0, CR_R(0.7), 0);
    b.linear_velocity = cr_v3(0, CR_R(-6), 0);
    cr_body_id ball;
    ENSURE(cr_body_create(w, &b, &ball) == CR_OK);
    bool dented = false;
    for (int f = 0; f < 30 && !dented; ++f) {
        cr_world_step(w, CR_R(1.0 / 60.0));
        dented = cr_world_get_dent_events(w, NULL, 0) > 0;
    }
    ENSURE(dented);
    d = recording(&r);
    ENSURE(cr_world_draw(w, &d, CR_DRAW_DENTS) == CR_OK);
    ENSURE(r.lines == 3 && r.points == 1); /* the dent's cross */
    cr_body_destroy(w, ball); /* only the target's lines near the axis now */
    d = recording(&r);
    ENSURE(cr_world_draw(w, &d, CR_DRAW_BODIES) == CR_OK);
    ENSURE_MSG(r.top_y < cooked_top - 0.01, "drawn top %.4f, cooked %.4f", r.top_y, cooked_top);
    d = recording(&r);
    d.grid_body = target;
    d.grid_axis = 2;
    ENSURE(cr_world_draw(w, &d, CR_DRAW_DISTANCE_GRID) == CR_OK);
    ENSURE(r.points == asset.sdf_dims[0] * asset.sdf_dims[1]);
    ENSURE(r.inside > 0 && r.outside > 0);
    d.grid_axis = 3;
    ENSURE(cr_world_draw(w, &d, CR_DRAW_DISTANCE_GRID) == CR_ERR_DEF_INVALID);
    free(block);
    free(asset_block);
    cr_cook_result_free(&cooked);
}
