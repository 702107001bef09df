#!/usr/bin/env bash
# The compiler benchmark: gemm-512 and gemm-1024 at 1 and 2 threads, default and hand-picked
# configs against OpenBLAS and oneDNN, plus compile time per candidate. Writes
# bench/results/NAME.json (default name: dense).   usage: scripts/bench.sh [NAME]
#
# scripts/bench.sh models [models_bench options]: ResNet-18, MobileNetV2 and the BERT layer against
# ONNX Runtime at 1 and 2 threads -> bench/results/models.json (build/bench/models_bench --help).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
name="${1:-dense}"
"$root/scripts/setup.sh"
if [ "$name" = models ]; then
  shift
  "$root/scripts/build.sh" models_bench
  exec "$root/build/bench/models_bench" --name models "$@"
fi
"$root/scripts/build.sh" tunefarm dense_bench
"$root/build/bench/dense_bench" --workloads gemm-512,gemm-1024 --threads 1,2 --name "$name"
