/* fracture_bonds.c — bond health (docs/fracture.md "Bonds and stress"):
 *
 *   impacts   an impulse J at a point takes J w(d) / (toughness x area) of a
 *             bond's health, w(d) = 1 - d / damage_radius falling off with
 *             the distance d from the bond's centroid: a bond of twice the
 *             area takes twice the impulse (Blast's "bond health reduced by
 *             damage", with the area of its support graph);
 *   stress    the loads the non-moving part of the actor carries this step
 *             (its weight, the contact impulses on it) are balanced over the
 *             support graph: each piece a node, each unbroken bond an edge of
 *             conductance area / length, anchored pieces held at zero. The
 *             bond impulses are those of the potential flow that balances the
 *             loads (a graph Laplacian solved by Gauss-Seidel sweeps, warm-
 *             started from the last step, so a steady load converges over a
 *             few steps within a small budget per step). A bond whose force
 *             passes strength x area loses the overload ratio - 1 of its
 *             health per step. Blast's stress solver is the anchor: it solves
 *             for bond forces and torques that keep the actor rigid; this
 *             estimate carries forces only (no moments: a beam's bending is
 *             under-estimated, its shear is not);
 *   joints    once pieces move as bodies, the unbroken bonds inside an island
 *             are fixed joints and the solver's own joint impulse is the load.
 */
#include "damage/stage.h"
#include "damage/fracture_model.h"

#include <string.h>

static bool overload(cr_world *w, cr_fracture_actor *a, uint32_t k, cr_real force, cr_real area) {
    cr_real cap = cr_mul(a->def.strength, area);
    if (force <= cap || cap <= 0) return false;
    cr_fracture_bond *b = &cri_fracture_bonds(w, a)[k];
    /* ratio - 1, bounded so a huge ratio cannot overflow the health */
    cr_real ratio = force > cr_mul(cap, CR_R(64)) ? CR_R(64) : cr_div(force, cap);
    b->health -= ratio - CR_R(1);
    if (b->health <= 0) cri_fracture_break_bond(w, a, k);
    return true;
}

uint32_t cri_fracture_impact(cr_world *w, cr_fracture_actor *a, const cr_asset *whole, cr_vec3 point, cr_real impulse) {
    cr_fracture_bond *bonds = cri_fracture_bonds(w, a);
    cr_real radius = a->def.damage_radius;
    for (uint32_t k = 0; k < a->bond_count; ++k) {
        if (bonds[k].broken) continue;
        const cr_asset_bond *g = &whole->bonds[k];
        cr_real d = cr_v3_len(cr_v3_sub(g->centroid, point));
        if (d >= radius) continue;
        cr_real falloff = CR_R(1) - cr_div(d, radius);
        cr_real per_area = cr_div(cr_mul(impulse, falloff), a->def.toughness);
        /* health taken = per_area / area, bounded like overload's */
        cr_real take = per_area > cr_mul(g->area, CR_R(64)) ? CR_R(64) : cr_div(per_area, g->area);
        bonds[k].health -= take;
        if (bonds[k].health <= 0) cri_fracture_break_bond(w, a, k);
    }
    return a->bond_count;
}

static bool is_whole(const cr_fracture_actor *a) { return a->whole_index1 != 0 && !a->splitting; }

/* The pieces the estimate covers: all of a whole body, or the split actor's
 * static pieces (moving ones carry their loads through joints). */
static bool in_set(const cr_world *w, const cr_fracture_actor *a, const cr_fracture_piece *p) {
    if (is_whole(a)) return true;
    return p->is_static && p->mapped && cri_world_body_c(w, p->body) != NULL;
}

static cr_vec3 centre_of(const cr_world *w, const cr_fracture_actor *a, const cr_asset *whole, const cr_fracture_piece *p,
                         uint32_t k) {
    if (is_whole(a)) return cr_transform_point(cr_world_bodies_c(w)[a->whole_index1 - 1].xf, whole->pieces[k].centroid);
    return cri_world_body_c(w, p->body)->xf.p;
}

uint32_t cri_fracture_stress(cr_world *w, cr_fracture_actor *a, const cr_asset *whole, cr_vec3 *load_pool, cr_real dt,
                             uint32_t budget, uint32_t *u32) {
    cr_fracture_piece *pc = cri_fracture_pieces(w, a);
    cr_fracture_bond *bonds = cri_fracture_bonds(w, a);
    cr_vec3 *load = load_pool + a->piece_first;
    const uint32_t n = a->piece_count;
    if (is_whole(a) && a->calm) return 0; /* decided per body, before any piece (fracture_model.c) */
    a->settled = 0; /* until this pass converges and overloads nothing */
    uint32_t work = n;
    if (!is_whole(a) && a->spawned == 0) return 0;
    /* the loads: weight and contacts, in the world frame (N s this step) */
    cr_vec3 g_dt = cr_v3_scale(w->def.gravity, dt);
    cr_real mass = 0;
    cr_vec3 total = cr_v3_zero(), com = cr_v3_zero();
    bool anchored = false;
    uint32_t members = 0;
    for (uint32_t k = 0; k < n; ++k) {
        if (!in_set(w, a, &pc[k])) continue;
        ++members;
        load[k] = cr_v3_mad(load[k], pc[k].mass, g_dt);
        total = cr_v3_add(total, load[k]);
        mass += pc[k].mass;
        com = cr_v3_mad(com, pc[k].mass, centre_of(w, a, whole, &pc[k], k));
        anchored = anchored || (pc[k].anchor && a->was_static);
    }
    if (members < 2 || mass <= 0) return work;
    com = cr_v3_scale(com, cr_div(CR_R(1), mass));
    if (!anchored) {
        /* a free body: the share of the loads that accelerates it rigidly is
         * no stress; what is left balances to zero over the graph */
        cr_vec3 dv = cr_v3_scale(total, cr_div(CR_R(1), mass));
        cr_vec3 torque = cr_v3_zero();
        for (uint32_t k = 0; k < n; ++k)
            if (in_set(w, a, &pc[k]))
                torque = cr_v3_add(torque, cr_v3_cross(cr_v3_sub(centre_of(w, a, whole, &pc[k], k), com), load[k]));
        const cr_body *body = is_whole(a) ? &cr_world_bodies_c(w)[a->whole_index1 - 1] : NULL;
        cr_vec3 dw = cr_v3_zero();
        if (body != NULL) {
            cr_real rho = body->material.density;
            cr_vec3 l = cr_quat_inv_rotate(body->xf.q, torque);
            cr_vec3 I = cr_v3_scale(whole->inertia, rho);
            l = cr_v3(I.x > 0 ? cr_div(l.x, I.x) : 0, I.y > 0 ? cr_div(l.y, I.y) : 0, I.z > 0 ? cr_div(l.z, I.z) : 0);
            dw = cr_quat_rotate(body->xf.q, l);
        }
        for (uint32_t k = 0; k < n; ++k) {
            if (!in_set(w, a, &pc[k])) continue;
            cr_vec3 r = cr_v3_sub(centre_of(w, a, whole, &pc[k], k), com);
            cr_vec3 rigid = cr_v3_add(dv, cr_v3_cross(dw, r));
            load[k] = cr_v3_sub(load[k], cr_v3_scale(rigid, pc[k].mass));
        }
    }
    /* no bond can carry more than all the loads together (a potential flow
     * has no circulation): below the weakest bond's strength, nothing to do */
    cr_real bound = 0;
    for (uint32_t k = 0; k < n; ++k)
        if (in_set(w, a, &pc[k])) bound += cr_abs(load[k].x) + cr_abs(load[k].y) + cr_abs(load[k].z);
    if (bound <= cr_mul(cr_mul(a->def.strength, a->min_area), dt)) {
        a->settled = 1; /* nothing to solve: these loads break nothing */
        return work;
    }
    /* adjacency over the unbroken bonds inside the set: start[n + 1], then bond indices */
    uint32_t *start = u32, *list = u32 + n + 1;
    memset(start, 0, (n + 1) * sizeof(uint32_t));
    for (uint32_t k = 0; k < a->bond_count; ++k) {
        const cr_asset_bond *g = &whole->bonds[k];
        if (bonds[k].broken || !in_set(w, a, &pc[g->a]) || !in_set(w, a, &pc[g->b])) continue;
        start[g->a + 1]++, start[g->b + 1]++;
    }
    for (uint32_t k = 0; k < n; ++k) start[k + 1] += start[k];
    {
        /* fill in bond order; per-piece cursors in the n words after the lists */
        uint32_t *cur = list + start[n];
        memcpy(cur, start, n * sizeof(uint32_t));
        for (uint32_t k = 0; k < a->bond_count; ++k) {
            const cr_asset_bond *g = &whole->bonds[k];
            if (bonds[k].broken || !in_set(w, a, &pc[g->a]) || !in_set(w, a, &pc[g->b])) continue;
            list[cur[g->a]++] = k;
            list[cur[g->b]++] = k;
        }
    }
    work += a->bond_count;
    uint32_t sweep_cost = start[n] + n;
    uint32_t sweeps = a->def.stress_iterations;
    if (sweep_cost > 0 && (uint64_t)sweeps * sweep_cost > budget) {
        sweeps = budget / sweep_cost;
        w->stats.fracture.shrunk++;
    }
    cr_real moved = 0, largest = 0; /* the last sweep's largest change and potential, for `settled` */
    for (uint32_t it = 0; it < sweeps; ++it) {
        bool last = it + 1 == sweeps;
        for (uint32_t k = 0; k < n; ++k) {
            if (start[k] == start[k + 1] || (pc[k].anchor && a->was_static)) continue;
            cr_real sum_k = 0;
            cr_vec3 acc = load[k];
            for (uint32_t e = start[k]; e < start[k + 1]; ++e) {
                const cr_asset_bond *g = &whole->bonds[list[e]];
                uint32_t j = g->a == k ? g->b : g->a;
                cr_real len = cr_v3_len(cr_v3_sub(whole->pieces[g->a].centroid, whole->pieces[g->b].centroid));
                cr_real c = cr_div(g->area, len > CR_R(1e-3) ? len : CR_R(1e-3));
                sum_k += c;
                acc = cr_v3_mad(acc, c, pc[j].stress_u);
            }
            cr_vec3 u = cr_v3_scale(acc, cr_div(CR_R(1), sum_k));
            if (last) {
                moved = cr_max(moved, cr_v3_len(cr_v3_sub(u, pc[k].stress_u)));
                largest = cr_max(largest, cr_v3_len(u));
            }
            pc[k].stress_u = u;
        }
    }
    work += sweeps * sweep_cost;
    /* bond forces from the potentials */
    cr_real inv_dt = cr_div(CR_R(1), dt);
    bool over = false;
    for (uint32_t k = 0; k < a->bond_count; ++k) {
        const cr_asset_bond *g = &whole->bonds[k];
        if (bonds[k].broken || !in_set(w, a, &pc[g->a]) || !in_set(w, a, &pc[g->b])) continue;
        cr_real len = cr_v3_len(cr_v3_sub(whole->pieces[g->a].centroid, whole->pieces[g->b].centroid));
        cr_real c = cr_div(g->area, len > CR_R(1e-3) ? len : CR_R(1e-3));
        cr_real f = cr_mul(cr_mul(c, cr_v3_len(cr_v3_sub(pc[g->a].stress_u, pc[g->b].stress_u))), inv_dt);
        over = overload(w, a, k, f, g->area) || over;
    }
    /* converged: the last sweep moved no potential by more than the load tolerance of the largest */
    a->settled = !over && sweeps > 0 && moved <= cr_mul(largest, CR_FRACTURE_LOAD_TOLERANCE);
    return work;
}

uint32_t cri_fracture_joint_loads(cr_world *w, cr_fracture_actor *a, const cr_asset *whole, cr_real dt) {
    if (is_whole(a)) return 0; /* no joints while whole: no cost per piece */
    cr_fracture_bond *bonds = cri_fracture_bonds(w, a);
    cr_real inv_dt = cr_div(CR_R(1), dt);
    for (uint32_t k = 0; k < a->bond_count; ++k) {
        if (bonds[k].broken || cr_joint_id_is_null(bonds[k].joint) || !cr_joint_is_valid(w, bonds[k].joint)) continue;
        cr_real f = cr_mul(cr_v3_len(cr_joint_get_linear_impulse(w, bonds[k].joint)), inv_dt);
        overload(w, a, k, f, whole->bonds[k].area);
    }
    return a->bond_count;
}
