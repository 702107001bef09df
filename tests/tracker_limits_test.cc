// What a tracker refuses, and how it fails without losing anything: too many unfinished jobs for one
// client, a request larger than its message limit, a db another process keeps locked, a db that
// cannot grow (a full disk, here a file-size limit put on the running tracker).
#include <sqlite3.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <fstream>

#include <gtest/gtest.h>

#include "proto/tokens.h"
#include "tests/fleet_harness.h"

namespace tf::fleet_test {
namespace {

grpc::Status try_submit(v1::Tuning::Stub& stub, const v1::JobSpec& spec, const std::string& token, v1::Job* job) {
  v1::SubmitJobRequest req;
  *req.mutable_spec() = spec;
  auto ctx = context(token, 30);
  return stub.SubmitJob(ctx.get(), req, job);
}

// A key the db knows whose boards are gone: its jobs wait, queued, for as long as a test needs.
void register_key_then_stop_its_board(Fleet& fleet, const std::string& key,
                                      const std::vector<std::string>& board_options = {}) {
  Process& board = fleet.start_board(key, board_options);
  board.kill(SIGKILL);
  board.wait_exit(std::chrono::seconds(10));
}

int64_t file_size(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? st.st_size : 0;
}

int64_t measurements_of_job(const std::string& db_path, int64_t job) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_busy_timeout(db, 20000);
  sqlite3_stmt* q = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM measurements WHERE job_id = ?", -1, &q, nullptr), SQLITE_OK);
  sqlite3_bind_int64(q, 1, job);
  int64_t n = -1;
  if (sqlite3_step(q) == SQLITE_ROW) n = sqlite3_column_int64(q, 0);
  sqlite3_finalize(q);
  sqlite3_close(db);
  return n;
}

TEST(TrackerLimits, UnfinishedJobsPerClientAreBounded) {
  Fleet fleet("limits-jobs");
  const std::string board = fleet::new_token_line(fleet::Role::Board, "board");
  const std::string alice = fleet::new_token_line(fleet::Role::Client, "alice");
  const std::string bob = fleet::new_token_line(fleet::Role::Client, "bob");
  const std::string tokens = fleet.dir() + "/tokens", board_file = fleet.dir() + "/board.token";
  std::ofstream(tokens) << board << "\n" << alice << "\n" << bob << "\n";
  std::ofstream(board_file) << board << "\n";
  fleet.start_tracker({"--token-file", tokens, "--max-jobs-per-client", "2"});
  register_key_then_stop_its_board(fleet, "away", {"--token-file", board_file});
  auto stub = fleet.client();
  const v1::JobSpec spec = dense_job("away", {16, 16, 16}, 4);

  v1::Job first, second, third;
  ASSERT_TRUE(try_submit(*stub, spec, token_of(alice), &first).ok());
  ASSERT_TRUE(try_submit(*stub, spec, token_of(alice), &second).ok());
  grpc::Status s = try_submit(*stub, spec, token_of(alice), &third);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << s.error_message();
  EXPECT_NE(s.error_message().find("'alice' has 2 unfinished jobs"), std::string::npos) << s.error_message();
  EXPECT_NE(s.error_message().find("--max-jobs-per-client"), std::string::npos) << s.error_message();
  // The limit is per client.
  EXPECT_TRUE(try_submit(*stub, spec, token_of(bob), &third).ok());
  // A job that ends makes room.
  v1::CancelJobRequest cancel;
  cancel.set_job_id(first.id());
  v1::Job cancelled;
  ASSERT_TRUE(stub->CancelJob(context(token_of(alice)).get(), cancel, &cancelled).ok());
  ASSERT_TRUE(
      eventually([&] { return try_submit(*stub, spec, token_of(alice), &third).ok(); }, std::chrono::seconds(20)));
}

TEST(TrackerLimits, ARequestOverTheMessageLimitIsRefusedUnread) {
  Fleet fleet("limits-message");
  fleet.start_tracker({"--max-message-mb", "1"});
  auto stub = fleet.client();
  v1::SubmitJobRequest req;
  req.set_spec_json(std::string(2 << 20, ' ') + "{}");
  v1::Job job;
  grpc::Status s = stub->SubmitJob(context().get(), req, &job);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << s.error_message();
  // The tracker goes on serving.
  v1::ListDevicesResponse devices;
  EXPECT_TRUE(stub->ListDevices(context().get(), v1::ListDevicesRequest(), &devices).ok());
}

TEST(TrackerLimits, ADatabaseLockedByAnotherProcessFailsTheCallNotTheTracker) {
  Fleet fleet("limits-locked");
  fleet.start_tracker();
  register_key_then_stop_its_board(fleet, "away");
  auto stub = fleet.client();
  const v1::JobSpec spec = dense_job("away", {16, 16, 16}, 4);

  // Another process (here: this one, with its own connection) holds the write lock.
  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open(fleet.db().c_str(), &other), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(other, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr), SQLITE_OK);
  v1::Job job;
  grpc::Status s = try_submit(*stub, spec, "", &job);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::UNAVAILABLE) << s.error_message();
  EXPECT_NE(s.error_message().find("holds its write lock"), std::string::npos) << s.error_message();
  ASSERT_EQ(sqlite3_exec(other, "COMMIT", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(other);

  // The lock gone, the same request succeeds, and nothing half-made was left behind.
  ASSERT_TRUE(try_submit(*stub, spec, "", &job).ok());
  v1::ListJobsRequest list;
  v1::ListJobsResponse jobs;
  ASSERT_TRUE(stub->ListJobs(context().get(), list, &jobs).ok());
  EXPECT_EQ(jobs.jobs_size(), 1);
}

// A measurement that cannot be recorded ends the job while candidates are still building for it:
// the builds must finish before the job goes away (on a loaded machine they once outlived it).
TEST(TrackerLimits, ADatabaseThatCannotGrowFailsTheJobAndLosesNoMeasurement) {
  Fleet fleet("limits-full");
  fleet.start_tracker();
  fleet.start_board("k");
  auto stub = fleet.client();
  // Every file the tracker writes may grow by little more than a few measurements' pages: a full
  // disk, as far as SQLite can tell.
  const rlim_t cap = static_cast<rlim_t>(std::max(file_size(fleet.db()), file_size(fleet.db() + "-wal")) + (96 << 10));
  const rlimit limit{cap, cap};
  ASSERT_EQ(::prlimit(fleet.tracker().pid(), RLIMIT_FSIZE, &limit, nullptr), 0) << std::strerror(errno);
  const int64_t trials = 300;
  const int64_t id = submit(*stub, dense_job("k", {64, 64, 64}, trials), "");
  const v1::Job failed = follow(*stub, id);
  EXPECT_EQ(failed.state(), v1::FAILED) << failed.message();
  EXPECT_NE(failed.message().find(fleet.db()), std::string::npos) << failed.message();
  EXPECT_TRUE(failed.message().find("File too large") != std::string::npos ||
              failed.message().find("reached a size limit") != std::string::npos)
      << failed.message();
  // The tracker lives on.
  v1::ListDevicesResponse devices;
  EXPECT_TRUE(stub->ListDevices(context().get(), v1::ListDevicesRequest(), &devices).ok());
  const int64_t stored = measurements_of_job(fleet.db(), id);
  EXPECT_GT(stored, 0);
  EXPECT_LT(stored, trials);

  // Started again with room, the tracker has every committed measurement and the job's end (or,
  // when even that could not be written, resumes the job); the same job submitted again runs.
  fleet.kill_tracker();
  fleet.tracker().wait_exit(std::chrono::seconds(10));
  fleet.start_tracker();
  const v1::Job again = follow(*stub, id);
  EXPECT_TRUE(again.state() == v1::FAILED || again.state() == v1::DONE) << again.message();
  EXPECT_GE(measurements_of_job(fleet.db(), id), stored);
  const int64_t next = submit(*stub, dense_job("k", {64, 64, 64}, 8), "");
  EXPECT_EQ(follow(*stub, next).state(), v1::DONE);
}

}  // namespace
}  // namespace tf::fleet_test
