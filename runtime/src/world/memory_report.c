/* memory_report.c — the world block region by region (cr_world_memory_report)
 * and the damage bytes of an asset (cr_asset_damage_bytes).
 *
 * A game sizes its block once, from the def; when the number is too big the
 * programmer needs to see which capacity pays for what. The regions here are
 * the ones layout() in world.c pushes, in the same order, plus the scratch
 * plan of cri_scratch_plan_make; tests/test_memory.c checks that they add up
 * to cr_world_memory_need exactly, so a change to the layout that forgets
 * this file fails a test instead of printing a wrong report. A damage model
 * without a line of its own would show up inside "damage: stage and command
 * queue": every model has one.
 */
#include "solver/solver.h"
#include "damage/stage.h"
#include "damage/models.h"
#include "query/query_tree.h"
#include "soft/mass_spring.h"
#include "solver/touch.h"
#include "geometry/surface_copy.h"

#include <string.h>

static uint64_t al16(uint64_t x) { return (x + 15u) & ~(uint64_t)15u; }

typedef struct report {
    cr_memory_region *out;
    uint32_t capacity, count;
    uint64_t sum;
} report;

static void add(report *r, const char *name, const char *field, uint64_t bytes) {
    if (bytes == 0) return;
    if (r->out != NULL && r->count < r->capacity) {
        r->out[r->count].name = name;
        r->out[r->count].field = field;
        r->out[r->count].bytes = bytes;
    }
    r->count++;
    r->sum += bytes;
}

uint32_t cr_world_memory_report(const cr_world_def *def, cr_memory_region *out, uint32_t capacity) {
    uint64_t need = cr_world_memory_need(def);
    if (need == 0) return 0;
    report r = {out, capacity, 0, 0};
    add(&r, "world header and its def", "", al16(sizeof(struct cr_world)));
    add(&r, "bodies", "body_capacity", al16((uint64_t)def->body_capacity * sizeof(cr_body)));
    add(&r, "joints", "joint_capacity", al16((uint64_t)def->joint_capacity * sizeof(cr_joint)));
    add(&r, "impact events", "event_capacity", al16((uint64_t)def->event_capacity * sizeof(cr_impact_event)));
    add(&r, "asset slots and their coarse grids", "asset_capacity",
        al16((uint64_t)def->asset_capacity * sizeof(const cr_asset *)) +
            al16((uint64_t)def->asset_capacity * sizeof(cr_coarse_grid)));
    add(&r, "warm-start contact impulses", "point_capacity", al16((uint64_t)def->point_capacity * sizeof(cr_warm_impulse)));

    const cr_damage_def *d = &def->damage;
    uint64_t surface_memory = cri_damage_surfaces(d) ? al16(d->surface_bytes) : 0;
    uint64_t stage = cri_damage_region_bytes(def) - surface_memory;
    add(&r, "damage: deformed surface copies", "damage.surface_bytes (cr_asset_damage_bytes per body)", surface_memory);
#define CRI_REPORT(name, bit, region, field)                                                                            \
    add(&r, region, field, cri_##name##_model_region_bytes(def));                                                       \
    stage -= cri_##name##_model_region_bytes(def);
    CRI_DAMAGE_MODELS(CRI_REPORT)
#undef CRI_REPORT
    add(&r, "damage: stage and command queue", "damage.command_capacity", stage);
    add(&r, "alignment", "", 16u);
    add(&r, "soft bodies (particles, springs)", "spring", cri_soft_region_bytes(def));
    add(&r, "sensor overlaps (twice) and sensor events", "sensor_capacity, sensor_event_capacity", cri_sensor_region_bytes(def));
    add(&r, "touching pairs (twice) and contact events", "touch_capacity, contact_event_capacity", cri_touch_region_bytes(def));
    uint64_t query = cri_query_region_bytes(def), mesh_trees = (def->query.mesh_tree_bytes + 15u) & ~15u;
    add(&r, "queries: triangle trees of the assets", "query.mesh_tree_bytes (cr_asset_query_bytes per asset)", mesh_trees);
    add(&r, "queries: body tree and marks", "body_capacity, asset_capacity", query - mesh_trees);

    cr_scratch_plan p;
    cri_scratch_plan_make(def, &p);
    add(&r, "scratch: solver bodies", "body_capacity", p.sbodies);
    add(&r, "scratch: broadphase pairs", "pair_capacity", p.pairs);
    add(&r, "scratch: contact manifolds and their order", "contact_capacity", p.manifolds + p.order);
    add(&r, "scratch: interference points", "point_capacity", p.points);
    add(&r, "scratch: one pair's points", "points_per_pair", p.tmp_points + p.active);
    add(&r, "scratch: contact-graph levels", "body_capacity", p.level_start);
    add(&r, "scratch: joint exclusions", "joint_capacity", p.no_collide);
    uint64_t planned = p.sbodies + p.pairs + p.manifolds + p.order + p.points + p.tmp_points + p.active +
                       p.level_start + p.no_collide;
    uint64_t damage_scratch = cri_damage_scratch_bytes(def);
    add(&r, "scratch: damage impacts and contacts", "event_capacity, contact_capacity", damage_scratch);
    uint64_t soft_scratch = cri_soft_scratch_bytes(def);
    add(&r, "scratch: soft-body contacts", "spring", soft_scratch);
    planned += damage_scratch + soft_scratch;
    /* broadphase grid, contact graph and sleep islands take turns in one span */
    uint64_t step_total = p.total;
    uint64_t scratch = def->scratch_bytes > step_total ? def->scratch_bytes : step_total;
    uint64_t transient = p.total - planned; /* includes the cluster sort when that is larger */
    add(&r, "scratch: broadphase grid / contact graph / sleep islands (one at a time)",
        "body_capacity, pair_capacity, contact_capacity", transient);
    add(&r, "scratch: beyond what the capacities need", "scratch_bytes", scratch - p.total);
    /* whatever is left is the block's own alignment: the test checks the sum */
    add(&r, "alignment", "", need > r.sum ? need - r.sum : 0);
    return r.count;
}

uint64_t cr_asset_damage_bytes(const cr_asset *asset) {
    return asset != NULL ? cri_surface_copy_bytes(asset) : 0;
}
