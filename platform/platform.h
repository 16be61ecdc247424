/* platform.h — host services for crumple's tools and demo (never the runtime).
 *
 * The runtime touches no file, clock or console: the host passes hooks in the
 * world def. This layer is what our own tools use as that host. One backend
 * per file, picked at build time:
 *   posix.c         Linux, macOS, any POSIX host
 *   freestanding.c  bare-metal Cortex-M (no files; DWT cycle counter clock,
 *                   semihosting log), for running crumple on a device or qemu
 */
#ifndef CRUMPLE_PLATFORM_H
#define CRUMPLE_PLATFORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crumple/base.h"

typedef enum crp_status {
    CRP_OK = 0,
    CRP_ERR_OPEN,      ///< file could not be opened
    CRP_ERR_READ,      ///< read failed or file changed size while reading
    CRP_ERR_WRITE,     ///< write, flush or rename failed; the target is untouched
    CRP_ERR_NO_MEMORY, ///< the host allocator said no
    CRP_ERR_UNSUPPORTED///< this backend has no file system
} crp_status;

/// Human text for a platform status.
const char *crp_status_message(crp_status s);

/// Read a whole file into a new buffer (free with crp_free). A NUL is appended
/// after the data (not counted in *size) so text parsers can rely on it.
crp_status crp_read_file(const char *path, uint8_t **data, size_t *size);
void crp_free(void *p);

/// Write a file atomically: data goes to a temporary file in the same folder,
/// is flushed, then renamed over `path`. A crash leaves the old file or the new
/// one, never half of either.
crp_status crp_write_file_atomic(const char *path, const void *data, size_t size);

/// Create a folder and any missing parents (like `mkdir -p`); an existing
/// folder is fine. CRP_ERR_WRITE if a part exists as a file or cannot be made.
crp_status crp_make_dirs(const char *path);

/// Call `each` with the name of every entry of folder `dir` whose name ends
/// in `suffix` (e.g. ".scene"), in no particular order; CRP_ERR_OPEN if the
/// folder cannot be read.
crp_status crp_list_dir(const char *dir, const char *suffix, void (*each)(void *user, const char *name), void *user);

/// True if `path` names an existing folder.
bool crp_dir_exists(const char *path);
/// Create a new, empty folder of a unique name under $TMPDIR (else /tmp) and
/// write its path to out[0..size). CRP_ERR_WRITE if it cannot be made or the
/// path does not fit.
crp_status crp_make_temp_dir(char *out, size_t size);
/// Remove the files directly inside folder `dir`, then the folder (a cache
/// folder this layer made: no subfolders). CRP_ERR_WRITE if anything stays.
crp_status crp_remove_dir(const char *dir);

/// Monotonic clock in nanoseconds (cycle-based on bare metal).
uint64_t crp_clock_ns(void);
/// Same, with the signature of the world def's clock hook.
uint64_t crp_clock_hook(void *user);
/// This process's CPU time in nanoseconds (POSIX CLOCK_PROCESS_CPUTIME_ID; the
/// monotonic clock on bare metal, where nothing else runs): leaves out time
/// spent waiting for a core, at a finer step than C clock()'s microseconds.
uint64_t crp_cpu_clock_ns(void);

typedef enum crp_log_level { CRP_LOG_INFO, CRP_LOG_WARN, CRP_LOG_ERROR } crp_log_level;
/// Write one line to the log sink (stderr on POSIX, semihosting on bare metal).
void crp_log(crp_log_level level, const char *message);
/// Same, with the signature of the world def's log hook (user is ignored).
void crp_log_hook(void *user, cr_log_level level, const char *message);

#endif
