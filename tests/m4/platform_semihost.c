/* platform_semihost.c — platform.h for the Cortex-M4 determinism run.
 *
 * platform/freestanding.c is what a game on a device uses: no files. The
 * determinism run needs to read a replay and golden hashes from the host, so
 * this backend goes through C stdio, which newlib's librdimon turns into ARM
 * semihosting calls that qemu-system-arm serves from the host's file system.
 * The clock is unused (0): the run compares hashes, not times.
 * Newlib's aligned_alloc (which cr_cli_world_new uses for world blocks) calls
 * posix_memalign, which this newlib build leaves to the system: it is
 * provided here on top of newlib's memalign.
 */
#include "platform.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *memalign(size_t align, size_t size); /* newlib, <malloc.h> */
int posix_memalign(void **out, size_t align, size_t size);

int posix_memalign(void **out, size_t align, size_t size) {
    void *p = memalign(align, size);
    if (p == NULL) return ENOMEM;
    *out = p;
    return 0;
}

const char *crp_status_message(crp_status s) {
    switch (s) {
    case CRP_OK: return "ok";
    case CRP_ERR_OPEN: return "cannot open file";
    case CRP_ERR_READ: return "cannot read file";
    case CRP_ERR_WRITE: return "cannot write file";
    case CRP_ERR_NO_MEMORY: return "out of memory";
    case CRP_ERR_UNSUPPORTED: return "not supported on this platform";
    }
    return "platform error";
}

crp_status crp_read_file(const char *path, uint8_t **data, size_t *size) {
    *data = NULL;
    *size = 0;
    FILE *f = fopen(path, "rb");
    if (f == NULL) return CRP_ERR_OPEN;
    uint8_t *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n + 1 >= cap) {
            cap = cap ? cap * 2 : 65536;
            uint8_t *grown = realloc(buf, cap);
            if (grown == NULL) {
                free(buf);
                fclose(f);
                return CRP_ERR_NO_MEMORY;
            }
            buf = grown;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0) break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return CRP_ERR_READ;
    }
    buf[n] = '\0';
    *data = buf;
    *size = n;
    return CRP_OK;
}

void crp_free(void *p) { free(p); }

crp_status crp_write_file_atomic(const char *path, const void *data, size_t size) {
    char tmp[1100];
    if (strlen(path) + 5 > sizeof tmp) return CRP_ERR_WRITE;
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    if (f == NULL) return CRP_ERR_WRITE;
    size_t w = size ? fwrite(data, 1, size, f) : 0;
    if (fclose(f) != 0 || w != size || rename(tmp, path) != 0) {
        remove(tmp);
        return CRP_ERR_WRITE;
    }
    return CRP_OK;
}

crp_status crp_make_dirs(const char *path) {
    (void)path;
    return CRP_ERR_UNSUPPORTED;
}

/* Semihosting has no folder calls. The host's fopen opens a folder for
   reading (Linux), so a folder that opens exists: the verifier finds the
   cache the matrix cooked; a temporary folder is unsupported. */
bool crp_dir_exists(const char *path) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) return false;
    fclose(f);
    return true;
}

crp_status crp_make_temp_dir(char *out, size_t size) {
    if (size) out[0] = '\0';
    return CRP_ERR_UNSUPPORTED;
}

crp_status crp_remove_dir(const char *dir) {
    (void)dir;
    return CRP_ERR_UNSUPPORTED;
}

uint64_t crp_clock_ns(void) { return 0; }

uint64_t crp_clock_hook(void *user) {
    (void)user;
    return 0;
}

void crp_log(crp_log_level level, const char *message) {
    fprintf(stderr, "%s%s\n", level == CRP_LOG_ERROR ? "error: " : (level == CRP_LOG_WARN ? "warning: " : ""), message);
}

void crp_log_hook(void *user, cr_log_level level, const char *message) {
    (void)user;
    crp_log((crp_log_level)level, message);
}
