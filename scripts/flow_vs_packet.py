#!/usr/bin/python3
"""Flow level against packet level: the same collectives on small networks of several families,
run at both fidelities; prints a Markdown table of the workload times (/summary workload_end_ps)
and their ratio, then synthetic traffic below saturation on an 8x8 mesh (loads and latencies),
and writes both as CSV (the synthetic rows' times are mean latencies). docs/VALIDATION.md, "Flow level against packet level",
holds its current output.

  scripts/flow_vs_packet.py [--hxsim build/src/app/hxsim] [--out results/flow_vs_packet]
"""

import argparse
import csv
import os
import subprocess
import sys

import h5py

# 64 B flits and 1 KiB packets keep the packet runs short; the flow level ignores both but
# for counting.
COMMON = ["router.flit_size=64B", "router.buffer_flits=128", "traffic.packet_flits=16",
          "traffic.flows=none", "workload.kind=collective"]

NETWORKS = {
    "torus 4x4": ["sim.model=torus", "torus.k=4", "torus.n=2"],
    "dragonfly 72, minimal": ["sim.model=dragonfly", "dragonfly.p=2", "dragonfly.a=4",
                              "dragonfly.h=2", "dragonfly.routing=minimal"],
    "fat tree k=4 n=2": ["sim.model=fat_tree", "fat_tree.k=4", "fat_tree.n=2"],
    "rail-optimized 8x4": ["sim.model=rail_optimized", "rail_optimized.nodes=8",
                           "rail_optimized.gpus_per_node=4", "rail_optimized.nodes_per_leaf=4",
                           "rail_optimized.spines=2"],
    "RailX 3x3 nodes of 2x2": ["sim.model=railx", "railx.m=2", "railx.n=1", "railx.x=hyperx:3",
                               "railx.y=torus:3"],
    "switch-less Dragonfly 56": ["sim.model=switchless_dragonfly", "switchless_dragonfly.n=2",
                                 "switchless_dragonfly.m=2", "switchless_dragonfly.a=1",
                                 "switchless_dragonfly.b=2"],
}

# (collective, algorithm, size, further settings). The hierarchical all-reduce takes groups of
# 4 consecutive endpoints as its nodes (4 divides every network's endpoints) and rings the nodes.
COLLECTIVES = [
    ("all_reduce", "ring", "4MiB", []),
    ("all_reduce", "ring_2d", "4MiB", []),
    ("all_reduce", "hierarchical", "4MiB", ["workload.local=4", "workload.global_algorithm=ring"]),
    ("all_reduce", "direct", "4MiB", []),
    ("all_to_all", "direct", "1MiB", []),
]


# Synthetic traffic below saturation on the 8x8 mesh of configs/mesh_8x8.toml: (pattern, load).
SYNTHETIC_NETWORK = ["sim.model=mesh", "mesh.k=8", "mesh.n=2", "mesh.routing=dor",
                     "router.vcs=8", "router.buffer_flits=32", "traffic.flows=none"]
SYNTHETIC = [("uniform", "0.3"), ("transpose", "0.1")]
SUMMARY = ("offered_load", "accepted_load", "latency_mean_ps", "latency_p99_ps")


def run(hxsim, settings, fidelity, output, keys=("workload_end_ps",)):
    # A config that names the model (hxsim run without one runs the quickstart's Dragonfly);
    # everything else goes in as --set.
    model = next(s for s in settings if s.startswith("sim.model="))
    config = output[:-3] + ".toml"
    with open(config, "w") as f:
        f.write('[sim]\nmodel = "%s"\n' % model.split("=", 1)[1])
    args = [hxsim, "run", config, "--progress", "off", "-o", output, "--set",
            "sim.fidelity=" + fidelity]
    for s in settings:
        if s != model:
            args += ["--set", s]
    result = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if result.returncode != 0:
        return None, result.stdout.strip().splitlines()[-1]
    with h5py.File(output, "r") as f:
        values = [f["summary"].attrs[k] for k in keys]
    return (int(values[0]) if len(keys) == 1 else values), None


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hxsim", default="build/src/app/hxsim")
    parser.add_argument("--out", default="results/flow_vs_packet")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rows = []
    print("| network | collective | packet (us) | flow (us) | flow / packet |")
    print("| --- | --- | --- | --- | --- |")
    for network, net_settings in NETWORKS.items():
        for collective, algorithm, size, extra in COLLECTIVES:
            settings = net_settings + COMMON + ["workload.collective=" + collective,
                                                "workload.algorithm=" + algorithm,
                                                "workload.bytes=" + size] + extra
            times = {}
            error = None
            for fidelity in ("packet", "flow"):
                out = os.path.join(args.out, "run_%s.h5" % fidelity)
                times[fidelity], error = run(args.hxsim, settings, fidelity, out)
                if error:
                    break
            name = "%s %s %s" % (collective, algorithm, size)
            if error:
                print("| %s | %s | refused: %s | | |" % (network, name, error))
                rows.append([network, name, "", "", "", error])
                continue
            ratio = times["flow"] / times["packet"]
            print("| %s | %s | %.2f | %.2f | %.3f |" % (network, name, times["packet"] / 1e6,
                                                       times["flow"] / 1e6, ratio))
            sys.stdout.flush()
            rows.append([network, name, times["packet"], times["flow"], ratio, ""])
    print()
    print("| pattern | load | offered (packet, flow) | accepted (packet, flow) | "
          "mean latency ns (packet, flow) | p99 ns (packet, flow) |")
    print("| --- | --- | --- | --- | --- | --- |")
    for pattern, load in SYNTHETIC:
        settings = SYNTHETIC_NETWORK + ["traffic.pattern=" + pattern, "traffic.load=" + load]
        got = {}
        for fidelity in ("packet", "flow"):
            out = os.path.join(args.out, "synthetic_%s.h5" % fidelity)
            got[fidelity], error = run(args.hxsim, settings, fidelity, out, SUMMARY)
            if error:
                sys.exit("synthetic %s %s at %s: %s" % (pattern, load, fidelity, error))
        p, f = got["packet"], got["flow"]
        print("| %s | %s | %.4f, %.4f | %.4f, %.4f | %.1f, %.1f | %.0f, %.0f |" % (
            pattern, load, p[0], f[0], p[1], f[1], p[2] / 1e3, f[2] / 1e3, p[3] / 1e3, f[3] / 1e3))
        rows.append(["mesh 8x8", "%s %s" % (pattern, load), p[2], f[2], f[2] / p[2], ""])
    with open(os.path.join(args.out, "flow_vs_packet.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["network", "collective", "packet_ps", "flow_ps", "ratio", "error"])
        w.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
