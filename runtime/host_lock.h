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
  // An empty path holds nothing. Blocks until the lock is granted.
  explicit HostLock(const std::string& path, Mode mode = Mode::Exclusive);
  ~HostLock();
  HostLock(const HostLock&) = delete;
  HostLock& operator=(const HostLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace tf::runtime
