#include "proto/redial.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>

namespace tf::fleet {

int stay_connected(const std::string& who, const std::function<SessionEnd()>& session,
                   const std::atomic<bool>& stopping, std::mutex& mu, std::condition_variable& wake, int max_backoff_ms,
                   uint32_t seed) {
  std::mt19937 jitter(seed);
  int backoff_ms = 100;
  while (!stopping) {
    const SessionEnd end = session();
    if (end.fatal) {
      std::fprintf(stderr, "%s: the tracker refused this %s: %s\n", who.c_str(), who.c_str(), end.why.c_str());
      return 1;
    }
    if (stopping) break;
    if (end.registered) backoff_ms = 100;
    const int wait_ms = backoff_ms / 2 + static_cast<int>(jitter() % static_cast<uint32_t>(backoff_ms / 2 + 1));
    std::printf("%s: lost the tracker (%s); dialling again in %d ms\n", who.c_str(), end.why.c_str(), wait_ms);
    std::fflush(stdout);
    std::unique_lock<std::mutex> lock(mu);
    wake.wait_for(lock, std::chrono::milliseconds(wait_ms), [&] { return stopping.load(); });
    backoff_ms = std::min(max_backoff_ms, backoff_ms * 2);
  }
  return 0;
}

}  // namespace tf::fleet
