/* scene_squash.c — `squash` lines of a scene (scene_squash.h). Keys:
 *   stiffness N   damping N   soft M   reach M   c0 X   peak X   loss X   newton N
 * (cr_squash_def's fields: docs/squash.md). The skeleton comes from the body's
 * asset, so a squash line holds the material only. */
#include "scene_squash.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stb_ds.h"

int32_t cr_scene_squash_find(const cr_scene *s, const char *name) {
    for (ptrdiff_t i = 0; i < arrlen(s->squashes); ++i)
        if (strcmp(s->squashes[i].name, name) == 0) return (int32_t)i;
    return -1;
}

static int number(const char *t, double lo, double hi, double *out) {
    char *end;
    double v = strtod(t, &end);
    if (end == t || *end != 0 || !isfinite(v) || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

int cr_scene_squash_define(cr_scene *s, char *const *tok, int ntok, int line, char *why, size_t n) {
    if (ntok < 1) return snprintf(why, n, "'squash' needs a name"), -1;
    cr_scene_squash q;
    memset(&q, 0, sizeof q);
    if (strlen(tok[0]) >= sizeof q.name) return snprintf(why, n, "squash name '%.40s...' is too long", tok[0]), -1;
    int32_t prev = cr_scene_squash_find(s, tok[0]);
    if (prev >= 0) return snprintf(why, n, "squash '%.63s' already defined at line %d", tok[0], s->squashes[prev].line), -1;
    strcpy(q.name, tok[0]);
    q.line = line;
    q.def = cr_default_squash_def();
    static const struct { const char *key; double lo, hi; } keys[] = {
        {"stiffness", 0, 1e8}, {"damping", 0, 1e8}, {"soft", 1e-3, 10}, {"reach", 1e-3, 10},
        {"c0", 1e-3, 1}, {"peak", 0.01, 0.99}, {"loss", 0, 0.5}, {"newton", 1, 8},
    };
    for (int i = 1; i < ntok; i += 2) {
        int k = -1;
        for (int j = 0; j < (int)(sizeof keys / sizeof keys[0]); ++j)
            if (strcmp(tok[i], keys[j].key) == 0) k = j;
        if (k < 0)
            return snprintf(why, n, "unknown squash attribute '%s' (stiffness damping soft reach c0 peak loss newton)", tok[i]), -1;
        double v;
        if (i + 1 >= ntok || number(tok[i + 1], keys[k].lo, keys[k].hi, &v) != 0)
            return snprintf(why, n, "squash '%s' needs a number from %g to %g", tok[i], keys[k].lo, keys[k].hi), -1;
        cr_real r = cr_from_float((float)v);
        switch (k) {
        case 0: q.def.stiffness = r; break;
        case 1: q.def.damping = r; break;
        case 2: q.def.soft_depth = r; break;
        case 3: q.def.rigid_reach = r; break;
        case 4: q.def.c0 = r; break;
        case 5: q.def.peak = r; break;
        case 6: q.def.volume_loss = r; break;
        default: q.def.newton_steps = (uint32_t)v; break;
        }
    }
    arrput(s->squashes, q);
    return 0;
}
