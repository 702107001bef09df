#include "support/call_timer.h"

#include <algorithm>
#include <chrono>
#include <cstdint>

namespace tf {

std::vector<double> time_calls(const std::function<void()>& call, double min_ms, int repeat) {
  using clock = std::chrono::steady_clock;
  call();  // warm-up: page faults, thread pool start
  int64_t number = 1;
  for (;;) {
    auto t0 = clock::now();
    for (int64_t i = 0; i < number; ++i) call();
    const double ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
    if (ms >= min_ms || number >= (int64_t{1} << 30)) break;
    number = ms <= 0 ? number * 10 : std::max(number + 1, static_cast<int64_t>(number * min_ms * 1.2 / ms));
  }
  std::vector<double> seconds;
  seconds.reserve(static_cast<size_t>(std::max(repeat, 0)));
  for (int r = 0; r < repeat; ++r) {
    auto t0 = clock::now();
    for (int64_t i = 0; i < number; ++i) call();
    seconds.push_back(std::chrono::duration<double>(clock::now() - t0).count() / static_cast<double>(number));
  }
  return seconds;
}

}  // namespace tf
