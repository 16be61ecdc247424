/* fuzz_replay.c — libFuzzer harness: the replay reader, as a round trip.
 *
 * Whatever cr_replay_decode accepts must encode back to exactly the bytes it
 * came from (a replay file has one encoding), and decoding must never read
 * outside the input. Verification (which builds the embedded scene) is not
 * run: it is the scene harness's part.
 */
#include "replay.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > (1u << 20)) return 0;
    cr_replay r;
    cr_replay_error err;
    if (cr_replay_decode(data, size, &r, &err) == CR_REPLAY_OK) {
        uint8_t *out = NULL;
        size_t n = 0;
        if (cr_replay_encode(&r, &out, &n) != CR_REPLAY_OK) abort();
        if (n != size || memcmp(out, data, size) != 0) abort();
        free(out);
    }
    cr_replay_free(&r);
    return 0;
}
