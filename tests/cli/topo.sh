#!/usr/bin/env bash
# `hxsim topo` on the shipped switch-less Dragonfly configs: the sizes the paper states
# (§V-A4: (41, 1312) and (145, 18560) for the radix-16 and radix-32 switch-based baselines;
# Table III: N = 279,040 for n=12, m=4, a=4, b=8), read from the JSON output, and the table's
# header; RailX's Eq. 1 and Table 6 rows; InfiniteHBD's Table 6 and 7. A model without closed
# forms is refused with exit code 2.
# Usage: topo.sh HXSIM CONFIGS_DIR
set -euo pipefail
HXSIM=$1
CONFIGS=$2

fail() {
  echo "topo.sh: $*" >&2
  exit 1
}

# json_value CONFIG COLUMN KEY [--set k=v ...]
json_value() {
  local config=$1 column=$2 key=$3
  shift 3
  "$HXSIM" topo "$config" --json "$@" |
    /usr/bin/python3 -c "import json, sys; print(json.load(sys.stdin)['$column']['$key'])"
}

expect() {
  [[ "$2" == "$3" ]] || fail "$1: expected $3, got $2"
}

r16=$CONFIGS/switchless_dragonfly/dragonfly_r16.toml
r32=$CONFIGS/switchless_dragonfly/dragonfly_r32.toml
expect "r16 groups" "$(json_value "$r16" switch_based groups)" 41
expect "r16 endpoints" "$(json_value "$r16" switch_based endpoints)" 1312
expect "r32 groups" "$(json_value "$r32" switch_based groups)" 145
expect "r32 endpoints" "$(json_value "$r32" switch_based endpoints)" 18560

sldf=$CONFIGS/switchless_dragonfly_r16.toml
expect "radix-16 chiplets" "$(json_value "$sldf" switch_less chiplets)" 1312
table3=(--set switchless_dragonfly.n=12 --set switchless_dragonfly.m=4
  --set switchless_dragonfly.a=4 --set switchless_dragonfly.b=8)
expect "Table III chiplets" "$(json_value "$sldf" switch_less chiplets "${table3[@]}")" 279040
expect "Table III switches" "$(json_value "$sldf" switch_based switches "${table3[@]}")" 17440

# RailX: Eq. 1 and Table 6's RailX7Mesh and RailX4Mesh rows (switches, transceivers, M$).
rx7=$CONFIGS/railx/railx7mesh_hyperx.toml
expect "RailX7Mesh chips" "$(json_value "$rx7" railx chips)" 200704
expect "RailX7Mesh OCSes" "$(json_value "$rx7" railx switches)" 8064
expect "RailX7Mesh AOTs" "$(json_value "$rx7" railx aot)" 1032192
rx4=$CONFIGS/railx/railx4mesh_torus.toml
expect "RailX4Mesh chips" "$(json_value "$rx4" railx chips)" 65536
expect "RailX4Mesh M\$" "$(json_value "$rx4" railx cost_musd | cut -c1-5)" 751.1

table=$("$HXSIM" topo "$sldf" "${table3[@]}")
grep -q '^# hxsim topo: switchless_dragonfly n=12 m=4 a=4 b=8' <<<"$table" || fail "no header"
grep -q 'H_g + 2H_l + 30H_sr' <<<"$table" || fail "no Eq. 7 diameter in: $table"

set +e
err=$("$HXSIM" topo "$CONFIGS/mesh_8x8.toml" 2>&1 >/dev/null)
code=$?
set -e
expect "exit code for mesh" "$code" 2
grep -q "has no closed forms" <<<"$err" || fail "unclear message: $err"
set +e
err=$("$HXSIM" topo "$sldf" --availability 2>&1 >/dev/null)
code=$?
set -e
expect "exit code for --availability off RailX" "$code" 2
grep -q "has no such report; models with it: railx" <<<"$err" || fail "unclear message: $err"
avail=$("$HXSIM" topo "$CONFIGS/railx/fig14a_hyperx.toml" --availability --set railx.ocs_radix=64)
grep -q '^node failure rate 0.1% *0.98 *993.9 *993 *0.9706$' <<<"$avail" ||
  fail "Fig. 17 row (32 x 32 nodes, seed 1) changed: $avail"
# InfiniteHBD: Table 7 and Table 6 as printed (the table's text, which rounds as the paper).
hbd=$("$HXSIM" topo "$CONFIGS/infinitehbd/tp_ring_allreduce.toml")
for row in 'R=4 K=2 \[%\] *7.54$' 'R=4 K=3 \[%\] *0.28$' 'R=4 K=4 \[%\] *0.0102$' \
    'R=8 K=2 \[%\] *25.02$' 'R=8 K=3 \[%\] *1.81$' 'R=8 K=4 \[%\] *0.13$' \
    'TPUv4: interconnect cost per GPU \[\$\] *1567.20$' 'NVL-72: power per GPU \[W\] *75.95$' \
    'NVL-576: cost per GPU per GB/s \[\$\] *33.80$' \
    'InfiniteHBD (K=2): interconnect cost per GPU \[\$\] *2626.80$' \
    'InfiniteHBD (K=3): power per GPU \[W\] *72.05$'; do
  grep -q "$row" <<<"$hbd" || fail "InfiniteHBD row /$row/ missing from: $hbd"
done
# Rail-only Table 2 (the paper's grid, K = 256) and Eq. 1-3 at GPT-3's batch (analytic.h).
ro=$("$HXSIM" topo "$CONFIGS/rail_only/table2_32k.toml")
for row in 'N=32768 radix 32: rail-optimized #SW *7,168$' 'N=32768 radix 64: rail-only #SW *1,536$' \
    'N=32768 radix 64: rail-optimized #TR *196,608$' 'N=32768 radix 128: rail-only #SW *256$' \
    'N=32768 radix 64: cost reduction, truncated as Table 2 \[%\] *37$' \
    'N=32768 radix 128: cost reduction, truncated as Table 2 \[%\] *75$' \
    'N=65536 radix 256: rail-only #TR *131,072$' 'N_M\* (Eq. 2) *19.43$' \
    'Fig. 5: ideal speed-up, gpt3-175b at its paper batch *1.279$'; do
  grep -q "$row" <<<"$ro" || fail "rail-only row /$row/ missing from: $ro"
done
echo "topo.sh: ok"
# Table III's other rows (--table3): the 3:1-tapered fat tree and PolarFly of 64-port switches.
t3=$CONFIGS/switchless_dragonfly/table3_full.toml
expect "Table III tapered fat tree cabinets" \
  "$(json_value "$t3" fat_tree_4_taper3 cabinets --table3)" 960
expect "Table III PolarFly packages" "$(json_value "$t3" polarfly switches --table3)" 4033
