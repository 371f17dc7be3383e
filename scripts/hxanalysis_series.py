"""Time series and faults of hxsim runs: the loaders and plots of /timeseries,
/timeseries_latency, /timeseries_links and /faults. scripts/hxanalysis.py re-exports them
(hx.timeseries, hx.link_series, hx.faults, hx.plot_faults, hx.plot_latency, hx.plot_links,
hx.plot_queues, hx.fault_plot); docs/ANALYSIS.md lists them."""
import h5py
import numpy as np


def _hx():
    """hxanalysis, for its table readers and figure set-up (imported when first needed, as it
    imports this module)."""
    import hxanalysis
    return hxanalysis


def timeseries(path):
    """/timeseries with `time_ns` (the bin's start), `throughput` (flits delivered per ns in the
    bin) and, from files that have /timeseries_latency, `latency_mean_ns` and `latency_p50_ns`,
    `latency_p99_ns`: the upper edge of the latency class (a power of two in ns) that holds the
    percentile, NaN in a bin that delivered nothing. The bin width is /summary
    timeseries_bin_ps (traffic.timeseries_bin)."""
    frame = _hx().table(path, "timeseries")
    if frame.empty:
        raise ValueError("%s has no time series: run with traffic.timeseries_bin" % path)
    bin_ps = _hx().summary(path)["timeseries_bin_ps"]
    frame["time_ns"] = frame.index.to_numpy() * bin_ps / 1000.0
    frame["throughput"] = frame["flits_delivered"] / (bin_ps / 1000.0)
    with h5py.File(path, "r") as f:
        has_latency = "timeseries_latency" in f
    if has_latency:
        delivered = frame["packets_delivered"].to_numpy()
        frame["latency_mean_ns"] = np.where(
            delivered > 0, frame["latency_sum_ps"] / np.maximum(delivered, 1) / 1000.0, np.nan)
        counts = _hx().table(path, "timeseries_latency")["packets"].to_numpy()
        counts = counts.reshape(len(frame), -1)
        edges = 2.0 ** np.arange(counts.shape[1])  # class c ends at 2^c ns
        cumulative = np.cumsum(counts, axis=1)
        for q, name in ((0.5, "latency_p50_ns"), (0.99, "latency_p99_ns")):
            at = (cumulative >= q * cumulative[:, -1:]).argmax(axis=1)
            frame[name] = np.where(cumulative[:, -1] > 0, edges[at], np.nan)
    return frame


def link_series(path):
    """/timeseries_links as one row per (bin, link class): `time_ns`, `class` (its name),
    `links` (of the class, from /links), `flits`, `busy_ps`, `packets_buffered` (in router
    input buffers, by the class of the link they came over, at the bin's end) and `utilisation`
    = busy_ps / (links x bin), the class's mean utilisation in the bin (a packet's busy time
    falls in the bin its head entered the link)."""
    frame = _hx().table(path, "timeseries_links")
    if frame.empty:
        raise ValueError("%s has no time series: run with traffic.timeseries_bin" % path)
    summary = _hx().summary(path)
    classes = summary["link_classes"].split(",")
    bin_ps = summary["timeseries_bin_ps"]
    counts = _hx().table(path, "links")["link_class"].value_counts()
    cell = frame.index.to_numpy()
    frame["bin"] = cell // len(classes)
    frame["time_ns"] = frame["bin"] * bin_ps / 1000.0
    frame["class"] = [classes[c] for c in cell % len(classes)]
    frame["links"] = counts.reindex(cell % len(classes), fill_value=0).to_numpy()
    frame["utilisation"] = frame["busy_ps"] / np.maximum(frame["links"] * bin_ps, 1)
    return frame


def plot_links(path, ax):
    """Mean utilisation of each link class per /timeseries bin, faults marked."""
    frame = link_series(path)
    for name, part in frame.groupby("class", sort=False):
        if part["links"].iloc[0] > 0:
            ax.plot(part["time_ns"], part["utilisation"], drawstyle="steps-post", label=name)
    ax.set_xlabel("simulated time (ns)")
    ax.set_ylabel("link utilisation")
    _mark_faults(path, ax)
    ax.legend(loc="upper right", fontsize=8)


def plot_queues(path, ax):
    """Packets in source queues and in router buffers at the end of each /timeseries bin, and
    (dashed) those buffered by the class of the link they came over."""
    frame = timeseries(path)
    width = frame["time_ns"].diff().median()
    for column, label in (("packets_queued", "in source queues"),
                          ("packets_buffered", "in router buffers")):
        ax.plot(frame["time_ns"] + width, frame[column], drawstyle="steps-pre", label=label)
    per_class = link_series(path)
    if "packets_buffered" in per_class and per_class["packets_buffered"].any():
        for name, part in per_class.groupby("class", sort=False):
            if part["packets_buffered"].any():
                ax.plot(part["time_ns"] + width, part["packets_buffered"], drawstyle="steps-pre",
                        linestyle="--", linewidth=1, label="from %s links" % name)
    ax.set_xlabel("simulated time (ns)")
    ax.set_ylabel("packets at the bin's end")
    _mark_faults(path, ax)
    ax.legend(loc="upper right", fontsize=8)


def faults(path):
    """/faults with each action's element (/fault_elements)."""
    frame = _hx().table(path, "faults")
    with h5py.File(path, "r") as f:
        names = _hx()._text(f["fault_elements"][()]).splitlines()
    frame["element"] = names
    return frame


def plot_latency(path, ax):
    """Mean and 50th/99th percentile latency of the packets delivered in each /timeseries bin
    (percentiles to their power-of-two latency class), with each fault and repair marked."""
    frame = timeseries(path)
    if "latency_p99_ns" not in frame:
        raise ValueError("%s has no /timeseries_latency (an older hxsim)" % path)
    for column, label in (("latency_mean_ns", "mean"), ("latency_p50_ns", "p50 (class edge)"),
                          ("latency_p99_ns", "p99 (class edge)")):
        ax.plot(frame["time_ns"], frame[column], drawstyle="steps-post", label=label)
    ax.set_yscale("log")
    ax.set_xlabel("simulated time (ns)")
    ax.set_ylabel("packet latency (ns)")
    _mark_faults(path, ax)
    ax.legend(loc="upper left")


def _mark_faults(path, ax):
    with h5py.File(path, "r") as f:
        if "faults" not in f:
            return
    for _, action in faults(path).iterrows():
        ax.axvline(action["time_ps"] / 1000.0, color="red" if action["fail"] else "green",
                   alpha=0.5, linewidth=1)


def plot_faults(path, ax):
    """Delivered throughput per /timeseries bin, with a line at each fault (red) and repair
    (green) of /faults, and the packets the faults cost per bin."""
    frame = timeseries(path)
    ax.plot(frame["time_ns"], frame["throughput"], drawstyle="steps-post",
            label="flits delivered per ns")
    ax.set_xlabel("simulated time (ns)")
    ax.set_ylabel("flits per ns")
    _mark_faults(path, ax)
    lost = frame["packets_dropped"]
    if lost.any():
        twin = ax.twinx()
        twin.bar(frame["time_ns"], lost, width=frame["time_ns"].diff().median(), align="edge",
                 color="grey", alpha=0.4, label="packets lost")
        twin.set_ylabel("packets lost per bin")
    ax.legend(loc="lower left")


def fault_plot(path, out):
    """Writes plot_faults of a run to `out` (any matplotlib format) and below it, from the
    tables the file has, plot_latency, plot_links and plot_queues."""
    with h5py.File(path, "r") as f:
        panels = [plot_faults] + [draw for name, draw in (
            ("timeseries_latency", plot_latency), ("timeseries_links", plot_links)) if name in f]
        if "packets_queued" in f["timeseries"]:
            panels.append(plot_queues)
    fig = _hx()._figure(figsize=(9, 3 + 3 * len(panels)))
    axes = fig.subplots(len(panels), 1, sharex=True, squeeze=False)[:, 0]
    for draw, ax in zip(panels, axes):
        draw(path, ax)
    fig.savefig(out)
