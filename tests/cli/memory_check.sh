#!/usr/bin/env bash
# The memory check before the build (docs/OPERATIONS.md, "Memory"): the quickstart grown to a
# 545-million-component Dragonfly (about 2 TiB) is refused with exit code 2 and the numbers, on
# 1 and on 2 ranks; with --ignore-memory-check the same run goes on to build, which here ends in
# a failed allocation, reported as running out of memory (exit code 6) on 1 and 2 ranks. Every
# run is under a 1.5 GB address-space limit (ulimit -v, which the check does not read), so that a
# broken check fails to allocate instead of waking the OOM killer.
# hxsim sweep checks before each point's build as run does, and takes the same flag.
# The estimate includes the workload's set-up: a direct all-to-all on 263,168 endpoints, small
# to build but with programs that grow with the square of the endpoints, is refused at once by a
# lower bound (the sample's set-up stops once it is certain), and validate's sample stops at 1 GiB.
# A time series of 10^7 bins, whose tables every rank holds (6.4 GiB each, counted twice), is
# refused on 4 ranks before anything is built; validate does not sample it.
# Usage: memory_check.sh HXSIM MPIRUN_SH QUICKSTART_TOML SCRATCH_DIR ALLTOALL_TOML
set -uo pipefail
hxsim=$1 mpirun_sh=$2 quickstart=$3 scratch=$4 alltoall=$5
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
    grep -Eq "building this model needs (about|at least) [12]\.[0-9] TiB" "$name.err" &&  # ~2 TiB
    grep -q "(MemAvailable in /proc/meminfo)\|(cgroup limit " "$name.err" &&
    [[ ! -e huge.h5 ]] && [[ ! -e huge_sweep.h5 ]]
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

# ignored NAME LAUNCHER...: with --ignore-memory-check the build starts and fails to allocate,
# which every rank that runs out reports as such (exit code 6), not as an internal error.
ignored() {
  local name=$1 rc=0
  shift
  limited "$@" "$hxsim" "${huge[@]}" --ignore-memory-check >"$name.out" 2>"$name.err" || rc=$?
  if [[ $rc == 6 ]] && ! grep -q "needs about\|internal error" "$name.err" &&
    grep -q "hxsim: error: out of memory on rank [01] (resident peak [0-9]* MiB)" "$name.err" &&
    [[ ! -e huge.h5 ]] && [[ ! -e huge_sweep.h5 ]]; then
    echo "PASS: $name --ignore-memory-check: the build starts and runs out of memory (exit 6)"
  else
    echo "FAIL: $name --ignore-memory-check: exit $rc, expected 6 and the out-of-memory message:"
    head -5 "$name.err"
    failures=1
  fi
}
ignored run
ignored run_two_ranks env OMPI_MCA_rmaps_base_oversubscribe=1 bash "$mpirun_sh" -n 2

huge=(sweep "$quickstart" --max 0.05 -o huge_sweep.h5 --set dragonfly.a=256 --set dragonfly.h=128
  --set dragonfly.p=64)
refused sweep
ignored sweep

# expect NAME RC PATTERN LAUNCHER...: the command (hxsim and its arguments, after a launcher if
# any) exits RC, prints a line matching PATTERN (grep -E, stdout and stderr together) and leaves
# no output file.
expect() {
  local name=$1 want=$2 pattern=$3 rc=0
  shift 3
  limited "$@" >"$name.out" 2>&1 || rc=$?
  if [[ $rc == "$want" ]] && [[ ! -e "$name.h5" ]] && grep -Eq "$pattern" "$name.out"; then
    echo "PASS: $name: $(grep -Eo "$pattern" "$name.out" | head -1 | cut -c1-100)"
  else
    echo "FAIL: $name: exit $rc, expected $want and /$pattern/:"
    tail -5 "$name.out"
    failures=1
  fi
}

a2a=("$alltoall" --set dragonfly.p=16 --set dragonfly.a=32 --set dragonfly.h=16)
lower="needs at least [0-9.]+ [GT]iB .*measured on a sample built and set up in part[,)]"
expect alltoall 2 "$lower" "$hxsim" run "${a2a[@]}" --progress off -o alltoall.h5
expect alltoall_validate 0 "build memory: at least .*built and set up in part" \
  "$hxsim" validate "${a2a[@]}"

series=("$quickstart" --set sim.end_time=9999ns --set traffic.timeseries_bin=1ps)
tables="on each of 4 rank\(s\): 12\.[0-9] GiB for tables \(twice what they hold\)\)"
expect series 2 "$tables" env OMPI_MCA_rmaps_base_oversubscribe=1 bash "$mpirun_sh" -n 4 \
  "$hxsim" run "${series[@]}" --progress off -o series.h5
unsampled="build memory: not sampled: the tables every rank holds take 6[0-9]*\.[0-9] MiB"
expect series_validate 0 "$unsampled" "$hxsim" validate "${series[@]}"
exit "$failures"
