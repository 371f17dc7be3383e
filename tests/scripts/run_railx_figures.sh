#!/usr/bin/env bash
# scripts/railx_figures.py end to end on Fig. 14(b) in --tiny mode, shrunk to a 3 x 3-node
# RailX-2D-HyperX (144 chips, --set railx.x/y=hyperx:3): three sweeps, the PNG and summary.csv,
# with saturation throughputs in (0, 8] flits/cycle/chip, k = 4 not below k = 1 (the mesh is
# the bottleneck at k = 1, §6.3) and a wall time per sweep; a second call reuses the files;
# an unknown figure is refused. Fig. 17 in --tiny mode (R = 32, 64): the tables in fig17.h5, the
# worst case never above the mean, availability falling with the failure rate and with the
# scale, and §6.6's 0.1% point above 90%.
set -euo pipefail
hxsim=$1 script=$2 scratch=$3
rm -rf "$scratch" && mkdir -p "$scratch"
small=(--set railx.x=hyperx:3 --set railx.y=hyperx:3)
/usr/bin/python3 "$script" --hxsim "$hxsim" --tiny --figures 14b --out "$scratch" "${small[@]}" >/dev/null
test -s "$scratch/fig14b.png"
for k in 1 2 4; do test -s "$scratch/runs/railx_k${k}_vcs6.h5"; done
/usr/bin/python3 - "$scratch" <<'PY'
import csv, sys, h5py
out = sys.argv[1]
rows = list(csv.DictReader(open(f"{out}/summary.csv")))
sat = {r["curve"]: float(r["value"]) for r in rows
       if r["quantity"] == "saturation_flits_per_cycle_per_chip"}
walls = [float(r["value"]) for r in rows if r["quantity"] == "sweep_wall_s"]
assert set(sat) == {f"RailX-2D-HyperX k={k}, 6 VCs" for k in (1, 2, 4)}, sat
assert all(0 < v <= 8 for v in sat.values()), sat
assert sat["RailX-2D-HyperX k=4, 6 VCs"] >= sat["RailX-2D-HyperX k=1, 6 VCs"], sat
assert len(walls) == 3 and all(w > 0 for w in walls), walls
with h5py.File(f"{out}/runs/railx_k4_vcs6.h5", "r") as f:
    accepted = f["sweep/accepted_load"][()]
    latency = f["sweep/latency_mean_ps"][()]
    assert len(accepted) >= 2 and (accepted > 0).all() and (latency > 0).all()
    assert abs(accepted.max() - f["summary"].attrs["saturation_throughput"]) < 1e-9
PY
before=$(stat -c %Y "$scratch/runs/railx_k1_vcs6.h5")
/usr/bin/python3 "$script" --hxsim "$hxsim" --tiny --figures 14b --out "$scratch" "${small[@]}" >/dev/null
test "$(stat -c %Y "$scratch/runs/railx_k1_vcs6.h5")" = "$before"
/usr/bin/python3 "$script" --hxsim "$hxsim" --tiny --figures 17 --out "$scratch/f17" >/dev/null
test -s "$scratch/f17/fig17.png"
/usr/bin/python3 - "$scratch/f17" <<'PY'
import sys, h5py, numpy as np
with h5py.File(f"{sys.argv[1]}/fig17.h5", "r") as f:
    assert set(f) == {"R32", "R64"}, list(f)
    at_01 = {}
    for name in f:
        g = f[name]
        points = [p.decode() for p in g["point"][()]]
        mean, worst = g["mean_nodes"][()], g["worst_nodes"][()]
        avail = dict(zip(points, g["availability"][()]))
        ok = ~np.isnan(mean)
        assert (worst[ok] <= mean[ok] + 1e-9).all(), name
        rates = sorted((float(p.split("_")[1]), avail[p]) for p in points if p.startswith("rate_"))
        values = [a for _, a in rates if not np.isnan(a)]
        assert len(values) >= 5 and all(b < a for a, b in zip(values, values[1:])), (name, rates)
        at_01[name] = avail["rate_0.001"]
    assert 0.9 < at_01["R64"] < at_01["R32"] < 1, at_01
PY
if /usr/bin/python3 "$script" --hxsim "$hxsim" --figures 99 --out "$scratch" 2>"$scratch/err"; then
  echo "figure 99 was accepted" >&2
  exit 1
fi
grep -q "no figure '99'" "$scratch/err"
echo "railx_figures.py: ok"
