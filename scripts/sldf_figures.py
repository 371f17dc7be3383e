#!/usr/bin/python3
"""Regenerates the evaluation of the Switch-less Dragonfly paper (Fig. 10-15) with hxsim.

    scripts/sldf_figures.py [--out DIR] [--figures 10ab,13,15] [--curves 2B,4B] [--skip PART]
                            [--quick] [--ranks N] [--hxsim PATH] [--set KEY=VALUE ...]

Each curve is one `hxsim sweep` (latency against offered load up to saturation) written to
DIR/figNN/<panel>_<curve>.h5; Fig. 15 is one `hxsim run` per bar, its energy computed from the
flits each link class carried. Curves whose file exists are not run again (delete it to redo).
Then DIR/figNN.png is drawn and DIR/summary.csv lists every curve's saturation throughput in
flits/cycle/chip (per chiplet of chip_mesh^2 cores for the switch-less Dragonfly, per terminal
for the switch-based one; per sending chip under hotspot) or every bar's energy; docs/validation/switchless_dragonfly.md compares them with the paper.

--curves runs only the curves whose label contains one of the given strings, --skip none of those
whose label contains one of its strings (the others of the chosen panels are drawn if their
files exist). summary.csv keeps the rows of figures and panels
not drawn by this call.

--set KEY=VALUE is passed to every run: `--set router.arch=ideal --out sldf_ideal` redraws the
figures with the idealised router (docs/MODELS.md).

--quick shortens the windows (1,000 warm-up + 3,000 measured cycles instead of Table IV's
5,000 + 10,000) and the sweeps' refinement, for a first look in minutes rather than hours.
"""
import argparse
import csv
import os
import sys
from dataclasses import dataclass, field

import h5py
import hxrun
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFIGS = os.path.join(ROOT, "configs", "switchless_dragonfly")
R16 = os.path.join(ROOT, "configs", "switchless_dragonfly_r16.toml")
SWITCH16 = os.path.join(CONFIGS, "dragonfly_r16.toml")
SWITCH32 = os.path.join(CONFIGS, "dragonfly_r32.toml")
CGROUP = os.path.join(CONFIGS, "fig10_cgroup.toml")
R32 = os.path.join(CONFIGS, "switchless_r32.toml")

# The paper's C-groups: 2 x 2 chiplets of 2 x 2 on-chip routers (§V-B1), at 1B/2B/4B.
CORES = 4  # cores per chiplet with chip_mesh = 2


def sldf(bandwidth=1, **extra):
    sets = {"switchless_dragonfly.chip_mesh": "2"}
    if bandwidth != 1:
        sets["switchless_dragonfly.mesh_speed"] = str(bandwidth)
        sets["switchless_dragonfly.onchip_speed"] = str(bandwidth)
    sets.update(extra)
    return sets


@dataclass
class Curve:
    panel: str
    label: str
    config: str
    sets: dict
    per_chip: float  # endpoints per chip
    start: float  # first load and step, flits/cycle/endpoint
    run_only: bool = False  # one run at `start` (Fig. 15), not a sweep
    senders: float = 1.0  # fraction of endpoints that send: loads are per sending chip
    extra: dict = field(default_factory=dict)


def traffic(pattern, block=0, **more):
    sets = {"traffic.pattern": pattern}
    if block:
        sets["traffic.block"] = str(block)
    sets.update({k.replace("__", "."): v for k, v in more.items()})
    return sets


def figures():
    f = {}
    f[10] = [
        Curve("a", "switch-less 1B", CGROUP, traffic("uniform"), CORES, 0.1),
        Curve("a", "switch-based", SWITCH16, traffic("uniform", 4), 1, 0.05),
        Curve("b", "switch-less 1B", CGROUP, traffic("bit_reverse"), CORES, 0.05),
        Curve("b", "switch-based", SWITCH16, traffic("bit_reverse", 4), 1, 0.05),
    ]
    # Panel (f), bit-transpose: a W-group has 128 cores (7 address bits), a switch-based group
    # 32 terminals (5), not 4^k; traffic.bit_fit = general transposes a 16 x 8 (8 x 4) matrix,
    # d_i = s_((i + 3) mod 7), as the paper's simulator does
    # (docs/validation/switchless_dragonfly.md).
    for panel, pattern in zip("cdef", ["uniform", "bit_reverse", "bit_shuffle", "transpose"]):
        fit = {"traffic__bit_fit": "general"} if pattern == "transpose" else {}
        f[10] += [
            Curve(panel, "switch-less 1B", R16, {**sldf(1), **traffic(pattern, 128, **fit)}, CORES,
                  0.05),
            Curve(panel, "switch-less 2B", R16, {**sldf(2), **traffic(pattern, 128, **fit)}, CORES,
                  0.05),
            Curve(panel, "switch-based", SWITCH16, traffic(pattern, 32, **fit), 1, 0.05),
        ]
    f[11] = [Curve("a", f"switch-less {b}B", R16, {**sldf(b), **traffic("uniform")}, CORES, 0.05)
             for b in (1, 2, 4)]
    f[11].append(Curve("a", "switch-based", SWITCH16, traffic("uniform"), 1, 0.05))
    # Panel (b), global bit-reverse: 5,248 cores (1,312 terminals) are not a power of two.
    # bit_fit = general: the digit reversal of 41 x 2^7 (41 x 2^5), a permutation; truncate: the
    # paper's simulator's reading (the low 12 (10) bits reversed), for comparison.
    for fit, suffix in (("general", ""), ("truncate", " (truncate)")):
        reverse = traffic("bit_reverse", traffic__bit_fit=fit)
        f[11] += [Curve("b", f"switch-less {b}B{suffix}", R16, {**sldf(b), **reverse}, CORES, 0.05)
                  for b in (1, 2, 4)]
        f[11].append(Curve("b", f"switch-based{suffix}", SWITCH16, reverse, 1, 0.05))
    # The paper's Fig. 12(b) (global, uniform); its panel (a), intra-W-group, is not run here.
    f[12] = [Curve("b", f"switch-less {b}B", R32, {**traffic("uniform")} | (
        {"switchless_dragonfly.mesh_speed": str(b)} if b > 1 else {}), 1, 0.05) for b in (1, 2)]
    f[12].append(Curve("b", "switch-based", SWITCH32, traffic("uniform"), 1, 0.05))
    for panel, pattern, first in (("a", "hotspot", 0.005), ("b", "group_shift", 0.001)):
        for routing in ("minimal", "valiant"):
            for b in (1, 2):
                sets = {**sldf(b, **{"switchless_dragonfly.routing": routing}), **traffic(pattern)}
                start = first if routing == "minimal" else 10 * first
                # hotspot: 4 of the 41 W-groups send (traffic.hotspot_groups = 4)
                f.setdefault(13, []).append(Curve(panel, f"{routing} {b}B", R16, sets, CORES, start,
                                                  senders=4 / 41 if pattern == "hotspot" else 1))
    # Rings of cores (core i to core i + 1), and the paper's rings of chips: each of a chiplet's
    # 4 cores sends to the same core of the next chiplet, the chiplets of a C-group in Gray-code
    # order (around its 2 x 2), as the paper's simulator's allreduce inputs do; a switch-based
    # chip is one terminal, so its rings are rings of chips already.
    chip_ring = {"traffic__ring_unit": str(CORES), "traffic__ring_order": "gray"}
    for panel, block in (("a", 16), ("b", 128)):
        for pattern in ("ring", "bidirectional_ring"):
            f.setdefault(14, []).append(
                Curve(panel, f"switch-less {pattern}", R16, {**sldf(1), **traffic(pattern, block)},
                      CORES, 0.1))
            f[14].append(Curve(panel, f"switch-based {pattern}", SWITCH16,
                               traffic(pattern, block // 4), 1, 0.1))
            f[14].append(Curve(panel, f"switch-less chip {pattern}", R16,
                               {**sldf(1), **traffic(pattern, block, **chip_ring)}, CORES, 0.05))
    f[14].append(Curve("b", "switch-less 2B chip bidirectional_ring", R16,
                       {**sldf(2), **traffic("bidirectional_ring", 128, **chip_ring)}, CORES,
                       0.05))
    for panel, (less, switch) in (("small", (R16, SWITCH16)), ("large", (R32, SWITCH32))):
        for routing, switch_routing in (("minimal", "minimal"), ("valiant", "valiant")):
            less_sets = {"switchless_dragonfly.routing": routing, **traffic("uniform")}
            if less == R16:
                less_sets.update(sldf(1))
            f.setdefault(15, []).append(Curve(panel, f"switch-less {routing}", less, less_sets,
                                              CORES if less == R16 else 1, 0.02, run_only=True))
            f[15].append(Curve(panel, f"switch-based {routing}", switch,
                               {"dragonfly.routing": switch_routing, **traffic("uniform")}, 1,
                               0.02, run_only=True))
    return f


# Energy per bit of one traversal of each link class: Table II (long reach 20, short reach 2,
# on-chip 0.1 pJ/bit). A switch-less long-reach link includes its two SR-LR conversion hops
# (Eq. 7 counts them as short-reach hops: 2 x 2 pJ/bit); a switch-based terminal link is H_l*,
# "similar to a local hop" (§III-B3).
ENERGY_PJ = {
    "switchless_dragonfly": {"endpoint": 0.1, "onchip": 0.1, "mesh": 2.0, "local": 24.0,
                             "global": 24.0},
    "dragonfly": {"terminal": 20.0, "local": 20.0, "global": 20.0},
}
# Sec. V-C's own reading of Fig. 15: 20 pJ/bit per local or global hop and, "for simplicity",
# 1 pJ/bit per intra-C-group hop (on-chip or between chiplets), no conversions counted.
ENERGY_PJ_SEC5C = {
    "switchless_dragonfly": {"endpoint": 0.1, "onchip": 1.0, "mesh": 1.0, "local": 20.0,
                             "global": 20.0},
    "dragonfly": ENERGY_PJ["dragonfly"],
}


def file_name(out, number, curve):
    safe = curve.label.replace(" ", "_").replace("(", "").replace(")", "")
    return os.path.join(out, f"fig{number}", f"{curve.panel}_{safe}.h5")


def run(args, number, curve):
    path = file_name(args.out, number, curve)
    if os.path.exists(path):
        return path
    os.makedirs(os.path.dirname(path), exist_ok=True)
    sets = dict(curve.sets)
    if args.quick:
        sets.update({"traffic.warmup": "1000cycles", "traffic.measure": "3000cycles"})
    arguments = ["run" if curve.run_only else "sweep", curve.config]
    if curve.run_only:
        sets["traffic.load"] = str(curve.start)
        arguments += ["--progress", "off"]
    else:
        arguments += ["--start", str(curve.start), "--step", str(curve.start),
                      "--refine", "1" if args.quick else "3"]
    return hxrun.run_to_file(args.hxsim, arguments, path, sets, args.ranks,
                             f"fig{number} {curve.panel} {curve.label}", extra=args.set)


def energy_pj_per_bit(path, table=None):
    with h5py.File(path, "r") as f:
        model = f.attrs["model"]
        model = model.decode() if isinstance(model, bytes) else str(model)
        classes = f["summary"].attrs["link_classes"]
        classes = (classes.decode() if isinstance(classes, bytes) else str(classes)).split(",")
        flits = f["links/flits"][()]
        link_class = f["links/link_class"][()]
    per_class = {name: float(flits[link_class == i].sum()) for i, name in enumerate(classes)}
    delivered = per_class["endpoint" if "endpoint" in per_class else "terminal"] / 2
    costs = (table or ENERGY_PJ)[model]
    return sum(costs.get(name, 0.0) * count for name, count in per_class.items()) / delivered


def draw(args, number, curves, rows):
    curves = [c for c in curves if os.path.exists(file_name(args.out, number, c))]
    if not curves:
        return
    panels = sorted({c.panel for c in curves})
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.4), squeeze=False)
    for ax, panel in zip(axes[0], panels):
        members = [c for c in curves if c.panel == panel]
        if members[0].run_only:
            paths = [file_name(args.out, number, c) for c in members]
            values = [energy_pj_per_bit(p) for p in paths]
            sec5c = [energy_pj_per_bit(p, ENERGY_PJ_SEC5C) for p in paths]
            x = range(len(members))
            ax.bar([i - 0.2 for i in x], values, width=0.4, label="Table II costs")
            ax.bar([i + 0.2 for i in x], sec5c, width=0.4, label="Sec. V-C: 1 pJ/bit a C-group hop")
            ax.set_xticks(x, [c.label for c in members], rotation=30, ha="right", fontsize=7)
            ax.set_ylabel("pJ/bit")
            ax.legend(fontsize=6)
            for c, v, w in zip(members, values, sec5c):
                rows.append([f"fig{number}", panel, c.label, "energy_pj_per_bit", f"{v:.3f}"])
                rows.append([f"fig{number}", panel, c.label, "energy_pj_per_bit_sec5c",
                             f"{w:.3f}"])
        else:
            for c in members:
                with h5py.File(file_name(args.out, number, c), "r") as f:
                    scale = c.per_chip / c.senders
                    accepted = f["sweep/accepted_load"][()] * scale
                    latency = f["sweep/latency_mean_ps"][()] / 1000.0
                    saturation = f["summary"].attrs["saturation_throughput"] * scale
                style = "--" if "truncate" in c.label else "-"
                ax.plot(accepted, latency, style, marker=".", label=c.label)
                rows.append([f"fig{number}", panel, c.label, "saturation_flits_per_cycle_per_chip",
                             f"{saturation:.4f}"])
            ax.set_xlabel("accepted load (flits/cycle/chip)")
            ax.set_ylabel("mean latency (ns; 1 cycle = 1 ns)")
            ax.set_yscale("log")
            ax.legend(fontsize=7)
        ax.set_title(f"Fig. {number}({panel})")
    fig.tight_layout()
    fig.savefig(os.path.join(args.out, f"fig{number}.png"), dpi=120)
    plt.close(fig)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="sldf_figures")
    parser.add_argument("--figures", default="10,11,12,13,14,15")
    parser.add_argument("--curves", default="",
                        help="comma-separated parts of curve labels: run only those curves")
    parser.add_argument("--skip", default="",
                        help="comma-separated parts of curve labels: do not run those curves")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--ranks", type=int, default=1)
    parser.add_argument("--hxsim", default=os.path.join(ROOT, "build", "src", "app", "hxsim"))
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="passed to every run, e.g. router.arch=ideal (and part of no file "
                        "name: use a fresh --out)")
    args = parser.parse_args()
    table = figures()
    wanted = [part for part in args.curves.split(",") if part]
    skipped = [part for part in args.skip.split(",") if part]
    rows = []
    for token in args.figures.split(","):  # "13" (all panels) or "10ab" (panels a and b)
        digits = token.rstrip("abcdefghijklmnopqrstuvwxyz")
        if not digits.isdigit() or int(digits) not in table:
            sys.exit(f"sldf_figures.py: no figure '{token}'; choose from {sorted(table)}")
        number, panels = int(digits), token[len(digits):]
        curves = [c for c in table[number] if not panels or c.panel in panels]
        for curve in curves:
            if wanted and not any(part in curve.label for part in wanted):
                continue
            if not any(part in curve.label for part in skipped):
                run(args, number, curve)
        draw(args, number, curves, rows)
    # Rows of the panels drawn now replace their old rows; the others are kept.
    summary = os.path.join(args.out, "summary.csv")
    drawn = {(r[0], r[1]) for r in rows}
    kept = []
    if os.path.exists(summary):
        with open(summary, newline="") as old:
            kept = [r for r in list(csv.reader(old))[1:] if (r[0], r[1]) not in drawn]
    with open(summary, "w", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["figure", "panel", "curve", "quantity", "value"])
        writer.writerows(sorted(kept + rows, key=lambda r: (int(r[0][3:]), r[1])))
    print(f"wrote {args.out}/summary.csv and fig*.png")


if __name__ == "__main__":
    main()
