#!/usr/bin/env bash
# Start-up without MPI (src/app/main.cpp): a process started alone runs --version, --help,
# list, topo, validate and verify without bringing MPI up. MPI_Init loads Open MPI's components
# (mca_*.so), so those commands may open none; run does, but only the ob1 point-to-point layer
# (a world of one talks to nobody; cm's transports probe for hardware) unless the user asks. Under the launcher (2 ranks) the same
# commands print the same, once. Nothing here is timed: the speed is a benchmark's
# (docs/PERFORMANCE.md "Start-up").
# Usage: startup.sh HXSIM MPIRUN CONFIGS SCRATCH
set -euo pipefail
HXSIM=$1 MPIRUN=$2 CONFIGS=$3 SCRATCH=$4
rm -rf "$SCRATCH" && mkdir -p "$SCRATCH"
cd "$SCRATCH"

fail() {
  echo "startup.sh: $*" >&2
  exit 1
}

# mpi_components CMD...: how many of Open MPI's components the command opened.
mpi_components() {
  strace -f -qq -e trace=openat -o trace.txt "$@" >/dev/null 2>&1 || true
  grep -c 'mca_[a-z0-9_]*\.so' trace.txt || true
}

mesh=$CONFIGS/mesh_8x8.toml
railx=$CONFIGS/railx/fig14a_hyperx.toml
for command in "--version" "--help" "list" "topo $railx" "validate $mesh" "verify $mesh"; do
  # shellcheck disable=SC2086
  n=$(mpi_components "$HXSIM" $command)
  [[ $n == 0 ]] || fail "hxsim $command brought MPI up ($n components opened)"
done
run=("$HXSIM" run "$CONFIGS/quickstart.toml" -o q.h5 --progress off)
n=$(mpi_components "${run[@]}")
[[ $n -gt 0 ]] || fail "hxsim run did not bring MPI up"
grep -q 'mca_pml_ob1\.so' trace.txt || fail "hxsim run alone did not open the ob1 pml"
! grep -q 'mca_pml_cm\.so' trace.txt || fail "hxsim run alone opened the cm pml"
OMPI_MCA_pml=cm,ob1 strace -f -qq -e trace=openat -o trace.txt "${run[@]}" >/dev/null 2>&1 || true
grep -q 'mca_pml_cm\.so' trace.txt || fail "hxsim run alone overrode the user's OMPI_MCA_pml"
# /engine's start-up phases lie within the time to the first event, MPI_Init's is measured.
"${run[@]}" >run.txt
grep -q "start-up on rank 0: MPI init" run.txt || fail "run printed no start-up line"
/usr/bin/python3 - <<'PY' || fail "/engine's start-up columns are inconsistent"
import h5py
e = h5py.File("q.h5", "r")["engine"]
phases = [float(e[c][0]) for c in ("mpi_init_s", "config_s", "build_s")]
start = float(e["start_s"][0])
assert phases[0] > 0 and min(phases) >= 0 and sum(phases) <= start, (phases, start)
PY

for command in "list" "verify $mesh" "topo $railx"; do
  # shellcheck disable=SC2086
  "$HXSIM" $command >alone.txt
  # shellcheck disable=SC2086
  bash "$MPIRUN" -n 2 "$HXSIM" $command >launched.txt
  cmp -s alone.txt launched.txt || fail "hxsim $command prints differently on 2 ranks"
done
# verify's progress lines (stderr, rank 0 only) leave its answer (stdout) as it was. The torus's
# 262,144 pairs take far longer than the 1 ms between lines on any machine.
torus=$CONFIGS/torus_8x8x8.toml
"$HXSIM" verify "$torus" --progress off >quiet.txt 2>quiet.err
[[ ! -s quiet.err ]] || fail "verify --progress off printed: $(cat quiet.err)"
for launcher in "" "bash $MPIRUN -n 2"; do
  # shellcheck disable=SC2086
  $launcher "$HXSIM" verify "$torus" --progress lines --progress-interval 0.001 >lines.txt 2>lines.err
  cmp -s quiet.txt lines.txt || fail "verify's answer changed with progress lines ($launcher)"
  grep -q '^hxsim verify: [0-9.]*% of the sources explored, [0-9]* s, ETA ' lines.err ||
    fail "verify printed no progress line ($launcher): $(head -3 lines.err)"
  ! grep -v 'of the sources explored' lines.err | grep -q . ||
    fail "verify printed more than progress lines ($launcher): $(head -3 lines.err)"
done
echo "startup.sh: ok"
