#!/usr/bin/env bash
# The memory watch (docs/OPERATIONS.md, "Memory"): a run whose memory grows while it runs stops
# at a window boundary once a rank's resident memory passes its limit, with a checkpoint, its
# results so far (complete = 0) and exit code 6; restarted from that checkpoint on another number
# of ranks (1 and 3), it ends with what the uninterrupted run gives. The growth here is the
# quickstart's /flows rows over a 150,000-cycle window (each rank holds about 28 MiB at the start
# and 70 MiB at the end on 2 ranks), cut by --memory-limit 50MiB. A limit below the build's
# estimate is refused before the build (exit 2), and so is a malformed one.
# Usage: memory_watch.sh HXSIM MPIRUN_SH QUICKSTART_TOML H5COMPARE SCRATCH_DIR
set -uo pipefail
hxsim=$1 mpirun_sh=$2 quickstart=$3 h5compare=$4 scratch=$5
rm -rf "$scratch" && mkdir -p "$scratch" && cd "$scratch" || exit 1
grow=(--set traffic.measure=150000cycles --progress off)
failures=0
fail() { echo "FAIL: $*"; failures=1; }

bash "$mpirun_sh" -n 1 "$hxsim" run "$quickstart" "${grow[@]}" -o reference.h5 \
  >reference.out 2>&1 || fail "the reference run failed: $(tail -3 reference.out)"

rc=0
bash "$mpirun_sh" -n 2 "$hxsim" run "$quickstart" "${grow[@]}" --memory-limit 50MiB -o cut.h5 \
  >cut.out 2>cut.err || rc=$?
complete=$(/usr/bin/python3 -c "import h5py; print(h5py.File('cut.h5')['/'].attrs['complete'])" \
  2>/dev/null)
if [[ $rc == 6 ]] && [[ $complete == 0 ]] && [[ -f cut.ckpt/latest ]] && ! grep -q "Exit code: *5" cut.err &&
  grep -Eq "^hxsim: error: out of memory: rank [01] held [0-9.]+ MiB and needs [0-9.]+ MiB more" \
    cut.err && grep -q "to write its output, past its limit of 50.0 MiB" cut.err && grep -q "(--memory-limit); stopped at .* with a checkpoint and results" cut.err &&
  grep -q "more nodes): hxsim run --restart cut.ckpt/ckpt-" cut.err
then
  echo "PASS: stopped with exit 6: $(head -1 cut.err | cut -c1-120)..."
else
  fail "exit $rc (expected 6), complete = '$complete' (expected 0):"
  cat cut.err
fi

for ranks in 1 3; do
  if bash "$mpirun_sh" -n $ranks "$hxsim" run --restart cut.ckpt -o restarted$ranks.h5 \
    --progress off >restarted$ranks.out 2>&1 &&
    /usr/bin/python3 "$h5compare" reference.h5 restarted$ranks.h5; then
    echo "PASS: restarted on $ranks rank(s), identical to the uninterrupted run"
  else
    fail "the restart on $ranks rank(s): $(tail -3 restarted$ranks.out)"
  fi
done

refused() {  # refused NAME PATTERN ARGS...: exit 2 with PATTERN in the message, no output
  local name=$1 pattern=$2 rc=0
  shift 2
  "$hxsim" run "$quickstart" --progress off -o "$name.h5" "$@" >"$name.out" 2>"$name.err" || rc=$?
  if [[ $rc == 2 ]] && grep -q -- "$pattern" "$name.err" && [[ ! -e $name.h5 ]]; then
    echo "PASS: $name: $(head -1 "$name.err" | cut -c1-120)"
  else
    fail "$name: exit $rc, expected 2 and '$pattern':"
    cat "$name.err"
  fi
}
refused below_estimate "each rank may use 1.0 KiB (--memory-limit)" --memory-limit 1KiB
refused zero "\-\-memory-limit = '0B': expected > 0" --memory-limit 0B
refused malformed "\-\-memory-limit" --memory-limit lots
exit $failures
