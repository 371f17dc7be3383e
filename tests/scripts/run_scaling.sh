#!/usr/bin/env bash
# scripts/scaling.py end to end, in seconds: a strong series of PHOLD (configs/bench_phold.toml,
# 10,000 LPs, 5 ns) at 1 and 2 ranks, then checks the table against the runs' own /engine and
# /partition: the CSV's rows and columns, the HDF5 table (same values, units), speed-up 1 on the
# 1-rank row, the PNGs; a second call skips the finished runs, --collect gives the same table,
# and --emit prints the right mpirun and srun commands. A weak series of the quickstart Dragonfly
# (short windows) checks the packet-hop columns and the weak speed-up; bad input exits with 2.
# `scaling.py model` on the PHOLD pair: fitted on it alone, the model gives its 2-rank run_s back;
# predictions for 2 and 4 ranks of a cluster are efficiencies in (0, 1] that fall as the latency
# grows; misuse exits with 2.
# Usage: run_scaling.sh HXSIM SCALING_PY CONFIG_DIR SCRATCH_DIR
set -euo pipefail
hxsim=$1 script=$2 configs=$3 scratch=$4
python=/usr/bin/python3
rm -rf "$scratch" && mkdir -p "$scratch"
phold=$configs/bench_phold.toml
sets=(--set sim.end_time=5ns --set phold.lps=10000)

"$python" "$script" strong "$phold" --ranks 1,2 "${sets[@]}" --out "$scratch/strong" \
  --hxsim "$hxsim" >"$scratch/strong.txt"
cp "$scratch/strong/scaling.csv" "$scratch/first.csv"
# Resumable: a second call runs nothing (the files keep their times) and gives the same table.
touch -d '2000-01-01' "$scratch"/strong/run_r*.h5
"$python" "$script" strong "$phold" --ranks 1,2 "${sets[@]}" --out "$scratch/strong" \
  --hxsim "$hxsim" >"$scratch/again.txt"
test "$(grep -c 'exists, skipped' "$scratch/again.txt")" = 2
test -z "$(find "$scratch/strong" -name 'run_r*.h5' -newer "$scratch/first.csv")"
cmp "$scratch/first.csv" "$scratch/strong/scaling.csv"
"$python" "$script" strong --collect "$scratch/strong" >"$scratch/collect.txt"
cmp "$scratch/first.csv" "$scratch/strong/scaling.csv"

# The weak series: 1 rank at load 0.05, 2 ranks at 0.1 (the work grows with the ranks).
"$python" "$script" weak --series "1 traffic.load=0.05; 2 traffic.load=0.1" \
  --set traffic.warmup=200cycles --set traffic.measure=500cycles --out "$scratch/weak" \
  --hxsim "$hxsim" >"$scratch/weak.txt"

# --emit: one command per run, nothing run.
"$python" "$script" strong "$phold" --ranks 1,2,4 "${sets[@]}" --out "$scratch/cluster" \
  --hxsim "$hxsim" --emit mpirun --launcher-args "--hostfile hosts" >"$scratch/emit_mpirun.sh"
"$python" "$script" weak "$phold" --series "1 phold.lps=5000; 2 phold.lps=10000" \
  --out "$scratch/cluster" --hxsim "$hxsim" --emit srun >"$scratch/emit_srun.sh"
test ! -e "$scratch/cluster"
for r in 1 2 4; do
  grep -qxF "test -e $scratch/cluster/run_r$r.h5 || mpirun -n $r --hostfile hosts $hxsim run \
$phold -o $scratch/cluster/run_r$r.h5 --progress off --set sim.end_time=5ns --set phold.lps=10000" \
    "$scratch/emit_mpirun.sh"
done
test "$(grep -c ' || mpirun ' "$scratch/emit_mpirun.sh")" = 3
grep -qxF "mkdir -p $scratch/cluster" "$scratch/emit_mpirun.sh"
for entry in "1 5000" "2 10000"; do
  read -r r lps <<<"$entry"
  grep -qxF "test -e $scratch/cluster/run_r$r.h5 || srun -n $r $hxsim run $phold -o \
$scratch/cluster/run_r$r.h5 --progress off --set phold.lps=$lps" "$scratch/emit_srun.sh"
done
bash -n "$scratch/emit_mpirun.sh"

# The scaling model (scripts/scaling_model.py) on the strong pair.
model_args=(model --fit "$scratch/strong/run_r1.h5" "$scratch/strong/run_r2.h5" --hxsim "$hxsim"
  --predict "$scratch/strong/run_r2.h5" --ranks 2,4)
"$python" "$script" "${model_args[@]}" --out "$scratch/model" >"$scratch/model.txt"
"$python" "$script" "${model_args[@]}" --latency 50us --out "$scratch/model_slow" \
  >"$scratch/model_slow.txt"
"$python" - "$scratch" <<'PY'
import csv
import math
import sys
rows = {}
for name in ("model", "model_slow"):
    with open(f"{sys.argv[1]}/{name}/scaling_model.csv") as f:
        rows[name] = list(csv.DictReader(f))
fits = [r for r in rows["model"] if r["kind"] == "fit" and r["c_ev_from_ranks"] == "2"]
assert len(fits) == 1 and math.isclose(float(fits[0]["model_s"]), float(fits[0]["measured_s"]),
                                       rel_tol=1e-6), fits
for name in rows:
    predicted = [r for r in rows[name] if r["kind"] == "predict"]
    assert [r["ranks"] for r in predicted] == ["2", "4"], predicted
    assert all(0 < float(r["efficiency"]) <= 1 for r in predicted), predicted
fast = [float(r["model_s"]) for r in rows["model"] if r["kind"] == "predict"]
slow = [float(r["model_s"]) for r in rows["model_slow"] if r["kind"] == "predict"]
assert all(s > f for f, s in zip(fast, slow)), (fast, slow)
PY
for bad in "model --hxsim $hxsim" "model --fit $scratch/strong/run_r2.h5 $scratch/strong/run_r1.h5" \
  "model --fit $scratch/strong/run_r1.h5 $scratch/strong/run_r2.h5 --ranks 1" \
  "model --fit $scratch/strong/run_r1.h5 $scratch/strong/run_r2.h5 --latency fast" \
  "model --fit $scratch/strong/run_r1.h5 $scratch/strong/run_r2.h5 --predict $scratch/strong/run_r1.h5"; do
  code=0
  # shellcheck disable=SC2086  # the words of $bad are the arguments
  "$python" "$script" $bad 2>"$scratch/bad.txt" >/dev/null || code=$?
  if ((code != 2)) || ! grep -q '^scaling.py model: error: ' "$scratch/bad.txt"; then
    echo "scaling.py $bad: exit code $code, expected 2 and an error line" >&2
    cat "$scratch/bad.txt" >&2
    exit 1
  fi
done

# Misuse: one error line, exit code 2.
for bad in "strong --out $scratch/bad" "weak --series 1_rank --out $scratch/bad" \
  "strong --ranks 2,2 --out $scratch/bad" "weak --series-file $scratch/none --out $scratch/bad"; do
  code=0
  # shellcheck disable=SC2086  # the words of $bad are the arguments
  "$python" "$script" $bad 2>"$scratch/bad.txt" || code=$?
  if ((code != 2)) || ! grep -q '^scaling.py: error: ' "$scratch/bad.txt"; then
    echo "scaling.py $bad: exit code $code, expected 2 and an error line" >&2
    cat "$scratch/bad.txt" >&2
    exit 1
  fi
done

"$python" - "$scratch" <<'PY'
import csv
import os
import sys

import h5py
import numpy as np

scratch = sys.argv[1]
COLUMNS = ["ranks", "runs", "wall_s", "wall_min_s", "wall_max_s", "build_s", "events",
           "events_per_s", "speedup", "efficiency", "compute_s", "exchange_s", "reduce_s",
           "compute_max_s", "events_imbalance", "compute_imbalance", "remote_events", "windows",
           "links", "links_cut", "lookahead_ps", "file"]


def read_csv(directory):
    with open(os.path.join(directory, "scaling.csv")) as f:
        reader = csv.DictReader(f)
        return reader.fieldnames, list(reader)


def check_files(directory, rows):
    """Each row against its run's /engine and /partition; the HDF5 table against the CSV;
    the PNGs."""
    for row in rows:
        with h5py.File(os.path.join(directory, row["file"]), "r") as f:
            e = {k: f["engine"][k][()] for k in f["engine"]}
            assert int(row["ranks"]) == f.attrs["ranks"] == len(e["rank"])
            assert float(row["wall_s"]) == e["run_s"].max()
            assert int(row["events"]) == e["events"].sum() == f["summary"].attrs["events"]
            assert np.isclose(float(row["events_per_s"]), f["engine"].attrs["events_per_s"])
            assert int(row["remote_events"]) == e["remote_sent"].sum()
            parts = float(row["compute_s"]) + float(row["exchange_s"]) + float(row["reduce_s"])
            assert np.isclose(parts, e["run_s"].mean()), (parts, e["run_s"])
            assert int(row["links_cut"]) == f["partition"].attrs["links_cut"]
            assert int(row["lookahead_ps"]) == f["partition"].attrs["lookahead_ps"]
            if "packet_hops" in row:
                assert int(row["packet_hops"]) == f["engine"].attrs["packet_hops"]
            if "peak_rss_bytes" in row:
                assert int(row["peak_rss_bytes"]) == e["peak_rss_bytes"].max() > 0
    with h5py.File(os.path.join(directory, "scaling.h5"), "r") as f:
        g = f["scaling"]
        assert list(g) == sorted(list(rows[0]) + ["row"]), list(g)
        for name in rows[0]:
            assert "units" in g[name].attrs and g[name].attrs["long_name"], name
            values = g[name].asstr()[()] if name == "file" else g[name][()]
            assert [str(v) for v in values] == [r[name] for r in rows] or np.allclose(
                values, [float(r[name]) for r in rows]), name
        assert g["wall_s"].attrs["units"] == "s" and g["events_per_s"].attrs["units"] == "1/s"
    for png in ("scaling.png", "breakdown.png"):
        with open(os.path.join(directory, png), "rb") as image:
            data = image.read()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10000, png


def expected(directory, network):
    """COLUMNS with the optional ones the runs have: packet hops (network models) and the
    resident peak (hxsim versions that record it)."""
    with h5py.File(os.path.join(directory, "run_r1.h5"), "r") as f:
        rss = ["peak_rss_bytes"] if "peak_rss_bytes" in f["engine"] else []
    hops = ["packet_hops", "packet_hops_per_s"] if network else []
    at = COLUMNS.index("speedup")
    return COLUMNS[:at] + hops + rss + COLUMNS[at:]


names, rows = read_csv(os.path.join(scratch, "strong"))
assert names == expected(os.path.join(scratch, "strong"), False), names
assert [r["ranks"] for r in rows] == ["1", "2"] and [r["file"] for r in rows] == [
    "run_r1.h5", "run_r2.h5"]
assert rows[0]["speedup"] == "1.0" and rows[0]["efficiency"] == "1.0", rows[0]
wall1, wall2 = float(rows[0]["wall_s"]), float(rows[1]["wall_s"])
assert np.isclose(float(rows[1]["speedup"]), wall1 / wall2)
assert np.isclose(float(rows[1]["efficiency"]), wall1 / wall2 / 2)
assert rows[0]["events"] == rows[1]["events"]  # deterministic: the same events on any ranks
assert rows[0]["links_cut"] == "0" and int(rows[1]["links_cut"]) > 0
assert rows[0]["windows"] == "0" and int(rows[1]["windows"]) > 0
assert rows[0]["exchange_s"] == rows[0]["reduce_s"] == "0.0"
check_files(os.path.join(scratch, "strong"), rows)

names, rows = read_csv(os.path.join(scratch, "weak"))
assert names == expected(os.path.join(scratch, "weak"), True), names
assert [r["ranks"] for r in rows] == ["1", "2"] and int(rows[1]["events"]) > int(rows[0]["events"])
rate1, rate2 = float(rows[0]["events_per_s"]), float(rows[1]["events_per_s"])
assert rows[0]["speedup"] == "1.0" and np.isclose(float(rows[1]["speedup"]), rate2 / rate1)
assert np.isclose(float(rows[1]["efficiency"]), rate2 / rate1 / 2)
check_files(os.path.join(scratch, "weak"), rows)
print("scaling.py: strong and weak series, table, plots, resume, collect and emit OK")
PY
