// regress::Comparer over a tracker: the boards of one key measure through the Compare call; best
// configs come from the tracker's db and missing ones are tuned by a job on the same boards.
#pragma once

#include <optional>

#include "cli/tracker_client.h"
#include "regress/comparer.h"
#include "regress/suite.h"
#include "support/json.h"

namespace tf::cli {

class FleetComparer : public regress::Comparer {
 public:
  // Throws regress::RunError when the tracker cannot be reached or no board of `key` is connected.
  FleetComparer(TrackerClient& client, std::string key);
  std::string target() const override { return target_; }
  std::string device_key() const override { return key_; }
  std::string where() const override;
  // The measuring board's, once a comparison ran; before, the first connected board's.
  std::string timing_isolation() const override;
  regress::Comparison compare(const ops::Workload& workload, const std::vector<regress::KernelBinary>& kernels,
                              int rounds, const runtime::MeasureOptions& opts) override;

  // The tracker's best config of `w` for the key; none when it has none.
  std::optional<Json> best(const ops::Workload& w);
  // A tuning job of `trials` xgb trials for `w` on the key, followed to its end. Throws RunError
  // when it fails.
  void tune(const ops::Workload& w, int64_t trials, const std::function<void(const std::string&)>& progress);

 private:
  TrackerClient& client_;
  std::string key_, target_;
  std::vector<std::pair<std::string, std::string>> isolation_by_board_;  // board id ("host:pid#n"), isolation
  std::string measured_on_;                                              // "host:pid"
  int boards_ = 0;
};

}  // namespace tf::cli
