#!/usr/bin/python3
"""Golden results: the data of small runs must not change when the simulator is optimised.

Runs each config of tests/determinism on one rank and reduces its HDF5 output to digests: one
SHA-256 per dataset (dtype, shape and bytes) and the values of the /summary and root attributes.
Left out, as in scripts/h5compare.py: /engine and /partition (wall times, ranks), /config and the
config hash (the resolved input, which grows when a parameter is added), run-only root attributes.
The digests are compared with tests/regression/golden.json, which was recorded before issue #8's
optimisation work. A change of results needs a reason, recorded with the new digests:

  golden.py check HXSIM CONFIG_DIR SCRATCH [NAME...]      exit 1 on any difference
  golden.py update HXSIM CONFIG_DIR SCRATCH --reason "why the results changed" [NAME...]
"""

import argparse
import hashlib
import json
import os
import subprocess
import sys

import h5py
import numpy as np

GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden.json")
SKIPPED_PATHS = ("/engine", "/partition", "/config")
SKIPPED_ROOT_ATTRS = {"ranks", "partitioner", "start_time", "end_time", "wall_time_s", "git_hash",
                      "restarted_from", "hxsim_version", "config_hash"}
# Attributes that attach dimension scales hold file addresses; the scales are datasets anyway.
SCALE_ATTRS = {"DIMENSION_LIST", "REFERENCE_LIST", "CLASS", "NAME", "_Netcdf4Dimid"}


def attr_value(value):
    """A JSON-comparable form of an attribute value."""
    if isinstance(value, bytes):
        return value.decode()
    if isinstance(value, np.ndarray):
        return [attr_value(v) for v in value.tolist()]
    if isinstance(value, (np.floating, float)):
        return repr(float(value))  # exact; NaN compares equal as text
    if isinstance(value, np.integer):
        return int(value)
    return value


def digests(path):
    """{object path or path@attribute: digest or value} for one output file."""
    out = {}
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            full = "/" + name
            if any(full == p or full.startswith(p + "/") for p in SKIPPED_PATHS):
                return
            if isinstance(obj, h5py.Dataset):
                h = hashlib.sha256(f"{obj.dtype.str}{obj.shape}".encode())
                h.update(np.ascontiguousarray(obj[()]).tobytes())
                out[full] = h.hexdigest()
        f.visititems(visit)
        for name, value in f.attrs.items():
            if name not in SKIPPED_ROOT_ATTRS:
                out["/@" + name] = attr_value(value)
        if "summary" in f:
            for name, value in f["summary"].attrs.items():
                if name not in SCALE_ATTRS:
                    out["/summary@" + name] = attr_value(value)
    return out


def run(hxsim, config, scratch):
    """Runs config on one rank into scratch and returns the output's digests."""
    name = os.path.splitext(os.path.basename(config))[0]
    output = os.path.join(scratch, name + ".h5")
    if os.path.exists(output):
        os.remove(output)
    result = subprocess.run([hxsim, "run", config, "-o", output, "--progress", "off"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if result.returncode != 0:
        sys.exit(f"golden: {name}: hxsim exited with {result.returncode}:\n{result.stdout}")
    return digests(output)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["check", "update"])
    parser.add_argument("hxsim")
    parser.add_argument("config_dir")
    parser.add_argument("scratch")
    parser.add_argument("names", nargs="*", help="configs (default: every one in golden.json)")
    parser.add_argument("--reason", help="update: why the results changed (required)")
    args = parser.parse_intermixed_args()
    golden = json.load(open(GOLDEN)) if os.path.exists(GOLDEN) else {"changes": [], "runs": {}}
    names = args.names or sorted(golden["runs"])
    if not names:
        sys.exit("golden: no configs named and none recorded")
    os.makedirs(args.scratch, exist_ok=True)

    if args.mode == "update":
        if not args.reason:
            sys.exit("golden: update needs --reason")
        for name in names:
            golden["runs"][name] = run(args.hxsim, os.path.join(args.config_dir, name + ".toml"),
                                       args.scratch)
        golden["changes"].append({"configs": names, "reason": args.reason})
        with open(GOLDEN, "w") as f:
            json.dump(golden, f, indent=1, sort_keys=True)
            f.write("\n")
        print(f"golden: recorded {len(names)} configs")
        return 0

    failed = 0
    for name in names:
        want = golden["runs"].get(name)
        if want is None:
            print(f"FAIL {name}: no golden record (record one with update --reason)")
            failed += 1
            continue
        got = run(args.hxsim, os.path.join(args.config_dir, name + ".toml"), args.scratch)
        diffs = sorted(k for k in set(want) | set(got) if want.get(k) != got.get(k))
        if diffs:
            failed += 1
            print(f"FAIL {name}: {len(diffs)} differences")
            for k in diffs[:20]:
                print(f"  {k}: golden {want.get(k)!r}, now {got.get(k)!r}")
        else:
            print(f"PASS {name} ({len(want)} datasets and attributes)")
    print(f"{len(names) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
