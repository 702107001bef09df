#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test through ctest (the fuzz targets among them,
# over their seeds and reproducible mutations of them), then formatting and lint (scripts/lint.sh).
#   scripts/test.sh [CTEST-ARGS...]
#   scripts/test.sh --fuzz [CTEST-ARGS...]       the fuzz targets under libFuzzer with ASan and UBSan,
#                                                10 s each (build-fuzz/, docs/fuzzing.md)
#   scripts/test.sh --sanitize address,undefined [CTEST-ARGS...]   every test, built with ASan and UBSan
#   scripts/test.sh --sanitize thread [CTEST-ARGS...]              the tracker, dispatcher, job and
#                                                                  thread-pool tests, built with TSan
# A sanitized build lives in a folder of its own (build-asan/, build-tsan/); any report fails its test.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
sanitize=""
if [[ "${1:-}" == --fuzz ]]; then
  shift
  "$root/scripts/build.sh" --fuzz
  exec ctest --test-dir "$root/build-fuzz" --output-on-failure -j "$(nproc)" --timeout 300 "$@"
fi
if [[ "${1:-}" == --sanitize ]]; then
  sanitize="${2:-}"
  shift $(( $# >= 2 ? 2 : 1 ))
fi
"$root/scripts/setup.sh"
# The AArch64 board (cross-built, run under qemu-user) for the mixed-fleet tests.
"$root/scripts/build.sh" --arch aarch64

if [ -n "$sanitize" ]; then
  "$root/scripts/build.sh" --sanitize "$sanitize"
  supp="$root/tests/sanitizers"
  # use_sigaltstack=0: lld's crash recovery gives a linking thread an alternate signal stack of
  # its own, which ASan would otherwise unmap as its own when the thread ends (and abort).
  export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:strict_string_checks=1:use_sigaltstack=0"
  export LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0"
  export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
  export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$supp/tsan.supp"
  if [ "$sanitize" = thread ]; then
    cd "$root/build-tsan"
    # The code that shares state between threads: the tracker's dispatcher, jobs and services (in
    # process and as a real tracker with boards), the scheduler, the runtime's thread pool.
    exec ctest --output-on-failure -j "$(nproc)" --timeout 1800 \
      -R '^(Dispatcher|JobManager|JobLiveness|TaskScheduler|RuntimeThreadPool|WorkspacePool|TimingLock|FleetJobs|FleetBoard|FleetDeadline|FleetAuth|CliSubmit|Sandbox)\.' "$@"
  fi
  cd "$root/build-asan"
  exec ctest --output-on-failure -j "$(nproc)" --timeout 1800 "$@"
fi

"$root/scripts/build.sh"
status=0
ctest --test-dir "$root/build" --output-on-failure -j "$(nproc)" --timeout 900 "$@" || status=$?
# The whole run (no ctest arguments, as CI runs it) also checks formatting and lint (clang-tidy
# re-checks only the unity batches a change reaches), after the tests so that neither hides a failing test.
if [ $# -eq 0 ]; then "$root/scripts/lint.sh" || status=1; fi
exit "$status"
