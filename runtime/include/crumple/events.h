/* crumple/events.h — what happened in the last step, for games (sound,
 * sparks, decals) and for the damage stage.
 *
 * Impact events come from the solver: one per pair of bodies that needed
 * collision impulses while approaching faster than def.event_min_speed; and
 * from the soft stage, one per soft body and rigid body whose particles hit
 * it that fast (soft_b names the soft body, body_b is then null).
 * Dent events come from the damage stage: one per dent applied, with the
 * vertex range of the body's mesh that the dent moved (upload that range;
 * cr_body_get_mesh gives the vertices). Both lists are rewritten every step
 * and read in a fixed order.
 */
#ifndef CRUMPLE_EVENTS_H
#define CRUMPLE_EVENTS_H

#include "body.h"

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
} cr_dent_event;

/// Dent events of the last step, in the order the dents were applied; writes
/// at most `capacity` and returns how many there are (at most
/// def.damage.dent.dents_per_step).
uint32_t cr_world_get_dent_events(const cr_world *world, cr_dent_event *out, uint32_t capacity);

#ifdef __cplusplus
}
#endif

#endif
