#!/usr/bin/env bash
# hbd_cluster on a hand trace (cases/hbd_trace.csv: 8 nodes of 4 GPUs, TP-8, 10 days; node 2
# down days 1-3, node 3 days 2-4). Worked by hand: Big-Switch, InfiniteHBD K = 2 (one run of 7
# healthy nodes, or {0,1} and {4..7} when 2 and 3 are both down) and SiP-Ring (rings {2,3} lost)
# place 24 GPUs while a node is down and 32 otherwise: 4 GPUs wasted on days 1-2 and 3-4, none
# on day 2-3 (24 healthy, 24 placed), so the mean waste is 2 x 4/32 / 10 = 2.50%, the P99 and
# the max 12.50%. TPUv4's cube is the whole cluster (32 GPUs, a partial cube): lost from day 1
# to day 4, wasting 28, 24, 28 GPUs: mean (28 + 24 + 28) / 32 / 10 = 25.00%, max 87.50%. A job of
# all 32 GPUs waits 3 days (259,200 s); one of 24 waits none, except on TPUv4 (3 days).
# Usage: hbd_cluster.sh HXSIM CASES_DIR SCRATCH
set -euo pipefail
hxsim=$1 cases=$2 scratch=$3
rm -rf "$scratch" && mkdir -p "$scratch"
out=$("$hxsim" run "$cases/hbd_cluster.toml" --set "hbd_cluster.trace=$cases/hbd_trace.csv" \
  --progress off -o "$scratch/c.h5")
fail() { echo "hbd_cluster.sh: $*"; echo "$out"; exit 1; }
for line in 'big_switch TP-8: 2.50% / 12.50% / 12.50%, 24 GPUs' \
    'infinitehbd_k2 TP-8: 2.50% / 12.50% / 12.50%, 24 GPUs' \
    'sip_ring TP-8: 2.50% / 12.50% / 12.50%, 24 GPUs' \
    'tpuv4 TP-8: 25.00% / 87.50% / 87.50%, 0 GPUs' \
    '32 GPUs (8 nodes), 2 faults over 10d'; do
  grep -qF "$line" <<<"$out" || fail "missing: $line"
done
/usr/bin/python3 - "$scratch/c.h5" <<'PY'
import sys
import h5py
with h5py.File(sys.argv[1], "r") as f:
    w = f["hbd_waiting"]
    got = list(zip(w["job_gpus"][()], w["wait_s"][()]))
    # runs in order big_switch, infinitehbd_k2, sip_ring, tpuv4; job scales 0.75 and 1
    want = [(24, 0), (32, 259200)] * 3 + [(24, 259200), (32, 259200)]
    assert got == want, f"/hbd_waiting {got}, expected {want}"
    s = f["hbd_series"]
    assert list(s["time_s"][()][:5]) == [0, 86400, 172800, 259200, 345600], s["time_s"][()]
    assert list(s["wasted"][()][:5]) == [0, 4, 0, 4, 0], s["wasted"][()]
PY
echo "hbd_cluster.sh: ok"
