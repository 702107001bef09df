// A bare TCP client for the HTTP server's tests: it sends exactly the bytes it is given (partial
// headers, broken lines), may pick its source address on 127/8, reads with deadlines, and tells
// when the server has closed the connection. Beast's client would refuse or hide all of that.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace tf::http_test {

using Clock = std::chrono::steady_clock;

class RawConnection {
 public:
  // Connects to 127.0.0.1:`port` from `from` (any address of 127/8 is this machine's).
  explicit RawConnection(int port, const std::string& from = "127.0.0.1") {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd_ < 0) throw std::runtime_error("socket: " + std::string(strerror(errno)));
    sockaddr_in local{};
    local.sin_family = AF_INET;
    ::inet_pton(AF_INET, from.c_str(), &local.sin_addr);
    sockaddr_in remote{};
    remote.sin_family = AF_INET;
    remote.sin_port = htons(static_cast<uint16_t>(port));
    ::inet_pton(AF_INET, "127.0.0.1", &remote.sin_addr);
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&local), sizeof local) != 0 ||
        ::connect(fd_, reinterpret_cast<sockaddr*>(&remote), sizeof remote) != 0) {
      const std::string why = strerror(errno);
      ::close(fd_);
      throw std::runtime_error("connecting from " + from + " to port " + std::to_string(port) + ": " + why);
    }
  }
  ~RawConnection() {
    if (fd_ >= 0) ::close(fd_);
  }
  RawConnection(RawConnection&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  // False when the server has closed the connection.
  bool send(const std::string& bytes) {
    size_t sent = 0;
    while (sent < bytes.size()) {
      const ssize_t n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return false;
      sent += static_cast<size_t>(n);
    }
    return true;
  }

  // What the server sends until it closes the connection or `timeout` passes.
  std::string read_until_close(std::chrono::milliseconds timeout) {
    std::string out;
    const auto end = Clock::now() + timeout;
    while (read_some(end, &out) > 0) {
    }
    return out;
  }

  // One response (a header and a Content-Length body); what came when `timeout` passes or the
  // server closes first.
  std::string read_response(std::chrono::milliseconds timeout) {
    std::string out;
    const auto end = Clock::now() + timeout;
    for (;;) {
      const size_t header_end = out.find("\r\n\r\n");
      if (header_end != std::string::npos && out.size() >= header_end + 4 + content_length(out)) return out;
      if (read_some(end, &out) <= 0) return out;
    }
  }

  // Whether the server closed the connection (or reset it) within `wait`.
  bool closed_by_server(std::chrono::milliseconds wait) {
    std::string ignored;
    const auto end = Clock::now() + wait;
    for (;;) {
      const ssize_t n = read_some(end, &ignored);
      if (n == 0 || (n < 0 && errno != ETIMEDOUT)) return true;
      if (n < 0) return false;
    }
  }

 private:
  // Bytes read into `out`: >0; 0 when the server closed; -1 with errno (ETIMEDOUT at `end`).
  ssize_t read_some(Clock::time_point end, std::string* out) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now()).count();
    pollfd p{fd_, POLLIN, 0};
    if (left <= 0 || ::poll(&p, 1, static_cast<int>(left)) <= 0) {
      errno = ETIMEDOUT;
      return -1;
    }
    char buf[65536];
    const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n > 0) out->append(buf, static_cast<size_t>(n));
    return n;
  }
  static size_t content_length(const std::string& response) {
    const std::string head = response.substr(0, response.find("\r\n\r\n"));
    for (const std::string name : {"\r\nContent-Length: ", "\r\ncontent-length: "}) {
      const auto at = head.find(name);
      if (at != std::string::npos) return std::stoul(head.substr(at + name.size()));
    }
    return 0;
  }

  int fd_ = -1;
};

// Asks `ok` every 10 ms until it holds or `timeout` passes; its last answer.
template <class Predicate>
bool wait_until(Predicate ok, std::chrono::milliseconds timeout) {
  const auto end = Clock::now() + timeout;
  while (!ok()) {
    if (Clock::now() > end) return false;
    ::usleep(10000);
  }
  return true;
}

// The status of a raw response ("HTTP/1.1 303 See Other..." -> 303); 0 when there is none.
inline int status_of(const std::string& response) {
  if (response.rfind("HTTP/1.", 0) != 0 || response.size() < 12) return 0;
  return std::stoi(response.substr(9, 3));
}

// The values of header `name` in a raw response's header, in order (names compared exactly).
inline std::vector<std::string> headers_named(const std::string& response, const std::string& name) {
  std::vector<std::string> out;
  const std::string head = response.substr(0, response.find("\r\n\r\n"));
  size_t at = 0;
  while ((at = head.find("\r\n" + name + ": ", at)) != std::string::npos) {
    at += name.size() + 4;
    out.push_back(head.substr(at, head.find("\r\n", at) - at));
  }
  return out;
}

}  // namespace tf::http_test
