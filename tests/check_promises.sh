#!/bin/sh
# check_promises.sh LIB — what nm can prove about the runtime library:
#   no heap (malloc/calloc/realloc/free/...), no writable global or static data
#   (B/b/D/d symbols), no libm transcendentals (determinism across CPUs),
#   no libc beyond memset, memcpy, memmove and memcmp (README.md says so; gcc
#   also turns copy loops into them, so a loop does not avoid one),
#   and every defined external symbol is either declared in a public header
#   (runtime/include/crumple/) or carries the internal prefix cri_.
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
# declared functions, and the mode-tagged link names real.h maps some of them to
public=$( (grep -ohE '\bcr_[A-Za-z0-9_]+[[:space:]]*\(' "$inc"/*.h | sed 's/[[:space:]]*($//';
          sed -n 's/^#define cr_[A-Za-z0-9_]* \(cr_[A-Za-z0-9_]*_\(float32\|fixed_q32\)\)$/\1/p' "$inc"/*.h) | sort -u)
stray=$(nm -g --defined-only "$lib" | awk 'NF == 3 {print $3}' | sort -u | grep -v '^cri_' |
        grep -vxF "$public")
[ -z "$stray" ] || { echo "FAIL $lib defines external symbols neither in a public header nor named cri_:"; echo "$stray"; bad=1; }
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
