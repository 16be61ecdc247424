/* shape_cast.c — a sphere or a box swept along a translation: the first
 * body it touches, when, where and with which normal (crumple/query.h).
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

/* ---- box casts: the separating axes over time ----
 *
 * Two convex shapes, one translating, overlap at time t exactly when their
 * projections overlap on every separating axis at t; the axes do not turn
 * while the box only translates, so each gives an interval of t and the
 * first contact is the latest entry, if it comes before the earliest exit
 * (Ericson, Real-Time Collision Detection, 5.5.8). Axes: the box's three,
 * the other shape's faces (a triangle's normal, a box's three) and the
 * cross products of their edges. A box that starts overlapping hits at 0. */

typedef struct axis_sweep {
    cr_real enter, leave; ///< fraction interval so far
    cr_vec3 normal;       ///< the axis of the latest entry, pointing from the target to the box
    bool never;
} axis_sweep;

/* num / v as a fraction, clamped to +-2 (the sweep spans [0, 1]) so Q32.32 never overflows */
static cr_real frac(cr_real num, cr_real v) {
    if (cr_abs(num) >= 2 * cr_abs(v)) return (num < 0) != (v < 0) ? CR_R(-2) : CR_R(2);
    return cr_div(num, v);
}

/* one axis a: the target projects to [lo, hi], the box (centre 0 at t = 0) to +-r, moving v = a . d */
static void sweep_axis(axis_sweep *s, cr_vec3 a, cr_real lo, cr_real hi, cr_real r, cr_real v) {
    if (s->never) return;
    if (v == 0) {
        if (r < lo || -r > hi) s->never = true;
        return;
    }
    cr_real t0 = v > 0 ? frac(lo - r, v) : frac(hi + r, v), t1 = v > 0 ? frac(hi + r, v) : frac(lo - r, v);
    if (t0 > s->enter) s->enter = t0, s->normal = v > 0 ? cr_v3_neg(a) : a;
    if (t1 < s->leave) s->leave = t1;
    if (s->enter > s->leave) s->never = true;
}

static cr_real box_radius(cr_vec3 he, cr_vec3 a) {
    return cr_mul(he.x, cr_abs(a.x)) + cr_mul(he.y, cr_abs(a.y)) + cr_mul(he.z, cr_abs(a.z));
}

static bool usable_axis(cr_vec3 a) { return cr_v3_dot(a, a) > CR_R(1e-12); }

static void sweep_triangle_axis(axis_sweep *s, cr_vec3 a, const cr_vec3 *v, cr_vec3 he, cr_vec3 d) {
    if (!usable_axis(a)) return;
    cr_real p0 = cr_v3_dot(a, v[0]), p1 = cr_v3_dot(a, v[1]), p2 = cr_v3_dot(a, v[2]);
    sweep_axis(s, a, cr_min(p0, cr_min(p1, p2)), cr_max(p0, cr_max(p1, p2)), box_radius(he, a), cr_v3_dot(a, d));
}

/* the box (he about the origin, moving d) against triangle v[0..2]; true and *t within [0, tmax] */
static bool box_triangle(cr_vec3 he, cr_vec3 d, const cr_vec3 *v, cr_real tmax, cr_real *t, cr_vec3 *normal) {
    axis_sweep s = {CR_R(-2), CR_R(2), {0, 0, 0}, false};
    const cr_vec3 u[3] = {{CR_R(1), 0, 0}, {0, CR_R(1), 0}, {0, 0, CR_R(1)}};
    cr_vec3 e[3] = {cr_v3_sub(v[1], v[0]), cr_v3_sub(v[2], v[1]), cr_v3_sub(v[0], v[2])};
    sweep_triangle_axis(&s, cr_v3_cross(e[0], e[1]), v, he, d);
    for (int i = 0; i < 3; ++i) sweep_triangle_axis(&s, u[i], v, he, d);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) sweep_triangle_axis(&s, cr_v3_cross(u[i], e[j]), v, he, d);
    if (s.never || s.leave < 0 || s.enter > tmax) return false;
    *t = s.enter < 0 ? 0 : s.enter;
    *normal = s.enter < 0 ? cr_v3_neg(d) : s.normal;
    return true;
}

/* the box against a box of he2 at pose x (in the first box's frame) */
static bool box_box(cr_vec3 he, cr_vec3 d, cr_transform x, cr_vec3 he2, cr_real tmax, cr_real *t, cr_vec3 *normal) {
    axis_sweep s = {CR_R(-2), CR_R(2), {0, 0, 0}, false};
    cr_vec3 axes[15];
    cri_box_pair_axes(x.q, axes);
    for (int k = 0; k < 15; ++k) {
        cr_vec3 a = axes[k];
        if (!usable_axis(a)) continue;
        cr_real c = cr_v3_dot(a, x.p);
        cr_real r2 = cr_mul(he2.x, cr_abs(cr_v3_dot(a, axes[1]))) + cr_mul(he2.y, cr_abs(cr_v3_dot(a, axes[3]))) +
                     cr_mul(he2.z, cr_abs(cr_v3_dot(a, axes[5])));
        sweep_axis(&s, a, c - r2, c + r2, box_radius(he, a), cr_v3_dot(a, d));
    }
    if (s.never || s.leave < 0 || s.enter > tmax) return false;
    *t = s.enter < 0 ? 0 : s.enter;
    *normal = s.enter < 0 ? cr_v3_neg(d) : s.normal;
    return true;
}

/* one rigid body against the box at `pose` (half extents he) moving d (world) */
static bool box_cast_body(const cr_world *w, uint32_t slot, cr_transform pose, cr_vec3 he, cr_vec3 d, cr_real tmax,
                          cr_ray_hit *out) {
    const cr_body *b = &cr_world_bodies_c(w)[slot];
    cr_transform rel = cr_transform_mul(cr_transform_inverse(pose), b->xf); /* the body in the box's frame */
    cr_vec3 db = cr_quat_inv_rotate(pose.q, d);
    cr_real t = 0;
    cr_vec3 n = cr_v3_zero(); /* the body's outward normal, box frame */
    bool hit = false;
    uint32_t triangle = UINT32_MAX;
    switch (b->shape.type) {
    case CR_SHAPE_SPHERE: {
        /* the sphere swept the other way against the box's triangles */
        sweep s = {rel.p, cr_v3_neg(db), b->shape.radius, tmax, false, {0, 0, 0}, {0, 0, 0}, UINT32_MAX};
        sweep_box(&s, he);
        if (s.found) hit = true, t = s.t, n = cr_v3_neg(s.normal);
        break;
    }
    case CR_SHAPE_PLANE: {
        cr_vec3 up = cr_quat_rotate(rel.q, cr_v3(0, CR_R(1), 0));
        cr_real gap = -cr_v3_dot(up, rel.p) - box_radius(he, up), v = cr_v3_dot(up, db); /* centre height less reach */
        if (gap <= 0) hit = true, t = 0, n = up;
        else if (v < 0 && gap <= cr_mul(-v, tmax)) hit = true, t = cr_div(gap, -v), n = up;
        break;
    }
    case CR_SHAPE_BOX:
        hit = box_box(he, db, rel, b->shape.half_extents, tmax, &t, &n);
        break;
    case CR_SHAPE_MESH: {
        const cr_asset *a = cr_world_asset(w, b->shape.asset);
        if (a == NULL) break;
        cr_transform inv = cr_transform_inverse(rel); /* the box in the mesh's frame */
        cr_segment seg = cri_segment(inv.p, cr_quat_rotate(inv.q, db));
        cr_vec3 grow = cri_query_rotated_extent(inv.q, he);
        const cr_mesh_tree *tree = cri_query_mesh_tree(w, b->shape.asset);
        const cr_tree_node *nodes = tree ? CR_AT(w, tree->nodes, const cr_tree_node) : NULL;
        const uint32_t *items = tree ? CR_AT(w, tree->triangles, const uint32_t) : NULL;
        uint32_t stack[CR_TREE_STACK], top = 0, k = 0;
        if (tree) stack[top++] = 0;
        for (;;) {
            uint32_t first = 0, count = 0;
            if (tree) {
                if (top == 0) break;
                const cr_tree_node *nd = &nodes[stack[--top]];
                cr_real t0, t1;
                if (!cri_segment_box(&seg, cr_v3_sub(nd->lo, grow), cr_v3_add(nd->hi, grow), hit ? t : tmax, &t0, &t1))
                    continue;
                if (nd->count == 0) {
                    stack[top++] = nd->first + 1, stack[top++] = nd->first;
                    continue;
                }
                first = nd->first, count = nd->count;
            } else {
                if (k >= a->triangle_count) break;
                first = k++, count = 1;
            }
            for (uint32_t i = 0; i < count; ++i) {
                uint32_t tri = tree ? items[first + i] : first + i;
                const uint32_t *ix = &a->triangles[3 * tri];
                cr_vec3 v[3] = {cr_transform_point(rel, a->positions[ix[0]]), cr_transform_point(rel, a->positions[ix[1]]),
                                cr_transform_point(rel, a->positions[ix[2]])};
                cr_real tt;
                cr_vec3 nn;
                if (box_triangle(he, db, v, hit ? t : tmax, &tt, &nn) && (!hit || tt < t))
                    hit = true, t = tt, n = nn, triangle = tri;
            }
        }
        break;
    }
    }
    if (!hit) return false;
    n = cr_v3_normalize(n);
    out->body = (cr_body_id){slot + 1, b->generation};
    out->soft = (cr_soft_id){0, 0};
    out->fraction = t;
    /* on the plane of contact, under the box's centre then */
    cr_vec3 centre = cr_v3_scale(db, t);
    out->point = cr_transform_point(pose, cr_v3_sub(centre, cr_v3_scale(n, box_radius(he, n))));
    out->normal = cr_quat_rotate(pose.q, n);
    out->triangle = triangle;
    return true;
}

static bool box_cast_soft(const cr_world *w, uint32_t slot, cr_transform pose, cr_vec3 he, cr_vec3 d, cr_real tmax,
                          cr_ray_hit *out) {
    const cr_soft_region *rg = cri_soft_region_c(w);
    const cr_soft_body *sb = &CR_AT(w, rg->bodies, const cr_soft_body)[slot];
    const cr_asset *a = cr_world_asset(w, sb->asset);
    if (!sb->alive || a == NULL) return false;
    const cr_particle *p = &CR_AT(w, rg->particles, const cr_particle)[sb->first_particle];
    cr_vec3 db = cr_quat_inv_rotate(pose.q, d), n = cr_v3_zero();
    cr_real t = tmax;
    bool hit = false;
    uint32_t triangle = 0;
    for (uint32_t k = 0; k < a->triangle_count; ++k) {
        const uint32_t *ix = &a->triangles[3 * k];
        cr_vec3 v[3] = {cr_transform_inv_point(pose, p[ix[0]].x), cr_transform_inv_point(pose, p[ix[1]].x),
                        cr_transform_inv_point(pose, p[ix[2]].x)};
        cr_real tt;
        cr_vec3 nn;
        if (box_triangle(he, db, v, t, &tt, &nn) && (!hit || tt < t)) hit = true, t = tt, n = nn, triangle = k;
    }
    if (!hit) return false;
    n = cr_v3_normalize(n);
    out->body = (cr_body_id){0, 0};
    out->soft = (cr_soft_id){slot + 1, sb->generation};
    out->fraction = t;
    out->point = cr_transform_point(pose, cr_v3_sub(cr_v3_scale(db, t), cr_v3_scale(n, box_radius(he, n))));
    out->normal = cr_quat_rotate(pose.q, n);
    out->triangle = triangle;
    return true;
}

cr_status cr_world_cast_box(const cr_world *w, cr_transform pose, cr_vec3 half_extents, cr_vec3 translation,
                            cr_query_filter filter, cr_ray_hit *out, bool *found) {
    if (w == NULL) return CR_ERR_NULL_ARGUMENT;
    if (out == NULL || found == NULL) return cri_query_refuse(w, CR_ERR_NULL_ARGUMENT, CR_FIELD_QUERY_OUT);
    *found = false;
    CR_TRY(cri_query_check_vec3(w, pose.p, CR_FIELD_QUERY_POSE));
    if (cr_quat_status(pose.q) != CR_OK) return cri_query_refuse(w, cr_quat_status(pose.q), CR_FIELD_QUERY_POSE);
    CR_TRY(cri_query_check_length(w, half_extents.x, CR_FIELD_QUERY_HALF_EXTENTS));
    CR_TRY(cri_query_check_length(w, half_extents.y, CR_FIELD_QUERY_HALF_EXTENTS));
    CR_TRY(cri_query_check_length(w, half_extents.z, CR_FIELD_QUERY_HALF_EXTENTS));
    CR_TRY(cri_query_check_ray(w, pose.p, translation));
    pose.q = cr_quat_normalize(pose.q);
    cr_query_marks m;
    CR_TRY(cri_query_enter(w, &m));
    cr_vec3 end = cr_v3_add(pose.p, translation), grow = cri_query_rotated_extent(pose.q, half_extents);
    cri_query_mark_box(w, m.bits, cr_v3_sub(cr_v3_min(pose.p, end), grow), cr_v3_add(cr_v3_max(pose.p, end), grow));
    cr_ray_hit h;
    for (uint32_t slot = cri_query_next_mark(w, m.bits, 0); slot != UINT32_MAX; slot = cri_query_next_mark(w, m.bits, slot))
        if (cri_query_passes(w, slot, filter) &&
            box_cast_body(w, slot, pose, half_extents, translation, *found ? out->fraction : CR_R(1), &h) &&
            (!*found || h.fraction < out->fraction))
            *out = h, *found = true;
    if (cri_query_passes_soft(filter) && w->def.spring.body_capacity > 0)
        for (uint32_t i = 0; i < cri_soft_region_c(w)->body_high; ++i)
            if (box_cast_soft(w, i, pose, half_extents, translation, *found ? out->fraction : CR_R(1), &h) &&
                (!*found || h.fraction < out->fraction))
                *out = h, *found = true;
    cri_query_leave(w, &m);
    return CR_OK;
}
