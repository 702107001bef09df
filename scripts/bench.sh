#!/usr/bin/env bash
# The compiler benchmark: gemm-512 and gemm-1024 at 1 and 2 threads, default and hand-picked
# configs against OpenBLAS and oneDNN, plus compile time per candidate. Writes
# bench/results/NAME.json (default name: dense).   usage: scripts/bench.sh [NAME]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
name="${1:-dense}"
"$root/scripts/setup.sh"
"$root/scripts/build.sh" tunefarm dense_bench
"$root/build/bench/dense_bench" --workloads gemm-512,gemm-1024 --threads 1,2 --name "$name"
