#!/bin/sh
# check_promises.sh LIB — what nm can prove about the runtime library:
#   no heap (malloc/calloc/realloc/free/...), no writable global or static data
#   (B/b/D/d symbols), no libm transcendentals (determinism across CPUs).
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
undef=$(nm "$lib" | grep ' U ' | awk '{print $2}' | sort -u | grep -v '^cr_' | tr '\n' ' ')
[ $bad -eq 0 ] && echo "ok   $lib: no heap, no writable data, no libm; external symbols: ${undef:-none}"
exit $bad
