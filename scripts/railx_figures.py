#!/usr/bin/python3
"""Regenerates the RailX paper's all-to-all evaluation (Fig. 14, §6.3) and availability (Fig. 17, §6.6) with hxsim.

    scripts/railx_figures.py [--out DIR] [--figures 14a,14b,17] [--quick | --tiny] [--ranks N]
                             [--hxsim PATH] [--set KEY=VALUE ...]

Fig. 14(a): uniform traffic on ~1.3K-chip topologies, each chip with 8 ports of 1 flit/cycle
(configs/railx/fig14a_*.toml): RailX-2D-HyperX (m = 4, n = 2, 1,296 chips, mesh_speed 4) with
router.vcs = 6 (two 16-flit buffers per VC class of its 3) and with the default 3, a 36 x 36 2D
torus, an 11^3 3D torus, a 36-ary 2-tree fat tree, a switch-based Dragonfly (1,312 chips) and
HammingMesh Hx4Mesh (9 x 9 boards of 4 x 4 chips, one 18-port switch per chip row and column,
ports of two planes) with router.vcs = 6 (a buffer per VC class and plane, the baselines'
convention) and 12 (two, as RailX's 6 VCs give each of its one-plane ports).
Fig. 14(b): RailX-2D-HyperX with railx.mesh_speed (the paper's k) = 1, 2, 4, router.vcs = 6.

Each curve is one `hxsim sweep` (latency against offered load up to saturation) written to
DIR/runs/<curve>.h5; curves whose file exists are not run again (delete it to redo), and a curve
in both panels (RailX k = 4, 6 VCs) is run once. Then DIR/fig14a.png and DIR/fig14b.png are
drawn (latency against accepted load, and the saturation throughputs) and DIR/summary.csv lists
every curve's saturation throughput in flits/cycle/chip (every endpoint is one chip) and the
wall time of its sweep. The paper: RailX reaches 0.8 flits/cycle/chip of a theoretical 1.

Fig. 17: `hxsim topo --availability` (Algorithm 2 on 100 random fault sets per point) for the
full systems of OCS radix R = 32, 64, 128 and 256 ((R/2)^2 nodes): (a) the largest single job
and the worst case (R/2 - a)^2 against the number of faulted nodes, (b) availability against the
node failure rate; DIR/fig17.h5 holds the tables, DIR/fig17.png the two panels. --tiny: R = 32
and 64 only. Points where Algorithm 2 would enumerate too many clustered faults are left out.

Windows: Table 5's 5,000 warm-up + 10,000 measured cycles and 3 bisection steps; --quick
1,000 + 3,000 cycles and 1 step; --tiny (tests only) 200 + 500 cycles, no bisection, a
200-cycle drain limit and twice the load step. --set passes overrides to every sweep (and is
part of no file name: use a fresh --out).
"""
import argparse
import csv
import json
import os
import subprocess
import sys
from dataclasses import dataclass

import h5py
import hxrun
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFIGS = os.path.join(ROOT, "configs", "railx")


def config(name):
    return os.path.join(CONFIGS, f"fig14a_{name}.toml")


@dataclass
class Curve:
    name: str  # file name under DIR/runs: curves of the same name are one run
    label: str
    config: str
    sets: dict
    start: float  # first load and step, flits/cycle/chip
    max: float = 1.0  # highest load tried (the injection bandwidth is 8)


def railx(k, vcs):
    return Curve(f"railx_k{k}_vcs{vcs}", f"RailX-2D-HyperX k={k}, {vcs} VCs", config("hyperx"),
                 {"railx.mesh_speed": str(k), "router.vcs": str(vcs)}, 0.1, 2.0)


def hammingmesh(vcs):  # 6: a 16-flit buffer per VC class and plane, as the other baselines
    return Curve(f"hammingmesh_vcs{vcs}", f"HammingMesh Hx4Mesh, {vcs} VCs", config("hammingmesh"),
                 {"router.vcs": str(vcs)}, 0.1, 2.0)


def figures():
    return {
        "14a": [
            railx(4, 6),
            railx(4, 3),
            Curve("torus2d", "2D torus 36x36", config("torus2d"), {}, 0.05),
            Curve("torus3d", "3D torus 11x11x11", config("torus3d"), {}, 0.1, 2.0),
            Curve("dragonfly", "Dragonfly 1,312 (8 planes)", config("dragonfly"), {}, 1.0, 8.0),
            Curve("fat_tree", "fat tree 36-ary 2-tree (8 planes)", config("fat_tree"), {}, 1.0, 8.0),
            hammingmesh(6),
            hammingmesh(12),
        ],
        "14b": [railx(k, 6) for k in (1, 2, 4)],
    }


def file_name(out, curve):
    return os.path.join(out, "runs", f"{curve.name}.h5")


def run(args, curve):
    path = file_name(args.out, curve)
    if os.path.exists(path):
        return path
    os.makedirs(os.path.dirname(path), exist_ok=True)
    sets = {"traffic.pattern": "uniform", **curve.sets}
    step, refine = curve.start, 3
    if args.quick:
        sets.update({"traffic.warmup": "1000cycles", "traffic.measure": "3000cycles"})
        refine = 1
    elif args.tiny:
        sets.update({"traffic.warmup": "200cycles", "traffic.measure": "500cycles",
                     "traffic.drain_limit": "200cycles"})
        step, refine = 2 * curve.start, 0
    else:
        sets.update({"traffic.warmup": "5000cycles", "traffic.measure": "10000cycles"})
    arguments = ["sweep", curve.config, "--start", str(step), "--step", str(step),
                 "--max", str(curve.max), "--refine", str(refine)]
    hxrun.run_to_file(args.hxsim, arguments, path, sets, args.ranks, curve.name,
                      "railx_figures_wall_s", args.set)
    return path


def draw(args, figure, curves, rows):
    fig, (lat, bars) = plt.subplots(1, 2, figsize=(9.5, 3.6),
                                    gridspec_kw={"width_ratios": [3, 2]})
    saturations = []
    for c in curves:
        with h5py.File(file_name(args.out, c), "r") as f:
            accepted = f["sweep/accepted_load"][()]  # flits/cycle per endpoint = per chip
            latency = f["sweep/latency_mean_ps"][()] / 1000.0
            saturation = float(f["summary"].attrs["saturation_throughput"])
            wall = float(f["summary"].attrs.get("railx_figures_wall_s", float("nan")))
        lat.plot(accepted, latency, marker=".", label=c.label)
        saturations.append(saturation)
        rows.append([f"fig{figure}", c.label, "saturation_flits_per_cycle_per_chip",
                     f"{saturation:.4f}"])
        rows.append([f"fig{figure}", c.label, "sweep_wall_s", f"{wall:.1f}"])
    lat.set_xlabel("accepted load (flits/cycle/chip)")
    lat.set_ylabel("mean latency (ns; 1 cycle = 1 ns)")
    lat.set_yscale("log")
    if max(saturations) > 4 * min(saturations):
        lat.set_xscale("log")
    lat.legend(fontsize=6)
    lat.set_title(f"Fig. {figure}: uniform traffic")
    bars.barh(range(len(curves)), saturations)
    bars.set_yticks(range(len(curves)), [c.label for c in curves], fontsize=6)
    bars.invert_yaxis()
    bars.axvline(1.0, color="grey", linestyle=":", linewidth=1)  # the paper's RailX maximum
    bars.set_xlabel("saturation throughput (flits/cycle/chip)")
    for i, s in enumerate(saturations):
        bars.text(s, i, f" {s:.2f}", va="center", fontsize=6)
    fig.tight_layout()
    fig.savefig(os.path.join(args.out, f"fig{figure}.png"), dpi=120)
    plt.close(fig)


AVAILABILITY = ("faults", "mean_nodes", "worst_nodes", "availability")


def availability(args, rows):
    radices = (32, 64) if args.tiny else (32, 64, 128, 256)
    tables = {}
    for radix in radices:
        command = [args.hxsim, "topo", config("hyperx"), "--availability", "--json",
                   "--set", f"railx.ocs_radix={radix}"]
        print(f"fig17 R={radix}: {' '.join(command)}", flush=True)
        report = json.loads(subprocess.run(command, check=True, capture_output=True,
                                           text=True).stdout)
        tables[radix] = report
        for key, value in report["availability"].items():
            rows.append(["fig17", f"R={radix}", f"availability_{key}", f"{value:.4f}"])
    with h5py.File(os.path.join(args.out, "fig17.h5"), "w") as f:
        for radix, report in tables.items():
            group = f.create_group(f"R{radix}")
            group.attrs["nodes"] = (radix // 2) ** 2
            keys = sorted(report["faults"], key=lambda k: (k.split("_")[0], float(k.split("_")[1])))
            group["point"] = [k.encode() for k in keys]
            for column in AVAILABILITY:
                group[column] = [report[column].get(k, float("nan")) for k in keys]
    fig, (by_faults, by_rate) = plt.subplots(1, 2, figsize=(9.5, 3.6))
    for radix, report in tables.items():
        nodes = (radix // 2) ** 2
        faults = sorted((int(k.split("_")[1]), k) for k in report["faults"]
                        if k.startswith("faults_"))
        x = [0] + [f for f, _ in faults]
        line, = by_faults.plot(x, [1.0] + [report["mean_nodes"][k] / nodes for _, k in faults],
                               marker=".", label=f"R={radix} mean")
        by_faults.plot(x, [1.0] + [report["worst_nodes"][k] / nodes for _, k in faults],
                       linestyle=":", color=line.get_color(), label=f"R={radix} worst")
        rates = sorted((float(k.split("_")[1]), k) for k in report["availability"]
                       if k.startswith("rate_"))
        by_rate.plot([100 * r for r, _ in rates], [report["availability"][k] for _, k in rates],
                     marker=".", label=f"R={radix}: {nodes:,} nodes")
    by_faults.set_xlabel("faulted nodes")
    by_faults.set_ylabel("largest single job / all nodes")
    by_faults.set_title("Fig. 17(a)")
    by_faults.legend(fontsize=6)
    by_rate.set_xscale("log")
    by_rate.axvline(0.1, color="grey", linestyle=":", linewidth=1)  # §6.6's typical rate
    by_rate.axhline(0.9, color="grey", linestyle=":", linewidth=1)
    by_rate.set_xlabel("node failure rate (%)")
    by_rate.set_ylabel("availability (mean single job / all nodes)")
    by_rate.set_title("Fig. 17(b)")
    by_rate.legend(fontsize=6)
    fig.tight_layout()
    fig.savefig(os.path.join(args.out, "fig17.png"), dpi=120)
    plt.close(fig)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="railx_figures")
    parser.add_argument("--figures", default="14a,14b,17")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true")
    mode.add_argument("--tiny", action="store_true", help="seconds-long windows, for tests")
    parser.add_argument("--ranks", type=int, default=1)
    parser.add_argument("--hxsim", default=os.path.join(ROOT, "build", "src", "app", "hxsim"))
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="passed to every sweep")
    args = parser.parse_args()
    table = figures()
    wanted = [t for t in args.figures.split(",") if t]
    for token in wanted:
        if token not in table and token != "17":
            sys.exit(f"railx_figures.py: no figure '{token}'; choose from "
                     f"{sorted(table) + ['17']}")
    os.makedirs(args.out, exist_ok=True)
    rows = []
    for token in wanted:
        if token == "17":
            availability(args, rows)
            continue
        for curve in table[token]:
            run(args, curve)
        draw(args, token, table[token], rows)
    with open(os.path.join(args.out, "summary.csv"), "w", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["figure", "curve", "quantity", "value"])
        writer.writerows(rows)
    print(f"wrote {args.out}/summary.csv and fig*.png")


if __name__ == "__main__":
    main()
