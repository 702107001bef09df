// The soak's fleet as real processes: a tracker on a SQLite file (restarted on the same file and
// port after a kill -9), real boards that time LLVM-built kernels, and one process of synthetic
// boards (--load-test-boards). Everything is started, signalled and reaped from one thread: a child
// dies with the thread that forked it (support/subprocess.h).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "support/subprocess.h"

namespace tf::soak {

using Clock = std::chrono::steady_clock;

// One reading of a process's resident memory and open file descriptors.
struct Sample {
  double t_s = 0;  // since the soak began
  int64_t rss_kb = 0;
  int fds = 0;
};
// VmRSS and the count of /proc/PID/fd; false when the process is gone.
bool read_sample(pid_t pid, double t_s, Sample* out);

// The samples of one process from its start to its end: a restarted process is a new lifetime.
struct Lifetime {
  std::string name;  // "tracker", "board-0", "synthetic"
  int index = 0;     // the how-many-th start of that name
  pid_t pid = 0;
  double start_s = 0, end_s = -1;
  std::string ended;  // "kill -9", "SIGTERM: exit 0", "crashed: ..."; empty while it runs
  std::vector<Sample> samples;
};

// Something that went wrong with a process that we did not cause.
struct ProcessFault {
  std::string who, what, log_tail;
};

// A program of the fleet that can be stopped and started again.
class Member {
 public:
  Member(std::string name, std::vector<std::string> argv, std::string log_prefix);
  const std::string& name() const { return name_; }
  bool up() const { return process_ != nullptr && !stopping_; }
  bool stopping() const { return stopping_; }
  pid_t pid() const { return process_ ? process_->pid() : 0; }
  std::string output() const { return process_ ? process_->output() : ""; }

  void start(double now_s);
  void kill9(double now_s);
  // SIGTERM; the exit is collected by poll() (a board drains first).
  void terminate();
  // Reaps an exit: a process we did not signal that exited is a crash; one told SIGTERM must exit 0
  // within `term_limit_s`, else it is killed and reported.
  void poll(double now_s, double term_limit_s, std::vector<ProcessFault>* faults);
  void sample(double now_s);
  // SIGTERM and wait: a program told to stop must exit 0.
  void stop_for_good(double now_s, std::vector<ProcessFault>* faults);
  const std::vector<Lifetime>& lifetimes() const { return lifetimes_; }
  // Not running, since when (-1: running, or never started).
  double down_since_s() const { return process_ ? -1 : down_since_s_; }

 private:
  void end_lifetime(double now_s, const std::string& how);

  std::string name_, log_prefix_;
  std::vector<std::string> argv_;
  std::unique_ptr<Subprocess> process_;
  bool stopping_ = false;
  double term_sent_s_ = 0;
  double down_since_s_ = -1;
  std::vector<Lifetime> lifetimes_;
};

struct FleetOptions {
  std::string dir;  // scratch: db, token files, logs
  int real_boards = 2;
  int synthetic_boards = 4;
  std::string real_key = "soak-real", synthetic_key = "soak-synth";
};

class SoakFleet {
 public:
  explicit SoakFleet(FleetOptions opts);
  ~SoakFleet();

  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  int grpc_port() const { return port_; }
  int http_port() const { return http_port_; }
  std::string db_path() const { return opts_.dir + "/soak.db"; }
  const FleetOptions& options() const { return opts_; }
  const std::string& client_token() const { return client_token_; }
  const std::string& other_client_token() const { return other_token_; }
  const std::string& board_token() const { return board_token_; }

  // Starts the tracker and waits until it serves (throws with its log when it does not).
  void start_tracker(double now_s);
  void kill9_tracker(double now_s);
  // Boards: each waits for its registration before the soak begins.
  void start_boards(double now_s);
  Member& tracker() { return *tracker_; }
  std::vector<std::unique_ptr<Member>>& real_boards() { return real_; }
  Member& synthetic() { return *synthetic_; }
  std::vector<Member*> members();

  // Reaps exits; starts again a crashed tracker at once (so the soak goes on and the crash is
  // reported) and a board that has been down `board_restart_s`.
  void poll(double now_s, double board_restart_s, std::vector<ProcessFault>* faults);
  void sample(double now_s);
  void stop(double now_s, std::vector<ProcessFault>* faults);

 private:
  std::string write_tokens();

  FleetOptions opts_;
  int port_, http_port_;
  std::string client_token_, other_token_, board_token_;
  std::unique_ptr<Member> tracker_, synthetic_;
  std::vector<std::unique_ptr<Member>> real_;
};

}  // namespace tf::soak
