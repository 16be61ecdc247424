/* soak.c — `make soak`: long runs of shipped scenes, checked every frame.
 *
 *     build/bin/crumple_soak FRAMES SCENE...
 *
 * For each scene: build it, step FRAMES frames as `crumple run` does, and at
 * every frame record the state hash and check every live body's pose and
 * velocities are finite; the block's high-water mark must not grow after
 * the first second (a leak in the block would). Then the whole run again:
 * every frame's hash must repeat. Prints one line per scene (frames, hash
 * digest, high water at 1 s and at the end, steps per second) and exits
 * non-zero on the first broken promise.
 */
#include "cli.h"
#include "platform.h"
#include "scene.h"
#include "stb_ds.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int finite_real(cr_real x) {
#if CR_FIXED
    return x != CR_REAL_MAX && x != -CR_REAL_MAX;
#else
    return x == x && x - x == 0;
#endif
}

static int world_finite(const cr_world *w) {
    cr_body_id ids[4096];
    uint32_t n = cr_world_get_body_ids(w, ids, 4096);
    for (uint32_t i = 0; i < n && i < 4096; ++i) {
        cr_transform t = cr_body_get_transform(w, ids[i]);
        cr_vec3 v = cr_body_get_linear_velocity(w, ids[i]), a = cr_body_get_angular_velocity(w, ids[i]);
        cr_real r[13] = {t.p.x, t.p.y, t.p.z, t.q.x, t.q.y, t.q.z, t.q.w, v.x, v.y, v.z, a.x, a.y, a.z};
        for (int k = 0; k < 13; ++k)
            if (!finite_real(r[k])) return 0;
    }
    return 1;
}

typedef struct soak_run {
    const char *path;
    int32_t second; /* frames in the first second */
    uint64_t *hashes;
    size_t *hw_1s, *hw_end;
} soak_run;

/* cr_scene_run's per-frame hook: the hash, finiteness and the block's high water */
static int soak_frame(void *user, cr_scene *s, cr_world *w, const cr_scene_frame *fr) {
    (void)s;
    soak_run *r = user;
    int32_t f = fr->frame;
    r->hashes[f] = cr_world_state_hash(w);
    if (!world_finite(w) || fr->stats.frozen != 0) {
        fprintf(stderr, "%s: frame %d: a body is not finite\n", r->path, (int)f);
        return 1;
    }
    size_t hw = cr_world_memory_stats(w).high_water;
    if (f + 1 == r->second) *r->hw_1s = hw;
    if (f + 1 > r->second && hw > *r->hw_1s) {
        fprintf(stderr, "%s: frame %d: the block's high water grew from %zu to %zu bytes after the first second\n",
                r->path, (int)f, *r->hw_1s, hw);
        return 1;
    }
    *r->hw_end = hw;
    return 0;
}

/* One run; fills hashes[frames]. Returns 0 or -1 with a message printed. */
static int run(const char *path, int32_t frames, uint64_t *hashes, size_t *hw_1s, size_t *hw_end, double *seconds) {
    cr_scene *s = NULL;
    cr_scene_error err;
    if (cr_scene_load(path, &s, &err)) {
        cr_scene_error_print(stderr, &err);
        return -1;
    }
    cr_world *w = NULL;
    if (cr_scene_build(s, &w, &err)) {
        cr_scene_error_print(stderr, &err);
        cr_scene_free(s);
        return -1;
    }
    soak_run r = {path, (int32_t)(1.0 / cr_to_double(s->dt) + 0.5), hashes, hw_1s, hw_end};
    uint64_t t0 = crp_clock_ns();
    cr_scene_loop loop = {.from = 0, .to = frames, .each = soak_frame, .user = &r};
    int rc = cr_scene_run(s, w, &loop, &err);
    if (rc < 0) cr_scene_error_print(stderr, &err);
    if (rc) rc = -1;
    *seconds = (double)(crp_clock_ns() - t0) * 1e-9;
    cr_cli_world_free(w);
    cr_scene_free(s);
    return rc;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: crumple_soak FRAMES SCENE...\n");
        return 2;
    }
    int32_t frames = (int32_t)strtol(argv[1], NULL, 10);
    if (frames <= 0) return 2;
    uint64_t *a = malloc(sizeof *a * (size_t)frames), *b = malloc(sizeof *b * (size_t)frames);
    if (a == NULL || b == NULL) return 2;
    int failed = 0;
    for (int i = 2; i < argc; ++i) {
        size_t hw1 = 0, hwe = 0, hw1b = 0, hweb = 0;
        double t = 0, tb = 0;
        if (run(argv[i], frames, a, &hw1, &hwe, &t) || run(argv[i], frames, b, &hw1b, &hweb, &tb)) {
            ++failed;
            continue;
        }
        int32_t diff = -1;
        for (int32_t f = 0; f < frames && diff < 0; ++f)
            if (a[f] != b[f]) diff = f;
        uint64_t digest = 0xcbf29ce484222325ull;
        for (int32_t f = 0; f < frames; ++f) digest = (digest ^ a[f]) * 0x100000001b3ull;
        printf("soak %s (%s): %d frames, last hash %016llx, digest of all %016llx, high water %zu B at 1 s, %zu B at the end, "
               "%.0f steps/s; repeat: %s\n",
               argv[i], CR_MODE_NAME, (int)frames, (unsigned long long)a[frames - 1], (unsigned long long)digest, hw1, hwe,
               frames / (t > 0 ? t : 1), diff < 0 ? "same hashes" : "DIFFERS");
        if (diff >= 0) {
            fprintf(stderr, "%s: the repeat differs at frame %d\n", argv[i], (int)diff);
            ++failed;
        }
    }
    free(a);
    free(b);
    printf("soak: %d passed, %d failed\n", argc - 2 - failed, failed);
    return failed ? 1 : 0;
}
