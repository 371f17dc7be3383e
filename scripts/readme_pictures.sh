#!/usr/bin/env bash
# Writes the README's topology pictures (docs/images/*.png, docs/ANALYSIS.md "Topology
# pictures"): one small run of each architecture the papers describe, drawn with
# `hxanalysis.py layout`. About 15 s on one core.
# Usage: scripts/readme_pictures.sh [HXSIM]   (default build/src/app/hxsim)
set -euo pipefail
cd "$(dirname "$0")/.."
hxsim=${1:-build/src/app/hxsim}
out=docs/images scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$out"
draw() {  # NAME CONFIG [hxsim options...] -- [layout options...]
  local name=$1 config=$2
  shift 2
  local run=() draw=()
  while (($#)) && [[ $1 != -- ]]; do run+=("$1") && shift; done
  (($#)) && shift
  draw=("$@")
  "$hxsim" run "$config" -o "$scratch/$name.h5" --progress off "${run[@]}" >/dev/null 2>&1
  /usr/bin/python3 scripts/hxanalysis.py layout "$scratch/$name.h5" -o "$out/$name.png" \
    --dpi 75 "${draw[@]}"
  echo "$out/$name.png"
}
# n=4 m=2 a=2 b=2: 21 W-groups of two wafers of two 2 x 2 C-groups, uniform traffic at 0.3.
draw switchless_dragonfly configs/switchless_dragonfly_r16.toml --set switchless_dragonfly.n=4 \
  --set switchless_dragonfly.b=2 --set traffic.load=0.3
# A 4 x 4 torus of 4 x 4-chip nodes with four chip faults.
draw railx tests/determinism/railx_chip_faults.toml --set traffic.load=0.3
# 16 nodes of 4 GPUs in TP rings of 16; node 6 fails and the rings are bypassed.
draw infinitehbd configs/infinitehbd/node_bypass.toml
# 16 HB domains of 32 GPUs (a two-level NVSwitch fabric), one Clos per rail; domain 0.
draw rail_only tests/determinism/rail_only_forwarding.toml --set rail_only.gpus=512 \
  --set rail_only.hb_size=32 --set rail_only.hb_leaf_gpus=8 --set rail_only.radix=8 \
  --set traffic.load=0.3 -- --group 0
