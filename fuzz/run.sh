#!/usr/bin/env bash
# Runs the cargo-fuzz targets (docs/fuzzing.md). Usage, from anywhere:
#   fuzz/run.sh smoke      every target briefly (make test): FUZZ_SMOKE_SECONDS each (default 2)
#   fuzz/run.sh campaign   every target (or FUZZ_TARGETS="a b") for FUZZ_SECONDS each (default
#                          600) or FUZZ_RUNS executions each, one at a time, under nice -n 19;
#                          appends each run to fuzz/runs.tsv and prints the totals per target
#   fuzz/run.sh totals     the executions per target that count: runs whose fuzzed code (core/src,
#                          fuzz/src, fuzz/fuzz_targets) is this checkout's, beside every run's total
#   FUZZ_SANITIZER=none  a campaign without AddressSanitizer (default: address). The crates we
#                          fuzz hold no unsafe code of ours, and ASan costs 2-3x the executions; the
#                          sanitizer is recorded with each run in fuzz/runs.tsv
# Needs the nightly toolchain and cargo-fuzz in .tools/bin (make fuzz-tools installs both).
# Exits non-zero when a target crashes; the input is in fuzz/artifacts/<target>/ and is copied
# into fuzz/regressions/<target>/, which `make fuzz-replay` (part of `make test`) replays.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mode=${1:?smoke, campaign or totals}
fuzz=$root/fuzz
export PATH=$root/.tools/bin:$PATH
cd "$fuzz"
fuzzed=(core/src fuzz/src fuzz/fuzz_targets)

# runs.tsv columns: date, target, executions, seconds, crashes, sanitizer, commit. The commit is
# the one whose fuzzed code ran ("<hash>+dirty" when that code had uncommitted changes, "-" for
# runs recorded before the column existed); such runs never count.
totals() {
  local counted
  counted=$(mktemp)
  while IFS=$'\t' read -r _ target execs _ crashes _ commit; do
    case "$commit" in ''|-|*+dirty) continue ;; esac
    git -C "$root" diff --quiet "$commit" HEAD -- "${fuzzed[@]}" 2>/dev/null || continue
    git -C "$root" diff --quiet HEAD -- "${fuzzed[@]}" || continue
    printf '%s\t%s\t%s\n' "$target" "$execs" "$crashes"
  done < runs.tsv > "$counted"
  echo "totals on this checkout's fuzzed code (the runs that count):"
  awk -F'\t' '{e[$1]+=$2; c[$1]+=$3} END {for (t in e) printf "  %-14s %12d executions, %d crashes\n", t, e[t], c[t]}' "$counted" | sort
  echo "totals of every run so far, on any code:"
  awk -F'\t' '{e[$2]+=$3; c[$2]+=$5} END {for (t in e) printf "  %-14s %12d executions, %d crashes\n", t, e[t], c[t]}' runs.tsv | sort
  rm -f "$counted"
}
if [ "$mode" = totals ]; then totals; exit 0; fi
commit=$(git -C "$root" rev-parse HEAD)
git -C "$root" diff --quiet HEAD -- "${fuzzed[@]}" || commit="$commit+dirty"

# One target per op of mcp_outputs::ops::OPERATIONS: a new op without its target fails here.
ops=$(sed -n '/pub const OPERATIONS/,/^];/p' "$root/core/src/ops.rs" | grep -o '("[a-z]*"' | tr -d '("')
for op in $ops; do
  [ -f "fuzz_targets/op_$op.rs" ] || { echo "fuzz: no target fuzz_targets/op_$op.rs for op $op" >&2; exit 1; }
done
targets=${FUZZ_TARGETS:-$(cargo +nightly fuzz list)}

# Seeds of this run alone: two campaigns may run side by side (one per core).
seeds=seeds/run.$$
trap 'rm -rf "$seeds"' EXIT
mkdir -p seeds
python3 seeds.py "$root/tests/corpus" "$seeds" $ops >/dev/null
sanitizer=${FUZZ_SANITIZER:-address}
[ "$mode" = smoke ] && sanitizer=address
cargo +nightly fuzz build -O --debug-assertions -s "$sanitizer" >/dev/null 2>build.log || { cat build.log; exit 1; }

if [ "$mode" = smoke ]; then
  limit=(-max_total_time="${FUZZ_SMOKE_SECONDS:-2}")
  nice=()
else
  if [ -n "${FUZZ_RUNS:-}" ]; then limit=(-runs="$FUZZ_RUNS"); else limit=(-max_total_time="${FUZZ_SECONDS:-600}"); fi
  nice=(nice -n 19)
fi

failed=0
for t in $targets; do
  mkdir -p "corpus/$t" "$seeds/$t" "artifacts/$t"
  log=$(mktemp)
  start=$(date +%s)
  # -rss_limit_mb: an allocation beyond it is a finding (SEC-1: no unbounded allocation).
  if "${nice[@]}" cargo +nightly fuzz run -O --debug-assertions -s "$sanitizer" "$t" "corpus/$t" "$seeds/$t" -- \
      "${limit[@]}" -rss_limit_mb=2048 -max_len=8192 -timeout=10 -print_final_stats=1 >"$log" 2>&1; then
    crashes=0
  else
    crashes=1
    failed=1
    grep -E "^(==|SUMMARY|thread|panicked|Test unit|artifact_prefix)|assert" "$log" | head -40 || tail -40 "$log"
    # Every finding joins the regressions that `make test` replays (commit it with the fix).
    mkdir -p "regressions/$t"
    for found in artifacts/"$t"/{crash,oom,timeout,leak}-*; do
      [ -f "$found" ] && cp -n "$found" "regressions/$t/" && echo "fuzz $t: kept as fuzz/regressions/$t/$(basename "$found")"
    done
  fi
  execs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\)/\1/p' "$log" | tail -1)
  execs=${execs:-0}
  seconds=$(( $(date +%s) - start ))
  echo "fuzz $t: $execs executions in $seconds s, $crashes crashes"
  if [ "$mode" = campaign ]; then
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%Y-%m-%d)" "$t" "$execs" "$seconds" "$crashes" "$sanitizer" "$commit" >> runs.tsv
  fi
  rm -f "$log"
done

if [ "$mode" = campaign ]; then totals; fi
exit $failed
