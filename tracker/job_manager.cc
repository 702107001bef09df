#include "tracker/job_manager.h"

#include <algorithm>
#include <map>

#include "compiler/compiler.h"
#include "compiler/error.h"
#include "proto/json_convert.h"
#include "proto/measure_wire.h"
#include "support/workload_key.h"
#include "tracker/fleet_measurer.h"
#include "tracker/job_run.h"
#include "tracker/job_spec.h"
#include "tuner/legacy_host_target.h"
#include "tuner/tune_job.h"

namespace tf::tracker {

namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kSpecsKept = 20000;

bool active(v1::JobState s) { return s == v1::QUEUED || s == v1::RUNNING; }

std::string waiting_message(const std::string& key) {
  return "waiting for a board with key '" + key + "' (none connected)";
}

Json progress_to_json(const v1::Job& job) {
  Json o = Json::object();
  o["workloads"] = Json::array();
  for (const auto& p : job.workloads()) o["workloads"].push_back(fleet::workload_progress_to_json(p));
  o["message"] = job.message();
  o["elapsed_s"] = job.elapsed_s();
  if (!job.spec().scheduler().empty()) o["estimated_ms"] = job.estimated_ms();
  if (job.time_limit_reached()) o["time_limit_reached"] = true;
  return o;
}

// The stored progress of a job, read back leniently: a field that is missing keeps its default.
void progress_from_json(const Json& o, v1::Job* job) {
  if (!o.is_object()) return;
  if (auto m = o.find("message"); m != o.end() && m->is_string()) job->set_message(m->get<std::string>());
  if (auto e = o.find("elapsed_s"); e != o.end() && e->is_number()) job->set_elapsed_s(e->get<double>());
  if (auto e = o.find("estimated_ms"); e != o.end() && e->is_number()) job->set_estimated_ms(e->get<double>());
  if (auto t = o.find("time_limit_reached"); t != o.end() && t->is_boolean())
    job->set_time_limit_reached(t->get<bool>());
  const auto ws = o.find("workloads");
  if (ws == o.end() || !ws->is_array()) return;
  for (size_t i = 0; i < ws->size() && static_cast<int>(i) < job->workloads_size(); ++i) {
    const Json& w = (*ws)[i];
    if (!w.is_object()) continue;
    auto* p = job->mutable_workloads(static_cast<int>(i));
    auto num = [&](const char* k) -> const Json* {
      const auto v = w.find(k);
      return v != w.end() && v->is_number() ? &*v : nullptr;
    };
    if (auto v = w.find("state"); v != w.end() && v->is_string()) p->set_state(v->get<std::string>());
    if (const auto* v = num("trials")) p->set_trials(v->get<int64_t>());
    if (const auto* v = num("trials_done")) p->set_trials_done(v->get<int64_t>());
    if (const auto* v = num("ok")) p->set_ok(v->get<int64_t>());
    if (const auto* v = num("failed")) p->set_failed(v->get<int64_t>());
    if (const auto* v = num("best_gflops")) p->set_best_gflops(v->get<double>());
    if (auto v = w.find("best_config"); v != w.end())
      p->set_best_config_json(v->is_string() ? v->get<std::string>() : v->dump());
  }
}

void init_progress(v1::Job* job) {
  job->clear_workloads();
  for (const auto& w : job->spec().workloads()) {
    auto* p = job->add_workloads();
    *p->mutable_workload() = w;
    p->set_workload_key(workload_key(w.op(), {w.shape().begin(), w.shape().end()}, w.dtype()));
    // A scheduled job's workloads get what the scheduler gives them: their trials grow as they go.
    p->set_trials(job->spec().scheduler().empty() ? job->spec().trials() : 0);
    p->set_state("queued");
  }
}

// A job's progress is stored at most once a second, while each measurement is committed as it
// comes: after a kill the db can hold trials the stored progress does not show yet. A resumed job
// counts them from the measurements, so a job cancelled before tune() replays them reports what
// the db holds.
void count_stored_trials(db::Database& db, v1::Job* job) {
  std::map<std::string, std::pair<int64_t, int64_t>> ok_and_failed;
  for (const auto& m : db.job_measurements(job->id())) {
    auto& counts = ok_and_failed[m.workload_key()];
    ++(m.outcome == db::Outcome::Ok ? counts.first : counts.second);
  }
  for (auto& p : *job->mutable_workloads()) {
    const auto it = ok_and_failed.find(p.workload_key());
    const auto [ok, failed] = it == ok_and_failed.end() ? std::pair<int64_t, int64_t>{0, 0} : it->second;
    p.set_ok(ok);
    p.set_failed(failed);
    p.set_trials_done(ok + failed);
  }
}

}  // namespace

JobManager::JobManager(std::string db_path, Dispatcher& dispatcher, tuner::Builder& builder, int max_jobs_per_client)
    : db_path_(std::move(db_path)),
      max_jobs_per_client_(max_jobs_per_client),
      dispatcher_(dispatcher),
      builder_(builder),
      db_(db_path_) {}

int JobManager::unfinished_jobs_of(const std::string& owner) {
  std::lock_guard<std::mutex> lock(mu_);
  int n = 0;
  for (const auto& [id, run] : runs_) n += !run->finished && run->job.owner() == owner;
  return n;
}

JobManager::~JobManager() { shutdown(); }

void JobManager::persist(db::Database& db, const std::shared_ptr<Run>& run, bool force) {
  const auto now = Clock::now();
  if (!force && now - run->persisted < std::chrono::seconds(1)) return;
  run->persisted = now;
  v1::Job snapshot;
  {
    std::lock_guard<std::mutex> lock(mu_);
    snapshot = run->job;
  }
  db.update_job(snapshot.id(), fleet::job_state_name(snapshot.state()), progress_to_json(snapshot));
}

bool JobManager::key_known(const std::string& key) {
  if (dispatcher_.boards_of_key(key) > 0) return true;
  std::lock_guard<std::mutex> lock(db_mu_);
  return db_.known_device_key(key);
}

grpc::Status JobManager::submit(v1::JobSpec spec, const Principal& who, v1::Job* out) {
  grpc::Status ok = check_job_spec(&spec, [this](const std::string& k) { return key_known(k); });
  if (!ok.ok()) return ok;
  std::lock_guard<std::mutex> one_at_a_time(submit_mu_);
  if (const int n = unfinished_jobs_of(who.name); n >= max_jobs_per_client_) {
    return grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                        "'" + who.name + "' has " + std::to_string(n) +
                            " unfinished jobs, the tracker's limit per client "
                            "(--max-jobs-per-client); cancel one or wait for one to end");
  }
  auto run = std::make_shared<Run>();
  run->job.set_state(v1::QUEUED);
  *run->job.mutable_spec() = spec;
  run->job.set_owner(who.name);
  init_progress(&run->job);
  if (dispatcher_.boards_of_key(spec.device_key()) == 0) run->job.set_message(waiting_message(spec.device_key()));
  {
    std::lock_guard<std::mutex> lock(db_mu_);
    run->job.set_id(db_.create_job(fleet::job_spec_to_json(spec), who.name, "queued"));
    db_.update_job(run->job.id(), "queued", progress_to_json(run->job));
  }
  run->job.set_created_ms(db::now_ms());
  run->job.set_updated_ms(run->job.created_ms());
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (shutting_down_)
      return grpc::Status(grpc::StatusCode::UNAVAILABLE, "the tracker is shutting down; the job is queued in its db");
    *out = run->job;
  }
  start(run);
  return grpc::Status::OK;
}

int JobManager::resume_unfinished() {
  std::vector<db::Job> unfinished;
  {
    std::lock_guard<std::mutex> lock(db_mu_);
    for (auto& j : db_.jobs()) {
      // Jobs of `tunefarm tune` live in the same db; only the tracker's own (a spec with
      // workloads) are resumed here.
      if ((j.state == "queued" || j.state == "running") && j.spec.contains("workloads")) unfinished.push_back(j);
    }
  }
  int started = 0;
  for (const auto& listed : unfinished) {
    // Each job on a connection of its own, which claims it: another tracker on a shared db may run
    // it, and one that ended it meanwhile leaves it finished.
    auto own = std::make_unique<db::Database>(db_path_);
    if (!own->claim_job(listed.id)) continue;
    const std::optional<db::Job> j = own->job(listed.id);
    if (!j || (j->state != "queued" && j->state != "running")) continue;
    auto run = std::make_shared<Run>();
    run->job = from_db(*j);
    if (run->job.spec().workloads_size() == 0) continue;
    count_stored_trials(*own, &run->job);
    run->db = std::move(own);
    start(run);
    ++started;
  }
  return started;
}

void JobManager::start(std::shared_ptr<Run> run) {
  std::lock_guard<std::mutex> lock(mu_);
  runs_[run->job.id()] = run;
  run->thread = std::thread([this, run] { run_job(run); });
}

std::string JobManager::wait_for_target(const std::shared_ptr<Run>& run, const std::string& key) {
  // A job needs a board of its key: candidates are built for the boards' target.
  std::string target;
  while (!run->stop && (target = dispatcher_.target_of_key(key)).empty()) {
    // What the job says meanwhile ("waiting for a board ...") is tick()'s to keep.
    std::unique_lock<std::mutex> lock(mu_);
    changed_.wait_for(lock, std::chrono::milliseconds(200), [&] { return run->stop.load(); });
  }
  return target;
}

tuner::TuneOptions JobManager::tune_options(const std::shared_ptr<Run>& run, const v1::JobSpec& spec, int64_t id) {
  tuner::TuneOptions opts;
  opts.tuner = spec.tuner();
  opts.trials = spec.trials();
  opts.batch = spec.batch();
  opts.seed = spec.seed();
  opts.device_key = spec.device_key();
  opts.measure = fleet::from_wire(spec.measure());
  opts.builder = &builder_;
  opts.job_id = id;
  opts.resume = true;
  opts.stop = &run->stop;
  return opts;
}

// One workload after another, `trials` each.
void JobManager::run_in_turn(const std::shared_ptr<Run>& run, db::Database& db, const v1::JobSpec& spec, int64_t id) {
  const std::string& key = spec.device_key();
  // A resumed job shows its stored progress until tune() has replayed each workload's
  // measurements and reports the exact counts.
  for (int i = 0; i < spec.workloads_size() && !run->stop; ++i) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      const auto& p = run->job.workloads(i);
      if (p.state() == "done" || p.state() == "failed") continue;
    }
    const std::string target = wait_for_target(run, key);
    if (run->stop) break;
    const v1::Workload& w = spec.workloads(i);
    compiler::Task task(ops::Workload{w.op(), {w.shape().begin(), w.shape().end()}}, codegen::parse_target(target));
    FleetMeasurer measurer(dispatcher_, id, spec.priority(), key, task.workload());
    tuner::TuneOptions opts = tune_options(run, spec, id);
    opts.measurer = &measurer;
    const int64_t trials = std::min<int64_t>(spec.trials(), task.space().searchable_size());
    change(run, [&](v1::Job& j) {
      j.set_state(v1::RUNNING);
      j.set_message("");
      j.mutable_workloads(i)->set_state("running");
      j.mutable_workloads(i)->set_trials(trials);
    });
    persist(db, run, true);
    const auto workload_start = Clock::now();
    int64_t done_before = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_before = run->job.workloads(i).trials_done();
    }
    tuner::TuneResult r = tuner::tune(task, opts, &db, [&](const tuner::Progress& p) {
      if (p.outcome == "replayed") done_before = p.trial;  // measured before a restart
      change(run, [&](v1::Job& j) {
        auto* wp = j.mutable_workloads(i);
        wp->set_trials_done(p.trial);
        wp->set_ok(p.ok);
        wp->set_failed(p.failed);
        wp->set_best_gflops(p.best_gflops);
        if (!p.best_config.is_null()) wp->set_best_config_json(p.best_config.dump());
        const double elapsed = std::chrono::duration<double>(Clock::now() - run->started).count();
        j.set_elapsed_s(elapsed);
        // The rate of this workload so far, applied to every trial left in the job.
        const double per_trial = std::chrono::duration<double>(Clock::now() - workload_start).count() /
                                 static_cast<double>(std::max<int64_t>(1, p.trial - done_before));
        int64_t left = 0;
        for (const auto& q : j.workloads()) left += std::max<int64_t>(0, q.trials() - q.trials_done());
        j.set_eta_s(per_trial * static_cast<double>(left));
      });
      persist(db, run, false);
    });
    change(run, [&](v1::Job& j) { set_outcome(j.mutable_workloads(i), r); });
    persist(db, run, true);
  }
}

void JobManager::set_outcome(v1::WorkloadProgress* wp, const tuner::TuneResult& r) {
  wp->set_trials_done(r.trials);
  wp->set_ok(r.ok);
  wp->set_failed(r.failed);
  wp->set_best_gflops(r.best_gflops);
  if (r.best) wp->set_best_config_json(r.best->config.dump());
  if (!r.stopped) wp->set_state(r.ok > 0 ? "done" : "failed");
}

void JobManager::run_job(const std::shared_ptr<Run>& run) {
  std::unique_ptr<db::Database> db;
  v1::JobSpec spec;
  int64_t id = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    spec = run->job.spec();
    id = run->job.id();
  }
  auto finish = [&](v1::JobState state, const std::string& message) {
    change(run, [&](v1::Job& j) {
      j.set_state(state);
      j.set_message(message);
      j.set_eta_s(0);
    });
    bool stored = false;
    if (db) {
      try {
        persist(*db, run, true);
        stored = true;
      } catch (const std::exception& e) {
        // The db says the job is unfinished, so the next start resumes it: its committed
        // measurements stay, and it ends again with the state it could not store now.
        std::fprintf(stderr, "tracker: job %lld ended but its state could not be stored: %s\n",
                     static_cast<long long>(run->job.id()), e.what());
      }
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      run->finished = true;
      run->final_state_stored = stored;
    }
    changed_.notify_all();
  };
  try {
    db = run->db ? std::move(run->db) : std::make_unique<db::Database>(db_path_);
    if (!db->claim_job(id)) {
      // A tracker that started on the same db a moment ago resumed it first: it runs there.
      std::lock_guard<std::mutex> lock(mu_);
      run->finished = true;
      run->final_state_stored = true;
      return;
    }
    tuner::alias_legacy_host_target(*db);
    if (spec.scheduler().empty())
      run_in_turn(run, *db, spec, id);
    else
      run_scheduled(run, *db, spec, id);
    if (run->cancelled) return finish(v1::CANCELLED, "cancelled");
    if (run->stop) {
      // The tracker is shutting down: the job stays unfinished in the db and resumes next start.
      std::lock_guard<std::mutex> lock(mu_);
      run->finished = true;
      return;
    }
    std::string failed;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (const auto& p : run->job.workloads()) {
        if (p.state() == "failed") failed += (failed.empty() ? "" : ", ") + p.workload_key();
      }
    }
    if (!failed.empty())
      return finish(v1::FAILED, "no candidate of " + failed + " measured correctly (see `tunefarm history`)");
    finish(v1::DONE, "");
  } catch (const std::exception& e) {
    finish(v1::FAILED, e.what());
  }
}

grpc::Status JobManager::get(int64_t id, v1::Job* out) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = runs_.find(id);
    if (it != runs_.end()) {
      *out = it->second->job;
      return grpc::Status::OK;
    }
  }
  std::optional<db::Job> j;
  {
    std::lock_guard<std::mutex> lock(db_mu_);
    j = db_.job(id);
  }
  if (!j) return grpc::Status(grpc::StatusCode::NOT_FOUND, "no job " + std::to_string(id));
  *out = from_db(*j);
  return grpc::Status::OK;
}

bool JobManager::wait_for_change(int64_t id, uint64_t* version, v1::Job* out, std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  auto it = runs_.find(id);
  if (it == runs_.end()) {
    lock.unlock();
    return get(id, out).ok();
  }
  auto run = it->second;
  changed_.wait_for(lock, timeout, [&] { return run->version != *version || shutting_down_; });
  *version = run->version;
  *out = run->job;
  return true;
}

grpc::Status JobManager::cancel(int64_t id, const Principal& who, v1::Job* out) {
  std::shared_ptr<Run> run;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = runs_.find(id);
    if (it != runs_.end()) run = it->second;
  }
  if (!run) {
    grpc::Status s = get(id, out);
    if (!s.ok()) return s;
    return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                        "job " + std::to_string(id) + " is " + fleet::job_state_name(out->state()) + " already");
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (who.role != fleet::Role::Admin && run->job.owner() != who.name) {
      return grpc::Status(
          grpc::StatusCode::PERMISSION_DENIED,
          "job " + std::to_string(id) + " belongs to '" + run->job.owner() + "'; only it or an admin may cancel it");
    }
    if (run->finished || !active(run->job.state())) {
      *out = run->job;
      return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                          "job " + std::to_string(id) + " is " + fleet::job_state_name(run->job.state()) + " already");
    }
    run->cancelled = true;
    run->stop = true;
  }
  dispatcher_.cancel_job(id);
  changed_.notify_all();
  // The job's thread records the end; wait for it briefly so the answer shows it, and for the end
  // to be stored, so a tracker killed right after the answer does not resume a cancelled job.
  uint64_t version = 0;
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  while (Clock::now() < deadline) {
    wait_for_change(id, &version, out, std::chrono::milliseconds(100));
    std::lock_guard<std::mutex> lock(mu_);
    if (!active(out->state()) && run->finished) break;
  }
  return grpc::Status::OK;
}

std::vector<v1::Job> JobManager::list(bool active_only, int limit) {
  std::vector<db::Job> stored;
  {
    std::lock_guard<std::mutex> lock(db_mu_);
    stored = db_.jobs();
  }
  // One read of the table; each job from memory when it runs here, else from its row.
  std::vector<v1::Job> out;
  for (auto it = stored.rbegin(); it != stored.rend() && static_cast<int>(out.size()) < limit; ++it) {
    v1::Job j;
    bool in_memory = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (auto r = runs_.find(it->id); r != runs_.end()) {
        j = r->second->job;
        in_memory = true;
      }
    }
    if (!in_memory) j = from_db(*it);
    if (active_only && !active(j.state())) continue;
    out.push_back(std::move(j));
  }
  return out;
}

void JobManager::forget_finished() {
  std::vector<std::shared_ptr<Run>> done;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = runs_.begin(); it != runs_.end();) {
      if (it->second->finished && it->second->final_state_stored) {
        done.push_back(it->second);
        it = runs_.erase(it);
      } else {
        ++it;
      }
    }
  }
  // Its thread has recorded the end and is returning.
  for (auto& r : done) {
    if (r->thread.joinable()) r->thread.join();
  }
}

size_t JobManager::jobs_in_memory() {
  std::lock_guard<std::mutex> lock(mu_);
  return runs_.size();
}

int64_t JobManager::specs_parsed() {
  std::lock_guard<std::mutex> lock(specs_mu_);
  return specs_parsed_;
}

void JobManager::tick() {
  forget_finished();
  std::vector<std::shared_ptr<Run>> runs;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [id, r] : runs_) {
      if (!r->finished) runs.push_back(r);
    }
  }
  for (auto& r : runs) {
    std::string key;
    std::string message;
    {
      std::lock_guard<std::mutex> lock(mu_);
      key = r->job.spec().device_key();
      message = r->job.message();
    }
    const bool waiting = dispatcher_.boards_of_key(key) == 0;
    if (waiting && message.empty()) change(r, [&](v1::Job& j) { j.set_message(waiting_message(key)); });
    if (!waiting && message == waiting_message(key)) change(r, [&](v1::Job& j) { j.set_message(""); });
  }
}

void JobManager::shutdown() {
  std::vector<std::shared_ptr<Run>> runs;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (shutting_down_ && runs_.empty()) return;
    shutting_down_ = true;
    for (auto& [id, r] : runs_) {
      r->stop = true;
      runs.push_back(r);
    }
  }
  changed_.notify_all();
  dispatcher_.shutdown();
  for (auto& r : runs) {
    if (r->thread.joinable()) r->thread.join();
  }
}

v1::Job JobManager::from_db(const db::Job& j) {
  v1::Job job;
  job.set_id(j.id);
  job.set_owner(j.owner);
  job.set_created_ms(j.created_ms);
  job.set_updated_ms(j.updated_ms);
  job.set_state(fleet::parse_job_state(j.state).value_or(v1::FAILED));
  *job.mutable_spec() = spec_of(j);
  init_progress(&job);
  progress_from_json(j.progress, &job);
  return job;
}

v1::JobSpec JobManager::spec_of(const db::Job& j) {
  {
    std::lock_guard<std::mutex> lock(specs_mu_);
    if (auto it = specs_.find(j.id); it != specs_.end()) return it->second;
  }
  v1::JobSpec parsed;
  try {
    parsed = fleet::job_spec_from_json(j.spec);
  } catch (const std::exception&) {
    // A job of `tunefarm tune` (one workload, measured on this host): shown in the same form.
    v1::JobSpec spec;
    auto* w = spec.add_workloads();
    const Json& s = j.spec;
    if (auto op = s.find("op"); op != s.end() && op->is_string()) w->set_op(op->get<std::string>());
    if (auto shape = s.find("shape"); shape != s.end() && shape->is_array()) {
      for (const auto& d : *shape) {
        if (d.is_number_integer()) w->add_shape(d.get<int64_t>());
      }
    }
    w->set_dtype("float32");
    if (auto t = s.find("trials"); t != s.end() && t->is_number_integer()) spec.set_trials(t->get<int64_t>());
    if (auto t = s.find("tuner"); t != s.end() && t->is_string()) spec.set_tuner(t->get<std::string>());
    spec.set_device_key("local");
    parsed = spec;
  }
  std::lock_guard<std::mutex> lock(specs_mu_);
  ++specs_parsed_;
  if (specs_.size() >= kSpecsKept) specs_.clear();  // a bound, however many jobs the db holds
  specs_.emplace(j.id, parsed);
  return parsed;
}

}  // namespace tf::tracker
