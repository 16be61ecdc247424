/* test_squash_scenes.c — the shipped squash scenes (data/scenes/squash_*.scene)
 * run as `crumple run` runs them, and the seed's figures checked on the drawn
 * skin: Fig. 4a's ring is the same all round, Fig. 4b's front bump is higher
 * and shorter than the back one, Fig. 5's balls bounce apart and come back to
 * rest, never above their rest volume. */
#include "test_scene_util.h"
#include "geometry/implicit_skeleton.h"
#include <math.h>
#include <stdlib.h>

#define SQS_PI 3.14159265358979323846

typedef struct skin_world {
    cr_vec3 *now, *rest; /* world frame */
    uint32_t n;
} skin_world;

static int skin_of(const scene_run *r, const char *name, skin_world *o) {
    cr_body_id id = body(r, name);
    cr_body_mesh m;
    if (cr_body_get_mesh(r->w, id, &m) != CR_OK) return -1;
    cr_transform xf = cr_body_get_transform(r->w, id);
    o->n = m.vertex_count;
    o->now = malloc(o->n * sizeof(cr_vec3)), o->rest = malloc(o->n * sizeof(cr_vec3));
    for (uint32_t v = 0; v < o->n; ++v) {
        o->now[v] = cr_transform_point(xf, m.positions[v]);
        o->rest[v] = cr_transform_point(xf, m.rest_positions[v]);
    }
    return 0;
}

static void skin_free(skin_world *o) { free(o->now), free(o->rest); }

static double top_of(const skin_world *o) {
    double t = -1e9;
    for (uint32_t v = 0; v < o->n; ++v) t = fmax(t, cr_to_double(o->rest[v].y));
    return t;
}

CR_TEST(squash_scene_drop_ring_is_the_same_all_round) {
    scene_run r;
    ENSURE(open_scene("squash_drop", &r) == 0);
    for (int32_t f = 1; f <= r.s->frames; ++f) ENSURE(step(&r, f) == 0);
    skin_world s;
    ENSURE(skin_of(&r, "slab", &s) == 0);
    double top = top_of(&s);
    cr_vec3 bp = cr_body_get_transform(r.w, body(&r, "ball")).p;
    double bx = cr_to_double(bp.x), bz = cr_to_double(bp.z), bottom = cr_to_double(bp.y) - 0.3;
    enum { S = 12 };
    double h[S] = {0}, lo = 1e9, hi = 0, mean = 0;
    for (uint32_t v = 0; v < s.n; ++v) {
        if (cr_to_double(s.rest[v].y) < top - 1e-4) continue; /* the flat top */
        double dy = cr_to_double(s.now[v].y - s.rest[v].y);
        double x = cr_to_double(s.rest[v].x) - bx, z = cr_to_double(s.rest[v].z) - bz;
        int k = (int)floor((atan2(z, x) + SQS_PI) / (2 * SQS_PI) * S) % S;
        if (dy > h[k]) h[k] = dy;
    }
    for (int k = 0; k < S; ++k) lo = fmin(lo, h[k]), hi = fmax(hi, h[k]), mean += h[k] / S;
    cr_test_printf("     squash_drop: ball %.3f m into the skin at rest; ring %.4f..%.4f m (%.2f %% spread over %d sectors)\n",
                   top - bottom, lo, hi, 100 * (hi - lo) / mean, S);
    ENSURE(top - bottom > 0.01 && top - bottom < 0.12); /* in the soft layer, held by the force */
    ENSURE(lo > 0.002);
    ENSURE((hi - lo) / mean < 0.05);
    skin_free(&s);
    close_scene(&r);
}

/* Fig. 4b in the world: at every frame the ball presses while it slides, the
 * bump in front of it is shorter than the one behind it. Its height is
 * printed, not asserted: in this scene the front bump is higher only while
 * the ball arrives (docs/squash.md says why it is not yet at every frame). */
CR_TEST(squash_scene_oblique_front_bump_higher_and_shorter) {
    scene_run r;
    ENSURE(open_scene("squash_oblique", &r) == 0);
    cr_body_id slab = body(&r, "slab");
    int frames = 0, higher = 0;
    double worst_ratio = 0;
    for (int32_t f = 1; f <= 40; ++f) {
        ENSURE(step(&r, f) == 0);
        cr_squash_view v;
        ENSURE(cr_squash_get(r.w, slab, &v) == CR_OK);
        if (v.zone_vertices < 100) continue;
        skin_world s;
        ENSURE(skin_of(&r, "slab", &s) == 0);
        double top = top_of(&s);
        cr_vec3 bp = cr_body_get_transform(r.w, body(&r, "ball")).p;
        double bx = cr_to_double(bp.x), bz = cr_to_double(bp.z), row = 1e9;
        if (fabs(bx) > 0.5) { /* both bumps on the flat top, not over its rounded edge */
            skin_free(&s);
            continue;
        }
        for (uint32_t k = 0; k < s.n; ++k)
            if (cr_to_double(s.rest[k].y) >= top - 1e-4) row = fmin(row, fabs(cr_to_double(s.rest[k].z) - bz));
        /* along the row through the ball: each bump's height, and its width as its area over its height */
        double fh = 0, bh = 0, fa = 0, ba = 0;
        for (uint32_t k = 0; k < s.n; ++k) {
            if (cr_to_double(s.rest[k].y) < top - 1e-4 || fabs(cr_to_double(s.rest[k].z) - bz) > row + 1e-6) continue;
            double x = cr_to_double(s.rest[k].x) - bx, dy = cr_to_double(s.now[k].y - s.rest[k].y);
            if (dy <= 0) continue;
            if (x < 0) fh = fmax(fh, dy), fa += dy;
            else bh = fmax(bh, dy), ba += dy;
        }
        skin_free(&s);
        ENSURE_MSG(fh > 0 && bh > 0, "frame %d: a bump is missing (front %.4f, back %.4f)", f, fh, bh);
        double fw = fa / fh, bw = ba / bh;
        ++frames, higher += fh > bh;
        worst_ratio = fmax(worst_ratio, fw / bw);
        ENSURE_MSG(fw < bw, "frame %d: front bump %.2f vertices wide, back %.2f", f, fw, bw);
        /* seed Fig. 4b: higher in front while the ball arrives and while it slides (docs/squash.md: the peak m) */
        ENSURE_MSG(fh > bh, "frame %d: front bump %.4f m high, back %.4f m", f, fh, bh);
    }
    cr_test_printf("     squash_oblique: %d frames pressing; front bump shorter in all (widest front/back %.2f), higher in %d\n",
                   frames, worst_ratio, higher);
    ENSURE(higher == frames);
    ENSURE(frames > 10);
    close_scene(&r);
}

CR_TEST(squash_scene_spheres_bounce_apart_and_come_back) {
    scene_run r;
    ENSURE(open_scene("squash_spheres", &r) == 0);
    cr_body_id l = body(&r, "left"), rr = body(&r, "right");
    double gain = -1, loss = 0, bulge_max = 0;
    for (int32_t f = 1; f <= r.s->frames; ++f) {
        ENSURE(step(&r, f) == 0);
        cr_squash_view v;
        ENSURE(cr_squash_get(r.w, l, &v) == CR_OK);
        double vr = cr_to_double(v.volume_rest), vv = cr_to_double(v.volume);
        gain = fmax(gain, (vv - vr) / vr), loss = fmax(loss, (vr - vv) / vr);
        cr_body_mesh m;
        cr_body_get_mesh(r.w, l, &m);
        for (uint32_t k = 0; k < m.vertex_count; ++k)
            bulge_max = fmax(bulge_max, cr_to_double(cr_v3_len(m.positions[k])) - cr_to_double(cr_v3_len(m.rest_positions[k])));
    }
    double vl = cr_to_double(cr_body_get_linear_velocity(r.w, l).x), vrx = cr_to_double(cr_body_get_linear_velocity(r.w, rr).x);
    cr_body_mesh m;
    cr_body_get_mesh(r.w, l, &m);
    bool rest = memcmp(m.positions, m.rest_positions, m.vertex_count * sizeof(cr_vec3)) == 0;
    cr_test_printf("     squash_spheres: after: %.3f and %.3f m/s; largest bulge %.4f m; volume %+.2g..%+.2g of rest\n", vl, vrx,
                   bulge_max, -loss, gain);
    ENSURE(vl < -0.1 && vrx > 0.1);
    ENSURE(bulge_max > 0.002);
    ENSURE(gain <= 1e-6 && loss < 0.05);
    ENSURE(rest);
    close_scene(&r);
}

/* Seed 003 §4.2: a kinematic arm (shoulder and upper arm in one skeleton, so
 * they blend) driven into a belly (another squishy body, so they collide):
 * the belly is hollowed and bulges around the arm, keeps its volume within
 * the flesh's allowed loss, and the arm's skin runs from shoulder to arm
 * without a crease. */
CR_TEST(squash_scene_character_arm_presses_belly) {
    scene_run r;
    ENSURE(open_scene("squash_character", &r) == 0);
    cr_body_id belly = body(&r, "belly"), arm = body(&r, "arm");
    double gain = -1, loss = 0;
    for (int32_t f = 1; f <= r.s->frames; ++f) {
        ENSURE(step(&r, f) == 0);
        cr_squash_view v;
        ENSURE(cr_squash_get(r.w, belly, &v) == CR_OK);
        double vr = cr_to_double(v.volume_rest), vv = cr_to_double(v.volume);
        gain = fmax(gain, (vv - vr) / vr), loss = fmax(loss, (vr - vv) / vr);
    }
    cr_body_mesh m;
    ENSURE(cr_body_get_mesh(r.w, belly, &m) == CR_OK);
    const cr_asset *a = cr_body_get_asset(r.w, belly);
    double dent = 0, bulge = 0;
    for (uint32_t k = 0; k < m.vertex_count; ++k) {
        double out = cr_to_double(cr_v3_dot(cr_v3_sub(m.positions[k], m.rest_positions[k]), a->normals[k]));
        dent = fmax(dent, -out), bulge = fmax(bulge, out);
    }
    /* the arm's skin from shoulder to hand along one side, finely sampled on its f = c: the largest
     * angle between neighbouring samples' normals (a crease where shoulder and arm meet would keep it large) */
    const cr_asset *am = cr_body_get_asset(r.w, arm);
    ENSURE(am->squash_primitive_count == 2);
    const cr_squash_primitive *pr = am->squash_primitives;
    cr_vec3 from = pr[0].a, to = pr[1].b, axis = cr_v3_normalize(cr_v3_sub(to, from));
    cr_vec3 side = cr_v3_normalize(cr_v3_cross(axis, fabs(cr_to_double(axis.y)) < 0.9 ? cr_v3(0, CR_R(1), 0) : cr_v3(CR_R(1), 0, 0)));
    double worst = 0;
    cr_vec3 prev = cr_v3_zero();
    enum { N = 4000 };
    for (int i = 0; i <= N; ++i) {
        cr_vec3 q = cr_v3_mad(cr_v3_lerp(from, to, cr_from_float((float)i / N)), CR_R(0.25), side);
        q = cri_skeleton_project(pr, 2, am->squash_isovalue, q, 12);
        cr_vec3 n = cr_v3_normalize(cr_v3_neg(cri_skeleton_potential(pr, 2, q).grad));
        if (i > 0) worst = fmax(worst, acos(fmin(1.0, cr_to_double(cr_v3_dot(n, prev)))) * 180 / SQS_PI);
        prev = n;
    }
    cr_test_printf("     squash_character: belly dent %.3f m, bulge %.4f m, volume %+.3g..%+.2g of rest; arm (%u vertices): "
                   "largest normal step along its side %.3f deg (%d samples)\n", dent, bulge, -loss, gain, am->vertex_count, worst, N);
    ENSURE(dent > 0.05 && bulge > 0.002);
    ENSURE(gain <= 1e-6 && loss < 0.2 + 0.05);
    ENSURE(worst < 1.0);
    close_scene(&r);
}
