// The range check of measure options, and that every path options arrive on applies it: the
// worker's parent refuses a timeout that would overflow its milliseconds.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "runtime/measure_worker.h"
#include "tests/test_kernels.h"

namespace tf {
namespace {

runtime::MeasureOptions sane() {
  runtime::MeasureOptions o;
  o.repeat = 2;
  o.min_repeat_ms = 1;
  o.timeout_s = 2;
  o.timing_lock = "/tmp/tunefarm-test-timing.lock";
  return o;
}

TEST(MeasureOptions, OutOfRangeFieldsAreNamed) {
  EXPECT_EQ(runtime::measure_options_error(sane()), "");
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  struct Case {
    const char* field;
    std::function<void(runtime::MeasureOptions&)> spoil;
  };
  const Case cases[] = {
      {"repeat", [](auto& o) { o.repeat = 0; }},
      {"repeat", [](auto& o) { o.repeat = 1001; }},
      {"number", [](auto& o) { o.number = -1; }},
      {"min_repeat_ms", [&](auto& o) { o.min_repeat_ms = nan; }},
      {"min_repeat_ms", [](auto& o) { o.min_repeat_ms = 1e9; }},
      {"cooldown_ms", [](auto& o) { o.cooldown_ms = -1; }},
      {"timeout_s", [](auto& o) { o.timeout_s = 1e12; }},
      {"timeout_s", [&](auto& o) { o.timeout_s = inf; }},
      {"timeout_s", [&](auto& o) { o.timeout_s = nan; }},
      {"timeout_s", [](auto& o) { o.timeout_s = 0; }},
      {"timeout_s", [](auto& o) { o.timeout_s = 3601; }},
  };
  for (const auto& c : cases) {
    runtime::MeasureOptions o = sane();
    c.spoil(o);
    const std::string e = runtime::measure_options_error(o);
    EXPECT_EQ(e.rfind(std::string(c.field) + ":", 0), 0u) << c.field << " -> '" << e << "'";
  }
  runtime::MeasureOptions hour = sane();
  hour.timeout_s = runtime::kMaxTimeoutS;
  EXPECT_EQ(runtime::measure_options_error(hour), "");
}

TEST(MeasureOptions, TheWorkerRefusesATimeoutBeyondAnHour) {
  const std::vector<uint8_t> lib = test_kernels::build_test_library();
  ASSERT_FALSE(lib.empty());
  runtime::MeasureWorker worker(TF_MEASURE_WORKER);
  worker.setup(test_kernels::add_setup());
  runtime::MeasureOptions o = sane();
  o.timeout_s = 1e12;  // as milliseconds in an int: overflowed, and poll() waited for ever
  const runtime::MeasureResult r = worker.measure(lib, "tf_ok", o);
  EXPECT_EQ(r.status, runtime::MeasureStatus::RuntimeError);
  EXPECT_NE(r.error.find("timeout_s"), std::string::npos) << r.error;
  const runtime::MeasureResult ok = worker.measure(lib, "tf_ok", sane());
  EXPECT_EQ(ok.status, runtime::MeasureStatus::Ok) << ok.error;
}

}  // namespace
}  // namespace tf
