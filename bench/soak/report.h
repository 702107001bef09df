// What a soak counts and concludes, and how it is shown: progress lines while it runs, a table at
// the end, and one JSON document (bench/results/soak.json, or stdout with --json).
#pragma once

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "bench/soak/processes.h"
#include "support/json.h"

namespace tf::soak {

// Counts kept while the soak runs.
struct Tally {
  std::map<std::string, int64_t> faults;     // by kind: "board kill -9", "tracker kill -9", ...
  std::map<std::string, int64_t> malformed;  // by kind of malformed request sent
  int64_t submitted = 0, cancel_requests = 0, refused_by_limit = 0;
  int64_t well_formed = 0, well_formed_answered = 0;
  int64_t malformed_sent = 0, malformed_clear = 0;
  std::vector<std::string> unanswered;       // well-formed requests that got no proper answer
  std::vector<std::string> unclear;          // malformed requests answered other than by a clear error
  std::vector<ProcessFault> process_faults;  // crashes and unclean exits we did not cause
};

// One invariant's verdict.
struct Verdict {
  std::string name;  // "jobs_end", "trials_once", "tracker_answers", "no_crashes", "memory_flat", "fds_flat"
  bool held = true;
  std::string detail;
};

// Counts the end-of-soak checks found.
struct Findings {
  std::map<std::string, int64_t> jobs_by_state;  // done, cancelled, failed, queued, running
  int64_t trials_recorded = 0, trials_reported = 0, duplicates = 0, count_mismatches = 0;
  std::vector<Verdict> verdicts;
  bool all_held() const;
};

struct RunInfo {
  double duration_s = 0, drain_s = 0, elapsed_s = 0;
  uint64_t seed = 0;
  int real_boards = 0, synthetic_boards = 0;
};

// "[  60 s] jobs 12 submitted, 5 done, 2 cancelled, 0 failed; 143 trials; kills: ..."
void print_progress(std::FILE* out, double t_s, const Tally& tally, const std::map<std::string, int64_t>& jobs_by_state,
                    int64_t trials);

Json soak_document(const RunInfo& run, const Tally& tally, const Findings& findings,
                   const std::vector<Member*>& members);
void print_table(std::FILE* out, const Json& doc);

}  // namespace tf::soak
