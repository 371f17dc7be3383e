#!/usr/bin/python3
"""Load and plot hxsim results: tables as pandas or xarray, plots, a one-page run report.

docs/ANALYSIS.md is the guide; docs/OUTPUT.md describes every table and attribute. Run with
/usr/bin/python3 (Debian's python3-h5py, -pandas, -matplotlib, -xarray, -h5netcdf).

As a module:

    import sys; sys.path.insert(0, "scripts")
    import hxanalysis as hx
    hx.links("run.h5")              # /links as a DataFrame, with the link class names
    hx.flows("run.h5")              # /flows
    hx.engine("run.h5")             # /engine, with the event-handling time per rank
    hx.summary("run.h5")            # /summary attributes as a dict
    hx.sweep("mesh_sweep.h5")       # (/sweep points, saturation attributes)
    hx.dataset("run.h5", "links")   # any table as an xarray Dataset
    hx.link_image("run.h5", "global")  # one link class's utilisation by component and port
    hx.layout("run.h5")             # /layout; hx.plot_overview, hx.plot_group draw on it
    hx.timeseries("run.h5")         # /timeseries with bin times; hx.faults("run.h5"): /faults
    hx.traffic_matrix("llm.h5")     # /traffic_matrix with type names; traffic_image, traffic_types
    hx.report("run.h5", "run.html")    # as the report command; plot_* draw on a given Axes
"""

import argparse
import base64
import html
import io
import signal
import sys

import h5py
import numpy as np
import pandas as pd

# Time series and faults live in their own module; hx.timeseries(...) and the rest work as before.
from hxanalysis_series import (  # noqa: F401
    fault_plot, faults, link_series, plot_faults, plot_latency, plot_links, plot_queues,
    timeseries)
# So do the topology pictures (/layout).
from hxanalysis_layout import (  # noqa: F401
    group_links, hottest_group, layout, layout_plot, layout_rows, overview, plot_group,
    plot_overview)

EXAMPLES = """examples:
  hxanalysis.py summary run.h5                 run metadata and the /summary attributes
  hxanalysis.py table run.h5                   the tables and their row counts
  hxanalysis.py table run.h5 links > links.csv one table as CSV, the id first
  hxanalysis.py report run.h5 -o run.png       one page: link utilisation (histogram, and by
                                               component and port per link class), packet
                                               latency, flow completion CDF, engine time per rank
  hxanalysis.py report run.h5 -o run.html      the same figures, plus the run metadata, /summary
                                               and /engine as tables, in one self-contained page
  hxanalysis.py layout run.h5 -o layout.png    link utilisation where the links are: one mark per
                                               picture group (wafer, node, ring, ...) and the
                                               busiest group's components (--group G: that one)
  hxanalysis.py faults run.h5 -o faults.png    delivered throughput over time (/timeseries, set
                                               traffic.timeseries_bin), each fault marked
  hxanalysis.py curve a_sweep.h5 b_sweep.h5 -o curve.png
                                               latency-throughput curves of `hxsim sweep` files
  hxanalysis.py traffic llm.h5 -o tm.png --first 1024 --grid 256
                                               a workload's traffic matrix as a heatmap (bytes
                                               per endpoint pair, log colours), zoomed to the
                                               first 1024 endpoints, a line every 256
  hxanalysis.py traffic-types llm.h5 -o types.png   share of endpoint pairs and of bytes per
                                               traffic type (-o types.csv: the table)

`hxanalysis.py COMMAND --help` shows a command's options; docs/ANALYSIS.md is the guide.
"""

# --- Loading -------------------------------------------------------------------------------------


def _text(value):
    return value.decode() if isinstance(value, bytes) else value


def attributes(path, group="/"):
    """The attributes of `group` (default: the root's run metadata) as a dict, strings decoded."""
    with h5py.File(path, "r") as f:
        return {key: _text(value) for key, value in f[group].attrs.items()}


def summary(path):
    """The /summary attributes (run results; for sweeps the saturation point) as a dict."""
    return attributes(path, "summary")


def tables(path):
    """{name: rows} of the file's top-level tables (groups of equal-length 1-D columns)."""
    found = {}
    with h5py.File(path, "r") as f:
        for name, group in f.items():
            columns = list(group.values()) if isinstance(group, h5py.Group) else []
            if columns and all(isinstance(c, h5py.Dataset) and c.ndim == 1 for c in columns):
                lengths = {c.shape[0] for c in columns}
                if len(lengths) == 1:
                    found[name] = lengths.pop()
    return found


# What writes the tables a run may lack, for the message when one is asked for.
_WRITTEN_BY = {
    "sweep": "hxsim sweep",
    "traffic_matrix": "workload runs with workload.traffic_matrix on",
    "traffic_types": "workload runs with workload.traffic_matrix on",
    "workload_groups": "workload runs",
    "flows": "runs with traffic.flows",
    "timeseries": "runs with traffic.timeseries_bin",
    "faults": "runs with a [faults] schedule",
}


def table(path, name):
    """Table `name` as a DataFrame indexed by its id (e.g. `link`, `flow`, `rank`). A file
    without it is a ValueError that says what writes it and which tables the file has."""
    with h5py.File(path, "r") as f:
        if name not in f:
            by = " (written by %s)" % _WRITTEN_BY[name] if name in _WRITTEN_BY else ""
            raise ValueError("%s has no /%s table%s; its tables: %s"
                             % (path, name, by, ", ".join(sorted(tables(path))) or "none"))
        group = f[name]
        columns = {key: group[key][()] for key in group}
        # The id is the HDF5 dimension scale attached to every column.
        ids = [key for key in group if group[key].attrs.get("CLASS") == b"DIMENSION_SCALE"]
    frame = pd.DataFrame(columns)
    return frame.set_index(ids[0]) if ids else frame


def dataset(path, name):
    """Table `name` as an xarray Dataset: the id is the dimension, units in each column's attrs."""
    import xarray as xr
    with xr.open_dataset(path, engine="h5netcdf", group=name) as ds:
        return ds.load()


def links(path):
    """/links, one row per directed link, plus a `class` column with the link class names."""
    frame = table(path, "links")
    names = summary(path)["link_classes"].split(",")
    frame["class"] = pd.Categorical.from_codes(frame["link_class"], names)
    return frame


def flows(path, measured_only=False):
    """/flows, one row per delivered message; only those created in the measurement window if
    `measured_only` (traffic.flows = "all" also records the warm-up and drain)."""
    frame = table(path, "flows")
    return frame[frame["measured"] == 1] if measured_only else frame


def workload_groups(path):
    """/workload_groups of a workload run, one row per operation group, with its `name` (from
    /workload_group_names) and `span_ps` = end_ps - start_ps."""
    frame = table(path, "workload_groups")
    with h5py.File(path, "r") as f:
        frame["name"] = _text(f["workload_group_names"][()]).splitlines()
    frame["span_ps"] = frame["end_ps"] - frame["start_ps"]
    return frame


def engine(path):
    """/engine, one row per rank, plus `compute_s`: the executor's time not spent exchanging
    events or in window reductions (0 for a 1-rank run, which neither exchanges nor reduces)."""
    frame = table(path, "engine")
    frame["compute_s"] = (frame["run_s"] - frame["exchange_s"] - frame["reduce_s"]).clip(lower=0)
    return frame


def sweep(path):
    """(/sweep points as a DataFrame, the /summary attributes) of an `hxsim sweep` file."""
    return table(path, "sweep"), summary(path)


# --- Plots: each draws on a matplotlib Axes ------------------------------------------------------


def plot_utilisation(path, ax):
    """Histogram of link utilisation in the measurement window, one colour per link class."""
    frame = links(path)
    for name, part in frame.groupby("class", observed=True):
        ax.hist(part["utilisation"], bins=20, range=(0, 1), histtype="step", linewidth=1.5,
                label="%s (%d)" % (name, len(part)))
    ax.set_xlabel("link utilisation in the measurement window")
    ax.set_ylabel("links")
    ax.legend(title="class (links)")


def link_image(path, link_class, max_rows=200):
    """Utilisation of one link class by sending component and output port.

    Returns (values, components, ports, block). `values` is a 2-D array: rows are the components
    that send on links of the class, in id order (`components` holds the id of each row's first
    component); columns are output ports (`ports`); NaN where a component has no link of the
    class on that port. Beyond `max_rows` components, rows are blocks of `block` consecutive
    components, each cell the busiest link of its block, so that a hot link stays visible.
    """
    frame = links(path)
    image = frame[frame["class"] == link_class].pivot(
        index="src_component", columns="src_port", values="utilisation")
    values = image.to_numpy()
    block = max(1, -(-len(values) // max_rows))  # ceiling division
    if block > 1:
        padded = np.full((-(-len(values) // block) * block, values.shape[1]), np.nan)
        padded[:len(values)] = values
        values = np.fmax.reduce(padded.reshape(-1, block, values.shape[1]), axis=1)  # NaN-proof
    return values, image.index.to_numpy()[::block], image.columns.to_numpy(), block


def plot_link_heatmap(path, link_class, ax):
    """Utilisation of one link class as an image: sending component (rows) by output port."""
    values, components, ports, block = link_image(path, link_class)
    import matplotlib
    colours = matplotlib.colormaps["viridis"].with_extremes(bad="lightgrey")  # grey: no link
    shown = ax.imshow(values, aspect="auto", interpolation="nearest", vmin=0, vmax=1,
                      cmap=colours)
    ax.set_xticks(range(len(ports)), [str(p) for p in ports])
    rows = np.linspace(0, len(components) - 1, min(len(components), 8)).astype(int)
    ax.set_yticks(rows, [str(components[r]) for r in rows])
    ax.set_xlabel("output port")
    ax.set_ylabel("sending component" if block == 1 else "components (busiest of %d)" % block)
    ax.figure.colorbar(shown, ax=ax, label="utilisation")


def plot_latency_histogram(path, ax):
    """Latency of the measured packets (/latency_histogram), from the first to the last
    non-empty bin. The file's bins are one cycle wide, then 1/64 of an octave. Latencies that
    span more than two decades are drawn on a log scale, the bins gathered into sixteenths of
    an octave; others in the file's bins, as packets per nanosecond where their widths differ."""
    frame = table(path, "latency_histogram")
    counts = frame["packets"].to_numpy()
    filled = np.nonzero(counts)[0]
    first, last = (int(filled.min()), int(filled.max()) + 1) if filled.size else (0, 1)
    counts = counts[first:last]
    lower = frame["lower_ps"].to_numpy()[first:last] / 1000.0
    upper = frame["upper_ps"].to_numpy()[first:last] / 1000.0
    if last == len(frame):  # the last bin reaches the largest time: draw it as the one before
        upper[-1] = lower[-1] + (lower[-1] - lower[-2] if len(lower) > 1 else 1.0)
    ax.set_xlabel("packet latency, creation to tail arrival (ns)")
    if lower[0] > 0 and upper[-1] / lower[0] > 100:
        octaves = np.log2(upper[-1] / lower[0])
        edges = lower[0] * 2.0 ** (np.arange(int(np.ceil(octaves * 16)) + 1) / 16.0)
        # Through the cumulative count, linear within each of the file's bins: sixteenths
        # narrower than a cycle get their share of it, not all or nothing.
        cumulative = np.interp(edges, np.append(lower, upper[-1]), np.append(0, np.cumsum(counts)))
        ax.stairs(np.diff(cumulative), edges, fill=True)
        ax.set_xscale("log")
        ax.set_ylabel("measured packets per 1/16 octave")
        return
    width = upper - lower
    uniform = np.allclose(width, width[0])
    ax.stairs(counts / (1.0 if uniform else width), np.append(lower, upper[-1]), fill=True)
    ax.set_ylabel("measured packets" if uniform else "measured packets per ns")


def plot_flow_cdf(path, ax):
    """Cumulative distribution of flow completion times (creation to last packet's arrival),
    separately for flows of the measurement window and the others (warm-up and drain)."""
    frame = flows(path)
    if frame.empty:
        ax.text(0.5, 0.5, "no flows recorded (traffic.flows)", ha="center", transform=ax.transAxes)
    labels = {1: "measurement window", 0: "warm-up and drain"}
    for measured, part in frame.groupby("measured"):
        times = np.sort(part["latency_ps"].to_numpy() / 1000.0)
        ax.plot(times, np.arange(1, len(times) + 1) / len(times),
                label="%s (%d)" % (labels[measured], len(times)))
    ax.set_xlabel("flow completion time (ns)")
    ax.set_ylabel("fraction of flows")
    ax.set_ylim(0, 1)
    if not frame.empty:
        ax.legend(title="created in (flows)", loc="lower right")


def plot_engine(path, ax):
    """Stacked bars per rank: handling events, exchanging them, and waiting in reductions."""
    frame = engine(path)
    bottom = np.zeros(len(frame))
    for column, label in (("compute_s", "events"), ("exchange_s", "exchange"),
                          ("reduce_s", "reduce")):
        ax.bar(frame.index, frame[column], bottom=bottom, label=label)
        bottom += frame[column].to_numpy()
    ax.set_xticks(frame.index)
    ax.set_xlabel("rank")
    ax.set_ylabel("executor time (s)")
    ax.legend()


def plot_curves(paths, ax):
    """Latency against accepted load for each sweep file: mean (solid) and p99 (dashed)."""
    for path in paths:
        points, attrs = sweep(path)
        label = "%s: %s, saturation %.3f" % (path, attributes(path)["model"],
                                             attrs["saturation_throughput"])
        line, = ax.plot(points["accepted_load"], points["latency_mean_ps"] / 1000.0, marker="o",
                        label=label)
        ax.plot(points["accepted_load"], points["latency_p99_ps"] / 1000.0, linestyle="--",
                color=line.get_color())
    ax.set_xlabel("accepted load (flits/cycle/endpoint)")
    ax.set_ylabel("packet latency (ns): mean, p99 dashed")
    ax.set_yscale("log")
    ax.legend()


# --- Traffic matrix (workload runs) -------------------------------------------------------------


def traffic_matrix(path):
    """/traffic_matrix, one row per (src, dst, type) that carried bytes, with `type_name` from
    /traffic_types."""
    frame = table(path, "traffic_matrix")
    with h5py.File(path, "r") as f:
        names = _text(f["traffic_types"][()]).splitlines()
    frame["type_name"] = pd.Categorical.from_codes(frame["type"], names)
    return frame


def traffic_image(path, first=None, type_name=None, max_cells=1024):
    """Bytes per (source, destination) pair of endpoints [0, n) as a 2-D array (rows: sources),
    all types together or one (`type_name`); NaN where a pair carried nothing. n is `first`, or
    every endpoint of the network. Beyond `max_cells` endpoints, a cell stands for a block of
    `block` x `block` pairs and holds its largest pair, so that the colours stay bytes per pair.
    Returns (values, block)."""
    frame = traffic_matrix(path)
    if type_name is not None:
        if type_name not in frame["type_name"].cat.categories:
            raise ValueError("no traffic type %r in %s: %s" % (
                type_name, path, ", ".join(frame["type_name"].cat.categories)))
        frame = frame[frame["type_name"] == type_name]
    n = first
    if not n:
        with h5py.File(path, "r") as f:
            n = f["endpoints/endpoint"].shape[0]
    frame = frame[(frame["src"] < n) & (frame["dst"] < n)]
    pairs = frame.groupby(["src", "dst"])["bytes"].sum()
    block = max(1, -(-n // max_cells))
    cells = -(-n // block)
    values = np.zeros((cells, cells))
    rows = pairs.index.get_level_values(0).to_numpy() // block
    cols = pairs.index.get_level_values(1).to_numpy() // block
    np.maximum.at(values, (rows, cols), pairs.to_numpy().astype(float))
    values[values == 0] = np.nan
    return values, block


def plot_traffic_heatmap(path, ax, first=None, type_name=None, grid=None):
    """The traffic matrix as an image with a logarithmic colour scale (rail-only Fig. 4): row =
    source, column = destination; white where a pair carried nothing. `grid`: a line every
    `grid` endpoints (an HB domain's size, say)."""
    from matplotlib.colors import LogNorm
    values, block = traffic_image(path, first, type_name)
    if np.isnan(values).all():
        ax.text(0.5, 0.5, "no traffic", ha="center", transform=ax.transAxes)
        return
    n = values.shape[0] * block
    shown = ax.imshow(values, interpolation="nearest", norm=LogNorm(), cmap="viridis",
                      extent=(0, n, n, 0))
    if grid:
        for k in range(grid, n, grid):
            ax.axhline(k, color="grey", linewidth=0.5)
            ax.axvline(k, color="grey", linewidth=0.5)
    ax.set_xlabel("destination endpoint")
    ax.set_ylabel("source endpoint")
    label = "bytes per pair" if block == 1 else "bytes per pair (largest of %d x %d)" % (block,
                                                                                         block)
    ax.figure.colorbar(shown, ax=ax, label=label + ("" if type_name is None else ", " + type_name))


def traffic_types(path, endpoints=None):
    """Per traffic type, plus `none`: the ordered pairs of distinct endpoints it is the main type
    of (the type that carried most of the pair's bytes; `none`: pairs that carried nothing) and
    their share, the pairs that carried any of it, and its bytes and their share (rail-only
    Fig. 3a and 3b). Pairs are among `endpoints` endpoints: by default those with a program
    (/summary workload_endpoints)."""
    frame = traffic_matrix(path)
    n = endpoints or summary(path)["workload_endpoints"]
    names = list(frame["type_name"].cat.categories)
    by_pair = frame.sort_values(["src", "dst", "bytes", "type"], ascending=[True, True, False,
                                                                          True])
    main = by_pair.drop_duplicates(["src", "dst"])["type_name"].value_counts()
    out = pd.DataFrame(index=pd.Index(names + ["none"], name="type"))
    out["pairs"] = main.reindex(out.index, fill_value=0)
    out.loc["none", "pairs"] = n * (n - 1) - out["pairs"].sum()
    out["pair_share"] = out["pairs"] / (n * (n - 1))
    out["pairs_carrying"] = frame.groupby("type_name", observed=False).size().reindex(
        out.index, fill_value=0)
    out["bytes"] = frame.groupby("type_name", observed=False)["bytes"].sum().reindex(
        out.index, fill_value=0)
    out["byte_share"] = out["bytes"] / max(out["bytes"].sum(), 1)
    return out


def plot_traffic_types(path, axes):
    """Two bar charts on `axes` (a pair of Axes): the share of endpoint pairs per main traffic
    type, on a log scale as most pairs carry nothing, and the share of bytes per type."""
    shares = traffic_types(path)
    for ax, column, title in ((axes[0], "pair_share", "share of endpoint pairs"),
                              (axes[1], "byte_share", "share of bytes")):
        part = shares[shares[column] > 0]
        bars = ax.bar(part.index, 100 * part[column])
        ax.bar_label(bars, labels=["%.3g%%" % (100 * v) for v in part[column]], fontsize=8)
        ax.set_ylabel(title + " (%)")
        ax.set_xlabel("traffic type")
    axes[0].set_yscale("log")


# --- Report --------------------------------------------------------------------------------------


def _report_rows(path):
    """The report's plots, row by row, each a list of (title, draw(ax)), for the data present."""
    have = tables(path)
    rows = []
    if "links" in have:
        rows.append([("Link utilisation", lambda ax: plot_utilisation(path, ax)),
                     ("Packet latency", lambda ax: plot_latency_histogram(path, ax))])
        rows.append([("%s links by port" % c, lambda ax, c=c: plot_link_heatmap(path, c, ax))
                     for c in summary(path)["link_classes"].split(",")])
    if "layout" in have:
        rows.append(layout_rows(path))
    last = [("Engine time per rank", lambda ax: plot_engine(path, ax))]
    if "flows" in have:
        last.insert(0, ("Flow completion", lambda ax: plot_flow_cdf(path, ax)))
    rows.append(last)
    return rows


def _headline(path):
    run, s = attributes(path), summary(path)
    text = "%s: %s, %d rank(s), %d events, simulated %.3f us" % (
        path, run["model"], run["ranks"], s["events"], s["sim_time_ps"] / 1e6)
    if "accepted_load" in s:
        text += ("\noffered %.3f, accepted %.3f flits/cycle/endpoint; packet latency mean %.1f ns,"
                 " p99 %.1f ns; %.2f hops" % (s["offered_load"], s["accepted_load"],
                                              s["latency_mean_ps"] / 1000.0,
                                              s["latency_p99_ps"] / 1000.0, s["hops_mean"]))
    return text


def _draw_row(figure, row):
    for ax, (title, draw) in zip(np.atleast_1d(figure.subplots(1, len(row))), row):
        draw(ax)
        ax.set_title(title)


def _facts_html(values):
    return pd.Series(values, name="value").to_frame().to_html()


def _figure(**options):
    # A bare Figure, not pyplot: writing a report from a notebook leaves its backend alone.
    from matplotlib.figure import Figure
    return Figure(layout="constrained", **options)


def report(path, out):
    """Writes a one-page report of a run to `out`: a PNG, or an HTML page (by its suffix) that
    embeds the figures and tables of the run metadata, /summary and /engine."""
    if attributes(path).get("kind") == "sweep":
        raise ValueError("%s is a sweep file: plot it with curve" % path)
    if not out.endswith((".png", ".html")):
        raise ValueError("the report must be a .png or .html file: %s" % out)
    rows = _report_rows(path)
    if out.endswith(".png"):
        fig = _figure(figsize=(13, 4 * len(rows) + 1))
        fig.suptitle(_headline(path))
        for subfigure, row in zip(np.atleast_1d(fig.subfigures(len(rows), 1)), rows):
            _draw_row(subfigure, row)
        fig.savefig(out, dpi=80)
        return
    images = []
    for row in rows:
        fig = _figure(figsize=(13, 4))
        _draw_row(fig, row)
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=80)
        images.append('<img alt="%s" src="data:image/png;base64,%s">' % (
            html.escape(", ".join(title for title, _ in row)),
            base64.b64encode(buffer.getvalue()).decode()))
    page = ["<!DOCTYPE html>", '<html><head><meta charset="utf-8">',
            "<title>hxsim report: %s</title>" % html.escape(path),
            "<style>body{font-family:sans-serif} img{max-width:100%} "
            "table{border-collapse:collapse;margin-bottom:1em} "
            "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}</style></head><body>",
            "<h1>%s</h1>" % html.escape(_headline(path)).replace("\n", "<br>"), *images,
            "<h2>Run</h2>", _facts_html(attributes(path)),
            "<h2>/summary</h2>", _facts_html(summary(path)),
            "<h2>/engine</h2>", engine(path).to_html(), "</body></html>"]
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(page))


def traffic_plot(path, out, first=None, type_name=None, grid=None):
    """Writes plot_traffic_heatmap of a workload run to `out`."""
    fig = _figure(figsize=(8, 7))
    plot_traffic_heatmap(path, fig.subplots(), first, type_name, grid)
    fig.savefig(out, dpi=100)


def traffic_types_out(path, out):
    """Writes traffic_types as CSV (`out` ends in .csv) or plot_traffic_types as an image."""
    if out.endswith(".csv"):
        traffic_types(path).to_csv(out)
        return
    fig = _figure(figsize=(11, 4))
    plot_traffic_types(path, fig.subplots(1, 2))
    fig.savefig(out)


def curve(paths, out):
    """Writes the latency-throughput curves of sweep files to `out` (any matplotlib format)."""
    fig = _figure(figsize=(7, 5))
    plot_curves(paths, fig.subplots())
    fig.savefig(out)


# --- Command line --------------------------------------------------------------------------------


def main(argv):
    parser = argparse.ArgumentParser(
        prog="hxanalysis.py", description=__doc__.split("\n\n")[0], epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    p = commands.add_parser("summary", help="run metadata and the /summary attributes")
    p.add_argument("file")
    p = commands.add_parser("table", help="list the tables, or print one as CSV")
    p.add_argument("file")
    p.add_argument("name", nargs="?", help="table to print, e.g. links, flows, engine, sweep")
    p = commands.add_parser("report", help="one-page report of a run (PNG or HTML)")
    p.add_argument("file")
    p.add_argument("-o", "--output", required=True, help="report.png or report.html")
    p = commands.add_parser("layout", help="link utilisation drawn on the topology's layout")
    p.add_argument("file")
    p.add_argument("-o", "--output", required=True, help="image file, e.g. layout.png")
    p.add_argument("--group", type=int, help="the picture group to draw (default: the busiest)")
    p.add_argument("--dpi", type=int, default=100, help="resolution (default 100)")
    p = commands.add_parser("faults", help="throughput over time around each fault")
    p.add_argument("file")
    p.add_argument("-o", "--output", required=True, help="image file, e.g. faults.png")
    p = commands.add_parser("traffic", help="a workload run's traffic matrix as a heatmap")
    p.add_argument("file")
    p.add_argument("-o", "--output", required=True, help="image file, e.g. tm.png")
    p.add_argument("--first", type=int, help="only endpoints 0 .. FIRST-1 (zoom)")
    p.add_argument("--type", dest="type_name", help="one traffic type only, e.g. DP1")
    p.add_argument("--grid", type=int, help="a line every GRID endpoints (an HB domain)")
    p = commands.add_parser("traffic-types",
                            help="share of endpoint pairs and of bytes per traffic type")
    p.add_argument("file")
    p.add_argument("-o", "--output", help="types.png, or types.csv for the table (default: "
                                          "the table on stdout)")
    p = commands.add_parser("curve", help="latency-throughput curves of sweep files")
    p.add_argument("files", nargs="+")
    p.add_argument("-o", "--output", required=True, help="image file, e.g. curve.png")
    args = parser.parse_args(argv)
    try:
        run_command(args)
    except (OSError, KeyError, ValueError) as error:  # no such file, table or attribute; misuse
        parser.exit(2, "hxanalysis.py: error: %s\n" % error)
    return 0


def run_command(args):
    """Runs the parsed command line `args`."""
    if args.command == "summary":
        for title, values in (("run", attributes(args.file)), ("summary", summary(args.file))):
            print("[%s]" % title)
            for key, value in values.items():
                print("%-26s %s" % (key, value))
    elif args.command == "table" and args.name is None:
        for name, rows in tables(args.file).items():
            print("%-20s %d rows" % (name, rows))
    elif args.command == "table":
        table(args.file, args.name).to_csv(sys.stdout)
    elif args.command == "report":
        report(args.file, args.output)
    elif args.command == "layout":
        layout_plot(args.file, args.output, args.group, args.dpi)
    elif args.command == "faults":
        fault_plot(args.file, args.output)
    elif args.command == "traffic":
        traffic_plot(args.file, args.output, args.first, args.type_name, args.grid)
    elif args.command == "traffic-types" and args.output is None:
        traffic_types(args.file).to_csv(sys.stdout)
    elif args.command == "traffic-types":
        traffic_types_out(args.file, args.output)
    else:
        curve(args.files, args.output)


if __name__ == "__main__":
    # `hxanalysis.py table run.h5 flows | head` ends quietly rather than with a BrokenPipeError.
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    sys.exit(main(sys.argv[1:]))
