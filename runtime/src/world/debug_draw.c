/* debug_draw.c — cr_world_draw: the world through the game's line, triangle
 * and point callbacks (crumple/debug_draw.h).
 *
 * It reads the world and never writes it, so a game may draw between any
 * two steps, as often as it likes. Shapes are drawn from what collides now:
 * a mesh body's wireframe is its own surface copy once a damage model moved
 * it (cr_world_asset on the body's slot), so the overlay shows the dent, the
 * bend and the squash the solver sees. Circles use a 16-step table instead
 * of libm.
 */
#include "solver/touch.h"
#include "crumple/debug_draw.h"
#include "base/check.h"

#include <string.h>

#define CR_DRAW_COOKIE 0x64726177u /* "draw" */

cr_debug_draw cr_default_debug_draw(void) {
    cr_debug_draw d;
    memset(&d, 0, sizeof d);
    d.normal_length = CR_R(0.25);
    d.cookie = CR_DRAW_COOKIE;
    return d;
}

static void line(const cr_debug_draw *d, cr_vec3 a, cr_vec3 b, uint32_t c) {
    if (d->line != NULL) d->line(d->context, a, b, c);
}
static void point(const cr_debug_draw *d, cr_vec3 p, cr_real size, uint32_t c) {
    if (d->point != NULL) d->point(d->context, p, size, c);
}
static void triangle(const cr_debug_draw *d, cr_vec3 a, cr_vec3 b, cr_vec3 c, uint32_t color) {
    if (d->triangle != NULL) d->triangle(d->context, a, b, c, color);
}

/* cos and sin of k x 22.5 degrees */
static const cr_real unit_circle[16][2] = {
    {CR_R(1.0), CR_R(0.0)},        {CR_R(0.92387953), CR_R(0.38268343)},  {CR_R(0.70710678), CR_R(0.70710678)},
    {CR_R(0.38268343), CR_R(0.92387953)}, {CR_R(0.0), CR_R(1.0)},        {CR_R(-0.38268343), CR_R(0.92387953)},
    {CR_R(-0.70710678), CR_R(0.70710678)}, {CR_R(-0.92387953), CR_R(0.38268343)}, {CR_R(-1.0), CR_R(0.0)},
    {CR_R(-0.92387953), CR_R(-0.38268343)}, {CR_R(-0.70710678), CR_R(-0.70710678)}, {CR_R(-0.38268343), CR_R(-0.92387953)},
    {CR_R(0.0), CR_R(-1.0)},       {CR_R(0.38268343), CR_R(-0.92387953)}, {CR_R(0.70710678), CR_R(-0.70710678)},
    {CR_R(0.92387953), CR_R(-0.38268343)},
};

/* Three great circles of a sphere, turned with the body so its spin shows. */
static void draw_sphere(const cr_debug_draw *d, cr_transform xf, cr_real r, uint32_t c) {
    for (int axis = 0; axis < 3; ++axis) {
        cr_vec3 prev = cr_v3_zero();
        for (int k = 0; k <= 16; ++k) {
            cr_real u = cr_mul(r, unit_circle[k & 15][0]), v = cr_mul(r, unit_circle[k & 15][1]);
            cr_vec3 local = axis == 0 ? cr_v3(0, u, v) : axis == 1 ? cr_v3(u, 0, v) : cr_v3(u, v, 0);
            cr_vec3 p = cr_transform_point(xf, local);
            if (k > 0) line(d, prev, p, c);
            prev = p;
        }
    }
}

static cr_vec3 box_corner(cr_transform xf, cr_vec3 h, int i) {
    return cr_transform_point(xf, cr_v3(i & 1 ? h.x : -h.x, i & 2 ? h.y : -h.y, i & 4 ? h.z : -h.z));
}

static void draw_box(const cr_debug_draw *d, cr_transform xf, cr_vec3 h, uint32_t c) {
    /* the 12 edges: corners that differ in one bit */
    for (int i = 0; i < 8; ++i)
        for (int bit = 1; bit < 8; bit <<= 1)
            if (!(i & bit)) line(d, box_corner(xf, h, i), box_corner(xf, h, i | bit), c);
    /* the 6 faces as two triangles each, counter-clockwise from outside */
    static const uint8_t faces[6][4] = {{0, 2, 6, 4}, {1, 5, 7, 3}, {0, 4, 5, 1}, {2, 3, 7, 6}, {0, 1, 3, 2}, {4, 6, 7, 5}};
    for (int f = 0; f < 6; ++f) {
        cr_vec3 q[4];
        for (int k = 0; k < 4; ++k) q[k] = box_corner(xf, h, faces[f][k]);
        triangle(d, q[0], q[1], q[2], c);
        triangle(d, q[0], q[2], q[3], c);
    }
}

/* A plane: a square of four metres a side round the body's origin, and its normal. */
static void draw_plane(const cr_debug_draw *d, cr_transform xf, uint32_t c) {
    cr_vec3 q[4];
    for (int k = 0; k < 4; ++k) q[k] = cr_transform_point(xf, cr_v3(k == 1 || k == 2 ? CR_R(2) : CR_R(-2), 0, k >= 2 ? CR_R(2) : CR_R(-2)));
    for (int k = 0; k < 4; ++k) line(d, q[k], q[(k + 1) & 3], c);
    line(d, xf.p, cr_transform_point(xf, cr_v3(0, CR_R(0.5), 0)), c);
}

/* The surface that collides now; each shared edge once (from its lower vertex). */
static void draw_mesh(const cr_debug_draw *d, const cr_asset *a, cr_transform xf, uint32_t c) {
    for (uint32_t t = 0; t < a->triangle_count; ++t) {
        const uint32_t *v = &a->triangles[3 * t];
        cr_vec3 p[3];
        for (int k = 0; k < 3; ++k) p[k] = cr_transform_point(xf, a->positions[v[k]]);
        for (int k = 0; k < 3; ++k)
            if (v[k] < v[(k + 1) % 3]) line(d, p[k], p[(k + 1) % 3], c);
        triangle(d, p[0], p[1], p[2], c);
    }
}

static uint32_t body_color(const cr_body *b, bool by_state) {
    if (b->disabled) return CR_DRAW_COLOR_DISABLED;
    if (b->sensor) return CR_DRAW_COLOR_SENSOR;
    if (b->type == CR_BODY_STATIC) return CR_DRAW_COLOR_STATIC;
    if (b->type == CR_BODY_KINEMATIC) return CR_DRAW_COLOR_KINEMATIC;
    return by_state && b->asleep ? CR_DRAW_COLOR_ASLEEP : CR_DRAW_COLOR_DYNAMIC;
}

static void draw_bodies(const cr_world *w, const cr_debug_draw *d, uint32_t flags) {
    const cr_body *bodies = cr_world_bodies_c(w);
    for (uint32_t i = 0; i < w->body_high; ++i) {
        const cr_body *b = &bodies[i];
        if (!b->alive) continue;
        cr_body_id id = {i + 1u, b->generation};
        /* a bending body is drawn by its skinned surface; its bones by CR_DRAW_BONES */
        if ((b->models & CR_MODEL_BEND) && cr_bend_is_sub_body(w, id)) continue;
        uint32_t c = body_color(b, (flags & CR_DRAW_SLEEP) != 0);
        switch ((cr_shape_type)b->shape.type) {
        case CR_SHAPE_SPHERE: draw_sphere(d, b->xf, b->shape.radius, c); break;
        case CR_SHAPE_BOX: draw_box(d, b->xf, b->shape.half_extents, c); break;
        case CR_SHAPE_PLANE: draw_plane(d, b->xf, c); break;
        case CR_SHAPE_MESH: {
            const cr_asset *a = cr_world_asset(w, b->shape.asset);
            if (a != NULL) draw_mesh(d, a, b->xf, c);
            break;
        }
        }
    }
}

static void draw_contacts(const cr_world *w, const cr_debug_draw *d) {
    const cr_body *bodies = cr_world_bodies_c(w);
    const cri_touch *t = CR_AT(w, w->touches, const cri_touch);
    for (uint32_t i = 0; i < w->touch_count; ++i) {
        const cr_body *a = &bodies[t[i].a];
        for (uint32_t p = 0; p < t[i].count; ++p) {
            cr_vec3 at = cr_transform_point(a->xf, t[i].local[p]);
            point(d, at, CR_R(0.02), CR_DRAW_COLOR_CONTACT);
            line(d, at, cr_v3_mad(at, d->normal_length, t[i].normal), CR_DRAW_COLOR_NORMAL);
        }
    }
    const cr_impact_event *ev = CR_AT(w, w->events, const cr_impact_event);
    for (uint32_t i = 0; i < w->event_count; ++i) {
        point(d, ev[i].point, CR_R(0.04), CR_DRAW_COLOR_CONTACT);
        line(d, ev[i].point, cr_v3_mad(ev[i].point, d->normal_length, ev[i].normal), CR_DRAW_COLOR_CONTACT);
    }
}

static void draw_joints(const cr_world *w, const cr_debug_draw *d) {
    const cr_body *bodies = cr_world_bodies_c(w);
    const cr_joint *joints = cr_world_joints_c(w);
    for (uint32_t i = 0; i < w->joint_high; ++i) {
        const cr_joint *j = &joints[i];
        if (!j->alive || j->a == 0) continue;
        const cr_body *a = &bodies[j->a - 1];
        cr_vec3 pa = cr_transform_point(a->xf, j->local_anchor_a);
        cr_vec3 pb = j->local_anchor_b, cb = j->local_anchor_b; /* b == 0: anchored to the world */
        if (j->b != 0) {
            const cr_body *b = &bodies[j->b - 1];
            pb = cr_transform_point(b->xf, j->local_anchor_b);
            cb = b->xf.p;
        }
        line(d, a->xf.p, pa, CR_DRAW_COLOR_JOINT);
        line(d, cb, pb, CR_DRAW_COLOR_JOINT);
        line(d, pa, pb, CR_DRAW_COLOR_CONTACT); /* the gap the joint closes */
        point(d, pa, CR_R(0.03), CR_DRAW_COLOR_JOINT);
    }
}

static cr_real cell_floor(cr_real x, cr_real cell) {
    cr_real q = cr_clamp(cr_div(x, cell), CR_R(-1.0e8), CR_R(1.0e8));
    return cr_mul(cr_from_int(cr_floor_int(q)), cell);
}

static void draw_cells(const cr_world *w, const cr_debug_draw *d) {
    cr_real cell = cri_broadphase_base_cell(w);
    const cr_body *bodies = cr_world_bodies_c(w);
    cr_vec3 half = cr_v3(cell / 2, cell / 2, cell / 2);
    for (uint32_t i = 0; i < w->body_high; ++i) {
        const cr_body *b = &bodies[i];
        if (!b->alive || b->ghost || b->disabled || b->shape.type == CR_SHAPE_PLANE) continue;
        cr_vec3 lo = cr_v3_sub(b->xf.p, cr_v3(b->bound_radius, b->bound_radius, b->bound_radius));
        cr_vec3 corner = cr_v3(cell_floor(lo.x, cell), cell_floor(lo.y, cell), cell_floor(lo.z, cell));
        cr_transform xf = {cr_v3_add(corner, half), cr_quat_identity()};
        draw_box(d, xf, half, CR_DRAW_COLOR_CELL);
    }
}

static void draw_grid(const cr_world *w, const cr_debug_draw *d, const cr_body *b) {
    const cr_asset *a = cr_world_asset(w, b->shape.asset);
    if (a == NULL) return;
    uint32_t ax = d->grid_axis, u = (ax + 1) % 3, v = (ax + 2) % 3;
    const cr_real *origin = &a->sdf_origin.x;
    /* the node layer nearest the slice */
    cr_real along = cr_div(d->grid_offset - origin[ax], a->sdf_cell);
    int32_t layer = cr_floor_int(cr_clamp(along + CR_R(0.5), 0, cr_from_int((int32_t)a->sdf_dims[ax] - 1)));
    uint32_t idx[3];
    idx[ax] = (uint32_t)layer;
    for (idx[v] = 0; idx[v] < a->sdf_dims[v]; ++idx[v])
        for (idx[u] = 0; idx[u] < a->sdf_dims[u]; ++idx[u]) {
            cr_real phi = a->sdf[(idx[2] * a->sdf_dims[1] + idx[1]) * a->sdf_dims[0] + idx[0]];
            cr_vec3 local = cr_v3(a->sdf_origin.x + a->sdf_cell * (int32_t)idx[0], a->sdf_origin.y + a->sdf_cell * (int32_t)idx[1],
                                  a->sdf_origin.z + a->sdf_cell * (int32_t)idx[2]);
            point(d, cr_transform_point(b->xf, local), cr_min(cr_abs(phi), a->sdf_cell),
                  phi < 0 ? CR_DRAW_COLOR_INSIDE : CR_DRAW_COLOR_OUTSIDE);
        }
}

static void draw_dents(const cr_world *w, const cr_debug_draw *d) {
    cr_dent_event ev[64]; /* the first 64 of the step */
    uint32_t n = cr_world_get_dent_events(w, ev, 64);
    for (uint32_t i = 0; i < n && i < 64; ++i) {
        cr_vec3 p = ev[i].world_point;
        cr_real s = cr_max(ev[i].depth, CR_R(0.01));
        for (int k = 0; k < 3; ++k) {
            cr_vec3 e = cr_v3(k == 0 ? s : 0, k == 1 ? s : 0, k == 2 ? s : 0);
            line(d, cr_v3_sub(p, e), cr_v3_add(p, e), CR_DRAW_COLOR_DENT);
        }
        point(d, p, s, CR_DRAW_COLOR_DENT);
    }
}

static void draw_bones(const cr_world *w, const cr_debug_draw *d) {
    const cr_body *bodies = cr_world_bodies_c(w);
    for (uint32_t i = 0; i < w->body_high; ++i) {
        if (!bodies[i].alive || !(bodies[i].models & CR_MODEL_BEND)) continue;
        cr_body_id id = {i + 1u, bodies[i].generation};
        uint32_t bones = cr_bend_get_bone_count(w, id);
        for (uint32_t k = 0; k < bones; ++k) {
            const cr_body *sub = cri_world_body_c(w, cr_bend_get_sub_body(w, id, k));
            if (sub == NULL) continue;
            line(d, bodies[i].xf.p, sub->xf.p, CR_DRAW_COLOR_BONE);
            point(d, sub->xf.p, CR_R(0.03), CR_DRAW_COLOR_BONE);
        }
    }
}

static void draw_sensors(const cr_world *w, const cr_debug_draw *d) {
    const cri_sensor_overlap *o = CR_AT(w, w->sensor_overlaps, const cri_sensor_overlap);
    for (uint32_t i = 0; i < w->sensor_overlap_count; ++i) {
        const cr_body *s = cri_world_body_c(w, o[i].sensor), *v = cri_world_body_c(w, o[i].visitor);
        if (s != NULL && v != NULL) line(d, s->xf.p, v->xf.p, CR_DRAW_COLOR_SENSOR);
    }
}

cr_status cr_world_draw(const cr_world *w, const cr_debug_draw *d, uint32_t flags) {
    if (w == NULL || d == NULL) return CR_ERR_NULL_ARGUMENT;
    if (d->cookie != CR_DRAW_COOKIE) return CR_ERR_DEF_NOT_DEFAULTED;
    const cr_body *grid = NULL;
    if (flags & CR_DRAW_DISTANCE_GRID) {
        grid = cri_world_body_c(w, d->grid_body);
        if (d->grid_axis > 2 || grid == NULL || grid->shape.type != CR_SHAPE_MESH || !cr_real_is_finite(d->grid_offset))
            return CR_ERR_DEF_INVALID;
    }
    if (flags & CR_DRAW_BODIES) draw_bodies(w, d, flags);
    if (flags & CR_DRAW_CONTACTS) draw_contacts(w, d);
    if (flags & CR_DRAW_JOINTS) draw_joints(w, d);
    if (flags & CR_DRAW_BROADPHASE) draw_cells(w, d);
    if (grid != NULL) draw_grid(w, d, grid);
    if (flags & CR_DRAW_DENTS) draw_dents(w, d);
    if (flags & CR_DRAW_BONES) draw_bones(w, d);
    if (flags & CR_DRAW_SENSORS) draw_sensors(w, d);
    return CR_OK;
}
