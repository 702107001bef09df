// tunefarm-measure-worker: measures kernels for a parent (local tuning, or a board daemon) in a
// process of its own, so a kernel that crashes or hangs costs only this process. Reads framed
// requests on stdin and writes results on stdout (runtime/worker_protocol.h). Links only the
// runtime. It confines itself (runtime/sandbox.h) before reading the first request, so no kernel,
// nor any library constructor, ever runs unconfined; and it takes the host-wide timing lock before
// it loads a kernel, so no kernel code runs before the parent has heard the lock frames.
#include <sched.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include <chrono>
#include <thread>

#include "runtime/host_lock.h"
#include "runtime/kernel_library.h"
#include "runtime/last_level_cache.h"
#include "runtime/measure.h"
#include "runtime/measure_worker.h"
#include "runtime/sandbox.h"
#include "runtime/thread_pool.h"
#include "runtime/wire.h"
#include "runtime/worker_protocol.h"

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

namespace {

using namespace tf::runtime;

// Lost notices only cost the parent's patience; the result frame reports any failure.
void tell_parent(worker_protocol::Kind kind) { wire::write_frame(STDOUT_FILENO, kind, {}); }

// One kMeasure request: the lock first (announced to the parent), then the kernel loaded, checked
// and timed while it is held, then the cooldown without it.
MeasureResult measure_request(KernelBench* bench, const std::vector<uint8_t>& payload) {
  MeasureResult r;
  std::vector<uint8_t> library;
  std::string entry;
  MeasureOptions opts;
  try {
    worker_protocol::decode_measure(payload, &library, &entry, &opts);
    if (std::string bad = measure_options_error(opts); !bad.empty())
      throw std::runtime_error("measure options: " + bad);
    if (!bench) throw std::runtime_error("no workload set up");
    {
      tell_parent(worker_protocol::kLockWaiting);
      HostLock lock(opts.timing_lock);
      tell_parent(worker_protocol::kLockHeld);
      if (!opts.timing_lock.empty() && !lock.held()) {
        r.status = MeasureStatus::RuntimeError;
        r.error = lock.error() + "; not timed without it (measure with no timing lock to time anyway)";
        return r;
      }
      std::unique_ptr<KernelLibrary> lib;
      try {
        lib = KernelLibrary::load(library, entry);
      } catch (const std::exception& e) {
        r.status = MeasureStatus::LoadError;
        r.error = e.what();
        return r;
      }
      r = bench->measure(lib->entry(), opts);
    }
    if (opts.cooldown_ms > 0) std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(opts.cooldown_ms));
  } catch (const std::exception& e) {
    r.status = MeasureStatus::RuntimeError;
    r.error = e.what();
  }
  return r;
}

}  // namespace

int main(int argc, char** argv) {
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
    } else if (std::strncmp(argv[i], "--timing-lock=", 14) == 0) {
      limits.readable_files.push_back(argv[i] + 14);
    } else if (std::strcmp(argv[i], "--no-sandbox") == 0) {
      confine = false;
    } else if (std::strcmp(argv[i], "--check-sandbox") == 0) {
      check_only = true;
    } else {
      std::fprintf(stderr, "tunefarm-measure-worker: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  // Cold timings size their copies by it; the sandbox hides /sys.
  const LastLevelCache llc = last_level_cache();
  // The board's start-up check asks for everything: file rules included.
  limits.require_file_rules = check_only;
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
      bench = std::make_unique<KernelBench>(worker_protocol::decode_setup(payload), llc);
      continue;
    }
    if (kind != worker_protocol::kMeasure) return 2;
    const MeasureResult r = measure_request(bench.get(), payload);
    if (!wire::write_frame(STDOUT_FILENO, worker_protocol::kResult, worker_protocol::encode_result(r))) return 1;
  }
  return 0;
}
