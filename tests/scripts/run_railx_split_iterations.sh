#!/usr/bin/env bash
# RailX Fig. 16 from simulated iterations: scripts/railx_split_iterations.py on the paper's
# 256-chip split (C = D = 4 nodes of 4 x 4 chips), Llama 3.1 405B cut to 2 layers and 2
# micro-batches, splits 2, 5, 8 of 10 ports, S = 8K and 128K, with and without DP overlap.
# Checked, each from the bytes the links must carry:
# - exposed CP falls as CP gets more ports, and grows with S (Table 4's CP bytes grow with S);
# - exposed DP without overlap is larger at 2 CP ports than at 5: Table 4's QKV and FFN
#   gradients reduce over the C x D ranks as T_2D(n_c, n_d), which puts 2 (C-1)/C V on the CP
#   rails and 2 (D-1)/D V/C on the DP rails (4 x as many bytes on CP at C = D = 4);
# - overlap never exposes more DP time than running the all-reduces after the backward pass.
# The tables (CSV and HDF5 hold the same rows) and the figure are written; a bad split is
# refused.
set -euo pipefail
hxsim=$1 script=$2 scratch=$3
rm -rf "$scratch" && mkdir -p "$scratch"
/usr/bin/python3 "$script" --hxsim "$hxsim" --splits 2,5,8 --seqs 8K,128K --layers 2 \
  --micro-batches 2 --jobs 2 --out "$scratch/small" >/dev/null
test -s "$scratch/small/fig16_iterations.png"
/usr/bin/python3 - "$scratch/small" <<'PY'
import csv, sys, h5py
out = sys.argv[1]
rows = list(csv.DictReader(open(f"{out}/split_iterations.csv")))
best = list(csv.DictReader(open(f"{out}/optimum.csv")))
assert len(rows) == 12 and len(best) == 4, (len(rows), len(best))
with h5py.File(f"{out}/split_iterations.h5", "r") as f:
    assert list(f["split"]["dp_s"][()]) == [float(r["dp_s"]) for r in rows]
    assert list(f["optimum"]["n_c"][()]) == [int(b["n_c"]) for b in best]
at = {(int(r["seq"]), int(r["n_c"]), int(r["overlap"])): r for r in rows}
for seq in (8192, 131072):
    for overlap in (0, 1):
        cp = [float(at[seq, n, overlap]["cp_s"]) for n in (2, 5, 8)]
        assert cp[0] > cp[1] > cp[2], (seq, overlap, cp)
    dp = [float(at[seq, n, 0]["dp_s"]) for n in (2, 5)]
    assert dp[0] > dp[1], (seq, dp)
    for n in (2, 5, 8):
        assert float(at[seq, n, 1]["dp_s"]) <= float(at[seq, n, 0]["dp_s"]), (seq, n)
for n in (2, 5, 8):
    assert float(at[131072, n, 0]["cp_s"]) > float(at[8192, n, 0]["cp_s"]), n
print("best CP ports:", [(b["seq"], b["overlap"], b["n_c"]) for b in best])
PY
if /usr/bin/python3 "$script" --hxsim "$hxsim" --splits 0 --out "$scratch/bad" 2>"$scratch/err"
then
  echo "split 0 was accepted" >&2
  exit 1
fi
grep -q "split 0: n_c must be in 1..9" "$scratch/err"
echo "railx_split_iterations.py: ok"
