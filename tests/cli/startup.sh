#!/usr/bin/env bash
# Start-up without MPI (src/app/main.cpp): a process started alone runs --version, --help,
# list, topo, validate and verify without bringing MPI up, which a singleton does by starting
# Open MPI's runtime daemon (orted), so no orted may be executed for them; run does start it.
# Under the launcher (2 ranks) the same commands print the same, once. Nothing here is timed:
# the speed is a benchmark's (docs/PERFORMANCE.md "Start-up").
# Usage: startup.sh HXSIM MPIRUN CONFIGS SCRATCH
set -euo pipefail
HXSIM=$1 MPIRUN=$2 CONFIGS=$3 SCRATCH=$4
rm -rf "$SCRATCH" && mkdir -p "$SCRATCH"
cd "$SCRATCH"

fail() {
  echo "startup.sh: $*" >&2
  exit 1
}

# execs CMD...: the programs the command executes, itself included, one per line.
execs() {
  strace -f -qq -e trace=execve -o trace.txt "$@" >/dev/null 2>&1 || true
  sed -n 's/.*execve("\([^"]*\)".*/\1/p' trace.txt
}

mesh=$CONFIGS/mesh_8x8.toml
railx=$CONFIGS/railx/fig14a_hyperx.toml
for command in "--version" "--help" "list" "topo $railx" "validate $mesh" "verify $mesh"; do
  # shellcheck disable=SC2086
  if execs "$HXSIM" $command | grep -q orted; then
    fail "hxsim $command brought MPI up (orted executed)"
  fi
done
execs "$HXSIM" run "$CONFIGS/quickstart.toml" -o q.h5 --progress off | grep -q orted ||
  fail "hxsim run did not bring MPI up: its trace has no orted"

for command in "list" "verify $mesh" "topo $railx"; do
  # shellcheck disable=SC2086
  "$HXSIM" $command >alone.txt
  # shellcheck disable=SC2086
  bash "$MPIRUN" -n 2 "$HXSIM" $command >launched.txt
  cmp -s alone.txt launched.txt || fail "hxsim $command prints differently on 2 ranks"
done
echo "startup.sh: ok"
