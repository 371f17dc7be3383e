#!/usr/bin/python3
"""Differential random testing of hxsim (docs/VALIDATION.md, "Random fault schedules on several
ranks" and "Random parameters, LLM iterations and traces on several ranks"). Each case draws a
random input, runs it in two ways that must agree, and compares what they give.

    scripts/fuzz.py MODE [--seed S] [--cases N] [--hxsim PATH] [--out DIR] [--timeout SEC]

Modes: what a case draws, and what must agree.
  params    2-6 keys of [router], [traffic] and the topology's section at random valid values
            (choices, flags, numbers and times at 1/4 to 3 times their default, within range)
            on the tests/determinism network configs, at either fidelity, cut at 0.4-3 us. One
            rank against 2 or 3 with a random partitioner: identical outputs (h5compare).
  faults    random fault schedules on the same configs: fails, repairs and reconfigurations of
            routers, endpoints, ports, levels and picks at random or rounded times, sometimes a
            random process and time-series bins. One rank against 2 or 3, a third of the cases
            as a restart from a random checkpoint of a 1- or 2-rank run: identical outputs.
  llm       random LLM iterations (presets cut small, TP/CP/EP/DP/PP within 64 chips, schedule,
            overlap, recompute and algorithm keys) on small networks, the four papers'
            architectures among them, at either fidelity. One rank against 2 or 3 (identical
            outputs, every program complete), and the other fidelity must complete too; an ok
            line gives the iteration time at flow level over packet level.
  fold      flow level: a random all-to-all (direct, pairwise, two-stage) on the determinism
            configs, or a random MoE iteration on a fat tree. sim.fold = "auto" on 1-3 ranks
            against "off" on one: identical outputs (folding never changes a result).
  deadlock  random routings, packet and buffer sizes, VCs, router architectures, patterns and
            loads, and failed links: a run the watchdog stops as a deadlock must be one that
            `hxsim verify` finds can deadlock.

Every case ends ok, refused (exit 2 with "hxsim: error:": input hxsim rejects by name), timeout,
or BAD; a BAD case's files and command lines stay in DIR/bad-<case> (default DIR: results/fuzz).
The exit code is 1 when any case is BAD. The seed decides every draw, so a case is reproduced by
its mode, seed and index (--first).
"""
import argparse
import glob
import os
import random
import re
import shutil
import signal
import subprocess
import sys

import h5py

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DETERMINISM = os.path.join(ROOT, "tests", "determinism")
H5COMPARE = os.path.join(ROOT, "scripts", "h5compare.py")
MPIRUN = os.path.join(ROOT, "scripts", "mpirun.sh")
PARTITIONERS = ["group", "round_robin", "metis"]


def determinism_configs(leave_out):
    return [f for f in sorted(glob.glob(os.path.join(DETERMINISM, "*.toml")))
            if not any(k in os.path.basename(f) for k in leave_out)]


def sets(settings):
    """{key: value} as hxsim's --set arguments."""
    return [a for k, v in settings.items() for a in ("--set", f"{k}={v}")]


class Case:
    """One case's directory, runs and verdict."""

    def __init__(self, ctx, index):
        self.ctx, self.index = ctx, index
        self.dir = os.path.join(ctx.out, "work")
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        self.commands = []
        self.stdout = ""  # of the last differential()'s two runs

    def path(self, name):
        return os.path.join(self.dir, name)

    def run(self, args, ranks=1, timeout=None):
        """(exit code or "timeout", stdout, stderr) of hxsim ARGS on RANKS ranks."""
        cmd = [self.ctx.hxsim] + args
        if ranks > 1:
            cmd = ["bash", MPIRUN, "-n", str(ranks)] + cmd
        self.commands.append(" ".join(cmd))
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             stdin=subprocess.DEVNULL, text=True, errors="replace",
                             start_new_session=True)
        try:
            out, err = p.communicate(timeout=timeout or self.ctx.timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)  # mpirun's ranks too
            p.communicate()
            return "timeout", "", ""
        return p.returncode, out, err

    def same(self, a, b, ignore_attrs=()):
        """Whether two outputs hold the same data (the resolved config may differ)."""
        cmd = ["/usr/bin/python3", H5COMPARE, self.path(a), self.path(b), "--ignore", "/config",
               "--ignore-attr", "config_hash"]
        for attr in ignore_attrs:
            cmd += ["--ignore-attr", attr]
        p = subprocess.run(cmd, capture_output=True, text=True)
        return p.returncode == 0, (p.stdout[-600:] + p.stderr[-300:]).strip()

    def bad(self, why):
        """Keeps the case's files and commands; returns the verdict."""
        kept = os.path.join(self.ctx.out, f"bad-{self.index}")
        shutil.rmtree(kept, ignore_errors=True)
        shutil.copytree(self.dir, kept)
        with open(os.path.join(kept, "commands"), "w") as f:
            f.write("\n".join(self.commands) + "\n")
        return "BAD", why

    def first_verdict(self, rc, err, what):
        """The verdict a first run settles (refused, timeout, BAD), or None when a run that ends
        normally or in a deadlock (exit 4) leaves the case to go on."""
        if rc == 2 and "hxsim: error:" in err:
            return "refused", err.strip().splitlines()[-1][:200]
        if rc == "timeout":
            return "timeout", ""
        if rc not in (0, 4):
            return self.bad(f"exit {rc} {what}: {err[-400:]}")
        return None

    def differential(self, first, second, ranks, ignore_attrs=(), deadlock_ok=False):
        """Runs FIRST on one rank and SECOND (hxsim arguments after `run`) on RANKS ranks,
        writing a.h5 and b.h5: the same exit code and, on success, the same data."""
        rc, out, err = self.run(["run"] + first + ["-o", self.path("a.h5"), "--progress", "off"])
        verdict = self.first_verdict(rc, err, "on one rank")
        if verdict is None and rc == 4 and not deadlock_ok:
            verdict = self.bad(f"a deadlock on one rank: {err[-400:]}")
        if verdict is not None:
            return verdict
        rc2, out2, err2 = self.run(["run"] + second + ["-o", self.path("b.h5"), "--progress", "off"],
                                   ranks)
        if rc2 == "timeout":
            return "timeout", "the second run"
        if rc2 != rc:
            return self.bad(f"exit {rc} on one rank, {rc2} on {ranks}: {err2[-400:]}")
        self.stdout = out + out2
        if rc == 4:
            return "ok", "a deadlock on both"
        same, diff = self.same("a.h5", "b.h5", ignore_attrs)
        if not same:
            return self.bad("outputs differ: " + diff)
        return "ok", ""


# --- params -------------------------------------------------------------------------------

SKIPPED_KEYS = {"watchdog", "histogram_bins", "source_queue_limit", "drain_limit", "warmup",
                "measure", "stop_unstable", "flit_size"}


def model_of(config):
    return re.search(r'model = "([a-z_]+)"', open(config).read()).group(1)


def parameters(ctx, model):
    """[(section, name, type, default, low, high)] of every key `hxsim list MODEL` shows."""
    if model not in ctx.memo:
        out = subprocess.run([ctx.hxsim, "list", model], capture_output=True, text=True).stdout
        found, section = [], None
        for line in out.splitlines():
            m = re.match(r"^  \[([a-z_]+)\]", line)
            if m:
                section = m.group(1)
                continue
            m = re.match(r"^    ([a-z_0-9]+) \(([^)]*)\) = (.*?)(  range \[([^,]+), ([^\]]+)\])?$",
                         line)
            if m:
                low, high = (float(m.group(5)), float(m.group(6))) if m.group(4) else (None, None)
                found.append((section, m.group(1), m.group(2), m.group(3).strip(), low, high))
        ctx.memo[model] = found
    return ctx.memo[model]


def random_value(rng, kind, default, low, high):
    f = rng.choice([0.25, 0.5, 1, 2, 3])
    if kind.startswith("choice:"):
        return '"%s"' % rng.choice(kind[len("choice:"):].split())
    if kind == "bool":
        return rng.choice(["true", "false"])
    if kind in ("int", "float"):
        d = float(default)
        v = d * f if d else rng.choice([1, 2, 3, 4] if kind == "int" else [0.1, 0.5, 1])
        if low is not None:
            v = min(max(v, low), high)
        return str(int(round(v))) if kind == "int" else repr(round(v, 4))
    if kind in ("time", "bytes", "bandwidth"):
        m = re.match(r"([0-9.]+)([a-zA-Z]*)", default)
        if m and float(m.group(1)) > 0:
            return '"%s%s"' % (max(1, int(float(m.group(1)) * f)), m.group(2))
    return None


def case_params(case, rng):
    config = rng.choice(determinism_configs(
        ("hbd_", "phold", "workload_", "flow_fold", "flow_alltoall", "collective")))
    fidelity = rng.choice(["packet", "packet", "flow"])
    chosen = {}
    model = model_of(config)
    found = [p for p in parameters(case.ctx, model)
             if p[0] in ("router", "traffic", model) and p[1] not in SKIPPED_KEYS]
    for section, name, kind, default, low, high in rng.sample(found, min(len(found),
                                                                         rng.randint(2, 6))):
        v = random_value(rng, kind, default, low, high)
        if v is not None:
            chosen[f"{section}.{name}"] = v
    if fidelity == "flow":
        chosen["traffic.load"] = rng.choice([0.02, 0.05, 0.1])
    end = rng.choice([400, 800]) if fidelity == "flow" else rng.choice([1000, 2000, 3000])
    chosen.update({"sim.fidelity": fidelity, "sim.end_time": f"{end}ns",
                   "traffic.warmup": "200cycles", "traffic.measure": f"{end // 2}cycles"})
    ranks, partitioner = rng.choice([2, 3]), rng.choice(PARTITIONERS)
    tag = f"{os.path.basename(config)} {' '.join(sets(chosen)[1::2])} on {ranks} ({partitioner})"
    first = [config] + sets(chosen)
    return tag, case.differential(first, first + sets({"sim.partitioner": partitioner}), ranks,
                                  deadlock_ok=True)


# --- faults -------------------------------------------------------------------------------

def probe(case, config, element, action="fail", extra=""):
    """What `hxsim validate` says of one fault action: the names an element may take."""
    action_text = f'{{at="1ns",action="{action}",element="{element}"{extra}}}'
    return subprocess.run([case.ctx.hxsim, "validate", config, "--set",
                           f"faults.actions=[{action_text}]", "--set", "faults.random=[]"],
                          capture_output=True, text=True).stderr


def vocabulary(case, config):
    """The element names a topology offers, learnt from the messages refusing wrong ones."""
    key = ("faults", config)
    if key in case.ctx.memo:
        return case.ctx.memo[key]
    v = {"ports": {}, "levels": {}, "reconfigurable": []}
    v["routers"] = int(re.search(r"has (\d+) routers", probe(case, config, "router 999999")).group(1))
    v["endpoints"] = int(re.search(r"has (\d+) endpoints",
                                   probe(case, config, "endpoint 999999")).group(1))
    v["classes"] = re.search(r"this topology's are (.*)", probe(
        case, config, "99999999 random bogus links")).group(1).strip().split(", ")
    names = re.search(r"expected one of: (.*)", probe(case, config, "bogus 1")).group(1)
    for name in names.strip().split(", "):
        if name in ("router N", "endpoint N", "N random <class> links"):
            continue
        level = name[:-2]
        m = re.search(r"has (\d+) of them", probe(case, config, f"{level} 99999999"))
        if m:
            v["levels"][level] = int(m.group(1))
    for m in re.finditer(r"'([a-z-]+)' or '[a-z-]+ I' \(I < (\d+); configurations ([^)]*)\)",
                         probe(case, config, "bogus", "reconfigure", ',to="x"')):
        v["reconfigurable"].append((m.group(1), int(m.group(2)), m.group(3).split(", ")))
    case.ctx.memo[key] = v
    return v


def ports_of(case, config, v, router):
    if router not in v["ports"]:
        m = re.search(r"which has (\d+) ports", probe(case, config, f"router {router} port 99999"))
        v["ports"][router] = int(m.group(1)) if m else 1
    return v["ports"][router]


def fault_schedule(case, rng, config, end_ps):
    v = vocabulary(case, config)
    actions, failed, configured = [], set(), {}
    step = rng.choice([1, 1000, 100000, max(1, end_ps // 4)])
    times = sorted(rng.randint(0, end_ps) // step * step for _ in range(rng.randint(3, 14)))
    for t in times:
        if failed and rng.random() < 0.35:
            element = rng.choice(sorted(failed))
            failed.discard(element)
            actions.append((t, "repair", element, None))
            continue
        kind = rng.choice(["router", "endpoint", "port", "port", "level", "links", "pick",
                           "reconfigure", "reconfigure"])
        if kind == "router":
            element = f"router {rng.randrange(v['routers'])}"
        elif kind == "endpoint":
            element = f"endpoint {rng.randrange(v['endpoints'])}"
        elif kind == "port":
            r = rng.randrange(v["routers"])
            element = f"router {r} port {rng.randrange(ports_of(case, config, v, r))}"
            element += " out" if rng.random() < 0.3 else ""
        elif kind == "level" and v["levels"]:
            level = rng.choice(sorted(v["levels"]))
            element = f"{level} {rng.randrange(v['levels'][level])}"
        elif kind == "links":
            actions.append((t, "fail", f"{rng.randint(1, 4)} random {rng.choice(v['classes'])} "
                            "links", None))
            continue
        elif kind == "pick":
            unit = rng.choice(["routers", "endpoints"] + [level + "s" for level in v["levels"]])
            actions.append((t, "fail", f"1 random {unit}", None))
            continue
        elif kind == "reconfigure" and v["reconfigurable"]:
            name, instances, configurations = rng.choice(v["reconfigurable"])
            i = rng.choice([None] + list(range(instances)))
            element = name if i is None else f"{name} {i}"
            others = [c for c in configurations if c != configured.get(element, configurations[0])]
            if others and rng.random() < 0.8:
                to = rng.choice(others)
                configured[element] = to
                if i is None:
                    for j in range(instances):
                        configured[f"{name} {j}"] = to
                actions.append((t, "reconfigure", element, to))
            continue
        else:
            continue
        if element not in failed:
            failed.add(element)
            actions.append((t, "fail", element, None))
    text = ",".join(f'{{at="{t}ps",action="{a}",element="{e}"' + (f',to="{to}"' if to else "")
                    + "}" for t, a, e, to in actions)
    chosen = {"faults.actions": f"[{text}]"}
    if rng.random() < 0.5:
        element = rng.choice(["router", "endpoint", "link"] + sorted(v["levels"]) * 2)
        extra = f',link_class="{rng.choice(v["classes"])}"' if element == "link" else ""
        chosen["faults.random"] = (
            f'[{{element="{element}"{extra},mtbf="{rng.choice([2, 10, 50]) * end_ps}ps",'
            f'mttr="{rng.choice([0, end_ps // 10])}ps"}}]')
    return chosen


SLOW_AT_FLOW_LEVEL = ("uniform", "ugal", "faults", "adaptive", "torus_multi", "north",
                      "reconfigure", "switchless", "hammingmesh", "timeseries", "railx_dragonfly",
                      "bypass", "forwarding")
WORKLOADS = ("workload_", "flow_alltoall", "flow_fold", "railx_collective")


def case_faults(case, rng):
    config = rng.choice(determinism_configs(("hbd_", "phold", "unstable")))
    name = os.path.basename(config)
    fidelity = rng.choice(["packet", "flow"])
    if any(k in name for k in WORKLOADS):
        end = rng.choice([None, None, 5000, 20000, 100000])
    elif fidelity == "flow" and any(k in name for k in SLOW_AT_FLOW_LEVEL):
        end = rng.choice([300, 600, 1000])
    else:
        end = rng.choice([1000, 2000, 3000])
    end_ps = (end or 50000) * 1000
    chosen = {"sim.fidelity": fidelity}
    if end:
        chosen["sim.end_time"] = f"{end}ns"
    if rng.random() < 0.4:
        chosen["traffic.timeseries_bin"] = f"{rng.choice([10, 100, 333])}ns"
    chosen.update(fault_schedule(case, rng, config, end_ps))
    ranks, partitioner = rng.choice([2, 3]), rng.choice(PARTITIONERS)
    tag = f"{name} {' '.join(sets(chosen)[1::2])} on {ranks} ({partitioner})"
    first = [config] + sets(chosen)
    if rng.random() >= 0.35:
        return tag, case.differential(first, first + sets({"sim.partitioner": partitioner}), ranks,
                                      deadlock_ok=True)
    # A restart from a random checkpoint of a 1- or 2-rank run must give the whole run's output.
    every = max(1, end_ps // rng.choice([2, 3, 5])) if end else 2000000
    rc, out, err = case.run(["run"] + first + ["-o", case.path("c.h5"), "--progress", "off",
                                               "--checkpoint-every", f"{every}ps",
                                               "--checkpoint-keep", "100"], rng.choice([1, 2]))
    verdict = case.first_verdict(rc, err, "with checkpoints")
    if verdict is not None:
        return tag, verdict
    checkpoints = sorted(glob.glob(case.path("c.ckpt/ckpt-*")))
    if not checkpoints:
        return tag, ("ok", "no checkpoint to restart from")
    restart = rng.choice(checkpoints)
    tag += f", restarted from {os.path.basename(restart)}"
    rc2, out2, err2 = case.run(["run", "--restart", restart, "-o", case.path("b.h5"), "--progress",
                                "off", "--set", f"sim.partitioner={partitioner}"], ranks)
    if rc2 == "timeout":
        return tag, ("timeout", "the restart")
    if rc2 != rc:
        return tag, case.bad(f"exit {rc} uninterrupted, {rc2} restarted: {err2[-400:]}")
    if rc == 4:
        return tag, ("ok", "a deadlock on both")
    same, diff = case.same("c.h5", "b.h5")
    return tag, (("ok", "restarted") if same else case.bad("the restart differs: " + diff))


# --- llm ----------------------------------------------------------------------------------

NETWORKS = {
    "torus": '[sim]\nmodel = "torus"\n[torus]\nk = 4\nn = 3\n',
    "crossbar": '[sim]\nmodel = "crossbar"\n[crossbar]\nendpoints = 64\n',
    "dragonfly": '[sim]\nmodel = "dragonfly"\n[dragonfly]\np = 2\na = 4\nh = 2\nrouting = "%s"\n',
    "fat_tree": '[sim]\nmodel = "fat_tree"\n[fat_tree]\nk = 4\nn = 3\nrouting = "%s"\n',
    "rail_optimized": '[sim]\nmodel = "rail_optimized"\n[rail_optimized]\nnodes = 8\n'
                      'gpus_per_node = 8\nnodes_per_leaf = 4\nspines = 2\n',
    # The four architectures of the papers, 64 chips each.
    "railx_torus": '[sim]\nmodel = "railx"\n[railx]\nm = 2\nn = 2\nx = "torus:4"\n'
                   'y = "torus:4"\n',
    "railx_hyperx": '[sim]\nmodel = "railx"\n[railx]\nm = 2\nn = 4\nx = "hyperx:8"\n'
                    'y = "hyperx:2"\nrouting = "%s"\n',
    "switchless_dragonfly": '[sim]\nmodel = "switchless_dragonfly"\n[switchless_dragonfly]\n'
                            'n = 2\nm = 2\na = 1\nb = 2\nchip_mesh = 2\nrouting = "%s"\n',
    "infinitehbd": '[sim]\nmodel = "infinitehbd"\n[infinitehbd]\nnodes = 16\ngpus_per_node = 4\n'
                   'k = 2\ntp = 8\n',
    "rail_only": '[sim]\nmodel = "rail_only"\n[rail_only]\ngpus = 64\nhb_size = 8\n'
                 'hb = "nvswitch"\nhb_leaf_gpus = 4\nhb_spines = 2\nradix = 4\nforwarding = "%s"\n',
}
ROUTINGS = {"dragonfly": ["minimal", "valiant", "ugal_l"], "fat_tree": ["updown", "updown_adaptive"],
            "railx_hyperx": ["minimal", "adaptive"], "switchless_dragonfly": ["minimal", "valiant", "ugal"],
            "rail_only": ["hb_first", "rail_first", "alternate"]}
# Each group's algorithms as `hxsim list` gives them, and now and then one it refuses by name.
ALGORITHMS = {"tp": ["ring", "bidir_ring", "ring_2d", "direct"],
              "ep": ["direct", "pairwise", "binary_exchange"],
              "dp": ["ring", "bidir_ring", "ring_2d", "hierarchical", "direct"]}


def algorithm(rng, group):
    return '"%s"' % (rng.choice(ALGORITHMS[group]) if rng.random() < 0.97 else "hierarchical_2d")


def llm_config(rng):
    network = rng.choice(sorted(NETWORKS))
    text = NETWORKS[network]
    if "%s" in text:
        text = text % rng.choice(ROUTINGS[network])
    par, budget = {}, 64
    for k in rng.sample(["tp", "cp", "ep", "dp", "pp"], 5):
        par[k] = rng.choice([d for d in (1, 1, 2, 2, 4, 8) if d <= budget])
        budget //= par[k]
    lines = ["[workload]", 'kind = "llm"']
    if network == "torus" and rng.random() < 0.5:
        lines += ['mapping = "node_major"',
                  f'mapping_spec = "{rng.choice(["2x2x1", "2x1x1", "1x2x2", "4x1x1"])}"']
    heads = rng.choice([4, 8, 16])
    stages = rng.choice([1, 1, 2]) if par["pp"] >= 2 else 1
    micro_batches = par["pp"] * rng.randint(1, 2) if stages > 1 else rng.randint(1, 6)
    lines += ["[llm]", 'preset = "%s"' % rng.choice(["gpt3-175b", "llama3-70b-moe", "gpt-moe-1.1t",
                                                     "llama3.1-405b", "opt-175b", "palm-540b"]),
              f"virtual_stages = {stages}", f"layers = {par['pp'] * stages * rng.randint(1, 2)}",
              f"experts = {par['ep'] * rng.choice([1, 2])}", f"hidden = {rng.choice([64, 128, 256])}",
              f"ffn = {rng.choice([128, 256])}", f"heads = {heads}",
              f"kv_heads = {rng.choice([1, 2, heads])}", f"vocab = {rng.choice([512, 1000, 1024])}",
              f"seq = {rng.choice([32, 64, 128])}"]
    lines += [f"{k} = {v}" for k, v in par.items()]
    lines += [f"micro_batches = {micro_batches}",
              f"chip_flops = {rng.choice(['1e12', '2e12', '1e13'])}"]
    optional = {
        "schedule": lambda: '"%s"' % rng.choice(["1f1b", "gpipe"]),
        "cp_algorithm": lambda: '"%s"' % rng.choice(["exchange", "ring"]),
        "embedding": lambda: '"%s"' % rng.choice(["table4", "ends"]),
        "dp_overlap": lambda: rng.choice(["true", "false"]),
        "dp_bucket": lambda: '"%s"' % rng.choice(["0B", "16KiB", "64KiB", "1MiB"]),
        "recompute": lambda: '"%s"' % rng.choice(["none", "selective", "full"]),
        "tp_overlap": lambda: rng.choice(["true", "false"]),
        "optimizer_step": lambda: rng.choice(["true", "false"]),
        "expert_imbalance": lambda: rng.choice([0, 0.5, 0.9]),
        "tp_algorithm": lambda: algorithm(rng, "tp"),
        "ep_algorithm": lambda: algorithm(rng, "ep"),
        "dp_algorithm": lambda: algorithm(rng, "dp"),
        "gemm": lambda: '"%s"' % rng.choice(["flat", "roofline"]),
        "top_k": lambda: rng.choice([1, 2]),
        "micro_batch": lambda: rng.choice([1, 2]),
        "efficiency": lambda: rng.choice([0.5, 1]),
    }
    for k in rng.sample(sorted(optional), rng.randint(2, 9)):
        lines.append(f"{k} = {optional[k]()}")
    return network, text + "\n".join(lines) + "\n"


def case_llm(case, rng):
    network, text = llm_config(rng)
    config = case.path("config.toml")
    with open(config, "w") as f:
        f.write(text)
    fidelity = rng.choice(["packet", "flow"])
    ranks, partitioner = rng.choice([2, 3]), rng.choice(PARTITIONERS)
    tag = (f"{network} {fidelity} on {ranks} ({partitioner}): "
           + " ".join(l for l in text.splitlines() if " = " in l and not l.startswith("model")))
    first = [config, "--set", f"sim.fidelity={fidelity}"]
    verdict = case.differential(first, first + ["--set", f"sim.partitioner={partitioner}"], ranks)
    if verdict[0] != "ok":
        return tag, verdict
    if "NOT complete" in case.stdout:
        return tag, case.bad("a program never completed")
    other = "flow" if fidelity == "packet" else "packet"
    rc, out, err = case.run(["run", config, "--set", f"sim.fidelity={other}", "-o",
                             case.path("o.h5"), "--progress", "off"])
    if rc == "timeout":
        return tag, ("timeout", f"at {other} level")
    if rc != 0 or "NOT complete" in out:
        return tag, case.bad(f"at {other} level: exit {rc}, {err[-300:]}")
    ends = {}
    for name, level in (("a.h5", fidelity), ("o.h5", other)):
        with h5py.File(case.path(name), "r") as f:
            ends[level] = int(f["summary"].attrs["workload_end_ps"])
    return tag, ("ok", "flow/packet %.3f" % (ends["flow"] / ends["packet"]))


# --- fold ---------------------------------------------------------------------------------

ALL_TO_ALL_CONFIGS = ["torus_multipacket", "dragonfly_ugal", "fat_tree_adaptive",
                      "hammingmesh_fat_tree", "hyperx_adaptive", "infinitehbd_uniform",
                      "rail_only_forwarding", "railx_adaptive", "switchless_ugal", "mesh_unstable",
                      "flow_fold_alltoall", "flow_fold_llm"]


def case_fold(case, rng):
    if rng.random() < 0.5:
        name = rng.choice(ALL_TO_ALL_CONFIGS)
        algorithm = rng.choice(["direct", "pairwise", "hierarchical", "hierarchical"])
        chosen = {"workload.kind": '"collective"', "workload.collective": '"all_to_all"',
                  "workload.algorithm": f'"{algorithm}"', "traffic.flows": '"all"',
                  "workload.bytes": '"%dKiB"' % rng.choice([64, 256, 1024]),
                  "faults.actions": "[]", "workload.repeat": rng.choice([1, 2])}
        groups = rng.choice([None, "2:1", "4:1", "2:2", "4:2", "8:1"])
        if groups:
            chosen["workload.groups"] = f'"{groups}"'
        if algorithm == "hierarchical":
            chosen["workload.local"] = rng.choice([2, 4])
    else:
        name = "flow_fold_moe"
        while True:
            tp, ep, dp = rng.choice([1, 2, 4]), rng.choice([2, 4]), rng.choice([1, 2, 4])
            pp, cp = rng.choice([1, 2]), rng.choice([1, 1, 2])
            if tp * cp * ep * dp * pp == 32:
                break
        chosen = {"llm.tp": tp, "llm.ep": ep, "llm.dp": dp, "llm.pp": pp, "llm.cp": cp,
                  "llm.experts": rng.choice([4, 8]), "llm.top_k": rng.choice([1, 2]),
                  "llm.tp_algorithm": '"%s"' % rng.choice(["ring", "bidir_ring"]),
                  "llm.dp_algorithm": '"%s"' % rng.choice(["ring", "bidir_ring"]),
                  "llm.micro_batches": rng.choice([1, 2, 3]),
                  "rail_optimized.spines": rng.choice([1, 2, 4])}
        if rng.random() < 0.3:
            chosen["llm.moe_layer_ratio"] = 0.5
        if rng.random() < 0.2:
            chosen["workload.mapping"] = '"node_major"'
    chosen["sim.fidelity"] = '"flow"'
    config = os.path.join(DETERMINISM, name + ".toml")
    ranks = rng.choice([1, 2, 3])
    tag = f"{name} {' '.join(sets(chosen)[1::2])}, folded on {ranks}"
    verdict = case.differential([config] + sets(dict(chosen, **{"sim.fold": '"off"'})),
                                [config] + sets(chosen), ranks,
                                ignore_attrs=("/summary/folded_members", "/summary/events"))
    if verdict[0] == "ok":
        folded = re.search(r"^  folded: (.*)", case.stdout, re.M)
        verdict = ("ok", "folded: " + folded.group(1)[:60] if folded else "not folded")
    return tag, verdict


# --- deadlock -----------------------------------------------------------------------------

DEADLOCK_CONFIGS = ["torus_multipacket", "dragonfly_ugal", "dragonfly_ugal_ideal",
                    "fat_tree_adaptive", "flow_uniform", "hammingmesh_fat_tree", "hyperx_adaptive",
                    "infinitehbd_uniform", "rail_only_forwarding", "railx_adaptive",
                    "railx_dragonfly", "railx_north_last", "switchless_ugal", "mesh_unstable"]
PATTERNS = ("uniform bit_complement bit_reverse bit_shuffle transpose tornado neighbor "
            "permutation hotspot group_shift ring bidirectional_ring").split()


def routing_choices(case, config):
    """{key: choices} of the model's routing keys, but the one shipped to deadlock."""
    model = model_of(config)
    return {f"{section}.{name}": [c for c in kind[len("choice: "):].split()
                                 if c != "dor_no_dateline"]
            for section, name, kind, _, _, _ in parameters(case.ctx, model)
            if section == model and "rout" in name and kind.startswith("choice: ")}


def case_deadlock(case, rng):
    config = os.path.join(DETERMINISM, rng.choice(DEADLOCK_CONFIGS) + ".toml")
    chosen = {}
    for key, choices in routing_choices(case, config).items():
        if rng.random() < 0.7:
            chosen[key] = '"%s"' % rng.choice(choices)
    flits = rng.choice([1, 1, 2, 4, 4, 8, 16])
    chosen["traffic.packet_flits"] = flits
    chosen["router.buffer_flits"] = rng.choice([flits, flits, flits + 1, 2 * flits,
                                                max(1, flits // 2), 1, 3, 8])
    if rng.random() < 0.4:
        chosen["router.vcs"] = rng.choice([0, 1, 2, 3, 4, 5, 8])
    if rng.random() < 0.4:
        chosen["router.arch"] = '"%s"' % rng.choice(["input_queued", "ideal"])
    if rng.random() < 0.3:
        chosen["router.pipeline_delay"] = '"%dcycles"' % rng.choice([0, 1, 2, 5])
    if rng.random() < 0.3:
        chosen["traffic.message_packets"] = rng.choice([1, 2, 5, 16])
    chosen.update({"traffic.pattern": '"%s"' % rng.choice(PATTERNS), "traffic.bit_fit": '"general"',
                   "traffic.load": rng.choice([0.3, 0.5, 0.8, 1.0, 2.0]),
                   "traffic.warmup": '"200cycles"',
                   "traffic.measure": '"%dcycles"' % rng.choice([1000, 3000]),
                   "router.watchdog": '"3000cycles"', "traffic.flows": '"none"'})
    actions = []
    classes = vocabulary(case, config)["classes"]
    if rng.random() < 0.7:
        for _ in range(rng.randint(1, 4)):
            t = rng.choice([0, 0, rng.randint(1, 3000)])
            element = (f"{rng.randint(1, 3)} random {rng.choice(classes)} links"
                       if rng.random() < 0.8 else "1 random routers")
            actions.append(f'{{at="{t}ns",action="fail",element="{element}"}}')
    chosen["faults.actions"] = "[" + ",".join(actions) + "]"
    chosen["faults.random"] = "[]"
    tag = f"{os.path.basename(config)} {' '.join(sets(chosen)[1::2])}"
    args = [config] + sets(chosen)
    rc, out, err = case.run(["run"] + args + ["-o", case.path("a.h5"), "--progress", "off"],
                            timeout=180)
    verdict = case.first_verdict(rc, err, "on one rank")
    if verdict is not None:
        return tag, verdict
    if rc == 0:
        return tag, ("ok", "")
    verify_rc, _, _ = case.run(["verify"] + args + ["--progress", "off"], timeout=300)
    if verify_rc == 0:
        return tag, case.bad("a deadlock at run time, but `hxsim verify` finds the routing "
                             "deadlock-free: " + err.strip()[:300])
    return tag, ("ok", f"a deadlock, and verify exits {verify_rc}")


MODES = {"params": case_params, "faults": case_faults, "llm": case_llm, "fold": case_fold,
         "deadlock": case_deadlock}


class Context:
    def __init__(self, hxsim, out, timeout):
        self.hxsim, self.out, self.timeout = hxsim, out, timeout
        self.memo = {}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("mode", choices=sorted(MODES))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cases", type=int, default=20)
    parser.add_argument("--first", type=int, default=0, help="index of the first case")
    parser.add_argument("--hxsim", default=os.path.join(ROOT, "build", "src", "app", "hxsim"))
    parser.add_argument("--out", default=os.path.join(ROOT, "results", "fuzz"))
    parser.add_argument("--timeout", type=float, default=120, help="seconds per run")
    a = parser.parse_args()
    if not os.access(a.hxsim, os.X_OK):
        sys.exit(f"fuzz.py: no hxsim at {a.hxsim} (build it, or give --hxsim)")
    ctx = Context(os.path.abspath(a.hxsim), os.path.abspath(a.out), a.timeout)
    os.makedirs(ctx.out, exist_ok=True)
    tally = {}
    for index in range(a.first, a.first + a.cases):
        # Each case draws from its own stream, so a case is reproduced by its index alone.
        rng = random.Random(f"{a.mode}/{a.seed}/{index}")
        case = Case(ctx, index)
        try:
            tag, (verdict, detail) = MODES[a.mode](case, rng)
        except (AttributeError, ValueError, IndexError) as e:  # a probe's message not understood
            tag, (verdict, detail) = "", case.bad(f"the case could not be drawn: {e!r}")
        tally[verdict] = tally.get(verdict, 0) + 1
        print(f"{index} {verdict} {tag}" + (f" | {detail}" if detail else ""), flush=True)
    shutil.rmtree(os.path.join(ctx.out, "work"), ignore_errors=True)
    print(f"fuzz.py {a.mode}, seed {a.seed}: " + ", ".join(f"{n} {v}" for v, n in
                                                          sorted(tally.items())))
    sys.exit(1 if tally.get("BAD") else 0)


if __name__ == "__main__":
    main()
