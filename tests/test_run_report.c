/* test_run_report.c — `crumple run SCENE --report DIR` (issue 18): the page
 * is self-contained, its SVG charts draw the numbers of its own JSON block,
 * and those numbers are the run's: every per-frame state hash equals the
 * hash of the same scene stepped here independently, and the work-against-
 * capacity table holds the largest per-frame counts and the def's caps. */
#define _POSIX_C_SOURCE 200809L
#include "test_scene_util.h"

#include <math.h>
#include <stdlib.h>
#include <unistd.h>

/* the chart geometry tools/run_report.c draws with */
#define CW 900.0
#define CL 60.0
#define CRM 150.0
#define CT 10.0
#define CH 220.0

static double x_of(size_t f, size_t n) { return CL + ((double)f + 0.5) * (CW - CL - CRM) / (double)n; }
static double y_of(double v, double vmax) { return CT + CH - (vmax > 0 ? v / vmax : 0) * CH; }

static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *t = calloc(1, (size_t)n + 1);
    if (t != NULL && fread(t, 1, (size_t)n, f) != (size_t)n) t[0] = 0;
    fclose(f);
    return t;
}

static int b64(char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* The points of the first polygon/polyline after `from` whose attribute
 * `key` is `value`: n x/y pairs into xs, ys; returns how many were read. */
static size_t points_of(const char *from, const char *key, const char *value, double *xs, double *ys, size_t max) {
    char pat[96];
    snprintf(pat, sizeof pat, "%s=\"%s\"", key, value);
    const char *a = strstr(from, pat);
    if (a == NULL) return 0;
    const char *p = strstr(a, "points=\"");
    if (p == NULL) return 0;
    p += 8;
    size_t n = 0;
    while (n < max && *p != '"') {
        char *end;
        xs[n] = strtod(p, &end);
        if (*end != ',') break;
        ys[n] = strtod(end + 1, &end);
        ++n;
        p = end;
        while (*p == ' ') ++p;
    }
    return n;
}

CR_TEST(run_report_page_draws_its_numbers) {
    char dir[64];
    snprintf(dir, sizeof dir, "/tmp/crumple_report_XXXXXX");
    ENSURE(mkdtemp(dir) != NULL);
    char *args[] = {"run", "data/scenes/dent_ball_block.scene", "--report", dir, "--size", "96x72", "--json"};
    ENSURE(cr_cmd_run(7, args) == 0);
    char path[128];
    snprintf(path, sizeof path, "%s/index.html", dir);
    char *html = slurp(path);
    ENSURE(html != NULL && strstr(html, "<!DOCTYPE html>") == html);

    /* self-contained: every src is a data: URI, no link or stylesheet outside */
    for (const char *p = strstr(html, "src=\""); p != NULL; p = strstr(p + 1, "src=\""))
        ENSURE(strncmp(p + 5, "data:", 5) == 0);
    ENSURE(strstr(html, "href=") == NULL && strstr(html, "url(") == NULL && strstr(html, "<link") == NULL);
    /* the animation is an APNG: PNG signature, then IHDR, then acTL */
    const char *img = strstr(html, "id=\"animation\"");
    ENSURE(img != NULL);
    const char *b = strstr(img, "base64,");
    ENSURE(b != NULL);
    b += 7;
    uint8_t head[45];
    for (int i = 0; i < 15; ++i) {
        uint32_t v = (uint32_t)b64(b[4 * i]) << 18 | (uint32_t)b64(b[4 * i + 1]) << 12 | (uint32_t)b64(b[4 * i + 2]) << 6 |
                     (uint32_t)b64(b[4 * i + 3]);
        head[3 * i] = (uint8_t)(v >> 16), head[3 * i + 1] = (uint8_t)(v >> 8), head[3 * i + 2] = (uint8_t)v;
    }
    ENSURE(memcmp(head, "\x89PNG\r\n\x1a\n", 8) == 0 && memcmp(head + 12, "IHDR", 4) == 0 && memcmp(head + 37, "acTL", 4) == 0);

    /* the JSON block */
    const char *json = strstr(html, "<script type=\"application/json\" id=\"crumple-run\">");
    ENSURE(json != NULL);
    size_t n = 0;
    ENSURE(sscanf(strstr(json, "\"frames\": "), "\"frames\": %zu", &n) == 1);
    scene_run r;
    ENSURE(open_scene("dent_ball_block", &r) == 0);
    ENSURE(n == (size_t)r.s->frames);
    double *ms = calloc(n * CR_STAGE_COUNT, sizeof *ms);
    double *used = calloc(n, sizeof *used);
    uint32_t most_pairs = 0, most_points = 0, impacts = 0, impact_frames = 0;
    const char *p = strstr(json, "\"per_frame\": [");
    ENSURE(p != NULL && ms != NULL && used != NULL);
    for (size_t f = 0; f < n; ++f) {
        p = strstr(p, "{\"ms\": [");
        ENSURE(p != NULL);
        p += 8;
        for (int k = 0; k < CR_STAGE_COUNT; ++k) {
            char *end;
            ms[f * CR_STAGE_COUNT + k] = strtod(p, &end);
            p = end + 1;
        }
        unsigned pairs, points, imp;
        unsigned long long u;
        char hash[17];
        ENSURE(sscanf(strstr(p, "\"pairs\": "), "\"pairs\": %u", &pairs) == 1);
        ENSURE(sscanf(strstr(p, "\"points\": "), "\"points\": %u", &points) == 1);
        ENSURE(sscanf(strstr(p, "\"impacts\": "), "\"impacts\": %u", &imp) == 1);
        ENSURE(sscanf(strstr(p, "\"used\": "), "\"used\": %llu", &u) == 1);
        ENSURE(sscanf(strstr(p, "\"hash\": \""), "\"hash\": \"%16[0-9a-f]\"", hash) == 1);
        used[f] = (double)u;
        if (pairs > most_pairs) most_pairs = pairs;
        if (points > most_points) most_points = points;
        impacts += imp;
        impact_frames += imp > 0;
        /* the run's own numbers: the same scene stepped here gives the same hash */
        ENSURE(step(&r, (int32_t)f) == 0);
        char mine[17];
        snprintf(mine, sizeof mine, "%016llx", (unsigned long long)cr_world_state_hash(r.w));
        ENSURE_MSG(strcmp(mine, hash) == 0, "frame %zu: report %s, stepped here %s", f, hash, mine);
        char row[64];
        snprintf(row, sizeof row, "<td>%zu</td><td><code>%s</code>", f + 1, mine);
        ENSURE(strstr(html, row) != NULL); /* and the hash table shows it */
    }
    ENSURE(impacts > 0);

    /* the stacked stage chart: each stage's top edge is the running sum of
     * the JSON's stage times, scaled by the chart's own maximum */
    const char *svg = strstr(html, "<svg id=\"stage-times\"");
    ENSURE(svg != NULL);
    double vmax = 0, top = 0;
    ENSURE(sscanf(strstr(svg, "data-max-ms=\""), "data-max-ms=\"%lf\"", &vmax) == 1);
    for (size_t f = 0; f < n; ++f) {
        double t = 0;
        for (int k = 0; k < CR_STAGE_COUNT; ++k) t += ms[f * CR_STAGE_COUNT + k];
        if (t > top) top = t;
    }
    ENSURE(fabs(top - vmax) <= 1e-5 * (1 + top));
    double *xs = calloc(2 * n + 2, sizeof *xs), *ys = calloc(2 * n + 2, sizeof *ys);
    double *below = calloc(n, sizeof *below);
    ENSURE(xs != NULL && ys != NULL && below != NULL);
    double worst = 0;
    for (int k = 0; k < CR_STAGE_COUNT; ++k) {
        size_t got = points_of(svg, "data-stage", cr_stage_name((cr_stage)k), xs, ys, 2 * n + 2);
        ENSURE_MSG(got == 2 * n, "stage %s: %zu points, want %zu", cr_stage_name((cr_stage)k), got, 2 * n);
        for (size_t f = 0; f < n; ++f) {
            below[f] += ms[f * CR_STAGE_COUNT + k];
            double dy = fabs(ys[f] - y_of(below[f], vmax)), dx = fabs(xs[f] - x_of(f, n));
            if (dy > worst) worst = dy;
            if (dx > worst) worst = dx;
        }
    }
    cr_test_printf("  %zu frames, largest chart error against the JSON %.4f px\n", n, worst);
    /* %.2f pixels from %.6f ms: the pixel rounding plus the JSON's, scaled */
    ENSURE(worst <= 0.005 + 1e-9 + CR_STAGE_COUNT * 5e-7 * CH / vmax);

    /* memory: the "used" line is the JSON's used bytes against the block */
    const char *mem = strstr(html, "<svg id=\"memory\"");
    ENSURE(mem != NULL);
    unsigned long long cap = 0;
    ENSURE(sscanf(strstr(mem, "data-capacity=\""), "data-capacity=\"%llu\"", &cap) == 1);
    ENSURE(cap == cr_world_memory_stats(r.w).capacity);
    ENSURE(points_of(mem, "data-series", "used", xs, ys, n + 1) == n);
    for (size_t f = 0; f < n; ++f) ENSURE(fabs(ys[f] - y_of(used[f], (double)cap)) <= 0.006);

    /* events: one bar per frame with impacts, holding that count */
    const char *ev = strstr(html, "<svg id=\"events\"");
    ENSURE(ev != NULL);
    uint32_t bars = 0, counted = 0;
    const char *end_ev = strstr(ev, "</svg>");
    for (const char *q = strstr(ev, "class=\"impacts\""); q != NULL && q < end_ev; q = strstr(q + 1, "class=\"impacts\"")) {
        unsigned c;
        ENSURE(sscanf(strstr(q, "data-count=\""), "data-count=\"%u\"", &c) == 1);
        bars++, counted += c;
    }
    ENSURE(bars == impact_frames && counted == impacts);

    /* work against capacities: the largest counts, the def's caps */
    cr_world_def def = cr_world_get_def(r.w);
    char want[128];
    snprintf(want, sizeof want, "data-name=\"broadphase pairs\" data-most=\"%u\" data-cap=\"%u\"", most_pairs, def.pair_capacity);
    ENSURE_MSG(strstr(html, want) != NULL, "no row %s", want);
    snprintf(want, sizeof want, "data-name=\"interference points\" data-most=\"%u\" data-cap=\"%u\"", most_points,
             def.point_capacity);
    ENSURE_MSG(strstr(html, want) != NULL, "no row %s", want);
    /* the dents are listed, the settings are there */
    ENSURE(strstr(html, "<table id=\"dents\">") != NULL && strstr(html, "\"body\": \"block\"") != NULL);
    ENSURE(strstr(html, "<td>body_capacity</td>") != NULL);

    free(xs), free(ys), free(below), free(ms), free(used), free(html);
    close_scene(&r);
    char rm[160];
    snprintf(rm, sizeof rm, "rm -rf %s", dir);
    ENSURE(system(rm) == 0);
}

/* `crumple run SCENE --report DIR` into a new temporary folder; the page's
 * text (NULL on failure), the folder in dir[64]. */
static char *report_of(const char *scene, char dir[64]) {
    snprintf(dir, 64, "/tmp/crumple_report_XXXXXX");
    if (mkdtemp(dir) == NULL) return NULL;
    char *args[] = {"run", (char *)scene, "--report", dir, "--size", "48x36", "--every", "40", "--json"};
    if (cr_cmd_run(9, args) != 0) return NULL;
    char path[128];
    snprintf(path, sizeof path, "%s/index.html", dir);
    return slurp(path);
}

static void remove_report(const char *dir) {
    char rm[160];
    snprintf(rm, sizeof rm, "rm -rf %s", dir);
    if (system(rm) != 0) cr_test_printf("    could not remove %s\n", dir);
}

/* The summary of the same scene stepped here as `crumple run` steps it. */
static char *summary_of(const char *name, scene_run *r) {
    if (open_scene(name, r)) return NULL;
    for (int32_t f = 0; f < r->s->frames; ++f)
        if (step(r, f)) return NULL;
    cr_run_stats rs;
    memset(&rs, 0, sizeof rs);
    return run_output(cr_run_write_summary, r->s, r->w, &rs);
}

/* issue 28: the report's dent table said 20.000 mm (the dent map's asked-for
 * dent distance) where the summary said 18.49 mm (the deepest vertex move).
 * Now both show the measured move, named so: a scene with one dent shows the
 * same number in the summary's damage line, the report's dent row and its
 * end-of-run damage row. */
CR_TEST(run_report_dent_depth_is_the_summary_s) {
    char dir[64];
    char *html = report_of("data/scenes/dent_glancing.scene", dir);
    ENSURE(html != NULL);
    scene_run r;
    char *sum = summary_of("dent_glancing", &r);
    ENSURE(sum != NULL);
    const char *line = strstr(sum, "damage       block: 1 dent, deepest vertex move ");
    ENSURE_MSG(line != NULL, "%s", sum);
    char mm[32];
    ENSURE(sscanf(line, "damage       block: 1 dent, deepest vertex move %31s mm", mm) == 1);
    char want[160];
    const char *dents = strstr(html, "<table id=\"dents\">");
    ENSURE(dents != NULL && strstr(dents, "<th>deepest vertex move (mm)</th>") != NULL);
    snprintf(want, sizeof want, "<td>block</td><td>%s</td>", mm);
    const char *row = strstr(dents, want);
    ENSURE_MSG(row != NULL && row < strstr(dents, "</table>"), "the dent row does not say %s mm", mm);
    snprintf(want, sizeof want, "<tr><td>block</td><td>1</td><td>%s</td>", mm);
    const char *dmg = strstr(html, "<table id=\"damage\">");
    ENSURE_MSG(dmg != NULL && strstr(dmg, want) != NULL, "the damage table does not say %s mm", mm);
    ENSURE(strstr(html, "depth (mm)") == NULL);
    /* the JSON block names both: what was measured (the number shown) and what the dent map asked for */
    const char *js = strstr(html, "\"deepest_vertex_move\": ");
    double moved, asked;
    ENSURE(js != NULL && sscanf(js, "\"deepest_vertex_move\": %lf, \"dent_distance\": %lf", &moved, &asked) == 2);
    char shown[32];
    snprintf(shown, sizeof shown, "%.2f", moved * 1000.0);
    ENSURE(strcmp(shown, mm) == 0 && asked >= moved);
    cr_test_printf("    summary and report: deepest vertex move %s mm (the dent map asked for %.2f mm)\n", mm, asked * 1000.0);
    free(sum), free(html);
    close_scene(&r);
    remove_report(dir);
}

/* issue 28: the report says what broke, when and into how many pieces, in
 * the summary's words, and lists the pieces' damage under their names. */
CR_TEST(run_report_says_what_broke) {
    char dir[64];
    char *html = report_of("data/scenes/fracture_wall.scene", dir);
    ENSURE(html != NULL);
    scene_run r;
    char *sum = summary_of("fracture_wall", &r);
    ENSURE(sum != NULL);
    const char *line = strstr(sum, "fracture     wall: broke at step ");
    ENSURE_MSG(line != NULL, "%s", sum);
    char want[200];
    size_t n = strcspn(line + 13, "\n");
    snprintf(want, sizeof want, "<table id=\"fractures\"><tr><th>fracture</th></tr>\n<tr><td>%.*s</td></tr>", (int)n, line + 13);
    ENSURE_MSG(strstr(html, want) != NULL, "the report has no row '%.*s'", (int)n, line + 13);
    int stepno;
    ENSURE(sscanf(line, "fracture     wall: broke at step %d", &stepno) == 1);
    snprintf(want, sizeof want, "\"fractures\": [{\"body\": \"wall\", \"whole\": false, \"step\": %d,", stepno);
    ENSURE_MSG(strstr(html, want) != NULL, "the JSON block does not say step %d", stepno);
    ENSURE(strstr(strstr(html, "<table id=\"damage\">"), "<td>wall/piece ") != NULL);
    free(sum), free(html);
    close_scene(&r);
    remove_report(dir);
}
