// A local `tunefarm tune` killed with kill -9 cannot mark its job finished; the next process that
// opens the database sees the job failed, saying its process died, instead of running forever.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <thread>

#include "db/database.h"

namespace tf::db {
namespace {

TEST(JobLiveness, AKilledLocalTuneLeavesItsJobFailedNotRunning) {
  const std::string path = testing::TempDir() + "tf_liveness_" + std::to_string(getpid()) + ".db";
  for (const char* suffix : {"", "-wal", "-shm"}) std::remove((path + suffix).c_str());
  { Database create(path); }
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const int devnull = ::open("/dev/null", O_WRONLY);
    ::dup2(devnull, STDOUT_FILENO);
    ::dup2(devnull, STDERR_FILENO);
    ::execl(TF_CLI, TF_CLI, "tune", "--op", "dense", "--shape", "32,48,40", "--trials", "100000", "--min-ms", "1",
            "--tuner", "random", "--no-timing-lock", "--db", path.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  // Wait until the tune has created its job and measured something.
  std::optional<Job> job;
  for (int i = 0; i < 600 && !job; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    Database db(path, Database::Open::ReadOnly);
    auto jobs = db.jobs();
    if (!jobs.empty() && db.count_measurements() > 0) job = jobs.front();
  }
  ASSERT_TRUE(job.has_value()) << "the tune never started a job";
  EXPECT_EQ(job->state, "running");
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);

  {
    Database reader(path, Database::Open::ReadOnly);
    auto seen = reader.job(job->id);
    ASSERT_TRUE(seen.has_value());
    EXPECT_EQ(seen->state, "failed");
  }
  Database db(path);  // a writer (the next tune) stores the verdict
  Statement q(db.connection(), "SELECT state, progress FROM jobs WHERE id = ?");
  q.bind(1, job->id);
  ASSERT_TRUE(q.step());
  EXPECT_EQ(q.column_text(0), "failed");
  EXPECT_NE(q.column_text(1).find("died"), std::string::npos) << q.column_text(1);

  // A job whose process is alive (this one) stays running.
  const int64_t mine = db.create_job(Json::object(), "me");
  Database other(path);
  EXPECT_EQ(other.job(mine)->state, "running");
}

}  // namespace
}  // namespace tf::db
