/* cmd_cook.c — `crumple cook IN.obj -o OUT.crb [options]`: one mesh in, one
 * cooked asset out (docs/asset-format.md), written atomically.
 *
 * Errors in the input files are printed as "file:line: message" and the exit
 * status is 1; bad options give usage and status 2. Nothing is written unless
 * the whole cook succeeded.
 */
#include "cli.h"
#include "cook.h"
#include "cook_fracture.h"
#include "asset_format.h"
#include "platform.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f) {
    fprintf(f,
            "usage: crumple cook IN.obj -o OUT.crb [--sdf-res N] [--sdf-pad N] [--scale S] [--normalise L] [--recentre]\n"
            "       [--weld D] [--max-samples N] [--geodesic-radius R] [--geodesic-max N] [--geodesic-patch P] [--rig FILE | --bones auto:N]\n"
            "       [--bend] [--poses FILE] [--skeleton FILE | --fit-skeleton N] [--pieces N|groups] [--piece-seed S] [--pieces-near X,Y,Z]\n"
            "       [--gap D] [--piece-sdf-res N] [--soft] [--soft-spread R] [--soft-edge L] [--soft-internal N]\n"
            "       [--soft-masses equal|area] [--models LIST] [--timings] [--quiet]\n"
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
            "  --geodesic-max N       neighbours kept per vertex (per patch with --geodesic-patch; default 16)\n"
            "  --geodesic-patch P     one list per patch of vertices within P of its centre, not per vertex (compact;\n"
            "                         the runtime's distances are then off by at most P; default 0 = per vertex)\n"
            "  --rig FILE             skeleton: lines 'bone NAME PARENT|- X Y Z [QX QY QZ QW]'\n"
            "  --bones auto:N         place N bones inside the shape instead of a rig\n"
            "  --bend                 a rigged mesh: cook bending's segmentation (BNDT, BNDN), so attaching costs none\n"
            "  --poses FILE           example poses: 'example NAME' then 'BONE TX TY TZ [QX QY QZ QW]' lines\n"
            "  --skeleton FILE        squishy skin (seed 003): the skeleton the mesh lies on ('point', 'segment', 'rect',\n"
            "                         'isovalue' lines: docs/asset-format.md); an input FILE.skel is meshed here instead\n"
            "  --fit-skeleton N       squishy skin fitted to the mesh: N point primitives, their skin meshed and cooked\n"
            "                         instead of the mesh (prints how far the mesh is from it; docs/squash.md)\n"
            "  --pieces N|groups      prescore: cut into N Voronoi pieces, or take the OBJ's o/g groups as pieces,\n"
            "                         with a support graph (docs/fracture.md)\n"
            "  --piece-seed S         the cell sites' random stream (default 1)\n"
            "  --pieces-near X,Y,Z    denser pieces around this point (mesh frame, after --scale)\n"
            "  --gap D                crack between pieces' surfaces, m (default 2%% of the mean piece size)\n"
            "  --piece-sdf-res N      grid cells along a piece's longest axis (default 16)\n"
            "  --soft                 a soft (mass-spring) body: particles and springs (docs/mass-spring.md)\n"
            "  --soft-spread R        remesh when the longest edge is over R x the shortest (default 2)\n"
            "  --soft-edge L          the remesher's edge length, m (default: the mean edge)\n"
            "  --soft-internal N      internal springs: chords cast per vertex through a closed body (0-5, default 1)\n"
            "  --soft-masses M        particle masses: equal (default, the seed's) or area\n"
            "  --models LIST          the models bodies of this asset will get (rigid,dent,bend,example,squash,\n"
            "                         fracture,soft): sections none of them reads are left out and named (default all)\n"
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
    cr_cook_pieces_options po = cr_cook_default_pieces_options();
    po.pieces = 0;
    bool from_groups = false; /* --pieces groups: the OBJ's o/g groups are the pieces */
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
        } else if (strcmp(a, "--models") == 0 && v) {
            const char *word;
            size_t len;
            if (cr_cook_models_leave_out(v, &opt.leave_out, &word, &len) != 0) {
                fprintf(stderr, "crumple cook: --models: unknown model '%.*s' (rigid dent bend example squash fracture soft)\n",
                        (int)len, word);
                return 2;
            }
            ++i;
        } else if (strcmp(a, "--geodesic-patch") == 0 && v) {
            bad = parse_double_arg(v, &opt.geodesic_patch) || opt.geodesic_patch < 0, ++i;
        } else if (strcmp(a, "--rig") == 0 && v) {
            opt.rig_path = v, ++i;
        } else if (strcmp(a, "--bend") == 0) {
            opt.bend = true;
        } else if (strcmp(a, "--poses") == 0 && v) {
            opt.poses_path = v, ++i;
        } else if (strcmp(a, "--skeleton") == 0 && v) {
            opt.skeleton_path = v, ++i;
        } else if (strcmp(a, "--fit-skeleton") == 0 && v) {
            bad = parse_u32_arg(v, &opt.fit_skeleton) || opt.fit_skeleton == 0 || opt.fit_skeleton > 256, ++i;
        } else if (strcmp(a, "--bones") == 0 && v) {
            bad = strncmp(v, "auto:", 5) != 0 || parse_u32_arg(v + 5, &opt.auto_bones) || opt.auto_bones == 0, ++i;
        } else if (strcmp(a, "--pieces") == 0 && v) {
            if (strcmp(v, "groups") == 0) from_groups = true, ++i;
            else bad = parse_u32_arg(v, &po.pieces) || po.pieces < 2, ++i;
        } else if (strcmp(a, "--piece-seed") == 0 && v) {
            bad = parse_u32_arg(v, &u), po.seed = u, ++i;
        } else if (strcmp(a, "--pieces-near") == 0 && v) {
            char *e1, *e2, *e3;
            po.near[0] = strtod(v, &e1);
            po.near[1] = *e1 == ',' ? strtod(e1 + 1, &e2) : (e2 = e1, 0);
            po.near[2] = *e2 == ',' ? strtod(e2 + 1, &e3) : (e3 = e2, 0);
            bad = *e1 != ',' || *e2 != ',' || *e3 != 0 || !isfinite(po.near[0] + po.near[1] + po.near[2]), po.near_set = true, ++i;
        } else if (strcmp(a, "--gap") == 0 && v) {
            bad = parse_double_arg(v, &po.gap) || po.gap < 0, ++i;
        } else if (strcmp(a, "--piece-sdf-res") == 0 && v) {
            bad = parse_u32_arg(v, &u) || u < 8 || u > 256, po.piece_sdf_res = (int)u, ++i;
        } else if (strcmp(a, "--soft") == 0) {
            opt.soft = true;
        } else if (strcmp(a, "--soft-spread") == 0 && v) {
            bad = parse_double_arg(v, &opt.soft_spread) || !(opt.soft_spread >= 1), opt.soft = true, ++i;
        } else if (strcmp(a, "--soft-edge") == 0 && v) {
            bad = parse_double_arg(v, &opt.soft_edge) || !(opt.soft_edge > 0), opt.soft = true, ++i;
        } else if (strcmp(a, "--soft-internal") == 0 && v) {
            bad = parse_u32_arg(v, &opt.soft_internal) || opt.soft_internal > 5, opt.soft = true, ++i;
        } else if (strcmp(a, "--soft-masses") == 0 && v) {
            bad = strcmp(v, "equal") != 0 && strcmp(v, "area") != 0, opt.soft_area_masses = strcmp(v, "area") == 0,
            opt.soft = true, ++i;
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
        fprintf(stderr, "crumple cook: need an input .obj (or a .skel skeleton) and -o OUT.crb\n");
        usage(stderr);
        return 2;
    }
    if (opt.fit_skeleton > 0 && (opt.skeleton_path != NULL || strstr(in, ".skel") != NULL)) {
        /* a skeleton is given or fitted, not both */
        fprintf(stderr, "crumple cook: --fit-skeleton fits a skeleton to an .obj; it cannot be combined with --skeleton or a .skel input\n");
        return 2;
    }
    if (opt.soft && (po.pieces >= 2 || from_groups)) {
        /* a prescored body breaks into rigid pieces; a soft one has no pieces to break into */
        fprintf(stderr, "crumple cook: --soft and --pieces cannot be combined\n");
        return 2;
    }
    cr_cook_result r;
    char err[1024];
    if (cr_cook_check_options(&opt, err, sizeof err) != 0) {
        /* an option out of range is bad usage, found before any file is read */
        fprintf(stderr, "crumple cook: %s\n", err);
        return 2;
    }
    if (po.pieces >= 2 || from_groups) {
        cr_obj obj;
        if (cr_obj_load(in, &obj, err, sizeof err) != 0) {
            fprintf(stderr, "%s\n", err);
            return 1;
        }
        cr_cook_pieces_report rep;
        int rc = cr_cook_prescored(in, &obj, &opt, &po, &r, &rep, err, sizeof err);
        cr_obj_free(&obj);
        if (rc == 0) {
            crp_status st = crp_write_file_atomic(out, r.bytes, r.size);
            if (st != CRP_OK) snprintf(err, sizeof err, "%s: %s", out, crp_status_message(st)), rc = -1;
        }
        if (rc != 0) {
            fprintf(stderr, "%s\n", err);
            return 1;
        }
        if (!opt.quiet)
            fprintf(stderr, "%s: wrote %zu bytes: %u pieces, %u bonds, volumes %.6g of %.6g (%+.4f%%), gap %.4g m, "
                            "cut %.2f s, pieces cooked %.2f s, total %.2f s\n",
                    out, r.size, rep.pieces, rep.bonds, rep.pieces_volume, rep.whole_volume,
                    100.0 * (rep.pieces_volume - rep.whole_volume) / rep.whole_volume, rep.gap, rep.time_cut, rep.time_cook,
                    rep.time_total);
        cr_cook_result_free(&r);
        return 0;
    }
    if (cr_cook_file(in, out, &opt, &r, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    if (!opt.quiet) {
        fprintf(stderr, "%s: wrote %zu bytes (volume %.6g, %u samples, %u bones, %u examples)\n", out, r.size, r.mass.volume,
                r.sample_count, r.bone_count, r.example_count);
        /* the geodesic lists are what a plastic asset's size grows with (--geodesic-radius, --geodesic-max,
         * --geodesic-patch); with patches, GEOS has one start per patch and GPAT one patch per vertex */
        size_t geo = r.section_bytes[CR_ASEC_GEOS] + r.section_bytes[CR_ASEC_GEOI] + r.section_bytes[CR_ASEC_GEOD] +
                     r.section_bytes[CR_ASEC_GPAT];
        if (geo > 0)
            fprintf(stderr, "%s: geodesic lists %zu bytes (%.1f %% of the file, %zu entries in %zu lists%s)\n", out, geo,
                    100.0 * (double)geo / (double)r.size, r.section_bytes[CR_ASEC_GEOI] / 4,
                    r.section_bytes[CR_ASEC_GEOS] / 4 - 1, r.section_bytes[CR_ASEC_GPAT] ? ", one per patch" : ", one per vertex");
    }
    if (!opt.quiet && opt.leave_out)
        fprintf(stderr, "%s: left out %llu bytes no model in --models reads:%s%s\n", out, (unsigned long long)r.left_out_bytes,
                (opt.leave_out & CR_COOK_LEAVE_ADJACENCY) ? " ADJS ADJI (soft bodies)" : "",
                (opt.leave_out & CR_COOK_LEAVE_GEODESICS) ? " GEOS GEOI GEOD GPAT (example plasticity)" : "");
    if (!opt.quiet && opt.soft)
        fprintf(stderr, "%s: soft: %u particles, %u structural, %u bending, %u internal springs; edge-length spread %.3g%s\n",
                out, r.vertex_count, r.soft_structural, r.soft_bending, r.soft_internal, r.soft_spread_after,
                r.soft_remeshed ? " (remeshed)" : "");
    if (timings) cr_cook_print_timings(stdout, in, &r);
    cr_cook_result_free(&r);
    return 0;
}
