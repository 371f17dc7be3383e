#!/usr/bin/env bash
# Synthetic traffic at flow level is the flow level's worst case, and a run says so on stderr
# before it starts (docs/performance/models.md, "Synthetic traffic of small messages"); the same
# traffic at packet level, and a collective at flow level, do not.
# Usage: flow_note.sh HXSIM SCRATCH_DIR
set -euo pipefail
hxsim=$1 scratch=$2
rm -rf "$scratch" && mkdir -p "$scratch" && cd "$scratch"
short=(--progress off --set traffic.warmup=100cycles --set traffic.measure=200cycles)
note="hxsim: note: synthetic traffic at flow level"
"$hxsim" run "${short[@]}" --set sim.fidelity=flow -o flow.h5 >/dev/null 2>flow.err
"$hxsim" run "${short[@]}" -o packet.h5 >/dev/null 2>packet.err
"$hxsim" run "${short[@]}" --set sim.fidelity=flow --set workload.kind=collective \
  --set workload.bytes=64KiB -o collective.h5 >/dev/null 2>collective.err
failures=0
if ! grep -q "$note" flow.err; then
  echo "FAIL: no note for synthetic traffic at flow level:"; cat flow.err; failures=1
fi
for run in packet collective; do
  if grep -q "hxsim: note:" "$run.err"; then
    echo "FAIL: the $run run has a note:"; cat "$run.err"; failures=1
  fi
done
((failures == 0)) && echo "PASS: synthetic traffic at flow level noted, and only it"
exit "$failures"
