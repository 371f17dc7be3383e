#!/usr/bin/env bash
# scripts/param_sweep.py: on a stand-in for hxsim whose runs go wrong in each way the sweep
# looks for (an internal error, a silent refusal, an output left behind, a hang), it reports
# exactly those runs and exits 1, on one rank and on two (--ranks 2, through mpirun, whose own
# lines on stderr must not hide a silent refusal, and whose ranks a timeout must end); on the
# real hxsim and a few keys of the 8x8 mesh, none, on one rank and on two with METIS.
# Usage: run_param_sweep.sh HXSIM PARAM_SWEEP_PY MESH_TOML SCRATCH_DIR
set -uo pipefail
hxsim=$1 sweep=$2 mesh=$3 scratch=$4
rm -rf "$scratch" && mkdir -p "$scratch" && cd "$scratch" || exit 1
failures=0

cat > fake_hxsim <<'FAKE'
#!/usr/bin/env bash
if [[ $1 == list ]]; then
  printf 'run parameters\n  [sim]\n    model (choice: mesh) = mesh\n'
  printf 'model mesh: a mesh\n  [mesh]\n    k (int) = 4  range [2, 65536]\n'
  exit 0
fi
out="" k=""
while (($#)); do
  [[ $1 == -o ]] && out=$2
  [[ $1 == mesh.k=* ]] && k=${1#mesh.k=}
  shift
done
case $k in
  3) echo "hxsim: internal error on rank 0: broken" >&2; exit 1 ;;
  0) exit 2 ;;                                                  # refused without a word
  -1) touch "$out"; echo "hxsim: error: mesh.k = -1" >&2; exit 2 ;;  # output left behind
  7) exec -a fake_hxsim_hang sleep 30 ;;
  65536) echo "hxsim: error: out of memory on rank 0" >&2; exit 6 ;;  # fine: said so
esac
exit 0
FAKE
chmod +x fake_hxsim
printf '[sim]\nmodel = "mesh"\n' > fake.toml
for ranks in 1 2; do
  /usr/bin/python3 "$sweep" --hxsim ./fake_hxsim --timeout 3 --jobs 2 --ranks "$ranks" fake.toml \
    > fake.out 2> fake.err
  rc=$?
  flagged=$(cut -f1,3 fake.out | LC_ALL=C sort | tr '\t\n' ' ')
  expected="1 mesh.k=3 2 mesh.k=-1 2 mesh.k=0 T mesh.k=7 "
  if [[ $rc == 1 && $flagged == "$expected" ]] && grep -q "4 of 6 runs went wrong" fake.err; then
    echo "PASS: the stand-in's four wrong runs are reported on $ranks rank(s), exit 1"
  else
    echo "FAIL: stand-in on $ranks rank(s): exit $rc, flagged '$flagged', expected '$expected'"
    cat fake.out fake.err
    failures=1
  fi
done
if pgrep -f fake_hxsim_hang > /dev/null; then
  echo "FAIL: a stand-in rank outlived its timeout"; failures=1
fi

for ranks in 1 2; do
  /usr/bin/python3 "$sweep" --hxsim "$hxsim" --end 100ns --only router.vcs --only mesh.k \
    --ranks "$ranks" --set sim.partitioner=metis "$mesh" > real.out 2> real.err
  rc=$?
  if [[ $rc == 0 && ! -s real.out ]] && grep -Eq "^0 of [0-9]+ runs went wrong" real.err; then
    echo "PASS: $(tail -1 real.err) on the 8x8 mesh (router.vcs, mesh.k), $ranks rank(s)"
  else
    echo "FAIL: the 8x8 mesh on $ranks rank(s): exit $rc"; cat real.out real.err; failures=1
  fi
done
exit "$failures"
