#include "runtime/wire.h"

#include <errno.h>
#include <unistd.h>

#include <algorithm>

namespace tf::runtime::wire {
namespace {

bool write_all(int fd, const void* p, size_t n) {
  const auto* b = static_cast<const uint8_t*>(p);
  while (n > 0) {
    ssize_t w = ::write(fd, b, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    b += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

bool read_all(int fd, void* p, size_t n) {
  auto* b = static_cast<uint8_t*>(p);
  while (n > 0) {
    ssize_t r = ::read(fd, b, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    b += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

// Larger than any kernel library or reference output this protocol carries.
constexpr uint64_t kMaxFrame = uint64_t{1} << 32;

}  // namespace

bool write_frame(int fd, uint32_t kind, const std::vector<uint8_t>& payload) {
  uint64_t n = payload.size();
  return write_all(fd, &kind, sizeof kind) && write_all(fd, &n, sizeof n) &&
         write_all(fd, payload.data(), payload.size());
}

bool read_frame(int fd, uint32_t* kind, std::vector<uint8_t>* payload) {
  uint64_t n = 0;
  if (!read_all(fd, kind, sizeof *kind) || !read_all(fd, &n, sizeof n) || n > kMaxFrame) return false;
  // Grown as the bytes arrive, not to the length the header claims: a header alone must not make
  // the reader allocate gigabytes.
  constexpr size_t kChunk = size_t{1} << 20;
  payload->clear();
  while (payload->size() < n) {
    const size_t at = payload->size(), step = std::min<size_t>(kChunk, static_cast<size_t>(n) - at);
    payload->resize(at + step);
    if (!read_all(fd, payload->data() + at, step)) return false;
  }
  return true;
}

}  // namespace tf::runtime::wire
