#!/usr/bin/env bash
# workload.kind = "chakra" against the native workloads its traces stand for (traces written by
# chakra_writer with the protobuf library). Exact equalities, all of them:
# - a ring all-reduce node on 8 ranks = workload.kind = "collective" (all_reduce, ring, 8 ranks),
#   at packet and at flow level on a Dragonfly, and at packet level on each of the four
#   architectures (the determinism configs of the switch-less Dragonfly, RailX, InfiniteHBD and
#   rail-only);
# - a TP layer (compute of 2e9 FLOPs at 1e15 FLOP/s = 2 us, then an all-reduce in process groups
#   tp0 = ranks 0-3 and tp1 = 4-7) = the collective in two groups of 4 (groups = "4:1") + 2 us;
# - a pipeline of 6 ranks (recv, compute, send) with 3 us of compute per rank = the same with no
#   compute + 6 x 3 us (one chain: no message waits on another);
# - the same on 2 ranks = 1 rank (every dataset);
# - a random trace (chakra_writer random) completes at both fidelities, the same on 1 and 3 ranks;
# - the TP layer's process groups from a JSON file (ASTRA-sim's format) = from the config;
# - bad traces refused by name with exit code 2 and no output: an unknown node type, a
#   dependency cycle, an undefined process group, a send to itself, a truncated file, a file that
#   is not a trace, a missing rank; a process-group file with a bad rank, not JSON, missing, or
#   defining a group the config does too.
# Usage: chakra.sh HXSIM WRITER MPIRUN NETWORK DETERMINISM_DIR SCRATCH
set -euo pipefail
hxsim=$1 writer=$2 mpirun=$3 network=$4 configs=$5 scratch=$6
rm -rf "$scratch" && mkdir -p "$scratch"
cd "$scratch"
fail() { echo "chakra.sh: $*" >&2; exit 1; }
end_ps() { /usr/bin/python3 -c "import h5py,sys; print(int(h5py.File(sys.argv[1],'r')['summary'].attrs['workload_end_ps']))" "$1"; }
run() { "$hxsim" run "$network" --progress off -o "$@" >/dev/null; }

"$writer" ring ring 8 262144
for fidelity in packet flow; do
  run "ring_$fidelity.h5" --set workload.kind=chakra --set workload.trace=ring \
    --set sim.fidelity=$fidelity
  run "native_$fidelity.h5" --set workload.kind=collective --set workload.ranks=8 \
    --set workload.bytes=262144B --set sim.fidelity=$fidelity
  a=$(end_ps "ring_$fidelity.h5") b=$(end_ps "native_$fidelity.h5")
  [[ $a == "$b" && $a -gt 0 ]] || fail "$fidelity: ring node $a ps, native all-reduce $b ps"
done

for arch in switchless_ugal railx_adaptive infinitehbd_uniform rail_only_forwarding; do
  sets=(--set sim.end_time=inf --set workload.ranks=8)
  "$hxsim" run "$configs/$arch.toml" --progress off -o "$arch.h5" "${sets[@]}" \
    --set workload.kind=chakra --set workload.trace=ring >/dev/null
  "$hxsim" run "$configs/$arch.toml" --progress off -o "${arch}_native.h5" "${sets[@]}" \
    --set workload.kind=collective --set workload.bytes=262144B >/dev/null
  a=$(end_ps "$arch.h5") b=$(end_ps "${arch}_native.h5")
  [[ $a == "$b" && $a -gt 0 ]] || fail "$arch: ring node $a ps, native all-reduce $b ps"
done

"$writer" tp_layer tp 8 4 262144 2000000000
run tp.h5 --set workload.kind=chakra --set workload.trace=tp --set workload.chakra_flops=1e15 \
  --set 'workload.chakra_groups=[{name = "tp0", ranks = [0, 1, 2, 3]}, {name = "tp1", ranks = [4, 5, 6, 7]}]'
run tp_native.h5 --set workload.kind=collective --set workload.ranks=8 --set workload.groups=4:1 \
  --set workload.bytes=262144B
a=$(end_ps tp.h5) b=$(end_ps tp_native.h5)
((a == b + 2000000)) || fail "TP layer $a ps, native groups $b ps + 2 us"
# The same groups from a JSON process-group file (ASTRA-sim's format), one of them from each.
echo '{"tp0": [0, 1, 2, 3], "tp1": [4, 5, 6, 7]}' >groups.json
echo '{"tp1": [4, 5, 6, 7]}' >tp1.json
run tp_json.h5 --set workload.kind=chakra --set workload.trace=tp --set workload.chakra_flops=1e15 \
  --set workload.chakra_groups_file=groups.json
run tp_mixed.h5 --set workload.kind=chakra --set workload.trace=tp --set workload.chakra_flops=1e15 \
  --set 'workload.chakra_groups=[{name = "tp0", ranks = [0, 1, 2, 3]}]' \
  --set workload.chakra_groups_file=tp1.json
for f in tp_json.h5 tp_mixed.h5; do
  /usr/bin/python3 "$(dirname "$mpirun")/h5compare.py" --ignore /config --ignore-attr config_hash \
    tp.h5 "$f" >/dev/null ||
    fail "$f differs from the groups given in the config"
done

"$writer" pipeline pipe 6 65536 3
"$writer" pipeline pipe0 6 65536 0
run pipe.h5 --set workload.kind=chakra --set workload.trace=pipe
run pipe0.h5 --set workload.kind=chakra --set workload.trace=pipe0
a=$(end_ps pipe.h5) b=$(end_ps pipe0.h5)
((a == b + 6 * 3000000)) || fail "pipeline with compute $a ps, without $b ps + 18 us"
bash "$mpirun" -n 2 "$hxsim" run "$network" --progress off -o pipe_2.h5 \
  --set workload.kind=chakra --set workload.trace=pipe >/dev/null
/usr/bin/python3 "$(dirname "$mpirun")/h5compare.py" pipe.h5 pipe_2.h5 >/dev/null ||
  fail "the pipeline differs on 2 ranks"

# A random trace (sends, receives and collectives in all ranks' common order, computes beside
# them) runs to its end at both fidelities, the same on 1 and 3 ranks.
"$writer" random rnd 8 20261130 30
rnd=(--set workload.kind=chakra --set workload.trace=rnd --set workload.chakra_flops=1e12
  --set 'workload.chakra_groups=[{name = "low", ranks = [0, 1, 2, 3]}, {name = "even", ranks = [0, 2, 4, 6]}]')
for fidelity in packet flow; do
  "$hxsim" run "$network" --progress off -o "rnd_$fidelity.h5" "${rnd[@]}" \
    --set sim.fidelity=$fidelity >rnd.txt
  grep -q "all programs complete" rnd.txt || fail "the random trace did not complete at $fidelity level"
  bash "$mpirun" -n 3 "$hxsim" run "$network" --progress off -o "rnd_${fidelity}_3.h5" "${rnd[@]}" \
    --set sim.fidelity=$fidelity >/dev/null
  /usr/bin/python3 "$(dirname "$mpirun")/h5compare.py" "rnd_$fidelity.h5" "rnd_${fidelity}_3.h5" \
    >/dev/null || fail "the random trace differs on 3 ranks at $fidelity level"
done

refuse() {  # refuse EXPECTED ARGS...: exit code 2, one error naming EXPECTED, no output
  local expected=$1 code=0
  shift
  "$hxsim" run "$network" --progress off -o bad.h5 "$@" 2>err.txt >/dev/null || code=$?
  ((code == 2)) || fail "$*: exit code $code, expected 2"
  grep -qF "$expected" err.txt || { cat err.txt; fail "$*: no '$expected' in the error"; }
  [[ ! -e bad.h5 ]] || fail "$*: an output file was left"
}
for kind in bad_type cycle undefined_pg self_send; do "$writer" "$kind" "$kind" 2; done
refuse "bad_type.0.et: node 1 (n1): node type 9 is not one hxsim replays" \
  --set workload.kind=chakra --set workload.trace=bad_type
refuse "cycle.0.et: node 1 (n1): its dependencies form a cycle" \
  --set workload.kind=chakra --set workload.trace=cycle
refuse "process group 'dp', which workload.chakra_groups does not define" \
  --set workload.kind=chakra --set workload.trace=undefined_pg
refuse "self_send.0.et: node 1 (n1): a message to its own rank" \
  --set workload.kind=chakra --set workload.trace=self_send
cp ring.0.et cut.0.et && head -c 20 ring.1.et >cut.1.et
refuse "cut.1.et: truncated or corrupt after 0 nodes" --set workload.kind=chakra --set workload.trace=cut
printf 'id,src,dst\n1,2,3\n' >text.0.et
refuse "text.0.et: not a Chakra execution trace" --set workload.kind=chakra --set workload.trace=text
mkdir gap && cp ring.0.et ring.1.et ring.3.et gap/
refuse "gap/ring.2.et is missing" --set workload.kind=chakra --set workload.trace=gap
refuse "no file none.0.et" --set workload.kind=chakra --set workload.trace=none
echo '{"tp0": [0, 1, 2, 3], "tp1": [4, "five"]}' >bad_groups.json
echo '{"tp0": [0, 1' >cut_groups.json
tp=(--set workload.kind=chakra --set workload.trace=tp --set workload.chakra_flops=1e15)
refuse "bad_groups.json': group 'tp1' has \"five\", not a rank" "${tp[@]}" \
  --set workload.chakra_groups_file=bad_groups.json
refuse "cut_groups.json': not JSON" "${tp[@]}" --set workload.chakra_groups_file=cut_groups.json
refuse "nowhere.json': cannot open the file" "${tp[@]}" \
  --set workload.chakra_groups_file=nowhere.json
refuse "group 'tp1' is in workload.chakra_groups too" "${tp[@]}" \
  --set workload.chakra_groups_file=tp1.json \
  --set 'workload.chakra_groups=[{name = "tp1", ranks = [4, 5, 6, 7]}]'
echo "chakra.sh: ok"
