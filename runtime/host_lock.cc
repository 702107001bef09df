#include "runtime/host_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>

namespace tf::runtime {

HostLock::HostLock(const std::string& path, Mode mode) {
  if (path.empty()) return;
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd_ < 0) return;  // an unusable lock file must not stop measuring; the output says which lock
  while (::flock(fd_, mode == Mode::Shared ? LOCK_SH : LOCK_EX) != 0 && errno == EINTR) {
  }
}

HostLock::~HostLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace tf::runtime
