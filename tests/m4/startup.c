/* startup.c — reset code for the Cortex-M4 determinism run (tests/m4/run.sh).
 *
 * The M4 resets through the vector table at address 0: the first word is the
 * initial stack pointer, the second the reset handler. The handler turns the
 * FPU on (the float build uses single-precision hardware; fixed point uses
 * none), zeroes .bss, connects newlib's stdio to semihosting
 * (initialise_monitor_handles, from librdimon), reads the command line that
 * `qemu-system-arm -semihosting-config arg=...` passes (SYS_GET_CMDLINE), and
 * runs main. exit() ends the emulation through semihosting with the status.
 * Faults print their name and exit non-zero rather than hang.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv);
void initialise_monitor_handles(void);
void cr_m4_reset(void);

extern uint32_t __bss_start__, __bss_end__, __stack_top;

static void fault(const char *what) {
    printf("cortex-m4: %s\n", what);
    exit(3);
}
static void hard_fault(void) { fault("hard fault"); }
static void other_fault(void) { fault("fault or unexpected interrupt"); }

__attribute__((section(".vectors"), used)) static void (*const vectors[16])(void) = {
    (void (*)(void))(uintptr_t)&__stack_top, cr_m4_reset, other_fault, hard_fault, other_fault, other_fault,
    other_fault, 0, 0, 0, 0, other_fault, other_fault, 0, other_fault, other_fault,
};

static int semihost(int op, void *arg) {
    register int r0 __asm__("r0") = op;
    register void *r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

#define MAX_ARGS 16
static char cmdline[1024];
static char *args[MAX_ARGS + 1];

static int read_args(void) {
    struct {
        char *buf;
        int len;
    } block = {cmdline, (int)sizeof cmdline - 1};
    int argc = 0;
    if (semihost(0x15 /* SYS_GET_CMDLINE */, &block) != 0) return 0;
    cmdline[block.len] = '\0';
    for (char *p = cmdline; *p && argc < MAX_ARGS;) {
        while (*p == ' ') *p++ = '\0';
        if (*p == '\0') break;
        args[argc++] = p;
        while (*p && *p != ' ') ++p;
    }
    args[argc] = NULL;
    return argc;
}

/* newlib's exit runs __libc_fini_array, which ends with _fini (normally in crti.o, left out by -nostartfiles) */
void _fini(void);
void _fini(void) {}

void cr_m4_reset(void) {
    /* CPACR: full access to coprocessors 10 and 11 (the FPU) */
    *(volatile uint32_t *)0xE000ED88u |= 0xFu << 20;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    for (uint32_t *p = &__bss_start__; p < &__bss_end__; ++p) *p = 0;
    initialise_monitor_handles();
    int argc = read_args();
    exit(main(argc, args));
}
