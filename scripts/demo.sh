#!/usr/bin/env bash
# The main job: installs what is missing, builds, then compiles the dense kernel for gemm-1024 with
# the default config and with hand-picked configs, runs each, checks it against the reference, and
# prints GFLOPS next to oneDNN and OpenBLAS measured in the same run.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh"
"$root/scripts/build.sh" tunefarm dense_bench
"$root/build/bench/dense_bench" --workloads gemm-1024 --threads 1 --no-save "$@"
