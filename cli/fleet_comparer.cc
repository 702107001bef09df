#include "cli/fleet_comparer.h"

#include <chrono>
#include <thread>

#include "proto/measure_wire.h"
#include "proto/utf8.h"
#include "runtime/measure.h"

namespace tf::cli {
namespace {

std::string status_text(const grpc::Status& s) {
  return s.error_message().empty() ? "gRPC code " + std::to_string(s.error_code())
                                   : fleet::printable(s.error_message());
}

v1::Workload to_wire(const ops::Workload& w) {
  v1::Workload out;
  out.set_op(w.op);
  for (int64_t d : w.shape) out.add_shape(d);
  return out;
}

}  // namespace

FleetComparer::FleetComparer(TrackerClient& client, std::string key) : client_(client), key_(std::move(key)) {
  v1::ListDevicesRequest req;
  req.set_device_key(key_);
  v1::ListDevicesResponse devices;
  auto ctx = client_.context();
  grpc::Status s = client_.stub().ListDevices(ctx.get(), req, &devices);
  if (!s.ok()) throw regress::RunError("the tracker at " + client_.address() + ": " + status_text(s));
  if (devices.devices().empty()) {
    throw regress::RunError("no board with key " + key_ + " is connected to the tracker at " + client_.address() +
                            " (tunefarm devices lists the keys)");
  }
  target_ = devices.devices(0).target();
  for (const auto& d : devices.devices()) isolation_by_board_.emplace_back(d.board_id(), d.timing_isolation());
  boards_ = devices.devices_size();
}

std::string FleetComparer::timing_isolation() const {
  for (const auto& [board, isolation] : isolation_by_board_) {
    if (!measured_on_.empty() && board.rfind(measured_on_ + "#", 0) == 0) return isolation;
  }
  return isolation_by_board_.front().second;
}

std::string FleetComparer::where() const {
  return "a board of key " + key_ + " via the tracker at " + client_.address() + " (" + std::to_string(boards_) +
         " connected)";
}

regress::Comparison FleetComparer::compare(const ops::Workload& workload,
                                           const std::vector<regress::KernelBinary>& kernels, int rounds,
                                           const runtime::MeasureOptions& opts) {
  v1::CompareRequest req;
  req.set_device_key(key_);
  *req.mutable_workload() = to_wire(workload);
  for (const auto& k : kernels) {
    auto* kw = req.add_kernels();
    kw->set_name(k.name);
    kw->set_library(std::string(k.library.begin(), k.library.end()));
    kw->set_entry_symbol(k.entry_symbol);
  }
  req.set_rounds(rounds);
  *req.mutable_measure() = fleet::to_wire(opts);
  // Every turn may take up to the timeout, plus the queue in front of it.
  const double deadline_s = 120 + rounds * static_cast<double>(kernels.size()) * (opts.timeout_s + 2);
  auto ctx = client_.context(deadline_s);
  v1::CompareResponse resp;
  grpc::Status s = client_.stub().Compare(ctx.get(), req, &resp);
  if (!s.ok())
    throw regress::RunError("comparing on key " + key_ + " via " + client_.address() + ": " + status_text(s));
  regress::Comparison out;
  out.device = resp.device();
  measured_on_ = resp.device();
  for (const auto& r : resp.results()) {
    regress::ComparedKernel k;
    k.status = fleet::from_wire(r.status());
    k.error = r.error();
    k.costs.assign(r.costs().begin(), r.costs().end());
    out.kernels.push_back(std::move(k));
  }
  if (out.kernels.size() != kernels.size())
    throw regress::RunError("the tracker answered for another number of kernels");
  return out;
}

std::optional<Json> FleetComparer::best(const ops::Workload& w) {
  // Warm records first, as a local regress run reads them (it times kernels warm); then any timing.
  for (const char* timing : {runtime::timing_name(runtime::ColdInputs::Off), ""}) {
    v1::GetBestRequest req;
    *req.mutable_workload() = to_wire(w);
    req.set_device_key(key_);
    req.set_timing(timing);
    v1::GetBestResponse resp;
    auto ctx = client_.context();
    grpc::Status s = client_.stub().GetBest(ctx.get(), req, &resp);
    if (!s.ok())
      throw regress::RunError("the best config of " + w.str() + " from " + client_.address() + ": " + status_text(s));
    if (resp.found()) return parse_json(resp.config_json());
  }
  return std::nullopt;
}

void FleetComparer::tune(const ops::Workload& w, int64_t trials,
                         const std::function<void(const std::string&)>& progress) {
  v1::SubmitJobRequest req;
  auto* spec = req.mutable_spec();
  *spec->add_workloads() = to_wire(w);
  spec->set_device_key(key_);
  spec->set_trials(trials);
  spec->set_tuner("xgb");
  v1::Job job;
  {
    auto ctx = client_.context();
    grpc::Status s = client_.stub().SubmitJob(ctx.get(), req, &job);
    if (!s.ok()) throw regress::RunError("submitting a tuning job for " + w.str() + ": " + status_text(s));
  }
  if (progress)
    progress("tuning " + w.str() + " first: job " + std::to_string(job.id()) + ", " + std::to_string(trials) +
             " trials");
  while (job.state() == v1::QUEUED || job.state() == v1::RUNNING) {
    std::this_thread::sleep_for(std::chrono::seconds(1));
    v1::GetJobRequest get;
    get.set_job_id(job.id());
    auto ctx = client_.context();
    grpc::Status s = client_.stub().GetJob(ctx.get(), get, &job);
    if (!s.ok()) throw regress::RunError("following job " + std::to_string(job.id()) + ": " + status_text(s));
  }
  if (job.state() != v1::DONE) {
    throw regress::RunError("tuning job " + std::to_string(job.id()) + " for " + w.str() + " ended " +
                            v1::JobState_Name(job.state()) + ": " + fleet::printable(job.message()));
  }
}

}  // namespace tf::cli
