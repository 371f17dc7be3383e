#!/usr/bin/env bash
# Folding is exact (docs/MODELS.md "Folding"): a config run folded (sim.fold = auto) at 1 and 2
# ranks gives the same data, to the bit, as the same config with every endpoint simulated
# (sim.fold = off), apart from the key itself and /summary folded_members and events. The folded run must
# have folded. Usage: run_fold_exact.sh HXSIM MPIRUN_SH H5COMPARE CONFIG SCRATCH_DIR
set -euo pipefail
hxsim=$1 mpirun_sh=$2 h5compare=$3 config=$4 scratch=$5
mkdir -p "$scratch"
rm -f "$scratch"/*.h5

run() {  # run RANKS FOLD
  local out="$scratch/np$1_$2.h5"
  bash "$mpirun_sh" -n "$1" "$hxsim" run "$config" -o "$out" --progress off \
    --set "sim.fold=$2" > "$scratch/np$1_$2.log" 2>&1 ||
    { echo "run at $1 ranks (fold $2) failed:"; cat "$scratch/np$1_$2.log"; exit 1; }
}

run 1 off
grep -q "not folded" "$scratch/np1_off.log" || { echo "FAIL: fold = off folded"; exit 1; }
failed=0
for ranks in 1 2; do
  run "$ranks" auto
  if ! grep -q "^  folded: " "$scratch/np${ranks}_auto.log"; then
    echo "FAIL: the run at $ranks ranks did not fold:"; grep "folded" "$scratch/np${ranks}_auto.log"
    failed=1
    continue
  fi
  if /usr/bin/python3 "$h5compare" --ignore /config --ignore-attr config_hash \
      --ignore-attr /summary/folded_members --ignore-attr /summary/events "$scratch/np1_off.h5" "$scratch/np${ranks}_auto.h5"; then
    echo "PASS folded at $ranks ranks"
  else
    echo "FAIL folded at $ranks ranks"; failed=1
  fi
done
[ "$failed" -eq 0 ]
