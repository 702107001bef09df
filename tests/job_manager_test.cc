// The tracker's job manager on its own: finished jobs leave memory (the db keeps them, and get and
// list still show them), and listing reads the jobs table once, parsing each job's spec once.
#include <gtest/gtest.h>
#include <unistd.h>

#include "db/database.h"
#include "proto/json_convert.h"
#include "support/subprocess.h"
#include "tracker/job_manager.h"

namespace tf::tracker {
namespace {

v1::JobSpec small_job(const std::string& key) {
  v1::JobSpec spec;
  auto* w = spec.add_workloads();
  w->set_op("dense");
  for (int d : {16, 16, 16}) w->add_shape(d);
  spec.set_device_key(key);
  spec.set_trials(4);
  return spec;
}

class JobManagerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = testing::TempDir() + "job_manager_test." + std::to_string(::getpid()) + ".db";
    std::remove(path_.c_str());
    db::Database db(path_);
    db::DeviceRecord board;  // the key is known, and no board of it is connected: jobs wait
    board.device_key = "k";
    board.hostname = "h";
    board.target = "llvm";
    board.info = Json::object();
    db.record_device(board);
    for (int i = 0; i < 5; ++i) {
      const int64_t id = db.create_job(fleet::job_spec_to_json(small_job("k")), "alice", "done");
      db.update_job(id, "done", Json::object());
    }
  }
  void TearDown() override {
    for (const char* suffix : {"", "-wal", "-shm"}) std::remove((path_ + suffix).c_str());
  }
  std::string path_;
};

TEST_F(JobManagerTest, ListingParsesEachSpecOnce) {
  Dispatcher dispatcher;
  tuner::LocalBuilder builder(1);
  JobManager jobs(path_, dispatcher, builder);
  for (int round = 0; round < 3; ++round) {
    const std::vector<v1::Job> listed = jobs.list(false, 100);
    ASSERT_EQ(listed.size(), 5u);
    for (const auto& j : listed) {
      EXPECT_EQ(j.state(), v1::DONE);
      EXPECT_EQ(j.spec().device_key(), "k");
    }
  }
  EXPECT_EQ(jobs.specs_parsed(), 5) << "a spec parsed again for every listing, or for every job listed";
  jobs.shutdown();
}

TEST_F(JobManagerTest, AFinishedJobLeavesMemoryAndIsStillShown) {
  Dispatcher dispatcher;
  tuner::LocalBuilder builder(1);
  JobManager jobs(path_, dispatcher, builder);
  Principal alice{"alice", fleet::Role::Client};
  v1::Job job;
  ASSERT_TRUE(jobs.submit(small_job("k"), alice, &job).ok());
  EXPECT_EQ(jobs.jobs_in_memory(), 1u);
  ASSERT_TRUE(jobs.cancel(job.id(), alice, &job).ok());
  EXPECT_EQ(job.state(), v1::CANCELLED);
  ASSERT_TRUE(poll_until(
      [&] {
        jobs.tick();
        return jobs.jobs_in_memory() == 0;
      },
      std::chrono::seconds(10)))
      << "a finished job stays in memory";
  v1::Job again;
  ASSERT_TRUE(jobs.get(job.id(), &again).ok());
  EXPECT_EQ(again.state(), v1::CANCELLED);
  EXPECT_EQ(again.message(), "cancelled");
  const std::vector<v1::Job> listed = jobs.list(false, 100);
  ASSERT_EQ(listed.size(), 6u);
  EXPECT_EQ(listed.front().id(), job.id());
  EXPECT_EQ(listed.front().state(), v1::CANCELLED);
  EXPECT_EQ(jobs.cancel(job.id(), alice, &again).error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  jobs.shutdown();
}

// Progress is stored at most once a second while each measurement is committed at once: a tracker
// killed in between leaves trials the stored progress does not show. The resumed job reports what
// the db holds, even when it is cancelled before it measures again.
TEST_F(JobManagerTest, AResumedJobCountsTheTrialsItsDbHolds) {
  int64_t id = 0;
  {
    db::Database db(path_);
    id = db.create_job(fleet::job_spec_to_json(small_job("k")), "alice", "running");
    db.update_job(id, "running", Json::object());  // the progress of before its first trial
    for (int i = 0; i < 3; ++i) {
      db::Measurement m;
      m.op = "dense";
      m.shape = {16, 16, 16};
      m.target = "llvm";
      m.device_key = "k";
      m.config = Json{{"tile", i}};
      m.config_index = i;
      m.costs = {1e-6};
      m.outcome = i == 2 ? db::Outcome::RuntimeError : db::Outcome::Ok;
      m.job_id = id;
      ASSERT_TRUE(db.record(m));
    }
  }
  Dispatcher dispatcher;
  tuner::LocalBuilder builder(1);
  JobManager jobs(path_, dispatcher, builder);
  ASSERT_EQ(jobs.resume_unfinished(), 1);
  v1::Job job;
  ASSERT_TRUE(jobs.cancel(id, Principal{"alice", fleet::Role::Client}, &job).ok());
  EXPECT_EQ(job.state(), v1::CANCELLED);
  ASSERT_EQ(job.workloads_size(), 1);
  EXPECT_EQ(job.workloads(0).trials_done(), 3);
  EXPECT_EQ(job.workloads(0).ok(), 2);
  EXPECT_EQ(job.workloads(0).failed(), 1);
  jobs.shutdown();
}

}  // namespace
}  // namespace tf::tracker
