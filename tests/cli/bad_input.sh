#!/usr/bin/env bash
# Bad-input corpus for the hxsim command line (DESIGN.md rule 8): runs every case of a corpus file
# on 2 MPI ranks and checks that hxsim fails cleanly:
#   - every rank exits by itself with the expected code (2 input error, 3 output path error,
#     4 deadlock: the watchdog stopped a run, or `hxsim verify` found a cycle):
#     each rank records its own exit code, and mpirun is told not to abort the job when one rank
#     fails, so a rank left hanging (say, in a collective rank 0 never joined) is a timeout,
#     not hidden by mpirun killing it;
#   - stderr holds exactly one "hxsim: error: " message (from rank 0, not one per rank),
#     and the expected substring (counted by the prefix: one message may name a key twice);
#     or, for an expected substring written "stdout:TEXT", a verdict rather than an error
#     (`hxsim verify` finding a cycle prints its report and exits 4): TEXT on stdout and no
#     "hxsim: error: " message at all;
#   - nothing crashed (no "Segmentation fault", "signal", "core dumped", uncaught exception,
#     MPI_ABORT) and nothing hung (each case has a time limit);
#   - no output was left behind: no file under the -o name, no "<name>.*.partial", and nothing new
#     in the case's scratch directory (hxsim runs there, so stray relative files are caught too).
#
# Usage: bad_input.sh HXSIM MPIRUN_SH SCRATCH_DIR CORPUS
# Corpus lines: <exit code> | <expected stderr substring, or stdout:<substring>> | <hxsim arguments>
#   Blank lines and lines starting with # are skipped. Arguments are split like a shell would
#   (quotes work, no expansion). Tokens, in the substring and the arguments:
#     @CASES@    the cases/ directory next to the corpus (small bad TOML files)
#     @SCRATCH@  this case's own empty scratch directory (an existing directory)
#     @OUT@      @SCRATCH@/out.h5, a fresh output path
# Environment: HX_CLI_RANKS (default 2), HX_CLI_TIMEOUT seconds per case (default 60).
set -euo pipefail

CRASH_PATTERN='Segmentation fault|signal|core dumped|terminate called|MPI_ABORT|Aborted|internal error'
ERROR_PREFIX='hxsim: error: '
# Runs one rank ("$@" after the record prefix) and writes its exit code to <prefix>.<rank>.
# shellcheck disable=SC2016  # expanded by the per-rank shell, not here
RANK_WRAPPER='"${@:2}"; echo $? >"$1.${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-${SLURM_PROCID:-0}}}"'

die() {
  echo "bad_input.sh: $*" >&2
  exit 2
}

# Splits an argument string into NUL-separated words, honouring quotes, without expansion.
split_words() {
  if [[ -n "${1//[[:space:]]/}" ]]; then
    printf '%s' "$1" | xargs printf '%s\0'
  fi
}

trim() {
  local s=$1
  s=${s#"${s%%[![:space:]]*}"}
  s=${s%"${s##*[![:space:]]}"}
  printf '%s' "$s"
}

# Counts non-overlapping occurrences of a fixed string in a file.
count_of() {
  { grep -oF -- "$1" "$2" || true; } | wc -l
}

# expand_tokens TEXT CASE_DIR: replaces @CASES@, @OUT@ and @SCRATCH@.
expand_tokens() {
  local text=$1 dir=$2
  text=${text//@CASES@/"$CASES"}
  text=${text//@OUT@/"$dir/out.h5"}
  text=${text//@SCRATCH@/"$dir"}
  printf '%s' "$text"
}

# Prints the paths that follow -o/--output in the arguments.
output_paths() {
  while (($#)); do
    case $1 in
      -o | --output)
        if (($# >= 2)); then printf '%s\n' "$2"; fi
        ;;
      --output=*) printf '%s\n' "${1#--output=}" ;;
    esac
    shift
  done
}

# run_case NUMBER EXPECTED_CODE EXPECTED_SUBSTRING ARGSTRING; prints PASS/FAIL; returns 1 on FAIL.
run_case() {
  local num=$1 want_code=$2 want_text=$3 argstr=$4
  local dir="$SCRATCH/case$num"
  rm -rf -- "$dir"
  mkdir -p -- "$dir"
  want_text=$(expand_tokens "$want_text" "$dir")
  local words="$SCRATCH/case$num.args"
  split_words "$(expand_tokens "$argstr" "$dir")" >"$words" || {
    echo "FAIL  $num: cannot split the arguments (unbalanced quotes?): $argstr"
    return 1
  }
  local -a args
  mapfile -d '' -t args <"$words"
  rm -f -- "$words"

  # Output paths that exist before the run (e.g. a directory given as -o) are not "left behind".
  local -a outs fresh_outs=()
  local partial
  mapfile -t outs < <(output_paths "${args[@]}")
  local o
  for o in "${outs[@]}"; do
    [[ -e "$o" ]] || fresh_outs+=("$o")
  done

  local out_file="$SCRATCH/case$num.stdout" err_file="$SCRATCH/case$num.stderr" code=0
  local rc_prefix="$SCRATCH/case$num.rc"
  rm -f -- "$rc_prefix".*
  (cd "$dir" && OMPI_MCA_orte_abort_on_non_zero_status=0 timeout -k 5 "$TIMEOUT" \
    "$MPIRUN" -n "$RANKS" bash -c "$RANK_WRAPPER" rank_wrapper "$rc_prefix" "$HXSIM" "${args[@]}") \
    </dev/null >"$out_file" 2>"$err_file" || code=$?

  local -a problems=()
  if ((code == 124 || code == 137)); then
    problems+=("timed out after ${TIMEOUT}s (a rank hangs?)")
  fi
  local rank rank_code
  for ((rank = 0; rank < RANKS; rank++)); do
    if [[ ! -f "$rc_prefix.$rank" ]]; then
      problems+=("rank $rank did not finish (mpirun exit code $code)")
      continue
    fi
    rank_code=$(<"$rc_prefix.$rank")
    [[ "$rank_code" == "$want_code" ]] ||
      problems+=("rank $rank exit code $rank_code, expected $want_code")
  done
  rm -f -- "$rc_prefix".*
  local n_errors n_text want_errors=1 text_in=stderr text_file=$err_file
  if [[ "$want_text" == stdout:* ]]; then
    want_errors=0 text_in=stdout text_file=$out_file
    want_text=${want_text#stdout:}
  fi
  n_errors=$(count_of "$ERROR_PREFIX" "$err_file")
  n_text=$(count_of "$want_text" "$text_file")
  ((n_errors == want_errors)) ||
    problems+=("$n_errors '${ERROR_PREFIX}' messages on stderr, expected $want_errors")
  ((n_text >= 1)) || problems+=("$text_in does not mention '$want_text'")
  if grep -qE "$CRASH_PATTERN" "$out_file" "$err_file"; then
    problems+=("crash: $(grep -hE "$CRASH_PATTERN" "$out_file" "$err_file" | head -1)")
  fi
  for o in "${fresh_outs[@]}"; do
    [[ ! -e "$o" ]] || problems+=("output left behind: $o")
  done
  for o in "${outs[@]}"; do
    for partial in "$o".*.partial; do
      [[ ! -e "$partial" ]] || problems+=("partial output left behind: $partial")
    done
  done
  local left
  left=$(find "$dir" -mindepth 1 -maxdepth 1 -printf '%f ' 2>/dev/null)
  [[ -z "$left" ]] || problems+=("files left in the scratch directory: $left")

  if ((${#problems[@]} == 0)); then
    echo "PASS  $num: $argstr"
    rm -rf -- "$dir" "$out_file" "$err_file"
    return 0
  fi
  echo "FAIL  $num: $argstr"
  local p
  for p in "${problems[@]}"; do echo "        - $p"; done
  echo "        stderr (first lines, full text in $err_file):"
  head -n 8 "$err_file" | sed 's/^/          | /'
  if [[ "$text_in" == stdout ]]; then
    echo "        stdout (first lines, full text in $out_file):"
    head -n 8 "$out_file" | sed 's/^/          | /'
  fi
  return 1
}

main() {
  (($# == 4)) || die "usage: bad_input.sh HXSIM MPIRUN_SH SCRATCH_DIR CORPUS"
  HXSIM=$1 MPIRUN=$2 SCRATCH=$3
  local corpus=$4
  [[ -x "$HXSIM" ]] || die "hxsim not found or not executable: $HXSIM"
  [[ -f "$MPIRUN" ]] || die "mpirun helper not found: $MPIRUN"
  [[ -f "$corpus" ]] || die "corpus not found: $corpus"
  [[ -n "$SCRATCH" && "$SCRATCH" != / ]] || die "refusing scratch directory '$SCRATCH'"
  HXSIM=$(realpath -- "$HXSIM")
  MPIRUN=$(realpath -- "$MPIRUN")
  CASES=$(cd "$(dirname "$corpus")" && pwd)/cases
  mkdir -p -- "$SCRATCH"
  SCRATCH=$(cd "$SCRATCH" && pwd)
  RANKS=${HX_CLI_RANKS:-2}
  TIMEOUT=${HX_CLI_TIMEOUT:-60}

  local line num=0 passed=0 failed=0 code text argstr
  while IFS= read -r line || [[ -n "$line" ]]; do
    [[ -z "$(trim "$line")" || "$(trim "$line")" == \#* ]] && continue
    num=$((num + 1))
    IFS='|' read -r code text argstr <<<"$line"
    code=$(trim "$code")
    text=$(trim "$text")
    argstr=$(trim "$argstr")
    if [[ ! "$code" =~ ^[0-9]+$ || -z "$text" ]]; then
      echo "FAIL  $num: malformed corpus line: $line"
      failed=$((failed + 1))
      continue
    fi
    if run_case "$num" "$code" "$text" "$argstr"; then
      passed=$((passed + 1))
    else
      failed=$((failed + 1))
    fi
  done <"$corpus"

  echo "$passed passed, $failed failed"
  ((failed == 0 && passed > 0))
}

main "$@"
