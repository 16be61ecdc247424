/* ray.c — rays against every body kind: the closest hit, every hit through
 * a callback, every hit into an array (crumple/query.h, docs/queries.md).
 *
 * Each body is tested in its own frame on the part of the ray inside its
 * box (the box the tree holds, or the mesh's own bounds), so the triangle
 * arithmetic only ever sees lengths of the body's size: in Q32.32 the
 * products of a 10 km ray with a 1 cm triangle would leave the format.
 * Triangles are tested one-sided (Moller-Trumbore without the division until
 * a hit is accepted): a ray meets a closed surface's front faces first, and
 * a ray that starts inside a body does not hit it from within.
 *
 * The closest hit walks the body tree nearest box first and stops opening
 * boxes that start beyond the best hit; the callback and array forms mark
 * the bodies whose boxes the ray crosses and test them in handle order.
 */
#include "query/query_tree.h"
#include "query/segment.h"
#include "query/query_call.h"
#include "soft/mass_spring.h"

typedef struct best_hit {
    bool found;
    cr_real t;
    cr_vec3 normal; ///< not unit yet: in the frame of the test
    uint32_t triangle;
} best_hit;

/* one-sided triangle test: true and *t if the segment meets the front of
 * (a, b, c) (counter-clockwise seen from outside) at t <= tmax */
static bool ray_triangle(const cr_segment *s, cr_vec3 a, cr_vec3 b, cr_vec3 c, cr_real tmax, cr_real *t) {
    cr_vec3 e1 = cr_v3_sub(b, a), e2 = cr_v3_sub(c, a);
    cr_vec3 p = cr_v3_cross(s->d, e2);
    cr_real det = cr_v3_dot(e1, p);
    if (det <= 0) return false; /* back face or parallel */
    cr_vec3 o = cr_v3_sub(s->o, a);
    cr_real u = cr_v3_dot(o, p);
    if (u < 0 || u > det) return false;
    cr_vec3 q = cr_v3_cross(o, e1);
    cr_real v = cr_v3_dot(s->d, q);
    if (v < 0 || u + v > det) return false;
    cr_real tn = cr_v3_dot(e2, q);
    if (tn < 0 || tn > cr_mul(tmax, det)) return false;
    *t = cr_div(tn, det);
    return *t <= tmax;
}

static void triangle_hit(const cr_segment *s, const cr_vec3 *pos, const uint32_t *tri, uint32_t k, best_hit *h) {
    cr_vec3 a = pos[tri[3 * k]], b = pos[tri[3 * k + 1]], c = pos[tri[3 * k + 2]];
    cr_real t;
    if (!ray_triangle(s, a, b, c, h->found ? h->t : CR_R(1), &t)) return;
    if (h->found && (t > h->t || (t == h->t && k > h->triangle))) return;
    h->found = true, h->t = t, h->triangle = k;
    /* edges normalised first: a small triangle's cross product would lose its digits in Q32.32 */
    h->normal = cr_v3_cross(cr_v3_normalize(cr_v3_sub(b, a)), cr_v3_normalize(cr_v3_sub(c, a)));
}

/* Push an inner node's children that the segment meets before tmax, the
 * nearer last so it is opened first; each with where the ray enters it, so
 * a popped box is skipped, untested, once the best hit is in front of it. */
static void push_children(const cr_segment *s, const cr_tree_node *nodes, const cr_tree_node *nd, cr_real tmax,
                          uint32_t *stack, cr_real *enter, uint32_t *top) {
    const cr_tree_node *l = &nodes[nd->first], *r = &nodes[nd->first + 1];
    cr_real a0 = 0, a1 = 0, b0 = 0, b1 = 0; /* set whenever hl or hr is (the cross compiler cannot see it) */
    bool hl = cri_segment_box(s, l->lo, l->hi, tmax, &a0, &a1);
    bool hr = cri_segment_box(s, r->lo, r->hi, tmax, &b0, &b1);
    if (hl && hr && a0 > b0) {
        enter[*top] = a0, stack[(*top)++] = nd->first;
        hl = false;
    }
    if (hr) enter[*top] = b0, stack[(*top)++] = nd->first + 1;
    if (hl) enter[*top] = a0, stack[(*top)++] = nd->first;
}

/* the triangles of pos/tri against the segment, through the tree if there is one */
static void ray_triangles(const cr_segment *s, const cr_vec3 *pos, const uint32_t *tri, uint32_t triangle_count,
                          const cr_world *w, const cr_mesh_tree *tree, best_hit *h) {
    if (tree == NULL) {
        for (uint32_t k = 0; k < triangle_count; ++k) triangle_hit(s, pos, tri, k, h);
        return;
    }
    const cr_tree_node *nodes = CR_AT(w, tree->nodes, const cr_tree_node);
    const uint32_t *items = CR_AT(w, tree->triangles, const uint32_t);
    uint32_t stack[CR_TREE_STACK], top = 0;
    cr_real enter[CR_TREE_STACK];
    cr_real t0, t1;
    if (cri_segment_box(s, nodes[0].lo, nodes[0].hi, CR_R(1), &t0, &t1)) enter[top] = t0, stack[top++] = 0;
    while (top > 0) {
        --top;
        cr_real tmax = h->found ? h->t : CR_R(1);
        if (enter[top] > tmax) continue;
        const cr_tree_node *nd = &nodes[stack[top]];
        if (nd->count > 0) {
            for (uint32_t k = 0; k < nd->count; ++k) triangle_hit(s, pos, tri, items[nd->first + k], h);
            continue;
        }
        push_children(s, nodes, nd, tmax, stack, enter, &top);
    }
}

/* The segment's part [t0, t1] inside lo .. hi as a segment of its own, so a
 * body's arithmetic sees lengths of its own size; maps fractions back. */
typedef struct sub_segment {
    cr_segment s;
    cr_real t0, span;
} sub_segment;

static bool clip(const cr_segment *s, cr_vec3 lo, cr_vec3 hi, cr_real tmax, sub_segment *out) {
    cr_real t0, t1;
    /* a margin, so the part starts off a face that lies in the box's own face (a flat bottom):
     * a start on the triangle's plane would round to either side of it */
    cr_vec3 e = cr_v3_sub(hi, lo);
    cr_real m = CR_R(1e-4) + cr_mul(cr_max(e.x, cr_max(e.y, e.z)), CR_R(1e-3));
    lo = cr_v3_sub(lo, cr_v3(m, m, m)), hi = cr_v3_add(hi, cr_v3(m, m, m));
    if (!cri_segment_box(s, lo, hi, tmax, &t0, &t1)) return false;
    out->t0 = t0, out->span = t1 - t0;
    out->s = cri_segment(cri_segment_at(s, t0), cr_v3_scale(s->d, out->span));
    return true;
}

static cr_real unclip(const sub_segment *c, cr_real t) { return c->t0 + cr_mul(t, c->span); }

static bool ray_sphere(const cr_segment *s, cr_vec3 centre, cr_real radius, cr_real tmax, best_hit *h) {
    sub_segment c;
    cr_vec3 r3 = cr_v3(radius, radius, radius);
    if (!clip(s, cr_v3_sub(centre, r3), cr_v3_add(centre, r3), tmax, &c)) return false;
    cr_vec3 oc = cr_v3_sub(c.s.o, centre);
    cr_real cc = cr_v3_dot(oc, oc) - cr_mul(radius, radius);
    if (cc < 0) return false; /* starts inside */
    cr_real a = cr_v3_dot(c.s.d, c.s.d), b = cr_v3_dot(oc, c.s.d);
    if (b >= 0 || a <= 0) return false;
    cr_real disc = cr_mul(b, b) - cr_mul(a, cc);
    if (disc < 0) return false;
    cr_real t = cr_div(-b - cr_sqrt(disc), a);
    if (t < 0) t = 0;
    if (t > CR_R(1)) return false;
    h->found = true, h->t = unclip(&c, t), h->triangle = UINT32_MAX;
    h->normal = cr_v3_sub(cri_segment_at(&c.s, t), centre);
    return h->t <= tmax;
}

/* a box about the origin: the slab whose entry is last is the face hit */
static bool ray_box(const cr_segment *s, cr_vec3 he, cr_real tmax, best_hit *h) {
    cr_real enter = CR_R(-1), leave = tmax;
    int face = -1;
    cr_real sign = 0;
    for (int a = 0; a < 3; ++a) {
        cr_real o = cr_seg_axis(s->o, a), e = cr_seg_axis(he, a);
        if (s->flat[a]) {
            if (o < -e || o > e) return false;
            continue;
        }
        cr_real d = cr_seg_axis(s->d, a);
        cr_real ta = cri_segment_cross(-e - o, d, s->inv[a]), tb = cri_segment_cross(e - o, d, s->inv[a]);
        cr_real sg = CR_R(-1);
        if (ta > tb) {
            cr_real t = ta;
            ta = tb, tb = t, sg = CR_R(1);
        }
        if (ta > enter) enter = ta, face = a, sign = sg;
        if (tb < leave) leave = tb;
        if (enter > leave) return false;
    }
    if (face < 0 || enter < 0) return false; /* starts inside */
    h->found = true, h->t = enter, h->triangle = UINT32_MAX;
    h->normal = cr_v3(face == 0 ? sign : 0, face == 1 ? sign : 0, face == 2 ? sign : 0);
    return true;
}

static bool ray_plane(const cr_segment *s, cr_real tmax, best_hit *h) {
    cr_real o = s->o.y, d = s->d.y;
    if (o < 0 || d >= 0 || o > cr_mul(-d, tmax)) return false;
    h->found = true, h->t = cr_div(o, -d), h->triangle = UINT32_MAX;
    h->normal = cr_v3(0, CR_R(1), 0);
    return h->t <= tmax;
}

static bool ray_mesh(const cr_world *w, const cr_body *b, const cr_segment *s, cr_real tmax, best_hit *h) {
    const cr_asset *a = cr_world_asset(w, b->shape.asset);
    if (a == NULL) return false;
    cr_vec3 lo, hi;
    cri_query_mesh_local_box(w, b, &lo, &hi);
    sub_segment c;
    if (!clip(s, lo, hi, tmax, &c)) return false;
    best_hit local = {false, 0, {0, 0, 0}, 0};
    ray_triangles(&c.s, a->positions, a->triangles, a->triangle_count, w, cri_query_mesh_tree(w, b->shape.asset), &local);
    if (!local.found) return false;
    *h = local;
    h->t = unclip(&c, local.t);
    return h->t <= tmax;
}

/* one rigid body: its nearest hit at or before tmax, in world terms */
static bool ray_body(const cr_world *w, uint32_t slot, const cr_segment *ws, cr_real tmax, cr_ray_hit *out) {
    const cr_body *b = &cr_world_bodies_c(w)[slot];
    best_hit h = {false, 0, {0, 0, 0}, UINT32_MAX};
    bool hit = false;
    if (b->shape.type == CR_SHAPE_SPHERE) {
        hit = ray_sphere(ws, b->xf.p, b->shape.radius, tmax, &h);
    } else {
        cr_segment ls = cri_segment(cr_transform_inv_point(b->xf, ws->o), cr_quat_inv_rotate(b->xf.q, ws->d));
        if (b->shape.type == CR_SHAPE_BOX) hit = ray_box(&ls, b->shape.half_extents, tmax, &h);
        else if (b->shape.type == CR_SHAPE_PLANE) hit = ray_plane(&ls, tmax, &h);
        else if (b->shape.type == CR_SHAPE_MESH) hit = ray_mesh(w, b, &ls, tmax, &h);
        h.normal = cr_quat_rotate(b->xf.q, h.normal);
    }
    if (!hit) return false;
    out->body = (cr_body_id){slot + 1, b->generation};
    out->soft = (cr_soft_id){0, 0};
    out->fraction = h.t;
    out->point = cri_segment_at(ws, h.t);
    out->normal = cr_v3_normalize(h.normal);
    out->triangle = h.triangle;
    return true;
}

/* one soft body: its particles' triangles, in world space */
static bool ray_soft(const cr_world *w, uint32_t slot, const cr_segment *ws, cr_real tmax, cr_ray_hit *out) {
    const cr_soft_region *r = cri_soft_region_c(w);
    const cr_soft_body *sb = &CR_AT(w, r->bodies, const cr_soft_body)[slot];
    const cr_asset *a = cr_world_asset(w, sb->asset);
    if (!sb->alive || a == NULL) return false;
    const cr_particle *p = &CR_AT(w, r->particles, const cr_particle)[sb->first_particle];
    /* the bounds from the particles themselves: the stored ones are the last step's */
    cr_vec3 lo = p[0].x, hi = p[0].x;
    for (uint32_t i = 1; i < sb->particle_count; ++i) lo = cr_v3_min(lo, p[i].x), hi = cr_v3_max(hi, p[i].x);
    sub_segment c;
    if (!clip(ws, lo, hi, tmax, &c)) return false;
    best_hit h = {false, 0, {0, 0, 0}, 0};
    for (uint32_t k = 0; k < a->triangle_count; ++k) {
        const uint32_t *t = &a->triangles[3 * k];
        cr_vec3 v0 = p[t[0]].x, v1 = p[t[1]].x, v2 = p[t[2]].x;
        cr_real tt;
        if (!ray_triangle(&c.s, v0, v1, v2, h.found ? h.t : CR_R(1), &tt)) continue;
        if (h.found && tt >= h.t) continue;
        h.found = true, h.t = tt, h.triangle = k;
        h.normal = cr_v3_cross(cr_v3_normalize(cr_v3_sub(v1, v0)), cr_v3_normalize(cr_v3_sub(v2, v0)));
    }
    if (!h.found) return false;
    cr_real t = unclip(&c, h.t);
    if (t > tmax) return false;
    out->body = (cr_body_id){0, 0};
    out->soft = (cr_soft_id){slot + 1, sb->generation};
    out->fraction = t;
    out->point = cri_segment_at(ws, t);
    out->normal = cr_v3_normalize(h.normal);
    out->triangle = h.triangle;
    return true;
}

static uint32_t soft_high(const cr_world *w) {
    return w->def.spring.body_capacity == 0 ? 0 : cri_soft_region_c(w)->body_high;
}

/* a before b: nearer, then rigid before soft, then lower slot */
static bool hit_before(const cr_ray_hit *a, const cr_ray_hit *b) {
    if (a->fraction != b->fraction) return a->fraction < b->fraction;
    bool as = a->body.index1 == 0, bs = b->body.index1 == 0;
    if (as != bs) return !as;
    return (as ? a->soft.index1 : a->body.index1) < (bs ? b->soft.index1 : b->body.index1);
}

static void consider(const cr_ray_hit *h, cr_ray_hit *best, bool *found) {
    if (!*found || hit_before(h, best)) *best = *h, *found = true;
}

cr_status cr_world_cast_ray_closest(const cr_world *w, cr_vec3 origin, cr_vec3 translation, cr_query_filter filter,
                                    cr_ray_hit *out, bool *found) {
    if (w == NULL) return CR_ERR_NULL_ARGUMENT;
    if (out == NULL || found == NULL) return cri_query_refuse(w, CR_ERR_NULL_ARGUMENT, CR_FIELD_QUERY_OUT);
    *found = false;
    CR_TRY(cri_query_check_ray(w, origin, translation));
    cr_segment ws = cri_segment(origin, translation);
    const cr_query_region *r = cri_query_region(w);
    cr_ray_hit h;
    if (!cri_query_tree_valid(w)) {
        for (uint32_t i = 0; i < w->body_high; ++i)
            if (cri_query_answers(w, i) && cri_query_passes(w, i, filter) && ray_body(w, i, &ws, *found ? out->fraction : CR_R(1), &h))
                consider(&h, out, found);
    } else {
        const uint32_t *loose = CR_AT(w, r->loose, const uint32_t);
        for (uint32_t i = 0; i < r->loose_count; ++i)
            if (cri_query_passes(w, loose[i], filter) && ray_body(w, loose[i], &ws, *found ? out->fraction : CR_R(1), &h))
                consider(&h, out, found);
        const cr_tree_node *nodes = CR_AT(w, r->body_nodes, const cr_tree_node);
        const uint32_t *items = CR_AT(w, r->body_items, const uint32_t);
        uint32_t stack[CR_TREE_STACK], top = 0;
        cr_real enter[CR_TREE_STACK];
        cr_real t0, t1;
        if (r->item_count > 0 && cri_segment_box(&ws, nodes[0].lo, nodes[0].hi, *found ? out->fraction : CR_R(1), &t0, &t1))
            enter[top] = t0, stack[top++] = 0;
        while (top > 0) {
            --top;
            cr_real tmax = *found ? out->fraction : CR_R(1);
            if (enter[top] > tmax) continue;
            const cr_tree_node *nd = &nodes[stack[top]];
            if (nd->count == 0) {
                push_children(&ws, nodes, nd, tmax, stack, enter, &top);
                continue;
            }
            for (uint32_t k = 0; k < nd->count; ++k) {
                uint32_t slot = items[nd->first + k];
                if (cri_query_passes(w, slot, filter) && ray_body(w, slot, &ws, *found ? out->fraction : CR_R(1), &h))
                    consider(&h, out, found);
            }
        }
    }
    if (cri_query_passes_soft(filter))
        for (uint32_t i = 0; i < soft_high(w); ++i)
            if (ray_soft(w, i, &ws, *found ? out->fraction : CR_R(1), &h)) consider(&h, out, found);
    return CR_OK;
}

cr_status cr_world_cast_ray(const cr_world *w, cr_vec3 origin, cr_vec3 translation, cr_query_filter filter,
                            cr_ray_fn *fn, void *context) {
    if (w == NULL) return CR_ERR_NULL_ARGUMENT;
    if (fn == NULL) return cri_query_refuse(w, CR_ERR_NULL_ARGUMENT, CR_FIELD_QUERY_CALLBACK);
    CR_TRY(cri_query_check_ray(w, origin, translation));
    cr_query_marks m;
    CR_TRY(cri_query_enter(w, &m));
    cr_segment ws = cri_segment(origin, translation);
    cr_real tmax = CR_R(1);
    bool stop = false;
    cri_query_mark_ray(w, m.bits, origin, translation);
    for (uint32_t slot = cri_query_next_mark(w, m.bits, 0); slot != UINT32_MAX; slot = cri_query_next_mark(w, m.bits, slot)) {
        cr_ray_hit h;
        if (!cri_query_passes(w, slot, filter) || !ray_body(w, slot, &ws, tmax, &h)) continue;
        cr_real k = fn(context, &h);
        if (k == 0) {
            stop = true;
            break;
        }
        if (k > 0 && k < tmax) tmax = k;
    }
    if (!stop && cri_query_passes_soft(filter))
        for (uint32_t i = 0; i < soft_high(w); ++i) {
            cr_ray_hit h;
            if (!ray_soft(w, i, &ws, tmax, &h)) continue;
            cr_real k = fn(context, &h);
            if (k == 0) break;
            if (k > 0 && k < tmax) tmax = k;
        }
    cri_query_leave(w, &m);
    return CR_OK;
}

typedef struct collect {
    cr_ray_hit *out;
    uint32_t capacity, count;
} collect;

/* keep the nearest `capacity` hits sorted */
static cr_real collect_hit(void *ctx, const cr_ray_hit *h) {
    collect *c = ctx;
    uint32_t kept = c->count < c->capacity ? c->count : c->capacity;
    ++c->count;
    uint32_t at = kept;
    while (at > 0 && hit_before(h, &c->out[at - 1])) --at;
    if (at >= c->capacity) return CR_R(1);
    uint32_t last = kept < c->capacity ? kept : c->capacity - 1;
    for (uint32_t i = last; i > at; --i) c->out[i] = c->out[i - 1];
    c->out[at] = *h;
    return CR_R(1);
}

cr_status cr_world_cast_ray_all(const cr_world *w, cr_vec3 origin, cr_vec3 translation, cr_query_filter filter,
                                cr_ray_hit *out, uint32_t capacity, uint32_t *count) {
    if (w == NULL) return CR_ERR_NULL_ARGUMENT;
    if (count == NULL || (out == NULL && capacity > 0)) return cri_query_refuse(w, CR_ERR_NULL_ARGUMENT, CR_FIELD_QUERY_OUT);
    *count = 0;
    collect c = {out, capacity, 0};
    CR_TRY(cr_world_cast_ray(w, origin, translation, filter, collect_hit, &c));
    *count = c.count;
    return CR_OK;
}
