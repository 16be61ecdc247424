/* gen_mesh.h — meshes the project generates itself: the nonconvex torus of the
 * rings scene, the closed bumpy terrain slab of the terrain scene, and the
 * finely tessellated blocks and spheres the dent scenes dent.
 *
 * `crumple gen torus|terrain [options] [-o FILE]` writes them as OBJ text; the
 * files checked into data/meshes/ are exactly what the default options give,
 * and a test regenerates them and compares byte for byte.
 *
 * Notes
 *   - Output bytes must be the same on every machine, so the generator uses
 *     its own sine/cosine (a Taylor series in plain IEEE double arithmetic,
 *     no libm transcendentals) and prints coordinates from integers: each is
 *     rounded to a whole micrometre and written without printf's %f.
 *   - Both meshes are closed and consistently oriented (counter-clockwise seen
 *     from outside), so their signed distance grids have a well-defined inside.
 */
#ifndef CRUMPLE_GEN_MESH_H
#define CRUMPLE_GEN_MESH_H

#include <stddef.h>

/// Torus about the y axis (the hole along y), in the xz plane.
typedef struct cr_gen_torus {
    double major_radius; ///< m, centre of the tube to the centre of the torus (default 1)
    double minor_radius; ///< m, radius of the tube (default 0.25)
    int segments;        ///< divisions around the ring (default 20)
    int sides;           ///< divisions around the tube (default 10): 2·segments·sides triangles
} cr_gen_torus;

/// A solid slab whose top is a bumpy height field over cells x cells squares.
typedef struct cr_gen_terrain {
    int cells;        ///< squares along x and z on top (default 64)
    double size;      ///< m, edge length of the square footprint, centred on the origin (default 32)
    double height;    ///< m, amplitude of the bumps about y = 0 (default 1)
    double thickness; ///< m, the flat bottom lies this far below the lowest possible bump (default 2)
} cr_gen_terrain;

/// A box whose faces are split into square-ish cells, so a dent has vertices to move.
typedef struct cr_gen_box {
    double size[3]; ///< m, edge lengths along x, y, z, centred on the origin (default 1 0.4 1)
    int cells;      ///< cells along the longest edge; other edges get as many as keep cells square (default 40)
} cr_gen_box;

/// A UV sphere about the origin.
typedef struct cr_gen_sphere {
    double radius; ///< m (default 0.3)
    int segments;  ///< divisions around the y axis (default 48)
    int rings;     ///< divisions from pole to pole (default 24)
} cr_gen_sphere;

/// A grid of bricks whose OBJ `o` groups are the pieces of a prescored
/// fracturable asset (tools/gen_bricks.c, docs/fracture.md); the corner of the
/// grid at the origin, y up.
typedef struct cr_gen_bricks {
    int count[3];    ///< bricks along x, y, z (default 4 3 1)
    double brick[3]; ///< m, one brick's edges (default 0.25 0.25 0.2)
    int quads;       ///< quads along each brick edge, so dents have corners to move (default 3)
} cr_gen_bricks;

cr_gen_torus cr_gen_default_torus(void);
cr_gen_terrain cr_gen_default_terrain(void);
cr_gen_box cr_gen_default_box(void);
cr_gen_sphere cr_gen_default_sphere(void);
cr_gen_bricks cr_gen_default_bricks(void);

/// OBJ text of the mesh as a new malloc'ed, NUL-terminated string (free()),
/// or NULL if an option is out of range. *size gets the length without the NUL.
char *cr_gen_torus_obj(const cr_gen_torus *t, size_t *size);
char *cr_gen_terrain_obj(const cr_gen_terrain *t, size_t *size);
char *cr_gen_box_obj(const cr_gen_box *b, size_t *size);
char *cr_gen_sphere_obj(const cr_gen_sphere *s, size_t *size);
char *cr_gen_bricks_obj(const cr_gen_bricks *b, size_t *size);

/// Height of the terrain's top surface at (x, z), m (the exact function the
/// mesh samples at its vertices; between vertices the mesh interpolates linearly).
double cr_gen_terrain_height(const cr_gen_terrain *t, double x, double z);

/// The generator's own sine and cosine (a Taylor series: the same bits everywhere).
double cr_gen_sin(double x);
double cr_gen_cos(double x);

/// The plastic assets of issue 13 (tools/gen_plastic.c): `name` barrel or car.
/// texts[0..3] get new malloc'ed texts (free()) of NAME.obj, NAME.rig,
/// NAME.pose and NAME.cook, sizes their lengths; returns 0, or 2 for an
/// unknown name, 1 out of memory.
int cr_gen_plastic_text(const char *name, char **texts, size_t *sizes);
/// Write them under dir/meshes, dir/rigs, dir/poses, leaving a file whose bytes
/// are already these; returns 0, or 1 after printing why.
int cr_gen_plastic(const char *name, const char *dir);

/// `crumple gen torus|terrain|box|sphere|bricks|barrel|car [options] [-o FILE | --dir DIR]`
int cr_cmd_gen(int argc, char **argv);

#endif
