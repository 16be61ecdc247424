/* scene_query.c — the rays and overlaps a scene asks at given frames
 * (`ray` and `overlap` lines, docs/scene-format.md "Queries"): asked through
 * the public query calls (crumple/query.h) just before their frame's step,
 * kept with their hits for `crumple run`'s summary and --json, and drawn
 * over the pictures (`--overlay queries`).
 *
 * A query reads the world and changes nothing, so a scene with queries
 * steps to the same state hash as without them, and a replay (which asks
 * them again from the scene text) gets the same hits. Each is asked once:
 * cr_scene_step's one-frame loops may reach a frame boundary twice.
 */
#include "scene.h"
#include "scene_spring.h"
#include "stb_ds.h"

#include <string.h>

/* what the ray-all array holds without a second call; more go to the heap */
#define FIRST_HITS 64

static void add_hit(cr_scene_query *q, cr_body_id body, cr_soft_id soft, const cr_ray_hit *h) {
    cr_scene_query_hit x;
    memset(&x, 0, sizeof x);
    x.body = body, x.soft = soft, x.triangle = UINT32_MAX;
    if (h != NULL) x.point = h->point, x.normal = h->normal, x.fraction = h->fraction, x.triangle = h->triangle;
    arrput(q->hits, x);
}

static bool overlap_fn(void *context, cr_body_id body, cr_soft_id soft) {
    add_hit((cr_scene_query *)context, body, soft, NULL);
    return true;
}

static cr_status ask_ray_all(cr_scene_query *q, const cr_world *w) {
    cr_ray_hit first[FIRST_HITS], *all = first, *more = NULL;
    uint32_t count = 0;
    cr_status st = cr_world_cast_ray_all(w, q->a, q->b, q->filter, first, FIRST_HITS, &count);
    if (st == CR_OK && count > FIRST_HITS) { /* rare: a ray through more than 64 bodies */
        arrsetlen(more, count);
        all = more;
        st = cr_world_cast_ray_all(w, q->a, q->b, q->filter, all, count, &count);
    }
    for (uint32_t k = 0; st == CR_OK && k < count; ++k) add_hit(q, all[k].body, all[k].soft, &all[k]);
    arrfree(more);
    return st;
}

static cr_status ask(cr_scene_query *q, const cr_world *w) {
    switch ((cr_scene_query_kind)q->kind) {
    case CR_SCENE_QUERY_RAY: {
        cr_ray_hit h;
        bool found = false;
        cr_status st = cr_world_cast_ray_closest(w, q->a, q->b, q->filter, &h, &found);
        if (st == CR_OK && found) add_hit(q, h.body, h.soft, &h);
        return st;
    }
    case CR_SCENE_QUERY_RAY_ALL: return ask_ray_all(q, w);
    case CR_SCENE_QUERY_SPHERE: return cr_world_overlap_sphere(w, q->a, q->radius, q->filter, overlap_fn, q);
    case CR_SCENE_QUERY_BOX: {
        cr_transform pose = {q->a, q->q};
        return cr_world_overlap_box(w, pose, q->b, q->filter, overlap_fn, q);
    }
    case CR_SCENE_QUERY_AABB: return cr_world_overlap_aabb(w, q->a, q->b, q->filter, overlap_fn, q);
    }
    return CR_ERR_ARGUMENT_RANGE;
}

int cr_scene_ask_queries(cr_scene *s, const cr_world *w, int32_t frame, cr_scene_error *err) {
    for (ptrdiff_t i = 0; i < arrlen(s->queries); ++i) {
        cr_scene_query *q = &s->queries[i];
        if (q->frame != frame || q->asked) continue;
        q->asked = true;
        arrsetlen(q->hits, 0);
        cr_status st = ask(q, w);
        if (st != CR_OK) {
            return cr_scene_error_set(err, s->path, q->line, "%s '%s' at frame %d was refused: %s (%s)", cr_scene_query_keyword(q),
                                      q->name, frame, cr_status_message(st), cr_field_name(cr_world_refused_field(w)));
        }
    }
    return 0;
}

const char *cr_scene_query_keyword(const cr_scene_query *q) {
    return q->kind <= CR_SCENE_QUERY_RAY_ALL ? "ray" : "overlap";
}

const char *cr_scene_query_shape(const cr_scene_query *q) {
    static const char *const names[] = {"ray", "ray all", "sphere", "box", "aabb"};
    return q->kind < sizeof names / sizeof names[0] ? names[q->kind] : "?";
}

void cr_scene_hit_name(const cr_scene *s, const cr_world *w, const cr_scene_query_hit *h, char *out, size_t size) {
    if (h->soft.index1 != 0) {
        for (ptrdiff_t i = 0; i < arrlen(s->softs); ++i)
            if (s->softs[i].id.index1 == h->soft.index1 && s->softs[i].id.generation == h->soft.generation) {
                snprintf(out, size, "%s", s->softs[i].name);
                return;
            }
        snprintf(out, size, "soft#%u", h->soft.index1 - 1);
        return;
    }
    cr_scene_body_label(s, w, h->body, out, size);
}

void cr_scene_body_label(const cr_scene *s, const cr_world *w, cr_body_id id, char *out, size_t size) {
    /* the scene sets user_data = index + 1, and a body the runtime makes from
     * one (a fracture piece, a bending body's part) keeps it: named after its
     * scene body, with its slot when it is not that body itself */
    uint64_t u = cr_body_get_user_data(w, id);
    if (u >= 1 && u <= (uint64_t)arrlen(s->bodies)) {
        const cr_scene_body *b = &s->bodies[u - 1];
        if (b->id.index1 == id.index1 && b->id.generation == id.generation) {
            snprintf(out, size, "%s", b->name);
            return;
        }
        /* a piece is named as every output names it (tools/run_bodies.c) */
        cr_fracture_view v;
        if (b->fractures && cr_fracture_get(w, b->id, &v) == CR_OK)
            for (uint32_t k = 0; k < v.piece_count; ++k) {
                cr_body_id pb = cr_fracture_get_piece_body(w, b->id, k);
                if (pb.index1 == id.index1 && pb.generation == id.generation) {
                    snprintf(out, size, "%s/piece %u", b->name, (unsigned)k);
                    return;
                }
            }
        snprintf(out, size, "%s/body %u", b->name, id.index1 - 1);
        return;
    }
    snprintf(out, size, "body#%u", id.index1 - 1);
}

void cr_scene_free_queries(cr_scene *s) {
    for (ptrdiff_t i = 0; i < arrlen(s->queries); ++i) arrfree(s->queries[i].hits);
    arrfree(s->queries);
}
