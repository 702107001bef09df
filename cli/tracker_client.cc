#include "cli/tracker_client.h"

#include <chrono>
#include <cstdio>
#include <thread>

#include "proto/channel.h"
#include "proto/measure_wire.h"
#include "proto/tokens.h"
#include "proto/utf8.h"

namespace tf::cli {

void add_tracker_options(CLI::App& app, TrackerArgs& out) {
  out.address_option = app.add_option("--tracker", out.address, "the tracker")->type_name("HOST:PORT");
  app.add_option("--token-file", out.token_file, "your token line (or set TUNEFARM_TOKEN)")->type_name("FILE");
  app.add_option("--tls-ca", out.tls_ca, "talk TLS, trusting this CA certificate")->type_name("PEM");
}

TrackerClient::TrackerClient(const TrackerArgs& args) : address_(args.address) {
  try {
    token_ = fleet::caller_token(args.token_file);
  } catch (const std::exception& e) {
    throw UsageError(std::string("--token-file: ") + e.what());
  }
  std::shared_ptr<grpc::Channel> channel;
  try {
    channel = fleet::open_channel(address_, args.tls_ca);
  } catch (const std::exception& e) {
    throw UsageError(std::string("--tls-ca: ") + e.what());
  }
  stub_ = v1::Tuning::NewStub(channel);
}

std::unique_ptr<grpc::ClientContext> TrackerClient::context(double deadline_s) const {
  auto ctx = std::make_unique<grpc::ClientContext>();
  fleet::add_token(*ctx, token_);
  if (deadline_s > 0) {
    ctx->set_deadline(std::chrono::system_clock::now() +
                      std::chrono::milliseconds(static_cast<int64_t>(deadline_s * 1000)));
  }
  return ctx;
}

int TrackerClient::fail(const std::string& cmd, const grpc::Status& s) const {
  switch (s.error_code()) {
    case grpc::StatusCode::UNAVAILABLE:
      std::fprintf(stderr, "%s: cannot reach the tracker at %s: %s (is it running? scripts/fleet.sh start)\n",
                   cmd.c_str(), address_.c_str(), fleet::printable(s.error_message()).c_str());
      return 1;
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      std::fprintf(stderr, "%s: the tracker at %s did not answer in time\n", cmd.c_str(), address_.c_str());
      return 1;
    case grpc::StatusCode::INVALID_ARGUMENT:
    case grpc::StatusCode::NOT_FOUND:
    case grpc::StatusCode::FAILED_PRECONDITION:
      std::fprintf(stderr, "%s: %s\n", cmd.c_str(), fleet::printable(s.error_message()).c_str());
      return 2;
    case grpc::StatusCode::UNAUTHENTICATED:
    case grpc::StatusCode::PERMISSION_DENIED:
      std::fprintf(stderr, "%s: refused: %s\n", cmd.c_str(), fleet::printable(s.error_message()).c_str());
      return 2;
    default:
      std::fprintf(stderr, "%s: the tracker failed: %s\n", cmd.c_str(), fleet::printable(s.error_message()).c_str());
      return 1;
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
  spec->mutable_measure()->set_cold_inputs(fleet::to_wire(cold));
}

grpc::Status watch_job(TrackerClient& client, int64_t id, const std::function<void(const v1::Job&)>& on_update,
                       const std::string& who) {
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
    if (attempt == 0 && !who.empty())
      std::fprintf(stderr, "%s: lost the tracker (%s); waiting for it\n", who.c_str(),
                   fleet::printable(s.error_message()).c_str());
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  return s;
}

}  // namespace tf::cli
