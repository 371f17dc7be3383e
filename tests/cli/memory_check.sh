#!/usr/bin/env bash
# The memory check before the build (docs/OPERATIONS.md, "Memory"): the quickstart grown to a
# 545-million-component Dragonfly (about 2 TiB) is refused with exit code 2 and the numbers, on
# 1 and on 2 ranks; with --ignore-memory-check the same run goes on to build, which here ends in
# a failed allocation. Every run is under a 1.5 GB address-space limit (ulimit -v, which the
# check does not read), so that a broken check fails to allocate instead of waking the OOM killer.
# Usage: memory_check.sh HXSIM MPIRUN_SH SCRATCH_DIR
set -uo pipefail
hxsim=$1 mpirun_sh=$2 scratch=$3
rm -rf "$scratch" && mkdir -p "$scratch" && cd "$scratch" || exit 1
huge=(run --progress off -o huge.h5 --set dragonfly.a=256 --set dragonfly.h=128
  --set dragonfly.p=64)
limited() { (ulimit -v 1500000 && exec "$@"); }
failures=0

refused() {  # refused NAME LAUNCHER...: the run is refused with exit 2, one message, no output
  local name=$1 rc=0
  shift
  limited "$@" "$hxsim" "${huge[@]}" >"$name.out" 2>"$name.err" || rc=$?
  if [[ $rc == 2 ]] && [[ $(grep -c "hxsim: error: " "$name.err") == 1 ]] &&
    grep -Eq "building this model needs about [12]\.[0-9] TiB" "$name.err" &&  # ~2 TiB: bytes per component vary by build
    grep -q "(MemAvailable in /proc/meminfo)\|(cgroup limit " "$name.err" && [[ ! -e huge.h5 ]]
  then
    echo "PASS: $name: refused: $(grep -m1 "hxsim: error: " "$name.err" | cut -c1-100)..."
  else
    echo "FAIL: $name: exit $rc, expected 2 and one message with the estimate:"
    head -5 "$name.err"
    failures=1
  fi
}
refused one_rank
refused two_ranks env OMPI_MCA_rmaps_base_oversubscribe=1 bash "$mpirun_sh" -n 2

rc=0
limited "$hxsim" "${huge[@]}" --ignore-memory-check >ignored.out 2>ignored.err || rc=$?
if [[ $rc != 0 ]] && ! grep -q "needs about" ignored.err && grep -q "bad_alloc" ignored.err; then
  echo "PASS: --ignore-memory-check: the build starts (and fails to allocate, exit $rc)"
else
  echo "FAIL: --ignore-memory-check: exit $rc:"; head -5 ignored.err; failures=1
fi
exit "$failures"
