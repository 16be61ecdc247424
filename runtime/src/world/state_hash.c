/* state_hash.c — the state hash: every piece of state a step reads, mixed in
 * a fixed order, in this one file; each damage model mixes its own state
 * through cri_damage_hash (damage/stage.c), in the stage's fixed model order.
 *
 * The schema below names what is hashed, and cr_state_layout_id hashes the
 * schema, so a replay recorded by a build that hashed other fields is
 * reported as made by a different build instead of as a desync. Change the
 * schema in the same commit as any change to what is hashed here or in a
 * model's _hash function.
 */
#include "base/block.h"
#include "damage/stage.h"
#include "soft/mass_spring.h"
#include "solver/touch.h"
#include "base/hash.h"
#include "crumple/input.h"

#include <string.h>

static const char state_schema[] =
    "crumple-state-10;"
    "world:step_count,body_count;"
    "body:slot,generation,type,position,orientation,linear_velocity,angular_velocity,force,torque,mass,"
    "asleep,island,sleep_time,no_sleep,finite_position,finite_orientation,[filter],[gravity_scale,linear_damping,angular_damping,disabled,sensor],[material];"
    "joint:slot,generation,type,a,b,anchor_a,anchor_b,rest,linear_impulse,angular_impulse,[bending joints: bend_rate,spring_w_end];"
    "surface:body,positions,patch_digest;"
    "dent:body,dent_count,site_point,site_distance,queue_count,[job_phase,job_side,job_row,job_digest];"
    "example:body,restitution,weights,pending,queue_count;"
    "bend:body,bones,skinned,splits,dirty,dent_count,[rest_surface],[weights,owners],sub_body,joint,centre,segment,parent,cluster,quiet,[rel],samples,nodes,skin,queue;"
    "squash:body,zone_count,zone,volume,bulge_scale,model_bias,widen,posed,[posed_grid_digest,sweep,sweep_again,sweep_next,posed_rest],[sculpt_grid,deepest];"
    "fracture:actor,whole,broken,spawned,bond_health,piece_body,stress_u,queue_count,carry_actor,carry_piece,carry_phase,carry_row;"
    "custom:body,state;"
    "spring:count,next_body,slot,generation,asleep,sleep_time,positions,velocities;"
    "commands:count,type,body,joint,position;"
    "warm:count,pair,feature,generations,jn,jt;"
    "event:a,b,point,normal,relative_velocity,normal_speed,impulse;"
    "[sensor:count,sensor,visitor,event_count,begin];"
    "[touch:count,a,b,generations,normal,points,phi,jn,jn_total,jt_total,event_count,kind,point,speed]";

uint64_t cri_body_hash_into(uint64_t h, const cr_body *b, uint32_t slot) {
    h = cr_hash_u32(h, slot);
    h = cr_hash_u32(h, b->generation);
    h = cr_hash_u32(h, b->type);
    h = cr_hash_vec3(h, b->xf.p);
    h = cr_hash_quat(h, b->xf.q);
    h = cr_hash_vec3(h, b->v);
    h = cr_hash_vec3(h, b->w);
    h = cr_hash_vec3(h, b->force);
    h = cr_hash_vec3(h, b->torque);
    h = cr_hash_real(h, b->mass);
    h = cr_hash_u32(h, b->asleep);
    h = cr_hash_u32(h, b->asleep ? b->island : 0);
    h = cr_hash_real(h, b->sleep_time);
    h = cr_hash_u32(h, b->no_sleep);
    h = cr_hash_vec3(h, b->finite_p);
    h = cr_hash_quat(h, b->finite_q);
    /* a filter changes which pairs the step sees; the default one hashes
     * nothing, so worlds without filters keep their hashes */
    const cr_filter f = b->filter;
    if (f.category_bits != 1 || f.mask_bits != ~(uint64_t)0 || f.group_index != 0) {
        h = cr_hash_u64(h, f.category_bits);
        h = cr_hash_u64(h, f.mask_bits);
        h = cr_hash_u32(h, (uint32_t)f.group_index);
    }
    /* so does every setting a setter changes; at their defaults they hash nothing */
    if (b->gravity_scale != CR_R(1) || b->linear_damping != 0 || b->angular_damping != 0 || b->disabled || b->sensor) {
        h = cr_hash_real(h, b->gravity_scale);
        h = cr_hash_real(h, b->linear_damping);
        h = cr_hash_real(h, b->angular_damping);
        h = cr_hash_u32(h, b->disabled);
        h = cr_hash_u32(h, b->sensor);
    }
    /* a body's material from its def is part of the scene, like its shape;
     * once a setter changed it, it is state */
    if (b->material_set) {
        const cr_material *m = &b->material;
        h = cr_hash_real(h, m->density);
        h = cr_hash_real(h, m->restitution);
        h = cr_hash_real(h, m->friction);
        h = cr_hash_real(h, m->rolling_friction);
        h = cr_hash_real(h, m->spinning_friction);
    }
    return h;
}

uint64_t cr_world_state_hash(const cr_world *w) {
    uint64_t h = CR_HASH_SEED;
    if (w == NULL) return h;
    h = cr_hash_u64(h, w->step_count);
    h = cr_hash_u32(h, w->body_count);
    const cr_body *bodies = cr_world_bodies_c(w);
    for (uint32_t i = 0; i < w->body_high; ++i) {
        const cr_body *b = &bodies[i];
        if (b->alive) h = cri_body_hash_into(h, b, i);
    }
    h = cr_hash_u32(h, w->joint_count);
    const cr_joint *joints = cr_world_joints_c(w);
    for (uint32_t i = 0; i < w->joint_high; ++i) {
        const cr_joint *j = &joints[i];
        if (!j->alive) continue;
        h = cr_hash_u32(h, i);
        h = cr_hash_u32(h, j->generation);
        h = cr_hash_u32(h, j->type);
        h = cr_hash_u32(h, j->a);
        h = cr_hash_u32(h, j->b);
        h = cr_hash_vec3(h, j->local_anchor_a);
        h = cr_hash_vec3(h, j->local_anchor_b);
        h = cr_hash_quat(h, j->rest);
        h = cr_hash_vec3(h, j->linear_impulse);
        h = cr_hash_vec3(h, j->angular_impulse);
        if (j->bend_strength > 0 || j->spring_stiffness > 0) { /* only bending joints: rigid ones hash as before */
            h = cr_hash_vec3(h, j->bend_rate);
            h = cr_hash_vec3(h, j->spring_w_end);
        }
    }
    h = cri_damage_hash(w, h);
    /* the contact impulses the next step starts from (solver/warm_start.c) */
    h = cr_hash_u32(h, w->warm_count);
    const cr_warm_impulse *warm = CR_AT(w, w->warm, const cr_warm_impulse);
    for (uint32_t i = 0; i < w->warm_count; ++i) {
        h = cr_hash_u64(h, warm[i].pair);
        h = cr_hash_u32(h, warm[i].feature);
        h = cr_hash_u32(h, warm[i].generations);
        h = cr_hash_real(h, warm[i].jn);
        h = cr_hash_vec3(h, warm[i].jt);
    }
    h = cri_soft_hash(w, h);
    h = cr_hash_u32(h, w->event_count);
    const cr_impact_event *ev = CR_AT(w, w->events, const cr_impact_event);
    for (uint32_t i = 0; i < w->event_count; ++i) {
        h = cr_hash_u32(h, ev[i].body_a.index1);
        h = cr_hash_u32(h, ev[i].body_b.index1);
        h = cr_hash_vec3(h, ev[i].point);
        h = cr_hash_vec3(h, ev[i].normal);
        h = cr_hash_vec3(h, ev[i].relative_velocity);
        h = cr_hash_real(h, ev[i].normal_speed);
        h = cr_hash_real(h, ev[i].impulse);
    }
    h = cri_sensor_hash(w, h);
    return cri_touch_hash(w, h);
}

/* A body's part of the world state hash, on its own. */
static uint64_t body_hash(const cr_body *b, uint32_t slot) { return cri_body_hash_into(CR_HASH_SEED, b, slot); }

uint64_t cr_body_state_hash(const cr_world *w, cr_body_id id) {
    const cr_body *b = cri_world_body_c(w, id);
    return b == NULL ? 0 : body_hash(b, id.index1 - 1);
}

uint32_t cr_world_body_hashes(const cr_world *w, cr_body_hash *out, uint32_t capacity) {
    if (w == NULL) return 0;
    const cr_body *bodies = cr_world_bodies_c(w);
    uint32_t n = 0;
    for (uint32_t i = 0; i < w->body_high; ++i) {
        const cr_body *b = &bodies[i];
        if (!b->alive) continue;
        if (out != NULL && n < capacity) {
            out[n].id.index1 = i + 1;
            out[n].id.generation = b->generation;
            out[n].hash = body_hash(b, i);
        }
        ++n;
    }
    return n;
}

uint64_t cr_state_layout_id(void) {
    uint64_t h = CR_HASH_SEED;
    h = cr_hash_u32(h, CR_FIXED);
    h = cr_hash_u32(h, (uint32_t)sizeof(cr_real));
    for (size_t i = 0; i + 1 < sizeof state_schema; ++i) h = cr_hash_u32(h, (uint8_t)state_schema[i]);
    return h;
}
