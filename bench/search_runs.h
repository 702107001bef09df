// Tuning runs as the search benchmarks make them: each in a database of its own (empty, or a copy
// of a farm's history), and the trials a run's best-so-far curve needed to reach a level.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "tuner/tune_job.h"

namespace tf::bench {

struct SearchRun {
  std::string tuner = "xgb";  // as make_tuner knows it: xgb, random, ga, grid
  int64_t trials = 300;
  uint64_t seed = 1;
  int threads = 1;
  double min_repeat_ms = 10;
  std::string db_path;        // removed first, with its -wal and -shm
  std::string start_db;       // copied to db_path first when given (history the run transfers from)
  bool seed_records = true;   // from the shipped seed records when the db holds no history
  bool default_first = true;  // xgb measures the template's default first
};

tuner::TuneResult run_search(const compiler::Task& task, const SearchRun& run);

// The 1-based trial at which `curve` first reaches `level`; one past the curve when it never does
// (a run that misses counts as needing more than its budget).
int64_t trials_to_reach(const std::vector<double>& curve, double level);

// Removes a SQLite file and its -wal and -shm companions.
void remove_db(const std::string& path);

}  // namespace tf::bench
