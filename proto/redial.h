// How a daemon that dials the tracker (a board, a builder) stays connected: one session after
// another, with a jittered exponential backoff between them (100 ms doubling to a limit, back to
// 100 ms after a session that registered), until it is told to stop or the tracker refuses it for
// good (a bad token, a wrong role, another version: dialling again would not help).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

namespace tf::fleet {

struct SessionEnd {
  bool registered = false;
  bool fatal = false;  // the tracker refused this daemon
  std::string why;
};

// Runs `session` until `stopping` (checked between sessions and while waiting; `wake` under `mu`
// cuts a wait short) or a fatal end. `who` ("board", "builder") starts its log lines. Returns the
// exit code: 1 after a fatal end, else 0.
int stay_connected(const std::string& who, const std::function<SessionEnd()>& session,
                   const std::atomic<bool>& stopping, std::mutex& mu, std::condition_variable& wake, int max_backoff_ms,
                   uint32_t seed);

// The session running now, for the threads that must reach it (the signal thread tells it to
// drain): `current` points at `session`, under `mu`, for as long as this lives.
template <typename Session>
class CurrentSession {
 public:
  CurrentSession(Session*& current, std::mutex& mu, Session& session) : current_(current), mu_(mu) {
    std::lock_guard<std::mutex> lock(mu_);
    current_ = &session;
  }
  ~CurrentSession() {
    std::lock_guard<std::mutex> lock(mu_);
    current_ = nullptr;
  }
  CurrentSession(const CurrentSession&) = delete;
  CurrentSession& operator=(const CurrentSession&) = delete;

 private:
  Session*& current_;
  std::mutex& mu_;
};

}  // namespace tf::fleet
