#include "tracker/metrics.h"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace tf::tracker {
namespace {

// A label value as the exposition format wants it: backslash, double quote and newline escaped.
std::string label(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string number(double v) {
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

void header(std::ostringstream& out, const char* name, const char* type, const char* help) {
  out << "# HELP " << name << " " << help << "\n# TYPE " << name << " " << type << "\n";
}

}  // namespace

const std::vector<double>& Metrics::latency_buckets() {
  static const std::vector<double> bounds = {0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};
  return bounds;
}

void Metrics::dispatched(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  ++dispatched_[key];
}

void Metrics::answered(const std::string& key, const std::string& outcome, double seconds) {
  std::lock_guard<std::mutex> lock(mu_);
  ++answers_[{key, outcome}];
  if (!(seconds >= 0) || !std::isfinite(seconds)) return;
  Histogram& h = latency_[key];
  const auto& bounds = latency_buckets();
  if (h.counts.empty()) h.counts.assign(bounds.size() + 1, 0);
  size_t b = 0;
  while (b < bounds.size() && seconds > bounds[b]) ++b;
  ++h.counts[b];
  h.sum += seconds;
  ++h.count;
}

std::string Metrics::exposition(const Gauges& g) const {
  std::ostringstream out;
  header(out, "tunefarm_boards", "gauge", "Boards connected, by device key and state (idle, busy, draining).");
  for (const auto& [ks, n] : g.boards)
    out << "tunefarm_boards{key=\"" << label(ks.first) << "\",state=\"" << label(ks.second) << "\"} " << n << "\n";
  header(out, "tunefarm_queue_depth", "gauge", "Work items waiting for a board, by device key.");
  for (const auto& [key, n] : g.queued) out << "tunefarm_queue_depth{key=\"" << label(key) << "\"} " << n << "\n";
  header(out, "tunefarm_jobs", "gauge", "Tuning jobs by state.");
  for (const auto& [state, n] : g.jobs) out << "tunefarm_jobs{state=\"" << label(state) << "\"} " << n << "\n";
  header(out, "tunefarm_db_bytes", "gauge", "Size of the tuning database with its write-ahead log, in bytes.");
  out << "tunefarm_db_bytes " << g.db_bytes << "\n";

  std::lock_guard<std::mutex> lock(mu_);
  header(out, "tunefarm_dispatches_total", "counter", "Work items sent to boards, by device key.");
  for (const auto& [key, n] : dispatched_)
    out << "tunefarm_dispatches_total{key=\"" << label(key) << "\"} " << n << "\n";
  header(
      out, "tunefarm_results_total", "counter",
      "Work items answered, by device key and outcome (ok, compile_error, runtime_error, timeout, wrong_answer, lost).");
  for (const auto& [ko, n] : answers_) {
    out << "tunefarm_results_total{key=\"" << label(ko.first) << "\",outcome=\"" << label(ko.second) << "\"} " << n
        << "\n";
  }
  header(out, "tunefarm_measurement_seconds", "histogram",
         "From sending a work item to its board's answer, by device key.");
  const auto& bounds = latency_buckets();
  for (const auto& [key, h] : latency_) {
    int64_t cumulative = 0;
    for (size_t b = 0; b <= bounds.size(); ++b) {
      cumulative += h.counts[b];
      out << "tunefarm_measurement_seconds_bucket{key=\"" << label(key) << "\",le=\""
          << number(b < bounds.size() ? bounds[b] : INFINITY) << "\"} " << cumulative << "\n";
    }
    out << "tunefarm_measurement_seconds_sum{key=\"" << label(key) << "\"} " << number(h.sum) << "\n";
    out << "tunefarm_measurement_seconds_count{key=\"" << label(key) << "\"} " << h.count << "\n";
  }
  return out.str();
}

}  // namespace tf::tracker
