/* cmd_query.c — `crumple query FILE.crb --sdf [--normal]`: the runtime's own
 * signed distance lookup (cr_asset_sdf) on points read from stdin.
 *
 * Input: one point per line, "x y z" in the body frame (blank lines and `#`
 * comments are skipped). Output: one line per point with the signed distance
 * (negative inside), and the outward normal with --normal. A malformed line
 * is reported as "<stdin>:line: message" and the exit status is 1.
 */
#include "cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cr_cli_query_sdf(const cr_asset *a, FILE *in, FILE *out, bool normal, const char *in_name) {
    char line[4096];
    unsigned long ln = 0;
    while (fgets(line, sizeof line, in) != NULL) {
        ++ln;
        char *hash = strchr(line, '#');
        if (hash) *hash = 0;
        char *s = line;
        while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n') ++s;
        if (*s == 0) continue;
        double v[3];
        char *end = s;
        int ok = 1;
        for (int k = 0; k < 3 && ok; ++k) {
            char *start = end;
            v[k] = strtod(start, &end);
            ok = end != start && isfinite(v[k]) && fabs(v[k]) < CR_ASSET_MAX_COORD;
        }
        while (ok && (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')) ++end;
        if (!ok || *end != 0) {
            fprintf(stderr, "%s:%lu: expected three finite numbers 'x y z' (|x| < %g)\n", in_name, ln, CR_ASSET_MAX_COORD);
            return 1;
        }
        cr_vec3 p = cr_v3(cr_from_float((float)v[0]), cr_from_float((float)v[1]), cr_from_float((float)v[2]));
        cr_vec3 n;
        cr_real d = cr_asset_sdf(a, p, normal ? &n : NULL);
        if (normal)
            fprintf(out, "%.9g %.6f %.6f %.6f\n", cr_to_double(d), cr_to_double(n.x), cr_to_double(n.y), cr_to_double(n.z));
        else
            fprintf(out, "%.9g\n", cr_to_double(d));
    }
    return 0;
}

int cr_cmd_query(int argc, char **argv) {
    const char *path = NULL;
    bool sdf = false, normal = false;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--sdf") == 0) {
            sdf = true;
        } else if (strcmp(argv[i], "--normal") == 0) {
            normal = true;
        } else if (strcmp(argv[i], "--help") == 0) {
            printf("usage: crumple query FILE.crb --sdf [--normal] < points.txt\n"
                   "  Reads one point 'x y z' per line from stdin ('#' starts a comment) and prints the signed\n"
                   "  distance at it (negative inside), through the runtime's own grid lookup (cr_asset_sdf).\n"
                   "  Points are in the body frame, the asset's principal frame (centre of mass at the origin;\n"
                   "  `crumple info` prints mesh_to_body, x_body = q x_mesh + p, to bring OBJ coordinates there).\n"
                   "  --sdf            print the signed distance (m) of each point (required)\n"
                   "  --normal         also the outward unit normal from the grid's gradient\n");
            return 0;
        } else if (argv[i][0] != '-' && path == NULL) {
            path = argv[i];
        } else {
            fprintf(stderr, "crumple query: unknown option '%s'\n", argv[i]);
            return 2;
        }
    }
    if (path == NULL || !sdf) {
        fprintf(stderr, "usage: crumple query FILE.crb --sdf [--normal] < points.txt\n");
        return 2;
    }
    uint8_t *bytes;
    void *block;
    cr_asset a;
    if (cr_cli_asset_open(path, &bytes, &block, &a) != 0) {
        crp_free(bytes);
        free(block);
        return 1;
    }
    int rc = cr_cli_query_sdf(&a, stdin, stdout, normal, "<stdin>");
    crp_free(bytes);
    free(block);
    return rc;
}
