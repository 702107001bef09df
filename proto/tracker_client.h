// A client's side of the tracker's Tuning service: a stub whose calls carry the caller's token, what
// a failed call means in words, and a job watched to its end across tracker restarts. The CLI
// (cli/tracker_client.h) and the Python package (tunefarm.Client) both talk to the tracker through it.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include <grpcpp/channel.h>

#include "proto/tunefarm.grpc.pb.h"
#include "support/measure_args.h"

namespace tf::fleet {

namespace v1 = ::tunefarm::v1;

class TrackerClient {
 public:
  TrackerClient(std::string address, std::string token, const std::shared_ptr<grpc::Channel>& channel);
  v1::Tuning::Stub& stub() { return *stub_; }
  // A context with the token and a deadline (none when `deadline_s` <= 0).
  std::unique_ptr<grpc::ClientContext> context(double deadline_s = 30) const;
  const std::string& address() const { return address_; }

 private:
  std::string address_, token_;
  std::unique_ptr<v1::Tuning::Stub> stub_;
};

// What a failed call means to the caller, in the words the CLI prints after "tunefarm CMD: ".
struct CallFailure {
  enum Kind {
    kUnreachable,  // no tracker at the address, or no answer in time
    kBadRequest,   // the request: a field, an unknown job, a job in the wrong state
    kRefused,      // the token
    kTracker,      // the tracker failed
  } kind;
  std::string message;
};
CallFailure describe_failure(const std::string& address, const grpc::Status& s);

// A job's key, trials, tuner, priority, seed and measurement options.
void set_job_settings(v1::JobSpec* spec, const std::string& key, const MeasureArgs& measure, int priority);

// Watches job `id` until it ends, handing every snapshot to `on_update`. A tracker that restarts
// resumes the job, and the watch follows it there for up to a minute of absence (calling
// `on_lost` with the reason once per absence, when given). Returns how the watch ended (OK: the
// job ended).
grpc::Status watch_job(TrackerClient& client, int64_t id, const std::function<void(const v1::Job&)>& on_update,
                       const std::function<void(const std::string&)>& on_lost = {});

}  // namespace tf::fleet
