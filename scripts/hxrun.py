"""Runs hxsim for the figure scripts: one command, one HDF5 file, written atomically.

    import hxrun  # from a script in scripts/ (its own directory is on sys.path)
    hxrun.run_to_file(hxsim, ["sweep", config, "--start", "0.1"], path, {"router.vcs": 6},
                      ranks=2, label="curve", wall_attr="my_script_wall_s")

The run writes PATH.tmp and is renamed to PATH only when it succeeded, so a file that exists is a
finished run (the scripts skip those). With wall_attr, the wall time of the run is stored as that
attribute of /summary.
"""
import os
import subprocess
import time

import h5py

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_to_file(hxsim, arguments, path, sets, ranks=1, label="", wall_attr=None, extra=()):
    """hxsim ARGUMENTS -o PATH --set k=v (sets, then the "k=v" items of extra) on `ranks` ranks."""
    command = [hxsim] + list(arguments) + ["-o", path + ".tmp"]
    for key, value in sets.items():
        command += ["--set", f"{key}={value}"]
    for item in extra:
        command += ["--set", item]
    if ranks > 1:
        command = [os.path.join(ROOT, "scripts", "mpirun.sh"), "-n", str(ranks)] + command
    print(f"{label}: {' '.join(command)}", flush=True)
    began = time.monotonic()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    if wall_attr:
        with h5py.File(path + ".tmp", "a") as f:
            f["summary"].attrs[wall_attr] = time.monotonic() - began
    os.replace(path + ".tmp", path)
    return path
