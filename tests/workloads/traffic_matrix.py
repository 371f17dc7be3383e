#!/usr/bin/python3
"""/traffic_matrix of workload runs (docs/OUTPUT.md) against matrices known by hand, and the
same matrix at packet and flow level, folded or not, on 1 and 2 ranks:

- a ring all-reduce of V bytes on 8 endpoints: each member sends 2(p-1)/p V to its next, in
  2(p-1) messages, and nothing else;
- a hierarchical all-reduce: its local steps stay inside the nodes, its global step joins the
  same local rank of every node;
- an LLM iteration with the two-stage DP all-reduce on a rail-optimized fat tree (HB domains =
  its nodes): MP inside the domains, DP2 inside them, DP1 between domains along a rail, PP to
  the next stage; the DP bytes as rail-only §2.2's two stages give them;
- workload.traffic_matrix = false writes neither /traffic_matrix nor /traffic_types.

usage: traffic_matrix.py HXSIM MPIRUN_SH SCRATCH_DIR
"""
import os
import subprocess
import sys

import h5py
import numpy as np

HXSIM, MPIRUN, SCRATCH = sys.argv[1:4]
COLUMNS = ("src", "dst", "type", "bytes", "messages")

RING = """[sim]
model = "torus"
[torus]
k = 8
n = 1
[workload]
kind = "collective"
collective = "all_reduce"
algorithm = "ring"
bytes = "80000B"
"""

# 4 nodes of 4 GPUs; TP2 x DP4 x PP2: the DP group {i, i+2, i+4, i+6} of a stage has 2 members
# in each of 2 nodes.
LLM = """[sim]
model = "rail_optimized"
[rail_optimized]
nodes = 4
gpus_per_node = 4
nodes_per_leaf = 2
spines = 2
spine_links = 1
[workload]
kind = "llm"
[llm]
preset = "gpt3-175b"
layers = 4
hidden = 256
ffn = 1024
heads = 8
kv_heads = 8
vocab = 1024
seq = 128
tp = 2
dp = 4
pp = 2
micro_batches = 2
dp_algorithm = "hierarchical"
"""


def run(name, text, *settings, ranks=1):
    config = os.path.join(SCRATCH, name + ".toml")
    with open(config, "w") as f:
        f.write(text)
    out = os.path.join(SCRATCH, "%s_%d_%s.h5" % (name, ranks, "_".join(settings).replace("=", "-")
                                                 .replace(".", "-")))
    # mpirun only where it is needed: its start-up costs more than these runs.
    command = (["bash", MPIRUN, "-n", str(ranks)] if ranks > 1 else []) + [
        HXSIM, "run", config, "-o", out, "--progress", "off"]
    for s in settings:
        command += ["--set", s]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return out


def matrix(path):
    """({column: array}, [type names]) of a run's traffic matrix."""
    with h5py.File(path, "r") as f:
        table = {c: f["traffic_matrix"][c][()] for c in COLUMNS}
        types = f["traffic_types"][()].decode().splitlines()
        assert np.array_equal(f["traffic_matrix/pair"][()], np.arange(len(table["src"])))
        assert f["traffic_matrix/bytes"].attrs["units"] == "bytes"
        group_bytes = f["workload_groups/bytes"][()].sum()
    order = np.lexsort((table["type"], table["dst"], table["src"]))
    assert np.array_equal(order, np.arange(len(order))), "rows not ordered by src, dst, type"
    assert (table["bytes"] > 0).all() and (table["src"] != table["dst"]).all()
    # Every byte a program sent is in the matrix (these workloads send no self-messages).
    assert table["bytes"].sum() == group_bytes, (table["bytes"].sum(), group_bytes)
    return table, types


def same(a, b):
    (ta, na), (tb, nb) = matrix(a), matrix(b)
    assert na == nb, (na, nb)
    for c in COLUMNS:
        assert np.array_equal(ta[c], tb[c]), "%s: column %s differs from %s" % (b, c, a)


def ring_all_reduce():
    packet = run("ring", RING)
    table, types = matrix(packet)
    p, v = 8, 80000
    assert types == ["all_reduce ring"], types
    assert list(table["src"]) == list(range(p))
    assert list(table["dst"]) == [(s + 1) % p for s in range(p)]
    assert (table["type"] == 0).all()
    assert (table["bytes"] == 2 * (p - 1) * v // p).all(), table["bytes"]
    assert (table["messages"] == 2 * (p - 1)).all()
    same(packet, run("ring", RING, "sim.fidelity=flow"))
    # Uneven chunks: packet and flow still agree to the byte.
    same(run("ring", RING, "workload.bytes=1000003B"),
         run("ring", RING, "workload.bytes=1000003B", "sim.fidelity=flow"))
    print("ring all-reduce: %d pairs of %d bytes, packet = flow" % (p, table["bytes"][0]))


def hierarchical_all_reduce():
    settings = ("workload.algorithm=hierarchical", "workload.local=4")
    packet = run("ring", RING, *settings)
    table, types = matrix(packet)
    assert types == ["all_reduce hierarchical global", "all_reduce hierarchical local"], types
    src, dst = table["src"], table["dst"]
    local = table["type"] == 1
    assert local.any() and (~local).any()
    assert (src[local] // 4 == dst[local] // 4).all()
    assert (src[~local] // 4 != dst[~local] // 4).all() and (src[~local] % 4 == dst[~local] % 4).all()
    same(packet, run("ring", RING, *settings, "sim.fidelity=flow"))
    print("hierarchical all-reduce: %d local, %d global pairs" % (local.sum(), (~local).sum()))


def llm_two_stage():
    packet = run("llm", LLM)
    table, types = matrix(packet)
    assert types == ["MP", "EP", "PP", "DP", "DP1", "DP2"], types
    name = np.array(types)[table["type"]]
    src, dst = table["src"], table["dst"]
    domain = lambda e: e // 4  # noqa: E731
    assert set(name) == {"MP", "PP", "DP1", "DP2"}, set(name)
    inside = np.isin(name, ["MP", "DP2"])
    assert (domain(src[inside]) == domain(dst[inside])).all()
    dp1 = name == "DP1"
    assert (domain(src[dp1]) != domain(dst[dp1])).all() and (src[dp1] % 4 == dst[dp1] % 4).all()
    # Stage 0 is ranks 0-7 on nodes 0-1: rank 0's DP ring of 2 in its node is {0, 2}, its rail
    # peer 4. Second stage 2(2-1)/2 V, first stage 2(2-1)/2 V/2 per DP all-reduce: twice as
    # many bytes inside the domain as across (rail-only §2.2).
    pair = lambda s, d, t: table["bytes"][(src == s) & (dst == d) & (name == t)].sum()  # noqa
    assert pair(0, 2, "DP2") == 2 * pair(0, 4, "DP1") > 0
    assert pair(0, 8, "PP") > 0 and pair(0, 1, "MP") > 0
    flow = run("llm", LLM, "sim.fidelity=flow")
    same(packet, flow)
    same(flow, run("llm", LLM, "sim.fidelity=flow", "sim.fold=off"))
    same(packet, run("llm", LLM, ranks=2))
    # A ring DP all-reduce is plain DP; folded at flow level (TP and DP fold) the same matrix.
    ring = run("llm", LLM, "llm.dp_algorithm=ring", "sim.fidelity=flow")
    rtable, _ = matrix(ring)
    assert set(np.array(types)[rtable["type"]]) == {"MP", "PP", "DP"}
    same(ring, run("llm", LLM, "llm.dp_algorithm=ring", "sim.fidelity=flow", "sim.fold=off"))
    print("llm two-stage DP: %d pairs (%s), packet = flow = folded = 2 ranks" % (
        len(src), ", ".join("%s %d" % (t, (name == t).sum()) for t in types if (name == t).any())))


def switched_off():
    out = run("ring", RING, "workload.traffic_matrix=false")
    with h5py.File(out, "r") as f:
        assert "traffic_matrix" not in f and "traffic_types" not in f and "workload_groups" in f
    print("workload.traffic_matrix = false: no table")


def main():
    os.makedirs(SCRATCH, exist_ok=True)
    for name in os.listdir(SCRATCH):
        if name.endswith(".h5"):
            os.remove(os.path.join(SCRATCH, name))
    ring_all_reduce()
    hierarchical_all_reduce()
    llm_two_stage()
    switched_off()


if __name__ == "__main__":
    main()
