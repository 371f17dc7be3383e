#!/usr/bin/python3
"""Run configs with edge values of every parameter and report the runs that go wrong.

For each CONFIG, every parameter of its sections (those in the file, [sim], [router], the model's
own and, for synthetic traffic, [traffic]) is set in turn to edge values of its type: the ends
of its range, 0, -1 and in-range odd values for numbers, every choice and a bogus one, zero,
negative and huge times, sizes and bandwidths, values with no unit. Each value is one run of
`hxsim run CONFIG --set KEY=VALUE`, cut at --end, under an address-space limit (--memory), so a
run that cannot fit fails to allocate instead of waking the OOM killer. With --ranks N each run
is N ranks through scripts/mpirun.sh (e.g. with --set sim.partitioner=metis), so paths that only
several ranks take are swept too.

A run goes wrong when it:
  - exits other than 0 (ran), 2 (refused the input), 4 (deadlock) or 6 (out of memory);
  - prints "internal error", or a C++ "terminate called";
  - exits 2 without a word from hxsim on stderr, or leaves its output file behind;
  - exceeds --timeout (some are only slow: a model grown to its largest size).
Those are printed, one per line: exit code (T for a timeout), config, KEY=VALUE, the last line
hxsim wrote on stderr (else the last line there). docs/VALIDATION.md ("Edge values of every parameter") has the current results.

  scripts/param_sweep.py [--hxsim H] [--ranks N] [--end T] [--set K=V ...] [--only KEY ...]
                         CONFIG...
"""
import argparse
import concurrent.futures
import os
import re
import signal
import subprocess
import sys
import tempfile
import tomllib

NETWORK_MODELS = {'mesh', 'torus', 'hyperx', 'crossbar', 'dragonfly', 'fat_tree', 'rail_optimized',
                  'switchless_dragonfly', 'railx', 'hammingmesh', 'infinitehbd', 'rail_only'}
ACCEPTED = {0, 2, 4, 6}


def parameters(hxsim):
    """{model: {section: [(name, type, lo, hi)]}} from `hxsim list`; '_run' holds [sim]."""
    listing = subprocess.run([hxsim, 'list'], capture_output=True, text=True, check=True).stdout
    params, model, section = {}, None, None
    for line in listing.splitlines():
        if line.startswith('run parameters'):
            model = '_run'
            params[model] = {}
        elif m := re.match(r'^model (\w+):', line):
            model = m.group(1)
            params[model] = {}
        elif m := re.match(r'^  \[(\w+)\]', line):
            section = m.group(1)
            params[model][section] = []
        elif m := re.match(r'^    (\w+) \(([^)]*)\) = .*?(?:  range \[([^,]+), ([^\]]+)\])?$',
                           line):
            params[model][section].append(m.groups())
    return params


def edge_values(kind, lo, hi):
    if kind.startswith('choice:'):
        return kind[len('choice:'):].split() + ['bogus']
    if kind == 'int':
        values = ['0', '-1', lo, hi, '3', '7']
        if hi and float(hi) > 1e6:
            values.append('1000000')
        return list(dict.fromkeys(v for v in values if v))
    if kind == 'float':
        return list(dict.fromkeys(['0', '-1', 'nan', 'inf', lo, hi, '1e300']))
    if kind == 'time':
        return ['0ps', '1ps', '-1ns', '1e6s', '5', '0.5cycles', '3cycles']
    if kind == 'bytes':
        return ['0B', '1B', '3B', '1TiB', '-1B', '7']
    if kind == 'bandwidth':
        return ['0bps', '1bps', '1Pbps', '-1Gbps']
    if kind == 'bool':
        return ['true', 'false', 'maybe']
    if kind == 'string':
        return ['', 'bogus', '0', '1:1', 'x,y']
    return []  # tables: left to the tests


def settings(params, config, only):
    """Every KEY=VALUE to try on `config` (only keys starting with one of `only`, if any)."""
    with open(config, 'rb') as f:
        cfg = tomllib.load(f)
    model = cfg.get('sim', {}).get('model', 'phold')
    sections = set(cfg) | {model, 'sim', 'router'}
    if model in NETWORK_MODELS and cfg.get('workload', {}).get('kind', 'synthetic') == 'synthetic':
        sections.add('traffic')
    known = dict(params['_run'])
    known.update(params.get(model, {}))
    for section in sorted(sections):
        for name, kind, lo, hi in known.get(section, []):
            key = f'{section}.{name}'
            if key == 'sim.model' or (only and not any(key.startswith(o) for o in only)):
                continue
            for value in edge_values(kind, lo, hi):
                yield f'{key}={value}'


MPIRUN = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'mpirun.sh')


def run(args, scratch, config, setting, index):
    output = os.path.join(scratch, f'{index}.h5')
    cmd = [args.hxsim, 'run', config, '--progress', 'off', '-o', output, '--set', setting]
    if args.ranks > 1:
        cmd = ['bash', MPIRUN, '-n', str(args.ranks)] + cmd
    if not setting.startswith('sim.end_time='):
        cmd += ['--set', f'sim.end_time={args.end}']
    for extra in args.set:
        cmd += ['--set', extra]
    limited = ['bash', '-c', f'ulimit -v {args.memory * 1024 * 1024} && exec "$@"', '_'] + cmd
    # In a session of its own, so that a timeout can end it all: SIGTERM first, which mpirun
    # passes on to its ranks (they are not in its process group), then SIGKILL.
    p = subprocess.Popen(limited, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    try:
        _, err = p.communicate(timeout=args.timeout)
        code = p.returncode
        # Under mpirun, the launcher's own lines come after hxsim's.
        said = [line for line in err.strip().splitlines() if line.startswith('hxsim')]
        last = (said or err.strip().splitlines() or [''])[-1]
        wrong = (code not in ACCEPTED or 'internal error' in err or 'terminate called' in err
                 or (code == 2 and not said))
        if code != 0 and os.path.exists(output):
            wrong, last = True, 'output left behind: ' + last
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGTERM)
        try:
            p.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
        code, wrong, last = 'T', True, 'timeout'
    if os.path.exists(output):
        os.remove(output)
    return f'{code}\t{config}\t{setting}\t{last[:300]}' if wrong else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('configs', nargs='+', metavar='CONFIG')
    parser.add_argument('--hxsim', default='build/src/app/hxsim')
    parser.add_argument('--end', default='300ns', help='sim.end_time of every run (default 300ns)')
    parser.add_argument('--set', action='append', default=[], metavar='K=V',
                        help='also set this in every run (e.g. sim.fidelity=flow)')
    parser.add_argument('--only', action='append', default=[], metavar='KEY',
                        help='only keys that start with this (e.g. router. or mesh.k)')
    parser.add_argument('--ranks', type=int, default=1,
                        help='MPI ranks per run, through scripts/mpirun.sh (default 1)')
    parser.add_argument('--jobs', type=int,
                        help='runs at once (default: the cores over the ranks, at least 1)')
    parser.add_argument('--timeout', type=float, default=15, help='seconds per run (default 15)')
    parser.add_argument('--memory', type=int, default=6, help='GiB of address space per run')
    args = parser.parse_args()
    if args.jobs is None:
        args.jobs = max(1, (os.cpu_count() or 1) // args.ranks)
    params = parameters(args.hxsim)
    jobs = [(c, s) for c in args.configs for s in settings(params, c, args.only)]
    print(f'{len(jobs)} runs', file=sys.stderr)
    wrong = 0
    with tempfile.TemporaryDirectory() as scratch, \
            concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for line in pool.map(lambda j: run(args, scratch, j[1][0], j[1][1], j[0]),
                             enumerate(jobs)):
            if line:
                wrong += 1
                print(line, flush=True)
    print(f'{wrong} of {len(jobs)} runs went wrong', file=sys.stderr)
    return 1 if wrong else 0


if __name__ == '__main__':
    sys.exit(main())
