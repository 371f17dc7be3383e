#!/bin/bash
# Every shipped config at 1 rank and at R ranks, at both fidelities, each cut at END of simulated
# time: prints one line per (config, fidelity) with both exit codes and scripts/h5compare.py's
# verdict. A determinism check beyond the tests' configs (docs/VALIDATION.md, "Determinism").
#
#   scripts/rank_sweep.sh [HXSIM] [RANKS] [END]     defaults: build/src/app/hxsim 2 2us
#
# A run that exceeds 90 s of wall time is stopped and shows its timeout's exit code (124).
set -u
cd "$(dirname "$0")/.."
hxsim=${1:-build/src/app/hxsim}
ranks=${2:-2}
end=${3:-2us}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for config in $(find configs -name "*.toml" | sort); do
  name=$(echo "$config" | sed 's|configs/||; s|/|_|g; s|\.toml$||')
  for fidelity in packet flow; do
    line="$name $fidelity"
    for n in 1 "$ranks"; do
      timeout 90 bash scripts/mpirun.sh -n "$n" "$hxsim" run "$config" \
        --set sim.fidelity="$fidelity" --set sim.end_time="$end" --progress off \
        -o "$out/$n.h5" > "$out/$n.log" 2>&1
      line="$line rc$n=$?"
    done
    if [ -f "$out/1.h5" ] && [ -f "$out/$ranks.h5" ]; then
      line="$line $(/usr/bin/python3 scripts/h5compare.py "$out/1.h5" "$out/$ranks.h5" 2>&1 | tail -n 1)"
    else
      line="$line $(grep -m 1 'error' "$out/1.log")"
    fi
    echo "$line"
    rm -f "$out"/*.h5
  done
done
