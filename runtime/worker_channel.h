// The parent's end of a measure worker's pipes: frames to its stdin, frames from its stdout and
// text from its stderr, all without blocking and under a deadline. A worker runs foreign code,
// which may stall mid-frame, claim a frame of gigabytes or flood its stderr: none of that may hold
// or grow the parent (a board) beyond the candidate's time limit and a small buffer.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace tf::runtime {

class WorkerChannel {
 public:
  using Clock = std::chrono::steady_clock;
  // Takes the three descriptors (the worker's stdin, stdout and stderr ends) and makes them
  // non-blocking.
  WorkerChannel(int to_worker, int from_worker, int errors_from_worker);
  ~WorkerChannel();
  WorkerChannel(const WorkerChannel&) = delete;
  WorkerChannel& operator=(const WorkerChannel&) = delete;

  enum class Outcome { Done, Timeout, Closed, Malformed };
  Outcome send(uint32_t kind, const std::vector<uint8_t>& payload, Clock::time_point deadline);
  // The next whole frame, at most `max_bytes` of payload (a larger one is Malformed, unread).
  Outcome receive(uint32_t* kind, std::vector<uint8_t>* payload, uint64_t max_bytes, Clock::time_point deadline);
  // What the worker wrote on stderr since the last call, the first kMaxErrorText bytes of it with
  // control characters escaped: fit for a trial's error message.
  std::string take_error_text();

  static constexpr size_t kMaxErrorText = 2048;

 private:
  bool wait(short events_on_main, int main_fd, Clock::time_point deadline);  // false at the deadline
  void drain_errors();

  int to_worker_, from_worker_, errors_;
  std::vector<uint8_t> inbox_;  // bytes read from stdout, not yet a whole frame
  std::string error_text_;
  bool errors_truncated_ = false;
};

}  // namespace tf::runtime
