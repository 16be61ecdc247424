/* shape_cast.c — a sphere swept along a translation: the first body it
 * touches, when, where and with which normal (crumple/query.h).
 *
 * The swept sphere meets a triangle where the ray of its centre meets the
 * triangle grown by the radius: the face lifted along its normal, the three
 * edges as cylinders, the three corners as spheres; the earliest of the
 * seven is the time of impact, exact for any triangle mesh. Boxes are
 * swept as their twelve triangles, spheres and planes in closed form, mesh
 * bodies through their triangle trees (boxes grown by the radius), damaged
 * bodies and soft bodies by their current triangles. A sphere that starts
 * touching a body hits it at fraction 0.
 */
#include "query/query_tree.h"
#include "query/query_call.h"
#include "query/segment.h"
#include "soft/mass_spring.h"

typedef struct sweep {
    cr_vec3 o, d;  ///< centre and translation in the frame of the test
    cr_real r;
    cr_real t;     ///< best so far (fraction)
    bool found;
    cr_vec3 point, normal; ///< in the frame of the test
    uint32_t triangle;
} sweep;

static void take(sweep *s, cr_real t, cr_vec3 point, cr_vec3 normal, uint32_t triangle) {
    if (t < 0) t = 0;
    if (s->found && t >= s->t) return;
    s->found = true, s->t = t, s->point = point, s->normal = normal, s->triangle = triangle;
}

/* the ray o + t d against a sphere of radius r about c: entry t in [0, s->t], outside only */
static bool ray_ball(cr_vec3 o, cr_vec3 d, cr_vec3 c, cr_real r, cr_real tmax, cr_real *t) {
    cr_vec3 oc = cr_v3_sub(o, c);
    cr_real a = cr_v3_dot(d, d), b = cr_v3_dot(oc, d), cc = cr_v3_dot(oc, oc) - cr_mul(r, r);
    if (cc <= 0) return *t = 0, true;
    if (b >= 0 || a <= 0) return false;
    cr_real disc = cr_mul(b, b) - cr_mul(a, cc);
    if (disc < 0) return false;
    *t = cr_div(-b - cr_sqrt(disc), a);
    return *t <= tmax;
}

/* the ray against the cylinder of radius r about segment p..q, hits between the ends only */
static bool ray_cylinder(cr_vec3 o, cr_vec3 d, cr_vec3 p, cr_vec3 q, cr_real r, cr_real tmax, cr_real *t) {
    cr_vec3 e = cr_v3_sub(q, p);
    cr_real ee = cr_v3_dot(e, e);
    if (ee <= 0) return false;
    cr_vec3 m = cr_v3_sub(o, p);
    /* the components across the axis: m and d minus their parts along e */
    cr_vec3 mc = cr_v3_sub(m, cr_v3_scale(e, cr_div(cr_v3_dot(m, e), ee)));
    cr_vec3 dc = cr_v3_sub(d, cr_v3_scale(e, cr_div(cr_v3_dot(d, e), ee)));
    cr_real a = cr_v3_dot(dc, dc), b = cr_v3_dot(mc, dc), c = cr_v3_dot(mc, mc) - cr_mul(r, r);
    if (a <= 0 || b >= 0) return false;
    cr_real disc = cr_mul(b, b) - cr_mul(a, c);
    if (disc < 0) return false;
    cr_real tt = c <= 0 ? 0 : cr_div(-b - cr_sqrt(disc), a);
    if (tt > tmax) return false;
    cr_real along = cr_div(cr_v3_dot(cr_v3_mad(m, tt, d), e), ee);
    if (along < 0 || along > CR_R(1)) return false;
    *t = tt;
    return true;
}

/* the swept sphere against triangle (a, b, c), counter-clockwise from outside */
static void sweep_triangle(sweep *s, cr_vec3 a, cr_vec3 b, cr_vec3 c, uint32_t k) {
    cr_real tmax = s->found ? s->t : CR_R(1), t;
    cr_vec3 n = cr_v3_normalize(cr_v3_cross(cr_v3_normalize(cr_v3_sub(b, a)), cr_v3_normalize(cr_v3_sub(c, a))));
    /* the face, lifted by r, from its front; or already touching it at the start */
    cr_real h = cr_v3_dot(cr_v3_sub(s->o, a), n), dn = cr_v3_dot(s->d, n);
    bool touching = h >= 0 && h < s->r;
    if (touching || (h >= s->r && dn < 0 && h - s->r <= cr_mul(-dn, tmax))) {
        t = touching ? 0 : cr_div(h - s->r, -dn);
        cr_vec3 centre = cr_v3_mad(s->o, t, s->d);
        cr_vec3 p = cr_v3_sub(centre, cr_v3_scale(n, cr_v3_dot(cr_v3_sub(centre, a), n))); /* in the plane */
        cr_vec3 e0 = cr_v3_sub(b, a), e1 = cr_v3_sub(c, b), e2 = cr_v3_sub(a, c);
        if (cr_v3_dot(cr_v3_cross(e0, cr_v3_sub(p, a)), n) >= 0 && cr_v3_dot(cr_v3_cross(e1, cr_v3_sub(p, b)), n) >= 0 &&
            cr_v3_dot(cr_v3_cross(e2, cr_v3_sub(p, c)), n) >= 0) {
            take(s, t, p, n, k);
            return; /* the grown triangle is convex: its face, met from the front, is met first */
        }
    }
    const cr_vec3 v[3] = {a, b, c};
    for (int i = 0; i < 3; ++i) {
        tmax = s->found ? s->t : CR_R(1);
        cr_vec3 p = v[i], q = v[(i + 1) % 3];
        if (ray_cylinder(s->o, s->d, p, q, s->r, tmax, &t)) {
            cr_vec3 centre = cr_v3_mad(s->o, t, s->d), e = cr_v3_sub(q, p);
            cr_vec3 foot = cr_v3_mad(p, cr_div(cr_v3_dot(cr_v3_sub(centre, p), e), cr_v3_dot(e, e)), e);
            take(s, t, foot, cr_v3_normalize(cr_v3_sub(centre, foot)), k);
        }
        tmax = s->found ? s->t : CR_R(1);
        if (ray_ball(s->o, s->d, p, s->r, tmax, &t)) {
            cr_vec3 centre = cr_v3_mad(s->o, t, s->d);
            take(s, t, p, cr_v3_normalize(cr_v3_sub(centre, p)), k);
        }
    }
}

static void sweep_triangles(sweep *s, const cr_vec3 *pos, const uint32_t *tri, uint32_t count, const cr_world *w,
                            const cr_mesh_tree *tree) {
    if (tree == NULL) {
        for (uint32_t k = 0; k < count; ++k) sweep_triangle(s, pos[tri[3 * k]], pos[tri[3 * k + 1]], pos[tri[3 * k + 2]], k);
        return;
    }
    const cr_tree_node *nodes = CR_AT(w, tree->nodes, const cr_tree_node);
    const uint32_t *items = CR_AT(w, tree->triangles, const uint32_t);
    cr_segment seg = cri_segment(s->o, s->d);
    cr_vec3 grow = cr_v3(s->r, s->r, s->r);
    uint32_t stack[CR_TREE_STACK], top = 0;
    stack[top++] = 0;
    while (top > 0) {
        const cr_tree_node *nd = &nodes[stack[--top]];
        cr_real t0, t1;
        if (!cri_segment_box(&seg, cr_v3_sub(nd->lo, grow), cr_v3_add(nd->hi, grow), s->found ? s->t : CR_R(1), &t0, &t1))
            continue;
        if (nd->count == 0) {
            stack[top++] = nd->first + 1, stack[top++] = nd->first;
            continue;
        }
        for (uint32_t i = 0; i < nd->count; ++i) {
            uint32_t k = items[nd->first + i];
            sweep_triangle(s, pos[tri[3 * k]], pos[tri[3 * k + 1]], pos[tri[3 * k + 2]], k);
        }
    }
}

/* a box about the origin as twelve triangles, counter-clockwise from outside */
static void sweep_box(sweep *s, cr_vec3 he) {
    cr_vec3 v[8];
    for (int i = 0; i < 8; ++i) v[i] = cr_v3(i & 1 ? he.x : -he.x, i & 2 ? he.y : -he.y, i & 4 ? he.z : -he.z);
    static const uint32_t tri[36] = {0, 4, 6, 0, 6, 2, 1, 3, 7, 1, 7, 5, 0, 1, 5, 0, 5, 4,
                                     2, 6, 7, 2, 7, 3, 0, 2, 3, 0, 3, 1, 4, 5, 7, 4, 7, 6};
    for (uint32_t k = 0; k < 12; ++k) sweep_triangle(s, v[tri[3 * k]], v[tri[3 * k + 1]], v[tri[3 * k + 2]], UINT32_MAX);
    s->triangle = UINT32_MAX;
}

/* one rigid body: the sweep in its frame, the answer in the world's */
static bool sweep_body(const cr_world *w, uint32_t slot, cr_vec3 o, cr_vec3 d, cr_real r, cr_real tmax, cr_ray_hit *out) {
    const cr_body *b = &cr_world_bodies_c(w)[slot];
    sweep s = {cr_transform_inv_point(b->xf, o), cr_quat_inv_rotate(b->xf.q, d), r, tmax, false, {0, 0, 0}, {0, 0, 0},
               UINT32_MAX};
    s.t = tmax, s.found = false;
    cr_real t;
    switch (b->shape.type) {
    case CR_SHAPE_SPHERE:
        if (ray_ball(s.o, s.d, cr_v3_zero(), b->shape.radius + r, tmax, &t)) {
            cr_vec3 n = cr_v3_normalize(cr_v3_mad(s.o, t, s.d));
            take(&s, t, cr_v3_scale(n, b->shape.radius), n, UINT32_MAX);
        }
        break;
    case CR_SHAPE_PLANE:
        if (s.o.y <= r) take(&s, 0, cr_v3(s.o.x, 0, s.o.z), cr_v3(0, CR_R(1), 0), UINT32_MAX);
        else if (s.d.y < 0 && s.o.y - r <= cr_mul(-s.d.y, tmax)) {
            t = cr_div(s.o.y - r, -s.d.y);
            cr_vec3 c = cr_v3_mad(s.o, t, s.d);
            take(&s, t, cr_v3(c.x, 0, c.z), cr_v3(0, CR_R(1), 0), UINT32_MAX);
        }
        break;
    case CR_SHAPE_BOX:
        sweep_box(&s, b->shape.half_extents);
        break;
    case CR_SHAPE_MESH: {
        const cr_asset *a = cr_world_asset(w, b->shape.asset);
        if (a != NULL) sweep_triangles(&s, a->positions, a->triangles, a->triangle_count, w, cri_query_mesh_tree(w, b->shape.asset));
        break;
    }
    }
    if (!s.found || s.t > tmax) return false;
    out->body = (cr_body_id){slot + 1, b->generation};
    out->soft = (cr_soft_id){0, 0};
    out->fraction = s.t;
    out->point = cr_transform_point(b->xf, s.point);
    out->normal = cr_v3_normalize(cr_quat_rotate(b->xf.q, s.normal));
    out->triangle = s.triangle;
    return true;
}

static bool sweep_soft(const cr_world *w, uint32_t slot, cr_vec3 o, cr_vec3 d, cr_real r, cr_real tmax, cr_ray_hit *out) {
    const cr_soft_region *rg = cri_soft_region_c(w);
    const cr_soft_body *sb = &CR_AT(w, rg->bodies, const cr_soft_body)[slot];
    const cr_asset *a = cr_world_asset(w, sb->asset);
    if (!sb->alive || a == NULL) return false;
    const cr_particle *p = &CR_AT(w, rg->particles, const cr_particle)[sb->first_particle];
    sweep s = {o, d, r, tmax, false, {0, 0, 0}, {0, 0, 0}, UINT32_MAX};
    for (uint32_t k = 0; k < a->triangle_count; ++k) {
        const uint32_t *t = &a->triangles[3 * k];
        sweep_triangle(&s, p[t[0]].x, p[t[1]].x, p[t[2]].x, k);
    }
    if (!s.found || s.t > tmax) return false;
    out->body = (cr_body_id){0, 0};
    out->soft = (cr_soft_id){slot + 1, sb->generation};
    out->fraction = s.t, out->point = s.point, out->normal = s.normal, out->triangle = s.triangle;
    return true;
}

cr_status cr_world_cast_sphere(const cr_world *w, cr_vec3 centre, cr_real radius, cr_vec3 translation,
                               cr_query_filter filter, cr_ray_hit *out, bool *found) {
    if (w == NULL) return CR_ERR_NULL_ARGUMENT;
    if (out == NULL || found == NULL) return cri_query_refuse(w, CR_ERR_NULL_ARGUMENT, CR_FIELD_QUERY_OUT);
    *found = false;
    CR_TRY(cri_query_check_vec3(w, centre, CR_FIELD_QUERY_CENTRE));
    CR_TRY(cri_query_check_length(w, radius, CR_FIELD_QUERY_RADIUS));
    CR_TRY(cri_query_check_ray(w, centre, translation));
    cr_query_marks m;
    CR_TRY(cri_query_enter(w, &m));
    /* the candidates: every body whose box meets the box the sphere sweeps */
    cr_vec3 end = cr_v3_add(centre, translation), grow = cr_v3(radius, radius, radius);
    cri_query_mark_box(w, m.bits, cr_v3_sub(cr_v3_min(centre, end), grow), cr_v3_add(cr_v3_max(centre, end), grow));
    cr_ray_hit h;
    for (uint32_t slot = cri_query_next_mark(w, m.bits, 0); slot != UINT32_MAX; slot = cri_query_next_mark(w, m.bits, slot))
        if (cri_query_passes(w, slot, filter) &&
            sweep_body(w, slot, centre, translation, radius, *found ? out->fraction : CR_R(1), &h) &&
            (!*found || h.fraction < out->fraction))
            *out = h, *found = true; /* slot order: an equal fraction keeps the lower handle */
    if (cri_query_passes_soft(filter) && w->def.spring.body_capacity > 0)
        for (uint32_t i = 0; i < cri_soft_region_c(w)->body_high; ++i)
            if (sweep_soft(w, i, centre, translation, radius, *found ? out->fraction : CR_R(1), &h) &&
                (!*found || h.fraction < out->fraction))
                *out = h, *found = true;
    cri_query_leave(w, &m);
    return CR_OK;
}
