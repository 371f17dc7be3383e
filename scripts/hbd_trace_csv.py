#!/usr/bin/python3
"""Converts InfiniteHBD's production fault trace to the CSV hxsim's hbd_cluster model replays.

    scripts/hbd_trace_csv.py fault_trace.json -o trace.csv [--servers 400] [--order shuffled]
                             [--seed 1] [--end 348d]

The trace (github.com/stepfun-ai/InfiniteHBD-Trace, fault_trace.json: 348 days of 400 8-GPU
servers, not bundled with hxsim) is a JSON list of events {node_id (a UUID), event_time (days
since the first event), event_type (fault_start or fault_end), fault_type}. A server is faulty
while any of its faults is open: overlapping faults of one server merge into one interval, a
fault_end with no fault open is skipped (counted in the report), and a fault still open at the
end lasts until --end. Times are rounded to whole seconds (hbd_cluster's unit).

Servers become nodes 0 .. --servers - 1. The trace names only the servers that failed and
says they were "randomly picked across a GPU cluster", so their places on the HBD line are
unknown: --order shuffled (the default) gives them distinct random places among the --servers
(seeded), first-fault numbers them in the order of their first fault. Then:

    hxsim run configs/infinitehbd/cluster_faults.toml --set hbd_cluster.trace=trace.csv
"""
import argparse
import json
import random
import sys


def days_to_seconds(days):
    return int(round(days * 86400))


def intervals(events, end_s):
    """Per UUID, the merged [start, end) intervals in seconds, and the unmatched ends."""
    open_count, since, out, unmatched = {}, {}, {}, 0
    for e in sorted(events, key=lambda e: e["event_time"]):  # the file is sorted; keep it so
        node, t = e["node_id"], days_to_seconds(e["event_time"])
        count = open_count.get(node, 0)
        if e["event_type"] == "fault_start":
            if count == 0:
                since[node] = t
            open_count[node] = count + 1
        elif e["event_type"] == "fault_end":
            if count == 0:
                unmatched += 1
                continue
            open_count[node] = count - 1
            if count == 1 and t > since[node]:
                out.setdefault(node, []).append((since[node], t))
        else:
            raise ValueError(f"unknown event_type {e['event_type']!r} at {e['event_time']} d")
    for node, count in open_count.items():
        if count > 0 and end_s > since[node]:
            out.setdefault(node, []).append((since[node], end_s))
    return out, unmatched


def parse_days(text):
    if not text.endswith("d"):
        raise argparse.ArgumentTypeError(f"{text!r}: expected days, e.g. 348d")
    return float(text[:-1])


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("trace", help="fault_trace.json")
    p.add_argument("-o", "--out", required=True, help="the CSV to write")
    p.add_argument("--servers", type=int, default=400, help="servers the trace covers")
    p.add_argument("--order", choices=("shuffled", "first-fault"), default="shuffled")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--end", type=parse_days, default=348.0, help="the trace's end (348d)")
    args = p.parse_args(argv)
    with open(args.trace) as f:
        events = json.load(f)
    by_node, unmatched = intervals(events, days_to_seconds(args.end))
    first = sorted(by_node, key=lambda n: (by_node[n][0][0], n))  # UUIDs by first fault
    if len(first) > args.servers:
        sys.exit(f"hbd_trace_csv: {len(first)} servers fail, more than --servers {args.servers}")
    places = list(range(args.servers))
    if args.order == "shuffled":
        random.Random(args.seed).shuffle(places)
    rows = sorted((places[i], start, end) for i, node in enumerate(first)
                  for start, end in by_node[node])
    with open(args.out, "w") as f:
        f.write("# converted by scripts/hbd_trace_csv.py from " + args.trace + "\n")
        f.write("node,start,end\n")
        for node, start, end in rows:
            f.write(f"{node},{start}s,{end}s\n")
    print(f"hbd_trace_csv: {len(events)} events, {len(first)} servers, {len(rows)} intervals, "
          f"{unmatched} fault_end without an open fault; wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
