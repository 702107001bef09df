#!/usr/bin/env bash
# The main job: installs what is missing, builds, starts a local fleet (a tracker and two boards on
# 127.0.0.1, each board pinned to its own CPU and timing under the host-wide lock), submits a
# tuning job for gemm-512 and bert-ffn1 (../shared/workloads/dense.json), follows it, prints each
# workload's best config and its GFLOPS next to oneDNN and OpenBLAS measured in the same run, and
# stops the fleet. The tuning db is ./tunefarm.db: run it again and the search starts from it.
#   usage: scripts/demo.sh [--trials N]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
trials=150
while [ $# -gt 0 ]; do
  case "$1" in
    --trials) trials="$2"; shift 2 ;;
    *) echo "demo.sh: unknown option $1 (usage: scripts/demo.sh [--trials N])" >&2; exit 2 ;;
  esac
done
"$root/scripts/setup.sh"
"$root/scripts/build.sh" tunefarm tunefarm-tracker tunefarm-rpc-server tunefarm-measure-worker dense_bench
B="$root/build/cli/tunefarm"
key=local-fleet
port="${TUNEFARM_DEMO_PORT:-9190}"

"$root/scripts/fleet.sh" start --boards 2 --key "$key" --port "$port"
trap '"$root/scripts/fleet.sh" stop' EXIT
job="$(mktemp /tmp/tunefarm-demo-job.XXXXXX.json)"
cat > "$job" <<JOB
{"workloads": [{"op": "dense", "shape": [512, 512, 512]},
               {"op": "dense", "shape": [128, 3072, 768]}],
 "key": "$key", "trials": $trials, "tuner": "xgb",
 "measure": {"repeat": 3, "min_repeat_ms": 20}}
JOB
echo
echo "== tuning gemm-512 (dense 512x512x512) and bert-ffn1 (dense 128x3072x768), $trials trials each, on 2 boards"
"$B" submit --tracker "127.0.0.1:$port" --job "$job" --follow
rm -f "$job"
echo
echo "== the best configs, built again here and measured next to oneDNN and OpenBLAS (1 thread)"
"$root/build/bench/dense_bench" --workloads gemm-512:512x512x512,bert-ffn1:128x3072x768 --threads 1 --best-from-db tunefarm.db --key "$key" \
  --compile-samples 0 --min-ms 50 --repeat 5 --no-save
