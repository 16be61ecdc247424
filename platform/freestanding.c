/* freestanding.c — the platform layer on bare-metal Cortex-M (see platform.h).
 *
 * No file system: file calls say CRP_ERR_UNSUPPORTED and a game streams cooked
 * assets from its own storage. The clock is the DWT cycle counter, scaled by
 * CRP_CPU_HZ (a build setting, e.g. -DCRP_CPU_HZ=168000000). The log goes
 * through ARM semihosting (SYS_WRITE0), which qemu and debug probes print.
 * No heap: crp_free exists only so shared tool code links.
 */
#include "platform.h"

#ifndef CRP_CPU_HZ
#define CRP_CPU_HZ 100000000u
#endif

const char *crp_status_message(crp_status s) {
    return s == CRP_OK ? "ok" : (s == CRP_ERR_UNSUPPORTED ? "no file system on this platform" : "platform error");
}

crp_status crp_read_file(const char *path, uint8_t **data, size_t *size) {
    (void)path;
    *data = NULL;
    *size = 0;
    return CRP_ERR_UNSUPPORTED;
}

void crp_free(void *p) { (void)p; }

crp_status crp_write_file_atomic(const char *path, const void *data, size_t size) {
    (void)path;
    (void)data;
    (void)size;
    return CRP_ERR_UNSUPPORTED;
}

crp_status crp_make_dirs(const char *path) {
    (void)path;
    return CRP_ERR_UNSUPPORTED;
}

crp_status crp_list_dir(const char *dir, const char *suffix, void (*each)(void *user, const char *name), void *user) {
    (void)dir, (void)suffix, (void)each, (void)user;
    return CRP_ERR_UNSUPPORTED;
}

bool crp_dir_exists(const char *path) {
    (void)path;
    return false;
}

crp_status crp_make_temp_dir(char *out, size_t size) {
    if (size) out[0] = '\0';
    return CRP_ERR_UNSUPPORTED;
}

crp_status crp_remove_dir(const char *dir) {
    (void)dir;
    return CRP_ERR_UNSUPPORTED;
}

/* Cortex-M debug registers (ARMv7-M architecture reference manual, C1.8). */
#define CRP_DEMCR (*(volatile uint32_t *)0xE000EDFCu)
#define CRP_DWT_CTRL (*(volatile uint32_t *)0xE0001000u)
#define CRP_DWT_CYCCNT (*(volatile uint32_t *)0xE0001004u)

uint64_t crp_clock_ns(void) {
    if ((CRP_DWT_CTRL & 1u) == 0) {
        CRP_DEMCR |= 1u << 24; /* TRCENA: turn the trace unit on */
        CRP_DWT_CYCCNT = 0;
        CRP_DWT_CTRL |= 1u; /* CYCCNTENA */
    }
    /* 32-bit counter: fine for timing one stage, wraps after seconds */
    return (uint64_t)CRP_DWT_CYCCNT * 1000000000ull / CRP_CPU_HZ;
}

uint64_t crp_clock_hook(void *user) {
    (void)user;
    return crp_clock_ns();
}

uint64_t crp_cpu_clock_ns(void) {
    return crp_clock_ns();
}

static void semihost_write0(const char *s) {
#if defined(__arm__) || defined(__thumb__)
    register uint32_t op __asm__("r0") = 0x04; /* SYS_WRITE0 */
    register const char *arg __asm__("r1") = s;
    __asm__ volatile("bkpt 0xab" : "+r"(op) : "r"(arg) : "memory");
#else
    (void)s;
#endif
}

void crp_log(crp_log_level level, const char *message) {
    semihost_write0(level == CRP_LOG_ERROR ? "error: " : (level == CRP_LOG_WARN ? "warning: " : ""));
    semihost_write0(message);
    semihost_write0("\n");
}

void crp_log_hook(void *user, cr_log_level level, const char *message) {
    (void)user;
    crp_log((crp_log_level)level, message);
}
