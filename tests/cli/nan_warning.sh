#!/usr/bin/env bash
# A run whose averages are over nothing warns on stderr (docs/OUTPUT.md, "NaN"): the quickstart
# at load 64 delivers no measured packet, so its mean latencies are NaN. A run that delivers
# packets does not warn.
# Usage: nan_warning.sh HXSIM SCRATCH_DIR
set -euo pipefail
hxsim=$1 scratch=$2
rm -rf "$scratch" && mkdir -p "$scratch" && cd "$scratch"
short=(--progress off --set traffic.warmup=100cycles --set traffic.measure=200cycles)
"$hxsim" run "${short[@]}" --set traffic.load=64 -o saturated.h5 >/dev/null 2>saturated.err
"$hxsim" run "${short[@]}" -o normal.h5 >/dev/null 2>normal.err
failures=0
if ! grep -q "hxsim: warning: /summary latency_mean_ps, network_latency_mean_ps.*NaN" saturated.err
then
  echo "FAIL: no NaN warning at load 64:"; cat saturated.err; failures=1
fi
if [[ -s normal.err ]]; then
  echo "FAIL: a run that delivers packets wrote to stderr:"; cat normal.err; failures=1
fi
((failures == 0)) && echo "PASS: NaN results warned about, and only then"
exit "$failures"
