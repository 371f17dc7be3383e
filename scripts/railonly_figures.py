#!/usr/bin/python3
"""Regenerates the rail-only paper's evaluation (Wang et al.: Table 2, Fig. 3, 4, 5, 7, 8) with hxsim.

    scripts/railonly_figures.py [--out DIR] [--quick] [--hxsim PATH]

The analytical model comes from `hxsim topo` on configs/rail_only/table2_32k.toml (Table 2, Eq.
1-3; models/topologies/rail_only/analytic.h). The simulations run the LLM iteration of
configs/rail_only/gpt3_16k.toml at flow level, each into DIR/<run>.h5 unless that file exists
(delete it to redo):

    DIR/fig5.png     iteration time of the rail-optimized, trimmed (the rail-optimized run: the
                     links it leaves idle carry nothing), rail-only and ideal networks
    DIR/fig7.png     iteration time against the HB domain size K: Eq. 1 for GPT-3 and OPT-175B at
                     N = 16,384, 32,768, 65,536 and Eq. 3; simulated points for GPT-3
    DIR/fig8.png     PaLM-540B on 32,768 GPUs: iteration time and relative performance against
                     the batch (Eq. 1 and 3)
    DIR/fig3.png, DIR/fig4.png, DIR/traffic_types.csv
                     the traffic matrix of the simulated rail-only iteration (scripts/
                     hxanalysis.py traffic): pair types and bytes, heatmaps

and DIR/summary.csv: one row per (figure, model, N, K, x) with hxsim's analytic value, its
simulated value where there is one, and the paper's where it states one. docs/validation/
rail_only.md compares them. --quick simulates 1,024 GPUs in HB domains of 64 instead of
16,384 in domains of 256, in a few seconds.
"""
import argparse
import csv
import json
import os
import subprocess
import sys

import h5py
import hxrun
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TABLE2 = os.path.join(ROOT, "configs", "rail_only", "table2_32k.toml")
ITERATION = os.path.join(ROOT, "configs", "rail_only", "gpt3_16k.toml")
# Table 2 (K = 256): (N, radix) -> SOTA #SW, rail-only #SW, SOTA #TR, rail-only #TR, reduction %.
PAPER_TABLE2 = {
    (32768, 32): (7168, 3072, 262144, 131072, 54), (32768, 64): (2560, 1536, 196608, 131072, 37),
    (32768, 128): (1280, 256, 196608, 65536, 75), (32768, 256): (384, 128, 131072, 65536, 60),
    (65536, 64): (5120, 3072, 393216, 262144, 37), (65536, 128): (2560, 1536, 393216, 262144, 37),
    (65536, 256): (1280, 256, 393216, 131072, 75)}
# §3.3: Fig. 7's quoted cuts of the iteration time; §3.4: Fig. 8b at K = 256; §2.2: Fig. 5.
PAPER_FIG7 = {("gpt3-175b", 32, 64): 0.28, ("opt-175b", 32, 64): 0.33,
              ("gpt3-175b", 512, 1024): 0.038, ("opt-175b", 512, 1024): 0.053}
PAPER_FIG8 = {512: 0.60, 2048: 0.81}
MODELS = ("gpt3-175b", "opt-175b", "palm-540b")


def topo(hxsim, sets):
    command = [hxsim, "topo", TABLE2, "--json"]
    for key, value in sets.items():
        command += ["--set", f"rail_only.{key}={value}"]
    return json.loads(subprocess.run(command, check=True, capture_output=True, text=True)
                      .stdout)["value"]


def analytic(hxsim, rows):
    """Table 2, Fig. 7 (Eq. 1 and 3 per model and N), Fig. 8 (PaLM, K = 256-1,024)."""
    base = topo(hxsim, {})
    for (n, radix), paper in PAPER_TABLE2.items():
        key = f"table2_n{n}_r{radix}_"
        ours = [base[key + s] for s in ("sota_switches", "rail_switches", "sota_transceivers",
                                        "rail_transceivers", "reduction_pct")]
        for name, value, want in zip(("sota_sw", "rail_sw", "sota_tr", "rail_tr", "reduction_pct"),
                                     ours, paper):
            rows.append(["table2", "", n, 256, f"radix{radix}_{name}", value, "", want])
    rows.append(["fig5_trimmed", "", 32768, 256, "removable_links_pct",
                 base["removable_links_pct"], "", 33])
    fig7 = {}
    for model in ("gpt3-175b", "opt-175b"):
        for n in (16384, 32768, 65536):
            v = topo(hxsim, {"gpus": n, "llm": model})
            curve = {int(k[6:-7]): v[k] for k in v if k.startswith("fig7_k")}
            fig7[(model, n)] = (curve, v["eq3_ideal_s"])
            for k, t in sorted(curve.items()):
                rows.append(["fig7", model, n, k, "iter_s", t, "", ""])
            for (m, a, b), want in PAPER_FIG7.items():
                if m == model and n == 16384:
                    rows.append(["fig7", model, n, f"{a}->{b}", "cut", 1 - curve[b] / curve[a],
                                 "", want])
    fig8 = {}
    for k in (256, 512, 1024):
        v = topo(hxsim, {"gpus": 32768, "hb_size": k, "llm": "palm-540b"})
        seqs = sorted(int(key[6:-9]) for key in v if key.startswith("fig8_b") and
                      key.endswith("_relative"))
        fig8[k] = [(s, v[f"fig8_b{s}_iter_s"], v[f"fig8_b{s}_ideal_s"],
                    v[f"fig8_b{s}_relative"]) for s in seqs]
        for s, t, ideal, rel in fig8[k]:
            rows.append(["fig8", "palm-540b", 32768, k, f"{s}seq_relative", rel, "",
                         PAPER_FIG8.get(s, "") if k == 256 else ""])
    for model in MODELS:
        rows.append(["fig5", model, 32768, 256, "ideal_speedup",
                     base[f"fig5_{model.replace('-', '_')}_speedup"], "", "1.28-1.65"])
    return fig7, fig8


# The simulated iteration: GPT-3 at the parallelism Eq. 2 picks (N_M = 16 for 16,384 GPUs, 4
# for the quick 1,024), the DP all-reduce in two stages (in the HB domain, then along the rails),
# 2 (quick: 1) micro-batches of one 2,048-token sequence per replica. The ideal network runs the
# same two-stage all-reduce, both stages on its one fabric: a flat ring of all N / N_M DP members
# is latency-bound (2,046 steps for 1,024), and the all-to-all based all-reduce Eq. 3 assumes is
# 10^6 flows per DP group and layer.
FULL = {"gpus": 16384, "hb_size": 256, "tp": 16, "micro_batches": 2, "fig7_k": (64, 256, 1024)}
QUICK = {"gpus": 1024, "hb_size": 64, "tp": 4, "micro_batches": 1, "fig7_k": (16, 64)}
NETWORKS = {"rail_optimized": {"rail_only.network": "rail_optimized"},
            "rail_only": {"rail_only.network": "rail_only"},
            "ideal": {"rail_only.network": "none"}}


def simulate(hxsim, out, scale, name, sets):
    """One iteration at flow level into OUT/NAME.h5 (kept if it exists); its end time [s]."""
    path = os.path.join(out, name + ".h5")
    base = {"rail_only.gpus": scale["gpus"], "rail_only.hb_size": scale["hb_size"],
            "llm.tp": scale["tp"], "llm.dp": scale["gpus"] // scale["tp"],
            "llm.micro_batches": scale["micro_batches"], "llm.dp_algorithm": "hierarchical"}
    base.update(sets)
    if not os.path.exists(path):
        hxrun.run_to_file(hxsim, ["run", ITERATION], path, base, label=name)
    with h5py.File(path, "r") as f:
        end = f["workload_totals"]["end_ps"][0] * 1e-12
        links = f["links"]
        classes = links["link_class"][()]
        idle = (links["bytes"][()] == 0) & (classes >= 2)  # NIC and network links
        network = int((classes >= 2).sum())
    return end, (idle.sum() / network if network else 0.0)


def simulated(hxsim, out, scale, rows):
    """Fig. 5: the four networks on one iteration; Fig. 7: rail-only against K."""
    n, k = scale["gpus"], scale["hb_size"]
    batch = (n // scale["tp"]) * scale["micro_batches"] * 2048
    eq = topo(hxsim, {"gpus": n, "hb_size": k, "batch_tokens": batch})
    times = {}
    for name, sets in NETWORKS.items():
        if name == "ideal":  # one fabric for all, the two stages' split kept
            sets = dict(sets, **{"rail_only.hb_size": n, "llm.dp_local": k // scale["tp"]})
        times[name], idle = simulate(hxsim, out, scale, name, sets)
        rows.append(["fig5_sim", "gpt3-175b", n, k, name + "_iter_s",
                     eq["eq3_ideal_s"] if name == "ideal" else eq["eq1_iter_s"], times[name], ""])
        if name == "rail_optimized":
            times["trimmed"] = times[name]
            rows.append(["fig5_sim", "gpt3-175b", n, k, "rail_optimized_idle_network_links",
                         "", idle, ""])
    rows.append(["fig5_sim", "gpt3-175b", n, k, "ideal_speedup", eq["ideal_speedup"],
                 times["rail_only"] / times["ideal"], "1.28-1.65"])
    rows.append(["fig5_sim", "gpt3-175b", n, k, "rail_only_over_rail_optimized", 1.0,
                 times["rail_only"] / times["rail_optimized"], 1.0])
    fig7 = {}
    for kk in scale["fig7_k"]:
        name = f"rail_only_k{kk}"
        fig7[kk] = times["rail_only"] if kk == k else simulate(
            hxsim, out, scale, name, {"rail_only.hb_size": kk})[0]
        v = topo(hxsim, {"gpus": n, "hb_size": kk, "batch_tokens": batch})
        rows.append(["fig7_sim", "gpt3-175b", n, kk, "iter_s", v["eq1_iter_s"], fig7[kk], ""])
    return times, fig7


def draw_fig5(times, path):
    fig, ax = plt.subplots(figsize=(6, 4))
    names = ["rail_optimized", "trimmed", "rail_only", "ideal"]
    bars = ax.bar(names, [times[n] for n in names], color=["C0", "C1", "C2", "C3"])
    ax.bar_label(bars, labels=["%.3f s" % times[n] for n in names], fontsize=8)
    ax.set_ylabel("iteration time [s]")
    ax.set_title("GPT-3 175B, one iteration, flow level")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def draw_fig7(fig7, simulated, path):
    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=False)
    for ax, model in zip(axes, ("gpt3-175b", "opt-175b")):
        for i, n in enumerate((16384, 32768, 65536)):
            curve, ideal = fig7[(model, n)]
            ks = sorted(curve)
            ax.plot(ks, [curve[k] for k in ks], "o-", color=f"C{i}", label=f"Eq. 1, N={n}")
            ax.axhline(ideal, color=f"C{i}", ls=":", lw=1)
        if model == "gpt3-175b" and simulated:
            ks = sorted(simulated)
            ax.plot(ks, [simulated[k] for k in ks], "s--", color="k", label="simulated (flow)")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("HB domain size K")
        ax.set_ylabel("iteration time [s]")
        ax.set_title(f"{model} (dotted: Eq. 3, ideal)")
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def draw_fig8(fig8, path):
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4))
    for i, (k, points) in enumerate(sorted(fig8.items())):
        seqs = [p[0] for p in points]
        a.plot(seqs, [p[1] for p in points], "o-", color=f"C{i}", label=f"K={k}")
        b.plot(seqs, [100 * p[3] for p in points], "o-", color=f"C{i}", label=f"K={k}")
    a.plot(seqs, [p[2] for p in fig8[256]], "k:", label="ideal (Eq. 3)")
    a.set_ylabel("iteration time [s]")
    b.set_ylabel("relative performance [%]")
    for ax in (a, b):
        ax.set_xlabel("batch [sequences of 2,048 tokens]")
        ax.legend(fontsize=8)
    fig.suptitle("PaLM-540B on 32,768 GPUs (Eq. 1 and 3)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default="railonly_figures")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--hxsim", default=os.path.join(ROOT, "build", "src", "app", "hxsim"))
    args = p.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    rows = []
    fig7, fig8 = analytic(args.hxsim, rows)
    times, fig7_sim = simulated(args.hxsim, args.out, QUICK if args.quick else FULL, rows)
    draw_fig5(times, os.path.join(args.out, "fig5.png"))
    draw_fig7(fig7, fig7_sim, os.path.join(args.out, "fig7.png"))
    draw_fig8(fig8, os.path.join(args.out, "fig8.png"))
    tm = os.path.join(args.out, "rail_only.h5")
    analysis = [sys.executable, os.path.join(ROOT, "scripts", "hxanalysis.py")]
    k = (QUICK if args.quick else FULL)["hb_size"]
    for command in (["traffic-types", tm, "-o", os.path.join(args.out, "fig3.png")],
                    ["traffic-types", tm, "-o", os.path.join(args.out, "traffic_types.csv")],
                    ["traffic", tm, "-o", os.path.join(args.out, "fig4.png"), "--grid", str(k)],
                    ["traffic", tm, "-o", os.path.join(args.out, "fig4_zoom.png"), "--first",
                     str(4 * k), "--grid", str(k)]):
        subprocess.run(analysis + command, check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(args.out, "traffic_types.csv")) as f:
        for r in csv.DictReader(f):
            rows.append(["fig3", "gpt3-175b", "", k, r["type"] + "_pair_share", "",
                         r["pair_share"], "none > 0.99" if r["type"] == "none" else ""])
            rows.append(["fig3", "gpt3-175b", "", k, r["type"] + "_byte_share", "",
                         r["byte_share"], ""])
    with open(os.path.join(args.out, "summary.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["figure", "model", "gpus", "hb_size", "x", "hxsim", "simulated", "paper"])
        w.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
