#include "bench/search_runs.h"

#include <cstdio>
#include <filesystem>

#include "db/database.h"

namespace tf::bench {

void remove_db(const std::string& path) {
  for (const char* suffix : {"", "-wal", "-shm"}) std::remove((path + suffix).c_str());
}

tuner::TuneResult run_search(const compiler::Task& task, const SearchRun& run) {
  remove_db(run.db_path);
  if (!run.start_db.empty()) std::filesystem::copy_file(run.start_db, run.db_path);
  db::Database db(run.db_path);
  tuner::TuneOptions o;
  o.tuner = run.tuner;
  o.trials = run.trials;
  o.seed = run.seed;
  o.threads = run.threads;
  o.device_key = tuner::local_device_key(run.threads);
  o.measure.min_repeat_ms = run.min_repeat_ms;
  o.measure.repeat = 3;
  o.seed_records = run.seed_records;
  o.default_first = run.default_first;
  return tuner::tune(task, o, &db);
}

int64_t trials_to_reach(const std::vector<double>& curve, double level) {
  for (size_t i = 0; i < curve.size(); ++i) {
    if (curve[i] >= level) return static_cast<int64_t>(i + 1);
  }
  return static_cast<int64_t>(curve.size()) + 1;
}

}  // namespace tf::bench
