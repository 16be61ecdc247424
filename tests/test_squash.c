/* test_squash.c — seed 003 §3 on arrays: the blend function's end
 * conditions, C1 skins across both zone borders, the axisymmetric bulge of a
 * vertical drop (Fig. 4a), the higher and shorter front bump of an oblique
 * one (Fig. 4b), and the volume rule. */
#include "test.h"
#include "test_squash_util.h"

#define SQ_PI 3.14159265358979323846

/* A squishy slab: one rectangle primitive (a flat face), top at y ~ 0.454 R. */
static cr_squash_primitive slab(cr_real half, cr_real radius) {
    cr_squash_primitive p = cr_default_squash_primitive();
    p.type = CR_SQUASH_RECT;
    p.b = cr_v3(half, 0, 0), p.e = cr_v3(0, 0, half);
    p.radius = radius;
    return p;
}

static double top_of(const cr_squash_primitive *p, cr_real c) {
    return cr_to_double(sq_ray_surface(p, 1, c, cr_v3_zero(), cr_v3(0, CR_R(1), 0), CR_R(10)).y);
}

CR_TEST(squash_blend_meets_its_four_end_conditions) {
    /* several shapes of b1: narrow and wide zones, peaks early and late, low and high bumps */
    const double cs[][4] = {{0.1, 0.3, 0.02, 0.5}, {0.25, 0.3, 0.2, 0.5}, {0.05, 0.45, 0.001, 0.5}, {0.3, 0.6, 0.1, 0.9}};
    double worst = 0;
    for (int k = 0; k < 4; ++k) {
        cr_real c1 = cr_from_float((float)cs[k][0]), m = cr_from_float((float)cs[k][1]);
        cr_real h = cr_from_float((float)cs[k][2]), c = cr_from_float((float)cs[k][3]);
        double e = 1e-6, slope_l, slope_r;
        cr_real s;
        cr_real eps = cr_from_float((float)e);
        /* at c1: value and slope 0 (from inside) */
        double v = cr_to_double(cri_squash_bulge(c1 + eps, c1, m, h, c, &s));
        worst = fmax(worst, fabs(v));
        ENSURE_NEAR(v, 0, 1e-6);
        /* the slope falls to 0 linearly: 6 h eps / (m - c1)^2 at eps past c1 */
        double l = cs[k][1] - cs[k][0];
        ENSURE_NEAR(cr_to_double(s), 0, 1e-6 + 6.1 * cs[k][2] * e / (l * l));
        /* at the peak: h, and a zero slope from both sides */
        ENSURE_NEAR(cr_to_double(cri_squash_bulge(m, c1, m, h, c, &s)), cr_to_double(h), 1e-6);
        cri_squash_bulge(m - eps, c1, m, h, c, &s), slope_l = cr_to_double(s);
        cri_squash_bulge(m + eps, c1, m, h, c, &s), slope_r = cr_to_double(s);
        ENSURE_NEAR(slope_l, 0, 1e-6 + 6.1 * cs[k][2] * e / (l * l));
        ENSURE_NEAR(slope_r, 0, 1e-4);
        /* at c: value 0 and slope -1, the compression's slope */
        v = cr_to_double(cri_squash_bulge(c - eps, c1, m, h, c, &s));
        ENSURE_NEAR(v, 0, 2e-6);
        ENSURE_NEAR(cr_to_double(s), -1, 1e-4);
        /* the slope the function reports is its derivative (finite differences inside both cubics) */
        for (int j = 1; j < 20; ++j) {
            double x = cs[k][0] + (cs[k][3] - cs[k][0]) * (j + 0.37) / 20.0, d = 1e-4; /* off the peak: b1'' jumps there */
            cr_real xr = cr_from_float((float)x), dr = cr_from_float((float)d);
            double up = cr_to_double(cri_squash_bulge(xr + dr, c1, m, h, c, &s));
            double dn = cr_to_double(cri_squash_bulge(xr - dr, c1, m, h, c, &s));
            cri_squash_bulge(xr, c1, m, h, c, &s);
            ENSURE_NEAR((up - dn) / (2 * cr_to_double(dr)), cr_to_double(s), 2e-3);
        }
        /* never below 0 inside the zone: a dilation, never a second dent */
        for (int j = 0; j <= 200; ++j) {
            cr_real x = c1 + (cr_real)((c - c1) / 200) * j;
            ENSURE(cri_squash_bulge(x, c1, m, h, c, &s) >= -CR_R(1e-9));
        }
    }
    cr_test_printf("     blend b1: worst |b1(c1 + 1e-6)| %.2g\n", worst);
}

/* A line of n skin points across the contact, deformed; returns the largest
 * angle (deg) between neighbours' normals and counts the zones it crossed. */
static double line_normal_step(int n, int *compressed, int *dilated, int *at_rest, int *crossings, double *dent,
                               double *bulge) {
    cr_squash_primitive p = slab(CR_R(1.2), CR_R(1));
    cri_squash_params prm = sq_params(&p, 1);
    prm.fixed_scale = CR_R(1);
    double top = top_of(&p, prm.c);
    cr_shape_def ball = {CR_SHAPE_SPHERE, CR_R(0.45), {0, 0, 0}, 0};
    cr_vec3 at = cr_v3(CR_R(0.05), cr_from_float((float)(top + 0.45 - 0.12)), 0);
    cri_squash_other o = sq_rigid_sphere(&ball, at, cr_v3(0, -CR_R(1), 0), prm.c, CR_R(0.5));
    cr_vec3 *rest = malloc(n * sizeof(cr_vec3)), *rn = malloc(n * sizeof(cr_vec3));
    cr_vec3 *pos = malloc(n * sizeof(cr_vec3)), *nor = malloc(n * sizeof(cr_vec3));
    for (int i = 0; i < n; ++i) {
        cr_vec3 x = cr_v3(cr_from_float((float)(-1.1 + 2.2 * i / (n - 1))), CR_R(0.4), CR_R(0.031));
        rest[i] = cri_skeleton_project(&p, 1, prm.c, x, 6);
        rn[i] = cr_v3_normalize(cr_v3_neg(cri_skeleton_potential(&p, 1, rest[i]).grad));
        pos[i] = rest[i], nor[i] = rn[i];
    }
    uint32_t *zero_start = calloc(n + 1, sizeof(uint32_t));
    cri_squash_skin s;
    memset(&s, 0, sizeof s);
    s.vertex_count = (uint32_t)n, s.rest = rest, s.rest_normals = rn, s.pos = pos, s.normals = nor;
    s.tri_start = zero_start, s.mark = calloc(n, 1), s.zone = malloc(n * sizeof(uint32_t));
    s.zone_c1 = malloc(n * CRI_SQUASH_MAX_OTHERS * sizeof(cr_real)), s.zone_h = malloc(n * CRI_SQUASH_MAX_OTHERS * sizeof(cr_real));
    s.zone_capacity = (uint32_t)n;
    s.candidates = malloc(n * sizeof(uint32_t)); /* no triangles here: [vertex_count + triangle_count] */
    s.zone_dir = malloc(n * sizeof(cr_vec3));
    cri_squash_deform(&prm, &s, &o, 1, NULL, 0);
    int zone_prev = -1;
    double worst = 0;
    *compressed = *dilated = *at_rest = *crossings = 0, *dent = *bulge = 0;
    for (int i = 0; i < n; ++i) {
        double dy = cr_to_double(pos[i].y - rest[i].y);
        *dent = fmax(*dent, -dy), *bulge = fmax(*bulge, dy);
        cr_real f2 = cri_squash_other_potential(&o, pos[i]).f;
        int zone = f2 >= prm.c ? 2 : (dy > 1e-7 ? 1 : 0);
        *compressed += zone == 2, *dilated += zone == 1, *at_rest += zone == 0;
        if (zone_prev >= 0 && zone != zone_prev) ++*crossings;
        zone_prev = zone;
        if (i > 0) worst = fmax(worst, acos(fmin(1.0, cr_to_double(cr_v3_dot(nor[i], nor[i - 1])))) * 180 / SQ_PI);
    }
    free(rest), free(rn), free(pos), free(nor), free(zero_start), free(s.mark), free(s.zone), free(s.zone_c1), free(s.zone_h), free(s.candidates), free(s.zone_dir);
    return worst;
}

/* C1 across both borders: the largest normal step between neighbours shrinks
 * with the spacing (a crease would keep it) and is below 1 degree on the fine line. */
CR_TEST(squash_skin_normal_continuous_across_both_borders) {
    int c, d, r, x;
    double dent, bulge;
    double coarse = line_normal_step(1501, &c, &d, &r, &x, &dent, &bulge);
    double fine = line_normal_step(12001, &c, &d, &r, &x, &dent, &bulge);
    cr_test_printf("     C1 skin: %d compressed, %d dilated, %d at rest along the line; dent %.3f m, bulge %.4f m; "
                   "largest normal step %.3f deg (1.5 mm spacing), %.3f deg (0.18 mm)\n", c, d, r, dent, bulge, coarse, fine);
    ENSURE(c > 400 && d > 400 && r > 400);
    ENSURE(x >= 4); /* rest -> bulge -> dent -> bulge -> rest */
    ENSURE(dent > 0.05 && bulge > 0.005);
    ENSURE(fine < 1.0);
    ENSURE(fine < 0.25 * coarse); /* 8 times finer: a C1 skin's steps shrink about 8 times */
}

/* The bulge height per angular sector around the contact centre (top-face vertices). */
static void sector_heights(const sq_mesh *m, double cx, double cz, int sectors, double *hmax, double *rmax) {
    for (int k = 0; k < sectors; ++k) hmax[k] = 0, rmax[k] = 0;
    for (uint32_t v = 0; v < m->skin.vertex_count; ++v) {
        if (cr_to_double(m->rest_normals[v].y) < 0.999) continue;
        double dy = cr_to_double(m->pos[v].y - m->rest[v].y);
        if (dy <= 0) continue;
        double x = cr_to_double(m->rest[v].x) - cx, z = cr_to_double(m->rest[v].z) - cz;
        int k = (int)floor((atan2(z, x) + SQ_PI) / (2 * SQ_PI) * sectors) % sectors;
        if (dy > hmax[k]) hmax[k] = dy, rmax[k] = sqrt(x * x + z * z);
    }
}

CR_TEST(squash_drop_bulge_is_axisymmetric) {
    /* two sizes of slab and ball, neither the one the C1 test used */
    const double sizes[2][3] = {{1.2, 0.6, 0.15}, {1.6, 0.45, 0.1}}; /* slab half, ball radius, depth */
    for (int k = 0; k < 2; ++k) {
        cr_squash_primitive p = slab(cr_from_float((float)sizes[k][0]), CR_R(1));
        cri_squash_params prm = sq_params(&p, 1);
        double top = top_of(&p, prm.c);
        sq_mesh m;
        sq_mesh_make(&m, &p, 1, prm.c, cr_v3_zero(), cr_v3(cr_from_float((float)(sizes[k][0] + top)), cr_from_float((float)top),
                                                          cr_from_float((float)(sizes[k][0] + top))), 96, 60000);
        cr_shape_def ball = {CR_SHAPE_SPHERE, cr_from_float((float)sizes[k][1]), {0, 0, 0}, 0};
        cr_vec3 at = cr_v3(0, cr_from_float((float)(top + sizes[k][1] - sizes[k][2])), 0);
        cri_squash_other o = sq_rigid_sphere(&ball, at, cr_v3(0, -CR_R(2), 0), prm.c, CR_R(0.6));
        cri_squash_result r = sq_step(&m, &prm, &o, 1);
        enum { S = 12 };
        double h[S], rr[S], lo = 1e9, hi = 0, mean = 0;
        sector_heights(&m, 0, 0, S, h, rr);
        for (int s = 0; s < S; ++s) lo = fmin(lo, h[s]), hi = fmax(hi, h[s]), mean += h[s] / S;
        cr_test_printf("     drop %d: zone %u vertices, bulge ring %.4f..%.4f m (%.2f %% spread) at radius ~%.3f m, scale %.3f\n",
                       k, r.zone_count, lo, hi, 100 * (hi - lo) / mean, rr[0], cr_to_double(r.scale));
        ENSURE(r.zone_dropped == 0);
        ENSURE(lo > 0.002);
        ENSURE((hi - lo) / mean < 0.05);
        sq_mesh_free(&m);
    }
}

CR_TEST(squash_oblique_front_bump_higher_and_shorter) {
    cr_squash_primitive p = slab(CR_R(1.3), CR_R(1));
    cri_squash_params prm = sq_params(&p, 1);
    double top = top_of(&p, prm.c);
    sq_mesh m;
    sq_mesh_make(&m, &p, 1, prm.c, cr_v3_zero(), cr_v3(cr_from_float((float)(1.3 + top)), cr_from_float((float)top),
                                                      cr_from_float((float)(1.3 + top))), 96, 60000);
    cr_shape_def ball = {CR_SHAPE_SPHERE, CR_R(0.5), {0, 0, 0}, 0};
    cr_vec3 at = cr_v3(0, cr_from_float((float)(top + 0.5 - 0.12)), 0);
    /* arriving from the right (+x), moving left and down: the front is -x */
    cri_squash_other o = sq_rigid_sphere(&ball, at, cr_v3(-CR_R(3), -CR_R(1), 0), prm.c, CR_R(0.6));
    cri_squash_result r = sq_step(&m, &prm, &o, 1);
    ENSURE(r.zone_count > 0);
    /* profile along the x axis (the row of top vertices nearest z = 0) */
    double front_h = 0, back_h = 0, front_w = 0, back_w = 0, best_z = 1e9;
    for (uint32_t v = 0; v < m.skin.vertex_count; ++v)
        if (cr_to_double(m.rest_normals[v].y) > 0.999) best_z = fmin(best_z, fabs(cr_to_double(m.rest[v].z)));
    for (uint32_t v = 0; v < m.skin.vertex_count; ++v) {
        if (cr_to_double(m.rest_normals[v].y) < 0.999 || fabs(cr_to_double(m.rest[v].z)) > best_z + 1e-6) continue;
        double x = cr_to_double(m.rest[v].x), dy = cr_to_double(m.pos[v].y - m.rest[v].y);
        if (x < 0) front_h = fmax(front_h, dy);
        else back_h = fmax(back_h, dy);
    }
    /* width: how far the bump reaches from the dent's rim (>= 5 % of its own peak) */
    double front_in = 1e9, front_out = 0, back_in = 1e9, back_out = 0;
    for (uint32_t v = 0; v < m.skin.vertex_count; ++v) {
        if (cr_to_double(m.rest_normals[v].y) < 0.999 || fabs(cr_to_double(m.rest[v].z)) > best_z + 1e-6) continue;
        double x = cr_to_double(m.rest[v].x), dy = cr_to_double(m.pos[v].y - m.rest[v].y);
        if (x < 0 && dy > 0.05 * front_h) front_in = fmin(front_in, -x), front_out = fmax(front_out, -x);
        if (x > 0 && dy > 0.05 * back_h) back_in = fmin(back_in, x), back_out = fmax(back_out, x);
    }
    front_w = front_out - front_in, back_w = back_out - back_in;
    cr_test_printf("     oblique: front bump %.4f m high, %.3f m wide; back bump %.4f m high, %.3f m wide\n", front_h, front_w,
                   back_h, back_w);
    ENSURE(front_h > 1.1 * back_h);
    ENSURE(front_w < 0.9 * back_w);
    sq_mesh_free(&m);
}

CR_TEST(squash_volume_never_grows_and_comes_back) {
    /* a capsule (segment) pressed by a ball and a sphere of points pressed by a box: shapes the rule was not tuned on */
    cr_squash_primitive caps = cr_default_squash_primitive();
    caps.type = CR_SQUASH_SEGMENT, caps.a = cr_v3(-CR_R(0.8), 0, 0), caps.b = cr_v3(CR_R(0.8), 0, 0), caps.radius = CR_R(1.1);
    cr_squash_primitive blob[3];
    for (int i = 0; i < 3; ++i) {
        blob[i] = cr_default_squash_primitive();
        blob[i].a = cr_v3(CR_R(0.35) * (i - 1), CR_R(0.1) * (i % 2), 0);
        blob[i].radius = CR_R(0.9);
    }
    for (int k = 0; k < 2; ++k) {
        const cr_squash_primitive *p = k == 0 ? &caps : blob;
        uint32_t np = k == 0 ? 1 : 3;
        for (int loss = 0; loss < 2; ++loss) {
            cri_squash_params prm = sq_params(p, np);
            prm.volume_loss = loss ? CR_R(0.2) : 0;
            sq_mesh m;
            sq_mesh_make(&m, p, np, prm.c, cr_v3_zero(), cr_v3(CR_R(1.3), CR_R(0.5), CR_R(0.5)), 40, 20000);
            double v_rest = sq_volume(m.rest, m.triangles, m.skin.triangle_count);
            cr_shape_def other = k == 0 ? (cr_shape_def){CR_SHAPE_SPHERE, CR_R(0.4), {0, 0, 0}, 0}
                                        : (cr_shape_def){CR_SHAPE_BOX, 0, {CR_R(0.3), CR_R(0.3), CR_R(0.3)}, 0};
            double worst_gain = -1, worst_restore = 0;
            for (int depth = 1; depth <= 4; ++depth) {
                cr_real top = sq_ray_surface(p, np, prm.c, cr_v3_zero(), cr_v3(0, CR_R(1), 0), CR_R(5)).y;
                cr_real size = k == 0 ? other.radius : other.half_extents.y;
                cr_vec3 at = cr_v3(CR_R(0.1), top + size - CR_R(0.04) * depth, 0);
                cri_squash_other o = sq_rigid_sphere(&other, at, cr_v3(0, -CR_R(1), 0), prm.c, CR_R(0.4));
                o.bound_radius = CR_R(0.6) + o.reach;
                cri_squash_result r = sq_step(&m, &prm, &o, 1);
                double v = sq_volume(m.pos, m.triangles, m.skin.triangle_count);
                double lost = v_rest - sq_volume(m.rest, m.triangles, m.skin.triangle_count) - cr_to_double(r.dv_compressed);
                (void)lost;
                double dv0 = cr_to_double(r.dv_compressed), dv = v - v_rest;
                ENSURE(dv0 < 0);
                /* the incremental volume the rule used is the mesh's own */
                ENSURE_NEAR(dv, cr_to_double(r.dv), 1e-6 + 1e-3 * fabs(dv0));
                ENSURE_MSG(dv <= 1e-9 * v_rest, "shape %d loss %d depth %d: volume grew by %.3g m^3", k, loss, depth, dv);
                double want = (loss ? 0.2 : 0.0) * dv0;
                double off = fabs(dv - want) / fabs(dv0);
                worst_gain = fmax(worst_gain, dv / v_rest), worst_restore = fmax(worst_restore, off);
                ENSURE_MSG(off <= 0.05, "shape %d loss %d depth %d: compressed %.4g, kept %.4g (want %.4g)", k, loss, depth,
                           dv0, dv, want);
                ENSURE(fabs(dv) / v_rest < 0.05);
            }
            cr_test_printf("     volume, shape %d, loss %s: largest change/rest %.2g; farthest from the target %.2f %% of the compressed volume\n",
                           k, loss ? "0.2" : "0", worst_gain, 100 * worst_restore);
            sq_mesh_free(&m);
        }
    }
}

CR_TEST(squash_skin_returns_to_rest_when_contact_ends) {
    cr_squash_primitive p = cr_default_squash_primitive();
    p.radius = CR_R(1.3);
    cri_squash_params prm = sq_params(&p, 1);
    sq_mesh m;
    sq_mesh_make(&m, &p, 1, prm.c, cr_v3_zero(), cr_v3(CR_R(1), CR_R(1), CR_R(1)), 24, 8000);
    cr_shape_def ball = {CR_SHAPE_SPHERE, CR_R(0.3), {0, 0, 0}, 0};
    uint32_t nv = m.skin.vertex_count;
    int moved_max = 0;
    for (int step = 0; step < 12; ++step) {
        /* the ball comes in, presses, and leaves */
        double depth = step < 6 ? 0.03 * step : 0.03 * (11 - step) - 0.1;
        cr_real r0 = sq_ray_surface(&p, 1, prm.c, cr_v3_zero(), cr_v3(0, CR_R(1), 0), CR_R(5)).y;
        cri_squash_other o = sq_rigid_sphere(&ball, cr_v3(0, r0 + CR_R(0.3) - cr_from_float((float)depth), 0),
                                             cr_v3(0, -CR_R(1), 0), prm.c, CR_R(0.3));
        sq_step(&m, &prm, &o, 1);
        int moved = 0;
        for (uint32_t v = 0; v < nv; ++v) moved += memcmp(&m.pos[v], &m.rest[v], sizeof(cr_vec3)) != 0;
        moved_max = moved > moved_max ? moved : moved_max;
    }
    /* the last steps have no contact: every vertex and normal is its rest one again, bit for bit */
    cri_squash_other gone = sq_rigid_sphere(&ball, cr_v3(0, CR_R(5), 0), cr_v3_zero(), prm.c, CR_R(0.3));
    sq_step(&m, &prm, &gone, 1);
    ENSURE(moved_max > 20);
    ENSURE(memcmp(m.pos, m.rest, nv * sizeof(cr_vec3)) == 0);
    ENSURE(memcmp(m.normals, m.rest_normals, nv * sizeof(cr_vec3)) == 0);
    sq_mesh_free(&m);
}

/* Seed 003 Fig. 5 / §4.1: two squishy spheres (point skeletons with point
 * masses) meet head on; the soft contact force (f2 - c) N1 on the skeletons
 * makes them bounce; the bulge grows with the compression and is gone after
 * they part; the volume never exceeds rest and stays within 5 % of it. */
CR_TEST(squash_spheres_bounce_and_bulge_with_compression) {
    cr_squash_primitive p = cr_default_squash_primitive();
    p.radius = CR_R(1);
    cri_squash_params prm = sq_params(&p, 1);
    sq_mesh a, b;
    sq_mesh_make(&a, &p, 1, prm.c, cr_v3_zero(), cr_v3(CR_R(1), CR_R(1), CR_R(1)), 24, 12000);
    sq_mesh_make(&b, &p, 1, prm.c, cr_v3_zero(), cr_v3(CR_R(1), CR_R(1), CR_R(1)), 24, 12000);
    uint32_t nv = a.skin.vertex_count;
    double v_rest = sq_volume(a.rest, a.triangles, a.skin.triangle_count);
    cr_real area = cr_div(cr_from_float((float)(4 * SQ_PI * 0.454 * 0.454)), cr_from_int((int32_t)nv));
    cr_real x1 = -CR_R(0.5), x2 = CR_R(0.5), v1 = CR_R(1.5), v2 = -CR_R(1.5), mass = CR_R(1), dt = CR_R(1.0 / 240);
    double max_depth = 0, bulge_at_max = 0, early_bulge = -1, worst_gain = -1, worst_loss = 0;
    int touching_steps = 0, step = 0;
    bool parted = false;
    for (step = 0; step < 600 && !parted; ++step) {
        cri_squash_other oa, ob; /* b seen from a, a seen from b */
        memset(&oa, 0, sizeof oa);
        oa.kind = CRI_SQUASH_OTHER_SKELETON, oa.prims = &p, oa.count = 1, oa.scale = CR_R(1);
        oa.to_other = cr_transform_identity();
        ob = oa;
        oa.to_other.p = cr_v3(x1 - x2, 0, 0), oa.bound_centre = cr_v3(x2 - x1, 0, 0), oa.bound_radius = CR_R(1);
        ob.to_other.p = cr_v3(x2 - x1, 0, 0), ob.bound_centre = cr_v3(x1 - x2, 0, 0), ob.bound_radius = CR_R(1);
        oa.velocity = cr_v3(v2 - v1, 0, 0), ob.velocity = cr_v3(v1 - v2, 0, 0);
        cri_squash_result ra = sq_step(&a, &prm, &oa, 1);
        cr_vec3 at_a;
        uint32_t work = 0;
        cr_vec3 f1 = cri_squash_contact_force(&prm, &a.skin, &oa, ra.zone_count, CR_R(400), area, &at_a, &work);
        sq_step(&b, &prm, &ob, 1);
        /* R1 = -R2 */
        v1 += cr_mul(cr_div(f1.x, mass), dt), v2 -= cr_mul(cr_div(f1.x, mass), dt);
        x1 += cr_mul(v1, dt), x2 += cr_mul(v2, dt);
        double depth = cr_to_double(oa.depth), bulge = 0;
        for (uint32_t v = 0; v < nv; ++v) {
            double out = cr_to_double(cr_v3_dot(cr_v3_sub(a.pos[v], a.rest[v]), a.rest_normals[v]));
            bulge = fmax(bulge, out);
        }
        if (ra.zone_count > 0) {
            ++touching_steps;
            double vol = sq_volume(a.pos, a.triangles, a.skin.triangle_count);
            worst_gain = fmax(worst_gain, (vol - v_rest) / v_rest);
            worst_loss = fmax(worst_loss, (v_rest - vol) / v_rest);
            if (depth > 0 && early_bulge < 0 && depth > 0.005) early_bulge = bulge;
            if (depth > max_depth) max_depth = depth, bulge_at_max = bulge;
        }
        parted = touching_steps > 0 && ra.zone_count == 0;
    }
    cr_test_printf("     spheres: %d steps in contact, deepest compression potential %.3f; bulge %.4f m early, %.4f m at the "
                   "deepest; after: v1 %.3f v2 %.3f m/s; volume change %+.2g..%+.2g of rest\n", touching_steps, max_depth,
                   early_bulge, bulge_at_max, cr_to_double(v1), cr_to_double(v2), -worst_loss, worst_gain);
    ENSURE(parted);
    ENSURE(v1 < 0 && v2 > 0);                 /* bounced by the contact force */
    ENSURE(early_bulge > 0 && bulge_at_max > 2 * early_bulge);
    ENSURE(worst_gain <= 1e-9 && worst_loss < 0.05);
    ENSURE(memcmp(a.pos, a.rest, nv * sizeof(cr_vec3)) == 0 && memcmp(b.pos, b.rest, nv * sizeof(cr_vec3)) == 0);
    sq_mesh_free(&a), sq_mesh_free(&b);
}

/* The model buckets the rest vertices in cells so a contact visits the cells
 * under it: the same skin as testing every vertex, for a fraction of the work. */
CR_TEST(squash_cells_match_the_full_scan_for_less_work) {
    cr_squash_primitive p = slab(CR_R(1.5), CR_R(1));
    cri_squash_params prm = sq_params(&p, 1);
    double top = top_of(&p, prm.c);
    sq_mesh a, b;
    cr_vec3 half = cr_v3(cr_from_float((float)(1.5 + top)), cr_from_float((float)top), cr_from_float((float)(1.5 + top)));
    sq_mesh_make(&a, &p, 1, prm.c, cr_v3_zero(), half, 64, 30000);
    sq_mesh_make(&b, &p, 1, prm.c, cr_v3_zero(), half, 64, 30000);
    uint32_t nv = a.skin.vertex_count;
    uint32_t *start = malloc((nv + 1) * sizeof(uint32_t)), *list = malloc(nv * sizeof(uint32_t));
    cri_squash_cells g;
    uint32_t nc = cri_squash_cells_build(b.rest, nv, nv, &g, start, list);
    b.skin.cells = &g;
    cr_shape_def ball = {CR_SHAPE_SPHERE, CR_R(0.3), {0, 0, 0}, 0};
    cri_squash_other o = sq_rigid_sphere(&ball, cr_v3(CR_R(0.7), cr_from_float((float)(top + 0.3 - 0.08)), -CR_R(0.4)),
                                         cr_v3(0, -CR_R(1), 0), prm.c, CR_R(0.3));
    cri_squash_other o2 = o;
    cri_squash_result ra = sq_step(&a, &prm, &o, 1), rb = sq_step(&b, &prm, &o2, 1);
    double worst = 0;
    for (uint32_t v = 0; v < nv; ++v)
        worst = fmax(worst, cr_to_double(cr_v3_len(cr_v3_sub(a.pos[v], b.pos[v]))));
    cr_test_printf("     cells: %u cells for %u vertices; zone %u; work %u (all vertices) vs %u (cells); largest difference %.2g m\n",
                   nc, nv, rb.zone_count, ra.work, rb.work, worst);
    ENSURE(ra.zone_count == rb.zone_count && ra.zone_count > 50);
    ENSURE(worst < 1e-5);
    ENSURE(rb.work < ra.work / 2);
    free(start), free(list);
    sq_mesh_free(&a), sq_mesh_free(&b);
}

/* Folds in a deformed skin, resolution-free: along the line through each
 * zone vertex's final place in its normal's direction (3 cm each way), F1 - c
 * must change sign once (inside, then outside); a fold crosses the skin three
 * times. Also the largest angle (deg) between the normals at an edge's ends
 * (reported: on a 2 cm mesh the dent's rim bends sharply but smoothly). */
static int fold_check(const sq_mesh *m, const cri_squash_params *prm, const cri_squash_other *o, cr_real scale, uint32_t zone_count,
                      double *edge_deg) {
    int folds = 0;
    for (uint32_t z = 0; z < zone_count; ++z) {
        uint32_t v = m->skin.zone[z];
        int changes = 0;
        double last = 0;
        for (int i = -12; i <= 12; ++i) {
            cr_vec3 q = cr_v3_mad(m->pos[v], cr_from_float(0.0025f * (float)i), m->normals[v]);
            double f = cr_to_double(cri_squash_deformed_potential(prm, &m->skin, z, o, 1, scale, q).f - prm->c);
            if (i > -12 && ((f > 0) != (last > 0))) ++changes;
            last = f;
        }
        folds += changes > 1;
    }
    for (uint32_t t = 0; t < m->skin.triangle_count; ++t)
        for (int j = 0; j < 3; ++j) {
            uint32_t a = m->triangles[3 * t + j], b = m->triangles[3 * t + (j + 1) % 3];
            if (memcmp(&m->pos[a], &m->rest[a], sizeof(cr_vec3)) == 0 && memcmp(&m->pos[b], &m->rest[b], sizeof(cr_vec3)) == 0) continue;
            double d = cr_to_double(cr_v3_dot(m->normals[a], m->normals[b]));
            *edge_deg = fmax(*edge_deg, acos(fmin(1.0, d)) * 180 / SQ_PI);
        }
    return folds;
}

/* The second ring's borders on a fine sampling: the deformed skin along the rest skin's great circle in the x-y
 * plane (the contact is at its top), each sample put on F1 = c by Newton with the field of the skin vertex nearest
 * its rest place (a zone vertex's own terms and the ring; f1 + ring elsewhere), its normal -grad F1. The largest
 * angle between neighbouring samples' normals within 2 cm of the ring's inner border (r = r0 from its centre) and
 * of its outer one (r0 + width) in *inner, *outer (deg); the ring's highest lift along the arc in *lift (m).
 * Returns the samples that fell in the two windows (0: the arc misses a border). */
static int ring_border_steps(const sq_mesh *m, const cri_squash_params *seen, const cri_squash_other *o, cr_real s,
                             uint32_t zone_count, int samples, double *inner, double *outer, double *lift) {
    const uint32_t nv = m->skin.vertex_count;
    int32_t *slot = malloc(nv * sizeof(int32_t));
    uint32_t *near = malloc(nv * sizeof(uint32_t)), nn = 0;
    for (uint32_t v = 0; v < nv; ++v) {
        slot[v] = -1;
        if (fabs(cr_to_double(m->rest[v].z)) < 0.04) near[nn++] = v; /* the vertices near the arc's plane */
    }
    for (uint32_t z = 0; z < zone_count; ++z) slot[m->skin.zone[z]] = (int32_t)z;
    const cri_squash_ring *ring = &seen->ring;
    const double r0 = cr_to_double(ring->r0), r1 = r0 + cr_to_double(ring->width);
    const double skin_r = cr_to_double(cr_v3_len(m->rest[0]));
    int counted = 0;
    *inner = *outer = *lift = 0;
    cr_vec3 prev_n = cr_v3_zero();
    int prev_window = 0;
    for (int i = 0; i <= samples; ++i) {
        double th = SQ_PI * i / samples;
        cr_vec3 p0 = cr_v3(cr_from_float((float)(skin_r * sin(th))), cr_from_float((float)(skin_r * cos(th))), 0);
        double d = cr_to_double(cr_v3_len(cr_v3_sub(p0, ring->centre)));
        int window = fabs(d - r0) < 0.02 ? 1 : (fabs(d - r1) < 0.02 ? 2 : 0);
        if (window == 0) {
            prev_window = 0;
            continue;
        }
        /* the nearest skin vertex by rest place */
        double best = 1e30;
        uint32_t bv = 0;
        for (uint32_t k = 0; k < nn; ++k) {
            double dx = cr_to_double(m->rest[near[k]].x - p0.x), dy = cr_to_double(m->rest[near[k]].y - p0.y), dz = cr_to_double(m->rest[near[k]].z);
            double e = dx * dx + dy * dy + dz * dz;
            if (e < best) best = e, bv = near[k];
        }
        /* p0 on the rest skin first (f1 = c), then on the deformed one */
        cr_vec3 q = cri_skeleton_project(seen->prims, seen->count, seen->c, p0, 6), q_rest = q;
        cr_potential f = {0, {0, 0, 0}};
        for (int it = 0; it < 24; ++it) {
            if (slot[bv] >= 0) f = cri_squash_deformed_potential(seen, &m->skin, (uint32_t)slot[bv], o, 1, s, q);
            else {
                f = cri_squash_own_potential(seen, q);
                cr_potential t = cri_squash_ring_term(ring, s, q);
                f.f += t.f, f.grad = cr_v3_add(f.grad, t.grad);
            }
            cr_real g2 = cr_v3_len_sq(f.grad);
            if (g2 <= CR_REAL_EPS) break;
            cr_vec3 step = cr_v3_scale(f.grad, cr_div(seen->c - f.f, g2));
            if (cr_to_double(cr_v3_len(step)) < 1e-9) break;
            q = cr_v3_add(q, step);
        }
        cr_vec3 n = cr_v3_normalize(cr_v3_neg(f.grad));
        *lift = fmax(*lift, cr_to_double(cr_v3_len(q)) - cr_to_double(cr_v3_len(q_rest)));
        if (prev_window == window) {
            double a = acos(fmin(1.0, cr_to_double(cr_v3_dot(n, prev_n)))) * 180 / SQ_PI;
            if (window == 1) *inner = fmax(*inner, a);
            else *outer = fmax(*outer, a);
        }
        prev_n = n, prev_window = window;
        ++counted;
    }
    free(slot), free(near);
    return counted;
}

/* The volume rule at depth: one squishy ball pressed deeper and deeper, step
 * after step (the rule's widening carried from step to step as the model
 * carries it), by a rigid ball and by a small squishy one (whose potential is
 * steep against the skin's, the character's hand against its belly). At
 * every depth: the volume never above rest, the compressed volume given back
 * within 5 % (default) or the flesh's 20 % kept lost within 5 %, and no fold
 * (no triangle turned over, every normal on its faces' side, neighbouring
 * normals close). Before the rule moved its peak and widened further, the
 * deeper presses stayed short (the fold limit capped the bulge). */
CR_TEST(squash_volume_rule_holds_pressed_deeper_and_deeper) {
    cr_squash_primitive p = cr_default_squash_primitive();
    p.radius = CR_R(1);
    cr_squash_primitive hand = cr_default_squash_primitive();
    hand.radius = CR_R(0.4);
    const double hand_r = 0.454 * 0.4;
    int bad = 0, all_folds = 0, rings = 0;
    double worst_ring_step = 0;
    for (int kind = 0; kind < 2; ++kind)
        for (int loss = 0; loss < 2; ++loss) {
            cri_squash_params prm = sq_params(&p, 1);
            prm.volume_loss = loss ? CR_R(0.2) : 0;
            sq_mesh m;
            sq_mesh_make(&m, &p, 1, prm.c, cr_v3_zero(), cr_v3(CR_R(1), CR_R(1), CR_R(1)), 40, 12000);
            double v_rest = sq_volume(m.rest, m.triangles, m.skin.triangle_count);
            cr_real top = sq_ray_surface(&p, 1, prm.c, cr_v3_zero(), cr_v3(0, CR_R(1), 0), CR_R(5)).y;
            cr_shape_def ball = {CR_SHAPE_SPHERE, CR_R(0.25), {0, 0, 0}, 0};
            double worst_off = 0, worst_gain = -1, worst_edge = 0, deepest = 0;
            int folds = 0;
            for (int step = 1; step <= 14; ++step) {
                /* into the rest skin: the ball to 0.21 m (of a 0.454 m skin); the hand to 0.126 m, 0.7 of its own
                 * 0.18 m skin (deeper, its whole potential is inside ours and the zone, which ends where its
                 * potential does, holds too little skin: docs/squash.md, Not done) */
                double depth = 0.015 * step;
                cri_squash_other o;
                if (kind == 0) {
                    o = sq_rigid_sphere(&ball, cr_v3(CR_R(0.02), top + CR_R(0.25) - cr_from_float((float)depth), 0),
                                        cr_v3(0, -CR_R(1), 0), prm.c, CR_R(0.3));
                } else {
                    memset(&o, 0, sizeof o);
                    cr_vec3 at = cr_v3(CR_R(0.02), top + cr_from_float((float)(hand_r - depth)), 0);
                    o.kind = CRI_SQUASH_OTHER_SKELETON, o.to_other = cr_transform_identity(), o.to_other.p = cr_v3_neg(at);
                    o.prims = &hand, o.count = 1, o.scale = CR_R(1);
                    o.bound_centre = at, o.bound_radius = CR_R(0.4), o.velocity = cr_v3(0, -CR_R(1), 0);
                }
                cri_squash_result r = sq_step(&m, &prm, &o, 1);
                prm.widen_hint = r.widen_next, prm.model_bias = r.model_bias;
                double v = sq_volume(m.pos, m.triangles, m.skin.triangle_count), dv = v - v_rest, dv0 = cr_to_double(r.dv_compressed);
                ENSURE(dv0 < 0);
                double off = fabs(dv - (loss ? 0.2 : 0.0) * dv0) / fabs(dv0);
                worst_off = fmax(worst_off, off), worst_gain = fmax(worst_gain, dv / v_rest), deepest = depth;
                if (dv > 1e-9 * v_rest || off > 0.05 || getenv("SQ_DEEPER_VERBOSE"))
                    cr_test_printf("     kind %d loss %d depth %.3f: compressed %.4g, kept %.4g, %.1f %% off (scale %.3g, limit %.3g, "
                                   "widen %.3g, zone %u, ring %u)\n", kind, loss, depth, dv0, dv, 100 * off, cr_to_double(r.scale),
                                   cr_to_double(r.scale_limit), cr_to_double(r.widen), r.zone_count, r.ring_count);
                bad += dv > 1e-9 * v_rest || off > 0.05;
                (void)folds;
                cri_squash_params seen = prm;
                seen.ring = r.ring; /* the deformed field includes the step's ring, if any */
                folds += fold_check(&m, &seen, &o, r.scale, r.zone_count, &worst_edge);
                rings += r.ring_count > 0;
                if (r.ring_count > 0) {
                    /* the ring's borders C1: the normal's steps shrink with the spacing and stay under 1 degree */
                    double in_c, out_c, in_f, out_f, lift;
                    int nc = ring_border_steps(&m, &seen, &o, r.scale, r.zone_count, 4000, &in_c, &out_c, &lift);
                    int nf = ring_border_steps(&m, &seen, &o, r.scale, r.zone_count, 32000, &in_f, &out_f, &lift);
                    if (getenv("SQ_DEEPER_VERBOSE") || in_f >= 1.0 || out_f >= 1.0 || nf == 0)
                        cr_test_printf("     kind %d loss %d depth %.3f: ring r0 %.3f m width %.3f m, %u vertices, lift %.4f m; "
                                       "normal step at its inner border %.3f deg (%d samples) / %.3f (%d), outer %.3f / %.3f\n",
                                       kind, loss, depth, cr_to_double(r.ring.r0), cr_to_double(r.ring.width), r.ring_count, lift,
                                       in_c, nc, in_f, nf, out_c, out_f);
                    worst_ring_step = fmax(worst_ring_step, fmax(in_f, out_f));
                    ENSURE(nf > nc && nc > 20);
                    ENSURE(in_f < 1.0 && out_f < 1.0);
                }
            }
            cr_test_printf("     deeper, %s, loss %s: to %.3f m; farthest from the target %.2f %% of the compressed volume, "
                           "largest change/rest %.2g; %d zone vertices on a fold, largest normal step "
                           "along an edge %.1f deg\n",
                           kind ? "squishy hand" : "rigid ball", loss ? "0.2" : "0", deepest, 100 * worst_off, worst_gain,
                           folds, worst_edge);
            all_folds += folds;
            sq_mesh_free(&m);
        }
    cr_test_printf("     the second ring in %d steps; largest normal step across its borders %.3f deg (fine sampling)\n", rings,
                   worst_ring_step);
    ENSURE(bad == 0);
    ENSURE(all_folds == 0);
    ENSURE(rings > 0); /* the hand's deepest presses need it */
}
