/* run_bodies.c — the bodies a run of a scene ends with, and what happened to them.
 *
 * `crumple run` prints every body that exists at the end (its summary, its
 * --json, its --report). Most are scene bodies, found through their scene
 * line's handle; a prescored body that broke is no longer one of them (the
 * world replaced it by its pieces in one step), so its pieces are found
 * through cr_fracture_get_piece_body on the parent's handle and named
 * `PARENT/piece I`. The numbers a tester compares between the outputs come
 * from here once: the damage of a body (dents, deepest vertex move, vertices
 * moved) and how a fracturing body ended (when it split, into how many
 * pieces), so the summary, the JSON and the report cannot disagree.
 */
#include "scene.h"
#include "stb_ds.h"

#include <math.h>
#include <string.h>

void cr_run_each_body(const cr_scene *s, const cr_world *w, cr_run_body_fn fn, void *user) {
    for (ptrdiff_t i = 0; i < arrlen(s->bodies); ++i) {
        const cr_scene_body *b = &s->bodies[i];
        if (cr_body_id_is_null(b->id)) continue;
        if (cr_body_is_valid(w, b->id)) fn(user, b->name, b->id, (int32_t)i, -1);
        cr_fracture_view v;
        if (!b->fractures || cr_fracture_get(w, b->id, &v) != CR_OK || v.whole) continue;
        for (uint32_t k = 0; k < v.piece_count; ++k) {
            cr_body_id pb = cr_fracture_get_piece_body(w, b->id, k);
            if (!cr_body_is_valid(w, pb) || (pb.index1 == b->id.index1 && pb.generation == b->id.generation)) continue;
            char name[CR_SCENE_NAME_MAX + 24];
            snprintf(name, sizeof name, "%s/piece %u", b->name, (unsigned)k);
            fn(user, name, pb, (int32_t)i, (int32_t)k);
        }
    }
}

cr_run_damage cr_run_body_damage(const cr_world *w, cr_body_id id, uint32_t first, uint32_t last) {
    cr_run_damage d = {0, 0.0, 0};
    cr_body_mesh m;
    if (cr_body_get_mesh(w, id, &m) != CR_OK || m.positions == m.rest_positions) return d;
    d.dents = m.dent_count;
    for (uint32_t v = first; v < m.vertex_count && v <= last; ++v) {
        cr_vec3 p = m.positions[v], r = cr_v3_sub(m.rest_positions[v], m.rest_offset);
        if (p.x == r.x && p.y == r.y && p.z == r.z) continue;
        double dx = cr_to_double(p.x - r.x), dy = cr_to_double(p.y - r.y), dz = cr_to_double(p.z - r.z);
        double len = sqrt(dx * dx + dy * dy + dz * dz);
        if (len > d.deepest) d.deepest = len;
        d.moved++;
    }
    return d;
}

int cr_run_fracture_of(const cr_scene *s, const cr_world *w, uint32_t index, cr_run_fracture *out) {
    memset(out, 0, sizeof *out);
    const cr_scene_body *b = &s->bodies[index];
    if (!b->fractures || cr_body_id_is_null(b->id) || cr_fracture_get(w, b->id, &out->view) != CR_OK) return 0;
    if (b->broke_frame >= 0) {
        out->step = b->broke_frame + 1;
        out->time = (double)out->step * cr_to_double(s->dt);
    }
    for (uint32_t k = 0; !out->view.whole && k < out->view.piece_count; ++k) {
        cr_body_id pb = cr_fracture_get_piece_body(w, b->id, k);
        if (!cr_body_is_valid(w, pb)) continue;
        if (cr_body_get_type(w, pb) == CR_BODY_DYNAMIC)
            out->moving++;
        else
            out->held++;
    }
    return 1;
}

void cr_run_fracture_json_fields(char *buf, size_t size, const cr_run_fracture *f) {
    snprintf(buf, size, "\"whole\": %s, \"step\": %d, \"time\": %.9g, \"pieces\": %u, \"moving\": %u, \"held\": %u, \"bonds\": %u, "
                        "\"bonds_broken\": %u",
             f->view.whole ? "true" : "false", (int)f->step, f->time, f->view.piece_count, f->moving, f->held, f->view.bond_count,
             f->view.bonds_broken);
}

int cr_run_fracture_line(char *buf, size_t size, const cr_scene *s, const cr_world *w, uint32_t index) {
    cr_run_fracture fr, *f = &fr;
    if (!cr_run_fracture_of(s, w, index, f)) return 0;
    const char *name = s->bodies[index].name;
    if (f->view.whole)
        snprintf(buf, size, "%s: whole, %u of %u bonds broken", name, f->view.bonds_broken, f->view.bond_count);
    else if (f->step > 0)
        snprintf(buf, size, "%s: broke at step %d (t %.3f s) into %u pieces (%u moving, %u held), %u of %u bonds broken", name,
                 (int)f->step, f->time, f->view.piece_count, f->moving, f->held, f->view.bonds_broken, f->view.bond_count);
    else /* stepped outside cr_scene_run: when is not known */
        snprintf(buf, size, "%s: broke into %u pieces (%u moving, %u held), %u of %u bonds broken", name, f->view.piece_count,
                 f->moving, f->held, f->view.bonds_broken, f->view.bond_count);
    return 1;
}
