#include "support/parallel_each.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

namespace tf {

size_t hardware_workers(size_t cap) {
  return std::clamp<size_t>(std::thread::hardware_concurrency(), 1, std::max<size_t>(cap, 1));
}

void parallel_each(size_t n, size_t workers, const std::function<void(size_t)>& fn) {
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex error_mutex;
  size_t error_index = n;
  std::exception_ptr error;
  // Checked before an index is taken, never after: every index below a failing one was taken
  // earlier and so runs, which makes the exception reported the same on every run.
  auto work = [&] {
    while (!failed.load()) {
      const size_t i = next++;
      if (i >= n) return;
      try {
        fn(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (i < error_index) {
          error_index = i;
          error = std::current_exception();
        }
        failed.store(true);
      }
    }
  };
  std::vector<std::future<void>> helpers;
  for (size_t w = 1; w < std::min(workers, n); ++w) helpers.push_back(std::async(std::launch::async, work));
  work();
  for (auto& h : helpers) h.get();
  if (error) std::rethrow_exception(error);
}

}  // namespace tf
