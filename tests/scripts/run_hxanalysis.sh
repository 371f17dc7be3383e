#!/usr/bin/env bash
# scripts/hxanalysis.py on files hxsim writes: a 2-rank Dragonfly run with traffic.flows=all, a
# small sweep, a PHOLD run, workload runs (an all-to-all, an LLM iteration with the two-stage DP
# all-reduce: traffic matrices) and a run under faults. Runs every command and loader, and checks what they give against
# the files themselves (read with h5py): row counts, link classes, value ranges, totals that must
# agree with /summary, and reports that are valid PNG and HTML with the expected figures.
# Usage: run_hxanalysis.sh HXSIM MPIRUN_SH HXANALYSIS SCRATCH_DIR
set -euo pipefail
hxsim=$1 mpirun_sh=$2 analysis=$3 scratch=$4
configs=$(cd "$(dirname "$0")/../determinism" && pwd)
python=/usr/bin/python3
mkdir -p "$scratch"
rm -f "$scratch"/*.h5 "$scratch"/*.png "$scratch"/*.html "$scratch"/*.csv "$scratch"/*.txt
short=(--set traffic.warmup=300cycles --set traffic.measure=1000cycles)

bash "$mpirun_sh" -n 2 "$hxsim" run -o "$scratch/run.h5" "${short[@]}" --set traffic.flows=all \
  --progress off >"$scratch/run.txt"
"$hxsim" sweep "$configs/dragonfly_ugal.toml" -o "$scratch/sweep.h5" --start 0.2 --step 0.3 \
  --refine 1 "${short[@]}" >"$scratch/sweep.txt"
"$hxsim" run "$configs/phold_small.toml" -o "$scratch/phold.h5" --progress off >"$scratch/phold.txt"
"$hxsim" run "$configs/workload_alltoall.toml" -o "$scratch/workload.h5" --progress off \
  --set workload.repeat=2 >"$scratch/workload.txt"
"$hxsim" run "$configs/dragonfly_faults.toml" -o "$scratch/faults.h5" --progress off \
  --set traffic.timeseries_bin=100ns >"$scratch/faults.txt"
"$hxsim" run "$configs/dragonfly_faults.toml" -o "$scratch/faults_flow.h5" --progress off \
  --set traffic.timeseries_bin=100ns --set sim.fidelity=flow >"$scratch/faults_flow.txt"
"$hxsim" run "$configs/workload_llm_two_stage.toml" -o "$scratch/llm.h5" --progress off \
  >"$scratch/llm.txt"
# A time series without faults (flow_uniform records one: 100 ns bins, flow level).
"$hxsim" run "$configs/flow_uniform.toml" -o "$scratch/series.h5" --progress off >/dev/null

# Every command; what they write is checked below.
"$python" "$analysis" --help >"$scratch/help.txt"
"$python" "$analysis" summary "$scratch/run.h5" >"$scratch/summary.txt"
"$python" "$analysis" table "$scratch/run.h5" >"$scratch/tables.txt"
"$python" "$analysis" table "$scratch/run.h5" links >"$scratch/links.csv"
"$python" "$analysis" report "$scratch/run.h5" -o "$scratch/report.png"
"$python" "$analysis" report "$scratch/run.h5" -o "$scratch/report.html"
"$python" "$analysis" report "$scratch/phold.h5" -o "$scratch/phold.png"
"$python" "$analysis" curve "$scratch/sweep.h5" "$scratch/sweep.h5" -o "$scratch/curve.png"
"$python" "$analysis" faults "$scratch/faults.h5" -o "$scratch/faults.png"
"$python" "$analysis" faults "$scratch/series.h5" -o "$scratch/series.png"
"$python" "$analysis" traffic "$scratch/workload.h5" -o "$scratch/traffic.png"
"$python" "$analysis" traffic "$scratch/llm.h5" -o "$scratch/traffic_zoom.png" --first 8 --grid 4 \
  --type DP2
"$python" "$analysis" traffic-types "$scratch/llm.h5" -o "$scratch/types.png"
"$python" "$analysis" traffic-types "$scratch/llm.h5" -o "$scratch/types.csv"
"$python" "$analysis" traffic-types "$scratch/llm.h5" >"$scratch/types_stdout.csv"
# Misuse is a one-line error with exit code 2, not a traceback.
for bad in "report $scratch/sweep.h5 -o $scratch/bad.png" "report $scratch/run.h5 -o bad.pdf" \
  "table $scratch/run.h5 no_such_table" "faults $scratch/run.h5 -o $scratch/bad.png" \
  "traffic $scratch/run.h5 -o $scratch/bad.png" "traffic $scratch/llm.h5 -o $scratch/bad.png --type XX" \
  "traffic-types $scratch/run.h5" "curve $scratch/run.h5 -o $scratch/bad.png"; do
  code=0
  # shellcheck disable=SC2086  # the words of $bad are the arguments
  "$python" "$analysis" $bad 2>"$scratch/bad.txt" || code=$?
  if ((code != 2)) || ! grep -q '^hxanalysis.py: error: ' "$scratch/bad.txt" ||
    grep -q Traceback "$scratch/bad.txt"; then
    echo "hxanalysis.py $bad: exit code $code, expected 2 and one error line:" >&2
    cat "$scratch/bad.txt" >&2
    exit 1
  fi
done
# A missing table is named with what writes it and the tables the file has.
"$python" "$analysis" traffic "$scratch/run.h5" -o "$scratch/bad.png" 2>"$scratch/bad.txt" || true
grep -q 'has no /traffic_matrix table (written by workload runs with workload.traffic_matrix on); its tables: .*links' \
  "$scratch/bad.txt" || { cat "$scratch/bad.txt" >&2; exit 1; }

"$python" - "$analysis" "$scratch" <<'PY'
import base64
import html.parser
import os
import struct
import sys

import h5py
import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(sys.argv[1]))
import hxanalysis as hx  # noqa: E402

scratch = sys.argv[2]
run, sweep_file, phold = (os.path.join(scratch, n) for n in ("run.h5", "sweep.h5", "phold.h5"))
f = h5py.File(run, "r")
s = hx.summary(run)


def rows(name, file=f):
    return file[name][next(iter(file[name]))].shape[0]


def png_size(data):
    """(width, height) of a PNG image, after checking its signature and header chunk."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", "not a PNG"
    return struct.unpack(">II", data[16:24])


def read(name, mode="r"):
    with open(os.path.join(scratch, name), mode) as stream:
        return stream.read()


# Attributes and the table list.
assert hx.attributes(run)["ranks"] == 2 and hx.attributes(run)["model"] == "dragonfly"
assert s.keys() == set(f["summary"].attrs)
assert s["accepted_load"] == f["summary"].attrs["accepted_load"]
names = ("links", "flows", "engine", "endpoints", "latency_histogram", "partition",
         "network_totals", "queue_samples", "faults", "drops", "timeseries", "timeseries_latency",
         "timeseries_links", "layout")
assert hx.tables(run) == {name: rows(name) for name in names}, hx.tables(run)

# /links: one row per link, class names from /summary, utilisation in [0, 1].
links = hx.links(run)
classes = s["link_classes"].split(",")
assert len(links) == rows("links") == f["links/link"].shape[0] > 0 and links.index.name == "link"
assert list(links["class"].cat.categories) == classes == ["terminal", "local", "global"]
assert (links["class"].cat.codes == links["link_class"]).all()
assert links["utilisation"].between(0, 1).all() and links["utilisation"].max() > 0
assert np.array_equal(links["flits"], f["links/flits"][()])
ds = hx.dataset(run, "links")
assert ds.sizes["link"] == len(links) and ds["utilisation"].attrs["units"] == "1"
assert np.array_equal(ds["utilisation"].values, links["utilisation"].values)

# Heatmap images: one cell per link of the class; blocks keep the busiest link.
for name in classes:
    part = links[links["class"] == name]["utilisation"]
    values, components, ports, block = hx.link_image(run, name)
    assert block == 1 and np.isfinite(values).sum() == len(part), name
    assert len(components) == values.shape[0] and len(ports) == values.shape[1]
    values, components, ports, block = hx.link_image(run, name, max_rows=5)
    assert block > 1 and values.shape[0] <= 5 and np.nanmax(values) == part.max(), name

# /flows (flows=all): every delivered message, and the window's ones match /summary.
flows = hx.flows(run)
measured = hx.flows(run, measured_only=True)
assert len(flows) == rows("flows") > len(measured) == f["flows/measured"][()].sum() > 0
assert flows["packets"].sum() == s["packets_ejected"]
assert measured["packets"].sum() == s["measured_delivered"]
assert (flows["latency_ps"] == flows["last_arrival_ps"] - flows["created_ps"]).all()

# /engine: one row per rank; compute + exchange + reduce = the executor's time.
engine = hx.engine(run)
assert len(engine) == rows("engine") == 2 and engine["events"].sum() == s["events"]
assert np.allclose(engine["compute_s"] + engine["exchange_s"] + engine["reduce_s"], engine["run_s"])

# Sweep: the points, and the saturation throughput is the highest accepted load.
points, attrs = hx.sweep(sweep_file)
assert len(points) == rows("sweep", h5py.File(sweep_file, "r")) >= 3
assert points.index.name == "point"
assert attrs["saturation_throughput"] == points["accepted_load"].max()

# The plots draw the data: read back from the matplotlib artists.
import matplotlib  # noqa: E402
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

fig, ax = plt.subplots()
hx.plot_engine(run, ax)
heights = np.array([[bar.get_height() for bar in bars] for bars in ax.containers])
assert np.allclose(heights.sum(axis=0), engine["run_s"]) and len(ax.containers) == 3
ax.clear()
hx.plot_link_heatmap(run, "global", ax)
values, components, ports, block = hx.link_image(run, "global")
assert np.array_equal(ax.images[0].get_array().filled(np.nan), values, equal_nan=True)
assert [label.get_text() for label in ax.get_xticklabels()] == [str(p) for p in ports]
ax.clear()
hx.plot_flow_cdf(run, ax)
assert sorted(len(line.get_xdata()) for line in ax.lines) == sorted([len(measured),
                                                                    len(flows) - len(measured)])
assert all(line.get_ydata()[-1] == 1 for line in ax.lines)
ax.clear()
hx.plot_utilisation(run, ax)
assert [t.get_text().split()[0] for t in ax.get_legend().get_texts()] == classes
ax.clear()
hx.plot_curves([sweep_file], ax)
assert np.array_equal(ax.lines[0].get_xdata(), points["accepted_load"])
assert np.allclose(ax.lines[1].get_ydata(), points["latency_p99_ps"] / 1000.0)
plt.close(fig)

# Command outputs.
help_text = read("help.txt")
assert all(command in help_text for command in ("summary", "table", "report", "curve"))
printed = dict(line.split(None, 1) for line in read("summary.txt").splitlines() if " " in line)
assert float(printed["accepted_load"]) == s["accepted_load"]
assert printed["model"].strip() == "dragonfly"
listed = {line.split()[0]: int(line.split()[1]) for line in read("tables.txt").splitlines()}
assert listed == hx.tables(run), listed
csv = pd.read_csv(os.path.join(scratch, "links.csv"))
assert list(csv.columns) == list(f["links"]) and len(csv) == len(links)
assert np.allclose(csv["utilisation"], links["utilisation"])

# Reports: PNGs of the expected shape (four rows of plots for a network run, one for PHOLD).
width, height = png_size(read("report.png", "rb"))
phold_width, phold_height = png_size(read("phold.png", "rb"))
assert width >= 800 and height > 2 * phold_height > 0, (width, height, phold_height)
assert png_size(read("curve.png", "rb"))[0] > 0
assert os.path.getsize(os.path.join(scratch, "curve.png")) > 10000


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.images, self.tables, self.rows, self.headings, self.text = [], 0, 0, [], []
        self._heading = False

    def handle_starttag(self, tag, attrs):
        self.tables += tag == "table"
        self.rows += tag == "tr"
        self._heading = tag in ("h1", "h2")
        if tag == "img":
            src = dict(attrs)["src"]
            assert src.startswith("data:image/png;base64,"), src[:40]
            self.images.append(base64.b64decode(src.split(",", 1)[1]))

    def handle_data(self, data):
        self.text.append(data)
        if self._heading:
            self.headings.append(data)
            self._heading = False


page = Page()
page.feed(read("report.html"))
assert len(page.images) == 4 and all(png_size(image)[0] > 0 for image in page.images)
assert page.tables == 3 and page.headings[1:] == ["Run", "/summary", "/engine"], page.headings
assert "dragonfly" in page.headings[0] and "accepted_load" in page.text and "compute_s" in page.text
# Header rows plus one row per attribute and per rank.
assert page.rows == (1 + len(hx.attributes(run))) + (1 + len(s)) + (2 + len(engine)), page.rows
# A workload run: one group per repetition, named, spanning its ops; all bytes accounted.
groups = hx.workload_groups(os.path.join(scratch, "workload.h5"))
assert list(groups["name"]) == ["all_to_all direct over 72 endpoints #0",
                                "all_to_all direct over 72 endpoints #1"], list(groups["name"])
assert (groups["span_ps"] > 0).all() and (groups["span_ps"] == groups.end_ps - groups.start_ps).all()
wflows = hx.flows(os.path.join(scratch, "workload.h5"))
assert groups["messages"].sum() == len(wflows) == 2 * 72 * 71, (groups["messages"].sum(), len(wflows))
assert groups["start_ps"].iloc[1] >= groups["start_ps"].iloc[0]
# A run under faults: the time series adds up to the run's totals; one row per fault action.
frun = os.path.join(scratch, "faults.h5")
series, fsum = hx.timeseries(frun), hx.summary(frun)
assert series["packets_dropped"].sum() == fsum["packets_dropped"] > 0
assert series["flits_delivered"].sum() == 4 * fsum["packets_ejected"]  # 4-flit packets
assert (series["time_ns"].diff().dropna() == 100).all() and fsum["timeseries_bin_ps"] == 100000
# Its latencies, at packet and flow level: every delivered packet counted once per bin and once
# in a latency class; the mean within the classes' range; p50 <= p99, both class edges.
for path in (frun, os.path.join(scratch, "faults_flow.h5")):
    ts, sm = hx.timeseries(path), hx.summary(path)
    classes = h5py.File(path, "r")["timeseries_latency/packets"][()]
    assert len(classes) == 32 * len(ts)
    assert ts["packets_delivered"].sum() == classes.sum() == sm["packets_ejected"] > 0, path
    busy = ts[ts["packets_delivered"] > 0]
    assert (busy["latency_p50_ns"] <= busy["latency_p99_ns"]).all(), path
    per_bin = classes.reshape(len(ts), 32)
    for b in busy.index:
        used = np.nonzero(per_bin[b])[0]
        low = 0 if used[0] == 0 else 2.0 ** (used[0] - 1)
        assert low <= ts.loc[b, "latency_mean_ns"] < 2.0 ** used[-1], (path, b)
    assert set(np.log2(busy["latency_p99_ns"])) <= set(range(32)), path
    assert ts[ts["packets_delivered"] == 0]["latency_p50_ns"].isna().all(), path
# Per link class (dragonfly_faults: window [500, 2000) ns, bins of 100 ns, 4-flit packets of
# 1 ns per flit): over the window's bins the flits are /links' per class, exactly at packet level
# and within the rounding up to flits at flow level (under one flit per link and per bin and
# class); a bin's utilisation at most 1 plus a packet straddling its end (4 ns of 100).
for path, exact in ((frun, True), (os.path.join(scratch, "faults_flow.h5"), False)):
    per_bin, per_link = hx.link_series(path), hx.links(path)
    window = per_bin[(per_bin["bin"] >= 5) & (per_bin["bin"] < 20)].groupby("class")["flits"].sum()
    counted = per_link.groupby("class", observed=True)["flits"].sum()
    links_of = per_link["class"].value_counts()
    for name in counted.index:
        slack = 0 if exact else links_of[name] + 15
        assert abs(int(window[name]) - int(counted[name])) <= slack, (path, name, window, counted)
    assert per_bin["utilisation"].between(0, 1.04).all(), path
    assert per_link["utilisation"].between(0, 1).all(), path  # the window's, at both levels
    # Queues: the last bin's snapshot is the run's end, as /summary and /network_totals say.
    ts, sm = hx.timeseries(path), hx.summary(path)
    assert ts["packets_queued"].iloc[-1] == sm["packets_queued"], path
    assert ts["packets_buffered"].iloc[-1] == hx.table(path, "network_totals")["packets_buffered"][0]
    assert ts["packets_queued"].max() > 0 and (ts["packets_buffered"].max() > 0) == exact, path
    by_class = per_bin.groupby("bin")["packets_buffered"].sum()
    assert (by_class.to_numpy() == ts["packets_buffered"].to_numpy()).all(), path
# Without faults: the same panels, unmarked; the flits delivered add up to the run's.
series_file = os.path.join(scratch, "series.h5")
quiet = hx.timeseries(series_file)
assert quiet["packets_dropped"].sum() == 0 and quiet["flits_delivered"].sum() > 0
assert png_size(read("series.png", "rb")) == png_size(read("faults.png", "rb"))  # 4 panels each
fig, ax = plt.subplots()
hx.plot_links(series_file, ax)
assert len(ax.lines) == 2 and not [l for l in ax.lines if l.get_xdata().size == 2]  # no fault lines
plt.close(fig)
actions = hx.faults(frun)
assert len(actions) == len(h5py.File(frun, "r")["faults/time_ps"]) == 8
assert actions["element"].iloc[3] == "router 5" and actions["packets_dropped"].sum() == fsum["packets_dropped"]
assert png_size(read("faults.png", "rb"))[0] > 0
# Traffic matrices. The all-to-all: every ordered pair of the 72 endpoints, V/p per message.
wfile, lfile = os.path.join(scratch, "workload.h5"), os.path.join(scratch, "llm.h5")
tm = hx.traffic_matrix(wfile)
assert len(tm) == 72 * 71 and list(tm["type_name"].cat.categories) == ["all_to_all direct"]
assert tm["bytes"].sum() == groups["bytes"].sum() and (tm["messages"] == 2).all()
image, block = hx.traffic_image(wfile)
assert block == 1 and image.shape == (72, 72) and np.isnan(np.diag(image)).all()
assert np.array_equal(image[tm["src"], tm["dst"]], tm["bytes"].astype(float))
image, block = hx.traffic_image(wfile, max_cells=10)  # blocks of 8 x 8 pairs, their largest
assert block == 8 and image.shape == (9, 9) and np.nanmax(image) == tm["bytes"].max()
# The LLM: DP2 pairs and bytes inside the nodes of 4, DP1 along the rails; the zoom.
ltm = hx.traffic_matrix(lfile)
dp2 = ltm[ltm["type_name"] == "DP2"]
assert len(dp2) > 0 and (dp2["src"] // 4 == dp2["dst"] // 4).all()
zoom, block = hx.traffic_image(lfile, first=8, type_name="DP2")
assert block == 1 and zoom.shape == (8, 8)
assert np.nansum(zoom) == dp2[(dp2["src"] < 8) & (dp2["dst"] < 8)]["bytes"].sum() > 0
types = hx.traffic_types(lfile)
n = hx.summary(lfile)["workload_endpoints"]
assert list(types.index) == ["MP", "EP", "PP", "DP", "DP1", "DP2", "none"]
assert types["pairs"].sum() == n * (n - 1) and np.isclose(types["byte_share"].sum(), 1)
assert types.loc["none", "pairs"] == n * (n - 1) - len(ltm.drop_duplicates(["src", "dst"]))
assert types["bytes"].sum() == ltm["bytes"].sum() and types.loc["EP", "bytes"] == 0
# Rings of 2 in each of 2 domains: the second stage moves twice the bytes of the first.
assert types.loc["DP2", "bytes"] == 2 * types.loc["DP1", "bytes"] > 0
for name in ("types.csv", "types_stdout.csv"):
    table_csv = pd.read_csv(os.path.join(scratch, name), index_col="type")
    assert list(table_csv.index) == list(types.index) and (table_csv["pairs"] == types["pairs"]).all()
fig, ax = plt.subplots()
hx.plot_traffic_heatmap(lfile, ax, first=8, type_name="DP2", grid=4)
assert np.array_equal(ax.images[0].get_array().filled(np.nan), zoom, equal_nan=True)
assert ax.images[0].norm.__class__.__name__ == "LogNorm" and len(ax.lines) == 2
plt.close(fig)
fig, axes = plt.subplots(1, 2)
hx.plot_traffic_types(lfile, axes)
assert [b.get_x() + b.get_width() / 2 for b in axes[1].patches] == list(range(4))
assert np.isclose(sum(b.get_height() for b in axes[1].patches), 100)
assert axes[0].get_yscale() == "log"
plt.close(fig)
for name in ("traffic.png", "traffic_zoom.png", "types.png"):
    assert png_size(read(name, "rb"))[0] > 0, name
print("hxanalysis: %d links, %d flows, %d sweep points, %d workload groups, %d + %d traffic "
      "matrix pairs; summary, table, report (PNG, HTML), curve, faults, traffic and "
      "traffic-types OK" % (len(links), len(flows), len(points), len(groups), len(tm), len(ltm)))
PY
