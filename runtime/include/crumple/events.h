/* crumple/events.h — what happened in the last step, for games (sound,
 * sparks, decals) and for the damage stage.
 *
 * Impact events come from the solver: one per pair of bodies that needed
 * collision impulses while approaching faster than def.event_min_speed; and
 * from the soft stage, one per soft body and rigid body whose particles hit
 * it that fast (soft_b names the soft body, body_b is then null).
 * Dent events come from the damage stage: one per dent applied, with the
 * vertex range of the body's mesh that the dent moved (upload that range;
 * cr_body_get_mesh gives the vertices). Sensor events (a sensor body began
 * or stopped overlapping another body) and contact events (two bodies began
 * or stopped touching, or hit faster than def.hit_event_speed) come from the
 * end of the solver's part of the step (docs/filters.md). Every list is
 * rewritten every step and read in a fixed order.
 */
#ifndef CRUMPLE_EVENTS_H
#define CRUMPLE_EVENTS_H

#include "body.h"

/* Link names carry the scalar mode (CR_LINK_NAME, crumple/real.h), so code
 * compiled in the other mode fails to link instead of misreading every cr_real. */
#define cr_world_get_events CR_LINK_NAME(cr_world_get_events)
#define cr_world_get_dent_events CR_LINK_NAME(cr_world_get_dent_events)
#define cr_world_get_sensor_events CR_LINK_NAME(cr_world_get_sensor_events)
#define cr_sensor_get_overlaps CR_LINK_NAME(cr_sensor_get_overlaps)
#define cr_world_get_contact_events CR_LINK_NAME(cr_world_get_contact_events)
#define cr_body_get_contacts CR_LINK_NAME(cr_body_get_contacts)

#ifdef __cplusplus
extern "C" {
#endif

/// Handle of a soft body (crumple/spring.h): slot + 1 and the slot's
/// generation; all-zero is null. Declared here because impact events name
/// soft bodies.
typedef struct cr_soft_id {
    uint32_t index1;
    uint32_t generation;
} cr_soft_id;

static inline bool cr_soft_id_is_null(cr_soft_id id) { return id.index1 == 0; }

/// One impact of the last step (a pair that needed collision impulses while
/// approaching faster than def.event_min_speed). The point is the
/// interfering point that met the fastest approach.
typedef struct cr_impact_event {
    cr_body_id body_a;      ///< the body the normal points into (pushed along +normal)
    cr_body_id body_b;      ///< the other body (static bodies too)
    cr_vec3 point;          ///< m, world position where the surfaces met, as carried by body_a to the end of the step
    cr_vec3 normal;         ///< unit, from body_b towards body_a (world, at the start of the step, when it was measured)
    cr_vec3 relative_velocity; ///< m/s, velocity of body_a's point minus body_b's before the impulses
    cr_real normal_speed;   ///< m/s, relative_velocity . normal; negative = approaching
    cr_real impulse;        ///< N s, total normal impulse the collision passes applied to body_a
    cr_vec3 impulse_vector; ///< N s, total impulse (normal + friction) on body_a; body_b got the opposite
    /// A soft body's hit on a rigid one (crumple/spring.h; after the rigid
    /// events, in soft slot order then rigid slot order): body_a is the rigid
    /// body, body_b is null and soft_b names the soft body (the normal points
    /// from it into body_a; the point is on body_a's surface). Null otherwise.
    cr_soft_id soft_b;
} cr_impact_event;

/// Impact events of the last step, in a fixed order (pair order); writes at
/// most `capacity` and returns how many there are. Events that did not fit
/// def.event_capacity are counted in stats.stage[CR_STAGE_events].overflow.
uint32_t cr_world_get_events(const cr_world *world, cr_impact_event *out, uint32_t capacity);

/// One dent applied in the last step.
typedef struct cr_dent_event {
    cr_body_id body;        ///< the dented body
    cr_body_id other;       ///< the body that made the dent
    cr_vec3 point;          ///< m, centre of the dent on the surface, body frame
    cr_vec3 world_point;    ///< m, the same in world space (end of the step)
    cr_real depth;          ///< m, dent distance (how far the surface moved in at the centre)
    uint32_t first_vertex;  ///< vertices [first_vertex, last_vertex] of the body's mesh moved
    uint32_t last_vertex;   ///< (first > last: the dent moved no vertex)
    cr_soft_id other_soft;  ///< the soft body that made the dent (`other` is then null); null otherwise
    uint32_t range_count;   ///< the vertices this dent moved, exactly, as ranges in ascending
    cr_vertex_range ranges[CR_DIRTY_RANGE_MAX]; ///< order (merged as cr_body_mesh's dirty ranges are)
} cr_dent_event;

/// Dent events of the last step, in the order the dents were applied; writes
/// at most `capacity` and returns how many there are (at most
/// def.damage.dent.dents_per_step).
uint32_t cr_world_get_dent_events(const cr_world *world, cr_dent_event *out, uint32_t capacity);

/// A sensor (cr_body_def.is_sensor) began or stopped overlapping a body.
/// Sensors see enabled dynamic and kinematic bodies that are not sensors and
/// whose filters let the pair collide (cr_filter_collides); the overlap is the
/// same test the narrowphase makes (samples against the signed distance of
/// the other shape, the damaged surface as it is now).
typedef struct cr_sensor_event {
    cr_body_id sensor;   ///< the sensor body
    cr_body_id visitor;  ///< the body that entered or left (may be stale on an end: it was destroyed)
    uint32_t begin;      ///< 1: began overlapping in this step; 0: stopped
} cr_sensor_event;

/// Sensor events of the last step in (sensor slot, visitor slot) order, ends
/// and begins as they come; writes at most `capacity` and returns how many
/// there are. Events past def.sensor_event_capacity, and overlaps past
/// def.sensor_capacity, are counted in stats.sensor_overflow.
uint32_t cr_world_get_sensor_events(const cr_world *world, cr_sensor_event *out, uint32_t capacity);
/// The bodies overlapping a sensor after the last step, in slot order;
/// writes at most `capacity`, returns how many there are (0 for a non-sensor).
uint32_t cr_sensor_get_overlaps(const cr_world *world, cr_body_id sensor, cr_body_id *out, uint32_t capacity);

typedef enum cr_contact_event_kind {
    CR_CONTACT_BEGIN, ///< the pair has interference points now and had none after the step before
    CR_CONTACT_END,   ///< the pair touched after the step before and does not now (or a body went away)
    CR_CONTACT_HIT    ///< an impact event (cr_impact_event) approaching faster than def.hit_event_speed
} cr_contact_event_kind;

/// A contact event of the last step (needs def.touch_capacity > 0).
typedef struct cr_contact_event {
    uint32_t kind;          ///< cr_contact_event_kind
    cr_body_id body_a;      ///< the lower slot (hits: the impact event's body_a)
    cr_body_id body_b;
    cr_vec3 point;          ///< m, world, end of the step: the deepest point (begin), the impact point (hit); zero on an end
    cr_vec3 normal;         ///< unit, from body_b towards body_a; zero on an end
    cr_real speed;          ///< m/s, approach speed of a hit (positive); 0 otherwise
} cr_contact_event;

/// Contact events of the last step: begins and ends in pair order, then hits
/// in impact-event order; writes at most `capacity`, returns how many there
/// are. Past def.contact_event_capacity, or pairs past def.touch_capacity,
/// are counted in stats.contact_overflow.
uint32_t cr_world_get_contact_events(const cr_world *world, cr_contact_event *out, uint32_t capacity);

/// Contact points kept per touching pair (cr_contact_data).
#define CR_CONTACT_POINTS 4u

/// One pair touching a body after the last step (cr_body_get_contacts).
typedef struct cr_contact_data {
    cr_body_id body;        ///< the body asked about
    cr_body_id other;       ///< the body it touches
    cr_vec3 normal;         ///< unit, world: from `other` towards `body` at the deepest point
    uint32_t point_count;   ///< points kept (<= CR_CONTACT_POINTS; the solver's first ones: the extremes of the patch, then the deepest)
    cr_vec3 points[CR_CONTACT_POINTS];          ///< m, world, carried by `body` to the end of the step
    cr_real separations[CR_CONTACT_POINTS];     ///< m, negative: how deep the point was at the start of the step
    cr_real normal_impulses[CR_CONTACT_POINTS]; ///< N s, the collision and contact impulses at each point, on `body`
    cr_real normal_impulse; ///< N s, over every point of the pair (those not kept too)
    cr_vec3 tangent_impulse;///< N s, friction on `body`, over every point
} cr_contact_data;

/// The pairs touching `body` after the last step, in the other body's slot
/// order (pairs of sleeping bodies keep the contacts they fell asleep with);
/// writes at most `capacity`, returns how many there are. Needs
/// def.touch_capacity > 0 (0 otherwise).
uint32_t cr_body_get_contacts(const cr_world *world, cr_body_id body, cr_contact_data *out, uint32_t capacity);

#ifdef __cplusplus
}
#endif

#endif
