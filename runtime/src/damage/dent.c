/* dent.c — one dent from impact to displaced vertices (see dent.h). */
#include "damage/dent.h"

cr_real cri_dent_distance(const cr_dent_def *p, cr_real normal_speed) {
    if (normal_speed <= p->threshold_speed) return 0;
    cr_real d = p->speed_scale > 0 ? cr_mul(normal_speed - p->threshold_speed, p->speed_scale) : p->fixed_distance;
    return cr_min(d, p->max_distance);
}

/* The impact frame: denting normal n, tangent ex along the tangential part of
 * the relative velocity, ey, and the angle of incidence. */
static void impact_frame(const cr_dent_def *p, const cr_dent_impact *imp, cr_dent *d) {
    d->point = imp->point;
    d->normal = cr_v3_normalize(imp->normal);
    d->distance = imp->distance;
    cr_real speed;
    cr_vec3 u = cr_v3_normalize_len(imp->velocity, &speed);
    cr_real c = cr_v3_dot(u, d->normal);
    cr_vec3 t = cr_v3_sub(u, cr_v3_scale(d->normal, c));
    cr_real tl;
    cr_vec3 ex = cr_v3_normalize_len(t, &tl);
    if (speed <= CR_R(1e-6) || c <= 0 || tl <= CR_R(1e-4)) {
        /* head-on (or no usable velocity): any tangent will do */
        cr_vec3 n = d->normal;
        cr_vec3 a = cr_abs(n.x) < CR_R(0.6) ? cr_v3(CR_R(1), 0, 0) : cr_v3(0, CR_R(1), 0);
        ex = cr_v3_normalize(cr_v3_sub(a, cr_v3_scale(n, cr_v3_dot(a, n))));
        c = CR_R(1);
    }
    c = cr_clamp(c, p->min_cos, CR_R(1));
    d->cos_theta = c;
    d->sin_theta = cr_sqrt(CR_R(1) - cr_mul(c, c));
    d->ex = ex;
    d->ey = cr_v3_cross(d->normal, ex);
}

/* Profile direction (looking along the relative velocity) and its in-plane x axis. */
static cr_vec3 profile_dir(const cr_dent *d) { return cr_v3_add(cr_v3_scale(d->ex, d->sin_theta), cr_v3_scale(d->normal, d->cos_theta)); }
static cr_vec3 profile_x(const cr_dent *d) { return cr_v3_sub(cr_v3_scale(d->ex, d->cos_theta), cr_v3_scale(d->normal, d->sin_theta)); }

/* A point of the projectile in profile coordinates: (x', y, height past the plane moved back by d). */
static cr_vec3 to_profile(const cr_dent *d, cr_vec3 dir, cr_vec3 px, cr_vec3 v) {
    cr_vec3 r = cr_v3_sub(v, d->point);
    return cr_v3(cr_v3_dot(r, px), cr_v3_dot(r, d->ey), cr_v3_dot(r, dir) + d->distance);
}

/* The projectile just touching: moved along the profile direction so that its
 * foremost point is at the impact point, whether the pose it came with was a
 * little short of the contact (start of step) or a little past it. */
static bool plane_touch(const cr_dent *d, cr_vec3 dir, const cr_dent_projectile *proj, cr_vec3 *shift) {
    if (!proj->is_plane) return false;
    /* a plane touches where it was hit: the plane point on the line
     * p + t dir is t ahead; a slight tilt between the plane and the
     * profile plane must not move the touch to the square's far corner */
    cr_vec3 m = cr_quat_rotate(proj->to_target.q, cr_v3(0, CR_R(1), 0));
    cr_real dm = cr_v3_dot(dir, m);
    if (cr_abs(dm) <= CR_R(1e-3)) return false;
    cr_real ahead = -cr_div(cr_v3_dot(cr_v3_sub(d->point, proj->to_target.p), m), dm);
    *shift = cr_v3_scale(dir, -ahead);
    return true;
}

static cr_vec3 touch_shift(const cr_dent *d, cr_vec3 dir, const cr_dent_projectile *proj) {
    cr_vec3 shift;
    if (plane_touch(d, dir, proj, &shift)) return shift;
    cr_real ahead = -CR_REAL_MAX;
    for (uint32_t t = 0; t < 3 * proj->triangle_count; ++t) {
        cr_vec3 v = cr_transform_point(proj->to_target, proj->vertices[proj->triangles[t]]);
        ahead = cr_max(ahead, cr_v3_dot(cr_v3_sub(v, d->point), dir));
    }
    return cr_v3_scale(dir, -ahead);
}

/* Corner k of triangle t in profile coordinates. */
static cr_vec3 profile_corner(const cr_dent *d, const cr_dent_projectile *proj, cr_vec3 dir, cr_vec3 px, cr_vec3 shift,
                              uint32_t t, int k) {
    cr_vec3 v = cr_transform_point(proj->to_target, proj->vertices[proj->triangles[3 * t + (uint32_t)k]]);
    return to_profile(d, dir, px, cr_v3_add(v, shift));
}

/* Sphere: a Gaussian matching the cap's curvature at its tip (d - r^2/2R). */
static cr_real sphere_sigma(const cr_dent_projectile *proj, cr_real distance) {
    return cr_sqrt(cr_mul(proj->radius, distance));
}

/* Half width of the profile plane that holds the whole dent, in metres. */
static cr_real half_width(const cr_dent_def *p, const cr_dent *d, const cr_dent_projectile *proj) {
    if (proj->is_sphere) return cr_mul(CR_R(3.5), sphere_sigma(proj, d->distance));
    cr_vec3 dir = profile_dir(d), px = profile_x(d), shift = touch_shift(d, dir, proj);
    cr_real r2 = 0;
    for (uint32_t t = 0; t < proj->triangle_count; ++t)
        for (int k = 0; k < 3; ++k) {
            cr_vec3 q = profile_corner(d, proj, dir, px, shift, t, k);
            if (q.z > 0) r2 = cr_max(r2, cr_mul(q.x, q.x) + cr_mul(q.y, q.y));
        }
    /* the footprint, one edge for triangles straddling it, and room for the
     * Gaussians and the heat kernel to taper to zero before the border */
    cr_real r = cr_sqrt(r2);
    return r + cr_mul(CR_R(0.25), r) + proj->edge_length + cr_mul(CR_R(3), p->blur);
}

/* Cells and their size for a half width w (m): the finer of the two meshes
 * (seed §3.2), within the def's bounds. */
static uint32_t plan_from_width(const cr_dent_def *p, const cr_dent_projectile *proj, cr_real w, cr_real target_edge_length,
                                cr_real *cell_out) {
    cr_real want = cr_half(proj->is_sphere ? target_edge_length : cr_min(target_edge_length, proj->edge_length));
    if (want <= 0) want = cr_div(w, CR_R(25));
    int32_t cells = cr_floor_int(cr_div(2 * w, want)) + 1;
    if (cells < (int32_t)p->min_cells) cells = (int32_t)p->min_cells;
    if (cells > (int32_t)p->max_cells) cells = (int32_t)p->max_cells;
    *cell_out = cr_div(2 * w, cr_from_int(cells - 1));
    return (uint32_t)cells;
}

uint32_t cri_dent_plan_cells(const cr_dent_def *p, const cr_dent_impact *imp, const cr_dent_projectile *proj,
                            cr_real target_edge_length, cr_real *cell_out) {
    cr_dent d;
    impact_frame(p, imp, &d);
    return plan_from_width(p, proj, half_width(p, &d, proj), target_edge_length, cell_out);
}

void cri_dent_plan_begin(cr_dent *d, const cr_dent_def *p, const cr_dent_impact *imp, const cr_dent_projectile *proj) {
    impact_frame(p, imp, d);
    d->ahead = -CR_REAL_MAX;
    d->reach2 = 0;
    if (plane_touch(d, profile_dir(d), proj, &d->shift)) d->ahead = CR_REAL_MAX;
}

void cri_dent_plan_reach(cr_dent *d, const cr_dent_projectile *proj, uint32_t first, uint32_t count) {
    cr_vec3 dir = profile_dir(d), px = profile_x(d);
    for (uint32_t t = first; t < first + count; ++t)
        for (int k = 0; k < 3; ++k) {
            cr_vec3 q = profile_corner(d, proj, dir, px, d->shift, t, k);
            if (q.z > 0) d->reach2 = cr_max(d->reach2, cr_mul(q.x, q.x) + cr_mul(q.y, q.y));
        }
}

uint32_t cri_dent_plan_finish(const cr_dent *d, const cr_dent_def *p, const cr_dent_projectile *proj,
                              cr_real target_edge_length, cr_real *cell_out) {
    cr_real r = cr_sqrt(d->reach2);
    cr_real w = r + cr_mul(CR_R(0.25), r) + proj->edge_length + cr_mul(CR_R(3), p->blur); /* as half_width */
    return plan_from_width(p, proj, w, target_edge_length, cell_out);
}

uint32_t cri_dent_scratch_bytes(uint32_t cells) {
    uint32_t grid = (cells * cells * (uint32_t)sizeof(cr_real) + 7u) & ~7u;
    return 2 * grid + cri_dent_broaden_scratch_bytes(cells);
}

/* Where the map's memory is: the heights, then the smoothing's and the broadening's scratch. */
static uint32_t grid_bytes(uint32_t cells) { return (cells * cells * (uint32_t)sizeof(cr_real) + 7u) & ~7u; }

bool cri_dent_build_begin(cr_dent *out, const cr_dent_def *p, const cr_dent_impact *imp, const cr_dent_projectile *proj,
                          uint32_t cells, cr_real cell, void *scratch) {
    impact_frame(p, imp, out);
    out->grid.n = cells;
    out->grid.cell = cell;
    out->grid.h = (cr_real *)scratch;
    out->zbuffer_work = 0;
    /* in the collision plane the profile is stretched by 1/cos(theta) along ex */
    cr_real half = cr_mul(cr_half(cr_from_int((int32_t)cells - 1)), cell);
    out->support = cr_div(half, out->cos_theta) + cr_mul(CR_R(2), out->distance);
    out->ahead = -CR_REAL_MAX;
    if (proj->is_sphere) {
        cri_dent_gaussian(&out->grid, out->distance, sphere_sigma(proj, out->distance));
        return true;
    }
    for (uint32_t i = 0; i < cells * cells; ++i) out->grid.h[i] = 0;
    cr_vec3 dir = profile_dir(out);
    if (plane_touch(out, dir, proj, &out->shift)) out->ahead = CR_REAL_MAX; /* known: no pass over the corners */
    return false;
}

void cri_dent_build_ahead(cr_dent *d, const cr_dent_projectile *proj, uint32_t first, uint32_t count) {
    cr_vec3 dir = profile_dir(d);
    for (uint32_t t = 3 * first; t < 3 * (first + count); ++t) {
        cr_vec3 v = cr_transform_point(proj->to_target, proj->vertices[proj->triangles[t]]);
        d->ahead = cr_max(d->ahead, cr_v3_dot(cr_v3_sub(v, d->point), dir));
    }
    if (first + count == proj->triangle_count) d->shift = cr_v3_scale(dir, -d->ahead), d->ahead = CR_REAL_MAX;
}

bool cri_dent_build_shift_known(const cr_dent *d) { return d->ahead == CR_REAL_MAX; }

void cri_dent_build_triangles(cr_dent *d, const cr_dent_projectile *proj, uint32_t first, uint32_t count) {
    static const uint32_t tri[3] = {0, 1, 2};
    cr_vec3 dir = profile_dir(d), px = profile_x(d);
    for (uint32_t t = first; t < first + count; ++t) {
        cr_vec3 q[3];
        for (int k = 0; k < 3; ++k) q[k] = profile_corner(d, proj, dir, px, d->shift, t, k);
        d->zbuffer_work += cri_dent_zbuffer(&d->grid, q, tri, 1);
    }
}

uint32_t cri_dent_build_finish_passes(const cr_dent_def *p) { return 1 + p->heat_iterations + p->modified_iterations; }

void cri_dent_build_finish_pass(cr_dent *d, const cr_dent_def *p, void *scratch, uint32_t k) {
    uint8_t *mem = (uint8_t *)scratch;
    uint32_t gb = grid_bytes(d->grid.n);
    cr_real *tmp = (cr_real *)(mem + gb);
    if (k == 0) {
        cri_dent_broaden(&d->grid, p->blur, mem + 2 * gb);
        if (p->heat_iterations == 0 && p->modified_iterations == 0) cri_dent_rescale(&d->grid, d->distance);
        return;
    }
    if (k <= p->heat_iterations) {
        cri_dent_smooth_pass(&d->grid, false, tmp);
        if (k == p->heat_iterations) cri_dent_rescale(&d->grid, d->distance);
        return;
    }
    if (k == 1 && p->heat_iterations == 0) cri_dent_rescale(&d->grid, d->distance);
    cri_dent_smooth_pass(&d->grid, true, tmp);
}

void cri_dent_build_finish(cr_dent *d, const cr_dent_def *p, void *scratch) {
    uint32_t gb = grid_bytes(d->grid.n);
    cri_dent_broaden(&d->grid, p->blur, (uint8_t *)scratch + 2 * gb);
    cri_dent_smooth(&d->grid, p->heat_iterations, p->modified_iterations, d->distance, (cr_real *)((uint8_t *)scratch + gb));
}

void cri_dent_build(cr_dent *out, const cr_dent_def *p, const cr_dent_impact *imp, const cr_dent_projectile *proj,
                   uint32_t cells, cr_real cell, void *scratch) {
    if (cri_dent_build_begin(out, p, imp, proj, cells, cell, scratch)) return;
    if (!cri_dent_build_shift_known(out)) cri_dent_build_ahead(out, proj, 0, proj->triangle_count);
    cri_dent_build_triangles(out, proj, 0, proj->triangle_count);
    cri_dent_build_finish(out, p, scratch);
}

/* The displacement at r = point - impact point, or false when it is zero. */
static bool displacement(const cr_dent *d, const cr_dent_def *p, cr_vec3 r, cr_real support2, cr_real inv_d,
                         cr_vec3 *out) {
    cr_real x = cr_v3_dot(r, d->ex), y = cr_v3_dot(r, d->ey);
    if (cr_mul(x, x) + cr_mul(y, y) > support2) return false;
    /* the map was taken looking along the velocity: plane x maps to x cos(theta) */
    cr_real h = cri_dent_sample(&d->grid, cr_mul(x, d->cos_theta), y);
    if (h <= 0) return false;
    cr_real a = cri_dent_attenuation(cr_v3_dot(r, d->normal), d->distance, p->steepness);
    if (a <= 0) return false;
    /* seed §3.3 shear: (x, 0) -> (x + 2 sin(theta) D / (1 + e^(-t x/d)), cos(theta) D);
     * with t = 0 this is the plain shear along the velocity */
    cr_real spread = cri_dent_logistic2(-cr_mul(p->width_t, cr_mul(x, inv_d)));
    cr_real shift = cr_mul(cr_mul(d->sin_theta, h), spread);
    cr_vec3 disp = cr_v3_add(cr_v3_scale(d->ex, shift), cr_v3_scale(d->normal, cr_mul(d->cos_theta, h)));
    *out = cr_v3_scale(disp, a);
    return true;
}

static cr_real inverse_distance(const cr_dent *d) { return d->distance > 0 ? cr_div(CR_R(1), d->distance) : 0; }

cr_vec3 cri_dent_displacement(const cr_dent *d, const cr_dent_def *p, cr_vec3 point) {
    cr_vec3 disp;
    if (!displacement(d, p, cr_v3_sub(point, d->point), cr_mul(d->support, d->support), inverse_distance(d), &disp))
        return cr_v3_zero();
    return disp;
}

uint32_t cri_dent_apply(const cr_dent *d, const cr_dent_def *p, cr_vec3 *vertices, uint32_t count, uint32_t *first,
                       uint32_t *last, cr_vertex_ranges *ranges) {
    uint32_t moved = 0;
    *first = count;
    *last = 0;
    cr_real support2 = cr_mul(d->support, d->support), inv_d = inverse_distance(d);
    for (uint32_t i = 0; i < count; ++i) {
        cr_vec3 disp;
        if (!displacement(d, p, cr_v3_sub(vertices[i], d->point), support2, inv_d, &disp)) continue;
        cr_vec3 p = cr_v3_add(vertices[i], disp);
        /* a displacement below the rounding leaves the vertex where it was:
         * counted (the budget's charges stay as they were) but not uploaded */
        if (ranges != NULL && (p.x != vertices[i].x || p.y != vertices[i].y || p.z != vertices[i].z)) cri_ranges_add(ranges, i, i);
        vertices[i] = p;
        if (i < *first) *first = i;
        *last = i;
        ++moved;
    }
    return moved;
}
