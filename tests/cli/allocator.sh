#!/usr/bin/env bash
# The allocator (src/engine/heap.h): a jemalloc build has the heap on transparent huge pages
# through the executable's own malloc_conf, which jemalloc only finds if the symbol is exported,
# so a link change could turn the pages off without a word. --version and the run's /engine
# attribute name the allocator and its page policy, and MALLOC_CONF still overrides it.
# Usage: allocator.sh HXSIM SCRATCH_DIR ALLOCATOR (jemalloc or system, as configured)
set -euo pipefail
hxsim=$1 scratch=$2 allocator=$3
rm -rf "$scratch" && mkdir -p "$scratch" && cd "$scratch"
failures=0
fail() { echo "FAIL: $*"; failures=1; }

line=$(env -u MALLOC_CONF "$hxsim" --version | sed -n 's/^allocator: //p')
never=$(MALLOC_CONF=thp:never "$hxsim" --version | sed -n 's/^allocator: //p')
if [[ $allocator == jemalloc ]]; then
  [[ $line =~ ^jemalloc\ [0-9].*\(thp\ always\)$ ]] || fail "--version says '$line'"
  [[ $never =~ ^jemalloc\ .*\(thp\ never\)$ ]] || fail "MALLOC_CONF=thp:never gives '$never'"
else
  [[ $line == system ]] || fail "--version says '$line' in a system-allocator build"
fi

env -u MALLOC_CONF "$hxsim" run --progress off --set traffic.warmup=100cycles \
  --set traffic.measure=100cycles -o run.h5 >/dev/null
recorded=$(/usr/bin/python3 -c 'import h5py, sys
a = h5py.File(sys.argv[1], "r")["/engine"].attrs["allocator"]
print(a.decode() if isinstance(a, bytes) else a)' run.h5)
[[ $recorded == "$line" ]] || fail "/engine allocator is '$recorded', --version '$line'"
exit $failures
