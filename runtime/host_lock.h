// The host-wide timing lock: a flock on a well-known file. A measurer holds it exclusively while it
// times a kernel, so two measurers on one host (local boards, tuning jobs) never time at once; work
// that would disturb a timing on a small host (building candidates) holds it shared, so it waits
// for a timing to end and a timing waits for it. The kernel releases it when the holder dies.
#pragma once

#include <string>

namespace tf::runtime {

class HostLock {
 public:
  enum class Mode { Exclusive, Shared };
  // An empty path holds nothing. Blocks until the lock is granted. Never throws: a lock file that
  // cannot be opened or locked leaves held() false and error() saying why, for the caller to
  // refuse (a timing) or go on without it (a build).
  explicit HostLock(const std::string& path, Mode mode = Mode::Exclusive);
  ~HostLock();
  HostLock(const HostLock&) = delete;
  HostLock& operator=(const HostLock&) = delete;

  // Creates the lock file if it is missing, for a process that may not create files itself (a
  // sandboxed measure worker). Failures are left for the holder's open to report.
  static void create_file(const std::string& path);

  bool held() const { return held_; }
  const std::string& error() const { return error_; }

 private:
  int fd_ = -1;
  bool held_ = false;
  std::string error_;
};

}  // namespace tf::runtime
