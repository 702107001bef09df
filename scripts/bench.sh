#!/usr/bin/env bash
# The compiler benchmarks.
#   scripts/bench.sh [NAME]             dense: gemm-512 and gemm-1024 at 1 and 2 threads, default and
#                                       hand-picked configs against OpenBLAS and oneDNN, compile time
#                                       per candidate -> bench/results/NAME.json (default name: dense)
#   scripts/bench.sh conv2d [NAME...]   conv2d: the workloads of ../shared/workloads/conv2d.json (or
#                                       those named), plain and blocked variants, default config and
#                                       the best after N xgb trials against oneDNN -> bench/results/conv2d.json
#     --trials N      xgb trials per workload, variant and thread count (default 400, or
#                     TUNEFARM_CONV2D_TRIALS)
#     --tuned DB      take the tuned configs from DB instead of tuning
#     --db DB         where tuning records go (default build/conv2d-tuning.db)
#     --onednn-only   measure oneDNN only
#     --threads LIST  thread counts (default 1,2)
#     --json          the results document on stdout; table and progress on stderr
#   Any other option is passed to build/bench/conv2d_bench (see its --help).
#   scripts/bench.sh models [OPTIONS]   ResNet-18, MobileNetV2 and the BERT layer against ONNX Runtime
#                                       at 1 and 2 threads -> bench/results/models.json
#                                       (build/bench/models_bench --help)
#   scripts/bench.sh int8 [OPTIONS]     the int8 kernels (ResNet-18 convs, BERT-base projections) against
#                                       oneDNN's int8 and the float kernels -> bench/results/int8.json
#                                       (build/bench/int8_bench --help; --tune N for tuned configs)
#   scripts/bench.sh costmodel [OPTIONS] the cost model on ResNet-18 and MobileNet layers: xgb cold and
#                                       with history against random and ga, held-out prediction quality
#                                       -> bench/results/costmodel.json (build/bench/costmodel_bench --help)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

if [[ "${1:-}" == int8 ]]; then
  shift
  "$root/scripts/setup.sh"
  "$root/scripts/build.sh" int8_bench
  exec "$root/build/bench/int8_bench" --name int8 "$@"
fi

if [[ "${1:-}" == models ]]; then
  shift
  "$root/scripts/setup.sh"
  "$root/scripts/build.sh" models_bench
  exec "$root/build/bench/models_bench" --name models "$@"
fi

if [[ "${1:-}" == costmodel ]]; then
  shift
  "$root/scripts/setup.sh"
  "$root/scripts/build.sh" costmodel_bench tunefarm-measure-worker
  exec "$root/build/bench/costmodel_bench" "$@"
fi

if [[ "${1:-}" != conv2d ]]; then
  name="${1:-dense}"
  "$root/scripts/setup.sh"
  "$root/scripts/build.sh" tunefarm dense_bench
  "$root/build/bench/dense_bench" --workloads gemm-512,gemm-1024 --threads 1,2 --name "$name"
  exit 0
fi

shift
names=()
options=()
db_given=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --trials|--tuned|--db|--threads|--workloads-file|--variants|--min-ms|--repeat|--name|--target|--tune-min-ms|--compile-samples)
      [[ $# -ge 2 ]] || { echo "bench.sh conv2d: $1 needs a value" >&2; exit 2; }
      [[ "$1" == --db ]] && db_given=1
      options+=("$1" "$2"); shift 2 ;;
    --db=*) db_given=1; options+=("$1"); shift ;;
    --*) options+=("$1"); shift ;;
    *) names+=("$1"); shift ;;
  esac
done
[[ $db_given == 1 ]] || options+=(--db "$root/build/conv2d-tuning.db")
if [[ ${#names[@]} -gt 0 ]]; then
  options+=(--workloads "$(IFS=,; echo "${names[*]}")")
fi
# Setup and build talk on stderr: with --json, stdout is the results document only.
"$root/scripts/setup.sh" >&2
"$root/scripts/build.sh" conv2d_bench tunefarm-measure-worker >&2
exec "$root/build/bench/conv2d_bench" "${options[@]}"
