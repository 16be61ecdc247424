/* overlap.c — which bodies a sphere, a box or an axis-aligned box meets
 * (crumple/query.h, docs/queries.md).
 *
 * A body meets the shape when its surface comes within it or the shape's
 * centre is inside the body. Spheres, boxes and planes are exact. A mesh
 * body is tested by its triangles (the closest point of each for a sphere,
 * the separating axes of a triangle and a box for a box) and, for a shape
 * wholly inside it, by the sign of its distance grid at the shape's centre;
 * a soft body by its particles' triangles only. Every test runs in the
 * frame of the query shape's centre, so the numbers are of the shapes'
 * size in both scalar modes.
 */
#include "query/query_tree.h"
#include "query/query_call.h"
#include "soft/mass_spring.h"

/* The query shape: a sphere (radius > 0, box == false) or a box, at pose. */
typedef struct query_shape {
    bool box;
    cr_transform pose;
    cr_real radius;
    cr_vec3 he;
    cr_vec3 lo, hi; ///< its world box
} query_shape;

/* squared distance from the origin to triangle (a, b, c) (Ericson 5.1.5 with p = 0) */
static cr_real triangle_dist2(cr_vec3 a, cr_vec3 b, cr_vec3 c) {
    cr_vec3 ab = cr_v3_sub(b, a), ac = cr_v3_sub(c, a), ap = cr_v3_neg(a);
    cr_real d1 = cr_v3_dot(ab, ap), d2 = cr_v3_dot(ac, ap);
    if (d1 <= 0 && d2 <= 0) return cr_v3_dot(a, a);
    cr_vec3 bp = cr_v3_neg(b);
    cr_real d3 = cr_v3_dot(ab, bp), d4 = cr_v3_dot(ac, bp);
    if (d3 >= 0 && d4 <= d3) return cr_v3_dot(b, b);
    cr_real vc = cr_mul(d1, d4) - cr_mul(d3, d2);
    if (vc <= 0 && d1 >= 0 && d3 <= 0) {
        cr_real v = cr_div(d1, d1 - d3);
        cr_vec3 q = cr_v3_mad(a, v, ab);
        return cr_v3_dot(q, q);
    }
    cr_vec3 cp = cr_v3_neg(c);
    cr_real d5 = cr_v3_dot(ab, cp), d6 = cr_v3_dot(ac, cp);
    if (d6 >= 0 && d5 <= d6) return cr_v3_dot(c, c);
    cr_real vb = cr_mul(d5, d2) - cr_mul(d1, d6);
    if (vb <= 0 && d2 >= 0 && d6 <= 0) {
        cr_real w = cr_div(d2, d2 - d6);
        cr_vec3 q = cr_v3_mad(a, w, ac);
        return cr_v3_dot(q, q);
    }
    cr_real va = cr_mul(d3, d6) - cr_mul(d5, d4);
    if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
        cr_real w = cr_div(d4 - d3, (d4 - d3) + (d5 - d6));
        cr_vec3 q = cr_v3_lerp(b, c, w);
        return cr_v3_dot(q, q);
    }
    cr_real den = va + vb + vc;
    if (den <= 0) return cr_min(cr_v3_dot(a, a), cr_min(cr_v3_dot(b, b), cr_v3_dot(c, c)));
    cr_real v = cr_div(vb, den), w = cr_div(vc, den);
    cr_vec3 q = cr_v3_add(a, cr_v3_add(cr_v3_scale(ab, v), cr_v3_scale(ac, w)));
    return cr_v3_dot(q, q);
}

/* does axis n separate the triangle (a, b, c) from the box of half extents he about the origin? */
static bool separates(cr_vec3 n, cr_vec3 a, cr_vec3 b, cr_vec3 c, cr_vec3 he) {
    cr_real pa = cr_v3_dot(n, a), pb = cr_v3_dot(n, b), pc = cr_v3_dot(n, c);
    cr_real lo = cr_min(pa, cr_min(pb, pc)), hi = cr_max(pa, cr_max(pb, pc));
    cr_real r = cr_mul(he.x, cr_abs(n.x)) + cr_mul(he.y, cr_abs(n.y)) + cr_mul(he.z, cr_abs(n.z));
    return lo > r || hi < -r;
}

/* triangle against a box about the origin along the axes (Akenine-Moller's 13 axes) */
static bool triangle_meets_box(cr_vec3 a, cr_vec3 b, cr_vec3 c, cr_vec3 he) {
    cr_vec3 lo = cr_v3_min(a, cr_v3_min(b, c)), hi = cr_v3_max(a, cr_v3_max(b, c));
    if (lo.x > he.x || hi.x < -he.x || lo.y > he.y || hi.y < -he.y || lo.z > he.z || hi.z < -he.z) return false;
    cr_vec3 e[3] = {cr_v3_sub(b, a), cr_v3_sub(c, b), cr_v3_sub(a, c)};
    if (separates(cr_v3_cross(e[0], e[1]), a, b, c, he)) return false;
    const cr_vec3 axes[3] = {{CR_R(1), 0, 0}, {0, CR_R(1), 0}, {0, 0, CR_R(1)}};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            if (separates(cr_v3_cross(axes[i], e[j]), a, b, c, he)) return false;
    return true;
}

/* the shape against one triangle given in the shape's frame (centre at the origin) */
static bool shape_meets_triangle(const query_shape *q, cr_vec3 a, cr_vec3 b, cr_vec3 c) {
    if (q->box) return triangle_meets_box(a, b, c, q->he);
    return triangle_dist2(a, b, c) <= cr_mul(q->radius, q->radius);
}

/* box (he about the origin) against a box (he2 at pose x in the first's frame): 15 separating axes */
static bool boxes_meet(cr_vec3 he, cr_transform x, cr_vec3 he2) {
    cr_vec3 axes[15];
    cri_box_pair_axes(x.q, axes);
    for (int k = 0; k < 15; ++k) {
        cr_vec3 s = axes[k];
        cr_real ra = cr_mul(he.x, cr_abs(s.x)) + cr_mul(he.y, cr_abs(s.y)) + cr_mul(he.z, cr_abs(s.z));
        cr_real rb = cr_mul(he2.x, cr_abs(cr_v3_dot(s, axes[1]))) + cr_mul(he2.y, cr_abs(cr_v3_dot(s, axes[3]))) +
                     cr_mul(he2.z, cr_abs(cr_v3_dot(s, axes[5])));
        if (cr_abs(cr_v3_dot(s, x.p)) > ra + rb + CR_R(1e-6)) return false;
    }
    return true;
}

static cr_real dist2_to_box(cr_vec3 p, cr_vec3 he) {
    cr_vec3 q = cr_v3_sub(p, cr_v3_max(cr_v3_neg(he), cr_v3_min(p, he)));
    return cr_v3_dot(q, q);
}

static bool meets_mesh(const cr_world *w, const cr_body *b, const query_shape *q) {
    const cr_asset *a = cr_world_asset(w, b->shape.asset);
    if (a == NULL) return false;
    /* the shape in the mesh's frame, and the mesh's vertices in the shape's */
    cr_transform to_body = cr_transform_mul(cr_transform_inverse(b->xf), q->pose);
    cr_transform to_shape = cr_transform_inverse(to_body);
    if (cr_asset_sdf(a, to_body.p, NULL) < 0) return true; /* the shape's centre is inside */
    cr_vec3 ext = q->box ? q->he : cr_v3(q->radius, q->radius, q->radius);
    cr_vec3 r = cri_query_rotated_extent(to_body.q, ext); /* the shape's box in the mesh frame */
    cr_vec3 blo = cr_v3_sub(to_body.p, r), bhi = cr_v3_add(to_body.p, r);
    const cr_mesh_tree *tree = cri_query_mesh_tree(w, b->shape.asset);
    const uint32_t *tri = a->triangles;
    if (tree == NULL) {
        for (uint32_t k = 0; k < a->triangle_count; ++k) {
            cr_vec3 p0 = a->positions[tri[3 * k]], p1 = a->positions[tri[3 * k + 1]], p2 = a->positions[tri[3 * k + 2]];
            cr_vec3 lo = cr_v3_min(p0, cr_v3_min(p1, p2)), hi = cr_v3_max(p0, cr_v3_max(p1, p2));
            if (lo.x > bhi.x || hi.x < blo.x || lo.y > bhi.y || hi.y < blo.y || lo.z > bhi.z || hi.z < blo.z) continue;
            if (shape_meets_triangle(q, cr_transform_point(to_shape, p0), cr_transform_point(to_shape, p1),
                                     cr_transform_point(to_shape, p2)))
                return true;
        }
        return false;
    }
    const cr_tree_node *nodes = CR_AT(w, tree->nodes, const cr_tree_node);
    const uint32_t *items = CR_AT(w, tree->triangles, const uint32_t);
    uint32_t stack[CR_TREE_STACK], top = 0;
    stack[top++] = 0;
    while (top > 0) {
        const cr_tree_node *nd = &nodes[stack[--top]];
        if (nd->lo.x > bhi.x || nd->hi.x < blo.x || nd->lo.y > bhi.y || nd->hi.y < blo.y || nd->lo.z > bhi.z ||
            nd->hi.z < blo.z)
            continue;
        if (nd->count == 0) {
            stack[top++] = nd->first + 1, stack[top++] = nd->first;
            continue;
        }
        for (uint32_t i = 0; i < nd->count; ++i) {
            uint32_t k = items[nd->first + i];
            if (shape_meets_triangle(q, cr_transform_point(to_shape, a->positions[tri[3 * k]]),
                                     cr_transform_point(to_shape, a->positions[tri[3 * k + 1]]),
                                     cr_transform_point(to_shape, a->positions[tri[3 * k + 2]])))
                return true;
        }
    }
    return false;
}

static bool meets_body(const cr_world *w, uint32_t slot, const query_shape *q) {
    const cr_body *b = &cr_world_bodies_c(w)[slot];
    if (b->shape.type != CR_SHAPE_PLANE) {
        cr_vec3 lo, hi;
        cri_query_body_box(w, b, &lo, &hi);
        if (lo.x > q->hi.x || hi.x < q->lo.x || lo.y > q->hi.y || hi.y < q->lo.y || lo.z > q->hi.z || hi.z < q->lo.z)
            return false;
    }
    cr_transform rel = cr_transform_mul(cr_transform_inverse(q->pose), b->xf); /* the body in the shape's frame */
    switch (b->shape.type) {
    case CR_SHAPE_SPHERE: {
        cr_real r = b->shape.radius;
        if (q->box) return dist2_to_box(rel.p, q->he) <= cr_mul(r, r);
        cr_real s = r + q->radius;
        return cr_v3_dot(rel.p, rel.p) <= cr_mul(s, s);
    }
    case CR_SHAPE_BOX: {
        if (q->box) return boxes_meet(q->he, rel, b->shape.half_extents);
        cr_vec3 c = cr_transform_inv_point(rel, cr_v3_zero()); /* the sphere's centre in the body's frame */
        return dist2_to_box(c, b->shape.half_extents) <= cr_mul(q->radius, q->radius);
    }
    case CR_SHAPE_PLANE: {
        /* the shape's lowest point below the plane y = 0 of the body's frame */
        cr_transform inv = cr_transform_inverse(rel); /* the shape in the body's frame */
        cr_real depth = q->radius;
        if (q->box) {
            cr_mat3 m = cr_mat3_from_quat(inv.q);
            depth = cr_mul(cr_abs(m.cx.y), q->he.x) + cr_mul(cr_abs(m.cy.y), q->he.y) + cr_mul(cr_abs(m.cz.y), q->he.z);
        }
        return inv.p.y <= depth;
    }
    case CR_SHAPE_MESH:
        return meets_mesh(w, b, q);
    }
    return false;
}

static bool meets_soft(const cr_world *w, uint32_t slot, const query_shape *q) {
    const cr_soft_region *r = cri_soft_region_c(w);
    const cr_soft_body *sb = &CR_AT(w, r->bodies, const cr_soft_body)[slot];
    const cr_asset *a = cr_world_asset(w, sb->asset);
    if (!sb->alive || a == NULL) return false;
    const cr_particle *p = &CR_AT(w, r->particles, const cr_particle)[sb->first_particle];
    cr_transform to_shape = cr_transform_inverse(q->pose);
    for (uint32_t k = 0; k < a->triangle_count; ++k) {
        const uint32_t *t = &a->triangles[3 * k];
        cr_vec3 v0 = p[t[0]].x, v1 = p[t[1]].x, v2 = p[t[2]].x;
        cr_vec3 lo = cr_v3_min(v0, cr_v3_min(v1, v2)), hi = cr_v3_max(v0, cr_v3_max(v1, v2));
        if (lo.x > q->hi.x || hi.x < q->lo.x || lo.y > q->hi.y || hi.y < q->lo.y || lo.z > q->hi.z || hi.z < q->lo.z)
            continue;
        if (shape_meets_triangle(q, cr_transform_point(to_shape, v0), cr_transform_point(to_shape, v1),
                                 cr_transform_point(to_shape, v2)))
            return true;
    }
    return false;
}

static cr_status overlap(const cr_world *w, const query_shape *q, cr_query_filter filter, cr_overlap_fn *fn, void *ctx) {
    cr_query_marks m;
    CR_TRY(cri_query_enter(w, &m));
    bool stop = false;
    cri_query_mark_box(w, m.bits, q->lo, q->hi);
    for (uint32_t slot = cri_query_next_mark(w, m.bits, 0); slot != UINT32_MAX; slot = cri_query_next_mark(w, m.bits, slot)) {
        if (!cri_query_passes(w, slot, filter) || !meets_body(w, slot, q)) continue;
        if (!fn(ctx, (cr_body_id){slot + 1, cr_world_bodies_c(w)[slot].generation}, (cr_soft_id){0, 0})) {
            stop = true;
            break;
        }
    }
    if (!stop && cri_query_passes_soft(filter) && w->def.spring.body_capacity > 0) {
        const cr_soft_region *r = cri_soft_region_c(w);
        for (uint32_t i = 0; i < r->body_high; ++i)
            if (meets_soft(w, i, q) &&
                !fn(ctx, (cr_body_id){0, 0}, (cr_soft_id){i + 1, CR_AT(w, r->bodies, const cr_soft_body)[i].generation}))
                break;
    }
    cri_query_leave(w, &m);
    return CR_OK;
}

static void shape_box(query_shape *q) {
    cr_vec3 e = q->box ? q->he : cr_v3(q->radius, q->radius, q->radius);
    cr_vec3 r = cri_query_rotated_extent(q->pose.q, e); /* a sphere's pose is unrotated */
    q->lo = cr_v3_sub(q->pose.p, r), q->hi = cr_v3_add(q->pose.p, r);
}

static cr_status check_fn(const cr_world *w, cr_overlap_fn *fn) {
    if (w == NULL) return CR_ERR_NULL_ARGUMENT;
    return fn == NULL ? cri_query_refuse(w, CR_ERR_NULL_ARGUMENT, CR_FIELD_QUERY_CALLBACK) : CR_OK;
}

static cr_status check_half_extents(const cr_world *w, cr_vec3 he) {
    CR_TRY(cri_query_check_length(w, he.x, CR_FIELD_QUERY_HALF_EXTENTS));
    CR_TRY(cri_query_check_length(w, he.y, CR_FIELD_QUERY_HALF_EXTENTS));
    return cri_query_check_length(w, he.z, CR_FIELD_QUERY_HALF_EXTENTS);
}

cr_status cr_world_overlap_sphere(const cr_world *w, cr_vec3 centre, cr_real radius, cr_query_filter filter,
                                  cr_overlap_fn *fn, void *context) {
    CR_TRY(check_fn(w, fn));
    CR_TRY(cri_query_check_vec3(w, centre, CR_FIELD_QUERY_CENTRE));
    CR_TRY(cri_query_check_length(w, radius, CR_FIELD_QUERY_RADIUS));
    query_shape q = {false, {centre, {0, 0, 0, CR_R(1)}}, radius, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
    shape_box(&q);
    return overlap(w, &q, filter, fn, context);
}

cr_status cr_world_overlap_box(const cr_world *w, cr_transform pose, cr_vec3 half_extents, cr_query_filter filter,
                               cr_overlap_fn *fn, void *context) {
    CR_TRY(check_fn(w, fn));
    CR_TRY(cri_query_check_vec3(w, pose.p, CR_FIELD_QUERY_POSE));
    if (cr_quat_status(pose.q) != CR_OK) return cri_query_refuse(w, cr_quat_status(pose.q), CR_FIELD_QUERY_POSE);
    CR_TRY(check_half_extents(w, half_extents));
    query_shape q = {true, {pose.p, cr_quat_normalize(pose.q)}, 0, half_extents, {0, 0, 0}, {0, 0, 0}};
    shape_box(&q);
    return overlap(w, &q, filter, fn, context);
}

cr_status cr_world_overlap_aabb(const cr_world *w, cr_vec3 lo, cr_vec3 hi, cr_query_filter filter, cr_overlap_fn *fn,
                                void *context) {
    CR_TRY(check_fn(w, fn));
    CR_TRY(cri_query_check_vec3(w, lo, CR_FIELD_QUERY_BOUNDS));
    CR_TRY(cri_query_check_vec3(w, hi, CR_FIELD_QUERY_BOUNDS));
    cr_vec3 he = cr_v3_scale(cr_v3_sub(hi, lo), CR_R(0.5));
    if (he.x < 0 || he.y < 0 || he.z < 0) return cri_query_refuse(w, CR_ERR_ARGUMENT_RANGE, CR_FIELD_QUERY_BOUNDS);
    cr_transform pose = {cr_v3_scale(cr_v3_add(lo, hi), CR_R(0.5)), {0, 0, 0, CR_R(1)}};
    return cr_world_overlap_box(w, pose, cr_v3_max(he, cr_v3(CR_R(1e-6), CR_R(1e-6), CR_R(1e-6))), filter, fn, context);
}

typedef struct collect {
    cr_overlap_hit *out;
    uint32_t capacity, count;
} collect;

static bool collect_hit(void *ctx, cr_body_id body, cr_soft_id soft) {
    collect *c = ctx;
    if (c->count < c->capacity) c->out[c->count].body = body, c->out[c->count].soft = soft;
    ++c->count;
    return true;
}

static cr_status collect_check(const cr_world *w, const cr_overlap_hit *out, uint32_t capacity, uint32_t *count) {
    if (w == NULL) return CR_ERR_NULL_ARGUMENT;
    if (count == NULL || (out == NULL && capacity > 0)) return cri_query_refuse(w, CR_ERR_NULL_ARGUMENT, CR_FIELD_QUERY_OUT);
    *count = 0;
    return CR_OK;
}

cr_status cr_world_overlap_aabb_all(const cr_world *w, cr_vec3 lo, cr_vec3 hi, cr_query_filter filter,
                                    cr_overlap_hit *out, uint32_t capacity, uint32_t *count) {
    CR_TRY(collect_check(w, out, capacity, count));
    collect c = {out, capacity, 0};
    CR_TRY(cr_world_overlap_aabb(w, lo, hi, filter, collect_hit, &c));
    *count = c.count;
    return CR_OK;
}

cr_status cr_world_overlap_sphere_all(const cr_world *w, cr_vec3 centre, cr_real radius, cr_query_filter filter,
                                      cr_overlap_hit *out, uint32_t capacity, uint32_t *count) {
    CR_TRY(collect_check(w, out, capacity, count));
    collect c = {out, capacity, 0};
    CR_TRY(cr_world_overlap_sphere(w, centre, radius, filter, collect_hit, &c));
    *count = c.count;
    return CR_OK;
}

cr_status cr_world_overlap_box_all(const cr_world *w, cr_transform pose, cr_vec3 half_extents, cr_query_filter filter,
                                   cr_overlap_hit *out, uint32_t capacity, uint32_t *count) {
    CR_TRY(collect_check(w, out, capacity, count));
    collect c = {out, capacity, 0};
    CR_TRY(cr_world_overlap_box(w, pose, half_extents, filter, collect_hit, &c));
    *count = c.count;
    return CR_OK;
}
