// Real processes for the fleet tests: a tracker and boards started from the built binaries on
// 127.0.0.1, a db file per test, and a client stub. Processes are killed when the harness goes.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include "proto/channel.h"
#include "proto/tunefarm.grpc.pb.h"
#include "support/files.h"
#include "support/subprocess.h"

namespace tf::fleet_test {

namespace v1 = ::tunefarm::v1;
using Clock = std::chrono::steady_clock;

inline std::string read_all(const std::string& path) { return try_read_file(path).value_or(""); }

using Process = Subprocess;

inline int free_port() { return free_loopback_port(); }

// The token of a token file's line ("<token> <role> [name]").
inline std::string token_of(const std::string& line) { return line.substr(0, line.find(' ')); }

inline bool eventually(const std::function<bool()>& ok, std::chrono::milliseconds timeout = std::chrono::seconds(60)) {
  return poll_until(ok, timeout);
}

// The board daemon and measure worker cross-built for 64-bit ARM (scripts/build.sh --arch aarch64,
// which the README's test command runs), and the qemu-user command that runs them on this host.
inline std::string aarch64_board() {
  return std::string(TF_SOURCE_DIR) + "/build-aarch64/rpc_server/tunefarm-rpc-server";
}
inline std::string aarch64_worker() {
  return std::string(TF_SOURCE_DIR) + "/build-aarch64/runtime/tunefarm-measure-worker";
}
inline std::vector<std::string> aarch64_emulator() { return {"/usr/bin/qemu-aarch64-static"}; }
inline std::string aarch64_missing() {
  for (const std::string& f : {aarch64_board(), aarch64_worker(), aarch64_emulator().front()}) {
    if (::access(f.c_str(), X_OK) != 0)
      return f + " is missing: scripts/build.sh --arch aarch64 installs and builds it";
  }
  return "";
}

// One tracker, any number of boards, in a scratch directory.
class Fleet {
 public:
  explicit Fleet(const std::string& name)
      : dir_("/tmp/tf-fleet-test-" + name + "-" + std::to_string(::getpid())), port_(free_port()) {
    std::system(("rm -rf " + dir_ + " && mkdir -p " + dir_).c_str());
  }
  ~Fleet() {
    builders_.clear();
    boards_.clear();
    tracker_.reset();
    if (!::testing::Test::HasFailure()) std::system(("rm -rf " + dir_).c_str());
  }

  const std::string& dir() const { return dir_; }
  // The tracker's --db: a file in the scratch dir, or what use_db said (a PostgreSQL URL that
  // several fleets share).
  std::string db() const { return db_.empty() ? dir_ + "/tunefarm.db" : db_; }
  void use_db(const std::string& location) { db_ = location; }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }

  // Starts the tracker and waits until it serves.
  void start_tracker(const std::vector<std::string>& extra = {}) {
    const std::string port_file = dir_ + "/port";
    std::remove(port_file.c_str());
    std::vector<std::string> argv = {TF_TRACKER,    "--listen", address(),         "--db", db(),
                                     "--port-file", port_file,  "--build-threads", "1",    "--heartbeat-timeout-ms",
                                     "3000"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    tracker_ = std::make_unique<Process>(argv, dir_ + "/tracker-" + std::to_string(tracker_starts_++) + ".log");
    ASSERT_TRUE(eventually(
        [&] { return std::ifstream(port_file).good() || tracker_->wait_exit(std::chrono::milliseconds(0)) != -1; },
        std::chrono::seconds(30)))
        << tracker_->output();
    ASSERT_TRUE(std::ifstream(port_file).good()) << "the tracker did not start:\n" << tracker_->output();
  }
  Process& tracker() { return *tracker_; }
  void kill_tracker() { tracker_->kill(SIGKILL); }

  // Starts a board of `key`, pinned to CPU (index mod CPUs); waits for its registration unless told not to.
  Process& start_board(const std::string& key, const std::vector<std::string>& extra = {}, bool wait = true) {
    return start_board_from({TF_RPC_SERVER}, key, extra, wait);
  }
  // An AArch64 board, emulated by qemu-user, as scripts/fleet.sh start --arch aarch64 starts one.
  Process& start_aarch64_board(const std::string& key, const std::vector<std::string>& extra = {}, bool wait = true) {
    std::vector<std::string> command = aarch64_emulator();
    command.push_back(aarch64_board());
    std::string launcher;
    for (const auto& w : aarch64_emulator()) launcher += (launcher.empty() ? "" : " ") + w;
    // qemu-user cannot filter system calls: an emulated board runs kernels unconfined.
    std::vector<std::string> options = {"--worker-launcher", launcher, "--no-sandbox"};
    options.insert(options.end(), extra.begin(), extra.end());
    return start_board_from(command, key, options, wait);
  }
  Process& start_board_from(const std::vector<std::string>& command, const std::string& key,
                            const std::vector<std::string>& extra, bool wait) {
    const int index = static_cast<int>(boards_.size());
    const int cpu = index % static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    std::vector<std::string> argv = command;
    for (const std::string& a :
         {std::string("--tracker"), address(), std::string("--key"), key, std::string("--cpus"), std::to_string(cpu),
          std::string("--threads"), std::string("1"), std::string("--max-backoff-ms"), std::string("500")}) {
      argv.push_back(a);
    }
    argv.insert(argv.end(), extra.begin(), extra.end());
    boards_.push_back(std::make_unique<Process>(argv, dir_ + "/board-" + std::to_string(index) + ".log"));
    Process& b = *boards_.back();
    if (wait) {
      EXPECT_TRUE(
          eventually([&] { return b.output().find("registered with") != std::string::npos; }, std::chrono::seconds(30)))
          << b.output() << "\ntracker:\n"
          << tracker_->output();
    }
    return b;
  }
  Process& board(size_t i) { return *boards_.at(i); }

  // Starts a builder (tunefarm-builder) building one candidate at a time; waits for its registration
  // unless told not to.
  Process& start_builder(const std::vector<std::string>& extra = {}, bool wait = true) {
    const int index = static_cast<int>(builders_.size());
    std::vector<std::string> argv = {TF_BUILDER, "--tracker", address(), "--jobs", "1", "--max-backoff-ms", "500"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    builders_.push_back(std::make_unique<Process>(argv, dir_ + "/builder-" + std::to_string(index) + ".log"));
    Process& b = *builders_.back();
    if (wait) {
      EXPECT_TRUE(
          eventually([&] { return b.output().find("registered as") != std::string::npos; }, std::chrono::seconds(30)))
          << b.output() << "\ntracker:\n"
          << tracker_->output();
    }
    return b;
  }
  Process& builder(size_t i) { return *builders_.at(i); }

  std::unique_ptr<v1::Tuning::Stub> client(const std::string& token = "", const std::string& tls_ca = "",
                                           const std::string& host = "127.0.0.1") const {
    return v1::Tuning::NewStub(fleet::open_channel(host + ":" + std::to_string(port_), tls_ca));
  }

 private:
  std::string dir_;
  int port_;
  std::string db_;
  int tracker_starts_ = 0;
  std::unique_ptr<Process> tracker_;
  std::vector<std::unique_ptr<Process>> boards_;
  std::vector<std::unique_ptr<Process>> builders_;
};

inline std::unique_ptr<grpc::ClientContext> context(const std::string& token = "", int deadline_s = 60) {
  auto ctx = std::make_unique<grpc::ClientContext>();
  fleet::add_token(*ctx, token);
  ctx->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(deadline_s));
  // A connection to a tracker killed a moment ago may still be pooled: wait for a fresh one.
  ctx->set_wait_for_ready(true);
  return ctx;
}

inline v1::JobSpec dense_job(const std::string& key, std::vector<int64_t> shape, int64_t trials,
                             const std::string& tuner = "random") {
  v1::JobSpec spec;
  auto* w = spec.add_workloads();
  w->set_op("dense");
  for (int64_t d : shape) w->add_shape(d);
  spec.set_device_key(key);
  spec.set_trials(trials);
  spec.set_tuner(tuner);
  spec.set_batch(8);
  spec.mutable_measure()->set_min_repeat_ms(2);
  spec.mutable_measure()->set_repeat(2);
  return spec;
}

// A self-signed certificate for localhost and 127.0.0.1 and its key, written into `dir`.
inline void make_throwaway_certificate(const std::string& dir, std::string* cert, std::string* key) {
  *cert = dir + "/cert.pem";
  *key = dir + "/key.pem";
  const std::string cmd = "openssl req -x509 -newkey rsa:2048 -nodes -keyout " + *key + " -out " + *cert +
                          " -days 1 -subj /CN=localhost -addext subjectAltName=DNS:localhost,IP:127.0.0.1 2>/dev/null";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
}

// Submits a job; its id (0, with a test failure, when the tracker refuses it).
inline int64_t submit(v1::Tuning::Stub& stub, const v1::JobSpec& spec, const std::string& token = "") {
  v1::SubmitJobRequest req;
  *req.mutable_spec() = spec;
  v1::Job job;
  auto ctx = context(token);
  grpc::Status s = stub.SubmitJob(ctx.get(), req, &job);
  EXPECT_TRUE(s.ok()) << s.error_message();
  return job.id();
}

// The trials its first workload has done (0 when the tracker does not answer).
inline int64_t trials_done(v1::Tuning::Stub& stub, int64_t id) {
  v1::GetJobRequest req;
  req.set_job_id(id);
  v1::Job job;
  auto ctx = context();
  if (!stub.GetJob(ctx.get(), req, &job).ok() || job.workloads_size() == 0) return 0;
  return job.workloads(0).trials_done();
}

// Watches a job until it ends; returns its last state. A stream broken by a tracker restart is
// opened again, as `tunefarm status --follow` does.
inline v1::Job follow(v1::Tuning::Stub& stub, int64_t id, const std::string& token = "", int deadline_s = 300) {
  v1::Job job;
  grpc::Status s;
  for (int attempt = 0; attempt < 20; ++attempt) {
    auto ctx = context(token, deadline_s);
    v1::GetJobRequest req;
    req.set_job_id(id);
    auto reader = stub.WatchJob(ctx.get(), req);
    while (reader->Read(&job)) {
    }
    s = reader->Finish();
    if (s.ok() || s.error_code() != grpc::StatusCode::UNAVAILABLE) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  EXPECT_TRUE(s.ok()) << "watching job " << id << ": " << s.error_message();
  return job;
}

}  // namespace tf::fleet_test
