// tunefarm-measure-worker: measures kernels for a parent (local tuning, or a board daemon) in a
// process of its own, so a kernel that crashes or hangs costs only this process. Reads framed
// requests on stdin and writes results on stdout (runtime/measure_worker.h). Links only the runtime.
// It confines itself (runtime/sandbox.h) before reading the first request, so no kernel, nor any
// library constructor, ever runs unconfined.
#include <sched.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "runtime/kernel_library.h"
#include "runtime/measure.h"
#include "runtime/measure_worker.h"
#include "runtime/sandbox.h"
#include "runtime/thread_pool.h"
#include "runtime/wire.h"

#if defined(__SANITIZE_ADDRESS__)
// The leak check at exit runs in a process the sandbox does not let the worker start, and the
// symbolizer is another; a sanitized worker reports findings unsymbolized instead. A kernel's
// crash is an outcome the parent classifies by its signal, as without ASan, not a finding.
extern "C" const char* __asan_default_options() {
  return "detect_leaks=0:symbolize=0:handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:use_sigaltstack=0";
}
#endif
#if defined(__SANITIZE_THREAD__)
extern "C" const char* __tsan_default_options() {
  return "symbolize=0:handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:use_sigaltstack=0";
}
#endif

int main(int argc, char** argv) {
  using namespace tf::runtime;
  bool confine = true, check_only = false;
  sandbox::Limits limits;
  limits.memory_bytes = kDefaultWorkerMemoryMb << 20;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--cpus=", 7) == 0) {
      cpu_set_t set;
      CPU_ZERO(&set);
      std::vector<int> cpus;
      for (const char* p = argv[i] + 7; *p;) {
        int c = std::atoi(p);
        CPU_SET(c, &set);
        cpus.push_back(c);
        while (*p && *p != ',') ++p;
        if (*p == ',') ++p;
      }
      sched_setaffinity(0, sizeof set, &set);
      set_num_threads(static_cast<int>(cpus.size()));
      pin_threads_to_cpus(cpus);
    } else if (std::strncmp(argv[i], "--threads=", 10) == 0) {
      set_num_threads(std::atoi(argv[i] + 10));
    } else if (std::strncmp(argv[i], "--memory-mb=", 12) == 0) {
      limits.memory_bytes = std::strtoull(argv[i] + 12, nullptr, 10) << 20;
    } else if (std::strcmp(argv[i], "--no-sandbox") == 0) {
      confine = false;
    } else if (std::strcmp(argv[i], "--check-sandbox") == 0) {
      check_only = true;
    } else {
      std::fprintf(stderr, "tunefarm-measure-worker: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  if (confine) {
    if (std::string why = sandbox::enter(limits); !why.empty()) {
      std::fprintf(stderr, "tunefarm-measure-worker: cannot enter the sandbox: %s\n", why.c_str());
      return kWorkerCannotSandbox;
    }
  }
  if (check_only) return 0;
  std::unique_ptr<KernelBench> bench;
  uint32_t kind = 0;
  std::vector<uint8_t> payload;
  while (wire::read_frame(STDIN_FILENO, &kind, &payload)) {
    if (kind == worker_protocol::kSetup) {
      bench = std::make_unique<KernelBench>(worker_protocol::decode_setup(payload));
      continue;
    }
    if (kind != worker_protocol::kMeasure) return 2;
    MeasureResult r;
    std::vector<uint8_t> library;
    std::string entry;
    MeasureOptions opts;
    try {
      worker_protocol::decode_measure(payload, &library, &entry, &opts);
      if (!bench) throw std::runtime_error("no workload set up");
      std::unique_ptr<KernelLibrary> lib;
      try {
        lib = KernelLibrary::load(library, entry);
      } catch (const std::exception& e) {
        r.status = MeasureStatus::LoadError;
        r.error = e.what();
      }
      // Lost notices only cost the parent's patience; the result frame below reports the failure.
      auto tell_parent = [](KernelBench::LockPhase phase) {
        wire::write_frame(STDOUT_FILENO,
                          phase == KernelBench::LockPhase::WaitingForLock ? worker_protocol::kLockWaiting
                                                                          : worker_protocol::kLockHeld,
                          {});
      };
      if (lib) r = bench->measure(lib->entry(), opts, tell_parent);
    } catch (const std::exception& e) {
      r.status = MeasureStatus::RuntimeError;
      r.error = e.what();
    }
    if (!wire::write_frame(STDOUT_FILENO, worker_protocol::kResult, worker_protocol::encode_result(r))) return 1;
  }
  return 0;
}
