// The soak's clients: valid jobs submitted and cancelled through the gRPC stubs, the jobs followed
// to their end, and (malformed.cc) requests the tracker must refuse with a clear error. Every
// well-formed request must be answered; what was not is kept for the verdict.
#pragma once

#include <grpcpp/grpcpp.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "bench/soak/processes.h"
#include "bench/soak/report.h"
#include "proto/tunefarm.grpc.pb.h"

namespace tf::soak {

namespace v1 = ::tunefarm::v1;

struct TrackedJob {
  std::string key;
  v1::JobState state = v1::QUEUED;
  bool cancel_requested = false;
  v1::Job last;  // the last snapshot read
};

bool terminal(v1::JobState s);
// "INVALID_ARGUMENT: workloads[0].op: ..."
std::string describe(const grpc::Status& s);

class SoakClient {
 public:
  SoakClient(SoakFleet& fleet, Tally& tally);

  void submit(uint64_t pick);
  void cancel(uint64_t pick);
  // A job cancelled while it still waits in the queue.
  void submit_and_cancel(uint64_t pick);
  void cancel_all_active();
  // Reads every job not known to have ended (`all`: every job, for the final counts: a job seen
  // cancelled may have been resumed by a restarted tracker that never stored the cancel).
  void refresh(bool all);
  const std::map<int64_t, TrackedJob>& jobs() const { return jobs_; }
  std::map<std::string, int64_t> jobs_by_state() const;
  int64_t trials_reported() const;
  int active_jobs() const;

  // malformed.cc
  void malformed(uint64_t pick);
  void garbage_grpc(uint64_t pick);
  void garbage_http(uint64_t pick);

 private:
  // A context with `token`, a deadline, and waiting for the tracker while it restarts.
  std::unique_ptr<grpc::ClientContext> context(const std::string& token, int deadline_s = 30) const;
  // Calls `call` with a fresh context; again when it ends UNAVAILABLE, which a call gets when it
  // went out on the connection to a tracker killed a moment before (gRPC does not resend it).
  grpc::Status with_retry(const std::function<grpc::Status(grpc::ClientContext*)>& call, const std::string& token);
  // Counts a well-formed request's answer: OK or one of `also_fine` answers it; anything else (no
  // answer in time, INTERNAL, UNKNOWN...) is kept as unanswered.
  bool answered(const std::string& what, const grpc::Status& s, std::initializer_list<grpc::StatusCode> also_fine = {});
  // Counts a malformed request's answer: a clear refusal (a status naming what is wrong).
  void refused(const std::string& kind, const grpc::Status& s);
  void track(const v1::Job& job);
  void cancel_one(int64_t id);
  void tracker_still_answers(const std::string& after);
  void malformed_board(uint64_t variant);

  SoakFleet& fleet_;
  Tally& tally_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::Tuning::Stub> stub_;
  std::map<int64_t, TrackedJob> jobs_;
};

// A valid job: one or two small dense workloads on the real boards' key (a few trials, quick
// kernels) or the synthetic boards' key (more trials; no code runs there).
v1::JobSpec valid_job(const FleetOptions& fleet, uint64_t pick);

}  // namespace tf::soak
