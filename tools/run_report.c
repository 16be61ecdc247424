/* run_report.c — the HTML run report (run_report.h).
 *
 * The page is written into memory, then to DIR/index.html atomically. Charts
 * are plain SVG drawn here (no script, no library), so the page opens
 * anywhere, offline, and the same run gives the same page except for the
 * times. Coordinates are printed with two decimals from the numbers that the
 * JSON block prints with six, which is what the report test checks.
 */
#include "run_report.h"
#include "platform.h"
#include "stb_ds.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* chart geometry, in SVG user units */
#define CW 900.0  /* whole width */
#define CL 60.0   /* left margin (axis labels) */
#define CR_ 150.0 /* right margin (legend) */
#define CT 10.0   /* top margin */
#define CH 220.0  /* plot height */

typedef struct page {
    char *text; /* stb_ds */
} page;

static void out(page *p, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void out(page *p, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char small[512];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof small) {
        memcpy(arraddnptr(p->text, n), small, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (big == NULL) return;
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    memcpy(arraddnptr(p->text, n), big, (size_t)n);
    free(big);
}

static void out_escaped(page *p, const char *s) {
    for (; *s; ++s) {
        if (*s == '<') out(p, "&lt;");
        else if (*s == '>') out(p, "&gt;");
        else if (*s == '&') out(p, "&amp;");
        else if (*s == '"') out(p, "&quot;");
        else arrput(p->text, *s);
    }
}

static void out_json_string(page *p, const char *s) {
    arrput(p->text, '"');
    for (; *s; ++s) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') out(p, "\\%c", c);
        else if (c < 0x20) out(p, "\\u%04x", c);
        else if (c == '<') out(p, "\\u003c"); /* never closes the script element */
        else arrput(p->text, (char)c);
    }
    arrput(p->text, '"');
}

static void out_base64(page *p, const uint8_t *d, size_t n) {
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)d[i] << 16 | (i + 1 < n ? (uint32_t)d[i + 1] << 8 : 0) | (i + 2 < n ? d[i + 2] : 0);
        char q[4] = {tab[v >> 18 & 63], tab[v >> 12 & 63], i + 1 < n ? tab[v >> 6 & 63] : '=', i + 2 < n ? tab[v & 63] : '='};
        memcpy(arraddnptr(p->text, 4), q, 4);
    }
}

int cr_run_report_begin(cr_run_report *r, const char *dir, const cr_world *w) {
    memset(r, 0, sizeof *r);
    r->dir = dir;
    r->initial_hash = cr_world_state_hash(w);
    crp_status st = crp_make_dirs(dir);
    if (st != CRP_OK) {
        fprintf(stderr, "%s: cannot create folder: %s\n", dir, crp_status_message(st));
        return -1;
    }
    return 0;
}

static int32_t scene_body_of(const cr_scene *s, const cr_world *w, cr_body_id id) {
    uint64_t ud = cr_body_get_user_data(w, id);
    return ud >= 1 && ud <= (uint64_t)arrlen(s->bodies) ? (int32_t)(ud - 1) : -1;
}

int cr_run_report_frame(cr_run_report *r, const cr_scene *s, const cr_world *w, const cr_scene_frame *fr) {
    cr_report_frame f;
    memset(&f, 0, sizeof f);
    const cr_world_stats *st = &fr->stats;
    for (int k = 0; k < CR_STAGE_COUNT; ++k) {
        f.stage_ms[k] = (double)st->stage[k].time_ns / 1e6;
        f.work[k] = st->stage[k].work;
        f.overflow[k] = st->stage[k].overflow;
    }
    f.pairs = st->pairs, f.manifolds = st->manifolds, f.points = st->points, f.bodies = st->body_count;
    f.impacts = cr_world_get_events(w, NULL, 0);
    cr_dent_event ev[64];
    uint32_t nd = cr_world_get_dent_events(w, ev, 64);
    f.dents = nd;
    for (uint32_t i = 0; i < nd && i < 64; ++i) {
        cr_report_dent d = {fr->frame, scene_body_of(s, w, ev[i].body), cr_to_double(ev[i].depth),
                            cr_run_body_damage(w, ev[i].body, ev[i].first_vertex, ev[i].last_vertex).deepest,
                            ev[i].first_vertex, ev[i].last_vertex};
        arrput(r->dents, d);
    }
    cr_memory_stats m = cr_world_memory_stats(w);
    f.used = m.used, f.high_water = m.high_water;
    f.hash = cr_world_state_hash(w);
    arrput(r->frames, f);
    return 0;
}

static const uint32_t stage_colour[CR_STAGE_COUNT] = {0x8c8c8c, 0x4e79a7, 0xf28e2b, 0xe15759, 0x76b7b2,
                                                     0x59a14f, 0xedc948, 0xb07aa1, 0xff9da7, 0x9c755f};

static double plot_w(void) { return CW - CL - CR_; }
static double x_of(size_t f, size_t n) { return CL + ((double)f + 0.5) * plot_w() / (double)(n ? n : 1); }
static double y_of(double v, double vmax) { return CT + CH - (vmax > 0 ? v / vmax : 0) * CH; }

static void axis(page *p, double vmax, const char *unit) {
    out(p, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#444\"/>\n", CL, CT, CL, CT + CH);
    out(p, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#444\"/>\n", CL, CT + CH, CL + plot_w(), CT + CH);
    out(p, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\" font-size=\"11\">%.4g %s</text>\n", CL - 4, CT + 8, vmax, unit);
    out(p, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\" font-size=\"11\">0</text>\n", CL - 4, CT + CH);
}

static void stage_chart(page *p, const cr_run_report *r) {
    size_t n = (size_t)arrlen(r->frames);
    double vmax = 0;
    for (size_t f = 0; f < n; ++f) {
        double t = 0;
        for (int k = 0; k < CR_STAGE_COUNT; ++k) t += r->frames[f].stage_ms[k];
        if (t > vmax) vmax = t;
    }
    if (vmax <= 0) vmax = 1;
    out(p, "<svg id=\"stage-times\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
           "viewBox=\"0 0 %.0f %.0f\" data-max-ms=\"%.6f\" data-frames=\"%zu\">\n",
        CW, CT + CH + 30, CW, CT + CH + 30, vmax, n);
    axis(p, vmax, "ms");
    double *below = calloc(n ? n : 1, sizeof *below);
    for (int k = 0; k < CR_STAGE_COUNT && below != NULL; ++k) {
        /* tops left to right, then the stage's bottom right to left: a stacked area */
        out(p, "<polygon class=\"stage\" data-stage=\"%s\" fill=\"#%06x\" points=\"", cr_stage_name((cr_stage)k),
            stage_colour[k]);
        for (size_t f = 0; f < n; ++f)
            out(p, "%.2f,%.2f ", x_of(f, n), y_of(below[f] + r->frames[f].stage_ms[k], vmax));
        for (size_t f = n; f-- > 0;) out(p, "%.2f,%.2f ", x_of(f, n), y_of(below[f], vmax));
        out(p, "\"><title>%s</title></polygon>\n", cr_stage_name((cr_stage)k));
        for (size_t f = 0; f < n; ++f) below[f] += r->frames[f].stage_ms[k];
        out(p, "<rect x=\"%.2f\" y=\"%.2f\" width=\"10\" height=\"10\" fill=\"#%06x\"/>"
               "<text x=\"%.2f\" y=\"%.2f\" font-size=\"11\">%s</text>\n",
            CW - CR_ + 10, CT + 14.0 * k, stage_colour[k], CW - CR_ + 24, CT + 14.0 * k + 9, cr_stage_name((cr_stage)k));
    }
    free(below);
    out(p, "<text x=\"%.2f\" y=\"%.2f\" font-size=\"11\">frame 1</text>"
           "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\" font-size=\"11\">frame %zu</text>\n",
        CL, CT + CH + 16, CL + plot_w(), CT + CH + 16, n);
    out(p, "</svg>\n");
}

static void memory_chart(page *p, const cr_run_report *r, uint64_t capacity) {
    size_t n = (size_t)arrlen(r->frames);
    double vmax = (double)capacity;
    out(p, "<svg id=\"memory\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
           "viewBox=\"0 0 %.0f %.0f\" data-capacity=\"%llu\">\n",
        CW, CT + CH + 30, CW, CT + CH + 30, (unsigned long long)capacity);
    axis(p, vmax / 1048576.0, "MiB");
    const char *names[2] = {"used", "high_water"};
    const uint32_t colours[2] = {0x4e79a7, 0xe15759};
    for (int k = 0; k < 2; ++k) {
        out(p, "<polyline class=\"memory\" data-series=\"%s\" fill=\"none\" stroke=\"#%06x\" stroke-width=\"1.5\" points=\"",
            names[k], colours[k]);
        for (size_t f = 0; f < n; ++f)
            out(p, "%.2f,%.2f ", x_of(f, n), y_of((double)(k ? r->frames[f].high_water : r->frames[f].used), vmax));
        out(p, "\"/>\n<rect x=\"%.2f\" y=\"%.2f\" width=\"10\" height=\"10\" fill=\"#%06x\"/>"
               "<text x=\"%.2f\" y=\"%.2f\" font-size=\"11\">%s</text>\n",
            CW - CR_ + 10, CT + 14.0 * k, colours[k], CW - CR_ + 24, CT + 14.0 * k + 9, k ? "high water" : "used");
    }
    out(p, "</svg>\n");
}

static void events_chart(page *p, const cr_run_report *r) {
    size_t n = (size_t)arrlen(r->frames);
    uint32_t most = 1;
    for (size_t f = 0; f < n; ++f)
        if (r->frames[f].impacts > most) most = r->frames[f].impacts;
    out(p, "<svg id=\"events\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
           "viewBox=\"0 0 %.0f %.0f\" data-max-impacts=\"%u\">\n",
        CW, CT + CH + 30, CW, CT + CH + 30, most);
    axis(p, (double)most, "impacts");
    double bar = plot_w() / (double)(n ? n : 1);
    for (size_t f = 0; f < n; ++f) {
        const cr_report_frame *fr = &r->frames[f];
        if (fr->impacts > 0)
            out(p, "<rect class=\"impacts\" data-frame=\"%zu\" data-count=\"%u\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
                   "height=\"%.2f\" fill=\"#4e79a7\"/>\n",
                f, fr->impacts, x_of(f, n) - 0.4 * bar, y_of(fr->impacts, most), 0.8 * bar, CT + CH - y_of(fr->impacts, most));
        if (fr->dents > 0)
            out(p, "<circle class=\"dents\" data-frame=\"%zu\" data-count=\"%u\" cx=\"%.2f\" cy=\"%.2f\" r=\"5\" "
                   "fill=\"#e15759\"><title>frame %zu: %u dent%s</title></circle>\n",
                f, fr->dents, x_of(f, n), CT + 8, f + 1, fr->dents, fr->dents == 1 ? "" : "s");
    }
    out(p, "<rect x=\"%.2f\" y=\"%.2f\" width=\"10\" height=\"10\" fill=\"#4e79a7\"/><text x=\"%.2f\" y=\"%.2f\" "
           "font-size=\"11\">impacts</text>\n<circle cx=\"%.2f\" cy=\"%.2f\" r=\"5\" fill=\"#e15759\"/><text x=\"%.2f\" "
           "y=\"%.2f\" font-size=\"11\">dents</text>\n</svg>\n",
        CW - CR_ + 10, CT, CW - CR_ + 24, CT + 9, CW - CR_ + 15, CT + 19, CW - CR_ + 24, CT + 23);
}

/* Work counted per step against the def field that caps it. */
typedef struct cap_row {
    const char *name, *field;
    uint32_t most, cap;
} cap_row;

static uint32_t caps(const cr_run_report *r, const cr_world_def *d, cap_row *rows) {
    size_t n = (size_t)arrlen(r->frames);
    cap_row c[6] = {{"bodies", "body_capacity", 0, d->body_capacity},
                    {"broadphase pairs", "pair_capacity", 0, d->pair_capacity},
                    {"contact manifolds", "contact_capacity", 0, d->contact_capacity},
                    {"interference points", "point_capacity", 0, d->point_capacity},
                    {"impact events", "event_capacity", 0, d->event_capacity},
                    {"dents", "damage.dent.dents_per_step", 0, d->damage.dent.dents_per_step}};
    for (size_t f = 0; f < n; ++f) {
        const cr_report_frame *fr = &r->frames[f];
        uint32_t v[6] = {fr->bodies, fr->pairs, fr->manifolds, fr->points, fr->impacts, fr->dents};
        for (int k = 0; k < 6; ++k)
            if (v[k] > c[k].most) c[k].most = v[k];
    }
    memcpy(rows, c, sizeof c);
    return 6;
}

static void settings(page *p, const cr_world_def *d) {
    out(p, "<table id=\"settings\"><tr><th>field</th><th>value</th></tr>\n");
#define ROW_U(name) out(p, "<tr><td>%s</td><td>%u</td></tr>\n", #name, (unsigned)d->name)
#define ROW_R(name) out(p, "<tr><td>%s</td><td>%.6g</td></tr>\n", #name, cr_to_double(d->name))
    out(p, "<tr><td>gravity</td><td>%.6g %.6g %.6g</td></tr>\n", cr_to_double(d->gravity.x), cr_to_double(d->gravity.y),
        cr_to_double(d->gravity.z));
    ROW_U(body_capacity);
    ROW_U(joint_capacity);
    ROW_U(pair_capacity);
    ROW_U(points_per_pair);
    ROW_U(point_capacity);
    ROW_U(contact_capacity);
    ROW_U(event_capacity);
    ROW_U(asset_capacity);
    ROW_U(scratch_bytes);
    ROW_U(collision_passes);
    ROW_U(contact_passes);
    ROW_U(level_iterations);
    ROW_U(joint_iterations);
    ROW_U(shock_propagation);
    ROW_R(broadphase_cell);
    ROW_R(event_min_speed);
    ROW_U(sleep);
    ROW_R(sleep_time);
    ROW_R(sleep_linear);
    ROW_R(sleep_angular);
    ROW_U(damage.surface_bytes);
    ROW_U(damage.command_capacity);
    ROW_U(damage.dent.body_capacity);
    ROW_U(damage.dent.dents_per_step);
    ROW_U(damage.dent.work_per_step);
    ROW_U(damage.dent.queue_capacity);
    ROW_U(damage.dent.max_cells);
    ROW_U(damage.example.body_capacity);
    ROW_U(damage.custom.body_capacity);
#undef ROW_U
#undef ROW_R
    out(p, "</table>\n");
}

static void json_block(page *p, const cr_run_report *r, const cr_scene *s, const cr_world *w, const cap_row *rows,
                       uint32_t nrows) {
    size_t n = (size_t)arrlen(r->frames);
    out(p, "<script type=\"application/json\" id=\"crumple-run\">\n{\"scene\": ");
    out_json_string(p, s->path);
    out(p, ", \"mode\": \"%s\", \"frames\": %zu, \"dt\": %.9g, \"state_hash\": \"%016llx\", \"initial_hash\": \"%016llx\",\n",
        CR_MODE_NAME, n, cr_to_double(s->dt), (unsigned long long)cr_world_state_hash(w),
        (unsigned long long)r->initial_hash);
    out(p, "\"memory_capacity\": %zu,\n\"stages\": [", cr_world_memory_stats(w).capacity);
    for (int k = 0; k < CR_STAGE_COUNT; ++k) out(p, "%s\"%s\"", k ? ", " : "", cr_stage_name((cr_stage)k));
    out(p, "],\n\"caps\": [");
    for (uint32_t i = 0; i < nrows; ++i) {
        out(p, "%s{\"name\": \"%s\", \"field\": \"%s\", \"most\": %u, \"cap\": %u}", i ? ", " : "", rows[i].name,
            rows[i].field, rows[i].most, rows[i].cap);
    }
    out(p, "],\n\"dents\": [");
    for (ptrdiff_t i = 0; i < arrlen(r->dents); ++i) {
        const cr_report_dent *d = &r->dents[i];
        out(p, "%s{\"frame\": %d, \"body\": ", i ? ", " : "", (int)d->frame);
        out_json_string(p, d->body >= 0 ? s->bodies[d->body].name : "");
        out(p, ", \"deepest_vertex_move\": %.9g, \"dent_distance\": %.9g, \"first_vertex\": %u, \"last_vertex\": %u}",
            d->deepest, d->dent_distance, d->first_vertex, d->last_vertex);
    }
    out(p, "],\n\"fractures\": [");
    int first = 1;
    for (ptrdiff_t i = 0; i < arrlen(s->bodies); ++i) {
        cr_run_fracture f;
        if (!cr_run_fracture_of(s, w, (uint32_t)i, &f)) continue;
        out(p, "%s{\"body\": ", first ? "" : ", ");
        first = 0;
        out_json_string(p, s->bodies[i].name);
        char fields[256];
        cr_run_fracture_json_fields(fields, sizeof fields, &f);
        out(p, ", %s}", fields);
    }
    out(p, "],\n\"per_frame\": [\n");
    for (size_t f = 0; f < n; ++f) {
        const cr_report_frame *fr = &r->frames[f];
        out(p, "%s{\"ms\": [", f ? ",\n" : "");
        for (int k = 0; k < CR_STAGE_COUNT; ++k) out(p, "%s%.6f", k ? "," : "", fr->stage_ms[k]);
        out(p, "], \"work\": [");
        for (int k = 0; k < CR_STAGE_COUNT; ++k) out(p, "%s%u", k ? "," : "", fr->work[k]);
        out(p, "], \"overflow\": [");
        for (int k = 0; k < CR_STAGE_COUNT; ++k) out(p, "%s%u", k ? "," : "", fr->overflow[k]);
        out(p, "], \"pairs\": %u, \"manifolds\": %u, \"points\": %u, \"bodies\": %u, \"impacts\": %u, \"dents\": %u, "
               "\"used\": %llu, \"high_water\": %llu, \"hash\": \"%016llx\"}",
            fr->pairs, fr->manifolds, fr->points, fr->bodies, fr->impacts, fr->dents, (unsigned long long)fr->used,
            (unsigned long long)fr->high_water, (unsigned long long)fr->hash);
    }
    out(p, "\n]}\n</script>\n");
}

typedef struct damage_rows {
    page *p;
    const cr_world *w;
} damage_rows;

/* a row of the end-of-run damage table (cr_run_each_body's callback), for a body its damage moved, as the summary */
static void damage_row(void *user, const char *name, cr_body_id id, int32_t parent, int32_t piece) {
    damage_rows *dr = user;
    (void)parent, (void)piece;
    cr_run_damage d = cr_run_body_damage(dr->w, id, 0, UINT32_MAX);
    if (d.moved == 0 && d.dents == 0) return;
    out(dr->p, "<tr><td>");
    out_escaped(dr->p, name);
    out(dr->p, "</td><td>%u</td><td>%.2f</td><td>%u</td></tr>\n", d.dents, d.deepest * 1000.0, d.moved);
}

int cr_run_report_finish(cr_run_report *r, const cr_scene *s, const cr_world *w, const char *apng_path, int print) {
    page p = {NULL};
    size_t n = (size_t)arrlen(r->frames);
    cr_world_def def = cr_world_get_def(w);
    cr_memory_stats m = cr_world_memory_stats(w);
    out(&p, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>crumple run: ");
    out_escaped(&p, s->path);
    out(&p, "</title>\n<style>body{font:14px system-ui,sans-serif;margin:2em;color:#222;max-width:960px}"
            "table{border-collapse:collapse;margin:0.5em 0}td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}"
            "td:first-child,th:first-child{text-align:left}.bar{background:#4e79a7;height:10px}"
            "details{margin:0.5em 0}code{font-size:13px}</style></head><body>\n<h1>crumple run: ");
    out_escaped(&p, s->path);
    out(&p, "</h1>\n<p id=\"summary\">%s, %zu frames at dt %.6g s, state hash <code>%016llx</code>, block %zu bytes "
            "(%.3f MiB), high water %zu bytes.</p>\n",
        cr_version_string(), n, cr_to_double(s->dt), (unsigned long long)cr_world_state_hash(w), m.capacity,
        m.capacity / 1048576.0, m.high_water);

    out(&p, "<h2>The run</h2>\n");
    uint8_t *anim = NULL;
    size_t anim_size = 0;
    if (apng_path != NULL && crp_read_file(apng_path, &anim, &anim_size) == CRP_OK) {
        out(&p, "<img id=\"animation\" alt=\"the run, animated\" src=\"data:image/png;base64,");
        out_base64(&p, anim, anim_size);
        out(&p, "\">\n");
        crp_free(anim);
    } else {
        out(&p, "<p>(no animation)</p>\n");
    }

    out(&p, "<h2>Stage times per frame</h2>\n<p>Wall time of each stage of every step, stacked (not deterministic; "
            "the work counts are).</p>\n");
    stage_chart(&p, r);

    cap_row rows[8];
    uint32_t nrows = caps(r, &def, rows);
    out(&p, "<h2>Work against capacities</h2>\n<table id=\"caps\"><tr><th>per step</th><th>largest</th><th>capacity</th>"
            "<th>def field</th><th>use</th></tr>\n");
    for (uint32_t i = 0; i < nrows; ++i) {
        double use = rows[i].cap ? (double)rows[i].most / rows[i].cap : 0;
        out(&p, "<tr data-name=\"%s\" data-most=\"%u\" data-cap=\"%u\"><td>%s</td><td>%u</td><td>%u</td><td>%s</td>"
                "<td><div class=\"bar\" style=\"width:%.0fpx\"></div>%.0f%%</td></tr>\n",
            rows[i].name, rows[i].most, rows[i].cap, rows[i].name, rows[i].most, rows[i].cap, rows[i].field,
            use > 1 ? 200.0 : 200.0 * use, 100.0 * use);
    }
    out(&p, "</table>\n<table id=\"overflow\"><tr><th>stage</th><th>work, all frames</th><th>overflow, all frames</th></tr>\n");
    for (int k = 0; k < CR_STAGE_COUNT; ++k) {
        uint64_t work = 0, over = 0;
        for (size_t f = 0; f < n; ++f) work += r->frames[f].work[k], over += r->frames[f].overflow[k];
        out(&p, "<tr><td>%s</td><td>%llu</td><td>%llu</td></tr>\n", cr_stage_name((cr_stage)k), (unsigned long long)work,
            (unsigned long long)over);
    }
    out(&p, "</table>\n");

    out(&p, "<h2>Memory</h2>\n");
    memory_chart(&p, r, m.capacity);
    cr_memory_region reg[CR_MEMORY_REGION_MAX];
    uint32_t nreg = cr_world_memory_report(&def, reg, CR_MEMORY_REGION_MAX);
    out(&p, "<table id=\"regions\"><tr><th>region of the block</th><th>bytes</th><th>sized by</th></tr>\n");
    for (uint32_t i = 0; i < nreg && i < CR_MEMORY_REGION_MAX; ++i)
        out(&p, "<tr><td>%s</td><td>%llu</td><td>%s</td></tr>\n", reg[i].name, (unsigned long long)reg[i].bytes,
            reg[i].field);
    out(&p, "</table>\n");

    out(&p, "<h2>Events</h2>\n");
    events_chart(&p, r);
    /* measured moves, as the summary prints them: the dent map's asked-for dent
     * distance (in the JSON block) is deeper than any vertex gets where no
     * vertex sits at the dent's centre */
    out(&p, "<table id=\"dents\"><tr><th>step</th><th>body</th><th>deepest vertex move (mm)</th><th>vertices</th></tr>\n");
    for (ptrdiff_t i = 0; i < arrlen(r->dents); ++i) {
        const cr_report_dent *d = &r->dents[i];
        out(&p, "<tr><td>%d</td><td>", (int)d->frame + 1);
        out_escaped(&p, d->body >= 0 ? s->bodies[d->body].name : "?");
        out(&p, "</td><td>%.2f</td><td>%u..%u</td></tr>\n", d->deepest * 1000.0, d->first_vertex, d->last_vertex);
    }
    out(&p, "</table>\n<table id=\"fractures\"><tr><th>fracture</th></tr>\n");
    char line[CR_SCENE_NAME_MAX + 160];
    for (ptrdiff_t i = 0; i < arrlen(s->bodies); ++i) {
        if (!cr_run_fracture_line(line, sizeof line, s, w, (uint32_t)i)) continue;
        out(&p, "<tr><td>");
        out_escaped(&p, line);
        out(&p, "</td></tr>\n");
    }
    out(&p, "</table>\n<h2>Damage at the end</h2>\n<table id=\"damage\"><tr><th>body</th><th>dents</th>"
            "<th>deepest vertex move (mm)</th><th>vertices moved</th></tr>\n");
    damage_rows rows_at_end = {&p, w};
    cr_run_each_body(s, w, damage_row, &rows_at_end);
    out(&p, "</table>\n");

    out(&p, "<h2>State hashes</h2>\n<details><summary>%zu frames: the trail a replay is checked against</summary>\n"
            "<table id=\"hashes\"><tr><th>frame</th><th>state hash</th></tr>\n<tr><td>0</td><td><code>%016llx</code></td></tr>\n",
        n, (unsigned long long)r->initial_hash);
    for (size_t f = 0; f < n; ++f)
        out(&p, "<tr><td>%zu</td><td><code>%016llx</code></td></tr>\n", f + 1, (unsigned long long)r->frames[f].hash);
    out(&p, "</table></details>\n<h2>World settings</h2>\n");
    settings(&p, &def);
    json_block(&p, r, s, w, rows, nrows);
    out(&p, "</body></html>\n");

    char path[1200];
    snprintf(path, sizeof path, "%s/index.html", r->dir);
    crp_status st = crp_write_file_atomic(path, p.text, (size_t)arrlen(p.text));
    size_t bytes = (size_t)arrlen(p.text);
    arrfree(p.text);
    if (st != CRP_OK) {
        fprintf(stderr, "%s: cannot write the report: %s\n", path, crp_status_message(st));
        return -1;
    }
    if (print) printf("report       %s (%zu bytes)\n", path, bytes);
    return 0;
}

void cr_run_report_free(cr_run_report *r) {
    arrfree(r->frames);
    arrfree(r->dents);
    memset(r, 0, sizeof *r);
}
