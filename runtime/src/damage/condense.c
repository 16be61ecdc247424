/* condense.c — condensation (seed 000 §4.5, Fig. 15): bones whose joints are
 * quiet merge into one rigid body, and get their own bodies back when hit.
 *
 * A cluster is a connected set of bones whose joints to each other have been
 * quiet (not yielding, no bend rate, relative angular velocity under
 * CR_BEND_QUIET_SPEED) for the def's condense_time. It is simulated as its
 * lowest bone's sub-body (the representative):
 *   - mass, centre of mass, linear momentum P and angular momentum L (about
 *     the centre) are the sums of the members'; the inertia tensor too, and
 *     the body's frame is its principal frame (Jacobi rotations), so the
 *     body's diagonal inertia is the tensor and L = I w holds to rounding;
 *   - its collision samples are its members' own, placed where they are now;
 *     its grid is resampled once, over the same number of nodes as its own,
 *     as the smallest of the members' restricted grids (the seed's "new level
 *     set" for the condensed body), on a box that holds all of them;
 *   - the other members are parked as ghosts that follow it; the joints
 *     inside the cluster are destroyed (deferred), the ones that leave it are
 *     moved onto the representative in place (their rest orientation and bend
 *     rate re-expressed), so a bending joint between two clusters is the only
 *     joint simulated there (Fig. 15).
 * An impact faster than wake_speed on the representative gives every member
 * its own body back at its place in the cluster, moving with the cluster's
 * rigid motion (v = V + W x r, w = W: P and L again the cluster's), and
 * re-creates the inner joints (deferred) at the bones' heads; their rest is
 * the relative orientation the bones have, the bend they held.
 *
 * Elastic joints never condense: a spring's rest orientation is not where
 * its bodies are, and a re-created joint would forget it.
 */
#include "damage/stage.h"
#include "damage/bend_model.h"
#include "damage/sub_body.h"
#include "base/inertia.h"

#include <string.h>

static cr_real m_at(cr_mat3 m, int r, int c) {
    cr_vec3 col = c == 0 ? m.cx : (c == 1 ? m.cy : m.cz);
    return r == 0 ? col.x : (r == 1 ? col.y : col.z);
}

static cr_mat3 from_rows(cr_real a[3][3]) {
    cr_mat3 m = {cr_v3(a[0][0], a[1][0], a[2][0]), cr_v3(a[0][1], a[1][1], a[2][1]), cr_v3(a[0][2], a[1][2], a[2][2])};
    return m;
}

/* Eigenvectors (columns of *q) of a symmetric matrix by cyclic Jacobi
 * rotations, a fixed number of sweeps (a fixed amount of work). */
static cr_mat3 principal_axes(cr_mat3 m) {
    cr_real a[3][3], v[3][3] = {{CR_R(1), 0, 0}, {0, CR_R(1), 0}, {0, 0, CR_R(1)}};
    cr_real tr = m_at(m, 0, 0) + m_at(m, 1, 1) + m_at(m, 2, 2);
    cr_real sc = tr > 0 ? cr_div(CR_R(3), tr) : CR_R(1); /* to ~1: fixed point keeps its bits */
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) a[r][c] = cr_mul(m_at(m, r, c), sc);
    static const int pairs[3][2] = {{0, 1}, {0, 2}, {1, 2}};
    for (int sweep = 0; sweep < 8; ++sweep) {
        for (int pi = 0; pi < 3; ++pi) {
            int p = pairs[pi][0], q = pairs[pi][1];
            if (cr_abs(a[p][q]) <= CR_R(1e-7)) continue;
            cr_real theta = cr_div(a[q][q] - a[p][p], a[p][q] + a[p][q]);
            cr_real t;
            if (cr_abs(theta) > CR_R(1e4)) t = cr_div(CR_R(0.5), theta);
            else {
                t = cr_div(CR_R(1), cr_abs(theta) + cr_sqrt(cr_mul(theta, theta) + CR_R(1)));
                if (theta < 0) t = -t;
            }
            cr_real c = cr_div(CR_R(1), cr_sqrt(cr_mul(t, t) + CR_R(1))), s = cr_mul(t, c);
            /* a = J^T a J, v = v J with J the rotation in the (p, q) plane */
            for (int k = 0; k < 3; ++k) {
                cr_real akp = a[k][p], akq = a[k][q];
                a[k][p] = cr_mul(c, akp) - cr_mul(s, akq);
                a[k][q] = cr_mul(s, akp) + cr_mul(c, akq);
            }
            for (int k = 0; k < 3; ++k) {
                cr_real apk = a[p][k], aqk = a[q][k];
                a[p][k] = cr_mul(c, apk) - cr_mul(s, aqk);
                a[q][k] = cr_mul(s, apk) + cr_mul(c, aqk);
            }
            for (int k = 0; k < 3; ++k) {
                cr_real vkp = v[k][p], vkq = v[k][q];
                v[k][p] = cr_mul(c, vkp) - cr_mul(s, vkq);
                v[k][q] = cr_mul(s, vkp) + cr_mul(c, vkq);
            }
        }
    }
    cr_mat3 q = from_rows(v);
    if (cr_v3_dot(q.cx, cr_v3_cross(q.cy, q.cz)) < 0) q.cz = cr_v3_neg(q.cz);
    return q;
}

/* The rotation whose columns are the matrix's (a proper rotation) as a quaternion. */
static cr_quat quat_of(cr_mat3 m) {
    cr_real m00 = m.cx.x, m11 = m.cy.y, m22 = m.cz.z, tr = m00 + m11 + m22;
    cr_quat q;
    if (tr > 0) {
        cr_real s = cr_sqrt(tr + CR_R(1)) * 2;
        q.w = cr_div(s, CR_R(4)), q.x = cr_div(m.cy.z - m.cz.y, s), q.y = cr_div(m.cz.x - m.cx.z, s),
        q.z = cr_div(m.cx.y - m.cy.x, s);
    } else if (m00 > m11 && m00 > m22) {
        cr_real s = cr_sqrt(CR_R(1) + m00 - m11 - m22) * 2;
        q.w = cr_div(m.cy.z - m.cz.y, s), q.x = cr_div(s, CR_R(4)), q.y = cr_div(m.cy.x + m.cx.y, s),
        q.z = cr_div(m.cz.x + m.cx.z, s);
    } else if (m11 > m22) {
        cr_real s = cr_sqrt(CR_R(1) + m11 - m00 - m22) * 2;
        q.w = cr_div(m.cz.x - m.cx.z, s), q.x = cr_div(m.cy.x + m.cx.y, s), q.y = cr_div(s, CR_R(4)),
        q.z = cr_div(m.cz.y + m.cy.z, s);
    } else {
        cr_real s = cr_sqrt(CR_R(1) + m22 - m00 - m11) * 2;
        q.w = cr_div(m.cx.y - m.cy.x, s), q.x = cr_div(m.cz.x + m.cx.z, s), q.y = cr_div(m.cz.y + m.cy.z, s),
        q.z = cr_div(s, CR_R(4));
    }
    return cr_quat_normalize(q);
}

static bool in_cluster(const cr_bend_bone *bones, int32_t k, uint32_t rep) {
    return k >= 0 && bones[k].cluster == (int32_t)rep;
}

static cr_joint *joint_rec(cr_world *w, cr_joint_id id) {
    if (id.index1 == 0 || id.index1 > w->joint_high) return NULL;
    cr_joint *j = &cr_world_joints(w)[id.index1 - 1];
    return (j->alive && j->generation == id.generation) ? j : NULL;
}

cr_transform cri_bend_bone_pose(const cr_world *w, const cr_bend_bone *bones, uint32_t k) {
    if (bones[k].cluster < 0) return cr_world_bodies_c(w)[bones[k].sub.index1 - 1].xf;
    cr_transform xc = cr_world_bodies_c(w)[bones[bones[k].cluster].sub.index1 - 1].xf;
    return cr_transform_mul(xc, bones[k].rel);
}

uint32_t cri_bend_condense(cr_world *w, uint32_t rec, const uint32_t *members, uint32_t n) {
    cr_bend_body *r = &cri_bend_records(w)[rec];
    cr_bend_bone *bones = cri_bend_bones(w, rec);
    cr_body *bodies = cr_world_bodies(w);
    uint32_t rep = members[0];
    /* the sums: mass, centre, momentum, inertia */
    cr_real mass = 0;
    cr_vec3 mx = cr_v3_zero(), p = cr_v3_zero();
    for (uint32_t i = 0; i < n; ++i) {
        const cr_body *b = &bodies[bones[members[i]].sub.index1 - 1];
        mass += b->mass;
        mx = cr_v3_mad(mx, b->mass, b->xf.p);
        p = cr_v3_mad(p, b->mass, b->v);
    }
    cr_vec3 centre = cr_v3_scale(mx, cr_div(CR_R(1), mass));
    cr_vec3 l = cr_v3_zero();
    cr_mat3 inertia = cr_mat3_scale(cr_mat3_identity(), 0);
    for (uint32_t i = 0; i < n; ++i) {
        const cr_body *b = &bodies[bones[members[i]].sub.index1 - 1];
        cr_mat3 ik = cri_inertia_world(b, cr_mat3_from_quat(b->xf.q));
        cr_vec3 d = cr_v3_sub(b->xf.p, centre);
        l = cr_v3_add(l, cr_v3_add(cr_mat3_mul_v3(ik, b->w), cr_v3_scale(cr_v3_cross(d, b->v), b->mass)));
        cr_real dd = cr_v3_dot(d, d);
        cr_mat3 shift = {cr_v3(dd - cr_mul(d.x, d.x), -cr_mul(d.y, d.x), -cr_mul(d.z, d.x)),
                         cr_v3(-cr_mul(d.x, d.y), dd - cr_mul(d.y, d.y), -cr_mul(d.z, d.y)),
                         cr_v3(-cr_mul(d.x, d.z), -cr_mul(d.y, d.z), dd - cr_mul(d.z, d.z))};
        inertia = cr_mat3_add(inertia, cr_mat3_add(ik, cr_mat3_scale(shift, b->mass)));
    }
    cr_transform xc;
    xc.p = centre;
    xc.q = quat_of(principal_axes(inertia));
    cr_mat3 rc = cr_mat3_from_quat(xc.q);
    cr_mat3 local = cr_mat3_mul(cr_mat3_mul(cr_mat3_transpose(rc), inertia), rc);
    cr_vec3 diag = cr_v3(local.cx.x, local.cy.y, local.cz.z);
    /* the body's inertia is R diag R^T; its angular velocity carries L exactly for that tensor */
    cr_mat3 used = cr_mat3_mul(cr_mat3_mul(rc, cr_mat3_diag(diag)), cr_mat3_transpose(rc));
    cr_vec3 wc = cri_solve_k(used, l), vc = cr_v3_scale(p, cr_div(CR_R(1), mass));
    for (uint32_t i = 0; i < n; ++i) {
        cr_bend_bone *bb = &bones[members[i]];
        bb->rel = cr_transform_mul(cr_transform_inverse(xc), bodies[bb->sub.index1 - 1].xf);
        bb->cluster = (int32_t)rep;
    }

    /* the representative's copy: the members' samples where they are, the smallest of their grids */
    const cr_body *parent = &bodies[r->body_index1 - 1];
    const cr_asset *rest = cri_damage_rest_asset(w, parent->shape.asset);
    cr_bend_scratch sc = cri_bend_scratch(w);
    const uint8_t *skin_bone = cri_bend_skin_bone(w, rec);
    const cr_real *skin_weight = cri_bend_skin_weight(w, rec);
    uint32_t work = rest->triangle_count;
    for (uint32_t t = 0; t < rest->triangle_count; ++t)
        sc.tri_bone[t] = cri_sub_body_triangle_bone(rest, skin_bone, skin_weight, t, NULL);
    memset(sc.mark, 0, rest->vertex_count);
    for (uint32_t i = 0; i < n; ++i)
        for (uint32_t t = 0; t < rest->triangle_count; ++t) {
            if (sc.tri_bone[t] != members[i]) continue;
            for (int k = 0; k < 3; ++k)
                if (sc.mark[rest->triangles[3 * t + k]] == 0) sc.mark[rest->triangles[3 * t + k]] = (uint8_t)(i + 1);
        }
    cr_surface_copy *copy = cri_damage_surface_of(w, bones[rep].sub.index1);
    uint8_t *block = (uint8_t *)w;
    cr_asset *view = cr_surface_copy_view(copy, block);
    cr_vec3 *samples = CR_AT(w, copy->samples, cr_vec3);
    uint32_t kept = 0;
    cr_vec3 lo = cr_v3(CR_REAL_MAX, CR_REAL_MAX, CR_REAL_MAX), hi = cr_v3_neg(lo);
    cr_real r2 = 0;
    for (uint32_t i = 0; i < rest->sample_count; ++i) {
        uint8_t m = sc.mark[rest->sample_vertex[i]];
        if (m == 0) continue;
        const cr_bend_bone *bb = &bones[members[m - 1]];
        cr_vec3 s = cr_transform_point(bb->rel, cr_v3_sub(cri_bend_rest_pos(w, rec)[rest->sample_vertex[i]], bb->centre));
        samples[kept++] = s;
        lo = cr_v3_min(lo, s), hi = cr_v3_max(hi, s);
        r2 = cr_max(r2, cr_v3_dot(s, s));
    }
    work += rest->sample_count;
    cr_real pad = rest->sdf_cell + rest->sdf_cell;
    lo = cr_v3_sub(lo, cr_v3(pad, pad, pad)), hi = cr_v3_add(hi, cr_v3(pad, pad, pad));
    const uint32_t *dims = rest->sdf_dims;
    cr_real cell = cr_max(cr_div(hi.x - lo.x, cr_from_int((int32_t)dims[0] - 1)),
                          cr_max(cr_div(hi.y - lo.y, cr_from_int((int32_t)dims[1] - 1)),
                                 cr_div(hi.z - lo.z, cr_from_int((int32_t)dims[2] - 1))));
    cr_transform *inv = sc.bone_x;
    const cr_asset *views[CR_ASSET_MAX_BONES];
    for (uint32_t i = 0; i < n; ++i) {
        inv[i] = cr_transform_inverse(bones[members[i]].rel);
        views[i] = cr_surface_copy_view(cri_damage_surface_of(w, bones[members[i]].sub.index1), block);
    }
    uint32_t node = 0;
    for (uint32_t k = 0; k < dims[2]; ++k)
        for (uint32_t j = 0; j < dims[1]; ++j)
            for (uint32_t i = 0; i < dims[0]; ++i, ++node) {
                cr_vec3 y = cr_v3(lo.x + cr_mul(cr_from_int((int32_t)i), cell), lo.y + cr_mul(cr_from_int((int32_t)j), cell),
                                  lo.z + cr_mul(cr_from_int((int32_t)k), cell));
                cr_real best = CR_REAL_MAX;
                for (uint32_t m = 0; m < n; ++m)
                    best = cr_min(best, cr_asset_sdf(views[m], cr_transform_point(inv[m], y), NULL));
                sc.grid[node] = best;
            }
    work += node * n;
    memcpy(CR_AT(w, copy->sdf, cr_real), sc.grid, (size_t)node * sizeof(cr_real));
    /* its vertices in the cluster's frame too, so its mesh (cr_body_get_mesh) is where its bone is */
    cr_vec3 *pos = cr_surface_copy_positions(copy, block);
    for (uint32_t v = 0; v < rest->vertex_count; ++v)
        pos[v] = cr_transform_point(bones[rep].rel, cr_v3_sub(cri_bend_rest_pos(w, rec)[v], bones[rep].centre));
    work += rest->vertex_count;
    view->sample_count = kept;
    view->sdf_origin = lo;
    view->sdf_cell = cell;
    view->sdf_inv_cell = cr_div(CR_R(1), cell);
    view->bounds_min = lo, view->bounds_max = hi;
    view->bound_radius = cr_sqrt(r2) + pad;
    bones[rep].cluster_origin = lo;
    bones[rep].cluster_cell = cell;
    bones[rep].cluster_samples = kept;
    copy->changes++;

    /* joints: the inner ones go, the ones leaving the cluster move onto the representative */
    uint32_t sub_rep = bones[rep].sub.index1;
    for (uint32_t c = 0; c < r->bone_count; ++c) {
        int32_t pb = bones[c].parent;
        bool ic = in_cluster(bones, (int32_t)c, rep), ip = in_cluster(bones, pb, rep);
        if (pb < 0 || (!ic && !ip)) continue;
        if (ic && ip) {
            if (!cr_joint_id_is_null(bones[c].joint)) cr_damage_defer_joint_destroy(w, bones[c].joint);
            bones[c].joint.index1 = 0, bones[c].joint.generation = 0;
            continue;
        }
        cr_joint *jt = joint_rec(w, bones[c].joint);
        if (jt == NULL) continue;
        if (ic) { /* b side: bone c */
            cr_transform rel = bones[c].rel;
            bodies[jt->b - 1].joint_count--;
            jt->b = sub_rep;
            bodies[sub_rep - 1].joint_count++;
            jt->local_anchor_b = cr_transform_point(rel, jt->local_anchor_b);
            jt->local_axis_b = cr_quat_rotate(rel.q, jt->local_axis_b);
            jt->rest = cr_quat_normalize(cr_quat_mul(jt->rest, cr_quat_conj(rel.q)));
        } else { /* a side: bone pb */
            cr_transform rel = bones[pb].rel;
            bodies[jt->a - 1].joint_count--;
            jt->a = sub_rep;
            bodies[sub_rep - 1].joint_count++;
            jt->local_anchor_a = cr_transform_point(rel, jt->local_anchor_a);
            jt->local_axis_a = cr_quat_rotate(rel.q, jt->local_axis_a);
            jt->rest = cr_quat_normalize(cr_quat_mul(rel.q, jt->rest));
            jt->bend_rate = cr_quat_rotate(rel.q, jt->bend_rate);
            jt->spring_w_end = cr_quat_rotate(rel.q, jt->spring_w_end);
        }
    }
    /* the representative is the cluster; the others park */
    cr_body *b = &bodies[sub_rep - 1];
    b->xf = xc;
    b->finite_p = xc.p, b->finite_q = xc.q;
    b->v = vc, b->w = wc;
    b->mass = mass, b->inv_mass = cr_div(CR_R(1), mass);
    cri_inertia_set(b, diag, cr_v3_zero()); /* its principal frame */
    b->bound_radius = view->bound_radius;
    for (uint32_t i = 1; i < n; ++i) {
        cr_body *m = &bodies[bones[members[i]].sub.index1 - 1];
        m->ghost = 1;
        m->type = CR_BODY_KINEMATIC;
        m->v = cr_v3_zero(), m->w = cr_v3_zero();
    }
    r->clusters++;
    r->condensations++;
    return work;
}

/* Give the members of the cluster of `rep` their own bodies back; with
 * part != NULL, members whose part[] is the same stay joined (the caller
 * condenses each such part again at once) and only the joints between parts
 * are re-created, on the body each side will be: part[k] names the part's
 * lowest bone, its representative-to-be. */
static uint32_t uncondense_parts(cr_world *w, uint32_t rec, uint32_t rep, const uint32_t *part) {
    cr_bend_body *r = &cri_bend_records(w)[rec];
    cr_bend_bone *bones = cri_bend_bones(w, rec);
    cr_body *bodies = cr_world_bodies(w);
    uint32_t sub_rep = bones[rep].sub.index1;
    cr_body *cb = &bodies[sub_rep - 1];
    cr_transform xc = cb->xf;
    cr_vec3 vc = cb->v, wc = cb->w;
    /* the joints leaving the cluster go back to their own bones first (they need the rels) */
    for (uint32_t c = 0; c < r->bone_count; ++c) {
        int32_t pb = bones[c].parent;
        bool ic = in_cluster(bones, (int32_t)c, rep), ip = in_cluster(bones, pb, rep);
        if (pb < 0 || ic == ip) continue;
        cr_joint *jt = joint_rec(w, bones[c].joint);
        if (jt == NULL) continue;
        if (ic) {
            cr_transform rel = bones[c].rel;
            bodies[jt->b - 1].joint_count--;
            jt->b = bones[c].sub.index1;
            bodies[jt->b - 1].joint_count++;
            jt->local_anchor_b = cr_transform_inv_point(rel, jt->local_anchor_b);
            jt->local_axis_b = cr_quat_inv_rotate(rel.q, jt->local_axis_b);
            jt->rest = cr_quat_normalize(cr_quat_mul(jt->rest, rel.q));
        } else {
            cr_transform rel = bones[pb].rel;
            bodies[jt->a - 1].joint_count--;
            jt->a = bones[pb].sub.index1;
            bodies[jt->a - 1].joint_count++;
            jt->local_anchor_a = cr_transform_inv_point(rel, jt->local_anchor_a);
            jt->local_axis_a = cr_quat_inv_rotate(rel.q, jt->local_axis_a);
            jt->rest = cr_quat_normalize(cr_quat_mul(cr_quat_conj(rel.q), jt->rest));
            jt->bend_rate = cr_quat_inv_rotate(rel.q, jt->bend_rate);
            jt->spring_w_end = cr_quat_inv_rotate(rel.q, jt->spring_w_end);
        }
    }
    /* every member at its place in the cluster, with the cluster's rigid motion */
    const cr_body *parent = &bodies[r->body_index1 - 1];
    const cr_asset *rest = cri_damage_rest_asset(w, parent->shape.asset);
    cr_bend_scratch sc = cri_bend_scratch(w);
    for (uint32_t t = 0; t < rest->triangle_count; ++t)
        sc.tri_bone[t] = cri_sub_body_triangle_bone(rest, cri_bend_skin_bone(w, rec), cri_bend_skin_weight(w, rec), t, NULL);
    uint32_t work = rest->triangle_count;
    cri_bend_fit_sub_body(w, rec, rep, sc.tri_bone, sc.mark); /* its own copy and mass again */
    work += rest->vertex_count + rest->sample_count + rest->sdf_dims[0] * rest->sdf_dims[1] * rest->sdf_dims[2];
    for (uint32_t k = 0; k < r->bone_count; ++k) {
        if (!in_cluster(bones, (int32_t)k, rep)) continue;
        cr_body *b = &bodies[bones[k].sub.index1 - 1];
        cr_transform x = cr_transform_mul(xc, bones[k].rel);
        b->xf = x;
        b->finite_p = x.p, b->finite_q = x.q;
        b->v = cr_v3_add(vc, cr_v3_cross(wc, cr_v3_sub(x.p, xc.p)));
        b->w = wc;
        b->ghost = 0;
        b->type = CR_BODY_DYNAMIC;
        b->asleep = 0;
    }
    /* the inner joints again, at the bones' heads, holding the bend they had */
    for (uint32_t c = 0; c < r->bone_count; ++c) {
        int32_t pb = bones[c].parent;
        if (!in_cluster(bones, (int32_t)c, rep) || !in_cluster(bones, pb, rep)) continue;
        if (part != NULL && part[c] == part[pb]) continue; /* stays inside a part */
        cr_joint_def jd = cr_default_joint_def();
        jd.type = CR_JOINT_FIXED;
        jd.body_a = bones[part != NULL ? part[pb] : (uint32_t)pb].sub;
        jd.body_b = bones[part != NULL ? part[c] : c].sub;
        jd.anchor = cr_transform_point(bodies[bones[c].sub.index1 - 1].xf, cr_v3_sub(bones[c].seg_a, bones[c].centre));
        jd.bend_strength = r->def.bend_strength;
        jd.bend_damping = r->def.bend_damping;
        jd.bend_damping_constant = r->def.bend_damping_constant;
        cr_damage_defer_joint_create(w, &jd);
    }
    for (uint32_t k = 0; k < r->bone_count; ++k) {
        if (!in_cluster(bones, (int32_t)k, rep)) continue;
        bones[k].quiet = 0;
        bones[k].rel = cr_transform_identity();
    }
    for (uint32_t k = 0; k < r->bone_count; ++k)
        if (bones[k].cluster == (int32_t)rep) bones[k].cluster = -1;
    r->clusters--;
    r->dirty = 1;
    return work;
}

uint32_t cri_bend_uncondense(cr_world *w, uint32_t rec, uint32_t rep) { return uncondense_parts(w, rec, rep, NULL); }

uint32_t cri_bend_cluster_bone_at(const cr_world *w, uint32_t rec, uint32_t rep, cr_vec3 p) {
    const cr_bend_body *r = &cri_bend_records(w)[rec];
    const cr_bend_bone *bones = cri_bend_bones(w, rec);
    uint32_t best = rep;
    cr_real best_d = CR_REAL_MAX;
    for (uint32_t k = 0; k < r->bone_count; ++k) {
        if (!in_cluster(bones, (int32_t)k, rep)) continue;
        /* the point in the parent's rest frame as bone k carries it, against the bone's segment */
        cr_vec3 q = cr_v3_add(cr_transform_inv_point(bones[k].rel, p), bones[k].centre);
        cr_vec3 ab = cr_v3_sub(bones[k].seg_b, bones[k].seg_a), aq = cr_v3_sub(q, bones[k].seg_a);
        cr_real len2 = cr_v3_dot(ab, ab), t = len2 > 0 ? cr_div(cr_v3_dot(aq, ab), len2) : 0;
        t = cr_min(cr_max(t, 0), CR_R(1));
        cr_vec3 d = cr_v3_sub(aq, cr_v3_scale(ab, t));
        cr_real dd = cr_v3_dot(d, d);
        if (dd < best_d) best_d = dd, best = k;
    }
    return best;
}

uint32_t cri_bend_uncondense_around(cr_world *w, uint32_t rec, uint32_t rep, uint32_t hit) {
    const cr_bend_body *r = &cri_bend_records(w)[rec];
    const cr_bend_bone *bones = cri_bend_bones(w, rec);
    /* the parts the hit leaves (seed 000 §4.5, Fig. 15): the hit bone alone, and each piece of
     * the rest still linked inside the cluster, named by its lowest bone */
    uint32_t part[CR_ASSET_MAX_BONES];
    bool member[CR_ASSET_MAX_BONES];
    for (uint32_t k = 0; k < r->bone_count; ++k) {
        part[k] = k;
        member[k] = in_cluster(bones, (int32_t)k, rep);
        if (!member[k] || k == hit) continue;
        uint32_t t = k;
        while (bones[t].parent >= 0 && in_cluster(bones, bones[t].parent, rep) && (uint32_t)bones[t].parent != hit)
            t = (uint32_t)bones[t].parent;
        part[k] = t; /* the piece's top, for now */
    }
    uint32_t low[CR_ASSET_MAX_BONES];
    for (uint32_t k = 0; k < r->bone_count; ++k) low[k] = UINT32_MAX;
    for (uint32_t k = 0; k < r->bone_count; ++k)
        if (member[k] && k < low[part[k]]) low[part[k]] = k;
    for (uint32_t k = 0; k < r->bone_count; ++k)
        if (member[k]) part[k] = low[part[k]];
    uint32_t work = uncondense_parts(w, rec, rep, part);
    /* each piece of two or more bones is one body again at once, the hit bone on its own */
    for (uint32_t t = 0; t < r->bone_count; ++t) {
        uint32_t members[CR_ASSET_MAX_BONES], n = 0;
        for (uint32_t k = 0; k < r->bone_count; ++k)
            if (member[k] && k != hit && part[k] == t) members[n++] = k;
        if (n >= 2) work += cri_bend_condense(w, rec, members, n); /* members[0] == t, the lowest */
    }
    return work;
}
