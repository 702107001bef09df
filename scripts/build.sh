#!/usr/bin/env bash
# Configures and builds tunefarm in build/ (Release with debug info). Used by demo.sh and test.sh.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jobs="${TUNEFARM_JOBS:-$(nproc)}"
cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo > "$root/build.log" 2>&1 || {
  cat "$root/build.log" >&2; echo "build: cmake configure failed (log above)" >&2; exit 1; }
ninja -C "$root/build" -j "$jobs" "$@"
