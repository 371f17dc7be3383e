#!/usr/bin/python3
"""Regenerates the bandwidth-allocation exploration of the RailX paper (Fig. 16, §6.5) with hxsim.

    scripts/railx_bandwidth_split.py [--out DIR] [--quick] [--splits 1,...,9]
                                     [--seqs 8K,16K,32K,64K,128K] [--scale F] [--mesh M]
                                     [--cp C] [--dp D] [--ranks N] [--hxsim PATH]
                                     [--set KEY=VALUE ...]

One physical dimension's n = 10 ports per chip edge are split between a context-parallel (CP)
and a data-parallel (DP) dimension, n_c + n_d = 10 (dimension splitting, §3.3.4:
railx.x = "torus:C:<m n_c>,torus:D:<m n_d>"), and every split is measured for several sequence
lengths, with and without DP's compute/communication overlap (§5.1, Eq. 10-11).

Workload: Llama 3.1 405B (§5.1; L = 126, H = 16384, I = 53248, h_A = 128, h_KV = 8, vocabulary
128256, bf16), T = m^2 = 16 on each 4 x 4 mesh, C = 4, D = 4, P = 18 (7 layers per stage), N_B =
16 micro-batches of B = 1 sequence per iteration (Llama 3's "batch size per DP" at 8K and 128K;
RailX §5.1: S grows from 8K to 128K). The simulated network is one row of C x D nodes of m x m
chips (configs/railx/fig16_{cp,dp}.toml): every chip is one rank of [T, C, D].

Per split and sequence length S, two kinds of hxsim run (DIR/runs/<name>.h5, kept: delete to
redo), each through the real routers and links, on that split's rails only:
- CP: every CP group all-gathers its keys and values, V_c = B S H (2 h_KV / h_A) / T x 2 bytes
  per chip (Table 4's CP row; one occurrence), bidirectional ring on the n_c CP rails. An
  iteration has F_c = 2 N_B L/P of them (forward all-gather, backward reduce-scatter of the same
  bytes): T_CP = F_c x simulated time.
- DP: every DP group all-reduces an 8 MiB bucket, bidirectional ring on the n_d DP rails. The
  stage's gradient is V_d = L/P [(2 + 2 h_KV/h_A) H^2 + 3 H I] / T + 2 H V / (T C) elements x 2
  bytes per chip (Table 4's QKV, FFN and VOC rows): T_DP = (V_d / bucket) x simulated time.
--scale F simulates F x those bytes (and divides the times by F): the times are linear in the
bytes once they dwarf the latency (a few hops of ~15 ns against microseconds), so a small F
only inflates the latency part of each occurrence by 1/F.

Eq. 11 (bandwidth terms, B = 100 GB/s per port, the m chips of a row sharing its ports):
  CP: F_c (C-1)/C V_c / (2 n_c B/m)      DP: 2 (D-1)/D V_d / (2 n_d B/m)
Compute (hxsim's FLOP model, docs/WORKLOADS.md): per chip and micro-batch the forward pass is
f (B S / C) (L/P) / T FLOPs with f = 2 [H (H + 2 H h_KV/h_A) + H^2 + 3 H I] + 4 S H per token,
the backward twice that; 989 TFLOP/s at 40% efficiency (Llama 3: 38-43% MFU). T_comp =
3 N_B x forward. With overlap, DP's all-reduce runs under the last micro-batch's backward pass
(T* = 2 x forward; gradients are final only after every micro-batch), CP never overlaps:
  without: comm = T_CP + T_DP                       total = T_comp + comm
  with:    comm = T_CP + max(0, T_DP - T*)          total = T_comp - T* + max(T*, T_DP) + T_CP
(Eq. 10; Eq. 11's argmin over n_c). Written: DIR/bandwidth_split.{csv,h5} (a row per split and
length), DIR/optimum.csv (argmins per length) and DIR/fig16.png.

Default: splits 1..9, lengths 8K-128K, scale 1 (867 M events: about 6 min at 2.3 M events/s,
32 min on this shared machine under load, docs/performance/models.md); --quick: lengths 8K, 32K
and 128K at scale 1/8 (about 2 min).
"""
import argparse
import csv
import os
import sys

import h5py
import hxrun
import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFIGS = os.path.join(ROOT, "configs", "railx")

# Llama 3.1 405B (hxsim's preset llama3.1-405b: Llama 3 paper Tab. 3).
LAYERS, HIDDEN, FFN, HEADS, KV_HEADS, VOCAB = 126, 16384, 53248, 128, 8, 128256
BYTES_PER_ELEMENT = 2
PP, MICRO_BATCHES, MICRO_BATCH = 18, 16, 1
CHIP_FLOPS, EFFICIENCY = 989e12, 0.4
PORTS = 10  # per chip edge in the split dimension (§6.5: "10 ports in total")
PORT_BANDWIDTH = 100e9  # bytes/s per port (§6.4; 1 flit/cycle in the configs)
DP_BUCKET = 8 << 20  # bytes per chip of one simulated DP all-reduce
SEQS = (8192, 16384, 32768, 65536, 131072)


def parse_seq(text):
    t = text.strip().upper()
    value = int(t[:-1]) * 1024 if t.endswith("K") else int(t) if t.isdigit() else 0
    if value <= 0:
        sys.exit(f"railx_bandwidth_split.py: sequence length '{text}' is not e.g. 8K or 8192")
    return value


def parse_scale(text):
    try:
        num, _, den = text.partition("/")
        value = float(num) / float(den or 1)
    except ValueError:
        value = 0
    if not 0 < value <= 1:
        sys.exit(f"railx_bandwidth_split.py: scale '{text}' is not a fraction in (0, 1]")
    return value


def seq_name(s):
    return f"{s // 1024}K" if s % 1024 == 0 else str(s)


def size_name(v):
    for unit, f in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if v % f == 0:
            return f"{v // f}{unit}"
    return f"{v}B"


class Job:
    """The parallel degrees and Table 4's volumes, FLOPs and times of one configuration."""

    def __init__(self, m, cp, dp):
        self.m, self.t, self.c, self.d = m, m * m, cp, dp
        self.stage_layers = LAYERS // PP
        self.cp_count = 2 * MICRO_BATCHES * self.stage_layers  # F_c

    def cp_bytes(self, seq):  # V_c: one CP all-gather per chip
        return MICRO_BATCH * seq * HIDDEN * (2 * KV_HEADS / HEADS) / self.t * BYTES_PER_ELEMENT

    def dp_layer_bytes(self):  # one layer's QKV and FFN gradients per chip
        qkv_ffn = (2 + 2 * KV_HEADS / HEADS) * HIDDEN**2 + 3 * HIDDEN * FFN
        return qkv_ffn / self.t * BYTES_PER_ELEMENT

    def dp_voc_bytes(self):  # the embedding and output layer's gradients per chip
        return 2 * HIDDEN * VOCAB / (self.t * self.c) * BYTES_PER_ELEMENT

    def dp_bytes(self):  # V_d: the stage's gradient per chip
        return self.stage_layers * self.dp_layer_bytes() + self.dp_voc_bytes()

    def share(self, ports):  # B per chip and direction: the row's ports shared by m chips
        return ports * PORT_BANDWIDTH / self.m

    def cp_eq11(self, seq, nc):
        c = self.c
        return self.cp_count * (c - 1) / c * self.cp_bytes(seq) / (2 * self.share(nc))

    def dp_eq11(self, nd):
        d = self.d
        return 2 * (d - 1) / d * self.dp_bytes() / (2 * self.share(nd))

    def forward_s(self, seq):  # one micro-batch's forward pass on one chip
        f = 2 * (HIDDEN * (HIDDEN + 2 * HIDDEN * KV_HEADS / HEADS) + HIDDEN**2
                 + 3 * HIDDEN * FFN) + 4 * seq * HIDDEN
        flops = f * MICRO_BATCH * seq / self.c * self.stage_layers / self.t
        return flops / (CHIP_FLOPS * EFFICIENCY)


def exposed(cp, dp, overlap):
    """Communication not hidden by compute (Eq. 10), given T* = overlap."""
    return cp + max(0.0, dp - overlap)


def overrides(job, nc, collective_bytes, kind):
    nd = PORTS - nc
    m = job.m
    sets = {"railx.m": str(m),
            "railx.x": f"torus:{job.c}:{m * nc},torus:{job.d}:{m * nd}",
            "workload.bytes": f"{collective_bytes}B",
            "workload.bandwidth": f"{job.share(nc if kind == 'cp' else nd) / 1e9:g}GB/s"}
    if kind == "cp":
        sets["workload.groups"] = f"{job.c}:{job.t}"
    else:
        sets["workload.groups"] = f"{job.d}:{job.t * job.c}"
    return sets


def run(args, job, kind, nc, collective_bytes):
    ports = nc if kind == "cp" else PORTS - nc
    name = (f"m{job.m}c{job.c}d{job.d}_{kind}_n{ports}_of{PORTS}_{size_name(collective_bytes)}")
    path = os.path.join(args.out, "runs", name + ".h5")
    if not os.path.exists(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        arguments = ["run", os.path.join(CONFIGS, f"fig16_{kind}.toml"), "--progress", "off"]
        hxrun.run_to_file(args.hxsim, arguments, path, overrides(job, nc, collective_bytes, kind),
                          args.ranks, name, "railx_bandwidth_split_wall_s", args.set)
    with h5py.File(path, "r") as f:
        s = f["summary"].attrs
        if int(s["workload_complete"]) != 1:
            sys.exit(f"railx_bandwidth_split.py: {path}: the collective did not complete")
        return {"simulated_s": int(s["workload_end_ps"]) * 1e-12,
                "hxsim_ab_s": int(s["workload_analytic_ps"]) * 1e-12,
                "wall_s": float(s["railx_bandwidth_split_wall_s"])}


def measure(args, job, seqs, splits):
    """A row per (length, split): simulated and Eq. 11 times per iteration."""
    rows = []
    dp_bucket = max(1, round(DP_BUCKET * args.scale))
    dp = {nc: run(args, job, "dp", nc, dp_bucket) for nc in splits}
    for seq in seqs:
        cp_bytes = max(1, round(job.cp_bytes(seq) * args.scale))
        forward = job.forward_s(seq)
        compute, overlap = 3 * MICRO_BATCHES * forward, 2 * forward
        for nc in splits:
            cp = run(args, job, "cp", nc, cp_bytes)
            # Scaled to an iteration: F_c occurrences of V_c; V_d / bucket buckets.
            cp_s = job.cp_count * cp["simulated_s"] * job.cp_bytes(seq) / cp_bytes
            dp_s = dp[nc]["simulated_s"] * job.dp_bytes() / dp_bucket
            cp_eq, dp_eq = job.cp_eq11(seq, nc), job.dp_eq11(PORTS - nc)
            rows.append({
                "seq": seq, "n_c": nc, "n_d": PORTS - nc,
                "cp_bytes": job.cp_bytes(seq), "dp_bytes": job.dp_bytes(),
                "cp_simulated_bytes": cp_bytes, "dp_simulated_bytes": dp_bucket,
                "cp_s": cp_s, "dp_s": dp_s, "cp_eq11_s": cp_eq, "dp_eq11_s": dp_eq,
                "cp_vs_eq11": cp_s / cp_eq, "dp_vs_eq11": dp_s / dp_eq,
                "cp_hxsim_ab_s": job.cp_count * cp["hxsim_ab_s"] * job.cp_bytes(seq) / cp_bytes,
                "dp_hxsim_ab_s": dp[nc]["hxsim_ab_s"] * job.dp_bytes() / dp_bucket,
                "compute_s": compute, "overlap_compute_s": overlap,
                "comm_s": cp_s + dp_s, "comm_eq11_s": cp_eq + dp_eq,
                "comm_overlap_s": exposed(cp_s, dp_s, overlap),
                "comm_overlap_eq11_s": exposed(cp_eq, dp_eq, overlap),
                "total_s": compute + cp_s + dp_s,
                "total_overlap_s": compute + exposed(cp_s, dp_s, overlap),
                "wall_s": cp["wall_s"] + (dp[nc]["wall_s"] if seq == seqs[0] else 0.0)})
    return rows


def optima(rows, seqs):
    out = []
    for seq in seqs:
        pts = [r for r in rows if r["seq"] == seq]
        best = {}
        for key in ("comm_s", "comm_eq11_s", "comm_overlap_s", "comm_overlap_eq11_s"):
            r = min(pts, key=lambda p: p[key])
            best[key] = (r["n_c"], r[key])
        out.append({"seq": seq,
                    "n_c_simulated": best["comm_s"][0], "n_c_eq11": best["comm_eq11_s"][0],
                    "n_c_overlap_simulated": best["comm_overlap_s"][0],
                    "n_c_overlap_eq11": best["comm_overlap_eq11_s"][0],
                    "comm_s": best["comm_s"][1], "comm_eq11_s": best["comm_eq11_s"][1],
                    "comm_overlap_s": best["comm_overlap_s"][1],
                    "comm_overlap_eq11_s": best["comm_overlap_eq11_s"][1]})
    return out


def write_csv(path, rows):
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def write_tables(out, rows, best, job, scale):
    write_csv(os.path.join(out, "bandwidth_split.csv"), rows)
    write_csv(os.path.join(out, "optimum.csv"), best)
    tmp = os.path.join(out, "bandwidth_split.h5.tmp")
    with h5py.File(tmp, "w") as f:
        for name, table in (("split", rows), ("optimum", best)):
            g = f.create_group(name)
            for key in table[0]:
                g[key] = np.array([r[key] for r in table])
        f["split"].attrs["units"] = ("*_s: seconds per iteration; *_bytes: per chip; cp_bytes: "
                                     "one CP all-gather, dp_bytes: the stage's gradient")
        f.attrs["model"] = "llama3.1-405b"
        f.attrs["parallelism"] = (f"T={job.t} C={job.c} D={job.d} P={PP} N_B={MICRO_BATCHES} "
                                  f"B={MICRO_BATCH}")
        f.attrs["scale"] = scale
    os.replace(tmp, os.path.join(out, "bandwidth_split.h5"))


def split_axis(ax, splits, title):
    """The x axis of the splits, a log y axis and the panel's title."""
    ax.set_xticks(splits, [f"{n}:{PORTS - n}" for n in splits], fontsize=7)
    ax.set_xlabel("ports CP : DP (of 10 per chip edge)")
    ax.set_yscale("log")
    ax.set_title(title, fontsize=9)
    ax.grid(True, which="major", linewidth=0.3)


def draw(out, rows, seqs, splits):
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), sharey=True)
    panels = (("comm_s", "comm_eq11_s", "without DP overlap"),
              ("comm_overlap_s", "comm_overlap_eq11_s", "with DP overlap (Eq. 10)"))
    for ax, (sim, eq, title) in zip(axes, panels):
        for i, seq in enumerate(seqs):
            pts = [r for r in rows if r["seq"] == seq]
            color = f"C{i}"
            x = [r["n_c"] for r in pts]
            ax.plot(x, [r[sim] * 1e3 for r in pts], marker="o", color=color,
                    label=f"S={seq_name(seq)} hxsim")
            ax.plot(x, [r[eq] * 1e3 for r in pts], linestyle="--", color=color,
                    label=f"S={seq_name(seq)} Eq. 11")
            best = min(pts, key=lambda r: r[sim])
            ax.plot([best["n_c"]], [best[sim] * 1e3], marker="*", markersize=13, color=color,
                    markeredgecolor="black", linestyle="none")
        split_axis(ax, splits, title)
    axes[0].set_ylabel("exposed communication per iteration (ms)")
    axes[0].legend(fontsize=6, ncol=2)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "fig16.png"), dpi=120)
    plt.close(fig)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="railx_bandwidth_split")
    parser.add_argument("--quick", action="store_true", help="lengths 8K, 32K, 128K at scale 1/8")
    parser.add_argument("--splits", help="CP ports n_c to run, e.g. 1,3,5 (default 1..9)")
    parser.add_argument("--seqs", help="sequence lengths, e.g. 8K,128K")
    parser.add_argument("--scale", help="fraction of the bytes to simulate, e.g. 1/8")
    parser.add_argument("--mesh", type=int, default=4, help="m: chips per node side (T = m^2)")
    parser.add_argument("--cp", type=int, default=4, help="C: nodes of the CP torus")
    parser.add_argument("--dp", type=int, default=4, help="D: nodes of the DP torus")
    parser.add_argument("--ranks", type=int, default=1,
                        help="MPI ranks per run (the 10-cycle optical links give a short "
                        "lookahead, so 2 ranks synchronise often and gain little)")
    parser.add_argument("--hxsim", default=os.path.join(ROOT, "build", "src", "app", "hxsim"))
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="passed to every run (and part of no file name: use a fresh --out)")
    args = parser.parse_args()
    splits = [int(s) for s in (args.splits or "1,2,3,4,5,6,7,8,9").split(",") if s]
    for n in splits:
        if not 0 < n < PORTS:
            sys.exit(f"railx_bandwidth_split.py: split {n}: n_c must be in 1..{PORTS - 1} "
                     f"(n_d = {PORTS} - n_c ports go to DP)")
    default_seqs = "8K,32K,128K" if args.quick else ",".join(seq_name(s) for s in SEQS)
    seqs = [parse_seq(s) for s in (args.seqs or default_seqs).split(",") if s]
    args.scale = parse_scale(args.scale or ("1/8" if args.quick else "1"))
    if args.mesh < 1 or args.cp < 3 or args.dp < 3:
        sys.exit("railx_bandwidth_split.py: --mesh >= 1, --cp and --dp >= 3 (a 2-node torus "
                 "routes both ring directions over one circuit)")
    job = Job(args.mesh, args.cp, args.dp)
    if HEADS % job.t or HIDDEN % job.t or FFN % job.t:
        sys.exit(f"railx_bandwidth_split.py: T = m^2 = {job.t} must divide the heads, hidden "
                 "and FFN sizes")
    rows = measure(args, job, seqs, splits)
    best = optima(rows, seqs)
    write_tables(args.out, rows, best, job, args.scale)
    draw(args.out, rows, seqs, splits)
    for b in best:
        print(f"S={seq_name(b['seq'])}: best CP ports without overlap {b['n_c_simulated']} "
              f"(Eq. 11: {b['n_c_eq11']}), with overlap {b['n_c_overlap_simulated']} "
              f"(Eq. 11: {b['n_c_overlap_eq11']})")
    print(f"wrote {args.out}/bandwidth_split.h5, bandwidth_split.csv, optimum.csv and fig16.png")


if __name__ == "__main__":
    main()
