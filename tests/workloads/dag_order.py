#!/usr/bin/python3
"""Replays a random flow trace through hxsim and checks from /flows that the runtime respected
every dependency: no flow left its source before its earliest start, before the flows it waits
for had arrived (dependencies received by its source) or had left (dependencies sent by its
source). The same trace on 2 ranks must give identical data (h5compare).

usage: dag_order.py HXSIM MPIRUN_SH H5COMPARE_PY SCRATCH_DIR
"""
import os
import random
import subprocess
import sys

import h5py
import numpy as np

HXSIM, MPIRUN, H5COMPARE, SCRATCH = sys.argv[1:5]
ENDPOINTS = 16  # a 4x4 torus
FLIT_BYTES = 8  # the default router.flit_size
CYCLE_PS = 1000  # the default sim.cycle_time; links carry 1 flit per cycle


def make_trace(path, flows=400, seed=7):
    """Flows in id order; each may depend on up to 3 earlier flows that start or end at its
    source (the runtime's rule), so the trace is acyclic by construction."""
    rng = random.Random(seed)
    rows = []
    for i in range(flows):
        src = rng.randrange(ENDPOINTS)
        dst = rng.randrange(ENDPOINTS)
        local = [r for r in rows if src in (r["src"], r["dst"])]
        deps = rng.sample(local, min(len(local), rng.randrange(4)))
        rows.append({"id": 10 * i + 3, "src": src, "dst": dst,
                     "bytes": rng.choice([8, 100, 4096, 65536]),
                     "start_ns": rng.choice([0, 0, 0, rng.randrange(1, 20000)]),
                     "deps": [d["id"] for d in deps]})
    with open(path, "w") as f:
        f.write("id,src,dst,bytes,start,deps\n")
        for r in rows:
            start = f"{r['start_ns']}ns" if r["start_ns"] else "0"
            f.write(f"{r['id']},{r['src']},{r['dst']},{r['bytes']},{start},"
                    f"{';'.join(map(str, r['deps']))}\n")
    return rows


def run(config, trace, out, ranks):
    cmd = ["bash", MPIRUN, "-n", str(ranks), HXSIM, "run", config, "-o", out,
           "--set", f"workload.trace={trace}", "--progress", "off"]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def main():
    os.makedirs(SCRATCH, exist_ok=True)
    trace = os.path.join(SCRATCH, "random.csv")
    rows = make_trace(trace)
    config = os.path.join(SCRATCH, "trace.toml")
    with open(config, "w") as f:
        f.write('[sim]\nmodel = "torus"\n[torus]\nk = 4\nn = 2\n'
                '[workload]\nkind = "trace"\n[traffic]\nflows = "all"\n')
    outs = [os.path.join(SCRATCH, f"np{n}.h5") for n in (1, 2)]
    for n, out in zip((1, 2), outs):
        run(config, trace, out, n)

    with h5py.File(outs[0]) as f:
        fl = {k: f["flows"][k][()] for k in ("src", "message", "created_ps", "last_arrival_ps")}
        assert f["summary"].attrs["workload_complete"] == 1, "not every program completed"
    # The message id's low half is the flow's tag: its index in the trace. Self-messages
    # (src = dst) complete at once without entering the network, so they have no row.
    tag = fl["message"] & 0xFFFFFFFF
    network = [i for i, r in enumerate(rows) if r["src"] != r["dst"]]
    assert sorted(tag.tolist()) == network, "a flow is missing or repeated"
    created = np.full(len(rows), -1, dtype=np.int64)
    arrived = np.full(len(rows), -1, dtype=np.int64)
    created[tag] = fl["created_ps"]
    arrived[tag] = fl["last_arrival_ps"]
    index = {r["id"]: i for i, r in enumerate(rows)}
    checked = 0
    for i, r in enumerate(rows):
        if r["src"] == r["dst"]:
            continue
        assert created[i] >= r["start_ns"] * 1000, f"flow {r['id']} started before its start time"
        for d in r["deps"]:
            g = rows[index[d]]
            j = index[d]
            if g["src"] == g["dst"]:
                continue  # no record of when it ran
            if g["dst"] == r["src"]:
                # Received by the source: done when its last flit arrived.
                ok = created[i] >= arrived[j]
            else:
                # Sent by the source: done when its tail left, at least its serialisation
                # (whole flits at one per cycle) after it was posted.
                flits = -(-g["bytes"] // FLIT_BYTES)
                ok = created[i] >= created[j] + flits * CYCLE_PS
            assert ok, f"flow {r['id']} started before its dependency {d} was done"
            checked += 1
    subprocess.run(["/usr/bin/python3", H5COMPARE, outs[0], outs[1]], check=True)
    print(f"dag_order: {len(rows)} flows, {checked} dependencies respected; 1 and 2 ranks agree")


if __name__ == "__main__":
    main()
