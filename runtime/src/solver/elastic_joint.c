/* elastic_joint.c — the torsion spring of an elastic joint, integrated in
 * closed form (seed 000 §4.3).
 *
 * The two bodies of the joint reduce to one damped oscillator in the relative
 * rotation phi (b's deviation from the rest orientation, a rotation vector):
 *     I phi'' + C phi' + kappa phi = 0,   I = (I_1^-1 + I_2^-1)^-1
 * (the seed's (I_1 + I_2)^-1 I_1 I_2, here along the direction the joint
 * moves in, so one scalar I). Its exact solution over a step maps
 * (phi_n, w_n) to (phi_n+1, w_n+1) linearly:
 *     phi_n+1 = a phi_n + b w_n,   w_n+1 = c phi_n + d w_n
 * in each of the three damping regimes, with crumple's own exp, sin, cos, so
 * float and Q32.32 agree with themselves on every machine. Being the exact
 * flow, it is stable at any stiffness: kappa dt^2 / I can be 1000 and the
 * energy still only falls.
 *
 * joint.c uses it twice: pre-stabilisation aims the relative angular velocity
 * at (phi_n+1 - phi_n)/dt, the seed's impulse I((phi_n+1 - phi_n)/dt - w_n), so
 * the position update lands on phi_n+1; post-stabilisation then sets the
 * relative angular velocity to w_n+1, so the next step starts from the exact
 * state (with the secant velocity instead, the period came out sqrt(2) long).
 */
#include "solver/solver.h"

/* Below this omega_d dt the regime is treated as critical: sin(x)/x and
 * sinh(x)/x are 1 to within x^2/6 < 2e-7. */
#define CR_SPRING_CRITICAL CR_R(0.001)

void cri_spring_step_map(cr_real inertia, cr_real stiffness, cr_real damping, cr_real dt, cr_real m[4]) {
    m[0] = CR_R(1), m[1] = dt, m[2] = 0, m[3] = CR_R(1);
    if (inertia <= 0) return;
    cr_real gamma = cr_div(damping, inertia + inertia);     /* 1/s */
    cr_real w0sq = cr_div(stiffness, inertia);               /* 1/s^2 */
    cr_real gsq = cr_mul(gamma, gamma);
    cr_real e = cr_exp(-cr_mul(gamma, dt));
    if (w0sq > gsq) {
        cr_real wd = cr_sqrt(w0sq - gsq);
        if (cr_mul(wd, dt) > CR_SPRING_CRITICAL) {
            /* under-damped: e^{-gt} (cos wd t, sin wd t / wd) */
            cr_real c = cr_cos(cr_mul(wd, dt)), s = cr_sin(cr_mul(wd, dt));
            cr_real s_wd = cr_div(s, wd);
            m[0] = cr_mul(e, c + cr_mul(gamma, s_wd));
            m[1] = cr_mul(e, s_wd);
            m[2] = -cr_mul(e, cr_mul(w0sq, s_wd));
            m[3] = cr_mul(e, c - cr_mul(gamma, s_wd));
            return;
        }
    } else {
        cr_real sd = cr_sqrt(gsq - w0sq);
        if (cr_mul(sd, dt) > CR_SPRING_CRITICAL) {
            /* over-damped: roots r = -g +- sd, written through e1 = e^{r1 t}, e2 = e^{r2 t} */
            cr_real r1 = sd - gamma, r2 = -sd - gamma;
            cr_real e1 = cr_exp(cr_mul(r1, dt)), e2 = cr_exp(cr_mul(r2, dt));
            cr_real sh = cr_div(e1 - e2, sd + sd); /* e^{-gt} sinh(sd t) / sd */
            m[0] = cr_div(e1 + e2, CR_R(2)) + cr_mul(gamma, sh);
            m[1] = sh;
            m[2] = -cr_mul(w0sq, sh);
            m[3] = cr_div(cr_mul(r1, e1) - cr_mul(r2, e2), sd + sd);
            return;
        }
    }
    /* critical (or within CR_SPRING_CRITICAL of it): e^{-gt} (1 + g t, t) */
    m[0] = cr_mul(e, CR_R(1) + cr_mul(gamma, dt));
    m[1] = cr_mul(e, dt);
    m[2] = -cr_mul(e, cr_mul(gsq, dt));
    m[3] = cr_mul(e, CR_R(1) - cr_mul(gamma, dt));
}
