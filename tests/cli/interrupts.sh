#!/usr/bin/env bash
# Signals, --exit-after and damaged checkpoints, against the real hxsim binary (docs/OPERATIONS.md):
#   SIGTERM           exit 5, a readable output marked complete = 0 with the time reached, and a
#                     checkpoint that restarts to the same result as an uninterrupted run
#   SIGINT + SIGTERM  the second stop signal exits at once with 128 + its number
#   SIGTERM twice at once (GNU timeout: the child, then its process group): one stop, exit 5
#   SIGUSR1           a checkpoint, and the run goes on to an unchanged result (exit 0)
#   a signal before the handlers are installed: acted on at the first window, as --on-sigusr1
#                     says, not fatal
#   --exit-after      exit 5 with a checkpoint
#   --checkpoint-every wall:T   checkpoints every T of wall time, the newest --checkpoint-keep kept
#   SIGUSR2 (mpirun)  2 ranks stop with a checkpoint written by both
#   damaged or foreign checkpoints, an end time before the checkpoint's, and a later end from a
#                     checkpoint whose time series' last bin holds traffic: refused with exit 2
#                     and a message saying why, on every rank
# Usage: interrupts.sh HXSIM MPIRUN_SH H5COMPARE SCRATCH_DIR
set -euo pipefail
hxsim=$1 mpirun_sh=$2 h5compare=$3 scratch=$4
rm -rf "$scratch" && mkdir -p "$scratch" && cd "$scratch"

# PHOLD that runs for minutes unless stopped: ~4e3 events per simulated ns.
cat > long.toml <<'EOF'
[sim]
model = "phold"
end_time = "1ms"
seed = 5

[phold]
lps = 2000
group_size = 100
neighbors = 3
remote_probability = 0.1
mean_delay = "1ns"
link_latency = "50ns"
events_per_lp = 2
EOF

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pass() { echo "PASS: $*"; }

attr() {  # attr FILE GROUP NAME: prints an HDF5 attribute
  /usr/bin/python3 -c "import h5py,sys; print(h5py.File(sys.argv[1])[sys.argv[2]].attrs[sys.argv[3]])" "$@"
}

# Starts hxsim in the background on one rank (no launcher, so signals reach it directly) and
# waits until it has simulated for a while: its progress lines say so.
start() {  # start NAME ARGS...; sets $pid
  local name=$1
  shift
  "$hxsim" run long.toml -o "$name.h5" --progress lines --progress-interval 0.2 "$@" \
    > "$name.log" 2>&1 &
  pid=$!
  for _ in $(seq 100); do
    grep -q "events/s" "$name.log" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "hxsim did not start:"; cat "$name.log"; exit 1
}
finish() {  # finish: waits for $pid; sets $rc to its exit code
  rc=0
  wait "$pid" || rc=$?
}

# --- SIGTERM: partial results, checkpoint, restart equals an uninterrupted run ---------------
start term
kill -TERM "$pid"
finish
if [ "$rc" = 5 ] && [ "$(attr term.h5 / complete)" = 0 ] && [ -f term.ckpt/latest ]; then
  pass "SIGTERM: exit 5, complete = 0, checkpoint $(cat term.ckpt/latest)"
else
  fail "SIGTERM: exit $rc"; cat term.log
fi
reached=$(attr term.h5 /summary sim_time_ps)
stop_at="$((reached + 200000))ps"  # 200 ns past the checkpoint
"$hxsim" run --restart term.ckpt --set "sim.end_time=$stop_at" -o restarted.h5 --progress off \
  > restarted.log 2>&1 || { fail "restart after SIGTERM"; cat restarted.log; }
"$hxsim" run long.toml --set "sim.end_time=$stop_at" -o reference.h5 --progress off > /dev/null
if /usr/bin/python3 "$h5compare" reference.h5 restarted.h5; then
  pass "restart from the SIGTERM checkpoint (at ${reached}ps) to $stop_at equals an uninterrupted run"
else
  fail "restart from the SIGTERM checkpoint differs from an uninterrupted run"
fi

# --- A second stop signal exits at once --------------------------------------------------------
start twice
kill -INT "$pid"
kill -TERM "$pid"
finish
[[ "$rc" = 130 || "$rc" = 143 ]] && grep -q "second stop signal" twice.log &&
  pass "SIGINT then SIGTERM: exit $rc (128 + the second signal)" ||
  { fail "second signal: exit $rc"; cat twice.log; }

# --- The same stop signal twice at once is one request ----------------------------------------
# GNU timeout signals its child and then its whole process group, so the run gets SIGTERM twice;
# when the first has been handled before the second comes (an instant that takes a while), the
# second must not exit at once. 200,000 LPs take seconds to stop (checkpoint and output).
sed 's/^lps = 2000$/lps = 200000/' long.toml > big.toml
"$hxsim" run big.toml -o dup.h5 --progress lines --progress-interval 0.2 > dup.log 2>&1 &
pid=$!
for _ in $(seq 100); do grep -q "events/s" dup.log && break; sleep 0.1; done
kill -TERM "$pid"
for _ in $(seq 400); do  # until the first is no longer pending: its handler has run
  pending=$(awk '/^(ShdPnd|SigPnd)/ {print $2}' "/proc/$pid/status" 2>/dev/null | sort -u)
  [[ "$pending" == 0000000000000000 ]] && break
  sleep 0.005
done
sent=0
kill -TERM "$pid" 2>/dev/null && sent=1
finish
if [ "$sent" = 1 ] && [ "$rc" = 5 ] && ! grep -q "second stop signal" dup.log &&
    [ -f dup.ckpt/latest ]; then
  pass "SIGTERM twice at once (as GNU timeout sends it): one stop, exit 5 with a checkpoint"
else
  fail "SIGTERM twice at once: exit $rc (second sent: $sent)"; cat dup.log
fi

# --- SIGUSR1: checkpoint and go on ---------------------------------------------------------------
"$hxsim" run long.toml --set sim.end_time=2us -o usr1_reference.h5 --progress off > /dev/null
"$hxsim" run long.toml --set sim.end_time=2us -o usr1.h5 --progress lines \
  --progress-interval 0.05 > usr1.log 2>&1 &
pid=$!
for _ in $(seq 100); do grep -q "events/s" usr1.log && break; sleep 0.02; done
kill -USR1 "$pid" 2>/dev/null || true  # the run may already be over on a fast machine
finish
if [ "$rc" = 0 ] && [ "$(attr usr1.h5 / complete)" = 1 ] &&
    /usr/bin/python3 "$h5compare" usr1_reference.h5 usr1.h5 > /dev/null; then
  pass "SIGUSR1: exit 0, results unchanged ($(grep -c 'checkpoint at' usr1.log) checkpoint(s))"
else
  fail "SIGUSR1: exit $rc"; cat usr1.log
fi

# --- Signals that arrive before the handlers are installed -----------------------------------
# One sent during MPI's start-up or the config's resolution waits for the run's handlers. Made
# certain here: hxsim starts with the signal already pending (blocked, sent, then exec).
early() {  # early SIGNAL NAME ARGS...: runs hxsim with SIGNAL pending from its start; sets $rc
  local sig=$1 name=$2
  shift 2
  rc=0
  /usr/bin/python3 -c 'import os, signal, sys
s = getattr(signal, "SIG" + sys.argv[1])
signal.pthread_sigmask(signal.SIG_BLOCK, {s})
os.kill(os.getpid(), s)
os.execv(sys.argv[2], sys.argv[2:])' "$sig" "$hxsim" run long.toml --set sim.end_time=2us \
    -o "$name.h5" --progress off "$@" > "$name.log" 2>&1 || rc=$?
}
early TERM early_term
[ "$rc" = 5 ] && [ "$(attr early_term.h5 / complete)" = 0 ] && [ -f early_term.ckpt/latest ] &&
  pass "SIGTERM before the handlers: exit 5 with a checkpoint at the first window" ||
  { fail "SIGTERM before the handlers: exit $rc"; cat early_term.log; }
early USR1 early_usr1
if [ "$rc" = 0 ] && [ -f early_usr1.ckpt/latest ] &&
    /usr/bin/python3 "$h5compare" usr1_reference.h5 early_usr1.h5 > /dev/null; then
  pass "SIGUSR1 before the handlers: a checkpoint, results unchanged"
else
  fail "SIGUSR1 before the handlers: exit $rc"; cat early_usr1.log
fi
early USR1 early_ignored --on-sigusr1 ignore
[ "$rc" = 0 ] && [ ! -e early_ignored.ckpt ] &&
  pass "SIGUSR1 before the handlers, --on-sigusr1 ignore: no checkpoint" ||
  { fail "SIGUSR1 before the handlers with --on-sigusr1 ignore: exit $rc"; cat early_ignored.log; }

# --- --exit-after ---------------------------------------------------------------------------
rc=0
"$hxsim" run long.toml -o exit_after.h5 --exit-after 1s --progress off > exit_after.log 2>&1 || rc=$?
[ "$rc" = 5 ] && [ -f exit_after.ckpt/latest ] && [ "$(attr exit_after.h5 / complete)" = 0 ] &&
  pass "--exit-after 1s: exit 5 with a checkpoint" || { fail "--exit-after: exit $rc"; cat exit_after.log; }

# --- Wall-clock checkpoints ---------------------------------------------------------------
rc=0
"$hxsim" run long.toml -o wall.h5 --checkpoint-every wall:0.5s --exit-after 2.2s --progress off \
  > wall.log 2>&1 || rc=$?
count=$(grep -c "checkpoint at" wall.log || true)
# Four every half second, then the one --exit-after takes; allow for a slow start.
[ "$rc" = 5 ] && [ "$count" -ge 3 ] && [ "$(ls -d wall.ckpt/ckpt-* | wc -l)" = 2 ] &&
  pass "--checkpoint-every wall:0.5s for 2.2 s: $count checkpoints, the newest 2 kept" ||
  { fail "wall-clock checkpoints: exit $rc, $count checkpoints"; cat wall.log; }

# --- SIGUSR2 through mpirun, 2 ranks ---------------------------------------------------------
bash "$mpirun_sh" -n 2 "$hxsim" run long.toml -o two.h5 --progress lines --progress-interval 0.2 \
  > two.log 2>&1 &
pid=$!
for _ in $(seq 100); do grep -q "events/s" two.log && break; sleep 0.1; done
kill -USR2 "$pid"  # mpirun (mpirun.sh execs it) forwards SIGUSR2 to the ranks
finish
if [ "$rc" = 5 ] && grep -q "^ranks = 2$" two.ckpt/ckpt-*/manifest; then
  pass "SIGUSR2 to mpirun: exit 5, checkpoint written by 2 ranks"
else
  fail "SIGUSR2 to mpirun: exit $rc"; cat two.log
fi

# --- Damaged and foreign checkpoints ------------------------------------------------------------
refused() {  # refused WHAT PATTERN RANKS ARGS...: hxsim must exit 2 with PATTERN in its message
  local what=$1 pattern=$2 ranks=$3 rc=0
  shift 3
  # One rank runs without mpirun: an mpirun whose rank fails waits seconds before it exits.
  local -a launch=()
  [ "$ranks" = 1 ] || launch=(bash "$mpirun_sh" -n "$ranks")
  "${launch[@]}" "$hxsim" run --progress off -o refused.h5 "$@" > refused.log 2>&1 || rc=$?
  if [ "$rc" = 2 ] && grep -q -- "$pattern" refused.log; then
    pass "$what: refused ($(grep -m1 'error' refused.log | cut -c1-110)...)"
  else
    fail "$what: exit $rc"; cat refused.log
  fi
}
good=two.ckpt/$(cat two.ckpt/latest)
copy() { rm -rf "$1" && cp -r "$good" "$1"; }

copy flipped
printf '\xff\xff\xff\xff' | dd of=flipped/rank-00001.bin bs=1 seek=100 conv=notrunc status=none
refused "a damaged component record (seen by rank 1 only)" "is damaged" 2 --restart flipped
copy truncated
truncate -s 20 truncated/rank-00000.idx
refused "a truncated index" "is damaged" 1 --restart truncated
copy unfinished
rm unfinished/manifest
refused "a checkpoint without manifest" "no manifest" 1 --restart unfinished
copy foreign
sed -i 's/^git_hash = .*/git_hash = 0123456789ab/; s/^boost_version = .*/boost_version = 1_0/' \
  foreign/manifest
refused "another build" "written by another build" 1 --restart foreign
refused "another config" "belongs to another config" 1 long.toml --set phold.lps=2100 --restart "$good"
refused "a missing checkpoint" "neither a checkpoint" 1 --restart no_such_dir
refused "an end time before the checkpoint's" "is before the time of checkpoint" 1 \
  --restart "$good" --set sim.end_time=1ns
# The quickstart with 1 ns bins, checkpointed 1 ns before its end: its last bin (from 600 ns)
# already holds flits cut ahead of time, which a later end would have to split over its bins.
"$hxsim" run --progress off -o near_end.h5 --set sim.end_time=600ns \
  --set traffic.timeseries_bin=1ns --checkpoint-every 599ns > near_end.log 2>&1 ||
  fail "the quickstart to 600 ns: exit $?"
refused "a later end from a time series' last bin" "past the start of its last bin" 1 \
  --restart near_end.ckpt --set sim.end_time=700ns

echo "$failures failure(s)"
[ "$failures" -eq 0 ]
