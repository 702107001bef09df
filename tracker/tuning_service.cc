#include "tracker/tuning_service.h"

#include "compiler/ops/operator.h"
#include "compiler/ops/shape_json.h"
#include "db/database.h"
#include "proto/json_convert.h"
#include "proto/utf8.h"
#include "runtime/measure.h"
#include "tracker/compare.h"
#include "tuner/legacy_host_target.h"

namespace tf::tracker {

using fleet::Role;

namespace {

// A db locked by another process beyond the busy timeout, full or unwritable fails the one call
// that needed it, with the db's reason; the tracker and every other call go on.
template <typename F>
grpc::Status guarded(const char* call, F&& body) {
  try {
    return body();
  } catch (const db::DbError& e) {
    return grpc::Status(grpc::StatusCode::UNAVAILABLE, std::string(call) + ": " + e.what());
  } catch (const std::exception& e) {
    return grpc::Status(grpc::StatusCode::INTERNAL, std::string(call) + ": " + e.what());
  }
}

}  // namespace

TuningService::TuningService(JobManager& jobs, Dispatcher& dispatcher, const Authenticator& auth,
                             const std::string& db_path)
    : jobs_(jobs), dispatcher_(dispatcher), auth_(auth), db_(db_path) {
  tuner::alias_legacy_host_target(db_);
}

grpc::Status TuningService::reader(grpc::ServerContext* ctx, const char* call, Principal* who) {
  return auth_.check(*ctx, {Role::Client, Role::Admin}, call, who);
}

grpc::Status TuningService::SubmitJob(grpc::ServerContext* ctx, const v1::SubmitJobRequest* req, v1::Job* out) {
  Principal who;
  if (auto s = auth_.check(*ctx, {Role::Client, Role::Admin}, "SubmitJob", &who); !s.ok()) return s;
  v1::JobSpec spec;
  if (req->has_spec()) {
    spec = req->spec();
  } else if (req->spec_source_case() == v1::SubmitJobRequest::kSpecJson) {
    try {
      spec = fleet::job_spec_from_text(req->spec_json(), ops::shape_from_json);
    } catch (const fleet::SpecError& e) {
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, e.what());
    }
  } else {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "spec: missing (a JobSpec or a job file's JSON)");
  }
  return guarded("SubmitJob", [&] { return jobs_.submit(spec, who, out); });
}

grpc::Status TuningService::GetJob(grpc::ServerContext* ctx, const v1::GetJobRequest* req, v1::Job* out) {
  Principal who;
  if (auto s = reader(ctx, "GetJob", &who); !s.ok()) return s;
  return guarded("GetJob", [&] { return jobs_.get(req->job_id(), out); });
}

grpc::Status TuningService::WatchJob(grpc::ServerContext* ctx, const v1::GetJobRequest* req,
                                     grpc::ServerWriter<v1::Job>* writer) {
  Principal who;
  if (auto s = reader(ctx, "WatchJob", &who); !s.ok()) return s;
  return guarded("WatchJob", [&] {
    v1::Job job;
    if (auto s = jobs_.get(req->job_id(), &job); !s.ok()) return s;
    uint64_t version = 0;
    while (!ctx->IsCancelled()) {
      if (!jobs_.wait_for_change(req->job_id(), &version, &job, std::chrono::milliseconds(500))) {
        return grpc::Status(grpc::StatusCode::NOT_FOUND, "no job " + std::to_string(req->job_id()));
      }
      if (!writer->Write(job)) break;  // the client went away
      if (job.state() != v1::QUEUED && job.state() != v1::RUNNING) break;
    }
    return grpc::Status::OK;
  });
}

grpc::Status TuningService::CancelJob(grpc::ServerContext* ctx, const v1::CancelJobRequest* req, v1::Job* out) {
  Principal who;
  if (auto s = reader(ctx, "CancelJob", &who); !s.ok()) return s;
  return guarded("CancelJob", [&] { return jobs_.cancel(req->job_id(), who, out); });
}

grpc::Status TuningService::ListJobs(grpc::ServerContext* ctx, const v1::ListJobsRequest* req,
                                     v1::ListJobsResponse* out) {
  Principal who;
  if (auto s = reader(ctx, "ListJobs", &who); !s.ok()) return s;
  return guarded("ListJobs", [&] {
    for (auto& j : jobs_.list(req->active_only(), req->limit() > 0 ? req->limit() : 100))
      *out->add_jobs() = std::move(j);
    return grpc::Status::OK;
  });
}

grpc::Status TuningService::ListDevices(grpc::ServerContext* ctx, const v1::ListDevicesRequest* req,
                                        v1::ListDevicesResponse* out) {
  Principal who;
  if (auto s = reader(ctx, "ListDevices", &who); !s.ok()) return s;
  for (auto& d : dispatcher_.devices(req->device_key())) *out->add_devices() = std::move(d);
  return grpc::Status::OK;
}

grpc::Status TuningService::GetBest(grpc::ServerContext* ctx, const v1::GetBestRequest* req, v1::GetBestResponse* out) {
  Principal who;
  if (auto s = reader(ctx, "GetBest", &who); !s.ok()) return s;
  return guarded("GetBest", [&] { return best_of(req, out); });
}

grpc::Status TuningService::best_of(const v1::GetBestRequest* req, v1::GetBestResponse* out) {
  const auto& w = req->workload();
  std::vector<int64_t> shape(w.shape().begin(), w.shape().end());
  try {
    ops::check_workload(ops::Workload{w.op(), shape});
  } catch (const std::exception& e) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, std::string("workload: ") + e.what());
  }
  if (req->device_key().empty()) return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "key: missing");
  db::Database::Timing timing;
  if (!req->timing().empty()) {
    runtime::ColdInputs parsed;
    if (!runtime::parse_timing(req->timing(), &parsed)) {
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                          "timing '" + fleet::printable(req->timing()) + "': not warm, cold-weights or cold-all");
    }
    timing = parsed;
  }
  // Boards of a key share one target; any target the key was measured on counts.
  std::lock_guard<std::mutex> lock(db_mu_);
  std::optional<db::Measurement> best;
  bool emulated = false;
  for (const auto& d : db_.devices()) {
    if (d.device_key != req->device_key()) continue;
    emulated = emulated || d.info.value("emulated", false);
    auto m = db_.best(w.op(), shape, d.target, req->device_key(), timing);
    if (m && (!best || m->mean_s() < best->mean_s())) best = m;
  }
  if (!best) return grpc::Status::OK;  // found = false
  const double flops = static_cast<double>(ops::find_operator(w.op()).flops(shape));
  out->set_found(true);
  out->set_config_json(best->config.dump());
  out->set_gflops(flops / best->mean_s() * 1e-9);
  for (double c : best->costs) out->add_costs(c);
  out->set_target(best->target);
  out->set_device(best->device);
  out->set_emulated(emulated);
  out->set_timing(runtime::timing_name(best->timing));
  if (best->job_id) out->set_job_id(*best->job_id);
  return grpc::Status::OK;
}

grpc::Status TuningService::Compare(grpc::ServerContext* ctx, const v1::CompareRequest* req, v1::CompareResponse* out) {
  Principal who;
  // The boards load libraries the caller supplies, not ones the tracker built: a client may make
  // only sandboxed boards do so (docs/threat-model.md); an admin vouches for what it sends.
  if (auto s = auth_.check(*ctx, {Role::Client, Role::Admin}, "Compare", &who); !s.ok()) return s;
  if (who.role != Role::Admin) {
    const std::optional<v1::BoardInfo> board = dispatcher_.board_of_key(req->device_key());
    if (board && !board->sandboxed()) {
      return grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                          "Compare: the boards of key '" + req->device_key() +
                              "' run kernels without a sandbox (--no-sandbox); only an admin may send them libraries");
    }
  }
  return compare_kernels(dispatcher_, *req, who.role != Role::Admin, out, [ctx] { return ctx->IsCancelled(); });
}

}  // namespace tf::tracker
