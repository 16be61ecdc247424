/* scene_build.c — the world a parsed scene describes, through the public API only.
 *
 * cr_scene_build loads (or cooks) the scene's assets, sizes the damage
 * stage's surface memory from the dentable bodies' assets unless the scene
 * gave it, makes one host block (cr_cli_world_new), registers the assets and
 * creates the bodies that exist from frame 0 and the joints. Spawned bodies
 * are created later by the same cr_scene_create_body (scene_inputs.c).
 */
#include "scene.h"
#include "scene_spring.h"
#include "cli.h"
#include "stb_ds.h"

#include <string.h>

int cr_scene_create_body(cr_scene *s, cr_world *w, uint32_t index, int line, cr_scene_error *err) {
    cr_scene_body *b = &s->bodies[index];
    cr_body_def def = b->def;
    if (b->asset >= 0) {
        def.shape.asset = s->assets[b->asset].slot;
        cr_scene_mesh_placement(s->assets[b->asset].view_, &def.position, &def.orientation);
    }
    char why[256];
    cr_status st = cr_body_create(w, &def, &b->id);
    if (st != CR_OK)
        return cr_scene_error_set(err, s->path, line, "body '%s': cannot create: %s", b->name,
                                  cr_scene_refusal(why, sizeof why, st, cr_world_refused_field(w)));
    const char *verb = NULL;
    if (b->squash && (st = cr_squash_attach(w, b->id, &b->squash_def)) != CR_OK) verb = "squash";
    if (verb == NULL && b->dents && (st = cr_dent_attach(w, b->id, &b->dent)) != CR_OK) verb = "dent";
    if (verb == NULL && b->bends && (st = cr_bend_attach(w, b->id, &b->bend)) != CR_OK) verb = "bend";
    if (verb != NULL) {
        cr_scene_refusal(why, sizeof why, st, cr_world_refused_field(w));
        cr_body_destroy(w, b->id);
        memset(&b->id, 0, sizeof b->id);
        return cr_scene_error_set(err, s->path, line, "body '%s': cannot %s: %s", b->name, verb, why);
    }
    if (cr_scene_example_attach(s, w, index, line, err)) return -1;
    return cr_scene_fracture_attach(s, w, index, line, err); /* tools/scene_fracture.c */
}

/* Room for every dentable body's copy of its surface and grid (surface_copy.c keeps
 * a view, positions, normals, samples and the grid, each 16-aligned). */
static uint32_t dent_copy_bytes(const cr_scene *s) {
    uint64_t total = 0;
    for (ptrdiff_t i = 0; i < arrlen(s->bodies); ++i) {
        const cr_scene_body *b = &s->bodies[i];
        if ((!b->dents && !b->squash) || b->asset < 0) continue;
        const cr_asset *a = s->assets[b->asset].view_;
        uint64_t nodes = (uint64_t)a->sdf_dims[0] * a->sdf_dims[1] * a->sdf_dims[2];
        total += 16 + sizeof(cr_asset) + 2 * (16 + (uint64_t)a->vertex_count * sizeof(cr_vec3)) +
                 (16 + (uint64_t)a->sample_count * sizeof(cr_vec3)) + (16 + nodes * sizeof(cr_real)) + 64;
    }
    return total > 0xfff00000u ? 0xfff00000u : (uint32_t)total;
}

int cr_scene_build(cr_scene *s, cr_world **out, cr_scene_error *err) {
    *out = NULL;
    for (ptrdiff_t i = 0; i < arrlen(s->bodies); ++i) {
        memset(&s->bodies[i].id, 0, sizeof s->bodies[i].id);
        s->bodies[i].broke_frame = -1;
    }
    for (ptrdiff_t i = 0; i < arrlen(s->joints); ++i) memset(&s->joints[i].id, 0, sizeof s->joints[i].id);
    if (cr_scene_load_assets(s, err)) return -1;
    cr_world_def def = s->def;
    cr_scene_bend_budget(s, &def); /* tools/scene_bend.c */
    if (!s->deform_bytes_given) def.damage.surface_bytes = dent_copy_bytes(s) + cr_scene_bend_surface_bytes(s);
    cr_scene_example_size(s, &def);
    cr_scene_fracture_size(s, &def); /* tools/scene_fracture.c */
    cr_scene_spring_budget(s, &def); /* tools/scene_spring.c */
    if (def.query.mesh_tree_bytes == 0) /* room for every asset's triangle tree (docs/queries.md) */
        for (ptrdiff_t i = 0; i < arrlen(s->assets); ++i)
            if (s->assets[i].view_ != NULL) def.query.mesh_tree_bytes += (uint32_t)cr_asset_query_bytes(s->assets[i].view_);
    def.log = crp_log_hook;
    if (def.clock_ns == NULL) def.clock_ns = crp_clock_hook; /* a caller's own clock (crumple bench frames --clock cpu) is kept */
    cr_world *w = NULL;
    cr_status st = cr_cli_world_new(&def, &w);
    if (st != CR_OK) {
        cr_field f;
        cr_status why = cr_world_def_check(&def, &f);
        return cr_scene_error_set(err, s->path, 0, "cannot create the world (%llu bytes): %s%s%s",
                         (unsigned long long)cr_world_memory_need(&def), cr_status_message(why != CR_OK ? why : st),
                         f != CR_FIELD_NONE ? ": " : "", cr_field_name(f));
    }
    for (ptrdiff_t i = 0; i < arrlen(s->assets); ++i) {
        st = cr_world_add_asset(w, s->assets[i].view_, &s->assets[i].slot);
        if (st != CR_OK) {
            cr_cli_world_free(w);
            return cr_scene_error_set(err, s->path, s->assets[i].line, "asset '%s': %s", s->assets[i].name, cr_status_message(st));
        }
    }
    if (cr_scene_fracture_register(s, w, err)) { /* prescored assets' pieces, after the assets */
        cr_cli_world_free(w);
        return -1;
    }
    for (ptrdiff_t i = 0; i < arrlen(s->bodies); ++i) {
        if (s->bodies[i].spawn_frame >= 0) continue;
        if (cr_scene_create_body(s, w, (uint32_t)i, s->bodies[i].line, err)) {
            cr_cli_world_free(w);
            return -1;
        }
    }
    for (ptrdiff_t i = 0; i < arrlen(s->joints); ++i) {
        cr_scene_joint *j = &s->joints[i];
        cr_joint_def def = j->def;
        def.body_a = s->bodies[j->body_a].id;
        if (j->body_b >= 0) def.body_b = s->bodies[j->body_b].id;
        st = cr_joint_create(w, &def, &j->id);
        if (st != CR_OK) {
            char why[256];
            cr_scene_refusal(why, sizeof why, st, cr_world_refused_field(w));
            cr_cli_world_free(w);
            return cr_scene_error_set(err, s->path, j->line, "joint '%s': cannot create: %s", j->name, why);
        }
    }
    if (cr_scene_spring_create(s, w, err)) { /* soft bodies after the rigid ones (tools/scene_spring.c) */
        cr_cli_world_free(w);
        return -1;
    }
    *out = w;
    return 0;
}
