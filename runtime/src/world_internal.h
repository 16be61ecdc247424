/* world_internal.h — the layout of a world block (internal to the runtime).
 *
 * The block starts with struct cr_world; after it the persistent arena holds
 * every array sized from the def (bodies, ...), and the block ends with the
 * per-step scratch arena. Arrays are found through offsets stored here, never
 * through stored pointers, so copying the block's bytes copies the world.
 */
#ifndef CRUMPLE_WORLD_INTERNAL_H
#define CRUMPLE_WORLD_INTERNAL_H

#include "crumple/crumple.h"
#include "arena.h"

#define CR_WORLD_MAGIC 0x57524352u /* "CRWR" */
#define CR_DEF_COOKIE 0x63726d70u  /* "crmp" */
/* Largest block a world may use: offsets are 32-bit. */
#define CR_MAX_BLOCK_BYTES 0xfffffff0u

/// Internal body record. Dead slots are chained through next_free.
typedef struct cr_body {
    uint32_t generation;
    uint32_t next_free;   ///< index1 of the next free slot when dead
    uint8_t alive;
    uint8_t type;         ///< cr_body_type
    uint8_t pad_[2];
    cr_transform xf;      ///< centre of mass frame in world space
    cr_vec3 v;            ///< linear velocity, m/s
    cr_vec3 w;            ///< angular velocity, rad/s
    cr_real mass;         ///< kg; 0 for static/kinematic
    cr_real inv_mass;     ///< 1/kg; 0 for static/kinematic
    cr_vec3 inertia;      ///< principal moments, kg m^2 (body frame)
    cr_vec3 inv_inertia;  ///< inverse principal moments (body frame)
    cr_real bound_radius; ///< m, bounding sphere about the centre of mass
    cr_shape_def shape;
    cr_material material;
    uint64_t user_data;
} cr_body;

struct cr_world {
    uint32_t magic;
    uint32_t block_size;
    cr_world_def def;
    cr_arena persistent;
    cr_arena scratch;
    uint32_t bodies;        ///< offset of cr_body[def.body_capacity]
    uint32_t free_body;     ///< index1 of the first free slot, 0 if none
    uint32_t body_count;    ///< live bodies
    uint32_t body_high;     ///< slots ever used (live or dead): iteration bound
    uint64_t step_count;
    cr_world_stats stats;
};

static inline cr_body *cr_world_bodies(cr_world *w) { return CR_AT(w, w->bodies, cr_body); }
static inline const cr_body *cr_world_bodies_c(const cr_world *w) { return CR_AT(w, w->bodies, const cr_body); }

/// The live body a handle names, or NULL if the handle is null or stale.
cr_body *cr_world_body(cr_world *w, cr_body_id id);
const cr_body *cr_world_body_c(const cr_world *w, cr_body_id id);

void cr_world_log(const cr_world *w, cr_log_level level, const char *message);
void cr_world_assert_failed(const cr_world *w, const char *expr, const char *file, int line);
#define CR_ASSERT(w, cond) \
    ((cond) ? (void)0 : cr_world_assert_failed((w), #cond, __FILE__, __LINE__))

uint64_t cr_world_now(const cr_world *w);

#endif
