/* crumple/debug_draw.h — the world as lines, triangles and points for a
 * game's debug overlay (docs/filters.md, "Debug draw").
 *
 *     cr_debug_draw draw = cr_default_debug_draw();
 *     draw.line = my_line;              // any callback may be null: that primitive is skipped
 *     draw.context = my_renderer;
 *     cr_world_draw(world, &draw, CR_DRAW_BODIES | CR_DRAW_CONTACTS | CR_DRAW_JOINTS);
 *
 * Everything is in world space (m), after the last step, in a fixed order
 * (flag by flag as listed, bodies in slot order). The call only reads the
 * world; the callbacks must not call back into it. Colours are 0xRRGGBB.
 */
#ifndef CRUMPLE_DEBUG_DRAW_H
#define CRUMPLE_DEBUG_DRAW_H

#include "body.h"

/* Link names carry the scalar mode (CR_LINK_NAME, crumple/real.h), so code
 * compiled in the other mode fails to link instead of misreading every cr_real. */
#define cr_default_debug_draw CR_LINK_NAME(cr_default_debug_draw)
#define cr_world_draw CR_LINK_NAME(cr_world_draw)

#ifdef __cplusplus
extern "C" {
#endif

/// What cr_world_draw draws (bits of its `flags`).
enum {
    CR_DRAW_BODIES = 1u << 0,        ///< shapes: sphere circles, box edges, a plane's square, a mesh's wireframe as it is now (dented, bent, squashed)
    CR_DRAW_SLEEP = 1u << 1,         ///< colour bodies by state: awake dynamic, asleep, kinematic, static, disabled, sensor (else one colour per kind)
    CR_DRAW_CONTACTS = 1u << 2,      ///< touching pairs' points and normals (needs def.touch_capacity), the last step's impact points
    CR_DRAW_JOINTS = 1u << 3,        ///< each joint: body centres to the anchors, and the anchors' gap
    CR_DRAW_BROADPHASE = 1u << 4,    ///< the base broadphase cell holding each hashed body's box (its lower corner)
    CR_DRAW_DISTANCE_GRID = 1u << 5, ///< cr_debug_draw.grid_body's signed distance grid on one slice, as points (inside / outside colours)
    CR_DRAW_DENTS = 1u << 6,         ///< the dents of the last step: a cross at each site, its size the dent's depth
    CR_DRAW_BONES = 1u << 7,         ///< bending bodies: a line from the body to each bone's sub-body, a point at each
    CR_DRAW_SENSORS = 1u << 8        ///< a line from each sensor to each body overlapping it
};

/// Colours cr_world_draw uses.
#define CR_DRAW_COLOR_DYNAMIC 0xe6b422u
#define CR_DRAW_COLOR_ASLEEP 0x8080a0u
#define CR_DRAW_COLOR_KINEMATIC 0x40c0e0u
#define CR_DRAW_COLOR_STATIC 0x60c060u
#define CR_DRAW_COLOR_DISABLED 0x404040u
#define CR_DRAW_COLOR_SENSOR 0xe040e0u
#define CR_DRAW_COLOR_CONTACT 0xff3030u
#define CR_DRAW_COLOR_NORMAL 0xffffffu
#define CR_DRAW_COLOR_JOINT 0x30a0ffu
#define CR_DRAW_COLOR_CELL 0x506070u
#define CR_DRAW_COLOR_INSIDE 0x3060ffu
#define CR_DRAW_COLOR_OUTSIDE 0xffa040u
#define CR_DRAW_COLOR_DENT 0xff60a0u
#define CR_DRAW_COLOR_BONE 0xa0ff60u

typedef struct cr_debug_draw {
    void (*line)(void *context, cr_vec3 a, cr_vec3 b, uint32_t color);
    void (*triangle)(void *context, cr_vec3 a, cr_vec3 b, cr_vec3 c, uint32_t color); ///< reserved: nothing is drawn as triangles yet
    void (*point)(void *context, cr_vec3 p, cr_real size, uint32_t color);           ///< size: m, a hint
    void *context;
    cr_real normal_length;   ///< m, length of a contact normal line (default 0.25)
    cr_body_id grid_body;    ///< CR_DRAW_DISTANCE_GRID: the mesh body whose grid is drawn
    uint32_t grid_axis;      ///< 0, 1, 2: the slice is normal to the body frame's x, y, z
    cr_real grid_offset;     ///< m, body frame: where the slice is along that axis
    uint32_t cookie;         ///< set by cr_default_debug_draw(); checked
} cr_debug_draw;

cr_debug_draw cr_default_debug_draw(void);

/// Draw what `flags` asks for. CR_ERR_NULL_ARGUMENT without a world or a
/// draw, CR_ERR_DEF_NOT_DEFAULTED for a draw not from cr_default_debug_draw,
/// CR_ERR_DEF_INVALID for a grid_axis above 2 or a grid_body that is not a
/// mesh body when CR_DRAW_DISTANCE_GRID is asked for (nothing is drawn then).
cr_status cr_world_draw(const cr_world *world, const cr_debug_draw *draw, uint32_t flags);

#ifdef __cplusplus
}
#endif

#endif
