#include "runtime/host_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "runtime/sandbox.h"

namespace tf::runtime {

HostLock::HostLock(const std::string& path, Mode mode) {
  if (path.empty()) return;
  // Read-only is enough for flock, and all a sandboxed measure worker may open: the file exists
  // once anyone created it (MeasureWorker does before each measurement).
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0 && errno == ENOENT && !sandbox::active()) fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
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

void HostLock::create_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CREAT | O_CLOEXEC, 0666);
  if (fd >= 0) ::close(fd);
}

HostLock::~HostLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace tf::runtime
