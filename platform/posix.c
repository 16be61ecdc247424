/* posix.c — the platform layer on POSIX hosts (see platform.h). */
#define _POSIX_C_SOURCE 200809L
#include "platform.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
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

/* ---- atomic writes ----------------------------------------------------------
 *
 * A file appears whole or not at all: the bytes go to PATH.tmp.PID, are
 * synced, renamed over PATH, and then the folder is synced so the rename
 * itself survives a power cut. Nothing half-written is ever left behind:
 *   - SIGINT, SIGTERM and SIGHUP during the write remove the temporary file
 *     (unlink is async-signal-safe) and then end the process as the signal
 *     would have;
 *   - a process killed outright (SIGKILL, a crash) leaves PATH.tmp.PID; the
 *     next write of PATH removes every such file whose process is gone. */

static char g_tmp_path[4096];          /* the temporary file being written, for the handler */
static volatile sig_atomic_t g_tmp_live;

static void on_signal(int sig) {
    if (g_tmp_live) unlink(g_tmp_path);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void split_dir(const char *path, char *dir, size_t n, const char **base) {
    const char *slash = strrchr(path, '/');
    if (slash == NULL) {
        snprintf(dir, n, ".");
        *base = path;
    } else {
        size_t k = (size_t)(slash - path);
        snprintf(dir, n, "%.*s", (int)(k == 0 ? 1 : k), path);
        *base = slash + 1;
    }
}

/* PATH.tmp.PID files of processes that no longer exist. */
static void remove_stale_temps(const char *dir, const char *base) {
    DIR *d = opendir(dir);
    if (d == NULL) return;
    size_t bn = strlen(base);
    struct dirent *ent;
    while ((ent = readdir(d)) != NULL) {
        const char *nm = ent->d_name;
        if (strncmp(nm, base, bn) != 0 || strncmp(nm + bn, ".tmp.", 5) != 0) continue;
        char *end = NULL;
        long pid = strtol(nm + bn + 5, &end, 10);
        if (end == nm + bn + 5 || *end != '\0' || pid <= 0) continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue; /* alive, or not ours to judge */
        char full[4096];
        if (snprintf(full, sizeof full, "%s/%s", dir, nm) < (int)sizeof full) unlink(full);
    }
    closedir(d);
}

static void sync_dir(const char *dir) {
    int fd = open(dir, O_RDONLY);
    if (fd < 0) return;
    fsync(fd); /* some file systems refuse to sync a folder; the rename is done either way */
    close(fd);
}

crp_status crp_write_file_atomic(const char *path, const void *data, size_t size) {
    char dir[4096];
    const char *base;
    split_dir(path, dir, sizeof dir, &base);
    remove_stale_temps(dir, base);
    if (snprintf(g_tmp_path, sizeof g_tmp_path, "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof g_tmp_path)
        return CRP_ERR_OPEN;
    struct sigaction sa, old_int, old_term, old_hup;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    sigaction(SIGHUP, &sa, &old_hup);
    /* a signal the process ignores (nohup) stays ignored */
    if (old_int.sa_handler == SIG_IGN) sigaction(SIGINT, &old_int, NULL);
    if (old_term.sa_handler == SIG_IGN) sigaction(SIGTERM, &old_term, NULL);
    if (old_hup.sa_handler == SIG_IGN) sigaction(SIGHUP, &old_hup, NULL);
    crp_status st = CRP_ERR_OPEN;
    FILE *f = fopen(g_tmp_path, "wb");
    if (f != NULL) {
        g_tmp_live = 1;
        int ok = fwrite(data, 1, size, f) == size;
        ok = (fflush(f) == 0) && ok;
        ok = (fsync(fileno(f)) == 0) && ok;
        ok = (fclose(f) == 0) && ok;
        if (ok) ok = rename(g_tmp_path, path) == 0;
        if (!ok) unlink(g_tmp_path);
        g_tmp_live = 0;
        if (ok) sync_dir(dir);
        st = ok ? CRP_OK : CRP_ERR_WRITE;
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGHUP, &old_hup, NULL);
    return st;
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

crp_status crp_list_dir(const char *dir, const char *suffix, void (*each)(void *user, const char *name), void *user) {
    DIR *d = opendir(dir);
    if (d == NULL) return CRP_ERR_OPEN;
    size_t sn = strlen(suffix);
    struct dirent *ent;
    while ((ent = readdir(d)) != NULL) {
        size_t n = strlen(ent->d_name);
        if (n > sn && strcmp(ent->d_name + n - sn, suffix) == 0) each(user, ent->d_name);
    }
    closedir(d);
    return CRP_OK;
}

bool crp_dir_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

crp_status crp_make_temp_dir(char *out, size_t size) {
    const char *base = getenv("TMPDIR");
    if (base == NULL || base[0] == '\0') base = "/tmp";
    int n = snprintf(out, size, "%s/crumple-XXXXXX", base);
    if (n < 0 || (size_t)n >= size || mkdtemp(out) == NULL) {
        if (size) out[0] = '\0';
        return CRP_ERR_WRITE;
    }
    return CRP_OK;
}

crp_status crp_remove_dir(const char *dir) {
    DIR *d = opendir(dir);
    if (d == NULL) return CRP_ERR_OPEN;
    struct dirent *ent;
    crp_status st = CRP_OK;
    while ((ent = readdir(d)) != NULL) {
        if (strcmp(ent->d_name, ".") == 0 || strcmp(ent->d_name, "..") == 0) continue;
        char path[4096];
        int n = snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
        if (n < 0 || (size_t)n >= sizeof path || unlink(path) != 0) st = CRP_ERR_WRITE;
    }
    closedir(d);
    if (rmdir(dir) != 0) st = CRP_ERR_WRITE;
    return st;
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

uint64_t crp_cpu_clock_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void crp_log(crp_log_level level, const char *message) {
    static const char *const prefix[] = {"", "warning: ", "error: "};
    fprintf(stderr, "%s%s\n", prefix[level <= CRP_LOG_ERROR ? level : CRP_LOG_ERROR], message);
}

void crp_log_hook(void *user, cr_log_level level, const char *message) {
    (void)user;
    crp_log((crp_log_level)level, message);
}
