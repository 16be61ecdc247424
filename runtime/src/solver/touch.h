/* touch.h — what touches what after a step, kept for the game: sensor
 * overlaps (sensors.c) and touching pairs (contact_events.c). Both live in
 * the persistent arena, so a snapshot holds them and the events they make
 * next step follow a restore; each is hashed when it holds anything (a world
 * without sensors, or without def.touch_capacity, hashes as before).
 *
 * Each set is kept twice (the set after the last step, then room for the
 * one being built), so a step builds the new set in order while it walks
 * the old one, and no scratch is needed.
 */
#ifndef CRUMPLE_TOUCH_H
#define CRUMPLE_TOUCH_H

#include "solver/solver.h"

/// A sensor and a body overlapping it (handles: an end event names a destroyed visitor as it was).
typedef struct cri_sensor_overlap {
    cr_body_id sensor;
    cr_body_id visitor;
} cri_sensor_overlap;

/// A pair touching after a step: its points carried in a's frame, so they
/// follow a while the pair sleeps.
typedef struct cri_touch {
    uint32_t a, b;            ///< body slots, a < b
    uint32_t gen_a, gen_b;    ///< their generations then
    cr_vec3 normal;           ///< unit, world: from b towards a at the deepest point
    uint32_t count;           ///< points kept (<= CR_CONTACT_POINTS)
    cr_vec3 local[CR_CONTACT_POINTS]; ///< m, a's body frame
    cr_real phi[CR_CONTACT_POINTS];   ///< m, signed separation at the start of the step
    cr_real jn[CR_CONTACT_POINTS];    ///< N s
    cr_real jn_total;         ///< N s, every point of the pair
    cr_vec3 jt_total;         ///< N s, friction on a, every point
} cri_touch;

uint64_t cri_sensor_region_bytes(const cr_world_def *def);
bool cri_sensor_layout(cr_world *w, uint8_t *block);
/// Sensor overlaps after the bodies moved: begin/end events against the last step's set.
void cri_sensor_events(cr_world *w);
uint64_t cri_sensor_hash(const cr_world *w, uint64_t h);

uint64_t cri_touch_region_bytes(const cr_world_def *def);
bool cri_touch_layout(cr_world *w, uint8_t *block);
/// Touching pairs from the step's manifolds (and sleeping pairs kept): contact begin/end/hit events.
void cri_contact_events(cr_step *s);
uint64_t cri_touch_hash(const cr_world *w, uint64_t h);

#endif
