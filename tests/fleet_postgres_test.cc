// Several trackers on one PostgreSQL database, each with boards of its own, all real processes:
// they run a job each at once, answer the same best, and a tracker killed with kill -9 mid-job
// resumes its job when it starts again while the other's job runs on untouched.
#include <gtest/gtest.h>

#include <set>

#include "db/database.h"
#include "tests/fleet_harness.h"
#include "tests/postgres_server.h"

namespace tf::fleet_test {
namespace {

using testing_support::PostgresServer;

// The job's measurements, each config once: how many there are.
size_t pg_measured_once(const std::string& url, int64_t job_id) {
  db::Database db(url, db::Database::Open::ReadOnly);
  std::set<int64_t> configs;
  const auto ms = db.job_measurements(job_id);
  for (const auto& m : ms) {
    EXPECT_TRUE(configs.insert(m.config_index).second) << "job " << job_id << ": config " << m.config_index << " twice";
  }
  return ms.size();
}

v1::GetBestResponse pg_best_of(v1::Tuning::Stub& stub, const v1::Workload& w) {
  v1::GetBestRequest req;
  *req.mutable_workload() = w;
  req.set_device_key("test-x86");
  v1::GetBestResponse best;
  auto ctx = context();
  EXPECT_TRUE(stub.GetBest(ctx.get(), req, &best).ok());
  return best;
}

TEST(FleetPostgres, TwoTrackersRunAJobEachAndOneKilledMidJobResumesIt) {
  std::string why;
  PostgresServer* server = PostgresServer::get(&why);
  if (!server && PostgresServer::bin_dir().empty()) GTEST_SKIP() << why;
  ASSERT_NE(server, nullptr) << why;
  const std::string url = server->fresh_database("fleet");

  Fleet a("pg-a"), b("pg-b");
  a.use_db(url);
  b.use_db(url);
  a.start_tracker();
  b.start_tracker();
  for (Fleet* f : {&a, &b}) {
    f->start_board("test-x86");
    f->start_board("test-x86");
  }
  auto stub_a = a.client(), stub_b = b.client();
  constexpr int64_t kTrials = 32;
  const v1::JobSpec job_a = dense_job("test-x86", {128, 128, 128}, kTrials, "xgb");
  const v1::JobSpec job_b = dense_job("test-x86", {96, 128, 64}, kTrials);
  const int64_t id_a = submit(*stub_a, job_a), id_b = submit(*stub_b, job_b);
  ASSERT_NE(id_a, id_b) << "one id sequence for the shared db";

  ASSERT_TRUE(eventually([&] { return trials_done(*stub_a, id_a) >= 8; })) << a.tracker().output();
  a.kill_tracker();
  const size_t before = pg_measured_once(url, id_a);
  EXPECT_GE(before, 8u);
  EXPECT_LT(before, static_cast<size_t>(kTrials));
  a.start_tracker();
  // Its own job only: b runs the other, and holds it.
  EXPECT_NE(a.tracker().output().find("resumed 1 unfinished job"), std::string::npos) << a.tracker().output();

  auto stub_a2 = a.client();
  const v1::Job done_a = follow(*stub_a2, id_a), done_b = follow(*stub_b, id_b);
  EXPECT_EQ(done_a.state(), v1::DONE) << done_a.message() << a.tracker().output();
  EXPECT_EQ(done_b.state(), v1::DONE) << done_b.message() << b.tracker().output();
  ASSERT_EQ(done_a.workloads_size(), 1);
  EXPECT_EQ(done_a.workloads(0).trials_done(), kTrials);
  EXPECT_EQ(pg_measured_once(url, id_a), static_cast<size_t>(kTrials));
  EXPECT_EQ(pg_measured_once(url, id_b), static_cast<size_t>(kTrials));

  // Either tracker answers the best of either job's workload, and the same.
  for (const v1::JobSpec* spec : {&job_a, &job_b}) {
    const v1::GetBestResponse from_a = pg_best_of(*stub_a2, spec->workloads(0));
    const v1::GetBestResponse from_b = pg_best_of(*stub_b, spec->workloads(0));
    EXPECT_TRUE(from_a.found());
    EXPECT_EQ(from_a.config_json(), from_b.config_json());
    EXPECT_EQ(from_a.gflops(), from_b.gflops());
  }
  // Each tracker lists both jobs: one database.
  v1::ListJobsRequest list;
  v1::ListJobsResponse listed;
  auto ctx = context();
  ASSERT_TRUE(stub_b->ListJobs(ctx.get(), list, &listed).ok());
  EXPECT_EQ(listed.jobs_size(), 2);
}

}  // namespace
}  // namespace tf::fleet_test
