#include "bench/soak/invariants.h"

#include <algorithm>
#include <map>

#include "db/connection.h"
#include "proto/json_convert.h"
#include "support/stats.h"

namespace tf::soak {

namespace {

// A lifetime shorter than this says nothing about growth: its warm-up is most of it.
constexpr double kShortestJudged_s = 45;

// Memory: what a tracker holds grows for reasons that are not leaks and that level off — SQLite's
// page cache, a malloc arena per thread that ran a job or served a call, and the build cache of
// compiled candidates, which fills towards its bound. The soak's tracker runs with a 32 MB cache
// (--build-cache-mb) so that it is full early; comparing the warmed-up window (not the first
// sample) with the last, a quarter more plus 48 MB absorbs the rest, while a leak that grows with
// every job or trial exceeds it within minutes.
constexpr double kRssGrowth = 1.25;
constexpr double kRssSlack_kb = 48 * 1024;
// Files: each running job holds its own db connection (file, WAL, shared memory), each board and
// client a connection, the dashboard up to 64; which of them are open when a sample is read is
// chance. 32 over the warm window's largest count is more than that noise and less than a leak of
// one descriptor per job or per board reconnect over a soak.
constexpr int kFdSlack = 32;
// A board holds its stream, its worker's pipes and the timing lock: little moves there.
constexpr int kBoardFdSlack = 8;

std::string job_label(int64_t id, const TrackedJob& j) { return "job " + std::to_string(id) + " (" + j.key + ")"; }

std::string state_name(v1::JobState s) { return fleet::job_state_name(s); }

// Rows of the measurements table per (job, workload key).
std::map<std::pair<int64_t, std::string>, int64_t> rows_per_workload(db::Connection& c) {
  std::map<std::pair<int64_t, std::string>, int64_t> out;
  db::Statement st(c,
                   "SELECT m.job_id, w.key, COUNT(*) FROM measurements m JOIN workloads w ON w.id = m.workload_id "
                   "WHERE m.job_id IS NOT NULL GROUP BY m.job_id, w.key");
  while (st.step()) out[{st.column_int(0), st.column_text(1)}] = st.column_int(2);
  return out;
}

// One config measured twice for one job: by its index, and by its knob values (an index the db
// leaves unset would slip past the unique index).
int64_t duplicate_rows(db::Connection& c, std::vector<std::string>* examples) {
  int64_t extra = 0;
  for (const char* by : {"config_index", "config"}) {
    db::Statement st(c, std::string("SELECT job_id, workload_id, ") + by +
                            ", COUNT(*) FROM measurements WHERE job_id IS NOT NULL "
                            "GROUP BY job_id, workload_id, " +
                            by + " HAVING COUNT(*) > 1");
    while (st.step()) {
      extra += st.column_int(3) - 1;
      if (examples->size() < 5) {
        examples->push_back("job " + std::to_string(st.column_int(0)) + " workload " +
                            std::to_string(st.column_int(1)) + " " + by + " " + st.column_text(2) + " x" +
                            std::to_string(st.column_int(3)));
      }
    }
  }
  return extra;
}

std::string db_state(db::Connection& c, int64_t id) {
  db::Statement st(c, "SELECT state FROM jobs WHERE id = ?");
  st.bind(1, id);
  return st.step() ? st.column_text(0) : "missing";
}

std::string first_few(const std::vector<std::string>& items, size_t n = 5) {
  std::string out;
  for (size_t i = 0; i < items.size() && i < n; ++i) out += (i ? "; " : "") + items[i];
  if (items.size() > n) out += "; and " + std::to_string(items.size() - n) + " more";
  return out;
}

}  // namespace

void check_jobs_and_trials(const std::string& db_path, const std::map<int64_t, TrackedJob>& jobs, Findings* out) {
  const auto conn = db::open_connection(db_path, db::Connection::Access::ReadOnly);
  db::Connection& c = *conn;
  const auto rows = rows_per_workload(c);
  std::vector<std::string> stuck, mismatched, duplicates;
  for (const auto& [id, j] : jobs) {
    ++out->jobs_by_state[state_name(j.state)];
    const std::string stored = db_state(c, id);
    if (!terminal(j.state) || (stored != "done" && stored != "failed" && stored != "cancelled")) {
      stuck.push_back(job_label(id, j) + " is " + state_name(j.state) + " (db: " + stored + "): " + j.last.message());
    } else if (j.state == v1::FAILED && j.last.message().empty()) {
      stuck.push_back(job_label(id, j) + " failed without a reason");
    }
    for (const auto& w : j.last.workloads()) {
      const auto r = rows.find({id, w.workload_key()});
      const int64_t recorded = r == rows.end() ? 0 : r->second;
      out->trials_recorded += recorded;
      out->trials_reported += w.trials_done();
      // A finished job reports what its db holds; a done one also ran every trial it asked for.
      const bool wrong = recorded != w.trials_done() || (j.state == v1::DONE && recorded != w.trials());
      if (wrong && terminal(j.state)) {
        ++out->count_mismatches;
        mismatched.push_back(job_label(id, j) + " " + w.workload_key() + ": reports " +
                             std::to_string(w.trials_done()) + " of " + std::to_string(w.trials()) + ", db holds " +
                             std::to_string(recorded));
      }
    }
  }
  out->duplicates = duplicate_rows(c, &duplicates);
  out->verdicts.push_back({"jobs_end", stuck.empty(),
                           stuck.empty()
                               ? std::to_string(jobs.size()) + " jobs, each done, cancelled or failed with a reason"
                               : std::to_string(stuck.size()) + " not ended: " + first_few(stuck)});
  std::string detail = std::to_string(out->trials_recorded) + " rows, " + std::to_string(out->duplicates) +
                       " duplicates, " + std::to_string(out->count_mismatches) + " workloads whose count differs";
  if (!duplicates.empty()) detail += "; duplicates: " + first_few(duplicates);
  if (!mismatched.empty()) detail += "; mismatches: " + first_few(mismatched);
  out->verdicts.push_back({"trials_once", out->duplicates == 0 && out->count_mismatches == 0, detail});
}

void check_requests(const Tally& tally, Findings* out) {
  const bool answered = tally.unanswered.empty();
  out->verdicts.push_back({"tracker_answers", answered && tally.unclear.empty(),
                           std::to_string(tally.well_formed_answered) + "/" + std::to_string(tally.well_formed) +
                               " well-formed answered, " + std::to_string(tally.malformed_clear) + "/" +
                               std::to_string(tally.malformed_sent) + " malformed refused clearly" +
                               (answered ? "" : "; unanswered: " + first_few(tally.unanswered)) +
                               (tally.unclear.empty() ? "" : "; unclear: " + first_few(tally.unclear))});
  std::vector<std::string> crashes;
  for (const auto& f : tally.process_faults) crashes.push_back(f.who + " " + f.what);
  out->verdicts.push_back(
      {"no_crashes", crashes.empty(), crashes.empty() ? "every exit was ours" : first_few(crashes)});
}

bool windows_of(const Lifetime& l, Windows* out) {
  if (l.samples.size() < 6) return false;
  const double start = l.samples.front().t_s, end = l.samples.back().t_s, span = end - start;
  if (span < kShortestJudged_s) return false;
  const double warmup = std::min(30.0, 0.25 * span), window = std::min(30.0, 0.2 * span);
  Windows w;
  w.warm_from_s = start + warmup;
  w.warm_to_s = w.warm_from_s + window;
  w.last_from_s = end - window;
  std::vector<double> warm_rss, last_rss;
  for (const Sample& s : l.samples) {
    if (s.t_s >= w.warm_from_s && s.t_s <= w.warm_to_s) {
      warm_rss.push_back(static_cast<double>(s.rss_kb));
      w.warm_fds = std::max(w.warm_fds, s.fds);
    }
    if (s.t_s >= w.last_from_s) {
      last_rss.push_back(static_cast<double>(s.rss_kb));
      w.last_fds = std::max(w.last_fds, s.fds);
    }
  }
  if (warm_rss.size() < 2 || last_rss.size() < 2) return false;
  w.warm_rss_kb = median(warm_rss);
  w.last_rss_kb = median(last_rss);
  *out = w;
  return true;
}

void check_resources(const std::vector<Member*>& members, Findings* out) {
  std::vector<std::string> rss_growth, fd_growth, judged;
  for (const Member* m : members) {
    const bool tracker = m->name() == "tracker";
    for (const Lifetime& l : m->lifetimes()) {
      Windows w;
      if (!windows_of(l, &w)) continue;
      const std::string who = l.name + "#" + std::to_string(l.index);
      judged.push_back(who);
      char line[200];
      if (tracker && w.last_rss_kb > w.warm_rss_kb * kRssGrowth + kRssSlack_kb) {
        std::snprintf(line, sizeof line, "%s: RSS %.0f MB -> %.0f MB", who.c_str(), w.warm_rss_kb / 1024,
                      w.last_rss_kb / 1024);
        rss_growth.push_back(line);
      }
      if (w.last_fds > w.warm_fds + (tracker ? kFdSlack : kBoardFdSlack)) {
        std::snprintf(line, sizeof line, "%s: %d -> %d open files", who.c_str(), w.warm_fds, w.last_fds);
        fd_growth.push_back(line);
      }
    }
  }
  const std::string seen =
      judged.empty() ? "no lifetime long enough to judge (45 s)" : "judged " + first_few(judged, 8);
  out->verdicts.push_back({"memory_flat", rss_growth.empty(), rss_growth.empty() ? seen : first_few(rss_growth)});
  out->verdicts.push_back({"fds_flat", fd_growth.empty(), fd_growth.empty() ? seen : first_few(fd_growth)});
}

}  // namespace tf::soak
