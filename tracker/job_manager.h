// Tuning jobs as the tracker runs them: each job on its own thread runs the tuning loop
// (tuner/tune_job.h) once per workload, or, for a model's job with a scheduler, every workload
// under one budget (tuner/tune_tasks.h), with the tracker's builder pool and the boards of the
// job's key in place of a local worker. Every measurement goes to the db as it arrives, and the job's
// state and progress too, so a tracker killed at any moment resumes every unfinished job from the
// db when it starts again (the tuner relearns from the recorded measurements).
#pragma once

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "db/database.h"
#include "proto/tunefarm.pb.h"
#include "tracker/auth.h"
#include "tracker/dispatcher.h"
#include "tuner/builder.h"
#include "tuner/tune_job.h"

namespace tf::tracker {

class JobManager {
 public:
  JobManager(std::string db_path, Dispatcher& dispatcher, tuner::Builder& builder, int max_jobs_per_client = 64);
  ~JobManager();

  // Starts every job the db holds as queued or running that no other tracker on the same db runs
  // (db::Database::claim_job); returns how many.
  int resume_unfinished();
  // INVALID_ARGUMENT naming the field for a malformed spec; RESOURCE_EXHAUSTED when the caller
  // already has its limit of unfinished jobs.
  grpc::Status submit(v1::JobSpec spec, const Principal& who, v1::Job* out);
  grpc::Status get(int64_t id, v1::Job* out);
  // Blocks until the job changed since `*version` or `timeout` passed; false when there is no such job.
  bool wait_for_change(int64_t id, uint64_t* version, v1::Job* out, std::chrono::milliseconds timeout);
  // The job's owner or an admin may cancel it.
  grpc::Status cancel(int64_t id, const Principal& who, v1::Job* out);
  std::vector<v1::Job> list(bool active_only, int limit);
  // Refreshes what waiting jobs say ("no board with key ... connected") and forgets finished
  // jobs (their final state is in the db, where get and list find it); called periodically.
  void tick();
  // Jobs held in memory (running, or finished and not yet forgotten), and specs parsed from the
  // db so far: what tests check to see that finished jobs go and listing stays linear.
  size_t jobs_in_memory();
  int64_t specs_parsed();
  // Stops every job after its candidates in flight; unfinished jobs stay so in the db.
  void shutdown();

 private:
  struct Run;
  void start(std::shared_ptr<Run> run);
  void run_job(const std::shared_ptr<Run>& run);
  // The board's target once a board of `key` is connected; empty when the job was stopped first.
  std::string wait_for_target(const std::shared_ptr<Run>& run, const std::string& key);
  tuner::TuneOptions tune_options(const std::shared_ptr<Run>& run, const v1::JobSpec& spec, int64_t id);
  void run_in_turn(const std::shared_ptr<Run>& run, db::Database& db, const v1::JobSpec& spec, int64_t id);
  void run_scheduled(const std::shared_ptr<Run>& run, db::Database& db, const v1::JobSpec& spec, int64_t id);
  static void set_outcome(v1::WorkloadProgress* wp, const tuner::TuneResult& r);
  template <typename F>
  void change(const std::shared_ptr<Run>& run, F&& f);
  void persist(db::Database& db, const std::shared_ptr<Run>& run, bool force);
  v1::Job from_db(const db::Job& j);
  v1::JobSpec spec_of(const db::Job& j);
  void forget_finished();
  bool key_known(const std::string& key);
  int unfinished_jobs_of(const std::string& owner);

  std::string db_path_;
  int max_jobs_per_client_;
  std::mutex submit_mu_;  // one submit at a time: the per-client count and the new job agree
  Dispatcher& dispatcher_;
  tuner::Builder& builder_;
  std::mutex db_mu_;
  db::Database db_;  // for submit, get, list (job threads open their own connections)

  std::mutex mu_;
  std::condition_variable changed_;
  std::map<int64_t, std::shared_ptr<Run>> runs_;  // jobs running, or finished and not yet forgotten
  // A job's spec never changes: parsed once from its db row, then kept (guarded by specs_mu_).
  std::mutex specs_mu_;
  std::map<int64_t, v1::JobSpec> specs_;
  int64_t specs_parsed_ = 0;
  bool shutting_down_ = false;
};

}  // namespace tf::tracker
