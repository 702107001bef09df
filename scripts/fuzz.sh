#!/usr/bin/env bash
# Longer runs of the fuzz targets (fuzz/, docs/fuzzing.md) than the short ones ctest makes.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
targets_all=(job_file job_request suite record_line config_json worker_frames onnx_import npy model_file)

usage() {
  cat <<USAGE
usage: scripts/fuzz.sh [--time SECONDS] [--jobs N] [TARGET...]
Runs each fuzz target (default: all of ${targets_all[*]}) for SECONDS (default 300) with ASan and
UBSan, N at a time (default 1), building build-fuzz/ first when a target is missing. Each target's
corpus grows in build-fuzz/fuzz/long/TARGET/corpus across runs; the seeds in fuzz/corpus/ are read,
never written. Prints per target: executions, coverage, and whether it found anything, with the
input saved (build-fuzz/fuzz/long/TARGET/crash-*, timeout-*, oom-*, leak-*) and the first report
line. Reproduce one with: build-fuzz/fuzz/TARGET_fuzz INPUT
Exit status: 0 nothing found, 1 a target found something, 2 bad usage.
USAGE
}

seconds=300 jobs=1 targets=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --time) seconds="${2:?--time needs SECONDS}"; shift 2 ;;
    --jobs) jobs="${2:?--jobs needs N}"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "fuzz: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) [[ " ${targets_all[*]} " == *" $1 "* ]] || { echo "fuzz: no target '$1' (targets: ${targets_all[*]})" >&2; exit 2; }
       targets+=("$1"); shift ;;
  esac
done
[[ "$seconds" =~ ^[0-9]+$ && "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "fuzz: --time and --jobs take whole numbers" >&2; exit 2; }
[[ ${#targets[@]} -gt 0 ]] || targets=("${targets_all[@]}")

bin="$root/build-fuzz/fuzz"
for t in "${targets[@]}"; do
  [[ -x "$bin/${t}_fuzz" ]] || { "$root/scripts/build.sh" --fuzz; break; }
done

# One target's run; its log is build-fuzz/fuzz/long/TARGET/fuzz.log.
run_one() {
  local t="$1" work="$bin/long/$1"
  mkdir -p "$work/corpus"
  rm -f "$work"/crash-* "$work"/timeout-* "$work"/oom-* "$work"/leak-*
  local dict=()
  [[ -f "$root/fuzz/corpus/$t.dict" ]] && dict=(-dict="$root/fuzz/corpus/$t.dict")
  "$bin/${t}_fuzz" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$work/" "${dict[@]}" "$work/corpus" "$root/fuzz/corpus/$t" > "$work/fuzz.log" 2>&1 || true
}

# "TARGET: N executions, cov C, ft F, corpus K inputs; clean" or "...; FOUND ... saved to PATH".
report() {
  local t="$1" work="$bin/long/$1" log="$bin/long/$1/fuzz.log"
  local execs cov ft corpus artifact
  execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)"
  cov="$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)"
  ft="$(grep -o 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)"
  corpus="$(find "$work/corpus" -type f | wc -l)"
  artifact="$(sed -n 's/.*Test unit written to //p' "$log" | tail -1)"
  printf '%-14s %10s executions  cov %-6s ft %-7s corpus %-5s ' "$t" "${execs:-?}" "${cov:-?}" "${ft:-?}" "$corpus"
  if [[ -n "$artifact" ]]; then
    local what
    what="$(grep -m1 -E 'runtime error|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|fuzz finding' "$log" || true)"
    echo "FOUND: ${what:-see $log}"
    echo "               input saved to $artifact"
    return 1
  fi
  echo "clean"
}

echo "fuzz: ${targets[*]}, ${seconds} s each, ${jobs} at a time (logs: build-fuzz/fuzz/long/TARGET/fuzz.log)"
running=0
for t in "${targets[@]}"; do
  run_one "$t" &
  running=$((running + 1))
  if (( running >= jobs )); then wait -n; running=$((running - 1)); fi
done
wait
found=0
for t in "${targets[@]}"; do report "$t" || found=1; done
exit "$found"
