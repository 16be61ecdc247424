/* sensors.c — sensor bodies: overlaps reported as begin/end events, never a
 * contact response (docs/filters.md).
 *
 * A sensor is out of the broadphase's pairs (broadphase.c drops every pair
 * with one), so nothing pushes it or is pushed by it. After the bodies moved,
 * each enabled sensor, in slot order, tests every enabled dynamic or
 * kinematic body that is not a sensor and that its filter lets it meet, in
 * slot order: first their bounding spheres, then the narrowphase's own test,
 * the sample points of each shape (a sphere's centre with its radius; a
 * box's corner and edge samples; a mesh's samples on its surface as it is
 * now, dents and all) against the other's signed distance. The new overlaps
 * come out sorted by (sensor slot, visitor slot), so a merge walk with the
 * last step's set gives the end and begin events in that order.
 *
 * Cost: sensors x bodies sphere tests, plus the sample tests of the pairs
 * whose spheres meet. Games have a few sensors; a scan needs no scratch and
 * no broadphase state. Overlaps past def.sensor_capacity and events past
 * def.sensor_event_capacity are counted in stats.sensor_overflow.
 */
#include "solver/touch.h"
#include "geometry/shape.h"
#include "base/hash.h"

#include <string.h>

uint64_t cri_sensor_region_bytes(const cr_world_def *def) {
    uint64_t overlaps = ((uint64_t)def->sensor_capacity * 2u * sizeof(cri_sensor_overlap) + 15u) & ~15ull;
    uint64_t events = ((uint64_t)def->sensor_event_capacity * sizeof(cr_sensor_event) + 15u) & ~15ull;
    return overlaps + events + 32u;
}

bool cri_sensor_layout(cr_world *w, uint8_t *block) {
    const cr_world_def *def = &w->def;
    w->sensor_overlaps = cri_arena_push(&w->persistent, block, def->sensor_capacity * 2u * (uint32_t)sizeof(cri_sensor_overlap), 16);
    w->sensor_events = cri_arena_push(&w->persistent, block, def->sensor_event_capacity * (uint32_t)sizeof(cr_sensor_event), 16);
    w->sensor_overlap_count = w->sensor_event_count = 0;
    return w->sensor_overlaps != CR_NO_OFFSET && w->sensor_events != CR_NO_OFFSET;
}

static cr_body_id id_of(const cr_body *bodies, uint32_t slot) {
    cr_body_id id = {slot + 1u, bodies[slot].generation};
    return id;
}

/* Is any sample of `of` inside `in`? A sphere is its centre with a margin of its radius. */
static bool samples_inside(const cr_world *w, const cr_body *in, const cr_body *of) {
    cr_vec3 hint = cr_quat_inv_rotate(in->xf.q, cr_v3_sub(of->xf.p, in->xf.p));
    cr_vec3 n;
    cr_vec3 centre = cr_transform_inv_point(in->xf, of->xf.p);
    cr_real margin = of->shape.type == CR_SHAPE_SPHERE ? of->shape.radius : 0;
    if (cri_shape_sdf(w, &in->shape, centre, hint, &n) < margin) return true;
    if (of->shape.type == CR_SHAPE_BOX) {
        cr_vec3 box[CR_BOX_MAX_SAMPLES];
        uint32_t k = cri_box_samples(of->shape.half_extents, box);
        for (uint32_t i = 0; i < k; ++i) {
            cr_vec3 p = cr_transform_inv_point(in->xf, cr_transform_point(of->xf, box[i]));
            if (cri_shape_sdf(w, &in->shape, p, hint, &n) < 0) return true;
        }
    } else if (of->shape.type == CR_SHAPE_MESH) {
        const cr_asset *a = cr_world_asset(w, of->shape.asset); /* the surface as it is now */
        for (uint32_t i = 0; a != NULL && i < a->sample_count; ++i) {
            cr_vec3 p = cr_transform_inv_point(in->xf, cr_transform_point(of->xf, a->samples[i]));
            if (cri_shape_sdf(w, &in->shape, p, hint, &n) < 0) return true;
        }
    }
    return false;
}

static bool overlaps(const cr_world *w, const cr_body *sensor, const cr_body *b) {
    if (sensor->shape.type != CR_SHAPE_PLANE) {
        cr_vec3 d = cr_v3_sub(b->xf.p, sensor->xf.p);
        cr_real reach = sensor->bound_radius + b->bound_radius;
        /* per axis first: a squared distance of far bodies would overflow Q32.32 */
        if (cr_abs(d.x) > reach || cr_abs(d.y) > reach || cr_abs(d.z) > reach) return false;
        if (cr_v3_len_sq(d) > cr_mul(reach, reach)) return false;
    }
    return samples_inside(w, sensor, b) || (b->shape.type != CR_SHAPE_PLANE && samples_inside(w, b, sensor));
}

static bool can_visit(const cr_body *sensor, const cr_body *b) {
    return b->alive && !b->disabled && !b->sensor && !b->ghost && b->type != CR_BODY_STATIC &&
           cr_filter_collides(sensor->filter, b->filter);
}

static bool same_overlap(const cri_sensor_overlap *x, const cri_sensor_overlap *y) {
    return memcmp(x, y, sizeof *x) == 0;
}

static uint64_t overlap_key(const cri_sensor_overlap *o) {
    return (uint64_t)o->sensor.index1 << 32 | o->visitor.index1;
}

static void push_event(cr_world *w, const cri_sensor_overlap *o, uint32_t begin) {
    if (w->sensor_event_count >= w->def.sensor_event_capacity) {
        w->stats.sensor_overflow++;
        return;
    }
    cr_sensor_event *e = &CR_AT(w, w->sensor_events, cr_sensor_event)[w->sensor_event_count++];
    e->sensor = o->sensor;
    e->visitor = o->visitor;
    e->begin = begin;
}

void cri_sensor_events(cr_world *w) {
    w->sensor_event_count = 0;
    uint32_t cap = w->def.sensor_capacity;
    cri_sensor_overlap *old = CR_AT(w, w->sensor_overlaps, cri_sensor_overlap);
    cri_sensor_overlap *now = old + cap;
    const cr_body *bodies = cr_world_bodies_c(w);
    uint32_t n_old = w->sensor_overlap_count, n = 0, i = 0;
    for (uint32_t s = 0; s < w->body_high; ++s) {
        const cr_body *sensor = &bodies[s];
        if (!sensor->alive || !sensor->sensor || sensor->disabled) continue;
        for (uint32_t v = 0; v < w->body_high; ++v) {
            if (v == s || !can_visit(sensor, &bodies[v]) || !overlaps(w, sensor, &bodies[v])) continue;
            cri_sensor_overlap o = {id_of(bodies, s), id_of(bodies, v)};
            /* the old overlaps before this one have ended */
            while (i < n_old && overlap_key(&old[i]) < overlap_key(&o)) push_event(w, &old[i++], 0);
            bool kept = i < n_old && same_overlap(&old[i], &o);
            if (i < n_old && overlap_key(&old[i]) == overlap_key(&o)) {
                if (!kept) push_event(w, &old[i], 0); /* a slot reused: the old body left */
                ++i;
            }
            if (n >= cap) { /* not kept: it will begin again next step, so no event either */
                w->stats.sensor_overflow++;
                continue;
            }
            now[n++] = o;
            if (!kept) push_event(w, &o, 1);
        }
    }
    while (i < n_old) push_event(w, &old[i++], 0);
    memcpy(old, now, (size_t)n * sizeof *old);
    w->sensor_overlap_count = n;
}

uint64_t cri_sensor_hash(const cr_world *w, uint64_t h) {
    if (w->sensor_overlap_count == 0 && w->sensor_event_count == 0) return h; /* no sensors: as before */
    h = cr_hash_u32(h, w->sensor_overlap_count);
    const cri_sensor_overlap *o = CR_AT(w, w->sensor_overlaps, const cri_sensor_overlap);
    for (uint32_t i = 0; i < w->sensor_overlap_count; ++i) {
        h = cr_hash_u32(cr_hash_u32(h, o[i].sensor.index1), o[i].sensor.generation);
        h = cr_hash_u32(cr_hash_u32(h, o[i].visitor.index1), o[i].visitor.generation);
    }
    h = cr_hash_u32(h, w->sensor_event_count);
    const cr_sensor_event *e = CR_AT(w, w->sensor_events, const cr_sensor_event);
    for (uint32_t i = 0; i < w->sensor_event_count; ++i)
        h = cr_hash_u32(cr_hash_u32(cr_hash_u32(h, e[i].sensor.index1), e[i].visitor.index1), e[i].begin);
    return h;
}

uint32_t cr_world_get_sensor_events(const cr_world *w, cr_sensor_event *out, uint32_t capacity) {
    if (w == NULL) return 0;
    uint32_t n = w->sensor_event_count;
    if (out != NULL) memcpy(out, CR_AT(w, w->sensor_events, const cr_sensor_event), (size_t)(n < capacity ? n : capacity) * sizeof *out);
    return n;
}

uint32_t cr_sensor_get_overlaps(const cr_world *w, cr_body_id sensor, cr_body_id *out, uint32_t capacity) {
    if (cri_world_body_c(w, sensor) == NULL) return 0;
    const cri_sensor_overlap *o = CR_AT(w, w->sensor_overlaps, const cri_sensor_overlap);
    uint32_t n = 0;
    for (uint32_t i = 0; i < w->sensor_overlap_count; ++i) {
        if (o[i].sensor.index1 != sensor.index1 || o[i].sensor.generation != sensor.generation) continue;
        if (out != NULL && n < capacity) out[n] = o[i].visitor;
        ++n;
    }
    return n;
}
