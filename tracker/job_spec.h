// What the tracker accepts as a job: every field checked, defaults filled in, and an
// INVALID_ARGUMENT naming the field for anything wrong.
#pragma once

#include <grpcpp/grpcpp.h>

#include <functional>
#include <string>

#include "proto/tunefarm.pb.h"

namespace tf::tracker {

namespace v1 = ::tunefarm::v1;

// `key_known` says whether any board ever registered with a key: a job for a key nobody has heard
// of is a typo; a job for a known key with no board connected waits for one.
grpc::Status check_job_spec(v1::JobSpec* spec, const std::function<bool(const std::string&)>& key_known);

// Device keys name boards in logs, files and URLs: letters, digits, '.', '_', '-'; at most 64.
bool valid_device_key(const std::string& key);

// The tracker's own limit on a workload: its reference output is computed here in double
// precision before any board measures it.
constexpr double kMaxWorkloadFlops = 2e11;
// A week: past it a time limit is a typo, not a plan.
constexpr double kMaxTimeLimitS = 7 * 24 * 3600;

}  // namespace tf::tracker
