#!/usr/bin/python3
"""The fault demonstrations of docs/VALIDATION.md "Faults": runs a config once per value of one
key and prints, per run, the delivered throughput before and after the fault (from /timeseries),
the packets lost and the recovery time.

    fault_demos.py HXSIM CONFIG KEY VALUE... [--at 20us] [--scratch DIR] [--set KEY=VALUE ...]

Throughput is flits delivered per ns per endpoint, averaged over the bins from half the fault's
time to the fault, and over those from a microsecond after it has settled (a reconfiguration's
end of switching, /faults settled_ps) to the end of injection. The
recovery time is from the fault to the start of the first bin after the last one below 98% of
the mean before it (0: no bin fell below).
"""

import argparse
import os
import subprocess
import sys

import h5py
import numpy as np


def summarise(path, at_ns):
    with h5py.File(path, "r") as f:
        s = dict(f["summary"].attrs)
        bin_ns = s["timeseries_bin_ps"] / 1000.0
        delivered = f["timeseries/flits_delivered"][()]
        injected = f["timeseries/flits_injected"][()]
        endpoints = f["endpoints/endpoint"].shape[0]
        settled_ns = max([at_ns] + list(f["faults/settled_ps"][()] / 1000.0)) \
            if "faults" in f else at_ns
    rate = delivered / bin_ns / endpoints
    starts = np.arange(len(rate)) * bin_ns
    # Sources inject until the window ends: the bins after the last one with injection drain.
    last = starts[np.nonzero(injected)[0].max()]
    before = rate[(starts >= at_ns / 2) & (starts + bin_ns <= at_ns)]
    after_mask = (starts >= settled_ns + 1000) & (starts < last)
    after = rate[after_mask]
    recovery = 0.0
    low = np.nonzero((starts >= at_ns) & (starts < last) & (rate < 0.98 * before.mean()))[0]
    if low.size:
        recovered = [i for i in range(low[-1] + 1, len(rate)) if starts[i] < last]
        recovery = starts[recovered[0]] - at_ns if recovered else float("nan")
    return {"before": before.mean(), "after": after.mean(), "dropped": int(s["packets_dropped"]),
            "recovery_ns": recovery, "accepted": float(s["accepted_load"]),
            "offered": float(s["offered_load"]), "hops": float(s["hops_mean"])}


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("hxsim")
    p.add_argument("config")
    p.add_argument("key")
    p.add_argument("values", nargs="+")
    p.add_argument("--at", default="20us", help="the fault's time (ns or us)")
    p.add_argument("--scratch", default=".")
    p.add_argument("--set", action="append", default=[])
    args = p.parse_args(argv)
    at_ns = float(args.at[:-2]) * {"ns": 1, "us": 1e3}[args.at[-2:]]
    print("| %s | throughput before | after | packets lost | recovery | accepted / offered | hops |"
          % args.key)
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for value in args.values:
        out = os.path.join(args.scratch, "fault_demo_%s.h5" % value)
        command = [args.hxsim, "run", args.config, "--set", "%s=%s" % (args.key, value),
                   "--progress", "off", "-o", out]
        for extra in args.set:
            command += ["--set", extra]
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        r = summarise(out, at_ns)
        print("| %s | %.4f | %.4f | %d | %s | %.4f / %.4f | %.3f |" % (
            value, r["before"], r["after"], r["dropped"],
            "%.0f ns" % r["recovery_ns"], r["accepted"], r["offered"], r["hops"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
