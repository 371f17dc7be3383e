"""Time series and faults of hxsim runs: the loaders and plots of /timeseries,
/timeseries_latency and /faults. scripts/hxanalysis.py re-exports them (hx.timeseries, hx.faults,
hx.plot_faults, hx.plot_latency, hx.fault_plot); docs/ANALYSIS.md lists them."""
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
    """Writes plot_faults of a run to `out` (any matplotlib format), and below it plot_latency
    when the file has the latency classes."""
    with h5py.File(path, "r") as f:
        latency = "timeseries_latency" in f
    fig = _hx()._figure(figsize=(9, 7 if latency else 4))
    axes = fig.subplots(2 if latency else 1, 1, sharex=True, squeeze=False)[:, 0]
    plot_faults(path, axes[0])
    if latency:
        plot_latency(path, axes[1])
    fig.savefig(out)
