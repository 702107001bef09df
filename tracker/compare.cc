#include "tracker/compare.h"

#include <atomic>

#include "compiler/compiler.h"
#include "compiler/ops/operator.h"
#include "proto/measure_wire.h"
#include "tracker/fleet_measurer.h"
#include "tracker/request_checks.h"
#include "tuner/interleave.h"
#include "tuner/tune_job.h"

namespace tf::tracker {
namespace {

// Dispatcher queues are per job; comparisons take ids below zero, apart from the db's jobs.
std::atomic<int64_t> next_compare_id{-1};
// Ahead of tuning jobs on the key: a CI run waits for its answer, a tuning job hardly notices.
constexpr int kComparePriority = 100;

}  // namespace

grpc::Status compare_kernels(Dispatcher& dispatcher, const v1::CompareRequest& req, bool needs_sandbox,
                             v1::CompareResponse* out, const std::function<bool()>& cancelled) {
  if (auto s = check_compare_request(req); !s.ok()) return s;
  const ops::Workload workload{req.workload().op(), {req.workload().shape().begin(), req.workload().shape().end()}};
  const runtime::MeasureOptions measure = fleet::from_wire(req.measure());
  const std::string target = dispatcher.target_of_key(req.device_key());
  if (target.empty()) {
    return grpc::Status(grpc::StatusCode::UNAVAILABLE, "no board with key " + req.device_key() + " is connected");
  }

  const int64_t id = next_compare_id--;
  FleetMeasurer boards(dispatcher, id, kComparePriority, req.device_key(), workload);
  boards.carry_foreign_libraries(needs_sandbox);
  try {
    compiler::Task task(workload, codegen::parse_target(target));
    boards.setup(tuner::make_workload_setup(task, 1));
  } catch (const std::exception& e) {
    return grpc::Status(grpc::StatusCode::INTERNAL, "the reference output of " + workload.str() + ": " + e.what());
  }
  std::vector<tuner::KernelToCompare> kernels;
  for (const auto& k : req.kernels()) kernels.push_back({{k.library().begin(), k.library().end()}, k.entry_symbol()});
  const tuner::Interleaved run = tuner::measure_interleaved(
      boards, kernels, req.rounds(), measure, [&](const std::string& device) { boards.bind_to(device); }, cancelled);
  if (!run.aborted.empty()) {
    if (cancelled()) {
      dispatcher.cancel_job(id);
      return grpc::Status(grpc::StatusCode::CANCELLED, "the client went away");
    }
    return grpc::Status(grpc::StatusCode::UNAVAILABLE, run.aborted);
  }
  out->set_target(target);
  out->set_device(run.device);
  for (int k = 0; k < req.kernels_size(); ++k) {
    const tuner::KernelTimings& t = run.kernels[static_cast<size_t>(k)];
    auto* r = out->add_results();
    r->set_name(req.kernels(k).name());
    r->set_status(fleet::to_wire(t.status));
    r->set_error(t.error);
    for (double c : t.costs) r->add_costs(c);
  }
  return grpc::Status::OK;
}

}  // namespace tf::tracker
