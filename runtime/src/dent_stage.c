/* dent_stage.c — the deformation stage for dents (seed 000 Algorithm 1, lines 9-21).
 *
 * Runs after the rigid step. Every impact event that a dentable body felt
 * faster than its threshold becomes a job in a ring queue, in event order.
 * Jobs are then taken from the front while the step's budget lasts (dents
 * and cells, cr_deform_def); the first job of a step always runs, shrunk to
 * the budget if need be, so the queue always drains. A job that dents both
 * bodies builds both dent maps before applying either (Jacobi: symmetric
 * dents for equal bodies). After a dent: normals, samples and bounds of the
 * copy are refreshed, and the signed distance grid is patched only around
 * the dent, by sampling the old grid at the backward-displaced position.
 */
#include "deform.h"
#include "dent.h"
#include "hash.h"

#include <string.h>

static cr_deform_body *record_of(cr_world *w, uint32_t body_index1) {
    cr_deform_body *r = CR_AT(w, w->deform.records, cr_deform_body);
    for (uint32_t i = 0; i < w->def.deform.body_capacity; ++i)
        if (r[i].body_index1 == body_index1) return &r[i];
    return NULL;
}

static cr_dent_params params_of(const cr_dent_material *m, uint32_t world_max_cells) {
    cr_dent_params p;
    p.threshold_speed = m->threshold_speed;
    p.speed_scale = m->speed_scale;
    p.fixed_distance = m->fixed_distance;
    p.max_distance = m->max_distance;
    p.blur = m->blur;
    p.heat_iterations = m->heat_iterations;
    p.modified_iterations = m->modified_iterations;
    p.steepness = m->steepness;
    p.width_t = m->width_t;
    p.min_cos = m->min_cos;
    p.max_cells = m->max_cells < world_max_cells ? m->max_cells : world_max_cells;
    p.min_cells = m->min_cells < p.max_cells ? m->min_cells : p.max_cells;
    return p;
}

static cr_real mean_edge(const cr_asset *a) {
    /* equilateral triangles of the mean area: edge^2 = 4 A / (sqrt(3) T) */
    if (a->triangle_count == 0) return 0;
    cr_real area = cr_div(a->surface_area, cr_from_int((int32_t)a->triangle_count));
    return cr_sqrt(cr_mul(area, CR_R(2.309401076758503)));
}

void cr_deform_begin(cr_world *w) {
    w->deform.start_poses = CR_NO_OFFSET;
    if (w->def.deform.body_capacity == 0 || w->body_high == 0) return;
    uint32_t off = cr_arena_push(&w->scratch, (uint8_t *)w, w->body_high * (uint32_t)sizeof(cr_transform), 16);
    if (off == CR_NO_OFFSET) return; /* dents then use the end-of-step poses */
    cr_transform *poses = CR_AT(w, off, cr_transform);
    const cr_body *b = cr_world_bodies_c(w);
    for (uint32_t i = 0; i < w->body_high; ++i) poses[i] = b[i].xf;
    w->deform.start_poses = off;
}

void cr_deform_enqueue(cr_world *w) {
    if (w->def.deform.body_capacity == 0) return;
    const cr_impact_event *ev = cr_world_events(w);
    cr_dent_job *queue = CR_AT(w, w->deform.queue, cr_dent_job);
    uint32_t cap = w->def.deform.queue_capacity;
    for (uint32_t e = 0; e < w->event_count; ++e) {
        cr_real speed = -ev[e].normal_speed;
        cr_deform_body *ra = record_of(w, ev[e].body_a.index1), *rb = record_of(w, ev[e].body_b.index1);
        bool dent_a = ra && speed > ra->material.threshold_speed;
        bool dent_b = rb && speed > rb->material.threshold_speed;
        if (!dent_a && !dent_b) continue;
        if (w->deform.queue_count >= cap) {
            w->deform.dropped++;
            continue;
        }
        const cr_body *a = cr_world_body_c(w, ev[e].body_a), *b = cr_world_body_c(w, ev[e].body_b);
        /* called before the position update: these are the frames the event's point was taken in */
        if (a == NULL || b == NULL) continue;
        cr_dent_job *j = &queue[(w->deform.queue_head + w->deform.queue_count) % cap];
        memset(j, 0, sizeof *j);
        j->a_index1 = ev[e].body_a.index1, j->a_generation = ev[e].body_a.generation;
        j->b_index1 = ev[e].body_b.index1, j->b_generation = ev[e].body_b.generation;
        j->dent_a = dent_a, j->dent_b = dent_b;
        j->point = cr_transform_inv_point(a->xf, ev[e].point);
        j->normal = cr_quat_inv_rotate(a->xf.q, ev[e].normal); /* from b into a: a's denting normal */
        j->velocity = cr_quat_inv_rotate(a->xf.q, cr_v3_neg(ev[e].relative_velocity));
        /* the projectile as it arrived: start-of-step poses (the point is carried by a, any pose of a will do) */
        cr_transform xa = a->xf, xb = b->xf;
        if (w->deform.start_poses != CR_NO_OFFSET && ev[e].body_a.index1 <= w->body_high && ev[e].body_b.index1 <= w->body_high) {
            xa = CR_AT(w, w->deform.start_poses, cr_transform)[ev[e].body_a.index1 - 1];
            xb = CR_AT(w, w->deform.start_poses, cr_transform)[ev[e].body_b.index1 - 1];
        }
        j->b_in_a = cr_transform_mul(cr_transform_inverse(xa), xb);
        j->normal_speed = speed;
        w->deform.queue_count++;
    }
}

static const uint32_t box_triangles[36] = {0, 1, 5, 0, 5, 4, 2, 6, 7, 2, 7, 3, 0, 4, 6, 0, 6, 2,
                                           1, 3, 7, 1, 7, 5, 0, 2, 3, 0, 3, 1, 4, 5, 7, 4, 7, 6};

/* How `proj` looks to the Z-buffer; box and plane corners go to `corners`. */
static cr_dent_projectile projectile_of(const cr_world *w, const cr_body *proj, const cr_body *target,
                                        cr_transform to_target, cr_vec3 corners[8]) {
    cr_dent_projectile p;
    memset(&p, 0, sizeof p);
    p.to_target = to_target;
    switch ((cr_shape_type)proj->shape.type) {
    case CR_SHAPE_SPHERE:
        p.is_sphere = true;
        p.radius = proj->shape.radius;
        break;
    case CR_SHAPE_BOX:
    case CR_SHAPE_PLANE: {
        /* a plane is seen as a square under the target, flat as the ground is */
        cr_vec3 h = proj->shape.type == CR_SHAPE_BOX ? proj->shape.half_extents
                                                     : cr_v3(2 * target->bound_radius, 0, 2 * target->bound_radius);
        for (int i = 0; i < 8; ++i)
            corners[i] = cr_v3((i & 1) ? h.x : -h.x, proj->shape.type == CR_SHAPE_PLANE ? 0 : ((i & 2) ? h.y : -h.y),
                               (i & 4) ? h.z : -h.z);
        p.vertices = corners;
        p.triangles = box_triangles;
        p.triangle_count = 12;
        p.edge_length = cr_min(h.x, h.z);
        break;
    }
    case CR_SHAPE_MESH: {
        const cr_asset *a = cr_world_asset(w, proj->shape.asset);
        if (a == NULL) break;
        p.vertices = a->positions;
        p.triangles = a->triangles;
        p.triangle_count = a->triangle_count;
        p.edge_length = mean_edge(a);
        break;
    }
    }
    return p;
}

/* Normals, collision samples and bounds of a copy after its vertices moved. */
static void refresh_surface(cr_world *w, cr_deform_body *r, cr_body *body) {
    cr_asset *view = CR_AT(w, r->view, cr_asset);
    cr_vec3 *pos = CR_AT(w, r->positions, cr_vec3), *nrm = CR_AT(w, r->normals, cr_vec3);
    for (uint32_t v = 0; v < view->vertex_count; ++v) nrm[v] = cr_v3_zero();
    for (uint32_t t = 0; t < view->triangle_count; ++t) {
        const uint32_t *tri = &view->triangles[3 * t];
        cr_vec3 n = cr_v3_cross(cr_v3_sub(pos[tri[1]], pos[tri[0]]), cr_v3_sub(pos[tri[2]], pos[tri[0]]));
        for (int k = 0; k < 3; ++k) nrm[tri[k]] = cr_v3_add(nrm[tri[k]], n);
    }
    cr_vec3 lo = pos[0], hi = pos[0];
    cr_real r2 = 0;
    for (uint32_t v = 0; v < view->vertex_count; ++v) {
        nrm[v] = cr_v3_normalize(nrm[v]);
        lo = cr_v3_min(lo, pos[v]), hi = cr_v3_max(hi, pos[v]);
        r2 = cr_max(r2, cr_v3_len_sq(pos[v]));
    }
    if (view->samples != NULL) {
        cr_vec3 *s = CR_AT(w, r->samples, cr_vec3);
        for (uint32_t i = 0; i < view->sample_count; ++i) s[i] = pos[view->sample_vertex[i]];
    }
    view->bounds_min = lo, view->bounds_max = hi;
    view->bound_radius = cr_sqrt(r2);
    body->bound_radius = view->bound_radius;
}

/* Volume of the closed surface (divergence theorem), m^3. */
static cr_real surface_volume(const cr_vec3 *pos, const uint32_t *tri, uint32_t count) {
    cr_real six_v = 0;
    for (uint32_t t = 0; t < count; ++t)
        six_v += cr_v3_dot(pos[tri[3 * t]], cr_v3_cross(pos[tri[3 * t + 1]], pos[tri[3 * t + 2]]));
    return cr_div(six_v, CR_R(6));
}

/* Mass and inertia follow the volume a dent took away; the principal frame is
 * kept (a dent is small next to the body), so inertia scales with the mass. */
static void refresh_mass(cr_world *w, cr_deform_body *r, cr_body *b) {
    const cr_asset *rest = cr_world_asset(w, r->rest_slot);
    const cr_asset *view = CR_AT(w, r->view, const cr_asset);
    cr_real v0 = surface_volume(rest->positions, rest->triangles, rest->triangle_count);
    cr_real v1 = surface_volume(view->positions, view->triangles, view->triangle_count);
    if (v0 <= 0 || v1 <= 0) return;
    cr_real ratio = cr_div(v1, v0);
    cr_real mass = cr_mul(cr_mul(b->material.density, rest->volume), ratio);
    cr_vec3 inertia = cr_v3_scale(cr_v3_scale(rest->inertia, b->material.density), ratio);
    if (mass <= 0 || inertia.x <= 0 || inertia.y <= 0 || inertia.z <= 0) return;
    b->mass = mass;
    b->inv_mass = cr_div(CR_R(1), mass);
    b->inertia = inertia;
    b->inv_inertia = cr_v3(cr_div(CR_R(1), inertia.x), cr_div(CR_R(1), inertia.y), cr_div(CR_R(1), inertia.z));
}

/* Trilinear sample of the saved patch (nodes c0..c0+size-1 per axis), clamped to it. */
static cr_real sample_saved(const cr_real *old, const int32_t c0[3], const int32_t size[3], cr_vec3 u) {
    cr_real uu[3] = {u.x - cr_from_int(c0[0]), u.y - cr_from_int(c0[1]), u.z - cr_from_int(c0[2])};
    int32_t i[3];
    cr_real f[3];
    for (int k = 0; k < 3; ++k) {
        cr_real hi = cr_from_int(size[k] - 1);
        uu[k] = cr_clamp(uu[k], 0, hi);
        i[k] = cr_floor_int(uu[k]);
        if (i[k] > size[k] - 2) i[k] = size[k] - 2;
        if (i[k] < 0) i[k] = 0;
        f[k] = uu[k] - cr_from_int(i[k]);
        if (size[k] == 1) f[k] = 0;
    }
    int32_t sx = 1, sy = size[0], sz = size[0] * size[1];
    const cr_real *o = old + i[0] + i[1] * sy + i[2] * sz;
    int32_t dx = size[0] > 1 ? sx : 0, dy = size[1] > 1 ? sy : 0, dz = size[2] > 1 ? sz : 0;
    cr_real x00 = o[0] + cr_mul(f[0], o[dx] - o[0]), x10 = o[dy] + cr_mul(f[0], o[dy + dx] - o[dy]);
    cr_real x01 = o[dz] + cr_mul(f[0], o[dz + dx] - o[dz]), x11 = o[dz + dy] + cr_mul(f[0], o[dz + dy + dx] - o[dz + dy]);
    cr_real y0 = x00 + cr_mul(f[1], x10 - x00), y1 = x01 + cr_mul(f[1], x11 - x01);
    return y0 + cr_mul(f[2], y1 - y0);
}

/* Where the saved grid patch goes: after the two dent maps. */
static cr_real *patch_scratch(cr_world *w) {
    uint32_t map_bytes = (cr_dent_scratch_bytes(w->def.deform.max_cells) + 15u) & ~15u;
    return CR_AT(w, w->deform.scratch + 2 * map_bytes, cr_real);
}

/* Patch the grid around the dent: phi_new(x) = phi_old(x - D(x)). Returns the
 * nodes it read (the work count). */
static uint32_t patch_grid(cr_world *w, cr_deform_body *r, const cr_dent *d, const cr_dent_params *p, uint32_t budget) {
    const cr_asset *view = CR_AT(w, r->view, const cr_asset);
    cr_real *sdf = CR_AT(w, r->sdf, cr_real);
    cr_real *old = patch_scratch(w);
    cr_real reach = d->support + cr_mul(CR_R(6), d->distance);
    int32_t margin = cr_floor_int(cr_mul(d->distance, view->sdf_inv_cell)) + 2;
    int32_t lo[3], hi[3], c0[3], size[3];
    cr_real pc[3] = {d->point.x - view->sdf_origin.x, d->point.y - view->sdf_origin.y, d->point.z - view->sdf_origin.z};
    for (;;) {
        uint64_t nodes = 1;
        for (int k = 0; k < 3; ++k) {
            int32_t dim = (int32_t)view->sdf_dims[k];
            lo[k] = cr_floor_int(cr_mul(pc[k] - reach, view->sdf_inv_cell));
            hi[k] = cr_floor_int(cr_mul(pc[k] + reach, view->sdf_inv_cell)) + 1;
            lo[k] = lo[k] < 0 ? 0 : (lo[k] > dim - 1 ? dim - 1 : lo[k]);
            hi[k] = hi[k] < 0 ? 0 : (hi[k] > dim - 1 ? dim - 1 : hi[k]);
            c0[k] = lo[k] - margin < 0 ? 0 : lo[k] - margin;
            int32_t c1 = hi[k] + margin > dim - 1 ? dim - 1 : hi[k] + margin;
            size[k] = c1 - c0[k] + 1;
            nodes *= (uint64_t)size[k];
        }
        if (nodes <= budget) break;
        /* a dent larger than the budget: patch its core only */
        reach = cr_mul(reach, CR_R(0.8));
        if (reach < view->sdf_cell) return 0;
    }
    uint32_t nx = view->sdf_dims[0], nxy = nx * view->sdf_dims[1];
    for (int32_t z = 0; z < size[2]; ++z)
        for (int32_t y = 0; y < size[1]; ++y)
            memcpy(old + (uint32_t)(z * size[1] + y) * (uint32_t)size[0],
                   sdf + (uint32_t)(c0[2] + z) * nxy + (uint32_t)(c0[1] + y) * nx + (uint32_t)c0[0],
                   (size_t)size[0] * sizeof(cr_real));
    for (int32_t z = lo[2]; z <= hi[2]; ++z)
        for (int32_t y = lo[1]; y <= hi[1]; ++y)
            for (int32_t x = lo[0]; x <= hi[0]; ++x) {
                cr_vec3 node = cr_v3(view->sdf_origin.x + cr_mul(cr_from_int(x), view->sdf_cell),
                                     view->sdf_origin.y + cr_mul(cr_from_int(y), view->sdf_cell),
                                     view->sdf_origin.z + cr_mul(cr_from_int(z), view->sdf_cell));
                cr_vec3 disp = cr_dent_displacement(d, p, node);
                if (disp.x == 0 && disp.y == 0 && disp.z == 0) continue;
                cr_vec3 back = cr_v3_scale(cr_v3_sub(cr_v3_sub(node, disp), view->sdf_origin), view->sdf_inv_cell);
                cr_real v = sample_saved(old, c0, size, back);
                sdf[(uint32_t)z * nxy + (uint32_t)y * nx + (uint32_t)x] = v;
                r->patch_digest = cr_hash_real(cr_hash_u32(r->patch_digest, (uint32_t)z * nxy + (uint32_t)y * nx + (uint32_t)x), v);
            }
    return size[0] * size[1] * size[2];
}

/* One side of a job: target dents, projectile makes the map. */
typedef struct dent_side {
    cr_deform_body *rec;
    cr_body *target, *proj;
    cr_dent_params params;
    cr_dent_impact impact;
    cr_dent_projectile projectile;
    cr_vec3 corners[8];
    uint32_t cells;
    cr_real cell;
    cr_dent dent;
    cr_vec3 world_normal; /* into the target, for moving the projectile */
} dent_side;

static void side_setup(cr_world *w, dent_side *s, cr_deform_body *rec, cr_body *target, cr_body *proj, cr_vec3 point,
                       cr_vec3 normal, cr_vec3 velocity, cr_transform proj_to_target, cr_real speed) {
    s->rec = rec, s->target = target, s->proj = proj;
    s->params = params_of(&rec->material, w->def.deform.max_cells);
    /* The event's point is where the deepest sample was, a little inside one
     * body and outside the other: put each dent's origin on its own surface,
     * or the two sides of one impact would not dent alike. */
    const cr_asset *ta = cr_world_asset(w, target->shape.asset);
    cr_vec3 grad;
    cr_real phi = cr_asset_sdf(ta, point, &grad);
    point = cr_v3_mad(point, -phi, grad);
    s->impact.point = point;
    s->impact.normal = normal;
    s->impact.velocity = velocity;
    s->impact.distance = cr_dent_distance(&s->params, speed);
    s->projectile = projectile_of(w, proj, target, proj_to_target, s->corners);
    s->cells = cr_dent_plan_cells(&s->params, &s->impact, &s->projectile, mean_edge(ta), &s->cell);
    s->world_normal = cr_quat_rotate(target->xf.q, normal);
}

/* Shrink a side's grid so its cells fit `budget`, keeping its extent. */
static void fit_budget(dent_side *s, uint32_t budget) {
    uint32_t n = s->cells;
    while (n > 5 && n * n > budget) --n;
    if (n == s->cells) return;
    s->cell = cr_div(cr_mul(s->cell, cr_from_int((int32_t)s->cells - 1)), cr_from_int((int32_t)n - 1));
    s->cells = n;
}

static void apply_side(cr_world *w, dent_side *s, uint32_t *cells_used, uint32_t patch_budget) {
    cr_vec3 *pos = CR_AT(w, s->rec->positions, cr_vec3);
    const cr_asset *view = CR_AT(w, s->rec->view, const cr_asset);
    uint32_t first, last;
    uint32_t moved = cr_dent_apply(&s->dent, &s->params, pos, view->vertex_count, &first, &last);
    if (moved > 0) {
        if (s->rec->dirty_first > s->rec->dirty_last) s->rec->dirty_first = first, s->rec->dirty_last = last;
        if (first < s->rec->dirty_first) s->rec->dirty_first = first;
        if (last > s->rec->dirty_last) s->rec->dirty_last = last;
        refresh_surface(w, s->rec, s->target);
    }
    *cells_used += patch_grid(w, s->rec, &s->dent, &s->params, patch_budget);
    s->rec->dent_count++;
    if (s->rec->material.refresh_mass && s->target->type == CR_BODY_DYNAMIC) refresh_mass(w, s->rec, s->target);
    if (s->rec->material.move_projectile && s->proj->type == CR_BODY_DYNAMIC)
        s->proj->xf.p = cr_v3_mad(s->proj->xf.p, s->dent.distance, s->world_normal);
}

void cr_deform_step(cr_world *w) {
    cr_stage_stats *st = &w->stats.stage[CR_STAGE_deform];
    if (w->def.deform.body_capacity == 0) return;
    cr_dent_job *queue = CR_AT(w, w->deform.queue, cr_dent_job);
    const cr_deform_def *dd = &w->def.deform;
    uint32_t dents = 0, cells = 0;
    uint32_t map_bytes = (uint32_t)((cr_dent_scratch_bytes(dd->max_cells) + 15u) & ~15u);
    while (w->deform.queue_count > 0) {
        cr_dent_job *j = &queue[w->deform.queue_head];
        cr_body_id ida = {j->a_index1, j->a_generation}, idb = {j->b_index1, j->b_generation};
        cr_body *a = cr_world_body(w, ida), *b = cr_world_body(w, idb);
        cr_deform_body *ra = a && j->dent_a ? record_of(w, j->a_index1) : NULL;
        cr_deform_body *rb = b && j->dent_b ? record_of(w, j->b_index1) : NULL;
        dent_side sides[2];
        uint32_t n = 0;
        if (a && b && ra)
            side_setup(w, &sides[n++], ra, a, b, j->point, j->normal, j->velocity, j->b_in_a, j->normal_speed);
        if (a && b && rb) {
            cr_transform a_in_b = cr_transform_inverse(j->b_in_a);
            side_setup(w, &sides[n++], rb, b, a, cr_transform_point(a_in_b, j->point),
                       cr_quat_rotate(a_in_b.q, cr_v3_neg(j->normal)), cr_quat_rotate(a_in_b.q, cr_v3_neg(j->velocity)),
                       a_in_b, j->normal_speed);
        }
        uint32_t need = 0;
        for (uint32_t k = 0; k < n; ++k) need += sides[k].cells * sides[k].cells;
        if (dents > 0 && (dents + n > dd->dents_per_step || cells + need > dd->cells_per_step)) break;
        for (uint32_t k = 0; k < n; ++k) fit_budget(&sides[k], dd->cells_per_step / (2 * n));
        /* Jacobi: both maps from the shapes as they were before this impact */
        for (uint32_t k = 0; k < n; ++k) {
            cr_dent_build(&sides[k].dent, &sides[k].params, &sides[k].impact, &sides[k].projectile, sides[k].cells,
                          sides[k].cell, CR_AT(w, w->deform.scratch + k * map_bytes, void));
            cells += sides[k].cells * sides[k].cells;
        }
        for (uint32_t k = 0; k < n; ++k) {
            if (sides[k].dent.distance <= 0) continue;
            uint32_t left = dd->cells_per_step > cells ? dd->cells_per_step - cells : dd->cells_per_step / 4;
            apply_side(w, &sides[k], &cells, left);
            ++dents;
        }
        w->deform.queue_head = (w->deform.queue_head + 1) % dd->queue_capacity;
        w->deform.queue_count--;
    }
    st->work = dents;
    st->overflow = w->deform.queue_count + w->deform.dropped;
    w->deform.dropped = 0;
    w->stats.dent_cells = cells;
}
