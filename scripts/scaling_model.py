"""The scaling model behind `scripts/scaling.py model`: per-window cost terms fitted on 1- and
2-rank runs of this machine, strong scaling predicted for larger rank counts on a cluster.

    scripts/scaling.py model --fit A_r1.h5 A_r2.h5 [--fit B_r1.h5 B_r2.h5 ...]
                             [--check C_r1.h5 C_r2.h5 ...] [--predict RUN_r2.h5 ...]
                             [--ranks 8,64,256,1024] [--latency 1.5us] [--overhead 0.5us]
                             [--bandwidth 12.5GB/s] [--partitioner NAME] [--hxsim PATH]
                             [--out DIR]

The conservative engine (src/engine/executor.cpp) runs W windows. In each, every rank handles
its events and joins a 6-integer all-reduce; W_x of them (after a window that sent across ranks,
or when that all-reduce finds events waiting) also exchange a message with each neighbour rank
(/engine `exchanges`). A run on R ranks is modelled as

    T(R) = c_ev * (E_max + X_max + a * e_R * W * sqrt(E_mean / W))     handling events
         + X_max * (c_x + 96 B / bandwidth)                             receiving remote events
         + W_x * s_x(R) + (W - W_x) * s_0(R)                            one sync per window

E_max and E_mean: the largest and the mean events per rank; X_max: the most events a rank sends
to others (packing one costs about an event, c_ev; receiving one c_x); e_R: the expected largest
of R standard normal draws. The term in a is the per-window imbalance: a rank's events in a
window vary around their mean (variance a^2 times the mean: a = 1 is Poisson), and each window
waits for the busiest rank. On this machine s_x(2) and s_0(2) are fitted; on a cluster
s_0(R) = latency * ceil(log2 R) (a recursive-doubling all-reduce) and s_x(R) = s_0(R) + latency
+ overhead * 2 * neighbours (a send and a receive posted per neighbour).

c_ev is measured on the 2-rank run (its compute time per event handled or sent); the time left
(exchange and reductions, the waits included) is what c_x, s_x(2), s_0(2) and a explain, fitted
by non-negative least squares over the --fit pairs. --check pairs are predicted with them
against their measured 2-rank run_s, once with the 2-rank c_ev (checking the sync and imbalance
terms) and once with the 1-rank run's run_s / events (the whole prediction from one rank).
--predict takes a 2-rank run, measures c_ev on it, and spreads its events over R ranks with the
partition `hxsim validate --ranks R` gives for its /config (or with --partitioner NAME): events
by component weight, remote events by cut link ends, windows by the lookahead, and the share of
exchanging windows as measured. docs/performance/scaling.md states the assumptions and the
figures.
"""
import argparse
import math
import os
import re
import subprocess
import sys
import tempfile

EVENT_BYTES = 96  # sizeof(Event), src/core/event.h


def fail(message):
    print(f"scaling.py model: error: {message}", file=sys.stderr)
    sys.exit(2)


def quantity(text, units, what):
    """'1.5us' in seconds or '12.5GB/s' in bytes/s: the number times the unit's factor."""
    m = re.fullmatch(r"\s*([0-9.]+(?:e-?[0-9]+)?)\s*([A-Za-z/]+)\s*", text)
    if not m or m.group(2) not in units:
        fail(f"{what} '{text}': expected a number and one of {', '.join(units)}")
    return float(m.group(1)) * units[m.group(2)]


def expected_max_normal(r):
    """E[max of r independent standard normals], by the trapezoid rule (0 for r = 1)."""
    if r <= 1:
        return 0.0
    total, step = 0.0, 0.001
    for k in range(-8000, 8001):
        x = k * step
        pdf = math.exp(-x * x / 2) / math.sqrt(2 * math.pi)
        cdf = 0.5 * (1 + math.erf(x / math.sqrt(2)))
        total += x * r * pdf * cdf ** (r - 1) * step
    return total


def read_run(path):
    """What the model needs from one run's HDF5 file."""
    import h5py
    import numpy as np
    if not os.path.isfile(path):
        fail(f"{path}: no such file")
    with h5py.File(path, "r") as f:
        if "engine" not in f:
            fail(f"{path}: not an hxsim run (no /engine)")
        e = {k: np.asarray(f["engine"][k][()]) for k in f["engine"].keys()}
        run = {"path": path, "ranks": int(f.attrs["ranks"]), "events": e["events"].astype(float),
               "sent": e["remote_sent"].astype(float), "windows": int(e["windows"].max()),
               # Files from before the column: every window exchanged.
               "exchanges": int(e["exchanges"].max()) if "exchanges" in e else
               int(e["windows"].max()),
               "run_s": float(e["run_s"].max()),
               "compute_s": e["run_s"] - e["exchange_s"] - e["reduce_s"],
               "sim_time_ps": int(f["summary"].attrs["sim_time_ps"]),
               "lookahead_ps": int(f["partition"].attrs["lookahead_ps"]),
               "config": f["config"][()].decode(),
               # How the ranks met (docs/OPERATIONS.md); files from before the attribute: MPI.
               "sync": str(f["engine"].attrs.get("sync", "mpi"))}
    return run


def pair(paths):
    one, two = (read_run(p) for p in paths)
    if one["ranks"] != 1 or two["ranks"] != 2:
        fail(f"{paths[0]} {paths[1]}: expected a 1-rank run, then a 2-rank run")
    return one, two


def cost_per_event(run):
    """c_ev of a multi-rank run: its compute time (run_s less exchange and reductions, which
    hold the waits) per event handled or sent; of a 1-rank run, run_s per event."""
    if run["ranks"] == 1:
        return run["run_s"] / run["events"].sum()
    return run["compute_s"].sum() / (run["events"].sum() + run["sent"].sum())


def terms(run, c_ev, r=2):
    """(c_ev * (E_max + X_max), the imbalance term per unit a, windows) of a run on r ranks."""
    w = max(run["windows"], 1)
    mean = run["events"].mean()
    handled = c_ev * (run["events"].max() + run["sent"].max())
    return handled, c_ev * expected_max_normal(r) * w * math.sqrt(mean / w), w


def columns(run):
    """The fit's unknowns' coefficients in a 2-rank run: [X_max, exchanging windows, silent
    windows, the imbalance term per unit a], and the time they must explain."""
    handled, per_a, w = terms(run, cost_per_event(run))
    silent = run["windows"] - run["exchanges"]
    return [run["sent"].max(), run["exchanges"], silent, per_a], run["run_s"] - handled


def fit(pairs):
    """(c_x, s_x, s_0, a) by non-negative least squares over the pairs' 2-rank runs: the time
    they spend besides handling events is X_max * c_x + W_x * s_x + W_0 * s_0 + a * (imbalance
    term), W_x windows exchanging events and W_0 silent ones (one all-reduce each)."""
    import itertools
    import numpy as np
    rows, ys = zip(*(columns(two) for _, two in pairs))
    # Scaled columns, so that microseconds and nanoseconds weigh alike in the solve.
    a, y = np.array(rows, dtype=float), np.array(ys)
    scale = np.where(a.max(axis=0) > 0, a.max(axis=0), 1.0)
    a = a / scale
    # Non-negative least squares: the best of the unconstrained solves on every subset of the
    # columns whose solution has no negative term (the empty set: all 0).
    n = a.shape[1]
    x, best = np.zeros(n), float(y @ y)
    for k in range(1, n + 1):
        for cols in itertools.combinations(range(n), k):
            sol = np.linalg.lstsq(a[:, cols], y, rcond=None)[0]
            if (sol < 0).any():
                continue
            r = y - a[:, cols] @ sol
            if float(r @ r) < best - 1e-15:
                best, x = float(r @ r), np.zeros(n)
                x[list(cols)] = sol
    return tuple(x / scale)


def validate(hxsim, config, ranks, partitioner=None):
    """The partition `hxsim validate --ranks R` gives (with sim.partitioner = `partitioner` if
    set): {lookahead_ps, ranks: [(weight, cut link ends, neighbours)]}."""
    with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as f:
        f.write(config)
        path = f.name
    try:
        extra = ["--set", f"sim.partitioner={partitioner}"] if partitioner else []
        out = subprocess.run([hxsim, "validate", path, "--ranks", str(ranks)] + extra,
                             check=False, capture_output=True, text=True)
    finally:
        os.unlink(path)
    if out.returncode != 0:
        fail(f"hxsim validate --ranks {ranks}: {out.stderr.strip() or out.stdout.strip()}")
    rows = [(float(w), float(c), int(n)) for w, c, n in re.findall(
        r"rank \d+: \d+ components, weight (\d+), (\d+) cut link ends, (\d+) neighbour", out.stdout)]
    m = re.search(r"lookahead ([0-9.]+)(ps|ns|us|ms|s),", out.stdout)
    if len(rows) != ranks or not m:
        fail(f"hxsim validate --ranks {ranks}: could not read the partition")
    la = float(m.group(1)) * {"ps": 1, "ns": 1e3, "us": 1e6, "ms": 1e9, "s": 1e12}[m.group(2)]
    return {"lookahead_ps": la, "ranks": rows}


def predict(run, parts2, parts, r, c_x, a, cluster):
    # Windows with an exchange post a send and a receive per neighbour and may reduce twice;
    # silent ones reduce once. The 2-rank run's share of exchanging windows is kept.
    """Seconds of the executor on r ranks of the cluster, spreading `run`'s (2-rank) counts over
    the partition `parts`; `parts2` is its 2-rank partition."""
    c_ev = cost_per_event(run)
    total_e, total_x = run["events"].sum(), run["sent"].sum()
    cut2 = sum(c for _, c, _ in parts2["ranks"])
    weight = sum(w for w, _, _ in parts["ranks"])
    e_max = max(total_e * w / weight for w, _, _ in parts["ranks"])
    x_max = max(total_x * c / cut2 for _, c, _ in parts["ranks"]) if cut2 else 0.0
    neighbours = max(n for _, _, n in parts["ranks"])
    w = run["windows"] * parts2["lookahead_ps"] / parts["lookahead_ps"]
    mean = total_e / r
    reduce = cluster["latency"] * math.ceil(math.log2(r))
    exchanging = w * run["exchanges"] / max(run["windows"], 1)
    sync = (exchanging * (reduce + cluster["latency"] + cluster["overhead"] * 2 * neighbours)
            + (w - exchanging) * reduce)
    t = (c_ev * (e_max + x_max + a * expected_max_normal(r) * w * math.sqrt(mean / w))
         + x_max * (c_x + EVENT_BYTES / cluster["bandwidth"]) + sync)
    return t, c_ev * total_e, e_max / mean, neighbours


def main(argv):
    p = argparse.ArgumentParser(prog="scaling.py model", description=__doc__.split("\n\n")[0])
    p.add_argument("--fit", nargs=2, action="append", default=[], metavar=("R1", "R2"),
                   help="a 1-rank and a 2-rank run of one config (repeatable)")
    p.add_argument("--check", nargs=2, action="append", default=[], metavar=("R1", "R2"),
                   help="a pair whose 2-rank run_s the fit predicts (repeatable)")
    p.add_argument("--predict", nargs="+", default=[], metavar="R2",
                   help="2-rank runs to predict on --ranks of the cluster")
    p.add_argument("--ranks", default="8,64,256,1024")
    p.add_argument("--latency", default="1.5us", help="one network hop between ranks")
    p.add_argument("--overhead", default="0.5us", help="posting one message (send or receive)")
    p.add_argument("--bandwidth", default="12.5GB/s", help="a rank's injection bandwidth")
    p.add_argument("--hxsim", default=os.path.join(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))), "build", "src", "app", "hxsim"))
    p.add_argument("--partitioner", help="predict with this sim.partitioner (default: the run's)")
    p.add_argument("--out", help="also write DIR/scaling_model.csv")
    args = p.parse_args(argv)
    if not args.fit:
        fail("give at least one --fit R1 R2 pair")
    time_units = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
    cluster = {"latency": quantity(args.latency, time_units, "--latency"),
               "overhead": quantity(args.overhead, time_units, "--overhead"),
               "bandwidth": quantity(args.bandwidth, {"GB/s": 1e9, "MB/s": 1e6, "Gb/s": 1.25e8},
                                     "--bandwidth")}
    try:
        counts = [int(r) for r in args.ranks.split(",") if r]
    except ValueError:
        counts = []
    if not counts or min(counts) < 2:
        fail(f"--ranks {args.ranks}: expected rank counts >= 2 such as 8,64,256")
    rows = []
    c_x, s_x, s_0, a = fit([pair(f) for f in args.fit])
    print(f"fit on {len(args.fit)} pair(s): receiving a remote event c_x = {c_x * 1e9:.0f} ns, "
          f"a window with an exchange s_x(2) = {s_x * 1e6:.3f} us, without s_0(2) = "
          f"{s_0 * 1e6:.3f} us, burstiness a = {a:.3f}")
    for label, paths in [("fit", f) for f in args.fit] + [("check", c) for c in args.check]:
        one, two = pair(paths)
        coef, sync = columns(two)
        rest = float(sum(c * v for c, v in zip(coef, (c_x, s_x, s_0, a))))
        for source, c_ev in (("2", cost_per_event(two)), ("1", cost_per_event(one))):
            handled, per_a, w = terms(two, c_ev)
            model = handled + rest - a * coef[3] + a * per_a
            rows.append({"run": paths[1], "kind": label, "c_ev_from_ranks": source, "ranks": 2,
                         "measured_s": two["run_s"], "model_s": model,
                         "efficiency": one["run_s"] / (2 * model)})
            print(f"  {label} {os.path.basename(paths[1])}, c_ev from {source} rank(s) "
                  f"({1e9 * c_ev:.0f} ns): 2 ranks measured {two['run_s']:.3f} s, model "
                  f"{model:.3f} s ({100 * (model / two['run_s'] - 1):+.1f}%)")
        print(f"    {w} windows ({two['exchanges']} exchanging), "
              f"{two['events'].mean() / w:.0f} events per rank and window; exchange, sync and "
              f"waits measured {sync:.3f} s, model {rest:.3f} s; ranks met: {two['sync']}")
        if label == "fit" and two["sync"] == "shared_memory":
            print("    (met in shared memory: the fitted sync costs are this host's shared "
                  "memory, not MPI's; run with --sync mpi to fit MPI's)")
    for path in args.predict:
        run = read_run(path)
        if run["ranks"] != 2:
            fail(f"--predict {path}: expected a 2-rank run")
        parts2 = validate(args.hxsim, run["config"], 2)
        us = run["sim_time_ps"] / 1e6
        print(f"  predict {os.path.basename(path)} ({us:.3f} us simulated, {run['windows']} "
              f"windows): ranks, wall per simulated us, efficiency, events max / mean, "
              f"most neighbour ranks")
        for r in counts:
            t, serial, imbalance, neighbours = predict(
                run, parts2, validate(args.hxsim, run["config"], r, args.partitioner), r, c_x, a,
                cluster)
            print(f"    {r:5d}: {t / us:9.4f} s/us  {serial / (r * t):6.1%}  {imbalance:5.3f}  "
                  f"{neighbours}")
            rows.append({"run": path, "kind": "predict", "c_ev_from_ranks": "2", "ranks": r,
                         "measured_s": "",
                         "model_s": t, "efficiency": serial / (r * t)})
    if args.out:
        import csv
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "scaling_model.csv"), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
    return 0
