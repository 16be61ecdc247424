/* posix.c — the platform layer on POSIX hosts (see platform.h). */
#define _POSIX_C_SOURCE 200809L
#include "platform.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char *crp_status_message(crp_status s) {
    switch (s) {
    case CRP_OK: return "ok";
    case CRP_ERR_OPEN: return "cannot open file";
    case CRP_ERR_READ: return "cannot read file";
    case CRP_ERR_WRITE: return "cannot write file";
    case CRP_ERR_NO_MEMORY: return "out of memory";
    case CRP_ERR_UNSUPPORTED: return "no file system on this platform";
    }
    return "unknown platform status";
}

crp_status crp_read_file(const char *path, uint8_t **data, size_t *size) {
    *data = NULL;
    *size = 0;
    FILE *f = fopen(path, "rb");
    if (f == NULL) return CRP_ERR_OPEN;
    /* Read in growing chunks rather than trusting a seek: works for pipes and
     * for files that are being replaced under us. */
    size_t cap = 1 << 16, len = 0;
    uint8_t *buf = malloc(cap + 1);
    if (buf == NULL) {
        fclose(f);
        return CRP_ERR_NO_MEMORY;
    }
    for (;;) {
        if (len == cap) {
            uint8_t *bigger = realloc(buf, cap * 2 + 1);
            if (bigger == NULL) {
                free(buf);
                fclose(f);
                return CRP_ERR_NO_MEMORY;
            }
            buf = bigger;
            cap *= 2;
        }
        size_t n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (n == 0) break;
    }
    int err = ferror(f);
    fclose(f);
    if (err) {
        free(buf);
        return CRP_ERR_READ;
    }
    buf[len] = 0;
    *data = buf;
    *size = len;
    return CRP_OK;
}

void crp_free(void *p) { free(p); }

crp_status crp_write_file_atomic(const char *path, const void *data, size_t size) {
    size_t n = strlen(path);
    char *tmp = malloc(n + 32);
    if (tmp == NULL) return CRP_ERR_NO_MEMORY;
    snprintf(tmp, n + 32, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (f == NULL) {
        free(tmp);
        return CRP_ERR_OPEN;
    }
    int ok = fwrite(data, 1, size, f) == size;
    ok = (fflush(f) == 0) && ok;
    ok = (fsync(fileno(f)) == 0) && ok;
    ok = (fclose(f) == 0) && ok;
    if (ok) ok = rename(tmp, path) == 0;
    if (!ok) remove(tmp);
    free(tmp);
    return ok ? CRP_OK : CRP_ERR_WRITE;
}

crp_status crp_make_dirs(const char *path) {
    size_t n = strlen(path);
    char *p = malloc(n + 1);
    if (p == NULL) return CRP_ERR_NO_MEMORY;
    memcpy(p, path, n + 1);
    /* each prefix ending at a '/', then the whole path */
    for (size_t i = 1; i <= n; ++i) {
        if (p[i] != '/' && p[i] != 0) continue;
        char saved = p[i];
        p[i] = 0;
        struct stat st;
        if (stat(p, &st) != 0) {
            if (mkdir(p, 0777) != 0 && (stat(p, &st) != 0 || !S_ISDIR(st.st_mode))) {
                free(p);
                return CRP_ERR_WRITE;
            }
        } else if (!S_ISDIR(st.st_mode)) {
            free(p);
            return CRP_ERR_WRITE;
        }
        p[i] = saved;
    }
    free(p);
    return CRP_OK;
}

uint64_t crp_clock_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t crp_clock_hook(void *user) {
    (void)user;
    return crp_clock_ns();
}

void crp_log(crp_log_level level, const char *message) {
    static const char *const prefix[] = {"", "warning: ", "error: "};
    fprintf(stderr, "%s%s\n", prefix[level <= CRP_LOG_ERROR ? level : CRP_LOG_ERROR], message);
}

void crp_log_hook(void *user, cr_log_level level, const char *message) {
    (void)user;
    crp_log((crp_log_level)level, message);
}
