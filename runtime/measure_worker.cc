#include "runtime/measure_worker.h"

#include <fcntl.h>
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
#include <stdexcept>

#include "runtime/host_lock.h"
#include "runtime/thread_pool.h"
#include "runtime/worker_channel.h"

extern char** environ;

namespace tf::runtime {

namespace {

using Clock = std::chrono::steady_clock;

Clock::time_point after_seconds(double s) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

// A pipe whose ends are closed on exec; the one the child gets is dup2'ed, which clears that.
bool make_pipe(int fds[2]) { return ::pipe2(fds, O_CLOEXEC) == 0; }

// Starts `argv_s` with the worker's short environment, its stdin, stdout and stderr on the given
// descriptors and every other descriptor of this process closed: a worker inherits nothing of the
// board's (its log, its connections). posix_spawnp's status: 0 when started.
int spawn_worker(std::vector<std::string> argv_s, int in, int out, int err, pid_t* pid) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (in >= 0) posix_spawn_file_actions_adddup2(&actions, in, STDIN_FILENO);
  if (out >= 0) posix_spawn_file_actions_adddup2(&actions, out, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err, STDERR_FILENO);
  posix_spawn_file_actions_addclosefrom_np(&actions, STDERR_FILENO + 1);
  std::vector<char*> argv;
  argv.reserve(argv_s.size());
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_s = worker_environment(environ);
  std::vector<char*> env;
  env.reserve(env_s.size());
  for (auto& e : env_s) env.push_back(e.data());
  env.push_back(nullptr);
  const int rc = posix_spawnp(pid, argv_s.front().c_str(), &actions, nullptr, argv.data(), env.data());
  posix_spawn_file_actions_destroy(&actions);
  return rc;
}

std::string sandbox_violation_message(const std::vector<uint8_t>& payload) {
  uint32_t nr = 0;
  if (payload.size() >= sizeof nr) std::memcpy(&nr, payload.data(), sizeof nr);
  std::string name;
  for (size_t i = std::min<size_t>(payload.size(), sizeof nr); i < payload.size() && name.size() < 32; ++i) {
    const char c = static_cast<char>(payload[i]);
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_') name += c;
  }
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

const char* const kCouldNotSandbox = "could not enter its sandbox";

std::string with_worker_text(std::string why, const std::string& text) {
  if (!text.empty()) why += "; the worker wrote: " + text;
  return why;
}

}  // namespace

std::vector<std::string> MeasureWorker::command(const std::vector<std::string>& options) const {
  std::vector<std::string> argv = launcher_;
  argv.push_back(path_);
  if (!cpus_.empty()) argv.push_back("--cpus=" + cpu_list_text(cpus_));
  if (threads_ > 0) argv.push_back("--threads=" + std::to_string(threads_));
  argv.push_back(sandbox_ ? "--memory-mb=" + std::to_string(memory_mb_) : "--no-sandbox");
  argv.insert(argv.end(), options.begin(), options.end());
  return argv;
}

std::string MeasureWorker::sandbox_problem(const std::string& timing_lock) const {
  int err[2];
  if (!make_pipe(err)) return std::string("cannot create a pipe: ") + std::strerror(errno);
  std::vector<std::string> options = {"--check-sandbox"};
  if (!timing_lock.empty()) {
    HostLock::create_file(timing_lock);
    options.push_back("--timing-lock=" + timing_lock);
  }
  const std::vector<std::string> argv = command(options);
  pid_t pid = -1;
  const int rc = spawn_worker(argv, -1, -1, err[1], &pid);
  ::close(err[1]);
  std::string said;
  char buf[512];
  for (ssize_t n; rc == 0 && (n = ::read(err[0], buf, sizeof buf)) != 0 && said.size() < 4096;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    said.append(buf, static_cast<size_t>(n));
  }
  ::close(err[0]);
  if (rc != 0) return "cannot start " + argv.front() + ": " + std::strerror(rc);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return "";
  while (!said.empty() && said.back() == '\n') said.pop_back();
  return said.empty() ? "the worker's sandbox check failed without a message" : said;
}

void MeasureWorker::limit_cpu_time(double timeout_s) {
  // A kernel may use every CPU it is pinned to for its whole wall-clock budget, plus slack for
  // loading; beyond that it spins where the wall-clock timeout cannot see it (a thread it left
  // running after its result). The worker cannot raise the limit: the sandbox refuses it.
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

void MeasureWorker::start(const std::string& timing_lock) {
  int in[2], out[2], err[2];
  if (!make_pipe(in)) throw std::runtime_error("measure worker: cannot create pipes");
  if (!make_pipe(out)) {
    ::close(in[0]), ::close(in[1]);
    throw std::runtime_error("measure worker: cannot create pipes");
  }
  if (!make_pipe(err)) {
    ::close(in[0]), ::close(in[1]), ::close(out[0]), ::close(out[1]);
    throw std::runtime_error("measure worker: cannot create pipes");
  }
  std::vector<std::string> options;
  if (!timing_lock.empty()) {
    // The worker cannot create files, and may open only those it is told of before it confines itself.
    HostLock::create_file(timing_lock);
    options.push_back("--timing-lock=" + timing_lock);
  }
  const std::vector<std::string> argv = command(options);
  const int rc = spawn_worker(argv, in[0], out[1], err[1], &pid_);
  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);
  if (rc != 0) {
    ::close(in[1]), ::close(out[0]), ::close(err[0]);
    pid_ = -1;
    throw std::runtime_error("measure worker: cannot start " + argv.front() + ": " + std::strerror(rc));
  }
  channel_ = std::make_unique<WorkerChannel>(in[1], out[0], err[0]);
  timing_lock_ = timing_lock;
  setup_sent_ = false;
}

std::string MeasureWorker::reap(bool kill_first) {
  if (pid_ < 0) return "not running";
  if (kill_first) ::kill(pid_, SIGKILL);
  // A worker that closed its pipe is ending, unless a kernel closed it and lives on: a second's
  // grace, then it is killed.
  int status = 0;
  pid_t done = 0;
  for (int waited_ms = 0;; waited_ms += 5) {
    done = ::waitpid(pid_, &status, WNOHANG);
    if (done < 0 && errno == EINTR) continue;
    if (done != 0 || waited_ms >= 1000) break;
    ::usleep(5000);
  }
  if (done == 0) {
    ::kill(pid_, SIGKILL);
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  pid_ = -1;
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    std::string how = "killed by signal " + std::to_string(sig) + " (" + strsignal(sig) + ")";
    if (sig == SIGXCPU) how += ": the kernel used up its CPU-time limit";
    if (sig == SIGSYS) how += ": the sandbox stopped a forbidden system call";
    return how;
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == kWorkerCannotSandbox) return kCouldNotSandbox;
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  return "ended";
}

void MeasureWorker::stop() {
  if (pid_ >= 0) reap(true);
  channel_.reset();
}

void MeasureWorker::setup(const WorkloadSetup& setup) {
  setup_ = setup;
  setup_sent_ = false;
}

MeasureResult MeasureWorker::failed(MeasureStatus status, const std::string& why, bool kill) {
  MeasureResult result;
  result.status = status;
  const std::string text = channel_ ? channel_->take_error_text() : "";
  const std::string ended = pid_ >= 0 ? reap(kill) : "";
  result.error = with_worker_text(ended == kCouldNotSandbox ? "the measure worker " + ended : why + ended, text);
  channel_.reset();
  return result;
}

MeasureResult MeasureWorker::measure(const std::vector<uint8_t>& library, const std::string& entry,
                                     const MeasureOptions& opts) {
  MeasureResult result;
  result.status = MeasureStatus::RuntimeError;
  if (!setup_) {
    result.error = "measure worker: no workload set up";
    return result;
  }
  if (std::string bad = measure_options_error(opts); !bad.empty()) {
    result.error = "measure options: " + bad;
    return result;
  }
  if (pid_ >= 0 && timing_lock_ != opts.timing_lock) stop();
  if (pid_ < 0) {
    start(opts.timing_lock);
    ++restarts_;
  }
  // Handing the worker the workload and the kernel counts against the candidate's time: a worker
  // that stops reading its pipe holds the parent no longer than a kernel that hangs.
  const auto send_by = after_seconds(std::clamp(opts.timeout_s, 0.001, kMaxTimeoutS));
  if (!setup_sent_) {
    if (channel_->send(worker_protocol::kSetup, worker_protocol::encode_setup(*setup_), send_by) !=
        WorkerChannel::Outcome::Done) {
      return failed(MeasureStatus::RuntimeError, "measure worker did not take the workload: ", true);
    }
    setup_sent_ = true;
  }
  limit_cpu_time(opts.timeout_s);
  if (channel_->send(worker_protocol::kMeasure, worker_protocol::encode_measure(library, entry, opts), send_by) !=
      WorkerChannel::Outcome::Done) {
    return failed(MeasureStatus::RuntimeError, "measure worker did not take the kernel: ", true);
  }
  return await_result(opts);
}

MeasureResult MeasureWorker::await_result(const MeasureOptions& opts) {
  // The budget counts the worker's time except its wait for the timing lock: on a busy host a
  // good kernel must not time out while another measurer times. The wait is bounded only
  // generously, against a lock holder that never lets go. The lock frames come once each and
  // before the kernel is loaded (runtime/worker_protocol.h); any other order is a kernel writing
  // to the pipe, and ends the worker.
  enum class Phase { BeforeLock, WaitingForLock, LockHeld } phase = Phase::BeforeLock;
  const double budget_s = std::clamp(opts.timeout_s, 0.001, kMaxTimeoutS);
  const double max_wait_s = std::max(600.0, 60 * budget_s);
  double used_s = 0;
  uint32_t kind = 0;
  std::vector<uint8_t> payload;
  for (;;) {
    const bool waiting = phase == Phase::WaitingForLock;
    const auto t0 = Clock::now();
    const auto got = channel_->receive(&kind, &payload, worker_protocol::kMaxWorkerFrameBytes,
                                       after_seconds(waiting ? max_wait_s : budget_s - used_s));
    if (!waiting) used_s += std::chrono::duration<double>(Clock::now() - t0).count();
    if (got == WorkerChannel::Outcome::Timeout) {
      if (waiting) {
        return failed(MeasureStatus::RuntimeError,
                      "waited " + std::to_string(max_wait_s) + " s for the host-wide timing lock " + opts.timing_lock +
                          " without getting it; worker ",
                      true);
      }
      return failed(MeasureStatus::Timeout, "no result within " + std::to_string(opts.timeout_s) + " s; worker ", true);
    }
    if (got == WorkerChannel::Outcome::Closed)
      return failed(MeasureStatus::RuntimeError, "the kernel crashed its worker: ", false);
    if (got == WorkerChannel::Outcome::Malformed) {
      return failed(MeasureStatus::RuntimeError,
                    "the measure worker sent a frame larger than any result (a kernel writing to its pipe); worker ",
                    true);
    }
    if (kind == worker_protocol::kSandboxViolation) {
      return failed(MeasureStatus::RuntimeError, sandbox_violation_message(payload) + "; worker ", true);
    }
    if (kind == worker_protocol::kLockWaiting && phase == Phase::BeforeLock) {
      phase = Phase::WaitingForLock;
    } else if (kind == worker_protocol::kLockHeld && phase == Phase::WaitingForLock) {
      phase = Phase::LockHeld;
    } else if (kind == worker_protocol::kResult) {
      MeasureResult r;
      try {
        r = worker_protocol::decode_result(payload, opts);
      } catch (const std::exception& e) {
        return failed(MeasureStatus::RuntimeError,
                      std::string("the measure worker sent a bad result (") + e.what() + "); worker ", true);
      }
      if (r.status == MeasureStatus::Ok && phase != Phase::LockHeld) {
        return failed(MeasureStatus::RuntimeError,
                      "the measure worker sent timings without holding the timing lock; worker ", true);
      }
      if (r.status != MeasureStatus::Ok) r.error = with_worker_text(r.error, channel_->take_error_text());
      return r;
    } else {
      return failed(MeasureStatus::RuntimeError,
                    "the measure worker broke its protocol (frame kind " + std::to_string(kind) +
                        " out of order: a kernel writing to its pipe); worker ",
                    true);
    }
  }
}

MeasureResult MeasureWorker::measure_foreign(const std::vector<uint8_t>& library, const std::string& entry,
                                             const MeasureOptions& opts) {
  MeasureWorker own(path_, cpus_, threads_);
  own.launcher_ = launcher_;
  own.sandbox_ = sandbox_;
  own.memory_mb_ = memory_mb_;
  own.setup_ = setup_;
  MeasureResult r = own.measure(library, entry, opts);
  restarts_ += own.restarts_;
  return r;  // `own` is killed as it goes
}

}  // namespace tf::runtime
