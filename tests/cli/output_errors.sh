#!/usr/bin/env bash
# Output errors (README exit code 3, docs/OUTPUT.md "The file appears only when it is complete"):
# `hxsim run` on 2 MPI ranks whose output cannot be written must fail cleanly:
#   - every rank exits by itself with code 3 (each rank records its own code; mpirun is told not
#     to abort the job when one rank fails, so a rank left hanging is a timeout, not hidden);
#   - stderr holds exactly one "hxsim: error: " message, naming the problem; nothing crashed;
#   - nothing is left behind: no <name>.*.partial, no other new file, and an output file of the
#     same name from an earlier run is byte-identical afterwards.
# Cases:
#   missing_dir       -o into a directory that does not exist
#   under_file        -o below a regular file (file/out.h5)
#   read_only         -o into a read-only directory: chmod when not root (root ignores
#                     permissions), else a read-only tmpfs in a private mount namespace
#   file_size_limit   a full disk, simulated with `ulimit -f` in each rank: the write would go
#                     past RLIMIT_FSIZE (which would kill hxsim with SIGXFSZ)
#   full_disk         a real full disk: a small tmpfs in a private mount namespace
#   checkpoint_full_disk  a checkpoint into a full disk (a small tmpfs): exit 3 and no
#                     .ckpt-<time>.partial directory left behind
#   full_disk_checkpointed  the output into a full disk, checkpoints elsewhere: the message
#                     names the latest checkpoint, and a restart from it writes the results
#   not_regular       -o a FIFO, and a copy of /dev/null made with mknod (root): refused, not
#                     replaced by a regular file
#   names_input       -o the config, -o the trace, and a config named x.h5 run without -o (its
#                     default output is x.h5): refused, the input unchanged
#   leftover_partial  a partial file a killed run left: the next run with that output notes it
#                     (only the files of that output's pattern), succeeds and leaves it
# The tmpfs cases need `unshare -m` (root with CAP_SYS_ADMIN); without it they are skipped.
#
# Usage: output_errors.sh HXSIM MPIRUN_SH SCRATCH_DIR
# Environment: HX_CLI_TIMEOUT seconds per hxsim run (default 60).
set -euo pipefail

CRASH_PATTERN='Segmentation fault|signal|core dumped|terminate called|MPI_ABORT|Aborted|internal error'
ERROR_PREFIX='hxsim: error: '
RANKS=2
# Runs one rank under a file size limit ($2, "-" for none) and writes its exit code to
# <prefix>.<rank> ($1); the command follows.
# shellcheck disable=SC2016  # expanded by the per-rank shell, not here
RANK_WRAPPER='[[ $2 == - ]] || ulimit -f "$2"; "${@:3}"; echo $? >"$1.${OMPI_COMM_WORLD_RANK:-0}"'
# A short network run, and one whose /flows table (flows=all, default windows: about 90,000 rows,
# 700 KiB per column before compression) is too big for the limits below.
SMALL_RUN=(run --progress off --set traffic.flows=none --set traffic.warmup=300cycles
  --set traffic.measure=1000cycles)
BIG_RUN=(run --progress off --set traffic.flows=all)

die() {
  echo "output_errors.sh: $*" >&2
  exit 2
}

# run_hxsim NAME LIMIT ARGS...: runs hxsim on $RANKS ranks in $CASE_DIR, each rank under the file
# size limit LIMIT (KiB, or - for none); NAME.out, NAME.err and NAME.rc.<rank> go to $SCRATCH.
run_hxsim() {
  local name=$1 limit=$2
  shift 2
  local -a env=(OMPI_MCA_orte_abort_on_non_zero_status=0)
  # Open MPI's shared-memory transport sizes a 4 MiB file at start-up, which the limit would
  # stop too: the limited ranks talk over TCP instead.
  [[ "$limit" == - ]] || env+=("OMPI_MCA_btl=self,tcp")
  rm -f -- "$SCRATCH/$name".rc.*
  (cd "$CASE_DIR" && env "${env[@]}" timeout -k 5 "$TIMEOUT" "$MPIRUN" -n "$RANKS" \
    bash -c "$RANK_WRAPPER" rank_wrapper "$SCRATCH/$name.rc" "$limit" "$HXSIM" "$@") \
    </dev/null >"$SCRATCH/$name.out" 2>"$SCRATCH/$name.err" || true
}

# check_exit NAME CODE: every rank of run NAME exited with CODE.
check_exit() {
  local name=$1 want=$2 rank code
  for ((rank = 0; rank < RANKS; rank++)); do
    if [[ ! -f "$SCRATCH/$name.rc.$rank" ]]; then
      problems+=("$name: rank $rank did not finish (timeout or killed)")
      continue
    fi
    code=$(<"$SCRATCH/$name.rc.$rank")
    [[ "$code" == "$want" ]] || problems+=("$name: rank $rank exit code $code, expected $want")
  done
}

# check_error NAME TEXT: run NAME failed with exit code 3, one error message containing TEXT, and
# no crash.
check_error() {
  local name=$1 text=$2 err="$SCRATCH/$1.err" n
  check_exit "$name" 3
  n=$({ grep -oF -- "$ERROR_PREFIX" "$err" || true; } | wc -l)
  ((n == 1)) || problems+=("$name: $n '$ERROR_PREFIX' messages on stderr, expected 1")
  grep -qF -- "$text" "$err" || problems+=("$name: stderr does not mention '$text'")
  if grep -qE "$CRASH_PATTERN" "$SCRATCH/$name.out" "$err"; then
    problems+=("$name: crash: $(grep -hE "$CRASH_PATTERN" "$SCRATCH/$name.out" "$err" | head -1)")
  fi
}

# check_listing DIR EXPECTED...: DIR holds exactly the EXPECTED names (none: empty).
check_listing() {
  local dir=$1 got want
  shift
  got=$(find "$dir" -mindepth 1 -maxdepth 1 -printf '%f\n' | sort | tr '\n' ' ')
  want=$(printf '%s\n' "$@" | sed '/^$/d' | sort | tr '\n' ' ')
  [[ "$got" == "$want" ]] || problems+=("files in $dir: '$got', expected '$want'")
}

# check_kept NAME FILE COPY: the earlier output FILE is unchanged (a copy was kept in COPY).
check_kept() {
  [[ -f "$2" ]] || { problems+=("$1: the earlier output $2 is gone"); return; }
  cmp -s -- "$2" "$3" || problems+=("$1: the earlier output $2 changed")
}

# earlier_output NAME DIR: writes DIR/out.h5 with a successful small run and keeps a copy of it in
# $CASE_DIR/earlier.h5.
earlier_output() {
  run_hxsim "$1.earlier" - "${SMALL_RUN[@]}" -o "$2/out.h5"
  check_exit "$1.earlier" 0
  cp -- "$2/out.h5" "$CASE_DIR/earlier.h5" 2>/dev/null || problems+=("$1: no earlier output")
}

case_missing_dir() {
  run_hxsim missing_dir - "${SMALL_RUN[@]}" -o "$CASE_DIR/missing/out.h5"
  check_error missing_dir "directory '$CASE_DIR/missing' does not exist"
  check_listing "$CASE_DIR"
}

case_under_file() {
  : >"$CASE_DIR/file"
  run_hxsim under_file - "${SMALL_RUN[@]}" -o "$CASE_DIR/file/out.h5"
  check_error under_file "'$CASE_DIR/file' is not a directory"
  check_listing "$CASE_DIR" file
  [[ ! -s "$CASE_DIR/file" ]] || problems+=("under_file: $CASE_DIR/file was written to")
}

# Called with $CASE_DIR/ro read-only.
case_read_only() {
  run_hxsim read_only - "${SMALL_RUN[@]}" -o "$CASE_DIR/ro/out.h5"
  check_error read_only "cannot create files in directory '$CASE_DIR/ro'"
  check_listing "$CASE_DIR/ro"
}

case_file_size_limit() {
  earlier_output file_size_limit "$CASE_DIR"
  run_hxsim file_size_limit 256 "${BIG_RUN[@]}" -o "$CASE_DIR/out.h5"
  check_error file_size_limit "over the file size limit (ulimit -f) of 256.0 KiB"
  check_kept file_size_limit "$CASE_DIR/out.h5" "$CASE_DIR/earlier.h5"
  check_listing "$CASE_DIR" out.h5 earlier.h5
}

# Called with a 640 KiB tmpfs on $CASE_DIR/disk: room for the small run's file (180 KiB), not for
# the big one's.
case_full_disk() {
  earlier_output full_disk "$CASE_DIR/disk"
  run_hxsim full_disk - "${BIG_RUN[@]}" -o "$CASE_DIR/disk/out.h5"
  check_error full_disk "not enough disk space"
  check_kept full_disk "$CASE_DIR/disk/out.h5" "$CASE_DIR/earlier.h5"
  check_listing "$CASE_DIR/disk" out.h5
}

# Called with a 640 KiB tmpfs on $CASE_DIR/disk, as full_disk, the checkpoints outside it.
case_full_disk_checkpointed() {
  local name=full_disk_checkpointed
  run_hxsim "$name" - "${BIG_RUN[@]}" --checkpoint-every 4us --checkpoint-dir "$CASE_DIR/ckpt" \
    -o "$CASE_DIR/disk/out.h5"
  check_error "$name" "not enough disk space"
  grep -qF -- "hxsim run --restart $CASE_DIR/ckpt/ckpt-00000000000012000000 -o OTHER.h5" \
    "$SCRATCH/$name.err" || problems+=("$name: stderr does not name the latest checkpoint")
  check_listing "$CASE_DIR/disk"
  run_hxsim "$name.restart" - run --progress off --restart "$CASE_DIR/ckpt" -o "$CASE_DIR/out.h5"
  check_exit "$name.restart" 0
  [[ -s "$CASE_DIR/out.h5" ]] || problems+=("$name: the restart wrote no output")
}

# Called with a 64 KiB tmpfs on $CASE_DIR/disk: too small for the quickstart's checkpoint.
case_checkpoint_full_disk() {
  run_hxsim checkpoint_full_disk - "${SMALL_RUN[@]}" --checkpoint-every 500cycles \
    --checkpoint-dir "$CASE_DIR/disk/ckpt" -o "$CASE_DIR/out.h5"
  check_error checkpoint_full_disk "cannot write checkpoint $CASE_DIR/disk/ckpt/ckpt-"
  check_listing "$CASE_DIR/disk/ckpt"
  check_listing "$CASE_DIR" disk
}

case_not_regular() {
  mkfifo -- "$CASE_DIR/fifo"
  run_hxsim not_regular.fifo - "${SMALL_RUN[@]}" -o "$CASE_DIR/fifo"
  check_error not_regular.fifo "'$CASE_DIR/fifo' exists and is not a regular file"
  [[ -p "$CASE_DIR/fifo" ]] || problems+=("fifo: $CASE_DIR/fifo is no longer a FIFO")
  local -a left=(fifo)
  if mknod -- "$CASE_DIR/null" c 1 3 2>/dev/null; then
    left+=(null)
    run_hxsim not_regular.device - "${SMALL_RUN[@]}" -o "$CASE_DIR/null"
    check_error not_regular.device "'$CASE_DIR/null' exists and is not a regular file"
    [[ -c "$CASE_DIR/null" ]] || problems+=("device: $CASE_DIR/null is no longer a device")
  fi
  check_listing "$CASE_DIR" "${left[@]}"
}

case_names_input() {
  cp -- "$CASES/phold_small.toml" "$CASE_DIR/config.toml"
  cp -- "$CASES/phold_small.toml" "$CASE_DIR/x.h5"
  cp -- "$TRACE" "$CASE_DIR/trace.csv"
  cp -r -- "$CASE_DIR" "$SCRATCH/names_input.copy"
  run_hxsim names_input.config - run config.toml -o config.toml
  check_error names_input.config "'config.toml' is the input file 'config.toml'"
  run_hxsim names_input.default_output - run x.h5
  check_error names_input.default_output "'x.h5' is the input file 'x.h5'"
  run_hxsim names_input.trace - "${SMALL_RUN[@]}" --set workload.kind=trace --set workload.trace=trace.csv \
    -o "$CASE_DIR/trace.csv"
  check_error names_input.trace "is the input file 'trace.csv'"
  diff -r -- "$SCRATCH/names_input.copy" "$CASE_DIR" >/dev/null ||
    problems+=("names_input: the inputs or the directory changed")
  rm -rf -- "$SCRATCH/names_input.copy"
}

case_leftover_partial() {
  local left="$CASE_DIR/out.h5.0123abcd.partial"
  : >"$left"
  : >"$CASE_DIR/out.h5.other.partial"
  run_hxsim leftover_partial - "${SMALL_RUN[@]}" -o "$CASE_DIR/out.h5"
  check_exit leftover_partial 0
  local notes
  notes=$(grep -c "^hxsim: note: '.*partial' is the partial output of a run that was killed" \
    "$SCRATCH/leftover_partial.err" || true)
  ((notes == 1)) || problems+=("leftover_partial: $notes notes of a leftover, expected 1")
  grep -qF -- "'$left' is the partial output" "$SCRATCH/leftover_partial.err" ||
    problems+=("leftover_partial: stderr does not name $left")
  check_listing "$CASE_DIR" out.h5 out.h5.0123abcd.partial out.h5.other.partial
}

# in_tmpfs NAME POINT OPTIONS: runs case NAME in a private mount namespace, with a tmpfs mounted
# (mount -o OPTIONS) on $CASE_DIR/POINT. The mount ends with the namespace, whatever happens.
in_tmpfs() {
  local name=$1 point=$2 options=$3
  mkdir -p -- "$CASE_DIR/$point"
  if ! unshare -m -- bash "$SELF" --inside "$HXSIM" "$MPIRUN" "$SCRATCH" "$name" "$point" \
    "$options"; then
    problems+=("$name: could not run in a private mount namespace with a tmpfs")
  fi
  if [[ -f "$SCRATCH/$name.problems" ]]; then
    mapfile -t -O "${#problems[@]}" problems <"$SCRATCH/$name.problems"
  fi
}

# run_case NAME: prints PASS/FAIL/SKIP; returns 1 on FAIL.
run_case() {
  local name=$1
  CASE_DIR="$SCRATCH/$name"
  rm -rf -- "$CASE_DIR" "$SCRATCH/$name".*
  mkdir -p -- "$CASE_DIR"
  problems=()
  case $name in
    read_only)
      if ((EUID != 0)); then
        mkdir -p -- "$CASE_DIR/ro"
        chmod a-w -- "$CASE_DIR/ro"
        case_read_only
        chmod u+w -- "$CASE_DIR/ro"
      elif [[ "$HAVE_UNSHARE" == 1 ]]; then
        in_tmpfs read_only ro ro,size=64k
      else
        echo "SKIP  read_only: root ignores permissions, and unshare -m is not available"
        return 0
      fi
      ;;
    full_disk)
      if [[ "$HAVE_UNSHARE" != 1 ]]; then
        echo "SKIP  full_disk: needs unshare -m (root) for a private tmpfs"
        return 0
      fi
      in_tmpfs full_disk disk size=640k
      ;;
    full_disk_checkpointed)
      if [[ "$HAVE_UNSHARE" != 1 ]]; then
        echo "SKIP  full_disk_checkpointed: needs unshare -m (root) for a private tmpfs"
        return 0
      fi
      in_tmpfs full_disk_checkpointed disk size=640k
      ;;
    checkpoint_full_disk)
      if [[ "$HAVE_UNSHARE" != 1 ]]; then
        echo "SKIP  checkpoint_full_disk: needs unshare -m (root) for a private tmpfs"
        return 0
      fi
      in_tmpfs checkpoint_full_disk disk size=64k
      ;;
    *) "case_$name" ;;
  esac
  if ((${#problems[@]} == 0)); then
    echo "PASS  $name"
    rm -rf -- "$CASE_DIR" "$SCRATCH/$name".*
    return 0
  fi
  echo "FAIL  $name"
  local p
  for p in "${problems[@]}"; do echo "        - $p"; done
  for p in "$SCRATCH/$name".*err; do
    echo "        $p (first lines):"
    head -n 6 "$p" | sed 's/^/          | /'
  done
  return 1
}

# The part of a tmpfs case that runs inside the private mount namespace: mounts the tmpfs, runs
# the case and leaves its problems in $SCRATCH/NAME.problems for in_tmpfs.
inside() {
  local name=$1 point=$2 options=$3
  CASE_DIR="$SCRATCH/$name"
  problems=()
  mount -t tmpfs -o "$options" tmpfs "$CASE_DIR/$point" || die "cannot mount a tmpfs"
  "case_$name"
  if ((${#problems[@]})); then printf '%s\n' "${problems[@]}" >"$SCRATCH/$name.problems"; fi
}

main() {
  local inside_namespace=0
  if [[ "${1:-}" == --inside ]]; then
    inside_namespace=1
    shift
  fi
  (($# >= 3)) || die "usage: output_errors.sh HXSIM MPIRUN_SH SCRATCH_DIR"
  HXSIM=$(realpath -- "$1")
  MPIRUN=$(realpath -- "$2")
  SCRATCH=$3
  SELF=$(realpath -- "${BASH_SOURCE[0]}")
  CASES=$(dirname -- "$SELF")/cases
  TRACE=$(dirname -- "$SELF")/../../configs/traces/ring4.csv
  TIMEOUT=${HX_CLI_TIMEOUT:-60}
  [[ -x "$HXSIM" ]] || die "hxsim not found or not executable: $HXSIM"
  [[ -f "$MPIRUN" ]] || die "mpirun helper not found: $MPIRUN"
  [[ -n "$SCRATCH" && "$SCRATCH" != / ]] || die "refusing scratch directory '$SCRATCH'"
  mkdir -p -- "$SCRATCH"
  SCRATCH=$(cd "$SCRATCH" && pwd)
  if ((inside_namespace)); then
    inside "${@:4}"
    return
  fi

  HAVE_UNSHARE=0
  if unshare -m true 2>/dev/null; then HAVE_UNSHARE=1; fi
  local name passed=0 failed=0
  for name in missing_dir under_file read_only file_size_limit full_disk checkpoint_full_disk \
    full_disk_checkpointed not_regular names_input leftover_partial; do
    if run_case "$name"; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
  done
  echo "$passed passed, $failed failed"
  ((failed == 0))
}

main "$@"
