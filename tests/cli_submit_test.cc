// `tunefarm submit --job F` with options on the command line, against a real tracker: the options
// fill in the fields the file leaves out, and the file wins where it sets a field.
#include <gtest/gtest.h>

#include <fstream>

#include "support/json.h"
#include "tests/cli_runner.h"
#include "tests/fleet_harness.h"

namespace {

using tf::fleet_test::Fleet;

tf::Json submitted_spec(const Result& r) {
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  if (r.exit_code != 0) return tf::Json::object();
  return tf::parse_json(r.out).at("spec");
}

TEST(CliSubmit, OptionsFillInWhatTheJobFileLeavesOutAndTheFileWinsWhereItSetsAField) {
  Fleet fleet("cli-submit");
  fleet.start_tracker();
  fleet.start_board("sub");
  const std::string where = " --tracker " + fleet.address() + " --json";

  // The file names workloads only: key, trials, tuner, seed and measure come from the command line.
  const std::string sparse = fleet.dir() + "/sparse.json";
  std::ofstream(sparse) << R"({"workloads": [{"op": "dense", "shape": [16, 16, 16]}]})";
  Result r = run_cli("submit --job " + sparse +
                     " --key sub --trials 3 --tuner random --seed 9 --priority 4 --min-ms 2 --repeat 2"
                     " --timeout 7 --cold-inputs weights" +
                     where);
  tf::Json spec = submitted_spec(r);
  EXPECT_EQ(spec.at("key").get<std::string>(), "sub");
  EXPECT_EQ(spec.at("trials").get<int64_t>(), 3);
  EXPECT_EQ(spec.at("tuner").get<std::string>(), "random");
  EXPECT_EQ(spec.at("seed").get<int64_t>(), 9);
  EXPECT_EQ(spec.at("priority").get<int64_t>(), 4);
  EXPECT_EQ(spec.at("measure").at("min_repeat_ms").get<double>(), 2.0);
  EXPECT_EQ(spec.at("measure").at("repeat").get<int64_t>(), 2);
  EXPECT_EQ(spec.at("measure").at("timeout_s").get<double>(), 7.0);
  EXPECT_EQ(spec.at("measure").at("cold_inputs").get<std::string>(), "weights");
  EXPECT_EQ(r.err, "") << "nothing was overridden";

  // The file sets trials, tuner and a measure field: those stay; the rest is filled in.
  const std::string full = fleet.dir() + "/full.json";
  std::ofstream(full) << R"({"workloads": [{"op": "dense", "shape": [16, 16, 16]}], "device_key": "sub", "trials": 4,
                             "tuner": "random", "measure": {"repeat": 1}})";
  r = run_cli("submit --job " + full + " --key other --trials 50 --tuner xgb --min-ms 3 --repeat 5" + where);
  spec = submitted_spec(r);
  EXPECT_EQ(spec.at("key").get<std::string>(), "sub");
  EXPECT_EQ(spec.at("trials").get<int64_t>(), 4);
  EXPECT_EQ(spec.at("tuner").get<std::string>(), "random");
  EXPECT_EQ(spec.at("measure").at("repeat").get<int64_t>(), 1);
  EXPECT_EQ(spec.at("measure").at("min_repeat_ms").get<double>(), 3.0);
  for (const char* option : {"--key", "--trials", "--tuner", "--repeat"}) {
    EXPECT_NE(r.err.find(std::string(option) + " not used"), std::string::npos) << option << ": " << r.err;
  }
  EXPECT_EQ(r.err.find("--min-ms not used"), std::string::npos) << r.err;

  // Bad option values are refused before anything is sent.
  Result bad = run_cli("submit --job " + sparse + " --key sub --priority 0" + where);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--priority"), std::string::npos) << bad.err;
  EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << bad.err;
}

}  // namespace
