/* cook_fracture.c — prescoring: a closed mesh cut into Voronoi pieces, each
 * piece cooked as a normal asset, the support graph from the shared cut
 * faces, all stored with the whole in one prescored asset (cook_fracture.h,
 * docs/fracture.md).
 *
 * Cell sites are drawn inside the mesh (winding number > 1/2) from a
 * xorshift stream seeded by the options, optionally denser near a point
 * (acceptance 1 / (1 + (d / sigma)^2)). Cell i is the whole cut by the
 * bisector plane of every other site j, nearest first; a site farther than
 * twice the piece's current radius cannot cut it, so the search stops
 * there. Each cut is capped (cook_plane_cut.c) and its cap triangles carry
 * j: the bond (i, j) is the cap of i tagged j, its area their area, its
 * centroid their area-weighted centroid, its normal (s_j - s_i) / |s_j - s_i|.
 *
 * A crack gap: pieces cut exactly along shared faces touch, and a body
 * leaving its neighbour along such a face meets it at grazing corners, where
 * the distance grids' normals are ill-defined and stop it dead. So each
 * piece's surface is cut again with every plane moved gap/2 towards its
 * site, and cooked with the mass properties of the exact cut: volumes still
 * sum to the whole's, frames and centroids are the exact pieces'.
 *
 * Determinism: + - * / sqrt on doubles, fixed orders (sites in draw order,
 * neighbours by distance then index), so one input and one set of options
 * give one file.
 *
 * Debugging: with CRF_DUMP=FILE.obj in the environment, a piece the cooker
 * refuses is written there as it was cut (its last attempt).
 */
#include "cook_fracture.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

cr_cook_pieces_options cr_cook_default_pieces_options(void) {
    cr_cook_pieces_options o;
    memset(&o, 0, sizeof o);
    o.pieces = 16;
    o.seed = 1;
    o.gap = -1;
    o.piece_sdf_res = 16;
    return o;
}

static double rnd(uint64_t *s) {
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return (double)((*s * 0x2545f4914f6cdd1dull) >> 11) * (1.0 / 9007199254740992.0);
}

typedef struct site_order {
    double d2;
    uint32_t j;
} site_order;

static int by_distance(const void *a, const void *b) {
    const site_order *x = a, *y = b;
    if (x->d2 != y->d2) return x->d2 < y->d2 ? -1 : 1;
    return x->j < y->j ? -1 : (x->j > y->j);
}

/* bond accumulators: per ordered pair (piece, neighbour) as seen from the piece */
typedef struct bond_acc {
    uint32_t a, b;
    double area, c[3];
    double n[3]; /* area-weighted normal (groups; the Voronoi bonds take the sites' direction) */
} bond_acc;

static int by_pair(const void *x, const void *y) {
    const bond_acc *p = x, *q = y;
    if (p->a != q->a) return p->a < q->a ? -1 : 1;
    return p->b < q->b ? -1 : (p->b > q->b);
}

static double radius_from(const double *pos, uint32_t nv, const double s[3]) {
    double r2 = 0;
    for (uint32_t i = 0; i < nv; ++i) {
        const double *p = pos + 3 * (size_t)i;
        double dx = p[0] - s[0], dy = p[1] - s[1], dz = p[2] - s[2], d = dx * dx + dy * dy + dz * dz;
        r2 = d > r2 ? d : r2;
    }
    return sqrt(r2);
}

/* Vertices that no triangle uses are left behind by the cuts; the cooker
 * drops them too, but mass properties want the mesh as it is. */
static cr_cook_mesh as_cook_mesh(const crf_mesh *m) {
    cr_cook_mesh c;
    memset(&c, 0, sizeof c);
    c.pos = m->pos;
    c.tri = m->tri;
    c.vertex_count = m->nv;
    c.triangle_count = m->nt;
    c.frame_s = 1;
    return c;
}

/* ---- pieces from an artist: the OBJ's groups (seed 001 §5) -------------------
 *
 * Each `o`/`g` statement starts a piece; a piece must be closed. Two pieces
 * share a face where a triangle of one and a triangle of the other have the
 * same three corners (by position) in opposite orders: those faces are the
 * support graph's bonds (area, centroid, normal out of the lower piece) and
 * are inside the whole, whose surface is every other triangle. The crack gap
 * shrinks each piece towards its centre of mass by gap / its radius (its
 * mass stays the exact piece's). */
static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : (x > y);
}

typedef struct face_key {
    double p[9]; /* the corners' positions, smallest first */
    uint32_t tri;
} face_key;

static int cmp_corner(const double *a, const double *b) {
    for (int k = 0; k < 3; ++k)
        if (a[k] != b[k]) return a[k] < b[k] ? -1 : 1;
    return 0;
}

static int by_corners(const void *x, const void *y) {
    const face_key *a = x, *b = y;
    for (int k = 0; k < 9; ++k)
        if (a->p[k] != b->p[k]) return a->p[k] < b->p[k] ? -1 : 1;
    return a->tri < b->tri ? -1 : (a->tri > b->tri);
}

static int groups_prescored(const char *name, const cr_obj *obj, const cr_cook_options *opt, const cr_cook_pieces_options *po,
                            cr_cook_result *out, cr_cook_pieces_report *rep, char *err, size_t en) {
    uint32_t nt = obj->triangle_count, ng = 0;
    uint32_t *gid = calloc(obj->group_count + 1, sizeof(uint32_t)); /* statement -> piece, pieces in file order */
    for (uint32_t t = 0; t < nt; ++t) {
        uint32_t g = obj->tri_group ? obj->tri_group[t] : 0;
        if (gid[g] == 0) gid[g] = ++ng;
    }
    if (ng < 2 || ng > CR_ASSET_MAX_PIECES) {
        snprintf(err, en, "%s: pieces from groups: %u group%s with faces; give 2 or more (`o`/`g` lines), or --pieces N", name, ng,
                 ng == 1 ? "" : "s");
        free(gid);
        return -1;
    }
    /* shared faces: equal corners, by position */
    face_key *keys = malloc(sizeof(face_key) * (nt ? nt : 1));
    for (uint32_t t = 0; t < nt; ++t) {
        const double *c[3];
        for (int k = 0; k < 3; ++k) c[k] = obj->pos + 3 * (size_t)obj->tri[3 * (size_t)t + k];
        for (int a = 0; a < 2; ++a) /* sort three corners */
            for (int b = 0; b < 2 - a; ++b)
                if (cmp_corner(c[b], c[b + 1]) > 0) {
                    const double *x = c[b];
                    c[b] = c[b + 1], c[b + 1] = x;
                }
        for (int k = 0; k < 3; ++k) memcpy(keys[t].p + 3 * k, c[k], sizeof(double) * 3);
        keys[t].tri = t;
    }
    qsort(keys, nt, sizeof *keys, by_corners);
    uint32_t *partner = malloc(sizeof(uint32_t) * (nt ? nt : 1));
    for (uint32_t t = 0; t < nt; ++t) partner[t] = UINT32_MAX;
    for (uint32_t i = 0; i + 1 < nt; ++i)
        if (memcmp(keys[i].p, keys[i + 1].p, sizeof keys[i].p) == 0) {
            uint32_t a = keys[i].tri, b = keys[i + 1].tri;
            uint32_t ga = gid[obj->tri_group ? obj->tri_group[a] : 0], gb = gid[obj->tri_group ? obj->tri_group[b] : 0];
            if (ga != gb && partner[a] == UINT32_MAX && partner[b] == UINT32_MAX) partner[a] = b, partner[b] = a;
        }
    free(keys);
    /* the whole: every triangle that is not a shared face */
    cr_obj wobj = *obj;
    wobj.tri = malloc(sizeof(uint32_t) * 3 * (nt ? nt : 1));
    wobj.tri_group = NULL;
    wobj.triangle_count = 0;
    for (uint32_t t = 0; t < nt; ++t)
        if (partner[t] == UINT32_MAX) memcpy(wobj.tri + 3 * (size_t)wobj.triangle_count++, obj->tri + 3 * (size_t)t, sizeof(uint32_t) * 3);
    cr_cook_options wopt = *opt;
    wopt.quiet = true, wopt.fracture = NULL, wopt.mass = NULL;
    cr_cook_mesh wm;
    cr_cook_result first;
    int rc = cr_cook_clean(&wobj, &wopt, &wm, err, en);
    if (rc == 0 && (wm.boundary_edges || wm.nonmanifold_edges)) {
        snprintf(err, en, "%s: the pieces' outer surface is not closed (%u boundary, %u non-manifold edges)", name, wm.boundary_edges,
                 wm.nonmanifold_edges);
        rc = -1;
    }
    double fs = rc == 0 ? wm.frame_s : 1, fo[3] = {0, 0, 0};
    if (rc == 0) memcpy(fo, wm.frame_o, sizeof fo), cr_cook_mesh_free(&wm);
    if (rc == 0) rc = cr_cook_obj(name, &wobj, &wopt, &first, err, en);
    double R[3][3], P[3];
    if (rc == 0) {
        memcpy(R, first.mass.axes, sizeof R);
        for (int r = 0; r < 3; ++r) P[r] = -(R[r][0] * first.mass.com[0] + R[r][1] * first.mass.com[1] + R[r][2] * first.mass.com[2]);
        rep->whole_volume = first.mass.volume;
        cr_cook_result_free(&first);
    }
    cr_cook_fracture fr;
    memset(&fr, 0, sizeof fr);
    fr.piece_count = ng;
    fr.piece_bytes = calloc(ng, sizeof(uint8_t *));
    fr.piece_size = calloc(ng, sizeof(size_t));
    fr.piece_volume = calloc(ng, sizeof(double));
    fr.piece_centroid = calloc(3 * (size_t)ng, sizeof(double));
    bond_acc *acc = NULL;
    size_t nacc = 0;
    double *mp = malloc(sizeof(double) * 3 * (obj->vertex_count ? obj->vertex_count : 1));
    for (uint32_t v = 0; v < obj->vertex_count; ++v)
        for (int k = 0; k < 3; ++k) mp[3 * (size_t)v + k] = obj->pos[3 * (size_t)v + k] * fs + fo[k];
    for (uint32_t g = 1; g <= ng && rc == 0; ++g) {
        /* the piece's triangles, in the mesh frame */
        crf_mesh pm;
        memset(&pm, 0, sizeof pm);
        uint32_t *vmap = malloc(sizeof(uint32_t) * obj->vertex_count);
        for (uint32_t v = 0; v < obj->vertex_count; ++v) vmap[v] = UINT32_MAX;
        uint32_t cnt = 0;
        for (uint32_t t = 0; t < nt; ++t) cnt += gid[obj->tri_group ? obj->tri_group[t] : 0] == g;
        pm.tri = malloc(sizeof(uint32_t) * 3 * (cnt ? cnt : 1));
        pm.tag = malloc(sizeof(uint32_t) * (cnt ? cnt : 1));
        for (uint32_t t = 0; t < nt; ++t) {
            if (gid[obj->tri_group ? obj->tri_group[t] : 0] != g) continue;
            for (int k = 0; k < 3; ++k) {
                uint32_t v = obj->tri[3 * (size_t)t + k];
                if (vmap[v] == UINT32_MAX) vmap[v] = pm.nv, crf_mesh_vertex(&pm, mp + 3 * (size_t)v);
                pm.tri[3 * (size_t)pm.nt + k] = vmap[v];
            }
            pm.tag[pm.nt++] = partner[t] == UINT32_MAX ? CRF_SURFACE : gid[obj->tri_group[partner[t]]] - 1;
        }
        free(vmap);
        cr_cook_mesh em = as_cook_mesh(&pm);
        cr_cook_mass mass;
        if (cr_cook_signed_volume(pm.pos, pm.tri, pm.nt) <= 0) rep->inward_pieces++;
        cr_cook_mass_properties(&em, NULL, 24, &mass, NULL);
        uint32_t i = g - 1;
        if (!mass.from_surface || !(mass.volume > 0)) {
            snprintf(err, en, "%s: piece %u (group %u) is not a closed solid", name, i, g);
            rc = -1;
        } else {
            rep->pieces_volume += mass.volume;
            fr.piece_volume[i] = mass.volume;
            for (int r = 0; r < 3; ++r)
                fr.piece_centroid[3 * i + r] = R[r][0] * mass.com[0] + R[r][1] * mass.com[1] + R[r][2] * mass.com[2] + P[r];
            for (uint32_t t = 0; t < pm.nt; ++t) {
                uint32_t j = pm.tag[t];
                if (j == CRF_SURFACE || j < i) continue; /* the lower piece's faces make the bond */
                const double *a = pm.pos + 3 * (size_t)pm.tri[3 * t], *b = pm.pos + 3 * (size_t)pm.tri[3 * t + 1],
                             *c = pm.pos + 3 * (size_t)pm.tri[3 * t + 2];
                double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
                double cx = e1[1] * e2[2] - e1[2] * e2[1], cy = e1[2] * e2[0] - e1[0] * e2[2], cz = e1[0] * e2[1] - e1[1] * e2[0];
                double area = 0.5 * sqrt(cx * cx + cy * cy + cz * cz);
                size_t f = nacc;
                for (size_t q = 0; q < nacc; ++q)
                    if (acc[q].a == i && acc[q].b == j) f = q;
                if (f == nacc) {
                    acc = realloc(acc, sizeof(bond_acc) * (nacc + 1));
                    memset(&acc[nacc], 0, sizeof acc[nacc]);
                    acc[nacc].a = i, acc[nacc].b = j;
                    ++nacc;
                }
                acc[f].area += area;
                for (int k = 0; k < 3; ++k) acc[f].c[k] += area * (a[k] + b[k] + c[k]) / 3.0;
                /* the normal, area-weighted, out of a: kept in the padding of the same record */
                acc[f].n[0] += 0.5 * cx, acc[f].n[1] += 0.5 * cy, acc[f].n[2] += 0.5 * cz;
            }
            /* the crack gap: shrink towards the centre of mass */
            double gap = po->gap >= 0 ? po->gap : 0.02 * cbrt(mass.volume);
            double rad = radius_from(pm.pos, pm.nv, mass.com), f = rad > gap ? 1.0 - 0.5 * gap / rad : 1.0;
            for (uint32_t v = 0; v < pm.nv; ++v)
                for (int k = 0; k < 3; ++k) pm.pos[3 * (size_t)v + k] = mass.com[k] + f * (pm.pos[3 * (size_t)v + k] - mass.com[k]);
            rep->gap = gap;
            cr_obj pobj;
            memset(&pobj, 0, sizeof pobj);
            pobj.pos = pm.pos, pobj.tri = pm.tri, pobj.vertex_count = pm.nv, pobj.triangle_count = pm.nt;
            cr_cook_options popt = cr_cook_default_options();
            popt.quiet = true;
            popt.sdf_res = po->piece_sdf_res > 0 ? po->piece_sdf_res : 16;
            popt.max_samples = opt->max_samples;
            popt.geodesic_max = opt->geodesic_max;
            popt.mass = &mass;
            char pname[64], perr[512];
            snprintf(pname, sizeof pname, "piece %u", i);
            cr_cook_result pr;
            if (cr_cook_obj(pname, &pobj, &popt, &pr, perr, sizeof perr) != 0) {
                snprintf(err, en, "%s: %s", name, perr);
                rc = -1;
            } else {
                if (pr.boundary_edges || pr.nonmanifold_edges) rep->open_pieces++;
                fr.piece_bytes[i] = pr.bytes, fr.piece_size[i] = pr.size;
                pr.bytes = NULL;
                cr_cook_result_free(&pr);
            }
        }
        crf_mesh_free(&pm);
    }
    free(mp);
    if (rc == 0) {
        qsort(acc, nacc, sizeof *acc, by_pair);
        fr.bond_pair = malloc(sizeof(uint32_t) * 2 * (nacc ? nacc : 1));
        fr.bond_area = malloc(sizeof(double) * (nacc ? nacc : 1));
        fr.bond_centroid = malloc(sizeof(double) * 3 * (nacc ? nacc : 1));
        fr.bond_normal = malloc(sizeof(double) * 3 * (nacc ? nacc : 1));
        for (size_t q = 0; q < nacc; ++q) {
            const bond_acc *b = &acc[q];
            double c[3], len = sqrt(b->n[0] * b->n[0] + b->n[1] * b->n[1] + b->n[2] * b->n[2]);
            if (!(b->area > 0) || !(len > 0)) continue;
            uint32_t k = fr.bond_count++;
            fr.bond_pair[2 * k] = b->a, fr.bond_pair[2 * k + 1] = b->b;
            fr.bond_area[k] = b->area;
            for (int r = 0; r < 3; ++r) c[r] = b->c[r] / b->area;
            for (int r = 0; r < 3; ++r) {
                fr.bond_centroid[3 * k + r] = R[r][0] * c[0] + R[r][1] * c[1] + R[r][2] * c[2] + P[r];
                fr.bond_normal[3 * k + r] = (R[r][0] * b->n[0] + R[r][1] * b->n[1] + R[r][2] * b->n[2]) / len;
            }
        }
        rep->pieces = ng, rep->bonds = fr.bond_count;
        cr_cook_options fopt = *opt;
        fopt.fracture = &fr;
        fopt.mass = NULL;
        rc = cr_cook_obj(name, &wobj, &fopt, out, err, en);
    }
    free(acc);
    for (uint32_t i = 0; i < ng; ++i) free(fr.piece_bytes[i]);
    free(fr.piece_bytes), free(fr.piece_size), free(fr.piece_volume), free(fr.piece_centroid);
    free(fr.bond_pair), free(fr.bond_area), free(fr.bond_centroid), free(fr.bond_normal);
    free(wobj.tri);
    free(partner);
    free(gid);
    return rc;
}

/* Fill each hole of a mesh without non-manifold edges: its boundary loop,
 * reversed, ear-clipped in its own best plane (Newell's normal). Returns 0,
 * or -1 (mesh unchanged) when a boundary corner is on two loops. */
static int fill_holes(cr_cook_mesh *m, uint32_t *holes) {
    uint32_t nt = m->triangle_count;
    uint64_t *h = malloc(sizeof(uint64_t) * 3 * (nt ? nt : 1));
    for (uint32_t t = 0; t < nt; ++t)
        for (int k = 0; k < 3; ++k) h[3 * t + k] = (uint64_t)m->tri[3 * t + k] << 32 | m->tri[3 * t + (k + 1) % 3];
    uint64_t *sorted = malloc(sizeof(uint64_t) * 3 * (nt ? nt : 1));
    memcpy(sorted, h, sizeof(uint64_t) * 3 * nt);
    qsort(sorted, 3 * (size_t)nt, sizeof(uint64_t), cmp_u64);
    uint32_t *next = malloc(sizeof(uint32_t) * (m->vertex_count ? m->vertex_count : 1));
    for (uint32_t v = 0; v < m->vertex_count; ++v) next[v] = UINT32_MAX;
    int rc = 0;
    for (size_t i = 0; i < 3 * (size_t)nt && rc == 0; ++i) {
        uint32_t a = (uint32_t)(h[i] >> 32), b = (uint32_t)h[i];
        uint64_t rev = (uint64_t)b << 32 | a;
        if (bsearch(&rev, sorted, 3 * (size_t)nt, sizeof(uint64_t), cmp_u64)) continue;
        if (next[b] != UINT32_MAX) rc = -1; /* the filling runs b -> a */
        next[b] = a;
    }
    crf_mesh add;
    memset(&add, 0, sizeof add);
    for (uint32_t v = 0; v < m->vertex_count && rc == 0; ++v) crf_mesh_vertex(&add, m->pos + 3 * (size_t)v);
    uint32_t *loop = malloc(sizeof(uint32_t) * (m->vertex_count ? m->vertex_count : 1));
    for (uint32_t v = 0; v < m->vertex_count && rc == 0; ++v) {
        if (next[v] == UINT32_MAX) continue;
        uint32_t k = 0, x = v;
        while (x != UINT32_MAX && next[x] != UINT32_MAX && k < m->vertex_count) {
            loop[k++] = x;
            uint32_t y = next[x];
            next[x] = UINT32_MAX;
            x = y;
        }
        if (x != v) {
            rc = -1;
            break;
        }
        crf_face_ears(&add, loop, k, CRF_SURFACE);
        ++*holes;
    }
    if (rc == 0 && add.nt > 0) {
        m->tri = realloc(m->tri, sizeof(uint32_t) * 3 * ((size_t)nt + add.nt));
        memcpy(m->tri + 3 * (size_t)nt, add.tri, sizeof(uint32_t) * 3 * add.nt);
        m->triangle_count += add.nt;
    }
    crf_mesh_free(&add);
    free(loop);
    free(next);
    free(sorted);
    free(h);
    return rc;
}

int cr_cook_prescored(const char *name, const cr_obj *obj, const cr_cook_options *opt, const cr_cook_pieces_options *po,
                      cr_cook_result *out, cr_cook_pieces_report *rep, char *err, size_t en) {
    double t_start = cr_cook_now();
    memset(out, 0, sizeof *out);
    memset(rep, 0, sizeof *rep);
    if (po->pieces == 0) {
        int rc = groups_prescored(name, obj, opt, po, out, rep, err, en);
        rep->time_total = cr_cook_now() - t_start;
        return rc;
    }
    if (po->pieces < 2 || po->pieces > CR_ASSET_MAX_PIECES) {
        snprintf(err, en, "%s: --pieces %u: expected 2 to %u", name, po->pieces, CR_ASSET_MAX_PIECES);
        return -1;
    }
    cr_cook_mesh mesh;
    char cerr[512];
    if (cr_cook_clean(obj, opt, &mesh, cerr, sizeof cerr) != 0) {
        snprintf(err, en, "%s: %s", name, cerr);
        return -1;
    }
    /* Holes (a scanned bunny's base) are filled first: pieces must be closed,
     * so the whole must be. The filled whole is cooked from the cleaned mesh,
     * in the mesh frame (no second scale or recentre), so whole and pieces
     * share that frame as before. */
    cr_obj filled;
    memset(&filled, 0, sizeof filled);
    cr_cook_options fo = *opt;
    if (mesh.boundary_edges && !mesh.nonmanifold_edges) {
        if (fill_holes(&mesh, &rep->holes_filled) == 0) {
            filled.pos = mesh.pos, filled.tri = mesh.tri;
            filled.vertex_count = mesh.vertex_count, filled.triangle_count = mesh.triangle_count;
            obj = &filled;
            fo.scale = 1, fo.normalise = 0, fo.recentre = false;
            opt = &fo;
            mesh.boundary_edges = 0;
        }
    }
    if (mesh.boundary_edges || mesh.nonmanifold_edges) {
        snprintf(err, en, "%s: prescoring needs a closed mesh (%u boundary edges, %u non-manifold edges): its pieces must be closed", name,
                 mesh.boundary_edges, mesh.nonmanifold_edges);
        cr_cook_mesh_free(&mesh);
        return -1;
    }
    /* the whole once as it is: its body frame places pieces and bonds */
    cr_cook_options wopt = *opt;
    wopt.quiet = true;
    wopt.fracture = NULL;
    wopt.mass = NULL;
    cr_cook_result first;
    if (cr_cook_obj(name, obj, &wopt, &first, err, en) != 0) {
        cr_cook_mesh_free(&mesh);
        return -1;
    }
    double R[3][3], P[3];
    memcpy(R, first.mass.axes, sizeof R);
    for (int r = 0; r < 3; ++r) P[r] = -(R[r][0] * first.mass.com[0] + R[r][1] * first.mass.com[1] + R[r][2] * first.mass.com[2]);
    rep->whole_volume = first.mass.volume;
    cr_cook_result_free(&first);

    /* sites */
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t i = 0; i < mesh.vertex_count; ++i)
        for (int k = 0; k < 3; ++k) {
            double x = mesh.pos[3 * (size_t)i + k];
            lo[k] = x < lo[k] ? x : lo[k], hi[k] = x > hi[k] ? x : hi[k];
        }
    double diag = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) + (hi[2] - lo[2]) * (hi[2] - lo[2]));
    cr_bvh *bvh = cr_bvh_build(mesh.pos, mesh.tri, mesh.triangle_count);
    uint32_t n = po->pieces;
    double *site = malloc(sizeof(double) * 3 * n);
    uint64_t rs = po->seed * 0x9e3779b97f4a7c15ull + 0x2545f4914f6cdd1dull;
    if (rs == 0) rs = 1;
    uint32_t got = 0;
    double sigma = 0.15 * diag;
    for (uint64_t tries = 0; got < n && tries < 20000ull * n + 100000ull; ++tries) {
        double q[3];
        for (int k = 0; k < 3; ++k) q[k] = lo[k] + rnd(&rs) * (hi[k] - lo[k]);
        double accept = rnd(&rs);
        if (po->near_set) {
            double d2 = 0;
            for (int k = 0; k < 3; ++k) d2 += (q[k] - po->near[k]) * (q[k] - po->near[k]);
            if (accept * (1.0 + d2 / (sigma * sigma)) > 1.0) continue;
        }
        if (cr_bvh_winding(bvh, q) <= 0.5) continue;
        bool dup = false;
        for (uint32_t j = 0; j < got && !dup; ++j) {
            double dx = site[3 * j] - q[0], dy = site[3 * j + 1] - q[1], dz = site[3 * j + 2] - q[2];
            dup = dx * dx + dy * dy + dz * dz < 1e-12 * diag * diag;
        }
        if (dup) continue;
        memcpy(site + 3 * got++, q, sizeof q);
    }
    cr_bvh_free(bvh);
    if (got < n) {
        snprintf(err, en, "%s: found only %u of %u cell sites inside the mesh", name, got, n);
        free(site);
        cr_cook_mesh_free(&mesh);
        return -1;
    }
    double gap = po->gap;
    if (gap < 0) gap = 0.02 * cbrt(rep->whole_volume / n);
    rep->gap = gap;

    /* the cells */
    crf_mesh whole;
    memset(&whole, 0, sizeof whole);
    whole.pos = mesh.pos, whole.nv = mesh.vertex_count, whole.tri = mesh.tri, whole.nt = mesh.triangle_count;
    whole.tag = malloc(sizeof(uint32_t) * (mesh.triangle_count ? mesh.triangle_count : 1));
    for (uint32_t t = 0; t < mesh.triangle_count; ++t) whole.tag[t] = CRF_SURFACE;
    crf_pmesh pwhole; /* the whole as faces, once: every cell's first cut reads it */
    crf_pmesh_from(&whole, &pwhole);
    site_order *ord = malloc(sizeof(site_order) * n);
    double *plane = malloc(sizeof(double) * 4 * n);     /* a cell's cut planes: n, d */
    uint32_t *plane_tag = malloc(sizeof(uint32_t) * n); /* and the neighbour each one faces */
    bond_acc *acc = NULL;
    size_t nacc = 0, capacc = 0;
    cr_cook_fracture fr;
    memset(&fr, 0, sizeof fr);
    fr.piece_count = n;
    fr.piece_bytes = calloc(n, sizeof(uint8_t *));
    fr.piece_size = calloc(n, sizeof(size_t));
    fr.piece_volume = calloc(n, sizeof(double));
    fr.piece_centroid = calloc(3 * (size_t)n, sizeof(double));
    int rc = 0;
    for (uint32_t i = 0; i < n && rc == 0; ++i) {
        double t0 = cr_cook_now();
        const double *si = site + 3 * (size_t)i;
        for (uint32_t j = 0; j < n; ++j) {
            double dx = site[3 * j] - si[0], dy = site[3 * j + 1] - si[1], dz = site[3 * j + 2] - si[2];
            ord[j].d2 = dx * dx + dy * dy + dz * dz, ord[j].j = j;
        }
        qsort(ord, n, sizeof *ord, by_distance);
        crf_mesh exact;
        crf_pmesh pex, ptmp;
        memset(&pex, 0, sizeof pex);
        memset(&exact, 0, sizeof exact);
        bool open = false, first_cut = true;
        uint32_t planes = 0;
        for (uint32_t k = 0; k < n; ++k) {
            uint32_t j = ord[k].j;
            if (j == i) continue;
            double dij = sqrt(ord[k].d2);
            const crf_pmesh *cur = first_cut ? &pwhole : &pex;
            if (0.5 * dij > radius_from(cur->pos, cur->nv, si)) break; /* no farther site can cut this piece */
            double *nrm = plane + 4 * (size_t)planes, mid[3];
            for (int c = 0; c < 3; ++c) nrm[c] = (site[3 * j + c] - si[c]) / dij, mid[c] = 0.5 * (site[3 * j + c] + si[c]);
            nrm[3] = nrm[0] * mid[0] + nrm[1] * mid[1] + nrm[2] * mid[2];
            plane_tag[planes++] = j;
            if (crf_pcut(cur, nrm, nrm[3], j, &ptmp) != 0) open = true;
            crf_pmesh_free(&pex);
            pex = ptmp;
            first_cut = false;
            if (pex.nf == 0) break;
        }
        crf_pmesh_triangulate(&pex, &exact);
        crf_pmesh_free(&pex);
        /* the cooker drops faces below 1e-12 of the squared diagonal: flip them away first */
        if (!first_cut) crf_repair(&exact, 1e-11 * diag * diag);
        rep->time_cut += cr_cook_now() - t0;
        if (first_cut || exact.nt == 0) {
            snprintf(err, en, "%s: cell %u came out empty", name, i);
            rc = -1;
            if (!first_cut) crf_mesh_free(&exact);
            break;
        }
        rep->open_pieces += open;
        /* mass of the exact piece; bonds from its caps */
        cr_cook_mesh em = as_cook_mesh(&exact);
        cr_cook_mass mass;
        if (cr_cook_signed_volume(exact.pos, exact.tri, exact.nt) <= 0) rep->inward_pieces++;
        cr_cook_mass_properties(&em, NULL, 24, &mass, NULL);
        if (!mass.from_surface || !(mass.volume > 0)) {
            snprintf(err, en, "%s: piece %u encloses no volume", name, i);
            rc = -1;
            crf_mesh_free(&exact);
            break;
        }
        rep->pieces_volume += mass.volume;
        fr.piece_volume[i] = mass.volume;
        for (int r = 0; r < 3; ++r)
            fr.piece_centroid[3 * i + r] = R[r][0] * mass.com[0] + R[r][1] * mass.com[1] + R[r][2] * mass.com[2] + P[r];
        for (uint32_t t = 0; t < exact.nt; ++t) {
            uint32_t j = exact.tag[t];
            if (j == CRF_SURFACE) continue;
            const double *a = exact.pos + 3 * (size_t)exact.tri[3 * t], *b = exact.pos + 3 * (size_t)exact.tri[3 * t + 1],
                         *c = exact.pos + 3 * (size_t)exact.tri[3 * t + 2];
            double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
            double cx = e1[1] * e2[2] - e1[2] * e2[1], cy = e1[2] * e2[0] - e1[0] * e2[2], cz = e1[0] * e2[1] - e1[1] * e2[0];
            double area = 0.5 * sqrt(cx * cx + cy * cy + cz * cz);
            size_t f = nacc;
            if (nacc > 0 && acc[nacc - 1].a == i && acc[nacc - 1].b == j) f = nacc - 1;
            else {
                for (size_t q = nacc; q > 0 && acc[q - 1].a == i; --q)
                    if (acc[q - 1].b == j) f = q - 1;
            }
            if (f == nacc) {
                if (nacc == capacc) capacc = capacc ? 2 * capacc : 256, acc = realloc(acc, sizeof(bond_acc) * capacc);
                memset(&acc[nacc], 0, sizeof acc[nacc]);
                acc[nacc].a = i, acc[nacc].b = j;
                ++nacc;
            }
            acc[f].area += area;
            for (int k = 0; k < 3; ++k) acc[f].c[k] += area * (a[k] + b[k] + c[k]) / 3.0;
        }
        /* the inset surface, cooked with the exact piece's mass. Where planes
         * meet a corner or an earlier cap within rounding, a cut can come out
         * folded; moving the crack by a micrometre (deterministically) gets
         * clear of the coincidence. Up to four attempts, then the cook fails. */
        t0 = cr_cook_now();
        int cooked = -1;
        char perr[512];
        for (int attempt = 0; attempt < 4 && cooked != 0; ++attempt) {
            double shift = 0.5 * gap + 1e-6 * diag * attempt;
            crf_mesh in;
            crf_pmesh pin, ptmp;
            memset(&pin, 0, sizeof pin);
            for (uint32_t q = 0; q < planes; ++q) {
                const double *pl = plane + 4 * (size_t)q;
                crf_pcut(q == 0 ? &pwhole : &pin, pl, pl[3] - shift, plane_tag[q], &ptmp);
                crf_pmesh_free(&pin);
                pin = ptmp;
            }
            crf_pmesh_triangulate(&pin, &in);
            crf_pmesh_free(&pin);
            bool owned = true;
            crf_repair(&in, 1e-11 * diag * diag);
            cr_obj pobj;
            memset(&pobj, 0, sizeof pobj);
            pobj.pos = in.pos;
            pobj.tri = in.tri;
            pobj.vertex_count = in.nv;
            pobj.triangle_count = in.nt;
            cr_cook_options popt = cr_cook_default_options();
            popt.quiet = true;
            /* a sliver of a piece thinner than a cell can get a grid the loader
             * refuses (its sign flips): the later attempts use a finer grid */
            popt.sdf_res = (po->piece_sdf_res > 0 ? po->piece_sdf_res : 16) << (attempt / 2);
            popt.max_samples = opt->max_samples;
            popt.geodesic_max = opt->geodesic_max;
            popt.mass = &mass;
            /* a cut that grazes a sliver an earlier cut left makes faces of no
             * area; the piece keeps them (dropping one would open it) */
            popt.weld_distance = 0;
            popt.keep_slivers = true;
            char pname[64];
            snprintf(pname, sizeof pname, "piece %u", i);
            cr_cook_result pr;
            cooked = cr_cook_obj(pname, &pobj, &popt, &pr, perr, sizeof perr);
            if (cooked != 0 && getenv("CRF_DUMP")) {
                FILE *f = fopen(getenv("CRF_DUMP"), "w");
                for (uint32_t q = 0; f && q < in.nv; ++q) fprintf(f, "v %.17g %.17g %.17g\n", in.pos[3 * q], in.pos[3 * q + 1], in.pos[3 * q + 2]);
                for (uint32_t q = 0; f && q < in.nt; ++q) fprintf(f, "f %u %u %u\n", in.tri[3 * q] + 1, in.tri[3 * q + 1] + 1, in.tri[3 * q + 2] + 1);
                if (f) fclose(f);
                fprintf(stderr, "%s attempt %d: %s\n", pname, attempt, perr);
            }
            if (cooked == 0 && (pr.boundary_edges || pr.nonmanifold_edges) && attempt < 3) {
                cr_cook_result_free(&pr);
                cooked = -1;
            } else if (cooked == 0) {
                if (pr.boundary_edges || pr.nonmanifold_edges) rep->open_pieces++; /* what the cooker found, not what the cut hoped */
                fr.piece_bytes[i] = pr.bytes;
                fr.piece_size[i] = pr.size;
                pr.bytes = NULL;
                cr_cook_result_free(&pr);
            }
            if (owned) crf_mesh_free(&in);
        }
        if (cooked != 0) {
            snprintf(err, en, "%s: %s", name, perr);
            rc = -1;
        }
        rep->time_cook += cr_cook_now() - t0;
        crf_mesh_free(&exact);
    }
    free(plane);
    free(plane_tag);
    crf_pmesh_free(&pwhole);
    free(whole.tag);
    free(ord);
    /* bonds: the cap of the lower piece, checked against the higher's */
    if (rc == 0) {
        qsort(acc, nacc, sizeof *acc, by_pair);
        fr.bond_pair = malloc(sizeof(uint32_t) * 2 * (nacc ? nacc : 1));
        fr.bond_area = malloc(sizeof(double) * (nacc ? nacc : 1));
        fr.bond_centroid = malloc(sizeof(double) * 3 * (nacc ? nacc : 1));
        fr.bond_normal = malloc(sizeof(double) * 3 * (nacc ? nacc : 1));
        double min_area = 1e-6 * rep->whole_volume / cbrt(rep->whole_volume); /* slivers below this are no bonds */
        for (size_t q = 0; q < nacc; ++q) {
            const bond_acc *b = &acc[q];
            if (b->a > b->b || b->area <= min_area) continue;
            bond_acc key = {b->b, b->a, 0, {0, 0, 0}, {0, 0, 0}};
            const bond_acc *other = bsearch(&key, acc, nacc, sizeof *acc, by_pair);
            double oa = other ? other->area : 0;
            double mis = fabs(b->area - oa) / b->area;
            rep->max_bond_mismatch = mis > rep->max_bond_mismatch ? mis : rep->max_bond_mismatch;
            uint32_t k = fr.bond_count++;
            fr.bond_pair[2 * k] = b->a, fr.bond_pair[2 * k + 1] = b->b;
            fr.bond_area[k] = b->area;
            /* from a into b: the cut plane's normal is the direction between the two sites */
            double c[3], nm[3], len = 0;
            for (int r = 0; r < 3; ++r) {
                c[r] = b->c[r] / b->area;
                nm[r] = site[3 * (size_t)b->b + r] - site[3 * (size_t)b->a + r];
                len += nm[r] * nm[r];
            }
            len = sqrt(len);
            for (int r = 0; r < 3; ++r) {
                fr.bond_centroid[3 * k + r] = R[r][0] * c[0] + R[r][1] * c[1] + R[r][2] * c[2] + P[r];
                fr.bond_normal[3 * k + r] = (R[r][0] * nm[0] + R[r][1] * nm[1] + R[r][2] * nm[2]) / len;
            }
        }
    }
    free(site);
    free(acc);
    rep->pieces = n;
    rep->bonds = fr.bond_count;
    if (rc == 0) {
        cr_cook_options fopt = *opt;
        fopt.fracture = &fr;
        fopt.mass = NULL;
        rc = cr_cook_obj(name, obj, &fopt, out, err, en);
    }
    cr_cook_mesh_free(&mesh); /* after the last cook: a filled whole's obj is this mesh */
    for (uint32_t i = 0; i < n; ++i) free(fr.piece_bytes[i]);
    free(fr.piece_bytes);
    free(fr.piece_size);
    free(fr.piece_volume);
    free(fr.piece_centroid);
    free(fr.bond_pair);
    free(fr.bond_area);
    free(fr.bond_centroid);
    free(fr.bond_normal);
    rep->time_total = cr_cook_now() - t_start;
    return rc;
}
