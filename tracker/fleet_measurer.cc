#include "tracker/fleet_measurer.h"

#include "proto/measure_wire.h"

namespace tf::tracker {
namespace {

// References are cached per board connection, and a tracker restart means new connections, so ids
// need only be unique within this process.
std::atomic<uint64_t> next_reference_id{1};

}  // namespace

FleetMeasurer::FleetMeasurer(Dispatcher& dispatcher, int64_t job_id, int priority, std::string key,
                             const ops::Workload& workload)
    : dispatcher_(dispatcher),
      job_id_(job_id),
      priority_(priority),
      key_(std::move(key)),
      workload_key_(workload.str()) {
  terms_.flops = static_cast<double>(ops::find_operator(workload.op).flops(workload.shape));
}

void FleetMeasurer::setup(const runtime::WorkloadSetup& setup) {
  reference_ = std::make_shared<const v1::Reference>(fleet::to_wire(setup, next_reference_id++));
}

std::future<tuner::Measured> FleetMeasurer::measure(std::vector<uint8_t> library, std::string entry,
                                                    const runtime::MeasureOptions& opts) {
  v1::WorkItem item;
  item.set_library(std::string(library.begin(), library.end()));
  item.set_entry_symbol(entry);
  *item.mutable_args() = reference_->args();
  *item.mutable_measure() = fleet::to_wire(opts);
  item.set_workload_key(workload_key_);
  item.set_foreign_library(foreign_);
  return dispatcher_.submit(job_id_, priority_, key_, reference_, std::move(item), terms_);
}

int FleetMeasurer::capacity() const {
  return std::max(1, dispatcher_.boards_of_key(key_)) * dispatcher_.slots_per_board();
}

}  // namespace tf::tracker
