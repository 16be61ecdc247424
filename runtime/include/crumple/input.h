/* crumple/input.h — input commands as plain data, applied in one canonical
 * order, and the per-body state hashes that name where two runs part.
 *
 * Games drive a world from outside (players, scripts, the network) with
 * commands: impulses, forces, velocities, teleports, kinematic targets,
 * destruction. As a cr_input record a command is plain data (no pointers, no
 * padding), so a replay log or a lockstep/rollback network layer can store and
 * send it as bytes and apply it again later, on another machine, with the
 * same result. The DESIGN's frame starts with "commands, sorted, applied":
 *
 *     cr_input in[2] = {0};
 *     in[0].frame = f; in[0].type = CR_INPUT_IMPULSE; in[0].body = crate;
 *     in[0].a = cr_v3(0, CR_R(40), 0); in[0].flags = CR_INPUT_AT_CENTER;
 *     ...
 *     cr_world_apply_inputs(world, in, 2);   // any order in, one order applied
 *     cr_world_step(world, dt);
 *
 * The canonical order is (seq, body slot, type, payload bits). `seq` is the
 * caller's say in the order: a scene uses its declaration order, a network
 * layer can use the player number; inputs with equal seq are ordered by their
 * contents, so two machines that received the same set in different orders
 * still apply it identically. The input array is never reordered or written.
 *
 * State hashes are the test oracle of determinism (docs/determinism.md):
 * cr_world_state_hash (world.h) says *whether* two runs agree after a frame,
 * cr_world_body_hashes says *which* bodies disagree.
 */
#ifndef CRUMPLE_INPUT_H
#define CRUMPLE_INPUT_H

#include "body.h"

/* Link names carry the scalar mode (CR_LINK_NAME, crumple/real.h), so code
 * compiled in the other mode fails to link instead of misreading every cr_real. */
#define cr_input_compare CR_LINK_NAME(cr_input_compare)
#define cr_world_apply_inputs CR_LINK_NAME(cr_world_apply_inputs)
#define cr_body_state_hash CR_LINK_NAME(cr_body_state_hash)
#define cr_world_body_hashes CR_LINK_NAME(cr_world_body_hashes)
#define cr_body_hashes_diff CR_LINK_NAME(cr_body_hashes_diff)
#define cr_state_layout_id CR_LINK_NAME(cr_state_layout_id)

#ifdef __cplusplus
extern "C" {
#endif

/// What an input does; the meaning of a, b, q, time and flags per type.
typedef enum cr_input_type {
    CR_INPUT_IMPULSE = 1,      ///< a: impulse (N s) at world point b (or the centre of mass with CR_INPUT_AT_CENTER); immediate
    CR_INPUT_FORCE = 2,        ///< a: force (N) at world point b (or the centre of mass), for the next step only
    CR_INPUT_TORQUE = 3,       ///< a: torque (N m, world frame), for the next step only
    CR_INPUT_SET_VELOCITY = 4, ///< a: linear velocity (m/s), b: angular velocity (rad/s)
    CR_INPUT_SET_TRANSFORM = 5,///< a: position of the centre of mass (m), q: orientation (normalised when applied)
    CR_INPUT_KINEMATIC_TARGET = 6, ///< set the velocities that carry the body to position a (and orientation q with
                                   ///< CR_INPUT_HAS_ORIENTATION, else no spin) in `time` seconds; they stay until changed
    CR_INPUT_DESTROY = 7       ///< destroy the body (and its joints)
} cr_input_type;
#define CR_INPUT_TYPE_MIN 1
#define CR_INPUT_TYPE_MAX 7

#define CR_INPUT_AT_CENTER 1u       ///< impulse/force: apply at the body's centre of mass, ignore b
#define CR_INPUT_HAS_ORIENTATION 2u ///< kinematic target: q is a target orientation
#define CR_INPUT_FLAGS_ALL 3u

/// One input command. Plain data with no padding in either scalar mode, so a
/// record can be stored and compared as bytes; zero unused fields.
typedef struct cr_input {
    int32_t frame;     ///< frame (0-based step index) it belongs to; the caller picks a frame's inputs
    uint32_t type;     ///< cr_input_type
    cr_body_id body;   ///< the body it acts on
    uint32_t seq;      ///< first sort key: caller's order (declaration order, player number...)
    uint32_t flags;    ///< CR_INPUT_AT_CENTER, CR_INPUT_HAS_ORIENTATION
    cr_real time;      ///< s, kinematic target: time to reach the target (> 0)
    cr_vec3 a;         ///< first vector (see cr_input_type)
    cr_vec3 b;         ///< second vector (see cr_input_type)
    cr_quat q;         ///< orientation (set transform, kinematic target)
} cr_input;

/// Ordering of the canonical sort: negative, 0 or positive as x goes before,
/// with or after y. 0 means the two records are identical, bit for bit.
int cr_input_compare(const cr_input *x, const cr_input *y);

/// Apply `count` inputs to the world in the canonical order (never reorders
/// the array). Every valid input is applied even if some fail; the return is
/// CR_OK, or the status of the first failing input in canonical order:
/// CR_ERR_STALE_HANDLE for a body that is not alive, CR_ERR_DEF_INVALID for an
/// unknown type or flag or a target time <= 0. Cost: count^2 comparisons (a
/// selection in place, since the runtime has no heap), fine for the tens of
/// inputs a frame has; sort larger batches first (then it is linear).
cr_status cr_world_apply_inputs(cr_world *world, const cr_input *inputs, uint32_t count);

/// A body's state hash, with the handle it belongs to.
typedef struct cr_body_hash {
    cr_body_id id;
    uint64_t hash;
} cr_body_hash;

/// Hash of one live body's simulation state (transform, velocities, pending
/// force and torque, mass, type, handle, sleep state); 0 for a stale handle.
/// Dented vertices are not in it (they are in cr_world_state_hash).
uint64_t cr_body_state_hash(const cr_world *world, cr_body_id id);

/// Per-body hashes of the live bodies in slot order; writes at most `capacity`
/// and returns how many live bodies there are.
uint32_t cr_world_body_hashes(const cr_world *world, cr_body_hash *out, uint32_t capacity);

/// Compare two per-body hash lists (each in slot order, as cr_world_body_hashes
/// writes them) and write the handles that differ — a body missing from one
/// list, or present in both with different hashes — in slot order, at most
/// `capacity`. Returns how many differ.
uint32_t cr_body_hashes_diff(const cr_body_hash *x, uint32_t x_count, const cr_body_hash *y, uint32_t y_count,
                             cr_body_id *out, uint32_t capacity);

/// Identifies what a state hash means in this build: scalar mode, width of
/// cr_real and the list of hashed state. Two builds with equal ids can compare
/// hashes; different ids mean a mismatched build, not a desync. Unlike
/// cr_world_layout_hash (snapshot.h) it does not depend on pointer size or
/// structure padding, so it is equal on every CPU.
uint64_t cr_state_layout_id(void);

#ifdef __cplusplus
}
#endif

#endif
