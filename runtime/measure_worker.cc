#include "runtime/measure_worker.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "runtime/host_lock.h"
#include "runtime/sandbox.h"
#include "runtime/timing_check.h"
#include "runtime/wire.h"

extern char** environ;

namespace tf::runtime {

namespace worker_protocol {

std::vector<uint8_t> encode_setup(const WorkloadSetup& s) {
  wire::Writer w;
  w.u32(static_cast<uint32_t>(s.args.size()));
  for (const auto& a : s.args) {
    w.u32(static_cast<uint32_t>(a.shape.size()));
    for (int64_t d : a.shape) w.i64(d);
    w.i32(a.dtype_code);
    w.i32(a.dtype_bits);
  }
  w.i32(s.num_inputs);
  w.u64(s.seed);
  w.blob(s.expected.data(), s.expected.size() * sizeof(float));
  w.blob(s.tolerance.data(), s.tolerance.size() * sizeof(float));
  return w.bytes();
}

WorkloadSetup decode_setup(const std::vector<uint8_t>& b) {
  wire::Reader r(b.data(), b.size());
  WorkloadSetup s;
  const uint32_t n = r.u32();
  if (n > 64) throw std::runtime_error("setup: too many arguments");
  for (uint32_t i = 0; i < n; ++i) {
    TensorSpec t;
    const uint32_t ndim = r.u32();
    if (ndim > 8) throw std::runtime_error("setup: too many dimensions");
    for (uint32_t d = 0; d < ndim; ++d) t.shape.push_back(r.i64());
    t.dtype_code = r.i32();
    t.dtype_bits = r.i32();
    s.args.push_back(t);
  }
  s.num_inputs = r.i32();
  s.seed = r.u64();
  size_t bytes = 0;
  const uint8_t* p = r.blob(&bytes);
  s.expected.resize(bytes / sizeof(float));
  // An empty vector's data() may be null, which memcpy must never get, even for 0 bytes.
  if (!s.expected.empty()) std::memcpy(s.expected.data(), p, s.expected.size() * sizeof(float));
  p = r.blob(&bytes);
  s.tolerance.resize(bytes / sizeof(float));
  if (!s.tolerance.empty()) std::memcpy(s.tolerance.data(), p, s.tolerance.size() * sizeof(float));
  return s;
}

std::vector<uint8_t> encode_measure(const std::vector<uint8_t>& library, const std::string& entry, const MeasureOptions& o) {
  wire::Writer w;
  w.blob(library.data(), library.size());
  w.str(entry);
  w.i32(o.repeat);
  w.i32(o.number);
  w.f64(o.min_repeat_ms);
  w.i32(o.flush_cache ? 1 : 0);
  w.f64(o.cooldown_ms);
  w.f64(o.timeout_s);
  w.str(o.timing_lock);
  return w.bytes();
}

void decode_measure(const std::vector<uint8_t>& b, std::vector<uint8_t>* library, std::string* entry, MeasureOptions* o) {
  wire::Reader r(b.data(), b.size());
  size_t n = 0;
  const uint8_t* p = r.blob(&n);
  library->assign(p, p + n);
  *entry = r.str();
  o->repeat = r.i32();
  o->number = r.i32();
  o->min_repeat_ms = r.f64();
  o->flush_cache = r.i32() != 0;
  o->cooldown_ms = r.f64();
  o->timeout_s = r.f64();
  o->timing_lock = r.str();
}

std::vector<uint8_t> encode_result(const MeasureResult& m) {
  wire::Writer w;
  w.i32(static_cast<int32_t>(m.status));
  w.str(m.error);
  w.i32(m.number);
  w.u32(static_cast<uint32_t>(m.costs.size()));
  for (double c : m.costs) w.f64(c);
  return w.bytes();
}

MeasureResult decode_result(const std::vector<uint8_t>& b) {
  wire::Reader r(b.data(), b.size());
  MeasureResult m;
  m.status = static_cast<MeasureStatus>(r.i32());
  m.error = r.str();
  m.number = r.i32();
  const uint32_t n = r.u32();
  for (uint32_t i = 0; i < n && i < 100000; ++i) m.costs.push_back(r.f64());
  if (m.status == MeasureStatus::Ok) {
    const std::string why = timing_problem(m.costs);
    if (!why.empty()) {
      m.status = MeasureStatus::RuntimeError;
      m.error = "the measurement produced an unusable timing: " + why;
      m.costs.clear();
    }
  }
  return m;
}

}  // namespace worker_protocol

namespace {

// posix_spawnp's status (0: started) for `argv_s`, run with the worker's short environment.
int spawn_with_worker_environment(std::vector<std::string> argv_s, const posix_spawn_file_actions_t* actions, pid_t* pid) {
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_s = worker_environment(environ);
  std::vector<char*> env;
  for (auto& e : env_s) env.push_back(e.data());
  env.push_back(nullptr);
  return posix_spawnp(pid, argv_s.front().c_str(), actions, nullptr, argv.data(), env.data());
}

std::string sandbox_violation_message(const std::vector<uint8_t>& payload) {
  uint32_t nr = 0;
  if (payload.size() >= sizeof nr) std::memcpy(&nr, payload.data(), sizeof nr);
  std::string name(payload.begin() + std::min<size_t>(payload.size(), sizeof nr), payload.end());
  if (name.empty()) name = "system call " + std::to_string(nr);
  return "the measure worker's sandbox stopped the kernel: it called " + name + " (system call " + std::to_string(nr) +
         "); kernels may not use the network, start processes, write files or signal other processes";
}

// CPU seconds the process has used, from /proc (its children's are not counted: it has none).
double cpu_seconds_used(pid_t pid) {
  FILE* f = std::fopen(("/proc/" + std::to_string(pid) + "/stat").c_str(), "r");
  if (!f) return 0;
  char buf[1024];
  const size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  buf[n] = 0;
  // Fields after the command (which may hold spaces) start after its closing parenthesis;
  // utime and stime are fields 14 and 15.
  const char* p = std::strrchr(buf, ')');
  unsigned long long utime = 0, stime = 0;
  if (!p || std::sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime, &stime) != 2) return 0;
  return static_cast<double>(utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

}  // namespace

std::string MeasureWorker::sandbox_problem() const {
  int err[2];
  if (::pipe2(err, O_CLOEXEC) != 0) return std::string("cannot create a pipe: ") + std::strerror(errno);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, err[1], STDERR_FILENO);
  std::vector<std::string> argv_s = launcher_;
  argv_s.push_back(path_);
  argv_s.push_back("--check-sandbox");
  pid_t pid = -1;
  const int rc = spawn_with_worker_environment(argv_s, &actions, &pid);
  posix_spawn_file_actions_destroy(&actions);
  ::close(err[1]);
  std::string said;
  char buf[512];
  for (ssize_t n; rc == 0 && (n = ::read(err[0], buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    said.append(buf, static_cast<size_t>(n));
  }
  ::close(err[0]);
  if (rc != 0) return "cannot start " + argv_s.front() + ": " + std::strerror(rc);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return "";
  while (!said.empty() && said.back() == '\n') said.pop_back();
  return said.empty() ? "the worker's sandbox check failed without a message" : said;
}

void MeasureWorker::limit_cpu_time(double timeout_s) {
  // A kernel may use every CPU it is pinned to for its whole wall-clock budget, plus slack for
  // loading; beyond that it spins where the wall-clock timeout cannot see it (a kernel that forges
  // the worker's "waiting for the timing lock" frame stops the parent's clock). The worker cannot
  // raise the limit: the sandbox refuses it.
  if (pid_ < 0) return;
  const long cpus = cpus_.empty() ? ::sysconf(_SC_NPROCESSORS_ONLN) : static_cast<long>(cpus_.size());
  const double budget_s = std::clamp(timeout_s, 0.001, kMaxTimeoutS) * static_cast<double>(std::max(1L, cpus)) + 2;
  const auto limit = static_cast<rlim_t>(std::ceil(cpu_seconds_used(pid_) + budget_s));
  const rlimit cpu{limit, limit + 5};
  ::prlimit(pid_, RLIMIT_CPU, &cpu, nullptr);
}

std::string MeasureWorker::default_path() {
  if (const char* env = std::getenv("TUNEFARM_MEASURE_WORKER"); env && *env) return env;
  char self[4096];
  ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  std::string dir = n > 0 ? std::string(self, static_cast<size_t>(n)) : std::string(".");
  dir = dir.substr(0, dir.find_last_of('/'));
  // Installed side by side, or in the build tree: build/cli/tunefarm and build/runtime/worker/...
  for (const std::string& candidate : {dir + "/tunefarm-measure-worker", dir + "/../runtime/tunefarm-measure-worker"}) {
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return dir + "/tunefarm-measure-worker";
}

std::vector<std::string> worker_environment(const char* const* parent) {
  // Kernels run in the worker with whatever it can read, and a board's environment holds its
  // token (TUNEFARM_TOKEN) and whatever else its operator keeps there. The worker reads no
  // variable of its own; it keeps the locale, the time zone, where temporary files go, and how
  // the loader finds libraries.
  static const char* const kept[] = {"PATH", "LANG", "LANGUAGE", "TZ", "TMPDIR", "LD_LIBRARY_PATH"};
  std::vector<std::string> env;
  for (const char* const* e = parent; e && *e; ++e) {
    const std::string var = *e;
    const std::string name = var.substr(0, var.find('='));
    bool keep = name.rfind("LC_", 0) == 0;
    for (const char* k : kept) keep = keep || name == k;
    if (keep) env.push_back(var);
  }
  return env;
}

MeasureWorker::MeasureWorker(std::string worker_path, std::vector<int> cpus, int threads)
    : path_(std::move(worker_path)), cpus_(std::move(cpus)), threads_(threads) {
  // A worker that dies while we write to it must not take us down with SIGPIPE.
  ::signal(SIGPIPE, SIG_IGN);
}

MeasureWorker::~MeasureWorker() { stop(); }

void MeasureWorker::start() {
  int in[2], out[2];
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error("measure worker: cannot create pipes");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  std::string cpu_list;
  for (int c : cpus_) cpu_list += (cpu_list.empty() ? "" : ",") + std::to_string(c);
  std::vector<std::string> argv_s = launcher_;
  argv_s.push_back(path_);
  if (!cpu_list.empty()) argv_s.push_back("--cpus=" + cpu_list);
  if (threads_ > 0) argv_s.push_back("--threads=" + std::to_string(threads_));
  argv_s.push_back(sandbox_ ? "--memory-mb=" + std::to_string(memory_mb_) : "--no-sandbox");
  int rc = spawn_with_worker_environment(argv_s, &actions, &pid_);
  posix_spawn_file_actions_destroy(&actions);
  ::close(in[0]);
  ::close(out[1]);
  if (rc != 0) {
    ::close(in[1]);
    ::close(out[0]);
    pid_ = -1;
    throw std::runtime_error("measure worker: cannot start " + argv_s.front() + ": " + std::strerror(rc));
  }
  to_worker_ = in[1];
  from_worker_ = out[0];
  setup_sent_ = false;
}

std::string MeasureWorker::reap(bool kill_first) {
  if (pid_ < 0) return "not running";
  if (kill_first) ::kill(pid_, SIGKILL);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  if (to_worker_ >= 0) ::close(to_worker_);
  if (from_worker_ >= 0) ::close(from_worker_);
  to_worker_ = from_worker_ = -1;
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    std::string how = "killed by signal " + std::to_string(sig) + " (" + strsignal(sig) + ")";
    if (sig == SIGXCPU) how += ": the kernel used up its CPU-time limit";
    if (sig == SIGSYS) how += ": the sandbox stopped a forbidden system call";
    return how;
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == kWorkerCannotSandbox) {
    return "could not enter its sandbox (its message is in the log; a board under an emulator without "
           "system-call filtering needs --no-sandbox)";
  }
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  return "ended";
}

void MeasureWorker::stop() {
  if (pid_ >= 0) reap(true);
}

void MeasureWorker::setup(const WorkloadSetup& setup) {
  setup_ = setup;
  setup_sent_ = false;
}

MeasureResult MeasureWorker::measure(const std::vector<uint8_t>& library, const std::string& entry, const MeasureOptions& opts) {
  MeasureResult result;
  if (!setup_) {
    result.status = MeasureStatus::RuntimeError;
    result.error = "measure worker: no workload set up";
    return result;
  }
  if (std::string bad = measure_options_error(opts); !bad.empty()) {
    result.status = MeasureStatus::RuntimeError;
    result.error = "measure options: " + bad;
    return result;
  }
  if (pid_ < 0) {
    start();
    ++restarts_;
  }
  if (!setup_sent_) {
    if (!wire::write_frame(to_worker_, worker_protocol::kSetup, worker_protocol::encode_setup(*setup_))) {
      result.status = MeasureStatus::RuntimeError;
      result.error = "measure worker " + reap(true) + " before the workload was set up";
      return result;
    }
    setup_sent_ = true;
  }
  if (!opts.timing_lock.empty()) HostLock::create_file(opts.timing_lock);
  limit_cpu_time(opts.timeout_s);
  if (!wire::write_frame(to_worker_, worker_protocol::kMeasure, worker_protocol::encode_measure(library, entry, opts))) {
    result.status = MeasureStatus::RuntimeError;
    result.error = "measure worker " + reap(true) + " while receiving the kernel";
    return result;
  }
  // The budget counts the worker's time except its wait for the timing lock: on a busy host a
  // good kernel must not time out while another measurer times. The wait is bounded only
  // generously, against a lock holder that never lets go.
  using Clock = std::chrono::steady_clock;
  const double budget_s = std::clamp(opts.timeout_s, 0.001, kMaxTimeoutS);
  const double max_wait_s = std::max(600.0, 60 * budget_s);
  double used_s = 0;
  bool waiting_for_lock = false, got_result = false;
  uint32_t kind = 0;
  std::vector<uint8_t> payload;
  for (;;) {
    const double left_s = waiting_for_lock ? max_wait_s : budget_s - used_s;
    pollfd p{from_worker_, POLLIN, 0};
    const auto t0 = Clock::now();
    int ready = 0;
    do {
      ready = ::poll(&p, 1, static_cast<int>(std::max(1.0, left_s * 1000)));
    } while (ready < 0 && errno == EINTR);
    const double spent_s = std::chrono::duration<double>(Clock::now() - t0).count();
    if (!waiting_for_lock) used_s += spent_s;
    if (ready == 0) {
      reap(true);
      result.status = waiting_for_lock ? MeasureStatus::RuntimeError : MeasureStatus::Timeout;
      result.error = waiting_for_lock ? "waited " + std::to_string(max_wait_s) + " s for the host-wide timing lock " +
                                            opts.timing_lock + " without getting it; worker killed"
                                      : "no result within " + std::to_string(opts.timeout_s) + " s; worker killed";
      return result;
    }
    if (!wire::read_frame(from_worker_, &kind, &payload)) break;
    if (kind == worker_protocol::kLockWaiting) {
      waiting_for_lock = true;
    } else if (kind == worker_protocol::kLockHeld) {
      waiting_for_lock = false;
    } else if (kind == worker_protocol::kSandboxViolation) {
      reap(true);
      result.status = MeasureStatus::RuntimeError;
      result.error = sandbox_violation_message(payload);
      return result;
    } else {
      got_result = kind == worker_protocol::kResult;
      break;
    }
  }
  if (!got_result) {
    result.status = MeasureStatus::RuntimeError;
    result.error = "the kernel crashed its worker: " + reap(false);
    return result;
  }
  try {
    return worker_protocol::decode_result(payload);
  } catch (const std::exception& e) {
    reap(true);
    result.status = MeasureStatus::RuntimeError;
    result.error = std::string("measure worker sent a bad result: ") + e.what();
    return result;
  }
}

}  // namespace tf::runtime
