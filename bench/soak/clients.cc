#include "bench/soak/clients.h"

#include <algorithm>
#include <thread>

#include "proto/channel.h"
#include "proto/json_convert.h"

namespace tf::soak {

namespace {

// Small dense shapes: a real board times each candidate in milliseconds.
const std::vector<std::vector<int64_t>> kRealShapes = {{16, 16, 16}, {32, 32, 32}, {24, 32, 16}, {32, 16, 48}};
const std::vector<std::vector<int64_t>> kSyntheticShapes = {{64, 64, 64}, {48, 32, 64}, {32, 64, 16}, {64, 32, 32}};
// The tracker keeps every job it is given; more than this many at once only queues them longer.
constexpr int kMostActiveJobs = 8;

std::string code_name(grpc::StatusCode c) {
  switch (c) {
    case grpc::StatusCode::OK: return "OK";
    case grpc::StatusCode::CANCELLED: return "CANCELLED";
    case grpc::StatusCode::UNKNOWN: return "UNKNOWN";
    case grpc::StatusCode::INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case grpc::StatusCode::DEADLINE_EXCEEDED: return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::NOT_FOUND: return "NOT_FOUND";
    case grpc::StatusCode::PERMISSION_DENIED: return "PERMISSION_DENIED";
    case grpc::StatusCode::RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::FAILED_PRECONDITION: return "FAILED_PRECONDITION";
    case grpc::StatusCode::OUT_OF_RANGE: return "OUT_OF_RANGE";
    case grpc::StatusCode::UNIMPLEMENTED: return "UNIMPLEMENTED";
    case grpc::StatusCode::INTERNAL: return "INTERNAL";
    case grpc::StatusCode::UNAVAILABLE: return "UNAVAILABLE";
    case grpc::StatusCode::UNAUTHENTICATED: return "UNAUTHENTICATED";
    default: return "code " + std::to_string(static_cast<int>(c));
  }
}

}  // namespace

std::string describe(const grpc::Status& s) { return code_name(s.error_code()) + ": " + s.error_message(); }

bool terminal(v1::JobState s) { return s == v1::DONE || s == v1::FAILED || s == v1::CANCELLED; }

v1::JobSpec valid_job(const FleetOptions& fleet, uint64_t pick) {
  const bool real = pick % 2 == 0;
  const auto& shapes = real ? kRealShapes : kSyntheticShapes;
  v1::JobSpec spec;
  const int workloads = 1 + static_cast<int>((pick >> 1) % 2);
  for (int i = 0; i < workloads; ++i) {
    auto* w = spec.add_workloads();
    w->set_op("dense");
    for (int64_t d : shapes[((pick >> 2) + static_cast<uint64_t>(i)) % shapes.size()]) w->add_shape(d);
  }
  spec.set_device_key(real ? fleet.real_key : fleet.synthetic_key);
  spec.set_trials(real ? 3 + static_cast<int64_t>((pick >> 8) % 6) : 16 + static_cast<int64_t>((pick >> 8) % 33));
  spec.set_tuner((pick >> 16) % 4 == 0 ? "ga" : "random");
  spec.set_seed(1 + (pick >> 20) % 1000000);
  spec.set_batch(4);
  spec.mutable_measure()->set_repeat(2);
  spec.mutable_measure()->set_min_repeat_ms(1);
  spec.mutable_measure()->set_timeout_s(5);
  return spec;
}

SoakClient::SoakClient(SoakFleet& fleet, Tally& tally) : fleet_(fleet), tally_(tally) {
  // Dial again quickly after the tracker restarts: gRPC's default backoff grows to two minutes.
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  args.SetMaxReceiveMessageSize(fleet::kMaxMessageBytes);
  channel_ = grpc::CreateCustomChannel(fleet_.address(), grpc::InsecureChannelCredentials(), args);
  stub_ = v1::Tuning::NewStub(channel_);
}

std::unique_ptr<grpc::ClientContext> SoakClient::context(const std::string& token, int deadline_s) const {
  auto ctx = std::make_unique<grpc::ClientContext>();
  fleet::add_token(*ctx, token);
  ctx->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(deadline_s));
  ctx->set_wait_for_ready(true);
  return ctx;
}

grpc::Status SoakClient::with_retry(const std::function<grpc::Status(grpc::ClientContext*)>& call,
                                    const std::string& token) {
  grpc::Status s;
  for (int attempt = 0; attempt < 3; ++attempt) {
    auto ctx = context(token);
    s = call(ctx.get());
    if (s.error_code() != grpc::StatusCode::UNAVAILABLE) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  return s;
}

bool SoakClient::answered(const std::string& what, const grpc::Status& s,
                          std::initializer_list<grpc::StatusCode> also_fine) {
  ++tally_.well_formed;
  bool fine = s.ok();
  for (auto c : also_fine) fine = fine || s.error_code() == c;
  if (fine) {
    ++tally_.well_formed_answered;
  } else {
    tally_.unanswered.push_back(what + ": " + describe(s));
  }
  return s.ok();
}

void SoakClient::track(const v1::Job& job) {
  TrackedJob& t = jobs_[job.id()];
  if (t.key.empty()) t.key = job.spec().device_key();
  t.state = job.state();
  t.last = job;
}

void SoakClient::submit(uint64_t pick) {
  if (active_jobs() >= kMostActiveJobs) {
    ++tally_.faults["submit skipped (enough jobs running)"];
    return;
  }
  v1::SubmitJobRequest req;
  *req.mutable_spec() = valid_job(fleet_.options(), pick);
  v1::Job job;
  const grpc::Status s =
      with_retry([&](grpc::ClientContext* c) { return stub_->SubmitJob(c, req, &job); }, fleet_.client_token());
  // A limit on a client's jobs is a clear answer, not a failure to answer.
  if (s.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED) ++tally_.refused_by_limit;
  if (answered("SubmitJob", s, {grpc::StatusCode::RESOURCE_EXHAUSTED})) {
    ++tally_.submitted;
    track(job);
  }
}

void SoakClient::cancel(uint64_t pick) {
  std::vector<int64_t> active;
  for (const auto& [id, j] : jobs_) {
    if (!terminal(j.state) && !j.cancel_requested) active.push_back(id);
  }
  if (active.empty()) return;
  // Mostly one of the newest jobs, so the cancel finds it still running.
  const size_t newest = std::min<size_t>(active.size(), 3);
  cancel_one(active[active.size() - 1 - pick % newest]);
}

void SoakClient::submit_and_cancel(uint64_t pick) {
  const int64_t before = jobs_.empty() ? 0 : jobs_.rbegin()->first;
  submit(pick);
  if (!jobs_.empty() && jobs_.rbegin()->first != before) cancel_one(jobs_.rbegin()->first);
}

void SoakClient::cancel_one(int64_t id) {
  v1::CancelJobRequest req;
  req.set_job_id(id);
  v1::Job job;
  ++tally_.cancel_requests;
  jobs_[id].cancel_requested = true;
  const grpc::Status s =
      with_retry([&](grpc::ClientContext* c) { return stub_->CancelJob(c, req, &job); }, fleet_.client_token());
  // A job that ended a moment ago is FAILED_PRECONDITION: "job N is done already".
  if (answered("CancelJob " + std::to_string(id), s, {grpc::StatusCode::FAILED_PRECONDITION}) && job.id() == id)
    track(job);
}

void SoakClient::cancel_all_active() {
  std::vector<int64_t> active;
  for (const auto& [id, j] : jobs_) {
    if (!terminal(j.state)) active.push_back(id);
  }
  for (int64_t id : active) cancel_one(id);
}

void SoakClient::refresh(bool all) {
  for (auto& [id, j] : jobs_) {
    if (terminal(j.state) && !all) continue;
    v1::GetJobRequest req;
    req.set_job_id(id);
    v1::Job job;
    if (answered(
            "GetJob " + std::to_string(id),
            with_retry([&](grpc::ClientContext* c) { return stub_->GetJob(c, req, &job); }, fleet_.client_token()))) {
      track(job);
    }
  }
}

std::map<std::string, int64_t> SoakClient::jobs_by_state() const {
  std::map<std::string, int64_t> out = {{"done", 0}, {"cancelled", 0}, {"failed", 0}, {"queued", 0}, {"running", 0}};
  for (const auto& [id, j] : jobs_) ++out[fleet::job_state_name(j.state)];
  return out;
}

int64_t SoakClient::trials_reported() const {
  int64_t n = 0;
  for (const auto& [id, j] : jobs_) {
    for (const auto& w : j.last.workloads()) n += w.trials_done();
  }
  return n;
}

int SoakClient::active_jobs() const {
  int n = 0;
  for (const auto& [id, j] : jobs_) n += terminal(j.state) ? 0 : 1;
  return n;
}

}  // namespace tf::soak
