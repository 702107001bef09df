// A regression run's report in the forms CI systems read: JUnit XML (a test case per workload: a
// failure when slower or broken, an error when it could not be compared, skipped without a
// baseline), JSON for scripts, and a markdown table for a pull request comment.
#pragma once

#include <string>

#include "regress/regression_run.h"
#include "support/json.h"

namespace tf::regress {

std::string to_junit(const RegressReport& r);
Json to_json(const RegressReport& r);
std::string to_markdown(const RegressReport& r);

// One double through a printf format ("%.1f GFLOPS"), as the reports and progress lines print it.
std::string format_value(const char* format, double v);

}  // namespace tf::regress
