/* plastic_joint.c — the yield of a plastic joint (seed 000 §4.1).
 *
 * A plastic joint is a fixed joint with a bending strength. In
 * pre-stabilisation the angular impulse is computed first, as for any fixed
 * joint, but the impulse *accumulated* over the iterations is clamped at the
 * bending strength (the seed's prestabilisation is iterative, so clamping each
 * iteration's impulse would let the sum exceed it). A joint that needed less
 * holds exactly as a rigid joint does; a joint that needed more lets the rest
 * of the relative angular velocity through and bends. The linear impulse comes
 * after, unclamped, so the bones never come apart.
 *
 * After the position update the rest orientation becomes the current relative
 * orientation (joint.c: post-stabilisation), so the bend stays with no load.
 * Rigid post-stabilisation would stop the bend dead; the seed aims the relative
 * angular velocity at a damped target instead, so a bend keeps growing for a
 * moment after the hit and settles: |w| loses bend_damping * |w| dt
 * (proportional) + bend_damping_constant dt (constant) each step, and reaches
 * exactly zero in finite time thanks to the constant part.
 */
#include "solver/solver.h"

cr_vec3 cri_plastic_clamp(cr_joint *jt, cr_vec3 l) {
    cr_vec3 sum = cr_v3_add(jt->angular_impulse, l);
    cr_real n = cr_v3_len(sum);
    if (n <= jt->bend_strength) return l;
    jt->yielded = 1;
    cr_vec3 clamped = cr_v3_scale(sum, cr_div(jt->bend_strength, n));
    return cr_v3_sub(clamped, jt->angular_impulse);
}

cr_vec3 cri_plastic_damped_rate(const cr_joint *jt, cr_vec3 w_rel, cr_real dt) {
    cr_real n = cr_v3_len(w_rel);
    if (n <= 0) return cr_v3_zero();
    cr_real keep = CR_R(1) - cr_mul(jt->bend_damping, dt) - cr_div(cr_mul(jt->bend_damping_constant, dt), n);
    if (keep <= 0) return cr_v3_zero();
    return cr_v3_scale(w_rel, keep);
}
