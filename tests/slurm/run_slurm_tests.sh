#!/usr/bin/env bash
# The slurm/ templates on a real Slurm: starts a private one-node Slurm (scripts/slurm_local.sh,
# which installs slurm-wlm, munge and libpmix-dev if missing), submits the templates with sbatch,
# waits for the jobs and checks their results, then stops every daemon it started (EXIT trap).
#   run.sbatch with srun --mpi=pmix and with mpirun: complete results, equal to each other
#   sweep_array.sbatch, a 2-entry table with comments: one complete result per entry
#   scaling.sbatch, strong series 1;2 ranks: complete results, equal (any rank count, same data)
#   requeue.sbatch: SIGUSR1 to the batch shell (sent by the test, as Slurm's --signal=B:USR1
#     would) -> checkpoint, exit 5, scontrol requeue, resume from the checkpoint; the final
#     result is complete and equal to that of an uninterrupted run to the same end time
# Usage: run_slurm_tests.sh HXSIM REPO_ROOT SCRATCH_DIR
# Exit status 77 (ctest: skipped) without root or password-less sudo, which Slurm's daemons need.
set -euo pipefail
hxsim=$1 root=$2 scratch=$3
if [[ "$(id -u)" != 0 ]] && ! sudo -n true 2>/dev/null; then
  echo "slurm test: skipped: needs root or password-less sudo to run Slurm's daemons"
  exit 77
fi
h5compare=$root/scripts/h5compare.py
begin=$SECONDS

rm -rf "$scratch" && mkdir -p "$scratch"
# Slurm's state lives outside the build tree: munge's socket path must stay short (108 bytes).
slurm_dir=$(mktemp -d /tmp/hxsim-slurm-test.XXXXXX)
cleanup() {
  bash "$root/scripts/slurm_local.sh" stop "$slurm_dir" || true
  rm -rf "$slurm_dir"
}
trap cleanup EXIT
bash "$root/scripts/slurm_local.sh" start "$slurm_dir"
# shellcheck source=/dev/null
source "$slurm_dir/env"
echo "slurm test: Slurm up after $((SECONDS - begin)) s"

# The jobs run in $scratch (sbatch's working directory is the submit directory); the templates
# take everything else from the environment, which sbatch passes on.
cd "$scratch"
export HXSIM=$hxsim MPIRUN=$root/scripts/mpirun.sh
short="traffic.warmup=300cycles traffic.measure=1000cycles"
submit() { sbatch --parsable "$@"; }

# The requeue case must not depend on the machine's speed: its first start runs to
# sim.end_time = 1 s, hours of PHOLD, so it cannot end before the signal, which the test sends
# itself (scancel --batch --signal=USR1, what Slurm's --signal=B:USR1@600 does before a time
# limit) once hxsim's progress lines show it running: the batch shell's trap and hxsim's signal
# handlers are in place by then. HXSIM is a wrapper that gives the resumed start (--restart)
# sim.end_time = the checkpoint's time + 1,000 ns and writes that end time down; the reference
# run, uninterrupted, goes to the same end time. Total: the short jobs, Slurm's requeue delay
# (cred_expire + 1 = 11 s) and about 20 s of PHOLD.
phold="$root/configs/bench_phold.toml"
cat >hxsim-resume <<EOF
#!/bin/bash
# hxsim, except that a resumed start ends 1,000 ns after the checkpoint it resumes from.
args=("\$@")
for ((i = 0; i + 1 < \${#args[@]}; i++)); do
  if [[ "\${args[i]}" == --restart ]]; then
    dir=\${args[i + 1]}
    end=\$((\$(sed -n 's/^time_ps = //p' "\$dir/\$(cat "\$dir/latest")/manifest") + 1000000))ps
    echo "\$end" >requeue.end_time
    exec "$hxsim" "\$@" --set "sim.end_time=\$end"
  fi
done
exec "$hxsim" "\$@"
EOF
chmod +x hxsim-resume

requeue_job=$(CONFIG=$phold SET=sim.end_time=1s OUTPUT=requeue.h5 HXSIM=$scratch/hxsim-resume \
  HXSIM_ARGS="--progress-interval 0.5" submit -n 1 "$root/slurm/requeue.sbatch")
srun_job=$(SET=$short OUTPUT=run-srun.h5 submit -n 2 "$root/slurm/run.sbatch")
mpirun_job=$(LAUNCHER=mpirun SET=$short OUTPUT=run-mpirun.h5 submit -n 2 "$root/slurm/run.sbatch")
cat >sweep.txt <<EOF
# two entries: the quickstart at two loads
$root/configs/quickstart.toml traffic.load=0.2 $short
$root/configs/quickstart.toml traffic.load=0.5 $short   # a trailing comment

EOF
sweep_job=$(TABLE=sweep.txt OUTPUT_DIR=sweep submit -n 1 --array=1-2 "$root/slurm/sweep_array.sbatch")
scaling_job=$(CONFIG=$phold SET="sim.end_time=100ns phold.lps=20000" SERIES="1; 2" \
  OUTPUT_DIR=scaling submit -n 2 "$root/slurm/scaling.sbatch")
echo "slurm test: submitted requeue $requeue_job, run $srun_job (srun), $mpirun_job (mpirun)," \
  "sweep $sweep_job, scaling $scaling_job"

diagnose() {
  echo "--- squeue"; squeue || true
  local f
  for f in *.out; do echo "--- $f"; cat "$f"; done
  echo "--- slurmctld.log (end)"; tail -30 "$slurm_dir/log/slurmctld.log" || true
  echo "--- slurmd.log (end)"; tail -30 "$slurm_dir/log/slurmd.log" || true
}
fail() {
  echo "slurm test: FAIL: $*"
  diagnose
  exit 1
}

# `scontrol show job -o` lines of a job (one per array task), empty once Slurm has forgotten it.
job_lines() { scontrol show job -o "$1" 2>/dev/null || true; }
field() { grep -o "\b$1=[^ ]*" <<<"$2" | head -1 | cut -d= -f2; }

# Waits until hxsim in job $1 reports progress (a generous limit only guards against a hang),
# then sends SIGUSR1 to the job's batch shell.
signal_when_running() {
  local job=$1 deadline=$((SECONDS + 240))
  until grep -q "events/s" "hxsim-long-$job.out" 2>/dev/null; do
    case $(field JobState "$(job_lines "$job")") in
      PENDING | CONFIGURING | RUNNING) ;;
      *) fail "job $job ended before hxsim reported progress" ;;
    esac
    ((SECONDS < deadline)) || fail "job $job: no progress from hxsim within 240 s"
    sleep 0.2
  done
  scancel --batch --signal=USR1 "$job"
  echo "slurm test: job $job running after $((SECONDS - begin)) s; SIGUSR1 sent to its batch shell"
}

# Waits for all the given jobs (every task of an array) to end; polls them together so that none
# is forgotten by Slurm (MinJobAge) while another one is waited for. Fills final_state[job] with
# the states of its tasks and restarts[job] with its requeue count.
declare -A final_state restarts
wait_all() {
  local deadline=$((SECONDS + 240)) job line lines state states done_all
  while :; do
    done_all=1
    for job in "$@"; do
      [[ -z "${final_state[$job]:-}" ]] || continue
      lines=$(job_lines "$job")
      [[ -n "$lines" ]] || fail "Slurm forgot job $job before its end was seen"
      states=""
      while IFS= read -r line; do
        state=$(field JobState "$line")
        case $state in
          COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY | BOOT_FAIL | \
            DEADLINE | PREEMPTED) ;;
          *) # pending, running, completing, requeued, ...
            states=""
            done_all=0
            break
            ;;
        esac
        states+="$state "
        restarts[$job]=$(field Restarts "$line")
      done <<<"$lines"
      [[ -z "$states" ]] || final_state[$job]=${states% }
    done
    ((done_all)) && return 0
    ((SECONDS < deadline)) || fail "jobs still running after 240 s"
    sleep 0.5
  done
}

signal_when_running "$requeue_job"
wait_all "$requeue_job" "$srun_job" "$mpirun_job" "$sweep_job" "$scaling_job"
echo "slurm test: all jobs ended after $((SECONDS - begin)) s"
reference_end=$(cat requeue.end_time 2>/dev/null) || fail "the resumed start wrote no end time"
"$hxsim" run "$phold" --set "sim.end_time=$reference_end" -o reference.h5 --progress off \
  >reference.log 2>&1 || fail "the reference run to $reference_end failed: $(cat reference.log)"
echo "slurm test: reference run to $reference_end done after $((SECONDS - begin)) s"

failed=0
check() { # check DESCRIPTION COMMAND...: runs the command, prints PASS or FAIL
  if "${@:2}"; then
    echo "PASS $1"
  else
    echo "FAIL $1"
    failed=$((failed + 1))
  fi
}
completed() { # completed JOB [TASKS]: every task of the job ended COMPLETED (exit status 0)
  local want=COMPLETED i
  for ((i = 1; i < ${2:-1}; i++)); do want+=" COMPLETED"; done
  [[ "${final_state[$1]}" == "$want" ]] || { echo "job $1: ${final_state[$1]}"; return 1; }
}
complete_h5() { # complete_h5 FILE...: each file exists and its root attribute complete is 1
  /usr/bin/python3 - "$@" <<'PY'
import sys
import h5py
bad = 0
for path in sys.argv[1:]:
    try:
        with h5py.File(path, "r") as f:
            if int(f.attrs["complete"]) != 1:
                print(f"{path}: complete = {f.attrs['complete']}")
                bad += 1
    except (OSError, KeyError) as e:
        print(f"{path}: {e}")
        bad += 1
sys.exit(1 if bad else 0)
PY
}
same_h5() { /usr/bin/python3 "$h5compare" "$1" "$2"; }
differ_h5() { ! /usr/bin/python3 "$h5compare" "$1" "$2" >/dev/null; }
log_has() { grep -q -e "$2" "$1" || { echo "$1 lacks '$2'"; return 1; }; }
tsv_rows() { [[ "$(($(wc -l <"$1") - 1))" == "$2" ]]; }

check "run.sbatch with srun --mpi=pmix completed" completed "$srun_job"
check "run.sbatch with mpirun completed" completed "$mpirun_job"
check "run.sbatch results complete" complete_h5 run-srun.h5 run-mpirun.h5
check "run.sbatch: srun and mpirun results equal" same_h5 run-srun.h5 run-mpirun.h5
check "sweep_array.sbatch: both tasks completed" completed "$sweep_job" 2
check "sweep_array.sbatch results complete" complete_h5 sweep/task-1.h5 sweep/task-2.h5
check "sweep_array.sbatch: the two entries differ" differ_h5 sweep/task-1.h5 sweep/task-2.h5
check "scaling.sbatch completed" completed "$scaling_job"
check "scaling.sbatch results complete" complete_h5 scaling/step1-np1.h5 scaling/step2-np2.h5
check "scaling.sbatch: 1 and 2 ranks give equal results" \
  same_h5 scaling/step1-np1.h5 scaling/step2-np2.h5
check "scaling.sbatch: scaling.tsv has a row per step" tsv_rows scaling/scaling.tsv 2
check "requeue.sbatch completed" completed "$requeue_job"
check "requeue.sbatch: requeued once" test "${restarts[$requeue_job]}" = 1
check "requeue.sbatch: USR1 forwarded" log_has "hxsim-long-$requeue_job.out" "SIGUSR1 at"
check "requeue.sbatch: requeued after the checkpoint" \
  log_has "hxsim-long-$requeue_job.out" "requeueing job"
check "requeue.sbatch: second start resumed" log_has "hxsim-long-$requeue_job.out" "--restart"
check "requeue.sbatch result complete" complete_h5 requeue.h5 reference.h5
check "requeue.sbatch result equals the uninterrupted run" same_h5 requeue.h5 reference.h5

echo "slurm test: $((SECONDS - begin)) s in all"
if ((failed)); then
  diagnose
  echo "slurm test: $failed check(s) failed"
  exit 1
fi
