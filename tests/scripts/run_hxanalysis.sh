#!/usr/bin/env bash
# scripts/hxanalysis.py on files hxsim writes: a 2-rank network run and a small sweep. Checks that
# every table loads, the summary prints, and the report and curve PNGs are written.
# Usage: run_hxanalysis.sh HXSIM MPIRUN_SH HXANALYSIS SCRATCH_DIR
set -euo pipefail
hxsim=$1 mpirun_sh=$2 analysis=$3 scratch=$4
mkdir -p "$scratch"
rm -f "$scratch"/*.h5 "$scratch"/*.png
short=(--set traffic.warmup=300cycles --set traffic.measure=1000cycles --progress off)

bash "$mpirun_sh" -n 2 "$hxsim" run -o "$scratch/run.h5" "${short[@]}" > "$scratch/run.log"
"$hxsim" sweep "$(dirname "$0")/../determinism/dragonfly_ugal.toml" -o "$scratch/sweep.h5" \
  --start 0.2 --step 0.3 --refine 1 "${short[@]:0:4}" > "$scratch/sweep.log"

/usr/bin/python3 "$analysis" summary "$scratch/run.h5" | grep -q '^accepted_load'
/usr/bin/python3 "$analysis" report "$scratch/run.h5" -o "$scratch/report.png"
/usr/bin/python3 "$analysis" curve "$scratch/sweep.h5" -o "$scratch/curve.png"
/usr/bin/python3 - "$analysis" "$scratch" <<'PY'
import os, sys
sys.path.insert(0, os.path.dirname(sys.argv[1]))
import hxanalysis as hx
run = os.path.join(sys.argv[2], "run.h5")
for name in ("links", "flows", "endpoints", "engine", "latency_histogram"):
    assert len(hx.table(run, name)) > 0, name
links = hx.links(run)
assert set(links["class"]) == {"terminal", "local", "global"}, set(links["class"])
assert links.index.name == "link"
assert "utilisation" in hx.dataset(run, "links")
points, attrs = hx.sweep(os.path.join(sys.argv[2], "sweep.h5"))
assert len(points) >= 2 and attrs["saturation_throughput"] > 0
for png in ("report.png", "curve.png"):
    assert os.path.getsize(os.path.join(sys.argv[2], png)) > 10000, png
print("hxanalysis: tables, summary, report and curve OK")
PY
