#!/usr/bin/env bash
# The main job: installs what is missing, builds, starts a local fleet (a tracker and two boards on
# 127.0.0.1, each board pinned to its own CPU and timing under the host-wide lock), submits a
# tuning job for gemm-512 and bert-ffn1 (../shared/workloads/dense.json), follows it, prints each
# workload's best config and its GFLOPS next to oneDNN and OpenBLAS measured in the same run; then
# tunes ResNet-18 (ONNX) as one job on the same boards, builds it with what they found and times it
# next to ONNX Runtime on the same input; and stops the fleet. The tuning db is ./tunefarm.db: run
# it again and the searches start from it.
#   usage: scripts/demo.sh [--trials N] [--model-trials N]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
trials=150
model_trials=400
while [ $# -gt 0 ]; do
  case "$1" in
    --trials) trials="$2"; shift 2 ;;
    --model-trials) model_trials="$2"; shift 2 ;;
    *) echo "demo.sh: unknown option $1 (usage: scripts/demo.sh [--trials N] [--model-trials N])" >&2; exit 2 ;;
  esac
done
"$root/scripts/setup.sh"
"$root/scripts/build.sh" tunefarm tunefarm-tracker tunefarm-rpc-server tunefarm-measure-worker dense_bench tunefarm_test_models
B="$root/build/cli/tunefarm"
key=local-fleet
port="${TUNEFARM_DEMO_PORT:-9190}"

"$root/scripts/fleet.sh" start --boards 2 --key "$key" --port "$port"
trap '"$root/scripts/fleet.sh" stop' EXIT
echo "== watch the fleet and the jobs live while this runs: http://127.0.0.1:$((port + 1))/ (metrics: /metrics)"
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

model="$root/build/models/resnet18.onnx"
work="$(mktemp -d /tmp/tunefarm-demo.XXXXXX)"
echo
echo "== tuning ResNet-18 (ONNX, $(basename "$model")): its kernels as one job of $model_trials trials on the 2 boards"
"$B" model tune "$model" --tracker "127.0.0.1:$port" --key "$key" --trials "$model_trials" --json > "$work/tune.json"
target="$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["target"])' "$work/tune.json")"
echo
echo "== ResNet-18 built with the boards' best configs, timed next to ONNX Runtime on the same input (1 thread)"
"$B" model build "$model" --db tunefarm.db --key "$key" --target "$target" -o "$work/resnet18.tfm" -q
/usr/bin/python3 -c 'import numpy as np, sys; np.save(sys.argv[1], np.random.default_rng(1).standard_normal((1, 3, 224, 224)).astype(np.float32))' "$work/x.npy"
"$B" model bench "$work/resnet18.tfm" --threads 1 --json > "$work/ours.json"
node "$root/bench/ort/ort_run.js" --model "$model" --input "input=$work/x.npy" --output-dir "$work/ort" --threads 1 --runs 20 --json \
  > "$work/ort.json"
/usr/bin/python3 - "$work/ours.json" "$work/ort.json" <<'PY'
import json, sys
ours, ort = (json.load(open(p)) for p in sys.argv[1:3])
print(f"ResNet-18, 1 thread, median: tunefarm {ours['median_ms']:.2f} ms, ONNX Runtime {ort['median_ms']:.2f} ms: "
      f"{ours['median_ms'] / ort['median_ms']:.2f}x ONNX Runtime's latency")
PY
rm -rf "$work"
