#!/usr/bin/env bash
# Configures and builds tunefarm in build/ (Release with debug info). Used by demo.sh and test.sh.
#   scripts/build.sh [TARGET...]          the host build, every target or the ones named
#   scripts/build.sh --arch aarch64       installs what is missing (cross toolchain, arm64 libraries,
#                                         qemu-user) and cross-builds the board daemon and its measure
#                                         worker for 64-bit ARM into build-aarch64/
#   scripts/build.sh --sanitize address,undefined   the same with sanitizers, into build-asan/
#   scripts/build.sh --sanitize thread              (or build-tsan/); scripts/test.sh --sanitize runs them
#   scripts/build.sh --fuzz               installs what is missing (clang, libFuzzer) and builds the
#                                         fuzz targets (fuzz/, docs/fuzzing.md) with ASan and UBSan
#                                         into build-fuzz/; `ctest --test-dir build-fuzz` runs each briefly
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

if [[ "${1:-}" == --fuzz ]]; then
  shift
  "$root/scripts/setup.sh"
  out="$root/build-fuzz"
  # -O1 and line tables only: the instrumented libraries build in a few minutes on 2 cores and
  # reports still name file and line.
  cmake -S "$root" -B "$out" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTUNEFARM_FUZZ=ON \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
    > "$root/build-fuzz.log" 2>&1 || {
    cat "$root/build-fuzz.log" >&2; echo "build: cmake configure for the fuzz targets failed (log above)" >&2; exit 1; }
  ninja -C "$out" -j "$jobs" fuzz-all "$@"
  exit 0
fi

if [[ "${1:-}" == --sanitize ]]; then
  sanitizers="${2:-}"
  shift $(( $# >= 2 ? 2 : 1 ))
  case "$sanitizers" in
    address,undefined|address|undefined) out="$root/build-asan" ;;
    thread) out="$root/build-tsan" ;;
    *) echo "build: --sanitize '$sanitizers': address,undefined (or one of them) or thread" >&2; exit 2 ;;
  esac
  cmake -S "$root" -B "$out" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTUNEFARM_SANITIZE="$sanitizers" \
    > "$out.log" 2>&1 || { cat "$out.log" >&2; echo "build: cmake configure with $sanitizers failed (log above)" >&2; exit 1; }
  ninja -C "$out" -j "$jobs" "$@"
  exit 0
fi

cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo > "$root/build.log" 2>&1 || {
  cat "$root/build.log" >&2; echo "build: cmake configure failed (log above)" >&2; exit 1; }
ninja -C "$root/build" -j "$jobs" "$@"
