// The tracker's --listen address, parsed rather than matched as text: a port out of range is an
// error (gRPC would listen elsewhere), and loopback means the address, not a prefix
// ("127.evil.example:80" is a host name, not 127.0.0.0/8).
#pragma once

#include <stdexcept>
#include <string>

namespace tf::tracker {

// A bad --listen, --tls-cert or --tls-key: the operator's mistake (exit 2), not the host's.
struct OptionError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct ListenAddress {
  std::string host;  // without brackets: "127.0.0.1", "::1", "0.0.0.0", "localhost"
  int port = 0;      // 0: any free port
};

// "HOST:PORT" or "[IPv6]:PORT". Throws OptionError naming the address.
ListenAddress parse_listen(const std::string& listen);

// Whether the address is on the loopback interface: 127.0.0.0/8, ::1 (or ::ffff:127.x.y.z), or
// localhost. False for anything that does not parse.
bool is_loopback(const std::string& listen);

}  // namespace tf::tracker
