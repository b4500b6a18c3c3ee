#!/usr/bin/env bash
# Differential test, Rust vs JS vs Python (tests/conformance/src/bin/differential.rs says how).
# Usage: tests/conformance/differential.sh <cases> [first seed] [batch size]
# Runs <cases> generated cases in batches of [batch size] (default 50,000; one process per
# language per batch), seeds first, first+1, …; prints each batch's mismatches and, at the end,
# `differential: N cases, M mismatches`. Exits non-zero on any mismatch. Expects the npm package
# and the Python package built (make -C bindings-js build, make -C bindings-py develop).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cases=${1:?number of cases}
seed=${2:-1}
batch=${3:-50000}
cargo=${CARGO:-cargo}
python=${PYTHON:-$root/.venv/bin/python}
work=$root/target/differential
mkdir -p "$work"
"$cargo" build --locked -q -p mcp-outputs-conformance --bin differential
bin=$root/target/debug/differential
total=0
mismatches=0
start=$(date +%s)
while [ "$total" -lt "$cases" ]; do
  n=$(( cases - total < batch ? cases - total : batch ))
  "$bin" generate "$seed" "$n" > "$work/cases.jsonl"
  (cd "$root/bindings-js" && node test/differential.mjs "$work/cases.jsonl" "$work/js.jsonl") >/dev/null
  (cd "$root/bindings-py" && "$python" tests/differential.py "$work/cases.jsonl" "$work/py.jsonl") >/dev/null
  if "$bin" compare "$work/cases.jsonl" "$work/js.jsonl" "$work/py.jsonl" > "$work/report.txt"; then :; fi
  found=$(sed -n 's/^differential: [0-9]* cases, \([0-9]*\) mismatches$/\1/p' "$work/report.txt")
  if [ -z "$found" ]; then cat "$work/report.txt"; echo "differential: the comparer failed on seed $seed" >&2; exit 1; fi
  if [ "$found" -ne 0 ]; then
    grep -v '^differential:' "$work/report.txt" | head -c 200000
    cp "$work/cases.jsonl" "$work/mismatch-seed-$seed.jsonl"
  fi
  total=$(( total + n ))
  mismatches=$(( mismatches + found ))
  seed=$(( seed + 1 ))
  if [ "$cases" -gt "$batch" ]; then
    echo "differential (running): $total cases, $mismatches mismatches, $(( $(date +%s) - start )) s"
  fi
done
echo "differential: $total cases, $mismatches mismatches"
[ "$mismatches" -eq 0 ]
