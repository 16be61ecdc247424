#!/bin/sh
# cross.sh — what `make cross` runs.
#   1. libcrumple.a for Cortex-M4F (hard float, -Os) in float and fixed mode,
#      plus the freestanding platform backend, and their sizes;
#   2. the whole test suite built and run as 32-bit x86 (SSE2), both modes.
set -eu
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
M4="-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16"
status=0

if command -v arm-none-eabi-gcc >/dev/null 2>&1; then
    for fixed in 0 1; do
        dir=build-m4; [ $fixed = 1 ] && dir=build-m4-fixed
        make -s -j"$JOBS" lib FIXED=$fixed BUILD=$dir CC=arm-none-eabi-gcc AR=arm-none-eabi-ar OPT=-Os EXTRA_CFLAGS="$M4"
        arm-none-eabi-gcc -std=c11 -Wall -Wextra -Wpedantic -Werror -Os $M4 -Iruntime/include -Iplatform \
            -c platform/freestanding.c -o $dir/platform_freestanding.o
        echo "== Cortex-M4F $( [ $fixed = 1 ] && echo fixed || echo float ): $dir/libcrumple.a"
        arm-none-eabi-size -t $dir/libcrumple.a | tail -n 1 | awk '{printf "   text %s  data %s  bss %s  (bytes)\n", $1, $2, $3}'
        sh tests/check_promises.sh $dir/libcrumple.a || status=1
    done
else
    echo "cross: arm-none-eabi-gcc not installed (apt-get install gcc-arm-none-eabi)"; status=1
fi

if echo 'int main(void){return 0;}' | gcc -m32 -x c - -o /tmp/crumple_m32_probe 2>/dev/null; then
    for fixed in 0 1; do
        dir=build-x86-32; [ $fixed = 1 ] && dir=build-x86-32-fixed
        echo "== 32-bit x86 suite, $( [ $fixed = 1 ] && echo fixed || echo float )"
        # -idirafter: Debian's libc6-dev-i386 has no asm/ headers of its own (errno.h
        # reaches asm/errno.h); the host's are the same for these, as the matrix's x86-32 build uses
        make -s -j"$JOBS" tests FIXED=$fixed BUILD=$dir EXTRA_CFLAGS="-m32 -msse2 -mfpmath=sse -idirafter /usr/include/x86_64-linux-gnu" EXTRA_LDFLAGS=-m32
        last=$(./$dir/bin/crumple_tests 2>&1 | tail -n 1)
        echo "   $last"
        case "$last" in *" 0 failed") ;; *) status=1 ;; esac
    done
else
    echo "cross: no 32-bit x86 libc (apt-get install lib32gcc-12-dev libc6-dev-i386)"; status=1
fi
exit $status
