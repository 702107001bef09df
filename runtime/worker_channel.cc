#include "runtime/worker_channel.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "runtime/escape_bytes.h"

namespace tf::runtime {
namespace {

constexpr size_t kFrameHeader = sizeof(uint32_t) + sizeof(uint64_t);

void make_non_blocking(int fd) {
  if (fd >= 0) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
}

int millis_until(WorkerChannel::Clock::time_point deadline) {
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline - WorkerChannel::Clock::now()).count();
  return static_cast<int>(std::clamp<int64_t>(left, 0, 1 << 30));
}

// Line breaks and tabs keep the worker's text readable; bytes of 0x80 and above pass as the UTF-8
// they usually are.
bool error_text_passes(unsigned char c) { return c == '\n' || c == '\t' || (c >= 0x20 && c != 0x7f); }

}  // namespace

WorkerChannel::WorkerChannel(int to_worker, int from_worker, int errors_from_worker)
    : to_worker_(to_worker), from_worker_(from_worker), errors_(errors_from_worker) {
  make_non_blocking(to_worker_);
  make_non_blocking(from_worker_);
  make_non_blocking(errors_);
}

WorkerChannel::~WorkerChannel() {
  for (int fd : {to_worker_, from_worker_, errors_}) {
    if (fd >= 0) ::close(fd);
  }
}

bool WorkerChannel::wait(short events_on_main, int main_fd, Clock::time_point deadline) {
  for (;;) {
    pollfd p[2] = {{main_fd, events_on_main, 0}, {errors_, POLLIN, 0}};
    const int n = ::poll(p, errors_ >= 0 ? 2 : 1, millis_until(deadline));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    if (p[1].revents) drain_errors();
    if (p[0].revents) return true;
    if (Clock::now() >= deadline) return false;
  }
}

void WorkerChannel::drain_errors() {
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(errors_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      // At its end the pipe stays readable for ever: stop polling it.
      if (n == 0) {
        ::close(errors_);
        errors_ = -1;
      }
      return;
    }
    const size_t room = kMaxErrorText - std::min(kMaxErrorText, error_text_.size());
    error_text_.append(buf, std::min(room, static_cast<size_t>(n)));
    errors_truncated_ = errors_truncated_ || static_cast<size_t>(n) > room;
  }
}

std::string WorkerChannel::take_error_text() {
  if (errors_ >= 0) drain_errors();
  std::string text = escape_bytes(error_text_, error_text_passes);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  if (errors_truncated_) text += " [...]";
  error_text_.clear();
  errors_truncated_ = false;
  return text;
}

WorkerChannel::Outcome WorkerChannel::send(uint32_t kind, const std::vector<uint8_t>& payload,
                                           Clock::time_point deadline) {
  const uint64_t n = payload.size();
  uint8_t header[kFrameHeader];
  std::memcpy(header, &kind, sizeof kind);
  std::memcpy(header + sizeof kind, &n, sizeof n);
  std::vector<uint8_t> frame(header, header + kFrameHeader);
  frame.insert(frame.end(), payload.begin(), payload.end());
  size_t sent = 0;
  while (sent < frame.size()) {
    const ssize_t w = ::write(to_worker_, frame.data() + sent, frame.size() - sent);
    if (w > 0) {
      sent += static_cast<size_t>(w);
    } else if (w < 0 && errno == EINTR) {
      continue;
    } else if (w < 0 && errno == EAGAIN) {
      if (!wait(POLLOUT, to_worker_, deadline)) return Outcome::Timeout;
    } else {
      return Outcome::Closed;
    }
  }
  return Outcome::Done;
}

WorkerChannel::Outcome WorkerChannel::receive(uint32_t* kind, std::vector<uint8_t>* payload, uint64_t max_bytes,
                                              Clock::time_point deadline) {
  for (;;) {
    if (inbox_.size() >= kFrameHeader) {
      uint64_t n = 0;
      std::memcpy(kind, inbox_.data(), sizeof *kind);
      std::memcpy(&n, inbox_.data() + sizeof *kind, sizeof n);
      if (n > max_bytes) return Outcome::Malformed;
      if (inbox_.size() >= kFrameHeader + n) {
        payload->assign(inbox_.begin() + kFrameHeader, inbox_.begin() + static_cast<std::ptrdiff_t>(kFrameHeader + n));
        inbox_.erase(inbox_.begin(), inbox_.begin() + static_cast<std::ptrdiff_t>(kFrameHeader + n));
        return Outcome::Done;
      }
    }
    uint8_t buf[1 << 16];
    const ssize_t r = ::read(from_worker_, buf, sizeof buf);
    if (r > 0) {
      inbox_.insert(inbox_.end(), buf, buf + r);
    } else if (r < 0 && errno == EAGAIN) {
      if (!wait(POLLIN, from_worker_, deadline)) return Outcome::Timeout;
    } else if (r == 0 || errno != EINTR) {  // end of file, or a read error
      return Outcome::Closed;
    }
  }
}

}  // namespace tf::runtime
