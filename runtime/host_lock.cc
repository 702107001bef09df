#include "runtime/host_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace tf::runtime {

HostLock::HostLock(const std::string& path, Mode mode) {
  if (path.empty()) return;
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd_ < 0) {
    error_ = "cannot open the host-wide timing lock " + path + ": " + std::strerror(errno);
    return;
  }
  int rc;
  while ((rc = ::flock(fd_, mode == Mode::Shared ? LOCK_SH : LOCK_EX)) != 0 && errno == EINTR) {
  }
  if (rc != 0) {
    error_ = "cannot lock the host-wide timing lock " + path + ": " + std::strerror(errno);
    return;
  }
  held_ = true;
}

HostLock::~HostLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace tf::runtime
