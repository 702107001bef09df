// A CI regression run against the fleet: the tracker's Compare call measures the baseline's stored
// library and the current build in turn on one board; a missing workload is tuned by a job on the
// same boards; a board that is gone is a failed run (exit 2), never a verdict.
#include <gtest/gtest.h>

#include <fstream>

#include "compiler/compiler.h"
#include "proto/tokens.h"
#include "support/json.h"
#include "tests/cli_runner.h"
#include "tests/fleet_harness.h"
#include "tests/test_kernels.h"

namespace tf::fleet_test {
namespace {

TEST(FleetRegress, BaselineAndRegressOnTheBoardsOfAKey) {
  Fleet fleet("regress");
  fleet.start_tracker();
  fleet.start_board("ci-key");
  fleet.start_board("ci-key");
  const std::string suite = fleet.dir() + "/suite.json", db = fleet.dir() + "/ci.db";
  // A build against itself must be "unchanged": a threshold wider than this VM's noise keeps the
  // verdict about the flow, not about a noisy neighbour.
  std::ofstream(suite) << R"({"key": "ci-key", "rounds": 8, "threshold": 0.2,
                             "workloads": [{"name": "gemm-96", "op": "dense", "shape": [96, 96, 96]}]})";
  const std::string where = " --suite " + suite + " --tracker " + fleet.address() + " --db " + db + " --min-ms 5";

  // Nothing tuned anywhere yet: reported, and nothing stored.
  Result r = run_cli("baseline save ci" + where);
  EXPECT_EQ(r.exit_code, 2) << r.err << r.out;
  EXPECT_NE(r.out.find("no tuned config for dense[96,96,96]"), std::string::npos) << r.out;
  // Tuned first by a job on the key's boards, then built here, measured on a board and stored.
  r = run_cli("baseline save ci --tune-missing 6 --json" + where);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out << fleet.tracker().output();
  EXPECT_NE(r.err.find("tuning dense[96,96,96] first: job"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("a board of key ci-key"), std::string::npos) << r.err;
  Result show = run_cli("baseline show ci --json --db " + db);
  ASSERT_EQ(show.exit_code, 0) << show.err;
  const Json entry = parse_json(show.out).at(0);
  EXPECT_EQ(entry.at("device_key").get<std::string>(), "ci-key");
  EXPECT_EQ(entry.at("costs").size(), 8u);

  const std::string json = fleet.dir() + "/report.json";
  r = run_cli("regress --baseline ci --json " + json + where);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out << fleet.tracker().output();
  const Json report = parse_json(read_all(json));
  const auto& w = report.at("workloads").at(0);
  EXPECT_EQ(w.at("status").get<std::string>(), "unchanged") << w.dump();
  // The verdict is what must hold; the ratio of a build against itself only has to be sane.
  EXPECT_GT(w.at("speed_ratio").get<double>(), 0.5) << w.dump();
  EXPECT_LT(w.at("speed_ratio").get<double>(), 2.0) << w.dump();
  // One board measured every round of both kernels.
  EXPECT_NE(report.at("device").get<std::string>().find(":"), std::string::npos);

  // A key with no board: the run failed, and says which key.
  r = run_cli("regress --baseline ci --key no-such-key" + where);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("no board with key no-such-key"), std::string::npos) << r.err;
}

TEST(FleetRegress, CompareRejectsBadRequestsNamingTheField) {
  Fleet fleet("compare");
  fleet.start_tracker();
  auto stub = fleet.client();
  auto call = [&](const v1::CompareRequest& req) {
    v1::CompareResponse resp;
    return stub->Compare(context().get(), req, &resp);
  };
  v1::CompareRequest req;
  EXPECT_EQ(call(req).error_message(), "device_key: missing");
  req.set_device_key("k");
  req.mutable_workload()->set_op("dense");
  req.mutable_workload()->add_shape(4);
  EXPECT_NE(call(req).error_message().find("workload:"), std::string::npos);
  for (int i = 0; i < 2; ++i) req.mutable_workload()->add_shape(4);
  EXPECT_NE(call(req).error_message().find("kernels: 0 given"), std::string::npos);
  req.add_kernels()->set_entry_symbol("f");
  EXPECT_EQ(call(req).error_message(), "kernels[0].library: empty");
  req.mutable_kernels(0)->set_library("x");
  EXPECT_NE(call(req).error_message().find("rounds: 0"), std::string::npos);
  req.set_rounds(3);
  req.mutable_measure()->set_timeout_s(1e12);
  EXPECT_NE(call(req).error_message().find("measure.timeout_s: 1e+12 is out of range"), std::string::npos)
      << call(req).error_message();
  req.mutable_measure()->set_timeout_s(-1);
  EXPECT_NE(call(req).error_message().find("measure.timeout_s"), std::string::npos) << call(req).error_message();
  req.mutable_measure()->set_timeout_s(0);  // the default
  grpc::Status s = call(req);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(s.error_message(), "no board with key k is connected");
}

// Compare loads libraries the caller built. A client may send them to sandboxed boards, where a
// library that reaches for the network fails its trial and the board measures on; boards started
// --no-sandbox take them from admins only.
TEST(FleetRegress, ClientsCompareOnSandboxedBoardsOnly) {
  Fleet fleet("compare-auth");
  const std::string board_line = fleet::new_token_line(fleet::Role::Board, "board");
  const std::string client_line = fleet::new_token_line(fleet::Role::Client, "ci");
  const std::string admin_line = fleet::new_token_line(fleet::Role::Admin, "root");
  const std::string tokens = fleet.dir() + "/tokens", board_file = fleet.dir() + "/board.token";
  std::ofstream(tokens) << board_line << "\n" << client_line << "\n" << admin_line << "\n";
  std::ofstream(board_file) << board_line << "\n";
  fleet.start_tracker({"--token-file", tokens});
  fleet.start_board("confined", {"--token-file", board_file});
  fleet.start_board("open", {"--token-file", board_file, "--no-sandbox"});

  const ops::Workload workload{"dense", {8, 8, 8}};
  compiler::Task task(workload, codegen::host_target());
  const codegen::SharedLibrary good = task.build_shared_library(task.space().default_config());
  const std::vector<uint8_t> escaping = test_kernels::build_test_library(
      test_kernels::kEscapingKernels, "-DTF_ESCAPE_FILE='\"/tmp/x\"' -DTF_ROOT_FILE='\"/tmp/y\"'");
  auto request = [&](const std::string& key) {
    v1::CompareRequest req;
    req.set_device_key(key);
    req.mutable_workload()->set_op("dense");
    for (int64_t d : workload.shape) req.mutable_workload()->add_shape(d);
    auto* bad = req.add_kernels();
    bad->set_name("escaping");
    bad->set_library(std::string(escaping.begin(), escaping.end()));
    bad->set_entry_symbol("tf_socket");
    auto* ok = req.add_kernels();
    ok->set_name("tuned");
    ok->set_library(std::string(good.bytes.begin(), good.bytes.end()));
    ok->set_entry_symbol(good.entry_symbol);
    req.set_rounds(2);
    req.mutable_measure()->set_repeat(2);
    req.mutable_measure()->set_min_repeat_ms(1);
    req.mutable_measure()->set_timeout_s(10);
    return req;
  };
  auto stub = fleet.client();
  auto call = [&](const std::string& line, const std::string& key, v1::CompareResponse* resp) {
    return stub->Compare(context(line.substr(0, line.find(' '))).get(), request(key), resp);
  };

  v1::CompareResponse resp;
  grpc::Status s = call(client_line, "confined", &resp);
  ASSERT_TRUE(s.ok()) << s.error_message() << fleet.tracker().output();
  ASSERT_EQ(resp.results_size(), 2);
  EXPECT_NE(resp.results(0).error().find("sandbox stopped the kernel: it called socket"), std::string::npos)
      << resp.results(0).error();
  EXPECT_EQ(resp.results(0).status(), v1::MEASURE_RUNTIME_ERROR);
  EXPECT_EQ(resp.results(1).status(), v1::MEASURE_OK) << "the board measured on: " << resp.results(1).error();
  EXPECT_EQ(resp.results(1).costs_size(), 2) << "one timing per round";

  s = call(client_line, "open", &resp);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::PERMISSION_DENIED) << s.error_message();
  EXPECT_NE(s.error_message().find("without a sandbox (--no-sandbox)"), std::string::npos) << s.error_message();
  s = call(admin_line, "open", &resp);
  ASSERT_TRUE(s.ok()) << "an admin vouches for its libraries: " << s.error_message();
  // Unconfined, the socket opens and the kernel runs (its sum is no dense product).
  EXPECT_EQ(resp.results(0).status(), v1::MEASURE_WRONG_ANSWER) << resp.results(0).error();
}

}  // namespace
}  // namespace tf::fleet_test
