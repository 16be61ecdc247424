/* test_hostile_replay.c — a replay from someone else, verified: its
 * embedded scene may name any folder as its cache and any path as its own,
 * but `crumple replay --verify` writes only to its own cache.
 */
#define _POSIX_C_SOURCE 200809L
#include "test.h"
#include "cli.h"
#include "replay.h"
#include "scene.h"
#include "stb_ds.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char plain[] = "crumple-scene 1\nframes 3\nbody ground static plane\nbody a dynamic sphere 0.5 position 0 1 0\n";

CR_TEST(hostile_replay_verify_writes_only_to_its_own_cache) {
    char evil[] = "/tmp/crumple-hostile-replay-XXXXXX";
    ENSURE(mkdtemp(evil) != NULL);
    char target[128];
    snprintf(target, sizeof target, "%s/made/by/the/replay", evil);

    /* record a plain scene */
    cr_scene *s = NULL;
    cr_scene_error e;
    ENSURE(cr_scene_parse(plain, strlen(plain), "plain.scene", &s, &e) == 0);
    cr_world *w = NULL;
    ENSURE(cr_scene_build(s, &w, &e) == 0);
    cr_replay r;
    cr_replay_init(&r, "data/scenes/plain.scene", plain, strlen(plain), w, s->dt);
    for (int f = 0; f < 3; ++f) {
        ENSURE(cr_scene_step(s, w, f, &e) == 0);
        cr_replay_add_frame(&r, w, s->frame_inputs, (uint32_t)arrlen(s->frame_inputs));
    }
    cr_cli_world_free(w);
    cr_scene_free(s);

    /* then hand it a scene whose cache is a folder of the attacker's choosing */
    char text[512];
    snprintf(text, sizeof text,
             "crumple-scene 1\nframes 3\ncache %s\nasset bar ../meshes/bar.obj\nbody ground static plane\n"
             "body a dynamic sphere 0.5 position 0 1 0\n",
             target);
    free(r.scene_text);
    r.scene_size = strlen(text);
    r.scene_text = malloc(r.scene_size + 1);
    ENSURE(r.scene_text != NULL);
    memcpy(r.scene_text, text, r.scene_size + 1);
    /* round trip through the file format, as a received file would be */
    uint8_t *bytes = NULL;
    size_t size = 0;
    ENSURE(cr_replay_encode(&r, &bytes, &size) == CR_REPLAY_OK);
    cr_replay_free(&r);
    cr_replay_error err;
    ENSURE(cr_replay_decode(bytes, size, &r, &err) == CR_REPLAY_OK);
    free(bytes);
    cr_replay_verdict v;
    cr_replay_outcome out = cr_replay_verify(&r, &v);
    cr_replay_free(&r);
    ENSURE(out == CR_REPLAY_MISMATCH); /* it registers an asset the recording did not have */
    char probe[160];
    snprintf(probe, sizeof probe, "%s/made", evil);
    ENSURE_MSG(access(probe, F_OK) != 0, "the replay made %s", probe);
    rmdir(evil);
}
