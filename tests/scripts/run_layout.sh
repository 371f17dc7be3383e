#!/usr/bin/env bash
# The topology pictures (scripts/hxanalysis_layout.py on /layout) of every shipped architecture,
# on the small determinism configs: the groups each family draws (W-groups, RailX nodes,
# InfiniteHBD rings, rail-only domains and planes, Dragonfly groups, fat-tree pods), which link
# classes stay inside a group and which join two, what the overview and group panels draw (read
# back from the matplotlib artists against the file's /links), drops and down links under
# faults, and /layout the same at flow level and on 2 ranks.
# Usage: run_layout.sh HXSIM MPIRUN_SH HXANALYSIS SCRATCH_DIR
set -euo pipefail
hxsim=$1 mpirun_sh=$2 analysis=$3 scratch=$4
configs=$(cd "$(dirname "$0")/../determinism" && pwd)
rm -rf "$scratch" && mkdir -p "$scratch"
short=(--progress off --set traffic.warmup=200cycles --set traffic.measure=600cycles
  --set traffic.flows=none)
for c in switchless_ugal railx_adaptive infinitehbd_uniform rail_only_forwarding fat_tree_adaptive \
  dragonfly_faults; do
  "$hxsim" run "$configs/$c.toml" -o "$scratch/$c.h5" "${short[@]}" >"$scratch/$c.txt"
  /usr/bin/python3 "$analysis" layout "$scratch/$c.h5" -o "$scratch/$c.png"
done
"$hxsim" run "$configs/railx_adaptive.toml" -o "$scratch/railx_flow.h5" "${short[@]}" \
  --set sim.fidelity=flow >/dev/null
bash "$mpirun_sh" -n 2 "$hxsim" run "$configs/switchless_ugal.toml" -o "$scratch/sldf_2.h5" \
  "${short[@]}" >/dev/null
/usr/bin/python3 "$analysis" layout "$scratch/dragonfly_faults.h5" -o "$scratch/group3.png" --group 3
if /usr/bin/python3 "$analysis" layout "$scratch/dragonfly_faults.h5" -o "$scratch/bad.png" \
  --group 99 2>"$scratch/bad.txt"; then
  echo "layout --group 99 was accepted" >&2
  exit 1
fi
grep -q "^hxanalysis.py: error: .*no picture group 99" "$scratch/bad.txt"

/usr/bin/python3 - "$analysis" "$scratch" <<'PY'
import os
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(sys.argv[1]))
import hxanalysis as hx  # noqa: E402
import matplotlib  # noqa: E402
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

scratch = sys.argv[2]
path = lambda name: os.path.join(scratch, name + ".h5")  # noqa: E731
# Per run: the picture group's name, the groups, and the link classes inside a group / between.
expected = {
    # n=2 m=2 a=1 b=2: k=4, h=3, g = 2*3+1 = 7 W-groups of two C-groups of 2x2 chiplets.
    "switchless_ugal": ("wgroup", 7, {"endpoint", "mesh", "onchip", "local"}, {"global"}),
    "railx_adaptive": ("node", 5 * 3, {"endpoint", "mesh"}, {"xrail", "yrail"}),
    # 12 nodes, 3 and 7 failed, TP8 = 2 nodes: 5 rings of two healthy nodes and the failed
    # nodes' loops, then the DCN; every ring hop stays in its ring.
    "infinitehbd_uniform": ("ring", 5 + 2 + 1, {"endpoint", "intra", "optical"}, {"dcn"}),
    # 8 domains of 8 GPUs and a plane per rail; DCN switches of a plane are linked in it.
    "rail_only_forwarding": ("domain or plane", 8 + 8, {"endpoint", "hb", "rail"}, {"nic"}),
    # k=4 n=3: 4 pods and the top level.
    "fat_tree_adaptive": ("pod", 4 + 1, {"terminal", "level1"}, {"level2"}),
    # p=2 a=4 h=2: g = a h + 1 = 9 groups.
    "dragonfly_faults": ("group", 9, {"terminal", "local"}, {"global"}),
}
for run, (name, count, inside, between) in expected.items():
    f = h5py.File(path(run), "r")
    lay, links = hx.layout(path(run)), hx.group_links(path(run))
    assert hx.summary(path(run))["layout_group"] == name, run
    assert len(lay) == f["summary"].attrs["components"] and lay.index.name == "component", run
    assert sorted(lay["group"].unique()) == list(range(count)), (run, lay["group"].nunique())
    assert (lay.groupby("group")[["group_x", "group_y"]].nunique() == 1).all().all(), run
    assert not lay.duplicated(["group", "x", "y"]).any(), run
    by_class = links.groupby("class", observed=True)["internal"].agg(["all", "any"])
    assert set(by_class.index[by_class["all"]]) == inside, (run, by_class)
    assert set(by_class.index[~by_class["any"]]) == between, (run, by_class)
    # The overview: one mark per group, one line per linked pair of groups, each the mean of
    # the pair's links; a group's colour the mean of its internal links.
    src = lay["group"].to_numpy()[f["links/src_component"][()]]
    dst = lay["group"].to_numpy()[f["links/dst_component"][()]]
    util = f["links/utilisation"][()]
    pairs = {}
    for a, b, u in zip(np.minimum(src, dst), np.maximum(src, dst), util):
        if a != b:
            pairs.setdefault((a, b), []).append(u)
    fig, axes = plt.subplots(1, 2)
    hx.plot_overview(path(run), axes[0])
    lines, marks = axes[0].collections[0], axes[0].collections[1]
    assert len(lines.get_segments()) == len(pairs) and len(marks.get_offsets()) == count, run
    ends = [np.concatenate([s[0], s[-1]]) for s in lines.get_segments()]
    drawn = dict(zip(map(tuple, np.round(ends, 9)), lines.get_array()))
    groups, pair_table = hx.overview(path(run))
    for (a, b), values in pairs.items():
        end = np.round(np.concatenate([groups.loc[a, ["group_x", "group_y"]],
                                       groups.loc[b, ["group_x", "group_y"]]]), 9)
        assert np.isclose(drawn[tuple(end)], np.mean(values)), (run, a, b)
    for g in range(count):
        own = util[(src == g) & (dst == g)]
        assert np.isclose(groups.loc[g, "utilisation"], own.mean() if len(own) else 0), (run, g)
    # The group panel: the hottest group, one line per linked pair of its components, coloured
    # by the busier direction.
    hot = hx.hottest_group(path(run))
    hx.plot_group(path(run), axes[1])
    mine = (src == hot) & (dst == hot)
    a = np.minimum(f["links/src_component"][()], f["links/dst_component"][()])[mine]
    b = np.maximum(f["links/src_component"][()], f["links/dst_component"][()])[mine]
    busiest = {}
    for x, y, u in zip(a, b, util[mine]):
        busiest[(x, y)] = max(busiest.get((x, y), 0), u)
    panel = axes[1].collections[0]
    assert len(panel.get_segments()) == len(busiest), run
    assert np.isclose(np.sort(panel.get_array()), np.sort(list(busiest.values()))).all(), run
    plt.close(fig)
    assert open(os.path.join(scratch, run + ".png"), "rb").read(4) == b"\x89PNG", run

# Under faults: the group shown is the one whose links dropped most packets; the overview rings
# every group with drops and crosses every one with a link down; down pairs are dashed.
run = path("dragonfly_faults")
links = hx.group_links(run)
drops = links.groupby("src_group")["drops"].sum()
assert drops.sum() == hx.summary(run)["packets_dropped"] > 0
assert hx.hottest_group(run) == drops.idxmax()
fig, ax = plt.subplots()
hx.plot_overview(run, ax)
labels = [t.get_text() for t in ax.get_legend().get_texts()]
assert labels == ["packets dropped", "a link down"], labels
ringed = ax.collections[2].get_offsets()
assert len(ringed) == (drops > 0).sum()
crossed = ax.collections[3].get_offsets()
assert len(crossed) == links[links["down_ps"] > 0]["src_group"].nunique()
plt.close(fig)

# The same layout at flow level and on 2 ranks.
for a, b in (("railx_adaptive", "railx_flow"), ("switchless_ugal", "sldf_2")):
    assert hx.layout(path(a)).equals(hx.layout(path(b))), (a, b)
print("layout: %d architectures drawn, faults marked, flow level and 2 ranks alike"
      % len(expected))
PY
