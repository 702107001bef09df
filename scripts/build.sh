#!/usr/bin/env bash
# Configures and builds tunefarm in build/ (Release with debug info). Used by demo.sh and test.sh.
#   scripts/build.sh [TARGET...]          the host build, every target or the ones named
#   scripts/build.sh --arch aarch64       installs what is missing (cross toolchain, arm64 libraries,
#                                         qemu-user) and cross-builds the board daemon and its measure
#                                         worker for 64-bit ARM into build-aarch64/
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jobs="${TUNEFARM_JOBS:-$(nproc)}"

if [[ "${1:-}" == --arch ]]; then
  arch="${2:-}"
  shift $(( $# >= 2 ? 2 : 1 ))
  [[ "$arch" == aarch64 ]] || { echo "build: --arch '$arch': the one cross target is aarch64" >&2; exit 2; }
  "$root/scripts/setup.sh" --arch aarch64
  out="$root/build-aarch64"
  cmake -S "$root" -B "$out" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTUNEFARM_BOARD_ONLY=ON \
    -DCMAKE_TOOLCHAIN_FILE="$root/cmake/aarch64-linux-gnu.cmake" > "$root/build-aarch64.log" 2>&1 || {
    cat "$root/build-aarch64.log" >&2; echo "build: cmake configure for aarch64 failed (log above)" >&2; exit 1; }
  ninja -C "$out" -j "$jobs" tunefarm-rpc-server tunefarm-measure-worker "$@"
  exit 0
fi

cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo > "$root/build.log" 2>&1 || {
  cat "$root/build.log" >&2; echo "build: cmake configure failed (log above)" >&2; exit 1; }
ninja -C "$root/build" -j "$jobs" "$@"
