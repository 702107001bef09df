#include "proto/tracker_client.h"

#include <chrono>
#include <thread>
#include <utility>

#include "proto/channel.h"
#include "proto/measure_wire.h"
#include "proto/utf8.h"

namespace tf::fleet {

TrackerClient::TrackerClient(std::string address, std::string token, const std::shared_ptr<grpc::Channel>& channel)
    : address_(std::move(address)), token_(std::move(token)), stub_(v1::Tuning::NewStub(channel)) {}

std::unique_ptr<grpc::ClientContext> TrackerClient::context(double deadline_s) const {
  auto ctx = std::make_unique<grpc::ClientContext>();
  add_token(*ctx, token_);
  if (deadline_s > 0) {
    ctx->set_deadline(std::chrono::system_clock::now() +
                      std::chrono::milliseconds(static_cast<int64_t>(deadline_s * 1000)));
  }
  return ctx;
}

CallFailure describe_failure(const std::string& address, const grpc::Status& s) {
  const std::string said = printable(s.error_message());
  switch (s.error_code()) {
    case grpc::StatusCode::UNAVAILABLE:
      return {CallFailure::kUnreachable,
              "cannot reach the tracker at " + address + ": " + said + " (is it running? scripts/fleet.sh start)"};
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return {CallFailure::kUnreachable, "the tracker at " + address + " did not answer in time"};
    case grpc::StatusCode::INVALID_ARGUMENT:
    case grpc::StatusCode::NOT_FOUND:
    case grpc::StatusCode::FAILED_PRECONDITION: return {CallFailure::kBadRequest, said};
    case grpc::StatusCode::UNAUTHENTICATED:
    case grpc::StatusCode::PERMISSION_DENIED: return {CallFailure::kRefused, "refused: " + said};
    default: return {CallFailure::kTracker, "the tracker failed: " + said};
  }
}

void set_job_settings(v1::JobSpec* spec, const std::string& key, const MeasureArgs& measure, int priority) {
  spec->set_device_key(key);
  spec->set_trials(measure.trials);
  spec->set_tuner(measure.tuner);
  spec->set_priority(priority);
  spec->set_seed(measure.seed);
  spec->mutable_measure()->set_min_repeat_ms(measure.min_ms);
  spec->mutable_measure()->set_repeat(measure.repeat);
  spec->mutable_measure()->set_timeout_s(measure.timeout_s);
  runtime::ColdInputs cold = runtime::ColdInputs::Off;
  runtime::parse_cold_inputs(measure.cold_inputs, &cold);
  spec->mutable_measure()->set_cold_inputs(to_wire(cold));
}

grpc::Status watch_job(TrackerClient& client, int64_t id, const std::function<void(const v1::Job&)>& on_update,
                       const std::function<void(const std::string&)>& on_lost) {
  grpc::Status s;
  for (int attempt = 0;; ++attempt) {
    auto ctx = client.context(0);
    v1::GetJobRequest req;
    req.set_job_id(id);
    auto reader = client.stub().WatchJob(ctx.get(), req);
    v1::Job job;
    while (reader->Read(&job)) {
      attempt = 0;
      on_update(job);
    }
    s = reader->Finish();
    if (s.error_code() != grpc::StatusCode::UNAVAILABLE || attempt >= 60) break;
    if (attempt == 0 && on_lost) on_lost(printable(s.error_message()));
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  return s;
}

}  // namespace tf::fleet
