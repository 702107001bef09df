#include "tracker/compare.h"

#include <atomic>

#include "compiler/compiler.h"
#include "compiler/ops/operator.h"
#include "proto/measure_wire.h"
#include "tracker/fleet_measurer.h"
#include "tuner/tune_job.h"

namespace tf::tracker {
namespace {

// Dispatcher queues are per job; comparisons take ids below zero, apart from the db's jobs.
std::atomic<int64_t> next_compare_id{-1};
// Ahead of tuning jobs on the key: a CI run waits for its answer, a tuning job hardly notices.
constexpr int kComparePriority = 100;
constexpr int kMaxKernels = 16;

grpc::Status invalid(const std::string& what) { return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, what); }

}  // namespace

grpc::Status compare_kernels(Dispatcher& dispatcher, const v1::CompareRequest& req, v1::CompareResponse* out,
                             const std::function<bool()>& cancelled) {
  if (req.device_key().empty()) return invalid("device_key: missing");
  const ops::Workload workload{req.workload().op(), {req.workload().shape().begin(), req.workload().shape().end()}};
  try {
    ops::check_workload(workload);
  } catch (const std::exception& e) {
    return invalid(std::string("workload: ") + e.what());
  }
  if (req.kernels_size() < 1 || req.kernels_size() > kMaxKernels) {
    return invalid("kernels: " + std::to_string(req.kernels_size()) + " given, 1.." + std::to_string(kMaxKernels) + " allowed");
  }
  for (int k = 0; k < req.kernels_size(); ++k) {
    const auto& kernel = req.kernels(k);
    if (kernel.library().empty()) return invalid("kernels[" + std::to_string(k) + "].library: empty");
    if (kernel.entry_symbol().empty()) return invalid("kernels[" + std::to_string(k) + "].entry_symbol: empty");
  }
  if (req.rounds() < 1 || req.rounds() > 1000) return invalid("rounds: " + std::to_string(req.rounds()) + " (1..1000)");
  const std::string target = dispatcher.target_of_key(req.device_key());
  if (target.empty()) {
    return grpc::Status(grpc::StatusCode::UNAVAILABLE, "no board with key " + req.device_key() + " is connected");
  }

  const int64_t id = next_compare_id--;
  FleetMeasurer boards(dispatcher, id, kComparePriority, req.device_key(), workload.str());
  try {
    compiler::Task task(workload, codegen::parse_target(target));
    boards.setup(tuner::make_workload_setup(task, 1));
  } catch (const std::exception& e) {
    return grpc::Status(grpc::StatusCode::INTERNAL, "the reference output of " + workload.str() + ": " + e.what());
  }
  // One timing per turn; after a kernel's first turn its runs per timing stay fixed, so every later
  // timing of it covers the same work.
  std::vector<runtime::MeasureOptions> opts(static_cast<size_t>(req.kernels_size()), fleet::from_wire(req.measure()));
  for (auto& o : opts) o.repeat = 1;
  out->set_target(target);
  for (const auto& kernel : req.kernels()) {
    auto* r = out->add_results();
    r->set_name(kernel.name());
    r->set_status(v1::MEASURE_OK);
  }
  for (int round = 0; round < req.rounds(); ++round) {
    // Odd rounds run the kernels in reverse order, so neither always goes first.
    for (int turn = 0; turn < req.kernels_size(); ++turn) {
      const int k = round % 2 ? req.kernels_size() - 1 - turn : turn;
      auto* r = out->mutable_results(k);
      if (r->status() != v1::MEASURE_OK) continue;
      const auto& kernel = req.kernels(k);
      auto done = boards.measure(std::vector<uint8_t>(kernel.library().begin(), kernel.library().end()), kernel.entry_symbol(), opts[static_cast<size_t>(k)]);
      while (done.wait_for(std::chrono::milliseconds(200)) != std::future_status::ready) {
        if (cancelled()) {
          dispatcher.cancel_job(id);
          return grpc::Status(grpc::StatusCode::CANCELLED, "the client went away");
        }
      }
      tuner::Measured m = done.get();
      if (m.cancelled) return grpc::Status(grpc::StatusCode::UNAVAILABLE, "the tracker is shutting down");
      if (m.board_lost) return grpc::Status(grpc::StatusCode::UNAVAILABLE, m.result.error);
      if (out->device().empty()) {
        out->set_device(m.device);
        boards.bind_to(m.device);
      }
      if (m.result.status != runtime::MeasureStatus::Ok) {
        r->set_status(fleet::to_wire(m.result.status));
        r->set_error("round " + std::to_string(round + 1) + ": " + m.result.error);
        continue;
      }
      if (m.result.costs.empty()) {
        r->set_status(v1::MEASURE_RUNTIME_ERROR);
        r->set_error("round " + std::to_string(round + 1) + ": no timing");
        continue;
      }
      if (opts[static_cast<size_t>(k)].number == 0) opts[static_cast<size_t>(k)].number = m.result.number;
      r->add_costs(m.result.costs.front());
    }
  }
  return grpc::Status::OK;
}

}  // namespace tf::tracker
