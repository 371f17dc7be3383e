#!/usr/bin/env bash
# Synthetic traffic at flow level is the flow level's worst case, and a run says so on stderr
# before it starts (docs/performance/models.md, "Synthetic traffic of small messages"); so does
# a workload whose symmetry the network does not share (an LLM iteration on RailX: every
# endpoint runs, docs/MODELS.md "Folding"), and a workload or synthetic traffic under a
# non-minimal routing (the quickstart's UGAL-L spreads every flow over all intermediate groups),
# and one under a routing whose detours the flow level does not take (RailX's adaptive).
# The same traffic at packet level, and a collective at flow level under minimal routing, do not.
# Usage: flow_note.sh HXSIM SCRATCH_DIR
set -euo pipefail
hxsim=$1 scratch=$2
configs=$(cd "$(dirname "$0")/../../configs" && pwd)
rm -rf "$scratch" && mkdir -p "$scratch" && cd "$scratch"
short=(--progress off --set traffic.warmup=100cycles --set traffic.measure=200cycles)
note="hxsim: note: synthetic traffic at flow level"
"$hxsim" run "${short[@]}" --set sim.fidelity=flow -o flow.h5 >/dev/null 2>flow.err
"$hxsim" run "${short[@]}" -o packet.h5 >/dev/null 2>packet.err
collective=(--set sim.fidelity=flow --set workload.kind=collective --set workload.bytes=64KiB)
"$hxsim" run "${short[@]}" "${collective[@]}" --set dragonfly.routing=minimal \
  -o collective.h5 >/dev/null 2>collective.err
"$hxsim" run "${short[@]}" "${collective[@]}" -o ugal.h5 >/dev/null 2>ugal.err
"$hxsim" run "$configs/railx/fig14a_hyperx.toml" --progress off \
  --set railx.x=hyperx:3 --set railx.y=hyperx:3 --set sim.fidelity=flow \
  --set workload.kind=llm --set llm.preset=gpt3-175b --set llm.tp=16 --set llm.pp=1 \
  --set llm.dp=9 --set llm.micro_batches=1 --set llm.layers=1 --set sim.end_time=1us \
  -o railx.h5 >/dev/null 2>railx.err
"$hxsim" run "$configs/railx/fig14a_hyperx.toml" --progress off --set railx.routing=adaptive \
  --set sim.fidelity=flow --set workload.kind=collective --set workload.bytes=64KiB \
  -o adaptive.h5 >/dev/null 2>adaptive.err
"$hxsim" run "$configs/railx/fig14a_hyperx.toml" --progress off --set railx.routing=adaptive \
  --set workload.kind=collective --set workload.bytes=64KiB --set sim.end_time=2us \
  -o adaptive_packet.h5 >/dev/null 2>adaptive_packet.err
failures=0
detour_note='hxsim: note: routing "adaptive" at flow level: flows keep to the direct paths'
if ! grep -qF "$detour_note" adaptive.err; then
  echo "FAIL: no note for RailX's adaptive routing at flow level:"; cat adaptive.err; failures=1
fi
for run in railx adaptive_packet; do
  if grep -qF "detour" "$run.err"; then
    echo "FAIL: the $run run has a note on detours:"; cat "$run.err"; failures=1
  fi
done
# The reason is the full analysis's (routing every pair the programs use), which the quick probe
# of the first representative's pairs must reproduce (models/flow/folding.cpp, Probe).
why="TP shifts: endpoint 3 to 4 is routed otherwise than endpoint 0 to 1"
if ! grep -qF "hxsim: note: not folded ($why)" railx.err; then
  echo "FAIL: no note for an LLM iteration that does not fold:"; cat railx.err; failures=1
fi
if ! grep -q "$note" flow.err; then
  echo "FAIL: no note for synthetic traffic at flow level:"; cat flow.err; failures=1
fi
for run in ugal flow; do
  if ! grep -qF 'hxsim: note: routing "ugal_l" at flow level' "$run.err"; then
    echo "FAIL: no note for UGAL-L at flow level in the $run run:"; cat "$run.err"; failures=1
  fi
done
for run in packet collective; do
  if grep -q "hxsim: note:" "$run.err"; then
    echo "FAIL: the $run run has a note:"; cat "$run.err"; failures=1
  fi
done
((failures == 0)) &&
  echo "PASS: notes for synthetic traffic, an unfolded iteration, non-minimal routing and detours only"
exit "$failures"
