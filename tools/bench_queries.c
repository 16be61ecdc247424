/* bench_queries.c — `crumple bench queries [--steps N] [--rays N] [--spheres N]
 * [--scenes DIR] [--export PREFIX]`: closest-hit rays and sphere overlaps
 * into the peer pile (1000 bodies) and rings (200 meshes), timed.
 *
 * Each scene (data/scenes/peer_pile.scene, peer_rings.scene) steps N times
 * (default 300) at 1/60 s, then casts the rays one by one
 * (cr_world_cast_ray_closest) and asks the sphere overlaps
 * (cr_world_overlap_sphere, r 0.5 m) one by one, one thread. The rays and
 * spheres come from one LCG (seed 2027): origins and centres uniform in the
 * bodies' box grown by 1 m, directions uniform, each ray as long as the
 * box's diagonal. Reported per scene, as one JSON line: rays per second,
 * hits, overlaps per second, bodies found, each from the least CPU time of
 * --rounds rounds (default 3), and, untimed, how many rays start inside a
 * body (a one-sided ray does not hit that body from within).
 *
 * --export PREFIX writes PREFIX_pile.txt and PREFIX_rings.txt: the bodies
 * where this run left them (meshes in their OBJ's frame), every ray and
 * sphere, and this run's hit counts, for the Bullet peer's query mode
 * (tests/peers/bullet_peer.cpp --queries), which casts the same rays into
 * the same bodies: `make bench-queries` prints both side by side
 * (docs/queries.md).
 */
#include "cli.h"
#include "scene.h"
#include "stb_ds.h"
#include "platform.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct probe {
    double o[3], d[3]; /* a ray: origin, translation; a sphere: centre, (radius, 0, 0) */
} probe;

static uint32_t lcg;
static double rand01(void) { return ((lcg = lcg * 1664525u + 1013904223u) >> 8) / 16777216.0; }

static cr_vec3 v3(const double *d) {
    return cr_v3(cr_scene_real_from_double(d[0]), cr_scene_real_from_double(d[1]), cr_scene_real_from_double(d[2]));
}

static bool count_body(void *ctx, cr_body_id body, cr_soft_id soft) {
    (void)body, (void)soft;
    ++*(uint64_t *)ctx;
    return true;
}

static cr_transform obj_pose(const cr_scene *s, const cr_world *w, ptrdiff_t i) {
    cr_transform t = cr_body_get_transform(w, s->bodies[i].id);
    if (s->bodies[i].asset >= 0) {
        cr_transform m = s->assets[s->bodies[i].asset].view_->mesh_to_body;
        t.p = cr_v3_add(t.p, cr_quat_rotate(t.q, m.p));
        t.q = cr_quat_mul(t.q, m.q);
    }
    return t;
}

static void export_scene(FILE *f, const char *name, const cr_scene *s, const cr_world *w, const probe *rays, int nrays,
                         const probe *spheres, int nspheres, uint64_t hits, uint64_t found) {
    fprintf(f, "queries %s\n", name);
    for (ptrdiff_t i = 0; i < arrlen(s->bodies); ++i) {
        cr_shape_def sh = s->bodies[i].def.shape;
        cr_transform t = obj_pose(s, w, i);
        if (sh.type == CR_SHAPE_PLANE) {
            fprintf(f, "plane\n");
            continue;
        }
        if (sh.type == CR_SHAPE_SPHERE) fprintf(f, "sphere %.9g", cr_to_double(sh.radius));
        else if (sh.type == CR_SHAPE_BOX)
            fprintf(f, "box %.9g %.9g %.9g", cr_to_double(sh.half_extents.x), cr_to_double(sh.half_extents.y),
                    cr_to_double(sh.half_extents.z));
        else fprintf(f, "torus 1 0.25"); /* the peers' torus (../shared/peer-scenes.md), as data/meshes/torus.obj */
        fprintf(f, " %.9g %.9g %.9g %.9g %.9g %.9g %.9g\n", cr_to_double(t.p.x), cr_to_double(t.p.y), cr_to_double(t.p.z),
                cr_to_double(t.q.x), cr_to_double(t.q.y), cr_to_double(t.q.z), cr_to_double(t.q.w));
    }
    for (int k = 0; k < nrays; ++k)
        fprintf(f, "ray %.9g %.9g %.9g %.9g %.9g %.9g\n", rays[k].o[0], rays[k].o[1], rays[k].o[2], rays[k].d[0],
                rays[k].d[1], rays[k].d[2]);
    for (int k = 0; k < nspheres; ++k)
        fprintf(f, "overlap %.9g %.9g %.9g %.9g\n", spheres[k].o[0], spheres[k].o[1], spheres[k].o[2], spheres[k].d[0]);
    fprintf(f, "crumple_hits %llu crumple_found %llu\n", (unsigned long long)hits, (unsigned long long)found);
}

static int bench_one(const char *dir, const char *name, int steps, int nrays, int nspheres, int rounds, const char *prefix) {
    char path[CR_SCENE_PATH_MAX];
    snprintf(path, sizeof path, "%s/peer_%s.scene", dir, name);
    cr_scene *s = NULL;
    cr_scene_error err;
    cr_world *w = NULL;
    if (cr_scene_load(path, &s, &err) || cr_scene_build(s, &w, &err)) {
        cr_scene_error_print(stderr, &err);
        cr_scene_free(s);
        return 1;
    }
    for (int32_t f = 0; f < steps; ++f)
        if (cr_scene_step(s, w, f, &err)) {
            cr_scene_error_print(stderr, &err);
            cr_cli_world_free(w);
            cr_scene_free(s);
            return 1;
        }
    /* the box of the dynamic bodies, grown by 1 m */
    double lo[3] = {1e30, 1e30, 1e30}, hi[3] = {-1e30, -1e30, -1e30};
    for (ptrdiff_t i = 0; i < arrlen(s->bodies); ++i) {
        if (s->bodies[i].def.type != CR_BODY_DYNAMIC) continue;
        cr_vec3 p = cr_body_get_transform(w, s->bodies[i].id).p;
        double q[3] = {cr_to_double(p.x), cr_to_double(p.y), cr_to_double(p.z)};
        for (int a = 0; a < 3; ++a) lo[a] = fmin(lo[a], q[a] - 1), hi[a] = fmax(hi[a], q[a] + 1);
    }
    double diag = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) + (hi[2] - lo[2]) * (hi[2] - lo[2]));
    probe *rays = malloc(sizeof(probe) * (size_t)nrays), *spheres = malloc(sizeof(probe) * (size_t)nspheres);
    lcg = 2027u;
    for (int k = 0; k < nrays; ++k) {
        double d[3], l;
        do {
            for (int a = 0; a < 3; ++a) d[a] = 2 * rand01() - 1;
            l = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        } while (l > 1 || l < 1e-3);
        for (int a = 0; a < 3; ++a) rays[k].o[a] = lo[a] + (hi[a] - lo[a]) * rand01(), rays[k].d[a] = d[a] / l * diag;
    }
    for (int k = 0; k < nspheres; ++k) {
        for (int a = 0; a < 3; ++a) spheres[k].o[a] = lo[a] + (hi[a] - lo[a]) * rand01();
        spheres[k].d[0] = 0.5, spheres[k].d[1] = spheres[k].d[2] = 0;
    }
    cr_query_filter filter = cr_default_query_filter();
    uint64_t hits = 0, found = 0, before = cr_world_state_hash(w);
    /* the least CPU time of `rounds` rounds: on a shared machine wall time counts the waits for a core */
    double ray_ms = 1e30, overlap_ms = 1e30;
    for (int round = 0; round < rounds; ++round) {
        hits = found = 0;
        clock_t c0 = clock();
        for (int k = 0; k < nrays; ++k) {
            cr_ray_hit h;
            bool hit;
            cr_world_cast_ray_closest(w, v3(rays[k].o), v3(rays[k].d), filter, &h, &hit);
            hits += hit;
        }
        clock_t c1 = clock();
        for (int k = 0; k < nspheres; ++k)
            cr_world_overlap_sphere(w, v3(spheres[k].o), cr_scene_real_from_double(spheres[k].d[0]), filter, count_body,
                                    &found);
        clock_t c2 = clock();
        ray_ms = fmin(ray_ms, 1e3 * (double)(c1 - c0) / CLOCKS_PER_SEC);
        overlap_ms = fmin(overlap_ms, 1e3 * (double)(c2 - c1) / CLOCKS_PER_SEC);
    }
    /* untimed: rays that start inside a body, which a one-sided ray does not hit from within */
    uint64_t inside = 0;
    for (int k = 0; k < nrays; ++k) {
        uint64_t n = 0;
        cr_world_overlap_sphere(w, v3(rays[k].o), cr_scene_real_from_double(1e-4), filter, count_body, &n);
        inside += n > 0;
    }
    printf("{\"engine\":\"crumple\",\"scene\":\"%s\",\"mode\":\"%s\",\"bodies\":%u,\"steps\":%d,\"rays\":%d,\"ray_ms\":%.3f,"
           "\"rays_per_s\":%.0f,\"ray_hits\":%llu,\"rounds\":%d,\"overlaps\":%d,\"overlap_ms\":%.3f,\"overlaps_per_s\":%.0f,"
           "\"bodies_found\":%llu,\"rays_from_inside\":%llu,\"state_unchanged\":%s}\n",
           name, CR_MODE_NAME, cr_world_get_stats(w).body_count, steps, nrays, ray_ms, nrays / (ray_ms * 1e-3),
           (unsigned long long)hits, rounds, nspheres, overlap_ms, nspheres / (overlap_ms * 1e-3), (unsigned long long)found,
           (unsigned long long)inside, cr_world_state_hash(w) == before ? "true" : "false");
    int rc = 0;
    if (prefix != NULL) {
        char out[CR_SCENE_PATH_MAX + 16];
        snprintf(out, sizeof out, "%s_%s.txt", prefix, name);
        FILE *f = fopen(out, "w");
        if (f == NULL) {
            fprintf(stderr, "%s: cannot write\n", out);
            rc = 1;
        } else {
            export_scene(f, name, s, w, rays, nrays, spheres, nspheres, hits, found);
            fclose(f);
        }
    }
    free(rays);
    free(spheres);
    cr_cli_world_free(w);
    cr_scene_free(s);
    return rc;
}

static int count_arg(int argc, char **argv, int *i, int *out) {
    char *end;
    long v = *i + 1 < argc ? strtol(argv[*i + 1], &end, 10) : -1;
    if (*i + 1 >= argc || end == argv[*i + 1] || *end != '\0' || v < 1 || v > 100000000) {
        fprintf(stderr, "crumple bench queries: %s needs a count from 1 to 100000000\n", argv[*i]);
        return 2;
    }
    *out = (int)v;
    ++*i;
    return 0;
}

int cr_bench_queries(int argc, char **argv) {
    const char *dir = "data/scenes", *prefix = NULL;
    int steps = 300, nrays = 100000, nspheres = 10000, rounds = 3;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        int rc = 0;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            printf("usage: crumple bench queries [--steps N] [--rays N] [--spheres N] [--rounds N] [--scenes DIR] [--export PREFIX]\n"
                   "  Closest-hit rays and sphere overlaps (r 0.5 m) into peer_pile and peer_rings after\n"
                   "  N steps (default 300; 100000 rays, 10000 spheres), one JSON line per scene:\n"
                   "  the least CPU time of --rounds rounds (default 3).\n"
                   "  --export PREFIX  write PREFIX_pile.txt and PREFIX_rings.txt for the Bullet peer\n"
                   "                   (make bench-queries runs both: docs/queries.md)\n");
            return 0;
        } else if (strcmp(a, "--steps") == 0) {
            rc = count_arg(argc, argv, &i, &steps);
        } else if (strcmp(a, "--rays") == 0) {
            rc = count_arg(argc, argv, &i, &nrays);
        } else if (strcmp(a, "--rounds") == 0) {
            rc = count_arg(argc, argv, &i, &rounds);
        } else if (strcmp(a, "--spheres") == 0) {
            rc = count_arg(argc, argv, &i, &nspheres);
        } else if (strcmp(a, "--scenes") == 0 && i + 1 < argc) {
            dir = argv[++i];
        } else if (strcmp(a, "--export") == 0 && i + 1 < argc) {
            prefix = argv[++i];
        } else {
            fprintf(stderr, "crumple bench queries: unknown option '%s' (try --help)\n", a);
            return 2;
        }
        if (rc) return rc;
    }
    if (bench_one(dir, "pile", steps, nrays, nspheres, rounds, prefix)) return 1;
    return bench_one(dir, "rings", steps, nrays, nspheres, rounds, prefix);
}
