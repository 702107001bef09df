// Tuning jobs on a fleet of real processes: a tracker and boards on 127.0.0.1, real gRPC, a real
// SQLite file. Every trial of a job must be in the db exactly once, whatever dies on the way.
#include <gtest/gtest.h>

#include <atomic>
#include <set>

#include "db/database.h"
#include "tests/fleet_harness.h"

namespace tf::fleet_test {
namespace {

// Every measurement of the job, checked for doubles: returns how many there are.
size_t measured_once(const std::string& db_path, int64_t job_id, std::set<std::string>* devices = nullptr) {
  db::Database db(db_path);
  auto ms = db.job_measurements(job_id);
  std::set<int64_t> configs;
  for (const auto& m : ms) {
    EXPECT_TRUE(configs.insert(m.config_index).second) << "config " << m.config_index << " recorded twice";
    if (devices) devices->insert(m.device);
  }
  return ms.size();
}

TEST(FleetJobs, AJobFinishesAcrossTwoBoardsWithEveryTrialOnce) {
  Fleet fleet("two-boards");
  fleet.start_tracker();
  fleet.start_board("test-x86");
  fleet.start_board("test-x86");
  auto stub = fleet.client();
  const int64_t id = submit(*stub, dense_job("test-x86", {128, 128, 128}, 24));
  v1::Job job = follow(*stub, id);
  EXPECT_EQ(job.state(), v1::DONE) << job.message() << fleet.tracker().output();
  ASSERT_EQ(job.workloads_size(), 1);
  EXPECT_EQ(job.workloads(0).trials_done(), 24);
  EXPECT_GT(job.workloads(0).best_gflops(), 0);
  std::set<std::string> devices;
  EXPECT_EQ(measured_once(fleet.db(), id, &devices), 24u);
  EXPECT_EQ(devices.size(), 2u) << "both boards measured";

  // The best config is the fleet's, answered by the tracker.
  v1::GetBestRequest best_req;
  *best_req.mutable_workload() = job.spec().workloads(0);
  best_req.set_device_key("test-x86");
  v1::GetBestResponse best;
  auto ctx = context();
  ASSERT_TRUE(stub->GetBest(ctx.get(), best_req, &best).ok());
  EXPECT_TRUE(best.found());
  EXPECT_NEAR(best.gflops(), job.workloads(0).best_gflops(), 1e-6 * best.gflops());
  EXPECT_EQ(best.timing(), "warm") << "the job timed its kernels warm";

  // Asked for a timing: only records timed so. This job timed nothing cold.
  best_req.set_timing("warm");
  auto warm_ctx = context();
  v1::GetBestResponse warm;
  ASSERT_TRUE(stub->GetBest(warm_ctx.get(), best_req, &warm).ok());
  EXPECT_TRUE(warm.found());
  EXPECT_EQ(warm.config_json(), best.config_json());
  best_req.set_timing("cold-weights");
  auto cold_ctx = context();
  v1::GetBestResponse cold;
  ASSERT_TRUE(stub->GetBest(cold_ctx.get(), best_req, &cold).ok());
  EXPECT_FALSE(cold.found()) << cold.config_json();
  best_req.set_timing("hot\r\nX-Injected: 1");
  auto bad_ctx = context();
  v1::GetBestResponse bad;
  const grpc::Status refused = stub->GetBest(bad_ctx.get(), best_req, &bad);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(refused.error_message().find("timing"), std::string::npos) << refused.error_message();
  EXPECT_EQ(refused.error_message().find('\n'), std::string::npos) << "control characters are escaped";
}

TEST(FleetJobs, KillingABoardMidJobLosesAndDoublesNothing) {
  Fleet fleet("kill-board");
  fleet.start_tracker();
  fleet.start_board("test-x86");
  fleet.start_board("test-x86");
  auto stub = fleet.client();
  const int64_t id = submit(*stub, dense_job("test-x86", {192, 192, 192}, 40));
  ASSERT_TRUE(eventually([&] { return trials_done(*stub, id) >= 8; }));
  fleet.board(0).kill(SIGKILL);
  v1::Job job = follow(*stub, id);
  EXPECT_EQ(job.state(), v1::DONE) << job.message() << fleet.tracker().output();
  EXPECT_EQ(measured_once(fleet.db(), id), 40u);
  EXPECT_NE(fleet.tracker().output().find("left"), std::string::npos) << "the tracker noticed the board go";
}

TEST(FleetJobs, KillingTheTrackerMidJobResumesFromTheDb) {
  Fleet fleet("kill-tracker");
  fleet.start_tracker();
  fleet.start_board("test-x86");
  fleet.start_board("test-x86");
  auto stub = fleet.client();
  const int64_t id = submit(*stub, dense_job("test-x86", {192, 192, 192}, 40, "xgb"));
  ASSERT_TRUE(eventually([&] { return trials_done(*stub, id) >= 10; }));
  fleet.kill_tracker();
  const size_t before = measured_once(fleet.db(), id);
  EXPECT_GE(before, 10u);
  EXPECT_LT(before, 40u);
  fleet.start_tracker();
  EXPECT_NE(fleet.tracker().output().find("resumed 1 unfinished job"), std::string::npos) << fleet.tracker().output();
  auto stub2 = fleet.client();
  v1::Job job = follow(*stub2, id);
  EXPECT_EQ(job.state(), v1::DONE) << job.message() << fleet.tracker().output();
  ASSERT_EQ(job.workloads_size(), 1);
  EXPECT_EQ(job.workloads(0).trials_done(), 40);
  EXPECT_EQ(measured_once(fleet.db(), id), 40u);
  // The boards came back on their own.
  EXPECT_NE(fleet.board(0).output().find("lost the tracker"), std::string::npos);
}

TEST(FleetJobs, FiftyWatchersFollowOneJobToItsEnd) {
  Fleet fleet("watchers");
  fleet.start_tracker();
  fleet.start_board("test-x86");
  auto stub = fleet.client();
  const int64_t id = submit(*stub, dense_job("test-x86", {128, 128, 128}, 24));
  std::atomic<int> saw_done{0}, saw_progress{0};
  std::vector<std::thread> watchers;
  for (int i = 0; i < 50; ++i) {
    watchers.emplace_back([&] {
      auto ctx = context("", 300);
      v1::GetJobRequest req;
      req.set_job_id(id);
      auto reader = stub->WatchJob(ctx.get(), req);
      v1::Job job;
      int events = 0;
      while (reader->Read(&job)) ++events;
      if (reader->Finish().ok() && job.state() == v1::DONE) ++saw_done;
      if (events >= 2) ++saw_progress;
    });
  }
  for (auto& t : watchers) t.join();
  EXPECT_EQ(saw_done.load(), 50);
  EXPECT_EQ(saw_progress.load(), 50);
  EXPECT_EQ(measured_once(fleet.db(), id), 24u);
}

TEST(FleetJobs, MalformedJobsAreRefusedNamingTheField) {
  Fleet fleet("malformed");
  fleet.start_tracker();
  fleet.start_board("test-x86");
  auto stub = fleet.client();
  struct Case {
    std::string what;
    v1::SubmitJobRequest req;
    std::string field;
  };
  std::vector<Case> cases;
  auto with_spec = [&](const std::string& what, v1::JobSpec spec, const std::string& field) {
    Case c{what, {}, field};
    *c.req.mutable_spec() = spec;
    cases.push_back(c);
  };
  auto with_json = [&](const std::string& what, const std::string& text, const std::string& field) {
    Case c{what, {}, field};
    c.req.set_spec_json(text);
    cases.push_back(c);
  };
  v1::JobSpec ok = dense_job("test-x86", {64, 64, 64}, 8);
  v1::JobSpec s = ok;
  s.mutable_workloads(0)->set_op("conv9");
  with_spec("unknown op", s, "workloads[0].op");
  s = ok;
  s.mutable_workloads(0)->set_shape(1, 0);
  with_spec("zero extent", s, "workloads[0].shape");
  s = ok;
  s.mutable_workloads(0)->set_shape(0, -3);
  with_spec("negative extent", s, "workloads[0].shape");
  s = ok;
  for (int d = 0; d < 3; ++d) s.mutable_workloads(0)->set_shape(d, 1 << 20);
  with_spec("huge extents", s, "workloads[0].shape");
  s = ok;
  s.set_trials(0);
  with_spec("zero trials", s, "trials");
  s = ok;
  s.set_trials(-5);
  with_spec("negative trials", s, "trials");
  s = ok;
  s.set_device_key("no-such-key");
  with_spec("unknown key", s, "key");
  s = ok;
  s.set_tuner("annealer");
  with_spec("unknown tuner", s, "tuner");
  s = ok;
  s.add_groups(1);
  s.add_groups(1);
  with_spec("more groups than workloads", s, "groups");
  s = ok;
  s.add_groups(5);
  with_spec("a group number past the workloads", s, "workloads[0].group");
  with_json("a negative group",
            R"({"workloads": [{"op": "dense", "shape": [64, 64, 64], "group": -2}], "key": "test-x86", "trials": 4})",
            "workloads[0].group");
  with_json("garbage JSON", "{\"workloads\": [ {op: dense", "not JSON");
  with_json("a string extent",
            R"({"workloads": [{"op": "dense", "shape": [64, "x", 64]}], "key": "test-x86", "trials": 4})",
            "workloads[0].shape[1]");
  with_json("a misspelt field", R"({"workloadz": [], "key": "test-x86"})", "workloadz");
  for (const auto& c : cases) {
    v1::Job job;
    auto ctx = context();
    grpc::Status st = stub->SubmitJob(ctx.get(), c.req, &job);
    EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << c.what << ": " << st.error_message();
    EXPECT_NE(st.error_message().find(c.field), std::string::npos) << c.what << ": " << st.error_message();
  }
  // Nothing was queued.
  v1::ListJobsResponse jobs;
  auto ctx = context();
  ASSERT_TRUE(stub->ListJobs(ctx.get(), v1::ListJobsRequest(), &jobs).ok());
  EXPECT_EQ(jobs.jobs_size(), 0);
}

TEST(FleetJobs, AJobForAKeyWithNoBoardWaitsAndSaysSoThenRuns) {
  Fleet fleet("waiting");
  fleet.start_tracker();
  // A board of the key registered once, so the key is known; then it leaves.
  Process& first = fleet.start_board("test-x86");
  first.kill(SIGTERM);
  EXPECT_EQ(first.wait_exit(std::chrono::seconds(20)), 0) << first.output();
  auto stub = fleet.client();
  ASSERT_TRUE(eventually([&] {
    v1::ListDevicesResponse d;
    auto ctx = context();
    return stub->ListDevices(ctx.get(), v1::ListDevicesRequest(), &d).ok() && d.devices_size() == 0;
  }));
  const int64_t id = submit(*stub, dense_job("test-x86", {64, 64, 64}, 6));
  v1::Job job;
  v1::GetJobRequest req;
  req.set_job_id(id);
  auto ctx = context();
  ASSERT_TRUE(stub->GetJob(ctx.get(), req, &job).ok());
  EXPECT_EQ(job.state(), v1::QUEUED);
  EXPECT_NE(job.message().find("waiting for a board with key 'test-x86'"), std::string::npos) << job.message();
  fleet.start_board("test-x86");
  job = follow(*stub, id);
  EXPECT_EQ(job.state(), v1::DONE) << job.message();
  EXPECT_EQ(measured_once(fleet.db(), id), 6u);
}

}  // namespace
}  // namespace tf::fleet_test
