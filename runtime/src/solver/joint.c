/* joint.c — point, hinge and fixed joints in maximal coordinates, with pre-
 * and post-stabilisation (docs/solver.md, step 5).
 *
 * Every body keeps six degrees of freedom; a joint is a set of conditions on
 * the pair, enforced by impulses:
 *   point  the two anchor points coincide
 *   hinge  point + the hinge axis as carried by a equals the axis carried by b
 *   fixed  point + the relative orientation conj(q_a) q_b equals the rest one
 *
 * Pre-stabilisation (before the position update), iterated
 * def.joint_iterations times over the joints in slot order, at the velocity
 * level: the angular condition first (the relative angular velocity across a
 * hinge's axis, or all of it for a fixed joint, becomes zero,
 * (I_a^-1 + I_b^-1) L = w_b - w_a), then the linear one (the anchors' relative
 * velocity becomes zero, K j = u_b - u_a with K the point matrix of the
 * anchors, as for contacts). crumple first made the *predicted* anchors
 * coincide (K j = -e_pred / dt, position-based): that is dissipative, a
 * frictionless pendulum kept 57 % of its swing after 10 s and a hinged bar
 * 24 %.
 *
 * Post-stabilisation (after the position update): the drift the step's
 * motion left (a swinging link moves along its tangent, off its circle) is
 * removed by moving the bodies with position-level impulses (dx = P/m,
 * dtheta = I^-1 (r x P + L)), angular then linear, until no joint is off by
 * more than CR_JOINT_TOLERANCE (at most 4 x joint_iterations sweeps). Then the
 * velocity-level post-stabilisation: the same velocity passes at the new
 * poses, so the step ends with velocities that meet the joints, and the
 * kinetic energy that projection takes (a fraction (w dt)^2 per step, the
 * velocity having turned with the body) is given back by scaling the pair's
 * velocities (between two moving bodies only their motion relative to the
 * pair's rigid motion, so the pair keeps its momentum and angular
 * momentum), unless the loss exceeds CR_JOINT_RESTORE_MAX (then it is a
 * real inelastic joint impulse). A body turned by position-level impulses
 * keeps the angular momentum of its spin (spin_kept), and the angular
 * momentum a bending joint's moves shift is given back to its pair
 * (cri_pair_turn, pair_turn.c).
 *
 * Bending joints (seed 000 §4) are fixed joints with a bending strength
 * (plastic_joint.c: the accumulated angular impulse is clamped; a yielding
 * joint's rest follows the bodies and its relative angular velocity is aimed
 * at a damped bend rate) or a torsion spring (elastic_joint.c: the angular
 * condition is the spring's closed-form step). Neither has an angular
 * position to post-stabilise, and their energy loss is their damping's, so
 * restore_energy leaves them alone.
 */
#include "solver/solver.h"
#include "base/inertia.h"
#include "base/check.h"

#include <string.h>

#define CR_JOINT_COOKIE 0x6a6f696eu /* "join" */

cr_joint_def cr_default_joint_def(void) {
    cr_joint_def d;
    memset(&d, 0, sizeof d);
    d.type = CR_JOINT_POINT;
    d.axis = cr_v3(0, CR_R(1), 0);
    d.cookie = CR_JOINT_COOKIE;
    return d;
}

static cr_joint *joint_of(cr_world *w, cr_joint_id id) {
    if (w == NULL || id.index1 == 0 || id.index1 > w->joint_high) return NULL;
    cr_joint *j = &cr_world_joints(w)[id.index1 - 1];
    return (j->alive && j->generation == id.generation) ? j : NULL;
}

static const cr_joint *joint_of_c(const cr_world *w, cr_joint_id id) { return joint_of((cr_world *)w, id); }

static cr_transform side_xf(const cr_world *w, uint32_t index1) {
    if (index1 == 0) return cr_transform_identity();
    return cr_world_bodies_c(w)[index1 - 1].xf;
}

cr_status cr_joint_create(cr_world *w, const cr_joint_def *def, cr_joint_id *out) {
    if (out == NULL) return CR_ERR_NULL_ARGUMENT;
    memset(out, 0, sizeof *out);
    if (w == NULL || def == NULL) return CR_ERR_NULL_ARGUMENT;
    if (def->cookie != CR_JOINT_COOKIE) return CR_ERR_DEF_NOT_DEFAULTED;
    CR_TRY(cri_joint_def_refuse(w, def));
    cr_body *a = cri_world_body(w, def->body_a);
    if (a == NULL) return CR_ERR_STALE_HANDLE;
    cr_body *b = NULL;
    if (!cr_body_id_is_null(def->body_b)) {
        b = cri_world_body(w, def->body_b);
        if (b == NULL) return CR_ERR_STALE_HANDLE;
        if (b == a) return cri_refuse(w, CR_ERR_DEF_INVALID, CR_FIELD_JOINT_BODY_B);
    }
    cr_vec3 axis = cr_v3_normalize(def->axis);
    if (def->type == CR_JOINT_HINGE && axis.x == 0 && axis.y == 0 && axis.z == 0)
        return cri_refuse(w, CR_ERR_DEF_INVALID, CR_FIELD_JOINT_AXIS);

    cr_joint *joints = cr_world_joints(w);
    uint32_t index = cr_slot_take(joints, sizeof *joints, &w->free_joint, &w->joint_high, w->def.joint_capacity);
    if (index == UINT32_MAX) {
        cri_world_log(w, CR_LOG_WARN, "cr_joint_create: joint_capacity reached");
        return CR_ERR_CAPACITY;
    }
    cr_joint *j = &joints[index];
    uint32_t generation = j->generation;
    memset(j, 0, sizeof *j);
    j->generation = generation;
    j->alive = 1;
    j->type = (uint8_t)def->type;
    j->collide_connected = def->collide_connected ? 1 : 0;
    j->a = def->body_a.index1;
    j->b = b ? def->body_b.index1 : 0;
    j->user_data = def->user_data;
    cr_transform xa = a->xf, xb = b ? b->xf : cr_transform_identity();
    j->local_anchor_a = cr_transform_inv_point(xa, def->anchor);
    j->local_anchor_b = cr_transform_inv_point(xb, def->anchor);
    if (axis.x == 0 && axis.y == 0 && axis.z == 0) axis = cr_v3(0, CR_R(1), 0);
    j->local_axis_a = cr_quat_inv_rotate(xa.q, axis);
    j->local_axis_b = cr_quat_inv_rotate(xb.q, axis);
    j->rest = cr_quat_normalize(cr_quat_mul(cr_quat_conj(xa.q), xb.q));
    j->bend_strength = def->bend_strength;
    j->bend_damping = def->bend_damping;
    j->bend_damping_constant = def->bend_damping_constant;
    j->spring_stiffness = def->spring_stiffness;
    j->spring_damping = def->spring_damping;
    a->joint_count++;
    if (b) b->joint_count++;
    cri_world_wake(w, def->body_a.index1 - 1);
    if (b) cri_world_wake(w, def->body_b.index1 - 1);
    w->joint_count++;
    out->index1 = index + 1;
    out->generation = j->generation;
    return CR_OK;
}

static void joint_free(cr_world *w, uint32_t index) {
    cr_joint *j = &cr_world_joints(w)[index];
    cr_body *bodies = cr_world_bodies(w);
    if (j->a) bodies[j->a - 1].joint_count--;
    if (j->b) bodies[j->b - 1].joint_count--;
    j->alive = 0;
    cr_slot_release(cr_world_joints(w), sizeof *j, &w->free_joint, index);
    w->joint_count--;
}

cr_status cr_joint_destroy(cr_world *w, cr_joint_id id) {
    if (joint_of(w, id) == NULL) return CR_ERR_STALE_HANDLE;
    joint_free(w, id.index1 - 1);
    return CR_OK;
}

void cri_joints_remove_for_body(cr_world *w, uint32_t body_index1) {
    cr_joint *joints = cr_world_joints(w);
    for (uint32_t i = 0; i < w->joint_high; ++i)
        if (joints[i].alive && (joints[i].a == body_index1 || joints[i].b == body_index1)) joint_free(w, i);
}

bool cr_joint_is_valid(const cr_world *w, cr_joint_id id) { return joint_of_c(w, id) != NULL; }
uint32_t cr_world_get_joint_count(const cr_world *w) { return w ? w->joint_count : 0; }

cr_joint_type cr_joint_get_type(const cr_world *w, cr_joint_id id) {
    const cr_joint *j = joint_of_c(w, id);
    return j ? (cr_joint_type)j->type : CR_JOINT_POINT;
}

static cr_body_id body_handle(const cr_world *w, uint32_t index1) {
    cr_body_id id = {0, 0};
    if (index1 == 0) return id;
    id.index1 = index1;
    id.generation = cr_world_bodies_c(w)[index1 - 1].generation;
    return id;
}

cr_body_id cr_joint_get_body_a(const cr_world *w, cr_joint_id id) {
    const cr_joint *j = joint_of_c(w, id);
    cr_body_id none = {0, 0};
    return j ? body_handle(w, j->a) : none;
}

cr_body_id cr_joint_get_body_b(const cr_world *w, cr_joint_id id) {
    const cr_joint *j = joint_of_c(w, id);
    cr_body_id none = {0, 0};
    return j ? body_handle(w, j->b) : none;
}

cr_vec3 cr_joint_get_anchor_a(const cr_world *w, cr_joint_id id) {
    const cr_joint *j = joint_of_c(w, id);
    return j ? cr_transform_point(side_xf(w, j->a), j->local_anchor_a) : cr_v3_zero();
}

cr_vec3 cr_joint_get_anchor_b(const cr_world *w, cr_joint_id id) {
    const cr_joint *j = joint_of_c(w, id);
    return j ? cr_transform_point(side_xf(w, j->b), j->local_anchor_b) : cr_v3_zero();
}

cr_vec3 cr_joint_get_axis_a(const cr_world *w, cr_joint_id id) {
    const cr_joint *j = joint_of_c(w, id);
    return j ? cr_quat_rotate(side_xf(w, j->a).q, j->local_axis_a) : cr_v3_zero();
}

cr_vec3 cr_joint_get_axis_b(const cr_world *w, cr_joint_id id) {
    const cr_joint *j = joint_of_c(w, id);
    return j ? cr_quat_rotate(side_xf(w, j->b).q, j->local_axis_b) : cr_v3_zero();
}

cr_quat cr_joint_get_relative_orientation(const cr_world *w, cr_joint_id id) {
    const cr_joint *j = joint_of_c(w, id);
    if (j == NULL) return cr_quat_identity();
    return cr_quat_mul(cr_quat_conj(side_xf(w, j->a).q), side_xf(w, j->b).q);
}

cr_quat cr_joint_get_rest_orientation(const cr_world *w, cr_joint_id id) {
    const cr_joint *j = joint_of_c(w, id);
    return j ? j->rest : cr_quat_identity();
}

cr_status cr_joint_set_rest_orientation(cr_world *w, cr_joint_id id, cr_quat rest) {
    CR_TRY(cr_check_quat(w, rest, CR_FIELD_JOINT_REST));
    cr_joint *j = joint_of(w, id);
    if (j == NULL) return CR_ERR_STALE_HANDLE;
    j->rest = cr_quat_normalize(rest);
    return CR_OK;
}

cr_real cr_joint_get_hinge_angle(const cr_world *w, cr_joint_id id) {
    const cr_joint *j = joint_of_c(w, id);
    if (j == NULL) return 0;
    cr_quat rel = cr_quat_mul(cr_quat_conj(side_xf(w, j->a).q), side_xf(w, j->b).q);
    cr_quat d = cr_quat_mul(rel, cr_quat_conj(j->rest));
    cr_real s = cr_v3_dot(cr_v3(d.x, d.y, d.z), j->local_axis_a);
    cr_real angle = cr_atan2(s, d.w);
    angle = angle + angle;
    if (angle > CR_PI) angle -= CR_PI + CR_PI;
    if (angle <= -CR_PI) angle += CR_PI + CR_PI;
    return angle;
}

cr_vec3 cr_joint_get_linear_impulse(const cr_world *w, cr_joint_id id) {
    const cr_joint *j = joint_of_c(w, id);
    return j ? j->linear_impulse : cr_v3_zero();
}

cr_vec3 cr_joint_get_angular_impulse(const cr_world *w, cr_joint_id id) {
    const cr_joint *j = joint_of_c(w, id);
    return j ? j->angular_impulse : cr_v3_zero();
}

uint64_t cr_joint_get_user_data(const cr_world *w, cr_joint_id id) {
    const cr_joint *j = joint_of_c(w, id);
    return j ? j->user_data : 0;
}

/* ---- solver side ---- */

void cri_joints_collect_no_collide(cr_step *s) {
    const cr_joint *joints = cr_world_joints_c(s->w);
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->w->joint_high; ++i) {
        const cr_joint *j = &joints[i];
        if (!j->alive || j->collide_connected || j->b == 0) continue;
        uint32_t a = j->a - 1, b = j->b - 1;
        uint64_t key = a < b ? cr_pair_key(a, b) : cr_pair_key(b, a);
        /* insertion keeps the list sorted; joints are usually created in order, so this is short */
        uint32_t k = n++;
        while (k > 0 && s->no_collide[k - 1] > key) {
            s->no_collide[k] = s->no_collide[k - 1];
            --k;
        }
        s->no_collide[k] = key;
    }
    s->nno_collide = n;
}

bool cri_joints_pair_excluded(const cr_step *s, uint32_t a, uint32_t b) {
    uint64_t key = cr_pair_key(a, b);
    uint32_t lo = 0, hi = s->nno_collide;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (s->no_collide[mid] < key) lo = mid + 1;
        else hi = mid;
    }
    return lo < s->nno_collide && s->no_collide[lo] == key;
}

/* One side of a joint as the solver sees it: a pose (predicted or current)
 * and the solver body, or the world. */
typedef struct jside {
    cr_sbody *sb;       ///< NULL for the world
    cr_transform xf;
} jside;

static bool side_moves(const jside *j) { return j->sb != NULL && j->sb->dynamic; }

static cr_mat3 side_k(const jside *j, cr_vec3 r) {
    if (!side_moves(j)) return cr_mat3_scale(cr_mat3_identity(), 0);
    return cri_body_k(j->sb, r);
}

static cr_mat3 side_inv_i(const jside *j) {
    if (!side_moves(j)) return cr_mat3_scale(cr_mat3_identity(), 0);
    return j->sb->inv_i;
}

/* Velocity-level impulse: linear j at arms, angular l, on a (and minus on b). */
static void apply_velocity(jside *a, jside *b, cr_vec3 ra, cr_vec3 rb, cr_vec3 j, cr_vec3 l) {
    if (side_moves(a)) {
        a->sb->v = cr_v3_mad(a->sb->v, a->sb->inv_mass, j);
        a->sb->w = cr_v3_add(a->sb->w, cr_mat3_mul_v3(a->sb->inv_i, cr_v3_add(cr_v3_cross(ra, j), l)));
    }
    if (side_moves(b)) {
        b->sb->v = cr_v3_mad(b->sb->v, -b->sb->inv_mass, j);
        b->sb->w = cr_v3_sub(b->sb->w, cr_mat3_mul_v3(b->sb->inv_i, cr_v3_add(cr_v3_cross(rb, j), l)));
    }
}

/* Angular error theta (rad, world): the relative rotation of a with respect
 * to b that the joint asks for, at poses xa, xb. */
static cr_vec3 angular_error(const cr_joint *jt, cr_transform xa, cr_transform xb) {
    if (jt->type == CR_JOINT_HINGE) {
        cr_vec3 axa = cr_quat_rotate(xa.q, jt->local_axis_a);
        cr_vec3 axb = cr_quat_rotate(xb.q, jt->local_axis_b);
        return cr_v3_cross(axa, axb); /* turning a's axis onto b's */
    }
    /* fixed: b should be at q_a * rest; q_e takes q_b there */
    cr_quat target = cr_quat_mul(xa.q, jt->rest);
    cr_quat e = cr_quat_mul(target, cr_quat_conj(xb.q));
    cr_vec3 v = cr_v3(e.x, e.y, e.z);
    if (e.w < 0) v = cr_v3_neg(v);
    return cr_v3_scale(v, CR_R(-2)); /* b turns by +2v, i.e. a relative to b by -2v */
}

/* Angular impulse L with (I_a^-1 + I_b^-1) L = dw, across the hinge axis only for hinges. */
static cr_vec3 angular_impulse(const cr_joint *jt, cr_mat3 msum, cr_vec3 dw, cr_vec3 axis) {
    if (jt->type == CR_JOINT_FIXED) return cri_solve_k(msum, dw);
    /* two directions across the axis */
    cr_vec3 t1 = cr_abs(axis.x) < CR_R(0.57) ? cr_v3(CR_R(1), 0, 0) : cr_v3(0, CR_R(1), 0);
    t1 = cr_v3_normalize(cr_v3_cross(axis, t1));
    cr_vec3 t2 = cr_v3_cross(axis, t1);
    cr_vec3 m1 = cr_mat3_mul_v3(msum, t1), m2 = cr_mat3_mul_v3(msum, t2);
    cr_real a11 = cr_v3_dot(t1, m1), a12 = cr_v3_dot(t1, m2), a22 = cr_v3_dot(t2, m2);
    cr_real b1 = cr_v3_dot(t1, dw), b2 = cr_v3_dot(t2, dw);
    /* scale to ~1 before the determinant (fixed point) */
    cr_real tr = a11 + a22;
    if (tr <= CR_REAL_EPS) return cr_v3_zero();
    cr_real sc = cr_div(CR_R(2), tr);
    a11 = cr_mul(a11, sc);
    a12 = cr_mul(a12, sc);
    a22 = cr_mul(a22, sc);
    b1 = cr_mul(b1, sc);
    b2 = cr_mul(b2, sc);
    cr_real det = cr_mul(a11, a22) - cr_mul(a12, a12);
    if (det <= CR_REAL_EPS) return cr_v3_zero();
    cr_real l1 = cr_div(cr_mul(a22, b1) - cr_mul(a12, b2), det);
    cr_real l2 = cr_div(cr_mul(a11, b2) - cr_mul(a12, b1), det);
    return cr_v3_add(cr_v3_scale(t1, l1), cr_v3_scale(t2, l2));
}

/* Current pose of a side (no prediction). */
static jside side_now(cr_step *s, uint32_t index1) {
    jside j;
    j.sb = index1 ? &s->sb[index1 - 1] : NULL;
    j.xf = index1 ? s->bodies[index1 - 1].xf : cr_transform_identity();
    return j;
}

/* One velocity-level pass over a joint at the poses of a and b: the angular
 * condition first (the relative angular velocity across a hinge's axis, or all
 * of it for a fixed joint, becomes zero), then the linear one (the anchors'
 * relative velocity becomes zero), so the linear impulse, which the rest of
 * the body hangs on, is the last word. Returns the impulses applied. */
static uint32_t joint_velocity_pass(cr_joint *jt, jside *a, jside *b, bool accumulate) {
    uint32_t work = 0;
    if (jt->type != CR_JOINT_POINT) {
        cr_vec3 wa = side_moves(a) ? a->sb->w : cr_v3_zero(), wb = side_moves(b) ? b->sb->w : cr_v3_zero();
        cr_mat3 msum = cr_mat3_add(side_inv_i(a), side_inv_i(b));
        cr_vec3 axis = cr_quat_rotate(a->xf.q, jt->local_axis_a);
        cr_vec3 l = angular_impulse(jt, msum, cr_v3_sub(cr_v3_sub(wb, wa), jt->target_w), axis);
        if (accumulate && jt->bend_strength > 0) l = cri_plastic_clamp(jt, l);
        apply_velocity(a, b, cr_v3_zero(), cr_v3_zero(), cr_v3_zero(), l);
        if (accumulate) jt->angular_impulse = cr_v3_add(jt->angular_impulse, l);
        ++work;
    }
    cr_vec3 ra = cr_quat_rotate(a->xf.q, jt->local_anchor_a);
    cr_vec3 rb = cr_quat_rotate(b->xf.q, jt->local_anchor_b);
    cr_vec3 ua = side_moves(a) ? cr_v3_add(a->sb->v, cr_v3_cross(a->sb->w, ra)) : cr_v3_zero();
    cr_vec3 ub = side_moves(b) ? cr_v3_add(b->sb->v, cr_v3_cross(b->sb->w, rb)) : cr_v3_zero();
    cr_mat3 k = cr_mat3_add(side_k(a, ra), side_k(b, rb));
    cr_vec3 j = cri_solve_k(k, cr_v3_sub(ub, ua));
    apply_velocity(a, b, ra, rb, j, cr_v3_zero());
    if (accumulate) jt->linear_impulse = cr_v3_add(jt->linear_impulse, j);
    return work + 1;
}

/* A plastic joint that yielded this step, or still bends at a damped rate:
 * its rest orientation follows the bodies instead of holding them. */
static bool joint_bending(const cr_joint *jt) {
    return jt->bend_strength > 0 && (jt->yielded || jt->bend_rate.x != 0 || jt->bend_rate.y != 0 || jt->bend_rate.z != 0);
}

/* The relative angular velocity w_b - w_a a bending joint aims at in this
 * step's pre-stabilisation: an elastic joint's closed-form (phi_n+1 -
 * phi_n)/dt (elastic_joint.c), a yielding plastic joint's damped bend rate
 * (plastic_joint.c); zero for every rigid condition. */
static void pre_target(cr_step *s, cr_joint *jt) {
    jt->yielded = 0;
    jt->target_w = cr_v3_zero();
    if (jt->bend_strength > 0) {
        jt->target_w = cr_quat_rotate(s->bodies[jt->a - 1].xf.q, jt->bend_rate);
        return;
    }
    if (jt->spring_stiffness <= 0) return;
    jside a = side_now(s, jt->a), b = side_now(s, jt->b);
    cr_vec3 phi = angular_error(jt, a.xf, b.xf);
    cr_vec3 wa = side_moves(&a) ? a.sb->w : cr_v3_zero(), wb = side_moves(&b) ? b.sb->w : cr_v3_zero();
    cr_vec3 w_rel = cr_v3_sub(wb, wa);
    /* the one degree of freedom: the direction the joint is turned or turning in */
    cr_vec3 n = cr_v3_dot(phi, phi) > cr_v3_dot(w_rel, w_rel) ? phi : w_rel;
    cr_real len = cr_v3_len(n);
    cr_mat3 msum = cr_mat3_add(side_inv_i(&a), side_inv_i(&b));
    cr_real inertia = 0;
    if (len > 0) {
        n = cr_v3_scale(n, cr_div(CR_R(1), len));
        cr_real inv = cr_v3_dot(n, cr_mat3_mul_v3(msum, n));
        if (inv > 0) inertia = cr_div(CR_R(1), inv);
    }
    cr_real m[4];
    cri_spring_step_map(inertia, jt->spring_stiffness, jt->spring_damping, s->dt, m);
    cr_vec3 phi1 = cr_v3_add(cr_v3_scale(phi, m[0]), cr_v3_scale(w_rel, m[1]));
    cr_vec3 w1 = cr_v3_add(cr_v3_scale(phi, m[2]), cr_v3_scale(w_rel, m[3]));
    jt->target_w = cr_v3_scale(cr_v3_sub(phi1, phi), s->inv_dt);
    jt->spring_w_end = cr_quat_inv_rotate(a.xf.q, w1);
}

void cri_joints_pre_stabilise(cr_step *s) {
    cr_world *w = s->w;
    cr_joint *joints = cr_world_joints(w);
    uint32_t work = 0;
    for (uint32_t i = 0; i < w->joint_high; ++i) {
        joints[i].linear_impulse = cr_v3_zero();
        joints[i].angular_impulse = cr_v3_zero();
        if (joints[i].alive && joints[i].type == CR_JOINT_FIXED) pre_target(s, &joints[i]);
    }
    for (uint32_t it = 0; it < w->def.joint_iterations; ++it) {
        for (uint32_t i = 0; i < w->joint_high; ++i) {
            cr_joint *jt = &joints[i];
            if (!jt->alive) continue;
            jside a = side_now(s, jt->a);
            jside b = side_now(s, jt->b);
            if (!side_moves(&a) && !side_moves(&b)) continue;
            work += joint_velocity_pass(jt, &a, &b, true);
        }
    }
    w->stats.stage[CR_STAGE_joints].work += work;
}

/* a + b for energies, saturating: a hostile body's energy past the scalar's
 * range (or wrapped negative by cri_inertia_energy in fixed point) counts as
 * CR_REAL_MAX, which restore_energy then leaves alone, instead of overflowing */
static cr_real energy_sum(cr_real a, cr_real b) {
    if (a < 0 || b < 0 || a > CR_REAL_MAX - b) return CR_REAL_MAX;
    return a + b;
}

/* Twice the kinetic energy (J) of a moving side, its velocities taken from
 * the body (the position update has turned them with the body). */
static cr_real side_energy(const cr_step *s, const jside *j) {
    if (!side_moves(j)) return 0;
    const cr_body *b = &s->bodies[j->sb - s->sb];
    j->sb->v = b->v;
    j->sb->w = b->w;
    cr_real rot = cri_inertia_energy(b, cr_quat_inv_rotate(b->xf.q, b->w));
    return energy_sum(cr_mul(b->mass, cr_v3_dot(b->v, b->v)), rot);
}

/* Twice the kinetic energy of a side from the solver body's velocities. */
static cr_real side_energy_after(const cr_step *s, const jside *j) {
    if (!side_moves(j)) return 0;
    const cr_body *b = &s->bodies[j->sb - s->sb];
    cr_real rot = cri_inertia_energy(b, cr_quat_inv_rotate(b->xf.q, j->sb->w));
    return energy_sum(cr_mul(b->mass, cr_v3_dot(j->sb->v, j->sb->v)), rot);
}

/* The velocity projection at the end of the step takes from a swinging body
 * the part of its velocity that, turned with the body over the step, now
 * points out of the joint: a fraction (w dt)^2 of its kinetic energy each
 * step (a frictionless pendulum lost 4 % of its amplitude in 10 s). That
 * loss is the time discretisation's, not a physical one, and is given back
 * by scaling velocities, which keeps the joint satisfied (its conditions are
 * linear in the velocities). A larger loss is an inelastic joint impulse
 * (something pulled the joint apart): kept.
 *
 * A joint to the world (or to a body that does not move) scales the moving
 * side's velocities. A joint between two moving bodies scales only their
 * motion relative to the pair's rigid motion (V, Omega: the pair's momentum
 * over its mass, its angular momentum about its centre of mass through its
 * inertia there), v_i -> V + Omega x r_i + f (v_i - V - Omega x r_i),
 * w_i -> Omega + f (w_i - Omega): the relative motion carries no momentum
 * and no angular momentum, so the pair keeps both exactly (to rounding),
 * where scaling both velocities gave a pair with momentum P back f P
 * (linear drift 6e-5 over a jointed hit, docs/bending.md "Momentum"). The
 * rigid motion meets the joint too. At most CR_JOINT_RESTORE_MAX of the
 * relative motion's energy is given back per step: a pair turning as one
 * body loses energy to the projection only on paper (its angular momentum
 * and inertia are the same, so is its energy), and there is no relative
 * motion to give it to. */
static void restore_energy(cr_step *s, jside *a, jside *b, cr_real e0) {
    cr_real e1 = energy_sum(side_energy_after(s, a), side_energy_after(s, b));
    cr_real f = CR_R(1);
    bool lost = e1 > 0 && e1 < e0 && e0 - e1 <= cr_mul(e0, CR_JOINT_RESTORE_MAX);
    cr_vec3 vr = cr_v3_zero(), wr = cr_v3_zero(), c = cr_v3_zero(); /* the rigid motion, and its centre */
    const bool both = side_moves(a) && side_moves(b);
    const cr_body *const bs[2] = {both ? &s->bodies[a->sb - s->sb] : NULL, both ? &s->bodies[b->sb - s->sb] : NULL};
    const cr_vec3 v[2] = {both ? a->sb->v : cr_v3_zero(), both ? b->sb->v : cr_v3_zero()};
    const cr_vec3 w[2] = {both ? a->sb->w : cr_v3_zero(), both ? b->sb->w : cr_v3_zero()};
    const bool pair = both && cri_pair_in_range(bs, v, w); /* else each side is scaled alone, as with the world */
    if (lost && pair) {
        cri_pair_mass pm = cri_pair_mass_of(bs);
        c = pm.c;
        cr_real ei = cri_pair_rigid(bs, &pm, v, w, &vr, &wr);
        cr_real loss = e0 - e1, cap = CR_JOINT_RESTORE_MAX;
        if (ei > 0) f = cr_sqrt(CR_R(1) + (loss >= cr_mul(ei, cap) ? cap : cr_div(loss, ei)));
    } else if (lost) {
        f = cr_sqrt(cr_div(e0, e1));
    }
    for (int k = 0; k < 2; ++k) {
        jside *j = k ? b : a;
        if (!side_moves(j)) continue;
        cr_body *body = &s->bodies[j->sb - s->sb];
        if (f != CR_R(1) && pair) {
            cri_pair_scale_relative(body, &j->sb->v, &j->sb->w, vr, wr, c, f);
        } else {
            j->sb->v = cr_v3_scale(j->sb->v, f);
            j->sb->w = cr_v3_scale(j->sb->w, f);
        }
        body->v = j->sb->v;
        body->w = j->sb->w;
    }
}

/* A body turned by the position sweeps keeps the angular momentum of its
 * spin, I(q0) w (world frame): w becomes I(q)^-1 I(q0) w. Keeping w instead
 * would change that momentum for a body whose principal moments differ (the
 * position update keeps it too: world.c). Before the sweeps *h = I(q0) w;
 * after them w = I(q)^-1 h. The solver body's w (sb->w) holds h meanwhile:
 * nothing reads it between the position update and the velocity passes,
 * which take the velocities from the bodies again (side_energy). */
static bool spin_kept(const cr_body *b, const cr_sbody *sb) {
    return sb->dynamic && b->joint_count > 0 && !cri_inertia_round(b);
}

/* Position-level impulse: moves a by P/m and turns it by I^-1 (r x P + L); b
 * the opposite. The bodies keep their velocities, so the moves would change
 * the angular momentum about a fixed point: the turns that of each spin (kept
 * across the sweeps: spin_kept), the moves that of the pair's motion, by P x (v_a - v_b) (summed
 * per joint, given back after the sweeps as a rigid turn of the pair:
 * cri_pair_turn, bending joints only). Measured over a jointed hit with no
 * gravity and no contact, this was the drift of angular momentum (2.3e-3
 * relative on the pipe bent by a blow, 1.8e-2 with elastic joints; 1.7e-6 and
 * 1.8e-6 now: docs/bending.md "Momentum"). A joint to the world or to a body
 * that does not move takes what it takes, as its impulses do. */
static void apply_position(cr_body *ba, cr_body *bb, const jside *a, const jside *b, cr_vec3 ra, cr_vec3 rb,
                           cr_vec3 p, cr_vec3 l, cr_vec3 *moved) { /* *moved: += the pair's shift P x (v_a - v_b) */
    bool both = side_moves(a) && side_moves(b);
    if (both) *moved = cr_v3_add(*moved, cr_v3_cross(p, cr_v3_sub(ba->v, bb->v)));
    if (side_moves(a)) {
        ba->xf.p = cr_v3_mad(ba->xf.p, a->sb->inv_mass, p);
        cr_vec3 dth = cr_mat3_mul_v3(a->sb->inv_i, cr_v3_add(cr_v3_cross(ra, p), l));
        ba->xf.q = cr_quat_integrate(ba->xf.q, dth, CR_R(1));
    }
    if (side_moves(b)) {
        bb->xf.p = cr_v3_mad(bb->xf.p, -b->sb->inv_mass, p);
        cr_vec3 dth = cr_mat3_mul_v3(b->sb->inv_i, cr_v3_add(cr_v3_cross(rb, p), l));
        bb->xf.q = cr_quat_integrate(bb->xf.q, cr_v3_neg(dth), CR_R(1));
    }
}

/* The relative angular velocity a joint ends the step with: an elastic
 * joint's closed-form w_n+1, a bending joint's damped rate (which is kept as
 * its bend rate for the next step), zero for a rigid one. */
static void post_target(cr_step *s, cr_joint *jt, const jside *a, const jside *b) {
    jt->target_w = cr_v3_zero();
    cr_quat qa = s->bodies[jt->a - 1].xf.q;
    if (jt->spring_stiffness > 0) {
        jt->target_w = cr_quat_rotate(qa, jt->spring_w_end);
    } else if (joint_bending(jt)) {
        cr_vec3 wa = side_moves(a) ? a->sb->w : cr_v3_zero(), wb = side_moves(b) ? b->sb->w : cr_v3_zero();
        jt->target_w = cri_plastic_damped_rate(jt, cr_v3_sub(wb, wa), s->dt);
        jt->bend_rate = cr_quat_inv_rotate(qa, jt->target_w);
    }
}

void cri_joints_post_stabilise(cr_step *s) {
    cr_world *w = s->w;
    cr_joint *joints = cr_world_joints(w);
    uint32_t iterations = w->def.joint_iterations, work = 0;
    /* positions: the drift the step's motion left (a swinging link moves
     * along its tangent, off its circle), removed by moving the bodies; a
     * chain converges slowly by sweeps, so up to four times the iterations,
     * stopping once no joint is off by more than CR_JOINT_TOLERANCE; each
     * joint's target_w (set again before the velocity passes use it) sums
     * the angular momentum its moves shifted, given back below */
    for (uint32_t i = 0; i < w->joint_high; ++i) joints[i].target_w = cr_v3_zero();
    for (uint32_t i = 0; i < w->body_high && iterations > 0; ++i)
        if (spin_kept(&s->bodies[i], &s->sb[i])) s->sb[i].w = cri_inertia_spin_momentum(&s->bodies[i], s->bodies[i].xf.q, s->bodies[i].w);
    for (uint32_t it = 0; it < 4u * iterations; ++it) {
        cr_real worst = 0;
        for (uint32_t i = 0; i < w->joint_high; ++i) {
            cr_joint *jt = &joints[i];
            if (!jt->alive) continue;
            cr_body *ba = jt->a ? &s->bodies[jt->a - 1] : NULL;
            cr_body *bb = jt->b ? &s->bodies[jt->b - 1] : NULL;
            jside a = {jt->a ? &s->sb[jt->a - 1] : NULL, ba ? ba->xf : cr_transform_identity()};
            jside b = {jt->b ? &s->sb[jt->b - 1] : NULL, bb ? bb->xf : cr_transform_identity()};
            if (!side_moves(&a) && !side_moves(&b)) continue;
            if (jt->type != CR_JOINT_POINT && jt->spring_stiffness <= 0 && !joint_bending(jt)) {
                /* angular first, then linear, as in the velocity passes (a
                 * spring or a bending joint has no angular position to hold) */
                cr_vec3 theta = angular_error(jt, a.xf, b.xf);
                worst = cr_max(worst, cr_max(cr_abs(theta.x), cr_max(cr_abs(theta.y), cr_abs(theta.z))));
                cr_mat3 msum = cr_mat3_add(side_inv_i(&a), side_inv_i(&b));
                cr_vec3 axis = cr_quat_rotate(a.xf.q, jt->local_axis_a);
                cr_vec3 l = angular_impulse(jt, msum, theta, axis);
                apply_position(ba, bb, &a, &b, cr_v3_zero(), cr_v3_zero(), cr_v3_zero(), l, &jt->target_w);
                a.xf = ba ? ba->xf : cr_transform_identity();
                b.xf = bb ? bb->xf : cr_transform_identity();
                ++work;
            }
            cr_vec3 ra = cr_quat_rotate(a.xf.q, jt->local_anchor_a);
            cr_vec3 rb = cr_quat_rotate(b.xf.q, jt->local_anchor_b);
            cr_vec3 e = cr_v3_sub(cr_v3_add(a.xf.p, ra), cr_v3_add(b.xf.p, rb));
            worst = cr_max(worst, cr_max(cr_abs(e.x), cr_max(cr_abs(e.y), cr_abs(e.z))));
            cr_mat3 k = cr_mat3_add(side_k(&a, ra), side_k(&b, rb));
            cr_vec3 p = cri_solve_k(k, cr_v3_neg(e));
            apply_position(ba, bb, &a, &b, ra, rb, p, cr_v3_zero(), &jt->target_w);
            ++work;
        }
        if (worst < CR_JOINT_TOLERANCE) break;
    }
    for (uint32_t i = 0; i < w->body_high && iterations > 0; ++i) {
        if (!spin_kept(&s->bodies[i], &s->sb[i])) continue;
        s->bodies[i].w = cri_inertia_spin_of(&s->bodies[i], s->bodies[i].xf.q, s->sb[i].w);
        s->sb[i].w = s->bodies[i].w; /* as the velocity passes will take it */
    }
    /* the angular momentum the moves shifted, given back to each pair once (cri_pair_turn) */
    for (uint32_t i = 0; i < w->joint_high; ++i) {
        cr_joint *jt = &joints[i];
        cr_vec3 moved = jt->target_w;
        jt->target_w = cr_v3_zero();
        if (!jt->alive || jt->a == 0 || jt->b == 0 || (moved.x == 0 && moved.y == 0 && moved.z == 0)) continue;
        if (jt->bend_strength <= 0 && jt->spring_stiffness <= 0) continue; /* bending joints only: see cri_pair_turn */
        if (!s->sb[jt->a - 1].dynamic || !s->sb[jt->b - 1].dynamic) continue;
        cri_pair_turn(&s->bodies[jt->a - 1], &s->bodies[jt->b - 1], cr_v3_neg(moved));
    }
    /* plastic deformation: a bending joint's rest is where the bodies now are */
    for (uint32_t i = 0; i < w->joint_high; ++i) {
        cr_joint *jt = &joints[i];
        if (!jt->alive || !joint_bending(jt)) continue;
        cr_quat qb = jt->b ? s->bodies[jt->b - 1].xf.q : cr_quat_identity();
        jt->rest = cr_quat_normalize(cr_quat_mul(cr_quat_conj(s->bodies[jt->a - 1].xf.q), qb));
    }
    /* velocity-level post-stabilisation: the velocities meet the joints at
     * the poses the step ends with, and the kinetic energy the projection
     * takes is given back (restore_energy) */
    for (uint32_t it = 0; it < iterations; ++it) {
        for (uint32_t i = 0; i < w->joint_high; ++i) {
            cr_joint *jt = &joints[i];
            if (!jt->alive) continue;
            jside a = side_now(s, jt->a);
            jside b = side_now(s, jt->b);
            if (!side_moves(&a) && !side_moves(&b)) continue;
            cr_real e0 = energy_sum(side_energy(s, &a), side_energy(s, &b)); /* also takes the bodies' velocities */
            bool plain = true;
            if (it == 0 && jt->type == CR_JOINT_FIXED) post_target(s, jt, &a, &b);
            if (jt->spring_stiffness > 0 || joint_bending(jt)) plain = false; /* their loss is the damping's */
            work += joint_velocity_pass(jt, &a, &b, false);
            restore_energy(s, &a, &b, it == 0 && plain ? e0 : 0); /* writes them back */
        }
    }
    w->stats.stage[CR_STAGE_joints].work += work;
}
