// The soak's fault schedule: every fault and client action at a time drawn from the seed, so one
// seed gives one schedule (what the processes do in between is up to them). Faults stop at the end
// of the soak's duration; the drain that follows has none.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace tf::soak {

enum class Action {
  SubmitJob,       // a valid job of a few workloads and a few trials
  CancelJob,       // one of the jobs still running
  Malformed,       // an invalid request: bad spec, unknown or oversized field, wrong token...
  GarbageGrpc,     // bytes that are not HTTP/2 on the gRPC port
  GarbageHttp,     // bytes that are not HTTP on the dashboard's port, and refused requests
  BoardKill9,      // a real board, restarted a little later
  BoardTerm,       // a real board drains and exits 0, restarted a little later
  SyntheticKill9,  // the synthetic boards' process
  TrackerKill9,    // restarted at once on the same db and port
};
const char* action_name(Action a);

struct Event {
  double at_s = 0;
  Action action = Action::SubmitJob;
  uint64_t pick = 0;  // chooses among the action's variants (which board, which job, which request)
};

// The events of a soak of `duration_s`, in time order. The tracker is killed only in the first
// 60% so the last of its lifetimes is long enough to tell whether memory and files stay flat.
std::vector<Event> make_schedule(double duration_s, uint64_t seed);

// A portable draw (std:: distributions differ between standard libraries): [lo, hi).
double uniform(std::mt19937_64& rng, double lo, double hi);

}  // namespace tf::soak
