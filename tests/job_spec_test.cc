// The tracker's checks of a submitted job spec that no other test reaches.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "tracker/job_spec.h"

namespace tf {
namespace {

// The tracker's check of a job's time limit: a number of seconds a scheduled job can use.
TEST(JobSpecCheck, ATimeLimitIsSecondsOfAScheduledJob) {
  auto check = [](const std::string& scheduler, double limit) {
    tracker::v1::JobSpec spec;
    auto* w = spec.add_workloads();
    w->set_op("dense");
    for (int64_t d : {64, 64, 64}) w->add_shape(d);
    spec.set_device_key("x86");
    spec.set_trials(8);
    spec.set_scheduler(scheduler);
    spec.set_time_limit_s(limit);
    return tracker::check_job_spec(&spec, [](const std::string&) { return true; });
  };
  EXPECT_TRUE(check("gradient", 0).ok());
  EXPECT_TRUE(check("gradient", 300).ok());
  for (double bad : {-1.0, std::nan(""), std::numeric_limits<double>::infinity(), 1e9}) {
    const grpc::Status s = check("gradient", bad);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << bad;
    EXPECT_NE(s.error_message().find("time_limit_s"), std::string::npos) << s.error_message();
  }
  const grpc::Status unscheduled = check("", 60);
  EXPECT_EQ(unscheduled.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(unscheduled.error_message().find("scheduled job"), std::string::npos) << unscheduled.error_message();
}

}  // namespace
}  // namespace tf
