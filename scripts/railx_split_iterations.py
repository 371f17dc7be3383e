#!/usr/bin/python3
"""RailX Fig. 16 (§6.5) from simulated training iterations: the CP : DP port split of one
physical dimension, chosen by running hxsim's LLM iteration on every split.

    scripts/railx_split_iterations.py [--out DIR] [--quick] [--splits 1,...,9]
                                      [--seqs 8K,...,128K] [--layers 7] [--micro-batches 16]
                                      [--dp-algorithm hierarchical|ring]
                                      [--cp-algorithm exchange|ring] [--jobs 2]
                                      [--hxsim PATH] [--set KEY=VALUE ...]

The network and job are those of scripts/railx_bandwidth_split.py (read its header): 16 RailX
nodes of 4 x 4 chips, one dimension's 10 ports per chip edge split into a CP torus of C = 4 nodes
on n_c ports and a DP torus of D = 4 nodes on 10 - n_c; Llama 3.1 405B with T = 16 on each mesh,
one pipeline stage of L/P = 7 layers (P = 18), N_B = 16 micro-batches of one sequence, 989
TFLOP/s at 40%. Where that script simulates one CP and one DP collective and assembles the
iteration with Eq. 10-11, this one runs the whole stage's iteration at flow level
(configs/railx/fig16_cp.toml with workload.kind = "llm"): every layer's TP collectives on the
mesh, CP's K/V exchanges (Table 4's row, llm.cp_algorithm = "exchange") on the CP rails, the
stage's gradient all-reduces, compute, and with --overlap runs llm.dp_overlap (the all-reduces
beside the last micro-batch's backward pass, Eq. 10's T*).

DP follows Table 4: the embedding and output layer's gradients (DP VOC) over the D replicas, the
QKV and FFN gradients over the C x D ranks, which `hierarchical` (default) reduces as Table 4's
T_2D(n_c, n_d): reduce-scatter among the C ranks on the CP rails, all-reduce along the DP rails,
all-gather on the CP rails (llm.dp_local = C); `ring` is one flat ring over the C x D ranks
(NCCL's), three of whose four hops cross CP rails. Eq. 11 charges all DP bytes to n_d.

Per length and split, with and without overlap: the iteration time, the exposed CP and DP time
per chip (hxsim's /summary exposed_*_ps) and Eq. 11's terms; the best split by iteration time.
Written: DIR/split_iterations.{csv,h5}, DIR/optimum.csv and DIR/fig16_iterations.png; runs in
DIR/runs/ (kept: delete to redo). Default: splits 1..9, lengths 8K-128K (90 runs of about 17 s
on this machine, two at a time); --quick: lengths 8K and 128K, splits 1, 3, 5, 7, 9.
"""
import argparse
import concurrent.futures
import os
import sys

import h5py
import hxrun
import matplotlib
import numpy as np
from railx_bandwidth_split import (PORTS, SEQS, Job, exposed, parse_seq, seq_name, split_axis,
                                   write_csv)

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFIG = os.path.join(ROOT, "configs", "railx", "fig16_cp.toml")


def overrides(args, job, seq, nc, overlap):
    nd = PORTS - nc
    sets = {"sim.fidelity": "flow",
            "railx.m": str(job.m),
            "railx.x": f"torus:{job.c}:{job.m * nc},torus:{job.d}:{job.m * nd}",
            "workload.kind": "llm", "workload.groups": "all",
            "llm.preset": "llama3.1-405b", "llm.layers": str(args.layers), "llm.seq": str(seq),
            "llm.tp": str(job.t), "llm.cp": str(job.c), "llm.dp": str(job.d), "llm.pp": "1",
            "llm.micro_batches": str(args.micro_batches), "llm.efficiency": "0.4",
            "llm.cp_algorithm": args.cp_algorithm, "llm.dp_algorithm": args.dp_algorithm,
            "llm.dp_overlap": "true" if overlap else "false"}
    if args.dp_algorithm == "hierarchical":
        sets["llm.dp_local"] = str(job.c)
    return sets


def run(args, job, seq, nc, overlap):
    name = (f"s{seq_name(seq)}_n{nc}_of{PORTS}_{'overlap' if overlap else 'apart'}"
            f"_l{args.layers}_nb{args.micro_batches}_{args.dp_algorithm}_{args.cp_algorithm}")
    path = os.path.join(args.out, "runs", name + ".h5")
    if not os.path.exists(path):
        hxrun.run_to_file(args.hxsim, ["run", CONFIG, "--progress", "off"], path,
                          overrides(args, job, seq, nc, overlap), 1, name,
                          "railx_split_iterations_wall_s", args.set)
    with h5py.File(path, "r") as f:
        s = f["summary"].attrs
        if int(s["workload_complete"]) != 1:
            sys.exit(f"railx_split_iterations.py: {path}: the iteration did not complete")
        return {"iteration_s": int(s["workload_end_ps"]) * 1e-12,
                "tp_s": float(s["exposed_TP_ps"]) * 1e-12,
                "cp_s": float(s["exposed_CP_ps"]) * 1e-12,
                "dp_s": float(s["exposed_DP_ps"]) * 1e-12,
                "mfu": float(s["mfu"]),
                "wall_s": float(s["railx_split_iterations_wall_s"])}


def measure(args, job, seqs, splits):
    """A row per (length, split, overlap): the simulated iteration beside Eq. 11."""
    points = [(seq, nc, overlap) for seq in seqs for overlap in (False, True) for nc in splits]
    os.makedirs(os.path.join(args.out, "runs"), exist_ok=True)
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(lambda p: run(args, job, *p), points))
    rows = []
    # Eq. 11 for this many layers and micro-batches: its counts scale with both.
    scale_cp = args.layers * args.micro_batches / (job.stage_layers * 16)
    scale_dp = (args.layers * job.dp_layer_bytes() + job.dp_voc_bytes()) / job.dp_bytes()
    for (seq, nc, overlap), r in zip(points, results):
        forward = job.forward_s(seq) * args.layers / job.stage_layers
        cp_eq, dp_eq = job.cp_eq11(seq, nc) * scale_cp, job.dp_eq11(PORTS - nc) * scale_dp
        rows.append({"seq": seq, "n_c": nc, "n_d": PORTS - nc, "overlap": int(overlap), **r,
                     "comm_s": r["cp_s"] + r["dp_s"], "cp_eq11_s": cp_eq, "dp_eq11_s": dp_eq,
                     "comm_eq11_s": exposed(cp_eq, dp_eq, 2 * forward if overlap else 0.0)})
    return rows


def optima(rows, seqs):
    out = []
    for seq in seqs:
        for overlap in (0, 1):
            pts = [r for r in rows if r["seq"] == seq and r["overlap"] == overlap]
            best = min(pts, key=lambda p: p["iteration_s"])
            best_comm = min(pts, key=lambda p: p["comm_s"])
            best_eq = min(pts, key=lambda p: p["comm_eq11_s"])
            out.append({"seq": seq, "overlap": overlap, "n_c": best["n_c"],
                        "iteration_s": best["iteration_s"], "n_c_by_comm": best_comm["n_c"],
                        "comm_s": best_comm["comm_s"], "n_c_eq11": best_eq["n_c"],
                        "comm_eq11_s": best_eq["comm_eq11_s"]})
    return out


def write_tables(args, rows, best, job):
    write_csv(os.path.join(args.out, "split_iterations.csv"), rows)
    write_csv(os.path.join(args.out, "optimum.csv"), best)
    tmp = os.path.join(args.out, "split_iterations.h5.tmp")
    with h5py.File(tmp, "w") as f:
        for name, table in (("split", rows), ("optimum", best)):
            g = f.create_group(name)
            for key in table[0]:
                g[key] = np.array([r[key] for r in table])
        f["split"].attrs["units"] = ("*_s: seconds per iteration; tp_s, cp_s, dp_s: exposed "
                                     "per chip (hxsim); *_eq11_s: Eq. 11's bandwidth terms")
        f.attrs["model"] = "llama3.1-405b"
        f.attrs["parallelism"] = (f"T={job.t} C={job.c} D={job.d} P=1 of {args.layers} layers "
                                  f"N_B={args.micro_batches} B=1")
        f.attrs["dp_algorithm"] = args.dp_algorithm
        f.attrs["cp_algorithm"] = args.cp_algorithm
    os.replace(tmp, os.path.join(args.out, "split_iterations.h5"))


def draw(out, rows, seqs, splits):
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), sharey=True)
    for ax, overlap in zip(axes, (0, 1)):
        for i, seq in enumerate(seqs):
            pts = [r for r in rows if r["seq"] == seq and r["overlap"] == overlap]
            color = f"C{i}"
            x = [r["n_c"] for r in pts]
            ax.plot(x, [r["comm_s"] * 1e3 for r in pts], marker="o", color=color,
                    label=f"S={seq_name(seq)} hxsim")
            ax.plot(x, [r["comm_eq11_s"] * 1e3 for r in pts], linestyle="--", color=color,
                    label=f"S={seq_name(seq)} Eq. 11")
            best = min(pts, key=lambda r: r["iteration_s"])
            ax.plot([best["n_c"]], [best["comm_s"] * 1e3], marker="*", markersize=13,
                    color=color, markeredgecolor="black", linestyle="none")
        split_axis(ax, splits, "with DP overlap" if overlap else "without DP overlap")
    axes[0].set_ylabel("exposed CP + DP per iteration (ms)")
    axes[0].legend(fontsize=6, ncol=2)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "fig16_iterations.png"), dpi=120)
    plt.close(fig)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="railx_split_iterations")
    parser.add_argument("--quick", action="store_true",
                        help="lengths 8K and 128K, splits 1, 3, 5, 7, 9")
    parser.add_argument("--splits", help="CP ports n_c to run, e.g. 1,3,5 (default 1..9)")
    parser.add_argument("--seqs", help="sequence lengths, e.g. 8K,128K")
    parser.add_argument("--layers", type=int, default=7, help="layers of the stage (L/P = 7)")
    parser.add_argument("--micro-batches", type=int, default=16, help="N_B")
    parser.add_argument("--dp-algorithm", choices=("hierarchical", "ring"),
                        default="hierarchical")
    parser.add_argument("--cp-algorithm", choices=("exchange", "ring"), default="exchange")
    parser.add_argument("--jobs", type=int, default=2, help="hxsim runs at once (1 rank each)")
    parser.add_argument("--hxsim", default=os.path.join(ROOT, "build", "src", "app", "hxsim"))
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="passed to every run (and part of no file name: use a fresh --out)")
    args = parser.parse_args()
    splits = [int(s) for s in (args.splits or ("1,3,5,7,9" if args.quick else
                                               "1,2,3,4,5,6,7,8,9")).split(",") if s]
    for n in splits:
        if not 0 < n < PORTS:
            sys.exit(f"railx_split_iterations.py: split {n}: n_c must be in 1..{PORTS - 1}")
    default_seqs = "8K,128K" if args.quick else ",".join(seq_name(s) for s in SEQS)
    seqs = [parse_seq(s) for s in (args.seqs or default_seqs).split(",") if s]
    if args.layers < 1 or args.micro_batches < 1 or args.jobs < 1:
        sys.exit("railx_split_iterations.py: --layers, --micro-batches and --jobs must be >= 1")
    job = Job(4, 4, 4)
    rows = measure(args, job, seqs, splits)
    best = optima(rows, seqs)
    write_tables(args, rows, best, job)
    draw(args.out, rows, seqs, splits)
    for b in best:
        print(f"S={seq_name(b['seq'])} {'with' if b['overlap'] else 'without'} overlap: best CP "
              f"ports {b['n_c']} by iteration time, {b['n_c_by_comm']} by exposed CP + DP "
              f"(Eq. 11: {b['n_c_eq11']})")
    print(f"wrote {args.out}/split_iterations.h5, split_iterations.csv, optimum.csv and "
          "fig16_iterations.png")


if __name__ == "__main__":
    main()
