/* damage.h — the damage stage (internal): its part of the world block and the
 * one entry point the step calls.
 *
 * The stage runs after the position update (world.c). In a fixed order it
 *   1. turns each impact event once into per-body impacts in that body's own
 *      frame (cr_body_impact), every vector measured with the start-of-step
 *      poses the solver measured the impact with;
 *   2. summarises the resting contacts of the step per body (cr_body_contact),
 *      read from the solver's manifolds;
 *   3. runs each model over its bodies, in the fixed order of the list in
 *      damage/models.h (dent, example, bend, squash, fracture, custom).
 * At the end of the step the world applies the deferred commands the models
 * queued (commands.c), then each model's after-commands hook.
 *
 * The contract every model exports is declared in damage/models.h;
 * docs/architecture.md says how to add one.
 *
 * The region (cr_damage_region) lives in the block's persistent arena at
 * the offset base/block.h keeps: CR_DAMAGE(w) finds it.
 */
#ifndef CRUMPLE_DAMAGE_INTERNAL_H
#define CRUMPLE_DAMAGE_INTERNAL_H

#include "crumple/damage.h"
#include "crumple/events.h"
#include "base/block.h"
#include "geometry/surface_copy.h"
#include "damage/dent.h"

/// This step's impacts and contacts, grouped by body slot (scratch memory).
/// Body slot i's impacts are impacts[impact_start[i] .. impact_start[i+1]).
typedef struct cr_damage_input {
    const cr_body_impact *impacts;
    const uint32_t *impact_start;  ///< [body_high + 1]
    const cr_body_contact *contacts;
    const uint32_t *contact_start; ///< [body_high + 1]
    uint32_t body_high;
    cr_real dt;                    ///< s, the step's
    uint32_t allowance;            ///< ns of the reference core the model may still charge this step (budget.h)
} cr_damage_input;

/// The dent job in flight (dent_model.c): the impact at the queue's head,
/// built over as many steps as the budget needs, then committed side by side.
typedef struct cr_dent_active {
    uint32_t phase;        ///< idle, maps, patch or commit (dent_model.c)
    uint32_t side;         ///< the side being built
    uint32_t sides;        ///< how many the job has
    uint32_t progressive;  ///< 1: side 0 deepens a dent site, `old` is its dent as it was
    uint32_t site;         ///< that site's index in the target's record
    uint32_t box_ok;       ///< the side's patch box was planned and fits
    uint32_t box_planned;
    uint32_t map_stage;    ///< the side's map: 0 to begin, 1 the projectile's reach, 2 its Z-buffer, 3 to finish, 4 built
    uint32_t tri;          ///< the next projectile triangle of stage 1 or 2
    uint32_t pad_;
    cr_dent dent[2];       ///< the sides' built dents (their maps in the region's scratch; re-pointed on resume)
    cr_dent old;
    cr_surface_patch_box box; ///< the side's grid patch (its staged values in the region's scratch)
} cr_dent_active;

/// The dent model's part of the block (dent_model.c).
typedef struct cr_dent_region {
    uint32_t records;      ///< offset of cr_dent_body[dent.body_capacity]
    uint32_t queue;        ///< offset of cr_dent_job[dent.queue_capacity], a ring
    uint32_t queue_head, queue_count;
    uint32_t scratch;      ///< offset of the dent-map build scratch
    uint32_t scratch_bytes;
    uint32_t events;       ///< offset of cr_dent_event[dent.dents_per_step]
    uint32_t event_count;
    uint32_t next_seq;     ///< impact sequence number: jobs of one impact share it
    uint32_t pad_;
    cr_dent_active active;
} cr_dent_region;

/// The example-plasticity model's part of the block (example_model.c).
typedef struct cr_example_region {
    uint32_t records;      ///< offset of cr_example_body[example.body_capacity]
    uint32_t weights;      ///< offset of E, row_stride bytes per record
    uint32_t pending;      ///< offset of dE, row_stride bytes per record
    uint32_t row_stride;   ///< bytes of one record's E (max_vertices x max_examples reals, 16-aligned)
    uint32_t queue;        ///< offset of cr_example_job[example.queue_capacity], a ring
    uint32_t queue_head, queue_count;
    uint32_t next_body;    ///< the record the next step's re-skin starts at (no body waits for ever)
    uint32_t scratch;      ///< offset of the patch scratch: moved-vertex buckets (max_vertices), grid values, field
    uint32_t grid_pos;     ///< offset of cr_vec3[max_vertices] per record: the surface the distance grid was last patched to
    uint32_t lanes;        ///< offset of each record's cr_skin_lanes (geometry/skinning.h), built at attach
} cr_example_region;

/// The bending model's part of the block (bend_model.c).
typedef struct cr_bend_region {
    uint32_t records;      ///< offset of cr_bend_body[bend.body_capacity]
    uint32_t bones;        ///< offset of cr_bend_bone[bend.body_capacity * bend.max_bones]
    uint32_t skin_bone;    ///< offset of uint8_t[4 * max_vertices] per record
    uint32_t skin_weight;  ///< offset of cr_real[4 * max_vertices] per record
    uint32_t node_bone;    ///< offset of uint8_t[max_grid_nodes] per record
    uint32_t rest_pos;     ///< offset of cr_vec3[max_vertices] per record: the rest surface, dents included
    uint32_t skin_layout;  ///< offset of each record's grouped skinning layout (geometry/skinning.h cr_skin_layout)
    uint32_t dent_scratch; ///< offset of the dent-map build scratch
    uint32_t queue;        ///< offset of cr_bend_split[bend.queue_capacity], a ring
    uint32_t queue_head, queue_count;
    uint32_t scratch;      ///< offset of the segmentation scratch (attach and splits)
    uint32_t next_body;    ///< the record the next step's re-skin starts at (no body waits for ever)
    uint32_t next_seam;    ///< the record the next step's seam re-segmentation starts at (seam.c)
} cr_bend_region;
/// The squash model's part of the block (squash_model.c).
typedef struct cr_squash_region {
    uint32_t records;      ///< offset of cr_squash_body[squash.body_capacity]
    uint32_t primitives;   ///< offset of cr_squash_primitive[max_primitives] per record
    uint32_t zones;        ///< offset of uint32_t[zone_vertices] per record: the last step's zone
    uint32_t tri_start;    ///< offset of uint32_t[max_vertices + 1] per record: vertex -> triangles
    uint32_t tri_list;     ///< offset of uint32_t[6 max_vertices + 24] per record
    uint32_t cells;        ///< offset of uint32_t[2 max_vertices + 1] per record: vertices bucketed by cell
    uint32_t scratch;      ///< offset of the skin update's scratch: marks, zone, c1 and h per zone vertex
    uint32_t posed;        ///< offset of cr_vec3[2 max_vertices] per record (positions, normals) if posable, else 0
    uint32_t grids;        ///< offset of cr_real[sculpt_nodes] per record (sculpting grids) if sculpt_nodes, else 0
    uint32_t vgroups;      ///< offset of uint8_t[max_vertices] per record: each skin vertex's group (the blending graph)
    uint32_t cooked;       ///< offset of cr_squash_primitive[max_primitives] per record: the skeleton as attached (posing starts there)
    uint32_t next_body;    ///< the record the next step starts at (no body waits for ever)
} cr_squash_region;
/// The break whose pieces are taking over its whole's dents, slice by slice
/// (fracture_carry.c). Plain data in the region: it survives a byte copy.
typedef struct cr_fracture_carry {
    uint32_t actor1;       ///< actor record + 1 whose pieces carry, 0: none in flight
    uint32_t piece;        ///< the piece being carried (pieces before it are done)
    uint32_t phase;        ///< FRACTURE_CARRY_PLAN, _ROWS or _COMMIT (fracture_carry.c)
    uint32_t corners;      ///< corners kept (the whole's corners near its dents)
    int32_t dims[3];       ///< cells of the corners' bucket grid
    uint32_t box_ok;       ///< the piece's patch box was planned
    uint32_t first, last;  ///< the piece's moved vertex range (plan)
    uint64_t break_step;   ///< the step its bonds broke: the latency's start
    cr_real reach;         ///< m: a piece corner takes the nearest kept corner within this
    cr_real cell;          ///< m: the bucket grid's cells (at least `reach` wide)
    cr_real inv_cell;      ///< 1/m
    cr_real most;          ///< m: the piece's largest carried move (plan)
    cr_vec3 lo;            ///< m, whole frame: the bucket grid's corner
    cr_vec3 mlo, mhi;      ///< the piece's moved corners' box (plan), piece frame
    cr_surface_patch_box box; ///< the piece's grid patch, its staged values in `staged`
} cr_fracture_carry;

/// The fracture model's part of the block (fracture_model.c).
typedef struct cr_fracture_region {
    uint32_t actors;       ///< offset of cr_fracture_actor[fracture.body_capacity]
    uint32_t pieces;       ///< offset of cr_fracture_piece[fracture.piece_capacity]
    uint32_t bonds;        ///< offset of cr_fracture_bond[fracture.bond_capacity]
    uint32_t slots;        ///< offset of cr_fracture_slot[body_capacity]: the actor and piece of each body slot
    uint32_t pieces_used;  ///< pool entries handed out (a freed actor's range is reused by the next that fits)
    uint32_t bonds_used;
    uint32_t queue;        ///< offset of cr_fracture_hit[fracture.queue_capacity], a ring
    uint32_t queue_head, queue_count;
    uint32_t carry_rest;   ///< offset of cr_vec3[carry_corners]: the kept corners' cooked places, bucket order
    uint32_t carry_move;   ///< offset of cr_vec3[carry_corners]: their dents (dented - cooked), bucket order
    uint32_t carry_index;  ///< offset of uint32_t[carry_corners]: their vertex indices (ties go to the lowest)
    uint32_t carry_cells;  ///< offset of uint32_t[carry_corners + 1]: each bucket's first corner
    uint32_t staged;       ///< offset of cr_real[carry_nodes]: the patch's new values until it commits
    uint32_t carry_local;  ///< offset of cr_vec3[carry_corners]: the dents in the frame of the piece being carried
    cr_fracture_carry carry;
} cr_fracture_region;

/// The custom model's part of the block (custom_model.c).
typedef struct cr_custom_region {
    uint32_t records;      ///< offset of cr_custom_body[custom.body_capacity]
    uint32_t states;       ///< offset of the per-body states, state_bytes each (16-aligned)
} cr_custom_region;

/// A deferred world command (commands.c).
typedef enum cr_command_type {
    CR_COMMAND_BODY_CREATE,
    CR_COMMAND_BODY_DESTROY,
    CR_COMMAND_JOINT_CREATE,
    CR_COMMAND_JOINT_DESTROY,
    CR_COMMAND_BODY_MOVE     ///< translate a body by `by` (a dent's projectile stepping into its dent)
} cr_command_type;

typedef struct cr_command {
    uint32_t type;         ///< cr_command_type
    uint32_t id_out;       ///< block offset where a create writes the new handle (0: nowhere)
    uint32_t a_from;       ///< joint create: block offset of a cr_body_id read at apply time for body_a (0: the def's)
    uint32_t b_from;       ///< the same for body_b
    cr_body_id body;
    cr_joint_id joint;
    cr_body_def body_def;
    cr_joint_def joint_def;
    cr_vec3 by;            ///< m, world frame: a move's translation
} cr_command;

/// The damage stage's part of the block.
typedef struct cr_damage_region {
    uint32_t surfaces;      ///< offset of cr_surface_copy[surface_capacity]
    uint32_t surface_capacity;
    cr_arena surface_memory; ///< the copies' regions
    uint32_t commands;      ///< offset of cr_command[command_capacity], in queue order
    uint32_t command_count;
    uint32_t command_refused; ///< commands refused this step for a full queue
    uint32_t start_poses;   ///< scratch offset of the bodies' start-of-step transforms, or 0
    cr_dent_region dent;
    cr_custom_region custom;
    cr_example_region example;
    cr_bend_region bend;
    cr_squash_region squash;
    cr_fracture_region fracture;
} cr_damage_region;

/// The damage region of a world (const or not, as CR_AT).
#define CR_DAMAGE(w) CR_AT(w, (w)->damage_region, cr_damage_region)

#endif
