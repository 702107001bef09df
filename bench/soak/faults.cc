#include "bench/soak/faults.h"

#include <algorithm>

namespace tf::soak {

const char* action_name(Action a) {
  switch (a) {
    case Action::SubmitJob: return "submit";
    case Action::CancelJob: return "cancel";
    case Action::Malformed: return "malformed request";
    case Action::GarbageGrpc: return "garbage on the gRPC port";
    case Action::GarbageHttp: return "garbage on the HTTP port";
    case Action::BoardKill9: return "board kill -9";
    case Action::BoardTerm: return "board SIGTERM";
    case Action::SyntheticKill9: return "synthetic boards kill -9";
    case Action::TrackerKill9: return "tracker kill -9";
  }
  return "?";
}

double uniform(std::mt19937_64& rng, double lo, double hi) {
  const double unit = static_cast<double>(rng() >> 11) / static_cast<double>(uint64_t{1} << 53);
  return lo + (hi - lo) * unit;
}

namespace {

// Events of one action from `from_s` to `until_s`, each gap drawn from [mean/2, 3 mean/2). A short
// soak gets each at least about twice: the mean is at most half of it.
void every(std::vector<Event>& out, std::mt19937_64& rng, Action a, double mean_s, double from_s, double until_s) {
  mean_s = std::min(mean_s, (until_s - from_s) / 2);
  for (double t = from_s + uniform(rng, 0, mean_s); t < until_s; t += uniform(rng, 0.5 * mean_s, 1.5 * mean_s)) {
    out.push_back({t, a, rng()});
  }
}

}  // namespace

std::vector<Event> make_schedule(double duration_s, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Event> events;
  // Clients keep a few jobs going from the start; the first faults wait for them.
  events.push_back({0.5, Action::SubmitJob, rng()});
  events.push_back({1.0, Action::SubmitJob, rng()});
  every(events, rng, Action::SubmitJob, 4, 1, duration_s);
  every(events, rng, Action::CancelJob, 12, 5, duration_s);
  every(events, rng, Action::Malformed, 2.5, 2, duration_s);
  every(events, rng, Action::GarbageGrpc, 15, 3, duration_s);
  every(events, rng, Action::GarbageHttp, 15, 3, duration_s);
  every(events, rng, Action::BoardKill9, 25, 5, duration_s);
  every(events, rng, Action::BoardTerm, 35, 5, duration_s);
  every(events, rng, Action::SyntheticKill9, 40, 5, duration_s);
  // The tracker: early even in a short soak, then every 50-90 s (a fifth of a short soak) until 60%
  // of the duration.
  const double gap_s = std::min(50.0, 0.2 * duration_s);
  for (double t = duration_s * uniform(rng, 0.15, 0.3); t < 0.6 * duration_s; t += uniform(rng, gap_s, gap_s + 40)) {
    events.push_back({t, Action::TrackerKill9, rng()});
  }
  std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) { return a.at_s < b.at_s; });
  return events;
}

}  // namespace tf::soak
