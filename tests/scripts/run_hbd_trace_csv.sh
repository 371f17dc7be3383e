#!/usr/bin/env bash
# scripts/hbd_trace_csv.py on a small trace in the production trace's JSON form
# (hbd_trace_sample.json: overlapping faults of one server merge, a fault_end without a start is
# skipped, a fault still open lasts until --end), then hbd_cluster replays the CSV it wrote.
set -euo pipefail
hxsim=$1 script=$2 sample=$3 config=$4 scratch=$5
rm -rf "$scratch" && mkdir -p "$scratch"
/usr/bin/python3 "$script" "$sample" -o "$scratch/trace.csv" --servers 4 --order first-fault \
  --end 10d > "$scratch/convert.log"
grep -q "3 servers, 3 intervals, 1 fault_end without an open fault" "$scratch/convert.log"
diff <(grep -v '^#' "$scratch/trace.csv") - <<'CSV'
node,start,end
0,86400s,259200s
1,216000s,237600s
2,432000s,864000s
CSV
# Shuffled places are distinct servers below --servers.
/usr/bin/python3 "$script" "$sample" -o "$scratch/shuffled.csv" --servers 4 > /dev/null
test "$(grep -v '^#' "$scratch/shuffled.csv" | tail -n +2 | cut -d, -f1 | sort -u | wc -l)" = 3
"$hxsim" run "$config" --set "hbd_cluster.trace=$scratch/trace.csv" --set hbd_cluster.nodes=8 \
  --set hbd_cluster.duration=10d --set hbd_cluster.trace_nodes=4 --set hbd_cluster.tps=8 \
  --set hbd_cluster.bernoulli= --set hbd_cluster.job_scales=0.5 -o "$scratch/replay.h5" \
  --progress off > "$scratch/replay.log"
echo "run_hbd_trace_csv.sh: ok"
