#!/usr/bin/env bash
# Checkpoint and restart across rank counts (DESIGN §3.9): a run checkpoints at time T on W
# ranks and is restarted from that checkpoint on R ranks; its output must equal that of an
# uninterrupted 1-rank run (scripts/h5compare.py: every dataset and attribute but the per-rank
# /engine and /partition). Pairs W->R: 1->1, 2->2, 2->3, 4->1. The runs that write the
# checkpoints go on to the end, so they also show that taking a checkpoint changes nothing.
# With END_TIMES (comma-separated), the 1-rank checkpoint is also restarted with each as
# sim.end_time (a run on further, or less far, than planned; its /timeseries has other rows)
# and must equal an uninterrupted run to that end.
# Usage: run_restart.sh HXSIM MPIRUN_SH H5COMPARE CONFIG CHECKPOINT_TIME SCRATCH_DIR [END_TIMES]
set -euo pipefail
hxsim=$1 mpirun_sh=$2 h5compare=$3 config=$4 at=$5 scratch=$6 end_times=${7:-}
rm -rf "$scratch" && mkdir -p "$scratch"

run() {  # run NAME RANKS ARGS...: fails the test with the log if hxsim fails
  local name=$1 ranks=$2
  shift 2
  bash "$mpirun_sh" -n "$ranks" "$hxsim" run --progress off "$@" > "$scratch/$name.log" 2>&1 ||
    { echo "$name failed:"; cat "$scratch/$name.log"; exit 1; }
}
failed=0
compare() {  # compare NAME [REFERENCE]
  if /usr/bin/python3 "$h5compare" "$scratch/${2:-reference}.h5" "$scratch/$1.h5"; then
    echo "PASS $1"
  else
    echo "FAIL $1"; failed=$((failed + 1))
  fi
}

run reference 1 "$config" -o "$scratch/reference.h5"
for writers in 1 2 4; do
  run "write$writers" "$writers" "$config" -o "$scratch/write$writers.h5" \
    --checkpoint-dir "$scratch/ckpt$writers" --checkpoint-every "$at" --checkpoint-keep 100
  compare "write$writers"
done
for pair in 1:1 2:2 2:3 4:1; do
  writers=${pair%:*} ranks=${pair#*:}
  # The first checkpoint, at T: ckpt-<T in ps, 20 digits>.
  first=$(ls -d "$scratch/ckpt$writers"/ckpt-* | head -1)
  grep -q "^ranks = $writers$" "$first/manifest" || { echo "FAIL $first: not written by $writers"; exit 1; }
  run "restart${writers}to$ranks" "$ranks" --restart "$first" -o "$scratch/restart${writers}to$ranks.h5"
  compare "restart${writers}to$ranks"
done
first=$(ls -d "$scratch/ckpt1"/ckpt-* | head -1)
for end in ${end_times//,/ }; do
  run "reference_$end" 1 "$config" -o "$scratch/reference_$end.h5" --set "sim.end_time=$end"
  run "restart_$end" 1 --restart "$first" -o "$scratch/restart_$end.h5" --set "sim.end_time=$end"
  compare "restart_$end" "reference_$end"
done
[ "$failed" -eq 0 ]
