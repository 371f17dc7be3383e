#!/usr/bin/env bash
# Determinism across rank counts and partitioners (DESIGN §3.3): runs one config at 1..4 ranks
# with each partitioner (default: group and round-robin) and compares every output dataset with
# the 1-rank run's (scripts/h5compare.py compares data, ignoring /engine, /partition and run-only
# root attributes).
# Usage: run_determinism.sh HXSIM MPIRUN_SH H5COMPARE CONFIG SCRATCH_DIR ["PARTITIONERS"]
set -euo pipefail
hxsim=$1 mpirun_sh=$2 h5compare=$3 config=$4 scratch=$5 partitioners=${6:-group round_robin}
mkdir -p "$scratch"
rm -f "$scratch"/*.h5

run() {  # run RANKS PARTITIONER
  local out="$scratch/np$1_$2.h5"
  bash "$mpirun_sh" -n "$1" "$hxsim" run "$config" -o "$out" --progress off \
    --set "sim.partitioner=$2" > "$scratch/np$1_$2.log" 2>&1 ||
    { echo "run at $1 ranks ($2) failed:"; cat "$scratch/np$1_$2.log"; exit 1; }
}

run 1 group
passed=0 failed=0
for partitioner in $partitioners; do
  for ranks in 1 2 3 4; do
    [ "$ranks/$partitioner" = "1/group" ] && continue
    run "$ranks" "$partitioner"
    # The partitioner is a [sim] key, so /config and its hash name it; everything else must match.
    ignore=()
    [ "$partitioner" = group ] || ignore=(--ignore /config --ignore-attr config_hash)
    if /usr/bin/python3 "$h5compare" "${ignore[@]}" "$scratch/np1_group.h5" \
        "$scratch/np${ranks}_$partitioner.h5"; then
      echo "PASS $ranks ranks, $partitioner"; passed=$((passed + 1))
    else
      echo "FAIL $ranks ranks, $partitioner"; failed=$((failed + 1))
    fi
  done
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
