#include "bench/soak/processes.h"

#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "proto/tokens.h"

namespace tf::soak {

namespace {

std::string tail(const std::string& text, size_t bytes = 2000) {
  return text.size() <= bytes ? text : "..." + text.substr(text.size() - bytes);
}

std::string describe_status(int status) {
  if (WIFEXITED(status)) return "exit " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return std::string("signal ") + strsignal(WTERMSIG(status));
  return "status " + std::to_string(status);
}

std::string token_of(const std::string& line) { return line.substr(0, line.find(' ')); }

}  // namespace

bool read_sample(pid_t pid, double t_s, Sample* out) {
  const std::string proc = "/proc/" + std::to_string(pid);
  std::ifstream status(proc + "/status");
  if (!status) return false;
  Sample s;
  s.t_s = t_s;
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) s.rss_kb = std::stoll(line.substr(6));
  }
  DIR* d = ::opendir((proc + "/fd").c_str());
  if (!d) return false;
  while (const dirent* e = ::readdir(d)) {
    if (e->d_name[0] != '.') ++s.fds;
  }
  ::closedir(d);
  // A zombie has no memory left: it is no reading of the living process.
  if (s.rss_kb == 0) return false;
  *out = s;
  return true;
}

Member::Member(std::string name, std::vector<std::string> argv, std::string log_prefix)
    : name_(std::move(name)), log_prefix_(std::move(log_prefix)), argv_(std::move(argv)) {}

void Member::start(double now_s) {
  const int index = static_cast<int>(lifetimes_.size());
  process_ = std::make_unique<Subprocess>(argv_, log_prefix_ + "-" + std::to_string(index) + ".log");
  stopping_ = false;
  Lifetime l;
  l.name = name_;
  l.index = index;
  l.pid = process_->pid();
  l.start_s = now_s;
  lifetimes_.push_back(l);
}

void Member::end_lifetime(double now_s, const std::string& how) {
  if (lifetimes_.empty() || lifetimes_.back().end_s >= 0) return;
  lifetimes_.back().end_s = now_s;
  lifetimes_.back().ended = how;
  down_since_s_ = now_s;
}

void Member::kill9(double now_s) {
  if (!process_) return;
  process_->kill(SIGKILL);
  end_lifetime(now_s, "kill -9");
  process_.reset();
  stopping_ = false;
}

void Member::terminate() {
  if (!process_ || stopping_) return;
  process_->kill(SIGTERM);
  stopping_ = true;
  term_sent_s_ = -1;  // stamped by the next poll, which knows the time
}

void Member::poll(double now_s, double term_limit_s, std::vector<ProcessFault>* faults) {
  if (!process_) return;
  if (stopping_ && term_sent_s_ < 0) term_sent_s_ = now_s;
  const int status = process_->wait_exit(std::chrono::milliseconds(0));
  if (status == -1) {
    if (stopping_ && now_s - term_sent_s_ > term_limit_s) {
      faults->push_back({name_,
                         "did not exit within " + std::to_string(static_cast<int>(term_limit_s)) + " s of SIGTERM",
                         tail(process_->output())});
      kill9(now_s);
    }
    return;
  }
  const std::string how = describe_status(status);
  if (!stopping_) {
    faults->push_back({name_, "exited by itself (" + how + ")", tail(process_->output())});
    end_lifetime(now_s, "crashed: " + how);
  } else {
    if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
      faults->push_back({name_, "told SIGTERM, ended with " + how + " instead of exit 0", tail(process_->output())});
    }
    end_lifetime(now_s, "SIGTERM: " + how);
  }
  process_.reset();
  stopping_ = false;
}

void Member::sample(double now_s) {
  if (!process_ || lifetimes_.empty()) return;
  Sample s;
  if (read_sample(process_->pid(), now_s, &s)) lifetimes_.back().samples.push_back(s);
}

void Member::stop_for_good(double now_s, std::vector<ProcessFault>* faults) {
  if (!process_) return;
  if (!stopping_) process_->kill(SIGTERM);
  const int status = process_->wait_exit(std::chrono::seconds(30));
  if (status == -1) {
    faults->push_back({name_, "did not exit within 30 s of SIGTERM at the end", tail(process_->output())});
    process_->kill(SIGKILL);
  } else if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
    faults->push_back(
        {name_, "told SIGTERM at the end, ended with " + describe_status(status), tail(process_->output())});
  }
  end_lifetime(now_s, "stopped at the end");
  process_.reset();
}

SoakFleet::SoakFleet(FleetOptions opts)
    : opts_(std::move(opts)), port_(free_loopback_port()), http_port_(free_loopback_port()) {
  while (http_port_ == port_) http_port_ = free_loopback_port();
  const std::string tokens = write_tokens();
  const std::string board_file = opts_.dir + "/board.token";
  std::ofstream(board_file) << board_token_ << " board soak-board\n";
  tracker_ = std::make_unique<Member>(
      "tracker",
      std::vector<std::string>{TF_TRACKER, "--listen", address(), "--db", db_path(), "--token-file", tokens, "--http",
                               "127.0.0.1:" + std::to_string(http_port_), "--port-file", opts_.dir + "/port",
                               "--build-threads", "1", "--heartbeat-timeout-ms", "3000", "--item-grace-ms", "5000",
                               // A small build cache reaches its bound early, so a growing RSS after that is a leak.
                               "--build-cache-mb", "32"},
      opts_.dir + "/tracker");
  for (int i = 0; i < opts_.real_boards; ++i) {
    const int cpus = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    real_.push_back(std::make_unique<Member>(
        "board-" + std::to_string(i),
        std::vector<std::string>{TF_RPC_SERVER, "--tracker", address(), "--key", opts_.real_key, "--token-file",
                                 board_file, "--cpus", std::to_string(i % cpus), "--threads", "1", "--max-backoff-ms",
                                 "500"},
        opts_.dir + "/board-" + std::to_string(i)));
  }
  synthetic_ = std::make_unique<Member>(
      "synthetic",
      std::vector<std::string>{TF_RPC_SERVER, "--tracker", address(), "--key", opts_.synthetic_key, "--token-file",
                               board_file, "--max-backoff-ms", "500", "--load-test-boards",
                               std::to_string(opts_.synthetic_boards)},
      opts_.dir + "/synthetic");
}

SoakFleet::~SoakFleet() = default;

std::string SoakFleet::write_tokens() {
  const std::string client = fleet::new_token_line(fleet::Role::Client, "soak-client");
  const std::string other = fleet::new_token_line(fleet::Role::Client, "soak-other");
  const std::string board = fleet::new_token_line(fleet::Role::Board, "soak-board");
  client_token_ = token_of(client);
  other_token_ = token_of(other);
  board_token_ = token_of(board);
  const std::string path = opts_.dir + "/tokens";
  std::ofstream(path) << "# the soak's tokens\n" << client << "\n" << other << "\n" << board << "\n";
  return path;
}

void SoakFleet::start_tracker(double now_s) {
  const std::string port_file = opts_.dir + "/port";
  std::remove(port_file.c_str());
  tracker_->start(now_s);
  const bool served =
      poll_until([&] { return std::ifstream(port_file).good() || !tracker_->up(); }, std::chrono::seconds(60));
  if (!served || !std::ifstream(port_file).good()) {
    throw std::runtime_error("the tracker did not start serving on " + address() + " within 60 s:\n" +
                             tail(tracker_->output()));
  }
}

void SoakFleet::kill9_tracker(double now_s) { tracker_->kill9(now_s); }

void SoakFleet::start_boards(double now_s) {
  for (auto& b : real_) b->start(now_s);
  synthetic_->start(now_s);
  for (auto& b : real_) {
    if (!poll_until([&] { return b->output().find("registered with") != std::string::npos; },
                    std::chrono::seconds(60))) {
      throw std::runtime_error(b->name() + " did not register within 60 s:\n" + tail(b->output()));
    }
  }
}

std::vector<Member*> SoakFleet::members() {
  std::vector<Member*> all = {tracker_.get()};
  for (auto& b : real_) all.push_back(b.get());
  all.push_back(synthetic_.get());
  return all;
}

void SoakFleet::poll(double now_s, double board_restart_s, std::vector<ProcessFault>* faults) {
  // A board drains its items before it exits: a timed kernel may take a few seconds.
  for (Member* m : members()) m->poll(now_s, 60, faults);
  if (!tracker_->up() && !tracker_->stopping()) start_tracker(now_s);
  for (Member* m : members()) {
    if (m != tracker_.get() && m->down_since_s() >= 0 && now_s - m->down_since_s() >= board_restart_s) m->start(now_s);
  }
}

void SoakFleet::sample(double now_s) {
  for (Member* m : members()) m->sample(now_s);
}

void SoakFleet::stop(double now_s, std::vector<ProcessFault>* faults) {
  for (auto& b : real_) b->stop_for_good(now_s, faults);
  synthetic_->stop_for_good(now_s, faults);
  tracker_->stop_for_good(now_s, faults);
}

}  // namespace tf::soak
