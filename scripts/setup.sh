#!/usr/bin/env bash
# Installs every system package tunefarm needs, from Debian, and only what is missing: running it
# twice installs nothing the second time.
set -euo pipefail

PACKAGES=(
  # build
  cmake ninja-build g++ pkg-config git
  # LLVM 16 code generation; LLVM 16 needs zstd; lld links kernels for any target
  llvm-16-dev libzstd-dev lld-16 liblld-16-dev
  # service contracts
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  # cost model (the CMake package references /usr/bin/xgboost)
  libxgboost-dev xgboost
  # JSON
  nlohmann-json3-dev
  # tuning database: SQLite files, PostgreSQL servers through libpq; the tests start a real
  # PostgreSQL server of their own (initdb, pg_ctl)
  libsqlite3-dev libpq-dev postgresql
  # Asio, Beast, Process
  libboost-dev
  # command-line options (header-only)
  libcli11-dev
  # the measure worker's system-call filter: libseccomp writes the BPF for each architecture
  libseccomp-dev
  # stable content hashes (XXH3, header-only here): record hashes in the database, kernel names
  libxxhash-dev
  # tests
  libgtest-dev libgmock-dev openssl
  # fuzz targets (scripts/build.sh --fuzz): clang and its libFuzzer, ASan and UBSan runtimes
  clang libclang-rt-dev
  # formatting and lint (scripts/lint.sh): Debian's versions, so every machine formats alike
  clang-format clang-tidy
  # the dashboard's browser test (headless)
  chromium
  # benchmark peers
  libopenblas-dev libdnnl-dev
  # ONNX models: protobuf messages and libonnx_proto (graph/), the Python package that writes the
  # test models (scripts/make-models.py), ONNX's node tests
  libonnx-dev python3-onnx libonnx-testdata
  # the Python package (python/): bindings, Debian's Python headers and NumPy; pip, setuptools and
  # wheel for `pip install --no-build-isolation .` (pyproject.toml, setup.py)
  pybind11-dev python3-dev python3-numpy python3-pip python3-setuptools python3-wheel
  # the fits of compiler/codegen/fast_math.cc (scripts/fit-polynomials.py), in 60-digit arithmetic
  python3-mpmath
)

# ONNX Runtime's CPU build, the peer models are checked and timed against, comes from npm.
command -v npm >/dev/null || PACKAGES+=(nodejs npm)

install_debian_packages() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
      missing+=("$p")
    fi
  done
  if [ ${#missing[@]} -eq 0 ]; then
    echo "setup: all ${#PACKAGES[@]} packages are installed"
    return
  fi
  local sudo
  sudo="$(root_prefix "${missing[*]}")"
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# "sudo" when not root (and sudo exists), "" as root; exits naming what needed root otherwise.
root_prefix() {
  [ "$(id -u)" -eq 0 ] && return
  command -v sudo >/dev/null || { echo "setup: need root (or sudo) to install: ${1:-packages}" >&2; exit 1; }
  echo sudo
}

# --ignore-scripts: the package's install script fetches GPU binaries from elsewhere and fails here;
# the CPU library it needs ships in the package itself. The lock file pins every version.
install_onnxruntime() {
  local dir
  dir="$(cd "$(dirname "$0")/../bench/ort" && pwd)"
  if [ -f "$dir/node_modules/onnxruntime-node/package.json" ]; then
    echo "setup: onnxruntime-node is installed"
    return
  fi
  echo "setup: installing onnxruntime-node into bench/ort"
  (cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
}

# The packages an AArch64 board build needs (scripts/build.sh --arch aarch64): Debian's cross
# toolchain, the arm64 builds of the board's libraries (multiarch: they install beside the host's)
# and qemu-user to run the board on this host.
AARCH64_PACKAGES=(
  crossbuild-essential-arm64 qemu-user-static
  libgrpc++-dev:arm64 libprotobuf-dev:arm64 libboost-dev:arm64
  # the board's measure worker links libseccomp for its system-call filter
  libseccomp-dev:arm64
)

enable_arm64_packages() {
  dpkg --print-foreign-architectures | grep -qx arm64 && return
  echo "setup: adding arm64 as a foreign architecture (dpkg --add-architecture arm64)"
  local sudo
  sudo="$(root_prefix "the arm64 architecture")"
  $sudo dpkg --add-architecture arm64
}

case "${1:-}" in
  "") install_debian_packages; install_onnxruntime ;;
  --arch)
    [[ "${2:-}" == aarch64 ]] || { echo "setup: --arch '${2:-}': the one cross target is aarch64" >&2; exit 2; }
    enable_arm64_packages
    PACKAGES=("${AARCH64_PACKAGES[@]}")
    install_debian_packages
    ;;
  *) echo "setup: unknown option '$1' (setup.sh [--arch aarch64])" >&2; exit 2 ;;
esac
