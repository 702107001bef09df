// The CLI's side of the tracker: a client from --tracker, --token-file and --tls-ca, and failed
// calls turned into messages and exit codes (2 for what the user can fix in the request, 1 for
// everything else).
#pragma once

#include <string>

#include "proto/tracker_client.h"
#include "support/args.h"

namespace tf::cli {

namespace v1 = ::tunefarm::v1;
using fleet::set_job_settings;

struct TrackerArgs {
  std::string address = "127.0.0.1:9190";
  std::string token_file, tls_ca;
  CLI::Option* address_option = nullptr;
};

// --tracker, --token-file, --tls-ca.
void add_tracker_options(CLI::App& app, TrackerArgs& out);

class TrackerClient : public fleet::TrackerClient {
 public:
  // UsageError naming the option when the token file or the CA cannot be read.
  explicit TrackerClient(const TrackerArgs& args);
  // Prints "tunefarm CMD: <what the tracker said>" and returns the exit code for it.
  int fail(const std::string& cmd, const grpc::Status& s) const;
};

// fleet::watch_job, saying on stderr as `who` (unless empty) when the tracker is lost for a while.
grpc::Status watch_job(TrackerClient& client, int64_t id, const std::function<void(const v1::Job&)>& on_update,
                       const std::string& who);

}  // namespace tf::cli
