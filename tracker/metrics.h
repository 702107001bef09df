// What the tracker counts for the people who run a farm, in Prometheus's text exposition format
// (version 0.0.4): counters and a latency histogram the dispatcher updates as work items go out
// and come back, and gauges (boards, queues, jobs, db size) read when a scraper asks.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace tf::tracker {

class Metrics {
 public:
  // What a scrape reads from the tracker's state at that moment.
  struct Gauges {
    std::map<std::pair<std::string, std::string>, int64_t> boards;  // (key, state) -> boards
    std::map<std::string, int64_t> queued;                          // key -> items waiting for a board
    std::map<std::string, int64_t> jobs;                            // state -> jobs
    int64_t db_bytes = 0;
    // Builders (tracker/build_pool.h): each one's state and counters, and where builds went.
    struct Builder {
      std::string id, state;  // state: idle, busy, draining
      int64_t in_flight = 0, done = 0, failed = 0, bad_answers = 0;
      double builds_per_s = 0;
    };
    std::vector<Builder> builders;
    std::map<std::string, int64_t> builds;  // remote, here, cached -> builds started that way
    int64_t builds_reassigned = 0, build_queue = 0;
  };

  void dispatched(const std::string& key);
  // An item's answer: its outcome (ok, compile_error, runtime_error, timeout, wrong_answer, lost)
  // and, for a board's answer, the seconds from sending it to the answer.
  void answered(const std::string& key, const std::string& outcome, double seconds);

  std::string exposition(const Gauges& gauges) const;

  // The histogram's upper bounds, in seconds.
  static const std::vector<double>& latency_buckets();

 private:
  struct Histogram {
    std::vector<int64_t> counts;  // per bucket, not cumulative
    double sum = 0;
    int64_t count = 0;
  };
  mutable std::mutex mu_;
  std::map<std::string, int64_t> dispatched_;
  std::map<std::pair<std::string, std::string>, int64_t> answers_;
  std::map<std::string, Histogram> latency_;
};

}  // namespace tf::tracker
