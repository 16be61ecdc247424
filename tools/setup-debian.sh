#!/bin/sh
# setup-debian.sh — install what crumple needs on a fresh Debian 12 machine to
# build, test, cross-build and run the determinism matrix.
# Installs only what is missing; safe to run again. Run it as root (a minimal
# Debian root shell has no sudo); as another user it re-runs itself with sudo.
#
# Packages are installed without their recommendations, so everything the
# build uses is named here — the cross compilers only *recommend* their C
# libraries (libc6-dev-*-cross), which the matrix's aarch64/armhf rows link.
# gcc-multilib conflicts with Debian's cross compilers, so 32-bit x86 comes
# from lib32gcc-12-dev + libc6-dev-i386 instead.
# libbullet-dev and libode-dev are for `make bench-peers` only (the peer
# programs in tests/peers/): benchmark dependencies, never the product's; g++
# and pkg-config are used by them and by `make test` (the C++ include check,
# tests/check_install.sh). CRUMPLE_BROWSER=1 also installs headless Chromium
# for tests/check_report_browser.sh (the run report seen by a real browser;
# not part of make test).
set -eu
browser=""
[ "${CRUMPLE_BROWSER:-0}" = 1 ] && browser="chromium"
need="$browser make gcc clang libclang-rt-14-dev libstb-dev python3 pngcheck binutils
      lib32gcc-12-dev libc6-dev-i386
      gcc-arm-none-eabi libnewlib-arm-none-eabi
      gcc-aarch64-linux-gnu libc6-dev-arm64-cross
      gcc-arm-linux-gnueabihf libc6-dev-armhf-cross
      qemu-user qemu-system-arm
      g++ pkg-config libbullet-dev libode-dev"
missing=""
for p in $need; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"
done
[ -n "$missing" ] || exit 0
if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        exec sudo sh "$0" "$@"
    fi
    echo "setup-debian.sh: missing:$missing — run this script as root" >&2
    exit 1
fi
echo "installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
