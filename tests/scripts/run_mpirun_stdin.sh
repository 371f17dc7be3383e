#!/usr/bin/env bash
# scripts/mpirun.sh leaves the caller's input alone: a loop reading a list runs every line,
# however many ranks each launch has (mpirun passes its input to rank 0 unless told not to).
# Usage: run_mpirun_stdin.sh MPIRUN_SH
set -euo pipefail
mpirun_sh=$1
runs=0
while read -r ranks; do
  bash "$mpirun_sh" -n "$ranks" true
  runs=$((runs + 1))
done < <(printf '1\n2\n1\n')
[ "$runs" -eq 3 ] || { echo "FAIL: 3 lines, $runs launches: mpirun took the loop's input"; exit 1; }
echo "PASS: 3 lines, 3 launches"
