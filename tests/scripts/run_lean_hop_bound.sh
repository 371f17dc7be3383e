#!/usr/bin/env bash
# scripts/lean_hop_bound.cpp applies a cycle's events in any order, and carries packets by handle
# or by value, with its own calendar or hxsim's pool of event slots: every combination of its
# flags must carry the same packets over the same links (docs/performance/engine.md, "What
# bounds a core").
# Usage: run_lean_hop_bound.sh LEAN_HOP_BOUND
set -euo pipefail
bound=$1
reference=$("$bound" 0.025 2000 0 | cut -d, -f1-3)
echo "flags 0: $reference"
for flags in $(seq 1 15); do
  run=$("$bound" 0.025 2000 "$flags" | cut -d, -f1-3)
  if [[ "$run" != "$reference" ]]; then
    echo "FAIL: flags $flags changed the run: $run"; exit 1
  fi
done
delivered=$(echo "$reference" | awk -F', ' '{print $3 + 0}')
if ((delivered == 0)); then
  echo "FAIL: no packets delivered"; exit 1
fi
echo "PASS: $delivered packets delivered, the same under all 16 combinations of flags"
