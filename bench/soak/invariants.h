// The soak's invariants, checked after the drain: every job ended, every trial is in the db exactly
// once and as often as its job reports, the tracker answered every well-formed request and refused
// every malformed one clearly, nothing crashed but by our hand, and memory and open files stayed
// flat over each long enough process lifetime.
#pragma once

#include <string>
#include <vector>

#include "bench/soak/clients.h"
#include "bench/soak/processes.h"
#include "bench/soak/report.h"

namespace tf::soak {

// Reads the tracker's SQLite file directly (read-only; the tracker is stopped by then).
void check_jobs_and_trials(const std::string& db_path, const std::map<int64_t, TrackedJob>& jobs, Findings* out);
void check_requests(const Tally& tally, Findings* out);
void check_resources(const std::vector<Member*>& members, Findings* out);

// A lifetime's early (warmed-up) and last windows; false when it is too short to judge.
struct Windows {
  double warm_from_s = 0, warm_to_s = 0, last_from_s = 0;
  double warm_rss_kb = 0, last_rss_kb = 0;  // medians
  int warm_fds = 0, last_fds = 0;           // maxima
};
bool windows_of(const Lifetime& l, Windows* out);

}  // namespace tf::soak
