// Every fleet command of the `tunefarm` CLI against a real tracker and board, in its plain and its
// --json form: what people and scripts see. Small in trials: CI runs it on 2 cores.
#include <gtest/gtest.h>

#include <sstream>

#include "support/json.h"
#include "tests/cli_runner.h"
#include "tests/fleet_harness.h"

namespace tf::fleet_test {
namespace {

const char* kKey = "cli-x86";
const char* kShape = "64,64,64";
const char* kWorkloadKey = "dense[64,64,64]:float32";

// Parses one command's --json output; a test failure (not a crash) when it is not JSON.
Json json_of(const Result& r) {
  try {
    return parse_json(r.out);
  } catch (const JsonError& e) {
    ADD_FAILURE() << e.what() << "\nstdout:\n" << r.out << "\nstderr:\n" << r.err;
    return Json();
  }
}

std::string submit_args(const std::string& key) {
  return std::string("submit --op dense --shape ") + kShape + " --key " + key +
         " --trials 4 --tuner random --min-ms 1 --repeat 2";
}

// A finished job's one workload, as `status --json` and `submit --json --follow` show it.
void expect_done_workload(const Json& job, int64_t id) {
  EXPECT_EQ(job.at("id"), id);
  EXPECT_EQ(job.at("state"), "done") << job.dump(2);
  ASSERT_EQ(job.at("workloads").size(), 1u);
  const Json& w = job.at("workloads")[0];
  EXPECT_EQ(w.at("workload_key"), kWorkloadKey);
  EXPECT_EQ(w.at("op"), "dense");
  EXPECT_EQ(w.at("shape"), Json({64, 64, 64}));
  EXPECT_EQ(w.at("trials"), 4);
  EXPECT_EQ(w.at("trials_done"), 4);
  EXPECT_TRUE(w.at("trials_done").is_number_integer());
  EXPECT_EQ(w.at("ok").get<int64_t>() + w.at("failed").get<int64_t>(), 4);
  EXPECT_GT(w.at("best_gflops").get<double>(), 0);
  ASSERT_TRUE(w.at("best_config").is_object()) << w.dump(2);
  EXPECT_TRUE(w.at("best_config").at("mr").is_number_integer());
  EXPECT_TRUE(w.at("best_config").at("vectorize").is_boolean());
}

class FleetCli : public ::testing::Test {
 protected:
  void SetUp() override {
    fleet_.start_tracker();
    fleet_.start_board(kKey);
  }
  Result cli(const std::string& args) { return run_cli(args + " --tracker " + fleet_.address()); }

  Fleet fleet_{"cli"};
};

TEST_F(FleetCli, EveryCommandPlainAndJson) {
  // devices
  Result devices = cli("devices");
  ASSERT_EQ(devices.exit_code, 0) << devices.err;
  EXPECT_NE(devices.out.find(kKey), std::string::npos) << devices.out;
  Result devices_json = cli("devices --json");
  ASSERT_EQ(devices_json.exit_code, 0) << devices_json.err;
  const Json boards = json_of(devices_json);
  ASSERT_EQ(boards.size(), 1u) << devices_json.out;
  EXPECT_EQ(boards[0].at("key"), kKey);
  EXPECT_NE(boards[0].at("target").get<std::string>().find("llvm"), std::string::npos);
  EXPECT_EQ(boards[0].at("threads"), 1);
  EXPECT_TRUE(boards[0].at("memory_bytes").is_number_integer());

  // submit --json: the job as accepted.
  Result submitted = cli(submit_args(kKey) + " --json");
  ASSERT_EQ(submitted.exit_code, 0) << submitted.err;
  const Json first = json_of(submitted);
  const int64_t first_id = first.value("id", int64_t{0});
  EXPECT_GT(first_id, 0) << submitted.out;
  EXPECT_TRUE(first.at("state") == "queued" || first.at("state") == "running") << submitted.out;
  EXPECT_EQ(first.at("workloads").at(0).at("workload_key"), kWorkloadKey);
  EXPECT_EQ(first.at("workloads").at(0).at("trials"), 4);
  EXPECT_EQ(first.at("spec").at("key"), kKey);
  EXPECT_EQ(first.at("spec").at("trials"), 4);
  EXPECT_EQ(first.at("spec").at("tuner"), "random");
  EXPECT_TRUE(first.at("spec").at("measure").at("min_repeat_ms").is_number_float());
  EXPECT_EQ(first.at("spec").at("measure").at("repeat"), 2);

  // submit --follow: a line per progress, then the end.
  Result followed = cli(submit_args(kKey) + " --follow");
  ASSERT_EQ(followed.exit_code, 0) << followed.err << followed.out;
  int64_t second_id = 0;
  ASSERT_EQ(std::sscanf(followed.out.c_str(), "job %lld submitted", reinterpret_cast<long long*>(&second_id)), 1)
      << followed.out;
  EXPECT_NE(followed.out.find("job " + std::to_string(second_id) + " done"), std::string::npos) << followed.out;

  // submit --json --follow: one JSON object per line, the last one the finished job.
  Result followed_json = cli(submit_args(kKey) + " --json --follow");
  ASSERT_EQ(followed_json.exit_code, 0) << followed_json.err;
  std::istringstream lines(followed_json.out);
  std::string line, last;
  while (std::getline(lines, line)) {
    EXPECT_NO_THROW(parse_json(line)) << line;
    last = line;
  }
  const Json third = parse_json(last);
  const int64_t third_id = third.at("id").get<int64_t>();
  expect_done_workload(third, third_id);

  // status JOB, plain and --json.
  Result status = cli("status " + std::to_string(second_id));
  ASSERT_EQ(status.exit_code, 0) << status.err;
  EXPECT_NE(status.out.find("job " + std::to_string(second_id) + "  done"), std::string::npos) << status.out;
  EXPECT_NE(status.out.find("4/4"), std::string::npos) << status.out;
  Result status_json = cli("status " + std::to_string(second_id) + " --json");
  ASSERT_EQ(status_json.exit_code, 0) << status_json.err;
  expect_done_workload(json_of(status_json), second_id);

  // status: every job, newest first.
  Result list = cli("status");
  ASSERT_EQ(list.exit_code, 0) << list.err;
  for (int64_t id : {first_id, second_id, third_id})
    EXPECT_NE(list.out.find("job " + std::to_string(id) + " "), std::string::npos) << list.out;
  Result list_json = cli("status --json");
  ASSERT_EQ(list_json.exit_code, 0) << list_json.err;
  const Json jobs = json_of(list_json);
  ASSERT_EQ(jobs.size(), 3u) << list_json.out;
  EXPECT_EQ(jobs[0].at("id"), third_id);
  EXPECT_EQ(jobs[2].at("id"), first_id);

  // best --tracker: the fleet's best of the workload is the best any of the jobs found.
  double best_of_jobs = 0;
  for (const auto& j : jobs)
    best_of_jobs = std::max(best_of_jobs, j.at("workloads")[0].at("best_gflops").get<double>());
  Result best = cli(std::string("best --op dense --shape ") + kShape + " --key " + kKey);
  ASSERT_EQ(best.exit_code, 0) << best.err;
  EXPECT_NE(best.out.find("dense[64,64,64]"), std::string::npos) << best.out;
  EXPECT_NE(best.out.find("GFLOPS"), std::string::npos) << best.out;
  Result best_json = cli(std::string("best --op dense --shape ") + kShape + " --key " + kKey + " --json");
  ASSERT_EQ(best_json.exit_code, 0) << best_json.err;
  const Json b = json_of(best_json);
  EXPECT_EQ(b.at("workload"), "dense[64,64,64]");
  EXPECT_EQ(b.at("key"), kKey);
  EXPECT_NEAR(b.at("gflops").get<double>(), best_of_jobs, 1e-6 * best_of_jobs) << best_json.out << list_json.out;
  ASSERT_TRUE(b.at("config").is_object()) << best_json.out;
  EXPECT_TRUE(b.at("config").at("mr").is_number_integer());
  EXPECT_FALSE(b.at("costs").empty());
  EXPECT_TRUE(b.at("job_id").is_number_integer());
  EXPECT_EQ(b.at("timing"), "warm");
  Result cold = cli(std::string("best --op dense --shape ") + kShape + " --key " + kKey + " --timing cold-all");
  EXPECT_EQ(cold.exit_code, 1) << cold.out;
  EXPECT_NE(cold.err.find("timed cold-all"), std::string::npos) << cold.err;
}

TEST_F(FleetCli, CancelPlainAndJson) {
  // A key that had a board once but has none now: its jobs wait, so there is one to cancel.
  Process& gone = fleet_.start_board("cli-gone");
  gone.kill(SIGKILL);
  for (bool json : {false, true}) {
    Result submitted = cli(submit_args("cli-gone") + " --json");
    ASSERT_EQ(submitted.exit_code, 0) << submitted.err;
    const int64_t id = json_of(submitted).value("id", int64_t{0});
    ASSERT_GT(id, 0) << submitted.out;
    Result cancelled = cli("cancel " + std::to_string(id) + (json ? " --json" : ""));
    ASSERT_EQ(cancelled.exit_code, 0) << cancelled.err;
    if (json) {
      const Json job = json_of(cancelled);
      EXPECT_EQ(job.at("id"), id);
      EXPECT_EQ(job.at("state"), "cancelled") << cancelled.out;
      EXPECT_EQ(job.at("spec").at("key"), "cli-gone");
    } else {
      EXPECT_EQ(cancelled.out, "job " + std::to_string(id) + " cancelled\n");
    }
  }
}

// One machine, one target: a board and a local command on this host name the CPU with the same
// string, so what the fleet tuned is what a local run uses, and the other way round.
TEST_F(FleetCli, ABoardAndALocalRunOnOneHostShareTheirTargetAndTheirBest) {
  Result devices = cli("devices --json");
  ASSERT_EQ(devices.exit_code, 0) << devices.err;
  const std::string board_target = json_of(devices)[0].at("target").get<std::string>();
  const std::string run_args = std::string("run --op dense --shape ") + kShape + " --min-ms 1 --repeat 1 --json";

  Result native = run_cli(run_args + " --target native");
  ASSERT_EQ(native.exit_code, 0) << native.err;
  EXPECT_EQ(json_of(native).at("target"), board_target);

  // Fleet to local: the best a job of the board's found is what `run --config best --key` runs here.
  Result tuned = cli(submit_args(kKey) + " --json --follow");
  ASSERT_EQ(tuned.exit_code, 0) << tuned.err;
  const std::string last = tuned.out.substr(tuned.out.rfind('\n', tuned.out.size() - 2) + 1);
  const Json fleet_best = parse_json(last).at("workloads")[0].at("best_config");
  Result from_fleet = run_cli(run_args + " --target native --config best --key " + kKey + " --db " + fleet_.db());
  ASSERT_EQ(from_fleet.exit_code, 0) << from_fleet.err;
  const Json ran = json_of(from_fleet).at("config");
  for (const auto& [knob, value] : fleet_best.items()) EXPECT_EQ(ran.at(knob), value) << knob << ": " << from_fleet.out;

  // Local to fleet: a config tuned here with --target native is the best for the board's target
  // string, which this host accepts and runs.
  const std::string local_db = fleet_.dir() + "/local.db";
  Result local =
      run_cli(std::string("tune --op dense --shape ") + kShape +
              " --trials 4 --tuner random --min-ms 1 --repeat 2 --db " + local_db + " --target native --json");
  ASSERT_EQ(local.exit_code, 0) << local.err;
  Result best_local = run_cli(std::string("best --op dense --shape ") + kShape + " --db " + local_db + " --json");
  ASSERT_EQ(best_local.exit_code, 0) << best_local.err;
  const Json local_best = json_of(best_local).at("config");
  Result as_board = run_cli(run_args + " --target '" + board_target + "' --config best --db " + local_db);
  ASSERT_EQ(as_board.exit_code, 0) << as_board.err;
  EXPECT_EQ(json_of(as_board).at("target"), board_target);
  const Json ran_local = json_of(as_board).at("config");
  for (const auto& [knob, value] : local_best.items())
    EXPECT_EQ(ran_local.at(knob), value) << knob << ": " << as_board.out;
}

}  // namespace
}  // namespace tf::fleet_test
