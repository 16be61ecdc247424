/* input.c — input commands applied in canonical order, per-body state hashes,
 * and the state-layout id (see crumple/input.h).
 *
 * Notes
 *   - The runtime has no heap and the input array is the caller's (const), so
 *     the canonical order is produced by selection: each round finds the
 *     smallest record greater than the last one applied. Identical records
 *     compare equal and are applied together, which is harmless because
 *     applying either first gives the same bits.
 *   - Payload reals are compared by their bit patterns read as unsigned
 *     integers, never by memcmp (host byte order) nor by value (-0 == +0 and
 *     NaN would break a total order).
 *   - Every effect goes through the public body calls, so an input does
 *     exactly what the same call from the game would do.
 *   - The per-body hash uses the same little-endian FNV-1a serialisation as
 *     cr_world_state_hash (hash.h) over the body fields that hash covers
 *     (rigid state and sleep state). Dented vertices, joints and events are
 *     in the world hash only: when the world differs and no body does, the
 *     difference is there.
 */
#include "base/block.h"
#include "base/hash.h"
#include "base/check.h"
#include "crumple/input.h"

#include <string.h>


static uint64_t real_bits(cr_real r) {
#if CR_FIXED
    return (uint64_t)r;
#else
    uint32_t u;
    memcpy(&u, &r, sizeof u);
    return u;
#endif
}

static int cmp_u64(uint64_t x, uint64_t y) { return x < y ? -1 : (x > y ? 1 : 0); }

int cr_input_compare(const cr_input *x, const cr_input *y) {
    int c;
    if ((c = cmp_u64(x->seq, y->seq)) != 0) return c;
    if ((c = cmp_u64(x->body.index1, y->body.index1)) != 0) return c;
    if ((c = cmp_u64(x->body.generation, y->body.generation)) != 0) return c;
    if ((c = cmp_u64(x->type, y->type)) != 0) return c;
    if ((c = cmp_u64((uint32_t)x->frame, (uint32_t)y->frame)) != 0) return c;
    if ((c = cmp_u64(x->flags, y->flags)) != 0) return c;
    const cr_real rx[11] = {x->time, x->a.x, x->a.y, x->a.z, x->b.x, x->b.y, x->b.z, x->q.x, x->q.y, x->q.z, x->q.w};
    const cr_real ry[11] = {y->time, y->a.x, y->a.y, y->a.z, y->b.x, y->b.y, y->b.z, y->q.x, y->q.y, y->q.z, y->q.w};
    for (int i = 0; i < 11; ++i)
        if ((c = cmp_u64(real_bits(rx[i]), real_bits(ry[i]))) != 0) return c;
    return 0;
}

/* Velocities that carry the body from where it is onto the target in `time`
 * seconds: the straight line, and the shortest rotation about one axis. */
static cr_status apply_target(cr_world *w, const cr_input *in) {
    cr_transform now = cr_body_get_transform(w, in->body);
    cr_real inv_t = cr_div(CR_R(1), in->time);
    cr_vec3 v = cr_v3_scale(cr_v3_sub(in->a, now.p), inv_t);
    cr_vec3 av = cr_v3_zero();
    if (in->flags & CR_INPUT_HAS_ORIENTATION) {
        cr_quat dq = cr_quat_mul(in->q, cr_quat_conj(now.q));
        if (dq.w < 0) {
            dq.x = -dq.x, dq.y = -dq.y, dq.z = -dq.z, dq.w = -dq.w;
        }
        cr_real len;
        cr_vec3 axis = cr_v3_normalize_len(cr_v3(dq.x, dq.y, dq.z), &len);
        cr_real angle = cr_mul(CR_R(2), cr_atan2(len, dq.w));
        av = cr_v3_scale(axis, cr_mul(angle, inv_t));
    }
    return cr_body_set_velocity(w, in->body, v, av);
}

/* A record read from a file or the network is checked whole before it acts:
 * a NaN in any payload field refuses the record, naming the field. q is only
 * an orientation for the types that use it (elsewhere it is zero). */
static cr_status check_input(cr_world *w, const cr_input *in) {
    if (in->type < CR_INPUT_TYPE_MIN || in->type > CR_INPUT_TYPE_MAX) return cri_refuse(w, CR_ERR_ARGUMENT_RANGE, CR_FIELD_INPUT_TYPE);
    if ((in->flags & ~CR_INPUT_FLAGS_ALL) != 0) return cri_refuse(w, CR_ERR_ARGUMENT_RANGE, CR_FIELD_INPUT_FLAGS);
    CR_TRY(cr_check_real(w, in->time, CR_FIELD_INPUT_TIME));
    CR_TRY(cr_check_vec3(w, in->a, CR_FIELD_INPUT_A));
    CR_TRY(cr_check_vec3(w, in->b, CR_FIELD_INPUT_B));
    bool oriented = in->type == CR_INPUT_SET_TRANSFORM ||
                    (in->type == CR_INPUT_KINEMATIC_TARGET && (in->flags & CR_INPUT_HAS_ORIENTATION));
    if (oriented) return cr_check_quat(w, in->q, CR_FIELD_INPUT_Q);
    return cr_quat_is_finite(in->q) ? CR_OK : cri_refuse(w, CR_ERR_NOT_FINITE, CR_FIELD_INPUT_Q);
}

static cr_status apply_one(cr_world *w, const cr_input *in) {
    CR_TRY(check_input(w, in));
    if (!cr_body_is_valid(w, in->body)) return cri_refuse(w, CR_ERR_STALE_HANDLE, CR_FIELD_NONE);
    cr_vec3 at = (in->flags & CR_INPUT_AT_CENTER) ? cr_body_get_transform(w, in->body).p : in->b;
    switch ((cr_input_type)in->type) {
    case CR_INPUT_IMPULSE: return cr_body_apply_impulse(w, in->body, in->a, at);
    case CR_INPUT_FORCE: return cr_body_apply_force(w, in->body, in->a, at);
    case CR_INPUT_TORQUE: return cr_body_apply_torque(w, in->body, in->a);
    case CR_INPUT_SET_VELOCITY: return cr_body_set_velocity(w, in->body, in->a, in->b);
    case CR_INPUT_SET_TRANSFORM: {
        cr_transform t;
        t.p = in->a;
        t.q = in->q;
        return cr_body_set_transform(w, in->body, t);
    }
    case CR_INPUT_KINEMATIC_TARGET:
            /* a time so short that 1/time overflows is as useless as 0 */
        if (in->time <= 0 || !cr_real_is_finite(cr_div(CR_R(1), in->time)))
            return cri_refuse(w, CR_ERR_ARGUMENT_RANGE, CR_FIELD_INPUT_TIME);
        return apply_target(w, in);
    case CR_INPUT_DESTROY: return cr_body_destroy(w, in->body);
    }
    return cri_refuse(w, CR_ERR_ARGUMENT_RANGE, CR_FIELD_INPUT_TYPE);
}

cr_status cr_world_apply_inputs(cr_world *w, const cr_input *inputs, uint32_t count) {
    if (w == NULL || (inputs == NULL && count > 0)) return CR_ERR_NULL_ARGUMENT;
    cr_status first = CR_OK;
    uint32_t first_field = 0; /* the first failure's field is the one reported */
    const cr_input *last = NULL;
    for (;;) {
        const cr_input *next = NULL;
        for (uint32_t i = 0; i < count; ++i) {
            const cr_input *c = &inputs[i];
            if (last != NULL && cr_input_compare(c, last) <= 0) continue;
            if (next == NULL || cr_input_compare(c, next) < 0) next = c;
        }
        if (next == NULL) break;
        for (uint32_t i = 0; i < count; ++i) {
            if (cr_input_compare(&inputs[i], next) != 0) continue;
            cr_status s = apply_one(w, &inputs[i]);
            if (s != CR_OK && first == CR_OK) first = s, first_field = w->refused_field;
        }
        last = next;
    }
    if (first != CR_OK) w->refused_field = first_field;
    return first;
}

static bool id_less(cr_body_id x, cr_body_id y) {
    return x.index1 != y.index1 ? x.index1 < y.index1 : x.generation < y.generation;
}

uint32_t cr_body_hashes_diff(const cr_body_hash *x, uint32_t nx, const cr_body_hash *y, uint32_t ny, cr_body_id *out,
                             uint32_t capacity) {
    if ((x == NULL && nx > 0) || (y == NULL && ny > 0)) return 0;
    uint32_t i = 0, j = 0, n = 0;
    while (i < nx || j < ny) {
        cr_body_id id;
        bool differ;
        if (j >= ny || (i < nx && id_less(x[i].id, y[j].id))) {
            id = x[i++].id, differ = true;
        } else if (i >= nx || id_less(y[j].id, x[i].id)) {
            id = y[j++].id, differ = true;
        } else {
            id = x[i].id;
            differ = x[i].hash != y[j].hash;
            ++i, ++j;
        }
        if (!differ) continue;
        if (out != NULL && n < capacity) out[n] = id;
        ++n;
    }
    return n;
}
