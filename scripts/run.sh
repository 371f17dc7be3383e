#!/usr/bin/env bash
# README set-up command 1: installs what is missing, builds hxsim, runs a simulation on 2 MPI
# ranks and prints a summary of its HDF5 output.
#   bash scripts/run.sh                                  # quickstart -> results/quickstart.h5
#   bash scripts/run.sh configs/x.toml -o results/x.h5  # any `hxsim run` arguments
# Arguments go to `hxsim run` unchanged (relative paths are taken from the current directory);
# without -o/--output the output is results/quickstart.h5 in the repository.
# Environment: HX_RANKS (default 2), plus those of scripts/setup.sh and scripts/mpirun.sh.
set -euo pipefail

# Prints the output path named by -o/--output in the arguments, or nothing.
output_arg() {
  local out=""
  while (($#)); do
    case $1 in
      -o | --output)
        out=${2:-}
        if (($# >= 2)); then shift; fi
        ;;
      --output=*) out=${1#--output=} ;;
      -o?*) out=${1#-o} ;;
      --) break ;;
    esac
    shift
  done
  printf '%s' "$out"
}

# Prints inode, modification time and size of a file (nothing if it does not exist): hxsim
# writes a temporary file and renames it, so a new output always changes this.
file_signature() {
  stat -c '%i %Y %s' -- "$1" 2>/dev/null || true
}

main() {
  local root
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  local build_dir=${HX_BUILD_DIR:-build}
  [[ "$build_dir" = /* ]] || build_dir="$root/$build_dir"

  bash "$root/scripts/setup.sh" --target hxsim

  local -a args=("$@")
  local out
  out=$(output_arg "$@")
  mkdir -p "$root/results"
  if [[ -z "$out" ]]; then
    out="$root/results/quickstart.h5"
    args+=(-o "$out")
  fi

  local ranks=${HX_RANKS:-2} before
  before=$(file_signature "$out")
  echo "hxsim run: $ranks ranks, output $out"
  "$root/scripts/mpirun.sh" -n "$ranks" "$build_dir/src/app/hxsim" run "${args[@]}"

  # Summarize only what this run wrote (not an older file left by a --dry-run, say).
  if [[ -f "$out" && "$(file_signature "$out")" != "$before" ]]; then
    /usr/bin/python3 "$root/scripts/summarize.py" "$out"
  else
    echo "hxsim run: no new output in $out"
  fi
}

main "$@"
