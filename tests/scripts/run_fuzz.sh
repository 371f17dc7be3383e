#!/usr/bin/env bash
# scripts/fuzz.py: two cases of each mode at seed 1 (each case two or three runs that must agree:
# rank counts, restarts, folding, the deadlock oracle) must find nothing BAD; and a case whose
# second run differs (an hxsim that changes the seed under mpirun) must be found BAD, with its
# files and commands kept.
# Usage: run_fuzz.sh HXSIM FUZZ_PY SCRATCH
set -euo pipefail
hxsim=$1 script=$2 scratch=$3
rm -rf "$scratch" && mkdir -p "$scratch"
for mode in params faults llm fold deadlock; do
  /usr/bin/python3 "$script" "$mode" --cases 2 --hxsim "$hxsim" --out "$scratch/$mode"
done
cat > "$scratch/changes_seed.sh" <<WRAP
#!/usr/bin/env bash
if [ -n "\${OMPI_COMM_WORLD_SIZE:-}" ] && [ "\$1" = run ]; then exec "$hxsim" "\$@" --set sim.seed=77; fi
exec "$hxsim" "\$@"
WRAP
chmod +x "$scratch/changes_seed.sh"
if /usr/bin/python3 "$script" params --cases 1 --hxsim "$scratch/changes_seed.sh" \
    --out "$scratch/bad" > "$scratch/bad.log"; then
  cat "$scratch/bad.log"; echo "FAIL: a run that changes under mpirun was not found BAD"; exit 1
fi
grep -q "^0 BAD .*outputs differ" "$scratch/bad.log"
test -s "$scratch/bad/bad-0/commands"
echo "PASS: nothing BAD in 10 cases; a differing run found BAD"
