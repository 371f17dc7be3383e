#!/usr/bin/env bash
# scripts/sldf_figures.py end to end on its cheapest panel (Fig. 10b, --quick): two sweeps, the
# PNG and summary.csv, with saturation throughputs near the bounds of
# docs/validation/switchless_dragonfly.md (the switch-less C-group at most 1.33 flits/cycle/chip
# under X-then-Y bit-reverse, the switch at most 0.5: half its terminals send, one injection link
# each); a second call reuses the files; an unknown figure is refused.
set -euo pipefail
hxsim=$1 script=$2 scratch=$3
rm -rf "$scratch" && mkdir -p "$scratch"
/usr/bin/python3 "$script" --hxsim "$hxsim" --quick --figures 10b --out "$scratch" >/dev/null
test -s "$scratch/fig10.png"
/usr/bin/python3 - "$scratch/summary.csv" <<'PY'
import csv, sys
rows = {r["curve"]: float(r["value"]) for r in csv.DictReader(open(sys.argv[1]))}
assert set(rows) == {"switch-less 1B", "switch-based"}, rows
assert 0.9 <= rows["switch-less 1B"] <= 4 / 3, rows
assert 0.4 <= rows["switch-based"] <= 0.5, rows
PY
before=$(stat -c %Y "$scratch/fig10/b_switch-based.h5")
/usr/bin/python3 "$script" --hxsim "$hxsim" --quick --figures 10b --out "$scratch" >/dev/null
test "$(stat -c %Y "$scratch/fig10/b_switch-based.h5")" = "$before"
if /usr/bin/python3 "$script" --hxsim "$hxsim" --figures 99 --out "$scratch" 2>"$scratch/err"; then
  echo "figure 99 was accepted" >&2
  exit 1
fi
grep -q "no figure '99'" "$scratch/err"
echo "sldf_figures.py: ok"
