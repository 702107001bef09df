// JSON from outside is refused for its size or its nesting before a value is built (support/json.h):
// parsed, a few MB of "[[[[" cost the tracker gigabytes, and nlohmann's recursive dump overflowed
// the CLI's stack on a job file nested 80,000 deep. Every reader names what it read and the limit.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>

#include "compiler/compiler.h"
#include "compiler/error.h"
#include "proto/json_convert.h"
#include "regress/suite.h"
#include "support/json.h"
#include "tests/cli_runner.h"
#include "tests/fleet_harness.h"
#include "tuner/record_line.h"

namespace tf {
namespace {

namespace v1 = ::tunefarm::v1;

std::string nested_arrays(size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

// {"a": {"a": ... 1 ...}}: objects, which the CLI's job file reader fills in and writes out again.
std::string nested_objects(size_t depth) {
  std::string text;
  text.reserve(depth * 6 + 1);
  for (size_t i = 0; i < depth; ++i) text += "{\"a\":";
  text += "1";
  text.append(depth, '}');
  return text;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(JsonLimits, NestingBeyondTheLimitIsRefusedBeforeParsing) {
  EXPECT_EQ(parse_json(nested_arrays(64)).size(), 1u);
  EXPECT_THROW(parse_json(nested_arrays(65)), JsonLimitError);
  EXPECT_EQ(error_of([] { parse_json(nested_arrays(100000)); }), "nesting deeper than 64 levels");
  EXPECT_EQ(error_of([] { parse_json(nested_objects(100000)); }), "nesting deeper than 64 levels");
  // Brackets inside strings, escaped quotes included, do not nest.
  const std::string brackets(1000, '[');
  EXPECT_EQ(parse_json("[\"" + brackets + "\", \"\\\"" + brackets + "\", \"\\\\\", [1]]").size(), 4u);
  EXPECT_EQ(error_of([] { parse_json(nested_arrays(3), JsonLimits{1024, 2}); }), "nesting deeper than 2 levels");
}

TEST(JsonLimits, TextBeyondTheSizeLimitIsRefusedNamingBoth) {
  EXPECT_EQ(error_of([] { parse_json(std::string(2048, ' ') + "{}", JsonLimits{1024}); }), "2 KB, the limit is 1 KB");
  EXPECT_EQ(error_of([] { parse_json(std::string(3 << 19, ' ') + "{}", kJobSpecJsonLimits); }),
            "1.5 MB, the limit is 1 MB");
  EXPECT_EQ(error_of([] { parse_json(std::string(100, ' ') + "{}", JsonLimits{64}); }),
            "102 bytes, the limit is 64 bytes");
  EXPECT_TRUE(parse_json(std::string(1000, ' ') + "{}", JsonLimits{1002}).empty());
}

// Each reader of outside JSON uses the helper and says what it read.
TEST(JsonLimits, EveryReaderOfOutsideJsonRefusesDeepText) {
  const std::string deep = nested_objects(100000);
  EXPECT_EQ(error_of([&] { fleet::job_spec_from_text(deep); }), "job spec: nesting deeper than 64 levels");
  EXPECT_EQ(error_of([&] { fleet::job_spec_from_text(std::string(2 << 20, ' ') + "{}"); }),
            "job spec: 2 MB, the limit is 1 MB");
  EXPECT_EQ(error_of([&] { regress::parse_suite(deep, "suite.json"); }), "suite.json: nesting deeper than 64 levels");
  tuner::RecordChecker checker;
  const tuner::RecordLine line = tuner::read_record_line(deep, checker);
  EXPECT_EQ(line.verdict, tuner::RecordLine::Verdict::Unreadable);
  EXPECT_EQ(line.why, "unreadable: nesting deeper than 64 levels");
  codegen::Target target;
  target.triple = "x86_64-pc-linux-gnu";
  target.cpu = "x86-64-v3";
  target.vector_bits = 256;
  const compiler::Task task({"dense", {64, 48, 32}}, target);
  EXPECT_EQ(error_of([&] { task.parse_config(nested_objects(1000)); }), "config: nesting deeper than 64 levels");
  EXPECT_EQ(error_of([&] { task.parse_config(deep); }), "config: 585.9 KB, the limit is 64 KB");
}

int64_t memory_kb(pid_t pid, const std::string& field) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(field + ":", 0) == 0) return std::stoll(line.substr(field.size() + 1));
  }
  return -1;
}

TEST(JsonLimits, ATrackerRefusesADeepOrHugeJobSpecAndStaysUpAndSmall) {
  fleet_test::Fleet fleet("json-limits");
  fleet.start_tracker();
  auto stub = fleet.client();
  auto submit_json = [&](const std::string& text) {
    v1::SubmitJobRequest req;
    req.set_spec_json(text);
    v1::Job job;
    auto ctx = fleet_test::context();
    return stub->SubmitJob(ctx.get(), req, &job);
  };
  // Warm up the connection and the service before measuring.
  EXPECT_EQ(submit_json("{}").error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  const int64_t before_kb = memory_kb(fleet.tracker().pid(), "VmHWM");
  ASSERT_GT(before_kb, 0);

  grpc::Status s = submit_json(nested_arrays(100000));
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << s.error_message();
  EXPECT_EQ(s.error_message(), "job spec: nesting deeper than 64 levels");
  s = submit_json(nested_objects(100000));
  EXPECT_EQ(s.error_message(), "job spec: nesting deeper than 64 levels");
  // 8 MB of "[[[[": parsed, several hundred MB of values.
  s = submit_json(nested_arrays(4 << 20));
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << s.error_message();
  EXPECT_EQ(s.error_message(), "job spec: 8 MB, the limit is 1 MB");

  // The request's own bytes pass through gRPC a few times; nothing near the values they would make.
  const int64_t peak_kb = memory_kb(fleet.tracker().pid(), "VmHWM");
  EXPECT_LT(peak_kb - before_kb, 128 * 1024) << "peak " << peak_kb << " kB, " << before_kb << " kB before";
  v1::ListJobsResponse jobs;
  EXPECT_TRUE(stub->ListJobs(fleet_test::context().get(), v1::ListJobsRequest(), &jobs).ok());
  EXPECT_EQ(fleet.tracker().wait_exit(std::chrono::milliseconds(0)), -1) << "the tracker ended:\n"
                                                                         << fleet.tracker().output();
}

TEST(JsonLimits, SubmitRefusesADeepOrHugeJobFileWithoutASignal) {
  const std::string dir = testing::TempDir();
  const std::string deep = dir + "tf-deep-job-" + std::to_string(::getpid()) + ".json";
  std::ofstream(deep) << nested_objects(80000);
  // Nothing listens on port 1: the file is refused before any connection.
  Result r = run_cli("submit --job " + deep + " --tracker 127.0.0.1:1 --key x");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--job " + deep + ": nesting deeper than 64 levels"), std::string::npos) << r.err;

  std::ofstream(deep, std::ios::trunc) << std::string(2 << 20, ' ') << "{}";
  r = run_cli("submit --job " + deep + " --tracker 127.0.0.1:1 --key x");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--job " + deep + ": 2 MB, the limit is 1 MB"), std::string::npos) << r.err;
  std::remove(deep.c_str());
}

}  // namespace
}  // namespace tf
