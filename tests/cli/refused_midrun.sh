#!/usr/bin/env bash
# Input that can only be refused while running (a workload message of more than 2^32 flits) ends
# the run on every rank with exit code 2 and the reason on stderr, even when only rank 1 finds it:
# the collective group 62-63 of the 8 x 8 mesh lives on rank 1 of 2.
# Usage: refused_midrun.sh HXSIM MPIRUN SCRATCH_DIR
set -euo pipefail
hxsim=$1 mpirun=$2 scratch=$3
config=$(cd "$(dirname "$0")/../.." && pwd)/configs/mesh_8x8.toml
rm -rf "$scratch" && mkdir -p "$scratch" && cd "$scratch"
rc=0
# timeout: before the fix rank 1 exited alone and rank 0 waited for it forever.
timeout 120 "$mpirun" -np 2 "$hxsim" run "$config" --progress off --set workload.kind=collective \
  --set workload.group=62-63 --set workload.bytes=1000000GiB >out.txt 2>err.txt || rc=$?
if [[ $rc == 2 ]] && grep -q "hxsim: error: endpoint 6[23]: a message of .* exceeds 2^32 flits" err.txt
then
  echo "PASS: refused on every rank, exit 2: $(grep -m1 "hxsim: error" err.txt | cut -c1-100)"
  exit 0
fi
echo "FAIL: exit $rc, expected 2 and the reason:"; cat err.txt
exit 1
