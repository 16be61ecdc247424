/* test_hostile_files.c — files the tools write stay whole: an interrupted
 * write leaves no temporary file behind for long (the next write of the same
 * file removes those of processes that are gone), and a write replaces the
 * target in one rename.
 */
#define _POSIX_C_SOURCE 200809L
#include "test.h"
#include "platform.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int touch(const char *path) {
    FILE *f = fopen(path, "wb");
    if (f == NULL) return -1;
    fputs("half", f);
    return fclose(f);
}

CR_TEST(hostile_files_stale_temporaries_are_removed_on_the_next_write) {
    char dir[] = "/tmp/crumple-hostile-files-XXXXXX";
    ENSURE(mkdtemp(dir) != NULL);
    /* a pid that is certainly gone: a child that has exited and been reaped */
    pid_t child = fork();
    ENSURE(child >= 0);
    if (child == 0) _exit(0);
    ENSURE(waitpid(child, NULL, 0) == child);
    char out[128], stale[160], live[160], other[160];
    snprintf(out, sizeof out, "%s/a.crb", dir);
    snprintf(stale, sizeof stale, "%s.tmp.%ld", out, (long)child);
    snprintf(live, sizeof live, "%s.tmp.%ld", out, (long)getppid()); /* a process that is alive */
    snprintf(other, sizeof other, "%s/b.crb.tmp.%ld", dir, (long)child); /* another file's: not ours */
    ENSURE(touch(stale) == 0 && touch(live) == 0 && touch(other) == 0);
    ENSURE(crp_write_file_atomic(out, "whole", 5) == CRP_OK);
    ENSURE(access(stale, F_OK) != 0);
    ENSURE(access(live, F_OK) == 0);
    ENSURE(access(other, F_OK) == 0);
    uint8_t *data = NULL;
    size_t size = 0;
    ENSURE(crp_read_file(out, &data, &size) == CRP_OK && size == 5 && memcmp(data, "whole", 5) == 0);
    crp_free(data);
    char own[160];
    snprintf(own, sizeof own, "%s.tmp.%ld", out, (long)getpid());
    ENSURE(access(own, F_OK) != 0); /* its own temporary is gone after the rename */
    remove(live);
    remove(other);
    remove(out);
    ENSURE(rmdir(dir) == 0);
}

/* SIGTERM while the temporary file exists: the handler removes it, and the
 * process still ends by the signal. The child writes ever larger files until
 * the signal lands inside a write (it usually does at once). */
CR_TEST(hostile_files_a_signal_during_a_write_leaves_no_temporary) {
    char dir[] = "/tmp/crumple-hostile-files-XXXXXX";
    ENSURE(mkdtemp(dir) != NULL);
    char out[128];
    snprintf(out, sizeof out, "%s/big.bin", dir);
    pid_t child = fork();
    ENSURE(child >= 0);
    if (child == 0) {
        size_t n = 32u << 20;
        char *buf = calloc(1, n);
        if (buf == NULL) _exit(3);
        for (;;) crp_write_file_atomic(out, buf, n);
    }
    struct timespec pause = {0, 50 * 1000 * 1000};
    nanosleep(&pause, NULL);
    ENSURE(kill(child, SIGTERM) == 0);
    int status = 0;
    ENSURE(waitpid(child, &status, 0) == child);
    ENSURE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
    char tmp[160];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", out, (long)child);
    ENSURE_MSG(access(tmp, F_OK) != 0, "%s was left behind", tmp);
    remove(out);
    ENSURE(rmdir(dir) == 0);
}
