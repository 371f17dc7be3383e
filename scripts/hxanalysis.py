#!/usr/bin/python3
"""Load and plot hxsim results (docs/OUTPUT.md has the file layout).

As a module (run with /usr/bin/python3, Debian's h5py, pandas, matplotlib, xarray):

    import sys; sys.path.insert(0, "scripts")
    import hxanalysis as hx
    links = hx.table("run.h5", "links")        # pandas DataFrame indexed by link id
    hx.summary("run.h5")                        # dict of /summary attributes
    hx.dataset("run.h5", "links")               # xarray Dataset (h5netcdf)
    hx.links("run.h5")                          # /links with a 'class' name column
    hx.sweep("a_sweep.h5")                      # /sweep points + the saturation attributes

As a command:

    hxanalysis.py summary RUN.h5                          # the /summary attributes
    hxanalysis.py report RUN.h5 -o run.png                # one-page PNG: links, latency, flows, ranks
    hxanalysis.py curve A_sweep.h5 [B_sweep.h5 ...] -o curve.png   # latency-throughput curves
"""

import argparse
import sys

import h5py
import numpy as np
import pandas as pd


def table(path, name):
    """The table `name` (an HDF5 group of equal-length columns) as a DataFrame indexed by its id."""
    with h5py.File(path, "r") as f:
        group = f[name]
        columns = {key: group[key][()] for key in group}
        # The id column is the HDF5 dimension scale attached to every other column.
        ids = [key for key in group if group[key].attrs.get("CLASS") == b"DIMENSION_SCALE"]
    frame = pd.DataFrame(columns)
    return frame.set_index(ids[0]) if ids else frame


def summary(path):
    """The /summary attributes as a dict (strings decoded)."""
    with h5py.File(path, "r") as f:
        return {k: (v.decode() if isinstance(v, bytes) else v) for k, v in f["summary"].attrs.items()}


def dataset(path, name):
    """A table as an xarray Dataset."""
    import xarray as xr
    return xr.open_dataset(path, engine="h5netcdf", group=name)


def links(path):
    """/links with the link class names (from /summary link_classes) in a 'class' column."""
    frame = table(path, "links")
    classes = summary(path)["link_classes"].split(",")
    frame["class"] = [classes[c] for c in frame["link_class"]]
    return frame


def sweep(path):
    """(/sweep points as a DataFrame, /summary attributes) of an `hxsim sweep` file."""
    return table(path, "sweep"), summary(path)


def plot_report(path, out):
    """One page: link utilisation by class, latency histogram, flow latency CDF, engine time."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    s = summary(path)
    fig, axes = plt.subplots(2, 2, figsize=(11, 8))
    fig.suptitle("%s: offered %.3f, accepted %.3f flits/cycle/endpoint, mean latency %.1f ns"
                 % (path, s.get("offered_load", float("nan")), s.get("accepted_load", float("nan")),
                    s.get("latency_mean_ps", float("nan")) / 1000.0))

    ax = axes[0][0]
    frame = links(path)
    for name, part in frame.groupby("class"):
        ax.hist(part["utilisation"], bins=20, range=(0, 1), alpha=0.6, label=name)
    ax.set_xlabel("link utilisation in the window")
    ax.set_ylabel("links")
    ax.legend()

    ax = axes[0][1]
    hist = table(path, "latency_histogram")["packets"].to_numpy()
    bin_ns = s["histogram_bin_ps"] / 1000.0
    last = int(np.nonzero(hist)[0].max()) + 1 if hist.any() else 1
    ax.bar(np.arange(last) * bin_ns, hist[:last], width=bin_ns)
    ax.set_xlabel("packet latency (ns)")
    ax.set_ylabel("measured packets")

    ax = axes[1][0]
    flows = table(path, "flows")
    if len(flows):
        values = np.sort(flows["latency_ps"].to_numpy() / 1000.0)
        ax.plot(values, np.arange(1, len(values) + 1) / len(values))
    ax.set_xlabel("flow completion time (ns)")
    ax.set_ylabel("fraction of flows")

    ax = axes[1][1]
    engine = table(path, "engine")
    compute = engine["run_s"] - engine["exchange_s"] - engine["reduce_s"]
    ax.bar(engine.index, compute, label="events")
    ax.bar(engine.index, engine["exchange_s"], bottom=compute, label="exchange")
    ax.bar(engine.index, engine["reduce_s"], bottom=compute + engine["exchange_s"], label="reduce")
    ax.set_xticks(engine.index)
    ax.set_xlabel("rank")
    ax.set_ylabel("seconds")
    ax.legend()

    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)


def plot_curves(paths, out):
    """Latency against accepted load, one line per sweep file."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 5))
    for path in paths:
        points, attrs = sweep(path)
        with h5py.File(path, "r") as f:
            label = "%s (saturation %.3f)" % (f.attrs["model"], attrs["saturation_throughput"])
        ax.plot(points["accepted_load"], points["latency_mean_ps"] / 1000.0, marker="o",
                label=label)
    ax.set_xlabel("accepted load (flits/cycle/endpoint)")
    ax.set_ylabel("mean packet latency (ns)")
    ax.set_yscale("log")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    p = commands.add_parser("summary", help="print the /summary attributes of a run")
    p.add_argument("file")
    p = commands.add_parser("report", help="one-page PNG report of a network run")
    p.add_argument("file")
    p.add_argument("-o", "--output", required=True)
    p = commands.add_parser("curve", help="latency-throughput curves of sweep files")
    p.add_argument("files", nargs="+")
    p.add_argument("-o", "--output", required=True)
    args = parser.parse_args(argv)
    if args.command == "summary":
        for key, value in sorted(summary(args.file).items()):
            print("%-24s %s" % (key, value))
    elif args.command == "report":
        plot_report(args.file, args.output)
    else:
        plot_curves(args.files, args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
