/* mass_spring.c — elastic mass-spring bodies (seed 004, Kharevych and Khan
 * 2002, "3D physics engine for elastic and deformable bodies").
 *
 * A soft body is its mesh: every vertex a particle, every edge a spring of
 * its rest length (seed: "the edges of the triangles possess the physical
 * qualities of springs"). Three things the seed leaves open are decided here
 * (docs/mass-spring.md has the measurements):
 *
 *   - Bending springs across every edge (between the two vertices opposite
 *     it) and a volume force for closed meshes (the seed's first extension):
 *     an edge network alone folds flat under its own weight.
 *   - Damping acts on the relative velocity along each spring (N s/m), so a
 *     body flying or spinning rigidly keeps its momentum; the seed's damping
 *     of each particle's own velocity is `absolute_damping`.
 *   - The seed divides each particle's force by its neighbour count n. Done
 *     per particle that breaks Newton's third law (two ends of a spring with
 *     different n get different forces: momentum drifts), so the option
 *     divides each spring's stiffness by the mean n of its two ends instead.
 *
 * The integrator is XPBD in substeps (h = max_dt / substeps, one projection
 * per spring per substep; docs/mass-spring.md has why and the measurements):
 * a spring of stiffness k is a distance constraint of compliance 1/k, which
 * is the seed's Hooke spring in the soft range and a fully projected edge
 * past it (within 14 % of its rest length the constraint is its Green
 * strain, the same to first order and without a square root:
 * project_spring). Explicit integration of the seed's forces (its own method) needs
 * h^2 * 2 sum k / m < 4: a 1 kg ball of 146 particles at 60 Hz and 8
 * substeps could not be stiffer than about 150 N/m a spring; XPBD keeps
 * energy from growing up to h^2 w sum k = 16 at a particle (measured), and
 * create refuses a def past that (stable_range). Linear momentum is kept to
 * rounding (every projection is along the gradient of a translation-invariant
 * constraint, weighted by inverse mass); angular momentum too once the spin
 * the projection loses is given back (integrate).
 *
 * Memory: the body records, particles and springs are in the persistent
 * arena at capacities from cr_world_def.spring; forces and the collision
 * lists are per-step scratch.
 */
#include "soft/mass_spring.h"
#include "base/check.h"
#include "base/hash.h"

#include <string.h>

#define CR_SOFT_MAX_STIFFNESS CR_R(1.0e7) /* N/m or Pa: keeps every force product inside Q32.32 */
#define CR_SOFT_MAX_SUBSTEPS 4096         /* substeps in one step at most (a longer dt simulates less soft time) */
#define CR_SOFT_MAX_SPEED CR_R(1000)      /* m/s, each velocity component of a particle at most */

/* A spring as the substeps use it, built once a step (spring_constants) in
 * the step's scratch: its ends, and its constants with the ends' inverse
 * masses folded in. */
typedef struct cri_spring_step {
    uint32_t a, b;     /* particle indices within the body */
    cr_real rest2;     /* m^2, rest length squared */
    cr_real inv_rest2; /* 1 / rest2 */
    cr_real fa, fb;    /* the projection's move of a (b) per unit of |d|^2 - L^2, along d */
    cr_real ca, cb;    /* the damping impulse's change of a's (b's) velocity per unit of relative speed */
} cri_spring_step;

static uint64_t al16(uint64_t x) { return (x + 15u) & ~(uint64_t)15u; }

cr_spring_budget cr_default_spring_budget(void) {
    cr_spring_budget b;
    memset(&b, 0, sizeof b);
    b.substeps = 8;
    b.max_dt = CR_R(1.0 / 60.0);
    b.work_per_step = 1u << 24;
    return b;
}

cr_soft_def cr_default_soft_def(void) {
    cr_soft_def d;
    memset(&d, 0, sizeof d);
    d.transform = cr_transform_identity();
    d.mass = CR_R(1);
    d.stiffness = CR_R(1000);
    d.bend_stiffness = CR_R(250);
    d.damping = CR_R(0.5);
    d.volume_stiffness = CR_R(20000);
    d.friction = CR_R(0.5);
    d.restitution = CR_R(0.3);
    d.rolling_friction = CR_R(0.01);
    d.surface_contacts = true;
    d.cookie = CR_DEF_COOKIE;
    return d;
}

cr_status cri_soft_check_budget(const cr_spring_budget *b) {
    if (b->body_capacity > (1u << 16) || b->particle_capacity > (1u << 22) || b->spring_capacity > (1u << 24))
        return CR_ERR_DEF_INVALID;
    if (b->body_capacity == 0) return CR_OK;
    if (b->substeps == 0 || b->substeps > 256) return CR_ERR_DEF_INVALID;
    if (!cr_real_is_finite(b->max_dt)) return CR_ERR_NOT_FINITE;
    if (b->max_dt <= 0 || b->max_dt > CR_R(1)) return CR_ERR_DEF_INVALID;
    return CR_OK;
}

uint64_t cri_soft_region_bytes(const cr_world_def *def) {
    const cr_spring_budget *b = &def->spring;
    if (b->body_capacity == 0) return al16(sizeof(cr_soft_region)) + 16u;
    return al16(sizeof(cr_soft_region)) + al16((uint64_t)b->body_capacity * sizeof(cr_soft_body)) +
           al16((uint64_t)b->particle_capacity * sizeof(cr_particle)) +
           al16((uint64_t)b->spring_capacity * sizeof(cr_spring)) + al16((uint64_t)b->particle_capacity * sizeof(cr_vec3)) + 64u;
}

uint64_t cri_soft_scratch_bytes(const cr_world_def *def) {
    const cr_spring_budget *b = &def->spring;
    if (b->body_capacity == 0) return 0;
    /* forces, per-particle owner, per-body flags + candidate lists, collisions */
    return al16(2ull * b->particle_capacity * sizeof(cr_vec3)) + al16((uint64_t)b->particle_capacity * 4u) +
           al16((uint64_t)b->spring_capacity * sizeof(cri_spring_step)) + al16(2ull * b->particle_capacity * sizeof(cr_vec3)) +
           al16((uint64_t)b->body_capacity * 4u) + al16((uint64_t)b->body_capacity * (CR_SOFT_MAX_CANDIDATES + 1u) * 4u) +
           al16(4ull * def->body_capacity * sizeof(cr_vec3)) + al16(4ull * def->body_capacity) + al16(def->body_capacity + 1ull) +
           al16(3ull * b->body_capacity * sizeof(cr_real)) +
           cri_soft_collide_scratch_bytes(def) + cri_soft_triangle_scratch_bytes(def) +
           al16((uint64_t)def->event_capacity * sizeof(cr_soft_hit)) + 128u;
}

bool cri_soft_layout(cr_world *w, uint8_t *block) {
    w->soft_region = cri_arena_push(&w->persistent, block, (uint32_t)sizeof(cr_soft_region), 16);
    if (w->soft_region == CR_NO_OFFSET) return false;
    const cr_spring_budget *b = &w->def.spring;
    if (b->body_capacity == 0) return true;
    cr_soft_region *r = cri_soft_region(w);
    r->bodies = cri_arena_push(&w->persistent, block, b->body_capacity * (uint32_t)sizeof(cr_soft_body), 16);
    r->particles = b->particle_capacity ? cri_arena_push(&w->persistent, block, b->particle_capacity * (uint32_t)sizeof(cr_particle), 16) : 0;
    r->springs = b->spring_capacity ? cri_arena_push(&w->persistent, block, b->spring_capacity * (uint32_t)sizeof(cr_spring), 16) : 0;
    r->anchors = b->particle_capacity ? cri_arena_push(&w->persistent, block, b->particle_capacity * (uint32_t)sizeof(cr_vec3), 16) : 0;
    return r->bodies != CR_NO_OFFSET && (b->particle_capacity == 0 || (r->particles != CR_NO_OFFSET && r->anchors != CR_NO_OFFSET)) &&
           (b->spring_capacity == 0 || r->springs != CR_NO_OFFSET);
}

cr_soft_body *cri_soft_body(cr_world *w, cr_soft_id id) {
    if (w == NULL || w->def.spring.body_capacity == 0 || id.index1 == 0) return NULL;
    cr_soft_region *r = cri_soft_region(w);
    if (id.index1 > r->body_high) return NULL;
    cr_soft_body *b = &cri_soft_bodies(w)[id.index1 - 1];
    return (b->alive && b->generation == id.generation) ? b : NULL;
}

const cr_soft_body *cri_soft_body_c(const cr_world *w, cr_soft_id id) { return cri_soft_body((cr_world *)w, id); }

/* ---- building a body from its asset ---------------------------------- */

static bool adjacent(const cr_asset *a, uint32_t u, uint32_t v) {
    uint32_t lo = a->adjacency_start[u], hi = a->adjacency_start[u + 1];
    while (lo < hi) { /* ascending lists: binary search */
        uint32_t mid = lo + (hi - lo) / 2;
        if (a->adjacency[mid] == v) return true;
        if (a->adjacency[mid] < v) lo = mid + 1;
        else hi = mid;
    }
    return false;
}

/* The two vertices opposite edge (u, v): their common neighbours. Returns how
 * many there are (a manifold edge has exactly 2; bending springs only then). */
static uint32_t opposite(const cr_asset *a, uint32_t u, uint32_t v, uint32_t out[2]) {
    uint32_t i = a->adjacency_start[u], ie = a->adjacency_start[u + 1];
    uint32_t j = a->adjacency_start[v], je = a->adjacency_start[v + 1], n = 0;
    while (i < ie && j < je) {
        uint32_t x = a->adjacency[i], y = a->adjacency[j];
        if (x == y) {
            if (n < 2) out[n] = x;
            ++n, ++i, ++j;
        } else if (x < y) ++i;
        else ++j;
    }
    return n;
}

/* Walks the asset's springs in their fixed order: structural (each edge u < v
 * in vertex order), then bending (across each edge whose two opposite
 * vertices are not already joined). With out == NULL it only counts. */
static uint32_t build_springs(const cr_asset *a, cr_spring *out, uint32_t *structural) {
    uint32_t n = 0;
    for (uint32_t u = 0; u < a->vertex_count; ++u)
        for (uint32_t e = a->adjacency_start[u]; e < a->adjacency_start[u + 1]; ++e) {
            uint32_t v = a->adjacency[e];
            if (v <= u) continue;
            if (out != NULL) out[n] = (cr_spring){u, v, 0, CR_R(1), 0};
            ++n;
        }
    *structural = n;
    for (uint32_t u = 0; u < a->vertex_count; ++u)
        for (uint32_t e = a->adjacency_start[u]; e < a->adjacency_start[u + 1]; ++e) {
            uint32_t v = a->adjacency[e], o[2];
            if (v <= u || opposite(a, u, v, o) != 2 || adjacent(a, o[0], o[1])) continue;
            if (out != NULL) out[n] = (cr_spring){o[0] < o[1] ? o[0] : o[1], o[0] < o[1] ? o[1] : o[0], 0, 0, 0};
            ++n;
        }
    return n;
}

/* Volume enclosed by the triangles (divergence theorem) about `o`, m^3. */
static cr_real volume_of(const cr_asset *a, const cr_particle *p, cr_vec3 o) {
    cr_real six_v = 0;
    for (uint32_t t = 0; t < a->triangle_count; ++t) {
        const uint32_t *tri = &a->triangles[3 * t];
        cr_vec3 x0 = cr_v3_sub(p[tri[0]].x, o), x1 = cr_v3_sub(p[tri[1]].x, o), x2 = cr_v3_sub(p[tri[2]].x, o);
        six_v += cr_v3_dot(x0, cr_v3_cross(x1, x2));
    }
    return cr_div(six_v, CR_R(6));
}

#define CR_SOFT_FAIL(s, f) return cri_refuse(w, (s), (f))

static cr_status check_soft_def(cr_world *w, const cr_soft_def *d) {
    if (d->cookie != CR_DEF_COOKIE) return CR_ERR_DEF_NOT_DEFAULTED;
    const cr_asset *a = (d->asset & CR_SURFACE_SLOT_FLAG) ? NULL : cr_world_asset(w, d->asset);
    if (a == NULL || a->vertex_count < 4 || a->triangle_count < 4 || a->adjacency_start == NULL)
        CR_SOFT_FAIL(CR_ERR_DEF_INVALID, CR_FIELD_SOFT_ASSET);
    CR_TRY(cri_check_position(w, d->transform.p, CR_FIELD_SOFT_TRANSFORM));
    cr_status q = cr_quat_status(d->transform.q);
    if (q != CR_OK) CR_SOFT_FAIL(q, CR_FIELD_SOFT_TRANSFORM);
    CR_TRY(cr_check_vec3(w, d->linear_velocity, CR_FIELD_SOFT_VELOCITY));
    CR_TRY(cr_check_vec3(w, d->angular_velocity, CR_FIELD_SOFT_VELOCITY));
    const cr_real reals[] = {d->mass, d->stiffness, d->bend_stiffness, d->damping, d->absolute_damping,
                             d->volume_stiffness, d->particle_radius, d->friction, d->restitution};
    const cr_field fields[] = {CR_FIELD_SOFT_MASS, CR_FIELD_SOFT_STIFFNESS, CR_FIELD_SOFT_STIFFNESS,
                               CR_FIELD_SOFT_DAMPING, CR_FIELD_SOFT_DAMPING, CR_FIELD_SOFT_STIFFNESS,
                               CR_FIELD_SOFT_RADIUS, CR_FIELD_SOFT_CONTACT, CR_FIELD_SOFT_CONTACT};
    for (uint32_t i = 0; i < sizeof reals / sizeof reals[0]; ++i) {
        CR_TRY(cr_check_real(w, reals[i], fields[i]));
        if (reals[i] < 0) CR_SOFT_FAIL(CR_ERR_DEF_INVALID, fields[i]);
    }
    if (d->mass <= CR_R(1e-4) || d->mass > CR_R(1e6)) CR_SOFT_FAIL(CR_ERR_DEF_INVALID, CR_FIELD_SOFT_MASS);
    if (d->stiffness <= 0 || d->stiffness > CR_SOFT_MAX_STIFFNESS || d->bend_stiffness > CR_SOFT_MAX_STIFFNESS ||
        d->volume_stiffness > CR_SOFT_MAX_STIFFNESS)
        CR_SOFT_FAIL(CR_ERR_DEF_INVALID, CR_FIELD_SOFT_STIFFNESS);
    if (d->damping > CR_SOFT_MAX_STIFFNESS || d->absolute_damping > CR_SOFT_MAX_STIFFNESS)
        CR_SOFT_FAIL(CR_ERR_DEF_INVALID, CR_FIELD_SOFT_DAMPING);
    if (d->particle_radius > CR_R(100)) CR_SOFT_FAIL(CR_ERR_DEF_INVALID, CR_FIELD_SOFT_RADIUS);
    if (d->friction > CR_R(100) || d->restitution > CR_R(1)) CR_SOFT_FAIL(CR_ERR_DEF_INVALID, CR_FIELD_SOFT_CONTACT);
    /* a tolerance is relative: 0 (none) up to half the volume; an open mesh
     * has no volume to hold */
    CR_TRY(cr_check_real(w, d->rolling_friction, CR_FIELD_SOFT_ROLLING_FRICTION));
    if (d->rolling_friction < 0 || d->rolling_friction > CR_R(10)) CR_SOFT_FAIL(CR_ERR_DEF_INVALID, CR_FIELD_SOFT_ROLLING_FRICTION);
    CR_TRY(cr_check_real(w, d->volume_tolerance, CR_FIELD_SOFT_VOLUME_TOLERANCE));
    if (d->volume_tolerance < 0 || d->volume_tolerance > CR_R(0.5) || (d->volume_tolerance > 0 && !a->topology.closed))
        CR_SOFT_FAIL(CR_ERR_DEF_INVALID, CR_FIELD_SOFT_VOLUME_TOLERANCE);
    return CR_OK;
}

/* Particle masses: the seed's equal masses (default), or each particle a third of the
 * area of its triangles (the seed: "a more sophisticated algorithm is needed
 * to compute mass of each vertex" when the mesh is not uniform). A particle
 * that no triangle names gets a hundredth of the equal share, so every
 * particle has an inverse mass; then all are scaled to the body's mass. */
static void set_masses(const cr_asset *a, const cr_soft_def *d, cr_particle *p) {
    uint32_t n = a->vertex_count;
    cr_real equal = cr_div(d->mass, cr_from_int((int32_t)n)), total = 0;
    for (uint32_t i = 0; i < n; ++i) p[i].mass = d->area_masses ? 0 : equal;
    if (d->area_masses) {
        for (uint32_t t = 0; t < a->triangle_count; ++t) {
            const uint32_t *tri = &a->triangles[3 * t];
            cr_vec3 e1 = cr_v3_sub(a->positions[tri[1]], a->positions[tri[0]]);
            cr_vec3 e2 = cr_v3_sub(a->positions[tri[2]], a->positions[tri[0]]);
            cr_real third = cr_div(cr_v3_len(cr_v3_cross(e1, e2)), CR_R(6));
            for (int k = 0; k < 3; ++k) p[tri[k]].mass += third;
        }
        for (uint32_t i = 0; i < n; ++i) total += p[i].mass;
        cr_real floor_m = cr_div(equal, CR_R(100));
        for (uint32_t i = 0; i < n; ++i) {
            p[i].mass = total > 0 ? cr_div(cr_mul(p[i].mass, d->mass), total) : equal;
            if (p[i].mass < floor_m) p[i].mass = floor_m;
        }
    }
    for (uint32_t i = 0; i < n; ++i) p[i].inv_mass = cr_div(CR_R(1), p[i].mass);
}

/* The integrator's stable range, measured (docs/mass-spring.md): one
 * Gauss-Seidel XPBD projection a substep keeps a deformed body's energy from
 * growing while, at every particle, h^2 w_i sum_j k_ij (its springs'
 * stiffness over its mass, in substeps squared) stays below about 16; a UV
 * sphere whose poles reached 25 gained 40 % of its energy in a step, at 14
 * nothing. So a def with a particle past CR_SOFT_MAX_LOAD at max_dt /
 * substeps is refused, naming the stiffness; more substeps, fewer springs at
 * a vertex or more mass admit it. The volume's compliance V0 / (kv h^2) must
 * likewise be at least a quarter of sum w |dV/dx|^2. */
#define CR_SOFT_MAX_LOAD CR_R(16)
#define CR_SOFT_MIN_COMPLIANCE CR_R(0.25)
static cr_status stable_range(cr_world *w, const cr_soft_body *sb, const cr_asset *a, cr_particle *p,
                              const cr_spring *s) {
    cr_real h = cr_div(w->def.spring.max_dt, cr_from_int((int32_t)w->def.spring.substeps));
    cr_real h2 = cr_mul(h, h), inv_h2 = cr_div(CR_R(1), h2);
    /* the sums live in the new particles' velocities until they are set */
    for (uint32_t i = 0; i < sb->particle_count; ++i) p[i].v.x = 0;
    for (uint32_t j = 0; j < sb->spring_count; ++j) p[s[j].a].v.x += s[j].k, p[s[j].b].v.x += s[j].k;
    for (uint32_t i = 0; i < sb->particle_count; ++i) {
        cr_real load = cr_mul(cr_mul(h2, p[i].inv_mass), p[i].v.x);
        if (!cr_real_is_finite(load) || load > CR_SOFT_MAX_LOAD) return cri_refuse(w, CR_ERR_DEF_INVALID, CR_FIELD_SOFT_STIFFNESS);
    }
    if (sb->volume_stiffness > 0) {
        /* sum of w |dV/dx|^2 at rest, against the volume's compliance V0 / (kv h^2) */
        cr_real wg = 0;
        cr_vec3 o = p[0].x;
        for (uint32_t t = 0; t < a->triangle_count; ++t) {
            const uint32_t *tri = &a->triangles[3 * t];
            /* a corner's gradient is a third of its triangles' area vectors
             * (2A n / 6); one triangle's share of sum w |g|^2 */
            cr_vec3 x0 = cr_v3_sub(p[tri[0]].x, o), x1 = cr_v3_sub(p[tri[1]].x, o), x2 = cr_v3_sub(p[tri[2]].x, o);
            cr_vec3 area2 = cr_v3_cross(cr_v3_sub(x1, x0), cr_v3_sub(x2, x0));
            cr_real share = cr_mul(cr_v3_len_sq(area2), CR_R(1.0 / 36.0));
            for (int k = 0; k < 3; ++k) wg += cr_mul(share, p[tri[k]].inv_mass);
        }
        cr_real alpha = cr_mul(cr_div(sb->rest_volume, sb->volume_stiffness), inv_h2);
        if (alpha < cr_mul(CR_SOFT_MIN_COMPLIANCE, wg)) return cri_refuse(w, CR_ERR_DEF_INVALID, CR_FIELD_SOFT_STIFFNESS);
    }
    return CR_OK;
}

cr_status cr_soft_create(cr_world *w, const cr_soft_def *d, cr_soft_id *out) {
    if (out != NULL) out->index1 = out->generation = 0;
    if (w == NULL || d == NULL || out == NULL) return CR_ERR_NULL_ARGUMENT;
    if (w->def.spring.body_capacity == 0) return cri_refuse(w, CR_ERR_CAPACITY, CR_FIELD_WORLD_SPRING);
    CR_TRY(check_soft_def(w, d));
    const cr_asset *a = cr_world_asset(w, d->asset);
    cr_soft_region *r = cri_soft_region(w);
    /* a cooked soft asset's springs when it has them (soft_asset.c), else built from its adjacency */
    uint32_t structural, n_springs = a->soft_spring_count ? cri_soft_asset_springs(a, NULL, &structural)
                                                          : build_springs(a, NULL, &structural);
    if (r->particle_count + a->vertex_count > w->def.spring.particle_capacity ||
        r->spring_count + n_springs > w->def.spring.spring_capacity)
        return cri_refuse(w, CR_ERR_CAPACITY, CR_FIELD_WORLD_SPRING);
    if (r->free_body == 0 && r->body_high >= w->def.spring.body_capacity)
        return cri_refuse(w, CR_ERR_CAPACITY, CR_FIELD_WORLD_SPRING);
    /* fill the new body's particles and springs past the used ones; they
     * count only once the body is accepted */
    cr_particle *p = cri_soft_particles(w) + r->particle_count;
    cr_spring *s = cri_soft_springs(w) + r->spring_count;
    cr_soft_body body;
    memset(&body, 0, sizeof body);
    body.asset = d->asset;
    body.particle_count = a->vertex_count;
    body.spring_count = a->soft_spring_count ? cri_soft_asset_springs(a, s, &body.structural_count)
                                             : build_springs(a, s, &body.structural_count);
    body.closed = a->topology.closed;
    body.no_sleep = d->no_sleep;
    body.surface = d->surface_contacts;
    body.mass = d->mass;
    body.absolute_damping = d->absolute_damping;
    body.volume_stiffness = a->topology.closed ? d->volume_stiffness : 0;
    body.friction = d->friction;
    body.restitution = d->restitution;
    body.rolling_friction = d->rolling_friction;
    body.user_data = d->user_data;
    for (uint32_t i = 0; i < a->vertex_count; ++i) p[i].x = cr_transform_point(d->transform, a->positions[i]);
    set_masses(a, d, p);
    if (a->soft_mass_weights != NULL) cri_soft_asset_masses(a, d->mass, p);
    cr_real edge_sum = 0;
    for (uint32_t j = 0; j < body.spring_count; ++j) {
        s[j].rest = cr_v3_len(cr_v3_sub(p[s[j].b].x, p[s[j].a].x));
        bool bend = j >= body.structural_count;
        cr_real k = bend ? d->bend_stiffness : d->stiffness;
        if (d->normalise_by_neighbours) {
            /* the seed's force / n, per spring by the mean n of its ends (Newton's third law holds) */
            uint32_t na = a->adjacency_start[s[j].a + 1] - a->adjacency_start[s[j].a];
            uint32_t nb = a->adjacency_start[s[j].b + 1] - a->adjacency_start[s[j].b];
            k = cr_div(k + k, cr_from_int((int32_t)(na + nb)));
        }
        s[j].k = k;
        s[j].c = bend ? 0 : d->damping;
        if (!bend) edge_sum += s[j].rest;
    }
    cr_real mean_edge = body.structural_count ? cr_div(edge_sum, cr_from_int((int32_t)body.structural_count)) : CR_R(0.1);
    body.radius = d->particle_radius > 0 ? d->particle_radius : cr_mul(mean_edge, CR_R(0.35));
    /* against soft bodies a particle stands for its triangles: its radius
     * covers the widest triangle's circumradius, so no particle of another
     * body fits through the middle of a triangle (slivers capped at the mean edge) */
    cr_real widest = 0;
    for (uint32_t t = 0; t < a->triangle_count; ++t) {
        const uint32_t *tri = &a->triangles[3 * t];
        cr_vec3 e1 = cr_v3_sub(p[tri[1]].x, p[tri[0]].x), e2 = cr_v3_sub(p[tri[2]].x, p[tri[0]].x);
        cr_real twice_area = cr_v3_len(cr_v3_cross(e1, e2));
        cr_real abc = cr_mul(cr_mul(cr_v3_len(e1), cr_v3_len(e2)), cr_v3_len(cr_v3_sub(e2, e1)));
        cr_real circum = twice_area > 0 ? cr_div(abc, twice_area + twice_area) : mean_edge;
        widest = cr_max(widest, cr_min(circum, mean_edge));
    }
    body.soft_radius = cr_max(body.radius, widest);
    body.skin = cr_min(body.radius, cr_mul(mean_edge, CR_SOFT_SKIN));
    body.rim = body.soft_radius;
    body.rest_volume = volume_of(a, p, p[0].x);
    bool volume = body.volume_stiffness > 0 && body.rest_volume > CR_R(1e-9);
    if (!volume) body.volume_stiffness = 0;
    if (d->volume_tolerance > 0 && body.rest_volume <= CR_R(1e-9)) /* a closed mesh enclosing nothing (inside out, flat) */
        return cri_refuse(w, CR_ERR_DEF_INVALID, CR_FIELD_SOFT_VOLUME_TOLERANCE);
    body.volume_tolerance = d->volume_tolerance;
    CR_TRY(stable_range(w, &body, a, p, s));
    for (uint32_t i = 0; i < a->vertex_count; ++i)
        p[i].v = cr_v3_add(d->linear_velocity, cr_v3_cross(d->angular_velocity, cr_v3_sub(p[i].x, d->transform.p)));

    uint32_t slot = cr_slot_take(cri_soft_bodies(w), sizeof(cr_soft_body), &r->free_body, &r->body_high,
                                 w->def.spring.body_capacity);
    cr_soft_body *sb = &cri_soft_bodies(w)[slot];
    uint32_t gen = sb->generation;
    body.generation = gen;
    body.alive = 1;
    body.first_particle = r->particle_count;
    body.first_spring = r->spring_count;
    body.bounds_min = body.bounds_max = p[0].x;
    for (uint32_t i = 1; i < body.particle_count; ++i) {
        body.bounds_min = cr_v3_min(body.bounds_min, p[i].x);
        body.bounds_max = cr_v3_max(body.bounds_max, p[i].x);
    }
    *sb = body;
    cr_vec3 *an = cri_soft_anchors(w) + r->particle_count;
    for (uint32_t i = 0; i < body.particle_count; ++i) an[i] = p[i].x;
    r->particle_count += body.particle_count;
    r->spring_count += body.spring_count;
    r->body_count++;
    out->index1 = slot + 1;
    out->generation = gen;
    return CR_OK;
}

cr_status cr_soft_destroy(cr_world *w, cr_soft_id id) {
    cr_soft_body *sb = cri_soft_body(w, id);
    if (sb == NULL) return w == NULL ? CR_ERR_NULL_ARGUMENT : CR_ERR_STALE_HANDLE;
    cr_soft_region *r = cri_soft_region(w);
    uint32_t p0 = sb->first_particle, np = sb->particle_count, s0 = sb->first_spring, ns = sb->spring_count;
    cr_particle *p = cri_soft_particles(w);
    cr_spring *s = cri_soft_springs(w);
    /* close the gap: later bodies' particles and springs move down, in place */
    /* copied forward one record at a time: particles and anchors are two arrays moved by one index */
    cr_vec3 *an = cri_soft_anchors(w);
    for (uint32_t i = p0; i + np < r->particle_count; ++i) p[i] = p[i + np], an[i] = an[i + np];
    for (uint32_t i = s0; i + ns < r->spring_count; ++i) s[i] = s[i + ns];
    memset(&p[r->particle_count - np], 0, (size_t)np * sizeof *p);
    memset(&an[r->particle_count - np], 0, (size_t)np * sizeof *an);
    memset(&s[r->spring_count - ns], 0, (size_t)ns * sizeof *s);
    r->particle_count -= np;
    r->spring_count -= ns;
    cr_soft_body *bodies = cri_soft_bodies(w);
    for (uint32_t i = 0; i < r->body_high; ++i) {
        if (!bodies[i].alive || &bodies[i] == sb) continue;
        if (bodies[i].first_particle > p0) bodies[i].first_particle -= np;
        if (bodies[i].first_spring > s0) bodies[i].first_spring -= ns;
    }
    uint32_t gen = sb->generation, slot = id.index1 - 1;
    memset(sb, 0, sizeof *sb);
    sb->generation = gen;
    cr_slot_release(bodies, sizeof(cr_soft_body), &r->free_body, slot);
    r->body_count--;
    return CR_OK;
}

/* ---- forces and the integrator ---------------------------------------- */

/* Spring forces along each spring from the change of its length (seed 004's
 * spring equation) plus damping of the relative velocity along it; both ends
 * get equal and opposite forces. Returns the elastic energy if asked. */
static void spring_forces(const cr_spring *s, uint32_t ns, const cr_particle *p, cr_vec3 *f, cr_real *energy) {
    cr_real e = 0;
    for (uint32_t j = 0; j < ns; ++j) {
        cr_vec3 d = cr_v3_sub(p[s[j].b].x, p[s[j].a].x);
        cr_real len;
        cr_vec3 u = cr_v3_normalize_len(d, &len);
        if (len <= CR_REAL_EPS) continue; /* no direction to pull along */
        cr_real stretch = len - s[j].rest;
        cr_real along = cr_v3_dot(cr_v3_sub(p[s[j].b].v, p[s[j].a].v), u);
        cr_vec3 F = cr_v3_scale(u, cr_mul(s[j].k, stretch) + cr_mul(s[j].c, along));
        f[s[j].a] = cr_v3_add(f[s[j].a], F);
        f[s[j].b] = cr_v3_sub(f[s[j].b], F);
        if (energy != NULL) e += cr_half(cr_mul(s[j].k, cr_mul(stretch, stretch)));
    }
    if (energy != NULL) *energy += e;
}

/* The volume force of a closed body: the gradient of the potential
 * (kv / 2 V0) (V - V0)^2, i.e. a pressure p = kv (V0 - V) / V0 on every
 * triangle, F_i = p dV/dx_i. It sums to zero and has no torque (V does not
 * change under rigid motion), so momentum is kept. */
static void volume_forces(const cr_soft_body *sb, const cr_asset *a, const cr_particle *p, cr_vec3 *f, cr_real *energy) {
    cr_vec3 o = p[0].x;
    cr_real v = volume_of(a, p, o);
    cr_real rel = cr_div(sb->rest_volume - v, sb->rest_volume);
    cr_real pressure = cr_mul(sb->volume_stiffness, rel);
    if (energy != NULL) *energy += cr_half(cr_mul(cr_mul(sb->volume_stiffness, rel), sb->rest_volume - v));
    cr_real k = cr_div(pressure, CR_R(6));
    for (uint32_t t = 0; t < a->triangle_count; ++t) {
        const uint32_t *tri = &a->triangles[3 * t];
        cr_vec3 x0 = cr_v3_sub(p[tri[0]].x, o), x1 = cr_v3_sub(p[tri[1]].x, o), x2 = cr_v3_sub(p[tri[2]].x, o);
        f[tri[0]] = cr_v3_mad(f[tri[0]], k, cr_v3_cross(x1, x2));
        f[tri[1]] = cr_v3_mad(f[tri[1]], k, cr_v3_cross(x2, x0));
        f[tri[2]] = cr_v3_mad(f[tri[2]], k, cr_v3_cross(x0, x1));
    }
}

static void internal_forces(cr_world *w, const cr_soft_body *sb, cr_vec3 *f, cr_real *energy) {
    cr_particle *p = cri_soft_particles(w) + sb->first_particle;
    for (uint32_t i = 0; i < sb->particle_count; ++i) f[i] = cr_v3_zero();
    spring_forces(cri_soft_springs(w) + sb->first_spring, sb->spring_count, p, f, energy);
    if (sb->volume_stiffness > 0) volume_forces(sb, cr_world_asset(w, sb->asset), p, f, energy);
}

/* One XPBD substep of one body (Macklin, Mueller, Chentanez 2016; "small
 * steps", 2019): predict x* = x + h v + h^2 g, project each spring and the
 * volume once, in their fixed order, with compliance alpha = 1/k (the
 * seed's spring of stiffness k, so a soft spring sags by mg/k), then
 * v = (x - x_prev) / h. Every projection moves its particles along the
 * gradient of a translation- and rotation-invariant constraint, weighted by
 * inverse mass, so linear and angular momentum are kept to rounding; it is
 * stable at any stiffness (a stiff spring is at most fully projected). */
/* Centre of mass and angular momentum about it (for the spin correction). */
static cr_vec3 centre_of(const cr_particle *p, uint32_t n, cr_real inv_mass_total) {
    cr_vec3 o = p[0].x, c = cr_v3_zero();
    for (uint32_t i = 0; i < n; ++i) c = cr_v3_mad(c, p[i].mass, cr_v3_sub(p[i].x, o));
    return cr_v3_add(o, cr_v3_scale(c, inv_mass_total));
}

/* The spin about c and the inertia tensor about c in one pass (six sums of
 * m r_a r_b rather than a 3x3 matrix built per particle). */
static cr_vec3 spin_inertia_of(const cr_particle *p, uint32_t n, cr_vec3 c, cr_mat3 *inertia) {
    cr_vec3 l = cr_v3_zero();
    cr_real xx = 0, yy = 0, zz = 0, xy = 0, xz = 0, yz = 0;
    for (uint32_t i = 0; i < n; ++i) {
        cr_vec3 r = cr_v3_sub(p[i].x, c), mr = cr_v3_scale(r, p[i].mass);
        l = cr_v3_add(l, cr_v3_cross(mr, p[i].v));
        xx += cr_mul(mr.x, r.x), yy += cr_mul(mr.y, r.y), zz += cr_mul(mr.z, r.z);
        xy += cr_mul(mr.x, r.y), xz += cr_mul(mr.x, r.z), yz += cr_mul(mr.y, r.z);
    }
    inertia->cx = cr_v3(yy + zz, -xy, -xz);
    inertia->cy = cr_v3(-xy, xx + zz, -yz);
    inertia->cz = cr_v3(-xz, -yz, xx + yy);
    return l;
}

static cr_vec3 spin_of(const cr_particle *p, uint32_t n, cr_vec3 c) {
    cr_vec3 l = cr_v3_zero();
    for (uint32_t i = 0; i < n; ++i) l = cr_v3_add(l, cr_v3_scale(cr_v3_cross(cr_v3_sub(p[i].x, c), p[i].v), p[i].mass));
    return l;
}

/* Each velocity component within ±CR_SOFT_MAX_SPEED: squares and cross
 * products of velocities and positions then stay inside Q32.32 (a 5000 N s
 * impulse on a 12 g particle overflowed them), and no game shape moves faster. */
static cr_vec3 clamp_speed(cr_vec3 v) {
    const cr_real m = CR_SOFT_MAX_SPEED;
    return cr_v3(cr_clamp(v.x, -m, m), cr_clamp(v.y, -m, m), cr_clamp(v.z, -m, m));
}

/* The enclosed volume about the first particle (as volume_of) and its
 * gradient dV/dx_i (a third of each corner's triangles' area vectors: the
 * cross product of the other two corners over 6) into g, with
 * sum_i w_i |g_i|^2 into *wg. */
static cr_real volume_gradient(const cr_asset *a, const cr_particle *p, uint32_t n, cr_vec3 *g, cr_real *wg) {
    cr_vec3 o = p[0].x;
    cr_real six_v = 0;
    for (uint32_t i = 0; i < n; ++i) g[i] = cr_v3_zero();
    for (uint32_t t = 0; t < a->triangle_count; ++t) {
        const uint32_t *tri = &a->triangles[3 * t];
        cr_vec3 x0 = cr_v3_sub(p[tri[0]].x, o), x1 = cr_v3_sub(p[tri[1]].x, o), x2 = cr_v3_sub(p[tri[2]].x, o);
        cr_vec3 c12 = cr_v3_cross(x1, x2);
        six_v += cr_v3_dot(x0, c12);
        g[tri[0]] = cr_v3_add(g[tri[0]], c12);
        g[tri[1]] = cr_v3_add(g[tri[1]], cr_v3_cross(x2, x0));
        g[tri[2]] = cr_v3_add(g[tri[2]], cr_v3_cross(x0, x1));
    }
    cr_real s = 0;
    for (uint32_t i = 0; i < n; ++i) {
        g[i] = cr_v3_scale(g[i], CR_R(1.0 / 6.0));
        s += cr_mul(p[i].inv_mass, cr_v3_len_sq(g[i]));
    }
    *wg = s;
    return cr_div(six_v, CR_R(6));
}

/* Move every particle by w_i g_i dl (a volume projection; the gradient sums
 * to zero and has no torque, so momentum is kept), the move kept in corr. */
static void volume_move(cr_particle *p, cr_vec3 *corr, const cr_vec3 *g, uint32_t n, cr_real dl) {
    for (uint32_t i = 0; i < n; ++i) {
        cr_vec3 dx = cr_v3_scale(g[i], cr_mul(dl, p[i].inv_mass));
        p[i].x = cr_v3_add(p[i].x, dx), corr[i] = cr_v3_add(corr[i], dx);
    }
}

/* The def's volume tolerance as the last thing of a substep: after the
 * contacts (which push particles out by position only) squeezed a loaded
 * body past V0 (1 ± tol), its particles are moved back to the bound by
 * position only too, along the volume gradient (no momentum, no torque).
 * Returns whether it moved anything. `g`: scratch for the gradient. */
static bool hold_volume(cr_world *w, cr_soft_body *sb, cr_vec3 *g) {
    cr_particle *p = cri_soft_particles(w) + sb->first_particle;
    const cr_asset *a = cr_world_asset(w, sb->asset);
    uint32_t n = sb->particle_count;
    cr_real band = cr_mul(sb->rest_volume, sb->volume_tolerance);
    cr_real lo = sb->rest_volume - band, hi = sb->rest_volume + band;
    bool moved = false;
    cr_real wg = 0, v = 0;
    for (int it = 0; it < 3; ++it) {
        v = volume_gradient(a, p, n, g, &wg);
        if (wg <= 0 || (v >= lo && v <= hi)) break;
        /* aim a hair inside, so the linearisation's shortfall stays inside */
        cr_real inner = cr_mul(band, CR_R(0.02));
        cr_real dl = cr_div((v < lo ? lo + inner : hi - inner) - v, wg);
        for (uint32_t i = 0; i < n; ++i) p[i].x = cr_v3_add(p[i].x, cr_v3_scale(g[i], cr_mul(dl, p[i].inv_mass)));
        moved = true;
    }
    if (!moved || wg <= 0) return moved;
    /* At the bound the volume may not keep moving out of the band: the rate
     * dV/dt = sum g . v going further out is removed along the gradient,
     * inelastically (no energy added; the particles pressed by a load then
     * move with it, and the contacts hand its weight on to them). */
    v = volume_gradient(a, p, n, g, &wg);
    cr_real rate = 0;
    for (uint32_t i = 0; i < n; ++i) rate += cr_v3_dot(g[i], p[i].v);
    bool low = v < sb->rest_volume;
    if (wg > 0 && ((low && rate < 0) || (!low && rate > 0))) {
        cr_real dl = cr_div(-rate, wg);
        for (uint32_t i = 0; i < n; ++i) p[i].v = cr_v3_add(p[i].v, cr_v3_scale(g[i], cr_mul(dl, p[i].inv_mass)));
    }
    return moved;
}

/* What a spring's projection and damping need that stays the same for every
 * substep of a step (h and the masses do not change within it), once a step
 * rather than once a substep, with the particles' inverse masses folded in:
 * the projection's w_a / (2 L^2 (w_a + w_b + 1 / (k h^2))) and w_b's, and
 * the damping impulse's w_a min(h c, 1 / (w_a + w_b)) and w_b's. A spring
 * with k (or c) at 0 gets zeros: it moves nothing, without a test in the
 * substeps' loops. */
static void spring_constants(cr_world *w, const cr_soft_body *sb, cr_real h, cri_spring_step *out) {
    const cr_particle *p = cri_soft_particles(w) + sb->first_particle;
    const cr_spring *s = cri_soft_springs(w) + sb->first_spring;
    cr_real inv_h = cr_div(CR_R(1), h), inv_h2 = cr_mul(inv_h, inv_h);
    for (uint32_t j = 0; j < sb->spring_count; ++j) {
        cr_real wa = p[s[j].a].inv_mass, wb = p[s[j].b].inv_mass, wsum = wa + wb;
        cri_spring_step *o = &out[j];
        o->a = s[j].a, o->b = s[j].b;
        o->rest2 = cr_mul(s[j].rest, s[j].rest);
        o->inv_rest2 = o->rest2 > 0 ? cr_div(CR_R(1), o->rest2) : 0;
        o->fa = o->fb = o->ca = o->cb = 0;
        if (s[j].k > 0 && o->rest2 > 0) {
            cr_real sk = cr_div(CR_R(1), cr_mul(CR_R(2), cr_mul(o->rest2, wsum + cr_mul(cr_div(CR_R(1), s[j].k), inv_h2))));
            o->fa = cr_mul(sk, wa), o->fb = cr_mul(sk, wb);
        }
        if (s[j].c > 0) {
            cr_real kc = cr_min(cr_mul(h, s[j].c), cr_div(CR_R(1), wsum));
            o->ca = cr_mul(cr_mul(kc, wa), o->inv_rest2), o->cb = cr_mul(cr_mul(kc, wb), o->inv_rest2);
        }
    }
}

/* The soft contacts' impulses move a rigid body within the step too. The
 * rigid solver moved it before the soft substeps, with the velocity it had
 * then (v0, w0, kept in rv); the impulses change its velocity substep by
 * substep while its pose stood still, so the particles under a resting box
 * met a box that did not follow the push they had given it: it carried its
 * weight as 0.1-0.3 m/s of velocity the next step spent, bobbed and rocked
 * (a 1 kg box on a soft cube never slept and crept 2-6 cm/s). Each substep
 * every awake dynamic body is moved by what the soft impulses added so far,
 * (v - v0) h and (w - w0) h (summed in `moved`): the contact's response is
 * in the same step's positions, as a particle's is.
 * At the end of the step (rigid_follow_rest) a body the soft bodies only
 * carried (their impulses this step within twice its weight's, g dt) gets
 * the rest of (v - v0) dt: its step is then x += v_end dt, the rigid
 * solver's own order (impulses, then positions), so at rest its velocity
 * is zero and the rigid sleep test (run after the soft step, world.c) sees
 * it: the box and the cube under it sleep. Partway (the substeps' share
 * alone) it rested with the weight as 0.055 m/s in its velocity and never
 * slept. Not for a body hit: a 0.05 kg box struck by a soft ball then
 * jumped a whole step ahead at once and left at the ball's speed, as if
 * the hit were inelastic (3.0 against 2.85 m/s; 3.7 with the substeps'
 * share alone). */
static void rigid_follow(cr_world *w, const uint32_t *follow, uint32_t n_follow, const cr_vec3 *rv, cr_vec3 *moved, cr_real h) {
    cr_body *rb = cr_world_bodies(w);
    for (uint32_t k = 0; k < n_follow; ++k) {
        uint32_t i = follow[k];
        cr_body *b = &rb[i];
        if (!b->alive || b->type != CR_BODY_DYNAMIC || b->asleep) continue;
        cr_vec3 dv = cr_v3_sub(b->v, rv[2 * i]), dw = cr_v3_sub(b->w, rv[2 * i + 1]);
        if (dv.x != 0 || dv.y != 0 || dv.z != 0) b->xf.p = cr_v3_mad(b->xf.p, h, dv), moved[2 * i] = cr_v3_mad(moved[2 * i], h, dv);
        if (dw.x != 0 || dw.y != 0 || dw.z != 0)
            b->xf.q = cr_quat_integrate(b->xf.q, dw, h), moved[2 * i + 1] = cr_v3_mad(moved[2 * i + 1], h, dw);
    }
}
/* What the substeps' follow left of (v - v0) dt, for a body carried. */
static void rigid_follow_rest(cr_world *w, const uint32_t *follow, uint32_t n_follow, const cr_vec3 *rv, const cr_vec3 *moved,
                              cr_real dt) {
    cr_body *rb = cr_world_bodies(w);
    for (uint32_t k = 0; k < n_follow; ++k) {
        uint32_t i = follow[k];
        cr_body *b = &rb[i];
        if (!b->alive || b->type != CR_BODY_DYNAMIC || b->asleep) continue;
        cr_vec3 dv = cr_v3_sub(b->v, rv[2 * i]), dw = cr_v3_sub(b->w, rv[2 * i + 1]);
        /* only for a body carried, not hit: the step's soft impulses no
         * more than twice its weight (per axis, as Q32.32 wants) */
        cr_real carry = cr_mul(CR_R(2), cr_mul(cr_v3_len(w->def.gravity), dt));
        if (cr_abs(dv.x) > carry || cr_abs(dv.y) > carry || cr_abs(dv.z) > carry) continue;
        cr_vec3 dp = cr_v3_sub(cr_v3_scale(dv, dt), moved[2 * i]), dq = cr_v3_sub(cr_v3_scale(dw, dt), moved[2 * i + 1]);
        if (dp.x != 0 || dp.y != 0 || dp.z != 0) b->xf.p = cr_v3_add(b->xf.p, dp);
        if (dq.x != 0 || dq.y != 0 || dq.z != 0) b->xf.q = cr_quat_integrate(b->xf.q, dq, CR_R(1));
    }
}

/* One body's substep is three phases (predict, project, finish) so that the
 * step can run the spring projections of two bodies interleaved: within a
 * body the projection is one chain (consecutive springs share a particle,
 * and each square root and division waits for the last spring's move), so
 * one body alone left the core waiting on that chain; two bodies' springs
 * are independent and fill the wait. Every body's own operations stay the
 * same and in the same order, so the results are bit for bit those of
 * one body at a time. */
typedef struct cri_soft_sub {
    cr_particle *p;
    const cr_spring *s;
    const cri_spring_step *sk;
    cr_vec3 *corr;            /* the body's corrections, particle_count */
    cr_vec3 *g;               /* scratch for the volume gradient, particle_count */
    cr_vec3 c0, l0;           /* centre of mass and spin before the projection */
    cr_real inv_m;
} cri_soft_sub;

static void integrate_predict(cr_world *w, cr_soft_body *sb, cri_soft_sub *q, cr_real h) {
    cr_particle *p = q->p;
    cr_vec3 *corr = q->corr;
    uint32_t n = sb->particle_count;
    cr_vec3 gh = cr_v3_scale(w->def.gravity, h);
    q->inv_m = cr_div(CR_R(1), sb->mass);
    cr_vec3 c = cr_v3_zero();
    for (uint32_t i = 0; i < n; ++i) {
        p[i].v = clamp_speed(cr_v3_add(p[i].v, gh));
        if (sb->absolute_damping > 0) /* the seed's damping, implicit: v / (1 + h c / m) never overshoots */
            p[i].v = cr_v3_scale(p[i].v, cr_div(CR_R(1), CR_R(1) + cr_mul(cr_mul(h, sb->absolute_damping), p[i].inv_mass)));
        corr[i] = cr_v3_zero();
        p[i].x = cr_v3_mad(p[i].x, h, p[i].v);
        /* centre_of's sum in the same pass, the same operations in the same order */
        c = cr_v3_mad(c, p[i].mass, cr_v3_sub(p[i].x, p[0].x));
    }
    /* the spin before the projection (the same at the predicted positions as
     * at the old ones: a free drift has no torque) */
    q->c0 = cr_v3_add(p[0].x, cr_v3_scale(c, q->inv_m));
    q->l0 = spin_of(p, n, q->c0);
}

/* A spring stretched or squeezed past the Green-strain band (below): the
 * distance constraint itself, |d| - L along d / |d|, with the same weights.
 * Out of line: only hard impacts get here. */
static void project_far(cr_particle *A, cr_particle *B, cr_vec3 *ca, cr_vec3 *cb, const cri_spring_step *k, cr_vec3 d, cr_real d2) {
    cr_real len = cr_sqrt(d2);
    if (len <= CR_REAL_EPS) return; /* no direction to push along */
    cr_real rest = cr_sqrt(k->rest2);
    /* fa (d.d - L^2) at the band's scale: fa 2 L^2 (|d| - L) / |d| */
    cr_real g = cr_div(cr_mul(cr_mul(CR_R(2), k->rest2), len - rest), len);
    cr_vec3 da = cr_v3_scale(d, cr_mul(g, k->fa)), db = cr_v3_scale(d, -cr_mul(g, k->fb));
    A->x = cr_v3_add(A->x, da), *ca = cr_v3_add(*ca, da);
    B->x = cr_v3_add(B->x, db), *cb = cr_v3_add(*cb, db);
}

/* Spring j's projection. Within 0.75 < |d|^2 / L^2 < 1.3 the constraint is
 * the spring's Green strain, C = (|d|^2 - L^2) / (2 L), gradient d / L: the
 * same rest length and the same stiffness at rest as |d| - L (they differ
 * by (|d| - L)^2 / 2L), and no square root or division: with the
 * damping's (integrate_finish) they kept the divider busy, and the step
 * took 17 % longer (soft_pile awake, docs/mass-spring.md). Its gradient's
 * length |d| / L is taken as 1 in the denominator, so a spring stretched
 * by e is projected (1 + e)(1 + e / 2) times as far as the distance
 * constraint would: 0.81 to 1.22 times within the band. Past
 * the band, where the Green strain grows too fast (stretched) or gives up
 * (squeezed: its force vanishes as the spring collapses), the distance
 * constraint (project_far). The corrections are kept apart (corr) and
 * become velocity as corr / h: small numbers with their own precision, so
 * the momentum they carry cancels to rounding of themselves, not of the
 * positions. */
static inline void project_spring(cr_particle *p, const cri_spring_step *k, cr_vec3 *corr) {
    cr_particle *A = &p[k->a], *B = &p[k->b];
    cr_vec3 d = cr_v3_sub(B->x, A->x);
    cr_real d2 = cr_v3_dot(d, d), e = d2 - k->rest2;
    if (e <= cr_mul(CR_R(-0.25), k->rest2) || e >= cr_mul(CR_R(0.3), k->rest2)) {
        project_far(A, B, &corr[k->a], &corr[k->b], k, d, d2);
        return;
    }
    cr_vec3 da = cr_v3_scale(d, cr_mul(e, k->fa)), db = cr_v3_scale(d, -cr_mul(e, k->fb));
    A->x = cr_v3_add(A->x, da), corr[k->a] = cr_v3_add(corr[k->a], da);
    B->x = cr_v3_add(B->x, db), corr[k->b] = cr_v3_add(corr[k->b], db);
}

/* The springs of m bodies (one or two), interleaved spring by spring; they
 * share no particle and no correction. */
static void integrate_project(const cr_soft_body *const *sb, const cri_soft_sub *q, uint32_t m) {
    uint32_t n0 = sb[0]->spring_count, n1 = m == 2 ? sb[1]->spring_count : 0, both = n0 < n1 ? n0 : n1;
    cr_particle *p0 = q[0].p, *p1 = m == 2 ? q[1].p : NULL;
    cr_vec3 *c0 = q[0].corr, *c1 = m == 2 ? q[1].corr : NULL;
    const cri_spring_step *k0 = q[0].sk, *k1 = m == 2 ? q[1].sk : NULL;
    uint32_t j = 0;
    for (; j < both; ++j) project_spring(p0, &k0[j], c0), project_spring(p1, &k1[j], c1);
    for (uint32_t i = j; i < n0; ++i) project_spring(p0, &k0[i], c0);
    for (uint32_t i = j; i < n1; ++i) project_spring(p1, &k1[i], c1);
}

static void integrate_finish(cr_world *w, cr_soft_body *sb, const cri_soft_sub *q, cr_real h) {
    cr_particle *p = q->p;
    const cri_spring_step *sk = q->sk;
    cr_vec3 *corr = q->corr;
    uint32_t n = sb->particle_count;
    cr_real inv_h = cr_div(CR_R(1), h), inv_h2 = cr_mul(inv_h, inv_h);
    if (sb->volume_stiffness > 0) {
        /* C = V - V0, compliance V0 / kv: the potential (kv / 2 V0)(V - V0)^2 */
        const cr_asset *a = cr_world_asset(w, sb->asset);
        cr_vec3 *g = q->g;
        cr_real wg, v = volume_gradient(a, p, n, g, &wg);
        cr_real alpha = cr_mul(cr_div(sb->rest_volume, sb->volume_stiffness), inv_h2);
        if (wg + alpha > 0) volume_move(p, corr, g, n, cr_div(sb->rest_volume - v, wg + alpha));
    }
    /* the positions are final here (the damping below moves velocities
     * only): centre_of's sum for the spin correction in this pass, the same
     * operations in the same order */
    cr_vec3 csum = cr_v3_zero();
    for (uint32_t i = 0; i < n; ++i) {
        p[i].v = cr_v3_mad(p[i].v, inv_h, corr[i]);
        csum = cr_v3_mad(csum, p[i].mass, cr_v3_sub(p[i].x, p[0].x));
    }
    /* Damping of the relative velocity along each spring (N s/m), as
     * velocity impulses after the projection: implicit per spring, so the
     * relative speed shrinks by h c (w_a + w_b) but never past zero, and
     * every impulse takes energy out. Put inside the projection (XPBD's own
     * damping) it gained energy: 22 % in one step at c = 10 N s/m. */
    for (uint32_t j = 0; j < sb->structural_count; ++j) {
        /* along d: the relative speed's share (dv.d / |d|^2) d, 1 / |d|^2
         * as one Newton step from 1 / L^2, (2 - t) / L^2 with t = |d|^2 /
         * L^2: t (2 - t) of the exact impulse, 1 at the rest length and
         * never more, so the cap above still holds */
        const cri_spring_step *k = &sk[j];
        cr_particle *A = &p[k->a], *B = &p[k->b];
        cr_vec3 d = cr_v3_sub(B->x, A->x);
        cr_real d2 = cr_v3_dot(d, d), t = cr_mul(d2, k->inv_rest2);
        cr_real g = cr_v3_dot(cr_v3_sub(B->v, A->v), d);
        if (t < CR_R(2)) {
            g = cr_mul(g, CR_R(2) - t);
        } else { /* stretched past sqrt 2: the exact share */
            g = cr_div(cr_mul(g, k->rest2), d2);
        }
        A->v = cr_v3_mad(A->v, cr_mul(g, k->ca), d);
        B->v = cr_v3_mad(B->v, -cr_mul(g, k->cb), d);
    }
    /* Position projection turns a spinning body's velocities by less than
     * the body turned (a first-order loss of angular momentum, (h w)^2 / 2 a
     * substep: 7 % in 4 s of a ball at 3 rad/s). The internal forces have no
     * torque, so the spin the projection lost is given back as a rigid
     * rotation about the centre of mass: no linear momentum, L as before. */
    cr_mat3 inertia;
    cr_vec3 c1 = cr_v3_add(p[0].x, cr_v3_scale(csum, q->inv_m)), dl = cr_v3_sub(q->l0, spin_inertia_of(p, n, c1, &inertia));
    if (cr_mat3_det(inertia) > 0) {
        cr_vec3 wc = cr_mat3_mul_v3(cr_mat3_inverse(inertia), dl);
        for (uint32_t i = 0; i < n; ++i) p[i].v = cr_v3_add(p[i].v, cr_v3_cross(wc, cr_v3_sub(p[i].x, c1)));
    }
}

/* A body's substep, its state in q (corr and g: its own scratch, not
 * another's of the same pass). */
static void integrate_begin(cr_world *w, cr_soft_body *sb, cri_soft_sub *q, cr_vec3 *corr, cr_vec3 *g, const cri_spring_step *sk, cr_real h) {
    q->p = cri_soft_particles(w) + sb->first_particle;
    q->s = cri_soft_springs(w) + sb->first_spring;
    q->sk = sk, q->corr = corr, q->g = g;
    integrate_predict(w, sb, q, h);
}

/* The body's bounds, and how far its particles are from their anchors
 * (where they were when the body's sleep window began): the mass-weighted
 * mean of the squared distances, so rigid motion and deformation both count
 * (the window's kinetic energy, as a distance). Not the particles'
 * velocities: a resting body's contact particles carry its weight as
 * velocity the springs give them and the contacts take back every substep
 * (a ball at rest on the ground: 0.36 m/s). Not the farthest particle
 * either: in a pile a few contact particles jitter by millimetres a step
 * about places that do not move (up to 2 mm a step in soft_pile, and a
 * centimetre from the anchor within half a second) while the body's
 * centre moves a few millimetres in 2 s. */
static void refresh_bounds(cr_world *w, cr_soft_body *sb, cr_real *mean_move_sq) {
    cr_particle *p = cri_soft_particles(w) + sb->first_particle;
    const cr_vec3 *an = cri_soft_anchors(w) + sb->first_particle;
    sb->bounds_min = sb->bounds_max = p[0].x;
    cr_real sum = 0;
    for (uint32_t i = 0; i < sb->particle_count; ++i) {
        sb->bounds_min = cr_v3_min(sb->bounds_min, p[i].x);
        sb->bounds_max = cr_v3_max(sb->bounds_max, p[i].x);
        sum += cr_mul(p[i].mass, cr_v3_len_sq(cr_v3_sub(p[i].x, an[i])));
    }
    *mean_move_sq = cr_div(sum, sb->mass);
}

/* A soft body touched by something moving wakes (spring_collide.c calls it). */
static void wake(cr_soft_body *sb) {
    sb->asleep = 0;
    sb->sleep_time = 0;
}

/* Sleeping soft bodies wake when an awake dynamic rigid body's bounding
 * sphere reaches their bounds (the soft stage does not test sleepers' particles). */
static void wake_touched(cr_world *w, cr_soft_body *sb) {
    const cr_body *bodies = cr_world_bodies_c(w);
    for (uint32_t i = 0; i < w->body_high; ++i) {
        const cr_body *b = &bodies[i];
        if (!b->alive || b->asleep || b->type == CR_BODY_STATIC || b->shape.type == CR_SHAPE_PLANE) continue;
        if (b->type == CR_BODY_KINEMATIC && cr_v3_len_sq(b->v) == 0 && cr_v3_len_sq(b->w) == 0) continue;
        cr_real r = b->bound_radius + sb->radius;
        cr_vec3 c = b->xf.p;
        if (c.x + r < sb->bounds_min.x || c.y + r < sb->bounds_min.y || c.z + r < sb->bounds_min.z ||
            c.x - r > sb->bounds_max.x || c.y - r > sb->bounds_max.y || c.z - r > sb->bounds_max.z)
            continue;
        wake(sb);
        return;
    }
}

/* Rolling resistance (as the rigid solver's, solver/rolling_friction.c):
 * static friction holds a contact point but leaves a body free to roll
 * about it, and a soft ball's own damping takes almost nothing from a
 * slow roll (a dropped ball rolled on for 10 s at 0.2 m/s). Each substep
 * the static and kinematic bodies it touched may take an angular impulse
 * of arm x (its normal impulse) from its spin, about the contact points'
 * centre (one rigid body at a time: a ball in a corner turns about neither
 * wall's point alone): the rotation about that point slows by it (never reverses), which
 * slows the roll and the centre together. Dynamic bodies are left out: the
 * angular impulse would have to go to them too (not done). */
void cri_soft_roll_resist(cr_world *w, cr_soft_body *sb, const cr_soft_hits *hits) {
    if (hits->roll_jn <= 0 || hits->roll_arm <= 0) return;
    cr_particle *p = cri_soft_particles(w) + sb->first_particle;
    uint32_t n = sb->particle_count;
    cr_real inv_m = cr_div(CR_R(1), sb->mass);
    cr_vec3 pc = cr_v3_scale(hits->roll_at, cr_div(CR_R(1), hits->roll_jn));
    cr_mat3 inertia;
    cr_vec3 c = centre_of(p, n, inv_m), l = spin_inertia_of(p, n, c, &inertia);
    if (cr_mat3_det(inertia) <= 0) return;
    cr_real spin;
    cr_vec3 u = cr_v3_normalize_len(cr_mat3_mul_v3(cr_mat3_inverse(inertia), l), &spin);
    if (spin <= CR_REAL_EPS) return;
    /* inertia about the axis through the contact point (parallel axes) */
    cr_vec3 d = cr_v3_sub(c, pc);
    cr_vec3 d_perp = cr_v3_sub(d, cr_v3_scale(u, cr_v3_dot(u, d)));
    cr_real i_axis = cr_v3_dot(u, cr_mat3_mul_v3(inertia, u)) + cr_mul(sb->mass, cr_v3_len_sq(d_perp));
    if (i_axis <= 0) return;
    cr_real dw = cr_min(spin, cr_div(cr_mul(hits->roll_arm, hits->roll_jn), i_axis));
    cr_vec3 dwv = cr_v3_scale(u, dw);
    for (uint32_t i = 0; i < n; ++i) p[i].v = cr_v3_sub(p[i].v, cr_v3_cross(dwv, cr_v3_sub(p[i].x, pc)));
}

/* The step's soft impacts as impact events after the rigid ones (the
 * damage stage reads both): body_a the rigid body, body_b null, soft_b the
 * soft body; the normal from the soft body into the rigid one, the velocity
 * the rigid point's relative to the particle's, the impulses the rigid body
 * got. A record whose pair then took no normal impulse makes no event. */
static void emit_events(cr_world *w, const cr_soft_hits *hits) {
    cr_impact_event *ev = cr_world_events(w);
    const cr_body *bodies = cr_world_bodies_c(w);
    const cr_soft_body *soft = cri_soft_bodies(w);
    uint32_t n = w->event_count;
    for (uint32_t k = 0; k < hits->count && n < w->def.event_capacity; ++k) {
        const cr_soft_hit *h = &hits->hit[k];
        if (h->jn <= 0) continue;
        cr_impact_event *e = &ev[n++];
        memset(e, 0, sizeof *e);
        e->body_a.index1 = h->rigid + 1;
        e->body_a.generation = bodies[h->rigid].generation;
        e->soft_b.index1 = h->soft + 1;
        e->soft_b.generation = soft[h->soft].generation;
        e->point = h->point;
        e->normal = cr_v3_neg(h->normal);
        e->relative_velocity = cr_v3_neg(h->vrel);
        e->normal_speed = h->vn;
        e->impulse = h->jn;
        e->impulse_vector = cr_v3_neg(h->j);
    }
    w->stats.stage[CR_STAGE_events].work += n - w->event_count;
    w->stats.stage[CR_STAGE_events].overflow += hits->overflow;
    w->event_count = n;
}

void cri_soft_step(cr_world *w, cr_real dt) {
    cr_model_stats *st = &w->stats.spring;
    memset(st, 0, sizeof *st);
    if (w->def.spring.body_capacity == 0) return;
    cr_soft_region *r = cri_soft_region(w);
    if (r->body_count == 0) return;
    const cr_spring_budget *bud = &w->def.spring;
    /* substeps of at most max_dt / substeps: a longer step takes more of them, never a longer one */
    cr_real h_max = cr_div(bud->max_dt, cr_from_int((int32_t)bud->substeps));
    /* a step longer than CR_SOFT_MAX_SUBSTEPS substeps of h_max moves soft
     * bodies by only that much time: never a substep longer than the one
     * their stiffness was admitted for */
    cr_real steps_real = cr_div(dt, h_max);
    int32_t n = steps_real >= cr_from_int(CR_SOFT_MAX_SUBSTEPS) ? CR_SOFT_MAX_SUBSTEPS : cr_floor_int(steps_real);
    if (n < CR_SOFT_MAX_SUBSTEPS && (n < 1 || cr_mul(h_max, cr_from_int(n)) < dt)) ++n;
    cr_real h = n >= CR_SOFT_MAX_SUBSTEPS ? h_max : cr_div(dt, cr_from_int(n));

    uint32_t P = r->particle_count, B = r->body_high;
    uint32_t mark = cr_arena_pos(&w->scratch);
    uint32_t o_f = cri_arena_push_uninit(&w->scratch, (P ? 2 * P : 1) * (uint32_t)sizeof(cr_vec3), 16);
    uint32_t o_owner = cri_arena_push_uninit(&w->scratch, (P ? P : 1) * 4u, 16);
    uint32_t o_moving = cri_arena_push(&w->scratch, (uint8_t *)w, (B ? B : 1) * 4u, 16); /* zeroed: nobody runs yet */
    uint32_t o_cand = cri_arena_push_uninit(&w->scratch, (B ? B : 1) * (CR_SOFT_MAX_CANDIDATES + 1u) * 4u, 16);
    uint32_t o_prev = cri_arena_push_uninit(&w->scratch, (P ? 2 * P : 1) * (uint32_t)sizeof(cr_vec3), 16);
    uint32_t o_sk = cri_arena_push_uninit(&w->scratch, (r->spring_count ? r->spring_count : 1) * (uint32_t)sizeof(cri_spring_step), 16);
    /* each rigid body's velocities as the rigid solver moved it this step (rigid_follow) */
    uint32_t o_rv = cri_arena_push_uninit(&w->scratch, (w->body_high ? 4 * w->body_high : 1) * (uint32_t)sizeof(cr_vec3), 16);
    uint32_t o_follow = cri_arena_push_uninit(&w->scratch, (w->body_high ? w->body_high : 1) * 4u, 16);
    uint32_t o_followed = cri_arena_push(&w->scratch, (uint8_t *)w, w->body_high + 1u, 16); /* zeroed: none yet */
    uint32_t o_motion = cri_arena_push_uninit(&w->scratch, (B ? 3 * B : 1) * (uint32_t)sizeof(cr_real), 16);
    /* impact events: the room the rigid events left in the world's buffer */
    cr_soft_hits hits = {NULL, 0, w->def.event_capacity - w->event_count, 0, w->def.event_min_speed, 0, cr_v3_zero(), 0};
    uint32_t o_hits = hits.capacity ? cri_arena_push_uninit(&w->scratch, hits.capacity * (uint32_t)sizeof(cr_soft_hit), 16) : CR_NO_OFFSET;
    if (o_hits == CR_NO_OFFSET) hits.capacity = 0;
    else hits.hit = CR_AT(w, o_hits, cr_soft_hit);
    if (o_f == CR_NO_OFFSET || o_owner == CR_NO_OFFSET || o_moving == CR_NO_OFFSET || o_cand == CR_NO_OFFSET ||
        o_sk == CR_NO_OFFSET || o_prev == CR_NO_OFFSET || o_rv == CR_NO_OFFSET || o_follow == CR_NO_OFFSET ||
        o_followed == CR_NO_OFFSET || o_motion == CR_NO_OFFSET) {
        st->waiting = r->body_count; /* no scratch: every body waits, counted */
        cri_arena_pop_to(&w->scratch, mark);
        return;
    }
    cr_vec3 *f = CR_AT(w, o_f, cr_vec3);
    uint32_t *owner = CR_AT(w, o_owner, uint32_t), *moving = CR_AT(w, o_moving, uint32_t);
    uint32_t *cand = CR_AT(w, o_cand, uint32_t);
    cr_soft_body *bodies = cri_soft_bodies(w);

    /* who runs this step: slot order from next_body, while the budget lasts */
    uint64_t work = 0;
    uint32_t first_waiting = UINT32_MAX;
    for (uint32_t k = 0; k < B; ++k) {
        uint32_t i = (r->next_body + k) % B;
        cr_soft_body *sb = &bodies[i];
        if (!sb->alive) continue;
        for (uint32_t j = 0; j < sb->particle_count; ++j) owner[sb->first_particle + j] = i;
        if (sb->asleep) wake_touched(w, sb);
        if (sb->asleep) continue;
        uint64_t cost = (uint64_t)(sb->particle_count + sb->spring_count) * (uint32_t)n;
        if (work + cost > bud->work_per_step && st->done > 0) {
            if (first_waiting == UINT32_MAX) first_waiting = i;
            st->waiting++;
            continue;
        }
        work += cost;
        moving[i] = 1;
        st->done++;
    }
    r->next_body = first_waiting == UINT32_MAX ? 0 : first_waiting;

    /* soft-soft pairs once per step, with a margin for this step's motion:
     * each body's own (its fastest particle's, and gravity's), so a pair of
     * resting bodies is not searched as widely as the fastest body needs */
    cr_real vmax = 0, g_dt = cr_mul(cr_v3_len(w->def.gravity), dt);
    cr_real *motion = CR_AT(w, o_motion, cr_real);
    for (uint32_t i = 0; i < B; ++i) {
        motion[i] = motion[B + i] = 0;
        motion[2 * B + i] = moving[i] ? CR_R(1) : 0;
        if (!bodies[i].alive) continue;
        cr_particle *p = cri_soft_particles(w) + bodies[i].first_particle;
        cr_real vb = 0;
        for (uint32_t j = 0; j < bodies[i].particle_count; ++j) vb = cr_max(vb, cr_v3_len_sq(p[j].v));
        motion[B + i] = cr_sqrt(vb);
        motion[i] = cr_mul(motion[B + i] + g_dt, dt);
        if (moving[i]) vmax = cr_max(vmax, vb);
    }
    cr_real reach = cr_mul(cr_sqrt(vmax) + g_dt, dt);
    uint32_t pair_cap = bud->particle_capacity * CR_SOFT_PAIRS_PER_PARTICLE, n_pairs = 0, pair_overflow = 0;
    uint32_t o_pairs = r->body_count > 1 ? cri_arena_push_uninit(&w->scratch, pair_cap * 8u + 8u, 16) : CR_NO_OFFSET;
    bool any_surface = false; /* a body with surface_contacts: the pairs' nearest partners are wanted */
    for (uint32_t i = 0; i < B; ++i) any_surface |= bodies[i].alive && bodies[i].surface;
    uint32_t o_near = o_pairs != CR_NO_OFFSET && any_surface ? cri_arena_push_uninit(&w->scratch, pair_cap * 8u + 8u, 16) : CR_NO_OFFSET,
             n_near = 0;
    if (o_pairs != CR_NO_OFFSET)
        n_pairs = cri_soft_find_pairs(w, motion, CR_AT(w, o_pairs, uint32_t), pair_cap, &pair_overflow,
                                      o_near != CR_NO_OFFSET ? CR_AT(w, o_near, uint32_t) : NULL, &n_near);
    /* each pair's two triangles (soft_triangle.c); without room for them the
     * particles meet as spheres of the soft radius */
    uint32_t o_start = CR_NO_OFFSET, o_list = CR_NO_OFFSET, n_tc = 0;
    uint32_t o_tc = n_near > 0 && o_near != CR_NO_OFFSET && any_surface ? cri_arena_push_uninit(&w->scratch, n_near * 12u + 12u, 16) : CR_NO_OFFSET;
    bool triangles = o_tc != CR_NO_OFFSET && cri_soft_incidence(w, &o_start, &o_list);
    if (triangles)
        n_tc = cri_soft_triangle_contacts(w, CR_AT(w, o_near, const uint32_t), n_near, owner, CR_AT(w, o_start, const uint32_t),
                                          CR_AT(w, o_list, const uint32_t), motion, CR_AT(w, o_tc, uint32_t));

    st->over_capacity = pair_overflow;

    /* Each running body's rigid candidates, found once a step (a row of
     * CR_SOFT_MAX_CANDIDATES + 1 words: the count, then the slots). Then the
     * substeps, all bodies in each: forces and motion, rigid contacts, and
     * the soft pairs (found once, with a margin for the step's motion), so
     * soft bodies meet as often as they meet the ground. */
    uint32_t contacts = 0;
    for (uint32_t i = 0; i < B; ++i) {
        if (!moving[i]) continue;
        uint32_t *row = cand + i * (CR_SOFT_MAX_CANDIDATES + 1u);
        row[0] = cri_soft_rigid_candidates(w, &bodies[i], reach, row + 1, CR_SOFT_MAX_CANDIDATES, &st->over_capacity);
        spring_constants(w, &bodies[i], h, CR_AT(w, o_sk, cri_spring_step) + bodies[i].first_spring);
        const cr_particle *p = cri_soft_particles(w) + bodies[i].first_particle;
        cr_vec3 *prev = CR_AT(w, o_prev, cr_vec3) + bodies[i].first_particle;
        for (uint32_t j = 0; j < bodies[i].particle_count; ++j) prev[j] = p[j].x;
    }
    {
        const cr_particle *pa = cri_soft_particles(w);
        cr_vec3 *pair_prev = CR_AT(w, o_prev, cr_vec3) + P;
        for (uint32_t j = 0; j < P; ++j) pair_prev[j] = pa[j].x;
    }
    cr_vec3 *rv = CR_AT(w, o_rv, cr_vec3);
    /* The rigid bodies the soft contacts can push this step: the running
     * bodies' candidates, once each (in the order first met: each body
     * follows on its own, so the order changes nothing). Only these get
     * soft impulses, so only these follow them (rigid_follow): a world of
     * many rigid bodies and a few soft ones walked every rigid body twice a
     * substep. */
    uint32_t *follow = CR_AT(w, o_follow, uint32_t), n_follow = 0;
    uint8_t *followed = CR_AT(w, o_followed, uint8_t);
    {
        const cr_body *rb = cr_world_bodies_c(w);
        for (uint32_t i = 0; i < B; ++i) {
            if (!moving[i]) continue;
            const uint32_t *row = cand + i * (CR_SOFT_MAX_CANDIDATES + 1u);
            for (uint32_t c = 0; c < row[0]; ++c) {
                uint32_t s = row[1 + c];
                if (followed[s] || rb[s].type != CR_BODY_DYNAMIC) continue;
                followed[s] = 1, follow[n_follow++] = s;
                rv[2 * s] = rb[s].v, rv[2 * s + 1] = rb[s].w, rv[2 * w->body_high + 2 * s] = rv[2 * w->body_high + 2 * s + 1] = cr_v3_zero();
            }
        }
    }
    for (int32_t k = 0; k < n; ++k) {
        /* the running bodies two at a time: both integrated (their spring
         * projections interleaved, integrate_project), then each one's rigid
         * contacts in slot order. A body's integration reads nothing but its
         * own particles, so the other's contacts coming after it changes no
         * bit; each body's corrections and gradient get their own part of f
         * (corr in the first P, the gradient in the second). */
        for (uint32_t i = 0; i < B; ++i) {
            if (!moving[i]) continue;
            uint32_t i2 = i + 1;
            while (i2 < B && !moving[i2]) ++i2;
            uint32_t pick[2] = {i, i2};
            uint32_t m = i2 < B ? 2u : 1u;
            cri_soft_sub q[2];
            for (uint32_t t = 0; t < m; ++t) {
                cr_soft_body *sb = &bodies[pick[t]];
                integrate_begin(w, sb, &q[t], f + sb->first_particle, f + P + sb->first_particle,
                                CR_AT(w, o_sk, const cri_spring_step) + sb->first_spring, h);
            }
            const cr_soft_body *both[2] = {&bodies[i], m == 2 ? &bodies[i2] : NULL};
            integrate_project(both, q, m);
            for (uint32_t t = 0; t < m; ++t) integrate_finish(w, &bodies[pick[t]], &q[t], h);
            for (uint32_t t = 0; t < m; ++t) {
                uint32_t *row = cand + pick[t] * (CR_SOFT_MAX_CANDIDATES + 1u);
                contacts += cri_soft_collide_rigid(w, &bodies[pick[t]], row + 1, row[0], h, reach, &hits,
                                                   CR_AT(w, o_prev, cr_vec3) + bodies[pick[t]].first_particle);
            }
            i = m == 2 ? i2 : i;
        }
        rigid_follow(w, follow, n_follow, rv, rv + 2 * w->body_high, h);
        if (n_pairs > 0 || n_tc > 0) {
            /* the pair pass's own record of where it left the particles (the second half of prev) */
            cr_vec3 *pair_prev = CR_AT(w, o_prev, cr_vec3) + P;
            if (triangles)
                contacts += cri_soft_collide_triangles(w, CR_AT(w, o_tc, const uint32_t), n_tc, owner, moving, h, pair_prev);
            contacts += cri_soft_collide_pairs(w, CR_AT(w, o_pairs, uint32_t), n_pairs, owner, moving, h, pair_prev, !triangles);
            const cr_particle *pa = cri_soft_particles(w);
            for (uint32_t i = 0; i < B; ++i)
                if (moving[i])
                    for (uint32_t j = 0; j < bodies[i].particle_count; ++j)
                        pair_prev[bodies[i].first_particle + j] = pa[bodies[i].first_particle + j].x;
        }
        for (uint32_t i = 0; i < B; ++i)
            if (moving[i] && bodies[i].volume_tolerance > 0) hold_volume(w, &bodies[i], f);
    }

    /* no particle ends the step inside another body (soft_triangle.c) */
    if (triangles && n_tc > 0)
        (void)cri_soft_resolve_inside(w, CR_AT(w, o_tc, const uint32_t), n_tc, owner, moving, CR_AT(w, o_start, const uint32_t),
                                      CR_AT(w, o_list, const uint32_t));
    rigid_follow_rest(w, follow, n_follow, rv, rv + 2 * w->body_high, dt);
    /* bounds, sleep, the rigid bodies touched this step (the first
     * CR_SOFT_TOUCHED in slot order: a body touching more makes an event
     * again on the others, which only a pile against many rigid bodies meets) */
    /* Asleep when for the world's sleep_time its particles stayed within
     * sleep_linear x sleep_time of their anchors (where they were when the
     * window began), as a mass-weighted root mean square: its mean speed over
     * the window below sleep_linear, as an island's, whatever it does within
     * the window. Past that a new window starts from where they are now. */
    cr_real sleep_d = cr_mul(w->def.sleep_linear, w->def.sleep_time), sleep_d2 = cr_mul(sleep_d, sleep_d);
    for (uint32_t i = 0; i < B; ++i) {
        if (!moving[i]) continue;
        cr_soft_body *sb = &bodies[i];
        const uint32_t *row = cand + i * (CR_SOFT_MAX_CANDIDATES + 1u);
        uint32_t nt = 0;
        for (uint32_t k = 0; k < CR_SOFT_TOUCHED; ++k) sb->touched[k] = 0;
        for (uint32_t k = 0; k < row[0] && nt < CR_SOFT_TOUCHED; ++k)
            if (row[1 + k] & CR_SOFT_TOUCH_BIT) sb->touched[nt++] = (row[1 + k] & ~CR_SOFT_TOUCH_BIT) + 1;
        cr_real d2;
        refresh_bounds(w, sb, &d2);
        if (!w->def.sleep || sb->no_sleep || d2 > sleep_d2) {
            sb->sleep_time = 0;
            const cr_particle *p = cri_soft_particles(w) + sb->first_particle;
            cr_vec3 *an = cri_soft_anchors(w) + sb->first_particle;
            for (uint32_t j = 0; j < sb->particle_count; ++j) an[j] = p[j].x;
        } else {
            sb->sleep_time += dt;
        }
    }
    /* Bodies touching (the step's soft pairs) sleep together, as an island
     * of rigid bodies does: a body that slept alone in a settling pile was
     * immovable to its neighbours' slow pushes and woke again when they
     * pressed harder, and the pile churned. A group sleeps when each of its
     * bodies is asleep or has been still for sleep_time. */
    uint32_t *root = cand; /* the candidate rows are done with: B words for the groups */
    for (uint32_t i = 0; i < B; ++i) root[i] = i;
    const uint32_t *pairs = o_pairs != CR_NO_OFFSET ? CR_AT(w, o_pairs, const uint32_t) : NULL;
    for (uint32_t k = 0; k < n_pairs; ++k) {
        uint32_t a = owner[pairs[2 * k]], b = owner[pairs[2 * k + 1]];
        while (root[a] != a) a = root[a] = root[root[a]];
        while (root[b] != b) b = root[b] = root[root[b]];
        if (a != b) root[a > b ? a : b] = a < b ? a : b; /* the lower slot is the root: deterministic */
    }
    /* and the particle-triangle contacts: surface bodies resting on each
     * other have few particle pairs left (only within their skins) */
    const uint32_t *tcs = triangles ? CR_AT(w, o_tc, const uint32_t) : NULL;
    for (uint32_t k = 0; k < n_tc; ++k) {
        uint32_t a = owner[tcs[3 * k]], b = owner[tcs[3 * k + 1]];
        while (root[a] != a) a = root[a] = root[root[a]];
        while (root[b] != b) b = root[b] = root[root[b]];
        if (a != b) root[a > b ? a : b] = a < b ? a : b;
    }
    uint32_t *ready = cand + B; /* per slot, its group may sleep */
    for (uint32_t i = 0; i < B; ++i) ready[i] = 1;
    for (uint32_t i = 0; i < B; ++i) {
        uint32_t g = i;
        while (root[g] != g) g = root[g];
        root[i] = g;
        const cr_soft_body *sb = &bodies[i];
        if (sb->alive && !sb->asleep && (!moving[i] || sb->sleep_time < w->def.sleep_time)) ready[g] = 0;
    }
    for (uint32_t i = 0; i < B; ++i) {
        cr_soft_body *sb = &bodies[i];
        if (!moving[i] || sb->sleep_time < w->def.sleep_time || !ready[root[i]]) continue;
        sb->asleep = 1;
        cr_particle *p = cri_soft_particles(w) + sb->first_particle;
        for (uint32_t j = 0; j < sb->particle_count; ++j) p[j].v = cr_v3_zero();
    }
    emit_events(w, &hits);
    st->work = (uint32_t)(work > 0xffffffffu ? 0xffffffffu : work);
    st->shrunk = contacts; /* not shrunk work: the contact count, reported in the same record */
    cri_arena_pop_to(&w->scratch, mark);
}

/* ---- reading it -------------------------------------------------------- */

uint64_t cri_soft_hash(const cr_world *w, uint64_t h) {
    if (w->def.spring.body_capacity == 0) return h;
    const cr_soft_region *r = cri_soft_region_c(w);
    if (r->body_count == 0) return h;
    h = cr_hash_u32(h, r->body_count);
    h = cr_hash_u32(h, r->next_body);
    const cr_soft_body *bodies = CR_AT(w, r->bodies, const cr_soft_body);
    const cr_particle *p = CR_AT(w, r->particles, const cr_particle);
    for (uint32_t i = 0; i < r->body_high; ++i) {
        const cr_soft_body *sb = &bodies[i];
        if (!sb->alive) continue;
        h = cr_hash_u32(h, i);
        h = cr_hash_u32(h, sb->generation);
        h = cr_hash_u32(h, sb->asleep);
        h = cr_hash_real(h, sb->sleep_time);
        for (uint32_t k = 0; k < CR_SOFT_TOUCHED; ++k) h = cr_hash_u32(h, sb->touched[k]);
        const cr_vec3 *an = CR_AT(w, r->anchors, const cr_vec3) + sb->first_particle;
        for (uint32_t j = 0; j < sb->particle_count; ++j) {
            h = cr_hash_vec3(h, p[sb->first_particle + j].x);
            h = cr_hash_vec3(h, p[sb->first_particle + j].v);
            h = cr_hash_vec3(h, an[j]);
        }
    }
    return h;
}

static uint32_t copy_out(const cr_world *w, cr_soft_id id, cr_vec3 *out, uint32_t cap, bool vel) {
    const cr_soft_body *sb = cri_soft_body_c(w, id);
    if (sb == NULL) return 0;
    const cr_particle *p = CR_AT(w, cri_soft_region_c(w)->particles, const cr_particle) + sb->first_particle;
    for (uint32_t i = 0; out != NULL && i < sb->particle_count && i < cap; ++i) out[i] = vel ? p[i].v : p[i].x;
    return sb->particle_count;
}

uint32_t cr_soft_get_positions(const cr_world *w, cr_soft_id id, cr_vec3 *out, uint32_t cap) {
    return copy_out(w, id, out, cap, false);
}

uint32_t cr_soft_get_velocities(const cr_world *w, cr_soft_id id, cr_vec3 *out, uint32_t cap) {
    return copy_out(w, id, out, cap, true);
}

uint32_t cr_soft_get_normals(const cr_world *w, cr_soft_id id, cr_vec3 *out, uint32_t cap) {
    const cr_soft_body *sb = cri_soft_body_c(w, id);
    if (sb == NULL) return 0;
    if (out == NULL) return sb->particle_count;
    const cr_particle *p = CR_AT(w, cri_soft_region_c(w)->particles, const cr_particle) + sb->first_particle;
    const cr_asset *a = cr_world_asset(w, sb->asset);
    uint32_t n = sb->particle_count < cap ? sb->particle_count : cap;
    for (uint32_t i = 0; i < n; ++i) out[i] = cr_v3_zero();
    for (uint32_t t = 0; t < a->triangle_count; ++t) {
        const uint32_t *tri = &a->triangles[3 * t];
        /* the cross product's length is twice the area: area weighting for free */
        cr_vec3 nt = cr_v3_cross(cr_v3_sub(p[tri[1]].x, p[tri[0]].x), cr_v3_sub(p[tri[2]].x, p[tri[0]].x));
        for (int k = 0; k < 3; ++k)
            if (tri[k] < n) out[tri[k]] = cr_v3_add(out[tri[k]], nt);
    }
    for (uint32_t i = 0; i < n; ++i) out[i] = cr_v3_normalize(out[i]);
    return sb->particle_count;
}

cr_status cr_soft_get_state(const cr_world *w, cr_soft_id id, cr_soft_state *out) {
    if (w == NULL || out == NULL) return CR_ERR_NULL_ARGUMENT;
    memset(out, 0, sizeof *out);
    const cr_soft_body *sb = cri_soft_body_c(w, id);
    if (sb == NULL) return CR_ERR_STALE_HANDLE;
    const cr_particle *p = CR_AT(w, cri_soft_region_c(w)->particles, const cr_particle) + sb->first_particle;
    const cr_spring *s = CR_AT(w, cri_soft_region_c(w)->springs, const cr_spring) + sb->first_spring;
    out->particles = sb->particle_count;
    out->springs = sb->spring_count;
    out->asleep = sb->asleep != 0;
    out->rest_volume = sb->rest_volume;
    cr_real m = 0;
    cr_vec3 mx = cr_v3_zero(), mv = cr_v3_zero();
    out->bounds_min = out->bounds_max = p[0].x;
    cr_vec3 o = p[0].x; /* sums about the first particle keep fixed point's numbers small */
    for (uint32_t i = 0; i < sb->particle_count; ++i) {
        m += p[i].mass;
        mx = cr_v3_mad(mx, p[i].mass, cr_v3_sub(p[i].x, o));
        mv = cr_v3_mad(mv, p[i].mass, p[i].v);
        out->kinetic_energy += cr_half(cr_mul(p[i].mass, cr_v3_len_sq(p[i].v)));
        out->bounds_min = cr_v3_min(out->bounds_min, p[i].x);
        out->bounds_max = cr_v3_max(out->bounds_max, p[i].x);
    }
    out->mass = m;
    out->centre = cr_v3_add(o, cr_v3_scale(mx, cr_div(CR_R(1), m)));
    out->linear_momentum = mv;
    cr_vec3 l = cr_v3_zero();
    for (uint32_t i = 0; i < sb->particle_count; ++i)
        l = cr_v3_add(l, cr_v3_scale(cr_v3_cross(cr_v3_sub(p[i].x, out->centre), p[i].v), p[i].mass));
    out->angular_momentum = l;
    cr_real err2 = 0;
    for (uint32_t j = 0; j < sb->structural_count; ++j) {
        cr_real len = cr_v3_len(cr_v3_sub(p[s[j].b].x, p[s[j].a].x));
        cr_real e = cr_div(len - s[j].rest, s[j].rest);
        err2 += cr_mul(e, e);
        cr_real st = len - s[j].rest;
        out->elastic_energy += cr_half(cr_mul(s[j].k, cr_mul(st, st)));
    }
    for (uint32_t j = sb->structural_count; j < sb->spring_count; ++j) {
        cr_real st = cr_v3_len(cr_v3_sub(p[s[j].b].x, p[s[j].a].x)) - s[j].rest;
        out->elastic_energy += cr_half(cr_mul(s[j].k, cr_mul(st, st)));
    }
    if (sb->structural_count > 0) out->edge_error = cr_sqrt(cr_div(err2, cr_from_int((int32_t)sb->structural_count)));
    const cr_asset *a = cr_world_asset(w, sb->asset);
    out->volume = volume_of(a, p, o);
    if (sb->volume_stiffness > 0) {
        cr_real dv = out->volume - sb->rest_volume;
        out->elastic_energy += cr_div(cr_mul(cr_half(sb->volume_stiffness), cr_mul(dv, dv)), sb->rest_volume);
    }
    return CR_OK;
}

cr_status cr_soft_apply_impulse(cr_world *w, cr_soft_id id, cr_vec3 impulse, cr_vec3 point) {
    if (w == NULL) return CR_ERR_NULL_ARGUMENT;
    CR_TRY(cr_check_vec3(w, impulse, CR_FIELD_IMPULSE));
    /* finite is not enough in fixed point: impulse / particle mass must fit */
    const cr_real lim = CR_R(1.0e6);
    if (cr_abs(impulse.x) > lim || cr_abs(impulse.y) > lim || cr_abs(impulse.z) > lim)
        return cri_refuse(w, CR_ERR_ARGUMENT_RANGE, CR_FIELD_IMPULSE);
    CR_TRY(cri_check_position(w, point, CR_FIELD_WORLD_POINT));
    cr_soft_body *sb = cri_soft_body(w, id);
    if (sb == NULL) return CR_ERR_STALE_HANDLE;
    cr_particle *p = cri_soft_particles(w) + sb->first_particle;
    uint32_t best = 0;
    cr_real best_d = CR_REAL_MAX;
    for (uint32_t i = 0; i < sb->particle_count; ++i) {
        cr_real d = cr_v3_len_sq(cr_v3_sub(p[i].x, point));
        if (d < best_d) best_d = d, best = i;
    }
    p[best].v = clamp_speed(cr_v3_add(p[best].v, clamp_speed(cr_v3_scale(impulse, p[best].inv_mass))));
    wake(sb);
    return CR_OK;
}

cr_status cr_soft_apply_body_impulse(cr_world *w, cr_soft_id id, cr_vec3 impulse) {
    if (w == NULL) return CR_ERR_NULL_ARGUMENT;
    CR_TRY(cr_check_vec3(w, impulse, CR_FIELD_IMPULSE));
    const cr_real lim = CR_R(1.0e6); /* as cr_soft_apply_impulse: impulse / mass must fit in Q32.32 */
    if (cr_abs(impulse.x) > lim || cr_abs(impulse.y) > lim || cr_abs(impulse.z) > lim)
        return cri_refuse(w, CR_ERR_ARGUMENT_RANGE, CR_FIELD_IMPULSE);
    cr_soft_body *sb = cri_soft_body(w, id);
    if (sb == NULL) return CR_ERR_STALE_HANDLE;
    cr_particle *p = cri_soft_particles(w) + sb->first_particle;
    /* each particle its mass share of it: the same velocity change for all */
    cr_vec3 dv = clamp_speed(cr_v3_scale(impulse, cr_div(CR_R(1), sb->mass)));
    for (uint32_t i = 0; i < sb->particle_count; ++i) p[i].v = clamp_speed(cr_v3_add(p[i].v, dv));
    wake(sb);
    return CR_OK;
}

cr_status cr_soft_set_velocity(cr_world *w, cr_soft_id id, cr_vec3 linear, cr_vec3 angular) {
    if (w == NULL) return CR_ERR_NULL_ARGUMENT;
    CR_TRY(cr_check_vec3(w, linear, CR_FIELD_LINEAR_VELOCITY));
    CR_TRY(cr_check_vec3(w, angular, CR_FIELD_ANGULAR_VELOCITY));
    const cr_real lim = CR_SOFT_MAX_SPEED;
    if (cr_abs(linear.x) > lim || cr_abs(linear.y) > lim || cr_abs(linear.z) > lim)
        return cri_refuse(w, CR_ERR_ARGUMENT_RANGE, CR_FIELD_LINEAR_VELOCITY);
    if (cr_abs(angular.x) > lim || cr_abs(angular.y) > lim || cr_abs(angular.z) > lim)
        return cri_refuse(w, CR_ERR_ARGUMENT_RANGE, CR_FIELD_ANGULAR_VELOCITY);
    cr_soft_body *sb = cri_soft_body(w, id);
    if (sb == NULL) return CR_ERR_STALE_HANDLE;
    cr_particle *p = cri_soft_particles(w) + sb->first_particle;
    cr_vec3 c = centre_of(p, sb->particle_count, cr_div(CR_R(1), sb->mass));
    for (uint32_t i = 0; i < sb->particle_count; ++i)
        p[i].v = clamp_speed(cr_v3_add(linear, cr_v3_cross(angular, cr_v3_sub(p[i].x, c))));
    wake(sb);
    return CR_OK;
}

bool cri_soft_internal_force_sum(cr_world *w, cr_soft_id id, cr_vec3 *sum, cr_real *largest) {
    cr_soft_body *sb = cri_soft_body(w, id);
    if (sb == NULL) return false;
    uint32_t mark = cr_arena_pos(&w->scratch);
    uint32_t off = cri_arena_push_uninit(&w->scratch, sb->particle_count * (uint32_t)sizeof(cr_vec3), 16);
    if (off == CR_NO_OFFSET) return false;
    cr_vec3 *f = CR_AT(w, off, cr_vec3);
    *sum = cr_v3_zero();
    *largest = 0;
    internal_forces(w, sb, f, NULL);
    for (uint32_t i = 0; i < sb->particle_count; ++i) {
        *sum = cr_v3_add(*sum, f[i]);
        *largest = cr_max(*largest, cr_v3_len(f[i]));
    }
    cri_arena_pop_to(&w->scratch, mark);
    return true;
}
