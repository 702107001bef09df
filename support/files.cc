#include "support/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace tf {

std::optional<std::string> try_read_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  std::optional<std::string> bytes;
  if (::fstat(fd, &st) != 0) {
    // errno is fstat's
  } else if (S_ISDIR(st.st_mode)) {
    errno = EISDIR;
  } else {
    std::string out;
    if (S_ISREG(st.st_mode) && st.st_size > 0) out.reserve(static_cast<size_t>(st.st_size));
    char buf[1 << 16];
    ssize_t n = 0;
    while ((n = ::read(fd, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR)) {
      if (n > 0) out.append(buf, static_cast<size_t>(n));
    }
    if (n == 0) bytes = std::move(out);
  }
  const int saved = errno;
  ::close(fd);
  errno = saved;
  return bytes;
}

std::string read_file(const std::string& path) {
  errno = 0;
  std::optional<std::string> bytes = try_read_file(path);
  if (!bytes) throw std::runtime_error("cannot read '" + path + "': " + (errno ? std::strerror(errno) : "read error"));
  return std::move(*bytes);
}

}  // namespace tf
