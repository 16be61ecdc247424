/* dynamic_articulation.c — joints added where a body is hit (seed 000 §4.2,
 * Fig. 14, Algorithm 2 steps 6-13).
 *
 * The impact point, in the parent's rest frame, is projected onto the
 * nearest bone segment; that bone j is cut at the projection s into j (head
 * to s) and a new bone n (s to j's old end), n's parent j, j's children
 * handed to n. Neither part may be shorter than the def's split_min_length.
 *
 * Weights: the seed recomputes the skinning weights in the rest pose so that
 * only the broken bone's change. crumple does only that change, locally: a
 * vertex's weight w on j becomes w (1 - f) on j and w f on n, with f rising
 * smoothly (3t^2 - 2t^3) from 0 to 1 across one grid cell centred on s along
 * the bone; every other influence stays bit for bit. A vertex that needs both
 * j and n and has no free slot gives up its smallest other influence (the
 * rest renormalised): rare, and only next to the cut.
 *
 * Segmentation: triangles that were j's go to j or n (by the same
 * largest-summed-weight rule, over j and n only); the grid nodes j owned are
 * grown again from those triangles, and only they: every other bone keeps
 * its nodes, samples, mass and copy. Both halves get their mass properties
 * from their nodes; the split is refused (nothing changes) if either owns no
 * inside node.
 *
 * Bodies and joints: j's sub-body stays (its joints stay; their anchors
 * follow its centre of mass, which moved); n's is a parked ghost made at
 * attach, put at j's pose with j's rigid-body velocity; j's children's joints
 * are moved to n in place (rest orientation and bend kept); the joint that
 * holds n to j at s is a deferred command (the stage applies it at the end of
 * the step; bend_model.c finds it next step).
 */
#include "damage/stage.h"
#include "damage/bend_model.h"
#include "damage/sub_body.h"

#include <string.h>

/* Distance^2 from p to segment [a, b] and the parameter of the nearest point. */
static cr_real segment_dist2(cr_vec3 p, cr_vec3 a, cr_vec3 b, cr_real *t_out) {
    cr_vec3 ab = cr_v3_sub(b, a);
    cr_real len2 = cr_v3_dot(ab, ab), t = 0;
    if (len2 > 0) t = cr_clamp(cr_div(cr_v3_dot(cr_v3_sub(p, a), ab), len2), 0, CR_R(1));
    cr_vec3 d = cr_v3_sub(p, cr_v3_mad(a, t, ab));
    *t_out = t;
    return cr_v3_dot(d, d);
}

/* Move a vertex's weight on bone j partly to bone n (fraction f). */
static void split_weights(uint8_t *bone, cr_real *weight, uint8_t j, uint8_t n, cr_real f) {
    int sj = -1, free_slot = -1;
    for (int s = 0; s < 4; ++s) {
        if (weight[s] > 0 && bone[s] == j) sj = s;
        else if (weight[s] == 0 && free_slot < 0) free_slot = s;
    }
    if (sj < 0 || f <= 0) return;
    cr_real wn = cr_mul(weight[sj], f), wj = weight[sj] - wn;
    if (wj <= 0) {
        bone[sj] = n; /* all of it: the slot changes bone */
        return;
    }
    if (free_slot < 0) {
        /* no room: the smallest other influence gives its slot, the rest renormalised */
        int small = -1;
        for (int s = 0; s < 4; ++s)
            if (s != sj && (small < 0 || weight[s] < weight[small])) small = s;
        cr_real total = CR_R(1) - weight[small];
        weight[small] = 0;
        if (total > 0)
            for (int s = 0; s < 4; ++s) weight[s] = cr_div(weight[s], total);
        free_slot = small;
        wn = cr_mul(weight[sj], f), wj = weight[sj] - wn;
    }
    weight[sj] = wj;
    bone[free_slot] = n;
    weight[free_slot] = wn;
}

uint32_t cri_bend_split(cr_world *w, uint32_t rec, cr_vec3 point, bool *split) {
    *split = false;
    cr_bend_body *r = &cri_bend_records(w)[rec];
    cr_bend_bone *bones = cri_bend_bones(w, rec);
    if (r->bone_count >= r->def.max_bones || r->bone_count >= 255) {
        w->stats.bend.over_capacity++;
        return 1;
    }
    const cr_body *parent = &cr_world_bodies_c(w)[r->body_index1 - 1];
    const cr_asset *a = cri_damage_rest_asset(w, parent->shape.asset);
    if (a == NULL) return 1;
    /* the nearest bone (ties: the lower index) and the cut on it */
    uint32_t j = 0;
    cr_real best = CR_REAL_MAX, t = 0;
    for (uint32_t k = 0; k < r->bone_count; ++k) {
        if (bones[k].cluster >= 0) continue; /* condensed: it splits after a hit wakes its cluster */
        cr_real tk;
        cr_real d2 = segment_dist2(point, bones[k].seg_a, bones[k].seg_b, &tk);
        if (d2 < best) best = d2, j = k, t = tk;
    }
    uint32_t work = r->bone_count;
    if (best == CR_REAL_MAX) return work;
    cr_vec3 axis = cr_v3_sub(bones[j].seg_b, bones[j].seg_a);
    cr_real len = cr_v3_len(axis);
    cr_real along = cr_mul(t, len);
    if (len <= 0 || along < r->def.split_min_length || len - along < r->def.split_min_length) return work;
    cr_vec3 d = cr_v3_scale(axis, cr_div(CR_R(1), len));
    cr_vec3 s = cr_v3_mad(bones[j].seg_a, along, d);
    uint8_t n = (uint8_t)r->bone_count;

    /* new influences and node owners, in scratch until the split is known to work */
    cr_bend_scratch sc = cri_bend_scratch(w);
    uint32_t nv = a->vertex_count, nodes = a->sdf_dims[0] * a->sdf_dims[1] * a->sdf_dims[2];
    uint8_t *skin_bone = cri_bend_skin_bone(w, rec), *node_bone = cri_bend_node_bone(w, rec);
    cr_real *skin_weight = cri_bend_skin_weight(w, rec);
    /* the triangles' owners before the change: those of j may become n's */
    for (uint32_t tr = 0; tr < a->triangle_count; ++tr)
        sc.tri_bone[tr] = cri_sub_body_triangle_bone(a, skin_bone, skin_weight, tr, NULL);
    memcpy(sc.skin_bone, skin_bone, 4u * nv);
    memcpy(sc.skin_weight, skin_weight, 4u * nv * sizeof(cr_real));
    cr_real half = cr_half(a->sdf_cell);
    for (uint32_t v = 0; v < nv; ++v) {
        cr_real x = cr_v3_dot(cr_v3_sub(a->positions[v], s), d); /* signed distance past the cut along the bone */
        cr_real f;
        if (x <= -half) f = 0;
        else if (x >= half) f = CR_R(1);
        else {
            cr_real u = cr_div(x + half, a->sdf_cell);
            f = cr_mul(cr_mul(u, u), CR_R(3) - u - u);
        }
        split_weights(&sc.skin_bone[4 * v], &sc.skin_weight[4 * v], (uint8_t)j, n, f);
    }
    uint8_t allowed[256], seeds[256];
    memset(allowed, 0, sizeof allowed);
    memset(seeds, 0, sizeof seeds);
    allowed[j] = allowed[n] = seeds[j] = seeds[n] = 1;
    for (uint32_t tr = 0; tr < a->triangle_count; ++tr) {
        if (sc.tri_bone[tr] != j) continue;
        uint8_t b = cri_sub_body_triangle_bone(a, sc.skin_bone, sc.skin_weight, tr, allowed);
        sc.tri_bone[tr] = b == 0xff ? (uint8_t)j : b;
    }
    for (uint32_t i = 0; i < nodes; ++i) sc.node_bone[i] = node_bone[i] == j ? 0xff : node_bone[i];
    work += a->triangle_count + nv + cri_sub_body_grow(a, sc.tri_bone, seeds, sc.node_bone, sc.queue);
    for (uint32_t i = 0; i < nodes; ++i)
        if (sc.node_bone[i] == 0xff) sc.node_bone[i] = (uint8_t)j; /* unreachable from the seeds: stays j's */
    /* the two halves' moments (every other bone keeps its own) */
    uint8_t want[256];
    memset(want, 0, sizeof want);
    want[j] = want[n] = 1;
    cri_sub_body_moments(a, sc.node_bone, (uint32_t)n + 1, want, sc.moments);
    work += 2 * nodes;
    if (sc.moments[j].count == 0 || sc.moments[n].count == 0) return work;

    /* commit */
    memcpy(skin_bone, sc.skin_bone, 4u * nv);
    memcpy(skin_weight, sc.skin_weight, 4u * nv * sizeof(cr_real));
    memcpy(node_bone, sc.node_bone, nodes);
    cr_body *bj = &cr_world_bodies(w)[bones[j].sub.index1 - 1];
    cr_transform xj = bj->xf;
    cr_vec3 vj = bj->v, wj = bj->w, c_old = bones[j].centre;
    bones[n].parent = (int32_t)j;
    bones[n].seg_a = s;
    bones[n].seg_b = bones[j].seg_b;
    bones[n].skin = bones[j].skin;
    bones[n].joint.index1 = 0, bones[n].joint.generation = 0;
    bones[n].cluster = -1;
    bones[n].quiet = 0;
    bones[j].seg_b = s;
    bones[j].moments = sc.moments[j];
    bones[n].moments = sc.moments[n];
    r->bone_count++;
    r->splits++;
    r->dirty = 1;
    cri_bend_fit_sub_body(w, rec, j, sc.tri_bone, sc.mark);
    cri_bend_fit_sub_body(w, rec, n, sc.tri_bone, sc.mark);
    work += 2 * (nodes + nv);
    /* j's body moves with its centre of mass; its joints keep their points */
    cr_vec3 dj = cr_v3_sub(bones[j].centre, c_old), dn = cr_v3_sub(bones[n].centre, c_old);
    bj = &cr_world_bodies(w)[bones[j].sub.index1 - 1];
    cr_vec3 arm_j = cr_quat_rotate(xj.q, dj), arm_n = cr_quat_rotate(xj.q, dn);
    bj->xf.p = cr_v3_add(xj.p, arm_j);
    bj->finite_p = bj->xf.p;
    bj->v = cr_v3_add(vj, cr_v3_cross(wj, arm_j));
    cr_body *bn = &cr_world_bodies(w)[bones[n].sub.index1 - 1];
    bn->ghost = 0;
    bn->type = CR_BODY_DYNAMIC;
    bn->asleep = 0;
    bn->xf.q = xj.q;
    bn->xf.p = cr_v3_add(xj.p, arm_n);
    bn->finite_p = bn->xf.p, bn->finite_q = bn->xf.q;
    bn->v = cr_v3_add(vj, cr_v3_cross(wj, arm_n));
    bn->w = wj;
    cr_joint *joints = cr_world_joints(w);
    uint32_t sub_j = bones[j].sub.index1, sub_n = bones[n].sub.index1;
    for (uint32_t k = 0; k < w->joint_high; ++k) {
        cr_joint *jt = &joints[k];
        if (!jt->alive) continue;
        if (jt->a == sub_j) jt->local_anchor_a = cr_v3_sub(jt->local_anchor_a, dj);
        if (jt->b == sub_j) jt->local_anchor_b = cr_v3_sub(jt->local_anchor_b, dj);
    }
    /* j's children now hang from n: their joints move over, rest and bend kept */
    for (uint32_t c = 0; c < r->bone_count; ++c) {
        if (c == n || bones[c].parent != (int32_t)j) continue;
        bones[c].parent = (int32_t)n;
        for (uint32_t k = 0; k < w->joint_high; ++k) {
            cr_joint *jt = &joints[k];
            if (!jt->alive || jt->a != sub_j || jt->b != bones[c].sub.index1) continue;
            jt->a = sub_n;
            jt->local_anchor_a = cr_v3_sub(cr_v3_add(jt->local_anchor_a, dj), dn); /* undo j's shift above, then n's centre */
            cr_world_bodies(w)[sub_j - 1].joint_count--;
            cr_world_bodies(w)[sub_n - 1].joint_count++;
        }
    }
    cr_joint_def jd = cr_default_joint_def();
    jd.type = CR_JOINT_FIXED;
    jd.body_a = bones[j].sub;
    jd.body_b = bones[n].sub;
    jd.anchor = cr_transform_point(xj, cr_v3_sub(s, c_old));
    jd.bend_strength = r->def.bend_strength;
    jd.bend_damping = r->def.bend_damping;
    jd.bend_damping_constant = r->def.bend_damping_constant;
    jd.spring_stiffness = r->def.spring_stiffness;
    jd.spring_damping = r->def.spring_damping;
    cr_damage_defer_joint_create(w, &jd);
    *split = true;
    w->stats.bend.done++;
    return work;
}
