/* cook.c — the cooking pipeline: stages in order, timed, with a progress bar
 * and a report on stderr (see cook.h for the stage list).
 *
 * The body frame is decided before the grid is built, because the grid must
 * be axis-aligned in the frame the runtime simulates in. For an open mesh the
 * mass properties need an inside/outside test, so that case builds one BVH in
 * the mesh frame for the mass stage and another in the body frame for the
 * grid; a closed mesh needs only the second.
 */
#include "cook.h"
#include "cook_squash.h"
#include "squash_fit.h"
#include "cook_bend.h"
#include "cook_soft.h"
#include "crumple/asset.h"
#include "platform.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

cr_cook_options cr_cook_default_options(void) {
    cr_cook_options o;
    memset(&o, 0, sizeof o);
    o.scale = 1.0;
    o.sdf_res = 64;
    o.sdf_pad = 3;
    o.max_samples = 2048;
    o.mass_cells = 2097152;
    o.geodesic_max = 16;
    o.soft_spread = 2.5;
    o.soft_internal = 1;
    return o;
}

double cr_cook_now(void) { return (double)crp_clock_ns() * 1e-9; }

void cr_cook_progress_begin(cr_cook_progress *p, const char *label, bool quiet) {
    p->label = label;
    p->start = cr_cook_now();
    p->last = p->start;
    p->quiet = quiet;
    p->shown = false;
    p->done = false;
}

static void progress_draw(cr_cook_progress *p, double fraction, double now) {
    int filled = (int)(fraction * 30 + 0.5);
    char bar[31];
    for (int i = 0; i < 30; ++i) bar[i] = i < filled ? '#' : '.';
    bar[30] = 0;
    fprintf(stderr, "\r  %-10s [%s] %3d%%  %5.1f s", p->label, bar, (int)(fraction * 100 + 0.5), now - p->start);
    fflush(stderr);
}

void cr_cook_progress_update(void *pv, double fraction) {
    cr_cook_progress *p = pv;
    if (p->quiet) return;
    double now = cr_cook_now();
    /* only work that has already taken a second gets a bar, redrawn at most 10 times a second */
    if (now - p->start < 1.0 || (now - p->last < 0.1 && fraction < 1.0)) return;
    p->last = now;
    p->shown = true;
    p->done = fraction >= 1.0;
    progress_draw(p, fraction, now);
}

void cr_cook_progress_end(cr_cook_progress *p) {
    if (p->shown && !p->quiet) {
        if (!p->done) progress_draw(p, 1.0, cr_cook_now());
        fprintf(stderr, "\n");
    }
    p->shown = false;
}

int cr_cook_check_options(const cr_cook_options *opt, char *err, size_t n) {
    if (opt->sdf_pad < 1 || opt->sdf_pad > 64) {
        snprintf(err, n, "--sdf-pad must be between 1 and 64");
        return -1;
    }
    if (opt->sdf_res < 2 * opt->sdf_pad + 2 || opt->sdf_res > (int)CR_ASSET_MAX_SDF_DIM - 1) {
        snprintf(err, n, "--sdf-res must be between %d (twice the padding plus 2) and %u", 2 * opt->sdf_pad + 2,
                 CR_ASSET_MAX_SDF_DIM - 1);
        return -1;
    }
    if (opt->weld_distance < 0 || !isfinite(opt->weld_distance)) {
        snprintf(err, n, "--weld must be a distance >= 0");
        return -1;
    }
    if (opt->normalise < 0 || !isfinite(opt->normalise)) {
        snprintf(err, n, "--normalise must be a length > 0");
        return -1;
    }
    if (opt->geodesic_radius < 0 || !isfinite(opt->geodesic_radius)) {
        snprintf(err, n, "--geodesic-radius must be >= 0");
        return -1;
    }
    if (opt->geodesic_patch < 0 || !isfinite(opt->geodesic_patch)) {
        snprintf(err, n, "--geodesic-patch must be >= 0");
        return -1;
    }
    if (opt->geodesic_max > 4096) {
        snprintf(err, n, "--geodesic-max must be at most 4096");
        return -1;
    }
    if (!(opt->soft_spread >= 1) || !isfinite(opt->soft_spread) || opt->soft_edge < 0 || !isfinite(opt->soft_edge) ||
        opt->soft_internal > 5) {
        snprintf(err, n, "--soft-spread must be >= 1, --soft-edge >= 0 and --soft-internal 0 to 5");
        return -1;
    }
    if (opt->rig_path && opt->auto_bones) {
        snprintf(err, n, "give either --rig or --bones auto:N, not both");
        return -1;
    }
    return 0;
}

/* The cooker never hands out a file the runtime would refuse: the bytes are
 * loaded back with the runtime's own loader (in this build's scalar mode) and
 * a refusal is the cook's error, so nothing is written. */
/* What no model of the game reads is not written (cr_cook_options.leave_out):
 * the surface's lists are dropped just before writing, after every stage
 * that reads them; out->left_out_bytes says what that saved. */
static void leave_out_sections(cr_cook_surface *s, uint32_t nv, uint32_t leave_out, cr_cook_result *out) {
    out->left_out_bytes = 0;
    if ((leave_out & CR_COOK_LEAVE_ADJACENCY) && s->adj_start != NULL) {
        out->left_out_bytes += ((uint64_t)nv + 1 + s->adj_count) * 4u;
        free(s->adj_start), free(s->adj);
        s->adj_start = s->adj = NULL, s->adj_count = 0;
    }
    if ((leave_out & CR_COOK_LEAVE_GEODESICS) && s->geo_start != NULL) {
        uint64_t lists = s->geo_patch_count ? s->geo_patch_count : nv;
        out->left_out_bytes += (lists + 1 + 2ull * s->geo_count + (s->geo_patch_count ? nv : 0)) * 4u;
        free(s->geo_start), free(s->geo), free(s->geo_dist), free(s->geo_patch);
        s->geo_start = s->geo = s->geo_patch = NULL, s->geo_dist = NULL;
        s->geo_count = 0, s->geo_patch_count = 0, s->geo_radius = 0, s->geo_patch_radius = 0;
    }
}

uint32_t cr_cook_leave_out_unless(bool soft, bool example) {
    return (soft ? 0u : CR_COOK_LEAVE_ADJACENCY) | (example ? 0u : CR_COOK_LEAVE_GEODESICS);
}

int cr_cook_models_leave_out(const char *list, uint32_t *leave_out, const char **bad, size_t *bad_len) {
    static const char *const models[] = {"rigid", "dent", "bend", "example", "squash", "fracture", "soft"};
    bool soft = false, example = false;
    const char *p = list;
    for (;;) {
        size_t n = strcspn(p, ",");
        size_t k = 0;
        while (k < sizeof models / sizeof models[0] && !(strlen(models[k]) == n && strncmp(models[k], p, n) == 0)) ++k;
        if (k == sizeof models / sizeof models[0]) {
            *bad = p, *bad_len = n;
            return -1;
        }
        soft = soft || k == 6, example = example || k == 3;
        if (p[n] == '\0') break;
        p += n + 1;
    }
    *leave_out = cr_cook_leave_out_unless(soft, example);
    return 0;
}

static int load_back(const char *name, const cr_cook_result *out, char *err, size_t en) {
    size_t need = cr_asset_memory_size(out->bytes, out->size);
    size_t rounded = (need + CR_BLOCK_ALIGN - 1) / CR_BLOCK_ALIGN * CR_BLOCK_ALIGN;
    void *block = rounded ? aligned_alloc(CR_BLOCK_ALIGN, rounded) : NULL;
    cr_asset asset;
    cr_asset_error e;
    memset(&e, 0, sizeof e);
    cr_status s = block ? cr_asset_load(out->bytes, out->size, block, rounded, &asset, &e) : CR_ERR_BAD_ASSET;
    free(block);
    if (s == CR_OK) return 0;
    if (need == 0 || block == NULL) {
        snprintf(err, en, "%s: the cooked asset cannot be sized or loaded (out of memory?)", name);
        return -1;
    }
    const char *hint = "";
    if (e.check == CR_ASSET_BAD_INERTIA || e.check == CR_ASSET_VALUE_RANGE)
        hint = "; is the mesh tiny or degenerate? --scale or --normalise it to metres";
    else if (e.check == CR_ASSET_BAD_SDF)
        hint = "; the re-distanced grid should never be refused: a cooker fault, please report the mesh"; /* no option helps */
    snprintf(err, en, "%s: the cooked asset would not load: %s (%s, section '%s', at %u)%s", name,
             cr_asset_check_message(e.check), cr_asset_check_name(e.check), e.section_tag, e.index, hint);
    return -1;
}

/* The occupancy grid's cells along the longest side for a mesh whose mass
 * comes from the grid: half the distance grid's (at least 24), and at least
 * 8 cells across the shortest side of the box, because the smoothed step is
 * first order where two faces share a cell: an open slab 1.1 cells thick came
 * out 2.6 % heavy at 30 cells across, 8 cells take that under 0.5 %. At
 * most `cells` (2^21 by default), so a needle does not ask for billions. */
/* the cells cr_cook_grid_layout gives a side `ratio` times the longest when
 * the longest has `res` cells, one of padding on each end */
static double layout_cells(double ratio, double res) {
    double need = ceil(ratio * (res - 2) - 1e-9);
    return (need < 1 ? 1 : need) + 2;
}

static int grid_mass_res(const cr_cook_mesh *m, int sdf_res, double cells) {
    int res = sdf_res / 2 < 24 ? 24 : sdf_res / 2;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY}, side[3];
    for (uint32_t i = 0; i < m->vertex_count; ++i)
        for (int k = 0; k < 3; ++k) lo[k] = fmin(lo[k], m->pos[3 * (size_t)i + k]), hi[k] = fmax(hi[k], m->pos[3 * (size_t)i + k]);
    for (int k = 0; k < 3; ++k) side[k] = hi[k] - lo[k];
    double longest = fmax(side[0], fmax(side[1], side[2])), shortest = fmin(side[0], fmin(side[1], side[2]));
    double middle = side[0] + side[1] + side[2] - longest - shortest;
    if (!(shortest > 0)) return res;
    double need = ceil(8 * longest / shortest) + 2;
    if (need > CR_ASSET_MAX_SDF_DIM - 1) need = CR_ASSET_MAX_SDF_DIM - 1;
    /* counted down rather than by cbrt, whose last bit is libm's; the cells
     * are counted as cr_cook_grid_layout (pad 1) lays them out: a needle's
     * thin sides keep three cells however fine the long one, so a count from
     * the sides' ratios alone let one through with 2 million */
    while (need > res && need * layout_cells(middle / longest, need) * layout_cells(shortest / longest, need) > cells)
        need -= 1;
    return need > res ? (int)need : res;
}

int cr_cook_obj(const char *name, const cr_obj *obj, const cr_cook_options *opt, cr_cook_result *out, char *err, size_t en) {
    double t_start = cr_cook_now();
    double read_time = out->time.read;
    memset(out, 0, sizeof *out);
    out->time.read = read_time;
    if (cr_cook_check_options(opt, err, en) != 0) return -1;

    /* clean */
    double t0 = cr_cook_now();
    cr_cook_mesh mesh;
    char cerr[512];
    if (cr_cook_clean(obj, opt, &mesh, cerr, sizeof cerr) != 0) {
        snprintf(err, en, "%s: %s", name, cerr);
        return -1;
    }
    out->time.clean = cr_cook_now() - t0;
    if (!opt->quiet) {
        fprintf(stderr, "%s: %u vertices, %u triangles after cleaning (%u welded, %u degenerate or repeated triangles dropped)\n",
                name, mesh.vertex_count, mesh.triangle_count, mesh.welded_vertices, mesh.dropped_triangles);
        if (mesh.boundary_edges || mesh.nonmanifold_edges)
            fprintf(stderr, "%s: warning: not closed: %u boundary edges in %u holes, %u non-manifold or misoriented edges; "
                            "inside is where the winding number passes 1/2 (holes capped there), mass from a grid\n",
                    name, mesh.boundary_edges, mesh.holes, mesh.nonmanifold_edges);
        if (mesh.components > 1) fprintf(stderr, "%s: note: %u separate components (shells)\n", name, mesh.components);
        if (mesh.agreed_triangles)
            fprintf(stderr, "%s: note: %u triangle%s disagreed with %s neighbours about which way to face and %s reversed\n",
                    name, mesh.agreed_triangles, mesh.agreed_triangles == 1 ? "" : "s", mesh.agreed_triangles == 1 ? "its" : "their",
                    mesh.agreed_triangles == 1 ? "was" : "were");
        if (mesh.flipped_shells)
            fprintf(stderr, "%s: note: %u shell%s faced inwards and %s reversed: %s\n", name, mesh.flipped_shells,
                    mesh.flipped_shells == 1 ? "" : "s", mesh.flipped_shells == 1 ? "was" : "were", mesh.shell_note);
        bool open = mesh.boundary_edges || mesh.nonmanifold_edges; /* an open mesh's mass is the grid's anyway */
        if (mesh.nested_same && !open)
            fprintf(stderr, "%s: note: %u shell%s inside another facing its way (a solid in a solid): mass of the union, "
                            "from a grid\n",
                    name, mesh.nested_same, mesh.nested_same == 1 ? " lies" : "s lie");
        if (mesh.crossing_shells && !open)
            fprintf(stderr, "%s: note: %u shells cross each other (overlapping parts): mass of their union, from a grid\n", name,
                    mesh.crossing_shells);
    }
    /* a soft body's particles want near-equal edges (seed 004's equal masses): remesh when they are not */
    if (opt->soft) {
        double spread = cr_cook_edge_spread(mesh.pos, mesh.tri, mesh.triangle_count, NULL);
        out->soft_spread_before = out->soft_spread_after = spread;
        if (spread > opt->soft_spread) {
            cr_cook_remesh_report rep;
            cr_cook_remesh(&mesh, opt->soft_edge, &rep);
            out->soft_remeshed = !rep.kept_input;
            out->soft_spread_after = rep.spread_after;
            if (!opt->quiet)
                fprintf(stderr, "%s: soft: edge-length spread %.3g > %.3g: remeshed to %.4g m edges: %u splits, %u collapses, "
                                "%u vertices, spread %.3g\n",
                        name, rep.spread_before, opt->soft_spread, rep.target, rep.splits, rep.collapses, rep.vertices_after,
                        rep.spread_after);
            if (!opt->quiet && rep.kept_input)
                fprintf(stderr, "%s: soft: warning: remeshing made the spread worse; the mesh is kept as it was\n", name);
            else if (!opt->quiet && rep.spread_after > opt->soft_spread)
                fprintf(stderr, "%s: soft: warning: the spread is still above %.3g: edges on a boundary (or where a collapse "
                                "would fold the surface) are kept; equal masses will be uneven, --soft-masses area evens them\n",
                        name, opt->soft_spread);
        }
    }

    /* mass and the body frame */
    t0 = cr_cook_now();
    cr_cook_progress prog;
    cr_cook_progress_begin(&prog, "mass", opt->quiet);
    cr_cook_mass mass;
    bool closed = mesh.boundary_edges == 0 && mesh.nonmanifold_edges == 0 && mesh.nested_same == 0 && mesh.crossing_shells == 0;
    cr_bvh *bvh = closed ? NULL : cr_bvh_build(mesh.pos, mesh.tri, mesh.triangle_count);
    int mass_res = grid_mass_res(&mesh, opt->sdf_res, (double)opt->mass_cells);
    if (bvh == NULL && !closed) {
        cr_cook_mesh_free(&mesh);
        snprintf(err, en, "%s: out of memory", name);
        return -1;
    }
    if (opt->mass != NULL) {
        mass = *opt->mass;
    } else if (closed) {
        cr_cook_mass_properties(&mesh, NULL, mass_res, &mass, &prog);
        if (!mass.from_surface) {
            /* zero volume inside a closed surface: the grid path needs a BVH after all */
            bvh = cr_bvh_build(mesh.pos, mesh.tri, mesh.triangle_count);
            cr_cook_mass_properties(&mesh, bvh, mass_res, &mass, &prog);
        }
    } else {
        cr_cook_mass_properties(&mesh, bvh, mass_res, &mass, &prog);
    }
    cr_bvh_free(bvh);
    cr_cook_progress_end(&prog);
    if (isnan(mass.volume)) {
        cr_cook_mesh_free(&mesh);
        snprintf(err, en, "%s: out of memory for the mass grid", name);
        return -1;
    }
    if (!(mass.volume > 0)) {
        cr_cook_mesh_free(&mesh);
        snprintf(err, en, "%s: the mesh encloses no volume (a flat or open sheet?); it cannot be a rigid body", name);
        return -1;
    }
    cr_cook_frame frame;
    frame.s = mesh.frame_s;
    memcpy(frame.o, mesh.frame_o, sizeof frame.o);
    memcpy(frame.R, mass.axes, sizeof frame.R);
    memcpy(frame.q, mass.q, sizeof frame.q);
    for (int r = 0; r < 3; ++r) frame.p[r] = -(frame.R[r][0] * mass.com[0] + frame.R[r][1] * mass.com[1] + frame.R[r][2] * mass.com[2]);
    for (uint32_t i = 0; i < mesh.vertex_count; ++i) {
        double *x = mesh.pos + 3 * (size_t)i, y[3];
        for (int r = 0; r < 3; ++r) y[r] = frame.R[r][0] * x[0] + frame.R[r][1] * x[1] + frame.R[r][2] * x[2] + frame.p[r];
        memcpy(x, y, sizeof y);
    }
    out->time.mass = cr_cook_now() - t0;

    /* a squishy skin's skeleton, moved with the mesh; the mesh must lie on its f = c */
    cr_cook_squash squash;
    memset(&squash, 0, sizeof squash);
    if (opt->skeleton_path || opt->skeleton) {
        char qerr[768];
        if (opt->skeleton ? cr_cook_squash_copy(opt->skeleton, &squash, qerr, sizeof qerr) != 0
                          : cr_cook_squash_read(opt->skeleton_path, &squash, qerr, sizeof qerr) != 0) {
            snprintf(err, en, "%s", qerr);
            cr_cook_mesh_free(&mesh);
            return -1;
        }
        cr_cook_squash_to_body(&squash, &frame);
        double r2 = 0;
        for (uint32_t i = 0; i < mesh.vertex_count; ++i) {
            const double *x = mesh.pos + 3 * (size_t)i;
            r2 = fmax(r2, x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
        }
        if (cr_cook_squash_check_mesh(&squash, mesh.pos, mesh.vertex_count, sqrt(r2), qerr, sizeof qerr) != 0) {
            snprintf(err, en, "%s: %s (skeleton %s)", name, qerr, opt->skeleton_path ? opt->skeleton_path : "fitted");
            cr_cook_squash_free(&squash);
            cr_cook_mesh_free(&mesh);
            return -1;
        }
    }

    /* signed distance grid in the body frame */
    cr_cook_grid grid;
    bvh = cr_bvh_build(mesh.pos, mesh.tri, mesh.triangle_count);
    cr_cook_grid_layout(mesh.pos, mesh.vertex_count, opt->sdf_res, opt->sdf_pad, &grid);
    uint64_t nodes = (uint64_t)grid.dims[0] * grid.dims[1] * grid.dims[2];
    if (nodes > CR_ASSET_MAX_SDF_NODES) {
        cr_bvh_free(bvh);
        cr_cook_mesh_free(&mesh);
        snprintf(err, en, "%s: grid of %llu nodes is over the format's limit of %u; lower --sdf-res", name,
                 (unsigned long long)nodes, CR_ASSET_MAX_SDF_NODES);
        return -1;
    }
    cr_cook_progress_begin(&prog, "sdf", opt->quiet);
    int rc = cr_cook_grid_fill(&grid, bvh, cr_cook_progress_update, &prog, &out->time.sdf_distance, &out->time.sdf_sign,
                               &out->redistance);
    cr_cook_progress_end(&prog);
    cr_bvh_free(bvh);
    if (rc != 0) {
        cr_cook_mesh_free(&mesh);
        snprintf(err, en, "%s: out of memory for the distance grid", name);
        return -1;
    }
    if (!opt->quiet && out->redistance.cap_nodes)
        fprintf(stderr, "%s: re-distanced: %u grid nodes are nearer a hole's cap than any triangle (%u grid edges cross a cap)\n",
                name, out->redistance.cap_nodes, out->redistance.cap_edges);

    /* surface */
    t0 = cr_cook_now();
    cr_cook_asset a;
    memset(&a, 0, sizeof a);
    double br = 0;
    for (int k = 0; k < 3; ++k) a.bounds_min[k] = INFINITY, a.bounds_max[k] = -INFINITY;
    for (uint32_t i = 0; i < mesh.vertex_count; ++i) {
        double r2 = 0;
        for (int k = 0; k < 3; ++k) {
            double x = (double)(float)mesh.pos[3 * (size_t)i + k];
            a.bounds_min[k] = x < a.bounds_min[k] ? x : a.bounds_min[k];
            a.bounds_max[k] = x > a.bounds_max[k] ? x : a.bounds_max[k];
            r2 += x * x;
        }
        br = r2 > br ? r2 : br;
    }
    a.bound_radius = sqrt(br);
    cr_cook_surface surf;
    cr_cook_progress_begin(&prog, "surface", opt->quiet);
    cr_cook_surface_build(&mesh, opt, a.bound_radius, &surf, &prog);
    cr_cook_progress_end(&prog);
    out->time.surface = cr_cook_now() - t0;

    /* skeleton */
    t0 = cr_cook_now();
    cr_cook_skin skin;
    cr_cook_progress_begin(&prog, "skin", opt->quiet);
    char serr[768];
    rc = cr_cook_skin_build(&mesh, &grid, &frame, opt, &skin, serr, sizeof serr, &prog);
    cr_cook_progress_end(&prog);
    if (rc != 0) {
        /* rig and pose errors already name their file and line; the rest is about this mesh */
        bool located = (opt->rig_path && strncmp(serr, opt->rig_path, strlen(opt->rig_path)) == 0) ||
                       (opt->poses_path && strncmp(serr, opt->poses_path, strlen(opt->poses_path)) == 0);
        if (located)
            snprintf(err, en, "%s", serr);
        else
            snprintf(err, en, "%s: %s", name, serr);
        cr_cook_surface_free(&surf);
        cr_cook_grid_free(&grid);
        cr_cook_mesh_free(&mesh);
        return -1;
    }
    out->time.skin = cr_cook_now() - t0;

    /* write */
    t0 = cr_cook_now();
    a.mesh = &mesh;
    a.surface = &surf;
    a.grid = &grid;
    a.skin = &skin;
    a.mass = &mass;
    a.frame = &frame;
    a.squash = opt->skeleton_path || opt->skeleton ? &squash : NULL;
    a.fracture = opt->fracture;
    cr_cook_soft soft;
    memset(&soft, 0, sizeof soft);
    if (opt->soft) {
        /* the springs between the positions as stored (float), so the loader's rest-length check sees the same numbers */
        float *pf = malloc(sizeof(float) * 3 * (size_t)mesh.vertex_count + 4);
        for (size_t i = 0; i < 3 * (size_t)mesh.vertex_count; ++i) pf[i] = (float)mesh.pos[i];
        char sferr[256];
        rc = cr_cook_soft_build(&mesh, pf, &surf, opt->soft_internal, opt->soft_area_masses, &soft, sferr, sizeof sferr);
        free(pf);
        if (rc != 0) {
            snprintf(err, en, "%s: %s", name, sferr);
            cr_cook_skin_free(&skin);
            cr_cook_surface_free(&surf);
            cr_cook_grid_free(&grid);
            cr_cook_mesh_free(&mesh);
            cr_cook_squash_free(&squash);
            return -1;
        }
        a.soft = &soft;
        out->soft_structural = soft.structural, out->soft_bending = soft.bending, out->soft_internal = soft.internal;
    }
    leave_out_sections(&surf, mesh.vertex_count, opt->leave_out, out);
    char werr[256];
    rc = cr_cook_write(&a, &out->bytes, &out->size, out->section_bytes, werr, sizeof werr);
    if (rc != 0) snprintf(err, en, "%s: %s", name, werr);
    if (rc == 0 && (rc = load_back(name, out, err, en)) != 0) cr_cook_result_free(out);
    if (rc == 0 && opt->bend) {
        /* bending's segmentation is computed on the asset as the runtime loads it, then written with it */
        uint8_t *tb = NULL, *nb = NULL;
        int64_t *bm = NULL;
        char berr[256];
        rc = cr_cook_bend_segment(out->bytes, out->size, &tb, &nb, &bm, berr, sizeof berr);
        if (rc != 0) {
            snprintf(err, en, "%s: %s", name, berr);
            cr_cook_result_free(out);
        } else {
            a.bend_triangle_bone = tb, a.bend_node_bone = nb, a.bend_moments = bm;
            cr_cook_result_free(out);
            rc = cr_cook_write(&a, &out->bytes, &out->size, out->section_bytes, werr, sizeof werr);
            if (rc != 0) snprintf(err, en, "%s: %s", name, werr);
            if (rc == 0 && (rc = load_back(name, out, err, en)) != 0) cr_cook_result_free(out);
        }
        free(tb);
        free(nb);
        free(bm);
    }
    out->time.write = cr_cook_now() - t0;

    out->mass = mass;
    out->vertex_count = mesh.vertex_count;
    out->triangle_count = mesh.triangle_count;
    out->sample_count = surf.sample_count;
    out->bone_count = skin.bone_count;
    out->example_count = skin.example_count;
    memcpy(out->sdf_dims, grid.dims, sizeof grid.dims);
    out->sdf_cell = grid.cell;
    out->boundary_edges = mesh.boundary_edges;
    out->nonmanifold_edges = mesh.nonmanifold_edges;
    out->components = mesh.components;
    out->holes = mesh.holes;
    out->agreed_triangles = mesh.agreed_triangles;
    out->flipped_shells = mesh.flipped_shells;
    out->nested_same = mesh.nested_same;
    out->crossing_shells = mesh.crossing_shells;
    out->welded_vertices = mesh.welded_vertices;
    out->dropped_triangles = mesh.dropped_triangles;
    cr_cook_soft_free(&soft);
    cr_cook_skin_free(&skin);
    cr_cook_surface_free(&surf);
    cr_cook_grid_free(&grid);
    cr_cook_mesh_free(&mesh);
    cr_cook_squash_free(&squash);
    out->time.total = out->time.read + (cr_cook_now() - t_start);
    return rc;
}

int cr_cook_file(const char *in_path, const char *out_path, const cr_cook_options *opt, cr_cook_result *out, char *err,
                 size_t en) {
    memset(out, 0, sizeof *out);
    double t0 = cr_cook_now();
    cr_obj obj;
    cr_cook_options o2 = *opt;
    size_t len = strlen(in_path);
    if (len > 5 && strcmp(in_path + len - 5, ".skel") == 0) {
        /* a skeleton alone: its rest surface meshed here, and stored with it */
        cr_cook_squash sq;
        if (cr_cook_squash_read(in_path, &sq, err, en) != 0) return -1;
        char merr[512];
        int mrc = cr_cook_squash_obj(&sq, &obj, merr, sizeof merr);
        cr_cook_squash_free(&sq);
        if (mrc != 0) {
            snprintf(err, en, "%s: %s", in_path, merr);
            return -1;
        }
        o2.skeleton_path = in_path;
    } else if (cr_obj_load(in_path, &obj, err, en) != 0) {
        return -1;
    }
    cr_cook_squash fitted;
    memset(&fitted, 0, sizeof fitted);
    if (opt->fit_skeleton > 0 && o2.skeleton_path == NULL) {
        /* a skeleton fitted to the mesh; its skin, meshed here, is what is cooked (the mesh must lie on f = c) */
        cr_squash_fit_report rep;
        char merr[512];
        cr_obj skin;
        if (cr_squash_fit(obj.pos, obj.vertex_count, obj.tri, obj.triangle_count, opt->fit_skeleton, &fitted, &rep, merr,
                          sizeof merr) != 0 ||
            cr_cook_squash_obj(&fitted, &skin, merr, sizeof merr) != 0) {
            snprintf(err, en, "%s: fitting a skeleton: %s", in_path, merr);
            cr_cook_squash_free(&fitted);
            cr_obj_free(&obj);
            return -1;
        }
        if (!opt->quiet)
            fprintf(stderr, "fit skeleton: %u primitives (%u of them segments); mesh vertices to the skin: mean %.2f %%, largest %.2f %% of the size (%.3g)\n",
                    rep.primitives, rep.segments, 100 * rep.mean, 100 * rep.max, rep.size);
        cr_obj_free(&obj);
        obj = skin;
        o2.skeleton = &fitted;
    }
    opt = &o2;
    out->time.read = cr_cook_now() - t0;
    int rc = cr_cook_obj(in_path, &obj, opt, out, err, en);
    cr_obj_free(&obj);
    cr_cook_squash_free(&fitted);
    if (rc != 0) return -1;
    if (out_path != NULL) {
        double tw = cr_cook_now();
        crp_status s = crp_write_file_atomic(out_path, out->bytes, out->size);
        out->time.write += cr_cook_now() - tw;
        out->time.total += cr_cook_now() - tw;
        if (s != CRP_OK) {
            snprintf(err, en, "%s: %s", out_path, crp_status_message(s));
            cr_cook_result_free(out);
            return -1;
        }
    }
    return 0;
}

void cr_cook_result_free(cr_cook_result *r) {
    free(r->bytes);
    r->bytes = NULL;
    r->size = 0;
}
