// The CLI's side of the tracker: a channel and stubs from --tracker, --token-file and --tls-ca, and
// gRPC errors turned into messages and exit codes (2 for what the user can fix in the request,
// 1 for everything else).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "proto/tunefarm.grpc.pb.h"
#include "support/args.h"
#include "support/measure_args.h"

namespace tf::cli {

namespace v1 = ::tunefarm::v1;

struct TrackerArgs {
  std::string address = "127.0.0.1:9190";
  std::string token_file, tls_ca;
  CLI::Option* address_option = nullptr;
};

// --tracker, --token-file, --tls-ca.
void add_tracker_options(CLI::App& app, TrackerArgs& out);

class TrackerClient {
 public:
  explicit TrackerClient(const TrackerArgs& args);
  v1::Tuning::Stub& stub() { return *stub_; }
  // A context with the token and a deadline (none when `deadline_s` <= 0).
  std::unique_ptr<grpc::ClientContext> context(double deadline_s = 30) const;
  const std::string& address() const { return address_; }

  // Prints "tunefarm CMD: <what the tracker said>" and returns the exit code for it.
  int fail(const std::string& cmd, const grpc::Status& s) const;

 private:
  std::string address_, token_;
  std::unique_ptr<v1::Tuning::Stub> stub_;
};

// A job's key, trials, tuner, priority, seed and measurement options, as the command line gave them.
void set_job_settings(v1::JobSpec* spec, const std::string& key, const MeasureArgs& measure, int priority);

// Watches job `id` until it ends, handing every snapshot to `on_update`. A tracker that restarts
// resumes the job, and the watch follows it there for up to a minute of absence (saying so on
// stderr as `who`, unless empty). Returns how the watch ended (OK: the job ended).
grpc::Status watch_job(TrackerClient& client, int64_t id, const std::function<void(const v1::Job&)>& on_update,
                       const std::string& who);

}  // namespace tf::cli
