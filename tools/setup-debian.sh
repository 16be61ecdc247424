#!/bin/sh
# setup-debian.sh — install, as root, what crumple needs on a fresh Debian 12
# machine to build, test, cross-build and run the determinism matrix.
# Installs only what is missing; safe to run again.
#
# gcc-multilib conflicts with Debian's cross compilers, so 32-bit x86 comes
# from lib32gcc-12-dev + libc6-dev-i386 instead.
set -eu
need="make gcc clang libstb-dev python3 pngcheck binutils
      lib32gcc-12-dev libc6-dev-i386
      gcc-arm-none-eabi libnewlib-arm-none-eabi
      gcc-aarch64-linux-gnu gcc-arm-linux-gnueabihf qemu-user qemu-system-arm"
missing=""
for p in $need; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "installing:$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
