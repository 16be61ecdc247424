/* test_dirty_ranges.c — what a renderer uploads after damage: the dirty
 * vertex ranges of cr_body_mesh and cr_dent_event cover every vertex that
 * moved and, where the list has room, little else (geometry/vertex_ranges.c).
 *
 * The list's rules against a bit per vertex on random marks, then the
 * shipped scenes of every model that moves a surface, step by step: every
 * moved vertex inside the mesh's ranges (and, in the dent scenes, inside
 * that step's dent events' ranges), with the upload the ranges ask against
 * the one span first..last asked before.
 */
#include "test_scene_util.h"
#include "geometry/vertex_ranges.h"

#include <stdlib.h>

static uint32_t lcg = 12345u;
static uint32_t rnd(uint32_t n) {
    lcg = lcg * 1664525u + 1013904223u;
    return (lcg >> 8) % n;
}

static bool covered(const cr_vertex_range *r, uint32_t n, uint32_t v) {
    for (uint32_t k = 0; k < n; ++k)
        if (v >= r[k].first && v - r[k].first < r[k].count) return true;
    return false;
}

CR_TEST(dirty_ranges_cover_every_mark_sorted_bounded_and_merged_when_close) {
    enum { N = 20000 };
    static uint8_t mark[N];
    for (int round = 0; round < 200; ++round) {
        memset(mark, 0, sizeof mark);
        cr_vertex_ranges s;
        cri_ranges_clear(&s);
        uint32_t runs = 1 + rnd(round < 100 ? 12 : 200), marked = 0;
        for (uint32_t k = 0; k < runs; ++k) {
            uint32_t a = rnd(N), len = 1 + rnd(round % 3 == 0 ? 400 : 20), b = a + len - 1 < N ? a + len - 1 : N - 1;
            if (round % 2) { /* vertex by vertex, as the models' loops add them */
                for (uint32_t v = a; v <= b; ++v) cri_ranges_add(&s, v, v);
            } else {
                cri_ranges_add(&s, a, b);
            }
            for (uint32_t v = a; v <= b; ++v) marked += !mark[v], mark[v] = 1;
        }
        ENSURE(s.count >= 1 && s.count <= CR_DIRTY_RANGE_MAX);
        for (uint32_t k = 0; k + 1 < s.count; ++k) /* sorted, apart by more than the gap */
            ENSURE(s.r[k].first + s.r[k].count + CR_DIRTY_RANGE_GAP < s.r[k + 1].first);
        uint32_t first, last, cover = cri_ranges_span(&s, &first, &last);
        for (uint32_t v = 0; v < N; ++v) {
            if (mark[v]) ENSURE_MSG(covered(s.r, s.count, v), "round %d: vertex %u moved but is in no range", round, v);
            if (v < first || v > last) ENSURE(!mark[v]);
        }
        /* each range starts and ends on a marked vertex: nothing is covered for no reason */
        for (uint32_t k = 0; k < s.count; ++k) ENSURE(mark[s.r[k].first] && mark[s.r[k].first + s.r[k].count - 1]);
        /* few runs far apart: exact */
        if (round < 100 && s.count < CR_DIRTY_RANGE_MAX)
            ENSURE(cover <= marked + (s.count + runs) * CR_DIRTY_RANGE_GAP);
    }
    /* an empty list and an empty add */
    cr_vertex_ranges e;
    cri_ranges_clear(&e);
    cri_ranges_add(&e, 5, 4);
    uint32_t f, l;
    ENSURE(e.count == 0 && cri_ranges_span(&e, &f, &l) == 0 && f > l);
}

typedef struct upload {
    uint64_t moved, ranges, span; /* vertices moved, covered by the ranges, by first..last */
    uint32_t steps, most_ranges;
} upload;

/* Steps a scene, checking every damaged body's dirty ranges after each step
 * against the vertices that really moved, then clearing them as a renderer
 * would. `dent_events`: the step's dent events' ranges must cover the moves too. */
static int run_scene(const char *name, int frames, bool dent_events, upload *u) {
    scene_run r;
    if (open_scene(name, &r) != 0) return -1;
    static cr_body_id ids[4096];
    static cr_vec3 *before[4096];
    memset(before, 0, sizeof before);
    int bad = 0;
    for (int32_t f = 0; f < frames && bad == 0; ++f) {
        uint32_t n = cr_world_get_body_ids(r.w, ids, 4096);
        for (uint32_t i = 0; i < n; ++i) {
            cr_body_mesh m;
            if (cr_body_get_mesh(r.w, ids[i], &m) != CR_OK) continue;
            before[i] = realloc(before[i], m.vertex_count * sizeof(cr_vec3));
            memcpy(before[i], m.positions, m.vertex_count * sizeof(cr_vec3));
        }
        if (step(&r, f) != 0) return -1;
        cr_dent_event ev[64];
        uint32_t ne = dent_events ? cr_world_get_dent_events(r.w, ev, 64) : 0;
        for (uint32_t i = 0; i < n; ++i) {
            cr_body_mesh m;
            if (!cr_body_is_valid(r.w, ids[i]) || cr_body_get_mesh(r.w, ids[i], &m) != CR_OK) continue;
            if (m.positions == m.rest_positions) continue; /* no copy of its own: never moves */
            uint32_t moved = 0;
            for (uint32_t v = 0; v < m.vertex_count; ++v) {
                if (memcmp(&before[i][v], &m.positions[v], sizeof(cr_vec3)) == 0) continue;
                ++moved;
                if (!covered(m.dirty_ranges, m.dirty_range_count, v)) {
                    if (bad++ < 3) cr_test_printf("  %s frame %d: body %u vertex %u moved outside its dirty ranges\n", name, f,
                                                  ids[i].index1, v);
                }
                if (dent_events) {
                    bool in_event = false;
                    for (uint32_t k = 0; k < ne && k < 64 && !in_event; ++k)
                        in_event = ev[k].body.index1 == ids[i].index1 && covered(ev[k].ranges, ev[k].range_count, v);
                    if (!in_event && bad++ < 3)
                        cr_test_printf("  %s frame %d: vertex %u moved outside the step's dent events\n", name, f, v);
                }
            }
            if (m.dirty_first <= m.dirty_last) {
                u->steps++;
                u->moved += moved;
                for (uint32_t k = 0; k < m.dirty_range_count; ++k) u->ranges += m.dirty_ranges[k].count;
                u->span += m.dirty_last - m.dirty_first + 1;
                if (m.dirty_range_count > u->most_ranges) u->most_ranges = m.dirty_range_count;
                if (m.dirty_ranges[0].first != m.dirty_first) ++bad;
            }
            cr_body_clear_dirty(r.w, ids[i]);
        }
    }
    for (uint32_t i = 0; i < 4096; ++i) free(before[i]);
    close_scene(&r);
    return bad;
}

CR_TEST(dirty_ranges_are_what_moved_in_every_surface_model) {
    static const struct {
        const char *scene;
        int frames;
        bool dents;
    } scenes[] = {
        {"dent_ball_block", 90, true}, {"dent_bunny", 120, true},     {"dent_rain", 120, true},
        {"dent_symmetric", 90, true},  {"example_bounce", 120, false}, {"squash_drop", 120, false},
        {"fracture_wall", 150, false}, {"bend_bar", 120, false},
    };
    upload all = {0, 0, 0, 0, 0}, dents = {0, 0, 0, 0, 0};
    for (size_t i = 0; i < sizeof scenes / sizeof scenes[0]; ++i) {
        upload u = {0, 0, 0, 0, 0};
        int bad = run_scene(scenes[i].scene, scenes[i].frames, scenes[i].dents, &u);
        cr_test_printf("  %-16s %3u uploads: %7llu vertices moved, ranges %7llu (%.2fx), one span %8llu (%.2fx), at most %u ranges\n",
                       scenes[i].scene, u.steps, (unsigned long long)u.moved, (unsigned long long)u.ranges,
                       u.moved ? (double)u.ranges / (double)u.moved : 0.0, (unsigned long long)u.span,
                       u.moved ? (double)u.span / (double)u.moved : 0.0, u.most_ranges);
        ENSURE_MSG(bad == 0, "%s: %d vertices outside their ranges", scenes[i].scene, bad);
        ENSURE(u.steps > 0 && u.ranges >= u.moved && u.ranges <= u.span);
        all.moved += u.moved, all.ranges += u.ranges, all.span += u.span;
        if (scenes[i].dents) dents.moved += u.moved, dents.ranges += u.ranges, dents.span += u.span;
    }
    /* the dents' uploads: near what moved, where one span was several times it */
    cr_test_printf("  dents: ranges %.2fx what moved, one span %.2fx; all scenes %.2fx and %.2fx\n",
                   (double)dents.ranges / (double)dents.moved, (double)dents.span / (double)dents.moved,
                   (double)all.ranges / (double)all.moved, (double)all.span / (double)all.moved);
    ENSURE(dents.ranges * 10 <= dents.moved * 13);
}
