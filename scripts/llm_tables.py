#!/usr/bin/python3
"""InfiniteHBD's training-performance tables from hxsim, paper and hxsim side by side
(docs/VALIDATION.md "LLM iterations against the papers"):

    llm_tables.py HXSIM table2|table5|table4 [--quick] [--rows 1024 4096] [--top N]
                  [--ranks R] [--scratch DIR] [--set KEY=VALUE ...]

table2  Llama 3.1-405B (configs/llm/table2.toml): per GPU count, `hxsim search` over the paper's
        space, with TP free and with TP <= 8; the best plan and its MFU.
table5  GPT-MoE 1.1T (configs/llm/table5.toml): per GPU count, the paper's plan run at flow level
        as given, and the best plan of `hxsim search` (EP 1, 2, 4, 8).
table4  GPT-MoE 1.1T on 1,024 GPUs of an ideal HB domain (configs/llm/table4.toml): TP16 against
        TP2 x EP8 at expert imbalance 0, 10, 20 and 30%.

--quick: the searches rank by the α–β estimate only (search.top = 0); without it the best --top
plans (default 2) of each search run at flow level on --ranks ranks (default 2), and the MFU
reported is the run's. Table 4 and Table 5's given plans always run at flow level.
"""

import argparse
import csv
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# GPUs, TP, PP, DP, MFU, MFU at TP 8 (InfiniteHBD Table 2).
TABLE2 = [(1024, 16, 4, 16, 0.5236, 0.5217), (4096, 16, 8, 32, 0.4668, 0.4282),
          (8192, 32, 8, 32, 0.4247, 0.3512), (16384, 32, 16, 32, 0.3756, 0.2584),
          (32768, 32, 16, 64, 0.3090, 0.1690), (65536, 64, 16, 64, 0.2493, 0.0999),
          (131072, 64, 16, 128, 0.1851, 0.0550)]
# GPUs, TP, DP, PP, EP, MFU (InfiniteHBD Table 5).
TABLE5 = [(1024, 16, 16, 4, 1, 0.4276), (2048, 16, 16, 8, 1, 0.4140),
          (4096, 32, 16, 8, 1, 0.3894), (8192, 32, 16, 16, 1, 0.3656),
          (16384, 64, 16, 16, 1, 0.3116)]
# Imbalance coefficient -> MFU (InfiniteHBD Table 4); None: the TP column.
TABLE4 = [(None, 0.312), (0.0, 0.315), (0.1, 0.305), (0.2, 0.298), (0.3, 0.288)]


def hxsim(args, cmd, ranks):
    launch = [os.path.join(ROOT, "scripts", "mpirun.sh"), "-n", str(ranks)] if ranks > 1 else []
    result = subprocess.run(launch + [args.hxsim] + cmd, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"llm_tables: {' '.join(cmd)} failed:\n{result.stderr}")
    return result.stdout


def paper_plan(gpus, batch, tp, pp, dp, ep=1):
    """Overrides running the paper's plan on the InfiniteHBD of `gpus` GPUs (TP rings of tp)."""
    return [f"infinitehbd.nodes={gpus // 4}", f"infinitehbd.tp={tp}",
            f"infinitehbd.dcn={'switch' if gpus <= 65534 else 'fat_tree'}",
            f"llm.tp={tp}", f"llm.pp={pp}", f"llm.dp={dp}", f"llm.ep={ep}",
            f"llm.micro_batches={batch // (dp * ep)}"]


def search(args, config, name, sets):
    """The best row of `hxsim search`, as a dict of the CSV's columns."""
    out = os.path.join(args.scratch, name + ".h5")
    cmd = ["search", config, "-o", out, "--set", f"search.top={0 if args.quick else args.top}"]
    for s in sets + args.set:
        cmd += ["--set", s]
    hxsim(args, cmd, 1 if args.quick else args.ranks)
    with open(os.path.splitext(out)[0] + ".csv") as f:
        best = next(csv.DictReader(f))
    ran = best["run_status"] == "1"
    best["mfu"] = float(best["run_mfu"] if ran else best["analytic_mfu"])
    best["how"] = "run" if ran else "α–β"
    return best


def run_mfu(args, config, name, sets):
    out = os.path.join(args.scratch, name + ".h5")
    cmd = ["run", config, "-o", out, "--progress", "off"]
    for s in sets + args.set:
        cmd += ["--set", s]
    hxsim(args, cmd, args.ranks)
    import h5py
    with h5py.File(out, "r") as f:
        return float(f["summary"].attrs["mfu"])


def plan(row, keys=("tp", "pp", "dp")):
    return "/".join(str(row[k]) for k in keys)


def table2(args):
    config = os.path.join(ROOT, "configs", "llm", "table2.toml")
    print("| GPUs | paper TP/PP/DP | hxsim TP/PP/DP | paper MFU | hxsim MFU | paper MFU TP=8 | "
          "hxsim MFU TP=8 (TP/PP/DP) | paper improve | hxsim improve |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for gpus, tp, pp, dp, mfu, mfu8 in TABLE2:
        if args.rows and gpus not in args.rows:
            continue
        base = paper_plan(gpus, 2048, tp, pp, dp)
        free = search(args, config, f"table2_{gpus}", base)
        tp8 = search(args, config, f"table2_{gpus}_tp8", base + ["search.tp=[1,2,4,8]"])
        print(f"| {gpus:,} | {tp}/{pp}/{dp} | {plan(free)} ({free['recompute']}) | {mfu:.4f} | "
              f"{free['mfu']:.4f} ({free['how']}) | {mfu8:.4f} | {tp8['mfu']:.4f} "
              f"({plan(tp8)}, {tp8['recompute']}, {tp8['how']}) | {mfu / mfu8:.4f} | "
              f"{free['mfu'] / tp8['mfu']:.4f} |", flush=True)


def table5(args):
    config = os.path.join(ROOT, "configs", "llm", "table5.toml")
    print("| GPUs | paper TP/DP/PP/EP | paper MFU | hxsim MFU of that plan | hxsim best "
          "TP/DP/PP/EP | its MFU |")
    print("| --- | --- | --- | --- | --- | --- |")
    for gpus, tp, dp, pp, ep, mfu in TABLE5:
        if args.rows and gpus not in args.rows:
            continue
        base = paper_plan(gpus, 1536, tp, pp, dp, ep)
        given = run_mfu(args, config, f"table5_{gpus}_paper", base)
        best = search(args, config, f"table5_{gpus}", base)
        print(f"| {gpus:,} | {tp}/{dp}/{pp}/{ep} | {mfu:.4f} | {given:.4f} | "
              f"{plan(best, ('tp', 'dp', 'pp', 'ep'))} | {best['mfu']:.4f} ({best['how']}) |",
              flush=True)


def table4(args):
    config = os.path.join(ROOT, "configs", "llm", "table4.toml")
    print("| | imbalance | paper MFU | hxsim MFU |")
    print("| --- | --- | --- | --- |")
    for coef, mfu in TABLE4:
        if coef is None:
            sets, label = [], "TP16"
        else:
            sets = ["llm.tp=2", "llm.ep=8", "llm.micro_batches=12",  # the same global batch
                    f"llm.expert_imbalance={coef}"]
            label = "TP2 x EP8"
        name = "table4_tp" if coef is None else f"table4_ep_{int(coef * 100)}"
        got = run_mfu(args, config, name, sets)
        shown = "-" if coef is None else f"{coef:.0%}"
        print(f"| {label} | {shown} | {mfu:.3f} | {got:.3f} |", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("hxsim")
    parser.add_argument("table", choices=["table2", "table5", "table4"])
    parser.add_argument("--quick", action="store_true", help="α–β ranking only, no runs")
    parser.add_argument("--rows", type=int, nargs="*", help="GPU counts (default: all)")
    parser.add_argument("--top", type=int, default=2, help="plans per search run at flow level")
    parser.add_argument("--ranks", type=int, default=2, help="MPI ranks of the runs")
    parser.add_argument("--scratch", default="llm_tables_scratch")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="a config override for every run and search (e.g. llm.tp_overlap=true)")
    args = parser.parse_args()
    os.makedirs(args.scratch, exist_ok=True)
    {"table2": table2, "table5": table5, "table4": table4}[args.table](args)


if __name__ == "__main__":
    main()
