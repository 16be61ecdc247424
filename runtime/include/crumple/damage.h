/* crumple/damage.h — the damage stage's seam, open to the game: its own
 * damage model, and deferred world commands.
 *
 * After the position update every step runs the damage stage: each impact
 * event is turned once into per-body impacts in that body's own frame, the
 * resting contacts into a per-body contact summary, and then each model runs
 * over its bodies in a fixed order (dent, then the game's custom model).
 *
 * A custom model is the game's function in cr_world_def.damage.custom, with
 * state_bytes of state per body inside the world block (so snapshots, rollback
 * and the state hash cover it). It is called for every body it is attached
 * to, in slot order, with that body's impacts and contacts and the work
 * budget left this step; it returns the work it spent and may queue world
 * commands (create/destroy bodies and joints), which the world applies at the
 * end of the step in the order they were queued. A full command queue
 * refuses with CR_ERR_CAPACITY (counted): the model keeps that work for a
 * later step. A queued create that the world refuses (a capacity) stays
 * queued for the next step, counted in stats.commands_waiting.
 */
#ifndef CRUMPLE_DAMAGE_H
#define CRUMPLE_DAMAGE_H

#include "body.h"
#include "joint.h"
#include "events.h"

/* Link names carry the scalar mode (CR_LINK_NAME, crumple/real.h), so code
 * compiled in the other mode fails to link instead of misreading every cr_real. */
#define cr_custom_attach CR_LINK_NAME(cr_custom_attach)
#define cr_custom_detach CR_LINK_NAME(cr_custom_detach)
#define cr_custom_get_state CR_LINK_NAME(cr_custom_get_state)
#define cr_damage_defer_body_create CR_LINK_NAME(cr_damage_defer_body_create)
#define cr_damage_defer_body_destroy CR_LINK_NAME(cr_damage_defer_body_destroy)
#define cr_damage_defer_joint_create CR_LINK_NAME(cr_damage_defer_joint_create)
#define cr_damage_defer_joint_destroy CR_LINK_NAME(cr_damage_defer_joint_destroy)
#define cr_default_damage_def CR_LINK_NAME(cr_default_damage_def)

#ifdef __cplusplus
extern "C" {
#endif

/// One impact on a body, in that body's frame (every vector measured with the
/// start-of-step poses the solver measured the impact with).
typedef struct cr_body_impact {
    cr_body_id other;        ///< the body that hit it
    cr_vec3 point;           ///< m, where the surfaces met, body frame
    cr_vec3 normal;          ///< unit, into this body (the direction the other pushed it), body frame
    cr_vec3 velocity;        ///< m/s, the other body's point relative to this one's, body frame
    cr_real normal_speed;    ///< m/s, velocity . normal: approach speed, positive
    cr_real impulse;         ///< N s, normal impulse this body received from the collision passes
    cr_transform other_pose; ///< the other body's pose in this body's frame at the start of the step
    cr_soft_id soft_other;   ///< a soft body's hit (`other` null): the soft body; other_pose is then the contact point, unrotated
    cr_vec3 impulse_vector;  ///< N s, total impulse (normal + friction) this body received from the collision passes, body frame
} cr_body_impact;

/// One resting (or sliding) contact on a body: the deepest point the contact
/// passes pushed, in the body's frame. Impacts are not repeated here.
typedef struct cr_body_contact {
    cr_body_id other;
    cr_vec3 point;           ///< m, body frame
    cr_vec3 normal;          ///< unit, into this body, body frame
    cr_real impulse;         ///< N s, normal impulse the contact passes applied to this body
} cr_body_contact;

/// What a custom model's step function sees for one body.
typedef struct cr_custom_step {
    cr_world *world;
    cr_body_id body;
    void *state;                     ///< state_bytes in the world block, zeroed at attach
    uint32_t state_bytes;
    const cr_body_impact *impacts;   ///< this step's impacts on the body
    uint32_t impact_count;
    const cr_body_contact *contacts; ///< this step's contacts on the body
    uint32_t contact_count;
    uint32_t budget;                 ///< work units the model may still spend this step
    uint32_t waiting;                ///< set by the model: work it keeps for later steps (stats)
} cr_custom_step;

/// Attach the world's custom model to a body (its state starts zeroed).
cr_status cr_custom_attach(cr_world *world, cr_body_id body);
/// Detach it (the body's state is forgotten).
cr_status cr_custom_detach(cr_world *world, cr_body_id body);
/// The custom model's state of a body (state_bytes, read only), or NULL.
const void *cr_custom_get_state(const cr_world *world, cr_body_id body);

/// Queue a command for the end of this step (models call these during the
/// damage stage; a host may call them between steps too). CR_ERR_CAPACITY
/// when damage.command_capacity commands wait already.
cr_status cr_damage_defer_body_create(cr_world *world, const cr_body_def *def);
cr_status cr_damage_defer_body_destroy(cr_world *world, cr_body_id body);
cr_status cr_damage_defer_joint_create(cr_world *world, const cr_joint_def *def);
cr_status cr_damage_defer_joint_destroy(cr_world *world, cr_joint_id joint);

/// Memory and budgets that suit a few damaged bodies (no custom model).
cr_damage_def cr_default_damage_def(void);

#ifdef __cplusplus
}
#endif

#endif
