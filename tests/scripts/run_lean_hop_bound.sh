#!/usr/bin/env bash
# scripts/lean_hop_bound.cpp applies a cycle's events in any order: sorting them first must not
# change what the run carries (docs/performance/engine.md, "What bounds a core").
# Usage: run_lean_hop_bound.sh LEAN_HOP_BOUND
set -euo pipefail
bound=$1
unsorted=$("$bound" 0.025 2000 0 | cut -d, -f1-3)
sorted=$("$bound" 0.025 2000 3 | cut -d, -f1-3)
echo "unsorted: $unsorted"
echo "sorted:   $sorted"
if [[ "$unsorted" != "$sorted" ]]; then
  echo "FAIL: sorting a cycle's events changed the run"; exit 1
fi
delivered=$(echo "$unsorted" | awk -F', ' '{print $3 + 0}')
if ((delivered == 0)); then
  echo "FAIL: no packets delivered"; exit 1
fi
echo "PASS: $delivered packets delivered, the same in either order"
