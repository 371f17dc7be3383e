#!/usr/bin/python3
"""Strong- and weak-scaling studies of hxsim: run a series, collect /engine, tabulate and plot.

    scripts/scaling.py strong [CONFIG] --ranks 1,2,4 [--set KEY=VALUE ...] --out DIR
    scripts/scaling.py weak [CONFIG] --series "1 phold.lps=25000; 2 phold.lps=50000" --out DIR
    scripts/scaling.py weak [CONFIG] --series-file series.txt --out DIR
    ... --emit mpirun|srun          print the commands (a shell script) instead of running them
    scripts/scaling.py strong|weak --collect DIR   only collect DIR/*.h5 (e.g. from a cluster)
    scripts/scaling.py model --fit R1.h5 R2.h5 ...  fit per-window costs, predict larger runs
                                                    (scaling_model.py; `model --help`)

A strong series runs one problem (CONFIG plus the --set overrides) on each rank count. A weak
series lists its entries, separated by ';' or newlines (in a file, '#' starts a comment), each
`RANKS [CONFIG.toml] [KEY=VALUE ...]`: the problem of that entry (the entry's own config, if it
names one, replaces CONFIG; its overrides come after the --set ones). This is the SERIES syntax of
slurm/scaling.sbatch. Without CONFIG, hxsim runs its built-in quickstart.

Run k of rank count R writes DIR/run_rR.h5 (DIR/run_rR_k.h5 for k >= 2 with --repeat) through
scripts/mpirun.sh, with its output in DIR/run_rR.log. A run whose file exists is skipped (hxsim
writes FILE.<random>.partial and renames it when done, so an existing file is a finished run), which makes
a series resumable; DIR/runs.json records each file's config and overrides, and a file made by
different ones is an error rather than a silent reuse. --collect reads every *.h5 in DIR that has
an /engine table (slurm/scaling.sbatch's step<k>-np<R>.h5 too).

Writes DIR/scaling.csv and DIR/scaling.h5 (table /scaling: one dataset per column, with units and
long_name, like hxsim's tables), DIR/scaling.png (speed-up and parallel efficiency against
ranks) and DIR/breakdown.png (compute / exchange / reduction time per rank count). The columns
are listed in COLUMNS below and explained in docs/performance/scaling.md. With
repeats, each row is the run of median wall time at that rank count.
"""
import argparse
import json
import os
import re
import shlex
import subprocess
import sys

# h5py, numpy, pandas, matplotlib and hxanalysis are imported by the functions that collect and
# plot: --emit and bad input then answer at once (importing them takes seconds on a busy VM).

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MPIRUN = os.path.join(ROOT, "scripts", "mpirun.sh")
INT64_MAX = 2**63 - 1

# (column, units, long_name), in table order. The packet-hop columns exist for network models,
# peak_rss_bytes for runs of hxsim versions that record it.
COLUMNS = [
    ("ranks", "1", "MPI ranks"),
    ("runs", "1", "runs at this rank count; the row is the one of median wall_s"),
    ("wall_s", "s", "wall time: the slowest rank's run_s (the executor)"),
    ("wall_min_s", "s", "fastest of the runs' wall_s"),
    ("wall_max_s", "s", "slowest of the runs' wall_s"),
    ("build_s", "s", "the slowest rank's build_s (building the components)"),
    ("events", "1", "events handled, all ranks"),
    ("events_per_s", "1/s", "events / wall_s"),
    ("packet_hops", "1", "packets that crossed a link, all ranks"),
    ("packet_hops_per_s", "1/s", "packet_hops / wall_s"),
    ("peak_rss_bytes", "bytes", "the largest per-rank resident memory peak (where recorded)"),
    ("speedup", "1", "strong: wall_s of the first row / wall_s; weak: events_per_s / that of "
     "the first row"),
    ("efficiency", "1", "speedup * ranks of the first row / ranks"),
    ("compute_s", "s", "mean over ranks of run_s - exchange_s - reduce_s (handling events)"),
    ("exchange_s", "s", "mean over ranks of exchange_s (sending and receiving events)"),
    ("reduce_s", "s", "mean over ranks of reduce_s (window reductions, waiting included)"),
    ("compute_max_s", "s", "the largest per-rank compute time"),
    ("events_imbalance", "1", "max / mean of the per-rank events"),
    ("compute_imbalance", "1", "max / mean of the per-rank compute time"),
    ("remote_events", "1", "events sent to another rank, all ranks"),
    ("windows", "1", "synchronisation windows (0 on one rank: the sequential executor)"),
    ("links", "1", "links in the model"),
    ("links_cut", "1", "links whose ends are on different ranks"),
    ("lookahead_ps", "ps", "minimum latency of a cut link; INT64_MAX when nothing is cut"),
    ("file", "", "the run's HDF5 file, relative to the table's directory"),
]


def fail(message):
    """Stops with one error line and exit code 2 (bad input), like hxsim."""
    print(f"scaling.py: error: {message}", file=sys.stderr)
    sys.exit(2)


def parse_series(text):
    """The entries of a weak series, [(ranks, config or None, [KEY=VALUE, ...])], from the
    `RANKS [CONFIG.toml] [KEY=VALUE ...]` syntax (';' or newline between entries, '#' comments)."""
    entries = []
    for line in text.splitlines():
        for item in line.split("#", 1)[0].split(";"):
            words = item.split()
            if not words:
                continue
            if not re.fullmatch(r"[1-9][0-9]*", words[0]):
                fail(f"series entry '{item.strip()}': it must start with a rank count")
            config, sets = None, []
            for word in words[1:]:
                if "=" in word:
                    sets.append(word)
                elif config is None and sets == []:
                    config = word
                else:
                    fail(f"series entry '{item.strip()}': '{word}' is not KEY=VALUE")
            entries.append((int(words[0]), config, sets))
    if not entries:
        fail("the series is empty")
    return entries


def plan(args):
    """The runs of the series: [(file name, ranks, config or None, overrides)], repeats
    interleaved (every rank count once, then again) so that machine noise spreads over all."""
    if args.mode == "strong":
        if args.series or args.series_file:
            fail("strong: a series is for weak scaling; give the rank counts with --ranks")
        if not args.ranks:
            fail("strong: give the rank counts, e.g. --ranks 1,2,4")
        try:
            counts = [int(r) for r in args.ranks.split(",") if r]
        except ValueError:
            fail(f"--ranks {args.ranks}: expected rank counts such as 1,2,4")
        entries = [(r, args.config, list(args.set)) for r in counts]
    else:
        if args.ranks:
            fail("weak: the series gives the rank counts; --ranks is for strong scaling")
        if bool(args.series) == bool(args.series_file):
            fail("weak: give the series with --series TEXT or --series-file FILE")
        try:
            text = args.series or open(args.series_file, encoding="utf-8").read()
        except OSError as error:
            fail(f"--series-file: {error}")
        entries = [(r, c or args.config, list(args.set) + s) for r, c, s in parse_series(text)]
    counts = [r for r, _, _ in entries]
    if len(set(counts)) != len(counts) or min(counts) < 1:
        fail(f"each rank count may appear once and must be >= 1: {counts}")
    return [(f"run_r{r}.h5" if k == 1 else f"run_r{r}_{k}.h5", r, c, s)
            for k in range(1, args.repeat + 1) for r, c, s in entries]


def command(hxsim, ranks, config, sets, output, launcher):
    """The argv of one run: LAUNCHER -n RANKS hxsim run CONFIG -o OUTPUT --progress off --set ...
    (LAUNCHER is a list: the launcher and its flags)."""
    run = [hxsim, "run"] + ([config] if config else []) + ["-o", output, "--progress", "off"]
    for item in sets:
        run += ["--set", item]
    return launcher[:1] + ["-n", str(ranks)] + launcher[1:] + run


def emit(args, runs):
    """Prints the series as a shell script for a cluster: srun or mpirun, one line per run,
    each skipped when its output exists."""
    launcher = [args.emit] + shlex.split(args.launcher_args or "")
    relative = os.path.relpath(args.hxsim)  # the cluster's checkout need not be at this path
    hxsim = args.hxsim if relative.startswith("..") else relative
    print(f"# hxsim {args.mode} scaling ({len(runs)} runs); afterwards: "
          f"scripts/scaling.py {args.mode} --collect {shlex.quote(args.out)}")
    print(f"mkdir -p {shlex.quote(args.out)}")
    for name, ranks, config, sets in runs:
        output = os.path.join(args.out, name)
        print(f"test -e {shlex.quote(output)} || "
              + shlex.join(command(hxsim, ranks, config, sets, output, launcher)))


def run_all(args, runs):
    """Runs the series locally through scripts/mpirun.sh, skipping files that exist."""
    os.makedirs(args.out, exist_ok=True)
    manifest_path = os.path.join(args.out, "runs.json")
    manifest = json.load(open(manifest_path)) if os.path.exists(manifest_path) else {}
    env = dict(os.environ)  # launcher flags reach mpirun through mpirun.sh's HX_MPIEXEC_FLAGS
    if args.launcher_args:
        env["HX_MPIEXEC_FLAGS"] = (env.get("HX_MPIEXEC_FLAGS", "") + " " + args.launcher_args)
    for name, ranks, config, sets in runs:
        output = os.path.join(args.out, name)
        made_by = {"config": config, "set": sets}
        if os.path.exists(output):
            if manifest.get(name, made_by) != made_by:
                fail(f"{output} was made by {manifest[name]}, not {made_by}: use another --out "
                     "or delete the file")
            print(f"{name}: exists, skipped", flush=True)
            continue
        argv = command(args.hxsim, ranks, config, sets, output, [MPIRUN])
        flags = f"HX_MPIEXEC_FLAGS={shlex.quote(args.launcher_args)} " if args.launcher_args else ""
        print(f"{name}: {flags}{shlex.join(argv)}", flush=True)
        argv.insert(0, "bash")  # runs also where mpirun.sh is not executable
        with open(os.path.join(args.out, name[:-3] + ".log"), "w") as log:
            # No stdin: mpirun would read it, and stop (SIGTTIN) when the script runs in the
            # background, with the stopped time counted in run_s.
            code = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=log, env=env).returncode
        if code != 0:
            print(f"scaling.py: {name}: hxsim exited with code {code} (see its .log)",
                  file=sys.stderr)
            sys.exit(code)
        manifest[name] = made_by
        with open(manifest_path + ".tmp", "w") as f:
            json.dump(manifest, f, indent=1)
        os.replace(manifest_path + ".tmp", manifest_path)


def measure(path):
    """One run's figures from its /engine table and attributes, /partition and root
    attributes; None (with a warning) for a file that is not a finished hxsim run."""
    import h5py
    import hxanalysis as hx
    with h5py.File(path, "r") as f:
        if "engine" not in f or "ranks" not in f.attrs:
            return None
        if int(f.attrs.get("complete", 1)) != 1:
            print(f"scaling.py: warning: {path} is incomplete (complete = 0), left out",
                  file=sys.stderr)
            return None
        config_hash = f.attrs.get("config_hash", "")
    engine, part = hx.engine(path), hx.attributes(path, "partition")
    wall, compute = engine["run_s"].max(), engine["compute_s"]
    row = {"ranks": int(hx.attributes(path)["ranks"]), "wall_s": wall,
           "build_s": engine["build_s"].max(), "events": int(engine["events"].sum())}
    row["events_per_s"] = ratio(row["events"], wall)
    if "packet_hops" in engine:
        row["packet_hops"] = int(engine["packet_hops"].sum())
        row["packet_hops_per_s"] = ratio(row["packet_hops"], wall)
    if "peak_rss_bytes" in engine:
        row["peak_rss_bytes"] = int(engine["peak_rss_bytes"].max())
    row.update({
        "compute_s": compute.mean(), "exchange_s": engine["exchange_s"].mean(),
        "reduce_s": engine["reduce_s"].mean(), "compute_max_s": compute.max(),
        "events_imbalance": ratio(engine["events"].max(), engine["events"].mean()),
        "compute_imbalance": ratio(compute.max(), compute.mean()),
        "remote_events": int(engine["remote_sent"].sum()), "windows": int(engine["windows"].max()),
        "links": int(part.get("links", 0)), "links_cut": int(part.get("links_cut", 0)),
        "lookahead_ps": int(part.get("lookahead_ps", INT64_MAX)), "config_hash": config_hash})
    return row


def ratio(a, b):
    """a / b, or NaN when b is 0."""
    return float(a) / float(b) if b else float("nan")


def tabulate(directory, names, mode):
    """The scaling table of the runs `names` in `directory`: one row per rank count (the run of
    median wall time), speed-up and efficiency against the smallest rank count."""
    import pandas as pd
    runs = []
    for name in names:
        row = measure(os.path.join(directory, name))
        if row is not None:
            runs.append(dict(row, file=name))
    if not runs:
        fail(f"no finished hxsim runs (HDF5 files with an /engine table) in {directory}")
    rows = []
    for _, group in pd.DataFrame(runs).groupby("ranks", sort=True):
        group = group.sort_values("wall_s", kind="stable")
        median = group.iloc[(len(group) - 1) // 2].to_dict()
        median.update(runs=len(group), wall_min_s=group["wall_s"].min(),
                      wall_max_s=group["wall_s"].max())
        rows.append(median)
    table = pd.DataFrame(rows)
    if mode == "strong" and table["config_hash"].nunique() > 1:
        print("scaling.py: warning: the runs differ in config (config_hash): this is not one "
              "problem, so the strong-scaling speed-up means little", file=sys.stderr)
    if mode == "strong" and table["events"].nunique() > 1:
        print("scaling.py: warning: the runs handled different numbers of events",
              file=sys.stderr)
    first = table.iloc[0]
    if mode == "strong":
        table["speedup"] = first["wall_s"] / table["wall_s"]
    else:
        table["speedup"] = table["events_per_s"] / first["events_per_s"]
    table["efficiency"] = table["speedup"] * first["ranks"] / table["ranks"]
    return table[[name for name, _, _ in COLUMNS if name in table]]


def write_table(directory, table, mode):
    """DIR/scaling.csv, and DIR/scaling.h5 with the table /scaling written like hxsim's own:
    one 1-D dataset per column with `units` and `long_name`, the id `row` as dimension scale."""
    import h5py
    import numpy as np
    table.to_csv(os.path.join(directory, "scaling.csv"), index=False)
    described = {name: (units, text) for name, units, text in COLUMNS}
    temporary = os.path.join(directory, "scaling.h5.tmp")
    with h5py.File(temporary, "w") as f:
        f.attrs["mode"] = mode
        group = f.create_group("scaling")
        group.attrs["long_name"] = f"{mode} scaling: one row per rank count"
        ids = group.create_dataset("row", data=np.arange(len(table), dtype=np.uint64))
        ids.attrs.update(units="1", long_name="row")
        ids.make_scale("row")
        for name in table.columns:
            values = table[name].to_numpy()
            if values.dtype == object:
                values = np.array([str(v) for v in values], dtype=h5py.string_dtype())
            column = group.create_dataset(name, data=values)
            column.attrs.update(units=described[name][0], long_name=described[name][1])
            column.dims[0].attach_scale(ids)
    os.replace(temporary, os.path.join(directory, "scaling.h5"))


def plot(directory, table, mode):
    """DIR/scaling.png: speed-up and efficiency against ranks with the ideal lines, and
    DIR/breakdown.png: the mean per-rank time split into compute, exchange and reduction."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    ranks, base = table["ranks"].to_numpy(), table["ranks"].iloc[0]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    left.plot(ranks, table["speedup"], marker="o", label="measured")
    left.plot(ranks, ranks / base, linestyle="--", color="grey", label="ideal")
    left.set_ylabel("speed-up" if mode == "strong" else "scaled speed-up (events/s)")
    right.plot(ranks, table["efficiency"], marker="o", label="measured")
    right.axhline(1.0, linestyle="--", color="grey", label="ideal")
    right.set_ylabel("parallel efficiency")
    right.set_ylim(0, max(1.1, table["efficiency"].max() * 1.1))
    for ax in (left, right):
        ax.set_xscale("log", base=2)
        ax.set_xticks(ranks, [str(r) for r in ranks])
        ax.minorticks_off()
        ax.set_xlabel("MPI ranks")
        ax.grid(True, linewidth=0.3)
        ax.legend()
    fig.suptitle(f"{mode} scaling ({directory})")
    fig.tight_layout()
    fig.savefig(os.path.join(directory, "scaling.png"), dpi=100)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(1.2 * len(table) + 4, 4))
    bottom = np.zeros(len(table))
    positions = np.arange(len(table))
    for column, label in (("compute_s", "compute"), ("exchange_s", "exchange"),
                          ("reduce_s", "reduction")):
        ax.bar(positions, table[column], bottom=bottom, label=label)
        bottom += table[column].to_numpy()
    ax.plot(positions, table["wall_s"], "k_", markersize=30, label="wall (slowest rank)")
    ax.set_xticks(positions, [str(r) for r in ranks])
    ax.set_xlabel("MPI ranks")
    ax.set_ylabel("time per rank (s), mean over ranks")
    ax.set_title(f"{mode} scaling: where the time goes")
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    fig.savefig(os.path.join(directory, "breakdown.png"), dpi=100)
    plt.close(fig)


def main(argv):
    if argv[:1] == ["model"]:
        import scaling_model
        return scaling_model.main(argv[1:])
    parser = argparse.ArgumentParser(
        prog="scaling.py", description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=("strong", "weak"),
                        help="strong: one problem on more ranks; weak: it grows with the ranks")
    parser.add_argument("config", nargs="?", help="TOML config (default: hxsim's quickstart)")
    parser.add_argument("--ranks", help="strong: rank counts, e.g. 1,2,4,8")
    parser.add_argument("--series", help='weak: e.g. "1 phold.lps=25000; 2 phold.lps=50000"')
    parser.add_argument("--series-file", help="weak: the series from a file, one entry a line")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="override for every run (repeatable)")
    parser.add_argument("--out", help="directory of the runs, the table and the plots")
    parser.add_argument("--repeat", type=int, default=1,
                        help="runs per rank count; the table takes the median (default 1)")
    parser.add_argument("--emit", choices=("mpirun", "srun"),
                        help="print the commands for a cluster instead of running them")
    parser.add_argument("--launcher-args", metavar="ARGS",
                        help='extra mpirun/srun flags (with "=": --launcher-args="--mpi=pmix"'
                        '); locally they go to scripts/mpirun.sh, e.g. "--hostfile hosts"')
    parser.add_argument("--collect", metavar="DIR",
                        help="run nothing: tabulate and plot the *.h5 runs in DIR")
    parser.add_argument("--hxsim", default=os.path.join(ROOT, "build", "src", "app", "hxsim"),
                        help="the hxsim binary (default: build/src/app/hxsim)")
    args = parser.parse_args(argv)
    if args.collect:
        if not os.path.isdir(args.collect):
            fail(f"--collect {args.collect}: no such directory")
        directory = args.collect
        names = sorted(n for n in os.listdir(directory)
                       if n.endswith(".h5") and n != "scaling.h5")
    else:
        if not args.out:
            fail("give --out DIR (or --collect DIR)")
        if args.repeat < 1:
            fail("--repeat must be at least 1")
        runs = plan(args)
        if args.emit:
            emit(args, runs)
            return 0
        run_all(args, runs)
        directory, names = args.out, [name for name, _, _, _ in runs]
    table = tabulate(directory, names, args.mode)
    write_table(directory, table, args.mode)
    plot(directory, table, args.mode)
    shown = table[["ranks", "wall_s", "events_per_s", "speedup", "efficiency", "compute_s",
                   "exchange_s", "reduce_s"]]
    print(shown.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    print(f"wrote {directory}/scaling.csv, scaling.h5, scaling.png and breakdown.png")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
