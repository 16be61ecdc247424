/* cmd_run.c — `crumple run SCENE [--frames N] [--json] ...`: step a scene file.
 *
 * Loads the scene (tools/scene_*.c), builds its world, and steps it frame by
 * frame through cr_scene_run, the loop every tool steps a scene with. At the end it prints a short human summary, or with --json one JSON
 * object whose contract is in docs/scene-format.md.
 *
 * Notes
 *   - Options live in one table (run_options + parse_options). Per-frame
 *     outputs (replay recording, pictures) are one call each in
 *     frame_outputs(), after the frame's step; a new output adds its option
 *     fields and flags there and its call in frame_outputs / run_finish.
 *   - Errors are `file:line: message` (scene) or `crumple run: message`
 *     (command line), with a non-zero exit: 2 for usage, 1 for the rest.
 *   - JSON numbers are printed with %.9g from the exact double of each
 *     cr_real; a non-finite value (float mode) is printed as null so the
 *     output stays valid JSON.
 */
#include "cli.h"
#include "render_run.h"
#include "replay.h"
#include "run_report.h"
#include "scene.h"
#include "stb_ds.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct run_options {
    const char *scene;
    int32_t frames; /* -1: the scene's own `frames` */
    bool json;
    bool memory;                      /* --memory: the block's regions, no stepping */
    int shock;                        /* -1: the scene's own `shock`, else 0/1 */
    const char *cache;                /* --cache DIR, or NULL */
    cr_run_pictures_options pictures; /* --render, --sheet, --obj, ... (tools/render_run.c) */
    cr_run_pictures *pics;            /* their state during the run */
    const char *record;               /* --record FILE (a replay, tools/replay.c), or NULL */
    cr_replay *rec;                   /* the replay being recorded */
    const char *report;               /* --report DIR (tools/run_report.c), or NULL */
    cr_run_report *rep;               /* its frames during the run */
    char report_apng[1100];           /* DIR/run.png when --apng was not given */
} run_options;

static void usage(FILE *out) {
    fprintf(out,
            "usage: crumple run SCENE [--frames N] [--json] [--memory] [--shock on|off] [--cache DIR] [--record FILE]\n"
            "       [--report DIR]\n"
            "       [--render DIR] [--every K] [--size WxH] [--camera C] [--mode M] [--wireframe] [--supersample N]\n"
            "       [--range MM] [--sheet] [--sheet-frames N] [--dents] [--obj DIR] [--apng FILE] [--fps N] [--overlay LIST]\n"
            "  Steps a scene file (docs/scene-format.md) and prints a summary: memory, overflows, what\n"
            "  damage did to each body, the state hash. Positions are world coordinates, metres.\n"
            "  --frames N       frames to step (default: the scene's `frames`)\n"
            "  --json           print one JSON object at the end instead of the summary\n"
            "  --memory         print the world block region by region (cr_world_memory_report) and stop\n"
            "  --shock on|off   override the scene's shock propagation setting\n"
            "  --cache DIR      where .obj assets are cooked, relative to the current directory (default:\n"
            "                   the scene's `cache` line, relative to the scene file; else build/cache)\n"
            "  --record FILE    write a replay (scene text, inputs, hashes per frame) for `crumple replay`\n"
            "  --report DIR     write DIR/index.html, one self-contained page: the animation (DIR/run.png\n"
            "                   unless --apng), stage times, work against capacities, memory, events,\n"
            "                   state hashes, settings; without --every it draws about 150 frames\n");
    cr_run_pictures_usage(out);
}

/* 0 ok, 1 help printed, 2 usage error */
static int parse_options(int argc, char **argv, run_options *o) {
    memset(o, 0, sizeof *o);
    o->frames = -1;
    o->shock = -1;
    o->pictures = cr_run_pictures_default_options();
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        int pr;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 1;
        } else if (strcmp(a, "--frames") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "crumple run: --frames needs a number\n");
                return 2;
            }
            char *end = NULL;
            long v = strtol(argv[++i], &end, 10);
            if (end == argv[i] || *end != '\0' || v < 0 || v > 10000000) {
                fprintf(stderr, "crumple run: --frames '%s' is not a number in 0..10000000\n", argv[i]);
                return 2;
            }
            o->frames = (int32_t)v;
        } else if (strcmp(a, "--json") == 0) {
            o->json = true;
        } else if (strcmp(a, "--memory") == 0) {
            o->memory = true;
        } else if (strcmp(a, "--shock") == 0) {
            const char *v = i + 1 < argc ? argv[++i] : "";
            if (strcmp(v, "on") != 0 && strcmp(v, "off") != 0) {
                fprintf(stderr, "crumple run: --shock needs on or off\n");
                return 2;
            }
            o->shock = strcmp(v, "on") == 0;
        } else if (strcmp(a, "--cache") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "crumple run: --cache needs a folder\n");
                return 2;
            }
            o->cache = argv[++i];
        } else if (strcmp(a, "--report") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "crumple run: --report needs a folder\n");
                return 2;
            }
            o->report = argv[++i];
        } else if (strcmp(a, "--record") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "crumple run: --record needs a file name\n");
                return 2;
            }
            o->record = argv[++i];
        } else if ((pr = cr_run_pictures_option(&o->pictures, argc, argv, &i)) != 0) {
            if (pr < 0) return 2;
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "crumple run: unknown option '%s'\n", a);
            usage(stderr);
            return 2;
        } else if (o->scene == NULL) {
            o->scene = a;
        } else {
            fprintf(stderr, "crumple run: more than one scene ('%s' and '%s')\n", o->scene, a);
            return 2;
        }
    }
    if (o->scene == NULL) {
        fprintf(stderr, "crumple run: no scene file given\n");
        usage(stderr);
        return 2;
    }
    if (cr_run_pictures_check(&o->pictures)) return 2;
    if (o->record != NULL && o->shock >= 0) {
        /* a replay rebuilds its world from the scene text alone */
        fprintf(stderr, "crumple run: --record records the scene as written; drop --shock or edit the scene\n");
        return 2;
    }
    return 0;
}

/* Per-frame outputs, after frame `frame` was stepped. Replay recording
 * (issue 6) and pictures (issue 7) add their call here. 0 ok, else -1 after
 * printing the reason. */
/* cr_scene_run's per-frame hook */
static int frame_outputs(void *user, cr_scene *s, cr_world *w, const cr_scene_frame *fr) {
    const run_options *o = user;
    if (o->rec != NULL) cr_replay_add_frame(o->rec, w, s->frame_inputs, (uint32_t)arrlen(s->frame_inputs));
    if (o->rep != NULL && cr_run_report_frame(o->rep, s, w, fr)) return 1;
    return cr_run_pictures_frame(o->pics, s, w, fr->frame) ? 1 : 0;
}

static void json_string(FILE *out, const char *s) {
    fputc('"', out);
    for (; *s; ++s) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(out, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(out, "\\u%04x", ch);
        else
            fputc(ch, out);
    }
    fputc('"', out);
}

static void json_number(FILE *out, double v) {
    if (isfinite(v))
        fprintf(out, "%.9g", v);
    else
        fputs("null", out);
}

static void json_reals(FILE *out, const cr_real *v, int n) {
    fputc('[', out);
    for (int i = 0; i < n; ++i) {
        if (i) fputc(',', out);
        json_number(out, cr_to_double(v[i]));
    }
    fputc(']', out);
}

/* the scene's rays and overlaps with their hits (docs/scene-format.md "Queries") */
static void write_queries_json(FILE *out, const cr_scene *s, const cr_world *w) {
    if (arrlen(s->queries) == 0) return;
    fprintf(out, ",\n  \"queries\": [");
    for (ptrdiff_t i = 0; i < arrlen(s->queries); ++i) {
        const cr_scene_query *q = &s->queries[i];
        fprintf(out, "%s\n    {\"name\": ", i ? "," : "");
        json_string(out, q->name);
        fprintf(out, ", \"kind\": \"%s\", \"shape\": \"%s\", \"frame\": %d, \"asked\": %s, \"hits\": [", cr_scene_query_keyword(q),
                cr_scene_query_shape(q), (int)q->frame, q->asked ? "true" : "false");
        for (ptrdiff_t k = 0; k < arrlen(q->hits); ++k) {
            const cr_scene_query_hit *h = &q->hits[k];
            char name[CR_SCENE_NAME_MAX + 32];
            cr_scene_hit_name(s, w, h, name, sizeof name);
            fprintf(out, "%s{\"body\": ", k ? ", " : "");
            json_string(out, name);
            if (q->kind <= CR_SCENE_QUERY_RAY_ALL) {
                fprintf(out, ", \"point\": ");
                json_reals(out, &h->point.x, 3);
                fprintf(out, ", \"normal\": ");
                json_reals(out, &h->normal.x, 3);
                fprintf(out, ", \"fraction\": ");
                json_number(out, cr_to_double(h->fraction));
                if (h->triangle != UINT32_MAX) fprintf(out, ", \"triangle\": %u", h->triangle);
            }
            fputc('}', out);
        }
        fprintf(out, "]}");
    }
    fprintf(out, "\n  ]");
}

typedef struct json_bodies {
    FILE *out;
    const cr_scene *s;
    const cr_world *w;
    int first;
} json_bodies;

/* one entry of "bodies" (cr_run_each_body's callback); a piece also names its parent */
static void json_body(void *user, const char *name, cr_body_id id, int32_t parent, int32_t piece) {
    json_bodies *jb = user;
    FILE *out = jb->out;
    cr_transform t = cr_body_get_transform(jb->w, id);
    cr_vec3 v = cr_body_get_linear_velocity(jb->w, id), av = cr_body_get_angular_velocity(jb->w, id);
    fprintf(out, "%s\n    {\"name\": ", jb->first ? "" : ",");
    jb->first = 0;
    json_string(out, name);
    if (piece >= 0) {
        fprintf(out, ", \"piece_of\": ");
        json_string(out, jb->s->bodies[parent].name);
        fprintf(out, ", \"piece\": %d", (int)piece);
    }
    fprintf(out, ", \"position\": ");
    json_reals(out, &t.p.x, 3);
    fprintf(out, ", \"orientation\": ");
    json_reals(out, &t.q.x, 4);
    fprintf(out, ", \"linear_velocity\": ");
    json_reals(out, &v.x, 3);
    fprintf(out, ", \"angular_velocity\": ");
    json_reals(out, &av.x, 3);
    cr_run_damage dmg = cr_run_body_damage(jb->w, id, 0, UINT32_MAX);
    fprintf(out, ", \"damage\": {\"dents\": %u, \"deepest\": ", dmg.dents);
    json_number(out, dmg.deepest);
    fprintf(out, ", \"moved_vertices\": %u}}", dmg.moved);
}

void cr_run_write_json(FILE *out, const cr_scene *s, const cr_world *w, const cr_run_stats *rs) {
    cr_memory_stats m = cr_world_memory_stats(w);
    fprintf(out, "{\n  \"scene\": ");
    json_string(out, s->path);
    fprintf(out, ",\n  \"version\": ");
    json_string(out, cr_version_string());
    fprintf(out, ",\n  \"mode\": \"%s\",\n  \"frames\": %d,\n  \"dt\": ", CR_MODE_NAME, (int)rs->frames);
    json_number(out, cr_to_double(s->dt));
    fprintf(out, ",\n  \"state_hash\": \"%016llx\",\n", (unsigned long long)cr_world_state_hash(w));
    fprintf(out, "  \"memory\": {\"capacity\": %zu, \"used\": %zu, \"high_water\": %zu, \"scratch_capacity\": %zu, "
                 "\"scratch_high_water\": %zu},\n",
            m.capacity, m.used, m.high_water, m.scratch_capacity, m.scratch_high_water);
    fprintf(out, "  \"step_ms\": {\"mean\": ");
    json_number(out, rs->frames ? rs->step_ms_total / rs->frames : 0.0);
    fprintf(out, ", \"max\": ");
    json_number(out, rs->step_ms_max);
    fprintf(out, "},\n  \"stats\": {");
    for (int k = 0; k < CR_STAGE_COUNT; ++k) {
        fprintf(out, "%s\n    \"%s\": {\"work\": %llu, \"max_work\": %u, \"overflow\": %llu, \"time_ms\": ", k ? "," : "",
                cr_stage_name((cr_stage)k), (unsigned long long)rs->total[k].work, rs->max_work[k],
                (unsigned long long)rs->total[k].overflow);
        json_number(out, (double)rs->total[k].time_ns / 1e6);
        fputc('}', out);
    }
    fprintf(out, "\n  },\n  \"bodies\": [");
    json_bodies jb = {out, s, w, 1};
    cr_run_each_body(s, w, json_body, &jb);
    fprintf(out, "%s],\n  \"fractures\": [", jb.first ? "" : "\n  ");
    int first = 1;
    for (ptrdiff_t i = 0; i < arrlen(s->bodies); ++i) {
        cr_run_fracture f;
        if (!cr_run_fracture_of(s, w, (uint32_t)i, &f)) continue;
        fprintf(out, "%s\n    {\"body\": ", first ? "" : ",");
        first = 0;
        json_string(out, s->bodies[i].name);
        char fields[256];
        cr_run_fracture_json_fields(fields, sizeof fields, &f);
        fprintf(out, ", %s}", fields);
    }
    fprintf(out, "%s]", first ? "" : "\n  ");
    write_queries_json(out, s, w);
    fprintf(out, "\n}\n");
}

/* a line per scene query: what it found first (rays: where), and how many */
static void print_queries(FILE *out, const cr_scene *s, const cr_world *w) {
    for (ptrdiff_t i = 0; i < arrlen(s->queries); ++i) {
        const cr_scene_query *q = &s->queries[i];
        fprintf(out, "%-12s %s at frame %d: ", cr_scene_query_keyword(q), q->name, (int)q->frame);
        if (!q->asked) {
            fprintf(out, "not asked (the run ended before it)\n");
            continue;
        }
        ptrdiff_t n = arrlen(q->hits);
        if (n == 0) {
            fprintf(out, "no hit\n");
            continue;
        }
        char name[CR_SCENE_NAME_MAX + 32];
        cr_scene_hit_name(s, w, &q->hits[0], name, sizeof name);
        if (q->kind <= CR_SCENE_QUERY_RAY_ALL)
            fprintf(out, "%s at (%.4f, %.4f, %.4f), fraction %.6f", name, cr_to_double(q->hits[0].point.x),
                   cr_to_double(q->hits[0].point.y), cr_to_double(q->hits[0].point.z), cr_to_double(q->hits[0].fraction));
        else
            fprintf(out, "%s", name);
        if (n > 1) fprintf(out, " and %d more", (int)(n - 1));
        fprintf(out, "\n");
    }
}

/* one "damage" line of the summary (cr_run_each_body's callback), for a body its damage moved */
typedef struct summary_out {
    FILE *out;
    const cr_world *w;
} summary_out;

static void summary_damage(void *user, const char *name, cr_body_id id, int32_t parent, int32_t piece) {
    const summary_out *so = user;
    (void)parent, (void)piece;
    cr_run_damage d = cr_run_body_damage(so->w, id, 0, UINT32_MAX);
    if (d.moved > 0 || d.dents > 0)
        fprintf(so->out, "damage       %s: %u dent%s, deepest vertex move %.2f mm, %u vertices moved\n", name, d.dents,
               d.dents == 1 ? "" : "s", d.deepest * 1000.0, d.moved);
}

void cr_run_write_summary(FILE *out, const cr_scene *s, const cr_world *w, const cr_run_stats *rs) {
    cr_memory_stats m = cr_world_memory_stats(w);
    cr_world_stats st = cr_world_get_stats(w);
    fprintf(out, "scene        %s (%s)\n", s->path, CR_MODE_NAME);
    fprintf(out, "frames       %d at dt %.6g s (%.3f ms total, %.4f ms/step mean, %.4f max)\n", (int)rs->frames,
           cr_to_double(s->dt), rs->step_ms_total, rs->frames ? rs->step_ms_total / rs->frames : 0.0, rs->step_ms_max);
    fprintf(out, "bodies       %u\n", st.body_count);
    uint32_t nsoft = cr_world_get_soft_ids(w, NULL, 0);
    if (nsoft > 0) { /* soft bodies (issue 16): how many, and how many the soft stage stepped and kept waiting last step */
        fprintf(out, "soft bodies  %u (last step: %u stepped, %u waiting; %u soft contacts)\n", nsoft, st.spring.done, st.spring.waiting,
               st.spring.shrunk);
    }
    fprintf(out, "memory       used %zu B, high-water %zu B, capacity %zu B\n", m.used, m.high_water, m.capacity);
    for (int k = 0; k < CR_STAGE_COUNT; ++k)
        if (rs->total[k].overflow)
            fprintf(out, "overflow     %s: %llu items did not fit a capacity\n", cr_stage_name((cr_stage)k),
                   (unsigned long long)rs->total[k].overflow);
    char line[CR_SCENE_NAME_MAX + 160];
    for (ptrdiff_t i = 0; i < arrlen(s->bodies); ++i)
        if (cr_run_fracture_line(line, sizeof line, s, w, (uint32_t)i)) fprintf(out, "fracture     %s\n", line);
    summary_out so = {out, w};
    cr_run_each_body(s, w, summary_damage, &so);
    print_queries(out, s, w);
    fprintf(out, "state hash   %016llx\n", (unsigned long long)cr_world_state_hash(w));
}

/* --memory: every region of the scene's block, largest first is left to the
 * reader; block order keeps the report comparable between scenes. */
static int cmp_section_bytes(const void *x, const void *y) {
    const cr_asset_section_bytes *a = x, *b = y;
    uint64_t sa = a->file_bytes + a->block_bytes, sb = b->file_bytes + b->block_bytes;
    return sa < sb ? 1 : sa > sb ? -1 : strcmp(a->tag, b->tag);
}

/* One asset's resident bytes (its file, its load block, its prescored pieces'
 * load blocks) with its three largest sections and who reads them; returns the total. */
static uint64_t print_asset_resident(const cr_scene_asset *a) {
    cr_asset_section_bytes sec[48];
    uint32_t n = cr_asset_resident_report(a->bytes_, a->size_, sec, 48);
    if (n > 48) n = 48;
    uint64_t file = a->size_, block = cr_asset_memory_size(a->bytes_, a->size_), pieces = 0;
    for (uint32_t k = 0; a->view_ != NULL && k < a->view_->piece_count; ++k) {
        const void *pb;
        size_t ps;
        if (cr_asset_piece_bytes(a->view_, a->bytes_, a->size_, k, &pb, &ps) == CR_OK) pieces += cr_asset_memory_size(pb, ps);
    }
    printf("%12llu  asset %s: file %llu, load block %llu", (unsigned long long)(file + block + pieces), a->name,
           (unsigned long long)file, (unsigned long long)block);
    if (pieces) printf(", its pieces' load blocks %llu", (unsigned long long)pieces);
    printf("\n");
    qsort(sec, n, sizeof sec[0], cmp_section_bytes);
    for (uint32_t i = 0; i < n && i < 3; ++i)
        printf("%12s  %12llu  %s %s (read by %s)\n", "", (unsigned long long)(sec[i].file_bytes + sec[i].block_bytes), sec[i].tag,
               sec[i].what, sec[i].read_by);
    return file + block + pieces;
}

static void print_memory(const cr_scene *s, const cr_world *w) {
    cr_world_def def = cr_world_get_def(w);
    cr_memory_region r[CR_MEMORY_REGION_MAX];
    uint32_t n = cr_world_memory_report(&def, r, CR_MEMORY_REGION_MAX);
    size_t size = cr_world_memory_size(&def);
    printf("scene        %s (%s)\n", s->path, CR_MODE_NAME);
    printf("block        %zu bytes (%.3f MiB)\n", size, size / 1048576.0);
    for (uint32_t i = 0; i < n && i < CR_MEMORY_REGION_MAX; ++i)
        printf("%12llu  %-72s %s\n", (unsigned long long)r[i].bytes, r[i].name, r[i].field);
    /* what the game keeps beside the block: the cooked assets the world reads in place */
    uint64_t assets = 0;
    printf("assets       resident beside the block (the world reads them in place)\n");
    for (ptrdiff_t i = 0; i < arrlen(s->assets); ++i) assets += print_asset_resident(&s->assets[i]);
    printf("total        %llu bytes (%.3f MiB): block %.3f MiB + assets %.3f MiB\n", (unsigned long long)(size + assets),
           (double)(size + assets) / 1048576.0, size / 1048576.0, (double)assets / 1048576.0);
}

static bool argv_has(int argc, char **argv, const char *opt) {
    for (int i = 1; i < argc; ++i)
        if (strcmp(argv[i], opt) == 0) return true;
    return false;
}

int cr_cmd_run(int argc, char **argv) {
    run_options o;
    int rc = parse_options(argc, argv, &o);
    if (rc) return rc == 1 ? 0 : 2;
    cr_scene *s = NULL;
    cr_scene_error err;
    uint8_t *text = NULL; /* --record embeds exactly the text that was parsed */
    size_t text_size = 0;
    if (o.record != NULL) {
        crp_status ps = crp_read_file(o.scene, &text, &text_size);
        if (ps != CRP_OK) {
            fprintf(stderr, "%s: cannot read the scene: %s\n", o.scene, crp_status_message(ps));
            return 1;
        }
    }
    if (o.record ? cr_scene_parse((const char *)text, text_size, o.scene, &s, &err) : cr_scene_load(o.scene, &s, &err)) {
        cr_scene_error_print(stderr, &err);
        crp_free(text);
        return 1;
    }
    if (o.shock >= 0) s->def.shock_propagation = o.shock == 1;
    if (o.cache != NULL) snprintf(s->cache_dir, sizeof s->cache_dir, "%s", o.cache);
    cr_world *w = NULL;
    if (cr_scene_build(s, &w, &err)) {
        cr_scene_error_print(stderr, &err);
        cr_scene_free(s);
        crp_free(text);
        return 1;
    }
    if (o.memory) {
        print_memory(s, w);
        cr_cli_world_free(w);
        cr_scene_free(s);
        crp_free(text);
        return 0;
    }
    cr_replay rec;
    if (o.record != NULL) {
        cr_replay_init(&rec, o.scene, (const char *)text, text_size, w, s->dt);
        o.rec = &rec;
    }
    crp_free(text);
    int32_t frames = o.frames >= 0 ? o.frames : s->frames;
    cr_run_stats rs;
    memset(&rs, 0, sizeof rs);
    int status = 0;
    cr_run_pictures pics;
    o.pics = &pics;
    cr_run_report rep;
    memset(&rep, 0, sizeof rep);
    if (o.report != NULL) {
        if (o.pictures.apng_path == NULL) {
            snprintf(o.report_apng, sizeof o.report_apng, "%s/run.png", o.report);
            o.pictures.apng_path = o.report_apng;
        }
        /* about 150 pictures whatever the length: enough to watch, small enough to embed */
        if (!argv_has(argc, argv, "--every") && frames > 150) o.pictures.every = (frames + 149) / 150;
        if (cr_run_report_begin(&rep, o.report, w)) status = 1;
        o.rep = &rep;
    }
    if (status == 0 && cr_run_pictures_begin(&pics, &o.pictures, s, w, frames)) status = 1;
    if (status == 0) {
        cr_scene_loop loop = {.from = 0, .to = frames, .stats = &rs, .each = frame_outputs, .user = &o};
        int rc = cr_scene_run(s, w, &loop, &err);
        if (rc < 0) cr_scene_error_print(stderr, &err);
        if (rc) status = 1;
    }
    if (status == 0 && o.rec != NULL) {
        cr_replay_error rerr;
        if (cr_replay_save(o.rec, o.record, &rerr) != CR_REPLAY_OK) {
            fprintf(stderr, "%s: %s\n", o.record, rerr.message);
            status = 1;
        }
    }
    if (o.rec != NULL) cr_replay_free(o.rec);
    if (status == 0) {
        if (o.json)
            cr_run_write_json(stdout, s, w, &rs);
        else
            cr_run_write_summary(stdout, s, w, &rs);
    }
    if (status == 0) {
        if (cr_run_pictures_finish(&pics, !o.json)) status = 1;
    } else {
        cr_run_pictures_free(&pics);
    }
    if (status == 0 && o.rep != NULL && cr_run_report_finish(o.rep, s, w, o.pictures.apng_path, !o.json)) status = 1;
    cr_run_report_free(&rep);
    cr_cli_world_free(w);
    cr_scene_free(s);
    return status;
}
