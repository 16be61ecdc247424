#!/bin/sh
# toolchains.sh — the first thing `make test` runs: every compiler, C library,
# emulator and helper the suites and the determinism matrix will use, each tried
# for real (a one-line program compiled, linked and, for the cross targets, run
# under its emulator). A missing piece fails here, at once, naming the Debian
# package that provides it, instead of as a build error twenty minutes later.
# tools/setup-debian.sh installs every package named below.
set -u
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0
printf '#include <stdio.h>\nint main(void) { puts("ok"); return 0; }\n' >"$tmp/hello.c"

# check WHAT PACKAGES COMMAND...: runs COMMAND quietly; on failure names the packages.
check() {
    what=$1 pkgs=$2; shift 2
    if "$@" >"$tmp/log" 2>&1; then
        printf '   %-36s ok\n' "$what"
    else
        printf '   %-36s MISSING: apt-get install %s\n' "$what" "$pkgs"
        sed 's/^/      /' "$tmp/log" | head -n 3
        bad=$((bad + 1))
    fi
}
# runs CMD and requires it to print "ok" (an emulated program really ran)
prints_ok() { [ "$("$@" 2>&1)" = ok ]; }

echo "== toolchains"
check "make"                         make            make --version
check "gcc (host)"                   gcc             gcc "$tmp/hello.c" -o "$tmp/host"
check "clang (host)"                 clang           clang "$tmp/hello.c" -o "$tmp/clang"
check "g++ (C++ include test)"        g++             sh -c "printf 'int main() { return 0; }\n' | g++ -x c++ - -o '$tmp/cxx'"
check "clang libFuzzer (tests/fuzz)"  libclang-rt-14-dev sh -c "printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' | clang -fsanitize=fuzzer -x c - -o '$tmp/fuzz'"
check "stb_ds.h (tools)"             libstb-dev      sh -c "printf '#include <stb_ds.h>\n' | gcc -E -I/usr/include/stb -x c - -o /dev/null"
check "gcc -m32 (x86 32-bit)"        "lib32gcc-12-dev libc6-dev-i386" gcc -m32 -msse2 "$tmp/hello.c" -o "$tmp/m32"
check "aarch64-linux-gnu-gcc -static" "gcc-aarch64-linux-gnu libc6-dev-arm64-cross" \
      aarch64-linux-gnu-gcc -static "$tmp/hello.c" -o "$tmp/a64"
[ ! -f "$tmp/a64" ] || check "qemu-aarch64 runs it" qemu-user prints_ok qemu-aarch64 "$tmp/a64"
check "arm-linux-gnueabihf-gcc -static" "gcc-arm-linux-gnueabihf libc6-dev-armhf-cross" \
      arm-linux-gnueabihf-gcc -static "$tmp/hello.c" -o "$tmp/armhf"
[ ! -f "$tmp/armhf" ] || check "qemu-arm runs it" qemu-user prints_ok qemu-arm "$tmp/armhf"
check "arm-none-eabi-gcc + newlib"   "gcc-arm-none-eabi libnewlib-arm-none-eabi" \
      arm-none-eabi-gcc -mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 --specs=rdimon.specs \
      "$tmp/hello.c" -o "$tmp/m4"
check "qemu-system-arm (Cortex-M4F)" qemu-system-arm qemu-system-arm -M help
check "ar, nm, size (binutils)"      binutils        sh -c "ar --version && nm --version && arm-none-eabi-size --version"
check "python3 (PNG decode check)"   python3         python3 -c "import zlib"
check "pngcheck"                     pngcheck        sh -c "command -v pngcheck"
if [ $bad -gt 0 ]; then
    echo "toolchains: $bad missing — as root: sh tools/setup-debian.sh"
    exit 1
fi
