/* pair_turn.c — a pair of moving bodies as one rigid body: its centre of
 * mass and inertia, its rigid motion, and the rigid turn that gives the pair
 * back angular momentum a position-level correction shifted.
 *
 * Two position corrections move bodies with their velocities unchanged: the
 * joints' post-stabilisation (joint.c) and the contact push-out (push_out.c,
 * applied by world.c's position update). A move dx of a body with velocity v
 * changes its orbital angular momentum about a fixed point by m dx x v; a
 * pair moved by equal and opposite m dx (a position-level impulse P, a
 * pseudo-impulse jp n dt) shifts it by P x (v_a - v_b). That shift is given
 * back here as a rigid turn of the pair about its centre of mass (dw =
 * I_pair^-1 dl on both bodies, dw x r on their velocities), which keeps the
 * pair's momentum, meets any joint between them, and adds energy only to
 * first order (dw . L_c): that is taken back from the pair's motion relative
 * to its rigid motion, which carries neither momentum nor angular momentum
 * (docs/bending.md "Momentum").
 *
 * A turned body keeps its spin's angular momentum I(q) w, not w: the
 * helpers for that are cri_inertia_spin_momentum / cri_inertia_spin_of
 * (base/inertia.h).
 */
#include "solver/solver.h"
#include "base/inertia.h"

/* Found by the scene fuzzer (fixed point): a 364 m box pushed against
 * another body summed its pair's inertia past 2^31 in cri_solve_k's trace. */
#define CR_PAIR_LIMIT CR_R(67108864.0) /* 2^26 */
#define CR_PAIR_SPEED CR_R(4096.0)     /* 2^12, per component */

static bool small_vec(cr_vec3 a) {
    return cr_abs(a.x) <= CR_PAIR_SPEED && cr_abs(a.y) <= CR_PAIR_SPEED && cr_abs(a.z) <= CR_PAIR_SPEED;
}

bool cri_pair_in_range(const cr_body *const bs[2], const cr_vec3 v[2], const cr_vec3 w[2]) {
    cr_real m = 0;
    for (int k = 0; k < 2; ++k) {
        const cr_body *b = bs[k];
        const cr_vec3 d = b->inertia, o = b->inertia_products;
        cr_real most = cr_max(d.x, cr_max(d.y, d.z));
        most = cr_max(most, cr_max(cr_abs(o.x), cr_max(cr_abs(o.y), cr_abs(o.z))));
        if (b->mass > CR_PAIR_LIMIT || most > CR_PAIR_LIMIT || !small_vec(v[k]) || !small_vec(w[k])) return false;
        /* the energies, their squares at most 3 2^24 here */
        if (cr_v3_len_sq(v[k]) > cr_div(CR_PAIR_LIMIT, b->mass)) return false;
        if (most > 0 && cr_v3_len_sq(w[k]) > cr_div(CR_PAIR_LIMIT, most)) return false;
        m += b->mass;
    }
    const cr_vec3 r = cr_v3_sub(bs[0]->xf.p, bs[1]->xf.p);
    return small_vec(r) && cr_v3_len_sq(r) <= cr_div(CR_PAIR_LIMIT, m);
}

cri_pair_mass cri_pair_mass_of(const cr_body *const bs[2]) {
    cri_pair_mass pm;
    cr_real m = bs[0]->mass + bs[1]->mass;
    pm.c = cr_v3_scale(cr_v3_add(cr_v3_scale(bs[0]->xf.p, bs[0]->mass), cr_v3_scale(bs[1]->xf.p, bs[1]->mass)), cr_div(CR_R(1), m));
    pm.inertia = cr_mat3_scale(cr_mat3_identity(), 0);
    for (int k = 0; k < 2; ++k) {
        pm.r[k] = cr_v3_sub(bs[k]->xf.p, pm.c);
        pm.ik[k] = cri_inertia_world(bs[k], cr_mat3_from_quat(bs[k]->xf.q));
        cr_mat3 rx = cr_mat3_skew(pm.r[k]);
        pm.inertia = cr_mat3_add(pm.inertia, cr_mat3_add(pm.ik[k], cr_mat3_scale(cr_mat3_mul(rx, rx), -bs[k]->mass)));
    }
    return pm;
}

cr_real cri_pair_rigid(const cr_body *const bs[2], const cri_pair_mass *pm, const cr_vec3 v[2], const cr_vec3 w[2], cr_vec3 *vr,
                       cr_vec3 *wr) {
    cr_real m = bs[0]->mass + bs[1]->mass;
    *vr = cr_v3_scale(cr_v3_add(cr_v3_scale(v[0], bs[0]->mass), cr_v3_scale(v[1], bs[1]->mass)), cr_div(CR_R(1), m));
    cr_vec3 l = cr_v3_zero();
    for (int k = 0; k < 2; ++k)
        l = cr_v3_add(l, cr_v3_add(cr_mat3_mul_v3(pm->ik[k], w[k]), cr_v3_scale(cr_v3_cross(pm->r[k], cr_v3_sub(v[k], *vr)), bs[k]->mass)));
    *wr = cri_solve_k(pm->inertia, l);
    cr_real ei = 0;
    for (int k = 0; k < 2; ++k) {
        cr_vec3 dv = cr_v3_sub(v[k], cr_v3_add(*vr, cr_v3_cross(*wr, pm->r[k]))), dw = cr_v3_sub(w[k], *wr);
        ei += cr_mul(bs[k]->mass, cr_v3_dot(dv, dv)) + cr_v3_dot(dw, cr_mat3_mul_v3(pm->ik[k], dw));
    }
    return ei;
}

void cri_pair_scale_relative(const cr_body *b, cr_vec3 *v, cr_vec3 *w, cr_vec3 vr, cr_vec3 wr, cr_vec3 c, cr_real f) {
    cr_vec3 rigid = cr_v3_add(vr, cr_v3_cross(wr, cr_v3_sub(b->xf.p, c)));
    *v = cr_v3_add(rigid, cr_v3_scale(cr_v3_sub(*v, rigid), f));
    *w = cr_v3_add(wr, cr_v3_scale(cr_v3_sub(*w, wr), f));
}

/* Twice a body's kinetic energy. */
static cr_real body_energy(const cr_body *b) {
    cr_vec3 wl = cr_quat_inv_rotate(b->xf.q, b->w), d = b->inertia;
    cr_real e = cr_mul(b->mass, cr_v3_dot(b->v, b->v));
    if (!cri_inertia_principal(b)) return e + cri_inertia_energy(b, wl);
    return e + cr_mul(d.x, cr_mul(wl.x, wl.x)) + cr_mul(d.y, cr_mul(wl.y, wl.y)) + cr_mul(d.z, cr_mul(wl.z, wl.z)); /* the sum's order of old: the same bits */
}

/* The turn's energy is first order in dw (dw . L about the pair's centre):
 * what it adds is taken back from the pair's motion relative to its rigid
 * motion (scaled, which keeps momentum and angular momentum) when that
 * motion has four times as much; else it stays. For rigid joints the turns
 * added up (a pinned 4-link chain's tip rose 0.05-0.1 m in 10 s,
 * test_joint.c), so joint.c turns bending joints' pairs only. */
void cri_pair_turn(cr_body *ba, cr_body *bb, cr_vec3 dl) {
    cr_body *bs[2] = {ba, bb};
    const cr_body *const cbs[2] = {ba, bb};
    const cr_vec3 v0[2] = {ba->v, bb->v}, w0[2] = {ba->w, bb->w};
    if (!cri_pair_in_range(cbs, v0, w0)) return;
    cr_real e0 = body_energy(ba) + body_energy(bb);
    cri_pair_mass pm = cri_pair_mass_of(cbs);
    cr_vec3 dw = cri_solve_k(pm.inertia, dl);
    for (int k = 0; k < 2; ++k) {
        bs[k]->v = cr_v3_add(bs[k]->v, cr_v3_cross(dw, pm.r[k]));
        bs[k]->w = cr_v3_add(bs[k]->w, dw);
    }
    cr_real gained = body_energy(ba) + body_energy(bb) - e0;
    if (gained <= 0) return;
    const cr_vec3 v[2] = {ba->v, bb->v}, w[2] = {ba->w, bb->w};
    cr_vec3 vr, wr;
    cr_real ei = cri_pair_rigid(cbs, &pm, v, w, &vr, &wr);
    if (ei <= cr_mul(gained, CR_R(4))) return; /* too little relative motion to take it from without amplifying rounding */
    cr_real f = cr_sqrt(cr_div(ei - gained, ei));
    for (int k = 0; k < 2; ++k) cri_pair_scale_relative(bs[k], &bs[k]->v, &bs[k]->w, vr, wr, pm.c, f);
}
