#!/usr/bin/env bash
# One short libFuzzer run, as ctest runs each fuzz target (fuzz/CMakeLists.txt):
#   short_run.sh FUZZER SEEDS WORKDIR SECONDS
# The seeds are copied into WORKDIR/corpus, which the run may add to; a crash input lands in
# WORKDIR/ (crash-*, leak-*, timeout-*, oom-*) and the run exits non-zero.
set -euo pipefail
[[ $# -eq 4 ]] || { echo "usage: $0 FUZZER SEEDS WORKDIR SECONDS" >&2; exit 2; }
fuzzer="$1" seeds="$2" work="$3" seconds="$4"
rm -rf "$work"
mkdir -p "$work/corpus"
cp -R "$seeds/." "$work/corpus/"
dict=()
[[ -f "$seeds.dict" ]] && dict=(-dict="$seeds.dict")
exec "$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
  -artifact_prefix="$work/" "${dict[@]}" "$work/corpus"
