#!/usr/bin/env bash
# Shared set-up for hxsim, used by scripts/run.sh and scripts/test.sh (and CI through .ci/run):
# installs the Debian packages hxsim needs (only the missing ones, so a second run never touches
# apt), then configures a Release build in build/ and builds it.
#
# Usage: scripts/setup.sh [--packages-only] [--target NAME]... [-DVAR=VALUE]...
#   --packages-only  install packages, do not configure or build
#   --target NAME    build only this CMake target (repeatable; default: everything)
#   -DVAR=VALUE      extra CMake cache settings for the configure step
# Environment: HX_BUILD_DIR (default build), HX_BUILD_TYPE (default Release).
# Works from any directory. Sourcing it only defines the functions (hx_setup is the entry point).

# Debian packages hxsim needs, one per line; adding a package is adding its name.
HX_PACKAGES=(
  build-essential             # C/C++ compilers, make
  cmake                       # build system (>= 3.22)
  git                         # version stamp (git hash) in outputs
  pkg-config
  libopenmpi-dev              # MPI headers and compiler wrappers
  openmpi-bin                 # mpirun
  libhdf5-openmpi-dev         # parallel HDF5 (the serial build will not do)
  hdf5-tools                  # h5dump, h5ls for looking at outputs
  libboost-serialization-dev  # checkpoints and cross-rank event batches
  libcli11-dev                # command line
  libtomlplusplus-dev         # config files (TOML 1.0)
  libmetis-dev                # sim.partitioner = "metis"
  libjemalloc-dev             # the heap, on huge pages (HX_ALLOCATOR)
  libprotobuf-dev             # Chakra execution traces (workload.kind = "chakra")
  protobuf-compiler           # protoc: the Chakra schema's C++ code
  nlohmann-json3-dev          # Chakra process-group files (JSON)
  libgtest-dev                # unit tests
  googletest
  python3                     # /usr/bin/python3 runs the scripts/ tools
  python3-h5py
  python3-pandas
  python3-xarray
  python3-h5netcdf            # xarray's engine for HDF5 (only a Recommends of python3-xarray)
  python3-matplotlib
  python3-numpy
  valgrind                    # memory checks of MPI tests
  strace                      # the start-up test: which commands bring MPI up
)

hx_say() { printf 'hxsim setup: %s\n' "$*"; }
hx_die() { printf 'hxsim setup: error: %s\n' "$*" >&2; exit 1; }

# Prints the packages of HX_PACKAGES that are not fully installed, one per line.
hx_missing_packages() {
  local pkg status
  for pkg in "${HX_PACKAGES[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
    if [[ "$status" != "install ok installed" ]]; then
      printf '%s\n' "$pkg"
    fi
  done
}

# Prints the command prefix that runs a command as root: nothing when we are root, else
# non-interactive sudo. Fails when neither works (CI has no stdin for a password prompt).
hx_root_prefix() {
  if [[ "$(id -u)" == 0 ]]; then
    return 0
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    echo sudo -n
  else
    return 1
  fi
}

hx_install_packages() {
  command -v dpkg-query >/dev/null || hx_die "dpkg-query not found: this script expects Debian"
  local -a missing as_root
  local prefix
  mapfile -t missing < <(hx_missing_packages)
  if ((${#missing[@]} == 0)); then
    hx_say "all ${#HX_PACKAGES[@]} Debian packages present"
    return 0
  fi
  hx_say "installing ${#missing[@]} missing packages: ${missing[*]}"
  prefix=$(hx_root_prefix) ||
    hx_die "not root and no password-less sudo; as root run: apt-get install ${missing[*]}"
  read -r -a as_root <<<"$prefix"
  local -a apt=("${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -q -y
    -o DPkg::Lock::Timeout=300)
  "${apt[@]}" update || hx_die "apt-get update failed"
  "${apt[@]}" install --no-install-recommends "${missing[@]}" ||
    hx_die "apt-get install failed for: ${missing[*]}"
  mapfile -t missing < <(hx_missing_packages)
  ((${#missing[@]} == 0)) || hx_die "still missing after apt-get install: ${missing[*]}"
  hx_say "packages installed"
}

# Configures (always: it is quick when nothing changed) and builds. Args: see usage above.
hx_build() {
  local root=$1 build_dir=$2
  shift 2
  local -a cmake_args=() targets=()
  while (($#)); do
    case $1 in
      --target) (($# >= 2)) || hx_die "--target needs a name"; targets+=(--target "$2"); shift ;;
      -D*) cmake_args+=("$1") ;;
      *) hx_die "unknown argument: $1" ;;
    esac
    shift
  done
  local log="$build_dir/hx-configure.log"
  mkdir -p "$build_dir"
  hx_say "configuring ${build_dir} (${HX_BUILD_TYPE:-Release})"
  cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE="${HX_BUILD_TYPE:-Release}" \
    "${cmake_args[@]}" >"$log" 2>&1 || {
    cat "$log" >&2
    hx_die "cmake configure failed (output above, also in $log)"
  }
  hx_say "building with $(nproc) jobs${targets:+ (${targets[*]})}"
  cmake --build "$build_dir" -j"$(nproc)" "${targets[@]}" || hx_die "build failed"
  hx_say "build ready in ${build_dir}"
}

# Entry point: hx_setup [--packages-only] [--target NAME]... [-DVAR=VALUE]...
hx_setup() {
  local root
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  local build_dir=${HX_BUILD_DIR:-build}
  [[ "$build_dir" = /* ]] || build_dir="$root/$build_dir"
  local packages_only=0
  local -a rest=()
  local arg
  for arg in "$@"; do
    if [[ "$arg" == --packages-only ]]; then packages_only=1; else rest+=("$arg"); fi
  done
  hx_install_packages
  if ((packages_only)); then
    return 0
  fi
  hx_build "$root" "$build_dir" "${rest[@]}"
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
  set -euo pipefail
  hx_setup "$@"
fi
