#!/bin/sh
# check_promises.sh LIB — what nm can prove about the runtime library:
#   no heap (malloc/calloc/realloc/free/...), no writable global or static data
#   (B/b/D/d symbols), no libm transcendentals (determinism across CPUs),
#   no libc beyond memset, memcpy, memmove and memcmp (README.md says so; gcc
#   also turns copy loops into them, so a loop does not avoid one),
#   and every defined external symbol is either a public function renamed by
#   its header to carry the library's scalar mode (cr_x_float32 or
#   cr_x_fixed_q32, crumple/real.h's CR_LINK_NAME) or carries the internal
#   prefix cri_.
set -u
lib=$1
[ -f "$lib" ] || { echo "check_promises: $lib is missing"; exit 1; }
bad=0
heap=$(nm -A "$lib" | grep -E ' U (malloc|calloc|realloc|free|aligned_alloc|posix_memalign|strdup)$')
[ -z "$heap" ] || { echo "FAIL $lib calls the heap:"; echo "$heap"; bad=1; }
data=$(nm -A "$lib" | grep -E ' [BbDdGgSs] ')
[ -z "$data" ] || { echo "FAIL $lib has writable global/static data:"; echo "$data"; bad=1; }
libm=$(nm -A "$lib" | grep -E ' U (sin|cos|tan|asin|acos|atan|atan2|exp|exp2|log|log2|log10|pow|sinh|cosh|tanh)f?$')
[ -z "$libm" ] || { echo "FAIL $lib calls libm transcendentals:"; echo "$libm"; bad=1; }
inc=$(dirname "$0")/../runtime/include/crumple
# Every public function's link name carries the scalar mode (crumple/real.h:
# `#define cr_x CR_LINK_NAME(cr_x)` in the header that declares it), so the
# library's mode is read from one of them and every defined cr_ symbol must be
# a renamed public function with that mode's suffix: a function whose header
# forgot the define shows up here without it, and would link across modes.
defined=$(nm -g --defined-only "$lib" | awk 'NF == 3 {print $3}' | sort -u)
if echo "$defined" | grep -qx 'cr_world_step_fixed_q32'; then
    suffix=_fixed_q32
elif echo "$defined" | grep -qx 'cr_world_step_float32'; then
    suffix=_float32
else
    echo "FAIL $lib defines neither cr_world_step_float32 nor cr_world_step_fixed_q32: link names without the mode"
    suffix=_none
    bad=1
fi
public=$(sed -n 's/^#define \(cr_[A-Za-z0-9_]*\) CR_LINK_NAME(\1)$/\1/p' "$inc"/*.h | sort -u | sed "s/\$/$suffix/")
unsuffixed=$(echo "$defined" | grep '^cr_' | grep -v -- "$suffix\$")
[ -z "$unsuffixed" ] || { echo "FAIL $lib defines public functions without the mode suffix $suffix (add #define NAME CR_LINK_NAME(NAME) to their header):"; echo "$unsuffixed"; bad=1; }
stray=$(echo "$defined" | grep -v '^cri_' | grep -vxF "$public")
[ -z "$stray" ] || { echo "FAIL $lib defines external symbols neither renamed in a public header nor named cri_:"; echo "$stray"; bad=1; }
# the libc README promises, and nothing else: every undefined symbol is the
# library's own (cr_, cri_), one of these, or a compiler helper (__aeabi_*,
# __udivdi3 on 32-bit targets) or the linker's _GLOBAL_OFFSET_TABLE_
libc_allowed="memcmp memcpy memmove memset"
undef=$(nm "$lib" | grep ' U ' | awk '{print $2}' | sort -u | grep -v '^cri\{0,1\}_' | tr '\n' ' ')
for sym in $undef; do
    case " $libc_allowed " in *" $sym "*) continue ;; esac
    case $sym in __*|_GLOBAL_OFFSET_TABLE_) continue ;; esac
    echo "FAIL $lib needs $sym from libc, which README.md does not list (it says: $libc_allowed)"
    bad=1
done
[ $bad -eq 0 ] && echo "ok   $lib: no heap, no writable data, no libm; libc: ${libc_allowed}; external symbols: ${undef:-none}"
exit $bad
