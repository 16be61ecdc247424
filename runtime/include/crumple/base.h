/* crumple/base.h — status codes, version, and the hooks a host may hand the runtime.
 *
 * Every call that can fail returns a cr_status. The list is one X-macro so that
 * the enum and the printable names can never drift apart, and tests assert the
 * exact code they expect. The runtime prints nothing itself: a host that wants
 * messages passes a log hook in the world def.
 */
#ifndef CRUMPLE_BASE_H
#define CRUMPLE_BASE_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#define CR_VERSION_MAJOR 0
#define CR_VERSION_MINOR 1
#define CR_VERSION_PATCH 0
#define CR_VERSION_STRING "0.1.0"

/* X(name, message) */
#define CR_STATUS_LIST(X)                                                         \
    X(CR_OK, "ok")                                                                \
    X(CR_ERR_NULL_ARGUMENT, "a required pointer argument is null")                \
    X(CR_ERR_DEF_NOT_DEFAULTED, "def was not filled by its cr_default_*_def()")   \
    X(CR_ERR_DEF_INVALID, "a def field is out of range")                          \
    X(CR_ERR_BLOCK_TOO_SMALL, "memory block smaller than cr_world_memory_size()") \
    X(CR_ERR_BLOCK_MISALIGNED, "memory block not aligned to CR_BLOCK_ALIGN")      \
    X(CR_ERR_CAPACITY, "a capacity from the world def is exhausted")              \
    X(CR_ERR_ARENA_FULL, "the arena has no room left")                            \
    X(CR_ERR_STALE_HANDLE, "handle is null, stale or from another world")         \
    X(CR_ERR_BAD_ASSET, "asset failed validation")                                \
    X(CR_ERR_BAD_SNAPSHOT, "snapshot does not belong to this world layout")       \
    X(CR_ERR_BUFFER_TOO_SMALL, "caller buffer is too small")

typedef enum cr_status {
#define CR_X_ENUM_(name, msg) name,
    CR_STATUS_LIST(CR_X_ENUM_)
#undef CR_X_ENUM_
    CR_STATUS_COUNT
} cr_status;

/// Symbolic name of a status, e.g. "CR_ERR_CAPACITY".
const char *cr_status_name(cr_status s);
/// One-line human explanation of a status.
const char *cr_status_message(cr_status s);
/// "crumple 0.1.0 (float32)" or "(fixed-q32.32)".
const char *cr_version_string(void);

typedef enum cr_log_level { CR_LOG_INFO, CR_LOG_WARN, CR_LOG_ERROR } cr_log_level;
/// Host log sink; `user` is the pointer given in the def.
typedef void cr_log_fn(void *user, cr_log_level level, const char *message);
/// Host assert handler, called when an internal invariant fails (CR_ASSERT).
typedef void cr_assert_fn(void *user, const char *expr, const char *file, int line);

/// Alignment the world block must have.
#define CR_BLOCK_ALIGN 16

#endif
