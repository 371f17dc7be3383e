#!/usr/bin/python3
"""Regenerates the all-reduce evaluation of the RailX paper (Fig. 15, §6.4) with hxsim.

    scripts/railx_allreduce.py [--out DIR] [--quick] [--eq13] [--scales 2,4,8]
                               [--sizes 4KiB,...] [--k K]
                               [--algorithms ring1d,ring2d,hierarchical]
                               [--links] [--ranks N] [--hxsim PATH] [--set KEY=VALUE ...]

Three all-reduce algorithms on a RailX torus of p x p nodes of m x m = 4 x 4 chips, n = 1
(four ports per chip), configs/railx/fig15_*.toml (written for p = 4; this script sets the
torus size, the mapping and the grid shapes for every p):

- ring1d: one bidirectional ring over all N = (mp)^2 chips along a Hamiltonian cycle of the
  chip grid, every link at 200 GB/s ("double bandwidth for the 1D-ring"), Eq. 6;
- ring2d: the 2D-ring (2D-torus) algorithm over the mp x mp chip grid, Eq. 7;
- hierarchical: bidirectional ring over each node's 16 chips (a Hamiltonian cycle of the mesh),
  then the 2D ring over the p x p nodes among the chips of one local rank, Eq. 8.

Links: 100 GB/s and 300 ns per optical (external) hop, k x 100 GB/s and 10 ns per mesh
(internal) hop. Each point is one `hxsim run` written to DIR/runs/<point>.h5 (kept: delete it to
redo). Then DIR/allreduce.h5 (group /allreduce, one dataset per column) and DIR/allreduce.csv
hold, per point, the simulated time, the paper's formula time (below), its bandwidth term (the
formula with α = 0: a lower bound, the links must carry those bytes) and hxsim's own α–β time,
and DIR/fig15.png draws them (time against size, one panel per scale). --links also draws
DIR/links.png: per run, every link's busy time over the all-reduce's, by link class.

Formulas (all-reduce, the forms before the paper's "≈", α = 300 ns, nB = 100 GB/s,
T_R(p, V, B, a) = (p-1)a + (p-1)/p V/(2B), Eq. 6):
  ring1d        2 T_R(N, V, 2nB, α)
  ring2d        2 [T_R(mp, V/2, nB, α) + T_R(mp, V/(2mp), nB, α)]                     (Eq. 7)
  hierarchical  2 T_R(m^2, V, knB, 10 ns) + 2 [T_R(p, V/(2m^2), nB/m, α)
                                              + T_R(p, V/(2m^2 p), nB/m, α)]         (Eq. 8)
hxsim's α–β time (`hxsim_ab_s`) is the same except for hierarchical, where the runtime charges
the local ring steps the one α it has (300 ns) instead of 10 ns.

p = 2 uses hyperx:2 instead of torus:2 (the same circuits; see overrides()).

--eq13: Appendix A.2's all-to-all-based (direct) all-reduce on RailX-2D-HyperX instead (the same
nodes, links and k; x = y = hyperx:p, so p = 2, 3 or 5 with r = 4 rails per axis:
configs/railx/eq13_*.toml), written to DIR/eq13.{h5,csv} and DIR/eq13.png:
- hierarchical_direct: Eq. 13 in full: the local bidirectional ring on each node's mesh, then
  the direct 2D all-reduce of V/m^2 among the chips of one local rank over the p x p nodes;
- direct2d: Eq. 13 without its local-mesh stage: the direct 2D all-reduce of V among the chips
  of one local rank, all m^2 local ranks at once (workload.groups), no mesh stage;
- hierarchical: Eq. 8's 2D ring on the same HyperX, for comparison (A.2: the direct global step's
  latency "does not increase with the scale p").
Formulas (T_AR(p, V, B, a) = a + (p-1)/p V/(2B), Eq. 12; local steps 10 ns as for Eq. 8):
  hierarchical_direct  2 T_R(m^2, V, knB, 10 ns) + 2 [T_AR(p, V/(2m^2), nB/m, α)
                                                      + T_AR(p, V/(2m^2 p), nB/m, α)]  (Eq. 13)
  direct2d             2 [T_AR(p, V/2, nB/m, α) + T_AR(p, V/(2p), nB/m, α)]
Eq. 13 prints T_AR(mp, ...) in its second term; its own next line, 4α + (p^2-1)/p^2
(V/m^2)/(2nB/m), holds for p there, which is used. Default --eq13 scales 3, 5 and sizes 4 KiB
to 16 MiB in steps of 16x; with --quick p = 3 and sizes 4 KiB, 1 MiB.

Default: scales p = 2, 4, 8 (64, 256, 1,024 chips), sizes 4 KiB to 64 MiB in steps of 4x,
64 MiB left out at p = 8 (--scales 8 --sizes 64MiB runs it); --quick: p = 2, 4 and sizes 4 KiB,
256 KiB, 16 MiB.
"""
import argparse
import csv
import os
import sys

import h5py
import hxanalysis
import hxrun
import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFIGS = os.path.join(ROOT, "configs", "railx")

M = 4  # chips per node side (the shipped configs)
NB = 100e9  # external bandwidth per chip edge, bytes/s (n = 1 port of 100 GB/s)
ALPHA = 300e-9  # per external hop
ALPHA_INTERNAL = 10e-9  # per internal hop
ALGORITHMS = ("ring1d", "ring2d", "hierarchical")
EQ13_ALGORITHMS = ("hierarchical_direct", "direct2d", "hierarchical")
LABELS = {"ring1d": "1D-ring", "ring2d": "2D-torus", "hierarchical": "hierarchical 2D-torus",
          "hierarchical_direct": "hierarchical direct (Eq. 13)",
          "direct2d": "direct 2D, no local stage"}
# Nodes per line a RailX-2D-HyperX of r = m n = 4 rails per axis can join (Lemma 3.1: p - 1
# rails for p nodes, and no Hamiltonian decomposition of K*_4 or K*_6).
HYPERX_SCALES = (2, 3, 5)
UNITS = {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}


def parse_bytes(text):
    for unit, factor in UNITS.items():
        if text.endswith(unit):
            return int(text[: -len(unit)]) * factor
    if text.isdigit():
        return int(text)
    sys.exit(f"railx_allreduce.py: size '{text}' is not a byte count (e.g. 4096, 64KiB, 16MiB)")


def size_name(v):
    for unit in ("GiB", "MiB", "KiB"):
        if v % UNITS[unit] == 0:
            return f"{v // UNITS[unit]}{unit}"
    return str(v)


def hamiltonian_cycle(side):
    """A cycle through every cell of a side x side grid (side even), as (x, y), each step to a
    grid neighbour: row 0 left to right, rows 1.. side-1 snaking over columns side-1 .. 1, then
    column 0 back down to the start. Rings laid along it use one link per step."""
    cells = [(x, 0) for x in range(side)]
    for y in range(1, side):
        xs = range(side - 1, 0, -1) if y % 2 else range(1, side)
        cells += [(x, y) for x in xs]
    cells += [(0, y) for y in range(side - 1, 0, -1)]
    return cells


def chip_endpoint(p, x, y):
    """hxsim's RailX endpoint of chip-grid position (x, y) (chip (x % m, y % m) of node
    (x / m, y / m)): chip (cx, cy) of node N is N m^2 + cy m + cx, node (X, Y) is X + p Y."""
    return (x % M) + M * (y % M) + M * M * (x // M + p * (y // M))


def group_text(endpoints):
    """The group syntax of workload.mapping_spec, ascending runs written as ranges."""
    items, i = [], 0
    while i < len(endpoints):
        j = i
        while j + 1 < len(endpoints) and endpoints[j + 1] == endpoints[j] + 1:
            j += 1
        items.append(str(endpoints[i]) if i == j else f"{endpoints[i]}-{endpoints[j]}")
        i = j + 1
    return ",".join(items)


def mapping(algorithm, p):
    """Rank r's endpoint, for ranks 0 .. (mp)^2 - 1."""
    if algorithm == "ring1d":
        return [chip_endpoint(p, x, y) for x, y in hamiltonian_cycle(M * p)]
    if algorithm == "ring2d":  # rank = row * cols + col over the chip grid
        return [chip_endpoint(p, x, y) for y in range(M * p) for x in range(M * p)]
    if algorithm == "direct2d":  # rank = endpoint: the groups of equal local rank are strided
        return list(range((M * p) ** 2))
    # hierarchical (and hierarchical_direct): node-major (node g = X + p Y, the global grid's
    # row-major order), and inside a node the local ranks along the mesh's Hamiltonian cycle.
    local = [x + M * y for x, y in hamiltonian_cycle(M)]
    return [g * M * M + c for g in range(p * p) for c in local]


def overrides(algorithm, p, v, k, eq13=False):
    # A 2-node torus ring and a 2-node HyperX line have the same circuits (u+ to v-, v+ to u-),
    # but minimal torus routing takes the + circuit both ways (a tie), leaving the - circuits
    # idle and walking 2(m-1) mesh hops; HyperX routing takes the nearer port.
    dimension = "hyperx:2" if p == 2 else f"torus:{p}"
    if eq13:
        dimension = f"hyperx:{p}"
    sets = {"railx.x": dimension, "railx.y": dimension, "workload.bytes": f"{v}B"}
    if algorithm == "direct2d":
        sets.update({"workload.rows": str(p), "workload.cols": str(p),
                     "workload.groups": f"{p * p}:{M * M}", "railx.mesh_speed": str(k)})
        return sets
    sets["workload.mapping_spec"] = group_text(mapping(algorithm, p))
    if algorithm == "hierarchical_direct":
        sets.update({"workload.global_rows": str(p), "workload.global_cols": str(p),
                     "railx.mesh_speed": str(k),
                     "workload.local_bandwidth": f"{k * NB / 1e9:g}GB/s"})
    elif algorithm == "ring2d":
        sets.update({"workload.rows": str(M * p), "workload.cols": str(M * p),
                     "railx.mesh_speed": str(k)})
    elif algorithm == "hierarchical":
        sets.update({"workload.global_rows": str(p), "workload.global_cols": str(p),
                     "railx.mesh_speed": str(k),
                     "workload.local_bandwidth": f"{k * NB / 1e9:g}GB/s"})
    return sets


def t_r(p, v, b, a):
    return (p - 1) * a + (p - 1) / p * v / (2 * b)


def t_ar(p, v, b, a):
    """Eq. 12: direct reduce-scatter or all-gather (the paper's T_AR)."""
    return a + (p - 1) / p * v / (2 * b)


def formula_seconds(algorithm, p, v, k, alpha=ALPHA, alpha_internal=ALPHA_INTERNAL):
    if algorithm == "direct2d":
        return 2 * (t_ar(p, v / 2, NB / M, alpha) + t_ar(p, v / (2 * p), NB / M, alpha))
    if algorithm == "hierarchical_direct":
        return 2 * t_r(M * M, v, k * NB, alpha_internal) + 2 * (
            t_ar(p, v / (2 * M * M), NB / M, alpha) + t_ar(p, v / (2 * M * M * p), NB / M, alpha))
    if algorithm == "ring1d":
        return 2 * t_r((M * p) ** 2, v, 2 * NB, alpha)
    if algorithm == "ring2d":
        return 2 * (t_r(M * p, v / 2, NB, alpha) + t_r(M * p, v / (2 * M * p), NB, alpha))
    return 2 * t_r(M * M, v, k * NB, alpha_internal) + 2 * (
        t_r(p, v / (2 * M * M), NB / M, alpha) + t_r(p, v / (2 * M * M * p), NB / M, alpha))


def point_name(algorithm, p, v, k, eq13=False):
    return f"{'hyperx_' if eq13 else ''}{algorithm}_p{p}_k{k:g}_{size_name(v)}"


def config(algorithm, eq13):
    if not eq13:
        return f"fig15_{algorithm}.toml"
    # The hierarchical 2D ring on the HyperX: fig15's config with hyperx dimensions (overrides).
    return "fig15_hierarchical.toml" if algorithm == "hierarchical" else f"eq13_{algorithm}.toml"


def run(args, algorithm, p, v):
    path = os.path.join(args.out, "runs", point_name(algorithm, p, v, args.k, args.eq13) + ".h5")
    if not os.path.exists(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        arguments = ["run", os.path.join(CONFIGS, config(algorithm, args.eq13)), "--progress",
                     "off"]
        hxrun.run_to_file(args.hxsim, arguments, path,
                          overrides(algorithm, p, v, args.k, args.eq13), args.ranks,
                          os.path.basename(path), "railx_allreduce_wall_s", args.set)
    with h5py.File(path, "r") as f:
        s = f["summary"].attrs
        if int(s["workload_complete"]) != 1:
            sys.exit(f"railx_allreduce.py: {path}: the all-reduce did not complete")
        return {"path": path, "simulated_s": int(s["workload_end_ps"]) * 1e-12,
                "hxsim_ab_s": int(s["workload_analytic_ps"]) * 1e-12,
                "wall_s": float(s["railx_allreduce_wall_s"])}


def write_table(out, rows, stem):
    names = list(rows[0])
    with open(os.path.join(out, f"{stem}.csv"), "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=names)
        writer.writeheader()
        writer.writerows(rows)
    with h5py.File(os.path.join(out, f"{stem}.h5.tmp"), "w") as f:
        g = f.create_group(stem)
        for name in names:
            values = [r[name] for r in rows]
            g[name] = np.array(values, dtype="S") if isinstance(values[0], str) else values
        g.attrs["units"] = "bytes: per chip; *_s: seconds; ratio: simulated_s / formula_s"
    os.replace(os.path.join(out, f"{stem}.h5.tmp"), os.path.join(out, f"{stem}.h5"))


def draw(out, rows, scales, k, algorithms, png, topology):
    fig, axes = plt.subplots(1, len(scales), figsize=(3.6 * len(scales), 3.4), squeeze=False)
    for ax, p in zip(axes[0], scales):
        for i, algorithm in enumerate(algorithms):
            pts = [r for r in rows if r["algorithm"] == algorithm and r["p"] == p]
            if not pts:
                continue
            x = [r["bytes"] for r in pts]
            color = f"C{i}"
            ax.plot(x, [r["simulated_s"] * 1e6 for r in pts], marker="o", color=color,
                    label=f"{LABELS[algorithm]} (hxsim)")
            ax.plot(x, [r["formula_s"] * 1e6 for r in pts], linestyle="--", color=color,
                    label=f"{LABELS[algorithm]} (formula)")
        ax.set_xscale("log", base=2)
        sizes = sorted({r["bytes"] for r in rows if r["p"] == p})
        ax.set_xticks(sizes, [size_name(v) for v in sizes], rotation=45, fontsize=7)
        ax.minorticks_off()
        ax.set_yscale("log")
        ax.set_xlabel("all-reduce size per chip (bytes)")
        ax.set_title(f"{topology} {p}x{p} nodes, {(M * p) ** 2} chips, k={k:g}", fontsize=8)
        ax.grid(True, which="major", linewidth=0.3)
    axes[0][0].set_ylabel("time (us)")
    axes[0][0].legend(fontsize=6)
    fig.tight_layout()
    fig.savefig(os.path.join(out, png), dpi=120)
    plt.close(fig)


def draw_links(out, rows, paths):
    """Per-link utilisation of each run over its all-reduce (busy time / completion time), links
    of a class sorted, against the bandwidth term's share: where a run is slower than its
    formula's bandwidth term, this shows whether some links are overloaded (contention) or all
    of them idle part of the time (the schedule or the buffers)."""
    fig, axes = plt.subplots(1, len(rows), figsize=(3.6 * len(rows), 3.2), squeeze=False)
    for ax, row, path in zip(axes[0], rows, paths):
        frame = hxanalysis.links(path)
        with h5py.File(path, "r") as f:
            end_ps = int(f["summary"].attrs["workload_end_ps"])
        start = 0
        for name in ("mesh", "xrail", "yrail"):
            part = frame[frame["class"] == name]
            share = sorted(part["busy_ps"] / end_ps)
            ax.plot(range(start, start + len(share)), share, ".", markersize=3, label=name)
            start += len(share)
        ax.axhline(row["bandwidth_term_s"] / row["simulated_s"], linestyle="--", color="k",
                   linewidth=0.8, label="bandwidth term / time")
        ax.set_ylim(0, 1.05)
        ax.set_xlabel("link (sorted within its class)")
        ax.set_title(f"{LABELS[row['algorithm']]}, p={row['p']}, {size_name(row['bytes'])}: "
                     f"{row['ratio']:.2f}x", fontsize=8)
    axes[0][0].set_ylabel("busy / all-reduce time")
    axes[0][0].legend(fontsize=6)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "links.png"), dpi=120)
    plt.close(fig)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="railx_allreduce")
    parser.add_argument("--quick", action="store_true", help="p = 2, 4; three sizes")
    parser.add_argument("--eq13", action="store_true",
                        help="Appendix A.2's direct all-reduce on RailX-2D-HyperX (Eq. 13)")
    parser.add_argument("--scales", help="node grid sides p, e.g. 2,4,8")
    parser.add_argument("--sizes", help="all-reduce sizes per chip, e.g. 4KiB,1MiB")
    parser.add_argument("--k", type=float, default=4.0,
                        help="mesh links at k x 100 GB/s (all but ring1d)")
    parser.add_argument("--algorithms",
                        help=f"default {','.join(ALGORITHMS)}; --eq13: {','.join(EQ13_ALGORITHMS)}")
    parser.add_argument("--links", action="store_true",
                        help="also DIR/links.png: every run's per-link utilisation")
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--hxsim", default=os.path.join(ROOT, "build", "src", "app", "hxsim"))
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="passed to every run (and part of no file name: use a fresh --out)")
    args = parser.parse_args()
    known = EQ13_ALGORITHMS if args.eq13 else ALGORITHMS
    algorithms = [a for a in (args.algorithms or ",".join(known)).split(",") if a]
    for a in algorithms:
        if a not in known:
            sys.exit(f"railx_allreduce.py: no algorithm '{a}'"
                     f"{' with --eq13' if args.eq13 else ''}; choose from {', '.join(known)}")
    default_scales = ("3" if args.quick else "3,5") if args.eq13 else (
        "2,4" if args.quick else "2,4,8")
    scales = [int(s) for s in (args.scales or default_scales).split(",")]
    for p in scales:
        if p < 2:
            sys.exit(f"railx_allreduce.py: scale {p}: a torus needs at least 2 nodes per side")
        if args.eq13 and p not in HYPERX_SCALES:
            sys.exit(f"railx_allreduce.py: scale {p}: with r = 4 rails per axis a HyperX line has "
                     f"p = {', '.join(map(str, HYPERX_SCALES))} nodes (Lemma 3.1)")
    if args.sizes:
        sizes = [parse_bytes(s) for s in args.sizes.split(",")]
    elif args.eq13:
        sizes = [4 << 10, 1 << 20] if args.quick else [4 << (10 + 4 * i) for i in range(4)]
    elif args.quick:
        sizes = [4 << 10, 256 << 10, 16 << 20]
    else:
        sizes = [4 << (10 + 2 * i) for i in range(8)]  # 4 KiB .. 64 MiB
    rows, paths = [], []
    for p in scales:
        for v in sizes:
            # The defaults leave out 64 MiB at p >= 8, the costliest points (packets grow with
            # chips x size), to keep the whole run near 5 min on 2 cores
            # (docs/performance/models.md).
            if not (args.quick or args.sizes or args.eq13) and p >= 8 and v > (16 << 20):
                continue
            for algorithm in algorithms:
                result = run(args, algorithm, p, v)
                paths.append(result["path"])
                formula = formula_seconds(algorithm, p, v, args.k)
                rows.append({"algorithm": algorithm, "p": p, "chips": (M * p) ** 2, "k": args.k,
                             "bytes": v, "simulated_s": result["simulated_s"],
                             "formula_s": formula, "ratio": result["simulated_s"] / formula,
                             "bandwidth_term_s": formula_seconds(algorithm, p, v, args.k, 0, 0),
                             "hxsim_ab_s": result["hxsim_ab_s"], "wall_s": result["wall_s"]})
    stem, png = ("eq13", "eq13.png") if args.eq13 else ("allreduce", "fig15.png")
    write_table(args.out, rows, stem)
    draw(args.out, rows, scales, args.k, known, png,
         "2D-HyperX" if args.eq13 else "2D-torus")
    if args.links:
        draw_links(args.out, rows, paths)
    print(f"wrote {args.out}/{stem}.h5, {stem}.csv and {png}{' and links.png' if args.links else ''}")


if __name__ == "__main__":
    main()
