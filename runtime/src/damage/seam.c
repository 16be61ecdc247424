/* seam.c — re-segmenting a bent body at its joints (seed 000 §4: "the
 * level set of the deformed body"), so the bent surface stays closed where
 * two sub-bodies meet.
 *
 * Why: a sub-body's grid reads "one cell outside" at the nodes other bones
 * own (sub_body.c), so at a joint each grid ends in a cut face, and between
 * the last node of one bone and the first node of the next both grids read
 * outside: a slit through the body. Straight, a projectile rarely finds it;
 * bent by tens of degrees, a body resting in the V sinks into it and slips
 * through after a second or so (docs/bending.md "Seams").
 *
 * Straight, the slit is narrower but still there: a 4 cm cube set on the
 * straight joint of a freshly split rod sank 24 mm into it, a 2 cm ball 51 mm
 * (bend_straight_seam_holds_a_small_body). So a joint's seam is also made as
 * soon as the joint exists with its grids as cut (attach, a split, a wake:
 * bones[k].seam all zero), whatever its turn, in the same budget and order.
 *
 * What: when a joint's seam is not made yet, or it has turned more than the
 * def's seam_angle since its seam was last made, each side's grid is re-made
 * in a band of SEAM_BAND_CELLS
 * 6-neighbour steps into the other side's nodes: there it reads the union of
 * the other side where it is now (its restricted level set, the rest grid
 * with the fill at nodes it does not own, through the two sub-bodies'
 * current poses) and the rest body as if that part of it had stayed with this
 * side (the rest grid itself: the part of the bent surface the skinned mesh
 * blends across, which the other side's rigid turn opens as a wedge on the
 * outside of the bend). That rest body, carried rigidly with this side,
 * stands out past the other bone's surface on the outside of the bend by up
 * to the band's depth times the turn (a ball rested 23 / 41 / 76 mm above the
 * drawn pipe at 0.3 / 0.6 / 1.0 rad, cell 69 mm), so it is first clipped by
 * the whole rest body where the other bone is now (the same trilinear sample
 * without the fill): band = min(max(rest, whole there), restricted there).
 * The clip keeps the wedge (the wedge is inside both rest bodies) and,
 * straight, changes nothing (the two poses agree). Near the joint each grid
 * then is closed across the seam, so a body there is pushed out of the
 * surface, not along the cut, and on the outside of the bend it stands proud
 * of the drawn surface by 0.1 / 5.4 / 30 mm: what is left is the mitred
 * corner of two rigid rods against the linear-blend skin, which cuts the
 * corner (bend_seam_band_is_not_proud_of_the_drawn_surface).
 * Beyond the band the grid is as cut (the other bone's own grid holds there). Only nodes the other side
 * owns are written, so patches of different joints of one bone never touch
 * the same node, and the result depends only on the poses at the step it was
 * made in.
 *
 * Budget: seams_per_step joints per step over all bodies, in record and
 * bone order from the joint that waited last step (it goes first); the rest
 * wait (not counted in stats.bend.waiting, which stays the splits and re-skins that wait: a seam is checked again every
 * step, so one that waits is not work queued), each re-segmented joint counts
 * in stats.bend.done and its nodes in work. The rest
 * grid read is the cooked one: a dent of the other bone is not in the band
 * (it is in that bone's own grid).
 */
#include "damage/bend_model.h"
#include "damage/sub_body.h"
#include "damage/stage.h"

#include <string.h>

/// 6-neighbour steps into the other bone's nodes the band reaches (the slit
/// is between the last node of one and the first of the other; two steps
/// keep the band's edge a full cell inside the other bone's own surface).
#define SEAM_BAND_CELLS 2

/* Trilinear interpolation of a cell's corner values v (x fastest) at t. */
static cr_real trilinear(const cr_real v[8], const cr_real t[3]) {
    cr_real x0 = v[0] + cr_mul(t[0], v[1] - v[0]), x1 = v[2] + cr_mul(t[0], v[3] - v[2]);
    cr_real x2 = v[4] + cr_mul(t[0], v[5] - v[4]), x3 = v[6] + cr_mul(t[0], v[7] - v[6]);
    cr_real y0 = x0 + cr_mul(t[1], x1 - x0), y1 = x2 + cr_mul(t[1], x3 - x2);
    return y0 + cr_mul(t[2], y1 - y0);
}

/* The restricted level set of `bone` at rest point q: trilinear over the rest
 * grid, a corner another bone owns raised to the fill; outside the grid: the
 * value at the nearest point of the grid's box plus the distance to it (a
 * distance grows at most that fast). Returning the fill there, as this did,
 * put a wall one cell outside along the box's faces wherever a band node on
 * them maps a rounding error past the box (a straight seam does: 0.095 m
 * where the grid read 0.455 m on fine_bar, and a ball stopped 0.3 m above the
 * bar). A NaN: the fill. *whole: the same for the whole rest body (no
 * corner raised), from the same eight corners. */
static cr_real restricted_at(const cr_asset *a, const uint8_t *owner, uint32_t bone, cr_real fill, cr_vec3 q, cr_real *whole) {
    cr_real c[3] = {cr_mul(q.x - a->sdf_origin.x, a->sdf_inv_cell), cr_mul(q.y - a->sdf_origin.y, a->sdf_inv_cell),
                    cr_mul(q.z - a->sdf_origin.z, a->sdf_inv_cell)};
    uint32_t idx[3];
    cr_real t[3];
    cr_vec3 out = cr_v3_zero(); /* cells past the box, per axis */
    for (int k = 0; k < 3; ++k) {
        cr_real top = cr_from_int((int32_t)a->sdf_dims[k] - 1);
#if !CR_FIXED
        if (!(c[k] >= 0 || c[k] < 0)) return *whole = fill; /* a NaN (Q32.32 has none) */
#endif
        cr_real e = c[k] < 0 ? c[k] : (c[k] > top ? c[k] - top : 0);
        if (k == 0) out.x = e;
        else if (k == 1) out.y = e;
        else out.z = e;
        c[k] = cr_clamp(c[k], 0, top);
        int32_t i = cr_floor_int(c[k]);
        if (i > (int32_t)a->sdf_dims[k] - 2) i = (int32_t)a->sdf_dims[k] - 2;
        idx[k] = (uint32_t)i;
        t[k] = c[k] - cr_from_int(i);
    }
    uint32_t nx = a->sdf_dims[0], nxy = a->sdf_dims[0] * a->sdf_dims[1];
    cr_real v[8], u[8];
    for (int k = 0; k < 8; ++k) {
        uint32_t n = (idx[0] + (k & 1)) + (idx[1] + ((k >> 1) & 1)) * nx + (idx[2] + ((k >> 2) & 1)) * nxy;
        u[k] = a->sdf[n];
        v[k] = owner[n] == bone ? a->sdf[n] : cr_max(a->sdf[n], fill);
    }
    cr_real inside = trilinear(v, t);
    *whole = trilinear(u, t);
    if (out.x == 0 && out.y == 0 && out.z == 0) return inside;
    cr_real past = cr_mul(cr_v3_len(out), a->sdf_cell);
    *whole += past;
    return inside + past;
}

/* The point of node n (rest frame) as seen by the other bone: moved with
 * bone `from` (its frame: minus its centre), then through rel into bone
 * `to`'s frame, plus its centre: a rest-frame point again. */
static cr_vec3 node_through(const cr_asset *a, uint32_t i, uint32_t j, uint32_t k, cr_vec3 from_centre, cr_transform rel,
                            cr_vec3 to_centre) {
    cr_vec3 x = cr_v3(a->sdf_origin.x + cr_mul(cr_from_int((int32_t)i), a->sdf_cell) - from_centre.x,
                      a->sdf_origin.y + cr_mul(cr_from_int((int32_t)j), a->sdf_cell) - from_centre.y,
                      a->sdf_origin.z + cr_mul(cr_from_int((int32_t)k), a->sdf_cell) - from_centre.z);
    return cr_v3_add(cr_transform_point(rel, x), to_centre);
}

/* Re-make the seam between bones s and o: s's grid at o's nodes within
 * SEAM_BAND_CELLS 6-neighbour steps of s's nodes (through o's nodes), and
 * o's grid at s's nodes likewise. band[n] is a node's step count from the
 * other bone (0: not in the band). Only the interface is searched on the
 * whole grid; the deeper steps and the writes stay in the box around it.
 * Returns the work. */
static uint32_t patch_seam(cr_world *w, uint32_t rec, uint32_t s, uint32_t o, uint8_t *band) {
    const cr_bend_body *r = &cri_bend_records(w)[rec];
    const cr_bend_bone *bones = cri_bend_bones(w, rec);
    const cr_asset *a = cri_damage_rest_asset(w, cr_world_bodies_c(w)[r->body_index1 - 1].shape.asset);
    cr_surface_copy *cs = cri_damage_surface_of(w, bones[s].sub.index1), *co = cri_damage_surface_of(w, bones[o].sub.index1);
    if (a == NULL || cs == NULL || co == NULL) return 0;
    const uint8_t *owner = cri_bend_node_bone(w, rec);
    uint32_t nx = a->sdf_dims[0], ny = a->sdf_dims[1], nz = a->sdf_dims[2], nxy = nx * ny, nodes = nxy * nz;
    memset(band, 0, nodes);
    /* step 1: nodes of either bone with a neighbour of the other, and their box */
    uint32_t lo[3] = {nx, ny, nz}, hi[3] = {0, 0, 0}, work = nodes;
    for (uint32_t k = 0, n = 0; k < nz; ++k)
        for (uint32_t j = 0; j < ny; ++j)
            for (uint32_t i = 0; i < nx; ++i, ++n) {
                uint32_t b = owner[n], other;
                if (b == s) other = o;
                else if (b == o) other = s;
                else continue;
                if ((i > 0 && owner[n - 1] == other) || (i + 1 < nx && owner[n + 1] == other) ||
                    (j > 0 && owner[n - nx] == other) || (j + 1 < ny && owner[n + nx] == other) ||
                    (k > 0 && owner[n - nxy] == other) || (k + 1 < nz && owner[n + nxy] == other)) {
                    band[n] = 1;
                    const uint32_t c[3] = {i, j, k};
                    for (int m = 0; m < 3; ++m) lo[m] = c[m] < lo[m] ? c[m] : lo[m], hi[m] = c[m] > hi[m] ? c[m] : hi[m];
                }
            }
    if (hi[0] < lo[0]) return work; /* the bones do not touch */
    const uint32_t dims[3] = {nx, ny, nz};
    for (int m = 0; m < 3; ++m) { /* the deeper steps reach SEAM_BAND_CELLS - 1 nodes further */
        lo[m] = lo[m] >= SEAM_BAND_CELLS - 1 ? lo[m] - (SEAM_BAND_CELLS - 1) : 0;
        hi[m] = hi[m] + SEAM_BAND_CELLS - 1 < dims[m] ? hi[m] + SEAM_BAND_CELLS - 1 : dims[m] - 1;
    }
    /* the next steps go through the node's own bone's nodes */
    for (uint8_t d = 1; d < SEAM_BAND_CELLS; ++d)
        for (uint32_t k = lo[2]; k <= hi[2]; ++k)
            for (uint32_t j = lo[1]; j <= hi[1]; ++j)
                for (uint32_t i = lo[0], n = lo[0] + j * nx + k * nxy; i <= hi[0]; ++i, ++n) {
                    uint32_t b = owner[n];
                    if (band[n] != 0 || (b != s && b != o)) continue;
                    if ((i > 0 && band[n - 1] == d && owner[n - 1] == b) || (i + 1 < nx && band[n + 1] == d && owner[n + 1] == b) ||
                        (j > 0 && band[n - nx] == d && owner[n - nx] == b) ||
                        (j + 1 < ny && band[n + nx] == d && owner[n + nx] == b) ||
                        (k > 0 && band[n - nxy] == d && owner[n - nxy] == b) ||
                        (k + 1 < nz && band[n + nxy] == d && owner[n + nxy] == b))
                        band[n] = (uint8_t)(d + 1);
                }
    /* s's frame <-> o's frame, through where the two sub-bodies are now */
    cr_transform xs = cri_bend_bone_pose(w, bones, s), xo = cri_bend_bone_pose(w, bones, o);
    cr_transform s_to_o = cr_transform_mul(cr_transform_inverse(xo), xs), o_to_s = cr_transform_mul(cr_transform_inverse(xs), xo);
    cr_real fill = cr_mul(cr_from_int(CR_SUB_BODY_FILL_CELLS), a->sdf_cell);
    cr_real *sdf_s = CR_AT(w, cs->sdf, cr_real), *sdf_o = CR_AT(w, co->sdf, cr_real);
    for (uint32_t k = lo[2]; k <= hi[2]; ++k)
        for (uint32_t j = lo[1]; j <= hi[1]; ++j)
            for (uint32_t i = lo[0], n = lo[0] + j * nx + k * nxy; i <= hi[0]; ++i, ++n) {
                if (band[n] == 0) continue;
                /* an o node is written into s's grid (o's shape where o is now), an s node into o's */
                bool of_o = owner[n] == o;
                cr_vec3 q = of_o ? node_through(a, i, j, k, bones[s].centre, s_to_o, bones[o].centre)
                                 : node_through(a, i, j, k, bones[o].centre, o_to_s, bones[s].centre);
                /* the rest body clipped by the whole rest body where the other bone is now, then joined
                 * with the other bone's own part there (see the header: the clip keeps the band inside
                 * the other bone's surface on the outside of the bend) */
                cr_real whole, there = restricted_at(a, owner, of_o ? o : s, fill, q, &whole);
                cr_real v = cr_min(cr_max(a->sdf[n], whole), there);
                if (of_o) sdf_s[n] = v;
                else sdf_o[n] = v;
                work += 8; /* the eight corners, read once for both samples */
            }
    work += SEAM_BAND_CELLS * (hi[0] - lo[0] + 1) * (hi[1] - lo[1] + 1) * (hi[2] - lo[2] + 1);
    cs->changes++;
    co->changes++;
    return work;
}

uint32_t cri_bend_seams(cr_world *w) {
    const cr_bend_budget *bd = &w->def.damage.bend;
    uint32_t budget = bd->seams_per_step, done = 0, work = 0;
    if (budget == 0 || bd->body_capacity == 0) return 0;
    uint8_t *band = cri_bend_scratch(w).node_bone;
    /* the cursor names a record and a bone in it: the joint that waited goes first */
    uint32_t cursor = CR_DAMAGE(w)->bend.next_seam % (bd->body_capacity * bd->max_bones);
    uint32_t start = cursor / bd->max_bones, first = cursor % bd->max_bones;
    for (uint32_t m = 0; m <= bd->body_capacity; ++m) {
        uint32_t rec = (start + m) % bd->body_capacity;
        cr_bend_body *r = &cri_bend_records(w)[rec];
        if (r->body_index1 == 0 || r->def.seam_angle <= 0 || r->bone_count == 0) continue;
        cr_bend_bone *bones = cri_bend_bones(w, rec);
        /* the start record is visited twice: from its first bone, then (at the end) the bones before it */
        uint32_t k0 = m == 0 ? first : 0, k1 = m == bd->body_capacity ? first : r->bone_count;
        for (uint32_t k = k0; k < k1 && k < r->bone_count; ++k) {
            int32_t p = bones[k].parent;
            if (p < 0 || bones[k].cluster >= 0 || bones[p].cluster >= 0 || bones[k].joint.index1 == 0) continue;
            cr_quat now = cr_quat_mul(cr_quat_conj(cri_bend_bone_pose(w, bones, (uint32_t)p).q),
                                      cri_bend_bone_pose(w, bones, k).q);
            cr_quat last = bones[k].seam;
            bool unmade = last.w == 0 && last.x == 0 && last.y == 0 && last.z == 0;
            if (!unmade) {
                cr_quat d = cr_quat_mul(cr_quat_conj(last), now);
                /* 2 sin(turn / 2) against the angle: no trigonometry, the same test to second order */
                cr_real s2 = cr_mul(d.x, d.x) + cr_mul(d.y, d.y) + cr_mul(d.z, d.z);
                cr_real half = cr_mul(cr_min(r->def.seam_angle, CR_R(2)), CR_R(0.5)); /* 2 sin(turn / 2) <= 2: more is never */
                if (s2 <= cr_mul(half, half)) continue;
            }
            if (done == budget) { /* this one waits, and goes first next step */
                CR_DAMAGE(w)->bend.next_seam = rec * bd->max_bones + k;
                w->stats.bend.done += done;
                return work;
            }
            work += patch_seam(w, rec, k, (uint32_t)p, band);
            bones[k].seam = now;
            ++done;
        }
    }
    w->stats.bend.done += done;
    return work;
}
