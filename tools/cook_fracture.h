/* cook_fracture.h — the prescoring cooker (tools only): a closed mesh cut
 * into Voronoi pieces, or an artist's OBJ groups as pieces, each piece cooked
 * as a normal asset and stored with the whole and the support graph in one
 * prescored asset (docs/fracture.md, docs/asset-format.md).
 *
 *   cook_polygon_cut.c cut a closed mesh (polygon faces) by a plane, cap the cut
 *   cook_plane_cut.c   caps' regions, ear clipping, repair of faces of no area
 *   cook_fracture.c    cell sites, the cells' cuts, artist groups, holes, bonds, cooking the pieces
 */
#ifndef CRUMPLE_TOOLS_COOK_FRACTURE_H
#define CRUMPLE_TOOLS_COOK_FRACTURE_H

#include "cook.h"
#include "crumple/asset.h"

/// A working mesh with a tag per triangle (the cut plane that made it, or CRF_SURFACE).
typedef struct crf_mesh {
    double *pos;               ///< 3 per vertex
    uint32_t *tri;             ///< 3 per triangle
    uint32_t *tag;             ///< per triangle
    uint32_t nv, nt, cap_v, cap_t;
} crf_mesh;
#define CRF_SURFACE 0xffffffffu

void crf_mesh_free(crf_mesh *m);
/// Flip away triangles of less than min_area (m^2) lying on a neighbour's
/// plane; the surface and its corners stay; returns the flips made.
uint32_t crf_repair(crf_mesh *m, double min_area);

/// A piece as polygon faces (cook_polygon_cut.c): faces stay whole through the
/// cuts and are triangulated once at the end.
typedef struct crf_pmesh {
    double *pos;
    uint32_t *idx;             ///< corners of every face, face after face
    uint32_t *start;           ///< [nf + 1] first corner of each face
    uint32_t *ftag;            ///< [nf]
    uint32_t nv, ni, nf, cap_v, cap_i, cap_f;
} crf_pmesh;

/// Faces as index lists (a cap's regions).
typedef struct crf_faces {
    uint32_t *idx, *start, count;
} crf_faces;

void crf_pmesh_from(const crf_mesh *t, crf_pmesh *m);
void crf_pmesh_free(crf_pmesh *m);
/// Keep the part of `in` where n.x <= d: clipped faces keep their tag, the cap's
/// regions are faces tagged `tag`. Returns 0, or -1 when the cut's edges do not
/// close into loops (an input that was not closed); `out` is filled either way.
int crf_pcut(const crf_pmesh *in, const double n[3], double d, uint32_t tag, crf_pmesh *out);
/// Ear-clip every face into triangles.
void crf_pmesh_triangulate(const crf_pmesh *m, crf_mesh *out);
/// The cap's regions from its directed boundary edges (cook_plane_cut.c).
int crf_cap_faces(const double *pos, uint32_t nv, const uint32_t *seg, size_t nseg, const double n[3], crf_faces *out);
/// Ear-clip one face of out's vertices into out.
void crf_face_ears(crf_mesh *out, const uint32_t *idx, uint32_t k, uint32_t tag);
void crf_mesh_vertex(crf_mesh *m, const double p[3]);

/// How to prescore.
typedef struct cr_cook_pieces_options {
    uint32_t pieces;          ///< Voronoi cells (>= 2); 0: the OBJ's groups (`o`/`g`) are the pieces
    uint64_t seed;            ///< the cell sites' random stream: same seed, same pieces
    bool near_set;            ///< sites denser around `near` (mesh frame, after the cook's scale)
    double near[3];
    double gap;               ///< m, crack left between neighbouring pieces' surfaces; < 0: 2% of the mean piece size
    int piece_sdf_res;        ///< grid cells along a piece's longest axis (default 16)
} cr_cook_pieces_options;

cr_cook_pieces_options cr_cook_default_pieces_options(void);

/// What the prescoring made (for the report and the tests).
typedef struct cr_cook_pieces_report {
    uint32_t pieces, bonds;
    uint32_t open_pieces;     ///< pieces not closed: their cut did not close into loops, or the cooker found holes
    uint32_t inward_pieces;   ///< pieces whose surface enclosed negative volume before cooking (0: all outward)
    uint32_t holes_filled;    ///< holes of the input closed before cutting (a scan's open base)
    double whole_volume;      ///< m^3, the whole's
    double pieces_volume;     ///< m^3, the pieces' sum (before the crack gap)
    double max_bond_mismatch; ///< largest |area seen from a - area seen from b| / area over the bonds
    double gap;               ///< m, the crack gap used
    double time_cut, time_cook, time_total; ///< s
} cr_cook_pieces_report;

/// Cook `obj` prescored. Returns 0 and the file in *out, or -1 with
/// "name: message" in err.
int cr_cook_prescored(const char *name, const cr_obj *obj, const cr_cook_options *opt, const cr_cook_pieces_options *po,
                      cr_cook_result *out, cr_cook_pieces_report *rep, char *err, size_t err_size);

#endif
