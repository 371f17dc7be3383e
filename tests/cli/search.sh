#!/usr/bin/env bash
# `hxsim search` end to end on a tiny dense model (4 layers, H 256) on a 16-endpoint crossbar:
#   - TP {1, 2, 4, 8, 16} x PP {1, 2, 4} with T P dividing 16 are 12 candidates, all of which
#     divide the model and fit: the CSV and the HDF5 /search table have 12 equal rows; the best
#     `top` = 3 ran (run_status 1, run_s > 0) and come first by run_s, the rest (run_s -1) follow
#     by analytic_s;
#   - on 1 rank (plans one after another), on 2 (one plan per rank) and, with top = 1, on 2
#     ranks running one plan together, the tables are the same (determinism across rank counts);
#   - a plan the model refuses on rank 1 only (tp_keys = ["llm.virtual_stages"] gives the TP 2,
#     PP 4 plan 2 x 4 chunks of 4 layers) is run_status 2 and the other rank does not hang;
#   - nothing divides (search.tp = [3]), nothing fits (search.memory_gib = 0.001) and
#     workload.kind = "collective" end every rank with exit code 2, the key named on stderr and
#     no output file;
#   - as for every hxsim output (docs/OUTPUT.md, README "Exit codes"): /config is TOML that
#     reproduces the search, and a CSV path that is a directory or an input is refused with exit
#     code 3 before anything is written.
# Every rank records its own exit code and mpirun does not abort the others when one fails, so
# a rank left hanging shows as a timeout.
# Usage: search.sh HXSIM MPIRUN_SH SCRATCH_DIR
set -euo pipefail
hxsim=$(realpath "$1") mpirun=$(realpath "$2") scratch=$3
rm -rf "$scratch" && mkdir -p "$scratch" && cd "$scratch"

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

cat >cfg_search.toml <<'EOF'
[sim]
model = "crossbar"
fidelity = "flow"

[crossbar]
endpoints = 16

[router]
flit_size = "64B"

[traffic]
flows = "none"

[workload]
kind = "llm"

[llm]
preset = "gpt3-175b"
layers = 4
hidden = 256
ffn = 1024
heads = 16
kv_heads = 16
vocab = 1024
seq = 128
tp = 4
dp = 4
pp = 1
micro_batches = 4

[search]
tp = [1, 2, 4, 8, 16]
pp = [1, 2, 4]
top = 3
EOF
sed 's/^kind = "llm"/kind = "collective"/' cfg_search.toml >cfg_collective.toml

# search NAME RANKS CONFIG ARGS...: hxsim search CONFIG -o NAME.h5 ARGS on RANKS ranks; stdout
# and stderr to NAME.out and NAME.err, each rank's exit code to NAME.rc.<rank>.
search() {
  local name=$1 ranks=$2 config=$3
  shift 3
  rm -f "$name.out" "$name.err" "$name".rc.*  # the scratch starts empty: no old outputs
  # shellcheck disable=SC2016  # the wrapper's own "$@", expanded by the inner bash
  OMPI_MCA_orte_abort_on_non_zero_status=0 timeout -k 5 120 bash "$mpirun" -n "$ranks" \
    bash -c 'rc=0; "${@:2}" || rc=$?; echo $rc >"$1.rc.${OMPI_COMM_WORLD_RANK:-0}"; exit $rc' \
    rank "$name" "$hxsim" search "$config" -o "$name.h5" "$@" \
    </dev/null >"$name.out" 2>"$name.err" || true
}

# expect_exit NAME RANKS CODE: every rank of run NAME exited with CODE.
expect_exit() {
  local name=$1 ranks=$2 want=$3 rank
  for ((rank = 0; rank < ranks; rank++)); do
    [[ -f "$name.rc.$rank" ]] || fail "$name: rank $rank did not finish (hang?): $(cat "$name.err")"
    [[ "$(<"$name.rc.$rank")" == "$want" ]] ||
      fail "$name: rank $rank exit $(<"$name.rc.$rank"), expected $want: $(cat "$name.err")"
  done
}

# The checks of one output pair, and of two outputs against each other.
cat >check.py <<'EOF'
import csv, sys
import h5py, numpy as np

def table(name):
    """The /search table and the CSV beside it, which must hold the same rows."""
    with h5py.File(name + ".h5", "r") as f:
        h5 = {k: f["search"][k][()] for k in f["search"]}
        summary = dict(f["summary"].attrs)
    with open(name + ".csv") as fh:
        rows = list(csv.DictReader(fh))
    assert rows, f"{name}.csv: no rows"
    cols = [c for c in rows[0] if c != "rank"]
    assert sorted(cols) == sorted(k for k in h5 if k != "plan"), (cols, sorted(h5))
    assert len(rows) == len(h5["plan"]), (len(rows), len(h5["plan"]))
    names = ["none", "selective", "full"]  # a choice column: its index in the HDF5 table
    for i, row in enumerate(rows):
        assert int(row["rank"]) == i == h5["plan"][i], (i, row["rank"])
        for c in cols:
            text, want = row[c], h5[c][i]
            got = names.index(text) if text in names else float(text)
            # The CSV prints 6 significant digits.
            assert np.isclose(got, want, rtol=1e-5, atol=0), f"{name} row {i} {c}: {text} vs {want}"
    return h5, summary

def ranked(name, ran, refused):
    """`ran` runs first by run_s, then the rest by analytic_s; `refused` of those are status 2."""
    h5, summary = table(name)
    status, run_s, analytic = h5["run_status"], h5["run_s"], h5["analytic_s"]
    assert len(status) == 12, len(status)  # every candidate divides and fits
    assert (summary["candidates"], summary["indivisible"], summary["too_big"]) == (12, 0, 0)
    assert (summary["gpus"], summary["global_batch"]) == (16, 16), summary
    assert list(status[:ran]) == [1] * ran, f"{name}: run_status {list(status)}"
    assert (run_s[:ran] > 0).all() and (np.diff(run_s[:ran]) >= 0).all(), f"{name}: {run_s}"
    rest = slice(ran, None)
    assert (run_s[rest] == -1).all(), f"{name}: run_s {run_s}"
    assert sorted(status[rest]) == [0] * (12 - ran - refused) + [2] * refused, list(status)
    assert (np.diff(analytic[rest]) >= 0).all(), f"{name}: analytic_s {analytic}"
    return h5

def same(a, b):
    ta, tb = table(a)[0], table(b)[0]
    for k in ta:
        assert np.array_equal(ta[k], tb[k]), f"{a} and {b} differ in {k}: {ta[k]} vs {tb[k]}"

cmd, args = sys.argv[1], sys.argv[2:]
if cmd == "ranked":
    ranked(args[0], int(args[1]), int(args[2]))
elif cmd == "same":
    same(*args)
elif cmd == "top1":
    # The one plan run by both ranks together has the run_s it had on 1 rank alone.
    one, top1 = table(args[0])[0], table(args[1])[0]
    assert top1["run_status"][0] == 1 and (top1["run_status"][1:] == 0).all()
    key = lambda t, i: tuple(int(t[c][i]) for c in ("tp", "cp", "ep", "dp", "pp", "micro_batch"))
    i = [key(one, j) for j in range(12)].index(key(top1, 0))
    assert one["run_s"][i] == top1["run_s"][0], (one["run_s"][i], top1["run_s"][0])
elif cmd == "config":
    # /config to a file, which must be TOML.
    import re, tomllib
    with h5py.File(args[0] + ".h5", "r") as f:
        text = f["config"][()].decode()
    with open(args[1], "w") as out:
        out.write(text)
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        at = re.search(r"line (\d+)", str(e))
        sys.exit(f"{e}: {text.splitlines()[int(at[1]) - 1] if at else ''}")
EOF
check() { /usr/bin/python3 check.py "$@" || fail "check $*"; }

start=$SECONDS
search two 2 cfg_search.toml
expect_exit two 2 0
check ranked two 3 0
search one 1 cfg_search.toml
expect_exit one 1 0
check ranked one 3 0
check same one two
search top1 2 cfg_search.toml --set search.top=1
expect_exit top1 2 0
check ranked top1 1 0
check top1 one top1

search refused 2 cfg_search.toml --set 'search.tp_keys=["llm.virtual_stages"]' --set search.top=4
expect_exit refused 2 0
check ranked refused 3 1
grep -q "plan tp 2 pp 4 .*refused: llm.virtual_stages" refused.err || fail "refused: $(cat refused.err)"
search refused1 1 cfg_search.toml --set 'search.tp_keys=["llm.virtual_stages"]' --set search.top=4
expect_exit refused1 1 0
check same refused refused1
echo "PASS: search on 1 and 2 ranks: 12 plans, the best 3 run, identical tables"

# bad NAME CONFIG KEY ARGS...: exit 2 on both ranks, KEY in the error, no output.
bad() {
  local name=$1 config=$2 key=$3
  shift 3
  search "$name" 2 "$config" "$@"
  expect_exit "$name" 2 2
  grep -q "hxsim: error: .*$key" "$name.err" || fail "$name: no error naming $key: $(cat "$name.err")"
  [[ ! -e "$name.h5" && ! -e "$name.csv" ]] || fail "$name: output left behind: $(ls "$name".*)"
  echo "PASS: $name refused: $(grep -m1 "hxsim: error" "$name.err" | cut -c1-120)"
}
bad indivisible cfg_search.toml search.tp --set 'search.tp=[3]'
bad too_big cfg_search.toml search.memory_gib --set search.memory_gib=0.001
bad collective cfg_collective.toml workload.kind

# The outputs as every hxsim output has them (docs/OUTPUT.md): /config is the resolved config
# as TOML, which reproduces the search; the CSV, like the HDF5 file, is checked before the run
# (exit 3, the path named) and never replaces an input. Each problem is listed, then the test
# fails.
problems=()
toml=$(/usr/bin/python3 check.py config one cfg_reproduce.toml 2>&1) ||
  problems+=("/config of one.h5 is not TOML: $(tail -1 <<<"$toml")")
search reproduce 1 cfg_reproduce.toml
if [[ "$(cat reproduce.rc.0 2>/dev/null)" != 0 ]]; then
  problems+=("hxsim search on /config of one.h5 fails: $(grep -m1 "hxsim: error" reproduce.err)")
elif ! /usr/bin/python3 check.py same one reproduce 2>/dev/null; then
  problems+=("hxsim search on /config of one.h5 gives another table")
fi

mkdir blocked.csv  # a directory where the CSV goes
search blocked 2 cfg_search.toml
if [[ "$(cat blocked.rc.0 2>/dev/null)" != 3 ]] ||
  ! grep -q "hxsim: error: .*blocked.csv" blocked.err; then
  problems+=("directory blocked.csv: exit $(cat blocked.rc.0), expected 3 naming blocked.csv")
fi

cp cfg_search.toml input.csv  # a config whose name the CSV would take
search input 2 input.csv
if [[ "$(cat input.rc.0 2>/dev/null)" != 3 ]] || ! cmp -s cfg_search.toml input.csv; then
  problems+=("config input.csv: exit $(cat input.rc.0), expected 3 and the config unchanged; $(
    cmp -s cfg_search.toml input.csv && echo unchanged || echo "the CSV replaced it")")
fi

if ((${#problems[@]})); then
  printf 'FAIL: %s\n' "${problems[@]}" >&2
  exit 1
fi
echo "PASS: search.sh in $((SECONDS - start)) s"
