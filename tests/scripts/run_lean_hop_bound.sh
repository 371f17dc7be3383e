#!/usr/bin/env bash
# scripts/lean_hop_bound.cpp applies a cycle's events in any order, and carries packets by handle
# or by value, with its own calendar or hxsim's pool of event slots: every combination of flags
# 1, 2, 4 and 8 must carry the same packets over the same links, with its own allocation and
# with hxsim's (flag 16) (docs/performance/engine.md, "What bounds a core").
# Usage: run_lean_hop_bound.sh LEAN_HOP_BOUND
set -euo pipefail
bound=$1
for base in 0 16; do
  reference=$("$bound" 0.1 1000 "$base" | cut -d, -f1-4)
  echo "flags $base: $reference"
  for flags in $(seq $((base + 1)) $((base + 15))); do
    run=$("$bound" 0.1 1000 "$flags" | cut -d, -f1-4)
    if [[ "$run" != "$reference" ]]; then
      echo "FAIL: flags $flags changed the run: $run"; exit 1
    fi
  done
  delivered=$(echo "$reference" | awk -F', ' '{print $3 + 0}')
  if ((delivered == 0)); then
    echo "FAIL: no packets delivered with flags $base"; exit 1
  fi
  echo "PASS: $delivered packets delivered, the same under flags $base to $((base + 15))"
done
