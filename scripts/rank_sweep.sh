#!/bin/bash
# Every shipped config at 1 rank and at R ranks, at both fidelities, each cut at END of simulated
# time: prints one line per (config, fidelity) with the exit codes and scripts/h5compare.py's
# verdict. A determinism check beyond the tests' configs (docs/VALIDATION.md, "Determinism").
#
#   scripts/rank_sweep.sh [HXSIM] [RANKS] [END] [MID]    defaults: build/src/app/hxsim 2 2us
#
# With MID, the second run is a restart instead: one rank checkpoints at MID (--checkpoint-every)
# and RANKS ranks resume from that checkpoint to END. A run with no work left at MID writes no
# checkpoint ("no checkpoint"). A run that exceeds 90 s of wall time is stopped and shows its
# timeout's exit code (124).
set -u
cd "$(dirname "$0")/.."
hxsim=${1:-build/src/app/hxsim}
ranks=${2:-2}
end=${3:-2us}
mid=${4:-}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() {  # run NAME RANKS ARGS...: one run into $out/NAME.h5, its exit code appended to $line
  local name=$1 n=$2
  shift 2
  timeout 90 bash scripts/mpirun.sh -n "$n" "$hxsim" run "$@" --progress off -o "$out/$name.h5" \
    > "$out/$name.log" 2>&1
  line="$line $name=$?"
}
for config in $(find configs -name "*.toml" | sort); do
  name=$(echo "$config" | sed 's|configs/||; s|/|_|g; s|\.toml$||')
  for fidelity in packet flow; do
    line="$name $fidelity"
    settings=(--set sim.fidelity="$fidelity" --set sim.end_time="$end")
    run one 1 "$config" "${settings[@]}"
    if [ -z "$mid" ]; then
      run other "$ranks" "$config" "${settings[@]}"
    else
      run checkpointed 1 "$config" "${settings[@]}" --checkpoint-every "$mid" \
        --checkpoint-keep 100 --checkpoint-dir "$out/ckpt"
      checkpoint=$(ls -d "$out"/ckpt/ckpt-* 2> /dev/null | head -n 1)
      if [ -n "$checkpoint" ]; then
        run other "$ranks" --restart "$checkpoint"
      else
        line="$line (no checkpoint)"
      fi
    fi
    if [ -f "$out/one.h5" ] && [ -f "$out/other.h5" ]; then
      line="$line $(/usr/bin/python3 scripts/h5compare.py "$out/one.h5" "$out/other.h5" 2>&1 | tail -n 1)"
    elif [ -f "$out/one.log" ]; then
      line="$line $(grep -m 1 'error' "$out/one.log")"
    fi
    echo "$line"
    rm -rf "$out"/*.h5 "$out/ckpt"
  done
done
