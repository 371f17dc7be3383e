#!/usr/bin/env bash
# The one launcher for MPI programs outside CMake (scripts, the CLI tests, users on a workstation):
#   scripts/mpirun.sh -n N prog args...
# It adds the same flags as cmake/HxMpiexec.cmake gives the ctest MPI tests: --oversubscribe and
# --bind-to none (so 3 or 4 ranks start on a 2-core machine) and, as root, --allow-run-as-root;
# and --stdin none: hxsim reads no input, and mpirun would otherwise pass the caller's to rank 0,
# so a `while read ...; do scripts/mpirun.sh ...; done < list` loop would lose the rest of its list.
# Environment: HX_MPIEXEC (launcher, default mpirun), HX_MPIEXEC_FLAGS (extra flags, split on
# spaces). The Open MPI flags, and a 32 KB shared-memory eager limit, are added only when the
# launcher is mpirun/mpiexec/orterun, as in HxMpiexec.cmake; any other launcher (srun, ...) gets
# only HX_MPIEXEC_FLAGS.
set -euo pipefail

usage() {
  echo "usage: scripts/mpirun.sh -n N program [args...]" >&2
  exit 2
}

main() {
  (($# >= 3)) || usage
  case $1 in -n | -np) ;; *) usage ;; esac
  local ranks=$2
  shift 2
  [[ "$ranks" =~ ^[1-9][0-9]*$ ]] || usage

  local launcher=${HX_MPIEXEC:-mpirun}
  if ! command -v "$launcher" >/dev/null; then
    echo "mpirun.sh: '$launcher' not found; run scripts/setup.sh to install Open MPI" >&2
    exit 127
  fi

  local -a flags=() extra=()
  if [[ "$(basename "$launcher")" =~ mpirun|mpiexec|orterun ]]; then
    flags=(--oversubscribe --bind-to none --stdin none)
    # One window's events for a neighbour rank are often 5-30 KB; sent eagerly through shared
    # memory they skip the rendezvous round trip, which makes the exchange about 40% cheaper
    # on one node (docs/performance/engine.md). A value set by the caller wins.
    export OMPI_MCA_btl_vader_eager_limit=${OMPI_MCA_btl_vader_eager_limit:-32768}
    if [[ "$(id -u)" == 0 ]]; then
      flags+=(--allow-run-as-root)
      export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    fi
  fi
  read -r -a extra <<<"${HX_MPIEXEC_FLAGS:-}"
  # Same order as the ctest MPI tests: launcher -n N <flags> program args.
  exec "$launcher" -n "$ranks" "${flags[@]}" "${extra[@]}" "$@"
}

main "$@"
