#!/usr/bin/env bash
# A private one-node Slurm on this machine, for trying the slurm/ templates and for the Slurm tests:
#   scripts/slurm_local.sh start [DIR]    install what is missing, start munged, slurmctld, slurmd
#   scripts/slurm_local.sh stop [DIR]     cancel its jobs, stop exactly the daemons that start began
#   scripts/slurm_local.sh status [DIR]   which of them run; sinfo when they do (exit 3 if not all)
# then point the Slurm commands at it:  source DIR/env   (sets SLURM_CONF)
#
# DIR (default $HX_SLURM_DIR, else /tmp/hxsim-slurm) holds everything: slurm.conf, a munge key and
# socket, state, spool, logs and the daemons' pids. The daemons read nothing under /etc, and the
# machine's own munged or Slurm (if any) are left alone: this munged listens on DIR/munge/socket
# and the Slurm ports are the first free pair from 16817 (or $HX_SLURM_PORT and +1).
# Node: "localhost" with $(nproc) CPUs (or $HX_SLURM_CPUS), partition "debug".
#
# start and stop are idempotent. start on a DIR whose daemons all run only waits for the node to
# be idle; otherwise it stops any leftovers of DIR and starts afresh (empty state, job ids from 1).
# A start that fails stops what it started. Needs root (re-runs itself with sudo -n otherwise).
# Packages: slurm-wlm, munge, libpmix-dev (srun --mpi=pmix), installed with apt if missing.
set -euo pipefail

SLURM_PACKAGES=(slurm-wlm munge libpmix-dev)
DAEMONS=(munged slurmctld slurmd) # start order; stop goes in reverse

say() { printf 'slurm_local: %s\n' "$*" >&2; }
die() {
  say "error: $*"
  exit 1
}

usage() {
  echo "usage: scripts/slurm_local.sh start|stop|status [DIR]" >&2
  exit 2
}

# Installs the Slurm packages that are missing, with scripts/setup.sh's apt logic (only missing
# packages, lock timeout, a check afterwards). The packages' own service starts are irrelevant here.
install_packages() {
  # shellcheck source=setup.sh
  source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
  # shellcheck disable=SC2034 # the list hx_install_packages reads
  HX_PACKAGES=("${SLURM_PACKAGES[@]}")
  hx_install_packages >&2
}

# The pid recorded for daemon $1 if that process still runs that program, else nothing. The
# program-name check guards against a stale pid file whose pid was reused.
live_pid() {
  local name=$1 pid
  pid=$(cat "$dir/run/$name.pid" 2>/dev/null) || return 0
  [[ "$pid" =~ ^[0-9]+$ ]] || return 0
  if [[ "$(cat "/proc/$pid/comm" 2>/dev/null)" == "$name" ]]; then
    echo "$pid"
  fi
}

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# First port p >= $1 with p and p+1 both free (slurmctld, slurmd).
free_port_pair() {
  local port=$1
  while port_in_use "$port" || port_in_use $((port + 1)); do
    port=$((port + 2))
    ((port < 65000)) || die "no free port pair above $1"
  done
  echo "$port"
}

write_config() {
  local port cpus
  port=${HX_SLURM_PORT:-$(free_port_pair 16817)}
  cpus=${HX_SLURM_CPUS:-$(nproc)}
  # Non-cgroup plugins (linuxproc, task/none): they work in containers and need no systemd.
  # Short waits so that tests do not wait on Slurm: the scheduler runs every second, a cancelled
  # job gets SIGKILL 5 s after SIGTERM, and a requeued job may start again after 11 s
  # (cred_expire + 1; default 121 s). A finished job stays in `scontrol show job` for 2 minutes
  # (MinJobAge; default 5 minutes), long enough for the tests to read its final state.
  cat >"$dir/slurm.conf" <<EOF
# Written by scripts/slurm_local.sh: a private one-node Slurm (state in $dir).
ClusterName=hxsim-local
SlurmctldHost=localhost
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/socket,cred_expire=10
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
# PMIx makes spmix_appdir_<uid>_<job>.<step> here; job ids restart at 1 in every private Slurm,
# so a directory that an earlier instance left in /tmp would make the step fail to start.
TmpFS=$dir/tmp
SlurmctldPidFile=$dir/run/slurmctld.pidfile
SlurmdPidFile=$dir/run/slurmd.pidfile
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=1,bf_interval=1
MinJobAge=120
KillWait=5
ReturnToService=2
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=1024 State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
  printf 'export SLURM_CONF=%q\n' "$dir/slurm.conf" >"$dir/env"
}

# Starts daemon $1 in the foreground mode of its own (so $! is the daemon itself) with its output
# in DIR/log, and records its pid.
spawn() {
  local name=$1
  shift
  "$@" </dev/null >>"$dir/log/$name.out" 2>&1 &
  echo $! >"$dir/run/$name.pid"
  say "started $name (pid $!)"
}

start_munged() {
  [[ -s "$dir/munge/key" ]] || mungekey --create --keyfile="$dir/munge/key"
  chmod 600 "$dir/munge/key"
  spawn munged munged --foreground --socket="$dir/munge/socket" --key-file="$dir/munge/key" \
    --pid-file="$dir/run/munged.pidfile" --seed-file="$dir/munge/seed" \
    --log-file="$dir/log/munged.log"
  local i
  for ((i = 0; i < 50; i++)); do
    [[ -S "$dir/munge/socket" ]] && return 0
    [[ -n "$(live_pid munged)" ]] || break
    sleep 0.2
  done
  die "munged did not start; see $dir/log/munged.out"
}

node_state() { SLURM_CONF=$dir/slurm.conf sinfo -h -n localhost -o %T 2>/dev/null || true; }

wait_idle() {
  local i name state=""
  for ((i = 0; i < 120; i++)); do
    state=$(node_state)
    [[ "$state" == idle || "$state" == mixed || "$state" == allocated ]] && return 0
    for name in "${DAEMONS[@]}"; do
      [[ -n "$(live_pid "$name")" ]] || die "$name exited; see $dir/log/$name.out and $name.log"
    done
    sleep 0.5
  done
  die "node not idle after 60 s (state '${state:-none}'); see $dir/log/"
}

do_start() {
  local name missing=0
  for name in "${DAEMONS[@]}"; do
    [[ -n "$(live_pid "$name")" ]] || missing=1
  done
  if ((missing)); then
    do_stop
    install_packages
    rm -rf "$dir/state" "$dir/spool" "$dir/log" "$dir/run"
    mkdir -p "$dir/state" "$dir/spool" "$dir/log" "$dir/run" "$dir/munge" "$dir/tmp"
    # munged wants its socket's directories searchable by everyone (it serves every user).
    chmod 755 "$dir" "$dir/munge"
    write_config
    trap 'say "start failed; stopping what it started"; do_stop' EXIT
    start_munged
    spawn slurmctld slurmctld -D -f "$dir/slurm.conf"
    spawn slurmd slurmd -D -N localhost -f "$dir/slurm.conf"
  fi
  wait_idle
  trap - EXIT
  say "running; node localhost $(node_state). Use it with: source $dir/env"
}

# Cancels the jobs (so no slurmstepd or job process outlives slurmd), then stops the daemons in
# reverse order: SIGTERM, and SIGKILL after 10 s.
do_stop() {
  local name pid i j
  local -a jobs
  if [[ -n "$(live_pid slurmctld)" ]]; then
    export SLURM_CONF=$dir/slurm.conf
    mapfile -t jobs < <(squeue -h -o %i 2>/dev/null)
    if ((${#jobs[@]})); then
      scancel --full --quiet "${jobs[@]}" 2>/dev/null || true
      for ((i = 0; i < 60; i++)); do
        [[ -z "$(squeue -h -t running,completing -o %i 2>/dev/null)" ]] && break
        sleep 0.5
      done
    fi
  fi
  for ((i = ${#DAEMONS[@]} - 1; i >= 0; i--)); do
    name=${DAEMONS[i]}
    pid=$(live_pid "$name")
    [[ -n "$pid" ]] || continue
    kill -TERM "$pid" 2>/dev/null || true
    for ((j = 0; j < 100; j++)); do
      [[ -n "$(live_pid "$name")" ]] || break
      sleep 0.1
    done
    if [[ -n "$(live_pid "$name")" ]]; then
      kill -KILL "$pid" 2>/dev/null || true
    fi
    say "stopped $name (pid $pid)"
  done
  rm -f "$dir"/run/*.pid
}

do_status() {
  local name pid all=1
  for name in "${DAEMONS[@]}"; do
    pid=$(live_pid "$name")
    if [[ -n "$pid" ]]; then echo "$name: running (pid $pid)"; else echo "$name: stopped"; all=0; fi
  done
  if ((all)); then
    SLURM_CONF=$dir/slurm.conf sinfo
    return 0
  fi
  return 3
}

main() {
  (($# == 1 || $# == 2)) || usage
  if [[ "$(id -u)" != 0 ]]; then
    if ! command -v sudo >/dev/null || ! sudo -n true 2>/dev/null; then
      die "needs root: run as root or with password-less sudo"
    fi
    exec sudo -n HX_SLURM_PORT="${HX_SLURM_PORT:-}" HX_SLURM_CPUS="${HX_SLURM_CPUS:-}" \
      bash "${BASH_SOURCE[0]}" "$1" "${2:-${HX_SLURM_DIR:-/tmp/hxsim-slurm}}"
  fi
  dir=${2:-${HX_SLURM_DIR:-/tmp/hxsim-slurm}}
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  case $1 in
    start) do_start ;;
    stop) do_stop ;;
    status) do_status ;;
    *) usage ;;
  esac
}

main "$@"
