#!/usr/bin/python3
"""Regenerates the rail-only paper's evaluation (Wang et al.: Table 2, Fig. 3, 4, 5, 7, 8) with hxsim.

    scripts/railonly_figures.py [--out DIR] [--quick] [--hxsim PATH]

The analytical model comes from `hxsim topo` on configs/rail_only/table2_32k.toml (Table 2, Eq.
1-3; models/topologies/rail_only/analytic.h). The simulations run the LLM iteration of
configs/rail_only/gpt3_16k.toml at flow level with other sizes, models and networks, each into
DIR/<run>.h5 unless that file exists (delete it to redo). Every run folds to a few simulated GPUs
(docs/MODELS.md "Folding"): the full set, about 60 runs, takes minutes.

    DIR/fig5.png     iteration time of the rail-optimized, trimmed (the rail-optimized run: the
                     links it leaves idle carry nothing), rail-only and ideal networks (GPT-3,
                     32,768 GPUs, K = 256)
    DIR/fig7.png     iteration time against the HB domain size K for GPT-3 and OPT-175B at N =
                     16,384, 32,768 and 65,536: Eq. 1, Eq. 3 and simulated (K = 32-1,024)
    DIR/fig8.png     PaLM-540B on 32,768 GPUs: iteration time and relative performance against
                     the batch (Eq. 1 and 3; simulated at 1,024 and 2,048 sequences, K = 256-1,024)
    DIR/fig3.png, DIR/fig4.png, DIR/fig4_zoom.png, DIR/fig4_opt_zoom.png, DIR/traffic_types.csv
                     the traffic matrix of the simulated rail-only iteration (scripts/
                     hxanalysis.py traffic): pair types and bytes, heatmaps (GPT-3; the
                     first four domains for GPT-3 and OPT-175B)

and DIR/summary.csv: one row per (figure, model, N, K, x) with hxsim's analytic value, its
simulated value where there is one, and the paper's where it states one. docs/validation/
rail_only.md compares them. --quick simulates 1,024 GPUs in HB domains of 64, in seconds.
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


# The simulated iteration: GPT-3 at the parallelism Eq. 2 picks (N_M = 16; 4 for the quick 1,024
# GPUs), the DP all-reduce in two stages (in the HB domain, then along the rails), one
# 2,048-token sequence per replica and micro-batch. The ideal network runs the same two-stage
# all-reduce, both stages on its one fabric: a flat ring of all N / N_M DP members is
# latency-bound (4,094 steps for 2,048), and the all-to-all based all-reduce Eq. 3 assumes is
# 10^6 flows per DP group and layer. Every run folds to a few simulated GPUs (docs/MODELS.md
# "Folding"), so the full figures take minutes.
FULL = {"gpus": 32768, "hb_size": 256, "tp": 16, "micro_batches": 1,
        "fig7_n": (16384, 32768, 65536), "fig7_k": (32, 64, 128, 256, 512, 1024),
        "fig8_k": (256, 512, 1024), "fig8_batches": (1024, 2048)}
QUICK = {"gpus": 1024, "hb_size": 64, "tp": 4, "micro_batches": 1,
         "fig7_n": (1024,), "fig7_k": (16, 64), "fig8_k": (64,), "fig8_batches": (32,)}
NETWORKS = {"rail_optimized": {"rail_only.network": "rail_optimized"},
            "rail_only": {"rail_only.network": "rail_only"},
            "ideal": {"rail_only.network": "none"}}
# Fig. 8 runs PaLM-540B at Eq. 2's N_M = 32 with 32 heads of 576 instead of 48 of 384, so that
# the TP group divides them (kv_heads stays 1; the weights grow by 0.15%).
PALM_TP, PALM_HEADS = 32, 32
SEQ = 2048


def simulate(hxsim, out, name, sets):
    """One iteration at flow level into OUT/NAME.h5 (kept if it exists): its end time [s] and
    the share of the network's links (NIC and leaf-spine) that carry nothing."""
    path = os.path.join(out, name + ".h5")
    if not os.path.exists(path):
        hxrun.run_to_file(hxsim, ["run", ITERATION], path, sets, label=name)
    with h5py.File(path, "r") as f:
        end = f["workload_totals"]["end_ps"][0] * 1e-12
        links = f["links"]
        classes = links["link_class"][()]
        idle = (links["bytes"][()] == 0) & (classes >= 2)  # NIC and network links
        network = int((classes >= 2).sum())
    return end, (idle.sum() / network if network else 0.0)


def iteration(n, k, tp, micro_batches, model="gpt3-175b", **more):
    """The --set keys of one iteration: N GPUs in HB domains of K, TP x DP, two-stage DP.
    GPT-3's vocabulary is padded as Megatron-LM pads it (50,257 to a multiple of 128), so that
    its gradients split into equal chunks over up to 8,192 replicas and the run folds."""
    sets = {"rail_only.gpus": n, "rail_only.hb_size": k, "llm.preset": model, "llm.tp": tp,
            "llm.dp": n // tp, "llm.micro_batches": micro_batches,
            "llm.dp_algorithm": "hierarchical"}
    if model == "gpt3-175b":
        sets["llm.vocab"] = 50304
    sets.update(more)
    return sets


def ideal(sets, k, tp):
    """The same iteration on one fabric of every GPU, its DP all-reduce split as K would."""
    return dict(sets, **{"rail_only.network": "none", "rail_only.hb_size": sets["rail_only.gpus"],
                         "llm.dp_local": k // tp})


def simulated(hxsim, out, scale, rows):
    """Fig. 5: the four networks on one iteration; Fig. 7: rail-only against K for GPT-3 and
    OPT-175B; Fig. 8: PaLM-540B against K and the batch, and its relative performance."""
    n, k, tp, nb = scale["gpus"], scale["hb_size"], scale["tp"], scale["micro_batches"]
    batch = (n // tp) * nb * SEQ
    eq = topo(hxsim, {"gpus": n, "hb_size": k, "batch_tokens": batch})
    base = iteration(n, k, tp, nb)
    times = {}
    for name, sets in NETWORKS.items():
        sets = ideal(base, k, tp) if name == "ideal" else dict(base, **sets)
        times[name], idle = simulate(hxsim, out, name, sets)
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

    # Fig. 7: each model at its paper batch, or one sequence per replica where N / N_M replicas
    # need more; Eq. 1 at the same batch beside it.
    fig7 = {}
    for model in ("gpt3-175b", "opt-175b"):
        for nn in scale["fig7_n"]:
            v = topo(hxsim, {"gpus": nn, "llm": model})
            mp = tp if nn == n and model == "gpt3-175b" else int(v["mp"])
            replicas = nn // mp
            micro = max(1, -(-int(v["batch_tokens"]) // (SEQ * replicas)))
            tokens = replicas * micro * SEQ
            for kk in scale["fig7_k"]:
                if kk < mp:
                    continue
                sets = iteration(nn, kk, mp, micro, model)
                name = f"fig7_{model}_n{nn}_k{kk}"
                t = simulate(hxsim, out, name, sets)[0]
                fig7[(model, nn, kk)] = t
                e = topo(hxsim, {"gpus": nn, "hb_size": kk, "llm": model, "batch_tokens": tokens})
                rows.append(["fig7_sim", model, nn, kk, f"iter_s_mp{mp}_b{tokens}",
                             e["eq1_iter_s"], t, ""])
            for (m, a, b), want in PAPER_FIG7.items():
                if m == model and (model, nn, a) in fig7 and (model, nn, b) in fig7:
                    rows.append(["fig7_sim", model, nn, f"{a}->{b}", "cut", "",
                                 1 - fig7[(model, nn, b)] / fig7[(model, nn, a)], want])

    # Fig. 8: PaLM-540B, N_M = 32, whole sequences per replica.
    fig8 = {}
    nn = FULL["gpus"] if scale is FULL else n
    for seqs in scale["fig8_batches"]:
        micro = seqs // (nn // PALM_TP)
        for kk in scale["fig8_k"]:
            sets = iteration(nn, kk, PALM_TP, micro, "palm-540b", **{"llm.heads": PALM_HEADS})
            t = simulate(hxsim, out, f"fig8_b{seqs}_k{kk}", sets)[0]
            t_ideal = simulate(hxsim, out, f"fig8_b{seqs}_k{kk}_ideal", ideal(sets, kk, PALM_TP))[0]
            fig8[(kk, seqs)] = (t, t_ideal)
            e = topo(hxsim, {"gpus": nn, "hb_size": kk, "llm": "palm-540b",
                             "batch_tokens": seqs * SEQ})
            rows.append(["fig8_sim", "palm-540b", nn, kk, f"{seqs}seq_iter_s", e["eq1_iter_s"],
                         t, ""])
            rows.append(["fig8_sim", "palm-540b", nn, kk, f"{seqs}seq_relative", e["relative"],
                         t_ideal / t, PAPER_FIG8.get(seqs, "") if kk == 256 else ""])
    return times, fig7, fig8


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
            ks = sorted(k for (m, nn, k) in simulated if m == model and nn == n)
            if ks:
                ax.plot(ks, [simulated[(model, n, k)] for k in ks], "s--", color=f"C{i}",
                        mfc="none", label=f"simulated (flow), N={n}")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("HB domain size K")
        ax.set_ylabel("iteration time [s]")
        ax.set_title(f"{model} (dotted: Eq. 3, ideal)")
        ax.legend(fontsize=6)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def draw_fig8(fig8, simulated, path):
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4))
    for i, (k, points) in enumerate(sorted(fig8.items())):
        seqs = [p[0] for p in points]
        a.plot(seqs, [p[1] for p in points], "o-", color=f"C{i}", label=f"Eq. 1, K={k}")
        b.plot(seqs, [100 * p[3] for p in points], "o-", color=f"C{i}", label=f"Eq. 1/3, K={k}")
        sim = sorted((s, t, t_ideal) for (kk, s), (t, t_ideal) in simulated.items() if kk == k)
        if sim:
            a.plot([p[0] for p in sim], [p[1] for p in sim], "s--", color=f"C{i}", mfc="none",
                   label=f"simulated, K={k}")
            b.plot([p[0] for p in sim], [100 * p[2] / p[1] for p in sim], "s--", color=f"C{i}",
                   mfc="none", label=f"simulated, K={k}")
    a.plot(seqs, [p[2] for p in fig8[256]], "k:", label="ideal (Eq. 3)")
    a.set_ylabel("iteration time [s]")
    b.set_ylabel("relative performance [%]")
    for ax in (a, b):
        ax.set_xlabel("batch [sequences of 2,048 tokens]")
        ax.legend(fontsize=7)
    fig.suptitle("PaLM-540B on 32,768 GPUs (Eq. 1 and 3; simulated at flow level)")
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
    times, fig7_sim, fig8_sim = simulated(args.hxsim, args.out, QUICK if args.quick else FULL,
                                          rows)
    draw_fig5(times, os.path.join(args.out, "fig5.png"))
    draw_fig7(fig7, fig7_sim, os.path.join(args.out, "fig7.png"))
    draw_fig8(fig8, fig8_sim, os.path.join(args.out, "fig8.png"))
    tm = os.path.join(args.out, "rail_only.h5")
    analysis = [sys.executable, os.path.join(ROOT, "scripts", "hxanalysis.py")]
    scale = QUICK if args.quick else FULL
    k = scale["hb_size"]
    # Fig. 4's OPT-175B panel: its Fig. 7 run at the same N and K.
    opt = os.path.join(args.out, f"fig7_opt-175b_n{scale['gpus']}_k{k}.h5")
    for command in (["traffic-types", tm, "-o", os.path.join(args.out, "fig3.png")],
                    ["traffic-types", tm, "-o", os.path.join(args.out, "traffic_types.csv")],
                    ["traffic", tm, "-o", os.path.join(args.out, "fig4.png"), "--grid", str(k)],
                    ["traffic", tm, "-o", os.path.join(args.out, "fig4_zoom.png"), "--first",
                     str(4 * k), "--grid", str(k)],
                    ["traffic", opt, "-o", os.path.join(args.out, "fig4_opt_zoom.png"), "--first",
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
