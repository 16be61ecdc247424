/* crumple/joint.h — joints between two bodies, in maximal coordinates.
 *
 * Usage:
 *     cr_joint_def jd = cr_default_joint_def();
 *     jd.type = CR_JOINT_HINGE;
 *     jd.body_a = door; jd.body_b = frame;     // body_b null: pinned to the world
 *     jd.anchor = cr_v3(...);                   // world point, at creation time
 *     jd.axis = cr_v3(0, CR_R(1), 0);           // world direction, hinges only
 *     cr_joint_id j;
 *     cr_status s = cr_joint_create(world, &jd, &j);
 *
 * Every body keeps its full six degrees of freedom; a joint removes some of
 * them with impulses (docs/solver.md, step 5):
 *   - pre-stabilisation: before the position update, impulses make the
 *     *predicted* positions satisfy the joint (the same idea as seed 002's
 *     collisions on predicted positions), iterated joint_iterations times;
 *   - post-stabilisation: after the position update, what drift is left is
 *     removed by moving the bodies (position-level impulses that leave the
 *     velocities alone), so the error cannot grow step after step.
 *
 * A joint remembers its rest pose: the relative orientation of the two bodies
 * when it was made. Fixed joints hold it; hinges hold it up to the turn about
 * their axis. cr_joint_set_rest_orientation changes it, which is how a later
 * stage makes a joint plastic (the rest angle yields under load, seed 000's
 * bending); the impulses the joint needed last step are there to read for it.
 */
#ifndef CRUMPLE_JOINT_H
#define CRUMPLE_JOINT_H

#include "body.h"

/* Link names carry the scalar mode (CR_LINK_NAME, crumple/real.h), so code
 * compiled in the other mode fails to link instead of misreading every cr_real. */
#define cr_default_joint_def CR_LINK_NAME(cr_default_joint_def)
#define cr_joint_create CR_LINK_NAME(cr_joint_create)
#define cr_joint_destroy CR_LINK_NAME(cr_joint_destroy)
#define cr_joint_is_valid CR_LINK_NAME(cr_joint_is_valid)
#define cr_world_get_joint_count CR_LINK_NAME(cr_world_get_joint_count)
#define cr_joint_get_type CR_LINK_NAME(cr_joint_get_type)
#define cr_joint_get_body_a CR_LINK_NAME(cr_joint_get_body_a)
#define cr_joint_get_body_b CR_LINK_NAME(cr_joint_get_body_b)
#define cr_joint_get_anchor_a CR_LINK_NAME(cr_joint_get_anchor_a)
#define cr_joint_get_anchor_b CR_LINK_NAME(cr_joint_get_anchor_b)
#define cr_joint_get_axis_a CR_LINK_NAME(cr_joint_get_axis_a)
#define cr_joint_get_axis_b CR_LINK_NAME(cr_joint_get_axis_b)
#define cr_joint_get_relative_orientation CR_LINK_NAME(cr_joint_get_relative_orientation)
#define cr_joint_get_rest_orientation CR_LINK_NAME(cr_joint_get_rest_orientation)
#define cr_joint_set_rest_orientation CR_LINK_NAME(cr_joint_set_rest_orientation)
#define cr_joint_get_hinge_angle CR_LINK_NAME(cr_joint_get_hinge_angle)
#define cr_joint_get_linear_impulse CR_LINK_NAME(cr_joint_get_linear_impulse)
#define cr_joint_get_angular_impulse CR_LINK_NAME(cr_joint_get_angular_impulse)
#define cr_joint_get_user_data CR_LINK_NAME(cr_joint_get_user_data)

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cr_joint_id {
    uint32_t index1;     ///< slot index + 1; 0 means null
    uint32_t generation; ///< must match the slot's generation
} cr_joint_id;

static inline bool cr_joint_id_is_null(cr_joint_id id) { return id.index1 == 0; }

typedef enum cr_joint_type {
    CR_JOINT_POINT, ///< ball and socket: the anchor points coincide (3 constraints)
    CR_JOINT_HINGE, ///< point + the axis stays common: one free rotation (5 constraints)
    CR_JOINT_FIXED  ///< point + the relative orientation stays the rest orientation (6 constraints)
} cr_joint_type;

typedef struct cr_joint_def {
    cr_joint_type type;
    cr_body_id body_a;       ///< must be a live body
    cr_body_id body_b;       ///< a live body, or null for the world
    cr_vec3 anchor;          ///< m, world position of the common point at creation
    cr_vec3 axis;            ///< hinge axis, world direction at creation (normalised by create)
    bool collide_connected;  ///< let the two bodies collide with each other (default false)
    /* Bending (seed 000 §4; docs/bending.md). Fixed joints only; all 0 = rigid. */
    cr_real bend_strength;   ///< N m s, plastic joint: the angular impulse one step's pre-stabilisation may spend holding the rest orientation; past it the joint yields and keeps the bend (0: never yields)
    cr_real bend_damping;    ///< 1/s, proportional damping of a yielding joint's bend rate (it keeps bending briefly, then settles)
    cr_real bend_damping_constant; ///< rad/s^2, constant damping of the bend rate
    cr_real spring_stiffness; ///< N m/rad, elastic joint: a torsion spring towards the rest orientation, solved in closed form (0: none; not with bend_strength)
    cr_real spring_damping;  ///< N m s/rad, the spring's damping coefficient C
    uint64_t user_data;
    uint32_t cookie;         ///< set by cr_default_joint_def(); checked by create
} cr_joint_def;

cr_joint_def cr_default_joint_def(void);

/// Create a joint; CR_ERR_CAPACITY when joint_capacity joints are alive,
/// CR_ERR_STALE_HANDLE when a body handle is not live, CR_ERR_DEF_INVALID when
/// both handles name the same body or a hinge axis is zero.
cr_status cr_joint_create(cr_world *world, const cr_joint_def *def, cr_joint_id *out);
/// Destroy a joint. Destroying a body destroys its joints too.
cr_status cr_joint_destroy(cr_world *world, cr_joint_id id);
bool cr_joint_is_valid(const cr_world *world, cr_joint_id id);
/// Live joints at once.
uint32_t cr_world_get_joint_count(const cr_world *world);

cr_joint_type cr_joint_get_type(const cr_world *world, cr_joint_id id);
cr_body_id cr_joint_get_body_a(const cr_world *world, cr_joint_id id);
cr_body_id cr_joint_get_body_b(const cr_world *world, cr_joint_id id);
/// World position (m) of the anchor as carried by body a, and by body b (or the world).
cr_vec3 cr_joint_get_anchor_a(const cr_world *world, cr_joint_id id);
cr_vec3 cr_joint_get_anchor_b(const cr_world *world, cr_joint_id id);
/// World direction of the hinge axis as carried by body a, and by body b.
cr_vec3 cr_joint_get_axis_a(const cr_world *world, cr_joint_id id);
cr_vec3 cr_joint_get_axis_b(const cr_world *world, cr_joint_id id);
/// Relative orientation conj(q_a) * q_b now.
cr_quat cr_joint_get_relative_orientation(const cr_world *world, cr_joint_id id);
/// Rest relative orientation conj(q_a) * q_b that the joint holds.
cr_quat cr_joint_get_rest_orientation(const cr_world *world, cr_joint_id id);
/// Change the rest relative orientation (plastic joints yield this way).
cr_status cr_joint_set_rest_orientation(cr_world *world, cr_joint_id id, cr_quat rest);
/// Hinge: angle (rad, in (-pi, pi]) of body b about the axis relative to the rest pose.
cr_real cr_joint_get_hinge_angle(const cr_world *world, cr_joint_id id);
/// Linear (N s) and angular (N m s) impulse the joint applied to body a in the last step's pre-stabilisation.
cr_vec3 cr_joint_get_linear_impulse(const cr_world *world, cr_joint_id id);
cr_vec3 cr_joint_get_angular_impulse(const cr_world *world, cr_joint_id id);
uint64_t cr_joint_get_user_data(const cr_world *world, cr_joint_id id);

#ifdef __cplusplus
}
#endif

#endif
