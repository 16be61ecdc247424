/* cook_squash.h — a squishy asset's skeleton for the cooker (cook_squash.c). */
#ifndef CRUMPLE_TOOLS_COOK_SQUASH_H
#define CRUMPLE_TOOLS_COOK_SQUASH_H

#include "cook.h"
#include "crumple/squash.h"

/// One primitive, in double (OBJ coordinates until cr_cook_squash_to_body).
typedef struct cr_cook_primitive {
    int type;              ///< cr_squash_primitive_type
    double a[3], b[3], e[3];
    double radius, weight;
    int group;             ///< its group of the blending graph (`group` lines; 0 without them)
} cr_cook_primitive;

enum { CR_COOK_MESHER_GRID = 0, CR_COOK_MESHER_STAR = 1 };

typedef struct cr_cook_squash {
    cr_cook_primitive *prims;  ///< malloc'd
    uint32_t count;
    double isovalue;
    int mesh_cells;            ///< cells along the longest side when the cooker meshes the skeleton
    int mesher;                ///< CR_COOK_MESHER_*: how the cooker meshes the skeleton
    uint32_t group_count;      ///< groups named by `group` lines (0: none, every primitive in group 0)
    char group_names[CR_SQUASH_MAX_GROUPS][32];
    uint16_t collide[CR_SQUASH_MAX_GROUPS]; ///< group g collides with the groups of the bits set (symmetric)
} cr_cook_squash;

/// Read a skeleton file; errors "path:line: what".
int cr_cook_squash_read(const char *path, cr_cook_squash *out, char *err, size_t en);
void cr_cook_squash_free(cr_cook_squash *s);
/// A copy (its own primitives); 0, or -1 out of memory.
int cr_cook_squash_copy(const cr_cook_squash *s, cr_cook_squash *out, char *err, size_t en);
/// OBJ coordinates -> the body frame the cooker chose.
void cr_cook_squash_to_body(cr_cook_squash *s, const cr_cook_frame *f);
/// As the runtime's primitives (this build's scalar).
void cr_cook_squash_runtime(const cr_cook_squash *s, cr_squash_primitive *out);
/// 0 if every vertex (body frame, doubles) lies on f = c within max(2 mm, 1 % of the bound radius); f is
/// the vertex's group's field (the blending graph), so colliding groups that overlap at rest are refused.
int cr_cook_squash_check_mesh(const cr_cook_squash *s, const double *pos, uint32_t n, double bound_radius, char *err,
                              size_t en);
/// The skeleton's rest surface as an OBJ: the surface net (tools/squash_polygonise.c,
/// any shape; the default) or the star mesher (tools/squash_mesh.c, `mesher star`).
int cr_cook_squash_obj(const cr_cook_squash *s, cr_obj *out, char *err, size_t en);

#endif
