/* test_query.c — rays and overlaps (crumple/query.h) against brute force:
 * every shipped scene after some steps, dented bodies (a ray lands in the
 * dent's floor, not on the old surface), bent bodies; the state hash is the
 * same after the queries; a moved body is hit where it is now; bad input
 * is refused naming its argument. The brute force is in double precision
 * over every body and every triangle, with no tree. */
#include "test_scene_util.h"
#include "query/query_tree.h"

#include <dirent.h>
#include <stdlib.h>

typedef struct dv { double x, y, z; } dv;
static dv D(cr_vec3 v) { return (dv){cr_to_double(v.x), cr_to_double(v.y), cr_to_double(v.z)}; }
static dv dsub(dv a, dv b) { return (dv){a.x - b.x, a.y - b.y, a.z - b.z}; }
static dv dadd(dv a, dv b) { return (dv){a.x + b.x, a.y + b.y, a.z + b.z}; }
static dv dscale(dv a, double s) { return (dv){a.x * s, a.y * s, a.z * s}; }
static double ddot(dv a, dv b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static dv dcross(dv a, dv b) { return (dv){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }

static uint32_t lcg_state = 12345u;
static double rnd(void) { return ((lcg_state = lcg_state * 1664525u + 1013904223u) >> 8) / 16777216.0; }
static double rsym(double a) { return (2 * rnd() - 1) * a; }

/* one-sided ray/triangle, the front seen from outside (counter-clockwise) */
static double tri_t(dv o, dv d, dv a, dv b, dv c) {
    dv e1 = dsub(b, a), e2 = dsub(c, a), p = dcross(d, e2);
    double det = ddot(e1, p);
    if (det <= 0) return -1;
    dv s = dsub(o, a);
    double u = ddot(s, p) / det;
    if (u < 0 || u > 1) return -1;
    dv q = dcross(s, e1);
    double v = ddot(d, q) / det;
    if (v < 0 || u + v > 1) return -1;
    double t = ddot(e2, q) / det;
    return t >= 0 && t <= 1 ? t : -1;
}

static dv rot(cr_quat q, dv v) { return D(cr_quat_rotate(q, cr_v3(CR_R(v.x), CR_R(v.y), CR_R(v.z)))); }
static dv to_local(cr_transform xf, dv p) {
    dv r = dsub(p, D(xf.p));
    cr_quat c = cr_quat_conj(xf.q);
    dv qv = {cr_to_double(c.x), cr_to_double(c.y), cr_to_double(c.z)};
    double qw = cr_to_double(c.w);
    dv t = dscale(dcross(qv, r), 2);
    return dadd(dadd(r, dscale(t, qw)), dcross(qv, t));
}
static dv to_local_dir(cr_transform xf, dv d) {
    cr_transform x = xf;
    x.p = cr_v3_zero();
    return to_local(x, d);
}

/* nearest fraction of the ray on body id by brute force; -1 if none */
static double brute_body(const cr_world *w, cr_body_id id, dv o, dv d) {
    cr_transform xf = cr_body_get_transform(w, id);
    cr_shape_def s = cr_body_get_shape(w, id);
    dv lo = to_local(xf, o), ld = to_local_dir(xf, d);
    if (s.type == CR_SHAPE_SPHERE) {
        double r = cr_to_double(s.radius);
        dv oc = lo;
        double a = ddot(ld, ld), b = ddot(oc, ld), c = ddot(oc, oc) - r * r;
        if (c < 0 || b >= 0) return -1;
        double disc = b * b - a * c;
        if (disc < 0) return -1;
        double t = (-b - sqrt(disc)) / a;
        return t <= 1 ? t : -1;
    }
    if (s.type == CR_SHAPE_BOX) {
        double he[3] = {cr_to_double(s.half_extents.x), cr_to_double(s.half_extents.y), cr_to_double(s.half_extents.z)};
        double oo[3] = {lo.x, lo.y, lo.z}, dd[3] = {ld.x, ld.y, ld.z}, enter = -1e30, leave = 1;
        for (int a = 0; a < 3; ++a) {
            if (dd[a] == 0) {
                if (oo[a] < -he[a] || oo[a] > he[a]) return -1;
                continue;
            }
            double t0 = (-he[a] - oo[a]) / dd[a], t1 = (he[a] - oo[a]) / dd[a];
            if (t0 > t1) { double t = t0; t0 = t1; t1 = t; }
            if (t0 > enter) enter = t0;
            if (t1 < leave) leave = t1;
        }
        return enter <= leave && enter >= 0 ? enter : -1;
    }
    if (s.type == CR_SHAPE_PLANE) {
        if (lo.y < 0 || ld.y >= 0) return -1;
        double t = lo.y / -ld.y;
        return t <= 1 ? t : -1;
    }
    cr_body_mesh m;
    if (cr_body_get_mesh(w, id, &m) != CR_OK) return -1;
    double best = -1;
    for (uint32_t k = 0; k < m.triangle_count; ++k) {
        const uint32_t *t = &m.triangles[3 * k];
        double tt = tri_t(lo, ld, D(m.positions[t[0]]), D(m.positions[t[1]]), D(m.positions[t[2]]));
        if (tt >= 0 && (best < 0 || tt < best)) best = tt;
    }
    return best;
}

static double brute_soft(const cr_world *w, cr_soft_id id, dv o, dv d, cr_vec3 *pos, uint32_t cap) {
    uint32_t n = cr_soft_get_positions(w, id, pos, cap);
    const cr_asset *a = cr_world_get_asset(w, cr_soft_get_asset(w, id));
    if (a == NULL || n > cap) return -1;
    double best = -1;
    for (uint32_t k = 0; k < a->triangle_count; ++k) {
        const uint32_t *t = &a->triangles[3 * k];
        double tt = tri_t(o, d, D(pos[t[0]]), D(pos[t[1]]), D(pos[t[2]]));
        if (tt >= 0 && (best < 0 || tt < best)) best = tt;
    }
    return best;
}

/* the bodies a default-filter query sees: those that answer, sensors left out */
static bool brute_answers(const cr_world *w, cr_body_id id) {
    return cri_query_answers(w, id.index1 - 1) && !cr_body_is_sensor(w, id);
}

typedef struct brute {
    double t;      /* -1: no hit */
    double second; /* the next body's fraction (to tell near ties) */
    uint32_t index1;
    bool soft;
} brute;

static brute brute_ray(const cr_world *w, dv o, dv d) {
    brute b = {-1, -1, 0, false};
    static cr_body_id ids[4096];
    static cr_vec3 pos[65536];
    uint32_t n = cr_world_get_body_ids(w, ids, 4096);
    for (uint32_t i = 0; i < n && i < 4096; ++i) {
        if (!brute_answers(w, ids[i])) continue;
        double t = brute_body(w, ids[i], o, d);
        if (t < 0) continue;
        if (b.t < 0 || t < b.t) b.second = b.t, b.t = t, b.index1 = ids[i].index1, b.soft = false;
        else if (b.second < 0 || t < b.second) b.second = t;
    }
    static cr_soft_id sids[256];
    uint32_t ns = cr_world_get_soft_ids(w, sids, 256);
    for (uint32_t i = 0; i < ns && i < 256; ++i) {
        double t = brute_soft(w, sids[i], o, d, pos, 65536);
        if (t < 0) continue;
        if (b.t < 0 || t < b.t) b.second = b.t, b.t = t, b.index1 = sids[i].index1, b.soft = true;
        else if (b.second < 0 || t < b.second) b.second = t;
    }
    return b;
}

/* a ray aimed near a random body from a few metres away */
static void aimed_ray(const cr_world *w, dv *o, dv *d) {
    static cr_body_id ids[4096];
    uint32_t n = cr_world_get_body_ids(w, ids, 4096);
    if (n > 4096) n = 4096;
    dv target = {0, 0, 0};
    for (int tries = 0; tries < 8 && n > 0; ++tries) {
        cr_body_id id = ids[(uint32_t)(rnd() * n) % n];
        if (cr_body_get_shape(w, id).type == CR_SHAPE_PLANE) continue;
        target = D(cr_body_get_transform(w, id).p);
        break;
    }
    double len = 2 + 8 * rnd();
    dv dir = {rsym(1), rsym(1), rsym(1)};
    double l = sqrt(ddot(dir, dir));
    if (l < 1e-3) dir = (dv){0, 1, 0}, l = 1;
    *o = dadd(target, dscale(dir, len / l));
    dv jitter = {rsym(0.3), rsym(0.3), rsym(0.3)};
    *d = dscale(dsub(dadd(target, jitter), *o), 1.6);
}

static cr_vec3 R3(dv v) { return cr_v3(CR_R(v.x), CR_R(v.y), CR_R(v.z)); }

/* rays into the world, closest hit against brute force; returns mismatches */
static int compare_rays(const cr_world *w, int rays, int *hits, const char *where) {
    int bad = 0;
    for (int k = 0; k < rays; ++k) {
        dv o, d;
        aimed_ray(w, &o, &d);
        /* the ray as the runtime sees it (rounded to cr_real) */
        cr_vec3 ro = R3(o), rd = R3(d);
        o = D(ro), d = D(rd);
        cr_ray_hit h;
        bool found;
        if (cr_world_cast_ray_closest(w, ro, rd, cr_default_query_filter(), &h, &found) != CR_OK) return 1000;
        brute b = brute_ray(w, o, d);
        /* 0.2 mm along the ray; 1 mm in Q32.32, whose products of millimetre edges keep only
         * about four digits (a dented bunny's 2 mm triangles: 0.56 mm, docs/queries.md) */
        double tol = (CR_FIXED ? 1e-3 : 2e-4) / sqrt(ddot(d, d)) + 1e-5;
        bool ok;
        if (b.t < 0) ok = !found;
        else if (!found) ok = false;
        else {
            double t = cr_to_double(h.fraction);
            bool same = b.soft ? h.soft.index1 == b.index1 : h.body.index1 == b.index1;
            ok = fabs(t - b.t) <= tol && (same || (b.second >= 0 && b.second - b.t <= 2 * tol));
        }
        if (found) ++*hits;
        if (!ok) {
            if (bad < 3)
                cr_test_printf("  %s: ray %d: query %s %.6f (body %u) vs brute %.6f (body %u)\n", where, k,
                               found ? "hit" : "miss", found ? cr_to_double(h.fraction) : -1.0,
                               found ? (h.body.index1 ? h.body.index1 : h.soft.index1) : 0, b.t, b.index1);
            ++bad;
        }
    }
    return bad;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

CR_TEST(query_rays_match_brute_force_in_every_shipped_scene) {
    DIR *dir = opendir("data/scenes");
    ENSURE(dir != NULL);
    static char names[128][64];
    const char *list[128];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL && n < 128) {
        size_t l = strlen(e->d_name);
        if (l < 7 || l >= 64 || strcmp(e->d_name + l - 6, ".scene") != 0) continue;
        memcpy(names[n], e->d_name, l - 6);
        names[n][l - 6] = 0;
        list[n] = names[n];
        ++n;
    }
    closedir(dir);
    qsort(list, (size_t)n, sizeof list[0], cmp_str);
    int scenes = 0, total_bad = 0, total_hits = 0, total_rays = 0;
    for (int i = 0; i < n; ++i) {
        scene_run r;
        if (open_scene(list[i], &r) != 0) continue;
        for (int32_t f = 0; f < 40; ++f) ENSURE(step(&r, f) == 0);
        int hits = 0, bad = compare_rays(r.w, 60, &hits, list[i]);
        total_bad += bad, total_hits += hits, total_rays += 60, ++scenes;
        close_scene(&r);
    }
    cr_test_printf("  %d scenes after 40 steps: %d rays, %d hits, %d differ from brute force\n", scenes, total_rays,
                   total_hits, total_bad);
    ENSURE(scenes >= 40);
    ENSURE(total_hits > total_rays / 2);
    ENSURE(total_bad == 0);
}

/* The damaged bodies of a scene after `frames` steps: at each one's most
 * moved vertex, a ray from 0.5 m outside its rest place, against the way
 * it moved, to where it is now. A ray that saw the old surface would stop
 * 0.5 m along; one that sees the surface as it is goes on by the move.
 * *dented gets the bodies moved by more than 5 mm, *deep those whose hit is
 * past the old surface by the move (within 20 % + 1 mm); then random rays
 * into the world against brute force. Returns mismatches with brute force. */
static int rays_at_moved_surface(const char *scene, int frames, int *dented, int *deep, double *deepest) {
    scene_run r;
    if (open_scene(scene, &r) != 0) return 1000;
    for (int32_t f = 0; f < frames; ++f)
        if (step(&r, f) != 0) return 1000;
    static cr_body_id ids[4096];
    uint32_t n = cr_world_get_body_ids(r.w, ids, 4096);
    int bad = 0;
    *deepest = 0;
    for (uint32_t i = 0; i < n; ++i) {
        cr_body_mesh m;
        if (!cri_query_answers(r.w, ids[i].index1 - 1) || cr_body_get_mesh(r.w, ids[i], &m) != CR_OK) continue;
        uint32_t vmax = 0;
        double dmax = -1;
        for (uint32_t v = 0; v < m.vertex_count; ++v) {
            dv moved = dsub(D(m.positions[v]), dsub(D(m.rest_positions[v]), D(m.rest_offset)));
            double dd = ddot(moved, moved);
            if (dd > dmax) dmax = dd, vmax = v;
        }
        double move = sqrt(dmax);
        if (move < 0.005) continue;
        ++*dented;
        cr_transform xf = cr_body_get_transform(r.w, ids[i]);
        dv rest = dsub(D(m.rest_positions[vmax]), D(m.rest_offset)), now = D(m.positions[vmax]);
        dv back = dscale(dsub(rest, now), 1.0 / move); /* against the move */
        dv o = dadd(rot(xf.q, dadd(rest, dscale(back, 0.5))), D(xf.p)), tw = dadd(rot(xf.q, now), D(xf.p));
        cr_vec3 ro = R3(o), rd = R3(dscale(dsub(tw, o), 1.5));
        double len = sqrt(ddot(D(rd), D(rd)));
        cr_ray_hit all[64];
        uint32_t count = 0;
        cr_world_cast_ray_all(r.w, ro, rd, cr_default_query_filter(), all, 64, &count);
        for (uint32_t k = 0; k < count && k < 64; ++k) {
            if (all[k].body.index1 != ids[i].index1) continue;
            double past = cr_to_double(all[k].fraction) * len - 0.5;
            if (past > *deepest) *deepest = past;
            if (fabs(past - move) <= 0.2 * move + 0.001) ++*deep;
            break;
        }
    }
    int hits = 0;
    bad += compare_rays(r.w, 60, &hits, scene);
    close_scene(&r);
    return bad;
}

CR_TEST(query_ray_lands_in_the_dent_floor_not_on_the_old_surface) {
    const char *scenes[] = {"dent_ball_block", "dent_bunny", "dent_rain", "dent_symmetric", "dent_glancing"};
    int bad = 0, dented = 0, deep = 0;
    for (int i = 0; i < 5; ++i) {
        double deepest;
        bad += rays_at_moved_surface(scenes[i], 150, &dented, &deep, &deepest);
        cr_test_printf("  %s: the ray at the most dented vertex goes %.1f mm past the old surface\n", scenes[i],
                       deepest * 1000);
    }
    cr_test_printf("  %d dented bodies, %d hit in the dent's floor\n", dented, deep);
    ENSURE(bad == 0);
    ENSURE(dented >= 4);
    ENSURE(deep == dented);
}

CR_TEST(query_rays_match_brute_force_on_bent_and_deformed_bodies) {
    const char *scenes[] = {"bend_bar", "bend_dent", "bend_plank", "example_car", "squash_drop", "squash_character"};
    int bad = 0, moved = 0, deep = 0;
    for (int i = 0; i < 6; ++i) {
        double deepest;
        bad += rays_at_moved_surface(scenes[i], 120, &moved, &deep, &deepest);
        cr_test_printf("  %s: deepest hit past the rest surface %.1f mm\n", scenes[i], deepest * 1000);
    }
    /* a bend turns whole bones, so "past the rest surface" is no measure here: brute force is */
    cr_test_printf("  %d bodies moved more than 5 mm from rest\n", moved);
    (void)deep;
    ENSURE(bad == 0);
    ENSURE(moved >= 4);
}

/* ---- overlaps ---- */

static bool collect_fn(void *ctx, cr_body_id b, cr_soft_id s) {
    uint32_t *c = ctx;
    (void)s;
    c[1 + c[0]++ % 1023] = b.index1 ? b.index1 : 100000u + s.index1;
    return true;
}

/* distance from p to triangle (a, b, c), double */
static double tri_dist(dv p, dv a, dv b, dv c) {
    /* project, clamp by barycentrics, else the nearest edge */
    dv ab = dsub(b, a), ac = dsub(c, a), n = dcross(ab, ac);
    double nn = ddot(n, n);
    if (nn > 0) {
        double t = ddot(dsub(p, a), n) / nn;
        dv q = dsub(p, dscale(n, t));
        dv v0 = dsub(b, a), v1 = dsub(c, a), v2 = dsub(q, a);
        double d00 = ddot(v0, v0), d01 = ddot(v0, v1), d11 = ddot(v1, v1), d20 = ddot(v2, v0), d21 = ddot(v2, v1);
        double den = d00 * d11 - d01 * d01;
        if (den > 0) {
            double v = (d11 * d20 - d01 * d21) / den, w = (d00 * d21 - d01 * d20) / den;
            if (v >= 0 && w >= 0 && v + w <= 1) return fabs(t) * sqrt(nn);
        }
    }
    dv e[3][2] = {{a, b}, {b, c}, {c, a}};
    double best = 1e30;
    for (int i = 0; i < 3; ++i) {
        dv s = dsub(e[i][1], e[i][0]);
        double ss = ddot(s, s), t = ss > 0 ? ddot(dsub(p, e[i][0]), s) / ss : 0;
        if (t < 0) t = 0;
        if (t > 1) t = 1;
        dv q = dsub(p, dadd(e[i][0], dscale(s, t)));
        double dd = sqrt(ddot(q, q));
        if (dd < best) best = dd;
    }
    return best;
}

/* signed-ish distance from a point to a body (surface distance; negative inside) by brute force */
static double brute_dist(const cr_world *w, cr_body_id id, dv p) {
    cr_transform xf = cr_body_get_transform(w, id);
    cr_shape_def s = cr_body_get_shape(w, id);
    dv l = to_local(xf, p);
    if (s.type == CR_SHAPE_SPHERE) return sqrt(ddot(l, l)) - cr_to_double(s.radius);
    if (s.type == CR_SHAPE_PLANE) return l.y;
    if (s.type == CR_SHAPE_BOX) {
        double q[3] = {fabs(l.x) - cr_to_double(s.half_extents.x), fabs(l.y) - cr_to_double(s.half_extents.y),
                       fabs(l.z) - cr_to_double(s.half_extents.z)};
        double out = 0, in = fmax(q[0], fmax(q[1], q[2]));
        for (int a = 0; a < 3; ++a) out += q[a] > 0 ? q[a] * q[a] : 0;
        return in > 0 ? sqrt(out) : in;
    }
    cr_body_mesh m;
    if (cr_body_get_mesh(w, id, &m) != CR_OK) return 1e30;
    double best = 1e30;
    for (uint32_t k = 0; k < m.triangle_count; ++k) {
        const uint32_t *t = &m.triangles[3 * k];
        double dd = tri_dist(l, D(m.positions[t[0]]), D(m.positions[t[1]]), D(m.positions[t[2]]));
        if (dd < best) best = dd;
    }
    cr_real sd;
    cr_vec3 nn;
    cr_body_query_point(w, id, R3(p), &sd, &nn);
    return cr_to_double(sd) < 0 ? -best : best; /* inside from the grid's sign, the size from the triangles */
}

static int compare_spheres(const cr_world *w, int count, int *found_total, const char *where) {
    static cr_body_id ids[4096];
    uint32_t n = cr_world_get_body_ids(w, ids, 4096);
    int bad = 0;
    for (int k = 0; k < count; ++k) {
        dv c;
        dv dummy;
        aimed_ray(w, &c, &dummy);
        c = dadd(c, dscale(dummy, 0.5 / 1.6)); /* halfway to a body */
        double radius = 0.1 + 1.5 * rnd();
        cr_vec3 rc = R3(c);
        c = D(rc);
        static uint32_t got[1024];
        got[0] = 0;
        if (cr_world_overlap_sphere(w, rc, CR_R(radius), cr_default_query_filter(), collect_fn, got) != CR_OK) return 1000;
        *found_total += (int)got[0];
        uint32_t gi = 0;
        for (uint32_t i = 0; i < n; ++i) {
            if (!brute_answers(w, ids[i])) continue;
            bool listed = gi < got[0] && got[1 + gi] == ids[i].index1;
            if (listed) ++gi;
            double dd = brute_dist(w, ids[i], c);
            bool meets = dd <= radius;
            /* the grid's sign decides inside for meshes: leave the few near the surface out */
            if (fabs(dd - radius) < 2e-3) continue;
            if (meets != listed) {
                if (bad < 3)
                    cr_test_printf("  %s: sphere %d r %.3f body %u: query %d, brute distance %.4f\n", where, k, radius,
                                   ids[i].index1, listed, dd);
                ++bad;
            }
        }
    }
    return bad;
}

CR_TEST(query_sphere_overlaps_match_brute_force) {
    const char *scenes[] = {"pile", "rings", "dent_bunny", "terrain", "fracture_tower", "bend_bar"};
    int bad = 0, found = 0;
    for (int i = 0; i < 6; ++i) {
        scene_run r;
        ENSURE(open_scene(scenes[i], &r) == 0);
        for (int32_t f = 0; f < 60; ++f) ENSURE(step(&r, f) == 0);
        bad += compare_spheres(r.w, 40, &found, scenes[i]);
        close_scene(&r);
    }
    cr_test_printf("  240 spheres in 6 scenes: %d bodies found, %d differ from brute force\n", found, bad);
    ENSURE(found > 100);
    ENSURE(bad == 0);
}

static bool count_fn(void *ctx, cr_body_id b, cr_soft_id s) {
    (void)b, (void)s;
    ++*(uint32_t *)ctx;
    return true;
}

CR_TEST(query_box_and_aabb_overlaps_find_what_they_cover) {
    scene_run r;
    ENSURE(open_scene("pile", &r) == 0);
    for (int32_t f = 0; f < 30; ++f) ENSURE(step(&r, f) == 0);
    static cr_body_id ids[4096];
    uint32_t n = cr_world_get_body_ids(r.w, ids, 4096);
    /* a small box at every body's centre finds it (and the sphere of the same size agrees on the rest) */
    uint32_t missed = 0, tested = 0;
    for (uint32_t i = 0; i < n; i += 7) {
        if (cr_body_get_shape(r.w, ids[i]).type == CR_SHAPE_PLANE) continue;
        cr_transform t = cr_body_get_transform(r.w, ids[i]);
        cr_overlap_hit hits[64];
        uint32_t count = 0;
        ENSURE(cr_world_overlap_box_all(r.w, t, cr_v3(CR_R(0.05), CR_R(0.05), CR_R(0.05)), cr_default_query_filter(),
                                        hits, 64, &count) == CR_OK);
        bool seen = false;
        for (uint32_t k = 0; k < count && k < 64; ++k) seen |= hits[k].body.index1 == ids[i].index1;
        for (uint32_t k = 1; k < count && k < 64; ++k) ENSURE(hits[k - 1].body.index1 < hits[k].body.index1);
        missed += !seen, ++tested;
    }
    ENSURE(tested > 100 && missed == 0);
    /* an aabb round everything finds every body; one far away finds none */
    uint32_t all = 0, none = 0;
    ENSURE(cr_world_overlap_aabb(r.w, cr_v3(CR_R(-100), CR_R(-1), CR_R(-100)), cr_v3(CR_R(100), CR_R(100), CR_R(100)),
                                 cr_default_query_filter(), count_fn, &all) == CR_OK);
    ENSURE(cr_world_overlap_aabb(r.w, cr_v3(CR_R(500), CR_R(500), CR_R(500)), cr_v3(CR_R(501), CR_R(501), CR_R(501)),
                                 cr_default_query_filter(), count_fn, &none) == CR_OK);
    ENSURE(all == n && none == 0);
    close_scene(&r);
}

/* ---- no state change, no stale hits, order, filter, bad input ---- */

typedef struct ray_log {
    uint32_t n;
    uint32_t index1[64];
} ray_log;

static cr_real log_fn(void *ctx, const cr_ray_hit *h) {
    ray_log *l = ctx;
    if (l->n < 64) l->index1[l->n] = h->body.index1;
    ++l->n;
    return CR_R(1);
}

CR_TEST(query_calls_leave_the_state_hash_and_find_moved_bodies) {
    scene_run r;
    ENSURE(open_scene("pile", &r) == 0);
    for (int32_t f = 0; f < 30; ++f) ENSURE(step(&r, f) == 0);
    uint64_t before = cr_world_state_hash(r.w);
    int hits = 0;
    ENSURE(compare_rays(r.w, 50, &hits, "pile") == 0);
    int found = 0;
    ENSURE(compare_spheres(r.w, 10, &found, "pile") == 0);
    ray_log lg = {0, {0}};
    ENSURE(cr_world_cast_ray(r.w, cr_v3(CR_R(-20), CR_R(3), CR_R(0.3)), cr_v3(CR_R(40), 0, 0), cr_default_query_filter(),
                             log_fn, &lg) == CR_OK);
    ENSURE(lg.n >= 3);
    for (uint32_t k = 1; k < lg.n && k < 64; ++k) ENSURE(lg.index1[k - 1] < lg.index1[k]); /* handle order */
    cr_ray_hit all[64];
    uint32_t count;
    ENSURE(cr_world_cast_ray_all(r.w, cr_v3(CR_R(-20), CR_R(3), CR_R(0.3)), cr_v3(CR_R(40), 0, 0),
                                 cr_default_query_filter(), all, 64, &count) == CR_OK);
    ENSURE(count == lg.n);
    for (uint32_t k = 1; k < count && k < 64; ++k) ENSURE(all[k - 1].fraction <= all[k].fraction); /* nearest first */
    ENSURE(cr_world_state_hash(r.w) == before);

    /* a body moved between steps is hit where it is now, not where the tree saw it */
    static cr_body_id ids[4096];
    uint32_t n = cr_world_get_body_ids(r.w, ids, 4096);
    cr_body_id moved = ids[n / 2];
    cr_transform t = cr_body_get_transform(r.w, moved);
    t.p = cr_v3(CR_R(40), CR_R(5), CR_R(40));
    ENSURE(cr_body_set_transform(r.w, moved, t) == CR_OK);
    cr_ray_hit h;
    bool hit;
    ENSURE(cr_world_cast_ray_closest(r.w, cr_v3(CR_R(40), CR_R(20), CR_R(40)), cr_v3(0, CR_R(-30), 0),
                                     cr_default_query_filter(), &h, &hit) == CR_OK);
    ENSURE(hit && h.body.index1 == moved.index1);
    ENSURE_NEAR(cr_to_double(h.normal.y), 1.0, 1e-3);
    hits = 0;
    ENSURE(compare_rays(r.w, 30, &hits, "pile, one body moved") == 0);
    /* a mask that sees nothing hits nothing */
    cr_query_filter none = {1u, 0u, false};
    ENSURE(cr_world_cast_ray_closest(r.w, cr_v3(CR_R(40), CR_R(20), CR_R(40)), cr_v3(0, CR_R(-30), 0), none, &h, &hit) ==
           CR_OK);
    ENSURE(!hit);
    close_scene(&r);
}

/* a callback that asks the world again: the same ray's closest hit */
typedef struct nested {
    const cr_world *w;
    cr_vec3 o, d;
    uint32_t calls, ok;
} nested;
static cr_real nested_fn(void *ctx, const cr_ray_hit *h) {
    nested *n = ctx;
    cr_ray_hit c;
    bool found;
    ++n->calls;
    n->ok += cr_world_cast_ray_closest(n->w, n->o, n->d, cr_default_query_filter(), &c, &found) == CR_OK && found &&
             c.fraction <= h->fraction;
    uint32_t count = 0;
    n->ok += cr_world_overlap_sphere(n->w, h->point, CR_R(0.1), cr_default_query_filter(), count_fn, &count) == CR_OK &&
             count > 0;
    return CR_R(1);
}

static cr_real stop_fn(void *ctx, const cr_ray_hit *h) {
    (void)ctx, (void)h;
    return 0;
}

CR_TEST(query_refuses_bad_input_naming_the_argument) {
    scene_run r;
    ENSURE(open_scene("stack", &r) == 0);
    ENSURE(step(&r, 0) == 0);
    cr_ray_hit h;
    bool hit;
    cr_query_filter f = cr_default_query_filter();
#if CR_FIXED
    cr_real nan = CR_REAL_MAX; /* what cr_from_float gives for a NaN or an infinity: saturated */
#else
    cr_real nan = NAN;
#endif
    ENSURE(cr_world_cast_ray_closest(r.w, cr_v3(nan, 0, 0), cr_v3(CR_R(1), 0, 0), f, &h, &hit) == CR_ERR_NOT_FINITE);
    ENSURE(cr_world_refused_field(r.w) == CR_FIELD_QUERY_ORIGIN);
    ENSURE(cr_world_cast_ray_closest(r.w, cr_v3_zero(), cr_v3_zero(), f, &h, &hit) == CR_ERR_ARGUMENT_RANGE);
    ENSURE(cr_world_refused_field(r.w) == CR_FIELD_QUERY_TRANSLATION);
    ENSURE(strcmp(cr_field_name(CR_FIELD_QUERY_TRANSLATION), "translation") == 0);
    ENSURE(cr_world_cast_ray(r.w, cr_v3_zero(), cr_v3(CR_R(1), 0, 0), f, NULL, NULL) == CR_ERR_NULL_ARGUMENT);
    ENSURE(cr_world_refused_field(r.w) == CR_FIELD_QUERY_CALLBACK);
    ENSURE(cr_world_cast_ray_closest(r.w, cr_v3_zero(), cr_v3(CR_R(1), 0, 0), f, NULL, &hit) == CR_ERR_NULL_ARGUMENT);
    ENSURE(cr_world_refused_field(r.w) == CR_FIELD_QUERY_OUT);
    ENSURE(cr_world_overlap_sphere(r.w, cr_v3_zero(), CR_R(-1), f, count_fn, &hit) == CR_ERR_ARGUMENT_RANGE);
    ENSURE(cr_world_refused_field(r.w) == CR_FIELD_QUERY_RADIUS);
    ENSURE(cr_world_overlap_sphere(r.w, cr_v3_zero(), CR_R(1), f, NULL, NULL) == CR_ERR_NULL_ARGUMENT);
    cr_transform bad = {cr_v3_zero(), {0, 0, 0, 0}};
    ENSURE(cr_world_overlap_box(r.w, bad, cr_v3(CR_R(1), CR_R(1), CR_R(1)), f, count_fn, &hit) == CR_ERR_BAD_ORIENTATION);
    ENSURE(cr_world_refused_field(r.w) == CR_FIELD_QUERY_POSE);
    ENSURE(cr_world_overlap_aabb(r.w, cr_v3(CR_R(1), 0, 0), cr_v3_zero(), f, count_fn, &hit) == CR_ERR_ARGUMENT_RANGE);
    ENSURE(cr_world_refused_field(r.w) == CR_FIELD_QUERY_BOUNDS);
    ENSURE(cr_world_cast_sphere(r.w, cr_v3_zero(), 0, cr_v3(CR_R(1), 0, 0), f, &h, &hit) == CR_ERR_ARGUMENT_RANGE);
    ENSURE(cr_world_refused_field(r.w) == CR_FIELD_QUERY_RADIUS);
    ENSURE(cr_world_cast_sphere(r.w, cr_v3_zero(), CR_R(1), cr_v3(nan, 0, 0), f, &h, &hit) == CR_ERR_NOT_FINITE);
    ENSURE(cr_world_refused_field(r.w) == CR_FIELD_QUERY_TRANSLATION);
    cr_real d;
    cr_vec3 n;
    cr_body_id stale = {999, 7};
    ENSURE(cr_body_query_point(r.w, stale, cr_v3_zero(), &d, &n) == CR_ERR_STALE_HANDLE);
    ENSURE(cr_world_refused_field(r.w) == CR_FIELD_QUERY_BODY);
    /* a callback may query again */
    nested nn = {r.w, cr_v3(0, CR_R(20), 0), cr_v3(0, CR_R(-30), 0), 0, 0};
    ENSURE(cr_world_cast_ray(r.w, nn.o, nn.d, f, nested_fn, &nn) == CR_OK);
    ENSURE(nn.calls >= 2 && nn.ok == 2 * nn.calls);
    /* a callback that stops ends the query, and the next one starts clean */
    ENSURE(cr_world_cast_ray(r.w, cr_v3(0, CR_R(20), 0), cr_v3(0, CR_R(-30), 0), f, stop_fn, NULL) == CR_OK);
    ENSURE(cr_world_cast_ray_closest(r.w, cr_v3(0, CR_R(20), 0), cr_v3(0, CR_R(-30), 0), f, &h, &hit) == CR_OK && hit);
    /* the point query: a box of the stack, 1 m above its top face */
    ENSURE(cr_body_query_point(r.w, h.body, cr_v3_add(h.point, cr_v3(0, CR_R(1), 0)), &d, &n) == CR_OK);
    ENSURE_NEAR(cr_to_double(d), 1.0, 1e-3);
    ENSURE_NEAR(cr_to_double(n.y), 1.0, 1e-3);
    close_scene(&r);
}

CR_TEST(query_filter_and_disabled_bodies_are_not_hit) {
    scene_run r;
    ENSURE(open_scene("pile", &r) == 0);
    for (int32_t f = 0; f < 30; ++f) ENSURE(step(&r, f) == 0);
    static cr_body_id ids[4096];
    uint32_t n = cr_world_get_body_ids(r.w, ids, 4096);
    /* every other body in category 2; one body disabled */
    for (uint32_t i = 0; i < n; i += 2) {
        cr_filter f = cr_body_get_filter(r.w, ids[i]);
        f.category_bits = 2;
        ENSURE(cr_body_set_filter(r.w, ids[i], f) == CR_OK);
    }
    cr_query_filter only1 = {1u, 1u, false}, only2 = {1u, 2u, false};
    uint32_t hit1 = 0, hit2 = 0, wrong = 0;
    lcg_state = 99u;
    for (int k = 0; k < 400; ++k) {
        dv o, d;
        aimed_ray(r.w, &o, &d);
        cr_ray_hit h;
        bool found;
        ENSURE(cr_world_cast_ray_closest(r.w, R3(o), R3(d), only1, &h, &found) == CR_OK);
        if (found) ++hit1, wrong += cr_body_get_filter(r.w, h.body).category_bits != 1;
        ENSURE(cr_world_cast_ray_closest(r.w, R3(o), R3(d), only2, &h, &found) == CR_OK);
        if (found) ++hit2, wrong += cr_body_get_filter(r.w, h.body).category_bits != 2;
    }
    cr_test_printf("  400 rays: %u hits on category 1, %u on category 2, %u wrong\n", hit1, hit2, wrong);
    ENSURE(hit1 > 100 && hit2 > 100 && wrong == 0);
    /* a body the ray would hit first, disabled, lets the ray through to the next */
    cr_ray_hit h, h2;
    bool found;
    cr_vec3 above = cr_body_get_transform(r.w, ids[n / 2]).p;
    above.y = CR_R(30);
    ENSURE(cr_world_cast_ray_closest(r.w, above, cr_v3(0, CR_R(-40), 0), cr_default_query_filter(), &h, &found) == CR_OK &&
           found);
    ENSURE(cr_body_get_shape(r.w, h.body).type != CR_SHAPE_PLANE);
    ENSURE(cr_body_set_enabled(r.w, h.body, false) == CR_OK);
    ENSURE(cr_world_cast_ray_closest(r.w, above, cr_v3(0, CR_R(-40), 0), cr_default_query_filter(), &h2, &found) == CR_OK &&
           found);
    ENSURE(h2.body.index1 != h.body.index1 && h2.fraction >= h.fraction);
    uint32_t none = 0;
    cr_vec3 c = h.point;
    ENSURE(cr_world_overlap_sphere(r.w, c, CR_R(0.01), (cr_query_filter){~0ull, ~0ull, false}, count_fn, &none) == CR_OK);
    ENSURE(none == 0); /* the disabled body's surface point meets nothing else's within 1 cm */
    close_scene(&r);
}

/* A sensor is a trigger volume, not a surface: queries pass through it unless
 * their filter asks for sensors. */
static bool hits_trigger(const cr_world *w, cr_body_id trigger, cr_query_filter f, uint32_t *count) {
    cr_ray_hit all[64];
    *count = 0;
    if (cr_world_cast_ray_all(w, cr_v3(CR_R(0.9), CR_R(5), 0), cr_v3(0, CR_R(-6), 0), f, all, 64, count) != CR_OK) return false;
    for (uint32_t k = 0; k < *count && k < 64; ++k)
        if (all[k].body.index1 == trigger.index1) return true;
    return false;
}

static bool collect_trigger_fn(void *ctx, cr_body_id body, cr_soft_id soft) {
    (void)soft;
    *(uint32_t *)ctx += body.index1 != 0 && ((uint32_t *)ctx)[1] == body.index1;
    return true;
}

CR_TEST(query_sensors_answer_only_when_the_filter_asks) {
    scene_run r;
    ENSURE(open_scene("filter_sensor", &r) == 0);
    for (int32_t f = 0; f < 120; ++f) ENSURE(step(&r, f) == 0);
    cr_body_id trigger = r.s->bodies[cr_scene_find_body(r.s, "trigger")].id;
    ENSURE(cr_body_is_sensor(r.w, trigger));
    cr_query_filter solid = cr_default_query_filter(), with = solid;
    with.sensors = true;
    ENSURE(!solid.sensors);
    uint32_t n_solid, n_with;
    ENSURE(!hits_trigger(r.w, trigger, solid, &n_solid));
    ENSURE(hits_trigger(r.w, trigger, with, &n_with));
    ENSURE(n_with == n_solid + 1); /* the ground (and any ball below) in both */
    uint32_t seen[2] = {0, trigger.index1};
    ENSURE(cr_world_overlap_sphere(r.w, cr_v3(CR_R(0.9), CR_R(0.6), 0), CR_R(0.05), solid, collect_trigger_fn, seen) == CR_OK);
    ENSURE(seen[0] == 0);
    ENSURE(cr_world_overlap_sphere(r.w, cr_v3(CR_R(0.9), CR_R(0.6), 0), CR_R(0.05), with, collect_trigger_fn, seen) == CR_OK);
    ENSURE(seen[0] == 1);
    cr_test_printf("  a ray down through the trigger: %u hits without sensors, %u with\n", n_solid, n_with);
    close_scene(&r);
}

/* ---- sphere casts ---- */

/* the first of `samples` steps along the sweep where the sphere meets a body, by brute-force distance; -1 if none */
static int brute_sweep(const cr_world *w, dv c, dv d, double r, int samples) {
    static cr_body_id ids[4096];
    uint32_t n = cr_world_get_body_ids(w, ids, 4096);
    for (int i = 0; i <= samples; ++i) {
        dv p = dadd(c, dscale(d, (double)i / samples));
        for (uint32_t k = 0; k < n; ++k) {
            if (!brute_answers(w, ids[k])) continue;
            cr_shape_def s = cr_body_get_shape(w, ids[k]);
            if (s.type != CR_SHAPE_PLANE) { /* far bodies first out */
                dv q = dsub(p, D(cr_body_get_transform(w, ids[k]).p));
                double reach = cr_to_double(cr_body_get_bound_radius(w, ids[k])) + r;
                if (ddot(q, q) > reach * reach) continue;
            }
            if (brute_dist(w, ids[k], p) <= r) return i;
        }
    }
    return -1;
}

CR_TEST(query_sphere_casts_match_brute_force) {
    const char *scenes[] = {"stack", "dent_ball_block", "incline", "pile", "squash_drop"};
    int bad = 0, hits = 0, casts = 0;
    lcg_state = 4242u;
    for (int i = 0; i < 5; ++i) {
        scene_run r;
        ENSURE(open_scene(scenes[i], &r) == 0);
        for (int32_t f = 0; f < 60; ++f) ENSURE(step(&r, f) == 0);
        uint64_t before = cr_world_state_hash(r.w);
        for (int k = 0; k < 12; ++k) {
            dv o, d;
            aimed_ray(r.w, &o, &d);
            double radius = 0.05 + 0.5 * rnd();
            cr_vec3 ro = R3(o), rd = R3(d);
            o = D(ro), d = D(rd);
            cr_ray_hit h;
            bool found;
            ENSURE(cr_world_cast_sphere(r.w, ro, CR_R(radius), rd, cr_default_query_filter(), &h, &found) == CR_OK);
            const int samples = 1000;
            int first = brute_sweep(r.w, o, d, radius, samples);
            double step_t = 1.0 / samples, len = sqrt(ddot(d, d));
            double slack = step_t + 3e-3 / len; /* a sample, and 3 mm for the grid's sign and the rounding */
            bool ok = first < 0 ? (!found || cr_to_double(h.fraction) > 1 - slack)
                                : found && cr_to_double(h.fraction) >= (first - 1) * step_t - slack &&
                                      cr_to_double(h.fraction) <= first * step_t + slack;
            if (found) {
                ++hits;
                /* the point is on the body's surface, the centre then is r from it */
                dv centre = dadd(o, dscale(d, cr_to_double(h.fraction)));
                dv gap = dsub(centre, D(h.point));
                if (first > 0 && fabs(sqrt(ddot(gap, gap)) - radius) > 2e-3) ok = false;
            }
            if (!ok) {
                cr_test_printf("  %s: cast %d r %.3f: query %d %.5f, brute first sample %d (%.5f)\n", scenes[i], k, radius,
                               found, found ? cr_to_double(h.fraction) : -1.0, first, first * step_t);
                ++bad;
            }
            ++casts;
        }
        ENSURE(cr_world_state_hash(r.w) == before);
        close_scene(&r);
    }
    cr_test_printf("  %d sphere casts, %d hit, %d differ from the brute-force sweep\n", casts, hits, bad);
    ENSURE(hits > casts / 2);
    ENSURE(bad == 0);
}

/* ---- box casts ---- */

static bool any_fn(void *ctx, cr_body_id b, cr_soft_id s) {
    (void)b, (void)s;
    *(bool *)ctx = true;
    return false;
}

CR_TEST(query_box_casts_match_sampled_overlaps) {
    const char *scenes[] = {"stack", "dent_ball_block", "incline", "pile", "rings"};
    int bad = 0, hits = 0, casts = 0;
    lcg_state = 5151u;
    for (int i = 0; i < 5; ++i) {
        scene_run r;
        ENSURE(open_scene(scenes[i], &r) == 0);
        for (int32_t f = 0; f < 60; ++f) ENSURE(step(&r, f) == 0);
        uint64_t before = cr_world_state_hash(r.w);
        for (int k = 0; k < 12; ++k) {
            dv o, d;
            aimed_ray(r.w, &o, &d);
            cr_vec3 he = cr_v3(CR_R(0.05 + 0.4 * rnd()), CR_R(0.05 + 0.4 * rnd()), CR_R(0.05 + 0.4 * rnd()));
            cr_vec3 axis = cr_v3_normalize(cr_v3(CR_R(rsym(1)), CR_R(rsym(1)), CR_R(1)));
            cr_transform pose = {R3(o), cr_quat_from_axis_angle(axis, CR_R(rsym(3)))};
            cr_vec3 rd = R3(d);
            cr_ray_hit h;
            bool found;
            ENSURE(cr_world_cast_box(r.w, pose, he, rd, cr_default_query_filter(), &h, &found) == CR_OK);
            /* the oracle: the static box overlap at 400 samples along the sweep */
            const int samples = 400;
            int first = -1;
            for (int s = 0; s <= samples && first < 0; ++s) {
                cr_transform at = pose;
                at.p = cr_v3_add(pose.p, cr_v3_scale(rd, CR_R((double)s / samples)));
                bool any = false;
                ENSURE(cr_world_overlap_box(r.w, at, he, cr_default_query_filter(), any_fn, &any) == CR_OK);
                if (any) first = s;
            }
            double step_t = 1.0 / samples, len = sqrt(ddot(D(rd), D(rd)));
            double slack = step_t + 2e-3 / len;
            double t = found ? cr_to_double(h.fraction) : -1;
            bool ok = first < 0 ? (!found || t > 1 - slack)
                                : found && t >= (first - 1) * step_t - slack && t <= first * step_t + slack;
            if (found) ++hits;
            if (!ok) {
                cr_test_printf("  %s: box cast %d: query %d %.5f, first overlapping sample %d (%.5f)\n", scenes[i], k,
                               found, t, first, first * step_t);
                ++bad;
            }
            ++casts;
        }
        ENSURE(cr_world_state_hash(r.w) == before);
        close_scene(&r);
    }
    cr_test_printf("  %d box casts, %d hit, %d differ from the sampled overlaps\n", casts, hits, bad);
    ENSURE(hits > casts / 2);
    ENSURE(bad == 0);
}
