// A child process with its output in a log file, for the programs and tests that start a fleet
// (benchmarks, fault tests). The child is killed when the thread that started it dies, so a
// crashed parent leaves nothing running.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace tf {

class Subprocess {
 public:
  Subprocess(const std::vector<std::string>& argv, const std::string& log);
  ~Subprocess();  // SIGKILL, if still running
  Subprocess(const Subprocess&) = delete;
  Subprocess& operator=(const Subprocess&) = delete;

  pid_t pid() const { return pid_; }
  const std::string& log() const { return log_; }
  std::string output() const;  // the log so far
  void kill(int sig);          // SIGKILL also waits for the end
  // The wait status (as from waitpid), or -1 while still running after `timeout`.
  int wait_exit(std::chrono::milliseconds timeout);

 private:
  pid_t pid_ = -1;
  int status_ = -1;
  std::string log_;
};

// Asks `ok` every 50 ms until it holds or `timeout` passes; returns its last answer. For waiting on
// another process (a port file, a registration) without a fixed sleep.
bool poll_until(const std::function<bool()>& ok, std::chrono::milliseconds timeout);

// A TCP port on 127.0.0.1 that was free a moment ago; std::runtime_error when none can be had.
int free_loopback_port();

}  // namespace tf
