#!/usr/bin/env bash
# hbd_orchestration on a hand-worked cluster: 64 GPUs in 8 nodes of 8, two per ToR, aggregation
# domains of 4 nodes, K = 2, TP-16 (two nodes per group). Algorithm 3 deploys the sub-lines
# {0,2,4,6} and {1,3,5,7}; with no faults Algorithm 5 keeps all 6 constraints and places the
# groups {0,2} {1,3} {4,6} {5,7}, ranked so that each CP pair shares its ToRs: 0-1 and 2-3 under
# ToRs 0 and 1, 4-5 and 6-7 under 2 and 3, so no CP edge crosses a ToR, for a job of 32 or 64
# GPUs. With every node faulty neither algorithm places anything. (Ranks: determinism.hbd_orchestration.)
# Usage: hbd_orchestration.sh HXSIM SCRATCH
set -euo pipefail
hxsim=$1 scratch=$2
rm -rf "$scratch" && mkdir -p "$scratch"
sets=(--set hbd_orchestration.gpus=64 --set hbd_orchestration.domain_gpus=32
  --set hbd_orchestration.tp=16 --set "hbd_orchestration.job_scales=0.5, 1"
  --set "hbd_orchestration.fault_ratios=0, 1" --set hbd_orchestration.samples=10)
config=$(dirname "$0")/../../configs/infinitehbd/orchestration.toml
out=$("$hxsim" run "$config" "${sets[@]}" --progress off -o "$scratch/one.h5")
fail() { echo "hbd_orchestration.sh: $*"; echo "$out"; exit 1; }
for line in '64 GPUs, job 50%, faults 0.0%: 0.00% (10) / ' \
    '64 GPUs, job 100%, faults 0.0%: 0.00% (10) / ' \
    '64 GPUs, job 100%, faults 100.0%: - (0) / 0.00% (0)'; do
  grep -qF "$line" <<<"$out" || fail "missing: $line"
done
/usr/bin/python3 - "$scratch/one.h5" <<'PY'
import math
import sys
import h5py
with h5py.File(sys.argv[1], "r") as f:
    t = {k: f["hbd_cross_tor"][k][()] for k in f["hbd_cross_tor"].keys()}
# points in order: ratio 0 (job 0.5, 1), ratio 1 (job 0.5, 1)
assert list(t["job_gpus"]) == [32, 64, 32, 64], t["job_gpus"]
assert list(t["optimized_placed"]) == [10, 10, 0, 0], t["optimized_placed"]
assert list(t["optimized_constraints"][:2]) == [1.0, 1.0], t["optimized_constraints"]
assert all(math.isnan(v) for v in t["optimized_cross"][2:]), t["optimized_cross"]
assert list(t["baseline_placed"][2:]) == [0, 0], t["baseline_placed"]
assert all(0 <= v <= 1 for v in t["baseline_cross"]), t["baseline_cross"]
PY
echo "hbd_orchestration.sh: ok"
