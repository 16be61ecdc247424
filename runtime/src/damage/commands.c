/* commands.c — deferred world commands: bodies and joints that damage models
 * create or destroy (fracture makes pieces, bending splits bones) and other
 * bodies they move (a dent's projectile), queued during the stage and applied
 * by the world at the end of the step: a model changes no body but its own
 * while the stage runs.
 *
 * The queue is bounded (damage.command_capacity) and applied in the order the
 * commands were queued, which is deterministic because the models run in a
 * fixed order over their bodies in slot order. A full queue refuses the new
 * command (counted in stats.stage[damage].overflow); the model keeps that
 * work for a later step. A create the world refuses for a capacity stays at
 * the front of the queue for the next step, in order, never dropped.
 */
#include "damage/stage.h"
#include "base/hash.h"

#include <string.h>

static cr_status push(cr_world *w, const cr_command *c) {
    if (w == NULL) return CR_ERR_NULL_ARGUMENT;
    if (CR_DAMAGE(w)->command_count >= w->def.damage.command_capacity) {
        CR_DAMAGE(w)->command_refused++;
        return CR_ERR_CAPACITY;
    }
    CR_AT(w, CR_DAMAGE(w)->commands, cr_command)[CR_DAMAGE(w)->command_count++] = *c;
    return CR_OK;
}

static cr_command blank(cr_command_type type) {
    cr_command c;
    memset(&c, 0, sizeof c);
    c.type = type;
    return c;
}

cr_status cr_damage_defer_body_create(cr_world *w, const cr_body_def *def) {
    if (def == NULL) return CR_ERR_NULL_ARGUMENT;
    cr_command c = blank(CR_COMMAND_BODY_CREATE);
    c.body_def = *def;
    return push(w, &c);
}

cr_status cr_damage_defer_body_destroy(cr_world *w, cr_body_id body) {
    cr_command c = blank(CR_COMMAND_BODY_DESTROY);
    c.body = body;
    return push(w, &c);
}

cr_status cr_damage_defer_joint_create(cr_world *w, const cr_joint_def *def) {
    if (def == NULL) return CR_ERR_NULL_ARGUMENT;
    cr_command c = blank(CR_COMMAND_JOINT_CREATE);
    c.joint_def = *def;
    return push(w, &c);
}

cr_status cri_damage_defer_body_move(cr_world *w, cr_body_id body, cr_vec3 by) {
    cr_command c = blank(CR_COMMAND_BODY_MOVE);
    c.body = body;
    c.by = by;
    return push(w, &c);
}

cr_status cr_damage_defer_joint_destroy(cr_world *w, cr_joint_id joint) {
    cr_command c = blank(CR_COMMAND_JOINT_DESTROY);
    c.joint = joint;
    return push(w, &c);
}

/* A model that must know the handles it made (fracture's pieces) names block
 * offsets: the create writes its handle there when it is applied, and a
 * joint reads its bodies from there, so a joint between two bodies made in
 * the same step is queued before either exists. */
cr_status cri_damage_defer_body_create_into(cr_world *w, const cr_body_def *def, uint32_t id_out) {
    cr_command c = blank(CR_COMMAND_BODY_CREATE);
    c.body_def = *def;
    c.id_out = id_out;
    return push(w, &c);
}

cr_status cri_damage_defer_joint_create_between(cr_world *w, const cr_joint_def *def, uint32_t a_from, uint32_t b_from,
                                                uint32_t id_out) {
    cr_command c = blank(CR_COMMAND_JOINT_CREATE);
    c.joint_def = *def;
    c.a_from = a_from, c.b_from = b_from, c.id_out = id_out;
    return push(w, &c);
}

uint32_t cri_damage_commands_room(const cr_world *w) {
    return w->def.damage.command_capacity - CR_DAMAGE(w)->command_count;
}

void cri_damage_commands_apply(cr_world *w) {
    cr_command *q = CR_AT(w, CR_DAMAGE(w)->commands, cr_command);
    uint32_t kept = 0, applied = 0;
    for (uint32_t i = 0; i < CR_DAMAGE(w)->command_count; ++i) {
        cr_command *c = &q[i];
        cr_status s = CR_OK;
        switch ((cr_command_type)c->type) {
        case CR_COMMAND_BODY_CREATE: {
            cr_body_id id;
            s = cr_body_create(w, &c->body_def, &id);
            if (s == CR_OK && c->id_out != 0) *CR_AT(w, c->id_out, cr_body_id) = id;
            break;
        }
        case CR_COMMAND_BODY_DESTROY: s = cr_body_destroy(w, c->body); break;
        case CR_COMMAND_JOINT_CREATE: {
            cr_joint_id id;
            if (c->a_from != 0) c->joint_def.body_a = *CR_AT(w, c->a_from, cr_body_id);
            if (c->b_from != 0) c->joint_def.body_b = *CR_AT(w, c->b_from, cr_body_id);
            s = cr_joint_create(w, &c->joint_def, &id);
            if (s == CR_OK && c->id_out != 0) *CR_AT(w, c->id_out, cr_joint_id) = id;
            break;
        }
        case CR_COMMAND_JOINT_DESTROY: s = cr_joint_destroy(w, c->joint); break;
        case CR_COMMAND_BODY_MOVE: {
            cr_body *b = cri_world_body(w, c->body);
            if (b != NULL) b->xf.p = cr_v3_add(b->xf.p, c->by);
            else s = CR_ERR_STALE_HANDLE;
            break;
        }
        }
        if (s == CR_ERR_CAPACITY) {
            if (kept != i) q[kept] = *c;
            ++kept;
            continue;
        }
        if (s != CR_OK) cri_world_log(w, CR_LOG_WARN, "damage: a deferred command was refused (stale handle or bad def)");
        ++applied;
    }
    CR_DAMAGE(w)->command_count = kept;
    w->stats.commands_applied = applied;
    w->stats.commands_waiting = kept + CR_DAMAGE(w)->command_refused;
    CR_DAMAGE(w)->command_refused = 0;
}

uint64_t cri_damage_commands_hash(const cr_world *w, uint64_t h) {
    if (CR_DAMAGE(w)->command_count == 0) return h; /* worlds that never defer hash as before */
    h = cr_hash_u32(h, CR_DAMAGE(w)->command_count);
    const cr_command *q = CR_AT(w, CR_DAMAGE(w)->commands, const cr_command);
    for (uint32_t i = 0; i < CR_DAMAGE(w)->command_count; ++i) {
        h = cr_hash_u32(h, q[i].type);
        h = cr_hash_u32(h, q[i].body.index1);
        h = cr_hash_u32(h, q[i].joint.index1);
        h = cr_hash_vec3(h, q[i].body_def.position);
        if (q[i].type == CR_COMMAND_BODY_MOVE) h = cr_hash_vec3(h, q[i].by);
    }
    return h;
}
