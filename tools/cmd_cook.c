/* cmd_cook.c — `crumple cook IN.obj -o OUT.crb [options]`: one mesh in, one
 * cooked asset out (docs/asset-format.md), written atomically.
 *
 * Errors in the input files are printed as "file:line: message" and the exit
 * status is 1; bad options give usage and status 2. Nothing is written unless
 * the whole cook succeeded.
 */
#include "cli.h"
#include "cook.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f) {
    fprintf(f,
            "usage: crumple cook IN.obj -o OUT.crb [--sdf-res N] [--sdf-pad N] [--scale S] [--normalise L] [--recentre]\n"
            "       [--weld D] [--max-samples N] [--geodesic-radius R] [--geodesic-max N] [--rig FILE | --bones auto:N]\n"
            "       [--poses FILE] [--timings] [--quiet]\n"
            "  Cooks an OBJ mesh into a validated binary asset (docs/asset-format.md), in the body frame:\n"
            "  centre of mass at the origin, axes along the principal moments (`crumple info` prints mesh_to_body).\n"
            "  --sdf-res N            grid cells along the longest axis, padding included (default 64)\n"
            "  --sdf-pad N            empty cells around the shape on every side (default 3)\n"
            "  --scale S              multiply all coordinates by S first (default 1)\n"
            "  --normalise L          then scale so the longest bounding-box side is L (also --normalize)\n"
            "  --recentre             then move the bounding-box centre to the origin (also --recenter)\n"
            "  --weld D               merge vertices closer than D (default 0: identical positions)\n"
            "  --max-samples N        collision sample points, farthest-point thinned (default 2048, 0 = all)\n"
            "  --geodesic-radius R    radius of the geodesic neighbour lists (default 0.25 x bounding radius)\n"
            "  --geodesic-max N       neighbours kept per vertex (default 16)\n"
            "  --rig FILE             skeleton: lines 'bone NAME PARENT|- X Y Z [QX QY QZ QW]'\n"
            "  --bones auto:N         place N bones inside the shape instead of a rig\n"
            "  --poses FILE           example poses: 'example NAME' then 'BONE TX TY TZ [QX QY QZ QW]' lines\n"
            "  --timings              print the time of each stage\n"
            "  --quiet                no report and no progress bar on stderr\n");
}

static int parse_double_arg(const char *s, double *out) {
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end != 0 || !isfinite(v)) return -1;
    *out = v;
    return 0;
}

/* Decimal digits only, overflow checked (strtoul would need errno, and accepts "-1"). */
static int parse_u32_arg(const char *s, uint32_t *out) {
    uint64_t v = 0;
    if (*s == 0) return -1;
    for (; *s; ++s) {
        if (*s < '0' || *s > '9') return -1;
        v = v * 10 + (uint64_t)(*s - '0');
        if (v > 0xffffffffu) return -1;
    }
    *out = (uint32_t)v;
    return 0;
}

static void cr_cook_print_timings(FILE *f, const char *name, const cr_cook_result *r) {
    const cr_cook_timings *t = &r->time;
    fprintf(f, "%s: %u vertices, %u triangles, grid %ux%ux%u, %zu bytes\n", name, r->vertex_count, r->triangle_count,
            r->sdf_dims[0], r->sdf_dims[1], r->sdf_dims[2], r->size);
    fprintf(f, "  read      %8.3f s\n  clean     %8.3f s\n  mass      %8.3f s%s\n  sdf dist  %8.3f s\n  sdf sign  %8.3f s\n"
               "  surface   %8.3f s\n  skin      %8.3f s\n  write     %8.3f s\n  total     %8.3f s\n",
            t->read, t->clean, t->mass, r->mass.from_surface ? " (surface)" : " (grid: mesh not closed)", t->sdf_distance,
            t->sdf_sign, t->surface, t->skin, t->write, t->total);
}

int cr_cmd_cook(int argc, char **argv) {
    cr_cook_options opt = cr_cook_default_options();
    const char *in = NULL, *out = NULL;
    bool timings = false;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int bad = 0;
        uint32_t u = 0;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "-o") == 0 && v) {
            out = v, ++i;
        } else if (strcmp(a, "--sdf-res") == 0 && v) {
            bad = parse_u32_arg(v, &u) || u > 4096, opt.sdf_res = (int)u, ++i;
        } else if (strcmp(a, "--sdf-pad") == 0 && v) {
            bad = parse_u32_arg(v, &u) || u > 4096, opt.sdf_pad = (int)u, ++i;
        } else if (strcmp(a, "--scale") == 0 && v) {
            bad = parse_double_arg(v, &opt.scale) || !(opt.scale > 0), ++i;
        } else if ((strcmp(a, "--normalise") == 0 || strcmp(a, "--normalize") == 0) && v) {
            bad = parse_double_arg(v, &opt.normalise) || !(opt.normalise > 0), ++i;
        } else if (strcmp(a, "--recentre") == 0 || strcmp(a, "--recenter") == 0) {
            opt.recentre = true;
        } else if (strcmp(a, "--weld") == 0 && v) {
            bad = parse_double_arg(v, &opt.weld_distance) || opt.weld_distance < 0, ++i;
        } else if (strcmp(a, "--max-samples") == 0 && v) {
            bad = parse_u32_arg(v, &opt.max_samples), ++i;
        } else if (strcmp(a, "--geodesic-radius") == 0 && v) {
            bad = parse_double_arg(v, &opt.geodesic_radius) || opt.geodesic_radius < 0, ++i;
        } else if (strcmp(a, "--geodesic-max") == 0 && v) {
            bad = parse_u32_arg(v, &opt.geodesic_max), ++i;
        } else if (strcmp(a, "--rig") == 0 && v) {
            opt.rig_path = v, ++i;
        } else if (strcmp(a, "--poses") == 0 && v) {
            opt.poses_path = v, ++i;
        } else if (strcmp(a, "--bones") == 0 && v) {
            bad = strncmp(v, "auto:", 5) != 0 || parse_u32_arg(v + 5, &opt.auto_bones) || opt.auto_bones == 0, ++i;
        } else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
            opt.quiet = true;
        } else if (strcmp(a, "--timings") == 0) {
            timings = true;
        } else if (a[0] != '-' && in == NULL) {
            in = a;
        } else {
            fprintf(stderr, "crumple cook: unknown option or missing value: '%s'\n", a);
            usage(stderr);
            return 2;
        }
        if (bad) {
            fprintf(stderr, "crumple cook: bad value for %s: '%s'\n", a, v);
            return 2;
        }
    }
    if (in == NULL || out == NULL) {
        fprintf(stderr, "crumple cook: need an input .obj and -o OUT.crb\n");
        usage(stderr);
        return 2;
    }
    cr_cook_result r;
    char err[1024];
    if (cr_cook_file(in, out, &opt, &r, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    if (!opt.quiet)
        fprintf(stderr, "%s: wrote %zu bytes (volume %.6g, %u samples, %u bones, %u examples)\n", out, r.size, r.mass.volume,
                r.sample_count, r.bone_count, r.example_count);
    if (timings) cr_cook_print_timings(stdout, in, &r);
    cr_cook_result_free(&r);
    return 0;
}
