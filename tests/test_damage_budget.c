/* test_damage_budget.c — issue 25's promise in deterministic units: in every
 * shipped scene with a dent model, no step charges the dent model more than
 * the stage's budget gave it plus its dearest slice, and every dent an impact
 * asked for is committed (whole: the latency stats count each once) before
 * the scene ends; and no slice is much dearer than the budget. Times are the benchmark's (crumple bench frames); these
 * counts are the same on every machine. */
#include "test_scene_util.h"
#include "damage/fracture_model.h" /* cri_fracture_carry_pending: when a piece's carried dents have arrived */

static const char *const dent_scenes[] = {"dent_ball_block", "dent_bunny", "dent_glancing", "dent_rain", "dent_symmetric",
                                          "demo", "fracture_wall", "reference"};

CR_TEST(damage_budget_holds_for_dents_in_every_shipped_scene) {
    for (size_t k = 0; k < sizeof dent_scenes / sizeof dent_scenes[0]; ++k) {
        scene_run r;
        ENSURE(open_scene(dent_scenes[k], &r) == 0);
        const cr_world_def def = cr_world_get_def(r.w);
        uint32_t worst = 0, slice = 0, committed = 0, latency = 0, done = 0;
        uint64_t latency_sum = 0;
        for (int32_t f = 0; f < r.s->frames; ++f) {
            ENSURE(step(&r, f) == 0);
            const cr_world_stats st = cr_world_get_stats(r.w);
            ENSURE_MSG(st.dent.work <= def.damage.budget + st.dent.largest_slice,
                       "%s frame %d: dent charged %u ns, budget %u + dearest slice %u", dent_scenes[k], f, st.dent.work,
                       def.damage.budget, st.dent.largest_slice);
            ENSURE(st.dent.done == st.dent.committed); /* every dent counted with its latency */
            if (st.dent.work > worst) worst = st.dent.work;
            if (st.dent.largest_slice > slice) slice = st.dent.largest_slice;
            if (st.dent.latency_max > latency) latency = st.dent.latency_max;
            committed += st.dent.committed, latency_sum += st.dent.latency_sum, done += st.dent.done;
        }
        const cr_world_stats st = cr_world_get_stats(r.w);
        cr_test_printf("     %-16s %3u dents, latency worst %2u mean %5.2f steps; most charged in a step %8u ns, dearest slice %8u ns; %u waiting at the end\n",
                       dent_scenes[k], committed, latency, committed ? (double)latency_sum / committed : 0.0, worst, slice,
                       st.dent.waiting);
        ENSURE_MSG(committed > 0, "%s: no dent", dent_scenes[k]);
        /* the dearest indivisible pieces, a map's pass over its cells and a side's commit (its target's
         * vertices, triangles and patched nodes: 1.03 ms for the 10k-vertex block in fixed point), stay
         * near one budget, so no step charges much more than twice it */
        ENSURE_MSG(slice <= def.damage.budget + def.damage.budget / 4, "%s: a slice of %u ns", dent_scenes[k], slice);
        ENSURE_MSG(st.dent.waiting == 0, "%s: %u dents still waiting at the end", dent_scenes[k], st.dent.waiting);
        close_scene(&r);
    }
}

/* ---- fracture (issue 25: bond and stress sweeps, islands, pieces becoming
 * bodies, dents carried onto pieces, all charged and resumable) ---- */

static const char *const fracture_scenes[] = {"fracture_beam", "fracture_beam_holds", "fracture_tower", "fracture_wall"};

/* In every fracture scene no step charges the damage stage more than the
 * budget plus one slice of each model that ran (the dent model's dearest,
 * then fracture's first slice, which runs even when the dents left nothing);
 * every break's pieces become bodies with their dents, each counted once with
 * its latency, and nothing is left waiting at the end. */
CR_TEST(damage_budget_holds_for_fracture_in_every_fracture_scene) {
    for (size_t k = 0; k < sizeof fracture_scenes / sizeof fracture_scenes[0]; ++k) {
        scene_run r;
        ENSURE(open_scene(fracture_scenes[k], &r) == 0);
        const cr_world_def def = cr_world_get_def(r.w);
        uint32_t worst = 0, slice = 0, committed = 0, latency = 0, broken = 0;
        uint64_t latency_sum = 0, carried = 0;
        for (int32_t f = 0; f < r.s->frames; ++f) {
            ENSURE(step(&r, f) == 0);
            const cr_world_stats st = cr_world_get_stats(r.w);
            uint32_t stage = st.dent.work + st.fracture.work;
            ENSURE_MSG(st.stage[CR_STAGE_damage].work == stage, "%s frame %d: only dents and fracture charge here", fracture_scenes[k], f);
            ENSURE_MSG(stage <= def.damage.budget + st.dent.largest_slice + st.fracture.largest_slice,
                       "%s frame %d: the stage charged %u ns, budget %u + slices %u (dent) %u (fracture)", fracture_scenes[k], f,
                       stage, def.damage.budget, st.dent.largest_slice, st.fracture.largest_slice);
            ENSURE_MSG(st.fracture.work <= def.damage.budget + st.fracture.largest_slice,
                       "%s frame %d: fracture charged %u ns", fracture_scenes[k], f, st.fracture.work);
            if (stage > worst) worst = stage;
            if (st.fracture.largest_slice > slice) slice = st.fracture.largest_slice;
            if (st.fracture.latency_max > latency) latency = st.fracture.latency_max;
            committed += st.fracture.committed, latency_sum += st.fracture.latency_sum, broken += st.fracture.done;
            carried += st.damage_ops[CR_DAMAGE_OP_fracture_carry_node];
        }
        const cr_world_stats st = cr_world_get_stats(r.w);
        cr_test_printf("     %-20s %2u breaks, latency worst %2u mean %5.2f steps; most charged in a step %8u ns, fracture's dearest slice %7u ns; %llu carried grid nodes\n",
                       fracture_scenes[k], committed, latency, committed ? (double)latency_sum / committed : 0.0, worst, slice,
                       (unsigned long long)carried);
        ENSURE_MSG((committed > 0) == (broken > 0), "%s: %u bonds broke, %u breaks became bodies", fracture_scenes[k], broken, committed);
        /* the dearest indivisible fracture slices (a split queued, a piece's carried dent committed) stay well under one budget */
        ENSURE_MSG(slice <= def.damage.budget / 2, "%s: a fracture slice of %u ns", fracture_scenes[k], slice);
        ENSURE_MSG(st.fracture.waiting == 0, "%s: %u fracture items still waiting at the end", fracture_scenes[k], st.fracture.waiting);
        if (strcmp(fracture_scenes[k], "fracture_wall") == 0) {
            ENSURE_MSG(committed >= 1 && carried > 0, "the wall broke and its pieces took its dents over");
            /* issue 25 asks for 4 steps; the wall's carried dents cost about 10 budgets of the reference core
             * (docs/frame-budget.md): this holds what is reached, so it cannot grow unseen */
            ENSURE_MSG(latency <= 14, "the wall's break took %u steps", latency);
        }
        close_scene(&r);
    }
}

/* What the pieces of the wall's first break are once they are bodies with
 * their dents: how many, their masses, and a hash of their vertices and
 * grids, each piece's taken the step its carried dents arrived (no dent job
 * starts on a piece before that, so nothing else has touched it yet). */
typedef struct wall_pieces {
    uint32_t count, step;
    double mass;
    uint64_t vertices, grids;
} wall_pieces;

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

static int wall_first_break(uint32_t budget, wall_pieces *out) {
    char path[] = "data/scenes/fracture_wall.scene";
    cr_scene_error e;
    scene_run r;
    memset(&r, 0, sizeof r);
    memset(out, 0, sizeof *out);
    if (cr_scene_load(path, &r.s, &e)) return -1;
    if (budget != 0) r.s->def.damage.budget = budget;
    if (cr_scene_build(r.s, &r.w, &e)) {
        cr_scene_error_print(stdout, &e);
        cr_scene_free(r.s);
        return -1;
    }
    cr_body_id wall = body_named(&r, "wall");
    enum { MOST = 64 };
    uint64_t vh[MOST], gh[MOST];
    double mass[MOST];
    uint8_t seen[MOST] = {0};
    uint32_t pieces = 0, recorded = 0;
    for (int32_t f = 0; f < r.s->frames; ++f) {
        if (step(&r, f) != 0) break;
        cr_fracture_view v;
        if (cr_fracture_get(r.w, wall, &v) != CR_OK || v.whole || v.piece_count > MOST) continue;
        pieces = v.piece_count;
        for (uint32_t i = 0; i < v.piece_count; ++i) {
            cr_body_id p = cr_fracture_get_piece_body(r.w, wall, i);
            cr_body_mesh m;
            const cr_asset *a = cr_body_get_asset(r.w, p);
            if (seen[i] || cr_body_get_mesh(r.w, p, &m) != CR_OK || a == NULL || cri_fracture_carry_pending(r.w, p.index1))
                continue;
            seen[i] = 1, recorded++;
            mass[i] = cr_to_double(cr_body_get_mass(r.w, p));
            vh[i] = fnv(1469598103934665603ull, m.positions, m.vertex_count * sizeof(cr_vec3));
            gh[i] = fnv(1469598103934665603ull, a->sdf, (size_t)a->sdf_dims[0] * a->sdf_dims[1] * a->sdf_dims[2] * sizeof(cr_real));
        }
        if (pieces > 0 && recorded == pieces) {
            out->step = (uint32_t)f;
            break;
        }
    }
    out->vertices = out->grids = 1469598103934665603ull;
    for (uint32_t i = 0; i < pieces && recorded == pieces; ++i) {
        out->count++, out->mass += mass[i];
        out->vertices = fnv(out->vertices, &vh[i], sizeof vh[i]);
        out->grids = fnv(out->grids, &gh[i], sizeof gh[i]);
    }
    close_scene(&r);
    return out->count > 0 ? 0 : -1;
}

/* Slicing changes when a break's pieces arrive, not what they are: at the
 * default budget (1 ms) and at a roomy one (1 s) the wall's first break gives
 * the same pieces, their dented vertices and grids bit for bit. */
CR_TEST(damage_budget_sliced_break_gives_the_same_pieces_as_a_roomy_budget) {
    wall_pieces sliced, roomy;
    ENSURE(wall_first_break(0, &sliced) == 0);
    ENSURE(wall_first_break(1000000000u, &roomy) == 0);
    cr_test_printf("     sliced: %u pieces at frame %u, %.6f kg, vertices %016llx, grids %016llx\n", sliced.count, sliced.step,
                   sliced.mass, (unsigned long long)sliced.vertices, (unsigned long long)sliced.grids);
    cr_test_printf("     roomy:  %u pieces at frame %u, %.6f kg, vertices %016llx, grids %016llx\n", roomy.count, roomy.step,
                   roomy.mass, (unsigned long long)roomy.vertices, (unsigned long long)roomy.grids);
    ENSURE(sliced.count == roomy.count && sliced.count >= 2);
    ENSURE(sliced.mass == roomy.mass);
    ENSURE_MSG(sliced.vertices == roomy.vertices, "the pieces' dented vertices differ");
    ENSURE_MSG(sliced.grids == roomy.grids, "the pieces' grids differ");
    ENSURE_MSG(sliced.step > roomy.step, "the default budget spread the carry over more steps (%u vs %u)", sliced.step, roomy.step);
}
