#!/usr/bin/env bash
# ONNX's node tests through tunefarm's compiled kernels: pass / refused / fail per op as a markdown
# table (what docs/conformance.md shows). Runs OnnxConformance.* of an existing build.
#   usage: scripts/conformance-table.sh [BUILD_DIR]     (default: build)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build}"
table="$(mktemp)"
trap 'rm -f "$table"' EXIT
TF_CONFORMANCE_TABLE="$table" "$build/tests/tunefarm_tests" --gtest_filter='OnnxConformance.*' >&2 || true
[ -s "$table" ] || { echo "conformance-table: the test wrote no table (see above)" >&2; exit 1; }
cat "$table"
